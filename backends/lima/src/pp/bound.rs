//! A lower bound on the instructions of a scheduled PP program, reported in the statistics
//! (`lower bound`) so that the scheduler's distance from the best possible packing of the
//! program's machine ops is measured, not guessed.
//!
//! An instruction belongs to one block, so the bound is a sum over blocks. A non-empty block
//! takes at least:
//! * for every set `S` of units, the units of `S` its ops need at the least, divided by
//!   `|S|` (each unit exists once per instruction). An op counts with its cheapest
//!   alternative: the number of units of `S` it uses in that alternative, zero when one
//!   alternative avoids `S`. With `S` a single unit this is that unit's op count, with `S`
//!   the four ALU units the ALU work divided by four, and with `S` the two vector units the
//!   work that only they can do;
//! * the same need counted over the ops that the dependences keep away from the ends of the
//!   block ([`Levels`]): an op with `a` ops on the longest true-dependence chain before it
//!   cannot take any of the first `a` instructions, and an op heading a chain of `t` ops has
//!   `t − 1` instructions after its own. So the ops with `a` or more before them and heading
//!   chains of `t` or more sit in the `L − a − t + 1` instructions between, and need
//!   `a + t − 1` instructions plus their share of `S`. This adds what a plain count misses
//!   where the work of a unit piles up behind a long chain (texture fetches whose coordinates
//!   are computed, a final colour computed after the last fetch). Over the D3D9 pixel
//!   shaders in `ieee` mode: 7,339 for the plain count; 7,632 with one end at a time (`t = 1`
//!   or `a = 0`); 7,697 with both ends at once. Both ends at once are weighed for the few
//!   unit sets that bound the most from one end ([`BOTH_ENDS_SETS`]), with a segment tree
//!   over the end levels ([`WindowNeeds`]), so a block costs O(ops · log levels) per set
//!   rather than a walk over every pair of levels;
//! * its longest chain of true dependences ([`Levels::tail`]): a value read in the
//!   instruction that writes it is one op in the machine program;
//! * one instruction, unless its ops may all vanish and it ends in a jump.
//!
//! Plain register moves count nowhere: the allocator may give a move's source and destination
//! the same register and drop it ([`may_vanish`]). A block of such moves alone may so become
//! no instruction at all (its jump falls through to the next block, found by the
//! differential fuzzer: a bound of 8 for a program of 7 instructions).

use irc_backend::machine::depth::{dependence_levels, Levels};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::facts;
use super::isa::OutMod;
use super::mir::{Alu, Kind, MOp, Operand, Program, Terminator};

/// How many unit sets (those bounding the most from one end at a time) the bound weighs from
/// both ends at once. Over the D3D9 pixel shaders in `ieee` mode: 1 set gives 67 of the 75
/// instructions all sets give, 5 give all of them; every set costs a tree walk per op.
const BOTH_ENDS_SETS: usize = 4;

/// The bound of the module documentation.
pub fn lower_bound(prog: &Program) -> u32 {
    let total: u32 = prog
        .blocks
        .iter()
        .map(|b| {
            // Only a jump may go without an instruction (falling through); a branch, a stop
            // and a discard take one.
            let needs_one =
                b.ops.iter().any(|op| !may_vanish(op)) || !matches!(b.term, Terminator::Jump(_));
            let levels = dependence_levels(&b.ops, may_vanish);
            let depth = levels.tail.iter().copied().max().unwrap_or(0);
            unit_bound(&b.ops, &levels, depth)
                .max(depth)
                .max(u32::from(needs_one))
        })
        .sum();
    total.max(1)
}

/// Whether `op` is a move the allocator may make a self-move, dropped after allocation: a plain
/// copy of one register to another, without modifiers.
pub fn may_vanish(op: &MOp) -> bool {
    let (Kind::Alu(Alu::Mov), [s]) = (&op.kind, op.srcs.as_slice()) else {
        return false;
    };
    matches!(s.op, Operand::Reg(..)) && !s.abs && !s.neg && op.modifier == OutMod::None
}

/// The unit-set part of the bound for one block's ops (at least `depth`, the block's longest
/// chain): for every set `S` of units, the instructions the ops' least need of `S` takes,
/// also counting only the ops that cannot start before instruction `a` and have `t − 1`
/// dependent instructions after them (they sit in instructions `a ..= L − t`).
fn unit_bound(ops: &[MOp], levels: &Levels, depth: u32) -> u32 {
    // Ops grouped by their alternatives (each a set of units, as a bit mask): a block has
    // few distinct kinds, so every unit set costs a pass over the kinds and over the
    // (kind, level) pairs, not over the ops.
    let mut kind_of: FxHashMap<SmallVec<[u16; 4]>, u32> = FxHashMap::default();
    let mut kinds: Vec<SmallVec<[u16; 4]>> = Vec::new();
    let mut placed: FxHashMap<(u32, u32, u32), u32> = FxHashMap::default();
    let mut kind_count: Vec<u32> = Vec::new();
    let mut deepest = 0;
    for (i, op) in ops.iter().enumerate().filter(|(_, op)| !may_vanish(op)) {
        let mut alternatives: SmallVec<[u16; 4]> = facts::unit_options(op)
            .iter()
            .map(|units| units.iter().fold(0u16, |m, &u| m | 1 << u as u16))
            .collect();
        if alternatives.is_empty() {
            continue;
        }
        alternatives.sort_unstable();
        let next = kinds.len() as u32;
        let kind = *kind_of.entry(alternatives).or_insert_with_key(|a| {
            kinds.push(a.clone());
            next
        });
        let (before, tail) = (levels.before[i], levels.tail[i]);
        deepest = deepest.max(before).max(tail);
        *placed.entry((before, tail, kind)).or_default() += 1;
        if kind_count.len() <= kind as usize {
            kind_count.push(0);
        }
        kind_count[kind as usize] += 1;
    }
    let mut placed: Vec<((u32, u32, u32), u32)> = placed.into_iter().collect();
    placed.sort_unstable_by(|x, y| y.cmp(x));
    // Only sets of units some op can use matter: another unit adds to `|S|`, not to the need.
    let used = kinds
        .iter()
        .flatten()
        .fold(0u16, |m, &alternative| m | alternative);
    let level_count = deepest as usize + 1;
    let mut windows = WindowNeeds::new(level_count);
    let mut best = depth;
    // Every set's bound from one end of the block at a time, cheap; then both ends at once
    // for the sets that bound the most that way.
    let mut by_ends: Vec<(u32, SmallVec<[u32; 8]>, u32)> = Vec::new();
    let mut from_start = vec![0u32; level_count];
    let mut from_end = vec![0u32; level_count];
    for (fewest, width) in undominated_needs(&kinds, used) {
        from_start.fill(0);
        from_end.fill(0);
        for &((before, tail, kind), n) in &placed {
            from_start[before as usize] += fewest[kind as usize] * n;
            from_end[tail as usize] += fewest[kind as usize] * n;
        }
        let (mut starting, mut ending, mut most) = (0, 0, 0);
        for k in (0..level_count).rev() {
            starting += from_start[k];
            ending += from_end[k];
            if starting > 0 {
                most = most.max(k as u32 + starting.div_ceil(width));
            }
            if ending > 0 {
                most = most.max((k as u32).saturating_sub(1) + ending.div_ceil(width));
            }
        }
        best = best.max(most);
        by_ends.push((most, fewest, width));
    }
    by_ends.sort_by_key(|set| std::cmp::Reverse(set.0));
    for (_, fewest, width) in by_ends.into_iter().take(BOTH_ENDS_SETS) {
        let total: u32 = fewest.iter().zip(&kind_count).map(|(f, n)| f * n).sum();
        if depth.saturating_sub(1) + total.div_ceil(width) <= best {
            continue;
        }
        windows.reset(width);
        // Ops by their start level, the latest first: after the ops starting at level `a` or
        // later are in, the windows hold what the instructions from `a` on must take.
        let mut longest_tail = 0;
        for group in placed.chunk_by(|x, y| x.0 .0 == y.0 .0) {
            for same_tail in group.chunk_by(|x, y| x.0 .1 == y.0 .1) {
                let tail = same_tail[0].0 .1;
                let need: u32 = same_tail
                    .iter()
                    .map(|&((_, _, kind), n)| fewest[kind as usize] * n)
                    .sum();
                if need > 0 {
                    windows.add(tail, need);
                    longest_tail = longest_tail.max(tail);
                }
            }
            if longest_tail > 0 {
                let start = group[0].0 .0;
                best = best.max(start + windows.most(longest_tail).div_ceil(width));
            }
        }
    }
    best
}

/// Per unit set `S` (a subset of `used`): what each kind of op needs of `S` at the least, and
/// `|S|`; without the sets another set bounds at least as well (it has fewer or as many units,
/// and every kind needs as much or more of it), so that the bound weighs each need once.
fn undominated_needs(kinds: &[SmallVec<[u16; 4]>], used: u16) -> Vec<(SmallVec<[u32; 8]>, u32)> {
    let mut needs: Vec<(SmallVec<[u32; 8]>, u32)> = Vec::new();
    let mut set = used;
    while set != 0 {
        let fewest: SmallVec<[u32; 8]> = kinds
            .iter()
            .map(|alternatives| {
                alternatives
                    .iter()
                    .map(|a| (a & set).count_ones())
                    .min()
                    .unwrap_or(0)
            })
            .collect();
        needs.push((fewest, set.count_ones()));
        set = (set - 1) & used;
    }
    // Narrowest first: a set can only be bounded by one as narrow or narrower.
    needs.sort_by_key(|(_, width)| *width);
    let mut kept: Vec<(SmallVec<[u32; 8]>, u32)> = Vec::new();
    for (fewest, width) in needs {
        let dominated = kept.iter().any(|(other, other_width)| {
            *other_width <= width && other.iter().zip(&fewest).all(|(o, f)| o >= f)
        });
        if !dominated && fewest.iter().any(|&f| f > 0) {
            kept.push((fewest, width));
        }
    }
    kept
}

/// For one unit set of width `w` and the ops added so far, per end level `t ≥ 1`:
/// `w · (t − 1) + N(t)`, where `N(t)` is the need of the added ops with a tail of `t` or more.
/// Those ops take instructions `a ..= L − t` (for ops starting at `a` or later), so
/// `L ≥ a + (t − 1) + ⌈N(t) / w⌉ = a + ⌈(w · (t − 1) + N(t)) / w⌉`. Adding an op of tail `τ`
/// adds to every `t ≤ τ`; the bound needs the largest value over the `t` some op reaches. A
/// segment tree keeps both in O(log levels), so every (start, end) pair of levels is
/// weighed without walking the pairs.
struct WindowNeeds {
    /// Leaves: end levels `1 ..= levels − 1` (leaf `t − 1`), padded to a power of two.
    leaves: usize,
    /// Per node: the largest value below it, its own pending addition included.
    most: Vec<u32>,
    /// Per node: what was added to its whole range.
    added: Vec<u32>,
}

impl WindowNeeds {
    fn new(levels: usize) -> Self {
        let leaves = levels.max(2).next_power_of_two();
        WindowNeeds {
            leaves,
            most: vec![0; 2 * leaves],
            added: vec![0; 2 * leaves],
        }
    }

    /// Starts over for a unit set of `width` units: no ops, so every end level holds
    /// `width · (t − 1)`.
    fn reset(&mut self, width: u32) {
        self.added.fill(0);
        for leaf in 0..self.leaves {
            self.most[self.leaves + leaf] = width * leaf as u32;
        }
        for node in (1..self.leaves).rev() {
            self.most[node] = self.most[2 * node].max(self.most[2 * node + 1]);
        }
    }

    /// Adds `need` to every end level `1 ..= tail`.
    fn add(&mut self, tail: u32, need: u32) {
        self.add_below(1, 0, self.leaves, tail as usize, need);
    }

    fn add_below(&mut self, node: usize, from: usize, to: usize, end: usize, need: u32) {
        if end <= from {
            return;
        }
        if to <= end {
            self.most[node] += need;
            self.added[node] += need;
            return;
        }
        let middle = (from + to) / 2;
        self.add_below(2 * node, from, middle, end, need);
        self.add_below(2 * node + 1, middle, to, end, need);
        self.most[node] = self.added[node] + self.most[2 * node].max(self.most[2 * node + 1]);
    }

    /// The largest value over the end levels `1 ..= tail`.
    fn most(&self, tail: u32) -> u32 {
        self.most_below(1, 0, self.leaves, tail as usize)
    }

    fn most_below(&self, node: usize, from: usize, to: usize, end: usize) -> u32 {
        if to <= end {
            return self.most[node];
        }
        let middle = (from + to) / 2;
        let left = self.most_below(2 * node, from, middle, end);
        let right = if middle < end {
            self.most_below(2 * node + 1, middle, to, end)
        } else {
            0
        };
        self.added[node] + left.max(right)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pp::mir::Src;
    use irc_backend::regalloc::VReg;

    fn op(alu: Alu, dst: u32, srcs: &[u32]) -> MOp {
        let srcs: Vec<Src> = srcs
            .iter()
            .map(|&v| Src::new(Operand::reg(VReg(v), 0)))
            .collect();
        MOp::alu(alu, VReg(dst), 0, 1, &srcs)
    }

    fn block_bound(ops: &[MOp]) -> u32 {
        let levels = dependence_levels(ops, may_vanish);
        let depth = levels.tail.iter().copied().max().unwrap_or(0);
        unit_bound(ops, &levels, depth).max(depth)
    }

    /// Four reciprocals (combiner only) that read a product and feed two levels of sums: each
    /// has an op before it and two after it, so the four sit in `L − 3` instructions and the
    /// block takes 1 + 2 + 4 = 7. From the start alone the bound sees 1 + 4, from the end
    /// alone 2 + 4, and the longest chain is 4 ops.
    #[test]
    fn ops_held_from_both_ends_share_the_instructions_between() {
        let ops = [
            op(Alu::Mul, 1, &[0, 0]),
            op(Alu::Rcp, 2, &[1]),
            op(Alu::Rcp, 3, &[1]),
            op(Alu::Rcp, 4, &[1]),
            op(Alu::Rcp, 5, &[1]),
            op(Alu::Add, 6, &[2, 3]),
            op(Alu::Add, 7, &[4, 5]),
            op(Alu::Add, 8, &[6, 7]),
        ];
        assert_eq!(block_bound(&ops), 7);
        // Without the product, the reciprocals may start the block: 4 + 2.
        assert_eq!(block_bound(&ops[1..]), 6);
    }

    /// The tree's largest value over the first end levels equals a walk over them, as needs
    /// are added in any order.
    #[test]
    fn window_needs_match_a_walk_over_every_level() {
        let mut seed = 0x2545_f491_u32;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % n
        };
        for levels in [2usize, 3, 7, 8, 9, 33] {
            for width in 1..4 {
                let mut tree = WindowNeeds::new(levels);
                tree.reset(width);
                // Per end level t (index t − 1): the need of the ops with a tail of t or more.
                let mut need = vec![0u32; levels - 1];
                for _ in 0..40 {
                    let tail = 1 + next(levels as u32 - 1);
                    let amount = 1 + next(5);
                    tree.add(tail, amount);
                    for n in &mut need[..tail as usize] {
                        *n += amount;
                    }
                    let upto = 1 + next(levels as u32 - 1);
                    let walked = (0..upto as usize)
                        .map(|t| width * t as u32 + need[t])
                        .max()
                        .unwrap();
                    assert_eq!(tree.most(upto), walked, "levels {levels} width {width}");
                }
            }
        }
    }
}
