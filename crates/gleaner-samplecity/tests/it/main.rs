//! Integration tests of the sample city: every content kind parses with a standard tool,
//! the ground truth matches what the pages say, passes change content, and the demo
//! server answers on loopback.
//!
//! One test binary for the crate (STYLE.md, "Integration: one binary per crate").

mod content;
mod images;
mod server;
mod support;
mod truth;
