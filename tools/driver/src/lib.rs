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
//!         let _code: &[u8] = output.code(); // the code section, as the GPU reads it
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
//! 2. **verify** (each verifier error an `Input` diagnostic pinned to its op), and check the
//!    entry point's stage is one of [`Target::stages`] (else one `Unsupported` diagnostic,
//!    `lima-fp compiles pixel shaders only`);
//! 3. **specialize** for the D3D9 fixed-function state in [`Options::legacy_state`] (the
//!    `legacy-state` pass: alpha test, fog, point sprites, … become constants);
//! 4. run **the target's pipeline** ([`Target::pipeline`]: the optimizer with the target's
//!    capabilities) at `options.backend.opt_level`, lowering legacy multiplies exactly or the
//!    IEEE way as the target's `legacy-mul` option says (pass errors: `Unsupported`
//!    diagnostics naming the op, or `Internal` ones for compiler bugs);
//! 5. ([`compile`] only) the target's code generator.
//!
//! Nothing here panics on any input: a panic inside the compiler (a bug) is caught and
//! reported as an `Internal` diagnostic. Every error carries at least one [`Diagnostic`].
//!
//! Target options are set by key, as `-C key=value` on the command line:
//! `options.backend.set("legacy-mul", "ieee")`; each target lists its own
//! ([`Target::options`]), and an unknown key or value is an `Input` diagnostic.
//!
//! Targets: [`targets`] lists them, [`target`] finds one by its `--target` name; the
//! [`Registry`] holds both (and the capability profiles of `irc opt --pipeline opt:NAME`).
//! [`compile_program`] compiles the stages of one program together (varyings linked by the
//! IR's I/O locations).
//!
//! ## Many shaders
//!
//! A translation layer compiling thousands of shaders at load time keeps one [`Compiler`] per
//! thread: the target is looked up and the options checked once, and the pass manager is kept
//! from one shader to the next.
//!
//! ## Reflection as JSON
//!
//! [`reflection_json::to_json`] (or [`Compiler::reflection_json`]) gives the reflection as one
//! JSON document whose schema is the same for every target (`docs/reflection.md`,
//! `docs/reflection.schema.json`).

mod compiler;
mod diag;
mod input;
pub mod listing;
mod options;
pub mod program;
pub mod registry;

pub use compiler::Compiler;
pub use input::Input;
/// The reflection as JSON (`docs/reflection.md`): [`reflection_json::to_json`]`(target, &output)`.
pub use irc_backend::reflection_json;
pub use irc_backend::{
    CompileOptions, Diagnostic, DiagnosticKind, Diagnostics, LegacyMul, Output, Reflection, Stats,
    Target,
};
pub use irc_passes::legacy_state::LegacyState;
pub use options::Options;
pub use program::{compile_program, ProgramOutput};
pub use registry::Registry;

use irc_ir::Module;
use irc_passes::{pipelines, ManagerOptions, PassManager};

/// Every built-in target, in a fixed order.
pub fn targets() -> &'static [&'static dyn Target] {
    Registry::builtin().targets()
}

/// The built-in target with this `--target` name (`lima-fp`).
pub fn target(name: &str) -> Option<&'static dyn Target> {
    Registry::builtin().target(name)
}

/// The target named `name` in `registry`, or an `Input` diagnostic listing the known ones.
pub fn find_target(registry: &Registry, name: &str) -> Result<&'static dyn Target, Diagnostics> {
    registry.target(name).ok_or_else(|| {
        Diagnostic::input(format!(
            "unknown target `{name}` (known targets: {})",
            registry.names().join(", ")
        ))
        .into()
    })
}

/// Checks `bytes` (a program's code section) with the validator of the built-in target or
/// family named `target` ([`Target::validate`]; a family name picks any of its targets, whose
/// validators read the same format): the broken rules, each an `Input` diagnostic naming its
/// error number and instruction, empty when the program is valid. Errors: an unknown name, a
/// target without a validator, or bytes that cannot be checked at all.
///
/// ```
/// // An empty AGAL program breaks rule #3615 (agal.md §7).
/// let broken = irc::validate(&[], "agal").unwrap();
/// assert!(broken[0].message.contains("Error #3615"));
/// // Lima has no validator; unknown names are errors too.
/// assert!(irc::validate(&[], "lima-fp").unwrap_err().to_string().contains("no validator"));
/// assert!(irc::validate(&[], "no-such-target").is_err());
/// ```
pub fn validate(bytes: &[u8], target: &str) -> Result<Vec<Diagnostic>, Diagnostics> {
    let registry = Registry::builtin();
    let t = registry.resolve(target).ok_or_else(|| {
        Diagnostics::from(Diagnostic::input(format!(
            "unknown target `{target}` (known targets: {})",
            registry.names().join(", ")
        )))
    })?;
    validate_for(bytes, t)
}

/// [`validate`] for a target value.
pub fn validate_for(bytes: &[u8], target: &dyn Target) -> Result<Vec<Diagnostic>, Diagnostics> {
    diag::guard(|| match target.validate(bytes) {
        Some(r) => r.map_err(Diagnostics::from),
        None => Err(Diagnostic::unsupported(
            None,
            format!("target `{}` has no validator", target.name()),
        )
        .into()),
    })
}

/// The shader stage of `input`'s entry point (to pick a target whose
/// [`Target::stages`] has it). Errors: the reader's `Input` diagnostic, or one for a module
/// without an entry point.
///
/// ```
/// let src = "%1 = EntryPoint %2 Pixel\n%2 = Function\n%3 = Label None\n%4 = Return\n\
///            %5 = FunctionEnd\n";
/// let stage = irc::shader_stage(irc::Input::Text(src)).unwrap();
/// assert_eq!(stage, irc_ir::ShaderStage::Pixel);
/// assert!(irc::target("lima-fp").unwrap().stages().contains(&stage));
/// assert!(irc::shader_stage(irc::Input::Binary(&[1, 2])).is_err());
/// ```
pub fn shader_stage(input: Input<'_>) -> Result<irc_ir::ShaderStage, Diagnostics> {
    diag::guard(|| program::stage_of(&input::read(input)?))
}

/// The shader stage of a module's entry point (an `Input` diagnostic when it has none).
pub fn module_stage(m: &Module) -> Result<irc_ir::ShaderStage, Diagnostics> {
    program::stage_of(m)
}

/// Compiles `input` for the built-in target named `target`.
pub fn compile(input: Input<'_>, target: &str, options: &Options) -> Result<Output, Diagnostics> {
    compile_for(input, find_target(Registry::builtin(), target)?, options)
}

/// Compiles `input` for `target`.
pub fn compile_for(
    input: Input<'_>,
    target: &dyn Target,
    options: &Options,
) -> Result<Output, Diagnostics> {
    diag::guard(|| {
        let m = prepare_module(input, target, options)?;
        target.compile(&m, &options.backend)
    })
}

/// Everything [`compile`] does before the target's code generator: the module exactly as the
/// backend receives it.
pub fn prepare(input: Input<'_>, target: &str, options: &Options) -> Result<Module, Diagnostics> {
    prepare_for(input, find_target(Registry::builtin(), target)?, options)
}

/// [`prepare`] for a target value.
pub fn prepare_for(
    input: Input<'_>,
    target: &dyn Target,
    options: &Options,
) -> Result<Module, Diagnostics> {
    diag::guard(|| prepare_module(input, target, options))
}

fn prepare_module(
    input: Input<'_>,
    target: &dyn Target,
    options: &Options,
) -> Result<Module, Diagnostics> {
    let mut pm = PassManager::new(ManagerOptions::default());
    prepare_with(&mut pm, input, target, options)
}

/// [`prepare_module`] with a pass manager the caller keeps (see [`Compiler`]).
pub(crate) fn prepare_with(
    pm: &mut PassManager,
    input: Input<'_>,
    target: &dyn Target,
    options: &Options,
) -> Result<Module, Diagnostics> {
    options
        .backend
        .validate(target.name(), target.options())
        .map_err(Diagnostics::from)?;
    let mut m = input::read(input)?;
    run_pipeline(pm, &mut m, target, options)?;
    Ok(m)
}

/// The module's shape within [`irc_ir::limits`] (a `Limit` diagnostic at the op that passes
/// one).
fn check_limits(m: &Module) -> Result<(), Diagnostics> {
    use irc_ir::limits::{nesting_over, MAX_NESTING};
    match nesting_over(m, MAX_NESTING) {
        None => Ok(()),
        Some((d, depth)) => {
            let mut e = Diagnostic::limit(format!(
                "control flow nested {depth} deep; irc compiles at most {MAX_NESTING} nested constructs"
            ));
            e.op = Some((d, m.opcode(d)));
            Err(Diagnostics::from(e))
        }
    }
}

/// D3D's I/O registers per stage (shader model 5: `v0–v31`, `o0–o31`).
const MAX_IO_LOCATIONS: u64 = 32;

/// Every target's I/O registers are vec4s, as D3D's are: an input or output declared at
/// component `c` with an `n`-component type must fit (`c + n ≤ 4`), at a location below
/// [`MAX_IO_LOCATIONS`]. Verifier-clean IR from other producers may say otherwise (the IR
/// allows any 64-bit literal; the `compile_ir` fuzz target found a location of 2^64 − 64 that
/// overflowed lima-vp's varying key, and pica-gs read location 2^32 + 1 as 1); that is
/// `Unsupported` at the declaration, never a wrapped lane or register.
fn check_io_declarations(m: &Module) -> Result<(), Diagnostics> {
    use irc_ir::format::{DclInput, DclOutput};
    use irc_ir::OpCode;
    for d in m.iter() {
        let op = m.op(d);
        let (location, component) = match op.opcode {
            OpCode::DclInput => {
                let i = DclInput::of(op);
                (i.location(), i.component())
            }
            OpCode::DclOutput => {
                let o = DclOutput::of(op);
                (o.location(), o.component())
            }
            _ => continue,
        };
        let width: u64 = op
            .ty
            .members()
            .iter()
            .map(|t| u64::from(t.vec_size()))
            .max()
            .unwrap_or(0);
        let (location, component) = (location.unwrap_or(0), component.unwrap_or(0));
        let message = if location >= MAX_IO_LOCATIONS {
            format!(
                "an I/O declaration at location {location} (Direct3D has locations 0–{})",
                MAX_IO_LOCATIONS - 1
            )
        } else if component.saturating_add(width) > 4 {
            format!(
                "an I/O declaration at component {component} with {width} components \
                 reaches past its vec4 register"
            )
        } else {
            continue;
        };
        let mut e = Diagnostic::unsupported(None, message);
        e.op = Some((d, op.opcode));
        return Err(e.into());
    }
    Ok(())
}

/// A shader of a stage `target` does not compile is `Unsupported`, with one message per
/// target (`lima-fp compiles pixel shaders only`) so that tables of reasons group them.
/// Modules without an entry point are left to the target.
fn check_stage(m: &Module, target: &dyn Target) -> Result<(), Diagnostics> {
    let Ok(stage) = program::stage_of(m) else {
        return Ok(());
    };
    if target.stages().contains(&stage) {
        return Ok(());
    }
    let names: Vec<String> = target
        .stages()
        .iter()
        .map(|s| {
            irc_ir::LitEnum::ShaderStage
                .name_of(u64::from(s.0))
                .unwrap_or_else(|| s.0.to_string())
                .to_lowercase()
        })
        .collect();
    Err(Diagnostic::unsupported(
        None,
        format!(
            "{} compiles {} shaders only",
            target.name(),
            names.join(", ")
        ),
    )
    .into())
}

/// Verifies `m`, checks its stage, specializes it for the legacy state and runs the target's pipeline on it.
pub(crate) fn run_pipeline(
    pm: &mut PassManager,
    m: &mut Module,
    target: &dyn Target,
    options: &Options,
) -> Result<(), Diagnostics> {
    check_limits(m)?;
    input::verify(m)?;
    check_stage(m, target)?;
    check_io_declarations(m)?;
    let pipeline = target.pipeline(&options.backend);
    pm.options.verify = options.verify_each_pass || ManagerOptions::default().verify;
    pm.context.opt_level = options.backend.opt_level;
    pm.context.legacy_state = options.legacy_state.clone();
    pm.context.legacy_mul_ieee = pipeline.legacy_mul_ieee;
    pm.context.ieee_mul_legacy = pipeline.ieee_mul_legacy;
    // `legacy-mul=clamp` and `finite`, on the targets that declare the option.
    let legacy_mul = LegacyMul::of_target(target.options(), &options.backend);
    pm.context.legacy_mul_clamp = legacy_mul == Some(LegacyMul::Clamp);
    pm.context.legacy_mul_finite = legacy_mul == Some(LegacyMul::Finite);
    pm.context.caps = pipeline.caps;
    pm.run_named(m, "legacy-state").map_err(diag::from_pass)?;
    pipelines::run(pm, m, pipeline.kind).map_err(diag::from_pass)?;
    Ok(())
}
