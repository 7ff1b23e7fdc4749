//! `gvn`: global value numbering over the dominator tree (common-subexpression elimination),
//! phi simplification and trivial-phi removal.
//!
//! The pass works on one function at a time. It walks the dominator tree in preorder with a
//! scoped hash table that maps the *key* of a pure op to the op that first computed it. The
//! key is the op itself — opcode, flags, result type and operands — with the operands of a
//! commutative op put in id order (see [`crate::gvn_pure`] for what is pure and what
//! commutes). When the walk meets an op whose key is in the table, the op in the table is in a
//! block that dominates the current one (or earlier in the same block), so it dominates every
//! use of the current op: all uses are redirected to it and the current op is removed. Since
//! uses are redirected at once, the operands of later ops already name the surviving value
//! numbers, and chains of redundant ops collapse in a single walk. On leaving a block its
//! entries are popped from the table (an undo log), so ops in sibling branches, which do not
//! dominate each other, are never merged.
//!
//! Flags are part of the key: a `precise` op and a plain one stay apart, as do loads with and
//! without `nonuniform`.
//!
//! Phis are numbered separately, per block: two phis of one block whose (predecessor, value)
//! pairs are equal (in any order) and that have the same type and flags compute the same
//! value, and the later one is replaced by the earlier one. After the walk, phis that merge a
//! single value (ignoring self-references, including ones that became trivial because their
//! operands were merged) are replaced by that value with the frontend's
//! [`irc_ir::ssa_util::remove_trivial_phis`] worklist.
//!
//! Merging two phis or removing a trivial one can make more ops identical (their operands were
//! different phis before), and the walk sees the operands of a loop header's phis coming from
//! the back edge only after the phis, so the function is processed again while something
//! changes, at most [`MAX_ROUNDS`] times. Each round is linear in the size of the function
//! (one hash lookup per op, one use-list rewrite per removed op). The table holds no copies of
//! ops: it maps the hash of an op's key ([`value_hash`], computed in place) to the ops with
//! that hash, and a hit is confirmed by comparing the two ops in place ([`same_value`]). The
//! pass removes only pure ops and phis, never a label or terminator, so the CFG and dominator
//! tree of a function are built once for all its rounds; a further round runs only when phis
//! were merged or removed, or an op a phi reads was merged (two phis of a loop header may have
//! become equal; merges of ops without phi users are complete after one preorder walk).

use crate::caps::PassContext;
use crate::gvn_pure::{is_pure, phi_key, same_value, value_hash};
use crate::PassError;
use irc_ir::analysis::{functions, Block, Cfg, DomTree};
use irc_ir::{Changes, Module, Op, OpCode, SsaDef};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Rounds per function at most (the first does nearly all the work).
pub const MAX_ROUNDS: usize = 4;

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    let mut changed = false;
    let mut w = Walk::default();
    for f in functions(m) {
        let cfg = cx.analyses.cfg(m, f);
        let Some(entry) = cfg.entry() else {
            continue;
        };
        let dom = cx.analyses.dom(&cfg);
        let mut phis = true;
        for _ in 0..MAX_ROUNDS {
            let any;
            (any, phis) = number_function(m, &cfg, &dom, entry, &mut w);
            changed |= any;
            if !phis {
                break;
            }
        }
        if phis {
            // The last round still merged phis: this function may have more to merge.
            m.note_unsettled();
        }
    }
    Ok(changed)
}

/// True if a run would change nothing after `changes`, the last run having left the module
/// at gvn's fixpoint (a run that stops at [`MAX_ROUNDS`] with work left notes an unsettled
/// module, which counts as a dominance change). New work needs a change of dominance (a block
/// that now dominates another, as after a folded branch; merging chains of blocks, removing
/// unreachable ones, bypassing empty arms and dissolving one-trip loops keep dominance,
/// `Module::keeping_dominance`) or
/// a pure op whose key (opcode, flags, type, operand ids) changed since: a touched op; or a
/// load that became pure, when the `DescriptorLoad` it reads through was
/// rewritten in place (its users are asked then); or a touched phi that became trivial or
/// equal to another phi of its block (an operand replaced by another pass). Constants and
/// undefs are keys' operands by id, so a rewritten one changes no key; a changed declaration
/// of another kind (other than debug info) is taken as new work. Two ops with one key share
/// every operand, so an op without an equal among the users of its least-used operand has
/// nothing to merge with.
pub fn settled(m: &Module, changes: Changes) -> bool {
    if changes.dominance_changed {
        return false;
    }
    changes.all_distinct(|t| {
        if !m.is_live(t) {
            return true;
        }
        match m.opcode(t) {
            OpCode::Constant | OpCode::Undef => true,
            o if o.is_declarative() => o.is_meta(),
            OpCode::DescriptorLoad if !changes.created(t) => {
                !may_merge(m, t) && m.uses(t).iter().all(|&u| !may_merge(m, u))
            }
            OpCode::Phi => !phi_may_merge(m, t),
            _ => !may_merge(m, t),
        }
    })
}

/// True if a run would remove phi `d`: it is trivial (one incoming value, ignoring itself), or
/// another phi of its block has its key ([`phi_key`]).
fn phi_may_merge(m: &Module, d: SsaDef) -> bool {
    if irc_ir::ssa_util::trivial_phi_value(m, d).is_some() {
        return true;
    }
    // The phis of a block are adjacent, right after its label.
    let key = phi_key(m.op(d));
    let same = |e: SsaDef| m.opcode(e) == OpCode::Phi && phi_key(m.op(e)) == key;
    let mut before = m.prev(d);
    while let Some(e) = before.filter(|&e| m.opcode(e) == OpCode::Phi) {
        if same(e) {
            return true;
        }
        before = m.prev(e);
    }
    let mut after = m.next(d);
    while let Some(e) = after.filter(|&e| m.opcode(e) == OpCode::Phi) {
        if same(e) {
            return true;
        }
        after = m.next(e);
    }
    false
}

/// True if `d` is a pure op that another live op may compute too.
fn may_merge(m: &Module, d: SsaDef) -> bool {
    if !is_pure(m, d) {
        return false;
    }
    let op = m.op(d);
    // An op with the same key references every value `d` references (a commutative op's two
    // operands in either order): the shortest of their use lists holds it.
    let Some(fewest) = op.ref_defs().min_by_key(|&r| m.uses(r).len()) else {
        return true;
    };
    m.uses(fewest)
        .iter()
        .any(|&u| u != d && m.is_live(u) && same_value(m.op(u), op))
}

/// One round over the function of `cfg`; returns whether anything was merged or removed, and
/// whether a phi was (which calls for another round).
fn number_function(
    m: &mut Module,
    cfg: &Cfg,
    dom: &DomTree,
    entry: Block,
    w: &mut Walk,
) -> (bool, bool) {
    w.table.clear();
    // Room for every op of the function at once (the table would otherwise regrow, rehashing,
    // about log2(n) times per round).
    w.table.reserve(cfg.op_count());
    w.undo.clear();
    w.phis.clear();
    w.changed = false;
    w.phi_merged = false;
    w.phi_operand_merged = false;
    // Iterative preorder walk: (block, next child, undo-log mark of the block's scope).
    let mut stack: Vec<(Block, usize, usize)> = Vec::new();
    w.visit(m, cfg, entry);
    stack.push((entry, 0, 0));
    while let Some(top) = stack.last_mut() {
        if let Some(&c) = dom.children(top.0).get(top.1) {
            top.1 += 1;
            let mark = w.undo.len();
            w.visit(m, cfg, c);
            stack.push((c, 0, mark));
        } else {
            let (_, _, mark) = stack.pop().expect("non-empty stack");
            for h in w.undo.drain(mark..) {
                if let Some(v) = w.table.get_mut(&h) {
                    v.pop();
                    if v.is_empty() {
                        w.table.remove(&h);
                    }
                }
            }
        }
    }
    w.phis.retain(|&p| m.is_live(p));
    irc_ir::ssa_util::remove_trivial_phis(m, w.phis.clone());
    let phis = w.phi_merged || w.phi_operand_merged || w.phis.iter().any(|&p| !m.is_live(p));
    (w.changed || phis, phis)
}

/// State of one dominator-tree walk (kept across functions and rounds for its allocations).
#[derive(Default)]
struct Walk {
    /// Hash of the key of a pure op → the ops with that hash that compute it, for the blocks
    /// on the current tree path (innermost last).
    table: FxHashMap<u64, SmallVec<[SsaDef; 1]>>,
    /// Hashes inserted, in order, so leaving a block can take its own entries out.
    undo: Vec<u64>,
    /// Every phi kept, for the trivial-phi sweep.
    phis: Vec<SsaDef>,
    changed: bool,
    /// A phi was merged into another in this round.
    phi_merged: bool,
    /// An op a phi reads was merged into another in this round: two phis of a block the walk
    /// has passed (a loop header, whose back-edge values come later) may have become equal.
    phi_operand_merged: bool,
}

impl Walk {
    fn visit(&mut self, m: &mut Module, cfg: &Cfg, b: Block) {
        let mut block_phis: FxHashMap<Op, SsaDef> = FxHashMap::default();
        for &d in &cfg.ops(b)[1..] {
            if !m.is_live(d) {
                continue;
            }
            if m.opcode(d) == OpCode::Phi {
                let key = phi_key(m.op(d));
                match block_phis.get(&key) {
                    Some(&e) => {
                        self.replace(m, d, e);
                        self.phi_merged = true;
                    }
                    None => {
                        block_phis.insert(key, d);
                        self.phis.push(d);
                    }
                }
            } else if is_pure(m, d) {
                let op = m.op(d);
                let h = value_hash(op);
                let hit = self
                    .table
                    .get(&h)
                    .and_then(|v| v.iter().copied().find(|&e| same_value(m.op(e), op)));
                match hit {
                    Some(e) => self.replace(m, d, e),
                    None => {
                        self.table.entry(h).or_default().push(d);
                        self.undo.push(h);
                    }
                }
            }
        }
    }

    /// Redirects the uses of `d` to the equivalent, dominating `e` and removes `d`.
    fn replace(&mut self, m: &mut Module, d: SsaDef, e: SsaDef) {
        if m.uses(d).iter().any(|&u| m.opcode(u) == OpCode::Phi) {
            self.phi_operand_merged = true;
        }
        m.replace_all_uses(d, e);
        m.remove(d);
        self.changed = true;
    }
}
