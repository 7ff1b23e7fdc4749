//! Clean-up of a machine program before scheduling: dead writes and unreachable blocks.
//!
//! Lowering leaves writes nobody reads (comparisons folded into a select, the zero that
//! initializes an output which every path overwrites, loads whose value went elsewhere).
//! [`dead_writes`] computes component-wise liveness with the allocator core (one point per
//! op, reads before writes, the terminator's reads in a last point) and removes every
//! [`MachOp::removable`] op none of whose written components is live right after it;
//! repeated until nothing changes, since removing a write can kill the values it read.
//!
//! [`Reads`] chooses how precisely reads count: [`Reads::Lanes`] takes the operand masks as
//! they are; [`Reads::WholeRegister`] treats every read as reading all components of its
//! register (coarser: it keeps component writes that only a different component's read
//! follows; Lima PP uses it, and switching changes its code).
//!
//! [`remove_unreachable`] drops blocks no path from the entry reaches and renumbers the rest.

use rustc_hash::FxHashMap;

use super::cfg::reachable;
use super::{MachFunction, MachOp, Operands, Role};
use crate::regalloc::{self, Access, Point, VReg};

/// How reads count for liveness in [`dead_writes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reads {
    /// A read reads the components of its mask.
    Lanes,
    /// A read reads every component of its register.
    WholeRegister,
}

fn full<F: MachFunction>(f: &F, v: VReg) -> u8 {
    let size = if v.index() < f.num_vregs() {
        f.vreg_size(v)
    } else {
        1
    };
    ((1u16 << size) - 1) as u8
}

fn use_mask<F: MachFunction>(f: &F, reads: Reads, v: VReg, mask: u8) -> u8 {
    match reads {
        Reads::Lanes => mask,
        Reads::WholeRegister => full(f, v),
    }
}

/// The allocator-core program of `f` with one point per op plus one for the terminator.
pub fn one_point_per_op<F: MachFunction>(f: &F, reads: Reads) -> regalloc::Program {
    let mut ops = Operands::new();
    let blocks = (0..f.num_blocks())
        .map(|b| {
            let mut points: Vec<Point> = f
                .ops(b)
                .iter()
                .map(|op| {
                    let mut pt = Point::default();
                    ops.clear();
                    op.operands(&mut ops);
                    for o in &ops {
                        match o.role {
                            Role::Use => pt.uses.push(Access::new(
                                o.vreg,
                                0,
                                use_mask(f, reads, o.vreg, o.mask),
                            )),
                            Role::Def => pt.defs.push(Access::new(o.vreg, 1, o.mask)),
                        }
                    }
                    pt
                })
                .collect();
            let mut end = Point::default();
            ops.clear();
            f.terminator_uses(b, &mut ops);
            for o in &ops {
                end.uses
                    .push(Access::new(o.vreg, 0, use_mask(f, reads, o.vreg, o.mask)));
            }
            points.push(end);
            regalloc::Block {
                points,
                succs: f.succs(b).into_vec(),
            }
        })
        .collect();
    regalloc::Program {
        blocks,
        vregs: (0..f.num_vregs())
            .map(|v| regalloc::VRegInfo::new(f.vreg_size(VReg(v as u32))))
            .collect(),
    }
}

/// Removes dead writes; returns how many ops were removed.
pub fn dead_writes<F: MachFunction>(f: &mut F, reads: Reads) -> usize {
    let mut removed = 0;
    let mut ops = Operands::new();
    loop {
        let desc = one_point_per_op(f, reads);
        let live = regalloc::liveness(&desc);
        let mut changed = false;
        for b in 0..f.num_blocks() {
            // Backward scan with a component mask per vreg.
            let mut cur: FxHashMap<VReg, u8> = FxHashMap::default();
            for &(v, m) in live.live_out(b) {
                *cur.entry(v).or_default() |= m;
            }
            if let Some(end) = desc.blocks[b].points.last() {
                for a in &end.uses {
                    *cur.entry(a.vreg).or_default() |= a.mask;
                }
            }
            let n = f.ops(b).len();
            let mut keep = vec![true; n];
            for (i, op) in f.ops(b).iter().enumerate().rev() {
                ops.clear();
                op.operands(&mut ops);
                let mut defs = ops.iter().filter(|o| o.role == Role::Def).peekable();
                if defs.peek().is_some() {
                    let dead = ops
                        .iter()
                        .filter(|o| o.role == Role::Def)
                        .all(|o| cur.get(&o.vreg).copied().unwrap_or(0) & o.mask == 0);
                    if dead && op.removable() {
                        keep[i] = false;
                        changed = true;
                        continue;
                    }
                    for o in defs {
                        let l = cur.get(&o.vreg).copied().unwrap_or(0);
                        cur.insert(o.vreg, l & !o.mask);
                    }
                }
                for o in ops.iter().filter(|o| o.role == Role::Use) {
                    *cur.entry(o.vreg).or_default() |= use_mask(f, reads, o.vreg, o.mask);
                }
            }
            let before = n;
            f.retain_ops(b, &mut |i| keep[i]);
            removed += before - f.ops(b).len();
        }
        if !changed {
            return removed;
        }
    }
}

/// Drops blocks that no path from the entry reaches and renumbers the rest in layout order.
/// Returns whether anything was removed.
pub fn remove_unreachable<F: MachFunction>(f: &mut F) -> bool {
    let reach = reachable(f);
    if reach.iter().all(|&r| r) {
        return false;
    }
    let mut next = 0;
    let map: Vec<Option<usize>> = reach
        .iter()
        .map(|&r| {
            r.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    f.remap_blocks(&map);
    true
}
