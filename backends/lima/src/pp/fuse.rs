//! Fusing a texture fetch with the clamp that is its only reader.
//!
//! A texture group ends in a move of `^texture` into a register (in a vec4 unit); the finite
//! D3D9 multiply (`-C legacy-mul=finite`) then clamps almost every texel before it is used,
//! one instruction later: `max` in the vec4 mul unit, `min` in the vec4 add unit. The mul unit
//! can read `^texture` itself (the pipeline register is visible to every unit after the
//! sampler, as Mesa's multiplies of `^texture` show), so the clamp goes into the fetch's own
//! instruction instead of its move: `texld …, max.v0 ^vmul ^texture lo, min.v1 $r ^vmul hi`.
//! One instruction and one register less on the path from every clamped fetch.
//!
//! The pair is fused when the fetch's value is read by nothing but a vector-width constant
//! clamp without source modifiers, later in the same block, and nothing between the two ops
//! touches the clamp's destination (the fused op takes the fetch's place, so the clamp's write
//! moves up to it).

use irc_backend::machine::{MachFunction, MachOp, Operands, Role};
use irc_backend::regalloc::VReg;
use rustc_hash::FxHashMap;

use super::isa::OutMod;
use super::mir::{Kind, MOp, Operand, Program};

/// Fuses every such fetch–clamp pair of `p` (module documentation).
pub fn texture_clamps(p: &mut Program) {
    let reads = read_counts(p);
    for b in 0..p.blocks.len() {
        let mut i = 0;
        while i < p.blocks[b].ops.len() {
            if let Some(j) = fusable_clamp(p, &reads, b, i) {
                let clamp = p.blocks[b].ops.remove(j);
                fuse(&mut p.blocks[b].ops[i], clamp);
            }
            i += 1;
        }
    }
}

/// How many ops and terminators (the exit reads the outputs) read each register.
fn read_counts(p: &Program) -> FxHashMap<VReg, u32> {
    let mut reads: FxHashMap<VReg, u32> = FxHashMap::default();
    let mut operands = Operands::new();
    for b in 0..p.blocks.len() {
        for op in &p.blocks[b].ops {
            operands.clear();
            op.operands(&mut operands);
            for o in operands.iter().filter(|o| o.role == Role::Use) {
                *reads.entry(o.vreg).or_default() += 1;
            }
        }
        operands.clear();
        p.terminator_uses(b, &mut operands);
        for o in operands.iter() {
            *reads.entry(o.vreg).or_default() += 1;
        }
    }
    reads
}

/// The index of the clamp op to fuse into the texture fetch at `(b, i)`, if there is one.
fn fusable_clamp(p: &Program, reads: &FxHashMap<VReg, u32>, b: usize, i: usize) -> Option<usize> {
    let ops = &p.blocks[b].ops;
    let tex = &ops[i];
    let Kind::Texture { clamp: false, .. } = tex.kind else {
        return None;
    };
    let t = tex.dst?;
    if tex.modifier != OutMod::None || reads.get(&t) != Some(&1) {
        return None;
    }
    let j = i + 1 + ops[i + 1..].iter().position(|o| names(o, t))?;
    let clamp = &ops[j];
    let plain_clamp = clamp.kind == Kind::Clamp
        && clamp.srcs.len() == 3
        && matches!(clamp.srcs[0].op, Operand::Reg(r, _) if r == t)
        && !clamp.srcs[0].abs
        && !clamp.srcs[0].neg
        && clamp.srcs[1..]
            .iter()
            .all(|s| matches!(s.op, Operand::Const(_)) && !s.abs && !s.neg);
    let u = clamp.dst?;
    let reads_fetched = |c: u8| (tex.dst_comp..tex.dst_comp + tex.width).contains(&c);
    let Operand::Reg(_, swz) = clamp.srcs[0].op else {
        return None;
    };
    let in_range = swz[..usize::from(clamp.width)]
        .iter()
        .all(|&c| reads_fetched(c));
    let untouched = !ops[i + 1..j].iter().any(|o| names(o, u));
    (plain_clamp && in_range && untouched && u != t).then_some(j)
}

/// Whether `op` reads or writes register `v`.
fn names(op: &MOp, v: VReg) -> bool {
    let mut operands = Operands::new();
    op.operands(&mut operands);
    operands.iter().any(|o| o.vreg == v)
}

/// Turns the fetch `tex` into a fetch clamped by `clamp` and written where `clamp` wrote.
fn fuse(tex: &mut MOp, clamp: MOp) {
    let Operand::Reg(_, read) = clamp.srcs[0].op else {
        return;
    };
    let base = tex.dst_comp;
    if let Kind::Texture { swz, clamp: c, .. } = &mut tex.kind {
        let fetched = *swz;
        *swz = std::array::from_fn(|k| fetched[usize::from(read[k].saturating_sub(base) & 3)]);
        *c = true;
    }
    tex.dst = clamp.dst;
    tex.dst_comp = clamp.dst_comp;
    tex.width = clamp.width;
    tex.modifier = clamp.modifier;
    tex.srcs = clamp.srcs[1..].iter().copied().collect();
}
