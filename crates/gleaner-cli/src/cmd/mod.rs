//! One module per subcommand.

pub mod robots;
