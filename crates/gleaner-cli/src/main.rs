//! The `gleaner` command.
fn main() {}
