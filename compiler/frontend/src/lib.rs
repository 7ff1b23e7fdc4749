//! # irc-frontend: from raw DXBC-IR to structured SSA
//!
//! dxbc-spirv's front-ends emit *raw* IR: functions without labels, scoped control flow
//! (`ScopedIf` … `ScopedEndSwitch`) and temporaries (`DclTmp`, `TmpLoad`, `TmpStore`). Backends
//! and most passes want structured control flow in SSA form. This crate does that in three
//! steps, matching dxbc-spirv's semantics (reference B.3, B.4) though not its code:
//!
//! 1. [`structurize`]: scoped → structured control flow (labels, branches, constructs). May
//!    leave unreachable blocks behind (code after a `break`, `return` or `continue`).
//! 2. [`unreachable`]: removes unreachable blocks, keeping (emptied) merge and continue blocks
//!    that reachable constructs name.
//! 3. [`ssa`]: temporaries → SSA values and phis (Braun et al. 2013), then trivial-phi removal.
//!
//! [`to_structured_ssa`] runs all three.

pub mod ssa;
pub mod structurize;
pub mod unreachable;

use irc_ir::{Module, OpCode, SsaDef};

/// Why the frontend could not convert a module. Every variant names the op at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontendError {
    #[error("{op} ({opcode}): {reason}")]
    Malformed {
        op: SsaDef,
        opcode: OpCode,
        reason: String,
    },
    #[error("{op} ({opcode}): unsupported: {reason}")]
    Unsupported {
        op: SsaDef,
        opcode: OpCode,
        reason: String,
    },
}

impl FrontendError {
    pub(crate) fn malformed(m: &Module, op: SsaDef, reason: impl Into<String>) -> FrontendError {
        FrontendError::Malformed {
            op,
            opcode: m.opcode(op),
            reason: reason.into(),
        }
    }
}

/// Converts raw IR to structured SSA in place: [`structurize::run`], [`unreachable::run`],
/// [`ssa::run`]. Functions that are already structured are left as they are by the first step.
pub fn to_structured_ssa(m: &mut Module) -> Result<(), FrontendError> {
    structurize::run(m)?;
    unreachable::run(m);
    ssa::run(m)
}
