//! What a target executes natively, which decides what the shared passes lower.
//!
//! dxbc-spirv lowers D3D9 legacy multiplies and dot products for SPIR-V, which has neither.
//! Our targets differ: the PICA200 multiplies with D3D9 rules natively and has DP3/DP4/DPH,
//! AGAL and Lima have dot products but IEEE multiplies. A target family declares its
//! capabilities here and the legalization pipeline lowers only what is missing.

use crate::legacy_state::LegacyState;
use irc_ir::OpCode;

/// Capabilities of a target family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetCaps {
    /// Family name (`default`, `lima`, `pica`, `agal`).
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
}

impl TargetCaps {
    /// True if `op` is executed natively (and so must not be lowered).
    pub fn is_native(&self, op: OpCode) -> bool {
        self.native.contains(&op)
    }

    /// dxbc-spirv's own choices (`legalizeIr` with default options): everything lowered.
    pub const DEFAULT: TargetCaps = TargetCaps {
        name: "default",
        native: &[OpCode::FClamp],
        float16: true,
        int16: true,
        indexable_scratch: true,
        integers: true,
        branches: true,
        loops: true,
    };

    /// Mali-200/400 (PP and GP): dot products (sum3/sum4, GP dot), IEEE multiplies, fp16/fp32
    /// only, branches and loops, no integers, no indexable temporaries on PP.
    pub const LIMA: TargetCaps = TargetCaps {
        name: "lima",
        native: &[OpCode::FDot, OpCode::FDotAdd, OpCode::FClamp],
        float16: false,
        int16: false,
        indexable_scratch: false,
        integers: false,
        branches: true,
        loops: true,
    };

    /// PICA200: D3D9-style multiplies (0 × anything = 0) and DP3/DP4/DPH natively, float24
    /// arithmetic, loops and branches, no integers, no indexable temporaries.
    pub const PICA: TargetCaps = TargetCaps {
        name: "pica",
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
    };

    /// AGAL: dp3/dp4, IEEE multiplies, no integers, no indexable temporaries; branches only
    /// from version 2, loops never.
    pub const AGAL: TargetCaps = TargetCaps {
        name: "agal",
        native: &[OpCode::FDot, OpCode::FClamp],
        float16: false,
        int16: false,
        indexable_scratch: false,
        integers: false,
        branches: false,
        loops: false,
    };

    /// The family of a target or family name (`lima-fp` → lima, `pica-vs` → pica, …).
    pub fn for_target(name: &str) -> Option<TargetCaps> {
        let family = name.split('-').next().unwrap_or(name);
        [Self::DEFAULT, Self::LIMA, Self::PICA, Self::AGAL]
            .into_iter()
            .find(|c| c.name == family)
    }
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
}

impl Default for PassContext {
    fn default() -> Self {
        PassContext {
            caps: TargetCaps::DEFAULT,
            opt_level: 2,
            legacy_state: LegacyState::default(),
            legacy_mul_ieee: false,
        }
    }
}
