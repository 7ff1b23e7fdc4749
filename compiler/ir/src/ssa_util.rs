//! SSA utilities shared by the frontend (SSA construction) and the passes that edit phis
//! (GVN, CFG clean-up, `ConsumeAs` lowering).
//!
//! [`remove_trivial_phis`] is the clean-up step of Braun et al.'s SSA construction ("Simple and
//! Efficient Construction of Static Single Assignment Form", 2013): a phi whose incoming values
//! are all one value `v` (or itself) is `v`; replacing it may make the phis that use it trivial
//! too, so they go back on the worklist.

use crate::entities::SsaDef;
use crate::format::Phi;
use crate::module::Module;
use crate::op::Op;
use crate::opcode::OpCode;

/// What phi `phi` stands for if it is trivial: `Some(Some(v))` when its incoming values other
/// than itself are all `v`, `Some(None)` when it has none; `None` when it merges two values.
pub fn trivial_phi_value(m: &Module, phi: SsaDef) -> Option<Option<SsaDef>> {
    let mut same: Option<SsaDef> = None;
    for (_, v) in Phi::of(m.op(phi)).pairs() {
        let Some(v) = v else {
            continue;
        };
        if v == phi || Some(v) == same {
            continue;
        }
        if same.is_some() {
            return None;
        }
        same = Some(v);
    }
    Some(same)
}

/// Replaces phis whose operands are one value (ignoring self references) by that value, and
/// phis with no operands by `Undef`, until none is left.
pub fn remove_trivial_phis(m: &mut Module, phis: Vec<SsaDef>) {
    let mut work = phis;
    while let Some(phi) = work.pop() {
        if !m.is_live(phi) || m.opcode(phi) != OpCode::Phi {
            continue;
        }
        let Some(same) = trivial_phi_value(m, phi) else {
            continue;
        };
        let replacement = match same {
            Some(v) => v,
            None => m.add(Op::new(OpCode::Undef, m.ty(phi).clone())),
        };
        let users: Vec<SsaDef> = m
            .uses(phi)
            .iter()
            .copied()
            .filter(|&u| u != phi && m.opcode(u) == OpCode::Phi)
            .collect();
        m.replace_all_uses(phi, replacement);
        m.remove(phi);
        work.extend(users);
    }
}
