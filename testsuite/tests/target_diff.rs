//! Differential test of every target's code generator: random generator programs (pixel
//! shaders in raw form) compiled for each registered target with a simulator, run there (exact,
//! then native precision) and compared with the interpreter on the raw program
//! ([`irc_testsuite::harness`]). Programs a target does not support are skipped, but a minimum
//! number must compile and match. `irc fuzz-diff --pipeline TARGET` runs the same check on as
//! many programs as asked.

use irc_testsuite::gen::Limits;
use irc_testsuite::harness::check_generated;

/// Programs per size class (default generator limits, then small programs).
const PROGRAMS: u64 = 300;
/// Programs that must compile and match per target, over both classes.
const MIN_COMPARED: u32 = 100;

#[test]
fn generated_programs_match_in_every_simulator() {
    let small = Limits {
        statements: 4,
        depth: 1,
        expr_depth: 2,
    };
    let targets = irc::targets()
        .iter()
        .filter(|t| t.simulator().is_some() && t.stages().contains(&irc_ir::ShaderStage::Pixel));
    let mut checked = 0;
    for &target in targets {
        let (mut compared, mut unsupported, mut deviations, mut instructions) = (0u32, 0u32, 0, 0);
        for limits in [Limits::default(), small] {
            for seed in 0..PROGRAMS {
                match check_generated(target, seed, limits) {
                    Ok(Some(r)) => {
                        compared += 1;
                        deviations += r.native_deviations;
                        instructions += r.instructions;
                    }
                    Ok(None) => unsupported += 1,
                    Err(case) => panic!("seed {seed}, {limits:?}:\n{case}"),
                }
            }
        }
        let name = target.name();
        println!(
            "{name} diff: {compared} programs compared ({instructions} instructions), \
             {unsupported} unsupported, {deviations} native-precision deviations"
        );
        assert!(
            compared >= MIN_COMPARED,
            "only {compared} of {} generator programs compiled for {name}",
            2 * PROGRAMS
        );
        checked += 1;
    }
    assert!(checked > 0, "no target with a simulator");
}

/// Programs `irc fuzz-diff --pipeline TARGET [-C KEY=VALUE]` found, checked on every run:
/// (target, generator seed, option, value); each kept as text in `testsuite/regressions/`
/// (`pixel_seed_N.ir` for a pixel target, `vertex_seed_N.ir` for a vertex one).
/// - lima-fp 9097906: a block of moves that all vanish after allocation became no instruction,
///   but the lower bound counted one for it (bound 8, program 7 instructions).
/// - agal-vp and lima-vp 12099534, `legacy-mul=exact`: the float facts took `−0 − +0` for a
///   `+0`, and `trim-legacy-guards` dropped a guard that gives `+0 · −0` its `+0`.
/// - pica-vs 20000281, `ieee-mul=legacy`: the harness compared the raw side without the mode's
///   oracle (the raw module after `relax-ieee-mul`), so a `0 · inf` it makes 0 counted as a
///   pipeline change.
/// - agal-fp and agal-vp 30001947: an operand built before another operand's gather moved its
///   value into the gathered register still named the old one, never written (an internal
///   error of the allocation checker).
/// - lima-fp 100001652, lima-vp, agal-fp and agal-vp 100004826, `legacy-mul=clamp`: the
///   program's legacy products sat in code that folding removed before `lower-legacy`, which
///   then took the module for no D3D9 shader and left its `rcp`/`exp2` results unlimited,
///   while the mode's oracle limits them in a module with a legacy op.
/// - lima-fp 3102123: `floor` of `pow` chains amplified the rounding of `rcp(rsq(x))`, which
///   lima-fp computes as one square root while its oracle rounded twice (`expected 1.0, got
///   0.875`); the oracle now fuses the pair as the backend does (`Oracle::rcp_rsq_as_sqrt`).
const FOUND: [(&str, u64, &str, &str); 11] = [
    ("lima-fp", 9_097_906, "legacy-mul", "finite"),
    ("agal-vp", 12_099_534, "legacy-mul", "exact"),
    ("lima-vp", 12_099_534, "legacy-mul", "exact"),
    ("pica-vs", 20_000_281, "ieee-mul", "legacy"),
    ("agal-fp", 30_001_947, "legacy-mul", "exact"),
    ("agal-vp", 30_001_947, "legacy-mul", "ieee"),
    ("lima-fp", 100_001_652, "legacy-mul", "clamp"),
    ("lima-fp", 3_102_123, "legacy-mul", "finite"),
    ("lima-vp", 100_004_826, "legacy-mul", "clamp"),
    ("agal-fp", 100_004_826, "legacy-mul", "clamp"),
    ("agal-vp", 100_004_826, "legacy-mul", "clamp"),
];

#[test]
fn fuzz_found_programs_stay_fixed() {
    for (name, seed, key, value) in FOUND {
        let target = irc::targets()
            .iter()
            .copied()
            .find(|t| t.name() == name)
            .expect("registered target");
        let mut options = irc::Options::default();
        options.set(key, value).expect("a target option");
        let form = if target.stages().contains(&irc_ir::ShaderStage::Pixel) {
            "pixel"
        } else {
            "vertex"
        };
        let run = irc_testsuite::harness::check_regression_with(
            target,
            &format!("{form}_seed_{seed}"),
            &options,
        )
        .unwrap_or_else(|e| panic!("{key}={value}: {e}"));
        assert!(run.seeds_compared > 0, "{name} seed {seed} {key}={value}");
    }
}
