//! Behaviour checks by execution: run a module and a transformed copy of it in the reference
//! interpreter on seeded random inputs and compare what they do.

use irc_interp::{run, Outputs, RunConfig, ShaderInputs, Trap, TrapKind};
use irc_ir::{Module, OpCode, ShaderStage};

/// Number of seeded input sets the corpus checks use.
pub const SEEDS: u64 = 8;

/// How a comparison came out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Same,
    /// The reference run cannot be made (unsupported op or stage in the interpreter).
    NotRunnable(String),
    Differs(String),
}

/// The stage of the module's entry point.
pub fn stage(m: &Module) -> Option<ShaderStage> {
    m.declarations()
        .find(|&d| m.opcode(d) == OpCode::EntryPoint)
        .and_then(|d| m.op(d).operands.last().and_then(|o| o.as_lit()))
        .map(|v| ShaderStage(v as u32))
}

/// Limits of the corpus runs: compute workgroups are cut to 64 invocations (the same cut for
/// both sides, so comparisons stay exact; our targets have no compute stage) and runs to two
/// million ops (random inputs can make a shader loop forever; the longest terminating corpus
/// run takes far fewer).
pub fn run_config() -> RunConfig {
    RunConfig {
        max_compute_lanes: 64,
        fuel: 2_000_000,
        ..RunConfig::default()
    }
}

fn same_trap(a: &Trap, b: &Trap) -> bool {
    std::mem::discriminant(&a.kind) == std::mem::discriminant(&b.kind)
}

/// Runs `reference` and `candidate` on `seeds` input sets made from `inputs_of` and compares
/// outputs (every invocation's outputs and discard state, emitted vertices, UAV contents) bit
/// for bit, any NaN matching any NaN (`irc_interp::compare::outputs_equal`). A seed whose
/// outputs differ while either run evaluated quad ops in divergent control flow
/// (`Outputs::divergent_quad_ops`, undefined in D3D) is skipped.
pub fn compare(reference: &Module, candidate: &Module, inputs_of: &Module, seeds: u64) -> Verdict {
    compare_with(reference, candidate, inputs_of, seeds, &run_config())
}

/// [`compare`] under interpreter configuration `config`.
pub fn compare_with(
    reference: &Module,
    candidate: &Module,
    inputs_of: &Module,
    seeds: u64,
    config: &RunConfig,
) -> Verdict {
    for seed in 0..seeds {
        let inputs = ShaderInputs::random(inputs_of, seed);
        let want = run(reference, &inputs, config);
        let got = run(candidate, &inputs, config);
        match (&want, &got) {
            (Err(t), _)
                if matches!(
                    t.kind,
                    TrapKind::Unsupported(_) | TrapKind::UnsupportedStage | TrapKind::FuelExhausted
                ) =>
            {
                return Verdict::NotRunnable(format!("reference: {t}"));
            }
            (Ok(a), Ok(b)) => {
                if let Err(d) = irc_interp::compare::outputs_equal(a, b) {
                    // Derivatives and implicit-LOD samples in divergent quad control flow are
                    // undefined in D3D: a result that rests on them proves nothing.
                    if a.divergent_quad_ops > 0 || b.divergent_quad_ops > 0 {
                        continue;
                    }
                    return Verdict::Differs(format!("input seed {seed}: {d}"));
                }
            }
            (Err(a), Err(b)) if same_trap(a, b) => {}
            (a, b) => {
                let show = |r: &Result<Outputs, Trap>| match r {
                    Ok(_) => "runs".to_string(),
                    Err(t) => format!("traps ({t})"),
                };
                return Verdict::Differs(format!(
                    "input seed {seed}: reference {}, result {}",
                    show(a),
                    show(b)
                ));
            }
        }
    }
    Verdict::Same
}
