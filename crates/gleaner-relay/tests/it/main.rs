//! Integration tests of the image relay against the loopback test web and its ledger.

mod relay;
