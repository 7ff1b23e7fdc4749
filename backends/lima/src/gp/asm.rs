//! Text → [`Instruction`]s: the syntax of [`super::disasm`] (Mesa's GP syntax with the
//! disambiguations listed there), so that `assemble(disassemble_program(p)) == p`.
//!
//! An instruction starts with `NNN:` (its index, which must be the next one) and is followed by
//! unit lines, on the same line after a tab or on following indented lines. Fields no line
//! mentions keep the values of [`Instruction::NOP`] (the src1 of a one-source acc op, `floor` or
//! `sign`, is code 0 as in Mesa's zero-initialized instructions); two lines that need different values of one
//! field (the shared acc or mul opcode, the load address, a store unit, a register-0 load) are an
//! error. A `prev.` source also sets the previous instruction's register-0 load. A `raw 0x…` line
//! replaces the whole instruction by the decoded word. Text after `;` is a comment. Errors carry
//! the line number and the instruction index; the assembler never panics.

use thiserror::Error;

use super::decode::decode_instruction;
use super::disasm::{is_acc, is_mul};
use super::instr::{Instruction, Store};
use super::isa::*;

/// Why the text could not be assembled.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {message}")]
pub struct AsmError {
    /// 1-based line.
    pub line: usize,
    /// The instruction being assembled, if any.
    pub instruction: Option<usize>,
    pub message: String,
}

/// Fields of one instruction claimed by some line (a second claim must agree).
#[derive(Default, Clone, Copy)]
struct Claims {
    acc_op: bool,
    mul_op: bool,
    load: bool,
    reg0: bool,
    reg1: bool,
    store: [bool; 2],
    raw: bool,
}

struct Asm {
    out: Vec<Instruction>,
    claims: Vec<Claims>,
    line: usize,
}

type R<T> = Result<T, String>;

/// Assembles a program.
pub fn assemble(text: &str) -> Result<Vec<Instruction>, AsmError> {
    let mut a = Asm {
        out: Vec::new(),
        claims: Vec::new(),
        line: 0,
    };
    for (n, raw_line) in text.lines().enumerate() {
        a.line = n + 1;
        let line = raw_line.split(';').next().unwrap_or("");
        let mut rest = line.trim();
        if rest.is_empty() {
            continue;
        }
        if !line.starts_with(char::is_whitespace) {
            // `NNN:` header.
            let (head, tail) = rest
                .split_once(':')
                .ok_or_else(|| a.err("expected `NNN:`"))?;
            let idx: usize = head
                .trim()
                .parse()
                .map_err(|_| a.err(&format!("bad instruction index `{head}`")))?;
            if idx != a.out.len() {
                return Err(a.err(&format!(
                    "instruction {idx} out of order (expected {})",
                    a.out.len()
                )));
            }
            if a.out.len() >= MAX_INSTRUCTIONS {
                return Err(a.err("more than 512 instructions"));
            }
            a.out.push(Instruction::NOP);
            a.claims.push(Claims::default());
            rest = tail.trim();
            if rest.is_empty() {
                continue;
            }
        }
        if a.out.is_empty() {
            return Err(a.err("unit line before the first `NNN:`"));
        }
        a.unit_line(rest).map_err(|m| a.err(&m))?;
    }
    Ok(a.out)
}

impl Asm {
    fn err(&self, m: &str) -> AsmError {
        AsmError {
            line: self.line,
            instruction: self.out.len().checked_sub(1),
            message: m.to_string(),
        }
    }

    fn index(&self) -> usize {
        self.out.len() - 1
    }

    fn cur(&mut self) -> &mut Instruction {
        let i = self.index();
        &mut self.out[i]
    }

    fn unit_line(&mut self, line: &str) -> R<()> {
        let toks: Vec<&str> = line.split_whitespace().collect();
        let (op, args) = (toks[0], &toks[1..]);
        let i = self.index();
        if self.claims[i].raw {
            return Ok(()); // the raw word is the instruction
        }
        match op {
            "nop" => return expect_args(args, 0),
            "raw" => {
                expect_args(args, 1)?;
                let hex = args[0].trim_start_matches("0x");
                let bits = u128::from_str_radix(hex, 16).map_err(|_| "bad raw word")?;
                *self.cur() = decode_instruction(bits, i).map_err(|e| e.to_string())?;
                self.claims[i].raw = true;
                return Ok(());
            }
            "unknown_1" => {
                expect_args(args, 1)?;
                let v: u8 = args[0].parse().map_err(|_| "bad unknown_1 value")?;
                if !instr::UNKNOWN_1.fits(v.into()) {
                    return Err("unknown_1 value out of range".into());
                }
                self.cur().unknown_1 = v;
                return Ok(());
            }
            "branch" => {
                expect_args(args, 2)?;
                self.dest(args[0], Unit::Pass)?;
                let t: u16 = args[1].parse().map_err(|_| "bad branch target")?;
                if usize::from(t) >= MAX_INSTRUCTIONS {
                    return Err("branch target out of range".into());
                }
                let c = self.cur();
                c.branch = true;
                c.branch_target = t;
                return Ok(());
            }
            _ => {}
        }
        let (name, unit) = op
            .rsplit_once('.')
            .ok_or_else(|| format!("unknown line `{op}`"))?;
        match unit {
            "a0" | "a1" => self.acc(name, usize::from(unit == "a1"), args),
            "m0" | "m1" => self.mul(name, usize::from(unit == "m1"), args),
            "m01" => self.mul2(name, args),
            "c" => self.complex(name, args),
            "p" => self.pass(name, args),
            _ => Err(format!("unknown unit `.{unit}`")),
        }
    }

    fn acc(&mut self, name: &str, a: usize, args: &[&str]) -> R<()> {
        let unit = [Unit::Acc0, Unit::Acc1][a];
        let (op, mov) = match name {
            "mov" => (AccOp::Add, true),
            _ => (
                *AccOp::ALL
                    .iter()
                    .find(|o| o.mnemonic() == name)
                    .ok_or_else(|| format!("unknown acc op `{name}`"))?,
                false,
            ),
        };
        let n = if mov { 1 } else { op.num_srcs() as usize };
        expect_args(args, n + 1)?;
        self.claim_acc_op(op)?;
        self.dest(args[0], unit)?;
        let (s0, n0) = self.src(args[1], unit, 0)?;
        let (s1, n1) = match (mov, n) {
            (true, _) => (Src::Ident, true),
            (false, 2) => self.src(args[2], unit, 1)?,
            // One-source ops: Mesa's zero-initialized instruction leaves src1 = code 0 (not read).
            _ => (Src::Reg0X, false),
        };
        let c = self.cur();
        c.acc[a].src = [s0, s1];
        c.acc[a].neg = [n0, n1];
        Ok(())
    }

    fn mul(&mut self, name: &str, m: usize, args: &[&str]) -> R<()> {
        let unit = [Unit::Mul0, Unit::Mul1][m];
        let (op, mov) = match name {
            "mov" => (MulOp::Mul, true),
            "mul" => (MulOp::Mul, false),
            "complex2" => (MulOp::Complex2, false),
            _ => return Err(format!("unknown mul op `{name}`")),
        };
        expect_args(args, if mov { 2 } else { 3 })?;
        self.claim_mul_op(op)?;
        self.dest(args[0], unit)?;
        let s0 = self.src_pos(args[1], unit, 0)?;
        let (s1, neg) = if mov {
            (Src::Ident, false)
        } else {
            self.src(args[2], unit, 1)?
        };
        if s0 == Src::Unused || s1 == Src::Unused {
            return Err("a mul line needs two used sources".into());
        }
        let c = self.cur();
        c.mul[m].src = [s0, s1];
        c.mul[m].neg = neg;
        Ok(())
    }

    fn mul2(&mut self, name: &str, args: &[&str]) -> R<()> {
        let (m0, m1) = (Unit::Mul0, Unit::Mul1);
        match name {
            "complex1" => {
                expect_args(args, 5)?;
                self.claim_mul_op(MulOp::Complex1)?;
                self.dest(args[0], m0)?;
                let s = [
                    self.src_pos(args[1], m0, 0)?,
                    self.src_pos(args[2], m0, 1)?,
                    self.src_pos(args[3], m1, 0)?,
                    self.src_pos(args[4], m1, 1)?,
                ];
                let c = self.cur();
                c.mul[0].src = [s[0], s[1]];
                c.mul[1].src = [s[2], s[3]];
            }
            "sel" => {
                expect_args(args, 4)?;
                self.claim_mul_op(MulOp::Select)?;
                self.dest(args[0], m0)?;
                let cond = self.src_pos(args[1], m0, 1)?;
                let f = self.src_pos(args[2], m0, 0)?;
                let t = self.src_pos(args[3], m1, 0)?;
                let c = self.cur();
                c.mul[0].src = [f, cond];
                c.mul[1].src = [t, Src::Unused];
            }
            _ => return Err(format!("unknown op `{name}.m01`")),
        }
        Ok(())
    }

    fn complex(&mut self, name: &str, args: &[&str]) -> R<()> {
        expect_args(args, 2)?;
        let addr = self.dest(args[0], Unit::Complex)?;
        let op = match (name, addr) {
            ("mov", Some(0)) => ComplexOp::TempStoreAddr,
            ("mov", Some(1)) => ComplexOp::TempLoadAddr0,
            ("mov", Some(2)) => ComplexOp::TempLoadAddr1,
            ("mov", Some(3)) => ComplexOp::TempLoadAddr2,
            ("mov", None) => ComplexOp::Pass,
            (_, None) => *ComplexOp::ALL
                .iter()
                .find(|o| o.mnemonic() == name && o.address_register().is_none())
                .ok_or_else(|| format!("unknown complex op `{name}`"))?,
            _ => return Err("only `mov.c` sets an address register".into()),
        };
        let s = self.src_pos(args[1], Unit::Complex, 0)?;
        if s == Src::Unused {
            return Err("a complex line needs a used source".into());
        }
        let c = self.cur();
        c.complex_op = op;
        c.complex_src = s;
        Ok(())
    }

    fn pass(&mut self, name: &str, args: &[&str]) -> R<()> {
        let op = *PassOp::ALL
            .iter()
            .find(|o| o.mnemonic() == name)
            .ok_or_else(|| format!("unknown pass op `{name}`"))?;
        expect_args(args, if op == PassOp::Clamp { 4 } else { 2 })?;
        self.dest(args[0], Unit::Pass)?;
        let s = self.src_pos(args[1], Unit::Pass, 0)?;
        if s == Src::Unused {
            return Err("a pass line needs a used source".into());
        }
        if op == PassOp::Clamp
            && (self.src_pos(args[2], Unit::Pass, 1)? != Src::LoadX
                || self.src_pos(args[3], Unit::Pass, 2)? != Src::LoadY)
        {
            return Err("clamp bounds must be the load unit's .x and .y".into());
        }
        let c = self.cur();
        c.pass_op = op;
        c.pass_src = s;
        Ok(())
    }

    fn claim_acc_op(&mut self, op: AccOp) -> R<()> {
        let i = self.index();
        if self.claims[i].acc_op && self.out[i].acc_op != op {
            return Err("acc0 and acc1 need different opcodes (one acc_op)".into());
        }
        self.claims[i].acc_op = true;
        self.out[i].acc_op = op;
        Ok(())
    }

    fn claim_mul_op(&mut self, op: MulOp) -> R<()> {
        let i = self.index();
        if self.claims[i].mul_op && self.out[i].mul_op != op {
            return Err("mul0 and mul1 need different opcodes (one mul_op)".into());
        }
        self.claims[i].mul_op = true;
        self.out[i].mul_op = op;
        Ok(())
    }

    /// Parses `^N[/store…][/addrK]` for `unit`; returns the address register named.
    fn dest(&mut self, tok: &str, unit: Unit) -> R<Option<usize>> {
        let mut parts = tok.split('/');
        let name = parts.next().unwrap_or("");
        let want = Unit::COUNT as i64 * self.index() as i64 + unit as i64;
        let n: i64 = name
            .strip_prefix('^')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("bad result name `{name}`"))?;
        if n != want {
            return Err(format!("result name `^{n}` should be `^{want}` here"));
        }
        let mut addr = None;
        for p in parts {
            if let Some(a) = p.strip_prefix("addr") {
                let a: usize = a.parse().map_err(|_| format!("bad `{p}`"))?;
                if unit != Unit::Complex || a >= ADDRESS_REGISTERS || addr.is_some() {
                    return Err(format!("`/{p}` not allowed here"));
                }
                addr = Some(a);
                continue;
            }
            let (place, comps) = p.rsplit_once('.').ok_or_else(|| format!("bad `/{p}`"))?;
            let (addr_v, varying, temporary) = if place == "t[addr0]" {
                (None, false, true)
            } else if let Some(v) = place.strip_prefix('v') {
                (Some(parse_vec4(v)?), true, false)
            } else if let Some(r) = place.strip_prefix('$') {
                (Some(parse_vec4(r)?), false, false)
            } else {
                return Err(format!("bad store `/{p}`"));
            };
            if comps.is_empty() {
                return Err(format!("store `/{p}` without components"));
            }
            for ch in comps.chars() {
                let c = "xyzw"
                    .find(ch)
                    .ok_or_else(|| format!("bad component in `/{p}`"))?;
                let k = c / 2;
                self.claim_store(k, addr_v, varying, temporary)?;
                let st = &mut self.cur().store[k];
                if st.src[c % 2] != StoreSrc::None {
                    return Err(format!("component {ch} stored twice"));
                }
                st.src[c % 2] = StoreSrc::from_unit(unit);
            }
        }
        Ok(addr)
    }

    fn claim_store(&mut self, k: usize, addr: Option<u8>, varying: bool, temporary: bool) -> R<()> {
        let i = self.index();
        let st = self.out[i].store[k];
        let new = Store {
            src: st.src,
            addr: addr.unwrap_or(0),
            varying,
            temporary,
        };
        if self.claims[i].store[k] && st != new {
            return Err(format!("store{k} written to two places"));
        }
        self.claims[i].store[k] = true;
        self.out[i].store[k] = new;
        Ok(())
    }

    /// A source without a negate sign.
    fn src_pos(&mut self, tok: &str, unit: Unit, idx: usize) -> R<Src> {
        match self.src(tok, unit, idx)? {
            (_, true) => Err(format!("`{tok}` cannot be negated here")),
            (s, false) => Ok(s),
        }
    }

    /// A source of `unit` in position `idx` (1 = src1, where code 22 is the identity).
    fn src(&mut self, tok: &str, unit: Unit, idx: usize) -> R<(Src, bool)> {
        let (neg, body) = match tok.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, tok),
        };
        let ident_pos = idx == 1 && (is_acc(unit) || is_mul(unit));
        let i = self.index();
        let s = match body {
            "unused" => Src::Unused,
            "0" if ident_pos && is_acc(unit) => Src::Ident,
            "1" if ident_pos && is_mul(unit) => Src::Ident,
            _ if body.starts_with('^') => {
                let n: i64 = body[1..].parse().map_err(|_| format!("bad `{body}`"))?;
                let u = Unit::from_index(n.rem_euclid(6) as u32).ok_or("bad unit")?;
                let back = i as i64 - n.div_euclid(6);
                let s = u32::try_from(back)
                    .ok()
                    .and_then(|b| Src::from_forwarded(u, b))
                    .ok_or_else(|| format!("`{body}` is not a forwarded result (p1/p2)"))?;
                if s == Src::Ident && ident_pos {
                    return Err(format!("`{body}` (p1 complex) cannot be a src1"));
                }
                s
            }
            _ if body.starts_with("unknown") => {
                let k: u8 = body[7..].parse().map_err(|_| format!("bad `{body}`"))?;
                if k > 3 {
                    return Err(format!("bad `{body}`"));
                }
                Src::load(SrcClass::Unknown, k).ok_or("bad source")?
            }
            _ if body.starts_with("t[") => {
                let (inner, c) = body[2..]
                    .split_once("].")
                    .ok_or_else(|| format!("bad `{body}`"))?;
                let (addr, off) = match inner.split_once("+addr") {
                    Some((a, k)) => (a, Some(k)),
                    None => (inner, None),
                };
                let addr: u16 = addr.parse().map_err(|_| format!("bad `{body}`"))?;
                if !instr::LOAD_ADDR.fits(addr.into()) {
                    return Err(format!("load address {addr} out of range"));
                }
                let off = match off {
                    None => LoadOffset::None,
                    Some("1") => LoadOffset::Addr1,
                    Some("2") => LoadOffset::Addr2,
                    Some("3") => LoadOffset::Addr3,
                    Some(_) => return Err(format!("bad offset in `{body}`")),
                };
                let cl = &mut self.claims[i];
                let ins = &mut self.out[i];
                if cl.load && (ins.load_addr, ins.load_offset) != (addr, off) {
                    return Err("two different uniform/temporary loads".into());
                }
                cl.load = true;
                ins.load_addr = addr;
                ins.load_offset = off;
                Src::load(SrcClass::Load, component(c)?).ok_or("bad source")?
            }
            _ if body.starts_with("prev.") => {
                let (attr, n, c) = parse_reg(&body[5..])?;
                if i > 0 {
                    let cl = &mut self.claims[i - 1];
                    let p = &mut self.out[i - 1];
                    if cl.reg0 && (p.reg0_addr, p.reg0_attribute) != (n, attr) {
                        return Err("previous instruction loads another register 0".into());
                    }
                    cl.reg0 = true;
                    p.reg0_addr = n;
                    p.reg0_attribute = attr;
                }
                Src::load(SrcClass::PrevReg0, c).ok_or("bad source")?
            }
            _ if body.starts_with("reg0.$") || body.starts_with('a') => {
                let (attr, n, c) = parse_reg(body.strip_prefix("reg0.").unwrap_or(body))?;
                let cl = &mut self.claims[i];
                let ins = &mut self.out[i];
                if cl.reg0 && (ins.reg0_addr, ins.reg0_attribute) != (n, attr) {
                    return Err("two different register-0 loads".into());
                }
                cl.reg0 = true;
                ins.reg0_addr = n;
                ins.reg0_attribute = attr;
                Src::load(SrcClass::Reg0, c).ok_or("bad source")?
            }
            _ if body.starts_with('$') => {
                let (_, n, c) = parse_reg(body)?;
                let cl = &mut self.claims[i];
                let ins = &mut self.out[i];
                if cl.reg1 && ins.reg1_addr != n {
                    return Err("two different register-1 loads".into());
                }
                cl.reg1 = true;
                ins.reg1_addr = n;
                Src::load(SrcClass::Reg1, c).ok_or("bad source")?
            }
            _ => return Err(format!("unknown source `{tok}`")),
        };
        Ok((s, neg))
    }
}

fn expect_args(args: &[&str], n: usize) -> R<()> {
    if args.len() != n {
        return Err(format!("expected {n} operands, found {}", args.len()));
    }
    Ok(())
}

fn component(c: &str) -> R<u8> {
    match c {
        "x" => Ok(0),
        "y" => Ok(1),
        "z" => Ok(2),
        "w" => Ok(3),
        _ => Err(format!("bad component `{c}`")),
    }
}

fn parse_vec4(s: &str) -> R<u8> {
    match s.parse::<u8>() {
        Ok(n) if usize::from(n) < REGISTERS => Ok(n),
        _ => Err(format!("bad vec4 index `{s}`")),
    }
}

/// `a<n>.c` (attribute) or `$<n>.c` (register) → (attribute, n, component).
fn parse_reg(s: &str) -> R<(bool, u8, u8)> {
    let (attr, rest) = if let Some(r) = s.strip_prefix('a') {
        (true, r)
    } else if let Some(r) = s.strip_prefix('$') {
        (false, r)
    } else {
        return Err(format!("bad register `{s}`"));
    };
    let (n, c) = rest
        .split_once('.')
        .ok_or_else(|| format!("bad register `{s}`"))?;
    Ok((attr, parse_vec4(n)?, component(c)?))
}
