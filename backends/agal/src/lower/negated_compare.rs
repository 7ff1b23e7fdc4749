//! `c ? 0.0 : 1.0` of a comparison `c` as the negated comparison itself, where there is one.
//!
//! A select between 0.0 and 1.0 by a comparison is `1 − c` (one `sub` after the `s**`). When
//! the negation of the comparison is itself a comparison, that comparison alone gives the
//! result: `!(x == y)` is `sne` (`FNe` is unordered, so a NaN still gives 1), booleans' `==`
//! and `!=` swap the same way, and the ordered ones swap (`!(x >= y)` is `slt x, y`) when
//! neither side can be NaN (the float facts, `irc_passes::float_facts`, prove it).

use irc_ir::format::Arith;
use irc_ir::SsaDef;

use super::{compare_op, Comps, Lower};

impl Lower<'_> {
    /// The negation of the comparison `cond` as one comparison of `width` lanes, or `None`.
    pub(super) fn negated_compare(
        &mut self,
        cond: SsaDef,
        width: u8,
    ) -> Result<Option<Comps>, irc_backend::Diagnostic> {
        let m = self.m;
        let op = m.op(cond);
        let bin = Arith::of(op);
        let (Some(x), Some(y)) = (bin.a(), bin.b()) else {
            return Ok(None);
        };
        // The negation ([`irc_passes::compare::inverse`]), and whether it is exact only
        // without NaN operands.
        let Some((negation, ordered)) = irc_passes::compare::inverse(op.opcode) else {
            return Ok(None);
        };
        let Some((opcode, swap)) = compare_op(negation) else {
            return Ok(None);
        };
        let (first, second) = if swap { (y, x) } else { (x, y) };
        if ordered {
            let facts = self.facts();
            if !(facts.never_nan(m, x) && facts.never_nan(m, y)) {
                return Ok(None);
            }
        }
        let (a, b) = (self.value(first)?, self.value(second)?);
        if a.len() != usize::from(width) || b.len() != usize::from(width) {
            return Ok(None);
        }
        Ok(Some(self.alu(opcode, &[&a, &b], width)))
    }
}
