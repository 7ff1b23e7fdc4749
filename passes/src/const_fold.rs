//! `const-fold`: replaces every pure op whose operands are all constants by the `Constant` it
//! evaluates to.
//!
//! **One evaluator.** The arithmetic is the interpreter's own: the operand constants are
//! decoded with [`irc_arith::value::constant_value`] (what a run reads), the op is evaluated by
//! [`irc_arith::eval::fold_in`] (the per-component functions and broadcasting rule a run uses,
//! under the module's `SetFpMode` denormal and rounding modes),
//! and the result is encoded back with [`irc_arith::eval::constant_literals`]. So a folded
//! program computes bit for bit what the original computed — NaN payloads, signed zeros,
//! denormals, saturating conversions, wrapping and masked shifts included. Because the result
//! is what the op computes, `Precise` ops and ops with `NoNan`/`NoInf`/`NoSz` fold too (the
//! flags allow *other* results, they never forbid the exact one).
//!
//! **What folds.** Conversions and casts, composite construct/extract/insert and `ConstantLoad`
//! of a constant composite, float, integer and boolean comparisons, boolean logic, `Select`,
//! float arithmetic (including legacy, dot-product and transcendental ops, which the
//! interpreter evaluates with the host libm — that is the semantics we test against), integer
//! arithmetic and bit ops, extended ops, `MinValue`/`MaxValue`; and a `Phi` whose incoming
//! values are all the same constant (or the phi itself, around a loop). What never folds: ops
//! with effects or that read state (loads, derivatives, image ops, atomics), `Undef` operands,
//! spec constants, `CheckSparseAccess` (the interpreter's "always resident" is a model, not a
//! fact about the constant operand), and results whose type holds no constant (descriptors,
//! untyped `?` values — an untyped constant would decode differently from the computed value).
//! Constant branches and switches are `cfg-cleanup`'s.
//!
//! **Algorithm.** A worklist seeded with all code in program order. An op folds when every
//! reference operand is a `Constant`; it is replaced by the (de-duplicated) constant, removed,
//! and its users are queued, so chains fold in one pass and phis fed around a loop are
//! revisited when their back-edge value folds. Constants the pass created that end up unused
//! (intermediate results of a folded chain) are removed at the end. Each op is evaluated once per time it is queued,
//! and it is queued again only when an operand changed: linear in the module.

use crate::caps::PassContext;
use crate::fold_util::{
    const_value, make_constant, remove_unused_constants, replace_value, Worklist,
};
use crate::PassError;
use irc_arith::value::{bit_width, constant_scalar, mask};
use irc_arith::{Scalar, Value};
use irc_ir::format::{slots, Load};
use irc_ir::{BasicType, Changes, Module, Op, OpCode, SsaDef};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    Ok(fold_where(m, |_| true))
}

/// `const-fold-int`: the same folding for ops whose result holds no float (integer and
/// boolean arithmetic, comparisons, conversions to integers, selects of those): the
/// conditions of branches and switches. The targets' legalization runs it before `inline`,
/// where float ops must stay: a later lowering may compute them otherwise than the host's
/// exact arithmetic does (`lower-trig`'s polynomials, the `legacy-mul` modes), and its
/// interpreter oracle computes them as the lowering does.
pub fn run_int(m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    Ok(fold_where(m, |op| float_free(&op.ty)))
}

/// Folds every op `wanted` accepts (see the module docs); returns whether the module changed.
fn fold_where(m: &mut Module, wanted: impl Fn(&Op) -> bool) -> bool {
    let mut work = Worklist::of_code(m);
    let mut changed = false;
    let mut created = Vec::new();
    // The float modes come from the `SetFpMode` declarations, which folding never changes:
    // read them once, when the first op has all-constant operands.
    let mut modes: Option<irc_arith::FpModes> = None;
    // The constant each extract of a constant composite gave ([`ExtractKey`]): D3D9 shaders
    // read the same lane of one constant register hundreds of times, and each fold would
    // otherwise build the scalar constant again to find it in the module's table. The
    // constants stay live until the pass ends (unused ones go then).
    let mut extracts: FxHashMap<ExtractKey, SsaDef> = FxHashMap::default();
    while let Some(d) = work.pop() {
        if !m.is_live(d) || !wanted(m.op(d)) {
            continue;
        }
        let Some(c) = fold_op_with(m, d, &mut modes, Some(&mut extracts)) else {
            continue;
        };
        work.push_users(m, d);
        replace_value(m, d, c);
        created.push(c);
        changed = true;
    }
    // Constants that were only intermediate results of a folded chain.
    remove_unused_constants(m, &created);
    changed
}

/// What an extract of a constant at a constant index folds to depends on: the composite, the
/// index operand and the result type (a scalar or vector).
type ExtractKey = (SsaDef, SsaDef, BasicType);

/// The [`ExtractKey`] of `op` if it is a `CompositeExtract` with one index operand and a
/// scalar or vector result, of a composite read by at least [`SHARED_COMPOSITE`] ops (the
/// key only remembers what folding gave; a composite read by few ops rarely repeats a fold,
/// and the table would cost more than it saves).
fn extract_key(m: &Module, op: &Op) -> Option<ExtractKey> {
    if op.opcode != OpCode::CompositeExtract || op.operands.len() != 2 || op.first_literal() != 2 {
        return None;
    }
    let s = slots::CompositeExtract;
    let composite = op.operand_def(s.composite)?;
    if m.uses(composite).len() < SHARED_COMPOSITE {
        return None;
    }
    Some((composite, op.operand_def(s.address)?, op.ty.as_basic()?))
}

/// See [`extract_key`].
const SHARED_COMPOSITE: usize = 8;

/// True if no member of `ty` is a float.
fn float_free(ty: &irc_ir::Type) -> bool {
    ty.members().iter().all(|b| !b.scalar_type().is_float())
}

/// The constant `d` folds to, created if needed; `modes` caches the module's float modes
/// (`None`: not read yet).
pub fn fold_op(
    m: &mut Module,
    d: SsaDef,
    modes: &mut Option<irc_arith::FpModes>,
) -> Option<SsaDef> {
    fold_op_with(m, d, modes, None)
}

/// [`fold_op`], with a table of the constants extracts of shared constant composites gave
/// ([`extract_key`]).
fn fold_op_with(
    m: &mut Module,
    d: SsaDef,
    modes: &mut Option<irc_arith::FpModes>,
    extracts: Option<&mut FxHashMap<ExtractKey, SsaDef>>,
) -> Option<SsaDef> {
    if !has_constant_operands(m, d) {
        return None;
    }
    let op = m.op(d);
    if op.opcode == OpCode::Phi {
        return phi_constant(m, d);
    }
    if op.opcode == OpCode::CompositeExtract {
        let key = extracts.as_ref().and_then(|_| extract_key(m, op));
        if let Some(c) = key
            .and_then(|k| extracts.as_ref()?.get(&k).copied())
            .filter(|&c| m.is_live(c))
        {
            return Some(c);
        }
        if let Some(v) = extracted_lanes(m, op) {
            let ty = op.ty.clone();
            let c = make_constant(m, &ty, &v)?;
            if let (Some(k), Some(table)) = (key, extracts) {
                table.insert(k, c);
            }
            return Some(c);
        }
    }
    let mut args: SmallVec<[Value; 4]> = SmallVec::new();
    for (_, a) in op.refs() {
        args.push(const_value(m, a?)?);
    }
    // Only `ConstantLoad` reads the type of its base.
    let base = Load::try_of(op).and_then(|l| l.base());
    let operand0_ty = base.map_or(&op.ty, |a| m.ty(a));
    let modes = modes.get_or_insert_with(|| irc_arith::FpModes::of_module(m));
    let v = irc_arith::eval::fold_in(op, &args, operand0_ty, modes)?;
    let ty = op.ty.clone();
    make_constant(m, &ty, &v)
}

/// The value `fold_in` gives a `CompositeExtract` of a scalar or vector `Constant` at a
/// constant scalar index, computed from the literals it reads alone (no decoding of the whole
/// composite, no address or argument vectors): the components `k .. k + n` of the composite,
/// decoded as [`const_value`] decodes them. `None` when that is not the case or the generic
/// evaluation might not succeed; the caller then takes the generic path, which decides.
/// (Swizzles of constant registers make these most of the folds of D3D9 shaders.)
fn extracted_lanes(m: &Module, op: &Op) -> Option<Value> {
    let s = slots::CompositeExtract;
    if op.operands.len() != 2 || op.first_literal() != 2 {
        return None;
    }
    let c = m.op(op.operand_def(s.composite)?);
    let a = m.op(op.operand_def(s.address)?);
    if c.opcode != OpCode::Constant || a.opcode != OpCode::Constant {
        return None;
    }
    let (bc, ba) = (c.ty.as_basic()?, a.ty.as_basic()?);
    let nc = usize::from(bc.vec_size());
    if ba.vec_size() != 1 || c.literals().count() != nc {
        return None;
    }
    let mut lits = a.literals();
    let (Some(lit), None) = (lits.next(), lits.next()) else {
        return None;
    };
    let idx = constant_scalar(ba.scalar_type(), lit);
    let k = usize::try_from(idx.bits() & mask(bit_width(idx.ty()))).ok()?;
    let len = op.ty.as_basic().map_or(1, |b| usize::from(b.vec_size()));
    let t = bc.scalar_type();
    if nc == 1 {
        // A one-component constant decodes to a scalar, which only index 0 reads.
        if k != 0 || len > 1 {
            return None;
        }
        return Some(Value::Scalar(constant_scalar(t, c.literals().next()?)));
    }
    let n = len.max(1);
    if k.checked_add(n)? > nc {
        return None;
    }
    let comps: SmallVec<[Scalar; 4]> = c
        .literals()
        .skip(k)
        .take(n)
        .map(|l| constant_scalar(t, l))
        .collect();
    Some(Value::from_components(comps))
}

/// True if [`fold_op`] evaluates `d`: a code op that may fold whose operands are all
/// `Constant`s, or a phi whose incoming values are one constant. Tested before any constant is
/// decoded (most ops have a non-constant operand).
fn has_constant_operands(m: &Module, d: SsaDef) -> bool {
    let op = m.op(d);
    match op.opcode {
        OpCode::Phi => return phi_constant(m, d).is_some(),
        OpCode::CheckSparseAccess | OpCode::Constant | OpCode::Undef => return false,
        _ => {}
    }
    // The operands first: most ops have a non-constant one, which settles it at one look-up
    // (the opcode tests are all pure, so their order does not matter).
    let o = op.opcode;
    op.refs()
        .all(|(_, a)| a.is_some_and(|a| m.opcode(a) == OpCode::Constant))
        && op.has_result()
        && !(o.is_declarative() || o.has_effect() || o.reads_state() || o.is_terminator())
}

/// True if a run would change nothing after `changes`, the last run having left the module
/// at const-fold's fixpoint (a run always does: an op is queued again whenever an operand
/// folds). An op the last run did not fold can fold now only if it was touched (created,
/// rewritten, given new operands), or if it has only constant operands and one of those
/// constants was rewritten in place (the last run may have failed to fold it). A code op
/// never is a constant, so the users of a touched code op are not asked; nor those of a
/// constant created since (they were all touched). A changed declaration other than a
/// constant, undef or debug op (a float mode) could change any result.
pub fn settled(m: &Module, changes: Changes) -> bool {
    changes.all_distinct(|t| {
        if !m.is_live(t) {
            return true;
        }
        match m.opcode(t) {
            OpCode::Constant if changes.created(t) => true,
            OpCode::Constant => m.uses(t).iter().all(|&u| !has_constant_operands(m, u)),
            OpCode::Undef => true,
            o if o.is_declarative() => o.is_meta(),
            _ => !has_constant_operands(m, t),
        }
    })
}

/// The constant every incoming value of phi `d` is (ignoring the phi itself).
fn phi_constant(m: &Module, d: SsaDef) -> Option<SsaDef> {
    let op = m.op(d);
    let mut value = None;
    for pair in op.operands.chunks(2) {
        let v = pair.get(1)?.as_ref()?;
        if v == d {
            continue;
        }
        if m.opcode(v) != OpCode::Constant || value.is_some_and(|c| c != v) {
            return None;
        }
        value = Some(v);
    }
    value.filter(|&c| m.ty(c) == &op.ty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use irc_arith::eval::constant_literals;
    use irc_arith::value::constant_value;
    use irc_ir::{ScalarType, Type};

    #[test]
    fn literals_round_trip() {
        let cases: &[(Type, &[u64])] = &[
            (Type::scalar(ScalarType::I32), &[u64::MAX]),
            (Type::scalar(ScalarType::U32), &[0xffff_ffff]),
            (
                Type::vector(ScalarType::F32, 2),
                &[0x8000_0000, 0x7fc0_0000],
            ),
            (Type::scalar(ScalarType::MinF16), &[1.5f32.to_bits() as u64]),
            (Type::scalar(ScalarType::MinI16), &[(-3i64) as u64]),
            (Type::scalar(ScalarType::MinU16), &[65535]),
            (Type::scalar(ScalarType::Bool), &[1]),
            (Type::scalar(ScalarType::F16), &[0x8001]),
            (Type::scalar(ScalarType::I8), &[(-128i64) as u64]),
        ];
        for (ty, lits) in cases {
            let v = constant_value(ty, lits).unwrap();
            assert_eq!(constant_literals(ty, &v).as_deref(), Some(*lits), "{ty}");
        }
        // An untyped value has no constant that decodes to it.
        let v = Value::f32(1.0);
        assert_eq!(
            constant_literals(&Type::scalar(ScalarType::Unknown), &v),
            None
        );
    }

    /// `const-fold-int` folds the integer compare and the boolean `not` of a condition, and
    /// leaves the float ops (a cosine a target may lower to a polynomial, a legacy multiply)
    /// and the float select for later, where `const-fold` folds them all.
    #[test]
    fn the_int_fold_leaves_float_results() {
        let src = "%1 = EntryPoint %10 Pixel\n\
                   %2 = f32 DclOutput %1 0 0\n\
                   %3 = u32 Constant 7\n\
                   %4 = f32 Constant 4.0\n\
                   %5 = f32 Constant 0.0\n\
                   %10 = Function\n\
                   %11 = Label None\n\
                   %12 = bool ULt %3 %3\n\
                   %13 = bool BNot %12\n\
                   %14 = f32 FCos %4\n\
                   %15 = f32 FMulLegacy %14 %4\n\
                   %16 = f32 Select %13 %15 %5\n\
                   %17 = OutputStore %2 null %16\n\
                   %18 = Return\n\
                   %19 = FunctionEnd\n";
        let mut m = irc_ir::text::parse(src).unwrap();
        let cx = PassContext::default();
        assert!(run_int(&mut m, &cx).unwrap());
        let count = |m: &Module, o: OpCode| m.code().filter(|&d| m.opcode(d) == o).count();
        assert_eq!(count(&m, OpCode::ULt) + count(&m, OpCode::BNot), 0);
        assert_eq!(count(&m, OpCode::FCos), 1);
        assert_eq!(count(&m, OpCode::FMulLegacy), 1);
        assert_eq!(count(&m, OpCode::Select), 1);
        assert!(run(&mut m, &cx).unwrap());
        assert_eq!(count(&m, OpCode::FCos) + count(&m, OpCode::Select), 0);
    }
}
