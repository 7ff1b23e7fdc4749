//! The PP machine IR between lowering and encoding.
//!
//! A [`Program`] is a list of blocks in layout order; each block holds [`MOp`]s (one hardware
//! unit operation or a fixed group of them that must share an instruction, like a multiply
//! feeding an add through `^fmul`) on virtual registers, and a [`Terminator`]. The scheduler
//! ([`super::sched`]) packs the ops of a block into instructions ([`super::sched::Instr`]); the register
//! allocator ([`super::regalloc`]) gives every virtual register a place in `$0..$5`; the
//! emitter ([`super::emit`]) turns bundles into [`super::Instruction`]s.
//!
//! Values are virtual registers of 1–4 components. An op writes `width` components of its
//! destination starting at component `dst_comp` (so a vector can be built piecewise and an
//! output register filled by the ops computing it). Sources select components by a swizzle;
//! constants, uniforms, spill reloads and the texture result are *pipeline* operands that the
//! scheduler places in the instruction's constant fields, uniform unit or sampler.

use half::f16;
use irc_backend::regalloc::VReg;
use smallvec::SmallVec;

use super::isa::{AccOp, CombineOp, MulOp, OutMod, SamplerType};

/// The scheduler's unit classes (hardware units an op can occupy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnitKind {
    Varying,
    Sampler,
    Uniform,
    VMul,
    SMul,
    VAdd,
    SAdd,
    Combine,
    TempWrite,
    Branch,
}

impl UnitKind {
    pub const COUNT: usize = 10;
    /// Pipeline stage (units of one stage run in parallel; later stages see earlier results
    /// only through pipeline registers).
    pub const fn stage(self) -> u8 {
        match self {
            UnitKind::Varying => 0,
            UnitKind::Sampler => 1,
            UnitKind::Uniform => 2,
            UnitKind::VMul | UnitKind::SMul => 3,
            UnitKind::VAdd | UnitKind::SAdd => 4,
            UnitKind::Combine | UnitKind::Branch => 5,
            UnitKind::TempWrite => 6,
        }
    }
    pub const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A pipeline or register operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Operand {
    /// Components `swz[i]` of a virtual register.
    Reg(VReg, [u8; 4]),
    /// fp16 constant per component.
    Const([f16; 4]),
    /// Components `swz[i]` of uniform slot `slot` (+ the integer value of `offset`'s
    /// component when indexed dynamically).
    Uniform {
        slot: u32,
        swz: [u8; 4],
        offset: Option<(VReg, u8)>,
    },
    /// Reload of a spilled register: temporary-stack slot `slot`, components `swz[i]` of the
    /// value `of` (stored as the whole vec4 register `of` lived in).
    Temp { slot: u32, of: VReg, swz: [u8; 4] },
    /// `^texture` components (only inside a [`Kind::Texture`] group).
    Texture([u8; 4]),
}

impl Operand {
    pub fn reg(v: VReg, comp: u8) -> Operand {
        Operand::Reg(v, [comp; 4])
    }
    pub fn vreg(&self) -> Option<VReg> {
        match self {
            Operand::Reg(v, _) => Some(*v),
            _ => None,
        }
    }
}

/// A source: operand with input modifiers (abs first, then negate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Src {
    pub op: Operand,
    pub abs: bool,
    pub neg: bool,
}

impl Src {
    pub fn new(op: Operand) -> Src {
        Src {
            op,
            abs: false,
            neg: false,
        }
    }
    pub fn negated(mut self) -> Src {
        self.neg = !self.neg;
        self
    }
    pub fn absolute(mut self) -> Src {
        self.abs = true;
        self.neg = false;
        self
    }
}

/// A one-unit ALU operation (the unit is chosen by the scheduler among [`Alu::units`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Alu {
    Mov,
    Mul,
    Add,
    Min,
    Max,
    Gt,
    Ge,
    Eq,
    Ne,
    Not,
    And,
    Or,
    Floor,
    Ceil,
    Fract,
    Sum3,
    Sum4,
    /// `arg0 (right/bottom lane) + arg1 (left/top lane)`: sources carry Mesa's negations.
    DdxRaw,
    DdyRaw,
    Rcp,
    Rsqrt,
    Sqrt,
    Exp2,
    Log2,
    /// Argument in turns (the caller scales by 1/2π).
    Sin,
    Cos,
}

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

/// Where texture coordinates come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Coords {
    /// Straight from varying slot `slot` (keeps the sampler path's extra precision).
    Varying { slot: u32, components: u8 },
    /// From a register value.
    Reg(Src),
}

/// What an op does.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// One ALU op: `dst = alu(srcs)`.
    Alu(Alu),
    /// `dst = srcs[0] · srcs[1] + srcs[2]` in a mul unit feeding the add unit of the same
    /// instruction (`^vmul` / `^fmul`).
    Mad,
    /// `dst = cond(srcs[0], srcs[1]) ? srcs[2] : srcs[3]`: the condition computed in the
    /// scalar mul unit (`^fmul`), the select in an add unit.
    Select(MulOp),
    /// `dst = combiner scalar srcs[0] × vec4 srcs[1]`.
    ScaleVec,
    /// Varying slot load (`alignment` 0 scalar, 1 vec2, 3 vec4; `index` in those units).
    Varying {
        alignment: u8,
        index: u32,
        perspective: u8,
    },
    /// gl_FragCoord / gl_FrontFacing / gl_PointCoord.
    Special(super::isa::VaryingKind),
    /// Texture fetch into `dst` (varying unit → `^discard` → sampler → mov `^texture`).
    Texture {
        sampler: u32,
        ty: SamplerType,
        coords: Coords,
        /// Register holding the LOD (explicit) or bias.
        lod: Option<(VReg, u8, bool)>,
        swz: [u8; 4],
    },
    /// Store the whole vec4 register holding `srcs[0]`'s value to temporary slot `slot`.
    Spill { slot: u32 },
}

/// One machine op (before unit assignment).
#[derive(Debug, Clone, PartialEq)]
pub struct MOp {
    pub kind: Kind,
    /// Destination value, first component written, number of components.
    pub dst: Option<VReg>,
    pub dst_comp: u8,
    pub width: u8,
    pub srcs: SmallVec<[Src; 4]>,
    pub modifier: OutMod,
}

impl MOp {
    pub fn alu(alu: Alu, dst: VReg, dst_comp: u8, width: u8, srcs: &[Src]) -> MOp {
        MOp {
            kind: Kind::Alu(alu),
            dst: Some(dst),
            dst_comp,
            width,
            srcs: srcs.iter().copied().collect(),
            modifier: OutMod::None,
        }
    }
    /// Register values read.
    pub fn reads(&self) -> impl Iterator<Item = VReg> + '_ {
        let lod = match &self.kind {
            Kind::Texture {
                lod: Some((v, _, _)),
                ..
            } => Some(*v),
            _ => None,
        };
        let coords = match &self.kind {
            Kind::Texture {
                coords: Coords::Reg(s),
                ..
            } => s.op.vreg(),
            _ => None,
        };
        self.srcs
            .iter()
            .flat_map(|s| {
                let off = match s.op {
                    Operand::Uniform {
                        offset: Some((v, _)),
                        ..
                    } => Some(v),
                    _ => None,
                };
                [s.op.vreg(), off]
            })
            .flatten()
            .chain(lod)
            .chain(coords)
    }
    /// Component mask written in the destination.
    pub fn dst_mask(&self) -> u8 {
        (((1u16 << self.width) - 1) << self.dst_comp) as u8
    }
}

/// How a block ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Terminator {
    /// Continue with block `0`.
    Jump(usize),
    /// If `cond` (a scalar register component, 1.0/0.0) is non-zero go to `then`, else `els`.
    Branch {
        cond: (VReg, u8),
        then: usize,
        els: usize,
    },
    /// End of the program: outputs are read here; when `kill` is set, lanes whose flag
    /// component is non-zero are discarded.
    Exit { kill: Option<(VReg, u8)> },
    /// Unconditional discard.
    Discard,
}

/// A block of machine ops.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub ops: Vec<MOp>,
    pub term: Terminator,
    /// Loop nesting depth (for spill costs).
    pub depth: u32,
}

/// Size and placement constraint of a virtual register.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VRegData {
    pub size: u8,
    /// Must start at lane x (loads/stores/outputs without swizzle).
    pub lane0: bool,
    /// A spill reload: never spilled again.
    pub no_spill: bool,
}

/// A lowered program.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Program {
    pub blocks: Vec<Block>,
    pub vregs: Vec<VRegData>,
    /// Output registers: (source, value, components) — read at every [`Terminator::Exit`].
    pub outputs: Vec<(irc_backend::IoSource, VReg, u8)>,
    /// Temporary-stack slots used by spills.
    pub spill_slots: u32,
}

impl Program {
    pub fn new_vreg(&mut self, size: u8, lane0: bool) -> VReg {
        self.vregs.push(VRegData {
            size,
            lane0,
            no_spill: false,
        });
        VReg(self.vregs.len() as u32 - 1)
    }
    /// A register holding a spill reload.
    pub fn new_vreg_nospill(&mut self, size: u8) -> VReg {
        self.vregs.push(VRegData {
            size,
            lane0: false,
            no_spill: true,
        });
        VReg(self.vregs.len() as u32 - 1)
    }
    /// Successor blocks of every block.
    pub fn succs(&self) -> Vec<Vec<usize>> {
        self.blocks
            .iter()
            .map(|b| match &b.term {
                Terminator::Jump(t) => vec![*t],
                Terminator::Branch { then, els, .. } => vec![*then, *els],
                Terminator::Exit { .. } | Terminator::Discard => vec![],
            })
            .collect()
    }
}

/// The single uniform/temporary load of an instruction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UniformUse {
    Uniform {
        slot: u32,
        offset: Option<(VReg, u8)>,
    },
    Temp {
        slot: u32,
    },
}
