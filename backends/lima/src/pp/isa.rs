//! THE bit-field and opcode table of the Mali-200/400 PP (DESIGN rule 9).
//!
//! Everything that knows *where* a bit lives reads it from here: the decoder, the disassembler (through the
//! decoder), the future encoder and the tests' bit packer. Nothing else in the crate hard-codes a bit position.
//!
//! # Layout of the table
//!
//! * [`Field`] — one named bit range (`lo`, `width`) inside a unit's payload, LSB-first. Fields whose meaning
//!   is unknown are marked with [`Field::unknown`] = `Some(value normally seen)`; their bits are preserved by the
//!   decoder in the `unknown` member of each decoded unit so that decode → encode is the identity.
//! * One `pub mod` per layout (e.g. [`vec4_mul`]): `BITS` (payload size of the unit), one `const` per field and
//!   `ALL` (every field, in bit order, covering `0..BITS` exactly — checked by a test).
//!   Units with two layouts (varying, combiner, temp write / fb read, branch / discard) have one module per
//!   layout, all of the unit's size.
//! * [`control`] — the control word (word 0 of every instruction).
//! * [`Unit`] — the twelve units in their fixed order, with presence bit and payload size.
//! * Register numbering ([`reg`]), swizzles ([`Swizzle`]), output modifiers ([`OutMod`]) and the opcode enums
//!   of every unit ([`MulOp`], [`AccOp`], [`CombineOp`], [`VaryingKind`], [`SamplerType`], [`UniformSource`],
//!   [`BranchCond`]) with `from_bits` (defined in `isa/ops.rs`, re-exported here).
//!
//! # Using the table to encode
//!
//! An encoder builds each present unit's payload as a `u128` with [`Field::set`], concatenates the payloads of
//! the present units in [`Unit::ALL`] order starting at bit 0 of word 1 (no alignment between units), rounds up
//! to whole words, and writes the control word with [`control`] fields: `COUNT` = 1 + payload words,
//! `FIELDS` = presence mask ([`Unit::presence_bit`]), `NEXT_COUNT`/`PREFETCH` from the next instruction.
//! The encoding facts come from reference §2–§5.

pub use irc_backend::bits::{unknown_defaults, unknown_mask, Field};
use irc_backend::layout;

layout!(
    /// Control word (word 0 of every instruction), §2.1.
    control, 32, {
    /// Length of this instruction in words, including the control word.
    COUNT: 0, 5;
    /// End of program.
    STOP: 5, 1;
    /// Set iff the instruction has a texture fetch or a derivative (dFdx/dFdy) in an add unit.
    SYNC: 6, 1;
    /// Unit presence mask, bit i = `Unit::ALL[i]`.
    FIELDS: 7, 12;
    /// `COUNT` of the next instruction in memory (0 on the last one).
    NEXT_COUNT: 19, 6;
    /// 1 iff a next instruction exists.
    PREFETCH: 25, 1;
    /// Always 0.
    UNKNOWN: 26, 6, unknown = 0;
});

layout!(
    /// Varying load, immediate layout (`SOURCE_TYPE` 0, 2, 3), §4.1.
    varying_imm, 34, {
    PERSPECTIVE: 0, 2;
    SOURCE_TYPE: 2, 2;
    UNKNOWN_0: 4, 1, unknown = 0;
    /// 0 scalar, 1 vec2, 2/3 vec3/vec4.
    ALIGNMENT: 5, 2;
    UNKNOWN_1: 7, 3, unknown = 0;
    /// 0xF = no indirect offset.
    OFFSET_VECTOR: 10, 4;
    UNKNOWN_2: 14, 2, unknown = 0;
    OFFSET_SCALAR: 16, 2;
    INDEX: 18, 6;
    /// vec4 register; 15 = `^discard`.
    DEST: 24, 4;
    MASK: 28, 4;
    UNKNOWN_3: 32, 2, unknown = 0;
});

layout!(
    /// Varying load, register layout (`SOURCE_TYPE` 1, and cube/normalize of a register), §4.1.
    varying_reg, 34, {
    PERSPECTIVE: 0, 2;
    SOURCE_TYPE: 2, 2;
    UNKNOWN_0: 4, 2, unknown = 0;
    NORMALIZE: 6, 1;
    /// The old text's normalize example sets bit 7; Mesa writes 0.
    UNKNOWN_1: 7, 3, unknown = 0;
    SOURCE: 10, 4;
    NEGATE: 14, 1;
    ABSOLUTE: 15, 1;
    SWIZZLE: 16, 8;
    DEST: 24, 4;
    MASK: 28, 4;
    UNKNOWN_2: 32, 2, unknown = 0;
});

layout!(
    /// Texture sampler (Mesa upstream reading), §4.2.
    sampler, 62, {
    /// Scalar register holding the bias or explicit LOD.
    LOD_BIAS: 0, 6;
    /// Scalar register added to `INDEX` when `OFFSET_EN`.
    INDEX_OFFSET: 6, 6;
    UNKNOWN_0: 12, 5, unknown = 0;
    EXPLICIT_LOD: 17, 1;
    LOD_BIAS_EN: 18, 1;
    /// Fork reading: bit 19 unknown, bits 20–28 a signed constant LOD bias in 1/16 (unverified).
    UNKNOWN_1: 19, 5, unknown = 0;
    /// 0x00 generic, 0x1F cube.
    TYPE: 24, 5;
    OFFSET_EN: 29, 1;
    INDEX: 30, 12;
    /// Always 0x39001 (Mesa, blob).
    UNKNOWN_2: 42, 20, unknown = 0x39001;
});

layout!(
    /// Uniform / temporary load, §4.3.
    uniform, 41, {
    /// 0 uniform, 3 temporary.
    SOURCE: 0, 2;
    UNKNOWN_0: 2, 8, unknown = 0;
    /// 0 float, 1 vec2, 2 vec4.
    ALIGNMENT: 10, 2;
    UNKNOWN_1: 12, 6, unknown = 0;
    OFFSET_REG: 18, 6;
    OFFSET_EN: 24, 1;
    /// Signed 16-bit (spill slots are negative).
    INDEX: 25, 16;
});

layout!(
    /// vec4 multiply, §4.4.
    vec4_mul, 43, {
    ARG0_SOURCE: 0, 4;
    ARG0_SWIZZLE: 4, 8;
    ARG0_ABS: 12, 1;
    ARG0_NEG: 13, 1;
    ARG1_SOURCE: 14, 4;
    ARG1_SWIZZLE: 18, 8;
    ARG1_ABS: 26, 1;
    ARG1_NEG: 27, 1;
    DEST: 28, 4;
    /// 0 = result only in `^vmul`.
    MASK: 32, 4;
    DEST_MODIFIER: 36, 2;
    OP: 38, 5;
});

layout!(
    /// vec4 add/accumulate, §4.4.
    vec4_acc, 44, {
    ARG0_SOURCE: 0, 4;
    ARG0_SWIZZLE: 4, 8;
    ARG0_ABS: 12, 1;
    ARG0_NEG: 13, 1;
    ARG1_SOURCE: 14, 4;
    ARG1_SWIZZLE: 18, 8;
    ARG1_ABS: 26, 1;
    ARG1_NEG: 27, 1;
    DEST: 28, 4;
    MASK: 32, 4;
    DEST_MODIFIER: 36, 2;
    OP: 38, 5;
    /// arg0 := `^vmul` (swizzle/abs/neg still apply).
    MUL_IN: 43, 1;
});

layout!(
    /// Scalar multiply, §4.5.
    float_mul, 30, {
    ARG0_SOURCE: 0, 6;
    ARG0_ABS: 6, 1;
    ARG0_NEG: 7, 1;
    ARG1_SOURCE: 8, 6;
    ARG1_ABS: 14, 1;
    ARG1_NEG: 15, 1;
    DEST: 16, 6;
    /// 0 = result only in `^fmul`.
    OUTPUT_EN: 22, 1;
    DEST_MODIFIER: 23, 2;
    OP: 25, 5;
});

layout!(
    /// Scalar add/accumulate, §4.5.
    float_acc, 31, {
    ARG0_SOURCE: 0, 6;
    ARG0_ABS: 6, 1;
    ARG0_NEG: 7, 1;
    ARG1_SOURCE: 8, 6;
    ARG1_ABS: 14, 1;
    ARG1_NEG: 15, 1;
    DEST: 16, 6;
    OUTPUT_EN: 22, 1;
    DEST_MODIFIER: 23, 2;
    OP: 25, 5;
    /// arg0 := `^fmul`.
    MUL_IN: 30, 1;
});

layout!(
    /// Combiner, scalar form (`DEST_VEC` 0, `SRC_VEC` 0), §4.6.
    combine_scalar, 30, {
    DEST_VEC: 0, 1;
    SRC_VEC: 1, 1;
    OP: 2, 4;
    ARG1_ABS: 6, 1;
    ARG1_NEG: 7, 1;
    ARG1_SRC: 8, 6;
    ARG0_ABS: 14, 1;
    ARG0_NEG: 15, 1;
    ARG0_SRC: 16, 6;
    DEST_MODIFIER: 22, 2;
    DEST: 24, 6;
});

layout!(
    /// Combiner, scalar × vec4 form (`DEST_VEC` 1, `SRC_VEC` 1), §4.6.
    combine_vector, 30, {
    DEST_VEC: 0, 1;
    SRC_VEC: 1, 1;
    ARG1_SWIZZLE: 2, 8;
    ARG1_SOURCE: 10, 4;
    ARG0_ABS: 14, 1;
    ARG0_NEG: 15, 1;
    ARG0_SRC: 16, 6;
    MASK: 22, 4;
    DEST: 26, 4;
});

layout!(
    /// Combiner, atan_pt2 form (`DEST_VEC` 0, `SRC_VEC` 1): scalar dest, vector source, §4.6.
    combine_atan_pt2, 30, {
    DEST_VEC: 0, 1;
    SRC_VEC: 1, 1;
    ARG1_SWIZZLE: 2, 8;
    ARG1_SOURCE: 10, 4;
    ARG0_ABS: 14, 1;
    ARG0_NEG: 15, 1;
    ARG0_SRC: 16, 6;
    DEST_MODIFIER: 22, 2;
    DEST: 24, 6;
});

layout!(
    /// Combiner, atan_pt1 form (`DEST_VEC` 1, `SRC_VEC` 0): vec3 dest, two scalar sources (old text only,
    /// unverified), §4.6.
    combine_atan_pt1, 30, {
    DEST_VEC: 0, 1;
    SRC_VEC: 1, 1;
    OP: 2, 4;
    ARG1_ABS: 6, 1;
    ARG1_NEG: 7, 1;
    ARG1_SRC: 8, 6;
    ARG0_ABS: 14, 1;
    ARG0_NEG: 15, 1;
    ARG0_SRC: 16, 6;
    MASK: 22, 4;
    DEST: 26, 4;
});

layout!(
    /// Temporary write, §4.7.
    temp_write, 41, {
    /// 3 = temporary.
    DEST: 0, 2;
    UNKNOWN_0: 2, 2, unknown = 0;
    /// Scalar register; for `ALIGNMENT` > 0 the vec4 register is `SOURCE >> 2`.
    SOURCE: 4, 6;
    ALIGNMENT: 10, 2;
    UNKNOWN_1: 12, 6, unknown = 0;
    OFFSET_REG: 18, 6;
    OFFSET_EN: 24, 1;
    INDEX: 25, 16;
});

layout!(
    /// Framebuffer read (same unit as temp write, selected by `UNKNOWN_0` = 0b00111), §4.7.
    fb_read, 41, {
    /// 0 depth, 1 colour.
    SOURCE: 0, 1;
    /// 0b00111 selects fb_read.
    UNKNOWN_0: 1, 5, unknown = 0b00111;
    DEST: 6, 4;
    /// Observed with bit 11 set (`…10` in bits 10–11).
    UNKNOWN_1: 10, 31, unknown = 0b10;
});

/// Value of [`fb_read::UNKNOWN_0`] that selects the framebuffer-read layout.
pub const FB_READ_SELECT: u64 = 0b00111;

layout!(
    /// Branch, §4.8.
    branch, 73, {
    UNKNOWN_0: 0, 4, unknown = 0;
    ARG1_SOURCE: 4, 6;
    ARG0_SOURCE: 10, 6;
    COND_GT: 16, 1;
    COND_EQ: 17, 1;
    COND_LT: 18, 1;
    UNKNOWN_1: 19, 22, unknown = 0;
    /// Signed, in words, relative to the start of this instruction.
    TARGET: 41, 27;
    /// `COUNT` of the target instruction.
    NEXT_COUNT: 68, 5;
});

/// The whole 73-bit branch payload of a discard (§4.8: word0 0x007F0003, word1 0, word2 0).
pub const DISCARD_PAYLOAD: u128 = 0x007F_0003;

layout!(
    /// Constant 0 / constant 1 (4 × IEEE binary16), §4.9.
    vec4_const, 64, {
    X: 0, 16;
    Y: 16, 16;
    Z: 32, 16;
    W: 48, 16;
});

/// The twelve units of a PP instruction, in field order (= pipeline order), §2.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unit {
    Varying = 0,
    Sampler = 1,
    Uniform = 2,
    Vec4Mul = 3,
    FloatMul = 4,
    Vec4Acc = 5,
    FloatAcc = 6,
    Combine = 7,
    TempWrite = 8,
    Branch = 9,
    Const0 = 10,
    Const1 = 11,
}

impl Unit {
    /// All units in field order.
    pub const ALL: [Unit; 12] = [
        Unit::Varying,
        Unit::Sampler,
        Unit::Uniform,
        Unit::Vec4Mul,
        Unit::FloatMul,
        Unit::Vec4Acc,
        Unit::FloatAcc,
        Unit::Combine,
        Unit::TempWrite,
        Unit::Branch,
        Unit::Const0,
        Unit::Const1,
    ];

    /// Index i (presence bit = control bit 7 + i, i.e. bit i of `control::FIELDS`).
    pub const fn index(self) -> u32 {
        self as u32
    }

    /// Bit in `control::FIELDS` marking the unit present.
    pub const fn presence_bit(self) -> u32 {
        1 << self.index()
    }

    /// Payload size in bits.
    pub const fn bits(self) -> u32 {
        match self {
            Unit::Varying => varying_imm::BITS,
            Unit::Sampler => sampler::BITS,
            Unit::Uniform => uniform::BITS,
            Unit::Vec4Mul => vec4_mul::BITS,
            Unit::FloatMul => float_mul::BITS,
            Unit::Vec4Acc => vec4_acc::BITS,
            Unit::FloatAcc => float_acc::BITS,
            Unit::Combine => combine_scalar::BITS,
            Unit::TempWrite => temp_write::BITS,
            Unit::Branch => branch::BITS,
            Unit::Const0 | Unit::Const1 => vec4_const::BITS,
        }
    }

    /// Mesa's name of the unit.
    pub const fn name(self) -> &'static str {
        match self {
            Unit::Varying => "varying",
            Unit::Sampler => "sampler",
            Unit::Uniform => "uniform",
            Unit::Vec4Mul => "vec4_mul",
            Unit::FloatMul => "float_mul",
            Unit::Vec4Acc => "vec4_acc",
            Unit::FloatAcc => "float_acc",
            Unit::Combine => "combine",
            Unit::TempWrite => "temp_write",
            Unit::Branch => "branch",
            Unit::Const0 => "vec4_const_0",
            Unit::Const1 => "vec4_const_1",
        }
    }
}

/// Sum of all unit payloads (557 bits).
pub const MAX_PAYLOAD_BITS: u32 = 34 + 62 + 41 + 43 + 30 + 44 + 31 + 30 + 41 + 73 + 64 + 64;
/// Largest instruction in words, control word included (19).
pub const MAX_INSTR_WORDS: u32 = 1 + MAX_PAYLOAD_BITS.div_ceil(32);

/// Instruction length in words (control word included) for a presence mask.
pub const fn instr_words(fields: u32) -> u32 {
    let mut bits = 0;
    let mut i = 0;
    while i < 12 {
        if fields & (1 << i) != 0 {
            bits += Unit::ALL[i].bits();
        }
        i += 1;
    }
    1 + bits.div_ceil(32)
}

/// Register numbering, §3.1–§3.2.
pub mod reg {
    /// Number of general vec4 registers the hardware (and Mesa) uses.
    pub const GPR_COUNT: u8 = 6;
    /// Highest general register the 4-bit encoding allows ($11; existence of 6–11 unverified).
    pub const GPR_ENCODABLE: u8 = 12;
    /// `^const0` as a vec4 register.
    pub const CONST0: u8 = 12;
    /// `^const1`.
    pub const CONST1: u8 = 13;
    /// `^texture` (sampler result).
    pub const TEXTURE: u8 = 14;
    /// `^uniform` (uniform/temporary load result), as a source.
    pub const UNIFORM: u8 = 15;
    /// `^discard` (sampler coordinates), as a varying destination.
    pub const DISCARD: u8 = 15;
    /// Scalar register code = vec4 register · 4 + component.
    pub const fn scalar(vec4: u8, comp: u8) -> u8 {
        vec4 * 4 + comp
    }
}

/// A swizzle byte: lane i takes source component `(s >> 2i) & 3`, §3.4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle(pub u8);

impl Swizzle {
    /// `.xyzw`.
    pub const IDENTITY: Swizzle = Swizzle(0xE4);
    /// Source component for output lane `i`.
    pub const fn lane(self, i: usize) -> usize {
        ((self.0 >> (2 * i)) & 3) as usize
    }
    /// Swizzle from four components.
    pub const fn new(c: [u8; 4]) -> Swizzle {
        Swizzle((c[0] & 3) | (c[1] & 3) << 2 | (c[2] & 3) << 4 | (c[3] & 3) << 6)
    }
}

/// Output modifier (2 bits), §3.4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutMod {
    /// No modification.
    None = 0,
    /// Clamp to [0, 1] (`.sat`).
    Sat = 1,
    /// Clamp to ≥ 0 (`.pos`).
    Pos = 2,
    /// Round to integer (`.int`; Mesa uses it for trunc).
    Int = 3,
}

impl OutMod {
    /// Total decoding of the 2-bit field.
    pub const fn from_bits(b: u64) -> OutMod {
        match b & 3 {
            0 => OutMod::None,
            1 => OutMod::Sat,
            2 => OutMod::Pos,
            _ => OutMod::Int,
        }
    }
    /// Disassembly suffix (`""`, `".sat"`, `".pos"`, `".int"`).
    pub const fn suffix(self) -> &'static str {
        match self {
            OutMod::None => "",
            OutMod::Sat => ".sat",
            OutMod::Pos => ".pos",
            OutMod::Int => ".int",
        }
    }
}

mod ops;
pub use ops::*;
