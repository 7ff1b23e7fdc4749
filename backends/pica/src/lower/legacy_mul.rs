//! D3D9 multiplies under `-C legacy-mul=exact`: `FMulLegacy`, `FMadLegacy` and `FDotLegacy`
//! with the IR's rule `0 · x = 0` for every `x`, NaN included.
//!
//! PICA's MUL, MAD and DP3/DP4/DPH multiply with D3D9's `0 · inf = 0`, but `NaN · 0` is NaN
//! there (reference pica.md §10). The default (`legacy-mul=native`) runs the bare instruction
//! and documents the difference; this mode adds, per vector product whose factors may be NaN,
//! a correction built from the other §10 rules: `max(NaN, y) = y`, comparisons with NaN are
//! false, `inf − inf = NaN`, `0 · inf = 0`.
//!
//! The float facts (`irc_passes::float_facts`) decide when no correction is needed: neither
//! factor may be NaN, or one factor is never NaN and never zero (then a NaN factor meets no
//! zero, and the hardware's NaN is the IR's).

use super::{Comps, Lower, C};
use crate::isa::Opcode;
use irc_ir::SsaDef;

/// What the float facts say about one factor of a product.
#[derive(Debug, Clone, Copy)]
pub(super) struct Factor {
    /// No lane is ever NaN.
    pub nan_free: bool,
    /// No lane is ever NaN or ±0.
    pub nonzero: bool,
}

impl Lower<'_> {
    /// The facts of factor `d` (`n` lanes), or of literal lanes `v`.
    pub(super) fn factor(&self, d: Option<SsaDef>, v: &[C]) -> Factor {
        let lits: Option<Vec<f32>> = v
            .iter()
            .map(|c| match c.loc {
                super::Loc::Lit(bits) => Some(f32::from_bits(bits)),
                _ => None,
            })
            .collect();
        if let Some(lits) = lits {
            return Factor {
                nan_free: lits.iter().all(|x| !x.is_nan()),
                nonzero: lits.iter().all(|x| !x.is_nan() && *x != 0.0),
            };
        }
        let n = v.len();
        let Some(d) = d else {
            return Factor {
                nan_free: false,
                nonzero: false,
            };
        };
        let facts = (0..n).map(|i| self.facts.get(d, i));
        Factor {
            nan_free: facts.clone().all(|f| !f.nan),
            nonzero: facts.clone().all(|f| !f.nan && (f.lo > 0.0 || f.hi < 0.0)),
        }
    }

    /// True when the hardware's product of factors with these facts is already the IR's
    /// (in either mode).
    pub(super) fn product_is_exact(&self, fa: Factor, fb: Factor) -> bool {
        !self.exact_legacy_mul || (fa.nan_free && fb.nan_free) || fa.nonzero || fb.nonzero
    }

    /// `a · b` component-wise with the IR's D3D9 rule, for factors that may be NaN:
    /// - `x' = max(x, −inf)` is `x` with NaN replaced by −inf (for a factor that may be NaN), so
    ///   `p = x'·y'` (MUL) is the IR's product except where a NaN factor meets a non-zero one:
    ///   there `p` is ±inf instead of NaN (a NaN meeting a zero gives 0, as it must);
    /// - `f = sge(v, v)` is 0 exactly when `v` is NaN (`v` the factor that may be NaN, or the
    ///   bare product `a·b` when both may be), `m = 1 − f`;
    /// - `t = p · m` is `p` where a factor is NaN, else 0 (`0 · inf = 0`, `p` is never NaN), and
    ///   `t − t` is NaN exactly where `t` is infinite: a NaN factor met a non-zero one;
    /// - `p + (t − t)` is the IR's product.
    ///
    /// 7 instructions (one factor may be NaN) or 9 (both), against 1.
    pub(super) fn exact_legacy_product(
        &mut self,
        a: &[C],
        fa: Factor,
        b: &[C],
        fb: Factor,
    ) -> Comps {
        let neg = |v: &[C]| -> Comps { v.iter().copied().map(C::negated).collect() };
        let n = a.len();
        let minus_inf = Self::splat(f32::NEG_INFINITY, n);
        let one = Self::splat(1.0, n);
        let scrub = |this: &mut Self, x: &[C], free: bool| -> Comps {
            if free {
                x.iter().copied().collect()
            } else {
                this.vec_op(Opcode::Max, &[x, &minus_inf])
            }
        };
        let a2 = scrub(self, a, fa.nan_free);
        let b2 = scrub(self, b, fb.nan_free);
        let p = self.vec_op(Opcode::Mul, &[&a2, &b2]);
        let probe = match (fa.nan_free, fb.nan_free) {
            (false, true) => a.iter().copied().collect(),
            (true, false) => b.iter().copied().collect(),
            _ => self.vec_op(Opcode::Mul, &[a, b]),
        };
        let f = self.vec_op(Opcode::Sge, &[&probe, &probe]);
        let m = self.vec_op(Opcode::Add, &[&one, &neg(&f)]);
        let t = self.vec_op(Opcode::Mul, &[&p, &m]);
        let q = self.vec_op(Opcode::Add, &[&t, &neg(&t)]);
        self.vec_op(Opcode::Add, &[&p, &q])
    }

    /// The sum of the lanes of `p` (legacy products already exact): `x · 1` is `x` for every
    /// `x` under the hardware's rule, so DP3/DP4 against ones adds them.
    pub(super) fn lane_sum(&mut self, p: &[C]) -> Comps {
        match p.len() {
            1 => p.iter().copied().collect(),
            2 => self.vec_op(Opcode::Add, &[&p[..1], &p[1..2]]),
            n => {
                let ones = Self::splat(1.0, n);
                let op = if n == 3 { Opcode::Dp3 } else { Opcode::Dp4 };
                self.dot_op(op, p, &ones)
            }
        }
    }
}
