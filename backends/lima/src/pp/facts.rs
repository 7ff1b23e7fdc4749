//! Everything the compiler knows about one PP machine op, in one place: which units can run it
//! ([`Alu::units`], [`unit_options`]), which unit opcode encodes it ([`Alu::mul_op`],
//! [`Alu::acc_op`], [`Alu::combine_op`]), and which register components it reads and writes
//! at which pipeline stage ([`MachOp::operands`]) — the single description that liveness,
//! dead-write removal, the scheduler's dependence graph, the allocator and its checker read.
//!
//! Stages follow the units an op is placed on: an ALU op's sources are read by its first
//! unit; a `Mad`'s addend and a `Select`'s alternatives by its second (the add unit), its
//! condition and factors by the first (the mul unit); the destination is written by the last.
//! Fixed stages: a uniform index register is read by the uniform unit, texture coordinates by
//! the varying unit, the LOD by the sampler, a spill's value by the temp-write unit. Before
//! scheduling every unit slot reads as the mul stage (3), so an op reads before it writes.

use irc_backend::machine::{def_at, use_at, MachOp, Memory, Operands, Slot};
use smallvec::{smallvec, SmallVec};

use super::isa::{AccOp, CombineOp, MulOp};
use super::mir::{Alu, Coords, Kind, MOp, Operand, Src, UnitKind};

impl Alu {
    /// Number of sources.
    pub const fn srcs(self) -> usize {
        match self {
            Alu::Mov
            | Alu::Not
            | Alu::Floor
            | Alu::Ceil
            | Alu::Fract
            | Alu::Sum3
            | Alu::Sum4
            | Alu::Rcp
            | Alu::Rsqrt
            | Alu::Sqrt
            | Alu::Exp2
            | Alu::Log2
            | Alu::Sin
            | Alu::Cos => 1,
            _ => 2,
        }
    }
    /// The multiply-unit opcode, if the mul units can execute it.
    pub const fn mul_op(self) -> Option<MulOp> {
        Some(match self {
            Alu::Mov => MulOp::Mov,
            Alu::Mul => MulOp::Mul,
            Alu::Min => MulOp::Min,
            Alu::Max => MulOp::Max,
            Alu::Gt => MulOp::Gt,
            Alu::Ge => MulOp::Ge,
            Alu::Eq => MulOp::Eq,
            Alu::Ne => MulOp::Ne,
            Alu::Not => MulOp::Not,
            Alu::And => MulOp::And,
            Alu::Or => MulOp::Or,
            _ => return None,
        })
    }
    /// The add-unit opcode, if the add units can execute it.
    pub const fn acc_op(self) -> Option<AccOp> {
        Some(match self {
            Alu::Mov => AccOp::Mov,
            Alu::Add => AccOp::Add,
            Alu::Min => AccOp::Min,
            Alu::Max => AccOp::Max,
            Alu::Gt => AccOp::Gt,
            Alu::Ge => AccOp::Ge,
            Alu::Eq => AccOp::Eq,
            Alu::Ne => AccOp::Ne,
            Alu::Floor => AccOp::Floor,
            Alu::Ceil => AccOp::Ceil,
            Alu::Fract => AccOp::Fract,
            Alu::Sum3 => AccOp::Sum3,
            Alu::Sum4 => AccOp::Sum4,
            Alu::DdxRaw => AccOp::DFdx,
            Alu::DdyRaw => AccOp::DFdy,
            _ => return None,
        })
    }
    /// The combiner opcode, if the combiner executes it.
    pub const fn combine_op(self) -> Option<CombineOp> {
        Some(match self {
            Alu::Rcp => CombineOp::Rcp,
            Alu::Rsqrt => CombineOp::Rsqrt,
            Alu::Sqrt => CombineOp::Sqrt,
            Alu::Exp2 => CombineOp::Exp2,
            Alu::Log2 => CombineOp::Log2,
            Alu::Sin => CombineOp::Sin,
            Alu::Cos => CombineOp::Cos,
            _ => return None,
        })
    }
    /// Units able to run the op at `width` components (scalar units only for width 1; the
    /// combiner only for its scalar functions). Preferred first.
    pub fn units(self, width: u8) -> SmallVec<[UnitKind; 4]> {
        let mut u = SmallVec::new();
        if self.combine_op().is_some() {
            if width == 1 {
                u.push(UnitKind::Combine);
            }
            return u;
        }
        let scalar = width == 1 && !matches!(self, Alu::Sum3 | Alu::Sum4);
        if self.acc_op().is_some() && self.mul_op().is_some() {
            // Either kind: prefer the scalar units, then the vec4 ones.
            if scalar {
                u.push(UnitKind::SAdd);
                u.push(UnitKind::SMul);
            }
            u.push(UnitKind::VAdd);
            u.push(UnitKind::VMul);
        } else if self.acc_op().is_some() {
            if scalar {
                u.push(UnitKind::SAdd);
            }
            u.push(UnitKind::VAdd);
        } else if self.mul_op().is_some() {
            if scalar {
                u.push(UnitKind::SMul);
            }
            u.push(UnitKind::VMul);
        }
        u
    }
}

/// Unit alternatives of an op (each a set of units used together).
pub fn unit_options(op: &MOp) -> SmallVec<[SmallVec<[UnitKind; 3]>; 4]> {
    use UnitKind::*;
    match &op.kind {
        Kind::Alu(a @ (Alu::Sum3 | Alu::Sum4)) if op.srcs.len() == 2 => {
            let _ = a;
            smallvec![smallvec![VMul, VAdd]]
        }
        Kind::Alu(a) => a
            .units(op.width)
            .into_iter()
            .map(|u| smallvec![u])
            .collect(),
        Kind::Mad => {
            if op.width == 1 {
                smallvec![smallvec![SMul, SAdd], smallvec![VMul, VAdd]]
            } else {
                smallvec![smallvec![VMul, VAdd]]
            }
        }
        Kind::Select(_) => {
            if op.width == 1 {
                smallvec![smallvec![SMul, SAdd], smallvec![SMul, VAdd]]
            } else {
                smallvec![smallvec![SMul, VAdd]]
            }
        }
        Kind::ScaleVec => smallvec![smallvec![Combine]],
        Kind::Varying { .. } | Kind::Special(_) => smallvec![smallvec![Varying]],
        Kind::Texture { .. } => smallvec![
            smallvec![Varying, Sampler, VMul],
            smallvec![Varying, Sampler, VAdd]
        ],
        Kind::Spill { .. } => smallvec![smallvec![TempWrite]],
    }
}

/// Components of a register source read by `lanes` lanes of an op.
fn src_mask(s: &Src, lanes: usize) -> u8 {
    match s.op {
        Operand::Reg(_, swz) => swz[..lanes.clamp(1, 4)]
            .iter()
            .fold(0u8, |m, &c| m | (1 << (c & 3))),
        _ => 0,
    }
}

/// The register reads of source `s` (its register, and a uniform's index register).
fn src_operands(out: &mut Operands, s: &Src, slot: Slot, lanes: usize) {
    if let Operand::Reg(v, _) = s.op {
        use_at(out, v, src_mask(s, lanes), slot);
    }
    if let Operand::Uniform {
        offset: Some((v, c)),
        ..
    } = s.op
    {
        use_at(out, v, 1 << c, Slot::Stage(UnitKind::Uniform.stage()));
    }
}

impl MachOp for MOp {
    type Unit = UnitKind;

    fn operands(&self, out: &mut Operands) {
        let first = Slot::Unit(0);
        let second = Slot::Unit(1);
        let lanes = self.width as usize;
        match &self.kind {
            Kind::Alu(Alu::Sum3 | Alu::Sum4) if self.srcs.len() == 2 => {
                let n = if self.kind == Kind::Alu(Alu::Sum3) {
                    3
                } else {
                    4
                };
                for s in &self.srcs {
                    src_operands(out, s, first, n);
                }
            }
            Kind::Alu(Alu::Sum3) => src_operands(out, &self.srcs[0], first, 3),
            Kind::Alu(Alu::Sum4) => src_operands(out, &self.srcs[0], first, 4),
            Kind::Alu(_) | Kind::ScaleVec => {
                for s in &self.srcs {
                    src_operands(out, s, first, lanes);
                }
            }
            Kind::Mad => {
                for (i, s) in self.srcs.iter().enumerate() {
                    src_operands(out, s, if i < 2 { first } else { second }, lanes);
                }
            }
            Kind::Select(_) => {
                for (i, s) in self.srcs.iter().enumerate() {
                    if i < 2 {
                        src_operands(out, s, first, 1);
                    } else {
                        src_operands(out, s, second, lanes);
                    }
                }
            }
            Kind::Varying { .. } | Kind::Special(_) => {}
            Kind::Texture { coords, lod, .. } => {
                if let Coords::Reg(s) = coords {
                    src_operands(out, s, Slot::Stage(UnitKind::Varying.stage()), 4);
                }
                if let Some((v, c, _)) = lod {
                    use_at(out, *v, 1 << c, Slot::Stage(UnitKind::Sampler.stage()));
                }
            }
            Kind::Spill { .. } => {
                for s in &self.srcs {
                    src_operands(out, s, Slot::Stage(UnitKind::TempWrite.stage()), 1);
                }
            }
        }
        if let Some(v) = self.dst {
            def_at(out, v, self.dst_mask(), Slot::Last);
        }
    }

    /// Reloads read their temporary-stack slot; a spill stores its register's slot (four
    /// scalar slots per register).
    fn memory(&self, out: &mut SmallVec<[Memory; 2]>) {
        for s in &self.srcs {
            if let Operand::Temp { slot, .. } = s.op {
                out.push(Memory::Load(slot));
            }
        }
        if let Kind::Spill { slot } = self.kind {
            out.push(Memory::Store(slot / 4));
        }
    }

    fn removable(&self) -> bool {
        !matches!(self.kind, Kind::Spill { .. })
    }

    fn stage(slot: Slot, units: &[UnitKind]) -> u8 {
        const UNPLACED: u8 = UnitKind::VMul.stage();
        match slot {
            Slot::Unit(i) => units.get(usize::from(i)).map_or(UNPLACED, |u| u.stage()),
            Slot::Last => units.last().map_or(UNPLACED, |u| u.stage()),
            Slot::Stage(s) => s,
        }
    }
}
