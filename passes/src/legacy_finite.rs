//! The `finite` mode of `lower-legacy` (`legacy-mul=finite`): D3D9 legacy products as IEEE
//! products of factors limited to the finite range.
//!
//! D3D9 multiplies so that zero wins: `0 · x = 0` for every `x`, inf and NaN included. The
//! exact lowering guards each factor with a compare and a select per component
//! (`b == 0 ? +0 : a`). On the Mali-400 PP a select takes one scalar condition, and AGAL has
//! no select at all, so there every guarded lane costs a compare and a select (or more), and
//! the guards dominate D3D9 code.
//!
//! This mode limits each factor to `[−B, B]` instead: one vector `FClamp` (a max and a min on
//! the vector units, whatever the width). A zero factor then meets a finite one, and
//! `finite · ±0 = ±0`, so `0 · x = 0` still holds for every `x`. What differs from `exact`:
//! - a non-zero factor times an infinite one gives `±B · x` (finite when `|x| < 1`, an
//!   overflow to inf otherwise) instead of inf;
//! - times a NaN one it gives `−B · x` (the clamp's NaN rule: `FClamp(NaN, lo, hi) = lo`)
//!   instead of NaN;
//! - the sign of a zero product is the IEEE one (`−inf · +0 = −0`, where `exact` gives +0).
//!
//! `B` is the largest finite value of the target's arithmetic: 65504 where it computes in
//! fp16 whatever the IR says ([`crate::TargetCaps::fp16_arithmetic`]: a larger f32 bound
//! would become inf in its fp16 constants and clamp nothing), else the largest finite value
//! of the type. So the clamp changes nothing but inf and NaN on every value the target holds.
//!
//! A factor that [`crate::float_facts`] proves finite is not clamped: the clamp is the
//! identity on it (its limit, ±60000, lies inside `±B`); nor is a product this lowering made
//! of a limited factor and one within `±1`. The facts are this mode's own
//! ([`float_facts::analyze_with`]): a legacy product of an unknown value and a constant
//! within about ±0.9 is finite under a 65504 bound, and so is a normalized vector (`v ·
//! rsq(v · v)`, within ±512). A factor never NaN and never below `−B` (an `exp2`, the `rsq`
//! of a sum of squares) needs only `FMin(x, B)`, one never above `B` only `FMax(x, −B)` (which
//! is also the clamp's NaN rule): one op on the vector units instead of two. Each value is
//! limited once, right after its definition, for all its products ([`Limiter`]).
//! `FLog2Legacy` keeps its exact lowering.
//!
//! Those facts, measured on the D3D9 pixel shaders for lima-fp (instructions): 14,783 →
//! 14,261 (`ieee`: 10,713); whole corpus lima-fp 19,975 → 19,453, agal-fp 34,430 → 33,656,
//! agal-vp 15,820 → 15,604, lima-vp 35,128 → 34,881.
//!
//! Measured against the `exact` default it replaced (instructions; lima-fp also with its
//! backend's rematerialized clamps and fused fetches): lima-fp D3D9 pixel shaders 26,404 →
//! 16,280 (`ieee`: 11,595); whole corpus lima-fp 31,808 → 21,553, lima-vp 40,784 → 35,128,
//! agal-fp 66,595 → 34,430, agal-vp 62,179 → 15,820, with 8 more shaders in each of lima-vp
//! and agal-fp under their limits.
//! The interpreter evaluates the same semantics directly under
//! `irc_interp::RunConfig::legacy_finite`: that is this mode's oracle.

use crate::caps::{PassContext, TargetCaps};
use crate::float_facts::{self, Fact, FloatFacts};
use crate::lower_legacy::{float_const, max_finite, scalar_of, F16_MAX};
use irc_ir::format::{Arith, CompositeExtract, Constant, Dot};
use irc_ir::{Module, Op, OpCode, ScalarType, SsaDef, Type};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

/// The largest magnitude a factor keeps under `legacy-mul=finite` on a target with `caps`,
/// before the type's own limit: 65504 where it computes in fp16, else unbounded. The
/// interpreter's oracle takes this value (`RunConfig::legacy_finite`).
pub fn target_bound(caps: &TargetCaps) -> f64 {
    if caps.fp16_arithmetic {
        F16_MAX
    } else {
        f64::INFINITY
    }
}

/// The largest magnitude a factor of scalar type `s` keeps on the target of `cx`.
fn bound(cx: &PassContext, s: ScalarType) -> f64 {
    max_finite(s).min(target_bound(&cx.caps))
}

/// Makes the limited factors of one module, each value limited once.
///
/// A value's clamp goes right after its definition (after the phis of its block for a phi), so
/// that it dominates every product that uses the value and is shared by all of them. (Placed
/// at each use instead and merged by `gvn`, clamps cost more: lima-fp 17,506 instructions
/// and 770 spills on the D3D9 pixel shaders against 17,495 and 711; lima-vp 31,947 against
/// 29,148 on the D3D9 vertex shaders.) Vectors built from pieces are limited through their
/// pieces where that shares clamps:
/// - `CompositeConstruct` members are limited one by one on scalar machines (the same lane
///   count, shared with the members' other products); on vector machines
///   ([`TargetCaps::vectorize`]) when every member that needs a clamp is the same scalar (a
///   splat) or an extract of one vector, which is then limited whole;
/// - on vector machines `CompositeExtract(v, i)` reads lane `i` of `v` limited whole (one
///   vector clamp serves every swizzle of `v`).
pub(crate) struct Limiter {
    /// `B` before the type's own limit ([`target_bound`]).
    target_bound: f64,
    facts: FloatFacts,
    limited: FxHashMap<SsaDef, SsaDef>,
    /// Values limited for their squares alone ([`Limiter::limit_square`]).
    squared: FxHashMap<SsaDef, SsaDef>,
    /// Values made by this lowering that stay within `±B` (never NaN): the limited values,
    /// and products of a limited or finite factor and one within `±1`. They need no clamp.
    bounded: FxHashSet<SsaDef>,
    /// The `±B` constants made so far.
    limits: LimitConstants,
}

/// The `±B` constants of a module by type and value, each made once: a module uses a handful
/// of float types, and making a constant (an op built, hashed and looked up) for every clamp
/// cost a tenth of `lower-legacy`.
#[derive(Default)]
struct LimitConstants(SmallVec<[(Type, u64, SsaDef); 8]>);

impl LimitConstants {
    /// The constant `v` of type `ty` (every component `v`).
    fn get(&mut self, m: &mut Module, ty: &Type, v: f64) -> SsaDef {
        let bits = v.to_bits();
        if let Some(&(_, _, c)) = self
            .0
            .iter()
            .find(|(t, b, c)| *b == bits && t == ty && m.is_live(*c))
        {
            return c;
        }
        let c = float_const(m, ty, v);
        self.0.push((ty.clone(), bits, c));
        c
    }
}

impl Limiter {
    /// A limiter for `m` (analyses its float facts).
    pub(crate) fn new(m: &Module, cx: &PassContext) -> Limiter {
        Limiter {
            target_bound: target_bound(&cx.caps),
            // The finite mode's rule for the legacy products, unless the target runs them
            // natively (then they are exact, and the facts take the exact rule).
            facts: float_facts::analyze_with(
                m,
                (!cx.caps.is_native(OpCode::FMulLegacy)).then(|| target_bound(&cx.caps)),
            ),
            limited: FxHashMap::default(),
            squared: FxHashMap::default(),
            bounded: FxHashSet::default(),
            limits: LimitConstants::default(),
        }
    }

    /// Every lane of `x` is NaN-free and inside `±B` (the clamp is the identity on it).
    fn finite(&self, m: &Module, x: SsaDef) -> bool {
        let b = self.bound_of(m, x);
        self.bounded.contains(&x) || self.all_lanes(m, x, |f| !f.nan && f.lo >= -b && f.hi <= b)
    }

    /// `B` for the type of `x`.
    fn bound_of(&self, m: &Module, x: SsaDef) -> f64 {
        max_finite(scalar_of(m.ty(x))).min(self.target_bound)
    }

    fn all_lanes(&self, m: &Module, x: SsaDef, p: impl Fn(Fact) -> bool) -> bool {
        let lanes = m.ty(x).as_basic().map_or(1, |t| t.vec_size() as usize);
        (0..lanes).all(|i| p(self.facts.get(x, i)))
    }

    /// Notes that `d` is the IEEE product of the limited factors `a2` and `b2` (limited from
    /// `a` and `b`): if one factor lies within `±1` and the other within `±B`, so does `d`
    /// (the exact product does, and rounding keeps it there, `B` being representable), and a
    /// later product that uses `d` needs no clamp for it.
    pub(crate) fn note_product(&mut self, m: &Module, d: SsaDef, [a, b, a2, b2]: [SsaDef; 4]) {
        let unit = |x: SsaDef| self.all_lanes(m, x, |f| !f.nan && f.lo >= -1.0 && f.hi <= 1.0);
        if (unit(a) && self.finite(m, b2)) || (unit(b) && self.finite(m, a2)) {
            self.bounded.insert(d);
        }
    }

    /// `x` limited to the finite range of the target of `cx`, for a product at `at`.
    pub(crate) fn limit(
        &mut self,
        m: &mut Module,
        cx: &PassContext,
        at: SsaDef,
        x: SsaDef,
    ) -> SsaDef {
        if self.finite(m, x) {
            return x;
        }
        if let Some(&l) = self.limited.get(&x) {
            return l;
        }
        let side = self.side(m, cx, x);
        let Some(anchor) = definition_end(m, x) else {
            // Not an op of the code (no float value is): clamp at the use.
            return clamp(m, cx, &mut self.limits, x, side, |m, op| {
                m.insert_before(at, op)
            });
        };
        let l = match m.opcode(x) {
            OpCode::CompositeConstruct => self.through_members(m, cx, at, x, anchor),
            OpCode::CompositeExtract if cx.caps.vectorize => {
                self.through_source(m, cx, at, x, anchor)
            }
            _ => None,
        }
        .unwrap_or_else(|| {
            clamp(m, cx, &mut self.limits, x, side, |m, op| {
                m.insert_after(anchor, op)
            })
        });
        self.limited.insert(x, l);
        self.bounded.insert(l);
        l
    }

    /// `x` limited for a square (`x · x`, `dp3 x, x`) at `at`. Where `B` is the largest finite
    /// value of the type (every target that computes in the IR's own types), the square of
    /// `FMax(x, −B)` is the square of the full clamp for every `x`: they differ only for
    /// `x = +inf`, whose square is inf, as is `B²`; NaN becomes `−B` either way. So a value
    /// whose legacy products are all squares of itself gets the lower limit alone, or none
    /// when it is never NaN. Its other products, if a later lowering makes some (`FPowLegacy`),
    /// get the full clamp of [`Limiter::limit`].
    pub(crate) fn limit_square(
        &mut self,
        m: &mut Module,
        cx: &PassContext,
        at: SsaDef,
        x: SsaDef,
    ) -> SsaDef {
        let widest = self.bound_of(m, x) >= max_finite(scalar_of(m.ty(x)));
        // A vector built from pieces is limited through them, shared with their products.
        let pieces = matches!(
            m.opcode(x),
            OpCode::CompositeConstruct | OpCode::CompositeExtract
        );
        if self.finite(m, x) || !widest || pieces || !squares_only(m, x) {
            return self.limit(m, cx, at, x);
        }
        if let Some(&l) = self.limited.get(&x).or_else(|| self.squared.get(&x)) {
            return l;
        }
        if self.all_lanes(m, x, |f| !f.nan) {
            return x;
        }
        let Some(anchor) = definition_end(m, x) else {
            return clamp(m, cx, &mut self.limits, x, Side::Lower, |m, op| {
                m.insert_before(at, op)
            });
        };
        let l = clamp(m, cx, &mut self.limits, x, Side::Lower, |m, op| {
            m.insert_after(anchor, op)
        });
        self.squared.insert(x, l);
        l
    }

    /// Which sides of `±B` the clamp of `x` needs: a value never below `−B` and never NaN
    /// needs only the upper limit, one never above `B` (NaN or not: `FMax(NaN, −B) = −B`, the
    /// clamp's NaN rule) only the lower one.
    fn side(&self, m: &Module, cx: &PassContext, x: SsaDef) -> Side {
        let b = bound(cx, scalar_of(m.ty(x)));
        if self.all_lanes(m, x, |f| f.hi <= b) {
            Side::Lower
        } else if self.all_lanes(m, x, |f| !f.nan && f.lo >= -b) {
            Side::Upper
        } else {
            Side::Both
        }
    }

    /// Whether `y` limited is defined before any op that uses `y` (so before a vector built
    /// from it): `y` itself, an earlier clamp, or one placed right after `y`. Not for a
    /// declaration (an `Undef`), whose clamp goes before its product.
    fn placeable(&self, m: &Module, y: SsaDef) -> bool {
        self.finite(m, y) || self.limited.contains_key(&y) || definition_end(m, y).is_some()
    }

    /// `CompositeConstruct` of the limited members (see the type's doc), after `anchor`.
    fn through_members(
        &mut self,
        m: &mut Module,
        cx: &PassContext,
        at: SsaDef,
        x: SsaDef,
        anchor: SsaDef,
    ) -> Option<SsaDef> {
        let members: SmallVec<[SsaDef; 4]> = m.op(x).refs().filter_map(|(_, r)| r).collect();
        if !members.iter().all(|&y| self.placeable(m, y)) {
            return None;
        }
        if cx.caps.vectorize {
            let mut sources = members
                .iter()
                .filter(|&&y| !self.finite(m, y))
                .map(|&y| vector_source(m, y).map_or(y, |(v, _)| v));
            let first = sources.next()?;
            if !sources.all(|s| s == first) {
                return None;
            }
        }
        let mut op = Op::new(OpCode::CompositeConstruct, m.ty(x).clone());
        for y in members {
            op = op.arg(self.limit(m, cx, at, y));
        }
        Some(m.insert_after(anchor, op))
    }

    /// Lane `i` of the limited source vector of `x = CompositeExtract(v, i)`, after `anchor`.
    fn through_source(
        &mut self,
        m: &mut Module,
        cx: &PassContext,
        at: SsaDef,
        x: SsaDef,
        anchor: SsaDef,
    ) -> Option<SsaDef> {
        let (v, _) = vector_source(m, x)?;
        if !self.placeable(m, v) {
            return None;
        }
        let address = CompositeExtract::of(m.op(x)).address()?;
        let limited = self.limit(m, cx, at, v);
        let op = Op::new(OpCode::CompositeExtract, m.ty(x).clone())
            .arg(limited)
            .arg(address);
        Some(m.insert_after(anchor, op))
    }
}

/// Whether every legacy product that reads `x` is a square of it (both factors `x`), and no
/// `FPowLegacy` reads it (its lowering makes a product of its exponent).
fn squares_only(m: &Module, x: SsaDef) -> bool {
    m.uses(x).iter().all(|&u| {
        let op = m.op(u);
        match op.opcode {
            OpCode::FMulLegacy | OpCode::FMadLegacy => {
                let a = Arith::of(op);
                a.a() == Some(x) && a.b() == Some(x)
            }
            OpCode::FDotLegacy | OpCode::FDotAddLegacy => {
                let d = Dot::of(op);
                d.a() == Some(x) && d.b() == Some(x)
            }
            OpCode::FPowLegacy => false,
            _ => true,
        }
    })
}

/// The vector and lane of `x = CompositeExtract(v, i)` for a float vector `v` and a constant
/// `i`.
fn vector_source(m: &Module, x: SsaDef) -> Option<(SsaDef, u64)> {
    if m.opcode(x) != OpCode::CompositeExtract {
        return None;
    }
    let ce = CompositeExtract::of(m.op(x));
    let (v, a) = (ce.composite()?, ce.address()?);
    let i = Constant::try_of(m.op(a))?.scalar(0)?;
    let t = m.ty(v).as_basic()?;
    (m.op(a).ty.as_scalar().is_some() && t.scalar_type().is_float() && i < t.vec_size() as u64)
        .then_some((v, i))
}

/// The op after which a value defined by `x` can be used: `x` itself, or the last phi of its
/// block; `None` for a declaration.
fn definition_end(m: &Module, x: SsaDef) -> Option<SsaDef> {
    if m.code().next().is_none_or(|first| m.precedes(x, first)) {
        return None;
    }
    let mut end = x;
    while let Some(n) = m.next(end).filter(|&n| m.opcode(n) == OpCode::Phi) {
        end = n;
    }
    Some(end)
}

/// Which limits a clamp needs (see [`Limiter::side`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// `FClamp(x, −B, B)`.
    Both,
    /// `FMax(x, −B)`.
    Lower,
    /// `FMin(x, B)`.
    Upper,
}

/// `FClamp(x, −B, B)` in the type of `x` (or the one limit of it that `side` says is enough),
/// placed by `place`.
fn clamp(
    m: &mut Module,
    cx: &PassContext,
    limits: &mut LimitConstants,
    x: SsaDef,
    side: Side,
    place: impl FnOnce(&mut Module, Op) -> SsaDef,
) -> SsaDef {
    let ty = m.ty(x).clone();
    let b = bound(cx, scalar_of(&ty));
    let op = match side {
        Side::Both => {
            let lo = limits.get(m, &ty, -b);
            let hi = limits.get(m, &ty, b);
            Op::new(OpCode::FClamp, ty).arg(x).arg(lo).arg(hi)
        }
        Side::Lower => {
            let lo = limits.get(m, &ty, -b);
            Op::new(OpCode::FMax, ty).arg(x).arg(lo)
        }
        Side::Upper => {
            let hi = limits.get(m, &ty, b);
            Op::new(OpCode::FMin, ty).arg(x).arg(hi)
        }
    };
    place(m, op)
}

/// The factors of an IEEE product that gives the `finite`-mode legacy product of `a` and `b`,
/// for a product at `at`; without a limiter (ops made by other lowerings), clamped there.
pub(crate) fn factors(
    m: &mut Module,
    cx: &PassContext,
    limiter: Option<&mut Limiter>,
    at: SsaDef,
    a: SsaDef,
    b: SsaDef,
) -> (SsaDef, SsaDef) {
    match limiter {
        Some(l) if a == b => {
            let square = l.limit_square(m, cx, at, a);
            (square, square)
        }
        Some(l) => (l.limit(m, cx, at, a), l.limit(m, cx, at, b)),
        None => {
            let limits = &mut LimitConstants::default();
            let a2 = clamp(m, cx, limits, a, Side::Both, |m, op| {
                m.insert_before(at, op)
            });
            let b2 = if a == b {
                a2
            } else {
                clamp(m, cx, limits, b, Side::Both, |m, op| {
                    m.insert_before(at, op)
                })
            };
            (a2, b2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::target_bound;
    use crate::caps::{test_profiles, PassContext, TargetCaps};
    use crate::lower_legacy::test_util::{check_same_under, float_fn_module, lowered, op_module};
    use irc_interp::RunConfig;
    use irc_ir::{text, Module, OpCode, ScalarType};

    fn finite_cx(caps: TargetCaps) -> PassContext {
        PassContext {
            caps,
            legacy_mul_finite: true,
            ..Default::default()
        }
    }

    fn lower(m: &Module, caps: TargetCaps) -> Module {
        lowered(m, &finite_cx(caps))
    }

    fn oracle(caps: &TargetCaps) -> RunConfig {
        RunConfig {
            legacy_finite: Some(target_bound(caps)),
            ..Default::default()
        }
    }

    /// A square of an input (`x · x`, `x · x + c`, `dp3 v, v`), lowered on every target
    /// against the oracle (which clamps both factors), special values included. Where `B` is
    /// the type's largest finite value (f32 targets), the lower limit alone serves: one
    /// `FMax` and no `FClamp`; under the fp16 bound, values past 65504 are finite in f32, so
    /// the full clamp stays.
    #[test]
    fn squares_need_only_the_lower_limit_where_the_bound_is_the_types() {
        let square = |opcode: OpCode, t: &str, add: bool| {
            let add_decl = if add {
                format!("%3 = {t} DclInput %1 1 0\n")
            } else {
                String::new()
            };
            let add_load = if add {
                format!("%31 = {t} InputLoad %3 null\n")
            } else {
                String::new()
            };
            let result = if opcode == OpCode::FDotLegacy {
                "f32"
            } else {
                t
            };
            let extra = if add { " %31" } else { "" };
            let s = format!(
                "%1 = EntryPoint %20 Vertex\n%2 = {t} DclInput %1 0 0\n{add_decl}\
                 %9 = {result} DclOutput %1 0 0\n%20 = Function\n%21 = Label None\n\
                 %30 = {t} InputLoad %2 null\n{add_load}%40 = {result} {opcode} %30 %30{extra}\n\
                 %41 = OutputStore %9 null %40\n%42 = Return\n%43 = FunctionEnd\n"
            );
            text::parse(&s).unwrap_or_else(|e| panic!("{e}\n{s}"))
        };
        for caps in [TargetCaps::DEFAULT, test_profiles::AGAL_LIKE, FP16] {
            for (opcode, t, add) in [
                (OpCode::FMulLegacy, "f32", false),
                (OpCode::FMulLegacy, "f32x4", false),
                (OpCode::FMadLegacy, "f32", true),
                (OpCode::FDotLegacy, "f32x3", false),
            ] {
                let m = square(opcode, t, add);
                let lowered = lower(&m, caps.clone());
                let what = format!("square {opcode} {t} on {}", caps.name);
                check_same_under(&m, &lowered, &what, &oracle(&caps));
                let (clamps, maxes) = (
                    count(&lowered, OpCode::FClamp),
                    count(&lowered, OpCode::FMax),
                );
                if caps.fp16_arithmetic {
                    assert_eq!((clamps, maxes), (1, 0), "{what}");
                } else {
                    assert_eq!((clamps, maxes), (0, 1), "{what}");
                }
            }
        }
    }

    fn count(m: &Module, opcode: OpCode) -> usize {
        m.code().filter(|&d| m.opcode(d) == opcode).count()
    }

    const FP16: TargetCaps = TargetCaps {
        fp16_arithmetic: true,
        ..test_profiles::LIMA_LIKE
    };

    /// Every legacy op, scalar and vector, on scalar and vector machines, with the f32 and
    /// the fp16 bound: the lowered module computes what the oracle computes on the raw one,
    /// special values (zeros, infinities, NaN, values past the fp16 range) included.
    #[test]
    fn finite_mode_matches_its_oracle_on_every_target() {
        let caps = [
            TargetCaps::DEFAULT,
            test_profiles::LIMA_LIKE,
            test_profiles::AGAL_LIKE,
            FP16,
        ];
        for caps in caps {
            for (opcode, n) in [
                (OpCode::FMulLegacy, 2),
                (OpCode::FMadLegacy, 3),
                (OpCode::FPowLegacy, 2),
                (OpCode::FLog2Legacy, 1),
            ] {
                for (s, vec) in [(ScalarType::F32, 1), (ScalarType::F32, 4)] {
                    let m = float_fn_module(opcode, s, vec, n);
                    let what = format!("{opcode} {s}x{vec} on {}", caps.name);
                    check_same_under(&m, &lower(&m, caps.clone()), &what, &oracle(&caps));
                }
            }
            for (opcode, args) in [
                (OpCode::FDotLegacy, vec!["f32x3", "f32x3"]),
                (OpCode::FDotAddLegacy, vec!["f32x4", "f32x4", "f32"]),
            ] {
                let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
                let m = op_module(opcode, &args, "f32");
                let what = format!("{opcode} on {}", caps.name);
                check_same_under(&m, &lower(&m, caps.clone()), &what, &oracle(&caps));
            }
            let m = shared_factors();
            let what = format!("shared factors on {}", caps.name);
            check_same_under(&m, &lower(&m, caps.clone()), &what, &oracle(&caps));
        }
    }

    /// `v` (a vec4 input) in three products: `v.x · v.yzw` (a splat and a swizzle of `v`),
    /// `v · w` and `sat(w) · 2`, and `v.x · v.x`.
    fn shared_factors() -> Module {
        let s = "%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0
%3 = f32x4 DclInput %1 1 0
%4 = f32x3 DclOutput %1 0 0
%5 = f32x4 DclOutput %1 1 0
%6 = f32x4 DclOutput %1 2 0
%7 = f32 DclOutput %1 3 0
%8 = u32 Constant 0
%9 = u32 Constant 1
%10 = u32 Constant 2
%11 = u32 Constant 3
%12 = f32x4 Constant 0.0 0.0 0.0 0.0
%13 = f32x4 Constant 1.0 1.0 1.0 1.0
%14 = f32x4 Constant 2.0 2.0 2.0 2.0
%20 = Function
%21 = Label None
%22 = f32x4 InputLoad %2 null
%23 = f32x4 InputLoad %3 null
%24 = f32 CompositeExtract %22 %8
%25 = f32 CompositeExtract %22 %9
%26 = f32 CompositeExtract %22 %10
%27 = f32 CompositeExtract %22 %11
%28 = f32x3 CompositeConstruct %24 %24 %24
%29 = f32x3 CompositeConstruct %25 %26 %27
%30 = f32x3 FMulLegacy %28 %29
%31 = OutputStore %4 null %30
%32 = f32x4 FMulLegacy %22 %23
%33 = OutputStore %5 null %32
%34 = f32x4 FClamp %23 %12 %13
%35 = f32x4 FMulLegacy %34 %14
%36 = OutputStore %6 null %35
%37 = f32 FMulLegacy %24 %24
%38 = OutputStore %7 null %37
%39 = Return
%40 = FunctionEnd
";
        text::parse(s).unwrap_or_else(|e| panic!("{e}\n{s}"))
    }

    /// On a vector machine `v` is clamped once, whole, for all its products (the splat, the
    /// swizzle and the square read lanes of it), `w` once, and the saturated factor and the
    /// constant not at all: 2 clamps. On a scalar machine the splat and the swizzle are
    /// limited lane by lane (`v.x` once, shared with the square; `v.y`, `v.z`, `v.w`), and
    /// `v` and `w` whole: 6.
    #[test]
    fn each_value_is_limited_once() {
        let m = shared_factors();
        let vector = lower(&m, test_profiles::LIMA_LIKE);
        assert_eq!(
            count(&vector, OpCode::FClamp) - 1,
            2,
            "{}",
            text::print(&vector)
        );
        let scalar = TargetCaps {
            vectorize: false,
            ..test_profiles::LIMA_LIKE
        };
        let scalar = lower(&m, scalar);
        assert_eq!(
            count(&scalar, OpCode::FClamp) - 1,
            6,
            "{}",
            text::print(&scalar)
        );
    }

    /// `n = v.xyz · rsq(v.xyz · v.xyz)` (each operand built apart, as D3D9 readers build
    /// them), then `n · w.xyz` and `exp2(v.x · 4) · w.x`. On an fp16 machine the float facts
    /// know that a finite-mode normalized vector stays within ±512, so `n` is not limited for
    /// its product. The rsq of a sum of squares of limited factors and the exp2 of a product of
    /// limited factors are never NaN nor negative, so they need only the upper limit. The
    /// lowered modules compute what the oracle computes, special values included.
    #[test]
    fn normalized_vectors_and_exp2_need_less_limiting() {
        let s = "%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0
%3 = f32x4 DclInput %1 1 0
%4 = f32x3 DclOutput %1 0 0
%5 = f32 DclOutput %1 1 0
%8 = u32 Constant 0
%9 = u32 Constant 1
%10 = u32 Constant 2
%11 = f32 Constant 4.0
%20 = Function
%21 = Label None
%22 = f32x4 InputLoad %2 null
%23 = f32x4 InputLoad %3 null
%24 = f32 CompositeExtract %22 %8
%25 = f32 CompositeExtract %22 %9
%26 = f32 CompositeExtract %22 %10
%27 = f32x3 CompositeConstruct %24 %25 %26
%28 = f32 CompositeExtract %22 %8
%29 = f32 CompositeExtract %22 %9
%30 = f32 CompositeExtract %22 %10
%31 = f32x3 CompositeConstruct %28 %29 %30
%32 = f32 FDotLegacy %27 %31
%33 = f32 FRsq %32
%34 = f32x3 CompositeConstruct %33 %33 %33
%35 = f32x3 CompositeConstruct %28 %29 %30
%36 = f32x3 FMulLegacy %35 %34
%37 = f32 CompositeExtract %23 %8
%38 = f32 CompositeExtract %23 %9
%39 = f32 CompositeExtract %23 %10
%40 = f32x3 CompositeConstruct %37 %38 %39
%41 = f32x3 FMulLegacy %36 %40
%42 = OutputStore %4 null %41
%43 = f32 FMulLegacy %24 %11
%48 = f32 FExp2 %43
%44 = f32 FMulLegacy %48 %37
%45 = OutputStore %5 null %44
%46 = Return
%47 = FunctionEnd
";
        let m = text::parse(s).unwrap_or_else(|e| panic!("{e}\n{s}"));
        // Whether the printed module limits `x` with `opcode` (`%N = T FMin %x ...`).
        let limits_of = |printed: &str, opcode: OpCode, x: &str| {
            let op = format!(" {opcode} {x} ");
            printed.lines().any(|line| line.contains(&op))
        };
        for caps in [test_profiles::LIMA_LIKE, test_profiles::AGAL_LIKE, FP16] {
            let l = lower(&m, caps.clone());
            check_same_under(
                &m,
                &l,
                &format!("normalize on {}", caps.name),
                &oracle(&caps),
            );
            let printed = text::print(&l);
            // rsq and exp2 are limited by one FMin each on every target.
            for x in ["%33", "%48"] {
                assert!(limits_of(&printed, OpCode::FMin, x), "{x}: {printed}");
                assert!(!limits_of(&printed, OpCode::FClamp, x), "{x}: {printed}");
            }
            // The normalized vector is limited only where the bound is fp16's.
            let clamped = limits_of(&printed, OpCode::FClamp, "%36");
            assert_eq!(clamped, !caps.fp16_arithmetic, "{}: {printed}", caps.name);
        }
        // With an IEEE dot of a value that may be NaN (unclamped there), the rsq may be NaN,
        // which clamps to −B: no bound, the product is limited.
        let ieee_dot = s.replace("%32 = f32 FDotLegacy %27 %31", "%32 = f32 FDot %27 %31");
        let m = text::parse(&ieee_dot).unwrap_or_else(|e| panic!("{e}\n{ieee_dot}"));
        let l = lower(&m, FP16);
        check_same_under(&m, &l, "normalize by an IEEE dot", &oracle(&FP16));
        let printed = text::print(&l);
        assert!(limits_of(&printed, OpCode::FClamp, "%36"), "{printed}");
    }

    /// A value times itself is the same product under the D3D9 and the IEEE rules (a zero
    /// factor meets only zero; inf and NaN only themselves): squares, `dp4 r, v, v`,
    /// `mad r, v, v, v` and `dp2 r, v.xy, v.xy` (two swizzles built apart, as D3D9 readers
    /// build each source operand) get no guards in `exact` mode. The `finite` mode still
    /// limits them (its oracle limits every factor). Both lowered modules compute what their
    /// mode's oracle computes, special values included.
    #[test]
    fn squares_need_no_guard() {
        let s = "%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0
%4 = f32 DclOutput %1 0 0
%5 = f32 DclOutput %1 1 0
%6 = f32x4 DclOutput %1 2 0
%7 = f32 DclOutput %1 3 0
%8 = u32 Constant 0
%9 = u32 Constant 1
%20 = Function
%21 = Label None
%22 = f32x4 InputLoad %2 null
%23 = f32 CompositeExtract %22 %8
%24 = f32 FMulLegacy %23 %23
%25 = OutputStore %4 null %24
%26 = f32 FDotLegacy %22 %22
%27 = OutputStore %5 null %26
%28 = f32x4 FMadLegacy %22 %22 %22
%29 = OutputStore %6 null %28
%32 = f32 CompositeExtract %22 %9
%33 = f32x2 CompositeConstruct %23 %32
%34 = f32 CompositeExtract %22 %9
%35 = f32x2 CompositeConstruct %23 %34
%36 = f32 FDotLegacy %33 %35
%37 = OutputStore %7 null %36
%30 = Return
%31 = FunctionEnd
";
        let m = text::parse(s).unwrap_or_else(|e| panic!("{e}\n{s}"));
        for caps in [test_profiles::LIMA_LIKE, test_profiles::AGAL_LIKE, FP16] {
            let finite = lower(&m, caps.clone());
            assert!(
                count(&finite, OpCode::FClamp) > 0,
                "{}",
                text::print(&finite)
            );
            check_same_under(&m, &finite, "squares, finite", &oracle(&caps));
            let exact_cx = PassContext {
                caps: caps.clone(),
                ..Default::default()
            };
            let exact = lowered(&m, &exact_cx);
            assert_eq!(count(&exact, OpCode::Select), 0, "{}", text::print(&exact));
            check_same_under(&m, &exact, "squares, exact", &RunConfig::default());
        }
    }

    /// Undefined values are declarations, with no place in the code right after them: a
    /// vector built from one, or a swizzle of an undefined vector, is clamped whole after its
    /// own definition, never through a piece clamped later than the vector is built.
    #[test]
    fn undefined_pieces_are_clamped_in_order() {
        let s = "%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%3 = f32x2 DclInput %1 1 0
%4 = f32x2 DclOutput %1 0 0
%5 = f32 DclOutput %1 1 0
%6 = f32 Undef
%7 = f32x4 Undef
%8 = u32 Constant 1
%20 = Function
%21 = Label None
%22 = f32 InputLoad %2 null
%23 = f32x2 InputLoad %3 null
%24 = f32x2 CompositeConstruct %22 %6
%25 = f32x2 FMulLegacy %24 %23
%26 = OutputStore %4 null %25
%27 = f32 CompositeExtract %7 %8
%28 = f32 FMulLegacy %27 %22
%29 = OutputStore %5 null %28
%30 = Return
%31 = FunctionEnd
";
        let m = text::parse(s).unwrap_or_else(|e| panic!("{e}\n{s}"));
        for caps in [test_profiles::LIMA_LIKE, test_profiles::AGAL_LIKE] {
            let scalar = TargetCaps {
                vectorize: false,
                ..caps.clone()
            };
            for caps in [caps, scalar] {
                let what = format!("undefined pieces on {}", caps.name);
                check_same_under(&m, &lower(&m, caps.clone()), &what, &oracle(&caps));
            }
        }
    }

    /// The bound is the fp16 maximum on fp16 machines, the type's maximum elsewhere.
    #[test]
    fn bound_follows_the_arithmetic() {
        assert_eq!(target_bound(&FP16), 65504.0);
        assert_eq!(target_bound(&test_profiles::LIMA_LIKE), f64::INFINITY);
        let m = float_fn_module(OpCode::FMulLegacy, ScalarType::F32, 1, 2);
        let printed = text::print(&lower(&m, FP16));
        assert!(printed.contains("65504.0"), "{printed}");
        let printed = text::print(&lower(&m, TargetCaps::DEFAULT));
        assert!(printed.contains("3.4028235e38"), "{printed}");
    }
}
