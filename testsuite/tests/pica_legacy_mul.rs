//! `pica-vs -C legacy-mul=native|exact` on the inputs where they differ (`NaN · 0`), in the
//! simulator, each mode against its own interpreter oracle (`Target::oracle` of the options)
//! and against hand-written expectations: PICA's MUL/MAD/DP give NaN for `NaN · 0` (reference
//! §10), the IR's D3D9 multiplies give 0. `native` (the default) is the bare instruction;
//! `exact` adds the correction (`backends/pica/src/lower/legacy_mul.rs`).

use irc_backend::Precision;
use irc_interp::{InvocationInputs, IoSlot, Scalar, ShaderInputs, Value};
use irc_testsuite::filetest::interp_outputs;
use irc_testsuite::harness;

const SRC: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0
%3 = f32x4 DclInput %1 1 0
%4 = f32x4 DclInput %1 2 0
%5 = f32x3 DclInput %1 3 0
%6 = f32x4 DclOutput %1 0 0
%7 = f32x4 DclOutput %1 1 0
%8 = f32x4 DclOutput %1 2 0
%9 = f32x4 DclOutput %1 3 0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32x4 InputLoad %3 null
  %24 = f32x4 InputLoad %4 null
  %25 = f32x3 InputLoad %5 null
  %26 = f32x4 FMulLegacy %22 %23
  %27 = OutputStore %6 null %26
  %28 = f32x4 FMadLegacy %22 %23 %24
  %29 = OutputStore %7 null %28
  %30 = f32 FDotLegacy %22 %23
  %31 = f32x4 CompositeConstruct %30 %30 %30 %30
  %32 = OutputStore %8 null %31
  %33 = f32 FDotLegacy %25 %25
  %34 = f32x4 CompositeConstruct %33 %33 %33 %33
  %35 = OutputStore %9 null %34
  %36 = Return
%37 = FunctionEnd
";

fn slot(location: u32) -> IoSlot {
    IoSlot::Location {
        location,
        component: 0,
    }
}

fn inputs(a: [f32; 4], b: [f32; 4], c: [f32; 4], v: [f32; 3]) -> ShaderInputs {
    let vec = |v: &[f32]| Value::from_components(v.iter().map(|&x| Scalar::F32(x)).collect());
    let mut inv = InvocationInputs::default();
    inv.io.insert(slot(0), vec(&a));
    inv.io.insert(slot(1), vec(&b));
    inv.io.insert(slot(2), vec(&c));
    inv.io.insert(slot(3), vec(&v));
    ShaderInputs {
        invocations: vec![inv],
        ..Default::default()
    }
}

fn floats(outputs: &irc_interp::Outputs, location: u32) -> Vec<f32> {
    outputs.invocations[0].io[&slot(location)]
        .components()
        .expect("vector output")
        .iter()
        .map(|c| c.as_f32())
        .collect()
}

/// NaN equals NaN; otherwise equal values (±0 alike: float24 has one zero).
fn same(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x.is_nan() && y.is_nan()) || x == y)
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

/// (a, b, c, v) and, per mode (native, exact), the expected o0 = a·b, o1 = a·b + c,
/// o2.x = dot4(a, b), o3.x = dot3(v, v).
type Case = (
    [[f32; 4]; 3],
    [f32; 3],
    [[f32; 4]; 2],
    [[f32; 4]; 2],
    [f32; 2],
    [f32; 2],
);

fn cases() -> Vec<Case> {
    vec![
        (
            [
                [NAN, NAN, 0.0, 2.0],
                [0.0, 3.0, INF, NAN],
                [1.0, 1.0, 1.0, 1.0],
            ],
            [NAN, 0.0, 0.0],
            // native: NaN · 0 = NaN; exact: 0.
            [[NAN, NAN, 0.0, NAN], [0.0, NAN, 0.0, NAN]],
            [[NAN, NAN, 1.0, NAN], [1.0, NAN, 1.0, NAN]],
            [NAN, NAN],
            [NAN, NAN],
        ),
        (
            [
                [NAN, 1.0, 2.0, 3.0],
                [0.0, 1.0, 1.0, 1.0],
                [0.5, -INF, 0.0, 2.0],
            ],
            [1.0, 2.0, 2.0],
            [[NAN, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0]],
            [[NAN, -INF, 2.0, 5.0], [0.5, -INF, 2.0, 5.0]],
            [NAN, 6.0],
            [9.0, 9.0],
        ),
        (
            [
                [-INF, 0.0, 4.0, NAN],
                [0.0, NAN, -0.5, NAN],
                [0.0, 0.0, 0.0, 0.0],
            ],
            [NAN, 1.0, 1.0],
            [[0.0, NAN, -2.0, NAN], [0.0, 0.0, -2.0, NAN]],
            [[0.0, NAN, -2.0, NAN], [0.0, 0.0, -2.0, NAN]],
            [NAN, NAN],
            [NAN, NAN],
        ),
    ]
}

#[test]
fn each_legacy_mul_mode_matches_its_oracle_and_the_hand_computed_results() {
    let target = irc::target("pica-vs").expect("registered");
    let m = irc_ir::text::parse(SRC).unwrap();
    let mut instructions = Vec::new();
    for (k, mode) in ["native", "exact"].into_iter().enumerate() {
        let mut options = irc::Options::default();
        options.set("legacy-mul", mode).unwrap();
        let prepared = irc::prepare_for(irc::Input::Module(m.clone()), target, &options).unwrap();
        let output = target.compile(&prepared, &options.backend).unwrap();
        instructions.push(output.stats.instructions);
        let config = harness::interp_config(target, &options.backend);
        for (ins, v, mul, mad, dot4, dot3) in cases() {
            let inputs = inputs(ins[0], ins[1], ins[2], v);
            let oracle = irc_interp::run(&m, &inputs, &config).unwrap();
            let sim = harness::simulate(target, &output, &inputs, Precision::Exact).unwrap();
            let got = interp_outputs(&m, &sim);
            let want = [
                mul[k].to_vec(),
                mad[k].to_vec(),
                vec![dot4[k]; 4],
                vec![dot3[k]; 4],
            ];
            for (location, want) in want.iter().enumerate() {
                let location = location as u32;
                let (o, g) = (floats(&oracle, location), floats(&got, location));
                assert!(
                    same(&o, want),
                    "{mode}, inputs {ins:?} {v:?}, o{location}: oracle {o:?}, hand {want:?}"
                );
                assert!(
                    same(&g, want),
                    "{mode}, inputs {ins:?} {v:?}, o{location}: simulator {g:?}, hand {want:?}\n{}",
                    output.disassembly
                );
            }
        }
    }
    assert!(
        instructions[0] < instructions[1],
        "native {} vs exact {} instructions",
        instructions[0],
        instructions[1]
    );
}

#[test]
fn exact_mode_adds_nothing_where_no_factor_can_be_nan() {
    // Factors made NaN-free (saturated) and a product with a non-zero literal: the bare
    // MUL/DP4 is exact, so both modes compile to the same code.
    const FREE: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0
%3 = f32x4 DclInput %1 1 0
%4 = f32x4 DclOutput %1 0 0
%5 = f32x4 DclOutput %1 1 0
%24 = f32x4 Constant 0.0 0.0 0.0 0.0
%25 = f32x4 Constant 1.0 1.0 1.0 1.0
%29 = f32x4 Constant 2.0 -3.0 0.5 4.0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32x4 InputLoad %3 null
  %26 = f32x4 FClamp %22 %24 %25
  %27 = f32x4 FClamp %23 %24 %25
  %28 = f32x4 FMulLegacy %26 %27
  %30 = f32x4 FMulLegacy %22 %29
  %31 = f32x4 FAdd %28 %30
  %32 = OutputStore %4 null %31
  %33 = f32 FDotLegacy %26 %27
  %34 = f32x4 CompositeConstruct %33 %33 %33 %33
  %35 = OutputStore %5 null %34
  %36 = Return
%37 = FunctionEnd
";
    let target = irc::target("pica-vs").expect("registered");
    let m = irc_ir::text::parse(FREE).unwrap();
    let words: Vec<Vec<u8>> = ["native", "exact"]
        .iter()
        .map(|mode| {
            let mut options = irc::Options::default();
            options.set("legacy-mul", mode).unwrap();
            let prepared =
                irc::prepare_for(irc::Input::Module(m.clone()), target, &options).unwrap();
            target
                .compile(&prepared, &options.backend)
                .unwrap()
                .code()
                .to_vec()
        })
        .collect();
    assert_eq!(words[0], words[1]);
}
