//! Control flow in the GP lowering: IR blocks → [`Block`]s of nodes, in program order. A
//! block that only the previous one enters, by an unconditional branch, and that has no phis
//! joins the previous block (labels cost nothing on the GP).
//!
//! The GP carries values from one instruction to the next two by forwarding only inside a
//! block (a block can be entered from two places; Mesa's gpir and our strict simulator treat
//! the forwarded results as gone at every block start), so everything that crosses a block
//! boundary lives in a **pinned register component**, numbered from `$15.w` down and never
//! reused:
//!
//! - a **phi** is a pinned component (per lane); every incoming block stores the incoming value
//!   there (an [`OutputStore`] with `register`, placed by the scheduler after every read of
//!   that component in the block, so that the block's own reads see the old value);
//! - a **value used outside its block** is stored by its block into a pinned component the
//!   first time another block reads it ([`Lower::export`]), and read from there;
//! - an incoming phi value that is itself a register read goes through a `mov` node, so that
//!   the stores of a parallel copy (phis swapping values) never wait for each other.
//!
//! **Branches** (reference §8.4) test the pass unit's result against 0.0: a block whose
//! successor is the next block in program order falls through; `BranchConditional c T F`
//! branches on `c` to `T` when `F` is next, on `1 − c` (bools are 0.0/1.0) to `F` when `T` is
//! next, else on `c` to `T` followed by a jump to `F`; a jump tests the literal 1.0 (Mesa's
//! unconditional branch). The program's only `Return` must end its last block, where the
//! outputs are stored; an output stored in an earlier block is unsupported. A phi copy on an
//! edge from a block with two successors also runs on the other edge, so it stores
//! `select(edge taken, value, phi)`.

use irc_backend::Diagnostic;
use irc_ir::analysis::cfg::Cfg;
use irc_ir::format::{Branch, BranchConditional, Phi};
use irc_ir::{Module, OpCode, SsaDef};
use rustc_hash::FxHashMap;

use super::super::mir::{Block, Blocks, NodeId, Op, Operand, OutputStore, Src, Target};
use super::io::flat_size;
use super::{unsupported, Comps, Lower, C};

/// Pinned components at most (the registers left hold the blocks' own values).
const MAX_PINNED: u32 = 48;

/// The lowering's control-flow state.
#[derive(Debug, Default)]
pub(super) struct Flow {
    /// Finished blocks, in program order.
    blocks: Vec<Block>,
    /// Index of the block being lowered (`usize::MAX` after the last).
    pub(super) cur: usize,
    /// Number of blocks.
    count: usize,
    /// The IR blocks of each block, in order: a block that only the previous one enters, by
    /// an unconditional branch, and that has no phis, joins its block (a loop's header and
    /// its exit test, a body and its continue block), so that values flow between them by
    /// forwarding.
    groups: Vec<Vec<irc_ir::analysis::Block>>,
    /// The block of every op of the function.
    def_block: FxHashMap<SsaDef, usize>,
    /// The block each label opens.
    label_block: FxHashMap<SsaDef, usize>,
    /// Pinned component of a node of a block, once exported.
    pins: FxHashMap<(usize, NodeId), (u8, u8)>,
    pinned: u32,
    phis: Vec<SsaDef>,
    /// Per block ending in a two-way branch: the condition and the blocks it goes to when
    /// true and when false.
    conds: FxHashMap<usize, (C, usize, usize)>,
    /// The literal 1.0 that jumps test.
    one: Option<Operand>,
}

impl Flow {
    /// Groups the IR blocks into scheduling blocks (module doc) and records the group of
    /// every op and label.
    pub(super) fn new(m: &Module, cfg: &Cfg) -> Flow {
        let mut f = Flow::default();
        let mut prev: Option<irc_ir::analysis::Block> = None;
        for b in cfg.blocks() {
            let data = cfg.block(b);
            let falls_into = prev.is_some_and(|p| {
                cfg.preds(b) == [p]
                    && cfg.block(p).terminator.is_some_and(|t| {
                        m.opcode(t) == OpCode::Branch
                            && Branch::of(m.op(t)).target() == Some(data.label)
                    })
            });
            let has_phi = cfg.ops(b).iter().any(|&d| m.opcode(d) == OpCode::Phi);
            if !falls_into || has_phi || f.groups.is_empty() {
                f.groups.push(Vec::new());
            }
            let g = f.groups.len() - 1;
            f.groups[g].push(b);
            f.label_block.insert(data.label, g);
            for &d in cfg.ops(b) {
                f.def_block.insert(d, g);
            }
            prev = Some(b);
        }
        f.count = f.groups.len();
        f
    }

    /// Rewrites uniform ids to slots in every block.
    pub(super) fn map_uniforms(&mut self, map: impl Fn(u32) -> u32 + Copy) {
        for b in &mut self.blocks {
            b.prog.map_uniforms(map);
        }
        if let Some(Operand {
            src: Src::Uni(id, _),
            ..
        }) = self.one.as_mut()
        {
            *id = map(*id);
        }
    }

    pub(super) fn finish(self) -> Blocks {
        Blocks {
            blocks: self.blocks,
            pinned: self.pinned,
            one: self.one,
        }
    }

    fn alloc(&mut self) -> Result<(u8, u8), Diagnostic> {
        if self.pinned >= MAX_PINNED {
            return Err(Diagnostic::limit(format!(
                "more than {MAX_PINNED} register components hold values across blocks (the GP \
                 has 16 vec4 registers)"
            )));
        }
        let p = self.pinned;
        self.pinned += 1;
        Ok(((15 - p / 4) as u8, (3 - p % 4) as u8))
    }
}

impl Lower<'_> {
    /// Lowers every block (module doc); returns what [`Lower::write_outputs`] does for the last.
    pub(super) fn lower_blocks(
        &mut self,
        cfg: &Cfg,
    ) -> Result<(Option<u32>, Option<u32>), Diagnostic> {
        let groups = self.flow.groups.clone();
        let last = groups.len().saturating_sub(1);
        let mut outputs = (None, None);
        for (i, group) in groups.iter().enumerate() {
            self.flow.cur = i;
            self.addr_nodes.clear();
            let mut end = None;
            for &b in group {
                let data = cfg.block(b);
                for &d in cfg.ops(b) {
                    if Some(d) != data.terminator {
                        self.lower_op(d)?;
                    }
                }
                end = data.terminator;
            }
            let (target, jump) = match end {
                Some(t) => self.terminator(t, i, last)?,
                None => (None, None),
            };
            if i == last {
                outputs = self.write_outputs()?;
            }
            let prog = std::mem::take(&mut self.prog);
            self.flow.blocks.push(Block { prog, target, jump });
        }
        self.flow.cur = usize::MAX;
        self.phi_copies()?;
        Ok(outputs)
    }

    /// The branch of block `i` ending in `t`: (target, jump after the branch).
    fn terminator(
        &mut self,
        t: SsaDef,
        i: usize,
        last: usize,
    ) -> Result<(Option<Target>, Option<Target>), Diagnostic> {
        let m = self.m;
        let block_of = |s: &Self, label: Option<SsaDef>| {
            label
                .and_then(|l| s.flow.label_block.get(&l).copied())
                .ok_or_else(|| unsupported(m, t, "branch to a label outside the function"))
        };
        match m.opcode(t) {
            OpCode::Return if i == last => Ok((None, None)),
            OpCode::Return => Err(unsupported(
                m,
                t,
                "return before the end of the program (the GP stores the outputs at the end)",
            )),
            OpCode::Branch => {
                let to = block_of(self, Branch::of(m.op(t)).target())?;
                if to == i + 1 {
                    return Ok((None, None));
                }
                self.prog.branch = Some(self.one());
                Ok((Some(Target::Block(to)), None))
            }
            OpCode::BranchConditional => {
                let br = BranchConditional::of(m.op(t));
                let (tt, ff) = (
                    block_of(self, br.if_true())?,
                    block_of(self, br.if_false())?,
                );
                if tt == ff {
                    if tt == i + 1 {
                        return Ok((None, None));
                    }
                    self.prog.branch = Some(self.one());
                    return Ok((Some(Target::Block(tt)), None));
                }
                let c = self.arg(t, br.cond())?;
                let c = *c
                    .first()
                    .ok_or_else(|| unsupported(m, t, "empty condition"))?;
                self.flow.conds.insert(i, (c, tt, ff));
                if ff == i + 1 {
                    self.prog.branch = Some(self.operand(c));
                    Ok((Some(Target::Block(tt)), None))
                } else if tt == i + 1 {
                    let not = self.emit(Op::Add, &[C::lit(1.0), c.negated()]);
                    self.prog.branch = Some(self.operand(not));
                    Ok((Some(Target::Block(ff)), None))
                } else {
                    self.prog.branch = Some(self.operand(c));
                    self.one();
                    Ok((Some(Target::Block(tt)), Some(Target::Block(ff))))
                }
            }
            o => Err(unsupported(m, t, format!("{o:?} terminator"))),
        }
    }

    /// The literal-pool operand reading 1.0.
    fn one(&mut self) -> Operand {
        if let Some(o) = self.flow.one {
            return o;
        }
        let o = self.operand(C::lit(1.0));
        self.flow.one = Some(o);
        o
    }

    /// `comps` of a value of block `b` as read in another block: node results (and relative
    /// loads, through a `mov`) in pinned components that `b` stores.
    pub(super) fn export(&mut self, b: usize, comps: Comps) -> Result<Comps, Diagnostic> {
        let mut out = Comps::new();
        for c in comps {
            let C::V(o) = c else {
                out.push(c);
                continue;
            };
            let n = match o.src {
                Src::Node(n) => n,
                Src::UniRel(..) => {
                    let prog = &mut self
                        .flow
                        .blocks
                        .get_mut(b)
                        .ok_or_else(|| Diagnostic::internal(None, "value of a later block"))?
                        .prog;
                    prog.push(Op::Mov, &[o.plain()])
                }
                Src::Attr(..) | Src::Uni(..) | Src::Reg(..) => {
                    out.push(c);
                    continue;
                }
            };
            let (r, k) = self.pin(b, n)?;
            out.push(C::V(Operand {
                src: Src::Reg(r, k),
                neg: o.neg,
            }));
        }
        Ok(out)
    }

    /// The pinned component node `n` of block `b` is stored to (allocated on first use).
    fn pin(&mut self, b: usize, n: NodeId) -> Result<(u8, u8), Diagnostic> {
        if let Some(&p) = self.flow.pins.get(&(b, n)) {
            return Ok(p);
        }
        let (r, k) = self.flow.alloc()?;
        self.flow.pins.insert((b, n), (r, k));
        let block = self
            .flow
            .blocks
            .get_mut(b)
            .ok_or_else(|| Diagnostic::internal(None, "value of a later block"))?;
        block.prog.outputs.push(OutputStore {
            varying: r,
            comp: k,
            value: Operand::node(n),
            register: true,
        });
        Ok((r, k))
    }

    /// The block of a value (none for constants and declarations).
    pub(super) fn block_of_value(&self, d: SsaDef) -> Option<usize> {
        self.flow.def_block.get(&d).copied()
    }

    /// A phi: one pinned component per lane (the copies are added by [`Lower::phi_copies`]).
    pub(super) fn phi(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let width =
            flat_size(self.m.ty(d)).ok_or_else(|| self.diag(d, "phi of an aggregate type"))?;
        let mut out = Comps::new();
        for _ in 0..width {
            let (r, k) = self.flow.alloc()?;
            out.push(C::V(Operand {
                src: Src::Reg(r, k),
                neg: false,
            }));
        }
        self.flow.phis.push(d);
        Ok(out)
    }

    /// Every incoming block of every phi stores its value into the phi's components. On an
    /// edge from a block with two successors, the stored value is selected by the block's
    /// condition: the incoming value when the branch goes to the phi's block, the phi's own
    /// value (unchanged) otherwise.
    fn phi_copies(&mut self) -> Result<(), Diagnostic> {
        let m = self.m;
        for d in std::mem::take(&mut self.flow.phis) {
            let dest = self.values.get(&d).cloned().unwrap_or_default();
            let to = self
                .flow
                .def_block
                .get(&d)
                .copied()
                .ok_or_else(|| self.diag(d, "phi outside a block"))?;
            let pairs: Vec<_> = Phi::of(m.op(d)).pairs().collect();
            for (label, v) in pairs {
                let (Some(label), Some(v)) = (label, v) else {
                    return Err(self.diag(d, "phi operand"));
                };
                let p = *self
                    .flow
                    .label_block
                    .get(&label)
                    .ok_or_else(|| self.diag(d, "phi from a block outside the function"))?;
                // Lower into block `p`'s program.
                std::mem::swap(&mut self.prog, &mut self.flow.blocks[p].prog);
                self.flow.cur = p;
                let r = self.phi_copy(d, v, &dest, p, to);
                self.flow.cur = usize::MAX;
                std::mem::swap(&mut self.prog, &mut self.flow.blocks[p].prog);
                r?;
            }
        }
        Ok(())
    }

    /// The stores of one incoming value `v` of phi `d` in block `p` (the current program).
    fn phi_copy(
        &mut self,
        d: SsaDef,
        v: SsaDef,
        dest: &Comps,
        p: usize,
        to: usize,
    ) -> Result<(), Diagnostic> {
        let src = self.value(v)?;
        if src.len() != dest.len() {
            return Err(self.diag(d, "phi operand of another width"));
        }
        let edge = match self.flow.conds.get(&p) {
            Some(&(c, tt, ff)) if tt != ff => Some((c, tt == to)),
            _ => None,
        };
        for (&s, &t) in src.iter().zip(dest) {
            let C::V(Operand {
                src: Src::Reg(r, c),
                ..
            }) = t
            else {
                return Err(Diagnostic::internal(Some((d, OpCode::Phi)), "phi lane"));
            };
            if s == t {
                continue;
            }
            let value = match (edge, s) {
                (Some((cond, true)), _) => self.emit(Op::Select, &[cond, s, t]),
                (Some((cond, false)), _) => self.emit(Op::Select, &[cond, t, s]),
                (
                    None,
                    C::V(
                        o @ Operand {
                            src: Src::Reg(..), ..
                        },
                    ),
                ) => C::V(Operand {
                    neg: o.neg,
                    ..self.mov(o.plain())
                }),
                (None, _) => s,
            };
            let value = self.operand(value);
            self.prog.outputs.push(OutputStore {
                varying: r,
                comp: c,
                value,
                register: true,
            });
        }
        Ok(())
    }

    /// An output store outside the last block is unsupported (module doc).
    pub(super) fn check_output_block(&self, d: SsaDef) -> Result<(), Diagnostic> {
        if self.flow.cur + 1 != self.flow.count {
            return Err(self.diag(
                d,
                "output store before the last block (the GP stores the outputs at the end)",
            ));
        }
        Ok(())
    }
}
