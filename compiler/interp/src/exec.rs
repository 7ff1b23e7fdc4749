//! The execution engine: invocations ("lanes"), the scheduler that runs them, call frames and
//! control flow for both IR shapes.
//!
//! Each lane is an explicit state machine (a stack of frames with a program counter), so a lane
//! can stop at any op and resume later. The scheduler runs every lane until it finishes or
//! **parks** at a cross-lane op — `DerivX`/`DerivY`, implicit-LOD `ImageSample` and
//! `ImageComputeLod` in pixel shaders, `Barrier` in compute shaders. When all unfinished lanes
//! are parked, the parked ops are evaluated together (reading the other lanes' current values)
//! and the lanes continue. With uniform control flow this is exact lockstep; with divergent
//! flow a derivative reads the neighbour's most recent value of the operand (or its own value if
//! the neighbour never computed it), which is one of the results D3D allows for undefined
//! derivatives. Demoted lanes keep running as helpers: their outputs are reported with
//! `discarded = true` and their UAV writes are dropped.
//!
//! Raw IR: scoped ops jump by position (`ScopedIf` → after `ScopedElse` or `ScopedEndIf`,
//! `ScopedLoopBreak` → after `ScopedEndLoop`, `ScopedEndLoop`/`ScopedLoopContinue` → after
//! `ScopedLoop`, `ScopedSwitch` → after the matching case, default or end; cases fall through).
//! Structured IR: a branch records the block it leaves; entering a `Label` evaluates the phis
//! that follow it **in parallel** from that predecessor.

use crate::inputs::{GsVertex, Image, InvocationOutputs, IoSlot, Outputs, ShaderInputs};
use crate::program::Program;
use crate::trap::{Trap, TrapKind};
use crate::value::{zero_value, Scalar, Value};
use irc_ir::format::{DclInput, DclInputBuiltIn, DclOutput, DclOutputBuiltIn};
use irc_ir::{BuiltIn, EntityRef, OpCode, ShaderStage, SsaDef};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::BTreeMap;

/// The most bytes one declaration (scratch array, shared memory, input, output, buffer
/// view, constant) may occupy: 16× Direct3D's largest (64 KiB constant buffers and indexable
/// temporaries). A run of a module declaring more traps before allocating anything, so a
/// small module cannot make the interpreter allocate gigabytes per lane.
pub const MAX_DECLARATION_BYTES: u64 = 1 << 20;

/// Limits of a run.
#[derive(Clone, Copy, Debug)]
pub struct RunConfig {
    /// Maximum number of ops executed over all invocations.
    pub fuel: u64,
    /// Maximum function call nesting.
    pub max_call_depth: usize,
    /// Maximum number of compute invocations per workgroup that are run.
    pub max_compute_lanes: u32,
    /// Evaluates non-precise `FMul`/`FMad` with a ±0 factor the way dxbc-spirv's
    /// `ArithmeticPass` folds them (`a·0 → +0`, `a·0 + c → c`, even for inf/NaN `a`). **Not**
    /// IEEE and off by default: it is an oracle for classifying raw-vs-legalized differences
    /// caused by that fold. "Precise" means the op's own flag or a `precise` `SetFpMode` of
    /// its type.
    pub fold_zero_products: bool,
    /// Evaluates `FDiv a b` as `a · (1/b)` with both steps rounded, the way targets without
    /// a divider (Lima, PICA) compute it. An oracle for comparing their simulators, where the
    /// one-ulp difference can be amplified (`fract(x · 2^24)`); off by default.
    pub div_as_rcp_mul: bool,
    /// Evaluates `FSqrt x` as `1/(1/√x)` with both steps rounded, the way the Lima GP (no
    /// square root unit) computes it: `floor(√(x · rcp(x)))` is then 1 where the correctly
    /// rounded root of `1 − 2^−24` gives 0. Off by default.
    pub sqrt_as_rcp_rsqrt: bool,
    /// Evaluates a non-precise `FRcp` of a non-precise `FRsq` of the same type as `FSqrt` of
    /// the `FRsq`'s operand, one rounding: how targets that fuse D3D9's `length` idiom
    /// (`rsq r, dp; rcp r, r`) into one square root compute it, where `floor` or `fract` of
    /// the result can amplify the rounding difference. Off by default.
    pub rcp_rsq_as_sqrt: bool,
    /// `DerivativeMode::Default` derivatives are fine (per row/column) instead of coarse.
    /// D3D leaves the choice to the implementation; Lima's PP computes fine derivatives. Off
    /// by default.
    pub fine_default_derivatives: bool,
    /// Evaluates `FPow a b` as `exp2(log2(a) · b)` and `FSin x`/`FCos x` as
    /// `sin(2π · (x · 1/2π))`, every step rounded: how targets whose hardware has only `exp2`,
    /// `log2` and sine/cosine in turns compute them. An oracle like the two above; off by
    /// default.
    pub stepwise_transcendentals: bool,
    /// Evaluates `FSin`/`FCos` of f32 as the polynomial arithmetic of
    /// [`irc_arith::trig::poly_sin_cos`], every step rounded: how the targets without
    /// trigonometric units compute them (the `lower-trig` pass). An oracle like the ones
    /// above; off by default.
    pub polynomial_trig: bool,
    /// Overrides the denormal mode of every float width whatever the module's `SetFpMode`
    /// says: `Some(true)` flushes, as targets without denormals compute (PICA's float24,
    /// Lima's fp16); `Some(false)` preserves (to classify differences that only flushing
    /// causes). An oracle like the ones above; `None` by default (the declared modes apply).
    pub flush_denormals: Option<bool>,
    /// Evaluates D3D9 shaders the way DXVK's default float emulation compiles them (the
    /// `legacy-mul=clamp` mode of the targets without legacy multiplies): `FMulLegacy`,
    /// `FMadLegacy`, `FDotLegacy`, `FDotAddLegacy` and `FPowLegacy` as their IEEE ops (the
    /// pow as `exp2(b · log2(a))`, each step rounded), and, in a module with any legacy op,
    /// every `FRcp`, `FRsq` and `FExp2` result limited to the largest finite value of its type
    /// (`FMin`, so NaN becomes that value too): so `0 · rcp(0)` is 0, but `0 · inf` from an
    /// input is NaN. `FLog2Legacy` stays exact. An oracle for that mode; off by default.
    pub legacy_clamp: bool,
    /// Evaluates `FMulLegacy`, `FMadLegacy`, `FDotLegacy`, `FDotAddLegacy` and `FPowLegacy`
    /// as their IEEE ops (the pow as `exp2(b · log2(a))`, each step rounded), as
    /// [`RunConfig::legacy_clamp`] does but without limiting any result: the oracle of the
    /// `legacy-mul=ieee` mode of the targets without legacy multiplies (`0 · inf` and `0 · NaN`
    /// are NaN). `FLog2Legacy` stays exact. Off by default.
    pub legacy_ieee: bool,
    /// Evaluates `FMulLegacy`, `FMadLegacy`, `FDotLegacy`, `FDotAddLegacy` and `FPowLegacy`
    /// as their IEEE ops on *finite* operands: each factor first goes through
    /// `FClamp(x, −B, B)` per component, `B` being the bound given here or the largest finite
    /// value of the type if that is smaller (the pow as `exp2(fin(b) · fin(log2 a))`, each
    /// step rounded). NaN becomes `−B` (the clamp's NaN rule), infinities `±B`. So `0 · x` is
    /// ±0 for every `x`, inf and NaN included, as D3D9 requires; a non-zero factor times an
    /// infinite or NaN one gives a finite value or an overflow instead of inf/NaN. The oracle of
    /// the `legacy-mul=finite` mode (`B` = 65504 on fp16 targets, `f32::MAX` elsewhere).
    /// `FLog2Legacy` stays exact. `None` by default.
    pub legacy_finite: Option<f64>,
    /// Computes every float width in a narrower range ([`irc_arith::NarrowRange`]: small
    /// magnitudes are +0, large ones ±inf, zero has no sign), the way a target with a narrower
    /// float format computes (PICA's float24). An oracle like the ones above; `None` by default.
    pub narrow_range: Option<irc_arith::NarrowRange>,
    /// A legacy product of ±0 and NaN is NaN instead of 0 (`FMulLegacy`, `FMadLegacy`, the
    /// legacy dot products and `FPowLegacy`'s multiply), as PICA's MUL computes it. An oracle
    /// like the ones above; off by default.
    pub legacy_zero_keeps_nan: bool,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            fuel: 10_000_000,
            max_call_depth: 64,
            max_compute_lanes: 1024,
            fold_zero_products: false,
            legacy_clamp: false,
            legacy_ieee: false,
            legacy_finite: None,
            div_as_rcp_mul: false,
            sqrt_as_rcp_rsqrt: false,
            rcp_rsq_as_sqrt: false,
            fine_default_derivatives: false,
            stepwise_transcendentals: false,
            polynomial_trig: false,
            flush_denormals: None,
            narrow_range: None,
            legacy_zero_keeps_nan: false,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub func: SsaDef,
    pub pc: usize,
    pub block: Option<SsaDef>,
    pub prev: Option<SsaDef>,
    pub args: SmallVec<[(SsaDef, Value); 4]>,
    /// The `FunctionCall` op that receives the return value.
    pub call: Option<SsaDef>,
}

#[derive(Debug, Default)]
pub(crate) struct Lane {
    pub vals: Vec<Option<Value>>,
    pub tmps: FxHashMap<SsaDef, Value>,
    pub scratch: FxHashMap<SsaDef, Vec<u8>>,
    pub inputs: FxHashMap<SsaDef, Value>,
    pub outputs: FxHashMap<SsaDef, Value>,
    pub frames: Vec<Frame>,
    pub demoted: bool,
    pub done: bool,
}

/// What an op asks the engine to do next.
#[derive(Debug)]
pub(crate) enum Flow {
    /// Store nothing more, go to the next op.
    Next,
    /// Jump to a position in the current function.
    Goto(usize),
    /// Structured branch to a label.
    Branch(SsaDef),
    Call(SsaDef, Vec<Value>),
    Return(Value),
    /// Cross-lane op: wait for the other lanes.
    Park,
}

/// Shared (cross-lane) memory: resources and LDS.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    pub cbv: FxHashMap<crate::inputs::Binding, Vec<u8>>,
    pub srv_buf: FxHashMap<crate::inputs::Binding, Vec<u8>>,
    pub uav_buf: FxHashMap<crate::inputs::Binding, Vec<u8>>,
    pub uav_img: FxHashMap<crate::inputs::Binding, Image>,
    pub counters: FxHashMap<crate::inputs::Binding, u32>,
    pub push: Vec<u8>,
    pub lds: FxHashMap<SsaDef, Vec<u8>>,
}

/// The interpreter state of one run.
#[derive(Debug)]
pub(crate) struct Interp<'m, 'i> {
    pub p: Program<'m>,
    pub inputs: &'i ShaderInputs,
    pub cfg: RunConfig,
    pub mem: Memory,
    pub lanes: Vec<Lane>,
    pub gs: Vec<GsVertex>,
    pub gs_prim: u32,
    pub steps: u64,
    /// See [`Outputs::divergent_quad_ops`].
    pub divergent_quad_ops: u32,
}

/// Runs the module's entry point on `inputs`.
///
/// Vertex and geometry shaders run one invocation, pixel shaders one 2×2 quad (four lanes),
/// compute shaders one workgroup (thread ids from `SetCsWorkgroupSize`, workgroup id 0).
pub fn run(
    module: &irc_ir::Module,
    inputs: &ShaderInputs,
    cfg: &RunConfig,
) -> Result<Outputs, Trap> {
    let mut p = Program::new(module)?;
    for m in [
        &mut p.fp_modes.f16,
        &mut p.fp_modes.f32,
        &mut p.fp_modes.f64,
    ] {
        if let Some(flush) = cfg.flush_denormals {
            m.flush_denormals = flush;
        }
        m.narrow = cfg.narrow_range;
        m.legacy_zero_keeps_nan = cfg.legacy_zero_keeps_nan;
    }
    let mut it = Interp {
        p,
        inputs,
        cfg: *cfg,
        mem: Memory::default(),
        lanes: Vec::new(),
        gs: Vec::new(),
        gs_prim: 0,
        steps: 0,
        divergent_quad_ops: 0,
    };
    it.setup()?;
    it.schedule()?;
    Ok(it.finish())
}

impl<'m, 'i> Interp<'m, 'i> {
    fn setup(&mut self) -> Result<(), Trap> {
        let stage = self.p.stage;
        let n = if stage == ShaderStage::Pixel {
            4
        } else if stage == ShaderStage::Vertex || stage == ShaderStage::Geometry {
            1
        } else if stage == ShaderStage::Compute {
            self.workgroup_size()
                .iter()
                .product::<u32>()
                .clamp(1, self.cfg.max_compute_lanes)
        } else {
            return Err(Trap::new(self.p.entry_point, TrapKind::UnsupportedStage));
        };
        for d in self.p.m.declarations() {
            let bytes = crate::access::type_size(&self.p.m.op(d).ty);
            if bytes > MAX_DECLARATION_BYTES {
                return Err(Trap::bad(
                    d,
                    format!(
                        "declares {bytes} bytes, over the interpreter's limit of \
                         {MAX_DECLARATION_BYTES} per declaration"
                    ),
                ));
            }
        }
        crate::resources::init_memory(self)?;
        for l in 0..n {
            let lane = self.new_lane(l)?;
            self.lanes.push(lane);
        }
        Ok(())
    }

    pub(crate) fn workgroup_size(&self) -> [u32; 3] {
        for d in self.p.m.declarations() {
            let op = self.p.m.op(d);
            if op.opcode == OpCode::SetCsWorkgroupSize {
                let l = |i| op.operand_lit(i).unwrap_or(1).min(1024) as u32;
                return [l(1), l(2), l(3)];
            }
        }
        [1, 1, 1]
    }

    fn new_lane(&mut self, l: u32) -> Result<Lane, Trap> {
        let m = self.p.m;
        let mut lane = Lane {
            vals: vec![None; m.id_bound()],
            ..Lane::default()
        };
        let inv = self
            .inputs
            .invocations
            .get(l as usize)
            .or(self.inputs.invocations.first());
        let wg = self.workgroup_size();
        for d in m.declarations() {
            let op = m.op(d);
            match op.opcode {
                OpCode::DclInput | OpCode::DclInputBuiltIn => {
                    let slot =
                        io_slot(op).ok_or_else(|| Trap::bad(d, "malformed input declaration"))?;
                    let mut v = inv
                        .and_then(|i| i.io.get(&slot))
                        .cloned()
                        .unwrap_or_else(|| zero_value(&op.ty));
                    if self.p.stage == ShaderStage::Compute {
                        let local = [l % wg[0], (l / wg[0]) % wg[1], l / (wg[0] * wg[1])];
                        match slot {
                            IoSlot::BuiltIn(b)
                                if b == BuiltIn::LocalThreadId as u32
                                    || b == BuiltIn::GlobalThreadId as u32 =>
                            {
                                v = Value::u32s(&local)
                            }
                            IoSlot::BuiltIn(b) if b == BuiltIn::WorkgroupId as u32 => {
                                v = Value::u32s(&[0, 0, 0])
                            }
                            IoSlot::BuiltIn(b) if b == BuiltIn::LocalThreadIndex as u32 => {
                                v = Value::u32(l)
                            }
                            _ => {}
                        }
                    }
                    lane.inputs.insert(d, v);
                }
                OpCode::DclOutput | OpCode::DclOutputBuiltIn => {
                    lane.outputs.insert(d, zero_value(&op.ty));
                }
                OpCode::DclScratch => {
                    lane.scratch
                        .insert(d, vec![0u8; crate::access::type_size(&op.ty) as usize]);
                }
                _ => {}
            }
        }
        lane.frames.push(Frame {
            func: self.p.entry_fn,
            pc: 0,
            block: None,
            prev: None,
            args: SmallVec::new(),
            call: None,
        });
        Ok(lane)
    }

    fn schedule(&mut self) -> Result<(), Trap> {
        loop {
            let mut parked = Vec::new();
            for l in 0..self.lanes.len() {
                if self.lanes[l].done {
                    continue;
                }
                if self.run_lane(l)? {
                    parked.push(l);
                }
            }
            if parked.is_empty() {
                return Ok(());
            }
            if self.p.stage == ShaderStage::Pixel {
                let first = self.current_op(parked[0])?;
                let mut uniform = parked.len() == self.lanes.len();
                for &l in &parked[1..] {
                    uniform &= self.current_op(l)? == first;
                }
                if !uniform {
                    self.divergent_quad_ops += parked.len() as u32;
                }
            }
            let mut results = Vec::with_capacity(parked.len());
            for &l in &parked {
                let d = self.current_op(l)?;
                results.push(crate::quad::exec_parked(self, l, d)?);
            }
            for (&l, v) in parked.iter().zip(results) {
                let d = self.current_op(l)?;
                self.set(l, d, v);
                if let Some(f) = self.lanes[l].frames.last_mut() {
                    f.pc += 1;
                }
            }
        }
    }

    pub(crate) fn current_op(&self, l: usize) -> Result<SsaDef, Trap> {
        let f = self.lanes[l]
            .frames
            .last()
            .ok_or_else(|| Trap::bad(self.p.entry_fn, "no frame"))?;
        let func = &self.p.funcs[&f.func];
        func.ops
            .get(f.pc)
            .copied()
            .ok_or_else(|| Trap::bad(f.func, "ran past the end of a function"))
    }

    /// Runs lane `l` until it finishes (`false`) or parks (`true`).
    fn run_lane(&mut self, l: usize) -> Result<bool, Trap> {
        loop {
            if self.lanes[l].done {
                return Ok(false);
            }
            let d = self.current_op(l)?;
            self.steps += 1;
            if self.steps > self.cfg.fuel {
                return Err(Trap::new(d, TrapKind::FuelExhausted));
            }
            let flow = self.exec(l, d)?;
            let frame = self.lanes[l]
                .frames
                .last_mut()
                .expect("frame checked by current_op");
            match flow {
                Flow::Next => frame.pc += 1,
                Flow::Goto(p) => frame.pc = p,
                Flow::Branch(label) => {
                    let p = self.p.pos_in_same_fn(d, label)?;
                    if self.p.m.op(label).opcode != OpCode::Label {
                        return Err(Trap::bad(d, "branch target is not a Label"));
                    }
                    let frame = self.lanes[l].frames.last_mut().expect("frame");
                    frame.pc = p as usize;
                }
                Flow::Call(func, args) => {
                    if self.lanes[l].frames.len() >= self.cfg.max_call_depth {
                        return Err(Trap::new(d, TrapKind::CallDepth));
                    }
                    let f = self
                        .p
                        .funcs
                        .get(&func)
                        .ok_or_else(|| Trap::bad(d, "call of a non-function"))?;
                    if f.params.len() != args.len() {
                        return Err(Trap::bad(d, "argument count does not match the parameters"));
                    }
                    let args = f.params.iter().copied().zip(args).collect();
                    self.lanes[l].frames.push(Frame {
                        func,
                        pc: 0,
                        block: None,
                        prev: None,
                        args,
                        call: Some(d),
                    });
                }
                Flow::Return(v) => {
                    let done = self.lanes[l].frames.pop().expect("frame");
                    match (done.call, self.lanes[l].frames.last_mut()) {
                        (Some(c), Some(caller)) => {
                            caller.pc += 1;
                            self.set(l, c, v);
                        }
                        _ => self.lanes[l].done = true,
                    }
                }
                Flow::Park => return Ok(true),
            }
        }
    }

    /// Stores the result of `d` in lane `l`.
    pub(crate) fn set(&mut self, l: usize, d: SsaDef, v: Value) {
        if let Some(slot) = self.lanes[l].vals.get_mut(d.index()) {
            *slot = Some(v);
        }
    }

    /// The value of operand def `d` in lane `l`.
    pub(crate) fn get(&self, l: usize, at: SsaDef, d: SsaDef) -> Result<Value, Trap> {
        if let Some(v) = self.p.consts.get(&d) {
            return Ok(v.clone());
        }
        if let Some(Some(v)) = self.lanes[l].vals.get(d.index()) {
            return Ok(v.clone());
        }
        match self.p.m.get(d).map(|o| o.opcode) {
            Some(OpCode::DclSpecConstant) => Ok(crate::resources::spec_constant(self, d)),
            Some(op) => Err(Trap::bad(
                at,
                format!("operand {d} ({op}) has no value here"),
            )),
            None => Err(Trap::bad(at, format!("operand {d} does not exist"))),
        }
    }

    /// The value of operand `a` of `at` (read through the op's format view: `Arith::of(op).a()`).
    pub(crate) fn arg(&self, l: usize, at: SsaDef, a: Option<SsaDef>) -> Result<Value, Trap> {
        let d = a.ok_or_else(|| Trap::bad(at, "operand missing"))?;
        self.get(l, at, d)
    }

    /// The value of operand `a`, `None` if null.
    pub(crate) fn opt_arg(
        &self,
        l: usize,
        at: SsaDef,
        a: Option<SsaDef>,
    ) -> Result<Option<Value>, Trap> {
        match a {
            Some(d) => self.get(l, at, d).map(Some),
            None => Ok(None),
        }
    }

    /// Operand `a` as a scalar.
    pub(crate) fn scalar_arg(
        &self,
        l: usize,
        at: SsaDef,
        a: Option<SsaDef>,
    ) -> Result<Scalar, Trap> {
        self.arg(l, at, a)?
            .as_scalar()
            .ok_or_else(|| Trap::bad(at, "operand is not a scalar"))
    }

    /// Operand `a` as an address (indices); null → empty.
    pub(crate) fn address(
        &self,
        l: usize,
        at: SsaDef,
        a: Option<SsaDef>,
    ) -> Result<SmallVec<[u64; 4]>, Trap> {
        let Some(v) = self.opt_arg(l, at, a)? else {
            return Ok(SmallVec::new());
        };
        let c = v
            .components()
            .ok_or_else(|| Trap::bad(at, "address is not a scalar or vector"))?;
        Ok(c.iter()
            .map(|s| s.bits() & crate::value::mask(crate::value::bit_width(s.ty())))
            .collect())
    }

    /// Executes the `Label` at the current position: enters the block and evaluates its phis
    /// in parallel from the predecessor.
    pub(crate) fn enter_block(&mut self, l: usize, label: SsaDef) -> Result<Flow, Trap> {
        let frame = self.lanes[l].frames.last_mut().expect("frame");
        frame.prev = frame.block;
        frame.block = Some(label);
        let pred = frame.prev;
        let start = frame.pc + 1;
        let ops = &self.p.funcs[&frame.func].ops;
        let mut k = start;
        let mut vals = Vec::new();
        while let Some(&d) = ops.get(k) {
            if self.p.m.op(d).opcode != OpCode::Phi {
                break;
            }
            vals.push((d, self.phi_value(l, d, pred)?));
            k += 1;
        }
        self.steps += vals.len() as u64;
        for (d, v) in vals {
            self.set(l, d, v);
        }
        Ok(Flow::Goto(k))
    }

    pub(crate) fn phi_value(
        &self,
        l: usize,
        d: SsaDef,
        pred: Option<SsaDef>,
    ) -> Result<Value, Trap> {
        let op = self.p.m.op(d);
        let pred =
            pred.ok_or_else(|| Trap::bad(d, "phi in a block entered without predecessor"))?;
        for pair in op.operands.chunks(2) {
            if pair.len() == 2 && pair[0].as_ref() == Some(pred) {
                return match pair[1].as_ref() {
                    Some(v) => self.get(l, d, v),
                    None => Ok(zero_value(&op.ty)),
                };
            }
        }
        Err(Trap::bad(
            d,
            format!("phi has no operand for predecessor {pred}"),
        ))
    }

    fn finish(self) -> Outputs {
        let m = self.p.m;
        let mut out = Outputs {
            steps: self.steps,
            divergent_quad_ops: self.divergent_quad_ops,
            gs_vertices: self.gs,
            ..Outputs::default()
        };
        for lane in &self.lanes {
            // GS outputs of different streams may share a slot: the stream-0 (lowest stream)
            // declaration's value is reported, independent of declaration order.
            let mut io = BTreeMap::new();
            let mut streams = BTreeMap::new();
            for (d, v) in &lane.outputs {
                let op = m.op(*d);
                if let Some(slot) = io_slot(op) {
                    let stream = output_stream(op);
                    if streams.get(&slot).is_none_or(|&s| stream < s) {
                        streams.insert(slot, stream);
                        io.insert(slot, v.clone());
                    }
                }
            }
            out.invocations.push(InvocationOutputs {
                io,
                discarded: lane.demoted,
            });
        }
        crate::resources::collect_uavs(&self.mem, m, &mut out);
        out
    }
}

/// The I/O slot of an input or output declaration.
pub(crate) fn io_slot(op: &irc_ir::Op) -> Option<IoSlot> {
    match op.opcode {
        OpCode::DclInput => Some(IoSlot::Location {
            location: DclInput::of(op).location()? as u32,
            component: DclInput::of(op).component()? as u32,
        }),
        OpCode::DclOutput => Some(IoSlot::Location {
            location: DclOutput::of(op).location()? as u32,
            component: DclOutput::of(op).component()? as u32,
        }),
        OpCode::DclInputBuiltIn => Some(IoSlot::BuiltIn(DclInputBuiltIn::of(op).builtin()? as u32)),
        OpCode::DclOutputBuiltIn => {
            Some(IoSlot::BuiltIn(DclOutputBuiltIn::of(op).builtin()? as u32))
        }
        _ => None,
    }
}

/// The stream of an output declaration (0 if absent).
pub(crate) fn output_stream(op: &irc_ir::Op) -> u32 {
    match op.opcode {
        OpCode::DclOutput => DclOutput::of(op).stream(),
        _ => DclOutputBuiltIn::try_of(op).and_then(|o| o.stream()),
    }
    .unwrap_or(0) as u32
}
