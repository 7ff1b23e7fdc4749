//! Fusing a texture fetch with the op that is its only reader.
//!
//! A texture group ends in a move of `^texture` into a register (in a vec4 unit), and the
//! texel's reader runs at the earliest one instruction later. The vec4 units can read
//! `^texture` themselves (the pipeline register is visible to every unit after the sampler,
//! as Mesa's multiplies of `^texture` show), so the reader goes into the fetch's own
//! instruction instead of the move: `texld …, mul.v0 $r ^texture $1` for a tinted texel, or
//! `texld …, max.v0 ^vmul ^texture lo, min.v1 $r ^vmul hi` for the finite D3D9 multiply's
//! clamp (`-C legacy-mul=finite`), which follows almost every fetch. One instruction and one
//! register less on the path from every such fetch.
//!
//! A pair is fused when the fetch's value is read by nothing but one operand of one
//! vector-capable ALU op, multiply-add or clamp, later in the same block, and the fused op
//! can take the place of one of the two: the fetch's (nothing between writes the reader's
//! other registers or touches its destination) or the reader's (nothing between writes the
//! fetch's coordinate or LOD registers).

use irc_backend::machine::{MachFunction, MachOp, Operands, Role};
use irc_backend::regalloc::VReg;
use rustc_hash::FxHashMap;

use super::facts::{src_read, unit_options};
use super::isa::OutMod;
use super::mir::{Coords, Kind, MOp, Operand, Program, Reader, UnitKind};

/// Fuses every such fetch–reader pair of `p` (module documentation).
pub fn texture_readers(p: &mut Program) {
    let reads = read_counts(p);
    for b in 0..p.blocks.len() {
        let mut i = 0;
        while i < p.blocks[b].ops.len() {
            if let Some((j, at_fetch)) = fusable_reader(p, &reads, b, i) {
                let reader = p.blocks[b].ops.remove(j);
                let fetch = p.blocks[b].ops.remove(i);
                let fused = fuse(fetch, reader);
                p.blocks[b]
                    .ops
                    .insert(if at_fetch { i } else { j - 1 }, fused);
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

/// What a fetch's reader may be.
fn reader_of(op: &MOp) -> Option<Reader> {
    match op.kind {
        Kind::Alu(a) => Some(Reader::Alu(a)),
        Kind::Mad => Some(Reader::Mad),
        Kind::Clamp => Some(Reader::Clamp),
        Kind::Select(_)
        | Kind::CompareEq(_)
        | Kind::ScaleVec
        | Kind::Varying { .. }
        | Kind::Special(_)
        | Kind::Texture { .. }
        | Kind::Spill { .. } => None,
    }
}

/// The reader of the texture fetch at `(b, i)` to fuse into it, if there is one: its index,
/// and whether the fused op goes to the fetch's place (else to the reader's).
fn fusable_reader(
    p: &Program,
    reads: &FxHashMap<VReg, u32>,
    b: usize,
    i: usize,
) -> Option<(usize, bool)> {
    let ops = &p.blocks[b].ops;
    let fetch = &ops[i];
    let Kind::Texture {
        reader: None,
        coords,
        lod,
        ..
    } = &fetch.kind
    else {
        return None;
    };
    let t = fetch.dst?;
    if fetch.modifier != OutMod::None || reads.get(&t) != Some(&1) {
        return None;
    }
    let j = i + 1 + ops[i + 1..].iter().position(|o| names(o, t))?;
    let reader = &ops[j];
    reader_of(reader)?;
    let vector = unit_options(reader).iter().any(|units| {
        units
            .iter()
            .all(|u| matches!(u, UnitKind::VMul | UnitKind::VAdd))
    });
    let u = reader.dst?;
    // The texel operand: every lane it reads is one the fetch wrote.
    let k = reader
        .srcs
        .iter()
        .position(|s| matches!(s.op, Operand::Reg(r, _) if r == t))?;
    let Operand::Reg(_, swz) = reader.srcs[k].op else {
        return None;
    };
    let lanes = src_read(reader, k).1.clamp(1, 4);
    let fetched = fetch.dst_comp..fetch.dst_comp + fetch.width;
    if !vector || u == t || !swz[..lanes].iter().all(|c| fetched.contains(c)) {
        return None;
    }
    let between = &ops[i + 1..j];
    let reader_regs: Vec<VReg> = reader
        .srcs
        .iter()
        .filter_map(|s| match s.op {
            Operand::Reg(r, _) => Some(r),
            Operand::Uniform {
                offset: Some((r, _)),
                ..
            } => Some(r),
            _ => None,
        })
        .collect();
    let at_fetch = !between
        .iter()
        .any(|o| names(o, u) || reader_regs.iter().any(|&r| writes(o, r)));
    let fetch_regs: Vec<VReg> = match coords {
        Coords::Reg(s) => s.op.vreg().into_iter().collect(),
        Coords::Varying { .. } => Vec::new(),
    }
    .into_iter()
    .chain(lod.map(|(v, _, _)| v))
    .collect();
    let at_reader = !between
        .iter()
        .any(|o| fetch_regs.iter().any(|&r| writes(o, r)));
    (at_fetch || at_reader).then_some((j, at_fetch))
}

/// Whether `op` reads or writes register `v`.
fn names(op: &MOp, v: VReg) -> bool {
    let mut operands = Operands::new();
    op.operands(&mut operands);
    operands.iter().any(|o| o.vreg == v)
}

/// Whether `op` writes register `v`.
fn writes(op: &MOp, v: VReg) -> bool {
    let mut operands = Operands::new();
    op.operands(&mut operands);
    operands.iter().any(|o| o.vreg == v && o.role == Role::Def)
}

/// The fetch `fetch` with `reader` in place of its move: the reader's sources (the texel
/// read from `^texture`, through the fetch's swizzle) and destination.
fn fuse(mut fetch: MOp, reader: MOp) -> MOp {
    let base = fetch.dst_comp;
    let Kind::Texture { swz, reader: r, .. } = &mut fetch.kind else {
        return fetch;
    };
    let fetched = *swz;
    *r = reader_of(&reader);
    let t = fetch.dst;
    fetch.srcs = reader.srcs;
    for s in &mut fetch.srcs {
        if let Operand::Reg(v, read) = s.op {
            if Some(v) == t {
                s.op = Operand::Texture(std::array::from_fn(|k| {
                    fetched[usize::from(read[k].saturating_sub(base) & 3)]
                }));
            }
        }
    }
    fetch.dst = reader.dst;
    fetch.dst_comp = reader.dst_comp;
    fetch.width = reader.width;
    fetch.modifier = reader.modifier;
    fetch
}
