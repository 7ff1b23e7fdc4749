use super::*;
use irc_interp::{compare::outputs_equal, run as interp, RunConfig, ShaderInputs};

fn lima() -> PassContext {
    PassContext {
        caps: crate::caps::test_profiles::LIMA_LIKE,
        ..Default::default()
    }
}

fn no_ints_left(m: &Module) -> bool {
    m.code().all(|d| {
        let op = m.op(d);
        !matches!(
            op.opcode,
            OpCode::IAdd
                | OpCode::ISub
                | OpCode::IMul
                | OpCode::SMax
                | OpCode::SMin
                | OpCode::UGe
                | OpCode::ULt
                | OpCode::SLt
                | OpCode::ConvertItoF
        ) && (op.opcode != OpCode::Phi || !op.ty.is_basic_where(|t| t.is_int()))
    })
}

/// Runs the pass under LIMA caps and checks that outputs are bit-identical for a few inputs.
fn exact(src: &str) -> Module {
    let before = irc_ir::text::parse(src).unwrap();
    let mut after = before.clone();
    assert!(run(&mut after, &lima()).unwrap());
    if let Err(e) = irc_ir::verifier::verify(&after) {
        panic!("{e}\n{}", irc_ir::text::print(&after));
    }
    for seed in 0..16 {
        let inputs = ShaderInputs::random(&before, seed);
        let a = interp(&before, &inputs, &RunConfig::default()).unwrap();
        let b = interp(&after, &inputs, &RunConfig::default()).unwrap();
        if let Err(e) = outputs_equal(&a, &b) {
            panic!("seed {seed}: {e}\n{}", irc_ir::text::print(&after));
        }
    }
    after
}

const LOOP: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%3 = f32x4[4] DclCbv %1 0 0 4
%4 = f32 DclOutput %1 0 0
%6 = u32 Constant 0
%8 = f32 Constant 0.0
%9 = u32 Constant 4
%10 = u32 Constant 1
%11 = i32 Constant -3

%20 = Function
%21 = Label None
  %22 = f32 InputLoad %2 null
  %23 = cbv DescriptorLoad %3 %6
  %24 = Branch %25
%25 = Label %60 %50 StructuredLoop
  %26 = u32 Phi %21 %6 %50 %51
  %27 = f32 Phi %21 %8 %50 %58
  %28 = Branch %30
%30 = Label %32 StructuredSelection
  %31 = bool UGe %26 %9
  %33 = BranchConditional %31 %34 %32
%34 = Label None
  %35 = Branch %60
%32 = Label None
  %36 = f32x4 BufferLoad %23 %26 16
  %37 = f32 CompositeExtract %36 %6
  %38 = i32 IMul %26 %11
  %39 = f32 ConvertItoF %38
  %40 = f32 FAdd %27 %39
  %58 = f32 FAdd %40 %37
  %47 = Branch %50
%50 = Label None
  %51 = u32 IAdd %26 %10
  %52 = Branch %25
%60 = Label None
  %61 = OutputStore %4 null %27
  %62 = Return
%63 = FunctionEnd
";

#[test]
fn loop_counter_indexing_a_cbuffer() {
    let m = exact(LOOP);
    assert!(no_ints_left(&m), "{}", irc_ir::text::print(&m));
    // The counter stays an index through one conversion at the load.
    let convs = m
        .code()
        .filter(|&d| m.opcode(d) == OpCode::ConvertFtoI)
        .count();
    assert_eq!(convs, 1, "{}", irc_ir::text::print(&m));
}

/// A counter counting down from 5 to 0 under `i != 0` (D3D9 `loop`/`rep` lowered by
/// dxbc-spirv): the `!=` fact bounds it to [0, 5].
const DOWN: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%4 = f32 DclOutput %1 0 0
%6 = u32 Constant 0
%7 = u32 Constant 5
%8 = f32 Constant 0.0
%10 = u32 Constant 1

%20 = Function
%21 = Label None
  %22 = f32 InputLoad %2 null
  %24 = Branch %25
%25 = Label %60 %50 StructuredLoop
  %26 = u32 Phi %21 %7 %50 %51
  %27 = f32 Phi %21 %8 %50 %40
  %28 = Branch %30
%30 = Label %32 StructuredSelection
  %31 = bool IEq %26 %6
  %33 = BranchConditional %31 %34 %32
%34 = Label None
  %35 = Branch %60
%32 = Label None
  %51 = u32 ISub %26 %10
  %39 = f32 ConvertItoF %51
  %40 = f32 FAdd %27 %39
  %47 = Branch %50
%50 = Label None
  %52 = Branch %25
%60 = Label None
  %61 = OutputStore %4 null %27
  %62 = Return
%63 = FunctionEnd
";

#[test]
fn counting_down_to_zero_under_not_equal() {
    let m = exact(DOWN);
    assert!(no_ints_left(&m), "{}", irc_ir::text::print(&m));
}

const SMALL: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%4 = f32 DclOutput %1 0 0
%5 = f32 DclOutput %1 1 0
%6 = f32 Constant -4.0
%7 = f32 Constant 4.0
%8 = i32 Constant -2
%9 = i32 Constant -3
%10 = i32 Constant 5

%20 = Function
%21 = Label None
  %22 = f32 InputLoad %2 null
  %23 = f32 FClamp %22 %6 %7
  %24 = i32 ConvertFtoI %23
  %25 = i32 SMax %24 %8
  %26 = i32 IMul %25 %9
  %27 = i32 IAdd %26 %10
  %28 = f32 ConvertItoF %26
  %29 = bool SLt %27 %10
  %30 = f32 Select %29 %28 %22
  %31 = OutputStore %4 null %30
  %32 = f32 ConvertItoF %27
  %33 = OutputStore %5 null %32
  %34 = Return
%35 = FunctionEnd
";

#[test]
fn small_integer_arithmetic_with_negative_zero() {
    let m = exact(SMALL);
    assert!(no_ints_left(&m), "{}", irc_ir::text::print(&m));
    // x = 0.25: ConvertFtoI gives 0, 0 * -3 = -0 in float: the fix-up keeps +0.
    let mut inputs = ShaderInputs::random(&m, 0);
    for inv in &mut inputs.invocations {
        for v in inv.io.values_mut() {
            *v = irc_arith::Value::Scalar(irc_arith::Scalar::F32(0.25));
        }
    }
    let before = irc_ir::text::parse(SMALL).unwrap();
    let a = interp(&before, &inputs, &RunConfig::default()).unwrap();
    let b = interp(&m, &inputs, &RunConfig::default()).unwrap();
    outputs_equal(&a, &b).unwrap();
}

const BITS: &str = "
%1 = EntryPoint %20 Vertex
%2 = u32 DclInput %1 0 0
%4 = u32 DclOutput %1 0 0
%6 = u32 Constant 255

%20 = Function
%21 = Label None
  %22 = u32 InputLoad %2 null
  %23 = u32 IXor %22 %6
  %24 = OutputStore %4 null %23
  %25 = Return
%26 = FunctionEnd
";

#[test]
fn bit_op_of_unbounded_value_is_unsupported() {
    let mut m = irc_ir::text::parse(BITS).unwrap();
    let e = run(&mut m, &lima()).unwrap_err();
    match e {
        PassError::Unsupported { opcode, reason, .. } => {
            assert_eq!(opcode, OpCode::IXor);
            assert!(reason.contains("bit operation"), "{reason}");
        }
        e => panic!("{e}"),
    }
}

/// D3D9 `mova` + `c[a0.x + 2]`: the index `IAdd(2, ConvertFtoI(x))` (through a `Cast`) stays
/// integer when it only addresses a load; the same index also stored as a value is refused.
const MOVA: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%3 = f32x4[8] DclInputBuiltIn %1 LegacyConstFloat
%4 = f32x4 DclOutput %1 0 0
%5 = i32 DclOutput %1 1 0
%6 = i32 Constant 2

%20 = Function
%21 = Label None
  %22 = f32 InputLoad %2 null
  %23 = i32 ConvertFtoI %22
  %24 = i32 IAdd %6 %23
  %25 = u32 Cast %24
  %26 = f32x4 InputLoad %3 %25
  %27 = OutputStore %4 null %26
  %28 = Return
%29 = FunctionEnd
";

#[test]
fn relative_address_stays_integer() {
    let mut m = irc_ir::text::parse(MOVA).unwrap();
    run(&mut m, &lima()).unwrap();
    assert!(m.code().any(|d| m.opcode(d) == OpCode::IAdd));
    let stored = MOVA.replace(
        "  %28 = Return",
        "  %30 = OutputStore %5 null %24\n  %28 = Return",
    );
    let mut m = irc_ir::text::parse(&stored).unwrap();
    match run(&mut m, &lima()).unwrap_err() {
        PassError::Unsupported { opcode, .. } => assert_eq!(opcode, OpCode::IAdd),
        e => panic!("{e}"),
    }
}

#[test]
fn default_caps_do_nothing() {
    let mut m = irc_ir::text::parse(LOOP).unwrap();
    assert!(!run(&mut m, &PassContext::default()).unwrap());
}

/// The corpus under LIMA caps: frontend + legalization steps + `int-to-float`; counts shaders
/// without integer ops left, shaders rewritten exactly, and the top unsupported reasons.
/// `cargo test --release -p irc-passes --lib -- --ignored int_to_float_corpus --nocapture`
#[test]
#[ignore]
fn int_to_float_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/ir");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("corpus not found, skipped");
        return;
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".raw.dxir"))
        .collect();
    files.sort();
    let config = RunConfig {
        max_compute_lanes: 64,
        fuel: 2_000_000,
        ..RunConfig::default()
    };
    let (mut no_ints, mut exact_n, mut unsupported, mut differ, mut other) = (0, 0, 0, 0, 0);
    let mut reasons: std::collections::BTreeMap<String, u32> = Default::default();
    for f in &files {
        let raw = irc_ir::binary::read(&std::fs::read(f).unwrap()).unwrap();
        let mut m = raw.clone();
        let mut pm = crate::PassManager::new(crate::ManagerOptions {
            verify: true,
            ..Default::default()
        });
        pm.context = lima();
        if crate::pipelines::legalize(&mut pm, &mut m).is_err() {
            other += 1;
            continue;
        }
        let legal = m.clone();
        match pm.run_named(&mut m, "int-to-float") {
            Ok(_) => {}
            Err(PassError::Unsupported { reason, opcode, .. }) => {
                unsupported += 1;
                let key = format!("{opcode}: {}", reason.split(" (").next().unwrap_or(""));
                *reasons.entry(key).or_default() += 1;
                continue;
            }
            Err(e) => panic!("{}: {e}", f.display()),
        }
        if m == legal {
            no_ints += 1;
            continue;
        }
        let mut ok = true;
        for seed in 0..4 {
            let inputs = ShaderInputs::random(&legal, seed);
            if let (Ok(a), Ok(b)) = (
                interp(&legal, &inputs, &config),
                interp(&m, &inputs, &config),
            ) {
                if let Err(e) = outputs_equal(&a, &b) {
                    eprintln!("differs {}: {e}", f.display());
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            exact_n += 1;
        } else {
            differ += 1;
        }
    }
    let mut top: Vec<_> = reasons.into_iter().collect();
    top.sort_by_key(|e| std::cmp::Reverse(e.1));
    eprintln!(
        "lima: {} shaders: {no_ints} without integer ops to rewrite, {exact_n} rewritten exactly, \
         {differ} differ, {unsupported} unsupported, {other} failed legalization",
        files.len()
    );
    for (k, n) in top.iter().take(15) {
        eprintln!("  unsupported {n}x {k}");
    }
    assert_eq!(differ, 0);
}

/// dxbc-spirv's D3D9 `rep i1`: the count is lane `.x` of integer constant register 1, cast to
/// `u32` and counted down to 0. `lane` names the lane's constant (`%5` = x, `%7` = w, which has
/// no D3D9 range).
fn rep_loop(lane: &str) -> String {
    format!(
        "
%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%3 = i32x4[2] DclInputBuiltIn %1 LegacyConstInt
%4 = f32 DclOutput %1 0 0
%5 = u32 Constant 0
%6 = u32 Constant 1
%7 = u32 Constant 3
%8 = f32 Constant 0.0

%20 = Function
%21 = Label None
  %22 = f32 InputLoad %2 null
  %23 = i32x4 InputLoad %3 %6
  %24 = i32 CompositeExtract %23 {lane}
  %25 = u32 Cast %24
  %26 = Branch %30
%30 = Label %50 %48 StructuredLoop
  %31 = f32 Phi %21 %8 %48 %46
  %32 = u32 Phi %21 %25 %48 %45
  %33 = Branch %38
%38 = Label %44 StructuredSelection
  %39 = bool IEq %32 %5
  %40 = BranchConditional %39 %41 %44
%41 = Label None
  %42 = Branch %50
%44 = Label None
  %45 = u32 ISub %32 %6
  %46 = f32 FAdd %31 %22
  %47 = Branch %48
%48 = Label None
  %49 = Branch %30
%50 = Label None
  %51 = OutputStore %4 null %31
  %52 = Return
%53 = FunctionEnd
"
    )
}

#[test]
fn d3d9_integer_register_lane_counts_a_float_loop() {
    let m = exact(&rep_loop("%5"));
    for d in m.code() {
        let op = m.op(d);
        let int_value = op.ty.is_basic_where(|t| t.is_int());
        match op.opcode {
            OpCode::ConvertItoF => {
                let x = Arith::of(op).a().unwrap();
                assert_eq!(int_range::d3d9_int_constant_lane(&m, x), Some(0));
            }
            OpCode::Phi | OpCode::Cast | OpCode::ISub | OpCode::IEq => {
                assert!(!int_value, "{}", irc_ir::text::print(&m));
                assert_ne!(op.opcode, OpCode::Cast, "{}", irc_ir::text::print(&m));
            }
            _ => {}
        }
    }
}

#[test]
fn d3d9_integer_register_lane_w_has_no_range() {
    let mut m = irc_ir::text::parse(&rep_loop("%7")).unwrap();
    match run(&mut m, &lima()).unwrap_err() {
        // The first integer op left in code order: the cast of the unbounded lane.
        PassError::Unsupported { opcode, reason, .. } => {
            assert_eq!(opcode, OpCode::Cast, "{reason}")
        }
        e => panic!("{e}"),
    }
}

/// D3D9 `loop aL, i1`: the iteration count in `i1.x`, `aL` from `i1.y` by `i1.z`; the body
/// accumulates `aL · x`. `exit` is the loop's exit test (on the counter, or on a float).
fn loop_al(exit: &str) -> String {
    format!(
        "
%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%3 = i32x4[2] DclInputBuiltIn %1 LegacyConstInt
%4 = f32 DclOutput %1 0 0
%5 = u32 Constant 0
%6 = u32 Constant 1
%7 = f32 Constant 100.0
%8 = f32 Constant 0.0
%9 = u32 Constant 2

%20 = Function
%21 = Label None
  %22 = f32 InputLoad %2 null
  %23 = i32x4 InputLoad %3 %6
  %24 = i32 CompositeExtract %23 %5
  %25 = u32 Cast %24
  %26 = i32 CompositeExtract %23 %6
  %27 = i32 CompositeExtract %23 %9
  %28 = Branch %30
%30 = Label %50 %48 StructuredLoop
  %31 = f32 Phi %21 %8 %48 %46
  %32 = u32 Phi %21 %25 %48 %45
  %33 = i32 Phi %21 %26 %48 %54
  %34 = Branch %38
%38 = Label %44 StructuredSelection
  %39 = bool {exit}
  %40 = BranchConditional %39 %41 %44
%41 = Label None
  %42 = Branch %50
%44 = Label None
  %45 = u32 ISub %32 %6
  %55 = f32 ConvertItoF %33
  %56 = f32 FMul %55 %22
  %46 = f32 FAdd %31 %56
  %54 = i32 IAdd %33 %27
  %47 = Branch %48
%48 = Label None
  %49 = Branch %30
%50 = Label None
  %51 = OutputStore %4 null %31
  %52 = Return
%53 = FunctionEnd
"
    )
}

#[test]
fn d3d9_loop_counter_is_bounded_by_the_iteration_count() {
    // aL moves at most 255 steps of −128…127 from 0…255: within [−32640, 32640], exact in
    // f32, so every integer op becomes float arithmetic.
    let m = exact(&loop_al("IEq %32 %5"));
    for d in m.code() {
        let op = m.op(d);
        if matches!(op.opcode, OpCode::Phi | OpCode::IAdd | OpCode::ISub) {
            assert!(
                !op.ty.is_basic_where(|t| t.is_int()),
                "{}",
                irc_ir::text::print(&m)
            );
        }
    }
}

#[test]
fn a_loop_counter_without_a_trip_bound_stays_unsupported() {
    // The loop ends on a float test: nothing bounds how often aL steps.
    let mut m = irc_ir::text::parse(&loop_al("FLt %7 %31")).unwrap();
    match run(&mut m, &lima()).unwrap_err() {
        PassError::Unsupported { opcode, reason, .. } => {
            assert!(
                matches!(opcode, OpCode::Phi | OpCode::IAdd),
                "{opcode:?}: {reason}"
            )
        }
        e => panic!("{e}"),
    }
}
