//! Register packing: virtual registers → lanes of the temporaries (`ft`/`vt`), then the
//! machine ops → [`Instruction`]s.
//!
//! The program is straight-line, so a value lives from its first write to its last read.
//! Allocation is a linear scan in program order at lane granularity (like HxSL's `AgalOptim`
//! and Minko's allocator, §9): a value of `n` components takes `n` free lanes of one register
//! (best fit: the register with the fewest lanes left over; fixed-lane values — `nrm`/`crs`
//! results in `xyz`, `tex` results in `xyzw` — take lanes `0..n`). A lane-wise op may reuse the
//! lanes its operands free (the hardware reads every source before writing); other ops may
//! not. There is no memory to spill to: when the file is full the result is a
//! [`Diagnostic::limit`] with the counts.
//!
//! Every operand's swizzle is then built from the lanes: lane-wise ops read component `p` of
//! a source in the lane of result component `p`; other ops read operand lanes in order,
//! padded by repeating the last lane (§8). Lanes a lane-wise op does not write read a lane of
//! the same value, so every lane a swizzle names has been written (§7.6).

use irc_backend::Diagnostic;

use crate::instr::{Dest, Instruction, Source, Src2};
use crate::isa::{swizzle, RegType, ShaderKind};
use crate::lower::{Base, MDst, MProgram, OutKind};

/// Where each virtual register lives: register and the lane of each component.
#[derive(Debug, Clone, Default)]
pub struct Allocation {
    pub locs: Vec<Option<(u16, [u8; 4])>>,
    /// Temporaries used.
    pub registers: u32,
}

/// Allocates `prog`'s virtual registers into `temps` registers.
pub fn allocate(prog: &MProgram, temps: u32) -> Result<Allocation, Diagnostic> {
    let n = prog.vregs.len();
    let mut last: Vec<usize> = vec![usize::MAX; n];
    for (i, ins) in prog.insts.iter().enumerate() {
        for s in &ins.srcs {
            if let Base::V(v) = s.base {
                last[v as usize] = i;
            }
        }
        // Values built by several writes stay allocated until the last one.
        if let MDst::V { v, .. } = ins.dst {
            let l = &mut last[v as usize];
            if *l == usize::MAX || *l < i {
                *l = i;
            }
        }
    }
    let mut alloc = Allocation {
        locs: vec![None; n],
        registers: 0,
    };
    let mut owner: Vec<[Option<u32>; 4]> = vec![[None; 4]; temps as usize];
    let last = last;
    let free_dead = |owner: &mut Vec<[Option<u32>; 4]>, i: usize, srcs: &[u32]| {
        for &v in srcs {
            if last[v as usize] == i {
                for r in owner.iter_mut() {
                    for l in r.iter_mut() {
                        if *l == Some(v) {
                            *l = None;
                        }
                    }
                }
            }
        }
    };
    for (i, ins) in prog.insts.iter().enumerate() {
        let read: Vec<u32> = ins
            .srcs
            .iter()
            .filter_map(|s| match s.base {
                Base::V(v) => Some(v),
                _ => None,
            })
            .collect();
        if ins.lanewise() {
            free_dead(&mut owner, i, &read);
        }
        if let MDst::V { v, .. } = ins.dst {
            if alloc.locs[v as usize].is_none() {
                let info = prog.vregs[v as usize];
                let w = info.width as usize;
                let mut best: Option<(usize, usize)> = None;
                for (r, lanes) in owner.iter().enumerate() {
                    let ok = if info.fixed {
                        lanes[..w].iter().all(Option::is_none)
                    } else {
                        lanes.iter().filter(|l| l.is_none()).count() >= w
                    };
                    if !ok {
                        continue;
                    }
                    let left = lanes.iter().filter(|l| l.is_none()).count() - w;
                    if best.is_none_or(|(_, b)| left < b) {
                        best = Some((r, left));
                    }
                }
                let Some((r, _)) = best else {
                    let live = owner.iter().flatten().filter(|l| l.is_some()).count();
                    return Err(Diagnostic::limit(format!(
                        "a value of {w} components at machine op {i} does not fit: {live} of \
                         the {} lanes of the {temps} temporaries are live (no memory to spill to)",
                        temps * 4
                    )));
                };
                let mut lanes = [0u8; 4];
                let mut c = 0;
                for (l, o) in owner[r].iter_mut().enumerate() {
                    if c < w && o.is_none() && (!info.fixed || l == c) {
                        *o = Some(v);
                        lanes[c] = l as u8;
                        c += 1;
                    }
                }
                alloc.locs[v as usize] = Some((r as u16, lanes));
                alloc.registers = alloc.registers.max(r as u32 + 1);
            }
        }
        let mut dead = read;
        if let MDst::V { v, .. } = ins.dst {
            dead.push(v);
        }
        free_dead(&mut owner, i, &dead);
    }
    Ok(alloc)
}

/// The machine ops as AGAL instructions.
pub fn emit(
    prog: &MProgram,
    alloc: &Allocation,
    kind: ShaderKind,
) -> Result<Vec<Instruction>, Diagnostic> {
    let internal = |m: &str| Diagnostic::internal(None, m.to_string());
    let loc = |v: u32| alloc.locs[v as usize].ok_or_else(|| internal("unallocated value"));
    let mut out = Vec::with_capacity(prog.insts.len());
    for ins in &prog.insts {
        // Physical lane of each result position, and the destination.
        let (dest, dst_lanes): (Dest, Vec<u8>) = match ins.dst {
            MDst::None => (Dest::NONE, Vec::new()),
            MDst::V { v, first, n } => {
                let (r, lanes) = loc(v)?;
                let ls: Vec<u8> = (first..first + n).map(|c| lanes[c as usize]).collect();
                let mask = ls.iter().fold(0u8, |m, &l| m | (1 << l));
                (Dest::new(RegType::Temporary, r).masked(mask), ls)
            }
            MDst::Out {
                kind: OutKind::Depth,
                index,
            } => (Dest::new(RegType::DepthOutput, index).masked(1), vec![0]),
            MDst::Out { kind: k, index } => {
                let ty = match k {
                    OutKind::Output => RegType::Output,
                    OutKind::Depth => RegType::DepthOutput,
                    OutKind::Varying => RegType::Varying,
                };
                (Dest::new(ty, index), vec![0, 1, 2, 3])
            }
        };
        let mut srcs = Vec::new();
        for s in &ins.srcs {
            let (ty, reg, phys): (RegType, u16, [u8; 4]) = match s.base {
                Base::V(v) => {
                    let (r, l) = loc(v)?;
                    (RegType::Temporary, r, l)
                }
                Base::Const(slot) => (RegType::Constant, slot as u16, [0, 1, 2, 3]),
                Base::Input(slot) => (
                    if kind == ShaderKind::Fragment {
                        RegType::Varying
                    } else {
                        RegType::Attribute
                    },
                    slot as u16,
                    [0, 1, 2, 3],
                ),
            };
            let lane = |c: u8| phys[c as usize & 3];
            let mut swz = [lane(s.comps[0]); 4];
            if ins.lanewise() {
                for (p, &c) in s.comps.iter().enumerate() {
                    let at = *dst_lanes
                        .get(p)
                        .ok_or_else(|| internal("operand wider than the result"))?;
                    swz[at as usize] = lane(c);
                }
            } else {
                for (k, l) in swz.iter_mut().enumerate() {
                    *l = lane(s.comps[k.min(s.comps.len() - 1)]);
                }
            }
            let src = match &ins.indirect {
                // `vc[index + offset]`: the constant's components land in the destination
                // lanes; the source's register and lane are the index's.
                Some(ir) => {
                    let mut cs = [ir.comps[0]; 4];
                    for (p, &c) in ir.comps.iter().enumerate() {
                        let at = *dst_lanes
                            .get(p)
                            .ok_or_else(|| internal("indirect read wider than the result"))?;
                        cs[at as usize] = c;
                    }
                    let offset =
                        u8::try_from(ir.offset).map_err(|_| internal("indirect offset"))?;
                    Source {
                        ty: RegType::Constant,
                        reg,
                        swizzle: swizzle::from_lanes(cs),
                        indirect: Some(crate::instr::Indirect {
                            index_type: ty,
                            select: lane(s.comps[0]),
                            offset,
                        }),
                    }
                }
                None => Source::new(ty, reg).swz(swizzle::from_lanes(swz)),
            };
            srcs.push(src);
        }
        let src1 = srcs.first().copied().unwrap_or(Source::NONE);
        let src2 = match (ins.sampler, srcs.get(1)) {
            (Some(s), _) => Src2::Sampler(s),
            (None, Some(s)) => Src2::Source(*s),
            (None, None) => Src2::NONE,
        };
        // A move whose source lanes are its destination lanes (a value gathered in place).
        let self_move = ins.op == crate::isa::Opcode::Mov
            && ins.indirect.is_none()
            && dest.ty == RegType::Temporary
            && src1.ty == RegType::Temporary
            && src1.reg == dest.reg
            && (0..4).all(|l| dest.mask & (1 << l) == 0 || swizzle::lane(src1.swizzle, l) == l);
        if !self_move {
            out.push(Instruction::new(ins.op, dest, src1, src2));
        }
    }
    Ok(out)
}
