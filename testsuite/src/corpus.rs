//! The corpus runner behind `irc corpus DIR --check STAGE`.
//!
//! Walks the `.dxir` / `.raw.dxir` files under a directory (the corpus root or its `ir/`
//! folder), runs one check per file on all cores, and reports one table of failures and one
//! summary line `corpus: N ok, N unsupported, N failed`. A check returns [`Outcome`]; a panic
//! inside a check is caught and counted as a failure, so one bad file never hides the rest.
//! Later stages (`interp`, `legalize`, `opt`, targets) add variants to [`Check`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::equivalence::{compare, Verdict, SEEDS};
use irc_ir::{binary, text, verifier};
use irc_passes::{ManagerOptions, PassError, PassManager};

/// What a check says about one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    /// Counted as ok, but shown in the table: a reviewed, documented difference whose
    /// signature was checked (the reason names it).
    Known(String),
    /// The file uses something this stage does not support; the reason names it.
    Unsupported(String),
    /// A real failure: mismatch, verifier error, reader error, panic.
    Failed(String),
}

/// The checks `irc corpus` knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// Binary read→write identical, text print→parse identical, verifier clean.
    Roundtrip,
    /// `.raw.dxir` through our frontend and the named passes: verifier clean after each, and
    /// the same outputs as the raw input in the interpreter on [`SEEDS`] input sets.
    Passes(Vec<String>),
    /// Raw vs dxbc-spirv-legalized IR of each shader in our interpreter
    /// ([`crate::interp_check`]).
    Interp,
}

impl Check {
    /// `roundtrip`, or `passes:a,b,c` (the frontend always runs first).
    pub fn parse(s: &str) -> Option<Check> {
        match s {
            "roundtrip" => Some(Check::Roundtrip),
            "interp" => Some(Check::Interp),
            "frontend" => Some(Check::Passes(Vec::new())),
            _ => {
                let list = s.strip_prefix("passes:")?;
                let names: Vec<String> = list.split(',').map(|p| p.trim().to_string()).collect();
                names
                    .iter()
                    .all(|n| irc_passes::registry::find(n).is_some())
                    .then_some(Check::Passes(names))
            }
        }
    }
    pub fn name(&self) -> &'static str {
        match self {
            Check::Roundtrip => "roundtrip",
            Check::Passes(_) => "passes",
            Check::Interp => "interp",
        }
    }
    /// Whether the check applies to a file (pass checks start from raw IR only).
    fn applies_to(&self, path: &Path) -> bool {
        match self {
            Check::Roundtrip => true,
            Check::Passes(_) => path.to_string_lossy().ends_with(".raw.dxir"),
            Check::Interp => !path.to_string_lossy().ends_with(".raw.dxir"),
        }
    }
    fn run(&self, path: &Path) -> Outcome {
        match self {
            Check::Roundtrip => roundtrip(path),
            Check::Passes(names) => passes(path, names),
            Check::Interp => crate::interp_check::check(path),
        }
    }
}

/// One failed or unsupported file.
#[derive(Clone, Debug)]
pub struct Row {
    pub file: String,
    pub stage: &'static str,
    pub outcome: Outcome,
}

/// The result of a corpus run.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub ok: usize,
    pub unsupported: usize,
    pub failed: usize,
    /// Failed and unsupported files, sorted by file name.
    pub rows: Vec<Row>,
    /// Time per file, slowest first.
    pub times: Vec<(String, std::time::Duration)>,
}

impl Report {
    /// The one summary line.
    pub fn summary(&self) -> String {
        format!(
            "corpus: {} ok, {} unsupported, {} failed",
            self.ok, self.unsupported, self.failed
        )
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.rows.is_empty() {
            let w = self
                .rows
                .iter()
                .map(|r| r.file.len())
                .max()
                .unwrap_or(4)
                .max(4);
            writeln!(
                f,
                "{:<w$}  {:<10}  {:<11}  reason",
                "file", "stage", "result"
            )?;
            for r in &self.rows {
                let (kind, reason) = match &r.outcome {
                    Outcome::Ok => ("ok", ""),
                    Outcome::Known(s) => ("ok (known)", s.as_str()),
                    Outcome::Unsupported(s) => ("unsupported", s.as_str()),
                    Outcome::Failed(s) => ("failed", s.as_str()),
                };
                let reason = reason.lines().next().unwrap_or("");
                writeln!(f, "{:<w$}  {:<10}  {:<11}  {reason}", r.file, r.stage, kind)?;
            }
        }
        writeln!(f, "{}", self.summary())
    }
}

/// Finds the IR files under `dir`: the corpus root (with an `ir/` folder) or any folder.
pub fn ir_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let root = if dir.join("ir").is_dir() {
        dir.join("ir")
    } else {
        dir.to_path_buf()
    };
    let mut out = Vec::new();
    collect(&root, &mut out)?;
    out.sort();
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "dxir") {
            out.push(path);
        }
    }
    Ok(())
}

/// Where the shared corpus is: `$IRC_CORPUS`, else `../shared/corpus` beside the workspace.
pub fn default_corpus_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("IRC_CORPUS") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    p.join("ir").is_dir().then_some(p)
}

/// Runs `check` over every IR file under `dir` using `threads` worker threads.
pub fn run(dir: &Path, check: &Check, threads: usize) -> std::io::Result<Report> {
    let mut files = ir_files(dir)?;
    files.retain(|f| check.applies_to(f));
    let next = AtomicUsize::new(0);
    let report = Mutex::new(Report::default());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let start = std::time::Instant::now();
                let outcome = std::panic::catch_unwind(|| check.run(path)).unwrap_or_else(|e| {
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    Outcome::Failed(format!("panic: {msg}"))
                });
                let elapsed = start.elapsed();
                let mut r = report.lock().unwrap_or_else(|p| p.into_inner());
                let name = path
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                r.times.push((name, elapsed));
                match &outcome {
                    Outcome::Ok | Outcome::Known(_) => r.ok += 1,
                    Outcome::Unsupported(_) => r.unsupported += 1,
                    Outcome::Failed(_) => r.failed += 1,
                }
                if outcome != Outcome::Ok {
                    let file = path
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned();
                    r.rows.push(Row {
                        file,
                        stage: check.name(),
                        outcome,
                    });
                }
            });
        }
    });
    let mut report = report.into_inner().unwrap_or_else(|p| p.into_inner());
    report.rows.sort_by(|a, b| a.file.cmp(&b.file));
    report.times.sort_by(|a, b| b.1.cmp(&a.1));
    Ok(report)
}

fn roundtrip(path: &Path) -> Outcome {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Outcome::Failed(format!("cannot read: {e}")),
    };
    let module = match binary::read(&bytes) {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("read: {e}")),
    };
    match binary::write(&module) {
        Ok(out) if out == bytes => {}
        Ok(out) => {
            let at = out
                .iter()
                .zip(&bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(out.len());
            return Outcome::Failed(format!(
                "binary round trip differs at byte {at} ({} vs {} bytes)",
                out.len(),
                bytes.len()
            ));
        }
        Err(e) => return Outcome::Failed(format!("write: {e}")),
    }
    let printed = text::print(&module);
    match text::parse(&printed) {
        Ok(m) if m == module => {}
        Ok(_) => return Outcome::Failed("text round trip: parsed module differs".into()),
        Err(e) => return Outcome::Failed(format!("text round trip: {e}")),
    }
    if let Err(e) = verifier::verify(&module) {
        return Outcome::Failed(format!("verifier: {e}"));
    }
    Outcome::Ok
}

fn passes(path: &Path, names: &[String]) -> Outcome {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Outcome::Failed(format!("cannot read: {e}")),
    };
    let raw = match binary::read(&bytes) {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("read: {e}")),
    };
    let mut m = raw.clone();
    let mut pm = PassManager::new(ManagerOptions {
        verify: true,
        ..Default::default()
    });
    let result = irc_passes::pipelines::frontend(&mut pm, &mut m).and_then(|()| {
        names
            .iter()
            .try_for_each(|n| pm.run_named(&mut m, n).map(|_| ()))
    });
    match result {
        Ok(()) => {}
        Err(PassError::Unsupported { .. })
        | Err(PassError::Frontend(irc_frontend::FrontendError::Unsupported { .. })) => {
            return Outcome::Unsupported(result.err().map(|e| e.to_string()).unwrap_or_default());
        }
        Err(e) => return Outcome::Failed(e.to_string()),
    }
    match compare(&raw, &m, &raw, SEEDS) {
        Verdict::Same => Outcome::Ok,
        Verdict::NotRunnable(why) => Outcome::Unsupported(format!("interpreter: {why}")),
        Verdict::Differs(why) => Outcome::Failed(format!("behaviour changed: {why}")),
    }
}
