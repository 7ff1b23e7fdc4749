//! `irc bench DIR`: speed of the binary reader/writer and the text printer/parser over every
//! IR file under DIR, as a table (MB/s over all bytes; µs per file, median and max).

use irc_ir::{binary, text};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

struct Stage {
    name: &'static str,
    micros: Vec<f64>,
    bytes: usize,
}

impl Stage {
    fn new(name: &'static str) -> Stage {
        Stage {
            name,
            micros: Vec::new(),
            bytes: 0,
        }
    }
    fn row(&mut self) -> String {
        self.micros.sort_by(f64::total_cmp);
        let total: f64 = self.micros.iter().sum();
        let median = self
            .micros
            .get(self.micros.len() / 2)
            .copied()
            .unwrap_or(0.0);
        let max = self.micros.last().copied().unwrap_or(0.0);
        let mbps = if total > 0.0 {
            self.bytes as f64 / total
        } else {
            0.0
        };
        format!(
            "{:<14} {:>10.1} {:>12.1} {:>12.1}",
            self.name, mbps, median, max
        )
    }
}

/// Best of `reps` timings of `f`, in µs.
fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = f();
    for _ in 0..reps {
        let t = Instant::now();
        last = f();
        best = best.min(t.elapsed().as_secs_f64() * 1e6);
    }
    (best, last)
}

pub fn run(dir: &Path, reps: usize) -> Result<ExitCode, String> {
    let files =
        irc_testsuite::corpus::ir_files(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut read = Stage::new("binary read");
    let mut write = Stage::new("binary write");
    let mut print = Stage::new("text print");
    let mut parse = Stage::new("text parse");
    let mut skipped = 0;
    for f in &files {
        let bytes = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let (t, m) = time(reps, || binary::read(&bytes));
        let Ok(m) = m else {
            skipped += 1;
            continue;
        };
        read.micros.push(t);
        read.bytes += bytes.len();
        let (t, _) = time(reps, || binary::write(&m));
        write.micros.push(t);
        write.bytes += bytes.len();
        let (t, txt) = time(reps, || text::print(&m));
        print.micros.push(t);
        print.bytes += txt.len();
        let (t, _) = time(reps, || text::parse(&txt));
        parse.micros.push(t);
        parse.bytes += txt.len();
    }
    let (steps, secs, shaders) = interp_speed(&files);
    println!(
        "{} files ({} unreadable), best of {reps} runs each",
        files.len(),
        skipped
    );
    println!(
        "{:<14} {:>10} {:>12} {:>12}",
        "stage", "MB/s", "median µs", "max µs"
    );
    for s in [&mut read, &mut write, &mut print, &mut parse] {
        println!("{}", s.row());
    }
    println!(
        "interpreter: {steps} ops in {secs:.3} s over {shaders} legalized vertex/pixel/geometry \
         shaders (one random input set each): {:.1} M ops/s",
        steps as f64 / secs.max(1e-9) / 1e6
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs every legalized vertex, pixel and geometry shader once on random inputs; returns the
/// ops executed, the seconds spent and the number of shaders run.
fn interp_speed(files: &[std::path::PathBuf]) -> (u64, f64, usize) {
    let config = irc_testsuite::equivalence::run_config();
    let (mut steps, mut secs, mut n) = (0u64, 0f64, 0usize);
    for f in files
        .iter()
        .filter(|f| !f.to_string_lossy().ends_with(".raw.dxir"))
    {
        let Some(m) = std::fs::read(f).ok().and_then(|b| binary::read(&b).ok()) else {
            continue;
        };
        use irc_ir::ShaderStage as S;
        let stage = irc_testsuite::equivalence::stage(&m);
        if !stage.is_some_and(|s| s == S::Pixel || s == S::Vertex || s == S::Geometry) {
            continue;
        }
        let inputs = irc_interp::ShaderInputs::random(&m, 0);
        let t = Instant::now();
        if let Ok(out) = irc_interp::run(&m, &inputs, &config) {
            secs += t.elapsed().as_secs_f64();
            steps += out.steps;
            n += 1;
        }
    }
    (steps, secs, n)
}
