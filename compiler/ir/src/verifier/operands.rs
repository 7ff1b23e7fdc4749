//! Operand shape: counts, literal positions, live references defined before use (except the
//! allowed forward references), and the kind of op each reference position expects.
//!
//! Ops that fail any of these checks are marked bad, so that later checks (types, control flow)
//! can index their operands without re-checking.

use super::Ctx;
use crate::entities::SsaDef;
use crate::module::Module;
use crate::op::Operand;
use crate::opcode::OpCode;

/// What a reference operand must point to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Any live op (debug names).
    Any,
    /// A value: an op with a result usable as an SSA value.
    Value,
    /// A `Constant` op.
    Constant,
    EntryPoint,
    Function,
    Label,
    DclParam,
    DclTmp,
    DclScratch,
    DclLds,
    DclPushData,
    DclUav,
    /// `DclInput` or `DclInputBuiltIn`.
    Input,
    /// `DclOutput` or `DclOutputBuiltIn`.
    Output,
    /// `DclInput*` or `DclOutput*`.
    InputOrOutput,
    /// A resource declaration a `DescriptorLoad` can load from.
    Resource,
    Pointer,
    ScopedIf,
    ScopedEndIf,
    ScopedLoop,
    ScopedEndLoop,
    ScopedSwitch,
    ScopedEndSwitch,
}

impl Kind {
    fn accepts(self, m: &Module, d: SsaDef) -> bool {
        use OpCode as O;
        let o = m.opcode(d);
        match self {
            Kind::Any => true,
            Kind::Value => is_value(m, d),
            Kind::Constant => o == O::Constant,
            Kind::EntryPoint => o == O::EntryPoint,
            Kind::Function => o == O::Function,
            Kind::Label => o == O::Label,
            Kind::DclParam => o == O::DclParam,
            Kind::DclTmp => o == O::DclTmp,
            Kind::DclScratch => o == O::DclScratch,
            Kind::DclLds => o == O::DclLds,
            Kind::DclPushData => o == O::DclPushData,
            Kind::DclUav => o == O::DclUav,
            Kind::Input => matches!(o, O::DclInput | O::DclInputBuiltIn),
            Kind::Output => matches!(o, O::DclOutput | O::DclOutputBuiltIn),
            Kind::InputOrOutput => {
                matches!(
                    o,
                    O::DclInput | O::DclInputBuiltIn | O::DclOutput | O::DclOutputBuiltIn
                )
            }
            Kind::Resource => o.is_declarative() && o.is(crate::opcode::Attrs::RESOURCE),
            Kind::Pointer => o == O::Pointer,
            Kind::ScopedIf => o == O::ScopedIf,
            Kind::ScopedEndIf => o == O::ScopedEndIf,
            Kind::ScopedLoop => o == O::ScopedLoop,
            Kind::ScopedEndLoop => o == O::ScopedEndLoop,
            Kind::ScopedSwitch => o == O::ScopedSwitch,
            Kind::ScopedEndSwitch => o == O::ScopedEndSwitch,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Kind::Any => "an op",
            Kind::Value => "a value",
            Kind::Constant => "a Constant",
            Kind::EntryPoint => "the EntryPoint",
            Kind::Function => "a Function",
            Kind::Label => "a Label",
            Kind::DclParam => "a DclParam",
            Kind::DclTmp => "a DclTmp",
            Kind::DclScratch => "a DclScratch",
            Kind::DclLds => "a DclLds",
            Kind::DclPushData => "a DclPushData",
            Kind::DclUav => "a DclUav",
            Kind::Input => "a DclInput or DclInputBuiltIn",
            Kind::Output => "a DclOutput or DclOutputBuiltIn",
            Kind::InputOrOutput => "an input or output declaration",
            Kind::Resource => "a resource declaration",
            Kind::Pointer => "a Pointer",
            Kind::ScopedIf => "a ScopedIf",
            Kind::ScopedEndIf => "a ScopedEndIf",
            Kind::ScopedLoop => "a ScopedLoop",
            Kind::ScopedEndLoop => "a ScopedEndLoop",
            Kind::ScopedSwitch => "a ScopedSwitch",
            Kind::ScopedEndSwitch => "a ScopedEndSwitch",
        }
    }
}

/// True if `d` produces a value other ops may consume.
pub(super) fn is_value(m: &Module, d: SsaDef) -> bool {
    use OpCode as O;
    let o = m.opcode(d);
    let kind_ok = match o {
        O::Constant | O::Undef | O::DclSpecConstant => true,
        O::Function | O::Label | O::Return | O::FunctionEnd => false,
        _ => !o.is_declarative() && !o.is_scoped() && !o.is_terminator(),
    };
    kind_ok && !m.ty(d).is_void()
}

/// The kind expected at reference position `i` of an op with `n` operands, and whether it may
/// be null.
pub(super) fn expected(opcode: OpCode, i: usize, n: usize) -> (Kind, bool) {
    use Kind as K;
    use OpCode as O;
    let v = (K::Value, false);
    let opt = (K::Value, true);
    match opcode {
        O::Unknown => (K::Any, true),
        O::EntryPoint => (K::Function, false),
        O::Semantic => (K::InputOrOutput, false),
        O::DebugName | O::DebugMemberName => (K::Any, false),
        O::Constant | O::Undef => v,
        O::SetCsWorkgroupSize
        | O::SetGsInstances
        | O::SetGsInputPrimitive
        | O::SetGsOutputVertices
        | O::SetGsOutputPrimitive
        | O::SetPsEarlyFragmentTest
        | O::SetPsDepthGreaterEqual
        | O::SetPsDepthLessEqual
        | O::SetTessPrimitive
        | O::SetTessDomain
        | O::SetTessControlPoints
        | O::SetFpMode
        | O::DclInput
        | O::DclInputBuiltIn
        | O::DclOutput
        | O::DclOutputBuiltIn
        | O::DclSpecConstant
        | O::DclPushData
        | O::DclSampler
        | O::DclCbv
        | O::DclSrv
        | O::DclUav
        | O::DclLds
        | O::DclScratch
        | O::DclTmp
        | O::DclInputTarget => (K::EntryPoint, false),
        O::DclUavCounter => (if i == 0 { K::EntryPoint } else { K::DclUav }, false),
        O::DclParam => v,
        O::DclXfb => (K::Output, false),
        O::Function => (K::DclParam, false),
        O::FunctionEnd => v,
        O::FunctionCall => (if i == 0 { K::Function } else { K::Value }, false),
        O::Label | O::Branch => (K::Label, false),
        O::BranchConditional => (if i == 0 { K::Value } else { K::Label }, false),
        O::Switch => match i {
            0 => v,
            _ if i & 1 == 1 => (K::Label, false),
            _ => (K::Constant, false),
        },
        O::Unreachable => v,
        O::Return => opt,
        O::Phi => (if i & 1 == 0 { K::Label } else { K::Value }, false),
        O::ScopedIf => (if i == 0 { K::ScopedEndIf } else { K::Value }, false),
        O::ScopedElse | O::ScopedEndIf => (K::ScopedIf, false),
        O::ScopedLoop => (K::ScopedEndLoop, false),
        O::ScopedLoopBreak | O::ScopedLoopContinue | O::ScopedEndLoop => (K::ScopedLoop, false),
        O::ScopedSwitch => (if i == 0 { K::ScopedEndSwitch } else { K::Value }, false),
        O::ScopedSwitchCase
        | O::ScopedSwitchDefault
        | O::ScopedSwitchBreak
        | O::ScopedEndSwitch => (K::ScopedSwitch, false),
        O::Barrier => v,
        O::ConvertFtoF
        | O::ConvertFtoI
        | O::ConvertItoF
        | O::ConvertItoI
        | O::ConvertF32toPackedF16
        | O::ConvertPackedF16toF32
        | O::Cast
        | O::ConsumeAs => v,
        O::CompositeInsert | O::CompositeExtract => {
            (if i == 1 { K::Constant } else { K::Value }, false)
        }
        O::CompositeConstruct | O::CheckSparseAccess => v,
        O::ParamLoad => (if i == 0 { K::Function } else { K::DclParam }, false),
        O::TmpLoad | O::TmpStore => (if i == 0 { K::DclTmp } else { K::Value }, false),
        O::ScratchLoad | O::ScratchStore => addressed(i, K::DclScratch),
        O::LdsLoad | O::LdsStore => addressed(i, K::DclLds),
        O::PushDataLoad => addressed(i, K::DclPushData),
        O::InputLoad | O::InterpolateAtCentroid => addressed(i, K::Input),
        O::InterpolateAtSample | O::InterpolateAtOffset => addressed(i, K::Input),
        O::OutputLoad | O::OutputStore => addressed(i, K::Output),
        O::DescriptorLoad => (if i == 0 { K::Resource } else { K::Value }, false),
        O::BufferLoad | O::BufferStore => (K::Value, i == 1),
        O::BufferQuerySize => v,
        O::MemoryLoad | O::MemoryStore => addressed(i, K::Pointer),
        O::ConstantLoad => addressed(i, K::Constant),
        O::LdsAtomic => match i {
            0 => (K::DclLds, false),
            _ => opt,
        },
        O::BufferAtomic => (K::Value, i >= 1),
        O::MemoryAtomic => match i {
            0 => (K::Pointer, false),
            _ => opt,
        },
        O::ImageAtomic => (K::Value, i == 1 || i == 3),
        O::CounterAtomic => v,
        O::ImageLoad => (K::Value, i >= 1 && i != 3),
        O::ImageStore => (K::Value, i == 1),
        O::ImageQuerySize => (K::Value, i == 1),
        O::ImageQueryMips | O::ImageQuerySamples => v,
        O::ImageSample | O::ImageGather => (K::Value, i == 2 || i >= 4),
        O::ImageComputeLod => v,
        O::Pointer => v,
        O::EmitVertex | O::EmitPrimitive | O::Demote => v,
        O::InputTargetLoad => (K::Value, i == 1),
        O::DerivX | O::DerivY => v,
        O::RovScopedLockBegin | O::RovScopedLockEnd => v,
        O::FEq
        | O::FNe
        | O::FLt
        | O::FLe
        | O::FGt
        | O::FGe
        | O::FIsNan
        | O::IEq
        | O::INe
        | O::SLt
        | O::SLe
        | O::SGt
        | O::SGe
        | O::ULt
        | O::ULe
        | O::UGt
        | O::UGe
        | O::BAnd
        | O::BOr
        | O::BEq
        | O::BNe
        | O::BNot
        | O::Select => v,
        O::FAbs
        | O::FNeg
        | O::FAdd
        | O::FSub
        | O::FMul
        | O::FMulLegacy
        | O::FMad
        | O::FMadLegacy
        | O::FDiv
        | O::FRcp
        | O::FSqrt
        | O::FRsq
        | O::FExp2
        | O::FLog2
        | O::FFract
        | O::FRound
        | O::FMin
        | O::FMax
        | O::FDot
        | O::FDotLegacy
        | O::FClamp
        | O::FSin
        | O::FCos
        | O::FPow
        | O::FPowLegacy
        | O::FSgn
        | O::FDotAdd
        | O::FDotAddLegacy
        | O::FLog2Legacy => v,
        O::IAnd
        | O::IOr
        | O::IXor
        | O::INot
        | O::IBitInsert
        | O::UBitExtract
        | O::SBitExtract
        | O::IShl
        | O::SShr
        | O::UShr
        | O::IBitCount
        | O::IBitReverse
        | O::IFindLsb
        | O::SFindMsb
        | O::UFindMsb
        | O::IAdd
        | O::IAddCarry
        | O::ISub
        | O::ISubBorrow
        | O::IAbs
        | O::INeg
        | O::IMul
        | O::SMulExtended
        | O::UMulExtended
        | O::UDiv
        | O::UMod
        | O::SMin
        | O::SMax
        | O::SClamp
        | O::UMin
        | O::UMax
        | O::UClamp
        | O::UMSad
        | O::MinValue
        | O::MaxValue => v,
        O::Drain => {
            let _ = n;
            v
        }
    }
}

/// Operand 0 of kind `k`, operand 1 an optional address, the rest values.
fn addressed(i: usize, k: Kind) -> (Kind, bool) {
    match i {
        0 => (k, false),
        1 => (Kind::Value, true),
        _ => (Kind::Value, false),
    }
}

/// Runs the operand checks over every op.
pub(super) fn check(cx: &mut Ctx<'_>) {
    let m = cx.m;
    for d in m.iter() {
        check_op(cx, d);
    }
}

/// The operand checks of one op (inlined: a call per op cost more than the checks of many
/// ops).
#[inline(always)]
fn check_op(cx: &mut Ctx<'_>, d: SsaDef) {
    let m = cx.m;
    let op = m.op(d);
    let n = op.operands.len();
    if op.opcode == OpCode::Unknown {
        cx.err(d, "invalid opcode Unknown");
        cx.mark_bad(d);
        return;
    }
    if !op.opcode.accepts_operand_count(n) {
        let info = op.opcode.info();
        let max = if info.max_operands == crate::opcode::MANY {
            "any".to_string()
        } else {
            info.max_operands.to_string()
        };
        cx.err(
            d,
            format!(
                "{} has {n} operands, expected {}..{max}{}",
                op.opcode,
                info.min_operands,
                if matches!(op.opcode, OpCode::Switch | OpCode::Phi) {
                    " (even)"
                } else {
                    ""
                }
            ),
        );
        cx.mark_bad(d);
        return;
    }
    // `Op::is_consistent`, with the first literal index computed once for both loops.
    let fl = op.first_literal();
    let consistent = op
        .operands
        .iter()
        .enumerate()
        .all(|(i, o)| (i >= fl) == o.is_literal());
    if !consistent {
        let at = op
            .operands
            .iter()
            .enumerate()
            .find(|(i, o)| (*i >= fl) != o.is_literal());
        if let Some((i, o)) = at {
            let what = if o.is_literal() {
                "a literal"
            } else {
                "a reference"
            };
            let want = if i >= fl { "a literal" } else { "a reference" };
            cx.err(
                d,
                format!("operand {i} of {} is {what}, expected {want}", op.opcode),
            );
        }
        cx.mark_bad(d);
        return;
    }
    let mut ok = true;
    for (i, operand) in op.operands[..fl].iter().enumerate() {
        let (kind, nullable) = expected(op.opcode, i, n);
        let t = match *operand {
            Operand::Ref(t) => t,
            Operand::Null if nullable => continue,
            _ => {
                cx.err(d, format!("operand {i} of {} must not be null", op.opcode));
                ok = false;
                continue;
            }
        };
        if !m.is_live(t) {
            cx.err(
                d,
                format!("operand {i} references {t}, which does not exist"),
            );
            ok = false;
            continue;
        }
        if t == d {
            cx.err(d, format!("operand {i} references the op itself"));
            ok = false;
            continue;
        }
        if !op.opcode.allows_forward_ref(i) && !m.precedes(t, d) {
            cx.err(
                d,
                format!("operand {i} references {t}, which is defined later"),
            );
            ok = false;
        }
        if !kind.accepts(m, t) {
            cx.err(
                d,
                format!(
                    "operand {i} of {} must be {}, found {t} ({})",
                    op.opcode,
                    kind.describe(),
                    m.opcode(t)
                ),
            );
            ok = false;
        }
    }
    if !ok {
        cx.mark_bad(d);
    }
}
