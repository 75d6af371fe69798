//! What `gleaner demo` crawls the city with: the configuration it writes beside its
//! database (so what the about page says can be read next to what produced it), and the
//! `[[site_rules]]` for the venues without structured data.

use std::net::SocketAddr;
use std::path::Path;

use crate::{City, Markup, Origins, SeedKind};

/// The environment variable the demo's licensed-API source names; the demo supplies the
/// sample city's key itself when it is unset.
pub const DEMO_KEY_ENV: &str = "GLEANER_DEMO_TICKETING_KEY";

/// The demo's configuration: the sample city's listings, APIs, open data and calendars
/// as sources, its venues without structured data read with rules, loopback allowed;
/// `version` is the binary's.
pub fn demo_config(
    city: &City,
    origins: &Origins,
    db: &Path,
    listen: SocketAddr,
    gap: &str,
    version: &str,
) -> String {
    let mut text = format!(
        "# Written by `gleaner demo`: the configuration the demo crawled and served with.\n\
         [bot]\ntoken = \"{token}\"\nversion = \"{version}\"\ninfo_url = \"http://{listen}/bot\"\n\
         operator = \"the gleaner demo\"\nlanguages = [\"en\"]\n\n\
         [politeness]\ngap = \"{gap}\"\nmax_in_flight = 1\n\n\
         [politeness.purpose.event-page]\njitter = [\"0ms\", \"150ms\"]\n\n\
         [network]\n# The sample city lives on loopback; a real deployment allows no private range.\nallow = [\"127.0.0.0/8\"]\n\n\
         [store]\nurl = \"sqlite://{db}\"\n\n\
         [identity]\n# Every request is signed (Web Bot Auth); the key directory is served at\n\
         # http://{listen}/.well-known/http-message-signatures-directory.\nkey_file = \"identity.pem\"\n",
        token = city.token(),
        db = db.display(),
    );
    for seed in city.seeds(origins).into_iter().filter(|s| s.kind == SeedKind::JsonApi) {
        let site = city.site(seed.site);
        text.push_str(&format!(
            "\n[[sources]]\nid = \"{key}-api\"\nkind = \"json-api\"\nstart_urls = [\"{url}\"]\nkeep = \"full\"\n\
             [sources.api]\nevents = \"/events\"\nid = \"/id\"\ntitle = \"/title\"\nstart = \"/start\"\nend = \"/end\"\n\
             url = \"/url\"\nimage = \"/image\"\nstatus = \"/status\"\nvenue = \"/venue\"\nvenue_name = \"/name\"\n\
             street = \"/address\"\npostal_code = \"/postal_code\"\nlocality = \"/city\"\ncountry = \"/country\"\n",
            key = site.key,
            url = seed.url,
        ));
    }
    for seed in city.seeds(origins).into_iter().filter(|s| s.kind == SeedKind::LicensedApi) {
        // The ticketing API's licence: its key (from the environment, the demo sets its
        // own) and its rate limit of 10 calls a minute, as a 6 s gap.
        text.push_str(&format!(
            "\n[[sources]]\nid = \"ticketing\"\nkind = \"licensed-api\"\nstart_urls = [\"{url}\"]\nkeep = \"full\"\n\
             api_key_env = \"{DEMO_KEY_ENV}\"\napi_key_param = \"apikey\"\napi_gap = \"6s\"\n\
             page_param = \"page\"\ntotal_pages = \"/page/totalPages\"\n\
             [sources.api]\nevents = \"/_embedded/events\"\nid = \"/id\"\ntitle = \"/name\"\nurl = \"/url\"\n\
             start = \"/dates/start/dateTime\"\nstatus = \"/dates/status/code\"\nvenue = \"/_embedded/venues/0\"\n\
             venue_name = \"/name\"\nstreet = \"/address/line1\"\nlocality = \"/city/name\"\npostal_code = \"/postalCode\"\n\
             country = \"/country/countryCode\"\nprice_min = \"/priceRanges/0/min\"\nprice_max = \"/priceRanges/0/max\"\n\
             currency = \"/priceRanges/0/currency\"\n",
            url = seed.url,
        ));
    }
    for seed in city.seeds(origins).into_iter().filter(|s| s.kind == SeedKind::OpenDataJson) {
        // Open data for the newsroom: weather warnings (one per phenomenon) and fuel prices.
        let (id, mapping) = if seed.url.ends_with("vigilance.json") {
            (
                "vigilance",
                "records = \"/warnings\"\nid = \"phenomenon\"\ntitle = [\"phenomenon\", \"level\"]\ndate = \"start\"\n",
            )
        } else {
            (
                "fuel-prices",
                "records = \"/prices\"\ntitle = [\"name\", \"fuel\", \"price_eur_per_litre\"]\ndate = \"updated\"\n",
            )
        };
        text.push_str(&format!(
            "\n[[sources]]\nid = \"{id}\"\nkind = \"open-data\"\nstart_urls = [\"{url}\"]\nkeep = \"full\"\npublish = false\n\
             [sources.records]\n{mapping}",
            url = seed.url,
        ));
    }
    for seed in city.seeds(origins).into_iter().filter(|s| s.kind == SeedKind::ICalendar) {
        let site = city.site(seed.site);
        text.push_str(&format!(
            "\n[[sources]]\nid = \"{key}-agenda\"\nkind = \"ical\"\nstart_urls = [\"{url}\"]\nkeep = \"full\"\ntime_zone = \"{zone}\"\n",
            key = site.key,
            url = seed.url,
            zone = site.zone,
        ));
    }
    for seed in city.seeds(origins).into_iter().filter(|s| s.kind == SeedKind::Listing) {
        let site = city.site(seed.site);
        let prefix = seed.url.parse::<http::Uri>().map(|u| u.path().to_owned()).unwrap_or_default();
        text.push_str(&format!(
            "\n[[sources]]\nid = \"{key}\"\nkind = \"listing\"\nstart_urls = [\"{url}\"]\nevent_url_prefix = \"{prefix}\"\n\
             keep = \"full\"\ntime_zone = \"{zone}\"\nmax_event_pages = 30\n",
            key = site.key,
            url = seed.url,
            zone = site.zone,
        ));
    }
    // Venues without structured data are read with per-site rules (issue 10).
    text.push_str(&sample_city_rules(city, origins));
    text
}

/// The `[[site_rules]]` `gleaner demo` writes for the sample city's venues without
/// structured data (one per language): cards or table rows on the listings, a facts
/// block on the event pages, dates in words in the venue's language.
pub fn sample_city_rules(city: &City, origins: &Origins) -> String {
    let mut text = String::new();
    for i in city.venues_with(Markup::Plain) {
        let site = city.site(i);
        text.push_str(&format!(
            "\n[[site_rules]]\nsite = \"{origin}\"\nitem = \"tr.event-row, article.event-card\"\n\
             title = \".event-title\"\ndate = \".event-date time\"\nvenue = \".event-venue span\"\n\
             address = \".event-address\"\nprice = \".event-price\"\nlink = \".event-title a\"\n\
             image = \"img.event-image\"\ndescription = \".event-description\"\n\
             status = {{ selector = \".event-status\", regex = \"(?:[^:]*:)?\\\\s*(.+)\" }}\n\
             next_page = \"a[rel=next]\"\nlanguage = \"{lang}\"\ntime_zone = \"{zone}\"\ncurrency = \"{currency}\"\n",
            origin = origins.origin(i),
            lang = site.lang.code(),
            zone = site.zone.name(),
            currency = site.currency,
        ));
    }
    text
}
