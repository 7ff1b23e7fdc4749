//! Code words + operand descriptors → structured program, written against the tables of
//! [`crate::isa`] independently of the encoder.
//!
//! Never panics; every error names the word offset. Output size is bounded by the input (one
//! [`Instr`] per word). Bits the hardware ignores (format 0/4 padding, format 1u bits 7–11,
//! format 2/3 bits 8–9, descriptor bit 31, descriptor parts an opcode does not read) are not
//! kept: decoding is exact for the bits that matter.

use thiserror::Error;

use crate::instr::{Cond, Dst, DstReg, Instr, Mask, Src, SrcReg, Swizzle};
use crate::isa::{
    fmt0, fmt1, fmt1c, fmt1i, fmt1u, fmt2, fmt3, fmt4, fmt5, fmt5i, opdesc, AddrIndex, CmpOp,
    CondOp, Format, Opcode,
};

/// Why a word cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("word {offset}: {kind}")]
pub struct DecodeError {
    /// Word offset of the instruction.
    pub offset: usize,
    pub kind: DecodeErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeErrorKind {
    #[error("unknown opcode {0:#04x}")]
    UnknownOpcode(u32),
    #[error("operand descriptor {index} out of range ({count} descriptors)")]
    OpdescOutOfRange { index: u32, count: usize },
    #[error("invalid comparison {0} in CMP")]
    InvalidCompare(u32),
}

fn src(reg: u64, sel: u64, neg: u64) -> Src {
    Src {
        reg: SrcReg::from_bits(reg as u8),
        swizzle: Swizzle(sel as u8),
        negate: neg != 0,
    }
}

/// Decodes one word. `descs` is the operand descriptor table.
pub fn decode_instr(offset: usize, word: u32, descs: &[u32]) -> Result<Instr, DecodeError> {
    let err = |kind| DecodeError { offset, kind };
    let w = word as u128;
    let op6 = fmt0::OP.get(w);
    let op = Opcode::decode(op6).ok_or(err(DecodeErrorKind::UnknownOpcode(op6 as u32)))?;
    let desc_of = |field: crate::isa::Field| -> Result<u128, DecodeError> {
        let i = field.get(w) as u32;
        descs
            .get(i as usize)
            .map(|&d| d as u128)
            .ok_or(err(DecodeErrorKind::OpdescOutOfRange {
                index: i,
                count: descs.len(),
            }))
    };
    let s1 = |d: u128, reg: u64| src(reg, opdesc::SEL1.get(d), opdesc::NEG1.get(d));
    let s2 = |d: u128, reg: u64| src(reg, opdesc::SEL2.get(d), opdesc::NEG2.get(d));
    let s3 = |d: u128, reg: u64| src(reg, opdesc::SEL3.get(d), opdesc::NEG3.get(d));
    let dst = |d: u128, reg: u64| Dst {
        reg: DstReg::from_bits(reg as u8),
        mask: Mask(opdesc::MASK.get(d) as u8),
    };
    Ok(match op.format() {
        Format::F0 => Instr::Plain(op),
        Format::F1 => {
            let d = desc_of(fmt1::DESC)?;
            Instr::Binary {
                op,
                dst: dst(d, fmt1::DST.get(w)),
                src1: s1(d, fmt1::SRC1.get(w)),
                src2: s2(d, fmt1::SRC2.get(w)),
                index: AddrIndex::from_bits(fmt1::IDX.get(w)),
            }
        }
        Format::F1i => {
            let d = desc_of(fmt1i::DESC)?;
            Instr::Binary {
                op,
                dst: dst(d, fmt1i::DST.get(w)),
                src1: s1(d, fmt1i::SRC1.get(w)),
                src2: s2(d, fmt1i::SRC2.get(w)),
                index: AddrIndex::from_bits(fmt1i::IDX.get(w)),
            }
        }
        Format::F1u => {
            let d = desc_of(fmt1u::DESC)?;
            let src = s1(d, fmt1u::SRC1.get(w));
            let index = AddrIndex::from_bits(fmt1u::IDX.get(w));
            if op == Opcode::Mova {
                Instr::Mova {
                    mask: Mask(opdesc::MASK.get(d) as u8),
                    src,
                    index,
                }
            } else {
                Instr::Unary {
                    op,
                    dst: dst(d, fmt1u::DST.get(w)),
                    src,
                    index,
                }
            }
        }
        Format::F1c => {
            let d = desc_of(fmt1c::DESC)?;
            let cmp = |f: crate::isa::Field| {
                let v = f.get(w);
                CmpOp::from_bits(v).ok_or(err(DecodeErrorKind::InvalidCompare(v as u32)))
            };
            Instr::Cmp {
                src1: s1(d, fmt1c::SRC1.get(w)),
                x: cmp(fmt1c::CMPX)?,
                y: cmp(fmt1c::CMPY)?,
                src2: s2(d, fmt1c::SRC2.get(w)),
                index: AddrIndex::from_bits(fmt1c::IDX.get(w)),
            }
        }
        Format::F2 => Instr::CondFlow {
            op,
            cond: Cond {
                op: CondOp::from_bits(fmt2::CONDOP.get(w)),
                refx: fmt2::REFX.get(w) != 0,
                refy: fmt2::REFY.get(w) != 0,
            },
            dst: fmt2::DST.get(w) as u16,
            num: fmt2::NUM.get(w) as u8,
        },
        Format::F3 => {
            let id = fmt3::ID.get(w) as u8;
            Instr::UniformFlow {
                op,
                // LOOP reads the int id from bits 22–23 only.
                id: if op == Opcode::Loop { id & 3 } else { id },
                dst: fmt3::DST.get(w) as u16,
                num: fmt3::NUM.get(w) as u8,
            }
        }
        Format::F4 => Instr::SetEmit {
            vertex: fmt4::VTXID.get(w) as u8,
            primitive: fmt4::PRIMEMIT.get(w) != 0,
            winding: fmt4::WINDING.get(w) != 0,
        },
        Format::F5 => {
            let d = desc_of(fmt5::DESC)?;
            Instr::Mad {
                inverted: false,
                dst: dst(d, fmt5::DST.get(w)),
                src1: s1(d, fmt5::SRC1.get(w)),
                src2: s2(d, fmt5::SRC2.get(w)),
                src3: s3(d, fmt5::SRC3.get(w)),
                index: AddrIndex::from_bits(fmt5::IDX.get(w)),
            }
        }
        Format::F5i => {
            let d = desc_of(fmt5i::DESC)?;
            Instr::Mad {
                inverted: true,
                dst: dst(d, fmt5i::DST.get(w)),
                src1: s1(d, fmt5i::SRC1.get(w)),
                src2: s2(d, fmt5i::SRC2.get(w)),
                src3: s3(d, fmt5i::SRC3.get(w)),
                index: AddrIndex::from_bits(fmt5i::IDX.get(w)),
            }
        }
    })
}

/// Decodes a whole program.
pub fn decode_program(words: &[u32], descs: &[u32]) -> Result<Vec<Instr>, DecodeError> {
    words
        .iter()
        .enumerate()
        .map(|(i, &w)| decode_instr(i, w, descs))
        .collect()
}

/// Clears the descriptor parts `instr` does not read, so that a decoded instruction compares
/// equal to the one that was encoded (descriptors shared between instructions carry other
/// instructions' bits in their don't-care parts).
pub fn canonicalize(instr: &Instr) -> Instr {
    use crate::isa::opdesc_care_mask;
    let Some(desc) = instr.opdesc() else {
        return *instr;
    };
    let care = opdesc_care_mask(instr.opcode());
    let d = (desc & care) as u128;
    let fix1 = |s: Src| {
        src(
            s.reg.bits() as u64,
            opdesc::SEL1.get(d),
            opdesc::NEG1.get(d),
        )
    };
    let fix2 = |s: Src| {
        src(
            s.reg.bits() as u64,
            opdesc::SEL2.get(d),
            opdesc::NEG2.get(d),
        )
    };
    let fix3 = |s: Src| {
        src(
            s.reg.bits() as u64,
            opdesc::SEL3.get(d),
            opdesc::NEG3.get(d),
        )
    };
    let m = Mask(opdesc::MASK.get(d) as u8);
    let mut out = *instr;
    match &mut out {
        Instr::Binary {
            dst, src1, src2, ..
        } => {
            dst.mask = m;
            *src1 = fix1(*src1);
            *src2 = fix2(*src2);
        }
        Instr::Unary { dst, src, .. } => {
            dst.mask = m;
            *src = fix1(*src);
        }
        Instr::Mova { mask, src, .. } => {
            *mask = m;
            *src = fix1(*src);
        }
        Instr::Cmp { src1, src2, .. } => {
            *src1 = fix1(*src1);
            *src2 = fix2(*src2);
        }
        Instr::Mad {
            dst,
            src1,
            src2,
            src3,
            ..
        } => {
            dst.mask = m;
            *src1 = fix1(*src1);
            *src2 = fix2(*src2);
            *src3 = fix3(*src3);
        }
        _ => {}
    }
    out
}
