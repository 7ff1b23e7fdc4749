//! `pica-vs -C ieee-mul=exact|legacy`, each mode against its own interpreter oracle on the
//! inputs where they differ (`0 · inf`), in the simulator: `exact` (the default) gives IEEE's
//! NaN like the interpreter on the module as written; `legacy` gives the D3D9 rule's 0 like the
//! interpreter on the module after `relax-ieee-mul` (its oracle), and compiles to fewer
//! instructions. Inputs without a zero times an infinity give the same results in both.

use irc_backend::Precision;
use irc_interp::{InvocationInputs, IoSlot, RunConfig, Scalar, ShaderInputs, Value};
use irc_ir::Module;
use irc_testsuite::filetest::interp_outputs;
use irc_testsuite::harness;

const SRC: &str = "
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

fn slot(location: u32) -> IoSlot {
    IoSlot::Location {
        location,
        component: 0,
    }
}

fn inputs(a: [f32; 4], b: [f32; 4]) -> ShaderInputs {
    let vec4 = |v: [f32; 4]| Value::from_components(v.iter().map(|&x| Scalar::F32(x)).collect());
    let mut inv = InvocationInputs::default();
    inv.io.insert(slot(0), vec4(a));
    inv.io.insert(slot(1), vec4(b));
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

/// NaN equals NaN; otherwise equal values.
fn same(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x.is_nan() && y.is_nan()) || x == y)
}

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
    let m = irc_ir::text::parse(SRC).unwrap();
    let cases = [
        (
            [0.0, 2.0, f32::INFINITY, 1.0],
            [f32::INFINITY, 3.0, 0.0, 1.0],
        ),
        ([0.5, -2.0, 0.0, 4.0], [3.0, 0.25, -7.0, 1.5]),
    ];
    let mut instructions = Vec::new();
    for (mode, legacy) in [("exact", false), ("legacy", true)] {
        let mut options = irc::Options::default();
        options.set("ieee-mul", mode).unwrap();
        let prepared = irc::prepare_for(irc::Input::Module(m.clone()), target, &options).unwrap();
        let output = target.compile(&prepared, &options.backend).unwrap();
        instructions.push(output.stats.instructions);
        let reference = oracle(&m, legacy);
        for (a, b) in cases {
            let inputs = inputs(a, b);
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
    let first = inputs(cases[0].0, cases[0].1);
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
