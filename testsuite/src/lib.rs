//! # irc-testsuite
//!
//! Test machinery shared by `cargo test` and the `irc` CLI: the corpus runner ([`corpus`],
//! `irc corpus DIR --check STAGE`), the differential harness every target shares
//! ([`harness`]) and the filetest driver ([`filetest`], `irc test FILE`;
//! grammar in docs/testing.md).

pub mod corpus;
pub mod difftest;
pub mod equivalence;
pub mod filetest;
pub mod gen;
pub mod harness;
pub mod interp_check;
pub mod op_kinds;
pub mod pipeline;
pub mod quad_inputs;
pub mod run_inputs;
pub mod runline;
