//! One module per subcommand.

pub mod config;
pub mod extract;
pub mod fetch;
pub mod robots;
