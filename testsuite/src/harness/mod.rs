//! The lima-fp harness: compiled PP code in the simulator against the reference interpreter.
//!
//! [`compare_run`] runs one seeded input set: the interpreter on the module the code generator
//! received (inputs made from the raw module, D3D9 state built-ins set to the render state the
//! code was specialized for; that module must agree bit for bit with the raw one on the same
//! inputs under exact semantics, which is checked first), then
//! the simulator on the code words, with the inputs mapped through the reflection
//! ([`inputs`]: varyings, special inputs, uniforms; [`textures`]: the interpreter's images and
//! samplers behind the texture unit). The simulator runs twice:
//!
//! * **fp32, strict pipeline** — must match within [`Tolerance::F32`] (and agree on discards):
//!   this run proves the compiler correct;
//! * **fp16** (the hardware's precision) — a miss of [`Tolerance::FP16`] there, when fp32
//!   matched, is a *precision deviation*: counted, not a failure.
//!
//! Random inputs are adjusted to what a GPU delivers: the D3D9 constant and state built-ins are
//! the same in all four lanes, a D3D9 texture binding declared for several texture types holds
//! an image of the type the sampler state selects, `Position.w` cycles through
//! [`POSITION_W`] by seed, and constant-buffer dwords uploaded as floats that are f32
//! denormals are flushed to zero (the PP has no f32; [`inputs::flush_denormal_uniforms`]).
//! The interpreter computes division, default derivatives and `pow`/`sin`/`cos` the PP's way
//! ([`interp_config`]).
//! An interpreter trap (including running out of fuel) gives no reference: the seed is skipped.
//! [`check_shader`] compiles a raw module through the driver (`irc::compile`, target
//! `lima-fp`) and compares [`SEEDS`] seeds; [`corpus_check`] is the corpus runner's
//! `--check lima-fp`, [`check_generated`] the differential test of generator programs.
//!
//! Conventions the code generator must follow for the harness (and a real driver):
//! `frag_coord` is fed as `(x, y, z, 1/w)` of the IR's `Position` (the program inverts `.w`);
//! `point_coord` is the IR's `PointCoord` as is; a bool constant register fills all four lanes
//! of its uniform slot; `int_lanes` of a constant-buffer slot are signed integers; outputs are
//! read from the bound register of every lane the interpreter keeps, and every component of
//! every declared output must be bound.

pub mod compare;
pub mod inputs;
#[cfg(test)]
mod tests;
pub mod textures;

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use irc_backend::{Output, Stats, Tolerance};
use irc_interp::{run, ShaderInputs, Value};
use irc_ir::{BuiltIn, Module};
use irc_lima::pp::{run_words, PpSimulator, Precision, QuadOutput, SimOptions};

use crate::corpus::{Outcome, Row};
use crate::gen::{generate, regression_file, Form, Limits};
use compare::{check_coverage, compare_outputs};
use inputs::{
    flush_denormal_uniforms, prepare_interp_inputs, quad_inputs, select_aliased_images,
    set_position_w,
};
use textures::InterpTextures;

/// Input sets per shader in the corpus check.
pub const SEEDS: u32 = 8;
/// Input sets per generator program in the differential test.
pub const DIFF_SEEDS: u32 = 4;
/// Simulator fuel (quad instructions).
pub const SIM_FUEL: u64 = 1_000_000;
/// `Position.w` by seed (exact reciprocals in fp16).
pub const POSITION_W: [f32; 4] = [1.0, 2.0, 0.5, 4.0];
/// The target name.
pub const TARGET: &str = "lima-fp";

/// What one input set says.
#[derive(Clone, Debug, PartialEq)]
pub enum RunVerdict {
    /// The fp32 run matched. `fp16_deviation` describes how the fp16 run missed its tolerance
    /// (or failed), if it did.
    Matched { fp16_deviation: Option<String> },
    /// The interpreter trapped (or ran out of fuel): no reference, no verdict.
    NoReference(String),
}

/// Runs input set `seed` through the interpreter (on `raw`, with the D3D9 state `legacy`) and
/// through the simulator (on `output`), and compares. `Err` names the seed, lane, output,
/// component, expected and obtained values, and the program's disassembly length.
pub fn compare_run(
    raw: &Module,
    reference: &Module,
    output: &Output,
    seed: u64,
    legacy: &[(BuiltIn, Value)],
) -> Result<RunVerdict, String> {
    let mut inputs = interp_inputs(raw, seed, legacy);
    flush_denormal_uniforms(&mut inputs, &output.reflection);
    let want = match run(reference, &inputs, &interp_config()) {
        Ok(o) => o,
        Err(t) => {
            return Ok(RunVerdict::NoReference(format!(
                "input seed {seed}: interpreter: {t}"
            )))
        }
    };
    // The pipeline (render-state specialization and `opt:lima`) must not have changed any
    // result: the raw shader and the module the code generator received agree bit for bit
    // under the interpreter's exact semantics on the same inputs.
    let mut pipeline_diff = None;
    if !std::ptr::eq(raw, reference) {
        let exact = crate::equivalence::run_config();
        if let (Ok(a), Ok(b)) = (run(raw, &inputs, &exact), run(reference, &inputs, &exact)) {
            pipeline_diff = irc_interp::compare::outputs_equal(&a, &b).err();
        }
    }
    let lines = output.disassembly.lines().count();
    let ctx =
        |what: String| format!("input seed {seed}: {what} (program: {lines} lines of disassembly)");
    let refl = &output.reflection;
    check_coverage(&want, refl).map_err(ctx)?;
    let quad = quad_inputs(&inputs, refl).map_err(ctx)?;
    let sim = |precision: Precision| -> Result<QuadOutput, String> {
        let tex = InterpTextures::new(&inputs, &refl.samplers);
        let opts = SimOptions {
            precision,
            fuel: SIM_FUEL,
            strict_pipeline: true,
        };
        let simulator = PpSimulator {
            textures: &tex,
            options: opts,
        };
        let out = simulator
            .run(&output.code_words(), &quad)
            .map_err(|e| format!("simulator ({precision:?}): {e}"))?;
        match tex.errors().first() {
            Some(e) => Err(format!("simulator ({precision:?}): {e}")),
            None => Ok(out),
        }
    };
    let fp32 = sim(Precision::Fp32).map_err(ctx)?;
    if let Some(e) = pipeline_diff {
        // Implicit-LOD fetches and derivatives in divergent control flow are undefined in D3D;
        // the interpreter's helper-lane model then depends on which ops ran before.
        if fp32.divergent_quad_ops > 0 {
            return Ok(RunVerdict::NoReference(format!(
                "input seed {seed}: {} quad operations in divergent control flow (undefined); \
                 raw and prepared differ: {e}",
                fp32.divergent_quad_ops
            )));
        }
        return Err(format!(
            "input seed {seed}: the pipeline changed a result (raw vs prepared): {e}"
        ));
    }
    if let Err(e) = compare_outputs(&want, &fp32, refl, Tolerance::F32) {
        // Derivatives and implicit-LOD fetches in divergent control flow are undefined in
        // D3D (and GL): the interpreter and the hardware each pick a helper-lane model.
        if fp32.divergent_quad_ops > 0 {
            return Ok(RunVerdict::NoReference(format!(
                "input seed {seed}: {} quad operations in divergent control flow (undefined); \
                 differs: {e}",
                fp32.divergent_quad_ops
            )));
        }
        return Err(ctx(format!("fp32: {e}")));
    }
    let fp16_deviation = match sim(Precision::Fp16) {
        Ok(o) => compare_outputs(&want, &o, refl, Tolerance::FP16)
            .err()
            .map(|e| format!("fp16: {e}")),
        Err(e) => Some(e),
    }
    .map(ctx);
    Ok(RunVerdict::Matched { fp16_deviation })
}

/// How the harness runs the interpreter: the corpus limits, and the PP's way of dividing
/// (`a · rcp(b)`), of default derivatives (fine) and of `pow`/`sin`/`cos` (stepwise) — the
/// oracles documented on `RunConfig`; everything else exact.
pub fn interp_config() -> irc_interp::RunConfig {
    irc_interp::RunConfig {
        div_as_rcp_mul: true,
        fine_default_derivatives: true,
        stepwise_transcendentals: true,
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

/// Everything about one input set, for debugging a mismatch: reflection, disassembly, the
/// simulator's inputs, and per lane the interpreter's outputs next to the simulator's
/// registers (fp32, strict). `LIMA_FILE=… LIMA_SEED=… cargo test --release -p irc-testsuite
/// --lib explain_file -- --ignored --nocapture` prints it for a shader file.
pub fn explain_run(
    raw: &Module,
    output: &Output,
    seed: u64,
    legacy: &[(BuiltIn, Value)],
) -> String {
    use std::fmt::Write;
    let mut inputs = interp_inputs(raw, seed, legacy);
    flush_denormal_uniforms(&mut inputs, &output.reflection);
    let mut s = format!(
        "input seed {seed}\nreflection:\n{}disassembly:\n{}",
        output.reflection.to_text(),
        output.disassembly
    );
    let want = run(raw, &inputs, &interp_config());
    let quad = match quad_inputs(&inputs, &output.reflection) {
        Ok(q) => q,
        Err(e) => return s + &e,
    };
    let tex = InterpTextures::new(&inputs, &output.reflection.samplers);
    let opts = SimOptions {
        precision: Precision::Fp32,
        fuel: SIM_FUEL,
        strict_pipeline: true,
    };
    let got = run_words(&output.code_words(), &quad, &tex, &opts);
    let _ = writeln!(s, "uniforms: {:?}", quad.uniforms);
    for (l, lane) in quad.lanes.iter().enumerate() {
        let _ = writeln!(
            s,
            "lane {l}: varyings {:?}, frag_coord {:?}, front_facing {}, point_coord {:?}",
            lane.varyings, lane.frag_coord, lane.front_facing, lane.point_coord
        );
        match &want {
            Ok(w) => {
                let _ = writeln!(s, "  interpreter: {:?}", w.invocations.get(l));
            }
            Err(t) => {
                let _ = writeln!(s, "  interpreter: {t}");
            }
        }
        match &got {
            Ok(g) => {
                let _ = writeln!(
                    s,
                    "  simulator: discarded {}, registers {:?}",
                    g.lanes[l].discarded, g.lanes[l].regs
                );
            }
            Err(e) => {
                let _ = writeln!(s, "  simulator: {e}");
            }
        }
    }
    for e in tex.errors() {
        let _ = writeln!(s, "textures: {e}");
    }
    s
}

/// The result of [`check_shader`].
#[derive(Clone, Debug)]
pub struct ShaderCheck {
    pub outcome: Outcome,
    /// The compiled program, when compilation succeeded.
    pub output: Option<Output>,
    /// Time of `irc::compile` (read, pipeline, code generation), µs.
    pub compile_micros: f64,
    pub seeds_compared: u32,
    /// Seeds without a reference (interpreter trap).
    pub seeds_skipped: u32,
    /// Seeds whose fp16 run missed [`Tolerance::FP16`] while fp32 matched.
    pub fp16_deviations: u32,
    /// The first fp16 deviation.
    pub first_fp16_deviation: Option<String>,
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

/// Compiles `raw` for lima-fp with the driver's default options and compares `seeds` input
/// sets. Unsupported/limit diagnostics → `Unsupported` (the first one's reason, ids removed);
/// internal or input diagnostics, panics, simulator errors and mismatches → `Failed`; no seed
/// with a reference → `Unsupported("interpreter: …")`.
pub fn check_shader(raw: &Module, seeds: u32) -> ShaderCheck {
    check_shader_with(raw, seeds, &irc::Options::default())
}

/// [`check_shader`] with compile options (e.g. forced spills, IEEE legacy multiplies).
pub fn check_shader_with(raw: &Module, seeds: u32, options: &irc::Options) -> ShaderCheck {
    let mut check = ShaderCheck {
        outcome: Outcome::Ok,
        output: None,
        compile_micros: 0.0,
        seeds_compared: 0,
        seeds_skipped: 0,
        fp16_deviations: 0,
        first_fp16_deviation: None,
    };
    let start = Instant::now();
    let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let prepared = irc::prepare(irc::Input::Module(raw.clone()), TARGET, options)?;
        let target = irc::target(TARGET).ok_or_else(|| {
            irc::Diagnostics::from(irc::Diagnostic::internal(None, "no lima-fp target"))
        })?;
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
    let legacy = options.legacy_state.input_values(raw);
    let mut no_reference = None;
    for seed in 0..u64::from(seeds) {
        let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compare_run(raw, &prepared, &output, seed, &legacy)
        }));
        match verdict {
            Ok(Ok(RunVerdict::Matched { fp16_deviation })) => {
                check.seeds_compared += 1;
                if let Some(d) = fp16_deviation {
                    check.fp16_deviations += 1;
                    check.first_fp16_deviation.get_or_insert(d);
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

// ---- corpus check -----------------------------------------------------------------------------

/// What `--check lima-fp` records for one pixel shader.
#[derive(Clone, Debug)]
pub struct ShaderMetrics {
    /// The profile from the file name (`ps_2_0`), empty when the name has none.
    pub profile: String,
    pub ok: bool,
    /// Stats of the compiled program (also when its comparison failed).
    pub stats: Option<Stats>,
    pub compile_micros: f64,
    pub seeds_compared: u32,
    /// Input sets without a reference (interpreter trap).
    pub seeds_skipped: u32,
    pub fp16_deviations: u32,
}

/// The profile field of a corpus file name (`<source>-<profile>-<hash>.raw.dxir`).
pub fn profile_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let id = name.split('.').next()?;
    let mut fields = id.rsplit('-');
    let _hash = fields.next()?;
    let profile = fields.next()?;
    let known = ["vs_", "ps_", "gs_", "hs_", "ds_", "cs_"];
    known
        .iter()
        .any(|p| profile.starts_with(p))
        .then(|| profile.to_string())
}

/// True for raw IR files of pixel shaders (by the profile in the name, else by reading the
/// entry point).
pub fn applies_to(path: &Path) -> bool {
    if !path.to_string_lossy().ends_with(".raw.dxir") {
        return false;
    }
    match profile_of(path) {
        Some(p) => p.starts_with("ps_"),
        None => std::fs::read(path)
            .ok()
            .and_then(|b| irc_ir::binary::read(&b).ok())
            .and_then(|m| crate::equivalence::stage(&m))
            .is_some_and(|s| s == irc_ir::ShaderStage::Pixel),
    }
}

/// `irc corpus DIR --check lima-fp` on one `.raw.dxir` file.
pub fn corpus_check(path: &Path, metrics: &Mutex<Vec<ShaderMetrics>>) -> Outcome {
    let raw = match std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|b| irc_ir::binary::read(&b).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("read: {e}")),
    };
    let check = check_shader(&raw, SEEDS);
    if let Ok(mut v) = metrics.lock() {
        v.push(ShaderMetrics {
            profile: profile_of(path).unwrap_or_default(),
            ok: matches!(check.outcome, Outcome::Ok | Outcome::Known(_)),
            stats: check.output.as_ref().map(|o| o.stats.clone()),
            compile_micros: check.compile_micros,
            seeds_compared: check.seeds_compared,
            seeds_skipped: check.seeds_skipped,
            fp16_deviations: check.fp16_deviations,
        });
    }
    check.outcome
}

fn profile_class(p: &str) -> &'static str {
    match p {
        _ if p.starts_with("ps_1_") => "ps_1_x",
        "ps_2_0" | "ps_2_x" => "ps_2_x",
        "ps_3_0" => "ps_3_0",
        _ => "other",
    }
}

/// The lima-fp lines of the corpus summary: D3D9 ok/total per profile, code size, units per
/// instruction, spills, lower bound, compile time, fp16 deviations, top unsupported reasons.
pub fn summary(metrics: &[ShaderMetrics], rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    if metrics.is_empty() {
        return s;
    }
    let mut classes = Vec::new();
    for class in ["ps_1_x", "ps_2_x", "ps_3_0"] {
        let of: Vec<_> = metrics
            .iter()
            .filter(|m| profile_class(&m.profile) == class)
            .collect();
        let ok = of.iter().filter(|m| m.ok).count();
        classes.push((class, ok, of.len()));
    }
    let (d3d9_ok, d3d9): (usize, usize) =
        classes.iter().fold((0, 0), |(a, b), c| (a + c.1, b + c.2));
    let other: Vec<_> = metrics
        .iter()
        .filter(|m| profile_class(&m.profile) == "other")
        .collect();
    let _ = writeln!(
        s,
        "lima-fp D3D9 pixel shaders ok: {}, total {d3d9_ok}/{d3d9}; other pixel shaders {}/{}",
        classes
            .iter()
            .map(|(c, ok, n)| format!("{c} {ok}/{n}"))
            .collect::<Vec<_>>()
            .join(", "),
        other.iter().filter(|m| m.ok).count(),
        other.len()
    );
    let compiled: Vec<(&Stats, f64)> = metrics
        .iter()
        .filter_map(|m| m.stats.as_ref().map(|st| (st, m.compile_micros)))
        .collect();
    if !compiled.is_empty() {
        let n = compiled.len();
        let mut instrs: Vec<u32> = compiled.iter().map(|c| c.0.instructions).collect();
        instrs.sort_unstable();
        let sum = |f: fn(&Stats) -> u32| compiled.iter().map(|c| u64::from(f(c.0))).sum::<u64>();
        let total = sum(|s| s.instructions);
        let lower = sum(|s| s.lower_bound);
        let _ = writeln!(
            s,
            "lima-fp code ({n} compiled): instructions per shader median {}, total {total}; \
             {:.2} units per instruction; spills {}, fills {}; lower bound total {lower} \
             (instructions / lower bound {:.3})",
            instrs[n / 2],
            sum(|s| s.units_filled) as f64 / total.max(1) as f64,
            sum(|s| s.spills),
            sum(|s| s.fills),
            total as f64 / lower.max(1) as f64
        );
        let mut t: Vec<f64> = compiled.iter().map(|c| c.1).collect();
        t.sort_by(f64::total_cmp);
        let pct = |p: f64| t[((n - 1) as f64 * p) as usize];
        let _ = writeln!(
            s,
            "lima-fp compile time per shader: median {:.1} µs, p90 {:.1} µs, max {:.1} µs",
            pct(0.5),
            pct(0.9),
            t[n - 1]
        );
    }
    let dev: u32 = metrics.iter().map(|m| m.fp16_deviations).sum();
    let dev_shaders = metrics.iter().filter(|m| m.fp16_deviations > 0).count();
    let compared: u32 = metrics.iter().map(|m| m.seeds_compared).sum();
    let skipped: u32 = metrics.iter().map(|m| m.seeds_skipped).sum();
    let _ = writeln!(
        s,
        "lima-fp input sets: {compared} compared, {skipped} skipped (no reference: interpreter trap, or a result that rests on undefined divergent quad operations); fp16 \
         precision deviations: {dev} input sets in {dev_shaders} shaders"
    );
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for r in rows {
        if let Outcome::Unsupported(why) = &r.outcome {
            let why = normalize_reason(why.lines().next().unwrap_or(""));
            match reasons.iter_mut().find(|(w, _)| *w == why) {
                Some(e) => e.1 += 1,
                None => reasons.push((why, 1)),
            }
        }
    }
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    if !reasons.is_empty() {
        let _ = writeln!(s, "lima-fp top unsupported reasons:");
        for (why, n) in reasons.iter().take(15) {
            let _ = writeln!(s, "  {n:>5}  {why}");
        }
    }
    s
}

// ---- differential test ------------------------------------------------------------------------

/// What [`check_generated`] reports for a program that compiled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GeneratedRun {
    pub instructions: u32,
    pub seeds_compared: u32,
    pub fp16_deviations: u32,
}

/// Generator program `seed` (raw form; the generator makes pixel shaders) compiled for
/// lima-fp and compared on [`DIFF_SEEDS`] input sets: `Ok(None)` when the target does not
/// support it (or the interpreter cannot run it), `Ok(Some(_))` when it matched, `Err(a
/// ready-to-commit filetest)` naming the failure, with the reflection and disassembly.
pub fn check_generated(seed: u64, limits: Limits) -> Result<Option<GeneratedRun>, String> {
    let raw = generate(seed, Form::Raw, limits);
    let check = check_shader(&raw, DIFF_SEEDS);
    match check.outcome {
        Outcome::Ok | Outcome::Known(_) => Ok(Some(GeneratedRun {
            instructions: check.output.map_or(0, |o| o.stats.instructions),
            seeds_compared: check.seeds_compared,
            fp16_deviations: check.fp16_deviations,
        })),
        Outcome::Unsupported(_) => Ok(None),
        Outcome::Failed(why) => {
            let mut why = format!("target {TARGET}, generator {limits:?}: {why}");
            if let Some(o) = &check.output {
                why.push_str("\nreflection:\n");
                why.push_str(&o.reflection.to_text());
                why.push_str("disassembly:\n");
                why.push_str(&o.disassembly);
            }
            let file = regression_file(seed, Form::Raw, &["verify"], &why, &raw);
            Err(format!("target {TARGET}\n{file}"))
        }
    }
}
