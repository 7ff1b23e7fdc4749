//! # irc-passes: the pass manager and the shared IR passes
//!
//! [`manager`] runs passes with verification, timing and printing; [`registry`] names every
//! pass; [`pipelines`] strings them together. Each pass lives in its own file with a `//!` doc
//! explaining its algorithm.

pub mod manager;
pub mod pipelines;
pub mod registry;

pub use manager::{ManagerOptions, PassManager, PrintAfter};

/// Why a pass or pipeline failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PassError {
    #[error(transparent)]
    Frontend(#[from] irc_frontend::FrontendError),
    #[error("verifier errors after pass `{pass}`:\n{errors}")]
    Verifier { pass: &'static str, errors: String },
    #[error("unknown pass `{0}`")]
    UnknownPass(String),
    #[error("unknown pipeline `{0}`")]
    UnknownPipeline(String),
}
