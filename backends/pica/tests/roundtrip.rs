//! Round trips on random programs: encode → decode, encode → disassemble → assemble, and the
//! decoder / disassembler / assembler on random words and text never panic.

use irc_pica::asm::assemble;
use irc_pica::decode::{canonicalize, decode_program};
use irc_pica::disasm::{disassemble, disassemble_shbin};
use irc_pica::encode::encode_program;
use irc_pica::instr::{Cond, Dst, DstReg, Instr, Mask, Src, SrcReg, Swizzle};
use irc_pica::isa::{AddrIndex, CmpOp, CondOp, Opcode};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bool(&mut self) -> bool {
        self.next() & 1 != 0
    }
}

/// A source; the only input register used is v`vin` (erratum 2).
fn src(r: &mut Rng, wide: bool, vin: u8) -> Src {
    let reg = match r.below(if wide { 3 } else { 2 }) {
        0 => SrcReg::Input(vin),
        1 => SrcReg::Temp(r.below(16) as u8),
        _ => SrcReg::Const(r.below(96) as u8),
    };
    Src {
        reg,
        swizzle: Swizzle(r.next() as u8),
        negate: r.bool(),
    }
}

fn dst(r: &mut Rng) -> Dst {
    Dst {
        reg: if r.bool() {
            DstReg::Temp(r.below(16) as u8)
        } else {
            DstReg::Output(r.below(16) as u8)
        },
        mask: Mask(r.below(16) as u8),
    }
}

fn index(r: &mut Rng, s: &Src) -> AddrIndex {
    if matches!(s.reg, SrcReg::Const(_)) {
        AddrIndex::ALL[r.below(4) as usize]
    } else {
        AddrIndex::None
    }
}

fn instr(r: &mut Rng) -> Instr {
    let vin = r.below(16) as u8;
    let ops = Opcode::ALL;
    loop {
        let op = ops[r.below(ops.len() as u64) as usize];
        return match op.class() {
            irc_pica::isa::Class::Plain if op != Opcode::Break => Instr::Plain(op),
            irc_pica::isa::Class::Binary
            | irc_pica::isa::Class::Dot
            | irc_pica::isa::Class::Dst => {
                let inv = op.is_inverted();
                let s1 = src(r, !inv, vin);
                let s2 = src(r, inv, vin);
                let idx = index(r, if inv { &s2 } else { &s1 });
                Instr::Binary {
                    op,
                    dst: dst(r),
                    src1: s1,
                    src2: s2,
                    index: idx,
                }
            }
            irc_pica::isa::Class::Scalar
            | irc_pica::isa::Class::Unary
            | irc_pica::isa::Class::Litp => {
                let s = src(r, true, vin);
                Instr::Unary {
                    op,
                    dst: dst(r),
                    index: index(r, &s),
                    src: s,
                }
            }
            irc_pica::isa::Class::Mova => {
                let s = src(r, true, vin);
                Instr::Mova {
                    mask: Mask(r.below(16) as u8),
                    index: index(r, &s),
                    src: s,
                }
            }
            irc_pica::isa::Class::Compare => {
                let s1 = src(r, true, vin);
                Instr::Cmp {
                    index: index(r, &s1),
                    src1: s1,
                    x: CmpOp::ALL[r.below(6) as usize],
                    y: CmpOp::ALL[r.below(6) as usize],
                    src2: src(r, false, vin),
                }
            }
            irc_pica::isa::Class::Mad => {
                let inv = op == Opcode::Madi;
                let s2 = src(r, !inv, vin);
                let s3 = src(r, inv, vin);
                let idx = index(r, if inv { &s3 } else { &s2 });
                Instr::Mad {
                    inverted: inv,
                    dst: dst(r),
                    src1: src(r, false, vin),
                    src2: s2,
                    src3: s3,
                    index: idx,
                }
            }
            irc_pica::isa::Class::SetEmit => Instr::SetEmit {
                vertex: r.below(4) as u8,
                primitive: r.bool(),
                winding: r.bool(),
            },
            irc_pica::isa::Class::CondFlow if op == Opcode::Breakc => Instr::CondFlow {
                op,
                cond: [Cond::x(r.bool()), Cond::y(r.bool())][r.below(2) as usize],
                dst: 0,
                num: 0,
            },
            irc_pica::isa::Class::CondFlow if op == Opcode::Jmpc => Instr::CondFlow {
                op,
                cond: Cond {
                    op: [CondOp::And, CondOp::Or][r.below(2) as usize],
                    refx: r.bool(),
                    refy: r.bool(),
                },
                dst: 0,
                num: 0,
            },
            _ => continue,
        };
    }
}

#[test]
fn random_programs_survive_encode_decode_disassemble_assemble() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..3000 {
        let n = 1 + r.below(60) as usize;
        let mut prog: Vec<Instr> = (0..n).map(|_| instr(&mut r)).collect();
        // Erratum 3: no two MOVAs in a row (the assembler does not care, but keep it clean).
        prog.push(Instr::END);
        let (words, descs) = match encode_program(&prog) {
            Ok(x) => x,
            Err(e) => {
                // Only the MAD window can overflow on random programs.
                assert!(e.to_string().contains("MAD"), "{e}");
                continue;
            }
        };
        let back = decode_program(&words, &descs).unwrap();
        for (a, b) in prog.iter().zip(&back) {
            assert_eq!(canonicalize(a), canonicalize(b), "round {round}");
        }
        let text = disassemble(&words, &descs, 0).unwrap();
        let sh = assemble(&text).unwrap_or_else(|e| panic!("round {round}: {e}\n{text}"));
        assert_eq!(sh.code, words, "round {round}\n{text}");
        assert_eq!(sh.opdescs, descs, "round {round}\n{text}");
    }
}

#[test]
fn random_words_never_panic() {
    let mut r = Rng(0x0123_4567_89AB_CDEF);
    let mut decoded = 0;
    let mut reassembled = 0;
    for _ in 0..30000 {
        let n = 1 + r.below(40) as usize;
        let words: Vec<u32> = (0..n).map(|_| r.next() as u32).collect();
        let descs: Vec<u32> = (0..r.below(130)).map(|_| r.next() as u32).collect();
        let Ok(prog) = decode_program(&words, &descs) else {
            continue;
        };
        decoded += 1;
        let text = irc_pica::disasm::disassemble_program(&prog, &[(0, None)]);
        // Reassembly succeeds unless the random code breaks an assembler rule (erratum 2,
        // a constant in a narrow slot cannot occur); then it must give the same instructions.
        if let Ok(sh) = assemble(&text) {
            reassembled += 1;
            let again = decode_program(&sh.code, &sh.opdescs).unwrap();
            let a: Vec<Instr> = prog.iter().map(canonicalize).collect();
            let b: Vec<Instr> = again.iter().map(canonicalize).collect();
            assert_eq!(a, b, "{text}");
        }
    }
    assert!(decoded > 100 && reassembled > 0, "{decoded} {reassembled}");
}

#[test]
fn random_text_never_panics_the_assembler() {
    let mut r = Rng(42);
    let pieces = [
        ".proc", "main", ".end", "mov", "r0", ",", "c95", "[", "]", "a0.x", "+", "-", ".xyzw",
        "ifu", "b0", ".else", "for", "i0", "cmp", "lt", "&&", "!", "cmp.x", "(", ")", ".constf",
        "1.0", ".out", "position", "o0", "\n", " ", ":", "l", "jmpc", ".word", "0x", "mad", ".gsh",
        "point", ".in", "v15", "setemit", "2", "prim", "call", ".alias", "x", ";",
    ];
    for _ in 0..20000 {
        let n = r.below(30);
        let text: String = (0..n)
            .map(|_| pieces[r.below(pieces.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(if r.bool() { " " } else { "" });
        if let Ok(sh) = assemble(&text) {
            let _ = disassemble_shbin(&sh);
        }
    }
    // Arbitrary characters, including multi-byte ones, right where names and numbers go.
    let chars = [
        'é', 'ß', '∞', '[', ']', '.', ',', '(', ')', ':', ';', '!', '&', '|', '-', '+', 'a', 'r',
        'c', 'v', '0', '9', ' ', '\n', '\u{0}',
    ];
    for _ in 0..20000 {
        let n = r.below(40);
        let text: String = (0..n)
            .map(|_| chars[r.below(chars.len() as u64) as usize])
            .collect();
        let _ = assemble(&format!(".proc main\nmov {text}\n.end\n"));
        let _ = assemble(&format!("{text}\n"));
        let _ = assemble(&format!(".proc main\n{text}, r0\n.end\n"));
    }
}

/// Random picasso text with nested `ifu`/`ifc`/`for`/`.else`, procedures, calls, jumps and
/// labels (empty bodies included, so the automatic NOPs of §9 are everywhere).
struct TextGen {
    r: Rng,
    labels_placed: Vec<bool>,
    out: String,
}

impl TextGen {
    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..=depth {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn cond(&mut self) -> &'static str {
        [
            "cmp.x",
            "!cmp.y",
            "cmp.x && cmp.y",
            "!cmp.x || cmp.y",
            "cmp.y",
        ][self.r.below(5) as usize]
    }

    fn body(&mut self, depth: usize, in_loop: bool, in_main: bool) {
        let n = self.r.below(5);
        for _ in 0..n {
            if in_main && self.r.below(6) == 0 {
                let k = self.r.below(4) as usize;
                if !self.labels_placed[k] {
                    self.labels_placed[k] = true;
                    self.out.push_str(&format!("L{k}:\n"));
                }
            }
            match self.r.below(if depth < 3 { 12 } else { 8 }) {
                0 => self.line(depth, "mov r1, r2"),
                1 => self.line(depth, "add r0, c3, r1"),
                2 => self.line(depth, "cmp r0, lt, ge, r1"),
                3 => {
                    let c = self.cond();
                    let s = format!("jmpc {c}, L{}", self.r.below(4));
                    self.line(depth, &s)
                }
                4 => {
                    let s = format!(
                        "jmpu {}b{}, L{}",
                        if self.r.bool() { "!" } else { "" },
                        self.r.below(16),
                        self.r.below(4)
                    );
                    self.line(depth, &s)
                }
                5 => {
                    let s = match self.r.below(3) {
                        0 => "call p1".to_string(),
                        1 => format!("callc {}, p2", self.cond()),
                        _ => format!("callu b{}, p1", self.r.below(16)),
                    };
                    self.line(depth, &s)
                }
                6 if in_loop => {
                    let c = self.cond();
                    self.line(depth, &format!("breakc {c}"))
                }
                6 | 7 => self.line(depth, "mul r3, c1, r3"),
                8 | 9 => {
                    let head = if self.r.bool() {
                        format!("ifu b{}", self.r.below(16))
                    } else {
                        format!("ifc {}", self.cond())
                    };
                    self.line(depth, &head);
                    self.body(depth + 1, in_loop, in_main);
                    if self.r.bool() {
                        self.line(depth, ".else");
                        self.body(depth + 1, in_loop, in_main);
                    }
                    self.line(depth, ".end");
                }
                _ => {
                    let s = format!("for i{}", self.r.below(4));
                    self.line(depth, &s);
                    self.body(depth + 1, true, in_main);
                    self.line(depth, ".end");
                }
            }
        }
    }

    fn program(seed: u64) -> String {
        let mut g = TextGen {
            r: Rng(seed),
            labels_placed: vec![false; 4],
            out: String::new(),
        };
        g.out.push_str(".proc main\n");
        g.body(0, false, true);
        for k in 0..4 {
            if !g.labels_placed[k] {
                g.out.push_str(&format!("L{k}:\n"));
            }
        }
        g.out.push_str("    end\n.end\n.proc p1\n");
        g.body(0, false, false);
        g.out.push_str(".end\n.proc p2\n");
        g.body(0, false, false);
        g.out.push_str(".end\n");
        g.out
    }
}

#[test]
fn random_structured_text_survives_disassembly() {
    for seed in 1..2000u64 {
        let text = TextGen::program(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let sh = assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let dis = disassemble_shbin(&sh).unwrap();
        let again = assemble(&dis[0]).unwrap_or_else(|e| panic!("{e}\n{text}\n----\n{}", dis[0]));
        assert_eq!(again.code, sh.code, "{text}\n----\n{}", dis[0]);
        assert_eq!(again.opdescs, sh.opdescs);
        assert_eq!(
            (again.dvles[0].main, again.dvles[0].endmain),
            (sh.dvles[0].main, sh.dvles[0].endmain)
        );
        // Structured code must come back structured (no raw flow-control words).
        assert!(!dis[0].contains(".word"), "{text}\n----\n{}", dis[0]);
    }
}
