//! The parser: text → [`Module`], the exact inverse of [`super::print`].
//!
//! Pass 1 reads line by line: each op line becomes `(SsaDef, Op)` — ids are explicit, so a
//! reference `%N` maps straight to `SsaDef::from_id(N)` whether it points forward or back — and
//! every reference is remembered with its position. Which operands are references and which are
//! literals follows the first-literal rule for the number of operand tokens; literals are read
//! by their kind from the opcode table. Pass 2 checks ids (duplicates, references to undefined
//! ids, an id bound proportional to the op count, so no input makes the parser allocate much
//! more than its own size) and hands the ops to [`Module::from_ordered`].
//!
//! No input makes it panic: every error is a [`ParseError`] with a position.

use super::lexer::{Cursor, Token};
use super::literal;
use crate::entities::SsaDef;
use crate::flags::OpFlags;
use crate::module::{BuildError, Module};
use crate::op::{Op, Operand, Operands};
use crate::opcode::{FirstLiteral, LitKind, OpCode, MANY};
use crate::strings;
use crate::types::Type;
use cranelift_entity::EntityRef;
use std::fmt;

/// Ids above this are rejected outright.
pub const MAX_ID: u32 = 1 << 24;
/// Ids may leave holes, but the largest id must not exceed `ID_SLACK + ID_RATIO × op count`.
pub const ID_SLACK: u64 = 1 << 16;
/// See [`ID_SLACK`].
pub const ID_RATIO: u64 = 16;

/// A located parse error. Displays as `file:line:column: error: message`, then the source line
/// and a caret under the column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What was expected and what was found.
    pub message: String,
    /// The text of the offending line.
    pub source_line: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.column, self.message
        )?;
        writeln!(f, "{}", self.source_line)?;
        for c in self.source_line.chars().take(self.column.saturating_sub(1)) {
            f.write_str(if c == '\t' { "\t" } else { " " })?;
        }
        f.write_str("^")
    }
}

impl std::error::Error for ParseError {}

/// Parses a module (errors name the file `<input>`).
pub fn parse(src: &str) -> Result<Module, ParseError> {
    parse_named(src, "<input>")
}

/// Parses a module; errors name `file_name`.
pub fn parse_named(src: &str, file_name: &str) -> Result<Module, ParseError> {
    // A byte-order mark is not part of the first line.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut p = Parser {
        src,
        file: file_name,
        entries: Vec::new(),
        sites: Vec::new(),
        refs: Vec::new(),
        toks: Vec::new(),
        first_code_line: None,
    };
    for (ln, line) in src.lines().enumerate() {
        p.line(ln, line)?;
    }
    p.finish()
}

/// Where something was written: 0-based line and byte offset in it.
#[derive(Clone, Copy, Debug)]
struct Site {
    line: u32,
    off: u32,
}

struct Parser<'a> {
    src: &'a str,
    file: &'a str,
    entries: Vec<(SsaDef, Op)>,
    /// Position of each entry's id.
    sites: Vec<Site>,
    /// Every reference operand: target id and position.
    refs: Vec<(u32, Site)>,
    /// Operand tokens of the current line (reused).
    toks: Vec<(usize, Token<'a>)>,
    first_code_line: Option<usize>,
}

impl<'a> Parser<'a> {
    fn error_at(&self, line: usize, text: &str, off: usize, message: String) -> ParseError {
        let column = text.get(..off).map_or(off, |s| s.chars().count()) + 1;
        ParseError {
            file: self.file.to_string(),
            line: line + 1,
            column,
            message,
            source_line: text.to_string(),
        }
    }

    fn error_at_site(&self, site: Site, message: String) -> ParseError {
        let text = self.src.lines().nth(site.line as usize).unwrap_or("");
        self.error_at(site.line as usize, text, site.off as usize, message)
    }

    fn line(&mut self, ln: usize, text: &'a str) -> Result<(), ParseError> {
        let err = |p: &Self, off: usize, msg: String| p.error_at(ln, text, off, msg);
        let mut c = Cursor::new(text);
        c.skip_ws();
        if c.at_end() {
            return Ok(());
        }
        // `%N =`
        let id_off = c.pos();
        if !c.eat(b'%') {
            let (_, w) = c.word();
            return Err(err(
                self,
                id_off,
                format!("expected an op `%N = …`, found `{w}`"),
            ));
        }
        let (_, digits) = c.take_while(|b| b.is_ascii_digit());
        let id = match digits.parse::<u32>() {
            Ok(0) => return Err(err(self, id_off, "ids start at %1".into())),
            Ok(n) if n <= MAX_ID => n,
            Ok(_) | Err(_) if !digits.is_empty() => {
                return Err(err(
                    self,
                    id_off,
                    format!("id %{digits} is too large (at most %{MAX_ID})"),
                ))
            }
            _ => {
                return Err(err(
                    self,
                    id_off,
                    "expected an id like `%12` after `%`".into(),
                ))
            }
        };
        c.skip_ws();
        if !c.eat(b'=') {
            return Err(err(self, c.pos(), format!("expected `=` after %{id}")));
        }
        c.skip_ws();
        // `[flags]`
        let mut flags = OpFlags::NONE;
        if c.eat(b'[') {
            let Some((off, list)) = c.until(b']') else {
                return Err(err(self, c.pos() - 1, "missing `]` after op flags".into()));
            };
            for (name, o) in split_offsets(list, '|') {
                match OpFlags::from_name(name.trim()) {
                    Some(f) => flags |= f,
                    None if name.trim() == "None" => {}
                    None => {
                        let msg = format!(
                            "unknown op flag `{}` (expected precise, invariant, nonuniform, \
                             sparsefeedback, nonan, noinf, nosz or inbounds)",
                            name.trim()
                        );
                        return Err(err(self, off + o, msg));
                    }
                }
            }
            c.skip_ws();
        }
        // `type? Opcode`
        let (w_off, word) = c.word();
        if word.is_empty() {
            return Err(err(self, w_off, "expected a type or an opcode".into()));
        }
        let (ty, op_off, opcode) = match OpCode::from_name(word) {
            Some(opc) => (Type::void(), w_off, opc),
            None => {
                let ty = Type::parse(word).map_err(|e| {
                    let msg = if word.starts_with(|ch: char| ch.is_ascii_uppercase()) {
                        format!("unknown opcode `{word}`")
                    } else {
                        format!("expected a type or an opcode: {e}")
                    };
                    err(self, w_off, msg)
                })?;
                c.skip_ws();
                let (o_off, name) = c.word();
                let Some(opc) = OpCode::from_name(name) else {
                    let msg = if name.is_empty() {
                        "expected an opcode after the type".to_string()
                    } else {
                        format!("unknown opcode `{name}`")
                    };
                    return Err(err(self, o_off, msg));
                };
                (ty, o_off, opc)
            }
        };
        if opcode.is_declarative() {
            if let Some(first) = self.first_code_line {
                let msg = format!(
                    "declaration `{opcode}` after code (line {}); declarations must come first",
                    first + 1
                );
                return Err(err(self, op_off, msg));
            }
        } else if self.first_code_line.is_none() {
            self.first_code_line = Some(ln);
        }
        // Operand tokens.
        let mut toks = std::mem::take(&mut self.toks);
        toks.clear();
        loop {
            c.skip_ws();
            if c.at_end() {
                break;
            }
            match c.token() {
                Ok(t) => toks.push(t),
                Err((off, msg)) => return Err(err(self, off, msg)),
            }
        }
        let op = Op {
            opcode,
            flags,
            ty,
            operands: Operands::new(),
        };
        let result = self.operands(ln, text, op, op_off, &toks);
        self.toks = toks;
        let op = result?;
        self.entries.push((SsaDef::new(id as usize - 1), op));
        self.sites.push(Site {
            line: ln as u32,
            off: id_off as u32,
        });
        Ok(())
    }

    /// Reads the operand tokens into `op`.
    fn operands(
        &mut self,
        ln: usize,
        text: &str,
        mut op: Op,
        op_off: usize,
        toks: &[(usize, Token<'a>)],
    ) -> Result<Op, ParseError> {
        let opcode = op.opcode;
        let fl = opcode.first_literal_index(toks.len());
        for (i, (off, tok)) in toks.iter().enumerate() {
            let off = *off;
            let fail = |msg: String| self.error_at(ln, text, off, msg);
            let n = op.operands.len();
            if i < fl {
                let Token::Word(w) = tok else {
                    return Err(fail(format!(
                        "expected a reference (`%N` or `null`) as operand {n} of {opcode}, found a string"
                    )));
                };
                let operand = match parse_ref(w) {
                    Ok(Some(id)) => {
                        self.refs.push((
                            id,
                            Site {
                                line: ln as u32,
                                off: off as u32,
                            },
                        ));
                        Operand::Ref(SsaDef::new(id as usize - 1))
                    }
                    Ok(None) => Operand::Null,
                    Err(Some(msg)) => return Err(fail(msg)),
                    Err(None) => {
                        let what = if opcode.info().first_literal == FirstLiteral::None {
                            format!("{opcode} takes only references")
                        } else {
                            format!("operand {n} of {opcode} is a reference")
                        };
                        return Err(fail(format!(
                            "expected a reference (`%N` or `null`), found `{w}`: {what}"
                        )));
                    }
                };
                op.operands.push(operand);
                continue;
            }
            let kind = opcode.literal_kind(n - fl);
            let w = match tok {
                Token::Str(bytes) if kind == Some(LitKind::Str) => {
                    if i + 1 != toks.len() {
                        return Err(fail("a string must be the last operand".into()));
                    }
                    op.operands
                        .extend(strings::pack(bytes).into_iter().map(Operand::Lit));
                    continue;
                }
                Token::Str(_) => {
                    return Err(fail(format!("operand {n} of {opcode} is not a string")));
                }
                Token::Word(w) => *w,
            };
            if w == "null" || w.starts_with('%') {
                return Err(fail(format!(
                    "expected a literal as operand {n} of {opcode}, found the reference `{w}`"
                )));
            }
            let value = match kind {
                None | Some(LitKind::Int | LitKind::SInt | LitKind::CaseValue | LitKind::Str) => {
                    literal::parse_int(w).ok_or_else(|| format!("expected an integer, found `{w}`"))
                }
                Some(LitKind::Typed) => {
                    let fixed = opcode.info().literals.len();
                    let t = op
                        .ty
                        .flattened_scalar_type((n - fl).saturating_sub(fixed) as u64);
                    literal::parse_typed(t, w)
                }
                Some(LitKind::Enum(e)) => literal::parse_enum(e, w),
                Some(LitKind::Flags(f)) => literal::parse_flags(f, w),
            };
            op.operands.push(Operand::Lit(value.map_err(fail)?));
        }
        let count = op.operands.len();
        if !opcode.accepts_operand_count(count) {
            let info = opcode.info();
            let range = match (info.min_operands, info.max_operands) {
                (a, MANY) => format!("at least {a}"),
                (a, b) if a == b => format!("{a}"),
                (a, b) => format!("{a} to {b}"),
            };
            let even = if matches!(opcode, OpCode::Switch | OpCode::Phi) {
                ", an even number"
            } else {
                ""
            };
            let msg = format!("{opcode} takes {range} operands{even}, found {count}");
            return Err(self.error_at(ln, text, op_off, msg));
        }
        Ok(op)
    }

    /// Pass 2: id checks, then the module.
    fn finish(mut self) -> Result<Module, ParseError> {
        let n = self.entries.len() as u64;
        let limit = ID_SLACK + ID_RATIO * n;
        let mut max_id = 0;
        for (k, (d, _)) in self.entries.iter().enumerate() {
            if d.id() as u64 > limit {
                let msg =
                    format!("id {d} is too large: a module of {n} ops may use ids up to %{limit}");
                return Err(self.error_at_site(self.sites[k], msg));
            }
            max_id = max_id.max(d.id());
        }
        // slot[id] = 1 + index of the entry defining it.
        let mut slot = vec![0u32; max_id as usize + 1];
        for (k, (d, _)) in self.entries.iter().enumerate() {
            let s = &mut slot[d.id() as usize];
            if *s != 0 {
                let first = self.sites[*s as usize - 1].line + 1;
                let msg = format!("{d} is already defined on line {first}");
                return Err(self.error_at_site(self.sites[k], msg));
            }
            *s = k as u32 + 1;
        }
        for &(target, site) in &self.refs {
            if slot.get(target as usize).is_none_or(|&s| s == 0) {
                return Err(self.error_at_site(site, format!("%{target} is not defined")));
            }
        }
        let site_of = |d: SsaDef| {
            let k = slot.get(d.id() as usize).copied().unwrap_or(0) as usize;
            self.sites
                .get(k.wrapping_sub(1))
                .copied()
                .unwrap_or(Site { line: 0, off: 0 })
        };
        let entries = std::mem::take(&mut self.entries);
        Module::from_ordered(entries).map_err(|e| {
            let at = match &e {
                BuildError::DuplicateId { def } => *def,
                BuildError::DeclarationAfterCode { def, .. } => *def,
                BuildError::DuplicateConstant { second, .. } => *second,
                BuildError::DanglingRef { def, .. } => *def,
            };
            let msg = match e {
                BuildError::DuplicateConstant { first, second } => format!(
                    "{second} duplicates {first} (identical constants and undefs must be one op)"
                ),
                e => e.to_string(),
            };
            self.error_at_site(site_of(at), msg)
        })
    }
}

/// `%N` → `Ok(Some(N))`, `null` → `Ok(None)`; a bad id `Err(Some(message))`, anything that is
/// not a reference `Err(None)`.
fn parse_ref(w: &str) -> Result<Option<u32>, Option<String>> {
    if w == "null" {
        return Ok(None);
    }
    let digits = w.strip_prefix('%').ok_or(None)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Some(format!("expected an id like `%12`, found `{w}`")));
    }
    match digits.parse::<u32>() {
        Ok(n) if (1..=MAX_ID).contains(&n) => Ok(Some(n)),
        Ok(0) => Err(Some("ids start at %1".into())),
        _ => Err(Some(format!("id {w} is too large (at most %{MAX_ID})"))),
    }
}

/// Splits `s` at `sep`, with each part's byte offset.
fn split_offsets(s: &str, sep: char) -> impl Iterator<Item = (&str, usize)> {
    s.split(sep).scan(0usize, move |off, part| {
        let o = *off;
        *off += part.len() + sep.len_utf8();
        Some((part, o))
    })
}
