//! float24 (1 sign, 7 exponent bits with bias 63, 16 mantissa bits), §10.
//!
//! * [`from_f32`] converts the way picasso converts constants (`picasso_frontend.cpp`): the
//!   mantissa is **truncated**, underflow gives a signed zero, overflow and f32 inf/NaN give ±inf.
//!   citro3d's uniform setters convert the same way, so the simulator uses it for uniforms and
//!   inputs too.
//! * [`to_f32`] decodes like citra's `Float<16,7>::FromRaw`: low 23 bits zero → ±0; exponent 0x7F
//!   → inf/NaN; otherwise f32 exponent = e24 + 64 (so an exponent-0 float24 with a non-zero
//!   mantissa reads as a value in [2⁻⁶³, 2⁻⁶²): the "subnormals" that arithmetic flushes, §10).
//! * [`round`] rounds an arithmetic result to the float24 grid: round to nearest even (the
//!   hardware's result rounding is not documented publicly — an assumption), magnitudes below
//!   2⁻⁶² flush to +0 (no −0: "no −0" in §10), magnitudes that round to 2⁶⁴ or more become ±inf.

/// The smallest normal float24 magnitude, 2⁻⁶².
pub const MIN_NORMAL: f32 = 2.168_404_3e-19;

/// f32 → float24 bits (picasso's truncating conversion).
pub fn from_f32(v: f32) -> u32 {
    let b = v.to_bits();
    let sign = (b >> 31) << 23;
    let exp = ((b >> 23) & 0xFF) as i32;
    let mant = b & 0x7F_FFFF;
    if exp == 0xFF {
        return sign | 0x7F_0000;
    }
    if exp == 0 {
        return sign;
    }
    let e = exp - 127 + 63;
    if e <= 0 {
        sign
    } else if e >= 0x7F {
        sign | 0x7F_0000
    } else {
        sign | (e as u32) << 16 | mant >> 7
    }
}

/// float24 bits (low 24 bits) → f32.
pub fn to_f32(bits: u32) -> f32 {
    let sign = (bits >> 23 & 1) << 31;
    if bits & 0x7F_FFFF == 0 {
        return f32::from_bits(sign);
    }
    let e = bits >> 16 & 0x7F;
    let mant = (bits & 0xFFFF) << 7;
    let e32 = if e == 0x7F { 0xFF } else { e + 64 };
    f32::from_bits(sign | e32 << 23 | mant)
}

/// Truncates an f32 to the nearest float24 toward zero (upload path: uniforms, attributes).
pub fn truncate(v: f32) -> f32 {
    if v.is_nan() {
        return v;
    }
    to_f32(from_f32(v))
}

/// Rounds an arithmetic result to float24 (see the module doc).
pub fn round(v: f32) -> f32 {
    if v.is_nan() || v.is_infinite() {
        return v;
    }
    if v.abs() < MIN_NORMAL {
        return 0.0;
    }
    let b = v.to_bits();
    // Round the 23-bit mantissa to 16 bits, nearest even; a carry bumps the exponent.
    let lsb = (b >> 7) & 1;
    let r = b.wrapping_add(0x3F + lsb) & !0x7F;
    let out = f32::from_bits(r);
    if out.abs() >= 18_446_744_073_709_551_616.0 {
        // 2^64: beyond the largest finite float24.
        f32::INFINITY.copysign(v)
    } else {
        out
    }
}

/// Flushes a float24 "subnormal" (magnitude below 2⁻⁶²) and −0 to +0 (arithmetic inputs).
pub fn flush(v: f32) -> f32 {
    if v.abs() < MIN_NORMAL {
        0.0
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picasso_conversions() {
        assert_eq!(from_f32(1.0), 0x3F_0000);
        assert_eq!(from_f32(-1.0), 0xBF_0000);
        assert_eq!(from_f32(0.5), 0x3E_0000);
        assert_eq!(from_f32(2.0), 0x40_0000);
        assert_eq!(from_f32(0.1), 0x3B_9999);
        assert_eq!(from_f32(1.0 / 255.0), 0x37_0101);
        assert_eq!(from_f32(0.003_921_568_4), 0x37_0101);
        assert_eq!(from_f32(f32::INFINITY), 0x7F_0000);
        assert_eq!(from_f32(f32::NAN), 0x7F_0000);
        assert_eq!(from_f32(-1e30), 0xFF_0000);
        assert_eq!(from_f32(1e-30), 0);
        assert_eq!(from_f32(0.0), 0);
    }

    #[test]
    fn decode_and_round() {
        assert_eq!(to_f32(0x3F_0000), 1.0);
        assert_eq!(to_f32(0xBE_0000), -0.5);
        assert_eq!(to_f32(0x7F_0000), f32::INFINITY);
        assert!(to_f32(0x7F_0001).is_nan());
        assert_eq!(round(1.0 + 1.0 / 65536.0), 1.0 + 1.0 / 65536.0);
        assert_eq!(round(1.0 + 1.0 / 131072.0), 1.0); // tie → even
        assert_eq!(round(1.0 + 3.0 / 131072.0), 1.0 + 2.0 / 65536.0);
        assert_eq!(round(-0.0).to_bits(), 0);
        assert_eq!(round(1e-19), 0.0);
        assert_eq!(round(1e20), f32::INFINITY);
        // 1.0 halved 62 times is the smallest normal; once more flushes to zero.
        let mut x = 1.0f32;
        for _ in 0..62 {
            x = round(x * 0.5);
        }
        assert!(x > 0.0);
        assert_eq!(round(x * 0.5), 0.0);
    }
}
