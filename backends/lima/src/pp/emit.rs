//! Scheduled, allocated instructions → [`Instruction`]s (then words through the encoder).
//!
//! Every machine op becomes the fields of the unit(s) the scheduler chose, with virtual
//! registers replaced by their locations: a vec4 unit writing a value that lives at lanes
//! `l..l+w` of `$r` gets mask `l..l+w` and source swizzles that bring each source component to
//! its output lane; scalar units get scalar register numbers (`$r.l` = 4·r + l). Constants
//! are found in the instruction's two constant fields, uniform and temporary loads in
//! `^uniform` (component `c` in lane `c`), the sampler result in `^texture`. Branch targets
//! are block starts, converted to word offsets once every instruction's size is known.

use half::f16;
use irc_backend::regalloc::{Allocation, Loc, VReg};
use irc_backend::Diagnostic;

use super::encode::presence_mask;
use super::instr::{
    Branch, Combine, FloatAcc, FloatMul, Instruction, Sampler, ScalarReg, ScalarSrc, TempWrite,
    UniformLoad, Varying, VaryingImm, VaryingReg, VaryingSource, Vec4Acc, Vec4Mul, Vec4Reg,
    Vec4Src,
};
use super::isa::{
    self, alignment, instr_words, unknown_defaults, AccOp, BranchCond, MulOp, OutMod, SamplerType,
    Swizzle, UniformSource, VaryingKind,
};
use super::mir::{Alu, Coords, Kind, MOp, Operand, Src, UniformUse, UnitKind};
use super::sched::{BranchUse, Instr, SBlock};

struct Ctx<'a> {
    alloc: &'a Allocation,
    c0: &'a [f16],
    c1: &'a [f16],
}

fn err(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::internal(None, msg)
}

impl Ctx<'_> {
    fn loc(&self, v: VReg) -> Result<Loc, Diagnostic> {
        self.alloc
            .loc(v)
            .ok_or_else(|| err(format!("{v} has no register")))
    }

    /// (register code, physical lane) of component `c` of an operand.
    fn lane(&self, op: &Operand, c: u8) -> Result<(Vec4Reg, u8), Diagnostic> {
        Ok(match *op {
            Operand::Reg(v, _) => {
                let l = self.loc(v)?;
                (Vec4Reg::Gpr(l.reg), l.lane + c)
            }
            Operand::Const(k) => {
                let h = k[c as usize & 3];
                self.find_const(&[h])?
            }
            Operand::Uniform { .. } | Operand::Temp { .. } => (Vec4Reg::Uniform, c),
            Operand::Texture(_) => (Vec4Reg::Texture, c),
        })
    }

    /// The constant field holding all of `vals`, and the lane of the first.
    fn find_const(&self, vals: &[f16]) -> Result<(Vec4Reg, u8), Diagnostic> {
        for (reg, field) in [(Vec4Reg::Const0, self.c0), (Vec4Reg::Const1, self.c1)] {
            let pos = |h: &f16| field.iter().position(|x| x.to_bits() == h.to_bits());
            if vals.iter().all(|h| pos(h).is_some()) {
                return Ok((reg, pos(&vals[0]).unwrap_or(0) as u8));
            }
        }
        Err(err("constant not in the instruction's constant fields"))
    }

    /// Component index selected for op lane `i`.
    fn comp(op: &Operand, i: usize) -> u8 {
        match op {
            Operand::Reg(_, swz)
            | Operand::Uniform { swz, .. }
            | Operand::Temp { swz, .. }
            | Operand::Texture(swz) => swz[i & 3],
            Operand::Const(_) => i as u8,
        }
    }

    /// A vec4 source whose lane `out_lanes[i]` carries op lane `i`.
    fn vsrc(&self, s: &Src, out_lanes: &[u8]) -> Result<Vec4Src, Diagnostic> {
        let mut sw = [0u8; 4];
        let mut reg = Vec4Reg::Gpr(0);
        if let Operand::Const(k) = s.op {
            let vals: Vec<f16> = (0..out_lanes.len()).map(|i| k[i]).collect();
            let (r, _) = self.find_const(&vals)?;
            let field = if r == Vec4Reg::Const0 {
                self.c0
            } else {
                self.c1
            };
            reg = r;
            for (i, &ol) in out_lanes.iter().enumerate() {
                sw[ol as usize] = field
                    .iter()
                    .position(|x| x.to_bits() == k[i].to_bits())
                    .unwrap_or(0) as u8;
            }
        } else {
            for (i, &ol) in out_lanes.iter().enumerate() {
                let (r, l) = self.lane(&s.op, Self::comp(&s.op, i))?;
                reg = r;
                sw[ol as usize] = l;
            }
        }
        // Unused lanes repeat the first used one.
        let first = out_lanes.first().map_or(0, |&l| sw[l as usize]);
        for l in 0..4u8 {
            if !out_lanes.contains(&l) {
                sw[l as usize] = first;
            }
        }
        Ok(Vec4Src {
            reg,
            swizzle: Swizzle::new(sw),
            abs: s.abs,
            neg: s.neg,
        })
    }

    fn ssrc(&self, s: &Src) -> Result<ScalarSrc, Diagnostic> {
        let (r, l) = self.lane(&s.op, Self::comp(&s.op, 0))?;
        Ok(ScalarSrc {
            reg: ScalarReg(r.bits() * 4 + l),
            abs: s.abs,
            neg: s.neg,
        })
    }

    /// Destination register and output lanes of an op.
    fn dst(&self, op: &MOp) -> Result<(u8, Vec<u8>), Diagnostic> {
        let v = op.dst.ok_or_else(|| err("op without destination"))?;
        let l = self.loc(v)?;
        let base = l.lane + op.dst_comp;
        Ok((l.reg, (base..base + op.width).collect()))
    }

    fn sdst(&self, op: &MOp) -> Result<ScalarReg, Diagnostic> {
        let (r, lanes) = self.dst(op)?;
        Ok(ScalarReg(r * 4 + lanes[0]))
    }
}

fn mask_of(lanes: &[u8]) -> u8 {
    lanes.iter().fold(0, |m, &l| m | (1 << l))
}

fn zero_ssrc() -> ScalarSrc {
    ScalarSrc {
        reg: ScalarReg(0),
        abs: false,
        neg: false,
    }
}

fn zero_vsrc() -> Vec4Src {
    Vec4Src {
        reg: Vec4Reg::Gpr(0),
        swizzle: Swizzle::IDENTITY,
        abs: false,
        neg: false,
    }
}

/// Alignment code and index of a varying read of `width` components of slot `slot`.
fn varying_imm(slot: u32, first: u32, width: u8) -> VaryingImm {
    let (alignment, index) = match width {
        1 => (alignment::SCALAR, slot * 4 + first),
        2 => (alignment::VEC2, slot * 2),
        _ => (alignment::VARYING_VEC4, slot),
    };
    VaryingImm {
        alignment,
        index: index as u8,
        offset_vector: 0xF,
        offset_scalar: 0,
    }
}

fn emit_op(
    cx: &Ctx<'_>,
    ins: &mut Instruction,
    op: &MOp,
    units: &[UnitKind],
) -> Result<(), Diagnostic> {
    let src = |i: usize| op.srcs.get(i).copied();
    match &op.kind {
        Kind::Alu(alu @ (Alu::Sum3 | Alu::Sum4)) if op.srcs.len() == 2 => {
            let lanes: Vec<u8> = (0..if *alu == Alu::Sum3 { 3 } else { 4 }).collect();
            ins.vec4_mul = Some(Vec4Mul {
                op: MulOp::Mul,
                arg0: cx.vsrc(&op.srcs[0], &lanes)?,
                arg1: cx.vsrc(&op.srcs[1], &lanes)?,
                dest: 0,
                mask: 0,
                modifier: OutMod::None,
            });
            let (r, dl) = cx.dst(op)?;
            ins.vec4_acc = Some(Vec4Acc {
                op: if *alu == Alu::Sum3 {
                    AccOp::Sum3
                } else {
                    AccOp::Sum4
                },
                arg0: zero_vsrc(),
                arg1: zero_vsrc(),
                dest: r,
                mask: mask_of(&dl),
                modifier: op.modifier,
                mul_in: true,
            });
        }
        Kind::Alu(alu) => {
            let unit = units.first().copied().ok_or_else(|| err("no unit"))?;
            match unit {
                UnitKind::VMul | UnitKind::VAdd => {
                    let (r, dl) = cx.dst(op)?;
                    let nsrc = alu.srcs();
                    let (a0, a1) = if matches!(alu, Alu::Sum3 | Alu::Sum4) {
                        let lanes: Vec<u8> = (0..4).collect();
                        (cx.vsrc(&op.srcs[0], &lanes)?, zero_vsrc())
                    } else {
                        (
                            cx.vsrc(&op.srcs[0], &dl)?,
                            if nsrc > 1 {
                                cx.vsrc(&op.srcs[1], &dl)?
                            } else {
                                zero_vsrc()
                            },
                        )
                    };
                    if unit == UnitKind::VMul {
                        ins.vec4_mul = Some(Vec4Mul {
                            op: alu.mul_op().ok_or_else(|| err("not a mul op"))?,
                            arg0: a0,
                            arg1: a1,
                            dest: r,
                            mask: mask_of(&dl),
                            modifier: op.modifier,
                        });
                    } else {
                        ins.vec4_acc = Some(Vec4Acc {
                            op: alu.acc_op().ok_or_else(|| err("not an add op"))?,
                            arg0: a0,
                            arg1: a1,
                            dest: r,
                            mask: mask_of(&dl),
                            modifier: op.modifier,
                            mul_in: false,
                        });
                    }
                }
                UnitKind::SMul | UnitKind::SAdd => {
                    let d = cx.sdst(op)?;
                    let a0 = cx.ssrc(&op.srcs[0])?;
                    let a1 = match src(1) {
                        Some(s) if alu.srcs() > 1 => cx.ssrc(&s)?,
                        _ => zero_ssrc(),
                    };
                    if unit == UnitKind::SMul {
                        ins.float_mul = Some(FloatMul {
                            op: alu.mul_op().ok_or_else(|| err("not a mul op"))?,
                            arg0: a0,
                            arg1: a1,
                            dest: d,
                            output_en: true,
                            modifier: op.modifier,
                        });
                    } else {
                        ins.float_acc = Some(FloatAcc {
                            op: alu.acc_op().ok_or_else(|| err("not an add op"))?,
                            arg0: a0,
                            arg1: a1,
                            dest: d,
                            output_en: true,
                            modifier: op.modifier,
                            mul_in: false,
                        });
                    }
                }
                UnitKind::Combine => {
                    ins.combine = Some(Combine::Scalar {
                        op: alu.combine_op().ok_or_else(|| err("not a combiner op"))?,
                        dest: cx.sdst(op)?,
                        modifier: op.modifier,
                        arg0: cx.ssrc(&op.srcs[0])?,
                        arg1: zero_ssrc(),
                    });
                }
                u => return Err(err(format!("ALU op in unit {u:?}"))),
            }
        }
        Kind::Mad | Kind::Clamp | Kind::CompareEq(_) | Kind::Select(_) => {
            let scalar = units.first() == Some(&UnitKind::SMul);
            let is_sel = matches!(op.kind, Kind::Select(_));
            let mul_op = match op.kind {
                Kind::Select(m) | Kind::CompareEq(m) => m,
                Kind::Clamp => MulOp::Max,
                _ => MulOp::Mul,
            };
            let add_unit = units
                .get(1)
                .copied()
                .ok_or_else(|| err("group without add"))?;
            if scalar {
                ins.float_mul = Some(FloatMul {
                    op: mul_op,
                    arg0: cx.ssrc(&op.srcs[0])?,
                    arg1: if mul_op.num_srcs() > 1 {
                        cx.ssrc(&op.srcs[1])?
                    } else {
                        zero_ssrc()
                    },
                    dest: ScalarReg(0),
                    output_en: false,
                    modifier: OutMod::None,
                });
            } else {
                let (_, dl) = cx.dst(op)?;
                ins.vec4_mul = Some(Vec4Mul {
                    op: mul_op,
                    arg0: cx.vsrc(&op.srcs[0], &dl)?,
                    arg1: cx.vsrc(&op.srcs[1], &dl)?,
                    dest: 0,
                    mask: 0,
                    modifier: OutMod::None,
                });
            }
            let (a0, a1, mul_in, acc) = match op.kind {
                _ if is_sel => (2, Some(3), false, AccOp::Sel),
                Kind::Clamp => (2, None, true, AccOp::Min),
                Kind::CompareEq(_) => (2, None, true, AccOp::Eq),
                _ => (2, None, true, AccOp::Add),
            };
            if add_unit == UnitKind::SAdd {
                let x = if mul_in {
                    zero_ssrc()
                } else {
                    cx.ssrc(&op.srcs[a0])?
                };
                let y = match a1 {
                    Some(i) => cx.ssrc(&op.srcs[i])?,
                    None => cx.ssrc(&op.srcs[a0])?,
                };
                ins.float_acc = Some(FloatAcc {
                    op: acc,
                    arg0: x,
                    arg1: y,
                    dest: cx.sdst(op)?,
                    output_en: true,
                    modifier: op.modifier,
                    mul_in,
                });
            } else {
                let (r, dl) = cx.dst(op)?;
                let x = if mul_in {
                    Vec4Src {
                        reg: Vec4Reg::Gpr(0),
                        swizzle: Swizzle::IDENTITY,
                        abs: false,
                        neg: false,
                    }
                } else {
                    cx.vsrc(&op.srcs[a0], &dl)?
                };
                let y = match a1 {
                    Some(i) => cx.vsrc(&op.srcs[i], &dl)?,
                    None => cx.vsrc(&op.srcs[a0], &dl)?,
                };
                ins.vec4_acc = Some(Vec4Acc {
                    op: acc,
                    arg0: x,
                    arg1: y,
                    dest: r,
                    mask: mask_of(&dl),
                    modifier: op.modifier,
                    mul_in,
                });
            }
        }
        Kind::ScaleVec => {
            let (r, dl) = cx.dst(op)?;
            ins.combine = Some(Combine::VecMul {
                dest: r,
                mask: mask_of(&dl),
                arg0: cx.ssrc(&op.srcs[0])?,
                arg1: cx.vsrc(&op.srcs[1], &dl)?,
            });
        }
        Kind::Varying {
            alignment: _,
            index,
            perspective,
        } => {
            let (r, dl) = cx.dst(op)?;
            let (slot, first) = if op.width == 1 {
                (index / 4, index % 4)
            } else {
                (*index, 0)
            };
            let imm = varying_imm(slot, first, op.width);
            ins.varying = Some(Varying {
                dest: r,
                mask: mask_of(&dl),
                source: VaryingSource::Varying {
                    perspective: *perspective,
                    imm,
                },
                unknown: unknown_defaults(isa::varying_imm::ALL),
            });
        }
        Kind::Special(kind) => {
            let (r, dl) = cx.dst(op)?;
            let imm = varying_imm(0, 0, op.width);
            let imm = VaryingImm { index: 0, ..imm };
            let source = match kind {
                VaryingKind::FrontFacing => VaryingSource::FrontFacing(imm),
                VaryingKind::PointCoord => VaryingSource::PointCoord(imm),
                _ => VaryingSource::FragCoord(imm),
            };
            ins.varying = Some(Varying {
                dest: r,
                mask: mask_of(&dl),
                source,
                unknown: unknown_defaults(isa::varying_imm::ALL),
            });
        }
        Kind::Texture {
            sampler,
            ty,
            coords,
            lod,
            swz,
            reader,
        } => {
            let cube = *ty == SamplerType::Cube;
            let n = if cube { 3 } else { 2 };
            let cmask = (1u8 << n) - 1;
            let source = match coords {
                Coords::Varying { slot, .. } => {
                    let imm = varying_imm(*slot, 0, n);
                    if cube {
                        VaryingSource::CubeVarying(imm)
                    } else {
                        VaryingSource::Varying {
                            perspective: 0,
                            imm,
                        }
                    }
                }
                Coords::Reg(s) => {
                    let lanes: Vec<u8> = (0..n).collect();
                    let reg = VaryingReg {
                        src: cx.vsrc(s, &lanes)?,
                        normalize: false,
                    };
                    if cube {
                        VaryingSource::CubeRegister(reg)
                    } else {
                        VaryingSource::Register {
                            perspective: 0,
                            reg,
                        }
                    }
                }
            };
            let layout = if matches!(coords, Coords::Reg(_)) {
                isa::varying_reg::ALL
            } else {
                isa::varying_imm::ALL
            };
            ins.varying = Some(Varying {
                dest: isa::reg::DISCARD,
                mask: cmask,
                source,
                unknown: unknown_defaults(layout),
            });
            let (lod_reg, explicit) = match lod {
                Some((v, c, e)) => {
                    let l = cx.loc(*v)?;
                    (Some(ScalarReg(l.reg * 4 + l.lane + c)), *e)
                }
                None => (None, false),
            };
            ins.sampler = Some(Sampler {
                lod_bias: lod_reg.unwrap_or(ScalarReg(0)),
                index_offset: ScalarReg(0),
                explicit_lod: explicit,
                lod_bias_en: lod_reg.is_some(),
                ty: *ty,
                offset_en: false,
                index: *sampler as u16,
                unknown: unknown_defaults(isa::sampler::ALL),
            });
            let (r, dl) = cx.dst(op)?;
            let tsrc = Src::new(Operand::Texture(*swz));
            let arg0 = cx.vsrc(&tsrc, &dl)?;
            let mov_unit = units.get(2).copied().unwrap_or(UnitKind::VMul);
            if reader.is_some() {
                let r = op
                    .texture_reader()
                    .ok_or_else(|| err("fused fetch without its reader"))?;
                emit_op(cx, ins, &r, units.get(2..).unwrap_or_default())?;
            } else if mov_unit == UnitKind::VMul {
                ins.vec4_mul = Some(Vec4Mul {
                    op: MulOp::Mov,
                    arg0,
                    arg1: zero_vsrc(),
                    dest: r,
                    mask: mask_of(&dl),
                    modifier: op.modifier,
                });
            } else {
                ins.vec4_acc = Some(Vec4Acc {
                    op: AccOp::Mov,
                    arg0,
                    arg1: zero_vsrc(),
                    dest: r,
                    mask: mask_of(&dl),
                    modifier: op.modifier,
                    mul_in: false,
                });
            }
            ins.control.sync = true;
        }
        Kind::Spill { slot } => {
            let s = cx.ssrc(&op.srcs[0])?;
            // A vec4 store names its register (the source field's low bits are 0) and a vec4
            // index.
            let (align, index) = if op.width == 4 {
                if s.reg.0 % 4 != 0 || slot % 4 != 0 {
                    return Err(err("vec4 spill store not at lane 0"));
                }
                (alignment::UNIFORM_VEC4, slot / 4)
            } else {
                (alignment::SCALAR, *slot)
            };
            ins.temp_write = Some(TempWrite::Store {
                dest: isa::TEMP_WRITE_DEST_TEMPORARY as u8,
                source: s.reg,
                alignment: align,
                offset_reg: ScalarReg(0),
                offset_en: false,
                index: index as i16,
                unknown: unknown_defaults(isa::temp_write::ALL),
            });
        }
    }
    if let Kind::Alu(Alu::DdxRaw | Alu::DdyRaw) = op.kind {
        ins.control.sync = true;
    }
    Ok(())
}

fn fields(c: &[f16]) -> Option<[f16; 4]> {
    if c.is_empty() {
        return None;
    }
    let mut f = [f16::ZERO; 4];
    f[..c.len()].copy_from_slice(c);
    Some(f)
}

/// Emits all blocks. Returns the instructions (not yet linked).
pub fn emit(
    blocks: &[SBlock],
    alloc: &Allocation,
    discard_block: bool,
) -> Result<Vec<Instruction>, Diagnostic> {
    let mut starts = Vec::with_capacity(blocks.len() + 1);
    let mut n = 0;
    for b in blocks {
        starts.push(n);
        n += b.instrs.len();
    }
    let discard_at = n;
    let mut out = Vec::with_capacity(n + 1);
    // Per instruction: the index of the instruction it branches to.
    let mut targets: Vec<Option<usize>> = Vec::with_capacity(n + 1);
    for b in blocks {
        for ins in &b.instrs {
            let (i, t) = emit_instr(ins, alloc, &starts, discard_at)?;
            out.push(i);
            targets.push(t);
        }
    }
    if discard_block {
        let mut d = Instruction::empty();
        d.branch = Some(Branch::Discard);
        d.control.stop = true;
        out.push(d);
        targets.push(None);
    }
    // Word offsets, then relative branch targets.
    let mut offsets = Vec::with_capacity(out.len() + 1);
    let mut off = 0u32;
    for i in &out {
        offsets.push(off);
        off += instr_words(presence_mask(i));
    }
    offsets.push(off);
    for (k, t) in targets.iter().enumerate() {
        if let Some(to) = t {
            let rel = i64::from(offsets[*to]) - i64::from(offsets[k]);
            if let Some(Branch::Branch { target, .. }) = &mut out[k].branch {
                *target = rel as i32;
            }
        }
    }
    Ok(out)
}

fn emit_instr(
    s: &Instr,
    alloc: &Allocation,
    starts: &[usize],
    discard_at: usize,
) -> Result<(Instruction, Option<usize>), Diagnostic> {
    let cx = Ctx {
        alloc,
        c0: &s.const0,
        c1: &s.const1,
    };
    let mut ins = Instruction::empty();
    for (op, units) in &s.ops {
        emit_op(&cx, &mut ins, op, units)?;
    }
    if let Some(u) = s.uniform {
        let (source, slot, offset) = match u {
            UniformUse::Uniform { slot, offset } => (UniformSource::Uniform, slot, offset),
            UniformUse::Temp { slot } => (UniformSource::Temporary, slot, None),
        };
        let (offset_reg, offset_en) = match offset {
            Some((v, c)) => {
                let l = cx.loc(v)?;
                (ScalarReg(l.reg * 4 + l.lane + c), true)
            }
            None => (ScalarReg(0), false),
        };
        ins.uniform = Some(UniformLoad {
            source,
            alignment: alignment::UNIFORM_VEC4,
            offset_reg,
            offset_en,
            index: slot as i16,
            unknown: unknown_defaults(isa::uniform::ALL),
        });
    }
    ins.const0 = fields(&s.const0);
    ins.const1 = fields(&s.const1);
    let mut target = None;
    match s.branch {
        None => {}
        Some(BranchUse::Discard) => ins.branch = Some(Branch::Discard),
        Some(BranchUse::Branch { cond, target: t }) => {
            let (cond, a0, a1) = match cond {
                None => (BranchCond::from_mask(7), ScalarReg(0), ScalarReg(0)),
                Some(((v, c), ne)) => {
                    let l = cx.loc(v)?;
                    let zero = cx.find_const(&[f16::ZERO])?;
                    (
                        BranchCond::from_mask(if ne { 0b101 } else { 0b010 }),
                        ScalarReg(l.reg * 4 + l.lane + c),
                        ScalarReg(zero.0.bits() * 4 + zero.1),
                    )
                }
            };
            ins.branch = Some(Branch::Branch {
                cond,
                arg0: a0,
                arg1: a1,
                target: 0,
                next_count: 0,
                unknown: unknown_defaults(isa::branch::ALL),
            });
            target = Some(starts.get(t).copied().unwrap_or(discard_at));
        }
        Some(BranchUse::ToDiscard((v, c))) => {
            let l = cx.loc(v)?;
            let zero = cx.find_const(&[f16::ZERO])?;
            ins.branch = Some(Branch::Branch {
                cond: BranchCond::from_mask(0b101),
                arg0: ScalarReg(l.reg * 4 + l.lane + c),
                arg1: ScalarReg(zero.0.bits() * 4 + zero.1),
                target: 0,
                next_count: 0,
                unknown: unknown_defaults(isa::branch::ALL),
            });
            target = Some(discard_at);
        }
    }
    ins.control.stop = s.stop;
    if presence_mask(&ins) == 0 {
        // A no-op: a vec4 mov that writes only `^vmul`.
        ins.vec4_mul = Some(Vec4Mul {
            op: MulOp::Mov,
            arg0: zero_vsrc(),
            arg1: zero_vsrc(),
            dest: 0,
            mask: 0,
            modifier: OutMod::None,
        });
    }
    ins.canonicalize_unused();
    Ok((ins, target))
}
