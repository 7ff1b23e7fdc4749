//! [`Instruction`]s → machine words (the inverse of [`super::decode`], written against the field table of
//! [`super::isa`] and the [`Instruction`] type only).
//!
//! # Algorithm
//!
//! For each present unit (in [`Unit::ALL`] order) a payload is built as a `u128`: it starts from the unit's
//! `unknown` member (the bits of its fields of unknown meaning, payload-positioned; units without unknown
//! fields start from 0), and every known field is stored with [`Field::set`] after a range check
//! ([`Field::fits`] / [`Field::fits_signed`]). The payloads are then concatenated LSB-first, without alignment,
//! starting at bit 0 of word 1, and rounded up to whole words. The control word gets `COUNT` (1 + payload
//! words), `FIELDS` (the presence mask), and `STOP`, `SYNC`, `NEXT_COUNT`, `PREFETCH`, `UNKNOWN` as given.
//!
//! [`encode_instruction`] is exact: for every instruction the decoder produces, `encode(decode(w)) == w`.
//! [`encode_program`] first runs [`link_program`], which sets what the reference (§2.1, §4.8) derives from the
//! program layout: `COUNT`/`FIELDS`, `NEXT_COUNT` = count of the next instruction (0 on the last),
//! `PREFETCH` = whether a next instruction exists, and each branch's `NEXT_COUNT` = count of the instruction
//! at its target. `STOP` stays as given.
//!
//! # Checks
//!
//! Errors name the instruction index, the unit and the field; nothing panics. Besides "value does not fit",
//! the encoder rejects instructions that the decoder would read back as something else: an empty instruction,
//! `Gpr(n)` with n ≥ 12 (those codes are `^const0`…), sampler type `Other(0|0x1F)`, uniform source
//! `Other(0|3)`, sum3/sum4 on the scalar add unit, abs/neg on the combiner's vec4 operand (no such bits), a
//! branch whose payload equals the discard encoding, a temp store whose bits select fb_read, an fb_read
//! without the selector, unknown bits outside the unit's unknown fields, and a nonzero control
//! `COUNT`/`FIELDS` that disagrees with the units present (0 means "derive"). [`link_program`] also rejects a
//! branch target that is not the start of an instruction, and a texture fetch or derivative without `sync`.

use thiserror::Error;

use super::instr::*;
use super::isa::{self, *};

/// Why an instruction could not be encoded. `index` is the instruction's position in the program (0 for
/// [`encode_instruction`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeError {
    #[error("instruction {index}: {unit} field {field} = {value} does not fit in {width} bits")]
    DoesNotFit {
        index: usize,
        unit: &'static str,
        field: &'static str,
        value: i64,
        width: u32,
    },
    #[error("instruction {index}: {unit} field {field}: {reason}")]
    Invalid {
        index: usize,
        unit: &'static str,
        field: &'static str,
        reason: &'static str,
    },
    #[error(
        "instruction {index}: {unit} unknown bits {bits:#x} lie outside the unit's unknown fields"
    )]
    UnknownBits {
        index: usize,
        unit: &'static str,
        bits: u128,
    },
    #[error(
        "instruction {index}: control {field} is {given} but the units present need {expected}"
    )]
    Control {
        index: usize,
        field: &'static str,
        given: u32,
        expected: u32,
    },
    #[error("instruction {index}: no unit present (an instruction needs at least one)")]
    Empty { index: usize },
    #[error("instruction {index}: branch target word {target} is not the start of an instruction")]
    BranchTarget { index: usize, target: i64 },
}

/// Encodes one instruction exactly as given (control fields included; `COUNT`/`FIELDS` may be 0 = derive).
pub fn encode_instruction(instr: &Instruction) -> Result<Vec<u32>, EncodeError> {
    encode_at(instr, 0)
}

/// Links (see [`link_program`]) and encodes a whole program.
pub fn encode_program(program: &[Instruction]) -> Result<Vec<u32>, EncodeError> {
    let mut linked = program.to_vec();
    link_program(&mut linked)?;
    let mut out = Vec::new();
    for (index, instr) in linked.iter().enumerate() {
        out.extend(encode_at(instr, index)?);
    }
    Ok(out)
}

/// The presence mask (`control::FIELDS`) of the units present in `instr`.
pub fn presence_mask(instr: &Instruction) -> u32 {
    let present = [
        instr.varying.is_some(),
        instr.sampler.is_some(),
        instr.uniform.is_some(),
        instr.vec4_mul.is_some(),
        instr.float_mul.is_some(),
        instr.vec4_acc.is_some(),
        instr.float_acc.is_some(),
        instr.combine.is_some(),
        instr.temp_write.is_some(),
        instr.branch.is_some(),
        instr.const0.is_some(),
        instr.const1.is_some(),
    ];
    Unit::ALL
        .iter()
        .zip(present)
        .filter(|(_, p)| *p)
        .fold(0, |m, (u, _)| m | u.presence_bit())
}

/// Sets the layout-derived fields of every instruction: control `COUNT`, `FIELDS`, `NEXT_COUNT`, `PREFETCH`,
/// and each branch's `NEXT_COUNT` (count of the target instruction). Checks `sync` where the reference
/// requires it (texture fetch, or dFdx/dFdy in an add unit).
pub fn link_program(program: &mut [Instruction]) -> Result<(), EncodeError> {
    let mut counts = Vec::with_capacity(program.len());
    for (index, instr) in program.iter().enumerate() {
        let (fields, count) = derived_control(instr, index)?;
        counts.push((fields, count));
    }
    let mut offsets = Vec::with_capacity(program.len());
    let mut off = 0i64;
    for &(_, c) in &counts {
        offsets.push(off);
        off += i64::from(c);
    }
    for index in 0..program.len() {
        let (fields, count) = counts[index];
        let next = counts.get(index + 1).map_or(0, |&(_, c)| c);
        let instr = &mut program[index];
        needs_sync(instr, index)?;
        let c = &mut instr.control;
        c.fields = fields as u16;
        c.count = count as u8;
        c.next_count = next as u8;
        c.prefetch = index + 1 < counts.len();
        if let Some(Branch::Branch {
            target, next_count, ..
        }) = &mut instr.branch
        {
            let abs = offsets[index] + i64::from(*target);
            let at = offsets
                .binary_search(&abs)
                .map_err(|_| EncodeError::BranchTarget { index, target: abs })?;
            *next_count = counts[at].1 as u8;
        }
    }
    Ok(())
}

/// `(FIELDS, COUNT)` implied by the units, checked against nonzero given values.
fn derived_control(instr: &Instruction, index: usize) -> Result<(u32, u32), EncodeError> {
    let fields = presence_mask(instr);
    if fields == 0 {
        return Err(EncodeError::Empty { index });
    }
    let count = instr_words(fields);
    for (field, given, expected) in [
        ("FIELDS", u32::from(instr.control.fields), fields),
        ("COUNT", u32::from(instr.control.count), count),
    ] {
        if given != 0 && given != expected {
            return Err(EncodeError::Control {
                index,
                field,
                given,
                expected,
            });
        }
    }
    Ok((fields, count))
}

fn needs_sync(instr: &Instruction, index: usize) -> Result<(), EncodeError> {
    let deriv = |op: AccOp| matches!(op, AccOp::DFdx | AccOp::DFdy);
    let needed = instr.sampler.is_some()
        || instr.vec4_acc.is_some_and(|a| deriv(a.op))
        || instr.float_acc.is_some_and(|a| deriv(a.op));
    if needed && !instr.control.sync {
        return Err(EncodeError::Invalid {
            index,
            unit: "control",
            field: "SYNC",
            reason: "a texture fetch or a derivative needs sync",
        });
    }
    Ok(())
}

fn encode_at(instr: &Instruction, index: usize) -> Result<Vec<u32>, EncodeError> {
    let (fields, count) = derived_control(instr, index)?;
    let payloads = unit_payloads_at(instr, index)?;
    let mut words = vec![0u32; count as usize];
    let mut pos = 32; // bit position in `words`; the payload starts at word 1
    for (unit, p) in payloads {
        put_bits(&mut words, pos, p, unit.bits());
        pos += unit.bits();
    }
    let e = Enc {
        index,
        unit: "control",
    };
    let c = &instr.control;
    let mut w = 0u128;
    w = e.set(w, control::COUNT, count.into())?;
    w = e.set(w, control::STOP, c.stop.into())?;
    w = e.set(w, control::SYNC, c.sync.into())?;
    w = e.set(w, control::FIELDS, fields.into())?;
    w = e.set(w, control::NEXT_COUNT, c.next_count.into())?;
    w = e.set(w, control::PREFETCH, c.prefetch.into())?;
    w = e.set(w, control::UNKNOWN, c.unknown.into())?;
    words[0] = w as u32;
    Ok(words)
}

/// ORs the low `bits` bits of `payload` into `words` starting at bit `pos` (LSB-first), a word chunk at a time.
fn put_bits(words: &mut [u32], pos: u32, payload: u128, bits: u32) {
    let mut done = 0;
    while done < bits {
        let p = pos + done;
        let (w, off) = ((p / 32) as usize, p % 32);
        let take = (32 - off).min(bits - done);
        let chunk = ((payload >> done) as u32) & (u32::MAX >> (32 - take));
        if let Some(slot) = words.get_mut(w) {
            *slot |= chunk << off;
        }
        done += take;
    }
}

/// The payload of every present unit, in unit order (exposed for the size test).
pub fn unit_payloads(instr: &Instruction) -> Result<Vec<(Unit, u128)>, EncodeError> {
    unit_payloads_at(instr, 0)
}

fn unit_payloads_at(instr: &Instruction, index: usize) -> Result<Vec<(Unit, u128)>, EncodeError> {
    let e = |unit| Enc { index, unit };
    let mut out = Vec::new();
    if let Some(v) = &instr.varying {
        out.push((Unit::Varying, e("varying").varying(v)?));
    }
    if let Some(s) = &instr.sampler {
        out.push((Unit::Sampler, e("sampler").sampler(s)?));
    }
    if let Some(u) = &instr.uniform {
        out.push((Unit::Uniform, e("uniform").uniform(u)?));
    }
    if let Some(m) = &instr.vec4_mul {
        out.push((Unit::Vec4Mul, e("vec4_mul").vec4_mul(m)?));
    }
    if let Some(m) = &instr.float_mul {
        out.push((Unit::FloatMul, e("float_mul").float_mul(m)?));
    }
    if let Some(a) = &instr.vec4_acc {
        out.push((Unit::Vec4Acc, e("vec4_acc").vec4_acc(a)?));
    }
    if let Some(a) = &instr.float_acc {
        out.push((Unit::FloatAcc, e("float_acc").float_acc(a)?));
    }
    if let Some(c) = &instr.combine {
        out.push((Unit::Combine, e("combine").combine(c)?));
    }
    if let Some(t) = &instr.temp_write {
        out.push((Unit::TempWrite, e("temp_write").temp_write(t)?));
    }
    if let Some(b) = &instr.branch {
        out.push((Unit::Branch, e("branch").branch(b)?));
    }
    if let Some(c) = &instr.const0 {
        out.push((Unit::Const0, constant(c)));
    }
    if let Some(c) = &instr.const1 {
        out.push((Unit::Const1, constant(c)));
    }
    Ok(out)
}

fn constant(c: &[half::f16; 4]) -> u128 {
    use isa::vec4_const as f;
    [f::X, f::Y, f::Z, f::W]
        .iter()
        .zip(c)
        .fold(0, |p, (fld, v)| fld.set(p, v.to_bits().into()))
}

/// Encoding context of one unit: where errors point.
struct Enc {
    index: usize,
    unit: &'static str,
}

impl Enc {
    fn set(&self, p: u128, f: Field, v: u64) -> Result<u128, EncodeError> {
        if !f.fits(v) {
            return Err(EncodeError::DoesNotFit {
                index: self.index,
                unit: self.unit,
                field: f.name,
                value: v as i64,
                width: f.width,
            });
        }
        Ok(f.set(p, v))
    }

    fn set_signed(&self, p: u128, f: Field, v: i64) -> Result<u128, EncodeError> {
        if !f.fits_signed(v) {
            return Err(EncodeError::DoesNotFit {
                index: self.index,
                unit: self.unit,
                field: f.name,
                value: v,
                width: f.width,
            });
        }
        Ok(f.set(p, v as u64))
    }

    fn flag(&self, p: u128, f: Field, v: bool) -> u128 {
        f.set(p, v.into())
    }

    fn invalid(&self, field: &'static str, reason: &'static str) -> EncodeError {
        EncodeError::Invalid {
            index: self.index,
            unit: self.unit,
            field,
            reason,
        }
    }

    /// The unit's unknown bits, checked to lie inside the layout's unknown fields.
    fn unknown(&self, bits: u128, layout: &[Field]) -> Result<u128, EncodeError> {
        let outside = bits & !unknown_mask(layout);
        if outside != 0 {
            return Err(EncodeError::UnknownBits {
                index: self.index,
                unit: self.unit,
                bits: outside,
            });
        }
        Ok(bits)
    }

    fn vec4_reg(&self, f: Field, r: Vec4Reg) -> Result<u64, EncodeError> {
        match r {
            Vec4Reg::Gpr(n) if n >= isa::reg::GPR_ENCODABLE => Err(self.invalid(
                f.name,
                "general register number >= 12 is a pipeline register code",
            )),
            _ => Ok(r.bits().into()),
        }
    }

    /// Stores a vec4 source; `abs`/`neg` are `None` where the layout has no such bits.
    fn vec4_src(
        &self,
        mut p: u128,
        s: &Vec4Src,
        [src, swz]: [Field; 2],
        mods: Option<[Field; 2]>,
    ) -> Result<u128, EncodeError> {
        p = self.set(p, src, self.vec4_reg(src, s.reg)?)?;
        p = swz.set(p, s.swizzle.0.into());
        match mods {
            Some([abs, neg]) => Ok(self.flag(self.flag(p, abs, s.abs), neg, s.neg)),
            None if s.abs || s.neg => {
                Err(self.invalid(src.name, "this operand has no abs/neg bits"))
            }
            None => Ok(p),
        }
    }

    fn scalar_src(
        &self,
        mut p: u128,
        s: &ScalarSrc,
        [src, abs, neg]: [Field; 3],
    ) -> Result<u128, EncodeError> {
        p = self.set(p, src, s.reg.0.into())?;
        Ok(self.flag(self.flag(p, abs, s.abs), neg, s.neg))
    }

    fn varying(&self, v: &Varying) -> Result<u128, EncodeError> {
        use isa::varying_imm as vi;
        use isa::varying_reg as vr;
        let kind = v.source.kind();
        let layout = if kind.uses_register_layout() {
            vr::ALL
        } else {
            vi::ALL
        };
        let mut p = self.unknown(v.unknown, layout)?;
        p = self.set(p, vi::SOURCE_TYPE, kind.source_type())?;
        let persp = match v.source {
            VaryingSource::Varying { perspective, .. }
            | VaryingSource::Register { perspective, .. } => u64::from(perspective),
            _ => kind.fixed_perspective().unwrap_or(0),
        };
        p = self.set(p, vi::PERSPECTIVE, persp)?;
        p = self.set(p, vi::DEST, v.dest.into())?;
        p = self.set(p, vi::MASK, v.mask.into())?;
        match &v.source {
            VaryingSource::Varying { imm, .. }
            | VaryingSource::CubeVarying(imm)
            | VaryingSource::FragCoord(imm)
            | VaryingSource::PointCoord(imm)
            | VaryingSource::FrontFacing(imm) => {
                p = self.set(p, vi::ALIGNMENT, imm.alignment.into())?;
                p = self.set(p, vi::INDEX, imm.index.into())?;
                p = self.set(p, vi::OFFSET_VECTOR, imm.offset_vector.into())?;
                p = self.set(p, vi::OFFSET_SCALAR, imm.offset_scalar.into())?;
            }
            VaryingSource::Register { reg, .. }
            | VaryingSource::CubeRegister(reg)
            | VaryingSource::Normalize(reg) => {
                p = self.vec4_src(
                    p,
                    &reg.src,
                    [vr::SOURCE, vr::SWIZZLE],
                    Some([vr::ABSOLUTE, vr::NEGATE]),
                )?;
                p = self.flag(p, vr::NORMALIZE, reg.normalize);
            }
        }
        Ok(p)
    }

    fn sampler(&self, s: &Sampler) -> Result<u128, EncodeError> {
        use isa::sampler as f;
        let mut p = self.unknown(s.unknown, f::ALL)?;
        p = self.set(p, f::LOD_BIAS, s.lod_bias.0.into())?;
        p = self.set(p, f::INDEX_OFFSET, s.index_offset.0.into())?;
        p = self.flag(p, f::EXPLICIT_LOD, s.explicit_lod);
        p = self.flag(p, f::LOD_BIAS_EN, s.lod_bias_en);
        if let SamplerType::Other(0 | 0x1F) = s.ty {
            return Err(self.invalid(f::TYPE.name, "Other(0) / Other(0x1F) are Generic / Cube"));
        }
        p = self.set(p, f::TYPE, s.ty.bits())?;
        p = self.flag(p, f::OFFSET_EN, s.offset_en);
        self.set(p, f::INDEX, s.index.into())
    }

    fn uniform(&self, u: &UniformLoad) -> Result<u128, EncodeError> {
        use isa::uniform as f;
        let mut p = self.unknown(u.unknown, f::ALL)?;
        if let UniformSource::Other(0 | 3) = u.source {
            return Err(self.invalid(
                f::SOURCE.name,
                "Other(0) / Other(3) are Uniform / Temporary",
            ));
        }
        p = self.set(p, f::SOURCE, u.source.bits())?;
        p = self.set(p, f::ALIGNMENT, u.alignment.into())?;
        p = self.set(p, f::OFFSET_REG, u.offset_reg.0.into())?;
        p = self.flag(p, f::OFFSET_EN, u.offset_en);
        self.set_signed(p, f::INDEX, u.index.into())
    }

    fn vec4_mul(&self, m: &Vec4Mul) -> Result<u128, EncodeError> {
        use isa::vec4_mul as f;
        let mut p = self.vec4_src(
            0,
            &m.arg0,
            [f::ARG0_SOURCE, f::ARG0_SWIZZLE],
            Some([f::ARG0_ABS, f::ARG0_NEG]),
        )?;
        p = self.vec4_src(
            p,
            &m.arg1,
            [f::ARG1_SOURCE, f::ARG1_SWIZZLE],
            Some([f::ARG1_ABS, f::ARG1_NEG]),
        )?;
        p = self.set(p, f::DEST, m.dest.into())?;
        p = self.set(p, f::MASK, m.mask.into())?;
        p = f::DEST_MODIFIER.set(p, m.modifier as u64);
        Ok(f::OP.set(p, m.op.bits()))
    }

    fn vec4_acc(&self, a: &Vec4Acc) -> Result<u128, EncodeError> {
        use isa::vec4_acc as f;
        let mut p = self.vec4_src(
            0,
            &a.arg0,
            [f::ARG0_SOURCE, f::ARG0_SWIZZLE],
            Some([f::ARG0_ABS, f::ARG0_NEG]),
        )?;
        p = self.vec4_src(
            p,
            &a.arg1,
            [f::ARG1_SOURCE, f::ARG1_SWIZZLE],
            Some([f::ARG1_ABS, f::ARG1_NEG]),
        )?;
        p = self.set(p, f::DEST, a.dest.into())?;
        p = self.set(p, f::MASK, a.mask.into())?;
        p = f::DEST_MODIFIER.set(p, a.modifier as u64);
        p = f::OP.set(p, a.op.bits());
        Ok(self.flag(p, f::MUL_IN, a.mul_in))
    }

    fn float_mul(&self, m: &FloatMul) -> Result<u128, EncodeError> {
        use isa::float_mul as f;
        let mut p = self.scalar_src(0, &m.arg0, [f::ARG0_SOURCE, f::ARG0_ABS, f::ARG0_NEG])?;
        p = self.scalar_src(p, &m.arg1, [f::ARG1_SOURCE, f::ARG1_ABS, f::ARG1_NEG])?;
        p = self.set(p, f::DEST, m.dest.0.into())?;
        p = self.flag(p, f::OUTPUT_EN, m.output_en);
        p = f::DEST_MODIFIER.set(p, m.modifier as u64);
        Ok(f::OP.set(p, m.op.bits()))
    }

    fn float_acc(&self, a: &FloatAcc) -> Result<u128, EncodeError> {
        use isa::float_acc as f;
        if !a.op.scalar_ok() {
            return Err(self.invalid(f::OP.name, "sum3/sum4 exist only on the vec4 add unit"));
        }
        let mut p = self.scalar_src(0, &a.arg0, [f::ARG0_SOURCE, f::ARG0_ABS, f::ARG0_NEG])?;
        p = self.scalar_src(p, &a.arg1, [f::ARG1_SOURCE, f::ARG1_ABS, f::ARG1_NEG])?;
        p = self.set(p, f::DEST, a.dest.0.into())?;
        p = self.flag(p, f::OUTPUT_EN, a.output_en);
        p = f::DEST_MODIFIER.set(p, a.modifier as u64);
        p = f::OP.set(p, a.op.bits());
        Ok(self.flag(p, f::MUL_IN, a.mul_in))
    }

    fn combine(&self, c: &Combine) -> Result<u128, EncodeError> {
        use isa::{
            combine_atan_pt1 as a1, combine_atan_pt2 as a2, combine_scalar as s,
            combine_vector as v,
        };
        Ok(match c {
            Combine::Scalar {
                op,
                dest,
                modifier,
                arg0,
                arg1,
            } => {
                let mut p = s::OP.set(0, op.bits());
                p = self.scalar_src(p, arg0, [s::ARG0_SRC, s::ARG0_ABS, s::ARG0_NEG])?;
                p = self.scalar_src(p, arg1, [s::ARG1_SRC, s::ARG1_ABS, s::ARG1_NEG])?;
                p = s::DEST_MODIFIER.set(p, *modifier as u64);
                self.set(p, s::DEST, dest.0.into())?
            }
            Combine::VecMul {
                dest,
                mask,
                arg0,
                arg1,
            } => {
                let mut p = self.flag(self.flag(0, v::DEST_VEC, true), v::SRC_VEC, true);
                p = self.vec4_src(p, arg1, [v::ARG1_SOURCE, v::ARG1_SWIZZLE], None)?;
                p = self.scalar_src(p, arg0, [v::ARG0_SRC, v::ARG0_ABS, v::ARG0_NEG])?;
                p = self.set(p, v::MASK, (*mask).into())?;
                self.set(p, v::DEST, (*dest).into())?
            }
            Combine::AtanPt2 {
                dest,
                modifier,
                arg0,
                arg1,
            } => {
                let mut p = self.flag(0, a2::SRC_VEC, true);
                p = self.vec4_src(p, arg1, [a2::ARG1_SOURCE, a2::ARG1_SWIZZLE], None)?;
                p = self.scalar_src(p, arg0, [a2::ARG0_SRC, a2::ARG0_ABS, a2::ARG0_NEG])?;
                p = a2::DEST_MODIFIER.set(p, *modifier as u64);
                self.set(p, a2::DEST, dest.0.into())?
            }
            Combine::AtanPt1 {
                op,
                dest,
                mask,
                arg0,
                arg1,
            } => {
                let mut p = self.flag(0, a1::DEST_VEC, true);
                p = a1::OP.set(p, op.bits());
                p = self.scalar_src(p, arg0, [a1::ARG0_SRC, a1::ARG0_ABS, a1::ARG0_NEG])?;
                p = self.scalar_src(p, arg1, [a1::ARG1_SRC, a1::ARG1_ABS, a1::ARG1_NEG])?;
                p = self.set(p, a1::MASK, (*mask).into())?;
                self.set(p, a1::DEST, (*dest).into())?
            }
        })
    }

    fn temp_write(&self, t: &TempWrite) -> Result<u128, EncodeError> {
        match t {
            TempWrite::FbRead {
                color,
                dest,
                unknown,
            } => {
                use isa::fb_read as f;
                let mut p = self.unknown(*unknown, f::ALL)?;
                if f::UNKNOWN_0.get(p) != FB_READ_SELECT {
                    return Err(
                        self.invalid(f::UNKNOWN_0.name, "fb_read needs the selector 0b00111 here")
                    );
                }
                p = self.flag(p, f::SOURCE, *color);
                self.set(p, f::DEST, (*dest).into())
            }
            TempWrite::Store {
                dest,
                source,
                alignment,
                offset_reg,
                offset_en,
                index,
                unknown,
            } => {
                use isa::temp_write as f;
                let mut p = self.unknown(*unknown, f::ALL)?;
                p = self.set(p, f::DEST, (*dest).into())?;
                p = self.set(p, f::SOURCE, source.0.into())?;
                p = self.set(p, f::ALIGNMENT, (*alignment).into())?;
                p = self.set(p, f::OFFSET_REG, offset_reg.0.into())?;
                p = self.flag(p, f::OFFSET_EN, *offset_en);
                p = self.set_signed(p, f::INDEX, (*index).into())?;
                if fb_read::UNKNOWN_0.get(p) == FB_READ_SELECT {
                    return Err(self.invalid(f::UNKNOWN_0.name, "these bits would select fb_read"));
                }
                Ok(p)
            }
        }
    }

    fn branch(&self, b: &Branch) -> Result<u128, EncodeError> {
        use isa::branch as f;
        let Branch::Branch {
            cond,
            arg0,
            arg1,
            target,
            next_count,
            unknown,
        } = b
        else {
            return Ok(DISCARD_PAYLOAD);
        };
        let mut p = self.unknown(*unknown, f::ALL)?;
        p = self.set(p, f::ARG1_SOURCE, arg1.0.into())?;
        p = self.set(p, f::ARG0_SOURCE, arg0.0.into())?;
        p = self.flag(p, f::COND_GT, cond.gt);
        p = self.flag(p, f::COND_EQ, cond.eq);
        p = self.flag(p, f::COND_LT, cond.lt);
        p = self.set_signed(p, f::TARGET, (*target).into())?;
        p = self.set(p, f::NEXT_COUNT, (*next_count).into())?;
        if p == DISCARD_PAYLOAD {
            return Err(self.invalid(
                f::UNKNOWN_0.name,
                "this branch payload is the discard encoding",
            ));
        }
        Ok(p)
    }
}
