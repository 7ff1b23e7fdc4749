//! Spill choice by register pressure, all in one round.
//!
//! When more components are live at some step than the register file has lanes, no coloring
//! exists: the colorer's search (the expensive part of a failing allocation) is wasted, and
//! spilling its candidates one or two at a time costs one schedule-and-allocate round each.
//! [`pressure_spills`] sees this from liveness alone and picks, in one go, values whose
//! spilling brings every over-full step under the limit:
//!
//! - an *over-full step* is a step of the backward walk ([`Scanner`]) whose pressure exceeds
//!   `registers × lanes`; its *excess* is the difference;
//! - spilling `v` frees the components of `v` live at every over-full step of a point that
//!   does not access `v` (where it is read or written, a reload or store temporary still
//!   occupies the lanes);
//! - greedy weighted set cover: repeatedly take the spillable value (finite spill cost, and
//!   allowed by the caller) with the largest `excess it frees / spill cost`, with lazily
//!   updated gains in a max-heap (gains only shrink), until no step is over-full or no value
//!   frees anything.
//!
//! The result is exact about what spilling would need only up to the spill code itself and to
//! the rescheduling that follows; the driver runs the allocator again afterwards, so a
//! remaining excess only costs another round. Time and memory are linear in the number of
//! (over-full step, live value) pairs, plus a logarithmic heap factor.

use super::liveness::{liveness, Event, Liveness, Scanner};
use super::{Program, RegFile, VReg};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The values to spill so that no step of `program` has more live components than `file`
/// holds, best first, or `None` when no step is over-full (a coloring may exist). `spillable`
/// narrows the candidates (values with an infinite spill cost are never taken). An empty list
/// means no allowed value can relieve the over-full steps.
pub fn pressure_spills(
    file: &RegFile,
    program: &Program,
    spillable: impl Fn(VReg) -> bool,
) -> Option<Vec<VReg>> {
    pressure_spills_with(file, program, &liveness(program), spillable)
}

/// [`pressure_spills`] with the program's [`liveness()`] already computed.
pub fn pressure_spills_with(
    file: &RegFile,
    program: &Program,
    live: &Liveness,
    spillable: impl Fn(VReg) -> bool,
) -> Option<Vec<VReg>> {
    let cap = u32::from(file.registers) * u32::from(file.lanes);
    let n = program.vregs.len();
    let eligible: Vec<bool> = (0..n)
        .map(|i| program.vregs[i].spill_cost.is_finite() && spillable(VReg(i as u32)))
        .collect();
    let mut scan = Scanner::new(n);
    let mut excess: Vec<u32> = Vec::new();
    // Per value: the over-full steps where spilling it frees lanes, and how many.
    let mut frees: Vec<Vec<(u32, u8)>> = vec![Vec::new(); n];
    // Per value: the last over-full step whose point accesses it.
    let mut accessed_at: Vec<u32> = vec![u32::MAX; n];
    for (b, block) in program.blocks.iter().enumerate() {
        scan.run(program, b, live.live_out(b), |event| {
            let pressure = event.pressure();
            if pressure <= cap {
                return;
            }
            let (set, point) = match event {
                Event::Write { live, point, .. } => (live, Some(point)),
                Event::Live { live, point } => (live, point),
            };
            let step = excess.len() as u32;
            excess.push(pressure - cap);
            // Mark the point's vregs with this step (one pass over its accesses, not one per
            // live value).
            if let Some(pt) = point.and_then(|p| block.points.get(p)) {
                for a in pt.uses.iter().chain(pt.defs.iter()) {
                    if let Some(m) = accessed_at.get_mut(a.vreg.index()) {
                        *m = step;
                    }
                }
            }
            for &v in set.members() {
                if eligible[v as usize] && accessed_at[v as usize] != step {
                    let lanes = set.mask(VReg(v)).count_ones() as u8;
                    frees[v as usize].push((step, lanes));
                }
            }
        });
    }
    // Undefined values are written at the entry (as the interference graph counts them).
    let entry: u32 = live
        .undefined_at_entry()
        .iter()
        .map(|&(_, m)| m.count_ones())
        .sum();
    if excess.is_empty() && entry <= cap {
        return None;
    }
    let gain = |v: usize, excess: &[u32]| -> u32 {
        frees[v]
            .iter()
            .map(|&(s, k)| u32::from(k).min(excess[s as usize]))
            .sum()
    };
    let score = |v: usize, g: u32| Score(g as f32 / program.vregs[v].spill_cost.max(1e-3), g);
    let mut heap: BinaryHeap<(Score, std::cmp::Reverse<u32>)> = (0..n)
        .filter(|&v| !frees[v].is_empty())
        .map(|v| (score(v, gain(v, &excess)), std::cmp::Reverse(v as u32)))
        .collect();
    let mut over = excess.iter().filter(|&&e| e > 0).count();
    let mut picks = Vec::new();
    while over > 0 {
        let Some((s, std::cmp::Reverse(v))) = heap.pop() else {
            break;
        };
        let v = v as usize;
        let g = gain(v, &excess);
        if g == 0 {
            continue;
        }
        if g != s.1 {
            heap.push((score(v, g), std::cmp::Reverse(v as u32)));
            continue;
        }
        for &(step, k) in &frees[v] {
            let e = &mut excess[step as usize];
            if *e > 0 {
                *e = e.saturating_sub(u32::from(k));
                if *e == 0 {
                    over -= 1;
                }
            }
        }
        picks.push(VReg(v as u32));
    }
    Some(picks)
}

/// A heap key: freed lanes per unit of spill cost (ordered by `total_cmp`), then freed lanes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Score(f32, u32);

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Access, Block, Point, VRegInfo};
    use super::*;
    use smallvec::smallvec;

    const FILE: RegFile = RegFile {
        registers: 1,
        lanes: 4,
    };

    /// Scalars 0..count written in order, then read back in reverse order: all live at once
    /// between the last write and the first read.
    fn nested(count: u32) -> Program {
        let mut points = Vec::new();
        for v in 0..count {
            points.push(Point {
                uses: smallvec![],
                defs: smallvec![Access::new(VReg(v), 0, 1)],
            });
        }
        for v in (0..count).rev() {
            points.push(Point {
                uses: smallvec![Access::new(VReg(v), 0, 1)],
                defs: smallvec![],
            });
        }
        Program {
            blocks: vec![Block {
                points,
                succs: vec![],
            }],
            vregs: (0..count).map(|_| VRegInfo::new(1)).collect(),
        }
    }

    #[test]
    fn fitting_program_needs_nothing() {
        assert_eq!(pressure_spills(&FILE, &nested(4), |_| true), None);
    }

    #[test]
    fn longest_lived_values_are_spilled_until_everything_fits() {
        // Six scalars nested: v0 and v1 live longest, and spilling both leaves four.
        let picks = pressure_spills(&FILE, &nested(6), |_| true).unwrap();
        assert_eq!(picks, vec![VReg(0), VReg(1)]);
    }

    #[test]
    fn cost_and_the_caller_steer_the_choice() {
        let mut p = nested(6);
        p.vregs[0].spill_cost = f32::INFINITY;
        let picks = pressure_spills(&FILE, &p, |v| v != VReg(1)).unwrap();
        assert_eq!(picks.len(), 2);
        assert!(!picks.contains(&VReg(0)) && !picks.contains(&VReg(1)));
        // Nothing allowed: over-full, and nothing helps.
        assert_eq!(pressure_spills(&FILE, &p, |_| false), Some(vec![]));
    }
}
