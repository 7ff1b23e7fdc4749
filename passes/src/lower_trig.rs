//! `lower-trig`: `FSin` and `FCos` of `f32` values become polynomial arithmetic, for targets
//! without sine and cosine units (`TargetCaps::trig == false`: the Mali GP and PICA200). On
//! other targets the pass does nothing.
//!
//! The expansion and its error are [`irc_arith::trig`]'s (one period of a degree-6 polynomial
//! in `u²`, below 3.4·10⁻⁷ plus about `|x|·6·10⁻⁸`); the interpreter evaluates the same steps
//! when it is these targets' oracle (`RunConfig::polynomial_trig`).
//!
//! `±inf` and NaN give NaN (`inf − floor(inf)` is NaN), as `sin` and `cos` do. `−0` gives a
//! tiny value instead of `sin(−0) = −0`. `Precise` cannot be honoured (there is no exact sine on
//! these targets); the approximation is within the f32 tolerance the targets are checked with.
//!
//! The multiplies are the target's native D3D9 ones where it has them (PICA): here they equal
//! the IEEE ones, since no factor is infinite unless the argument is, and then the result is
//! NaN either way. The new ops are `Precise`, so that no later pass reassociates the evaluation
//! whose error was measured.

use crate::caps::PassContext;
use crate::PassError;
use irc_ir::{Module, Op, OpCode, OpFlags, RoundMode, ScalarType, SsaDef, Type};

use irc_arith::trig::{COS_2PI_SQRT, INV_2PI};

/// Runs the pass (only for targets without trigonometric units); returns whether it changed
/// the module.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    if cx.caps.trig {
        return Ok(false);
    }
    let work: Vec<SsaDef> = m
        .code()
        .filter(|&d| {
            let op = m.op(d);
            matches!(op.opcode, OpCode::FSin | OpCode::FCos)
                && op.ty.is_basic_where(|t| t == ScalarType::F32)
                && op.ty.as_basic().is_some()
        })
        .collect();
    let legacy = cx.caps.is_native(OpCode::FMulLegacy) && cx.caps.is_native(OpCode::FMadLegacy);
    for &d in &work {
        lower(m, d, legacy);
    }
    Ok(!work.is_empty())
}

/// A constant of type `ty` (f32 scalar or vector) with every lane `v`.
fn splat(m: &mut Module, ty: &Type, v: f32) -> SsaDef {
    let lanes = ty.as_basic().map_or(1, |b| usize::from(b.vec_size()));
    let mut op = Op::new(OpCode::Constant, ty.clone());
    for _ in 0..lanes {
        op = op.lit(u64::from(v.to_bits()));
    }
    m.add(op)
}

fn lower(m: &mut Module, d: SsaDef, legacy: bool) {
    let op = m.op(d).clone();
    let ty = op.ty.clone();
    let x = irc_ir::format::Arith::of(&op)
        .a()
        .expect("FSin/FCos operand");
    let (mul, mad) = if legacy {
        (OpCode::FMulLegacy, OpCode::FMadLegacy)
    } else {
        (OpCode::FMul, OpCode::FMad)
    };
    let flags = op.flags | OpFlags::PRECISE;
    let new = |code: OpCode| Op::new(code, ty.clone()).with_flags(flags);
    let inv_2pi = splat(m, &ty, INV_2PI);
    let mut t = m.insert_before(d, new(mul).arg(x).arg(inv_2pi));
    if op.opcode == OpCode::FSin {
        let quarter = splat(m, &ty, 0.25);
        t = m.insert_before(d, new(OpCode::FSub).arg(t).arg(quarter));
    }
    let half = splat(m, &ty, 0.5);
    let h = m.insert_before(d, new(OpCode::FAdd).arg(t).arg(half));
    let f = m.insert_before(
        d,
        new(OpCode::FRound)
            .arg(h)
            .lit(u64::from(RoundMode::NegativeInf.0)),
    );
    let u = m.insert_before(d, new(OpCode::FSub).arg(t).arg(f));
    let w = m.insert_before(d, new(mul).arg(u).arg(u));
    let (last, rest) = COS_2PI_SQRT.split_last().expect("coefficients");
    let mut r = splat(m, &ty, *last);
    for (k, &c) in rest.iter().enumerate().rev() {
        let c = splat(m, &ty, c);
        let step = new(mad).arg(r).arg(w).arg(c);
        if k == 0 {
            m.rewrite(d, step);
            return;
        }
        r = m.insert_before(d, step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::TargetCaps;
    use irc_arith::{Scalar, Value};
    use irc_interp::{run as interp, InvocationInputs, IoSlot, RunConfig, ShaderInputs};

    fn cx(legacy: bool) -> PassContext {
        let caps = if legacy {
            crate::caps::test_profiles::PICA_LIKE
        } else {
            crate::caps::test_profiles::LIMA_LIKE
        };
        PassContext {
            caps: TargetCaps {
                trig: false,
                fp16_arithmetic: false,
                ..caps
            },
            ..Default::default()
        }
    }

    const SRC: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32x2 DclInput %1 0 0
%3 = f32x2 DclOutput %1 0 0
%4 = f32 DclOutput %1 1 0
%5 = u32 Constant 0

%20 = Function
%21 = Label None
  %22 = f32x2 InputLoad %2 null
  %23 = f32x2 FSin %22
  %24 = OutputStore %3 null %23
  %25 = f32 CompositeExtract %22 %5
  %26 = f32 FCos %25
  %27 = OutputStore %4 null %26
  %28 = Return
%29 = FunctionEnd
";

    fn slot(location: u32) -> IoSlot {
        IoSlot::Location {
            location,
            component: 0,
        }
    }

    /// Both outputs of `m` run on `x`, as f32 components.
    fn outputs(m: &Module, x: [f32; 2]) -> Vec<f32> {
        outputs_with(m, x, &RunConfig::default())
    }

    fn outputs_with(m: &Module, x: [f32; 2], cfg: &RunConfig) -> Vec<f32> {
        let mut inv = InvocationInputs::default();
        inv.io.insert(
            slot(0),
            Value::from_components(x.iter().map(|&v| Scalar::F32(v)).collect()),
        );
        let inputs = ShaderInputs {
            invocations: vec![inv],
            ..Default::default()
        };
        let out = interp(m, &inputs, cfg).unwrap();
        (0..2)
            .flat_map(|loc| {
                out.invocations[0].io[&slot(loc)]
                    .components()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_f32())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn sine_and_cosine_are_within_f32_tolerance_over_many_periods() {
        for legacy in [false, true] {
            let before = irc_ir::text::parse(SRC).unwrap();
            let mut after = before.clone();
            assert!(run(&mut after, &cx(legacy)).unwrap());
            irc_ir::verifier::verify(&after).unwrap();
            assert!(!after
                .code()
                .any(|d| matches!(after.opcode(d), OpCode::FSin | OpCode::FCos)));
            let mut worst = 0f32;
            for k in -2000..=2000 {
                let x = k as f32 * 0.0157;
                let x2 = x * 0.37 + 1.0;
                let (a, b) = (outputs(&before, [x, x2]), outputs(&after, [x, x2]));
                for (r, s) in a.iter().zip(&b) {
                    worst = worst.max((r - s).abs());
                }
            }
            // |x| ≤ 31.4: polynomial 3.4e-7 plus reduction ~2e-6.
            assert!(worst < 4e-6, "legacy {legacy}: worst error {worst}");
            let (a, b) = (
                outputs(&before, [f32::INFINITY, f32::NAN]),
                outputs(&after, [f32::INFINITY, f32::NAN]),
            );
            assert!(
                a.iter().zip(&b).all(|(r, s)| r.is_nan() && s.is_nan()),
                "{a:?} {b:?}"
            );
        }
    }

    /// The interpreter as these targets' oracle computes the expansion bit for bit.
    #[test]
    fn the_polynomial_oracle_is_the_expansion() {
        let before = irc_ir::text::parse(SRC).unwrap();
        let mut after = before.clone();
        run(&mut after, &cx(false)).unwrap();
        let oracle = RunConfig {
            polynomial_trig: true,
            ..RunConfig::default()
        };
        for k in -300..=300 {
            let x = [k as f32 * 0.173, k as f32 * -0.0041 + 0.5];
            let a = outputs_with(&before, x, &oracle);
            let b = outputs(&after, x);
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "x = {x:?}");
        }
    }

    #[test]
    fn targets_with_trigonometry_keep_it() {
        let mut m = irc_ir::text::parse(SRC).unwrap();
        let caps = TargetCaps {
            trig: true,
            fp16_arithmetic: false,
            ..crate::caps::test_profiles::LIMA_LIKE
        };
        let cx = PassContext {
            caps,
            ..Default::default()
        };
        assert!(!run(&mut m, &cx).unwrap());
    }
}
