//! Decoded program → picasso assembly (§14) that [`crate::asm`] reassembles to the same words
//! and descriptors (up to descriptor bits no instruction reads).
//!
//! # Structure recovery
//!
//! * **Procedures**: the code is cut at every entry point, every CALL/CALLC/CALLU target and
//!   target end; each piece becomes a `.proc` (`main` for the entry, `sub_<addr>` for called
//!   pieces, `proc_<addr>` for the rest).
//! * **Blocks**: IFU/IFC become `ifu`/`ifc` … [`.else`] … `.end`, LOOP becomes `for` … `.end`,
//!   when their bodies nest properly inside the procedure; JMPC/JMPU targets get labels
//!   `l_<addr>`.
//! * **Automatic NOPs**: a NOP the assembler would insert by itself (§9) is left out of the text.
//!
//! When the code cannot be written this way (blocks straddling each other or a procedure, a
//! block end the assembler would pad with a NOP that is not there, a call whose target is not a
//! procedure), the structure is dropped: flow-control words are written as `.word 0x…` (an
//! extension of our assembler) inside plain procedures. Conditions and flags outside picasso's
//! vocabulary are written as `.word` too.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::decode::{decode_program, DecodeError};
use crate::encode::encode_instr;
use crate::float24;
use crate::instr::{Cond, Dst, DstReg, Instr, Mask, Src, SrcReg, Swizzle};
use crate::isa::{AddrIndex, CondOp, Opcode};
use crate::shbin::{semantic, ConstValue, Shbin};

fn comp_char(c: usize) -> char {
    b"xyzw"[c & 3] as char
}

/// `.xyz`-style suffix of a swizzle, shortest form that re-parses to it ("" for identity).
pub fn swizzle_suffix(s: Swizzle) -> String {
    if s == Swizzle::IDENTITY {
        return String::new();
    }
    let c = s.comps();
    let mut n = 4;
    while n > 1 && c[n - 1] == c[n - 2] {
        n -= 1;
    }
    let mut out = String::from(".");
    out.extend(c[..n].iter().map(|&x| comp_char(x)));
    out
}

/// `.xz`-style suffix of a destination mask ("" for `.xyzw`, `._` for an empty mask).
pub fn mask_suffix(m: Mask) -> String {
    match m.0 & 0xF {
        0xF => String::new(),
        0 => "._".to_string(),
        _ => {
            let mut s = String::from(".");
            s.extend((0..4).filter(|&i| m.has(i)).map(comp_char));
            s
        }
    }
}

fn src_reg(r: SrcReg) -> String {
    match r {
        SrcReg::Input(n) => format!("v{n}"),
        SrcReg::Temp(n) => format!("r{n}"),
        SrcReg::Const(n) => format!("c{n}"),
    }
}

/// A source operand; `index` is printed as `[a0.x]` / `[aL]`.
pub fn format_src(s: &Src, index: AddrIndex) -> String {
    let idx = match index {
        AddrIndex::None => String::new(),
        i => format!("[{}]", i.name()),
    };
    format!(
        "{}{}{idx}{}",
        if s.negate { "-" } else { "" },
        src_reg(s.reg),
        swizzle_suffix(s.swizzle)
    )
}

fn format_dst(d: &Dst) -> String {
    let r = match d.reg {
        DstReg::Output(n) => format!("o{n}"),
        DstReg::Temp(n) => format!("r{n}"),
    };
    format!("{r}{}", mask_suffix(d.mask))
}

/// picasso's spelling of a condition, if it has one.
pub fn format_cond(c: Cond) -> Option<String> {
    let x = |v: bool| if v { "cmp.x" } else { "!cmp.x" };
    let y = |v: bool| if v { "cmp.y" } else { "!cmp.y" };
    Some(match c.op {
        CondOp::X if c.refy => x(c.refx).to_string(),
        CondOp::Y if c.refx => y(c.refy).to_string(),
        CondOp::And => format!("{} && {}", x(c.refx), y(c.refy)),
        CondOp::Or => format!("{} || {}", x(c.refx), y(c.refy)),
        _ => return None,
    })
}

fn wide_is_auto(s: &Src, index: AddrIndex) -> bool {
    matches!(s.reg, SrcReg::Const(_)) || index != AddrIndex::None
}

/// One instruction that needs no label or procedure name; `None` for flow control with
/// targets (see [`disassemble_program`]).
pub fn format_instr(ins: &Instr) -> Option<String> {
    Some(match *ins {
        Instr::Plain(op) => op.mnemonic().to_string(),
        Instr::Binary {
            op,
            dst,
            src1,
            src2,
            index,
        } => {
            let inv = op.is_inverted();
            let (i1, i2) = if inv {
                (AddrIndex::None, index)
            } else {
                (index, AddrIndex::None)
            };
            // The assembler picks the inverted form by itself when SRC2 is wide.
            let name = if inv && wide_is_auto(&src2, index) {
                op.plain().mnemonic()
            } else {
                op.mnemonic()
            };
            format!(
                "{name} {}, {}, {}",
                format_dst(&dst),
                format_src(&src1, i1),
                format_src(&src2, i2)
            )
        }
        Instr::Unary {
            op,
            dst,
            src,
            index,
        } => format!(
            "{} {}, {}",
            op.mnemonic(),
            format_dst(&dst),
            format_src(&src, index)
        ),
        Instr::Mova { mask, src, index } => {
            let m = match mask_suffix(mask).as_str() {
                "" => ".xyzw".to_string(),
                m => m.to_string(),
            };
            format!("mova a0{m}, {}", format_src(&src, index))
        }
        Instr::Cmp {
            src1,
            x,
            y,
            src2,
            index,
        } => format!(
            "cmp {}, {}, {}, {}",
            format_src(&src1, index),
            x.name(),
            y.name(),
            format_src(&src2, AddrIndex::None)
        ),
        Instr::Mad {
            inverted,
            dst,
            src1,
            src2,
            src3,
            index,
        } => {
            let (i2, i3) = if inverted {
                (AddrIndex::None, index)
            } else {
                (index, AddrIndex::None)
            };
            let name = if inverted && !wide_is_auto(&src3, index) {
                "madi"
            } else {
                "mad"
            };
            format!(
                "{name} {}, {}, {}, {}",
                format_dst(&dst),
                format_src(&src1, AddrIndex::None),
                format_src(&src2, i2),
                format_src(&src3, i3)
            )
        }
        Instr::SetEmit {
            vertex,
            primitive,
            winding,
        } => {
            let flags: Vec<&str> = [(primitive, "prim"), (winding, "inv")]
                .iter()
                .filter(|f| f.0)
                .map(|f| f.1)
                .collect();
            if flags.is_empty() {
                format!("setemit {vertex}")
            } else {
                format!("setemit {vertex}, {}", flags.join(" "))
            }
        }
        Instr::CondFlow {
            op: Opcode::Breakc,
            cond,
            dst: 0,
            num: 0,
        } => format!("breakc {}", format_cond(cond)?),
        Instr::CondFlow { .. } | Instr::UniformFlow { .. } => return None,
    })
}

fn raw(ins: &Instr) -> String {
    let w = encode_instr(0, ins, 0).unwrap_or(0);
    format!(".word {w:#010x}")
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    If { else_at: Option<usize> },
    For,
}

#[derive(Clone, Copy, Debug)]
struct Block {
    at: usize,
    end: usize,
    kind: Kind,
}

/// Disassembles code words + descriptors whose entry point is word `entry`.
pub fn disassemble(words: &[u32], descs: &[u32], entry: usize) -> Result<String, DecodeError> {
    let prog = decode_program(words, descs)?;
    Ok(disassemble_program(&prog, &[(entry, None)]))
}

/// Disassembles a program; `entries` are (entry address, entry end if known). The first entry
/// is named `main`, others `main<k>`.
pub fn disassemble_program(prog: &[Instr], entries: &[(usize, Option<usize>)]) -> String {
    let mut out = String::new();
    for (i, text) in disassemble_parts(prog, entries, &[0, prog.len()])
        .iter()
        .enumerate()
    {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

/// Cuts `[bounds[k], bounds[k+1])` into one text each.
fn disassemble_parts(
    prog: &[Instr],
    entries: &[(usize, Option<usize>)],
    bounds: &[usize],
) -> Vec<String> {
    let n = prog.len();
    // Procedure pieces.
    let mut cuts: BTreeSet<usize> = bounds.iter().copied().filter(|&b| b <= n).collect();
    cuts.insert(0);
    cuts.insert(n);
    let mut called: BTreeMap<(usize, usize), ()> = BTreeMap::new();
    for (e, end) in entries {
        cuts.insert((*e).min(n));
        if let Some(end) = end {
            cuts.insert((*end).min(n));
        }
    }
    for ins in prog {
        if let Instr::CondFlow {
            op: Opcode::Call | Opcode::Callc,
            dst,
            num,
            ..
        }
        | Instr::UniformFlow {
            op: Opcode::Callu,
            dst,
            num,
            ..
        } = *ins
        {
            let (s, e) = (dst as usize, dst as usize + num as usize);
            if e <= n {
                cuts.insert(s);
                cuts.insert(e);
                called.insert((s, e), ());
            }
        }
    }
    let cuts: Vec<usize> = cuts.into_iter().collect();
    let pieces: Vec<(usize, usize)> = cuts
        .windows(2)
        .map(|w| (w[0], w[1]))
        .filter(|(a, b)| a < b)
        .collect();
    let piece_name = |s: usize| -> String {
        match entries.iter().position(|(e, _)| *e == s) {
            Some(0) => "main".to_string(),
            Some(k) => format!("main{k}"),
            None if called.keys().any(|(a, _)| *a == s) => format!("sub_{s}"),
            None => format!("proc_{s}"),
        }
    };
    let piece_of = |s: usize, e: usize| pieces.contains(&(s, e));

    // Blocks, validated against the pieces.
    let mut blocks = Vec::new();
    let mut structured = true;
    for (pc, ins) in prog.iter().enumerate() {
        let piece = pieces.iter().find(|(a, b)| *a <= pc && pc < *b).copied();
        let Some((_, pend)) = piece else { continue };
        let b = match *ins {
            Instr::CondFlow {
                op: Opcode::Ifc,
                dst,
                num,
                ..
            }
            | Instr::UniformFlow {
                op: Opcode::Ifu,
                dst,
                num,
                ..
            } => {
                let (d, e) = (dst as usize, dst as usize + num as usize);
                if d > pc && e <= pend && (num == 0 || d < e) {
                    Some(Block {
                        at: pc,
                        end: e,
                        kind: Kind::If {
                            else_at: (num > 0).then_some(d),
                        },
                    })
                } else {
                    None
                }
            }
            Instr::UniformFlow {
                op: Opcode::Loop,
                dst,
                num: 0,
                ..
            } => {
                let e = dst as usize + 1;
                (e > pc + 1 && e <= pend).then_some(Block {
                    at: pc,
                    end: e,
                    kind: Kind::For,
                })
            }
            Instr::UniformFlow {
                op: Opcode::Loop, ..
            } => None,
            _ => continue,
        };
        match b {
            Some(b) => blocks.push(b),
            None => structured = false,
        }
    }
    // Proper nesting (an inner block lies inside one arm of an if).
    for a in &blocks {
        for b in &blocks {
            if a.at < b.at && b.at < a.end {
                let inside = b.end <= a.end
                    && match a.kind {
                        Kind::If { else_at: Some(e) } => b.end <= e || b.at >= e,
                        _ => true,
                    };
                if !inside {
                    structured = false;
                }
            }
        }
    }
    // Calls must name pieces; the NOP rules must reproduce the code.
    for ins in prog {
        if let Instr::CondFlow {
            op: Opcode::Call | Opcode::Callc,
            dst,
            num,
            ..
        }
        | Instr::UniformFlow {
            op: Opcode::Callu,
            dst,
            num,
            ..
        } = *ins
        {
            if !piece_of(dst as usize, dst as usize + num as usize) {
                structured = false;
            }
        }
    }
    if !structured {
        blocks.clear();
    }
    if !closes_consistent(prog, &pieces, &blocks) {
        // Without blocks only procedure ends remain; they are checked again when printing.
        blocks.clear();
        structured = false;
    }

    // Labels of jumps.
    let mut labels = BTreeSet::new();
    for ins in prog {
        if let Instr::CondFlow {
            op: Opcode::Jmpc,
            dst,
            ..
        }
        | Instr::UniformFlow {
            op: Opcode::Jmpu,
            dst,
            ..
        } = *ins
        {
            labels.insert(dst as usize);
        }
    }

    let mut texts = Vec::new();
    for w in bounds.windows(2) {
        let (lo, hi) = (w[0], w[1].min(n));
        let mut t = String::new();
        for &(ps, pe) in pieces.iter().filter(|(a, _)| *a >= lo && *a < hi) {
            print_piece(
                &mut t,
                prog,
                (ps, pe),
                &blocks,
                &labels,
                structured,
                &piece_name,
            );
        }
        if hi == n && labels.contains(&n) {
            let _ = writeln!(t, "l_{n}:");
        }
        texts.push(t);
    }
    texts
}

fn is_jump_or_call(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Jmpc | Opcode::Jmpu | Opcode::Call | Opcode::Callc | Opcode::Callu
    )
}

/// Whether the assembler inserts a NOP when closing a body `[start, here)` whose last
/// instruction is `prog[here - 1]`; `inner_end` tells whether a block closed at `here`.
fn rule_applies(prog: &[Instr], start: usize, here: usize, is_for: bool, inner_end: bool) -> bool {
    if here <= start {
        return true;
    }
    let op = prog[here - 1].opcode();
    is_jump_or_call(op) || (is_for && matches!(op, Opcode::Break | Opcode::Breakc)) || inner_end
}

/// Every body end (procedure, if arm, loop): either the rule does not apply to its last
/// instruction, or the last instruction is a NOP whose omission the rule restores.
fn closes_consistent(prog: &[Instr], pieces: &[(usize, usize)], blocks: &[Block]) -> bool {
    let ends_at = |e: usize, except: usize| blocks.iter().any(|b| b.end == e && b.at != except);
    let mut bodies: Vec<(usize, usize, bool, usize)> = Vec::new();
    for &(s, e) in pieces {
        bodies.push((s, e, false, usize::MAX));
    }
    for b in blocks {
        match b.kind {
            Kind::For => bodies.push((b.at + 1, b.end, true, b.at)),
            Kind::If { else_at: None } => bodies.push((b.at + 1, b.end, false, b.at)),
            Kind::If { else_at: Some(d) } => {
                bodies.push((b.at + 1, d, false, b.at));
                bodies.push((d, b.end, false, b.at));
            }
        }
    }
    bodies.iter().all(|&(s, e, is_for, own)| {
        if e <= s {
            return false;
        }
        if prog[e - 1] == Instr::NOP {
            return true;
        }
        !rule_applies(prog, s, e, is_for, ends_at(e, own))
    })
}

fn print_piece(
    t: &mut String,
    prog: &[Instr],
    (ps, pe): (usize, usize),
    blocks: &[Block],
    labels: &BTreeSet<usize>,
    structured: bool,
    piece_name: &dyn Fn(usize) -> String,
) {
    // In unstructured code a procedure may end in a word the assembler would pad with a NOP
    // that is not there: end the procedure before such words and write them after `.end`
    // (the words stay where they are; only the procedure's length shrinks).
    let full_end = pe;
    let mut pe = pe;
    while pe > ps && prog[pe - 1] != Instr::NOP && rule_applies(prog, ps, pe, false, false) {
        pe -= 1;
    }
    if pe > ps {
        let _ = writeln!(t, ".proc {}", piece_name(ps));
    }
    let mut open: Vec<Block> = Vec::new();
    let mut last_end: Option<usize> = None;
    let indent = |d: usize| "    ".repeat(d + 1);
    for pc in ps..pe {
        // Closes and else transitions at `pc`.
        while let Some(b) = open.last().copied() {
            if b.end == pc {
                open.pop();
                let _ = writeln!(t, "{}.end", indent(open.len()));
                last_end = Some(pc);
            } else if let Kind::If { else_at: Some(e) } = b.kind {
                if e == pc {
                    let _ = writeln!(t, "{}.else", indent(open.len() - 1));
                    // Mark as transitioned so it is printed once.
                    if let Some(top) = open.last_mut() {
                        top.kind = Kind::If { else_at: None };
                    }
                }
                break;
            } else {
                break;
            }
        }
        if labels.contains(&pc) {
            let _ = writeln!(t, "l_{pc}:");
        }
        let ins = &prog[pc];
        // Omit a NOP that the assembler re-inserts when closing the body ending after it.
        if *ins == Instr::NOP {
            let closing = match open.last() {
                Some(b) => {
                    let arm_end = match b.kind {
                        Kind::If { else_at: Some(e) } if pc < e => e,
                        _ => b.end,
                    };
                    (arm_end == pc + 1).then(|| {
                        let start = match b.kind {
                            Kind::If { else_at: None } if pc > b.at => {
                                // Either the then-arm or (after `.else`) the else-arm.
                                blocks
                                    .iter()
                                    .find(|x| x.at == b.at)
                                    .and_then(|x| match x.kind {
                                        Kind::If { else_at: Some(e) } if pc >= e => Some(e),
                                        _ => None,
                                    })
                                    .unwrap_or(b.at + 1)
                            }
                            _ => b.at + 1,
                        };
                        (start, b.kind == Kind::For)
                    })
                }
                None => (pe == pc + 1).then_some((ps, false)),
            };
            if let Some((start, is_for)) = closing {
                if rule_applies(prog, start, pc, is_for, last_end == Some(pc)) {
                    continue;
                }
            }
        }
        let d = open.len();
        let text = match *ins {
            Instr::CondFlow {
                op: op @ (Opcode::Ifc | Opcode::Call | Opcode::Callc | Opcode::Jmpc),
                cond,
                dst,
                num,
            } if structured || op == Opcode::Jmpc => {
                let c = format_cond(cond);
                match (op, c) {
                    (Opcode::Ifc, Some(c)) => format!("ifc {c}"),
                    (Opcode::Call, _)
                        if cond
                            == (Cond {
                                op: CondOp::Or,
                                refx: false,
                                refy: false,
                            }) =>
                    {
                        format!("call {}", piece_name(dst as usize))
                    }
                    (Opcode::Callc, Some(c)) => format!("callc {c}, {}", piece_name(dst as usize)),
                    (Opcode::Jmpc, Some(c)) if num == 0 => format!("jmpc {c}, l_{dst}"),
                    _ => raw(ins),
                }
            }
            Instr::UniformFlow {
                op: op @ (Opcode::Ifu | Opcode::Loop | Opcode::Callu | Opcode::Jmpu),
                id,
                dst,
                num,
            } if structured || op == Opcode::Jmpu => match op {
                Opcode::Ifu => format!("ifu b{id}"),
                Opcode::Loop => format!("for i{id}"),
                Opcode::Callu => format!("callu b{id}, {}", piece_name(dst as usize)),
                _ if num <= 1 => {
                    format!("jmpu {}b{id}, l_{dst}", if num == 1 { "!" } else { "" })
                }
                _ => raw(ins),
            },
            _ => format_instr(ins).unwrap_or_else(|| raw(ins)),
        };
        let _ = writeln!(t, "{}{text}", indent(d));
        if structured {
            if let Some(b) = blocks.iter().find(|b| b.at == pc) {
                open.push(*b);
            }
        }
    }
    while let Some(_b) = open.pop() {
        let _ = writeln!(t, "{}.end", indent(open.len()));
    }
    if pe > ps {
        let _ = writeln!(t, ".end");
    }
    for (pc, ins) in prog.iter().enumerate().take(full_end).skip(pe) {
        if labels.contains(&pc) {
            let _ = writeln!(t, "l_{pc}:");
        }
        let _ = writeln!(t, "    {}", format_instr(ins).unwrap_or_else(|| raw(ins)));
    }
}

/// Disassembles a SHBIN: one text per DVLE with its directives (`.gsh`, `.fvec`/`.ivec`/`.bool`
/// in register order, `.constf`/`.consti`/`.setb`, `.in`, `.out`, `.entry`) and the procedures
/// from its entry point up to the next DVLE's entry point (all code goes to the first text
/// when the entry points are not in increasing order).
pub fn disassemble_shbin(shbin: &Shbin) -> Result<Vec<String>, DecodeError> {
    let prog = decode_program(&shbin.code, &shbin.opdescs)?;
    let n = prog.len();
    let entries: Vec<(usize, Option<usize>)> = shbin
        .dvles
        .iter()
        .map(|d| (d.main as usize, Some(d.endmain as usize)))
        .collect();
    let mut bounds = vec![0];
    let increasing = shbin
        .dvles
        .windows(2)
        .all(|w| w[0].main < w[1].main && w[1].main as usize <= n);
    if increasing {
        bounds.extend(shbin.dvles.iter().skip(1).map(|d| d.main as usize));
    } else {
        bounds.extend(std::iter::repeat_n(n, shbin.dvles.len().saturating_sub(1)));
    }
    bounds.push(n);
    let parts = disassemble_parts(&prog, &entries, &bounds);
    let mut texts = Vec::new();
    for (k, (d, code)) in shbin.dvles.iter().zip(parts).enumerate() {
        let mut t = String::new();
        if d.kind == crate::shbin::ShaderType::Geometry {
            // The first GS float uniform is where picasso started allocating (`.gsh … cN`).
            let first = d
                .uniforms
                .iter()
                .filter(|u| (0x10..0x70).contains(&u.first))
                .map(|u| u.first - 0x10)
                .min()
                .unwrap_or(0);
            let _ = match d.gs_mode {
                1 => writeln!(t, ".gsh variable c{first} {}", d.gs_variable_num),
                2 => writeln!(
                    t,
                    ".gsh fixed c{first} c{} {}",
                    d.gs_fixed_start, d.gs_fixed_num
                ),
                _ => writeln!(t, ".gsh point c{first}"),
            };
        }
        let mut unif = d.uniforms.clone();
        unif.sort_by_key(|u| u.first);
        for u in &unif {
            let size = u32::from(u.last.saturating_sub(u.first)) + 1;
            let arr = if size > 1 {
                format!("[{size}]")
            } else {
                String::new()
            };
            let _ = match u.first {
                0x00..=0x0F => writeln!(t, ".in {} v{}", u.name, u.first),
                0x10..=0x6F => writeln!(t, ".fvec {}{arr}", u.name),
                0x70..=0x77 => writeln!(t, ".ivec {}{arr}", u.name),
                _ => writeln!(t, ".bool {}{arr}", u.name),
            };
        }
        for c in &d.constants {
            let _ = match c.value {
                ConstValue::Float(v) => writeln!(
                    t,
                    ".setf c{}({})",
                    c.reg,
                    v.map(|x| format!("{:?}", float24::to_f32(x) as f64))
                        .join(", ")
                ),
                ConstValue::Int(v) => writeln!(
                    t,
                    ".seti i{}({})",
                    c.reg,
                    v.map(|x| x.to_string()).join(", ")
                ),
                ConstValue::Bool(b) => writeln!(t, ".setb b{} {b}", c.reg),
            };
        }
        for o in &d.outputs {
            let mask: String = (0..4)
                .filter(|i| o.mask & (1 << i) != 0)
                .map(comp_char)
                .collect();
            let sem = semantic::name(o.semantic).unwrap_or("dummy");
            let m = if o.mask == 0xF {
                String::new()
            } else {
                format!(".{mask}")
            };
            let _ = writeln!(t, ".out - {sem}{m} o{}", o.reg);
        }
        if k > 0 {
            let _ = writeln!(t, ".entry main{k}");
        }
        t.push_str(&code);
        texts.push(t);
    }
    Ok(texts)
}

/// Debug spelling of one instruction: picasso syntax, flow control with raw operands
/// (`ifu b0 @12 +1`, `call @30 +4`, `jmpc cmp.x @7`).
impl std::fmt::Display for Instr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(t) = format_instr(self) {
            return f.write_str(&t);
        }
        match *self {
            Instr::CondFlow { op, cond, dst, num } => {
                let c = format_cond(cond).unwrap_or_else(|| format!("{cond:?}"));
                match op {
                    Opcode::Call => write!(f, "call @{dst} +{num}"),
                    _ => write!(f, "{} {c} @{dst} +{num}", op.mnemonic()),
                }
            }
            Instr::UniformFlow { op, id, dst, num } => {
                let r = if op == Opcode::Loop { 'i' } else { 'b' };
                write!(f, "{} {r}{id} @{dst} +{num}", op.mnemonic())
            }
            _ => f.write_str(&raw(self)),
        }
    }
}
