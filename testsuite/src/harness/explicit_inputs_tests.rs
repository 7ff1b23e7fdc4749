//! The harness on explicit inputs (`compare_inputs`): a shader sampling a 4×4 texture with
//! mips through per-lane texture coordinates (`crate::run_inputs`, `crate::quad_inputs`),
//! compiled for lima-fp and run in its simulator, where the expected texels are worked out
//! by hand: the simulator's texture unit must see the mip chain and the quad's real
//! derivatives.

use super::*;
use crate::run_inputs::RunInputs;
use crate::runline::RunLine;

const PP: &dyn Target = &irc_lima::pp::LimaFp;

/// o0 = t0.Sample(s0, v0.xy) (implicit LOD).
const SAMPLE: &str = "
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclOutput %1 0 0
%7 = f32 DclSrv %1 0 0 1 Image2D
%8 = DclSampler %1 0 0 1
%9 = u32 Constant 0
%10 = u32 Constant 1

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = srv DescriptorLoad %7 %9
  %24 = sampler DescriptorLoad %8 %9
  %25 = f32 CompositeExtract %22 %9
  %26 = f32 CompositeExtract %22 %10
  %27 = f32x2 CompositeConstruct %25 %26
  %28 = f32x4 ImageSample %23 %24 null %27 null null null null null null null
  %29 = OutputStore %3 null %28
  %30 = Return
%31 = FunctionEnd
";

/// Inputs: level 0 texel (x, y) has red (4y + x)/16, level 1 red 0.5 + (2y + x)/8, level 2
/// red 1; texture coordinates (0.125, 0.125) + `step` per pixel.
fn inputs(m: &Module, step: f64) -> ShaderInputs {
    let level = |n: u32, red: &dyn Fn(u32, u32) -> f64| {
        let t: Vec<String> = (0..n * n)
            .map(|i| format!("[{:?}, 0.25, 0.0, 1.0]", red(i % n, i / n)))
            .collect();
        format!("[{}]", t.join(","))
    };
    let json = format!(
        r#"{{"v0": [0.125, 0.125, 0.0, 0.0], "v0.ddx": [{step:?}, 0.0, 0.0, 0.0],
            "v0.ddy": [0.0, {step:?}, 0.0, 0.0],
            "textures": {{"t0": {{"width": 4, "height": 4, "mips": [{}, {}, {}]}}}}}}"#,
        level(4, &|x, y| f64::from(4 * y + x) / 16.0),
        level(2, &|x, y| 0.5 + f64::from(2 * y + x) / 8.0),
        level(1, &|_, _| 1.0),
    );
    let r = RunInputs::parse(&json).expect("json");
    let line = RunLine {
        assigns: r.assigns.clone(),
        ..RunLine::default()
    };
    let mut inputs = line.inputs(m).expect("inputs");
    r.apply(m, &mut inputs).expect("textures");
    inputs
}

#[test]
fn lima_fp_samples_a_mip_chain_with_per_lane_coordinates() {
    let m = irc_ir::text::parse(SAMPLE).expect("parses");
    let options = irc::Options::default();
    let prepared = irc::prepare_for(irc::Input::Module(m.clone()), PP, &options).expect("prepares");
    let output = PP.compile(&prepared, &options.backend).expect("compiles");
    // step 0.25: LOD 0, lane (x, y) reads level-0 texel (x, y): red 0, 1/16, 4/16, 5/16.
    // step 0.5: LOD 1, lane (x, y) reads level-1 texel (x, y): red 0.5 + (2y + x)/8.
    for (step, reds) in [
        (0.25, [0.0, 0.0625, 0.25, 0.3125]),
        (0.5, [0.5, 0.625, 0.75, 0.875]),
    ] {
        let inputs = inputs(&m, step);
        let verdict = compare_inputs(PP, &m, &prepared, &output, &inputs, "explicit")
            .unwrap_or_else(|e| panic!("step {step}: {e}"));
        assert!(
            matches!(
                verdict,
                RunVerdict::Matched {
                    native_deviation: None
                }
            ),
            "step {step}: {verdict:?}"
        );
        let sim = simulate(PP, &output, &inputs, Precision::Exact).expect("simulates");
        for (lane, red) in reds.iter().enumerate() {
            let got = sim.invocations[lane].values[&(irc_backend::sim::IoName::Location(0), 0)];
            assert_eq!(f32::from_bits(got), *red as f32, "step {step}, lane {lane}");
        }
    }
}
