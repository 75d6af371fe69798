//! The about page's promises beyond the politeness table (issue 25), and the promise
//! ledger that ties every stated fact to the setting it reads and the test that checks
//! it from the sites' side.
//!
//! [`section`] states what the configuration sets about checks and answers: the
//! cancellation check (cadence, horizon, methods, how many at once as the gate allows
//! it, what 404/410 does), the 4xx policy, what a robots.txt 404/4xx means, how often
//! sources are read (summarised), licensed APIs by site and terms, and the sites read
//! (their domains, never source ids). Numbers come from [`Settings`]; the words from
//! [`Words`], one table per language.
//!
//! [`LEDGER`] is the promise ledger: one row per fact key of the page (the politeness
//! table's rows and this section's), with the setting it reads and a [`Check`]: a
//! behaviour and the test that checks it from the sites' side, or a statement of who
//! and where (service, legal entity, publication director, origin) and the test that
//! checks the page states it. A unit test fails when a fact of any seed profile's page
//! has no row, or a row names a test that does not exist.

use std::collections::BTreeMap;
use std::time::Duration;

use gleaner_config::Settings;
use gleaner_config::sources::{Schedule, SourceKind};
use gleaner_policy::Purpose;

use crate::about::{Block, Fact, Section, words_in};
use crate::i18n::{Lang, fill};

/// The sentences of the promises section in one language.
#[derive(Debug)]
pub struct Words {
    /// Heading.
    pub heading: &'static str,
    /// Label: the cancellation check.
    pub checks: &'static str,
    /// Value: `{every}`, `{days}`, `{methods}`, `{n}`.
    pub checks_value: &'static str,
    /// Value when the check is off.
    pub checks_off: &'static str,
    /// Methods: HEAD first.
    pub head_then_get: &'static str,
    /// Methods: GET only.
    pub get_only: &'static str,
    /// Label: 404 and 410.
    pub gone: &'static str,
    /// Value: 404 and 410.
    pub gone_value: &'static str,
    /// Label: other 4xx.
    pub other_4xx: &'static str,
    /// Value: other 4xx.
    pub other_4xx_value: &'static str,
    /// Label: robots.txt 404/4xx.
    pub robots_4xx: &'static str,
    /// Value: robots.txt 404/4xx.
    pub robots_4xx_value: &'static str,
    /// Label: how often sources are read.
    pub cadence: &'static str,
    /// Value: `{most}`, `{count}`, `{total}`, `{min}`.
    pub cadence_value: &'static str,
    /// Label: licensed APIs.
    pub licensed: &'static str,
    /// One licensed API: `{site}`, `{gap}`.
    pub licensed_item: &'static str,
    /// Its terms: `{terms}`.
    pub licensed_terms: &'static str,
    /// Label: sites read.
    pub sites: &'static str,
    /// Value when no source is configured.
    pub none: &'static str,
    /// Label: what the service is.
    pub service: &'static str,
    /// Label: the legal entity responsible.
    pub legal_entity: &'static str,
    /// Label: the publication director.
    pub director: &'static str,
    /// Label: where requests come from.
    pub origin: &'static str,
    /// Published ranges: `{ranges}`.
    pub ranges: &'static str,
    /// No published range.
    pub no_ranges: &'static str,
    /// The machine-readable list: `{url}`.
    pub ranges_json: &'static str,
    /// The reverse-then-forward DNS check: `{domain}`.
    pub reverse_dns: &'static str,
    /// Label: how soon a removal is carried out.
    pub removal: &'static str,
    /// Value: `{duration}`.
    pub removal_value: &'static str,
    /// Label: signed requests.
    pub signed: &'static str,
    /// Value: `{keyids}`, `{directory}`.
    pub signed_value: &'static str,
}

const EN: Words = Words {
    heading: "What it checks and how it answers",
    checks: "Cancellation check",
    checks_value: "every {every}, the events from today to {days} days ahead: {methods}, at most {n} at a time per site",
    checks_off: "not run",
    head_then_get: "HEAD first, then GET only for a page that changed",
    get_only: "GET only",
    gone: "A page answering 404 or 410",
    gone_value: "its event is marked gone at source (never shown as cancelled)",
    other_4xx: "Other 4xx answers (not 401, 403, 404, 410 or 429)",
    other_4xx_value: "not retried",
    robots_4xx: "robots.txt answering 404 or another 4xx (not 401, 403 or 429)",
    robots_4xx_value: "no restrictions (RFC 9309)",
    cadence: "How often sources are read",
    cadence_value: "most sources every {most} ({count} of {total}); none more often than once every {min}",
    licensed: "Licensed APIs (read under their licence, not robots.txt)",
    licensed_item: "{site}, at most one request every {gap}",
    licensed_terms: "terms: {terms}",
    sites: "Sites read",
    none: "none",
    service: "What the service is",
    legal_entity: "Legally responsible",
    director: "Publication director",
    origin: "Where requests come from",
    ranges: "published address ranges: {ranges}",
    no_ranges: "no fixed address range is published",
    ranges_json: "the same list as JSON, in the schema large crawlers use: {url}",
    reverse_dns: "to check an address: reverse-resolve it (PTR); the name must end in {domain}; then resolve that name forward (A/AAAA): it must give the same address back. An address that fails either step is not ours",
    removal: "Removal requests",
    removal_value: "carried out within {duration}",
    signed: "Signed requests (Web Bot Auth)",
    signed_value: "every request carries an HTTP Message Signature (RFC 9421, Ed25519) covering @authority and Signature-Agent, valid at most 60 s; key id {keyids}; public keys at {directory}. To verify a request: fetch that directory, take the key whose kid equals the keyid in Signature-Input, and check the Signature over the signature base; a request without a valid signature is not from us",
};

const TR: Words = Words {
    heading: "Neyi denetler, yanıtlara nasıl davranır",
    checks: "İptal denetimi",
    checks_value: "her {every}, bugünden {days} gün sonrasına kadarki etkinlikler: {methods}, site başına aynı anda en çok {n}",
    checks_off: "yapılmıyor",
    head_then_get: "önce HEAD, yalnızca değişen sayfalar için GET",
    get_only: "yalnızca GET",
    gone: "404 veya 410 yanıtı veren bir sayfa",
    gone_value: "etkinliği kaynakta kaldırılmış sayılır (asla iptal edilmiş gösterilmez)",
    other_4xx: "Diğer 4xx yanıtları (401, 403, 404, 410 ve 429 dışında)",
    other_4xx_value: "yeniden denenmez",
    robots_4xx: "404 veya başka bir 4xx (401, 403 ve 429 dışında) yanıtı veren robots.txt",
    robots_4xx_value: "kısıtlama yok (RFC 9309)",
    cadence: "Kaynakların okunma sıklığı",
    cadence_value: "kaynakların çoğu her {most} ({total} kaynaktan {count}); hiçbiri {min} süreden daha sık değil",
    licensed: "Lisanslı API'ler (robots.txt ile değil, lisanslarıyla okunur)",
    licensed_item: "{site}, en çok {gap} aralıkla bir istek",
    licensed_terms: "koşullar: {terms}",
    sites: "Okunan siteler",
    none: "yok",
    service: "Hizmet nedir",
    legal_entity: "Yasal sorumlu",
    director: "Yayın yönetmeni",
    origin: "İstekler nereden gelir",
    ranges: "yayımlanan adres aralıkları: {ranges}",
    no_ranges: "sabit bir adres aralığı yayımlanmıyor",
    ranges_json: "aynı liste, büyük tarayıcıların kullandığı şemada JSON olarak: {url}",
    reverse_dns: "bir adresi doğrulamak için: adresi ters çözümleyin (PTR); ad {domain} ile bitmelidir; sonra bu adı ileri çözümleyin (A/AAAA): aynı adresi geri vermelidir. İki adımdan birinde başarısız olan adres bizim değildir",
    removal: "Silme talepleri",
    removal_value: "{duration} içinde yerine getirilir",
    signed: "İmzalı istekler (Web Bot Auth)",
    signed_value: "her istek @authority ve Signature-Agent alanlarını kapsayan, en fazla 60 sn geçerli bir HTTP Message Signature (RFC 9421, Ed25519) taşır; anahtar kimliği {keyids}; açık anahtarlar {directory} adresinde. Bir isteği doğrulamak için: bu dizini alın, kid değeri Signature-Input içindeki keyid ile aynı olan anahtarı seçin ve Signature alanını imza tabanına göre doğrulayın; geçerli imzası olmayan bir istek bizden değildir",
};

const FR: Words = Words {
    heading: "Ce qu'il vérifie et comment il répond",
    checks: "Vérification des annulations",
    checks_value: "toutes les {every}, les événements d'aujourd'hui à {days} jours : {methods}, au plus {n} à la fois par site",
    checks_off: "non effectuée",
    head_then_get: "HEAD d'abord, puis GET seulement pour une page modifiée",
    get_only: "GET seulement",
    gone: "Une page qui répond 404 ou 410",
    gone_value: "son événement est marqué disparu à la source (jamais affiché comme annulé)",
    other_4xx: "Autres réponses 4xx (hors 401, 403, 404, 410 et 429)",
    other_4xx_value: "pas de nouvel essai",
    robots_4xx: "robots.txt qui répond 404 ou un autre 4xx (hors 401, 403 et 429)",
    robots_4xx_value: "aucune restriction (RFC 9309)",
    cadence: "Fréquence de lecture des sources",
    cadence_value: "la plupart des sources toutes les {most} ({count} sur {total}) ; aucune plus d'une fois toutes les {min}",
    licensed: "API sous licence (lues selon leur licence, pas selon robots.txt)",
    licensed_item: "{site}, au plus une requête toutes les {gap}",
    licensed_terms: "conditions : {terms}",
    sites: "Sites lus",
    none: "aucun",
    service: "Ce qu'est le service",
    legal_entity: "Responsable légal",
    director: "Directeur de la publication",
    origin: "D'où viennent les requêtes",
    ranges: "plages d'adresses publiées : {ranges}",
    no_ranges: "aucune plage d'adresses fixe n'est publiée",
    ranges_json: "la même liste en JSON, au format des grands robots : {url}",
    reverse_dns: "pour vérifier une adresse : faites sa résolution inverse (PTR) ; le nom doit se terminer par {domain} ; puis résolvez ce nom (A/AAAA) : il doit redonner la même adresse. Une adresse qui échoue à l'une des deux étapes n'est pas la nôtre",
    removal: "Demandes de suppression",
    removal_value: "exécutées sous {duration}",
    signed: "Requêtes signées (Web Bot Auth)",
    signed_value: "chaque requête porte une signature HTTP (RFC 9421, Ed25519) couvrant @authority et Signature-Agent, valable 60 s au plus ; identifiant de clé {keyids} ; clés publiques à {directory}. Pour vérifier une requête : lisez cet annuaire, prenez la clé dont le kid est le keyid de Signature-Input et vérifiez Signature sur la base de signature ; une requête sans signature valide ne vient pas de nous",
};

const ES: Words = Words {
    heading: "Qué comprueba y cómo responde",
    checks: "Comprobación de cancelaciones",
    checks_value: "cada {every}, los eventos desde hoy hasta dentro de {days} días: {methods}, como máximo {n} a la vez por sitio",
    checks_off: "no se realiza",
    head_then_get: "primero HEAD, luego GET solo para una página que cambió",
    get_only: "solo GET",
    gone: "Una página que responde 404 o 410",
    gone_value: "su evento se marca como desaparecido en la fuente (nunca se muestra como cancelado)",
    other_4xx: "Otras respuestas 4xx (salvo 401, 403, 404, 410 y 429)",
    other_4xx_value: "no se reintentan",
    robots_4xx: "robots.txt que responde 404 u otro 4xx (salvo 401, 403 y 429)",
    robots_4xx_value: "sin restricciones (RFC 9309)",
    cadence: "Con qué frecuencia se leen las fuentes",
    cadence_value: "la mayoría de las fuentes cada {most} ({count} de {total}); ninguna más de una vez cada {min}",
    licensed: "API con licencia (se leen según su licencia, no según robots.txt)",
    licensed_item: "{site}, como máximo una petición cada {gap}",
    licensed_terms: "condiciones: {terms}",
    sites: "Sitios leídos",
    none: "ninguno",
    service: "Qué es el servicio",
    legal_entity: "Responsable legal",
    director: "Director de la publicación",
    origin: "De dónde vienen las peticiones",
    ranges: "rangos de direcciones publicados: {ranges}",
    no_ranges: "no se publica ningún rango de direcciones fijo",
    ranges_json: "la misma lista en JSON, con el esquema que usan los grandes rastreadores: {url}",
    reverse_dns: "para comprobar una dirección: resuélvala a la inversa (PTR); el nombre debe terminar en {domain}; luego resuelva ese nombre (A/AAAA): debe devolver la misma dirección. Una dirección que falle en cualquiera de los dos pasos no es nuestra",
    removal: "Solicitudes de eliminación",
    removal_value: "se atienden en {duration} como máximo",
    signed: "Peticiones firmadas (Web Bot Auth)",
    signed_value: "cada petición lleva una firma HTTP (RFC 9421, Ed25519) que cubre @authority y Signature-Agent, válida 60 s como máximo; identificador de clave {keyids}; claves públicas en {directory}. Para verificar una petición: lea ese directorio, tome la clave cuyo kid es el keyid de Signature-Input y compruebe Signature sobre la base de firma; una petición sin firma válida no es nuestra",
};

const DE: Words = Words {
    heading: "Was er prüft und wie er auf Antworten reagiert",
    checks: "Absageprüfung",
    checks_value: "alle {every} die Veranstaltungen von heute bis in {days} Tagen: {methods}, höchstens {n} gleichzeitig pro Website",
    checks_off: "findet nicht statt",
    head_then_get: "zuerst HEAD, dann GET nur für eine geänderte Seite",
    get_only: "nur GET",
    gone: "Eine Seite, die mit 404 oder 410 antwortet",
    gone_value: "ihre Veranstaltung gilt als an der Quelle entfernt (nie als abgesagt angezeigt)",
    other_4xx: "Andere 4xx-Antworten (außer 401, 403, 404, 410 und 429)",
    other_4xx_value: "werden nicht wiederholt",
    robots_4xx: "robots.txt, die mit 404 oder einem anderen 4xx antwortet (außer 401, 403 und 429)",
    robots_4xx_value: "keine Einschränkungen (RFC 9309)",
    cadence: "Wie oft Quellen gelesen werden",
    cadence_value: "die meisten Quellen alle {most} ({count} von {total}); keine öfter als einmal alle {min}",
    licensed: "Lizenzierte APIs (nach ihrer Lizenz gelesen, nicht nach robots.txt)",
    licensed_item: "{site}, höchstens eine Anfrage alle {gap}",
    licensed_terms: "Bedingungen: {terms}",
    sites: "Gelesene Websites",
    none: "keine",
    service: "Was der Dienst ist",
    legal_entity: "Rechtlich verantwortlich",
    director: "Verantwortlich für die Veröffentlichung",
    origin: "Woher die Anfragen kommen",
    ranges: "veröffentlichte Adressbereiche: {ranges}",
    no_ranges: "kein fester Adressbereich veröffentlicht",
    ranges_json: "dieselbe Liste als JSON, im Schema der großen Crawler: {url}",
    reverse_dns: "So prüfen Sie eine Adresse: lösen Sie sie rückwärts auf (PTR); der Name muss auf {domain} enden; lösen Sie diesen Namen dann vorwärts auf (A/AAAA): er muss dieselbe Adresse ergeben. Eine Adresse, die an einem der beiden Schritte scheitert, ist nicht unsere",
    removal: "Löschanträge",
    removal_value: "werden innerhalb von {duration} ausgeführt",
    signed: "Signierte Anfragen (Web Bot Auth)",
    signed_value: "jede Anfrage trägt eine HTTP-Nachrichtensignatur (RFC 9421, Ed25519) über @authority und Signature-Agent, höchstens 60 s gültig; Schlüssel-ID {keyids}; öffentliche Schlüssel unter {directory}. So prüfen Sie eine Anfrage: Verzeichnis abrufen, den Schlüssel nehmen, dessen kid der keyid in Signature-Input entspricht, und Signature über die Signaturbasis prüfen; eine Anfrage ohne gültige Signatur stammt nicht von uns",
};

/// The promises section's words in `lang`.
pub fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::En => &EN,
        Lang::Tr => &TR,
        Lang::Fr => &FR,
        Lang::Es => &ES,
        Lang::De => &DE,
    }
}

/// How many cancellation-check requests may be open at once at one site, as the gate
/// allows it: the purpose's own cap where it has one, never more than the site's.
pub fn checks_in_flight(settings: &Settings) -> u32 {
    let pol = &settings.politeness;
    let site = settings.site_classes.get("default").map_or(pol.max_in_flight, |c| c.max_in_flight);
    pol.purpose
        .get(&Purpose::CancellationCheck)
        .and_then(|p| p.max_in_flight)
        .map_or(site, |n| n.min(site))
}

/// The nominal interval between two passes of a source: its interval, or a day divided
/// by its times of day; never shorter than `[politeness] min_source_interval`.
fn interval_of(settings: &Settings, schedule: &Schedule) -> Duration {
    let nominal = match schedule {
        Schedule::Every(d) => *d,
        Schedule::At(times) => Duration::from_secs(86_400 / times.len().max(1) as u64),
    };
    nominal.max(settings.politeness.min_source_interval)
}

/// The shortest interval between two passes of a source: for times of day, the
/// smallest gap between consecutive times (around midnight too).
fn shortest_interval_of(settings: &Settings, schedule: &Schedule) -> Duration {
    let shortest = match schedule {
        Schedule::Every(d) => *d,
        Schedule::At(times) => {
            let mut secs: Vec<u64> = times
                .iter()
                .map(|t| u64::from(chrono::Timelike::num_seconds_from_midnight(t)))
                .collect();
            secs.sort_unstable();
            secs.dedup();
            let gaps = secs.windows(2).map(|w| w[1] - w[0]);
            let around = secs.first().zip(secs.last()).map(|(a, b)| 86_400 - b + a);
            Duration::from_secs(gaps.chain(around).min().unwrap_or(86_400).max(1))
        }
    };
    shortest.max(settings.politeness.min_source_interval)
}

/// The most common interval between passes, how many sources have it, how many sources
/// there are, and the shortest interval of any (`None` without sources).
pub fn cadence(settings: &Settings) -> Option<(Duration, usize, usize, Duration)> {
    let mut counts: BTreeMap<Duration, usize> = BTreeMap::new();
    for source in &settings.sources {
        *counts.entry(interval_of(settings, &source.schedule)).or_default() += 1;
    }
    // The most common; on a tie, the shorter (the less polite one is stated).
    let (most, count) = counts.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))?;
    let min = settings.sources.iter().map(|s| shortest_interval_of(settings, &s.schedule)).min()?;
    Some((*most, *count, settings.sources.len(), min))
}

/// The sites the sources read, as host names (with the port when it is not the
/// scheme's), sorted, each once.
pub fn sites_read(settings: &Settings) -> Vec<String> {
    let mut sites: Vec<String> = settings
        .sources
        .iter()
        .flat_map(|s| s.start_urls.iter())
        .filter_map(|u| {
            let host = u.host_str()?.to_ascii_lowercase();
            Some(match u.port() {
                Some(port) => format!("{host}:{port}"),
                None => host,
            })
        })
        .collect();
    sites.sort();
    sites.dedup();
    sites
}

/// The promises' rows in one language (stable keys, as in the politeness table).
pub fn facts_in(settings: &Settings, lang: Lang) -> Vec<Fact> {
    let m = words(lang);
    let w = |d: Duration| words_in(lang, d);
    let fact = |key: &str, label: &str, value: String| Fact {
        key: key.to_owned(),
        label: label.to_owned(),
        value,
    };
    let checks = &settings.checks;
    let check_value = if settings.purposes.enabled.contains(&Purpose::CancellationCheck) {
        let head = checks.cancellation_head && settings.purposes.head_allowed;
        fill(
            m.checks_value,
            &[
                ("every", &w(checks.cancellation_every)),
                ("days", &checks.horizon_days.to_string()),
                ("methods", if head { m.head_then_get } else { m.get_only }),
                ("n", &checks_in_flight(settings).to_string()),
            ],
        )
    } else {
        m.checks_off.to_owned()
    };
    let mut rows = vec![
        fact("checks.cancellation", m.checks, check_value),
        fact("answers.gone", m.gone, m.gone_value.to_owned()),
        fact("answers.other_4xx", m.other_4xx, m.other_4xx_value.to_owned()),
        fact("robots.4xx", m.robots_4xx, m.robots_4xx_value.to_owned()),
    ];
    if settings.rights.honour_signals {
        let said = lang.messages();
        rows.push(fact("rights.ai_preferences", said.prefs_label, said.prefs_value.to_owned()));
    }
    rows.push(fact(
        "sources.cadence",
        m.cadence,
        match cadence(settings) {
            Some((most, count, total, min)) => fill(
                m.cadence_value,
                &[
                    ("most", &w(most)),
                    ("count", &count.to_string()),
                    ("total", &total.to_string()),
                    ("min", &w(min)),
                ],
            ),
            None => m.none.to_owned(),
        },
    ));
    let licensed: Vec<String> = settings
        .sources
        .iter()
        .filter(|s| s.kind == SourceKind::LicensedApi)
        .flat_map(|s| {
            let gap = s.licensed.as_ref().map_or(Duration::ZERO, |l| l.gap);
            s.start_urls.iter().filter_map(move |u| {
                let mut item = fill(m.licensed_item, &[("site", u.host_str()?), ("gap", &w(gap))]);
                if let Some(terms) = &s.terms_url {
                    item.push_str(&format!(
                        "; {}",
                        fill(m.licensed_terms, &[("terms", terms.as_str())])
                    ));
                }
                Some(item)
            })
        })
        .collect();
    rows.push(fact(
        "licensed.apis",
        m.licensed,
        if licensed.is_empty() { m.none.to_owned() } else { licensed.join(" · ") },
    ));
    let bot = &settings.bot;
    if let Some(service) = &bot.service {
        rows.insert(0, fact("bot.service", m.service, service.clone()));
    }
    if let Some(entity) = &bot.legal_entity {
        rows.push(fact("bot.legal_entity", m.legal_entity, entity.clone()));
    }
    if let Some(director) = &bot.publication_director {
        rows.push(fact("bot.publication_director", m.director, director.clone()));
    }
    if bot.origin.is_some() || !bot.egress.is_empty() || bot.egress_domain.is_some() {
        let ranges: Vec<String> = bot.egress.iter().map(ToString::to_string).collect();
        let mut ranges = if ranges.is_empty() {
            m.no_ranges.to_owned()
        } else {
            let url = ranges_url(settings);
            format!(
                "{}; {}",
                fill(m.ranges, &[("ranges", &ranges.join(", "))]),
                fill(m.ranges_json, &[("url", url.as_str())])
            )
        };
        if let Some(domain) = &bot.egress_domain {
            ranges = format!("{ranges}; {}", fill(m.reverse_dns, &[("domain", domain)]));
        }
        let value = match &bot.origin {
            Some(origin) => format!("{origin}; {ranges}"),
            None => ranges,
        };
        rows.push(fact("bot.origin", m.origin, value));
    }
    if let (Some(identity), Some(signer)) =
        (&settings.identity, gleaner_fetch::client::signer_of(settings))
    {
        rows.push(fact(
            "identity.signed",
            m.signed,
            fill(
                m.signed_value,
                &[
                    ("keyids", &signer.thumbprints().join(", ")),
                    ("directory", identity.directory_url().as_str()),
                ],
            ),
        ));
    }
    if let Some(within) = settings.owners.removal_within {
        rows.push(fact(
            "owners.removal_within",
            m.removal,
            fill(m.removal_value, &[("duration", &w(within))]),
        ));
    }
    let sites = sites_read(settings);
    rows.push(fact(
        "sources.sites",
        m.sites,
        if sites.is_empty() { m.none.to_owned() } else { sites.join(", ") },
    ));
    rows
}

/// The promises section of the about page in one language.
pub fn section(settings: &Settings, lang: Lang) -> Section {
    Section {
        id: "promises",
        heading: words(lang).heading.to_owned(),
        blocks: vec![Block::Table { id: "promises".to_owned(), rows: facts_in(settings, lang) }],
    }
}

/// The promises for `/bot.json`: numbers as numbers, durations in seconds.
pub fn json(settings: &Settings) -> serde_json::Value {
    let secs = |d: Duration| d.as_secs_f64();
    let checks = &settings.checks;
    let cadence = cadence(settings).map(|(most, count, total, min)| {
        serde_json::json!({
            "most_sources_every_seconds": secs(most),
            "sources_at_that_interval": count,
            "sources": total,
            "shortest_interval_seconds": secs(min),
        })
    });
    serde_json::json!({
        "cancellation_check": settings.purposes.enabled.contains(&Purpose::CancellationCheck).then(|| serde_json::json!({
            "every_seconds": secs(checks.cancellation_every),
            "horizon_days": checks.horizon_days,
            "methods": if checks.cancellation_head && settings.purposes.head_allowed { vec!["HEAD", "GET"] } else { vec!["GET"] },
            "max_in_flight_per_site": checks_in_flight(settings),
            "on_404_410": "gone-at-source",
        })),
        "other_4xx": "not-retried",
        "robots_txt_4xx": "no-restrictions",
        "source_cadence": cadence,
        "licensed_apis": settings.sources.iter().filter(|s| s.kind == SourceKind::LicensedApi).map(|s| serde_json::json!({
            "sites": s.start_urls.iter().filter_map(|u| u.host_str().map(str::to_owned)).collect::<Vec<_>>(),
            "gap_seconds": s.licensed.as_ref().map(|l| secs(l.gap)),
            "terms": s.terms_url.as_ref().map(|u| u.as_str().to_owned()),
        })).collect::<Vec<_>>(),
        "sites": sites_read(settings),
        "service": settings.bot.service,
        "legal_entity": settings.bot.legal_entity,
        "publication_director": settings.bot.publication_director,
        "origin": settings.bot.origin,
        "egress": settings.bot.egress.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "egress_ranges_url": (!settings.bot.egress.is_empty()).then(|| ranges_url(settings).to_string()),
        "egress_domain": settings.bot.egress_domain,
        "removal_within_seconds": settings.owners.removal_within.map(secs),
        "signed_requests": settings.identity.as_ref().map(|i| serde_json::json!({
            "scheme": "web-bot-auth (RFC 9421, Ed25519)",
            "signature_agent": i.agent.as_str(),
            "key_directory": i.directory_url().as_str(),
            "keyids": gleaner_fetch::client::signer_of(settings).map(|s| s.thumbprints()).unwrap_or_default(),
        })),
    })
}

/// One row of the promise ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Promise {
    /// The fact key on the page (`*` stands for one dotted segment: `purpose.*.gap`).
    pub key: &'static str,
    /// The setting the fact is read from.
    pub setting: &'static str,
    /// What stands behind the row: a behaviour a test enforces, or a fact stated.
    pub check: Check,
}

/// What stands behind a row of the page, so the page can tell a promise enforced from a
/// fact stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// A behaviour gleaner enforces: `test` (a `fn` of that name in the workspace's
    /// tests) checks it from the sites' side.
    Behaviour {
        /// The test's function name.
        test: &'static str,
    },
    /// A fact about who runs the bot and where it runs (the service, the legal entity, the
    /// publication director, the origin of requests): stated as configured, nothing in
    /// the crawler enforces it; `rendered_by` checks that the page states it.
    Statement {
        /// The test's function name.
        rendered_by: &'static str,
    },
}

impl Check {
    /// The test named by the row, whichever kind it is.
    pub fn test(self) -> &'static str {
        match self {
            Check::Behaviour { test } => test,
            Check::Statement { rendered_by } => rendered_by,
        }
    }

    /// Whether the row is a behaviour a test enforces (not a fact stated).
    pub fn is_enforced(self) -> bool {
        matches!(self, Check::Behaviour { .. })
    }
}

/// Where the egress ranges are published: `/bot/ranges.json` on the about page's origin.
pub fn ranges_url(settings: &Settings) -> url::Url {
    settings
        .bot
        .info_url
        .join(crate::ranges::RANGES_PATH)
        .unwrap_or_else(|_| settings.bot.info_url.clone())
}

/// A row for a behaviour that `test` checks from the sites' side.
const fn row(key: &'static str, setting: &'static str, test: &'static str) -> Promise {
    Promise { key, setting, check: Check::Behaviour { test } }
}

/// A row for a fact stated as configured, which `rendered_by` checks the page states.
const fn stated(key: &'static str, setting: &'static str, rendered_by: &'static str) -> Promise {
    Promise { key, setting, check: Check::Statement { rendered_by } }
}

/// The promise ledger: every fact key the about page states, the setting it reads, and
/// the test that checks it from the sites' side.
pub const LEDGER: &[Promise] = &[
    row(
        "user_agent",
        "bot.token, bot.version, bot.info_url, bot.contact",
        "crawl_stores_events_politely_and_the_second_pass_is_conditional",
    ),
    row("token", "bot.token", "robots_first_and_fail_closed_for_every_robots_scenario"),
    row(
        "rights.ai_preferences",
        "rights.honour_signals, rights.on_reservation",
        "ledger_content_signal_search_no_in_robots_txt_keeps_the_sites_events_unpublished",
    ),
    row("gap", "politeness.gap", "several_purposes_and_sources_share_one_gap_and_in_flight_cap"),
    row("max_in_flight", "politeness.max_in_flight", "in_flight_limit_catches_parallel_requests"),
    row(
        "global_daily_cap",
        "politeness.global_daily_cap",
        "processes_and_copies_share_one_daily_cap_per_key",
    ),
    row(
        "retry_after_default",
        "politeness.retry_after_default",
        "suspension_without_retry_after_uses_the_default",
    ),
    row(
        "retry_after_cap",
        "politeness.retry_after_cap",
        "gives_up_when_retry_after_is_longer_than_allowed_or_retries_run_out",
    ),
    row(
        "max_retries",
        "politeness.max_retries",
        "ledger_a_429_page_is_asked_again_after_retry_after_and_every_event_is_stored",
    ),
    row(
        "unreachable_tries",
        "politeness.unreachable_tries",
        "an_unreachable_site_gets_its_tries_over_about_a_minute",
    ),
    row(
        "failure_streak_limit",
        "politeness.failure_streak_limit",
        "failing_robots_txt_means_nothing_else_is_fetched",
    ),
    row(
        "run_time_limit",
        "politeness.run_time_limit",
        "a_pass_past_its_time_limit_requeues_the_rest",
    ),
    row("block_duration", "politeness.block_duration", "blocks_and_challenges_stop_the_site"),
    row(
        "connect_timeout",
        "limits.connect_timeout",
        "a_hanging_robots_txt_times_out_and_fails_closed",
    ),
    row("response_deadline", "limits.response_deadline", "slow_trickle_ends_at_the_deadline"),
    row("max_body_bytes", "limits.max_body_bytes", "huge_body_is_abandoned_not_truncated"),
    row(
        "max_redirects",
        "limits.max_redirects",
        "redirect_hops_are_counted_and_the_sixth_is_not_requested",
    ),
    row(
        "robots_ttl",
        "robots.ttl",
        "a_second_pass_is_conditional_and_re_extracts_nothing_unchanged",
    ),
    row(
        "robots_unauthorized",
        "robots.on_unauthorized",
        "seed_cixtra_link_checks_two_seconds_one_at_a_time_get_only_robots_403_is_a_no",
    ),
    row(
        "robots_unreachable",
        "robots (fixed: fail closed)",
        "failing_robots_txt_means_nothing_else_is_fetched",
    ),
    row(
        "min_source_interval",
        "politeness.min_source_interval",
        "spec_config_check_adds_up_each_profiles_day_and_keeps_its_promises",
    ),
    row(
        "shared_by",
        "store.schema, store.politeness_namespace",
        "processes_and_copies_share_one_daily_cap_per_key",
    ),
    row(
        "purpose.*.gap",
        "politeness.purpose.*.gap",
        "a_per_purpose_gap_holds_after_a_request_of_another_purpose",
    ),
    row(
        "purpose.*.jitter",
        "politeness.purpose.*.jitter",
        "seed_ugybot_three_in_flight_jitter_before_event_pages_robots_hourly_no_images",
    ),
    row(
        "purpose.*.max_in_flight",
        "politeness.purpose.*.max_in_flight",
        "seed_cixtra_link_checks_two_seconds_one_at_a_time_get_only_robots_403_is_a_no",
    ),
    row(
        "class.*",
        "site_classes.*",
        "seed_aubeactu_five_per_pass_twelve_per_hour_sixty_per_day_nothing_published",
    ),
    row(
        "checks.cancellation",
        "checks.cancellation_every, checks.horizon_days, checks.cancellation_head, purpose cancellation-check",
        "spec_cancellation_check_asks_each_page_in_the_window_once_and_marks_404_gone",
    ),
    row(
        "answers.gone",
        "(fixed: 404/410 = gone at source)",
        "spec_cancellation_check_asks_each_page_in_the_window_once_and_marks_404_gone",
    ),
    row(
        "answers.other_4xx",
        "(fixed: not retried)",
        "ledger_a_5xx_is_asked_again_max_retries_times_then_given_up",
    ),
    row(
        "robots.4xx",
        "(fixed: RFC 9309)",
        "robots_first_and_fail_closed_for_every_robots_scenario",
    ),
    row(
        "sources.cadence",
        "sources.*.schedule, politeness.min_source_interval",
        "spec_config_check_adds_up_each_profiles_day_and_keeps_its_promises",
    ),
    row(
        "licensed.apis",
        "sources.* kind licensed-api, api_gap, terms_url",
        "a_licensed_api_is_read_with_its_key_and_own_limit_and_open_data_feeds_the_newsroom",
    ),
    row(
        "sources.sites",
        "sources.*.start_urls",
        "a_pass_reads_listings_and_event_pages_politely_and_stores_events",
    ),
    // Statements of who and where: stated as configured, checked on every profile's page.
    stated("bot.service", "bot.service", "seed_profiles_state_every_promise_in_every_language"),
    stated(
        "bot.legal_entity",
        "bot.legal_entity",
        "seed_profiles_state_every_promise_in_every_language",
    ),
    stated(
        "bot.publication_director",
        "bot.publication_director",
        "seed_profiles_state_every_promise_in_every_language",
    ),
    stated(
        "bot.origin",
        "bot.origin, bot.egress, bot.egress_domain",
        "bot_ranges_json_publishes_the_egress_ranges",
    ),
    row(
        "identity.signed",
        "identity.key_file, identity.key_env, identity.keys, identity.agent",
        "every_request_the_sites_receive_verifies_robots_txt_and_redirects_included",
    ),
    row(
        "owners.removal_within",
        "owners.removal_within",
        "removal_within_a_proven_removal_is_carried_out_before_the_promised_time",
    ),
];

/// The ledger row for a fact key, if any.
pub fn promise_for(key: &str) -> Option<&'static Promise> {
    LEDGER.iter().find(|p| key_matches(p.key, key))
}

fn key_matches(pattern: &str, key: &str) -> bool {
    match pattern.strip_suffix(".*") {
        Some(prefix) if !prefix.contains('*') => {
            key.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('.') && rest.len() > 1)
        }
        _ => {
            let (p, k): (Vec<&str>, Vec<&str>) =
                (pattern.split('.').collect(), key.split('.').collect());
            p.len() == k.len() && p.iter().zip(&k).all(|(p, k)| *p == "*" || p == k)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with("target") {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    fn profiles() -> Vec<(String, Settings)> {
        let dir = workspace().join("examples/profiles");
        let mut out: Vec<(String, Settings)> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                let settings = gleaner_config::parse(&text, &name).unwrap();
                (name, settings)
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        assert!(out.len() >= 4, "the four seed profiles");
        out
    }

    #[test]
    fn every_fact_of_every_profile_has_a_ledger_row_naming_a_test_that_exists() {
        let mut files = Vec::new();
        rust_files(&workspace().join("crates"), &mut files);
        let sources: String =
            files.iter().filter_map(|f| std::fs::read_to_string(f).ok()).collect();
        for promise in LEDGER {
            let test = promise.check.test();
            assert!(!test.is_empty() && !promise.setting.is_empty(), "{promise:?}");
            assert!(
                sources.contains(&format!("fn {test}(")),
                "promise `{}` names test `{test}`, which does not exist",
                promise.key,
            );
        }
        for (name, settings) in profiles() {
            let keys = crate::about::facts_in(&settings, Lang::En)
                .into_iter()
                .chain(facts_in(&settings, Lang::En))
                .map(|f| f.key);
            for key in keys {
                assert!(
                    promise_for(&key).is_some(),
                    "{name}: the page states `{key}` but no ledger row names a test for it"
                );
            }
        }
    }

    #[test]
    fn statements_of_who_and_where_are_told_apart_from_enforced_promises() {
        let statements: Vec<&str> =
            LEDGER.iter().filter(|p| !p.check.is_enforced()).map(|p| p.key).collect();
        assert_eq!(
            statements,
            ["bot.service", "bot.legal_entity", "bot.publication_director", "bot.origin"]
        );
        assert!(promise_for("max_retries").is_some_and(|p| p.check.is_enforced()));
        assert!(promise_for("owners.removal_within").is_some_and(|p| p.check.is_enforced()));
    }

    #[test]
    fn a_row_without_a_test_or_a_missing_test_is_caught() {
        assert!(promise_for("no.such.fact").is_none());
        assert!(key_matches("purpose.*.gap", "purpose.event-page.gap"));
        assert!(!key_matches("purpose.*.gap", "purpose.event-page.jitter"));
        assert!(key_matches("class.*", "class.municipal"));
        assert!(!key_matches("class.*", "class"));
    }

    #[test]
    fn the_page_says_how_to_verify_signed_requests_in_every_language() {
        let (pem, keyid) = gleaner_fetch::signing::generate_pem().unwrap();
        let config = "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n";
        let unsigned = gleaner_config::parse(config, "t.toml").unwrap();
        let mut signed =
            gleaner_config::parse(&format!("{config}\n[identity]\nkey_env = \"K\"\n"), "t.toml")
                .unwrap();
        assert!(
            signed.load_identity_keys(|_| Err("none".into()), |_| Some(pem.clone())).is_empty()
        );
        let directory = "https://bot.example/.well-known/http-message-signatures-directory";
        for lang in Lang::ALL {
            let facts = facts_in(&signed, lang);
            let fact = facts.iter().find(|f| f.key == "identity.signed").expect("the row");
            assert!(
                fact.value.contains(&keyid) && fact.value.contains(directory),
                "{lang:?}: {fact:?}"
            );
            assert!(fact.value.contains("RFC 9421"), "{lang:?}: {fact:?}");
            assert!(promise_for(&fact.key).is_some());
            assert!(facts_in(&unsigned, lang).iter().all(|f| f.key != "identity.signed"));
        }
        assert_eq!(json(&signed)["signed_requests"]["keyids"][0], keyid.as_str());
        assert!(json(&unsigned)["signed_requests"].is_null());
    }

    #[test]
    fn cadence_is_summarised_and_sites_are_domains() {
        let text = "[bot]\ntoken = \"T\"\nversion = \"1\"\ninfo_url = \"https://bot.example/\"\noperator = \"O\"\n\n\
             [[sources]]\nid = \"a\"\nkind = \"listing\"\nstart_urls = [\"https://a.example/agenda\"]\nat = [\"06:00\", \"18:00\"]\n\
             [[sources]]\nid = \"b\"\nkind = \"listing\"\nstart_urls = [\"https://b.example/\"]\nat = [\"07:00\", \"19:00\"]\n\
             [[sources]]\nid = \"c\"\nkind = \"listing\"\nstart_urls = [\"https://a.example/other\"]\nevery = \"1h\"\n";
        let settings = gleaner_config::parse(text, "t.toml").unwrap();
        let (most, count, total, min) = cadence(&settings).unwrap();
        assert_eq!(
            (most, count, total, min),
            (Duration::from_secs(12 * 3600), 2, 3, Duration::from_secs(3600))
        );
        assert_eq!(sites_read(&settings), ["a.example", "b.example"]);
        let row =
            facts_in(&settings, Lang::En).into_iter().find(|f| f.key == "sources.cadence").unwrap();
        assert_eq!(
            row.value,
            "most sources every 12 h (2 of 3); none more often than once every 1 h"
        );
    }
}
