//! Pass errors and panics as [`Diagnostics`].
//!
//! | error | kind |
//! |---|---|
//! | `PassError::Unsupported`, `FrontendError::Unsupported` | `Unsupported`, with the op |
//! | `FrontendError::Malformed` (raw IR the frontend cannot structure) | `Input`, with the op |
//! | `PassError::Internal`, `PassError::Verifier` (a pass broke the module), unknown pass or pipeline, a panic | `Internal` |

use irc_backend::{Diagnostic, DiagnosticKind, Diagnostics};
use irc_frontend::FrontendError;
use irc_passes::PassError;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The diagnostic of a failed pass or pipeline.
pub(crate) fn from_pass(e: PassError) -> Diagnostics {
    let d = match e {
        PassError::Frontend(FrontendError::Malformed { op, opcode, reason }) => Diagnostic {
            kind: DiagnosticKind::Input,
            op: Some((op, opcode)),
            message: reason,
        },
        PassError::Frontend(FrontendError::Unsupported { op, opcode, reason })
        | PassError::Unsupported { op, opcode, reason } => {
            Diagnostic::unsupported(Some((op, opcode)), reason)
        }
        PassError::Internal {
            pass,
            op,
            opcode,
            reason,
        } => Diagnostic::internal(Some((op, opcode)), format!("in pass `{pass}`: {reason}")),
        e @ (PassError::Verifier { .. }
        | PassError::UnknownPass(_)
        | PassError::UnknownPipeline(_)) => Diagnostic::internal(None, e.to_string()),
    };
    d.into()
}

/// Runs `f`, turning a panic (a compiler bug) into an `Internal` diagnostic, and an error
/// without any diagnostic into one, so that callers always get at least one.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, Diagnostics>) -> Result<T, Diagnostics> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Err(Diagnostics(list))) if list.is_empty() => {
            Err(Diagnostic::internal(None, "compilation failed without a diagnostic").into())
        }
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Diagnostic::internal(None, format!("the compiler panicked: {what}")).into())
        }
    }
}
