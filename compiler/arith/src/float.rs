//! Floating-point ops, per component.
//!
//! Every op is evaluated exactly in `f64` and rounded once (round-to-nearest-even) to the
//! result type, which gives correctly rounded `f32` and `f16` results for +, −, ×, ÷ and √
//! (f64 has more than 2p+2 bits for both). f16 results are rounded to f16 after **every** op.
//! Denormals are preserved (`SetFpMode … Flush` is not modelled).
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
    let a2 = if b == 0.0 { 0.0 } else { a };
    let b2 = if a == 0.0 { 0.0 } else { b };
    round_to(a2 * b2, t)
}

/// `FLog2Legacy`: `abs(a) ≠ 0 ? log2(abs(a)) : −MAX`, NaN propagates.
#[inline]
pub fn log2_legacy(a: f64, t: ScalarType) -> f64 {
    if a.abs() != 0.0 || a.is_nan() {
        round_to(a.abs().log2(), t)
    } else {
        -max_finite(t)
    }
}

/// Evaluates a per-component float op. `args` are the operand components, `lit` the literal
/// operand (FRound mode). `None` for an opcode that is not a component-wise float op.
#[inline]
pub fn float_op(op: OpCode, t: ScalarType, args: &[Scalar], lit: u64) -> Option<Scalar> {
    let t = float_type(t);
    let x = |i: usize| args.get(i).map_or(0.0, |&s| to_f64(s, t));
    let r = |v: f64| Some(from_f64(v, t));
    match op {
        OpCode::FAbs => {
            let b = args.first()?.bits() & !sign_bit(t);
            Some(Scalar::from_bits(t, b))
        }
        OpCode::FNeg => {
            let b = args.first()?.bits() ^ sign_bit(t);
            Some(Scalar::from_bits(t, b))
        }
        OpCode::FAdd => r(x(0) + x(1)),
        OpCode::FSub => r(x(0) - x(1)),
        OpCode::FMul => r(x(0) * x(1)),
        OpCode::FMulLegacy => r(mul_legacy(x(0), x(1), t)),
        OpCode::FMad => r(round_to(x(0) * x(1), t) + x(2)),
        OpCode::FMadLegacy => r(mul_legacy(x(0), x(1), t) + x(2)),
        OpCode::FDiv => r(x(0) / x(1)),
        OpCode::FRcp => r(1.0 / x(0)),
        OpCode::FSqrt => r(x(0).sqrt()),
        OpCode::FRsq => r(1.0 / x(0).sqrt()),
        OpCode::FExp2 => r(x(0).exp2()),
        OpCode::FLog2 => r(x(0).log2()),
        OpCode::FFract => {
            let v = x(0);
            r(v - v.floor())
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
            let l = round_to(x(0).log2(), t);
            r(mul_legacy(x(1), l, t).exp2())
        }
        OpCode::FSgn => {
            let v = x(0);
            if v > 0.0 {
                r(1.0)
            } else if v < 0.0 {
                r(-1.0)
            } else {
                Some(Scalar::from_bits(t, args.first()?.bits()))
            }
        }
        OpCode::FLog2Legacy => r(log2_legacy(x(0), t)),
        _ => None,
    }
}

/// `FDot`, `FDotLegacy`, `FDotAdd`, `FDotAddLegacy`: the rounded mul/mad chain.
#[inline]
pub fn dot(op: OpCode, t: ScalarType, a: &[Scalar], b: &[Scalar], c: Option<Scalar>) -> Scalar {
    let t = float_type(t);
    let legacy = matches!(op, OpCode::FDotLegacy | OpCode::FDotAddLegacy);
    let mul = |x: f64, y: f64| {
        if legacy {
            mul_legacy(x, y, t)
        } else {
            round_to(x * y, t)
        }
    };
    let mut acc: Option<f64> = c.map(|c| to_f64(c, t));
    for (x, y) in a.iter().zip(b) {
        let p = mul(to_f64(*x, t), to_f64(*y, t));
        acc = Some(match acc {
            None => p,
            Some(s) => round_to(s + p, t),
        });
    }
    from_f64(acc.unwrap_or(0.0), t)
}

/// Float comparisons (ordered except `FNe`) and `FIsNan`; `t` is the operand type.
#[inline]
pub fn compare(op: OpCode, t: ScalarType, a: Scalar, b: Scalar) -> Option<bool> {
    let (x, y) = (to_f64(a, t), to_f64(b, t));
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
