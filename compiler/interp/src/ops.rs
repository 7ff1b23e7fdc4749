//! The op dispatcher: one exhaustive `match` over every opcode, delegating to the per-family
//! modules ([`crate::float`], [`crate::int`], [`crate::convert`], [`crate::resources`], …).

use crate::access::{value_get, value_set};
use crate::exec::{Flow, Interp};
use crate::trap::{Trap, TrapKind};
use crate::value::{zero_value, Scalar, Value};
use crate::{convert, float, fp_mode};
use irc_ir::format::{
    Arith, Branch, BranchConditional, CompositeConstruct, CompositeExtract, CompositeInsert,
    DclInputBuiltIn, Deriv, Drain, FunctionCall, Load, ParamLoad, Return, Scoped, ScopedIf,
    ScopedSwitch, Store, Switch, TmpLoad, TmpStore,
};
use irc_ir::{OpCode, ScalarType, ShaderStage, SsaDef};
use smallvec::SmallVec;

impl Interp<'_, '_> {
    /// Executes op `d` in lane `l`.
    pub(crate) fn exec(&mut self, l: usize, d: SsaDef) -> Result<Flow, Trap> {
        let m = self.p.m;
        let op = m.op(d);
        let unsupported = || Err(Trap::new(d, TrapKind::Unsupported(op.opcode)));
        // `rcp(rsq(x))` as one square root ([`crate::RunConfig::rcp_rsq_as_sqrt`]): `x`.
        let sqrt_of = (self.cfg.rcp_rsq_as_sqrt && op.opcode == OpCode::FRcp)
            .then(|| self.rsq_operand(op))
            .flatten();
        let v = match op.opcode {
            // Declarations and metadata never execute; if one shows up in code it is inert.
            OpCode::EntryPoint
            | OpCode::Semantic
            | OpCode::DebugName
            | OpCode::DebugMemberName
            | OpCode::Constant
            | OpCode::Undef
            | OpCode::SetCsWorkgroupSize
            | OpCode::SetGsInstances
            | OpCode::SetGsInputPrimitive
            | OpCode::SetGsOutputVertices
            | OpCode::SetGsOutputPrimitive
            | OpCode::SetPsEarlyFragmentTest
            | OpCode::SetPsDepthGreaterEqual
            | OpCode::SetPsDepthLessEqual
            | OpCode::SetTessPrimitive
            | OpCode::SetTessDomain
            | OpCode::SetTessControlPoints
            | OpCode::SetFpMode
            | OpCode::DclInput
            | OpCode::DclInputBuiltIn
            | OpCode::DclOutput
            | OpCode::DclOutputBuiltIn
            | OpCode::DclSpecConstant
            | OpCode::DclPushData
            | OpCode::DclSampler
            | OpCode::DclCbv
            | OpCode::DclSrv
            | OpCode::DclUav
            | OpCode::DclUavCounter
            | OpCode::DclLds
            | OpCode::DclScratch
            | OpCode::DclTmp
            | OpCode::DclParam
            | OpCode::DclXfb
            | OpCode::DclInputTarget => return Ok(Flow::Next),
            OpCode::Unknown => return Err(Trap::bad(d, "op with opcode Unknown")),

            // ----- functions and structured control flow -----
            OpCode::Function => return Err(Trap::bad(d, "nested Function")),
            OpCode::FunctionEnd => return Ok(Flow::Return(zero_value(&self.current_fn_type(l)))),
            OpCode::FunctionCall => {
                let call = FunctionCall::of(op);
                let f = call
                    .callee()
                    .ok_or_else(|| Trap::bad(d, "call without function"))?;
                let mut args = Vec::with_capacity(op.operands.len());
                for a in call.args() {
                    args.push(self.arg(l, d, a.as_ref())?);
                }
                return Ok(Flow::Call(f, args));
            }
            OpCode::Label => return self.enter_block(l, d),
            OpCode::Branch => {
                return Branch::of(op)
                    .target()
                    .map(Flow::Branch)
                    .ok_or_else(|| Trap::bad(d, "branch without target"))
            }
            OpCode::BranchConditional => {
                let br = BranchConditional::of(op);
                let c = self.scalar_arg(l, d, br.cond())?.as_bool();
                let t = if c { br.if_true() } else { br.if_false() }
                    .ok_or_else(|| Trap::bad(d, "missing branch target"))?;
                return Ok(Flow::Branch(t));
            }
            OpCode::Switch => {
                let sw = Switch::of(op);
                let sel = self.scalar_arg(l, d, sw.selector())?;
                let mut target = sw
                    .default()
                    .ok_or_else(|| Trap::bad(d, "switch without default"))?;
                for pair in sw.cases().chunks(2) {
                    let (Some(c), Some(t)) =
                        (pair[0].as_ref(), pair.get(1).and_then(|o| o.as_ref()))
                    else {
                        return Err(Trap::bad(d, "malformed switch case"));
                    };
                    let cv = self
                        .get(l, d, c)?
                        .as_scalar()
                        .ok_or_else(|| Trap::bad(d, "case value not scalar"))?;
                    if case_matches(sel, cv.bits()) {
                        target = t;
                        break;
                    }
                }
                return Ok(Flow::Branch(target));
            }
            OpCode::Unreachable => return Err(Trap::new(d, TrapKind::Unreachable)),
            OpCode::Return => {
                let v = self
                    .opt_arg(l, d, Return::of(op).value())?
                    .unwrap_or(Value::Void);
                return Ok(Flow::Return(v));
            }
            OpCode::Phi => {
                let pred = self.lanes[l].frames.last().and_then(|f| f.prev);
                self.phi_value(l, d, pred)?
            }

            // ----- scoped control flow -----
            OpCode::ScopedIf => {
                let sif = ScopedIf::of(op);
                let c = self.scalar_arg(l, d, sif.cond())?.as_bool();
                if c {
                    return Ok(Flow::Next);
                }
                if let Some(&e) = self.p.else_of.get(&d) {
                    return Ok(Flow::Goto(e as usize + 1));
                }
                return self.goto_after(d, sif.end());
            }
            OpCode::ScopedElse => {
                let i = Scoped::of(op)
                    .construct()
                    .ok_or_else(|| Trap::bad(d, "else without if"))?;
                return self.goto_after(d, ScopedIf::of(m.op(i)).end());
            }
            OpCode::ScopedEndIf | OpCode::ScopedLoop | OpCode::ScopedEndSwitch => {
                return Ok(Flow::Next)
            }
            OpCode::ScopedSwitchCase | OpCode::ScopedSwitchDefault => return Ok(Flow::Next),
            OpCode::ScopedLoopBreak | OpCode::ScopedSwitchBreak => {
                let s = Scoped::of(op)
                    .construct()
                    .ok_or_else(|| Trap::bad(d, "break without construct"))?;
                // The construct (`ScopedLoop`, `ScopedSwitch`) names its end first.
                let end = match ScopedSwitch::try_of(m.op(s)) {
                    Some(sw) => sw.end(),
                    None => Scoped::of(m.op(s)).construct(),
                };
                return self.goto_after(d, end);
            }
            OpCode::ScopedLoopContinue | OpCode::ScopedEndLoop => {
                return self.goto_after(d, Scoped::of(op).construct());
            }
            OpCode::ScopedSwitch => {
                let sw = ScopedSwitch::of(op);
                let sel = self.scalar_arg(l, d, sw.selector())?;
                let cases = self.p.cases.get(&d);
                // A matching case wins over `default` wherever the default is placed.
                let exact = cases
                    .into_iter()
                    .flatten()
                    .find(|(lit, _)| lit.is_some_and(|v| case_matches(sel, v)));
                if let Some(&(_, p)) = exact {
                    return Ok(Flow::Goto(p as usize + 1));
                }
                let default = cases.into_iter().flatten().find(|(lit, _)| lit.is_none());
                if let Some(&(_, p)) = default {
                    return Ok(Flow::Goto(p as usize + 1));
                }
                return self.goto_after(d, sw.end());
            }

            OpCode::Barrier => {
                if self.p.stage == ShaderStage::Compute && self.lanes.len() > 1 {
                    return Ok(Flow::Park);
                }
                Value::Void
            }

            // ----- conversions -----
            OpCode::ConvertFtoF
            | OpCode::ConvertFtoI
            | OpCode::ConvertItoF
            | OpCode::ConvertItoI
            | OpCode::ConsumeAs
            | OpCode::ConvertF32toPackedF16
            | OpCode::ConvertPackedF16toF32 => self.pure(l, d, op)?,
            OpCode::Cast => {
                let src = self.arg(l, d, Arith::of(op).a())?;
                let mut flat = Vec::new();
                src.flatten(&mut flat);
                let n = op.ty.as_basic().map_or(1, |b| b.vec_size() as usize);
                let c = convert::cast(&flat, rt(op), n)
                    .ok_or_else(|| Trap::bad(d, "Cast between types of different size"))?;
                Value::from_components(c.into_iter().collect())
            }

            // ----- composites -----
            OpCode::CompositeInsert => {
                let ins = CompositeInsert::of(op);
                let mut c = self.arg(l, d, ins.composite())?;
                let a = self.address(l, d, ins.address())?;
                let v = self.arg(l, d, ins.value())?;
                value_set(&mut c, &a, v).ok_or_else(|| Trap::new(d, TrapKind::OutOfBounds))?;
                c
            }
            OpCode::CompositeExtract => {
                let ext = CompositeExtract::of(op);
                let c = self.arg(l, d, ext.composite())?;
                let a = self.address(l, d, ext.address())?;
                value_get(&c, &a, result_len(op))
                    .ok_or_else(|| Trap::new(d, TrapKind::OutOfBounds))?
            }
            OpCode::CompositeConstruct => {
                let mut parts = Vec::with_capacity(op.operands.len());
                for p in CompositeConstruct::of(op).members() {
                    parts.push(self.arg(l, d, p.as_ref())?);
                }
                if op.ty.as_basic().is_some() {
                    let mut c = SmallVec::new();
                    for p in &parts {
                        c.extend(
                            p.components()
                                .ok_or_else(|| Trap::bad(d, "vector part is not a scalar"))?,
                        );
                    }
                    Value::from_components(c)
                } else {
                    Value::Composite(parts)
                }
            }
            OpCode::CheckSparseAccess => Value::bool(true),

            // ----- variables and I/O -----
            OpCode::ParamLoad => {
                let p = ParamLoad::of(op)
                    .param()
                    .ok_or_else(|| Trap::bad(d, "ParamLoad without parameter"))?;
                let f = self.lanes[l].frames.last().expect("frame");
                f.args
                    .iter()
                    .find(|(k, _)| *k == p)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| Trap::bad(d, "parameter of another function"))?
            }
            OpCode::TmpLoad => {
                let t = TmpLoad::of(op)
                    .var()
                    .ok_or_else(|| Trap::bad(d, "TmpLoad without variable"))?;
                match self.lanes[l].tmps.get(&t) {
                    Some(v) => v.clone(),
                    None => zero_value(m.ty(t)),
                }
            }
            OpCode::TmpStore => {
                let store = TmpStore::of(op);
                let t = store
                    .var()
                    .ok_or_else(|| Trap::bad(d, "TmpStore without variable"))?;
                let v = self.arg(l, d, store.value())?;
                self.lanes[l].tmps.insert(t, v);
                Value::Void
            }
            OpCode::InputLoad
            | OpCode::InterpolateAtCentroid
            | OpCode::InterpolateAtSample
            | OpCode::InterpolateAtOffset => {
                // `InterpolateAt{Sample,Offset}` start like `Load`: input, address.
                let (dcl, addr) = match Load::try_of(op) {
                    Some(load) => (load.base(), load.address()),
                    None => {
                        let at = irc_ir::format::InterpolateAtSample::try_of(op);
                        let off = irc_ir::format::InterpolateAtOffset::try_of(op);
                        match (at, off) {
                            (Some(s), _) => (s.base(), s.address()),
                            (None, Some(o)) => (o.base(), o.address()),
                            (None, None) => (None, None),
                        }
                    }
                };
                let dcl = dcl.ok_or_else(|| Trap::bad(d, "load without declaration"))?;
                let a = self.address(l, d, addr)?;
                let v = self.lanes[l]
                    .inputs
                    .get(&dcl)
                    .ok_or_else(|| Trap::bad(d, "not an input declaration"))?;
                match value_get(v, &a, result_len(op)) {
                    Some(v) => v,
                    // D3D9 constant registers: a relative index past the end reads zero.
                    None if is_legacy_constant(m.op(dcl))
                        && array_index_out_of_range(m.ty(dcl), &a) =>
                    {
                        zero_value(&op.ty)
                    }
                    None => return Err(Trap::new(d, TrapKind::OutOfBounds)),
                }
            }
            OpCode::OutputLoad => {
                let load = Load::of(op);
                let dcl = load
                    .base()
                    .ok_or_else(|| Trap::bad(d, "load without declaration"))?;
                let a = self.address(l, d, load.address())?;
                let v = self.lanes[l]
                    .outputs
                    .get(&dcl)
                    .ok_or_else(|| Trap::bad(d, "not an output declaration"))?;
                value_get(v, &a, result_len(op))
                    .ok_or_else(|| Trap::new(d, TrapKind::OutOfBounds))?
            }
            OpCode::OutputStore => {
                let store = Store::of(op);
                let dcl = store
                    .base()
                    .ok_or_else(|| Trap::bad(d, "store without declaration"))?;
                let a = self.address(l, d, store.address())?;
                let v = self.arg(l, d, store.value())?;
                let ty = m.ty(dcl).clone();
                let out = self.lanes[l]
                    .outputs
                    .get_mut(&dcl)
                    .ok_or_else(|| Trap::bad(d, "not an output declaration"))?;
                let v = conform(v, &ty, &a);
                value_set(out, &a, v).ok_or_else(|| Trap::new(d, TrapKind::OutOfBounds))?;
                Value::Void
            }
            OpCode::ScratchLoad
            | OpCode::ScratchStore
            | OpCode::LdsLoad
            | OpCode::LdsStore
            | OpCode::PushDataLoad => crate::resources::local_memory(self, l, d)?,
            OpCode::ConstantLoad => {
                let load = Load::of(op);
                let c = self.arg(l, d, load.base())?;
                let a = self.address(l, d, load.address())?;
                let cty = load.base().map(|c| m.ty(c).clone()).unwrap_or_default();
                match value_get(&c, &a, result_len(op)) {
                    Some(v) => v,
                    // Robust like dxbc-spirv's bound checking: an out-of-range array index
                    // reads zero.
                    None if array_index_out_of_range(&cty, &a) => zero_value(&op.ty),
                    None => return Err(Trap::new(d, TrapKind::OutOfBounds)),
                }
            }
            OpCode::DescriptorLoad => crate::resources::descriptor_load(self, l, d)?,
            OpCode::BufferLoad
            | OpCode::BufferStore
            | OpCode::BufferQuerySize
            | OpCode::BufferAtomic => crate::resources::buffer_op(self, l, d)?,
            OpCode::LdsAtomic | OpCode::CounterAtomic | OpCode::ImageAtomic => {
                crate::resources::atomic_op(self, l, d)?
            }
            OpCode::ImageLoad
            | OpCode::ImageStore
            | OpCode::ImageQuerySize
            | OpCode::ImageQueryMips
            | OpCode::ImageQuerySamples
            | OpCode::ImageGather => crate::resources::image_op(self, l, d)?,
            OpCode::ImageSample | OpCode::ImageComputeLod => {
                if crate::quad::needs_quad(self, d) {
                    return Ok(Flow::Park);
                }
                crate::quad::sample_op(self, l, d, None)?
            }
            OpCode::InputTargetLoad
            | OpCode::MemoryLoad
            | OpCode::MemoryStore
            | OpCode::MemoryAtomic
            | OpCode::Pointer => return unsupported(),

            // ----- stage-specific -----
            OpCode::EmitVertex | OpCode::EmitPrimitive => {
                crate::resources::gs_emit(self, l, d)?;
                Value::Void
            }
            OpCode::Demote => {
                self.lanes[l].demoted = true;
                Value::Void
            }
            OpCode::DerivX | OpCode::DerivY => {
                if self.p.stage == ShaderStage::Pixel {
                    return Ok(Flow::Park);
                }
                let v = self.arg(l, d, Deriv::of(op).value())?;
                let mut flat = Vec::new();
                v.flatten(&mut flat);
                Value::from_components(flat.iter().map(|s| float::from_f64(0.0, s.ty())).collect())
            }
            OpCode::RovScopedLockBegin | OpCode::RovScopedLockEnd => Value::Void,

            // ----- comparisons, logic, select, arithmetic: one definition, in `eval` -----
            OpCode::FMul | OpCode::FMad
                if self.cfg.fold_zero_products
                    && !op.flags.contains(irc_ir::OpFlags::PRECISE)
                    && !self.p.precise_types.contains(&rt(op)) =>
            {
                let mode = self.p.fp_modes.get(rt(op));
                self.map(l, d, op.operands.len(), |a| {
                    let is_zero = |s: &Scalar| {
                        fp_mode::flush_in(float::to_f64(*s, rt(op)), rt(op), mode) == 0.0
                    };
                    if a.len() >= 2 && (is_zero(&a[0]) || is_zero(&a[1])) {
                        Some(match a.get(2) {
                            Some(&c) => fp_mode::flush_scalar(c, rt(op), mode),
                            None => Scalar::zero(rt(op)),
                        })
                    } else {
                        float::float_op_in(op.opcode, rt(op), a, 0, mode)
                    }
                })?
            }
            OpCode::FMulLegacy
            | OpCode::FMadLegacy
            | OpCode::FDotLegacy
            | OpCode::FDotAddLegacy
            | OpCode::FPowLegacy
                if self.cfg.legacy_finite.is_some() =>
            {
                self.finite_product(l, d, op)?
            }
            OpCode::FMulLegacy
            | OpCode::FMadLegacy
            | OpCode::FDotLegacy
            | OpCode::FDotAddLegacy
                if self.cfg.legacy_clamp || self.cfg.legacy_ieee =>
            {
                let mut ieee = op.clone();
                ieee.opcode = ieee_product(op.opcode);
                self.pure(l, d, &ieee)?
            }
            OpCode::FPowLegacy if self.cfg.legacy_clamp || self.cfg.legacy_ieee => {
                let t = rt(op);
                let mode = self.p.fp_modes.get(t);
                self.map(l, d, 2, |a| {
                    let lg = float::float_op_in(OpCode::FLog2, t, &[a[0]], 0, mode)?;
                    let p = float::float_op_in(OpCode::FMul, t, &[a[1], lg], 0, mode)?;
                    float::float_op_in(OpCode::FExp2, t, &[p], 0, mode)
                })?
            }
            OpCode::FRcp | OpCode::FRsq | OpCode::FExp2
                if self.cfg.legacy_clamp && self.p.has_legacy_ops =>
            {
                let t = rt(op);
                let mode = self.p.fp_modes.get(t);
                let max = float::from_f64(float::max_finite(t), t);
                self.map(l, d, 1, |a| {
                    let r = float::float_op_in(op.opcode, t, a, 0, mode)?;
                    float::float_op_in(OpCode::FMin, t, &[r, max], 0, mode)
                })?
            }
            OpCode::FDiv if self.cfg.div_as_rcp_mul => {
                let t = rt(op);
                let mode = self.p.fp_modes.get(t);
                self.map(l, d, 2, |a| {
                    let r = float::float_op_in(OpCode::FRcp, t, &[a[1]], 0, mode)?;
                    float::float_op_in(OpCode::FMul, t, &[a[0], r], 0, mode)
                })?
            }
            OpCode::FRcp if sqrt_of.is_some() => {
                let t = rt(op);
                let mode = self.p.fp_modes.get(t);
                let x = self.comps(l, d, sqrt_of)?;
                let roots: Option<SmallVec<[Scalar; 4]>> = x
                    .iter()
                    .map(|&s| float::float_op_in(OpCode::FSqrt, t, &[s], 0, mode))
                    .collect();
                Value::from_components(
                    roots.ok_or_else(|| Trap::bad(d, "op does not apply to these operands"))?,
                )
            }
            OpCode::FSqrt if self.cfg.sqrt_as_rcp_rsqrt => {
                let t = rt(op);
                let mode = self.p.fp_modes.get(t);
                self.map(l, d, 1, |a| {
                    let r = float::float_op_in(OpCode::FRsq, t, a, 0, mode)?;
                    float::float_op_in(OpCode::FRcp, t, &[r], 0, mode)
                })?
            }
            OpCode::FPow if self.cfg.stepwise_transcendentals => {
                let t = rt(op);
                let mode = self.p.fp_modes.get(t);
                self.map(l, d, 2, |a| {
                    let lg = float::float_op_in(OpCode::FLog2, t, &[a[0]], 0, mode)?;
                    let p = float::float_op_in(OpCode::FMul, t, &[lg, a[1]], 0, mode)?;
                    float::float_op_in(OpCode::FExp2, t, &[p], 0, mode)
                })?
            }
            OpCode::FSin | OpCode::FCos
                if self.cfg.polynomial_trig && rt(op) == irc_ir::ScalarType::F32 =>
            {
                let t = rt(op);
                let mode = self.p.fp_modes.get(t);
                let sine = op.opcode == OpCode::FSin;
                self.map(l, d, 1, |a| {
                    irc_arith::trig::poly_sin_cos(a[0], t, mode, sine)
                })?
            }
            OpCode::FSin | OpCode::FCos if self.cfg.stepwise_transcendentals => {
                let t = rt(op);
                let mode = self.p.fp_modes.get(t);
                self.map(l, d, 1, |a| {
                    let r = |x: f64| fp_mode::round_step(x, 0.0, t, mode);
                    let k = r(1.0 / std::f64::consts::TAU);
                    let x = fp_mode::flush_in(float::to_f64(a[0], t), t, mode);
                    let turns = r(x * k);
                    let x = turns * std::f64::consts::TAU;
                    Some(fp_mode::round_result(
                        if op.opcode == OpCode::FSin {
                            x.sin()
                        } else {
                            x.cos()
                        },
                        0.0,
                        t,
                        mode,
                    ))
                })?
            }
            OpCode::FEq
            | OpCode::FNe
            | OpCode::FLt
            | OpCode::FLe
            | OpCode::FGt
            | OpCode::FGe
            | OpCode::FIsNan
            | OpCode::IEq
            | OpCode::INe
            | OpCode::SLt
            | OpCode::SLe
            | OpCode::SGt
            | OpCode::SGe
            | OpCode::ULt
            | OpCode::ULe
            | OpCode::UGt
            | OpCode::UGe
            | OpCode::BAnd
            | OpCode::BOr
            | OpCode::BEq
            | OpCode::BNe
            | OpCode::BNot
            | OpCode::Select
            | OpCode::FAbs
            | OpCode::FNeg
            | OpCode::FAdd
            | OpCode::FSub
            | OpCode::FMul
            | OpCode::FMulLegacy
            | OpCode::FMad
            | OpCode::FMadLegacy
            | OpCode::FDiv
            | OpCode::FRcp
            | OpCode::FSqrt
            | OpCode::FRsq
            | OpCode::FExp2
            | OpCode::FLog2
            | OpCode::FFract
            | OpCode::FMin
            | OpCode::FMax
            | OpCode::FClamp
            | OpCode::FSin
            | OpCode::FCos
            | OpCode::FPow
            | OpCode::FPowLegacy
            | OpCode::FSgn
            | OpCode::FLog2Legacy
            | OpCode::FRound
            | OpCode::FDot
            | OpCode::FDotLegacy
            | OpCode::FDotAdd
            | OpCode::FDotAddLegacy
            | OpCode::IAnd
            | OpCode::IOr
            | OpCode::IXor
            | OpCode::INot
            | OpCode::IBitInsert
            | OpCode::UBitExtract
            | OpCode::SBitExtract
            | OpCode::IShl
            | OpCode::SShr
            | OpCode::UShr
            | OpCode::IBitCount
            | OpCode::IBitReverse
            | OpCode::IFindLsb
            | OpCode::SFindMsb
            | OpCode::UFindMsb
            | OpCode::IAdd
            | OpCode::ISub
            | OpCode::IAbs
            | OpCode::INeg
            | OpCode::IMul
            | OpCode::UDiv
            | OpCode::UMod
            | OpCode::SMin
            | OpCode::SMax
            | OpCode::SClamp
            | OpCode::UMin
            | OpCode::UMax
            | OpCode::UClamp
            | OpCode::UMSad
            | OpCode::IAddCarry
            | OpCode::ISubBorrow
            | OpCode::SMulExtended
            | OpCode::UMulExtended
            | OpCode::MinValue
            | OpCode::MaxValue => self.pure(l, d, op)?,
            OpCode::Drain => match Drain::of(op).values().first().and_then(|o| o.as_ref()) {
                Some(a) if op.has_result() => self.get(l, d, a)?,
                _ => Value::Void,
            },
        };
        if op.has_result() {
            self.set(l, d, v);
        }
        Ok(Flow::Next)
    }

    fn current_fn_type(&self, l: usize) -> irc_ir::Type {
        let f = self.lanes[l].frames.last().expect("frame").func;
        self.p.m.ty(f).clone()
    }

    /// Jumps to the op after `target` (the end op of a scoped construct).
    fn goto_after(&self, at: SsaDef, target: Option<SsaDef>) -> Result<Flow, Trap> {
        let t = target.ok_or_else(|| Trap::bad(at, "scoped construct without end"))?;
        let p = self.p.pos_in_same_fn(at, t)?;
        Ok(Flow::Goto(p as usize + 1))
    }

    /// Evaluates a pure op with [`crate::eval::fold_in`] under the module's float modes: the
    /// one definition of the arithmetic that constant folding uses too.
    fn pure(&self, l: usize, d: SsaDef, op: &irc_ir::Op) -> Result<Value, Trap> {
        let mut args: SmallVec<[Value; 4]> = SmallVec::new();
        for (_, a) in op.refs() {
            args.push(self.arg(l, d, a)?);
        }
        crate::eval::fold_in(op, &args, &irc_ir::Type::void(), &self.p.fp_modes)
            .ok_or_else(|| Trap::bad(d, format!("{} does not apply to these operands", op.opcode)))
    }

    /// A legacy product under [`crate::RunConfig::legacy_finite`]: the IEEE op on factors
    /// limited to `±B`.
    fn finite_product(&self, l: usize, d: SsaDef, op: &irc_ir::Op) -> Result<Value, Trap> {
        let t = rt(op);
        let mode = self.p.fp_modes.get(t);
        let bound = self
            .cfg
            .legacy_finite
            .unwrap_or(f64::INFINITY)
            .min(float::max_finite(t));
        let (lo, hi) = (float::from_f64(-bound, t), float::from_f64(bound, t));
        let fin = |s: Scalar| float::float_op_in(OpCode::FClamp, t, &[s, lo, hi], 0, mode);
        if op.opcode == OpCode::FPowLegacy {
            return self.map(l, d, 2, |a| {
                let lg = float::float_op_in(OpCode::FLog2, t, &[a[0]], 0, mode)?;
                let p = float::float_op_in(OpCode::FMul, t, &[fin(a[1])?, fin(lg)?], 0, mode)?;
                float::float_op_in(OpCode::FExp2, t, &[p], 0, mode)
            });
        }
        let mut ieee = op.clone();
        ieee.opcode = ieee_product(op.opcode);
        let mut args: SmallVec<[Value; 4]> = SmallVec::new();
        for (i, (_, a)) in op.refs().enumerate() {
            let v = self.arg(l, d, a)?;
            args.push(if i < 2 {
                let comps = v
                    .components()
                    .ok_or_else(|| Trap::bad(d, "operand is not a scalar or vector"))?;
                let limited: Option<SmallVec<[Scalar; 4]>> = comps.into_iter().map(fin).collect();
                Value::from_components(
                    limited.ok_or_else(|| Trap::bad(d, "op does not apply to these operands"))?,
                )
            } else {
                v
            });
        }
        crate::eval::fold_in(&ieee, &args, &irc_ir::Type::void(), &self.p.fp_modes)
            .ok_or_else(|| Trap::bad(d, format!("{} does not apply to these operands", op.opcode)))
    }

    /// Components of operand `a`.
    pub(crate) fn comps(
        &self,
        l: usize,
        d: SsaDef,
        a: Option<SsaDef>,
    ) -> Result<SmallVec<[Scalar; 4]>, Trap> {
        self.arg(l, d, a)?
            .components()
            .ok_or_else(|| Trap::bad(d, "operand is not a scalar or vector"))
    }

    /// The operand of the `FRsq` that the `FRcp` `op` reads, when neither is precise (their
    /// own flag or a `precise` `SetFpMode` of their type) and both have the same type
    /// ([`crate::RunConfig::rcp_rsq_as_sqrt`]).
    fn rsq_operand(&self, op: &irc_ir::Op) -> Option<SsaDef> {
        irc_ir::analysis::rsq_of_rcp(self.p.m, op, |o| {
            o.flags.contains(irc_ir::OpFlags::PRECISE) || self.p.precise_types.contains(&rt(o))
        })
    }

    /// Applies `f` per component to the first `n` operands; scalar operands broadcast.
    fn map(
        &self,
        l: usize,
        d: SsaDef,
        n: usize,
        f: impl Fn(&[Scalar]) -> Option<Scalar>,
    ) -> Result<Value, Trap> {
        let mut args: SmallVec<[SmallVec<[Scalar; 4]>; 4]> = SmallVec::new();
        for (_, a) in self.p.m.op(d).refs().take(n) {
            args.push(self.comps(l, d, a)?);
        }
        let len = self
            .p
            .m
            .op(d)
            .ty
            .as_basic()
            .map_or(1, |b| b.vec_size() as usize);
        let mut out = SmallVec::new();
        for k in 0..len {
            let mut a: SmallVec<[Scalar; 4]> = SmallVec::new();
            for c in &args {
                a.push(match c.len() {
                    1 => c[0],
                    n if k < n => c[k],
                    _ => return Err(Trap::bad(d, "operand has fewer components than the result")),
                });
            }
            out.push(f(&a).ok_or_else(|| Trap::bad(d, "op does not apply to these operands"))?);
        }
        Ok(Value::from_components(out))
    }
}

/// The IEEE op of legacy product `op` (`FMulLegacy`, `FMadLegacy`, `FDotLegacy`,
/// `FDotAddLegacy`).
fn ieee_product(op: OpCode) -> OpCode {
    match op {
        OpCode::FMulLegacy => OpCode::FMul,
        OpCode::FMadLegacy => OpCode::FMad,
        OpCode::FDotLegacy => OpCode::FDot,
        _ => OpCode::FDotAdd,
    }
}

/// The scalar type of an op's result (for composites: of its first member).
pub(crate) fn rt(op: &irc_ir::Op) -> ScalarType {
    op.ty
        .members()
        .first()
        .map_or(ScalarType::Void, |b| b.scalar_type())
}

/// Number of components of the result (1 for non-vectors).
pub(crate) fn result_len(op: &irc_ir::Op) -> usize {
    op.ty.as_basic().map_or(1, |b| b.vec_size() as usize)
}

/// True if a switch selector matches a case value (compared at the selector's width).
fn case_matches(sel: Scalar, v: u64) -> bool {
    let m = crate::value::mask(crate::value::bit_width(sel.ty()));
    sel.bits() & m == v & m
}

/// Adapts a stored value to the shape of its destination when a typeless raw-IR load produced
/// a vector for a scalar slot: keeps the leading component(s) that fit.
fn conform(v: Value, ty: &irc_ir::Type, addr: &[u64]) -> Value {
    let Value::Vector(c) = &v else { return v };
    let Some(b) = ty.members().first() else {
        return v;
    };
    let depth = ty.array_dims().len() + usize::from(ty.is_struct());
    if addr.len() == depth && !ty.is_struct() {
        return v;
    }
    if addr.len() > depth || b.vec_size() == 1 {
        let avail = if addr.len() > depth {
            (b.vec_size() as u64).saturating_sub(addr[depth]) as usize
        } else {
            1
        };
        if c.len() > avail {
            return Value::from_components(c[..avail.max(1)].iter().copied().collect());
        }
    }
    v
}

/// True if one of the address components that index array dimensions (the first
/// `min(dimensions, address length)`, outermost dimension first) is past the end of a sized
/// dimension. Vector-component and struct-member indices do not count.
fn array_index_out_of_range(ty: &irc_ir::Type, address: &[u64]) -> bool {
    let dims = ty.array_dims();
    address
        .iter()
        .zip(dims.iter().rev())
        .any(|(&i, &n)| n != 0 && i >= u64::from(n))
}

/// True for `DclInputBuiltIn` of the D3D9 constant registers (`LegacyConstBool/Int/Float`).
fn is_legacy_constant(dcl: &irc_ir::Op) -> bool {
    dcl.opcode == OpCode::DclInputBuiltIn
        && DclInputBuiltIn::of(dcl).builtin().is_some_and(|b| {
            [
                irc_ir::BuiltIn::LegacyConstBool,
                irc_ir::BuiltIn::LegacyConstInt,
                irc_ir::BuiltIn::LegacyConstFloat,
            ]
            .iter()
            .any(|k| b == k.to_u64())
        })
}
