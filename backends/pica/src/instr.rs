//! The structured PICA200 instruction: what the encoder consumes, the decoder produces, the
//! disassembler prints, the assembler builds and the simulator runs.
//!
//! An [`Instr`] holds its operands *inline* (register, swizzle, negation, destination mask); the
//! operand descriptor it will use is chosen by the encoder ([`crate::encode`]), which de-duplicates
//! descriptors the way picasso does. Descriptor bits an instruction does not read
//! ([`crate::isa::opdesc_care_mask`]) are not represented here.

use crate::isa::{AddrIndex, CmpOp, CondOp, Opcode};

/// A source selector (§5): bits 7:6 pick the source component feeding result x, 5:4 y, 3:2 z,
/// 1:0 w (0 = x … 3 = w).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle(pub u8);

impl Swizzle {
    /// `.xyzw`.
    pub const IDENTITY: Swizzle = Swizzle(0x1B);

    /// The swizzle selecting `comps[n]` for result component `n`.
    pub fn new(comps: [u8; 4]) -> Swizzle {
        Swizzle(
            comps
                .iter()
                .enumerate()
                .fold(0, |s, (n, &c)| s | ((c & 3) << (6 - 2 * n))),
        )
    }

    /// `.xxxx` style broadcast of one component.
    pub fn splat(c: u8) -> Swizzle {
        Swizzle::new([c; 4])
    }

    /// Source component feeding result component `n` (0..4).
    pub fn comp(self, n: usize) -> usize {
        ((self.0 >> (6 - 2 * n)) & 3) as usize
    }

    /// The four selected components.
    pub fn comps(self) -> [usize; 4] {
        [self.comp(0), self.comp(1), self.comp(2), self.comp(3)]
    }
}

/// A destination mask in operand-descriptor order: bit 3 = x, bit 2 = y, bit 1 = z, bit 0 = w.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mask(pub u8);

impl Mask {
    pub const XYZW: Mask = Mask(0xF);
    /// Mask enabling component `n` (0 = x).
    pub fn comp(n: usize) -> Mask {
        Mask(8 >> n)
    }
    /// Whether component `n` (0 = x) is written.
    pub fn has(self, n: usize) -> bool {
        self.0 & (8 >> n) != 0
    }
}

/// A source register (7-bit source encoding, §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SrcReg {
    /// v0–v15
    Input(u8),
    /// r0–r15
    Temp(u8),
    /// c0–c95 (only in the wide source slot)
    Const(u8),
}

impl SrcReg {
    /// The 7-bit encoding (0x00–0x7F).
    pub fn bits(self) -> u8 {
        match self {
            SrcReg::Input(n) => n & 0xF,
            SrcReg::Temp(n) => 0x10 | (n & 0xF),
            SrcReg::Const(n) => 0x20 + n.min(95),
        }
    }
    /// Decodes a 7-bit (or 5-bit) source field.
    pub fn from_bits(b: u8) -> SrcReg {
        match b & 0x7F {
            b @ 0x00..=0x0F => SrcReg::Input(b),
            b @ 0x10..=0x1F => SrcReg::Temp(b - 0x10),
            b => SrcReg::Const(b - 0x20),
        }
    }
    /// Whether the register can be encoded in a narrow (5-bit) source field.
    pub fn is_narrow(self) -> bool {
        !matches!(self, SrcReg::Const(_))
    }
}

/// A destination register (5-bit destination encoding, §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DstReg {
    /// o0–o15
    Output(u8),
    /// r0–r15
    Temp(u8),
}

impl DstReg {
    pub fn bits(self) -> u8 {
        match self {
            DstReg::Output(n) => n & 0xF,
            DstReg::Temp(n) => 0x10 | (n & 0xF),
        }
    }
    pub fn from_bits(b: u8) -> DstReg {
        if b & 0x10 != 0 {
            DstReg::Temp(b & 0xF)
        } else {
            DstReg::Output(b & 0xF)
        }
    }
}

/// A source operand: register, swizzle and negation (the only source modifier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Src {
    pub reg: SrcReg,
    pub swizzle: Swizzle,
    pub negate: bool,
}

impl Src {
    /// `reg.xyzw`, not negated.
    pub fn new(reg: SrcReg) -> Src {
        Src {
            reg,
            swizzle: Swizzle::IDENTITY,
            negate: false,
        }
    }
    pub fn swz(self, swizzle: Swizzle) -> Src {
        Src { swizzle, ..self }
    }
    pub fn negated(self) -> Src {
        Src {
            negate: !self.negate,
            ..self
        }
    }
    /// The 9-bit descriptor source field (negate | selector << 1).
    pub fn desc_bits(self) -> u32 {
        self.negate as u32 | (self.swizzle.0 as u32) << 1
    }
}

/// A destination: register and write mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dst {
    pub reg: DstReg,
    pub mask: Mask,
}

impl Dst {
    pub fn new(reg: DstReg, mask: Mask) -> Dst {
        Dst { reg, mask }
    }
}

/// A format-2 condition on the cmp flags (§8). picasso writes REFX = REFY = 1 and flips the
/// reference of a negated flag; the unused reference of a one-flag condition stays 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cond {
    pub op: CondOp,
    pub refx: bool,
    pub refy: bool,
}

impl Cond {
    /// `cmp.x` (or `!cmp.x`).
    pub fn x(value: bool) -> Cond {
        Cond {
            op: CondOp::X,
            refx: value,
            refy: true,
        }
    }
    /// `cmp.y` (or `!cmp.y`).
    pub fn y(value: bool) -> Cond {
        Cond {
            op: CondOp::Y,
            refx: true,
            refy: value,
        }
    }
    /// Evaluates the condition on the flags.
    pub fn eval(self, cmp: [bool; 2]) -> bool {
        let x = cmp[0] == self.refx;
        let y = cmp[1] == self.refy;
        match self.op {
            CondOp::Or => x || y,
            CondOp::And => x && y,
            CondOp::X => x,
            CondOp::Y => y,
        }
    }
}

/// One PICA200 instruction (one 32-bit word).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Instr {
    /// NOP, END, EMIT, BREAK (format 0).
    Plain(Opcode),
    /// Formats 1 and 1i: ADD DP3 DP4 DPH DST MUL SGE SLT MAX MIN and the inverted DPHI DSTI SGEI
    /// SLTI. `index` applies to the wide source (SRC1 for format 1, SRC2 for format 1i).
    Binary {
        op: Opcode,
        dst: Dst,
        src1: Src,
        src2: Src,
        index: AddrIndex,
    },
    /// Format 1u except MOVA: EX2 LG2 LITP FLR RCP RSQ MOV.
    Unary {
        op: Opcode,
        dst: Dst,
        src: Src,
        index: AddrIndex,
    },
    /// MOVA: `mask` x → a0.x, y → a0.y (the DST field is 0).
    Mova {
        mask: Mask,
        src: Src,
        index: AddrIndex,
    },
    /// CMP: cmp.x = src1.x `x` src2.x, cmp.y = src1.y `y` src2.y.
    Cmp {
        src1: Src,
        x: CmpOp,
        y: CmpOp,
        src2: Src,
        index: AddrIndex,
    },
    /// MAD (SRC2 wide) or, when `inverted`, MADI (SRC3 wide); `index` applies to the wide one.
    Mad {
        inverted: bool,
        dst: Dst,
        src1: Src,
        src2: Src,
        src3: Src,
        index: AddrIndex,
    },
    /// SETEMIT vertex id, primitive flag, winding (invert) flag.
    SetEmit {
        vertex: u8,
        primitive: bool,
        winding: bool,
    },
    /// Format 2: BREAKC CALL CALLC IFC JMPC. `dst` is an absolute word address; `num` is the
    /// call length / else length. CALL ignores the condition (kept for a faithful round trip).
    CondFlow {
        op: Opcode,
        cond: Cond,
        dst: u16,
        num: u8,
    },
    /// Format 3: CALLU IFU LOOP JMPU. `id` is the bool uniform (int uniform for LOOP); JMPU's
    /// `num` bit 0 inverts the test.
    UniformFlow {
        op: Opcode,
        id: u8,
        dst: u16,
        num: u8,
    },
}

impl Instr {
    pub const NOP: Instr = Instr::Plain(Opcode::Nop);
    pub const END: Instr = Instr::Plain(Opcode::End);

    /// The hardware opcode (MAD/MADI distinguished).
    pub fn opcode(&self) -> Opcode {
        match *self {
            Instr::Plain(op)
            | Instr::Binary { op, .. }
            | Instr::Unary { op, .. }
            | Instr::CondFlow { op, .. }
            | Instr::UniformFlow { op, .. } => op,
            Instr::Mova { .. } => Opcode::Mova,
            Instr::Cmp { .. } => Opcode::Cmp,
            Instr::Mad { inverted, .. } => {
                if inverted {
                    Opcode::Madi
                } else {
                    Opcode::Mad
                }
            }
            Instr::SetEmit { .. } => Opcode::SetEmit,
        }
    }

    /// The operand-descriptor value this instruction needs (don't-care bits 0, as picasso
    /// builds it), or `None` for instructions without a descriptor.
    pub fn opdesc(&self) -> Option<u32> {
        let d = |dst: &Dst| dst.mask.0 as u32 & 0xF;
        match self {
            Instr::Binary {
                dst, src1, src2, ..
            } => Some(d(dst) | src1.desc_bits() << 4 | src2.desc_bits() << 13),
            Instr::Unary { dst, src, .. } => Some(d(dst) | src.desc_bits() << 4),
            Instr::Mova { mask, src, .. } => Some((mask.0 as u32 & 0xF) | src.desc_bits() << 4),
            Instr::Cmp { src1, src2, .. } => Some(src1.desc_bits() << 4 | src2.desc_bits() << 13),
            Instr::Mad {
                dst,
                src1,
                src2,
                src3,
                ..
            } => Some(
                d(dst) | src1.desc_bits() << 4 | src2.desc_bits() << 13 | src3.desc_bits() << 22,
            ),
            _ => None,
        }
    }

    /// The temporary the instruction writes (MOVA writes `a0`, CMP the flags: none).
    pub fn written_temp(&self) -> Option<u8> {
        match *self {
            Instr::Binary { dst, .. } | Instr::Unary { dst, .. } | Instr::Mad { dst, .. } => {
                match dst.reg {
                    DstReg::Temp(n) => Some(n),
                    DstReg::Output(_) => None,
                }
            }
            _ => None,
        }
    }

    /// The flow-control target address, if the instruction has one.
    pub fn target(&self) -> Option<u16> {
        match *self {
            Instr::CondFlow { op, dst, .. } if op != Opcode::Breakc => Some(dst),
            Instr::UniformFlow { dst, .. } => Some(dst),
            _ => None,
        }
    }
}
