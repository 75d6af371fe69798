//! A one-day programme by stage: a page that states one day (`Dimanche 21 juin 2026`)
//! and lists acts under stage headings (`<h2>Scène 1 – Place de l'Hôtel-de-Ville</h2>`),
//! each list item a time and an act (`<li><span>18h30 – 19h15</span> <strong>Chorale des
//! Tilleuls</strong> – chansons françaises</li>`), as town halls print a Fête de la
//! musique or a festival day.

use chrono::NaiveDate;
use gleaner_event::EventTime;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::text::collapse;
use gleaner_event::{Markup, RawEvent};
use scraper::{ElementRef, Html};

use super::item::title_text;
use super::tables::cell_time;
use super::words::{is_session_filler, is_status_badge, status_in};
use super::{MIN_ITEMS, in_chrome, leaves, sel, text_of};

/// Words that name a stage, not a place (`Scène 1`, `grande scène`, `Main Stage`,
/// `Bühne 2`, `escenario principal`), folded.
const STAGE_WORDS: &[&str] =
    &["scene", "stage", "buhne", "escenario", "sahne", "podium", "tarima", "tablado"];

/// One act of the programme: its event.
pub(super) struct Act {
    pub(super) raw: RawEvent,
}

/// The acts of a one-day programme on `day`: each list after the title whose every item
/// holds a time of day alone in one element and names an act (its first bold text after
/// that time), [`MIN_ITEMS`] acts or more in all. An act's place is the stage heading
/// above its list (a stage word and its number dropped: `Scène 1 – Place de
/// l'Hôtel-de-Ville` → `Place de l'Hôtel-de-Ville`) with the street a short line under
/// the heading names, or the bold name before its time (`<strong>Brasserie du
/// Pont</strong>, 1 quai de l'Orne – <span>20h</span>`); an end earlier than the start is
/// on the next day; a status word is its status; a dash after the act opens its
/// description. `None` when the page is no such programme.
pub(super) fn programme<'a>(
    doc: &'a Html,
    h1: ElementRef<'a>,
    day: NaiveDate,
    order: DateOrder,
) -> Option<(Vec<Act>, ElementRef<'a>)> {
    let mut acts = Vec::new();
    let mut first = None;
    for list in doc.select(&sel("ul, ol")).take(500) {
        if list.id() <= h1.id() || in_chrome(list) {
            continue;
        }
        let items: Vec<ElementRef<'_>> = list
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| c.value().name() == "li")
            .collect();
        if items.is_empty() {
            continue;
        }
        // Lists under day headings are a programme of several days: the listing's.
        if heading_before(list)
            .is_some_and(|h| parse_text_date(&text_of(h), Some(day), order).is_some())
        {
            return None;
        }
        let stage = stage_of(list);
        let read: Vec<Act> =
            items.iter().filter_map(|li| act(*li, day, order, stage.as_ref())).collect();
        if read.len() == items.len() {
            acts.extend(read);
            first.get_or_insert(list);
        }
    }
    if acts.len() < MIN_ITEMS
        || acts.iter().any(|a| a.raw.name.as_deref().is_some_and(is_session_filler))
    {
        return None;
    }
    Some((acts, first?))
}

/// A stage: its place's name and maybe its street.
struct Stage {
    name: String,
    street: Option<String>,
}

/// The last heading before a list among its earlier siblings: the stage it is under
/// (`Jardin public, rue des Tanneurs. En cas de pluie…` under it names the street `rue des
/// Tanneurs`).
fn heading_before(list: ElementRef<'_>) -> Option<ElementRef<'_>> {
    list.prev_siblings()
        .filter_map(ElementRef::wrap)
        .find(|s| matches!(s.value().name(), "h2" | "h3" | "h4" | "h5"))
}

/// The stage a list is under (see [`heading_before`]), and the street a paragraph
/// between the heading and the list names first.
fn stage_of(list: ElementRef<'_>) -> Option<Stage> {
    let mut between = Vec::new();
    let heading = list.prev_siblings().filter_map(ElementRef::wrap).find(|s| {
        let found = matches!(s.value().name(), "h2" | "h3" | "h4" | "h5");
        if !found {
            between.push(*s);
        }
        found
    })?;
    let text = text_of(heading);
    if text.chars().count() > 80
        || parse_text_date(&text, None, DateOrder::default()).is_some()
        || parse_text_time(&text).is_some()
    {
        return None;
    }
    let name = stage_place(&text)?;
    let street = between.iter().rev().filter(|p| p.value().name() == "p").find_map(|p| {
        let first = text_of(*p);
        let sentence = first.split(". ").next().unwrap_or_default().trim_end_matches('.');
        sentence
            .split(", ")
            .map(str::trim)
            .find(|part| part.chars().count() <= 60 && super::venue::names_a_street(part))
            .map(|part| {
                part.split_whitespace().take_while(|w| !w.ends_with(':')).collect::<Vec<_>>()
            })
            .map(|w| w.join(" "))
    });
    Some(Stage { name, street })
}

/// The place a stage heading names, its stage words dropped: `Scène 1 – Place de
/// l'Hôtel-de-Ville` and `Place de la Mairie – grande scène` name the squares; a heading
/// that is only a stage (`Grande scène`) names none.
fn stage_place(heading: &str) -> Option<String> {
    let is_stage = |part: &str| {
        gleaner_event::datetext::fold_diacritics(part)
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| STAGE_WORDS.contains(&w))
    };
    let heading = heading.replace('\u{a0}', " ");
    let places: Vec<&str> = heading
        .split(" – ")
        .flat_map(|p| p.split(" - "))
        .map(str::trim)
        .filter(|p| !is_stage(p))
        .collect();
    match places.as_slice() {
        [one] if (2..=60).contains(&one.chars().count()) => Some((*one).to_owned()),
        _ => None,
    }
}

/// One programme item's act: a leaf that is only a time (`18h30 – 19h15`, `19h`), the
/// first bold text after it as the act; `None` otherwise, or when the item gives a date.
fn act(li: ElementRef<'_>, day: NaiveDate, order: DateOrder, stage: Option<&Stage>) -> Option<Act> {
    let all = text_of(li);
    if all.chars().count() > 400 || parse_text_date(&all, Some(day), order).is_some() {
        return None;
    }
    let blocks = sel("span, time, b, strong, em, i, small, a");
    let time_el = li.select(&blocks).find(|el| {
        let t = text_of(*el);
        t.chars().count() <= 20 && only_time(&t).is_some()
    });
    let (time_el, (t1, t2)) = match time_el {
        Some(el) => (Some(el), only_time(&text_of(el))?),
        // The item's text opens with its time (`<li>17h Ateliers jazz</li>`): not read,
        // the act has no element of its own.
        None => return None,
    };
    let time_id = time_el.map(|e| e.id())?;
    let bolds: Vec<ElementRef<'_>> = li.select(&sel("strong, b")).collect();
    let title = bolds
        .iter()
        .filter(|b| b.id() > time_id)
        .map(|b| (title_text(*b), *b))
        .find(|(t, _)| t.chars().count() >= 2 && !is_status_badge(t))?;
    let before: Vec<&ElementRef<'_>> = bolds.iter().filter(|b| b.id() < time_id).collect();
    let start = EventTime::Floating(day.and_time(t1));
    let end = t2.filter(|t2| *t2 != t1).and_then(|t2| {
        let d = if t2 < t1 { day.succ_opt()? } else { day };
        Some(EventTime::Floating(d.and_time(t2)))
    });
    let mut raw = RawEvent {
        name: Some(title.0.clone()),
        start: Some(start.to_iso()),
        end: end.map(|e| e.to_iso()),
        markup: Markup::Text,
        status: status_in(&all).map(str::to_owned),
        ..RawEvent::default()
    };
    match before.as_slice() {
        // A venue named before the time: its name, and the words between it and the time
        // its street (`<strong>Bar Le Central</strong>, 12 rue Gambetta – <span>21h</span>`).
        [venue] => {
            raw.location_name = Some(title_text(**venue));
            let between: String = li
                .descendants()
                .filter(|n| n.id() > venue.id() && n.id() < time_id)
                .filter(|n| !n.ancestors().any(|a| a.id() == venue.id()))
                .filter_map(|n| n.value().as_text().map(|t| t.to_string()))
                .collect();
            let street = collapse(&between);
            let street =
                street.trim_matches(|c: char| c == ',' || c == '–' || c == '-' || c == ':');
            let street = street.trim();
            if (3..=60).contains(&street.chars().count()) && super::venue::names_a_street(street) {
                raw.street = Some(street.to_owned());
            }
        }
        [] => {
            if let Some(s) = stage {
                raw.location_name = Some(s.name.clone());
                raw.street.clone_from(&s.street);
            }
        }
        _ => return None,
    }
    raw.description = description_after(li, title.1);
    Some(Act { raw })
}

/// A leaf's text read as only a time of day or a range (`18h30 – 19h15`, `19h`, `8:00
/// PM`): a time, with nothing but the time's own words around it.
fn only_time(text: &str) -> Option<(chrono::NaiveTime, Option<chrono::NaiveTime>)> {
    let t = text.trim();
    if !t.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    if letters > 6 {
        return None;
    }
    parse_text_time(t).or_else(|| cell_time(t))
}

/// The description a dash after an act opens (`<strong>Duo Ombelle</strong> – ANNULÉ Le
/// concert est annulé…`): the item's text after the act, its status badges dropped, when
/// it starts with a dash and reads as words.
fn description_after(li: ElementRef<'_>, title: ElementRef<'_>) -> Option<String> {
    let badges: Vec<_> = li
        .descendants()
        .filter_map(ElementRef::wrap)
        .filter(|e| is_status_badge(&text_of(*e)))
        .map(|e| e.id())
        .collect();
    let rest: String = li
        .descendants()
        .filter(|n| n.id() > title.id() && !n.ancestors().any(|a| a.id() == title.id()))
        .filter(|n| !n.ancestors().any(|a| badges.contains(&a.id())))
        .filter_map(|n| n.value().as_text().map(|t| t.to_string()))
        .collect();
    let rest = collapse(&rest);
    let body = rest.strip_prefix("– ").or_else(|| rest.strip_prefix("- "))?.trim();
    let body = body.trim_start_matches(['–', '-', ':']).trim();
    (body.chars().count() >= 10 && body.chars().any(char::is_alphabetic)).then(|| body.to_owned())
}

/// Whether the page's introduction (the paragraphs after the title, before the first
/// programme list) says all its acts are free (`Tous les concerts sont gratuits.`).
pub(super) fn intro_says_free(doc: &Html, h1: ElementRef<'_>, first_act: ElementRef<'_>) -> bool {
    doc.select(&sel("p"))
        .filter(|p| p.id() > h1.id() && p.id() < first_act.id() && !in_chrome(*p))
        .take(10)
        .flat_map(|p| leaves(p).collect::<Vec<_>>())
        .any(|t| t.split(". ").any(gleaner_event::says_free))
}
