//! `licm`: loop-invariant code motion — hoists pure ops whose operands do not change in a loop
//! out of the loop, into its preheader.
//!
//! Per function, the pass builds the CFG and dominator tree and finds the loops:
//!
//! 1. **Loops.** A loop is a reachable `StructuredLoop` header `h` with at least one back edge
//!    (a predecessor that `h` dominates). Its blocks are the natural loop: `h` and every block
//!    that reaches a back-edge source without passing through `h` (a backward walk over
//!    predecessors). Blocks that leave the loop for good (a `break` arm, a `return` inside the
//!    loop) are not part of it and nothing is hoisted from them.
//! 2. **Preheader.** dxbc-spirv enters a loop by one `Branch %header` from the block before it.
//!    The pass requires exactly that: one reachable predecessor of `h` outside the loop, whose
//!    only successor is `h`. Ops are inserted right before that block's terminator, which stays
//!    last. A loop without such a block is left alone.
//! 3. **Hoisting.** Loops are processed innermost first (an inner loop has fewer blocks than
//!    any loop containing it), so an op hoisted into an inner loop's preheader — a block of the
//!    outer loop — is considered again for the outer loop. The blocks of a loop are visited in
//!    reverse post-order and their ops in order, so definitions come before uses. An op is
//!    hoisted if it is pure ([`crate::gvn_pure::is_pure`]: no effect, no state read — never a
//!    derivative, a sample with implicit LOD or a load from writable memory; not a phi) and each
//!    reference operand is a declaration or constant, or is defined in a block outside the
//!    loop, or was hoisted already. Its new position in the preheader dominates all its old
//!    uses: the preheader dominates the header, which dominates every block of the loop, and
//!    every use outside the loop was dominated by the op's old block.
//! 4. **Speculation.** A pure op has no effect and, in our semantics, the same result wherever
//!    it is computed, so running it when the loop body would not have (zero iterations, an arm
//!    not taken) is harmless — except for the accesses the interpreter can trap on with an
//!    out-of-range index and whose address is not statically in range
//!    ([`crate::gvn_pure::may_trap`]). Those are hoisted only from blocks that dominate every
//!    block leaving the loop: such a block runs on the first iteration before the loop can be
//!    left, with the same (invariant) operands, so the trap would have happened anyway.
//!
//! The work is linear in the size of each loop, so in total in the code size times the loop
//! nesting depth.

use crate::caps::PassContext;
use crate::gvn_pure::{is_pure, may_trap};
use crate::PassError;
use irc_ir::analysis::{construct, functions, Block, Cfg, DomTree, FunctionRange};
use irc_ir::{Construct, EntityRef, Module, OpCode, SsaDef};
use rustc_hash::{FxHashMap, FxHashSet};

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    let mut changed = false;
    for f in functions(m) {
        changed |= hoist_function(m, f);
    }
    Ok(changed)
}

/// A loop with a preheader.
struct Loop {
    preheader: Block,
    /// The loop's blocks in reverse post-order (the header first).
    blocks: Vec<Block>,
    members: FxHashSet<Block>,
}

fn hoist_function(m: &mut Module, f: FunctionRange) -> bool {
    let cfg = Cfg::build(m, f);
    if cfg.is_empty() {
        return false;
    }
    let dom = DomTree::compute(&cfg);
    let mut loops = find_loops(m, &cfg, &dom);
    loops.sort_by_key(|l| l.blocks.len());
    // Blocks of the ops hoisted so far (the CFG's op lists are not updated by moves).
    let mut moved: FxHashMap<SsaDef, Block> = FxHashMap::default();
    let mut changed = false;
    for l in &loops {
        let Some(term) = cfg.block(l.preheader).terminator else {
            continue;
        };
        let exits: Vec<Block> = l
            .blocks
            .iter()
            .copied()
            .filter(|&b| cfg.succs(b).iter().any(|s| !l.members.contains(s)))
            .collect();
        for &b in &l.blocks {
            let guaranteed = !exits.is_empty() && exits.iter().all(|&e| dom.dominates(b, e));
            for d in block_ops(m, cfg.label(b)) {
                if !is_pure(m, d) || (!guaranteed && may_trap(m, d)) {
                    continue;
                }
                let invariant = m.op(d).refs().all(|(_, v)| {
                    v.is_none_or(|v| {
                        let o = m.opcode(v);
                        if o.is_declarative() || matches!(o, OpCode::Label | OpCode::Function) {
                            return true;
                        }
                        moved
                            .get(&v)
                            .copied()
                            .or_else(|| cfg.block_of(v))
                            .is_some_and(|vb| !l.members.contains(&vb))
                    })
                });
                if invariant {
                    m.move_before(d, term);
                    moved.insert(d, l.preheader);
                    changed = true;
                }
            }
        }
    }
    changed
}

/// The ops of the block opened by `label`, without the label and the terminator, as they are
/// now in the module.
fn block_ops(m: &Module, label: SsaDef) -> Vec<SsaDef> {
    m.iter_from(label)
        .skip(1)
        .take_while(|&d| !m.opcode(d).is_terminator() && m.opcode(d) != OpCode::Label)
        .collect()
}

/// Every loop of the function that has a preheader (see the module docs).
fn find_loops(m: &Module, cfg: &Cfg, dom: &DomTree) -> Vec<Loop> {
    let mut rpo_index = vec![u32::MAX; cfg.len()];
    for (i, &b) in dom.reverse_post_order().iter().enumerate() {
        rpo_index[b.index()] = i as u32;
    }
    let mut loops = Vec::new();
    for &h in dom.reverse_post_order() {
        if !matches!(
            construct(m, cfg.label(h)),
            Some((Construct::StructuredLoop, _, _))
        ) {
            continue;
        }
        let latches: Vec<Block> = cfg
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| dom.is_reachable(p) && dom.dominates(h, p))
            .collect();
        if latches.is_empty() {
            continue;
        }
        let mut members: FxHashSet<Block> = FxHashSet::default();
        members.insert(h);
        let mut work = latches;
        while let Some(b) = work.pop() {
            if members.insert(b) {
                work.extend(
                    cfg.preds(b)
                        .iter()
                        .copied()
                        .filter(|&p| dom.is_reachable(p)),
                );
            }
        }
        let outside: Vec<Block> = cfg
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| dom.is_reachable(p) && !members.contains(&p))
            .collect();
        let [preheader] = outside[..] else { continue };
        if cfg.succs(preheader) != [h] || cfg.block(preheader).terminator.is_none() {
            continue;
        }
        let mut blocks: Vec<Block> = members.iter().copied().collect();
        blocks.sort_by_key(|b| rpo_index[b.index()]);
        loops.push(Loop {
            preheader,
            blocks,
            members,
        });
    }
    loops
}
