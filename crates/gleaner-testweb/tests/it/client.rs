//! Test clients: a raw HTTP/1.1 client that does whatever it is told (the impolite one),
//! and a small polite crawler built on it, the positive control for every check.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use gleaner_testweb::{DEFAULT_TOKEN, TestWeb, Timings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The User-Agent the polite crawler sends.
pub const UA: &str = "gleaner/0.1 (+http://127.0.0.1/about)";

/// Fast timings so slow scenarios stay inside the test budget.
pub fn fast_timings() -> Timings {
    Timings {
        slow_first_byte: Duration::from_millis(300),
        trickle_interval: Duration::from_millis(50),
        trickle_bytes: 20,
        hang: Duration::from_secs(2),
        robots_retry_after: Duration::from_secs(1),
    }
}

/// A response as read off the wire.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Body with chunked framing removed.
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one request on a fresh connection (`Connection: close`) and reads to EOF.
///
/// `headers` are sent verbatim; no User-Agent is added unless given.
pub async fn raw_get(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    timeout: Duration,
) -> io::Result<Resp> {
    let fut = async {
        let mut s = TcpStream::connect(addr).await?;
        let mut req =
            format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        for (n, v) in headers {
            req.push_str(&format!("{n}: {v}\r\n"));
        }
        req.push_str("\r\n");
        s.write_all(req.as_bytes()).await?;
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).await?;
        parse(&buf, method == "HEAD")
    };
    tokio::time::timeout(timeout, fut)
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "client timeout"))?
}

/// GET with the polite User-Agent and a 5 s timeout.
pub async fn get(addr: SocketAddr, target: &str) -> Resp {
    raw_get(addr, "GET", target, &[("User-Agent", UA)], Duration::from_secs(5))
        .await
        .unwrap_or_else(|e| panic!("GET {target} on {addr}: {e}"))
}

/// GET with the polite User-Agent and extra headers.
pub async fn get_with(addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> Resp {
    let mut all = vec![("User-Agent", UA)];
    all.extend_from_slice(headers);
    raw_get(addr, "GET", target, &all, Duration::from_secs(5))
        .await
        .unwrap_or_else(|e| panic!("GET {target} on {addr}: {e}"))
}

fn parse(buf: &[u8], head_only: bool) -> io::Result<Resp> {
    let end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "no response head"))?;
    let head = String::from_utf8_lossy(&buf[..end]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other("bad status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let raw = &buf[end + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if head_only {
        Vec::new()
    } else if chunked {
        dechunk(raw)
    } else {
        raw.to_vec()
    };
    Ok(Resp { status, headers, body })
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&raw[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = eol + 2;
        let stop = (start + size).min(raw.len());
        out.extend_from_slice(&raw[start..stop]);
        raw = &raw[(stop + 2).min(raw.len())..];
    }
    out
}

/// Rules for one bot token, parsed the simple way (prefixes only, as the test web writes
/// them).
#[derive(Debug, Default)]
struct Rules {
    allow: Vec<String>,
    disallow: Vec<String>,
    crawl_delay: Option<Duration>,
}

impl Rules {
    fn allows(&self, path: &str) -> bool {
        let longest =
            |l: &[String]| l.iter().filter(|p| path.starts_with(p.as_str())).map(String::len).max();
        match (longest(&self.allow), longest(&self.disallow)) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(d)) => a >= d,
        }
    }
}

fn parse_rules(text: &str, token: &str) -> Rules {
    let mut groups: Vec<(Vec<String>, Rules)> = Vec::new();
    let mut in_agents = false;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        if key == "user-agent" {
            if !in_agents {
                groups.push((Vec::new(), Rules::default()));
            }
            in_agents = true;
            if let Some(g) = groups.last_mut() {
                g.0.push(value.to_ascii_lowercase());
            }
            continue;
        }
        in_agents = false;
        let Some((_, rules)) = groups.last_mut() else {
            continue;
        };
        match key.as_str() {
            "allow" => rules.allow.push(value.to_owned()),
            "disallow" if !value.is_empty() => rules.disallow.push(value.to_owned()),
            "crawl-delay" => {
                rules.crawl_delay = value.parse::<f64>().ok().map(Duration::from_secs_f64)
            }
            _ => {}
        }
    }
    let token = token.to_ascii_lowercase();
    let pick = |name: &str| groups.iter().position(|(agents, _)| agents.iter().any(|a| a == name));
    match pick(&token).or_else(|| pick("*")) {
        Some(i) => groups.swap_remove(i).1,
        None => Rules::default(),
    }
}

/// What the polite crawler does on each site, in order (after robots.txt).
pub const POLITE_PATHS: [&str; 5] =
    ["/", "/events/", "/events/1.html", "/events/2.html", "/private/secret.html"];

/// A polite crawler: robots.txt first (redirects up to 5 hops), nothing more when it
/// fails or disallows all, the token's group, `Crawl-delay`, `gap` between request starts,
/// one request at a time, `Retry-After` honoured, stop on 401/403/challenge/login wall,
/// conditional refetches from `etags`. Fetches [`POLITE_PATHS`] `passes` times.
pub async fn polite_crawl(web: &TestWeb, sites: &[usize], gap: Duration, passes: u32) {
    let pacer = Pacer::default();
    let mut tasks = tokio::task::JoinSet::new();
    for &site in sites {
        let addr = web.addr(site);
        let pacer = pacer.clone();
        tasks.spawn(async move { polite_site(addr, gap, passes, pacer).await });
    }
    // Bounded like every test: the crawl is small and its pauses are scaled down.
    tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(r) = tasks.join_next().await {
            r.expect("polite crawler task");
        }
    })
    .await
    .expect("the polite crawl finishes within 30 s");
}

async fn polite_site(addr: SocketAddr, gap: Duration, passes: u32, pacer: Pacer) {
    // robots.txt, following up to 5 redirects (on this host or another).
    let mut target_addr = addr;
    let mut target = "/robots.txt".to_owned();
    let mut rules = None;
    for _hop in 0..=5 {
        pacer.wait(target_addr, gap).await;
        let Ok(resp) =
            raw_get(target_addr, "GET", &target, &[("User-Agent", UA)], Duration::from_secs(1))
                .await
        else {
            return;
        };
        match resp.status {
            200 => {
                rules = Some(parse_rules(&resp.text(), DEFAULT_TOKEN));
                break;
            }
            301 | 302 | 307 | 308 => {
                let loc = resp.header("location").unwrap_or_default().to_owned();
                if let Some(rest) = loc.strip_prefix("http://") {
                    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
                    target_addr = host.parse().expect("redirect to a socket address");
                    target = path.to_owned();
                } else {
                    target = loc;
                }
            }
            429 | 500..=599 => return,
            _ => {
                rules = Some(Rules::default());
                break;
            }
        }
    }
    let Some(rules) = rules else { return };
    if !rules.allows("/") && !rules.allows("/events/") {
        return;
    }
    let gap = gap.max(rules.crawl_delay.unwrap_or_default());
    let mut etags: HashMap<&str, String> = HashMap::new();
    for _pass in 0..passes {
        for path in POLITE_PATHS {
            if !rules.allows(path) {
                continue;
            }
            for _attempt in 0..2 {
                pacer.wait(addr, gap).await;
                let mut headers = vec![("User-Agent", UA)];
                if let Some(tag) = etags.get(path) {
                    headers.push(("If-None-Match", tag.as_str()));
                }
                let Ok(resp) = raw_get(addr, "GET", path, &headers, Duration::from_secs(2)).await
                else {
                    return;
                };
                match resp.status {
                    429 | 503 => {
                        tokio::time::sleep(retry_after(&resp)).await;
                    }
                    401 | 403 => return,
                    200 if resp.text().contains("Please sign in") => return,
                    _ => {
                        if let Some(tag) = resp.header("etag") {
                            etags.insert(path, tag.to_owned());
                        }
                        break;
                    }
                }
            }
        }
    }
}

/// Spaces request starts per host, shared by every task of a crawl: `wait` returns no
/// sooner than `gap` after the host's last actual start, and records the new start as
/// the moment it returns (not the planned one, which a busy machine may overshoot).
#[derive(Clone, Default)]
pub struct Pacer {
    last: std::sync::Arc<std::sync::Mutex<HashMap<SocketAddr, tokio::time::Instant>>>,
}

impl Pacer {
    pub async fn wait(&self, host: SocketAddr, gap: Duration) {
        loop {
            let planned = {
                let last = self.last.lock().unwrap();
                last.get(&host).map(|l| *l + gap)
            };
            if let Some(planned) = planned {
                tokio::time::sleep_until(planned).await;
            }
            let mut last = self.last.lock().unwrap();
            let now = tokio::time::Instant::now();
            if last.get(&host).is_none_or(|l| *l + gap <= now) {
                last.insert(host, now);
                return;
            }
        }
    }
}

/// The pause a 429/503 asks for: delta-seconds, or an HTTP-date relative to `Date`.
pub fn retry_after(resp: &Resp) -> Duration {
    resp.header("retry-after")
        .and_then(|v| {
            v.parse::<u64>().ok().map(Duration::from_secs).or_else(|| {
                let date = httpdate::parse_http_date(resp.header("date")?).ok()?;
                let until = httpdate::parse_http_date(v).ok()?;
                until.duration_since(date).ok()
            })
        })
        .unwrap_or(Duration::from_secs(60))
}
