//! `irc-pica`: the PICA200 (Nintendo 3DS) backend of irc.
//!
//! So far this crate holds what the shared passes need to know about the PICA200 shader unit,
//! [`CAPS`], and the "reference side" of the `pica-vs` / `pica-gs` targets — everything that
//! must not depend on the code generator, so that the two cannot share mistakes:
//!
//! * [`isa`] — THE table: every instruction format (§4) as a `layout!`, every opcode (§3) with
//!   its format and class, the operand descriptor (§5), register encodings (§6), conditions
//!   (§8), limits (§2, §11). Encoder, decoder and tests read bit positions from here only.
//! * [`instr`] — the structured instruction [`instr::Instr`] (operands inline: register,
//!   swizzle, negation, mask, relative index).
//! * [`encode`] (instructions → words + picasso-style de-duplicated operand descriptors) and,
//!   written separately, [`decode`] (words + descriptors → instructions; never panics, errors
//!   carry the word offset).
//! * [`disasm`] / [`asm`] — picasso syntax (§14): `.proc`, blocks, labels, aliases, uniforms,
//!   constants, `.in`/`.out`/`.gsh`, automatic NOPs (§9); assemble ∘ disassemble reproduces the
//!   words and descriptors.
//! * [`shbin`] — the SHBIN container (DVLB/DVLP/DVLE, §13) reader and writer, laid out as
//!   picasso does and as libctru reads it.
//! * [`float24`] and [`sim`] — a float24 (or exact f32) simulator of vertex and geometry
//!   shaders with the flow-control stacks, relative addressing, EMIT/SETEMIT and the hardware
//!   errata as errors; [`sim_io`] puts it behind the generic [`irc_backend::Simulator`].
//!
//! The target itself (lowering, descriptor and register allocation, the `Target` impl) is not
//! built yet and nothing is registered. Section numbers (§n) refer to
//! `shared/reference/pica.md`.

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
