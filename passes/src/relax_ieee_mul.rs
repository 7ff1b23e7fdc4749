//! `relax-ieee-mul`: IEEE multiplies become D3D9 legacy ones, on request, for targets whose
//! multiplier follows D3D9 rules (PICA200: `0 · inf = 0`), so that they run as one native
//! instruction instead of an exact emulation.
//!
//! Runs only when [`PassContext::ieee_mul_legacy`] is set (PICA's `-C ieee-mul=legacy`):
//! `FMul` → `FMulLegacy`, `FMad` → `FMadLegacy`, `FDot` → `FDotLegacy`, `FDotAdd` →
//! `FDotAddLegacy`, same type, operands and flags. The results differ from IEEE's only where a
//! product has one factor ±0 and the other inf or NaN (legacy: 0, IEEE: NaN). Ops that are
//! `Precise` (their own flag or their type's `SetFpMode` default) stay IEEE: the user asked for
//! exact results there. The relaxed module is its own interpreter oracle: the interpreter
//! executes the legacy ops with D3D9 rules, as the target does.

use crate::caps::PassContext;
use crate::fold_util::FpDefaults;
use crate::PassError;
use irc_ir::{Module, OpCode, OpFlags, SsaDef};

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    if !cx.ieee_mul_legacy {
        return Ok(false);
    }
    let fp = FpDefaults::of(m);
    let relaxed: Vec<(SsaDef, OpCode)> = m
        .code()
        .filter_map(|d| {
            let op = m.op(d);
            let legacy = legacy_form(op.opcode)?;
            (!fp.flags(op).contains(OpFlags::PRECISE)).then_some((d, legacy))
        })
        .collect();
    for &(d, legacy) in &relaxed {
        let mut op = m.op(d).clone();
        op.opcode = legacy;
        m.rewrite(d, op);
    }
    Ok(!relaxed.is_empty())
}

/// The D3D9 legacy counterpart of an IEEE multiply or dot product.
fn legacy_form(op: OpCode) -> Option<OpCode> {
    Some(match op {
        OpCode::FMul => OpCode::FMulLegacy,
        OpCode::FMad => OpCode::FMadLegacy,
        OpCode::FDot => OpCode::FDotLegacy,
        OpCode::FDotAdd => OpCode::FDotAddLegacy,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use irc_arith::{Scalar, Value};
    use irc_interp::{run as interp, InvocationInputs, IoSlot, RunConfig, ShaderInputs};

    const SRC: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0
%3 = f32x4 DclInput %1 1 0
%4 = f32x4 DclOutput %1 0 0
%5 = f32 DclOutput %1 1 0
%6 = f32x4 DclOutput %1 2 0

%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32x4 InputLoad %3 null
  %24 = f32x4 FMul %22 %23
  %25 = OutputStore %4 null %24
  %26 = f32 FDot %22 %23
  %27 = OutputStore %5 null %26
  %28 = [precise] f32x4 FMul %22 %23
  %29 = OutputStore %6 null %28
  %30 = Return
%31 = FunctionEnd
";

    fn relaxed(on: bool) -> Module {
        let mut m = irc_ir::text::parse(SRC).unwrap();
        let cx = PassContext {
            ieee_mul_legacy: on,
            ..Default::default()
        };
        assert_eq!(run(&mut m, &cx).unwrap(), on);
        irc_ir::verifier::verify(&m).unwrap();
        m
    }

    fn vec4(v: [f32; 4]) -> Value {
        Value::from_components(v.iter().map(|&x| Scalar::F32(x)).collect())
    }

    fn slot(location: u32) -> IoSlot {
        IoSlot::Location {
            location,
            component: 0,
        }
    }

    /// Output `location` of `m` run on `a`, `b`, as f32 components.
    fn output(m: &Module, a: [f32; 4], b: [f32; 4], location: u32) -> Vec<f32> {
        let mut inputs = ShaderInputs::default();
        let mut inv = InvocationInputs::default();
        inv.io.insert(slot(0), vec4(a));
        inv.io.insert(slot(1), vec4(b));
        inputs.invocations.push(inv);
        let out = interp(m, &inputs, &RunConfig::default()).unwrap();
        out.invocations[0].io[&slot(location)]
            .components()
            .unwrap()
            .iter()
            .map(|c| c.as_f32())
            .collect()
    }

    #[test]
    fn relaxed_products_follow_d3d9_rules_and_precise_ones_stay_ieee() {
        let before = relaxed(false);
        let after = relaxed(true);
        let opcodes: Vec<OpCode> = after.code().map(|d| after.opcode(d)).collect();
        assert!(opcodes.contains(&OpCode::FMulLegacy) && opcodes.contains(&OpCode::FDotLegacy));
        assert!(
            opcodes.contains(&OpCode::FMul),
            "the precise multiply stays IEEE"
        );
        // 0 · inf: NaN under IEEE, 0 under the D3D9 rule (the relaxed module's oracle).
        let (a, b) = ([0.0, 2.0, 1.0, 1.0], [f32::INFINITY, 3.0, 1.0, 1.0]);
        let ieee = output(&before, a, b, 0);
        assert!(ieee[0].is_nan() && ieee[1] == 6.0, "{ieee:?}");
        assert_eq!(output(&after, a, b, 0), vec![0.0, 6.0, 1.0, 1.0]);
        assert!(output(&before, a, b, 1)[0].is_nan());
        assert_eq!(output(&after, a, b, 1), vec![8.0]);
        assert!(output(&after, a, b, 2)[0].is_nan(), "precise: IEEE");
        // Without a zero times an infinity, both agree.
        let (a, b) = ([0.5, -2.0, 0.0, 4.0], [3.0, 0.25, -7.0, 1.5]);
        for location in 0..3 {
            assert_eq!(
                output(&before, a, b, location),
                output(&after, a, b, location)
            );
        }
    }
}
