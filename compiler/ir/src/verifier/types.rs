//! Type rules, one exhaustive `match` over the opcode so that a new opcode must be given rules.
//!
//! Raw IR types DXBC registers as the Unknown scalar `?`, so every "is a float/int/bool" test
//! also accepts `?`, and two types are *compatible* when they are equal or differ only in
//! scalars of which one side is `?` (same vector sizes, struct shape and array dimensions).
//! Rules that need a constant (a composite address, a struct member index) are skipped when the
//! value is not a constant.

use super::Ctx;
use crate::entities::SsaDef;
use crate::format::slots;
use crate::module::Module;
use crate::opcode::OpCode;
use crate::types::{BasicType, ScalarType, Type};

mod access;
mod memory;

pub(super) fn check(cx: &mut Ctx<'_>) {
    let m = cx.m;
    for (d, function) in super::with_function(m, m.iter()) {
        if cx.is_bad(d) {
            continue;
        }
        Rules {
            cx,
            d,
            op: m.op(d),
            function,
        }
        .check();
    }
}

/// Scalar test that also accepts Unknown.
fn is_or_unknown(s: ScalarType, f: fn(ScalarType) -> bool) -> bool {
    s == ScalarType::Unknown || f(s)
}

fn float(s: ScalarType) -> bool {
    s.is_float()
}
fn int(s: ScalarType) -> bool {
    s.is_int()
}
fn boolean(s: ScalarType) -> bool {
    s == ScalarType::Bool
}
fn numeric(s: ScalarType) -> bool {
    s.is_int() || s.is_float()
}

/// True if `t` is a scalar or vector whose scalar passes `f` (or is Unknown).
fn basic_like(t: &Type, f: fn(ScalarType) -> bool) -> bool {
    t.as_basic()
        .is_some_and(|b| is_or_unknown(b.scalar_type(), f))
}

fn scalar_compat(a: ScalarType, b: ScalarType) -> bool {
    a == b || a == ScalarType::Unknown || b == ScalarType::Unknown
}

fn basic_compat(a: BasicType, b: BasicType) -> bool {
    a.vec_size() == b.vec_size() && scalar_compat(a.scalar_type(), b.scalar_type())
}

/// Equal up to Unknown scalars.
pub(super) fn compat(a: &Type, b: &Type) -> bool {
    // Scalars and vectors (nearly every check): one member each, no arrays, so the general
    // test below comes down to `basic_compat` of the members.
    if let (Some(x), Some(y)) = (a.as_basic(), b.as_basic()) {
        return basic_compat(x, y);
    }
    a == b
        || (a.array_dims() == b.array_dims()
            && a.members().len() == b.members().len()
            && a.members()
                .iter()
                .zip(b.members())
                .all(|(&x, &y)| basic_compat(x, y)))
}

struct Rules<'a, 'm> {
    cx: &'a mut Ctx<'m>,
    d: SsaDef,
    /// The op of `d`, looked up once.
    op: &'m crate::op::Op,
    /// `function_of(d)`: the nearest `Function` before `d` with no `FunctionEnd` in between
    /// (`d` itself for a `Function`). Asking `function_of` for every `Return` walked back to the
    /// `Function`, quadratic in a large function.
    function: Option<SsaDef>,
}

/// Types are looked at in place (`&'m Type`, the module outlives the rules): a `Type` is two
/// small vectors, and cloning one per look-up was most of the cost of the type rules.
impl<'m> Rules<'_, 'm> {
    fn err(&mut self, msg: String) {
        let d = self.d;
        self.cx.err(d, msg);
    }
    fn opcode(&self) -> OpCode {
        self.op.opcode
    }
    fn result(&self) -> &'m Type {
        &self.op.ty
    }
    /// The operand def at `i` (None if null or absent).
    fn arg(&self, i: usize) -> Option<SsaDef> {
        self.op.operand_def(i)
    }
    /// The type of operand `i` (None if null).
    fn arg_ty(&self, i: usize) -> Option<&'m Type> {
        let m: &'m Module = self.cx.m;
        self.arg(i).map(|a| m.ty(a))
    }
    fn nargs(&self) -> usize {
        self.op.first_literal()
    }

    fn want_void(&mut self) {
        let t = self.result();
        if !t.is_void() {
            self.err(format!("{} must have type void, found {t}", self.opcode()));
        }
    }
    fn want_non_void(&mut self) {
        if self.result().is_void() {
            self.err(format!("{} must have a non-void type", self.opcode()));
        }
    }
    fn want_result(&mut self, f: fn(ScalarType) -> bool, what: &str) {
        let t = self.result();
        if !basic_like(t, f) {
            self.err(format!(
                "{} must have {what} scalar or vector type, found {t}",
                self.opcode()
            ));
        }
    }
    fn want_result_is(&mut self, want: &Type) {
        let t = self.result();
        if !compat(t, want) {
            self.err(format!(
                "{} must have type {want}, found {t}",
                self.opcode()
            ));
        }
    }
    fn want_arg(&mut self, i: usize, f: fn(ScalarType) -> bool, what: &str) {
        if let Some(t) = self.arg_ty(i) {
            if !basic_like(t, f) {
                self.err(format!(
                    "operand {i} of {} must be {what}, found {t}",
                    self.opcode()
                ));
            }
        }
    }
    fn want_arg_is(&mut self, i: usize, want: &Type, why: &str) {
        if let Some(t) = self.arg_ty(i) {
            if !compat(t, want) {
                self.err(format!(
                    "operand {i} of {} has type {t}, expected {want}{why}",
                    self.opcode()
                ));
            }
        }
    }
    /// `Switch %sel %default (%case %label)…`: an integer scalar selector, case constants of
    /// its type, no case value twice.
    fn switch(&mut self) {
        self.want_void();
        let Some(sel_ty) = self.arg_ty(slots::Switch.selector) else {
            return;
        };
        if sel_ty
            .as_scalar()
            .is_none_or(|s| !(s.is_int() || s == ScalarType::Unknown))
        {
            self.err(format!(
                "the Switch selector must be an integer scalar, found {sel_ty}"
            ));
            return;
        }
        let mut seen: Vec<u64> = Vec::new();
        for i in (2..self.nargs()).step_by(2) {
            self.want_arg_is(i, sel_ty, " (the selector type)");
            let Some(c) = self.arg(i) else { continue };
            let case = crate::format::Constant::try_of(self.cx.m.op(c));
            let Some(v) = case.and_then(|k| k.scalar(0)) else {
                continue;
            };
            if seen.contains(&v) {
                self.err(format!(
                    "case value {} appears twice in the Switch",
                    v as i64
                ));
            }
            seen.push(v);
        }
    }

    /// Result of class `f`; every operand in `range` of the result type.
    fn same_as_result(
        &mut self,
        f: fn(ScalarType) -> bool,
        what: &str,
        ops: std::ops::Range<usize>,
    ) {
        self.want_result(f, what);
        let t = self.result();
        for i in ops {
            self.want_arg_is(i, t, " (the result type)");
        }
    }
    /// Comparison: operands of class `f` with equal types, result bool of their vector size.
    fn compare(&mut self, f: fn(ScalarType) -> bool, what: &str, n: usize) {
        for i in 0..n {
            self.want_arg(i, f, what);
        }
        let Some(a) = self.arg_ty(slots::Arith.a) else {
            return;
        };
        if n == 2 {
            self.want_arg_is(slots::Arith.b, a, " (the type of operand 0)");
        }
        if let Some(b) = a.as_basic() {
            self.want_result_is(&vector_or_scalar(ScalarType::Bool, b.vec_size()));
        }
    }
    /// Result scalar type of the dot product of operands 0 and 1.
    fn dot(&mut self, add: bool) {
        self.want_result(float, "a float");
        let Some(a) = self.arg_ty(slots::Dot.a) else {
            return;
        };
        self.want_arg(slots::Dot.a, float, "a float vector");
        self.want_arg_is(slots::Dot.b, a, " (the type of operand 0)");
        if let Some(b) = a.as_basic() {
            let s = Type::scalar(b.scalar_type());
            self.want_result_is(&s);
            if add {
                self.want_arg_is(slots::Dot.add, &s, " (the result type)");
            }
        }
    }
    /// Conversion from class `from` to class `to` with equal vector sizes.
    fn convert(
        &mut self,
        from: fn(ScalarType) -> bool,
        to: fn(ScalarType) -> bool,
        what: (&str, &str),
    ) {
        self.want_result(to, what.1);
        self.want_arg(slots::Arith.a, from, what.0);
        self.same_vec_size();
    }
    fn same_vec_size(&mut self) {
        let (Some(a), Some(r)) = (
            self.arg_ty(slots::Arith.a).and_then(|t| t.as_basic()),
            self.result().as_basic(),
        ) else {
            return;
        };
        if a.vec_size() != r.vec_size() {
            self.err(format!(
                "{} changes the vector size from {a} to {r}",
                self.opcode()
            ));
        }
    }

    fn check(&mut self) {
        use OpCode as O;
        let m = self.cx.m;
        let opcode = self.opcode();
        match opcode {
            O::Unknown => {}
            O::EntryPoint | O::Semantic | O::DebugName | O::DebugMemberName => self.want_void(),
            O::Constant => self.constant(),
            O::Undef => self.want_non_void(),
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
            | O::SetTessControlPoints => self.want_void(),
            O::SetFpMode => {
                let t = self.result();
                if !matches!(
                    t.as_scalar(),
                    Some(ScalarType::F16 | ScalarType::F32 | ScalarType::F64)
                ) {
                    self.err(format!(
                        "SetFpMode must have type f16, f32 or f64, found {t}"
                    ));
                }
            }
            O::DclInput
            | O::DclInputBuiltIn
            | O::DclOutput
            | O::DclOutputBuiltIn
            | O::DclSpecConstant
            | O::DclPushData
            | O::DclCbv
            | O::DclSrv
            | O::DclUav
            | O::DclLds
            | O::DclScratch
            | O::DclTmp
            | O::DclParam
            | O::DclInputTarget => self.want_non_void(),
            O::DclUavCounter => self.want_result_is(&Type::scalar(ScalarType::U32)),
            O::DclSampler | O::DclXfb => self.want_void(),
            O::Function => {}
            O::FunctionEnd => self.want_void(),
            O::FunctionCall => {
                let Some(f) = self.arg(slots::FunctionCall.callee) else {
                    return;
                };
                let ft = m.ty(f);
                // The SM3 front-end types calls whose result is unused as void.
                if !self.result().is_void() {
                    self.want_result_is(ft);
                }
                for (i, p) in m.op(f).ref_defs().enumerate() {
                    if i + 1 < self.nargs() {
                        self.want_arg_is(i + 1, m.ty(p), " (the parameter type)");
                    }
                }
            }
            O::Label | O::Branch | O::Unreachable => self.want_void(),
            O::Switch => self.switch(),
            O::BranchConditional => {
                self.want_void();
                self.want_arg_is(
                    slots::BranchConditional.cond,
                    &Type::scalar(ScalarType::Bool),
                    "",
                );
            }
            O::Return => self.ret(),
            O::Phi => {
                self.want_non_void();
                let t = self.result();
                for i in (1..self.nargs()).step_by(2) {
                    self.want_arg_is(i, t, " (the phi type)");
                }
            }
            O::ScopedIf => {
                self.want_void();
                self.want_arg_is(slots::ScopedIf.cond, &Type::scalar(ScalarType::Bool), "");
            }
            O::ScopedSwitch => {
                self.want_void();
                self.want_arg(slots::ScopedSwitch.selector, int, "an integer");
            }
            O::ScopedElse
            | O::ScopedEndIf
            | O::ScopedLoop
            | O::ScopedLoopBreak
            | O::ScopedLoopContinue
            | O::ScopedEndLoop
            | O::ScopedSwitchCase
            | O::ScopedSwitchDefault
            | O::ScopedSwitchBreak
            | O::ScopedEndSwitch
            | O::Barrier
            | O::EmitVertex
            | O::EmitPrimitive
            | O::Demote
            | O::RovScopedLockBegin
            | O::RovScopedLockEnd => self.want_void(),
            O::ConvertFtoF => self.convert(float, float, ("a float", "a float")),
            O::ConvertFtoI => self.convert(float, int, ("a float", "an integer")),
            O::ConvertItoF => self.convert(int, float, ("an integer", "a float")),
            O::ConvertItoI => self.convert(int, int, ("an integer", "an integer")),
            O::ConvertF32toPackedF16 => {
                self.want_result(int, "an integer");
                // Min-precision front-end code converts minf16x2 values.
                let ok = self.arg_ty(slots::Arith.a).is_some_and(|t| {
                    basic_like(t, float) && t.as_basic().is_some_and(|b| b.vec_size() == 2)
                });
                if !ok {
                    let t = self.arg_ty(slots::Arith.a).cloned().unwrap_or_default();
                    self.err(format!(
                        "operand 0 of ConvertF32toPackedF16 must be a float x2 vector, found {t}"
                    ));
                }
            }
            O::ConvertPackedF16toF32 => {
                self.want_result_is(&Type::vector(ScalarType::F32, 2));
                self.want_arg(slots::Arith.a, int, "an integer");
            }
            O::Cast => self.cast(),
            O::ConsumeAs => self.want_non_void(),
            O::CompositeInsert | O::CompositeExtract => self.composite_access(),
            O::CompositeConstruct => self.composite_construct(),
            O::CheckSparseAccess => {
                self.want_result_is(&Type::scalar(ScalarType::Bool));
                self.want_arg(slots::Arith.a, int, "an integer");
            }
            O::ParamLoad => {
                if let Some(p) = self.arg(slots::ParamLoad.param) {
                    self.want_result_is(m.ty(p));
                }
            }
            O::TmpLoad => self.tmp(false),
            O::TmpStore => self.tmp(true),
            O::ScratchLoad
            | O::LdsLoad
            | O::PushDataLoad
            | O::InputLoad
            | O::OutputLoad
            | O::ConstantLoad => self.load_store(None),
            O::InterpolateAtCentroid | O::InterpolateAtSample | O::InterpolateAtOffset => {
                self.want_result(float, "a float");
                self.load_store(None);
            }
            O::ScratchStore | O::LdsStore | O::OutputStore => {
                self.want_void();
                self.load_store(Some(2));
            }
            O::MemoryLoad => self.load_store(None),
            O::MemoryStore => {
                self.want_void();
                self.load_store(Some(2));
            }
            O::BufferLoad => self.buffer_access(None),
            O::BufferStore => {
                self.want_void();
                self.buffer_access(Some(2));
            }
            O::DescriptorLoad => self.descriptor_load(),
            O::BufferQuerySize | O::ImageQueryMips | O::ImageQuerySamples => {
                self.want_result_is(&Type::scalar(ScalarType::U32));
                self.want_descriptor(slots::Query.descriptor);
            }
            O::InputTargetLoad | O::ImageLoad | O::ImageSample | O::ImageGather => {
                self.want_non_void();
                self.want_descriptor(slots::ImageLoad.descriptor);
            }
            O::ImageStore => {
                self.want_void();
                self.want_descriptor(slots::ImageStore.descriptor);
            }
            O::ImageQuerySize => {
                self.want_non_void();
                self.want_descriptor(slots::ImageQuerySize.descriptor);
            }
            O::ImageComputeLod => {
                self.want_result_is(&Type::vector(ScalarType::F32, 2));
                self.want_descriptor(slots::ImageComputeLod.descriptor);
            }
            O::LdsAtomic
            | O::BufferAtomic
            | O::ImageAtomic
            | O::CounterAtomic
            | O::MemoryAtomic => {
                let t = self.result();
                if !t.is_void() && t.as_scalar().is_none() {
                    self.err(format!("{opcode} must have void or scalar type, found {t}"));
                }
                if matches!(opcode, O::BufferAtomic | O::ImageAtomic | O::CounterAtomic) {
                    self.want_descriptor(slots::Atomic.base);
                }
            }
            O::Pointer => {
                self.want_non_void();
                self.want_arg(slots::Pointer.address, int, "an integer");
            }
            O::DerivX | O::DerivY => self.same_as_result(float, "a float", 0..1),
            O::FEq | O::FNe | O::FLt | O::FLe | O::FGt | O::FGe => {
                self.compare(float, "a float", 2)
            }
            O::FIsNan => self.compare(float, "a float", 1),
            O::IEq
            | O::INe
            | O::SLt
            | O::SLe
            | O::SGt
            | O::SGe
            | O::ULt
            | O::ULe
            | O::UGt
            | O::UGe => self.compare(int, "an integer", 2),
            O::BAnd | O::BOr | O::BEq | O::BNe => self.same_as_result(boolean, "a bool", 0..2),
            O::BNot => self.same_as_result(boolean, "a bool", 0..1),
            O::Select => {
                self.want_non_void();
                self.want_arg(slots::Select.cond, boolean, "a bool");
                let t = self.result();
                self.want_arg_is(slots::Select.if_true, t, " (the result type)");
                self.want_arg_is(slots::Select.if_false, t, " (the result type)");
            }
            O::FAbs
            | O::FNeg
            | O::FRcp
            | O::FSqrt
            | O::FRsq
            | O::FExp2
            | O::FLog2
            | O::FFract
            | O::FRound
            | O::FSin
            | O::FCos
            | O::FSgn
            | O::FLog2Legacy => self.same_as_result(float, "a float", 0..1),
            O::FAdd
            | O::FSub
            | O::FMul
            | O::FMulLegacy
            | O::FDiv
            | O::FMin
            | O::FMax
            | O::FPow
            | O::FPowLegacy => self.same_as_result(float, "a float", 0..2),
            O::FMad | O::FMadLegacy | O::FClamp => self.same_as_result(float, "a float", 0..3),
            O::FDot | O::FDotLegacy => self.dot(false),
            O::FDotAdd | O::FDotAddLegacy => self.dot(true),
            O::INot | O::IBitReverse | O::IAbs | O::INeg => {
                self.same_as_result(int, "an integer", 0..1)
            }
            O::IBitCount | O::IFindLsb | O::SFindMsb | O::UFindMsb => {
                // dxbc-spirv gives bit counts and bit positions a signedness of their own
                // (`i32 UFindMsb u32`): only the vector size must match.
                self.want_result(int, "an integer");
                self.want_arg(slots::Arith.a, int, "an integer");
                self.same_vec_size();
            }
            O::IAnd
            | O::IOr
            | O::IXor
            | O::IAdd
            | O::ISub
            | O::IMul
            | O::UDiv
            | O::UMod
            | O::SMin
            | O::SMax
            | O::UMin
            | O::UMax => self.same_as_result(int, "an integer", 0..2),
            O::SClamp | O::UClamp | O::UMSad => self.same_as_result(int, "an integer", 0..3),
            O::IShl | O::SShr | O::UShr => {
                self.same_as_result(int, "an integer", 0..1);
                self.want_arg(slots::Arith.b, int, "an integer");
            }
            O::UBitExtract | O::SBitExtract => {
                self.same_as_result(int, "an integer", 0..1);
                self.want_arg(slots::BitExtract.offset, int, "an integer");
                self.want_arg(slots::BitExtract.count, int, "an integer");
            }
            O::IBitInsert => {
                self.same_as_result(int, "an integer", 0..2);
                self.want_arg(slots::IBitInsert.offset, int, "an integer");
                self.want_arg(slots::IBitInsert.count, int, "an integer");
            }
            O::IAddCarry | O::ISubBorrow | O::SMulExtended | O::UMulExtended => {
                self.want_result(int, "an integer");
                self.want_arg(slots::Arith.a, int, "an integer");
                if let Some(a) = self.arg_ty(slots::Arith.a) {
                    self.want_arg_is(slots::Arith.b, a, " (the type of operand 0)");
                }
            }
            O::MinValue | O::MaxValue => self.want_result(numeric, "a numeric"),
            O::Drain => {}
        }
    }

    fn constant(&mut self) {
        let t = self.result();
        let n = self.cx.m.op(self.d).operands.len() as u64;
        match t.flattened_scalar_count() {
            _ if t.is_void() => self.err("Constant must have a non-void type".into()),
            None => self.err(format!("Constant of unbounded type {t}")),
            Some(c) if c != n => self.err(format!(
                "Constant of type {t} needs {c} literals, found {n}"
            )),
            Some(_) => {}
        }
    }

    fn ret(&mut self) {
        let m = self.cx.m;
        let Some(f) = self.function else {
            return;
        };
        let ft = m.ty(f);
        match self.arg_ty(slots::Return.value) {
            Some(v) => {
                if !compat(v, ft) {
                    self.err(format!(
                        "Return value has type {v}, the function returns {ft}"
                    ));
                }
            }
            None => {
                if !ft.is_void() {
                    self.err(format!(
                        "Return without a value in a function returning {ft}"
                    ));
                }
            }
        }
        let t = self.result();
        if !t.is_void() && !compat(t, ft) {
            self.err(format!("Return has type {t}, the function returns {ft}"));
        }
    }

    fn cast(&mut self) {
        self.want_non_void();
        let (Some(a), r) = (self.arg_ty(slots::Arith.a), self.result()) else {
            return;
        };
        let size = |t: &Type| t.as_basic().map(|b| b.byte_size());
        if let (Some(sa), Some(sr)) = (size(a), size(r)) {
            if sa != 0 && sr != 0 && sa != sr {
                self.err(format!("Cast from {a} to {r} changes the bit size"));
            }
        }
    }

    fn tmp(&mut self, store: bool) {
        let m = self.cx.m;
        let Some(v) = self.arg(slots::TmpStore.var) else {
            return;
        };
        let vt = m.ty(v);
        if store {
            self.want_void();
            self.want_arg_is(slots::TmpStore.value, vt, " (the temporary's type)");
        } else if !widened_tmp_load(vt, self.result()) {
            self.want_result_is(vt);
        }
    }
}

/// The SM3 front-end loads its scalar color-output temporaries as vectors of the same scalar
/// type (`f32x4 TmpLoad %f32_tmp`) and stores those into scalar outputs. SSA construction
/// replaces the load by the stored scalar, so the legalized IR is well typed; accept the raw form.
fn widened_tmp_load(tmp: &Type, result: &Type) -> bool {
    matches!((tmp.as_scalar(), result.as_basic()), (Some(s), Some(r)) if r.scalar_type() == s)
}

/// A scalar if `n` is 1, else a vector.
fn vector_or_scalar(s: ScalarType, n: u8) -> Type {
    if n == 1 {
        Type::scalar(s)
    } else {
        Type::vector(s, n)
    }
}
