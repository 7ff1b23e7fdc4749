//! Lowering: an optimized IR vertex shader (after the `opt` pipeline with [`crate::CAPS`]) →
//! [`mir::Program`] on virtual vec4 registers.
//!
//! Every IR value is a list of *component sources* ([`C`]): a component of a virtual register,
//! a lane of an input `v` or uniform `c`, or a literal, each possibly negated. Extracting,
//! constructing and negating rearrange component sources and cost nothing; an op that needs a
//! vector operand gets a selector when all its components live in one register with one sign,
//! and a register built by MOVs otherwise. Literals are packed into a pool of DEF uniforms
//! placed after the application's float uniforms.
//!
//! The operand-slot errata (§11) are resolved here, as ops are made ([`Lower::push`]): a float
//! uniform goes to the wide slot (commuting ADD/MUL/MAX/MIN/DP3/DP4 and MAD's product, SGE/SLT
//! → SGEI/SLTI, MAD → MADI) or is copied to a temporary when two meet; two distinct `v`
//! registers in one instruction get one of them copied to a temporary.
//!
//! Outputs are collected per component and written once, at the end, by MOVs into `o`
//! registers (erratum 4). What PICA cannot express is a [`Diagnostic::unsupported`] naming the
//! op. Structured selections and loops become flow markers ([`flow`]).
//!
//! MUL, MAD and the dot products follow D3D9 rules (`0 · inf = 0`). IEEE `FMul`/`FMad` of two
//! variables get the NaN IEEE gives there added ([`Lower::ieee_product_fix`]); with
//! `-C ieee-mul=legacy` the pipeline has made them legacy ops first (`relax-ieee-mul`).

mod counted_loop;
mod flow;
pub mod gs;
mod legacy_mul;
pub mod mir;
mod mova_pair;
mod remat;

use irc_backend::io_plan::{const_index, flat_size};
use irc_backend::ir_reads::constant_lanes;
use irc_backend::regalloc::VReg;
use irc_backend::{Diagnostic, IoSource, OutputBinding, UniformBinding, UniformSource};
use irc_backend::{Reflection, VaryingBinding};
use irc_ir::analysis::cfg::{self, Cfg};
use irc_ir::format::{
    AlignedLoad, Arith, Clamp, CompositeConstruct, CompositeExtract, Constant, DclBinding,
    DclInput, DclInputBuiltIn, DclOutput, DclOutputBuiltIn, DescriptorLoad, Dot, EntryPoint,
    FRound, Load, Select, Store,
};
use irc_ir::{BuiltIn, Module, OpCode, SsaDef};
use rustc_hash::FxHashMap;
use smallvec::{smallvec, SmallVec};

use crate::isa::Opcode;
use mir::{Dst, Flow, MOp, Operand, Program, Reg};

/// Where one component of a value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Loc {
    V(VReg, u8),
    In(u8, u8),
    Uni(u8, u8),
    /// f32 bits.
    Lit(u32),
}

/// A component source: location and negation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct C {
    pub loc: Loc,
    pub neg: bool,
}

impl C {
    fn lit(x: f32) -> C {
        C {
            loc: Loc::Lit(x.to_bits()),
            neg: false,
        }
    }
    fn negated(self) -> C {
        match self.loc {
            Loc::Lit(b) => C {
                loc: Loc::Lit(b ^ 0x8000_0000),
                neg: false,
            },
            _ => C {
                neg: !self.neg,
                ..self
            },
        }
    }
}

type Comps = SmallVec<[C; 4]>;

/// Result of lowering.
#[derive(Debug)]
pub struct Lowered {
    pub program: Program,
    /// Literal pool entries (f32 bits), in pool order.
    pub literals: Vec<[u32; 4]>,
    /// First uniform slot of the literal pool.
    pub literal_base: u8,
    pub reflection: Reflection,
    pub ir_ops: u32,
    /// How many values a rematerializing lowering computes again at each output store
    /// ([`remat`]; counted whether or not this lowering did).
    pub remat_candidates: usize,
    /// Geometry shaders: the input layout and mode ([`gs`]).
    pub gs: Option<gs::GsLayout>,
}

struct OutDecl {
    reg: u8,
    comps: Vec<Option<C>>,
    target: IoSource,
}

struct Lower<'a> {
    m: &'a Module,
    prog: Program,
    values: FxHashMap<SsaDef, Comps>,
    lits: Vec<([u32; 4], u8)>,
    outputs: FxHashMap<SsaDef, OutDecl>,
    /// Application uniforms read, by id (the `Reg::Uni` / `Loc::Uni` number until
    /// [`Lower::assign_uniform_slots`] replaces ids with slots).
    uniforms: Vec<UniKey>,
    /// Registers already built from mixed component sources (values never change in
    /// straight-line code, so one build serves every use).
    built: FxHashMap<Vec<C>, VReg>,
    /// Keys of [`Lower::built`] built outside every branch and loop: valid in every later
    /// block (the others are forgotten at block boundaries).
    built_top: rustc_hash::FxHashSet<Vec<C>>,
    /// The values a0.x and a0.y hold (the float operand of the MOVA that set each, and its
    /// lane).
    a0: [Option<(SsaDef, usize)>; 2],
    /// The address component the next MOVA sets (the one read less recently).
    a0_victim: usize,
    /// Registers of the largest D3D9 constant array read at a dynamic index (0: none).
    relative_extent: u32,
    /// Constant offsets `k` of relative reads `c[k + a0.x]`.
    relative_bases: Vec<u8>,
    /// In-range flags of dynamic indices, by (float index, constant offset).
    range_masks: FxHashMap<(SsaDef, usize, i64), Comps>,
    /// Geometry shaders: input layout and emission state ([`gs`]).
    gs: Option<gs::GsState>,
    /// Selections and loops open around the op being lowered.
    flow_depth: u32,
    /// LOOP stack entries the loops open around the op being lowered take (4 at most).
    loop_entries: u32,
    /// D3D9 integer registers counting `rep`/`loop` loops, by int register i0–i2
    /// ([`counted_loop`]).
    loop_registers: Vec<u32>,
    /// The counters, tests and decrements of counted loops: not lowered.
    counted_skip: rustc_hash::FxHashSet<SsaDef>,
    /// The counted loops, by header block.
    counted: FxHashMap<irc_ir::analysis::cfg::Block, counted_loop::Counted>,
    /// The innermost open loop.
    loop_ctx: Option<flow::LoopCtx>,
    /// Interval / NaN facts of the float values (the cheap select needs NaN-free sides).
    facts: irc_passes::float_facts::FloatFacts,
    /// D3D9 bool registers that `if`s test directly (IFU on the bool uniform of that number).
    bool_uniforms: Vec<u32>,
    /// Values computed again at each output store instead of once ([`remat`]).
    remat: rustc_hash::FxHashSet<SsaDef>,
    /// Products read only by distance vectors lowered as DST ([`dst_operands`]), which
    /// compute them: not lowered on their own.
    dst_products: rustc_hash::FxHashSet<SsaDef>,
    /// D3D9 multiplies exact for NaN factors ([`LowerConfig::exact_legacy_mul`]).
    exact_legacy_mul: bool,
}

/// An application uniform: a D3D9 float constant register or a constant-buffer element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UniKey {
    Legacy(u32),
    /// A D3D9 integer or bool constant register (`LegacyConstInt`/`LegacyConstBool`, `index`),
    /// uploaded as floats (integers converted, bools 0/1 in every lane: the convention of
    /// [`UniformSource::Legacy`]), packed like constant-buffer elements.
    LegacyOther(BuiltIn, u32),
    Cbuffer(irc_backend::ResourceBinding, u32),
}

fn unsupported(m: &Module, d: SsaDef, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::unsupported(Some((d, m.opcode(d))), msg)
}

/// Lowers the entry point of `m`, a vertex shader.
pub fn lower(m: &Module) -> Result<Lowered, Diagnostic> {
    lower_stage(m, irc_ir::ShaderStage::Vertex, LowerConfig::default())
}

/// Choices of a lowering.
#[derive(Debug, Clone, Copy, Default)]
pub struct LowerConfig {
    /// Compute each value stored to outputs more than once afresh at every store ([`remat`]).
    pub rematerialize: bool,
    /// D3D9 multiplies exact for NaN factors (`-C legacy-mul=exact`,
    /// [`Lower::exact_legacy_product`]).
    pub exact_legacy_mul: bool,
}

/// Lowers the entry point of `m`, a shader of `stage` (vertex or geometry).
pub(crate) fn lower_stage(
    m: &Module,
    want: irc_ir::ShaderStage,
    config: LowerConfig,
) -> Result<Lowered, Diagnostic> {
    let rematerialize = config.rematerialize;
    let entry = m
        .declarations()
        .find(|&d| m.opcode(d) == OpCode::EntryPoint)
        .ok_or_else(|| Diagnostic::unsupported(None, "the module has no entry point"))?;
    let ep = m.op(entry);
    let stage = ep.operands.last().and_then(|o| o.as_lit());
    if stage != Some(u64::from(want.0)) {
        let msg = if want == irc_ir::ShaderStage::Geometry {
            "pica-gs compiles geometry shaders only"
        } else {
            "pica-vs compiles vertex shaders only"
        };
        return Err(unsupported(m, entry, msg));
    }
    let func = EntryPoint::of(ep)
        .function()
        .ok_or_else(|| Diagnostic::unsupported(None, "entry point without a function"))?;
    let fns = cfg::functions(m);
    if let Some(f) = fns.iter().find(|f| f.function != func) {
        return Err(unsupported(m, f.function, "functions must be inlined"));
    }
    let range = fns
        .into_iter()
        .find(|f| f.function == func)
        .ok_or_else(|| Diagnostic::internal(Some((func, OpCode::Function)), "no body"))?;
    let cfg = Cfg::build(m, range);
    if let Some(&stray) = cfg.stray_ops().first() {
        return Err(unsupported(m, stray, "op outside any block"));
    }
    let entry_block = cfg
        .entry()
        .ok_or_else(|| unsupported(m, func, "function without blocks"))?;
    let mut l = Lower {
        m,
        prog: Program::default(),
        values: FxHashMap::default(),
        lits: Vec::new(),
        outputs: FxHashMap::default(),
        uniforms: Vec::new(),
        built: FxHashMap::default(),
        built_top: Default::default(),
        a0: [None; 2],
        a0_victim: 0,
        relative_extent: 0,
        range_masks: FxHashMap::default(),
        relative_bases: Vec::new(),
        gs: None,
        flow_depth: 0,
        loop_entries: 0,
        loop_registers: Vec::new(),
        counted_skip: Default::default(),
        counted: FxHashMap::default(),
        loop_ctx: None,
        facts: irc_passes::float_facts::analyze(m),
        bool_uniforms: Vec::new(),
        remat: Default::default(),
        dst_products: if config.exact_legacy_mul {
            Default::default()
        } else {
            dst_products(m)
        },
        exact_legacy_mul: config.exact_legacy_mul,
    };
    // The candidates are counted for every geometry shader, so that a caller learns
    // whether the rematerializing variant differs at all; they are used when asked for.
    let remat_candidates = if want == irc_ir::ShaderStage::Geometry {
        remat::candidates(m, &cfg)
    } else {
        Default::default()
    };
    let candidate_count = remat_candidates.len();
    if rematerialize {
        l.remat = remat_candidates;
    }
    let mut reflection = Reflection::default();
    if want == irc_ir::ShaderStage::Geometry {
        l.gs = Some(gs::GsState::new(m, &mut reflection)?);
    }
    l.declare(&mut reflection)?;
    if l.gs.is_some() {
        gs::check_outputs(&reflection)?;
    }
    l.plan_counted_loops(&cfg);
    l.region(&cfg, entry_block, None)?;
    if l.gs.is_none() {
        l.write_outputs(&mut reflection);
    }
    fold_output_moves(&mut l.prog);
    mova_pair::pair_movas(&mut l.prog);
    let literal_base = l.assign_uniform_slots(&mut reflection)?;
    for (r, &index) in l.loop_registers.iter().enumerate() {
        reflection.uniforms.push(UniformBinding {
            slot: crate::sim_io::INT_SLOT + r as u32,
            source: UniformSource::LegacyLoop { index },
        });
    }
    for &b in &l.bool_uniforms {
        reflection.uniforms.push(UniformBinding {
            slot: crate::sim_io::BOOL_SLOT + b,
            source: UniformSource::Legacy {
                kind: BuiltIn::LegacyConstBool,
                index: b,
            },
        });
    }
    let literals: Vec<[u32; 4]> = l.lits.iter().map(|e| e.0).collect();
    let slots = usize::from(literal_base) + literals.len();
    if slots > crate::isa::limits::FLOAT_UNIFORMS {
        return Err(Diagnostic::limit(format!(
            "{slots} float uniforms needed ({} of the application, {} constants); PICA200 has {}",
            literal_base,
            literals.len(),
            crate::isa::limits::FLOAT_UNIFORMS
        )));
    }
    for (k, v) in literals.iter().enumerate() {
        reflection.uniforms.push(UniformBinding {
            slot: u32::from(literal_base) + k as u32,
            source: UniformSource::Literal(v.map(f32::from_bits)),
        });
    }
    reflection.uniform_slots = slots as u32;
    Ok(Lowered {
        program: l.prog,
        literals,
        literal_base,
        reflection,
        ir_ops: m.code().count() as u32,
        remat_candidates: candidate_count,
        gs: l.gs.map(|g| g.layout),
    })
}

impl<'a> Lower<'a> {
    fn diag(&self, d: SsaDef, msg: impl Into<String>) -> Diagnostic {
        unsupported(self.m, d, msg)
    }

    /// The id of an application uniform (see [`Lower::uniforms`]).
    fn uniform_id(&mut self, k: UniKey) -> Result<u8, Diagnostic> {
        let i = match self.uniforms.iter().position(|&x| x == k) {
            Some(i) => i,
            None => {
                self.uniforms.push(k);
                self.uniforms.len() - 1
            }
        };
        u8::try_from(i)
            .ok()
            .filter(|&i| usize::from(i) < crate::isa::limits::FLOAT_UNIFORMS)
            .ok_or_else(|| Diagnostic::limit("more than 96 float uniforms read"))
    }

    /// D3D9 constant register `n` goes to `c<n>`; constant-buffer elements fill the slots
    /// after the highest D3D9 register, in order of first use. Rewrites the program's uniform
    /// ids to slots, binds them, and returns the first slot after them (the literal pool's).
    fn assign_uniform_slots(&mut self, r: &mut Reflection) -> Result<u8, Diagnostic> {
        const SLOTS: u32 = crate::isa::limits::FLOAT_UNIFORMS as u32;
        // D3D9 registers below `identity` sit at their own number; the others (registers
        // beyond c95, and with dynamic indexing those past the bound window) and constant-buffer
        // elements are packed after them, then the literal pool.
        let packed_beyond = |limit: u32, u: &[UniKey]| {
            u.iter()
                .filter(|k| match k {
                    UniKey::Legacy(i) => *i >= limit,
                    UniKey::LegacyOther(..) | UniKey::Cbuffer(..) => true,
                })
                .count() as u32
        };
        let mut identity = SLOTS;
        if self.relative_extent > 0 {
            // A dynamic index may reach any register of the array: bind c0 up to the packed
            // uniforms and the literal pool (or the array's end) to the D3D9 registers.
            let mut room = SLOTS;
            loop {
                let others = self.lits.len() as u32 + packed_beyond(room, &self.uniforms);
                let r2 = SLOTS.saturating_sub(others);
                if r2 >= room {
                    break;
                }
                room = r2;
            }
            identity = self.relative_extent.min(room).max(
                self.uniforms
                    .iter()
                    .filter_map(|k| match k {
                        UniKey::Legacy(i) if *i < room => Some(i + 1),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(0),
            );
            for i in 0..identity {
                if !self.uniforms.contains(&UniKey::Legacy(i)) {
                    self.uniforms.push(UniKey::Legacy(i));
                }
            }
            if let Some(k) = self.relative_bases.iter().find(|&&k| k as u32 >= identity) {
                return Err(Diagnostic::limit(format!(
                    "relative constant read c[{k} + a0.x]: with {} constants, only c0–c{} can \
                     hold the indexed array",
                    SLOTS - identity,
                    identity.saturating_sub(1)
                )));
            }
        }
        let mut next = self
            .uniforms
            .iter()
            .filter_map(|k| match k {
                UniKey::Legacy(i) if *i < identity => Some(i + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let mut slots = Vec::with_capacity(self.uniforms.len());
        for k in &self.uniforms {
            let (slot, source) = match *k {
                UniKey::Legacy(i) => {
                    let slot = if i < identity {
                        i
                    } else {
                        next += 1;
                        next - 1
                    };
                    (
                        slot,
                        UniformSource::Legacy {
                            kind: BuiltIn::LegacyConstFloat,
                            index: i,
                        },
                    )
                }
                UniKey::LegacyOther(kind, index) => {
                    next += 1;
                    (next - 1, UniformSource::Legacy { kind, index })
                }
                UniKey::Cbuffer(binding, e) => {
                    next += 1;
                    (
                        next - 1,
                        UniformSource::ConstantBuffer {
                            binding,
                            vec4_index: e,
                            int_lanes: 0,
                        },
                    )
                }
            };
            if slot as usize >= crate::isa::limits::FLOAT_UNIFORMS {
                return Err(Diagnostic::limit(format!(
                    "uniform slot {slot} needed; PICA200 has c0–c95"
                )));
            }
            slots.push(slot as u8);
            r.uniforms.push(UniformBinding { slot, source });
        }
        r.uniforms.sort_by_key(|u| u.slot);
        for op in &mut self.prog.ops {
            for s in &mut op.srcs {
                match s.reg {
                    Reg::Uni(id) => s.reg = Reg::Uni(slots[usize::from(id)]),
                    Reg::UniRel(id, a) => s.reg = Reg::UniRel(slots[usize::from(id)], a),
                    _ => {}
                }
            }
        }
        Ok(slots.iter().map(|&s| s + 1).max().unwrap_or(0))
    }

    /// Inputs → `v<location>`, outputs → `o` registers (Position first).
    fn declare(&mut self, r: &mut Reflection) -> Result<(), Diagnostic> {
        let m = self.m;
        let mut outs: Vec<(u32, SsaDef, IoSource, usize)> = Vec::new();
        for d in m.declarations() {
            let op = m.op(d);
            match op.opcode {
                // Geometry-shader inputs are per-vertex arrays, laid out by `gs`.
                OpCode::DclInput if self.gs.is_some() => {}
                OpCode::DclInput => {
                    let decl = DclInput::of(op);
                    let loc = decl.location().unwrap_or(0) as u32;
                    let c0 = decl.component().unwrap_or(0) as u8;
                    let n = flat_size(&op.ty).unwrap_or(0) as u8;
                    if op.ty.is_array() || n == 0 || c0 + n > 4 || loc > 15 {
                        return Err(self.diag(d, "input array or input beyond v15"));
                    }
                    if !op.ty.is_basic_where(|s| s.is_float()) {
                        return Err(self.diag(d, "integer or boolean vertex inputs"));
                    }
                    r.varyings.push(VaryingBinding {
                        source: IoSource::Location {
                            location: loc,
                            component: u32::from(c0),
                        },
                        slot: loc,
                        lane: c0,
                        components: n,
                    });
                }
                OpCode::DclOutput | OpCode::DclOutputBuiltIn => {
                    let n = flat_size(&op.ty)
                        .filter(|&n| (1..=8).contains(&n))
                        .ok_or_else(|| self.diag(d, "output wider than 8 components"))?
                        as usize;
                    let (key, src) = if op.opcode == OpCode::DclOutput {
                        let decl = DclOutput::of(op);
                        let loc = decl.location().unwrap_or(0) as u32;
                        // A packed output (component c > 0) gets a register of its own,
                        // from lane x (the reflection names lane i component c + i).
                        let c = decl.component().unwrap_or(0) as u32;
                        (
                            1 + 4 * loc + c,
                            IoSource::Location {
                                location: loc,
                                component: c,
                            },
                        )
                    } else {
                        let b = DclOutputBuiltIn::of(op)
                            .builtin()
                            .and_then(BuiltIn::from_u64)
                            .ok_or_else(|| self.diag(d, "invalid built-in"))?;
                        let key = match b {
                            BuiltIn::Position => 0,
                            BuiltIn::ClipDistance | BuiltIn::PointSize | BuiltIn::CullDistance => {
                                1000 + b.to_u64() as u32
                            }
                            _ => return Err(self.diag(d, format!("output built-in {b:?}"))),
                        };
                        (key, IoSource::BuiltIn(b))
                    };
                    if !op.ty.members().iter().all(|m| m.scalar_type().is_float()) {
                        return Err(self.diag(d, "integer or boolean outputs"));
                    }
                    outs.push((key, d, src, n));
                }
                _ => {}
            }
        }
        outs.sort_by_key(|o| o.0);
        let mut reg = 0u8;
        for (_, d, target, n) in outs {
            if usize::from(reg) + n.div_ceil(4) > 16 {
                return Err(Diagnostic::limit(
                    "more output components than the 16 output registers hold",
                ));
            }
            self.outputs.insert(
                d,
                OutDecl {
                    reg,
                    comps: vec![None; n],
                    target,
                },
            );
            r.outputs.push(OutputBinding {
                target,
                register: u32::from(reg),
                components: n as u8,
            });
            reg += n.div_ceil(4) as u8;
        }
        Ok(())
    }

    /// The components of operand `a` of `d` (read through the op's format view).
    fn arg(&mut self, d: SsaDef, a: Option<SsaDef>) -> Result<Comps, Diagnostic> {
        let a = a.ok_or_else(|| self.diag(d, "operand missing"))?;
        self.value(a)
    }

    fn value(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        if let Some(v) = self.values.get(&d) {
            return Ok(v.clone());
        }
        let op = self.m.op(d);
        match op.opcode {
            OpCode::Constant | OpCode::Undef => {
                let c = self.constant(d)?;
                self.values.insert(d, c.clone());
                Ok(c)
            }
            OpCode::IAdd
            | OpCode::Cast
            | OpCode::ConvertFtoI
            | OpCode::CompositeConstruct
            | OpCode::CompositeExtract => Err(self.diag(
                d,
                "integer value used other than as a relative constant index",
            )),
            // Lowered when a value needs it (an `if` on it reads the bool uniform instead).
            OpCode::InputLoad if self.bool_register(d).is_some() => {
                let c = self.input_load(d)?;
                self.values.insert(d, c.clone());
                Ok(c)
            }
            _ => Err(Diagnostic::internal(
                Some((d, op.opcode)),
                "value used before its definition was lowered",
            )),
        }
    }

    fn constant(&self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let lanes = constant_lanes(self.m, d, u64::MAX).map_err(|e| self.diag(d, e))?;
        let mut out = Comps::new();
        for lane in lanes {
            if lane.ty.is_float() && lane.ty.byte_size() != 4 && lane.ty.byte_size() != 8 {
                return Err(self.diag(d, "16-bit float constant"));
            }
            out.push(C::lit(lane.value));
        }
        Ok(out)
    }

    /// A pool entry holding all of `vals` (f32 bits); returns (entry, lane of each value).
    fn literal(&mut self, vals: &[u32]) -> (u16, Vec<u8>) {
        let mut distinct: Vec<u32> = Vec::new();
        for &v in vals {
            if !distinct.contains(&v) {
                distinct.push(v);
            }
        }
        let find = |e: &([u32; 4], u8), v: u32| e.0[..e.1 as usize].iter().position(|&x| x == v);
        let k = self
            .lits
            .iter()
            .position(|e| {
                let missing = distinct.iter().filter(|&&v| find(e, v).is_none()).count();
                missing + e.1 as usize <= 4
            })
            .unwrap_or_else(|| {
                self.lits.push(([0; 4], 0));
                self.lits.len() - 1
            });
        for &v in &distinct {
            let e = &mut self.lits[k];
            if find(e, v).is_none() {
                e.0[e.1 as usize] = v;
                e.1 += 1;
            }
        }
        let e = &self.lits[k];
        let lanes = vals
            .iter()
            .map(|&v| find(e, v).unwrap_or(0) as u8)
            .collect();
        (k as u16, lanes)
    }

    /// One operand reading `comps` (position i = comps[i], the last repeated up to 4).
    fn operand(&mut self, comps: &[C]) -> Operand {
        let n = comps.len().clamp(1, 4);
        let key = |c: &C| match c.loc {
            Loc::V(v, _) => (Some(Reg::V(v)), c.neg),
            Loc::In(s, _) => (Some(Reg::In(s)), c.neg),
            Loc::Uni(s, _) => (Some(Reg::Uni(s)), c.neg),
            Loc::Lit(_) => (None, false),
        };
        let k0 = key(&comps[0]);
        if comps.iter().all(|c| key(c) == k0) {
            let mut swz = [0u8; 4];
            let reg = match k0.0 {
                Some(reg) => {
                    for (i, c) in comps.iter().enumerate() {
                        swz[i] = match c.loc {
                            Loc::V(_, x) | Loc::In(_, x) | Loc::Uni(_, x) => x,
                            Loc::Lit(_) => 0,
                        };
                    }
                    reg
                }
                None => {
                    let vals: Vec<u32> = comps
                        .iter()
                        .map(|c| match c.loc {
                            Loc::Lit(b) => b,
                            _ => 0,
                        })
                        .collect();
                    let (k, lanes) = self.literal(&vals);
                    swz[..lanes.len()].copy_from_slice(&lanes);
                    Reg::Lit(k)
                }
            };
            for i in n..4 {
                swz[i] = swz[n - 1];
            }
            return Operand {
                reg,
                swz,
                neg: k0.1,
                n: n as u8,
            };
        }
        // Mixed sources: build a register, one MOV per (register, sign) group.
        let swz = [0, 1, 2, 3].map(|x: u8| x.min(n as u8 - 1));
        if let Some(&t) = self.built.get(comps) {
            return Operand {
                reg: Reg::V(t),
                swz,
                neg: false,
                n: n as u8,
            };
        }
        if let Some((t, neg)) = self.find_built(comps) {
            return Operand {
                reg: Reg::V(t),
                swz,
                neg,
                n: n as u8,
            };
        }
        let t = self.prog.new_vreg(n as u8);
        self.built.insert(comps.to_vec(), t);
        if self.flow_depth == 0 {
            self.built_top.insert(comps.to_vec());
        }
        self.copy_into(t, comps);
        Operand {
            reg: Reg::V(t),
            swz: [0, 1, 2, 3].map(|x: u8| x.min(n as u8 - 1)),
            neg: false,
            n: n as u8,
        }
    }

    /// A built register whose leading components are `comps`, or their negation (then read
    /// negated in the descriptor).
    fn find_built(&self, comps: &[C]) -> Option<(VReg, bool)> {
        let n = comps.len();
        let negated: Vec<C> = comps.iter().map(|c| c.negated()).collect();
        let mut found: Option<(VReg, bool)> = None;
        for (k, &t) in &self.built {
            if k.len() < n {
                continue;
            }
            let hit = if k[..n] == *comps {
                Some((t, false))
            } else if k[..n] == negated[..] {
                Some((t, true))
            } else {
                None
            };
            // Deterministic choice: the lowest register.
            if let Some(h) = hit {
                if found.is_none_or(|f| h.0 .0 < f.0 .0) {
                    found = Some(h);
                }
            }
        }
        found
    }

    /// Writes `comps` into components 0.. of `t`: one MOV per (register, sign) group.
    fn copy_into(&mut self, t: VReg, comps: &[C]) {
        let n = comps.len().clamp(1, 4);
        let key = |c: &C| match c.loc {
            Loc::V(v, _) => (Some(Reg::V(v)), c.neg),
            Loc::In(s, _) => (Some(Reg::In(s)), c.neg),
            Loc::Uni(s, _) => (Some(Reg::Uni(s)), c.neg),
            Loc::Lit(_) => (None, false),
        };
        let mut done = vec![false; n];
        for i in 0..n {
            if done[i] {
                continue;
            }
            let k = key(&comps[i]);
            let group: Vec<usize> = (i..n)
                .filter(|&j| !done[j] && key(&comps[j]) == k)
                .collect();
            let sub: Vec<C> = group.iter().map(|&j| comps[j]).collect();
            let o = self.operand(&sub);
            let mut swz = [o.swz[0]; 4];
            let mut mask = 0u8;
            for (gi, &j) in group.iter().enumerate() {
                swz[j] = o.swz[gi];
                mask |= 1 << j;
                done[j] = true;
            }
            self.prog.ops.push(MOp {
                op: Opcode::Mov,
                dst: Dst::V(t, mask),
                srcs: smallvec![Operand {
                    swz,
                    n: n as u8,
                    ..o
                }],
            });
        }
    }

    /// Copies an operand into a fresh register (for the slot errata).
    fn copy_to_temp(&mut self, o: Operand) -> Operand {
        let t = self.prog.new_vreg(o.n);
        self.prog.ops.push(MOp {
            op: Opcode::Mov,
            dst: Dst::V(t, (1u8 << o.n) - 1),
            srcs: smallvec![o],
        });
        let n = o.n;
        Operand {
            reg: Reg::V(t),
            swz: [0, 1, 2, 3].map(|x: u8| x.min(n - 1)),
            neg: false,
            n,
        }
    }

    /// Appends `op`, resolving the operand-slot errata (§11.1, §11.2).
    fn push(&mut self, mut op: MOp) {
        // One distinct input register per instruction.
        let first_in = op.srcs.iter().find_map(|s| match s.reg {
            Reg::In(n) => Some(n),
            _ => None,
        });
        if let Some(v) = first_in {
            for i in 0..op.srcs.len() {
                if matches!(op.srcs[i].reg, Reg::In(n) if n != v) {
                    op.srcs[i] = self.copy_to_temp(op.srcs[i]);
                }
            }
        }
        let uni = |o: &Operand| o.reg.is_uniform();
        let (u0, u1) = (uni(&op.srcs[0]), op.srcs.get(1).is_some_and(uni));
        match op.op {
            // MAX/MIN do not commute for NaN (max(NaN, 0) = 0, max(0, NaN) = NaN).
            Opcode::Max | Opcode::Min if u1 => op.srcs[1] = self.copy_to_temp(op.srcs[1]),
            Opcode::Add | Opcode::Mul | Opcode::Dp3 | Opcode::Dp4 if u1 && u0 => {
                op.srcs[1] = self.copy_to_temp(op.srcs[1]);
            }
            Opcode::Add | Opcode::Mul | Opcode::Dp3 | Opcode::Dp4 if u1 => op.srcs.swap(0, 1),
            Opcode::Sge | Opcode::Slt if u1 && u0 => op.srcs[1] = self.copy_to_temp(op.srcs[1]),
            Opcode::Dph if u1 && u0 => op.srcs[1] = self.copy_to_temp(op.srcs[1]),
            Opcode::Dph if u1 => op.op = Opcode::Dphi,
            Opcode::Dst if u1 && u0 => op.srcs[1] = self.copy_to_temp(op.srcs[1]),
            Opcode::Dst if u1 => op.op = Opcode::Dsti,
            Opcode::Sge if u1 => op.op = Opcode::Sgei,
            Opcode::Slt if u1 => op.op = Opcode::Slti,
            Opcode::Mad => {
                if uni(&op.srcs[0]) {
                    op.srcs.swap(0, 1);
                }
                if uni(&op.srcs[0]) {
                    op.srcs[0] = self.copy_to_temp(op.srcs[0]);
                }
                if uni(&op.srcs[2]) {
                    if uni(&op.srcs[1]) {
                        op.srcs[2] = self.copy_to_temp(op.srcs[2]);
                    } else {
                        op.op = Opcode::Madi;
                    }
                }
            }
            _ => {}
        }
        self.prog.ops.push(op);
    }

    /// A component-wise op on `args` (all `n` components wide) into a fresh register.
    fn vec_op(&mut self, op: Opcode, args: &[&[C]]) -> Comps {
        let n = args[0].len();
        let srcs: SmallVec<[Operand; 3]> = args.iter().map(|a| self.operand(a)).collect();
        let t = self.prog.new_vreg(n as u8);
        self.push(MOp {
            op,
            dst: Dst::V(t, (1u8 << n) - 1),
            srcs,
        });
        (0..n as u8)
            .map(|c| C {
                loc: Loc::V(t, c),
                neg: false,
            })
            .collect()
    }

    /// NaN where IEEE `a · b` is NaN but PICA's D3D9-rule MUL is not (one factor ±0, the other
    /// ±inf), +0 elsewhere; added to the MUL (or MAD) result it gives the IEEE product (reference
    /// §10: `0 · inf = 0`, `NaN · 0 = NaN`, `inf − inf = NaN`, comparisons with NaN false, MUL
    /// flushes subnormal inputs, MAX and comparisons do not):
    /// - `x' = x · 1` (a subnormal flushed to 0 as in the MUL), `m = max(x', −x') = |x'|`;
    /// - `z = sge(0, m)` is 1 exactly for a zero factor, `i = sge(m, inf)` for an infinite one
    ///   (both 0 for NaN, whose product is NaN already);
    /// - `k = z_a · i_b + z_b · i_a` is 0 or 1 (a value is not both zero and infinite);
    /// - `k · inf` is `inf` or `0` (`0 · inf = 0`), and `k · inf − k · inf` is NaN or 0.
    ///
    /// 14 instructions with the product and the add, against 1: the `pica-vs` default, because
    /// D3D10+ vertex shaders' `mul` is IEEE's.
    fn ieee_product_fix(&mut self, a: &[C], b: &[C]) -> Comps {
        let neg = |v: &[C]| -> Comps { v.iter().copied().map(C::negated).collect() };
        let n = a.len();
        let one = Self::splat(1.0, n);
        let zero = Self::splat(0.0, n);
        let inf = Self::splat(f32::INFINITY, n);
        let flags = |this: &mut Self, x: &[C]| -> (Comps, Comps) {
            let flushed = this.vec_op(Opcode::Mul, &[x, &one]);
            let magnitude = this.vec_op(Opcode::Max, &[&flushed, &neg(&flushed)]);
            let is_zero = this.vec_op(Opcode::Sge, &[&zero, &magnitude]);
            let is_inf = this.vec_op(Opcode::Sge, &[&magnitude, &inf]);
            (is_zero, is_inf)
        };
        let (za, ia) = flags(self, a);
        let (zb, ib) = flags(self, b);
        let k = self.vec_op(Opcode::Mul, &[&za, &ib]);
        let k = self.vec_op(Opcode::Mad, &[&zb, &ia, &k]);
        let big = self.vec_op(Opcode::Mul, &[&k, &inf]);
        self.vec_op(Opcode::Add, &[&big, &neg(&big)])
    }

    /// `c ? a : b` for a 0/1 condition `c`, exact even when the untaken side is NaN (`na`/`nb`:
    /// that side may be NaN). Uses the §10 rules `0 · ±inf = 0`, `max(NaN, y) = y`,
    /// `max(x, NaN) = NaN`, `NaN >= NaN` is false, `inf − inf = NaN`:
    /// - `x' = max(x, −inf)` is `x` with NaN replaced by −inf, so `s = c·a' + (1−c)·b'` is the
    ///   taken value except that a taken NaN reads −inf (the untaken side contributes `0 · x' = 0`);
    /// - `f = sge(x, x)` is 0 exactly when `x` is NaN; `k = 1 − c·fa − (1−c)·fb` flags a taken NaN;
    /// - `q = k·inf − inf` is NaN when `k = 1` and −inf when `k = 0`; `max(s, q)` is then the taken
    ///   value bit for bit (NaN, ±inf included).
    fn exact_select(&mut self, c: &[C], a: &[C], b: &[C], na: bool, nb: bool) -> Comps {
        let neg = |v: &[C]| -> Comps { v.iter().copied().map(C::negated).collect() };
        let n = c.len();
        let one = Self::splat(1.0, n);
        let inf = Self::splat(f32::INFINITY, n);
        let nc = self.vec_op(Opcode::Add, &[&one, &neg(c)]);
        let clean = |this: &mut Self, x: &[C], may: bool| -> (Comps, Comps) {
            if may {
                let x2 = this.vec_op(Opcode::Max, &[x, &neg(&inf)]);
                let f = this.vec_op(Opcode::Sge, &[x, x]);
                (x2, f)
            } else {
                (x.iter().copied().collect(), one.clone())
            }
        };
        let (a2, fa) = clean(self, a, na);
        let (b2, fb) = clean(self, b, nb);
        let t = self.vec_op(Opcode::Mul, &[&nc, &b2]);
        let s = self.vec_op(Opcode::Mad, &[c, &a2, &t]);
        let k = match (na, nb) {
            // k = c·(1 − fa)
            (true, false) => self.vec_op(Opcode::Mad, &[&neg(c), &fa, c]),
            // k = (1 − c)·(1 − fb)
            (false, true) => self.vec_op(Opcode::Mad, &[&neg(&nc), &fb, &nc]),
            _ => {
                let w = self.vec_op(Opcode::Mad, &[&neg(&nc), &fb, &one]);
                self.vec_op(Opcode::Mad, &[&neg(c), &fa, &w])
            }
        };
        let q = self.vec_op(Opcode::Mad, &[&k, &inf, &neg(&inf)]);
        self.vec_op(Opcode::Max, &[&s, &q])
    }

    /// A scalar op (RCP RSQ EX2 LG2) per component.
    fn scalar_op(&mut self, op: Opcode, a: &[C]) -> Comps {
        let t = self.prog.new_vreg(a.len() as u8);
        for (c, x) in a.iter().enumerate() {
            let src = self.operand(&[*x]);
            self.push(MOp {
                op,
                dst: Dst::V(t, 1 << c),
                srcs: smallvec![src],
            });
        }
        (0..a.len() as u8)
            .map(|c| C {
                loc: Loc::V(t, c),
                neg: false,
            })
            .collect()
    }

    fn dot(&mut self, a: &[C], b: &[C]) -> Comps {
        match a.len() {
            1 => self.vec_op(Opcode::Mul, &[a, b]),
            2 => {
                let p = self.vec_op(Opcode::Mul, &[a, b]);
                self.vec_op(Opcode::Add, &[&p[..1], &p[1..2]])
            }
            n => {
                // DPH: dot(s1.xyz, s2.xyz) + s2.w, when one side's w is the literal 1.
                let one = |v: &[C]| n == 4 && v[3].loc == Loc::Lit(1f32.to_bits());
                // A literal ±0 term adds nothing under the legacy multiply (0 · x = 0 for every
                // x, inf and NaN included): DP3.
                let zero = |v: &[C]| n == 4 && matches!(v[3].loc, Loc::Lit(b) if b << 1 == 0);
                let (op, a, b) = if zero(a) || zero(b) {
                    (Opcode::Dp3, &a[..3], &b[..3])
                } else if one(a) {
                    (Opcode::Dph, &a[..3], b)
                } else if one(b) {
                    (Opcode::Dph, &b[..3], a)
                } else if n == 3 {
                    (Opcode::Dp3, a, b)
                } else {
                    (Opcode::Dp4, a, b)
                };
                self.dot_op(op, a, b)
            }
        }
    }

    /// One DP3/DP4/DPH of `a` and `b` into a fresh scalar.
    fn dot_op(&mut self, op: Opcode, a: &[C], b: &[C]) -> Comps {
        let sa = self.operand(a);
        let sb = self.operand(b);
        let t = self.prog.new_vreg(1);
        self.push(MOp {
            op,
            dst: Dst::V(t, 1),
            srcs: smallvec![sa, sb],
        });
        smallvec![C {
            loc: Loc::V(t, 0),
            neg: false
        }]
    }

    /// trunc(x) = flr(|x|) · (x ≥ 0 ? 1 : −1); NaN and ±inf come through.
    fn round_zero(&mut self, a: &[C]) -> Comps {
        let n = a.len();
        let na: Comps = a.iter().map(|c| c.negated()).collect();
        let abs = self.vec_op(Opcode::Max, &[a, &na]);
        let f = self.vec_op(Opcode::Flr, &[&abs]);
        let s = self.vec_op(Opcode::Sge, &[a, &Self::splat(0.0, n)]);
        let sign = self.vec_op(
            Opcode::Mad,
            &[&s, &Self::splat(2.0, n), &Self::splat(-1.0, n)],
        );
        self.vec_op(Opcode::Mul, &[&f, &sign])
    }

    /// Round half to even: f = flr(x), r = x − f; f + (r > ½) + (r = ½ and f odd), with
    /// "f odd" as flr(f/2) < f/2. For ±inf r is NaN and every flag 0, so ±inf comes through.
    fn round_nearest_even(&mut self, a: &[C]) -> Comps {
        let n = a.len();
        let half = Self::splat(0.5, n);
        let f = self.vec_op(Opcode::Flr, &[a]);
        let nf: Comps = f.iter().map(|c| c.negated()).collect();
        let r = self.vec_op(Opcode::Add, &[a, &nf]);
        let ge = self.vec_op(Opcode::Sge, &[&r, &half]);
        let gt = self.vec_op(Opcode::Slt, &[&half, &r]);
        let h = self.vec_op(Opcode::Mul, &[&f, &half]);
        let fh = self.vec_op(Opcode::Flr, &[&h]);
        let odd = self.vec_op(Opcode::Slt, &[&fh, &h]);
        let ngt: Comps = gt.iter().map(|c| c.negated()).collect();
        let tie = self.vec_op(Opcode::Add, &[&ge, &ngt]);
        let up = self.vec_op(Opcode::Add, &[&f, &gt]);
        self.vec_op(Opcode::Mad, &[&tie, &odd, &up])
    }

    /// The IR's `FMax`/`FMin` (`o`: MAX or MIN) of `a` and `b`, each with whether it is never
    /// NaN. The IR's rule: a NaN operand yields the other. PICA's: `s1 > s2 ? s1 : s2` (and
    /// `<`), so a NaN first source yields the second, but a NaN second source yields NaN
    /// (reference §10). One instruction whenever an operand is never NaN: that one goes
    /// second (a uniform or literal first where both are, the wide source: no copy).
    /// Otherwise `t = o(a, o(b, ∓inf))` (b's NaN replaced by the identity) is exact except
    /// when both are NaN (∓inf), and `t + (k·inf − k·inf)` with `k = 1` exactly then adds
    /// the NaN (`0·inf = 0` on PICA, as in [`Lower::ieee_product_fix`]): 9 instructions.
    fn min_max(&mut self, o: Opcode, (a, fa): (&[C], bool), (b, fb): (&[C], bool)) -> Comps {
        if fa && fb && uniform_only(b) && !uniform_only(a) {
            return self.vec_op(o, &[b, a]);
        }
        if fb {
            return self.vec_op(o, &[a, b]);
        }
        if fa {
            return self.vec_op(o, &[b, a]);
        }
        let neg = |v: &[C]| -> Comps { v.iter().copied().map(C::negated).collect() };
        let n = a.len();
        let identity = if o == Opcode::Max {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
        let b_clean = self.vec_op(o, &[b, &Self::splat(identity, n)]);
        let t = self.vec_op(o, &[a, &b_clean]);
        let a_ok = self.vec_op(Opcode::Sge, &[a, a]);
        let b_ok = self.vec_op(Opcode::Sge, &[b, b]);
        let one = Self::splat(1.0, n);
        let a_nan = self.vec_op(Opcode::Add, &[&one, &neg(&a_ok)]);
        let both_nan = self.vec_op(Opcode::Mad, &[&neg(&b_ok), &a_nan, &a_nan]);
        let big = self.vec_op(Opcode::Mul, &[&both_nan, &Self::splat(f32::INFINITY, n)]);
        let fix = self.vec_op(Opcode::Add, &[&big, &neg(&big)]);
        self.vec_op(Opcode::Add, &[&t, &fix])
    }

    /// Whether `float_facts` proves every one of the `n` components of `d` never NaN.
    fn nan_free(&self, d: Option<SsaDef>, n: usize) -> bool {
        d.is_some_and(|d| (0..n).all(|i| !self.facts.get(d, i).nan))
    }

    fn splat(x: f32, n: usize) -> Comps {
        (0..n).map(|_| C::lit(x)).collect()
    }

    fn lower_op(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(d);
        let neg = |v: Comps| -> Comps { v.into_iter().map(C::negated).collect() };
        // Operands of the unary, binary and ternary arithmetic ops (format::Arith).
        let ar = Arith::of(op);
        let r: Comps = match op.opcode {
            // Relative-addressing indices: read by the loads they address (`relative_load`).
            OpCode::IAdd
            | OpCode::Cast
            | OpCode::ConvertFtoI
            | OpCode::CompositeConstruct
            | OpCode::CompositeExtract
                if op.ty.is_basic_where(|t| t.is_int()) =>
            {
                return Ok(())
            }
            OpCode::Return => return Ok(()),
            OpCode::Constant | OpCode::Undef => self.constant(d)?,
            OpCode::InputLoad if self.gs.is_some() => self.gs_input_load(d)?,
            OpCode::EmitVertex | OpCode::EmitPrimitive if self.gs.is_some() => {
                return self.gs_emit(d)
            }
            OpCode::InputLoad if self.bool_register(d).is_some() => return Ok(()),
            OpCode::InputLoad => self.input_load(d)?,
            OpCode::ConvertItoF => self.int_register_lane(d)?,
            OpCode::BufferLoad => self.buffer_load(d)?,
            // Constant-buffer descriptors are resolved by the loads that use them.
            OpCode::DescriptorLoad
                if self.m.opcode(DescriptorLoad::of(op).decl().unwrap_or(d)) == OpCode::DclCbv =>
            {
                return Ok(())
            }
            OpCode::DescriptorLoad => {
                let kind = DescriptorLoad::of(op)
                    .decl()
                    .map_or(OpCode::DescriptorLoad, |x| self.m.opcode(x));
                return Err(self.diag(
                    d,
                    format!(
                        "{kind:?} resources (a PICA200 vertex shader reads only inputs and \
                         float/int/bool uniforms: no textures, samplers or memory buffers)"
                    ),
                ));
            }
            OpCode::OutputStore => return self.output_store(d),
            OpCode::CompositeExtract => {
                let ex = CompositeExtract::of(op);
                let v = self.arg(d, ex.composite())?;
                let src_ty = self.m.ty(ex.composite().unwrap_or(d)).clone();
                if src_ty.is_struct() {
                    return Err(self.diag(d, "struct values"));
                }
                let idx = const_index(self.m, ex.address())
                    .ok_or_else(|| self.diag(d, "dynamic composite index"))?
                    as usize;
                let per = flat_size(&op.ty).unwrap_or(1) as usize;
                v.get(idx * per..idx * per + per)
                    .ok_or_else(|| self.diag(d, "composite index out of range"))?
                    .into()
            }
            OpCode::CompositeConstruct => {
                // DST multiplies as MUL does: under `legacy-mul=exact` the product is built
                // (and corrected) by its own `FMulLegacy`.
                if let Some((a, b)) = dst_operands(self.m, d).filter(|_| !self.exact_legacy_mul) {
                    let a = self.value(a)?;
                    let b = self.value(b)?;
                    let r = self.vec_op(Opcode::Dst, &[&a, &b]);
                    self.values.insert(d, r);
                    return Ok(());
                }
                let mut out = Comps::new();
                for member in CompositeConstruct::of(op).members() {
                    out.extend(self.arg(d, member.as_ref())?);
                }
                out
            }
            OpCode::FNeg => neg(self.arg(d, ar.a())?),
            OpCode::FAbs => {
                let a = self.arg(d, ar.a())?;
                let na = neg(a.clone());
                self.vec_op(Opcode::Max, &[&a, &na])
            }
            OpCode::FAdd | OpCode::FSub => {
                let a = self.arg(d, ar.a())?;
                let mut b = self.arg(d, ar.b())?;
                if op.opcode == OpCode::FSub {
                    b = neg(b);
                }
                self.vec_op(Opcode::Add, &[&a, &b])
            }
            OpCode::FMul | OpCode::FMad => {
                // MUL follows D3D9 rules (0 · inf = 0): it computes the IEEE product exactly
                // when a factor is a finite non-zero literal, or both factors are one value;
                // otherwise the product gets the NaN of `0 · ±inf` added (`ieee_product_fix`).
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let exact_factor = |v: &Comps| {
                    v.iter().all(|c| {
                        matches!(c.loc, Loc::Lit(bits) if {
                            let x = f32::from_bits(bits);
                            x.is_finite() && x != 0.0
                        })
                    })
                };
                let exact = ar.a() == ar.b() || exact_factor(&a) || exact_factor(&b);
                let product = if op.opcode == OpCode::FMul {
                    self.vec_op(Opcode::Mul, &[&a, &b])
                } else {
                    let c = self.arg(d, ar.c())?;
                    self.vec_op(Opcode::Mad, &[&a, &b, &c])
                };
                if exact {
                    product
                } else {
                    let fix = self.ieee_product_fix(&a, &b);
                    self.vec_op(Opcode::Add, &[&product, &fix])
                }
            }
            OpCode::FMulLegacy => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let (fa, fb) = (self.factor(ar.a(), &a), self.factor(ar.b(), &b));
                if self.product_is_exact(fa, fb) {
                    self.vec_op(Opcode::Mul, &[&a, &b])
                } else {
                    self.exact_legacy_product(&a, fa, &b, fb)
                }
            }
            OpCode::FMax | OpCode::FMin => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let o = if op.opcode == OpCode::FMax {
                    Opcode::Max
                } else {
                    Opcode::Min
                };
                let (fa, fb) = (
                    self.nan_free(ar.a(), a.len()),
                    self.nan_free(ar.b(), b.len()),
                );
                self.min_max(o, (&a, fa), (&b, fb))
            }
            OpCode::FClamp => {
                // min(max(x, lo), hi) with the IR's NaN rule (a NaN operand yields the other):
                // max(x, lo) is NaN only when both are.
                let cl = Clamp::of(op);
                let x = self.arg(d, cl.a())?;
                let lo = self.arg(d, cl.lo())?;
                let hi = self.arg(d, cl.hi())?;
                let n = x.len();
                let (fx, flo, fhi) = (
                    self.nan_free(cl.a(), n),
                    self.nan_free(cl.lo(), n),
                    self.nan_free(cl.hi(), n),
                );
                let t = self.min_max(Opcode::Max, (&x, fx), (&lo, flo));
                self.min_max(Opcode::Min, (&t, fx || flo), (&hi, fhi))
            }
            OpCode::FMadLegacy => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let c = self.arg(d, ar.c())?;
                let (fa, fb) = (self.factor(ar.a(), &a), self.factor(ar.b(), &b));
                if self.product_is_exact(fa, fb) {
                    self.vec_op(Opcode::Mad, &[&a, &b, &c])
                } else {
                    let p = self.exact_legacy_product(&a, fa, &b, fb);
                    self.vec_op(Opcode::Add, &[&p, &c])
                }
            }
            OpCode::FDotLegacy => {
                let dot = Dot::of(op);
                let a = self.arg(d, dot.a())?;
                let b = self.arg(d, dot.b())?;
                if a.len() != b.len() || a.is_empty() || a.len() > 4 {
                    return Err(self.diag(d, "dot product of mismatched vectors"));
                }
                let (fa, fb) = (self.factor(dot.a(), &a), self.factor(dot.b(), &b));
                if self.product_is_exact(fa, fb) {
                    self.dot(&a, &b)
                } else {
                    let p = self.exact_legacy_product(&a, fa, &b, fb);
                    self.lane_sum(&p)
                }
            }
            OpCode::FRcp | OpCode::FRsq | OpCode::FExp2 | OpCode::FLog2 => {
                let a = self.arg(d, ar.a())?;
                let o = match op.opcode {
                    OpCode::FRcp => Opcode::Rcp,
                    OpCode::FRsq => Opcode::Rsq,
                    OpCode::FExp2 => Opcode::Ex2,
                    _ => Opcode::Lg2,
                };
                self.scalar_op(o, &a)
            }
            OpCode::FRound => {
                let a = self.arg(d, FRound::of(op).a())?;
                match FRound::of(op).mode() {
                    Some(4) => self.vec_op(Opcode::Flr, &[&a]),
                    Some(8) => neg(self.vec_op(Opcode::Flr, &[&neg(a)])),
                    Some(1) => self.round_zero(&a),
                    Some(2) => self.round_nearest_even(&a),
                    _ => return Err(self.diag(d, "FRound with an invalid mode")),
                }
            }
            OpCode::FFract => {
                let a = self.arg(d, ar.a())?;
                let f = self.vec_op(Opcode::Flr, &[&a]);
                let nf = neg(f);
                self.vec_op(Opcode::Add, &[&a, &nf])
            }
            OpCode::FGe | OpCode::FLt | OpCode::FGt | OpCode::FLe => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                match op.opcode {
                    OpCode::FGe => self.vec_op(Opcode::Sge, &[&a, &b]),
                    OpCode::FLt => self.vec_op(Opcode::Slt, &[&a, &b]),
                    OpCode::FGt => self.vec_op(Opcode::Slt, &[&b, &a]),
                    _ => self.vec_op(Opcode::Sge, &[&b, &a]),
                }
            }
            OpCode::FEq | OpCode::FNe => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let ge = self.vec_op(Opcode::Sge, &[&a, &b]);
                let le = self.vec_op(Opcode::Sge, &[&b, &a]);
                let eq = self.vec_op(Opcode::Mul, &[&ge, &le]);
                if op.opcode == OpCode::FEq {
                    eq
                } else {
                    let one = Self::splat(1.0, eq.len());
                    self.vec_op(Opcode::Add, &[&one, &neg(eq)])
                }
            }
            OpCode::BAnd | OpCode::BOr => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let o = if op.opcode == OpCode::BAnd {
                    Opcode::Mul
                } else {
                    Opcode::Max
                };
                self.vec_op(o, &[&a, &b])
            }
            OpCode::BNot => {
                let a = self.arg(d, ar.a())?;
                let one = Self::splat(1.0, a.len());
                self.vec_op(Opcode::Add, &[&one, &neg(a)])
            }
            OpCode::Select => {
                // c·a + (1 − c)·b with the legacy multiply (0 · x = 0).
                let sel = Select::of(op);
                let c = self.arg(d, sel.cond())?;
                let a = self.arg(d, sel.if_true())?;
                let b = self.arg(d, sel.if_false())?;
                let c: Comps = if c.len() == 1 && a.len() > 1 {
                    (0..a.len()).map(|_| c[0]).collect()
                } else {
                    c
                };
                let is = |v: &Comps, x: f32| v.iter().all(|k| k.loc == Loc::Lit(x.to_bits()));
                // A side that may be NaN leaks through `0 · NaN = NaN` when it is not taken:
                // a literal NaN, or a value `float_facts` does not prove free of NaN.
                let facts = &self.facts;
                let may_nan = |side: Option<SsaDef>, v: &Comps| {
                    v.iter().enumerate().any(|(i, k)| match k.loc {
                        Loc::Lit(x) => f32::from_bits(x).is_nan(),
                        _ => side.is_none_or(|s| facts.get(s, i).nan),
                    })
                };
                let float = op.ty.is_basic_where(|s| s.is_float());
                let (na, nb) = (may_nan(sel.if_true(), &a), may_nan(sel.if_false(), &b));
                if float && (na || nb) {
                    self.exact_select(&c, &a, &b, na, nb)
                } else if is(&b, 0.0) && is(&a, 1.0) {
                    c
                } else if is(&b, 0.0) {
                    self.vec_op(Opcode::Mul, &[&c, &a])
                } else {
                    let one = Self::splat(1.0, c.len());
                    let nc = self.vec_op(Opcode::Add, &[&one, &neg(c.clone())]);
                    let t = self.vec_op(Opcode::Mul, &[&nc, &b]);
                    self.vec_op(Opcode::Mad, &[&c, &a, &t])
                }
            }
            OpCode::Label | OpCode::FunctionEnd => return Ok(()),
            o => return Err(self.diag(d, format!("{o:?} is not lowered for pica-vs"))),
        };
        self.values.insert(d, r);
        Ok(())
    }

    /// The D3D9 bool register `d` loads (a scalar `InputLoad` of `LegacyConstBool` at a
    /// constant index), in a vertex shader.
    pub(super) fn bool_register(&self, d: SsaDef) -> Option<u32> {
        let op = self.m.op(d);
        if op.opcode != OpCode::InputLoad || self.gs.is_some() || op.ty.as_scalar().is_none() {
            return None;
        }
        let load = Load::of(op);
        let dop = self.m.op(load.base()?);
        if dop.opcode != OpCode::DclInputBuiltIn
            || DclInputBuiltIn::of(dop).builtin() != Some(BuiltIn::LegacyConstBool.to_u64())
        {
            return None;
        }
        match self.element_address(load.address()) {
            (Some(i), Some(0)) if i < 16 => Some(i as u32),
            _ => None,
        }
    }

    /// `ConvertItoF` of a lane of a D3D9 integer constant register (the only integer the
    /// `int-to-float` pass leaves converted): the register is uploaded as floats, so the lane
    /// is the uniform component itself.
    fn int_register_lane(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let lanes = irc_backend::ir_reads::int_register_lanes(self.m, d)
            .ok_or_else(|| self.diag(d, "conversion of an integer other than a D3D9 `i#` lane"))?;
        let mut out = Comps::new();
        for (load, lane) in lanes {
            let c = *self
                .value(load)?
                .get(lane)
                .ok_or_else(|| self.diag(d, "lane out of range"))?;
            out.push(c);
        }
        Ok(out)
    }

    fn input_load(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d);
        let load = Load::of(op);
        let decl = load.base().ok_or_else(|| self.diag(d, "no declaration"))?;
        let dop = self.m.op(decl);
        let width = flat_size(&op.ty).unwrap_or(0) as usize;
        if let Some(kind) = irc_backend::ir_reads::int_or_bool_registers(self.m, decl) {
            let (Some(idx), Some(comp)) = self.element_address(load.address()) else {
                return Err(self.diag(d, format!("dynamically indexed {kind:?} register")));
            };
            if idx >= 16 || comp as usize + width > 4 {
                return Err(self.diag(d, format!("{kind:?} register {idx} out of range")));
            }
            return self.uniform_comps(UniKey::LegacyOther(kind, idx as u32), comp as u8, width);
        }
        match dop.opcode {
            OpCode::DclInput => {
                let input = DclInput::of(dop);
                let loc = input.location().unwrap_or(0) as u8;
                let c0 = input.component().unwrap_or(0) as u8;
                let first = match load.address() {
                    None => 0,
                    Some(a) => const_index(self.m, Some(a))
                        .ok_or_else(|| self.diag(d, "dynamically indexed input"))?
                        as u8,
                };
                Ok((0..width as u8)
                    .map(|i| C {
                        loc: Loc::In(loc, c0 + first + i),
                        neg: false,
                    })
                    .collect())
            }
            OpCode::DclInputBuiltIn
                if DclInputBuiltIn::of(dop).builtin()
                    == Some(BuiltIn::LegacyConstFloat.to_u64()) =>
            {
                let (idx, comp) = self.element_address(load.address());
                let (Some(idx), Some(comp)) = (idx, comp) else {
                    return self.relative_load(d, load.address(), decl, width);
                };
                if idx > u64::from(u16::MAX) || comp as usize + width > 4 {
                    return Err(self.diag(d, format!("float constant c{idx} out of range")));
                }
                self.uniform_comps(UniKey::Legacy(idx as u32), comp as u8, width)
            }
            _ => Err(self.diag(
                d,
                "input of this kind (only vertex inputs and D3D9 constants)",
            )),
        }
    }

    /// A D3D9 constant register read at a dynamic index `k + int(x)`: `MOVA a0.x, x` (unless
    /// a0.x already holds `x`), then `MUL t, c[k + a0.x], inrange` right after it (so that no
    /// two MOVAs are adjacent), where `inrange` is 1 when the index lies in the declared array
    /// and 0 otherwise (the IR reads zero there). Registers c0 up to the literal pool are bound
    /// to the application's registers of the same number ([`Lower::assign_uniform_slots`]).
    fn relative_load(
        &mut self,
        d: SsaDef,
        address: Option<SsaDef>,
        decl: SsaDef,
        width: usize,
    ) -> Result<Comps, Diagnostic> {
        let m = self.m;
        let unknown = || unsupported(m, d, "dynamic constant index of an unknown form");
        let (x, lane, k, comp) = relative_index(m, d, address)?;
        let comp = comp.ok_or_else(|| self.diag(d, "dynamic vector component"))? as usize;
        if !(0..crate::isa::limits::FLOAT_UNIFORMS as i64).contains(&k) || comp + width > 4 {
            return Err(Diagnostic::limit(format!(
                "relative constant read c[{k} + a0.x]: the base must be one of c0–c95"
            )));
        }
        let size = match m.ty(decl).array_dims().last().copied().unwrap_or(0) {
            0 => crate::isa::limits::FLOAT_UNIFORMS as u32,
            n => n,
        };
        self.relative_extent = self.relative_extent.max(size.max(1));
        // In range iff 0 <= k + trunc(x) < size, i.e. −k−1 < x < size − k; out of range
        // the IR reads zero (PICA would read another register or (1, 1, 1, 1)).
        let xv: Comps = self
            .value(x)?
            .get(lane..lane + 1)
            .ok_or_else(unknown)?
            .into();
        if !self.range_masks.contains_key(&(x, lane, k)) {
            // The flags of every offset this index is read with, four per instruction.
            let mut ks: Vec<i64> = m
                .code()
                .filter(|&u| m.opcode(u) == OpCode::InputLoad)
                .filter(|&u| Load::of(m.op(u)).base() == Some(decl))
                .filter_map(|u| relative_index(m, u, Load::of(m.op(u)).address()).ok())
                .filter(|r| (r.0, r.1) == (x, lane))
                .map(|r| r.2)
                .chain([k])
                .collect();
            ks.sort_unstable();
            ks.dedup();
            for chunk in ks.chunks(4) {
                let lo: Comps = chunk.iter().map(|&k| C::lit((-k - 1) as f32)).collect();
                let hi: Comps = chunk
                    .iter()
                    .map(|&k| C::lit((i64::from(size) - k) as f32))
                    .collect();
                let xs: Comps = chunk.iter().map(|_| xv[0]).collect();
                let lo = self.vec_op(Opcode::Slt, &[&lo, &xs]);
                let hi = self.vec_op(Opcode::Slt, &[&xs, &hi]);
                let flags = self.vec_op(Opcode::Mul, &[&lo, &hi]);
                for (i, &k) in chunk.iter().enumerate() {
                    self.range_masks.insert((x, lane, k), smallvec![flags[i]]);
                }
            }
        }
        let mask = self.range_masks[&(x, lane, k)].clone();
        let a = self.address_register(x, lane, &xv);
        let id = self.uniform_id(UniKey::Legacy(k as u32))?;
        self.relative_bases.push(k as u8);
        let t = self.prog.new_vreg(width as u8);
        let mut swz = [0u8; 4];
        for (i, s) in swz.iter_mut().enumerate() {
            *s = (comp + i.min(width - 1)) as u8;
        }
        let m = self.operand(&vec![mask[0]; width]);
        self.prog.ops.push(MOp {
            op: Opcode::Mul,
            dst: Dst::V(t, (1u8 << width) - 1),
            srcs: smallvec![
                Operand {
                    reg: Reg::UniRel(id, a),
                    swz,
                    neg: false,
                    n: width as u8,
                },
                m
            ],
        });
        Ok((0..width as u8)
            .map(|c| C {
                loc: Loc::V(t, c),
                neg: false,
            })
            .collect())
    }

    /// The address component (0: a0.x, 1: a0.y) holding index `x` (lane `lane`, value `xv`):
    /// a0.x and a0.y each hold one; a miss loads the one read less recently with a MOVA. (aL
    /// is not used for D3D9's `c[k + aL]`: the hardware's aL is 8-bit and its sign is not
    /// settled — citra adds the step as an unsigned byte, Tanuki3DS wraps it — while MOVA
    /// gives the signed offsets −128…127 D3D9's negative steps reach.)
    fn address_register(&mut self, x: SsaDef, lane: usize, xv: &[C]) -> u8 {
        let a = match self.a0.iter().position(|h| *h == Some((x, lane))) {
            Some(a) => a,
            None => {
                let a = self.a0_victim;
                let src = self.operand(&[xv[0], xv[0]]);
                self.prog.ops.push(MOp {
                    op: Opcode::Mova,
                    dst: Dst::A0(1 << a),
                    srcs: smallvec![src],
                });
                self.a0[a] = Some((x, lane));
                a
            }
        };
        self.a0_victim = 1 - a;
        a as u8
    }

    fn uniform_comps(&mut self, k: UniKey, comp: u8, width: usize) -> Result<Comps, Diagnostic> {
        let id = self.uniform_id(k)?;
        Ok((0..width as u8)
            .map(|i| C {
                loc: Loc::Uni(id, comp + i),
                neg: false,
            })
            .collect())
    }

    /// (element, component) of a constant address: a scalar element, a `CompositeConstruct`
    /// of two constants, or a two-component constant.
    fn element_address(&self, a: Option<SsaDef>) -> (Option<u64>, Option<u64>) {
        match a.map(|a| self.m.op(a)) {
            Some(aop) if aop.opcode == OpCode::CompositeConstruct => {
                let members = CompositeConstruct::of(aop).members();
                (
                    const_index(self.m, members.first().and_then(|o| o.as_ref())),
                    const_index(self.m, members.get(1).and_then(|o| o.as_ref())),
                )
            }
            Some(aop) if aop.opcode == OpCode::Constant && aop.operands.len() == 2 => {
                let values = Constant::of(aop);
                (values.scalar(0), values.scalar(1))
            }
            _ => (const_index(self.m, a), Some(0)),
        }
    }

    fn buffer_load(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d);
        let load = AlignedLoad::of(op);
        let decl = match load.base().map(|x| self.m.op(x)) {
            Some(dop) if dop.opcode == OpCode::DescriptorLoad => DescriptorLoad::of(dop).decl(),
            _ => None,
        }
        .ok_or_else(|| self.diag(d, "buffer load without a descriptor"))?;
        let dop = self.m.op(decl);
        if dop.opcode != OpCode::DclCbv {
            return Err(self.diag(d, "loads from buffers other than constant buffers"));
        }
        if !op.ty.is_basic_where(|s| s.is_float()) {
            return Err(self.diag(d, "integer constant-buffer data"));
        }
        let binding = irc_backend::ResourceBinding {
            space: DclBinding::of(dop).space().unwrap_or(0) as u32,
            register: DclBinding::of(dop).register().unwrap_or(0) as u32,
        };
        let width = flat_size(&op.ty).unwrap_or(0) as usize;
        let (Some(e), Some(c)) = self.element_address(load.address()) else {
            return Err(self.diag(
                d,
                "dynamically indexed constant buffers (MOVA) are not lowered yet",
            ));
        };
        if c as usize + width > 4 || e > u64::from(u32::MAX) {
            return Err(self.diag(d, "constant-buffer load across a vec4"));
        }
        self.uniform_comps(UniKey::Cbuffer(binding, e as u32), c as u8, width)
    }

    fn output_store(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(d);
        let store = Store::of(op);
        let decl = store.base().ok_or_else(|| self.diag(d, "no declaration"))?;
        let first = match store.address() {
            None => 0,
            Some(a) => const_index(self.m, Some(a))
                .ok_or_else(|| self.diag(d, "dynamically indexed output"))?
                as usize,
        };
        if self.flow_depth > 0 {
            return Err(self.diag(
                d,
                "output written inside a branch or loop (each output component is written \
                 exactly once, after the last branch: erratum 4)",
            ));
        }
        if let Some(v) = store.value().filter(|v| self.remat.contains(v)) {
            self.rematerialize(v)?;
        }
        let v = self.arg(d, store.value())?;
        let Some(out) = self.outputs.get_mut(&decl) else {
            return Err(self.diag(d, "store to an undeclared output"));
        };
        for (i, c) in v.into_iter().enumerate() {
            let slot = out
                .comps
                .get_mut(first + i)
                .ok_or_else(|| Diagnostic::unsupported(None, "output index out of range"))?;
            *slot = Some(c);
        }
        Ok(())
    }

    /// One MOV per (output register, source register, sign), each component written once.
    fn write_outputs(&mut self, r: &mut Reflection) {
        let mut outs: Vec<(u8, Vec<Option<C>>, IoSource)> = self
            .outputs
            .values()
            .map(|o| (o.reg, o.comps.clone(), o.target))
            .collect();
        outs.sort_by_key(|o| o.0);
        for (reg, comps, _) in outs {
            for (ri, chunk) in comps.chunks(4).enumerate() {
                let o = reg + ri as u8;
                // The whole chunk is (the negation of) a register built before: one MOV.
                let all: Option<Vec<C>> = chunk.iter().copied().collect();
                if let Some((t, neg)) = all
                    .filter(|a| a.len() > 1)
                    .and_then(|a| self.find_built(&a))
                {
                    let n = chunk.len() as u8;
                    self.prog.ops.push(MOp {
                        op: Opcode::Mov,
                        dst: Dst::Out(o, (1u8 << n) - 1),
                        srcs: smallvec![Operand {
                            reg: Reg::V(t),
                            swz: [0, 1, 2, 3].map(|x: u8| x.min(n - 1)),
                            neg,
                            n: 4,
                        }],
                    });
                    continue;
                }
                let mut done = [false; 4];
                for i in 0..chunk.len() {
                    let Some(c) = chunk[i] else { continue };
                    if done[i] {
                        continue;
                    }
                    let same = |x: &C| match (x.loc, c.loc) {
                        (Loc::Lit(_), Loc::Lit(_)) => true,
                        (Loc::V(a, _), Loc::V(b, _)) => a == b && x.neg == c.neg,
                        (Loc::In(a, _), Loc::In(b, _)) | (Loc::Uni(a, _), Loc::Uni(b, _)) => {
                            a == b && x.neg == c.neg
                        }
                        _ => false,
                    };
                    let group: Vec<usize> = (i..chunk.len())
                        .filter(|&j| !done[j] && chunk[j].is_some_and(|x| same(&x)))
                        .collect();
                    let sub: Vec<C> = group.iter().filter_map(|&j| chunk[j]).collect();
                    let src = self.operand(&sub);
                    let mut swz = [src.swz[0]; 4];
                    let mut mask = 0;
                    for (gi, &j) in group.iter().enumerate() {
                        swz[j] = src.swz[gi];
                        mask |= 1 << j;
                        done[j] = true;
                    }
                    self.prog.ops.push(MOp {
                        op: Opcode::Mov,
                        dst: Dst::Out(o, mask),
                        srcs: smallvec![Operand { swz, n: 4, ..src }],
                    });
                }
            }
        }
        let _ = r;
    }
}

/// The parts of a dynamic constant index `Cast(IAdd(k, ConvertFtoI(x)))` (through vectorized
/// integer ops and a `CompositeExtract` of a lane): (x, lane of x, k, constant component of a
/// two-dimensional address).
fn relative_index(
    m: &Module,
    d: SsaDef,
    address: Option<SsaDef>,
) -> Result<(SsaDef, usize, i64, Option<u64>), Diagnostic> {
    // Peel `Cast`, `IAdd k` down to `ConvertFtoI x`; a CompositeConstruct address is
    // (element, constant component).
    let (mut a, comp) = match address.map(|a| (a, m.op(a))) {
        Some((_, aop)) if aop.opcode == OpCode::CompositeConstruct => {
            let members = CompositeConstruct::of(aop).members();
            (
                members.first().and_then(|o| o.as_ref()),
                const_index(m, members.get(1).and_then(|o| o.as_ref())),
            )
        }
        Some((a, _)) => (Some(a), Some(0)),
        None => (None, None),
    };
    // Walk to the float, following one lane through vectorized integer ops.
    let unknown = || unsupported(m, d, "dynamic constant index of an unknown form");
    let mut k: i64 = 0;
    let mut lane = 0usize;
    let x = loop {
        let cur = a.ok_or_else(unknown)?;
        let op = m.op(cur);
        match op.opcode {
            OpCode::Cast => a = Arith::of(op).a(),
            OpCode::CompositeExtract => {
                let ex = CompositeExtract::of(op);
                lane = const_index(m, ex.address()).ok_or_else(unknown)? as usize;
                a = ex.composite();
            }
            OpCode::IAdd => {
                let (p, q) = (Arith::of(op).a(), Arith::of(op).b());
                let is_k = |x: Option<SsaDef>| x.filter(|&x| m.opcode(x) == OpCode::Constant);
                let (kd, rest) = match (is_k(p), is_k(q)) {
                    (Some(c), None) => (c, q),
                    (None, Some(c)) => (c, p),
                    _ => return Err(unknown()),
                };
                let kk = Constant::of(m.op(kd)).scalar(lane).ok_or_else(unknown)?;
                k += i64::from(kk as u32 as i32);
                a = rest;
            }
            OpCode::ConvertFtoI => break Arith::of(op).a(),
            _ => return Err(unknown()),
        }
    };
    let x = x.ok_or_else(|| unsupported(m, d, "operand missing"))?;
    Ok((x, lane, k, comp))
}

/// Which sources of `op` to negate so that it computes the negated result exactly (`None`:
/// no such sources, e.g. MAX, FLR, RCP at ±0).
fn negating_sources(op: Opcode) -> Option<&'static [usize]> {
    match op {
        Opcode::Mov | Opcode::Mul | Opcode::Dp3 | Opcode::Dp4 => Some(&[0]),
        Opcode::Dph | Opcode::Dphi => Some(&[1]),
        Opcode::Add => Some(&[0, 1]),
        Opcode::Mad | Opcode::Madi => Some(&[0, 2]),
        _ => None,
    }
}

/// Whether every component is a uniform or literal lane (an operand for the wide source).
fn uniform_only(v: &[C]) -> bool {
    v.iter()
        .all(|c| matches!(c.loc, Loc::Uni(..) | Loc::Lit(_)))
}

/// The products only DST-lowered distance vectors read ([`Lower::dst_products`]).
fn dst_products(m: &Module) -> rustc_hash::FxHashSet<SsaDef> {
    let is_dst =
        |d: SsaDef| m.opcode(d) == OpCode::CompositeConstruct && dst_operands(m, d).is_some();
    m.code()
        .filter(|&d| is_dst(d))
        .filter_map(|d| {
            CompositeConstruct::of(m.op(d))
                .members()
                .get(1)
                .and_then(|o| o.as_ref())
        })
        .filter(|&p| m.uses(p).iter().all(|&u| is_dst(u)))
        .collect()
}

/// The operands `(a, b)` when `d` builds D3D9's distance vector `(1, a.y · b.y, a.z, b.w)`
/// with a D3D9-rule product: one DST (reference §4; `0 · inf = 0` as in its multiply).
fn dst_operands(m: &Module, d: SsaDef) -> Option<(SsaDef, SsaDef)> {
    let op = m.op(d);
    let members: Vec<SsaDef> = CompositeConstruct::of(op)
        .members()
        .iter()
        .map(|o| o.as_ref())
        .collect::<Option<_>>()?;
    let [one, prod, z, w] = members[..] else {
        return None;
    };
    let is_one = m.opcode(one) == OpCode::Constant
        && constant_lanes(m, one, 1).ok()?.first().map(|l| l.value) == Some(1.0);
    // (vector, lane) of a `CompositeExtract` of a constant lane of a 4-component float vector.
    let lane = |x: SsaDef| -> Option<(SsaDef, u64)> {
        let xop = m.op(x);
        if xop.opcode != OpCode::CompositeExtract {
            return None;
        }
        let ce = CompositeExtract::of(xop);
        let v = ce.composite()?;
        (flat_size(m.ty(v)) == Some(4) && m.ty(v).is_basic_where(|t| t.is_float()))
            .then_some((v, const_index(m, ce.address())?))
    };
    let pop = m.op(prod);
    if !is_one || pop.opcode != OpCode::FMulLegacy {
        return None;
    }
    let (a, b) = (lane(z)?, lane(w)?);
    if a.1 != 2 || b.1 != 3 {
        return None;
    }
    let ar = Arith::of(pop);
    let (p, q) = (lane(ar.a()?)?, lane(ar.b()?)?);
    if p.1 != 1 || q.1 != 1 {
        return None;
    }
    ((p.0, q.0) == (a.0, b.0) || (p.0, q.0) == (b.0, a.0)).then_some((a.0, b.0))
}

/// Copy folding: lets the op computing a value write the copy's destination directly — an
/// output register, or the lanes of a register built from several values — when the value is
/// read only by that one MOV, which takes each of its components once: the op's destination
/// becomes the copy's (component-wise operands permuted to match; a negated copy negates the
/// op's sources where that is exact), and the MOV goes. Each output component is still written
/// exactly once.
fn fold_output_moves(p: &mut Program) {
    let n = p.vregs.len();
    let mut reads = vec![0u32; n];
    let mut defs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, op) in p.ops.iter().enumerate() {
        for s in &op.srcs {
            if let Reg::V(v) = s.reg {
                reads[v.index()] += 1;
            }
        }
        if let Dst::V(v, _) = op.dst {
            defs[v.index()].push(i);
        }
    }
    // Flow-control nesting depth of each op.
    let mut depth = Vec::with_capacity(p.ops.len());
    let mut d = 0u32;
    for op in &p.ops {
        match op.dst {
            Dst::Flow(Flow::If(_) | Flow::Loop(_)) => {
                depth.push(d);
                d += 1;
            }
            Dst::Flow(Flow::EndIf | Flow::EndLoop) => {
                d = d.saturating_sub(1);
                depth.push(d);
            }
            _ => depth.push(d),
        }
    }
    let mut folded: Vec<usize> = Vec::new();
    for m in 0..p.ops.len() {
        let lanes = match p.ops[m].dst {
            Dst::Out(_, lanes) | Dst::V(_, lanes) => lanes,
            Dst::A0(_) | Dst::Emit(_) | Dst::Flow(_) => continue,
        };
        let [src] = p.ops[m].srcs[..] else { continue };
        let Reg::V(t) = src.reg else { continue };
        if p.ops[m].op != Opcode::Mov || reads[t.index()] != 1 {
            continue;
        }
        if p.ops[m].dst == Dst::V(t, lanes) {
            continue;
        }
        let [pi] = defs[t.index()][..] else { continue };
        let Dst::V(_, def_mask) = p.ops[pi].dst else {
            continue;
        };
        // An output is written early only by a producer outside every branch and loop (it
        // runs once); a register only without flow control in between, and not while it is
        // read in between (a phi's register is read until its copy).
        if pi > m {
            continue;
        }
        let between = &p.ops[pi + 1..m];
        let ok = match p.ops[m].dst {
            Dst::Out(..) => depth[pi] == 0,
            Dst::V(u, _) => !between.iter().any(|o| {
                matches!(o.dst, Dst::Flow(_)) || o.srcs.iter().any(|s| s.reg == Reg::V(u))
            }),
            _ => false,
        };
        // A geometry shader writes its outputs again for every vertex: a write may not move
        // across an EMIT.
        if !ok || between.iter().any(|o| matches!(o.dst, Dst::Emit(_))) {
            continue;
        }
        let negate = match (src.neg, negating_sources(p.ops[pi].op)) {
            (false, _) => &[][..],
            (true, Some(which)) => which,
            (true, None) => continue,
        };
        // lane j of the destination takes component comp[j] of t.
        let mut used = 0u8;
        let mut injective = true;
        for j in (0..4).filter(|j| lanes & (1 << j) != 0) {
            let c = src.swz[j];
            injective &= used & (1 << c) == 0;
            used |= 1 << c;
        }
        if !injective || used != def_mask {
            continue;
        }
        // DST's lanes are fixed: only a copy keeping every lane in place folds into it.
        if p.ops[pi].lane_specific()
            && (0..4).any(|j| lanes & (1 << j) != 0 && usize::from(src.swz[j]) != j)
        {
            continue;
        }
        let dst = p.ops[m].dst;
        let producer = &mut p.ops[pi];
        if producer.componentwise() {
            for s in &mut producer.srcs {
                let old = s.swz;
                let mut swz = [old[usize::from(src.swz[0])]; 4];
                for j in (0..4).filter(|j| lanes & (1 << j) != 0) {
                    swz[j] = old[usize::from(src.swz[j])];
                }
                s.swz = swz;
                s.n = 4;
            }
        }
        for &i in negate {
            producer.srcs[i].neg = !producer.srcs[i].neg;
        }
        producer.dst = dst;
        if let Dst::V(u, _) = dst {
            defs[u.index()].retain(|&i| i != m);
            defs[u.index()].push(pi);
        }
        defs[t.index()].clear();
        folded.push(m);
    }
    let mut dead = vec![false; p.ops.len()];
    for m in folded {
        dead[m] = true;
    }
    let mut i = 0;
    p.ops.retain(|_| {
        i += 1;
        !dead[i - 1]
    });
}
