//! THE bit-field and opcode table of the Mali-200/400 GP (vertex processor), DESIGN rule 9.
//!
//! A GP instruction is 128 bits, stored as four little-endian 32-bit words and read here as one
//! `u128` (word 0 in bits 0–31). Every unit has its fields at fixed positions ([`instr`], reference
//! §7); the encoder, the decoder, the tests' bit packer and the disassembler (through the decoder)
//! read positions from here and nowhere else.
//!
//! * [`instr`] — every field of the 128-bit word, LSB-first, covering bits 0–127 exactly.
//! * [`Src`] — the 5-bit ALU source select (§8.1): this instruction's loads, the forwarded results
//!   of the previous one (`p1`) and two (`p2`) instructions, the previous instruction's
//!   register-0 load.
//! * Opcode tables ([`AccOp`], [`MulOp`], [`ComplexOp`], [`PassOp`]), [`StoreSrc`] and
//!   [`LoadOffset`] (§8.2); codes the reference does not know are absent (the decoder rejects them).
//! * [`Unit`] — the six result-producing units, numbered as Mesa numbers result names
//!   (`^N`, N = 6·instruction + unit, §15).
//! * Limits (§12).
//!
//! Unused units are encoded as (§7): ALU sources [`Src::Unused`], store sources
//! [`StoreSrc::None`], `LOAD_OFFSET` [`LoadOffset::None`], `PASS_OP` [`PassOp::Pass`] with
//! `PASS_SRC` [`Src::Unused`] (checked against the reference's test vector, §17).

pub use irc_backend::bits::{unknown_defaults, unknown_mask, Field};
use irc_backend::{layout, opcodes};

/// Bytes per instruction.
pub const INSTR_BYTES: usize = 16;
/// 32-bit words per instruction.
pub const INSTR_WORDS: usize = 4;
/// Most instructions in a program (9-bit absolute branch target; Mesa asserts, blob error F0003).
pub const MAX_INSTRUCTIONS: usize = 512;
/// vec4 registers (`$0`–`$15`, 64 scalars).
pub const REGISTERS: usize = 16;
/// vec4 attribute registers (`a0`–`a15`; 4-bit `REGISTER0_ADDR`).
pub const ATTRIBUTES: usize = 16;
/// vec4 varying slots a store can write (4-bit `STOREn_ADDR`).
pub const VARYINGS: usize = 16;
/// vec4 uniform/temporary slots the load unit can address (9-bit `LOAD_ADDR`).
pub const UNIFORM_SLOTS: usize = 512;
/// Address registers (`addr0` for temporary stores, `addr1`–`addr3` for load offsets).
pub const ADDRESS_REGISTERS: usize = 4;
/// Value at which the `UNKNOWN_1` field is seen when the instruction stores a temporary (Mesa).
pub const UNKNOWN_1_TEMP_STORE: u64 = 12;
/// Value at which the `UNKNOWN_1` field is seen when the instruction branches (Mesa).
pub const UNKNOWN_1_BRANCH: u64 = 13;

layout!(
    /// The 128-bit GP instruction (reference §7; Mesa `ir/gp/codegen.h`, `gpir_codegen_instr`).
    instr, 128, {
    MUL0_SRC0: 0, 5;
    MUL0_SRC1: 5, 5;
    MUL1_SRC0: 10, 5;
    MUL1_SRC1: 15, 5;
    /// Negates mul0's src1.
    MUL0_NEG: 20, 1;
    /// Negates mul1's src1.
    MUL1_NEG: 21, 1;
    ACC0_SRC0: 22, 5;
    ACC0_SRC1: 27, 5;
    ACC1_SRC0: 32, 5;
    ACC1_SRC1: 37, 5;
    ACC0_SRC0_NEG: 42, 1;
    ACC0_SRC1_NEG: 43, 1;
    ACC1_SRC0_NEG: 44, 1;
    ACC1_SRC1_NEG: 45, 1;
    /// Uniform/temporary vec4 index of the load unit.
    LOAD_ADDR: 46, 9;
    /// [`super::LoadOffset`]: 1–3 add address register 1–3, 7 none.
    LOAD_OFFSET: 55, 3;
    REGISTER0_ADDR: 58, 4;
    /// Register 0 loads attribute `a<n>` instead of register `$n`.
    REGISTER0_ATTRIBUTE: 62, 1;
    REGISTER1_ADDR: 63, 4;
    /// store0 writes temporary `t[addr0]` (its address field is ignored).
    STORE0_TEMPORARY: 67, 1;
    STORE1_TEMPORARY: 68, 1;
    BRANCH: 69, 1;
    /// Bit 8 of the branch target, stored inverted (1 when the target is < 256).
    BRANCH_TARGET_LO: 70, 1;
    STORE0_SRC_X: 71, 3;
    STORE0_SRC_Y: 74, 3;
    STORE1_SRC_Z: 77, 3;
    STORE1_SRC_W: 80, 3;
    /// Shared by acc0 and acc1.
    ACC_OP: 83, 3;
    COMPLEX_OP: 86, 4;
    STORE0_ADDR: 90, 4;
    STORE0_VARYING: 94, 1;
    STORE1_ADDR: 95, 4;
    STORE1_VARYING: 99, 1;
    /// Shared by mul0 and mul1.
    MUL_OP: 100, 3;
    PASS_OP: 103, 3;
    COMPLEX_SRC: 106, 5;
    PASS_SRC: 111, 5;
    /// Seen as 0 normally, 12 with a temporary store, 13 with a branch (Mesa); meaning unknown.
    UNKNOWN_1: 116, 4, unknown = 0;
    /// Branch target bits 0–7 (absolute instruction index).
    BRANCH_TARGET: 120, 8;
});

/// The six units whose results are forwarded, numbered as Mesa's result names (`^N`, N = 6·i + unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unit {
    Acc0 = 0,
    Acc1 = 1,
    Mul0 = 2,
    Mul1 = 3,
    Pass = 4,
    Complex = 5,
}

impl Unit {
    pub const ALL: [Unit; 6] = [
        Unit::Acc0,
        Unit::Acc1,
        Unit::Mul0,
        Unit::Mul1,
        Unit::Pass,
        Unit::Complex,
    ];
    /// Number of units (result names advance by this much per instruction).
    pub const COUNT: u32 = 6;

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn from_index(i: u32) -> Option<Unit> {
        Unit::ALL.get(i as usize).copied()
    }

    /// Disassembly suffix (`.a0`, `.m1`, `.p`, `.c`).
    pub fn suffix(self) -> &'static str {
        match self {
            Unit::Acc0 => "a0",
            Unit::Acc1 => "a1",
            Unit::Mul0 => "m0",
            Unit::Mul1 => "m1",
            Unit::Pass => "p",
            Unit::Complex => "c",
        }
    }
}

/// What a source select reads (the class of a [`Src`] row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SrcClass {
    /// Register 0 load of this instruction (attribute or register), component in the low 2 bits.
    Reg0,
    /// Register 1 load of this instruction.
    Reg1,
    /// Codes 8–11, meaning unknown (old text: "unused, same as 21?"); Mesa prints `unknown0..3`.
    Unknown,
    /// Uniform/temporary load of this instruction.
    Load,
    /// A unit result of the previous instruction.
    P1,
    /// Nothing.
    Unused,
    /// Code 22: as acc src1 the identity 0.0, as mul src1 the identity 1.0, elsewhere the complex
    /// result of the previous instruction.
    IdentOrP1Complex,
    /// A unit result of two instructions back.
    P2,
    /// Register 0 load of the previous instruction.
    PrevReg0,
}

opcodes!(
    /// ALU source select, 5 bits (§8.1). Every code is a row, so decoding a source never fails.
    Src: SrcClass {
    Reg0X = 0, "reg0.x", 0, Reg0;
    Reg0Y = 1, "reg0.y", 0, Reg0;
    Reg0Z = 2, "reg0.z", 0, Reg0;
    Reg0W = 3, "reg0.w", 0, Reg0;
    Reg1X = 4, "reg1.x", 0, Reg1;
    Reg1Y = 5, "reg1.y", 0, Reg1;
    Reg1Z = 6, "reg1.z", 0, Reg1;
    Reg1W = 7, "reg1.w", 0, Reg1;
    Unknown0 = 8, "unknown0", 0, Unknown;
    Unknown1 = 9, "unknown1", 0, Unknown;
    Unknown2 = 10, "unknown2", 0, Unknown;
    Unknown3 = 11, "unknown3", 0, Unknown;
    LoadX = 12, "load.x", 0, Load;
    LoadY = 13, "load.y", 0, Load;
    LoadZ = 14, "load.z", 0, Load;
    LoadW = 15, "load.w", 0, Load;
    P1Acc0 = 16, "p1.acc0", 0, P1;
    P1Acc1 = 17, "p1.acc1", 0, P1;
    P1Mul0 = 18, "p1.mul0", 0, P1;
    P1Mul1 = 19, "p1.mul1", 0, P1;
    P1Pass = 20, "p1.pass", 0, P1;
    Unused = 21, "unused", 0, Unused;
    /// Identity (acc/mul src1) or p1 complex (elsewhere).
    Ident = 22, "ident", 0, IdentOrP1Complex;
    P2Pass = 23, "p2.pass", 0, P2;
    P2Acc0 = 24, "p2.acc0", 0, P2;
    P2Acc1 = 25, "p2.acc1", 0, P2;
    P2Mul0 = 26, "p2.mul0", 0, P2;
    P2Mul1 = 27, "p2.mul1", 0, P2;
    PrevReg0X = 28, "prev.reg0.x", 0, PrevReg0;
    PrevReg0Y = 29, "prev.reg0.y", 0, PrevReg0;
    PrevReg0Z = 30, "prev.reg0.z", 0, PrevReg0;
    PrevReg0W = 31, "prev.reg0.w", 0, PrevReg0;
});

impl Src {
    /// Component (0–3) of a load source (`Reg0`, `Reg1`, `Load`, `PrevReg0`; also `Unknown`).
    pub fn component(self) -> u8 {
        (self.bits() & 3) as u8
    }

    /// The unit a forwarded source reads and how many instructions back (1 or 2); code 22 is
    /// reported as the p1 complex result (the caller knows whether it is in an identity position).
    pub fn forwarded(self) -> Option<(Unit, u32)> {
        Some(match self {
            Src::P1Acc0 => (Unit::Acc0, 1),
            Src::P1Acc1 => (Unit::Acc1, 1),
            Src::P1Mul0 => (Unit::Mul0, 1),
            Src::P1Mul1 => (Unit::Mul1, 1),
            Src::P1Pass => (Unit::Pass, 1),
            Src::Ident => (Unit::Complex, 1),
            Src::P2Pass => (Unit::Pass, 2),
            Src::P2Acc0 => (Unit::Acc0, 2),
            Src::P2Acc1 => (Unit::Acc1, 2),
            Src::P2Mul0 => (Unit::Mul0, 2),
            Src::P2Mul1 => (Unit::Mul1, 2),
            _ => return None,
        })
    }

    /// The source reading `unit` `back` (1 or 2) instructions back, if the encoding has one
    /// (there is no p2 complex, §8.1).
    pub fn from_forwarded(unit: Unit, back: u32) -> Option<Src> {
        Some(match (unit, back) {
            (Unit::Acc0, 1) => Src::P1Acc0,
            (Unit::Acc1, 1) => Src::P1Acc1,
            (Unit::Mul0, 1) => Src::P1Mul0,
            (Unit::Mul1, 1) => Src::P1Mul1,
            (Unit::Pass, 1) => Src::P1Pass,
            (Unit::Complex, 1) => Src::Ident,
            (Unit::Pass, 2) => Src::P2Pass,
            (Unit::Acc0, 2) => Src::P2Acc0,
            (Unit::Acc1, 2) => Src::P2Acc1,
            (Unit::Mul0, 2) => Src::P2Mul0,
            (Unit::Mul1, 2) => Src::P2Mul1,
            _ => return None,
        })
    }

    /// The source of `class` (one of the four-component classes) and component `c`.
    pub fn load(class: SrcClass, c: u8) -> Option<Src> {
        let base = match class {
            SrcClass::Reg0 => 0,
            SrcClass::Reg1 => 4,
            SrcClass::Unknown => 8,
            SrcClass::Load => 12,
            SrcClass::PrevReg0 => 28,
            _ => return None,
        };
        Src::from_bits(base + u64::from(c & 3))
    }
}

/// What an opcode computes, for tools that do not need the exact operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// Arithmetic on f32 values.
    Arith,
    /// Compare producing 1.0/0.0.
    Compare,
    /// A step of a complex-function sequence (impl, complex1/2, preexp2/postlog2).
    ComplexStep,
    /// Copy of the source.
    Move,
    /// Writes an address register (and forwards the source).
    Address,
    /// `cond ? a : b` over both mul units.
    Select,
    /// No operation.
    Nop,
}

opcodes!(
    /// Acc (add) unit opcode, shared by acc0 and acc1 (§8.2). Code 3 is unknown.
    AccOp: OpClass {
    /// src0 + src1 (mov = `add x, -ident`).
    Add = 0, "add", 2, Arith;
    /// floor(src0).
    Floor = 1, "floor", 1, Arith;
    /// sign(src0): −1.0, 0.0 or 1.0.
    Sign = 2, "sign", 1, Arith;
    /// src0 ≥ src1 → 1.0 / 0.0.
    Ge = 4, "ge", 2, Compare;
    /// src0 < src1 → 1.0 / 0.0.
    Lt = 5, "lt", 2, Compare;
    Min = 6, "min", 2, Arith;
    Max = 7, "max", 2, Arith;
});

opcodes!(
    /// Mul unit opcode, shared by mul0 and mul1 (§8.2). Codes 2, 5–7 are unknown.
    MulOp: OpClass {
    /// src0 · (±src1) (mov = `mul x, ident`).
    Mul = 0, "mul", 2, Arith;
    /// Last step of rcp/rsqrt/exp2/log2; occupies both mul units, result on mul0.
    Complex1 = 1, "complex1", 4, ComplexStep;
    /// Middle step of the complex sequences on mul0 (`mul0_src0 = mul0_src1 = x`).
    Complex2 = 3, "complex2", 2, ComplexStep;
    /// mul0_src1 ? mul1_src0 : mul0_src0 (Mesa's reading); occupies both mul units, result on mul0.
    Select = 4, "sel", 3, Select;
});

opcodes!(
    /// Complex unit opcode (§8.2). Codes 1, 6–8, 10, 11 are unknown (the old text's 10, "set addr0
    /// and addr1 from the pass unit", is unverified and not accepted).
    ComplexOp: OpClass {
    Nop = 0, "nop", 0, Nop;
    /// exp2 implementation step (its source is a `preexp2` result).
    Exp2 = 2, "exp2", 1, ComplexStep;
    Log2 = 3, "log2", 1, ComplexStep;
    Rsqrt = 4, "rsqrt", 1, ComplexStep;
    Rcp = 5, "rcp", 1, ComplexStep;
    /// Copy of the source.
    Pass = 9, "mov", 1, Move;
    /// Copies the source and sets address register 0 (temporary store address).
    TempStoreAddr = 12, "mov", 1, Address;
    /// Sets address register 1 (`+addr1` load offset).
    TempLoadAddr0 = 13, "mov", 1, Address;
    /// Sets address register 2.
    TempLoadAddr1 = 14, "mov", 1, Address;
    /// Sets address register 3.
    TempLoadAddr2 = 15, "mov", 1, Address;
});

impl ComplexOp {
    /// The address register this op writes, if any.
    pub fn address_register(self) -> Option<usize> {
        match self {
            ComplexOp::TempStoreAddr => Some(0),
            ComplexOp::TempLoadAddr0 => Some(1),
            ComplexOp::TempLoadAddr1 => Some(2),
            ComplexOp::TempLoadAddr2 => Some(3),
            _ => None,
        }
    }
}

opcodes!(
    /// Pass unit opcode (§8.2). Codes 0, 1, 3, 7 are unknown.
    PassOp: OpClass {
    /// Copy of the source (also the encoding of an unused pass unit).
    Pass = 2, "mov", 1, Move;
    /// First step of exp2.
    PreExp2 = 4, "preexp2", 1, ComplexStep;
    /// Last step of log2 (applied to the complex1 result).
    PostLog2 = 5, "postlog2", 1, ComplexStep;
    /// Clamp of the source by the load unit's `.x` and `.y` of this instruction.
    Clamp = 6, "clamp", 1, Arith;
});

opcodes!(
    /// Store source select (3 bits, §8.2): a unit result of the SAME instruction. Code 5 is unknown.
    StoreSrc: OpClass {
    Acc0 = 0, "acc0", 0, Move;
    Acc1 = 1, "acc1", 0, Move;
    Mul0 = 2, "mul0", 0, Move;
    Mul1 = 3, "mul1", 0, Move;
    Pass = 4, "pass", 0, Move;
    Complex = 6, "complex", 0, Move;
    /// Nothing stored.
    None = 7, "none", 0, Nop;
});

impl StoreSrc {
    /// The unit whose result is stored.
    pub fn unit(self) -> Option<Unit> {
        match self {
            StoreSrc::Acc0 => Some(Unit::Acc0),
            StoreSrc::Acc1 => Some(Unit::Acc1),
            StoreSrc::Mul0 => Some(Unit::Mul0),
            StoreSrc::Mul1 => Some(Unit::Mul1),
            StoreSrc::Pass => Some(Unit::Pass),
            StoreSrc::Complex => Some(Unit::Complex),
            StoreSrc::None => None,
        }
    }

    pub fn from_unit(unit: Unit) -> StoreSrc {
        match unit {
            Unit::Acc0 => StoreSrc::Acc0,
            Unit::Acc1 => StoreSrc::Acc1,
            Unit::Mul0 => StoreSrc::Mul0,
            Unit::Mul1 => StoreSrc::Mul1,
            Unit::Pass => StoreSrc::Pass,
            Unit::Complex => StoreSrc::Complex,
        }
    }
}

opcodes!(
    /// Load unit offset (3 bits, §8.2). Codes 0, 4–6 are unknown.
    LoadOffset: OpClass {
    /// `+ addr1`.
    Addr1 = 1, "addr1", 0, Address;
    Addr2 = 2, "addr2", 0, Address;
    Addr3 = 3, "addr3", 0, Address;
    /// No offset.
    None = 7, "none", 0, Nop;
});

impl LoadOffset {
    /// The address register added to `LOAD_ADDR`, if any.
    pub fn address_register(self) -> Option<usize> {
        match self {
            LoadOffset::Addr1 => Some(1),
            LoadOffset::Addr2 => Some(2),
            LoadOffset::Addr3 => Some(3),
            LoadOffset::None => None,
        }
    }
}
