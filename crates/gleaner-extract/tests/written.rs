//! Scores extraction on the written pages of `testdata/written/` (issue 24 item 4): event
//! tables, cards, multi-performance pages, detail pages without structured data, RSS items
//! dated only in their description, and microformats, in five languages.
//!
//! Matching rules: `tests/score/` (shared with `tests/corpus.rs`): predicted and labelled
//! events of one file are paired greedily by the number of agreeing fields (a pair needs
//! the same title or the same start), then scored field by field.
//!
//! Each page is read twice: as `gleaner extract` reads it (fallback on, the default) and
//! with the fallback off. Year-less dates are read after the labels' `saved` day.

use std::path::{Path, PathBuf};

use gleaner_extract::ExtractOptions;
use serde_json::Value;

mod score;
use score::{Table, precision, score_file, table, total};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/written")
}

fn run(path: &Path, base: &str, saved: chrono::NaiveDate, fallback: bool) -> Vec<Value> {
    let opts =
        ExtractOptions { fallback, reference_date: Some(saved), ..ExtractOptions::default() };
    score::run(path, base, &opts)
}

/// A batch of written pages: the pages whose number is in `first..=last`, written and
/// measured together, with its own floors.
struct Batch {
    /// The batch's name in the report.
    name: &'static str,
    /// The first and last page number.
    pages: (u32, u32),
    /// The all-field F1 floor with the fallback on.
    floor: f64,
    /// The floor of the start field's precision with the fallback on: precision first,
    /// a wrong date is worse than none.
    start_precision: f64,
    /// Whether the fallback must add events: not for files that all carry structured data
    /// (the conformance suites' shapes), where the fallback never runs.
    fallback_adds: bool,
}

/// Pages 01–49: the all-field F1 floor with the fallback on (0.991 on 49 pages when set;
/// 0.989 on the first 39; 0.805 on 29 before the footer venue, the address country and
/// the free words). The ten pages 30–39 scored 0.859 when first measured, before the fixes
/// made for them; the ten pages 40–49 scored 0.890 (0.969 over all 49).
const FLOOR_01_49: f64 = 0.99;
/// Pages 50–69, written blind (issue 24): the all-field F1 floor with the fallback on, just
/// under what the fixes made for them reach. At first sight, on 2026-12-02 before any fix,
/// the batch scored 0.744 with the fallback on and 0.689 with it off.
/// Session 2026-12-07b, every fixer round merged: 0.971; the floor just under.
const FLOOR_50_69: f64 = 0.975;
/// Pages 70–89, the second blind batch (issue 24): the all-field F1 floor with the fallback
/// on, just under what the fixes made for them reach (0.956 after the last round). At first sight,
/// measured 2026-12-02, the batch scored 0.558 on main's code and 0.615 after this
/// session's first fixes (0.507 with the fallback off).
const FLOOR_70_89: f64 = 0.955;
/// Pages 90–109, the third blind batch (issue 24), scored once at first sight on
/// 2026-12-02 after this session's fixes for 50–89 had landed: 0.584 with the fallback on,
/// 0.498 off, start precision 0.673. The floors are just under what the general fixes of
/// helpers fbs3 (feeds, RDFa, status badges) and fbu3 reach together (0.722 on, 0.550 off,
/// start precision 0.922): daily hours, `12 y 13 de noviembre` and
/// `3 Ekim 2026 – 28 Şubat 2027` runs, dotted time ranges, the footer's country, stated
/// Irish time, a conference programme's sessions, description lists, headed cards of two
/// kinds, calls for entries. Two of the four wrong starts are right local times lacking a
/// zone the page does not state. The gap to the batches above is the measure of what the
/// extractor has not learnt. Helper ux4's abstention (a page read as one date-only event
/// while it gives times in several blocks is a listing's span) took it to 0.731, start precision 0.959.
/// Helper ux5's round (an item's running-text paragraph as its description, the site's
/// venue from a `Kontakt` block or a footer part holding street and town, legal forms off
/// venue names, an introduction saying every event is free) took it to 0.761, start
/// precision 1.000.
/// Session 2026-12-03 (helpers times2, items2, venue2 and the lead, merged): 0.779.
/// Session 2026-12-07 (place3: a body's or a town's own address gives the town, not the venue): 0.796.
const FLOOR_90_109: f64 = 0.833;

/// Pages 110–129, the fourth blind batch (issue 24): venue and listing pages in five
/// languages. At first sight, on 2026-12-02 before any fix and with the labels as
/// corrected (`is_free` null on priced events), it scored 0.483 with the fallback on
/// (0.288 off), start precision 0.627. The floors are just under what three helpers'
/// general rules reach together (0.838, 0.414 off, start precision 0.885), and then
/// ux3's second round (0.865, start precision 0.912: amounts in words, a place sentence
/// after a bold title, struck-out titles, dotted day ranges, location icons): ux1's
/// Squarespace lists, `<br>` footers, one-day programmes by stage and show-times grids;
/// ux2's bold-led title cells, meeting-point columns, small hours on the next day and a
/// town hall's events in its town; sx's one-digit offsets, `CourseInstance`, date-only
/// JSON-LD given its time by the markup after it, and a footer's country.
/// Session 2026-12-03, merged: 0.907.
/// Raised to just under 0.924, the score after the price fields were read better
/// (tiers, page-wide prices, price sentences, regional dollars).
/// Session 2026-12-07b, every fixer round merged: 0.933; the floor just under.
const FLOOR_110_129: f64 = 0.931;
/// Files 130–149, blind, in the shapes of the public conformance suites (microformats2,
/// hCalendar, schema.org examples, iCalendar RFC cases): 0.853 at first sight (labels as
/// corrected; start precision 0.872). Helper sx's rules (the page's h-card as venue,
/// implied url and name, `<ins>`/`<del>` rescheduling, hCalendar `duration`, iCal
/// LOCATION parts, `superEvent` as a series) reach 0.973, start precision 1.000.
const FLOOR_130_149: f64 = 0.973;

/// Pages 150–159, the fifth blind batch (issue 24), written after this session's rounds on
/// 110–149 and scored once at first sight on 2026-12-02: 0.681 with the fallback on (0.592
/// off, start precision 0.714), where the session's starting code scored 0.674 on the same
/// pages. Its structured pages score 0.93–1.00 at first sight; its pages without
/// structured data 0.00–0.68. Helper ux3's rules, written without these pages, took it
/// to 0.695; helper ux4's abstention (day headings, a listing's span read as one event),
/// written with them in view, to 0.718 with both (start precision 0.833); the floors are
/// just under. Helper ux5's round (see 90–109) took it to 0.756, start precision 0.833;
/// helper gen's (see 170–189) to 0.772, start precision 1.000.
/// Session 2026-12-03, merged: 0.928 (the record segmenter 0.772 → 0.860 alone).
/// Raised to just under 0.931, the score after the price fields were read better
/// (tiers, page-wide prices, price sentences, regional dollars).
/// Session 2026-12-07 (text4: booking links, titles without marks, page notes, month headings): 0.937.
/// Session 2026-12-07b: 0.930. An event page's "more events" sidebar is read now (pages
/// 225, 259, 272, 296 and 308 label its events); page 158 labels its two
/// «Diğer Etkinlikler» none, a disagreement between the labels kept as it is.
/// Session 2026-12-07b, every fixer round merged: 0.948; the floor just under.
const FLOOR_150_159: f64 = 0.943;

/// Pages 160–169, the sixth blind batch (issue 24), written at the end of the session and
/// scored once at first sight on 2026-12-02 with every round merged: 0.641 with the
/// fallback on (0.549 off, start precision 0.694), where the session's starting code
/// scored 0.613. Structured pages 0.92–1.00, pages without structured data 0.00–0.71.
/// Helper ux5's round (see 90–109), written with them in view, took it to 0.722, start
/// precision 0.917 (offsets now fixed by the site's venue's country); helper gen's (see
/// 170–189) to 0.771, start precision 1.000.
/// Session 2026-12-03, merged: 0.817.
/// Session 2026-12-07 (place3, a place labelled at a paragraph's end): 0.822.
/// Raised to just under 0.828, the score after the price fields were read better
/// (tiers, page-wide prices, price sentences, regional dollars).
/// Session 2026-12-07, places and prices merged: 0.832.
/// Session 2026-12-07 (text4: booking links, titles without marks, page notes, month headings): 0.834.
/// Session 2026-12-07b: 0.822. Page 160's "Featured" sidebar of two events is read now;
/// its labels have none (see 150–159).
/// Session 2026-12-07b, every fixer round merged: 0.889; the floor just under.
const FLOOR_160_169: f64 = 0.884;

/// Pages 170–189, the seventh blind batch (issue 24): 3 pages without event structured
/// data and 1 with it in each language, from kinds of site not in the batches above. At
/// first sight, on 2026-12-02 with the session's starting code (`72cdc00`), it scored
/// 0.505 with the fallback on (0.345 off), start precision 0.595: the structured pages
/// 0.80–1.00, the others 0.00–0.84, with 30 wrong starts. Kept out of helper ux5's sight,
/// it then scored 0.510 with ux5's rules (which took 90–109, 150–159 and 160–169 up by
/// 0.03–0.08): the measure of how little shape-by-shape rules generalise. Helper gen's
/// rules by cause (a time's role, listed times, one start stated for a date list, a
/// post's headed sections, the zone of the language tag's region or the country domain,
/// abstaining on a page of dated sections) took it to 0.643, start precision 0.821; with
/// the structured readers' and feeds' fixes made beside them (a zone stated in one event's
/// description, a channel "from" a place, status badges in capitals, Contao's addresses)
/// 0.674, start precision 0.874.
/// Session 2026-12-03, merged: 0.793 (the places of venue2 0.678 → 0.778 alone).
/// Session 2026-12-07 (prose): 0.802 (events announced in a post's paragraphs).
/// Session 2026-12-07 (place3: a table's `Ort` column, a place stated by name alone): 0.820.
/// Raised to just under 0.847, the score after the price fields were read better
/// (tiers, page-wide prices, price sentences, regional dollars).
/// Session 2026-12-07, places and prices merged: 0.862.
/// Session 2026-12-07 (text4: booking links, titles without marks, page notes, month headings): 0.867.
/// Session 2026-12-07b, every fixer round merged: 0.885; the floor just under.
const FLOOR_170_189: f64 = 0.882;

/// Pages 190–209, the eighth blind batch (issue 24), written by helper w190 on 2026-12-02
/// from twenty kinds of site not in the batches above (123 events). At first sight, on the
/// session's starting code (`4b48669`), it scored 0.440 with the fallback on (0.235 off),
/// start precision 0.633 (29 wrong starts). Kept out of helper gen's sight, gen's rules by
/// cause alone took it to 0.468 (start precision 0.644): rules learnt on 170–189 carried
/// 0.028 over. With the structured readers' fixes made on its five structured pages
/// (prices in descriptions, a zone in one description, Contao addresses) beside them, it
/// scores 0.492, start precision 0.689.
/// Session 2026-12-03, merged: 0.681 (times stated away from the date 0.516 → 0.583 alone, start precision 0.870).
/// Session 2026-12-04: 0.703 (a qualified tariff heading and a line of several tiers).
/// Session 2026-12-07 (prose, 200 in view): 0.716, start precision 0.877.
/// Session 2026-12-07 (place3: bodies and offices give their town, not their venue): 0.736.
/// Raised to just under 0.727, the score after the price fields were read better
/// (tiers, page-wide prices, price sentences, regional dollars).
/// Session 2026-12-07, places and prices merged: 0.747.
/// Session 2026-12-07 (text4: booking links, titles without marks, page notes, month headings): 0.756.
/// Session 2026-12-07b, every fixer round merged: 0.775; the floor just under.
const FLOOR_190_209: f64 = 0.778;

/// Pages 210–229, the ninth blind batch (issue 24), written by helper w210 on 2026-12-02
/// (twenty more kinds of site, 125 events) after every rule of the session had been made,
/// and scored once at first sight, untuned: the session's starting code (`4b48669`) 0.493
/// with the fallback on (0.391 off), start precision 0.600 (45 right starts, 30 wrong);
/// the session's final code 0.554, start precision 0.750 (66 right, 22 wrong). The floor
/// is that figure: the next round's rules are measured on it only as held out.
/// Session 2026-12-03, held out (no rule made on it): 0.567 → 0.601, start precision 0.750 → 0.788.
/// Session 2026-12-07 (prose, 210 216 222 226 228 in view): 0.648, start precision 0.892.
/// Session 2026-12-07 (place3, venues' rooms and bodies, 212 216 221 224 in view): 0.686.
/// Raised to just under 0.686, the score after the price fields were read better
/// (tiers, page-wide prices, price sentences, regional dollars).
/// Session 2026-12-07, places and prices merged: 0.715.
/// Session 2026-12-07 (text4: booking links, titles without marks, page notes, month headings): 0.719.
/// Session 2026-12-07b, every fixer round merged: 0.806; the floor just under.
const FLOOR_210_229: f64 = 0.802;

/// Pages 230–249, the tenth blind batch (issue 24), written by helper w230 on 2026-12-02
/// (twenty more kinds of site, 121 events), scored once at first sight, untuned: the
/// session's starting code (`82b9250`) 0.547 with the fallback on (0.289 off), start
/// precision 0.752 (76 right, 25 wrong); with the country's dollar (`84e14f1`) 0.548.
/// The floor is just under: later rules are measured on it as held out.
/// Session 2026-12-03, held out: 0.548 → 0.615, start precision 0.752 → 0.822 (one helper read this batch's pass/fail line while loosening a rule and tightened it again).
/// Session 2026-12-07 (prose, 234 and 247 in view): 0.622.
/// Session 2026-12-07 (place3, 230 238 242 245 246 in view): 0.692.
/// Raised to just under 0.699, the score after the price fields were read better
/// (tiers, page-wide prices, price sentences, regional dollars).
/// Session 2026-12-07, places and prices merged: 0.726.
/// Session 2026-12-07 (text4: booking links, titles without marks, page notes, month headings, place cells): 0.743.
/// Session 2026-12-07b, every fixer round merged: 0.814; the floor just under.
const FLOOR_230_249: f64 = 0.814;

/// Pages 250–269, the eleventh blind batch (issue 24), written by helper w250 on 2026-12-03
/// (twenty more kinds of site, 101 events, 10 pages with event structured data and 10
/// without) while the session's rules were being made, and scored once at first sight:
/// the session's starting code (`3a609bd`) 0.664 with the fallback on (0.496 off), start
/// precision 0.793 (65 right, 17 wrong); the session's final code 0.721 (0.500 off), start
/// precision 0.793 (69 right, 18 wrong). Held out on 2026-12-07: 0.728 (the structured
/// events' site clock, dates in figures without a year, one clock for Uruguay). The floor
/// is just under: later rules are measured on it as held out.
/// Session 2026-12-07, places and prices merged: 0.745.
/// Session 2026-12-07b: diagnosed page by page by that session's fixers, so no longer
/// held out; every round merged: 0.840; the floor just under.
const FLOOR_250_269: f64 = 0.847;

/// Pages 270–289, the twelfth blind batch (issue 24), written by helper w270 on 2026-12-07
/// (twenty more kinds of site, 120 events, 10 pages with event structured data and 10
/// without), labelled before any extractor run and scored once at first sight: 0.695 with
/// the fallback on (0.554 off), start precision 0.898 (79 right, 9 wrong), both on the
/// session's starting code (`e3c38bd`) and after its first four fixes; 0.772 (start
/// precision 0.942) after the year-less dates in figures and the language's clock. The
/// floor is just under: later rules are measured on it as held out.
/// Session 2026-12-07, places and prices merged: 0.782; 0.780 once a structured page's
/// "more events" are read only on pages with `<time>` elements (page 272's widget has
/// none), which keeps the corpus's JSON-LD pages at 3.4 MiB/s instead of 1.9.
/// Session 2026-12-07b: diagnosed page by page by that session's fixers, so no longer
/// held out; every round merged: 0.888; the floor just under.
const FLOOR_270_289: f64 = 0.886;

/// Pages 290–309, the thirteenth blind batch (issue 24), written by helper w290 on
/// 2026-12-07 (twenty more kinds of site, 98 events, 10 pages with event structured data
/// and 10 without), labelled before any extractor run and scored once at first sight: the
/// session's starting code (`e3c38bd`) 0.755 with the fallback on (0.558 off), start
/// precision 0.819 (68 right, 15 wrong); that session's code at the merge 0.756, start
/// precision 0.789 (the prose reader's four events on page 307, titled by the post's
/// heading and without Turkey's offset); with the language's clock 0.765, start precision
/// 0.856. The floor is just under: later rules are measured on it as held out.
/// Session 2026-12-07b: diagnosed page by page by that session's fixers, so no longer
/// held out; every round merged: 0.920; the floor just under.
const FLOOR_290_309: f64 = 0.931;

/// Pages 310–329, the fourteenth blind batch (issue 24), written by helper w310 on
/// 2026-12-07 (sports, nature, science, civic, heritage transport and charity sites; 136
/// events, 10 pages with event structured data and 10 without), labelled before any
/// extractor run, and scored once at first sight (totals only, no page looked at): the session's
/// starting code (`706e0e6`) 0.713 with the fallback on (0.612 off); the code with that
/// session's first rules (the "more events" sidebar, dated section headings) 0.714,
/// start precision 0.884 (107 right, 14 wrong). The floor is just under: later rules are
/// measured on it as held out.
/// With every round of that session merged (no page of it looked at, totals only): 0.760.
/// Diagnosed page by page in session 2026-12-07c (a development batch since): 0.865; the
/// floor just under.
const FLOOR_310_329: f64 = 0.86;

/// Pages 330–349, the fifteenth blind batch (issue 24), written by helper w330 on
/// 2026-12-07 (arts, food, faith, school, market, nightlife and family sites; 139 events,
/// 10 pages with event structured data and 10 without), labelled before any extractor
/// run, and scored once at first sight (totals only, no page looked at): the session's
/// starting code (`706e0e6`) 0.708 with the fallback on (0.598 off); with that session's
/// first rules 0.720, start precision 0.902 (101 right, 11 wrong). The floor is just
/// under: later rules are measured on it as held out.
/// With every round of that session merged (no page of it looked at, totals only): 0.736.
/// Diagnosed page by page in session 2026-12-07c (a development batch since): 0.859; the
/// floor just under.
const FLOOR_330_349: f64 = 0.854;

/// Pages 350–369, written blind (session 2026-12-07c, helper w350). At first sight, on
/// main's code `68fd75a` before any of that session's rules: 0.639 with the fallback, 0.516
/// without; start precision 0.713 (92 right, 37 wrong). After that session's first round
/// (rules made on 310–349) 0.657; then diagnosed page by page by its second round (a
/// development batch since): 0.711, start precision 0.806. The floors are just under.
const FLOOR_350_369: f64 = 0.706;
/// Its start-precision floor (see [`FLOOR_350_369`]).
const START_350_369: f64 = 0.80;
/// Pages 370–389, written blind (session 2026-12-07c, helper w370), held out: nobody who
/// writes rules has looked at them. At first sight on `68fd75a`: 0.728 with the fallback,
/// 0.580 without; start precision 0.732 (101 right, 37 wrong). With every rule of that
/// session (totals only): 0.748, start precision 0.732 still. The floors stay at first
/// sight's: the next session diagnoses them.
const FLOOR_370_389: f64 = 0.723;
/// Its start-precision floor (see [`FLOOR_370_389`]).
const START_370_389: f64 = 0.72;

const BATCHES: [Batch; 19] = [
    Batch {
        name: "pages 01–49",
        pages: (1, 49),
        floor: FLOOR_01_49,
        start_precision: 0.99,
        fallback_adds: true,
    },
    Batch {
        name: "pages 50–69 (blind)",
        pages: (50, 69),
        floor: FLOOR_50_69,
        start_precision: 0.99,
        fallback_adds: true,
    },
    Batch {
        name: "pages 70–89 (blind)",
        pages: (70, 89),
        floor: FLOOR_70_89,
        start_precision: 0.99,
        fallback_adds: true,
    },
    Batch {
        name: "pages 90–109 (blind)",
        pages: (90, 109),
        floor: FLOOR_90_109,
        start_precision: 0.99,
        fallback_adds: true,
    },
    Batch {
        name: "pages 110–129 (blind)",
        pages: (110, 129),
        floor: FLOOR_110_129,
        start_precision: 0.90,
        fallback_adds: true,
    },
    Batch {
        name: "suites 130–149 (blind)",
        pages: (130, 149),
        floor: FLOOR_130_149,
        start_precision: 0.99,
        fallback_adds: false,
    },
    Batch {
        name: "pages 150–159 (blind)",
        pages: (150, 159),
        floor: FLOOR_150_159,
        start_precision: 0.95, // the unlabelled sidebar events (see the floor)
        fallback_adds: true,
    },
    Batch {
        name: "pages 160–169 (blind)",
        pages: (160, 169),
        floor: FLOOR_160_169,
        start_precision: 0.94, // the unlabelled sidebar events (see the floor)
        fallback_adds: true,
    },
    Batch {
        name: "pages 170–189 (blind)",
        pages: (170, 189),
        floor: FLOOR_170_189,
        start_precision: 0.87,
        fallback_adds: true,
    },
    Batch {
        name: "pages 190–209 (blind)",
        pages: (190, 209),
        floor: FLOOR_190_209,
        start_precision: 0.86,
        fallback_adds: true,
    },
    Batch {
        name: "pages 210–229 (blind)",
        pages: (210, 229),
        floor: FLOOR_210_229,
        start_precision: 0.78,
        fallback_adds: true,
    },
    Batch {
        name: "pages 230–249 (blind)",
        pages: (230, 249),
        floor: FLOOR_230_249,
        start_precision: 0.80,
        fallback_adds: true,
    },
    Batch {
        name: "pages 250–269 (blind)",
        pages: (250, 269),
        floor: FLOOR_250_269,
        start_precision: 0.79,
        fallback_adds: true,
    },
    Batch {
        name: "pages 270–289 (blind)",
        pages: (270, 289),
        floor: FLOOR_270_289,
        start_precision: 0.93,
        fallback_adds: true,
    },
    Batch {
        name: "pages 290–309 (blind)",
        pages: (290, 309),
        floor: FLOOR_290_309,
        start_precision: 0.85,
        fallback_adds: true,
    },
    Batch {
        name: "pages 310–329 (blind)",
        pages: (310, 329),
        floor: FLOOR_310_329,
        start_precision: 0.88,
        fallback_adds: true,
    },
    Batch {
        name: "pages 330–349 (blind)",
        pages: (330, 349),
        floor: FLOOR_330_349,
        start_precision: 0.90,
        fallback_adds: true,
    },
    Batch {
        name: "pages 350–369 (blind)",
        pages: (350, 369),
        floor: FLOOR_350_369,
        start_precision: START_350_369,
        fallback_adds: true,
    },
    Batch {
        name: "pages 370–389 (blind)",
        pages: (370, 389),
        floor: FLOOR_370_389,
        start_precision: START_370_389,
        fallback_adds: true,
    },
];

/// The page number a file's name starts with (`51-en-gb-….html` → 51).
fn number(name: &str) -> u32 {
    name.split('-').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

#[test]
fn written_pages_f1() {
    let text = std::fs::read_to_string(dir().join("labels.json")).unwrap();
    let labels: Value = serde_json::from_str(&text).unwrap();
    let saved =
        chrono::NaiveDate::parse_from_str(labels["saved"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let files = labels["files"].as_object().unwrap();
    assert!(files.len() >= 389, "the written corpus has {} pages", files.len());
    let mut report = String::new();
    let mut failures = Vec::new();
    let (mut all_with, mut all_without): (Table, Table) = (Table::new(), Table::new());
    for batch in &BATCHES {
        let (mut with, mut without): (Table, Table) = (Table::new(), Table::new());
        let in_batch = |name: &&String| (batch.pages.0..=batch.pages.1).contains(&number(name));
        for (name, entry) in files.iter().filter(|(n, _)| in_batch(n)) {
            let path = dir().join(name);
            let want: Vec<Value> = entry["events"].as_array().cloned().unwrap_or_default();
            let base = entry["base_url"].as_str().unwrap();
            let mut file = Table::new();
            let mut log = String::new();
            let preds = run(&path, base, saved, true);
            score_file(&preds, &want, &mut file, &mut log);
            let c = total(&file);
            report.push_str(&format!(
                "{name}: F1 {:.3} ({} predicted, {} labelled; tp {} fp {} fn {})\n{log}",
                c.f1(),
                preds.len(),
                want.len(),
                c.tp,
                c.fp,
                c.fn_
            ));
            for (f, c) in file {
                with.entry(f).or_default().add(c);
            }
            let preds = run(&path, base, saved, false);
            score_file(&preds, &want, &mut without, &mut String::new());
        }
        report.push_str(&table(&format!("{}, fallback on (the default)", batch.name), &with));
        report.push_str(&table(&format!("{}, fallback off", batch.name), &without));
        let (f_with, f_without) = (total(&with).f1(), total(&without).f1());
        report.push_str(&format!(
            "{}: F1 {f_with:.3} with the fallback, {f_without:.3} without\n\n",
            batch.name
        ));
        // Floors just under today's scores, so a regression fails loudly.
        if f_with < batch.floor {
            failures.push(format!("{}: F1 {f_with:.3} < floor {}", batch.name, batch.floor));
        }
        if batch.fallback_adds && f_with <= f_without {
            failures.push(format!("{}: the fallback must add events", batch.name));
        }
        let start = precision(with["start"]);
        if start < batch.start_precision {
            let floor = batch.start_precision;
            failures.push(format!("{}: start precision {start:.3} < {floor}", batch.name));
        }
        for (f, c) in with {
            all_with.entry(f).or_default().add(c);
        }
        for (f, c) in without {
            all_without.entry(f).or_default().add(c);
        }
    }
    report.push_str(&table("all written pages, fallback on (the default)", &all_with));
    report.push_str(&table("all written pages, fallback off", &all_without));
    #[allow(clippy::print_stdout, reason = "the score report is the point of this test")]
    {
        println!("{report}");
    }
    assert!(failures.is_empty(), "{}\n{report}", failures.join("\n"));
}
