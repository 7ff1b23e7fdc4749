//! The `lima-fp` [`Target`]: IR (after the `opt:lima` pipeline) → PP machine code.
//!
//! Stages: [`super::lower`] (IR ops → unit ops on virtual registers), [`super::sched`] (packing
//! unit ops into instructions), [`super::regalloc`] (6 vec4 registers, spilling), then
//! [`super::emit`] (instructions → [`Instruction`]s → words via the encoder).

use irc_backend::{CompileOptions, Diagnostic, Diagnostics, Output, Target};
use irc_ir::Module;

/// The Mali-200/400 fragment processor target.
#[derive(Debug, Clone, Copy, Default)]
pub struct LimaFp;

impl Target for LimaFp {
    fn name(&self) -> &'static str {
        "lima-fp"
    }
    fn pipeline(&self) -> &'static str {
        "opt:lima"
    }
    fn compile(&self, _module: &Module, _options: &CompileOptions) -> Result<Output, Diagnostics> {
        Err(Diagnostic::unsupported(None, "lima-fp code generation is not implemented yet").into())
    }
}
