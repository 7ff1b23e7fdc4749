//! Early discard: a `Demote` after which no quad operation can run ends the lane at once.
//!
//! The IR's `Demote` (D3D `discard`/`texkill`) turns the invocation into a *helper*: it keeps
//! running so that the derivatives and implicit-LOD fetches of its quad stay defined, and its
//! outputs are dropped. The lowering implements that literally — `Demote` sets a per-lane kill
//! flag and the exit branches to a shared `discard` on it — which costs a flag write per
//! `Demote`, the flag's initialisation and a test plus an extra instruction at the exit.
//!
//! The PP's `discard` (reference §4.8, §6: "discard-if = conditional branch to the discard
//! block") ends the lane: it stops, flagged discarded, and its registers stay frozen for any
//! later quad operation of its neighbours. This pass replaces a `Demote` by a jump to a shared
//! block holding only `discard` (laid out last, as Mesa does) when **no quad operation is
//! reachable** from the point after the `Demote` — the rest of its block, and every block a
//! path reaches from there (loops included). Then the two agree:
//!
//! * The lane's own results after the `Demote` are unobservable: its outputs are dropped, and
//!   the PP has no other side effect (the temporary stack is private to the lane).
//! * A quad operation reads the lane's values only when it runs while the lane is a member of
//!   the quad's converged execution. If the lane, under the IR's semantics, took part in a
//!   quad operation after the `Demote`, that operation would be reachable from the `Demote`.
//!   So every quad operation that runs after the lane passed the `Demote` runs in divergent
//!   control flow — undefined in D3D under either implementation (the simulator counts it as
//!   divergent under both, since the lane can never reach that instruction in the old code
//!   either).
//! * A lane that would have looped forever after the `Demote` now terminates (discarded),
//!   which no defined execution can tell apart.
//!
//! Where a quad operation is reachable (a derivative or an implicit-LOD sample after the
//! `Demote`, or anywhere in a loop around it), the kill flag stays, and so it does everywhere
//! when no exit would stay reachable (the exit names the output registers). When no flag-setting
//! `Demote` remains, the exits stop testing the flag (its writes then die in DCE).

use crate::pp::mir::{Alu, Block, Kind, MOp, Program, Terminator};

/// Whether `op` computes across the quad (reads the other lanes' values).
pub fn is_quad_op(op: &MOp) -> bool {
    match &op.kind {
        Kind::Alu(alu) => match alu {
            Alu::DdxRaw | Alu::DdyRaw => true,
            Alu::Mov
            | Alu::Mul
            | Alu::Add
            | Alu::Min
            | Alu::Max
            | Alu::Gt
            | Alu::Ge
            | Alu::Eq
            | Alu::Ne
            | Alu::Not
            | Alu::And
            | Alu::Or
            | Alu::Floor
            | Alu::Ceil
            | Alu::Fract
            | Alu::Sum3
            | Alu::Sum4
            | Alu::Rcp
            | Alu::Rsqrt
            | Alu::Sqrt
            | Alu::Exp2
            | Alu::Log2
            | Alu::Sin
            | Alu::Cos => false,
        },
        // Implicit LOD and LOD bias derive the level from the quad's coordinates.
        Kind::Texture { lod, .. } => !matches!(lod, Some((_, _, true))),
        Kind::Mad
        | Kind::Clamp
        | Kind::CompareEq(_)
        | Kind::Select(_)
        | Kind::ScaleVec
        | Kind::Varying { .. }
        | Kind::Special(_)
        | Kind::Spill { .. } => false,
    }
}

/// Whether a quad operation can run after op `at` of block `b` (ops `at + 1..`, then every
/// block reachable from `b`, `b` itself in full if a loop leads back to it).
fn quad_op_reachable(p: &Program, b: usize, at: usize) -> bool {
    if p.blocks[b].ops[at + 1..].iter().any(is_quad_op) {
        return true;
    }
    let succs = p.succs();
    let mut seen = vec![false; p.blocks.len()];
    let mut stack: Vec<usize> = succs[b].clone();
    while let Some(x) = stack.pop() {
        if std::mem::replace(&mut seen[x], true) {
            continue;
        }
        if p.blocks[x].ops.iter().any(is_quad_op) {
            return true;
        }
        stack.extend(succs[x].iter().copied());
    }
    false
}

/// Replaces the `Demote`s at `sites` (block, index of the op setting the kill flag) that no
/// quad operation follows by a jump to a shared discard block; returns how many it replaced.
pub fn early_discards(p: &mut Program, sites: &[(usize, usize)]) -> usize {
    if sites.is_empty() {
        // Most shaders: nothing to try, no copy of the program.
        return 0;
    }
    // A program that discards on every path keeps its exit (and the output registers the
    // reflection names) through the kill flag.
    let mut trial = p.clone();
    let n = replace(&mut trial, sites);
    let reach = irc_backend::machine::cfg::reachable(&trial);
    let exit_reached = trial
        .blocks
        .iter()
        .zip(reach)
        .any(|(b, r)| r && matches!(b.term, Terminator::Exit { .. }));
    if n > 0 && exit_reached {
        *p = trial;
        n
    } else {
        0
    }
}

/// [`early_discards`] without the exit check.
fn replace(p: &mut Program, sites: &[(usize, usize)]) -> usize {
    // Decide on the unchanged program (replacing one site only removes paths).
    let mut early: Vec<(usize, usize)> = sites
        .iter()
        .copied()
        .filter(|&(b, i)| !quad_op_reachable(p, b, i))
        .collect();
    if early.is_empty() {
        return 0;
    }
    // The first `Demote` of a block ends it; later ones in the same block are unreachable.
    early.sort_unstable();
    early.dedup_by_key(|s| s.0);
    let discard = p.blocks.len();
    p.blocks.push(Block {
        ops: Vec::new(),
        term: Terminator::Discard,
        depth: 0,
    });
    for &(b, i) in &early {
        p.blocks[b].ops.truncate(i);
        p.blocks[b].term = Terminator::Jump(discard);
    }
    // Predecessors of a block left empty branch to the discard block directly.
    for &(b, _) in &early {
        if b != 0 && p.blocks[b].ops.is_empty() {
            for blk in &mut p.blocks {
                blk.term.for_each_target(|t| {
                    if *t == b {
                        *t = discard;
                    }
                });
            }
        }
    }
    let flag_left = sites
        .iter()
        .any(|s| !early.iter().any(|e| e.0 == s.0 && e.1 <= s.1));
    if !flag_left {
        for blk in &mut p.blocks {
            if let Terminator::Exit { kill } = &mut blk.term {
                *kill = None;
            }
        }
    }
    early.len()
}
