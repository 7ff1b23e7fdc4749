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

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{MachOp, Memory, Operands, Role};
use crate::regalloc::VReg;

/// Dependences of one block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deps {
    /// For each op, the ops that must be in strictly earlier instructions (sorted, distinct).
    pub preds: Vec<Vec<usize>>,
    /// Critical path length to the end of the block.
    pub height: Vec<u32>,
}

/// Builds the dependence graph of `ops`.
pub fn deps<O: MachOp>(ops: &[O]) -> Deps {
    let n = ops.len();
    let mut preds = vec![Vec::new(); n];
    let mut last_write: FxHashMap<VReg, Vec<(usize, u8)>> = FxHashMap::default();
    let mut reads_since: FxHashMap<VReg, Vec<usize>> = FxHashMap::default();
    let mut stores: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    let mut loads: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    let mut operands = Operands::new();
    let mut memory: SmallVec<[Memory; 2]> = SmallVec::new();
    for (i, op) in ops.iter().enumerate() {
        memory.clear();
        op.memory(&mut memory);
        for &m in &memory {
            match m {
                Memory::Load(slot) => {
                    if let Some(st) = stores.get(&slot) {
                        preds[i].extend(st.iter().copied());
                    }
                    loads.entry(slot).or_default().push(i);
                }
                Memory::Store(slot) => {
                    if let Some(ld) = loads.get(&slot) {
                        preds[i].extend(ld.iter().copied().filter(|&r| r != i));
                    }
                    stores.entry(slot).or_default().push(i);
                }
            }
        }
        operands.clear();
        op.operands(&mut operands);
        for o in operands.iter().filter(|o| o.role == Role::Use) {
            if let Some(ws) = last_write.get(&o.vreg) {
                preds[i].extend(ws.iter().map(|w| w.0));
            }
        }
        for o in operands.iter().filter(|o| o.role == Role::Def) {
            if let Some(rs) = reads_since.get(&o.vreg) {
                preds[i].extend(rs.iter().copied().filter(|&r| r != i));
            }
            let ws = last_write.entry(o.vreg).or_default();
            for &(w, m) in ws.iter() {
                if m & o.mask != 0 {
                    preds[i].push(w);
                }
            }
            ws.retain(|&(_, m)| m & !o.mask != 0);
            ws.push((i, o.mask));
        }
        for o in operands.iter().filter(|o| o.role == Role::Use) {
            reads_since.entry(o.vreg).or_default().push(i);
        }
        preds[i].sort_unstable();
        preds[i].dedup();
    }
    let mut height = vec![1u32; n];
    for i in (0..n).rev() {
        for &p in &preds[i] {
            height[p] = height[p].max(height[i] + 1);
        }
    }
    Deps { preds, height }
}
