//! Per-target precision: how far a simulator result may be from the interpreter's, and the
//! [`Oracle`]: how the interpreter computes to be a target's reference.
//!
//! The interpreter computes in f32. Lima's PP rounds every result, register, uniform and
//! constant to IEEE binary16 (reference lima.md §11), PICA computes in float24, AGAL in f32.
//! A value `s` from the simulator matches the interpreter's `r` when
//! `|s − r| ≤ abs + rel · |r|`, or both are NaN, or both are the same infinity. Shaders whose
//! results depend on catastrophic cancellation can exceed any fixed tolerance; harnesses also
//! run the simulator in an exact (f32) mode where it has one, which must match tightly — that
//! run proves the compiler right, the low-precision run measures the hardware's error.

/// A comparison tolerance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    pub abs: f32,
    pub rel: f32,
}

impl Tolerance {
    /// Exact f32 arithmetic, with slack for transcendental approximations (the interpreter
    /// uses f64 libm, simulators may use f32).
    pub const F32: Tolerance = Tolerance {
        abs: 1e-5,
        rel: 1e-4,
    };
    /// fp16 (Lima PP): 11-bit significands, errors accumulate over a shader.
    pub const FP16: Tolerance = Tolerance {
        abs: 4e-3,
        rel: 8e-3,
    };
    /// float24 (PICA200): 16-bit significands.
    pub const FLOAT24: Tolerance = Tolerance {
        abs: 1e-4,
        rel: 5e-4,
    };

    /// True if `sim` is within the tolerance of `reference`.
    pub fn matches(&self, sim: f32, reference: f32) -> bool {
        if sim.is_nan() || reference.is_nan() {
            return sim.is_nan() && reference.is_nan();
        }
        if sim.is_infinite() || reference.is_infinite() {
            return sim == reference;
        }
        (sim - reference).abs() <= self.abs + self.rel * reference.abs()
    }
}

/// Where a target computes differently from the IR's exact semantics by design, the
/// interpreter computes the same way when it is that target's oracle (each is documented on
/// the interpreter's `RunConfig`). Everything not listed is compared against exact semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Oracle {
    /// Division as `a · rcp(b)`.
    pub div_as_rcp_mul: bool,
    /// Square root as `rcp(rsqrt(x))`, each step rounded.
    pub sqrt_as_rcp_rsqrt: bool,
    /// The reverse: a non-precise `rcp` of a non-precise `rsqrt` of the same type as one
    /// square root (the backend fuses the pair, D3D9's `length` idiom).
    pub rcp_rsq_as_sqrt: bool,
    /// Default (unspecified coarse/fine) derivatives are fine.
    pub fine_default_derivatives: bool,
    /// `pow`, `sin`, `cos` as the hardware's step sequence.
    pub stepwise_transcendentals: bool,
    /// `sin`, `cos` as the polynomial arithmetic of targets without them (`lower-trig`).
    pub polynomial_trig: bool,
    /// Constant-buffer dwords uploaded as floats that are f32 denormals arrive as zero (a
    /// target without f32 registers).
    pub flush_denormal_uniforms: bool,
    /// What the hardware does with denormal floats in arithmetic.
    pub denormals: Denormals,
    /// A narrower float range the hardware computes in (operands and results: small
    /// magnitudes +0, large ones ±inf, no −0), if any.
    pub narrow_range: Option<irc_arith::NarrowRange>,
    /// The hardware's D3D9-rule multiply gives NaN for `NaN · 0` (the IR's legacy ops: 0).
    pub legacy_zero_keeps_nan: bool,
}

/// A target's denormal handling, as far as it is known. Where the hardware flushes, the
/// interpreter flushes every float width when it is that target's oracle (its
/// `RunConfig::flush_denormals`), whatever the module's `SetFpMode` declares; otherwise it
/// follows the declared modes.
///
/// - PICA200 (pica-vs/gs): float24 (1.7.16) has no denormals; input and output subnormals
///   are flushed in arithmetic (reference pica.md §10, 3dbrew's hardware tests) → `Flush`.
/// - Mali-400 PP (lima-fp): computes in fp16; f32 denormals do not exist there, and fp16
///   denormals are flushed (the brief for issue 20; not independently measured) → `Flush`.
/// - Mali-400 GP (lima-vp): fp32-like internal format, not characterized → `Unknown`.
/// - AGAL (agal-vp/fp): f32 on whatever GPU Flash's Stage3D runs on (Direct3D 9, OpenGL,
///   OpenGL ES); Adobe documents no denormal behaviour → `Unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Denormals {
    /// Not characterized: the interpreter follows the module's declared modes.
    #[default]
    Unknown,
    /// Denormal operands and results of every float computation are (signed) zero.
    Flush,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp16_rounding_of_one_op_is_within_tolerance_and_a_wrong_value_is_not() {
        let t = Tolerance::FP16;
        let r = 1.0f32 / 3.0;
        let rounded = half_round(r);
        assert!(t.matches(rounded, r));
        assert!(!t.matches(0.35, r));
        assert!(t.matches(f32::NAN, f32::NAN));
        assert!(!t.matches(f32::INFINITY, 65504.0));
    }

    fn half_round(x: f32) -> f32 {
        // 11 significant bits.
        let bits = x.to_bits();
        f32::from_bits((bits + 0x1000) & !0x1FFF)
    }
}
