//! Lowering: an optimized IR vertex shader (after the `opt` pipeline with [`super::caps::CAPS`])
//! → [`Program`], a graph of scalar GP nodes.
//!
//! Every IR value becomes a list of *components* ([`C`]): an operand of the machine IR (a node
//! result, an attribute lane, a uniform lane, possibly negated) or a literal. Extracting,
//! constructing and negating rearrange components and cost nothing; arithmetic makes one node
//! per component ([`ops`]). The GP has no immediates (reference §10): literals are packed into
//! a pool of uniform vec4s placed, as Mesa's gpir does, after the application's uniforms and
//! the viewport pair. Inputs (`DclInput` location `n`) are attribute registers `a<n>`.
//!
//! Outputs are collected per component and stored at the end: the position goes to varying 0
//! through the viewport epilogue of reference §10 (`w' = clamp(1/w, −2^15, 2^15)`,
//! `(x·w'·sx + tx, y·w'·sy + ty, z·w'·sz + tz, w')`), every other output to the next free
//! varyings in declaration order; a component the shader never writes is stored as 0. The
//! point size goes through the blob's epilogue (reference §10, the old text):
//! `clamp(ps, p.x, p.y) · p.z` with a parameter vec4 `p` placed after the viewport pair
//! (`gl_mali_PointSizeParameters`; Mesa's constant clamp to 1–100 is `p = (1, 100, 1)`), computed as
//! `min(max(ps, p.x), p.y) · p.z`.
//!
//! D3D9 float constants indexed dynamically (`c[a0.x + k]`, in the IR a load at
//! `Cast(ConvertFtoI(x) + k)`) are read through an address register: the base `x` is clamped and
//! set by an [`Op::SetAddr`] node, each load reads `c<k>`'s slot plus that register
//! ([`Src::UniRel`]); the constants are laid out whole with zero slots around ([`RelLayout`]),
//! so that out-of-range indices read 0 as the IR says. The integer ops of such an index are
//! consumed there (the GP has no integers).
//!
//! Control flow ([`flow`]): each IR block becomes a [`Block`] of nodes, scheduled on its own;
//! values that cross blocks (phis, and values used outside their block) live in pinned
//! register components, and branches test the pass unit's result (reference §8.4).
//!
//! What the GP cannot express is a [`Diagnostic::unsupported`] naming the op.

mod flow;
mod io;
mod ops;

use irc_backend::{
    Diagnostic, IoSource, Reflection, UniformBinding, UniformSource, VaryingBinding,
};
use irc_ir::analysis::cfg::{self, Cfg};
use irc_ir::format::EntryPoint;
use irc_ir::{BuiltIn, Module, OpCode, SsaDef};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::isa::UNIFORM_SLOTS;
use super::mir::{Blocks, NodeId, Op, Operand, OutputStore, Program, Src};

/// One component of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum C {
    V(Operand),
    /// f32 bits.
    Lit(u32),
}

impl C {
    pub fn lit(x: f32) -> C {
        C::Lit(x.to_bits())
    }
    pub(super) fn negated(self) -> C {
        match self {
            C::V(o) => C::V(o.negated()),
            C::Lit(b) => C::Lit(b ^ 0x8000_0000),
        }
    }
    pub(super) fn as_lit(self) -> Option<f32> {
        match self {
            C::Lit(b) => Some(f32::from_bits(b)),
            C::V(_) => None,
        }
    }
}

pub type Comps = SmallVec<[C; 4]>;

/// An application uniform, the viewport pair, or a literal-pool entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UniKey {
    Legacy(u32),
    /// A D3D9 integer or bool constant register (`LegacyConstInt`/`LegacyConstBool`), uploaded
    /// as floats (integers converted, bools 0/1 in every lane: the convention of
    /// [`UniformSource::Legacy`]), placed like constant-buffer elements.
    LegacyOther(BuiltIn, u32),
    Cbuffer(irc_backend::ResourceBinding, u32),
    /// D3D9 float constant `c<k>` of a relative load (`c[a + k]`, `k` possibly outside
    /// 0–255): the slot of `c0` plus `k` (the constants are laid out whole, [`RelLayout`]).
    LegacyRel(i32),
    /// 0 scale, 1 translate.
    Viewport(u32),
    /// The point-size parameters (min, max, scale).
    PointSize,
    Literal(u32),
}

/// Result of lowering.
#[derive(Debug)]
pub struct Lowered {
    pub program: Blocks,
    pub reflection: Reflection,
    /// Uniform slot of the viewport scale (translate in the next), when the position is
    /// written.
    pub viewport: Option<u32>,
    /// Uniform slot of the point-size parameters, when the point size is written.
    pub point_size: Option<u32>,
    pub ir_ops: u32,
}

struct OutDecl {
    /// Varying component each output component is stored to (`None`: dropped, no later stage
    /// reads it).
    dests: Vec<Option<(u8, u8)>>,
    comps: Vec<Option<C>>,
    target: IoSource,
}

struct Lower<'a> {
    m: &'a Module,
    prog: Program,
    values: FxHashMap<SsaDef, Comps>,
    /// Literal pool: entries and how many lanes each holds.
    lits: Vec<([u32; 4], u8)>,
    outputs: FxHashMap<SsaDef, OutDecl>,
    /// Uniform ids (the `Src::Uni` number until slots are assigned).
    uniforms: Vec<UniKey>,
    /// The D3D9 float constants are indexed dynamically (`c[a + k]`): the range of `k`.
    rel: Option<RelLayout>,
    /// The address register node of each index base (the float operand of the
    /// `ConvertFtoI`), in the current block.
    addr_nodes: FxHashMap<SsaDef, NodeId>,
    /// Control flow ([`flow`]): finished blocks, the current block's index, the block of
    /// each op, pinned components, phis.
    flow: flow::Flow,
}

/// The layout of the D3D9 float constants when they are indexed dynamically: the `len` declared
/// registers as a whole at slots `B`–`B + len − 1`, zero vec4s below (slots 0 to `B − 1`) and
/// `P = kmax − kmin + 1` zero vec4s above, `B = P + max(0, −kmin)`. The index base `a` is
/// clamped to `[−kmax − 1, len − kmin]` into its address register, so that `B + a + k` for every
/// `k` of the shader is the constant when `0 ≤ a + k < len` and a zero slot otherwise — the
/// IR's robust read (out-of-range constant registers read 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelLayout {
    /// Constant registers declared (the array length; 256 in D3D9 shaders).
    pub len: u32,
    pub kmin: i64,
    pub kmax: i64,
}

impl RelLayout {
    fn pad(self) -> u32 {
        (self.kmax - self.kmin + 1) as u32
    }
    fn base(self) -> u32 {
        self.pad() + (-self.kmin).max(0) as u32
    }
}

fn unsupported(m: &Module, d: SsaDef, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::unsupported(Some((d, m.opcode(d))), msg)
}

/// Lowers the entry point of `m`.
pub fn lower(m: &Module, layout: Option<&[VaryingBinding]>) -> Result<Lowered, Diagnostic> {
    let entry = m
        .declarations()
        .find(|&d| m.opcode(d) == OpCode::EntryPoint)
        .ok_or_else(|| Diagnostic::unsupported(None, "the module has no entry point"))?;
    let ep = EntryPoint::of(m.op(entry));
    if ep.stage() != Some(irc_ir::ShaderStage::Vertex.0 as u64) {
        return Err(unsupported(
            m,
            entry,
            "lima-vp compiles vertex shaders only",
        ));
    }
    let func = ep
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
    let mut l = Lower {
        m,
        prog: Program::default(),
        values: FxHashMap::default(),
        lits: Vec::new(),
        outputs: FxHashMap::default(),
        uniforms: Vec::new(),
        rel: None,
        addr_nodes: FxHashMap::default(),
        flow: flow::Flow::new(m, &cfg),
    };
    let mut reflection = Reflection::default();
    l.declare(&mut reflection, layout)?;
    let all_ops: Vec<SsaDef> = cfg
        .blocks()
        .flat_map(|b| cfg.ops(b).iter().copied())
        .collect();
    l.rel = l.scan_relative(&all_ops)?;
    let (viewport, point_size) = l.lower_blocks(&cfg)?;
    let (viewport, point_size) = l.assign_uniform_slots(&mut reflection, viewport, point_size)?;
    Ok(Lowered {
        program: l.flow.finish(),
        reflection,
        viewport,
        point_size,
        ir_ops: m.code().count() as u32,
    })
}

impl Lower<'_> {
    fn diag(&self, d: SsaDef, msg: impl Into<String>) -> Diagnostic {
        unsupported(self.m, d, msg)
    }

    fn uniform_id(&mut self, k: UniKey) -> u32 {
        match self.uniforms.iter().position(|&x| x == k) {
            Some(i) => i as u32,
            None => {
                self.uniforms.push(k);
                (self.uniforms.len() - 1) as u32
            }
        }
    }

    /// The operand reading component `c` (literals go to the pool).
    fn operand(&mut self, c: C) -> Operand {
        match c {
            C::V(o) => o,
            C::Lit(bits) => {
                let (entry, lane) = self.literal(bits);
                let id = self.uniform_id(UniKey::Literal(entry));
                Operand {
                    src: Src::Uni(id, lane),
                    neg: false,
                }
            }
        }
    }

    /// The pool entry and lane holding `bits`.
    fn literal(&mut self, bits: u32) -> (u32, u8) {
        for (k, e) in self.lits.iter().enumerate() {
            if let Some(l) = e.0[..usize::from(e.1)].iter().position(|&x| x == bits) {
                return (k as u32, l as u8);
            }
        }
        if self.lits.last().is_none_or(|e| e.1 == 4) {
            self.lits.push(([0; 4], 0));
        }
        let k = self.lits.len() - 1;
        let e = &mut self.lits[k];
        e.0[usize::from(e.1)] = bits;
        e.1 += 1;
        (k as u32, e.1 - 1)
    }

    /// Appends a node for `op` on `args`, keeping the form the scheduler can place (module
    /// doc of [`super::mir`]): negations moved to where a negate bit exists, at most one
    /// uniform vec4 and two attribute vec4s read.
    fn emit(&mut self, op: Op, args: &[C]) -> C {
        let mut srcs: SmallVec<[Operand; 3]> = args.iter().map(|&c| self.operand(c)).collect();
        match op {
            Op::Mul => {
                if srcs[0].neg && srcs[1].neg {
                    srcs[0].neg = false;
                    srcs[1].neg = false;
                } else if srcs[0].neg {
                    srcs.swap(0, 1);
                }
            }
            Op::Select => {
                // The condition is only compared with 0.
                srcs[0].neg = false;
                for s in &mut srcs[1..] {
                    if s.neg {
                        *s = self.mov(*s);
                    }
                }
            }
            Op::Rcp | Op::Rsqrt | Op::Exp2 | Op::Log2 if srcs[0].neg => {
                srcs[0] = self.mov(srcs[0]);
            }
            _ => {}
        }
        let mut uni: Option<(u32, Option<NodeId>)> = None;
        let mut attrs: SmallVec<[u8; 3]> = SmallVec::new();
        for i in 0..srcs.len() {
            let key = match srcs[i].src {
                Src::Uni(id, _) => Some((id, None)),
                Src::UniRel(id, a, _) => Some((id, Some(a))),
                Src::Node(_) | Src::Attr(..) | Src::Reg(..) => None,
            };
            match srcs[i].src {
                Src::Uni(..) | Src::UniRel(..) if uni.is_some_and(|u| Some(u) != key) => {
                    srcs[i] = self.mov(srcs[i])
                }
                Src::Uni(..) | Src::UniRel(..) => uni = key,
                Src::Attr(a, _) if !attrs.contains(&a) && attrs.len() == 2 => {
                    srcs[i] = self.mov(srcs[i]);
                }
                Src::Attr(a, _) => {
                    if !attrs.contains(&a) {
                        attrs.push(a);
                    }
                }
                Src::Node(_) | Src::Reg(..) => {}
            }
        }
        C::V(Operand::node(self.prog.push(op, &srcs)))
    }

    fn mov(&mut self, o: Operand) -> Operand {
        Operand::node(self.prog.push(Op::Mov, &[o]))
    }

    /// Stores the outputs (module doc); returns the uniform ids of the viewport and of the
    /// point-size parameters when the position or the point size is written.
    fn write_outputs(&mut self) -> Result<(Option<u32>, Option<u32>), Diagnostic> {
        type Out = (Vec<Option<(u8, u8)>>, Vec<Option<C>>, IoSource);
        let mut outs: Vec<Out> = self
            .outputs
            .values()
            .map(|o| (o.dests.clone(), o.comps.clone(), o.target))
            .collect();
        outs.sort_by_key(|o| o.0.iter().flatten().next().copied());
        let mut viewport = None;
        let mut point_size = None;
        for (dests, mut comps, target) in outs {
            if target == IoSource::BuiltIn(BuiltIn::Position) {
                comps.resize(4, None);
                let v: Vec<C> = comps.iter().map(|c| c.unwrap_or(C::lit(0.0))).collect();
                let scale = self.uniform_id(UniKey::Viewport(0));
                let translate = self.uniform_id(UniKey::Viewport(1));
                viewport = Some(scale);
                let e = self.epilogue([v[0], v[1], v[2], v[3]], scale, translate);
                comps = e.iter().map(|&c| Some(c)).collect();
            }
            if target == IoSource::BuiltIn(BuiltIn::PointSize)
                && dests.first().is_some_and(Option::is_some)
            {
                let p = self.uniform_id(UniKey::PointSize);
                point_size = Some(p);
                let ps = comps.first().copied().flatten().unwrap_or(C::lit(0.0));
                comps[0] = Some(self.point_size(ps, p));
            }
            for (c, dest) in comps.iter().zip(&dests) {
                let Some((varying, comp)) = *dest else {
                    continue;
                };
                let value = self.operand(c.unwrap_or(C::lit(0.0)));
                self.prog.outputs.push(OutputStore {
                    varying,
                    comp,
                    value,
                    register: false,
                });
            }
        }
        Ok((viewport, point_size))
    }

    /// The point-size epilogue (module doc) with the parameters in uniform `params`.
    fn point_size(&mut self, ps: C, params: u32) -> C {
        let p = |c| {
            C::V(Operand {
                src: Src::Uni(params, c),
                neg: false,
            })
        };
        let lo = self.emit(Op::Max, &[ps, p(0)]);
        let hi = self.emit(Op::Min, &[lo, p(1)]);
        self.emit(Op::Mul, &[hi, p(2)])
    }

    /// The viewport transform of reference §10 on clip-space `p`.
    fn epilogue(&mut self, p: [C; 4], scale: u32, translate: u32) -> [C; 4] {
        let r = self.emit(Op::Rcp, &[p[3]]);
        let hi = self.emit(Op::Min, &[r, C::lit(32768.0)]);
        let w = self.emit(Op::Max, &[hi, C::lit(-32768.0)]);
        let uni = |id, c| {
            C::V(Operand {
                src: Src::Uni(id, c),
                neg: false,
            })
        };
        let mut out = [w; 4];
        for i in 0..3 {
            let pw = self.emit(Op::Mul, &[p[i], w]);
            let s = self.emit(Op::Mul, &[pw, uni(scale, i as u8)]);
            out[i] = self.emit(Op::Add, &[s, uni(translate, i as u8)]);
        }
        out
    }

    /// D3D9 float constant `c<n>` goes to slot `n`; constant-buffer elements fill the slots
    /// after the highest D3D9 register in order of first use; then the viewport pair, the
    /// point-size parameters, then the literal pool (reference §10). Rewrites uniform ids to
    /// slots and binds them; returns the slots of the viewport and the point-size parameters.
    fn assign_uniform_slots(
        &mut self,
        r: &mut Reflection,
        viewport: Option<u32>,
        point_size: Option<u32>,
    ) -> Result<(Option<u32>, Option<u32>), Diagnostic> {
        let mut next = self
            .uniforms
            .iter()
            .filter_map(|k| match k {
                UniKey::Legacy(i) => Some(i + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        // c<i> at slot `legacy_base + i`; the whole array when indexed dynamically.
        let legacy_base = self.rel.map_or(0, RelLayout::base);
        if let Some(rel) = self.rel {
            let zero = |slot| UniformBinding {
                slot,
                source: UniformSource::Literal([0.0; 4]),
            };
            r.uniforms.extend((0..legacy_base).map(zero));
            r.uniforms.extend((0..rel.len).map(|i| UniformBinding {
                slot: legacy_base + i,
                source: UniformSource::Legacy {
                    kind: BuiltIn::LegacyConstFloat,
                    index: i,
                },
            }));
            let top = legacy_base + rel.len;
            r.uniforms.extend((top..top + rel.pad()).map(zero));
            next = top + rel.pad();
        }
        let mut slots = vec![0u32; self.uniforms.len()];
        for (id, k) in self.uniforms.iter().enumerate() {
            match *k {
                UniKey::Legacy(i) => {
                    slots[id] = legacy_base + i;
                    if self.rel.is_none() {
                        r.uniforms.push(UniformBinding {
                            slot: i,
                            source: UniformSource::Legacy {
                                kind: BuiltIn::LegacyConstFloat,
                                index: i,
                            },
                        });
                    }
                }
                UniKey::LegacyRel(k) => {
                    slots[id] = (i64::from(legacy_base) + i64::from(k)) as u32;
                }
                UniKey::LegacyOther(kind, index) => {
                    slots[id] = next;
                    r.uniforms.push(UniformBinding {
                        slot: next,
                        source: UniformSource::Legacy { kind, index },
                    });
                    next += 1;
                }
                UniKey::Cbuffer(binding, e) => {
                    slots[id] = next;
                    r.uniforms.push(UniformBinding {
                        slot: next,
                        source: UniformSource::ConstantBuffer {
                            binding,
                            vec4_index: e,
                            int_lanes: 0,
                        },
                    });
                    next += 1;
                }
                _ => {}
            }
        }
        let vp = next;
        if viewport.is_some() {
            next += 2;
        }
        let ps = next;
        if point_size.is_some() {
            next += 1;
        }
        let lit_base = next;
        for (id, k) in self.uniforms.iter().enumerate() {
            match *k {
                UniKey::Viewport(v) => slots[id] = vp + v,
                UniKey::PointSize => slots[id] = ps,
                UniKey::Literal(e) => slots[id] = lit_base + e,
                _ => {}
            }
        }
        for (k, e) in self.lits.iter().enumerate() {
            r.uniforms.push(UniformBinding {
                slot: lit_base + k as u32,
                source: UniformSource::Literal(e.0.map(f32::from_bits)),
            });
        }
        let total = lit_base + self.lits.len() as u32;
        if total as usize > UNIFORM_SLOTS {
            return Err(Diagnostic::limit(format!(
                "{total} uniform vec4s needed ({lit_base} of the application and the viewport, {} \
                 for constants); the GP load unit addresses {UNIFORM_SLOTS}",
                self.lits.len()
            )));
        }
        r.uniforms.sort_by_key(|u| u.slot);
        r.uniform_slots = total;
        self.flow.map_uniforms(|id| slots[id as usize]);
        Ok((viewport.map(|_| vp), point_size.map(|_| ps)))
    }
}
