//! `irc-pica`: the PICA200 (Nintendo 3DS) backend of irc.
//!
//! So far this crate holds what the shared passes need to know about the PICA200 shader unit,
//! [`CAPS`], so that `irc opt --pipeline opt:pica` and the `legalize:pica` / `opt:pica` corpus
//! checks prepare IR the way the code generator will want it. The `pica-vs` / `pica-gs`
//! targets (lowering, operand descriptors, SHBIN, simulator) are not built yet and are not
//! registered; see `shared/reference/pica.md` for the facts they will follow.

pub mod asm;
pub mod decode;
pub mod disasm;
pub mod encode;
pub mod float24;
pub mod instr;
pub mod isa;
pub mod shbin;
pub mod sim;
pub mod sim_io;

use irc_backend::TargetCaps;
use irc_ir::OpCode;

/// PICA200: D3D9-style multiplies (0 × anything = 0) and DP3/DP4/DPH natively, float24
/// arithmetic, loops and branches, no integers, no indexable temporaries; vec4 registers; DP3
/// and DP4 are single instructions, so a dot product pays from 3 products; a branch costs a
/// pipeline flush, so if-conversion takes up to 16 ops.
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
    if_convert_limit: 16,
};
