//! What `--check TARGET` records per shader and the summary lines it prints: D3D9 shaders ok
//! per profile class and stage, code size, units per instruction, spills, lower bound, compile
//! time, input sets compared / skipped / native-precision deviations, top unsupported reasons.

use std::path::Path;

use irc_backend::{Stats, Target};
use irc_ir::ShaderStage;

use super::{normalize_reason, stage_name};
use crate::corpus::{Outcome, Row};

/// What `--check TARGET` records for one shader.
#[derive(Clone, Debug)]
pub struct ShaderMetrics {
    /// The profile from the file name (`ps_2_0`), empty when the name has none.
    pub profile: String,
    /// The entry point's stage.
    pub stage: Option<ShaderStage>,
    pub ok: bool,
    /// Stats of the compiled program (also when its comparison failed).
    pub stats: Option<Stats>,
    pub compile_micros: f64,
    pub seeds_compared: u32,
    /// Input sets without a reference (interpreter trap, undefined quad operations).
    pub seeds_skipped: u32,
    pub native_deviations: u32,
}

/// The profile field of a corpus file name (`<source>-<profile>-<hash>.raw.dxir`).
pub fn profile_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let id = name.split('.').next()?;
    let mut fields = id.rsplit('-');
    let _hash = fields.next()?;
    let profile = fields.next()?;
    let known = ["vs_", "ps_", "gs_", "hs_", "ds_", "cs_"];
    known
        .iter()
        .any(|p| profile.starts_with(p))
        .then(|| profile.to_string())
}

/// The stage a profile (`ps_2_0`) compiles.
fn stage_of_profile(p: &str) -> Option<ShaderStage> {
    Some(match p.get(..3)? {
        "ps_" => ShaderStage::Pixel,
        "vs_" => ShaderStage::Vertex,
        "gs_" => ShaderStage::Geometry,
        "hs_" => ShaderStage::Hull,
        "ds_" => ShaderStage::Domain,
        "cs_" => ShaderStage::Compute,
        _ => return None,
    })
}

/// The profile prefix of a stage (`ps`).
fn prefix(s: ShaderStage) -> &'static str {
    match s {
        ShaderStage::Pixel => "ps",
        ShaderStage::Vertex => "vs",
        ShaderStage::Geometry => "gs",
        ShaderStage::Hull => "hs",
        ShaderStage::Domain => "ds",
        _ => "cs",
    }
}

/// True for raw IR files of a stage `target` compiles (by the profile in the name, else by
/// reading the entry point).
pub fn applies_to(target: &dyn Target, path: &Path) -> bool {
    if !path.to_string_lossy().ends_with(".raw.dxir") {
        return false;
    }
    let stage = match profile_of(path) {
        Some(p) => stage_of_profile(&p),
        None => std::fs::read(path)
            .ok()
            .and_then(|b| irc_ir::binary::read(&b).ok())
            .and_then(|m| crate::equivalence::stage(&m)),
    };
    stage.is_some_and(|s| target.stages().contains(&s))
}

/// The D3D9 class of a profile of stage prefix `p` (`ps_1_x`, `ps_2_x`, `ps_3_0`), if any.
fn profile_class(p: &str, prefix: &str) -> Option<&'static str> {
    let rest = p.strip_prefix(prefix)?.strip_prefix('_')?;
    match rest {
        _ if rest.starts_with("1_") => Some("1_x"),
        "2_0" | "2_x" => Some("2_x"),
        "3_0" => Some("3_0"),
        _ => None,
    }
}

/// The `target` lines of the corpus summary.
pub fn summary(target: &dyn Target, metrics: &[ShaderMetrics], rows: &[Row]) -> String {
    use std::fmt::Write;
    let name = target.name();
    let mut s = String::new();
    if metrics.is_empty() {
        return s;
    }
    for &stage in target.stages() {
        let p = prefix(stage);
        let of_stage: Vec<_> = metrics
            .iter()
            .filter(|m| stage_of_profile(&m.profile).or(m.stage) == Some(stage))
            .collect();
        let mut classes = Vec::new();
        for class in ["1_x", "2_x", "3_0"] {
            let of: Vec<_> = of_stage
                .iter()
                .filter(|m| profile_class(&m.profile, p) == Some(class))
                .collect();
            let ok = of.iter().filter(|m| m.ok).count();
            classes.push((class, ok, of.len()));
        }
        let (d3d9_ok, d3d9): (usize, usize) =
            classes.iter().fold((0, 0), |(a, b), c| (a + c.1, b + c.2));
        let other: Vec<_> = of_stage
            .iter()
            .filter(|m| profile_class(&m.profile, p).is_none())
            .collect();
        let st = stage_name(stage);
        let _ = writeln!(
            s,
            "{name} D3D9 {st} shaders ok: {}, total {d3d9_ok}/{d3d9}; other {st} shaders {}/{}",
            classes
                .iter()
                .map(|(c, ok, n)| format!("{p}_{c} {ok}/{n}"))
                .collect::<Vec<_>>()
                .join(", "),
            other.iter().filter(|m| m.ok).count(),
            other.len()
        );
    }
    let compiled: Vec<(&Stats, f64)> = metrics
        .iter()
        .filter_map(|m| m.stats.as_ref().map(|st| (st, m.compile_micros)))
        .collect();
    if !compiled.is_empty() {
        let n = compiled.len();
        let mut instrs: Vec<u32> = compiled.iter().map(|c| c.0.instructions).collect();
        instrs.sort_unstable();
        let sum = |f: fn(&Stats) -> u32| compiled.iter().map(|c| u64::from(f(c.0))).sum::<u64>();
        let total = sum(|s| s.instructions);
        let lower = sum(|s| s.lower_bound);
        // Targets that issue one operation per instruction report no units or bound (0).
        let units = sum(|s| s.units_filled);
        let units = if units > 0 {
            format!(
                "; {:.2} units per instruction",
                units as f64 / total.max(1) as f64
            )
        } else {
            String::new()
        };
        let bound = if lower > 0 {
            format!(
                "; lower bound total {lower} (instructions / lower bound {:.3})",
                total as f64 / lower as f64
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "{name} code ({n} compiled): instructions per shader median {}, total {total}{units}; \
             spills {}, fills {}{bound}",
            instrs[n / 2],
            sum(|s| s.spills),
            sum(|s| s.fills),
        );
        let mut t: Vec<f64> = compiled.iter().map(|c| c.1).collect();
        t.sort_by(f64::total_cmp);
        let pct = |p: f64| t[((n - 1) as f64 * p) as usize];
        let _ = writeln!(
            s,
            "{name} compile time per shader: median {:.1} µs, p90 {:.1} µs, max {:.1} µs",
            pct(0.5),
            pct(0.9),
            t[n - 1]
        );
        let stats: Vec<&Stats> = compiled.iter().map(|c| c.0).collect();
        s.push_str(&register_and_extra_lines(name, &stats));
    }
    let dev: u32 = metrics.iter().map(|m| m.native_deviations).sum();
    let dev_shaders = metrics.iter().filter(|m| m.native_deviations > 0).count();
    let compared: u32 = metrics.iter().map(|m| m.seeds_compared).sum();
    let skipped: u32 = metrics.iter().map(|m| m.seeds_skipped).sum();
    let tol = target.tolerance();
    let _ = writeln!(
        s,
        "{name} input sets: {compared} compared, {skipped} skipped (no reference: interpreter \
         trap, or a result that rests on undefined divergent quad operations); native-precision \
         deviations (beyond abs {} + rel {}): {dev} input sets in {dev_shaders} shaders",
        tol.abs, tol.rel
    );
    let mut reasons: Vec<(String, usize)> = Vec::new();
    for r in rows {
        if let Outcome::Unsupported(why) = &r.outcome {
            let why = normalize_reason(why.lines().next().unwrap_or(""));
            match reasons.iter_mut().find(|(w, _)| *w == why) {
                Some(e) => e.1 += 1,
                None => reasons.push((why, 1)),
            }
        }
    }
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    if !reasons.is_empty() {
        let _ = writeln!(s, "{name} top unsupported reasons:");
        for (why, n) in reasons.iter().take(15) {
            let _ = writeln!(s, "  {n:>5}  {why}");
        }
    }
    s
}

/// Registers per shader (where a target reports them) and each of the targets' own statistics
/// ([`Stats::extra`], e.g. the version a program fits): a count per value where there are few
/// values, else the median and maximum.
fn register_and_extra_lines(name: &str, stats: &[&Stats]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let spread = |mut v: Vec<u64>| -> String {
        v.sort_unstable();
        let mut distinct = v.clone();
        distinct.dedup();
        if distinct.len() <= 6 {
            let counts: Vec<String> = distinct
                .iter()
                .map(|d| format!("{d} ×{}", v.iter().filter(|x| *x == d).count()))
                .collect();
            format!("shaders per value: {}", counts.join(", "))
        } else {
            format!(
                "per shader median {}, max {}",
                v[v.len() / 2],
                v[v.len() - 1]
            )
        }
    };
    if stats.iter().any(|st| st.registers > 0) {
        let mut regs: Vec<u32> = stats.iter().map(|st| st.registers).collect();
        regs.sort_unstable();
        let _ = writeln!(
            s,
            "{name} registers per shader: median {}, max {}",
            regs[regs.len() / 2],
            regs[regs.len() - 1]
        );
    }
    let mut keys: Vec<&str> = Vec::new();
    for st in stats {
        for (k, _) in &st.extra {
            if !keys.contains(k) {
                keys.push(k);
            }
        }
    }
    for k in keys {
        let v: Vec<u64> = stats
            .iter()
            .filter_map(|st| st.extra.iter().find(|(x, _)| *x == k).map(|e| e.1))
            .collect();
        let _ = writeln!(s, "{name} {k}: {}", spread(v));
    }
    s
}
