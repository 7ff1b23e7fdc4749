//! The longest chain of true dependences in one block: a lower bound on the instructions any
//! schedule of the block takes.
//!
//! In the machine layer a value read in the instruction that writes it does not exist (a target
//! with forwarding inside an instruction expresses it as one op, see [`super::deps`]), so along
//! a chain of ops each reading what the previous one wrote, every op sits in a strictly later
//! instruction than the one before. Only true dependences count here (a read of the
//! components an earlier op wrote, a load of a slot an earlier op stored): the reuse
//! constraints the scheduler also keeps (a write after a read or a write of the same
//! register) could be removed by renaming, so they are not part of a bound.
//!
//! Ops that may vanish after allocation (a move whose source and destination get the same
//! register) are given no length of their own, so the bound holds whether or not they stay.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{MachOp, Memory, Operands, Role};
use crate::regalloc::VReg;

/// The number of ops on the longest true-dependence chain of `ops` (0 for an empty block);
/// ops for which `vanishes` holds add nothing to a chain's length.
pub fn dependence_depth<O: MachOp>(ops: &[O], vanishes: impl Fn(&O) -> bool) -> u32 {
    let levels = dependence_levels(ops, vanishes);
    levels.tail.iter().copied().max().unwrap_or(0)
}

/// Where each op of a block sits on the true-dependence chains (ops for which `vanishes`
/// holds count for nothing, as in [`dependence_depth`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Levels {
    /// Per op: the ops on the longest chain that ends right before it. Each of them takes an
    /// instruction of its own before the op's, so the op can take no earlier instruction
    /// (counting from 0) than this.
    pub before: Vec<u32>,
    /// Per op: the ops on the longest chain that starts with it, itself included. The op and
    /// every later link take instructions of their own, so at least `tail − 1` instructions
    /// follow the op's (for an op that counts).
    pub tail: Vec<u32>,
}

/// The [`Levels`] of `ops`.
pub fn dependence_levels<O: MachOp>(ops: &[O], vanishes: impl Fn(&O) -> bool) -> Levels {
    let n = ops.len();
    let mut before = vec![0u32; n];
    let own: Vec<u32> = ops.iter().map(|op| u32::from(!vanishes(op))).collect();
    // The true-dependence predecessors of every op, one flat list (CSR).
    let mut offsets: Vec<u32> = Vec::with_capacity(n + 1);
    let mut preds: Vec<u32> = Vec::new();
    // Per register: the writes not yet fully overwritten, with the components they provide.
    let mut writes: FxHashMap<VReg, SmallVec<[(u32, u8); 2]>> = FxHashMap::default();
    let mut stores: FxHashMap<u32, u32> = FxHashMap::default();
    let mut operands = Operands::new();
    let mut memory: SmallVec<[Memory; 2]> = SmallVec::new();
    for (i, op) in ops.iter().enumerate() {
        offsets.push(preds.len() as u32);
        memory.clear();
        op.memory(&mut memory);
        for m in &memory {
            if let Memory::Load(slot) = m {
                if let Some(&s) = stores.get(slot) {
                    preds.push(s);
                }
            }
        }
        operands.clear();
        op.operands(&mut operands);
        for o in operands.iter().filter(|o| o.role == Role::Use) {
            for &(w, mask) in writes.get(&o.vreg).into_iter().flatten() {
                if mask & o.mask != 0 {
                    preds.push(w);
                }
            }
        }
        let start = offsets[i] as usize;
        before[i] = preds[start..]
            .iter()
            .map(|&p| before[p as usize] + own[p as usize])
            .max()
            .unwrap_or(0);
        for o in operands.iter().filter(|o| o.role == Role::Def) {
            let live = writes.entry(o.vreg).or_default();
            for w in live.iter_mut() {
                w.1 &= !o.mask;
            }
            live.retain(|w| w.1 != 0);
            live.push((i as u32, o.mask));
        }
        for m in &memory {
            if let Memory::Store(slot) = m {
                stores.insert(*slot, i as u32);
            }
        }
    }
    offsets.push(preds.len() as u32);
    // Successors come later in the block: a backward walk sees every successor of an op
    // before the op itself.
    let mut tail = vec![0u32; n];
    for i in (0..n).rev() {
        tail[i] += own[i];
        for &p in &preds[offsets[i] as usize..offsets[i + 1] as usize] {
            tail[p as usize] = tail[p as usize].max(tail[i]);
        }
    }
    Levels { before, tail }
}
