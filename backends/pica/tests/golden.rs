//! Golden encodings of reference §12 (picasso output, decoded identically by picard and
//! nihstro): (picasso text, word, operand descriptor) checked through the assembler, the
//! encoder, the decoder and the disassembler (DESIGN rule 10).

use irc_pica::asm::assemble;
use irc_pica::decode::{canonicalize, decode_instr};
use irc_pica::disasm::format_instr;
use irc_pica::encode::encode_instr;
use irc_pica::instr::{Cond, Instr};
use irc_pica::isa::{opdesc_care_mask, CondOp, Format, Opcode};

/// `arr` = c0..c7, `k` = c95.
const PRELUDE: &str = ".fvec arr[8]\n.constf k(0.0, 1.0, 2.0, 3.0)\n";

/// Non-flow rows: (text, word, descriptor the word's DESC index refers to).
const ARITH: &[(&str, u32, u32)] = &[
    ("add r0, arr[0], -r1", 0x02020880, 0x0006E36F),
    ("dp3 r1.x, arr[1], r0", 0x06221801, 0x0006C368),
    ("dph r1.w, r0, arr[3]", 0x62241184, 0x0006C361),
    ("sge r6, r0, k", 0x6AC43F85, 0x0D86C36F),
    ("rcp r10.x, r0.z", 0x3B410009, 0x00001548),
    ("mova a0.xy, r0", 0x4801000B, 0x0000036C),
    ("mov r11, arr[a0.x+1]", 0x4F6A1000, 0x0006E36F),
    ("add r13, arr[aL], r13", 0x03BA0E85, 0x0D86C36F),
    ("cmp r0, lt, ge, r1", 0xBAA10881, 0x0006C368),
    ("mad r12, r0, arr[5], r1", 0xFC209625, 0x0D86C36F),
    ("mad r12, r0, r1, arr[6]", 0xDC2114C5, 0x0D86C36F),
    ("mad r12, -r0.yzxw, k, -r1.zxyw", 0xFC21FE2C, 0x43C6CC7F),
    ("mov r0.xyz, v0", 0x4E000000, 0x0000036E),
    ("mov o1, v1", 0x4C201006, 0x0000036F),
    ("setemit 0", 0xAC000000, 0),
    ("setemit 2, prim", 0xAE800000, 0),
    ("emit", 0xA8000000, 0),
    ("nop", 0x84000000, 0),
    ("end", 0x88000000, 0),
    ("breakc cmp.x", 0x8F800000, 0),
];

fn desc_index(word: u32) -> u32 {
    match Opcode::decode((word >> 26) as u64) {
        Some(Opcode::Mad | Opcode::Madi) => word & 0x1F,
        Some(op)
            if matches!(
                op.format(),
                Format::F1 | Format::F1i | Format::F1u | Format::F1c
            ) =>
        {
            word & 0x7F
        }
        _ => 0,
    }
}

#[test]
fn arithmetic_golden_encodings() {
    for &(text, word, desc) in ARITH {
        let shbin = assemble(&format!("{PRELUDE}.proc main\n{text}\n.end\n"))
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let ours = shbin.code[0];
        let di = desc_index(word);
        let ours_desc = shbin
            .opdescs
            .get(desc_index(ours) as usize)
            .copied()
            .unwrap_or(0);
        // Our word equals picasso's except for the descriptor index (tables differ).
        let dmask = match Opcode::decode((word >> 26) as u64).unwrap().format() {
            Format::F1 | Format::F1i | Format::F1u | Format::F1c => 0x7F,
            Format::F5 | Format::F5i => 0x1F,
            _ => 0,
        };
        assert_eq!(
            ours & !dmask,
            word & !dmask,
            "{text}: {ours:#010x} vs {word:#010x}"
        );
        // Decode picasso's word with its descriptor at its index.
        let mut descs = vec![0u32; di as usize + 1];
        descs[di as usize] = desc;
        let theirs = decode_instr(0, word, &descs).unwrap();
        let mine = decode_instr(0, ours, &shbin.opdescs).unwrap();
        assert_eq!(canonicalize(&theirs), canonicalize(&mine), "{text}");
        if let Some(op_desc) = mine.opdesc() {
            let care = opdesc_care_mask(mine.opcode());
            assert_eq!(ours_desc & care, desc & care, "{text}: descriptor");
            // Re-encoding the decoded instruction with picasso's index gives picasso's word.
            assert_eq!(encode_instr(0, &theirs, di).unwrap(), word, "{text}");
            let _ = op_desc;
        } else {
            assert_eq!(encode_instr(0, &theirs, 0).unwrap(), word, "{text}");
        }
        // The disassembler prints text that re-assembles to the same instruction.
        let printed = format_instr(&theirs).unwrap();
        let again = assemble(&format!("{PRELUDE}.proc main\n{printed}\n.end\n")).unwrap();
        let back = decode_instr(0, again.code[0], &again.opdescs).unwrap();
        assert_eq!(
            canonicalize(&back),
            canonicalize(&theirs),
            "{text} → {printed}"
        );
    }
}

/// Flow-control rows, placed at the addresses of the reference's test program.
#[test]
fn flow_control_golden_encodings() {
    let fill = |n: usize| "    mov r1, r2\n".repeat(n);
    let src = format!(
        "{PRELUDE}.bool b0\n.ivec i0\n.proc main\n{}    for i0\n{}    .end\n    ifu b0\n{}    .else\n{}    .end\n\
         \x20   ifc cmp.x && !cmp.y\n{}    .end\n    ifc !cmp.x || cmp.y\n{}    .end\n\
         \x20   callu b0, sub\n    callc cmp.y, sub\n    call sub\n    jmpu !b0, skip\n    jmpc cmp.x, skip\n{}skip:\n{}    end\n.end\n\
         .proc sub\n{}.end\n",
        fill(0x1C),
        fill(1),
        fill(1),
        fill(1),
        fill(1),
        fill(1),
        fill(1),
        fill(3),
        fill(2)
    );
    let shbin = assemble(&src).unwrap();
    let expect: &[(usize, u32, &str)] = &[
        (0x1C, 0xA4007400, "for i0"),
        (0x1E, 0x9C008001, "ifu b0"),
        (0x21, 0xA2408C00, "ifc cmp.x && !cmp.y"),
        (0x23, 0xA1009400, "ifc !cmp.x || cmp.y"),
        (0x25, 0x9800BC02, "callu b0, sub"),
        (0x26, 0x97C0BC02, "callc cmp.y, sub"),
        (0x27, 0x9000BC02, "call sub"),
        (0x28, 0xB400AC01, "jmpu !b0, skip"),
        (0x29, 0xB380AC00, "jmpc cmp.x, skip"),
    ];
    for &(at, word, text) in expect {
        assert_eq!(
            shbin.code[at], word,
            "{text} at {at:#x}: {:#010x}",
            shbin.code[at]
        );
        let ins = decode_instr(at, word, &[]).unwrap();
        assert_eq!(encode_instr(at, &ins, 0).unwrap(), word, "{text}");
    }
    assert_eq!(shbin.code.len(), 0x31);
    // The disassembly spells them as picasso does (procedures and labels renamed by address)
    // and reassembles to the same words.
    let text = &irc_pica::disasm::disassemble_shbin(&shbin).unwrap()[0];
    for line in [
        "for i0",
        "ifu b0",
        ".else",
        "ifc cmp.x && !cmp.y",
        "ifc !cmp.x || cmp.y",
        "callu b0, sub_47",
        "callc cmp.y, sub_47",
        "call sub_47",
        "jmpu !b0, l_43",
        "jmpc cmp.x, l_43",
        "l_43:",
        ".proc sub_47",
    ] {
        assert!(
            text.lines().any(|l| l.trim() == line),
            "{line} missing in\n{text}"
        );
    }
    assert_eq!(assemble(text).unwrap().code, shbin.code);
    assert_eq!((shbin.dvles[0].main, shbin.dvles[0].endmain), (0, 0x2F));
    // Structured decode of two of them.
    assert_eq!(
        decode_instr(0, 0xA2408C00, &[]).unwrap(),
        Instr::CondFlow {
            op: Opcode::Ifc,
            cond: Cond {
                op: CondOp::And,
                refx: true,
                refy: false
            },
            dst: 0x23,
            num: 0
        }
    );
    assert_eq!(
        decode_instr(0, 0xA4007400, &[]).unwrap(),
        Instr::UniformFlow {
            op: Opcode::Loop,
            id: 0,
            dst: 0x1D,
            num: 0
        }
    );
}

#[test]
fn every_opcode_encodes_to_one_word_of_its_own_opcode() {
    for &op in Opcode::ALL {
        let w = (op.bits() as u32) << 26;
        if let Ok(ins) = decode_instr(0, w, &[0]) {
            assert_eq!(ins.opcode(), op);
            let back = encode_instr(0, &ins, 0).unwrap();
            assert_eq!(Opcode::decode((back >> 26) as u64), Some(op));
        }
    }
}

#[test]
fn display_spells_every_instruction() {
    let w = [
        0x02020880u32,
        0x9C008001,
        0xA4007400,
        0x9000BC02,
        0xAE800000,
    ];
    let descs = [0x0006E36F];
    let text: Vec<String> = w
        .iter()
        .map(|&w| decode_instr(0, w, &descs).unwrap().to_string())
        .collect();
    assert_eq!(
        text,
        [
            "add r0, c0, -r1",
            "ifu b0 @32 +1",
            "for i0 @29 +0",
            "call @47 +2",
            "setemit 2, prim"
        ]
    );
}
