//! The sample city inside the test web: the same content `gleaner demo` serves
//! (`gleaner_samplecity`), routed per request with the ledger and fault scenarios around it.
//!
//! The city's pages name other city sites by absolute URL, so its [`Origins`] are the test
//! web's addresses of the city's sites, in the city's order.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use gleaner_samplecity::{City, GroundTruth, Moment, Origins, Role, Traffic};

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
    /// The licensed API's calls on the ledger's clock, for the in-process web.
    api_calls: Mutex<VecDeque<Duration>>,
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
        Some(CityWeb {
            city,
            origins: Origins::from_addrs(&addrs),
            traffic: Traffic::new(),
            api_calls: Mutex::default(),
        })
    }

    /// The moment a request to city site `j` arrives: on the machine's clock (the
    /// city's own [`Traffic`]) for a socket web, or at `now` on the ledger's clock (time
    /// since its epoch, Tokio's for the in-process web), so the throttling venue's window
    /// and the API's rate limit run on the clock a test on paused time keeps.
    pub(crate) fn moment(&self, j: usize, now: Option<Duration>) -> Moment {
        let Some(now) = now else { return self.traffic.moment(&self.city, j) };
        let mut api_calls = 0;
        if self.city.site(j).role == Role::LicensedApi {
            let mut calls = self.api_calls.lock().unwrap_or_else(PoisonError::into_inner);
            while calls.front().is_some_and(|t| now.saturating_sub(*t) >= self.city.api_window()) {
                calls.pop_front();
            }
            calls.push_back(now);
            api_calls = calls.len() as u32;
        }
        Moment { elapsed: now, api_calls }
    }

    /// What a perfect, polite crawler keeps at `pass`, with URLs on this web.
    pub fn ground_truth(&self, pass: u32) -> GroundTruth {
        self.city.ground_truth(&self.origins, pass)
    }
}
