//! One test web split over child processes, for crawls of more sites than one process's
//! open-file limit holds.
//!
//! Each site costs its web a listener and the server's end of every open connection, and
//! a crawler in the same process holds the other end: at 10,000 sites one process passes
//! the hard limit of 20,000 that some machines set even for root. [`SplitWeb::start`]
//! re-executes a binary that calls [`child_main`] first thing in its `main` (a bench or
//! a tool; a test has `env!("CARGO_BIN_EXE_…")` instead), once per slice of at most
//! `per_child` sites. Child `k` binds the addresses of its sites' indices in the whole
//! manifest ([`crate::site_ip`]), so the slices never share an address, and the crawler
//! sees one web. [`SplitWeb::stop`] closes each child's stdin; the child then writes a
//! summary line and its ledger as JSON lines to a file, and the parent merges the
//! ledgers into one [`Ledger`] over the whole manifest ([`Ledger::merge`]) that the
//! [`crate::check`] helpers judge as before.
//!
//! Sites that point at other sites (`/redirect/other-site`, `/robots-moved.txt` on
//! another host) do so within their slice, and the sample city is not supported: the
//! split web is for uniform or generated scale runs.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, SocketAddrV4};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use crate::ledger::{Ledger, LedgerPart};
use crate::manifest::Manifest;
use crate::server::{TestWeb, site_ip};

/// The first argument that makes [`child_main`] serve a slice instead of returning.
pub const CHILD_ARG: &str = "--gleaner-testweb-child";

/// What a child reports about itself when it stops (the first line of its ledger file).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ChildSummary {
    /// The whole manifest's index of the child's site 0.
    pub first_site: usize,
    /// Wall-clock time at the child's ledger epoch, in seconds since the Unix epoch.
    pub wall_epoch_secs: f64,
    /// CPU seconds (user and system) the child used.
    pub cpu_seconds: f64,
    /// The child's peak resident set, in MiB.
    pub peak_rss_mib: f64,
}

/// What the children of a [`SplitWeb`] used, summed.
#[derive(Clone, Debug, Default)]
pub struct ChildrenUsage {
    /// Number of child processes.
    pub children: usize,
    /// CPU seconds over all children.
    pub cpu_seconds: f64,
    /// The largest child's peak resident set, in MiB.
    pub max_peak_rss_mib: f64,
}

/// A running test web whose sites are served by child processes.
#[derive(Debug)]
pub struct SplitWeb {
    manifest: Arc<Manifest>,
    addrs: Vec<SocketAddr>,
    children: Vec<Running>,
    dir: PathBuf,
}

#[derive(Debug)]
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    ledger: PathBuf,
}

impl SplitWeb {
    /// Starts `ceil(sites / per_child)` children of `exe` (which must call
    /// [`child_main`]), each serving its slice of `manifest`, and waits until all listen.
    ///
    /// Files go to a fresh folder under the system's temporary folder, removed by
    /// [`SplitWeb::stop`].
    pub fn start(exe: &Path, manifest: Manifest, per_child: usize) -> io::Result<SplitWeb> {
        if manifest.city.is_some() {
            return Err(io::Error::other(
                "a split test web cannot serve the sample city: start it with `TestWeb::start`",
            ));
        }
        let per_child = per_child.max(1);
        let dir = std::env::temp_dir().join(format!(
            "gleaner-testweb-split-{}-{}",
            std::process::id(),
            SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_nanos()
        ));
        std::fs::create_dir_all(&dir)?;
        let mut web =
            SplitWeb { manifest: Arc::new(manifest), addrs: Vec::new(), children: Vec::new(), dir };
        let total = web.manifest.sites.len();
        let mut first = 0;
        // Spawn every child first, then read their ports: they bind in parallel.
        let mut pending = Vec::new();
        while first < total {
            let n = per_child.min(total - first);
            let slice = Manifest {
                sites: web.manifest.sites[first..first + n].to_vec(),
                ..Manifest::clone(&web.manifest)
            };
            let manifest_path = web.dir.join(format!("manifest-{first}.json"));
            std::fs::write(&manifest_path, serde_json::to_vec(&slice).map_err(io::Error::other)?)?;
            let ledger = web.dir.join(format!("ledger-{first}.jsonl"));
            let mut child = Command::new(exe)
                .arg(CHILD_ARG)
                .arg(&manifest_path)
                .arg(first.to_string())
                .arg(&ledger)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()?;
            let stdin = child.stdin.take();
            let stdout = child.stdout.take();
            web.children.push(Running { child, stdin, ledger });
            pending.push((first, n, stdout));
            first += n;
        }
        for (first, n, stdout) in pending {
            let mut line = String::new();
            if let Some(out) = stdout {
                BufReader::new(out).read_line(&mut line)?;
            }
            let port: u16 = line.trim().strip_prefix("listening ").and_then(|p| p.parse().ok()).ok_or_else(|| {
                io::Error::other(format!(
                    "the test-web child for sites {first}..{} did not start (it said `{}`): see its error above",
                    first + n,
                    line.trim()
                ))
            })?;
            web.addrs.extend(
                (first..first + n).map(|i| SocketAddr::V4(SocketAddrV4::new(site_ip(i), port))),
            );
        }
        Ok(web)
    }

    /// Number of sites.
    pub fn len(&self) -> usize {
        self.addrs.len()
    }

    /// Whether the web has no sites.
    pub fn is_empty(&self) -> bool {
        self.addrs.is_empty()
    }

    /// The number of child processes.
    pub fn children(&self) -> usize {
        self.children.len()
    }

    /// The socket address of site `i`.
    pub fn addr(&self, i: usize) -> SocketAddr {
        self.addrs[i]
    }

    /// The URL of `path` (which starts with `/`) on site `i`.
    pub fn url(&self, i: usize, path: &str) -> String {
        format!("http://{}{path}", self.addrs[i])
    }

    /// The whole manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Stops every child (waiting at most `patience` for each to write its ledger) and
    /// returns the merged ledger and what the children used.
    pub fn stop(mut self, patience: Duration) -> io::Result<(Ledger, ChildrenUsage)> {
        for running in &mut self.children {
            // End of input is the stop signal.
            drop(running.stdin.take());
        }
        let mut parts = Vec::new();
        let mut usage = ChildrenUsage { children: self.children.len(), ..ChildrenUsage::default() };
        for running in &mut self.children {
            let until = Instant::now() + patience;
            loop {
                if running.child.try_wait()?.is_some() {
                    break;
                }
                if Instant::now() >= until {
                    let _ = running.child.kill();
                    let _ = running.child.wait();
                    return Err(io::Error::other(format!(
                        "a test-web child did not stop within {patience:?}: its ledger `{}` is incomplete",
                        running.ledger.display()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let text = std::fs::read_to_string(&running.ledger)?;
            let (head, rest) = text.split_once('\n').unwrap_or((&text, ""));
            let summary: ChildSummary = serde_json::from_str(head).map_err(io::Error::other)?;
            usage.cpu_seconds += summary.cpu_seconds;
            usage.max_peak_rss_mib = usage.max_peak_rss_mib.max(summary.peak_rss_mib);
            parts.push(LedgerPart {
                first_site: summary.first_site,
                wall_epoch: SystemTime::UNIX_EPOCH
                    + Duration::try_from_secs_f64(summary.wall_epoch_secs).unwrap_or_default(),
                entries: Ledger::entries_from_json_lines(rest).map_err(io::Error::other)?,
            });
        }
        let _ = std::fs::remove_dir_all(&self.dir);
        Ok((Ledger::merge(parts, Arc::clone(&self.manifest)), usage))
    }
}

impl Drop for SplitWeb {
    fn drop(&mut self) {
        for running in &mut self.children {
            if running.child.try_wait().ok().flatten().is_none() {
                let _ = running.child.kill();
                let _ = running.child.wait();
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The child's side: when `args` (this process's arguments) start with [`CHILD_ARG`],
/// serves the slice they name until stdin closes, writes the ledger file and returns
/// `Some(exit code)`; otherwise returns `None` at once, for `main` to go on.
pub fn child_main(args: &[String]) -> Option<i32> {
    if args.get(1).map(String::as_str) != Some(CHILD_ARG) {
        return None;
    }
    match serve_child(&args[2..]) {
        Ok(()) => Some(0),
        Err(error) => {
            // The parent reads stdout for the port; the reason goes to stderr.
            let _ = writeln!(io::stderr(), "error: test-web child: {error}");
            Some(1)
        }
    }
}

fn serve_child(args: &[String]) -> io::Result<()> {
    let [manifest_path, first, ledger_path] = args else {
        return Err(io::Error::other(format!(
            "expected `{CHILD_ARG} MANIFEST FIRST_SITE LEDGER`, got {} arguments",
            args.len()
        )));
    };
    let manifest: Manifest = serde_json::from_slice(&std::fs::read(manifest_path)?)
        .map_err(|e| io::Error::other(format!("bad manifest `{manifest_path}`: {e}")))?;
    let first: usize =
        first.parse().map_err(|_| io::Error::other(format!("bad first site `{first}`")))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let web = rt.block_on(TestWeb::start_at(manifest, first))?;
    let port = web.sites().first().map_or(0, SocketAddr::port);
    {
        let mut out = io::stdout().lock();
        writeln!(out, "listening {port}")?;
        out.flush()?;
    }
    // Wait for the parent to close stdin (or go away).
    let mut sink = Vec::new();
    let _ = io::stdin().lock().read_to_end(&mut sink);
    let ledger = web.ledger();
    let summary = ChildSummary {
        first_site: first,
        wall_epoch_secs: ledger
            .wall_epoch
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64(),
        cpu_seconds: cpu_seconds(),
        peak_rss_mib: status_mib("VmHWM:"),
    };
    let mut text = serde_json::to_string(&summary).map_err(io::Error::other)?;
    text.push('\n');
    text.push_str(&ledger.to_json_lines());
    std::fs::write(ledger_path, text)?;
    rt.block_on(web.shutdown());
    Ok(())
}

/// Seconds of CPU this process used (user + system), from `/proc/self/stat` (0 elsewhere).
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at state (field 3).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 (indexes 11 and 12 here); 100 ticks a second.
    (ticks(11) + ticks(12)) / 100.0
}

/// A `/proc/self/status` figure in MiB (`VmHWM:` peak, `VmRSS:` now; 0 elsewhere).
pub fn status_mib(key: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}
