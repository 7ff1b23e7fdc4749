//! The structured form of one GP instruction: every field of the 128-bit word (reference §7) with
//! its meaning, typed by the tables of [`super::isa`]. Every field is kept, including those a unit
//! that is not used ignores, so that decode → encode is the identity.

use super::isa::{AccOp, ComplexOp, LoadOffset, MulOp, PassOp, Src, StoreSrc};

/// A unit with two sources and a negate bit per source (acc0/acc1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AccSlot {
    pub src: [Src; 2],
    pub neg: [bool; 2],
}

/// A mul unit: two sources, src1 optionally negated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MulSlot {
    pub src: [Src; 2],
    /// Negates src1.
    pub neg: bool,
}

/// One store unit: store0 writes `.x`/`.y`, store1 `.z`/`.w` of a vec4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Store {
    /// What is stored into the unit's two components (store0: x, y; store1: z, w).
    pub src: [StoreSrc; 2],
    /// Varying or register vec4 index (ignored by temporary stores).
    pub addr: u8,
    /// Writes varying `v<addr>` instead of register `$<addr>`.
    pub varying: bool,
    /// Writes temporary `t[addr0]` (overrides `addr` and `varying`).
    pub temporary: bool,
}

impl Store {
    /// A store unit storing nothing.
    pub const NONE: Store = Store {
        src: [StoreSrc::None; 2],
        addr: 0,
        varying: false,
        temporary: false,
    };

    /// Whether the unit stores anything.
    pub fn active(&self) -> bool {
        self.src.iter().any(|&s| s != StoreSrc::None)
    }
}

/// One GP instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// acc0, acc1 (one shared opcode).
    pub acc: [AccSlot; 2],
    pub acc_op: AccOp,
    /// mul0, mul1 (one shared opcode).
    pub mul: [MulSlot; 2],
    pub mul_op: MulOp,
    pub complex_op: ComplexOp,
    pub complex_src: Src,
    pub pass_op: PassOp,
    pub pass_src: Src,
    /// Uniform/temporary vec4 index of the load unit (9 bits).
    pub load_addr: u16,
    pub load_offset: LoadOffset,
    /// Register 0 load: vec4 index, and whether it is attribute `a<n>` rather than register `$n`.
    pub reg0_addr: u8,
    pub reg0_attribute: bool,
    /// Register 1 load: register `$n`.
    pub reg1_addr: u8,
    pub store: [Store; 2],
    /// Branch on the pass result of this instruction to `branch_target`.
    pub branch: bool,
    /// Absolute target (9 bits; bit 8 is stored inverted, so an all-zero field reads 256).
    pub branch_target: u16,
    /// The `UNKNOWN_1` field (0, 12 with a temporary store, 13 with a branch).
    pub unknown_1: u8,
}

impl Instruction {
    /// The instruction that does nothing, encoded as the reference says unused units are (§7):
    /// every ALU source unused, store sources none, load offset none, pass op `mov` with an unused
    /// source, everything else 0.
    pub const NOP: Instruction = Instruction {
        acc: [AccSlot {
            src: [Src::Unused; 2],
            neg: [false; 2],
        }; 2],
        acc_op: AccOp::Add,
        mul: [MulSlot {
            src: [Src::Unused; 2],
            neg: false,
        }; 2],
        mul_op: MulOp::Mul,
        complex_op: ComplexOp::Nop,
        complex_src: Src::Unused,
        pass_op: PassOp::Pass,
        pass_src: Src::Unused,
        load_addr: 0,
        load_offset: LoadOffset::None,
        reg0_addr: 0,
        reg0_attribute: false,
        reg1_addr: 0,
        store: [Store::NONE; 2],
        branch: false,
        branch_target: 256,
        unknown_1: 0,
    };

    /// Every ALU source of the instruction with its place: `(unit, source index, source)`;
    /// pass and complex have index 0 only.
    pub fn sources(&self) -> [(super::isa::Unit, usize, Src); 10] {
        use super::isa::Unit::*;
        [
            (Acc0, 0, self.acc[0].src[0]),
            (Acc0, 1, self.acc[0].src[1]),
            (Acc1, 0, self.acc[1].src[0]),
            (Acc1, 1, self.acc[1].src[1]),
            (Mul0, 0, self.mul[0].src[0]),
            (Mul0, 1, self.mul[0].src[1]),
            (Mul1, 0, self.mul[1].src[0]),
            (Mul1, 1, self.mul[1].src[1]),
            (Pass, 0, self.pass_src),
            (Complex, 0, self.complex_src),
        ]
    }
}

impl Default for Instruction {
    fn default() -> Self {
        Instruction::NOP
    }
}
