//! Pipelines: plain straight-line code over the pass manager.

use crate::manager::PassManager;
use crate::registry::find;
use crate::PassError;
use irc_ir::Module;

fn step(pm: &mut PassManager, m: &mut Module, name: &str) -> Result<bool, PassError> {
    pm.run(
        m,
        find(name).ok_or_else(|| PassError::UnknownPass(name.into()))?,
    )
}

/// Raw IR to structured SSA (the first steps of `legalize`).
pub fn frontend(pm: &mut PassManager, m: &mut Module) -> Result<(), PassError> {
    step(pm, m, "structurize")?;
    step(pm, m, "remove-unreachable")?;
    step(pm, m, "ssa")?;
    Ok(())
}

/// Names of the pipelines `irc opt --pipeline` knows.
pub const PIPELINES: &[&str] = &["frontend"];

/// Runs a pipeline by name.
pub fn run(pm: &mut PassManager, m: &mut Module, name: &str) -> Result<(), PassError> {
    match name {
        "frontend" => frontend(pm, m),
        other => Err(PassError::UnknownPipeline(other.into())),
    }
}
