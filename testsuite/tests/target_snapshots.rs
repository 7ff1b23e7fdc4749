//! Reviewed lima-fp output for small shaders (more, per PP unit, in the filetests under
//! `filetests/targets/lima-fp/`) (more, per PP unit, in the filetests under
//! `filetests/targets/lima-fp/`): the disassembly decoded from the encoded words,
//! the reflection and the statistics (DESIGN rule 12: binaries as disassembly, never hex).
//! Each program is also run against the interpreter, so a snapshot never records wrong code.

use irc_testsuite::corpus::Outcome;
use irc_testsuite::harness::check_shader;

fn compile_and_check(text: &str) -> String {
    let m = irc_ir::text::parse(text).expect("parses");
    let target = irc::target("lima-fp").expect("registered");
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
