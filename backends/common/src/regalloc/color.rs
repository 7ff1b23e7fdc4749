//! Coloring the interference graph with lane ranges, and choosing spill candidates.
//!
//! A *placement* of a virtual register is a (register, first lane) pair; none of its
//! components may share a lane with a conflicting component of a neighbour (the interference
//! graph's `S` masks turn a colored neighbour into a set of forbidden first lanes). Fixed
//! virtual registers are pre-colored; the others are colored one by one in some order, each
//! taking the best free placement ([`Colorer::place`]): an already used register rather than
//! a new one, then the tightest fit (the register whose lanes are most occupied by neighbours
//! — this packs scalars into partially used registers and keeps whole registers for vectors),
//! then the one leaving the longest free run of lanes, then one keeping lane 0 free for
//! `lane0` vregs, then the lowest register.
//!
//! A *search* within the first `cap` registers tries three orders and returns the first that
//! colors everything:
//!
//! 1. Chaitin–Briggs simplify/select with a lane-aware degree. A neighbour `n` can block at
//!    most `w(v, n)` of `v`'s placements (the worst case, over `n`'s own placements, of the
//!    first lanes of `v` it forbids: a conflicting scalar blocks one of a scalar's 4
//!    placements per register, a fully live vec4 all of them); `v` is trivially colorable
//!    when the sum over its remaining neighbours is below its number of placements
//!    (`cap × lane offsets`). Trivially colorable nodes are removed, the least constrained
//!    first (so vectors and `lane0` vregs are colored first); when none is left, the node with
//!    the lowest `spill cost / weighted degree` is removed optimistically (Briggs). Nodes are
//!    colored in reverse removal order.
//! 2. Greedy in program order (first write or live-in in reverse post-order), the most
//!    constrained first at equal start: optimal for scalars in straight-line code.
//! 3. Greedy, most constrained (fewest lane offsets) first, then program order.
//!
//! If all three fail, up to [`ROUNDS`] "squeaky wheel" rounds move the nodes left uncolored
//! to the front of the best failing order and try again. [`color`] searches the whole file,
//! then searches again with one register fewer than its best result while that is above the
//! lower bound `ceil(max pressure / lanes)`. The number of attempts is bounded by the graph
//! size ([`WORK_BUDGET`]), so large programs get the three base orders only.
//!
//! When the whole file cannot be colored, the spill candidates are the uncolorable nodes of
//! the order with the fewest of them and all their neighbours (or, if none of those can be
//! spilled, every other interfering vreg), cheapest per conflict first:
//! `spill cost / (size × Σ neighbour sizes)`. Infinite-cost vregs are never candidates.

use super::interference::mirror;
use super::{AllocFailure, Allocation, Interference, Loc, Program, RegFile, VReg};
use std::cell::OnceCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Colors `graph` in `file` (the program is valid for `file`).
pub(crate) fn color(
    file: &RegFile,
    program: &Program,
    graph: &Interference,
) -> Result<Allocation, AllocFailure> {
    let c = Colorer::new(file, program, graph);
    if c.nodes.is_empty() {
        return Ok(Allocation {
            locs: vec![None; program.vregs.len()],
            registers_used: 0,
        });
    }
    if file.registers == 0 {
        return Err(AllocFailure {
            spill_candidates: Vec::new(),
            message: "the register file has no registers".to_string(),
        });
    }
    c.fixed_conflicts()?;
    let lanes = u32::from(file.lanes);
    let lower_bound = graph
        .max_pressure()
        .div_ceil(lanes)
        .max(c.fixed_regs)
        .clamp(1, 255) as u8;
    let work = c.nodes.len() + 2 * graph.edges() + 1;
    let mut budget = (WORK_BUDGET / work).clamp(MIN_ATTEMPTS, MAX_ATTEMPTS);

    let mut best = match c.search(file.registers, &mut budget) {
        Ok(alloc) => alloc,
        Err(failed) => return Err(c.failure(&failed)),
    };
    // Fewer registers: search again below the best so far.
    while best.registers_used > lower_bound && budget > 0 {
        match c.search(best.registers_used - 1, &mut budget) {
            Ok(alloc) => best = alloc,
            Err(_) => break,
        }
    }
    Ok(best)
}

/// Coloring attempts allowed: about this many adjacency entries visited in total …
const WORK_BUDGET: usize = 8_000_000;
/// … but at least the three base orders, and at most this many.
const MIN_ATTEMPTS: usize = 3;
const MAX_ATTEMPTS: usize = 40;
/// Failed-first refinement rounds per search.
const ROUNDS: usize = 8;

/// Bit mask of `size` consecutive lanes starting at lane 0.
fn range(size: u8) -> u8 {
    ((1u16 << size) - 1) as u8
}

/// The first lanes of `v` forbidden by a neighbour at lane `lane` with edge mask `S(v, n)`.
fn forbidden(s: u16, lane: u8) -> u8 {
    (s >> (7 - lane)) as u8
}

/// Placements of a vreg with first lanes `ov` that a neighbour with first lanes `on` and edge
/// mask `s` (= S(vreg, neighbour)) can block, at worst.
fn weight(ov: u8, on: u8, s: u16) -> u8 {
    let mut worst = 0;
    let mut rest = on;
    while rest != 0 {
        let lane = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        worst = worst.max(POPCOUNT[usize::from(forbidden(s, lane) & ov)]);
    }
    worst
}

/// Set bits of every byte (the default x86-64 target has no popcount instruction).
const POPCOUNT: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).count_ones() as u8;
        i += 1;
    }
    t
};

#[derive(Debug)]
struct Colorer<'a> {
    file: RegFile,
    program: &'a Program,
    graph: &'a Interference,
    /// Accessed vregs.
    nodes: Vec<u32>,
    /// Allowed first lanes of each vreg (a single one for fixed and `lane0` vregs).
    offsets: Vec<u8>,
    /// Longest run of free lanes of each occupancy mask.
    longest_free: [u8; 256],
    /// Registers occupied by fixed vregs: highest index + 1.
    fixed_regs: u32,
    /// The two greedy orders (independent of the register cap, so sorted once per graph).
    greedy: [OnceCell<Vec<u32>>; 2],
    /// Per edge `v → n` (indexed like [`Interference::adjacency`]): the placements of `v` that
    /// `n` can block, and of `n` that `v` can block (see [`weight`]); computed once, as every
    /// search's simplify needs them.
    weights: Vec<(u8, u8)>,
    /// Per vreg: the sum of its edges' first weights.
    weight_sums: Vec<u32>,
}

impl<'a> Colorer<'a> {
    fn new(file: &RegFile, program: &'a Program, graph: &'a Interference) -> Colorer<'a> {
        let lanes = file.lanes;
        let n = program.vregs.len();
        let mut nodes = Vec::new();
        let mut offsets = vec![0u8; n];
        let mut fixed_regs = 0;
        for (i, info) in program.vregs.iter().enumerate() {
            if !graph.is_accessed(VReg(i as u32)) {
                continue;
            }
            nodes.push(i as u32);
            offsets[i] = match info.fixed {
                Some(loc) => {
                    fixed_regs = fixed_regs.max(u32::from(loc.reg) + 1);
                    1 << loc.lane
                }
                None if info.lane0 => 1,
                None => range(lanes - info.size + 1),
            };
        }
        let mut longest_free = [0u8; 256];
        for (mask, slot) in longest_free.iter_mut().enumerate() {
            let (mut best, mut run) = (0, 0);
            for lane in 0..lanes {
                if mask & (1 << lane) == 0 {
                    run += 1;
                    best = best.max(run);
                } else {
                    run = 0;
                }
            }
            *slot = best;
        }
        Colorer {
            file: *file,
            program,
            graph,
            nodes,
            offsets,
            longest_free,
            fixed_regs,
            greedy: [OnceCell::new(), OnceCell::new()],
            weights: Vec::new(),
            weight_sums: Vec::new(),
        }
        .with_weights()
    }

    /// Fills [`Colorer::weights`] and [`Colorer::weight_sums`].
    fn with_weights(mut self) -> Colorer<'a> {
        let (adj, shift) = self.graph.adjacency();
        let mut weights = vec![(0, 0); adj.len()];
        let mut sums = vec![0u32; self.program.vregs.len()];
        for &v in &self.nodes {
            let ov = self.offsets[v as usize];
            let mut sum = 0;
            for k in self.graph.edge_range(VReg(v)) {
                let on = self.offsets[adj[k].index()];
                let w = (weight(ov, on, shift[k]), weight(on, ov, mirror(shift[k])));
                sum += u32::from(w.0);
                weights[k] = w;
            }
            sums[v as usize] = sum;
        }
        self.weights = weights;
        self.weight_sums = sums;
        self
    }

    fn size(&self, v: u32) -> u8 {
        self.program.vregs[v as usize].size
    }

    fn fixed(&self, v: u32) -> Option<Loc> {
        self.program.vregs[v as usize].fixed
    }

    fn cost(&self, v: u32) -> f32 {
        self.program.vregs[v as usize].spill_cost
    }

    fn start(&self, v: u32) -> u32 {
        self.graph.start(VReg(v))
    }

    fn offset_count(&self, v: u32) -> u32 {
        self.offsets[v as usize].count_ones()
    }

    /// Placements available to `v` in the first `cap` registers of an empty file.
    fn capacity(&self, v: u32, cap: u8) -> u32 {
        u32::from(cap) * self.offset_count(v)
    }

    fn neighbors(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        self.graph.neighbors(VReg(v)).iter().map(|n| n.0)
    }

    /// Interfering fixed vregs whose lanes overlap make allocation impossible.
    fn fixed_conflicts(&self) -> Result<(), AllocFailure> {
        for &v in &self.nodes {
            let Some(a) = self.fixed(v) else { continue };
            for n in self.neighbors(v).filter(|&n| n > v) {
                let Some(b) = self.fixed(n) else { continue };
                if !self.graph.compatible(VReg(v), a, VReg(n), b) {
                    let mut spill_candidates: Vec<VReg> = [v, n]
                        .into_iter()
                        .filter(|&x| self.cost(x).is_finite())
                        .map(VReg)
                        .collect();
                    spill_candidates.sort_by(|x, y| self.cost(x.0).total_cmp(&self.cost(y.0)));
                    return Err(AllocFailure {
                        spill_candidates,
                        message: format!(
                            "v{v} (fixed at {a}) and v{n} (fixed at {b}) interfere and share a lane"
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Non-fixed nodes sorted by `key`, ties by index.
    fn sorted_order<K: Ord>(&self, key: impl Fn(u32) -> K) -> Vec<u32> {
        let mut order: Vec<u32> = self
            .nodes
            .iter()
            .copied()
            .filter(|&v| self.fixed(v).is_none())
            .collect();
        order.sort_by_cached_key(|&v| (key(v), v));
        order
    }

    /// Chaitin–Briggs simplify: the coloring order (reverse removal order) of non-fixed nodes.
    fn briggs_order(&self, cap: u8) -> Vec<u32> {
        let n = self.program.vregs.len();
        let mut removed = vec![true; n];
        let mut listed = vec![false; n];
        let mut sumw = vec![0u32; n];
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); 9];
        let mut heap = BinaryHeap::new();
        let key = |v: u32, sumw: u32| {
            let cost = self.cost(v);
            let per = if cost.is_finite() {
                cost / sumw.max(1) as f32
            } else {
                f32::INFINITY
            };
            Reverse((Key(per), v))
        };
        for &v in &self.nodes {
            if self.fixed(v).is_none() {
                removed[v as usize] = false;
            }
        }
        for &v in &self.nodes {
            if removed[v as usize] {
                continue;
            }
            let s = self.weight_sums[v as usize];
            sumw[v as usize] = s;
            if s < self.capacity(v, cap) {
                listed[v as usize] = true;
                buckets[self.offset_count(v) as usize].push(v);
            }
            heap.push(key(v, s));
        }
        let mut stack = Vec::with_capacity(self.nodes.len());
        loop {
            let next = buckets.iter_mut().rev().find_map(Vec::pop).or_else(|| {
                while let Some(Reverse((Key(k), v))) = heap.pop() {
                    if removed[v as usize] {
                        continue;
                    }
                    let now = key(v, sumw[v as usize]);
                    if now.0 .0 .0 != k {
                        heap.push(now);
                        continue;
                    }
                    return Some(v);
                }
                None
            });
            let Some(v) = next else { break };
            if removed[v as usize] {
                continue;
            }
            removed[v as usize] = true;
            stack.push(v);
            let (adj, _) = self.graph.adjacency();
            for k in self.graph.edge_range(VReg(v)) {
                let m = adj[k].0;
                let mi = m as usize;
                if removed[mi] {
                    continue;
                }
                sumw[mi] -= u32::from(self.weights[k].1);
                if !listed[mi] && sumw[mi] < self.capacity(m, cap) {
                    listed[mi] = true;
                    buckets[self.offset_count(m) as usize].push(m);
                }
            }
        }
        stack.reverse();
        stack
    }

    /// Tries to color everything in the first `cap` registers: the three base orders, then
    /// rounds that move the nodes left uncolored by the best failing order to its front
    /// ("squeaky wheel"). Each attempt spends one unit of `budget` (the three base orders
    /// always run). Returns the first success, or the uncolorable nodes of the order with the
    /// fewest.
    fn search(&self, cap: u8, budget: &mut usize) -> Result<Allocation, Vec<u32>> {
        let mut worst: Option<(Vec<u32>, Vec<u32>)> = None;
        for strategy in 0..3 {
            let order = match strategy {
                0 => self.briggs_order(cap),
                1 => self.greedy[0]
                    .get_or_init(|| {
                        self.sorted_order(|v| {
                            (self.start(v), self.offset_count(v), Reverse(self.size(v)))
                        })
                    })
                    .clone(),
                _ => self.greedy[1]
                    .get_or_init(|| {
                        self.sorted_order(|v| {
                            (self.offset_count(v), self.start(v), Reverse(self.size(v)))
                        })
                    })
                    .clone(),
            };
            *budget = budget.saturating_sub(1);
            let (alloc, failed) = self.assign(&order, cap);
            if failed.is_empty() {
                return Ok(alloc);
            }
            if worst.as_ref().is_none_or(|(_, f)| failed.len() < f.len()) {
                worst = Some((order, failed));
            }
        }
        let Some((mut order, mut failed)) = worst else {
            return Err(Vec::new());
        };
        let fewest = failed.clone();
        let mut promoted = vec![false; self.program.vregs.len()];
        for _ in 0..ROUNDS {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            for &v in &failed {
                promoted[v as usize] = true;
            }
            // Promoted nodes first, each part in its old order (a stable partition).
            let (front, back): (Vec<u32>, Vec<u32>) =
                order.iter().partition(|&&v| promoted[v as usize]);
            order = front;
            order.extend(back);
            let (alloc, now_failed) = self.assign(&order, cap);
            if now_failed.is_empty() {
                return Ok(alloc);
            }
            failed = now_failed;
        }
        Err(fewest)
    }

    /// Colors fixed nodes, then `order` in the first `cap` registers; returns the allocation
    /// and the nodes left uncolored.
    fn assign(&self, order: &[u32], cap: u8) -> (Allocation, Vec<u32>) {
        let mut locs: Vec<Option<Loc>> = vec![None; self.program.vregs.len()];
        // Per vreg: its register, first lane and occupied lanes, packed (see `Colored`), for
        // the hot loop over neighbours.
        let mut colored: Vec<Colored> = vec![Colored::NONE; self.program.vregs.len()];
        let mut used = self.fixed_regs;
        for &v in &self.nodes {
            if let Some(loc) = self.fixed(v) {
                locs[v as usize] = Some(loc);
                colored[v as usize] = Colored::new(loc, self.size(v));
            }
        }
        let registers = usize::from(cap.min(self.file.registers));
        // Per register: first lanes forbidden to `v`, and lanes occupied by its neighbours.
        let mut forbid = [0u8; 256];
        let mut occupied = [0u8; 256];
        let mut failed = Vec::new();
        for &v in order {
            forbid[..registers].fill(0);
            occupied[..registers].fill(0);
            let (adj, shift) = self.graph.adjacency();
            for k in self.graph.edge_range(VReg(v)) {
                let c = colored[adj[k].index()];
                // Uncolored neighbours have no register; fixed ones may sit above `cap` (never
                // below the lower bound).
                let r = c.reg();
                if r < registers {
                    forbid[r] |= forbidden(shift[k], c.lane());
                    occupied[r] |= c.lanes();
                }
            }
            match self.place(v, &forbid[..registers], &occupied[..registers], used) {
                Some(loc) => {
                    used = used.max(u32::from(loc.reg) + 1);
                    locs[v as usize] = Some(loc);
                    colored[v as usize] = Colored::new(loc, self.size(v));
                }
                None => failed.push(v),
            }
        }
        let registers_used = locs.iter().flatten().map(|l| l.reg + 1).max().unwrap_or(0);
        (
            Allocation {
                locs,
                registers_used,
            },
            failed,
        )
    }

    /// The best placement of `v` given, per register, the first lanes its colored neighbours
    /// forbid and the lanes they occupy: the smallest [`place_key`].
    fn place(&self, v: u32, forbid: &[u8], occupied: &[u8], used: u32) -> Option<Loc> {
        let size = self.size(v);
        let lanes = self.file.lanes;
        let lane0 = self.program.vregs[v as usize].lane0;
        let offsets = self.offsets[v as usize];
        let mut best = u64::MAX;
        // Registers at or above `used` are all empty: only the first of them is worth trying.
        let limit = (used as usize + 1).min(forbid.len());
        for (reg, (&f, &t)) in forbid.iter().zip(occupied).enumerate().take(limit) {
            let new_reg = reg as u32 >= used;
            let free_lanes = lanes - POPCOUNT[usize::from(t)];
            // Every key of this register is at least this: skip it when that cannot win.
            if place_key(new_reg, free_lanes, 0, false, 0, 255) > best {
                continue;
            }
            let mut free = offsets & !f;
            while free != 0 {
                let lane = free.trailing_zeros() as u8;
                free &= free - 1;
                let after = t | range(size) << lane;
                let key = place_key(
                    new_reg,
                    free_lanes,
                    lanes - self.longest_free[usize::from(after)],
                    !lane0 && after & 1 != 0,
                    reg as u8,
                    lane,
                );
                best = best.min(key);
            }
        }
        (best != u64::MAX).then(|| Loc {
            reg: (best >> 8) as u8,
            lane: 255 - best as u8,
        })
    }

    /// The failure report for the uncolorable nodes `failed`.
    fn failure(&self, failed: &[u32]) -> AllocFailure {
        let n = self.program.vregs.len();
        let mut seen = vec![false; n];
        let mut near = Vec::new();
        for &v in failed {
            for x in std::iter::once(v).chain(self.neighbors(v)) {
                if !std::mem::replace(&mut seen[x as usize], true) && self.cost(x).is_finite() {
                    near.push(x);
                }
            }
        }
        if near.is_empty() {
            near = self
                .nodes
                .iter()
                .copied()
                .filter(|&x| self.cost(x).is_finite() && self.graph.degree(VReg(x)) > 0)
                .collect();
        }
        let metric = |v: u32| {
            let conflicts: u32 = self.neighbors(v).map(|m| u32::from(self.size(m))).sum();
            self.cost(v) / (f32::from(self.size(v)) * conflicts.max(1) as f32)
        };
        near.sort_by_cached_key(|&v| (Key(metric(v)), v));
        let names: Vec<String> = failed
            .iter()
            .take(4)
            .map(|&v| format!("v{v} (size {})", self.size(v)))
            .collect();
        let more = failed.len().saturating_sub(names.len());
        AllocFailure {
            spill_candidates: near.into_iter().map(VReg).collect(),
            message: format!(
                "{} registers × {} lanes are not enough: could not place {}{} (max pressure {} components)",
                self.file.registers,
                self.file.lanes,
                names.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                },
                self.graph.max_pressure()
            ),
        }
    }
}

/// How good a placement is, smaller is better, compared field by field in this order: opens a
/// new register, lanes of the register left free by neighbours, lanes short of a full free run
/// afterwards, takes lane 0 without needing it, register, higher lanes first. Packed into one
/// integer (every field fits its byte; the register and lane are the low two bytes).
fn place_key(new_reg: bool, free: u8, short: u8, takes_lane0: bool, reg: u8, lane: u8) -> u64 {
    u64::from(new_reg) << 40
        | u64::from(free) << 32
        | u64::from(short) << 24
        | u64::from(takes_lane0) << 16
        | u64::from(reg) << 8
        | u64::from(255 - lane)
}

/// A vreg in [`Colorer::assign`]'s hot loop: register (above every real one when uncolored),
/// first lane and the mask of lanes it occupies, packed into one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Colored(u32);

impl Colored {
    const NONE: Colored = Colored(u32::MAX);

    fn new(loc: Loc, size: u8) -> Colored {
        Colored(
            u32::from(loc.reg) << 16
                | u32::from(loc.lane) << 8
                | u32::from(range(size) << loc.lane),
        )
    }
    fn reg(self) -> usize {
        (self.0 >> 16) as usize
    }
    fn lane(self) -> u8 {
        (self.0 >> 8) as u8
    }
    fn lanes(self) -> u8 {
        self.0 as u8
    }
}

/// An `f32` ordered by `total_cmp`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key(f32);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
