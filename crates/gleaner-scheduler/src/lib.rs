//! When gleaner's work is due, and what one pass over a source does.
//!
//! - [`schedule`]: [`next_due`](schedule::next_due), the time a source's next pass is
//!   due ("scheduler" means *when*, never the queue);
//! - [`pass`]: [`run_pass`], the pipeline of one pass — source →
//!   frontier → gate → fetch → extract → normalise → store — with its [`PassReport`];
//! - [`links`]: event links and pagination found on listing pages;
//! - [`sink`]: the [`EventSink`] trait, and an in-memory one; [`store_sink`]: the
//!   store's implementation, [`StoreSink`], with its links codec;
//! - [`checks`]: the checks that keep stored events true (SPEC §4): the cancellation
//!   check and the link check.
//! - [`rights`]: site rights files (TDMRep, ai.txt) read through the gate, and the
//!   query "may this page be used for purpose X?" ([`rights::RightsBook`]);
//! - [`daemon`]: when the daemon's work is due ([`daemon::due_work`]: passes under
//!   failure streaks and the operator's controls, the checks, retention), for both ways
//!   of running it, and how each is run or queued;
//! - [`manual`]: a manual check's daily cap and stop on a reservation; [`report`]: the
//!   crawl's progress line, summary table and dry run, as text;
//! - [`worker`]: the worker loop of `gleaner worker` (claims from a shared queue, a
//!   lease fence on the gate's state); [`store_worker`]: the store as its queue, and
//!   the fenced store sink;
//!
//! Every request goes through `gleaner_fetch::Gate`; nothing here opens a socket or
//! writes SQL (the store sink calls `gleaner_store::Store`).

mod api_pages;
pub mod checks;
pub mod daemon;
pub mod discover;
mod kept;
pub mod links;
pub mod manual;
pub mod pass;
pub mod report;
mod retries;
pub mod rights;
pub mod schedule;
pub mod scrub;
pub mod sink;
pub mod store_sink;
pub mod store_worker;
pub mod worker;

pub use pass::{Held, HoldKind, PassContext, PassReport, Progress, SiteProblem, run_pass};
pub use sink::{EventSink, Found, MemorySink, News, Upsert};
pub use store_sink::{StoreSink, Written};
