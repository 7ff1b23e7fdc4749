//! `cfg-cleanup`: folds constant branches, removes unreachable and empty blocks, merges chains.
//!
//! Each function is cleaned in rounds until a round changes nothing (a fold can make a phi
//! trivial, whose constant value can let another branch fold). A round has three phases, each
//! one linear walk over a [`Cfg`] (rebuilt only after a phase that changed something), and a
//! sweep of the values they left unused:
//!
//! 1. **Fold branches.** `BranchConditional` on a `Constant` condition, or with two equal
//!    targets, becomes `Branch` to the target taken; `Switch` on a `Constant` selector becomes
//!    `Branch` to the matching case (the same constant def, or a constant with the same
//!    literal bits) or the default, and a `Switch` whose targets are all one label becomes a
//!    `Branch` to it. Targets that lose their edge drop the phi operand pair naming this block.
//!    A selection header whose branch became unconditional is no selection any more: its label
//!    becomes `Label None` (SPIR-V asks for a selection merge only before a conditional branch;
//!    dxbc-spirv's `CleanupControlFlowPass` does the same). A loop header keeps its construct.
//!    Caveat shared with dxbc-spirv: a `break` out of a switch from inside an `if` nested in the
//!    case that a constant selector picks then leaves that `if` other than through its merge;
//!    our verifier accepts this, a strict SPIR-V structurizer would not.
//! 2. **Remove unreachable blocks** (not reachable from the entry). Following dxbc-spirv and
//!    the frontend, blocks that a *reachable* header names survive in canonical form: an
//!    unreachable continue block becomes `Label None; Branch %header` (the loop needs its back
//!    edge; the header's phis get `Undef` for it), an unreachable merge block becomes
//!    `Label None; Unreachable`. Reachable successors of removed blocks drop the phi pairs
//!    naming them; a phi left with one pair is replaced by its value.
//! 3. **Simplify**, walking blocks in program order:
//!    - *Empty arms.* A block `E` = `Label None; Branch %T` (nothing else, not the entry, not
//!      named as merge or continue by any construct) whose single predecessor `H` is a
//!      selection header with merge `T` is bypassed: `H` branches to `T` directly. Phis in `T`
//!      rename `E`'s pair to `H`, or, if `H` already reaches `T` directly, require both pairs to
//!      carry the same value and drop `E`'s (else the arm stays: choosing between the values
//!      is if-conversion's business). If all of `H`'s targets are now `T`, `H` folds to a
//!      `Branch` as in phase 1. Only arms whose target is the header's own merge are bypassed,
//!      so every branch keeps a structured meaning (no selection header branches straight to
//!      an enclosing loop's merge or continue).
//!    - *Chains.* A block `B` whose single predecessor `P` ends in `Branch %B` is appended to
//!      `P` when `B` is not the entry, not a loop header and not named as merge or continue by
//!      any construct, and `P` is not a loop header. `B`'s phis (one pair each) are replaced by
//!      their values, its other ops move before `P`'s branch, which is removed with `B`'s label;
//!      phis in `B`'s successors now name `P`. If `B` was a selection header, `P` takes over its
//!      construct (`P` ended in an unconditional branch, so it declared none). Chains collapse
//!      in one walk: after absorbing `B`, `P` looks at `B`'s successor next. `P` may itself be a
//!      merge or continue block: its label stays, so constructs naming it are unaffected.
//!      Moving code earlier in program order can only turn a backward edge into a forward one,
//!      so the rule that only loop headers take back edges keeps holding.
//!
//! 4. **Sweep.** Values whose last use the round took away — the condition or selector of a
//!    folded branch, the values of dropped phi pairs, operands of removed blocks — are removed,
//!    with the operands they leave unused in turn, if `dce` would remove them (no effect; not
//!    a phi, label or declaration other than a constant). An arm that only computed such
//!    values is then empty for the next round: nested selections that fold away go in one
//!    run, where each level used to wait for a run of `dce` (and a round of the clean-up loop).
//!
//! Blocks changed by the empty-arm step are not merged in the same round (their snapshot
//! predecessor lists are stale); the next round takes them.
//!
//! Phases 2 and 3 run inside [`Module::keeping_dominance`]: removing unreachable blocks,
//! bypassing empty arms and merging chains leave every remaining block with the dominators it
//! had, so `gvn` need not run again for them. Folding a branch (phase 1) may not.

use crate::caps::PassContext;
use crate::dce::remove_all;
use crate::fold_util::remove_dead_where;
use crate::PassError;
use irc_ir::analysis::cfg::{self, branch_targets, Block, Cfg};
use irc_ir::format::{Branch, BranchConditional, Constant, Phi, Switch};
use irc_ir::{Construct, Module, Op, OpCode, Operand, SsaDef, Type};
use rustc_hash::FxHashSet;
use smallvec::SmallVec;

/// Upper bound on rounds per function; each round is linear, and real shaders settle in a few.
const MAX_ROUNDS: usize = 32;

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    let mut changed = false;
    for f in cfg::functions(m) {
        if !f.body(m).any(|d| m.opcode(d) == OpCode::Label) {
            continue;
        }
        for _ in 0..MAX_ROUNDS {
            // A phase that changed nothing leaves the CFG valid for the next one.
            let mut g = cx.analyses.cfg(m, f);
            // Folding rewrites terminators, labels and phis in place and adds no block, so
            // the reachability walk runs on the same CFG with the folded blocks' new targets.
            // Values whose last use an edit may have taken away (branch conditions, phi
            // operands, operands of removed blocks), swept at the end of the round.
            let mut lost = Vec::new();
            let taken = fold_branches(m, &g, &mut lost);
            let folded = !taken.is_empty();
            // Removing unreachable blocks and the edits of `simplify` (bypassing empty arms,
            // merging chains) leave every remaining block with the dominators it had: passes
            // that depend on dominance alone (`gvn`) need not run again for them.
            let removed = m.keeping_dominance(|m| remove_unreachable(m, &g, &taken, &mut lost));
            if folded | removed {
                g = cx.analyses.cfg(m, f);
            }
            let simplified = m.keeping_dominance(|m| simplify(m, &g, &mut lost));
            let swept = remove_dead_where(m, lost, sweepable);
            changed |= folded | removed | simplified | swept;
            if !(folded | removed | simplified | swept) {
                break;
            }
        }
    }
    if changed {
        // Dropping edges can leave loop phis whose only other operand is the phi itself.
        let phis: Vec<SsaDef> = m.code().filter(|&d| m.opcode(d) == OpCode::Phi).collect();
        irc_ir::ssa_util::remove_trivial_phis(m, phis);
    }
    Ok(changed)
}

// ----- helpers ---------------------------------------------------------------------------------

fn label_op(construct: Construct, refs: &[SsaDef]) -> Op {
    let mut op = Op::new(OpCode::Label, Type::void());
    for &r in refs {
        op = op.arg(r);
    }
    op.lit(construct.to_u64())
}

fn construct_kind(m: &Module, label: SsaDef) -> Construct {
    cfg::construct(m, label).map_or(Construct::None, |(k, _, _)| k)
}

/// True if some `Label` names `label` as its merge or continue block.
fn is_named(m: &Module, label: SsaDef) -> bool {
    m.uses(label)
        .iter()
        .any(|&u| m.opcode(u) == OpCode::Label && u != label)
}

/// The phis at the top of the block opened by `label`.
fn phis(m: &Module, label: SsaDef) -> SmallVec<[SsaDef; 4]> {
    let mut out = SmallVec::new();
    let mut cur = m.next(label);
    while let Some(d) = cur {
        if m.opcode(d) != OpCode::Phi {
            break;
        }
        out.push(d);
        cur = m.next(d);
    }
    out
}

/// The value a phi takes from predecessor `pred`.
fn phi_value(m: &Module, phi: SsaDef, pred: SsaDef) -> Option<SsaDef> {
    m.op(phi)
        .operands
        .chunks(2)
        .find(|p| p[0] == Operand::Ref(pred))
        .and_then(|p| p.get(1).and_then(|o| o.as_ref()))
}

/// Replaces `phi` by `value` (or `Undef` if it would be itself) and removes it.
fn replace_phi(m: &mut Module, phi: SsaDef, value: Option<SsaDef>) {
    let v = match value {
        Some(v) if v != phi => v,
        _ => m.add(Op::new(OpCode::Undef, m.ty(phi).clone())),
    };
    m.replace_all_uses(phi, v);
    m.remove(phi);
}

/// Drops the operand pairs naming `pred` from the phis of the block opened by `label`; a phi
/// left with one pair is replaced by its value. The dropped values go to `lost`.
fn drop_phi_pairs(m: &mut Module, label: SsaDef, pred: SsaDef, lost: &mut Vec<SsaDef>) {
    for phi in phis(m, label) {
        let op = m.op(phi);
        if !op.operands.chunks(2).any(|p| p[0] == Operand::Ref(pred)) {
            continue;
        }
        let mut new = Op::new(OpCode::Phi, op.ty.clone()).with_flags(op.flags);
        for p in op.operands.chunks(2) {
            if p[0] != Operand::Ref(pred) {
                new.operands.extend_from_slice(p);
            } else {
                lost.extend(p.get(1).and_then(|o| o.as_ref()));
            }
        }
        match new.operands.len() {
            0 => replace_phi(m, phi, None),
            2 => {
                let v = Phi::of(&new).pairs().next().and_then(|(_, v)| v);
                replace_phi(m, phi, v);
            }
            _ => m.rewrite(phi, new),
        }
    }
}

/// Renames the predecessor `old` to `new` in every phi that names it.
fn rename_phi_pred(m: &mut Module, old: SsaDef, new: SsaDef) {
    let users: SmallVec<[SsaDef; 4]> = m
        .uses(old)
        .iter()
        .copied()
        .filter(|&u| m.opcode(u) == OpCode::Phi)
        .collect();
    for p in users {
        for i in (0..m.op(p).operands.len()).step_by(2) {
            if m.op(p).operands[i] == Operand::Ref(old) {
                m.set_operand(p, i, Operand::Ref(new));
            }
        }
    }
}

/// Rewrites terminator `t` of the block `label` into `Branch %target`; a selection header
/// stops being one. The condition or selector `t` read goes to `lost`.
fn make_branch(m: &mut Module, label: SsaDef, t: SsaDef, target: SsaDef, lost: &mut Vec<SsaDef>) {
    lost.extend(m.op(t).ref_defs().filter(|&d| m.opcode(d) != OpCode::Label));
    m.rewrite(t, Op::new(OpCode::Branch, Type::void()).arg(target));
    if construct_kind(m, label) == Construct::StructuredSelection {
        m.rewrite(label, label_op(Construct::None, &[]));
    }
}

/// True for the ops the sweep removes once unused (see the module docs, *sweep*): those `dce`
/// would remove, code ops without an effect other than phis and labels, and constants.
fn sweepable(o: OpCode) -> bool {
    !(o.has_effect()
        || (o.is_declarative() && !matches!(o, OpCode::Constant | OpCode::Undef))
        || o.is_terminator()
        || o.is_meta()
        || matches!(o, OpCode::Phi | OpCode::Label | OpCode::Unknown))
}

// ----- phase 1 ---------------------------------------------------------------------------------

/// Folds the branches it can; returns the blocks whose terminator it folded, each with the
/// block it now branches to (`None`: a target that is no block of this function).
fn fold_branches(
    m: &mut Module,
    g: &Cfg,
    values_lost: &mut Vec<SsaDef>,
) -> Vec<(Block, Option<Block>)> {
    let mut folded = Vec::new();
    for b in g.blocks() {
        let Some(t) = g.block(b).terminator else {
            continue;
        };
        let op = m.op(t);
        let taken = match op.opcode {
            OpCode::BranchConditional => {
                let br = BranchConditional::of(op);
                let (Some(c), Some(tt), Some(ff)) = (br.cond(), br.if_true(), br.if_false()) else {
                    continue;
                };
                if tt == ff {
                    tt
                } else if m.opcode(c) == OpCode::Constant {
                    match Constant::of(m.op(c)).scalar(0) {
                        Some(v) if v != 0 => tt,
                        Some(_) => ff,
                        None => continue,
                    }
                } else {
                    continue;
                }
            }
            OpCode::Switch => {
                let sw = Switch::of(op);
                let (Some(sel), Some(default)) = (sw.selector(), sw.default()) else {
                    continue;
                };
                let targets = branch_targets(m, t);
                if targets.iter().all(|&x| x == default) {
                    default
                } else if m.opcode(sel) == OpCode::Constant {
                    let lits = &m.op(sel).operands;
                    sw.cases()
                        .chunks(2)
                        .find(|p| {
                            p[0].as_ref().is_some_and(|c| {
                                c == sel
                                    || (m.opcode(c) == OpCode::Constant
                                        && m.op(c).operands == *lits)
                            })
                        })
                        .and_then(|p| p.get(1).and_then(|o| o.as_ref()))
                        .unwrap_or(default)
                } else {
                    continue;
                }
            }
            _ => continue,
        };
        let mut lost = branch_targets(m, t);
        lost.retain(|x| *x != taken);
        lost.sort_unstable();
        lost.dedup();
        let label = g.label(b);
        make_branch(m, label, t, taken, values_lost);
        for l in lost {
            drop_phi_pairs(m, l, label, values_lost);
        }
        folded.push((b, g.block_of_label(taken)));
    }
    folded
}

// ----- phase 2 ---------------------------------------------------------------------------------

enum Keep {
    Continue { header: SsaDef },
    Merge,
}

/// Removes the blocks the entry does not reach. `g` may predate a [`fold_branches`] run whose
/// `folded` blocks now branch to the block given: their successors are taken from there, and
/// ops the fold removed (phis left with one pair) are skipped.
fn remove_unreachable(
    m: &mut Module,
    g: &Cfg,
    folded: &[(Block, Option<Block>)],
    lost: &mut Vec<SsaDef>,
) -> bool {
    let Some(entry) = g.entry() else {
        return false;
    };
    // The folded blocks' targets by block (empty, without allocating, when none was folded).
    let mut taken: Vec<Option<Option<Block>>> = Vec::new();
    if !folded.is_empty() {
        taken.resize(g.len(), None);
        for &(b, t) in folded {
            taken[b.as_u32() as usize] = Some(t);
        }
    }
    let succs = |b: Block| -> &[Block] {
        match taken.get(b.as_u32() as usize) {
            Some(Some(t)) => t.as_slice(),
            _ => g.succs(b),
        }
    };
    let mut reachable = vec![false; g.len()];
    let mut stack = vec![entry];
    reachable[entry.as_u32() as usize] = true;
    while let Some(b) = stack.pop() {
        for &s in succs(b) {
            if !reachable[s.as_u32() as usize] {
                reachable[s.as_u32() as usize] = true;
                stack.push(s);
            }
        }
    }
    let is_reachable = |b: Block| reachable[b.as_u32() as usize];
    if g.blocks().all(is_reachable) {
        return false;
    }

    // Merge and continue blocks that reachable headers name survive.
    let mut keep: Vec<Option<Keep>> = (0..g.len()).map(|_| None).collect();
    for b in g.blocks().filter(|&b| is_reachable(b)) {
        let Some((kind, merge, cont)) = cfg::construct(m, g.label(b)) else {
            continue;
        };
        if kind == Construct::None {
            continue;
        }
        if let Some(mb) = merge.and_then(|l| g.block_of_label(l)) {
            if !is_reachable(mb) && keep[mb.as_u32() as usize].is_none() {
                keep[mb.as_u32() as usize] = Some(Keep::Merge);
            }
        }
        if let Some(cb) = cont.and_then(|l| g.block_of_label(l)) {
            if !is_reachable(cb) {
                keep[cb.as_u32() as usize] = Some(Keep::Continue { header: g.label(b) });
            }
        }
    }

    let mut changed = false;
    let mut dead: Vec<SsaDef> = Vec::new();
    let mut rebuild: Vec<(SsaDef, Op)> = Vec::new();
    let mut continue_fixups: Vec<(SsaDef, SsaDef)> = Vec::new();
    for b in g.blocks().filter(|&b| !is_reachable(b)) {
        let data = g.block(b);
        let label = data.label;
        let kept = &keep[b.as_u32() as usize];
        let want = match kept {
            Some(Keep::Continue { header }) => {
                Some(Op::new(OpCode::Branch, Type::void()).arg(*header))
            }
            Some(Keep::Merge) => Some(Op::new(OpCode::Unreachable, Type::void())),
            None => None,
        };
        // Edges out of this block disappear, except a kept continue block's back edge.
        for &s in succs(b) {
            let keeps_edge =
                matches!(kept, Some(Keep::Continue { header }) if g.label(s) == *header);
            if is_reachable(s) && !keeps_edge {
                drop_phi_pairs(m, g.label(s), label, lost);
                changed = true;
            }
        }
        if let Some(Keep::Continue { header }) = kept {
            continue_fixups.push((*header, label));
        }
        let live_ops = || g.ops(b).iter().copied().filter(|&d| m.is_live(d));
        match want {
            Some(term) => {
                let canonical = live_ops().count() == 2
                    && construct_kind(m, label) == Construct::None
                    && data.terminator.is_some_and(|t| *m.op(t) == term);
                if !canonical {
                    dead.extend(live_ops().skip(1));
                    rebuild.push((label, term));
                }
            }
            None => dead.extend(live_ops()),
        }
    }
    if dead.is_empty() && rebuild.is_empty() && !changed {
        return false;
    }
    let dead_set: FxHashSet<SsaDef> = dead.iter().copied().collect();
    // Header phis: the kept continue block contributes Undef (its own values are gone).
    for (header, cont) in continue_fixups {
        for phi in phis(m, header) {
            match m
                .op(phi)
                .operands
                .chunks(2)
                .position(|p| p[0] == Operand::Ref(cont))
            {
                Some(i) => {
                    let v = m.op(phi).operands[2 * i + 1].as_ref();
                    if v.is_some_and(|v| dead_set.contains(&v)) {
                        let u = m.add(Op::new(OpCode::Undef, m.ty(phi).clone()));
                        m.set_operand(phi, 2 * i + 1, Operand::Ref(u));
                        changed = true;
                    }
                }
                None => {
                    let u = m.add(Op::new(OpCode::Undef, m.ty(phi).clone()));
                    let mut op = m.op(phi).clone();
                    op.operands.push(Operand::Ref(cont));
                    op.operands.push(Operand::Ref(u));
                    m.rewrite(phi, op);
                    changed = true;
                }
            }
        }
    }
    // Values of removed blocks still used elsewhere (never in valid SSA) become Undef.
    for &d in &dead {
        let outside = m
            .uses(d)
            .iter()
            .any(|u| !dead_set.contains(u) && !m.opcode(*u).is_meta());
        if outside && !m.ty(d).is_void() {
            let u = m.add(Op::new(OpCode::Undef, m.ty(d).clone()));
            m.replace_all_uses(d, u);
        }
    }
    for &d in &dead {
        lost.extend(m.op(d).ref_defs().filter(|r| !dead_set.contains(r)));
    }
    // Kept labels first stop naming blocks that are about to go.
    for (label, _) in &rebuild {
        m.rewrite(*label, label_op(Construct::None, &[]));
    }
    remove_all(m, &dead);
    for (label, term) in rebuild {
        m.insert_after(label, term);
    }
    changed || !dead.is_empty()
}

// ----- phase 3 ---------------------------------------------------------------------------------

fn simplify(m: &mut Module, g: &Cfg, lost: &mut Vec<SsaDef>) -> bool {
    let Some(entry) = g.entry() else {
        return false;
    };
    let idx = |b: Block| b.as_u32() as usize;
    let mut dirty = vec![false; g.len()];
    let mut changed = false;

    // Empty arms.
    for e in g.blocks() {
        let data = g.block(e);
        let (Some(t), [h]) = (data.terminator, g.preds(e)) else {
            continue;
        };
        let h = *h;
        if e == entry
            || g.ops(e).len() != 2
            || m.opcode(t) != OpCode::Branch
            || dirty[idx(e)]
            || dirty[idx(h)]
        {
            continue;
        }
        let el = data.label;
        if construct_kind(m, el) != Construct::None || is_named(m, el) {
            continue;
        }
        let Some(target) = Branch::of(m.op(t)).target() else {
            continue;
        };
        let hl = g.label(h);
        let Some((Construct::StructuredSelection, Some(merge), _)) = cfg::construct(m, hl) else {
            continue;
        };
        let Some(tb) = g.block_of_label(target) else {
            continue;
        };
        if merge != target || target == el || dirty[idx(tb)] {
            continue;
        }
        let h_reaches_t = g.preds(tb).contains(&h);
        let tphis = phis(m, target);
        if h_reaches_t
            && !tphis
                .iter()
                .all(|&p| phi_value(m, p, el) == phi_value(m, p, hl))
        {
            continue;
        }
        if h_reaches_t {
            for &p in &tphis {
                let op = m.op(p);
                let mut new = Op::new(OpCode::Phi, op.ty.clone()).with_flags(op.flags);
                for pair in op.operands.chunks(2) {
                    if pair[0] != Operand::Ref(el) {
                        new.operands.extend_from_slice(pair);
                    }
                }
                m.rewrite(p, new);
            }
        } else {
            rename_phi_pred(m, el, hl);
        }
        let ht = g.block(h).terminator.expect("predecessor has a terminator");
        for i in 0..m.op(ht).operands.len() {
            if m.op(ht).operands[i] == Operand::Ref(el) {
                m.set_operand(ht, i, Operand::Ref(target));
            }
        }
        if branch_targets(m, ht).iter().all(|&x| x == target) {
            make_branch(m, hl, ht, target, lost);
        }
        m.remove(t);
        m.remove(el);
        dirty[idx(e)] = true;
        dirty[idx(h)] = true;
        dirty[idx(tb)] = true;
        changed = true;
    }

    // Chains.
    let mut merged = vec![false; g.len()];
    for p in g.blocks() {
        if dirty[idx(p)] || merged[idx(p)] {
            continue;
        }
        let pl = g.label(p);
        if construct_kind(m, pl) == Construct::StructuredLoop {
            continue;
        }
        let Some(mut t) = g.block(p).terminator else {
            continue;
        };
        loop {
            if m.opcode(t) != OpCode::Branch || construct_kind(m, pl) != Construct::None {
                break;
            }
            let Some(bl) = Branch::of(m.op(t)).target() else {
                break;
            };
            let Some(b) = g.block_of_label(bl) else {
                break;
            };
            if b == p
                || b == entry
                || merged[idx(b)]
                || dirty[idx(b)]
                || g.preds(b).len() != 1
                || construct_kind(m, bl) == Construct::StructuredLoop
                || is_named(m, bl)
            {
                break;
            }
            let Some(bt) = g.block(b).terminator else {
                break;
            };
            // B's phis have one pair each.
            for phi in phis(m, bl) {
                let v = Phi::of(m.op(phi)).pairs().next().and_then(|(_, v)| v);
                replace_phi(m, phi, v);
            }
            for &d in &g.ops(b)[1..] {
                if m.is_live(d) {
                    m.move_before(d, t);
                }
            }
            m.remove(t);
            if construct_kind(m, bl) == Construct::StructuredSelection {
                let op = m.op(bl).clone();
                m.rewrite(pl, op);
            }
            rename_phi_pred(m, bl, pl);
            m.remove(bl);
            merged[idx(b)] = true;
            changed = true;
            t = bt;
        }
    }
    changed
}
