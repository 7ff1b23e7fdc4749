//! Machine words → [`Instruction`]s.
//!
//! Each instruction is read as: the control word; its `COUNT` is checked against the size implied by the
//! presence mask (1 + ⌈Σ unit bits / 32⌉, §2); then the payload of every present unit is pulled out of the
//! LSB-first bit stream starting at bit 0 of the next word, in [`Unit::ALL`] order, and split into fields with
//! the layouts of [`super::isa`]. Unknown opcodes and reserved encodings are errors; unknown *fields* are kept.
//! Nothing here panics on arbitrary input (every index is checked; a test feeds random words).
//!
//! Not checked (layout properties, not decoding problems): that `NEXT_COUNT`/`PREFETCH` and a branch's
//! `NEXT_COUNT` match the instruction they name, and that unknown fields hold their usual values.

use half::f16;
use thiserror::Error;

use super::instr::*;
use super::isa::{self, *};

/// Why a program could not be decoded. `word` is the word offset of the offending instruction.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("word {word}: program ends inside an instruction of {count} words ({available} left)")]
    Truncated {
        word: usize,
        count: u32,
        available: usize,
    },
    #[error("word {word}: control word count {count} but the present units need {expected} words")]
    CountMismatch {
        word: usize,
        count: u32,
        expected: u32,
    },
    #[error("word {word}: instruction has no units")]
    Empty { word: usize },
    #[error("word {word}: unknown {unit} opcode {op:#x}")]
    UnknownOpcode {
        word: usize,
        unit: &'static str,
        op: u64,
    },
    #[error("word {word}: reserved varying source (source_type {source_type}, perspective {perspective})")]
    ReservedVarying {
        word: usize,
        source_type: u64,
        perspective: u64,
    },
    #[error("empty program")]
    EmptyProgram,
}

/// Decodes a whole program: a sequence of instructions filling `words`, optionally followed by zero padding
/// (Mesa's `PP_CLEAR_PROGRAM` is one 5-word instruction stored in 8 words; a zero control word is never a valid
/// instruction, so trailing zero words are unambiguous).
pub fn decode_program(words: &[u32]) -> Result<Vec<Instruction>, DecodeError> {
    if words.first().is_none_or(|&w| w == 0) {
        return Err(DecodeError::EmptyProgram);
    }
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < words.len() && words[pos..].iter().any(|&w| w != 0) {
        let instr = decode_instruction(words, pos)?;
        pos += instr.control.count as usize;
        out.push(instr);
    }
    Ok(out)
}

/// Decodes the control word alone.
pub fn decode_control(word: u32) -> Control {
    let w = word as u128;
    Control {
        count: control::COUNT.get(w) as u8,
        stop: control::STOP.get(w) != 0,
        sync: control::SYNC.get(w) != 0,
        fields: control::FIELDS.get(w) as u16,
        next_count: control::NEXT_COUNT.get(w) as u8,
        prefetch: control::PREFETCH.get(w) != 0,
        unknown: control::UNKNOWN.get(w) as u8,
    }
}

/// Decodes the instruction starting at `words[at]`.
pub fn decode_instruction(words: &[u32], at: usize) -> Result<Instruction, DecodeError> {
    let word = at;
    let Some(&cw) = words.get(at) else {
        return Err(DecodeError::Truncated {
            word,
            count: 1,
            available: 0,
        });
    };
    let control = decode_control(cw);
    let fields = u32::from(control.fields);
    if fields == 0 {
        return Err(DecodeError::Empty { word });
    }
    let expected = instr_words(fields);
    if u32::from(control.count) != expected {
        return Err(DecodeError::CountMismatch {
            word,
            count: control.count.into(),
            expected,
        });
    }
    let available = words.len() - at;
    if available < expected as usize {
        return Err(DecodeError::Truncated {
            word,
            count: expected,
            available,
        });
    }
    let payload = &words[at + 1..at + expected as usize];
    let mut reader = BitReader {
        words: payload,
        pos: 0,
    };
    let mut raw = [None::<u128>; 12];
    for unit in Unit::ALL {
        if fields & unit.presence_bit() != 0 {
            raw[unit.index() as usize] = Some(reader.read(unit.bits()));
        }
    }
    let d = UnitDecoder { word };
    Ok(Instruction {
        control,
        varying: raw[Unit::Varying as usize]
            .map(|p| d.varying(p))
            .transpose()?,
        sampler: raw[Unit::Sampler as usize].map(sampler),
        uniform: raw[Unit::Uniform as usize].map(uniform),
        vec4_mul: raw[Unit::Vec4Mul as usize]
            .map(|p| d.vec4_mul(p))
            .transpose()?,
        float_mul: raw[Unit::FloatMul as usize]
            .map(|p| d.float_mul(p))
            .transpose()?,
        vec4_acc: raw[Unit::Vec4Acc as usize]
            .map(|p| d.vec4_acc(p))
            .transpose()?,
        float_acc: raw[Unit::FloatAcc as usize]
            .map(|p| d.float_acc(p))
            .transpose()?,
        combine: raw[Unit::Combine as usize]
            .map(|p| d.combine(p))
            .transpose()?,
        temp_write: raw[Unit::TempWrite as usize].map(temp_write),
        branch: raw[Unit::Branch as usize].map(branch),
        const0: raw[Unit::Const0 as usize].map(constant),
        const1: raw[Unit::Const1 as usize].map(constant),
    })
}

/// Reads LSB-first bit ranges out of a word slice; bits past the end read as 0.
struct BitReader<'a> {
    words: &'a [u32],
    pos: u32,
}

impl BitReader<'_> {
    fn read(&mut self, bits: u32) -> u128 {
        let mut v: u128 = 0;
        for i in 0..bits {
            let p = self.pos + i;
            let w = self.words.get((p / 32) as usize).copied().unwrap_or(0);
            v |= u128::from((w >> (p % 32)) & 1) << i;
        }
        self.pos += bits;
        v
    }
}

fn flag(f: Field, p: u128) -> bool {
    f.get(p) != 0
}

fn vec4_src(p: u128, src: Field, swz: Field, abs: Option<Field>, neg: Option<Field>) -> Vec4Src {
    Vec4Src {
        reg: Vec4Reg::from_bits(src.get(p)),
        swizzle: Swizzle(swz.get(p) as u8),
        abs: abs.is_some_and(|f| flag(f, p)),
        neg: neg.is_some_and(|f| flag(f, p)),
    }
}

fn scalar_src(p: u128, src: Field, abs: Field, neg: Field) -> ScalarSrc {
    ScalarSrc {
        reg: ScalarReg(src.get(p) as u8),
        abs: flag(abs, p),
        neg: flag(neg, p),
    }
}

struct UnitDecoder {
    word: usize,
}

impl UnitDecoder {
    fn unknown_op(&self, unit: &'static str, op: u64) -> DecodeError {
        DecodeError::UnknownOpcode {
            word: self.word,
            unit,
            op,
        }
    }

    fn varying(&self, p: u128) -> Result<Varying, DecodeError> {
        use isa::varying_imm as vi;
        use isa::varying_reg as vr;
        let source_type = vi::SOURCE_TYPE.get(p);
        let perspective = vi::PERSPECTIVE.get(p);
        let kind = VaryingKind::from_bits(source_type, perspective).ok_or(
            DecodeError::ReservedVarying {
                word: self.word,
                source_type,
                perspective,
            },
        )?;
        let imm = VaryingImm {
            alignment: vi::ALIGNMENT.get(p) as u8,
            index: vi::INDEX.get(p) as u8,
            offset_vector: vi::OFFSET_VECTOR.get(p) as u8,
            offset_scalar: vi::OFFSET_SCALAR.get(p) as u8,
        };
        let reg = VaryingReg {
            src: vec4_src(
                p,
                vr::SOURCE,
                vr::SWIZZLE,
                Some(vr::ABSOLUTE),
                Some(vr::NEGATE),
            ),
            normalize: flag(vr::NORMALIZE, p),
        };
        let persp = perspective as u8;
        let source = match kind {
            VaryingKind::Varying => VaryingSource::Varying {
                perspective: persp,
                imm,
            },
            VaryingKind::Register => VaryingSource::Register {
                perspective: persp,
                reg,
            },
            VaryingKind::CubeVarying => VaryingSource::CubeVarying(imm),
            VaryingKind::CubeRegister => VaryingSource::CubeRegister(reg),
            VaryingKind::Normalize => VaryingSource::Normalize(reg),
            VaryingKind::FragCoord => VaryingSource::FragCoord(imm),
            VaryingKind::PointCoord => VaryingSource::PointCoord(imm),
            VaryingKind::FrontFacing => VaryingSource::FrontFacing(imm),
        };
        let unknown = if kind.uses_register_layout() {
            unknown_mask(vr::ALL)
        } else {
            unknown_mask(vi::ALL)
        };
        Ok(Varying {
            dest: vi::DEST.get(p) as u8,
            mask: vi::MASK.get(p) as u8,
            source,
            unknown: p & unknown,
        })
    }

    fn vec4_mul(&self, p: u128) -> Result<Vec4Mul, DecodeError> {
        use isa::vec4_mul as f;
        let op = MulOp::from_bits(f::OP.get(p))
            .ok_or_else(|| self.unknown_op("vec4 mul", f::OP.get(p)))?;
        Ok(Vec4Mul {
            op,
            arg0: vec4_src(
                p,
                f::ARG0_SOURCE,
                f::ARG0_SWIZZLE,
                Some(f::ARG0_ABS),
                Some(f::ARG0_NEG),
            ),
            arg1: vec4_src(
                p,
                f::ARG1_SOURCE,
                f::ARG1_SWIZZLE,
                Some(f::ARG1_ABS),
                Some(f::ARG1_NEG),
            ),
            dest: f::DEST.get(p) as u8,
            mask: f::MASK.get(p) as u8,
            modifier: OutMod::from_bits(f::DEST_MODIFIER.get(p)),
        })
    }

    fn vec4_acc(&self, p: u128) -> Result<Vec4Acc, DecodeError> {
        use isa::vec4_acc as f;
        let op = AccOp::from_bits(f::OP.get(p))
            .ok_or_else(|| self.unknown_op("vec4 add", f::OP.get(p)))?;
        Ok(Vec4Acc {
            op,
            arg0: vec4_src(
                p,
                f::ARG0_SOURCE,
                f::ARG0_SWIZZLE,
                Some(f::ARG0_ABS),
                Some(f::ARG0_NEG),
            ),
            arg1: vec4_src(
                p,
                f::ARG1_SOURCE,
                f::ARG1_SWIZZLE,
                Some(f::ARG1_ABS),
                Some(f::ARG1_NEG),
            ),
            dest: f::DEST.get(p) as u8,
            mask: f::MASK.get(p) as u8,
            modifier: OutMod::from_bits(f::DEST_MODIFIER.get(p)),
            mul_in: flag(f::MUL_IN, p),
        })
    }

    fn float_mul(&self, p: u128) -> Result<FloatMul, DecodeError> {
        use isa::float_mul as f;
        let op = MulOp::from_bits(f::OP.get(p))
            .ok_or_else(|| self.unknown_op("scalar mul", f::OP.get(p)))?;
        Ok(FloatMul {
            op,
            arg0: scalar_src(p, f::ARG0_SOURCE, f::ARG0_ABS, f::ARG0_NEG),
            arg1: scalar_src(p, f::ARG1_SOURCE, f::ARG1_ABS, f::ARG1_NEG),
            dest: ScalarReg(f::DEST.get(p) as u8),
            output_en: flag(f::OUTPUT_EN, p),
            modifier: OutMod::from_bits(f::DEST_MODIFIER.get(p)),
        })
    }

    fn float_acc(&self, p: u128) -> Result<FloatAcc, DecodeError> {
        use isa::float_acc as f;
        let op = AccOp::from_bits_scalar(f::OP.get(p))
            .ok_or_else(|| self.unknown_op("scalar add", f::OP.get(p)))?;
        Ok(FloatAcc {
            op,
            arg0: scalar_src(p, f::ARG0_SOURCE, f::ARG0_ABS, f::ARG0_NEG),
            arg1: scalar_src(p, f::ARG1_SOURCE, f::ARG1_ABS, f::ARG1_NEG),
            dest: ScalarReg(f::DEST.get(p) as u8),
            output_en: flag(f::OUTPUT_EN, p),
            modifier: OutMod::from_bits(f::DEST_MODIFIER.get(p)),
            mul_in: flag(f::MUL_IN, p),
        })
    }

    fn combine(&self, p: u128) -> Result<Combine, DecodeError> {
        use isa::{
            combine_atan_pt1 as a1, combine_atan_pt2 as a2, combine_scalar as s,
            combine_vector as v,
        };
        let dest_vec = flag(s::DEST_VEC, p);
        let src_vec = flag(s::SRC_VEC, p);
        let op = |f: Field| {
            CombineOp::from_bits(f.get(p)).ok_or_else(|| self.unknown_op("combiner", f.get(p)))
        };
        Ok(match (dest_vec, src_vec) {
            (false, false) => Combine::Scalar {
                op: op(s::OP)?,
                dest: ScalarReg(s::DEST.get(p) as u8),
                modifier: OutMod::from_bits(s::DEST_MODIFIER.get(p)),
                arg0: scalar_src(p, s::ARG0_SRC, s::ARG0_ABS, s::ARG0_NEG),
                arg1: scalar_src(p, s::ARG1_SRC, s::ARG1_ABS, s::ARG1_NEG),
            },
            (true, true) => Combine::VecMul {
                dest: v::DEST.get(p) as u8,
                mask: v::MASK.get(p) as u8,
                arg0: scalar_src(p, v::ARG0_SRC, v::ARG0_ABS, v::ARG0_NEG),
                arg1: vec4_src(p, v::ARG1_SOURCE, v::ARG1_SWIZZLE, None, None),
            },
            (false, true) => Combine::AtanPt2 {
                dest: ScalarReg(a2::DEST.get(p) as u8),
                modifier: OutMod::from_bits(a2::DEST_MODIFIER.get(p)),
                arg0: scalar_src(p, a2::ARG0_SRC, a2::ARG0_ABS, a2::ARG0_NEG),
                arg1: vec4_src(p, a2::ARG1_SOURCE, a2::ARG1_SWIZZLE, None, None),
            },
            (true, false) => Combine::AtanPt1 {
                op: op(a1::OP)?,
                dest: a1::DEST.get(p) as u8,
                mask: a1::MASK.get(p) as u8,
                arg0: scalar_src(p, a1::ARG0_SRC, a1::ARG0_ABS, a1::ARG0_NEG),
                arg1: scalar_src(p, a1::ARG1_SRC, a1::ARG1_ABS, a1::ARG1_NEG),
            },
        })
    }
}

fn sampler(p: u128) -> Sampler {
    use isa::sampler as f;
    Sampler {
        lod_bias: ScalarReg(f::LOD_BIAS.get(p) as u8),
        index_offset: ScalarReg(f::INDEX_OFFSET.get(p) as u8),
        explicit_lod: flag(f::EXPLICIT_LOD, p),
        lod_bias_en: flag(f::LOD_BIAS_EN, p),
        ty: SamplerType::from_bits(f::TYPE.get(p)),
        offset_en: flag(f::OFFSET_EN, p),
        index: f::INDEX.get(p) as u16,
        unknown: p & unknown_mask(f::ALL),
    }
}

fn uniform(p: u128) -> UniformLoad {
    use isa::uniform as f;
    UniformLoad {
        source: UniformSource::from_bits(f::SOURCE.get(p)),
        alignment: f::ALIGNMENT.get(p) as u8,
        offset_reg: ScalarReg(f::OFFSET_REG.get(p) as u8),
        offset_en: flag(f::OFFSET_EN, p),
        index: f::INDEX.get_signed(p) as i16,
        unknown: p & unknown_mask(f::ALL),
    }
}

fn temp_write(p: u128) -> TempWrite {
    if fb_read::UNKNOWN_0.get(p) == FB_READ_SELECT {
        let f = fb_read::ALL;
        return TempWrite::FbRead {
            color: flag(fb_read::SOURCE, p),
            dest: fb_read::DEST.get(p) as u8,
            unknown: p & unknown_mask(f),
        };
    }
    use isa::temp_write as f;
    TempWrite::Store {
        dest: f::DEST.get(p) as u8,
        source: ScalarReg(f::SOURCE.get(p) as u8),
        alignment: f::ALIGNMENT.get(p) as u8,
        offset_reg: ScalarReg(f::OFFSET_REG.get(p) as u8),
        offset_en: flag(f::OFFSET_EN, p),
        index: f::INDEX.get_signed(p) as i16,
        unknown: p & unknown_mask(f::ALL),
    }
}

fn branch(p: u128) -> Branch {
    use isa::branch as f;
    if p == DISCARD_PAYLOAD {
        return Branch::Discard;
    }
    Branch::Branch {
        cond: BranchCond {
            lt: flag(f::COND_LT, p),
            eq: flag(f::COND_EQ, p),
            gt: flag(f::COND_GT, p),
        },
        arg0: ScalarReg(f::ARG0_SOURCE.get(p) as u8),
        arg1: ScalarReg(f::ARG1_SOURCE.get(p) as u8),
        target: f::TARGET.get_signed(p) as i32,
        next_count: f::NEXT_COUNT.get(p) as u8,
        unknown: p & unknown_mask(f::ALL),
    }
}

fn constant(p: u128) -> [f16; 4] {
    use isa::vec4_const as f;
    [f::X, f::Y, f::Z, f::W].map(|c| f16::from_bits(c.get(p) as u16))
}
