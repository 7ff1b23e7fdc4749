//! What the Mali-200/400 vertex processor executes natively, for the shared passes.

use irc_backend::TargetCaps;
use irc_ir::OpCode;

/// Mali-200/400 GP: a scalar VLIW machine (every vector op becomes one op per component, so
/// vectorizing does not pay and dot products are multiply/add chains), IEEE multiplies, fp32,
/// no integers, no indexable temporaries. Branches and loops are lowered (blocks with pinned
/// registers across them, [`super::lower`]); forwarding stops at block boundaries, so the
/// pipeline still if-converts every selection it can (no limit) and unrolls per its cost model.
pub const CAPS: TargetCaps = TargetCaps {
    name: "lima-vp",
    native: &[OpCode::FClamp],
    float16: false,
    int16: false,
    indexable_scratch: false,
    integers: false,
    branches: true,
    loops: true,
    vectorize: false,
    min_dot_terms: u8::MAX,
    if_convert_limit: u16::MAX,
    select_cost: 0,
    trig: false,
    fp16_arithmetic: false,
};
