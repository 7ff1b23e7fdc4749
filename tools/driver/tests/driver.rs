//! The embedding API: inputs, diagnostics, legacy-state specialization and the legacy-multiply
//! option, end to end through `prepare` (the code generator is the backend's business).

use irc::{
    compile, prepare, target, targets, DiagnosticKind, Diagnostics, Input, LegacyState, Options,
};
use irc_interp::{run, InvocationInputs, IoSlot, RunConfig, ShaderInputs, Value};
use irc_ir::{binary, text, OpCode};
use irc_passes::legacy_state::{AlphaTest, CompareOp};

const PASS_THROUGH: &str = r#"
%1 = EntryPoint %4 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutput %1 0 0
%4 = Function
%5 = Label None
  %6 = f32x4 InputLoad %2 null
  %7 = OutputStore %3 null %6
  %8 = Return
%9 = FunctionEnd
"#;

/// A D3D9-style pixel shader in raw IR: o0 = v0 · v1 with the legacy multiply, discarded when
/// the alpha test (compare op, 8-bit quantization as DXVK does it) fails on o0.w.
const ALPHA_TESTED: &str = r#"
%1 = EntryPoint %30 Pixel
%2 = {u32,u32,u32} DclInputBuiltIn %1 LegacyAlphaTest Flat
%7 = f32 DclParam
%8 = f32x4 DclInput %1 0 0 None
%9 = f32x4 DclOutput %1 0 0
%10 = u32 Constant 0
%11 = u32 Constant 1
%12 = u32 Constant 2
%13 = u32 Constant 3
%14 = u32 Constant 7
%15 = f32 Constant 255.0
%16 = bool Constant false
%17 = bool Constant true
%20 = f32x4 DclInput %1 1 0 None

%30 = Function
  %31 = f32x4 InputLoad %8 null
  %21 = f32x4 InputLoad %20 null
  %22 = f32x4 FMulLegacy %31 %21
  %32 = f32 CompositeExtract %22 %13
  %33 = bool FunctionCall %50 %32
  %34 = bool BNot %33
  %35 = ScopedIf %37 %34
    %36 = Demote
  %37 = ScopedEndIf %35
  %38 = OutputStore %9 null %22
%39 = FunctionEnd

%50 = bool Function %7
  %51 = f32 ParamLoad %50 %7
  %52 = u32 InputLoad %2 %10
  %53 = bool ULt %52 %14
  %54 = ScopedIf %94 %53
    %56 = u32 InputLoad %2 %12
    %65 = f32 FMul %51 %15
    %66 = f32 FRound %65 NearestEven
    %67 = f32 ConvertItoF %56
    %72 = ScopedSwitch %93 %52
    %73 = ScopedSwitchCase %72 1
      %74 = bool FLt %66 %67
      %75 = bool Return %74
    %88 = ScopedSwitchCase %72 6
      %89 = bool FGe %66 %67
      %90 = bool Return %89
    %91 = ScopedSwitchDefault %72
      %92 = bool Return %16
    %93 = ScopedEndSwitch %72
  %94 = ScopedEndIf %54
  %95 = bool Return %17
%96 = FunctionEnd
"#;

fn kinds(d: &Diagnostics) -> Vec<DiagnosticKind> {
    d.0.iter().map(|d| d.kind).collect()
}

#[test]
fn target_registry() {
    assert!(targets().iter().any(|t| t.name() == "lima-fp"));
    let lima = target("lima-fp").expect("lima-fp is registered");
    let p = lima.pipeline(&irc::CompileOptions::default());
    assert_eq!(p.kind, irc_passes::PipelineKind::Optimize);
    assert_eq!(&p.caps, lima.caps());
    assert!(!p.legacy_mul_ieee);
    let mut ieee = irc::CompileOptions::default();
    ieee.set("legacy-mul", "ieee");
    assert!(lima.pipeline(&ieee).legacy_mul_ieee);
    assert!(target("nope").is_none());
}

#[test]
fn unknown_target_lists_the_known_ones() {
    let e = compile(Input::Text(PASS_THROUGH), "mali-t880", &Options::default()).unwrap_err();
    assert_eq!(kinds(&e), [DiagnosticKind::Input]);
    let text = e.to_string();
    assert!(text.contains("unknown target `mali-t880`"), "{text}");
    assert!(text.contains("lima-fp"), "{text}");
    assert!(prepare(Input::Text(PASS_THROUGH), "", &Options::default()).is_err());
}

#[test]
fn reader_errors_are_input_diagnostics_with_locations() {
    let e = prepare(Input::Text("%1 = Bogus\n"), "lima-fp", &Options::default()).unwrap_err();
    assert_eq!(kinds(&e), [DiagnosticKind::Input]);
    assert!(e.to_string().contains(":1:"), "{e}");

    let e = prepare(
        Input::Binary(&[0xff, 0xff, 0xff]),
        "lima-fp",
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(kinds(&e), [DiagnosticKind::Input]);
    assert!(e.to_string().contains("byte"), "{e}");
}

#[test]
fn verifier_errors_are_pinned_to_ops() {
    // %6 loads an output declaration as if it were an input.
    let bad = PASS_THROUGH.replace("InputLoad %2", "InputLoad %3");
    let e = prepare(Input::Text(&bad), "lima-fp", &Options::default()).unwrap_err();
    assert!(e.0.iter().all(|d| d.kind == DiagnosticKind::Input), "{e}");
    assert!(
        e.0.iter()
            .any(|d| d.op.is_some_and(|(_, op)| op == OpCode::InputLoad)),
        "{e}"
    );
}

#[test]
fn pass_errors_name_the_op() {
    // Integer XOR of two unbounded inputs has no float mapping on Lima.
    let src = r#"
%1 = EntryPoint %4 Pixel
%2 = u32 DclInput %1 0 0 Flat
%10 = u32 DclInput %1 1 0 Flat
%3 = u32 DclOutput %1 0 0
%4 = Function
%5 = Label None
  %6 = u32 InputLoad %2 null
  %11 = u32 InputLoad %10 null
  %12 = u32 IXor %6 %11
  %7 = OutputStore %3 null %12
  %8 = Return
%9 = FunctionEnd
"#;
    let e = compile(Input::Text(src), "lima-fp", &Options::default()).unwrap_err();
    assert_eq!(kinds(&e), [DiagnosticKind::Unsupported]);
    assert_eq!(e.0[0].op.map(|(_, op)| op), Some(OpCode::IXor), "{e}");
    assert!(e.is_unsupported());
}

#[test]
fn all_inputs_agree() {
    let m = text::parse(PASS_THROUGH).unwrap();
    let bytes = binary::write(&m).unwrap();
    let o = Options::default();
    let a = prepare(Input::Text(PASS_THROUGH), "lima-fp", &o).unwrap();
    let b = prepare(Input::Binary(&bytes), "lima-fp", &o).unwrap();
    let c = prepare(Input::Module(m), "lima-fp", &o).unwrap();
    assert_eq!(text::print(&a), text::print(&c));
    // The binary reader renumbers densely; compare shapes.
    assert_eq!(a.len(), b.len());
}

fn with_alpha(compare: CompareOp, reference: u32) -> Options {
    Options {
        legacy_state: LegacyState {
            alpha_test: AlphaTest {
                compare,
                precision: 0,
                reference,
            },
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Runs `m` with v0 = `a`, v1 = `b` and the given built-in values; (o0, discarded).
fn run_quad(m: &irc_ir::Module, a: [f32; 4], b: [f32; 4], state: Option<&LegacyState>) -> String {
    let mut inv = InvocationInputs::default();
    let slot = |location| IoSlot::Location {
        location,
        component: 0,
    };
    inv.io.insert(slot(0), Value::f32s(&a));
    inv.io.insert(slot(1), Value::f32s(&b));
    if let Some(s) = state {
        for (builtin, v) in s.input_values(m) {
            inv.io.insert(IoSlot::builtin(builtin), v);
        }
    }
    let inputs = ShaderInputs {
        invocations: vec![inv],
        ..Default::default()
    };
    let out = run(m, &inputs, &RunConfig::default()).expect("run");
    let lane = &out.invocations[0];
    format!("{:?} discarded={}", lane.io.get(&slot(0)), lane.discarded)
}

#[test]
fn default_state_removes_the_alpha_test() {
    let m = prepare(Input::Text(ALPHA_TESTED), "lima-fp", &Options::default()).unwrap();
    let printed = text::print(&m);
    assert!(!printed.contains("Demote"), "{printed}");
    assert!(!printed.contains("LegacyAlphaTest"), "{printed}");
}

#[test]
fn prepared_module_computes_what_the_original_does_in_that_state() {
    let original = text::parse(ALPHA_TESTED).unwrap();
    for (compare, reference) in [
        (CompareOp::Always, 0),
        (CompareOp::Never, 0),
        (CompareOp::Less, 128),
        (CompareOp::GreaterEqual, 128),
    ] {
        let options = with_alpha(compare, reference);
        let m = prepare(Input::Text(ALPHA_TESTED), "lima-fp", &options).unwrap();
        for (a, b) in [
            ([1.0, 2.0, 3.0, 0.25], [1.0, 1.0, 1.0, 2.0]),
            ([0.5, 0.0, 1.0, 1.0], [0.0, 1.0, 2.0, 0.25]),
            ([0.0, 0.0, 0.0, 0.0], [f32::INFINITY, 0.0, 1.0, 1.0]),
        ] {
            assert_eq!(
                run_quad(&m, a, b, None),
                run_quad(&original, a, b, Some(&options.legacy_state)),
                "{compare:?} {reference}: {a:?} · {b:?}\n{}",
                text::print(&m)
            );
        }
    }
}

#[test]
fn legacy_mul_option_reaches_the_pipeline() {
    let count = |m: &irc_ir::Module, op| m.code().filter(|&d| m.opcode(d) == op).count();
    let prepared = |mode: Option<&str>| {
        let mut o = Options::default();
        if let Some(mode) = mode {
            o.backend.set("legacy-mul", mode);
        }
        prepare(Input::Text(ALPHA_TESTED), "lima-fp", &o).unwrap()
    };
    let finite = prepared(None);
    let exact = prepared(Some("exact"));
    let ieee = prepared(Some("ieee"));
    // The default limits the factors (no selects), `exact` guards them, `ieee` does neither.
    assert!(
        count(&finite, OpCode::FClamp) > 0,
        "{}",
        text::print(&finite)
    );
    assert_eq!(
        count(&finite, OpCode::Select),
        0,
        "{}",
        text::print(&finite)
    );
    assert!(count(&exact, OpCode::Select) > 0, "{}", text::print(&exact));
    assert_eq!(count(&ieee, OpCode::Select), 0, "{}", text::print(&ieee));
    assert_eq!(count(&ieee, OpCode::FClamp), 0, "{}", text::print(&ieee));
    // 0 · inf: D3D9 (and the default) give 0, IEEE NaN.
    let a = [0.0, 1.0, 1.0, 1.0];
    let b = [f32::INFINITY, 1.0, 1.0, 1.0];
    assert!(run_quad(&finite, a, b, None).contains("F32(0.0)"));
    assert!(run_quad(&exact, a, b, None).contains("F32(0.0)"));
    assert!(run_quad(&ieee, a, b, None).contains("NaN"));
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for len in 0..200usize {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        if let Err(e) = compile(Input::Binary(&bytes), "lima-fp", &Options::default()) {
            assert!(!e.0.is_empty());
            assert!(
                e.0.iter().all(|d| d.kind != DiagnosticKind::Internal),
                "{e}"
            );
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = compile(Input::Text(&text), "lima-fp", &Options::default()) {
            assert!(!e.0.is_empty());
        }
    }
}
