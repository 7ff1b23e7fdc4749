//! [`Diagnostics`]: what users see when a shader does not compile — each problem pinned to
//! the op it concerns when there is one ("%12 (IMul): unsupported: integer multiply has no
//! exact float mapping on lima-fp"), of a [`DiagnosticKind`] that says whose fault it is.

use irc_ir::{OpCode, SsaDef};
use thiserror::Error;

/// What kind of problem a [`Diagnostic`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiagnosticKind {
    /// The shader uses something the target cannot express (an op, a type, a feature).
    Unsupported,
    /// The program exceeds a hardware limit (registers after spilling, program size …) or one
    /// of irc's documented limits on input shape (`irc_ir::limits`).
    Limit,
    /// The input is malformed (verifier or reader error) — a user error with a location.
    Input,
    /// An internal invariant failed — a compiler bug, reported instead of panicking.
    Internal,
}

/// One problem, pinned to an op when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}", self.render())]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    pub op: Option<(SsaDef, OpCode)>,
    pub message: String,
}

impl Diagnostic {
    pub fn unsupported(op: Option<(SsaDef, OpCode)>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind: DiagnosticKind::Unsupported,
            op,
            message: message.into(),
        }
    }
    pub fn limit(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind: DiagnosticKind::Limit,
            op: None,
            message: message.into(),
        }
    }
    /// Malformed input (or a bad option) — the user's to fix.
    pub fn input(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind: DiagnosticKind::Input,
            op: None,
            message: message.into(),
        }
    }
    pub fn internal(op: Option<(SsaDef, OpCode)>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind: DiagnosticKind::Internal,
            op,
            message: message.into(),
        }
    }
    fn render(&self) -> String {
        let kind = match self.kind {
            DiagnosticKind::Unsupported => "unsupported",
            DiagnosticKind::Limit => "over a limit",
            DiagnosticKind::Input => "invalid input",
            DiagnosticKind::Internal => "internal compiler error",
        };
        match self.op {
            Some((def, opcode)) => format!("{def} ({}): {kind}: {}", opcode.name(), self.message),
            None => format!("{kind}: {}", self.message),
        }
    }
    /// A short reason for tables: the opcode name (or the message's first words) without ids.
    pub fn reason(&self) -> String {
        match self.op {
            Some((_, opcode)) => format!("{}: {}", opcode.name(), self.message),
            None => self.message.clone(),
        }
    }
}

/// The errors of a failed compilation (at least one).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}", self.0.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n"))]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

impl Diagnostics {
    /// The first diagnostic (there is always one).
    pub fn first(&self) -> Option<&Diagnostic> {
        self.0.first()
    }
    /// True if every diagnostic is `Unsupported` or `Limit` (an honest "cannot compile"), false
    /// if any is `Internal` or `Input`.
    pub fn is_unsupported(&self) -> bool {
        self.0
            .iter()
            .all(|d| matches!(d.kind, DiagnosticKind::Unsupported | DiagnosticKind::Limit))
    }
}
