//! Facts about the IR's comparison opcodes shared by the passes and the backends.

use irc_ir::OpCode;

/// The comparison that is true exactly when `op` is false, and whether that holds only for
/// non-NaN operands (the ordered float comparisons; `FEq`/`FNe` swap always, `FNe` being
/// unordered).
pub fn inverse(op: OpCode) -> Option<(OpCode, bool)> {
    Some(match op {
        OpCode::IEq => (OpCode::INe, false),
        OpCode::INe => (OpCode::IEq, false),
        OpCode::BEq => (OpCode::BNe, false),
        OpCode::BNe => (OpCode::BEq, false),
        OpCode::SLt => (OpCode::SGe, false),
        OpCode::SGe => (OpCode::SLt, false),
        OpCode::SLe => (OpCode::SGt, false),
        OpCode::SGt => (OpCode::SLe, false),
        OpCode::ULt => (OpCode::UGe, false),
        OpCode::UGe => (OpCode::ULt, false),
        OpCode::ULe => (OpCode::UGt, false),
        OpCode::UGt => (OpCode::ULe, false),
        OpCode::FEq => (OpCode::FNe, false),
        OpCode::FNe => (OpCode::FEq, false),
        OpCode::FLt => (OpCode::FGe, true),
        OpCode::FGe => (OpCode::FLt, true),
        OpCode::FLe => (OpCode::FGt, true),
        OpCode::FGt => (OpCode::FLe, true),
        _ => return None,
    })
}
