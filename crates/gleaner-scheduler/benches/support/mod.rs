//! What the scale benches share: the one-source configuration they crawl.

use std::time::Duration;

/// A configuration with one listing source whose start URLs are `sites` test-web sites
/// (`url(i)` gives site `i`'s listing), a `gap` between requests at each site, no
/// rights files, and caps far above the run.
pub fn config(sites: usize, gap: Duration, url: impl Fn(usize) -> String) -> String {
    let mut urls = String::new();
    for i in 0..sites {
        urls.push_str(&format!("\"{}\",", url(i)));
    }
    format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Bench\"\n\n\
         [politeness]\ngap = \"{}ms\"\nglobal_daily_cap = 10000000\nrun_time_limit = \"1h\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[rights]\nread_files = false\n\n\
         [[sources]]\nid = \"venues\"\nkind = \"listing\"\nstart_urls = [{urls}]\nevent_url_prefix = \"/events/\"\n\
         max_listing_pages = 1\nmax_sites_at_once = {sites}\n",
        gap.as_millis()
    )
}
