//! # irc-testsuite
//!
//! Test machinery shared by `cargo test` and the `irc` CLI: the corpus runner ([`corpus`],
//! `irc corpus DIR --check STAGE`) and the filetest driver ([`filetest`], `irc test FILE`;
//! grammar in docs/testing.md).

pub mod corpus;
pub mod difftest;
pub mod equivalence;
pub mod filetest;
pub mod gen;
pub mod interp_check;
pub mod lima_fp;
pub mod pipeline;
pub mod runline;
