//! picasso assembly (§14) → [`Shbin`]: code words, operand descriptors and one DVLE per source
//! file, as picasso builds them (`devkitPro/picasso` `source/picasso_assembler.cpp` read for the
//! details the reference leaves out: condition-expression parsing, alias swizzle composition,
//! descriptor de-duplication with merging of don't-care bits).
//!
//! Supported: comments `;`, labels `name:`, `.proc`/`.end`/`.entry`/`.nodvle`, `ifu`/`ifc`/`for`
//! blocks with `.else`, every instruction of §14 (I-forms chosen automatically), `.alias`,
//! `.fvec`/`.ivec`/`.bool`, `.constf`/`.consti`, `.setf`/`.seti`/`.setb`, `.in`, `.out`, `.gsh`.
//! The automatic NOPs of §9 are inserted. Not supported: `.constfa`, `#line` markers.
//!
//! Extensions (so that every decodable program can be written back, see [`crate::disasm`]):
//! `dphi`/`dsti`/`sgei`/`slti`/`madi` force the inverted form when both sources are narrow (where
//! picasso would pick the plain form); `.word 0x…` emits a raw flow-control/format-0/4 word;
//! `r0[a0.x]` (an index on a narrow register, which the hardware ignores) is accepted; `v15` is
//! accepted (picasso rejects it by mistake, §6).
//!
//! Errors carry `line:column` (1-based) of the offending token.

use std::collections::HashMap;

mod directives;

use thiserror::Error;

use crate::decode::decode_instr;
use crate::encode::{encode_with_table, OpdescTable};
use crate::float24;
use crate::instr::{Cond, Dst, DstReg, Instr, Mask, Src, SrcReg, Swizzle};
use crate::isa::{reg, AddrIndex, CmpOp, CondOp, Format, Opcode};
use crate::shbin::{
    semantic, ConstValue, Constant, Dvle, OutputEntry, ShaderType, Shbin, UniformEntry,
};

/// An assembly error at `line:col` of source file `file` (0-based index of the file).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{line}:{col}: {msg}")]
pub struct AsmError {
    pub file: usize,
    pub line: usize,
    pub col: usize,
    pub msg: String,
}

/// Assembles one source file into a SHBIN with one DVLE (none with `.nodvle`).
pub fn assemble(source: &str) -> Result<Shbin, AsmError> {
    assemble_files(&[source])
}

/// Assembles several files into one SHBIN (shared code and descriptors, one DVLE per file in
/// order), like `picasso -o out.shbin a.v.pica b.g.pica`.
pub fn assemble_files(sources: &[&str]) -> Result<Shbin, AsmError> {
    let mut a = Asm::default();
    for (i, src) in sources.iter().enumerate() {
        a.file = i;
        a.file_state = FileState::default();
        for (n, line) in src.lines().enumerate() {
            a.line = n + 1;
            a.line_base = line.as_ptr() as usize;
            a.line_len = line.len();
            a.process(line)?;
        }
        a.finish_file()?;
    }
    a.finish()
}

/// A register of any kind, as written in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reg {
    V(u8),
    R(u8),
    C(u8),
    O(u8),
    I(u8),
    B(u8),
}

#[derive(Debug, Clone, Copy)]
struct Alias {
    reg: Reg,
    swizzle: Swizzle,
    negate: bool,
}

/// A parsed operand.
#[derive(Debug, Clone, Copy)]
struct Operand {
    reg: Reg,
    swizzle: Swizzle,
    negate: bool,
    index: AddrIndex,
    col: usize,
    /// `._`: an empty destination mask (written by the disassembler only).
    empty: bool,
}

enum Block {
    Proc { name: String, start: usize },
    If { at: usize, else_at: Option<usize> },
    For { at: usize },
}

#[derive(Default)]
struct FileState {
    aliases: HashMap<String, Alias>,
    labels: HashMap<String, usize>,
    label_relocs: Vec<(usize, String, (usize, usize))>,
    entry: Option<String>,
    nodvle: bool,
    dvle: Option<Dvle>,
    /// Next local constant register (downward) for c and i.
    const_c: Option<u8>,
    const_i: Option<u8>,
    /// Next global uniform for a GS file (its own space).
    gs_fvec: Option<u8>,
    gs_ivec: u8,
    gs_bool: u8,
}

#[derive(Default)]
struct Asm {
    file: usize,
    line: usize,
    line_base: usize,
    line_len: usize,
    instrs: Vec<Instr>,
    pos: Vec<(usize, usize, usize)>,
    procs: HashMap<String, (usize, usize)>,
    proc_relocs: Vec<(usize, String, (usize, usize, usize))>,
    stack: Vec<Block>,
    last_block_end: Option<usize>,
    /// VS uniforms shared by name across files: name → (first register, size, kind char).
    globals: HashMap<String, (u8, u8, char)>,
    next_fvec: u8,
    next_ivec: u8,
    next_bool: u8,
    file_state: FileState,
    dvles: Vec<(Dvle, String, (usize, usize, usize))>,
}

/// Splits `s` at commas outside parentheses, trimming each part.
fn split_args(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() || !out.is_empty() {
        out.push(s[start..].trim());
    }
    out
}

fn valid_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.')
}

fn parse_swizzle(s: &str) -> Option<Swizzle> {
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    let mut comps = [0u8; 4];
    let mut last = 0;
    for (i, c) in s.chars().enumerate() {
        last = match c.to_ascii_lowercase() {
            'x' | 'r' | 's' => 0,
            'y' | 'g' | 't' => 1,
            'z' | 'b' | 'p' => 2,
            'w' | 'a' | 'q' => 3,
            _ => return None,
        };
        comps[i] = last;
    }
    for c in comps.iter_mut().skip(s.len()) {
        *c = last;
    }
    Some(Swizzle::new(comps))
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else {
        s.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

fn mask_of(sw: Swizzle) -> Mask {
    Mask(sw.comps().iter().fold(0, |m, &c| m | (8 >> c)))
}

/// Output-table mask (bit 0 = x) from a descriptor-order mask (bit 3 = x).
fn table_mask(m: Mask) -> u16 {
    (0..4).filter(|&i| m.has(i)).fold(0, |a, i| a | 1 << i)
}

impl Asm {
    fn err(&self, col: usize, msg: impl Into<String>) -> AsmError {
        AsmError {
            file: self.file,
            line: self.line,
            col,
            msg: msg.into(),
        }
    }

    /// 1-based column of `part`, a sub-slice of the line being assembled (1 otherwise).
    fn col(&self, part: &str) -> usize {
        let p = part.as_ptr() as usize;
        if p >= self.line_base && p <= self.line_base + self.line_len {
            p - self.line_base + 1
        } else {
            1
        }
    }

    fn dvle(&mut self) -> &mut Dvle {
        self.file_state
            .dvle
            .get_or_insert_with(|| Dvle::new(ShaderType::Vertex))
    }

    fn is_gs(&self) -> bool {
        self.file_state
            .dvle
            .as_ref()
            .is_some_and(|d| d.kind == ShaderType::Geometry)
    }

    fn process(&mut self, full: &str) -> Result<(), AsmError> {
        let code = full.split(';').next().unwrap_or("");
        let mut rest = code.trim();
        // Labels.
        while let Some(i) = rest.find(':') {
            let name = rest[..i].trim();
            if !valid_ident(name) {
                break;
            }
            let c = self.col(name);
            if self
                .file_state
                .labels
                .insert(name.to_string(), self.instrs.len())
                .is_some()
            {
                return Err(self.err(c, format!("duplicate label `{name}`")));
            }
            rest = rest[i + 1..].trim();
        }
        if rest.is_empty() {
            return Ok(());
        }
        let (cmd, args) = match rest.find(|c: char| c.is_whitespace()) {
            Some(i) => (&rest[..i], rest[i..].trim()),
            None => (rest, ""),
        };
        let ccol = self.col(cmd);
        let lc = cmd.to_ascii_lowercase();
        if lc.starts_with('.') {
            self.directive(&lc, ccol, args)
        } else {
            self.instruction(&lc, ccol, args)
        }
    }

    // ------------------------------------------------------------------ operands

    fn lookup_reg(&self, name: &str, col: usize) -> Result<Option<Reg>, AsmError> {
        let mut cs = name.chars();
        let Some(k) = cs.next() else {
            return Ok(None);
        };
        let num = cs.as_str();
        if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit()) {
            return Ok(None);
        }
        let n: u32 = num.parse().unwrap_or(u32::MAX);
        let (r, max) = match k.to_ascii_lowercase() {
            'v' => (Reg::V(n as u8), 16),
            'r' => (Reg::R(n as u8), 16),
            'c' => (Reg::C(n as u8), 96),
            'o' => (Reg::O(n as u8), 16),
            'i' => (Reg::I(n as u8), 4),
            'b' => (Reg::B(n as u8), 16),
            _ => return Ok(None),
        };
        if n >= max {
            return Err(self.err(col, format!("register `{name}` out of range")));
        }
        Ok(Some(r))
    }

    fn offset_reg(&self, r: Reg, off: i64, col: usize) -> Result<Reg, AsmError> {
        let add = |n: u8, max: i64, f: fn(u8) -> Reg| {
            let v = n as i64 + off;
            if (0..max).contains(&v) {
                Ok(f(v as u8))
            } else {
                Err(self.err(col, format!("register offset {off} out of range")))
            }
        };
        match r {
            Reg::V(n) => add(n, 16, Reg::V),
            Reg::R(n) => add(n, 16, Reg::R),
            Reg::C(n) => add(n, 96, Reg::C),
            Reg::O(n) => add(n, 16, Reg::O),
            Reg::I(n) => add(n, 4, Reg::I),
            Reg::B(n) => add(n, 16, Reg::B),
        }
    }

    fn operand(&self, text: &str) -> Result<Operand, AsmError> {
        let col = self.col(text);
        let mut s = text.trim();
        if s.is_empty() {
            return Err(self.err(col, "missing operand"));
        }
        let mut negate = false;
        while let Some(r) = s.strip_prefix('-') {
            negate = !negate;
            s = r.trim_start();
        }
        let name_end = s.find(['[', '.']).unwrap_or(s.len());
        let name = s[..name_end].trim();
        let mut rest = &s[name_end..];
        let mut offset = 0i64;
        let mut index = AddrIndex::None;
        if let Some(r) = rest.strip_prefix('[') {
            let close = r
                .find(']')
                .ok_or_else(|| self.err(col, "missing closing bracket"))?;
            for part in r[..close].split('+') {
                let p = part.trim();
                let idx = match p.to_ascii_lowercase().as_str() {
                    "a0.x" | "a0" => Some(AddrIndex::A0X),
                    "a0.y" | "a1" => Some(AddrIndex::A0Y),
                    "al" | "a2" | "lcnt" => Some(AddrIndex::AL),
                    _ => None,
                };
                if let Some(i) = idx {
                    if index != AddrIndex::None {
                        return Err(self.err(col, "two index registers"));
                    }
                    index = i;
                } else {
                    let v = parse_int(p)
                        .filter(|v| *v >= 0)
                        .ok_or_else(|| self.err(col, format!("invalid register offset `{p}`")))?;
                    offset = offset
                        .checked_add(v)
                        .ok_or_else(|| self.err(col, format!("register offset `{p}` too large")))?;
                }
            }
            rest = &r[close + 1..];
        }
        let mut swizzle = Swizzle::IDENTITY;
        let empty = rest.trim() == "._";
        if empty {
        } else if let Some(r) = rest.strip_prefix('.') {
            swizzle = parse_swizzle(r.trim())
                .ok_or_else(|| self.err(col, format!("invalid swizzle `{r}`")))?;
        } else if !rest.trim().is_empty() {
            return Err(self.err(col, format!("unexpected `{rest}`")));
        }
        let (reg, swizzle, negate) = if let Some(a) = self.file_state.aliases.get(name) {
            let comps = swizzle.comps().map(|c| a.swizzle.comp(c) as u8);
            (
                self.offset_reg(a.reg, offset, col)?,
                Swizzle::new(comps),
                negate ^ a.negate,
            )
        } else if let Some(r) = self.lookup_reg(name, col)? {
            (self.offset_reg(r, offset, col)?, swizzle, negate)
        } else {
            return Err(self.err(col, format!("unknown register or alias `{name}`")));
        };
        Ok(Operand {
            reg,
            swizzle,
            negate,
            index,
            col,
            empty,
        })
    }

    fn src(&self, o: &Operand, wide: bool) -> Result<Src, AsmError> {
        let reg = match o.reg {
            Reg::V(n) => SrcReg::Input(n),
            Reg::R(n) => SrcReg::Temp(n),
            Reg::C(n) if wide => SrcReg::Const(n),
            Reg::C(_) => return Err(self.err(
                o.col,
                "a float uniform can only be read through the wide source (one per instruction)",
            )),
            _ => return Err(self.err(o.col, "not a source register")),
        };
        if o.empty {
            return Err(self.err(o.col, "`._` is only allowed on a destination"));
        }
        if !wide && o.index != AddrIndex::None {
            return Err(self.err(o.col, "index register only allowed in the wide source"));
        }
        Ok(Src {
            reg,
            swizzle: o.swizzle,
            negate: o.negate,
        })
    }

    fn dst(&self, o: &Operand) -> Result<Dst, AsmError> {
        let reg = match o.reg {
            Reg::O(n) => DstReg::Output(n),
            Reg::R(n) => DstReg::Temp(n),
            _ => return Err(self.err(o.col, "not a destination register")),
        };
        if o.negate || o.index != AddrIndex::None {
            return Err(self.err(o.col, "destination cannot be negated or indexed"));
        }
        Ok(Dst {
            reg,
            mask: if o.empty { Mask(0) } else { mask_of(o.swizzle) },
        })
    }

    fn cond(&self, text: &str) -> Result<Cond, AsmError> {
        let col = self.col(text);
        let one = |s: &str, c: &mut Cond| -> Result<u8, AsmError> {
            let mut s = s.trim();
            let mut neg = false;
            while let Some(r) = s.strip_prefix('!') {
                neg = !neg;
                s = r.trim_start();
            }
            match s.to_ascii_lowercase().as_str() {
                "cmp.x" => {
                    c.refx ^= neg;
                    Ok(0)
                }
                "cmp.y" => {
                    c.refy ^= neg;
                    Ok(1)
                }
                _ => Err(self.err(col, format!("invalid condition `{s}`"))),
            }
        };
        let mut c = Cond {
            op: CondOp::Or,
            refx: true,
            refy: true,
        };
        if let Some(i) = text.find(['&', '|']) {
            c.op = if text.as_bytes()[i] == b'&' {
                CondOp::And
            } else {
                CondOp::Or
            };
            let rhs = text[i + 1..].trim_start_matches(['&', '|']);
            let a = one(&text[..i], &mut c)?;
            let b = one(rhs, &mut c)?;
            if a == b {
                return Err(self.err(col, "condition register checked twice"));
            }
        } else {
            let a = one(text, &mut c)?;
            c.op = if a == 0 { CondOp::X } else { CondOp::Y };
        }
        Ok(c)
    }

    fn bool_reg(&self, text: &str) -> Result<(u8, bool), AsmError> {
        let t = text.trim();
        let (neg, t) = match t.strip_prefix('!') {
            Some(r) => (true, r.trim()),
            None => (false, t),
        };
        match self.operand(t)?.reg {
            Reg::B(n) => Ok((n, neg)),
            _ => Err(self.err(self.col(text), "expected a bool uniform bN")),
        }
    }

    // ------------------------------------------------------------------ instructions

    fn push(&mut self, ins: Instr, col: usize) {
        self.instrs.push(ins);
        self.pos.push((self.file, self.line, col));
    }

    fn want(&self, args: &[&str], n: usize, col: usize) -> Result<(), AsmError> {
        if args.len() != n {
            return Err(self.err(col, format!("expected {n} operands, got {}", args.len())));
        }
        Ok(())
    }

    fn one_input(&self, ops: &[&Operand]) -> Result<(), AsmError> {
        let mut v = None;
        for o in ops {
            if let Reg::V(n) = o.reg {
                if v.is_some_and(|m| m != n) {
                    return Err(self.err(
                        o.col,
                        "two different input registers in one instruction (erratum 2)",
                    ));
                }
                v = Some(n);
            }
        }
        Ok(())
    }

    fn instruction(&mut self, cmd: &str, col: usize, args: &str) -> Result<(), AsmError> {
        let args = split_args(args);
        let op = Opcode::ALL
            .iter()
            .copied()
            .find(|o| o.mnemonic() == cmd)
            .ok_or_else(|| self.err(col, format!("unknown instruction `{cmd}`")))?;
        let forced_inv = op.is_inverted();
        let op = op.plain();
        match op.format() {
            Format::F0 => {
                self.want(&args, 0, col)?;
                self.push(Instr::Plain(op), col);
            }
            Format::F1 | Format::F1i => {
                self.want(&args, 3, col)?;
                let d = self.operand(args[0])?;
                let s1 = self.operand(args[1])?;
                let s2 = self.operand(args[2])?;
                self.one_input(&[&s1, &s2])?;
                let wide1 = matches!(s1.reg, Reg::C(_)) || s1.index != AddrIndex::None;
                let wide2 = matches!(s2.reg, Reg::C(_)) || s2.index != AddrIndex::None;
                let inv = op.inverted().is_some() && !wide1 && (wide2 || forced_inv);
                let ins = Instr::Binary {
                    op: if inv { op.inverted().unwrap_or(op) } else { op },
                    dst: self.dst(&d)?,
                    src1: self.src(&s1, !inv)?,
                    src2: self.src(&s2, inv)?,
                    index: if inv { s2.index } else { s1.index },
                };
                self.push(ins, col);
            }
            Format::F1u if op == Opcode::Mova => {
                self.want(&args, 2, col)?;
                // `a0.x`, `a0.y`, `a0.xy` (picasso); any mask incl. `a0._` (disassembler).
                let a = args[0].to_ascii_lowercase();
                let mask = match a.strip_prefix("a0") {
                    Some("") => Mask(0x8),
                    Some("._") => Mask(0),
                    Some(m) => m
                        .strip_prefix('.')
                        .and_then(parse_swizzle)
                        .map(mask_of)
                        .ok_or_else(|| {
                            self.err(self.col(args[0]), "expected a0.x, a0.y or a0.xy")
                        })?,
                    None => return Err(self.err(self.col(args[0]), "expected a0.x, a0.y or a0.xy")),
                };
                let s = self.operand(args[1])?;
                let ins = Instr::Mova {
                    mask,
                    src: self.src(&s, true)?,
                    index: s.index,
                };
                self.push(ins, col);
            }
            Format::F1u => {
                self.want(&args, 2, col)?;
                let d = self.operand(args[0])?;
                let s = self.operand(args[1])?;
                let ins = Instr::Unary {
                    op,
                    dst: self.dst(&d)?,
                    src: self.src(&s, true)?,
                    index: s.index,
                };
                self.push(ins, col);
            }
            Format::F1c => {
                self.want(&args, 4, col)?;
                let s1 = self.operand(args[0])?;
                let s2 = self.operand(args[3])?;
                self.one_input(&[&s1, &s2])?;
                let cmp = |t: &str| {
                    CmpOp::ALL
                        .iter()
                        .copied()
                        .find(|c| c.name() == t.to_ascii_lowercase())
                        .ok_or_else(|| self.err(self.col(t), format!("invalid comparison `{t}`")))
                };
                let ins = Instr::Cmp {
                    src1: self.src(&s1, true)?,
                    x: cmp(args[1])?,
                    y: cmp(args[2])?,
                    src2: self.src(&s2, false)?,
                    index: s1.index,
                };
                self.push(ins, col);
            }
            Format::F5 | Format::F5i => {
                self.want(&args, 4, col)?;
                let d = self.operand(args[0])?;
                let s1 = self.operand(args[1])?;
                let s2 = self.operand(args[2])?;
                let s3 = self.operand(args[3])?;
                self.one_input(&[&s1, &s2, &s3])?;
                let wide2 = matches!(s2.reg, Reg::C(_)) || s2.index != AddrIndex::None;
                let wide3 = matches!(s3.reg, Reg::C(_)) || s3.index != AddrIndex::None;
                let inv = !wide2 && (wide3 || forced_inv);
                let ins = Instr::Mad {
                    inverted: inv,
                    dst: self.dst(&d)?,
                    src1: self.src(&s1, false)?,
                    src2: self.src(&s2, !inv)?,
                    src3: self.src(&s3, inv)?,
                    index: if inv { s3.index } else { s2.index },
                };
                self.push(ins, col);
            }
            Format::F4 => {
                if args.is_empty() || args.len() > 2 {
                    return Err(self.err(col, "expected `setemit vtx[, prim inv]`"));
                }
                let vertex = parse_int(args[0])
                    .filter(|v| (0..=3).contains(v))
                    .ok_or_else(|| self.err(self.col(args[0]), "vertex id must be 0..3"))?;
                let (mut primitive, mut winding) = (false, false);
                for f in args.get(1).map_or("", |s| *s).split_whitespace() {
                    match f.to_ascii_lowercase().as_str() {
                        "prim" | "primitive" => primitive = true,
                        "inv" | "invert" => winding = true,
                        _ => return Err(self.err(self.col(f), format!("unknown flag `{f}`"))),
                    }
                }
                self.dvle().kind = ShaderType::Geometry;
                self.push(
                    Instr::SetEmit {
                        vertex: vertex as u8,
                        primitive,
                        winding,
                    },
                    col,
                );
            }
            Format::F2 => self.format2(op, col, &args)?,
            Format::F3 => self.format3(op, col, &args)?,
        }
        Ok(())
    }

    fn format2(&mut self, op: Opcode, col: usize, args: &[&str]) -> Result<(), AsmError> {
        let at = self.instrs.len();
        let here = (self.file, self.line, col);
        let (cond, target) = match op {
            Opcode::Call => {
                self.want(args, 1, col)?;
                (
                    Cond {
                        op: CondOp::Or,
                        refx: false,
                        refy: false,
                    },
                    Some(args[0]),
                )
            }
            Opcode::Breakc | Opcode::Ifc => {
                self.want(args, 1, col)?;
                (self.cond(args[0])?, None)
            }
            _ => {
                self.want(args, 2, col)?;
                (self.cond(args[0])?, Some(args[1]))
            }
        };
        if let Some(t) = target {
            if !valid_ident(t) {
                return Err(self.err(self.col(t), format!("invalid target `{t}`")));
            }
            if op == Opcode::Jmpc {
                self.file_state
                    .label_relocs
                    .push((at, t.to_string(), (self.line, self.col(t))));
            } else {
                self.proc_relocs.push((at, t.to_string(), here));
            }
        }
        if op == Opcode::Ifc {
            self.stack.push(Block::If { at, else_at: None });
        }
        self.push(
            Instr::CondFlow {
                op,
                cond,
                dst: 0,
                num: 0,
            },
            col,
        );
        Ok(())
    }

    fn format3(&mut self, op: Opcode, col: usize, args: &[&str]) -> Result<(), AsmError> {
        let at = self.instrs.len();
        let here = (self.file, self.line, col);
        let (id, num) = if op == Opcode::Loop {
            self.want(args, 1, col)?;
            match self.operand(args[0])?.reg {
                Reg::I(n) => (n, 0),
                _ => return Err(self.err(self.col(args[0]), "expected an int uniform iN")),
            }
        } else {
            let n = if op == Opcode::Ifu { 1 } else { 2 };
            self.want(args, n, col)?;
            let (b, neg) = self.bool_reg(args[0])?;
            if neg && op != Opcode::Jmpu {
                return Err(self.err(self.col(args[0]), "only jmpu can test !bN"));
            }
            (b, neg as u8)
        };
        match op {
            Opcode::Loop => self.stack.push(Block::For { at }),
            Opcode::Ifu => self.stack.push(Block::If { at, else_at: None }),
            Opcode::Jmpu => self.file_state.label_relocs.push((
                at,
                args[1].to_string(),
                (self.line, self.col(args[1])),
            )),
            _ => self.proc_relocs.push((at, args[1].to_string(), here)),
        }
        self.push(
            Instr::UniformFlow {
                op,
                id,
                dst: 0,
                num,
            },
            col,
        );
        Ok(())
    }

    fn set_dst(&mut self, at: usize, dst: usize) {
        match &mut self.instrs[at] {
            Instr::CondFlow { dst: d, .. } | Instr::UniformFlow { dst: d, .. } => *d = dst as u16,
            _ => {}
        }
    }
    fn set_num(&mut self, at: usize, num: usize) {
        match &mut self.instrs[at] {
            Instr::CondFlow { num: n, .. } | Instr::UniformFlow { num: n, .. } => *n = num as u8,
            _ => {}
        }
    }

    /// Inserts the automatic NOP of §9 before closing a block whose body started at `start`.
    fn close_block(&mut self, start: usize, is_for: bool, col: usize) {
        let here = self.instrs.len();
        let last = if here > start {
            Some(self.instrs[here - 1].opcode())
        } else {
            None
        };
        let need = match last {
            None => true,
            Some(op) => {
                matches!(
                    op,
                    Opcode::Jmpc | Opcode::Jmpu | Opcode::Call | Opcode::Callc | Opcode::Callu
                ) || (is_for && matches!(op, Opcode::Break | Opcode::Breakc))
                    || self.last_block_end == Some(here)
            }
        };
        if need {
            self.push(Instr::NOP, col);
        }
    }

    // ------------------------------------------------------------------ finishing

    fn finish_file(&mut self) -> Result<(), AsmError> {
        if !self.stack.is_empty() {
            return Err(self.err(1, "unclosed block(s) at end of file"));
        }
        let relocs = std::mem::take(&mut self.file_state.label_relocs);
        for (at, name, (line, col)) in relocs {
            let Some(&t) = self.file_state.labels.get(&name) else {
                return Err(AsmError {
                    file: self.file,
                    line,
                    col,
                    msg: format!("label `{name}` is undefined"),
                });
            };
            self.set_dst(at, t);
        }
        let fs = std::mem::take(&mut self.file_state);
        if !fs.nodvle {
            if let Some(d) = fs.dvle {
                let entry = fs.entry.unwrap_or_else(|| "main".to_string());
                self.dvles.push((d, entry, (self.file, self.line, 1)));
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Shbin, AsmError> {
        let relocs = std::mem::take(&mut self.proc_relocs);
        for (at, name, (file, line, col)) in relocs {
            let Some(&(start, len)) = self.procs.get(&name) else {
                return Err(AsmError {
                    file,
                    line,
                    col,
                    msg: format!("procedure `{name}` is undefined"),
                });
            };
            self.set_dst(at, start);
            self.set_num(at, len);
        }
        let mut table = OpdescTable::new();
        let (code, _) = encode_with_table(&self.instrs, &mut table).map_err(|e| {
            let at = match &e {
                crate::encode::EncodeError::Operand { at, .. } => *at,
                _ => 0,
            };
            let (file, line, col) = self.pos.get(at).copied().unwrap_or((0, 0, 0));
            AsmError {
                file,
                line,
                col,
                msg: e.to_string(),
            }
        })?;
        let mut dvles = Vec::new();
        for (mut d, entry, (file, line, col)) in self.dvles {
            let Some(&(start, len)) = self.procs.get(&entry) else {
                return Err(AsmError {
                    file,
                    line,
                    col,
                    msg: format!("entry point `{entry}` is undefined"),
                });
            };
            d.main = start as u32;
            d.endmain = (start + len) as u32;
            dvles.push(d);
        }
        Ok(Shbin {
            code,
            opdescs: table.entries,
            dvles,
        })
    }
}
