//! The sample city inside the test web: the same content `gleaner demo` serves
//! (`gleaner_samplecity`), routed per request with the ledger and fault scenarios around it.
//!
//! The city's pages name other city sites by absolute URL, so its [`Origins`] are the test
//! web's addresses of the city's sites, in the city's order.

use std::net::SocketAddr;

use gleaner_samplecity::{City, GroundTruth, Origins, Traffic};

use crate::manifest::{Manifest, SiteContent};

/// The city a web serves, with its origins and its traffic counters.
#[derive(Debug)]
pub struct CityWeb {
    /// The content model.
    pub city: City,
    /// Where each city site is served (city order).
    pub origins: Origins,
    /// The throttle window and API rate limit counters, from the web's start.
    pub(crate) traffic: Traffic,
}

impl CityWeb {
    /// The city of `manifest` served at `addrs` (web order), if it has one.
    pub(crate) fn new(manifest: &Manifest, addrs: &[SocketAddr]) -> Option<CityWeb> {
        let config = manifest.city.as_ref()?;
        let city = config.build(&manifest.token);
        let mut by_city: Vec<Option<SocketAddr>> = vec![None; city.len()];
        for (i, spec) in manifest.sites.iter().enumerate() {
            if let SiteContent::City(j) = spec.content
                && j < by_city.len()
            {
                by_city[j] = Some(addrs[i]);
            }
        }
        // A city site the manifest leaves out is named at an address nothing answers.
        let unserved = SocketAddr::from(([127, 0, 0, 0], 9));
        let addrs: Vec<SocketAddr> = by_city.into_iter().map(|a| a.unwrap_or(unserved)).collect();
        Some(CityWeb { city, origins: Origins::from_addrs(&addrs), traffic: Traffic::new() })
    }

    /// What a perfect, polite crawler keeps at `pass`, with URLs on this web.
    pub fn ground_truth(&self, pass: u32) -> GroundTruth {
        self.city.ground_truth(&self.origins, pass)
    }
}
