//! An f32 simulator of AGAL programs, decoding the bytes itself (§6 semantics), and the
//! generic [`irc_backend::Simulator`] for the differential harness.
//!
//! # Model
//!
//! * A run executes one program for N invocations in lockstep: N vertices of a vertex program
//!   (independent), or the 2×2 quad of a fragment program (lane = y·2 + x, 4 lanes; 1 lane is
//!   accepted, its derivatives are 0). Registers are f32 vec4s: attributes / varyings from
//!   [`RunInputs::inputs`] per invocation, constants shared, temporaries and outputs 0 at the
//!   start. Register numbers beyond the version's limit (§5) are run errors; reading an
//!   attribute/varying that was not given reads 0.
//! * Semantics (§6): `log`/`exp` base 2 (these, `pow`, `rsq`, `sin` and `cos` rounded as the
//!   IR rounds them: `irc_backend::exact_fn`), `frc` = x − floor(x), `dp3`/`dp4` broadcast,
//!   `nrm`/`crs`/`m33`/`m34` produce xyz (w = 0 if unmasked), matrix rows from consecutive
//!   registers source2 + 0…, `sge/slt/seq/sne` give 1.0/0.0, `sat` clamps to [0, 1] (NaN → 0),
//!   `sgn` gives −1/0/1. Only lanes of the write mask are written.
//! * `min`/`max` of a NaN return the other operand; of two zeros of opposite sign they order
//!   −0 below +0 (the IR's `FMin`/`FMax`: `irc_backend::exact_fn::min`/`max`). The reference is
//!   silent on signed zeros; this is an assumption about the runtime, recorded here so that
//!   the harness compares against one definite model (Rust's `f32::max` may return either).
//! * Indirect sources read register `offset + trunc(index lane)` (truncation toward zero:
//!   compilers should produce exact integers).
//! * `kil` discards when lane 0 of its (scalar) source is < 0; a discarded lane keeps
//!   executing as a helper (D3D9 texkill) and is reported discarded.
//! * Conditionals (AGAL ≥ 2): `ife/ine/ifg/ifl` compare the swizzled sources on all four lanes
//!   (`all(==)`, `any(!=)`, `all(>)`, `all(<)` — with the scalar swizzles the validator demands,
//!   one comparison; `ifg` is `>` as in Ruffle, §6.2); lanes failing it are inactive until
//!   `els`/`eif`. Inactive lanes still compute operands for quad operations.
//! * `ddx`/`ddy`: fine derivatives in the quad (`ddx` = right − left of the lane's row, `ddy` =
//!   bottom − top of its column), from every lane's source value (active or not).
//! * `tex`: the sampler `fsN` is looked up in [`RunInputs::samplers`] by index and fetched
//!   through [`TextureSource`] with the quad's coordinates. The token's filter and wrap fields
//!   are not passed (a [`irc_backend::TextureFetch`] has no place for them; the harness's
//!   sampler state decides); LOD: `ignoresampler` → automatic; `mipnone` → explicit level 0;
//!   a non-zero bias → automatic + bias/8; else automatic. The fetch's kind is the binding's
//!   (the token's dimension is the validator's business).
//! * `ted` (undocumented LOD semantics) and `tld` (AGAL 4) are run errors. Every executed token
//!   costs one unit of fuel.
//!
//! # The generic simulator's conventions ([`AgalSimulator`])
//!
//! The code section is the whole AGAL program (header + tokens). Through the output's
//! [`Reflection`]:
//! * `varyings[k]` (source, `slot`, `lane`, `components`): component `i` of the source goes to
//!   lane `lane + i` of attribute register `va<slot>` (vertex programs) or varying `v<slot>`
//!   (fragment programs); a `BuiltIn(InstanceId)` source feeds `iid` instead (slot ignored).
//! * `uniforms[k]` (`slot`, source): constant register `vc<slot>` / `fc<slot>`;
//!   `Literal` values uploaded as given, `Legacy` float constants bit-cast, int constants
//!   converted, bool constants 0/1, `ConstantBuffer` words bit-cast (lanes in `int_lanes`
//!   converted from i32).
//! * `samplers[k]` (`index`): sampler `fs<index>`.
//! * `outputs[k]` (target, `register`, `components`): in vertex programs a `BuiltIn(Position)`
//!   target is `op`, any other target varying `v<register>`; in fragment programs a
//!   `BuiltIn(Depth)` target is `fd.x`, any other colour output `oc<register>`. Component `i`
//!   is lane `i`; only lanes the program wrote are reported.

use irc_backend::exact_fn;
use irc_backend::{
    InvocationOutputs, IoName, IoSource, LodMode, Output, Reflection, SamplerBinding, SimConfig,
    SimError, SimInputs, SimOutputs, Simulator, TextureFetch, TextureSource, UniformSource,
};
use irc_ir::BuiltIn;

use crate::decode::decode_program;
use crate::instr::{Instruction, Program, Sampler, Source, Src2};
use crate::isa::{special, swizzle, Mipmap, OpClass, Opcode, RegType, ShaderKind};

/// Inputs of one run.
pub struct RunInputs<'a> {
    /// Constant registers `vc`/`fc` (missing ones read 0).
    pub constants: &'a [[f32; 4]],
    /// Per invocation: attribute registers (vertex) or varyings (fragment).
    pub inputs: Vec<Vec<[f32; 4]>>,
    /// `iid` of vertex programs.
    pub instance_id: u32,
    pub textures: &'a dyn TextureSource,
    /// Bindings by sampler index (`fs<index>`).
    pub samplers: &'a [SamplerBinding],
    /// Most tokens executed.
    pub fuel: u64,
}

impl std::fmt::Debug for RunInputs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunInputs")
            .field("constants", &self.constants)
            .field("inputs", &self.inputs)
            .field("instance_id", &self.instance_id)
            .field("samplers", &self.samplers)
            .finish_non_exhaustive()
    }
}

/// What one invocation produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LaneResult {
    /// `op` (vertex) or `oc0..oc3` (fragment), with the lanes written.
    pub outputs: [[f32; 4]; 4],
    pub output_masks: [u8; 4],
    /// Vertex programs: varyings `v0..v9` and the lanes written.
    pub varyings: [[f32; 4]; 10],
    pub varying_masks: [u8; 10],
    /// `fd.x`, if written.
    pub depth: Option<f32>,
    pub discarded: bool,
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunResult {
    pub lanes: Vec<LaneResult>,
    /// Tokens executed.
    pub steps: u64,
    /// Derivatives and implicit-LOD fetches executed with some quad lanes inactive.
    pub divergent_quad_ops: u32,
}

fn serr(at: usize, msg: impl Into<String>) -> SimError {
    SimError(format!("token {at}: {}", msg.into()))
}

/// Decodes and runs program bytes.
pub fn run(bytes: &[u8], inputs: &RunInputs<'_>) -> Result<RunResult, SimError> {
    let program = decode_program(bytes).map_err(|e| SimError(e.to_string()))?;
    run_program(&program, inputs)
}

#[derive(Clone)]
struct Lane {
    temps: Vec<[f32; 4]>,
    res: LaneResult,
}

/// Runs a decoded program.
pub fn run_program(p: &Program, inputs: &RunInputs<'_>) -> Result<RunResult, SimError> {
    let n = inputs.inputs.len();
    if n == 0 {
        return Err(SimError("no invocations".into()));
    }
    if p.kind == ShaderKind::Fragment && n != 1 && n != 4 {
        return Err(SimError(format!(
            "a fragment run has 1 or 4 lanes, not {n}"
        )));
    }
    let temps = RegType::Temporary.limit(p.version, p.kind) as usize;
    let mut m = Machine {
        p,
        inputs,
        lanes: vec![
            Lane {
                temps: vec![[0.0; 4]; temps],
                res: LaneResult::default(),
            };
            n
        ],
        active: vec![true; n],
        stack: Vec::new(),
        divergent: 0,
        at: 0,
    };
    let mut steps = 0;
    for (i, instr) in p.instructions.iter().enumerate() {
        if steps >= inputs.fuel {
            return Err(serr(i + 1, "out of fuel"));
        }
        steps += 1;
        m.at = i + 1;
        m.step(instr)?;
    }
    if !m.stack.is_empty() {
        return Err(SimError("conditional block open at the end".into()));
    }
    Ok(RunResult {
        lanes: m.lanes.into_iter().map(|l| l.res).collect(),
        steps,
        divergent_quad_ops: m.divergent,
    })
}

struct Machine<'a, 'b> {
    p: &'a Program,
    inputs: &'a RunInputs<'b>,
    lanes: Vec<Lane>,
    active: Vec<bool>,
    /// (active before the if, condition) per open block.
    stack: Vec<(Vec<bool>, Vec<bool>)>,
    divergent: u32,
    at: usize,
}

fn dot(a: [f32; 4], b: [f32; 4], n: usize) -> f32 {
    (0..n).map(|i| a[i] * b[i]).sum()
}

fn map1(a: [f32; 4], f: impl Fn(f32) -> f32) -> [f32; 4] {
    a.map(f)
}

fn map2(a: [f32; 4], b: [f32; 4], f: impl Fn(f32, f32) -> f32) -> [f32; 4] {
    std::array::from_fn(|i| f(a[i], b[i]))
}

fn flag(c: bool) -> f32 {
    if c {
        1.0
    } else {
        0.0
    }
}

impl Machine<'_, '_> {
    fn err(&self, msg: impl Into<String>) -> SimError {
        serr(self.at, msg)
    }

    fn limit(&self, ty: RegType) -> usize {
        ty.limit(self.p.version, self.p.kind) as usize
    }

    /// Register `reg` of type `ty` in lane `l` (unswizzled).
    fn reg(&self, l: usize, ty: RegType, reg: i64) -> Result<[f32; 4], SimError> {
        if reg < 0 || reg as usize >= self.limit(ty) {
            return Err(self.err(format!("{ty:?} register {reg} out of range")));
        }
        let r = reg as usize;
        Ok(match ty {
            RegType::Constant => self.inputs.constants.get(r).copied().unwrap_or_default(),
            RegType::Attribute | RegType::Varying => {
                self.inputs.inputs[l].get(r).copied().unwrap_or_default()
            }
            RegType::Temporary => self.lanes[l].temps[r],
            RegType::InstanceId => [self.inputs.instance_id as f32, 0.0, 0.0, 0.0],
            RegType::Output | RegType::DepthOutput | RegType::Sampler => {
                return Err(self.err(format!("{ty:?} register read")))
            }
        })
    }

    /// Source `s` in lane `l`, register offset by `row` (matrix rows), swizzled.
    fn read(&self, l: usize, s: &Source, row: i64) -> Result<[f32; 4], SimError> {
        let reg = match s.indirect {
            None => i64::from(s.reg) + row,
            Some(ind) => {
                let idx = self.reg(l, ind.index_type, s.reg.into())?[usize::from(ind.select & 3)];
                if !idx.is_finite() {
                    return Err(self.err(format!("indirect index {idx}")));
                }
                idx.trunc() as i64 + i64::from(ind.offset) + row
            }
        };
        let v = self.reg(l, s.ty, reg)?;
        Ok(std::array::from_fn(|i| v[swizzle::lane(s.swizzle, i)]))
    }

    /// Reads a source in every lane; errors only count for active lanes (helpers read 0).
    fn read_all(&self, s: &Source, row: i64) -> Result<Vec<[f32; 4]>, SimError> {
        (0..self.lanes.len())
            .map(|l| match self.read(l, s, row) {
                Ok(v) => Ok(v),
                Err(_) if !self.active[l] => Ok([0.0; 4]),
                Err(e) => Err(e),
            })
            .collect()
    }

    fn src2(&self, i: &Instruction) -> Result<Source, SimError> {
        i.src2
            .source()
            .copied()
            .ok_or_else(|| self.err("source 2 is a sampler"))
    }

    fn step(&mut self, i: &Instruction) -> Result<(), SimError> {
        let n = self.lanes.len();
        match i.op.class() {
            OpClass::If => {
                let b = self.src2(i)?;
                let (x, y) = (self.read_all(&i.src1, 0)?, self.read_all(&b, 0)?);
                let cond: Vec<bool> = (0..n)
                    .map(|l| {
                        let (a, b) = (x[l], y[l]);
                        match i.op {
                            Opcode::Ife => (0..4).all(|k| a[k] == b[k]),
                            Opcode::Ine => (0..4).any(|k| a[k] != b[k]),
                            Opcode::Ifg => (0..4).all(|k| a[k] > b[k]),
                            _ => (0..4).all(|k| a[k] < b[k]),
                        }
                    })
                    .collect();
                let before = self.active.clone();
                self.active = (0..n).map(|l| before[l] && cond[l]).collect();
                self.stack.push((before, cond));
                return Ok(());
            }
            OpClass::Else => {
                let (before, cond) = self
                    .stack
                    .last()
                    .ok_or_else(|| self.err("els without if"))?;
                self.active = (0..n).map(|l| before[l] && !cond[l]).collect();
                return Ok(());
            }
            OpClass::EndIf => {
                let (before, _) = self.stack.pop().ok_or_else(|| self.err("eif without if"))?;
                self.active = before;
                return Ok(());
            }
            OpClass::Kill => {
                let v = self.read_all(&i.src1, 0)?;
                for (l, v) in v.iter().enumerate() {
                    if self.active[l] && v[0] < 0.0 {
                        self.lanes[l].res.discarded = true;
                    }
                }
                return Ok(());
            }
            _ => {}
        }
        let results = self.compute(i)?;
        for (l, r) in results.into_iter().enumerate() {
            if self.active[l] {
                self.write(l, i, r)?;
            }
        }
        Ok(())
    }

    fn all_active(&self) -> bool {
        self.active.iter().all(|&a| a)
    }

    fn compute(&mut self, i: &Instruction) -> Result<Vec<[f32; 4]>, SimError> {
        use Opcode::*;
        let n = self.lanes.len();
        let a = self.read_all(&i.src1, 0)?;
        match i.op.class() {
            OpClass::Derivative => {
                if !self.all_active() {
                    self.divergent += 1;
                }
                if n == 1 {
                    return Ok(vec![[0.0; 4]]);
                }
                return Ok((0..4)
                    .map(|l| {
                        let (lo, hi) = if i.op == Ddx {
                            (l & 2, (l & 2) | 1)
                        } else {
                            (l & 1, (l & 1) | 2)
                        };
                        map2(a[hi], a[lo], |h, o| h - o)
                    })
                    .collect());
            }
            OpClass::Texture => {
                let Src2::Sampler(s) = i.src2 else {
                    return Err(self.err("texture opcode without a sampler"));
                };
                if i.op != Tex {
                    return Err(self.err(format!("{} is not simulated", i.op.mnemonic())));
                }
                return self.texture(&s, &a);
            }
            _ => {}
        }
        let rows = i64::from(i.op.matrix_rows());
        let mut out = Vec::with_capacity(n);
        let b = match i.op.num_srcs() {
            2 if rows == 0 => Some(self.read_all(&self.src2(i)?, 0)?),
            _ => None,
        };
        let mat: Vec<Vec<[f32; 4]>> = (0..rows)
            .map(|r| self.read_all(&self.src2(i)?, r))
            .collect::<Result<_, _>>()?;
        for l in 0..n {
            let x = a[l];
            let y = b.as_ref().map_or([0.0; 4], |b| b[l]);
            let r = match i.op {
                Mov => x,
                Add => map2(x, y, |p, q| p + q),
                Sub => map2(x, y, |p, q| p - q),
                Mul => map2(x, y, |p, q| p * q),
                Div => map2(x, y, |p, q| p / q),
                Rcp => map1(x, |p| 1.0 / p),
                Min => map2(x, y, exact_fn::min),
                Max => map2(x, y, exact_fn::max),
                Frc => map1(x, |p| p - p.floor()),
                Sqt => map1(x, f32::sqrt),
                Rsq => map1(x, exact_fn::rsqrt),
                Pow => map2(x, y, exact_fn::pow),
                Log => map1(x, exact_fn::log2),
                Exp => map1(x, exact_fn::exp2),
                Nrm => {
                    let len = dot(x, x, 3).sqrt();
                    [x[0] / len, x[1] / len, x[2] / len, 0.0]
                }
                Sin => map1(x, exact_fn::sin),
                Cos => map1(x, exact_fn::cos),
                Crs => [
                    x[1] * y[2] - x[2] * y[1],
                    x[2] * y[0] - x[0] * y[2],
                    x[0] * y[1] - x[1] * y[0],
                    0.0,
                ],
                Dp3 => [dot(x, y, 3); 4],
                Dp4 => [dot(x, y, 4); 4],
                Abs => map1(x, f32::abs),
                Neg => map1(x, |p| -p),
                Sat => map1(x, |p| if p > 0.0 { p.min(1.0) } else { 0.0 }),
                Sgn => map1(x, |p| {
                    if p > 0.0 {
                        1.0
                    } else if p < 0.0 {
                        -1.0
                    } else {
                        0.0
                    }
                }),
                M33 | M34 | M44 => {
                    let k = if i.op == M33 { 3 } else { 4 };
                    let mut r = [0.0; 4];
                    for (row, m) in mat.iter().enumerate() {
                        r[row] = dot(x, m[l], k);
                    }
                    r
                }
                Sge => map2(x, y, |p, q| flag(p >= q)),
                Slt => map2(x, y, |p, q| flag(p < q)),
                Seq => map2(x, y, |p, q| flag(p == q)),
                Sne => map2(x, y, |p, q| flag(p != q)),
                Ddx | Ddy | Ife | Ine | Ifg | Ifl | Els | Eif | Ted | Kil | Tex | Tld => {
                    return Err(self.err("internal: control opcode in compute"))
                }
            };
            out.push(r);
        }
        Ok(out)
    }

    fn texture(&mut self, s: &Sampler, coords: &[[f32; 4]]) -> Result<Vec<[f32; 4]>, SimError> {
        let binding = self
            .inputs
            .samplers
            .iter()
            .find(|b| b.index == u32::from(s.reg))
            .ok_or_else(|| self.err(format!("no texture bound to fs{}", s.reg)))?;
        let lod = if s.special & special::IGNORE_SAMPLER != 0 {
            LodMode::Auto
        } else if s.mipmap == Mipmap::None {
            LodMode::Explicit(0.0)
        } else if s.lod_bias != 0 {
            LodMode::Bias(s.bias())
        } else {
            LodMode::Auto
        };
        if lod != LodMode::Explicit(0.0) && !self.all_active() {
            self.divergent += 1;
        }
        let quad: [[f32; 4]; 4] = std::array::from_fn(|l| coords[l.min(coords.len() - 1)]);
        let mut out = Vec::with_capacity(coords.len());
        for (l, c) in coords.iter().enumerate() {
            if !self.active[l] {
                out.push([0.0; 4]);
                continue;
            }
            let fetch = TextureFetch {
                texture: binding.texture,
                sampler: binding.sampler,
                kind: binding.kind,
                coords: *c,
                quad_coords: quad,
                lod,
                lane: l,
            };
            out.push(
                self.inputs
                    .textures
                    .fetch(&fetch)
                    .map_err(|e| self.err(e))?,
            );
        }
        Ok(out)
    }

    fn write(&mut self, l: usize, i: &Instruction, v: [f32; 4]) -> Result<(), SimError> {
        let d = i.dest;
        let r = usize::from(d.reg);
        if r >= self.limit(d.ty) {
            return Err(self.err(format!("{:?} register {r} out of range", d.ty)));
        }
        let res = &mut self.lanes[l].res;
        let (slot, mask): (&mut [f32; 4], &mut u8) = match d.ty {
            RegType::Temporary => {
                let t = &mut self.lanes[l].temps[r];
                for k in 0..4 {
                    if d.mask & (1 << k) != 0 {
                        t[k] = v[k];
                    }
                }
                return Ok(());
            }
            RegType::Output => (&mut res.outputs[r], &mut res.output_masks[r]),
            RegType::Varying if self.p.kind == ShaderKind::Vertex => {
                (&mut res.varyings[r], &mut res.varying_masks[r])
            }
            RegType::DepthOutput => {
                if d.mask & 1 != 0 {
                    res.depth = Some(v[0]);
                }
                return Ok(());
            }
            ty => return Err(self.err(format!("{ty:?} register written"))),
        };
        for k in 0..4 {
            if d.mask & (1 << k) != 0 {
                slot[k] = v[k];
            }
        }
        *mask |= d.mask & 0xF;
        Ok(())
    }
}

/// The generic simulator (conventions in the module doc).
#[derive(Debug, Clone, Copy, Default)]
pub struct AgalSimulator;

fn io_key(src: IoSource, i: u32) -> (IoName, u32) {
    match src {
        IoSource::Location {
            location,
            component,
        } => (IoName::Location(location), component + i),
        IoSource::BuiltIn(b) => (IoName::BuiltIn(b), i),
    }
}

/// The constant registers a reflection asks for.
pub fn upload_constants(
    refl: &Reflection,
    inputs: &SimInputs<'_>,
    count: usize,
) -> Result<Vec<[f32; 4]>, SimError> {
    let mut regs = vec![[0.0f32; 4]; count];
    for u in &refl.uniforms {
        let slot = regs
            .get_mut(u.slot as usize)
            .ok_or_else(|| SimError(format!("uniform slot {} beyond {count} constants", u.slot)))?;
        *slot = match &u.source {
            UniformSource::Literal(v) => *v,
            UniformSource::LegacyLoop { index } => {
                return Err(SimError(format!(
                    "uniform slot {}: AGAL has no loop registers (i{index})",
                    u.slot
                )))
            }
            UniformSource::Legacy { kind, index } => {
                let raw = inputs
                    .legacy_constants
                    .get(&(*kind, *index))
                    .ok_or_else(|| {
                        SimError(format!("legacy constant {kind:?}[{index}] not given"))
                    })?;
                raw.map(|w| match kind {
                    BuiltIn::LegacyConstInt => w as i32 as f32,
                    BuiltIn::LegacyConstBool => flag(w != 0),
                    _ => f32::from_bits(w),
                })
            }
            UniformSource::ConstantBuffer {
                binding,
                vec4_index,
                int_lanes,
            } => {
                let words = inputs
                    .constant_buffers
                    .get(binding)
                    .ok_or_else(|| SimError(format!("constant buffer {binding:?} not given")))?;
                let mut v = [0.0; 4];
                for (k, lane) in v.iter_mut().enumerate() {
                    let w = words
                        .get(*vec4_index as usize * 4 + k)
                        .copied()
                        .ok_or_else(|| {
                            SimError(format!("constant buffer {binding:?} too short"))
                        })?;
                    *lane = if int_lanes & (1 << k) != 0 {
                        w as i32 as f32
                    } else {
                        f32::from_bits(w)
                    };
                }
                v
            }
        };
    }
    Ok(regs)
}

impl Simulator for AgalSimulator {
    fn run(
        &self,
        output: &Output,
        inputs: &SimInputs<'_>,
        config: &SimConfig,
    ) -> Result<SimOutputs, SimError> {
        let p = decode_program(output.code()).map_err(|e| SimError(e.to_string()))?;
        let refl = &output.reflection;
        let input_ty = match p.kind {
            ShaderKind::Vertex => RegType::Attribute,
            ShaderKind::Fragment => RegType::Varying,
        };
        let constants = upload_constants(
            refl,
            inputs,
            RegType::Constant.limit(p.version, p.kind) as usize,
        )?;
        let n_in = input_ty.limit(p.version, p.kind) as usize;
        let mut instance_id = 0;
        let mut regs = Vec::with_capacity(inputs.invocations.len());
        for inv in &inputs.invocations {
            let mut r = vec![[0.0f32; 4]; n_in];
            for b in &refl.varyings {
                for i in 0..u32::from(b.components) {
                    let key = io_key(b.source, i);
                    let v = *inv
                        .get(&key)
                        .ok_or_else(|| SimError(format!("input {key:?} not given")))?;
                    if b.source == IoSource::BuiltIn(BuiltIn::InstanceId) {
                        instance_id = v;
                        continue;
                    }
                    let lane = usize::from(b.lane) + i as usize;
                    let slot =
                        r.get_mut(b.slot as usize)
                            .filter(|_| lane < 4)
                            .ok_or_else(|| {
                                SimError(format!("input slot {} lane {lane} out of range", b.slot))
                            })?;
                    slot[lane] = f32::from_bits(v);
                }
            }
            regs.push(r);
        }
        let run_inputs = RunInputs {
            constants: &constants,
            inputs: regs,
            instance_id,
            textures: inputs.textures,
            samplers: &refl.samplers,
            fuel: config.fuel,
        };
        let result = run_program(&p, &run_inputs)?;
        let mut out = SimOutputs {
            invocations: Vec::with_capacity(result.lanes.len()),
            divergent_quad_ops: result.divergent_quad_ops,
            steps: result.steps,
            ..Default::default()
        };
        for lane in &result.lanes {
            let mut inv = InvocationOutputs {
                discarded: lane.discarded,
                ..Default::default()
            };
            for o in &refl.outputs {
                let r = o.register as usize;
                let (vals, mask) = match (p.kind, o.target) {
                    (ShaderKind::Vertex, IoSource::BuiltIn(BuiltIn::Position)) => {
                        (lane.outputs[0], lane.output_masks[0])
                    }
                    (ShaderKind::Vertex, _) if r < 10 => (lane.varyings[r], lane.varying_masks[r]),
                    (ShaderKind::Fragment, IoSource::BuiltIn(BuiltIn::Depth)) => match lane.depth {
                        Some(d) => ([d, 0.0, 0.0, 0.0], 1),
                        None => ([0.0; 4], 0),
                    },
                    (ShaderKind::Fragment, _) if r < 4 => (lane.outputs[r], lane.output_masks[r]),
                    _ => return Err(SimError(format!("output register {r} out of range"))),
                };
                for i in 0..u32::from(o.components).min(4) {
                    if mask & (1 << i) != 0 {
                        inv.values
                            .insert(io_key(o.target, i), vals[i as usize].to_bits());
                    }
                }
            }
            // Outputs AGAL has no register for, constant by construction (`crate::reflection`).
            let fixed = refl.target_part::<crate::reflection::AgalReflection>();
            for f in fixed.iter().flat_map(|f| &f.fixed_outputs) {
                for (i, v) in f.values.iter().enumerate() {
                    inv.values.insert(io_key(f.target, i as u32), v.to_bits());
                }
            }
            out.invocations.push(inv);
        }
        Ok(out)
    }
}
