//! The public pages in a real headless Chromium, driven through chromedriver's
//! WebDriver HTTP API (`webdriver.rs`).
//!
//! The about page in each language, the event list and an event view are opened and
//! screenshotted into `target/browser-artifacts/`. An event whose crawled title carries
//! a `<script>` tag, and whose links are `javascript:` URLs, must run nothing.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use gleaner_server::{AppState, ServerOptions};

use crate::webdriver::{Browser, browser_paths};
use crate::{CONFIG, Fixed, sample_events, settings};

/// Serves the router on a real loopback listener in its own runtime thread.
fn serve(events: Vec<gleaner_server::ApiEvent>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let state = AppState { settings: settings(CONFIG), events: Arc::new(Fixed(events)) };
            let app = gleaner_server::router_with(state, ServerOptions::default());
            axum::serve(listener, app).await.unwrap();
        });
    });
    addr
}

#[test]
fn browser_about_pages_event_list_and_view() {
    let Some((chromium, chromedriver)) = browser_paths() else { return };
    let mut events = sample_events();
    // A title as a hostile page might give it, and links that would run script.
    events[0].facts.title = Some(
        "<script>window.__xss=1;alert(1)</script><img src=x onerror=\"window.__xss=2\">Fête".into(),
    );
    events[0].facts.ticket_url = Some("javascript:window.__xss=3".into());
    let server = serve(events);
    let browser = Browser::start(&chromium, &chromedriver);

    let headings = [
        ("en", "About AubeActuBot", "How to block it"),
        ("tr", "AubeActuBot hakkında", "Nasıl engellersiniz"),
        ("fr", "À propos de AubeActuBot", "Comment le bloquer"),
        ("es", "Acerca de AubeActuBot", "Cómo bloquearlo"),
        ("de", "Über AubeActuBot", "Wie Sie ihn sperren"),
    ];
    for (lang, title, block) in headings {
        browser.open(&format!("http://{server}/bot/{lang}"));
        let seen = browser.script(
            "return [document.documentElement.lang, document.querySelector('h1').textContent, \
             document.querySelector('#block h2').textContent, \
             document.querySelector('#user-agent').textContent, \
             document.querySelector('tr[data-key=\"gap\"] td').textContent];",
        );
        assert_eq!(seen[0], lang);
        assert_eq!(seen[1], title);
        assert_eq!(seen[2], block);
        assert_eq!(seen[3], "AubeActuBot/2.1 (+https://aube.example/robot; robot@aube.example)");
        assert_eq!(seen[4], "2 s");
        browser.screenshot(&format!("about-{lang}"));
    }

    browser.open(&format!("http://{server}/events"));
    let list = browser.script(
        "return [document.querySelectorAll('tr.event').length, \
         document.querySelector('tr.event a').textContent, typeof window.__xss, \
         document.querySelectorAll('script').length];",
    );
    assert_eq!(list[0], 3, "three published events");
    assert!(
        list[1].as_str().unwrap().starts_with("<script>window.__xss=1"),
        "shown as text: {list}"
    );
    assert_eq!(list[2], "undefined", "no crawled script ran");
    assert_eq!(list[3], 0, "no script element at all");
    // Grouped by day, dates in words in the event's zone, the machine form kept.
    let days = browser.script(
        "return [Array.from(document.querySelectorAll('tr.day')).map(r => r.textContent), \
         document.querySelector('tr.day time').getAttribute('datetime'), \
         document.querySelector('tr.event time').textContent, \
         document.querySelector('tr.event td.site').textContent];",
    );
    assert_eq!(
        days[0],
        serde_json::json!([
            "Saturday 5 December 2026",
            "Saturday 12 December 2026",
            "Sunday 20 December 2026"
        ])
    );
    assert_eq!(days[1], "2026-12-05");
    assert_eq!(days[2], "20:00 (Paris time)");
    assert_eq!(days[3], "salle.example", "the site, not the source id");
    browser.screenshot("events-list");

    browser.open(&format!("http://{server}/events/1"));
    // Give an injected onerror handler time to fire if one existed.
    std::thread::sleep(Duration::from_millis(300));
    let view = browser.script(
        "return [document.querySelector('#title').textContent, typeof window.__xss, \
         Array.from(document.querySelectorAll('a')).map(a => a.href).filter(h => h.startsWith('javascript')).length, \
         document.querySelector('#last-checked').textContent, \
         document.querySelector('#provenance h2').textContent, document.querySelectorAll('img').length];",
    );
    assert!(view[0].as_str().unwrap().contains("<img src=x onerror="), "{view}");
    assert_eq!(view[1], "undefined", "no crawled script ran");
    assert_eq!(view[2], 0, "no javascript: link");
    assert_eq!(view[3], "Mon 30 Nov 2026, 13:00 (Paris time)");
    assert_eq!(view[4], "How this event got here");
    assert_eq!(view[5], 0, "no injected image");
    let when = browser.script(
        "const t = document.querySelector('#event td time'); \
         return [t.textContent, t.getAttribute('datetime'), \
         document.querySelector('#last-checked time').getAttribute('datetime')];",
    );
    assert_eq!(when[0], "Sat 5 Dec 2026, 20:00 (Paris time)");
    assert_eq!(when[1], "2026-12-05T20:00:00+01:00");
    assert_eq!(when[2], "2026-11-30T12:00:00Z");
    browser.screenshot("event-view");

    browser.open(&format!("http://{server}/events/3"));
    let back = browser.script(
        "return Array.from(document.querySelectorAll('a')).map(a => a.href).includes('https://salle.example/e/3');",
    );
    assert_eq!(back, true, "the link back");
}
