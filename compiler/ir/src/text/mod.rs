//! The text format: a readable, exactly round-tripping spelling of a [`Module`](crate::Module)
//! (grammar and rationale in `docs/ir-text.md`).
//!
//! ```text
//! ; comment
//! %1 = EntryPoint %5 Pixel
//! %2 = [nosz] f32 SetFpMode %1 NearestEven Flush
//! %3 = f32x4 DclInput %1 1 0 NoPerspective
//! %4 = f32x4 Constant 0.0 0.0 0.0 1.0
//! %11 = DebugName %5 "main"
//!
//! %5 = Function
//! %6 = Label None
//!   %7 = f32x4 FAdd %4 %4
//!   %10 = OutputStore %3 null %7
//!   %12 = Return
//! %13 = FunctionEnd
//! ```
//!
//! One op per line: `%id = [flags]? type? Opcode operand*`, void types left out. Ids are kept
//! exactly (holes allowed), line order is program order, and declarations come first. Operands
//! before the opcode's first-literal index are references (`%N`, `null`); the others are
//! literals spelled by what the opcode table says they hold: numbers, typed constants (floats
//! bit-exact: `-0.0`, `inf`, `nan:0x7fc00001`), strings, enum names and flag sets. A literal that
//! does not fit its kind prints as a number, so every consistent module prints, and
//! `parse(print(m)) == m` (rule 4 of DESIGN.md).
//!
//! [`print_annotated`] puts notes (verifier errors) on comment lines under their op. The parser
//! never panics; its [`ParseError`] points at a line and column.

mod lexer;
mod literal;
mod parser;
mod printer;

pub use parser::{parse, parse_named, ParseError, ID_RATIO, ID_SLACK, MAX_ID};
pub use printer::{print, print_annotated, print_op};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_random;
