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
    let mut depth = vec![0u32; ops.len()];
    // Per register: the writes not yet fully overwritten, with the components they provide.
    let mut writes: FxHashMap<VReg, SmallVec<[(u32, u8); 2]>> = FxHashMap::default();
    let mut stores: FxHashMap<u32, u32> = FxHashMap::default();
    let mut operands = Operands::new();
    let mut memory: SmallVec<[Memory; 2]> = SmallVec::new();
    let mut deepest = 0;
    for (i, op) in ops.iter().enumerate() {
        let mut before = 0u32;
        memory.clear();
        op.memory(&mut memory);
        for m in &memory {
            if let Memory::Load(slot) = m {
                if let Some(&s) = stores.get(slot) {
                    before = before.max(depth[s as usize]);
                }
            }
        }
        operands.clear();
        op.operands(&mut operands);
        for o in operands.iter().filter(|o| o.role == Role::Use) {
            for &(w, mask) in writes.get(&o.vreg).into_iter().flatten() {
                if mask & o.mask != 0 {
                    before = before.max(depth[w as usize]);
                }
            }
        }
        depth[i] = before + u32::from(!vanishes(op));
        deepest = deepest.max(depth[i]);
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
    deepest
}
