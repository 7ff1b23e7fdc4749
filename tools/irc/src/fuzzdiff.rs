//! `irc fuzz-diff`: the long-running differential test. Random generator programs (raw form)
//! run in the interpreter before and after a pipeline on four input sets each; the first
//! mismatch, failure or panic is printed (and saved with `--save`) as a ready-to-commit
//! filetest. `cargo test` runs a bounded number of the same checks. `--pipeline lima-fp`
//! instead compiles each program for lima-fp and compares the PP simulator with the
//! interpreter (the count reported is then of PP instructions, not ops).

use irc_testsuite::difftest;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

pub fn run(
    count: u64,
    first: u64,
    pipeline: &str,
    save: Option<&Path>,
) -> Result<ExitCode, String> {
    let start = Instant::now();
    let mut ops = 0usize;
    let mut unsupported = 0u64;
    for seed in first..first.saturating_add(count) {
        // `--pipeline lima-fp`: compile for the target and compare in its simulator.
        let result = if pipeline == irc_testsuite::lima_fp::TARGET {
            irc_testsuite::lima_fp::check_generated(seed, irc_testsuite::gen::Limits::default())
                .map(|r| r.map(|r| r.instructions as usize))
        } else {
            difftest::check_seed(seed, pipeline)
        };
        match result {
            Ok(None) => unsupported += 1,
            Ok(Some(n)) => ops += n,
            Err(case) => {
                println!("{case}");
                if let Some(path) = save {
                    std::fs::write(path, &case).map_err(|e| format!("{}: {e}", path.display()))?;
                }
                println!(
                    "fuzz-diff: seed {seed} failed after {} programs",
                    seed - first
                );
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    println!(
        "fuzz-diff: {count} programs, {} compared ({ops} ops after `{pipeline}`), {unsupported} \
         unsupported by the target, 0 mismatches, {:.1} s",
        count - unsupported,
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
