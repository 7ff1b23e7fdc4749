//! Float facts: per component of every float SSA value, an interval that holds every value it
//! can take, whether it can be NaN and whether it can be `−0`. Used by `trim-legacy-guards` to
//! prove the zero guards of D3D9 legacy multiplies unnecessary; any pass that needs "never
//! NaN / never infinite / never zero / never negative" facts about floats can use it.
//!
//! **Precision-independent.** The facts must hold on every target, including the fp16 ones
//! (Mali-400 PP): an interval counts as *finite* only while it stays inside ±60000 (below the
//! fp16 maximum 65504 with room for rounding), and as *never zero* only while it stays at least
//! 2⁻¹⁴ (the smallest normal fp16) away from 0, because a smaller value may flush to zero in fp16.
//! Computed bounds are widened outwards by 1% (transcendental units and fp16 rounding), so that
//! the facts survive any rounding a target does. A bound past the finite limit is made infinite,
//! so every finite bound is one that no target overflows.
//!
//! **Transfer functions.** Constants are points. `FClamp`, `FMin`, `FMax` follow the
//! interpreter's rules (a NaN operand yields the other operand, `max(−0, +0) = +0`); `FAbs`,
//! `FNeg`, `FAdd`/`FSub`/`FMul`/`FMad`/`FDot`/`FDotAdd` (and their legacy forms), `FFract`,
//! `FRound`, `FSin`/`FCos`, `FSqrt`, `FRsq`, `FRcp`, `FExp2`, `FLog2` use interval arithmetic;
//! where an interval is unbounded they still track NaN (a sum is NaN only from a NaN operand or
//! `inf − inf`, a product only from `0 · inf`, `rsq`/`log2`/`sqrt` only below zero, `rcp` and
//! `exp2` never), so that an `exp2` of anything not NaN is known to be `≥ 0` and never NaN. A
//! value times itself (by `same_value`) is a square, never negative. `Select` joins;
//! `CompositeConstruct` / `CompositeExtract` move components. Everything else — inputs,
//! uniforms, texture samples, phis — is unknown: an application can hand the shader any value,
//! including inf and NaN.
//!
//! **Finite mode** ([`analyze_with`]). Under `legacy-mul=finite` the legacy products multiply
//! factors clamped to `±B`; the facts follow that rule, and know that a vector scaled by the
//! reciprocal square root of its own squared length stays within `±B · 2⁻⁷` ([`normalizes`]).
//!
//! One forward walk in program order: SSA defs dominate their uses, so every operand outside a
//! loop is known when it is read; a value not computed yet (a phi's back edge) is unknown.

use crate::lower_legacy::max_finite;
use irc_ir::analysis::same_value::{same_value, SAME_VALUE_DEPTH};
use irc_ir::format::{Arith, Clamp, CompositeConstruct, CompositeExtract, Constant, Dot, Select};
use irc_ir::{EntityRef, Module, OpCode, ScalarType, SsaDef};
use smallvec::SmallVec;

/// Magnitude up to which an interval counts as finite on every target (fp16 max is 65504).
pub const FINITE_LIMIT: f64 = 60000.0;
/// Magnitude from which a value counts as never zero on every target (smallest normal fp16).
pub const ZERO_MARGIN: f64 = 1.0 / 16384.0;
/// Outward widening of computed bounds (relative).
const WIDEN: f64 = 0.01;

/// What is known about one float component.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fact {
    /// Lower bound (may be −inf).
    pub lo: f64,
    /// Upper bound (may be +inf).
    pub hi: f64,
    /// May be NaN.
    pub nan: bool,
    /// May be −0.
    pub neg_zero: bool,
}

impl Fact {
    /// Nothing known.
    pub const TOP: Fact = Fact {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
        nan: true,
        neg_zero: true,
    };

    /// Exactly `v`.
    pub fn point(v: f64) -> Fact {
        if v.is_nan() {
            return Fact::TOP;
        }
        Fact {
            lo: v,
            hi: v,
            nan: false,
            neg_zero: v == 0.0 && v.is_sign_negative(),
        }
    }

    /// Never NaN and inside ±[`FINITE_LIMIT`].
    pub fn finite(self) -> bool {
        !self.nan && self.lo >= -FINITE_LIMIT && self.hi <= FINITE_LIMIT
    }

    /// Never ±0 (NaN allowed: it compares unequal to zero).
    pub fn never_zero(self) -> bool {
        self.lo >= ZERO_MARGIN || self.hi <= -ZERO_MARGIN
    }

    /// Finite and never has its sign bit set (`+0` allowed, `−0` not).
    pub fn finite_sign_clear(self) -> bool {
        self.finite() && self.lo >= 0.0 && !self.neg_zero
    }

    fn join(self, o: Fact) -> Fact {
        Fact {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            nan: self.nan || o.nan,
            neg_zero: self.neg_zero || o.neg_zero,
        }
    }

    /// A computed interval `[lo, hi]` (never NaN), widened and made infinite past the limit.
    fn computed(lo: f64, hi: f64) -> Fact {
        if lo.is_nan() || hi.is_nan() {
            return Fact::TOP;
        }
        let widen = |x: f64, up: bool| {
            // An infinite bound is exact (`log2(0)` is `−inf` in every precision); widening it
            // would compute `inf − inf`, a NaN bound that comparisons and min/max misread.
            if x.is_infinite() {
                return x;
            }
            let w = x.abs() * WIDEN;
            let y = if up { x + w } else { x - w };
            if y.abs() > FINITE_LIMIT {
                if up {
                    f64::INFINITY
                } else {
                    f64::NEG_INFINITY
                }
            } else {
                y
            }
        };
        let (lo, hi) = (widen(lo, false), widen(hi, true));
        Fact {
            lo,
            hi,
            nan: false,
            neg_zero: lo <= 0.0 && hi >= 0.0,
        }
    }
}

/// Facts per value: one [`Fact`] per component (scalars have one), at most four (a wider value
/// has no facts). A fixed array with a plain collecting loop: the analysis builds one per float
/// op, and collecting into a `SmallVec` cost about as much as the transfer functions themselves.
#[derive(Clone, Copy)]
struct Facts {
    len: u8,
    overflow: bool,
    lanes: [Fact; 4],
}

impl Facts {
    fn new() -> Facts {
        Facts {
            len: 0,
            overflow: false,
            lanes: [Fact::TOP; 4],
        }
    }

    fn push(&mut self, f: Fact) {
        match self.lanes.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = f;
                self.len += 1;
            }
            None => self.overflow = true,
        }
    }

    /// The lanes, `None` if there were more than four.
    fn lanes(&self) -> Option<&[Fact]> {
        (!self.overflow).then(|| &self.lanes[..usize::from(self.len)])
    }
}

impl FromIterator<Fact> for Facts {
    fn from_iter<I: IntoIterator<Item = Fact>>(iter: I) -> Facts {
        let mut out = Facts::new();
        for f in iter {
            out.push(f);
        }
        out
    }
}

/// The facts of every float value of `m` (values without facts are unknown).
///
/// Stored densely: `slots[id]` is the start and count of the value's facts in `data` (count 0:
/// unknown), so a query is two indexed loads rather than a hash lookup, and recording a value's
/// facts copies its lanes once (the analysis visits every op of the module).
#[derive(Default, Debug)]
pub struct FloatFacts {
    slots: Vec<(u32, u32)>,
    data: Vec<Fact>,
}

impl FloatFacts {
    /// Component `i` of `d` (unknown if nothing is known).
    #[inline]
    pub fn get(&self, d: SsaDef, i: usize) -> Fact {
        match self.slots.get(d.index()) {
            Some(&(start, n)) if i < n as usize => self.data[start as usize + i],
            _ => Fact::TOP,
        }
    }

    /// Whether no component of the float value `d` of `m` can be NaN.
    pub fn never_nan(&self, m: &Module, d: SsaDef) -> bool {
        (0..float_lanes(m, d)).all(|i| !self.get(d, i).nan)
    }
}

/// Computes the facts of every float value of `m`, legacy products by the exact D3D9 rule
/// (which agrees with the IEEE product on the finite factors the facts reason about).
pub fn analyze(m: &Module) -> FloatFacts {
    analyze_with(m, None)
}

/// Computes the facts of every float value of `m`; with `finite_bound = Some(B)`, legacy
/// products (`FMulLegacy`, `FMadLegacy`, `FDotLegacy`, `FDotAddLegacy`) follow the `finite`
/// mode of `lower-legacy`: IEEE products of factors clamped to `±B` (capped at the largest
/// finite value of the op's type), a NaN factor becoming `−B`. So a product of an unknown
/// value and a constant within about `±0.9` is finite for `B = 65504`, where the exact rule
/// knows nothing.
pub fn analyze_with(m: &Module, finite_bound: Option<f64>) -> FloatFacts {
    analyze_where(m, finite_bound, |_| true)
}

/// [`analyze`] of the values `roots` and of what they are computed from, for a pass that asks
/// about a few values only: an op's facts depend on its operands' facts alone (and, for a
/// normalized vector, on those of its operands' operands), so every op of that cone of
/// operands gets the facts the whole analysis gives it, and the other ops none (`TOP`), which
/// nobody asks for. A walk of the cone instead of every op's transfer function.
pub fn analyze_cone(m: &Module, roots: impl IntoIterator<Item = SsaDef>) -> FloatFacts {
    let mut needed = vec![false; m.id_bound()];
    let mut stack: Vec<SsaDef> = roots.into_iter().collect();
    while let Some(d) = stack.pop() {
        if std::mem::replace(&mut needed[d.index()], true) {
            continue;
        }
        stack.extend(m.op(d).ref_defs().filter(|r| !needed[r.index()]));
    }
    analyze_where(m, None, |d| needed[d.index()])
}

/// The facts of the ops of `m` that `wanted` accepts (all their operands accepted too).
fn analyze_where(
    m: &Module,
    finite_bound: Option<f64>,
    wanted: impl Fn(SsaDef) -> bool,
) -> FloatFacts {
    let mut facts = FloatFacts {
        slots: vec![(0, 0); m.id_bound()],
        // Room for four lanes per op: never regrown (and copied); pages never written cost
        // nothing.
        data: Vec::with_capacity(4 * m.len()),
    };
    for d in m.iter().filter(|&d| wanted(d)) {
        if let Some(f) = transfer(m, &facts, d, finite_bound) {
            if let Some(lanes) = f.lanes() {
                let start = facts.data.len() as u32;
                facts.data.extend_from_slice(lanes);
                facts.slots[d.index()] = (start, lanes.len() as u32);
            }
        }
    }
    facts
}

/// The number of components of `d`'s type (1 for scalars, 0 for anything not a float basic type).
fn float_lanes(m: &Module, d: SsaDef) -> usize {
    m.ty(d).as_basic().map_or(0, |b| {
        if b.scalar_type().is_float() {
            b.vec_size() as usize
        } else {
            0
        }
    })
}

fn constant(m: &Module, d: SsaDef) -> Option<Facts> {
    let op = m.op(d);
    let s = op.ty.as_basic()?.scalar_type();
    let c = Constant::of(op);
    (0..float_lanes(m, d))
        .map(|i| {
            let lit = c.scalar(i)?;
            let v = match s {
                ScalarType::F16 => irc_arith::float::to_f64(
                    irc_arith::Scalar::from_bits(ScalarType::F16, lit),
                    ScalarType::F16,
                ),
                ScalarType::F32 | ScalarType::MinF16 | ScalarType::MinF10 => {
                    f32::from_bits(lit as u32) as f64
                }
                ScalarType::F64 => f64::from_bits(lit),
                _ => return None,
            };
            Some(Fact::point(v))
        })
        .collect()
}

fn transfer(m: &Module, facts: &FloatFacts, d: SsaDef, finite_bound: Option<f64>) -> Option<Facts> {
    let n = float_lanes(m, d);
    if n == 0 {
        return None;
    }
    let op = m.op(d);
    // The product of a legacy op: under the finite mode, of the factors clamped to `±B`.
    let scalar = op.ty.as_basic()?.scalar_type();
    let legacy_bound = finite_bound.map(|b| b.min(max_finite(scalar)));
    // A product of lanes `x` and `y`; `square`: of a value with itself; `legacy`: a legacy
    // product (under the finite mode, of the factors clamped to `±B`).
    let product = |legacy: bool, square: bool, x: Fact, y: Fact| -> Fact {
        match (square, legacy_bound.filter(|_| legacy)) {
            (false, None) => mul(x, y),
            (false, Some(b)) => clamped_mul(x, y, b),
            (true, None) if x.nan => Fact::TOP,
            (true, None) => square_of(x.lo, x.hi),
            (true, Some(b)) => {
                let (lo, hi) = clamped(x, b);
                square_of(lo, hi)
            }
        }
    };
    let same = |a: Option<SsaDef>, b: Option<SsaDef>| {
        a.zip(b)
            .is_some_and(|(a, b)| same_value(m, a, b, SAME_VALUE_DEPTH))
    };
    // Lane `i` of operand `v` (unknown for a missing operand). The transfer functions read
    // the operand lanes in place and build only the result.
    let get = |v: Option<SsaDef>, i: usize| v.map_or(Fact::TOP, |v| facts.get(v, i));
    let map1 = |v: Option<SsaDef>, f: &dyn Fn(Fact) -> Fact| -> Facts {
        (0..n).map(|i| f(get(v, i))).collect()
    };
    let map2 = |a: Option<SsaDef>, b: Option<SsaDef>, f: &dyn Fn(Fact, Fact) -> Fact| -> Facts {
        (0..n).map(|i| f(get(a, i), get(b, i))).collect()
    };
    let ar = Arith::of(op);
    Some(match op.opcode {
        OpCode::Constant => constant(m, d)?,
        OpCode::CompositeConstruct => {
            let mut out = Facts::new();
            for member in CompositeConstruct::of(op).members() {
                let v = member.as_ref()?;
                let k = float_lanes(m, v).max(1);
                for i in 0..k {
                    out.push(facts.get(v, i));
                }
            }
            if out.overflow || usize::from(out.len) != n {
                return None;
            }
            out
        }
        OpCode::CompositeExtract => {
            let ce = CompositeExtract::of(op);
            let (v, a) = (ce.composite()?, ce.address()?);
            let index = Constant::try_of(m.op(a))?.scalar(0)? as usize;
            // Only a single-level extract from a float vector.
            if n != 1 || m.op(a).ty.as_scalar().is_none() || float_lanes(m, v) <= index {
                return None;
            }
            [facts.get(v, index)].into_iter().collect()
        }
        OpCode::Select => {
            let s = Select::of(op);
            map2(s.if_true(), s.if_false(), &|x, y| x.join(y))
        }
        OpCode::FAbs => map1(ar.a(), &|x| Fact {
            lo: if x.lo <= 0.0 && x.hi >= 0.0 {
                0.0
            } else {
                x.lo.abs().min(x.hi.abs())
            },
            hi: x.lo.abs().max(x.hi.abs()),
            nan: x.nan,
            neg_zero: false,
        }),
        OpCode::FNeg => map1(ar.a(), &neg),
        OpCode::FMin => map2(ar.a(), ar.b(), &fmin),
        OpCode::FMax => map2(ar.a(), ar.b(), &fmax),
        OpCode::FClamp => {
            let c = Clamp::of(op);
            let (x, lo, hi) = (c.a(), c.lo(), c.hi());
            (0..n)
                .map(|i| fmin(fmax(get(x, i), get(lo, i)), get(hi, i)))
                .collect()
        }
        OpCode::FAdd => map2(ar.a(), ar.b(), &add),
        // `x − y = x + (−y)`, the negation's zero sign included (`−0 − +0 = −0`: found by
        // `irc fuzz-diff`, where taking `y`'s own sign let `trim-legacy-guards` drop a guard).
        OpCode::FSub => map2(ar.a(), ar.b(), &|x, y| add(x, neg(y))),
        OpCode::FMul => {
            let sq = same(ar.a(), ar.b());
            map2(ar.a(), ar.b(), &|x, y| product(false, sq, x, y))
        }
        OpCode::FMulLegacy => {
            let (a, b_op) = (ar.a()?, ar.b()?);
            let sq = same(Some(a), Some(b_op));
            (0..n)
                .map(|i| {
                    let f = product(true, sq, facts.get(a, i), facts.get(b_op, i));
                    match legacy_bound {
                        Some(b)
                            if !f.finite()
                                && (normalizes(m, facts, a, b_op, i)
                                    || normalizes(m, facts, b_op, a, i)) =>
                        {
                            let limit = normalized_limit(b);
                            Fact::computed(-limit, limit)
                        }
                        _ => f,
                    }
                })
                .collect()
        }
        OpCode::FMad | OpCode::FMadLegacy => {
            let (x, y, z) = (ar.a(), ar.b(), ar.c());
            let (legacy, sq) = (op.opcode == OpCode::FMadLegacy, same(x, y));
            (0..n)
                .map(|i| add(product(legacy, sq, get(x, i), get(y, i)), get(z, i)))
                .collect()
        }
        OpCode::FDot | OpCode::FDotLegacy | OpCode::FDotAdd | OpCode::FDotAddLegacy => {
            let legacy = matches!(op.opcode, OpCode::FDotLegacy | OpCode::FDotAddLegacy);
            let dot = Dot::of(op);
            let (a, b) = (dot.a()?, dot.b()?);
            let sq = same(Some(a), Some(b));
            let k = float_lanes(m, a);
            let mut acc = match dot.add() {
                Some(c) => facts.get(c, 0),
                None => Fact::point(0.0),
            };
            for i in 0..k {
                acc = add(product(legacy, sq, facts.get(a, i), facts.get(b, i)), acc);
            }
            [acc].into_iter().collect()
        }
        // Under the finite mode `exp2(clamp(b) · clamp(log2(a)))`: a product of finite factors
        // is never NaN, so the power is never NaN and never negative.
        OpCode::FPowLegacy if legacy_bound.is_some() => (0..n)
            .map(|_| Fact {
                neg_zero: false,
                ..Fact::computed(0.0, f64::INFINITY)
            })
            .collect(),
        OpCode::FFract => map1(ar.a(), &|x| {
            if x.finite() {
                Fact::computed(0.0, 1.0)
            } else {
                Fact::TOP
            }
        }),
        OpCode::FRound => map1(ar.a(), &|x| {
            if x.finite() {
                Fact::computed(x.lo.floor(), x.hi.ceil())
            } else {
                Fact::TOP
            }
        }),
        OpCode::FSin | OpCode::FCos => map1(ar.a(), &|x| {
            if x.finite() {
                Fact::computed(-1.0, 1.0)
            } else {
                Fact::TOP
            }
        }),
        OpCode::FSqrt => map1(ar.a(), &|x| {
            if !x.nan && x.lo >= 0.0 {
                // `sqrt(−0) = −0`, `sqrt(inf) = inf`: never NaN.
                Fact {
                    neg_zero: x.neg_zero,
                    ..Fact::computed(x.lo.sqrt(), x.hi.sqrt())
                }
            } else {
                Fact::TOP
            }
        }),
        OpCode::FRsq => map1(ar.a(), &|x| {
            if x.finite() && x.lo >= ZERO_MARGIN {
                Fact::computed(1.0 / x.hi.sqrt(), 1.0 / x.lo.sqrt())
            } else if !x.nan && x.lo >= 0.0 {
                // Never NaN: `rsq(+0) = inf`, `rsq(−0) = −inf`, `rsq(inf) = +0`.
                let hi = if x.lo >= ZERO_MARGIN {
                    1.0 / x.lo.sqrt()
                } else {
                    f64::INFINITY
                };
                let lo = if x.neg_zero {
                    f64::NEG_INFINITY
                } else if may_inf_pos(x) {
                    0.0
                } else {
                    1.0 / x.hi.sqrt()
                };
                Fact {
                    neg_zero: false,
                    ..Fact::computed(lo, hi)
                }
            } else {
                Fact::TOP
            }
        }),
        OpCode::FRcp => map1(ar.a(), &|x| {
            if x.finite() && x.never_zero() {
                Fact::computed(1.0 / x.hi, 1.0 / x.lo)
            } else if !x.nan {
                // Never NaN: `rcp(±0) = ±inf`, `rcp(±inf) = ±0`.
                let sign_clear = x.lo >= 0.0 && !x.neg_zero;
                Fact::computed(
                    if sign_clear { 0.0 } else { f64::NEG_INFINITY },
                    f64::INFINITY,
                )
            } else {
                Fact::TOP
            }
        }),
        OpCode::FExp2 => map1(ar.a(), &|x| {
            if !x.nan {
                // `exp2(−inf) = +0`, `exp2(inf) = inf`; never NaN, never −0.
                Fact {
                    neg_zero: false,
                    ..Fact::computed(x.lo.exp2(), x.hi.exp2())
                }
            } else {
                Fact::TOP
            }
        }),
        OpCode::FLog2 => map1(ar.a(), &|x| {
            if x.finite() && x.lo >= ZERO_MARGIN {
                Fact::computed(x.lo.log2(), x.hi.log2())
            } else if !x.nan && x.lo >= 0.0 {
                // `log2(±0) = −inf`, `log2(inf) = inf`; never NaN, never −0.
                let lo = if x.lo >= ZERO_MARGIN {
                    x.lo.log2()
                } else {
                    f64::NEG_INFINITY
                };
                Fact {
                    neg_zero: false,
                    ..Fact::computed(lo, x.hi.log2())
                }
            } else {
                Fact::TOP
            }
        }),
        _ => return None,
    })
}

/// `min(x, y)` with the interpreter's rules: a NaN operand yields the other, `min(−0, +0) = −0`.
fn fmin(x: Fact, y: Fact) -> Fact {
    // Both numbers: the smaller; one NaN: the other one, whole.
    let mut hi = x.hi.min(y.hi);
    if x.nan {
        hi = hi.max(y.hi);
    }
    if y.nan {
        hi = hi.max(x.hi);
    }
    Fact {
        lo: x.lo.min(y.lo),
        hi,
        nan: x.nan && y.nan,
        neg_zero: x.neg_zero || y.neg_zero,
    }
}

/// `max(x, y)`: a NaN operand yields the other, `max(−0, +0) = +0`.
fn fmax(x: Fact, y: Fact) -> Fact {
    let hi = x.hi.max(y.hi);
    let mut lo = x.lo.max(y.lo);
    if x.nan {
        lo = lo.min(y.lo);
    }
    if y.nan {
        lo = lo.min(x.lo);
    }
    // −0 survives only if neither side is ≥ +0 for sure (no NaN, sign clear).
    let clear = |f: Fact| !f.nan && f.lo >= 0.0 && !f.neg_zero;
    Fact {
        lo,
        hi,
        nan: x.nan && y.nan,
        neg_zero: (x.neg_zero || y.neg_zero) && !clear(x) && !clear(y),
    }
}

/// May be `+inf` on some target: an upper bound past fp16's largest finite value. A computed
/// bound past [`FINITE_LIMIT`] is already infinite ([`Fact::computed`]), so a finite bound
/// above that limit is an exact one (a constant, a clamp's limit), and every target holds a
/// value up to 65504 without overflow.
fn may_inf_pos(f: Fact) -> bool {
    f.hi > F16_MAX
}

/// May be `−inf` on some target.
fn may_inf_neg(f: Fact) -> bool {
    f.lo < -F16_MAX
}

/// The largest finite fp16 value.
const F16_MAX: f64 = 65504.0;

/// `−x`: a zero of either sign may come out as `−0`.
fn neg(x: Fact) -> Fact {
    Fact {
        lo: -x.hi,
        hi: -x.lo,
        nan: x.nan,
        neg_zero: x.lo <= 0.0 && x.hi >= 0.0,
    }
}

/// The sum: intervals add (an infinite bound stays infinite), NaN only from a NaN operand or
/// `inf − inf`.
fn add(x: Fact, y: Fact) -> Fact {
    if x.nan || y.nan || (may_inf_pos(x) && may_inf_neg(y)) || (may_inf_neg(x) && may_inf_pos(y)) {
        return Fact::TOP;
    }
    let sum = Fact::computed(x.lo + y.lo, x.hi + y.hi);
    if x.lo >= 0.0 && y.lo >= 0.0 {
        // A sum of values ≥ ±0 is −0 only as `−0 + −0`.
        Fact {
            neg_zero: x.neg_zero && y.neg_zero,
            ..sum
        }
    } else {
        sum
    }
}

/// The product: the corners bound it, NaN only from a NaN operand or `0 · inf` (a factor
/// that may flush to zero on fp16 counts as one that may be zero).
fn mul(x: Fact, y: Fact) -> Fact {
    let may_inf = |f: Fact| may_inf_pos(f) || may_inf_neg(f);
    if x.nan || y.nan || (!x.never_zero() && may_inf(y)) || (may_inf(x) && !y.never_zero()) {
        return Fact::TOP;
    }
    product_of((x.lo, x.hi), (y.lo, y.hi))
}

/// The product of two never-NaN values in `[xl, xh]` and `[yl, yh]` (no `0 · inf`): the
/// corners, widened, except that a factor within `±1` never makes the product larger than
/// the other factor's bound (rounding is monotonic: `|fl(x·y)| ≤ |y|` when `|x| ≤ 1`), so
/// that bound holds unwidened, even past [`FINITE_LIMIT`] (the bound is then exact, at most
/// 65504 or infinite).
fn product_of((xl, xh): (f64, f64), (yl, yh): (f64, f64)) -> Fact {
    let c = [xl * yl, xl * yh, xh * yl, xh * yh];
    let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let unit = |l: f64, h: f64| l >= -1.0 && h <= 1.0;
    let magnitude = |l: f64, h: f64| l.abs().max(h.abs());
    let cap = match (unit(xl, xh), unit(yl, yh)) {
        (true, true) => 1.0,
        (true, false) => magnitude(yl, yh),
        (false, true) => magnitude(xl, xh),
        (false, false) => f64::INFINITY,
    };
    let f = Fact::computed(lo, hi);
    if cap > F16_MAX {
        return f;
    }
    Fact {
        lo: f.lo.max(-cap),
        hi: f.hi.min(cap),
        ..f
    }
}

/// The largest magnitude of a finite-mode normalized component ([`normalizes`]) with the
/// bound `b`: `b · 2⁻⁷` (512 for fp16's 65504; for an f32 bound, far past the finite limit),
/// at least 1.
fn normalized_limit(b: f64) -> f64 {
    (b / 128.0).max(1.0)
}

/// Whether lane `i` of the legacy product `v · r` is a component of a vector scaled by the
/// reciprocal square root of its own squared length: lane `i` of `v` is some lane of `x`, and
/// lane `i` of `r` is `FRsq(FDot(x, x))` (or of its `FAbs`): the legacy dot, whose factors
/// the finite mode clamps like `v`'s, or the IEEE one of an `x` never NaN (a NaN would make the
/// rsq NaN, which clamps to `−B`).
///
/// Under the finite mode the product is of the factors clamped to `±B`, so it never exceeds
/// [`normalized_limit`] and is never NaN, on every target: with `c` the clamped `x` and
/// `S = c·c` (as the target rounds it),
/// - `S` normal and finite: `S ≥ cᵢ²` up to rounding, so `|cᵢ · rsq(S)| ≤ 1` (plus the rsq
///   unit's error);
/// - `S = +inf` (fp16 overflow): `rsq(S) = 0`, the product is ±0;
/// - `S = 0` (every square flushed or underflowed: every `|cᵢ| < 2⁻⁷` in fp16, far less in
///   f32): `rsq(0) = inf` clamps to `B`, so `|cᵢ · B| < B · 2⁻⁷` (512 for `B = 65504`);
/// - `c` is finite, so `S` is never NaN (a sum of squares) and neither is the product.
fn normalizes(m: &Module, facts: &FloatFacts, v: SsaDef, r: SsaDef, i: usize) -> bool {
    let Some((s, None)) = lane(m, r, i) else {
        return false;
    };
    if m.opcode(s) != OpCode::FRsq {
        return false;
    }
    let Some(mut d) = Arith::of(m.op(s)).a() else {
        return false;
    };
    if m.opcode(d) == OpCode::FAbs {
        let Some(inner) = Arith::of(m.op(d)).a() else {
            return false;
        };
        d = inner;
    }
    let ieee = match m.opcode(d) {
        OpCode::FDotLegacy => false,
        OpCode::FDot => true,
        _ => return false,
    };
    let dot = Dot::of(m.op(d));
    let (Some(x), Some(y)) = (dot.a(), dot.b()) else {
        return false;
    };
    if ieee && !facts.never_nan(m, x) {
        return false;
    }
    if !same_value(m, x, y, SAME_VALUE_DEPTH) {
        return false;
    }
    let Some(vi) = lane(m, v, i) else {
        return false;
    };
    (0..float_lanes(m, x)).any(|j| lane(m, x, j).is_some_and(|xj| same_lane(m, vi, xj)))
}

/// Lane `i` of `v` as a scalar value `(s, None)` where one defines it (a scalar, a member of
/// a construct of scalars, an extract), else `(vector, Some(i))`.
fn lane(m: &Module, v: SsaDef, i: usize) -> Option<(SsaDef, Option<usize>)> {
    let lanes = float_lanes(m, v);
    if lanes == 0 || i >= lanes {
        return None;
    }
    if lanes == 1 {
        return Some(scalar_lane(m, v));
    }
    if m.opcode(v) == OpCode::CompositeConstruct {
        let members: SmallVec<[SsaDef; 4]> = CompositeConstruct::of(m.op(v))
            .members()
            .iter()
            .map(|o| o.as_ref())
            .collect::<Option<_>>()?;
        if members.len() == lanes {
            return Some(scalar_lane(m, members[i]));
        }
    }
    Some((v, Some(i)))
}

/// A scalar `s` as a lane: `CompositeExtract(w, k)` of a float vector is lane `k` of `w`
/// (itself resolved through a construct).
fn scalar_lane(m: &Module, s: SsaDef) -> (SsaDef, Option<usize>) {
    if m.opcode(s) == OpCode::CompositeExtract {
        let ce = CompositeExtract::of(m.op(s));
        if let (Some(w), Some(a)) = (ce.composite(), ce.address()) {
            let k = Constant::try_of(m.op(a)).and_then(|c| c.scalar(0));
            if let Some(k) = k.filter(|_| m.op(a).ty.as_scalar().is_some()) {
                let k = k as usize;
                let width = float_lanes(m, w);
                if width > 1 && k < width {
                    return lane(m, w, k).unwrap_or((w, Some(k)));
                }
            }
        }
    }
    (s, None)
}

fn same_lane(m: &Module, a: (SsaDef, Option<usize>), b: (SsaDef, Option<usize>)) -> bool {
    a.1 == b.1 && same_value(m, a.0, b.0, SAME_VALUE_DEPTH)
}

/// The IEEE product of `x` and `y` clamped to `±b` each (a NaN factor becomes `−b`, the
/// clamp's rule). The clamped factors lie within `±b` on every target (`b` is representable
/// there), so the corners bound the product even where `b` exceeds [`FINITE_LIMIT`].
fn clamped_mul(x: Fact, y: Fact, b: f64) -> Fact {
    product_of(clamped(x, b), clamped(y, b))
}

/// The bounds of `x` clamped to `±b` (a NaN becomes `−b`).
fn clamped(x: Fact, b: f64) -> (f64, f64) {
    if x.finite() {
        (x.lo, x.hi)
    } else {
        let lo = if x.nan { -b } else { x.lo.max(-b) };
        (lo.min(b), x.hi.min(b).max(-b).max(lo))
    }
}

/// The square of a value in `[lo, hi]` (never NaN: `inf · inf = inf`, never `−0`).
fn square_of(lo: f64, hi: f64) -> Fact {
    let (a, b) = (lo * lo, hi * hi);
    let low = if lo <= 0.0 && hi >= 0.0 {
        0.0
    } else {
        a.min(b)
    };
    Fact {
        neg_zero: false,
        ..Fact::computed(low, a.max(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_to_unit_is_finite_and_sign_clear() {
        let sat = fmin(fmax(Fact::TOP, Fact::point(0.0)), Fact::point(1.0));
        assert!(sat.finite_sign_clear(), "{sat:?}");
        assert!(!sat.never_zero());
    }

    #[test]
    fn max_with_negative_zero_keeps_it() {
        let m = fmax(Fact::point(-0.0), Fact::point(-1.0));
        assert!(m.neg_zero && !m.finite_sign_clear());
    }

    #[test]
    fn min_with_nan_operand_keeps_the_other_interval() {
        // x is 1 or NaN: min(x, 5) is 1 or 5.
        let x = Fact {
            nan: true,
            ..Fact::point(1.0)
        };
        let m = fmin(x, Fact::point(5.0));
        assert!(!m.nan && m.hi >= 5.0, "{m:?}");
    }

    #[test]
    fn small_products_are_not_never_zero() {
        // 0.01 · 0.01 = 1e-4 rounds to a subnormal in fp16: not provably nonzero.
        let p = mul(Fact::point(0.01), Fact::point(0.005));
        assert!(!p.never_zero(), "{p:?}");
        assert!(mul(Fact::point(2.0), Fact::point(3.0)).never_zero());
    }

    #[test]
    fn sums_and_products_of_unbounded_values_track_nan() {
        let at_least_one = Fact {
            hi: f64::INFINITY,
            ..Fact::point(1.0)
        };
        // [1, inf] + [2, 3] is never NaN and at least 3 (less 1%).
        let s = add(at_least_one, Fact::computed(2.0, 3.0));
        assert!(!s.nan && s.lo >= 2.9 && s.hi.is_infinite(), "{s:?}");
        // inf − inf is NaN.
        assert!(
            add(
                at_least_one,
                Fact {
                    lo: f64::NEG_INFINITY,
                    ..Fact::point(0.0)
                }
            )
            .nan
        );
        // [1, inf] · [2, 3] never NaN; [1, inf] · [0, 1] may be 0 · inf.
        assert!(!mul(at_least_one, Fact::point(2.0)).nan);
        assert!(mul(at_least_one, Fact::computed(0.0, 1.0)).nan);
        // A factor that flushes to zero in fp16 counts as zero.
        assert!(mul(at_least_one, Fact::point(1.0e-6)).nan);
        // Constants past the fp16 range are infinite there: their sum may be inf − inf.
        assert!(add(Fact::point(1.0e30), Fact::point(-1.0e30)).nan);
        // Values clamped to ±65504 are finite everywhere: their product is never NaN (it may
        // overflow), the sum of two such products may be inf − inf.
        let b = fmin(fmax(Fact::TOP, Fact::point(-65504.0)), Fact::point(65504.0));
        let p = mul(b, b);
        assert!(!p.nan && !p.finite(), "{p:?}");
        assert!(add(p, p).nan);
    }

    #[test]
    fn clamped_products_are_bounded() {
        // Under the finite mode an unknown factor is within ±65504: times 0.5 it is finite.
        let half = clamped_mul(Fact::TOP, Fact::point(0.5), 65504.0);
        assert!(half.finite(), "{half:?}");
        // Times 2 it may overflow fp16, and times another unknown too; but never NaN.
        let twice = clamped_mul(Fact::TOP, Fact::point(2.0), 65504.0);
        assert!(!twice.finite() && !twice.nan, "{twice:?}");
        assert!(!clamped_mul(Fact::TOP, Fact::TOP, 65504.0).nan);
        // A NaN factor becomes −B: the product keeps the sign rule of the corners.
        let nan_pos = Fact {
            nan: true,
            ..Fact::point(1.0)
        };
        let p = clamped_mul(nan_pos, Fact::point(1.0e-3), 65504.0);
        assert!(p.finite() && p.lo <= -65.0 && p.hi >= 1.0e-3, "{p:?}");
    }

    #[test]
    fn a_factor_within_one_never_enlarges_the_other() {
        // sat(x) · clamp(y, ±65504) stays within ±65504 exactly (no widening past it).
        let sat = fmin(fmax(Fact::TOP, Fact::point(0.0)), Fact::point(1.0));
        let p = clamped_mul(sat, Fact::TOP, 65504.0);
        assert!(!p.nan && p.lo == -65504.0 && p.hi == 65504.0, "{p:?}");
        // Both within one: within one.
        let q = mul(fmax(sat, Fact::point(-1.0)), Fact::point(0.5));
        assert!(q.lo >= -1.0 && q.hi <= 1.0, "{q:?}");
        // Without a unit factor the bound widens (and past the finite limit, goes infinite).
        let r = mul(Fact::point(2.0), Fact::computed(0.0, 40000.0));
        assert!(r.hi.is_infinite(), "{r:?}");
    }

    #[test]
    fn squares_are_never_negative_and_never_nan() {
        let (lo, hi) = clamped(Fact::TOP, 65504.0);
        let sq = square_of(lo, hi);
        assert!(!sq.nan && sq.lo >= 0.0 && !sq.neg_zero, "{sq:?}");
        let sq = square_of(-3.0, -2.0);
        assert!(sq.lo >= 3.9 && sq.hi <= 9.1, "{sq:?}");
    }

    #[test]
    fn a_difference_of_zeros_may_be_negative_zero() {
        // `−0 − +0 = −0`: the subtrahend's negation is a `−0` (found by `irc fuzz-diff`).
        let d = add(Fact::point(-0.0), neg(Fact::point(0.0)));
        assert!(d.neg_zero && !d.finite_sign_clear(), "{d:?}");
        let m = irc_ir::text::parse(
            "%1 = EntryPoint %10 Pixel\n%2 = f32 Constant -0.0\n%3 = f32 Constant 0.0\n\n\
             %10 = Function\n%11 = Label None\n  %12 = f32 FSub %2 %3\n  %13 = Return\n\
             %14 = FunctionEnd\n",
        )
        .expect("parses");
        let sub = m
            .code()
            .find(|&d| m.opcode(d) == OpCode::FSub)
            .expect("the FSub");
        assert!(analyze(&m).get(sub, 0).neg_zero);
    }

    #[test]
    fn an_infinite_bound_stays_exact() {
        // `log2([0, 0])` is `[−inf, −inf]`: widening the upper bound gave `−inf + inf`, a NaN.
        let f = Fact::computed(f64::NEG_INFINITY, f64::NEG_INFINITY);
        assert!(
            f.lo == f64::NEG_INFINITY && f.hi == f64::NEG_INFINITY,
            "{f:?}"
        );
        let g = Fact::computed(1.0, f64::INFINITY);
        assert!(
            g.hi == f64::INFINITY && g.lo <= 1.0 && g.lo >= 0.99,
            "{g:?}"
        );
    }

    #[test]
    fn overflow_is_not_finite() {
        assert!(!mul(Fact::point(300.0), Fact::point(300.0)).finite());
        assert!(!add(Fact::TOP, Fact::point(1.0)).finite());
    }
}
