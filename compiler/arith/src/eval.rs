//! Evaluation of one pure op on known operand values, outside a run: the constant folder's
//! entry into the interpreter's arithmetic.
//!
//! [`fold`] evaluates the ops whose result depends only on their operands (conversions, casts,
//! composites, comparisons, boolean logic, select, float and integer arithmetic and bit ops)
//! with exactly the per-component functions a run uses ([`crate::float`], [`crate::int`],
//! [`crate::convert`], [`crate::access`]) and the same broadcasting rule (a scalar operand
//! applies to every component of a vector result). Ops that read state, have effects or are
//! modelling choices of the interpreter rather than semantics (`CheckSparseAccess`, derivatives
//! outside pixel shaders) are not evaluated. [`constant_literals`] is the inverse of
//! [`crate::value::constant_value`]: the `Constant` literals of a value. [`fold_in`] evaluates
//! under a module's float modes ([`crate::fp_mode`]); [`fold`] is IEEE (no `SetFpMode`).

use crate::access::{value_get, value_set};
use crate::fp_mode::FpModes;
use crate::value::{bit_width, effective, mask, zero_value, Scalar, Value};
use crate::{convert, float, int};
use irc_ir::format::{slots, FRound};
use irc_ir::{Attrs, Op, OpCode, ScalarType, Type};
use smallvec::SmallVec;

/// The scalar type of an op's result (for composites: of its first member).
fn rt(op: &Op) -> ScalarType {
    op.ty
        .members()
        .first()
        .map_or(ScalarType::Void, |b| b.scalar_type())
}

/// Number of components of the result (1 for non-vectors).
fn result_len(op: &Op) -> usize {
    op.ty.as_basic().map_or(1, |b| b.vec_size() as usize)
}

/// Applies `f` per component to `args`; scalar operands broadcast (the interpreter's `map`).
fn map(len: usize, args: &[Value], f: impl Fn(&[Scalar]) -> Option<Scalar>) -> Option<Value> {
    let comps: SmallVec<[SmallVec<[Scalar; 4]>; 4]> =
        args.iter().map(|a| a.components()).collect::<Option<_>>()?;
    let mut out = SmallVec::new();
    for k in 0..len {
        let mut a: SmallVec<[Scalar; 4]> = SmallVec::new();
        for c in &comps {
            a.push(match c.len() {
                1 => c[0],
                n if k < n => c[k],
                _ => return None,
            });
        }
        out.push(f(&a)?);
    }
    Some(Value::from_components(out))
}

/// An address operand as indices (each component masked to its width).
fn address(v: &Value) -> Option<SmallVec<[u64; 4]>> {
    Some(
        v.components()?
            .iter()
            .map(|s| s.bits() & mask(bit_width(s.ty())))
            .collect(),
    )
}

/// True if an array-dimension index of `address` is past the end of a sized dimension of `ty`.
fn array_index_out_of_range(ty: &Type, address: &[u64]) -> bool {
    address
        .iter()
        .zip(ty.array_dims().iter().rev())
        .any(|(&i, &n)| n != 0 && i >= u64::from(n))
}

/// Evaluates the pure op `op` on `args`, the values of its reference operands in order (the
/// operands before the first literal; none may be null). `None` if the op is not pure, or its
/// operands do not fit it (where a run would trap). `operand0_ty` is the type of operand 0
/// (only `ConstantLoad` reads it: an out-of-range array index reads zero).
#[inline]
pub fn fold(op: &Op, args: &[Value], operand0_ty: &Type) -> Option<Value> {
    fold_in(op, args, operand0_ty, &FpModes::IEEE)
}

/// [`fold`] under the float modes `modes` (from [`FpModes::of_module`]).
#[inline]
pub fn fold_in(op: &Op, args: &[Value], operand0_ty: &Type, modes: &FpModes) -> Option<Value> {
    let t = rt(op);
    let len = result_len(op);
    let n = op.first_literal().min(op.operands.len());
    if args.len() != n {
        return None;
    }
    let arg = |i: usize| args.get(i);
    Some(match op.opcode {
        OpCode::ConvertFtoF => map(len, &args[..1], |a| {
            Some(convert::f_to_f_in(a[0], t, modes))
        })?,
        OpCode::ConvertFtoI => map(len, &args[..1], |a| Some(convert::f_to_i(a[0], t)))?,
        OpCode::ConvertItoF => map(len, &args[..1], |a| Some(convert::i_to_f(a[0], t)))?,
        OpCode::ConvertItoI => map(len, &args[..1], |a| Some(convert::i_to_i(a[0], t)))?,
        OpCode::ConsumeAs => map(len, &args[..1], |a| {
            Some(convert::consume_as_in(a[0], t, modes))
        })?,
        OpCode::ConvertF32toPackedF16 => {
            let c = arg(slots::Arith.a)?.components()?;
            let (a, b) = (c[0], c.get(1).copied().unwrap_or(Scalar::F32(0.0)));
            Value::Scalar(Scalar::from_bits(t, convert::pack_f16(a, b) as u64))
        }
        OpCode::ConvertPackedF16toF32 => {
            let (a, b) = convert::unpack_f16(arg(slots::Arith.a)?.as_scalar()?.bits() as u32);
            Value::f32s(&[a, b])
        }
        OpCode::Cast => {
            let mut flat = Vec::new();
            arg(slots::Arith.a)?.flatten(&mut flat);
            let c = convert::cast(&flat, t, len)?;
            Value::from_components(c.into_iter().collect())
        }
        OpCode::CompositeInsert => {
            let s = slots::CompositeInsert;
            let mut c = arg(s.composite)?.clone();
            value_set(&mut c, &address(arg(s.address)?)?, arg(s.value)?.clone())?;
            c
        }
        OpCode::CompositeExtract => {
            let s = slots::CompositeExtract;
            value_get(arg(s.composite)?, &address(arg(s.address)?)?, len)?
        }
        OpCode::CompositeConstruct => {
            if op.ty.as_basic().is_some() {
                let mut c = SmallVec::new();
                for p in args {
                    c.extend(p.components()?);
                }
                Value::from_components(c)
            } else {
                Value::Composite(args.to_vec())
            }
        }
        OpCode::ConstantLoad => {
            let a = address(arg(slots::Load.address)?)?;
            match value_get(arg(slots::Load.base)?, &a, len) {
                Some(v) => v,
                None if array_index_out_of_range(operand0_ty, &a) => zero_value(&op.ty),
                None => return None,
            }
        }
        o if o.is(Attrs::FLOAT | Attrs::COMPARE) => map(len, args, |a| {
            Some(Scalar::Bool(float::compare_in(
                op.opcode,
                a[0].ty(),
                a[0],
                *a.get(1).unwrap_or(&a[0]),
                modes.get(a[0].ty()),
            )?))
        })?,
        o if o.is(Attrs::INT | Attrs::COMPARE) => map(len, args.get(..2)?, |a| {
            Some(Scalar::Bool(int::compare(
                op.opcode,
                a[0].ty(),
                a[0],
                a[1],
            )?))
        })?,
        OpCode::BAnd | OpCode::BOr | OpCode::BEq | OpCode::BNe | OpCode::BNot => {
            map(len, args, |a| {
                Some(Scalar::Bool(int::bool_op(
                    op.opcode,
                    a[0].as_bool(),
                    a.get(1).is_some_and(|s| s.as_bool()),
                )?))
            })?
        }
        OpCode::Select => match arg(slots::Select.cond)? {
            Value::Scalar(c) => {
                if c.as_bool() {
                    arg(slots::Select.if_true)?.clone()
                } else {
                    arg(slots::Select.if_false)?.clone()
                }
            }
            _ => map(len, args.get(..3)?, |a| {
                Some(if a[0].as_bool() { a[1] } else { a[2] })
            })?,
        },
        OpCode::FRound => {
            let mode = FRound::of(op).mode().unwrap_or(2);
            map(len, args.get(..1)?, |a| {
                float::float_op_in(op.opcode, t, a, mode, modes.get(t))
            })?
        }
        OpCode::FDot | OpCode::FDotLegacy | OpCode::FDotAdd | OpCode::FDotAddLegacy => {
            let a = arg(slots::Dot.a)?.components()?;
            let b = arg(slots::Dot.b)?.components()?;
            let c = match arg(slots::Dot.add) {
                Some(c) => Some(c.as_scalar()?),
                None => None,
            };
            if a.len() != b.len() {
                return None;
            }
            Value::Scalar(float::dot_in(op.opcode, t, &a, &b, c, modes.get(t)))
        }
        OpCode::IAddCarry | OpCode::ISubBorrow | OpCode::SMulExtended | OpCode::UMulExtended => {
            let a = arg(slots::Arith.a)?.as_scalar()?;
            let b = arg(slots::Arith.b)?.as_scalar()?;
            let (lo, hi) = int::extended(op.opcode, a, b)?;
            Value::Vector(smallvec::smallvec![
                Scalar::from_bits(t, lo as u64),
                Scalar::from_bits(t, hi as u64)
            ])
        }
        // Every other float op (comparisons are above): per component (after `FRound` and the
        // `FDot*` ops above).
        o if o.is(Attrs::FLOAT) => map(len, args, |a| {
            float::float_op_in(op.opcode, t, a, 0, modes.get(t))
        })?,
        // Every other integer op (comparisons are above): per component (after the extended
        // ops above).
        o if o.is(Attrs::INT) => {
            if t == ScalarType::Bool {
                // Bitwise ops on bool behave as logical ops.
                map(len, args, |a| {
                    let x = |i: usize| a.get(i).is_some_and(|s| s.as_bool());
                    Some(Scalar::Bool(match op.opcode {
                        OpCode::IAnd => x(0) && x(1),
                        OpCode::IOr => x(0) || x(1),
                        OpCode::IXor => x(0) != x(1),
                        OpCode::INot => !x(0),
                        _ => return None,
                    }))
                })?
            } else {
                map(len, args, |a| int::int_op(op.opcode, t, a))?
            }
        }

        OpCode::MinValue | OpCode::MaxValue => {
            let t = effective(t);
            let max = op.opcode == OpCode::MaxValue;
            let s = if t.is_float() {
                let v = float::max_finite(t);
                float::from_f64(if max { v } else { -v }, t)
            } else if t.is_signed_int() {
                let w = bit_width(t);
                Scalar::from_bits(t, if max { mask(w - 1) } else { 1u64 << (w - 1) })
            } else if t.is_int() {
                Scalar::from_bits(t, if max { u64::MAX } else { 0 })
            } else {
                return None;
            };
            Value::Scalar(s)
        }
        _ => return None,
    })
}

/// The `Constant` literals (reference §A.7) of value `v` as a constant of type `ty`: the
/// inverse of [`crate::value::constant_value`]. `None` if `v` does not have exactly the shape
/// and scalar types a constant of `ty` decodes to, or if the type holds no constant values.
#[inline]
pub fn constant_literals(ty: &Type, v: &Value) -> Option<Vec<u64>> {
    let mut flat = Vec::new();
    v.flatten(&mut flat);
    if ty.flattened_scalar_count()? != flat.len() as u64 {
        return None;
    }
    let mut lits = Vec::with_capacity(flat.len());
    for (i, s) in flat.iter().enumerate() {
        let st = ty.flattened_scalar_type(i as u64)?;
        if s.ty() != effective(st) || s.ty() == ScalarType::Unknown {
            return None;
        }
        lits.push(match (st, *s) {
            (ScalarType::MinF16 | ScalarType::MinF10, Scalar::F16(h)) => {
                h.to_f32().to_bits() as u64
            }
            (ScalarType::MinU16, Scalar::U16(u)) => u as u64,
            _ if st.is_signed_int() || effective(st).is_signed_int() => s.sext_bits(),
            _ if st.is_int() || st.is_float() || st == ScalarType::Bool => s.bits(),
            _ => return None,
        });
    }
    // Shapes must match too (a vector where a struct was expected is a different value).
    (crate::value::constant_value(ty, &lits).as_ref() == Some(v)).then_some(lits)
}
