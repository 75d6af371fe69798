//! The site's own place as its JSON-LD declares it: a `LocalBusiness`, `Place` or
//! `Organization` node (or a subtype: `MusicVenue`, `Restaurant`, `BarOrPub`,
//! `SportsActivityLocation`, `Library`…) with a postal address, on a page whose events
//! carry no structured data of their own.

use gleaner_event::RawEvent;
use scraper::{ElementRef, Html};
use serde_json::Value;

use super::sel;
use crate::lenient_json;

/// A place read from a JSON-LD node: its name and its address's parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct SitePlace {
    /// The node's `name`.
    pub name: String,
    /// `streetAddress`.
    pub street: Option<String>,
    /// `addressLocality`.
    pub locality: Option<String>,
    /// `addressRegion`.
    pub region: Option<String>,
    /// `postalCode`.
    pub postal_code: Option<String>,
    /// `addressCountry`, a code or a name.
    pub country: Option<String>,
    /// Whether the node is a body whose events are held elsewhere (see [`BODIES`]), or
    /// one named as a body (a railway, a circus): its name is no venue.
    pub body: bool,
    /// Whether a body's street is where its events are (a body named so, declared a
    /// place: `TouristAttraction` `Coombe Valley Railway`, `Station Road`).
    pub street_kept: bool,
}

impl SitePlace {
    /// Puts the place on an event that names none: a body's town only.
    pub(super) fn place(&self, raw: &mut RawEvent) {
        if self.body {
            if raw.locality.is_none() {
                raw.locality.clone_from(&self.locality);
                raw.region.clone_from(&self.region);
                raw.postal_code.clone_from(&self.postal_code);
            }
            if raw.country.is_none() {
                raw.country.clone_from(&self.country);
            }
            // One street, not premises and street (`Estación Marítima, Muelle …`).
            if self.street_kept && raw.street.is_none() {
                raw.street = self.street.clone().filter(|s| !s.contains(','));
            }
            return;
        }
        raw.location_name = Some(self.name.clone());
        raw.street.clone_from(&self.street);
        raw.locality.clone_from(&self.locality);
        raw.region.clone_from(&self.region);
        raw.postal_code.clone_from(&self.postal_code);
        raw.country.clone_from(&self.country);
    }
}

/// The first JSON-LD node of the page (top level, in a list or in an `@graph`) that is not
/// an event, a page or a work and has a name and a postal address with a street or a
/// town; `None` without one.
pub(super) fn site_place(doc: &Html) -> Option<SitePlace> {
    doc.select(&sel("script[type]"))
        .filter(|s| {
            s.value().attr("type").is_some_and(|t| t.to_ascii_lowercase().contains("ld+json"))
        })
        .take(20)
        .find_map(|script| {
            let text: String = ElementRef::text(&script).collect();
            lenient_json::parse(&text).values.iter().find_map(|v| in_value(v, 0))
        })
}

/// The name of the sports team or club the page's JSON-LD declares (a `SportsTeam` or
/// `SportsClub` node, top level, in a list or in an `@graph`): the home side of its
/// fixtures.
pub(super) fn team_name(root: ElementRef<'_>) -> Option<String> {
    fn in_json(v: &Value, depth: usize) -> Option<String> {
        match v {
            _ if depth > 3 => None,
            Value::Array(items) => items.iter().find_map(|i| in_json(i, depth + 1)),
            Value::Object(map) => {
                if let Some(graph) = map.get("@graph") {
                    return in_json(graph, depth + 1);
                }
                let team = match map.get("@type")? {
                    Value::String(t) => is_team(t),
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(is_team),
                    _ => false,
                };
                let name = map.get("name")?.as_str()?;
                let name = gleaner_event::text::decode_entities(name.trim()).trim().to_owned();
                (team && (2..=80).contains(&name.chars().count())).then_some(name)
            }
            _ => None,
        }
    }
    root.select(&sel("script[type]"))
        .filter(|s| {
            s.value().attr("type").is_some_and(|t| t.to_ascii_lowercase().contains("ld+json"))
        })
        .take(20)
        .find_map(|script| {
            let text: String = ElementRef::text(&script).collect();
            lenient_json::parse(&text).values.iter().find_map(|v| in_json(v, 0))
        })
}

/// The place in one JSON value, at most a few levels down (lists and `@graph`s).
fn in_value(v: &Value, depth: usize) -> Option<SitePlace> {
    if depth > 3 {
        return None;
    }
    match v {
        Value::Array(items) => items.iter().find_map(|i| in_value(i, depth + 1)),
        Value::Object(map) => {
            if let Some(graph) = map.get("@graph") {
                return in_value(graph, depth + 1);
            }
            node_place(map).or_else(|| home_ground(map))
        }
        _ => None,
    }
}

/// Types whose nodes are never the site's place, or end so (`MusicEvent`, `WebPage`).
const NOT_PLACES: &[&str] = &[
    "event",
    "webpage",
    "website",
    "article",
    "posting",
    "person",
    "product",
    "offer",
    "breadcrumblist",
    "imageobject",
    "course",
    "courseinstance",
    "itemlist",
];

/// Types of bodies whose events are held elsewhere, or end so: a town, a broadcaster, a
/// newspaper, a band or a troupe (`MusicGroup`, `TheaterGroup`), a team. Their address
/// gives the town, not the venue.
const BODIES: &[&str] = &[
    "governmentorganization",
    "radiostation",
    "televisionstation",
    "newsmediaorganization",
    "group",
    "sportsteam",
];

/// A team's home ground: the `location` of a `SportsTeam` or `SportsClub` node without
/// an address of its own, when that location is a place with a name and an address
/// (`"location":{"@type":"StadiumOrArena","name":"Estadio …","address":{…}}`): where its
/// home games are played.
fn home_ground(map: &serde_json::Map<String, Value>) -> Option<SitePlace> {
    let team = match map.get("@type")? {
        Value::String(t) => is_team(t),
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(is_team),
        _ => false,
    };
    if !team || map.contains_key("address") {
        return None;
    }
    let Value::Object(location) = map.get("location")? else { return None };
    let place = node_place(location)?;
    (!place.body).then_some(place)
}

/// Whether a JSON-LD type names a sports team or club.
fn is_team(t: &str) -> bool {
    let t = t.to_ascii_lowercase();
    t.ends_with("sportsteam") || t.ends_with("sportsclub")
}

/// A node read as a place when its type allows and it has a name and an address.
fn node_place(map: &serde_json::Map<String, Value>) -> Option<SitePlace> {
    let types: Vec<String> = match map.get("@type")? {
        Value::String(t) => vec![t.to_ascii_lowercase()],
        Value::Array(ts) => {
            ts.iter().filter_map(Value::as_str).map(str::to_ascii_lowercase).collect()
        }
        _ => return None,
    };
    if types.is_empty() || types.iter().any(|t| NOT_PLACES.iter().any(|n| t.ends_with(n))) {
        return None;
    }
    // JSON-LD strings written by HTML templates carry entities (`Weingut &amp; Heuriger`):
    // decoded once, as the event readers decode theirs.
    let text = |s: &str| gleaner_event::text::decode_entities(s.trim()).trim().to_owned();
    let name = text(map.get("name")?.as_str()?);
    let Value::Object(address) = map.get("address")? else { return None };
    let field = |k: &str| {
        let v = address.get(k)?;
        let s = match v {
            Value::String(s) => text(s),
            Value::Object(o) => text(o.get("name")?.as_str()?),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        (!s.is_empty()).then_some(s)
    };
    let body_type = types.iter().any(|t| BODIES.iter().any(|b| t.ends_with(b)));
    let place = SitePlace {
        name: name.clone(),
        street: field("streetAddress"),
        locality: field("addressLocality"),
        region: field("addressRegion"),
        postal_code: field("postalCode"),
        country: field("addressCountry"),
        body: body_type || super::venue::is_body(&name),
        street_kept: !body_type,
    };
    (!name.is_empty() && (place.street.is_some() || place.locality.is_some())).then_some(place)
}

#[cfg(test)]
mod tests {
    use super::site_place;
    use scraper::Html;

    fn place(html: &str) -> Option<(String, Option<String>, Option<String>)> {
        site_place(&Html::parse_document(html)).map(|p| (p.name, p.street, p.country))
    }

    #[test]
    fn a_site_declared_as_a_place() {
        // Issue 24, batch 190–209: a restaurant's and an arena's own JSON-LD.
        assert_eq!(
            place(
                r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Restaurant","name":"Peña Los Copihues","address":{"@type":"PostalAddress","streetAddress":"Av. Italia 1234","addressLocality":"Providencia","addressCountry":"CL"}}</script>"#
            ),
            Some(("Peña Los Copihues".into(), Some("Av. Italia 1234".into()), Some("CL".into())))
        );
        assert_eq!(
            place(
                r#"<script type="application/ld+json">{"@graph":[{"@type":"WebPage","name":"Cartelera"},{"@type":["SportsActivityLocation"],"name":"Arena Coliseo","address":{"streetAddress":"Calle Juárez 310","addressCountry":{"@type":"Country","name":"MX"}}}]}</script>"#
            ),
            Some(("Arena Coliseo".into(), Some("Calle Juárez 310".into()), Some("MX".into())))
        );
    }

    #[test]
    fn bodies_whose_events_are_elsewhere() {
        // Issue 24, pages 190–249: a town's, a radio station's, a band's own JSON-LD
        // gives its town, not its venue.
        for t in ["GovernmentOrganization", "RadioStation", "MusicGroup", "SportsTeam"] {
            let html = format!(
                r#"<script type="application/ld+json">{{"@type":"{t}","name":"KVLR 89.3 FM","address":{{"streetAddress":"220 Mill Street","addressLocality":"Riverton"}}}}</script>"#
            );
            let body = site_place(&Html::parse_document(&html)).map(|p| p.body);
            assert_eq!(body, Some(true), "{t}");
        }
    }

    #[test]
    fn a_teams_home_ground() {
        // Issue 24, page 278: a team's stadium is where its home games are.
        assert_eq!(
            place(
                r#"<script type="application/ld+json">{"@type":"SportsTeam","name":"Tuzos","location":{"@type":"StadiumOrArena","name":"Estadio Ramiro Cárdenas","address":{"streetAddress":"Blvd. Revolución 1500","addressCountry":"MX"}}}</script>"#
            ),
            Some((
                "Estadio Ramiro Cárdenas".into(),
                Some("Blvd. Revolución 1500".into()),
                Some("MX".into())
            ))
        );
        // A location without an address, or a team's own address: as before.
        assert_eq!(
            place(
                r#"<script type="application/ld+json">{"@type":"SportsTeam","name":"Tuzos","location":{"@type":"Place","name":"Estadio"}}</script>"#
            ),
            None
        );
    }

    #[test]
    fn a_business_named_as_a_body() {
        // Issue 24, page 194: a touring circus declared a `LocalBusiness`.
        let html = r#"<script type="application/ld+json">{"@type":"LocalBusiness","name":"Cirque Zanzibar","address":{"addressLocality":"Pontivy","postalCode":"56300"}}</script>"#;
        let place = site_place(&Html::parse_document(html));
        assert_eq!(place.map(|p| (p.body, p.street_kept)), Some((true, true)));
    }

    #[test]
    fn entities_in_the_sites_json_ld_are_decoded_once() {
        // Issue 24, page 202: a WordPress SEO plugin writes its HTML-escaped title.
        assert_eq!(
            place(
                r#"<script type="application/ld+json">{"@type":["Winery","Organization"],"name":"Weingut &amp; Heuriger Hofbauer","address":{"streetAddress":"Hauptstra&szlig;e 41","addressCountry":"AT"}}</script>"#
            ),
            Some((
                "Weingut & Heuriger Hofbauer".into(),
                Some("Hauptstraße 41".into()),
                Some("AT".into())
            ))
        );
    }

    #[test]
    fn no_site_place() {
        // An organisation without an address, an event's own node, a bare address text.
        for html in [
            r#"<script type="application/ld+json">{"@type":"Organization","name":"El Desván","url":"https://x.example"}</script>"#,
            r#"<script type="application/ld+json">{"@type":"MusicEvent","name":"Gig","address":{"streetAddress":"Main St 1"}}</script>"#,
            r#"<script type="application/ld+json">{"@type":"Place","name":"Hall","address":"Main St 1, Town"}</script>"#,
        ] {
            assert_eq!(place(html), None, "{html}");
        }
    }
}
