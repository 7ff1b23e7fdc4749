//! Lowering: an optimized IR module (after the `opt:agal` pipeline) → [`MProgram`], AGAL
//! machine ops on virtual registers.
//!
//! Every IR value is a list of *component sources* ([`Comp`]): a virtual-register component,
//! a literal, a constant-register lane or an input-register lane. Extracting and constructing
//! vectors only rearranges them. An op takes each operand as one register with a swizzle
//! ([`MSrc`]); components living in different places are first gathered into a fresh virtual
//! register by moves. Literals go to the constant pool ([`io::Io::literal_vec`]).
//!
//! The emit rules of the runtime validator that do not depend on register numbers are kept
//! here: at most one constant operand per instruction, no constant operand for single-source
//! ops other than `mov` (the constant is moved to a temporary first), `nrm`/`crs` results in
//! lanes `xyz` and `tex` results in `xyzw` of their register (fixed-lane virtual registers),
//! and one full-mask write of each output at the end of the program.
//!
//! AGAL has no source modifiers: `neg`, `abs`, `sat` are instructions. Selections the optimizer
//! leaves are predicated ([`flow`], every version) or become AGAL 2 conditionals ([`branch`]),
//! as [`FlowMode`] says; loops are unsupported.

mod branch;
mod coalesce;
mod dce;
mod flow;
mod fuse;
mod geometry;
pub mod io;
mod negated_compare;
pub mod relative;
mod round;

use irc_backend::ir_reads::{constant_lanes, sample_shape};
use irc_backend::{Diagnostic, IoSource, Reflection, SamplerKind, VaryingBinding};
use irc_ir::analysis::cfg::{self, Cfg};
use irc_ir::format::{
    AlignedLoad, Arith, Clamp, CompositeConstruct, CompositeExtract, Constant, DclInput,
    DclInputBuiltIn, DclOutput, DclOutputBuiltIn, Deriv, DescriptorLoad, Dot, EntryPoint, FRound,
    ImageSample, Load, Select, Store,
};
use irc_ir::{BuiltIn, Module, OpCode, ShaderStage, SsaDef};
use rustc_hash::FxHashMap;

use crate::isa::{Opcode, ShaderKind};
use io::{flat_size, Io, UniformLayout};

/// One scalar component of an IR value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Comp {
    /// Component `c` of virtual register `v`.
    V(u32, u8),
    /// A literal (pooled when an instruction reads it).
    Lit(f32),
    /// Lane of constant register `fc`/`vc<slot>`.
    Const(u32, u8),
    /// Lane of input register `v<slot>` (fragment) / `va<slot>` (vertex).
    Input(u32, u8),
}

/// Where an operand's register is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Base {
    V(u32),
    Const(u32),
    Input(u32),
}

/// An operand: a register and, per position, the component read (positions are result
/// components for lane-wise ops, operand lanes for the others).
#[derive(Debug, Clone, PartialEq)]
pub struct MSrc {
    pub base: Base,
    pub comps: Vec<u8>,
}

/// A destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MDst {
    None,
    /// Components `first..first + n` of a virtual register.
    V {
        v: u32,
        first: u8,
        n: u8,
    },
    /// Output register `oc<i>` / `op` / `v<i>` (vertex varying), all four lanes.
    Out {
        kind: OutKind,
        index: u16,
    },
}

/// Output register kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutKind {
    /// `oc<i>` (fragment) / `op` (vertex).
    Output,
    /// Vertex varying `v<i>`.
    Varying,
    /// Fragment depth `fd` (AGAL 2), lane x only.
    Depth,
}

/// A machine op.
#[derive(Debug, Clone, PartialEq)]
pub struct MInst {
    pub op: Opcode,
    pub dst: MDst,
    pub srcs: Vec<MSrc>,
    /// For `tex`.
    pub sampler: Option<crate::instr::Sampler>,
    /// A `mov` from `vc[index + offset]` ([`relative`]): source 0 is the index component.
    pub indirect: Option<relative::IndirectRead>,
}

impl MInst {
    /// Whether source positions follow result components (else operand lanes).
    pub fn lanewise(&self) -> bool {
        !matches!(
            self.op,
            Opcode::Dp3
                | Opcode::Dp4
                | Opcode::M33
                | Opcode::M34
                | Opcode::M44
                | Opcode::Nrm
                | Opcode::Crs
                | Opcode::Tex
                | Opcode::Kil
                | Opcode::Ife
                | Opcode::Ine
                | Opcode::Ifg
                | Opcode::Ifl
                | Opcode::Els
                | Opcode::Eif
        )
    }
}

/// A virtual register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VRegInfo {
    pub width: u8,
    /// Component `c` must be lane `c`.
    pub fixed: bool,
}

/// The lowered program.
#[derive(Debug, Default)]
pub struct MProgram {
    pub insts: Vec<MInst>,
    pub vregs: Vec<VRegInfo>,
    /// Whether an AGAL 2 opcode is used.
    pub needs_v2: bool,
}

/// Result of lowering.
#[derive(Debug)]
pub struct Lowered {
    pub program: MProgram,
    pub reflection: Reflection,
    pub kind: ShaderKind,
    pub ir_ops: u32,
}

type Comps = Vec<Comp>;

pub use branch::remove_empty_arms;

/// How selections the optimizer left become AGAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowMode {
    /// Straight-line code with predicates ([`flow`]): every version.
    Predicated,
    /// `ine`/`ife` … `els` … `eif` ([`branch`]): AGAL 2 and 3.
    Branched,
}

/// Whether the function of `m`'s entry point has more than one block (a selection or loop
/// left by the optimizer), i.e. whether [`FlowMode`] matters.
pub fn has_control_flow(m: &Module) -> bool {
    m.code()
        .any(|d| matches!(m.opcode(d), OpCode::BranchConditional))
}

/// Lowers the entry point of `m` for `stage`.
pub fn lower(
    m: &Module,
    stage: ShaderStage,
    layout: Option<Vec<VaryingBinding>>,
    mode: FlowMode,
) -> Result<Lowered, Diagnostic> {
    let entry = m
        .declarations()
        .find(|&d| m.opcode(d) == OpCode::EntryPoint)
        .ok_or_else(|| Diagnostic::unsupported(None, "the module has no entry point"))?;
    let ep = m.op(entry);
    let st = EntryPoint::of(ep).stage();
    if st != Some(stage.0 as u64) {
        return Err(Diagnostic::unsupported(
            Some((entry, OpCode::EntryPoint)),
            "shader stage not compiled by this target",
        ));
    }
    let kind = if stage == ShaderStage::Pixel {
        ShaderKind::Fragment
    } else {
        ShaderKind::Vertex
    };
    let func = EntryPoint::of(ep)
        .function()
        .ok_or_else(|| Diagnostic::unsupported(None, "entry point without a function"))?;
    let funcs = cfg::functions(m);
    let range = funcs
        .iter()
        .find(|f| f.function == func)
        .cloned()
        .ok_or_else(|| Diagnostic::internal(Some((func, OpCode::Function)), "no body"))?;
    for f in &funcs {
        if f.function != func {
            return Err(Diagnostic::unsupported(
                Some((f.function, OpCode::Function)),
                "functions must be inlined (AGAL has no calls)",
            ));
        }
    }
    let cfg = Cfg::build(m, range);
    if let Some(&stray) = cfg.stray_ops().first() {
        return Err(Diagnostic::unsupported(
            Some((stray, m.opcode(stray))),
            "op outside any block (unstructured function)",
        ));
    }
    let mut l = Lower {
        m,
        kind,
        prog: MProgram::default(),
        values: FxHashMap::default(),
        io: Io::new(m)?,
        outputs: Vec::new(),
        sampler_fields: FxHashMap::default(),
        layout,
        producer: FxHashMap::default(),
        alias: FxHashMap::default(),
        pred: None,
        fixed: Vec::new(),
        gathered: Vec::new(),
        branches: mode == FlowMode::Branched,
        frames: Vec::new(),
        facts: None,
        fp: irc_passes::fold_util::FpDefaults::of(m),
    };
    l.declare_outputs()?;
    l.lower_blocks(&cfg)?;
    l.finish_outputs()?;
    dce::remove_dead(&mut l.prog);
    coalesce::coalesce_in_place(&mut l.prog);
    fuse::fuse_matrices(&mut l.prog);
    let mut reflection = l.io.reflection();
    if !l.fixed.is_empty() {
        reflection.target = Some(irc_backend::reflection::TargetPart::new(
            crate::reflection::AgalReflection {
                fixed_outputs: std::mem::take(&mut l.fixed),
            },
        ));
    }
    reflection.outputs = l
        .outputs
        .iter()
        .filter(|o| !o.fixed)
        .map(|o| irc_backend::OutputBinding {
            target: o.source,
            register: u32::from(o.index),
            components: o.n,
        })
        .collect();
    Ok(Lowered {
        program: l.prog,
        reflection,
        kind,
        ir_ops: m.code().count() as u32,
    })
}

/// An output being assembled.
#[derive(Debug)]
struct OutSlot {
    decl: SsaDef,
    source: IoSource,
    kind: OutKind,
    index: u16,
    n: u8,
    comps: Vec<Option<Comp>>,
    /// No AGAL register: must be constant, reported in the reflection
    /// ([`crate::reflection::AgalReflection`]).
    fixed: bool,
    /// Branch mode: the register holding the output while it is stored in conditionals.
    var: Option<u32>,
}

struct Lower<'a> {
    m: &'a Module,
    kind: ShaderKind,
    prog: MProgram,
    values: FxHashMap<SsaDef, Comps>,
    io: Io,
    outputs: Vec<OutSlot>,
    /// Sampler index → the token's sampler field (one per register, #3696).
    sampler_fields: FxHashMap<u32, crate::instr::Sampler>,
    /// Program compilation: the input slots of the next stage (`CompileOptions::output_layout`).
    layout: Option<Vec<VaryingBinding>>,
    /// The op that computes a value (written once, whole), by virtual register.
    producer: FxHashMap<u32, usize>,
    /// Values whose op now writes part of another register: (register, first component).
    alias: FxHashMap<u32, (u32, u8)>,
    /// Where the block being lowered runs ([`flow`]).
    pred: flow::Pred,
    /// The outputs left out of the program, with their values.
    fixed: Vec<crate::reflection::FixedOutput>,
    /// Registers [`Lower::src`] gathered components into, by those components.
    gathered: Vec<(Vec<Comp>, u32)>,
    /// [`FlowMode::Branched`].
    branches: bool,
    /// The open conditionals, innermost last ([`branch`]).
    frames: Vec<branch::Frame>,
    /// The module's float facts, computed on first use ([`Lower::facts`]).
    facts: Option<irc_passes::float_facts::FloatFacts>,
    /// The float-mode defaults of the module (`SetFpMode`): which ops are `Precise`.
    fp: irc_passes::fold_util::FpDefaults,
}

impl Lower<'_> {
    /// The float facts of the module (`irc_passes::float_facts`), analysed once.
    fn facts(&mut self) -> &irc_passes::float_facts::FloatFacts {
        let m = self.m;
        self.facts
            .get_or_insert_with(|| irc_passes::float_facts::analyze(m))
    }
}

/// Whether every component is the literal `x` (bit for bit: −0 is not 0).
fn is_const(c: &[Comp], x: f32) -> bool {
    !c.is_empty()
        && c.iter()
            .all(|s| matches!(s, Comp::Lit(v) if v.to_bits() == x.to_bits()))
}

/// Component lists equal bit for bit (`Comp`'s `==` compares literals as floats).
fn same(a: &[Comp], b: &[Comp]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Comp::Lit(p), Comp::Lit(q)) => p.to_bits() == q.to_bits(),
            _ => x == y,
        })
}

impl Lower<'_> {
    fn diag(&self, d: SsaDef, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::unsupported(Some((d, self.m.opcode(d))), msg)
    }

    fn new_vreg(&mut self, width: u8, fixed: bool) -> u32 {
        self.prog.vregs.push(VRegInfo { width, fixed });
        self.prog.vregs.len() as u32 - 1
    }

    /// The components of operand `a` of op `d` (read through a format view).
    fn val(&mut self, d: SsaDef, a: Option<SsaDef>) -> Result<Comps, Diagnostic> {
        let a = a.ok_or_else(|| self.diag(d, "operand missing"))?;
        self.value(a)
    }

    /// Operands `a` and `b` of a binary arithmetic or comparison op.
    fn val2(&mut self, d: SsaDef, op: &irc_ir::Op) -> Result<(Comps, Comps), Diagnostic> {
        let v = Arith::of(op);
        Ok((self.val(d, v.a())?, self.val(d, v.b())?))
    }

    fn value(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        if let Some(v) = self.values.get(&d) {
            return Ok(v.clone());
        }
        match self.m.opcode(d) {
            OpCode::Constant | OpCode::Undef => {
                let c = self.constant(d)?;
                self.values.insert(d, c.clone());
                Ok(c)
            }
            o if self.m.ty(d).is_basic_where(|s| s.is_int()) => Err(self.diag(
                d,
                format!("the integer value of {o:?} used as data (AGAL has no integers)"),
            )),
            o => Err(Diagnostic::internal(
                Some((d, o)),
                "value used before its definition was lowered",
            )),
        }
    }

    fn constant(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let lanes = constant_lanes(self.m, d, 64).map_err(|e| self.diag(d, e))?;
        Ok(lanes
            .into_iter()
            .map(|lane| Comp::Lit(lane.value))
            .collect())
    }

    // ---- operands ----------------------------------------------------------------------

    /// One operand for `comps`, gathering them into a fresh register when they are not in one
    /// place.
    fn src(&mut self, comps: &[Comp]) -> MSrc {
        let comps: &[Comp] = &comps.iter().map(|&c| self.resolve(c)).collect::<Vec<_>>();
        if comps.iter().all(|c| matches!(c, Comp::Lit(_))) {
            let vals: Vec<f32> = comps
                .iter()
                .map(|c| if let Comp::Lit(x) = c { *x } else { 0.0 })
                .collect();
            let (slot, lanes) = self.io.literal_vec(&vals);
            return MSrc {
                base: Base::Const(slot),
                comps: lanes,
            };
        }
        let base_of = |c: &Comp| match *c {
            Comp::V(v, i) => Some((Base::V(v), i)),
            Comp::Const(s, i) => Some((Base::Const(s), i)),
            Comp::Input(s, i) => Some((Base::Input(s), i)),
            Comp::Lit(_) => None,
        };
        if let Some((b0, _)) = base_of(&comps[0]) {
            if comps
                .iter()
                .all(|c| base_of(c).is_some_and(|(b, _)| b == b0))
            {
                return MSrc {
                    base: b0,
                    comps: comps
                        .iter()
                        .filter_map(|c| base_of(c).map(|x| x.1))
                        .collect(),
                };
            }
        }
        // Gathered before: the same register (its contents never change).
        if let Some(&(_, t)) = self.gathered.iter().find(|(k, _)| same(k, comps)) {
            return MSrc {
                base: Base::V(t),
                comps: (0..comps.len() as u8).collect(),
            };
        }
        let t = self.gather(comps, false);
        self.gathered.push((comps.to_vec(), t));
        // Values the gather retargeted into `t` now resolve to its components.
        let now: Vec<Comp> = comps.iter().map(|&c| self.resolve(c)).collect();
        if !same(&now, comps) {
            self.gathered.push((now, t));
        }
        MSrc {
            base: Base::V(t),
            comps: (0..comps.len() as u8).collect(),
        }
    }

    /// A fresh register holding `comps` (moves of runs coming from one place).
    fn gather(&mut self, comps: &[Comp], fixed: bool) -> u32 {
        let v = self.new_vreg(comps.len() as u8, fixed);
        self.fill(v, comps, if fixed { None } else { Some(0) });
        v
    }

    /// Writes `comps` into components `0..` of `v`; `retarget`: a whole value computed by an
    /// op at machine op `retarget` or later is written there by that op instead.
    fn fill(&mut self, v: u32, comps: &[Comp], retarget: Option<usize>) {
        self.fill_at(v, 0, comps, retarget);
    }

    /// [`Lower::fill`] from component `base` of `v`.
    fn fill_at(&mut self, v: u32, base: u8, comps: &[Comp], retarget: Option<usize>) {
        let comps: Vec<Comp> = comps.iter().map(|&c| self.resolve(c)).collect();
        let comps = &comps[..];
        let mut i = 0usize;
        while i < comps.len() {
            // A whole value computed by one op: that op writes its result here instead.
            if let (Comp::V(x, 0), Some(min)) = (comps[i], retarget) {
                let w = usize::from(self.prog.vregs[x as usize].width);
                let whole = x != v
                    && i + w <= comps.len()
                    && self.producer.get(&x).is_some_and(|&p| p >= min)
                    && (0..w).all(|k| comps[i + k] == Comp::V(x, k as u8));
                if whole && self.retarget(x, v, base + i as u8) {
                    i += w;
                    continue;
                }
            }
            let run = |a: &Comp, b: &Comp| match (a, b) {
                (Comp::Lit(_), Comp::Lit(_)) => true,
                (Comp::V(x, _), Comp::V(y, _)) => x == y,
                (Comp::Const(x, _), Comp::Const(y, _)) => x == y,
                (Comp::Input(x, _), Comp::Input(y, _)) => x == y,
                _ => false,
            };
            let mut j = i + 1;
            while j < comps.len() && run(&comps[i], &comps[j]) {
                j += 1;
            }
            // Components already in place (a register filled from itself).
            let in_place = (i..j).all(|k| comps[k] == Comp::V(v, base + k as u8));
            if !in_place {
                let s = self.src(&comps[i..j]);
                self.push(
                    Opcode::Mov,
                    MDst::V {
                        v,
                        first: base + i as u8,
                        n: (j - i) as u8,
                    },
                    vec![s],
                );
            }
            i = j;
        }
    }

    /// Makes the op computing `x` write components `first..` of `v` instead, and `x` an alias
    /// of them (for the ops already emitted and, through [`Lower::resolve`], for later ones).
    fn retarget(&mut self, x: u32, v: u32, first: u8) -> bool {
        let Some(&p) = self.producer.get(&x) else {
            return false;
        };
        let info = self.prog.vregs[x as usize];
        if info.fixed {
            return false;
        }
        match self.prog.insts[p].dst {
            MDst::V { v: d, first: 0, n } if d == x && n == info.width => {}
            _ => return false,
        }
        self.prog.insts[p].dst = MDst::V {
            v,
            first,
            n: info.width,
        };
        for later in &mut self.prog.insts[p + 1..] {
            for s in &mut later.srcs {
                if s.base == Base::V(x) {
                    s.base = Base::V(v);
                    for c in &mut s.comps {
                        *c += first;
                    }
                }
            }
        }
        self.producer.remove(&x);
        self.alias.insert(x, (v, first));
        true
    }

    /// A component with retargeted values replaced by where they live now.
    fn resolve(&self, c: Comp) -> Comp {
        match c {
            Comp::V(x, k) => match self.alias.get(&x) {
                Some(&(v, f)) => self.resolve(Comp::V(v, f + k)),
                None => c,
            },
            _ => c,
        }
    }

    /// Appends an instruction, keeping the constant-operand rules: two constant operands or
    /// a constant operand of a single-source op other than `mov` → the constant goes through
    /// a temporary.
    fn push(&mut self, op: Opcode, dst: MDst, mut srcs: Vec<MSrc>) {
        // A source built before another source's gather retargeted its value (the gather's
        // rewrite reaches only the ops already pushed): read where the value lives now.
        for s in &mut srcs {
            while let Base::V(x) = s.base {
                let Some(&(v, first)) = self.alias.get(&x) else {
                    break;
                };
                s.base = Base::V(v);
                for c in &mut s.comps {
                    *c += first;
                }
            }
        }
        let is_const = |s: &MSrc| matches!(s.base, Base::Const(_));
        if op != Opcode::Mov && srcs.len() == 1 && is_const(&srcs[0]) {
            srcs[0] = self.in_temp(&srcs[0]);
        }
        if srcs.len() == 2 && is_const(&srcs[0]) && is_const(&srcs[1]) {
            srcs[1] = self.in_temp(&srcs[1]);
        }
        self.prog.insts.push(MInst {
            op,
            dst,
            srcs,
            sampler: None,
            indirect: None,
        });
    }

    fn in_temp(&mut self, s: &MSrc) -> MSrc {
        let n = s.comps.len() as u8;
        let v = self.new_vreg(n, false);
        self.prog.insts.push(MInst {
            op: Opcode::Mov,
            dst: MDst::V { v, first: 0, n },
            srcs: vec![s.clone()],
            sampler: None,
            indirect: None,
        });
        MSrc {
            base: Base::V(v),
            comps: (0..n).collect(),
        }
    }

    /// A lane-wise op on `width` components: returns the result's components.
    fn alu(&mut self, op: Opcode, args: &[&[Comp]], width: u8) -> Comps {
        let srcs: Vec<MSrc> = args
            .iter()
            .map(|a| {
                let c: Comps = (0..width as usize)
                    .map(|i| if a.len() == 1 { a[0] } else { a[i] })
                    .collect();
                self.src(&c)
            })
            .collect();
        let v = self.new_vreg(width, false);
        self.push(
            op,
            MDst::V {
                v,
                first: 0,
                n: width,
            },
            srcs,
        );
        self.producer.insert(v, self.prog.insts.len() - 1);
        (0..width).map(|c| Comp::V(v, c)).collect()
    }

    /// An op whose operands are read by lane (dp3, dp4, nrm, crs), with a result of `width`
    /// components (`fixed`: in lanes 0..width).
    fn vec_op(&mut self, op: Opcode, args: &[&[Comp]], width: u8, fixed: bool) -> Comps {
        let srcs: Vec<MSrc> = args.iter().map(|a| self.src(a)).collect();
        let v = self.new_vreg(width, fixed);
        self.push(
            op,
            MDst::V {
                v,
                first: 0,
                n: width,
            },
            srcs,
        );
        self.producer.insert(v, self.prog.insts.len() - 1);
        (0..width).map(|c| Comp::V(v, c)).collect()
    }

    fn dot(&mut self, a: &[Comp], b: &[Comp]) -> Comps {
        match a.len() {
            4 => self.vec_op(Opcode::Dp4, &[a, b], 1, false),
            3 => self.vec_op(Opcode::Dp3, &[a, b], 1, false),
            _ => {
                let p = self.alu(Opcode::Mul, &[a, b], a.len() as u8);
                let mut acc = vec![p[0]];
                for c in &p[1..] {
                    acc = self.alu(Opcode::Add, &[&acc, &[*c]], 1);
                }
                acc
            }
        }
    }

    /// `c ? a : b` with `c` 1.0/0.0 per component, exact for every value (signed zeros,
    /// infinities, NaN): each side is clamped from above by `K = (on − ½)·∞` (+∞ when the
    /// side is taken, −∞ when not), and the result is the larger of the two. `min`/`max`
    /// drop a NaN, so a NaN on the taken side is added back: `t` = 1 where it is NaN, and
    /// `(1/(1 − t) − 1)·0` is NaN there and 0 elsewhere.
    fn select(&mut self, c: &[Comp], a: &[Comp], b: &[Comp], width: u8) -> Comps {
        if same(a, b) {
            return a.to_vec();
        }
        // Conditions are exactly +0.0 or 1.0 (comparisons, and min/max/1 − x of them).
        if is_const(a, 1.0) && is_const(b, 0.0) {
            return c.to_vec();
        }
        if is_const(a, 0.0) && is_const(b, 1.0) {
            return self.alu(Opcode::Sub, &[&[Comp::Lit(1.0)], c], width);
        }
        // K of side a = (c − ½)·∞, of side b its negation.
        let h = self.alu(Opcode::Sub, &[c, &[Comp::Lit(0.5)]], width);
        let ka = self.alu(Opcode::Mul, &[&h, &[Comp::Lit(f32::INFINITY)]], width);
        let kb = self.alu(Opcode::Neg, &[&ka], width);
        let ma = self.alu(Opcode::Min, &[a, &ka], width);
        let mb = self.alu(Opcode::Min, &[b, &kb], width);
        let mut r = self.alu(Opcode::Max, &[&ma, &mb], width);
        let mut nans = Vec::new();
        for (v, taken_a) in [(a, true), (b, false)] {
            let finite_lit = v.iter().all(|c| matches!(c, Comp::Lit(x) if !x.is_nan()));
            if !finite_lit {
                let on = if taken_a {
                    c.to_vec()
                } else {
                    self.alu(Opcode::Sub, &[&[Comp::Lit(1.0)], c], width)
                };
                let n = self.alu(Opcode::Sne, &[v, v], width);
                nans.push(self.alu(Opcode::Mul, &[&n, &on], width));
            }
        }
        if !nans.is_empty() {
            let t = if nans.len() == 2 {
                self.alu(Opcode::Add, &[&nans[0], &nans[1]], width)
            } else {
                nans[0].clone()
            };
            // √(−0 − t): −0 where t = 0 (r + (−0) = r for every r, also −0), NaN where 1.
            let m = self.alu(Opcode::Sub, &[&[Comp::Lit(-0.0)], &t], width);
            let z = self.alu(Opcode::Sqt, &[&m], width);
            r = self.alu(Opcode::Add, &[&r, &z], width);
        }
        r
    }

    // ---- ops -------------------------------------------------------------------------------

    fn lower_op(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(d).clone();
        let width = flat_size(&op.ty).unwrap_or(0).min(255) as u8;
        let res: Comps = match op.opcode {
            OpCode::Label
            | OpCode::Return
            | OpCode::FunctionEnd
            | OpCode::Function
            | OpCode::DebugName
            | OpCode::DebugMemberName
            | OpCode::Semantic
            | OpCode::SetFpMode
            | OpCode::DescriptorLoad
            | OpCode::Drain => return Ok(()),
            OpCode::Constant | OpCode::Undef => self.constant(d)?,
            OpCode::ConvertFtoI
            | OpCode::IAdd
            | OpCode::Cast
            | OpCode::CompositeExtract
            | OpCode::CompositeConstruct
                if op.ty.is_basic_where(|s| s.is_int()) =>
            {
                // An integer index: read where a load uses it ([`relative`]).
                return Ok(());
            }
            OpCode::CompositeExtract => {
                let x = CompositeExtract::of(&op);
                let v = self.val(d, x.composite())?;
                let idx = x
                    .address()
                    .and_then(|i| io::const_index(self.m, Some(i)))
                    .ok_or_else(|| self.diag(d, "dynamic composite index"))?;
                let src_ty = self.m.ty(x.composite().unwrap_or(d)).clone();
                let per = flat_size(&src_ty.sub_type(idx as u32).unwrap_or(src_ty.clone()))
                    .unwrap_or(1) as usize;
                let start = if src_ty.is_struct() && !src_ty.is_array() {
                    src_ty.members()[..idx as usize]
                        .iter()
                        .map(|m| usize::from(m.vec_size()))
                        .sum()
                } else {
                    idx as usize * per
                };
                v.get(start..start + width as usize)
                    .ok_or_else(|| self.diag(d, "composite index out of range"))?
                    .to_vec()
            }
            OpCode::CompositeConstruct => {
                let mut out = Comps::new();
                for m in CompositeConstruct::of(&op).members() {
                    out.extend(self.val(d, m.as_ref())?);
                }
                out
            }
            OpCode::ConvertFtoF => self.val(d, Arith::of(&op).a())?,
            OpCode::FRound => {
                let r = FRound::of(&op);
                let a = self.val(d, r.a())?;
                let mode = r.mode().unwrap_or(0);
                self.round(&a, mode, width)
                    .ok_or_else(|| self.diag(d, format!("FRound with rounding mode {mode}")))?
            }
            OpCode::FNeg
            | OpCode::FAbs
            | OpCode::FRcp
            | OpCode::FSqrt
            | OpCode::FRsq
            | OpCode::FExp2
            | OpCode::FLog2
            | OpCode::FSin
            | OpCode::FCos
            | OpCode::FFract => {
                if let Some(r) = self.try_sqt(d) {
                    self.values.insert(d, r);
                    return Ok(());
                }
                let a = self.val(d, Arith::of(&op).a())?;
                if let (OpCode::FNeg, true) =
                    (op.opcode, a.iter().all(|c| matches!(c, Comp::Lit(_))))
                {
                    a.iter()
                        .map(|c| {
                            if let Comp::Lit(x) = c {
                                Comp::Lit(-x)
                            } else {
                                *c
                            }
                        })
                        .collect()
                } else {
                    let o = match op.opcode {
                        OpCode::FNeg => Opcode::Neg,
                        OpCode::FAbs => Opcode::Abs,
                        OpCode::FRcp => Opcode::Rcp,
                        OpCode::FSqrt => Opcode::Sqt,
                        OpCode::FRsq => Opcode::Rsq,
                        OpCode::FExp2 => Opcode::Exp,
                        OpCode::FLog2 => Opcode::Log,
                        OpCode::FSin => Opcode::Sin,
                        OpCode::FCos => Opcode::Cos,
                        _ => Opcode::Frc,
                    };
                    self.alu(o, &[&a], width)
                }
            }
            OpCode::FAdd
            | OpCode::FSub
            | OpCode::FMul
            | OpCode::FDiv
            | OpCode::FMin
            | OpCode::FMax
            | OpCode::FPow => {
                let pattern = match op.opcode {
                    OpCode::FMul => self.try_nrm(d),
                    OpCode::FSub => self.try_crs(d),
                    _ => None,
                };
                if let Some(r) = pattern {
                    self.values.insert(d, r);
                    return Ok(());
                }
                let (a, b) = self.val2(d, &op)?;
                let o = match op.opcode {
                    OpCode::FAdd => Opcode::Add,
                    OpCode::FSub => Opcode::Sub,
                    OpCode::FMul => Opcode::Mul,
                    OpCode::FDiv => Opcode::Div,
                    OpCode::FMin => Opcode::Min,
                    OpCode::FMax => Opcode::Max,
                    _ => Opcode::Pow,
                };
                self.alu(o, &[&a, &b], width)
            }
            OpCode::FMad => {
                let v = Arith::of(&op);
                let (a, b, c) = (
                    self.val(d, v.a())?,
                    self.val(d, v.b())?,
                    self.val(d, v.c())?,
                );
                let p = self.alu(Opcode::Mul, &[&a, &b], width);
                self.alu(Opcode::Add, &[&p, &c], width)
            }
            OpCode::FClamp => {
                let v = Clamp::of(&op);
                let (x, lo, hi) = (
                    self.val(d, v.a())?,
                    self.val(d, v.lo())?,
                    self.val(d, v.hi())?,
                );
                if is_const(&lo, 0.0) && is_const(&hi, 1.0) {
                    self.alu(Opcode::Sat, &[&x], width)
                } else {
                    let t = self.alu(Opcode::Max, &[&x, &lo], width);
                    self.alu(Opcode::Min, &[&t, &hi], width)
                }
            }
            OpCode::FDot => {
                let v = Dot::of(&op);
                let (a, b) = (self.val(d, v.a())?, self.val(d, v.b())?);
                if a.len() != b.len() || a.is_empty() || a.len() > 4 {
                    return Err(self.diag(d, "dot product of unequal or wide vectors"));
                }
                self.dot(&a, &b)
            }
            OpCode::FEq
            | OpCode::FNe
            | OpCode::FLt
            | OpCode::FLe
            | OpCode::FGt
            | OpCode::FGe
            | OpCode::BEq
            | OpCode::BNe => {
                let (a, b) = self.val2(d, &op)?;
                let (o, swap) = compare_op(op.opcode).expect("a comparison");
                let (x, y) = if swap { (b, a) } else { (a, b) };
                self.alu(o, &[&x, &y], width)
            }
            OpCode::BAnd => {
                let (a, b) = self.val2(d, &op)?;
                self.alu(Opcode::Min, &[&a, &b], width)
            }
            OpCode::BOr => {
                let (a, b) = self.val2(d, &op)?;
                self.alu(Opcode::Max, &[&a, &b], width)
            }
            OpCode::BNot => {
                let a = self.val(d, Arith::of(&op).a())?;
                self.alu(Opcode::Sub, &[&[Comp::Lit(1.0)], &a], width)
            }
            OpCode::Select => {
                let v = Select::of(&op);
                let zero_one = |x: Option<SsaDef>, k: f32| {
                    x.is_some_and(|x| {
                        irc_ir::format::Constant::try_of(self.m.op(x)).is_some_and(|c| {
                            (0..usize::from(width.max(1)))
                                .all(|i| c.scalar(i) == Some(u64::from(k.to_bits())))
                        })
                    })
                };
                let negated = match v.cond() {
                    Some(c) if zero_one(v.if_true(), 0.0) && zero_one(v.if_false(), 1.0) => {
                        self.negated_compare(c, width)?
                    }
                    _ => None,
                };
                if let Some(r) = negated {
                    self.values.insert(d, r);
                    return Ok(());
                }
                let (c, a, b) = (
                    self.val(d, v.cond())?,
                    self.val(d, v.if_true())?,
                    self.val(d, v.if_false())?,
                );
                let c: Comps = if c.len() == 1 {
                    vec![c[0]; width as usize]
                } else {
                    c
                };
                if let Some(Comp::Lit(k)) =
                    c.first().copied().filter(|_| c.iter().all(|x| *x == c[0]))
                {
                    if k != 0.0 {
                        a
                    } else {
                        b
                    }
                } else {
                    self.select(&c, &a, &b, width)
                }
            }
            OpCode::DerivX | OpCode::DerivY => {
                if self.kind != ShaderKind::Fragment {
                    return Err(self.diag(d, "derivatives in a vertex program"));
                }
                if !self.frames.is_empty() {
                    return Err(self.diag(
                        d,
                        "a derivative in a conditional of a value computed in it \
                         (ddx/ddy are not allowed inside conditionals, #3742)",
                    ));
                }
                let a = self.val(d, Deriv::of(&op).value())?;
                self.prog.needs_v2 = true;
                let o = if op.opcode == OpCode::DerivX {
                    Opcode::Ddx
                } else {
                    Opcode::Ddy
                };
                let s = self.src(&a);
                let s = if matches!(s.base, Base::Const(_)) {
                    self.in_temp(&s)
                } else {
                    s
                };
                let v = self.new_vreg(width, false);
                self.push(
                    o,
                    MDst::V {
                        v,
                        first: 0,
                        n: width,
                    },
                    vec![s],
                );
                (0..width).map(|c| Comp::V(v, c)).collect()
            }
            OpCode::InputLoad => self.input_load(d)?,
            OpCode::BufferLoad => self.buffer_load(d)?,
            OpCode::OutputStore => {
                self.output_store(d)?;
                return Ok(());
            }
            OpCode::ImageSample => self.sample(d)?,
            OpCode::Demote => {
                if self.kind != ShaderKind::Fragment {
                    return Err(self.diag(d, "discard in a vertex program"));
                }
                self.demote();
                self.io.discards = true;
                return Ok(());
            }
            o => return Err(self.diag(d, format!("{o:?} has no AGAL lowering"))),
        };
        if res.len() != width as usize && width != 0 {
            return Err(Diagnostic::internal(
                Some((d, op.opcode)),
                format!("lowered to {} components, expected {width}", res.len()),
            ));
        }
        self.values.insert(d, res);
        Ok(())
    }

    fn input_load(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d).clone();
        let decl = Load::of(&op)
            .base()
            .ok_or_else(|| self.diag(d, "no declaration"))?;
        let dop = self.m.op(decl).clone();
        let width = flat_size(&op.ty).unwrap_or(0) as u8;
        let addr = Load::of(&op).address();
        match dop.opcode {
            OpCode::DclInput => {
                let loc = DclInput::of(&dop).location().unwrap_or(0) as u32;
                let c0 = DclInput::of(&dop).component().unwrap_or(0) as u8;
                let n = flat_size(&dop.ty).unwrap_or(0) as u8;
                if dop.ty.is_array() || n > 4 {
                    return Err(self.diag(d, "input arrays"));
                }
                if !dop.ty.is_basic_where(|s| s.is_float()) {
                    return Err(self.diag(d, "integer or boolean inputs"));
                }
                // Input registers are numbered densely in location order.
                let slot = self.input_slot(loc);
                let limit = if self.kind == ShaderKind::Fragment {
                    10
                } else {
                    16
                };
                if slot >= limit {
                    return Err(self.diag(d, format!("more than {limit} input registers")));
                }
                let first = match addr {
                    None => 0,
                    Some(a) => io::const_index(self.m, Some(a))
                        .ok_or_else(|| self.diag(d, "dynamically indexed input"))?
                        as u8,
                };
                self.io.varying(
                    IoSource::Location {
                        location: loc,
                        component: u32::from(c0),
                    },
                    slot,
                    n,
                );
                Ok((0..width)
                    .map(|i| Comp::Input(slot, c0 + first + i))
                    .collect())
            }
            OpCode::DclInputBuiltIn => {
                let b = DclInputBuiltIn::of(&dop)
                    .builtin()
                    .and_then(BuiltIn::from_u64)
                    .ok_or_else(|| self.diag(d, "invalid built-in"))?;
                match b {
                    BuiltIn::LegacyConstFloat
                    | BuiltIn::LegacyConstInt
                    | BuiltIn::LegacyConstBool => self.uniform_load(d, decl, addr, width),
                    _ => Err(self.diag(d, format!("input built-in {b:?}"))),
                }
            }
            _ => Err(self.diag(d, "input load of this declaration")),
        }
    }

    /// The input register of input location `loc`: its rank among the locations of the
    /// inputs the program reads.
    fn input_slot(&self, loc: u32) -> u32 {
        let mut locs: Vec<u32> = self
            .m
            .declarations()
            .filter(|&d| self.m.opcode(d) == OpCode::DclInput && !self.m.uses(d).is_empty())
            .map(|d| DclInput::of(self.m.op(d)).location().unwrap_or(0) as u32)
            .collect();
        locs.sort_unstable();
        locs.dedup();
        locs.iter().position(|&l| l == loc).unwrap_or(0) as u32
    }

    fn uniform_load(
        &mut self,
        d: SsaDef,
        decl: SsaDef,
        addr: Option<SsaDef>,
        width: u8,
    ) -> Result<Comps, Diagnostic> {
        let arr = self
            .io
            .arrays
            .get(&decl)
            .cloned()
            .ok_or_else(|| self.diag(d, "constant array without a uniform layout"))?;
        let (elem, comp): (Option<SsaDef>, u8) = match addr {
            None => return Err(self.diag(d, "whole-array load")),
            Some(a) => {
                let aop = self.m.op(a);
                if aop.opcode == OpCode::CompositeConstruct {
                    let members = CompositeConstruct::of(aop).members();
                    let member = |i: usize| members.get(i).and_then(|o| o.as_ref());
                    let c = io::const_index(self.m, member(1))
                        .ok_or_else(|| self.diag(d, "dynamic component index"))?;
                    (member(0), c as u8)
                } else if flat_size(&aop.ty) == Some(2) {
                    if aop.opcode != OpCode::Constant {
                        return Err(self.diag(d, "vector address"));
                    }
                    let c = Constant::of(aop).scalar(1).unwrap_or(0);
                    (None, c as u8)
                } else {
                    (Some(a), 0)
                }
            }
        };
        let const_elem = match (elem, addr) {
            (None, Some(a)) => Constant::of(self.m.op(a)).scalar(0),
            _ => io::const_index(self.m, elem),
        };
        if comp + width > 4 {
            return Err(self.diag(d, "constant load crossing a register"));
        }
        let slot = match const_elem {
            Some(i) => match &arr.layout {
                UniformLayout::Dense(map) => *map
                    .get(&(i as u32))
                    .ok_or_else(|| self.diag(d, "constant element without a slot"))?,
                UniformLayout::Whole { base, len } => base + (i as u32).min(*len),
            },
            None => {
                let (UniformLayout::Whole { base, len }, Some(e)) = (&arr.layout, elem) else {
                    return Err(self.diag(d, "dynamically indexed constants"));
                };
                return self.relative_load(d, e, *base, *len, comp, width);
            }
        };
        Ok((0..width).map(|i| Comp::Const(slot, comp + i)).collect())
    }

    fn buffer_load(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d).clone();
        let desc = AlignedLoad::of(&op).base().map(|x| self.m.op(x));
        let decl = match desc {
            Some(dop) if dop.opcode == OpCode::DescriptorLoad => DescriptorLoad::of(dop).decl(),
            _ => None,
        }
        .ok_or_else(|| self.diag(d, "buffer load without a descriptor"))?;
        if self.m.opcode(decl) != OpCode::DclCbv {
            return Err(self.diag(d, "loads from buffers other than constant buffers"));
        }
        if !op.ty.is_basic_where(|s| s.is_float()) {
            return Err(self.diag(d, "integer constant-buffer data"));
        }
        let width = flat_size(&op.ty).unwrap_or(0) as u8;
        self.uniform_load(d, decl, AlignedLoad::of(&op).address(), width)
    }

    fn declare_outputs(&mut self) -> Result<(), Diagnostic> {
        let decls: Vec<SsaDef> = self.m.declarations().collect();
        for d in decls {
            let op = self.m.op(d).clone();
            let (source, kind, index) = match op.opcode {
                OpCode::DclOutput => {
                    let location = DclOutput::of(&op).location().unwrap_or(0) as u32;
                    let component = DclOutput::of(&op).component().unwrap_or(0) as u32;
                    if component != 0 {
                        return Err(self.diag(d, "output not starting at component x"));
                    }
                    let (kind, index) = if self.kind == ShaderKind::Fragment {
                        // oc1..oc3: multiple render targets, AGAL 2.
                        if location >= 4 {
                            return Err(self.diag(d, format!("colour output {location}")));
                        }
                        if location > 0 {
                            self.prog.needs_v2 = true;
                        }
                        (OutKind::Output, location as u16)
                    } else {
                        // Varyings are numbered densely in location order (below).
                        (OutKind::Varying, location as u16)
                    };
                    (
                        IoSource::Location {
                            location,
                            component,
                        },
                        kind,
                        index,
                    )
                }
                OpCode::DclOutputBuiltIn => {
                    let b = DclOutputBuiltIn::of(&op)
                        .builtin()
                        .and_then(BuiltIn::from_u64)
                        .ok_or_else(|| self.diag(d, "invalid built-in"))?;
                    if self.kind == ShaderKind::Vertex && b == BuiltIn::Position {
                        (IoSource::BuiltIn(b), OutKind::Output, 0)
                    } else if self.kind == ShaderKind::Fragment && b == BuiltIn::Depth {
                        self.prog.needs_v2 = true;
                        (IoSource::BuiltIn(b), OutKind::Depth, 0)
                    } else if self.kind == ShaderKind::Vertex
                        && matches!(b, BuiltIn::ClipDistance | BuiltIn::PointSize)
                    {
                        let n = flat_size(&op.ty)
                            .filter(|&n| (1..=8).contains(&n))
                            .ok_or_else(|| self.diag(d, format!("{b:?} of this size")))?;
                        self.outputs.push(OutSlot {
                            decl: d,
                            source: IoSource::BuiltIn(b),
                            kind: OutKind::Output,
                            index: 0,
                            n: n as u8,
                            comps: vec![None; n as usize],
                            fixed: true,
                            var: None,
                        });
                        continue;
                    } else {
                        return Err(self.diag(d, format!("output built-in {b:?}")));
                    }
                }
                _ => continue,
            };
            if !op.ty.is_basic_where(|s| s.is_float()) {
                return Err(self.diag(d, "integer or boolean outputs"));
            }
            let n = flat_size(&op.ty)
                .filter(|&n| (1..=4).contains(&n))
                .ok_or_else(|| self.diag(d, "output wider than a vec4"))? as u8;
            self.outputs.push(OutSlot {
                decl: d,
                source,
                kind,
                index,
                n,
                comps: vec![None; n as usize],
                fixed: false,
                var: None,
            });
        }
        if let Some(layout) = &self.layout {
            // A program's earlier stage: each output the next stage reads goes to its slot,
            // the others are dropped.
            self.outputs.retain_mut(|o| {
                let IoSource::Location { location, .. } = o.source else {
                    return true;
                };
                let slot = layout.iter().find(
                    |b| matches!(b.source, IoSource::Location { location: l, .. } if l == location),
                );
                match slot {
                    Some(b) => {
                        o.index = b.slot as u16;
                        true
                    }
                    None => false,
                }
            });
            return Ok(());
        }
        let mut locs: Vec<u16> = self
            .outputs
            .iter()
            .filter(|o| o.kind == OutKind::Varying && !o.fixed)
            .map(|o| o.index)
            .collect();
        locs.sort_unstable();
        for o in &mut self.outputs {
            if o.kind == OutKind::Varying {
                o.index = locs.iter().position(|&l| l == o.index).unwrap_or(0) as u16;
            }
        }
        Ok(())
    }

    /// The four lanes an output register gets: the stored components, 0 for those never
    /// stored (like the IR's outputs), and beyond the declared size 0 (w: 1).
    fn padded(&self, o: &OutSlot) -> Vec<Comp> {
        let mut c: Vec<Comp> = o
            .comps
            .iter()
            .map(|c| self.resolve(c.unwrap_or(Comp::Lit(0.0))))
            .collect();
        while c.len() < 4 {
            c.push(Comp::Lit(if c.len() == 3 { 1.0 } else { 0.0 }));
        }
        c
    }

    /// A vertex program compiled alone: varying outputs with the same value (the same
    /// components, e.g. the constants D3D9 shaders write to the texture coordinates they do not
    /// use) share one varying register, numbered in location order; the reflection names the
    /// register of each. (In a program, the fragment program's input layout decides.)
    fn share_varyings(&mut self) -> Result<(), Diagnostic> {
        let mut order: Vec<usize> = (0..self.outputs.len())
            .filter(|&k| self.outputs[k].kind == OutKind::Varying && !self.outputs[k].fixed)
            .collect();
        order.sort_by_key(|&k| self.outputs[k].index);
        let mut regs: Vec<Vec<Comp>> = Vec::new();
        for k in order {
            let c = self.padded(&self.outputs[k]);
            let index = match regs.iter().position(|r| same(r, &c)) {
                Some(i) => i,
                None => {
                    regs.push(c);
                    regs.len() - 1
                }
            };
            self.outputs[k].index = index as u16;
        }
        if regs.len() > 10 {
            return Err(Diagnostic::unsupported(
                None,
                format!(
                    "{} distinct varying outputs (AGAL has at most 10 varying registers)",
                    regs.len()
                ),
            ));
        }
        Ok(())
    }

    fn output_store(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(d).clone();
        let st = Store::of(&op);
        let decl = st.base().ok_or_else(|| self.diag(d, "no declaration"))?;
        let first = match st.address() {
            None => 0,
            Some(a) => io::const_index(self.m, Some(a))
                .ok_or_else(|| self.diag(d, "dynamically indexed output"))?
                as usize,
        };
        let value_def = st.value().ok_or_else(|| self.diag(d, "no value"))?;
        let mut vals = self.value(value_def)?;
        let Some(k) = self.outputs.iter().position(|o| o.decl == decl) else {
            // An output the next stage of the program does not read.
            return Ok(());
        };
        if self.branches {
            if !self.frames.is_empty() {
                return self.store_variable(d, k, first, &vals);
            }
            self.outputs[k].var = None;
        }
        if let Some(p) = self.pred {
            // A store in an arm: the old value where the arm does not run.
            let old: Comps = (0..vals.len())
                .map(|i| {
                    let c = self.outputs[k].comps.get(first + i).copied().flatten();
                    c.unwrap_or(Comp::Lit(0.0))
                })
                .collect();
            vals = self.select_on(p, &vals, &old, vals.len() as u8);
        }
        for (i, c) in vals.into_iter().enumerate() {
            let Some(slot) = self.outputs[k].comps.get_mut(first + i) else {
                return Err(self.diag(d, "a constant output index beyond the declaration"));
            };
            *slot = Some(c);
        }
        Ok(())
    }

    /// One full-mask write of every output (lanes never stored read 0, like the IR's outputs).
    fn finish_outputs(&mut self) -> Result<(), Diagnostic> {
        self.finish_fixed_outputs()?;
        if self.kind == ShaderKind::Vertex && self.layout.is_none() {
            self.share_varyings()?;
        }
        let mut outs: Vec<(OutKind, u16, Vec<Comp>)> = self
            .outputs
            .iter()
            .filter(|o| !o.fixed)
            .map(|o| (o.kind, o.index, self.padded(o)))
            .collect();
        // One write per register (shared varyings).
        let mut seen = Vec::new();
        outs.retain(|o| {
            let new = !seen.contains(&(o.0, o.1));
            seen.push((o.0, o.1));
            new
        });
        if self.kind == ShaderKind::Fragment {
            let mut idx: Vec<u16> = outs
                .iter()
                .filter(|o| o.0 == OutKind::Output)
                .map(|o| o.1)
                .collect();
            idx.sort_unstable();
            if idx.iter().enumerate().any(|(i, &x)| x != i as u16) {
                return Err(Diagnostic::unsupported(
                    None,
                    "colour outputs not consecutive from 0 (#3775)",
                ));
            }
        }
        if self.kind == ShaderKind::Fragment && !outs.iter().any(|o| o.0 == OutKind::Output) {
            return Err(Diagnostic::unsupported(
                None,
                "fragment program without a colour output",
            ));
        }
        if self.kind == ShaderKind::Vertex
            && !self
                .outputs
                .iter()
                .any(|o| o.source == IoSource::BuiltIn(BuiltIn::Position))
        {
            return Err(Diagnostic::unsupported(
                None,
                "vertex program without a position output",
            ));
        }
        let all: Vec<Comp> = outs
            .iter()
            .flat_map(|o| o.2.iter().map(|&x| self.resolve(x)))
            .collect();
        for (kind, index, c) in outs {
            let c: Vec<Comp> = c.iter().map(|&x| self.resolve(x)).collect();
            let elsewhere = |x: u32| {
                all.iter()
                    .filter(|y| matches!(y, Comp::V(v, _) if *v == x))
                    .count()
                    > 4
            };
            // A lane-wise op computing the whole output that nothing else reads writes the
            // output register itself.
            if let Comp::V(x, 0) = c[0] {
                if let Some(&p) = self.producer.get(&x) {
                    let whole = self.prog.vregs[x as usize].width == 4
                        && (0..4).all(|k| c[k] == Comp::V(x, k as u8));
                    let unread = self.prog.insts[p + 1..]
                        .iter()
                        .all(|i| i.srcs.iter().all(|s| s.base != Base::V(x)));
                    let ins = &self.prog.insts[p];
                    if whole
                        && unread
                        && !elsewhere(x)
                        && ins.lanewise()
                        && matches!(ins.dst, MDst::V { v, first: 0, n: 4 } if v == x)
                    {
                        self.prog.insts[p].dst = MDst::Out { kind, index };
                        self.producer.remove(&x);
                        continue;
                    }
                }
            }
            // The depth register takes lane x only.
            let c = if kind == OutKind::Depth { &c[..1] } else { &c };
            let s = self.src(c);
            self.prog.insts.push(MInst {
                op: Opcode::Mov,
                dst: MDst::Out { kind, index },
                srcs: vec![s],
                sampler: None,
                indirect: None,
            });
        }
        Ok(())
    }

    /// The values of the outputs AGAL has no register for (see [`crate::reflection`]).
    fn finish_fixed_outputs(&mut self) -> Result<(), Diagnostic> {
        for o in self.outputs.iter().filter(|o| o.fixed) {
            let mut values = Vec::new();
            for c in &o.comps {
                let v = match c.map(|c| self.resolve(c)) {
                    None => 0.0,
                    Some(Comp::Lit(x)) => x,
                    Some(_) => {
                        let why = if o.source == IoSource::BuiltIn(BuiltIn::ClipDistance) {
                            "user clip planes cannot be expressed"
                        } else {
                            "only a constant can be reported in the reflection"
                        };
                        return Err(self.diag(
                            o.decl,
                            format!(
                                "{} computed per vertex (AGAL has no such output; {why})",
                                source_name(o.source)
                            ),
                        ));
                    }
                };
                values.push(v);
            }
            let reason = match o.source {
                IoSource::BuiltIn(BuiltIn::ClipDistance) => {
                    if values.iter().any(|v| v.is_nan() || *v < 0.0) {
                        return Err(self.diag(
                            o.decl,
                            "a constant negative clip distance (clips everything; AGAL \
                             cannot clip)",
                        ));
                    }
                    "clip distances >= 0 clip nothing"
                }
                _ => "Stage3D draws triangles only: the point size has no effect",
            };
            self.fixed.push(crate::reflection::FixedOutput {
                target: o.source,
                values,
                reason,
            });
        }
        Ok(())
    }

    fn sample(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        use crate::isa::{Dimension, Filter, Mipmap, TexFormat, Wrap};
        if self.kind != ShaderKind::Fragment {
            return Err(self.diag(d, "texture sampling in a vertex program (AGAL 4)"));
        }
        let op = self.m.op(d).clone();
        let is = ImageSample::of(&op);
        let shape = sample_shape(self.m, d).map_err(|e| self.diag(d, e))?;
        if is.lod().is_some() {
            return Err(self.diag(d, "sampling with explicit LOD"));
        }
        let (tb, sb, skind, n) = (shape.texture, shape.sampler, shape.kind, shape.coords);
        let dim = match skind {
            SamplerKind::Cube => Dimension::Cube,
            _ => Dimension::D2,
        };
        let bias = match is.lod_bias() {
            None => 0,
            Some(b) => match self.value(b)?.first() {
                Some(Comp::Lit(x)) => crate::instr::Sampler::bias_field(*x)
                    .filter(|&e| f32::from(e) / 8.0 == *x)
                    .ok_or_else(|| {
                        self.diag(d, format!("LOD bias {x} not a multiple of 1/8 in range"))
                    })?,
                _ => return Err(self.diag(d, "computed LOD bias")),
            },
        };
        let coord = self.val(d, is.coord())?;
        if coord.len() < n {
            return Err(self.diag(d, "too few coordinates"));
        }
        let index = self.io.sampler(tb, Some(sb), skind);
        if index >= 16 {
            return Err(Diagnostic::limit(format!(
                "{} samplers (AGAL has at most 16)",
                index + 1
            )));
        }
        let cube = dim == Dimension::Cube;
        let sampler = crate::instr::Sampler {
            reg: index as u16,
            lod_bias: bias,
            format: TexFormat::Rgba,
            dimension: dim,
            special: 0,
            wrap: if cube { Wrap::Clamp } else { Wrap::Repeat },
            mipmap: Mipmap::Linear,
            filter: Filter::Linear,
        };
        match self.sampler_fields.get(&index) {
            Some(s) if *s != sampler => {
                return Err(self.diag(d, "one sampler used with different LOD biases"))
            }
            _ => {
                self.sampler_fields.insert(index, sampler);
            }
        }
        let mut cs = self.src(&coord[..n]);
        if matches!(cs.base, Base::Const(_)) {
            cs = self.in_temp(&cs);
        }
        if !self.frames.is_empty() && !matches!(cs.base, Base::Input(_)) {
            return Err(self.diag(
                d,
                "an implicit-LOD sample in a conditional at coordinates computed in it \
                 (tex inside a conditional must read a varying, #3741)",
            ));
        }
        let v = self.new_vreg(4, true);
        self.prog.insts.push(MInst {
            op: Opcode::Tex,
            dst: MDst::V { v, first: 0, n: 4 },
            srcs: vec![cs],
            sampler: Some(sampler),
            indirect: None,
        });
        Ok((0..4).map(|c| Comp::V(v, c)).collect())
    }
}

/// An output's name in messages.
fn source_name(s: IoSource) -> String {
    match s {
        IoSource::BuiltIn(b) => format!("{b:?}"),
        IoSource::Location { location, .. } => format!("output {location}"),
    }
}

/// The AGAL set-on-compare op computing the IR comparison `op` (floats, and booleans held as
/// 1.0/0.0), and whether it takes the operands swapped (AGAL has `slt` and `sge`: `a > b` is
/// `b < a`).
pub(super) fn compare_op(op: OpCode) -> Option<(Opcode, bool)> {
    Some(match op {
        OpCode::FEq | OpCode::BEq => (Opcode::Seq, false),
        OpCode::FNe | OpCode::BNe => (Opcode::Sne, false),
        OpCode::FLt => (Opcode::Slt, false),
        OpCode::FGe => (Opcode::Sge, false),
        OpCode::FGt => (Opcode::Slt, true),
        OpCode::FLe => (Opcode::Sge, true),
        _ => return None,
    })
}
