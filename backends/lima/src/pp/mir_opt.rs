//! Clean-up of the machine program before scheduling: dead-write elimination.
//!
//! Lowering leaves writes nobody reads: comparisons folded into a select, the zero that
//! initializes an output which every path overwrites, varying loads whose value went straight
//! into the sampler. With component-wise liveness from the allocator core (one point per op),
//! a write whose components are all dead right after it is removed; repeated until nothing
//! changes, since removing a write can kill the values it read.

use irc_backend::regalloc::{self, Access, Point};

use super::mir::{Kind, MOp, Program, Terminator};

/// One point per op, so that liveness after each op is known.
fn describe(p: &Program) -> regalloc::Program {
    let succs = p.succs();
    let full = |v: irc_backend::regalloc::VReg| {
        (1u8 << p.vregs.get(v.0 as usize).map_or(1, |d| d.size)) - 1
    };
    let blocks = p
        .blocks
        .iter()
        .zip(succs)
        .map(|(b, succs)| {
            let mut points: Vec<Point> = b
                .ops
                .iter()
                .map(|op| {
                    let mut pt = Point::default();
                    for v in op.reads() {
                        pt.uses.push(Access::new(v, 0, full(v)));
                    }
                    if let Some(v) = op.dst {
                        pt.defs.push(Access::new(v, 1, op.dst_mask()));
                    }
                    pt
                })
                .collect();
            let mut end = Point::default();
            match &b.term {
                Terminator::Branch { cond, .. } => {
                    end.uses.push(Access::new(cond.0, 0, full(cond.0)))
                }
                Terminator::Exit { kill } => {
                    if let Some(k) = kill {
                        end.uses.push(Access::new(k.0, 0, full(k.0)));
                    }
                    for o in &p.outputs {
                        end.uses.push(Access::new(o.1, 0, full(o.1)));
                    }
                }
                Terminator::Jump(_) | Terminator::Discard => {}
            }
            points.push(end);
            regalloc::Block { points, succs }
        })
        .collect();
    regalloc::Program {
        blocks,
        vregs: p
            .vregs
            .iter()
            .map(|v| regalloc::VRegInfo::new(v.size))
            .collect(),
    }
}

fn removable(op: &MOp) -> bool {
    !matches!(op.kind, Kind::Spill { .. })
}

/// Removes dead writes; returns how many ops were removed.
pub fn dead_writes(p: &mut Program) -> usize {
    let mut removed = 0;
    loop {
        let desc = describe(p);
        let live = regalloc::liveness(&desc);
        let mut changed = false;
        for (bi, b) in p.blocks.iter_mut().enumerate() {
            // Backward scan with a component mask per vreg.
            let mut cur: rustc_hash::FxHashMap<u32, u8> = Default::default();
            for &(v, m) in live.live_out(bi) {
                *cur.entry(v.0).or_default() |= m;
            }
            for a in &desc.blocks[bi]
                .points
                .last()
                .map(|p| p.uses.clone())
                .unwrap_or_default()
            {
                *cur.entry(a.vreg.0).or_default() |= a.mask;
            }
            let mut keep = vec![true; b.ops.len()];
            for (i, op) in b.ops.iter().enumerate().rev() {
                if let Some(v) = op.dst {
                    let m = op.dst_mask();
                    let l = cur.get(&v.0).copied().unwrap_or(0);
                    if l & m == 0 && removable(op) {
                        keep[i] = false;
                        changed = true;
                        continue;
                    }
                    cur.insert(v.0, l & !m);
                }
                for r in op.reads() {
                    *cur.entry(r.0).or_default() |= 0xF;
                }
            }
            let mut k = keep.iter();
            let before = b.ops.len();
            b.ops.retain(|_| *k.next().unwrap_or(&true));
            removed += before - b.ops.len();
        }
        if !changed {
            return removed;
        }
    }
}

/// Drops blocks that no path from the entry reaches (the never-taken back edges of loops that
/// do not repeat, for example) and renumbers the rest in layout order.
pub fn remove_unreachable(p: &mut Program) {
    let succs = p.succs();
    let mut reach = vec![false; p.blocks.len()];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if b >= reach.len() || reach[b] {
            continue;
        }
        reach[b] = true;
        stack.extend(succs[b].iter().copied());
    }
    if reach.iter().all(|&r| r) {
        return;
    }
    let mut map = vec![usize::MAX; p.blocks.len()];
    let mut n = 0;
    for (i, &r) in reach.iter().enumerate() {
        if r {
            map[i] = n;
            n += 1;
        }
    }
    let blocks = std::mem::take(&mut p.blocks);
    for (i, mut b) in blocks.into_iter().enumerate() {
        if !reach[i] {
            continue;
        }
        match &mut b.term {
            Terminator::Jump(t) => *t = map[*t],
            Terminator::Branch { then, els, .. } => {
                *then = map[*then];
                *els = map[*els];
            }
            Terminator::Exit { .. } | Terminator::Discard => {}
        }
        p.blocks.push(b);
    }
}
