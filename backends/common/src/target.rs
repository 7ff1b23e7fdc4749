//! The contract between the driver and a backend: [`Target`], the only door into a backend.
//!
//! A target says what it is (name, shader stages, a one-line description), what it executes
//! natively ([`Target::caps`], which steers the shared passes), which shared pipeline to run
//! first ([`Target::pipeline`], a typed value), which options it takes ([`Target::options`]),
//! and how to compile, disassemble, assemble and simulate. The driver, the command line and
//! the test harnesses reach backends only through this trait and the registry that lists the
//! targets; no code outside a target's own crate decides anything by a target's name.
//!
//! Adding a target is one crate implementing this trait plus one line in the registry
//! (`docs/adding-a-target.md`).

use irc_ir::{Module, ShaderStage};
use irc_passes::{PipelineKind, TargetCaps};

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::options::{CompileOptions, OptionSpec};
use crate::output::{Container, Output};
use crate::sim::Simulator;
use crate::tolerance::{Oracle, Tolerance};

/// The shared pass pipeline a target asks for, as the driver runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline {
    pub kind: PipelineKind,
    /// What the target executes natively (what the passes must not lower).
    pub caps: TargetCaps,
    /// Lower D3D9 legacy multiplies the IEEE way instead of exactly (from the target's
    /// `legacy-mul` option, where it has one).
    pub legacy_mul_ieee: bool,
    /// Compile IEEE multiplies (`FMul`, `FMad`, `FDot`, `FDotAdd`, not `Precise`) as D3D9
    /// legacy ones (`0 · x = 0`), on targets that multiply only that way (from the target's
    /// `ieee-mul` option, where it has one).
    pub ieee_mul_legacy: bool,
}

/// A compilation target (one per `--target` name).
pub trait Target: Sync {
    /// The `--target` name (`lima-fp`).
    fn name(&self) -> &'static str;
    /// The program family it belongs to (`lima`): targets of one family compile the stages of
    /// one program together (`irc compile --target lima --vs … --ps …`).
    fn family(&self) -> &'static str;
    /// One line for `irc targets` (`ARM Mali-200/400 fragment processor (PP)`).
    fn description(&self) -> &'static str;
    /// The shader stages it compiles (IR `EntryPoint` stages).
    fn stages(&self) -> &'static [ShaderStage];
    /// What it executes natively; the shared passes lower only what is missing.
    fn caps(&self) -> &TargetCaps;
    /// The shared pipeline to run before [`Target::compile`], for these options.
    fn pipeline(&self, options: &CompileOptions) -> Pipeline;
    /// The options it declares (`-C key=value`).
    fn options(&self) -> &'static [OptionSpec] {
        &[]
    }
    /// Compiles a module that went through [`Target::pipeline`].
    fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Output, Diagnostics>;
    /// Disassembles a program given as its code section, or as its container file.
    fn disassemble(&self, bytes: &[u8]) -> Result<String, Diagnostic>;
    /// Assembles text in the disassembler's syntax to the code section's bytes.
    fn assemble(&self, text: &str) -> Result<Vec<u8>, Diagnostic>;
    /// Checks any bytes (a program's code section, as [`Target::disassemble`] reads them)
    /// with the target's own validator (the rules the runtime checks before accepting a
    /// program): `Ok` with one diagnostic per broken rule, each naming the rule's error number
    /// and the instruction, empty when the program is valid; `Err` when the bytes cannot be
    /// checked at all. `None`: the target has no validator (the default).
    fn validate(&self, bytes: &[u8]) -> Option<Result<Vec<Diagnostic>, Diagnostic>> {
        let _ = bytes;
        None
    }
    /// Programs (stages compiled together by the driver): target options with which every
    /// stage of the program must be compiled again so that the stages agree on something the
    /// runtime requires of them together (AGAL: one version for the vertex and the fragment
    /// program, #3757), given each stage's output (pipeline order, this target's family);
    /// `None` when they already agree (the default).
    fn program_agreement(&self, stages: &[&Output]) -> Option<Vec<(&'static str, String)>> {
        let _ = stages;
        None
    }
    /// The simulator that runs its programs, for the differential harness.
    fn simulator(&self) -> Option<&dyn Simulator> {
        None
    }
    /// How far a run in the hardware's own precision may be from the interpreter.
    fn tolerance(&self) -> Tolerance {
        Tolerance::F32
    }
    /// How the interpreter must compute to be this target's oracle for code compiled with
    /// `options` (division, default derivatives, transcendentals the hardware's way; flushed
    /// uniforms; the multiply rule of the option's mode where a target has modes whose
    /// results differ).
    fn oracle(&self, options: &CompileOptions) -> Oracle {
        let _ = options;
        Oracle::default()
    }
    /// Program compilation: one container file holding the compiled stages of a program of
    /// this target's family (`stages` in pipeline order, each compiled with its container),
    /// for families whose container format holds several stages (PICA200: one SHBIN with a
    /// DVLE per stage). `None` (the default): one container per stage.
    fn program_container(&self, stages: &[&Output]) -> Option<Result<Container, Diagnostic>> {
        let _ = stages;
        None
    }
}

impl std::fmt::Debug for dyn Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Target({})", self.name())
    }
}
