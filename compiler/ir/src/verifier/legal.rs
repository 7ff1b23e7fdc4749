//! The legality contract: what may remain in a module after `legalize` for the default target
//! (dxbc-spirv's `legalizeIr` output, which its SPIR-V writer takes), checked as the verifier's
//! "legal" mode ([`super::verify_legal`]). `docs/legality.md` states the same rules in prose with
//! their sources.
//!
//! On top of the well-formedness rules of [`super::verify`]:
//!
//! 1. **Ops**: no raw-only op (`DclTmp`, `TmpLoad`, `TmpStore`, `Scoped*`, `ConsumeAs`), no op
//!    dxbc-spirv's late lowering removes and its SPIR-V writer rejects (`FDot*`, `F*Legacy`,
//!    `UMSad`), no op outside the pinned format (`MinValue`, `MaxValue`, `Drain`, `Unknown`) —
//!    except the ops the caller says the target executes natively (its `TargetCaps::native`).
//! 2. **Types**: no Unknown scalar (`?`) and no min-precision scalar in any result type.
//! 3. **Operand shapes** SPIR-V requires of the instruction the writer maps an op to:
//!    the offset and count of `IBitInsert`/`UBitExtract`/`SBitExtract` are integer scalars
//!    (`OpBitField*`); a shift's count has the vector size of its base (`OpShift*`); the
//!    operand of `ConvertF32toPackedF16` is exactly `f32x2` (`PackHalf2x16`); a `Select`'s
//!    condition is a scalar or has the vector size of its result (`OpSelect`).

use super::Ctx;
use crate::entities::SsaDef;
use crate::format;
use crate::opcode::OpCode;
use crate::types::{ScalarType, Type};

/// Why `op` may not remain after legalization, if it may not.
pub fn removed_by_legalize(op: OpCode) -> Option<&'static str> {
    use OpCode as O;
    match op {
        O::Unknown => Some("not an op"),
        O::DclTmp | O::TmpLoad | O::TmpStore => {
            Some("raw-IR temporaries are gone after SSA construction")
        }
        O::ScopedIf
        | O::ScopedElse
        | O::ScopedEndIf
        | O::ScopedLoop
        | O::ScopedLoopBreak
        | O::ScopedLoopContinue
        | O::ScopedEndLoop
        | O::ScopedSwitch
        | O::ScopedSwitchCase
        | O::ScopedSwitchDefault
        | O::ScopedSwitchBreak
        | O::ScopedEndSwitch => Some("scoped control flow is gone after structurization"),
        O::ConsumeAs => Some("ConsumeAs is gone after consume lowering"),
        O::FDot | O::FDotLegacy | O::FDotAdd | O::FDotAddLegacy => {
            Some("dot products are lowered to multiply-add chains")
        }
        O::FMulLegacy | O::FMadLegacy | O::FPowLegacy | O::FLog2Legacy => {
            Some("D3D9 legacy arithmetic is lowered to IEEE ops")
        }
        O::UMSad => Some("UMSad is lowered to integer arithmetic"),
        O::MinValue | O::MaxValue | O::Drain => Some("not in the pinned binary format"),
        O::EntryPoint
        | O::Semantic
        | O::DebugName
        | O::DebugMemberName
        | O::Constant
        | O::Undef
        | O::SetCsWorkgroupSize
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
        | O::DclUavCounter
        | O::DclLds
        | O::DclScratch
        | O::DclParam
        | O::DclXfb
        | O::DclInputTarget
        | O::Function
        | O::FunctionEnd
        | O::FunctionCall
        | O::Label
        | O::Branch
        | O::BranchConditional
        | O::Switch
        | O::Unreachable
        | O::Return
        | O::Phi
        | O::Barrier
        | O::ConvertFtoF
        | O::ConvertFtoI
        | O::ConvertItoF
        | O::ConvertItoI
        | O::ConvertF32toPackedF16
        | O::ConvertPackedF16toF32
        | O::Cast
        | O::CompositeInsert
        | O::CompositeExtract
        | O::CompositeConstruct
        | O::CheckSparseAccess
        | O::ParamLoad
        | O::ScratchLoad
        | O::ScratchStore
        | O::LdsLoad
        | O::LdsStore
        | O::PushDataLoad
        | O::InputTargetLoad
        | O::InputLoad
        | O::OutputLoad
        | O::OutputStore
        | O::DescriptorLoad
        | O::BufferLoad
        | O::BufferStore
        | O::BufferQuerySize
        | O::MemoryLoad
        | O::MemoryStore
        | O::ConstantLoad
        | O::LdsAtomic
        | O::BufferAtomic
        | O::ImageAtomic
        | O::CounterAtomic
        | O::MemoryAtomic
        | O::ImageLoad
        | O::ImageStore
        | O::ImageQuerySize
        | O::ImageQueryMips
        | O::ImageQuerySamples
        | O::ImageSample
        | O::ImageGather
        | O::ImageComputeLod
        | O::Pointer
        | O::EmitVertex
        | O::EmitPrimitive
        | O::Demote
        | O::InterpolateAtCentroid
        | O::InterpolateAtSample
        | O::InterpolateAtOffset
        | O::DerivX
        | O::DerivY
        | O::RovScopedLockBegin
        | O::RovScopedLockEnd
        | O::FEq
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
        | O::Select
        | O::FAbs
        | O::FNeg
        | O::FAdd
        | O::FSub
        | O::FMul
        | O::FMad
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
        | O::FClamp
        | O::FSin
        | O::FCos
        | O::FPow
        | O::FSgn
        | O::IAnd
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
        | O::UClamp => None,
    }
}

pub(super) fn check(cx: &mut Ctx<'_>, native: &[OpCode]) {
    let m = cx.m;
    for d in m.iter() {
        if cx.is_bad(d) {
            continue;
        }
        let opcode = m.opcode(d);
        if let Some(why) = removed_by_legalize(opcode) {
            if !native.contains(&opcode) {
                cx.err(d, format!("legality: {opcode} may not remain ({why})"));
                continue;
            }
        }
        let ty = m.ty(d);
        if let Some(s) = ty
            .members()
            .iter()
            .map(|b| b.scalar_type())
            .find(|s| *s == ScalarType::Unknown || s.is_min_precision())
        {
            cx.err(
                d,
                format!("legality: type {ty} has the unresolved scalar type {s}"),
            );
        }
        shapes(cx, d, opcode);
    }
}

/// Vector size of `d`'s type (1 for scalars; `None` for non-basic types and null operands).
fn vec_size(cx: &Ctx<'_>, d: Option<SsaDef>) -> Option<u32> {
    d.and_then(|d| cx.m.ty(d).as_basic())
        .map(|b| b.vec_size().into())
}

fn shapes(cx: &mut Ctx<'_>, d: SsaDef, opcode: OpCode) {
    use OpCode as O;
    let op = cx.m.op(d);
    let scalar = |cx: &mut Ctx<'_>, what: &str, a: Option<SsaDef>| {
        if vec_size(cx, a).is_some_and(|n| n != 1) {
            let t = a.map(|a| cx.m.ty(a).clone()).unwrap_or_default();
            cx.err(
                d,
                format!("legality: the {what} of {opcode} must be a scalar, found {t}"),
            );
        }
    };
    match opcode {
        O::UBitExtract | O::SBitExtract => {
            let v = format::BitExtract::of(op);
            let (offset, count) = (v.offset(), v.count());
            scalar(cx, "offset", offset);
            scalar(cx, "count", count);
        }
        O::IBitInsert => {
            let v = format::IBitInsert::of(op);
            let (offset, count) = (v.offset(), v.count());
            scalar(cx, "offset", offset);
            scalar(cx, "count", count);
        }
        O::IShl | O::SShr | O::UShr => {
            let v = format::Arith::of(op);
            let (a, b) = (vec_size(cx, v.a()), vec_size(cx, v.b()));
            if a.is_some() && b.is_some() && a != b {
                cx.err(
                    d,
                    format!("legality: the shift count of {opcode} must have the vector size of its base"),
                );
            }
        }
        O::ConvertF32toPackedF16 => {
            let a = format::Arith::of(op).a();
            let t = a.map(|a| cx.m.ty(a).clone()).unwrap_or_default();
            if t != Type::vector(ScalarType::F32, 2) {
                cx.err(
                    d,
                    format!(
                        "legality: the operand of ConvertF32toPackedF16 must be f32x2, found {t}"
                    ),
                );
            }
        }
        O::Select => {
            let c = vec_size(cx, format::Select::of(op).cond());
            let r = cx.m.ty(d).as_basic().map(|b| u32::from(b.vec_size()));
            if c.is_some_and(|c| c != 1 && Some(c) != r) {
                cx.err(
                    d,
                    "legality: a Select's condition must be a scalar or have the result's vector size",
                );
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::{text, verifier, OpCode};

    const MODULE: &str = "%1 = EntryPoint %20 Vertex\n\
        %2 = u32x2 DclInput %1 0 0\n\
        %4 = u32x2 Constant 0 0\n\
        %5 = u32x2 Constant 6 6\n\
        %6 = u32 Constant 6\n\
        %9 = u32x2 DclOutput %1 0 0\n\
        %20 = Function\n%21 = Label None\n\
        %30 = u32x2 InputLoad %2 null\n\
        %31 = u32x2 UBitExtract %30 %4 %6\n\
        %32 = u32x2 UMSad %31 %30 %30\n\
        %33 = OutputStore %9 null %32\n%34 = Return\n%35 = FunctionEnd\n";

    #[test]
    fn violations_are_pinned_to_their_ops() {
        let m = text::parse(MODULE).unwrap();
        assert!(verifier::verify(&m).is_ok());
        let errors = verifier::verify_legal(&m, &[]).unwrap_err();
        let pinned: Vec<String> = errors
            .iter()
            .map(|e| e.def.map(|d| d.to_string()).unwrap_or_default())
            .collect();
        assert_eq!(pinned, ["%31", "%32"], "{errors}");
        assert!(errors.0[0].message.contains("offset of UBitExtract"));
        assert!(errors.0[1].message.contains("UMSad may not remain"));
        // A target executing UMSad natively keeps it.
        let errors = verifier::verify_legal(&m, &[OpCode::UMSad]).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors}");
    }
}
