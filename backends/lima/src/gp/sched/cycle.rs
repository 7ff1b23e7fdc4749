//! One instruction under construction: the [`Instruction`] being filled plus which units, load
//! ports and store units are taken, and the primitive placements the scheduler combines
//! (a unit with its operation and sources, a store component).

use super::super::instr::{Instruction, Store};
use super::super::isa::{AccOp, MulOp, PassOp, Src, StoreSrc, Unit};

/// An instruction being built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cyc {
    pub ins: Instruction,
    /// Register-0 load: vec4 index and whether it is an attribute.
    pub reg0: Option<(u8, bool)>,
    pub reg1: Option<u8>,
    /// Uniform vec4 of the load unit.
    pub load: Option<u16>,
    /// The address register (1–3) the load adds, 0 for none.
    pub load_off: u8,
    pub acc: [bool; 2],
    pub mul: [bool; 2],
    pub pass: bool,
    pub complex: bool,
    /// The temporary vec4 the complex unit points `addr0` at for this instruction's
    /// temporary stores.
    pub temp: Option<u16>,
}

impl Default for Cyc {
    fn default() -> Self {
        Cyc {
            ins: Instruction::NOP,
            reg0: None,
            reg1: None,
            load: None,
            load_off: 0,
            acc: [false; 2],
            mul: [false; 2],
            pass: false,
            complex: false,
            temp: None,
        }
    }
}

/// A unit that can run a `mov` (pass, acc in its `add x, −ident` form, mul as `x · ident`).
pub const MOV_UNITS: [Unit; 5] = [Unit::Pass, Unit::Acc0, Unit::Acc1, Unit::Mul0, Unit::Mul1];

impl Cyc {
    /// True if nothing is placed.
    pub fn is_empty(&self) -> bool {
        !(self.acc.iter().any(|&a| a)
            || self.mul.iter().any(|&m| m)
            || self.pass
            || self.complex
            || self.ins.store.iter().any(Store::active))
    }

    /// Number of units doing work (for "slots filled per instruction").
    pub fn filled(&self) -> u32 {
        let units = self
            .acc
            .iter()
            .chain(self.mul.iter())
            .filter(|&&u| u)
            .count()
            + usize::from(self.pass)
            + usize::from(self.complex);
        units as u32
    }

    /// A free acc unit that can run `op` (the acc op is shared).
    pub fn free_acc(&self, op: AccOp) -> Option<usize> {
        if self.acc.iter().any(|&a| a) && self.ins.acc_op != op {
            return None;
        }
        (0..2).find(|&i| !self.acc[i])
    }

    /// A free mul unit for a plain multiply (the mul op is shared).
    pub fn free_mul(&self) -> Option<usize> {
        if self.mul.iter().any(|&m| m) && self.ins.mul_op != MulOp::Mul {
            return None;
        }
        (0..2).find(|&i| !self.mul[i])
    }

    /// Both mul units free.
    pub fn muls_free(&self) -> bool {
        !self.mul[0] && !self.mul[1]
    }

    pub fn set_acc(&mut self, i: usize, op: AccOp, src: [Src; 2], neg: [bool; 2]) {
        self.acc[i] = true;
        self.ins.acc_op = op;
        self.ins.acc[i].src = src;
        self.ins.acc[i].neg = neg;
    }

    pub fn set_mul(&mut self, i: usize, src: [Src; 2], neg: bool) {
        self.mul[i] = true;
        self.ins.mul_op = MulOp::Mul;
        self.ins.mul[i].src = src;
        self.ins.mul[i].neg = neg;
    }

    pub fn set_pass(&mut self, op: PassOp, src: Src) {
        self.pass = true;
        self.ins.pass_op = op;
        self.ins.pass_src = src;
    }

    /// Places a mov of `src` (negated if `neg`) on a free unit; returns the unit.
    pub fn place_mov(&mut self, src: Src, neg: bool) -> Option<Unit> {
        for u in MOV_UNITS {
            match u {
                Unit::Pass if !neg && !self.pass => {
                    self.set_pass(PassOp::Pass, src);
                    return Some(u);
                }
                Unit::Acc0 | Unit::Acc1 => {
                    let i = u.index();
                    if !self.acc[i] && self.free_acc(AccOp::Add).is_some() {
                        self.set_acc(i, AccOp::Add, [src, Src::Ident], [neg, true]);
                        return Some(u);
                    }
                }
                Unit::Mul0 | Unit::Mul1 => {
                    let i = u.index() - 2;
                    if !self.mul[i] && self.free_mul().is_some() {
                        self.set_mul(i, [src, Src::Ident], neg);
                        return Some(u);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Removes the mov placed on `unit`.
    pub fn remove_unit(&mut self, unit: Unit) {
        let nop = Instruction::NOP;
        match unit {
            Unit::Acc0 | Unit::Acc1 => {
                let i = unit.index();
                self.acc[i] = false;
                self.ins.acc[i] = nop.acc[i];
            }
            Unit::Mul0 | Unit::Mul1 => {
                let i = unit.index() - 2;
                self.mul[i] = false;
                self.ins.mul[i] = nop.mul[i];
            }
            Unit::Pass => {
                self.pass = false;
                self.ins.pass_op = nop.pass_op;
                self.ins.pass_src = nop.pass_src;
            }
            Unit::Complex => {}
        }
        if !self.acc.iter().any(|&a| a) {
            self.ins.acc_op = nop.acc_op;
        }
        if !self.mul.iter().any(|&m| m) {
            self.ins.mul_op = nop.mul_op;
        }
    }

    /// Whether store unit `k` can store component `j` into varying `v` (`varying`) or register
    /// `v`.
    pub fn store_fits(&self, k: usize, j: usize, v: u8, varying: bool) -> bool {
        let s = &self.ins.store[k];
        !s.active() || (s.varying == varying && s.addr == v && s.src[j] == StoreSrc::None)
    }

    /// Stores `unit`'s result into component `2k + j` of varying or register `v`.
    pub fn set_store(&mut self, k: usize, j: usize, v: u8, varying: bool, unit: Unit) {
        let s = &mut self.ins.store[k];
        s.addr = v;
        s.varying = varying;
        s.temporary = false;
        s.src[j] = StoreSrc::from_unit(unit);
    }

    /// Removes the `addr0` set of the temporary stores (none is left) and, when only that
    /// read it, the load of its address literal (a slot from `literal_base` on).
    pub fn clear_temp(&mut self, literal_base: u32) {
        let nop = Instruction::NOP;
        self.temp = None;
        self.complex = false;
        self.ins.complex_op = nop.complex_op;
        self.ins.complex_src = nop.complex_src;
        self.ins.unknown_1 = nop.unknown_1;
        if self.load.is_some_and(|l| u32::from(l) >= literal_base) {
            self.load = None;
            self.ins.load_addr = nop.load_addr;
        }
    }

    /// Removes the store of component `2k + j`.
    pub fn clear_store(&mut self, k: usize, j: usize) {
        let s = &mut self.ins.store[k];
        s.src[j] = StoreSrc::None;
        if !s.active() {
            *s = Store::NONE;
        }
    }
}
