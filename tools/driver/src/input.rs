//! What the driver compiles ([`Input`]) and how it becomes a verified [`Module`].
//!
//! Reader and parser errors become one `Input` diagnostic carrying the error's own location
//! text (`byte 0x1c (op 3, FAdd): …` for binary streams, `<input>:3:17: error: …` with the
//! line and a caret for text). Verifier errors become one `Input` diagnostic each, pinned to
//! the op they name.

use irc_backend::{Diagnostic, DiagnosticKind, Diagnostics};
use irc_ir::{binary, text, verifier, Module};

/// A shader to compile.
// A module is moved in once per compile; boxing it would make every embedder box its module.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Input<'a> {
    /// The binary DXBC-IR format (`.dxir`, dxbc-spirv's serialization).
    Binary(&'a [u8]),
    /// The text format (`.ir`, docs/ir-text.md).
    Text(&'a str),
    /// A module built in memory (with `irc_ir::Builder`) or read by the caller.
    Module(Module),
}

/// An `Input` diagnostic without an op.
pub(crate) fn input_error(message: impl Into<String>) -> Diagnostic {
    Diagnostic {
        kind: DiagnosticKind::Input,
        op: None,
        message: message.into(),
    }
}

/// Reads `input` into a module.
pub(crate) fn read(input: Input<'_>) -> Result<Module, Diagnostics> {
    match input {
        Input::Binary(bytes) => binary::read(bytes).map_err(|e| input_error(e.to_string()).into()),
        Input::Text(src) => text::parse(src).map_err(|e| input_error(e.to_string()).into()),
        Input::Module(m) => Ok(m),
    }
}

/// Reads `input` into `m`, reusing `m`'s allocations for the binary format (the text parser
/// and in-memory modules replace it).
pub(crate) fn read_into(input: Input<'_>, m: &mut Module) -> Result<(), Diagnostics> {
    match input {
        Input::Binary(bytes) => {
            binary::read_into(bytes, m).map_err(|e| input_error(e.to_string()).into())
        }
        other => {
            *m = read(other)?;
            Ok(())
        }
    }
}

/// Runs the verifier; every error becomes an `Input` diagnostic pinned to its op.
pub(crate) fn verify(m: &Module) -> Result<(), Diagnostics> {
    verifier::verify(m).map_err(|errors| {
        Diagnostics(
            errors
                .iter()
                .map(|e| Diagnostic {
                    kind: DiagnosticKind::Input,
                    op: e.def.and_then(|d| m.get(d).map(|op| (d, op.opcode))),
                    message: match e.def {
                        // A def that is not in the module cannot be pinned: keep its id.
                        Some(d) if m.get(d).is_none() => format!("{d}: {}", e.message),
                        _ => e.message.clone(),
                    },
                })
                .collect(),
        )
    })
}
