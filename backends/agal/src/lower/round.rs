//! `FRound` in AGAL, which has `frc` (x − ⌊x⌋) but no floor or round instruction.
//!
//! * ⌊x⌋ = x − min(frc(x), 1). For finite x the subtraction is exact (x − ⌊x⌋ is exact by
//!   Sterbenz's lemma except on (−1, 0), where `frc` may round up to 1.0 and x − 1.0 still
//!   rounds to −1); `min` drops the NaN `frc(±∞)` gives, so ±∞ stay ±∞ and NaN stays NaN;
//!   ⌊−0⌋ = −0 − 0 = −0.
//! * ⌈x⌉ = −⌊−x⌋ (signed zeros: ⌈−0.5⌉ = −0).
//! * Toward zero and to nearest even are symmetric: r(x) = s · r(|x|) with s = 1 − 2·(x < 0),
//!   so a negative x rounding to 0 gives −0. (x = −0 itself gives +0 here, the one result whose
//!   sign differs from the IR's.)
//! * Nearest even of a ≥ 0: f = ⌊a⌋, d = a − f; f + (d > ½) + (d = ½)·odd(f), with odd(f) =
//!   2·min(frc(f/2), ½) (the `min` keeps ∞ from giving NaN).

use super::{Comp, Comps, Lower};
use crate::isa::Opcode;

impl Lower<'_> {
    /// ⌊x⌋ and the fractional part min(frc(x), 1) it subtracted.
    fn floor_parts(&mut self, x: &[Comp], w: u8) -> (Comps, Comps) {
        let f = self.alu(Opcode::Frc, &[x], w);
        let d = self.alu(Opcode::Min, &[&f, &[Comp::Lit(1.0)]], w);
        (self.alu(Opcode::Sub, &[x, &d], w), d)
    }

    /// `FRound` of `x` in mode `mode` (the IR's `RoundMode` bits), `None` for an invalid mode.
    pub(super) fn round(&mut self, x: &[Comp], mode: u64, w: u8) -> Option<Comps> {
        match mode {
            4 => Some(self.floor_parts(x, w).0),
            8 => {
                let n = self.alu(Opcode::Neg, &[x], w);
                let f = self.floor_parts(&n, w).0;
                Some(self.alu(Opcode::Neg, &[&f], w))
            }
            1 | 2 => {
                let a = self.alu(Opcode::Abs, &[x], w);
                let (f, d) = self.floor_parts(&a, w);
                let r = if mode == 1 {
                    f
                } else {
                    let half = [Comp::Lit(0.5)];
                    let up = self.alu(Opcode::Slt, &[&half, &d], w);
                    let tie = self.alu(Opcode::Seq, &[&d, &half], w);
                    let h = self.alu(Opcode::Mul, &[&f, &half], w);
                    let h = self.alu(Opcode::Frc, &[&h], w);
                    let h = self.alu(Opcode::Min, &[&h, &half], w);
                    let h = self.alu(Opcode::Mul, &[&h, &tie], w);
                    let h = self.alu(Opcode::Add, &[&h, &h], w);
                    let f = self.alu(Opcode::Add, &[&f, &up], w);
                    self.alu(Opcode::Add, &[&f, &h], w)
                };
                // s = 1 − 2·(x < 0).
                let neg = self.alu(Opcode::Slt, &[x, &[Comp::Lit(0.0)]], w);
                let s = self.alu(Opcode::Mul, &[&neg, &[Comp::Lit(-2.0)]], w);
                let s = self.alu(Opcode::Add, &[&s, &[Comp::Lit(1.0)]], w);
                Some(self.alu(Opcode::Mul, &[&r, &s], w))
            }
            _ => None,
        }
    }
}
