//! Pipelines: plain straight-line code over the pass manager.
//!
//! `legalize[:TARGET]` takes raw IR (or legalized IR: every step is a no-op on what it does not
//! find) to structured, typed SSA that the target can execute, lowering only what the target's
//! [`crate::TargetCaps`] says it lacks. Its order follows dxbc-spirv's `legalizeIr`
//! (reference B.2) where the steps correspond: control flow and SSA first, min-precision types
//! before type resolution, type resolution before anything that needs types, inlining before
//! the per-target lowerings (so that they see every use), cleanup last.

use crate::manager::PassManager;
use crate::registry::{find, PassInfo};
use crate::PassError;
use irc_ir::{ChangeMark, Module};

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

/// Raw or legalized IR to IR the target of `pm.context.caps` can take, with every call
/// inlined (what the targets' `opt` pipeline starts from).
pub fn legalize(pm: &mut PassManager, m: &mut Module) -> Result<(), PassError> {
    legalize_steps(pm, m, LegalizeFor::Target)
}

/// The `legalize` pipeline (`irc opt --pipeline legalize`, `irc corpus --check legalize`):
/// [`legalize`] for IR consumers that have calls (dxbc-spirv's SPIR-V writer): the shader's
/// functions stay (no `inline`), and legacy multiplies and dot products used often go into
/// helper functions (`call-helpers`), as in dxbc-spirv's own legalization, which keeps the
/// module small.
pub fn legalize_ir(pm: &mut PassManager, m: &mut Module) -> Result<(), PassError> {
    legalize_steps(pm, m, LegalizeFor::IrConsumer)
}

/// What a legalization is for: the targets' code generators, or IR consumers with calls.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LegalizeFor {
    /// A target's `opt` pipeline ([`legalize`]).
    Target,
    /// dxbc-spirv's SPIR-V writer and other IR consumers ([`legalize_ir`]).
    IrConsumer,
}

fn legalize_steps(pm: &mut PassManager, m: &mut Module, f: LegalizeFor) -> Result<(), PassError> {
    frontend(pm, m)?;
    step(pm, m, "lower-min16")?;
    step(pm, m, "propagate-types")?;
    step(pm, m, "lower-consume")?;
    if f == LegalizeFor::Target {
        // The render state `legacy-state` substituted makes the conditions around the calls
        // of the D3D9 helpers (fog, sampling, alpha test) and the switches inside them
        // constant: folded now, `inline` copies only what runs (a fog call under a disabled
        // fog is gone, the alpha test is a `return true`). Only integer and boolean results
        // fold here: float ops wait for the lowerings (`lower-trig`, `lower-legacy`) that may
        // compute them otherwise. Not for IR consumers: no state is known there, and folding
        // early cost them more than it saved.
        step(pm, m, "const-fold-int")?;
        step(pm, m, "cfg-cleanup")?;
    }
    if f == LegalizeFor::Target {
        // Our machines have no calls. IR consumers do, and dxbc-spirv's own legalization keeps
        // the shader's functions: inlining would copy a helper's body into each of its calls.
        // Kept, over the corpus: 352,230 → 348,511 ops after `legalize`, and the pipeline's
        // p90 time 275 → 202 µs (one shader with 65 calls of its sampling helpers: 5,882 ops
        // inlined against dxbc-spirv's 2,289).
        step(pm, m, "inline")?;
    }
    step(pm, m, "fold-gs-vertex-count")?;
    step(pm, m, "trim-legacy-guards")?;
    if f == LegalizeFor::IrConsumer {
        step(pm, m, "call-helpers")?;
    }
    if pm.context.ieee_mul_legacy {
        step(pm, m, "relax-ieee-mul")?;
    }
    step(pm, m, "lower-legacy")?;
    step(pm, m, "lower-dot")?;
    step(pm, m, "legalize-ops")?;
    if !pm.context.caps.trig {
        step(pm, m, "lower-trig")?;
    }
    if !pm.context.caps.indexable_scratch {
        step(pm, m, "scratch-to-regs")?;
    }
    match f {
        LegalizeFor::Target => fixpoint(pm, m, &CLEANUP_BRANCHES_FIRST, 4),
        LegalizeFor::IrConsumer => cleanup(pm, m),
    }
}

/// The clean-up loop's passes, in dxbc-spirv's order (arithmetic, CSE, control flow).
const CLEANUP: [&str; 6] = [
    "const-fold",
    "simplify",
    "gvn",
    "dce",
    "dissolve-loops",
    "cfg-cleanup",
];

/// The same passes with the control-flow clean-up right after constant folding, for the
/// targets' legalization. Their pipelines specialize D3D9 shaders for the render state first
/// (`legacy-state`), which makes the branches of the inlined alpha-test, fog and sampler
/// helpers constant: folding them before the other passes run leaves those passes a module
/// of about a third of the size in the first round (a dxtk ps_2_0 shader: 266 ops, 83 after
/// the first round's `cfg-cleanup`). Measured: lima-fp pipeline of that shader 2.21M → 1.94M
/// instructions, the same code on every target but one shader each of lima-fp and agal-fp
/// (one instruction more, one less). For IR consumers the order stays dxbc-spirv's: there
/// the branches stay unknown, and the other order gave 120 ops more over the corpus.
const CLEANUP_BRANCHES_FIRST: [&str; 6] = [
    "const-fold",
    "cfg-cleanup",
    "simplify",
    "gvn",
    "dce",
    "dissolve-loops",
];

/// The clean-up dxbc-spirv's legalization also does (its arithmetic, CSE and control-flow
/// loop), plus dissolving the loops that never repeat (the inliner's one-trip loops), until
/// nothing changes (at most four rounds).
pub fn cleanup(pm: &mut PassManager, m: &mut Module) -> Result<(), PassError> {
    fixpoint(pm, m, &CLEANUP, 4)
}

/// Runs `passes` in rounds, in order, until the module is a fixpoint of all of them, or for
/// at most `max_rounds` rounds.
///
/// The loop stops as soon as every pass has seen the module as it is and left it alone, which
/// may be in the middle of a round. Every pass of a clean-up list is idempotent (a second run
/// right after its own changes finds nothing: it works to its own fixpoint), so the pass that
/// made the last change has seen the module as it is too: after a change, the loop ends once
/// the *other* passes have each run once without a change. The passes run in exactly the
/// sequence of whole rounds up to that point, so the result is the module whole rounds would
/// give (their extra runs are no-ops), without the re-runs of passes that already saw the final
/// module: typically the second round ends right before the pass that made the first round's
/// last change.
///
/// The module's change log is on during the loop: a pass with a `settled` check
/// ([`crate::registry::PassInfo`]) is not run again when the changes since its last run give
/// it nothing to do (the check over-approximates its work, so the skip is a run that changes
/// nothing), unless the module is to be printed after it. Across loops, a pass is not run at
/// all when the module is still at the version its last run in a loop left
/// ([`PassManager::settled_at`]; the passes are idempotent): a pipeline runs the clean-up loop
/// several times (after legalization, in the optimizer, after `int-to-float`, after
/// `vectorize`), often over a module that the passes between them left alone. With
/// verification on, each skipped pass also runs on a copy, which must come out unchanged.
pub fn fixpoint(
    pm: &mut PassManager,
    m: &mut Module,
    passes: &[&str],
    max_rounds: usize,
) -> Result<(), PassError> {
    m.start_change_log();
    let result = fixpoint_rounds(pm, m, passes, max_rounds);
    m.stop_change_log();
    result
}

fn fixpoint_rounds(
    pm: &mut PassManager,
    m: &mut Module,
    passes: &[&str],
    max_rounds: usize,
) -> Result<(), PassError> {
    // Passes that have seen the module as it is: the last one that changed it, and those run
    // since without changing anything.
    let mut settled = 0;
    // The change-log position right after each pass's last run.
    let mut marks: Vec<Option<ChangeMark>> = vec![None; passes.len()];
    for _ in 0..max_rounds {
        for (i, name) in passes.iter().enumerate() {
            let pass = find(name).ok_or_else(|| PassError::UnknownPass((*name).into()))?;
            let printed = pm.options.print_after.wants(name);
            let skip = !printed
                && (pm.settled_at(pass.name) == Some(m.version())
                    || match (pass.settled, marks[i]) {
                        (Some(check), Some(mark)) => {
                            m.changes_since(mark).is_some_and(|c| check(m, c))
                        }
                        _ => false,
                    });
            if skip && pm.options.verify {
                check_skip(pm, m, pass)?;
            }
            m.take_unsettled();
            let changed = !skip && pm.run(m, pass)?;
            if m.take_unsettled() {
                // The pass stopped before its fixpoint (a round limit): it has not seen the
                // module as it is, and must run again, whatever changes since.
                pm.forget_settled_pass(pass.name);
                marks[i] = None;
                settled = 0;
                continue;
            }
            pm.note_settled(pass.name, m.version());
            marks[i] = m.change_mark();
            settled = if changed { 1 } else { settled + 1 };
            if settled == passes.len() {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// With verification on: a skipped pass, run on a copy, must leave the module as it is.
fn check_skip(pm: &PassManager, m: &Module, pass: &PassInfo) -> Result<(), PassError> {
    let mut copy = m.clone();
    let changed = (pass.run)(&mut copy, &pm.context)?;
    // The analyses built for the copy are no pass's cost.
    pm.context.analyses.take_spent();
    if changed || copy != *m {
        return Err(PassError::Verifier {
            pass: pass.name,
            errors: "the clean-up loop skipped the pass as settled, but it changes the module"
                .into(),
        });
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
    fixpoint(
        pm,
        m,
        &[
            "const-fold",
            "simplify",
            "gvn",
            "licm",
            "dissolve-loops",
            "cfg-cleanup",
            "dce",
        ],
        4,
    )?;
    if !caps.integers {
        step(pm, m, "int-to-float")?;
        cleanup(pm, m)?;
    }
    if level >= 2 {
        if caps.vectorize && step(pm, m, "vectorize")? {
            cleanup(pm, m)?;
        }
        step(pm, m, "dead-io")?;
        step(pm, m, "dce")?;
    }
    Ok(())
}

/// The pipelines, as a target asks for one (`Target::pipeline`) or `irc opt --pipeline`
/// names one (`frontend`, `legalize`, `opt`; `NAME:TARGET` selects a target's capabilities
/// through the target registry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PipelineKind {
    /// Raw IR to structured SSA.
    Frontend,
    /// [`legalize_ir`]: IR the target can take.
    Legalize,
    /// [`optimize`]: legalize, then the optimizer at the context's `opt_level`.
    Optimize,
}

impl PipelineKind {
    pub const ALL: [PipelineKind; 3] = [
        PipelineKind::Frontend,
        PipelineKind::Legalize,
        PipelineKind::Optimize,
    ];
    /// The name `irc opt --pipeline` and `irc corpus --check` use.
    pub fn name(self) -> &'static str {
        match self {
            PipelineKind::Frontend => "frontend",
            PipelineKind::Legalize => "legalize",
            PipelineKind::Optimize => "opt",
        }
    }
    pub fn from_name(name: &str) -> Option<PipelineKind> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Runs pipeline `kind` with the capabilities already in `pm.context.caps`.
pub fn run(pm: &mut PassManager, m: &mut Module, kind: PipelineKind) -> Result<(), PassError> {
    pm.forget_settled();
    // Before any pass removes code: a D3D9 shader whose legacy ops all sit in dead code is
    // still one (found by fuzz-diff, `legacy-mul=clamp`, seeds 100001652 and 100004826).
    // It holds for this module only: a later pass or pipeline run by other means on the same
    // manager decides on its own module again.
    pm.context.legacy_shader = Some(crate::legacy_clamp::has_legacy_ops(m));
    let result = match kind {
        PipelineKind::Frontend => frontend(pm, m),
        PipelineKind::Legalize => legalize_ir(pm, m),
        PipelineKind::Optimize => optimize(pm, m),
    };
    pm.context.legacy_shader = None;
    result
}
