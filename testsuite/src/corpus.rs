//! The corpus runner behind `irc corpus DIR --check STAGE`.
//!
//! Walks the `.dxir` / `.raw.dxir` files under a directory (the corpus root or its `ir/`
//! folder), runs one check per file on all cores, and reports one table of failures and one
//! summary line `corpus: N ok, N unsupported, N failed`. A check returns [`Outcome`]; a panic
//! inside a check is caught and counted as a failure, so one bad file never hides the rest.
//! Later stages (`interp`, `legalize`, `opt`, targets) add variants to [`Check`]. Target names
//! are resolved through a [`irc::Registry`] ([`Check::parse_in`], [`run_with`]), so a target
//! added to a registry is checked with no edit here.

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
#[derive(Clone, Debug)]
pub enum Check {
    /// Binary read→write identical, text print→parse identical, verifier clean.
    Roundtrip,
    /// `.raw.dxir` through our frontend and the named passes: verifier clean after each, and
    /// the same outputs as the raw input in the interpreter on [`SEEDS`] input sets.
    Passes(Vec<String>),
    /// Raw vs dxbc-spirv-legalized IR of each shader in our interpreter
    /// ([`crate::interp_check`]).
    Interp,
    /// `.raw.dxir` through our `legalize[:TARGET]` or `opt[:TARGET]` pipeline (-O2): verifier
    /// clean, the same outputs as the raw input and as dxbc-spirv's `.dxir` (up to its reviewed
    /// known differences) on [`SEEDS`] input sets; op counts and time per shader reported.
    Pipeline(String),
    /// Raw shaders (`.raw.dxir`) of the stages a target compiles, compiled for it and run in
    /// its simulator against the interpreter ([`crate::harness`]) with the given compile
    /// options (each mode against its own oracle); other stages are skipped.
    Target(&'static dyn irc::Target, Box<irc::Options>),
}

impl PartialEq for Check {
    fn eq(&self, other: &Check) -> bool {
        match (self, other) {
            (Check::Roundtrip, Check::Roundtrip) | (Check::Interp, Check::Interp) => true,
            (Check::Passes(a), Check::Passes(b)) => a == b,
            (Check::Pipeline(a), Check::Pipeline(b)) => a == b,
            (Check::Target(a, x), Check::Target(b, y)) => a.name() == b.name() && x == y,
            _ => false,
        }
    }
}

impl Check {
    /// A check by name, targets from the built-in registry (see [`Check::parse_in`]).
    pub fn parse(s: &str) -> Option<Check> {
        Check::parse_in(s, irc::Registry::builtin())
    }

    /// `roundtrip`, `interp`, `frontend`, `legalize[:NAME]`, `opt[:NAME]`, `passes:a,b,c` (the
    /// frontend always runs first), or the name of a target in `registry`.
    pub fn parse_in(s: &str, registry: &irc::Registry) -> Option<Check> {
        if let Some(t) = registry.target(s) {
            return Some(Check::Target(t, Box::default()));
        }
        match s {
            "roundtrip" => Some(Check::Roundtrip),
            "interp" => Some(Check::Interp),
            "legalize" | "opt" => Some(Check::Pipeline(s.to_string())),
            "frontend" => Some(Check::Passes(Vec::new())),
            _ if s.starts_with("legalize:") || s.starts_with("opt:") => {
                let (_, t) = s.split_once(':')?;
                registry.caps(t).map(|_| Check::Pipeline(s.to_string()))
            }
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
            Check::Pipeline(_) => "pipeline",
            Check::Target(t, _) => t.name(),
        }
    }
    /// Whether the check applies to a file (pass checks start from raw IR only).
    fn applies_to(&self, path: &Path) -> bool {
        match self {
            Check::Roundtrip => true,
            Check::Passes(_) | Check::Pipeline(_) => path.to_string_lossy().ends_with(".raw.dxir"),
            Check::Interp => !path.to_string_lossy().ends_with(".raw.dxir"),
            Check::Target(t, _) => crate::harness::applies_to(*t, path),
        }
    }
    fn run(
        &self,
        path: &Path,
        metrics: &Mutex<Vec<Metrics>>,
        target_metrics: &TargetMetrics,
        registry: &irc::Registry,
    ) -> Outcome {
        match self {
            Check::Roundtrip => roundtrip(path),
            Check::Passes(names) => passes(path, names),
            Check::Interp => crate::interp_check::check(path),
            Check::Pipeline(pipeline) => run_pipeline(path, pipeline, metrics, registry),
            Check::Target(t, options) => {
                crate::harness::corpus_check(*t, path, target_metrics, options)
            }
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
    /// Figures of checks that measure (legalize), one per file that got that far.
    pub metrics: Vec<Metrics>,
    /// The target of a `--check TARGET` run.
    pub target: Option<&'static dyn irc::Target>,
    /// Figures of `--check TARGET`, one per shader of its stages.
    pub target_metrics: Vec<crate::harness::ShaderMetrics>,
}

type TargetMetrics = Mutex<Vec<crate::harness::ShaderMetrics>>;

/// What a measuring check records for one shader.
#[derive(Clone, Debug)]
pub struct Metrics {
    /// The file's name.
    pub file: String,
    /// Ops in our result.
    pub ops: usize,
    /// Ops in dxbc-spirv's `.dxir` of the same shader.
    pub reference_ops: usize,
    /// Time of the pipeline alone (no verification), in µs: the fastest of [`TIMED_RUNS`]
    /// runs from the same input, so that other processes on a shared machine inflate it less.
    pub micros: f64,
    /// Ops per opcode, ours and the reference's ([`crate::op_kinds`]).
    pub kinds: crate::op_kinds::KindCounts,
}

/// How often a measuring check runs the pipeline to time it (the fastest run counts).
pub const TIMED_RUNS: usize = 3;

impl Report {
    /// The `n` slowest pipeline runs of a measuring check (file, µs), slowest first.
    pub fn slowest_pipelines(&self, n: usize) -> Vec<(&str, f64)> {
        let mut v: Vec<(&str, f64)> = self
            .metrics
            .iter()
            .map(|m| (m.file.as_str(), m.micros))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v.truncate(n);
        v
    }

    /// The op-kind table of a measuring check ([`crate::op_kinds::table`]) with the `worst`
    /// shaders of largest surplus, or `None` without metrics.
    pub fn op_kinds(&self, worst: usize) -> Option<String> {
        if self.metrics.is_empty() {
            return None;
        }
        let shaders: Vec<crate::op_kinds::ShaderKinds<'_>> = self
            .metrics
            .iter()
            .map(|m| crate::op_kinds::ShaderKinds {
                file: &m.file,
                kinds: &m.kinds,
            })
            .collect();
        Some(crate::op_kinds::table(&shaders, worst))
    }

    /// Summary of the metrics: op totals and median ratio, time median / p90 / max.
    pub fn metrics_summary(&self) -> Option<String> {
        if self.metrics.is_empty() {
            return None;
        }
        let n = self.metrics.len();
        let ops: usize = self.metrics.iter().map(|m| m.ops).sum();
        let reference: usize = self.metrics.iter().map(|m| m.reference_ops).sum();
        let mut ratios: Vec<f64> = self
            .metrics
            .iter()
            .map(|m| m.ops as f64 / m.reference_ops.max(1) as f64)
            .collect();
        ratios.sort_by(f64::total_cmp);
        let mut t: Vec<f64> = self.metrics.iter().map(|m| m.micros).collect();
        t.sort_by(f64::total_cmp);
        let pct = |p: f64| t[((n - 1) as f64 * p) as usize];
        Some(format!(
            "{n} shaders: {ops} ops after our pipeline vs {reference} in dxbc-spirv's .dxir \
             (total ratio {:.3}, median ratio {:.3}); time per shader median {:.1} µs, p90 {:.1} µs, \
             max {:.1} µs\n",
            ops as f64 / reference.max(1) as f64,
            ratios[n / 2],
            pct(0.5),
            pct(0.9),
            t[n - 1]
        ))
    }
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
        if let Some(m) = self.metrics_summary() {
            f.write_str(&m)?;
        }
        if let Some(t) = self.target {
            f.write_str(&crate::harness::summary(
                t,
                &self.target_metrics,
                &self.rows,
            ))?;
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

/// Runs `check` over every IR file under `dir` using `threads` worker threads, with the
/// built-in targets.
pub fn run(dir: &Path, check: &Check, threads: usize) -> std::io::Result<Report> {
    run_with(dir, check, threads, irc::Registry::builtin())
}

/// [`run`] with the targets and capability profiles of `registry` (pipelines `opt:NAME` are
/// resolved there).
pub fn run_with(
    dir: &Path,
    check: &Check,
    threads: usize,
    registry: &irc::Registry,
) -> std::io::Result<Report> {
    let mut files = ir_files(dir)?;
    files.retain(|f| check.applies_to(f));
    let next = AtomicUsize::new(0);
    let report = Mutex::new(Report::default());
    let metrics = Mutex::new(Vec::new());
    let target_metrics = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let start = std::time::Instant::now();
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    check.run(path, &metrics, &target_metrics, registry)
                }))
                .unwrap_or_else(|e| {
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
    report.times.sort_by_key(|t| std::cmp::Reverse(t.1));
    report.metrics = metrics.into_inner().unwrap_or_else(|p| p.into_inner());
    report.target_metrics = target_metrics
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    if let Check::Target(t, _) = check {
        report.target = Some(*t);
    }
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

fn run_pipeline(
    path: &Path,
    pipeline: &str,
    metrics: &Mutex<Vec<Metrics>>,
    registry: &irc::Registry,
) -> Outcome {
    let target = pipeline.split_once(':').map_or("default", |(_, t)| t);
    let read = |p: &Path| -> Result<irc_ir::Module, String> {
        let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        binary::read(&bytes).map_err(|e| format!("{}: {e}", p.display()))
    };
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let id = name.trim_end_matches(".raw.dxir").to_string();
    let (raw, reference) = match (read(path), read(&path.with_file_name(format!("{id}.dxir")))) {
        (Ok(r), Ok(l)) => (r, l),
        (Err(e), _) | (_, Err(e)) => return Outcome::Failed(e),
    };
    // Timed run without verification, then one verification; on failure, rerun verifying
    // after every pass to name the pass at fault.
    let mut m = raw.clone();
    let mut micros = f64::INFINITY;
    let mut result = Ok(());
    for run in 0..TIMED_RUNS {
        if run > 0 {
            m = raw.clone();
        }
        let mut pm = PassManager::new(ManagerOptions {
            verify: false,
            ..Default::default()
        });
        let start = std::time::Instant::now();
        result = crate::pipeline::run_in(registry, &mut pm, &mut m, pipeline);
        micros = micros.min(start.elapsed().as_secs_f64() * 1e6);
        if result.is_err() {
            break;
        }
    }
    match result {
        Ok(()) => {}
        Err(e @ PassError::Unsupported { .. })
        | Err(e @ PassError::Frontend(irc_frontend::FrontendError::Unsupported { .. })) => {
            return Outcome::Unsupported(e.to_string())
        }
        Err(e) => return Outcome::Failed(e.to_string()),
    }
    if verifier::verify(&m).is_err() {
        let mut again = raw.clone();
        let mut pm = PassManager::new(ManagerOptions {
            verify: true,
            ..Default::default()
        });
        let why = match crate::pipeline::run_in(registry, &mut pm, &mut again, pipeline) {
            Err(e) => e.to_string(),
            Ok(()) => "verifier errors after the pipeline".into(),
        };
        return Outcome::Failed(why);
    }
    // `legalize` output must keep the legality contract (the verifier's legal mode), with the
    // ops the target executes natively allowed to remain.
    if pipeline.starts_with("legalize") {
        let native = registry.caps(target).map_or(&[][..], |c| c.native);
        if let Err(errors) = verifier::verify_legal(&m, native) {
            return Outcome::Failed(format!(
                "{} legality contract violation(s): {}",
                errors.len(),
                errors.to_string().replace('\n', "; ")
            ));
        }
    }
    if let Ok(mut v) = metrics.lock() {
        v.push(Metrics {
            file: name.clone(),
            ops: m.len(),
            reference_ops: reference.len(),
            micros,
            kinds: crate::op_kinds::count(&m, &reference),
        });
    }
    // Sine and cosine become polynomials on targets without them (`lower-trig`): the
    // interpreter computes them the same way on the other side (`RunConfig::polynomial_trig`).
    let config = irc_interp::RunConfig {
        polynomial_trig: registry.caps(target).is_some_and(|c| !c.trig),
        ..crate::equivalence::run_config()
    };
    let compare = |a: &irc_ir::Module, b: &irc_ir::Module, inputs: &irc_ir::Module, seeds: u64| {
        crate::equivalence::compare_with(a, b, inputs, seeds, &config)
    };
    match compare(&raw, &m, &raw, SEEDS) {
        Verdict::Same => {}
        Verdict::NotRunnable(why) => return Outcome::Unsupported(format!("interpreter: {why}")),
        Verdict::Differs(why) => {
            // Two reviewed differences, each checked by matching the raw input with only that
            // change exactly:
            // - a target without 16-bit types computes min-precision values at 32 bits, which
            //   D3D allows;
            // - the interpreter's `ConvertF32toPackedF16` reads a 16-bit float operand's bits
            //   as f32 (compiler/arith `pack_f16`), so raw code packing an `f16x2` packs
            //   garbage where legalized code (an `f32x2` operand, widened exactly) packs the
            //   values.
            let widened = widened_min16_reference(&raw, target, registry);
            let mut base = widened.clone().unwrap_or_else(|| raw.clone());
            let packs = irc_passes::legalize_ops::widen_packed_f16_operands(&mut base);
            if widened.is_none() && !packs {
                return Outcome::Failed(format!("differs from the raw input: {why}"));
            }
            return match compare(&base, &m, &base, SEEDS) {
                Verdict::Same if widened.is_some() => Outcome::Known(
                    "min-precision computed at 32 bits on this target (a precision increase \
                     D3D allows); matches the widened raw input exactly"
                        .into(),
                ),
                Verdict::Same => Outcome::Known(
                    "raw input packs a 16-bit float vector, whose bits the interpreter reads as \
                     f32; matches the raw input with the packed operands widened to f32 exactly"
                        .into(),
                ),
                _ => Outcome::Failed(format!("differs from the raw input: {why}")),
            };
        }
    }
    // dxbc-spirv's output is compared where the interp check compares it: compute workgroups
    // are cut to 64 invocations, which makes LDS-sharing shaders incomparable across forms.
    use irc_ir::ShaderStage as S;
    let stage = crate::equivalence::stage(&raw);
    if !stage.is_some_and(|s| s == S::Pixel || s == S::Vertex || s == S::Geometry) {
        return Outcome::Ok;
    }
    match compare(&reference, &m, &raw, SEEDS) {
        Verdict::Same | Verdict::NotRunnable(_) => Outcome::Ok,
        Verdict::Differs(why) => match crate::interp_check::known_difference(&id) {
            Some(reason)
                if crate::interp_check::pipeline_signature_holds(
                    &id, &reference, &m, &raw, SEEDS,
                ) =>
            {
                Outcome::Known(format!("as raw; dxbc-spirv differs: {reason}"))
            }
            Some(reason) => Outcome::Failed(format!(
                "differs from dxbc-spirv's .dxir without the signature of {reason}: {why}"
            )),
            None => Outcome::Failed(format!("differs from dxbc-spirv's .dxir: {why}")),
        },
    }
}

/// The raw module with only its min-precision types widened as `target` would (frontend, then
/// `lower-min16`), if the target lacks 16-bit types and the module uses min-precision types.
fn widened_min16_reference(
    raw: &irc_ir::Module,
    target: &str,
    registry: &irc::Registry,
) -> Option<irc_ir::Module> {
    widened_min16(raw, registry.caps(target)?)
}

/// The raw module with only its min-precision types widened as a target with `caps` would
/// (frontend, then `lower-min16`), if the target lacks 16-bit types and the module uses
/// min-precision types: what the pipeline's result must match exactly on such a target.
pub(crate) fn widened_min16(
    raw: &irc_ir::Module,
    caps: irc_passes::TargetCaps,
) -> Option<irc_ir::Module> {
    let uses_min16 = raw.iter().any(|d| {
        raw.ty(d)
            .members()
            .iter()
            .any(|b| b.scalar_type().is_min_precision())
    });
    if (caps.float16 && caps.int16) || !uses_min16 {
        return None;
    }
    let mut m = raw.clone();
    let mut pm = PassManager::new(ManagerOptions {
        verify: true,
        ..Default::default()
    });
    pm.context.caps = caps;
    irc_passes::pipelines::frontend(&mut pm, &mut m).ok()?;
    pm.run_named(&mut m, "lower-min16").ok()?;
    Some(m)
}
