//! The about page's words in English, Turkish, French, Spanish and German.
//!
//! Every sentence is a template with named `{placeholders}`; numbers, names and lists
//! are filled in from [`gleaner_config::Settings`] by `about.rs`, never written here. A
//! hand-rolled table instead of Fluent keeps the build small: the page has no plural
//! forms that a placeholder cannot carry (units are written as symbols, `2 s`, `24 h`,
//! and days in each language's own word). Text is never case-mapped in code, so Turkish
//! dotted and dotless i stay as written.

use gleaner_policy::Purpose;

/// A language of the about page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English.
    En,
    /// Turkish.
    Tr,
    /// French.
    Fr,
    /// Spanish.
    Es,
    /// German.
    De,
}

impl Lang {
    /// Every language, English first (the fallback).
    pub const ALL: [Lang; 5] = [Lang::En, Lang::Tr, Lang::Fr, Lang::Es, Lang::De];

    /// The BCP 47 code (`en`, `tr`, …).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Tr => "tr",
            Lang::Fr => "fr",
            Lang::Es => "es",
            Lang::De => "de",
        }
    }

    /// The language's name in itself.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Tr => "Türkçe",
            Lang::Fr => "Français",
            Lang::Es => "Español",
            Lang::De => "Deutsch",
        }
    }

    /// Parses a code; a region (`fr-CA`) is ignored. ASCII-only case folding.
    pub fn from_code(code: &str) -> Option<Lang> {
        let primary = code.split(['-', '_']).next().unwrap_or("").trim();
        Lang::ALL.into_iter().find(|l| l.code().eq_ignore_ascii_case(primary))
    }

    /// Picks the best language from an `Accept-Language` header (RFC 9110 §12.5.4):
    /// the highest `q` among the ones we have; English when none matches.
    pub fn negotiate(header: Option<&str>) -> Lang {
        let Some(header) = header else { return Lang::En };
        let mut best: Option<(f32, usize, Lang)> = None;
        for (index, part) in header.split(',').enumerate() {
            let mut pieces = part.split(';');
            let tag = pieces.next().unwrap_or("").trim();
            let q = pieces
                .find_map(|p| {
                    p.trim().strip_prefix("q=").and_then(|v| v.trim().parse::<f32>().ok())
                })
                .unwrap_or(1.0);
            if q <= 0.0 {
                continue;
            }
            if let Some(lang) = Lang::from_code(tag) {
                // Higher q wins; on a tie, the earlier entry.
                let better = match best {
                    None => true,
                    Some((bq, bi, _)) => q > bq || (q == bq && index < bi),
                };
                if better {
                    best = Some((q, index, lang));
                }
            }
        }
        best.map_or(Lang::En, |(_, _, l)| l)
    }

    /// The messages of this language.
    pub fn messages(self) -> &'static Messages {
        match self {
            Lang::En => &EN,
            Lang::Tr => &TR,
            Lang::Fr => &FR,
            Lang::Es => &ES,
            Lang::De => &DE,
        }
    }
}

/// Fills `{name}` placeholders of a template. Unknown placeholders stay as written, so
/// a typo shows on the page and in the tests instead of vanishing.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

/// Every sentence of the about page in one language.
#[derive(Debug)]
pub struct Messages {
    /// Page title: `{token}`.
    pub title: &'static str,
    /// Intro: `{token}`, `{operator}`.
    pub intro: &'static str,
    /// Other languages.
    pub other_languages: &'static str,
    /// Heading: who runs it.
    pub h_who: &'static str,
    /// `{operator}`.
    pub operator_line: &'static str,
    /// `{contact}`.
    pub contact_line: &'static str,
    /// `{info_url}`; when there is no contact address.
    pub no_contact_line: &'static str,
    /// `{address}`.
    pub address_line: &'static str,
    /// Heading: recognise and verify.
    pub h_recognise: &'static str,
    /// Before the User-Agent.
    pub ua_line: &'static str,
    /// `{token}`.
    pub token_line: &'static str,
    /// How to verify.
    pub verify_line: &'static str,
    /// `{n}`, `{gap}`.
    pub manual_line: &'static str,
    /// Heading: what it reads.
    pub h_reads: &'static str,
    /// `{purposes}`.
    pub reads_line: &'static str,
    /// GET only.
    pub methods_get: &'static str,
    /// GET and HEAD.
    pub methods_get_head: &'static str,
    /// Heading: never.
    pub h_never: &'static str,
    /// What it never does, one item each.
    pub never: [&'static str; 4],
    /// Heading: keeps.
    pub h_keeps: &'static str,
    /// The facts kept.
    pub keep_facts: &'static str,
    /// `{sources}` kept in full.
    pub keep_full: &'static str,
    /// No source kept in full.
    pub keep_full_none: &'static str,
    /// `{sources}` that do not publish (the newsroom pool).
    pub private_some: &'static str,
    /// `{duration}` bodies kept.
    pub bodies_kept: &'static str,
    /// Bodies deleted at once.
    pub bodies_zero: &'static str,
    /// Samples on.
    pub samples_on: &'static str,
    /// Samples off.
    pub samples_off: &'static str,
    /// `{duration}` after an event ends.
    pub events_after: &'static str,
    /// `{duration}` audit kept.
    pub audit_kept: &'static str,
    /// What a removal deletes and keeps.
    pub removal_keeps: &'static str,
    /// Heading: how it crawls.
    pub h_crawl: &'static str,
    /// Before the politeness table.
    pub crawl_intro: &'static str,
    /// Conditional requests.
    pub conditional: &'static str,
    /// Crawl-delay honoured.
    pub crawl_delay: &'static str,
    /// Row labels.
    pub row: RowLabels,
    /// Heading: rights.
    pub h_rights: &'static str,
    /// Signals honoured.
    pub rights_on: &'static str,
    /// Any stops the site.
    pub rights_stop_site: &'static str,
    /// Per purpose.
    pub rights_per_purpose: &'static str,
    /// Not read.
    pub rights_off: &'static str,
    /// AI-use preferences read (`Content-Usage`, `Content-Signal`), what they change,
    /// and that gleaner never trains a model (issue 29).
    pub rights_prefs: &'static str,
    /// Label of the AI-use preferences fact.
    pub prefs_label: &'static str,
    /// Value of the AI-use preferences fact.
    pub prefs_value: &'static str,
    /// Rights files read per site, with `{ttl}`.
    pub rights_files: &'static str,
    /// The image relay's cache rules: `{max_age}`, `{cap}`, `{image_cap}`, `{gap}`,
    /// `{queue}`, `{backoff}`.
    pub relay_rules: &'static str,
    /// Heading: licensed APIs.
    pub h_licensed: &'static str,
    /// `{sources}`.
    pub licensed_some: &'static str,
    /// None.
    pub licensed_none: &'static str,
    /// Heading: language models and translation.
    pub h_models: &'static str,
    /// `{sources}` translated.
    pub translate_some: &'static str,
    /// No translation.
    pub translate_none: &'static str,
    /// `{endpoints}`.
    pub models_some: &'static str,
    /// No model.
    pub models_none: &'static str,
    /// `{sources}` whose pages a language model may read; rights reservations honoured.
    pub models_sources: &'static str,
    /// Heading: block.
    pub h_block: &'static str,
    /// Whole site.
    pub block_site: &'static str,
    /// One path.
    pub block_path: &'static str,
    /// `{ttl}`.
    pub block_delay: &'static str,
    /// Heading: ask.
    pub h_ask: &'static str,
    /// `{contact}`.
    pub ask_line: &'static str,
    /// The kinds of request.
    pub ask_kinds: [&'static str; 4],
    /// Footer.
    pub footer: &'static str,
    /// The word for days (`{n} days`).
    pub days: &'static str,
    /// One day.
    pub day: &'static str,
    /// "and" in lists.
    pub and: &'static str,
}

/// Labels of the politeness table and the site-class descriptions.
#[derive(Debug)]
pub struct RowLabels {
    /// User-Agent.
    pub user_agent: &'static str,
    /// Token.
    pub token: &'static str,
    /// Gap.
    pub gap: &'static str,
    /// In flight.
    pub in_flight: &'static str,
    /// Global cap.
    pub daily_cap: &'static str,
    /// Retry-After default: label.
    pub retry_default: &'static str,
    /// `{duration}`.
    pub retry_default_value: &'static str,
    /// Retry-After cap.
    pub retry_cap: &'static str,
    /// Retries.
    pub retries: &'static str,
    /// Tries when unreachable.
    pub unreachable_tries: &'static str,
    /// Failure streak.
    pub failure_streak: &'static str,
    /// Longest pass.
    pub run_time_limit: &'static str,
    /// Block label.
    pub block: &'static str,
    /// `{duration}`.
    pub block_value: &'static str,
    /// Connect timeout.
    pub connect_timeout: &'static str,
    /// Deadline.
    pub deadline: &'static str,
    /// Body cap label.
    pub max_body: &'static str,
    /// `{size}`.
    pub max_body_value: &'static str,
    /// Redirects.
    pub redirects: &'static str,
    /// robots.txt TTL.
    pub robots_ttl: &'static str,
    /// robots 401/403 label.
    pub robots_unauthorized: &'static str,
    /// Allow all.
    pub robots_unauthorized_allow: &'static str,
    /// Block.
    pub robots_unauthorized_block: &'static str,
    /// robots unreachable label.
    pub robots_unreachable: &'static str,
    /// Value.
    pub robots_unreachable_value: &'static str,
    /// Source interval label.
    pub source_interval: &'static str,
    /// Who shares the budgets label.
    pub shared_by: &'static str,
    /// Value for one deployment.
    pub shared_by_deployment: &'static str,
    /// Value for a copy sharing a politeness namespace.
    pub shared_by_copies: &'static str,
    /// `{duration}`.
    pub every: &'static str,
    /// `{purpose}`.
    pub purpose_gap: &'static str,
    /// `{purpose}`.
    pub purpose_jitter: &'static str,
    /// `{min}`, `{max}`.
    pub range: &'static str,
    /// `{purpose}`.
    pub purpose_in_flight: &'static str,
    /// `{class}`.
    pub class: &'static str,
    /// `{zone}`.
    pub class_zone: &'static str,
    /// `{duration}`.
    pub class_gap: &'static str,
    /// `{n}`.
    pub class_in_flight: &'static str,
    /// `{windows}`.
    pub class_quiet: &'static str,
    /// `{n}`.
    pub class_per_pass: &'static str,
    /// `{n}`.
    pub class_per_hour: &'static str,
    /// `{n}`.
    pub class_per_day: &'static str,
    /// `{n}`.
    pub class_visits: &'static str,
    /// `{duration}`.
    pub class_pass_interval: &'static str,
}

/// A purpose's name in a language.
pub fn purpose_name(lang: Lang, purpose: Purpose) -> &'static str {
    use Purpose::*;
    let i = match purpose {
        Robots => 0,
        Listing => 1,
        EventPage => 2,
        Feed => 3,
        Api => 4,
        Sitemap => 5,
        CancellationCheck => 6,
        LinkCheck => 7,
        ImageRelay => 8,
        RightsSignal => 9,
        TermsPage => 10,
        ManualCheck => 11,
        OwnerVerification => 12,
    };
    let names: [&str; 13] = match lang {
        Lang::En => [
            "robots.txt",
            "event listings",
            "event pages",
            "RSS and Atom feeds",
            "public event APIs",
            "sitemaps",
            "cancellation checks",
            "link checks",
            "image relay",
            "rights signals (TDMRep, ai.txt)",
            "terms and press pages",
            "manual checks by staff",
            "site-owner verification",
        ],
        Lang::Tr => [
            "robots.txt",
            "etkinlik listeleri",
            "etkinlik sayfaları",
            "RSS ve Atom akışları",
            "herkese açık etkinlik API'leri",
            "site haritaları",
            "iptal kontrolleri",
            "bağlantı kontrolleri",
            "görsel aktarımı",
            "hak sinyalleri (TDMRep, ai.txt)",
            "kullanım koşulları ve basın sayfaları",
            "çalışanlarımızın elle kontrolleri",
            "site sahibi doğrulaması",
        ],
        Lang::Fr => [
            "robots.txt",
            "listes d'événements",
            "pages d'événements",
            "flux RSS et Atom",
            "API publiques d'événements",
            "plans de site (sitemaps)",
            "vérifications d'annulation",
            "vérifications de liens",
            "relais d'images",
            "signaux de droits (TDMRep, ai.txt)",
            "conditions d'utilisation et pages presse",
            "vérifications manuelles par l'équipe",
            "vérification du propriétaire du site",
        ],
        Lang::Es => [
            "robots.txt",
            "listados de eventos",
            "páginas de eventos",
            "fuentes RSS y Atom",
            "API públicas de eventos",
            "mapas del sitio (sitemaps)",
            "comprobaciones de cancelación",
            "comprobaciones de enlaces",
            "relé de imágenes",
            "señales de derechos (TDMRep, ai.txt)",
            "condiciones de uso y páginas de prensa",
            "comprobaciones manuales del equipo",
            "verificación del propietario del sitio",
        ],
        Lang::De => [
            "robots.txt",
            "Veranstaltungslisten",
            "Veranstaltungsseiten",
            "RSS- und Atom-Feeds",
            "öffentliche Veranstaltungs-APIs",
            "Sitemaps",
            "Absage-Prüfungen",
            "Link-Prüfungen",
            "Bild-Relay",
            "Rechtesignale (TDMRep, ai.txt)",
            "Nutzungsbedingungen und Presseseiten",
            "manuelle Prüfungen durch das Team",
            "Prüfung der Website-Inhaberschaft",
        ],
    };
    names[i]
}

static EN: Messages = Messages {
    title: "About {token}",
    intro: "{token} is the web crawler of {operator}. It reads public event listings so that people can find what is on; every event we show links back to the page it was read from.",
    other_languages: "This page in other languages:",
    h_who: "Who runs it and how to reach us",
    operator_line: "{token} is run by {operator}.",
    contact_line: "Contact: {contact}",
    no_contact_line: "Its User-Agent carries no e-mail address; you can reach us through {info_url}.",
    address_line: "Postal address: {address}",
    h_recognise: "How to recognise and verify it",
    ua_line: "Every request carries this User-Agent, never another, and it never presents itself as a browser:",
    token_line: "In robots.txt it obeys the group written for the product token {token} (matched without regard to case); without one, the group for *.",
    verify_line: "To check that a request really came from us, compare its User-Agent with the line above and write to us with the time and the address it came from: every request we make is in our request log, with the rule that allowed it.",
    manual_line: "Our staff sometimes check a page by hand with the same User-Agent. They obey the same robots.txt, send at most {n} such requests to one site per day, and wait at least {gap} between them.",
    h_reads: "What it reads",
    reads_line: "First robots.txt, before anything else on a site; then only: {purposes}.",
    methods_get: "It only sends GET requests.",
    methods_get_head: "It sends GET requests, and HEAD requests where a quick check is enough.",
    h_never: "What it never does",
    never: [
        "It never logs in, fills in forms, runs JavaScript or solves CAPTCHAs; a challenge page counts as a refusal.",
        "It sends no cookies and no Referer.",
        "While a site's robots.txt cannot be read, it reads nothing else from that site.",
        "It never follows a redirect without checking the new site's robots.txt first.",
    ],
    h_keeps: "What it keeps and for how long",
    keep_facts: "From each event it keeps the facts: title, date and time, venue and address, price (or that it is free), ticket links, status, the address of the page it was read from, and one category of our own.",
    keep_full: "From these sources it also keeps the description and the address of the image: {sources}. From every other source, the facts only.",
    keep_full_none: "It keeps no descriptions and no images from any source: facts only.",
    private_some: "Events from these sources are never published as they are: they go to a private pool for the newsroom: {sources}.",
    bodies_kept: "Fetched pages are kept only to be processed, for {duration} at most.",
    bodies_zero: "Fetched pages are deleted as soon as the facts have been read from them.",
    samples_on: "A few pages are kept as test samples for our parsers; ask us and your site is left out of them.",
    samples_off: "No page is kept as a test sample.",
    events_after: "Events are deleted {duration} after they end.",
    audit_kept: "The log of our own requests is kept for {duration}.",
    removal_keeps: "When you ask for removal, your site's events, descriptions, image addresses, translations and stored pages are deleted at once. Only the records of gleaner's own requests remain: the request log and the dated copies of your robots.txt.",
    h_crawl: "How it crawls",
    crawl_intro: "These limits are the ones the program applies: this page reads them from its configuration, it does not copy them. One budget per site is shared by every purpose and every source.",
    conditional: "It sends conditional requests (If-None-Match, If-Modified-Since): a page that has not changed is not downloaded again, and counts as checked.",
    crawl_delay: "A Crawl-delay or Request-rate asking for more time between requests than its own spacing is honoured, and no request but robots.txt starts outside a Visit-time window (UTC): they can only make it slower.",
    row: RowLabels {
        user_agent: "User-Agent",
        token: "robots.txt product token",
        gap: "Time between two requests to one site (any purpose)",
        in_flight: "Requests open at once to one site",
        daily_cap: "Requests per day, all sites together",
        retry_default: "After a 429 or 503 without a usable Retry-After",
        retry_default_value: "the whole site is paused for {duration}",
        retry_cap: "Longest pause a Retry-After can ask for",
        retries: "Retries after a 429 or 5xx (only once the pause has ended)",
        unreachable_tries: "Tries when a site cannot be reached (over about a minute)",
        failure_streak: "Failed visits in a row before a source is tried at most once a day",
        run_time_limit: "Longest pass (the rest waits for the next one)",
        block: "After a 401 or 403 on a page",
        block_value: "the site is left alone for {duration}",
        connect_timeout: "Connect timeout",
        deadline: "Deadline for a whole response",
        max_body: "Largest document read",
        max_body_value: "{size}; larger ones are abandoned",
        redirects: "Redirect hops followed (each one checked like a new request)",
        robots_ttl: "robots.txt read again at least every",
        robots_unauthorized: "robots.txt answering 401 or 403",
        robots_unauthorized_allow: "treated as no restrictions (RFC 9309)",
        robots_unauthorized_block: "treated as a refusal: nothing is read",
        robots_unreachable: "robots.txt answering 429 or 5xx, or unreachable",
        robots_unreachable_value: "nothing else is read from the site until it can be read again",
        source_interval: "Most frequent visit of one source",
        shared_by: "Who shares these limits",
        shared_by_deployment: "every process of this deployment: one budget per site, however many workers run",
        shared_by_copies: "every process of this deployment and of the other copies of this bot that share its politeness namespace (a staging copy, for example): together they keep one budget per site",
        every: "once every {duration}",
        purpose_gap: "Time between requests: {purpose}",
        purpose_jitter: "Random extra wait: {purpose}",
        range: "{min} to {max}",
        purpose_in_flight: "Requests open at once: {purpose}",
        class: "Sites of the class “{class}”",
        class_zone: "time zone {zone}",
        class_gap: "{duration} between requests",
        class_in_flight: "{n} request(s) open at once",
        class_quiet: "no request starts during {windows}, local time",
        class_per_pass: "at most {n} requests per visit, pagination included",
        class_per_hour: "{n} per hour",
        class_per_day: "{n} per day",
        class_visits: "{n} visits per day",
        class_pass_interval: "at most one visit every {duration}",
    },
    h_rights: "Rights signals it honours",
    rights_on: "It reads TDMRep (/.well-known/tdmrep.json and the tdm-reservation header), /ai.txt, and noai, noimageai and noml in X-Robots-Tag, Robots-Tag and robots meta tags; noindex, nofollow, noarchive, nosnippet and noimageindex are obeyed too.",
    rights_stop_site: "Any of these reservations stops it reading your site.",
    rights_per_purpose: "A reservation stops the uses it names: keeping descriptions, images, language-model use, translation.",
    rights_off: "This deployment does not read rights signals beyond robots.txt and the robots meta tags.",
    rights_prefs: "It reads AI-use preferences: Content-Usage (IETF AI Preferences) and Content-Signal, as rules of the robots.txt group that applies to it (the longest matching path wins) and as response headers; the most restrictive answer wins. search=no keeps a page's events out of what it publishes; ai-input=no (Content-Usage: ai-use=n, the closest label) keeps the page from its language model and from translation. It never trains a model on anything it reads, so train-ai and ai-train change nothing it does. gleaner explain and the audit log name the robots.txt line or the header that decided.",
    prefs_label: "AI-use preferences",
    prefs_value: "search=no: events not published; ai-input=no: not sent to the language model or translated; no model is ever trained",
    rights_files: "It reads /.well-known/tdmrep.json and /ai.txt after robots.txt (never when robots.txt disallows them) and rereads them every {ttl}.",
    relay_rules: "Images of events are shown to visitors through gleaner's image relay, only where the source's terms and your signals allow it: fetched when a visitor asks, one request at a time per host and at least {gap} apart (at most {queue} visitors wait, the others are told to come back), kept in memory only, for at most {max_age} and less when your Cache-Control says so (nothing for no-store or private), revalidated with a conditional request, never more than {cap} in all and {image_cap} per image; a failed fetch is not retried for {backoff}; PNG, JPEG, GIF and WebP only. A takedown stops it at once.",
    h_licensed: "Licensed APIs",
    licensed_some: "These sources are licensed APIs, read under a contract with their provider: {sources}. They do not go through robots.txt, but keep their own rate limits and our spacing.",
    licensed_none: "It uses no licensed API: every source obeys robots.txt.",
    h_models: "Language models and translation",
    translate_some: "Titles and descriptions from these sources are translated into English, and the original is kept: {sources}.",
    translate_none: "Nothing is translated.",
    models_some: "A language model is used through these services: {endpoints}.",
    models_none: "No language model reads your pages.",
    models_sources: "A language model reads the pages of these sources when they carry no structured data, and only facts it can point to in the page are kept: {sources}. A page or site that reserves AI use (noai, TDMRep, ai.txt) is never sent to a model.",
    h_block: "How to block it",
    block_site: "To keep it off your whole site, add these lines to your robots.txt:",
    block_path: "To keep it out of one part of your site only:",
    block_delay: "It reads robots.txt again within {ttl} and then stops at once.",
    h_ask: "How to ask for removal, a slow-down or facts only",
    ask_line: "Write to {contact}. Tell us the site, and we will:",
    ask_kinds: [
        "remove your site's events and everything stored from it, at once;",
        "slow down on your site by the factor you choose, or pause until a date;",
        "keep the facts only (this also deletes stored descriptions, images and translations);",
        "stop reading your site altogether.",
    ],
    footer: "Generated from the running configuration of {token}.",
    days: "days",
    day: "day",
    and: "and",
};

static TR: Messages = Messages {
    title: "{token} hakkında",
    intro: "{token}, {operator} tarafından işletilen web botudur (crawler). İnsanlar şehirlerindeki etkinlikleri bulabilsin diye herkese açık etkinlik listelerini okur; gösterdiğimiz her etkinlik, bilgiyi okuduğumuz sayfaya bağlantı verir.",
    other_languages: "Bu sayfa başka dillerde:",
    h_who: "Botu kim işletiyor, bize nasıl ulaşırsınız",
    operator_line: "{token} botunu {operator} işletir.",
    contact_line: "İletişim: {contact}",
    no_contact_line: "User-Agent bilgisinde e-posta adresi yoktur; bize {info_url} üzerinden ulaşabilirsiniz.",
    address_line: "Posta adresi: {address}",
    h_recognise: "Nasıl tanır ve doğrularsınız",
    ua_line: "Her istekte şu User-Agent bilgisini gönderir, başkasını asla göndermez ve kendini hiçbir zaman bir internet tarayıcısı gibi göstermez:",
    token_line: "robots.txt dosyanızda {token} ürün adı için yazılan gruba uyar (büyük-küçük harf ayrımı yapılmaz); böyle bir grup yoksa * grubuna uyar.",
    verify_line: "Bir isteğin gerçekten bizden gelip gelmediğini anlamak için User-Agent bilgisini yukarıdaki satırla karşılaştırın ve isteğin saatini ve geldiği adresi bize yazın: gönderdiğimiz her istek, ona izin veren kuralla birlikte istek kaydımızda durur.",
    manual_line: "Çalışanlarımız bir sayfayı bazen aynı User-Agent ile elle kontrol eder. Aynı robots.txt kurallarına uyarlar, bir siteye günde en fazla {n} böyle istek gönderirler ve istekler arasında en az {gap} beklerler.",
    h_reads: "Neyi okur",
    reads_line: "Bir sitede her şeyden önce robots.txt dosyasını okur; ardından yalnızca şunları: {purposes}.",
    methods_get: "Yalnızca GET isteği gönderir.",
    methods_get_head: "GET isteği gönderir; hızlı bir kontrolün yettiği yerde HEAD isteği de gönderir.",
    h_never: "Asla yapmadıkları",
    never: [
        "Oturum açmaz, form doldurmaz, JavaScript çalıştırmaz, CAPTCHA çözmez; bir doğrulama sayfası ret sayılır.",
        "Çerez (cookie) ve Referer göndermez.",
        "Bir sitenin robots.txt dosyası okunamıyorsa o siteden başka hiçbir şey okumaz.",
        "Bir yönlendirmeyi, yeni sitenin robots.txt dosyasına bakmadan izlemez.",
    ],
    h_keeps: "Neyi, ne kadar süre saklar",
    keep_facts: "Her etkinlikten temel bilgileri saklar: adını, tarihini ve saatini, mekânını ve adresini, fiyatını (ya da ücretsiz olduğunu), bilet bağlantılarını, durumunu, bilgiyi okuduğu sayfanın adresini ve kendi kategorilerimizden birini.",
    keep_full: "Şu kaynaklardan etkinliğin açıklamasını ve görselinin adresini de saklar: {sources}. Diğer kaynaklardan yalnızca temel bilgileri saklar.",
    keep_full_none: "Hiçbir kaynaktan açıklama ya da görsel saklamaz; yalnızca temel bilgileri saklar.",
    private_some: "Şu kaynaklardan gelen etkinlikler olduğu gibi yayımlanmaz; haber ekibinin kullandığı özel bir havuza gider: {sources}.",
    bodies_kept: "Çekilen sayfalar yalnızca işlenmek için tutulur ve en geç {duration} içinde silinir.",
    bodies_zero: "Çekilen sayfalar, bilgiler okunur okunmaz silinir.",
    samples_on: "Ayrıştırıcılarımızı test etmek için az sayıda sayfa örnek olarak saklanır; isterseniz siteniz bu örneklerden çıkarılır.",
    samples_off: "Hiçbir sayfa test örneği olarak saklanmaz.",
    events_after: "Etkinlikler, bittikten {duration} sonra silinir.",
    audit_kept: "Kendi isteklerimizin kaydı {duration} boyunca tutulur.",
    removal_keeps: "Bir kaldırma talebinde sitenize ait etkinlikler, açıklamalar, görsel adresleri, çeviriler ve saklanan sayfalar hemen silinir. Yalnızca gleaner'ın kendi isteklerinin kayıtları kalır: istek kaydı ve robots.txt dosyanızın tarihli kopyaları.",
    h_crawl: "Nasıl tarar",
    crawl_intro: "Bu sınırlar programın uyguladığı sınırlardır: bu sayfa onları yapılandırmadan okur, elle yazılmamıştır. Her site için tek bir bütçe vardır; tüm amaçlar ve tüm kaynaklar onu paylaşır.",
    conditional: "Koşullu istek gönderir (If-None-Match, If-Modified-Since): değişmemiş bir sayfa yeniden indirilmez ve kontrol edilmiş sayılır.",
    crawl_delay: "İstekler arasında kendi aralığından daha uzun süre isteyen bir Crawl-delay veya Request-rate değerine uyar ve bir Visit-time penceresi (UTC) dışında robots.txt dışında hiçbir istek başlatmaz: bunlar onu yalnızca yavaşlatabilir.",
    row: RowLabels {
        user_agent: "User-Agent",
        token: "robots.txt ürün adı",
        gap: "Aynı siteye iki istek arasındaki süre (her amaç için)",
        in_flight: "Bir siteye aynı anda açık istek sayısı",
        daily_cap: "Günlük istek sayısı, tüm siteler birlikte",
        retry_default: "Kullanılabilir bir Retry-After olmadan gelen 429 ya da 503 sonrasında",
        retry_default_value: "tüm site {duration} boyunca bekletilir",
        retry_cap: "Bir Retry-After bilgisinin isteyebileceği en uzun bekleme",
        retries: "429 ya da 5xx sonrası yeniden deneme (yalnızca bekleme bittikten sonra)",
        unreachable_tries: "Ulaşılamayan bir siteye deneme sayısı (yaklaşık bir dakika içinde)",
        failure_streak: "Bir kaynağın günde en fazla bir kez denenmesine yol açan art arda başarısız ziyaret sayısı",
        run_time_limit: "Bir ziyaretin en uzun süresi (kalanı bir sonrakine kalır)",
        block: "Bir sayfada 401 ya da 403 sonrasında",
        block_value: "siteye {duration} boyunca dokunulmaz",
        connect_timeout: "Bağlantı zaman aşımı",
        deadline: "Bir yanıtın tamamı için süre sınırı",
        max_body: "Okunan en büyük belge",
        max_body_value: "{size}; daha büyükleri bırakılır",
        redirects: "İzlenen yönlendirme sayısı (her biri yeni bir istek gibi denetlenir)",
        robots_ttl: "robots.txt en geç şu sürede yeniden okunur",
        robots_unauthorized: "401 ya da 403 döndüren robots.txt",
        robots_unauthorized_allow: "kısıtlama yok sayılır (RFC 9309)",
        robots_unauthorized_block: "ret sayılır: hiçbir şey okunmaz",
        robots_unreachable: "429 ya da 5xx döndüren veya ulaşılamayan robots.txt",
        robots_unreachable_value: "dosya yeniden okunabilene kadar siteden başka hiçbir şey okunmaz",
        source_interval: "Bir kaynağın en sık ziyaret edilme aralığı",
        shared_by: "Bu sınırları kimler paylaşır",
        shared_by_deployment: "bu kurulumun tüm süreçleri: kaç işçi çalışırsa çalışsın site başına tek bir sınır",
        shared_by_copies: "bu kurulumun ve aynı nezaket ad alanını paylaşan diğer kopyalarının (örneğin test kopyası) tüm süreçleri: birlikte site başına tek bir sınır",
        every: "{duration} içinde en fazla bir kez",
        purpose_gap: "İstekler arasındaki süre: {purpose}",
        purpose_jitter: "Rastgele ek bekleme: {purpose}",
        range: "{min} ile {max} arası",
        purpose_in_flight: "Aynı anda açık istek: {purpose}",
        class: "“{class}” sınıfındaki siteler",
        class_zone: "saat dilimi {zone}",
        class_gap: "istekler arasında {duration}",
        class_in_flight: "aynı anda en fazla {n} açık istek",
        class_quiet: "yerel saatle {windows} arasında hiçbir istek başlamaz",
        class_per_pass: "sayfalama dahil ziyaret başına en fazla {n} istek",
        class_per_hour: "saatte {n}",
        class_per_day: "günde {n}",
        class_visits: "günde {n} ziyaret",
        class_pass_interval: "{duration} içinde en fazla bir ziyaret",
    },
    h_rights: "Uyduğu hak sinyalleri",
    rights_on: "TDMRep'i (/.well-known/tdmrep.json ve tdm-reservation başlığı), /ai.txt dosyasını ve X-Robots-Tag, Robots-Tag ve robots meta etiketlerindeki noai, noimageai ve noml değerlerini okur; noindex, nofollow, noarchive, nosnippet ve noimageindex değerlerine de uyar.",
    rights_stop_site: "Bu çekincelerden herhangi biri, sitenizi okumasını durdurur.",
    rights_per_purpose: "Bir çekince, adını verdiği kullanımları durdurur: açıklama saklama, görsel, dil modeli kullanımı, çeviri.",
    rights_off: "Bu kurulum, robots.txt ve robots meta etiketleri dışında hak sinyallerini okumaz.",
    rights_prefs: "Yapay zekâ kullanım tercihlerini okur: Content-Usage (IETF AI Preferences) ve Content-Signal; hem kendisine uygulanan robots.txt grubunun kuralları olarak (en uzun eşleşen yol kazanır) hem de yanıt başlıkları olarak. En kısıtlayıcı yanıt geçerlidir. search=no, bir sayfanın etkinliklerini yayımladıklarının dışında tutar; ai-input=no (Content-Usage: ai-use=n, en yakın etiket) sayfayı dil modelinden ve çeviriden uzak tutar. Okuduğu hiçbir şeyle model eğitmez; bu yüzden train-ai ve ai-train yaptığı hiçbir şeyi değiştirmez. gleaner explain ve denetim kaydı, karar veren robots.txt satırını ya da başlığı belirtir.",
    prefs_label: "Yapay zekâ kullanım tercihleri",
    prefs_value: "search=no: etkinlikler yayımlanmaz; ai-input=no: dil modeline gönderilmez, çevrilmez; hiçbir zaman model eğitilmez",
    rights_files: "robots.txt'den sonra /.well-known/tdmrep.json ve /ai.txt dosyalarını okur (robots.txt yasaklıyorsa asla) ve her {ttl} bir yeniden okur.",
    relay_rules: "Etkinlik görselleri ziyaretçilere gleaner'ın görsel aktarıcısı üzerinden, yalnızca kaynağın koşulları ve sinyalleriniz izin verdiğinde gösterilir: bir ziyaretçi istediğinde alınır, her sunucuya aynı anda tek istek ve en az {gap} arayla (en fazla {queue} ziyaretçi bekler, diğerlerine sonra gelmeleri söylenir), yalnızca bellekte, en fazla {max_age} ve Cache-Control daha kısa diyorsa daha az tutulur (no-store veya private için hiç), koşullu istekle doğrulanır, toplamda {cap}, görsel başına {image_cap} sınırı aşılmaz; başarısız bir istek {backoff} boyunca yinelenmez; yalnızca PNG, JPEG, GIF ve WebP. Kaldırma talebi onu hemen durdurur.",
    h_licensed: "Lisanslı API'ler",
    licensed_some: "Şu kaynaklar, sağlayıcısıyla yapılan bir sözleşmeyle okunan lisanslı API'lerdir: {sources}. robots.txt üzerinden geçmezler, ama kendi hız sınırlarına ve bizim istek aralığımıza uyarlar.",
    licensed_none: "Hiçbir lisanslı API kullanmaz: her kaynak robots.txt kurallarına uyar.",
    h_models: "Dil modelleri ve çeviri",
    translate_some: "Şu kaynaklardan gelen etkinlik adları ve açıklamaları İngilizceye çevrilir, özgün metin de saklanır: {sources}.",
    translate_none: "Hiçbir şey çevrilmez.",
    models_some: "Şu hizmetler üzerinden bir dil modeli kullanılır: {endpoints}.",
    models_none: "Sayfalarınızı hiçbir dil modeli okumaz.",
    models_sources: "Şu kaynakların sayfaları yapılandırılmış veri içermediğinde bir dil modeli tarafından okunur ve yalnızca sayfada gösterilebilen bilgiler saklanır: {sources}. Yapay zekâ kullanımını saklı tutan (noai, TDMRep, ai.txt) bir sayfa ya da site hiçbir zaman bir modele gönderilmez.",
    h_block: "Nasıl engellersiniz",
    block_site: "Botu sitenizin tamamından uzak tutmak için robots.txt dosyanıza şu satırları ekleyin:",
    block_path: "Yalnızca sitenizin bir bölümünden uzak tutmak için:",
    block_delay: "robots.txt dosyanızı en geç {ttl} içinde yeniden okur ve hemen durur.",
    h_ask: "Kaldırma, yavaşlatma ya da yalnızca temel bilgiler nasıl istenir",
    ask_line: "{contact} adresine yazın. Siteyi belirtin; biz de:",
    ask_kinds: [
        "sitenize ait etkinlikleri ve saklanan her şeyi hemen sileriz;",
        "sitenizde seçtiğiniz oranda yavaşlarız ya da bir tarihe kadar dururuz;",
        "yalnızca temel bilgileri saklarız (saklanan açıklamalar, görseller ve çeviriler de silinir);",
        "sitenizi okumayı tamamen bırakırız.",
    ],
    footer: "{token} botunun çalışan yapılandırmasından üretilmiştir.",
    days: "gün",
    day: "gün",
    and: "ve",
};

static FR: Messages = Messages {
    title: "À propos de {token}",
    intro: "{token} est le robot d'indexation de {operator}. Il lit des listes publiques d'événements pour que chacun puisse savoir ce qui se passe près de chez lui ; chaque événement que nous montrons renvoie à la page où il a été lu.",
    other_languages: "Cette page dans d'autres langues :",
    h_who: "Qui l'exploite et comment nous joindre",
    operator_line: "{token} est exploité par {operator}.",
    contact_line: "Contact : {contact}",
    no_contact_line: "Son User-Agent ne contient pas d'adresse e-mail ; vous pouvez nous joindre via {info_url}.",
    address_line: "Adresse postale : {address}",
    h_recognise: "Comment le reconnaître et le vérifier",
    ua_line: "Chaque requête porte ce User-Agent, jamais un autre, et il ne se fait jamais passer pour un navigateur :",
    token_line: "Dans le fichier robots.txt, il suit le groupe écrit pour le nom de produit {token} (sans tenir compte de la casse) ; à défaut, le groupe *.",
    verify_line: "Pour vérifier qu'une requête vient bien de nous, comparez son User-Agent à la ligne ci-dessus et écrivez-nous en indiquant l'heure et l'adresse d'origine : chaque requête que nous envoyons figure dans notre journal, avec la règle qui l'a autorisée.",
    manual_line: "Notre équipe vérifie parfois une page à la main avec le même User-Agent. Elle respecte le même robots.txt, envoie au plus {n} requêtes de ce type par site et par jour, espacées d'au moins {gap}.",
    h_reads: "Ce qu'il lit",
    reads_line: "D'abord le robots.txt, avant toute autre chose sur un site ; ensuite uniquement : {purposes}.",
    methods_get: "Il n'envoie que des requêtes GET.",
    methods_get_head: "Il envoie des requêtes GET, et des requêtes HEAD quand une vérification rapide suffit.",
    h_never: "Ce qu'il ne fait jamais",
    never: [
        "Il ne se connecte à aucun compte, ne remplit aucun formulaire, n'exécute pas de JavaScript et ne résout pas de CAPTCHA ; une page de contrôle vaut refus.",
        "Il n'envoie ni cookies ni Referer.",
        "Tant que le robots.txt d'un site ne peut pas être lu, il ne lit rien d'autre sur ce site.",
        "Il ne suit jamais une redirection sans avoir d'abord consulté le robots.txt du nouveau site.",
    ],
    h_keeps: "Ce qu'il conserve, et combien de temps",
    keep_facts: "De chaque événement, il conserve les faits : titre, date et heure, lieu et adresse, prix (ou gratuité), liens de billetterie, statut, adresse de la page où il a été lu, et une catégorie de notre propre classement.",
    keep_full: "Pour ces sources, il conserve aussi la description et l'adresse de l'image : {sources}. Pour toutes les autres, les faits seulement.",
    keep_full_none: "Il ne conserve ni description ni image, quelle que soit la source : les faits seulement.",
    private_some: "Les événements de ces sources ne sont jamais publiés tels quels : ils alimentent un fonds privé où puise la rédaction : {sources}.",
    bodies_kept: "Les pages récupérées ne sont gardées que pour être traitées, {duration} au plus.",
    bodies_zero: "Les pages récupérées sont supprimées dès que les faits en ont été extraits.",
    samples_on: "Quelques pages sont conservées comme échantillons de test pour nos analyseurs ; sur simple demande, votre site en est exclu.",
    samples_off: "Aucune page n'est conservée comme échantillon de test.",
    events_after: "Les événements sont supprimés {duration} après leur fin.",
    audit_kept: "Le journal de nos propres requêtes est conservé {duration}.",
    removal_keeps: "Sur demande de retrait, les événements, descriptions, adresses d'images, traductions et pages conservées de votre site sont supprimés immédiatement. Seules restent les traces des requêtes de gleaner lui-même : le journal des requêtes et les copies datées de votre robots.txt.",
    h_crawl: "Comment il parcourt les sites",
    crawl_intro: "Ces limites sont celles que le programme applique : cette page les lit dans sa configuration, elle ne les recopie pas. Un seul budget par site est partagé par tous les usages et toutes les sources.",
    conditional: "Il envoie des requêtes conditionnelles (If-None-Match, If-Modified-Since) : une page qui n'a pas changé n'est pas téléchargée de nouveau, et compte comme vérifiée.",
    crawl_delay: "Un Crawl-delay ou un Request-rate demandant plus de temps entre deux requêtes que son propre espacement est respecté, et aucune requête autre que robots.txt ne commence hors d'une fenêtre Visit-time (UTC) : ils ne peuvent que le ralentir.",
    row: RowLabels {
        user_agent: "User-Agent",
        token: "Nom de produit dans robots.txt",
        gap: "Délai entre deux requêtes vers un même site (tous usages)",
        in_flight: "Requêtes ouvertes en même temps vers un site",
        daily_cap: "Requêtes par jour, tous sites confondus",
        retry_default: "Après un 429 ou un 503 sans Retry-After exploitable",
        retry_default_value: "tout le site est mis en pause pendant {duration}",
        retry_cap: "Pause la plus longue qu'un Retry-After peut demander",
        retries: "Nouvelles tentatives après un 429 ou un 5xx (une fois la pause terminée)",
        unreachable_tries: "Tentatives quand un site est injoignable (sur environ une minute)",
        failure_streak: "Échecs de visite d'affilée avant qu'une source ne soit plus tentée qu'une fois par jour",
        run_time_limit: "Durée maximale d'un passage (le reste attend le suivant)",
        block: "Après un 401 ou un 403 sur une page",
        block_value: "le site est laissé tranquille pendant {duration}",
        connect_timeout: "Délai de connexion",
        deadline: "Délai maximal pour une réponse complète",
        max_body: "Plus gros document lu",
        max_body_value: "{size} ; au-delà, le document est abandonné",
        redirects: "Redirections suivies (chacune contrôlée comme une nouvelle requête)",
        robots_ttl: "robots.txt relu au moins toutes les",
        robots_unauthorized: "robots.txt répondant 401 ou 403",
        robots_unauthorized_allow: "considéré comme sans restriction (RFC 9309)",
        robots_unauthorized_block: "considéré comme un refus : rien n'est lu",
        robots_unreachable: "robots.txt répondant 429 ou 5xx, ou injoignable",
        robots_unreachable_value: "rien d'autre n'est lu sur le site tant qu'il ne peut pas être relu",
        source_interval: "Visite la plus fréquente d'une source",
        shared_by: "Qui partage ces limites",
        shared_by_deployment: "tous les processus de ce déploiement : une seule limite par site, quel que soit le nombre de workers",
        shared_by_copies: "tous les processus de ce déploiement et des autres copies de ce robot qui partagent son espace de politesse (une copie de préproduction, par exemple) : ensemble, une seule limite par site",
        every: "une fois toutes les {duration}",
        purpose_gap: "Délai entre requêtes : {purpose}",
        purpose_jitter: "Attente aléatoire supplémentaire : {purpose}",
        range: "de {min} à {max}",
        purpose_in_flight: "Requêtes ouvertes en même temps : {purpose}",
        class: "Sites de la catégorie « {class} »",
        class_zone: "fuseau horaire {zone}",
        class_gap: "{duration} entre deux requêtes",
        class_in_flight: "{n} requête(s) ouverte(s) à la fois",
        class_quiet: "aucune requête ne commence entre {windows}, heure locale",
        class_per_pass: "au plus {n} requêtes par passage, pagination comprise",
        class_per_hour: "{n} par heure",
        class_per_day: "{n} par jour",
        class_visits: "{n} passages par jour",
        class_pass_interval: "au plus un passage toutes les {duration}",
    },
    h_rights: "Signaux de droits respectés",
    rights_on: "Il lit TDMRep (/.well-known/tdmrep.json et l'en-tête tdm-reservation), /ai.txt, ainsi que noai, noimageai et noml dans X-Robots-Tag, Robots-Tag et les balises meta robots ; il respecte aussi noindex, nofollow, noarchive, nosnippet et noimageindex.",
    rights_stop_site: "N'importe laquelle de ces réserves l'empêche de lire votre site.",
    rights_per_purpose: "Une réserve arrête les usages qu'elle nomme : conservation des descriptions, images, usage par un modèle de langage, traduction.",
    rights_off: "Cette installation ne lit pas d'autres signaux de droits que robots.txt et les balises meta robots.",
    rights_prefs: "Il lit les préférences d'usage par l'IA : Content-Usage (IETF AI Preferences) et Content-Signal, comme règles du groupe de robots.txt qui s'applique à lui (le chemin correspondant le plus long l'emporte) et comme en-têtes de réponse ; la réponse la plus restrictive l'emporte. search=no exclut les événements d'une page de ce qu'il publie ; ai-input=no (Content-Usage : ai-use=n, l'étiquette la plus proche) tient la page à l'écart de son modèle de langage et de la traduction. Il n'entraîne jamais de modèle sur ce qu'il lit : train-ai et ai-train ne changent donc rien à ce qu'il fait. gleaner explain et le journal d'audit nomment la ligne de robots.txt ou l'en-tête qui a décidé.",
    prefs_label: "Préférences d'usage par l'IA",
    prefs_value: "search=no : événements non publiés ; ai-input=no : ni envoyé au modèle de langage ni traduit ; aucun modèle n'est jamais entraîné",
    rights_files: "Il lit /.well-known/tdmrep.json et /ai.txt après robots.txt (jamais si robots.txt les interdit) et les relit toutes les {ttl}.",
    relay_rules: "Les images des événements sont montrées aux visiteurs par le relais d'images de gleaner, seulement si les conditions de la source et vos signaux le permettent : récupérées à la demande d'un visiteur, une requête à la fois par hôte et à au moins {gap} d'intervalle (au plus {queue} visiteurs attendent, les autres sont priés de revenir), gardées en mémoire seulement, au plus {max_age} et moins si votre Cache-Control le dit (rien pour no-store ou private), revalidées par une requête conditionnelle, jamais plus de {cap} au total ni {image_cap} par image ; un échec n'est pas retenté avant {backoff} ; PNG, JPEG, GIF et WebP uniquement. Un retrait l'arrête immédiatement.",
    h_licensed: "API sous licence",
    licensed_some: "Ces sources sont des API sous licence, lues en vertu d'un contrat avec leur fournisseur : {sources}. Elles ne passent pas par robots.txt, mais respectent leurs propres limites de débit et notre espacement.",
    licensed_none: "Il n'utilise aucune API sous licence : chaque source respecte robots.txt.",
    h_models: "Modèles de langage et traduction",
    translate_some: "Les titres et descriptions de ces sources sont traduits en anglais, et l'original est conservé : {sources}.",
    translate_none: "Rien n'est traduit.",
    models_some: "Un modèle de langage est utilisé via ces services : {endpoints}.",
    models_none: "Aucun modèle de langage ne lit vos pages.",
    models_sources: "Un modèle de langage lit les pages de ces sources lorsqu'elles n'ont pas de données structurées, et seuls les faits qu'il peut situer dans la page sont conservés : {sources}. Une page ou un site qui réserve l'usage par l'IA (noai, TDMRep, ai.txt) n'est jamais envoyé à un modèle.",
    h_block: "Comment le bloquer",
    block_site: "Pour l'écarter de tout votre site, ajoutez ces lignes à votre robots.txt :",
    block_path: "Pour l'écarter d'une partie de votre site seulement :",
    block_delay: "Il relit robots.txt dans un délai de {ttl} au plus, puis s'arrête aussitôt.",
    h_ask: "Demander un retrait, un ralentissement ou les faits seulement",
    ask_line: "Écrivez à {contact} en indiquant le site ; nous pouvons :",
    ask_kinds: [
        "retirer immédiatement les événements de votre site et tout ce qui en a été conservé ;",
        "ralentir sur votre site du facteur de votre choix, ou faire une pause jusqu'à une date ;",
        "ne garder que les faits (les descriptions, images et traductions conservées sont alors supprimées) ;",
        "cesser complètement de lire votre site.",
    ],
    footer: "Page générée à partir de la configuration en service de {token}.",
    days: "jours",
    day: "jour",
    and: "et",
};

static ES: Messages = Messages {
    title: "Acerca de {token}",
    intro: "{token} es el rastreador web de {operator}. Lee listados públicos de eventos para que la gente pueda saber qué hay en su ciudad; cada evento que mostramos enlaza a la página de la que se leyó.",
    other_languages: "Esta página en otros idiomas:",
    h_who: "Quién lo gestiona y cómo contactarnos",
    operator_line: "{token} lo gestiona {operator}.",
    contact_line: "Contacto: {contact}",
    no_contact_line: "Su User-Agent no lleva ninguna dirección de correo; puede contactarnos a través de {info_url}.",
    address_line: "Dirección postal: {address}",
    h_recognise: "Cómo reconocerlo y verificarlo",
    ua_line: "Cada solicitud lleva este User-Agent, nunca otro, y nunca se hace pasar por un navegador:",
    token_line: "En robots.txt sigue el grupo escrito para el nombre de producto {token} (sin distinguir mayúsculas de minúsculas); si no lo hay, el grupo *.",
    verify_line: "Para comprobar que una solicitud viene realmente de nosotros, compare su User-Agent con la línea de arriba y escríbanos con la hora y la dirección de origen: cada solicitud que hacemos queda en nuestro registro, con la regla que la permitió.",
    manual_line: "Nuestro equipo a veces revisa una página a mano con el mismo User-Agent. Respeta el mismo robots.txt, envía como máximo {n} solicitudes de este tipo por sitio y por día, y espera al menos {gap} entre ellas.",
    h_reads: "Qué lee",
    reads_line: "Primero robots.txt, antes que cualquier otra cosa de un sitio; después solo: {purposes}.",
    methods_get: "Solo envía solicitudes GET.",
    methods_get_head: "Envía solicitudes GET, y HEAD cuando basta con una comprobación rápida.",
    h_never: "Qué no hace nunca",
    never: [
        "Nunca inicia sesión, rellena formularios, ejecuta JavaScript ni resuelve CAPTCHA; una página de verificación cuenta como una negativa.",
        "No envía cookies ni Referer.",
        "Mientras no puede leer el robots.txt de un sitio, no lee nada más de ese sitio.",
        "Nunca sigue una redirección sin consultar antes el robots.txt del nuevo sitio.",
    ],
    h_keeps: "Qué guarda y durante cuánto tiempo",
    keep_facts: "De cada evento guarda los datos básicos: título, fecha y hora, lugar y dirección, precio (o si es gratuito), enlaces de entradas, estado, la dirección de la página de la que se leyó y una categoría propia.",
    keep_full: "De estas fuentes guarda también la descripción y la dirección de la imagen: {sources}. De todas las demás, solo los datos básicos.",
    keep_full_none: "No guarda descripciones ni imágenes de ninguna fuente: solo los datos básicos.",
    private_some: "Los eventos de estas fuentes nunca se publican tal cual: van a un fondo privado del que se nutre la redacción: {sources}.",
    bodies_kept: "Las páginas descargadas solo se guardan para procesarlas, {duration} como máximo.",
    bodies_zero: "Las páginas descargadas se borran en cuanto se han leído sus datos.",
    samples_on: "Algunas páginas se guardan como muestras de prueba para nuestros analizadores; si lo pide, excluimos su sitio.",
    samples_off: "Ninguna página se guarda como muestra de prueba.",
    events_after: "Los eventos se borran {duration} después de terminar.",
    audit_kept: "El registro de nuestras propias solicitudes se guarda durante {duration}.",
    removal_keeps: "Si pide la retirada, los eventos, descripciones, direcciones de imágenes, traducciones y páginas guardadas de su sitio se borran en el acto. Solo quedan los registros de las solicitudes de gleaner: el registro de solicitudes y las copias fechadas de su robots.txt.",
    h_crawl: "Cómo rastrea",
    crawl_intro: "Estos límites son los que aplica el programa: esta página los lee de su configuración, no los copia. Todos los usos y todas las fuentes comparten un único presupuesto por sitio.",
    conditional: "Envía solicitudes condicionales (If-None-Match, If-Modified-Since): una página que no ha cambiado no se vuelve a descargar y cuenta como comprobada.",
    crawl_delay: "Respeta un Crawl-delay o un Request-rate que pida más tiempo entre peticiones que su propio espaciado, y ninguna petición salvo robots.txt empieza fuera de una ventana Visit-time (UTC): solo pueden hacerlo más lento.",
    row: RowLabels {
        user_agent: "User-Agent",
        token: "Nombre de producto en robots.txt",
        gap: "Tiempo entre dos solicitudes a un mismo sitio (cualquier uso)",
        in_flight: "Solicitudes abiertas a la vez a un sitio",
        daily_cap: "Solicitudes por día, todos los sitios juntos",
        retry_default: "Tras un 429 o 503 sin un Retry-After utilizable",
        retry_default_value: "se pausa todo el sitio durante {duration}",
        retry_cap: "Pausa más larga que puede pedir un Retry-After",
        retries: "Reintentos tras un 429 o 5xx (solo cuando termina la pausa)",
        unreachable_tries: "Intentos cuando un sitio no responde (en un minuto aproximadamente)",
        failure_streak: "Visitas fallidas seguidas antes de que una fuente se intente como máximo una vez al día",
        run_time_limit: "Duración máxima de una pasada (el resto espera a la siguiente)",
        block: "Tras un 401 o 403 en una página",
        block_value: "se deja el sitio en paz durante {duration}",
        connect_timeout: "Tiempo máximo de conexión",
        deadline: "Tiempo máximo para una respuesta completa",
        max_body: "Documento más grande que lee",
        max_body_value: "{size}; los mayores se abandonan",
        redirects: "Redirecciones seguidas (cada una se comprueba como una solicitud nueva)",
        robots_ttl: "robots.txt se vuelve a leer como mínimo cada",
        robots_unauthorized: "robots.txt que responde 401 o 403",
        robots_unauthorized_allow: "se trata como sin restricciones (RFC 9309)",
        robots_unauthorized_block: "se trata como una negativa: no se lee nada",
        robots_unreachable: "robots.txt que responde 429 o 5xx, o inaccesible",
        robots_unreachable_value: "no se lee nada más del sitio hasta poder leerlo de nuevo",
        source_interval: "Visita más frecuente a una fuente",
        shared_by: "Quién comparte estos límites",
        shared_by_deployment: "todos los procesos de este despliegue: un solo límite por sitio, sean cuantos sean los workers",
        shared_by_copies: "todos los procesos de este despliegue y de las demás copias de este robot que comparten su espacio de cortesía (una copia de pruebas, por ejemplo): juntos, un solo límite por sitio",
        every: "una vez cada {duration}",
        purpose_gap: "Tiempo entre solicitudes: {purpose}",
        purpose_jitter: "Espera adicional aleatoria: {purpose}",
        range: "de {min} a {max}",
        purpose_in_flight: "Solicitudes abiertas a la vez: {purpose}",
        class: "Sitios de la clase «{class}»",
        class_zone: "zona horaria {zone}",
        class_gap: "{duration} entre solicitudes",
        class_in_flight: "{n} solicitud(es) abiertas a la vez",
        class_quiet: "ninguna solicitud empieza entre {windows}, hora local",
        class_per_pass: "como máximo {n} solicitudes por visita, paginación incluida",
        class_per_hour: "{n} por hora",
        class_per_day: "{n} por día",
        class_visits: "{n} visitas por día",
        class_pass_interval: "como máximo una visita cada {duration}",
    },
    h_rights: "Señales de derechos que respeta",
    rights_on: "Lee TDMRep (/.well-known/tdmrep.json y la cabecera tdm-reservation), /ai.txt, y noai, noimageai y noml en X-Robots-Tag, Robots-Tag y en las etiquetas meta robots; también respeta noindex, nofollow, noarchive, nosnippet y noimageindex.",
    rights_stop_site: "Cualquiera de estas reservas hace que deje de leer su sitio.",
    rights_per_purpose: "Una reserva detiene los usos que nombra: guardar descripciones, imágenes, uso por un modelo de lenguaje, traducción.",
    rights_off: "Esta instalación no lee más señales de derechos que robots.txt y las etiquetas meta robots.",
    rights_prefs: "Lee las preferencias de uso por IA: Content-Usage (IETF AI Preferences) y Content-Signal, como reglas del grupo de robots.txt que se le aplica (gana la ruta coincidente más larga) y como cabeceras de respuesta; gana la respuesta más restrictiva. search=no deja los eventos de una página fuera de lo que publica; ai-input=no (Content-Usage: ai-use=n, la etiqueta más cercana) mantiene la página lejos de su modelo de lenguaje y de la traducción. Nunca entrena un modelo con nada de lo que lee, así que train-ai y ai-train no cambian nada de lo que hace. gleaner explain y el registro de auditoría nombran la línea de robots.txt o la cabecera que decidió.",
    prefs_label: "Preferencias de uso por IA",
    prefs_value: "search=no: eventos no publicados; ai-input=no: ni enviado al modelo de lenguaje ni traducido; nunca se entrena un modelo",
    rights_files: "Lee /.well-known/tdmrep.json y /ai.txt después de robots.txt (nunca si robots.txt los prohíbe) y los vuelve a leer cada {ttl}.",
    relay_rules: "Las imágenes de los eventos se muestran a los visitantes a través del relé de imágenes de gleaner, solo donde las condiciones de la fuente y sus señales lo permiten: se piden cuando un visitante las pide, una petición a la vez por servidor y al menos con {gap} de separación (esperan como mucho {queue} visitantes; a los demás se les pide volver), se guardan solo en memoria, como mucho {max_age} y menos si su Cache-Control lo indica (nada con no-store o private), se revalidan con una petición condicional, nunca más de {cap} en total ni {image_cap} por imagen; un fallo no se reintenta durante {backoff}; solo PNG, JPEG, GIF y WebP. Una retirada lo detiene al instante.",
    h_licensed: "API con licencia",
    licensed_some: "Estas fuentes son API con licencia, leídas en virtud de un contrato con su proveedor: {sources}. No pasan por robots.txt, pero respetan sus propios límites de frecuencia y nuestro espaciado.",
    licensed_none: "No usa ninguna API con licencia: todas las fuentes respetan robots.txt.",
    h_models: "Modelos de lenguaje y traducción",
    translate_some: "Los títulos y descripciones de estas fuentes se traducen al inglés, y se guarda el original: {sources}.",
    translate_none: "No se traduce nada.",
    models_some: "Se usa un modelo de lenguaje a través de estos servicios: {endpoints}.",
    models_none: "Ningún modelo de lenguaje lee sus páginas.",
    models_sources: "Un modelo de lenguaje lee las páginas de estas fuentes cuando no tienen datos estructurados, y solo se guardan los datos que puede señalar en la página: {sources}. Una página o un sitio que reserva el uso por IA (noai, TDMRep, ai.txt) nunca se envía a un modelo.",
    h_block: "Cómo bloquearlo",
    block_site: "Para mantenerlo fuera de todo su sitio, añada estas líneas a su robots.txt:",
    block_path: "Para mantenerlo fuera solo de una parte de su sitio:",
    block_delay: "Vuelve a leer robots.txt en {ttl} como máximo y se detiene en el acto.",
    h_ask: "Cómo pedir la retirada, que vaya más despacio o solo datos básicos",
    ask_line: "Escriba a {contact} indicando el sitio, y podemos:",
    ask_kinds: [
        "retirar en el acto los eventos de su sitio y todo lo guardado de él;",
        "ir más despacio en su sitio según el factor que elija, o hacer una pausa hasta una fecha;",
        "guardar solo los datos básicos (se borran también las descripciones, imágenes y traducciones guardadas);",
        "dejar de leer su sitio por completo.",
    ],
    footer: "Generada a partir de la configuración en uso de {token}.",
    days: "días",
    day: "día",
    and: "y",
};

static DE: Messages = Messages {
    title: "Über {token}",
    intro: "{token} ist der Webcrawler von {operator}. Er liest öffentliche Veranstaltungslisten, damit Menschen finden, was in ihrer Stadt los ist; jede Veranstaltung, die wir zeigen, verlinkt auf die Seite, von der sie gelesen wurde.",
    other_languages: "Diese Seite in anderen Sprachen:",
    h_who: "Wer ihn betreibt und wie Sie uns erreichen",
    operator_line: "{token} wird betrieben von {operator}.",
    contact_line: "Kontakt: {contact}",
    no_contact_line: "Sein User-Agent enthält keine E-Mail-Adresse; Sie erreichen uns über {info_url}.",
    address_line: "Postanschrift: {address}",
    h_recognise: "Wie Sie ihn erkennen und überprüfen",
    ua_line: "Jede Anfrage trägt diesen User-Agent, nie einen anderen, und er gibt sich nie als Browser aus:",
    token_line: "In der robots.txt befolgt er die Gruppe für den Produktnamen {token} (ohne Beachtung von Groß- und Kleinschreibung); gibt es keine, die Gruppe für *.",
    verify_line: "Um zu prüfen, ob eine Anfrage wirklich von uns kam, vergleichen Sie ihren User-Agent mit der Zeile oben und schreiben Sie uns Uhrzeit und Absenderadresse: Jede unserer Anfragen steht in unserem Anfrageprotokoll, mit der Regel, die sie erlaubt hat.",
    manual_line: "Unser Team prüft eine Seite manchmal von Hand mit demselben User-Agent. Es befolgt dieselbe robots.txt, sendet höchstens {n} solcher Anfragen pro Website und Tag und wartet mindestens {gap} dazwischen.",
    h_reads: "Was er liest",
    reads_line: "Zuerst die robots.txt, vor allem anderen auf einer Website; danach nur: {purposes}.",
    methods_get: "Er sendet nur GET-Anfragen.",
    methods_get_head: "Er sendet GET-Anfragen und HEAD-Anfragen, wo eine kurze Prüfung genügt.",
    h_never: "Was er nie tut",
    never: [
        "Er meldet sich nie an, füllt keine Formulare aus, führt kein JavaScript aus und löst keine CAPTCHAs; eine Prüfseite gilt als Ablehnung.",
        "Er sendet keine Cookies und keinen Referer.",
        "Solange die robots.txt einer Website nicht lesbar ist, liest er nichts anderes von dieser Website.",
        "Er folgt keiner Weiterleitung, ohne vorher die robots.txt der neuen Website zu prüfen.",
    ],
    h_keeps: "Was er speichert und wie lange",
    keep_facts: "Von jeder Veranstaltung speichert er die Fakten: Titel, Datum und Uhrzeit, Ort und Adresse, Preis (oder dass sie kostenlos ist), Ticket-Links, Status, die Adresse der Seite, von der sie gelesen wurde, und eine eigene Kategorie.",
    keep_full: "Von diesen Quellen speichert er auch die Beschreibung und die Bildadresse: {sources}. Von allen anderen nur die Fakten.",
    keep_full_none: "Von keiner Quelle speichert er Beschreibungen oder Bilder: nur die Fakten.",
    private_some: "Veranstaltungen aus diesen Quellen werden nie unverändert veröffentlicht: Sie gehen in einen privaten Pool, aus dem die Redaktion schöpft: {sources}.",
    bodies_kept: "Abgerufene Seiten werden nur zur Verarbeitung aufbewahrt, höchstens {duration}.",
    bodies_zero: "Abgerufene Seiten werden gelöscht, sobald die Fakten daraus gelesen sind.",
    samples_on: "Einige Seiten werden als Testbeispiele für unsere Parser aufbewahrt; auf Wunsch nehmen wir Ihre Website davon aus.",
    samples_off: "Keine Seite wird als Testbeispiel aufbewahrt.",
    events_after: "Veranstaltungen werden {duration} nach ihrem Ende gelöscht.",
    audit_kept: "Das Protokoll unserer eigenen Anfragen wird {duration} lang aufbewahrt.",
    removal_keeps: "Wenn Sie die Entfernung verlangen, werden die Veranstaltungen, Beschreibungen, Bildadressen, Übersetzungen und gespeicherten Seiten Ihrer Website sofort gelöscht. Es bleiben nur die Aufzeichnungen über gleaners eigene Anfragen: das Anfrageprotokoll und die datierten Kopien Ihrer robots.txt.",
    h_crawl: "Wie er crawlt",
    crawl_intro: "Diese Grenzen wendet das Programm an: Diese Seite liest sie aus seiner Konfiguration, sie schreibt sie nicht ab. Alle Zwecke und alle Quellen teilen sich ein Budget pro Website.",
    conditional: "Er sendet bedingte Anfragen (If-None-Match, If-Modified-Since): Eine unveränderte Seite wird nicht erneut heruntergeladen und gilt als geprüft.",
    crawl_delay: "Ein Crawl-delay oder eine Request-rate, die mehr Zeit zwischen Anfragen verlangt als sein eigener Abstand, wird befolgt, und außer robots.txt beginnt keine Anfrage außerhalb eines Visit-time-Fensters (UTC): Sie können ihn nur langsamer machen.",
    row: RowLabels {
        user_agent: "User-Agent",
        token: "Produktname in der robots.txt",
        gap: "Abstand zwischen zwei Anfragen an eine Website (jeder Zweck)",
        in_flight: "Gleichzeitig offene Anfragen an eine Website",
        daily_cap: "Anfragen pro Tag, alle Websites zusammen",
        retry_default: "Nach 429 oder 503 ohne brauchbares Retry-After",
        retry_default_value: "die ganze Website pausiert {duration}",
        retry_cap: "Längste Pause, die ein Retry-After verlangen kann",
        retries: "Wiederholungen nach 429 oder 5xx (erst nach Ende der Pause)",
        unreachable_tries: "Versuche, wenn eine Website nicht erreichbar ist (über etwa eine Minute)",
        failure_streak: "Fehlgeschlagene Besuche in Folge, bevor eine Quelle höchstens einmal täglich versucht wird",
        run_time_limit: "Längster Durchlauf (der Rest wartet auf den nächsten)",
        block: "Nach 401 oder 403 auf einer Seite",
        block_value: "die Website bleibt {duration} unberührt",
        connect_timeout: "Zeitlimit für den Verbindungsaufbau",
        deadline: "Zeitlimit für eine ganze Antwort",
        max_body: "Größtes gelesenes Dokument",
        max_body_value: "{size}; größere werden verworfen",
        redirects: "Verfolgte Weiterleitungen (jede wie eine neue Anfrage geprüft)",
        robots_ttl: "robots.txt wird spätestens neu gelesen nach",
        robots_unauthorized: "robots.txt antwortet mit 401 oder 403",
        robots_unauthorized_allow: "gilt als ohne Einschränkungen (RFC 9309)",
        robots_unauthorized_block: "gilt als Ablehnung: nichts wird gelesen",
        robots_unreachable: "robots.txt antwortet mit 429 oder 5xx oder ist nicht erreichbar",
        robots_unreachable_value: "nichts anderes wird von der Website gelesen, bis sie wieder lesbar ist",
        source_interval: "Häufigster Besuch einer Quelle",
        shared_by: "Wer sich diese Grenzen teilt",
        shared_by_deployment: "alle Prozesse dieser Installation: ein Budget pro Site, egal wie viele Worker laufen",
        shared_by_copies: "alle Prozesse dieser Installation und der anderen Kopien dieses Bots, die ihren Höflichkeits-Namensraum teilen (etwa eine Staging-Kopie): zusammen ein Budget pro Site",
        every: "einmal alle {duration}",
        purpose_gap: "Abstand zwischen Anfragen: {purpose}",
        purpose_jitter: "Zufällige zusätzliche Wartezeit: {purpose}",
        range: "{min} bis {max}",
        purpose_in_flight: "Gleichzeitig offene Anfragen: {purpose}",
        class: "Websites der Klasse „{class}“",
        class_zone: "Zeitzone {zone}",
        class_gap: "{duration} zwischen Anfragen",
        class_in_flight: "{n} gleichzeitig offene Anfrage(n)",
        class_quiet: "keine Anfrage beginnt zwischen {windows} Ortszeit",
        class_per_pass: "höchstens {n} Anfragen pro Besuch, Seitenumbrüche eingeschlossen",
        class_per_hour: "{n} pro Stunde",
        class_per_day: "{n} pro Tag",
        class_visits: "{n} Besuche pro Tag",
        class_pass_interval: "höchstens ein Besuch alle {duration}",
    },
    h_rights: "Rechtesignale, die er beachtet",
    rights_on: "Er liest TDMRep (/.well-known/tdmrep.json und den Header tdm-reservation), /ai.txt sowie noai, noimageai und noml in X-Robots-Tag, Robots-Tag und robots-Meta-Tags; auch noindex, nofollow, noarchive, nosnippet und noimageindex werden befolgt.",
    rights_stop_site: "Jeder dieser Vorbehalte hält ihn davon ab, Ihre Website zu lesen.",
    rights_per_purpose: "Ein Vorbehalt stoppt die Nutzungen, die er nennt: Beschreibungen speichern, Bilder, Nutzung durch ein Sprachmodell, Übersetzung.",
    rights_off: "Diese Installation liest keine Rechtesignale außer robots.txt und robots-Meta-Tags.",
    rights_prefs: "Er liest KI-Nutzungspräferenzen: Content-Usage (IETF AI Preferences) und Content-Signal, als Regeln der robots.txt-Gruppe, die für ihn gilt (der längste passende Pfad gewinnt), und als Antwort-Header; die restriktivste Antwort gilt. search=no hält die Veranstaltungen einer Seite aus dem heraus, was er veröffentlicht; ai-input=no (Content-Usage: ai-use=n, das nächstliegende Label) hält die Seite von seinem Sprachmodell und von der Übersetzung fern. Er trainiert nie ein Modell mit dem, was er liest; train-ai und ai-train ändern daher nichts an dem, was er tut. gleaner explain und das Audit-Protokoll nennen die robots.txt-Zeile oder den Header, der entschieden hat.",
    prefs_label: "KI-Nutzungspräferenzen",
    prefs_value: "search=no: Veranstaltungen nicht veröffentlicht; ai-input=no: weder an das Sprachmodell gesendet noch übersetzt; nie wird ein Modell trainiert",
    rights_files: "Er liest /.well-known/tdmrep.json und /ai.txt nach robots.txt (nie, wenn robots.txt sie verbietet) und liest sie alle {ttl} neu.",
    relay_rules: "Bilder von Veranstaltungen werden Besuchern über gleaners Bild-Relay gezeigt, nur wo die Bedingungen der Quelle und Ihre Signale es erlauben: abgerufen, wenn ein Besucher fragt, eine Anfrage zur Zeit pro Host und mindestens {gap} Abstand (höchstens {queue} Besucher warten, die anderen werden gebeten, wiederzukommen), nur im Arbeitsspeicher gehalten, höchstens {max_age} und kürzer, wenn Ihr Cache-Control es sagt (nichts bei no-store oder private), mit einer bedingten Anfrage neu geprüft, nie mehr als {cap} insgesamt und {image_cap} pro Bild; ein fehlgeschlagener Abruf wird {backoff} lang nicht wiederholt; nur PNG, JPEG, GIF und WebP. Eine Entfernung stoppt es sofort.",
    h_licensed: "Lizenzierte APIs",
    licensed_some: "Diese Quellen sind lizenzierte APIs, die aufgrund eines Vertrags mit ihrem Anbieter gelesen werden: {sources}. Für sie gilt nicht die robots.txt, wohl aber ihre eigenen Ratenlimits und unser Abstand.",
    licensed_none: "Er nutzt keine lizenzierte API: Jede Quelle befolgt die robots.txt.",
    h_models: "Sprachmodelle und Übersetzung",
    translate_some: "Titel und Beschreibungen dieser Quellen werden ins Englische übersetzt, das Original bleibt erhalten: {sources}.",
    translate_none: "Nichts wird übersetzt.",
    models_some: "Über diese Dienste wird ein Sprachmodell genutzt: {endpoints}.",
    models_none: "Kein Sprachmodell liest Ihre Seiten.",
    models_sources: "Ein Sprachmodell liest die Seiten dieser Quellen, wenn sie keine strukturierten Daten enthalten; gespeichert werden nur Angaben, die es in der Seite belegen kann: {sources}. Eine Seite oder Website, die die KI-Nutzung vorbehält (noai, TDMRep, ai.txt), wird nie an ein Modell geschickt.",
    h_block: "Wie Sie ihn sperren",
    block_site: "Um ihn von Ihrer ganzen Website fernzuhalten, fügen Sie diese Zeilen in Ihre robots.txt ein:",
    block_path: "Um ihn nur von einem Teil Ihrer Website fernzuhalten:",
    block_delay: "Er liest die robots.txt spätestens nach {ttl} neu und hört dann sofort auf.",
    h_ask: "Entfernung, Verlangsamung oder nur Fakten verlangen",
    ask_line: "Schreiben Sie an {contact} und nennen Sie die Website; wir können:",
    ask_kinds: [
        "die Veranstaltungen Ihrer Website und alles davon Gespeicherte sofort entfernen;",
        "auf Ihrer Website um einen Faktor Ihrer Wahl langsamer werden oder bis zu einem Datum pausieren;",
        "nur die Fakten speichern (gespeicherte Beschreibungen, Bilder und Übersetzungen werden dann gelöscht);",
        "Ihre Website gar nicht mehr lesen.",
    ],
    footer: "Erzeugt aus der laufenden Konfiguration von {token}.",
    days: "Tage",
    day: "Tag",
    and: "und",
};
