//! Integration tests of the `gleaner` binary: the stable command-line contracts, run
//! through the real executable.

mod config;
mod copies;
mod crash;
mod crawl;
mod demo;
mod discover;
mod export;
mod extract;
mod fetch;
mod identity;
mod llm;
mod merge;
mod owners;
mod profiles;
mod relay;
mod robots;
mod run;
mod server;
mod store;
mod util;
mod workers;
