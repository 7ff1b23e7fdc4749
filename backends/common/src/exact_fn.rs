//! The exact model of the functions hardware approximates (`exp2`, `log2`, `sin`, `cos`,
//! `1/√x`, `pow`), for the simulators' exact runs: the value the IR defines (the host's f64
//! libm, rounded once to f32; `irc_arith::float`), not f32 libm, which may differ in the last
//! place. A last-place difference is within every tolerance for one op, but a program that
//! iterates an ill-conditioned map (`x = log2(|fract(3.25·x)|)` 256 times, found by the
//! pipeline fuzz target on agal-vp) turns it into any value; with the IR's rounding the exact
//! run agrees bit for bit. What the hardware itself computes is each simulator's native run.
//!
//! [`min`] and [`max`] are the IR's `FMin`/`FMax` in f32 (`irc_arith::float::fmin`/`fmax`),
//! for simulators whose reference is silent on signed zeros: f32's own `min`/`max` may return
//! either zero.

/// `2^x`.
pub fn exp2(x: f32) -> f32 {
    f64::from(x).exp2() as f32
}

/// `log2(x)` (−inf for ±0, NaN below 0).
pub fn log2(x: f32) -> f32 {
    f64::from(x).log2() as f32
}

/// `sin(x)`, `x` in radians.
pub fn sin(x: f32) -> f32 {
    f64::from(x).sin() as f32
}

/// `cos(x)`, `x` in radians.
pub fn cos(x: f32) -> f32 {
    f64::from(x).cos() as f32
}

/// `1/√x` (+inf for +0, −inf for −0, NaN below 0).
pub fn rsqrt(x: f32) -> f32 {
    (1.0 / f64::from(x).sqrt()) as f32
}

/// `x^y` with the host's `pow` rules (a negative `x` with an integral `y` has a value).
pub fn pow(x: f32, y: f32) -> f32 {
    f64::from(x).powf(f64::from(y)) as f32
}

/// The IR's `FMin`: a NaN gives the other operand, −0 < +0.
pub fn min(x: f32, y: f32) -> f32 {
    irc_arith::float::fmin(f64::from(x), f64::from(y)) as f32
}

/// The IR's `FMax`: a NaN gives the other operand, +0 > −0.
pub fn max(x: f32, y: f32) -> f32 {
    irc_arith::float::fmax(f64::from(x), f64::from(y)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values() {
        assert_eq!(exp2(3.0), 8.0);
        assert_eq!(log2(0.0), f32::NEG_INFINITY);
        assert!(log2(-1.0).is_nan());
        assert_eq!(rsqrt(0.25), 2.0);
        assert_eq!(rsqrt(-0.0), f32::NEG_INFINITY);
        assert_eq!(pow(-2.0, 3.0), -8.0);
        assert_eq!(sin(0.0), 0.0);
        assert_eq!(cos(0.0), 1.0);
    }

    #[test]
    fn min_max_order_signed_zeros_and_skip_nan() {
        let bits = |x: f32| x.to_bits();
        assert_eq!(bits(min(0.0, -0.0)), bits(-0.0));
        assert_eq!(bits(min(-0.0, 0.0)), bits(-0.0));
        assert_eq!(bits(max(-0.0, 0.0)), bits(0.0));
        assert_eq!(bits(max(0.0, -0.0)), bits(0.0));
        assert_eq!(min(f32::NAN, 2.0), 2.0);
        assert_eq!(max(3.0, f32::NAN), 3.0);
        assert_eq!(min(f32::NEG_INFINITY, 1.0), f32::NEG_INFINITY);
        assert_eq!(max(-1.5, -2.5), -1.5);
    }

    #[test]
    fn rounds_once_from_f64() {
        // log2 of every 1/64 step in (0, 8]: the f64 value rounded, whatever f32 libm says.
        for i in 1..=512 {
            let x = i as f32 / 64.0;
            assert_eq!(log2(x), (f64::from(x)).log2() as f32);
        }
    }
}
