//! Tests of `legacy-state`: for many states, the specialized shader computes in the interpreter
//! what the original computes when given [`LegacyState::input_values`] as inputs.

use super::*;
use irc_interp::{run as interp, InvocationInputs, IoSlot, RunConfig, ShaderInputs};
use irc_ir::{text, verifier};

/// A pixel shader reading every legacy-state built-in: DXVK's alpha-test arithmetic (straight
/// line: `o0` = 1 if the test passes), fog / point / clip-plane members (`o1`), a sampler-state
/// member at a dynamic index, a whole texture-stage array and a clip-plane component (`o2`).
const SHADER: &str = r#"
%1 = EntryPoint %20 Pixel
%2 = f32 DclInput %1 0 0 None
%3 = u32 DclInput %1 1 0 Flat
%4 = {u32,u32,u32} DclInputBuiltIn %1 LegacyAlphaTest Flat
%5 = {bool,bool,u32,f32x3,f32,f32,f32} DclInputBuiltIn %1 LegacyFog Flat
%6 = {bool,f32,f32,f32} DclInputBuiltIn %1 LegacyPointArgs
%7 = {u32,bool,bool,bool,bool,bool,f32}[4] DclInputBuiltIn %1 LegacySamplerState Flat
%8 = {f32x2,f32x2,f32,f32}[2] DclInputBuiltIn %1 LegacyTextureStage Flat
%9 = {u32,f32x4,f32x4,f32x4,f32x4,f32x4,f32x4} DclInputBuiltIn %1 LegacyClipPlanes
%10 = f32 DclOutput %1 0 0
%11 = f32x4 DclOutput %1 1 0
%12 = f32x4 DclOutput %1 2 0
%13 = DebugName %4 "alphaTest"
%14 = DebugMemberName %4 0 "compareOp"
%15 = DebugName %31 "op"
%100 = u32 Constant 0
%101 = u32 Constant 1
%102 = u32 Constant 2
%103 = u32 Constant 3
%104 = u32 Constant 4
%105 = u32 Constant 5
%106 = u32 Constant 6
%107 = u32 Constant 7
%108 = u32 Constant 8
%109 = u32 Constant 256
%110 = f32 Constant 255.0
%111 = f32 Constant 1.0
%112 = f32 Constant 0.0
%113 = u32x2 Constant 1 2
%114 = u32x2 Constant 2 1

%20 = Function
%21 = Label None
  %30 = f32 InputLoad %2 null
  %31 = u32 InputLoad %4 %100
  %33 = u32 InputLoad %4 %101
  %34 = u32 InputLoad %4 %102
  %35 = u32 ISub %108 %33
  %36 = u32 UShr %34 %35
  %37 = u32 IShl %34 %33
  %38 = u32 IOr %37 %36
  %39 = f32 ConvertItoF %38
  %40 = u32 IShl %109 %33
  %41 = u32 ISub %40 %101
  %42 = f32 ConvertItoF %41
  %43 = f32 FMul %30 %42
  %44 = f32 FRound %43 NearestEven
  %45 = f32 ConvertItoF %34
  %46 = f32 FDiv %45 %110
  %47 = bool ULe %33 %108
  %48 = f32 Select %47 %44 %30
  %49 = f32 Select %47 %39 %46
  %50 = bool FLt %48 %49
  %51 = bool FEq %48 %49
  %52 = bool FLe %48 %49
  %53 = bool FGt %48 %49
  %54 = bool FNe %48 %49
  %55 = bool FGe %48 %49
  %56 = bool UGe %31 %107
  %57 = bool IEq %31 %106
  %58 = bool Select %57 %55 %56
  %59 = bool IEq %31 %105
  %60 = bool Select %59 %54 %58
  %61 = bool IEq %31 %104
  %62 = bool Select %61 %53 %60
  %63 = bool IEq %31 %103
  %64 = bool Select %63 %52 %62
  %65 = bool IEq %31 %102
  %66 = bool Select %65 %51 %64
  %67 = bool IEq %31 %101
  %68 = bool Select %67 %50 %66
  %69 = f32 Select %68 %111 %112
  %70 = OutputStore %10 null %69
  %71 = bool InputLoad %5 %100
  %72 = f32 Select %71 %111 %112
  %73 = f32x3 InputLoad %5 %103
  %74 = f32 CompositeExtract %73 %101
  %75 = f32 InputLoad %5 %106
  %76 = f32 FAdd %74 %75
  %77 = f32 InputLoad %6 %103
  %78 = u32 InputLoad %9 %100
  %79 = f32 ConvertItoF %78
  %80 = f32x4 CompositeConstruct %72 %76 %77 %79
  %81 = OutputStore %11 null %80
  %82 = u32 InputLoad %3 null
  %83 = u32x2 CompositeConstruct %82 %104
  %84 = bool InputLoad %7 %83
  %85 = f32 Select %84 %111 %112
  %86 = {f32x2,f32x2,f32,f32}[2] InputLoad %8 null
  %87 = f32 CompositeExtract %86 %113
  %88 = f32 InputLoad %9 %114
  %89 = {bool,f32,f32,f32} InputLoad %6 null
  %90 = f32 CompositeExtract %89 %101
  %91 = f32x4 CompositeConstruct %85 %87 %88 %90
  %92 = OutputStore %12 null %91
  %93 = Return
%94 = FunctionEnd
"#;

fn states() -> Vec<LegacyState> {
    let mut out = vec![LegacyState::default()];
    for compare in CompareOp::ALL {
        for (precision, reference) in [(0, 128), (0, 0), (3, 200), (9, 77), (8, 255)] {
            out.push(LegacyState {
                alpha_test: AlphaTest {
                    compare,
                    precision,
                    reference,
                },
                ..Default::default()
            });
        }
    }
    out.push(LegacyState {
        fog: Fog {
            enable: true,
            use_z: true,
            mode: 3,
            color: [0.25, 0.5, 0.75],
            scale: 0.5,
            end: 100.0,
            density: 0.125,
        },
        point: PointArgs {
            sprite: true,
            size: 3.0,
            min: 2.0,
            max: 8.0,
        },
        clip_planes: vec![[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [0.5; 4]],
        samplers: vec![
            SamplerState::default(),
            SamplerState {
                gather: true,
                texture_type: 2,
                ..Default::default()
            },
        ],
        texture_stages: vec![
            TextureStage::default(),
            TextureStage {
                bump_mat0: [1.0, 2.0],
                bump_mat1: [3.0, 4.0],
                bump_scale: 0.75,
                bump_offset: -0.5,
            },
        ],
        ..Default::default()
    });
    out
}

fn inputs(m: &Module, state: &LegacyState, alpha: f32, index: u32) -> ShaderInputs {
    let mut inv = InvocationInputs::default();
    inv.io.insert(
        IoSlot::Location {
            location: 0,
            component: 0,
        },
        Value::f32(alpha),
    );
    inv.io.insert(
        IoSlot::Location {
            location: 1,
            component: 0,
        },
        Value::u32(index),
    );
    for (b, v) in state.input_values(m) {
        inv.io.insert(IoSlot::builtin(b), v);
    }
    ShaderInputs {
        invocations: vec![inv],
        ..Default::default()
    }
}

fn specialize(m: &Module, state: &LegacyState) -> Module {
    let mut after = m.clone();
    let cx = PassContext {
        legacy_state: state.clone(),
        ..Default::default()
    };
    assert!(run(&mut after, &cx).unwrap());
    if let Err(e) = verifier::verify(&after) {
        panic!("verifier:\n{e}\n{}", text::print(&after));
    }
    after
}

#[test]
fn specialized_shader_matches_the_original_given_the_state() {
    let m = text::parse(SHADER).unwrap();
    verifier::verify(&m).unwrap();
    for state in states() {
        let after = specialize(&m, &state);
        let loads_left = after
            .code()
            .filter(|&d| after.opcode(d) == OpCode::InputLoad)
            .filter(|&d| {
                let decl = irc_ir::format::Load::of(after.op(d)).base().unwrap();
                after.opcode(decl) == OpCode::DclInputBuiltIn
            })
            .count();
        assert_eq!(loads_left, 0, "{}", text::print(&after));
        for alpha in [
            0.0,
            0.25,
            0.5,
            127.0 / 255.0,
            128.0 / 255.0,
            200.0 / 255.0,
            1.0,
        ] {
            for index in [0, 1, 3] {
                let inputs = inputs(&m, &state, alpha, index);
                let want = interp(&m, &inputs, &RunConfig::default()).unwrap();
                let got = interp(&after, &inputs, &RunConfig::default()).unwrap();
                if let Err(d) = irc_interp::compare::outputs_equal(&want, &got) {
                    panic!("{state:?}, alpha {alpha}, index {index}: {d}");
                }
            }
        }
    }
}

#[test]
fn alpha_test_state_decides_the_result() {
    let m = text::parse(SHADER).unwrap();
    let o0 = |state: &LegacyState, alpha: f32| {
        let after = specialize(&m, state);
        let out = interp(&after, &inputs(&m, state, alpha, 0), &RunConfig::default()).unwrap();
        out.invocations[0].io[&IoSlot::Location {
            location: 0,
            component: 0,
        }]
            .clone()
    };
    let test = |compare, reference| LegacyState {
        alpha_test: AlphaTest {
            compare,
            precision: 0,
            reference,
        },
        ..Default::default()
    };
    // Default: alpha test off, everything passes.
    assert_eq!(o0(&LegacyState::default(), 0.0), Value::f32(1.0));
    assert_eq!(o0(&test(CompareOp::Never, 0), 1.0), Value::f32(0.0));
    // 8-bit: alpha 0.5 → round(127.5) = 128 ≥ 128.
    assert_eq!(
        o0(&test(CompareOp::GreaterEqual, 128), 0.5),
        Value::f32(1.0)
    );
    assert_eq!(o0(&test(CompareOp::Less, 128), 0.5), Value::f32(0.0));
}

#[test]
fn whole_and_dynamic_loads() {
    let m = text::parse(SHADER).unwrap();
    let after = specialize(&m, &LegacyState::default());
    // The dynamically indexed sampler-state load reads a constant array.
    let cl = after
        .code()
        .filter(|&d| after.opcode(d) == OpCode::ConstantLoad)
        .count();
    assert_eq!(cl, 1, "{}", text::print(&after));
    // The debug name of the replaced load is gone, the declaration's stays.
    let printed = text::print(&after);
    assert!(!printed.contains("\"op\""), "{printed}");
    assert!(printed.contains("\"alphaTest\""), "{printed}");
}

#[test]
fn input_values_cover_known_layouts_only() {
    let m = text::parse(SHADER).unwrap();
    let values = LegacyState::default().input_values(&m);
    let names: Vec<BuiltIn> = values.iter().map(|(b, _)| *b).collect();
    assert_eq!(names.len(), 6, "{names:?}");
    let alpha = &values
        .iter()
        .find(|(b, _)| *b == BuiltIn::LegacyAlphaTest)
        .unwrap()
        .1;
    assert_eq!(
        *alpha,
        Value::Composite(vec![Value::u32(7), Value::u32(0), Value::u32(0)])
    );
    let points = &values
        .iter()
        .find(|(b, _)| *b == BuiltIn::LegacyPointArgs)
        .unwrap()
        .1;
    assert_eq!(
        *points,
        Value::Composite(vec![
            Value::bool(false),
            Value::f32(1.0),
            Value::f32(1.0),
            Value::f32(64.0)
        ])
    );
    // The older fog layout without `useZ` and an unknown layout.
    let src = r#"
%1 = EntryPoint %20 Pixel
%2 = {bool,u32,f32x3,f32,f32,f32} DclInputBuiltIn %1 LegacyFog Flat
%3 = {u32,f32} DclInputBuiltIn %1 LegacyAlphaTest Flat
%4 = f32 DclOutput %1 0 0
%5 = u32 Constant 1
%6 = u32 Constant 0

%20 = Function
%21 = Label None
  %22 = u32 InputLoad %2 %5
  %23 = f32 ConvertItoF %22
  %24 = OutputStore %4 null %23
  %25 = u32 InputLoad %3 %6
  %26 = Return
%27 = FunctionEnd
"#;
    let m = text::parse(src).unwrap();
    let state = LegacyState {
        fog: Fog {
            mode: 2,
            ..Default::default()
        },
        ..Default::default()
    };
    let values = state.input_values(&m);
    assert_eq!(values.len(), 1);
    assert_eq!(values[0].0, BuiltIn::LegacyFog);
    let after = specialize(&m, &state);
    let printed = text::print(&after);
    // Mode 2 of the old layout (member 1) became a constant; the alpha test load stays.
    assert!(printed.contains("InputLoad %3"), "{printed}");
    assert!(!printed.contains("InputLoad %2"), "{printed}");
}

#[test]
fn compare_op_names() {
    for c in CompareOp::ALL {
        assert_eq!(CompareOp::parse(c.name()), Some(c));
        assert_eq!(CompareOp::parse(&(c as u32).to_string()), Some(c));
    }
    assert_eq!(CompareOp::parse("8"), None);
    assert_eq!(CompareOp::parse("sometimes"), None);
}
