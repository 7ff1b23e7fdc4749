//! # irc-passes: the pass manager and the shared IR passes
//!
//! [`manager`] runs passes with verification, timing and printing; [`registry`] names every
//! pass; [`pipelines`] strings them together. Each pass lives in its own file with a `//!` doc
//! explaining its algorithm.

pub mod call_helpers;
pub mod caps;
pub mod cfg_cleanup;
pub mod compare;
pub mod const_fold;
pub mod dce;
pub mod dead_io;
pub mod dissolve_loops;
pub mod float_bit_webs;
pub mod float_facts;
pub mod fold_gs_vertex_count;
#[cfg(test)]
mod fold_tests;
pub mod fold_util;
pub mod gvn;
pub mod gvn_pure;
pub mod if_convert;
pub mod inline;
pub mod int_range;
pub mod int_to_float;
pub mod legacy_clamp;
pub mod legacy_finite;
pub mod legacy_state;
pub mod legalize_ops;
pub mod licm;
pub mod lower_consume;
pub mod lower_dot;
pub mod lower_legacy;
pub mod lower_min16;
pub mod lower_trig;
pub mod manager;
pub mod pipelines;
pub mod propagate_types;
pub mod registry;
pub mod relax_ieee_mul;
pub mod scratch_to_regs;
pub mod simplify;
pub mod trim_legacy_guards;
pub mod types_util;
pub mod unroll;
pub mod vectorize;

pub use caps::{PassContext, TargetCaps};
pub use manager::{ManagerOptions, PassManager, PrintAfter, Timing};
pub use pipelines::PipelineKind;

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
    /// The module uses something the pass (or the target) cannot handle; names the op.
    #[error("{op} ({opcode}): unsupported: {reason}")]
    Unsupported {
        op: irc_ir::SsaDef,
        opcode: irc_ir::OpCode,
        reason: String,
    },
    /// An internal invariant failed; names the op.
    #[error("{op} ({opcode}): internal error in pass `{pass}`: {reason}")]
    Internal {
        pass: &'static str,
        op: irc_ir::SsaDef,
        opcode: irc_ir::OpCode,
        reason: String,
    },
}
