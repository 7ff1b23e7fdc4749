//! `irc fuzz-diff`: the long-running differential test. Random generator programs (raw form)
//! run in the interpreter before and after a pipeline on four input sets each; the first
//! mismatch, failure or panic is printed (and saved with `--save`) as a ready-to-commit
//! filetest. `cargo test` runs a bounded number of the same checks. `--pipeline TARGET` (any
//! registered target) instead compiles each program for the target and compares its simulator
//! with the interpreter (the count reported is then of machine instructions, not ops).

use irc_testsuite::difftest;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

pub fn run(
    count: u64,
    first: u64,
    pipeline: &str,
    save: Option<&Path>,
    options: &irc::Options,
) -> Result<ExitCode, String> {
    let start = Instant::now();
    let limits = irc_testsuite::gen::Limits::default();
    let registry = irc::Registry::builtin();
    match difftest::fuzz_with(registry, pipeline, first, count, limits, options) {
        Ok(r) => {
            let what = if irc::target(pipeline).is_some() {
                "instructions for"
            } else {
                "ops after"
            };
            println!(
                "fuzz-diff: {count} programs, {} compared ({} {what} `{pipeline}`), {} \
                 unsupported by the target, 0 mismatches, {:.1} s",
                r.compared,
                r.size,
                r.unsupported,
                start.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err((seed, case)) => {
            println!("{case}");
            if let Some(path) = save {
                crate::atomic::write(path, case.as_bytes())?;
            }
            println!(
                "fuzz-diff: seed {seed} failed after {} programs",
                seed - first
            );
            Ok(ExitCode::FAILURE)
        }
    }
}
