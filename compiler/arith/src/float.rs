//! Floating-point ops, per component.
//!
//! Every op is evaluated exactly in `f64` and rounded once (round-to-nearest-even) to the
//! result type, which gives correctly rounded `f32` and `f16` results for +, −, ×, ÷ and √
//! (f64 has more than 2p+2 bits for both). f16 results are rounded to f16 after **every** op.
//! The `*_in` functions compute under a float mode ([`crate::fp_mode`]: `SetFpMode`'s
//! denormal flushing and rounding toward zero); the plain ones are IEEE (nearest-even,
//! denormals preserved), the mode of a module without `SetFpMode`.
//!
//! Decisions (see the crate docs for the full list):
//! - `FMad` is **not fused**: `round(round(a·b) + c)`. dxbc-spirv splits non-precise FMad into
//!   FMul + FAdd and re-fuses later, so only the unfused reading makes those rewrites exact.
//! - `FDot*` is the chain dxbc-spirv lowers it to: `a0·b0`, then `+ ai·bi` left to right, each
//!   step rounded.
//! - `FMin`/`FMax`: if one operand is NaN the other is returned (IEEE minNum/maxNum, D3D10+);
//!   `min(−0, +0) = −0`, `max(−0, +0) = +0`. `FClamp(x, lo, hi) = FMin(FMax(x, lo), hi)`.
//! - Legacy ops follow reference §B.6: `FMulLegacy` gives +0 if either operand is ±0 (even if
//!   the other is inf/NaN), evaluated as dxbc-spirv's select-based lowering does.
//! - `FRcp(x) = 1/x`, `FRsq(x) = 1/√x` (correctly rounded), `FFract(x) = x − floor(x)`,
//!   `FSgn(x)` = ±1 for nonzero, x itself for ±0 and NaN.
//! - Transcendentals (`FExp2`, `FLog2`, `FSin`, `FCos`, `FPow`) use the host's f64 libm and
//!   round to the result type; `FPow(a, b) = exp2(b · log2 a)` (NaN for a < 0).

use crate::fp_mode::{self, flush_in, round_result, round_step, FpMode};
use crate::value::Scalar;
use half::f16;
use irc_ir::{OpCode, ScalarType};

/// The float type an op computes in: f16/f32/f64; anything else (Unknown) counts as f32.
#[inline]
pub fn float_type(t: ScalarType) -> ScalarType {
    match crate::value::effective(t) {
        ScalarType::F16 => ScalarType::F16,
        ScalarType::F64 => ScalarType::F64,
        _ => ScalarType::F32,
    }
}

/// The value of `s` read as a float of type `t` (bits reinterpreted).
#[inline]
pub fn to_f64(s: Scalar, t: ScalarType) -> f64 {
    match s {
        Scalar::F16(v) if float_type(t) == ScalarType::F16 => v.to_f64(),
        Scalar::F32(v) if float_type(t) == ScalarType::F32 => v as f64,
        Scalar::F64(v) if float_type(t) == ScalarType::F64 => v,
        _ => match float_type(t) {
            ScalarType::F16 => f16::from_bits(s.bits() as u16).to_f64(),
            ScalarType::F64 => f64::from_bits(s.bits()),
            _ => f32::from_bits(s.bits() as u32) as f64,
        },
    }
}

/// Rounds `x` to float type `t` (nearest-even).
#[inline]
pub fn from_f64(x: f64, t: ScalarType) -> Scalar {
    match float_type(t) {
        ScalarType::F16 => Scalar::F16(f16::from_f64(x)),
        ScalarType::F64 => Scalar::F64(x),
        _ => Scalar::F32(x as f32),
    }
}

/// Rounds `x` through type `t` and back.
#[inline]
pub fn round_to(x: f64, t: ScalarType) -> f64 {
    to_f64(from_f64(x, t), t)
}

/// Largest finite value of float type `t`.
#[inline]
pub fn max_finite(t: ScalarType) -> f64 {
    match float_type(t) {
        ScalarType::F16 => f16::MAX.to_f64(),
        ScalarType::F64 => f64::MAX,
        _ => f32::MAX as f64,
    }
}

fn sign_bit(t: ScalarType) -> u64 {
    match float_type(t) {
        ScalarType::F16 => 0x8000,
        ScalarType::F64 => 1 << 63,
        _ => 0x8000_0000,
    }
}

/// IEEE minNum with −0 < +0.
#[inline]
pub fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a < b {
        a
    } else if b < a {
        b
    } else if a.is_sign_negative() {
        a
    } else {
        b
    }
}

/// IEEE maxNum with +0 > −0.
#[inline]
pub fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() || a > b {
        a
    } else if b > a {
        b
    } else if a.is_sign_positive() {
        a
    } else {
        b
    }
}

/// D3D9 multiply: zero if either operand is ±0, computed exactly like dxbc-spirv's lowering
/// `a' = (b == 0 ? +0 : a)`, `b' = (a == 0 ? +0 : b)`, `a' · b'` (so `−0 · 5 = −0`).
#[inline]
pub fn mul_legacy(a: f64, b: f64, t: ScalarType) -> f64 {
    mul_legacy_in(a, b, t, FpMode::IEEE)
}

/// [`mul_legacy`] under `mode` (`a` and `b` already read under it).
#[inline]
pub fn mul_legacy_in(a: f64, b: f64, t: ScalarType, mode: FpMode) -> f64 {
    // Under `legacy_zero_keeps_nan` a NaN factor is not zeroed by a zero one.
    let keeps = |x: f64| mode.legacy_zero_keeps_nan && x.is_nan();
    let a2 = if b == 0.0 && !keeps(a) { 0.0 } else { a };
    let b2 = if a == 0.0 && !keeps(b) { 0.0 } else { b };
    let (p, e) = fp_mode::two_prod(a2, b2);
    round_step(p, e, t, mode)
}

/// `FLog2Legacy`: `abs(a) ≠ 0 ? log2(abs(a)) : −MAX`, NaN propagates.
#[inline]
pub fn log2_legacy(a: f64, t: ScalarType) -> f64 {
    log2_legacy_in(a, t, FpMode::IEEE)
}

/// [`log2_legacy`] under `mode` (`a` already read under it).
#[inline]
pub fn log2_legacy_in(a: f64, t: ScalarType, mode: FpMode) -> f64 {
    if a.abs() != 0.0 || a.is_nan() {
        round_step(a.abs().log2(), 0.0, t, mode)
    } else {
        -max_finite(t)
    }
}

/// Evaluates a per-component float op. `args` are the operand components, `lit` the literal
/// operand (FRound mode). `None` for an opcode that is not a component-wise float op.
#[inline]
pub fn float_op(op: OpCode, t: ScalarType, args: &[Scalar], lit: u64) -> Option<Scalar> {
    float_op_in(op, t, args, lit, FpMode::IEEE)
}

/// [`float_op`] under float mode `mode` (the mode of `t`): operands are read and the result
/// written as [`crate::fp_mode`] describes; `FAbs`/`FNeg` only touch the sign bit.
#[inline]
pub fn float_op_in(
    op: OpCode,
    t: ScalarType,
    args: &[Scalar],
    lit: u64,
    mode: FpMode,
) -> Option<Scalar> {
    let t = float_type(t);
    let x = |i: usize| flush_in(args.get(i).map_or(0.0, |&s| to_f64(s, t)), t, mode);
    let r = |v: f64| Some(round_result(v, 0.0, t, mode));
    let re = |(v, e): (f64, f64)| Some(round_result(v, e, t, mode));
    let step = |(v, e): (f64, f64)| round_step(v, e, t, mode);
    match op {
        OpCode::FAbs => {
            let b = args.first()?.bits() & !sign_bit(t);
            Some(Scalar::from_bits(t, b))
        }
        OpCode::FNeg => {
            let b = args.first()?.bits() ^ sign_bit(t);
            Some(Scalar::from_bits(t, b))
        }
        OpCode::FAdd => re(fp_mode::two_sum(x(0), x(1))),
        OpCode::FSub => re(fp_mode::two_sum(x(0), -x(1))),
        OpCode::FMul => re(fp_mode::two_prod(x(0), x(1))),
        OpCode::FMulLegacy => r(mul_legacy_in(x(0), x(1), t, mode)),
        OpCode::FMad => re(fp_mode::two_sum(step(fp_mode::two_prod(x(0), x(1))), x(2))),
        OpCode::FMadLegacy => re(fp_mode::two_sum(mul_legacy_in(x(0), x(1), t, mode), x(2))),
        OpCode::FDiv => re(fp_mode::div_err(x(0), x(1))),
        OpCode::FRcp => re(fp_mode::div_err(1.0, x(0))),
        OpCode::FSqrt => re(fp_mode::sqrt_err(x(0))),
        OpCode::FRsq => r(1.0 / x(0).sqrt()),
        OpCode::FExp2 => r(x(0).exp2()),
        OpCode::FLog2 => r(x(0).log2()),
        OpCode::FFract => {
            let v = x(0);
            re(fp_mode::two_sum(v, -v.floor()))
        }
        OpCode::FRound => r(match lit {
            1 => x(0).trunc(),
            4 => x(0).floor(),
            8 => x(0).ceil(),
            _ => x(0).round_ties_even(),
        }),
        OpCode::FMin => r(fmin(x(0), x(1))),
        OpCode::FMax => r(fmax(x(0), x(1))),
        OpCode::FClamp => r(fmin(fmax(x(0), x(1)), x(2))),
        OpCode::FSin => r(x(0).sin()),
        OpCode::FCos => r(x(0).cos()),
        OpCode::FPow => r((x(1) * x(0).log2()).exp2()),
        OpCode::FPowLegacy => {
            let l = round_step(x(0).log2(), 0.0, t, mode);
            r(mul_legacy_in(x(1), l, t, mode).exp2())
        }
        OpCode::FSgn => {
            let v = x(0);
            if v > 0.0 {
                r(1.0)
            } else if v < 0.0 {
                r(-1.0)
            } else if v == 0.0 {
                r(v)
            } else {
                Some(Scalar::from_bits(t, args.first()?.bits()))
            }
        }
        OpCode::FLog2Legacy => r(log2_legacy_in(x(0), t, mode)),
        _ => None,
    }
}

/// `FDot`, `FDotLegacy`, `FDotAdd`, `FDotAddLegacy`: the rounded mul/mad chain.
#[inline]
pub fn dot(op: OpCode, t: ScalarType, a: &[Scalar], b: &[Scalar], c: Option<Scalar>) -> Scalar {
    dot_in(op, t, a, b, c, FpMode::IEEE)
}

/// [`dot`] under float mode `mode`: every operand read and every step rounded under it.
#[inline]
pub fn dot_in(
    op: OpCode,
    t: ScalarType,
    a: &[Scalar],
    b: &[Scalar],
    c: Option<Scalar>,
    mode: FpMode,
) -> Scalar {
    let t = float_type(t);
    let legacy = matches!(op, OpCode::FDotLegacy | OpCode::FDotAddLegacy);
    let read = |s: Scalar| flush_in(to_f64(s, t), t, mode);
    let mul = |x: f64, y: f64| {
        if legacy {
            mul_legacy_in(x, y, t, mode)
        } else {
            let (p, e) = fp_mode::two_prod(x, y);
            round_step(p, e, t, mode)
        }
    };
    let mut acc: Option<f64> = c.map(read);
    for (x, y) in a.iter().zip(b) {
        let p = mul(read(*x), read(*y));
        acc = Some(match acc {
            None => p,
            Some(s) => {
                let (v, e) = fp_mode::two_sum(s, p);
                round_step(v, e, t, mode)
            }
        });
    }
    round_result(acc.unwrap_or(0.0), 0.0, t, mode)
}

/// Float comparisons (ordered except `FNe`) and `FIsNan`; `t` is the operand type.
#[inline]
pub fn compare(op: OpCode, t: ScalarType, a: Scalar, b: Scalar) -> Option<bool> {
    compare_in(op, t, a, b, FpMode::IEEE)
}

/// [`compare`] under float mode `mode`: denormal operands compare as zero when it flushes.
#[inline]
pub fn compare_in(op: OpCode, t: ScalarType, a: Scalar, b: Scalar, mode: FpMode) -> Option<bool> {
    let (x, y) = (
        flush_in(to_f64(a, t), t, mode),
        flush_in(to_f64(b, t), t, mode),
    );
    Some(match op {
        OpCode::FEq => x == y,
        OpCode::FNe => x != y,
        OpCode::FLt => x < y,
        OpCode::FLe => x <= y,
        OpCode::FGt => x > y,
        OpCode::FGe => x >= y,
        OpCode::FIsNan => x.is_nan(),
        _ => return None,
    })
}
