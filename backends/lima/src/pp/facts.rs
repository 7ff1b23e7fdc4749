//! Everything the compiler knows about one PP machine op, in one place: which units can run it
//! ([`Alu::units`], [`unit_options`]), which unit opcode encodes it (the [`Alu::facts`] table),
//! which constant fields and uniform load it needs ([`const_groups`], [`uniform_need`]), and
//! which register components it reads and writes at which pipeline stage
//! ([`MachOp::operands`], per source from [`src_read`]) — the single description that
//! liveness, dead-write removal, the scheduler's dependence graph, the allocator and its
//! checker read.
//!
//! Stages follow the units an op is placed on: an ALU op's sources are read by its first
//! unit; a `Mad`'s addend and a `Select`'s alternatives by its second (the add unit), its
//! condition and factors by the first (the mul unit); the destination is written by the last.
//! Fixed stages: a uniform index register is read by the uniform unit, texture coordinates by
//! the varying unit, the LOD by the sampler, a spill's value by the temp-write unit. Before
//! scheduling every unit slot reads as the mul stage (3), so an op reads before it writes.

use half::f16;
use irc_backend::machine::{def_at, use_at, MachOp, Memory, Operands, Slot};
use smallvec::{smallvec, SmallVec};

use super::isa::{AccOp, CombineOp, MulOp};
use super::mir::{Alu, Coords, Kind, MOp, Operand, Src, UniformUse, UnitKind};

/// The facts of one ALU op: a row of [`Alu::facts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AluFacts {
    /// Number of sources.
    pub srcs: usize,
    /// Opcode in the multiply units, if they run it.
    pub mul: Option<MulOp>,
    /// Opcode in the add units, if they run it.
    pub acc: Option<AccOp>,
    /// Opcode in the combiner (scalar only), if it runs it.
    pub combine: Option<CombineOp>,
}

const fn row(
    srcs: usize,
    mul: Option<MulOp>,
    acc: Option<AccOp>,
    combine: Option<CombineOp>,
) -> AluFacts {
    AluFacts {
        srcs,
        mul,
        acc,
        combine,
    }
}

impl Alu {
    /// The table: sources and the opcode of every unit class that can run the op.
    pub const fn facts(self) -> AluFacts {
        use AccOp as A;
        use CombineOp as C;
        use MulOp as M;
        match self {
            Alu::Mov => row(1, Some(M::Mov), Some(A::Mov), None),
            Alu::Mul => row(2, Some(M::Mul), None, None),
            Alu::Add => row(2, None, Some(A::Add), None),
            Alu::Min => row(2, Some(M::Min), Some(A::Min), None),
            Alu::Max => row(2, Some(M::Max), Some(A::Max), None),
            Alu::Gt => row(2, Some(M::Gt), Some(A::Gt), None),
            Alu::Ge => row(2, Some(M::Ge), Some(A::Ge), None),
            Alu::Eq => row(2, Some(M::Eq), Some(A::Eq), None),
            Alu::Ne => row(2, Some(M::Ne), Some(A::Ne), None),
            Alu::Not => row(1, Some(M::Not), None, None),
            Alu::And => row(2, Some(M::And), None, None),
            Alu::Or => row(2, Some(M::Or), None, None),
            Alu::Floor => row(1, None, Some(A::Floor), None),
            Alu::Ceil => row(1, None, Some(A::Ceil), None),
            Alu::Fract => row(1, None, Some(A::Fract), None),
            Alu::Sum3 => row(1, None, Some(A::Sum3), None),
            Alu::Sum4 => row(1, None, Some(A::Sum4), None),
            Alu::DdxRaw => row(2, None, Some(A::DFdx), None),
            Alu::DdyRaw => row(2, None, Some(A::DFdy), None),
            Alu::Rcp => row(1, None, None, Some(C::Rcp)),
            Alu::Rsqrt => row(1, None, None, Some(C::Rsqrt)),
            Alu::Sqrt => row(1, None, None, Some(C::Sqrt)),
            Alu::Exp2 => row(1, None, None, Some(C::Exp2)),
            Alu::Log2 => row(1, None, None, Some(C::Log2)),
            Alu::Sin => row(1, None, None, Some(C::Sin)),
            Alu::Cos => row(1, None, None, Some(C::Cos)),
        }
    }
    /// Number of sources.
    pub const fn srcs(self) -> usize {
        self.facts().srcs
    }
    /// The multiply-unit opcode, if the mul units can execute it.
    pub const fn mul_op(self) -> Option<MulOp> {
        self.facts().mul
    }
    /// The add-unit opcode, if the add units can execute it.
    pub const fn acc_op(self) -> Option<AccOp> {
        self.facts().acc
    }
    /// The combiner opcode, if the combiner executes it.
    pub const fn combine_op(self) -> Option<CombineOp> {
        self.facts().combine
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
        Kind::Mad | Kind::Clamp | Kind::CompareEq(_) => {
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
        // A fused reader on the vector units only (they read `^texture`).
        Kind::Texture {
            reader: Some(_), ..
        } => op
            .texture_reader()
            .map(|r| unit_options(&r))
            .unwrap_or_default()
            .into_iter()
            .filter(|units| units.iter().all(|u| matches!(u, VMul | VAdd)))
            .map(|units| [Varying, Sampler].into_iter().chain(units).collect())
            .collect(),
        Kind::Texture { .. } => smallvec![
            smallvec![Varying, Sampler, VMul],
            smallvec![Varying, Sampler, VAdd]
        ],
        Kind::Spill { .. } => smallvec![smallvec![TempWrite]],
    }
}

/// Where source `i` of `op` is read (which unit of the placement, or a fixed stage) and how
/// many of its lanes: the one per-source table behind both the register operands
/// ([`MachOp::operands`]) and the constant-field needs ([`const_groups`]).
pub fn src_read(op: &MOp, i: usize) -> (Slot, usize) {
    let width = usize::from(op.width);
    let (first, second) = (Slot::Unit(0), Slot::Unit(1));
    match &op.kind {
        Kind::Alu(Alu::Sum3) => (first, 3),
        Kind::Alu(Alu::Sum4) => (first, 4),
        Kind::Alu(_) | Kind::ScaleVec => (first, width),
        // Factors (clamp: the value and its lower bound; a compare-eq: the comparison's
        // operands) in the mul unit, the addend (the upper bound; what the comparison's result
        // is compared with) in the add unit.
        Kind::Mad | Kind::Clamp | Kind::CompareEq(_) => (if i < 2 { first } else { second }, width),
        // The scalar condition in the mul unit, the alternatives in the add unit.
        Kind::Select(_) => {
            if i < 2 {
                (first, 1)
            } else {
                (second, width)
            }
        }
        Kind::Spill { .. } => (Slot::Stage(UnitKind::TempWrite.stage()), width),
        // A fused reader's sources, as the reader alone reads them, after the varying and
        // sampler units.
        Kind::Texture {
            reader: Some(_), ..
        } => match op.texture_reader().map(|r| src_read(&r, i)) {
            Some((Slot::Unit(u), lanes)) => (Slot::Unit(u + 2), lanes),
            Some(read) => read,
            None => (first, width),
        },
        // No sources: their inputs are the varying, sampler and LOD fields.
        Kind::Varying { .. } | Kind::Special(_) | Kind::Texture { .. } => (first, width),
    }
}

/// Constant scalars an op reads, per constant source (the lanes it actually uses, distinct).
pub fn const_groups(op: &MOp) -> SmallVec<[SmallVec<[f16; 4]>; 4]> {
    let mut out = SmallVec::new();
    for (i, s) in op.srcs.iter().enumerate() {
        if let Operand::Const(k) = s.op {
            let n = src_read(op, i).1.max(1);
            let mut g: SmallVec<[f16; 4]> = SmallVec::new();
            for h in &k[..n.min(4)] {
                if !g.iter().any(|x| x.to_bits() == h.to_bits()) {
                    g.push(*h);
                }
            }
            out.push(g);
        }
    }
    out
}

/// The uniform or temporary-stack load an op reads through `^uniform`, if any.
pub fn uniform_need(op: &MOp) -> Option<UniformUse> {
    op.srcs.iter().find_map(|s| match s.op {
        Operand::Uniform { slot, offset, .. } => Some(UniformUse::Uniform { slot, offset }),
        Operand::Temp { slot, .. } => Some(UniformUse::Temp { slot }),
        _ => None,
    })
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
        match &self.kind {
            Kind::Alu(_)
            | Kind::ScaleVec
            | Kind::Mad
            | Kind::Clamp
            | Kind::CompareEq(_)
            | Kind::Select(_)
            | Kind::Spill { .. } => {
                for (i, s) in self.srcs.iter().enumerate() {
                    let (slot, lanes) = src_read(self, i);
                    src_operands(out, s, slot, lanes);
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
                for (i, s) in self.srcs.iter().enumerate() {
                    let (slot, lanes) = src_read(self, i);
                    src_operands(out, s, slot, lanes);
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

#[cfg(test)]
mod tests {
    use super::*;
    use irc_backend::regalloc::VReg;

    const ALL: [Alu; 26] = [
        Alu::Mov,
        Alu::Mul,
        Alu::Add,
        Alu::Min,
        Alu::Max,
        Alu::Gt,
        Alu::Ge,
        Alu::Eq,
        Alu::Ne,
        Alu::Not,
        Alu::And,
        Alu::Or,
        Alu::Floor,
        Alu::Ceil,
        Alu::Fract,
        Alu::Sum3,
        Alu::Sum4,
        Alu::DdxRaw,
        Alu::DdyRaw,
        Alu::Rcp,
        Alu::Rsqrt,
        Alu::Sqrt,
        Alu::Exp2,
        Alu::Log2,
        Alu::Sin,
        Alu::Cos,
    ];

    /// Every ALU op runs somewhere as a scalar, and its unit opcodes read as many sources as
    /// the op has.
    #[test]
    fn alu_table_is_consistent() {
        for a in ALL {
            assert!(!a.units(1).is_empty(), "{a:?}");
            let f = a.facts();
            if let Some(m) = f.mul {
                assert_eq!(m.num_srcs() as usize, f.srcs, "{a:?} in the mul units");
            }
            if let Some(c) = f.acc {
                assert_eq!(c.num_srcs() as usize, f.srcs, "{a:?} in the add units");
            }
            assert_eq!(
                f.combine.is_some(),
                a.units(1).as_slice() == [UnitKind::Combine],
                "{a:?}"
            );
        }
    }

    /// A multiply-add reads its factors in the mul unit and its addend in the add unit,
    /// writes in the add unit; unplaced, everything is at the mul stage.
    #[test]
    fn operands_follow_the_placement() {
        let s = |v: u32, c: u8| Src::new(Operand::reg(VReg(v), c));
        let mut op = MOp::alu(Alu::Add, VReg(3), 1, 2, &[s(0, 0), s(1, 2), s(2, 1)]);
        op.kind = Kind::Mad;
        let mut pt = irc_backend::regalloc::Point::default();
        irc_backend::machine::point(&op, &[UnitKind::VMul, UnitKind::VAdd], &mut pt);
        let uses: Vec<(u32, u8, u8)> = pt
            .uses
            .iter()
            .map(|a| (a.vreg.0, a.stage, a.mask))
            .collect();
        assert_eq!(uses, [(0, 3, 0b1), (1, 3, 0b100), (2, 4, 0b10)]);
        assert_eq!(
            (pt.defs[0].vreg, pt.defs[0].stage, pt.defs[0].mask),
            (VReg(3), 4, 0b110)
        );
        let mut unplaced = irc_backend::regalloc::Point::default();
        irc_backend::machine::point(&op, &[], &mut unplaced);
        assert!(unplaced
            .uses
            .iter()
            .chain(&unplaced.defs)
            .all(|a| a.stage == 3));
    }
}
