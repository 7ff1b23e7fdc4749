//! `lower-legacy`: D3D9 legacy float ops → IEEE ops, inline, unless the target has them.
//!
//! SM1–3 shaders use multiplies in which zero wins: `FMulLegacy(a, b)` is ±0 whenever either
//! operand is ±0, even when the other is inf or NaN (reference §B.6). dxbc-spirv lowers these
//! ops to calls of generated helper functions; our targets have no calls, so this pass expands
//! each op in place, before the op, and rewrites the op itself into the final IEEE op (its id,
//! uses and flags stay). Ops the target executes natively (`cx.caps.is_native`) are left alone.
//!
//! - `FMulLegacy(a, b)` → `a' = Select(FEq(b, 0), 0, a)`, `b' = Select(FEq(a, 0), 0, b)`,
//!   `FMul(a', b')`. Per component for vectors (vector `FEq`/`Select`). This is the select
//!   pattern dxbc-spirv generates, and so also the sign rule the interpreter defines
//!   (`0 · inf = +0 · +0 = +0`, `−0 · 5 = −0 · +0 = −0`, `5 · −0 = +0 · −0 = −0`).
//! - `FMadLegacy(a, b, c)` → the same selects and `FMad(a', b', c)` (unfused in our semantics,
//!   like the legacy mad).
//! - `FPowLegacy(a, b)` → `l = FLog2(a)`, `p = FMulLegacy(b, l)` (itself lowered unless native),
//!   `FExp2(p)` — no abs on the base, as in D3D9 and dxbc-spirv.
//! - `FLog2Legacy(a)` → `l = FLog2(FAbs(a))`, `Select(FNe(FAbs(a), 0), l, −MAX)`; `FNe` is
//!   unordered, so NaN propagates; −MAX is the lowest finite value of the type.
//!
//! Every step computes and rounds exactly like the op it replaces (one rounding per IEEE op,
//! in the interpreter's order), so `Precise` ops stay exact; the original flags go on the
//! arithmetic ops of the expansion. The helpers here are shared with `lower-dot`.
//!
//! **Clamp mode.** With [`PassContext::legacy_mul_clamp`] the products are lowered as under
//! `legacy_mul_ieee`, and the `FRcp`/`FRsq`/`FExp2` results of D3D9 shaders are limited to the
//! largest finite value first: DXVK's default float emulation ([`crate::legacy_clamp`]).
//!
//! **Finite mode** (the targets' default). With [`PassContext::legacy_mul_finite`] the
//! products (and the legacy dot products, whole) become IEEE ops on factors limited to the
//! finite range, one clamp per value ([`crate::legacy_finite`]): `0 · x = 0` still holds for
//! every `x`, at a vector min/max per value instead of a compare and select per lane.
//!
//! **Exact, or IEEE on request.** Without a mode flag the select pattern above is exact. With
//! [`PassContext::legacy_mul_ieee`] set (the driver's `LegacyMul::Ieee`), the zero rule is
//! dropped: `FMulLegacy` becomes a plain `FMul`,
//! `FMadLegacy` a plain `FMad`, the multiply inside `FPowLegacy` an `FMul`, and the legacy dot
//! products `FDotLegacy`/`FDotAddLegacy` become `FDot`/`FDotAdd` (same operands, same rounded
//! chain), which `lower-dot` then keeps or expands as the target needs. The result differs from
//! the exact one only when one factor is ±0 and the other inf or NaN (`0 · inf` is NaN instead
//! of 0) — rare in practice, but it happens on fp16 hardware where large values overflow to
//! inf, hence the finite default. Ops the target executes natively stay native either way (they
//! are exact and free).

use crate::caps::PassContext;
use crate::legacy_finite::{self, Limiter};
use crate::PassError;
use irc_ir::analysis::same_value::{same_value, SAME_VALUE_DEPTH};
use irc_ir::format::{Arith, Dot};
use irc_ir::{Attrs, Module, Op, OpCode, OpFlags, ScalarType, SsaDef, Type};

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    // Every op it lowers is of the opcode table's legacy class.
    if !cx.legacy_mul_clamp
        && !m.contains_where(|op| op.is(Attrs::LEGACY) && !cx.caps.is_native(op))
    {
        return Ok(false);
    }
    let clamped = cx.legacy_mul_clamp && crate::legacy_clamp::clamp_results(m, cx);
    let work: Vec<SsaDef> = m
        .code()
        .filter(|&d| {
            let op = m.opcode(d);
            let dot = matches!(op, OpCode::FDotLegacy | OpCode::FDotAddLegacy);
            (matches!(
                op,
                OpCode::FMulLegacy | OpCode::FMadLegacy | OpCode::FPowLegacy | OpCode::FLog2Legacy
            ) || (dot && (cx.ieee_products() || cx.legacy_mul_finite)))
                && !cx.caps.is_native(op)
        })
        .collect();
    let mut limiter =
        (cx.legacy_mul_finite && !work.is_empty()).then(|| legacy_finite::Limiter::new(m, cx));
    for &d in &work {
        lower(m, cx, limiter.as_mut(), d)?;
    }
    Ok(clamped || !work.is_empty())
}

fn lower(
    m: &mut Module,
    cx: &PassContext,
    mut limiter: Option<&mut Limiter>,
    d: SsaDef,
) -> Result<(), PassError> {
    let op = m.op(d).clone();
    let ty = op.ty.clone();
    let operands = Arith::of(&op);
    let arg = |a: Option<SsaDef>| {
        a.ok_or_else(|| PassError::Internal {
            pass: "lower-legacy",
            op: d,
            opcode: op.opcode,
            reason: "an operand is missing".into(),
        })
    };
    let flags = op.flags;
    match op.opcode {
        OpCode::FMulLegacy | OpCode::FMadLegacy if cx.ieee_products() => {
            let mut ieee = op.clone();
            ieee.opcode = if op.opcode == OpCode::FMulLegacy {
                OpCode::FMul
            } else {
                OpCode::FMad
            };
            m.rewrite(d, ieee);
        }
        OpCode::FDotLegacy | OpCode::FDotAddLegacy => {
            let mut ieee = op.clone();
            ieee.opcode = if op.opcode == OpCode::FDotLegacy {
                OpCode::FDot
            } else {
                OpCode::FDotAdd
            };
            if cx.legacy_mul_finite {
                let dot = Dot::of(&op);
                let (a, b) = (arg(dot.a())?, arg(dot.b())?);
                let vty = m.ty(a).clone();
                let (a2, b2) = product_operands(m, cx, limiter, d, a, b, &vty);
                let mut limited = Op::new(ieee.opcode, ty).arg(a2).arg(b2).with_flags(flags);
                if let Some(c) = dot.add() {
                    limited = limited.arg(c);
                }
                ieee = limited;
            }
            m.rewrite(d, ieee);
        }
        OpCode::FMulLegacy => {
            let (a, b) = (arg(operands.a())?, arg(operands.b())?);
            let (a2, b2) = product_operands(m, cx, limiter.as_deref_mut(), d, a, b, &ty);
            if let Some(l) = limiter {
                l.note_product(m, d, [a, b, a2, b2]);
            }
            m.rewrite(
                d,
                Op::new(OpCode::FMul, ty).arg(a2).arg(b2).with_flags(flags),
            );
        }
        OpCode::FMadLegacy => {
            let (a, b) = (arg(operands.a())?, arg(operands.b())?);
            let (a, b) = product_operands(m, cx, limiter, d, a, b, &ty);
            m.rewrite(
                d,
                Op::new(OpCode::FMad, ty)
                    .arg(a)
                    .arg(b)
                    .arg(arg(operands.c())?)
                    .with_flags(flags),
            );
        }
        OpCode::FPowLegacy => {
            let (a, b) = (arg(operands.a())?, arg(operands.b())?);
            let l = m.insert_before(
                d,
                Op::new(OpCode::FLog2, ty.clone()).arg(a).with_flags(flags),
            );
            let p = mul_legacy(m, cx, limiter, d, [b, l], &ty, flags);
            m.rewrite(d, Op::new(OpCode::FExp2, ty).arg(p).with_flags(flags));
        }
        OpCode::FLog2Legacy => {
            let a = arg(operands.a())?;
            let abs = m.insert_before(d, Op::new(OpCode::FAbs, ty.clone()).arg(a));
            let l = m.insert_before(
                d,
                Op::new(OpCode::FLog2, ty.clone())
                    .arg(abs)
                    .with_flags(flags),
            );
            let zero = float_const(m, &ty, 0.0);
            let nz = m.insert_before(d, Op::new(OpCode::FNe, bool_type(&ty)).arg(abs).arg(zero));
            let lowest = lowest_finite(m, &ty);
            m.rewrite(d, Op::new(OpCode::Select, ty).arg(nz).arg(l).arg(lowest));
        }
        _ => {}
    }
    Ok(())
}

/// Emits `FMulLegacy(a, b)` of type `ty` before `at`: the native op if the target has it, else
/// an `FMul` of the factors [`product_operands`] gives in the mode of `cx` (with `limiter`,
/// finite-mode clamps are shared with the module's other products). Returns the product.
pub(crate) fn mul_legacy(
    m: &mut Module,
    cx: &PassContext,
    limiter: Option<&mut Limiter>,
    at: SsaDef,
    [a, b]: [SsaDef; 2],
    ty: &Type,
    flags: OpFlags,
) -> SsaDef {
    if cx.caps.is_native(OpCode::FMulLegacy) {
        return m.insert_before(
            at,
            Op::new(OpCode::FMulLegacy, ty.clone())
                .arg(a)
                .arg(b)
                .with_flags(flags),
        );
    }
    let (a, b) = product_operands(m, cx, limiter, at, a, b, ty);
    m.insert_before(
        at,
        Op::new(OpCode::FMul, ty.clone())
            .arg(a)
            .arg(b)
            .with_flags(flags),
    )
}

/// Emits `FMadLegacy(a, b, c)` of type `ty` before `at` (native op, plain `FMad` under
/// [`PassContext::legacy_mul_ieee`], or selects + `FMad`).
pub(crate) fn mad_legacy(
    m: &mut Module,
    cx: &PassContext,
    at: SsaDef,
    abc: [SsaDef; 3],
    ty: &Type,
    flags: OpFlags,
) -> SsaDef {
    let [a, b, c] = abc;
    if cx.caps.is_native(OpCode::FMadLegacy) {
        return m.insert_before(
            at,
            Op::new(OpCode::FMadLegacy, ty.clone())
                .arg(a)
                .arg(b)
                .arg(c)
                .with_flags(flags),
        );
    }
    let (a, b) = product_operands(m, cx, None, at, a, b, ty);
    m.insert_before(
        at,
        Op::new(OpCode::FMad, ty.clone())
            .arg(a)
            .arg(b)
            .arg(c)
            .with_flags(flags),
    )
}

/// The operands of an IEEE multiply that gives the legacy product of `a` and `b` in the
/// mode of `cx`, inserted before `at`: `a` and `b` themselves (`ieee`, `clamp`, and a value
/// times itself in `exact` mode: `x · x` is the same under the D3D9 and the IEEE rules — a
/// zero factor meets only zero, and inf or NaN only itself — so squares and `dp3 r, x, x`
/// need no guard; see [`irc_ir::analysis::same_value`]), factors limited to the finite range
/// (`finite`; once per value with a `limiter`), or the exact select pattern.
///
/// The `finite` mode limits squares too: its oracle limits every factor of the raw program,
/// where a square whose two factors became one value only through a register copy is not
/// visible, and there an unlimited NaN or an fp16 overflow would give another result. Where
/// the bound is the type's largest finite value, a square takes the lower limit alone, which
/// gives the same result ([`Limiter::limit_square`]).
///
/// [`Limiter::limit_square`]: crate::legacy_finite::Limiter::limit_square
pub(crate) fn product_operands(
    m: &mut Module,
    cx: &PassContext,
    limiter: Option<&mut Limiter>,
    at: SsaDef,
    a: SsaDef,
    b: SsaDef,
    ty: &Type,
) -> (SsaDef, SsaDef) {
    let exact = !cx.legacy_mul_finite;
    if cx.ieee_products() || (exact && same_value(m, a, b, SAME_VALUE_DEPTH)) {
        (a, b)
    } else if cx.legacy_mul_finite {
        legacy_finite::factors(m, cx, limiter, at, a, b)
    } else {
        legacy_operands(m, at, a, b, ty)
    }
}

/// The operands of an IEEE multiply that gives the legacy product of `a` and `b`:
/// `(b == 0 ? 0 : a, a == 0 ? 0 : b)`, per component, inserted before `at`.
pub(crate) fn legacy_operands(
    m: &mut Module,
    at: SsaDef,
    a: SsaDef,
    b: SsaDef,
    ty: &Type,
) -> (SsaDef, SsaDef) {
    let zero = float_const(m, ty, 0.0);
    let bt = bool_type(ty);
    let a_zero = m.insert_before(at, Op::new(OpCode::FEq, bt.clone()).arg(a).arg(zero));
    let b_zero = m.insert_before(at, Op::new(OpCode::FEq, bt).arg(b).arg(zero));
    let a2 = m.insert_before(
        at,
        Op::new(OpCode::Select, ty.clone())
            .arg(b_zero)
            .arg(zero)
            .arg(a),
    );
    let b2 = m.insert_before(
        at,
        Op::new(OpCode::Select, ty.clone())
            .arg(a_zero)
            .arg(zero)
            .arg(b),
    );
    (a2, b2)
}

/// The bool scalar or vector with the vector size of `ty`.
pub(crate) fn bool_type(ty: &Type) -> Type {
    match ty.as_basic().map_or(1, |b| b.vec_size()) {
        1 => Type::scalar(ScalarType::Bool),
        n => Type::vector(ScalarType::Bool, n),
    }
}

/// The scalar type of a scalar or vector type (Unknown for anything else).
pub(crate) fn scalar_of(ty: &Type) -> ScalarType {
    ty.as_basic()
        .map_or(ScalarType::Unknown, |b| b.scalar_type())
}

/// The literal of float value `v` (exactly representable in every float type: 0, ±MAX of the
/// type) for a constant of scalar type `s`. Min-precision float constants hold f32 bits
/// (reference §A.7); Unknown counts as f32, as in the interpreter.
fn float_literal(s: ScalarType, v: f64) -> u64 {
    match s {
        ScalarType::F16 => f64_to_f16_bits(v) as u64,
        ScalarType::F64 => v.to_bits(),
        _ => (v as f32).to_bits() as u64,
    }
}

/// f16 bits of `v`, which must be zero or an exactly representable value.
fn f64_to_f16_bits(v: f64) -> u16 {
    if v == 0.0 {
        return if v.is_sign_negative() { 0x8000 } else { 0 };
    }
    let sign = if v < 0.0 { 0x8000 } else { 0 };
    let a = v.abs();
    if a == F16_MAX {
        return sign | 0x7bff;
    }
    // Normal values only (callers pass 0 and ±MAX).
    let e = a.log2().floor() as i32;
    let mant = ((a / 2f64.powi(e) - 1.0) * 1024.0).round() as u16;
    sign | (((e + 15) as u16) << 10) | mant
}

/// The largest finite f16 value.
pub(crate) const F16_MAX: f64 = 65504.0;

/// A constant of float type `ty` (scalar or vector) with every component `v`.
pub(crate) fn float_const(m: &mut Module, ty: &Type, v: f64) -> SsaDef {
    let s = scalar_of(ty);
    let n = ty.as_basic().map_or(1, |b| b.vec_size());
    let mut op = Op::new(OpCode::Constant, ty.clone());
    for _ in 0..n {
        op = op.lit(float_literal(s, v));
    }
    m.add(op)
}

/// The largest finite value of float type `s` (min-precision floats evaluate as f16).
pub(crate) fn max_finite(s: ScalarType) -> f64 {
    match s {
        ScalarType::F16 | ScalarType::MinF16 | ScalarType::MinF10 => F16_MAX,
        ScalarType::F64 => f64::MAX,
        _ => f32::MAX as f64,
    }
}

/// `−MAX` of float type `ty`, the value `FLog2Legacy(0)` gives.
fn lowest_finite(m: &mut Module, ty: &Type) -> SsaDef {
    let v = -max_finite(scalar_of(ty));
    float_const(m, ty, v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::TargetCaps;
    use irc_interp::{InvocationInputs, IoSlot, RunConfig, ShaderInputs, Value};
    use irc_ir::verifier;
    use test_util::{check_same, float_fn_module, op_module};

    fn cx(caps: TargetCaps) -> PassContext {
        PassContext {
            caps,
            ..Default::default()
        }
    }

    #[test]
    fn f16_bits() {
        assert_eq!(f64_to_f16_bits(0.0), 0);
        assert_eq!(f64_to_f16_bits(-65504.0), 0xfbff);
        assert_eq!(f64_to_f16_bits(65504.0), 0x7bff);
        assert_eq!(f64_to_f16_bits(1.0), 0x3c00);
    }

    #[test]
    fn legacy_ops_match_interpreter_on_every_target() {
        for caps in [
            TargetCaps::DEFAULT,
            crate::caps::test_profiles::PICA_LIKE,
            crate::caps::test_profiles::LIMA_LIKE,
            crate::caps::test_profiles::AGAL_LIKE,
        ] {
            for (opcode, n) in [
                (OpCode::FMulLegacy, 2),
                (OpCode::FMadLegacy, 3),
                (OpCode::FPowLegacy, 2),
                (OpCode::FLog2Legacy, 1),
            ] {
                for (s, vec) in [
                    (ScalarType::F32, 1),
                    (ScalarType::F32, 4),
                    (ScalarType::F16, 3),
                    (ScalarType::MinF16, 2),
                ] {
                    let m = float_fn_module(opcode, s, vec, n);
                    let mut lowered = m.clone();
                    run(&mut lowered, &cx(caps.clone())).unwrap();
                    let left = lowered.code().any(|d| lowered.opcode(d) == opcode);
                    assert_eq!(left, caps.is_native(opcode), "{opcode} on {}", caps.name);
                    check_same(
                        &m,
                        &lowered,
                        &format!("{opcode} {s}x{vec} on {}", caps.name),
                    );
                }
            }
        }
    }

    /// Runs `m` (a vertex shader from `op_module`) with inputs `v0, v1, …` and returns `o0`.
    fn output(m: &Module, inputs: &[Value]) -> Value {
        let mut inv = InvocationInputs::default();
        for (i, v) in inputs.iter().enumerate() {
            inv.io.insert(
                IoSlot::Location {
                    location: i as u32,
                    component: 0,
                },
                v.clone(),
            );
        }
        let inputs = ShaderInputs {
            invocations: vec![inv],
            ..Default::default()
        };
        let out = irc_interp::run(m, &inputs, &RunConfig::default()).expect("run");
        out.invocations[0].io[&IoSlot::Location {
            location: 0,
            component: 0,
        }]
            .clone()
    }

    /// `0 · inf`: the exact lowering keeps D3D9's 0, `legacy_mul_ieee` gives IEEE's NaN (and
    /// no selects); on finite inputs both agree with the legacy op.
    #[test]
    fn ieee_option_differs_only_for_zero_times_inf() {
        let inf = f32::INFINITY;
        // (op, operand types, result type, inputs with 0 · inf, finite inputs)
        type Case = (
            OpCode,
            &'static [&'static str],
            &'static str,
            Vec<Value>,
            Vec<Value>,
        );
        let cases: [Case; 4] = [
            (
                OpCode::FMulLegacy,
                &["f32", "f32"],
                "f32",
                vec![Value::f32(0.0), Value::f32(inf)],
                vec![Value::f32(1.5), Value::f32(-2.0)],
            ),
            (
                OpCode::FMadLegacy,
                &["f32", "f32", "f32"],
                "f32",
                vec![Value::f32(inf), Value::f32(0.0), Value::f32(1.0)],
                vec![Value::f32(1.5), Value::f32(-2.0), Value::f32(0.25)],
            ),
            (
                OpCode::FDotLegacy,
                &["f32x2", "f32x2"],
                "f32",
                vec![Value::f32s(&[0.0, 1.0]), Value::f32s(&[inf, 2.0])],
                vec![Value::f32s(&[3.0, 1.0]), Value::f32s(&[0.5, 2.0])],
            ),
            (
                OpCode::FDotAddLegacy,
                &["f32x2", "f32x2", "f32"],
                "f32",
                vec![
                    Value::f32s(&[0.0, 1.0]),
                    Value::f32s(&[inf, 2.0]),
                    Value::f32(0.5),
                ],
                vec![
                    Value::f32s(&[3.0, 1.0]),
                    Value::f32s(&[0.5, 2.0]),
                    Value::f32(0.5),
                ],
            ),
        ];
        for (opcode, args, result, zero_inf, finite) in cases {
            let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            let m = op_module(opcode, &args, result);
            for caps in [
                TargetCaps::DEFAULT,
                crate::caps::test_profiles::LIMA_LIKE,
                crate::caps::test_profiles::AGAL_LIKE,
            ] {
                let lower = |ieee: bool| {
                    let cx = PassContext {
                        caps: caps.clone(),
                        legacy_mul_ieee: ieee,
                        ..Default::default()
                    };
                    let mut l = m.clone();
                    run(&mut l, &cx).unwrap();
                    crate::lower_dot::run(&mut l, &cx).unwrap();
                    verifier::verify(&l).unwrap();
                    l
                };
                let (exact, ieee) = (lower(false), lower(true));
                let what = format!("{opcode} on {}", caps.name);
                assert!(
                    ieee.code().all(|d| !matches!(
                        ieee.opcode(d),
                        OpCode::Select
                            | OpCode::FMulLegacy
                            | OpCode::FMadLegacy
                            | OpCode::FDotLegacy
                            | OpCode::FDotAddLegacy
                    )),
                    "{what}: IEEE lowering left selects or legacy ops"
                );
                // D3D9: 0 · inf = 0 (and the dot products add 1 · 2 = 2, the mad adds 1).
                let want = output(&m, &zero_inf);
                assert_eq!(output(&exact, &zero_inf), want, "{what}: exact");
                let got = output(&ieee, &zero_inf);
                assert!(
                    got.as_scalar().is_some_and(|s| s.as_f32().is_nan()),
                    "{what}: IEEE 0 · inf should be NaN, got {got:?}"
                );
                let want = output(&m, &finite);
                assert_eq!(output(&exact, &finite), want, "{what}: exact, finite");
                assert_eq!(output(&ieee, &finite), want, "{what}: IEEE, finite");
            }
        }
    }
}

/// Helpers for the unit tests of the lowering passes: small modules built from text, and a
/// before/after comparison in the reference interpreter.
#[cfg(test)]
pub(crate) mod test_util {
    use irc_interp::{run, RunConfig, ShaderInputs, Value};
    use irc_ir::{text, verifier, Module, OpCode, ScalarType};

    /// `m` with its legacy products and dot products lowered under `cx` (`lower-legacy`,
    /// then `lower-dot`).
    pub(crate) fn lowered(m: &Module, cx: &crate::caps::PassContext) -> Module {
        let mut l = m.clone();
        crate::lower_legacy::run(&mut l, cx).unwrap();
        crate::lower_dot::run(&mut l, cx).unwrap();
        l
    }

    /// The type text of scalar `s` with `n` components.
    pub(crate) fn ty(s: ScalarType, n: u8) -> String {
        if n == 1 {
            s.to_string()
        } else {
            format!("{s}x{n}")
        }
    }

    /// A vertex shader computing `opcode(v0, v1, …)` into `o0`, the inputs typed `args`.
    pub(crate) fn op_module(opcode: OpCode, args: &[String], result: &str) -> Module {
        let mut s = String::from("%1 = EntryPoint %20 Vertex\n");
        for (i, t) in args.iter().enumerate() {
            s += &format!("%{} = {t} DclInput %1 {i} 0\n", 2 + i);
        }
        s += &format!("%9 = {result} DclOutput %1 0 0\n%20 = Function\n%21 = Label None\n");
        let mut call = format!("%40 = {result} {opcode}");
        for (i, t) in args.iter().enumerate() {
            s += &format!("%{} = {t} InputLoad %{} null\n", 30 + i, 2 + i);
            call += &format!(" %{}", 30 + i);
        }
        s += &format!("{call}\n%41 = OutputStore %9 null %40\n%42 = Return\n%43 = FunctionEnd\n");
        text::parse(&s).unwrap_or_else(|e| panic!("{e}\n{s}"))
    }

    /// [`op_module`] with `n` operands of one float type.
    pub(crate) fn float_fn_module(opcode: OpCode, s: ScalarType, vec: u8, n: usize) -> Module {
        let t = ty(s, vec);
        op_module(opcode, &vec![t.clone(); n], &t)
    }

    const SPECIAL: [f64; 9] = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        3.0e5,
        0.1,
    ];

    fn with_specials(v: &Value, k: usize) -> Value {
        let comps = v.components().unwrap_or_default();
        Value::from_components(
            comps
                .iter()
                .enumerate()
                .map(|(j, c)| match c.ty() {
                    t if t.is_float() => {
                        irc_arith::float::from_f64(SPECIAL[(k + j) % SPECIAL.len()], t)
                    }
                    _ => *c,
                })
                .collect(),
        )
    }

    /// Checks that `after` verifies and computes what `before` computes on random inputs and on
    /// every combination of special float values (zeros, infinities, NaN, f16 overflow).
    pub(crate) fn check_same(before: &Module, after: &Module, what: &str) {
        check_same_under(before, after, what, &RunConfig::default());
    }

    /// [`check_same`] with `before` run under `oracle` (the semantics of a lowering mode) and
    /// `after` under the default configuration.
    pub(crate) fn check_same_under(
        before: &Module,
        after: &Module,
        what: &str,
        oracle: &RunConfig,
    ) {
        if let Err(e) = verifier::verify(after) {
            panic!("{what}: verifier:\n{e}\n{}", text::print(after));
        }
        let config = RunConfig::default();
        let mut sets: Vec<ShaderInputs> =
            (0..16).map(|s| ShaderInputs::random(before, s)).collect();
        let base = ShaderInputs::random(before, 99);
        let slots = base.invocations[0].io.len() as u32;
        for combo in 0..(SPECIAL.len() as u32).pow(slots.min(3)) {
            let mut inputs = base.clone();
            for inv in &mut inputs.invocations {
                for (i, v) in inv.io.values_mut().enumerate() {
                    let k = (combo / (SPECIAL.len() as u32).pow(i as u32)) as usize;
                    *v = with_specials(v, k);
                }
            }
            sets.push(inputs);
        }
        for inputs in &sets {
            let want = run(before, inputs, oracle).expect("reference run");
            let got = run(after, inputs, &config).expect("lowered run");
            if let Err(diff) = irc_interp::compare::outputs_equal(&want, &got) {
                panic!(
                    "{what}: {diff}; inputs {:?}\n{}",
                    inputs.invocations[0].io,
                    text::print(after)
                );
            }
        }
    }
}
