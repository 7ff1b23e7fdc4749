//! The text format (docs/ir-text.md).
//!
//! CONTRACT (owned by the text-format work):
//! - `pub fn print(m: &Module) -> String`
//! - `pub fn print_annotated(m: &Module, notes: &dyn Fn(SsaDef) -> Vec<String>) -> String`:
//!   notes printed as `; error: …` lines under the op they belong to.
//! - `pub fn parse(src: &str) -> Result<Module, ParseError>`; `ParseError` displays
//!   `file:line:column`, the line and a caret, and what was expected.
