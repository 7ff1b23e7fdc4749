//! Pairs MOVAs: `mova a0.x, rA.p` … `mova a0.y, rA.q` becomes one `mova a0.xy, rA.pq` at the
//! first, when nothing between them reads a0.y, writes `rA` or ends the block.
//!
//! The lowering loads a0.x and a0.y one at a time as relative reads need them
//! ([`super::Lower`]'s address cache); a skinning shader reading four bone matrices at four
//! indices of one register then loads each index twice (once per matrix row group) with one MOVA
//! each. MOVA writes both components at once (reference §4: `mova a0.xy, src`), so every pair of
//! loads of the two components from one register becomes one instruction.

use super::mir::{Dst, Flow, MOp, Program, Reg};
use crate::isa::Opcode;

/// The address components (bit 0: x, bit 1: y) a MOVA writes, if `op` is one.
fn mova_mask(op: &MOp) -> Option<u8> {
    match op.dst {
        Dst::A0(mask) if op.op == Opcode::Mova => Some(mask),
        _ => None,
    }
}

/// True when `op` reads address component `a` (`c[n + a0.x]` is 0, `a0.y` is 1).
fn reads_address(op: &MOp, a: u8) -> bool {
    op.srcs
        .iter()
        .any(|s| matches!(s.reg, Reg::UniRel(_, b) if b == a))
}

/// Merges every MOVA of one component into the preceding MOVA of the other where that is
/// exact; returns how many MOVAs were removed.
pub(super) fn pair_movas(prog: &mut Program) -> usize {
    let mut removed = 0;
    let mut i = 0;
    while i < prog.ops.len() {
        let Some(mask @ (1 | 2)) = mova_mask(&prog.ops[i]) else {
            i += 1;
            continue;
        };
        let other: u8 = if mask == 1 { 1 } else { 0 };
        let Reg::V(source) = prog.ops[i].srcs[0].reg else {
            i += 1;
            continue;
        };
        let mut partner = None;
        for (j, op) in prog.ops.iter().enumerate().skip(i + 1) {
            if let Some(m) = mova_mask(op) {
                if m & (1 << other) != 0 {
                    partner = (m == 1 << other).then_some(j);
                    break;
                }
                continue;
            }
            let block_end = matches!(op.dst, Dst::Flow(f) if !matches!(f, Flow::Cmp(..)));
            let writes_source = matches!(op.dst, Dst::V(v, _) if v == source);
            if block_end || writes_source || reads_address(op, other) {
                break;
            }
        }
        let Some(j) = partner else {
            i += 1;
            continue;
        };
        let src = prog.ops[j].srcs[0];
        if src.reg != Reg::V(source) || src.neg != prog.ops[i].srcs[0].neg {
            i += 1;
            continue;
        }
        let first = &mut prog.ops[i];
        first.srcs[0].swz[usize::from(other)] = src.swz[usize::from(other)];
        first.srcs[0].n = 2;
        first.dst = Dst::A0(3);
        prog.ops.remove(j);
        removed += 1;
        i += 1;
    }
    removed
}
