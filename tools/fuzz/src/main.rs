//! `irc-fuzz-smoke`: the bounded fuzz smoke run of `.ci/run`. For every fuzz target (or the
//! ones named), runs each committed seed under `tools/fuzz/seeds/<target>/` and then a fixed
//! number of deterministic mutations of them ([`irc_fuzz::mutate`]); any panic prints the
//! target and saves the input under `--artifacts` (default `target/fuzz-smoke`), and the run
//! exits 1. Usage: `irc-fuzz-smoke [--runs N] [--seeds DIR] [--artifacts DIR] [TARGET…]`.

use irc_fuzz::mutate::{mutate, Rng};
use irc_fuzz::{FuzzTarget, TARGETS};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Executions (seeds plus mutations) per target by default; the pipeline targets are slower
/// and get a tenth.
const RUNS: u64 = 20_000;

struct Args {
    runs: u64,
    seeds: PathBuf,
    artifacts: PathBuf,
    only: Vec<String>,
}

fn args() -> Result<Args, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut a = Args {
        runs: RUNS,
        seeds: root.join("seeds"),
        artifacts: root.join("../../target/fuzz-smoke"),
        only: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        let mut value = |what: &str| it.next().ok_or(format!("{what} needs a value"));
        match x.as_str() {
            "--runs" => {
                a.runs = value("--runs")?
                    .parse()
                    .map_err(|e| format!("--runs: {e}"))?
            }
            "--seeds" => a.seeds = value("--seeds")?.into(),
            "--artifacts" => a.artifacts = value("--artifacts")?.into(),
            "-h" | "--help" => {
                return Err(
                    "usage: irc-fuzz-smoke [--runs N] [--seeds DIR] [--artifacts DIR] [TARGET...]"
                        .into(),
                )
            }
            t if irc_fuzz::target(t).is_some() => a.only.push(t.into()),
            t => return Err(format!("unknown target or option `{t}`")),
        }
    }
    Ok(a)
}

/// The seed files of one target, sorted by name (so the run is reproducible).
fn seeds(dir: &Path) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// Runs one target; `Err(the failing input)` at the first panic.
fn smoke(t: &FuzzTarget, seeds: &[Vec<u8>], runs: u64) -> Result<u64, Vec<u8>> {
    let text: String = if t.text {
        seeds
            .iter()
            .map(|s| String::from_utf8_lossy(s).into_owned() + "\n")
            .collect()
    } else {
        String::new()
    };
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut rng = Rng::new(0x5eed ^ t.name.len() as u64);
    let mut n = 0;
    let mut exec = |input: Vec<u8>| {
        n += 1;
        match catch_unwind(AssertUnwindSafe(|| (t.run)(&input))) {
            Ok(()) => Ok(()),
            Err(_) => Err(input),
        }
    };
    for s in seeds.iter().take(runs as usize) {
        exec(s.clone())?;
    }
    let empty = Vec::new();
    for _ in seeds.len() as u64..runs {
        let seed = seeds
            .get(rng.below(seeds.len() as u64) as usize)
            .unwrap_or(&empty);
        let other = seeds
            .get(rng.below(seeds.len() as u64) as usize)
            .unwrap_or(&empty);
        exec(mutate(&mut rng, seed, other, &tokens))?;
    }
    Ok(n)
}

fn main() -> ExitCode {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut failed = false;
    for t in TARGETS
        .iter()
        .filter(|t| a.only.is_empty() || a.only.iter().any(|o| o == t.name))
    {
        let start = Instant::now();
        let seeds = seeds(&a.seeds.join(t.name));
        let runs = if t.name == "pipeline" || t.name == "compile_ir" {
            a.runs / 10
        } else {
            a.runs
        };
        match smoke(t, &seeds, runs) {
            Ok(n) => println!(
                "fuzz-smoke {:<16} {n:>7} executions from {:>3} seeds, {:.1} s",
                t.name,
                seeds.len(),
                start.elapsed().as_secs_f64()
            ),
            Err(input) => {
                failed = true;
                let _ = std::fs::create_dir_all(&a.artifacts);
                let path = a.artifacts.join(format!("crash-{}", t.name));
                let saved = std::fs::write(&path, &input).is_ok();
                println!(
                    "fuzz-smoke {}: FAILED (input {} bytes{})",
                    t.name,
                    input.len(),
                    if saved {
                        format!(", saved to {}", path.display())
                    } else {
                        String::new()
                    }
                );
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
