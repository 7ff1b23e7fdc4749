//! Lowering: an optimized IR module (after the `opt:lima` pipeline) → [`mir::Program`].
//!
//! Every IR value is represented as a list of *component sources* ([`Comps`]): one scalar
//! [`Src`] per flattened component — a virtual-register component, an fp16 constant, a uniform
//! component. Extracting, constructing, negating and taking the absolute value are therefore
//! free: they rearrange component sources or flip source modifiers. An op that needs its
//! operands as one vector source (`Lower::vector_src`) gets a swizzle when all components live
//! in one place, and a register built by moves otherwise.
//!
//! Control flow follows the IR's blocks one to one (after the IR is structured and in SSA
//! form). Phis become virtual registers written by moves at the end of each predecessor
//! (through temporaries when a move would clobber another phi's incoming value; edges from a
//! branching block get a block of their own): the sequencing, the edge blocks and the loop
//! depths (natural loops of the machine CFG, for spill costs) come from
//! `irc_backend::machine::{copies, cfg}`. `Demote` sets a per-lane kill flag that the exit tests, so that a
//! demoted lane keeps computing derivatives for its quad exactly like the IR says; where no quad
//! operation can follow, [`discard`] ends the lane at once instead.
//!
//! What cannot be expressed yields a [`Diagnostic`] naming the op (integers that survived the
//! optimizer's float mapping, unsupported resource kinds, …).

mod discard;
mod io;
mod ops;
mod output_write;

use half::f16;
use irc_backend::machine::cfg::{edge_block, loop_depths};
use irc_backend::machine::copies::{self, Step, Strategy};
use irc_backend::regalloc::VReg;
use irc_backend::{Diagnostic, IoSource, Reflection};
use irc_ir::analysis::cfg::{self, Block as IrBlock, Cfg};
use irc_ir::format::{Branch, BranchConditional, DclOutput, DclOutputBuiltIn, EntryPoint, Phi};
use irc_ir::{Module, Op, OpCode, OpFlags, SsaDef};
use irc_passes::fold_util::FpDefaults;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::mir::{self, Alu, MOp, Operand, Src, Terminator};

/// Component sources of one IR value.
pub type Comps = SmallVec<[Src; 4]>;

/// Result of lowering.
#[derive(Debug)]
pub struct Lowered {
    pub program: mir::Program,
    pub reflection: Reflection,
    /// IR ops consumed (code section).
    pub ir_ops: u32,
}

/// Lowers the entry point of `m`.
pub fn lower(m: &Module) -> Result<Lowered, Diagnostic> {
    let entry = m
        .declarations()
        .find(|&d| m.opcode(d) == OpCode::EntryPoint)
        .ok_or_else(|| Diagnostic::unsupported(None, "the module has no entry point"))?;
    let ep = m.op(entry);
    let stage = EntryPoint::of(ep).stage();
    if stage != Some(irc_ir::ShaderStage::Pixel.0 as u64) {
        return Err(Diagnostic::unsupported(
            Some((entry, OpCode::EntryPoint)),
            "lima-fp compiles pixel shaders only",
        ));
    }
    let func = EntryPoint::of(ep)
        .function()
        .ok_or_else(|| Diagnostic::unsupported(None, "entry point without a function"))?;
    let range = cfg::functions(m)
        .into_iter()
        .find(|f| f.function == func)
        .ok_or_else(|| Diagnostic::internal(Some((func, OpCode::Function)), "no body"))?;
    for f in cfg::functions(m) {
        if f.function != func {
            return Err(Diagnostic::unsupported(
                Some((f.function, OpCode::Function)),
                "functions must be inlined (the PP has no calls)",
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
    let mut l = Lower::new(m, &cfg)?;
    l.run()?;
    let ir_ops = m.code().count() as u32;
    Ok(Lowered {
        program: l.prog,
        reflection: io::reflection(&l.io),
        ir_ops,
    })
}

/// Lowering state.
pub(crate) struct Lower<'a> {
    pub m: &'a Module,
    pub cfg: &'a Cfg,
    pub prog: mir::Program,
    pub values: FxHashMap<SsaDef, Comps>,
    /// Block being filled.
    pub cur: usize,
    pub io: io::Io,
    /// Per-lane kill flag (`Demote`).
    pub kill: Option<VReg>,
    /// Where each `Demote` sets the kill flag: (block, op index).
    pub demotes: Vec<(usize, usize)>,
    /// Output registers by declaration.
    pub outputs: FxHashMap<SsaDef, VReg>,
    /// Phi registers by phi op.
    phis: FxHashMap<SsaDef, VReg>,
    /// Sole definition of a fresh register: (block, op index) — for folding a following
    /// modifier or output move into the op that computes the value.
    pub producer: FxHashMap<VReg, (usize, usize)>,
    /// Whole-vector varying loads already made in a block: (block, slot) → (register,
    /// components loaded), reused by every later load of that slot in the block.
    pub varying_loads: FxHashMap<(usize, u32), (VReg, u8)>,
    /// The module's float facts, computed on first use ([`Lower::facts`]).
    facts: Option<irc_passes::float_facts::FloatFacts>,
    /// The float-mode defaults of the module (`SetFpMode`): which ops are `Precise`.
    fp: FpDefaults,
}

impl<'a> Lower<'a> {
    fn new(m: &'a Module, cfg: &'a Cfg) -> Result<Self, Diagnostic> {
        let io = io::Io::new(m)?;
        let prog = mir::Program {
            blocks: cfg
                .blocks()
                .map(|_| mir::Block {
                    ops: Vec::new(),
                    term: Terminator::Exit { kill: None },
                    depth: 0,
                })
                .collect(),
            ..mir::Program::default()
        };
        if prog.blocks.is_empty() {
            return Err(Diagnostic::unsupported(None, "empty entry function"));
        }
        Ok(Lower {
            m,
            cfg,
            prog,
            values: FxHashMap::default(),
            cur: 0,
            io,
            kill: None,
            demotes: Vec::new(),
            outputs: FxHashMap::default(),
            phis: FxHashMap::default(),
            producer: FxHashMap::default(),
            varying_loads: FxHashMap::default(),
            facts: None,
            fp: FpDefaults::of(m),
        })
    }

    /// `x` if `op` is `FRcp(FRsq(x))` with neither op `Precise`: its value is `sqrt(x)` up to
    /// the rounding of the two approximations it replaces (for every `x`: `±0 → ±0`,
    /// `+inf → +inf`, negative → NaN, as `sqrt`). Each combiner result is an fp16
    /// approximation (reference §11), so the one `sqrt` is at least as close to the IR's value
    /// as the two steps; `Precise` keeps the IR's operations.
    pub fn rsq_operand(&self, op: &Op) -> Option<SsaDef> {
        irc_ir::analysis::rsq_of_rcp(self.m, op, |o| self.fp.flags(o).contains(OpFlags::PRECISE))
    }

    /// The float facts of the module (`irc_passes::float_facts`), analysed once.
    pub fn facts(&mut self) -> &irc_passes::float_facts::FloatFacts {
        let m = self.m;
        self.facts
            .get_or_insert_with(|| irc_passes::float_facts::analyze(m))
    }

    pub fn diag(&self, d: SsaDef, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::unsupported(Some((d, self.m.opcode(d))), msg)
    }

    pub fn new_vreg(&mut self, size: u8, lane0: bool) -> VReg {
        self.prog.new_vreg(size, lane0)
    }

    /// Appends an op to the current block.
    pub fn emit(&mut self, op: MOp) -> usize {
        let b = &mut self.prog.blocks[self.cur];
        b.ops.push(op);
        b.ops.len() - 1
    }

    /// Appends an op computing a fresh register of `width` components and returns its
    /// component sources.
    pub fn emit_value(&mut self, mut op: MOp) -> Comps {
        let v = self.new_vreg(op.width, false);
        op.dst = Some(v);
        op.dst_comp = 0;
        let w = op.width;
        let i = self.emit(op);
        self.producer.insert(v, (self.cur, i));
        (0..w).map(|c| Src::new(Operand::reg(v, c))).collect()
    }

    fn run(&mut self) -> Result<(), Diagnostic> {
        self.declare_outputs()?;
        let blocks: Vec<IrBlock> = self.cfg.blocks().collect();
        // Phi registers first: values may flow around loops.
        for &b in &blocks {
            for &d in self.cfg.ops(b) {
                if self.m.opcode(d) == OpCode::Phi {
                    let n = io::flat_size(self.m.ty(d))
                        .filter(|&n| (1..=4).contains(&n))
                        .ok_or_else(|| self.diag(d, "phi of a type wider than 4 components"))?;
                    let v = self.new_vreg(n as u8, false);
                    self.phis.insert(d, v);
                    self.values.insert(
                        d,
                        (0..n as u8).map(|c| Src::new(Operand::reg(v, c))).collect(),
                    );
                }
            }
        }
        for (i, &b) in blocks.iter().enumerate() {
            self.cur = i;
            if i == 0 {
                self.prologue();
            }
            let ops = self.cfg.ops(b).to_vec();
            for &d in &ops {
                self.lower_op(d)?;
            }
            let term = self.terminator(b)?;
            self.prog.blocks[i].term = term;
        }
        // Loop depths (for spill costs) from the natural loops of the machine CFG; the
        // blocks phi moves add on edges take their successor's.
        let depths = loop_depths(&self.prog);
        for (b, d) in self.prog.blocks.iter_mut().zip(depths) {
            b.depth = d;
        }
        self.phi_copies(&blocks)?;
        discard::early_discards(&mut self.prog, &self.demotes);
        Ok(())
    }

    /// Output registers start as 0 (an output not written on some path reads 0, as in the IR);
    /// the kill flag starts cleared.
    fn prologue(&mut self) {
        let outs: Vec<VReg> = self.prog.outputs.iter().map(|o| o.1).collect();
        for v in outs {
            let size = self.prog.vregs[v.0 as usize].size;
            let zero = Src::new(Operand::Const([f16::ZERO; 4]));
            self.emit(MOp::alu(Alu::Mov, v, 0, size, &[zero]));
        }
        if let Some(k) = self.kill {
            let zero = Src::new(Operand::Const([f16::ZERO; 4]));
            self.emit(MOp::alu(Alu::Mov, k, 0, 1, &[zero]));
        }
    }

    fn declare_outputs(&mut self) -> Result<(), Diagnostic> {
        let decls: Vec<SsaDef> = self.m.declarations().collect();
        for d in decls {
            let op = self.m.op(d);
            let src = match op.opcode {
                OpCode::DclOutput => IoSource::Location {
                    location: DclOutput::of(op).location().unwrap_or(0) as u32,
                    component: DclOutput::of(op).component().unwrap_or(0) as u32,
                },
                OpCode::DclOutputBuiltIn => {
                    let b = DclOutputBuiltIn::of(op)
                        .builtin()
                        .and_then(irc_ir::BuiltIn::from_u64)
                        .ok_or_else(|| self.diag(d, "invalid built-in"))?;
                    if b != irc_ir::BuiltIn::Depth {
                        return Err(self.diag(d, format!("output built-in {b:?}")));
                    }
                    IoSource::BuiltIn(b)
                }
                _ => continue,
            };
            if let IoSource::Location {
                location,
                component,
            } = src
            {
                if component != 0 {
                    return Err(self.diag(d, "output not starting at component x"));
                }
                if location > 1 {
                    return Err(self.diag(
                        d,
                        format!(
                            "colour output {location}: the PP writes one colour (two with \
                             dual-source blending)"
                        ),
                    ));
                }
            }
            let n = io::flat_size(&op.ty)
                .filter(|&n| (1..=4).contains(&n))
                .ok_or_else(|| self.diag(d, "output wider than a vec4"))?;
            let v = self.new_vreg(n as u8, true);
            self.outputs.insert(d, v);
            self.prog.outputs.push((src, v, n as u8));
        }
        if self.m.code().any(|d| self.m.opcode(d) == OpCode::Demote) {
            self.kill = Some(self.new_vreg(1, false));
        }
        Ok(())
    }

    fn block_index(&self, label: SsaDef) -> Option<usize> {
        let b = self.cfg.block_of_label(label)?;
        self.cfg.blocks().position(|x| x == b)
    }

    /// The scalar register component holding a condition (moving it to a register if needed).
    pub fn cond_reg(&mut self, s: Src) -> (VReg, u8) {
        match s.op {
            Operand::Reg(v, swz) if !s.abs && !s.neg => (v, swz[0]),
            _ => {
                let c = self.emit_value(MOp::alu(Alu::Mov, VReg(0), 0, 1, &[s]));
                match c[0].op {
                    Operand::Reg(v, swz) => (v, swz[0]),
                    _ => (VReg(0), 0),
                }
            }
        }
    }

    fn terminator(&mut self, b: IrBlock) -> Result<Terminator, Diagnostic> {
        let Some(t) = self.cfg.block(b).terminator else {
            return Err(Diagnostic::unsupported(
                Some((self.cfg.label(b), OpCode::Label)),
                "block without terminator",
            ));
        };
        let op = self.m.op(t);
        let target = |l: &Self, label: Option<SsaDef>| -> Result<usize, Diagnostic> {
            label
                .and_then(|d| l.block_index(d))
                .ok_or_else(|| l.diag(t, "branch target is not a block"))
        };
        Ok(match op.opcode {
            OpCode::Branch => Terminator::Jump(target(self, Branch::of(op).target())?),
            OpCode::BranchConditional => {
                let br = BranchConditional::of(op);
                let c = br.cond().ok_or_else(|| self.diag(t, "no condition"))?;
                let (then, els) = (target(self, br.if_true())?, target(self, br.if_false())?);
                let cs = self.value(c)?[0];
                match cs.op {
                    Operand::Const(k) => {
                        if k[0].to_f32() != 0.0 {
                            Terminator::Jump(then)
                        } else {
                            Terminator::Jump(els)
                        }
                    }
                    _ => Terminator::Branch {
                        cond: self.cond_reg(cs),
                        then,
                        els,
                    },
                }
            }
            OpCode::Return | OpCode::Unreachable => Terminator::Exit {
                kill: self.kill.map(|k| (k, 0)),
            },
            OpCode::Switch => return Err(self.diag(t, "switch (not if-converted)")),
            _ => return Err(self.diag(t, "unexpected terminator")),
        })
    }

    /// Moves into phi registers at the end of every predecessor.
    fn phi_copies(&mut self, blocks: &[IrBlock]) -> Result<(), Diagnostic> {
        for (si, &b) in blocks.iter().enumerate() {
            let phis: Vec<SsaDef> = self
                .cfg
                .ops(b)
                .iter()
                .copied()
                .filter(|&d| self.m.opcode(d) == OpCode::Phi)
                .collect();
            if phis.is_empty() {
                continue;
            }
            for &p in self.cfg.preds(b) {
                let pi = blocks.iter().position(|&x| x == p).unwrap_or(0);
                let label = self.cfg.label(p);
                let mut copies: Vec<(VReg, u8, Src)> = Vec::new();
                for &phi in &phis {
                    let incoming = Phi::of(self.m.op(phi))
                        .pairs()
                        .find(|&(block, _)| block == Some(label))
                        .and_then(|(_, value)| value)
                        .ok_or_else(|| self.diag(phi, "phi without a value for a predecessor"))?;
                    let vals = self.value(incoming)?;
                    let v = self.phis[&phi];
                    for (c, s) in vals.iter().enumerate() {
                        copies.push((v, c as u8, *s));
                    }
                }
                // The moves go at the predecessor's end, or in a new block on the edge when
                // the predecessor branches.
                self.cur = edge_block(&mut self.prog, pi, si);
                self.parallel_moves(&copies);
            }
        }
        Ok(())
    }

    /// Emits `dst.c := src` for all copies as if simultaneously: every source that reads a
    /// phi register goes through a temporary first ([`Strategy::SaveConflicts`]).
    fn parallel_moves(&mut self, copies: &[(VReg, u8, Src)]) {
        let pairs: Vec<(VReg, Src)> = copies.iter().map(|c| (c.0, c.2)).collect();
        let reads = |s: &Src, d: &VReg| matches!(s.op, Operand::Reg(v, _) if v == *d);
        let mut srcs: Vec<Src> = copies.iter().map(|c| c.2).collect();
        for step in copies::sequence(&pairs, reads, Strategy::SaveConflicts) {
            match step {
                Step::Save(i) => {
                    // A plain copy: the modifiers stay on the move.
                    let plain = Src::new(srcs[i].op);
                    let t = self.emit_value(MOp::alu(Alu::Mov, VReg(0), 0, 1, &[plain]));
                    srcs[i].op = t[0].op;
                }
                Step::Move(i) => {
                    let (v, c, _) = copies[i];
                    let s = srcs[i];
                    if s.op == Operand::reg(v, c) && !s.abs && !s.neg {
                        continue;
                    }
                    self.emit(MOp::alu(Alu::Mov, v, c, 1, &[s]));
                }
            }
        }
    }

    /// Component sources of an IR value.
    pub fn value(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        if let Some(v) = self.values.get(&d) {
            return Ok(v.clone());
        }
        let op = self
            .m
            .get(d)
            .ok_or_else(|| Diagnostic::internal(None, format!("reference to a missing op {d}")))?;
        match op.opcode {
            OpCode::Constant | OpCode::Undef => {
                let c = self.constant(d)?;
                self.values.insert(d, c.clone());
                Ok(c)
            }
            _ => Err(Diagnostic::internal(
                Some((d, op.opcode)),
                "value used before its definition was lowered",
            )),
        }
    }
}
