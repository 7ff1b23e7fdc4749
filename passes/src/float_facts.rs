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
//! the facts survive any rounding a target does.
//!
//! **Transfer functions.** Constants are points. `FClamp`, `FMin`, `FMax` follow the
//! interpreter's rules (a NaN operand yields the other operand, `max(−0, +0) = +0`); `FAbs`,
//! `FNeg`, `FAdd`/`FSub`/`FMul`/`FMad`/`FDot`/`FDotAdd` (and their legacy forms), `FFract`,
//! `FRound`, `FSin`/`FCos`, `FSqrt`, `FRsq`, `FRcp`, `FExp2`, `FLog2` use interval arithmetic
//! once their operands are finite; `Select` joins; `CompositeConstruct` / `CompositeExtract`
//! move components. Everything else — inputs, uniforms, texture samples, phis — is unknown:
//! an application can hand the shader any value, including inf and NaN.
//!
//! One forward walk in program order: SSA defs dominate their uses, so every operand outside a
//! loop is known when it is read; a value not computed yet (a phi's back edge) is unknown.

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

/// Facts per value: one [`Fact`] per component (scalars have one).
pub type Facts = SmallVec<[Fact; 4]>;

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
}

/// Computes the facts of every float value of `m`.
pub fn analyze(m: &Module) -> FloatFacts {
    let mut facts = FloatFacts {
        slots: vec![(0, 0); m.id_bound()],
        data: Vec::with_capacity(m.len()),
    };
    for d in m.iter() {
        if let Some(f) = transfer(m, &facts, d) {
            let start = facts.data.len() as u32;
            facts.data.extend_from_slice(&f);
            facts.slots[d.index()] = (start, f.len() as u32);
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

fn transfer(m: &Module, facts: &FloatFacts, d: SsaDef) -> Option<Facts> {
    let n = float_lanes(m, d);
    if n == 0 {
        return None;
    }
    let op = m.op(d);
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
                out.extend((0..k).map(|i| facts.get(v, i)));
            }
            if out.len() != n {
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
        OpCode::FNeg => map1(ar.a(), &|x| Fact {
            lo: -x.hi,
            hi: -x.lo,
            nan: x.nan,
            neg_zero: x.lo <= 0.0 && x.hi >= 0.0,
        }),
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
        OpCode::FSub => map2(ar.a(), ar.b(), &|x, y| {
            add(
                x,
                Fact {
                    lo: -y.hi,
                    hi: -y.lo,
                    ..y
                },
            )
        }),
        OpCode::FMul | OpCode::FMulLegacy => map2(ar.a(), ar.b(), &mul),
        OpCode::FMad | OpCode::FMadLegacy => {
            let (x, y, z) = (ar.a(), ar.b(), ar.c());
            (0..n)
                .map(|i| add(mul(get(x, i), get(y, i)), get(z, i)))
                .collect()
        }
        OpCode::FDot | OpCode::FDotLegacy | OpCode::FDotAdd | OpCode::FDotAddLegacy => {
            let dot = Dot::of(op);
            let (a, b) = (dot.a()?, dot.b()?);
            let k = float_lanes(m, a);
            let mut acc = match dot.add() {
                Some(c) => facts.get(c, 0),
                None => Fact::point(0.0),
            };
            for i in 0..k {
                acc = add(mul(facts.get(a, i), facts.get(b, i)), acc);
            }
            [acc].into_iter().collect()
        }
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
            if x.finite() && x.lo >= 0.0 {
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
            } else {
                Fact::TOP
            }
        }),
        OpCode::FRcp => map1(ar.a(), &|x| {
            if x.finite() && x.never_zero() {
                Fact::computed(1.0 / x.hi, 1.0 / x.lo)
            } else {
                Fact::TOP
            }
        }),
        OpCode::FExp2 => map1(ar.a(), &|x| {
            if x.finite() {
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

fn add(x: Fact, y: Fact) -> Fact {
    if !x.finite() || !y.finite() {
        return Fact::TOP;
    }
    Fact::computed(x.lo + y.lo, x.hi + y.hi)
}

fn mul(x: Fact, y: Fact) -> Fact {
    if !x.finite() || !y.finite() {
        return Fact::TOP;
    }
    let c = [x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi];
    let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Fact::computed(lo, hi)
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
    fn overflow_is_not_finite() {
        assert!(!mul(Fact::point(300.0), Fact::point(300.0)).finite());
        assert!(!add(Fact::TOP, Fact::point(1.0)).finite());
    }
}
