//! Helpers shared by `propagate-types` and `lower-consume`: the size and class rules of
//! `ConsumeAs` (reference §B.5, as the interpreter evaluates them), type substitution for the
//! Unknown scalar `?`, and the re-encoding of constant literals between scalar types.
//!
//! Semantics follow the interpreter: min-precision types evaluate as their 16-bit types, `?`
//! holds 32 raw bits and behaves exactly like `u32` in every conversion.

use crate::PassError;
use irc_ir::{BasicType, Module, Op, OpCode, ScalarType, SsaDef, Type};

/// The type a scalar type evaluates as (min-precision → 16-bit).
pub fn eff(t: ScalarType) -> ScalarType {
    match t {
        ScalarType::MinF16 | ScalarType::MinF10 => ScalarType::F16,
        ScalarType::MinI16 => ScalarType::I16,
        ScalarType::MinU16 => ScalarType::U16,
        t => t,
    }
}

/// Bit width of a value of this type (bool: 0, `?`: 32).
pub fn width(t: ScalarType) -> u32 {
    match eff(t) {
        ScalarType::Bool => 0,
        ScalarType::I8 | ScalarType::U8 => 8,
        ScalarType::I16 | ScalarType::U16 | ScalarType::F16 => 16,
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
        _ => 32,
    }
}

/// The 32-bit (or 64-bit) type `ConsumeAs` normalizes a type to (§B.5).
pub fn size32(t: ScalarType) -> ScalarType {
    match eff(t) {
        ScalarType::F16 | ScalarType::F32 => ScalarType::F32,
        ScalarType::I8 | ScalarType::I16 | ScalarType::I32 => ScalarType::I32,
        ScalarType::F64 | ScalarType::I64 | ScalarType::U64 => eff(t),
        ScalarType::Bool => ScalarType::Bool,
        _ => ScalarType::U32,
    }
}

/// True if `ty` mentions the Unknown scalar anywhere.
pub fn has_unknown(ty: &Type) -> bool {
    ty.mentions_unknown()
}

/// `ty` with every Unknown scalar replaced by `t` (shape kept).
pub fn subst(ty: &Type, t: ScalarType) -> Type {
    if !has_unknown(ty) {
        return ty.clone();
    }
    // The usual case, a `?` scalar or vector, built directly.
    if let Some(b) = ty.as_basic() {
        return Type::basic(BasicType::new(t, b.vec_size()));
    }
    let members = ty
        .members()
        .iter()
        .map(|&b| {
            if b.scalar_type() == ScalarType::Unknown {
                BasicType::new(t, b.vec_size())
            } else {
                b
            }
        })
        .collect();
    Type::from_parts(members, ty.array_dims().iter().copied().collect())
}

/// `ty` (a scalar or vector) with its scalar type replaced by `t`.
pub fn with_scalar(ty: &Type, t: ScalarType) -> Type {
    match ty.as_basic() {
        Some(b) if b.vec_size() > 1 => Type::vector(t, b.vec_size()),
        _ => Type::scalar(t),
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Raw bits of a constant literal of type `t` (masked to the width; bool 0/1). Min-precision
/// floats are stored as f32 bits and are returned as such (callers avoid folding them).
pub fn lit_bits(t: ScalarType, lit: u64) -> u64 {
    match t {
        ScalarType::Bool => (lit != 0) as u64,
        ScalarType::MinF16 | ScalarType::MinF10 | ScalarType::MinI16 | ScalarType::MinU16 => {
            lit & mask(32)
        }
        _ => lit & mask(width(t)),
    }
}

/// The literal that encodes raw bits `bits` as type `t` (§A.7: signed ints sign-extended).
pub fn bits_lit(t: ScalarType, bits: u64) -> u64 {
    let w = match t {
        ScalarType::Bool => return (bits != 0) as u64,
        ScalarType::MinF16 | ScalarType::MinF10 | ScalarType::MinI16 | ScalarType::MinU16 => 32,
        _ => width(t),
    };
    let b = bits & mask(w);
    let signed = t.is_signed_int();
    if signed && w < 64 && (b >> (w - 1)) & 1 == 1 {
        b | !mask(w)
    } else {
        b
    }
}

/// The merge of type votes (§B.5 restricted to the 32-bit types `?` can become): floats only
/// → f32; integers only → i32 if any is signed, else u32; floats and integers → u32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Votes(u8);

impl Votes {
    const F: u8 = 1;
    const I: u8 = 2;
    const U: u8 = 4;

    /// Adds a vote for scalar type `t` (normalized to 32 bits).
    pub fn add(&mut self, t: ScalarType) {
        self.0 |= match size32(t) {
            ScalarType::F32 | ScalarType::F64 => Self::F,
            ScalarType::I32 | ScalarType::I64 => Self::I,
            _ => Self::U,
        };
    }
    pub fn merge(&mut self, o: Votes) {
        self.0 |= o.0;
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The merged type, `None` without votes.
    pub fn resolve(self) -> Option<ScalarType> {
        let f = self.0 & Self::F != 0;
        let i = self.0 & Self::I != 0;
        let u = self.0 & Self::U != 0;
        Some(match (f, i, u) {
            (false, false, false) => return None,
            (true, false, false) => ScalarType::F32,
            (true, _, _) => ScalarType::U32,
            (false, true, _) => ScalarType::I32,
            (false, false, true) => ScalarType::U32,
        })
    }
}

/// The def of a copy of constant or undef `k` (whose type mentions `?`) with `?` replaced by
/// `t`, literals re-encoded for the new type.
pub fn typed_constant(m: &mut Module, k: SsaDef, t: ScalarType) -> SsaDef {
    let op = m.op(k);
    let new_ty = subst(&op.ty, t);
    if op.opcode == OpCode::Undef {
        return m.add(Op::new(OpCode::Undef, new_ty));
    }
    let old_ty = op.ty.clone();
    let lits: Vec<u64> = op.literals().collect();
    let mut new = Op::new(OpCode::Constant, new_ty.clone()).with_flags(op.flags);
    for (i, lit) in lits.into_iter().enumerate() {
        let st = old_ty
            .flattened_scalar_type(i as u64)
            .unwrap_or(ScalarType::U32);
        let nt = new_ty.flattened_scalar_type(i as u64).unwrap_or(t);
        new = new.lit(bits_lit(nt, lit_bits(st, lit)));
    }
    m.add(new)
}

/// Fails with `Unsupported` on the first op whose type still mentions `?` or that is a
/// `ConsumeAs` (when `consume` is set).
pub fn check_resolved(m: &Module, consume: bool) -> Result<(), PassError> {
    // The module's counts answer without a walk; the walk only names the op at fault.
    if !(consume && m.contains_opcode(OpCode::ConsumeAs)) && m.unknown_typed_count() == 0 {
        return Ok(());
    }
    for d in m.iter() {
        let op = m.op(d);
        if consume && op.opcode == OpCode::ConsumeAs {
            return Err(PassError::Unsupported {
                op: d,
                opcode: op.opcode,
                reason: "ConsumeAs left after lowering".into(),
            });
        }
        if has_unknown(&op.ty) {
            return Err(PassError::Unsupported {
                op: d,
                opcode: op.opcode,
                reason: format!("type {} still mentions the Unknown scalar `?`", op.ty),
            });
        }
    }
    Ok(())
}

/// Removes Constant and Undef ops whose type mentions `?` and that only meta ops use.
pub fn remove_dead_unknown_constants(m: &mut Module) {
    // The module counts its `?`-typed ops: none, no walk.
    if m.unknown_typed_count() == 0 {
        return;
    }
    let dead: Vec<SsaDef> = m
        .declarations()
        .filter(|&d| {
            m.opcode(d).is_constant_like()
                && has_unknown(m.ty(d))
                && m.uses(d).iter().all(|&u| m.opcode(u).is_meta())
        })
        .collect();
    for d in dead {
        m.remove(d);
    }
}

/// An `Unsupported` error about op `d`.
pub fn unsupported(m: &Module, d: SsaDef, reason: impl Into<String>) -> PassError {
    PassError::Unsupported {
        op: d,
        opcode: m.opcode(d),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_encoding() {
        assert_eq!(bits_lit(ScalarType::I32, 0xffff_ffff), u64::MAX);
        assert_eq!(bits_lit(ScalarType::U32, 0xffff_ffff), 0xffff_ffff);
        assert_eq!(lit_bits(ScalarType::I32, u64::MAX), 0xffff_ffff);
        assert_eq!(bits_lit(ScalarType::I16, 0x8000), 0xffff_ffff_ffff_8000);
    }

    #[test]
    fn votes_merge() {
        let mut v = Votes::default();
        assert_eq!(v.resolve(), None);
        v.add(ScalarType::F32);
        assert_eq!(v.resolve(), Some(ScalarType::F32));
        v.add(ScalarType::MinI16);
        assert_eq!(v.resolve(), Some(ScalarType::U32));
        let mut w = Votes::default();
        w.add(ScalarType::U32);
        w.add(ScalarType::I32);
        assert_eq!(w.resolve(), Some(ScalarType::I32));
    }
}
