//! The `clamp` mode of `lower-legacy`: D3D9 legacy multiplies the way DXVK compiles them by
//! default.
//!
//! DXVK's D3D9 float emulation has three settings (`d3d9.floatEmulation`): `Strict` gives the
//! exact legacy multiply (what `exact` does here), `Disabled` plain IEEE (`ieee` here), and
//! `Enabled`, its default on drivers without a native legacy multiply, which dxbc-spirv's SM1–3
//! front end calls "fast float emulation" (`sm3::Converter::Options::fastFloatEmulation`):
//! every `mul`, `mad`, `dp2add`/`dp3`/`dp4`, `pow` and `nrm` multiplies the IEEE way, and the
//! results of `rcp`, `rsq` and `exp` (and the reciprocal length inside `nrm`) go through
//! `min(x, FLT_MAX)`, those of `log`/`logp` through `max(x, −FLT_MAX)`. An infinity made by
//! the shader itself so never meets a zero factor; `0 · inf` and `0 · NaN` from inputs,
//! uniforms or overflowing arithmetic still give NaN.
//!
//! On IR from the exact front end (legacy ops), the `clamp` mode reproduces that:
//! - the legacy products become IEEE ones, as under `ieee` (`lower-legacy`);
//! - in a module with a legacy op (a D3D9 shader: SM4+ shaders never have one), every
//!   `FRcp`, `FRsq` and `FExp2` result is limited to the largest finite value of its type
//!   (`FMin`, which also turns NaN into that value, like DXVK's `NMin`);
//! - `FLog2Legacy` keeps its exact lowering (`−MAX` for 0, as DXVK's clamp gives; the two
//!   differ only for a NaN operand, which DXVK leaves to the driver).
//!
//! The interpreter evaluates the same semantics directly under
//! `irc_interp::RunConfig::legacy_clamp`: that is this mode's oracle.

use crate::caps::PassContext;
use crate::lower_legacy::{float_const, scalar_of};
use irc_arith::float::max_finite;
use irc_ir::{Attrs, Module, Op, OpCode, SsaDef};

/// Whether `m` has an op of the `legacy` class.
pub(crate) fn has_legacy_ops(m: &Module) -> bool {
    // Legacy ops are code: the opcode counts answer without a walk.
    m.contains_where(|op| op.info().attrs.contains(Attrs::LEGACY))
}

/// Limits every `FRcp`, `FRsq` and `FExp2` result of `m` to the largest finite value of its
/// type, if `m` is a D3D9 shader: it had a legacy op when the pipeline started
/// ([`PassContext::legacy_shader`]), or, run on its own, has one (see the module doc). Returns
/// whether `m` changed.
pub(crate) fn clamp_results(m: &mut Module, cx: &PassContext) -> bool {
    if !cx.legacy_shader.unwrap_or_else(|| has_legacy_ops(m)) {
        return false;
    }
    let work: Vec<SsaDef> = m
        .code()
        .filter(|&d| matches!(m.opcode(d), OpCode::FRcp | OpCode::FRsq | OpCode::FExp2))
        .collect();
    for &d in &work {
        let op = m.op(d).clone();
        let ty = op.ty.clone();
        let max = float_const(m, &ty, max_finite(scalar_of(&ty)));
        // The op moves to a new id before `d`; `d` (and its uses) becomes the clamp.
        let r = m.insert_before(d, op);
        m.rewrite(d, Op::new(OpCode::FMin, ty).arg(r).arg(max));
    }
    !work.is_empty()
}

#[cfg(test)]
mod tests {
    use crate::caps::{PassContext, TargetCaps};
    use crate::lower_legacy::test_util::{check_same_under, float_fn_module, lowered, op_module};
    use irc_interp::{InvocationInputs, IoSlot, RunConfig, ShaderInputs, Value};
    use irc_ir::{text, Module, OpCode, ScalarType};

    fn clamp_cx(caps: TargetCaps) -> PassContext {
        PassContext {
            caps,
            legacy_mul_clamp: true,
            ..Default::default()
        }
    }

    fn lower(m: &Module, caps: TargetCaps) -> Module {
        lowered(m, &clamp_cx(caps))
    }

    fn oracle() -> RunConfig {
        RunConfig {
            legacy_clamp: true,
            ..Default::default()
        }
    }

    /// A D3D9-like vertex shader: `o0 = FMulLegacy(v0, FRcp(v1))`, `o1 = FRsq(v0)`,
    /// `o2 = FExp2(v1)`, `o3 = FMadLegacy(v0, FExp2(v0), v1)`; without `legacy`, `o0` is a plain
    /// `FMul` (a module with no legacy op, where nothing is clamped).
    fn d3d9_module(legacy: bool) -> Module {
        let (mul, mad) = if legacy {
            ("FMulLegacy", "FMadLegacy")
        } else {
            ("FMul", "FMad")
        };
        let s = format!(
            "%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%3 = f32 DclInput %1 1 0
%4 = f32 DclOutput %1 0 0
%5 = f32 DclOutput %1 1 0
%6 = f32 DclOutput %1 2 0
%7 = f32 DclOutput %1 3 0
%20 = Function
%21 = Label None
%22 = f32 InputLoad %2 null
%23 = f32 InputLoad %3 null
%24 = f32 FRcp %23
%25 = f32 {mul} %22 %24
%26 = OutputStore %4 null %25
%27 = f32 FRsq %22
%28 = OutputStore %5 null %27
%29 = f32 FExp2 %23
%30 = OutputStore %6 null %29
%31 = f32 FExp2 %22
%32 = f32 {mad} %22 %31 %23
%33 = OutputStore %7 null %32
%34 = Return
%35 = FunctionEnd
"
        );
        text::parse(&s).unwrap_or_else(|e| panic!("{e}\n{s}"))
    }

    /// Outputs `o0..o3` of `m` on inputs `v0 = a`, `v1 = b`.
    fn outputs(m: &Module, a: f32, b: f32, cfg: &RunConfig) -> Vec<f32> {
        let mut inv = InvocationInputs::default();
        for (i, v) in [a, b].into_iter().enumerate() {
            inv.io.insert(
                IoSlot::Location {
                    location: i as u32,
                    component: 0,
                },
                Value::f32(v),
            );
        }
        let inputs = ShaderInputs {
            invocations: vec![inv],
            ..Default::default()
        };
        let out = irc_interp::run(m, &inputs, cfg).expect("run");
        (0..4)
            .map(|l| {
                let v = &out.invocations[0].io[&IoSlot::Location {
                    location: l,
                    component: 0,
                }];
                f32::from_bits(v.components().unwrap()[0].bits() as u32)
            })
            .collect()
    }

    #[test]
    fn clamp_mode_matches_its_oracle_on_every_target() {
        let caps = [
            TargetCaps::DEFAULT,
            crate::caps::test_profiles::LIMA_LIKE,
            crate::caps::test_profiles::AGAL_LIKE,
        ];
        for caps in caps {
            for (opcode, n) in [
                (OpCode::FMulLegacy, 2),
                (OpCode::FMadLegacy, 3),
                (OpCode::FPowLegacy, 2),
                (OpCode::FLog2Legacy, 1),
            ] {
                for (s, vec) in [(ScalarType::F32, 1), (ScalarType::F32, 4)] {
                    let m = float_fn_module(opcode, s, vec, n);
                    let what = format!("{opcode} {s}x{vec} on {}", caps.name);
                    check_same_under(&m, &lower(&m, caps.clone()), &what, &oracle());
                }
            }
            for (opcode, args) in [
                (OpCode::FDotLegacy, vec!["f32x3", "f32x3"]),
                (OpCode::FDotAddLegacy, vec!["f32x4", "f32x4", "f32"]),
            ] {
                let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
                let m = op_module(opcode, &args, "f32");
                let what = format!("{opcode} on {}", caps.name);
                check_same_under(&m, &lower(&m, caps.clone()), &what, &oracle());
            }
            for legacy in [true, false] {
                let m = d3d9_module(legacy);
                let what = format!("rcp/rsq/exp (legacy {legacy}) on {}", caps.name);
                check_same_under(&m, &lower(&m, caps.clone()), &what, &oracle());
            }
        }
    }

    /// Hand-worked, `(v0, v1) → (o0, o1, o2, o3)` = `(v0 · rcp v1, rsq v0, exp2 v1,
    /// v0 · exp2 v0 + v1)`:
    /// - `(0, 0)`: rcp(0) = inf is clamped to FLT_MAX, so 0 · MAX = 0 (DXVK's point); rsq(0) =
    ///   inf → MAX; exp2(0) = 1; 0 · 1 + 0 = 0;
    /// - `(0, 200)`: exp2(200) overflows to inf → MAX; 0 · 1 + 200 = 200;
    /// - `(4, 0.5)`: 4 · 2 = 8, 1/√4 = 0.5, √2, 4 · 16 + 0.5 = 64.5;
    /// - `(0, inf)`: rcp(inf) = 0, exp2(inf) = inf → MAX, 0 · 1 + inf = inf;
    /// - `(NaN, 1)`: NaN · 1 = NaN, rsq(NaN) = NaN → MAX (FMin ignores NaN, like DXVK's NMin);
    /// - `0 · inf` with the inf from an input is NaN (the deviation from exact D3D9).
    #[test]
    fn hand_worked_values() {
        let max = f32::MAX;
        let m = lower(&d3d9_module(true), crate::caps::test_profiles::LIMA_LIKE);
        let cfg = RunConfig::default();
        assert_eq!(outputs(&m, 0.0, 0.0, &cfg), [0.0, max, 1.0, 0.0]);
        assert_eq!(outputs(&m, 0.0, 200.0, &cfg), [0.0, max, max, 200.0]);
        assert_eq!(outputs(&m, 4.0, 0.5, &cfg), [8.0, 0.5, 2f32.sqrt(), 64.5]);
        assert_eq!(
            outputs(&m, 0.0, f32::INFINITY, &cfg),
            [0.0, max, max, f32::INFINITY]
        );
        // exp2(NaN) = NaN → MAX (FMin ignores NaN, like DXVK's NMin); rsq(NaN) too.
        let o = outputs(&m, f32::NAN, 1.0, &cfg);
        assert!(o[0].is_nan(), "NaN · rcp(1) = NaN: {o:?}");
        assert_eq!(o[1], max);
        // The oracle agrees on the raw module.
        let raw = d3d9_module(true);
        assert_eq!(outputs(&raw, 0.0, 0.0, &oracle()), [0.0, max, 1.0, 0.0]);
        // Exact D3D9 keeps inf (0 · inf = 0 by the legacy rule instead).
        assert_eq!(
            outputs(&raw, 0.0, 0.0, &RunConfig::default()),
            [0.0, f32::INFINITY, 1.0, 0.0]
        );
        // 0 · inf where the inf is an input is NaN under the clamp mode (not exact).
        let mul = lower(
            &float_fn_module(OpCode::FMulLegacy, ScalarType::F32, 1, 2),
            crate::caps::test_profiles::LIMA_LIKE,
        );
        let mut inv = InvocationInputs::default();
        for (i, v) in [0.0, f32::INFINITY].into_iter().enumerate() {
            inv.io.insert(
                IoSlot::Location {
                    location: i as u32,
                    component: 0,
                },
                Value::f32(v),
            );
        }
        let inputs = ShaderInputs {
            invocations: vec![inv],
            ..Default::default()
        };
        let out = irc_interp::run(&mul, &inputs, &cfg).unwrap();
        let v = &out.invocations[0].io[&IoSlot::Location {
            location: 0,
            component: 0,
        }];
        assert!(f32::from_bits(v.components().unwrap()[0].bits() as u32).is_nan());
        // Without a legacy op nothing is clamped: rcp(0) stays inf.
        let plain = lower(&d3d9_module(false), crate::caps::test_profiles::LIMA_LIKE);
        assert_eq!(outputs(&plain, 1.0, 0.0, &cfg)[0], f32::INFINITY);
    }
}
