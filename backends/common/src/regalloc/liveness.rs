//! Component-wise liveness of virtual registers.
//!
//! A component of a virtual register is live at a step if some path from there reads it
//! before writing it. Liveness is computed per (vreg, component) — a partial write kills
//! only the components it writes — as a classic backward dataflow problem: for each block,
//! `gen` = components read before being written in the block, `kill` = components written,
//! `live_in = gen ∪ (live_out − kill)`, `live_out = ∪ live_in(successor)`, iterated with a
//! worklist (seeded in post-order, so a loop-free CFG converges in one sweep) until nothing
//! changes. Sets are sorted sparse lists of `(vreg, component mask)`: memory follows the
//! number of live values, not blocks × vregs.
//!
//! Inside a point the steps are, for each stage in ascending order, the reads of that stage
//! then its writes. [`Scanner`] replays a block backward over those steps from its live-out
//! set, reporting each write group with the set live right after it; interference and
//! pressure are both computed from that one walk.
//!
//! Components live into the entry block are read before any write on some path: they are
//! undefined there and are treated as written at the entry.

use super::{Access, Program, VReg};
use smallvec::SmallVec;

/// A sorted list of `(vreg, component mask)` with non-zero masks.
type Set = Vec<(VReg, u8)>;

/// Live-in and live-out sets of every block (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Liveness {
    live_in: Vec<Set>,
    live_out: Vec<Set>,
}

impl Liveness {
    /// Components live on entry to `block`, sorted by vreg (empty for a block that does not
    /// exist).
    pub fn live_in(&self, block: usize) -> &[(VReg, u8)] {
        self.live_in.get(block).map_or(&[], Vec::as_slice)
    }

    /// Components live on exit from `block`, sorted by vreg.
    pub fn live_out(&self, block: usize) -> &[(VReg, u8)] {
        self.live_out.get(block).map_or(&[], Vec::as_slice)
    }

    /// Components read before being written on some path from the entry: undefined values,
    /// treated as written at the entry.
    pub fn undefined_at_entry(&self) -> &[(VReg, u8)] {
        self.live_in(0)
    }
}

/// Computes the liveness of `program`. Accesses to vregs that do not exist and successors
/// that do not exist are ignored (see [`super::validate`]).
pub fn liveness(program: &Program) -> Liveness {
    let nblocks = program.blocks.len();
    let nvregs = program.vregs.len();
    let (gens, kills) = gen_kill(program);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nblocks];
    for (b, block) in program.blocks.iter().enumerate() {
        for &s in &block.succs {
            if s < nblocks && !preds[s].contains(&b) {
                preds[s].push(b);
            }
        }
    }

    let mut live = Liveness {
        live_in: vec![Vec::new(); nblocks],
        live_out: vec![Vec::new(); nblocks],
    };
    // Seed in post-order (successors before predecessors), unreachable blocks last.
    let mut queue: std::collections::VecDeque<usize> = postorder(program).into();
    let mut queued = vec![true; nblocks];
    let mut out = Set::new();
    let mut scratch = Set::new();
    let mut new_in = Set::new();
    while let Some(b) = queue.pop_front() {
        queued[b] = false;
        out.clear();
        for &s in &program.blocks[b].succs {
            if s < nblocks {
                union_into(&mut out, &live.live_in[s], &mut scratch);
            }
        }
        minus(&out, &kills[b], &mut new_in);
        union_into(&mut new_in, &gens[b], &mut scratch);
        std::mem::swap(&mut live.live_out[b], &mut out);
        if new_in != live.live_in[b] {
            std::mem::swap(&mut live.live_in[b], &mut new_in);
            for &p in &preds[b] {
                if !queued[p] {
                    queued[p] = true;
                    queue.push_back(p);
                }
            }
        }
    }
    debug_assert!(live
        .live_in
        .iter()
        .flatten()
        .all(|(v, _)| v.index() < nvregs));
    live
}

/// Per block: components read before written (`gen`) and components written (`kill`).
fn gen_kill(program: &Program) -> (Vec<Set>, Vec<Set>) {
    let nvregs = program.vregs.len();
    let mut gen_mask = vec![0u8; nvregs];
    let mut kill_mask = vec![0u8; nvregs];
    let mut touched: Vec<u32> = Vec::new();
    let mut gens = Vec::with_capacity(program.blocks.len());
    let mut kills = Vec::with_capacity(program.blocks.len());
    for block in &program.blocks {
        for point in &block.points {
            for stage in point.stages() {
                for a in point.uses.iter().filter(|a| a.stage == stage) {
                    let v = a.vreg.index();
                    if v < nvregs {
                        if gen_mask[v] == 0 && kill_mask[v] == 0 {
                            touched.push(a.vreg.0);
                        }
                        gen_mask[v] |= a.mask & !kill_mask[v];
                    }
                }
                for a in point.defs.iter().filter(|a| a.stage == stage) {
                    let v = a.vreg.index();
                    if v < nvregs {
                        if gen_mask[v] == 0 && kill_mask[v] == 0 {
                            touched.push(a.vreg.0);
                        }
                        kill_mask[v] |= a.mask;
                    }
                }
            }
        }
        touched.sort_unstable();
        let mut gen = Set::new();
        let mut kill = Set::new();
        for &v in &touched {
            let i = v as usize;
            if gen_mask[i] != 0 {
                gen.push((VReg(v), gen_mask[i]));
            }
            if kill_mask[i] != 0 {
                kill.push((VReg(v), kill_mask[i]));
            }
            gen_mask[i] = 0;
            kill_mask[i] = 0;
        }
        touched.clear();
        gens.push(gen);
        kills.push(kill);
    }
    (gens, kills)
}

/// Blocks in post-order of a depth-first walk from the entry, then unreachable blocks.
pub(crate) fn postorder(program: &Program) -> Vec<usize> {
    let n = program.blocks.len();
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        stack.push((root, 0));
        while let Some(top) = stack.last_mut() {
            let (b, next) = *top;
            if let Some(&s) = program.blocks[b].succs.get(next) {
                top.1 += 1;
                if s < n && !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
                stack.pop();
            }
        }
    }
    order
}

/// Blocks reachable from the entry, in reverse post-order.
pub(crate) fn reverse_postorder_reachable(program: &Program) -> Vec<usize> {
    let n = program.blocks.len();
    if n == 0 {
        return Vec::new();
    }
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        let (b, next) = *top;
        if let Some(&s) = program.blocks[b].succs.get(next) {
            top.1 += 1;
            if s < n && !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(b);
            stack.pop();
        }
    }
    order.reverse();
    order
}

/// `acc ∪= other`.
fn union_into(acc: &mut Set, other: &[(VReg, u8)], scratch: &mut Set) {
    if other.is_empty() {
        return;
    }
    if acc.is_empty() {
        acc.extend_from_slice(other);
        return;
    }
    scratch.clear();
    let (mut i, mut j) = (0, 0);
    while i < acc.len() && j < other.len() {
        let (a, b) = (acc[i], other[j]);
        match a.0.cmp(&b.0) {
            std::cmp::Ordering::Less => {
                scratch.push(a);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                scratch.push(b);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                scratch.push((a.0, a.1 | b.1));
                i += 1;
                j += 1;
            }
        }
    }
    scratch.extend_from_slice(&acc[i..]);
    scratch.extend_from_slice(&other[j..]);
    std::mem::swap(acc, scratch);
}

/// `out = a − b`.
fn minus(a: &[(VReg, u8)], b: &[(VReg, u8)], out: &mut Set) {
    out.clear();
    let mut j = 0;
    for &(v, m) in a {
        while j < b.len() && b[j].0 < v {
            j += 1;
        }
        let m = if j < b.len() && b[j].0 == v {
            m & !b[j].1
        } else {
            m
        };
        if m != 0 {
            out.push((v, m));
        }
    }
}

/// The set of live components at one step of a backward walk: a sparse set with O(1) add,
/// remove, lookup and clear-by-members.
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveNow {
    mask: Vec<u8>,
    pos: Vec<u32>,
    members: Vec<u32>,
    total: u32,
}

impl LiveNow {
    fn new(nvregs: usize) -> LiveNow {
        LiveNow {
            mask: vec![0; nvregs],
            pos: vec![0; nvregs],
            members: Vec::new(),
            total: 0,
        }
    }

    /// The live components of `v`.
    pub(crate) fn mask(&self, v: VReg) -> u8 {
        self.mask.get(v.index()).copied().unwrap_or(0)
    }

    /// The vregs with a live component, in no particular order.
    pub(crate) fn members(&self) -> &[u32] {
        &self.members
    }

    /// Number of live components.
    pub(crate) fn total(&self) -> u32 {
        self.total
    }

    fn add(&mut self, v: VReg, m: u8) {
        let i = v.index();
        let old = self.mask[i];
        if old == 0 && m != 0 {
            self.pos[i] = self.members.len() as u32;
            self.members.push(v.0);
        }
        self.mask[i] = old | m;
        self.total += (self.mask[i].count_ones()) - old.count_ones();
    }

    fn remove(&mut self, v: VReg, m: u8) {
        let i = v.index();
        let old = self.mask[i];
        let new = old & !m;
        self.mask[i] = new;
        self.total -= old.count_ones() - new.count_ones();
        if old != 0 && new == 0 {
            let p = self.pos[i] as usize;
            self.members.swap_remove(p);
            if let Some(&moved) = self.members.get(p) {
                self.pos[moved as usize] = p as u32;
            }
        }
    }

    fn clear(&mut self) {
        for &v in &self.members {
            self.mask[v as usize] = 0;
        }
        self.members.clear();
        self.total = 0;
    }
}

/// One step of a backward walk (see [`Scanner::run`]).
#[derive(Debug)]
pub(crate) enum Event<'a> {
    /// The writes of one stage of a point; `live` is the set live right after them.
    Write {
        defs: &'a [Access],
        live: &'a LiveNow,
        /// The index of the point in its block.
        point: usize,
    },
    /// The set live at the end of the block (`point` is `None`), or right before a group of
    /// reads of point `point`.
    Live {
        live: &'a LiveNow,
        point: Option<usize>,
    },
}

impl Event<'_> {
    /// Components occupied at this step: live ones, plus dead components being written.
    pub(crate) fn pressure(&self) -> u32 {
        match self {
            Event::Live { live, .. } => live.total(),
            Event::Write { defs, live, .. } => {
                let mut written: SmallVec<[(VReg, u8); 4]> = SmallVec::new();
                for d in defs.iter() {
                    match written.iter_mut().find(|(v, _)| *v == d.vreg) {
                        Some(w) => w.1 |= d.mask,
                        None => written.push((d.vreg, d.mask)),
                    }
                }
                live.total()
                    + written
                        .iter()
                        .map(|&(v, m)| (m & !live.mask(v)).count_ones())
                        .sum::<u32>()
            }
        }
    }
}

/// Replays blocks backward step by step (reusable across blocks).
#[derive(Debug)]
pub(crate) struct Scanner {
    live: LiveNow,
    group: SmallVec<[Access; 4]>,
}

impl Scanner {
    pub(crate) fn new(nvregs: usize) -> Scanner {
        Scanner {
            live: LiveNow::new(nvregs),
            group: SmallVec::new(),
        }
    }

    /// Walks `block` backward from `live_out`, calling `f` at the end of the block, after
    /// each group of reads (with the set live before them) and at each group of writes of
    /// one stage (with the set live after them, before they kill). Returns with the
    /// scanner's set equal to the block's live-in.
    pub(crate) fn run(
        &mut self,
        program: &Program,
        block: usize,
        live_out: &[(VReg, u8)],
        mut f: impl FnMut(Event<'_>),
    ) {
        let nvregs = program.vregs.len();
        self.live.clear();
        for &(v, m) in live_out {
            if v.index() < nvregs {
                self.live.add(v, m);
            }
        }
        f(Event::Live {
            live: &self.live,
            point: None,
        });
        let Some(block) = program.blocks.get(block) else {
            return;
        };
        for (at, point) in block.points.iter().enumerate().rev() {
            for stage in point.stages().into_iter().rev() {
                self.group.clear();
                self.group.extend(
                    point
                        .defs
                        .iter()
                        .filter(|a| a.stage == stage && a.vreg.index() < nvregs)
                        .copied(),
                );
                if !self.group.is_empty() {
                    f(Event::Write {
                        defs: &self.group,
                        live: &self.live,
                        point: at,
                    });
                    for d in &self.group {
                        self.live.remove(d.vreg, d.mask);
                    }
                }
                let mut read = false;
                for u in point.uses.iter().filter(|a| a.stage == stage) {
                    if u.vreg.index() < nvregs {
                        self.live.add(u.vreg, u.mask);
                        read = true;
                    }
                }
                if read {
                    f(Event::Live {
                        live: &self.live,
                        point: Some(at),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Block, Point, VRegInfo};
    use super::*;
    use smallvec::smallvec;

    fn point(uses: &[(u32, u8, u8)], defs: &[(u32, u8, u8)]) -> Point {
        let acc = |&(v, s, m): &(u32, u8, u8)| Access::new(VReg(v), s, m);
        Point {
            uses: uses.iter().map(acc).collect(),
            defs: defs.iter().map(acc).collect(),
        }
    }

    #[test]
    fn partial_defs_kill_only_their_components() {
        // v0.x = ..; v0.y = ..; use v0.xy — nothing live in; then a use of v0.z is undefined.
        let program = Program {
            blocks: vec![Block {
                points: vec![
                    point(&[], &[(0, 0, 1)]),
                    point(&[], &[(0, 0, 2)]),
                    point(&[(0, 0, 0b111)], &[]),
                ],
                succs: vec![],
            }],
            vregs: vec![VRegInfo::new(3)],
        };
        let live = liveness(&program);
        assert_eq!(live.live_in(0), &[(VReg(0), 0b100)]);
        assert_eq!(live.undefined_at_entry(), &[(VReg(0), 0b100)]);
        assert_eq!(live.live_out(0), &[]);
    }

    #[test]
    fn loop_carried_value_is_live_around_the_back_edge() {
        // 0: v0 = ..   -> 1
        // 1: use v0; v0 = .. -> 1, 2
        // 2: use v0
        let program = Program {
            blocks: vec![
                Block {
                    points: vec![point(&[], &[(0, 0, 1)])],
                    succs: vec![1],
                },
                Block {
                    points: vec![point(&[(0, 0, 1)], &[(0, 1, 1)])],
                    succs: vec![1, 2],
                },
                Block {
                    points: vec![point(&[(0, 0, 1)], &[])],
                    succs: vec![],
                },
            ],
            vregs: vec![VRegInfo::new(1)],
        };
        let live = liveness(&program);
        assert_eq!(live.live_in(0), &[]);
        assert_eq!(live.live_out(0), &[(VReg(0), 1)]);
        assert_eq!(live.live_in(1), &[(VReg(0), 1)]);
        assert_eq!(live.live_out(1), &[(VReg(0), 1)]);
        assert_eq!(live.live_in(2), &[(VReg(0), 1)]);
    }

    #[test]
    fn stage_order_inside_a_point() {
        // A read at stage 2 of a value written at stage 1 of the same point is not live-in.
        let program = Program {
            blocks: vec![Block {
                points: vec![point(&[(0, 2, 1), (1, 0, 1)], &[(0, 1, 1), (1, 0, 1)])],
                succs: vec![],
            }],
            vregs: vec![VRegInfo::new(1), VRegInfo::new(1)],
        };
        let live = liveness(&program);
        // v1 is read at stage 0 before its write at stage 0: live in.
        assert_eq!(live.live_in(0), &[(VReg(1), 1)]);
    }

    #[test]
    fn malformed_references_are_ignored() {
        let program = Program {
            blocks: vec![Block {
                points: vec![point(&[(7, 0, 1)], &[(9, 0, 1)])],
                succs: vec![5],
            }],
            vregs: vec![VRegInfo::new(1)],
        };
        let live = liveness(&program);
        assert_eq!(live.live_in(0), &[]);
        assert_eq!(live.live_in(3), &[]);
        assert_eq!(program.max_pressure(), 0);
    }

    #[test]
    fn set_operations() {
        let mut scratch = Set::new();
        let mut a = vec![(VReg(1), 1), (VReg(3), 2)];
        union_into(
            &mut a,
            &[(VReg(0), 4), (VReg(3), 1), (VReg(5), 1)],
            &mut scratch,
        );
        assert_eq!(
            a,
            vec![(VReg(0), 4), (VReg(1), 1), (VReg(3), 3), (VReg(5), 1)]
        );
        let mut out = Set::new();
        minus(&a, &[(VReg(1), 1), (VReg(3), 2), (VReg(4), 1)], &mut out);
        assert_eq!(out, vec![(VReg(0), 4), (VReg(3), 1), (VReg(5), 1)]);
    }

    #[test]
    fn pressure_counts_dead_writes_and_reads() {
        // One point reads three scalars and writes one dead vec2.
        let program = Program {
            blocks: vec![Block {
                points: vec![
                    point(&[], &[(0, 0, 1), (1, 0, 1), (2, 0, 1)]),
                    point(&[(0, 0, 1), (1, 0, 1), (2, 0, 1)], &[(3, 1, 3)]),
                ],
                succs: vec![],
            }],
            vregs: vec![
                VRegInfo::new(1),
                VRegInfo::new(1),
                VRegInfo::new(1),
                VRegInfo::new(2),
            ],
        };
        assert_eq!(program.max_pressure(), 3);
        let mut program = program;
        program.blocks[0].points[1].defs = smallvec![Access::new(VReg(3), 0, 3)];
        // Written at stage 0 while the stage-0 reads still hold their lanes: 3, then 2.
        assert_eq!(program.max_pressure(), 3);
    }

    #[test]
    fn postorders() {
        let program = Program {
            blocks: vec![
                Block {
                    points: vec![],
                    succs: vec![1, 2],
                },
                Block {
                    points: vec![],
                    succs: vec![3],
                },
                Block {
                    points: vec![],
                    succs: vec![3],
                },
                Block {
                    points: vec![],
                    succs: vec![],
                },
                Block {
                    points: vec![],
                    succs: vec![0],
                },
            ],
            vregs: vec![],
        };
        assert_eq!(postorder(&program), vec![3, 1, 2, 0, 4]);
        assert_eq!(reverse_postorder_reachable(&program), vec![0, 2, 1, 3]);
    }
}
