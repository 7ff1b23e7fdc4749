//! The structured form of an AGAL program, as produced by [`crate::decode`] and consumed by
//! [`crate::encode`].
//!
//! Every token has all four fields; fields an opcode does not use are the all-zero
//! [`Dest::NONE`] / [`Source::NONE`] / [`Src2::Source`]`(Source::NONE)` (the decoder rejects
//! anything else, the encoder writes them as zero bytes). Field values are kept exactly as
//! encoded, so `encode(decode(bytes)) == bytes` for every decodable program.

use crate::isa::{
    swizzle, Dimension, Filter, Mipmap, Opcode, RegType, ShaderKind, TexFormat, Wrap,
};

/// A whole program: header values and tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// AGAL version (header bytes 1–4).
    pub version: u32,
    pub kind: ShaderKind,
    pub instructions: Vec<Instruction>,
}

/// One token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction {
    pub op: Opcode,
    pub dest: Dest,
    pub src1: Source,
    pub src2: Src2,
}

/// A destination operand (§4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dest {
    pub ty: RegType,
    pub reg: u16,
    /// Write mask, x = 1 … w = 8.
    pub mask: u8,
}

/// Indirect addressing of a source: the register read is `offset` + the value of lane
/// `select` of `index_type` register `Source::reg` (§4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Indirect {
    pub index_type: RegType,
    /// Lane of the index register, 0 x … 3 w.
    pub select: u8,
    pub offset: u8,
}

/// A source operand (§4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Source {
    pub ty: RegType,
    /// Register number (with `indirect`: the index register's number).
    pub reg: u16,
    pub swizzle: u8,
    pub indirect: Option<Indirect>,
}

/// A sampler operand (§4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Sampler {
    pub reg: u16,
    /// LOD bias in eighths (−1.5 = −12).
    pub lod_bias: i8,
    pub format: TexFormat,
    pub dimension: Dimension,
    /// [`crate::isa::special`] flags.
    pub special: u8,
    pub wrap: Wrap,
    pub mipmap: Mipmap,
    pub filter: Filter,
}

/// Source 2: a register or, for texture opcodes, a sampler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Src2 {
    Source(Source),
    Sampler(Sampler),
}

impl Dest {
    /// The all-zero field of opcodes without a destination.
    pub const NONE: Dest = Dest {
        ty: RegType::Attribute,
        reg: 0,
        mask: 0,
    };
    /// A destination with all four lanes.
    pub const fn new(ty: RegType, reg: u16) -> Dest {
        Dest { ty, reg, mask: 0xF }
    }
    /// The same destination with `mask`.
    pub const fn masked(self, mask: u8) -> Dest {
        Dest { mask, ..self }
    }
}

impl Source {
    /// The all-zero field of unused operands.
    pub const NONE: Source = Source {
        ty: RegType::Attribute,
        reg: 0,
        swizzle: 0,
        indirect: None,
    };
    /// A direct source with the identity swizzle.
    pub const fn new(ty: RegType, reg: u16) -> Source {
        Source {
            ty,
            reg,
            swizzle: swizzle::IDENTITY,
            indirect: None,
        }
    }
    /// The same source with `swizzle`.
    pub const fn swz(self, swizzle: u8) -> Source {
        Source { swizzle, ..self }
    }
}

impl Src2 {
    /// The unused source 2.
    pub const NONE: Src2 = Src2::Source(Source::NONE);
    /// The register source, if it is one.
    pub const fn source(&self) -> Option<&Source> {
        match self {
            Src2::Source(s) => Some(s),
            Src2::Sampler(_) => None,
        }
    }
    /// The sampler, if it is one.
    pub const fn sampler(&self) -> Option<&Sampler> {
        match self {
            Src2::Sampler(s) => Some(s),
            Src2::Source(_) => None,
        }
    }
}

impl Instruction {
    /// A token with the given operands; operands the opcode does not have must be the
    /// `NONE` values.
    pub const fn new(op: Opcode, dest: Dest, src1: Source, src2: Src2) -> Instruction {
        Instruction {
            op,
            dest,
            src1,
            src2,
        }
    }
    /// `op dest, src1`.
    pub const fn unary(op: Opcode, dest: Dest, src1: Source) -> Instruction {
        Instruction::new(op, dest, src1, Src2::NONE)
    }
    /// `op dest, src1, src2`.
    pub const fn binary(op: Opcode, dest: Dest, src1: Source, src2: Source) -> Instruction {
        Instruction::new(op, dest, src1, Src2::Source(src2))
    }
    /// `tex dest, coords, sampler`.
    pub const fn tex(dest: Dest, coords: Source, sampler: Sampler) -> Instruction {
        Instruction::new(Opcode::Tex, dest, coords, Src2::Sampler(sampler))
    }
    /// `kil src` (src must use a scalar swizzle).
    pub const fn kil(src: Source) -> Instruction {
        Instruction::new(Opcode::Kil, Dest::NONE, src, Src2::NONE)
    }
    /// `ife/ine/ifg/ifl a, b` (scalar swizzles).
    pub const fn cond(op: Opcode, a: Source, b: Source) -> Instruction {
        Instruction::new(op, Dest::NONE, a, Src2::Source(b))
    }
    /// `els` / `eif`.
    pub const fn bare(op: Opcode) -> Instruction {
        Instruction::new(op, Dest::NONE, Source::NONE, Src2::NONE)
    }
}

impl Sampler {
    /// The LOD bias as a number (the field holds eighths, §4.3).
    pub fn bias(&self) -> f32 {
        f32::from(self.lod_bias) / 8.0
    }
    /// The field value of a bias the way the assemblers compute it (`int(bias·8)`), or `None`
    /// outside −16..15.875.
    pub fn bias_field(bias: f32) -> Option<i8> {
        let e = (bias * 8.0).trunc();
        (-128.0..=127.0).contains(&e).then_some(e as i8)
    }
}
