//! Pipelines: plain straight-line code over the pass manager.
//!
//! `legalize[:TARGET]` takes raw IR (or legalized IR: every step is a no-op on what it does not
//! find) to structured, typed SSA that the target can execute, lowering only what the target's
//! [`crate::TargetCaps`] says it lacks. Its order follows dxbc-spirv's `legalizeIr`
//! (reference B.2) where the steps correspond: control flow and SSA first, min-precision types
//! before type resolution, type resolution before anything that needs types, inlining before
//! the per-target lowerings (so that they see every use), cleanup last.

use crate::caps::TargetCaps;
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

/// Raw or legalized IR to IR the target of `pm.context.caps` can take.
pub fn legalize(pm: &mut PassManager, m: &mut Module) -> Result<(), PassError> {
    frontend(pm, m)?;
    step(pm, m, "lower-min16")?;
    step(pm, m, "propagate-types")?;
    step(pm, m, "lower-consume")?;
    step(pm, m, "inline")?;
    step(pm, m, "lower-legacy")?;
    step(pm, m, "lower-dot")?;
    if !pm.context.caps.indexable_scratch {
        step(pm, m, "scratch-to-regs")?;
    }
    cleanup(pm, m)
}

/// The clean-up dxbc-spirv's legalization also does (its arithmetic, CSE and control-flow
/// loop), plus dissolving the loops that never repeat (the inliner's one-trip loops), until
/// nothing changes (at most four rounds).
pub fn cleanup(pm: &mut PassManager, m: &mut Module) -> Result<(), PassError> {
    for _ in 0..4 {
        let mut changed = false;
        for pass in [
            "const-fold",
            "simplify",
            "gvn",
            "dissolve-loops",
            "cfg-cleanup",
            "dce",
        ] {
            changed |= step(pm, m, pass)?;
        }
        if !changed {
            break;
        }
    }
    Ok(())
}

/// `legalize`, then the optimizer at `pm.context.opt_level`:
/// - `-O0`: nothing more;
/// - `-O1`: the clean-up loop again with loop-invariant code motion;
/// - `-O2`: also if-conversion and unrolling (per the target's cost model; mandatory where the
///   target has no branches or loops), integer-to-float mapping on float-only targets,
///   vectorization on the vec4 targets (lima, pica, agal; then the clean-up loop), and dead
///   input/output removal.
pub fn optimize(pm: &mut PassManager, m: &mut Module) -> Result<(), PassError> {
    legalize(pm, m)?;
    let level = pm.context.opt_level;
    let caps = pm.context.caps.clone();
    if level == 0 {
        return Ok(());
    }
    if level >= 2 || !caps.branches || !caps.loops {
        step(pm, m, "unroll")?;
        step(pm, m, "if-convert")?;
    }
    for _ in 0..4 {
        let mut changed = false;
        for pass in [
            "const-fold",
            "simplify",
            "gvn",
            "licm",
            "dissolve-loops",
            "cfg-cleanup",
            "dce",
        ] {
            changed |= step(pm, m, pass)?;
        }
        if !changed {
            break;
        }
    }
    if !caps.integers {
        step(pm, m, "int-to-float")?;
        cleanup(pm, m)?;
    }
    if level >= 2 {
        if matches!(caps.name, "lima" | "pica" | "agal") && step(pm, m, "vectorize")? {
            cleanup(pm, m)?;
        }
        step(pm, m, "dead-io")?;
        step(pm, m, "dce")?;
    }
    Ok(())
}

/// Names of the pipelines `irc opt --pipeline` knows (`NAME:TARGET` selects a target).
pub const PIPELINES: &[&str] = &["frontend", "legalize", "opt"];

/// Runs a pipeline by name: `frontend`, `legalize` or `opt`, optionally `:TARGET` (a target
/// or family name: `lima`, `lima-fp`, `pica-vs`, `agal`, …), which also sets the pass
/// context's capabilities (dxbc-spirv's choices without a target).
pub fn run(pm: &mut PassManager, m: &mut Module, name: &str) -> Result<(), PassError> {
    let (base, target) = name
        .split_once(':')
        .map_or((name, None), |(b, t)| (b, Some(t)));
    if let Some(t) = target {
        pm.context.caps =
            TargetCaps::for_target(t).ok_or_else(|| PassError::UnknownPipeline(name.into()))?;
    }
    match base {
        "frontend" => frontend(pm, m),
        "legalize" => legalize(pm, m),
        "opt" => optimize(pm, m),
        _ => Err(PassError::UnknownPipeline(name.into())),
    }
}
