//! Register-pressure tracking for the list scheduler ([`super::list::list_schedule_capped`]).
//!
//! A top-down list scheduler that only looks at the critical path starts every value as early
//! as it can, and on a register-starved target (Lima PP: 6 vec4 registers) the allocator then
//! spills. [`BlockPressure`] holds what a scheduler needs to count the live components while it
//! fills instructions: for each op, the registers it reads and writes (renumbered densely per
//! block); for each register, its size (the components the block accesses), how many ops read
//! it, and whether it stays live past the block (live-out or read by the terminator).
//! [`Tracker`] replays a schedule on those facts: a register becomes live at its first
//! placed write and dies when its last reader in the block is placed (reads happen before
//! writes, so a register freed by an instruction can hold that instruction's result). The
//! count is an estimate — whole registers, not component-exact liveness — which is all a
//! priority tie-break needs; the allocator stays the judge of whether a schedule fits.

use rustc_hash::FxHashMap;

use super::{MachOp, Operands, Role};
use crate::regalloc::VReg;

/// The pressure facts of one block (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockPressure {
    /// `acc[off[i]..off[i + 1]]`: the registers op `i` accesses (id, written), distinct per
    /// role.
    off: Vec<u32>,
    acc: Vec<(u32, bool)>,
    /// Components of each register.
    size: Vec<u8>,
    /// Number of ops reading each register.
    readers: Vec<u32>,
    /// Live after the block (live-out or read by the terminator).
    pinned: Vec<bool>,
    /// Live on entry.
    live_in: Vec<bool>,
    /// Components live across the block that no op accesses.
    base: u32,
}

impl BlockPressure {
    /// The facts of `ops`, given the components live on entry and whether a register is still
    /// needed after the last op (live-out or read by the terminator).
    pub fn new<O: MachOp>(
        ops: &[O],
        live_in: &[(VReg, u8)],
        pinned: impl Fn(VReg) -> bool,
    ) -> BlockPressure {
        let mut ids: FxHashMap<VReg, u32> = FxHashMap::default();
        let mut masks: Vec<u8> = Vec::new();
        let mut regs: Vec<VReg> = Vec::new();
        let mut off = Vec::with_capacity(ops.len() + 1);
        off.push(0u32);
        let mut acc: Vec<(u32, bool)> = Vec::with_capacity(3 * ops.len());
        let mut readers: Vec<u32> = Vec::new();
        let mut operands = Operands::new();
        for op in ops {
            operands.clear();
            op.operands(&mut operands);
            let start = acc.len();
            for o in &operands {
                let next = regs.len() as u32;
                let id = *ids.entry(o.vreg).or_insert(next);
                if id == next {
                    regs.push(o.vreg);
                    masks.push(0);
                    readers.push(0);
                }
                masks[id as usize] |= o.mask;
                let def = o.role == Role::Def;
                if !acc[start..].contains(&(id, def)) {
                    acc.push((id, def));
                    if !def {
                        readers[id as usize] += 1;
                    }
                }
            }
            off.push(acc.len() as u32);
        }
        let mut live = vec![false; regs.len()];
        let mut base = 0;
        for &(v, m) in live_in {
            match ids.get(&v) {
                Some(&id) => {
                    live[id as usize] = true;
                    masks[id as usize] |= m;
                }
                None => base += m.count_ones(),
            }
        }
        BlockPressure {
            off,
            acc,
            size: masks.iter().map(|m| m.count_ones() as u8).collect(),
            readers,
            pinned: regs.iter().map(|&v| pinned(v)).collect(),
            live_in: live,
            base,
        }
    }

    fn accesses(&self, i: usize) -> &[(u32, bool)] {
        &self.acc[self.off[i] as usize..self.off[i + 1] as usize]
    }
}

/// The live registers of a partial schedule of one block.
#[derive(Debug, Clone)]
pub struct Tracker<'a> {
    facts: &'a BlockPressure,
    live: Vec<bool>,
    /// Readers not yet placed.
    left: Vec<u32>,
    /// Live components.
    now: u32,
}

impl<'a> Tracker<'a> {
    /// The state before the block's first op.
    pub fn new(facts: &'a BlockPressure) -> Tracker<'a> {
        let now = facts.base
            + facts
                .live_in
                .iter()
                .zip(&facts.size)
                .filter(|(l, _)| **l)
                .map(|(_, &s)| u32::from(s))
                .sum::<u32>();
        Tracker {
            facts,
            live: facts.live_in.clone(),
            left: facts.readers.clone(),
            now,
        }
    }

    /// Live components now.
    pub fn live(&self) -> u32 {
        self.now
    }

    /// How placing op `i` now would change the live components (freed reads first, then
    /// started writes).
    pub fn delta(&self, i: usize) -> i64 {
        let f = self.facts;
        let mut d = 0i64;
        for &(id, def) in f.accesses(i) {
            let id = id as usize;
            let size = i64::from(f.size[id]);
            if def {
                // Still read later (by other ops) or after the block.
                let own = u32::from(f.accesses(i).contains(&(id as u32, false)));
                if !self.live[id] && (self.left[id] > own || f.pinned[id]) {
                    d += size;
                }
            } else if self.live[id] && self.left[id] == 1 && !f.pinned[id] {
                d -= size;
            }
        }
        d
    }

    /// Records op `i` as placed.
    pub fn place(&mut self, i: usize) {
        let f = self.facts;
        for &(id, def) in f.accesses(i) {
            let id = id as usize;
            if !def {
                self.left[id] -= 1;
                if self.left[id] == 0 && !f.pinned[id] && self.live[id] {
                    self.live[id] = false;
                    self.now -= u32::from(f.size[id]);
                }
            }
        }
        for &(id, def) in f.accesses(i) {
            let id = id as usize;
            if def && !self.live[id] && (self.left[id] > 0 || f.pinned[id]) {
                self.live[id] = true;
                self.now += u32::from(f.size[id]);
            }
        }
    }
}
