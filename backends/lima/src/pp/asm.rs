//! The PP assembler: text in the disassembler's syntax (the grammar in [`super::disasm`]'s doc) →
//! [`Instruction`]s ready for [`super::encode::encode_program`].
//!
//! # Accepted text
//!
//! Exactly what `disassemble_program` prints, plus:
//! * Mesa's spellings: `^v0` / `^s0` for the mul_in operand of the add units (= `^vmul` / `^fmul`), an omitted
//!   destination for a pipeline-only mul or a dest-less add (= `^vmul` / `^fmul` / `_`), `$12.x`…`$15.w` and
//!   `$12`…`$15` as destinations (= the codes our disassembler prints as `^const0.x`…), `texld.2d` (old Mesa
//!   name of the generic type), `load..u1` (Mesa's text for uniform source 1);
//! * `# comment` to the end of a line; a line ending in `,` continues on the next one (seed syntax);
//! * `label:` on a line of its own, usable as a branch target instead of an absolute word offset.
//!
//! The `@OFFSET:` prefix is accepted and its value ignored (offsets follow from the instruction sizes).
//! Units must appear in field order (varying, sampler, uniform, `.v0`, `.s0`, `.v1`, `.s1`, `.s2`, temp write,
//! branch, const0, const1), then `sync` / `stop`.
//!
//! # What the text does not say, and what the assembler fills in
//!
//! Fields the disassembler does not print get the values Mesa's encoder writes: all-zero bits for an unused
//! scalar operand; an unused vec4 operand is `$0` with arg0's swizzle (see `unused_vsrc`: this reproduces both
//! §17 vectors); dest 0 behind `^vmul`/`^fmul`/`_`, `^vmul`/`^fmul`
//! operands register code 0, sampler bias/offset registers 0 when not enabled, branch operands 0 when
//! unconditional, unknown fields = [`super::isa::unknown_defaults`] (sampler 0x39001, fb_read selector). Varying
//! alignment for `IDX` is 3 (vec3/vec4; 2 prints the same). `gl_FragCoord`/`gl_PointCoord`/`gl_FrontFacing`
//! get index 0, no offset, and the alignment of their mask's width (1 → 0, 2 → 1, 3/4 → 3). Control and
//! branch `next_count`, `count`, `fields`, `prefetch` come from [`link_program`]. Constants are rounded to
//! the nearest fp16; `nan`/`-nan` are 0x7E00/0xFE00.
//!
//! Errors carry line:column, the source line and a caret, and say what was expected. No input panics.

use std::collections::HashMap;
use std::fmt;

use super::encode::{encode_program, link_program, EncodeError};
use super::instr::*;
use super::isa::*;
use alu::parse_unit;
use operands::{words, PErr, R};

/// An assembly error: 1-based `line` and `column` (in characters), the offending source line, and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    pub line: usize,
    pub column: usize,
    pub source_line: String,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pad: String = self
            .source_line
            .chars()
            .take(self.column.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(
            f,
            "{}:{}: {}\n{}\n{pad}^",
            self.line, self.column, self.message, self.source_line
        )
    }
}

impl std::error::Error for AsmError {}

/// Assembles a program.
pub fn assemble(text: &str) -> Result<Vec<Instruction>, AsmError> {
    let phys: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let lines = logical_lines(&phys);
    let mut program = Vec::new();
    let mut sites: Vec<(usize, usize)> = Vec::new(); // (logical line, byte) of each instruction
    let mut targets: Vec<(usize, Target, usize, usize)> = Vec::new(); // (instr, target, line, byte)
    let mut labels: HashMap<String, usize> = HashMap::new();
    for (li, l) in lines.iter().enumerate() {
        let fail = |e: PErr| l.error(&phys, e);
        let trimmed = l.text.trim_start();
        let start = l.text.len() - trimmed.len();
        if let Some(name) = label(trimmed) {
            if labels.insert(name.to_string(), program.len()).is_some() {
                return Err(fail(PErr::new(
                    start,
                    format!("label `{name}` defined twice"),
                )));
            }
            continue;
        }
        let (instr, target) = parse_line(&l.text).map_err(fail)?;
        if let Some((t, at)) = target {
            targets.push((program.len(), t, li, at));
        }
        sites.push((li, start));
        program.push(instr);
    }
    // Resolve branch targets to instruction-relative word offsets.
    let mut offsets = Vec::with_capacity(program.len() + 1);
    let mut off = 0i64;
    for i in &program {
        offsets.push(off);
        off += i64::from(instr_words(super::encode::presence_mask(i)));
    }
    offsets.push(off);
    for (idx, t, li, at) in targets {
        let fail = |msg: String| lines[li].error(&phys, PErr::new(at, msg));
        let abs = match t {
            Target::Abs(a) => a,
            Target::Label(name) => match labels.get(&name) {
                Some(&i) => offsets[i],
                None => return Err(fail(format!("unknown label `{name}`"))),
            },
        };
        let rel = i32::try_from(abs - offsets[idx])
            .map_err(|_| fail("branch target out of range".to_string()))?;
        if let Some(Branch::Branch { target, .. }) = &mut program[idx].branch {
            *target = rel;
        }
        if offsets.binary_search(&abs).is_err() || abs == off {
            return Err(fail(format!(
                "expected the word offset of an instruction (they are {}), found {abs}",
                list_offsets(&offsets)
            )));
        }
    }
    let located = |index: usize, msg: String| {
        let (li, at) = sites.get(index).copied().unwrap_or((0, 0));
        match lines.get(li) {
            Some(l) => l.error(&phys, PErr::new(at, msg)),
            None => AsmError {
                line: 1,
                column: 1,
                source_line: String::new(),
                message: msg,
            },
        }
    };
    link_program(&mut program).map_err(|e| located(error_index(&e), e.to_string()))?;
    encode_program(&program).map_err(|e| located(error_index(&e), e.to_string()))?;
    Ok(program)
}

fn list_offsets(offsets: &[i64]) -> String {
    let shown: Vec<String> = offsets[..offsets.len() - 1]
        .iter()
        .take(8)
        .map(|o| o.to_string())
        .collect();
    let more = if offsets.len() > 9 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

fn error_index(e: &EncodeError) -> usize {
    match *e {
        EncodeError::DoesNotFit { index, .. }
        | EncodeError::Invalid { index, .. }
        | EncodeError::UnknownBits { index, .. }
        | EncodeError::Control { index, .. }
        | EncodeError::Empty { index }
        | EncodeError::BranchTarget { index, .. } => index,
    }
}

/// `name:` alone on a line.
pub(super) fn label(s: &str) -> Option<&str> {
    let name = s.trim_end().strip_suffix(':')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

mod alu;
mod operands;
mod units;

/// Physical lines joined by trailing commas, comments removed, with a map back to physical positions.
struct Logical {
    text: String,
    /// (byte in `text`, physical line index, byte in the physical line) of each joined piece.
    segs: Vec<(usize, usize, usize)>,
}

impl Logical {
    fn error(&self, phys: &[&str], e: PErr) -> AsmError {
        let &(seg_at, line, start) = self
            .segs
            .iter()
            .rev()
            .find(|s| s.0 <= e.at)
            .unwrap_or(&(0, 0, 0));
        let src = phys.get(line).copied().unwrap_or("");
        let byte = (start + (e.at - seg_at)).min(src.len());
        let column = src
            .get(..byte)
            .map_or(src.chars().count(), |p| p.chars().count())
            + 1;
        AsmError {
            line: line + 1,
            column,
            source_line: src.to_string(),
            message: e.msg,
        }
    }
}

fn logical_lines(phys: &[&str]) -> Vec<Logical> {
    let mut out = Vec::new();
    let mut cur: Option<Logical> = None;
    for (i, line) in phys.iter().enumerate() {
        let content = line.find('#').map_or(*line, |c| &line[..c]);
        if content.trim().is_empty() {
            continue; // blank and comment-only lines neither start nor end an instruction
        }
        let l = cur.get_or_insert_with(|| Logical {
            text: String::new(),
            segs: Vec::new(),
        });
        if !l.text.is_empty() {
            l.text.push(' ');
        }
        l.segs.push((l.text.len(), i, 0));
        l.text.push_str(content);
        if !content.trim_end().ends_with(',') {
            out.extend(cur.take());
        }
    }
    out.extend(cur);
    out
}

/// A branch target as written.
#[derive(Debug)]
pub(super) enum Target {
    Abs(i64),
    Label(String),
}

/// Parses one instruction line (after `@N:` handling).
fn parse_line(text: &str) -> R<(Instruction, Option<(Target, usize)>)> {
    let mut body = text;
    let mut base = 0;
    let t = text.trim_start();
    if let Some(rest) = t.strip_prefix('@') {
        let at = text.len() - rest.len();
        let colon = rest
            .find(':')
            .ok_or_else(|| PErr::new(at, "expected `@OFFSET:`".into()))?;
        if rest[..colon].is_empty() || !rest[..colon].bytes().all(|b| b.is_ascii_digit()) {
            return Err(PErr::new(at, "expected a word offset after `@`".into()));
        }
        base = at + colon + 1;
        body = &text[base..];
    }
    let mut instr = Instruction::empty();
    let mut target = None;
    let mut last: Option<(usize, &str)> = None;
    let mut piece_at = base;
    for piece in body.split(',') {
        let ws = words(piece, piece_at);
        let piece_start = piece_at;
        piece_at += piece.len() + 1;
        let Some((mn, ops)) = ws.split_first() else {
            return Err(PErr::new(
                piece_start,
                "expected a unit (an opcode) here".into(),
            ));
        };
        let (rank, item) = parse_unit(*mn, ops, &mut instr)?;
        if let Some(t) = item {
            target = Some(t);
        }
        if let Some((prev, name)) = last {
            if rank <= prev && !(rank >= 12 && prev >= 12 && rank != prev) {
                let why = if rank == prev {
                    "appears twice"
                } else {
                    "is out of order"
                };
                return Err(PErr::new(
                    mn.at,
                    format!(
                        "`{}` {why}: units go in field order (this one must come before `{name}`)",
                        mn.s
                    ),
                ));
            }
        }
        last = Some((rank, mn.s));
    }
    instr.canonicalize_unused();
    Ok((instr, target))
}
