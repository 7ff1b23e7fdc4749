//! `irc-backend`: what every irc backend shares (DESIGN §2, `backends/common`).
//!
//! * [`target`] — the [`Target`] trait, the only door into a backend: name, stages, caps, typed
//!   pipeline, declared options, compile, disassemble, assemble, simulator, tolerance.
//! * [`options`] — [`CompileOptions`] and the [`OptionSpec`]s targets declare (`-C key=value`).
//! * [`output`] — the [`Output`] of a compilation: code as named byte [`Section`]s, optional
//!   [`Container`], disassembly, [`Reflection`], [`Stats`].
//! * [`diagnostic`] — [`Diagnostics`]: the "unsupported op / over a limit" errors users see.
//! * [`io_plan`] — the uniform/varying/sampler slot plan lowerings share (uniform arrays densely
//!   packed or whole with a zero slot, the literal pool), and the [`Reflection`] it yields.
//! * [`ir_reads`] — constant lanes and descriptor bindings read the same way by every lowering.
//! * [`reflection`] — how the compiled program binds to the outside world: input slots, uniform
//!   slots (and what fills them), samplers, output registers, plus a target-specific part.
//! * [`reflection_json`] — the reflection as one versioned JSON document for every target
//!   (`docs/reflection.md`), the target's part under its name.
//! * [`sim`] — the [`Simulator`] trait: run an [`Output`] on inputs named the way the IR names
//!   them, for the one differential harness every target shares.
//! * [`tolerance`] — per-target precision and the interpreter [`Oracle`] a target needs.
//! * [`regalloc`] — a register-allocator core for lane-structured register files (vec4 registers
//!   of 4 scalar lanes), with liveness, interference, spill-candidate choice and a symbolic
//!   [`regalloc::check`]er that re-verifies every allocation.
//! * [`machine`] — the machine layer: the [`machine::MachOp`] trait (one operand description
//!   per op), dead-write and unreachable-block removal, the dependence graph, CFG and
//!   parallel-copy helpers for lowering, the schedule → allocate → spill driver, a code buffer.
//! * [`bits`] — bit-field tables ([`bits::Field`], [`layout!`], [`opcodes!`]) for encoders,
//!   decoders and disassemblers.

pub mod bits;
pub mod diagnostic;
pub mod exact_fn;
pub mod io_plan;
pub mod ir_reads;
pub mod machine;
pub mod options;
pub mod output;
pub mod reflection;
pub mod reflection_json;
pub mod regalloc;
pub mod sim;
pub mod target;
pub mod tolerance;

pub use diagnostic::{Diagnostic, DiagnosticKind, Diagnostics};
pub use irc_passes::{PipelineKind, TargetCaps};
pub use options::{CompileOptions, LegacyMul, OptionSpec};
pub use output::{Container, Output, Section, Stats, CODE};
pub use reflection::{
    IoSource, OutputBinding, Reflection, ResourceBinding, SamplerBinding, SamplerKind, TargetPart,
    TargetReflection, UniformBinding, UniformSource, VaryingBinding,
};
pub use sim::{
    InvocationOutputs, IoName, IoValues, LodMode, NoTextures, Precision, SimConfig, SimError,
    SimInputs, SimOutputs, Simulator, TextureFetch, TextureSource,
};
pub use target::{Pipeline, Target};
pub use tolerance::{Denormals, Oracle, Tolerance};
