//! `irc compile` over many shaders in one process: inputs and directories expanded
//! ([`collect`]), compiled in parallel with one `irc::Compiler` per worker (rayon), a progress
//! bar on a terminal, a summary table, and with `--json` one JSON line at the end.

use std::collections::HashMap;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use irc::{Compiler, Input, Options};
use rayon::prelude::*;

use crate::compile::{compile_one, CompileArgs, Emit, FAILED, UNSUPPORTED};

/// One shader to compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The file (`-` for stdin).
    pub path: PathBuf,
    /// Where its output goes under `--out-dir`, without extension.
    pub out: PathBuf,
}

/// The forms a shader may be stored in, most preferred first.
const FORMS: [&str; 3] = [".raw.dxir", ".dxir", ".ir"];

/// `name` without its form's suffix, and the form's rank in [`FORMS`].
fn split_form(name: &str) -> Option<(&str, usize)> {
    FORMS
        .iter()
        .enumerate()
        .find_map(|(i, f)| name.strip_suffix(f).map(|stem| (stem, i)))
}

/// The jobs for `inputs`: files as given, directories expanded to every `.dxir`/`.ir` file
/// under them (sorted), one form per shader (`X.raw.dxir` before `X.dxir` before `X.ir`).
pub fn collect(inputs: &[PathBuf]) -> Result<Vec<Job>, String> {
    let mut jobs = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found: HashMap<PathBuf, (usize, PathBuf)> = HashMap::new();
            walk(input, input, &mut found).map_err(|e| format!("{}: {e}", input.display()))?;
            if found.is_empty() {
                return Err(format!("{}: no .dxir or .ir files", input.display()));
            }
            let mut v: Vec<Job> = found
                .into_iter()
                .map(|(out, (_, path))| Job { path, out })
                .collect();
            v.sort_by(|a, b| a.path.cmp(&b.path));
            jobs.extend(v);
        } else {
            let name = input.file_name().unwrap_or_default().to_string_lossy();
            let stem = if input.as_os_str() == "-" {
                "stdin".to_string()
            } else {
                split_form(&name).map_or(name.to_string(), |(s, _)| s.to_string())
            };
            jobs.push(Job {
                path: input.clone(),
                out: PathBuf::from(stem),
            });
        }
    }
    Ok(jobs)
}

fn walk(
    root: &Path,
    dir: &Path,
    found: &mut HashMap<PathBuf, (usize, PathBuf)>,
) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(root, &path, found)?;
            continue;
        }
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let Some((stem, rank)) = split_form(&name) else {
            continue;
        };
        let rel = path
            .parent()
            .and_then(|p| p.strip_prefix(root).ok())
            .unwrap_or(Path::new(""))
            .join(stem);
        match found.get(&rel) {
            Some((r, _)) if *r <= rank => {}
            _ => {
                found.insert(rel, (rank, path));
            }
        }
    }
    Ok(())
}

/// Reads a module from stdin: text when it starts with `%` or `;`, else binary.
pub fn read_stdin() -> Result<irc_ir::Module, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("stdin: {e}"))?;
    module_from_bytes(&bytes, "<stdin>")
}

fn module_from_bytes(bytes: &[u8], name: &str) -> Result<irc_ir::Module, String> {
    let text = std::str::from_utf8(bytes)
        .ok()
        .filter(|t| t.trim_start().starts_with(['%', ';']));
    match text {
        Some(t) => irc_ir::text::parse_named(t, name).map_err(|e| e.to_string()),
        None => irc_ir::binary::read(bytes).map_err(|e| format!("{name}: {e}")),
    }
}

/// What became of one shader.
#[derive(Debug)]
enum Outcome {
    Compiled,
    Unsupported(String),
    Failed(String),
}

/// The file extension of `emit` outputs (`container`: the format's name).
fn extension(emit: Emit, container: Option<&str>) -> String {
    match emit {
        Emit::Bin => "bin".into(),
        Emit::Asm => "s".into(),
        Emit::Reflection => "reflection.txt".into(),
        Emit::ReflectionJson => "reflection.json".into(),
        Emit::Stats => "stats.txt".into(),
        Emit::Container => container.unwrap_or("container").into(),
        Emit::Ir => "ir".into(),
    }
}

fn process(compiler: &mut Compiler, job: &Job, emit: Emit, out_dir: Option<&Path>) -> Outcome {
    // Binary files go to the compiler as bytes (it reads them into its reused module); text
    // is parsed here so that errors name the file.
    let path = &job.path;
    let is_text = path.extension().is_some_and(|e| e == "ir");
    let (bytes, module) = if path.as_os_str() == "-" {
        (Vec::new(), Some(read_stdin()))
    } else if is_text {
        (Vec::new(), Some(crate::load::module(path)))
    } else {
        match std::fs::read(path) {
            Ok(b) => (b, None),
            Err(e) => return Outcome::Failed(format!("{}: {e}", path.display())),
        }
    };
    let input = match module {
        Some(Ok(m)) => Input::Module(m),
        Some(Err(e)) => return Outcome::Failed(e),
        None => Input::Binary(&bytes),
    };
    match compile_one(compiler, input, emit) {
        Ok((bytes, container)) => {
            if let Some(dir) = out_dir {
                let mut file = dir.join(&job.out).into_os_string();
                file.push(".");
                file.push(extension(emit, container));
                let file = PathBuf::from(file);
                if let Some(parent) = file.parent() {
                    if let Err(e) = std::fs::create_dir_all(parent) {
                        return Outcome::Failed(format!("{}: {e}", parent.display()));
                    }
                }
                if let Err(e) = crate::atomic::write(&file, &bytes) {
                    return Outcome::Failed(e);
                }
            }
            Outcome::Compiled
        }
        Err(d) if d.is_unsupported() => {
            Outcome::Unsupported(d.first().map(|d| d.reason()).unwrap_or_default())
        }
        Err(d) => Outcome::Failed(d.to_string()),
    }
}

/// Runs a batch compilation; prints the summary (and the JSON line) to stdout.
pub fn run(args: &CompileArgs, emit: Emit, options: Options) -> Result<ExitCode, String> {
    let jobs = collect(&args.input)?;
    if jobs.iter().filter(|j| j.path.as_os_str() == "-").count() > 1 {
        return Err("stdin (`-`) can be read once".into());
    }
    // Checks the target and options once, before any work.
    Compiler::new(&args.target, options.clone()).map_err(|d| d.to_string())?;
    let threads = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| format!("thread pool: {e}"))?;
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(jobs.len() as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} eta {eta} {msg}")
        {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let start = Instant::now();
    let out_dir = args.out_dir.as_deref();
    let outcomes: Vec<Outcome> = pool.install(|| {
        // One shader per task: compile times differ by orders of magnitude (a vertex shader is
        // rejected at once, a long pixel shader takes milliseconds), and rayon's default split
        // into a few long runs leaves a core idle at the end.
        jobs.par_iter()
            .with_max_len(1)
            .map_init(
                || Compiler::new(&args.target, options.clone()),
                |compiler, job| {
                    let outcome = match compiler {
                        Ok(c) => process(c, job, emit, out_dir),
                        Err(d) => Outcome::Failed(d.to_string()),
                    };
                    if let Outcome::Failed(msg) = &outcome {
                        bar.suspend(|| eprintln!("{}: {msg}", job.path.display()));
                    }
                    bar.inc(1);
                    outcome
                },
            )
            .collect()
    });
    bar.finish_and_clear();
    let wall = start.elapsed();

    let mut reasons: HashMap<&str, usize> = HashMap::new();
    let mut failures = Vec::new();
    let (mut compiled, mut unsupported) = (0usize, 0usize);
    for (job, o) in jobs.iter().zip(&outcomes) {
        match o {
            Outcome::Compiled => compiled += 1,
            Outcome::Unsupported(r) => {
                unsupported += 1;
                *reasons.entry(r.as_str()).or_default() += 1;
            }
            Outcome::Failed(m) => failures.push((job.path.display().to_string(), m.clone())),
        }
    }
    let mut reasons: Vec<(&str, usize)> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));

    let wall_ms = wall.as_secs_f64() * 1e3;
    println!(
        "irc compile: {} files for {} in {:.2} s (-j{threads}, {:.2} ms/file)",
        jobs.len(),
        args.target,
        wall.as_secs_f64(),
        wall_ms / jobs.len().max(1) as f64
    );
    println!("  {:<12} {:>6}", "compiled", compiled);
    println!("  {:<12} {:>6}", "unsupported", unsupported);
    for (r, n) in reasons.iter().take(10) {
        println!("    {n:>6}  {}", short(r, 100));
    }
    if reasons.len() > 10 {
        println!("    ({} other reasons)", reasons.len() - 10);
    }
    println!("  {:<12} {:>6}", "failed", failures.len());
    if args.json {
        let summary = serde_json::json!({
            "target": args.target,
            "files": jobs.len(),
            "compiled": compiled,
            "unsupported": unsupported,
            "failed": failures.len(),
            "wall_ms": (wall_ms * 10.0).round() / 10.0,
            "jobs": threads,
            "unsupported_reasons": reasons.iter().map(|(r, n)| serde_json::json!({"reason": r, "count": n})).collect::<Vec<_>>(),
            "failures": failures.iter().map(|(f, m)| serde_json::json!({"file": f, "message": m})).collect::<Vec<_>>(),
        });
        println!("{summary}");
    }
    Ok(if !failures.is_empty() {
        ExitCode::from(FAILED)
    } else if unsupported > 0 {
        ExitCode::from(UNSUPPORTED)
    } else {
        ExitCode::SUCCESS
    })
}

/// The first line of `s`, at most `max` characters.
fn short(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or_default();
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_keep_one_form_per_shader_preferring_raw() {
        let dir = std::env::temp_dir().join(format!("irc-batch-collect-{}", std::process::id()));
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        for f in [
            "a.raw.dxir",
            "a.dxir",
            "a.ir",
            "b.dxir",
            "b.ir",
            "c.ir",
            "c.txt",
        ] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        std::fs::write(sub.join("a.ir"), b"").unwrap();
        let jobs = collect(std::slice::from_ref(&dir)).unwrap();
        let got: Vec<(String, String)> = jobs
            .iter()
            .map(|j| {
                (
                    j.path.strip_prefix(&dir).unwrap().display().to_string(),
                    j.out.display().to_string(),
                )
            })
            .collect();
        let want = [
            ("a.raw.dxir", "a"),
            ("b.dxir", "b"),
            ("c.ir", "c"),
            ("sub/a.ir", "sub/a"),
        ];
        assert_eq!(
            got,
            want.map(|(a, b)| (a.to_string(), b.to_string())).to_vec()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
