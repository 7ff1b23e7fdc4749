//! Access chains: the type an `%address` operand reaches inside a declared or composite type.
//!
//! An address is null (the whole object) or an integer scalar/vector whose components index one
//! level each: array dimensions (outer to inner, may be dynamic), then a struct member (must be
//! constant), then a vector component. Component values are known when the address is a
//! `Constant` or a `CompositeConstruct` of constants.

use crate::entities::SsaDef;
use crate::format::{CompositeConstruct, Constant, DescriptorLoad};
use crate::module::Module;
use crate::opcode::OpCode;
use crate::types::Type;
use std::borrow::Cow;

/// The value of address component `k`, if it is a constant.
fn component(m: &Module, addr: SsaDef, k: usize) -> Option<u64> {
    let op = m.op(addr);
    match op.opcode {
        OpCode::Constant => Constant::of(op).scalar(k),
        OpCode::CompositeConstruct => {
            let members = CompositeConstruct::of(op).members();
            let c = members.get(k)?.as_ref().filter(|&c| m.is_live(c))?;
            let cop = m.op(c);
            (cop.opcode == OpCode::Constant && cop.operands.len() == 1)
                .then(|| Constant::of(cop).scalar(0))
                .flatten()
        }
        _ if op.ty.as_basic().is_some_and(|b| !b.is_vector()) && k == 0 => None,
        _ => None,
    }
}

/// The type `addr` reaches in `base`: `Ok(None)` if it cannot be known statically (a dynamic
/// struct index), `Err` with a message if the address is malformed. Borrowed when the address
/// is null (the whole object: no copy of its type).
pub(super) fn addressed_type<'t>(
    m: &Module,
    base: &'t Type,
    addr: Option<SsaDef>,
) -> Result<Option<Cow<'t, Type>>, String> {
    let Some(addr) = addr else {
        return Ok(Some(Cow::Borrowed(base)));
    };
    let at = m.ty(addr);
    let Some(b) = at.as_basic() else {
        return Err(format!(
            "address {addr} has type {at}, expected an integer scalar or vector"
        ));
    };
    if !(b.scalar_type().is_int() || b.scalar_type() == crate::ScalarType::Unknown) {
        return Err(format!(
            "address {addr} has type {at}, expected an integer scalar or vector"
        ));
    }
    let mut t = Cow::Borrowed(base);
    for k in 0..b.vec_size() as usize {
        let v = component(m, addr, k);
        let next = if t.is_array() {
            t.element_type()
        } else if t.is_struct() {
            match v {
                Some(v) => t.sub_type(u32::try_from(v).unwrap_or(u32::MAX)),
                None => return Ok(None),
            }
        } else if t.as_basic().is_some_and(|b| b.is_vector()) {
            t.sub_type(v.map_or(0, |v| u32::try_from(v).unwrap_or(u32::MAX)))
        } else {
            None
        };
        match next {
            Some(n) => t = Cow::Owned(n),
            None => {
                return Err(format!(
                    "address {addr} component {k} does not index into {t} (base type {base})"
                ));
            }
        }
    }
    Ok(Some(t))
}

/// The resource declaration behind a descriptor value (a `DescriptorLoad`).
pub(super) fn descriptor_decl(m: &Module, d: SsaDef) -> Option<SsaDef> {
    let op = m.op(d);
    DescriptorLoad::try_of(op)?.decl().filter(|&x| m.is_live(x))
}
