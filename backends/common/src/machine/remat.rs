//! Rematerialization: a [`SpillStrategy`] for targets without memory to spill to (PICA200,
//! AGAL).
//!
//! A value whose only definition reads no register (a constant, a uniform load) can be
//! recomputed where it is needed instead of being kept in a register: "spilling" it puts a
//! copy of the defining op, writing a fresh short-lived register, right before every reader
//! (before the terminator for a terminator read), renames the read, and deletes the original
//! definition. Values with several definitions, definitions that read registers, partial
//! definitions and ops with side effects are not candidates; when no candidate is left, the
//! driver reports the limit ([`crate::Diagnostic::limit`]).

use super::spill::SpillStrategy;
use super::{MachFunction, MachOp, Operands, Role};
use crate::regalloc::VReg;
use crate::Diagnostic;

/// What rematerialization needs from a machine program besides [`MachFunction`].
pub trait Rewrite: MachFunction {
    /// A fresh virtual register of `v`'s size that must never be spilled again.
    fn new_temp_like(&mut self, v: VReg) -> VReg;
    /// Whether `op` may be recomputed anywhere (pure, no register or memory read).
    fn rematerializable(op: &Self::Op) -> bool;
    /// Replaces reads of `from` by reads of `to` in `op`.
    fn rename_uses(op: &mut Self::Op, from: VReg, to: VReg);
    /// Replaces the write of `from` by a write of `to` in `op`.
    fn rename_defs(op: &mut Self::Op, from: VReg, to: VReg);
    /// Replaces reads of `from` by reads of `to` in block `b`'s terminator.
    fn rename_terminator_uses(&mut self, b: usize, from: VReg, to: VReg);
    /// Replaces block `b`'s ops.
    fn set_ops(&mut self, b: usize, ops: Vec<Self::Op>);
}

/// The [`SpillStrategy`] of the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rematerialize;

fn reads(ops: &Operands, v: VReg) -> bool {
    ops.iter().any(|o| o.role == Role::Use && o.vreg == v)
}

/// The single defining op of `v` as (block, index), if `v` has exactly one definition and it
/// writes every component.
fn sole_def<P: Rewrite>(p: &P, v: VReg) -> Option<(usize, usize)> {
    let full = ((1u16 << p.vreg_size(v)) - 1) as u8;
    let mut found = None;
    for b in 0..p.num_blocks() {
        for (i, op) in p.ops(b).iter().enumerate() {
            let ops = op.operand_list();
            for o in ops.iter().filter(|o| o.role == Role::Def && o.vreg == v) {
                if found.is_some() || o.mask != full {
                    return None;
                }
                found = Some((b, i));
            }
        }
    }
    found
}

impl<P: Rewrite> SpillStrategy<P> for Rematerialize
where
    P::Op: Clone,
{
    fn spillable(&self, p: &P, v: VReg) -> bool {
        sole_def(p, v).is_some_and(|(b, i)| {
            let op = &p.ops(b)[i];
            op.removable()
                && P::rematerializable(op)
                && !op.operand_list().iter().any(|o| o.role == Role::Use)
        })
    }

    fn spill(&mut self, p: &mut P, v: VReg) -> Result<(), Diagnostic> {
        if !self.spillable(p, v) {
            return Err(Diagnostic::internal(
                None,
                format!("{v} cannot be rematerialized"),
            ));
        }
        let (db, di) = sole_def(p, v).ok_or_else(|| Diagnostic::internal(None, "no def"))?;
        let def = p.ops(db)[di].clone();
        for b in 0..p.num_blocks() {
            let old: Vec<P::Op> = p.ops(b).to_vec();
            let mut out = Vec::with_capacity(old.len() + 2);
            for (i, mut op) in old.into_iter().enumerate() {
                if b == db && i == di {
                    continue;
                }
                if reads(&op.operand_list(), v) {
                    let t = p.new_temp_like(v);
                    let mut copy = def.clone();
                    P::rename_defs(&mut copy, v, t);
                    P::rename_uses(&mut op, v, t);
                    out.push(copy);
                }
                out.push(op);
            }
            let mut term = Operands::new();
            p.terminator_uses(b, &mut term);
            if reads(&term, v) {
                let t = p.new_temp_like(v);
                let mut copy = def.clone();
                P::rename_defs(&mut copy, v, t);
                out.push(copy);
                p.rename_terminator_uses(b, v, t);
            }
            p.set_ops(b, out);
        }
        Ok(())
    }
}
