//! A Lima program: a vertex and a pixel shader compiled together (`compile_program`, family
//! `lima`) and run through both simulators — the GP's output varyings, by varying slot, fed to
//! the PP's inputs through the pixel stage's reflection — against the interpreter running the
//! vertex shader and then the pixel shader on its outputs.

use irc::{program::compile_program, Input, Options};
use irc_backend::{Output, Precision, Tolerance};
use irc_interp::{IoSlot, ShaderInputs, Value};
use irc_lima::gp::sim_io::{uniforms, unviewport};
use irc_lima::gp::{decode_bytes, run_program, GpInputs, GpReflection, SimOptions};
use irc_testsuite::harness::{compare::compare_outputs, simulate};

/// Position transformed by c0–c3; location 1 = colour·c4 + 0.25, location 3 = (uv·2, |uv.x|,
/// rcp(1 + uv.y·uv.y)), location 5 written but never read (dropped).
const VS: &str = "\
%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclInput %1 1 0 None
%4 = f32x2 DclInput %1 2 0 None
%5 = f32x4[5] DclInputBuiltIn %1 LegacyConstFloat None
%6 = f32x4 DclOutputBuiltIn %1 Position
%7 = f32x4 DclOutput %1 1 0
%8 = f32x4 DclOutput %1 3 0
%9 = f32x4 DclOutput %1 5 0
%10 = u32 Constant 0
%11 = u32 Constant 1
%12 = u32 Constant 2
%13 = u32 Constant 3
%14 = u32 Constant 4
%15 = f32x4 Constant 0.25 0.25 0.25 0.25
%16 = f32 Constant 2.0
%17 = f32 Constant 1.0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32x4 InputLoad %5 %10
  %24 = f32x4 InputLoad %5 %11
  %25 = f32x4 InputLoad %5 %12
  %26 = f32x4 InputLoad %5 %13
  %27 = f32 FDot %23 %22
  %28 = f32 FDot %24 %22
  %29 = f32 FDot %25 %22
  %30 = f32 FDot %26 %22
  %31 = f32x4 CompositeConstruct %27 %28 %29 %30
  %32 = OutputStore %6 null %31
  %33 = f32x4 InputLoad %3 null
  %34 = f32x4 InputLoad %5 %14
  %35 = f32x4 FMad %33 %34 %15
  %36 = OutputStore %7 null %35
  %37 = f32x2 InputLoad %4 null
  %38 = f32 CompositeExtract %37 %10
  %39 = f32 CompositeExtract %37 %11
  %40 = f32 FMul %38 %16
  %41 = f32 FMul %39 %16
  %42 = f32 FAbs %38
  %43 = f32 FMad %39 %39 %17
  %44 = f32 FRcp %43
  %45 = f32x4 CompositeConstruct %40 %41 %42 %44
  %46 = OutputStore %8 null %45
  %47 = OutputStore %9 null %22
  %48 = Return
%49 = FunctionEnd
";

/// o0 = colour·t.w + t.x (colour at location 1, t at location 3).
const PS: &str = "\
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 1 0 None
%3 = f32x4 DclInput %1 3 0 None
%4 = f32x4 DclOutput %1 0 0
%10 = u32 Constant 0
%13 = u32 Constant 3

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32x4 InputLoad %3 null
  %24 = f32 CompositeExtract %23 %13
  %25 = f32 CompositeExtract %23 %10
  %26 = f32x4 CompositeConstruct %24 %24 %24 %24
  %27 = f32x4 CompositeConstruct %25 %25 %25 %25
  %28 = f32x4 FMad %22 %26 %27
  %29 = OutputStore %4 null %28
  %30 = Return
%31 = FunctionEnd
";

fn f32s(v: &Value) -> Vec<f32> {
    let mut out = Vec::new();
    v.flatten(&mut out);
    out.iter().map(|s| s.as_f32()).collect()
}

/// Runs the vertex stage's code in the GP simulator: its varyings by slot.
fn run_gp(out: &Output, inputs: &ShaderInputs) -> [[f32; 4]; 16] {
    let program = decode_bytes(out.code()).expect("decodes");
    let refl = &out.reflection;
    let mut attributes = [[0.0; 4]; 16];
    for v in &refl.varyings {
        let irc_backend::IoSource::Location { location, .. } = v.source else {
            panic!("attribute {:?}", v.source)
        };
        let value = &inputs.invocations[0].io[&IoSlot::Location {
            location,
            component: 0,
        }];
        for (i, x) in f32s(value)
            .iter()
            .enumerate()
            .take(usize::from(v.components))
        {
            attributes[v.slot as usize][usize::from(v.lane) + i] = *x;
        }
    }
    let gp = refl
        .target_part::<GpReflection>()
        .cloned()
        .unwrap_or_default();
    let textures = irc_backend::NoTextures;
    let si = irc_backend::SimInputs {
        invocations: vec![],
        legacy_constants: inputs_legacy(inputs),
        constant_buffers: Default::default(),
        textures: &textures,
    };
    let gin = GpInputs {
        attributes,
        uniforms: uniforms(&si, refl, &gp).expect("uniforms"),
    };
    run_program(&program, &gin, &SimOptions::default())
        .expect("runs")
        .varyings
}

/// The D3D9 float constants of `inputs` as the simulators take them.
fn inputs_legacy(
    inputs: &ShaderInputs,
) -> std::collections::BTreeMap<(irc_ir::BuiltIn, u32), [u32; 4]> {
    let slot = IoSlot::builtin(irc_ir::BuiltIn::LegacyConstFloat);
    let mut m = std::collections::BTreeMap::new();
    if let Some(v) = inputs.invocations[0].io.get(&slot) {
        for (k, c) in f32s(v).chunks(4).enumerate() {
            let mut lanes = [0u32; 4];
            for (i, x) in c.iter().enumerate() {
                lanes[i] = x.to_bits();
            }
            m.insert((irc_ir::BuiltIn::LegacyConstFloat, k as u32), lanes);
        }
    }
    m
}

#[test]
fn vertex_varyings_feed_the_pixel_stage_and_match_the_interpreter() {
    let prog = compile_program(
        vec![Input::Text(VS), Input::Text(PS)],
        "lima",
        &Options::default(),
    )
    .expect("the program compiles");
    assert_eq!(prog.stages.len(), 2);
    let (vs_out, ps_out) = (&prog.stages[0].output, &prog.stages[1].output);
    assert_eq!(prog.stages[0].target, "lima-vp");
    assert_eq!(prog.stages[1].target, "lima-fp");
    // Location 5 is read by no stage: dropped.
    assert!(vs_out.reflection.outputs.iter().all(|o| !matches!(
        o.target,
        irc_backend::IoSource::Location { location: 5, .. }
    )));
    let vs = irc_ir::text::parse(VS).unwrap();
    let ps = irc_ir::text::parse(PS).unwrap();
    let cfg = irc_testsuite::equivalence::run_config();
    let pp = irc::registry::Registry::builtin()
        .target("lima-fp")
        .unwrap();
    for seed in 0..8 {
        let vin = ShaderInputs::random(&vs, seed);
        let vref = irc_interp::run(&vs, &vin, &cfg).expect("vertex stage runs");
        let varyings = run_gp(vs_out, &vin);
        // The position (varying 0, through the viewport epilogue) matches the interpreter.
        let want_pos = f32s(&vref.invocations[0].io[&IoSlot::builtin(irc_ir::BuiltIn::Position)]);
        let got_pos = unviewport(varyings[0]);
        for c in 0..4 {
            assert!(
                Tolerance::F32.matches(got_pos[c], want_pos[c]),
                "seed {seed}: position.{c}: {} vs {}",
                got_pos[c],
                want_pos[c]
            );
        }
        // Interpreter: the pixel stage on the vertex stage's outputs (flat over the quad).
        let mut pin = ShaderInputs::random(&ps, seed);
        let mut sim_in = pin.clone();
        for inv in &mut pin.invocations {
            for (slot, v) in &vref.invocations[0].io {
                if matches!(slot, IoSlot::Location { .. }) {
                    inv.io.insert(*slot, v.clone());
                }
            }
        }
        let pref = irc_interp::run(&ps, &pin, &cfg).expect("pixel stage runs");
        // Simulators: each pixel-stage input from the GP varying its reflection names (PP
        // slot s is GP varying s + 1; varying 0 is the position).
        for v in &ps_out.reflection.varyings {
            let irc_backend::IoSource::Location {
                location,
                component,
            } = v.source
            else {
                continue;
            };
            let mut comps = vec![0.0f32; 4];
            for i in 0..usize::from(v.components) {
                let lane = usize::from(v.lane) + i;
                comps[component as usize + i] = varyings[v.slot as usize + 1 + lane / 4][lane % 4];
            }
            for inv in &mut sim_in.invocations {
                inv.io.insert(
                    IoSlot::Location {
                        location,
                        component: 0,
                    },
                    Value::f32s(&comps),
                );
            }
        }
        let got = simulate(pp, ps_out, &sim_in, Precision::Exact).expect("PP runs");
        compare_outputs(&pref, &got, Tolerance::F32, &|_| {})
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

/// `--emit container` for a program: one MBS1 file holding the vertex stage's `CVER` and the
/// pixel stage's `CFRA`, from which each stage's code (and its disassembly) reads back.
#[test]
fn one_mbs1_file_carries_both_stages() {
    let mut options = Options::default();
    options.set("container", "1").expect("option");
    let prog = compile_program(vec![Input::Text(VS), Input::Text(PS)], "lima", &options)
        .expect("the program compiles");
    let file = &prog.container.as_ref().expect("one program file").bytes;
    assert_eq!(&file[0..4], b"MBS1");
    assert_eq!(&file[8..12], b"CVER");
    let (vs_out, ps_out) = (&prog.stages[0].output, &prog.stages[1].output);
    let words = |o: &Output| irc_backend::output::words_of(o.code());
    use irc_lima::pp::mbs::read_mbs1_stage;
    assert_eq!(read_mbs1_stage(file, b"CVER").unwrap(), words(vs_out));
    assert_eq!(read_mbs1_stage(file, b"CFRA").unwrap(), words(ps_out));
    // Each stage's disassembler finds its own stage in the program file.
    for (name, out) in [("lima-vp", vs_out), ("lima-fp", ps_out)] {
        let t = irc::registry::Registry::builtin().target(name).unwrap();
        assert_eq!(
            t.disassemble(file).expect("disassembles"),
            t.disassemble(out.code()).expect("disassembles"),
            "{name}"
        );
    }
}
