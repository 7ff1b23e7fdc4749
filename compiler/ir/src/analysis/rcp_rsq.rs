//! D3D9's length idiom, `rcp(rsq(x))` (`rsq r, dp; rcp r, r`): the backends that have a square
//! root compute it as one (lima-fp's combiner `sqrt`, AGAL's `sqt`), and their interpreter
//! oracle must compute the same ops the same way. One definition of which ops fuse, so that
//! the backends and the oracle cannot drift apart.

use crate::format::Arith;
use crate::{Module, Op, OpCode, SsaDef};

/// `x` if `op` (an op of `m`) is `FRcp(FRsq(x))` of one type with neither op precise (`precise` says, from
/// the op's flags and its type's `SetFpMode` default). For every `x` the value is `sqrt(x)`
/// up to the rounding of the two approximations it replaces (`±0 → ±0`, `+inf → +inf`,
/// negative → NaN, as `sqrt`).
pub fn rsq_of_rcp(m: &Module, op: &Op, precise: impl Fn(&Op) -> bool) -> Option<SsaDef> {
    if op.opcode != OpCode::FRcp || precise(op) {
        return None;
    }
    let rsq = m.op(Arith::of(op).a()?);
    (rsq.opcode == OpCode::FRsq && rsq.ty == op.ty && !precise(rsq))
        .then(|| Arith::of(rsq).a())
        .flatten()
}
