//! Robust accesses, min-precision constants, GS inputs/outputs and the zero-product oracle:
//! the fixes found by the corpus raw-vs-legalized comparison. Expected values are derived by
//! hand from the rules in the crate docs.

mod common;

use common::*;
use irc_interp::{run, IoSlot, RunConfig, ShaderInputs, TrapKind, Value};
use irc_ir::{BuiltIn, Op, OpCode, OpFlags, ScalarType, ShaderStage, Type};

#[test]
fn min_precision_constants_hold_f32_bits() {
    // Reference §A.7: a minf16 literal is the 32-bit float pattern; it evaluates as f16.
    // 4.0f = 0x40800000 → f16 0x4400. 0.1f = 0x3dcccccd → f16: 0.1 = 1.6·2⁻⁴, exponent field
    // 11 (0x2c00), mantissa 0.6·1024 = 614.4 → 614 (0x266) → 0x2e66.
    let v = eval(|s| {
        let (k0, k1) = (s.u32(0), s.u32(1));
        let c = s.b().constant(
            Type::vector(ScalarType::MinF16, 2),
            &[0x4080_0000, 0x3dcc_cccd],
        );
        let x = s.add(
            Op::new(OpCode::CompositeExtract, ScalarType::MinF16)
                .arg(c)
                .arg(k0),
        );
        let y = s.add(
            Op::new(OpCode::CompositeExtract, ScalarType::MinF16)
                .arg(c)
                .arg(k1),
        );
        vec![x, y]
    });
    assert_eq!(bits(&v[0]), 0x4400);
    assert_eq!(bits(&v[1]), 0x2e66);
    // MinI16 literals are i32 values: −2 (sign-extended) → i16 0xfffe.
    let v = eval(|s| vec![s.b().constant(ScalarType::MinI16, &[(-2i64) as u64])]);
    assert_eq!(bits(&v[0]), 0xfffe);
}

#[test]
fn constant_load_out_of_range_reads_zero() {
    // dxbc-spirv's bound checking pads constant arrays with a zero element and clamps the
    // index: out-of-range array indices read 0.
    let v = eval(|s| {
        let (k1, k2, k3) = (s.u32(1), s.u32(2), s.u32(3));
        let k0xfffffffe = s.u32(0xffff_fffe);
        let arr = s.b().constant(
            Type::scalar(ScalarType::F32).array_of(2),
            &[0x3f80_0000, 0x4000_0000],
        );
        let vec_arr = s.b().constant(
            Type::vector(ScalarType::F32, 2).array_of(2),
            &[1, 2, 3, 4].map(|x: u32| (x as f32).to_bits() as u64),
        );
        let in_range = s.add(
            Op::new(OpCode::ConstantLoad, ScalarType::F32)
                .arg(arr)
                .arg(k1),
        );
        let past = s.add(
            Op::new(OpCode::ConstantLoad, ScalarType::F32)
                .arg(arr)
                .arg(k2),
        );
        let huge = s.add(
            Op::new(OpCode::ConstantLoad, ScalarType::F32)
                .arg(arr)
                .arg(k0xfffffffe),
        );
        let idx = s.b().constant(Type::vector(ScalarType::U32, 2), &[5, 1]);
        let elem = s.add(
            Op::new(OpCode::ConstantLoad, ScalarType::F32)
                .arg(vec_arr)
                .arg(idx),
        );
        let whole = s.add(
            Op::new(OpCode::ConstantLoad, Type::vector(ScalarType::F32, 2))
                .arg(vec_arr)
                .arg(k3),
        );
        let ok = s.b().constant(Type::vector(ScalarType::U32, 2), &[1, 1]);
        let elem_ok = s.add(
            Op::new(OpCode::ConstantLoad, ScalarType::F32)
                .arg(vec_arr)
                .arg(ok),
        );
        vec![in_range, past, huge, elem, whole, elem_ok]
    });
    assert_eq!(f32_of(&v[0]), 2.0);
    assert_eq!(bits(&v[1]), 0);
    assert_eq!(bits(&v[2]), 0);
    assert_eq!(bits(&v[3]), 0);
    assert_eq!(v[4], Value::f32s(&[0.0, 0.0]));
    assert_eq!(f32_of(&v[5]), 4.0);
}

#[test]
fn constant_load_vector_component_out_of_range_still_traps() {
    // Only array dimensions are bound-checked; a component index past the vector is malformed.
    let mut s = Sh::new(ShaderStage::Vertex);
    let vec_arr = s
        .b()
        .constant(Type::vector(ScalarType::F32, 2).array_of(2), &[0, 0, 0, 0]);
    let idx = s.b().constant(Type::vector(ScalarType::U32, 2), &[0, 2]);
    let l = s.add(
        Op::new(OpCode::ConstantLoad, ScalarType::F32)
            .arg(vec_arr)
            .arg(idx),
    );
    s.output(l);
    s.finish();
    let t = run(&s.m, &ShaderInputs::default(), &RunConfig::default()).unwrap_err();
    assert_eq!(t.kind, TrapKind::OutOfBounds);
}

/// A vertex shader loading `decl[index]` of an `f32x4[256]` input declared by `dcl`.
fn input_array_load(builtin: Option<BuiltIn>, index: u32) -> Result<Value, TrapKind> {
    let mut s = Sh::new(ShaderStage::Vertex);
    let ep = s.ep;
    let ty = Type::vector(ScalarType::F32, 4).array_of(256);
    let dcl = match builtin {
        Some(b) => s.add(Op::new(OpCode::DclInputBuiltIn, ty).arg(ep).lit(b.to_u64())),
        None => s.add(Op::new(OpCode::DclInput, ty).arg(ep).lit(0).lit(0)),
    };
    let i = s.u32(index);
    let l = s.add(
        Op::new(OpCode::InputLoad, Type::vector(ScalarType::F32, 4))
            .arg(dcl)
            .arg(i),
    );
    s.output(l);
    s.finish();
    let inputs = ShaderInputs::random(&s.m, 3);
    run(&s.m, &inputs, &RunConfig::default())
        .map(|o| Sh::out(&o, 0, 0))
        .map_err(|t| t.kind)
}

#[test]
fn legacy_constant_registers_read_zero_past_the_end() {
    // D3D9 `c[a0.x + n]` past the declared registers reads 0 (DXVK over-declares the constant
    // buffer by one zero element and clamps dynamic indices).
    let zero = Value::f32s(&[0.0; 4]);
    assert_eq!(
        input_array_load(Some(BuiltIn::LegacyConstFloat), 256),
        Ok(zero.clone())
    );
    assert_eq!(
        input_array_load(Some(BuiltIn::LegacyConstFloat), u32::MAX),
        Ok(zero)
    );
    assert!(input_array_load(Some(BuiltIn::LegacyConstFloat), 255).is_ok());
    // Ordinary input arrays still trap.
    assert_eq!(input_array_load(None, 256), Err(TrapKind::OutOfBounds));
}

/// `FMul(a, b)` (and `FMad(a, b, c)` if `c` is given) of f32 constants, with `flags` and an
/// optional `SetFpMode f32 [precise]`, run with `fold_zero_products` on or off.
fn mul(a: f32, b: f32, c: Option<f32>, flags: OpFlags, precise_mode: bool, fold: bool) -> u32 {
    let mut s = Sh::new(ShaderStage::Vertex);
    if precise_mode {
        let ep = s.ep;
        let mut op = Op::new(OpCode::SetFpMode, ScalarType::F32)
            .arg(ep)
            .lit(0)
            .lit(0);
        op.flags = OpFlags::PRECISE;
        s.add(op);
    }
    let (x, y) = (s.f32(a), s.f32(b));
    let mut op = match c {
        Some(c) => {
            let z = s.f32(c);
            Op::new(OpCode::FMad, ScalarType::F32).arg(x).arg(y).arg(z)
        }
        None => Op::new(OpCode::FMul, ScalarType::F32).arg(x).arg(y),
    };
    op.flags = flags;
    let r = s.add(op);
    s.output(r);
    s.finish();
    let cfg = RunConfig {
        fold_zero_products: fold,
        ..RunConfig::default()
    };
    let o = run(&s.m, &ShaderInputs::default(), &cfg).unwrap();
    bits(&Sh::out(&o, 0, 0)) as u32
}

#[test]
fn zero_product_oracle() {
    let none = OpFlags::NONE;
    let inf = f32::INFINITY;
    // IEEE by default: inf · 0 = NaN; NaN · 0 + 3 = NaN.
    assert!(f32::from_bits(mul(inf, 0.0, None, none, false, false)).is_nan());
    assert!(f32::from_bits(mul(f32::NAN, 0.0, Some(3.0), none, false, false)).is_nan());
    // Folded: a · ±0 → +0, a · 0 + c → c (exactly c, also −0).
    assert_eq!(mul(inf, 0.0, None, none, false, true), 0);
    assert_eq!(mul(-0.0, f32::NAN, None, none, false, true), 0);
    assert_eq!(
        mul(f32::NAN, 0.0, Some(3.0), none, false, true),
        3.0f32.to_bits()
    );
    assert_eq!(mul(5.0, 0.0, Some(-0.0), none, false, true), 0x8000_0000);
    // Non-zero factors are unaffected: 1.5 · 2 = 3.
    assert_eq!(mul(1.5, 2.0, None, none, false, true), 3.0f32.to_bits());
    // Precise ops (own flag or a precise float mode) are never folded.
    assert!(f32::from_bits(mul(inf, 0.0, None, OpFlags::PRECISE, false, true)).is_nan());
    assert!(f32::from_bits(mul(inf, 0.0, None, none, true, true)).is_nan());
}

#[test]
fn gs_vertex_count_in_follows_the_input_primitive() {
    // Triangles (PrimitiveType 3) → 3 vertices, whatever the seed.
    let mut s = Sh::new(ShaderStage::Geometry);
    let ep = s.ep;
    s.add(
        Op::new(OpCode::SetGsInputPrimitive, Type::void())
            .arg(ep)
            .lit(3),
    );
    let dcl = s.add(
        Op::new(OpCode::DclInputBuiltIn, ScalarType::U32)
            .arg(ep)
            .lit(BuiltIn::GsVertexCountIn.to_u64()),
    );
    let l = s.add(
        Op::new(OpCode::InputLoad, ScalarType::U32)
            .arg(dcl)
            .arg(None::<irc_ir::SsaDef>),
    );
    s.output(l);
    s.finish();
    for seed in 0..8 {
        let inputs = ShaderInputs::random(&s.m, seed);
        let v = &inputs.invocations[0].io[&IoSlot::builtin(BuiltIn::GsVertexCountIn)];
        assert_eq!(*v, Value::Scalar(irc_interp::Scalar::U32(3)));
        assert_eq!(bits(&Sh::out(&s.run(&inputs), 0, 0)), 3);
    }
}

#[test]
fn gs_final_outputs_of_shared_slots_report_stream_zero() {
    // Two outputs at location 0 in streams 1 and 0 (declared in that order): the per-lane
    // final value is stream 0's, independent of declaration order.
    let mut s = Sh::new(ShaderStage::Geometry);
    let ep = s.ep;
    let ty = Type::scalar(ScalarType::F32);
    let o1 = s.add(
        Op::new(OpCode::DclOutput, ty.clone())
            .arg(ep)
            .lit(0)
            .lit(0)
            .lit(1),
    );
    let o0 = s.add(Op::new(OpCode::DclOutput, ty).arg(ep).lit(0).lit(0).lit(0));
    for (o, v) in [(o1, 1.0), (o0, 2.0)] {
        let c = s.f32(v);
        s.add(
            Op::new(OpCode::OutputStore, Type::void())
                .arg(o)
                .arg(None::<irc_ir::SsaDef>)
                .arg(c),
        );
    }
    s.finish();
    let out = s.run(&ShaderInputs::default());
    assert_eq!(f32_of(&Sh::out(&out, 0, 0)), 2.0);
}
