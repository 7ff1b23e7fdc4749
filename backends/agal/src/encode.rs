//! [`Program`] → bytes, field by field from the table in [`crate::isa`].
//!
//! The encoder writes what it is given: it checks only that values fit their fields
//! ([`check_fields`]: write mask 4 bits, index select 2 bits, special flags 4 bits; register
//! numbers, swizzles, offsets and biases always fit); it does not validate the program (that is
//! [`crate::validate`]). Unused operands are the `NONE` values and encode as zero bytes.

use thiserror::Error;

use crate::instr::{Dest, Instruction, Program, Sampler, Source, Src2};
use crate::isa::{self, dest, sampler, source, Field, RegType, HEADER_BYTES, TOKEN_BYTES};

/// A value that does not fit its field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("token {token}: value {value:#x} does not fit field {field} ({width} bits)")]
pub struct EncodeError {
    /// 1-based token index.
    pub token: usize,
    pub field: &'static str,
    pub width: u32,
    pub value: u64,
}

/// Checks that every value of `i` fits its field (`token` names it in the error).
pub fn check_fields(i: &Instruction, token: usize) -> Result<(), EncodeError> {
    let fit = |f: Field, value: u64| {
        if f.fits(value) {
            Ok(())
        } else {
            Err(EncodeError {
                token,
                field: f.name,
                width: f.width,
                value,
            })
        }
    };
    fit(dest::MASK, i.dest.mask.into())?;
    for s in [Some(&i.src1), i.src2.source()].into_iter().flatten() {
        if let Some(ind) = s.indirect {
            fit(source::INDEX_SELECT, ind.select.into())?;
        }
    }
    if let Some(s) = i.src2.sampler() {
        fit(sampler::SPECIAL, s.special.into())?;
    }
    Ok(())
}

/// Encodes a whole program after checking every token's fields.
pub fn encode_program_checked(program: &Program) -> Result<Vec<u8>, EncodeError> {
    for (n, i) in program.instructions.iter().enumerate() {
        check_fields(i, n + 1)?;
    }
    Ok(encode_program(program))
}

/// The 7-byte header of a program.
pub fn encode_header(version: u32, kind: isa::ShaderKind) -> [u8; HEADER_BYTES] {
    let v = version.to_le_bytes();
    [
        isa::MAGIC,
        v[0],
        v[1],
        v[2],
        v[3],
        isa::SHADER_TYPE_ID,
        kind as u8,
    ]
}

/// Encodes a whole program (values too wide for their fields are truncated; see
/// [`encode_program_checked`]).
pub fn encode_program(program: &Program) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + TOKEN_BYTES * program.instructions.len());
    out.extend_from_slice(&encode_header(program.version, program.kind));
    for i in &program.instructions {
        out.extend_from_slice(&encode_instruction(i));
    }
    out
}

/// Encodes one token.
pub fn encode_instruction(i: &Instruction) -> [u8; TOKEN_BYTES] {
    let mut t = [0u8; TOKEN_BYTES];
    t[isa::token::OPCODE..isa::token::OPCODE + 4]
        .copy_from_slice(&(i.op.bits() as u32).to_le_bytes());
    t[isa::token::DEST..isa::token::DEST + 4].copy_from_slice(&encode_dest(&i.dest).to_le_bytes());
    t[isa::token::SOURCE1..isa::token::SOURCE1 + 8]
        .copy_from_slice(&encode_source(&i.src1).to_le_bytes());
    let s2 = match &i.src2 {
        Src2::Source(s) => encode_source(s),
        Src2::Sampler(s) => encode_sampler(s),
    };
    t[isa::token::SOURCE2..isa::token::SOURCE2 + 8].copy_from_slice(&s2.to_le_bytes());
    t
}

/// The destination field.
pub fn encode_dest(d: &Dest) -> u32 {
    let mut w = 0u128;
    w = dest::REG.set(w, d.reg.into());
    w = dest::MASK.set(w, d.mask.into());
    w = dest::TYPE.set(w, d.ty.bits());
    w as u32
}

/// A source field.
pub fn encode_source(s: &Source) -> u64 {
    let mut w = 0u128;
    w = source::REG.set(w, s.reg.into());
    w = source::SWIZZLE.set(w, s.swizzle.into());
    w = source::TYPE.set(w, s.ty.bits());
    if let Some(ind) = s.indirect {
        w = source::OFFSET.set(w, ind.offset.into());
        w = source::INDEX_TYPE.set(w, ind.index_type.bits());
        w = source::INDEX_SELECT.set(w, ind.select.into());
        w = source::INDIRECT.set(w, 1);
    }
    w as u64
}

/// A sampler field.
pub fn encode_sampler(s: &Sampler) -> u64 {
    let mut w = 0u128;
    w = sampler::REG.set(w, s.reg.into());
    w = sampler::LOD_BIAS.set(w, s.lod_bias as u8 as u64);
    w = sampler::TYPE.set(w, RegType::Sampler.bits());
    w = sampler::FORMAT.set(w, s.format.bits());
    w = sampler::DIMENSION.set(w, s.dimension.bits());
    w = sampler::SPECIAL.set(w, s.special.into());
    w = sampler::WRAP.set(w, s.wrap.bits());
    w = sampler::MIPMAP.set(w, s.mipmap.bits());
    w = sampler::FILTER.set(w, s.filter.bits());
    w as u64
}
