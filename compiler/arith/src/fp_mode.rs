//! Float modes: what a module's `SetFpMode` declarations say about rounding and denormals, per
//! float width, and the two primitives every float op applies with them.
//!
//! `SetFpMode T %ep Round Denorm` sets the mode of every op computing in `T` (f16, f32 or f64;
//! min-precision floats compute as f16). Without a declaration a width is IEEE: nearest-even,
//! denormals preserved. Under **`Flush`** every float *computation* of that width reads a
//! denormal operand as zero of the same sign and writes a denormal result as zero of the same
//! sign (D3D10+'s rule for f32: "flushed on input and output of any floating-point
//! mathematical operation"). Data movement is not a computation: `FAbs`/`FNeg` (sign-bit
//! operations), `Select`, loads, stores, `Cast` and `ConsumeAs` between types of one size keep
//! the bits, so a denormal reaches the next computation unchanged and is flushed there.
//! Comparisons, min/max, rounding and float→float conversions are computations. Under
//! **`RoundMode::Zero`** results are rounded toward zero instead of to nearest-even; ops whose
//! exact result is known in f64 together with the sign of its error (add, sub, mul, mad, div,
//! sqrt, rcp) round exactly, the transcendentals round their f64 value toward zero.
//!
//! Both the interpreter and constant folding take the modes from [`FpModes::of_module`], so a
//! folded constant is what a run computes under the module's declared modes.

use crate::value::Scalar;
use irc_ir::{Module, OpCode, ScalarType};

/// The exponent range of a narrower float format a target computes in, as far as it changes
/// results: magnitudes below `2^min_exp` are +0, magnitudes of `2^overflow_exp` and more are
/// ±inf, and zero has no sign (−0 reads and computes as +0). PICA200's float24 (1.7.16, no
/// −0) is `min_exp = −62`, `overflow_exp = 64`. Never set by a module: only an interpreter
/// that is a target's oracle uses it (`RunConfig::narrow_range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NarrowRange {
    pub min_exp: i32,
    pub overflow_exp: i32,
}

impl NarrowRange {
    /// Only the unsigned zero (the full f64 range): what a target computes at f32 precision
    /// without −0 (PICA's exact simulation).
    pub const UNSIGNED_ZERO: NarrowRange = NarrowRange {
        min_exp: i32::MIN,
        overflow_exp: i32::MAX,
    };

    /// `x` as the narrow format holds it (NaN unchanged).
    #[inline]
    pub fn apply(self, x: f64) -> f64 {
        let a = x.abs();
        if a == 0.0 || a < 2f64.powi(self.min_exp) {
            0.0
        } else if a >= 2f64.powi(self.overflow_exp) {
            f64::INFINITY.copysign(x)
        } else {
            x
        }
    }
}

/// The mode of one float width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FpMode {
    /// `DenormMode::Flush`: denormal operands and results are zero (sign kept).
    pub flush_denormals: bool,
    /// `RoundMode::Zero`: results round toward zero (else nearest-even).
    pub round_toward_zero: bool,
    /// A target's narrower range ([`NarrowRange`]), applied to operands and results.
    pub narrow: Option<NarrowRange>,
    /// A legacy (D3D9-rule) product of ±0 and NaN is NaN instead of 0, as PICA200's MUL, MAD
    /// and dot products compute it (reference pica.md §10, `NaN · 0 = NaN`); `0 · ±inf` stays
    /// 0. Never set by a module: only an interpreter that is a target's oracle uses it.
    pub legacy_zero_keeps_nan: bool,
}

impl FpMode {
    /// IEEE 754 default: nearest-even, denormals preserved.
    pub const IEEE: FpMode = FpMode {
        flush_denormals: false,
        round_toward_zero: false,
        narrow: None,
        legacy_zero_keeps_nan: false,
    };
    /// Nearest-even with denormals flushed.
    pub const FLUSH: FpMode = FpMode {
        flush_denormals: true,
        round_toward_zero: false,
        narrow: None,
        legacy_zero_keeps_nan: false,
    };
}

/// The modes of the three float widths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FpModes {
    pub f16: FpMode,
    pub f32: FpMode,
    pub f64: FpMode,
}

impl FpModes {
    /// Every width IEEE (a module without `SetFpMode`).
    pub const IEEE: FpModes = FpModes {
        f16: FpMode::IEEE,
        f32: FpMode::IEEE,
        f64: FpMode::IEEE,
    };

    /// The modes a module's `SetFpMode` declarations set (IEEE for widths without one; a later
    /// declaration of a width replaces an earlier one).
    pub fn of_module(m: &Module) -> FpModes {
        let mut modes = FpModes::IEEE;
        for d in m.declarations() {
            let op = m.op(d);
            if op.opcode != OpCode::SetFpMode {
                continue;
            }
            let Some(t) = op.ty.as_scalar() else {
                continue;
            };
            let f = irc_ir::format::SetFpMode::of(op);
            let mode = FpMode {
                flush_denormals: f.denorm_mode().is_some_and(|d| d & 1 != 0 && d & 2 == 0),
                round_toward_zero: f.round_mode().is_some_and(|r| r & 1 != 0 && r & 2 == 0),
                narrow: None,
                legacy_zero_keeps_nan: false,
            };
            if let Some(slot) = modes.slot(t) {
                *slot = mode;
            }
        }
        modes
    }

    fn slot(&mut self, t: ScalarType) -> Option<&mut FpMode> {
        match t {
            ScalarType::F16 => Some(&mut self.f16),
            ScalarType::F32 => Some(&mut self.f32),
            ScalarType::F64 => Some(&mut self.f64),
            _ => None,
        }
    }

    /// The mode of the float type an op of type `t` computes in.
    #[inline]
    pub fn get(&self, t: ScalarType) -> FpMode {
        match crate::float::float_type(t) {
            ScalarType::F16 => self.f16,
            ScalarType::F64 => self.f64,
            _ => self.f32,
        }
    }
}

/// Smallest positive normal value of float type `t`.
#[inline]
pub fn min_normal(t: ScalarType) -> f64 {
    match crate::float::float_type(t) {
        ScalarType::F16 => half::f16::MIN_POSITIVE.to_f64(),
        ScalarType::F64 => f64::MIN_POSITIVE,
        _ => f32::MIN_POSITIVE as f64,
    }
}

/// An operand `x` (a value of type `t`) as a computation under `mode` reads it.
#[inline]
pub fn flush_in(x: f64, t: ScalarType, mode: FpMode) -> f64 {
    let x = if mode.flush_denormals && x != 0.0 && x.abs() < min_normal(t) {
        0.0f64.copysign(x)
    } else {
        x
    };
    mode.narrow.map_or(x, |n| n.apply(x))
}

/// The scalar `s` of float type `t` as a computation under `mode` reads it.
#[inline]
pub fn flush_scalar(s: Scalar, t: ScalarType, mode: FpMode) -> Scalar {
    let x = crate::float::to_f64(s, t);
    let flushed = if mode.flush_denormals && x != 0.0 && x.abs() < min_normal(t) {
        crate::float::from_f64(0.0f64.copysign(x), t)
    } else {
        s
    };
    narrowed(flushed, t, mode)
}

/// `s` as `mode`'s narrow range holds it (unchanged without one).
#[inline]
fn narrowed(s: Scalar, t: ScalarType, mode: FpMode) -> Scalar {
    match mode.narrow {
        None => s,
        Some(n) => {
            let x = crate::float::to_f64(s, t);
            let y = n.apply(x);
            if y.to_bits() == x.to_bits() || x.is_nan() {
                s
            } else {
                crate::float::from_f64(y, t)
            }
        }
    }
}

/// The result `v + err` (`v` the f64 value of the exact result, `err` the sign-carrying
/// remainder, 0 when `v` is exact or unknown) rounded to type `t` under `mode`: nearest-even
/// or toward zero, then flushed if denormal.
#[inline]
pub fn round_result(v: f64, err: f64, t: ScalarType, mode: FpMode) -> Scalar {
    let t = crate::float::float_type(t);
    let mut r = crate::float::from_f64(v, t);
    if mode.round_toward_zero && v.is_finite() && v != 0.0 {
        let rv = crate::float::to_f64(r, t);
        // The true result's magnitude is below |rv|: step one unit toward zero.
        let above = rv.abs() > v.abs() || (rv == v && err != 0.0 && err.signum() != v.signum());
        if above || rv.is_infinite() {
            r = Scalar::from_bits(t, r.bits() - 1);
        }
    }
    let x = crate::float::to_f64(r, t);
    let flushed = if mode.flush_denormals && x != 0.0 && x.abs() < min_normal(t) {
        crate::float::from_f64(0.0f64.copysign(x), t)
    } else {
        r
    };
    narrowed(flushed, t, mode)
}

/// `round_result` as an f64 (an intermediate step of a chained op).
#[inline]
pub fn round_step(v: f64, err: f64, t: ScalarType, mode: FpMode) -> f64 {
    crate::float::to_f64(round_result(v, err, t, mode), t)
}

/// `a + b` and the error of its f64 rounding (Knuth's TwoSum).
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `a · b` and the error of its f64 rounding.
#[inline]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if !p.is_finite() {
        return (p, 0.0);
    }
    (p, a.mul_add(b, -p))
}

/// `a / b` and the sign-carrying remainder `(a − q·b)/b`.
#[inline]
pub fn div_err(a: f64, b: f64) -> (f64, f64) {
    let q = a / b;
    if !q.is_finite() || b == 0.0 {
        return (q, 0.0);
    }
    (q, -(q.mul_add(b, -a)) / b)
}

/// `√a` and the sign of its error (`a − s²`).
#[inline]
pub fn sqrt_err(a: f64) -> (f64, f64) {
    let s = a.sqrt();
    if !s.is_finite() {
        return (s, 0.0);
    }
    (s, -(s.mul_add(s, -a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DENORM: f32 = 4.2e-45; // bit pattern 3: an integer 3 read as a float

    #[test]
    fn flush_reads_denormals_as_signed_zero_and_preserve_keeps_them() {
        let t = ScalarType::F32;
        let x = f32::from_bits(3) as f64;
        assert_eq!(flush_in(x, t, FpMode::IEEE), x);
        assert_eq!(flush_in(x, t, FpMode::FLUSH).to_bits(), 0.0f64.to_bits());
        assert_eq!(
            flush_in(-x, t, FpMode::FLUSH).to_bits(),
            (-0.0f64).to_bits()
        );
        assert_eq!(flush_in(1.0, t, FpMode::FLUSH), 1.0);
        assert!((DENORM as f64 - x).abs() < 1e-46);
    }

    #[test]
    fn flush_of_results_keeps_the_sign_and_spares_normals() {
        let t = ScalarType::F32;
        let tiny = f32::MIN_POSITIVE as f64 / 4.0;
        assert_eq!(
            round_result(-tiny, 0.0, t, FpMode::FLUSH),
            Scalar::F32(-0.0)
        );
        assert_eq!(
            round_result(-tiny, 0.0, t, FpMode::IEEE),
            Scalar::F32(-(f32::MIN_POSITIVE / 4.0))
        );
        assert_eq!(
            round_result(f32::MIN_POSITIVE as f64, 0.0, t, FpMode::FLUSH),
            Scalar::F32(f32::MIN_POSITIVE)
        );
        // f16 has its own threshold: 2^-15 is an f16 denormal but a normal f32.
        let h = 2f64.powi(-15);
        assert_eq!(
            round_result(h, 0.0, ScalarType::F16, FpMode::FLUSH).bits(),
            0
        );
        assert_eq!(
            round_result(h, 0.0, t, FpMode::FLUSH),
            Scalar::F32(h as f32)
        );
    }

    #[test]
    fn round_toward_zero_uses_the_error_sign() {
        let rtz = FpMode {
            flush_denormals: false,
            round_toward_zero: true,
            narrow: None,
            legacy_zero_keeps_nan: false,
        };
        let t = ScalarType::F32;
        // 1 + 2^-30 is 1 under both modes; 1 − 2^-30 is 1 nearest, 1 − 2^-24 toward zero.
        let (s, e) = two_sum(1.0, 2f64.powi(-30));
        assert_eq!(round_result(s, e, t, rtz), Scalar::F32(1.0));
        let (s, e) = two_sum(1.0, -(2f64.powi(-30)));
        assert_eq!(round_result(s, e, t, FpMode::IEEE), Scalar::F32(1.0));
        assert_eq!(
            round_result(s, e, t, rtz),
            Scalar::F32(1.0 - 2f32.powi(-24))
        );
        // 1 + 2^-60 in f64 is exactly 1: only the error term tells the direction.
        let (s, e) = two_sum(-1.0, 2f64.powi(-60));
        assert_eq!(s, -1.0);
        assert_eq!(
            round_result(s, e, t, rtz),
            Scalar::F32(-(1.0 - 2f32.powi(-24)))
        );
        // 1/3 toward zero is below the nearest value 0x3eaaaaab.
        let (q, e) = div_err(1.0, 3.0);
        assert_eq!(round_result(q, e, t, rtz).bits(), 0x3eaa_aaaa);
        assert_eq!(round_result(q, e, t, FpMode::IEEE).bits(), 0x3eaa_aaab);
        // Overflow toward zero is the largest finite value.
        assert_eq!(round_result(1e39, 0.0, t, rtz), Scalar::F32(f32::MAX));
    }

    #[test]
    fn modes_are_read_per_width_from_set_fp_mode() {
        let src = "\
%1 = EntryPoint %10 Pixel
%2 = f32 SetFpMode %1 NearestEven Flush
%3 = f16 SetFpMode %1 Zero Preserve

%10 = Function
%11 = Label None
  %12 = Return
%13 = FunctionEnd
";
        let m = irc_ir::text::parse(src).expect("test module parses");
        let modes = FpModes::of_module(&m);
        assert_eq!(modes.f32, FpMode::FLUSH);
        assert!(modes.f16.round_toward_zero && !modes.f16.flush_denormals);
        assert_eq!(modes.f64, FpMode::IEEE);
        assert_eq!(modes.get(ScalarType::MinF16), modes.f16);
    }

    #[test]
    fn a_narrow_range_flushes_small_magnitudes_overflows_large_ones_and_drops_the_zero_sign() {
        let float24 = FpMode {
            narrow: Some(NarrowRange {
                min_exp: -62,
                overflow_exp: 64,
            }),
            ..FpMode::FLUSH
        };
        let t = ScalarType::F32;
        // 2^-63 is a normal f32 but below float24's smallest normal: +0, whatever its sign.
        assert_eq!(flush_in(-(2f64.powi(-63)), t, float24).to_bits(), 0);
        assert_eq!(flush_in(-0.0, t, float24).to_bits(), 0);
        assert_eq!(
            round_result(2f64.powi(-62), 0.0, t, float24),
            Scalar::F32(2f32.powi(-62))
        );
        assert_eq!(
            round_result(-(2f64.powi(64)), 0.0, t, float24),
            Scalar::F32(f32::NEG_INFINITY)
        );
        assert_eq!(
            flush_scalar(Scalar::F32(-0.0), t, float24).bits(),
            0,
            "−0 reads as +0"
        );
        assert!(flush_in(f64::NAN, t, float24).is_nan());
        let sign_only = FpMode {
            narrow: Some(NarrowRange::UNSIGNED_ZERO),
            ..FpMode::IEEE
        };
        assert_eq!(flush_in(-0.0, t, sign_only).to_bits(), 0);
        assert_eq!(flush_in(-(2f64.powi(-63)), t, sign_only), -(2f64.powi(-63)));
        assert_eq!(flush_in(2f64.powi(100), t, sign_only), 2f64.powi(100));
        // Without a narrow range nothing changes.
        assert_eq!(
            flush_in(-0.0, t, FpMode::FLUSH).to_bits(),
            (-0.0f64).to_bits()
        );
    }

    #[test]
    fn a_legacy_product_of_zero_and_nan_is_nan_only_under_the_flag() {
        let t = ScalarType::F32;
        let pica = FpMode {
            legacy_zero_keeps_nan: true,
            ..FpMode::FLUSH
        };
        let mul = crate::float::mul_legacy_in;
        assert_eq!(mul(0.0, f64::NAN, t, FpMode::IEEE), 0.0);
        assert_eq!(mul(f64::NAN, 0.0, t, FpMode::IEEE), 0.0);
        assert!(mul(0.0, f64::NAN, t, pica).is_nan());
        assert!(mul(f64::NAN, -0.0, t, pica).is_nan());
        // D3D9's 0 · inf = 0 holds in both.
        assert_eq!(mul(0.0, f64::INFINITY, t, pica), 0.0);
        assert_eq!(mul(f64::NEG_INFINITY, 0.0, t, pica), 0.0);
        assert_eq!(mul(2.0, 3.0, t, pica), 6.0);
    }
}
