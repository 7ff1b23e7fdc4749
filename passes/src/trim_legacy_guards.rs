//! `trim-legacy-guards`: D3D9 legacy multiplies whose zero guards [`crate::float_facts`] proves
//! unnecessary become IEEE ops, exactly (bit for bit, signed zeros included).
//!
//! `lower-legacy` computes `FMulLegacy(a, b)` as `a' · b'` with the two guards
//! `a' = (b == 0 ? +0 : a)` and `b' = (a == 0 ? +0 : b)`, per component. On targets whose select
//! takes one scalar condition (the Mali-400 PP) every guarded vector lane costs a compare and a
//! select, so the guards dominate D3D9 code. A guard is the identity whenever
//!
//! - the other operand is **never zero** (the select never fires), or
//! - its own operand is **finite with a clear sign bit** (`+0 … MAX`): when the other operand is
//!   ±0 the product of that zero with `a` equals the product with `+0` (`a · ±0 = +0 · ±0`,
//!   sign of the zero included, because `a` is neither inf, NaN nor negative), or
//! - both operands are **the same value** (`x · x`: `±0 · ±0 = +0` like the guarded form,
//!   `inf · inf`, `NaN · NaN` like it too).
//!
//! The conditions are per lane and independent for the two guards (with `b == 0` the guarded
//! `b'` is ±0 either way, which is all the second condition uses). So this pass, which runs
//! right before `lower-legacy`, rewrites `FMulLegacy`/`FMadLegacy`/`FDotLegacy`/
//! `FDotAddLegacy`/`FPowLegacy` into `FMul`/`FMad`/`FDot`/`FDotAdd`/`FExp2(FMul(b, FLog2(a)))`
//! whose operands carry a guard only on the lanes that need one (a vector select when every lane
//! does, else per-lane selects); ops where no guard can go are left to `lower-legacy`. Legacy dot
//! products with guarded operands are the IEEE dot products of the guarded vectors, which is how
//! `lower-dot` expands them too.
//!
//! Typical wins: multiplies by positive `def` constants (`mul r0, r1, c0` with `c0 = 2.0`),
//! squares and `dp3 r0, r1, r1`, products with saturated, `fract`, `exp2` or clamped values.
//! Nothing is done under `legacy_mul_ieee` (no guards there) or when the target multiplies the
//! legacy way natively.

use crate::caps::PassContext;
use crate::float_facts::{analyze_cone, FloatFacts};
use crate::lower_legacy::{bool_type, float_const, scalar_of};
use crate::PassError;
use irc_ir::format::{Arith, Dot};
use irc_ir::{Attrs, Module, Op, OpCode, SsaDef, Type};
use smallvec::SmallVec;

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    // Every op it trims is of the opcode table's legacy class.
    if cx.ieee_products()
        || cx.legacy_mul_finite
        || cx.caps.is_native(OpCode::FMulLegacy)
        || !m.contains_where(|op| op.is(Attrs::LEGACY) && !cx.caps.is_native(op))
    {
        return Ok(false);
    }
    let work: Vec<SsaDef> = m
        .code()
        .filter(|&d| {
            let op = m.opcode(d);
            matches!(
                op,
                OpCode::FMulLegacy
                    | OpCode::FMadLegacy
                    | OpCode::FDotLegacy
                    | OpCode::FDotAddLegacy
                    | OpCode::FPowLegacy
            ) && !cx.caps.is_native(op)
        })
        .collect();
    if work.is_empty() {
        return Ok(false);
    }
    // Only the legacy ops' operands are asked about.
    let facts = analyze_cone(m, work.iter().flat_map(|&d| m.op(d).ref_defs()));
    let mut changed = false;
    for d in work {
        changed |= trim(m, &facts, d);
    }
    Ok(changed)
}

/// Which lanes of each operand need their guard.
type Need = SmallVec<[bool; 4]>;

/// Per lane: does `x`'s guard (`other == 0 ? +0 : x`) change anything?
fn need(facts: &FloatFacts, x: SsaDef, other: SsaDef, lanes: usize) -> Need {
    (0..lanes)
        .map(|i| {
            x != other && !facts.get(other, i).never_zero() && !facts.get(x, i).finite_sign_clear()
        })
        .collect()
}

fn trim(m: &mut Module, facts: &FloatFacts, d: SsaDef) -> bool {
    let op = m.op(d).clone();
    let (a, b) = match op.opcode {
        OpCode::FDotLegacy | OpCode::FDotAddLegacy => {
            let dot = Dot::of(&op);
            (dot.a(), dot.b())
        }
        _ => {
            let ar = Arith::of(&op);
            (ar.a(), ar.b())
        }
    };
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let vty = m.ty(a).clone();
    let lanes = vty.as_basic().map_or(1, |t| t.vec_size() as usize);
    if op.opcode == OpCode::FPowLegacy {
        return trim_pow(m, facts, d, a, b, &op);
    }
    let (na, nb) = (need(facts, a, b, lanes), need(facts, b, a, lanes));
    if na.iter().chain(&nb).all(|&n| n) {
        return false;
    }
    let a2 = guard(m, d, a, b, &na, &vty);
    let b2 = guard(m, d, b, a, &nb, &vty);
    let opcode = match op.opcode {
        OpCode::FMulLegacy => OpCode::FMul,
        OpCode::FMadLegacy => OpCode::FMad,
        OpCode::FDotLegacy => OpCode::FDot,
        _ => OpCode::FDotAdd,
    };
    let mut new = Op::new(opcode, op.ty.clone())
        .arg(a2)
        .arg(b2)
        .with_flags(op.flags);
    let addend = match opcode {
        OpCode::FMad => Arith::of(&op).c(),
        OpCode::FDotAdd => Dot::of(&op).add(),
        _ => None,
    };
    if let Some(c) = addend {
        new = new.arg(c);
    }
    m.rewrite(d, new);
    true
}

/// `FPowLegacy(a, b) = exp2(FMulLegacy(b, log2 a))`.
fn trim_pow(m: &mut Module, facts: &FloatFacts, d: SsaDef, a: SsaDef, b: SsaDef, op: &Op) -> bool {
    let ty = op.ty.clone();
    let lanes = ty.as_basic().map_or(1, |t| t.vec_size() as usize);
    // The log is not analysed before it exists: its guard goes only when b is never zero;
    // b's guard only when b is finite and sign-clear.
    let nl: Need = (0..lanes).map(|i| !facts.get(b, i).never_zero()).collect();
    let nb: Need = (0..lanes)
        .map(|i| !facts.get(b, i).finite_sign_clear())
        .collect();
    if nl.iter().chain(&nb).all(|&n| n) {
        return false;
    }
    let l = m.insert_before(
        d,
        Op::new(OpCode::FLog2, ty.clone())
            .arg(a)
            .with_flags(op.flags),
    );
    let b2 = guard(m, d, b, l, &nb, &ty);
    let l2 = guard(m, d, l, b, &nl, &ty);
    let p = m.insert_before(
        d,
        Op::new(OpCode::FMul, ty.clone())
            .arg(b2)
            .arg(l2)
            .with_flags(op.flags),
    );
    m.rewrite(d, Op::new(OpCode::FExp2, ty).arg(p).with_flags(op.flags));
    true
}

/// `other == 0 ? +0 : x` on the lanes in `need`, `x` elsewhere, inserted before `at`.
fn guard(m: &mut Module, at: SsaDef, x: SsaDef, other: SsaDef, need: &Need, ty: &Type) -> SsaDef {
    if !need.iter().any(|&n| n) {
        return x;
    }
    if need.iter().all(|&n| n) {
        return select_zero(m, at, x, other, ty);
    }
    let sty = Type::scalar(scalar_of(ty));
    let mut members = Vec::with_capacity(need.len());
    for (i, &n) in need.iter().enumerate() {
        let xi = extract(m, at, x, i, &sty);
        members.push(if n {
            let oi = extract(m, at, other, i, &sty);
            select_zero(m, at, xi, oi, &sty)
        } else {
            xi
        });
    }
    let mut c = Op::new(OpCode::CompositeConstruct, ty.clone());
    for v in members {
        c = c.arg(v);
    }
    m.insert_before(at, c)
}

fn select_zero(m: &mut Module, at: SsaDef, x: SsaDef, other: SsaDef, ty: &Type) -> SsaDef {
    let zero = float_const(m, ty, 0.0);
    let is_zero = m.insert_before(at, Op::new(OpCode::FEq, bool_type(ty)).arg(other).arg(zero));
    m.insert_before(
        at,
        Op::new(OpCode::Select, ty.clone())
            .arg(is_zero)
            .arg(zero)
            .arg(x),
    )
}

fn extract(m: &mut Module, at: SsaDef, v: SsaDef, i: usize, sty: &Type) -> SsaDef {
    let index = m.add(Op::new(OpCode::Constant, irc_ir::ScalarType::U32).lit(i as u64));
    m.insert_before(
        at,
        Op::new(OpCode::CompositeExtract, sty.clone())
            .arg(v)
            .arg(index),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower_legacy::test_util::{check_same, op_module};
    use irc_ir::text;

    fn cx() -> PassContext {
        PassContext {
            caps: crate::caps::test_profiles::LIMA_LIKE,
            ..Default::default()
        }
    }

    /// Lowers `src` with and without this pass and checks both against the original on
    /// special values (zeros of both signs, infinities, NaN, fp16 overflow); returns the
    /// number of selects left with the pass.
    fn selects_after(src: &str) -> usize {
        let m = text::parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let mut t = m.clone();
        run(&mut t, &cx()).unwrap();
        crate::lower_legacy::run(&mut t, &cx()).unwrap();
        crate::lower_dot::run(&mut t, &cx()).unwrap();
        check_same(&m, &t, src);
        t.code().filter(|&d| t.opcode(d) == OpCode::Select).count()
    }

    fn module(body: &str, ty: &str) -> String {
        format!(
            "%1 = EntryPoint %20 Vertex\n\
             %2 = {ty} DclInput %1 0 0\n\
             %3 = {ty} DclInput %1 1 0\n\
             %9 = {ty} DclOutput %1 0 0\n\
             %10 = f32 Constant 2.0\n\
             %11 = f32 Constant -2.0\n\
             %12 = f32 Constant 0.0\n\
             %13 = f32 Constant 1.0\n\
             %20 = Function\n%21 = Label None\n\
             %30 = {ty} InputLoad %2 null\n\
             %31 = {ty} InputLoad %3 null\n\
             {body}\
             %41 = OutputStore %9 null %40\n%42 = Return\n%43 = FunctionEnd\n"
        )
    }

    #[test]
    fn positive_constant_needs_no_guard() {
        let n = selects_after(&module("%40 = f32 FMulLegacy %30 %10\n", "f32"));
        assert_eq!(n, 0);
    }

    #[test]
    fn negative_constant_keeps_one_guard() {
        // x · −2: x's guard goes (−2 is never zero), −2's guard stays (sign of x · ±0).
        let n = selects_after(&module("%40 = f32 FMulLegacy %30 %11\n", "f32"));
        assert_eq!(n, 1);
    }

    #[test]
    fn squares_and_saturated_operands() {
        assert_eq!(
            selects_after(&module("%40 = f32 FMulLegacy %30 %30\n", "f32")),
            0
        );
        // sat(x) · y: sat's guard goes, y's stays.
        let body = "%35 = f32 FClamp %30 %12 %13\n%40 = f32 FMulLegacy %35 %31\n";
        assert_eq!(selects_after(&module(body, "f32")), 1);
        let body = "%35 = f32 FClamp %30 %12 %13\n%40 = f32 FMadLegacy %31 %35 %30\n";
        assert_eq!(selects_after(&module(body, "f32")), 1);
    }

    #[test]
    fn dot_of_a_vector_with_itself_and_partial_lanes() {
        let m = module("%40 = f32 FDotLegacy %30 %30\n", "f32x3")
            .replace("%9 = f32x3 DclOutput", "%9 = f32 DclOutput");
        assert_eq!(selects_after(&m), 0);
        // (x, y) · (2, z): lane 0 needs no guard, lane 1 needs both.
        let body = "%36 = f32 CompositeExtract %31 %14\n\
                    %37 = f32x2 CompositeConstruct %10 %36\n\
                    %40 = f32 FDotLegacy %30 %37\n";
        let m = module(body, "f32x2")
            .replace("%9 = f32x2 DclOutput", "%9 = f32 DclOutput")
            .replace("%20 = Function", "%14 = u32 Constant 1\n%20 = Function");
        assert_eq!(selects_after(&m), 2);
    }

    #[test]
    fn pow_by_positive_constant_is_plain() {
        assert_eq!(
            selects_after(&module("%40 = f32 FPowLegacy %30 %10\n", "f32")),
            0
        );
        // Unknown exponent: left to lower-legacy.
        let src = module("%40 = f32 FPowLegacy %30 %31\n", "f32");
        let mut t = text::parse(&src).unwrap();
        assert!(!run(&mut t, &cx()).unwrap());
    }

    #[test]
    fn unknown_operands_are_left_alone() {
        let src = module("%40 = f32 FMulLegacy %30 %31\n", "f32");
        let mut t = text::parse(&src).unwrap();
        assert!(!run(&mut t, &cx()).unwrap());
        let _ = op_module;
    }
}
