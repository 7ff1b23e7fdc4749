//! What the shared passes need to know about the PICA200 shader unit.

use irc_backend::TargetCaps;
use irc_ir::OpCode;

/// PICA200: D3D9-style multiplies (0 × anything = 0) and DP3/DP4/DPH natively, float24
/// arithmetic, loops and branches, no integers, no indexable temporaries; vec4 registers; DP3
/// and DP4 are single instructions, so a dot product pays from 3 products. If-conversion only
/// for the tiniest arms (2 ops): an exact float select of a merged value costs up to 13 words
/// (NaN-safe blend), while a branch costs a CMP and an IFC and copies that usually coalesce.
pub const CAPS: TargetCaps = TargetCaps {
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
    vectorize: true,
    min_dot_terms: 3,
    if_convert_limit: 2,
    select_cost: 0,
    trig: false,
    fp16_arithmetic: false,
};
