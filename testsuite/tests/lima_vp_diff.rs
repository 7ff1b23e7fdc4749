//! Differential test of the `lima-vp` code generator: random generator programs as vertex
//! shaders (`difftest::fuzz_with`; programs that sample or discard are skipped), compiled,
//! run in the GP simulator and compared with the interpreter on the raw program. A minimum
//! number must compile and match; any mismatch prints a ready-to-commit regression file.

use irc_testsuite::difftest::fuzz_with;
use irc_testsuite::gen::Limits;

/// Programs per size class.
const PROGRAMS: u64 = 150;
/// Programs that must compile and match, over both classes.
const MIN_COMPARED: u64 = 60;

#[test]
fn generated_vertex_programs_match_in_the_gp_simulator() {
    let small = Limits {
        statements: 4,
        depth: 1,
        expr_depth: 2,
    };
    let registry = irc::registry::Registry::builtin();
    let mut compared = 0;
    for limits in [Limits::default(), small] {
        match fuzz_with(
            registry,
            "lima-vp",
            0,
            PROGRAMS,
            limits,
            &Default::default(),
        ) {
            Ok(r) => {
                println!(
                    "lima-vp diff {limits:?}: {} compared ({} instructions), {} unsupported",
                    r.compared, r.size, r.unsupported
                );
                compared += r.compared;
            }
            Err((seed, case)) => panic!("seed {seed}, {limits:?}:\n{case}"),
        }
    }
    assert!(
        compared >= MIN_COMPARED,
        "only {compared} of {} generator programs compiled for lima-vp",
        2 * PROGRAMS
    );
}

/// At `-O1` the optimizer keeps branches and loops (it if-converts and unrolls only at `-O2`
/// on a target with both), so the GP code generator's blocks, pinned registers, phi copies and
/// branches run: generator programs (nested ifs, counted loops, switches) compiled at `-O1`
/// must match the interpreter in the strict simulator, and enough of them must branch.
#[test]
fn generated_vertex_programs_with_branches_and_loops_match_at_o1() {
    use irc_testsuite::corpus::Outcome;
    use irc_testsuite::harness::{check_shader_with, DIFF_SEEDS};
    let registry = irc::registry::Registry::builtin();
    let target = registry.target("lima-vp").expect("lima-vp");
    let mut options = irc::Options::default();
    options.set("opt-level", "1").expect("opt-level");
    let (mut compared, mut branching, mut looping) = (0, 0, 0);
    let mut reasons = std::collections::BTreeMap::new();
    for seed in 0..4 * PROGRAMS {
        let Some(raw) = irc_testsuite::gen::generate_vertex(seed, Limits::default()) else {
            continue;
        };
        let check = check_shader_with(target, &raw, DIFF_SEEDS, &options);
        match check.outcome {
            Outcome::Ok | Outcome::Known(_) => {
                compared += 1;
                let asm = check.output.map(|o| o.disassembly).unwrap_or_default();
                let (forward, backward) = branches(&asm);
                branching += usize::from(forward + backward > 0);
                looping += usize::from(backward > 0);
            }
            Outcome::Unsupported(why) => {
                *reasons
                    .entry(why.split(':').next().unwrap_or("").to_string())
                    .or_insert(0) += 1
            }
            Outcome::Failed(why) => {
                panic!("seed {seed} at -O1: {why}\n{}", irc_ir::text::print(&raw))
            }
        }
    }
    println!("lima-vp -O1: {compared} compared, {branching} with branches, {looping} with loops");
    println!("lima-vp -O1 unsupported: {reasons:?}");
    assert!(compared >= 50, "only {compared} programs compiled at -O1");
    assert!(branching >= 30, "only {branching} programs branch at -O1");
    assert!(looping >= 25, "only {looping} programs loop at -O1");
}

/// Forward and backward branches in a GP disassembly (`NNN:` opens an instruction, `branch ^N
/// TTT` branches to instruction `TTT`).
fn branches(asm: &str) -> (usize, usize) {
    let (mut at, mut forward, mut backward) = (0usize, 0, 0);
    for line in asm.lines() {
        if let Some(n) = line.split(':').next().and_then(|x| x.parse::<usize>().ok()) {
            at = n;
        }
        let target = line
            .trim()
            .strip_prefix("branch ")
            .and_then(|t| t.rsplit(' ').next())
            .and_then(|t| t.parse::<usize>().ok());
        match target {
            Some(t) if t <= at => backward += 1,
            Some(_) => forward += 1,
            None => {}
        }
    }
    (forward, backward)
}

/// Generator programs found by `irc fuzz-diff --pipeline lima-vp`, loops whose back-edge phi
/// copy was stored before the body had read the phi's old value: seed 3435 (stored by the
/// scheduler's path for outputs forwarded for the last time), 7319 (while an rcp sequence
/// still read it in its `complex1` step, inside the store's latency window). Kept as text in
/// `testsuite/regressions/`.
#[test]
fn phi_copies_wait_for_the_reads_of_the_old_value() {
    let registry = irc::registry::Registry::builtin();
    let target = registry.target("lima-vp").expect("lima-vp");
    for name in ["vertex_seed_3435", "vertex_seed_7319"] {
        let run = irc_testsuite::harness::check_regression(target, name)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(run.instructions > 0 && run.seeds_compared > 0, "{name}");
    }
}
