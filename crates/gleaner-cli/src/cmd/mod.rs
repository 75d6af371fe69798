//! One module per subcommand.

pub mod audit;
pub mod config;
pub mod crawl;
pub mod demo;
pub mod discover;
pub mod explain;
pub mod export;
pub mod extract;
pub mod extract_fetch;
pub mod fetch;
pub mod identity;
pub mod optout;
pub mod page;
pub mod purge;
pub mod remove;
pub mod robots;
pub mod run;
pub mod takedown;
pub mod worker;
