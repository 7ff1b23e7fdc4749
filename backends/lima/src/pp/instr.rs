//! The structured form of one PP instruction, as produced by [`super::decode`].
//!
//! Each unit is an `Option` (present iff its bit is set in the control word). Field values are kept exactly as
//! encoded (raw register codes, raw alignment codes …) with typed helpers, and each unit keeps the bits of its
//! unknown fields in `unknown` (a payload-positioned mask, see [`super::isa::unknown_mask`]) so that decoding
//! loses nothing. Semantics of every field: reference §3–§5.

use half::f16;

use super::isa::{
    self, AccOp, BranchCond, CombineOp, MulOp, OutMod, SamplerType, Swizzle, UniformSource,
    VaryingKind,
};

/// A 4-bit vec4 register code used as a source (§3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vec4Reg {
    /// `$0..$11` (hardware has `$0..$5`).
    Gpr(u8),
    Const0,
    Const1,
    Texture,
    Uniform,
}

impl Vec4Reg {
    /// Total decoding of a 4-bit register code.
    pub const fn from_bits(b: u64) -> Vec4Reg {
        match (b & 0xF) as u8 {
            isa::reg::CONST0 => Vec4Reg::Const0,
            isa::reg::CONST1 => Vec4Reg::Const1,
            isa::reg::TEXTURE => Vec4Reg::Texture,
            isa::reg::UNIFORM => Vec4Reg::Uniform,
            n => Vec4Reg::Gpr(n),
        }
    }
    /// The 4-bit code.
    pub const fn bits(self) -> u8 {
        match self {
            Vec4Reg::Gpr(n) => n,
            Vec4Reg::Const0 => isa::reg::CONST0,
            Vec4Reg::Const1 => isa::reg::CONST1,
            Vec4Reg::Texture => isa::reg::TEXTURE,
            Vec4Reg::Uniform => isa::reg::UNIFORM,
        }
    }
}

/// A 6-bit scalar register code = vec4 code · 4 + component (§3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScalarReg(pub u8);

impl ScalarReg {
    /// The vec4 register.
    pub const fn vec4(self) -> Vec4Reg {
        Vec4Reg::from_bits((self.0 >> 2) as u64)
    }
    /// The component (0 = x … 3 = w).
    pub const fn comp(self) -> usize {
        (self.0 & 3) as usize
    }
}

/// A vec4 source operand: register, swizzle, abs (applied first) and negate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Vec4Src {
    pub reg: Vec4Reg,
    pub swizzle: Swizzle,
    pub abs: bool,
    pub neg: bool,
}

/// A scalar source operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScalarSrc {
    pub reg: ScalarReg,
    pub abs: bool,
    pub neg: bool,
}

/// Control word (§2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Control {
    pub count: u8,
    pub stop: bool,
    pub sync: bool,
    /// Unit presence mask (bit i = `isa::Unit::ALL[i]`).
    pub fields: u16,
    pub next_count: u8,
    pub prefetch: bool,
    /// Bits 26–31 (always 0).
    pub unknown: u8,
}

/// Immediate-layout varying operand (varying index, optional indirect offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VaryingImm {
    /// 0 scalar, 1 vec2, 2/3 vec4 (`isa::alignment`).
    pub alignment: u8,
    /// In units of the alignment.
    pub index: u8,
    /// 0xF = no offset.
    pub offset_vector: u8,
    pub offset_scalar: u8,
}

impl VaryingImm {
    /// Indirect offset register, if any.
    pub const fn offset(self) -> Option<ScalarReg> {
        if self.offset_vector == 0xF {
            None
        } else {
            Some(ScalarReg(self.offset_vector * 4 + self.offset_scalar))
        }
    }
}

/// Register-layout varying operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VaryingReg {
    pub src: Vec4Src,
    /// Bit 6 (`normalize`).
    pub normalize: bool,
}

/// The operand of a varying load, by [`VaryingKind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VaryingSource {
    /// A varying with perspective divide mode (0 none, 2 by z, 3 by w).
    Varying {
        perspective: u8,
        imm: VaryingImm,
    },
    /// A register with perspective divide mode.
    Register {
        perspective: u8,
        reg: VaryingReg,
    },
    CubeVarying(VaryingImm),
    CubeRegister(VaryingReg),
    Normalize(VaryingReg),
    /// gl_FragCoord (immediate-layout fields kept for exactness).
    FragCoord(VaryingImm),
    PointCoord(VaryingImm),
    FrontFacing(VaryingImm),
}

impl VaryingSource {
    /// The kind.
    pub const fn kind(&self) -> VaryingKind {
        match self {
            VaryingSource::Varying { .. } => VaryingKind::Varying,
            VaryingSource::Register { .. } => VaryingKind::Register,
            VaryingSource::CubeVarying(_) => VaryingKind::CubeVarying,
            VaryingSource::CubeRegister(_) => VaryingKind::CubeRegister,
            VaryingSource::Normalize(_) => VaryingKind::Normalize,
            VaryingSource::FragCoord(_) => VaryingKind::FragCoord,
            VaryingSource::PointCoord(_) => VaryingKind::PointCoord,
            VaryingSource::FrontFacing(_) => VaryingKind::FrontFacing,
        }
    }
}

/// Varying load unit (§4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Varying {
    /// vec4 register; 15 = `^discard`.
    pub dest: u8,
    pub mask: u8,
    pub source: VaryingSource,
    pub unknown: u128,
}

/// Texture sampler unit (§4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sampler {
    pub lod_bias: ScalarReg,
    pub index_offset: ScalarReg,
    pub explicit_lod: bool,
    pub lod_bias_en: bool,
    pub ty: SamplerType,
    pub offset_en: bool,
    pub index: u16,
    pub unknown: u128,
}

/// Uniform / temporary load unit (§4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UniformLoad {
    pub source: UniformSource,
    /// 0 float, 1 vec2, 2 vec4 (3 unknown).
    pub alignment: u8,
    pub offset_reg: ScalarReg,
    pub offset_en: bool,
    pub index: i16,
    pub unknown: u128,
}

/// vec4 multiply unit (§4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Vec4Mul {
    pub op: MulOp,
    pub arg0: Vec4Src,
    pub arg1: Vec4Src,
    pub dest: u8,
    /// 0 = result only in `^vmul`.
    pub mask: u8,
    pub modifier: OutMod,
}

/// vec4 add unit (§4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Vec4Acc {
    pub op: AccOp,
    pub arg0: Vec4Src,
    pub arg1: Vec4Src,
    pub dest: u8,
    pub mask: u8,
    pub modifier: OutMod,
    /// arg0's register is replaced by `^vmul`.
    pub mul_in: bool,
}

/// Scalar multiply unit (§4.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FloatMul {
    pub op: MulOp,
    pub arg0: ScalarSrc,
    pub arg1: ScalarSrc,
    pub dest: ScalarReg,
    /// false = result only in `^fmul`.
    pub output_en: bool,
    pub modifier: OutMod,
}

/// Scalar add unit (§4.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FloatAcc {
    pub op: AccOp,
    pub arg0: ScalarSrc,
    pub arg1: ScalarSrc,
    pub dest: ScalarReg,
    pub output_en: bool,
    pub modifier: OutMod,
    /// arg0's register is replaced by `^fmul`.
    pub mul_in: bool,
}

/// Combiner unit (§4.6), by form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Combine {
    /// (0,0): scalar `op` of arg0 (and arg1 for atan2).
    Scalar {
        op: CombineOp,
        dest: ScalarReg,
        modifier: OutMod,
        arg0: ScalarSrc,
        arg1: ScalarSrc,
    },
    /// (1,1): `dest.mask = arg0 (scalar) × arg1 (vec4, swizzled; no abs/neg)`.
    VecMul {
        dest: u8,
        mask: u8,
        arg0: ScalarSrc,
        arg1: Vec4Src,
    },
    /// (0,1): atan_pt2, scalar dest, vec4 source arg1 (arg0 printed but unused).
    AtanPt2 {
        dest: ScalarReg,
        modifier: OutMod,
        arg0: ScalarSrc,
        arg1: Vec4Src,
    },
    /// (1,0): atan_pt1/atan2_pt1, vec3 dest (old text only).
    AtanPt1 {
        op: CombineOp,
        dest: u8,
        mask: u8,
        arg0: ScalarSrc,
        arg1: ScalarSrc,
    },
}

/// Temporary write / framebuffer read unit (§4.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TempWrite {
    Store {
        /// 3 = temporary.
        dest: u8,
        /// Scalar register; vec4 register `source >> 2` when `alignment` > 0.
        source: ScalarReg,
        alignment: u8,
        offset_reg: ScalarReg,
        offset_en: bool,
        index: i16,
        unknown: u128,
    },
    FbRead {
        /// true = colour, false = depth (into `.x`).
        color: bool,
        dest: u8,
        unknown: u128,
    },
}

/// Branch / discard unit (§4.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Branch {
    Branch {
        cond: BranchCond,
        arg0: ScalarReg,
        arg1: ScalarReg,
        /// Words relative to the start of this instruction.
        target: i32,
        /// `count` of the target instruction.
        next_count: u8,
        unknown: u128,
    },
    /// The fixed discard encoding.
    Discard,
}

/// One decoded PP instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    pub control: Control,
    pub varying: Option<Varying>,
    pub sampler: Option<Sampler>,
    pub uniform: Option<UniformLoad>,
    pub vec4_mul: Option<Vec4Mul>,
    pub float_mul: Option<FloatMul>,
    pub vec4_acc: Option<Vec4Acc>,
    pub float_acc: Option<FloatAcc>,
    pub combine: Option<Combine>,
    pub temp_write: Option<TempWrite>,
    pub branch: Option<Branch>,
    pub const0: Option<[f16; 4]>,
    pub const1: Option<[f16; 4]>,
}

impl Instruction {
    /// An instruction with no units and a zero control word (filled in by `link_program`).
    pub const fn empty() -> Instruction {
        Instruction {
            control: Control {
                count: 0,
                stop: false,
                sync: false,
                fields: 0,
                next_count: 0,
                prefetch: false,
                unknown: 0,
            },
            varying: None,
            sampler: None,
            uniform: None,
            vec4_mul: None,
            float_mul: None,
            vec4_acc: None,
            float_acc: None,
            combine: None,
            temp_write: None,
            branch: None,
            const0: None,
            const1: None,
        }
    }

    /// Length in words (control word included).
    pub const fn words(&self) -> u32 {
        self.control.count as u32
    }

    /// Sets the operand fields the disassembly does not show to the one encoding the
    /// assembler writes, so that `asm(disasm(code)) == code`: the unused second source of a
    /// one-source vec4 op is `$0` with arg0's swizzle ([`unused_vec4_src`]), of a one-source
    /// scalar op `$0.x`; a `mul_in` first source is register 0.
    pub fn canonicalize_unused(&mut self) {
        if let Some(m) = &mut self.vec4_mul {
            if m.op.num_srcs() < 2 {
                m.arg1 = unused_vec4_src(&m.arg0);
            }
        }
        if let Some(m) = &mut self.float_mul {
            if m.op.num_srcs() < 2 {
                m.arg1 = ZERO_SCALAR_SRC;
            }
        }
        if let Some(a) = &mut self.vec4_acc {
            if a.mul_in {
                a.arg0.reg = Vec4Reg::Gpr(0);
            }
            if a.op.num_srcs() < 2 {
                a.arg1 = unused_vec4_src(&a.arg0);
            }
        }
        if let Some(a) = &mut self.float_acc {
            if a.op.num_srcs() < 2 {
                a.arg1 = ZERO_SCALAR_SRC;
            }
        }
        if let Some(Combine::Scalar { op, arg1, .. }) = &mut self.combine {
            if op.num_srcs() < 2 {
                *arg1 = ZERO_SCALAR_SRC;
            }
        }
    }
}

/// The unused second operand of a one-source vec4 op: `$0`, no abs/neg, and arg0's swizzle.
/// The hardware ignores it; Mesa's codegen leaves it all-zero, which with arg0 `.xxxx` is what
/// reference §17.1 (PP_CLEAR_PROGRAM) shows, while §17.2 (@3, arg0 `^texture` identity) has
/// swizzle 0xE4 — copying arg0's swizzle reproduces both.
pub fn unused_vec4_src(arg0: &Vec4Src) -> Vec4Src {
    Vec4Src {
        reg: Vec4Reg::Gpr(0),
        swizzle: arg0.swizzle,
        abs: false,
        neg: false,
    }
}

/// The unused second operand of a one-source scalar op: `$0.x`, no abs/neg.
pub const ZERO_SCALAR_SRC: ScalarSrc = ScalarSrc {
    reg: ScalarReg(0),
    abs: false,
    neg: false,
};

/// Word offset of every instruction of a program (from the `count` fields).
pub fn instruction_offsets(program: &[Instruction]) -> Vec<u32> {
    let mut off = 0;
    program
        .iter()
        .map(|i| {
            let o = off;
            off += i.words();
            o
        })
        .collect()
}
