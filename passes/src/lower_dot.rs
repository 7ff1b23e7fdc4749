//! `lower-dot`: dot products → multiply/multiply-add chains, unless the target has them.
//!
//! `FDot(a, b)` of n-component vectors is, in our semantics (the interpreter's `float::dot`
//! and dxbc-spirv's generated `dp<N>` functions), the chain `acc = a0·b0`, then
//! `acc = ai·bi + acc` for i = 1…n−1, every product and every sum rounded. `FDotAdd(a, b, c)`
//! starts from `acc = c` and applies the mad step to every component, so it is *not*
//! `FDot(a, b) + c`. This pass rewrites each dot product the target does not execute natively
//! (`cx.caps.is_native`) into exactly that chain: one `FMul`, then `FMad`s (unfused in our
//! semantics, so `FMad(x, y, acc)` is `round(round(x·y) + acc)`, the chain step). The last step
//! replaces the dot product in all its uses. Like dxbc-spirv, every step is marked
//! `Precise`: the order of the chain is the meaning of the op and must not be reassociated.
//!
//! Legacy variants (`FDotLegacy`, `FDotAddLegacy`) use the D3D9 multiply (zero wins):
//! - if the target executes `FMulLegacy`/`FMadLegacy` natively (but not the dot), the chain
//!   is made of those ops;
//! - otherwise the zero rule is applied once to the whole vectors, the way `lower-legacy`'s
//!   mode does it (the exact select pattern `a' = Select(FEq(b, 0), 0, a)`,
//!   `b' = Select(FEq(a, 0), 0, b)`, or factors limited to the finite range under
//!   `legacy-mul=finite`), and the IEEE chain runs on `a'` and `b'` — the same values as
//!   per-component legacy multiplies.
//!
//! Components are read with `CompositeExtract`, or taken directly from the operands of a
//! `CompositeConstruct` that built the vector.

use crate::caps::PassContext;
use crate::lower_legacy::{mad_legacy, mul_legacy, product_operands, scalar_of};
use crate::PassError;
use irc_ir::format::Dot;
use irc_ir::Format;
use irc_ir::{Module, Op, OpCode, OpFlags, SsaDef, Type};

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    // The dot products are the opcode table's `Dot` format.
    let expands = |op: OpCode| op.format() == Format::Dot && !cx.caps.is_native(op);
    if !m.contains_where(expands) {
        return Ok(false);
    }
    let work: Vec<SsaDef> = m.code().filter(|&d| expands(m.opcode(d))).collect();
    for &d in &work {
        lower(m, cx, d)?;
    }
    Ok(!work.is_empty())
}

fn lower(m: &mut Module, cx: &PassContext, d: SsaDef) -> Result<(), PassError> {
    let op = m.op(d).clone();
    let internal = |reason: String| PassError::Internal {
        pass: "lower-dot",
        op: d,
        opcode: op.opcode,
        reason,
    };
    let dot = Dot::of(&op);
    let (Some(mut a), Some(mut b)) = (dot.a(), dot.b()) else {
        return Err(internal("a vector operand is missing".into()));
    };
    let add = matches!(op.opcode, OpCode::FDotAdd | OpCode::FDotAddLegacy);
    let legacy = matches!(op.opcode, OpCode::FDotLegacy | OpCode::FDotAddLegacy);
    let mut acc = if add {
        Some(
            dot.add()
                .ok_or_else(|| internal("the addend is missing".into()))?,
        )
    } else {
        None
    };
    let vty = m.ty(a).clone();
    let n = vty
        .as_basic()
        .ok_or_else(|| internal(format!("operand type {vty} is not a vector")))?
        .vec_size();
    let ty = Type::scalar(scalar_of(&vty));
    let flags = op.flags | OpFlags::PRECISE;
    // Legacy products through selects, unless the target multiplies the legacy way.
    let native_legacy = legacy && cx.caps.is_native(OpCode::FMulLegacy);
    if legacy && !native_legacy {
        (a, b) = product_operands(m, cx, None, d, a, b, &vty);
    }
    for i in 0..n {
        let x = component(m, d, a, i, n);
        let y = component(m, d, b, i, n);
        let step = match (acc, native_legacy) {
            (None, false) => m.insert_before(
                d,
                Op::new(OpCode::FMul, ty.clone())
                    .arg(x)
                    .arg(y)
                    .with_flags(flags),
            ),
            (Some(s), false) => m.insert_before(
                d,
                Op::new(OpCode::FMad, ty.clone())
                    .arg(x)
                    .arg(y)
                    .arg(s)
                    .with_flags(flags),
            ),
            (None, true) => mul_legacy(m, cx, None, d, [x, y], &ty, flags),
            (Some(s), true) => mad_legacy(m, cx, d, [x, y, s], &ty, flags),
        };
        acc = Some(step);
    }
    let result = acc.ok_or_else(|| internal("empty vector".into()))?;
    m.replace_all_uses(d, result);
    m.remove(d);
    Ok(())
}

/// Component `i` of the `n`-component vector `v`, read before `at`.
fn component(m: &mut Module, at: SsaDef, v: SsaDef, i: u8, n: u8) -> SsaDef {
    if n == 1 {
        return v;
    }
    let op = m.op(v);
    if op.opcode == OpCode::CompositeConstruct && op.operands.len() == n as usize {
        if let Some(c) = op.operand_def(i as usize) {
            return c;
        }
    }
    let ty = Type::scalar(scalar_of(m.ty(v)));
    let index = m.add(Op::new(OpCode::Constant, irc_ir::ScalarType::U32).lit(i as u64));
    m.insert_before(at, Op::new(OpCode::CompositeExtract, ty).arg(v).arg(index))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::TargetCaps;
    use crate::lower_legacy::test_util::{check_same, op_module, ty};
    use irc_ir::ScalarType;

    #[test]
    fn dots_match_interpreter_on_every_target() {
        for caps in [
            TargetCaps::DEFAULT,
            crate::caps::test_profiles::PICA_LIKE,
            crate::caps::test_profiles::LIMA_LIKE,
            crate::caps::test_profiles::AGAL_LIKE,
        ] {
            for opcode in [
                OpCode::FDot,
                OpCode::FDotLegacy,
                OpCode::FDotAdd,
                OpCode::FDotAddLegacy,
            ] {
                for (s, n) in [
                    (ScalarType::F32, 2),
                    (ScalarType::F32, 3),
                    (ScalarType::F32, 4),
                    (ScalarType::F16, 4),
                    (ScalarType::MinF16, 3),
                ] {
                    let mut args = vec![ty(s, n), ty(s, n)];
                    if matches!(opcode, OpCode::FDotAdd | OpCode::FDotAddLegacy) {
                        args.push(ty(s, 1));
                    }
                    let m = op_module(opcode, &args, &ty(s, 1));
                    let mut lowered = m.clone();
                    run(
                        &mut lowered,
                        &PassContext {
                            caps: caps.clone(),
                            ..Default::default()
                        },
                    )
                    .unwrap();
                    let left = lowered.code().any(|d| lowered.opcode(d) == opcode);
                    assert_eq!(left, caps.is_native(opcode), "{opcode} on {}", caps.name);
                    check_same(&m, &lowered, &format!("{opcode} {s}x{n} on {}", caps.name));
                }
            }
        }
    }
}
