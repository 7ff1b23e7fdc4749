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
    select_cost: 6,
    trig: true,
    fp16_arithmetic: false,
};

/// The capabilities the `agal-fp`/`agal-vp` pipeline runs with: [`CAPS`], except that the
/// selections `if-convert` leaves are lowered by the code generator, which can run them in
/// every version: predicated (`lower::flow`: straight-line code with exact selects, as
/// `if-convert` would give) and, for AGAL 2 and 3, also as conditionals (`lower::branch`),
/// keeping the shorter program. So only selections that are no dearer as straight-line code
/// than as a conditional are converted: an exact select is at least six instructions
/// (`select_cost`), a conditional two (`ife`/`ine`/`ifl` and `eif`: `if_convert_limit`),
/// and the arms' ops are the same either way.
pub const PIPELINE_CAPS: TargetCaps = TargetCaps {
    branches: true,
    if_convert_limit: 2,
    select_cost: 6,
    trig: true,
    fp16_arithmetic: false,
    ..CAPS
};
