//! Sine and cosine as polynomial arithmetic, for targets without trigonometric units: the one
//! definition that the `lower-trig` pass expands `FSin`/`FCos` into and that the interpreter
//! evaluates when it is such a target's oracle (`RunConfig::polynomial_trig`), so that the
//! two agree bit for bit.
//!
//! Both are a cosine of one period, `cos x = p(u²)` and `sin x = cos(x − π/2) = p(u'²)`:
//!
//! 1. `t = x · (1/2π)`, minus `1/4` for the sine;
//! 2. `u = t − floor(t + 1/2)`, in `[−1/2, 1/2]` (one period);
//! 3. `w = u · u`, then `p(w)` by Horner's rule with unfused multiply-adds, highest
//!    coefficient first.
//!
//! Every step is one IR op rounded to the value's type. `p` ([`COS_2PI_SQRT`]) is a
//! least-squares fit of `cos(2π√w)` on Chebyshev nodes of `[0, 1/4]`, degree 6; evaluated this
//! way in f32 its error is below 3.4·10⁻⁷ over the whole period (measured over 10⁵ points when
//! the coefficients were chosen); the rounding of `t` adds about `|x| · 6·10⁻⁸`. `±inf` and NaN
//! give NaN.

use crate::float::float_op_in;
use crate::{FpMode, Scalar};
use irc_ir::{OpCode, RoundMode, ScalarType};

/// `p(w) ≈ cos(2π√w)` on `[0, 1/4]`, lowest degree first.
pub const COS_2PI_SQRT: [f32; 7] = [
    1.0,
    -19.739_204,
    64.939_12,
    -85.450_14,
    60.167_637,
    -25.967_62,
    6.528_685_6,
];

/// `1/2π` as an f32 constant.
pub const INV_2PI: f32 = std::f32::consts::FRAC_1_PI * 0.5;

/// `FSin` (`sine`) or `FCos` of `x` (type `t`, float mode `mode`) evaluated as the module doc
/// says, every step as the IR op of that name.
pub fn poly_sin_cos(x: Scalar, t: ScalarType, mode: FpMode, sine: bool) -> Option<Scalar> {
    let c = |v: f32| crate::float::from_f64(f64::from(v), t);
    let op = |o: OpCode, args: &[Scalar], lit: u64| float_op_in(o, t, args, lit, mode);
    let mut turns = op(OpCode::FMul, &[x, c(INV_2PI)], 0)?;
    if sine {
        turns = op(OpCode::FSub, &[turns, c(0.25)], 0)?;
    }
    let h = op(OpCode::FAdd, &[turns, c(0.5)], 0)?;
    let f = op(OpCode::FRound, &[h], u64::from(RoundMode::NegativeInf.0))?;
    let u = op(OpCode::FSub, &[turns, f], 0)?;
    let w = op(OpCode::FMul, &[u, u], 0)?;
    let (last, rest) = COS_2PI_SQRT.split_last()?;
    let mut r = c(*last);
    for &k in rest.iter().rev() {
        r = op(OpCode::FMad, &[r, w, c(k)], 0)?;
    }
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(x: f32, sine: bool) -> f32 {
        poly_sin_cos(Scalar::F32(x), ScalarType::F32, FpMode::IEEE, sine)
            .unwrap()
            .as_f32()
    }

    #[test]
    fn close_to_sine_and_cosine_and_nan_for_non_finite() {
        let mut worst = 0f64;
        for k in -20_000..=20_000 {
            let x = k as f32 * 0.000_5;
            let xd = f64::from(x);
            worst = worst
                .max((f64::from(eval(x, true)) - xd.sin()).abs())
                .max((f64::from(eval(x, false)) - xd.cos()).abs());
        }
        assert!(worst < 1e-6, "worst error {worst}");
        for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            assert!(eval(x, true).is_nan() && eval(x, false).is_nan());
        }
    }
}
