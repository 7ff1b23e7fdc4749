//! Float bit patterns carried in integer registers become float values, for targets without
//! integers (run first by `int-to-float`).
//!
//! D3D10+ compilers often move float constants through integer-typed code: `movc r0.x, r1.x,
//! l(0xbe99999a), l(0x80000000)` becomes `u32 Select c 3197737370 2147483648`, merged by a
//! `Phi`, packed and unpacked with `CompositeConstruct`/`CompositeExtract`, and read back only
//! through a bit `Cast` to `f32`. The integer values are never used as numbers, so the whole web
//! can hold the same bits as `f32` instead: the constants become f32 constants with identical
//! bits and the `Cast`s disappear. That is exact because selects, phis and composite
//! construction/extraction move values without looking at them.
//!
//! ## Which webs
//!
//! A **member** is a `Phi`, `Select`, `CompositeConstruct` or `CompositeExtract` whose result is
//! a 32-bit integer scalar or vector, such that
//! - each value operand (a phi's incoming value, a select's arms, a construct's members, an
//!   extract's composite) is a member or an integer constant whose every component, read as
//!   f32, is zero or normal (never NaN, infinity's payload is fine, never subnormal: hardware
//!   moves may flush subnormals or quiet NaNs, so only values every float unit carries
//!   unchanged qualify); and
//! - each user is a member reading it as a value operand, a `Cast` to f32 of the same
//!   component count, or a debug op.
//!
//! The members are the greatest set with both properties (a fixed point from all candidates,
//! dropping violators until none is left), so phi cycles stay in.
//!
//! ## Rewrite
//!
//! Members get the f32 type of their shape, constant operands are replaced by f32 constants of
//! the same bits, and every `Cast` to f32 of a member is replaced by the member itself.

use irc_ir::{Module, Op, OpCode, Operand, ScalarType, SsaDef, Type};
use rustc_hash::{FxHashMap, FxHashSet};

/// Rewrites every web of float bit patterns in `m`; returns whether anything changed.
pub fn run(m: &mut Module) -> bool {
    let members = members(m);
    if members.is_empty() {
        return false;
    }
    let mut order: Vec<SsaDef> = members.iter().copied().collect();
    order.sort();
    let mut float_constants: FxHashMap<SsaDef, SsaDef> = FxHashMap::default();
    for &d in &order {
        let ty = float_type(m.ty(d)).expect("member has a 32-bit integer type");
        let ops = m.op(d).operands.clone();
        for (i, o) in ops.iter().enumerate() {
            let Operand::Ref(x) = *o else { continue };
            if !is_value_operand(m.opcode(d), i) || members.contains(&x) {
                continue;
            }
            let fx = match float_constants.get(&x) {
                Some(&fx) => fx,
                None => {
                    let fx = float_constant(m, x);
                    float_constants.insert(x, fx);
                    fx
                }
            };
            m.set_operand(d, i, Operand::Ref(fx));
        }
        m.set_type(d, ty);
    }
    for &d in &order {
        let casts: Vec<SsaDef> = m
            .uses(d)
            .iter()
            .copied()
            .filter(|&u| m.opcode(u) == OpCode::Cast)
            .collect();
        for c in casts {
            if m.is_live(c) {
                crate::fold_util::replace_value(m, c, d);
            }
        }
    }
    let old: Vec<SsaDef> = float_constants.keys().copied().collect();
    crate::fold_util::remove_dead(m, old);
    true
}

/// The members (module docs): candidates, then violators dropped until none is left.
fn members(m: &Module) -> FxHashSet<SsaDef> {
    let mut set: FxHashSet<SsaDef> = m
        .code()
        .filter(|&d| {
            matches!(
                m.opcode(d),
                OpCode::Phi
                    | OpCode::Select
                    | OpCode::CompositeConstruct
                    | OpCode::CompositeExtract
            ) && float_type(m.ty(d)).is_some()
        })
        .collect();
    // Dropping a member can only break its operands (a user left) and its users (an operand
    // left): recheck just those, so a long chain costs its length, not its length squared.
    let mut queue: Vec<SsaDef> = set.iter().copied().collect();
    while let Some(d) = queue.pop() {
        if !set.contains(&d) || (operands_ok(m, &set, d) && users_ok(m, &set, d)) {
            continue;
        }
        set.remove(&d);
        let neighbours = m.op(d).ref_defs().chain(m.uses(d).iter().copied());
        queue.extend(neighbours.filter(|x| set.contains(x)));
    }
    set
}

/// Operand `i` of an op with opcode `op` carries (part of) its value.
fn is_value_operand(op: OpCode, i: usize) -> bool {
    match op {
        OpCode::Select => i != 0,
        OpCode::Phi => i % 2 == 1,
        OpCode::CompositeExtract => i == 0,
        _ => true,
    }
}

fn operands_ok(m: &Module, set: &FxHashSet<SsaDef>, d: SsaDef) -> bool {
    let op = m.op(d);
    op.operands.iter().enumerate().all(|(i, o)| {
        if !is_value_operand(op.opcode, i) {
            return true;
        }
        match *o {
            Operand::Ref(x) => set.contains(&x) || carried_constant(m, x),
            Operand::Null | Operand::Lit(_) => false,
        }
    })
}

fn users_ok(m: &Module, set: &FxHashSet<SsaDef>, d: SsaDef) -> bool {
    let want = float_type(m.ty(d));
    m.uses(d).iter().all(|&u| {
        let op = m.op(u);
        if op.opcode.is_meta() {
            return true;
        }
        if op.opcode == OpCode::Cast {
            return Some(&op.ty) == want.as_ref();
        }
        set.contains(&u)
            && op
                .operands
                .iter()
                .enumerate()
                .all(|(i, o)| *o != Operand::Ref(d) || is_value_operand(op.opcode, i))
    })
}

/// The f32 type of the same shape as a 32-bit integer scalar or vector type.
fn float_type(ty: &Type) -> Option<Type> {
    let b = ty.as_basic()?;
    if b.scalar_type().is_int() && b.scalar_type().byte_size() == 4 {
        Some(Type::vector(ScalarType::F32, b.vec_size()))
    } else {
        None
    }
}

/// A 32-bit integer constant every component of which, as f32 bits, is zero or non-subnormal
/// and not NaN.
fn carried_constant(m: &Module, x: SsaDef) -> bool {
    let op = m.op(x);
    op.opcode == OpCode::Constant
        && float_type(&op.ty).is_some()
        && op.operands.iter().all(|o| match *o {
            Operand::Lit(bits) => carried_bits(bits as u32),
            _ => false,
        })
}

fn carried_bits(bits: u32) -> bool {
    let f = f32::from_bits(bits);
    !f.is_nan() && !f.is_subnormal()
}

/// The f32 constant with the bits of integer constant `x`.
fn float_constant(m: &mut Module, x: SsaDef) -> SsaDef {
    let op = m.op(x).clone();
    let mut new = Op::new(
        OpCode::Constant,
        float_type(&op.ty).expect("carried constant"),
    );
    new.operands = op.operands;
    m.add(new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use irc_interp::{compare::outputs_equal, run as interp, RunConfig, ShaderInputs};

    /// `s = c ? -0.3 : -0.0` (bits), merged by a phi with `v1 < 5 ? 1.5 : +inf` on the other
    /// arm, packed with `s` into a `u32x2`, unpacked and read as floats.
    fn web(k: &str, tail: &str) -> String {
        format!(
            "
%1 = EntryPoint %20 Pixel
%2 = f32 DclInput %1 0 0 None
%3 = f32 DclInput %1 1 0 None
%4 = f32x2 DclOutput %1 0 0
%5 = u32 DclOutput %1 1 0
%6 = f32 Constant 0.0
%7 = f32 Constant 5.0
%8 = u32 Constant 3197737370
%9 = u32 Constant 2147483648
%10 = u32 Constant 1069547520
%11 = u32 Constant {k}
%12 = u32 Constant 0
%13 = u32 Constant 1

%20 = Function
%21 = Label %40 StructuredSelection
  %22 = f32 InputLoad %2 null
  %23 = f32 InputLoad %3 null
  %24 = bool FGe %22 %6
  %25 = u32 Select %24 %8 %9
  %26 = bool FGt %23 %6
  %27 = BranchConditional %26 %30 %35
%30 = Label None
  %31 = Branch %40
%35 = Label None
  %36 = bool FLt %23 %7
  %37 = u32 Select %36 %10 %11
  %38 = Branch %40
%40 = Label None
  %41 = u32 Phi %30 %25 %35 %37
  %42 = u32x2 CompositeConstruct %41 %25
  %43 = u32 CompositeExtract %42 %12
  %44 = u32 CompositeExtract %42 %13
  %45 = f32 Cast %43
  %46 = f32 Cast %44
  %47 = f32x2 CompositeConstruct %45 %46
  %48 = OutputStore %4 null %47
{tail}  %49 = Return
%50 = FunctionEnd
"
        )
    }

    fn same_outputs(before: &Module, after: &Module) {
        for seed in 0..32 {
            let inputs = ShaderInputs::random(before, seed);
            let a = interp(before, &inputs, &RunConfig::default()).unwrap();
            let b = interp(after, &inputs, &RunConfig::default()).unwrap();
            if let Err(e) = outputs_equal(&a, &b) {
                panic!("seed {seed}: {e}\n{}", irc_ir::text::print(after));
            }
        }
    }

    /// Integer phis, selects and composites, and bit casts, left in `m`.
    fn int_values_left(m: &Module) -> usize {
        m.code()
            .filter(|&d| match m.opcode(d) {
                OpCode::Cast => true,
                OpCode::Phi
                | OpCode::Select
                | OpCode::CompositeConstruct
                | OpCode::CompositeExtract => m.ty(d).is_basic_where(|t| t.is_int()),
                _ => false,
            })
            .count()
    }

    #[test]
    fn web_of_float_bits_becomes_float() {
        // +inf (0x7f800000) is carried: only NaNs and subnormals are not.
        let before = irc_ir::text::parse(&web("2139095040", "")).unwrap();
        assert!(int_values_left(&before) > 0);
        let mut after = before.clone();
        assert!(run(&mut after));
        irc_ir::verifier::verify(&after).unwrap();
        assert_eq!(
            int_values_left(&after),
            0,
            "{}",
            irc_ir::text::print(&after)
        );
        same_outputs(&before, &after);
    }

    #[test]
    fn nan_or_subnormal_constant_keeps_the_web_integer() {
        for k in ["2143289344", "3"] {
            let before = irc_ir::text::parse(&web(k, "")).unwrap();
            let mut after = before.clone();
            // The select with the NaN (subnormal) arm stays integer, so the phi it feeds, the
            // construct and the extracts do too, and `s`, which the phi and construct read.
            assert!(!run(&mut after), "{k}: {}", irc_ir::text::print(&after));
        }
    }

    #[test]
    fn integer_user_keeps_the_web_integer() {
        let tail = "  %60 = OutputStore %5 null %41\n";
        let before = irc_ir::text::parse(&web("2139095040", tail)).unwrap();
        let mut after = before.clone();
        assert!(!run(&mut after), "{}", irc_ir::text::print(&after));
    }
}
