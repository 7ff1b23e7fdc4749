//! Structured program → code words + operand descriptor table.
//!
//! [`encode_instr`] packs one [`Instr`] with a given descriptor index through the format tables
//! of [`crate::isa`]. [`OpdescTable`] de-duplicates descriptors the way picasso's
//! `findOrAddOpdesc` does: a descriptor matches an entry when they agree on the bits both care
//! about ([`opdesc_care_mask`]); bits only the new user cares about are then written into the
//! entry. [`encode_program`] combines both in program order (first use) and, if a MAD/MADI ends
//! up with a descriptor ≥ 32 (its DESC field has 5 bits, erratum 6), moves the MAD descriptors
//! to the front of the table.

use thiserror::Error;

use crate::instr::{Instr, SrcReg};
use crate::isa::{
    fmt0, fmt1, fmt1c, fmt1i, fmt1u, fmt2, fmt3, fmt4, fmt5, fmt5i, limits, opdesc_care_mask,
    Field, Opcode, CMP_OP5, MADI_OP3, MAD_OP3,
};

/// Why an instruction or program cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeError {
    #[error("instruction {at}: {what}")]
    Operand { at: usize, what: String },
    #[error("more than {} operand descriptors", limits::OPDESCS)]
    TooManyOpdescs,
    #[error(
        "more than {} operand descriptors used by MAD/MADI",
        limits::MAD_OPDESCS
    )]
    TooManyMadOpdescs,
}

fn put(w: u128, f: Field, v: u64) -> u128 {
    f.set(w, v)
}

fn check(at: usize, ok: bool, what: impl FnOnce() -> String) -> Result<(), EncodeError> {
    if ok {
        Ok(())
    } else {
        Err(EncodeError::Operand { at, what: what() })
    }
}

/// Encodes `instr` (at word `at`, for error messages) referencing operand descriptor `desc`.
pub fn encode_instr(at: usize, instr: &Instr, desc: u32) -> Result<u32, EncodeError> {
    let narrow = |r: SrcReg, which: &str| {
        check(at, r.is_narrow(), || {
            format!("{which} is narrow (5 bits): a float uniform cannot go there")
        })
    };
    let desc_ok = |bits: u32| {
        check(at, desc < (1 << bits), || {
            format!("operand descriptor {desc} does not fit {bits} bits")
        })
    };
    validate_regs(at, instr)?;
    let op = instr.opcode();
    let w: u128 = match *instr {
        Instr::Plain(_) => put(0, fmt0::OP, op.bits()),
        Instr::Binary {
            op,
            dst,
            src1,
            src2,
            index,
        } => {
            desc_ok(7)?;
            if op.is_inverted() {
                narrow(src1.reg, "SRC1 of an inverted instruction")?;
                let w = put(0, fmt1i::OP, op.bits());
                let w = put(w, fmt1i::DESC, desc as u64);
                let w = put(w, fmt1i::SRC2, src2.reg.bits() as u64);
                let w = put(w, fmt1i::SRC1, src1.reg.bits() as u64);
                let w = put(w, fmt1i::IDX, index as u64);
                put(w, fmt1i::DST, dst.reg.bits() as u64)
            } else {
                check(at, op.format() == crate::isa::Format::F1, || {
                    format!("{} is not a two-source instruction", op.mnemonic())
                })?;
                narrow(src2.reg, "SRC2")?;
                let w = put(0, fmt1::OP, op.bits());
                let w = put(w, fmt1::DESC, desc as u64);
                let w = put(w, fmt1::SRC2, src2.reg.bits() as u64);
                let w = put(w, fmt1::SRC1, src1.reg.bits() as u64);
                let w = put(w, fmt1::IDX, index as u64);
                put(w, fmt1::DST, dst.reg.bits() as u64)
            }
        }
        Instr::Unary {
            op,
            dst,
            src,
            index,
        } => {
            desc_ok(7)?;
            check(
                at,
                op.format() == crate::isa::Format::F1u && op != Opcode::Mova,
                || format!("{} is not a one-source instruction", op.mnemonic()),
            )?;
            let w = put(0, fmt1u::OP, op.bits());
            let w = put(w, fmt1u::DESC, desc as u64);
            let w = put(w, fmt1u::SRC1, src.reg.bits() as u64);
            let w = put(w, fmt1u::IDX, index as u64);
            put(w, fmt1u::DST, dst.reg.bits() as u64)
        }
        Instr::Mova { src, index, .. } => {
            desc_ok(7)?;
            let w = put(0, fmt1u::OP, op.bits());
            let w = put(w, fmt1u::DESC, desc as u64);
            let w = put(w, fmt1u::SRC1, src.reg.bits() as u64);
            put(w, fmt1u::IDX, index as u64)
        }
        Instr::Cmp {
            src1,
            x,
            y,
            src2,
            index,
        } => {
            desc_ok(7)?;
            narrow(src2.reg, "SRC2 of CMP")?;
            let w = put(0, fmt1c::OP, CMP_OP5);
            let w = put(w, fmt1c::DESC, desc as u64);
            let w = put(w, fmt1c::SRC2, src2.reg.bits() as u64);
            let w = put(w, fmt1c::SRC1, src1.reg.bits() as u64);
            let w = put(w, fmt1c::IDX, index as u64);
            let w = put(w, fmt1c::CMPY, y as u64);
            put(w, fmt1c::CMPX, x as u64)
        }
        Instr::Mad {
            inverted,
            dst,
            src1,
            src2,
            src3,
            index,
        } => {
            desc_ok(5)?;
            narrow(src1.reg, "SRC1 of MAD")?;
            if inverted {
                narrow(src2.reg, "SRC2 of MADI")?;
                let w = put(0, fmt5i::OP, MADI_OP3);
                let w = put(w, fmt5i::DESC, desc as u64);
                let w = put(w, fmt5i::SRC3, src3.reg.bits() as u64);
                let w = put(w, fmt5i::SRC2, src2.reg.bits() as u64);
                let w = put(w, fmt5i::SRC1, src1.reg.bits() as u64);
                let w = put(w, fmt5i::IDX, index as u64);
                put(w, fmt5i::DST, dst.reg.bits() as u64)
            } else {
                narrow(src3.reg, "SRC3 of MAD")?;
                let w = put(0, fmt5::OP, MAD_OP3);
                let w = put(w, fmt5::DESC, desc as u64);
                let w = put(w, fmt5::SRC3, src3.reg.bits() as u64);
                let w = put(w, fmt5::SRC2, src2.reg.bits() as u64);
                let w = put(w, fmt5::SRC1, src1.reg.bits() as u64);
                let w = put(w, fmt5::IDX, index as u64);
                put(w, fmt5::DST, dst.reg.bits() as u64)
            }
        }
        Instr::SetEmit {
            vertex,
            primitive,
            winding,
        } => {
            check(at, vertex < 4, || format!("setemit vertex id {vertex} > 3"))?;
            let w = put(0, fmt4::OP, op.bits());
            let w = put(w, fmt4::VTXID, vertex as u64);
            let w = put(w, fmt4::PRIMEMIT, primitive as u64);
            put(w, fmt4::WINDING, winding as u64)
        }
        Instr::CondFlow { op, cond, dst, num } => {
            check(at, op.format() == crate::isa::Format::F2, || {
                format!("{} is not a format-2 instruction", op.mnemonic())
            })?;
            check(at, dst as usize <= limits::MAX_ADDRESS, || {
                format!("target {dst} does not fit 12 bits")
            })?;
            let w = put(0, fmt2::OP, op.bits());
            let w = put(w, fmt2::NUM, num as u64);
            let w = put(w, fmt2::DST, dst as u64);
            let w = put(w, fmt2::CONDOP, cond.op as u64);
            let w = put(w, fmt2::REFY, cond.refy as u64);
            put(w, fmt2::REFX, cond.refx as u64)
        }
        Instr::UniformFlow { op, id, dst, num } => {
            check(at, op.format() == crate::isa::Format::F3, || {
                format!("{} is not a format-3 instruction", op.mnemonic())
            })?;
            check(at, dst as usize <= limits::MAX_ADDRESS, || {
                format!("target {dst} does not fit 12 bits")
            })?;
            let max = if op == Opcode::Loop { 4 } else { 16 };
            check(at, id < max, || format!("uniform id {id} out of range"))?;
            let w = put(0, fmt3::OP, op.bits());
            let w = put(w, fmt3::NUM, num as u64);
            let w = put(w, fmt3::DST, dst as u64);
            put(w, fmt3::ID, id as u64)
        }
    };
    Ok(w as u32)
}

/// Register numbers in range (v/r/o 0–15, c 0–95).
fn validate_regs(at: usize, instr: &Instr) -> Result<(), EncodeError> {
    use crate::instr::{Dst, DstReg, Src};
    let src_ok = |s: &Src| match s.reg {
        SrcReg::Input(n) | SrcReg::Temp(n) => n < 16,
        SrcReg::Const(n) => (n as usize) < limits::FLOAT_UNIFORMS,
    };
    let dst_ok = |d: &Dst| match d.reg {
        DstReg::Output(n) | DstReg::Temp(n) => n < 16,
    };
    let ok = match instr {
        Instr::Binary {
            dst, src1, src2, ..
        } => dst_ok(dst) && src_ok(src1) && src_ok(src2),
        Instr::Unary { dst, src, .. } => dst_ok(dst) && src_ok(src),
        Instr::Mova { src, .. } => src_ok(src),
        Instr::Cmp { src1, src2, .. } => src_ok(src1) && src_ok(src2),
        Instr::Mad {
            dst,
            src1,
            src2,
            src3,
            ..
        } => dst_ok(dst) && src_ok(src1) && src_ok(src2) && src_ok(src3),
        _ => true,
    };
    check(at, ok, || {
        format!("register number out of range in {instr:?}")
    })
}

/// A picasso-style de-duplicating operand descriptor table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpdescTable {
    /// The descriptors.
    pub entries: Vec<u32>,
    /// Per entry, the bits some user cares about.
    pub masks: Vec<u32>,
}

impl OpdescTable {
    pub fn new() -> OpdescTable {
        OpdescTable::default()
    }

    /// The index of an entry agreeing with `desc` on the bits both care about (merging the bits
    /// only `mask` cares about into it), or of a new entry.
    pub fn find_or_add(&mut self, desc: u32, mask: u32) -> Result<usize, EncodeError> {
        for (i, (e, m)) in self.entries.iter_mut().zip(&mut self.masks).enumerate() {
            let both = mask & *m;
            if desc & both == *e & both {
                // picasso ORs the new bits in (`|=`), which corrupts them when the entry's
                // don't-care bits were not zero; we overwrite them instead.
                let new = mask & !both;
                *e = (*e & !new) | (desc & new);
                *m |= mask;
                return Ok(i);
            }
        }
        if self.entries.len() == limits::OPDESCS {
            return Err(EncodeError::TooManyOpdescs);
        }
        self.entries.push(desc);
        self.masks.push(mask);
        Ok(self.entries.len() - 1)
    }
}

/// Encodes a program with a fresh descriptor table; returns (code words, descriptors).
pub fn encode_program(program: &[Instr]) -> Result<(Vec<u32>, Vec<u32>), EncodeError> {
    let mut table = OpdescTable::new();
    let (words, _) = encode_with_table(program, &mut table)?;
    Ok((words, table.entries))
}

/// Encodes a program appending to (and sharing) `table` — several programs of one SHBIN share
/// one table. Returns the words and, per instruction, the descriptor index used. The MAD
/// reordering is only done when `table` starts empty (it would move entries earlier programs
/// use); otherwise a MAD descriptor ≥ 32 is [`EncodeError::TooManyMadOpdescs`].
pub fn encode_with_table(
    program: &[Instr],
    table: &mut OpdescTable,
) -> Result<(Vec<u32>, Vec<Option<usize>>), EncodeError> {
    let was_empty = table.entries.is_empty();
    let mut idx = Vec::with_capacity(program.len());
    for ins in program {
        idx.push(match ins.opdesc() {
            Some(d) => Some(table.find_or_add(d, opdesc_care_mask(ins.opcode()))?),
            None => None,
        });
    }
    // Erratum 6: MAD/MADI reach descriptors 0–31 only. Move MAD-used entries to the front.
    let is_mad = |i: &Instr| matches!(i, Instr::Mad { .. });
    if program
        .iter()
        .zip(&idx)
        .any(|(i, d)| is_mad(i) && d.is_some_and(|d| d >= limits::MAD_OPDESCS))
    {
        if !was_empty {
            return Err(EncodeError::TooManyMadOpdescs);
        }
        let n = table.entries.len();
        let mut mad_used = vec![false; n];
        for (i, d) in program.iter().zip(&idx) {
            if let (true, Some(d)) = (is_mad(i), d) {
                mad_used[*d] = true;
            }
        }
        if mad_used.iter().filter(|&&m| m).count() > limits::MAD_OPDESCS {
            return Err(EncodeError::TooManyMadOpdescs);
        }
        let order: Vec<usize> = (0..n)
            .filter(|&i| mad_used[i])
            .chain((0..n).filter(|&i| !mad_used[i]))
            .collect();
        let mut new_pos = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            new_pos[old] = new;
        }
        table.entries = order.iter().map(|&o| table.entries[o]).collect();
        table.masks = order.iter().map(|&o| table.masks[o]).collect();
        for d in idx.iter_mut().flatten() {
            *d = new_pos[*d];
        }
    }
    let mut words = Vec::with_capacity(program.len());
    for (at, (ins, d)) in program.iter().zip(&idx).enumerate() {
        words.push(encode_instr(at, ins, d.unwrap_or(0) as u32)?);
    }
    Ok((words, idx))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::{Dst, DstReg, Mask, Src, Swizzle};

    fn mov(mask: u8, sel: u8) -> Instr {
        Instr::Unary {
            op: Opcode::Mov,
            dst: Dst::new(DstReg::Temp(0), Mask(mask)),
            src: Src::new(SrcReg::Temp(1)).swz(Swizzle(sel)),
            index: crate::isa::AddrIndex::None,
        }
    }

    #[test]
    fn mad_descriptors_are_moved_below_32() {
        // 40 distinct MOV descriptors, then a MAD with a new one.
        let mut prog: Vec<Instr> = (0..40)
            .map(|i| mov(1 + (i % 15) as u8, (i / 15) as u8))
            .collect();
        let r = |n| Src::new(SrcReg::Temp(n));
        prog.push(Instr::Mad {
            inverted: false,
            dst: Dst::new(DstReg::Temp(2), Mask(0xF)),
            src1: r(3),
            src2: r(4).swz(Swizzle(0xE4)),
            src3: r(5),
            index: crate::isa::AddrIndex::None,
        });
        let (words, descs) = encode_program(&prog).unwrap();
        assert_eq!(descs.len(), 41);
        let mad = crate::decode::decode_instr(40, words[40], &descs).unwrap();
        assert_eq!(words[40] & 0x1F, 0);
        assert_eq!(
            crate::decode::canonicalize(&mad),
            crate::decode::canonicalize(&prog[40])
        );
        for (i, w) in words.iter().enumerate().take(40) {
            let back = crate::decode::decode_instr(i, *w, &descs).unwrap();
            assert_eq!(
                crate::decode::canonicalize(&back),
                crate::decode::canonicalize(&prog[i])
            );
        }
    }

    #[test]
    fn out_of_range_registers_are_rejected() {
        let bad = Instr::Unary {
            op: Opcode::Mov,
            dst: Dst::new(DstReg::Temp(16), Mask(0xF)),
            src: Src::new(SrcReg::Const(96)),
            index: crate::isa::AddrIndex::None,
        };
        assert!(encode_instr(3, &bad, 0).is_err());
        assert!(encode_program(&[bad]).is_err());
    }

    #[test]
    fn dedup_merges_dont_care_bits() {
        let mut t = OpdescTable::new();
        // RCP reads component 0 of SRC1 only; a DP4 agreeing on it reuses the entry.
        let rcp = 0x8; // mask x, SRC1 .xxxx
        let i = t.find_or_add(rcp, opdesc_care_mask(Opcode::Rcp)).unwrap();
        let dp4 = 0x8 | 0x1B << 5 | 0x1B << 14;
        let j = t.find_or_add(dp4, opdesc_care_mask(Opcode::Dp4)).unwrap();
        assert_eq!(i, j);
        assert_eq!(t.entries[0], dp4);
    }
}
