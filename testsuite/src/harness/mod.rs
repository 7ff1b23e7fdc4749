//! The differential harness every target shares: compiled code in the target's simulator
//! against the reference interpreter, through the [`Target`] trait only.
//!
//! [`compare_run`] runs one seeded input set: the interpreter on the module the code generator
//! received (inputs made from the raw module, D3D9 state built-ins set to the render state the
//! code was specialized for; that module must agree bit for bit with the raw one on the same
//! inputs under exact semantics, which is checked first), then the target's [`Simulator`] on
//! the compiled [`Output`], with the interpreter's inputs named the way the IR names them
//! ([`inputs::sim_inputs`]; one invocation for a vertex or geometry shader, four for a pixel
//! quad) and the interpreter's images and samplers behind its texture unit ([`textures`]).
//! The simulator runs twice:
//!
//! * [`Precision::Exact`] (f32, strict rules) — must match within [`Tolerance::F32`] and agree
//!   on discards, and produce every output the interpreter writes: this run proves the
//!   compiler correct;
//! * [`Precision::Native`] (the hardware's precision) — a miss of [`Target::tolerance`] there,
//!   when the exact run matched, is a *precision deviation*: counted, not a failure.
//!
//! The interpreter computes the target's way where [`Target::oracle`] says so (division as
//! `a·rcp(b)`, fine default derivatives, stepwise `pow`/`sin`/`cos`; flushed denormal
//! uniforms; denormals flushed in every float width where the hardware has none; a narrower
//! range without −0 where the hardware computes in one, PICA's float24; PICA's `NaN · 0 = NaN`
//! in D3D9-rule multiplies). Random inputs are adjusted to what a GPU delivers ([`inputs`]), and
//! `Position.w` cycles through [`POSITION_W`] by seed. An interpreter trap (including running
//! out of fuel) gives no reference: the seed is skipped; so is a mismatch that rests on quad
//! operations executed in divergent control flow (undefined in D3D).
//!
//! A geometry shader is compared by its emitted vertices and assembled primitives ([`gs`])
//! instead of its final outputs.
//!
//! [`check_shader`] compiles a raw module through the driver for a target and compares
//! [`SEEDS`] seeds; [`corpus_check`] is the corpus runner's `--check TARGET` ([`metrics`]:
//! the summary lines), [`check_generated`] the differential test of generator programs.

pub mod compare;
#[cfg(test)]
mod explicit_inputs_tests;
pub mod gs;
pub mod inputs;
pub mod metrics;
#[cfg(test)]
mod tests;
pub mod textures;

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use irc_backend::{
    CompileOptions, Output, Precision, SimConfig, SimOutputs, Simulator, Target, Tolerance,
};
use irc_interp::{run, Outputs, ShaderInputs, Value};
use irc_ir::{BuiltIn, Module, ShaderStage};

use crate::corpus::Outcome;
use crate::gen::ast::Program;
use crate::gen::{geometry_form, program, regression_file, vertex_form, Form, Limits};
use compare::compare_outputs;
use inputs::{
    flush_denormal_uniforms, prepare_interp_inputs, select_aliased_images, set_position_w,
    sim_inputs,
};
pub use metrics::{applies_to, profile_of, summary, ShaderMetrics};
use textures::InterpTextures;

/// Input sets per shader in the corpus check.
pub const SEEDS: u32 = 8;
/// Input sets per generator program in the differential test.
pub const DIFF_SEEDS: u32 = 4;
/// Simulator fuel (instructions per invocation group).
pub const SIM_FUEL: u64 = 1_000_000;
/// `Position.w` by seed (exact reciprocals in fp16).
pub const POSITION_W: [f32; 4] = [1.0, 2.0, 0.5, 4.0];

/// What one input set says.
#[derive(Clone, Debug, PartialEq)]
pub enum RunVerdict {
    /// The exact run matched. `native_deviation` describes how the native-precision run missed
    /// the target's tolerance (or failed), if it did.
    Matched { native_deviation: Option<String> },
    /// The interpreter trapped (or ran out of fuel), or a mismatch rests on undefined quad
    /// operations: no verdict.
    NoReference(String),
}

/// The interpreter's configuration for `target`'s code compiled with `options`: the corpus
/// limits and the target's oracle for those options.
pub fn interp_config(target: &dyn Target, options: &CompileOptions) -> irc_interp::RunConfig {
    let o = target.oracle(options);
    irc_interp::RunConfig {
        div_as_rcp_mul: o.div_as_rcp_mul,
        sqrt_as_rcp_rsqrt: o.sqrt_as_rcp_rsqrt,
        rcp_rsq_as_sqrt: o.rcp_rsq_as_sqrt,
        fine_default_derivatives: o.fine_default_derivatives,
        stepwise_transcendentals: o.stepwise_transcendentals,
        polynomial_trig: o.polynomial_trig,
        flush_denormals: (o.denormals == irc_backend::Denormals::Flush).then_some(true),
        narrow_range: o.narrow_range,
        legacy_zero_keeps_nan: o.legacy_zero_keeps_nan,
        ..crate::equivalence::run_config()
    }
}

/// The interpreter's inputs for input set `seed`, adjusted as [`compare_run`] adjusts them
/// (except [`inputs::flush_denormal_uniforms`], which needs the reflection).
pub fn interp_inputs(raw: &Module, seed: u64, legacy: &[(BuiltIn, Value)]) -> ShaderInputs {
    let mut inputs = ShaderInputs::random(raw, seed);
    prepare_interp_inputs(raw, &mut inputs, legacy);
    select_aliased_images(raw, &mut inputs, seed);
    set_position_w(&mut inputs, POSITION_W[seed as usize % POSITION_W.len()]);
    inputs
}

/// The inputs of seed `seed` for `output` of `target`: [`interp_inputs`] plus the target's
/// uniform flushing.
fn run_inputs(
    target: &dyn Target,
    raw: &Module,
    output: &Output,
    seed: u64,
    legacy: &[(BuiltIn, Value)],
    options: &CompileOptions,
) -> ShaderInputs {
    let mut inputs = interp_inputs(raw, seed, legacy);
    if target.oracle(options).flush_denormal_uniforms {
        flush_denormal_uniforms(&mut inputs, &output.reflection);
    }
    inputs
}

/// The target's simulator, or why there is none.
pub fn simulator(target: &dyn Target) -> Result<&dyn Simulator, String> {
    target
        .simulator()
        .ok_or_else(|| format!("target {} has no simulator", target.name()))
}

/// Runs `output` on `inputs` in `target`'s simulator at `precision`.
pub fn simulate(
    target: &dyn Target,
    output: &Output,
    inputs: &ShaderInputs,
    precision: Precision,
) -> Result<SimOutputs, String> {
    let textures = InterpTextures::new(inputs);
    let si = sim_inputs(inputs, &textures);
    let config = SimConfig {
        precision,
        fuel: SIM_FUEL,
    };
    simulator(target)?
        .run(output, &si, &config)
        .map_err(|e| format!("simulator ({precision:?}): {e}"))
}

/// Runs input set `seed` through the interpreter (on `reference`, the module the code
/// generator received, with inputs made from `raw` and the D3D9 state `legacy`) and through
/// `target`'s simulator (on `output`), and compares ([`compare_inputs`]). `Err` names the seed,
/// lane, output, component, expected and obtained values, and the program's disassembly
/// length.
pub fn compare_run(
    target: &dyn Target,
    raw: &Module,
    reference: &Module,
    output: &Output,
    seed: u64,
    legacy: &[(BuiltIn, Value)],
) -> Result<RunVerdict, String> {
    compare_run_with(
        target,
        raw,
        reference,
        output,
        seed,
        legacy,
        &irc::Options::default(),
    )
}

/// [`compare_run`] for code compiled with `options`: the interpreter runs as the target's
/// oracle for them ([`interp_config`]), and the raw shader, compared with the prepared one,
/// under [`raw_config`] (the oracle of the options' legacy-multiply mode).
pub fn compare_run_with(
    target: &dyn Target,
    raw: &Module,
    reference: &Module,
    output: &Output,
    seed: u64,
    legacy: &[(BuiltIn, Value)],
    options: &irc::Options,
) -> Result<RunVerdict, String> {
    let inputs = run_inputs(target, raw, output, seed, legacy, &options.backend);
    compare_inputs_with(
        target,
        raw,
        reference,
        output,
        &inputs,
        &format!("input seed {seed}"),
        options,
    )
}

/// The interpreter configuration of the raw side of the raw-vs-prepared check for compile
/// options `options` on `target`: exact semantics, or the oracle of the target's
/// legacy-multiply mode that deviates from them (`legacy-mul=finite`, the default:
/// [`irc_interp::RunConfig::legacy_finite`] with the target's bound; `legacy-mul=clamp`:
/// [`irc_interp::RunConfig::legacy_clamp`]; `legacy-mul=ieee`:
/// [`irc_interp::RunConfig::legacy_ieee`], where `0 · inf` and `0 · NaN` are NaN). A target
/// whose pipeline multiplies the IEEE way without a `legacy-mul` option
/// ([`irc_backend::Pipeline::legacy_mul_ieee`] set by the target itself, as the toy target of
/// the platform tests does) gets `legacy_ieee` too: the pipeline is what lowers the products.
pub fn raw_config(target: &dyn Target, options: &irc::Options) -> irc_interp::RunConfig {
    use irc_backend::LegacyMul;
    let mode = LegacyMul::of_target(target.options(), &options.backend);
    let pipeline_ieee = target.pipeline(&options.backend).legacy_mul_ieee;
    irc_interp::RunConfig {
        legacy_clamp: mode == Some(LegacyMul::Clamp),
        legacy_ieee: mode == Some(LegacyMul::Ieee) || (mode.is_none() && pipeline_ieee),
        legacy_finite: (mode == Some(LegacyMul::Finite))
            .then(|| irc_passes::legacy_finite::target_bound(target.caps())),
        ..crate::equivalence::run_config()
    }
}

/// [`compare_run`] on given inputs (`label` names them in messages): explicit inputs such as
/// `irc run`'s — real textures with mips, layers and faces, sampler state, per-lane quad
/// values (`crate::run_inputs`, `crate::quad_inputs`) — reach the simulator the same way as
/// random ones. The caller applies the target's uniform flushing
/// ([`inputs::flush_denormal_uniforms`]) if it wants it.
pub fn compare_inputs(
    target: &dyn Target,
    raw: &Module,
    reference: &Module,
    output: &Output,
    inputs: &ShaderInputs,
    label: &str,
) -> Result<RunVerdict, String> {
    compare_inputs_with(
        target,
        raw,
        reference,
        output,
        inputs,
        label,
        &irc::Options::default(),
    )
}

/// [`compare_inputs`] for code compiled with `options` (as [`compare_run_with`]).
pub fn compare_inputs_with(
    target: &dyn Target,
    raw: &Module,
    reference: &Module,
    output: &Output,
    inputs: &ShaderInputs,
    label: &str,
    options: &irc::Options,
) -> Result<RunVerdict, String> {
    let oracle = interp_config(target, &options.backend);
    let raw_cfg = &raw_config(target, options);
    let want = match run(reference, inputs, &oracle) {
        Ok(o) => o,
        Err(t) => {
            return Ok(RunVerdict::NoReference(format!(
                "{label}: interpreter: {t}"
            )))
        }
    };
    // The pipeline (render-state specialization and the target's pipeline) must not have
    // changed any result: the raw shader and the module the code generator received agree bit
    // for bit under the interpreter's exact semantics on the same inputs.
    let mut pipeline_diff = None;
    // Quad operations the interpreter ran in divergent control flow (raw or prepared module):
    // a target may run them elsewhere (e.g. before the conditional), so the simulator's count
    // alone does not tell whether a raw/prepared difference rests on them.
    let mut interp_divergent = 0;
    if !std::ptr::eq(raw, reference) {
        // PICA's `ieee-mul=legacy`: IEEE multiplies run with D3D9 rules, and the raw module
        // after `relax-ieee-mul` is the mode's oracle.
        let relaxed;
        let raw = if target.pipeline(&options.backend).ieee_mul_legacy {
            let mut m = raw.clone();
            let cx = irc_passes::PassContext {
                ieee_mul_legacy: true,
                ..Default::default()
            };
            irc_passes::relax_ieee_mul::run(&mut m, &cx).map_err(|e| format!("{label}: {e}"))?;
            relaxed = m;
            &relaxed
        } else {
            raw
        };
        let exact = crate::equivalence::run_config();
        // The one approximation a pipeline makes by design: sine and cosine as polynomials on
        // targets without them (`lower-trig`); the raw side computes them the same way.
        let raw_cfg = &irc_interp::RunConfig {
            polynomial_trig: raw_cfg.polynomial_trig || oracle.polynomial_trig,
            ..*raw_cfg
        };
        if let (Ok(a), Ok(b)) = (run(raw, inputs, raw_cfg), run(reference, inputs, &exact)) {
            interp_divergent = a.divergent_quad_ops + b.divergent_quad_ops;
            pipeline_diff = irc_interp::compare::outputs_equal(&a, &b).err();
            // Min-precision types promise at least 16 bits: a target without 16-bit types
            // computes them in 32 bits (a precision increase D3D allows). Then the result must
            // match, bit for bit, the raw shader with only its min-precision types widened.
            if pipeline_diff.is_some() {
                if let Some(widened) = crate::corpus::widened_min16(raw, target.caps().clone()) {
                    if let Ok(w) = run(&widened, inputs, raw_cfg) {
                        pipeline_diff = irc_interp::compare::outputs_equal(&w, &b).err();
                    }
                }
            }
        }
    }
    let lines = output.disassembly.lines().count();
    let ctx = |what: String| format!("{label}: {what} (program: {lines} lines of disassembly)");
    // A geometry shader's result is what it emits.
    let topology = gs::output_topology(reference);
    let stored = |values: &mut irc_backend::IoValues| {
        if let Some(s) = target.simulator() {
            s.stored_outputs(output, values);
        }
    };
    let compare_outputs = |w: &Outputs, g: &SimOutputs, tol: Tolerance| match topology {
        Some(t) => gs::compare_gs(w, g, tol, t),
        None => compare_outputs(w, g, tol, &stored),
    };
    let exact = simulate(target, output, inputs, Precision::Exact).map_err(ctx)?;
    if let Some(e) = pipeline_diff {
        // Implicit-LOD fetches and derivatives in divergent control flow are undefined in D3D;
        // the interpreter's helper-lane model then depends on which ops ran before.
        if exact.divergent_quad_ops > 0 || interp_divergent > 0 {
            return Ok(RunVerdict::NoReference(format!(
                "{label}: {} quad operations in divergent control flow (undefined); \
                 raw and prepared differ: {e}",
                exact.divergent_quad_ops.max(interp_divergent)
            )));
        }
        return Err(format!(
            "{label}: the pipeline changed a result (raw vs prepared): {e}"
        ));
    }
    if let Err(e) = compare_outputs(&want, &exact, Tolerance::F32) {
        // The exact run is an f32 model that keeps denormals; where the interpreter flushes
        // them (the module's `SetFpMode … Flush`, or a flushing target's oracle), the exact
        // run must match the interpreter with denormals preserved instead. The native run
        // below is still compared with the flushing interpreter.
        // Likewise a narrower float range (PICA's float24): the exact run computes in f32's,
        // keeping only the target's unsigned zero.
        let preserved = irc_interp::RunConfig {
            flush_denormals: Some(false),
            narrow_range: oracle
                .narrow_range
                .map(|_| irc_arith::NarrowRange::UNSIGNED_ZERO),
            ..oracle
        };
        let exact_preserved = run(reference, inputs, &preserved)
            .is_ok_and(|w| compare_outputs(&w, &exact, Tolerance::F32).is_ok());
        // Derivatives and implicit-LOD fetches in divergent control flow are undefined in
        // D3D (and GL): the interpreter and the hardware each pick a helper-lane model.
        if !exact_preserved {
            if exact.divergent_quad_ops > 0 {
                return Ok(RunVerdict::NoReference(format!(
                    "{label}: {} quad operations in divergent control flow \
                     (undefined); differs: {e}",
                    exact.divergent_quad_ops
                )));
            }
            return Err(ctx(format!("exact: {e}")));
        }
    }
    let native_deviation = match simulate(target, output, inputs, Precision::Native) {
        Ok(o) => compare_outputs(&want, &o, target.tolerance())
            .err()
            .map(|e| format!("native: {e}")),
        Err(e) => Some(e),
    }
    .map(ctx);
    Ok(RunVerdict::Matched { native_deviation })
}

/// Everything about one input set, for debugging a mismatch: reflection, disassembly, the
/// simulator's inputs, and per invocation the interpreter's outputs next to the simulator's
/// (exact run). `HARNESS_TARGET=… HARNESS_FILE=… HARNESS_SEED=… cargo test --release -p
/// irc-testsuite --lib explain_file -- --ignored --nocapture` prints it for a shader file.
pub fn explain_run(
    target: &dyn Target,
    raw: &Module,
    output: &Output,
    seed: u64,
    legacy: &[(BuiltIn, Value)],
    options: &irc::Options,
) -> String {
    use std::fmt::Write;
    let inputs = run_inputs(target, raw, output, seed, legacy, &options.backend);
    let mut s = format!(
        "input seed {seed}\nreflection:\n{}disassembly:\n{}",
        output.reflection.to_text(),
        output.disassembly
    );
    let textures = InterpTextures::new(&inputs);
    let _ = writeln!(s, "{:?}", sim_inputs(&inputs, &textures));
    let want: Result<Outputs, _> = run(raw, &inputs, &interp_config(target, &options.backend));
    let got = simulate(target, output, &inputs, Precision::Exact);
    for l in 0..inputs.invocations.len() {
        match &want {
            Ok(w) => {
                let _ = writeln!(s, "invocation {l}: interpreter: {:?}", w.invocations.get(l));
            }
            Err(t) => {
                let _ = writeln!(s, "invocation {l}: interpreter: {t}");
            }
        }
        match &got {
            Ok(g) => {
                let _ = writeln!(s, "  simulator: {:?}", g.invocations.get(l));
            }
            Err(e) => {
                let _ = writeln!(s, "  simulator: {e}");
            }
        }
    }
    s
}

/// The result of [`check_shader`].
#[derive(Clone, Debug)]
pub struct ShaderCheck {
    pub outcome: Outcome,
    /// The compiled program, when compilation succeeded.
    pub output: Option<Output>,
    /// Time of the driver's compilation (read, pipeline, code generation), µs.
    pub compile_micros: f64,
    pub seeds_compared: u32,
    /// Seeds without a reference (interpreter trap, undefined quad operations).
    pub seeds_skipped: u32,
    /// Seeds whose native-precision run missed the target's tolerance while the exact run
    /// matched.
    pub native_deviations: u32,
    /// The first native-precision deviation.
    pub first_native_deviation: Option<String>,
}

/// A reason without SSA ids (`%12` → `%_`), for grouping.
pub fn normalize_reason(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            out.push('_');
        }
    }
    out
}

fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Lower-case name of a shader stage (`pixel`).
pub fn stage_name(s: ShaderStage) -> String {
    irc_ir::LitEnum::ShaderStage
        .name_of(u64::from(s.0))
        .unwrap_or_else(|| format!("stage {}", s.0))
        .to_lowercase()
}

/// Compiles `raw` for `target` with the driver's default options and compares `seeds` input
/// sets. Unsupported/limit diagnostics (and a stage the target does not compile, a target
/// without simulator) → `Unsupported` (the first one's reason, ids removed); internal or input
/// diagnostics, panics, simulator errors and mismatches → `Failed`; no seed with a reference →
/// `Unsupported("interpreter: …")`.
pub fn check_shader(target: &dyn Target, raw: &Module, seeds: u32) -> ShaderCheck {
    check_shader_with(target, raw, seeds, &irc::Options::default())
}

/// [`check_shader`] with compile options (e.g. forced spills, IEEE legacy multiplies).
pub fn check_shader_with(
    target: &dyn Target,
    raw: &Module,
    seeds: u32,
    options: &irc::Options,
) -> ShaderCheck {
    let mut check = ShaderCheck {
        outcome: Outcome::Ok,
        output: None,
        compile_micros: 0.0,
        seeds_compared: 0,
        seeds_skipped: 0,
        native_deviations: 0,
        first_native_deviation: None,
    };
    if let Some(stage) = crate::equivalence::stage(raw) {
        if !target.stages().contains(&stage) {
            check.outcome = Outcome::Unsupported(format!(
                "{} does not compile {} shaders",
                target.name(),
                stage_name(stage)
            ));
            return check;
        }
    }
    if let Err(e) = simulator(target) {
        check.outcome = Outcome::Unsupported(e);
        return check;
    }
    let start = Instant::now();
    let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let prepared = irc::prepare_for(irc::Input::Module(raw.clone()), target, options)?;
        let output = target.compile(&prepared, &options.backend)?;
        Ok::<_, irc::Diagnostics>((prepared, output))
    }));
    check.compile_micros = start.elapsed().as_secs_f64() * 1e6;
    let (prepared, output) = match compiled {
        Ok(Ok(o)) => o,
        Ok(Err(d)) if d.is_unsupported() => {
            let reason = d.first().map(|d| d.reason()).unwrap_or_default();
            check.outcome = Outcome::Unsupported(normalize_reason(&reason));
            return check;
        }
        Ok(Err(d)) => {
            check.outcome = Outcome::Failed(d.to_string());
            return check;
        }
        Err(e) => {
            check.outcome =
                Outcome::Failed(format!("panic in the compiler: {}", panic_message(&*e)));
            return check;
        }
    };
    let stats = &output.stats;
    if stats.lower_bound > stats.instructions {
        check.outcome = Outcome::Failed(format!(
            "the reported lower bound ({}) is above the instruction count ({})",
            stats.lower_bound, stats.instructions
        ));
        return check;
    }
    let legacy = options.legacy_state.input_values(raw);
    let mut no_reference = None;
    for seed in 0..u64::from(seeds) {
        let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compare_run_with(target, raw, &prepared, &output, seed, &legacy, options)
        }));
        match verdict {
            Ok(Ok(RunVerdict::Matched { native_deviation })) => {
                check.seeds_compared += 1;
                if let Some(d) = native_deviation {
                    check.native_deviations += 1;
                    check.first_native_deviation.get_or_insert(d);
                }
            }
            Ok(Ok(RunVerdict::NoReference(why))) => {
                check.seeds_skipped += 1;
                no_reference.get_or_insert(why);
            }
            Ok(Err(e)) => {
                check.outcome = Outcome::Failed(e);
                break;
            }
            Err(e) => {
                check.outcome = Outcome::Failed(format!(
                    "input seed {seed}: panic in the harness or simulator: {}",
                    panic_message(&*e)
                ));
                break;
            }
        }
    }
    if check.outcome == Outcome::Ok && check.seeds_compared == 0 && seeds > 0 {
        check.outcome = Outcome::Unsupported(no_reference.unwrap_or_default());
    }
    check.output = Some(output);
    check
}

/// `irc corpus DIR --check TARGET` on one `.raw.dxir` file.
pub fn corpus_check(
    target: &dyn Target,
    path: &Path,
    metrics: &Mutex<Vec<ShaderMetrics>>,
    options: &irc::Options,
) -> Outcome {
    let raw = match std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|b| irc_ir::binary::read(&b).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("read: {e}")),
    };
    let check = check_shader_with(target, &raw, SEEDS, options);
    if let Ok(mut v) = metrics.lock() {
        v.push(ShaderMetrics {
            profile: profile_of(path).unwrap_or_default(),
            stage: crate::equivalence::stage(&raw),
            ok: matches!(check.outcome, Outcome::Ok | Outcome::Known(_)),
            stats: check.output.as_ref().map(|o| o.stats.clone()),
            compile_micros: check.compile_micros,
            seeds_compared: check.seeds_compared,
            seeds_skipped: check.seeds_skipped,
            native_deviations: check.native_deviations,
        });
    }
    check.outcome
}

// ---- differential test ------------------------------------------------------------------------

/// What [`check_generated`] reports for a program that compiled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GeneratedRun {
    pub instructions: u32,
    pub seeds_compared: u32,
    pub native_deviations: u32,
}

/// A program `irc fuzz-diff` once found, kept as text in `testsuite/regressions/NAME.ir` (the
/// generator may draw another program for the same seed since), read back.
pub fn regression_program(name: &str) -> Module {
    let path = format!("{}/regressions/{name}.ir", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    irc_ir::text::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// [`regression_program`] `name` compiled for `target` and compared on [`DIFF_SEEDS`] input
/// sets: its run, or why it failed or did not compile.
pub fn check_regression(target: &dyn Target, name: &str) -> Result<GeneratedRun, String> {
    check_regression_with(target, name, &irc::Options::default())
}

/// [`check_regression`] for code compiled with `options` (each mode against its own oracle).
pub fn check_regression_with(
    target: &dyn Target,
    name: &str,
    options: &irc::Options,
) -> Result<GeneratedRun, String> {
    let check = check_shader_with(target, &regression_program(name), DIFF_SEEDS, options);
    match check.outcome {
        Outcome::Ok | Outcome::Known(_) => Ok(GeneratedRun {
            instructions: check.output.map_or(0, |o| o.stats.instructions),
            seeds_compared: check.seeds_compared,
            native_deviations: check.native_deviations,
        }),
        other => Err(format!("{name} for {}: {other:?}", target.name())),
    }
}

/// Generator program `seed` (raw form; a pixel shader, or a vertex shader for a target without
/// the pixel stage, or a geometry shader for a target of the geometry stage only) compiled for
/// `target` and compared on [`DIFF_SEEDS`] input sets: `Ok(None)` when the target does not
/// support it (or the interpreter cannot run it), `Ok(Some(_))` when it matched, `Err(a
/// ready-to-commit filetest)` naming the failure, with the reflection and disassembly.
pub fn check_generated(
    target: &dyn Target,
    seed: u64,
    limits: Limits,
) -> Result<Option<GeneratedRun>, String> {
    check_generated_with(target, seed, limits, &irc::Options::default())
}

/// [`check_generated`] for code compiled with `options` (each mode against its own oracle).
pub fn check_generated_with(
    target: &dyn Target,
    seed: u64,
    limits: Limits,
    options: &irc::Options,
) -> Result<Option<GeneratedRun>, String> {
    check_program_with(target, program(seed, limits), seed, limits, options)
}

/// [`check_generated_with`] for a program already drawn (the fuzz pipeline target draws it
/// from the fuzz input); `seed` and `limits` only name it in the regression file.
pub fn check_program_with(
    target: &dyn Target,
    program: Program,
    seed: u64,
    limits: Limits,
    options: &irc::Options,
) -> Result<Option<GeneratedRun>, String> {
    // The program as a pixel shader where the target compiles those, else as a vertex
    // shader, else as a geometry shader.
    let stages = target.stages();
    let raw = if stages.contains(&ShaderStage::Pixel) {
        Some(crate::gen::raw::lower(&program))
    } else if stages.contains(&ShaderStage::Vertex) {
        vertex_form(program)
    } else if stages.contains(&ShaderStage::Geometry) {
        geometry_form(program)
    } else {
        None
    };
    let Some(raw) = raw else {
        return Ok(None);
    };
    let check = check_shader_with(target, &raw, DIFF_SEEDS, options);
    match check.outcome {
        Outcome::Ok | Outcome::Known(_) => Ok(Some(GeneratedRun {
            instructions: check.output.map_or(0, |o| o.stats.instructions),
            seeds_compared: check.seeds_compared,
            native_deviations: check.native_deviations,
        })),
        Outcome::Unsupported(_) => Ok(None),
        Outcome::Failed(why) => {
            let name = target.name();
            let mut why = format!("target {name}, generator {limits:?}: {why}");
            if let Some(o) = &check.output {
                why.push_str("\nreflection:\n");
                why.push_str(&o.reflection.to_text());
                why.push_str("disassembly:\n");
                why.push_str(&o.disassembly);
            }
            let file = regression_file(seed, Form::Raw, &["verify"], &why, &raw);
            Err(format!("target {name}\n{file}"))
        }
    }
}
