//! The machine ops `pica-vs` lowers to: PICA200 instructions on virtual vec4 registers.
//!
//! An operand names a register (a virtual register, an input `v`, a float uniform `c` or a
//! compiler constant from the literal pool) with a selector per *position* and a negation. For
//! a *component-wise* op (ADD, MUL, MAD, MAX, MIN, SGE, SLT, FLR, MOV) position `i` feeds
//! result component `i`, and the emitter shifts positions by the lane the destination gets;
//! for DP3/DP4/DPH and the scalar ops (RCP, RSQ, EX2, LG2) positions are the hardware's own.

use irc_backend::regalloc::VReg;
use smallvec::SmallVec;

use crate::isa::Opcode;

/// What an operand reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reg {
    /// A virtual register; the selector picks its components.
    V(VReg),
    /// Input register `v<n>`; the selector picks lanes.
    In(u8),
    /// Float uniform `c<n>` of the application.
    Uni(u8),
    /// Entry `k` of the literal pool (a DEF uniform placed after the application's).
    Lit(u16),
    /// Float uniform `c[n + a0.x]` (relative addressing, §7): `n` as in [`Reg::Uni`].
    UniRel(u8),
}

impl Reg {
    /// Float uniforms (application or literal) only fit the wide source slot.
    pub fn is_uniform(self) -> bool {
        matches!(self, Reg::Uni(_) | Reg::Lit(_) | Reg::UniRel(_))
    }
}

/// A source operand: register, per-position selector, negation; `n` positions are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand {
    pub reg: Reg,
    pub swz: [u8; 4],
    pub neg: bool,
    pub n: u8,
}

impl Operand {
    /// The components (lanes) of the register this operand reads.
    pub fn read_mask(&self) -> u8 {
        self.swz[..self.n as usize]
            .iter()
            .fold(0, |m, &c| m | (1 << c))
    }
}

/// Where an op writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dst {
    /// Components `mask` (bit i = component i) of a virtual register.
    V(VReg, u8),
    /// Lanes `mask` (bit i = lane i) of output register `o<n>`.
    Out(u8, u8),
    /// The address register `a0` (MOVA): bit 0 = a0.x, bit 1 = a0.y.
    A0(u8),
    /// Geometry shaders: `SETEMIT` with these flags, then `EMIT` (an op without sources).
    Emit(EmitFlags),
}

/// The operands of `SETEMIT` (§4 format 4): the vertex slot (0–2) the next `EMIT` fills, whether
/// that `EMIT` also emits the triangle of slots 0, 1, 2, and whether its winding is inverted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmitFlags {
    pub vertex: u8,
    pub primitive: bool,
    pub winding: bool,
}

/// One machine op (one instruction).
#[derive(Debug, Clone, PartialEq)]
pub struct MOp {
    /// The hardware opcode, inverted forms (SGEI, SLTI, MADI) included.
    pub op: Opcode,
    pub dst: Dst,
    pub srcs: SmallVec<[Operand; 3]>,
}

impl MOp {
    /// Whether positions follow the destination's components (see the module doc).
    pub fn componentwise(&self) -> bool {
        !matches!(
            self.op,
            Opcode::Dp3
                | Opcode::Dp4
                | Opcode::Dph
                | Opcode::Dphi
                | Opcode::Rcp
                | Opcode::Rsq
                | Opcode::Ex2
                | Opcode::Lg2
        )
    }
}

/// A straight-line program and its virtual registers (sizes in components).
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub ops: Vec<MOp>,
    pub vregs: Vec<u8>,
}

impl Program {
    pub fn new_vreg(&mut self, size: u8) -> VReg {
        self.vregs.push(size);
        VReg(self.vregs.len() as u32 - 1)
    }
}
