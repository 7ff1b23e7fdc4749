//! Anchor shaders of reference §15, written from their descriptions (our own text), with the
//! word and descriptor counts picasso produces for the originals; plus the §9 NOP rules on a
//! nested if/else program. A5 (§13.4) and A6 (VS + GS) are in `tests/shbin.rs`.

use irc_pica::asm::{assemble, AsmError};
use irc_pica::disasm::disassemble_shbin;
use irc_pica::instr::Instr;
use irc_pica::shbin::semantic;
use irc_pica::sim::{run_shbin, Precision, SimOptions, Uniforms};

/// A1: pos.w := 1 (two MOVs), clip position = projection · pos (four DP4), colour passthrough.
const A1: &str = "\
.fvec proj[4]
.constf kk(0.0, 1.0, 0.0, 0.0)
.alias one kk.yyyy
.out clip position
.out col color
.alias ipos v0
.alias icol v1
.proc main
    mov r0.xyz, ipos
    mov r0.w, one
    dp4 clip.x, proj[0], r0
    dp4 clip.y, proj[1], r0
    dp4 clip.z, proj[2], r0
    dp4 clip.w, proj[3], r0
    mov col, icol
    end
.end
";

/// A2: model-view then projection (eight DP4), texcoord0.stp = object position through a
/// texcoord0 (.st) and a texcoord0w (.p of the same register) output.
const A2: &str = "\
.fvec proj[4], mv[4]
.constf kk(0.0, 1.0, 0.0, 0.0)
.out clip position
.out tc texcoord0.st
.out - texcoord0w tc.p
.proc main
    mov r0.xyz, v0
    mov r0.w, kk.yyyy
    dp4 r1.x, mv[0], r0
    dp4 r1.y, mv[1], r0
    dp4 r1.z, mv[2], r0
    dp4 r1.w, mv[3], r0
    dp4 clip.x, proj[0], r1
    dp4 clip.y, proj[1], r1
    dp4 clip.z, proj[2], r1
    dp4 clip.w, proj[3], r1
    mov tc, v0
    end
.end
";

fn roundtrip(src: &str) {
    let sh = assemble(src).unwrap();
    let text = &disassemble_shbin(&sh).unwrap()[0];
    let again = assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(again.code, sh.code, "{text}");
    assert_eq!(again.opdescs, sh.opdescs, "{text}");
}

#[test]
fn a1_simple_triangle() {
    let sh = assemble(A1).unwrap();
    assert_eq!((sh.code.len(), sh.opdescs.len()), (8, 7));
    roundtrip(A1);
}

#[test]
fn a2_skybox() {
    let sh = assemble(A2).unwrap();
    assert_eq!((sh.code.len(), sh.opdescs.len()), (12, 7));
    let outs: Vec<(u16, u16, u16)> = sh.dvles[0]
        .outputs
        .iter()
        .map(|o| (o.semantic, o.reg, o.mask))
        .collect();
    assert_eq!(
        outs,
        [
            (semantic::POSITION, 0, 0xF),
            (semantic::TEXCOORD0, 1, 0x3),
            (semantic::TEXCOORD0W, 1, 0x4)
        ]
    );
    roundtrip(A2);
}

/// Four cases by the signs of v0.x and v0.y with nested `ifc`/`.else`: the inner `.end` right
/// before the outer `.else`, and right before the outer `.end`, each get an automatic NOP
/// (§9 rule 4; A7 has the same shape).
const QUADRANTS: &str = "\
.constf kk(0.0, 1.0, -1.0, 2.0)
.proc main
    mov r1, kk.xxxx
    cmp v0, ge, ge, r1
    ifc cmp.x
        ifc cmp.y
            mov r0, kk.yyyy
        .else
            mov r0, kk.zzzz
        .end
    .else
        ifc cmp.y
            mov r0, kk.wwww
        .else
            mov r0, kk.xxxx
        .end
    .end
    mov o0, r0
    end
.end
";

#[test]
fn nested_if_else_gets_the_automatic_nops() {
    let sh = assemble(QUADRANTS).unwrap();
    assert_eq!(sh.code.len(), 13);
    let nops: Vec<usize> = (0..sh.code.len())
        .filter(|&i| sh.code[i] == 0x8400_0000)
        .collect();
    assert_eq!(nops, [6, 10]);
    let opts = SimOptions {
        precision: Precision::Native,
        fuel: 100,
    };
    for (v, want) in [
        ([1.0, 1.0], 1.0),
        ([1.0, -1.0], -1.0),
        ([-1.0, 1.0], 2.0),
        ([-1.0, -1.0], 0.0),
    ] {
        let mut inputs = [[0.0; 4]; 16];
        inputs[0] = [v[0], v[1], 0.0, 0.0];
        let r = run_shbin(&sh, 0, &inputs, &Uniforms::default(), &opts).unwrap();
        assert_eq!(r.outputs[0], [want; 4], "{v:?}");
    }
    roundtrip(QUADRANTS);
    // The disassembly leaves the automatic NOPs out.
    let text = &disassemble_shbin(&sh).unwrap()[0];
    assert!(!text.contains("nop"), "{text}");
}

#[test]
fn other_nop_rules() {
    // Rule 1: a block ending in a jump; rule 2: a loop ending in breakc; rule 3: empty bodies.
    let src = "\
.ivec n
.proc main
l:
    ifu b0
        jmpu b1, l
    .end
    for n
        breakc cmp.x
    .end
    ifu b2
    .else
    .end
    call empty
    end
.end
.proc empty
.end
";
    let sh = assemble(src).unwrap();
    let ops: Vec<&str> = irc_pica::decode::decode_program(&sh.code, &sh.opdescs)
        .unwrap()
        .iter()
        .map(|i| i.opcode().mnemonic())
        .collect();
    assert_eq!(
        ops,
        ["ifu", "jmpu", "nop", "for", "breakc", "nop", "ifu", "nop", "nop", "call", "end", "nop"]
    );
    roundtrip(src);
}

#[test]
fn assembler_errors_carry_line_and_column() {
    let e: AsmError = assemble(".proc main\n    add r0, r1, c3\n.end\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 17), "{e}");
    let e = assemble(".proc main\n  mov r0, v0\n  frob r1, r2\n.end\n").unwrap_err();
    assert_eq!((e.line, e.col), (3, 3), "{e}");
    let e = assemble(".proc main\n  mov r0.xk, v0\n.end\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 7), "{e}");
    let e = assemble(".proc main\n  mov r0, v0\n").unwrap_err();
    assert!(e.msg.contains("unclosed"), "{e}");
    let e = assemble(".proc main\n  jmpc cmp.x, nowhere\n  end\n.end\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 15), "{e}");
    let e = assemble(".proc main\n  add r0, v0, v1\n.end\n").unwrap_err();
    assert!(e.msg.contains("erratum 2"), "{e}");
    assert_eq!(e.line, 2);
    assert!(matches!(Instr::NOP, Instr::Plain(_)));
    // Fuzz finding (pica_asm long run): offsets whose sum overflows i64 are an error, not a panic.
    let big = i64::MAX;
    let e = assemble(&format!(".proc main\n  mov r0, c0[{big}+{big}]\n.end\n")).unwrap_err();
    assert!(e.msg.contains("too large"), "{e}");
    assert_eq!(e.line, 2);
}
