//! Helpers shared by `const-fold` and `simplify`: a worklist over code ops, reading and making
//! constants through the interpreter's value model, replacing a value and sweeping the pure ops
//! that became dead, and the effective float flags of an op (its own flags plus the `SetFpMode`
//! defaults of its result type).

use irc_arith::eval::constant_literals;
use irc_arith::value::{constant_scalar, constant_value, effective};
use irc_arith::{Scalar, Value};
use irc_ir::{EntityRef, Module, Op, OpCode, OpFlags, Operand, ScalarType, SsaDef, Type};
use smallvec::SmallVec;

/// A LIFO worklist of ops with an "already queued" mark, so each op is queued at most once at a
/// time. Seeded with the code in reverse so that the first pops follow program order.
#[derive(Debug, Default)]
pub struct Worklist {
    stack: Vec<SsaDef>,
    queued: Vec<bool>,
}

impl Worklist {
    /// Every code op of `m`, to be popped in program order.
    pub fn of_code(m: &Module) -> Worklist {
        // Sized for the whole code at once (collecting the walk would grow it step by step).
        let mut stack: Vec<SsaDef> = Vec::with_capacity(m.len() - m.declaration_count());
        stack.extend(m.code());
        stack.reverse();
        let mut queued = vec![false; m.id_bound()];
        for &d in &stack {
            queued[d.index()] = true;
        }
        Worklist { stack, queued }
    }
    /// Queues `d` unless it is queued already.
    pub fn push(&mut self, d: SsaDef) {
        if d.index() >= self.queued.len() {
            self.queued.resize(d.index() + 1, false);
        }
        if !self.queued[d.index()] {
            self.queued[d.index()] = true;
            self.stack.push(d);
        }
    }
    /// Queues every user of `d`.
    pub fn push_users(&mut self, m: &Module, d: SsaDef) {
        for &u in m.uses(d) {
            self.push(u);
        }
    }
    pub fn pop(&mut self) -> Option<SsaDef> {
        let d = self.stack.pop()?;
        self.queued[d.index()] = false;
        Some(d)
    }
}

/// The value of `d` if it is a `Constant`, decoded exactly as the interpreter decodes it.
pub fn const_value(m: &Module, d: SsaDef) -> Option<Value> {
    let op = m.get(d)?;
    if op.opcode != OpCode::Constant {
        return None;
    }
    if let Some(b) = op.ty.as_basic() {
        // `constant_value`'s scalar and vector case, decoded straight from the literals.
        let t = b.scalar_type();
        let c: SmallVec<[Scalar; 4]> = op.literals().map(|l| constant_scalar(t, l)).collect();
        return (c.len() == usize::from(b.vec_size())).then(|| Value::from_components(c));
    }
    let lits: SmallVec<[u64; 4]> = op.literals().collect();
    constant_value(&op.ty, &lits)
}

/// `const_components(m, d, wanted).is_some_and(|c| c.iter().all(|&s| pred(s)))` without
/// collecting the components: each literal is decoded and tested in turn, and the count is
/// checked at the end (the rules of `simplify` test most constant operands this way).
pub fn const_all(
    m: &Module,
    d: SsaDef,
    wanted: impl Fn(ScalarType) -> bool,
    pred: impl Fn(Scalar) -> bool,
) -> bool {
    let Some(op) = m.get(d) else {
        return false;
    };
    if op.opcode != OpCode::Constant {
        return false;
    }
    let Some(b) = op.ty.as_basic() else {
        return false;
    };
    let t = b.scalar_type();
    if !wanted(t) {
        return false;
    }
    let mut n = 0;
    for l in op.literals() {
        if !pred(constant_scalar(t, l)) {
            return false;
        }
        n += 1;
    }
    n == usize::from(b.vec_size())
}

/// The components of `d` if it is a scalar or vector `Constant` whose scalar type satisfies
/// `wanted`: the components of [`const_value`]'s `Value::Scalar` or `Value::Vector`, decoded
/// straight from the literals. The opcode and type are tested before anything is decoded, so
/// asking an operand that is not such a constant costs two look-ups (the rules of `simplify`
/// ask every operand of nearly every op).
pub fn const_components(
    m: &Module,
    d: SsaDef,
    wanted: impl Fn(ScalarType) -> bool,
) -> Option<SmallVec<[Scalar; 4]>> {
    let op = m.get(d)?;
    if op.opcode != OpCode::Constant {
        return None;
    }
    let b = op.ty.as_basic()?;
    let t = b.scalar_type();
    if !wanted(t) {
        return None;
    }
    let c: SmallVec<[Scalar; 4]> = op.literals().map(|l| constant_scalar(t, l)).collect();
    (c.len() == usize::from(b.vec_size())).then_some(c)
}

/// True if [`const_value`] decodes `d` (a `Constant` whose literals fit its type), without
/// decoding a scalar or vector one.
pub fn is_constant(m: &Module, d: SsaDef) -> bool {
    let Some(op) = m.get(d) else {
        return false;
    };
    if op.opcode != OpCode::Constant {
        return false;
    }
    match op.ty.as_basic() {
        Some(b) => op.literals().count() == usize::from(b.vec_size()),
        None => const_value(m, d).is_some(),
    }
}

/// The `Constant` of type `ty` holding `v`, if `v` is exactly representable as one.
pub fn make_constant(m: &mut Module, ty: &Type, v: &Value) -> Option<SsaDef> {
    let lits = match plain_literals(ty, v) {
        Some(lits) => lits?,
        None => constant_literals(ty, v)?.into_iter().collect(),
    };
    let mut op = Op::new(OpCode::Constant, ty.clone());
    op.operands.extend(lits.into_iter().map(Operand::Lit));
    Some(m.add(op))
}

/// [`constant_literals`]`(ty, v)` for a scalar or vector type of a plain (not min-precision,
/// not untyped) scalar type, without its decode-and-compare round trip: such a literal decodes
/// back to its scalar bit for bit, so only the shape and the component types need checking.
/// `None` for other types (ask [`constant_literals`]).
fn plain_literals(ty: &Type, v: &Value) -> Option<Option<SmallVec<[u64; 4]>>> {
    let b = ty.as_basic()?;
    let st = b.scalar_type();
    if effective(st) != st || st == ScalarType::Unknown {
        return None;
    }
    let n = usize::from(b.vec_size());
    let comps: &[Scalar] = match v {
        Value::Scalar(s) if n == 1 => std::slice::from_ref(s),
        Value::Vector(c) if n > 1 && c.len() == n => c,
        _ => return Some(None),
    };
    let lit = |s: &Scalar| match s.ty() {
        t if t != st => None,
        t if t.is_signed_int() => Some(s.sext_bits()),
        t if t.is_int() || t.is_float() || t == ScalarType::Bool => Some(s.bits()),
        _ => None,
    };
    Some(comps.iter().map(lit).collect())
}

/// Removes the constants of `created` that ended up unused (intermediate results of a chain).
pub fn remove_unused_constants(m: &mut Module, created: &[SsaDef]) {
    for &c in created {
        if m.is_live(c) && m.opcode(c) == OpCode::Constant && m.uses(c).is_empty() {
            m.remove(c);
        }
    }
}

/// True for code ops that compute a value and nothing else: removable when unused.
pub fn is_pure(op: OpCode) -> bool {
    !op.is_declarative()
        && !op.has_effect()
        && !op.is_terminator()
        && !op.reads_state()
        && !op.is_meta()
        && !matches!(op, OpCode::Phi | OpCode::Label | OpCode::Unknown)
}

/// True if nothing but debug info uses `d`.
pub fn is_unused(m: &Module, d: SsaDef) -> bool {
    m.uses(d).iter().all(|&u| m.opcode(u).is_meta())
}

/// Makes every use of `old` a use of `new` and removes `old` (with the debug info naming it;
/// a name describes the computation, not the value it was replaced by).
pub fn replace_value(m: &mut Module, old: SsaDef, new: SsaDef) {
    let meta: SmallVec<[SsaDef; 2]> = m
        .uses(old)
        .iter()
        .copied()
        .filter(|&u| m.opcode(u).is_meta())
        .collect();
    for u in meta {
        if m.is_live(u) {
            m.remove(u);
        }
    }
    m.replace_all_uses(old, new);
    m.remove(old);
}

/// Removes each of `defs` that is a pure op without uses, and then, transitively, its operands
/// that became unused.
pub fn remove_dead(m: &mut Module, defs: impl IntoIterator<Item = SsaDef>) {
    remove_dead_where(m, defs, is_pure);
}

/// [`remove_dead`] for the ops whose opcode `removable` accepts; returns whether it removed
/// any.
pub fn remove_dead_where(
    m: &mut Module,
    defs: impl IntoIterator<Item = SsaDef>,
    removable: impl Fn(OpCode) -> bool,
) -> bool {
    let mut stack: SmallVec<[SsaDef; 8]> = defs.into_iter().collect();
    let mut removed = false;
    while let Some(d) = stack.pop() {
        if !m.is_live(d) || !removable(m.opcode(d)) || !is_unused(m, d) {
            continue;
        }
        stack.extend(m.op(d).ref_defs());
        m.remove(d);
        removed = true;
    }
    removed
}

/// The `SetFpMode` default flags of each float type, by the type's wire value (a `u8`): a
/// table look-up per op rather than a hash (the rules of `simplify` ask for most float ops).
#[derive(Debug)]
pub struct FpDefaults([OpFlags; 256]);

impl Default for FpDefaults {
    fn default() -> FpDefaults {
        FpDefaults([OpFlags::NONE; 256])
    }
}

impl FpDefaults {
    pub fn of(m: &Module) -> FpDefaults {
        let mut table = FpDefaults::default();
        for d in m.declarations() {
            let op = m.op(d);
            if op.opcode == OpCode::SetFpMode {
                if let Some(t) = op.ty.as_scalar() {
                    table.0[usize::from(t as u8)] |= op.flags;
                }
            }
        }
        table
    }
    /// The op's own flags plus the defaults for its result type (additive, spec `SetFpMode`).
    pub fn flags(&self, op: &Op) -> OpFlags {
        let t = op.ty.members().first().map(|b| b.scalar_type());
        op.flags | t.map_or(OpFlags::NONE, |t| self.0[usize::from(t as u8)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `const_components` and `is_constant` agree with decoding the whole value.
    #[test]
    fn component_decoding_matches_const_value() {
        let mut m = Module::new();
        let f32x2 = Type::vector(ScalarType::F32, 2);
        let cases = [
            Op::new(OpCode::Constant, Type::scalar(ScalarType::F32)).lit(0x3f80_0000),
            Op::new(OpCode::Constant, f32x2.clone())
                .lit(0)
                .lit(0x8000_0000),
            // Wrong literal count for the type: no value.
            Op::new(OpCode::Constant, f32x2).lit(0),
            Op::new(OpCode::Constant, Type::scalar(ScalarType::MinF16)).lit(0x3fc0_0000),
            Op::new(OpCode::Constant, Type::vector(ScalarType::Bool, 3))
                .lit(1)
                .lit(0)
                .lit(1),
            Op::new(OpCode::Constant, Type::scalar(ScalarType::I32)).lit(u64::MAX),
            Op::new(OpCode::Undef, Type::scalar(ScalarType::I32)),
        ];
        for op in cases {
            let d = m.add(op);
            let whole = const_value(&m, d);
            let expected = match &whole {
                Some(Value::Scalar(s)) => Some(smallvec::smallvec![*s]),
                Some(Value::Vector(v)) => Some(v.clone()),
                _ => None,
            };
            assert_eq!(const_components(&m, d, |_| true), expected, "{d}");
            assert_eq!(is_constant(&m, d), whole.is_some(), "{d}");
            let t = m.ty(d).as_basic().map(|b| b.scalar_type());
            let floats = const_components(&m, d, ScalarType::is_float);
            assert_eq!(
                floats.is_some(),
                expected.is_some() && t.unwrap().is_float()
            );
        }
    }

    /// The plain-type shortcut of `make_constant` gives `constant_literals`' answer.
    #[test]
    fn plain_literals_match_constant_literals() {
        let scalars = [
            Scalar::F32(-0.0),
            Scalar::F32(f32::from_bits(0x7f80_0001)),
            Scalar::from_bits(ScalarType::F16, 0x7c01),
            Scalar::from_bits(ScalarType::MinF16, 0x3c00),
            Scalar::F64(1.5),
            Scalar::I32(-7),
            Scalar::I8(-128),
            Scalar::I16(300),
            Scalar::U32(u32::MAX),
            Scalar::U8(200),
            Scalar::I64(i64::MIN),
            Scalar::Bool(true),
            Scalar::Unknown(5),
        ];
        let mut values: Vec<Value> = scalars.iter().map(|&s| Value::Scalar(s)).collect();
        for (i, &a) in scalars.iter().enumerate() {
            let b = scalars[(i + 3) % scalars.len()];
            values.push(Value::Vector(smallvec::smallvec![a, a]));
            values.push(Value::Vector(smallvec::smallvec![a, a, a, a]));
            values.push(Value::Vector(smallvec::smallvec![a, b]));
            values.push(Value::Vector(smallvec::smallvec![a]));
        }
        values.push(Value::Void);
        let mut compared = 0;
        for &t in ScalarType::ALL {
            for n in [1, 2, 4] {
                let ty = Type::vector(t, n);
                for v in &values {
                    let Some(plain) = plain_literals(&ty, v) else {
                        continue;
                    };
                    let full = constant_literals(&ty, v).map(|l| l.into_iter().collect());
                    assert_eq!(plain, full, "{ty} {v:?}");
                    compared += usize::from(full.is_some());
                }
            }
        }
        assert!(compared > 20, "{compared}");
    }
}
