//! Differential test of the lima-fp code generator: random generator programs (pixel shaders
//! in raw form) compiled for lima-fp, run in the PP simulator (fp32 strict, then fp16) and
//! compared with the interpreter on the raw program ([`irc_testsuite::lima_fp`]). Programs
//! the target does not support are skipped, but a minimum number must compile and match.
//! `irc fuzz-diff --pipeline lima-fp` runs the same check on as many programs as asked.

use irc_testsuite::gen::Limits;
use irc_testsuite::lima_fp::check_generated;

/// Programs per size class (default generator limits, then small programs).
const PROGRAMS: u64 = 300;
/// Programs that must compile and match, over both classes.
const MIN_COMPARED: u32 = 100;

#[test]
fn generated_programs_match_in_the_simulator() {
    let small = Limits {
        statements: 4,
        depth: 1,
        expr_depth: 2,
    };
    let (mut compared, mut unsupported, mut deviations, mut instructions) = (0u32, 0u32, 0, 0);
    for limits in [Limits::default(), small] {
        for seed in 0..PROGRAMS {
            match check_generated(seed, limits) {
                Ok(Some(r)) => {
                    compared += 1;
                    deviations += r.fp16_deviations;
                    instructions += r.instructions;
                }
                Ok(None) => unsupported += 1,
                Err(case) => panic!("seed {seed}, {limits:?}:\n{case}"),
            }
        }
    }
    println!(
        "lima-fp diff: {compared} programs compared ({instructions} PP instructions), \
         {unsupported} unsupported, {deviations} fp16 precision deviations"
    );
    assert!(
        compared >= MIN_COMPARED,
        "only {compared} of {} generator programs compiled for lima-fp",
        2 * PROGRAMS
    );
}
