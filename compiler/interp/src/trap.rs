//! Traps: the ways a run can stop without producing outputs. A trap is a value (DESIGN.md rule 8),
//! pinned to the op that caused it; the interpreter never panics on a malformed module.

use irc_ir::{OpCode, SsaDef};

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrapKind {
    /// An index into an input, output, constant, composite or parameter was out of range.
    #[error("out-of-range access")]
    OutOfBounds,
    /// The step limit was reached.
    #[error("fuel exhausted")]
    FuelExhausted,
    /// The interpreter does not implement this op (see the crate docs for the list).
    #[error("unsupported op {0}")]
    Unsupported(OpCode),
    /// The shader stage is not executable (hull, domain).
    #[error("unsupported shader stage")]
    UnsupportedStage,
    /// `Unreachable` was executed.
    #[error("reached Unreachable")]
    Unreachable,
    /// Function calls nested deeper than the limit (recursion).
    #[error("call depth limit exceeded")]
    CallDepth,
    /// The module is malformed in a way that prevents execution; the text says how.
    #[error("bad module: {0}")]
    BadModule(String),
}

/// A trap: what happened and at which op. Traps that belong to no particular op (no entry
/// point, …) name the def with index 0.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("trap at {op}: {kind}")]
pub struct Trap {
    pub op: SsaDef,
    pub kind: TrapKind,
}

impl Trap {
    pub fn new(op: SsaDef, kind: TrapKind) -> Trap {
        Trap { op, kind }
    }
    pub fn bad(op: SsaDef, why: impl Into<String>) -> Trap {
        Trap {
            op,
            kind: TrapKind::BadModule(why.into()),
        }
    }
}
