//! The dependence graph of one block's ops, for list schedulers.
//!
//! From [`MachOp::operands`] and [`MachOp::memory`], in program order:
//!
//! * a read waits for the latest writes of its register (every component write not yet
//!   fully overwritten);
//! * a write waits for every earlier read of its register and for the earlier writes that
//!   overlap its components;
//! * a load waits for the earlier stores of its slot, a store for the earlier loads of it.
//!
//! "Waits for" means *placed in a strictly later instruction*: values never pass through the
//! register file inside one instruction (targets with forwarding inside an instruction express
//! it as one op). [`Deps::height`] is the critical-path length from each op to the end of the
//! block (1 for an op nothing depends on), the usual list-scheduling priority.
//!
//! The graph is built in one pass with one hash lookup per operand (registers are renumbered
//! densely per block, so a block's graph costs nothing per register of the whole program) and
//! stored as one flat predecessor list (CSR), not a list per op.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{MachOp, Memory, Operands, Role};
use crate::regalloc::VReg;

/// Dependences of one block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deps {
    /// `preds[offsets[i]..offsets[i + 1]]` are the predecessors of op `i`.
    offsets: Vec<u32>,
    preds: Vec<u32>,
    /// Critical path length to the end of the block.
    pub height: Vec<u32>,
}

impl Deps {
    /// The ops that must be in strictly earlier instructions than op `i` (sorted, distinct).
    pub fn preds(&self, i: usize) -> &[u32] {
        &self.preds[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Number of ops.
    pub fn len(&self) -> usize {
        self.height.len()
    }

    /// Whether the block has no ops.
    pub fn is_empty(&self) -> bool {
        self.height.is_empty()
    }
}

/// What the walk remembers about one register of the block.
#[derive(Debug, Clone, Default)]
struct RegState {
    /// Writes not yet fully overwritten, with the components they still provide.
    last_write: SmallVec<[(u32, u8); 2]>,
    /// Every read so far.
    reads: SmallVec<[u32; 4]>,
}

/// Builds the dependence graph of `ops`.
pub fn deps<O: MachOp>(ops: &[O]) -> Deps {
    let n = ops.len();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u32);
    let mut preds: Vec<u32> = Vec::with_capacity(2 * n);
    let mut local: FxHashMap<VReg, u32> = FxHashMap::default();
    let mut regs: Vec<RegState> = Vec::new();
    let mut stores: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    let mut loads: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    let mut operands = Operands::new();
    let mut ids: SmallVec<[usize; 6]> = SmallVec::new();
    let mut memory: SmallVec<[Memory; 2]> = SmallVec::new();
    for (i, op) in ops.iter().enumerate() {
        let i = i as u32;
        let start = preds.len();
        memory.clear();
        op.memory(&mut memory);
        for &m in &memory {
            match m {
                Memory::Load(slot) => {
                    if let Some(st) = stores.get(&slot) {
                        preds.extend_from_slice(st);
                    }
                    loads.entry(slot).or_default().push(i);
                }
                Memory::Store(slot) => {
                    if let Some(ld) = loads.get(&slot) {
                        preds.extend(ld.iter().copied().filter(|&r| r != i));
                    }
                    stores.entry(slot).or_default().push(i);
                }
            }
        }
        operands.clear();
        op.operands(&mut operands);
        ids.clear();
        for o in &operands {
            let next = regs.len() as u32;
            let id = *local.entry(o.vreg).or_insert(next) as usize;
            if id == regs.len() {
                regs.push(RegState::default());
            }
            ids.push(id);
        }
        for (o, &id) in operands.iter().zip(&ids) {
            if o.role == Role::Use {
                preds.extend(regs[id].last_write.iter().map(|w| w.0));
            }
        }
        for (o, &id) in operands.iter().zip(&ids) {
            if o.role != Role::Def {
                continue;
            }
            let reg = &mut regs[id];
            preds.extend(reg.reads.iter().copied().filter(|&r| r != i));
            for &(w, m) in reg.last_write.iter() {
                if m & o.mask != 0 {
                    preds.push(w);
                }
            }
            reg.last_write.retain(|&mut (_, m)| m & !o.mask != 0);
            reg.last_write.push((i, o.mask));
        }
        for (o, &id) in operands.iter().zip(&ids) {
            if o.role == Role::Use {
                regs[id].reads.push(i);
            }
        }
        // Sort and deduplicate this op's predecessors in place.
        preds[start..].sort_unstable();
        let mut kept = start;
        for k in start..preds.len() {
            if kept == start || preds[k] != preds[kept - 1] {
                preds[kept] = preds[k];
                kept += 1;
            }
        }
        preds.truncate(kept);
        offsets.push(preds.len() as u32);
    }
    let mut height = vec![1u32; n];
    for i in (0..n).rev() {
        let h = height[i] + 1;
        for &p in &preds[offsets[i] as usize..offsets[i + 1] as usize] {
            let p = p as usize;
            height[p] = height[p].max(h);
        }
    }
    Deps {
        offsets,
        preds,
        height,
    }
}
