//! THE bit-field and opcode table of the PICA200 shader unit (DESIGN rule 9).
//!
//! Everything that knows *where* a bit lives reads it from here: the encoder, the decoder (written
//! separately from the encoder, against this table), the disassembler (through the decoder) and the
//! tests. Section numbers (§n) refer to `shared/reference/pica.md`.
//!
//! * One `layout!` module per instruction format of §4 ([`fmt0`], [`fmt1`], [`fmt1i`], [`fmt1u`],
//!   [`fmt1c`], [`fmt2`], [`fmt3`], [`fmt4`], [`fmt5`], [`fmt5i`]) and one for the operand descriptor
//!   of §5 ([`opdesc`]). Every module's `ALL` covers bits 0..32 exactly (checked by a test); bits the
//!   hardware ignores are named `UNUSED*` with `unknown = 0` (the value picasso writes).
//! * [`Opcode`] — every opcode of §3 with its [`Format`] and [`Class`]. MAD and MADI own eight 6-bit
//!   codes each (their DST overlaps the low three opcode bits) and CMP two (5-bit opcode); the table
//!   holds the canonical code (0x38, 0x30, 0x2E) and [`Opcode::decode`] folds the others.
//! * Register encodings (§6) in [`reg`], conditions (§8) in [`CmpOp`] / [`CondOp`], relative-address
//!   selectors (§7) in [`AddrIndex`], limits (§2, §11) in [`limits`].

pub use irc_backend::bits::{unknown_defaults, unknown_mask, Field};
use irc_backend::{layout, opcodes};

layout!(
    /// Format 0: NOP END EMIT BREAK — opcode only.
    fmt0, 32, {
    UNUSED: 0, 26, unknown = 0;
    OP: 26, 6;
});

layout!(
    /// Format 1: ADD DP3 DP4 DPH DST MUL SGE SLT MAX MIN (SRC1 wide, SRC2 narrow).
    fmt1, 32, {
    DESC: 0, 7;
    SRC2: 7, 5;
    SRC1: 12, 7;
    /// Relative addressing of SRC1 (the wide source), [`AddrIndex`](super::AddrIndex).
    IDX: 19, 2;
    DST: 21, 5;
    OP: 26, 6;
});

layout!(
    /// Format 1i: DPHI DSTI SGEI SLTI (SRC1 narrow, SRC2 wide).
    fmt1i, 32, {
    DESC: 0, 7;
    SRC2: 7, 7;
    SRC1: 14, 5;
    /// Relative addressing of SRC2 (the wide source).
    IDX: 19, 2;
    DST: 21, 5;
    OP: 26, 6;
});

layout!(
    /// Format 1u: EX2 LG2 LITP FLR RCP RSQ MOVA MOV (one source; DST = 0 for MOVA).
    fmt1u, 32, {
    DESC: 0, 7;
    /// SRC2 position; 0 in every known program.
    UNUSED: 7, 5, unknown = 0;
    SRC1: 12, 7;
    IDX: 19, 2;
    DST: 21, 5;
    OP: 26, 6;
});

layout!(
    /// Format 1c: CMP (5-bit opcode 0x17; CMPY/CMPX replace DST).
    fmt1c, 32, {
    DESC: 0, 7;
    SRC2: 7, 5;
    SRC1: 12, 7;
    IDX: 19, 2;
    CMPY: 21, 3;
    CMPX: 24, 3;
    OP: 27, 5;
});

layout!(
    /// Format 2: BREAKC CALL CALLC IFC JMPC (condition on the cmp flags).
    fmt2, 32, {
    NUM: 0, 8;
    UNUSED: 8, 2, unknown = 0;
    /// Absolute word address.
    DST: 10, 12;
    /// [`CondOp`](super::CondOp).
    CONDOP: 22, 2;
    REFY: 24, 1;
    REFX: 25, 1;
    OP: 26, 6;
});

layout!(
    /// Format 3: CALLU IFU LOOP JMPU (bool uniform id, or int uniform id for LOOP).
    fmt3, 32, {
    NUM: 0, 8;
    UNUSED: 8, 2, unknown = 0;
    DST: 10, 12;
    /// Bool id b0–b15; LOOP uses the low two bits as int id i0–i3.
    ID: 22, 4;
    OP: 26, 6;
});

layout!(
    /// Format 4: SETEMIT.
    fmt4, 32, {
    UNUSED: 0, 22, unknown = 0;
    /// Invert the winding of the emitted primitive (3dbrew: "working hypothesis").
    WINDING: 22, 1;
    PRIMEMIT: 23, 1;
    VTXID: 24, 2;
    OP: 26, 6;
});

layout!(
    /// Format 5: MAD (SRC2 wide; 5-bit DESC: operand descriptors 0–31 only).
    fmt5, 32, {
    DESC: 0, 5;
    SRC3: 5, 5;
    SRC2: 10, 7;
    SRC1: 17, 5;
    /// Relative addressing of SRC2.
    IDX: 22, 2;
    DST: 24, 5;
    OP: 29, 3;
});

layout!(
    /// Format 5i: MADI (SRC3 wide).
    fmt5i, 32, {
    DESC: 0, 5;
    SRC3: 5, 7;
    SRC2: 12, 5;
    SRC1: 17, 5;
    /// Relative addressing of SRC3.
    IDX: 22, 2;
    DST: 24, 5;
    OP: 29, 3;
});

layout!(
    /// Operand descriptor (§5). Selectors: bits 7:6 feed result x, 5:4 y, 3:2 z, 1:0 w.
    opdesc, 32, {
    /// Destination mask: bit 3 = x, bit 2 = y, bit 1 = z, bit 0 = w.
    MASK: 0, 4;
    NEG1: 4, 1;
    SEL1: 5, 8;
    NEG2: 13, 1;
    SEL2: 14, 8;
    NEG3: 22, 1;
    SEL3: 23, 8;
    /// picasso writes 0; GBATEK saw it set in commercial files. Ignored by the hardware.
    UNUSED: 31, 1, unknown = 0;
});

/// The 3-bit opcode value of MAD (format 5) in bits 29–31.
pub const MAD_OP3: u64 = 0b111;
/// The 3-bit opcode value of MADI (format 5i).
pub const MADI_OP3: u64 = 0b110;
/// The 5-bit opcode value of CMP (format 1c) in bits 27–31.
pub const CMP_OP5: u64 = 0x17;

/// Instruction formats of §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    F0,
    F1,
    F1i,
    F1u,
    F1c,
    F2,
    F3,
    F4,
    F5,
    F5i,
}

/// What an opcode does, for the encoder, decoder and simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Per-component binary arithmetic (ADD MUL MAX MIN SGE SLT and I-forms).
    Binary,
    /// Dot products, broadcast result (DP3 DP4 DPH DPHI).
    Dot,
    /// DST / DSTI.
    Dst,
    /// Scalar: reads component 0 of the swizzled SRC1, broadcasts (EX2 LG2 RCP RSQ).
    Scalar,
    /// Per-component unary (MOV FLR).
    Unary,
    /// LITP (also writes the cmp flags).
    Litp,
    /// MOVA: writes a0.x / a0.y.
    Mova,
    /// CMP: writes cmp.x / cmp.y.
    Compare,
    /// MAD / MADI.
    Mad,
    /// No operands (NOP END EMIT BREAK).
    Plain,
    /// Flow control on the cmp flags (format 2).
    CondFlow,
    /// Flow control on a bool or int uniform (format 3).
    UniformFlow,
    /// SETEMIT.
    SetEmit,
}

opcodes!(
    /// Opcodes of §3 (6-bit field, bits 26–31). MAD/MADI/CMP hold their canonical 6-bit code.
    Opcode: Class {
    Add = 0x00, "add", 2, Binary;
    Dp3 = 0x01, "dp3", 2, Dot;
    Dp4 = 0x02, "dp4", 2, Dot;
    Dph = 0x03, "dph", 2, Dot;
    Dst = 0x04, "dst", 2, Dst;
    Ex2 = 0x05, "ex2", 1, Scalar;
    Lg2 = 0x06, "lg2", 1, Scalar;
    Litp = 0x07, "litp", 1, Litp;
    Mul = 0x08, "mul", 2, Binary;
    Sge = 0x09, "sge", 2, Binary;
    Slt = 0x0A, "slt", 2, Binary;
    Flr = 0x0B, "flr", 1, Unary;
    Max = 0x0C, "max", 2, Binary;
    Min = 0x0D, "min", 2, Binary;
    Rcp = 0x0E, "rcp", 1, Scalar;
    Rsq = 0x0F, "rsq", 1, Scalar;
    Mova = 0x12, "mova", 1, Mova;
    Mov = 0x13, "mov", 1, Unary;
    Dphi = 0x18, "dphi", 2, Dot;
    Dsti = 0x19, "dsti", 2, Dst;
    Sgei = 0x1A, "sgei", 2, Binary;
    Slti = 0x1B, "slti", 2, Binary;
    Break = 0x20, "break", 0, Plain;
    Nop = 0x21, "nop", 0, Plain;
    End = 0x22, "end", 0, Plain;
    Breakc = 0x23, "breakc", 0, CondFlow;
    Call = 0x24, "call", 0, CondFlow;
    Callc = 0x25, "callc", 0, CondFlow;
    Callu = 0x26, "callu", 0, UniformFlow;
    Ifu = 0x27, "ifu", 0, UniformFlow;
    Ifc = 0x28, "ifc", 0, CondFlow;
    /// picasso spells it `for`.
    Loop = 0x29, "for", 0, UniformFlow;
    Emit = 0x2A, "emit", 0, Plain;
    SetEmit = 0x2B, "setemit", 0, SetEmit;
    Jmpc = 0x2C, "jmpc", 0, CondFlow;
    Jmpu = 0x2D, "jmpu", 0, UniformFlow;
    /// Also 0x2F (5-bit opcode).
    Cmp = 0x2E, "cmp", 2, Compare;
    /// 0x30–0x37.
    Madi = 0x30, "madi", 3, Mad;
    /// 0x38–0x3F.
    Mad = 0x38, "mad", 3, Mad;
});

impl Opcode {
    /// Decodes the 6-bit opcode field of a word, folding MAD (0x38–0x3F), MADI (0x30–0x37) and
    /// CMP (0x2E–0x2F). `None` for the unused codes 0x10, 0x11, 0x14–0x17, 0x1C–0x1F.
    pub fn decode(op6: u64) -> Option<Opcode> {
        match op6 {
            0x38..=0x3F => Some(Opcode::Mad),
            0x30..=0x37 => Some(Opcode::Madi),
            0x2F => Some(Opcode::Cmp),
            _ => Opcode::from_bits(op6),
        }
    }

    /// The instruction format.
    pub fn format(self) -> Format {
        use Opcode::*;
        match self {
            Add | Dp3 | Dp4 | Dph | Dst | Mul | Sge | Slt | Max | Min => Format::F1,
            Dphi | Dsti | Sgei | Slti => Format::F1i,
            Ex2 | Lg2 | Litp | Flr | Rcp | Rsq | Mova | Mov => Format::F1u,
            Cmp => Format::F1c,
            Break | Nop | End | Emit => Format::F0,
            Breakc | Call | Callc | Ifc | Jmpc => Format::F2,
            Callu | Ifu | Loop | Jmpu => Format::F3,
            SetEmit => Format::F4,
            Mad => Format::F5,
            Madi => Format::F5i,
        }
    }

    /// The inverted (SRC1 narrow, wide second source) form, if the opcode has one.
    pub fn inverted(self) -> Option<Opcode> {
        match self {
            Opcode::Dph => Some(Opcode::Dphi),
            Opcode::Dst => Some(Opcode::Dsti),
            Opcode::Sge => Some(Opcode::Sgei),
            Opcode::Slt => Some(Opcode::Slti),
            Opcode::Mad => Some(Opcode::Madi),
            _ => None,
        }
    }

    /// The plain form of an inverted opcode (itself for the others).
    pub fn plain(self) -> Opcode {
        match self {
            Opcode::Dphi => Opcode::Dph,
            Opcode::Dsti => Opcode::Dst,
            Opcode::Sgei => Opcode::Sge,
            Opcode::Slti => Opcode::Slt,
            Opcode::Madi => Opcode::Mad,
            op => op,
        }
    }

    /// Whether this is an inverted form (wide source in the second / third position).
    pub fn is_inverted(self) -> bool {
        self.plain() != self
    }

    /// Geometry-shader-only instructions.
    pub fn gs_only(self) -> bool {
        matches!(self, Opcode::Emit | Opcode::SetEmit)
    }
}

/// Operand-descriptor bits an instruction actually reads (the rest are don't-care and may be shared
/// with other instructions when de-duplicating, §3 "picasso's opdesc de-duplication").
pub fn opdesc_care_mask(op: Opcode) -> u32 {
    const D: u32 = 0xF;
    const S1: u32 = 0x1FF << 4;
    const S2: u32 = 0x1FF << 13;
    const S3: u32 = 0x1FF << 22;
    // Selector component n occupies bits (6 - 2n)..(8 - 2n) of the 8-bit selector.
    const fn component_bits(first: u32, sel_lo: u32) -> u32 {
        // bits of components `first..4` of a selector at `sel_lo`
        let mut m = 0;
        let mut n = first;
        while n < 4 {
            m |= 3 << (sel_lo + 6 - 2 * n);
            n += 1;
        }
        m
    }
    use Opcode::*;
    match op {
        Add | Mul | Sge | Slt | Max | Min | Sgei | Slti | Dp4 | Dst | Dsti => D | S1 | S2,
        Dp3 => (D | S1 | S2) & !component_bits(3, 5) & !component_bits(3, 14),
        Dph | Dphi => (D | S1 | S2) & !component_bits(3, 5),
        Ex2 | Lg2 | Rcp | Rsq => (D | S1) & !component_bits(1, 5),
        Mov | Flr | Litp => D | S1,
        Mova => (D | S1) & !component_bits(2, 5),
        Cmp => (S1 | S2) & !component_bits(2, 5) & !component_bits(2, 14),
        Mad | Madi => D | S1 | S2 | S3,
        Break | Nop | End | Breakc | Call | Callc | Callu | Ifu | Ifc | Loop | Emit | SetEmit
        | Jmpc | Jmpu => 0,
    }
}

/// Relative addressing of the wide source (IDX field, §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AddrIndex {
    #[default]
    None = 0,
    A0X = 1,
    A0Y = 2,
    AL = 3,
}

impl AddrIndex {
    pub const ALL: [AddrIndex; 4] = [
        AddrIndex::None,
        AddrIndex::A0X,
        AddrIndex::A0Y,
        AddrIndex::AL,
    ];
    pub fn from_bits(b: u64) -> AddrIndex {
        AddrIndex::ALL[(b & 3) as usize]
    }
    pub fn name(self) -> &'static str {
        match self {
            AddrIndex::None => "",
            AddrIndex::A0X => "a0.x",
            AddrIndex::A0Y => "a0.y",
            AddrIndex::AL => "aL",
        }
    }
}

/// CMP comparison (CMPX / CMPY fields, §8). Codes 6 and 7 are not valid ("do not exist").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq = 0,
    Ne = 1,
    Lt = 2,
    Le = 3,
    Gt = 4,
    Ge = 5,
}

impl CmpOp {
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];
    pub fn from_bits(b: u64) -> Option<CmpOp> {
        CmpOp::ALL.get(b as usize).copied()
    }
    pub fn name(self) -> &'static str {
        ["eq", "ne", "lt", "le", "gt", "ge"][self as usize]
    }
    /// The comparison with its operands swapped (LT ↔ GT, LE ↔ GE).
    pub fn mirrored(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Ge => CmpOp::Le,
            op => op,
        }
    }
}

/// How a format-2 condition combines the flags (CONDOP, §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CondOp {
    /// (cmp.x == REFX) ∨ (cmp.y == REFY)
    Or = 0,
    /// (cmp.x == REFX) ∧ (cmp.y == REFY)
    And = 1,
    /// cmp.x == REFX
    X = 2,
    /// cmp.y == REFY
    Y = 3,
}

impl CondOp {
    pub fn from_bits(b: u64) -> CondOp {
        [CondOp::Or, CondOp::And, CondOp::X, CondOp::Y][(b & 3) as usize]
    }
}

/// Register encodings (§6).
pub mod reg {
    /// First input register v0 (source encodings).
    pub const INPUT: u8 = 0x00;
    /// First temporary r0 (source and destination encodings).
    pub const TEMP: u8 = 0x10;
    /// First float uniform c0 (7-bit source encodings only).
    pub const CONST: u8 = 0x20;
    /// First output o0 (destination encodings).
    pub const OUTPUT: u8 = 0x00;
    /// Unified register space of the SHBIN uniform table (§6, §13.1).
    pub const UNIFIED_INPUT: u16 = 0x00;
    pub const UNIFIED_FLOAT: u16 = 0x10;
    pub const UNIFIED_INT: u16 = 0x70;
    pub const UNIFIED_BOOL: u16 = 0x78;
}

/// Limits (§2, §11).
pub mod limits {
    /// Instruction words of program memory (VS code must lie in words 0–511).
    pub const CODE_WORDS: usize = 512;
    /// Largest target address representable in a flow-control DST field (12 bits).
    pub const MAX_ADDRESS: usize = 0xFFF;
    /// Operand descriptors per SHBIN (7-bit DESC).
    pub const OPDESCS: usize = 128;
    /// Operand descriptors reachable from MAD/MADI (5-bit DESC).
    pub const MAD_OPDESCS: usize = 32;
    pub const INPUTS: usize = 16;
    pub const TEMPS: usize = 16;
    pub const FLOAT_UNIFORMS: usize = 96;
    pub const INT_UNIFORMS: usize = 4;
    pub const BOOL_UNIFORMS: usize = 16;
    /// Output registers of a vertex shader.
    pub const VS_OUTPUTS: usize = 16;
    /// Output registers of a geometry shader.
    pub const GS_OUTPUTS: usize = 7;
    pub const CALL_STACK: usize = 4;
    pub const IF_STACK: usize = 8;
    pub const LOOP_STACK: usize = 4;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_cover_32_bits_exactly() {
        for all in [
            fmt0::ALL,
            fmt1::ALL,
            fmt1i::ALL,
            fmt1u::ALL,
            fmt1c::ALL,
            fmt2::ALL,
            fmt3::ALL,
            fmt4::ALL,
            fmt5::ALL,
            fmt5i::ALL,
            opdesc::ALL,
        ] {
            let mut covered = 0u128;
            for f in all {
                assert_eq!(covered & f.mask(), 0, "{} overlaps", f.name);
                covered |= f.mask();
            }
            assert_eq!(covered, 0xFFFF_FFFF, "{all:?}");
        }
    }

    #[test]
    fn opcode_table_round_trips() {
        for op6 in 0..64u64 {
            if let Some(op) = Opcode::decode(op6) {
                match op {
                    Opcode::Mad => assert_eq!(op6 >> 3, MAD_OP3),
                    Opcode::Madi => assert_eq!(op6 >> 3, MADI_OP3),
                    Opcode::Cmp => assert_eq!(op6 >> 1, CMP_OP5),
                    _ => assert_eq!(op.bits(), op6),
                }
            }
        }
        assert_eq!(Opcode::ALL.len(), 39);
        for &op in Opcode::ALL {
            assert_eq!(Opcode::decode(op.bits()), Some(op));
            assert_eq!(
                op.plain().inverted().unwrap_or(op.plain()).plain(),
                op.plain()
            );
        }
    }

    #[test]
    fn care_masks() {
        assert_eq!(opdesc_care_mask(Opcode::Add), 0x3F_FFFF);
        assert_eq!(opdesc_care_mask(Opcode::Mov), 0x1FFF);
        // RCP reads component 0 of the selector only (bits 11..13).
        assert_eq!(opdesc_care_mask(Opcode::Rcp), 0xF | 0x10 | (3 << 11));
        assert_eq!(opdesc_care_mask(Opcode::Mad), 0x7FFF_FFFF);
    }
}
