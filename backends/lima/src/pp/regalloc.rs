//! Register allocation for the PP: 6 vec4 registers (24 scalar lanes), with spilling.
//!
//! The scheduled program is described to the shared allocator core
//! ([`irc_backend::regalloc`]) as one point per instruction (the ops' accesses come from
//! [`super::facts`]' operand description), every register access tagged
//! with the pipeline stage of the unit making it (varying 0, sampler 1, uniform 2, mul 3,
//! add 4, combiner/branch 5, temp write 6, program end 7), so that a value last read by an
//! early unit can share lanes with one written by a later unit of the same instruction.
//!
//! When the core cannot colour the program, [`spill`] rewrites the *unscheduled* machine
//! program: after every write of a spilled value its components are stored one by one to a
//! temporary-stack slot (`store.t`, scalar alignment, address `slot·4 + component`), and every
//! read becomes a `load.t` of the slot through the uniform unit (`^uniform`, where component
//! `c` appears in lane `c`), or a move from it where the reader needs a register (branch
//! conditions, texture coordinates, indices). Then the program is scheduled and allocated
//! again (Mesa's ppir does the same, §13). [`TempStack`] is this rewrite as the
//! [`SpillStrategy`] of the shared schedule → allocate → spill driver.

use irc_backend::machine;
use irc_backend::machine::describe::{ProgramBuilder, VRegShape};
use irc_backend::machine::spill::SpillStrategy;
use irc_backend::regalloc::{self, Access, Point, RegFile, VReg};
use irc_backend::Diagnostic;
use smallvec::SmallVec;

use super::mir::{Alu, Coords, Kind, MOp, Operand, Program, Src, Terminator, UnitKind, END_STAGE};
use super::sched::{BranchUse, Planned, SBlock};

/// The PP register file.
pub const FILE: RegFile = RegFile {
    registers: 6,
    lanes: 4,
};

/// The allocator's view of a scheduled program. `succs` are the machine blocks' successors.
pub fn describe(p: &Program, blocks: &[SBlock], succs: &[Vec<usize>]) -> regalloc::Program {
    let mut out = ProgramBuilder::new(p.vregs.len());
    for (bi, b) in blocks.iter().enumerate() {
        let depth = p.blocks.get(bi).map_or(0, |b| b.depth);
        out.block(succs.get(bi).cloned().unwrap_or_default(), depth);
        for ins in &b.instrs {
            let mut pt = Point::default();
            for (op, units) in &ins.ops {
                machine::point(op, units, &mut pt);
            }
            match ins.branch {
                Some(BranchUse::Branch {
                    cond: Some(((v, c), _)),
                    ..
                })
                | Some(BranchUse::ToDiscard((v, c))) => {
                    pt.uses
                        .push(Access::new(v, UnitKind::Branch.stage(), 1 << c));
                }
                _ => {}
            }
            for &v in &ins.exit_reads {
                let size = p.vregs[v.0 as usize].size;
                pt.uses.push(Access::new(v, END_STAGE, (1u8 << size) - 1));
            }
            out.point(pt);
        }
    }
    out.finish(|v| {
        let d = p.vregs[v.index()];
        VRegShape {
            size: d.size,
            lane0: d.lane0,
            no_spill: d.no_spill,
        }
    })
}

/// Rewrites `p` so that `v` lives in temporary-stack slot `slot` between its writes and
/// reads. Returns, per block, whether it changed: only the blocks that access `v` do (the
/// others are not even visited again, and keep their scheduling facts).
pub fn spill(p: &mut Program, v: VReg) -> Vec<bool> {
    let touched = touching(p, v);
    if let Some(load) = remat_def(p, v).cloned() {
        rematerialize(p, v, &load, &touched);
        return touched;
    }
    let slot = p.spill_slots;
    p.spill_slots += 1;
    // What remains of `v` lives only from each write to its store.
    p.vregs[v.0 as usize].no_spill = true;
    let size = p.vregs[v.0 as usize].size;
    let reload_src = |swz: [u8; 4]| Operand::Temp { slot, of: v, swz };
    for bi in (0..p.blocks.len()).filter(|&b| touched[b]) {
        let ops = std::mem::take(&mut p.blocks[bi].ops);
        let mut out: Vec<MOp> = Vec::with_capacity(ops.len() + 4);
        for mut op in ops {
            // Reads: through ^uniform where the operand allows it, else a reload move.
            let other_uniform = |op: &MOp| {
                op.srcs.iter().any(|s| match s.op {
                    Operand::Uniform { .. } => true,
                    Operand::Temp { slot: s2, .. } => s2 != slot,
                    _ => false,
                })
            };
            let pipeline_ok = !matches!(op.kind, Kind::Spill { .. });
            for i in 0..op.srcs.len() {
                if let Operand::Reg(r, swz) = op.srcs[i].op {
                    if r == v {
                        if pipeline_ok && !other_uniform(&op) {
                            op.srcs[i].op = reload_src(swz);
                        } else {
                            let t = p.new_vreg_nospill(size);
                            out.push(MOp::alu(
                                Alu::Mov,
                                t,
                                0,
                                size,
                                &[Src::new(reload_src([0, 1, 2, 3]))],
                            ));
                            op.srcs[i].op = Operand::Reg(t, swz);
                        }
                    }
                }
                if let Operand::Uniform {
                    offset: Some((r, c)),
                    ..
                } = op.srcs[i].op
                {
                    if r == v {
                        let t = reload_mov(p, &mut out, slot, v, c);
                        if let Operand::Uniform { offset, .. } = &mut op.srcs[i].op {
                            *offset = Some((t, 0));
                        }
                    }
                }
            }
            if let Kind::Texture { coords, lod, .. } = &mut op.kind {
                if let Coords::Reg(s) = coords {
                    if let Operand::Reg(r, swz) = s.op {
                        if r == v {
                            let t = p.new_vreg_nospill(size);
                            out.push(MOp::alu(
                                Alu::Mov,
                                t,
                                0,
                                size,
                                &[Src::new(reload_src([0, 1, 2, 3]))],
                            ));
                            s.op = Operand::Reg(t, swz);
                        }
                    }
                }
                if let Some((r, c, e)) = *lod {
                    if r == v {
                        let t = reload_mov(p, &mut out, slot, v, c);
                        *lod = Some((t, 0, e));
                    }
                }
            }
            let wrote = op.dst == Some(v);
            let mask = op.dst_mask();
            out.push(op);
            if wrote {
                let store = |slot: u32, width: u8, src: Operand| MOp {
                    kind: Kind::Spill { slot },
                    dst: None,
                    dst_comp: 0,
                    width,
                    srcs: SmallVec::from_slice(&[Src::new(src)]),
                    modifier: super::isa::OutMod::None,
                };
                // A vec4 written whole: one vec4 store (the value sits at lane 0).
                if size == 4 && mask == 0xF {
                    out.push(store(slot * 4, 4, Operand::Reg(v, [0, 1, 2, 3])));
                } else {
                    for c in (0..4u8).filter(|c| mask & (1 << c) != 0) {
                        out.push(store(slot * 4 + u32::from(c), 1, Operand::reg(v, c)));
                    }
                }
            }
        }
        p.blocks[bi].ops = out;
        // Terminator reads.
        let term = p.blocks[bi].term.clone();
        match term {
            Terminator::Branch { cond, then, els } if cond.0 == v => {
                let mut tmp = std::mem::take(&mut p.blocks[bi].ops);
                let t = reload_mov(p, &mut tmp, slot, v, cond.1);
                p.blocks[bi].ops = tmp;
                p.blocks[bi].term = Terminator::Branch {
                    cond: (t, 0),
                    then,
                    els,
                };
            }
            Terminator::Exit { kill: Some(k) } if k.0 == v => {
                let mut tmp = std::mem::take(&mut p.blocks[bi].ops);
                let t = reload_mov(p, &mut tmp, slot, v, k.1);
                p.blocks[bi].ops = tmp;
                p.blocks[bi].term = Terminator::Exit { kill: Some((t, 0)) };
            }
            _ => {}
        }
    }
    touched
}

/// Per block: whether an op or the terminator names `v` (everywhere [`spill`] and
/// [`rematerialize`] look: destinations, register and uniform-index sources, texture
/// coordinates and LOD, branch conditions and kill flags).
fn touching(p: &Program, v: VReg) -> Vec<bool> {
    let src_names = |s: &Src| match s.op {
        Operand::Reg(r, _) => r == v,
        Operand::Uniform {
            offset: Some((r, _)),
            ..
        } => r == v,
        _ => false,
    };
    let op_names = |op: &MOp| {
        op.dst == Some(v)
            || op.srcs.iter().any(src_names)
            || match &op.kind {
                Kind::Texture { coords, lod, .. } => {
                    matches!(coords, Coords::Reg(s) if src_names(s))
                        || lod.is_some_and(|(r, _, _)| r == v)
                }
                _ => false,
            }
    };
    p.blocks
        .iter()
        .map(|b| {
            let term = match b.term {
                Terminator::Branch { cond, .. } => cond.0 == v,
                Terminator::Exit { kill: Some(k) } => k.0 == v,
                _ => false,
            };
            term || b.ops.iter().any(op_names)
        })
        .collect()
}

/// `v`'s only write, if it can be recomputed at each read instead of going through the
/// stack: a plain varying load (a varying is the same wherever it is read), or an ALU op
/// (a clamp, a move, a multiply-add …) that reads only fp16 constants and directly
/// addressed uniforms, such as the finite clamp of a uniform: one instruction at the reader
/// instead of a store per component and a reload.
pub fn remat_def(p: &Program, v: VReg) -> Option<&MOp> {
    let mut defs = p
        .blocks
        .iter()
        .flat_map(|b| &b.ops)
        .filter(|o| o.dst == Some(v));
    let def = defs.next()?;
    let recomputable = match def.kind {
        Kind::Varying { .. } => def.modifier == super::isa::OutMod::None,
        _ => reads_no_register(def),
    };
    (recomputable && def.dst_comp == 0 && defs.next().is_none()).then_some(def)
}

/// Whether `op` is an ALU op (a clamp, a move, a multiply-add …) that reads only fp16
/// constants and directly addressed uniforms: it computes the same value wherever it is put.
pub fn reads_no_register(op: &MOp) -> bool {
    match op.kind {
        Kind::Alu(_) | Kind::Mad | Kind::Clamp | Kind::CompareEq(_) => op.srcs.iter().all(|s| {
            matches!(
                s.op,
                Operand::Const(_) | Operand::Uniform { offset: None, .. }
            )
        }),
        Kind::Select(_)
        | Kind::ScaleVec
        | Kind::Varying { .. }
        | Kind::Special(_)
        | Kind::Texture { .. }
        | Kind::Spill { .. } => false,
    }
}

/// Replaces every read of `v` by a fresh copy of its recomputable definition `load` just
/// before the reader (terminator reads included) and drops the original, in the `touched`
/// blocks (those accessing `v`).
fn rematerialize(p: &mut Program, v: VReg, load: &MOp, touched: &[bool]) {
    let size = p.vregs[v.0 as usize].size;
    p.vregs[v.0 as usize].no_spill = true;
    let fresh = |p: &mut Program, out: &mut Vec<MOp>| {
        let t = p.new_vreg_nospill(size);
        p.vregs[t.0 as usize].lane0 =
            p.vregs[v.0 as usize].lane0 || matches!(load.kind, Kind::Varying { .. });
        let mut l = load.clone();
        l.dst = Some(t);
        out.push(l);
        t
    };
    let sub = |r: &mut VReg, t: VReg| {
        if *r == v {
            *r = t;
        }
    };
    for bi in (0..p.blocks.len()).filter(|&b| touched[b]) {
        let ops = std::mem::take(&mut p.blocks[bi].ops);
        let mut out: Vec<MOp> = Vec::with_capacity(ops.len() + 4);
        for mut op in ops {
            if op.dst == Some(v) {
                continue;
            }
            let mut reads = machine::Operands::new();
            machine::MachOp::operands(&op, &mut reads);
            if reads
                .iter()
                .any(|a| a.vreg == v && a.role == machine::Role::Use)
            {
                let t = fresh(p, &mut out);
                for s in &mut op.srcs {
                    match &mut s.op {
                        Operand::Reg(r, _) => sub(r, t),
                        Operand::Uniform {
                            offset: Some((r, _)),
                            ..
                        } => sub(r, t),
                        _ => {}
                    }
                }
                if let Kind::Texture { coords, lod, .. } = &mut op.kind {
                    if let Coords::Reg(Src {
                        op: Operand::Reg(r, _),
                        ..
                    }) = coords
                    {
                        sub(r, t);
                    }
                    if let Some((r, _, _)) = lod {
                        sub(r, t);
                    }
                }
            }
            out.push(op);
        }
        match &mut p.blocks[bi].term {
            Terminator::Branch { cond, .. } if cond.0 == v => {
                let t = fresh(p, &mut out);
                if let Terminator::Branch { cond, .. } = &mut p.blocks[bi].term {
                    cond.0 = t;
                }
            }
            Terminator::Exit { kill: Some(k) } if k.0 == v => {
                let t = fresh(p, &mut out);
                if let Terminator::Exit { kill: Some(k) } = &mut p.blocks[bi].term {
                    k.0 = t;
                }
            }
            _ => {}
        }
        p.blocks[bi].ops = out;
    }
}

fn reload_mov(p: &mut Program, out: &mut Vec<MOp>, slot: u32, v: VReg, c: u8) -> VReg {
    let t = p.new_vreg_nospill(1);
    out.push(MOp::alu(
        Alu::Mov,
        t,
        0,
        1,
        &[Src::new(Operand::Temp {
            slot,
            of: v,
            swz: [c; 4],
        })],
    ));
    t
}

/// Whether a value may be spilled: outputs are read at the very end from registers, and
/// loads that write registers directly keep their placement.
pub fn spillable(p: &Program, v: VReg) -> bool {
    !p.outputs.iter().any(|o| o.1 == v) && !p.vregs[v.0 as usize].no_spill
}

/// Lima PP's [`SpillStrategy`]: values go to the temporary stack ([`spill`]); the blocks
/// left alone keep their scheduling facts.
#[derive(Debug, Clone, Copy, Default)]
pub struct TempStack;

impl SpillStrategy<Planned> for TempStack {
    fn spillable(&self, p: &Planned, v: VReg) -> bool {
        spillable(p.program(), v)
    }
    fn spill(&mut self, p: &mut Planned, v: VReg) -> Result<(), Diagnostic> {
        p.edit(|prog| spill(prog, v));
        Ok(())
    }
}
