//! `nrm` and `crs` from the IR's spelled-out forms (D3D9 `nrm`/`crs` reach the IR that way, and
//! hand-written AGAL uses the single instructions: Away3D's SegmentPass has three `nrm` and a
//! `crs`).
//!
//! * `v · splat(rsq(dot(v, v)))` for a 3-vector `v` is `nrm v` (`v / √dot(v, v)`: the two differ
//!   by rounding only, as AGAL's own `rsq` does; not done when an op is `Precise`).
//! * `a.yzx · b.zxy − a.zxy · b.yzx` (either factor order) is `crs a, b`, exactly the same
//!   products and difference.
//! * `rcp(rsq(x))`, D3D9's length idiom, is `sqt x` (the two differ by rounding only, and agree
//!   on `±0`, `+inf` and negative `x`; not done when an op is `Precise`).
//!
//! The ops the pattern started from were lowered already; [`super::dce`] removes them when
//! nothing else reads them.

use irc_ir::format::{Arith, CompositeConstruct, Dot};
use irc_ir::{OpCode, OpFlags, SsaDef};

use super::{same, Comp, Comps, Lower};
use crate::isa::Opcode;

impl Lower<'_> {
    /// `Precise` by its own flags or its type's `SetFpMode` defaults.
    fn precise(&self, d: SsaDef) -> bool {
        self.fp.flags(self.m.op(d)).contains(OpFlags::PRECISE)
    }

    /// `sqt` for the `FRcp` `d` of an `FRsq` of the same type.
    pub(super) fn try_sqt(&mut self, d: SsaDef) -> Option<Comps> {
        let op = self.m.op(d);
        let x = irc_ir::analysis::rsq_of_rcp(self.m, op, |o| {
            self.fp.flags(o).contains(OpFlags::PRECISE)
        })?;
        let width = u8::try_from(super::io::flat_size(&op.ty)?).ok()?;
        let x = self.value(x).ok()?;
        Some(self.alu(Opcode::Sqt, &[&x], width))
    }

    /// `nrm` for the `FMul` `d` when it normalizes a 3-vector.
    pub(super) fn try_nrm(&mut self, d: SsaDef) -> Option<Comps> {
        let op = self.m.op(d);
        let (a, b) = (Arith::of(op).a()?, Arith::of(op).b()?);
        if self.precise(d) || super::io::flat_size(&op.ty) != Some(3) {
            return None;
        }
        let normalizes = |v: SsaDef, s: SsaDef| -> bool {
            let sop = self.m.op(s);
            if sop.opcode != OpCode::CompositeConstruct {
                return false;
            }
            let members = CompositeConstruct::of(sop).members();
            let first = members.first().and_then(|o| o.as_ref());
            let Some(r) = first
                .filter(|&r| members.len() == 3 && members.iter().all(|m| m.as_ref() == Some(r)))
            else {
                return false;
            };
            let rop = self.m.op(r);
            let Some(dd) = Arith::of(rop).a().filter(|_| rop.opcode == OpCode::FRsq) else {
                return false;
            };
            let dop = self.m.op(dd);
            dop.opcode == OpCode::FDot
                && Dot::of(dop).a() == Some(v)
                && Dot::of(dop).b() == Some(v)
                && Dot::of(dop).add().is_none()
                && !self.precise(r)
                && !self.precise(dd)
        };
        let v = if normalizes(a, b) {
            a
        } else if normalizes(b, a) {
            b
        } else {
            return None;
        };
        let vc = self.value(v).ok()?;
        Some(self.vec_op(Opcode::Nrm, &[&vc], 3, true))
    }

    /// `crs` for the `FSub` `d` when it is a cross product.
    pub(super) fn try_crs(&mut self, d: SsaDef) -> Option<Comps> {
        let op = self.m.op(d);
        if super::io::flat_size(&op.ty) != Some(3) {
            return None;
        }
        let (x, y) = (Arith::of(op).a()?, Arith::of(op).b()?);
        let factors = |s: &mut Self, p: SsaDef| -> Option<(Comps, Comps)> {
            let pop = s.m.op(p);
            if pop.opcode != OpCode::FMul {
                return None;
            }
            let (a, b) = (Arith::of(pop).a()?, Arith::of(pop).b()?);
            Some((s.value(a).ok()?, s.value(b).ok()?))
        };
        let (p, q) = factors(self, x)?;
        let (r, s) = factors(self, y)?;
        let rot = |v: &[Comp], k: [usize; 3]| -> Comps { k.iter().map(|&i| v[i]).collect() };
        for (p, q) in [(&p, &q), (&q, &p)] {
            // p = a.yzx, q = b.zxy.
            let a = rot(p, [2, 0, 1]);
            let b = rot(q, [1, 2, 0]);
            let (want_r, want_s) = (rot(&a, [2, 0, 1]), rot(&b, [1, 2, 0]));
            let matches = (same(&r, &want_r) && same(&s, &want_s))
                || (same(&s, &want_r) && same(&r, &want_s));
            if matches {
                return Some(self.vec_op(Opcode::Crs, &[&a, &b], 3, true));
            }
        }
        None
    }
}
