//! What a target executes natively, which decides what the shared passes lower.
//!
//! dxbc-spirv lowers D3D9 legacy multiplies and dot products for SPIR-V, which has neither.
//! Our targets differ: the PICA200 multiplies with D3D9 rules natively and has DP3/DP4/DPH,
//! AGAL and Lima have dot products but IEEE multiplies. Each target declares its
//! capabilities (a [`TargetCaps`] value in its own crate) and the legalization pipeline
//! lowers only what is missing.

use crate::legacy_state::LegacyState;
use irc_ir::analysis::Analyses;
use irc_ir::OpCode;

/// Capabilities of a target: what it executes natively, and the cost facts the optimizer's
/// target-dependent choices read. Each target declares its own value (`Target::caps`); the
/// passes read only these fields, never a target's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetCaps {
    /// The target (or profile) name, for messages only: nothing decides by it.
    pub name: &'static str,
    /// Ops executed natively that the default pipeline would lower: any of `FMulLegacy`,
    /// `FMadLegacy`, `FDot`, `FDotLegacy`, `FDotAdd`, `FDotAddLegacy`, `FPowLegacy`,
    /// `FLog2Legacy`, `FClamp`, `UMSad`.
    pub native: &'static [OpCode],
    /// 16-bit float and integer types exist (else min-precision types become 32-bit).
    pub float16: bool,
    pub int16: bool,
    /// Indexable temporary memory exists (else scratch arrays become registers or selects).
    pub indexable_scratch: bool,
    /// Integer arithmetic exists (else integers must map to floats).
    pub integers: bool,
    /// Branches and loops exist.
    pub branches: bool,
    pub loops: bool,
    /// Registers are vec4 and ops work on several lanes at once: `-O2` vectorizes.
    pub vectorize: bool,
    /// Fewest products a multiply-add chain needs to become a native dot product (a VLIW
    /// machine runs short chains on its scalar units in parallel; a machine with single
    /// DP3/DP4 instructions gains from 3).
    pub min_dot_terms: u8,
    /// Ops both arms of a selection may hold together for if-conversion where the target has
    /// branches (more where branches are slow); unlimited where it has none.
    pub if_convert_limit: u16,
    /// What one `Select` costs, in the ops `if_convert_limit` counts: each phi of a selection's
    /// merge becomes one, so it adds this to the selection's cost. 0 where a select is no
    /// dearer than the branch it replaces (one instruction); more where selects are sequences
    /// (AGAL has none: an exact select is at least six instructions).
    pub select_cost: u16,
    /// `FSin` and `FCos` run natively (else `lower-trig` makes them polynomial arithmetic).
    pub trig: bool,
    /// Float arithmetic, registers, uniforms and constants are fp16 whatever the IR's types
    /// say (the Mali-400 PP): the largest finite value is 65504, which bounds the factors of
    /// `legacy-mul=finite` (`crate::legacy_finite`).
    pub fp16_arithmetic: bool,
}

impl TargetCaps {
    /// True if `op` is executed natively (and so must not be lowered).
    pub fn is_native(&self, op: OpCode) -> bool {
        self.native.contains(&op)
    }

    /// dxbc-spirv's own choices (`legalizeIr` with default options): everything lowered; the
    /// profile of the SPIR-V writer and of `irc opt` without a target.
    pub const DEFAULT: TargetCaps = TargetCaps {
        name: "default",
        native: &[OpCode::FClamp],
        float16: true,
        int16: true,
        indexable_scratch: true,
        integers: true,
        branches: true,
        loops: true,
        vectorize: false,
        min_dot_terms: 2,
        if_convert_limit: 8,
        select_cost: 0,
        trig: true,
        fp16_arithmetic: false,
    };
}

/// Capability profiles shaped like the real targets', for the passes' own unit tests (the
/// real values are each target's `Target::caps`; the registry lists them).
#[cfg(test)]
pub(crate) mod test_profiles {
    use super::*;

    /// Like Mali-400 PP: dot products, IEEE multiplies, fp32 only, branches and loops.
    pub const LIMA_LIKE: TargetCaps = TargetCaps {
        name: "lima-like",
        native: &[OpCode::FDot, OpCode::FDotAdd, OpCode::FClamp],
        float16: false,
        int16: false,
        indexable_scratch: false,
        integers: false,
        branches: true,
        loops: true,
        vectorize: true,
        min_dot_terms: 4,
        if_convert_limit: 16,
        select_cost: 0,
        trig: true,
        fp16_arithmetic: false,
    };
    /// Like PICA200: D3D9 multiplies and dot products natively.
    pub const PICA_LIKE: TargetCaps = TargetCaps {
        name: "pica-like",
        native: &[
            OpCode::FMulLegacy,
            OpCode::FMadLegacy,
            OpCode::FDotLegacy,
            OpCode::FDotAddLegacy,
            OpCode::FClamp,
        ],
        float16: false,
        int16: false,
        indexable_scratch: false,
        integers: false,
        branches: true,
        loops: true,
        vectorize: true,
        min_dot_terms: 3,
        if_convert_limit: 16,
        select_cost: 0,
        trig: true,
        fp16_arithmetic: false,
    };
    /// Like AGAL version 1: no branches, no loops.
    pub const AGAL_LIKE: TargetCaps = TargetCaps {
        name: "agal-like",
        native: &[OpCode::FDot, OpCode::FClamp],
        float16: false,
        int16: false,
        indexable_scratch: false,
        integers: false,
        branches: false,
        loops: false,
        vectorize: true,
        min_dot_terms: 3,
        if_convert_limit: 8,
        select_cost: 0,
        trig: true,
        fp16_arithmetic: false,
    };
}

/// What every pass gets besides the module.
#[derive(Clone, Debug)]
pub struct PassContext {
    pub caps: TargetCaps,
    /// Optimization level of the `opt` pipeline: 0, 1 or 2.
    pub opt_level: u8,
    /// The D3D9 fixed-function state `legacy-state` specializes the shader for.
    pub legacy_state: LegacyState,
    /// Lower D3D9 legacy multiplies (and legacy dot products) to plain IEEE multiplies instead
    /// of the exact select pattern (`lower-legacy`); differs only for `0 · inf` and `0 · NaN`.
    pub legacy_mul_ieee: bool,
    /// Lower them the way DXVK's default D3D9 float emulation does (`legacy-mul=clamp`,
    /// `legacy_clamp`): IEEE products, and `FRcp`/`FRsq`/`FExp2` results of D3D9 shaders
    /// limited to the largest finite value.
    pub legacy_mul_clamp: bool,
    /// Whether the module is a D3D9 shader (it has an op of the legacy class) as the pipeline
    /// received it, before any pass could remove code: what decides `legacy-mul=clamp`'s
    /// limits on `FRcp`/`FRsq`/`FExp2`, as its oracle decides on the raw module. Set by
    /// [`crate::pipelines::run`]; `None` (a pass run on its own): the module at hand decides.
    pub legacy_shader: Option<bool>,
    /// Lower them with factors limited to the finite range (`legacy-mul=finite`,
    /// [`crate::legacy_finite`]): `0 · x = 0` for every `x`, inf and NaN included, with vector
    /// min/max instead of per-lane selects.
    pub legacy_mul_finite: bool,
    /// Compile IEEE multiplies that are not `Precise` as D3D9 legacy ones (`relax-ieee-mul`),
    /// for targets that multiply only that way and a user who accepts `0 · inf = 0`.
    pub ieee_mul_legacy: bool,
    /// CFGs and dominator trees kept from pass to pass while they hold (a cache: a copy of
    /// the context starts without).
    pub analyses: Analyses,
}

impl PassContext {
    /// Whether legacy products become plain IEEE ones (`ieee` and `clamp` modes).
    pub fn ieee_products(&self) -> bool {
        self.legacy_mul_ieee || self.legacy_mul_clamp
    }
}

impl Default for PassContext {
    fn default() -> Self {
        PassContext {
            caps: TargetCaps::DEFAULT,
            opt_level: 2,
            legacy_state: LegacyState::default(),
            legacy_mul_ieee: false,
            legacy_mul_clamp: false,
            legacy_shader: None,
            legacy_mul_finite: false,
            ieee_mul_legacy: false,
            analyses: Analyses::new(),
        }
    }
}
