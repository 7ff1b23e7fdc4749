//! What the shared passes need to know about AGAL: [`CAPS`].

use irc_backend::TargetCaps;
use irc_ir::OpCode;

/// AGAL version 1 (the common denominator): dp3/dp4, IEEE multiplies, no integers, no
/// indexable temporaries, no branches or loops; vec4 registers; dp3/dp4 are single
/// instructions, so a dot product pays from 3 products.
pub const CAPS: TargetCaps = TargetCaps {
    name: "agal",
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
};

/// The capabilities the `agal-fp`/`agal-vp` pipeline runs with: [`CAPS`], except that a
/// selection `if-convert` cannot turn into selects (an arm holding `Demote`) is left to the
/// code generator, which predicates it (`lower::flow`), instead of stopping the pipeline; every
/// other selection is still converted, whatever its size (`if_convert_limit` unbounded).
pub const PIPELINE_CAPS: TargetCaps = TargetCaps {
    branches: true,
    if_convert_limit: u16::MAX,
    ..CAPS
};
