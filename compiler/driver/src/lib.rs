//! # irc: the embedding API
//!
//! One call compiles a DXBC-IR shader (dxbc-spirv's binary format, the `.ir` text format, or
//! a module built in memory) for a target GPU:
//!
//! ```
//! use irc::{Input, Options};
//!
//! // A pixel shader passing its input colour through (docs/ir-text.md).
//! let shader = r#"
//! %1 = EntryPoint %4 Pixel
//! %2 = f32x4 DclInput %1 0 0 None
//! %3 = f32x4 DclOutput %1 0 0
//! %4 = Function
//! %5 = Label None
//!   %6 = f32x4 InputLoad %2 null
//!   %7 = OutputStore %3 null %6
//!   %8 = Return
//! %9 = FunctionEnd
//! "#;
//!
//! let mut options = Options::default();
//! options.backend.opt_level = 2;
//! match irc::compile(Input::Text(shader), "lima-fp", &options) {
//!     Ok(output) => {
//!         let _code: Vec<u8> = output.bytes(); // little-endian words for the GPU
//!         println!("{}", output.disassembly);
//!     }
//!     // Unsupported ops, hardware limits, malformed input: each names the op and why.
//!     Err(diagnostics) => eprintln!("{diagnostics}"),
//! }
//!
//! // The module the backend receives (for test harnesses and debugging).
//! let module = irc::prepare(Input::Text(shader), "lima-fp", &options).expect("valid shader");
//! assert!(irc_ir::verifier::verify(&module).is_ok());
//!
//! // Bad input is a diagnostic, never a panic.
//! let err = irc::compile(Input::Text("%1 = Bogus"), "lima-fp", &options).unwrap_err();
//! assert_eq!(err.0[0].kind, irc_backend::DiagnosticKind::Input);
//! ```
//!
//! ## What happens
//!
//! [`prepare`] does everything before code generation, [`compile`] adds the target's
//! [`Target::compile`]:
//!
//! 1. **read** the [`Input`] (errors: `Input` diagnostics with the reader's location text);
//! 2. **verify** (each verifier error an `Input` diagnostic pinned to its op);
//! 3. **specialize** for the D3D9 fixed-function state in [`Options::legacy_state`] (the
//!    `legacy-state` pass: alpha test, fog, point sprites, … become constants);
//! 4. run **the target's pipeline** ([`Target::pipeline`], e.g. `opt:lima`) at
//!    `options.backend.opt_level`, lowering legacy multiplies exactly or the IEEE way as
//!    `options.backend.legacy_mul` says (pass errors: `Unsupported` diagnostics naming the op,
//!    or `Internal` ones for compiler bugs);
//! 5. ([`compile`] only) the target's code generator.
//!
//! Nothing here panics on any input: a panic inside the compiler (a bug) is caught and
//! reported as an `Internal` diagnostic. Every error carries at least one [`Diagnostic`].
//!
//! Targets: [`targets`] lists them, [`target`] finds one by its `--target` name.

mod diag;
mod input;
mod options;

pub use input::Input;
pub use irc_backend::{
    CompileOptions, Diagnostic, DiagnosticKind, Diagnostics, LegacyMul, Output, Reflection, Stats,
    Target,
};
pub use irc_passes::legacy_state::LegacyState;
pub use options::Options;

use irc_ir::Module;
use irc_passes::{pipelines, ManagerOptions, PassManager};

static TARGETS: &[&dyn Target] = &[&irc_lima::pp::LimaFp];

/// Every target, in a fixed order.
pub fn targets() -> &'static [&'static dyn Target] {
    TARGETS
}

/// The target with this `--target` name (`lima-fp`).
pub fn target(name: &str) -> Option<&'static dyn Target> {
    TARGETS.iter().copied().find(|t| t.name() == name)
}

/// The target named `name`, or an `Input` diagnostic listing the known ones.
fn find_target(name: &str) -> Result<&'static dyn Target, Diagnostics> {
    target(name).ok_or_else(|| {
        let known: Vec<&str> = TARGETS.iter().map(|t| t.name()).collect();
        input::input_error(format!(
            "unknown target `{name}` (known targets: {})",
            known.join(", ")
        ))
        .into()
    })
}

/// Compiles `input` for the target named `target`.
pub fn compile(input: Input<'_>, target: &str, options: &Options) -> Result<Output, Diagnostics> {
    let t = find_target(target)?;
    diag::guard(|| {
        let m = prepare_for(input, t, options)?;
        t.compile(&m, &options.backend)
    })
}

/// Everything [`compile`] does before the target's code generator: the module exactly as the
/// backend receives it.
pub fn prepare(input: Input<'_>, target: &str, options: &Options) -> Result<Module, Diagnostics> {
    let t = find_target(target)?;
    diag::guard(|| prepare_for(input, t, options))
}

fn prepare_for(
    input: Input<'_>,
    target: &dyn Target,
    options: &Options,
) -> Result<Module, Diagnostics> {
    let mut m = input::read(input)?;
    input::verify(&m)?;
    let mut pm = PassManager::new(ManagerOptions::default());
    pm.context.opt_level = options.backend.opt_level;
    pm.context.legacy_state = options.legacy_state.clone();
    pm.context.legacy_mul_ieee = options.backend.legacy_mul == LegacyMul::Ieee;
    pm.run_named(&mut m, "legacy-state")
        .map_err(diag::from_pass)?;
    pipelines::run(&mut pm, &mut m, target.pipeline()).map_err(diag::from_pass)?;
    Ok(m)
}
