//! A PICA200 program: a vertex and a geometry shader compiled together (`compile_program`,
//! family `pica`) into ONE SHBIN (two DVLEs over shared code and operand descriptors), run
//! from those bytes the way the hardware connects the stages — the vertex DVLE once per input
//! vertex, its output registers in output-mask order concatenated into the geometry DVLE's
//! `v0–v15` (point mode: vertex `j`'s `a`-th output register is `v(j·k + a)`) — against the
//! interpreter running the vertex shader on each vertex and the geometry shader on their
//! outputs. Compared: every emitted vertex and the triangles.

use irc::{program::compile_program, Input, Options};
use irc_backend::{InvocationOutputs, Precision, SimOutputs, Tolerance};
use irc_interp::{IoSlot, Value};
use irc_ir::{BuiltIn, PrimitiveType};
use irc_pica::shbin::{self, ShaderType};
use irc_pica::sim::{run_shbin, SimOptions};
use irc_pica::sim_io::{inputs_from, outputs_to, uniforms_from};
use irc_testsuite::harness::gs::compare_gs;
use irc_testsuite::harness::inputs::sim_inputs;
use irc_testsuite::harness::textures::InterpTextures;
use irc_testsuite::harness::{interp_config, interp_inputs};

const VS: &str = include_str!("../examples/pica_program.vs.ir");
const GS: &str = include_str!("../examples/pica_program.gs.ir");

#[test]
fn vertex_and_geometry_shader_run_from_one_shbin() {
    let vs = irc_ir::text::parse(VS).expect("vs parses");
    let gs = irc_ir::text::parse(GS).expect("gs parses");
    let mut options = Options::default();
    options.set("container", "1").expect("option");
    let program = compile_program(
        vec![Input::Module(vs.clone()), Input::Module(gs.clone())],
        "pica",
        &options,
    )
    .expect("the program compiles");
    let bytes = &program.container.as_ref().expect("one SHBIN").bytes;
    let sh = shbin::read(bytes).expect("readable SHBIN");
    assert_eq!(sh.dvles.len(), 2);
    let (dv, dg) = (&sh.dvles[0], &sh.dvles[1]);
    assert_eq!(
        (dv.kind, dg.kind),
        (ShaderType::Vertex, ShaderType::Geometry)
    );
    assert_eq!(dg.gs_mode, 0, "point mode");
    assert_eq!(dv.main, 0);
    assert_eq!(dg.main, dv.endmain, "the GS code follows the VS code");
    // The VS writes exactly the registers the GS reads (location 2 is dropped): o0, o1.
    assert_eq!(dv.output_mask, 0b11);
    let vs_regs: Vec<usize> = (0..16).filter(|r| dv.output_mask & (1 << r) != 0).collect();
    let k = vs_regs.len();

    // Users read, edit and reassemble it: disassembly (one picasso file per DVLE) → assembly
    // gives the same bytes.
    let gs_target = irc::target("pica-gs").expect("registered");
    let text = gs_target.disassemble(bytes).expect("disassembles");
    assert!(
        text.contains(".gsh point") && text.contains("setemit 2, prim"),
        "{text}"
    );
    assert_eq!(&gs_target.assemble(&text).expect("reassembles"), bytes);

    let vs_out = &program.stages[0].output;
    let gs_out = &program.stages[1].output;
    let config = interp_config(gs_target, &Default::default());
    let opts = SimOptions {
        precision: Precision::Exact,
        fuel: 1 << 16,
    };
    for seed in 0..8u64 {
        // Three vertices through the vertex stage: interpreter and simulator.
        let mut want_vs = Vec::new();
        let mut v_gs = [[0.0f32; 4]; 16];
        for j in 0..3 {
            let inputs = interp_inputs(&vs, seed * 3 + j as u64, &[]);
            let w = irc_interp::run(&vs, &inputs, &config).expect("interpreter (vs)");
            want_vs.push(w.invocations[0].io.clone());
            let textures = InterpTextures::new(&inputs);
            let si = sim_inputs(&inputs, &textures);
            let u = uniforms_from(&vs_out.reflection, &si).expect("vs uniforms");
            let v = inputs_from(&vs_out.reflection, &si.invocations[0]).expect("vs inputs");
            let r = run_shbin(&sh, 0, &v, &u, &opts).expect("vs runs");
            for (a, &reg) in vs_regs.iter().enumerate() {
                v_gs[j * k + a] = r.outputs[reg];
            }
        }
        // The geometry stage: the interpreter on the vertex shader's outputs …
        let mut gs_inputs = interp_inputs(&gs, seed, &[]);
        let per_vertex =
            |slot: IoSlot| Value::Composite(want_vs.iter().map(|o| o[&slot].clone()).collect());
        let inv = &mut gs_inputs.invocations[0].io;
        for slot in [
            IoSlot::builtin(BuiltIn::Position),
            IoSlot::Location {
                location: 1,
                component: 0,
            },
        ] {
            inv.insert(slot, per_vertex(slot));
        }
        let want = irc_interp::run(&gs, &gs_inputs, &config).expect("interpreter (gs)");
        assert_eq!(want.gs_vertices.len(), 3);
        // … and the geometry DVLE of the same SHBIN on the vertex DVLE's output registers.
        let textures = InterpTextures::new(&gs_inputs);
        let si = sim_inputs(&gs_inputs, &textures);
        let u = uniforms_from(&gs_out.reflection, &si).expect("gs uniforms");
        let r = run_shbin(&sh, 1, &v_gs, &u, &opts).expect("gs runs");
        let got = SimOutputs {
            invocations: r
                .emitted
                .iter()
                .map(|o| InvocationOutputs {
                    values: outputs_to(&gs_out.reflection, o),
                    discarded: false,
                })
                .collect(),
            primitives: r
                .primitives
                .iter()
                .map(|p| {
                    let [a, b, c] = p.emits;
                    if p.winding {
                        vec![b, a, c]
                    } else {
                        vec![a, b, c]
                    }
                })
                .collect(),
            ..Default::default()
        };
        compare_gs(&want, &got, Tolerance::F32, PrimitiveType::Triangles)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}
