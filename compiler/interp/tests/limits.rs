//! Resource limits: a small, verifier-clean module declaring a huge object makes the
//! interpreter trap before allocating (found by the irc-fuzz review of readers' downstream:
//! an 11-op module declaring `f32[65535][65535] DclScratch` aborted `irc run` allocating
//! 16 GiB per lane).

use irc_interp::exec::MAX_DECLARATION_BYTES;
use irc_interp::{run, RunConfig, ShaderInputs, TrapKind};

fn module(decl: &str, addr: &str, load: &str) -> irc_ir::Module {
    let src = format!(
        "%1 = EntryPoint %5 Pixel\n%2 = f32x4 DclOutput %1 0 0\n{decl}\n%4 = {addr}\n\
         %5 = Function\n%6 = Label None\n{load}\n%8 = f32x4 CompositeConstruct %7 %7 %7 %7\n\
         %9 = OutputStore %2 null %8\n%10 = Return\n%11 = FunctionEnd\n"
    );
    let m = irc_ir::text::parse(&src).unwrap_or_else(|e| panic!("{e}"));
    irc_ir::verifier::verify(&m).unwrap_or_else(|e| panic!("{e}"));
    m
}

#[test]
fn huge_declarations_trap_before_allocating() {
    let cases = [
        (
            "%3 = f32[65535][65535] DclScratch %1",
            "%7 = f32 ScratchLoad %3 %4",
        ),
        (
            "%3 = f32[65535][65535] DclInput %1 0 0 None",
            "%7 = f32 InputLoad %3 %4",
        ),
    ];
    for (decl, load) in cases {
        let m = module(decl, "u32x2 Constant 7 7", load);
        // Random inputs skip the declaration instead of building 4G values.
        let inputs = ShaderInputs::random(&m, 1);
        let trap = run(&m, &inputs, &RunConfig::default()).unwrap_err();
        match &trap.kind {
            TrapKind::BadModule(why) => {
                assert!(why.contains("over the interpreter's limit"), "{why}")
            }
            k => panic!("{decl}: {k}"),
        }
        assert_eq!(trap.op.to_string(), "%3", "pinned to the declaration");
    }
    // At the limit it runs (and reads the zeroed scratch).
    let n = MAX_DECLARATION_BYTES / 4;
    let m = module(
        &format!("%3 = f32[{n}] DclScratch %1"),
        "u32 Constant 7",
        "%7 = f32 ScratchLoad %3 %4",
    );
    let out = run(&m, &ShaderInputs::random(&m, 1), &RunConfig::default()).unwrap();
    assert!(!out.invocations.is_empty());
}
