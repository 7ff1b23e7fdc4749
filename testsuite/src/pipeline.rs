//! Pipelines by name (`legalize`, `opt:lima`, `opt:lima-fp`), resolved through the target
//! registry, for the corpus runner, the differential tests and `irc opt --pipeline`.

use irc_ir::Module;
use irc_passes::{PassError, PassManager, TargetCaps};

/// The capabilities a name stands for in the built-in registry (`default`, a target, or a
/// family profile).
pub fn caps(name: &str) -> Option<TargetCaps> {
    irc::Registry::builtin().caps(name)
}

/// Runs the pipeline `name` (`frontend`, `legalize[:NAME]`, `opt[:NAME]`), setting the pass
/// context's capabilities to `NAME`'s (dxbc-spirv's choices without one).
pub fn run(pm: &mut PassManager, m: &mut Module, name: &str) -> Result<(), PassError> {
    run_in(irc::Registry::builtin(), pm, m, name)
}

/// [`run`] with the names of `registry`.
pub fn run_in(
    registry: &irc::Registry,
    pm: &mut PassManager,
    m: &mut Module,
    name: &str,
) -> Result<(), PassError> {
    let (kind, caps) = registry
        .pipeline(name)
        .ok_or_else(|| PassError::UnknownPipeline(name.into()))?;
    pm.context.caps = caps;
    irc_passes::pipelines::run(pm, m, kind)
}
