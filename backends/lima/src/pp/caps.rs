//! What the Mali-200/400 fragment processor executes natively, for the shared passes.

use irc_backend::TargetCaps;
use irc_ir::OpCode;

/// Mali-200/400 PP: dot products (`sum3`/`sum4` fed by the vector multiplier), IEEE
/// multiplies, fp16 arithmetic on fp32-typed IR (no 16-bit IR types), branches and loops, no
/// integers, no indexable temporaries; vec4 registers (vectorization pays); a dot product
/// pays from 4 products (shorter chains run on the scalar multiply and add units in
/// parallel); a branch costs a pipeline flush, so if-conversion takes up to 16 ops.
pub const CAPS: TargetCaps = TargetCaps {
    name: "lima-fp",
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
    fp16_arithmetic: true,
};
