//! Conversions: `ConvertFtoF`, `ConvertFtoI`, `ConvertItoF`, `ConvertItoI`,
//! `ConvertF32toPackedF16`, `ConvertPackedF16toF32`, `Cast` and `ConsumeAs`.
//!
//! - `ConvertFtoI` truncates toward zero and **saturates** to the destination range; NaN → 0
//!   (what dxbc-spirv's `cvt_*` helper implements).
//! - `ConvertItoF` and `ConvertFtoF` round to nearest-even; widening is exact. Under a float
//!   mode ([`f_to_f_in`], [`consume_as_in`]) a float→float conversion reads its operand under
//!   the source width's mode and rounds and flushes its result under the destination's.
//! - `ConvertItoI` sign-extends signed sources, zero-extends unsigned ones, truncates.
//! - `ConvertF32toPackedF16` rounds toward zero; finite values beyond ±65504 clamp to ±65504,
//!   ±inf stays ±inf, NaN becomes the f16 quiet NaN `0x7e00` (sign kept); first component in
//!   the low 16 bits.
//! - `Cast` reinterprets bits (little-endian concatenation when vector sizes differ).
//! - `ConsumeAs` follows reference §B.5: same type → identity; same byte size → `Cast`;
//!   float → float `ConvertFtoF`; int → int `ConvertItoI`; otherwise via 32 bits:
//!   `Convert(src → src32)`, `Cast(src32 → dst32)`, `Convert(dst32 → dst)`. `bool` converts
//!   to 0/1 (or 0.0/1.0) and from "≠ 0".

use crate::float::{float_type, from_f64, to_f64};
use crate::fp_mode::{flush_in, round_result, FpModes};
use crate::value::{bit_width, effective, Scalar};
use half::f16;
use irc_ir::ScalarType;

/// `ConvertFtoI` of one component to integer type `to`.
#[inline]
pub fn f_to_i(s: Scalar, to: ScalarType) -> Scalar {
    let x = to_f64(s, float_type(s.ty()));
    let to = crate::int::int_type(to);
    let w = bit_width(to);
    if to.is_signed_int() {
        let lo = -(2f64.powi(w as i32 - 1));
        let v = if x.is_nan() {
            0
        } else if x <= lo {
            lo as i64
        } else if x >= -lo {
            ((1u64 << (w - 1)) - 1) as i64
        } else {
            x.trunc() as i64
        };
        Scalar::from_bits(to, v as u64)
    } else {
        let hi = 2f64.powi(w as i32);
        let v = if x.is_nan() || x <= 0.0 {
            0
        } else if x >= hi {
            crate::value::mask(w)
        } else {
            x.trunc() as u64
        };
        Scalar::from_bits(to, v)
    }
}

/// `ConvertItoF` of one component (signedness from the source type).
#[inline]
pub fn i_to_f(s: Scalar, to: ScalarType) -> Scalar {
    let st = crate::int::int_type(s.ty());
    let to = float_type(to);
    if st.is_signed_int() {
        let v = s.sext_bits() as i64;
        match to {
            ScalarType::F32 => Scalar::F32(v as f32),
            ScalarType::F64 => Scalar::F64(v as f64),
            _ => Scalar::F16(f16::from_f32(v as f32)),
        }
    } else {
        let v = s.bits() & crate::value::mask(bit_width(st));
        match to {
            ScalarType::F32 => Scalar::F32(v as f32),
            ScalarType::F64 => Scalar::F64(v as f64),
            _ => Scalar::F16(f16::from_f32(v as f32)),
        }
    }
}

/// `ConvertFtoF` of one component.
#[inline]
pub fn f_to_f(s: Scalar, to: ScalarType) -> Scalar {
    f_to_f_in(s, to, &FpModes::IEEE)
}

/// `ConvertFtoF` of one component under the float modes `modes`.
#[inline]
pub fn f_to_f_in(s: Scalar, to: ScalarType, modes: &FpModes) -> Scalar {
    let from = float_type(s.ty());
    let to = float_type(to);
    let x = flush_in(to_f64(s, from), from, modes.get(from));
    round_result(x, 0.0, to, modes.get(to))
}

/// `ConvertItoI` of one component.
#[inline]
pub fn i_to_i(s: Scalar, to: ScalarType) -> Scalar {
    let st = crate::int::int_type(s.ty());
    let b = if st.is_signed_int() {
        s.sext_bits()
    } else {
        s.bits() & crate::value::mask(bit_width(st))
    };
    Scalar::from_bits(crate::int::int_type(to), b)
}

/// f32 → f16 bits with round-toward-zero and ±65504 clamping of finite values.
#[inline]
pub fn f32_to_f16_rtz(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    if x.is_infinite() {
        return sign | 0x7c00;
    }
    let a = x.abs();
    if a >= 65504.0 {
        return sign | 0x7bff;
    }
    // Truncate: the largest f16 whose magnitude is <= a.
    let h = f16::from_f32(a);
    let hb = if h.to_f32() > a {
        h.to_bits() - 1
    } else {
        h.to_bits()
    };
    sign | hb
}

/// `ConvertF32toPackedF16` of a two-component vector. Each component is read as the float
/// type it holds: raw IR may feed an `f16x2` (a lowered `minf16x2`), whose values convert
/// exactly.
#[inline]
pub fn pack_f16(lo: Scalar, hi: Scalar) -> u32 {
    let c = |s: Scalar| f32_to_f16_rtz(to_f64(s, s.ty()) as f32) as u32;
    c(lo) | (c(hi) << 16)
}

/// `ConvertPackedF16toF32`.
#[inline]
pub fn unpack_f16(v: u32) -> (f32, f32) {
    (
        f16::from_bits(v as u16).to_f32(),
        f16::from_bits((v >> 16) as u16).to_f32(),
    )
}

/// `Cast` of a list of components to `n` components of type `to`: bits concatenated
/// little-endian. `None` if the total sizes differ.
#[inline]
pub fn cast(src: &[Scalar], to: ScalarType, n: usize) -> Option<Vec<Scalar>> {
    let sw = |t: ScalarType| {
        if effective(t) == ScalarType::Bool {
            32
        } else {
            bit_width(t)
        }
    };
    let total: u32 = src.iter().map(|s| sw(s.ty())).sum();
    let tw = sw(to);
    if src.len() == n && src.iter().all(|s| sw(s.ty()) == tw) {
        return Some(
            src.iter()
                .map(|s| Scalar::from_bits(to, s.bits()))
                .collect(),
        );
    }
    if total != tw * n as u32 {
        return None;
    }
    let mut bits: u128 = 0;
    let mut off = 0;
    for s in src {
        bits |= ((s.bits() & crate::value::mask(sw(s.ty()))) as u128) << off;
        off += sw(s.ty());
    }
    Some(
        (0..n)
            .map(|i| Scalar::from_bits(to, (bits >> (i as u32 * tw)) as u64))
            .collect(),
    )
}

fn size32(t: ScalarType) -> ScalarType {
    match effective(t) {
        ScalarType::F16 | ScalarType::F32 => ScalarType::F32,
        ScalarType::I8 | ScalarType::I16 | ScalarType::I32 => ScalarType::I32,
        ScalarType::F64 | ScalarType::I64 | ScalarType::U64 => effective(t),
        ScalarType::Bool => ScalarType::Bool,
        _ => ScalarType::U32,
    }
}

fn convert_any(s: Scalar, to: ScalarType, modes: &FpModes) -> Scalar {
    let from = effective(s.ty());
    let to = effective(to);
    if from == to {
        return s;
    }
    match (from, to) {
        (ScalarType::Bool, t) if t.is_float() => from_f64(s.bits() as f64, t),
        (ScalarType::Bool, t) => Scalar::from_bits(t, s.bits()),
        (f, ScalarType::Bool) if f.is_float() => Scalar::Bool(to_f64(s, f) != 0.0),
        (_, ScalarType::Bool) => Scalar::Bool(s.bits() != 0),
        (f, t) if f.is_float() && t.is_float() => f_to_f_in(s, t, modes),
        (f, t) if f.is_float() => f_to_i(s, t),
        (_, t) if t.is_float() => i_to_f(s, t),
        (_, t) => i_to_i(s, t),
    }
}

/// `ConsumeAs` of one component (reference §B.5).
#[inline]
pub fn consume_as(s: Scalar, to: ScalarType) -> Scalar {
    consume_as_in(s, to, &FpModes::IEEE)
}

/// `ConsumeAs` of one component under the float modes `modes` (they apply to its float→float
/// conversion steps).
#[inline]
pub fn consume_as_in(s: Scalar, to: ScalarType, modes: &FpModes) -> Scalar {
    let from = effective(s.ty());
    let to = effective(to);
    if from == to {
        return s;
    }
    if from == ScalarType::Bool || to == ScalarType::Bool {
        return convert_any(s, to, modes);
    }
    let size = |t: ScalarType| crate::access::scalar_size(t);
    if size(from) == size(to) {
        return Scalar::from_bits(to, s.bits());
    }
    if (from.is_float() && to.is_float()) || (from.is_int() && to.is_int()) {
        return convert_any(s, to, modes);
    }
    let (s32, d32) = (size32(from), size32(to));
    let a = convert_any(s, s32, modes);
    let b = if size(s32) == size(d32) {
        Scalar::from_bits(d32, a.bits())
    } else {
        convert_any(a, d32, modes)
    };
    convert_any(b, to, modes)
}

#[cfg(test)]
mod pack_tests {
    use super::*;

    #[test]
    fn pack_f16_reads_each_operand_as_its_own_type() {
        // 1.5 and -2.0 in f32 and in f16 pack to the same halves (0x3E00, 0xC000).
        let from_f32 = pack_f16(Scalar::F32(1.5), Scalar::F32(-2.0));
        let from_f16 = pack_f16(
            Scalar::F16(f16::from_f32(1.5)),
            Scalar::F16(f16::from_f32(-2.0)),
        );
        assert_eq!(from_f32, 0xC000_3E00);
        assert_eq!(from_f16, 0xC000_3E00);
    }
}
