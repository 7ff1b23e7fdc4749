//! `irc corpus DIR --check interp`: every vertex, pixel and geometry shader of the corpus runs as
//! raw IR (`<id>.raw.dxir`, dxbc-spirv's front-end output) and as legalized IR (`<id>.dxir`,
//! dxbc-spirv's own passes) in our interpreter on eight seeded input sets, and the outputs are
//! compared bit for bit (NaN == NaN). This checks our interpreter and dxbc-spirv's passes
//! against each other.
//!
//! A difference is never counted as agreement silently. It is a *known* difference only if the
//! shader is in [`KNOWN`] (keyed by id, with the reason and the ops, found by review) **and**
//! the difference has that reason's signature (see [`Reason`]); it is then reported as `ok`
//! with the reason shown in the table. Anything else is a failure.

use crate::corpus::Outcome;
use crate::equivalence::{run_config, SEEDS};
use irc_interp::compare::{outputs_close, outputs_equal, scalar_match, Difference};
use irc_interp::{run, Outputs, RunConfig, Scalar, ShaderInputs, Trap, TrapKind, Value};
use irc_ir::Module;
use std::path::Path;

/// Why dxbc-spirv's legalized IR may legitimately compute something else than the raw IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reason {
    /// `ArithmeticPass::resolveIdentityArithmeticOp` folds a non-precise `a * 0 → 0` and
    /// `a * 0 + c → c` (after `selectFMul` turned `FMul(a, Select(c, 1, 0))` — DXBC
    /// `and r, cond, 1.0` + `mul` — into `Select(c, a·1, a·0)`), which differs from IEEE when
    /// `a` is inf/NaN. Signature: outputs agree when both runs use
    /// `RunConfig::fold_zero_products`.
    ZeroProductFold,
    /// A non-precise algebraic rewrite that is not bit-exact (e.g. `rcp(rsq(a)) → sqrt(a)`,
    /// `rcp(sqrt(a)) → rsq(a)` in `resolveIdentityArithmeticOp`). Signature: outputs agree
    /// within `INEXACT_ULPS` units in the last place.
    InexactRewrite,
    /// `x + FFract(-x)` (DXBC/D3D9 `frc` + `add`, HLSL `ceil`) becomes `FRound(x, PositiveInf)`:
    /// exact for finite `x`, but for `x = ±inf` the raw form gives NaN (`inf − floor(inf)`).
    /// Signature: every differing output scalar is NaN in the raw run.
    CeilFromFract,
    /// A derivative (explicit, or implicit in `ImageSample`) evaluated in divergent control
    /// flow — after some quad lanes returned or skipped the branch — is undefined in D3D;
    /// dxbc-spirv's `DerivativePass` computes it in uniform flow before the branch and passes
    /// explicit gradients, which defines it. No oracle: listed by review only.
    UndefinedDerivative,
    /// Under `SetFpMode … Flush`, `ArithmeticPass::resolveIdentityArithmeticOp` folds
    /// `a · 1 → a` (and `a + 0 → a`): the raw multiply flushes a denormal `a` to zero, the
    /// folded form passes it on unchanged. Signature: outputs agree when both runs preserve
    /// denormals (`RunConfig::flush_denormals = Some(false)`).
    FlushedIdentity,
}

const INEXACT_ULPS: u64 = 16;

/// Reviewed legitimate differences: (shader id, reason, the ops involved).
#[rustfmt::skip]
const KNOWN: &[(&str, Reason, &str)] = &[
    // `and r, cond, 1.0` + `mul`/`mad` by r → Select(cond, a, 0): inf·0 = NaN in raw IR.
    ("bgfx-ps_5_0-02a0d99d3d", Reason::ZeroProductFold, "FMul(FExp2(..)·cb, IAnd(FGe mask, 1.0)) → Select"),
    ("bgfx-ps_5_0-260a853768", Reason::ZeroProductFold, "FMul(.., IAnd(FGe mask, 1.0)) → Select"),
    ("bgfx-ps_5_0-a3b0b02b7e", Reason::ZeroProductFold, "FMul/FMad by IAnd(FGe/FEq mask, 1.0) in the light loop → Select"),
    ("bgfx-ps_5_0-a5747cc25e", Reason::ZeroProductFold, "FMul/FMad by IAnd(FGe/FEq mask, 1.0) in the light loop → Select"),
    // `log` of 0 / inf feeds `frc r.z, -r.y; add r.y, r.z, r.y`.
    ("bgfx-ps_3_0-2ed879b202", Reason::CeilFromFract, "FAdd(x, FFract(FNeg x)) → FRound PositiveInf, x = FLog2(..) = ±inf"),
    ("bgfx-ps_3_0-3ff00cd89d", Reason::CeilFromFract, "FAdd(x, FFract(FNeg x)) → FRound PositiveInf, x = FLog2(..) = ±inf"),
    // D3D9 `rsq` + `rcp` (e.g. `nrm`/`len` idioms): two roundings vs one.
    ("bgfx-ps_3_0-8ac81a0424", Reason::InexactRewrite, "FRcp(FRsq(x)) → FSqrt(x)"),
    ("bgfx-ps_3_0-ff2555b567", Reason::InexactRewrite, "FRcp(FRsq(x)) → FSqrt(x)"),
    ("bgfx-vs_3_0-a3a597b490", Reason::InexactRewrite, "FRcp(FRsq(x)) → FSqrt(x)"),
    ("bgfx-vs_3_0-d52bb6d091", Reason::InexactRewrite, "FRcp(FRsq(x)) → FSqrt(x)"),
    // `sample_b` in divergent flow: DerivativePass passes gradients scaled by FExp2(bias).
    ("wine-ps_4_1-668d656da4", Reason::InexactRewrite, "ImageSample bias b → explicit gradients · FExp2(b)"),
    // `if_nz … ret endif` then `deriv_rtx_fine`/`deriv_rty_fine`: derivatives hoisted above the branch.
    ("vkd3d-proton-ps_5_0-b38463776f", Reason::UndefinedDerivative, "DerivX/DerivY Fine after a divergent Return"),
    // implicit-LOD `sample` inside `if_nz` on a per-pixel texel value.
    ("bgfx-ps_5_0-e98349d7ca", Reason::UndefinedDerivative, "ImageSample (implicit LOD) in divergent ScopedIf → explicit gradients"),
];

/// Reviewed differences that only the pipeline checks' inputs reveal (`legalize`/`opt`
/// compare dxbc-spirv's `.dxir` with our result on inputs made from the raw module, whose
/// untyped dwords are small integers — f32 denormals — a quarter of the time).
#[rustfmt::skip]
const KNOWN_PIPELINE: &[(&str, Reason, &str)] = &[
    // `mul o1, cb0[12], l(0.8, 0.8, 0.8, 1.0)`: the `.w · 1` is folded away; a denormal cb
    // dword reaches the output instead of +0.
    ("bgfx-vs_5_0-992599a445", Reason::FlushedIdentity, "FMul(cb0[12].w, 1.0) → cb0[12].w under f32 Flush"),
];

/// The outcome of one shader.
#[derive(Debug)]
enum RunOutcome {
    Agree,
    /// Outputs differ on the listed seeds.
    Differ(Vec<(u64, Difference)>),
    Trapped(String, &'static str),
}

struct Shader {
    raw: Module,
    leg: Module,
}

impl Shader {
    fn inputs(&self, seed: u64) -> ShaderInputs {
        let inputs = ShaderInputs::random(&self.leg, seed);
        let inputs_raw = ShaderInputs::random(&self.raw, seed);
        // Both modules declare the same I/O; use the legalized module's inputs for both, but
        // add what only the raw module declares (e.g. inputs that legalization removed).
        if inputs.invocations.len() == inputs_raw.invocations.len() {
            merge(inputs, inputs_raw)
        } else {
            inputs
        }
    }

    fn run_both(&self, seed: u64, cfg: &RunConfig) -> Result<(Outputs, Outputs), (Trap, bool)> {
        let inputs = self.inputs(seed);
        let a = run(&self.raw, &inputs, cfg).map_err(|t| (t, true))?;
        let b = run(&self.leg, &inputs, cfg).map_err(|t| (t, false))?;
        Ok((a, b))
    }

    fn outcome(&self, cfg: &RunConfig) -> RunOutcome {
        let mut diffs = Vec::new();
        for seed in 0..SEEDS {
            match self.run_both(seed, cfg) {
                Ok((a, b)) => {
                    if let Err(d) = outputs_equal(&a, &b) {
                        diffs.push((seed, d));
                    }
                }
                Err((t, is_raw)) => {
                    let m = if is_raw { &self.raw } else { &self.leg };
                    let kind = match t.kind {
                        TrapKind::Unsupported(_) | TrapKind::UnsupportedStage => {
                            "trapped-unsupported"
                        }
                        TrapKind::FuelExhausted => "trapped-fuel",
                        _ => "trapped-other",
                    };
                    let op = m.get(t.op).map_or("?".into(), |o| o.opcode.to_string());
                    let which = if is_raw { "raw" } else { "legalized" };
                    let what = format!("{which}: {} ({op})", t.kind);
                    return RunOutcome::Trapped(what.chars().take(90).collect(), kind);
                }
            }
        }
        if diffs.is_empty() {
            RunOutcome::Agree
        } else {
            RunOutcome::Differ(diffs)
        }
    }

    /// Whether the differences on `seeds` have the signature of `reason`.
    fn has_signature(&self, reason: Reason, seeds: &[u64], cfg: &RunConfig) -> bool {
        seeds.iter().all(|&seed| match reason {
            Reason::ZeroProductFold => {
                let cfg = RunConfig {
                    fold_zero_products: true,
                    ..*cfg
                };
                matches!(self.run_both(seed, &cfg), Ok((a, b)) if outputs_equal(&a, &b).is_ok())
            }
            Reason::InexactRewrite => matches!(
                self.run_both(seed, cfg),
                Ok((a, b)) if outputs_close(&a, &b, INEXACT_ULPS).is_ok()
            ),
            Reason::CeilFromFract => matches!(
                self.run_both(seed, cfg),
                Ok((a, b)) if differs_only_where_nan(&a, &b)
            ),
            Reason::UndefinedDerivative => true,
            Reason::FlushedIdentity => {
                let cfg = RunConfig {
                    flush_denormals: Some(false),
                    ..*cfg
                };
                matches!(self.run_both(seed, &cfg), Ok((a, b)) if outputs_equal(&a, &b).is_ok())
            }
        })
    }
}

/// True if every output scalar where `raw` and `leg` differ is NaN in `raw`, discard flags
/// differ only in lanes with a NaN output in `raw`, and everything else agrees.
fn differs_only_where_nan(raw: &Outputs, leg: &Outputs) -> bool {
    fn scalars(v: &Value, out: &mut Vec<Scalar>) {
        match v {
            Value::Scalar(s) => out.push(*s),
            Value::Vector(c) => out.extend(c.iter().copied()),
            Value::Composite(c) => c.iter().for_each(|v| scalars(v, out)),
            _ => {}
        }
    }
    let nan = |s: &Scalar| match s {
        Scalar::F16(v) => v.is_nan(),
        Scalar::F32(v) => v.is_nan(),
        Scalar::F64(v) => v.is_nan(),
        _ => false,
    };
    let io = |o: &Outputs| -> Vec<Vec<Scalar>> {
        let maps = o.invocations.iter().map(|i| &i.io);
        let maps = maps.chain(o.gs_vertices.iter().map(|g| &g.io));
        maps.map(|m| {
            let mut v = Vec::new();
            m.values().for_each(|x| scalars(x, &mut v));
            v
        })
        .collect()
    };
    let (a, b) = (io(raw), io(leg));
    let same_rest = Outputs {
        invocations: Vec::new(),
        gs_vertices: Vec::new(),
        ..raw.clone()
    };
    let same_rest_leg = Outputs {
        invocations: Vec::new(),
        gs_vertices: Vec::new(),
        ..leg.clone()
    };
    a.len() == b.len()
        && outputs_equal(&same_rest, &same_rest_leg).is_ok()
        // The discard flag may follow (e.g. the SM3 alpha test fails on a NaN alpha).
        && raw.invocations.iter().zip(&leg.invocations).zip(&a).all(|((x, y), v)| {
            x.discarded == y.discarded || v.iter().any(nan)
        })
        && a.iter().zip(&b).all(|(x, y)| {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| scalar_match(*p, *q, 0) || nan(p))
        })
}

/// Inputs of `a` plus anything only `b` declares (the raw module may declare more).
fn merge(mut a: ShaderInputs, b: ShaderInputs) -> ShaderInputs {
    for (inv, binv) in a.invocations.iter_mut().zip(b.invocations) {
        for (k, v) in binv.io {
            inv.io.entry(k).or_insert(v);
        }
    }
    for (k, v) in b.cbvs {
        a.cbvs.entry(k).or_insert(v);
    }
    for (k, v) in b.srvs {
        a.srvs.entry(k).or_insert(v);
    }
    for (k, v) in b.uavs {
        a.uavs.entry(k).or_insert(v);
    }
    for (k, v) in b.samplers {
        a.samplers.entry(k).or_insert(v);
    }
    for (k, v) in b.uav_counters {
        a.uav_counters.entry(k).or_insert(v);
    }
    if a.push_data.len() < b.push_data.len() {
        a.push_data = b.push_data;
    }
    a
}

/// Whether `reference` and `candidate` (compared on inputs made from `inputs_of`) differ only
/// the way the reviewed entry for `id` in [`KNOWN_PIPELINE`] says (its reason's signature on
/// `seeds` seeds). Entries of [`KNOWN`] are checked by the interp check itself: `true`.
pub fn pipeline_signature_holds(
    id: &str,
    reference: &Module,
    candidate: &Module,
    inputs_of: &Module,
    seeds: u64,
) -> bool {
    let Some((_, reason, _)) = KNOWN_PIPELINE.iter().find(|(k, _, _)| *k == id) else {
        return true;
    };
    let cfg = match reason {
        Reason::FlushedIdentity => RunConfig {
            flush_denormals: Some(false),
            ..run_config()
        },
        Reason::ZeroProductFold => RunConfig {
            fold_zero_products: true,
            ..run_config()
        },
        // No oracle for the others: listed by review only.
        _ => return true,
    };
    matches!(
        crate::equivalence::compare_with(reference, candidate, inputs_of, seeds, &cfg),
        crate::equivalence::Verdict::Same
    )
}

/// The reviewed reason why dxbc-spirv's legalized IR of shader `id` differs from its raw IR,
/// if there is one.
pub fn known_difference(id: &str) -> Option<String> {
    KNOWN
        .iter()
        .chain(KNOWN_PIPELINE)
        .find(|(k, _, _)| *k == id)
        .map(|(_, r, ops)| format!("{r:?}: {ops}"))
}

/// Runs the check for one `.dxir` file (the legalized one; its `.raw.dxir` sits beside it).
pub fn check(path: &Path) -> Outcome {
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let Some(id) = name.strip_suffix(".dxir") else {
        return Outcome::Failed("not a .dxir file".into());
    };
    let read = |p: &Path| -> Result<Module, String> {
        let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        irc_ir::binary::read(&bytes).map_err(|e| format!("{}: {e}", p.display()))
    };
    let (raw, leg) = match (
        read(&path.with_file_name(format!("{id}.raw.dxir"))),
        read(path),
    ) {
        (Ok(r), Ok(l)) => (r, l),
        (Err(e), _) | (_, Err(e)) => return Outcome::Failed(e),
    };
    let stage = crate::equivalence::stage(&leg);
    use irc_ir::ShaderStage as S;
    if !stage.is_some_and(|s| s == S::Pixel || s == S::Vertex || s == S::Geometry) {
        return Outcome::Unsupported(
            "stage not run by the interp check (hull, domain, compute)".into(),
        );
    }
    let shader = Shader { raw, leg };
    let cfg = run_config();
    let known = KNOWN.iter().find(|(k, _, _)| *k == id);
    match shader.outcome(&cfg) {
        RunOutcome::Agree => match known {
            Some((_, reason, _)) => {
                Outcome::Failed(format!("stale KNOWN entry: now agrees ({reason:?})"))
            }
            None => Outcome::Ok,
        },
        RunOutcome::Trapped(what, "trapped-unsupported") => Outcome::Unsupported(what),
        RunOutcome::Trapped(what, "trapped-fuel") => {
            Outcome::Unsupported(format!("no verdict, random inputs loop: {what}"))
        }
        RunOutcome::Trapped(what, _) => Outcome::Failed(what),
        RunOutcome::Differ(diffs) => {
            let seeds: Vec<u64> = diffs.iter().map(|(s, _)| *s).collect();
            let (seed, first) = &diffs[0];
            match known {
                Some((_, reason, ops)) if shader.has_signature(*reason, &seeds, &cfg) => {
                    Outcome::Known(format!("{reason:?}: {ops}"))
                }
                Some((_, reason, _)) => Outcome::Failed(format!(
                    "seed {seed}: {first} (listed as {reason:?}, but without its signature)"
                )),
                None => {
                    let sig = [Reason::ZeroProductFold, Reason::InexactRewrite]
                        .into_iter()
                        .find(|r| shader.has_signature(*r, &seeds, &cfg))
                        .map_or(String::new(), |r| {
                            format!(" (unlisted; has the {r:?} signature)")
                        });
                    Outcome::Failed(format!("seed {seed}: {first}{sig}"))
                }
            }
        }
    }
}
