//! Text in AGALMiniAssembler syntax (§8) → [`Program`]; reads everything
//! [`crate::disasm`] prints (so `assemble ∘ disassemble` is the identity on bytes).
//!
//! # Accepted text
//!
//! * `//` comments; blank lines; one instruction per line.
//! * `.agal vertex|fragment VERSION` sets the header (required by [`assemble`], optional with
//!   [`assemble_as`], which takes the mini-assembler's `mode` and `version` arguments).
//! * `op dest, src1, src2`: operands separated by commas and/or blanks.
//! * Register names of both stages in either stage (`va vc fc vt ft op vo oc fo v vi i fi fs vs
//!   fd od iid`); a missing number is 0 (`op`, `oc`). Roles, stages and limits are the
//!   validator's business ([`crate::validate`]), not the assembler's.
//! * Destination masks (`.xz`, `.-` for none); source swizzles of 1–4 lanes padded by repeating
//!   the last; indirect sources `vc[va0.x+5]` (offset 0..255).
//! * Sampler options `<…>`, comma separated, in any order: dimension, filter, wrap, mipmap,
//!   format, flags (`centroid single ignoresampler depth special8`) and a bare number = LOD
//!   bias, stored as `int(bias·8)` like the mini-assemblers (must fit −16..15.875).
//!
//! Errors carry the 1-based line and column and say what was expected. No input panics.

use std::fmt;

use crate::instr::{Dest, Indirect, Instruction, Program, Sampler, Source, Src2};
use crate::isa::{
    special, swizzle, Dimension, Filter, Mipmap, Opcode, RegType, ShaderKind, TexFormat, Wrap,
    LANES,
};

/// An assembly error at 1-based `line`:`column` (characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for AsmError {}

/// Assembles a program whose text starts with an `.agal KIND VERSION` line.
pub fn assemble(text: &str) -> Result<Program, AsmError> {
    assemble_impl(text, None)
}

/// Assembles a program body like `AGALMiniAssembler.assemble(mode, source, version)`; an
/// `.agal` line in the text overrides `kind` and `version`.
pub fn assemble_as(text: &str, kind: ShaderKind, version: u32) -> Result<Program, AsmError> {
    assemble_impl(text, Some((kind, version)))
}

/// A parse error inside one line: byte position in the line and message.
struct PErr(usize, String);

fn assemble_impl(text: &str, header: Option<(ShaderKind, u32)>) -> Result<Program, AsmError> {
    let mut header = header;
    let mut instructions = Vec::new();
    for (n, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let code = line.find("//").map_or(line, |c| &line[..c]);
        let fail = |PErr(at, message): PErr| AsmError {
            line: n + 1,
            column: line[..at.min(line.len())].chars().count() + 1,
            message,
        };
        let trimmed = code.trim_start();
        if trimmed.trim_end().is_empty() {
            continue;
        }
        let start = code.len() - trimmed.len();
        let mut c = Cursor {
            s: code,
            pos: start,
        };
        if trimmed.starts_with('.') {
            header = Some(parse_header(&mut c).map_err(fail)?);
            continue;
        }
        let Some((kind, _)) = header else {
            return Err(fail(PErr(
                start,
                "missing `.agal vertex|fragment VERSION` line before the first instruction".into(),
            )));
        };
        instructions.push(parse_instruction(&mut c, kind).map_err(fail)?);
    }
    let Some((kind, version)) = header else {
        return Err(AsmError {
            line: 1,
            column: 1,
            message: "missing `.agal vertex|fragment VERSION` line".into(),
        });
    };
    if !crate::isa::VERSIONS.contains(&version) {
        return Err(AsmError {
            line: 1,
            column: 1,
            message: format!("unsupported AGAL version {version} (versions 1-3 exist)"),
        });
    }
    Ok(Program {
        version,
        kind,
        instructions,
    })
}

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn rest(&self) -> &str {
        &self.s[self.pos..]
    }
    fn skip_ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    fn eat(&mut self, ch: char) -> bool {
        if self.peek() == Some(ch) {
            self.pos += ch.len_utf8();
            true
        } else {
            false
        }
    }
    /// Takes the longest prefix whose chars satisfy `f`.
    fn take(&mut self, f: impl Fn(char) -> bool) -> (usize, &str) {
        let start = self.pos;
        let len = self
            .rest()
            .find(|c: char| !f(c))
            .unwrap_or(self.rest().len());
        self.pos += len;
        (start, &self.s[start..start + len])
    }
    fn err<T>(&self, msg: impl Into<String>) -> Result<T, PErr> {
        Err(PErr(self.pos, msg.into()))
    }
    fn at_end(&self) -> bool {
        self.rest().trim().is_empty()
    }
}

fn parse_header(c: &mut Cursor) -> Result<(ShaderKind, u32), PErr> {
    let (at, dir) = c.take(|ch| !ch.is_whitespace());
    if dir != ".agal" {
        return Err(PErr(
            at,
            format!("unknown directive `{dir}` (expected `.agal`)"),
        ));
    }
    c.skip_ws();
    let (at, kind) = c.take(char::is_alphanumeric);
    let kind = match kind {
        "vertex" => ShaderKind::Vertex,
        "fragment" => ShaderKind::Fragment,
        _ => return Err(PErr(at, "expected `vertex` or `fragment`".into())),
    };
    c.skip_ws();
    let (at, v) = c.take(|ch| ch.is_ascii_digit());
    let version = v
        .parse::<u32>()
        .map_err(|_| PErr(at, "expected the AGAL version number".into()))?;
    if !crate::isa::VERSIONS.contains(&version) {
        return Err(PErr(
            at,
            format!("unsupported AGAL version {version} (versions 1-3 exist)"),
        ));
    }
    if !c.at_end() {
        return c.err("unexpected text after the version");
    }
    Ok((kind, version))
}

fn parse_instruction(c: &mut Cursor, _kind: ShaderKind) -> Result<Instruction, PErr> {
    let (at, mn) = c.take(|ch| ch.is_ascii_alphanumeric());
    let op = Opcode::from_mnemonic(&mn.to_ascii_lowercase())
        .ok_or_else(|| PErr(at, format!("unknown opcode `{mn}`")))?;
    let mut dest = Dest::NONE;
    let mut src1 = Source::NONE;
    let mut src2 = Src2::NONE;
    let mut first = true;
    let mut sep = |c: &mut Cursor| {
        c.skip_ws();
        if !first {
            c.eat(',');
            c.skip_ws();
        }
        first = false;
    };
    let need = |c: &Cursor, what: &str| -> Result<(), PErr> {
        if c.at_end() {
            c.err(format!("`{}` needs {what}", op.mnemonic()))
        } else {
            Ok(())
        }
    };
    if op.has_dest() {
        sep(c);
        need(c, "a destination")?;
        dest = parse_dest(c)?;
    }
    if op.num_srcs() >= 1 {
        sep(c);
        need(c, "a first source")?;
        src1 = parse_source(c)?;
    }
    if op.has_sampler() {
        sep(c);
        need(c, "a sampler")?;
        src2 = Src2::Sampler(parse_sampler(c)?);
    } else if op.num_srcs() >= 2 {
        sep(c);
        need(c, "a second source")?;
        src2 = Src2::Source(parse_source(c)?);
    }
    c.skip_ws();
    if !c.at_end() {
        return c.err(format!(
            "unexpected `{}` after the operands of `{}`",
            c.rest().trim_end(),
            op.mnemonic()
        ));
    }
    Ok(Instruction {
        op,
        dest,
        src1,
        src2,
    })
}

/// A register name and number.
fn parse_reg(c: &mut Cursor) -> Result<(RegType, u16), PErr> {
    let (at, name) = c.take(|ch| ch.is_ascii_alphabetic());
    let ty = RegType::from_name(&name.to_ascii_lowercase())
        .ok_or_else(|| PErr(at, format!("expected a register, found `{name}`")))?;
    let (nat, num) = c.take(|ch| ch.is_ascii_digit());
    let reg = if num.is_empty() {
        0
    } else {
        num.parse::<u16>()
            .map_err(|_| PErr(nat, format!("register number `{num}` exceeds 65535")))?
    };
    Ok((ty, reg))
}

fn parse_dest(c: &mut Cursor) -> Result<Dest, PErr> {
    let (ty, reg) = parse_reg(c)?;
    if ty == RegType::Sampler {
        return c.err("a sampler cannot be a destination");
    }
    if c.peek() == Some('[') {
        return c.err("relative addressing is not allowed in a destination");
    }
    let mut mask = 0xF;
    if c.eat('.') {
        if c.eat('-') {
            mask = 0;
        } else {
            let (at, letters) = c.take(|ch| ch.is_ascii_alphabetic());
            mask = 0;
            for ch in letters.chars() {
                let bit = LANES
                    .iter()
                    .position(|&l| l == ch)
                    .ok_or_else(|| PErr(at, format!("bad write mask `.{letters}`")))?;
                mask |= 1 << bit;
            }
            if letters.is_empty() || letters.len() > 4 {
                return Err(PErr(at, "a write mask has 1-4 of x, y, z, w".into()));
            }
        }
    }
    Ok(Dest { ty, reg, mask })
}

fn parse_swizzle(c: &mut Cursor) -> Result<u8, PErr> {
    if !c.eat('.') {
        return Ok(swizzle::IDENTITY);
    }
    let (at, letters) = c.take(|ch| ch.is_ascii_alphabetic());
    if letters.is_empty() || letters.len() > 4 {
        return Err(PErr(at, "a swizzle has 1-4 of x, y, z, w".into()));
    }
    let mut lanes = [0u8; 4];
    for (i, ch) in letters.chars().enumerate() {
        lanes[i] = LANES
            .iter()
            .position(|&l| l == ch)
            .ok_or_else(|| PErr(at, format!("bad swizzle `.{letters}`")))? as u8;
    }
    for i in letters.len()..4 {
        lanes[i] = lanes[i - 1];
    }
    Ok(swizzle::from_lanes(lanes))
}

fn parse_source(c: &mut Cursor) -> Result<Source, PErr> {
    let start = c.pos;
    let (ty, reg) = parse_reg(c)?;
    if ty == RegType::Sampler {
        return Err(PErr(
            start,
            "a sampler is only allowed as the second operand of a texture opcode".into(),
        ));
    }
    if c.eat('[') {
        if c.s[start..c.pos - 1].chars().any(|ch| ch.is_ascii_digit()) {
            return Err(PErr(
                start,
                "write `vc[…]` without a register number".into(),
            ));
        }
        c.skip_ws();
        let (index_type, index_reg) = parse_reg(c)?;
        if !c.eat('.') {
            return c.err("expected `.x`, `.y`, `.z` or `.w` after the index register");
        }
        let (at, l) = c.take(|ch| ch.is_ascii_alphabetic());
        let select = match l {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            "w" => 3,
            _ => return Err(PErr(at, "the index register selects one lane".into())),
        };
        c.skip_ws();
        let mut offset = 0u8;
        if c.eat('+') {
            c.skip_ws();
            let (at, n) = c.take(|ch| ch.is_ascii_digit());
            offset = n
                .parse::<u8>()
                .map_err(|_| PErr(at, "the offset must be 0..255".into()))?;
            c.skip_ws();
        }
        if !c.eat(']') {
            return c.err("expected `]`");
        }
        let swizzle = parse_swizzle(c)?;
        return Ok(Source {
            ty,
            reg: index_reg,
            swizzle,
            indirect: Some(Indirect {
                index_type,
                select,
                offset,
            }),
        });
    }
    let swizzle = parse_swizzle(c)?;
    Ok(Source {
        ty,
        reg,
        swizzle,
        indirect: None,
    })
}

fn parse_sampler(c: &mut Cursor) -> Result<Sampler, PErr> {
    let at = c.pos;
    let (ty, reg) = parse_reg(c)?;
    if ty != RegType::Sampler {
        return Err(PErr(at, "expected a sampler register (`fs0`)".into()));
    }
    let mut s = Sampler {
        reg,
        ..Sampler::default()
    };
    c.skip_ws();
    if !c.eat('<') {
        return Ok(s);
    }
    loop {
        c.skip_ws();
        let (at, word) = c.take(|ch| !matches!(ch, ',' | '>') && !ch.is_whitespace());
        let w = word.to_ascii_lowercase();
        if w.is_empty() {
            if c.eat('>') {
                break;
            }
            return c.err("expected a sampler option or `>`");
        }
        if let Some(v) = Dimension::from_name(&w) {
            s.dimension = v;
        } else if let Some(v) = Filter::from_name(&w) {
            s.filter = v;
        } else if let Some(v) = Wrap::from_name(&w) {
            s.wrap = v;
        } else if let Some(v) = Mipmap::from_name(&w) {
            s.mipmap = v;
        } else if let Some(v) = TexFormat::from_name(&w) {
            s.format = v;
        } else if let Some((bit, _)) = special::NAMES.iter().find(|(_, n)| *n == w) {
            s.special |= bit;
        } else if w == "depth" {
            s.special |= special::IGNORE_SAMPLER;
        } else if let Some(n) = w.strip_prefix("special").and_then(|n| n.parse::<u8>().ok()) {
            if n > 15 {
                return Err(PErr(at, "special flags are 4 bits".into()));
            }
            s.special |= n;
        } else if let Ok(b) = w.parse::<f64>() {
            s.lod_bias = Sampler::bias_field(b as f32)
                .ok_or_else(|| PErr(at, format!("LOD bias {b} outside -16..15.875")))?;
        } else {
            return Err(PErr(at, format!("unknown sampler option `{word}`")));
        }
        c.skip_ws();
        if c.eat('>') {
            break;
        }
        if !c.eat(',') {
            return c.err("expected `,` or `>` in the sampler options");
        }
    }
    Ok(s)
}
