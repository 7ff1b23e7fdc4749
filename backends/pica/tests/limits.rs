//! Hardware limits end in a clear [`DiagnosticKind::Limit`] error, never a panic or a program
//! the PICA200 cannot hold: more than 512 code words (§2), more values live at once than r0–r15
//! hold (no memory to spill to).

use irc_backend::{CompileOptions, DiagnosticKind};

/// A vertex shader: `v0.x` → `body` (IR lines using `%22` as the input scalar) → `o0 = %out`.
fn shader(body: &str, consts: &str) -> irc_ir::Module {
    let text = format!(
        "%1 = EntryPoint %20 Vertex\n\
         %2 = f32 DclInput %1 0 0 None\n\
         %3 = f32 DclOutput %1 0 0\n\
         {consts}\n\
         %20 = Function\n\
         %21 = Label None\n\
         \x20 %22 = f32 InputLoad %2 null\n\
         {body}\
         \x20 %9998 = Return\n\
         %9999 = FunctionEnd\n"
    );
    irc_ir::text::parse(&text).expect("parses")
}

#[test]
fn more_than_512_words_is_a_limit_error() {
    let mut body = String::new();
    let mut prev = 22;
    for i in 0..600 {
        let d = 100 + i;
        body += &format!("  %{d} = f32 FAdd %{prev} %{prev}\n");
        prev = d;
    }
    body += &format!("  %9000 = OutputStore %3 null %{prev}\n");
    let m = shader(&body, "");
    let mut inline = CompileOptions::default();
    inline.set("outline", "off");
    let e = irc_pica::target::compile(&m, &inline).unwrap_err();
    assert_eq!(e.kind, DiagnosticKind::Limit, "{}", e.message);
    assert!(e.message.contains("512"), "{}", e.message);
    // The same 600 adds are one run repeated: as procedures they fit.
    let out = irc_pica::target::compile(&m, &CompileOptions::default()).expect("outlined");
    assert!(out.stats.instructions < 100, "{}", out.stats.instructions);
}

#[test]
fn more_live_values_than_registers_is_a_limit_error() {
    // 80 values x + k_i all live until a sum taken in reverse order: 80 scalars > 16 × 4 lanes.
    let (mut body, mut consts) = (String::new(), String::new());
    for i in 0..80 {
        consts += &format!("%{} = f32 Constant {}.5\n", 4000 + i, i);
        body += &format!("  %{} = f32 FAdd %22 %{}\n", 100 + i, 4000 + i);
    }
    let mut acc = 179;
    for i in (0..79).rev() {
        body += &format!("  %{} = f32 FAdd %{} %{}\n", 300 + i, acc, 100 + i);
        acc = 300 + i;
    }
    body += &format!("  %9000 = OutputStore %3 null %{acc}\n");
    let m = shader(&body, &consts);
    let e = irc_pica::target::compile(&m, &CompileOptions::default()).unwrap_err();
    assert_eq!(e.kind, DiagnosticKind::Limit, "{}", e.message);
    assert!(
        e.message.contains("16 temporary registers"),
        "{}",
        e.message
    );
}
