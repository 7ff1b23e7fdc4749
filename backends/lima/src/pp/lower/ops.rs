//! Lowering of individual IR ops to machine ops (see the module doc of [`super`]).

use half::f16;
use irc_backend::ir_reads::{constant_lanes, sample_shape};
use irc_backend::regalloc::VReg;
use irc_backend::{Diagnostic, IoSource, SamplerKind};
use irc_ir::format::{
    AlignedLoad, Arith, Clamp, CompositeConstruct, CompositeExtract, Constant, DclInput,
    DclInputBuiltIn, Deriv, DescriptorLoad, Dot, FRound, ImageSample, Load, Select, Store,
};
use irc_ir::{BuiltIn, OpCode, RoundMode, SsaDef};
use smallvec::{smallvec, SmallVec};

use super::io::{flat_size, UniformLayout};
use super::{Comps, Lower};
use crate::pp::isa::{MulOp, OutMod, SamplerType, VaryingKind};
use crate::pp::mir::{Alu, Coords, Kind, MOp, Operand, Src};

const INV_TAU: f32 = 1.0 / std::f32::consts::TAU;

fn konst(x: f32) -> Src {
    Src::new(Operand::Const([f16::from_f32(x); 4]))
}

/// True if `x` survives a round trip through binary16.
pub fn fits_f16(x: f32) -> bool {
    let h = f16::from_f32(x);
    h.to_f32().to_bits() == x.to_bits() || (x.is_nan() && h.is_nan())
}

impl Lower<'_> {
    /// A constant source for `x` (a uniform literal when fp16 cannot hold it).
    pub fn scalar_const(&mut self, x: f32) -> Src {
        if fits_f16(x) {
            konst(x)
        } else {
            let (slot, lane) = self.io.literal(x);
            Src::new(Operand::Uniform {
                slot,
                swz: [lane; 4],
                offset: None,
            })
        }
    }

    /// Component sources of a `Constant` / `Undef` op.
    pub fn constant(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let lanes = constant_lanes(self.m, d, u64::MAX).map_err(|e| self.diag(d, e))?;
        let mut out = Comps::new();
        for lane in lanes {
            let s = self.scalar_const(lane.value);
            out.push(s);
        }
        Ok(out)
    }

    /// The components of operand `a` of `d` (read through the op's format view).
    fn arg(&mut self, d: SsaDef, a: Option<SsaDef>) -> Result<Comps, Diagnostic> {
        let a = a.ok_or_else(|| self.diag(d, "operand missing"))?;
        self.value(a)
    }

    /// A single vector source for `comps[..width]` (moving components into a fresh register
    /// when they are not all in one place).
    pub fn vector_src(&mut self, comps: &[Src]) -> Src {
        if let Some(s) = gather(comps) {
            return s;
        }
        let w = comps.len() as u8;
        let v = self.new_vreg(w, false);
        for (i, s) in comps.iter().enumerate() {
            self.emit(MOp::alu(Alu::Mov, v, i as u8, 1, &[*s]));
        }
        Src::new(Operand::Reg(v, identity(w)))
    }

    /// `s` itself if it reads a register, else a register holding it.
    pub fn in_register(&mut self, s: Src, width: u8) -> Src {
        if matches!(s.op, Operand::Reg(..)) {
            return s;
        }
        let v = self.new_vreg(width, false);
        self.emit(MOp::alu(Alu::Mov, v, 0, width, &[s]));
        Src::new(Operand::Reg(v, identity(width)))
    }

    /// Makes the sources of one op legal together: at most one uniform/temporary slot (the
    /// uniform unit loads one per instruction) and at most 8 distinct constant scalars.
    fn legalize_srcs(&mut self, srcs: &mut [Src], width: u8) {
        let mut first: Option<(u32, Option<(VReg, u8)>)> = None;
        let mut consts: SmallVec<[u16; 8]> = SmallVec::new();
        for s in srcs.iter_mut() {
            let needs_move = match s.op {
                Operand::Uniform { slot, offset, .. } => match first {
                    None => {
                        first = Some((slot, offset));
                        false
                    }
                    Some(f) => f != (slot, offset),
                },
                Operand::Const(k) => {
                    for h in &k[..width as usize] {
                        if !consts.contains(&h.to_bits()) {
                            consts.push(h.to_bits());
                        }
                    }
                    consts.len() > 8
                }
                _ => false,
            };
            if needs_move {
                let w = width;
                let v = self.new_vreg(w, false);
                let src = Src {
                    abs: false,
                    neg: false,
                    ..*s
                };
                self.emit(MOp::alu(Alu::Mov, v, 0, w, &[src]));
                s.op = Operand::Reg(v, identity(w));
            }
        }
    }

    /// Emits `alu` over `width` components with per-operand component sources; returns the
    /// result's component sources. Operands scattered over several places are scalarized
    /// instead of gathered with moves.
    pub fn alu(&mut self, alu: Alu, args: &[&[Src]], width: u8) -> Comps {
        // A compare whose lanes have the same sources gives one condition for all of them
        // (computed once), which a select then uses for all its lanes.
        let compare = matches!(alu, Alu::Gt | Alu::Ge | Alu::Eq | Alu::Ne);
        if width > 1 && compare && same_lanes(args, width) {
            let one: SmallVec<[&[Src]; 3]> = args.iter().map(|a| &a[..1]).collect();
            let r = self.alu(alu, &one, 1);
            return (0..width).map(|_| r[0]).collect();
        }
        let vectorizable = width == 1
            || (alu.combine_op().is_none()
                && args.iter().all(|a| gather(&a[..width as usize]).is_some()));
        if !vectorizable && !matches!(alu, Alu::Sum3 | Alu::Sum4) {
            let mut out = Comps::new();
            for c in 0..width as usize {
                let one: SmallVec<[&[Src]; 3]> = args.iter().map(|a| &a[c..c + 1]).collect();
                out.extend(self.alu(alu, &one, 1));
            }
            return out;
        }
        let mut srcs: SmallVec<[Src; 4]> = args
            .iter()
            .map(|a| {
                let n = if matches!(alu, Alu::Sum3 | Alu::Sum4) {
                    a.len()
                } else {
                    width as usize
                };
                self.vector_src(&a[..n])
            })
            .collect();
        self.legalize_srcs(
            &mut srcs,
            width.max(if matches!(alu, Alu::Sum3 | Alu::Sum4) {
                4
            } else {
                1
            }),
        );
        self.emit_value(MOp::alu(alu, VReg(0), 0, width, &srcs))
    }

    fn group(&mut self, kind: Kind, args: &[&[Src]], width: u8) -> Comps {
        let mut srcs: SmallVec<[Src; 4]> = args.iter().map(|a| self.vector_src(a)).collect();
        self.legalize_srcs(&mut srcs, width);
        self.emit_value(MOp {
            kind,
            dst: None,
            dst_comp: 0,
            width,
            srcs,
            modifier: OutMod::None,
        })
    }

    /// `min(max(x, lo), hi)` component-wise, through the mul → add pipeline register.
    fn clamp(&mut self, x: &[Src], lo: &[Src], hi: &[Src], width: u8) -> Comps {
        self.mul_add_group(Kind::Clamp, [x, lo, hi], width)
    }

    /// `a · b + c` component-wise, through the mul → add pipeline register.
    fn mad(&mut self, a: &[Src], b: &[Src], c: &[Src], width: u8) -> Comps {
        self.mul_add_group(Kind::Mad, [a, b, c], width)
    }

    /// A mul → add group of three operands (two in the mul unit, one in the add unit): one
    /// vector op when every operand is one register's lanes, else one op per lane.
    fn mul_add_group(&mut self, kind: Kind, args: [&[Src]; 3], width: u8) -> Comps {
        if width == 1 || args.iter().all(|x| gather(x).is_some()) {
            return self.group(kind, &args, width);
        }
        let mut out = Comps::new();
        for i in 0..width as usize {
            let lane = args.map(|x| &x[i..=i]);
            out.extend(self.mul_add_group(kind.clone(), lane, 1));
        }
        out
    }

    /// Dot product of `n` components (sum3/sum4 of a vec4 product, or a mul + mad).
    fn dot(&mut self, a: &[Src], b: &[Src]) -> Comps {
        match a.len() {
            1 => self.alu(Alu::Mul, &[a, b], 1),
            2 => {
                let t = self.alu(Alu::Mul, &[&a[1..2], &b[1..2]], 1);
                self.mad(&a[..1], &b[..1], &t, 1)
            }
            n => {
                let va = self.vector_src(a);
                let vb = self.vector_src(b);
                let mut srcs = [va, vb];
                self.legalize_srcs(&mut srcs, n as u8);
                self.emit_value(MOp {
                    kind: Kind::Alu(if n == 3 { Alu::Sum3 } else { Alu::Sum4 }),
                    dst: None,
                    dst_comp: 0,
                    width: 1,
                    srcs: smallvec![srcs[0], srcs[1]],
                    modifier: OutMod::None,
                })
                .into_iter()
                .take(1)
                .collect()
            }
        }
    }

    /// `x · y + c` in one instruction when an addend of the add `d` is a multiply used only
    /// there (`^fmul`/`^vmul` into the add unit). Exact: the IR's `FMad` is unfused too, so
    /// the product is rounded before the add either way.
    fn fuse_mad(&mut self, d: SsaDef, a: &Comps, b: &Comps, width: u8) -> Option<Comps> {
        for (k, (p, c)) in [(0usize, (a, b)), (1, (b, a))] {
            let def = self.m.op(d).operand_def(k)?;
            if self.m.opcode(def) != OpCode::FMul || self.m.uses(def).len() != 1 {
                continue;
            }
            let negated = p.iter().all(|s| s.neg);
            let plain: Comps = p
                .iter()
                .map(|s| if negated { s.negated() } else { *s })
                .collect();
            let Some(v) = fresh_vreg(&plain) else {
                continue;
            };
            let Some(&(blk, i)) = self.producer.get(&v) else {
                continue;
            };
            let mop = &self.prog.blocks[blk].ops[i];
            let ok = blk == self.cur
                && mop.kind == Kind::Alu(Alu::Mul)
                && usize::from(mop.width) == plain.len()
                && mop.modifier == OutMod::None
                && mop.dst == Some(v);
            if !ok {
                continue;
            }
            // Component sources of the product's factors (the multiply itself becomes dead).
            let factors: Vec<Comps> = mop
                .srcs
                .iter()
                .map(|s| (0..mop.width).map(|c| component(*s, c)).collect())
                .collect();
            let mut x = factors[0].clone();
            if negated {
                x = x.into_iter().map(Src::negated).collect();
            }
            return Some(self.mad(&x, &factors[1], c, width));
        }
        None
    }

    /// Sets the output modifier of the op that produced `comps` when it is a fresh value used
    /// once; otherwise emits a move with the modifier.
    /// `src` is the operand `x` was read from.
    fn with_modifier(&mut self, src: Option<SsaDef>, x: &Comps, m: OutMod) -> Comps {
        let single_use = src.is_some_and(|a| self.m.uses(a).len() == 1);
        if single_use {
            if let Some(v) = fresh_vreg(x) {
                if let Some(&(b, i)) = self.producer.get(&v) {
                    let op = &mut self.prog.blocks[b].ops[i];
                    let ok = op.modifier == OutMod::None
                        && usize::from(op.width) == x.len()
                        && !matches!(
                            op.kind,
                            Kind::Texture { .. }
                                | Kind::Varying { .. }
                                | Kind::Special(_)
                                | Kind::Spill { .. }
                                | Kind::ScaleVec
                        );
                    if ok && b == self.cur {
                        op.modifier = m;
                        return x.clone();
                    }
                }
            }
        }
        let w = x.len() as u8;
        let mut out = Comps::new();
        for c in 0..w as usize {
            let mut r = self.alu(Alu::Mov, &[&x[c..=c]], 1);
            if let Some(v) = fresh_vreg(&r) {
                if let Some(&(b, i)) = self.producer.get(&v) {
                    self.prog.blocks[b].ops[i].modifier = m;
                }
            }
            out.append(&mut r);
        }
        out
    }

    /// Lowers one IR op of the current block.
    pub fn lower_op(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(d);
        let width = flat_size(&op.ty).unwrap_or(0).min(255) as u8;
        let res: Comps = match op.opcode {
            OpCode::Label
            | OpCode::Branch
            | OpCode::BranchConditional
            | OpCode::Switch
            | OpCode::Return
            | OpCode::Unreachable
            | OpCode::Phi
            | OpCode::FunctionEnd
            | OpCode::Function
            | OpCode::DebugName
            | OpCode::DebugMemberName
            | OpCode::Semantic
            | OpCode::SetFpMode
            | OpCode::DescriptorLoad
            | OpCode::Drain => return Ok(()),
            OpCode::Constant | OpCode::Undef => self.constant(d)?,
            OpCode::CompositeExtract => {
                let ce = CompositeExtract::of(op);
                let v = self.arg(d, ce.composite())?;
                let idx = ce
                    .address()
                    .and_then(|i| super::io::const_index(self.m, Some(i)))
                    .ok_or_else(|| self.diag(d, "dynamic composite index"))?;
                let src_ty = self.m.ty(ce.composite().unwrap_or(d)).clone();
                let per = flat_size(&src_ty.sub_type(idx as u32).unwrap_or(src_ty.clone()))
                    .unwrap_or(1) as usize;
                let start = idx as usize * per;
                if src_ty.is_struct() && !src_ty.is_array() {
                    let off: usize = src_ty.members()[..idx as usize]
                        .iter()
                        .map(|m| usize::from(m.vec_size()))
                        .sum();
                    v[off..off + width as usize].iter().copied().collect()
                } else {
                    v.get(start..start + width as usize)
                        .ok_or_else(|| self.diag(d, "composite index out of range"))?
                        .iter()
                        .copied()
                        .collect()
                }
            }
            OpCode::CompositeConstruct => {
                let mut out = Comps::new();
                for m in CompositeConstruct::of(op).members() {
                    out.extend(self.arg(d, m.as_ref())?);
                }
                out
            }
            OpCode::FNeg => self
                .arg(d, Arith::of(op).a())?
                .into_iter()
                .map(Src::negated)
                .collect(),
            OpCode::FAbs => self
                .arg(d, Arith::of(op).a())?
                .into_iter()
                .map(Src::absolute)
                .collect(),
            OpCode::FAdd | OpCode::FSub | OpCode::FMul | OpCode::FMin | OpCode::FMax => {
                let bin = Arith::of(op);
                let a = self.arg(d, bin.a())?;
                let mut b = self.arg(d, bin.b())?;
                if op.opcode == OpCode::FSub {
                    b = b.into_iter().map(Src::negated).collect();
                }
                let alu = match op.opcode {
                    OpCode::FAdd | OpCode::FSub => Alu::Add,
                    OpCode::FMul => Alu::Mul,
                    OpCode::FMin => Alu::Min,
                    _ => Alu::Max,
                };
                if alu == Alu::Max && is_zero(&b) {
                    let r = self.with_modifier(bin.a(), &a, OutMod::Pos);
                    return self.set_value(d, r);
                }
                if alu == Alu::Add {
                    if let Some(r) = self.fuse_mad(d, &a, &b, width) {
                        return self.set_value(d, r);
                    }
                }
                self.alu(alu, &[&a, &b], width)
            }
            OpCode::FMad => {
                let t = Arith::of(op);
                let (a, b, c) = (
                    self.arg(d, t.a())?,
                    self.arg(d, t.b())?,
                    self.arg(d, t.c())?,
                );
                self.mad(&a, &b, &c, width)
            }
            OpCode::FClamp => {
                let cl = Clamp::of(op);
                let (x, lo, hi) = (
                    self.arg(d, cl.a())?,
                    self.arg(d, cl.lo())?,
                    self.arg(d, cl.hi())?,
                );
                if is_const(&lo, 0.0) && is_const(&hi, 1.0) {
                    self.with_modifier(cl.a(), &x, OutMod::Sat)
                } else {
                    self.clamp(&x, &lo, &hi, width)
                }
            }
            OpCode::FDot | OpCode::FDotAdd => {
                let dot = Dot::of(op);
                let (a, b) = (self.arg(d, dot.a())?, self.arg(d, dot.b())?);
                let r = self.dot(&a, &b);
                if op.opcode == OpCode::FDotAdd {
                    let c = self.arg(d, dot.add())?;
                    self.alu(Alu::Add, &[&r, &c], 1)
                } else {
                    r
                }
            }
            OpCode::FDiv => {
                let bin = Arith::of(op);
                let (a, b) = (self.arg(d, bin.a())?, self.arg(d, bin.b())?);
                let r = self.alu(Alu::Rcp, &[&b], width);
                self.alu(Alu::Mul, &[&a, &r], width)
            }
            OpCode::FRcp | OpCode::FSqrt | OpCode::FRsq | OpCode::FExp2 | OpCode::FLog2 => {
                // `rcp(rsq(x))`, D3D9's length idiom: one `sqrt` on the combiner instead of
                // two dependent combiner ops ([`Lower::rsq_operand`]).
                let sqrt_of = (op.opcode == OpCode::FRcp)
                    .then(|| self.rsq_operand(op))
                    .flatten();
                let a = self.arg(d, sqrt_of.or(Arith::of(op).a()))?;
                let alu = match op.opcode {
                    _ if sqrt_of.is_some() => Alu::Sqrt,
                    OpCode::FRcp => Alu::Rcp,
                    OpCode::FSqrt => Alu::Sqrt,
                    OpCode::FRsq => Alu::Rsqrt,
                    OpCode::FExp2 => Alu::Exp2,
                    _ => Alu::Log2,
                };
                self.alu(alu, &[&a], width)
            }
            OpCode::FSin | OpCode::FCos => {
                let a = self.arg(d, Arith::of(op).a())?;
                let k: Comps = (0..width).map(|_| konst(INV_TAU)).collect();
                let k = if fits_f16(INV_TAU) {
                    k
                } else {
                    (0..width).map(|_| self.scalar_const(INV_TAU)).collect()
                };
                let t = self.alu(Alu::Mul, &[&a, &k], width);
                let alu = if op.opcode == OpCode::FSin {
                    Alu::Sin
                } else {
                    Alu::Cos
                };
                self.alu(alu, &[&t], width)
            }
            OpCode::FPow => {
                let bin = Arith::of(op);
                let (a, b) = (self.arg(d, bin.a())?, self.arg(d, bin.b())?);
                let l = self.alu(Alu::Log2, &[&a], width);
                let p = self.alu(Alu::Mul, &[&l, &b], width);
                self.alu(Alu::Exp2, &[&p], width)
            }
            OpCode::FFract => {
                let a = self.arg(d, Arith::of(op).a())?;
                self.alu(Alu::Fract, &[&a], width)
            }
            OpCode::FRound => {
                let r = FRound::of(op);
                let a = self.arg(d, r.a())?;
                let mode = r.mode().unwrap_or(0);
                if mode == u64::from(RoundMode::NegativeInf.0) {
                    self.alu(Alu::Floor, &[&a], width)
                } else if mode == u64::from(RoundMode::PositiveInf.0) {
                    self.alu(Alu::Ceil, &[&a], width)
                } else if mode == u64::from(RoundMode::Zero.0) {
                    let r = self.alu(Alu::Mov, &[&a], width);
                    self.set_modifier(&r, OutMod::Int);
                    r
                } else {
                    self.round_even(&a, width)
                }
            }
            OpCode::FEq | OpCode::FNe | OpCode::FLt | OpCode::FLe | OpCode::FGt | OpCode::FGe => {
                let bin = Arith::of(op);
                let (a, b) = (self.arg(d, bin.a())?, self.arg(d, bin.b())?);
                let (alu, swap) = float_compare(op.opcode).expect("a float comparison");
                let (x, y) = if swap { (b, a) } else { (a, b) };
                self.alu(alu, &[&x, &y], width)
            }
            OpCode::BAnd | OpCode::BOr | OpCode::BEq | OpCode::BNe => {
                let bin = Arith::of(op);
                let (a, b) = (self.arg(d, bin.a())?, self.arg(d, bin.b())?);
                let alu = match op.opcode {
                    OpCode::BAnd => Alu::And,
                    OpCode::BOr => Alu::Or,
                    OpCode::BEq => Alu::Eq,
                    _ => Alu::Ne,
                };
                self.alu(alu, &[&a, &b], width)
            }
            OpCode::BNot => {
                let a = self.arg(d, Arith::of(op).a())?;
                match self.compare_not(Arith::of(op).a(), &a, width) {
                    Some(not) => not,
                    None => self.alu(Alu::Not, &[&a], width),
                }
            }
            OpCode::Select => self.select(d, width)?,
            OpCode::DerivX | OpCode::DerivY => {
                let a = self.arg(d, Deriv::of(op).value())?;
                let na: Comps = a.iter().map(|s| s.negated()).collect();
                if op.opcode == OpCode::DerivX {
                    self.alu(Alu::DdxRaw, &[&a, &na], width)
                } else {
                    self.alu(Alu::DdyRaw, &[&na, &a], width)
                }
            }
            OpCode::ConvertFtoF => self.arg(d, Arith::of(op).a())?,
            OpCode::InputLoad => self.input_load(d)?,
            OpCode::BufferLoad => self.buffer_load(d)?,
            OpCode::OutputStore => {
                self.output_store(d)?;
                return Ok(());
            }
            OpCode::ImageSample => self.sample(d)?,
            OpCode::Demote => {
                let k = self.kill.ok_or_else(|| self.diag(d, "no kill flag"))?;
                let i = self.emit(MOp::alu(Alu::Mov, k, 0, 1, &[konst(1.0)]));
                self.demotes.push((self.cur, i));
                self.io.discards = true;
                return Ok(());
            }
            OpCode::Unknown
            | OpCode::EntryPoint
            | OpCode::SetCsWorkgroupSize
            | OpCode::SetGsInstances
            | OpCode::SetGsInputPrimitive
            | OpCode::SetGsOutputVertices
            | OpCode::SetGsOutputPrimitive
            | OpCode::SetPsEarlyFragmentTest
            | OpCode::SetPsDepthGreaterEqual
            | OpCode::SetPsDepthLessEqual
            | OpCode::SetTessPrimitive
            | OpCode::SetTessDomain
            | OpCode::SetTessControlPoints
            | OpCode::DclInput
            | OpCode::DclInputBuiltIn
            | OpCode::DclOutput
            | OpCode::DclOutputBuiltIn
            | OpCode::DclSpecConstant
            | OpCode::DclPushData
            | OpCode::DclSampler
            | OpCode::DclCbv
            | OpCode::DclSrv
            | OpCode::DclUav
            | OpCode::DclUavCounter
            | OpCode::DclLds
            | OpCode::DclScratch
            | OpCode::DclTmp
            | OpCode::DclParam
            | OpCode::DclXfb
            | OpCode::DclInputTarget
            | OpCode::FunctionCall
            | OpCode::ScopedIf
            | OpCode::ScopedElse
            | OpCode::ScopedEndIf
            | OpCode::ScopedLoop
            | OpCode::ScopedLoopBreak
            | OpCode::ScopedLoopContinue
            | OpCode::ScopedEndLoop
            | OpCode::ScopedSwitch
            | OpCode::ScopedSwitchCase
            | OpCode::ScopedSwitchDefault
            | OpCode::ScopedSwitchBreak
            | OpCode::ScopedEndSwitch
            | OpCode::Barrier
            | OpCode::ConvertFtoI
            | OpCode::ConvertItoF
            | OpCode::ConvertItoI
            | OpCode::ConvertF32toPackedF16
            | OpCode::ConvertPackedF16toF32
            | OpCode::Cast
            | OpCode::ConsumeAs
            | OpCode::CompositeInsert
            | OpCode::CheckSparseAccess
            | OpCode::ParamLoad
            | OpCode::TmpLoad
            | OpCode::TmpStore
            | OpCode::ScratchLoad
            | OpCode::ScratchStore
            | OpCode::LdsLoad
            | OpCode::LdsStore
            | OpCode::PushDataLoad
            | OpCode::InputTargetLoad
            | OpCode::OutputLoad
            | OpCode::BufferStore
            | OpCode::BufferQuerySize
            | OpCode::MemoryLoad
            | OpCode::MemoryStore
            | OpCode::ConstantLoad
            | OpCode::LdsAtomic
            | OpCode::BufferAtomic
            | OpCode::ImageAtomic
            | OpCode::CounterAtomic
            | OpCode::MemoryAtomic
            | OpCode::ImageLoad
            | OpCode::ImageStore
            | OpCode::ImageQuerySize
            | OpCode::ImageQueryMips
            | OpCode::ImageQuerySamples
            | OpCode::ImageGather
            | OpCode::ImageComputeLod
            | OpCode::Pointer
            | OpCode::EmitVertex
            | OpCode::EmitPrimitive
            | OpCode::InterpolateAtCentroid
            | OpCode::InterpolateAtSample
            | OpCode::InterpolateAtOffset
            | OpCode::RovScopedLockBegin
            | OpCode::RovScopedLockEnd
            | OpCode::FIsNan
            | OpCode::IEq
            | OpCode::INe
            | OpCode::SLt
            | OpCode::SLe
            | OpCode::SGt
            | OpCode::SGe
            | OpCode::ULt
            | OpCode::ULe
            | OpCode::UGt
            | OpCode::UGe
            | OpCode::FMulLegacy
            | OpCode::FMadLegacy
            | OpCode::FDotLegacy
            | OpCode::FSgn
            | OpCode::FPowLegacy
            | OpCode::FDotAddLegacy
            | OpCode::FLog2Legacy
            | OpCode::IAnd
            | OpCode::IOr
            | OpCode::IXor
            | OpCode::INot
            | OpCode::IBitInsert
            | OpCode::UBitExtract
            | OpCode::SBitExtract
            | OpCode::IShl
            | OpCode::SShr
            | OpCode::UShr
            | OpCode::IBitCount
            | OpCode::IBitReverse
            | OpCode::IFindLsb
            | OpCode::SFindMsb
            | OpCode::UFindMsb
            | OpCode::IAdd
            | OpCode::IAddCarry
            | OpCode::ISub
            | OpCode::ISubBorrow
            | OpCode::IAbs
            | OpCode::INeg
            | OpCode::IMul
            | OpCode::SMulExtended
            | OpCode::UMulExtended
            | OpCode::UDiv
            | OpCode::UMod
            | OpCode::SMin
            | OpCode::SMax
            | OpCode::SClamp
            | OpCode::UMin
            | OpCode::UMax
            | OpCode::UClamp
            | OpCode::UMSad
            | OpCode::MinValue
            | OpCode::MaxValue => {
                return Err(self.diag(d, "no PP equivalent"));
            }
        };
        self.set_value(d, res)
    }

    fn set_value(&mut self, d: SsaDef, c: Comps) -> Result<(), Diagnostic> {
        self.values.insert(d, c);
        Ok(())
    }

    fn set_modifier(&mut self, r: &Comps, m: OutMod) {
        for s in r {
            if let Operand::Reg(v, _) = s.op {
                if let Some(&(b, i)) = self.producer.get(&v) {
                    self.prog.blocks[b].ops[i].modifier = m;
                }
            }
        }
    }

    /// Round half to even: `t = floor(x + 0.5)`; where `t − x == 0.5` (a tie) and `t` is odd,
    /// subtract one.
    fn round_even(&mut self, a: &Comps, width: u8) -> Comps {
        let mut out = Comps::new();
        for c in 0..width as usize {
            let x = &a[c..=c];
            let half = [konst(0.5)];
            let t = self.mad(x, &[konst(1.0)], &half, 1);
            let t = self.alu(Alu::Floor, &[&t], 1);
            let nx: Comps = x.iter().map(|s| s.negated()).collect();
            let diff = self.alu(Alu::Add, &[&t, &nx], 1);
            let tie = self.alu(Alu::Eq, &[&diff, &half], 1);
            let h = self.alu(Alu::Mul, &[&t, &half], 1);
            let odd = self.alu(Alu::Fract, &[&h], 1);
            let odd = self.alu(Alu::Ne, &[&odd, &[konst(0.0)]], 1);
            let both = self.alu(Alu::And, &[&tie, &odd], 1);
            let nboth: Comps = both.iter().map(|s| s.negated()).collect();
            out.extend(self.alu(Alu::Add, &[&t, &nboth], 1));
        }
        out
    }

    fn select(&mut self, d: SsaDef, width: u8) -> Result<Comps, Diagnostic> {
        let sel = Select::of(self.m.op(d));
        let (c, a, b) = (
            self.arg(d, sel.cond())?,
            self.arg(d, sel.if_true())?,
            self.arg(d, sel.if_false())?,
        );
        // A comparison gives exactly 1.0 or 0.0 (reference §5): selecting between those two
        // constants by its result is the result itself, or its `not` (D3D9's `sge`/`slt`/`cmp`
        // against 0 and 1 arrive as such selects). No select group, so no scalarization and
        // no `^fmul` condition: the compare runs in any unit, vectors stay whole. (`not` in a
        // mul unit measured better than `1 − c` in an add unit: 14,782 against 14,882
        // instructions over the D3D9 pixel shaders.) Where the negated comparison is itself
        // one ([`Lower::inverse_compare`]), that comparison replaces compare + `not`: D3D9
        // pixel shaders 14,261 → 13,742 instructions (`ieee`: 10,713 → 10,495). Else, where
        // nothing else reads the comparison, it moves into a mul unit with `== 0.0` after it
        // in the add unit ([`Lower::compare_not`]): `ieee` 10,495 → 10,389.
        if c.iter().all(|&s| self.is_compare_result(s)) {
            let cond: Comps = (0..usize::from(width))
                .map(|i| c.get(i).copied().unwrap_or(c[0]))
                .collect();
            if is_const(&a, 1.0) && is_const(&b, 0.0) {
                return Ok(cond);
            }
            if is_const(&a, 0.0) && is_const(&b, 1.0) {
                if let Some(inverse) = self.inverse_compare(sel.cond(), width)? {
                    return Ok(inverse);
                }
                if let Some(not) = self.compare_not(sel.cond(), &cond, width) {
                    return Ok(not);
                }
                return Ok(self.alu(Alu::Not, &[&cond], width));
            }
        }
        let uniform_cond = c.iter().all(|s| *s == c[0]);
        if !uniform_cond || (width > 1 && !(gather(&a).is_some() && gather(&b).is_some())) {
            let mut out = Comps::new();
            for i in 0..width as usize {
                let ci = if c.len() > i { &c[i..=i] } else { &c[..1] };
                out.extend(self.select_one(ci[0], &a[i..=i], &b[i..=i], 1));
            }
            return Ok(out);
        }
        Ok(self.select_one(c[0], &a, &b, width))
    }

    fn select_one(&mut self, c: Src, a: &[Src], b: &[Src], width: u8) -> Comps {
        if let Operand::Const(k) = c.op {
            return if k[0].to_f32() != 0.0 {
                a.iter().copied().collect()
            } else {
                b.iter().copied().collect()
            };
        }
        // Fold a comparison that produced the condition into the select's scalar mul.
        let (cond, x, y) = match self.compare_of(c) {
            Some((op, x, y)) => (op, x, y),
            None => (MulOp::Ne, c, konst(0.0)),
        };
        self.group(Kind::Select(cond), &[&[x], &[y], a, b], width)
    }

    /// `not(cond)` as one comparison, where the IR condition `cond` is a float comparison
    /// whose negation ([`irc_passes::compare::inverse`]) is one: `FEq` ↔ `FNe` always (`FNe`
    /// is unordered: NaN compares unequal), `FGe`/`FGt`/`FLe`/`FLt` when neither operand can
    /// be NaN (then `not(a ≥ b)` is `b > a`).
    fn inverse_compare(
        &mut self,
        cond: Option<SsaDef>,
        width: u8,
    ) -> Result<Option<Comps>, Diagnostic> {
        let Some(c) = cond else {
            return Ok(None);
        };
        let opcode = self.m.opcode(c);
        let bin = Arith::of(self.m.op(c));
        let (Some(x), Some(y)) = (bin.a(), bin.b()) else {
            return Ok(None);
        };
        let Some((negation, ordered)) = irc_passes::compare::inverse(opcode) else {
            return Ok(None);
        };
        let Some((alu, swap)) = float_compare(negation) else {
            return Ok(None);
        };
        let (first, second) = if swap { (y, x) } else { (x, y) };
        if ordered {
            let m = self.m;
            let facts = self.facts();
            if !(facts.never_nan(m, x) && facts.never_nan(m, y)) {
                return Ok(None);
            }
        }
        let (a, b) = (self.value(first)?, self.value(second)?);
        let w = a.len().min(b.len());
        if w != usize::from(width) && w != 1 {
            return Ok(None);
        }
        let r = self.alu(alu, &[&a, &b], w as u8);
        Ok(Some(
            (0..usize::from(width))
                .map(|i| r.get(i).copied().unwrap_or(r[0]))
                .collect(),
        ))
    }

    /// True if `c` reads, unmodified, the result of a comparison op (`gt`, `ge`, `eq`, `ne`:
    /// exactly 1.0 or 0.0 in every lane).
    fn is_compare_result(&self, c: Src) -> bool {
        let Operand::Reg(v, swz) = c.op else {
            return false;
        };
        if c.abs || c.neg {
            return false;
        }
        let Some(&(b, i)) = self.producer.get(&v) else {
            return false;
        };
        let op = &self.prog.blocks[b].ops[i];
        let in_lanes = swz[0]
            .checked_sub(op.dst_comp)
            .is_some_and(|lane| lane < op.width);
        in_lanes
            && op.modifier == OutMod::None
            && op.dst == Some(v)
            && matches!(op.kind, Kind::Alu(Alu::Gt | Alu::Ge | Alu::Eq | Alu::Ne))
    }

    /// `not(cond)` of comparison results `cond` that one comparison kind computed, the IR
    /// value `ir_cond` read by nothing else: that comparison again in a mul unit, and `== 0.0`
    /// of its result in the add unit of the same instruction ([`Kind::CompareEq`]), after
    /// which the first comparison is unread and goes. The same units as the comparison and a
    /// `not`, one instruction less on the path. (A comparison read elsewhere too would be
    /// computed twice: then compare + `not` is kept.)
    fn compare_not(&mut self, ir_cond: Option<SsaDef>, cond: &[Src], width: u8) -> Option<Comps> {
        if self.m.uses(ir_cond?).len() != 1 {
            return None;
        }
        let lanes: SmallVec<[(MulOp, Src, Src); 4]> = cond
            .iter()
            .map(|&c| self.compare_of(c))
            .collect::<Option<_>>()?;
        let op = lanes[0].0;
        if lanes.iter().any(|l| l.0 != op) {
            return None;
        }
        let xs: Comps = lanes.iter().map(|l| l.1).collect();
        let ys: Comps = lanes.iter().map(|l| l.2).collect();
        let zeros: Comps = lanes.iter().map(|_| konst(0.0)).collect();
        Some(self.mul_add_group(Kind::CompareEq(op), [&xs, &ys, &zeros], width))
    }

    /// The comparison (as a mul-unit op and operands) that computed a fresh scalar condition.
    fn compare_of(&self, c: Src) -> Option<(MulOp, Src, Src)> {
        let Operand::Reg(v, swz) = c.op else {
            return None;
        };
        if c.abs || c.neg {
            return None;
        }
        let &(b, i) = self.producer.get(&v)?;
        let op = &self.prog.blocks[b].ops[i];
        let lane = swz[0].checked_sub(op.dst_comp)?;
        if lane >= op.width || op.modifier != OutMod::None || op.dst != Some(v) {
            return None;
        }
        let Kind::Alu(alu) = op.kind else { return None };
        let m = match alu {
            Alu::Gt => MulOp::Gt,
            Alu::Ge => MulOp::Ge,
            Alu::Eq => MulOp::Eq,
            Alu::Ne => MulOp::Ne,
            _ => return None,
        };
        // Operands must not involve a uniform different from the select's values (kept
        // simple: registers and constants only).
        let ok = |s: &Src| matches!(s.op, Operand::Reg(..) | Operand::Const(_));
        (ok(&op.srcs[0]) && ok(&op.srcs[1]))
            .then(|| (m, component(op.srcs[0], lane), component(op.srcs[1], lane)))
    }

    /// Mask of the varying slot's components that the loads of input `decl` read (constant
    /// indices; a dynamic one reads them all).
    fn varying_reads(&self, decl: SsaDef) -> u8 {
        let dop = self.m.op(decl);
        let c0 = DclInput::of(dop).component().unwrap_or(0) as u8;
        let n = flat_size(&dop.ty).unwrap_or(0) as u8;
        let span = |from: u8, w: u8| (((1u16 << w.min(4)) - 1) << from.min(4)) as u8;
        let mut mask = 0u8;
        for &u in self.m.uses(decl) {
            let op = self.m.op(u);
            if op.opcode != OpCode::InputLoad {
                continue;
            }
            let width = flat_size(&op.ty).unwrap_or(0) as u8;
            let first = match Load::of(op).address() {
                None => Some(0),
                Some(a) => super::io::const_index(self.m, Some(a)),
            };
            mask |= match first {
                Some(f) => span(c0.saturating_add(f.min(4) as u8), width),
                None => span(c0, n),
            };
        }
        mask
    }

    fn input_load(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d);
        let load = Load::of(op);
        let decl = load.base().ok_or_else(|| self.diag(d, "no declaration"))?;
        let dop = self.m.op(decl);
        let width = flat_size(&op.ty).unwrap_or(0) as u8;
        let addr = load.address();
        match dop.opcode {
            OpCode::DclInput => {
                let loc = DclInput::of(dop).location().unwrap_or(0) as u32;
                let c0 = DclInput::of(dop).component().unwrap_or(0) as u8;
                let n = flat_size(&dop.ty).unwrap_or(0) as u8;
                if dop.ty.is_array() || n > 4 {
                    return Err(self.diag(d, "input arrays"));
                }
                if !dop.ty.is_basic_where(|s| s.is_float()) {
                    return Err(self.diag(d, "integer or boolean varyings"));
                }
                let first = match addr {
                    None => 0,
                    Some(a) => super::io::const_index(self.m, Some(a))
                        .ok_or_else(|| self.diag(d, "dynamically indexed varying"))?,
                };
                let first = within_vec4(first, c0, usize::from(width))
                    .ok_or_else(|| self.diag(d, "varying component index beyond the vector"))?;
                self.io.varying(
                    IoSource::Location {
                        location: loc,
                        component: u32::from(c0),
                    },
                    loc,
                    n,
                );
                let reads = self.varying_reads(decl);
                if width == 1 && (n == 1 || reads.count_ones() <= 1) {
                    let v = self.new_vreg(1, true);
                    let i = self.emit(MOp {
                        kind: Kind::Varying {
                            alignment: 0,
                            index: loc * 4 + u32::from(c0 + first),
                            perspective: 0,
                        },
                        dst: Some(v),
                        dst_comp: 0,
                        width: 1,
                        srcs: SmallVec::new(),
                        modifier: OutMod::None,
                    });
                    self.producer.insert(v, (self.cur, i));
                    Ok(smallvec![Src::new(Operand::reg(v, 0))])
                } else {
                    // One vector load of the declared components per block, shared by every
                    // component read (a scalar read of a vector varying included): no
                    // per-component loads and no moves re-packing them.
                    let top = (8 - reads.leading_zeros() as u8).max(c0 + first + width);
                    let v = match self.varying_loads.get(&(self.cur, loc)) {
                        Some(&(v, have)) if have >= top => v,
                        _ => {
                            let v = self.new_vreg(top, true);
                            let i = self.emit(MOp {
                                kind: Kind::Varying {
                                    alignment: 3,
                                    index: loc,
                                    perspective: 0,
                                },
                                dst: Some(v),
                                dst_comp: 0,
                                width: top,
                                srcs: SmallVec::new(),
                                modifier: OutMod::None,
                            });
                            self.producer.insert(v, (self.cur, i));
                            self.varying_loads.insert((self.cur, loc), (v, top));
                            v
                        }
                    };
                    Ok((c0 + first..c0 + first + width)
                        .map(|c| Src::new(Operand::reg(v, c)))
                        .collect())
                }
            }
            OpCode::DclInputBuiltIn => {
                let b = DclInputBuiltIn::of(dop)
                    .builtin()
                    .and_then(BuiltIn::from_u64)
                    .ok_or_else(|| self.diag(d, "invalid built-in"))?;
                match b {
                    BuiltIn::LegacyConstFloat
                    | BuiltIn::LegacyConstInt
                    | BuiltIn::LegacyConstBool => self.uniform_load(d, decl, addr, width),
                    BuiltIn::Position => {
                        let first = addr
                            .map(|a| super::io::const_index(self.m, Some(a)).unwrap_or(0))
                            .unwrap_or(0) as u8;
                        self.io.special(BuiltIn::Position);
                        let raw = self.special(VaryingKind::FragCoord, 4);
                        let mut out = Comps::new();
                        for c in first..first + width {
                            if c == 3 {
                                out.extend(self.alu(Alu::Rcp, &[&raw[3..4]], 1));
                            } else {
                                out.push(raw[c as usize]);
                            }
                        }
                        Ok(out)
                    }
                    BuiltIn::IsFrontFace => {
                        self.io.special(BuiltIn::IsFrontFace);
                        Ok(self.special(VaryingKind::FrontFacing, 1))
                    }
                    _ => Err(self.diag(d, format!("input built-in {b:?}"))),
                }
            }
            _ => Err(self.diag(d, "input load of this declaration")),
        }
    }

    fn special(&mut self, kind: VaryingKind, size: u8) -> Comps {
        let v = self.new_vreg(size, true);
        let i = self.emit(MOp {
            kind: Kind::Special(kind),
            dst: Some(v),
            dst_comp: 0,
            width: size,
            srcs: SmallVec::new(),
            modifier: OutMod::None,
        });
        self.producer.insert(v, (self.cur, i));
        (0..size).map(|c| Src::new(Operand::reg(v, c))).collect()
    }

    /// Loads of vec4 constant arrays (D3D9 constant registers, constant buffers).
    fn uniform_load(
        &mut self,
        d: SsaDef,
        decl: SsaDef,
        addr: Option<SsaDef>,
        width: u8,
    ) -> Result<Comps, Diagnostic> {
        let arr = self
            .io
            .arrays
            .get(&decl)
            .cloned()
            .ok_or_else(|| self.diag(d, "constant array without a uniform layout"))?;
        // Address: element index, optionally followed by the component.
        let (elem, comp): (Option<SsaDef>, u8) = match addr {
            None => return Err(self.diag(d, "whole-array load")),
            Some(a) => {
                let aop = self.m.op(a);
                if aop.opcode == OpCode::CompositeConstruct {
                    let members = CompositeConstruct::of(aop).members();
                    let member = |i: usize| members.get(i).and_then(|o| o.as_ref());
                    let (elem, comp) = (member(0), member(1));
                    let c = super::io::const_index(self.m, comp)
                        .ok_or_else(|| self.diag(d, "dynamic component index"))?;
                    (elem, u8::try_from(c).unwrap_or(u8::MAX))
                } else if flat_size(&aop.ty) == Some(2) {
                    if aop.opcode != OpCode::Constant {
                        return Err(self.diag(d, "vector address"));
                    }
                    let c = Constant::of(aop).scalar(1).unwrap_or(0);
                    (None, u8::try_from(c).unwrap_or(u8::MAX))
                } else {
                    (Some(a), 0)
                }
            }
        };
        if usize::from(comp) + usize::from(width) > 4 {
            return Err(self.diag(d, "constant-buffer component index beyond the vector"));
        }
        let swz_base = comp;
        let const_elem = match (elem, addr) {
            (None, Some(a)) => Constant::try_of(self.m.op(a)).and_then(|c| c.scalar(0)),
            _ => super::io::const_index(self.m, elem),
        };
        let (slot, offset) = match const_elem.map(|i| u32::try_from(i).unwrap_or(u32::MAX)) {
            Some(i) => match &arr.layout {
                UniformLayout::Dense(map) => (
                    *map.get(&i)
                        .ok_or_else(|| self.diag(d, "constant element without a slot"))?,
                    None,
                ),
                UniformLayout::Whole { base, len } => (base + i.min(*len), None),
            },
            None => {
                let UniformLayout::Whole { base, len } = arr.layout else {
                    return Err(self.diag(d, "dynamic index into a densely packed array"));
                };
                let e = elem.ok_or_else(|| self.diag(d, "no index"))?;
                let idx = self.value(e)?;
                // Robust read: negative or too large indices read the zero slot at `len`.
                let lenc = self.scalar_const(len as f32);
                let t = self.alu(Alu::Min, &[&idx[..1], &[lenc]], 1);
                let neg = self.select_one_cmp(MulOp::Gt, konst(0.0), idx[0], lenc, t[0]);
                let (v, c) = self.cond_reg(neg[0]);
                (base, Some((v, c)))
            }
        };
        Ok((0..width)
            .map(|i| {
                Src::new(Operand::Uniform {
                    slot,
                    swz: [swz_base + i; 4],
                    offset,
                })
            })
            .collect())
    }

    fn select_one_cmp(&mut self, op: MulOp, x: Src, y: Src, a: Src, b: Src) -> Comps {
        self.group(Kind::Select(op), &[&[x], &[y], &[a], &[b]], 1)
    }

    fn buffer_load(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d);
        let load = AlignedLoad::of(op);
        let desc = load.base().map(|x| self.m.op(x));
        let decl = match desc {
            Some(dop) if dop.opcode == OpCode::DescriptorLoad => DescriptorLoad::of(dop).decl(),
            _ => None,
        }
        .ok_or_else(|| self.diag(d, "buffer load without a descriptor"))?;
        if self.m.opcode(decl) != OpCode::DclCbv {
            return Err(self.diag(d, "loads from buffers other than constant buffers"));
        }
        if !op.ty.is_basic_where(|s| s.is_float()) {
            return Err(self.diag(d, "integer constant-buffer data"));
        }
        let width = flat_size(&op.ty).unwrap_or(0) as u8;
        self.uniform_load(d, decl, load.address(), width)
    }

    fn output_store(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        let store = Store::of(self.m.op(d));
        let decl = store.base().ok_or_else(|| self.diag(d, "no declaration"))?;
        let out = *self
            .outputs
            .get(&decl)
            .ok_or_else(|| self.diag(d, "store to an undeclared output"))?;
        let first = match store.address() {
            None => 0,
            Some(a) => super::io::const_index(self.m, Some(a))
                .ok_or_else(|| self.diag(d, "dynamically indexed output"))?,
        };
        let value_def = store.value().ok_or_else(|| self.diag(d, "no value"))?;
        let vals = self.value(value_def)?;
        let first = within_vec4(first, 0, vals.len())
            .ok_or_else(|| self.diag(d, "output component index beyond the vector"))?;
        // Let the op computing the value write the output register directly
        // ([`super::output_write`]).
        if self.m.uses(value_def).len() == 1 && self.output_lanes_disjoint(decl) {
            if let Some(v) = fresh_vreg(&vals) {
                if let Some(&(b, i)) = self.producer.get(&v) {
                    let mop = &mut self.prog.blocks[b].ops[i];
                    let retarget = b == self.cur
                        && mop.dst == Some(v)
                        && mop.width as usize == vals.len()
                        && !matches!(mop.kind, Kind::Varying { .. } | Kind::Special(_));
                    if retarget {
                        mop.dst = Some(out);
                        mop.dst_comp = first;
                        self.producer.remove(&v);
                        return Ok(());
                    }
                }
            }
        }
        let mut c = 0usize;
        while c < vals.len() {
            // Group consecutive components coming from one place into one move.
            let mut n = 1;
            while c + n < vals.len() && gather(&vals[c..c + n + 1]).is_some() {
                n += 1;
            }
            let s = gather(&vals[c..c + n]).unwrap_or(vals[c]);
            let n = if gather(&vals[c..c + n]).is_some() {
                n
            } else {
                1
            };
            self.emit(MOp::alu(Alu::Mov, out, first + c as u8, n as u8, &[s]));
            c += n;
        }
        Ok(())
    }

    fn sample(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d).clone();
        let sample = ImageSample::of(&op);
        let shape = sample_shape(self.m, d).map_err(|e| self.diag(d, e))?;
        let (tb, sb, skind, n) = (shape.texture, shape.sampler, shape.kind, shape.coords);
        let ty = match skind {
            SamplerKind::Cube => SamplerType::Cube,
            _ => SamplerType::Generic,
        };
        let coord = self.arg(d, sample.coord())?;
        if coord.len() < n {
            return Err(self.diag(d, "too few coordinates"));
        }
        let coords = match varying_coords(self, &coord[..n]) {
            Some((slot, comps)) => Coords::Varying {
                slot,
                components: comps,
            },
            None => {
                let s = self.vector_src(&coord[..n]);
                Coords::Reg(self.in_register(s, n as u8))
            }
        };
        let lod = match (sample.lod(), sample.lod_bias()) {
            (Some(l), _) => {
                let s = self.value(l)?[0];
                let (v, c) = self.cond_reg(s);
                Some((v, c, true))
            }
            (None, Some(b)) => {
                let s = self.value(b)?[0];
                let (v, c) = self.cond_reg(s);
                Some((v, c, false))
            }
            _ => None,
        };
        let sampler = self.io.sampler(tb, Some(sb), skind);
        // Only the texel components the shader reads get register lanes: `lo..=hi` of the
        // `^texture` vec4 (the mov's swizzle puts them anywhere).
        let used = self.used_components(d, 4);
        let (lo, hi) = (used.trailing_zeros() as u8, 7 - used.leading_zeros() as u8);
        let (lo, hi) = if used == 0 { (0, 0) } else { (lo, hi) };
        let w = hi - lo + 1;
        let v = self.new_vreg(w, false);
        let i = self.emit(MOp {
            kind: Kind::Texture {
                sampler,
                ty,
                coords,
                lod,
                swz: std::array::from_fn(|j| (lo + j as u8).min(hi)),
                reader: None,
            },
            dst: Some(v),
            dst_comp: 0,
            width: w,
            srcs: SmallVec::new(),
            modifier: OutMod::None,
        });
        self.producer.insert(v, (self.cur, i));
        Ok((0..4u8)
            .map(|c| {
                if (lo..=hi).contains(&c) {
                    Src::new(Operand::reg(v, c - lo))
                } else {
                    konst(0.0)
                }
            })
            .collect())
    }

    /// Components of the vector value `d` its users read (all when a user takes it whole).
    fn used_components(&self, d: SsaDef, n: u8) -> u8 {
        let all = ((1u16 << n) - 1) as u8;
        let mut mask = 0u8;
        for &u in self.m.uses(d) {
            let op = self.m.op(u);
            let idx = (op.opcode == OpCode::CompositeExtract)
                .then(|| super::io::const_index(self.m, CompositeExtract::of(op).address()))
                .flatten();
            match idx {
                Some(i) if i < u64::from(n) => mask |= 1 << i,
                _ => return all,
            }
        }
        mask
    }
}

/// Texture coordinates that are exactly the first components of a varying: one vector load,
/// or scalar loads of components 0, 1 (, 2) of one slot.
fn varying_coords(l: &Lower<'_>, coord: &[Src]) -> Option<(u32, u8)> {
    let scalar_slot = coord.iter().enumerate().try_fold(None, |slot, (i, s)| {
        let Operand::Reg(v, swz) = s.op else {
            return None;
        };
        if s.abs || s.neg || swz[0] != 0 {
            return None;
        }
        let &(b, k) = l.producer.get(&v)?;
        match l.prog.blocks[b].ops[k].kind {
            Kind::Varying {
                alignment: 0,
                index,
                perspective: 0,
            } if index % 4 == i as u32 && slot.is_none_or(|x| x == index / 4) => {
                Some(Some(index / 4))
            }
            _ => None,
        }
    });
    if let Some(Some(slot)) = scalar_slot {
        return Some((slot, coord.len() as u8));
    }
    let v = fresh_vreg(coord)?;
    let &(b, i) = l.producer.get(&v)?;
    let op = &l.prog.blocks[b].ops[i];
    match op.kind {
        Kind::Varying {
            alignment: 3,
            index,
            perspective: 0,
        } => Some((index, coord.len() as u8)),
        _ => None,
    }
}

/// The register all of `comps` are components 0..n (in order, unmodified) of.
pub fn fresh_vreg(comps: &[Src]) -> Option<VReg> {
    let mut reg = None;
    for (i, s) in comps.iter().enumerate() {
        match s.op {
            Operand::Reg(v, swz) if !s.abs && !s.neg && swz[0] as usize == i => {
                if reg.is_some_and(|r| r != v) {
                    return None;
                }
                reg = Some(v);
            }
            _ => return None,
        }
    }
    reg
}

/// Whether every operand's lanes `0..width` are one and the same source.
fn same_lanes(args: &[&[Src]], width: u8) -> bool {
    args.iter().all(|a| {
        a.len() >= usize::from(width) && a[..usize::from(width)].iter().all(|s| *s == a[0])
    })
}

/// One vector source for `comps` if they all come from one place with the same modifiers.
pub fn gather(comps: &[Src]) -> Option<Src> {
    let first = *comps.first()?;
    if comps
        .iter()
        .any(|s| s.abs != first.abs || s.neg != first.neg)
    {
        return None;
    }
    let pad = |f: &dyn Fn(&Src) -> Option<u8>| -> Option<[u8; 4]> {
        let mut swz = [0u8; 4];
        for (i, s) in comps.iter().enumerate() {
            swz[i] = f(s)?;
        }
        for i in comps.len()..4 {
            swz[i] = swz[comps.len() - 1];
        }
        Some(swz)
    };
    let op = match first.op {
        Operand::Reg(v0, _) => Operand::Reg(
            v0,
            pad(&|s| match s.op {
                Operand::Reg(v, swz) if v == v0 => Some(swz[0]),
                _ => None,
            })?,
        ),
        Operand::Const(_) => {
            let mut k = [f16::ZERO; 4];
            for (i, s) in comps.iter().enumerate() {
                match s.op {
                    Operand::Const(c) => k[i] = c[0],
                    _ => return None,
                }
            }
            for i in comps.len()..4 {
                k[i] = k[comps.len() - 1];
            }
            // Constants carry their modifiers folded.
            let fold = |h: f16| {
                let mut x = h.to_f32();
                if first.abs {
                    x = x.abs();
                }
                if first.neg {
                    x = -x;
                }
                f16::from_f32(x)
            };
            return Some(Src::new(Operand::Const(k.map(fold))));
        }
        Operand::Uniform { slot, offset, .. } => Operand::Uniform {
            slot,
            offset,
            swz: pad(&|s| match s.op {
                Operand::Uniform {
                    slot: s2,
                    offset: o2,
                    swz,
                } if s2 == slot && o2 == offset => Some(swz[0]),
                _ => None,
            })?,
        },
        Operand::Temp { slot, of, .. } => Operand::Temp {
            slot,
            of,
            swz: pad(&|s| match s.op {
                Operand::Temp {
                    slot: s2,
                    of: o2,
                    swz,
                } if s2 == slot && o2 == of => Some(swz[0]),
                _ => None,
            })?,
        },
        Operand::Texture(_) => return None,
    };
    Some(Src { op, ..first })
}

fn is_const(c: &[Src], x: f32) -> bool {
    c.iter().all(|s| match s.op {
        Operand::Const(k) => {
            let mut v = k[0].to_f32();
            if s.abs {
                v = v.abs();
            }
            if s.neg {
                v = -v;
            }
            // Bitwise: `max(x, -0.0)` is not `max(x, +0.0)`.
            v.to_bits() == x.to_bits()
        }
        _ => false,
    })
}

fn is_zero(c: &[Src]) -> bool {
    is_const(c, 0.0)
}

/// The swizzle selecting components `0..n` (later lanes repeat the last).
pub fn identity(n: u8) -> [u8; 4] {
    std::array::from_fn(|i| (i as u8).min(n.max(1) - 1))
}

/// The scalar source of lane `i` of a vector source.
pub fn component(s: Src, i: u8) -> Src {
    let i = usize::from(i & 3);
    let op = match s.op {
        Operand::Reg(v, swz) => Operand::Reg(v, [swz[i]; 4]),
        Operand::Const(k) => Operand::Const([k[i]; 4]),
        Operand::Uniform { slot, swz, offset } => Operand::Uniform {
            slot,
            swz: [swz[i]; 4],
            offset,
        },
        Operand::Temp { slot, of, swz } => Operand::Temp {
            slot,
            of,
            swz: [swz[i]; 4],
        },
        Operand::Texture(swz) => Operand::Texture([swz[i]; 4]),
    };
    Src { op, ..s }
}

/// `first` as a component index when components `base + first .. base + first + width` lie
/// within one vec4 (an out-of-range constant index in verifier-clean IR is an error, never a
/// wrapped or overflowing mask).
fn within_vec4(first: impl TryInto<u8>, base: u8, width: usize) -> Option<u8> {
    let first: u8 = first.try_into().ok()?;
    (usize::from(base) + usize::from(first) + width <= 4).then_some(first)
}

/// The PP comparison computing the IR float comparison `op`, and whether it takes the operands
/// swapped (the PP has `gt` and `ge`: `a < b` is `b > a`).
fn float_compare(op: OpCode) -> Option<(Alu, bool)> {
    Some(match op {
        OpCode::FEq => (Alu::Eq, false),
        OpCode::FNe => (Alu::Ne, false),
        OpCode::FLt => (Alu::Gt, true),
        OpCode::FLe => (Alu::Ge, true),
        OpCode::FGt => (Alu::Gt, false),
        OpCode::FGe => (Alu::Ge, false),
        _ => return None,
    })
}
