//! PICA's two multiply options, each mode against its own interpreter oracle, in the simulator,
//! on the inputs where the modes differ:
//! - `-C ieee-mul=exact|legacy` (`0 · inf`): `exact` (the default) gives IEEE's NaN like the
//!   interpreter on the module as written; `legacy` gives the D3D9 rule's 0 like the interpreter
//!   on the module after `relax-ieee-mul` (its oracle), and compiles to fewer instructions.
//! - `-C legacy-mul=native|exact` (`NaN · 0`), also against hand-written expectations: PICA's
//!   MUL/MAD/DP give NaN for `NaN · 0` (reference §10), the IR's D3D9 multiplies give 0.
//!   `native` (the default) is the bare instruction, with its own oracle (`Target::oracle` of
//!   the options); `exact` adds the correction (`backends/pica/src/lower/legacy_mul.rs`).

use irc_backend::{Output, Precision};
use irc_interp::{InvocationInputs, IoSlot, RunConfig, Scalar, ShaderInputs, Value};
use irc_ir::Module;
use irc_testsuite::filetest::interp_outputs;
use irc_testsuite::harness;

const IEEE_SRC: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0
%3 = f32x4 DclInput %1 1 0
%4 = f32x4 DclOutput %1 0 0
%5 = f32x4 DclOutput %1 1 0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32x4 InputLoad %3 null
  %24 = f32x4 FMul %22 %23
  %25 = OutputStore %4 null %24
  %26 = f32 FDot %22 %23
  %27 = f32x4 CompositeConstruct %26 %26 %26 %26
  %28 = OutputStore %5 null %27
  %29 = Return
%30 = FunctionEnd
";

const LEGACY_SRC: &str = "
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

/// One invocation whose input at location `i` is `values[i]`.
fn inputs(values: &[&[f32]]) -> ShaderInputs {
    let mut inv = InvocationInputs::default();
    for (location, v) in values.iter().enumerate() {
        let value = Value::from_components(v.iter().map(|&x| Scalar::F32(x)).collect());
        inv.io.insert(slot(location as u32), value);
    }
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

/// `m` compiled for pica-vs with `-C key=mode`, and the options.
fn compile(m: &Module, key: &str, mode: &str) -> (Output, irc::Options) {
    let target = irc::target("pica-vs").expect("registered");
    let mut options = irc::Options::default();
    options.set(key, mode).unwrap();
    let prepared = irc::prepare_for(irc::Input::Module(m.clone()), target, &options).unwrap();
    (
        target.compile(&prepared, &options.backend).unwrap(),
        options,
    )
}

// ---- ieee-mul --------------------------------------------------------------------------------

/// The mode's oracle: the module as written, or after `relax-ieee-mul`.
fn oracle(m: &Module, legacy: bool) -> Module {
    let mut o = m.clone();
    let cx = irc_passes::PassContext {
        ieee_mul_legacy: legacy,
        ..Default::default()
    };
    irc_passes::relax_ieee_mul::run(&mut o, &cx).unwrap();
    o
}

#[test]
fn each_ieee_mul_mode_matches_its_oracle_in_the_simulator() {
    let target = irc::target("pica-vs").expect("registered");
    let m = irc_ir::text::parse(IEEE_SRC).unwrap();
    let cases = [
        (
            [0.0, 2.0, f32::INFINITY, 1.0],
            [f32::INFINITY, 3.0, 0.0, 1.0],
        ),
        ([0.5, -2.0, 0.0, 4.0], [3.0, 0.25, -7.0, 1.5]),
    ];
    let mut instructions = Vec::new();
    for (mode, legacy) in [("exact", false), ("legacy", true)] {
        let (output, _) = compile(&m, "ieee-mul", mode);
        instructions.push(output.stats.instructions);
        let reference = oracle(&m, legacy);
        for (a, b) in cases {
            let inputs = inputs(&[&a, &b]);
            let want = irc_interp::run(&reference, &inputs, &RunConfig::default()).unwrap();
            let sim = harness::simulate(target, &output, &inputs, Precision::Exact).unwrap();
            let got = interp_outputs(&m, &sim);
            for location in 0..2 {
                let (w, g) = (floats(&want, location), floats(&got, location));
                assert!(
                    same(&w, &g),
                    "{mode}, {a:?}·{b:?}, o{location}: {g:?}, oracle {w:?}"
                );
            }
        }
    }
    // Where the modes differ, each gave its own oracle's answer (checked above); make sure the
    // first case does tell them apart.
    let first = inputs(&[&cases[0].0, &cases[0].1]);
    let ieee = irc_interp::run(&oracle(&m, false), &first, &RunConfig::default()).unwrap();
    let d3d9 = irc_interp::run(&oracle(&m, true), &first, &RunConfig::default()).unwrap();
    assert!(floats(&ieee, 0)[0].is_nan() && floats(&d3d9, 0)[0] == 0.0);
    assert!(
        instructions[1] < instructions[0],
        "legacy {} vs exact {} instructions",
        instructions[1],
        instructions[0]
    );
}

// ---- legacy-mul ------------------------------------------------------------------------------

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
    let m = irc_ir::text::parse(LEGACY_SRC).unwrap();
    let mut instructions = Vec::new();
    for (k, mode) in ["native", "exact"].into_iter().enumerate() {
        let (output, options) = compile(&m, "legacy-mul", mode);
        instructions.push(output.stats.instructions);
        let config = harness::interp_config(target, &options.backend);
        for (ins, v, mul, mad, dot4, dot3) in cases() {
            let inputs = inputs(&[&ins[0], &ins[1], &ins[2], &v]);
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
    let words = |src: &str| -> Vec<Vec<u8>> {
        let m = irc_ir::text::parse(src).unwrap();
        ["native", "exact"]
            .iter()
            .map(|mode| compile(&m, "legacy-mul", mode).0.code().to_vec())
            .collect()
    };
    let free = words(FREE);
    assert_eq!(free[0], free[1]);
    // The same products of the unclamped inputs may meet a NaN: there the modes differ (so
    // the equality above rests on the facts, not on products folded away).
    let raw = words(
        &FREE
            .replace("FMulLegacy %26 %27", "FMulLegacy %22 %23")
            .replace("FDotLegacy %26 %27", "FDotLegacy %22 %23"),
    );
    assert!(raw[1].len() > raw[0].len());
}
