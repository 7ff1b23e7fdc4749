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
//! * its longest chain of true dependences ([`dependence_depth`]): a value read in the
//!   instruction that writes it is one op in the machine program;
//! * one instruction, unless its ops may all vanish and it ends in a jump.
//!
//! Plain register moves count nowhere: the allocator may give a move's source and destination
//! the same register and drop it ([`may_vanish`]). A block of such moves alone may so become
//! no instruction at all (its jump falls through to the next block, found by the
//! differential fuzzer: a bound of 8 for a program of 7 instructions).

use irc_backend::machine::depth::dependence_depth;
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
            unit_bound(&b.ops)
                .max(dependence_depth(&b.ops, may_vanish))
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

/// The unit-set part of the bound for one block's ops.
fn unit_bound(ops: &[MOp]) -> u32 {
    // Ops grouped by their alternatives (each a set of units, as a bit mask): a block has few
    // distinct kinds, so every unit set costs a pass over the kinds, not over the ops.
    let mut kinds: FxHashMap<SmallVec<[u16; 4]>, u32> = FxHashMap::default();
    for op in ops.iter().filter(|op| !may_vanish(op)) {
        let mut alternatives: SmallVec<[u16; 4]> = facts::unit_options(op)
            .iter()
            .map(|units| units.iter().fold(0u16, |m, &u| m | 1 << u as u16))
            .collect();
        if alternatives.is_empty() {
            continue;
        }
        alternatives.sort_unstable();
        *kinds.entry(alternatives).or_default() += 1;
    }
    // Only sets of units some op can use matter: another unit adds to `|S|`, not to the need.
    let used = kinds
        .keys()
        .flatten()
        .fold(0u16, |m, &alternative| m | alternative);
    let mut best = 0;
    let mut set = used;
    while set != 0 {
        let need: u32 = kinds
            .iter()
            .map(|(alternatives, n)| {
                let fewest = alternatives
                    .iter()
                    .map(|a| (a & set).count_ones())
                    .min()
                    .unwrap_or(0);
                fewest * n
            })
            .sum();
        best = best.max(need.div_ceil(set.count_ones()));
        set = (set - 1) & used;
    }
    best
}
