//! `legalize` for IR consumers keeps the shader's functions, as dxbc-spirv's own legalization
//! does (inlining would copy a helper's body into each of its calls), while the targets'
//! legalization, which `opt` starts with, inlines every call (our machines have none). Both
//! compute what the raw module computes.

use irc_ir::{text, OpCode};
use irc_passes::{ManagerOptions, PassManager};
use irc_testsuite::equivalence::{compare, Verdict};

/// A pixel shader calling a helper with an early return twice, in raw (scoped) form:
/// `scaled(x) { if (x < 0) return 0; return x * 3; }`, `o0 = scaled(v0) + scaled(v1)`.
const SRC: &str = "
%1 = EntryPoint %20 Pixel
%2 = f32 DclInput %1 0 0 None
%3 = f32 DclInput %1 1 0 None
%4 = f32 DclOutput %1 0 0
%5 = f32 Constant 0.0
%6 = f32 Constant 3.0
%7 = f32 DclParam

%20 = Function
  %21 = f32 InputLoad %2 null
  %22 = f32 InputLoad %3 null
  %23 = f32 FunctionCall %40 %21
  %24 = f32 FunctionCall %40 %22
  %25 = f32 FAdd %23 %24
  %26 = OutputStore %4 null %25
  %27 = Return
%28 = FunctionEnd

%40 = f32 Function %7
  %41 = f32 ParamLoad %40 %7
  %42 = bool FLt %41 %5
  %43 = ScopedIf %45 %42
    %44 = f32 Return %5
  %45 = ScopedEndIf %43
  %46 = f32 FMul %41 %6
  %47 = f32 Return %46
%48 = FunctionEnd
";

fn manager() -> PassManager {
    PassManager::new(ManagerOptions {
        verify: true,
        ..Default::default()
    })
}

#[test]
fn legalize_keeps_functions_and_the_targets_legalization_inlines_them() {
    let raw = text::parse(SRC).expect("the test module parses");

    let mut kept = raw.clone();
    irc_testsuite::pipeline::run(&mut manager(), &mut kept, "legalize").expect("legalize");
    assert_eq!(kept.count_of(OpCode::Function), 2, "{}", text::print(&kept));
    assert_eq!(
        kept.count_of(OpCode::FunctionCall),
        2,
        "{}",
        text::print(&kept)
    );

    let mut inlined = raw.clone();
    let mut pm = manager();
    pm.context.caps = irc::Registry::builtin()
        .pipeline("legalize:lima")
        .expect("the lima pipeline is registered")
        .1;
    irc_passes::pipelines::legalize(&mut pm, &mut inlined).expect("target legalization");
    assert_eq!(
        inlined.count_of(OpCode::Function),
        1,
        "{}",
        text::print(&inlined)
    );
    assert_eq!(
        inlined.count_of(OpCode::FunctionCall),
        0,
        "{}",
        text::print(&inlined)
    );

    for (what, m) in [("kept", &kept), ("inlined", &inlined)] {
        match compare(&raw, m, &raw, 16) {
            Verdict::Same => {}
            v => panic!("{what}: {v:?}\n{}", text::print(m)),
        }
    }
}
