//! One differential check: generator program `seed` in raw form, run in the interpreter before
//! and after a pipeline on four input sets; outputs must match bit for bit (any NaN matching
//! any NaN; sine and cosine computed as the target's polynomials where it has no units for them).
//! Shared by `cargo test` and `irc fuzz-diff`.

use crate::gen::{generate, regression_file, Form, Limits};
use irc_interp::{run, ShaderInputs};
use irc_passes::{ManagerOptions, PassManager};

/// Input sets per program.
pub const INPUT_SETS: u64 = 4;

/// Checks one seed: `Ok(Some(ops after the pipeline))`, `Ok(None)` when the pipeline reports
/// the program unsupported by its target, or `Err(a ready-to-commit filetest)`.
pub fn check_seed(seed: u64, pipeline: &str) -> Result<Option<usize>, String> {
    check_module(
        &generate(seed, Form::Raw, Limits::default()),
        seed,
        pipeline,
    )
}

/// [`check_seed`] for a generator module drawn some other way (the fuzz targets draw from
/// fuzz input); `seed` only labels the regression file.
pub fn check_module(
    raw: &irc_ir::Module,
    seed: u64,
    pipeline: &str,
) -> Result<Option<usize>, String> {
    let raw = raw.clone();
    let mut m = raw.clone();
    let mut pm = PassManager::new(ManagerOptions {
        verify: true,
        ..Default::default()
    });
    let fail =
        |why: String, m: &irc_ir::Module| regression_file(seed, Form::Raw, &["run"], &why, m);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::pipeline::run(&mut pm, &mut m, pipeline)
    }));
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(irc_passes::PassError::Unsupported { .. })) => return Ok(None),
        Ok(Err(e)) => return Err(fail(format!("`{pipeline}` failed: {e}"), &raw)),
        Err(_) => return Err(fail(format!("`{pipeline}` panicked"), &raw)),
    }
    let config = crate::equivalence::run_config();
    // Sine and cosine become polynomials on targets without them (`lower-trig`): the raw
    // program computes them the same way.
    let raw_config = irc_interp::RunConfig {
        polynomial_trig: !pm.context.caps.trig,
        ..config
    };
    for input_seed in 0..INPUT_SETS {
        let inputs = ShaderInputs::random(&raw, input_seed);
        let want =
            run(&raw, &inputs, &raw_config).map_err(|t| fail(format!("raw traps: {t}"), &raw))?;
        let verdict = match run(&m, &inputs, &config) {
            Ok(got) => irc_interp::compare::outputs_equal(&want, &got).map_err(|d| d.to_string()),
            Err(t) => Err(format!("traps: {t}")),
        };
        if let Err(why) = verdict {
            let raw_text = irc_ir::text::print(&raw);
            let commented: String = raw_text.lines().map(|l| format!("; {l}\n")).collect();
            return Err(fail(
                format!("after `{pipeline}`, input seed {input_seed}: {why}\nthe raw program:\n{commented}"),
                &m,
            ));
        }
    }
    Ok(Some(m.len()))
}

/// The result of [`fuzz`] when nothing failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FuzzReport {
    pub programs: u64,
    /// Programs compiled (or transformed) and compared.
    pub compared: u64,
    /// Programs the target or pipeline does not support.
    pub unsupported: u64,
    /// Ops after the pipeline, or machine instructions for a target.
    pub size: u64,
    /// Input sets of target runs whose native-precision run missed the target's tolerance.
    pub native_deviations: u64,
}

/// Checks generator programs `first..first + count`: when `pipeline` names a target of
/// `registry`, each is compiled for it and run in its simulator against the interpreter
/// ([`crate::harness::check_generated`]); otherwise it names a pipeline ([`check_seed`]).
/// `Err((seed, a ready-to-commit filetest))` at the first failure.
pub fn fuzz(
    registry: &irc::Registry,
    pipeline: &str,
    first: u64,
    count: u64,
) -> Result<FuzzReport, (u64, String)> {
    fuzz_with(
        registry,
        pipeline,
        first,
        count,
        Limits::default(),
        &irc::Options::default(),
    )
}

/// [`fuzz`] with generator limits and compile options (target checks only; pipeline checks
/// use the defaults).
pub fn fuzz_with(
    registry: &irc::Registry,
    pipeline: &str,
    first: u64,
    count: u64,
    limits: Limits,
    options: &irc::Options,
) -> Result<FuzzReport, (u64, String)> {
    let target = registry.target(pipeline);
    let mut r = FuzzReport::default();
    for seed in first..first.saturating_add(count) {
        r.programs += 1;
        let result = match target {
            Some(t) => crate::harness::check_generated_with(t, seed, limits, options).map(|g| {
                g.map(|g| {
                    r.native_deviations += u64::from(g.native_deviations);
                    g.instructions as usize
                })
            }),
            None => check_seed(seed, pipeline),
        };
        match result {
            Ok(None) => r.unsupported += 1,
            Ok(Some(n)) => {
                r.compared += 1;
                r.size += n as u64;
            }
            Err(case) => return Err((seed, case)),
        }
    }
    Ok(r)
}
