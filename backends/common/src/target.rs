//! The contract between the driver and a backend.
//!
//! The driver (`irc::compile`) reads the input, runs the shared pipeline the target asks for
//! ([`Target::pipeline`]) and hands the optimized module to [`Target::compile`]. A backend
//! either returns an [`Output`] or [`Diagnostics`] naming, for each problem, the op and why
//! ("unsupported: %12 (IMul): integer multiply has no exact float mapping on lima-fp").

use irc_ir::{Module, OpCode, SsaDef};
use thiserror::Error;

use crate::reflection::Reflection;

/// A compilation target (one per `--target` name).
pub trait Target: Sync {
    /// The `--target` name (`lima-fp`).
    fn name(&self) -> &'static str;
    /// The shared pass pipeline to run first (`opt:lima`), understood by
    /// `irc_passes::pipelines::run`.
    fn pipeline(&self) -> &'static str;
    /// Compiles a module that went through [`Target::pipeline`].
    fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Output, Diagnostics>;
}

/// How D3D9 legacy multiplies (`0 · x = 0` even for inf/NaN `x`) are compiled on targets that
/// only multiply the IEEE way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LegacyMul {
    /// Exact D3D9 semantics (selects around the multiply). The default: on fp16 hardware
    /// overflow to infinity is common, and `0 · inf` must stay 0.
    #[default]
    Exact,
    /// Plain IEEE multiply: smaller code, differs only when one factor is 0 and the other is
    /// infinite or NaN.
    Ieee,
}

/// Options of one compilation.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileOptions {
    /// Optimization level of the shared pipeline (0, 1, 2).
    pub opt_level: u8,
    pub legacy_mul: LegacyMul,
    /// Also produce the target's container format (Lima: MBS1).
    pub container: bool,
    /// Force at least this many values to be spilled (tests the spill path; 0 = normal).
    pub force_spills: u32,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            opt_level: 2,
            legacy_mul: LegacyMul::Exact,
            container: false,
            force_spills: 0,
        }
    }
}

/// Figures about a compiled program (all counts are of the final code).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Machine instructions (Lima PP: variable-length instruction bundles).
    pub instructions: u32,
    /// 32-bit code words.
    pub words: u32,
    /// Distinct hardware registers used (vec4 registers).
    pub registers: u32,
    /// Values spilled to memory / reloads from memory.
    pub spills: u32,
    pub fills: u32,
    /// Filled unit slots over all instructions (for "units per instruction").
    pub units_filled: u32,
    /// Lower bound on the instruction count (e.g. the busiest unit class's op count).
    pub lower_bound: u32,
    /// IR ops the backend consumed.
    pub ir_ops: u32,
}

/// The result of a compilation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Output {
    /// The program as little-endian 32-bit words.
    pub words: Vec<u32>,
    /// The target's container (MBS1 for Lima) when [`CompileOptions::container`] is set.
    pub container: Option<Vec<u8>>,
    /// Disassembly decoded from `words` by the target's own decoder.
    pub disassembly: String,
    pub reflection: Reflection,
    pub stats: Stats,
}

impl Output {
    /// `words` as little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// What kind of problem a [`Diagnostic`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiagnosticKind {
    /// The shader uses something the target cannot express (an op, a type, a feature).
    Unsupported,
    /// The program exceeds a hardware limit (registers after spilling, program size …).
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
            DiagnosticKind::Limit => "over a hardware limit",
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
