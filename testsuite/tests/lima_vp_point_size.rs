//! The `lima-vp` point-size epilogue with real parameters: the program stores
//! `min(max(ps, p.x), p.y) · p.z` (the blob's `clamp(ps, p.x, p.y) · p.z`, reference §10) with
//! `p` in the uniform slot its reflection names. Run in the GP simulator with Mesa's clamp
//! `p = (1, 100, 1)` and with a scale, the stored value is checked against the formula by hand.

use irc::{compile, Input, Options};
use irc_lima::gp::{decode_bytes, run_program, GpInputs, GpReflection, SimOptions};

/// Point size = v0.x; position = v0.
const VS: &str = "\
%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0 None
%4 = f32x4 DclOutputBuiltIn %1 Position
%5 = f32 DclOutputBuiltIn %1 PointSize
%8 = u32 Constant 0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = OutputStore %4 null %22
  %24 = f32 CompositeExtract %22 %8
  %25 = OutputStore %5 null %24
  %26 = Return
%27 = FunctionEnd
";

#[test]
fn the_point_size_is_clamped_and_scaled_by_its_parameters() {
    let out = compile(Input::Text(VS), "lima-vp", &Options::default()).expect("compiles");
    let gp = out
        .reflection
        .target_part::<GpReflection>()
        .cloned()
        .expect("GP reflection");
    let slot = gp.point_size.expect("point-size parameters") as usize;
    let viewport = gp.viewport.expect("viewport") as usize;
    let ps_reg = out
        .reflection
        .outputs
        .iter()
        .find(|o| o.target == irc_backend::IoSource::BuiltIn(irc_ir::BuiltIn::PointSize))
        .expect("point size output")
        .register as usize;
    let program = decode_bytes(out.code()).expect("decodes");
    // (parameters, v0.x, stored point size) — by hand: clamp to [min, max], then · scale.
    let cases: [([f32; 4], f32, f32); 6] = [
        ([1.0, 100.0, 1.0, 0.0], 0.25, 1.0),
        ([1.0, 100.0, 1.0, 0.0], -3.0, 1.0),
        ([1.0, 100.0, 1.0, 0.0], 7.5, 7.5),
        ([1.0, 100.0, 1.0, 0.0], 500.0, 100.0),
        ([2.0, 8.0, 0.5, 0.0], 1.0, 1.0),
        ([2.0, 8.0, 0.5, 0.0], 12.0, 4.0),
    ];
    for (params, ps, want) in cases {
        let mut uniforms = vec![[0.0f32; 4]; out.reflection.uniform_slots as usize];
        for u in &out.reflection.uniforms {
            if let irc_backend::UniformSource::Literal(v) = u.source {
                uniforms[u.slot as usize] = v;
            }
        }
        uniforms[viewport] = [1.0, 1.0, 1.0, 0.0];
        uniforms[viewport + 1] = [0.0; 4];
        uniforms[slot] = params;
        let mut attributes = [[0.0f32; 4]; 16];
        attributes[0] = [ps, 0.0, 0.0, 1.0];
        let r = run_program(
            &program,
            &GpInputs {
                attributes,
                uniforms,
            },
            &SimOptions::default(),
        )
        .expect("runs");
        assert_eq!(r.varyings[ps_reg][0], want, "ps {ps} with {params:?}");
    }
}
