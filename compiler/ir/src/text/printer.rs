//! The printer: [`Module`] → text, one op per line in program order, ids kept exactly.
//!
//! A line is `%id = [flags] type Opcode operand…` (flags and a void type left out). Reference
//! operands print as `%N` or `null`; literal operands as the opcode table says
//! ([`OpCode::literal_kind`]), with the spellings of [`super::literal`]. Indentation and blank
//! lines are for the reader only: declarations and `Function`/`FunctionEnd`/`Label` lines start
//! in column 1, other code is indented two spaces plus two per open `Scoped*` construct, and a
//! blank line precedes each `Function`.
//!
//! Everything is written into one `String`; the only per-op allocations are for string literals
//! (to check their packing) and `f16` constants.
//!
//! [`OpCode::literal_kind`]: crate::opcode::OpCode::literal_kind

use super::literal;
use crate::entities::SsaDef;
use crate::module::Module;
use crate::op::{Op, Operand};
use crate::opcode::{LitKind, OpCode};
use crate::strings;
use std::fmt::Write;

/// Prints a module.
pub fn print(m: &Module) -> String {
    print_annotated(m, &|_| Vec::new())
}

/// Prints a module with notes (for example verifier errors): each note of an op goes on its own
/// comment line `; error: <note>` right under the op's line, so the text still parses.
pub fn print_annotated(m: &Module, notes: &dyn Fn(SsaDef) -> Vec<String>) -> String {
    let mut p = Printer {
        out: String::with_capacity(m.len() * 40),
        lits: Vec::new(),
        depth: 0,
    };
    for d in m.iter() {
        let op = m.op(d);
        let indent = p.indent(op.opcode);
        p.op_line(d, op, indent);
        for note in notes(d) {
            p.note(indent, &note);
        }
    }
    p.out
}

/// Prints one op as it appears on its line (no indentation, no newline).
pub fn print_op(d: SsaDef, op: &Op) -> String {
    let mut p = Printer {
        out: String::new(),
        lits: Vec::new(),
        depth: 0,
    };
    p.op_line(d, op, 0);
    p.out.pop();
    p.out
}

struct Printer {
    out: String,
    /// Scratch for string literal operands.
    lits: Vec<u64>,
    /// Open `Scoped*` constructs.
    depth: usize,
}

impl Printer {
    /// Indentation (in spaces) of the next op; updates the scope depth and blank lines.
    fn indent(&mut self, opcode: OpCode) -> usize {
        use OpCode::*;
        match opcode {
            _ if opcode.is_declarative() => 0,
            Function => {
                if !self.out.is_empty() && !self.out.ends_with("\n\n") {
                    self.out.push('\n');
                }
                self.depth = 0;
                0
            }
            FunctionEnd => {
                self.depth = 0;
                0
            }
            Label => 0,
            ScopedIf | ScopedLoop | ScopedSwitch => {
                self.depth += 1;
                2 * self.depth
            }
            ScopedElse | ScopedSwitchCase | ScopedSwitchDefault => 2 * self.depth.max(1),
            ScopedEndIf | ScopedEndLoop | ScopedEndSwitch => {
                let d = self.depth.max(1);
                self.depth = d - 1;
                2 * d
            }
            _ => 2 + 2 * self.depth,
        }
    }

    fn note(&mut self, indent: usize, note: &str) {
        for (i, line) in note.split('\n').enumerate() {
            push_spaces(&mut self.out, indent);
            self.out.push_str(if i == 0 { "; error: " } else { ";   " });
            self.out.push_str(line);
            self.out.push('\n');
        }
    }

    fn op_line(&mut self, d: SsaDef, op: &Op, indent: usize) {
        let out = &mut self.out;
        push_spaces(out, indent);
        let _ = write!(out, "{d} = ");
        if !op.flags.is_empty() {
            let _ = write!(out, "[{}] ", op.flags);
        }
        if !op.ty.is_void() {
            let _ = write!(out, "{} ", op.ty);
        }
        out.push_str(op.opcode.name());
        let fl = op.first_literal();
        let mut raw_strings = false;
        for (i, operand) in op.operands.iter().enumerate() {
            self.out.push(' ');
            match *operand {
                Operand::Null => self.out.push_str("null"),
                Operand::Ref(r) => {
                    let _ = write!(self.out, "{r}");
                }
                // A literal where a reference belongs (an inconsistent op): printed, but the
                // parser rejects it.
                Operand::Lit(v) if i < fl => {
                    let _ = write!(self.out, "{v}");
                }
                Operand::Lit(v) => {
                    let kind = op.opcode.literal_kind(i - fl);
                    if kind == Some(LitKind::Str) && !raw_strings {
                        if self.string(op, i) {
                            break;
                        }
                        raw_strings = true;
                    }
                    self.literal(op, i - fl, kind, v);
                }
            }
        }
        self.out.push('\n');
    }

    /// Prints operands `i..` as one quoted string if they are its canonical packing.
    fn string(&mut self, op: &Op, i: usize) -> bool {
        self.lits.clear();
        for o in &op.operands[i..] {
            match o.as_lit() {
                Some(v) => self.lits.push(v),
                None => return false,
            }
        }
        if !strings::is_canonical(&self.lits) {
            return false;
        }
        literal::write_string(&mut self.out, &strings::unpack(&self.lits));
        true
    }

    /// Prints literal number `li` (counted from the first literal) of `op`.
    fn literal(&mut self, op: &Op, li: usize, kind: Option<LitKind>, v: u64) {
        let out = &mut self.out;
        let _ = match kind {
            None | Some(LitKind::Int) => write!(out, "{v}"),
            Some(LitKind::SInt | LitKind::CaseValue) => write!(out, "{}", v as i64),
            Some(LitKind::Str) => write!(out, "{v:#x}"),
            Some(LitKind::Typed) => {
                let fixed = op.opcode.info().literals.len();
                let t = op.ty.flattened_scalar_type(li.saturating_sub(fixed) as u64);
                literal::write_typed(out, t, v);
                Ok(())
            }
            Some(LitKind::Enum(e)) => {
                if !literal::write_enum(out, e, v) {
                    let _ = write!(out, "{v}");
                }
                Ok(())
            }
            Some(LitKind::Flags(f)) => {
                if !literal::write_flags(out, f, v) {
                    let _ = write!(out, "{v}");
                }
                Ok(())
            }
        };
    }
}

fn push_spaces(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}
