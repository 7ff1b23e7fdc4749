//! Reviewed lima-fp and pica-vs output for small shaders (more, per PP unit, in the filetests under
//! `filetests/targets/lima-fp/`) (more, per PP unit, in the filetests under
//! `filetests/targets/lima-fp/`): the disassembly decoded from the encoded words,
//! the reflection and the statistics (DESIGN rule 12: binaries as disassembly, never hex).
//! Each program is also run against the interpreter, so a snapshot never records wrong code.

use irc_testsuite::corpus::Outcome;
use irc_testsuite::harness::check_shader;

fn compile_and_check(text: &str) -> String {
    compile_and_check_for("lima-fp", text)
}

fn compile_and_check_for(name: &str, text: &str) -> String {
    let m = irc_ir::text::parse(text).expect("parses");
    let target = irc::target(name).expect("registered");
    let check = check_shader(target, &m, 8);
    assert!(matches!(check.outcome, Outcome::Ok), "{:?}", check.outcome);
    let o = check.output.expect("compiled");
    let s = &o.stats;
    format!(
        "{}\n{}instructions {}, words {}, registers {}, spills {}, units filled {}, lower bound {}\n",
        o.disassembly,
        o.reflection.to_text(),
        s.instructions,
        s.code_bytes / 4,
        s.registers,
        s.spills,
        s.units_filled,
        s.lower_bound
    )
}

#[test]
fn lima_fp_textured_fog_example() {
    let text = include_str!("../examples/textured_fog.ir");
    insta::assert_snapshot!(compile_and_check(text));
}

#[test]
fn lima_fp_dot_products_use_sum_units() {
    let text = r#"
%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclInput %1 1 0 None
%4 = f32x4 DclOutput %1 0 0
%5 = f32 Constant 1.0
%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32x4 InputLoad %3 null
  %24 = f32 FDot %22 %23
  %25 = f32 FRsq %24
  %26 = f32x4 CompositeConstruct %24 %25 %5 %5
  %27 = OutputStore %4 null %26
  %28 = Return
%29 = FunctionEnd
"#;
    insta::assert_snapshot!(compile_and_check(text));
}

#[test]
fn pica_vs_vertex_transform_example() {
    let text = include_str!("../examples/vertex_transform.ir");
    insta::assert_snapshot!(compile_and_check_for("pica-vs", text));
}

/// The SHBIN container alone (no sections) runs like the sections: same code, descriptors and
/// DEF constants.
#[test]
fn pica_vs_container_runs_like_the_sections() {
    use irc_backend::Precision;
    use irc_testsuite::harness::{interp_inputs, simulate};
    let m = irc_ir::text::parse(include_str!("../examples/vertex_transform.ir")).expect("parses");
    let target = irc::target("pica-vs").expect("registered");
    let mut options = irc::Options::default();
    options.backend.container = true;
    let out = irc::compile(irc::Input::Module(m.clone()), "pica-vs", &options).expect("compiles");
    assert!(out.container.is_some());
    let mut bare = out.clone();
    bare.sections.clear();
    for seed in 0..4 {
        let inputs = interp_inputs(&m, seed, &[]);
        let a = simulate(target, &out, &inputs, Precision::Native).expect("runs from sections");
        let b =
            simulate(target, &bare, &inputs, Precision::Native).expect("runs from the container");
        assert_eq!(a.invocations.len(), b.invocations.len());
        for (x, y) in a.invocations.iter().zip(&b.invocations) {
            assert_eq!(x.values, y.values);
        }
    }
}
