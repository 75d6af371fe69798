//! Tables and grids: a timetable grid's room cells, a tour's dates (city and venue
//! columns), a row's title cell, and cells that hold only a time.

use gleaner_event::datetext::parse_text_time;
use gleaner_event::parse_price_text;
use scraper::ElementRef;

use super::cells::{before_status_line, lead_bold, lead_line};
use super::item::{Item, title_text};
use super::price::price_lines;
use super::venue::site_venue;
use super::words::{is_status_badge, status_in};
use super::{in_chrome, is_icon, sel, text_of};

/// A timetable grid's row (`Saat | Salon 1 | Salon 2`: a time, then one cell per room):
/// one event per room cell that names one (in bold, a heading or a link), at the row's
/// time, with that cell's status. Any other item is itself.
pub(super) fn grid_items(row: ElementRef<'_>, item: Item) -> Vec<Item> {
    let Some(cells) = grid_cells(row) else { return vec![item] };
    cells
        .into_iter()
        .map(|(title, cell)| {
            let mut raw = item.raw.clone();
            raw.name = Some(title);
            raw.status = status_in(&text_of(cell)).map(str::to_owned);
            raw.url = cell
                .select(&sel("a[href]"))
                .filter_map(|a| a.value().attr("href"))
                .map(|h| h.trim().to_owned())
                .find(|h| !h.is_empty() && !h.starts_with('#'));
            Item { raw, start: item.start, end: item.end, others: item.others.clone() }
        })
        .collect()
}

/// How many of a table's first rows may be its header row.
const HEADER_ROWS: usize = 4;

/// A table row's cells and its table's header row (the first row with a `<th>`, not this
/// one), each heading's text folded: the columns the row's cells are read by. `None` for a
/// row that is not a `<tr>` or a table without such a header.
fn cells_under_header(row: ElementRef<'_>) -> Option<(Vec<ElementRef<'_>>, Vec<String>)> {
    if row.value().name() != "tr" {
        return None;
    }
    let cells = full_row_cells(row);
    let table =
        row.ancestors().filter_map(ElementRef::wrap).find(|a| a.value().name() == "table")?;
    // A header row heads its table: only the first rows are looked at, so that reading
    // every row of a long table without one costs each row a constant, not the table.
    let (rows, cells_th) = (sel("tr"), sel("th"));
    let header = table
        .select(&rows)
        .take(HEADER_ROWS)
        .find(|r| r.select(&cells_th).next().is_some())
        .filter(|r| r.id() != row.id())?;
    let header = row_cells(header)
        .into_iter()
        .map(|c| gleaner_event::datetext::fold_diacritics(&text_of(c)))
        .collect();
    Some((cells, header))
}

/// Most rows above a row looked at for a cell that spans down into it.
const SPAN_ROWS: usize = 12;

/// The cells of rows above `row` that span down into it (`<td rowspan="2">23 Mayıs
/// 2026</td>`, a date, place or ticket cell shared by a show's two sessions), with their
/// columns: read from the nearest row above that holds one.
pub(super) fn spanned_cells(row: ElementRef<'_>) -> Vec<(usize, ElementRef<'_>)> {
    if row.value().name() != "tr" {
        return Vec::new();
    }
    let span = |c: &ElementRef<'_>, name: &str| {
        c.value().attr(name).and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(1).max(1)
    };
    let rows = row
        .prev_siblings()
        .filter_map(ElementRef::wrap)
        .filter(|r| r.value().name() == "tr")
        .take(SPAN_ROWS);
    for (k, above) in rows.enumerate() {
        let mut col = 0;
        let mut down = Vec::new();
        for c in row_cells(above) {
            if span(&c, "rowspan") > k + 1 {
                down.push((col, c));
            }
            col += span(&c, "colspan");
        }
        if !down.is_empty() {
            return down;
        }
        // A row without spanning cells above the row's own cells: nothing reaches past it.
        if row_cells(above).iter().all(|c| span(c, "rowspan") == 1) && k == 0 {
            return Vec::new();
        }
    }
    Vec::new()
}

/// A row's cells in its table's columns: its own, and in their columns the cells of rows
/// above that span down into it ([`spanned_cells`]).
fn full_row_cells(row: ElementRef<'_>) -> Vec<ElementRef<'_>> {
    let own = row_cells(row);
    let spanned = spanned_cells(row);
    if spanned.is_empty() {
        return own;
    }
    let width = own.len() + spanned.len();
    let mut own = own.into_iter();
    (0..width)
        .filter_map(|col| {
            spanned.iter().find(|(i, _)| *i == col).map(|(_, c)| *c).or_else(|| own.next())
        })
        .collect()
}

/// A row's `<td>` and `<th>` cells.
fn row_cells(row: ElementRef<'_>) -> Vec<ElementRef<'_>> {
    row.children()
        .filter_map(ElementRef::wrap)
        .filter(|c| matches!(c.value().name(), "td" | "th"))
        .collect()
}

/// The room cells of a timetable grid's row that name an event: the table's header row
/// has a first column and two or more others none of which is a title column, the row's
/// first cell is only a time, and each named cell's title is its first bold text,
/// heading or link. `None` when the row is no such row.
fn grid_cells(row: ElementRef<'_>) -> Option<Vec<(String, ElementRef<'_>)>> {
    let (cells, header) = cells_under_header(row)?;
    if cells.len() < 3
        || header.len() != cells.len()
        || header.iter().any(|h| TITLE_COLUMNS.contains(&h.as_str()) || h.is_empty())
        || cell_time(&text_of(cells[0])).is_none() && parse_text_time(&text_of(cells[0])).is_none()
    {
        return None;
    }
    let named: Vec<(String, ElementRef<'_>)> = cells[1..]
        .iter()
        .filter_map(|c| {
            let t = c
                .select(&sel("b, strong, h2, h3, h4, a[href]"))
                .map(title_text)
                .find(|t| t.chars().count() >= 2 && !is_status_badge(t))?;
            Some((t, *c))
        })
        .collect();
    (!named.is_empty()).then_some(named)
}

/// Column headings that name the event's cell in a table (`Fixture`, `Karşılaşma`,
/// `Spectacle`, `Veranstaltung`), folded.
const TITLE_COLUMNS: &[&str] = &[
    "event",
    "events",
    "fixture",
    "match",
    "title",
    "what",
    "show",
    "programme",
    "program",
    "performance",
    "karsilasma",
    "mac",
    "etkinlik",
    "oyun",
    "titre",
    "spectacle",
    "evenement",
    "seance",
    "film",
    "evento",
    "espectaculo",
    "titulo",
    "partido",
    "actividad",
    "veranstaltung",
    "titel",
    "was",
    "spiel",
    "begegnung",
    "konzert",
    "anlass",
    "concert",
    "concierto",
    "manifestation",
    "activite",
    "activity",
    "konser",
    "wanderung",
    "hike",
    "walk",
    "randonnee",
    "ruta",
    "excursion",
    // A race's, a lecture's, a talk's or a course's name (`Prueba`, `Vorlesung`, `Thema`,
    // `Conférence`): a list of events, not a tour.
    "race",
    "prueba",
    "carrera",
    "lauf",
    "kosu",
    "lecture",
    "talk",
    "topic",
    "vorlesung",
    "vortrag",
    "thema",
    "conference",
    "conferencia",
    "tema",
    "sujet",
    "konu",
    "course",
    "cours",
    "curso",
    "kurs",
    "seminar",
    "workshop",
    "taller",
    "charla",
    "konferans",
    "soylesi",
    "seminario",
    "atelier",
];

/// A table row's title: the cell under a column headed like a title (`Fixture`), else
/// the longest cell of two words or more that is neither a date, a time, a price nor a
/// generic link. With that cell.
pub(super) fn row_title<'a>(
    item: ElementRef<'a>,
    usable: &dyn Fn(&str) -> bool,
) -> Option<(String, ElementRef<'a>)> {
    read_row_title(item, usable, false)
}

/// A table row's title when its table names a title column (`Evento`, `Turnuva`): that
/// column's cell, which titles the row before any link of its other cells (a booking
/// link's `Inscribirme`). `None` for a row without such a column or a usable cell in it.
pub(super) fn column_title<'a>(
    item: ElementRef<'a>,
    usable: &dyn Fn(&str) -> bool,
) -> Option<(String, ElementRef<'a>)> {
    read_row_title(item, usable, true)
}

/// [`row_title`], or with `only_column` [`column_title`].
fn read_row_title<'a>(
    item: ElementRef<'a>,
    usable: &dyn Fn(&str) -> bool,
    only_column: bool,
) -> Option<(String, ElementRef<'a>)> {
    if item.value().name() != "tr" {
        return None;
    }
    let cells: Vec<ElementRef<'a>> = full_row_cells(item);
    // A cell that opens with its title in bold is titled by the bold alone (the rest is
    // its blurb and place).
    let usable_cell = |c: &ElementRef<'a>| {
        let t = lead_bold(*c)
            .or_else(|| lead_line(*c))
            .map(|l| l.title)
            .or_else(|| before_status_line(*c))
            .unwrap_or_else(|| title_text(*c));
        // A short price cell (`18 €`, `Eintritt frei`), not a blurb that mentions one
        // (`Jodlergottesdienst mit Pfarrerin Ruth Gerber. Eintritt frei, Kollekte.`).
        let price = t.chars().count() <= PRICE_CELL_CHARS
            && parse_price_text(&t).is_some()
            && (t.contains(['$', '€', '£', '₺']) || gleaner_event::says_free(&t));
        (usable(&t) && !price && parse_text_time(&t).is_none()).then_some((t, *c))
    };
    let header = cells_under_header(item).map(|(_, header)| header).unwrap_or_default();
    // The cell under a title column, also when its name holds a date (`23 Nisan Ulusal
    // Egemenlik ve Çocuk Bayramı Açık Hava Konseri`): four words or more are a name.
    let named = |c: &ElementRef<'a>| {
        let t = title_text(*c);
        let words = t.split_whitespace().count();
        (words >= NAMED_TITLE_WORDS && t.chars().count() <= 300 && parse_text_time(&t).is_none())
            .then_some((t, *c))
    };
    if header.len() == cells.len()
        && let Some(i) = header.iter().position(|h| TITLE_COLUMNS.contains(&h.as_str()))
        && let Some(found) = usable_cell(&cells[i]).or_else(|| named(&cells[i]))
    {
        return Some(found);
    }
    if only_column {
        return None;
    }
    // Else the longest cell of two words or more, not one under a place column (`Lieu`,
    // `Ort`, `Venue`): a place is where the event is, not what it is.
    let placed = |i: usize| {
        header.len() == cells.len()
            && [PLACE_COLUMNS, VENUE_COLUMNS, WHERE_COLUMNS, CITY_COLUMNS]
                .iter()
                .any(|l| l.contains(&header[i].as_str()))
    };
    cells
        .iter()
        .enumerate()
        .filter(|(i, _)| !placed(*i))
        .filter_map(|(_, c)| usable_cell(c))
        .filter(|(_, c)| title_text(*c).split_whitespace().count() >= 2)
        .max_by_key(|(_, c)| title_text(*c).chars().count())
}

/// Column headings of a fixture's opponent, folded.
const OPPONENT_COLUMNS: &[&str] = &[
    "opponent",
    "opponents",
    "opposition",
    "versus",
    "vs",
    "rival",
    "contrincante",
    "adversaire",
    "adversaires",
    "gegner",
    "rakip",
];

/// Column headings of a fixture's promotion (the game's giveaway or theme night), folded.
const PROMOTION_COLUMNS: &[&str] =
    &["promotion", "promotions", "promo", "promocion", "promociones", "aktion", "kampanya"];

/// A fixture's row read: its title and its promotion.
pub(super) struct Fixture {
    /// The home side against the opponent (`Tuzos de Santa Rosalía vs. Águilas de Puerto
    /// Arena`).
    pub(super) title: String,
    /// The promotion column's text, the event's description.
    pub(super) promotion: Option<String>,
}

/// A fixtures table's row (`Fecha | Rival | Hora | Promoción`): a row under a header with
/// an opponent column and no title column, on a page whose JSON-LD declares the team.
/// The title is the team against the row's opponent, joined as the page's language does
/// (`v` in British English, `vs.` elsewhere).
pub(super) fn fixture_row(item: ElementRef<'_>) -> Option<Fixture> {
    let (cells, header) = cells_under_header(item)?;
    if header.len() != cells.len() || header.iter().any(|h| TITLE_COLUMNS.contains(&h.as_str())) {
        return None;
    }
    let column = |names: &[&str]| header.iter().position(|h| names.contains(&h.as_str()));
    let opponent = title_text(cells[column(OPPONENT_COLUMNS)?]);
    if !(2..=80).contains(&opponent.chars().count()) || !opponent.chars().any(char::is_alphabetic) {
        return None;
    }
    let root = item.ancestors().filter_map(ElementRef::wrap).last()?;
    let team = super::site_place::team_name(root)?;
    let lang = root.value().attr("lang").unwrap_or_default().to_ascii_lowercase();
    let british = ["en-gb", "en-ie", "en-au", "en-nz", "en-za"].contains(&lang.as_str());
    let join = if british { "v" } else { "vs." };
    let promotion = column(PROMOTION_COLUMNS)
        .map(|i| gleaner_event::text::collapse(&cells[i].text().collect::<String>()))
        .filter(|t| t.split_whitespace().count() >= 2);
    Some(Fixture { title: format!("{team} {join} {opponent}"), promotion })
}

/// Column headings of a match's home side (folded).
const HOME_COLUMNS: &[&str] =
    &["heim", "home", "home team", "heimmannschaft", "local", "locales", "domicile", "ev sahibi"];

/// Column headings of a match's away side (folded).
const AWAY_COLUMNS: &[&str] = &[
    "gast",
    "gaste",
    "away",
    "away team",
    "gastmannschaft",
    "visitante",
    "visitantes",
    "visiteur",
    "visiteurs",
    "exterieur",
    "deplasman",
    "misafir",
];

/// A league's fixture row (`Heim | – | Gast`, `Home | Away`): the home side against the
/// away side, joined by the cell between them when it is a dash or `vs` (`FC Rotach –
/// TV Grunbach`), else by a dash.
pub(super) fn match_title(item: ElementRef<'_>) -> Option<String> {
    let (cells, header) = cells_under_header(item)?;
    if header.len() != cells.len() {
        return None;
    }
    let home = header.iter().position(|h| HOME_COLUMNS.contains(&h.as_str()))?;
    let away = header.iter().position(|h| AWAY_COLUMNS.contains(&h.as_str()))?;
    if away <= home || away - home > 2 {
        return None;
    }
    let side = |i: usize| {
        Some(title_text(cells[i]))
            .filter(|t| (2..=80).contains(&t.chars().count()) && t.chars().any(char::is_alphabetic))
    };
    let (a, b) = (side(home)?, side(away)?);
    let between = (away - home == 2).then(|| text_of(cells[home + 1]));
    let join = match between.as_deref().map(str::trim) {
        Some(j @ ("–" | "—" | "-" | ":" | "vs" | "vs." | "v" | "gegen")) => j.to_owned(),
        _ => "–".to_owned(),
    };
    Some(format!("{a} {join} {b}"))
}

/// The fewest words of a title column's cell read as a name though it holds a date.
const NAMED_TITLE_WORDS: usize = 4;

/// Longest cell read as a price cell rather than a title.
const PRICE_CELL_CHARS: usize = 40;

/// Column headings that name where a row's event starts or takes place: a venue column,
/// or a club plan's meeting point (`Ausgangspunkt`, `Treffpunkt`), folded.
const PLACE_COLUMNS: &[&str] = &[
    "ausgangspunkt",
    "treffpunkt",
    "startpunkt",
    "meeting point",
    "start point",
    "punto de encuentro",
    "punto de salida",
    "rendez-vous",
    "bulusma noktasi",
    "bulusma yeri",
    // A race's start (`Salida`, `Départ`, `Start`): its cell holds the start's time and place.
    "salida",
    "depart",
    "start",
];

/// Column headings that name the town an event is in (`Localidad`, `Commune`,
/// `Gemeinde`, `İlçe`), folded: not a tour's city (see [`CITY_COLUMNS`]).
const TOWN_COLUMNS: &[&str] = &[
    "localidad",
    "municipio",
    "poblacion",
    "localite",
    "commune",
    "ortschaft",
    "gemeinde",
    "ilce",
];

/// A row's town under a town column: a short capitalised name without digits.
pub(super) fn row_town(item: ElementRef<'_>) -> Option<String> {
    let (cells, header) = cells_under_header(item)?;
    if header.len() != cells.len() {
        return None;
    }
    let i = header.iter().position(|h| TOWN_COLUMNS.contains(&h.as_str()))?;
    let text = text_of(cells[i]);
    ((1..=5).contains(&text.split_whitespace().count())
        && text.starts_with(char::is_uppercase)
        && !text.chars().any(|c| c.is_ascii_digit()))
    .then_some(text)
}

/// A table row's place: the cell under a venue or meeting-point column of its table's
/// header row, when it is short and names something.
pub(super) fn row_place(item: ElementRef<'_>) -> Option<String> {
    let (cells, header) = cells_under_header(item)?;
    if header.len() != cells.len() {
        return None;
    }
    let i = header.iter().position(|h| {
        [PLACE_COLUMNS, VENUE_COLUMNS, WHERE_COLUMNS].iter().any(|l| l.contains(&h.as_str()))
    })?;
    // A start's cell holds its times and its place (`9.30 h · Plaza Mayor`): the one part
    // without a time; a cell of times alone holds no place.
    let text = text_of(cells[i]);
    if text.contains(['·', '|']) || parse_text_time(&text).is_some() {
        let placed: Vec<&str> = text
            .split(['·', '|'])
            .map(str::trim)
            .filter(|p| !p.is_empty() && parse_text_time(p).is_none())
            .collect();
        return match placed[..] {
            [one] if one.starts_with(char::is_uppercase) && one.chars().count() <= 100 => {
                Some(one.to_owned())
            }
            _ => None,
        };
    }
    // A cell's `<br>` lines are its address's parts (`Schloss Erlenau<br>Schlossplatz 1`).
    // A line all in brackets (`(Mevlana Bulvarı No: 210, Çankaya)`) is one of those parts.
    let lines: Vec<String> = super::venue::br_line_list(cells[i])
        .into_iter()
        .map(|l| match l.strip_prefix('(').and_then(|l| l.strip_suffix(')')) {
            Some(inner) if !inner.contains(['(', ')']) => inner.trim().to_owned(),
            _ => l,
        })
        .collect();
    let text = if lines.len() >= 2 { lines.join(", ") } else { text_of(cells[i]) };
    // A cell written all in lower case is a remark (`wird noch bekannt gegeben`), not a
    // place's name.
    // A room of the house (`Großes Haus`, `Studio`) is the site's own venue's.
    ((2..=100).contains(&text.chars().count())
        && text.chars().any(char::is_uppercase)
        && !super::room::is_room(&text)
        && !super::room::is_common_space(&text))
    .then_some(text)
}

/// Column headings that say where a row's event is, folded: `Ort`, `Yer`, `Lugar`,
/// `Where`, `Place` (a tour table's `Ort` is its city, read by [`tour_row`] first).
const WHERE_COLUMNS: &[&str] = &[
    "ort",
    "raum",
    "veranstaltungsort",
    "spielort",
    "wo",
    "where",
    "place",
    "lugar",
    "yer",
    "etkinlik yeri",
    "endroit",
];

/// Column headings that name a tour date's city (folded).
const CITY_COLUMNS: &[&str] = &["city", "town", "stadt", "ort", "ville", "ciudad", "sehir"];

/// Column headings that name a tour date's venue (folded).
const VENUE_COLUMNS: &[&str] =
    &["venue", "spielstatte", "location", "lieu", "salle", "sala", "recinto", "mekan"];

/// Column headings of a tour date's booking cell (folded).
const TICKET_COLUMNS: &[&str] =
    &["tickets", "karten", "billets", "billetterie", "entradas", "bilet", "biletler"];

/// One row of a tour's dates: the page's show at a city's venue.
pub(super) struct TourRow {
    pub(super) title: String,
    pub(super) venue: Option<String>,
    pub(super) city: Option<String>,
    pub(super) tickets: Option<String>,
    pub(super) price: Option<gleaner_event::PriceText>,
    pub(super) image: Option<String>,
    pub(super) country: Option<String>,
}

/// A table row under a header with a city column and no title column, on a page with
/// one `<h1>`: the show is the heading, the place the row's venue and city cells, the
/// booking link the link of its tickets cell, the image the page's first one.
pub(super) fn tour_row(item: ElementRef<'_>) -> Option<TourRow> {
    let (cells, header) = cells_under_header(item)?;
    if header.len() != cells.len() || header.iter().any(|h| TITLE_COLUMNS.contains(&h.as_str())) {
        return None;
    }
    let column = |names: &[&str]| header.iter().position(|h| names.contains(&h.as_str()));
    let city = column(CITY_COLUMNS)?;
    let root = item.ancestors().filter_map(ElementRef::wrap).last()?;
    let h1 = sel("h1");
    let mut h1s = root.select(&h1);
    let (Some(heading), None) = (h1s.next(), h1s.next()) else { return None };
    let title = text_of(heading);
    if title.is_empty() || title.chars().count() > 200 {
        return None;
    }
    let text = |i: usize| Some(text_of(cells[i])).filter(|t| !t.is_empty());
    let booking = column(TICKET_COLUMNS);
    // Without a tickets column, a cell's booking link (`Réserver`) under an empty heading.
    let tickets = booking
        .and_then(|i| cells[i].select(&sel("a[href]")).next())
        .or_else(|| row_booking_link(&cells))
        .and_then(|a| a.value().attr("href"))
        .map(|h| h.trim().to_owned())
        .filter(|h| h.starts_with("http") || h.starts_with('/'));
    let price = booking.and_then(|i| {
        price_lines(cells[i]).find_map(|t| {
            let p = parse_price_text(&t)?;
            t.contains(['$', '€', '£', '₺']).then_some(p)
        })
    });
    let image = root
        .select(&sel("img[src]"))
        .filter(|i| !in_chrome(*i) && !is_icon(*i))
        .filter_map(|i| i.value().attr("src"))
        .map(str::trim)
        .find(|s| !s.is_empty() && !s.starts_with("data:") && !s.ends_with(".svg"))
        .map(str::to_owned);
    // The country of the site's own address: a tour's cities are named without one.
    let country = site_venue(root).and_then(|(_, address)| {
        let last = address.rsplit(',').next()?.trim().to_owned();
        (!last.chars().any(|c| c.is_ascii_digit())).then_some(last)
    });
    Some(TourRow {
        country,
        title,
        venue: column(VENUE_COLUMNS).and_then(text),
        city: text(city).map(|c| without_code(&c).to_owned()),
        tickets,
        price,
        image,
    })
}

/// A row's booking link: the first link of its cells whose text books (`Réserver`).
fn row_booking_link<'a>(cells: &[ElementRef<'a>]) -> Option<ElementRef<'a>> {
    let links = sel("a[href]");
    cells
        .iter()
        .find_map(|c| c.select(&links).find(|a| super::booking::is_booking_text(&text_of(*a))))
}

/// A town without the department, province or canton code in brackets after it
/// (`Saint-Brieuc (22)`, `Sion (VS)` → `Saint-Brieuc`, `Sion`).
fn without_code(town: &str) -> &str {
    match town.trim().strip_suffix(')').and_then(|t| t.rsplit_once(" (")) {
        Some((name, code))
            if (1..=3).contains(&code.chars().count())
                && code.chars().all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
                && !name.trim().is_empty() =>
        {
            name.trim()
        }
        _ => town.trim(),
    }
}

/// The latest hour a range of times may end at on the next day (`10pm – 1am`).
const LAST_NIGHT_HOUR: u32 = 6;

/// The end of a range of times of day on `day`: that day when it comes after the start,
/// the next day when it is in the small hours before the start (`10pm – 1am`, `22.00–02.00`);
/// `None` otherwise (an end before the start in the day is a misreading).
pub(super) fn end_on(
    day: chrono::NaiveDate,
    start: chrono::NaiveTime,
    end: chrono::NaiveTime,
) -> Option<gleaner_event::EventTime> {
    use chrono::Timelike;
    let day = if end > start {
        day
    } else if end < start && end.hour() <= LAST_NIGHT_HOUR && start.hour() >= 12 {
        day.succ_opt()?
    } else {
        return None;
    };
    Some(gleaner_event::EventTime::Floating(day.and_time(end)))
}

/// A cell that holds only a time of day written with a dot or an `h` (`21.30`, `20h30`):
/// beside a date cell it can be nothing else, although alone it could be a date.
/// And a range of two such times (`14.00–17.00`), when a side's minutes can be no month
/// (`00`, or above `12`: `12.03–15.03` may be two days).
pub(super) fn cell_time(text: &str) -> Option<(chrono::NaiveTime, Option<chrono::NaiveTime>)> {
    if let Some((a, b)) = text.split_once(['–', '—', '-'])
        && let (Some((t1, None)), Some((t2, None))) = (cell_time(a), cell_time(b))
    {
        let no_month = |p: &str| {
            p.trim()
                .rsplit_once(['.', 'h', 'H'])
                .and_then(|(_, m)| m.parse::<u32>().ok())
                .is_some_and(|m| m == 0 || m > 12)
        };
        return (t2 > t1 && (no_month(a) || no_month(b))).then_some((t1, Some(t2)));
    }
    let (h, m) = text.trim().split_once(['.', 'h', 'H'])?;
    let ok =
        |p: &str, n: usize| (1..=n).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
    if !ok(h, 2) || m.len() != 2 || !ok(m, 2) {
        return None;
    }
    Some((chrono::NaiveTime::from_hms_opt(h.parse().ok()?, m.parse().ok()?, 0)?, None))
}

#[cfg(test)]
mod tests {
    use super::{cell_time, row_place, without_code};

    #[test]
    fn a_fixture_row_is_home_against_away() {
        // Issue 24, page 322: `Datum | Anstoß | Heim | | Gast` tables of a league.
        let got = events(
            "<html lang=\"de\"><body><h1>Kreisliga</h1><table>\
             <tr><th>Datum</th><th>Anstoß</th><th>Heim</th><th></th><th>Gast</th></tr>\
             <tr><td>So., 09.03.2031</td><td>15:00</td><td>SV Au</td><td>–</td><td>FC Berg</td></tr>\
             <tr><td>So., 16.03.2031</td><td>15:00</td><td>TSV Tal</td><td>–</td><td>SV Au</td></tr>\
             <tr><td>So., 23.03.2031</td><td>15:00</td><td>FC Berg</td><td>–</td><td>TSV Tal</td></tr>\
             </table></body></html>",
        );
        let titles: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(titles, ["SV Au – FC Berg", "TSV Tal – SV Au", "FC Berg – TSV Tal"]);
        // A matchday's fixtures all on one day, beside another matchday's, are matches of
        // their own.
        let got = events(
            "<html lang=\"de\"><body><h1>Kreisliga</h1><h2>1. Spieltag</h2><table>\
             <tr><th>Datum</th><th>Anstoß</th><th>Heim</th><th></th><th>Gast</th></tr>\
             <tr><td>So., 09.03.2031</td><td>13:00</td><td>SV Au</td><td>–</td><td>FC Berg</td></tr>\
             <tr><td>So., 09.03.2031</td><td>15:00</td><td>TSV Tal</td><td>–</td><td>SC Dorf</td></tr>\
             <tr><td>So., 09.03.2031</td><td>15:00</td><td>FC See</td><td>–</td><td>TV Hof</td></tr>\
             </table><h2>2. Spieltag</h2><table>\
             <tr><th>Datum</th><th>Anstoß</th><th>Heim</th><th></th><th>Gast</th></tr>\
             <tr><td>Sa., 15.03.2031</td><td>15:00</td><td>FC Berg</td><td>–</td><td>TSV Tal</td></tr>\
             <tr><td>So., 16.03.2031</td><td>13:00</td><td>SC Dorf</td><td>–</td><td>FC See</td></tr>\
             <tr><td>So., 16.03.2031</td><td>15:00</td><td>TV Hof</td><td>–</td><td>SV Au</td></tr>\
             </table></body></html>",
        );
        assert_eq!(got.len(), 6, "{got:?}");
    }

    /// The titles and starts a page's fallback reading gives.
    fn events(html: &str) -> Vec<(String, String)> {
        super::super::titles_and_starts(html)
    }

    #[test]
    fn a_lecture_or_race_column_titles_its_rows() {
        // Issue 24, pages 318 and 342: `Vorlesung` and `Prueba` columns name the rows'
        // events, beside an `Ort` column (no tour's city) and a registration link.
        let got = events(
            "<html lang=\"de\"><body><h1>Stadtgespräche 2031</h1><table>\
             <tr><th>Datum</th><th>Vortrag</th><th>Ort</th></tr>\
             <tr><td>Di., 04.02.2031</td><td>Die Brücken der Stadt</td><td>Rathaus</td></tr>\
             <tr><td>Di., 11.02.2031</td><td>Vögel im Winter</td><td>Bibliothek</td></tr>\
             <tr><td>Di., 18.02.2031</td><td>Alte Mühlen</td><td>Rathaus</td></tr>\
             </table></body></html>",
        );
        let titles: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(titles, ["Die Brücken der Stadt", "Vögel im Winter", "Alte Mühlen"]);
        let got = events(
            "<html lang=\"es\"><body><h1>Circuito 2031</h1><table>\
             <tr><th>Fecha</th><th>Localidad</th><th>Distancia</th><th>Inscripción</th></tr>\
             <tr><td>Dom. 16/02/2031</td><td>Robledo</td><td>10 km</td><td><a href=\"https://x.example/a\">Inscripción</a></td></tr>\
             <tr><td>Dom. 23/02/2031</td><td>Villaseca</td><td>5 km</td><td><a href=\"https://x.example/b\">Inscripción</a></td></tr>\
             <tr><td>Dom. 02/03/2031</td><td>Molinar</td><td>21 km</td><td><a href=\"https://x.example/c\">Inscripción</a></td></tr>\
             </table></body></html>",
        );
        assert!(got.iter().all(|(t, _)| t != "Inscripción"), "{got:?}");
    }

    #[test]
    fn a_town_without_its_code() {
        // Issue 24, page 194: a tour's town with its department.
        assert_eq!(without_code("Saint-Brieuc (22)"), "Saint-Brieuc");
        assert_eq!(without_code("Sion (VS)"), "Sion");
        assert_eq!(without_code("Lorient"), "Lorient");
        assert_eq!(without_code("Buenos Aires (Palermo)"), "Buenos Aires (Palermo)");
    }
    use scraper::{Html, Selector};

    /// The place of each body row of a table.
    fn places(table: &str) -> Vec<Option<String>> {
        let doc = Html::parse_document(table);
        let rows: Vec<_> = doc.select(&Selector::parse("tbody tr").unwrap()).collect();
        rows.into_iter()
            .filter(|r| r.select(&Selector::parse("td").unwrap()).next().is_some())
            .map(row_place)
            .collect()
    }

    #[test]
    fn a_where_column_gives_the_row_place() {
        // Issue 24, pages 150–249: a table's `Ort`, `Lugar`, `Yer` column.
        let table = |h: &str, c: &str| {
            format!(
                "<table><tr><th>Datum</th><th>Anlass</th><th>{h}</th></tr>\
                 <tr><td>So 19. April</td><td>Pfadi-Zmorge</td><td>{c}</td></tr></table>"
            )
        };
        let some = |s: &str| vec![Some(s.to_owned())];
        assert_eq!(
            places(&table("Ort", "Kirchgemeindehaus, Kirchstrasse 9")),
            some("Kirchgemeindehaus, Kirchstrasse 9")
        );
        assert_eq!(places(&table("Lugar", "Casa de Cultura")), some("Casa de Cultura"));
        assert_eq!(places(&table("Yer", "Kültür Merkezi")), some("Kültür Merkezi"));
        // A remark in lower case is no place; nor a column of another kind.
        assert_eq!(places(&table("Ort", "wird noch bekannt gegeben")), vec![None]);
        assert_eq!(places(&table("Bemerkungen", "Kirchgemeindehaus")), vec![None]);
        assert_eq!(places(&table("Spielort", "Großes Haus")), vec![None]);
        assert_eq!(places(&table("Raum", "Sitzungssaal 1.12")), vec![None]);
        // A lecture hall is a room of the house; a cell's lines are its address's parts.
        assert_eq!(places(&table("Ort", "Audimax")), vec![None]);
        assert_eq!(places(&table("Ort", "Hörsaal")), vec![None]);
        assert_eq!(places(&table("Yer", "Konferans Salonu")), vec![None]);
        // A start's time and place; a time alone is no place.
        assert_eq!(places(&table("Salida", "9.30 h · Plaza Mayor")), some("Plaza Mayor"));
        assert_eq!(places(&table("Ort", "19.30 Uhr · Festsaal Post")), some("Festsaal Post"));
        assert_eq!(places(&table("Salida", "9.30 h")), vec![None]);
        assert_eq!(
            places(&table("Ort", "Rathaus Talwil<br>Marktplatz 1")),
            some("Rathaus Talwil, Marktplatz 1")
        );
        assert_eq!(
            places(&table("Ort", "Rathaus Talwil<br><small>(Marktplatz 1, Talwil)</small>")),
            some("Rathaus Talwil, Marktplatz 1, Talwil")
        );
        assert_eq!(
            places(&table("Raum", "Stadthalle, Bahnhofstraße 30")),
            some("Stadthalle, Bahnhofstraße 30")
        );
    }

    #[test]
    fn a_tour_row_books_through_its_booking_link() {
        // Issue 24, page 194: the booking cell has no heading; a `Réserver` link in a row
        // books that date, a `Plan` link or a town's page does not.
        let tickets = |cell: &str| {
            let page = format!(
                "<h1>Tournée</h1><table><tr><th>Ville</th><th>Dates</th><th></th></tr>\
                 <tr><td><a href=\"/vannes\">Vannes</a></td><td>6 mars</td><td>{cell}</td></tr></table>"
            );
            let doc = Html::parse_document(&page);
            let row = doc.select(&Selector::parse("tr").unwrap()).nth(1).unwrap();
            super::tour_row(row).and_then(|t| t.tickets)
        };
        assert_eq!(
            tickets("<a href=\"https://cirque.example/billetterie/vannes\">Réserver</a>"),
            Some("https://cirque.example/billetterie/vannes".to_owned())
        );
        assert_eq!(tickets("<a href=\"/plan\">Plan d'accès</a>"), None);
    }

    #[test]
    fn a_town_column_gives_the_row_town() {
        let town = |h: &str, c: &str| {
            let page = format!(
                "<table><tr><th>Fecha</th><th>Prueba</th><th>{h}</th></tr>\
                 <tr><td>Dom. 15/03</td><td>Carrera Popular</td><td>{c}</td></tr></table>"
            );
            let doc = Html::parse_document(&page);
            let row = doc.select(&Selector::parse("tr").unwrap()).nth(1).unwrap();
            super::row_town(row)
        };
        assert_eq!(town("Localidad", "Villar del Campo").as_deref(), Some("Villar del Campo"));
        assert_eq!(town("Gemeinde", "Oberdorf").as_deref(), Some("Oberdorf"));
        assert_eq!(town("Localidad", "por confirmar"), None);
        assert_eq!(town("Distancia", "Villar del Campo"), None);
    }

    #[test]
    fn a_lecture_list_is_no_tour() {
        // A lecture series' table (`Vorlesung`, `Thema`, `Lecture`): each row names its own
        // event, and its `Ort` is a place, not a tour's city.
        let tour = |h: &str| {
            let page = format!(
                "<h1>Vorlesungen 2026</h1><table><tr><th>Datum</th><th>{h}</th><th>Ort</th></tr>\
                 <tr><td>Sa., 14.03.2026</td><td>Warum ist Eis glatt?</td><td>Hörsaal 1</td></tr>\
                 </table>"
            );
            let doc = Html::parse_document(&page);
            let row = doc.select(&Selector::parse("tr").unwrap()).nth(1).unwrap();
            super::tour_row(row).map(|t| t.city)
        };
        for h in ["Vorlesung", "Thema", "Lecture", "Conférence", "Taller"] {
            assert_eq!(tour(h), None, "{h}");
        }
        // A tour's dates without such a column stay a tour.
        assert_eq!(tour("Beginn"), Some(Some("Hörsaal 1".to_owned())));
    }

    #[test]
    fn a_place_cell_is_no_title() {
        // Issue 24, page 236: a row without a title column is titled by its remark, not by
        // the longer cell under `Lieu`.
        let doc = Html::parse_document(
            "<table><tr><th>Date</th><th>Lieu</th><th>Remarques</th></tr>\
             <tr><td>sa 14 mars</td><td>Payerne, Temple (rue du Temple 2)</td>\
             <td>Concert de première</td></tr></table>",
        );
        let row = doc.select(&Selector::parse("tr").unwrap()).nth(1).unwrap();
        let title = super::row_title(row, &|t: &str| !t.is_empty()).map(|(t, _)| t);
        assert_eq!(title.as_deref(), Some("Concert de première"));
        // Issue 24, page 246: a title column's name that holds a date is still the title.
        let doc = Html::parse_document(
            "<table><tr><th>Tarih</th><th>Etkinlik</th><th>Yer</th></tr>\
             <tr><td>23 Nisan 2026</td><td>23 Nisan Çocuk Bayramı Açık Hava Konseri</td>\
             <td>Cumhuriyet Meydanı</td></tr></table>",
        );
        let row = doc.select(&Selector::parse("tr").unwrap()).nth(1).unwrap();
        let usable = |t: &str| !t.is_empty() && !t.starts_with("23 Nisan");
        let title = super::row_title(row, &usable).map(|(t, _)| t);
        assert_eq!(title.as_deref(), Some("23 Nisan Çocuk Bayramı Açık Hava Konseri"));
    }

    #[test]
    fn a_title_column_titles_its_row() {
        // Issue 24, page 299: the `Evento` cell, not the booking link of another cell.
        let doc = Html::parse_document(
            "<table><tr><th>Fecha</th><th>Evento</th><th></th></tr>\
             <tr><td>Sáb 14 mar</td><td><strong>Gran Premio Nocturno</strong><br>\
             <small>Carrera abierta bajo las luces.</small></td>\
             <td><a href=\"/reservar\">Inscribirme</a></td></tr></table>",
        );
        let row = doc.select(&Selector::parse("tr").unwrap()).nth(1).unwrap();
        let title = super::column_title(row, &|t: &str| !t.is_empty()).map(|(t, _)| t);
        assert_eq!(title.as_deref(), Some("Gran Premio Nocturno"));
        // Without a title column, no cell is the column's.
        let doc = Html::parse_document(
            "<table><tr><th>Fecha</th><th>Notas</th></tr>\
             <tr><td>Sáb 14 mar</td><td>Gran Premio Nocturno</td></tr></table>",
        );
        let row = doc.select(&Selector::parse("tr").unwrap()).nth(1).unwrap();
        assert_eq!(super::column_title(row, &|t: &str| !t.is_empty()), None);
    }

    #[test]
    fn a_fixture_is_the_team_against_its_opponent() {
        // Issue 24, pages 251 and 278: a home-games table names the opponent only.
        let page = |lang: &str, team_type: &str| {
            format!(
                "<html lang=\"{lang}\"><head><script type=\"application/ld+json\">\
                 {{\"@type\":\"{team_type}\",\"name\":\"Tuzos de Santa Rosalía\"}}</script></head>\
                 <body><table><tr><th>Fecha</th><th>Rival</th><th>Hora</th><th>Promoción</th></tr>\
                 <tr><td>Mié 1 abr</td><td><img src=\"a.png\" alt=\"\"> Águilas de Puerto Arena</td>\
                 <td>19:05 h</td><td>Miércoles de 2x1 en boletos de general.</td></tr></table></body></html>"
            )
        };
        let read = |html: String| {
            let doc = Html::parse_document(&html);
            let row = doc.select(&Selector::parse("tr").unwrap()).nth(1).unwrap();
            super::fixture_row(row).map(|f| (f.title, f.promotion))
        };
        assert_eq!(
            read(page("es-MX", "SportsTeam")),
            Some((
                "Tuzos de Santa Rosalía vs. Águilas de Puerto Arena".to_owned(),
                Some("Miércoles de 2x1 en boletos de general.".to_owned())
            ))
        );
        assert_eq!(
            read(page("en-GB", "SportsClub")).map(|(t, _)| t).as_deref(),
            Some("Tuzos de Santa Rosalía v Águilas de Puerto Arena")
        );
        // Without a team declared, no fixture is made up.
        assert_eq!(read(page("es-MX", "Organization")), None);
    }

    #[test]
    fn a_range_past_midnight_ends_the_next_day() {
        // Issue 24, page 291: `10pm – 1am`.
        let day = chrono::NaiveDate::from_ymd_opt(2026, 8, 12).unwrap();
        let t = |h| chrono::NaiveTime::from_hms_opt(h, 0, 0).unwrap();
        let end = |a, b| super::end_on(day, t(a), t(b)).map(|e| e.to_iso());
        assert_eq!(end(22, 1).as_deref(), Some("2026-08-13T01:00:00"));
        assert_eq!(end(20, 23).as_deref(), Some("2026-08-12T23:00:00"));
        assert_eq!(end(14, 11), None);
        assert_eq!(end(9, 5), None);
        assert_eq!(end(20, 20), None);
    }

    #[test]
    fn a_cell_spanning_rows_is_each_rows() {
        // Issue 24, page 269: a show's two sessions share its date, place and ticket cells.
        let doc = Html::parse_document(
            "<table><tr><th>Tarih</th><th>Etkinlik</th><th>Yer</th><th>Saat</th></tr>\
             <tr><td rowspan=\"2\">23 Mayıs 2026</td><td>Gösteri – 1. seans</td>\
             <td rowspan=\"2\">Kültür Merkezi Büyük Salon</td><td>15.00</td></tr>\
             <tr><td>Gösteri – 2. seans</td><td>20.00</td></tr>\
             <tr><td>24 Mayıs 2026</td><td>Halay</td><td>Kuğulu Park</td><td>14.00</td></tr></table>",
        );
        let rows: Vec<_> = doc.select(&Selector::parse("tr").unwrap()).collect();
        let texts = |r| {
            super::spanned_cells(r)
                .iter()
                .map(|(i, c)| (*i, super::text_of(*c)))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            texts(rows[2]),
            [(0, "23 Mayıs 2026".to_owned()), (2, "Kültür Merkezi Büyük Salon".to_owned())]
        );
        assert_eq!(texts(rows[3]), []);
        assert_eq!(row_place(rows[2]).as_deref(), Some("Kültür Merkezi Büyük Salon"));
        let title = super::row_title(rows[2], &|t: &str| !t.is_empty()).map(|(t, _)| t);
        assert_eq!(title.as_deref(), Some("Gösteri – 2. seans"));
    }

    #[test]
    fn cell_times() {
        let t = |h, m| Some((chrono::NaiveTime::from_hms_opt(h, m, 0).unwrap(), None));
        assert_eq!(cell_time("21.30"), t(21, 30));
        assert_eq!(cell_time("20h30"), t(20, 30));
        assert_eq!(cell_time("24.30"), None);
        assert_eq!(cell_time("3.2026"), None);
        assert_eq!(cell_time("12.03.2026"), None);
        // Issue 24, page 287: a time cell's range.
        let range = |h1, m1, h2, m2| {
            Some((
                chrono::NaiveTime::from_hms_opt(h1, m1, 0).unwrap(),
                Some(chrono::NaiveTime::from_hms_opt(h2, m2, 0).unwrap()),
            ))
        };
        assert_eq!(cell_time("14.00–17.00"), range(14, 0, 17, 0));
        assert_eq!(cell_time("19.30 - 22.30"), range(19, 30, 22, 30));
        assert_eq!(cell_time("12.03–15.03"), None);
        assert_eq!(cell_time("04–05.04.2026"), None);
        assert_eq!(cell_time("17.00–14.00"), None);
    }
}
