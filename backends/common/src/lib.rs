//! `irc-backend`: what every irc backend shares (DESIGN §2, `backends/common`).
//!
//! * [`target`] — the [`Target`] trait a backend implements, the [`CompileOptions`] it receives
//!   and the [`Output`] it produces (code words, optional container, disassembly, [`Reflection`],
//!   [`Stats`]), and [`Diagnostics`]: the "unsupported op / over a limit" errors users see.
//! * [`reflection`] — how the compiled program binds to the outside world: input slots, uniform
//!   slots (and what fills them), samplers, output registers. Test harnesses use it to feed a
//!   simulator the same data the reference interpreter gets.
//! * [`sim`] — the [`Simulator`] trait: run encoded words on a target's inputs.
//! * [`tolerance`] — the per-target precision table used when comparing a simulator run with the
//!   interpreter (Lima PP computes in fp16, PICA in float24 …).
//! * [`regalloc`] — a register-allocator core for lane-structured register files (vec4 registers
//!   of 4 scalar lanes), with liveness, interference, spill-candidate choice and a symbolic
//!   [`regalloc::check`]er that re-verifies every allocation.
//! * [`machine`] — the machine layer: the [`machine::MachOp`] trait (one operand description
//!   per op), dead-write and unreachable-block removal, the dependence graph, CFG and
//!   parallel-copy helpers for lowering, the schedule → allocate → spill driver, a code buffer.
//! * [`bits`] — bit-field tables ([`bits::Field`], [`layout!`], [`opcodes!`]) for encoders,
//!   decoders and disassemblers.

pub mod bits;
pub mod machine;
pub mod reflection;
pub mod regalloc;
pub mod sim;
pub mod target;
pub mod tolerance;

pub use reflection::{
    IoSource, OutputBinding, Reflection, SamplerBinding, SamplerKind, UniformBinding,
    UniformSource, VaryingBinding,
};
pub use sim::Simulator;
pub use target::{
    CompileOptions, Diagnostic, DiagnosticKind, Diagnostics, LegacyMul, Output, Stats, Target,
};
pub use tolerance::Tolerance;
