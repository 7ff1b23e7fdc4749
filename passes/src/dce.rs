//! `dce`: dead code elimination — removes ops, declarations and functions nothing needs.
//!
//! The pass is a mark-and-sweep over the whole module, which handles chains of dead ops and
//! dead phi cycles (phis used only by each other) in one go, in time linear in the module:
//!
//! 1. **Roots.** An op is needed for its own sake if it has an effect the program can observe:
//!    the `EntryPoint` and the execution-mode ops (`Set*`), output declarations (`DclOutput`,
//!    `DclOutputBuiltIn`, `DclXfb` — the shader interface), and, inside a function that is
//!    itself live, every op whose opcode has the `EFFECT` attribute (labels, terminators,
//!    stores, atomics, barriers, calls, `Demote`, emits, …). Two kinds of input declaration are
//!    kept even when never loaded because declaring them changes how a pixel shader runs: the
//!    `SampleId`/`SamplePosition` built-ins and inputs with `Sample` interpolation (both make
//!    the shader run per sample). dxbc-spirv removes those too; we are more careful.
//! 2. **Mark.** A worklist propagates liveness from each live op to every op it references.
//!    A `Function` becomes live when the `EntryPoint` or a live `FunctionCall` names it; only
//!    then are the effect ops of its body pushed as roots, so a function nobody calls stays
//!    unmarked together with its whole body. A live `Function` marks its `DclParam`s.
//! 3. **Sweep.** Every unmarked op that is not debug info (`DebugName`, `Semantic`, …) is
//!    removed: first all its reference operands are nulled (so dead ops referring to each
//!    other in any order, e.g. phi cycles or a dead function's forward branches, can go), then
//!    the op itself; [`Module::remove`] takes the debug ops naming it along.
//!
//! What goes: unused pure ops and loads (including phis and dead phi cycles), unused
//! constants and undefs, declarations nothing loads (inputs, resources, samplers, LDS,
//! scratch, temporaries, parameters of removed functions, push data, spec constants) and
//! functions neither the entry point nor a live call reaches.

use crate::caps::PassContext;
use crate::PassError;
use irc_ir::format::{DclInput, DclInputBuiltIn};
use irc_ir::{BuiltIn, EntityRef, InterpolationModes, Module, OpCode, Operand, SsaDef};
use rustc_hash::{FxHashMap, FxHashSet};

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    let live = mark(m);
    let dead: Vec<SsaDef> = m
        .iter()
        .filter(|&d| !live[d.index()] && !m.opcode(d).is_meta())
        .collect();
    remove_all(m, &dead);
    Ok(!dead.is_empty())
}

/// Marks every op that is needed (see the module docs); indexed by def index.
fn mark(m: &Module) -> Vec<bool> {
    // Effect ops of each function body, found in one walk over the code.
    let mut roots_of: FxHashMap<SsaDef, Vec<SsaDef>> = FxHashMap::default();
    let mut current: Option<SsaDef> = None;
    for d in m.code() {
        let opcode = m.opcode(d);
        match opcode {
            OpCode::Function => {
                current = Some(d);
                roots_of.entry(d).or_default();
            }
            _ => {
                if opcode.has_effect() {
                    if let Some(f) = current {
                        roots_of.entry(f).or_default().push(d);
                    }
                }
                if opcode == OpCode::FunctionEnd {
                    current = None;
                }
            }
        }
    }

    let mut live = vec![false; m.id_bound()];
    // Every live op is pushed once: room for all of them up front, not a regrowth per doubling.
    let mut work: Vec<SsaDef> = Vec::with_capacity(m.len());
    for d in m.declarations() {
        if is_declaration_root(m, d) {
            live[d.index()] = true;
            work.push(d);
        }
    }
    while let Some(d) = work.pop() {
        if m.opcode(d) == OpCode::Function {
            if let Some(roots) = roots_of.get(&d) {
                for &r in roots {
                    if !live[r.index()] {
                        live[r.index()] = true;
                        work.push(r);
                    }
                }
            }
        }
        for r in m.op(d).ref_defs() {
            if !live[r.index()] {
                live[r.index()] = true;
                work.push(r);
            }
        }
    }
    live
}

/// Declarations that are needed whether or not anything refers to them.
fn is_declaration_root(m: &Module, d: SsaDef) -> bool {
    let op = m.op(d);
    match op.opcode {
        OpCode::EntryPoint
        | OpCode::SetCsWorkgroupSize
        | OpCode::SetGsInstances
        | OpCode::SetGsInputPrimitive
        | OpCode::SetGsOutputVertices
        | OpCode::SetGsOutputPrimitive
        | OpCode::SetPsEarlyFragmentTest
        | OpCode::SetPsDepthGreaterEqual
        | OpCode::SetPsDepthLessEqual
        | OpCode::SetTessPrimitive
        | OpCode::SetTessDomain
        | OpCode::SetTessControlPoints
        | OpCode::SetFpMode
        | OpCode::DclOutput
        | OpCode::DclOutputBuiltIn
        | OpCode::DclXfb => true,
        // Per-sample execution is a property of the declaration, not of its loads.
        OpCode::DclInputBuiltIn => matches!(
            DclInputBuiltIn::of(op)
                .builtin()
                .and_then(BuiltIn::from_u64),
            Some(BuiltIn::SampleId | BuiltIn::SamplePosition)
        ),
        OpCode::DclInput => DclInput::of(op)
            .interpolation()
            .is_some_and(|f| f & u64::from(InterpolationModes::Sample.0) != 0),
        _ => false,
    }
}

/// Removes `dead` ops, which may refer to each other in any order but must not be used by any
/// op outside the list other than debug info. References between dead ops are nulled first so
/// that the removal order does not matter; references to surviving ops are dropped by
/// [`Module::remove`] itself.
///
/// Membership is a table over every id for long lists and a hash set for short ones: callers
/// such as `dissolve-loops` remove one small block at a time from large modules, where a
/// table per call costs a pass over every id (D3D9 shaders with hundreds of inlined helper
/// loops spent 2% of their `legalize` time zeroing those tables).
pub(crate) fn remove_all(m: &mut Module, dead: &[SsaDef]) {
    if dead.len() * SHORT_LIST_RATIO < m.id_bound() {
        let set: FxHashSet<SsaDef> = dead.iter().copied().collect();
        null_refs_between(m, dead, |r| set.contains(&r));
    } else {
        let mut is_dead = vec![false; m.id_bound()];
        for &d in dead {
            is_dead[d.index()] = true;
        }
        null_refs_between(m, dead, |r| is_dead[r.index()]);
    }
    for &d in dead {
        if m.is_live(d) {
            m.remove(d);
        }
    }
}

/// A dead list shorter than the module's ids over this ratio finds its members by hashing.
const SHORT_LIST_RATIO: usize = 32;

/// Nulls every operand of a `dead` op that refers to an op `is_dead` holds for.
fn null_refs_between(m: &mut Module, dead: &[SsaDef], is_dead: impl Fn(SsaDef) -> bool) {
    for &d in dead {
        let n = m.op(d).first_literal();
        for i in 0..n {
            if let Operand::Ref(r) = m.op(d).operands[i] {
                if is_dead(r) {
                    m.set_operand(d, i, Operand::Null);
                }
            }
        }
    }
}
