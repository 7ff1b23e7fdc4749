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
//! * the same need counted over the ops that the dependences keep away from one end of the
//!   block ([`Levels`]): an op with `k` ops on the longest true-dependence chain before it
//!   cannot take any of the first `k` instructions, so the ops with `k` or more before them
//!   need `k` instructions plus their share of `S`; likewise an op heading a chain of `k`
//!   ops has `k − 1` instructions after its own, so the ops heading chains of `k` or more
//!   need `k − 1` instructions plus their share (with `k = 0` this is the plain count of the
//!   previous point). This adds what a plain count misses where the work of a unit piles
//!   up behind a long chain (texture fetches whose coordinates are computed, a final
//!   colour computed after the last fetch): 7,339 → 7,632 over the D3D9 pixel shaders in
//!   `ieee` mode;
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
            unit_bound(&b.ops, &levels)
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

/// The unit-set part of the bound for one block's ops: for every set `S` of units, the
/// instructions the ops' least need of `S` takes, also counting only the ops that cannot
/// start before instruction `k` (they sit in instructions `k` and later) or that have `k − 1`
/// dependent instructions after them (they sit in the first `L − k + 1` of the `L`).
fn unit_bound(ops: &[MOp], levels: &Levels) -> u32 {
    // Ops grouped by their alternatives (each a set of units, as a bit mask): a block has
    // few distinct kinds, so every unit set costs a pass over the kinds and over the
    // (kind, level) pairs, not over the ops.
    let mut kind_of: FxHashMap<SmallVec<[u16; 4]>, u32> = FxHashMap::default();
    let mut kinds: Vec<SmallVec<[u16; 4]>> = Vec::new();
    let mut starts: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    let mut ends: FxHashMap<(u32, u32), u32> = FxHashMap::default();
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
        *starts.entry((kind, before)).or_default() += 1;
        *ends.entry((kind, tail)).or_default() += 1;
    }
    let starts: Vec<((u32, u32), u32)> = starts.into_iter().collect();
    let ends: Vec<((u32, u32), u32)> = ends.into_iter().collect();
    // Only sets of units some op can use matter: another unit adds to `|S|`, not to the need.
    let used = kinds
        .iter()
        .flatten()
        .fold(0u16, |m, &alternative| m | alternative);
    let level_count = deepest as usize + 1;
    let mut fewest = vec![0u32; kinds.len()];
    let mut from_start = vec![0u32; level_count];
    let mut from_end = vec![0u32; level_count];
    let mut best = 0;
    let mut set = used;
    while set != 0 {
        for (f, alternatives) in fewest.iter_mut().zip(&kinds) {
            *f = alternatives
                .iter()
                .map(|a| (a & set).count_ones())
                .min()
                .unwrap_or(0);
        }
        from_start.fill(0);
        from_end.fill(0);
        for &((kind, level), n) in &starts {
            from_start[level as usize] += fewest[kind as usize] * n;
        }
        for &((kind, level), n) in &ends {
            from_end[level as usize] += fewest[kind as usize] * n;
        }
        let width = set.count_ones();
        let (mut starting, mut ending) = (0, 0);
        for k in (0..level_count).rev() {
            starting += from_start[k];
            ending += from_end[k];
            if starting > 0 {
                best = best.max(k as u32 + starting.div_ceil(width));
            }
            if ending > 0 {
                best = best.max((k as u32).saturating_sub(1) + ending.div_ceil(width));
            }
        }
        set = (set - 1) & used;
    }
    best
}
