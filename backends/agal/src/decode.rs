//! Bytes → [`Program`], written apart from [`crate::encode`] so that they do not share mistakes.
//!
//! The decoder reads the header, checks that the rest is a whole number of 24-byte tokens, and
//! splits every field with the layouts of [`crate::isa`]. It is *structural*: it rejects what
//! the structured form cannot hold (unknown opcode, register type or sampler value, a non-zero
//! reserved bit, a non-zero unused field, indirect fields in direct mode, a sampler where a
//! register is expected or the reverse), so that `encode(decode(b)) == b`; it does not check
//! the runtime's rules (register roles, limits, data flow: [`crate::validate`]).
//!
//! Nothing here panics on any input, and allocation is bounded by the input length. Errors
//! carry the byte offset of the offending field.

use thiserror::Error;

use crate::instr::{Dest, Indirect, Instruction, Program, Sampler, Source, Src2};
use crate::isa::{
    self, dest, sampler, source, Dimension, Filter, Mipmap, Opcode, RegType, ShaderKind, TexFormat,
    Wrap, HEADER_BYTES, TOKEN_BYTES,
};
use irc_backend::bits::unknown_mask;

/// What is wrong, without the position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeErrorKind {
    #[error("program is {0} bytes, shorter than the 7-byte header")]
    TooShort(usize),
    #[error("bad magic {0:#04x} (expected 0xa0)")]
    BadMagic(u8),
    #[error("unsupported version {0} (this decoder knows 1-3)")]
    BadVersion(u32),
    #[error("shader type id {0:#04x} (expected 0xa1)")]
    BadTypeId(u8),
    #[error("shader type {0} (expected 0 vertex or 1 fragment)")]
    BadShaderType(u8),
    #[error("{0} bytes after the header are not a whole number of 24-byte tokens")]
    PartialToken(usize),
    #[error("unknown opcode {0:#x}")]
    UnknownOpcode(u32),
    #[error("unknown register type {0}")]
    UnknownRegType(u64),
    #[error("reserved bits {0:#x} set in the {1} field")]
    Reserved(u64, &'static str),
    #[error("{0} field must be zero for this opcode, is {1:#x}")]
    UnusedNotZero(&'static str, u64),
    #[error("indirect fields set in a direct source ({0:#x})")]
    IndirectFieldsInDirect(u64),
    #[error("texture opcode's source 2 is register type {0}, not a sampler (5)")]
    NotASampler(u64),
    #[error("sampler register in a non-texture operand")]
    UnexpectedSampler,
    #[error("unknown sampler {0} value {1}")]
    BadSamplerValue(&'static str, u64),
}

/// A decoding error at byte `offset` of the program.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("byte {offset}: {kind}")]
pub struct DecodeError {
    pub offset: usize,
    pub kind: DecodeErrorKind,
}

/// A token's four fields as raw integers (for readers that check more than the structure,
/// like the validator).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawToken {
    pub opcode: u32,
    pub dest: u32,
    pub src1: u64,
    pub src2: u64,
}

impl RawToken {
    /// Reads the 24 bytes of a token (`bytes` must hold at least 24 bytes; fewer give zeros).
    pub fn read(bytes: &[u8]) -> RawToken {
        let u32_at = |o: usize| {
            bytes
                .get(o..o + 4)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let u64_at = |o: usize| u64::from(u32_at(o)) | u64::from(u32_at(o + 4)) << 32;
        RawToken {
            opcode: u32_at(isa::token::OPCODE),
            dest: u32_at(isa::token::DEST),
            src1: u64_at(isa::token::SOURCE1),
            src2: u64_at(isa::token::SOURCE2),
        }
    }
}

/// Reads and checks the header; returns (version, kind).
pub fn decode_header(bytes: &[u8]) -> Result<(u32, ShaderKind), DecodeError> {
    let err = |offset, kind| Err(DecodeError { offset, kind });
    if bytes.len() < HEADER_BYTES {
        return err(0, DecodeErrorKind::TooShort(bytes.len()));
    }
    if bytes[isa::header::MAGIC] != isa::MAGIC {
        return err(isa::header::MAGIC, DecodeErrorKind::BadMagic(bytes[0]));
    }
    let v = isa::header::VERSION;
    let version = u32::from_le_bytes([bytes[v], bytes[v + 1], bytes[v + 2], bytes[v + 3]]);
    if !isa::VERSIONS.contains(&version) {
        return err(v, DecodeErrorKind::BadVersion(version));
    }
    let t = bytes[isa::header::TYPE_ID];
    if t != isa::SHADER_TYPE_ID {
        return err(isa::header::TYPE_ID, DecodeErrorKind::BadTypeId(t));
    }
    let s = bytes[isa::header::SHADER_TYPE];
    match ShaderKind::from_bits(s) {
        Some(kind) => Ok((version, kind)),
        None => err(isa::header::SHADER_TYPE, DecodeErrorKind::BadShaderType(s)),
    }
}

/// Decodes a whole program.
pub fn decode_program(bytes: &[u8]) -> Result<Program, DecodeError> {
    let (version, kind) = decode_header(bytes)?;
    let body = &bytes[HEADER_BYTES..];
    if !body.len().is_multiple_of(TOKEN_BYTES) {
        return Err(DecodeError {
            offset: HEADER_BYTES + body.len() / TOKEN_BYTES * TOKEN_BYTES,
            kind: DecodeErrorKind::PartialToken(body.len()),
        });
    }
    // Bounded by the input: one token per 24 bytes present.
    let mut instructions = Vec::with_capacity(body.len() / TOKEN_BYTES);
    for (n, chunk) in body.chunks_exact(TOKEN_BYTES).enumerate() {
        let at = HEADER_BYTES + n * TOKEN_BYTES;
        instructions.push(decode_token(&RawToken::read(chunk), at)?);
    }
    Ok(Program {
        version,
        kind,
        instructions,
    })
}

/// Decodes one token found at byte `at`.
pub fn decode_token(t: &RawToken, at: usize) -> Result<Instruction, DecodeError> {
    let fail = |field: usize, kind| DecodeError {
        offset: at + field,
        kind,
    };
    let op = Opcode::from_bits(t.opcode.into())
        .ok_or_else(|| fail(isa::token::OPCODE, DecodeErrorKind::UnknownOpcode(t.opcode)))?;
    let dest = if op.has_dest() {
        decode_dest(t.dest).map_err(|k| fail(isa::token::DEST, k))?
    } else if t.dest != 0 {
        return Err(fail(
            isa::token::DEST,
            DecodeErrorKind::UnusedNotZero("destination", t.dest.into()),
        ));
    } else {
        Dest::NONE
    };
    let src1 = if op.num_srcs() >= 1 {
        decode_source(t.src1).map_err(|k| fail(isa::token::SOURCE1, k))?
    } else if t.src1 != 0 {
        return Err(fail(
            isa::token::SOURCE1,
            DecodeErrorKind::UnusedNotZero("source 1", t.src1),
        ));
    } else {
        Source::NONE
    };
    let src2 = if op.has_sampler() {
        Src2::Sampler(decode_sampler(t.src2).map_err(|k| fail(isa::token::SOURCE2, k))?)
    } else if op.num_srcs() >= 2 {
        Src2::Source(decode_source(t.src2).map_err(|k| fail(isa::token::SOURCE2, k))?)
    } else if t.src2 != 0 {
        return Err(fail(
            isa::token::SOURCE2,
            DecodeErrorKind::UnusedNotZero("source 2", t.src2),
        ));
    } else {
        Src2::NONE
    };
    Ok(Instruction {
        op,
        dest,
        src1,
        src2,
    })
}

fn reg_type(bits: u64) -> Result<RegType, DecodeErrorKind> {
    RegType::from_bits(bits).ok_or(DecodeErrorKind::UnknownRegType(bits))
}

/// Splits a destination field.
pub fn decode_dest(w: u32) -> Result<Dest, DecodeErrorKind> {
    let p = u128::from(w);
    let reserved = p & unknown_mask(dest::ALL);
    if reserved != 0 {
        return Err(DecodeErrorKind::Reserved(reserved as u64, "destination"));
    }
    let ty = reg_type(dest::TYPE.get(p))?;
    if ty == RegType::Sampler {
        return Err(DecodeErrorKind::UnexpectedSampler);
    }
    Ok(Dest {
        ty,
        reg: dest::REG.get(p) as u16,
        mask: dest::MASK.get(p) as u8,
    })
}

/// Splits a source field.
pub fn decode_source(w: u64) -> Result<Source, DecodeErrorKind> {
    let p = u128::from(w);
    let reserved = p & unknown_mask(source::ALL);
    if reserved != 0 {
        return Err(DecodeErrorKind::Reserved(reserved as u64, "source"));
    }
    let ty = reg_type(source::TYPE.get(p))?;
    if ty == RegType::Sampler {
        return Err(DecodeErrorKind::UnexpectedSampler);
    }
    let indirect = if source::INDIRECT.get(p) != 0 {
        Some(Indirect {
            index_type: reg_type(source::INDEX_TYPE.get(p))?,
            select: source::INDEX_SELECT.get(p) as u8,
            offset: source::OFFSET.get(p) as u8,
        })
    } else {
        let fields = p & (source::OFFSET.mask() | source::INDEX_TYPE.mask())
            | p & source::INDEX_SELECT.mask();
        if fields != 0 {
            return Err(DecodeErrorKind::IndirectFieldsInDirect(fields as u64));
        }
        None
    };
    Ok(Source {
        ty,
        reg: source::REG.get(p) as u16,
        swizzle: source::SWIZZLE.get(p) as u8,
        indirect,
    })
}

/// Splits a sampler field.
pub fn decode_sampler(w: u64) -> Result<Sampler, DecodeErrorKind> {
    let p = u128::from(w);
    let reserved = p & unknown_mask(sampler::ALL);
    if reserved != 0 {
        return Err(DecodeErrorKind::Reserved(reserved as u64, "sampler"));
    }
    let ty = sampler::TYPE.get(p);
    if ty != RegType::Sampler.bits() {
        return Err(DecodeErrorKind::NotASampler(ty));
    }
    let value = |f: isa::Field| f.get(p);
    let bad = |name, v| DecodeErrorKind::BadSamplerValue(name, v);
    let format = value(sampler::FORMAT);
    let dimension = value(sampler::DIMENSION);
    let wrap = value(sampler::WRAP);
    let mipmap = value(sampler::MIPMAP);
    let filter = value(sampler::FILTER);
    Ok(Sampler {
        reg: value(sampler::REG) as u16,
        lod_bias: value(sampler::LOD_BIAS) as u8 as i8,
        format: TexFormat::from_bits(format).ok_or(bad("format", format))?,
        dimension: Dimension::from_bits(dimension).ok_or(bad("dimension", dimension))?,
        special: value(sampler::SPECIAL) as u8,
        wrap: Wrap::from_bits(wrap).ok_or(bad("wrap", wrap))?,
        mipmap: Mipmap::from_bits(mipmap).ok_or(bad("mipmap", mipmap))?,
        filter: Filter::from_bits(filter).ok_or(bad("filter", filter))?,
    })
}
