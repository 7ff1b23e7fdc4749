//! `irc bench DIR --target T`: time whole compilations for one target over every raw shader
//! (`.raw.dxir`) under DIR, in this process, through one [`irc::Compiler`] (as an embedder
//! compiles shader after shader): the best of `reps` runs per shader, each from a fresh copy of
//! the decoded input (decoding not timed), split into the IR pipeline (`prepare`: input
//! verification and the target's passes) and the backend (`Target::compile`). Prints the
//! median, p90 and max per shader of each part and of the whole, the slowest shaders and the
//! time per pass over all runs (the pass manager's own timings).
//!
//! Shaders the target does not compile (an `Unsupported` diagnostic) are counted apart and
//! left out of the figures; any other error is counted as failed.

use irc::{Compiler, Input, Options};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// Best-of-reps times of one shader, in µs.
struct Times {
    pipeline: f64,
    backend: f64,
    name: String,
}

pub fn run(
    dir: &Path,
    target: &str,
    options: Options,
    reps: usize,
    slowest: usize,
) -> Result<ExitCode, String> {
    let files = crate::bench_pipeline::raw_shaders(dir)?;
    let mut compiler = Compiler::new(target, options).map_err(|d| d.to_string())?;
    let mut times: Vec<Times> = Vec::new();
    let (mut unsupported, mut failed) = (0usize, 0usize);
    for (f, raw) in files {
        let Some(raw) = raw else {
            failed += 1;
            continue;
        };
        let mut best: Option<(f64, f64)> = None;
        for _ in 0..reps.max(1) {
            let input = raw.clone();
            let t = Instant::now();
            let prepared = compiler.prepare(Input::Module(input));
            let pipeline = t.elapsed().as_secs_f64() * 1e6;
            let result = prepared.and_then(|m| {
                let t = Instant::now();
                let out = compiler.target().compile(&m, &compiler.options().backend)?;
                drop(out);
                Ok(t.elapsed().as_secs_f64() * 1e6)
            });
            match result {
                Ok(backend) => {
                    if best.is_none_or(|b| pipeline + backend < b.0 + b.1) {
                        best = Some((pipeline, backend));
                    }
                }
                Err(d) => {
                    if d.is_unsupported() {
                        unsupported += 1;
                    } else {
                        failed += 1;
                    }
                    best = None;
                    break;
                }
            }
        }
        if let Some((pipeline, backend)) = best {
            let name = f.file_name().unwrap_or_default().to_string_lossy();
            times.push(Times {
                pipeline,
                backend,
                name: name.into_owned(),
            });
        }
    }
    if times.is_empty() {
        return Err(format!("no raw shader compiled for `{target}`"));
    }
    println!(
        "{target}: {} shaders compiled ({unsupported} unsupported, {failed} failed or unreadable), \
         best of {reps} runs each",
        times.len()
    );
    let line = |label: &str, mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let pct = |p: f64| v[((n - 1) as f64 * p) as usize];
        println!(
            "{label:<9} per shader: median {:.1} µs, p90 {:.1} µs, max {:.1} µs; total {:.1} ms",
            pct(0.5),
            pct(0.9),
            v[n - 1],
            v.iter().sum::<f64>() / 1e3
        );
    };
    line(
        "compile",
        times.iter().map(|t| t.pipeline + t.backend).collect(),
    );
    line("pipeline", times.iter().map(|t| t.pipeline).collect());
    line("backend", times.iter().map(|t| t.backend).collect());
    times.sort_by(|a, b| (b.pipeline + b.backend).total_cmp(&(a.pipeline + a.backend)));
    println!("slowest (pipeline + backend):");
    for t in times.iter().take(slowest) {
        println!(
            "  {:>10.1} µs  ({:.1} + {:.1})  {}",
            t.pipeline + t.backend,
            t.pipeline,
            t.backend,
            t.name
        );
    }
    let mut per_pass: Vec<_> = compiler.pass_timings().to_vec();
    per_pass.sort_by_key(|p| std::cmp::Reverse(p.time));
    let sum: f64 = per_pass.iter().map(|p| p.time.as_secs_f64()).sum();
    println!("pass (all runs)             runs         ms   share");
    for p in &per_pass {
        println!(
            "{:<24} {:>7} {:>10.1} {:>6.1}%",
            p.pass,
            p.runs,
            p.time.as_secs_f64() * 1e3,
            100.0 * p.time.as_secs_f64() / sum.max(1e-12)
        );
    }
    Ok(ExitCode::SUCCESS)
}
