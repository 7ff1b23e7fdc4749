//! [`Instruction`]s → 128-bit words (four little-endian 32-bit words each), field by field from
//! [`super::isa::instr`]. Written independently of [`super::decode`]; the tests check that each
//! inverts the other.

use thiserror::Error;

use super::instr::Instruction;
use super::isa::{instr, Field, MAX_INSTRUCTIONS};

/// Why an instruction cannot be encoded. `index` is the instruction's position in the program.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeError {
    #[error("instruction {index}: {field} value {value} does not fit ({width} bits)")]
    OutOfRange {
        index: usize,
        field: &'static str,
        value: u64,
        width: u32,
    },
    #[error("program has {0} instructions, the GP runs at most {MAX_INSTRUCTIONS}")]
    TooLong(usize),
}

/// Encodes one instruction (at program position `index`, for errors) as a `u128`, word 0 in bits
/// 0–31.
pub fn encode_instruction(ins: &Instruction, index: usize) -> Result<u128, EncodeError> {
    let mut w = 0u128;
    let mut put = |f: Field, v: u64| -> Result<(), EncodeError> {
        if !f.fits(v) {
            return Err(EncodeError::OutOfRange {
                index,
                field: f.name,
                value: v,
                width: f.width,
            });
        }
        w = f.set(w, v);
        Ok(())
    };
    let b = u64::from;
    put(instr::MUL0_SRC0, ins.mul[0].src[0].bits())?;
    put(instr::MUL0_SRC1, ins.mul[0].src[1].bits())?;
    put(instr::MUL1_SRC0, ins.mul[1].src[0].bits())?;
    put(instr::MUL1_SRC1, ins.mul[1].src[1].bits())?;
    put(instr::MUL0_NEG, b(ins.mul[0].neg))?;
    put(instr::MUL1_NEG, b(ins.mul[1].neg))?;
    put(instr::ACC0_SRC0, ins.acc[0].src[0].bits())?;
    put(instr::ACC0_SRC1, ins.acc[0].src[1].bits())?;
    put(instr::ACC1_SRC0, ins.acc[1].src[0].bits())?;
    put(instr::ACC1_SRC1, ins.acc[1].src[1].bits())?;
    put(instr::ACC0_SRC0_NEG, b(ins.acc[0].neg[0]))?;
    put(instr::ACC0_SRC1_NEG, b(ins.acc[0].neg[1]))?;
    put(instr::ACC1_SRC0_NEG, b(ins.acc[1].neg[0]))?;
    put(instr::ACC1_SRC1_NEG, b(ins.acc[1].neg[1]))?;
    put(instr::LOAD_ADDR, u64::from(ins.load_addr))?;
    put(instr::LOAD_OFFSET, ins.load_offset.bits())?;
    put(instr::REGISTER0_ADDR, u64::from(ins.reg0_addr))?;
    put(instr::REGISTER0_ATTRIBUTE, b(ins.reg0_attribute))?;
    put(instr::REGISTER1_ADDR, u64::from(ins.reg1_addr))?;
    put(instr::STORE0_TEMPORARY, b(ins.store[0].temporary))?;
    put(instr::STORE1_TEMPORARY, b(ins.store[1].temporary))?;
    put(instr::BRANCH, b(ins.branch))?;
    let target = u64::from(ins.branch_target);
    if target >= 512 {
        return Err(EncodeError::OutOfRange {
            index,
            field: "BRANCH_TARGET",
            value: target,
            width: 9,
        });
    }
    put(instr::BRANCH_TARGET_LO, (target >> 8) ^ 1)?;
    put(instr::BRANCH_TARGET, target & 0xFF)?;
    put(instr::STORE0_SRC_X, ins.store[0].src[0].bits())?;
    put(instr::STORE0_SRC_Y, ins.store[0].src[1].bits())?;
    put(instr::STORE1_SRC_Z, ins.store[1].src[0].bits())?;
    put(instr::STORE1_SRC_W, ins.store[1].src[1].bits())?;
    put(instr::ACC_OP, ins.acc_op.bits())?;
    put(instr::COMPLEX_OP, ins.complex_op.bits())?;
    put(instr::STORE0_ADDR, u64::from(ins.store[0].addr))?;
    put(instr::STORE0_VARYING, b(ins.store[0].varying))?;
    put(instr::STORE1_ADDR, u64::from(ins.store[1].addr))?;
    put(instr::STORE1_VARYING, b(ins.store[1].varying))?;
    put(instr::MUL_OP, ins.mul_op.bits())?;
    put(instr::PASS_OP, ins.pass_op.bits())?;
    put(instr::COMPLEX_SRC, ins.complex_src.bits())?;
    put(instr::PASS_SRC, ins.pass_src.bits())?;
    put(instr::UNKNOWN_1, u64::from(ins.unknown_1))?;
    Ok(w)
}

/// The four little-endian words of an encoded instruction.
pub fn words(bits: u128) -> [u32; 4] {
    [
        bits as u32,
        (bits >> 32) as u32,
        (bits >> 64) as u32,
        (bits >> 96) as u32,
    ]
}

/// Encodes a program as 32-bit words (4 per instruction).
pub fn encode_program(program: &[Instruction]) -> Result<Vec<u32>, EncodeError> {
    if program.len() > MAX_INSTRUCTIONS {
        return Err(EncodeError::TooLong(program.len()));
    }
    let mut out = Vec::with_capacity(program.len() * 4);
    for (i, ins) in program.iter().enumerate() {
        out.extend(words(encode_instruction(ins, i)?));
    }
    Ok(out)
}

/// Encodes a program as bytes (the `code` section).
pub fn encode_bytes(program: &[Instruction]) -> Result<Vec<u8>, EncodeError> {
    Ok(irc_backend::output::bytes_of(&encode_program(program)?))
}

/// The `prefetch` value of the VS command stream's `SHADER_INFO` (reference §10): the index of
/// the last instruction whose register 0 loads an attribute (Mesa `gpir_codegen_prog`), if any.
pub fn attribute_prefetch(program: &[Instruction]) -> Option<usize> {
    program.iter().rposition(|i| i.reg0_attribute)
}
