//! Op-family tests: float (incl. legacy and edge cases), integer, bit and conversion ops.
//! Expected values are computed by hand from the documented semantics.

mod common;
use common::*;
use half::f16;
use irc_ir::{OpCode as O, ScalarType as T};

#[test]
fn float_basics_and_edge_cases() {
    let inf = f32::INFINITY;
    let r = eval(|s| {
        let (a, b) = (s.f32(1.5), s.f32(2.25));
        let zero = s.f32(0.0);
        let nzero = s.f32(-0.0);
        let one = s.f32(1.0);
        let i = s.f32(inf);
        let nan = s.f32(f32::NAN);
        let four = s.f32(4.0);
        let m25 = s.f32(-2.5);
        let q = s.f32(-0.25);
        vec![
            s.op2(O::FAdd, T::F32, a, b),             // 0: 3.75
            s.op2(O::FMul, T::F32, zero, i),          // 1: NaN
            s.op2(O::FMin, T::F32, nan, one),         // 2: 1
            s.op2(O::FMax, T::F32, nzero, zero),      // 3: +0
            s.op2(O::FMin, T::F32, zero, nzero),      // 4: -0
            s.op1(O::FRsq, T::F32, four),             // 5: 0.5
            s.op1(O::FRcp, T::F32, zero),             // 6: +inf
            s.op2(O::FDiv, T::F32, zero, zero),       // 7: NaN
            s.op1(O::FFract, T::F32, q),              // 8: 0.75
            s.op1(O::FSgn, T::F32, m25),              // 9: -1
            s.op1(O::FSgn, T::F32, nzero),            // 10: -0
            s.op3(O::FClamp, T::F32, nan, zero, one), // 11: 0
            s.op2(O::FEq, T::Bool, nan, nan),         // 12: false
            s.op2(O::FNe, T::Bool, nan, nan),         // 13: true
            s.op2(O::FLt, T::Bool, nan, one),         // 14: false
            s.op1(O::FNeg, T::F32, zero),             // 15: -0
            s.op1(O::FAbs, T::F32, nzero),            // 16: +0
            s.op1(O::FIsNan, T::Bool, nan),           // 17: true
        ]
    });
    assert_eq!(f32_of(&r[0]), 3.75);
    assert!(f32_of(&r[1]).is_nan());
    assert_eq!(f32_of(&r[2]), 1.0);
    assert_eq!(bits(&r[3]), 0);
    assert_eq!(bits(&r[4]), 0x8000_0000);
    assert_eq!(f32_of(&r[5]), 0.5);
    assert_eq!(f32_of(&r[6]), inf);
    assert!(f32_of(&r[7]).is_nan());
    assert_eq!(f32_of(&r[8]), 0.75);
    assert_eq!(f32_of(&r[9]), -1.0);
    assert_eq!(bits(&r[10]), 0x8000_0000);
    assert_eq!(bits(&r[11]), 0);
    assert_eq!(bits(&r[12]), 0);
    assert_eq!(bits(&r[13]), 1);
    assert_eq!(bits(&r[14]), 0);
    assert_eq!(bits(&r[15]), 0x8000_0000);
    assert_eq!(bits(&r[16]), 0);
    assert_eq!(bits(&r[17]), 1);
}

#[test]
fn fmad_is_not_fused() {
    // a*b = 1 + 2^-11 + 2^-24 exactly; rounded to f32 that is 1 + 2^-11 (tie to even), so
    // round(a*b) + c = 0, while a fused multiply-add would give 2^-24.
    let a = 1.0 + 2f32.powi(-12);
    let c = -(1.0 + 2f32.powi(-11));
    let r = eval(|s| {
        let (x, z) = (s.f32(a), s.f32(c));
        vec![s.op3(O::FMad, T::F32, x, x, z)]
    });
    assert_eq!(f32_of(&r[0]), 0.0);
}

#[test]
fn rounding_modes() {
    let r = eval(|s| {
        let v = s.f32(-2.5);
        [1u64, 2, 4, 8]
            .iter()
            .map(|&m| s.add(irc_ir::Op::new(O::FRound, T::F32).arg(v).lit(m)))
            .collect()
    });
    let got: Vec<f32> = r.iter().map(f32_of).collect();
    assert_eq!(got, vec![-2.0, -2.0, -3.0, -2.0]);
}

#[test]
fn legacy_ops() {
    let r = eval(|s| {
        let zero = s.f32(0.0);
        let nzero = s.f32(-0.0);
        let inf = s.f32(f32::INFINITY);
        let nan = s.f32(f32::NAN);
        let five = s.f32(5.0);
        let two = s.f32(2.0);
        let three = s.f32(3.0);
        let m8 = s.f32(-8.0);
        let va = s.vec2_f32(zero, two);
        let vb = s.vec2_f32(inf, three);
        vec![
            s.op2(O::FMulLegacy, T::F32, zero, inf),      // 0: 0
            s.op2(O::FMulLegacy, T::F32, nan, zero),      // 1: 0
            s.op2(O::FMulLegacy, T::F32, nzero, five),    // 2: -0 (as the select lowering)
            s.op3(O::FMadLegacy, T::F32, zero, inf, two), // 3: 2
            s.op2(O::FDotLegacy, T::F32, va, vb),         // 4: 6
            s.op2(O::FDot, T::F32, va, vb),               // 5: NaN (0*inf)
            s.op1(O::FLog2Legacy, T::F32, zero),          // 6: -FLT_MAX
            s.op1(O::FLog2Legacy, T::F32, m8),            // 7: 3
            s.op2(O::FPowLegacy, T::F32, zero, zero),     // 8: exp2(0 * -inf -> 0) = 1
            s.op2(O::FPowLegacy, T::F32, two, three),     // 9: 8
            s.op1(O::FLog2Legacy, T::F32, nan),           // 10: NaN
        ]
    });
    assert_eq!(bits(&r[0]), 0);
    assert_eq!(bits(&r[1]), 0);
    assert_eq!(bits(&r[2]), 0x8000_0000);
    assert_eq!(f32_of(&r[3]), 2.0);
    assert_eq!(f32_of(&r[4]), 6.0);
    assert!(f32_of(&r[5]).is_nan());
    assert_eq!(f32_of(&r[6]), -f32::MAX);
    assert_eq!(f32_of(&r[7]), 3.0);
    assert_eq!(f32_of(&r[8]), 1.0);
    assert_eq!(f32_of(&r[9]), 8.0);
    assert!(f32_of(&r[10]).is_nan());
}

/// The `legacy-mul=ieee` oracle: the legacy products are IEEE products (`0 · inf` and
/// `0 · NaN` are NaN), the pow's multiply too; nothing is clamped; `FLog2Legacy` stays exact.
#[test]
fn legacy_ops_as_ieee() {
    let cfg = irc_interp::RunConfig {
        legacy_ieee: true,
        ..Default::default()
    };
    let r = eval_with(&cfg, |s| {
        let zero = s.f32(0.0);
        let nzero = s.f32(-0.0);
        let inf = s.f32(f32::INFINITY);
        let nan = s.f32(f32::NAN);
        let five = s.f32(5.0);
        let two = s.f32(2.0);
        let three = s.f32(3.0);
        let big = s.f32(f32::MAX);
        let va = s.vec2_f32(zero, two);
        let vb = s.vec2_f32(inf, three);
        vec![
            s.op2(O::FMulLegacy, T::F32, zero, inf),      // 0: NaN
            s.op2(O::FMulLegacy, T::F32, nan, zero),      // 1: NaN
            s.op2(O::FMulLegacy, T::F32, nzero, five),    // 2: -0
            s.op3(O::FMadLegacy, T::F32, zero, inf, two), // 3: NaN
            s.op2(O::FDotLegacy, T::F32, va, vb),         // 4: NaN (0 * inf)
            s.op1(O::FLog2Legacy, T::F32, zero),          // 5: -FLT_MAX (exact)
            s.op2(O::FPowLegacy, T::F32, zero, zero),     // 6: exp2(0 * -inf) = NaN
            s.op2(O::FPowLegacy, T::F32, two, three),     // 7: 8
            s.op2(O::FMulLegacy, T::F32, big, two),       // 8: +inf (not clamped)
            s.op1(O::FRcp, T::F32, zero),                 // 9: +inf (not clamped)
        ]
    });
    assert!(f32_of(&r[0]).is_nan());
    assert!(f32_of(&r[1]).is_nan());
    assert_eq!(bits(&r[2]), 0x8000_0000);
    assert!(f32_of(&r[3]).is_nan());
    assert!(f32_of(&r[4]).is_nan());
    assert_eq!(f32_of(&r[5]), -f32::MAX);
    assert!(f32_of(&r[6]).is_nan());
    assert_eq!(f32_of(&r[7]), 8.0);
    assert_eq!(f32_of(&r[8]), f32::INFINITY);
    assert_eq!(f32_of(&r[9]), f32::INFINITY);
}

/// The `legacy-mul=finite` oracle: each factor goes through `FClamp(x, −B, B)` first (here
/// `B` = 65504, the fp16 bound), then the IEEE op: `0 · x` is ±0 for every `x`; an infinite
/// factor counts as `±B`, a NaN one as `−B`; `FLog2Legacy` stays exact.
#[test]
fn legacy_ops_with_finite_factors() {
    let cfg = irc_interp::RunConfig {
        legacy_finite: Some(65504.0),
        ..Default::default()
    };
    let r = eval_with(&cfg, |s| {
        let zero = s.f32(0.0);
        let inf = s.f32(f32::INFINITY);
        let ninf = s.f32(f32::NEG_INFINITY);
        let nan = s.f32(f32::NAN);
        let half = s.f32(0.5);
        let two = s.f32(2.0);
        let three = s.f32(3.0);
        let big = s.f32(1.0e6);
        let va = s.vec2_f32(zero, two);
        let vb = s.vec2_f32(inf, three);
        vec![
            s.op2(O::FMulLegacy, T::F32, zero, inf),      // 0: +0
            s.op2(O::FMulLegacy, T::F32, nan, zero),      // 1: -65504 * 0 = -0
            s.op2(O::FMulLegacy, T::F32, half, inf),      // 2: 32752
            s.op2(O::FMulLegacy, T::F32, ninf, three),    // 3: -196512
            s.op2(O::FMulLegacy, T::F32, nan, two),       // 4: -131008
            s.op3(O::FMadLegacy, T::F32, zero, inf, two), // 5: 0 + 2 = 2
            s.op2(O::FDotLegacy, T::F32, va, vb),         // 6: 0 * 65504 + 2 * 3 = 6
            s.op2(O::FPowLegacy, T::F32, zero, zero),     // 7: exp2(0 * -65504) = 1
            s.op2(O::FMulLegacy, T::F32, big, two),       // 8: 65504 * 2 = 131008
            s.op1(O::FLog2Legacy, T::F32, zero),          // 9: -FLT_MAX (exact)
            s.op2(O::FMul, T::F32, zero, inf),            // 10: IEEE ops unchanged: NaN
        ]
    });
    assert_eq!(bits(&r[0]), 0);
    assert_eq!(bits(&r[1]), 0x8000_0000);
    assert_eq!(f32_of(&r[2]), 32752.0);
    assert_eq!(f32_of(&r[3]), -196512.0);
    assert_eq!(f32_of(&r[4]), -131008.0);
    assert_eq!(f32_of(&r[5]), 2.0);
    assert_eq!(f32_of(&r[6]), 6.0);
    assert_eq!(f32_of(&r[7]), 1.0);
    assert_eq!(f32_of(&r[8]), 131008.0);
    assert_eq!(f32_of(&r[9]), -f32::MAX);
    assert!(f32_of(&r[10]).is_nan());
}

#[test]
fn f16_rounds_every_op() {
    // 1 + 2^-11 is half an f16 ulp above 1: ties to even gives 1.0.
    let r = eval(|s| {
        let one = s.b().const_f16(f16::from_f32(1.0));
        let tiny = s.b().const_f16(f16::from_f32(2f32.powi(-11)));
        let sum = s.op2(O::FAdd, T::F16, one, tiny);
        let back = s.op2(O::FSub, T::F16, sum, one);
        vec![sum, back]
    });
    assert_eq!(bits(&r[0]), 0x3c00);
    assert_eq!(bits(&r[1]), 0);
}

#[test]
fn integer_ops() {
    let r = eval(|s| {
        let max = s.u32(u32::MAX);
        let one = s.u32(1);
        let n33 = s.u32(33);
        let m8 = s.i32(-8);
        let i1 = s.i32(1);
        let hi = s.u32(0x8000_0000);
        let n31 = s.u32(31);
        let five = s.u32(5);
        let zero = s.u32(0);
        let seven = s.u32(7);
        let two = s.u32(2);
        let imin = s.i32(i32::MIN);
        let m1 = s.i32(-1);
        vec![
            s.op2(O::IAdd, T::U32, max, one),   // 0: 0
            s.op2(O::IShl, T::U32, one, n33),   // 1: 2 (count masked)
            s.op2(O::SShr, T::I32, m8, i1),     // 2: -4
            s.op2(O::UShr, T::U32, hi, n31),    // 3: 1
            s.op2(O::UDiv, T::U32, five, zero), // 4: all ones
            s.op2(O::UMod, T::U32, five, zero), // 5: all ones
            s.op2(O::UDiv, T::U32, seven, two), // 6: 3
            s.op1(O::IAbs, T::I32, imin),       // 7: INT_MIN
            s.op2(O::SMin, T::I32, m1, i1),     // 8: -1
            s.op2(O::UMin, T::U32, max, one),   // 9: 1
            s.op1(O::INeg, T::I32, i1),         // 10: -1
            s.op2(O::IMul, T::U32, hi, two),    // 11: 0
        ]
    });
    let got: Vec<u64> = r.iter().map(bits).collect();
    assert_eq!(
        got,
        vec![
            0,
            2,
            (-4i32) as u32 as u64,
            1,
            0xffff_ffff,
            0xffff_ffff,
            3,
            0x8000_0000,
            0xffff_ffff,
            1,
            0xffff_ffff,
            0
        ]
    );
}

#[test]
fn bit_ops() {
    let r = eval(|s| {
        let ones = s.u32(0xffff_ffff);
        let zero = s.u32(0);
        let four = s.u32(4);
        let eight = s.u32(8);
        let v = s.u32(0xabcd_1234);
        let f0 = s.u32(0xf0);
        let n28 = s.u32(28);
        let m1 = s.i32(-1);
        let m2 = s.i32(-2);
        let p5 = s.i32(5);
        let ff = s.u32(0xff00_ff00);
        let one = s.u32(1);
        let sixteen = s.u32(0x10);
        let n36 = s.u32(36);
        vec![
            s.add(
                irc_ir::Op::new(O::IBitInsert, T::U32)
                    .arg(ones)
                    .arg(zero)
                    .arg(four)
                    .arg(eight),
            ), // 0
            s.op3(O::UBitExtract, T::U32, v, four, eight), // 1: 0x23
            s.op3(O::SBitExtract, T::U32, f0, four, four), // 2: all ones
            s.op3(O::UBitExtract, T::U32, v, n28, eight),  // 3: 0xa (field truncated)
            s.op1(O::IBitCount, T::U32, ff),               // 4: 16
            s.op1(O::IBitReverse, T::U32, one),            // 5: 0x80000000
            s.op1(O::IFindLsb, T::U32, zero),              // 6: -1
            s.op1(O::IFindLsb, T::U32, eight),             // 7: 3
            s.op1(O::UFindMsb, T::U32, sixteen),           // 8: 4
            s.op1(O::SFindMsb, T::I32, m1),                // 9: -1
            s.op1(O::SFindMsb, T::I32, m2),                // 10: 0
            s.op1(O::SFindMsb, T::I32, p5),                // 11: 2
            s.op3(O::UBitExtract, T::U32, v, n36, eight),  // 12: offset masked to 4: 0x23
        ]
    });
    let got: Vec<u64> = r.iter().map(bits).collect();
    assert_eq!(
        got,
        vec![
            0xffff_f00f,
            0x23,
            0xffff_ffff,
            0xa,
            16,
            0x8000_0000,
            0xffff_ffff,
            3,
            4,
            0xffff_ffff,
            0,
            2,
            0x23
        ]
    );
}

#[test]
fn extended_arith_and_msad() {
    let r = eval(|s| {
        let max = s.u32(u32::MAX);
        let two = s.u32(2);
        let one = s.u32(1);
        let hi = s.u32(0x8000_0000);
        let four = s.u32(4);
        let m2 = s.i32(-2);
        let three = s.i32(3);
        let rf = s.u32(0x0102_0300);
        let src = s.u32(0x0302_0100);
        let ten = s.u32(10);
        let v2 = irc_ir::Type::vector(T::U32, 2);
        let i2 = irc_ir::Type::vector(T::I32, 2);
        vec![
            s.add(irc_ir::Op::new(O::IAddCarry, v2.clone()).arg(max).arg(two)),
            s.add(irc_ir::Op::new(O::ISubBorrow, v2.clone()).arg(one).arg(two)),
            s.add(irc_ir::Op::new(O::UMulExtended, v2).arg(hi).arg(four)),
            s.add(irc_ir::Op::new(O::SMulExtended, i2).arg(m2).arg(three)),
            s.op3(O::UMSad, T::U32, rf, src, ten),
        ]
    });
    let c = |v: &irc_interp::Value| {
        v.components()
            .unwrap()
            .iter()
            .map(|s| s.bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(c(&r[0]), vec![1, 1]);
    assert_eq!(c(&r[1]), vec![0xffff_ffff, 1]);
    assert_eq!(c(&r[2]), vec![0, 2]);
    assert_eq!(c(&r[3]), vec![(-6i32) as u32 as u64, 0xffff_ffff]);
    assert_eq!(bits(&r[4]), 14);
}

#[test]
fn conversions() {
    let r = eval(|s| {
        let a = s.f32(3.9);
        let b = s.f32(-3.9);
        let nan = s.f32(f32::NAN);
        let big = s.f32(1e10);
        let nbig = s.f32(-1e10);
        let m1 = s.f32(-1.0);
        let umax = s.u32(u32::MAX);
        let odd = s.i32(16_777_217);
        let one = s.f32(1.0);
        let huge = s.f32(65536.0);
        let rtz = s.f32(1.0 + 0.75 * 2f32.powi(-10));
        let inf = s.f32(f32::INFINITY);
        let v1 = s.vec2_f32(one, huge);
        let v2 = s.vec2_f32(rtz, inf);
        let m15 = s.f32(-1.5);
        let h1 = s.b().const_f16(f16::from_f32(1.0));
        let s16 = s.b().constant(T::I16, &[(-1i64) as u64]);
        let sm2 = s.b().constant(T::I16, &[(-2i64) as u64]);
        vec![
            s.op1(O::ConvertFtoI, T::I32, a),            // 0: 3
            s.op1(O::ConvertFtoI, T::I32, b),            // 1: -3
            s.op1(O::ConvertFtoI, T::I32, nan),          // 2: 0
            s.op1(O::ConvertFtoI, T::I32, big),          // 3: i32::MAX
            s.op1(O::ConvertFtoI, T::I32, nbig),         // 4: i32::MIN
            s.op1(O::ConvertFtoI, T::U32, m1),           // 5: 0
            s.op1(O::ConvertFtoI, T::U32, big),          // 6: u32::MAX
            s.op1(O::ConvertItoF, T::F32, umax),         // 7: 4294967296
            s.op1(O::ConvertItoF, T::F32, odd),          // 8: 16777216 (ties to even)
            s.op1(O::ConvertF32toPackedF16, T::U32, v1), // 9: 0x7bff3c00
            s.op1(O::ConvertF32toPackedF16, T::U32, v2), // 10: 0x7c003c00 (RTZ)
            s.op1(O::Cast, T::U32, one),                 // 11: 0x3f800000
            s.op1(O::ConsumeAs, T::I32, m15),            // 12: bits of -1.5
            s.op1(O::ConsumeAs, T::U32, h1),             // 13: f16 -> f32 -> bits
            s.op1(O::ConsumeAs, T::F32, s16),            // 14: i16 -1 -> i32 -1 -> bits 0xffffffff
            s.op1(O::ConvertItoI, T::U32, sm2),          // 15: sign-extended
        ]
    });
    let got: Vec<u64> = r.iter().map(bits).collect();
    assert_eq!(
        got[0..7],
        [
            3,
            (-3i32) as u32 as u64,
            0,
            0x7fff_ffff,
            0x8000_0000,
            0,
            0xffff_ffff
        ]
    );
    assert_eq!(f32::from_bits(got[7] as u32), 4294967296.0);
    assert_eq!(f32::from_bits(got[8] as u32), 16777216.0);
    assert_eq!(got[9], 0x7bff_3c00);
    assert_eq!(got[10], 0x7c00_3c00);
    assert_eq!(got[11], 0x3f80_0000);
    assert_eq!(got[12], 0xbfc0_0000);
    assert_eq!(got[13], 0x3f80_0000);
    assert_eq!(got[14], 0xffff_ffff);
    assert_eq!(got[15], 0xffff_fffe);
    let p = eval(|s| {
        let pk = s.u32(0xc000_3c00);
        vec![s.add(
            irc_ir::Op::new(O::ConvertPackedF16toF32, irc_ir::Type::vector(T::F32, 2)).arg(pk),
        )]
    });
    assert_eq!(p[0], irc_interp::Value::f32s(&[1.0, -2.0]));
}
