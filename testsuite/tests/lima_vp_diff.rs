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
        match fuzz_with(registry, "lima-vp", 0, PROGRAMS, limits) {
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
