//! `irc bench DIR --pipeline P`: time one pass pipeline (`legalize`, `opt:lima`, …) over every
//! raw shader (`.raw.dxir`) under DIR, in this process, one shader after the other: the best of
//! `reps` runs per shader (each from a fresh copy of the input, reading and verification not
//! timed), then the median, p90 and max per shader, the slowest shaders and the time per pass
//! summed over the corpus (from the pass manager's own timings, of the best runs).
//!
//! Times are wall-clock: on a loaded machine the best of several runs is the honest figure.
//! With `--reps 1` it is also the driver to profile the pipeline with
//! (`valgrind --tool=callgrind irc bench DIR --pipeline legalize --reps 1`).

use irc_ir::binary;
use irc_ir::Module;
use irc_passes::{ManagerOptions, PassManager};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The raw shaders (`.raw.dxir`) under `dir`, each decoded when the walk reaches it (`None`:
/// unreadable), for the benchmarks; decoding is not timed.
pub fn raw_shaders(dir: &Path) -> Result<impl Iterator<Item = (PathBuf, Option<Module>)>, String> {
    let files =
        irc_testsuite::corpus::ir_files(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(files
        .into_iter()
        .filter(|f| f.to_string_lossy().ends_with(".raw.dxir"))
        .map(|f| {
            let m = std::fs::read(&f).ok().and_then(|b| binary::read(&b).ok());
            (f, m)
        }))
}

pub fn run(dir: &Path, pipeline: &str, reps: usize, slowest: usize) -> Result<ExitCode, String> {
    let files = raw_shaders(dir)?;
    let mut times: Vec<(f64, String)> = Vec::new();
    let mut per_pass: Vec<(&'static str, u32, Duration)> = Vec::new();
    let (mut failed, mut ops) = (0usize, 0usize);
    for (f, raw) in files {
        let Some(raw) = raw else {
            failed += 1;
            continue;
        };
        let mut best: Option<(f64, PassManager, usize)> = None;
        for _ in 0..reps.max(1) {
            let mut m = raw.clone();
            let mut pm = PassManager::new(ManagerOptions {
                verify: false,
                ..Default::default()
            });
            let t = Instant::now();
            let result = irc_testsuite::pipeline::run(&mut pm, &mut m, pipeline);
            let us = t.elapsed().as_secs_f64() * 1e6;
            if result.is_err() {
                best = None;
                break;
            }
            if best.as_ref().is_none_or(|b| us < b.0) {
                best = Some((us, pm, m.len()));
            }
        }
        let Some((us, pm, n)) = best else {
            failed += 1;
            continue;
        };
        ops += n;
        for t in pm.timings() {
            match per_pass.iter_mut().find(|p| p.0 == t.pass) {
                Some(p) => {
                    p.1 += t.runs;
                    p.2 += t.time;
                }
                None => per_pass.push((t.pass, t.runs, t.time)),
            }
        }
        let name = f.file_name().unwrap_or_default().to_string_lossy();
        times.push((us, name.into_owned()));
    }
    if times.is_empty() {
        return Err(format!("no raw shader ran through `{pipeline}`"));
    }
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = times.len();
    let pct = |p: f64| times[((n - 1) as f64 * p) as usize].0;
    let total: f64 = times.iter().map(|t| t.0).sum();
    println!(
        "{pipeline}: {n} shaders ({failed} failed or unreadable), best of {reps} runs each, \
         {ops} ops out"
    );
    println!(
        "time per shader: median {:.1} µs, p90 {:.1} µs, max {:.1} µs; total {:.1} ms",
        pct(0.5),
        pct(0.9),
        times[n - 1].0,
        total / 1e3
    );
    println!("slowest:");
    for (us, f) in times.iter().rev().take(slowest) {
        println!("  {us:>10.1} µs  {f}");
    }
    per_pass.sort_by_key(|p| std::cmp::Reverse(p.2));
    let sum: f64 = per_pass.iter().map(|p| p.2.as_secs_f64()).sum();
    println!("{:<24} {:>7} {:>10} {:>7}", "pass", "runs", "ms", "share");
    for (pass, runs, t) in &per_pass {
        println!(
            "{pass:<24} {runs:>7} {:>10.1} {:>6.1}%",
            t.as_secs_f64() * 1e3,
            100.0 * t.as_secs_f64() / sum.max(1e-12)
        );
    }
    Ok(ExitCode::SUCCESS)
}
