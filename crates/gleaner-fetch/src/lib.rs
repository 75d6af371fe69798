//! The only code in gleaner that opens connections.
//!
//! - [`client`]: [`Client`], a polite HTTP client (fixed User-Agent, GET/HEAD only, no
//!   cookies or Referer, limits on time and size, conditional requests) that never
//!   follows redirects itself;
//! - [`ssrf`]: the address guard, checking URL hosts in every form and every resolved
//!   address, and connecting only to checked addresses;
//! - [`transport`]: the send step behind the client ([`Transport`]): reqwest in
//!   production, the test web's in-process transport in tests on paused time;
//! - [`signing`]: Web Bot Auth request signatures (RFC 9421, Ed25519), made at send time;
//! - [`redirect`]: [`RedirectChain`], the hop-by-hop redirect rules that do not depend on
//!   the target site (hop count, loops, schemes, credentials, secrets across hosts).
//!
//! The gate, which decides *whether and when* a request may start (robots.txt, budgets,
//! suspensions), sits in front of this crate; policy decisions come from
//! `gleaner-policy`.

pub mod client;
pub mod gate;
mod kept;
pub mod redirect;
pub mod robots;
pub mod signing;
pub mod ssrf;
pub mod transport;

pub use client::{Client, ClientSettings, FetchError, FetchRequest, Fetched, Method, Validators};
pub use gate::{Gate, GateOutcome, GateRequest, Refusal, site_key};
pub use redirect::{RedirectChain, RedirectError};
pub use robots::{RobotsRead, read_robots, robots_url};
pub use ssrf::{AddressPolicy, SsrfRefusal};
pub use transport::{Incoming, Outgoing, ResponseBody, Transport};
