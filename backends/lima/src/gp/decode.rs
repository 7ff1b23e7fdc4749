//! 128-bit words → [`Instruction`]s.
//!
//! Each instruction is four little-endian words read as one `u128` and split into fields with the
//! table of [`super::isa::instr`]. Opcodes and selects the reference does not know (acc op 3, mul
//! ops 2/5–7, complex ops 1/6–8/10/11, pass ops 0/1/3/7, store source 5, load offsets 0/4–6) are
//! errors naming the instruction; source codes 8–11 decode (as `unknown0..3`, as Mesa prints them)
//! and fail only when executed. Nothing here panics on arbitrary input, and the output is bounded
//! by [`MAX_INSTRUCTIONS`] (checked before anything is allocated).

use thiserror::Error;

use super::instr::{AccSlot, Instruction, MulSlot, Store};
use super::isa::*;

/// Why a program could not be decoded. `index` is the instruction's position in the program.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("code is {0} bytes, not a whole number of 16-byte instructions")]
    Truncated(usize),
    #[error("program has {0} instructions, the GP runs at most {MAX_INSTRUCTIONS}")]
    TooLong(usize),
    #[error("empty program")]
    Empty,
    #[error("instruction {index}: unknown {field} code {value}")]
    Unknown {
        index: usize,
        field: &'static str,
        value: u64,
    },
}

/// Decodes the instruction held in `bits` (word 0 in bits 0–31), at position `index`.
pub fn decode_instruction(bits: u128, index: usize) -> Result<Instruction, DecodeError> {
    let g = |f: Field| f.get(bits);
    let flag = |f: Field| f.get(bits) != 0;
    let unknown = |field: Field| DecodeError::Unknown {
        index,
        field: field.name,
        value: field.get(bits),
    };
    // Every 5-bit value is a row of the source table.
    let src = |f: Field| Src::from_bits(g(f)).ok_or_else(|| unknown(f));
    let store_src = |f: Field| StoreSrc::from_bits(g(f)).ok_or_else(|| unknown(f));
    let target_hi = (g(instr::BRANCH_TARGET_LO) ^ 1) << 8;
    Ok(Instruction {
        acc: [
            AccSlot {
                src: [src(instr::ACC0_SRC0)?, src(instr::ACC0_SRC1)?],
                neg: [flag(instr::ACC0_SRC0_NEG), flag(instr::ACC0_SRC1_NEG)],
            },
            AccSlot {
                src: [src(instr::ACC1_SRC0)?, src(instr::ACC1_SRC1)?],
                neg: [flag(instr::ACC1_SRC0_NEG), flag(instr::ACC1_SRC1_NEG)],
            },
        ],
        acc_op: AccOp::from_bits(g(instr::ACC_OP)).ok_or_else(|| unknown(instr::ACC_OP))?,
        mul: [
            MulSlot {
                src: [src(instr::MUL0_SRC0)?, src(instr::MUL0_SRC1)?],
                neg: flag(instr::MUL0_NEG),
            },
            MulSlot {
                src: [src(instr::MUL1_SRC0)?, src(instr::MUL1_SRC1)?],
                neg: flag(instr::MUL1_NEG),
            },
        ],
        mul_op: MulOp::from_bits(g(instr::MUL_OP)).ok_or_else(|| unknown(instr::MUL_OP))?,
        complex_op: ComplexOp::from_bits(g(instr::COMPLEX_OP))
            .ok_or_else(|| unknown(instr::COMPLEX_OP))?,
        complex_src: src(instr::COMPLEX_SRC)?,
        pass_op: PassOp::from_bits(g(instr::PASS_OP)).ok_or_else(|| unknown(instr::PASS_OP))?,
        pass_src: src(instr::PASS_SRC)?,
        load_addr: g(instr::LOAD_ADDR) as u16,
        load_offset: LoadOffset::from_bits(g(instr::LOAD_OFFSET))
            .ok_or_else(|| unknown(instr::LOAD_OFFSET))?,
        reg0_addr: g(instr::REGISTER0_ADDR) as u8,
        reg0_attribute: flag(instr::REGISTER0_ATTRIBUTE),
        reg1_addr: g(instr::REGISTER1_ADDR) as u8,
        store: [
            Store {
                src: [
                    store_src(instr::STORE0_SRC_X)?,
                    store_src(instr::STORE0_SRC_Y)?,
                ],
                addr: g(instr::STORE0_ADDR) as u8,
                varying: flag(instr::STORE0_VARYING),
                temporary: flag(instr::STORE0_TEMPORARY),
            },
            Store {
                src: [
                    store_src(instr::STORE1_SRC_Z)?,
                    store_src(instr::STORE1_SRC_W)?,
                ],
                addr: g(instr::STORE1_ADDR) as u8,
                varying: flag(instr::STORE1_VARYING),
                temporary: flag(instr::STORE1_TEMPORARY),
            },
        ],
        branch: flag(instr::BRANCH),
        branch_target: (target_hi | g(instr::BRANCH_TARGET)) as u16,
        unknown_1: g(instr::UNKNOWN_1) as u8,
    })
}

/// Decodes a program given as 32-bit words (a whole number of 4-word instructions).
pub fn decode_program(words: &[u32]) -> Result<Vec<Instruction>, DecodeError> {
    if !words.len().is_multiple_of(INSTR_WORDS) {
        return Err(DecodeError::Truncated(words.len() * 4));
    }
    let n = words.len() / INSTR_WORDS;
    if n == 0 {
        return Err(DecodeError::Empty);
    }
    if n > MAX_INSTRUCTIONS {
        return Err(DecodeError::TooLong(n));
    }
    let mut out = Vec::with_capacity(n);
    for (i, w) in words.chunks_exact(INSTR_WORDS).enumerate() {
        let bits = w
            .iter()
            .rev()
            .fold(0u128, |acc, &x| (acc << 32) | u128::from(x));
        out.push(decode_instruction(bits, i)?);
    }
    Ok(out)
}

/// Decodes a program given as bytes (the `code` section).
pub fn decode_bytes(bytes: &[u8]) -> Result<Vec<Instruction>, DecodeError> {
    if !bytes.len().is_multiple_of(INSTR_BYTES) {
        return Err(DecodeError::Truncated(bytes.len()));
    }
    decode_program(&irc_backend::output::words_of(bytes))
}
