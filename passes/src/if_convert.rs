//! `if-convert`: not written yet.

use crate::caps::PassContext;
use crate::PassError;
use irc_ir::Module;

/// Runs the pass; returns whether the module changed.
pub fn run(_m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    Ok(false)
}
