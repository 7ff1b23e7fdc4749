//! Value ranges of scalar integer and float SSA values, for `int-to-float`.
//!
//! Every scalar value of a 32-bit-or-narrower integer type gets an interval of the
//! *mathematical* value it holds, read with the signedness of its own type (`u32` as unsigned,
//! `i32` as signed); a scalar float value gets an interval that also promises "never NaN".
//! Anything else is [`R::Top`] ("unknown").
//!
//! The analysis is an abstract interpretation over each function's CFG:
//!
//! - **Transfer functions**: constants and undef (zero) are points; `IAdd`/`ISub`/`IMul`/
//!   `INeg`/`IAbs` use interval arithmetic and give `Top` as soon as the result could leave the
//!   type's range (wraparound); `SMin`/`SMax`/`UMin`/`UMax`/`SClamp`/`UClamp` clamp; `Select`
//!   and `Phi` join; `ConvertFtoI` of a float interval is exact when no saturation and no NaN
//!   can happen; float constants, `ConvertItoF`, `FRound`, `FAdd`/`FSub`/`FMul` (with a small
//!   rounding margin), `FNeg`/`FAbs`, `FMin`/`FMax` of bounded values and `FClamp` with
//!   bounded limits (NaN yields the other operand, so a clamp is bounded whatever `x` is).
//!   Loads of integers (inputs, constant buffers, …) are `Top`, except lanes of the D3D9
//!   integer constant registers `i#` ([`d3d9_int_constant_lane`]), which hold loop controls in
//!   the ranges D3D9 defines for them; `Cast` between integer types of one width keeps a
//!   range that means the same in both.
//! - **Branch conditions refine**: a block whose single predecessor ends in a
//!   `BranchConditional` on an integer comparison (`SLt`, `UGe`, `IEq`, …) knows the comparison's
//!   outcome, and so does every block it dominates; an operand is read with the facts of the
//!   block where it is used (for a phi operand: the incoming block). This bounds loop counters:
//!   `i = phi(0, i + 1)` with `i + 1` computed under `i < 8` is `[0, 8]`; `i = phi(255, i − 1)`
//!   with `i − 1` under `i != 0` is `[0, 255]` (`!=` a constant trims an interval end equal to
//!   it).
//! - **Iteration**: chaotic iteration in program order until nothing changes; after a few
//!   rounds a phi whose interval still grows is widened (the growing bound jumps to the type's
//!   limit, floats to `Top`), then a few narrowing rounds recompute everything from that sound
//!   over-approximation, which recovers the bounds the conditions give.

use irc_ir::analysis::{functions, Block, Cfg, DomTree};
use irc_ir::format::{
    Arith, BranchConditional, Clamp, CompositeConstruct, CompositeExtract, Constant,
    DclInputBuiltIn, FRound, Load, Select,
};
use irc_ir::{BuiltIn, EntityRef, Module, OpCode, ScalarType, SsaDef};

/// The range of one value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum R {
    /// Not computed yet (optimistic start).
    Bottom,
    /// An integer in `[lo, hi]` (mathematical value, signedness of the value's own type).
    Int(i64, i64),
    /// A float in `[lo, hi]`, never NaN.
    Float(f64, f64),
    /// Unknown.
    Top,
}

impl R {
    fn join(self, o: R) -> R {
        match (self, o) {
            (R::Bottom, x) | (x, R::Bottom) => x,
            (R::Int(a, b), R::Int(c, d)) => R::Int(a.min(c), b.max(d)),
            (R::Float(a, b), R::Float(c, d)) => R::Float(a.min(c), b.max(d)),
            _ => R::Top,
        }
    }
    /// The integer interval, if known.
    pub fn int(self) -> Option<(i64, i64)> {
        match self {
            R::Int(a, b) => Some((a, b)),
            _ => None,
        }
    }
    fn float(self) -> Option<(f64, f64)> {
        match self {
            R::Float(a, b) => Some((a, b)),
            _ => None,
        }
    }
}

/// The limits of a scalar integer type of at most 32 bits.
pub fn int_limits(t: ScalarType) -> Option<(i64, i64)> {
    let w = t.byte_size() * 8;
    if !t.is_int() || w == 0 || w > 32 {
        return None;
    }
    Some(if t.is_signed_int() {
        (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
    } else {
        (0, (1i64 << w) - 1)
    })
}

/// `r` (read as `from`) read as `to`: unchanged if it means the same in both, else `None`.
pub fn reinterpret(r: (i64, i64), from: ScalarType, to: ScalarType) -> Option<(i64, i64)> {
    let (flo, fhi) = int_limits(from)?;
    let (tlo, thi) = int_limits(to)?;
    let _ = (flo, fhi);
    (r.0 >= tlo && r.1 <= thi).then_some(r)
}

/// The lane (0–3) of a D3D9 integer constant register `i#` that scalar `d` loads: `d` is a
/// `CompositeExtract` of a constant lane of an `InputLoad` of the `LegacyConstInt` built-in, or
/// a scalar `InputLoad` of it at a constant (register, lane) address.
pub fn d3d9_int_constant_lane(m: &Module, d: SsaDef) -> Option<u32> {
    let op = m.op(d);
    let is_int_constants = |load: SsaDef| {
        let lop = m.op(load);
        lop.opcode == OpCode::InputLoad
            && Load::of(lop).base().is_some_and(|decl| {
                let dop = m.op(decl);
                dop.opcode == OpCode::DclInputBuiltIn
                    && DclInputBuiltIn::of(dop).builtin() == Some(BuiltIn::LegacyConstInt.to_u64())
            })
    };
    let lane = match op.opcode {
        OpCode::CompositeExtract => {
            let ce = CompositeExtract::of(op);
            if !is_int_constants(ce.composite()?) {
                return None;
            }
            Constant::try_of(m.op(ce.address()?))?.scalar(0)?
        }
        OpCode::InputLoad if op.ty.as_scalar().is_some() && is_int_constants(d) => {
            let a = m.op(Load::of(op).address()?);
            match a.opcode {
                OpCode::Constant => Constant::of(a).scalar(1)?,
                OpCode::CompositeConstruct => {
                    let lane = CompositeConstruct::of(a).members().get(1)?.as_ref()?;
                    Constant::try_of(m.op(lane))?.scalar(0)?
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    (lane < 4).then_some(lane as u32)
}

/// The values D3D9 defines for lane `lane` of an integer constant register, which only the
/// `loop`/`rep` instructions read (Direct3D 9 docs, `loop - vs`/`rep - vs`): `.x` the
/// iteration count 0–255, `.y` the loop counter's start 0–255, `.z` its step −128–127; `.w`
/// is unused (no range).
pub fn d3d9_int_constant_range(lane: u32) -> Option<(i64, i64)> {
    match lane {
        0 | 1 => Some((0, 255)),
        2 => Some((-128, 127)),
        _ => None,
    }
}

/// The scalar int type of a def, if it is one the analysis tracks.
pub fn int_scalar(m: &Module, d: SsaDef) -> Option<ScalarType> {
    m.ty(d).as_scalar().filter(|&t| int_limits(t).is_some())
}

fn float_scalar(m: &Module, d: SsaDef) -> bool {
    m.ty(d).as_scalar() == Some(ScalarType::F32)
}

/// One refinement fact: `cond` evaluated to `value` on the way into a block.
type Fact = (SsaDef, bool);

/// Ranges of every value of the module, indexed by def index.
pub fn analyze(m: &Module) -> Vec<R> {
    let mut ranges = vec![R::Bottom; m.id_bound()];
    for f in functions(m) {
        let cfg = Cfg::build(m, f);
        let dom = DomTree::compute(&cfg);
        let facts = block_facts(m, &cfg, &dom);
        let body: Vec<SsaDef> = f.body(m).collect();
        let mut an = Analysis {
            m,
            cfg: &cfg,
            facts: &facts,
            ranges: &mut ranges,
        };
        an.solve(&body);
    }
    ranges
}

/// For each block, the facts of the conditional edges that dominate it.
fn block_facts(m: &Module, cfg: &Cfg, dom: &DomTree) -> Vec<Vec<Fact>> {
    let mut facts: Vec<Vec<Fact>> = vec![Vec::new(); cfg.len()];
    for &b in dom.reverse_post_order() {
        let mut own = dom
            .idom(b)
            .map(|p| facts[p.index()].clone())
            .unwrap_or_default();
        if let [p] = cfg.preds(b) {
            if let Some(t) = cfg.block(*p).terminator {
                let op = m.op(t);
                if op.opcode == OpCode::BranchConditional {
                    let br = BranchConditional::of(op);
                    let (c, tt, ff) = (br.cond(), br.if_true(), br.if_false());
                    let label = cfg.label(b);
                    if let (Some(c), Some(tt), Some(ff)) = (c, tt, ff) {
                        if tt != ff && (label == tt || label == ff) {
                            own.push((c, label == tt));
                        }
                    }
                }
            }
        }
        facts[b.index()] = own;
    }
    facts
}

struct Analysis<'a> {
    m: &'a Module,
    cfg: &'a Cfg,
    facts: &'a [Vec<Fact>],
    ranges: &'a mut Vec<R>,
}

const WIDEN_AFTER: usize = 4;
const NARROW_ROUNDS: usize = 3;
const MAX_ROUNDS: usize = 64;

impl Analysis<'_> {
    fn solve(&mut self, body: &[SsaDef]) {
        let mut converged = false;
        for round in 0..MAX_ROUNDS {
            let mut changed = false;
            for &d in body {
                let new = self.eval(d);
                let old = self.ranges[d.index()];
                let new = if round >= WIDEN_AFTER && self.m.opcode(d) == OpCode::Phi {
                    widen(self.m, d, old, new)
                } else {
                    new
                };
                if new != old {
                    self.ranges[d.index()] = new;
                    changed = true;
                }
            }
            if !changed {
                converged = true;
                break;
            }
        }
        if !converged {
            for &d in body {
                self.ranges[d.index()] = R::Top;
            }
            return;
        }
        for _ in 0..NARROW_ROUNDS {
            for &d in body {
                let mut new = self.eval(d);
                if self.m.opcode(d) == OpCode::Phi {
                    if let Some((lo, hi)) = self.induction_bound(d) {
                        new = match new {
                            R::Int(a, b) if a.max(lo) <= b.min(hi) => R::Int(a.max(lo), b.min(hi)),
                            R::Int(..) => new,
                            _ => R::Int(lo, hi),
                        };
                    }
                }
                self.ranges[d.index()] = new;
            }
        }
    }

    /// The step of loop-header phi `d` along its back edge, when the back edge carries
    /// `next = d + s` or `d − s`: `(back-edge label, next, s, negated)`.
    fn step(&self, d: SsaDef) -> Option<(SsaDef, SsaDef, SsaDef, bool)> {
        let m = self.m;
        let op = m.op(d);
        let mut found = None;
        for pair in op.operands.chunks(2) {
            let (Some(label), Some(v)) = (pair[0].as_ref(), pair.get(1).and_then(|o| o.as_ref()))
            else {
                return None;
            };
            let vop = m.op(v);
            let ar = Arith::of(vop);
            let step = match (vop.opcode, ar.a(), ar.b()) {
                (OpCode::IAdd, Some(a), Some(b)) if a == d => Some((b, false)),
                (OpCode::IAdd, Some(a), Some(b)) if b == d => Some((a, false)),
                (OpCode::ISub, Some(a), Some(b)) if a == d => Some((b, true)),
                _ => None,
            };
            if let Some((s, neg)) = step {
                if found.is_some() {
                    return None;
                }
                found = Some((label, v, s, neg));
            }
        }
        found
    }

    /// A bound on loop-header phi `d = phi(init, d ± s)` from the loop's trip count: when
    /// another phi `q` of the same header steps by a non-zero constant `k` along the same
    /// back edge without wrapping and stays in `[lo, hi]`, the back edge is taken at most
    /// `T = (hi − lo) / |k|` times per entry, so `d` stays within `init` moved `T` steps of
    /// `s` — the D3D9 `loop aL, i#` counter, bounded by the iteration count in `i#.x`. Only
    /// used while narrowing, when every range it reads is sound.
    fn induction_bound(&self, d: SsaDef) -> Option<(i64, i64)> {
        let m = self.m;
        let header = self.cfg.block_of(d)?;
        let (back, next, s, neg) = self.step(d)?;
        let (slo, shi) = self.at(s, self.cfg.block_of(next)).int()?;
        let (slo, shi) = if neg { (-shi, -slo) } else { (slo, shi) };
        let mut init = R::Bottom;
        for pair in m.op(d).operands.chunks(2) {
            let label = pair[0].as_ref()?;
            if label != back {
                let v = pair.get(1).and_then(|o| o.as_ref())?;
                init = init.join(self.at(v, self.cfg.block_of_label(label)));
            }
        }
        let (ilo, ihi) = init.int()?;
        let mut trips: Option<i64> = None;
        for &q in self.cfg.ops(header) {
            if q == d || m.opcode(q) != OpCode::Phi {
                continue;
            }
            let Some((qback, qnext, k, _)) = self.step(q) else {
                continue;
            };
            let k = match (m.opcode(k), constant_range(m, k)) {
                (OpCode::Constant, R::Int(k, k2)) if k == k2 && k != 0 => k.abs(),
                _ => continue,
            };
            // No wraparound on q's step: its next value has a range.
            let (Some((lo, hi)), R::Int(..)) =
                (self.ranges[q.index()].int(), self.ranges[qnext.index()])
            else {
                continue;
            };
            if qback != back {
                continue;
            }
            let t = (hi - lo) / k;
            trips = Some(trips.map_or(t, |x| x.min(t)));
        }
        let t = trips?;
        let lo = ilo.checked_add(t.checked_mul(slo.min(0))?)?;
        let hi = ihi.checked_add(t.checked_mul(shi.max(0))?)?;
        let (tlo, thi) = int_scalar(m, d).and_then(int_limits)?;
        (tlo <= lo && hi <= thi).then_some((lo, hi))
    }

    /// The range of operand `v` as seen in block `b`.
    fn at(&self, v: SsaDef, b: Option<Block>) -> R {
        let m = self.m;
        let base = match m.opcode(v) {
            OpCode::Constant | OpCode::Undef => constant_range(m, v),
            _ => self.ranges.get(v.index()).copied().unwrap_or(R::Top),
        };
        let (Some(b), R::Int(mut lo, mut hi)) = (b, base) else {
            return base;
        };
        let Some(vt) = int_scalar(m, v) else {
            return base;
        };
        for &(c, taken) in &self.facts[b.index()] {
            let op = m.op(c);
            let Some(rel) = relation(op.opcode) else {
                continue;
            };
            let (Some(x), Some(y)) = (Arith::of(op).a(), Arith::of(op).b()) else {
                continue;
            };
            let cmp_ty = compare_type(op.opcode, vt);
            let rel = if taken { rel } else { rel.negate() };
            for (this, other, rel) in [(x, y, rel), (y, x, rel.swap())] {
                if this != v {
                    continue;
                }
                let Some(ot) = int_scalar(m, other) else {
                    continue;
                };
                let orange = match m.opcode(other) {
                    OpCode::Constant | OpCode::Undef => constant_range(m, other),
                    _ => self.ranges.get(other.index()).copied().unwrap_or(R::Top),
                };
                let Some(o) = orange.int().and_then(|r| reinterpret(r, ot, cmp_ty)) else {
                    continue;
                };
                // Only refine where `v` means the same in the comparison's signedness.
                if reinterpret((lo, hi), vt, cmp_ty).is_none() {
                    continue;
                }
                match rel {
                    Rel::Lt => hi = hi.min(o.1 - 1),
                    Rel::Le => hi = hi.min(o.1),
                    Rel::Gt => lo = lo.max(o.0 + 1),
                    Rel::Ge => lo = lo.max(o.0),
                    Rel::Eq => {
                        lo = lo.max(o.0);
                        hi = hi.min(o.1);
                    }
                    // `v != k` only trims an end of the interval that is exactly `k`
                    // (a counter counting down to 0 under `i != 0`).
                    Rel::Ne if o.0 == o.1 => {
                        if lo == o.0 {
                            lo += 1;
                        }
                        if hi == o.0 {
                            hi -= 1;
                        }
                    }
                    Rel::Ne => {}
                }
            }
        }
        if lo > hi {
            // Unreachable under the facts; keep the unrefined range (sound, simple).
            return base;
        }
        R::Int(lo, hi)
    }

    fn eval(&self, d: SsaDef) -> R {
        let m = self.m;
        let op = m.op(d);
        let b = self.cfg.block_of(d);
        let arg = |a: Option<SsaDef>| a.map_or(R::Top, |v| self.at(v, b));
        if let Some(t) = int_scalar(m, d) {
            let (tlo, thi) = int_limits(t).unwrap_or((0, 0));
            let fit = |lo: i64, hi: i64| {
                if lo >= tlo && hi <= thi {
                    R::Int(lo, hi)
                } else {
                    R::Top
                }
            };
            // Integer operand `a` read as `t` (signedness of this op).
            let iarg = |a: Option<SsaDef>, as_t: ScalarType| -> Option<(i64, i64)> {
                let v = a?;
                reinterpret(self.at(v, b).int()?, int_scalar(m, v)?, as_t)
            };
            let ar = Arith::try_of(op);
            let (a0, a1) = (ar.and_then(|x| x.a()), ar.and_then(|x| x.b()));
            let r = match op.opcode {
                OpCode::IAdd | OpCode::ISub | OpCode::IMul => {
                    let (Some(x), Some(y)) = (iarg(a0, t), iarg(a1, t)) else {
                        return R::Top;
                    };
                    let (lo, hi) = match op.opcode {
                        OpCode::IAdd => (x.0 + y.0, x.1 + y.1),
                        OpCode::ISub => (x.0 - y.1, x.1 - y.0),
                        _ => {
                            // Saturating: u32 bounds multiply past i64 (then `fit` says Top).
                            let p = [
                                x.0.saturating_mul(y.0),
                                x.0.saturating_mul(y.1),
                                x.1.saturating_mul(y.0),
                                x.1.saturating_mul(y.1),
                            ];
                            (*p.iter().min().unwrap(), *p.iter().max().unwrap())
                        }
                    };
                    fit(lo, hi)
                }
                OpCode::INeg => iarg(a0, t).map_or(R::Top, |x| fit(-x.1, -x.0)),
                OpCode::IAbs => iarg(a0, t).map_or(R::Top, |x| {
                    let hi = x.0.abs().max(x.1.abs());
                    let lo = if x.0 <= 0 && x.1 >= 0 {
                        0
                    } else {
                        x.0.abs().min(x.1.abs())
                    };
                    fit(lo, hi)
                }),
                OpCode::SMin | OpCode::SMax | OpCode::UMin | OpCode::UMax => {
                    let (Some(x), Some(y)) = (iarg(a0, t), iarg(a1, t)) else {
                        return R::Top;
                    };
                    if matches!(op.opcode, OpCode::SMin | OpCode::UMin) {
                        fit(x.0.min(y.0), x.1.min(y.1))
                    } else {
                        fit(x.0.max(y.0), x.1.max(y.1))
                    }
                }
                OpCode::SClamp | OpCode::UClamp => {
                    let cl = Clamp::of(op);
                    let (Some(x), Some(l), Some(h)) =
                        (iarg(cl.a(), t), iarg(cl.lo(), t), iarg(cl.hi(), t))
                    else {
                        return R::Top;
                    };
                    // min(max(x, l), h)
                    let (lo, hi) = (x.0.max(l.0), x.1.max(l.1));
                    fit(lo.min(h.0), hi.min(h.1))
                }
                OpCode::Select => {
                    arg(Select::of(op).if_true()).join(arg(Select::of(op).if_false()))
                }
                OpCode::Phi => self.phi(d),
                OpCode::Cast => a0
                    .and_then(|v| Some((v, int_scalar(m, v)?)))
                    .filter(|&(_, vt)| vt.byte_size() == t.byte_size())
                    .and_then(|(v, vt)| reinterpret(self.at(v, b).int()?, vt, t))
                    .map_or(R::Top, |(lo, hi)| fit(lo, hi)),
                OpCode::CompositeExtract | OpCode::InputLoad => {
                    match d3d9_int_constant_lane(m, d).and_then(d3d9_int_constant_range) {
                        Some((lo, hi)) => fit(lo, hi),
                        None => R::Top,
                    }
                }
                OpCode::ConvertFtoI => match arg(a0).float() {
                    Some((lo, hi)) if t.is_signed_int() => {
                        if lo > tlo as f64 && hi < thi as f64 {
                            R::Int(lo.trunc() as i64, hi.trunc() as i64)
                        } else {
                            R::Top
                        }
                    }
                    Some((lo, hi)) => {
                        if lo > -1.0 && hi < thi as f64 {
                            R::Int(lo.trunc().max(0.0) as i64, hi.trunc() as i64)
                        } else {
                            R::Top
                        }
                    }
                    None => R::Top,
                },
                _ => R::Top,
            };
            return r;
        }
        if float_scalar(m, d) {
            let fl = |a: Option<SsaDef>| arg(a).float();
            let ar = Arith::try_of(op);
            let (a0, a1) = (ar.and_then(|x| x.a()), ar.and_then(|x| x.b()));
            let r = match op.opcode {
                OpCode::ConvertItoF => a0
                    .and_then(|v| self.at(v, b).int())
                    .map_or(R::Top, |(lo, hi)| {
                        R::Float(lo as f32 as f64, hi as f32 as f64)
                    }),
                OpCode::FRound => fl(FRound::of(op).a())
                    .map_or(R::Top, |(lo, hi)| R::Float(lo.floor(), hi.ceil())),
                OpCode::FNeg => fl(a0).map_or(R::Top, |(lo, hi)| R::Float(-hi, -lo)),
                OpCode::FAbs => fl(a0).map_or(R::Top, |(lo, hi)| {
                    let a = lo.abs().max(hi.abs());
                    R::Float(
                        if lo <= 0.0 && hi >= 0.0 {
                            0.0
                        } else {
                            lo.abs().min(hi.abs())
                        },
                        a,
                    )
                }),
                OpCode::FAdd | OpCode::FSub | OpCode::FMul => match (fl(a0), fl(a1)) {
                    (Some(x), Some(y)) => {
                        let (lo, hi) = match op.opcode {
                            OpCode::FAdd => (x.0 + y.0, x.1 + y.1),
                            OpCode::FSub => (x.0 - y.1, x.1 - y.0),
                            _ => {
                                let p = [x.0 * y.0, x.0 * y.1, x.1 * y.0, x.1 * y.1];
                                (
                                    p.iter().copied().fold(f64::MAX, f64::min),
                                    p.iter().copied().fold(f64::MIN, f64::max),
                                )
                            }
                        };
                        fmargin(lo, hi)
                    }
                    _ => R::Top,
                },
                OpCode::FMin | OpCode::FMax => match (fl(a0), fl(a1)) {
                    (Some(x), Some(y)) if op.opcode == OpCode::FMin => {
                        R::Float(x.0.min(y.0), x.1.min(y.1))
                    }
                    (Some(x), Some(y)) => R::Float(x.0.max(y.0), x.1.max(y.1)),
                    _ => R::Top,
                },
                OpCode::FClamp => match (fl(Clamp::of(op).lo()), fl(Clamp::of(op).hi())) {
                    (Some(l), Some(h)) => R::Float(l.0.min(h.0), h.1),
                    _ => R::Top,
                },
                OpCode::Select => {
                    arg(Select::of(op).if_true()).join(arg(Select::of(op).if_false()))
                }
                OpCode::Phi => self.phi(d),
                _ => R::Top,
            };
            return r;
        }
        R::Top
    }

    fn phi(&self, d: SsaDef) -> R {
        let op = self.m.op(d);
        let mut r = R::Bottom;
        for pair in op.operands.chunks(2) {
            let (Some(label), Some(v)) = (pair[0].as_ref(), pair.get(1).and_then(|o| o.as_ref()))
            else {
                return R::Top;
            };
            let b = self.cfg.block_of_label(label);
            r = r.join(self.at(v, b));
        }
        r
    }
}

fn fmargin(lo: f64, hi: f64) -> R {
    let e = lo.abs().max(hi.abs()) * (1.0 / (1u64 << 20) as f64) + f64::MIN_POSITIVE;
    if lo.is_finite() && hi.is_finite() && lo.abs().max(hi.abs()) < 1e30 {
        R::Float(lo - e, hi + e)
    } else {
        R::Top
    }
}

fn widen(m: &Module, d: SsaDef, old: R, new: R) -> R {
    match (old, new) {
        (R::Int(a, b), R::Int(c, e)) => {
            let (tlo, thi) = int_scalar(m, d).and_then(int_limits).unwrap_or((0, 0));
            R::Int(if c < a { tlo } else { c }, if e > b { thi } else { e })
        }
        (R::Bottom, x) => x,
        (o, n) if o == n => n,
        _ => R::Top,
    }
}

/// The range of a `Constant` or `Undef` scalar.
pub fn constant_range(m: &Module, d: SsaDef) -> R {
    let op = m.op(d);
    let Some(t) = op.ty.as_scalar() else {
        return R::Top;
    };
    let lit = if op.opcode == OpCode::Undef {
        0
    } else {
        match Constant::try_of(op).and_then(|c| c.scalar(0)) {
            Some(l) => l,
            None => return R::Top,
        }
    };
    if let Some((_, _)) = int_limits(t) {
        let w = t.byte_size() * 8;
        let v = if t.is_signed_int() {
            ((lit << (64 - w)) as i64) >> (64 - w)
        } else {
            (lit & ((1u64 << w) - 1)) as i64
        };
        return R::Int(v, v);
    }
    if t == ScalarType::F32 {
        let f = f32::from_bits(lit as u32) as f64;
        if f.is_finite() {
            return R::Float(f, f);
        }
    }
    R::Top
}

/// A comparison as a relation between operand 0 and operand 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Rel {
    fn negate(self) -> Rel {
        match self {
            Rel::Lt => Rel::Ge,
            Rel::Le => Rel::Gt,
            Rel::Gt => Rel::Le,
            Rel::Ge => Rel::Lt,
            Rel::Eq => Rel::Ne,
            Rel::Ne => Rel::Eq,
        }
    }
    fn swap(self) -> Rel {
        match self {
            Rel::Lt => Rel::Gt,
            Rel::Le => Rel::Ge,
            Rel::Gt => Rel::Lt,
            Rel::Ge => Rel::Le,
            r => r,
        }
    }
}

/// The relation of an integer comparison opcode.
pub fn relation(op: OpCode) -> Option<Rel> {
    Some(match op {
        OpCode::SLt | OpCode::ULt => Rel::Lt,
        OpCode::SLe | OpCode::ULe => Rel::Le,
        OpCode::SGt | OpCode::UGt => Rel::Gt,
        OpCode::SGe | OpCode::UGe => Rel::Ge,
        OpCode::IEq => Rel::Eq,
        OpCode::INe => Rel::Ne,
        _ => return None,
    })
}

/// The type whose signedness a comparison reads its operands with (`IEq`/`INe`: bit equality,
/// read with the operand's own type `own`).
pub fn compare_type(op: OpCode, own: ScalarType) -> ScalarType {
    match op {
        OpCode::SLt | OpCode::SLe | OpCode::SGt | OpCode::SGe => ScalarType::I32,
        OpCode::ULt | OpCode::ULe | OpCode::UGt | OpCode::UGe => ScalarType::U32,
        _ => own,
    }
}
