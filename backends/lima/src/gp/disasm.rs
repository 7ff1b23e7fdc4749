//! [`Instruction`]s → text, in Mesa's GP syntax (`ir/gp/disasm.c`, reference §15).
//!
//! ```text
//! 000:<TAB>mul.m0 ^2 a0.x t[3].x
//! <TAB>mul.m1 ^3 a0.y t[3].y
//! 001:<TAB>add.a0 ^6/v0.x ^2 -^3
//! <TAB>branch ^10 000
//! ```
//!
//! `%03d:` starts an instruction; each active unit prints one tab-indented line, in the order acc0,
//! acc1, mul0, mul1 (or `complex1.m01` / `sel.m01`), complex, pass, then `branch`, `unknown_1 N`;
//! `nop` when nothing prints. Results are named `^N`, N = 6·instruction + unit (acc0 0 … complex 5),
//! followed by where the stores put them (`/v2.xy`, `/$3.z`, `/t[addr0].w`) and, for the complex
//! unit, the address register it sets (`/addr1`). Sources: `a4.x` (attribute through register 0),
//! `$5.y` (register 1), `t[7+addr1].z` (uniform/temporary load), `^N` (a forwarded result),
//! `0`/`1` (the identity in acc/mul src1), `unused`, `unknown0..3`; `-` negates.
//!
//! Where Mesa's syntax is ambiguous or drops information, this one differs (the assembler,
//! [`super::asm`], reads it back exactly):
//! * register 0 loading a *register* prints `reg0.$5.y` (Mesa: `$5.y`, the same as register 1);
//! * the previous instruction's register-0 load (codes 28–31) prints `prev.a4.x` / `prev.$5.y`
//!   (Mesa: `a4.x`, the same as this instruction's);
//! * acc `mov` only for the `add` opcode; mul1 under `complex2` prints `complex2.m1` (Mesa:
//!   `mul.m1`); a complex `nop` with a source prints `nop.c`; stores of the complex result are
//!   annotated (Mesa's table has no complex entry);
//! * an instruction whose fields are not all implied by its unit lines (a register-0 load used
//!   only by the next instruction is implied through its `prev.` sources; anything else — an
//!   address of an unused load, a negate bit of an unused source, a store of a `complex1` mul1
//!   result …) gets one more line `raw 0x<32 hex digits>` holding the whole 128-bit word, which
//!   the assembler takes as the instruction. Programs Mesa-style code generators produce never
//!   need it.

use std::fmt::Write;

use super::encode::encode_instruction;
use super::instr::Instruction;
use super::isa::*;

/// Text of one instruction at position `index` (`prev` is the instruction before it, if any),
/// without the `raw` line.
pub fn disassemble_instruction(
    ins: &Instruction,
    prev: Option<&Instruction>,
    index: usize,
) -> String {
    let p = Printer {
        ins,
        prev: prev.unwrap_or(&Instruction::NOP),
        cur: Unit::COUNT as i64 * index as i64,
    };
    let mut lines: Vec<String> = Vec::new();
    for a in 0..2 {
        let slot = &ins.acc[a];
        if slot.src[0] == Src::Unused {
            continue;
        }
        let unit = [Unit::Acc0, Unit::Acc1][a];
        let mov = ins.acc_op == AccOp::Add && slot.src[1] == Src::Ident && slot.neg[1];
        let name = if mov { "mov" } else { ins.acc_op.mnemonic() };
        let mut l = format!("{name}.{} {} ", unit.suffix(), p.dest(unit));
        l += &p.src(slot.src[0], slot.neg[0], unit, 0);
        if !mov && ins.acc_op.num_srcs() == 2 {
            l += " ";
            l += &p.src(slot.src[1], slot.neg[1], unit, 1);
        }
        lines.push(l);
    }
    match ins.mul_op {
        MulOp::Mul | MulOp::Complex2 => {
            for m in 0..2 {
                let slot = &ins.mul[m];
                if slot.src[0] == Src::Unused || slot.src[1] == Src::Unused {
                    continue;
                }
                let unit = [Unit::Mul0, Unit::Mul1][m];
                let mov = ins.mul_op == MulOp::Mul && slot.src[1] == Src::Ident && !slot.neg;
                let name = if mov { "mov" } else { ins.mul_op.mnemonic() };
                let mut l = format!(
                    "{name}.{} {} {}",
                    unit.suffix(),
                    p.dest(unit),
                    p.src(slot.src[0], false, unit, 0)
                );
                if !mov {
                    l += " ";
                    l += &p.src(slot.src[1], slot.neg, unit, 1);
                }
                lines.push(l);
            }
        }
        MulOp::Complex1 => lines.push(format!(
            "complex1.m01 {} {} {} {} {}",
            p.dest(Unit::Mul0),
            p.src(ins.mul[0].src[0], false, Unit::Mul0, 0),
            p.src(ins.mul[0].src[1], false, Unit::Mul0, 1),
            p.src(ins.mul[1].src[0], false, Unit::Mul1, 0),
            p.src(ins.mul[1].src[1], false, Unit::Mul1, 1),
        )),
        MulOp::Select => lines.push(format!(
            "sel.m01 {} {} {} {}",
            p.dest(Unit::Mul0),
            p.src(ins.mul[0].src[1], false, Unit::Mul0, 1),
            p.src(ins.mul[0].src[0], false, Unit::Mul0, 0),
            p.src(ins.mul[1].src[0], false, Unit::Mul1, 0),
        )),
    }
    if ins.complex_src != Src::Unused {
        lines.push(format!(
            "{}.c {} {}",
            ins.complex_op.mnemonic(),
            p.dest(Unit::Complex),
            p.src(ins.complex_src, false, Unit::Complex, 0)
        ));
    }
    if ins.pass_src != Src::Unused {
        let mut l = format!(
            "{}.p {} {}",
            ins.pass_op.mnemonic(),
            p.dest(Unit::Pass),
            p.src(ins.pass_src, false, Unit::Pass, 0)
        );
        if ins.pass_op == PassOp::Clamp {
            l += &format!(
                " {} {}",
                p.src(Src::LoadX, false, Unit::Pass, 1),
                p.src(Src::LoadY, false, Unit::Pass, 2)
            );
        }
        lines.push(l);
    }
    if ins.branch {
        lines.push(format!(
            "branch ^{} {:03}",
            p.cur + Unit::Pass as i64,
            ins.branch_target
        ));
    }
    if ins.unknown_1 != 0 {
        lines.push(format!("unknown_1 {}", ins.unknown_1));
    }
    if lines.is_empty() {
        lines.push("nop".into());
    }
    let mut out = format!("{index:03}:");
    for l in lines {
        let _ = writeln!(out, "\t{l}");
    }
    out
}

/// The `raw` line of an instruction (its 128-bit word in hex).
fn raw_line(ins: &Instruction, index: usize) -> String {
    match encode_instruction(ins, index) {
        Ok(bits) => format!("\traw {bits:#034x}\n"),
        Err(e) => format!("\t; not encodable: {e}\n"),
    }
}

/// Text of a whole program; instructions the unit lines do not describe completely get a `raw`
/// line, so that [`super::asm::assemble`] of the text gives `program` back.
pub fn disassemble_program(program: &[Instruction]) -> String {
    let texts: Vec<String> = program
        .iter()
        .enumerate()
        .map(|(i, ins)| disassemble_instruction(ins, i.checked_sub(1).map(|j| &program[j]), i))
        .collect();
    let mut raw = vec![false; program.len()];
    let join = |raw: &[bool]| -> String {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if raw[i] {
                    t.clone() + &raw_line(&program[i], i)
                } else {
                    t.clone()
                }
            })
            .collect()
    };
    // Each round either succeeds or marks at least one more instruction raw; a raw instruction is
    // taken verbatim, so at most `len + 1` rounds.
    for _ in 0..=program.len() {
        let text = join(&raw);
        let mut changed = false;
        match super::asm::assemble(&text) {
            Ok(back) if back.len() == program.len() => {
                for (i, (a, b)) in back.iter().zip(program).enumerate() {
                    if a != b && !raw[i] {
                        raw[i] = true;
                        changed = true;
                    }
                }
            }
            Ok(_) => {}
            Err(e) => {
                if let Some(i) = e.instruction.filter(|&i| i < raw.len() && !raw[i]) {
                    raw[i] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return text;
        }
    }
    join(&raw)
}

struct Printer<'a> {
    ins: &'a Instruction,
    prev: &'a Instruction,
    /// Result name of this instruction's acc0 (6·index).
    cur: i64,
}

impl Printer<'_> {
    fn dest(&self, unit: Unit) -> String {
        let mut s = format!("^{}", self.cur + unit as i64);
        let me = StoreSrc::from_unit(unit);
        for (k, st) in self.ins.store.iter().enumerate() {
            if !st.src.contains(&me) {
                continue;
            }
            if st.temporary {
                s += "/t[addr0].";
            } else if st.varying {
                let _ = write!(s, "/v{}.", st.addr);
            } else {
                let _ = write!(s, "/${}.", st.addr);
            }
            for (c, &src) in st.src.iter().enumerate() {
                if src == me {
                    s.push(b"xyzw"[2 * k + c] as char);
                }
            }
        }
        if unit == Unit::Complex {
            if let Some(a) = self.ins.complex_op.address_register() {
                let _ = write!(s, "/addr{a}");
            }
        }
        s
    }

    /// A source of `unit` in position `idx` (1 = src1, where code 22 is the identity).
    fn src(&self, src: Src, neg: bool, unit: Unit, idx: usize) -> String {
        let c = b"xyzw"[src.component() as usize] as char;
        let body = match src.class() {
            SrcClass::Reg0 => reg0(self.ins, c, ""),
            SrcClass::Reg1 => format!("${}.{c}", self.ins.reg1_addr),
            SrcClass::Unknown => format!("unknown{}", src.component()),
            SrcClass::Load => {
                let off = match self.ins.load_offset.address_register() {
                    Some(a) => format!("+addr{a}"),
                    None => String::new(),
                };
                format!("t[{}{off}].{c}", self.ins.load_addr)
            }
            SrcClass::Unused => "unused".into(),
            SrcClass::IdentOrP1Complex if idx == 1 && is_acc(unit) => "0".into(),
            SrcClass::IdentOrP1Complex if idx == 1 && is_mul(unit) => "1".into(),
            SrcClass::P1 | SrcClass::P2 | SrcClass::IdentOrP1Complex => {
                let (u, back) = src.forwarded().unwrap_or((Unit::Complex, 1));
                format!(
                    "^{}",
                    self.cur - Unit::COUNT as i64 * back as i64 + u as i64
                )
            }
            SrcClass::PrevReg0 => reg0(self.prev, c, "prev."),
        };
        if neg {
            format!("-{body}")
        } else {
            body
        }
    }
}

fn reg0(ins: &Instruction, c: char, prefix: &str) -> String {
    if ins.reg0_attribute {
        format!("{prefix}a{}.{c}", ins.reg0_addr)
    } else if prefix.is_empty() {
        format!("reg0.${}.{c}", ins.reg0_addr)
    } else {
        format!("{prefix}${}.{c}", ins.reg0_addr)
    }
}

pub(crate) fn is_acc(u: Unit) -> bool {
    matches!(u, Unit::Acc0 | Unit::Acc1)
}

pub(crate) fn is_mul(u: Unit) -> bool {
    matches!(u, Unit::Mul0 | Unit::Mul1)
}
