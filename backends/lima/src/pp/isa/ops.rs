//! Opcode tables and small enumerated fields of the PP (reference §4–§5), re-exported by [`super`].
//!
//! Each opcode enum comes from one `opcodes!` table row: variant = field value, mnemonic, number of register
//! sources, semantics class. `from_bits` decodes a field value (`None` = not in the table); every `match` on
//! these enums elsewhere is exhaustive, so adding a row makes the compiler list every place to update.

/// What an opcode computes, for tools that do not need the exact operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// Multiply (possibly with a power-of-two shift).
    Mul,
    /// Addition.
    Add,
    /// Copy of arg0.
    Move,
    /// Logical op on 0.0/1.0 booleans.
    Logic,
    /// Compare producing 1.0/0.0.
    Compare,
    /// min/max.
    MinMax,
    /// floor/ceil/fract of arg0.
    Round,
    /// Horizontal sum of arg0's lanes.
    Reduce,
    /// Quad derivative.
    Derivative,
    /// `^fmul ? arg0 : arg1`.
    Select,
    /// Combiner transcendental.
    Transcendental,
    /// atan helpers (semantics unverified).
    Atan,
}

use irc_backend::opcodes;

opcodes!(
    /// vec4 multiply and scalar multiply opcodes (identical tables), §5.
    MulOp: OpClass {
    /// arg0 · arg1.
    Mul = 0x00, "mul", 2, Mul;
    /// arg0 · arg1 · 2 (shifted forms unverified).
    MulShl1 = 0x01, "mul", 2, Mul;
    MulShl2 = 0x02, "mul", 2, Mul;
    MulShl3 = 0x03, "mul", 2, Mul;
    /// arg0 · arg1 / 16 (3-bit two's-complement shift −4; not listed by Mesa's table, old text's rule).
    MulShr4 = 0x04, "mul", 2, Mul;
    MulShr3 = 0x05, "mul", 2, Mul;
    MulShr2 = 0x06, "mul", 2, Mul;
    MulShr1 = 0x07, "mul", 2, Mul;
    Not = 0x08, "not", 1, Logic;
    And = 0x09, "and", 2, Logic;
    Or = 0x0A, "or", 2, Logic;
    Xor = 0x0B, "xor", 2, Logic;
    Ne = 0x0C, "ne", 2, Compare;
    /// arg0 > arg1.
    Gt = 0x0D, "gt", 2, Compare;
    Ge = 0x0E, "ge", 2, Compare;
    Eq = 0x0F, "eq", 2, Compare;
    Min = 0x10, "min", 2, MinMax;
    Max = 0x11, "max", 2, MinMax;
    /// Passes arg0.
    Mov = 0x1F, "mov", 1, Move;
});

/// vec4-multiply opcode table.
pub type Vec4MulOp = MulOp;
/// Scalar-multiply opcode table (identical to vec4 multiply).
pub type FloatMulOp = MulOp;

impl MulOp {
    /// Power-of-two exponent applied to the product (0 for non-multiplies).
    pub const fn shift(self) -> i32 {
        let b = self.bits();
        if b < 8 {
            ((b as i32) << 29) >> 29
        } else {
            0
        }
    }
}

opcodes!(
    /// vec4 add and scalar add opcodes, §5 (sum3/sum4 are vec4 only).
    AccOp: OpClass {
    Add = 0x00, "add", 2, Add;
    Fract = 0x04, "fract", 1, Round;
    Ne = 0x08, "ne", 2, Compare;
    Gt = 0x09, "gt", 2, Compare;
    Ge = 0x0A, "ge", 2, Compare;
    Eq = 0x0B, "eq", 2, Compare;
    Floor = 0x0C, "floor", 1, Round;
    Ceil = 0x0D, "ceil", 1, Round;
    Min = 0x0E, "min", 2, MinMax;
    Max = 0x0F, "max", 2, MinMax;
    /// All lanes = arg0.x + arg0.y + arg0.z (vec4 add only).
    Sum3 = 0x10, "sum3", 1, Reduce;
    /// All lanes = sum of arg0's four lanes (vec4 add only).
    Sum4 = 0x11, "sum4", 1, Reduce;
    DFdx = 0x14, "dFdx", 2, Derivative;
    DFdy = 0x15, "dFdy", 2, Derivative;
    /// `^fmul ? arg0 : arg1`.
    Sel = 0x17, "sel", 2, Select;
    Mov = 0x1F, "mov", 1, Move;
});

/// vec4-add opcode table.
pub type Vec4AccOp = AccOp;
/// Scalar-add opcode table (= [`AccOp`] without sum3/sum4; see [`AccOp::from_bits_scalar`]).
pub type FloatAccOp = AccOp;

impl AccOp {
    /// Whether the scalar add unit has this opcode.
    pub const fn scalar_ok(self) -> bool {
        !matches!(self, AccOp::Sum3 | AccOp::Sum4)
    }
    /// Decodes a scalar-add opcode field.
    pub const fn from_bits_scalar(bits: u64) -> Option<Self> {
        match Self::from_bits(bits) {
            Some(op) if op.scalar_ok() => Some(op),
            _ => None,
        }
    }
}

opcodes!(
    /// Combiner scalar opcodes (bits 2–5 of the scalar and atan_pt1 forms), §5.
    CombineOp: OpClass {
    Rcp = 0, "rcp", 1, Transcendental;
    Mov = 1, "mov", 1, Move;
    Sqrt = 2, "sqrt", 1, Transcendental;
    Rsqrt = 3, "rsqrt", 1, Transcendental;
    Exp2 = 4, "exp2", 1, Transcendental;
    Log2 = 5, "log2", 1, Transcendental;
    /// sin(2π·x): the argument is in turns (§6).
    Sin = 6, "sin", 1, Transcendental;
    /// cos(2π·x).
    Cos = 7, "cos", 1, Transcendental;
    Atan = 8, "atan", 1, Atan;
    Atan2 = 9, "atan2", 2, Atan;
});

/// Varying source kind: the (source_type, perspective) pair of §4.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VaryingKind {
    /// st 0: a varying (immediate layout), perspective = divide mode.
    Varying,
    /// st 1: coordinates from a register (register layout), perspective = divide mode.
    Register,
    /// st 2, p 0: cube(varying), immediate layout.
    CubeVarying,
    /// st 2, p 1: cube(register), register layout.
    CubeRegister,
    /// st 2, p 2: normalize(register), register layout.
    Normalize,
    /// st 2, p 3: gl_FragCoord.
    FragCoord,
    /// st 3, p 0: gl_PointCoord.
    PointCoord,
    /// st 3, p 1: gl_FrontFacing.
    FrontFacing,
}

impl VaryingKind {
    /// Decodes `SOURCE_TYPE` and `PERSPECTIVE`; `None` for st 3 with p 2/3.
    pub const fn from_bits(source_type: u64, perspective: u64) -> Option<Self> {
        Some(match (source_type & 3, perspective & 3) {
            (0, _) => VaryingKind::Varying,
            (1, _) => VaryingKind::Register,
            (2, 0) => VaryingKind::CubeVarying,
            (2, 1) => VaryingKind::CubeRegister,
            (2, 2) => VaryingKind::Normalize,
            (2, _) => VaryingKind::FragCoord,
            (3, 0) => VaryingKind::PointCoord,
            (3, 1) => VaryingKind::FrontFacing,
            _ => return None,
        })
    }
    /// `SOURCE_TYPE` value.
    pub const fn source_type(self) -> u64 {
        match self {
            VaryingKind::Varying => 0,
            VaryingKind::Register => 1,
            VaryingKind::CubeVarying
            | VaryingKind::CubeRegister
            | VaryingKind::Normalize
            | VaryingKind::FragCoord => 2,
            VaryingKind::PointCoord | VaryingKind::FrontFacing => 3,
        }
    }
    /// Fixed `PERSPECTIVE` value of the special kinds (`None` for Varying/Register, where it is the divide).
    pub const fn fixed_perspective(self) -> Option<u64> {
        match self {
            VaryingKind::Varying | VaryingKind::Register => None,
            VaryingKind::CubeVarying | VaryingKind::PointCoord => Some(0),
            VaryingKind::CubeRegister | VaryingKind::FrontFacing => Some(1),
            VaryingKind::Normalize => Some(2),
            VaryingKind::FragCoord => Some(3),
        }
    }
    /// Whether the register layout ([`super::varying_reg`]) applies.
    pub const fn uses_register_layout(self) -> bool {
        matches!(
            self,
            VaryingKind::Register | VaryingKind::CubeRegister | VaryingKind::Normalize
        )
    }
}

/// Perspective divide of plain varyings/registers: 0 none, 2 by `.z`, 3 by `.w` (1 unknown).
pub mod perspective {
    pub const NONE: u8 = 0;
    pub const DIV_Z: u8 = 2;
    pub const DIV_W: u8 = 3;
}

/// Varying / uniform / temporary alignment codes.
pub mod alignment {
    /// Varying and uniform/temp: one float.
    pub const SCALAR: u8 = 0;
    /// Varying and uniform/temp: vec2.
    pub const VEC2: u8 = 1;
    /// Uniform/temp: vec4.
    pub const UNIFORM_VEC4: u8 = 2;
    /// Varying: vec3/vec4 (Mesa emits 3; 2 is treated like 3).
    pub const VARYING_VEC4: u8 = 3;
}

/// Sampler `TYPE` values, §4.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SamplerType {
    /// 2D/3D/rect/external.
    Generic,
    /// Cube map (0x1F; possibly a −1.0 constant bias in the fork's reading).
    Cube,
    /// Any other value (printed `_t<n>`).
    Other(u8),
}

impl SamplerType {
    /// Total decoding of the 5-bit field.
    pub const fn from_bits(b: u64) -> SamplerType {
        match b & 0x1F {
            0 => SamplerType::Generic,
            0x1F => SamplerType::Cube,
            v => SamplerType::Other(v as u8),
        }
    }
    /// Field value.
    pub const fn bits(self) -> u64 {
        match self {
            SamplerType::Generic => 0,
            SamplerType::Cube => 0x1F,
            SamplerType::Other(v) => v as u64,
        }
    }
}

/// Uniform/temporary load `SOURCE` values, §4.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UniformSource {
    Uniform,
    Temporary,
    /// 1 or 2: unknown (printed `load.u<n>`).
    Other(u8),
}

impl UniformSource {
    /// Total decoding of the 2-bit field.
    pub const fn from_bits(b: u64) -> UniformSource {
        match b & 3 {
            0 => UniformSource::Uniform,
            3 => UniformSource::Temporary,
            v => UniformSource::Other(v as u8),
        }
    }
    /// Field value.
    pub const fn bits(self) -> u64 {
        match self {
            UniformSource::Uniform => 0,
            UniformSource::Temporary => 3,
            UniformSource::Other(v) => v as u64,
        }
    }
}

/// Temp-write `DEST` value for a temporary store.
pub const TEMP_WRITE_DEST_TEMPORARY: u64 = 3;

/// Branch condition, as the disassembler's mask `lt | eq << 1 | gt << 2`, §4.8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BranchCond {
    pub lt: bool,
    pub eq: bool,
    pub gt: bool,
}

impl BranchCond {
    /// Unconditional.
    pub const ALWAYS: BranchCond = BranchCond {
        lt: true,
        eq: true,
        gt: true,
    };
    /// Mask `lt | eq << 1 | gt << 2`.
    pub const fn mask(self) -> u32 {
        self.lt as u32 | (self.eq as u32) << 1 | (self.gt as u32) << 2
    }
    /// From the mask `lt | eq << 1 | gt << 2`.
    pub const fn from_mask(m: u32) -> BranchCond {
        BranchCond {
            lt: m & 1 != 0,
            eq: m & 2 != 0,
            gt: m & 4 != 0,
        }
    }
    /// Disassembly name: nv, lt, eq, le, gt, ne, ge, (always = "").
    pub const fn name(self) -> &'static str {
        match self.mask() {
            0 => "nv",
            1 => "lt",
            2 => "eq",
            3 => "le",
            4 => "gt",
            5 => "ne",
            6 => "ge",
            _ => "",
        }
    }
    /// Whether `a OP b` holds.
    pub fn holds(self, a: f32, b: f32) -> bool {
        (self.lt && a < b) || (self.eq && a == b) || (self.gt && a > b)
    }
}
