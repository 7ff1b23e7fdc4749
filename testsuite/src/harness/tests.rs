//! Tests of the harness itself, without the code generator: hand-assembled programs of a real
//! target (Lima PP, through its `Target` and `Simulator`) with a hand-written reflection
//! against small IR pixel shaders that compute the same thing. A correct program must match on
//! every seed; a deliberately wrong one (wrong register, wrong lane, wrong value, wrong
//! discard, wrong binding) must be reported, with the seed, lane, output and component named.

use super::*;
use crate::corpus::Row;
use irc_backend::reflection::{
    IoSource, OutputBinding, Reflection, ResourceBinding, SamplerBinding, SamplerKind,
    UniformBinding, UniformSource, VaryingBinding,
};
use irc_backend::Stats;
use irc_lima::pp::{asm::assemble, decode_program, disassemble_program, encode::encode_program};

/// The target whose simulator runs the hand-assembled programs.
const PP: &dyn Target = &irc_lima::pp::LimaFp;

fn module(text: &str) -> Module {
    let m = irc_ir::text::parse(text).unwrap_or_else(|e| panic!("{e}"));
    irc_ir::verifier::verify(&m).unwrap_or_else(|e| panic!("{e}"));
    m
}

fn output(asm: &str, reflection: Reflection) -> Output {
    let program = assemble(asm).unwrap_or_else(|e| panic!("assemble failed:\n{e}"));
    let words = encode_program(&program).expect("encodes");
    let disassembly = disassemble_program(&decode_program(&words).expect("decodes"));
    Output {
        sections: vec![irc_backend::Section {
            name: irc_backend::CODE,
            bytes: irc_backend::output::bytes_of(&words),
        }],
        disassembly,
        reflection,
        ..Default::default()
    }
}

fn loc(location: u32, component: u32) -> IoSource {
    IoSource::Location {
        location,
        component,
    }
}

fn varying(location: u32, slot: u32, lane: u8, components: u8) -> VaryingBinding {
    VaryingBinding {
        source: loc(location, 0),
        slot,
        lane,
        components,
    }
}

fn out(location: u32, register: u32, components: u8) -> OutputBinding {
    OutputBinding {
        target: loc(location, 0),
        register,
        components,
    }
}

fn cb(slot: u32, vec4_index: u32) -> UniformBinding {
    UniformBinding {
        slot,
        source: UniformSource::ConstantBuffer {
            binding: ResourceBinding {
                space: 0,
                register: 0,
            },
            vec4_index,
            int_lanes: 0,
        },
    }
}

/// Runs `seeds` seeds; `Ok(native-precision deviations)` or the first error.
fn run_seeds(m: &Module, o: &Output, seeds: u64) -> Result<u32, String> {
    let mut deviations = 0;
    for seed in 0..seeds {
        match compare_run(PP, m, m, o, seed, &[])? {
            RunVerdict::Matched { native_deviation } => {
                deviations += u32::from(native_deviation.is_some())
            }
            RunVerdict::NoReference(why) => panic!("no reference: {why}"),
        }
    }
    Ok(deviations)
}

/// o0 = v0 * cb0[0].
const MUL_IR: &str = "
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutput %1 0 0
%4 = f32x4[1] DclCbv %1 0 0 1
%5 = u32 Constant 0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = cbv DescriptorLoad %4 %5
  %24 = f32x4 BufferLoad %23 %5 16
  %25 = f32x4 FMul %22 %24
  %26 = OutputStore %3 null %25
  %27 = Return
%28 = FunctionEnd
";

fn mul_reflection(out_register: u32) -> Reflection {
    Reflection {
        varyings: vec![varying(0, 0, 0, 4)],
        uniforms: vec![cb(0, 0)],
        uniform_slots: 1,
        outputs: vec![out(0, out_register, 4)],
        ..Default::default()
    }
}

const MUL_ASM: &str = "load.v $0 0\nload.u 0, mul.v0 $1 $0 ^uniform, stop\n";

#[test]
fn a_correct_program_matches() {
    let m = module(MUL_IR);
    let o = output(MUL_ASM, mul_reflection(1));
    assert_eq!(run_seeds(&m, &o, 8), Ok(0));
}

#[test]
fn a_wrong_output_register_is_a_mismatch() {
    let m = module(MUL_IR);
    // $0 holds the varying, not the product.
    let o = output(MUL_ASM, mul_reflection(0));
    let e = run_seeds(&m, &o, 8).unwrap_err();
    for part in [
        "input seed ",
        "exact: lane ",
        "output o0.",
        "expected ",
        ", got ",
        "2 lines of disassembly",
    ] {
        assert!(e.contains(part), "`{part}` missing from: {e}");
    }
}

#[test]
fn a_wrong_lane_is_a_mismatch() {
    let m = module(MUL_IR);
    let o = output(
        "load.v $0 0\nload.u 0, mul.v0 $1 $0 ^uniform.yxzw, stop\n",
        mul_reflection(1),
    );
    let e = run_seeds(&m, &o, 8).unwrap_err();
    assert!(
        e.contains("output o0.x") || e.contains("output o0.y"),
        "{e}"
    );
    // The same mistake in the reflection: the varying delivered one lane off.
    let mut refl = mul_reflection(1);
    refl.varyings = vec![VaryingBinding {
        source: loc(0, 1),
        slot: 0,
        lane: 0,
        components: 3,
    }];
    let e = run_seeds(&m, &output(MUL_ASM, refl), 8).unwrap_err();
    assert!(e.contains("exact: lane"), "{e}");
}

#[test]
fn a_value_beyond_the_f32_tolerance_is_a_mismatch() {
    let m = module(MUL_IR);
    // + 0.01 after the multiply.
    let o = output(
        "load.v $0 0\nload.u 0, mul.v0 ^vmul $0 ^uniform, add.v1 $1 ^vmul ^const0, \
         const0 0.010000 0.010000 0.010000 0.010000, stop\n",
        mul_reflection(1),
    );
    let e = run_seeds(&m, &o, 1).unwrap_err();
    assert!(e.contains("exact: lane 0: output o0.x: expected"), "{e}");
}

#[test]
fn reflection_errors_are_reported() {
    let m = module(MUL_IR);
    // An output component the reflection leaves unbound.
    let e = run_seeds(
        &m,
        &output(MUL_ASM, mul_reflection_with_outputs(vec![out(0, 1, 3)])),
        1,
    )
    .unwrap_err();
    assert!(
        e.contains("coverage: output o0.w is not produced by the program"),
        "{e}"
    );
    // A varying the shader does not declare.
    let mut refl = mul_reflection(1);
    refl.varyings.push(varying(5, 1, 0, 1));
    let e = run_seeds(&m, &output(MUL_ASM, refl), 1).unwrap_err();
    assert!(e.contains("reads v5.x"), "{e}");
    // No output register beyond $5.
    let e = run_seeds(&m, &output(MUL_ASM, mul_reflection(6)), 1).unwrap_err();
    assert!(e.contains("$6"), "{e}");
}

fn mul_reflection_with_outputs(outputs: Vec<OutputBinding>) -> Reflection {
    Reflection {
        outputs,
        ..mul_reflection(1)
    }
}

/// o0 = ((v0 * cb0[0]) + 2048) - 2048: exact in f32 for the generator's values, off by up to
/// 1 in fp16 (the fp16 spacing at 2048 is 2).
const CANCEL_IR: &str = "
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutput %1 0 0
%4 = f32x4[1] DclCbv %1 0 0 1
%5 = u32 Constant 0
%6 = f32x4 Constant 2048.0 2048.0 2048.0 2048.0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = cbv DescriptorLoad %4 %5
  %24 = f32x4 BufferLoad %23 %5 16
  %25 = f32x4 FMul %22 %24
  %26 = f32x4 FAdd %25 %6
  %27 = f32x4 FSub %26 %6
  %28 = OutputStore %3 null %27
  %29 = Return
%30 = FunctionEnd
";

#[test]
fn fp16_precision_loss_is_a_deviation_not_a_failure() {
    let m = module(CANCEL_IR);
    let o = output(
        "load.v $0 0\n\
         load.u 0, mul.v0 ^vmul $0 ^uniform, add.v1 $1 ^vmul ^const0, \
         const0 2048.000000 2048.000000 2048.000000 2048.000000\n\
         add.v1 $1 $1 -^const0, const0 2048.000000 2048.000000 2048.000000 2048.000000, stop\n",
        mul_reflection(1),
    );
    let deviations = run_seeds(&m, &o, 8).expect("fp32 matches");
    assert!(deviations > 0, "fp16 loses the fraction below 2");
}

/// o0 = v0, discarded when v0.x < 0.
const DISCARD_IR: &str = "
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutput %1 0 0
%4 = f32 Constant 0.0
%5 = u32 Constant 0

%20 = Function
%21 = Label %30 StructuredSelection
  %22 = f32x4 InputLoad %2 null
  %23 = f32 CompositeExtract %22 %5
  %24 = bool FLt %23 %4
  %25 = BranchConditional %24 %29 %30
%29 = Label None
  %31 = Demote
  %32 = Branch %30
%30 = Label None
  %33 = OutputStore %3 null %22
  %34 = Return
%35 = FunctionEnd
";

#[test]
fn discards_must_agree() {
    let m = module(DISCARD_IR);
    let refl = Reflection {
        varyings: vec![varying(0, 0, 0, 4)],
        outputs: vec![out(0, 0, 4)],
        discards: true,
        ..Default::default()
    };
    // Never discarding: the first seed with a negative v0.x in some lane fails.
    let e = run_seeds(&m, &output("load.v $0 0, stop\n", refl.clone()), 8).unwrap_err();
    assert!(
        e.contains("the interpreter discards the pixel, the simulator keeps it"),
        "{e}"
    );
    // The real thing: branch over the discard when v0.x >= 0.
    let good = output(
        "load.v $0 0\n\
         branch.ge $0.x ^const0.x done, const0 0.000000 0.000000 0.000000 0.000000\n\
         discard, stop\n\
         done:\n\
         mov.v0 $0 $0 , stop\n",
        refl,
    );
    assert_eq!(run_seeds(&m, &good, 8), Ok(0));
}

/// o0 = t0.Sample(s0, v0.xy) (implicit LOD); o1 = t0.SampleLevel(s0, v0.xy, v0.z).
const TEXTURE_IR: &str = "
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutput %1 0 0
%4 = f32x4 DclOutput %1 1 0
%7 = f32 DclSrv %1 0 0 1 Image2D
%8 = DclSampler %1 0 0 1
%9 = u32 Constant 0
%10 = u32 Constant 2
%11 = u32 Constant 1

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = srv DescriptorLoad %7 %9
  %24 = sampler DescriptorLoad %8 %9
  %33 = f32 CompositeExtract %22 %9
  %34 = f32 CompositeExtract %22 %11
  %25 = f32x2 CompositeConstruct %33 %34
  %26 = f32x4 ImageSample %23 %24 null %25 null null null null null null null
  %27 = OutputStore %3 null %26
  %28 = f32 CompositeExtract %22 %10
  %29 = f32x4 ImageSample %23 %24 null %25 null %28 null null null null null
  %30 = OutputStore %4 null %29
  %31 = Return
%32 = FunctionEnd
";

fn texture_reflection(kind: SamplerKind) -> Reflection {
    Reflection {
        varyings: vec![varying(0, 0, 0, 4)],
        samplers: vec![SamplerBinding {
            index: 0,
            texture: ResourceBinding {
                space: 0,
                register: 0,
            },
            sampler: Some(ResourceBinding {
                space: 0,
                register: 0,
            }),
            kind,
        }],
        outputs: vec![out(0, 1, 4), out(1, 2, 4)],
        ..Default::default()
    }
}

#[test]
fn texture_fetches_match_the_interpreter() {
    let m = module(TEXTURE_IR);
    let asm = "load.v $0 0\n\
               load.v ^discard.xy 0.xy, texld 0, mov.v0 $1 ^texture , sync\n\
               load.v ^discard.xy 0.xy, texld.lod 0 $0.z, mov.v0 $2 ^texture , sync, stop\n";
    let o = output(asm, texture_reflection(SamplerKind::D2));
    assert_eq!(run_seeds(&m, &o, 16).map(|_| ()), Ok(()));
    // Implicit LOD where the IR has an explicit one (and the reverse) is caught on some seed.
    let swapped = "load.v $0 0\n\
               load.v ^discard.xy 0.xy, texld.lod 0 $0.z, mov.v0 $1 ^texture , sync\n\
               load.v ^discard.xy 0.xy, texld 0, mov.v0 $2 ^texture , sync, stop\n";
    let o = output(swapped, texture_reflection(SamplerKind::D2));
    assert!(run_seeds(&m, &o, 16).is_err());
    // A sampler index the reflection does not bind.
    let mut refl = texture_reflection(SamplerKind::D2);
    refl.samplers[0].index = 3;
    let e = run_seeds(&m, &output(asm, refl), 1).unwrap_err();
    assert!(
        e.contains("sampler index 0, which the reflection does not bind"),
        "{e}"
    );
}

/// o0 = tcube.Sample(s0, v0.xyz).
const CUBE_IR: &str = "
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutput %1 0 0
%7 = f32 DclSrv %1 0 0 1 ImageCube
%8 = DclSampler %1 0 0 1
%9 = u32 Constant 0
%10 = u32 Constant 1
%11 = u32 Constant 2

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = srv DescriptorLoad %7 %9
  %24 = sampler DescriptorLoad %8 %9
  %25 = f32 CompositeExtract %22 %9
  %26 = f32 CompositeExtract %22 %10
  %27 = f32 CompositeExtract %22 %11
  %28 = f32x3 CompositeConstruct %25 %26 %27
  %29 = f32x4 ImageSample %23 %24 null %28 null null null null null null null
  %30 = OutputStore %3 null %29
  %31 = Return
%32 = FunctionEnd
";

#[test]
fn cube_fetches_match_the_interpreter() {
    let m = module(CUBE_IR);
    let mut refl = texture_reflection(SamplerKind::Cube);
    refl.outputs.truncate(1);
    let asm = "load.v ^discard.xyz 0, texld.cube 0, mov.v0 $1 ^texture , sync, stop\n";
    assert_eq!(
        run_seeds(&m, &output(asm, refl.clone()), 16).map(|_| ()),
        Ok(())
    );
    // A generic fetch of the cube is reported.
    let asm = "load.v ^discard.xyz 0, texld 0, mov.v0 $1 ^texture , sync, stop\n";
    let e = run_seeds(&m, &output(asm, refl), 1).unwrap_err();
    assert!(e.contains("D2 fetch of a Cube image"), "{e}");
}

/// o0 = Position, o1.x = IsFrontFace ? 1 : 0.
const SPECIAL_IR: &str = "
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInputBuiltIn %1 Position None
%3 = bool DclInputBuiltIn %1 IsFrontFace None
%4 = f32x4 DclOutput %1 0 0
%5 = f32 DclOutput %1 1 0
%6 = f32 Constant 1.0
%7 = f32 Constant 0.0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = OutputStore %4 null %22
  %24 = bool InputLoad %3 null
  %25 = f32 Select %24 %6 %7
  %26 = OutputStore %5 null %25
  %27 = Return
%28 = FunctionEnd
";

#[test]
fn frag_coord_and_front_facing() {
    let m = module(SPECIAL_IR);
    let refl = Reflection {
        outputs: vec![out(0, 0, 4), out(1, 1, 1)],
        target: Some(irc_backend::TargetPart::new(
            irc_lima::pp::reflection::PpReflection {
                special_inputs: vec![BuiltIn::Position, BuiltIn::IsFrontFace],
                temp_stack: 0,
            },
        )),
        ..Default::default()
    };
    let o = output(
        "load.v $0 gl_FragCoord\n\
         load.v $1.x gl_FrontFacing, rcp.s2 $0.w $0.w, stop\n",
        refl.clone(),
    );
    assert_eq!(run_seeds(&m, &o, 8), Ok(0));
    // Without the reciprocal, `.w` is wrong once it is not 1 (seed 1: w = 2).
    let o = output(
        "load.v $0 gl_FragCoord\nload.v $1.x gl_FrontFacing, stop\n",
        refl,
    );
    let e = run_seeds(&m, &o, 8).unwrap_err();
    assert!(
        e.contains("input seed 1: exact: lane 0: output o0.w: expected 2.0, got 0.5"),
        "{e}"
    );
}

#[test]
fn uniform_sources() {
    let mut inputs = ShaderInputs::default();
    inputs.cbvs.insert(
        irc_interp::Binding {
            space: 0,
            register: 1,
        },
        vec![1.5f32.to_bits(), 7, (-3i32) as u32, 0.25f32.to_bits()],
    );
    let floats = Value::Composite(vec![
        Value::f32s(&[1.0, 2.0, 3.0, 4.0]),
        Value::f32s(&[5.0, 6.0, 7.0, 8.0]),
    ]);
    let ints = Value::Composite(vec![Value::Vector(
        [-1, 2, 3, 4]
            .map(irc_interp::Scalar::I32)
            .into_iter()
            .collect(),
    )]);
    let bools = Value::Composite(vec![Value::bool(false), Value::bool(true)]);
    let mut io = std::collections::BTreeMap::new();
    io.insert(
        irc_interp::IoSlot::builtin(BuiltIn::LegacyConstFloat),
        floats,
    );
    io.insert(irc_interp::IoSlot::builtin(BuiltIn::LegacyConstInt), ints);
    io.insert(irc_interp::IoSlot::builtin(BuiltIn::LegacyConstBool), bools);
    inputs.invocations = vec![irc_interp::InvocationInputs { io }];
    let legacy = |kind, index| UniformSource::Legacy { kind, index };
    let refl = Reflection {
        uniforms: vec![
            UniformBinding {
                slot: 0,
                source: legacy(BuiltIn::LegacyConstFloat, 1),
            },
            UniformBinding {
                slot: 1,
                source: legacy(BuiltIn::LegacyConstInt, 0),
            },
            UniformBinding {
                slot: 2,
                source: legacy(BuiltIn::LegacyConstBool, 1),
            },
            UniformBinding {
                slot: 3,
                source: legacy(BuiltIn::LegacyConstFloat, 9),
            },
            UniformBinding {
                slot: 4,
                source: UniformSource::ConstantBuffer {
                    binding: ResourceBinding {
                        space: 0,
                        register: 1,
                    },
                    vec4_index: 0,
                    int_lanes: 0b0110,
                },
            },
            UniformBinding {
                slot: 6,
                source: UniformSource::Literal([0.5, -0.5, 2.0, 0.0]),
            },
        ],
        uniform_slots: 7,
        ..Default::default()
    };
    let q = pp_inputs(&inputs, &refl);
    assert_eq!(
        q.uniforms,
        vec![
            [5.0, 6.0, 7.0, 8.0],
            [-1.0, 2.0, 3.0, 4.0],
            [1.0; 4],
            [0.0; 4],
            [1.5, 7.0, -3.0, 0.25],
            [0.0; 4],
            [0.5, -0.5, 2.0, 0.0],
        ]
    );
}

#[test]
fn varyings_by_absolute_component() {
    // Two declarations at location 2 (.xy and .zw); a binding of v2.y..v2.z crosses them.
    let mut io = std::collections::BTreeMap::new();
    let slot = |component| irc_interp::IoSlot::Location {
        location: 2,
        component,
    };
    io.insert(slot(0), Value::f32s(&[1.0, 2.0]));
    io.insert(slot(2), Value::f32s(&[3.0, 4.0]));
    let inputs = ShaderInputs {
        invocations: vec![irc_interp::InvocationInputs { io }],
        ..Default::default()
    };
    let refl = Reflection {
        varyings: vec![VaryingBinding {
            source: loc(2, 1),
            slot: 1,
            lane: 1,
            components: 2,
        }],
        ..Default::default()
    };
    let q = pp_inputs(&inputs, &refl);
    for lane in &q.lanes {
        assert_eq!(lane.varyings, vec![[0.0; 4], [0.0, 2.0, 3.0, 0.0]]);
    }
}

#[test]
fn reasons_lose_their_ids() {
    assert_eq!(
        normalize_reason("IMul: %12 times %3 has no float mapping (100%)"),
        "IMul: %_ times %_ has no float mapping (100%)"
    );
}

#[test]
fn profiles_from_file_names() {
    let p = |s: &str| profile_of(Path::new(s));
    assert_eq!(
        p("ir/wine-ps_1_4-09c0a81b10.raw.dxir").as_deref(),
        Some("ps_1_4")
    );
    assert_eq!(
        p("vkd3d-proton-ps_5_1-01a41ae61f.raw.dxir").as_deref(),
        Some("ps_5_1")
    );
    assert_eq!(p("shader.raw.dxir"), None);
    assert!(applies_to(
        PP,
        Path::new("x/wine-ps_2_0-0000000000.raw.dxir")
    ));
    assert!(!applies_to(PP, Path::new("x/wine-ps_2_0-0000000000.dxir")));
    assert!(!applies_to(
        PP,
        Path::new("x/wine-vs_2_0-0000000000.raw.dxir")
    ));
}

#[test]
fn corpus_summary_lines() {
    let stats = |instructions, lower_bound| Stats {
        instructions,
        units_filled: 3 * instructions,
        spills: 1,
        fills: 2,
        lower_bound,
        ..Default::default()
    };
    let m = |profile: &str, ok, stats: Option<Stats>, micros, native_deviations| ShaderMetrics {
        profile: profile.into(),
        stage: None,
        ok,
        seeds_compared: if stats.is_some() { 8 } else { 0 },
        seeds_skipped: u32::from(profile == "ps_3_0"),
        stats,
        compile_micros: micros,
        native_deviations,
    };
    let metrics = [
        m("ps_1_4", true, Some(stats(4, 2)), 10.0, 0),
        m("ps_2_0", false, None, 5.0, 0),
        m("ps_2_x", true, Some(stats(10, 10)), 30.0, 2),
        m("ps_3_0", false, Some(stats(6, 4)), 20.0, 0),
        m("ps_5_0", false, None, 1.0, 0),
    ];
    let row = |file: &str, why: &str| Row {
        file: file.into(),
        stage: "lima-fp",
        outcome: Outcome::Unsupported(why.into()),
    };
    let rows = [
        row("a", "IMul: %3 times %4"),
        row("b", "IMul: %5 times %6"),
        row("c", "Cast: bits"),
    ];
    let s = summary(PP, &metrics, &rows);
    let expected = "\
lima-fp D3D9 pixel shaders ok: ps_1_x 1/1, ps_2_x 1/2, ps_3_0 0/1, total 2/4; other pixel shaders 0/1
lima-fp code (3 compiled): instructions per shader median 6, total 20; 3.00 units per instruction; spills 3, fills 6; lower bound total 16 (instructions / lower bound 1.250)
lima-fp compile time per shader: median 20.0 µs, p90 20.0 µs, max 30.0 µs
lima-fp input sets: 24 compared, 1 skipped (no reference: interpreter trap, or a result that rests on undefined divergent quad operations); native-precision deviations (beyond abs 0.004 + rel 0.008): 2 input sets in 1 shaders
lima-fp top unsupported reasons:
      2  IMul: %_ times %_
      1  Cast: bits
";
    assert_eq!(s, expected);
    assert_eq!(summary(PP, &[], &rows), "");
}

/// The PP's quad inputs for the interpreter's `inputs`, through the generic conversion and the
/// PP's adapter.
fn pp_inputs(inputs: &ShaderInputs, refl: &Reflection) -> irc_lima::pp::QuadInputs {
    let tex = textures::InterpTextures::new(inputs);
    let si = inputs::sim_inputs(inputs, &tex);
    irc_lima::pp::sim_io::quad_inputs(&si, refl).unwrap()
}

/// Not a test: prints [`explain_run`] for `$HARNESS_FILE` (a `.raw.dxir` or `.ir`) compiled
/// for `$HARNESS_TARGET` and input set `$HARNESS_SEED` (default 0).
#[test]
#[ignore = "a debugging aid: HARNESS_TARGET=name HARNESS_FILE=path [HARNESS_SEED=n] … -- --ignored --nocapture"]
fn explain_file() {
    let (Some(path), Ok(name)) = (
        std::env::var_os("HARNESS_FILE"),
        std::env::var("HARNESS_TARGET"),
    ) else {
        return;
    };
    let target = irc::target(&name).expect("HARNESS_TARGET is a target");
    let bytes = std::fs::read(&path).expect("HARNESS_FILE is readable");
    let raw = match std::str::from_utf8(&bytes) {
        Ok(text) if Path::new(&path).extension().is_some_and(|e| e == "ir") => {
            irc_ir::text::parse(text).unwrap_or_else(|e| panic!("{e}"))
        }
        _ => irc_ir::binary::read(&bytes).unwrap_or_else(|e| panic!("{e}")),
    };
    let seed =
        std::env::var("HARNESS_SEED").map_or(0, |s| s.parse().expect("HARNESS_SEED is a number"));
    let options = irc::Options::default();
    match irc::compile_for(irc::Input::Module(raw.clone()), target, &options) {
        Ok(o) => println!(
            "{}",
            explain_run(
                target,
                &raw,
                &o,
                seed,
                &options.legacy_state.input_values(&raw),
                &options,
            )
        ),
        Err(d) => println!("{d}"),
    }
}
