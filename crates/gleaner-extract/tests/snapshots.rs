//! One named insta snapshot per vendored corpus page: the events `gleaner extract` would
//! print and the diagnostics it would report. Review `.snap` diffs like code.

use std::path::Path;

use gleaner_event::{NormaliseContext, PublicEvent};
use serde_json::{Value, json};
use url::Url;

#[test]
fn corpus_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus");
    let labels: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("labels.json")).unwrap()).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.ends_with(".md") && n != "labels.json")
        .collect();
    names.sort();
    assert!(names.len() >= 30, "the vendored corpus is missing: {names:?}");
    for name in names {
        let base = labels["files"][&name]["base_url"].as_str().unwrap_or("https://example.org/");
        let base = Url::parse(base).unwrap();
        let ctx = NormaliseContext { base_url: &base, default_tz: None };
        let content_type = if name.ends_with(".ics") { "text/calendar" } else { "text/html" };
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        let out = gleaner_extract::extract_events(&bytes, content_type, &ctx);
        let events: Vec<PublicEvent> = out.events.iter().map(PublicEvent::from).collect();
        let diagnostics: Vec<String> = out.diagnostics.iter().map(ToString::to_string).collect();
        let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s).to_owned();
        insta::assert_json_snapshot!(stem, json!({ "events": events, "diagnostics": diagnostics }));
    }
}
