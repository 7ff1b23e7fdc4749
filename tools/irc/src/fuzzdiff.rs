//! `irc fuzz-diff`: the long-running differential test. Random generator programs (raw form)
//! run in the interpreter before and after a pipeline on four input sets each; the first
//! mismatch, failure or panic is printed (and saved with `--save`) as a ready-to-commit
//! filetest. `cargo test` runs a bounded number of the same checks.

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
        match difftest::check_seed(seed, pipeline) {
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
