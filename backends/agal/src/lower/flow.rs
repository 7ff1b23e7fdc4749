//! Control flow by predication: the selections the optimizer leaves (arms holding a `Demote`,
//! which `if-convert` does not speculate; those cheaper as AGAL 2 conditionals, which it keeps,
//! `crate::caps::PIPELINE_CAPS`; every selection at `-O0`) become straight-line code, which
//! every AGAL version can run. Arms holding an implicit-LOD sample or a derivative
//! are not predicated: speculated, they would run on all lanes of a quad where the source runs
//! them on some, which D3D leaves undefined. For AGAL 2 and 3 the target also lowers the
//! program with real conditionals ([`super::branch`], [`super::FlowMode::Branched`]), which run
//! such arms, and keeps the shorter program.
//!
//! Blocks are lowered in program order (the structured order: a block's predecessors come
//! first; a back edge is a loop, which AGAL cannot run). Each block has a *predicate*, a
//! scalar that is 1.0 where the block runs and +0.0 where it does not (`None`: always): the
//! entry block always runs, the merge block of a selection runs where its header does, any
//! other block where one of its incoming edges is taken (edges into a block exclude each
//! other: the maximum). An edge out of a `BranchConditional` on `c` from a block with
//! predicate `p` is taken where `p·c` (true side) or `p·(1 − c)` (false side) is 1.
//!
//! Everything in an arm is computed unconditionally — AGAL ops have no effects and cannot
//! trap — except the two effects, which take the predicate into account:
//! * `Demote` under `p` is `kil −p` (−1 kills, −0 does not);
//! * `OutputStore` under `p` writes `select(p, new, old)` (an output not written before reads
//!   as 0, as [`super::Lower::finish_outputs`] fills it).
//!
//! A phi is a chain of exact selects on its incoming edges' predicates: exactly one edge is
//! taken where the block runs, and the value does not matter where it does not.

use irc_backend::Diagnostic;
use irc_ir::analysis::cfg::{self, Block, Cfg};
use irc_ir::format::{BranchConditional, Phi};
use irc_ir::{Construct, OpCode, SsaDef};
use rustc_hash::FxHashMap;

use super::{Comp, Comps, Lower};
use crate::isa::Opcode;

/// Where a block or an edge runs: `None` always, else a 1.0/+0.0 scalar.
pub type Pred = Option<Comp>;

/// Where an edge is taken, computed when first needed (an edge predicate no phi or block reads
/// costs no instruction).
#[derive(Clone, Copy)]
enum Edge {
    Known(Pred),
    /// Where the branch runs (`p`) and its condition is `side`.
    Cond {
        p: Pred,
        c: Comp,
        side: bool,
    },
}

/// Predicates of the blocks lowered so far and of the edges out of them.
#[derive(Default)]
pub struct Flow {
    blocks: FxHashMap<Block, Pred>,
    edges: FxHashMap<(Block, Block), Edge>,
}

impl Lower<'_> {
    /// Lowers every block of `cfg` in order.
    pub(super) fn lower_blocks(&mut self, cfg: &Cfg) -> Result<(), Diagnostic> {
        let mut flow = Flow::default();
        let blocks: Vec<Block> = cfg.blocks().collect();
        let last = blocks.last().copied();
        for b in blocks {
            if self.branches {
                self.enter_block(b)?;
            }
            let pred = if self.branches {
                None
            } else {
                self.block_pred(cfg, &mut flow, b)?
            };
            flow.blocks.insert(b, pred);
            self.pred = pred;
            let ops = cfg.ops(b).to_vec();
            for &d in &ops {
                match self.m.opcode(d) {
                    OpCode::Phi if self.branches => {
                        if !self.values.contains_key(&d) {
                            return Err(self.diag(d, "a phi outside a selection's merge"));
                        }
                    }
                    OpCode::ImageSample | OpCode::DerivX | OpCode::DerivY
                        if self.values.contains_key(&d) =>
                    {
                        // Lowered before its conditional ([`super::branch`]).
                    }
                    OpCode::Phi => {
                        let v = self.phi(cfg, &mut flow, b, d)?;
                        self.values.insert(d, v);
                    }
                    OpCode::Branch | OpCode::BranchConditional => {}
                    OpCode::Return if Some(b) != last => {
                        return Err(self.diag(d, "return before the end of the program"));
                    }
                    OpCode::Switch | OpCode::Unreachable => {
                        return Err(self.diag(d, "this control flow (AGAL has no branches)"));
                    }
                    OpCode::ImageSample | OpCode::DerivX | OpCode::DerivY if pred.is_some() => {
                        // Speculated, the quad op would run on all four lanes of a quad where
                        // the source runs it on some: the source's result is undefined (D3D),
                        // and the check against the interpreter could not tell.
                        return Err(self.diag(
                            d,
                            "an implicit-LOD sample or derivative in a conditional arm \
                             (not predicated: undefined in divergent control flow)",
                        ));
                    }
                    _ => self.lower_op(d)?,
                }
            }
            if self.branches {
                match cfg.block(b).terminator {
                    Some(t) => self.branch_out(cfg, b, t)?,
                    None => {
                        if let Some(&s) = cfg.succs(b).first() {
                            self.branch_out_fallthrough(cfg, b, s)?;
                        }
                    }
                }
            } else {
                self.edges_out(cfg, &mut flow, b, pred)?;
            }
        }
        if self.branches && !self.frames.is_empty() {
            return Err(Diagnostic::unsupported(
                None,
                "a conditional not closed at the end of the program",
            ));
        }
        self.pred = None;
        Ok(())
    }

    /// The predicate of edge `from → to`, `None` if that edge is not known yet (a back edge).
    fn edge(&mut self, flow: &mut Flow, from: Block, to: Block) -> Option<Pred> {
        let e = *flow.edges.get(&(from, to))?;
        let pred = match e {
            Edge::Known(p) => p,
            Edge::Cond { p, c, side } => {
                let on = if side {
                    c
                } else {
                    self.alu(Opcode::Sub, &[&[Comp::Lit(1.0)], &[c]], 1)[0]
                };
                let e = match p {
                    None => on,
                    Some(p) => self.alu(Opcode::Mul, &[&[p], &[on]], 1)[0],
                };
                flow.edges.insert((from, to), Edge::Known(Some(e)));
                Some(e)
            }
        };
        Some(pred)
    }

    fn block_pred(&mut self, cfg: &Cfg, flow: &mut Flow, b: Block) -> Result<Pred, Diagnostic> {
        let label = cfg.label(b);
        let preds = cfg.preds(b).to_vec();
        if preds.is_empty() {
            return Ok(None);
        }
        if preds.iter().any(|&p| !flow.edges.contains_key(&(p, b))) {
            return Err(self.diag(label, "a loop (AGAL has no loops; not unrolled)"));
        }
        // The merge block of a selection runs where its header does.
        let header = self.m.uses(label).iter().copied().find(|&u| {
            u != label
                && matches!(
                    cfg::construct(self.m, u),
                    Some((Construct::StructuredSelection, Some(merge), _)) if merge == label
                )
        });
        if let Some(h) = header.and_then(|h| cfg.block_of_label(h)) {
            if let Some(&p) = flow.blocks.get(&h) {
                return Ok(p);
            }
        }
        let mut incoming = Vec::new();
        for &p in &preds {
            incoming.extend(self.edge(flow, p, b));
        }
        if incoming.iter().any(Option::is_none) {
            return Ok(None);
        }
        let mut acc = incoming[0];
        for e in &incoming[1..] {
            let (Some(a), Some(c)) = (acc, *e) else {
                unreachable!("checked above");
            };
            acc = Some(self.alu(Opcode::Max, &[&[a], &[c]], 1)[0]);
        }
        Ok(acc)
    }

    fn edges_out(
        &mut self,
        cfg: &Cfg,
        flow: &mut Flow,
        b: Block,
        pred: Pred,
    ) -> Result<(), Diagnostic> {
        let Some(t) = cfg.block(b).terminator else {
            for &s in cfg.succs(b) {
                flow.edges.insert((b, s), Edge::Known(pred));
            }
            return Ok(());
        };
        let op = self.m.op(t).clone();
        match op.opcode {
            OpCode::BranchConditional => {
                let v = BranchConditional::of(&op);
                let c = self.val(t, v.cond())?;
                let c = *c.first().ok_or_else(|| self.diag(t, "empty condition"))?;
                let targets = [(v.if_true(), true), (v.if_false(), false)];
                let mut out: FxHashMap<Block, Edge> = FxHashMap::default();
                for (target, side) in targets {
                    let s = target
                        .and_then(|l| cfg.block_of_label(l))
                        .ok_or_else(|| self.diag(t, "branch target outside the function"))?;
                    let e = Edge::Cond { p: pred, c, side };
                    // Both sides into one block: it runs where the branch does.
                    let e = if out.contains_key(&s) {
                        Edge::Known(pred)
                    } else {
                        e
                    };
                    out.insert(s, e);
                }
                for (s, e) in out {
                    flow.edges.insert((b, s), e);
                }
            }
            _ => {
                for &s in cfg.succs(b) {
                    flow.edges.insert((b, s), Edge::Known(pred));
                }
            }
        }
        Ok(())
    }

    fn phi(
        &mut self,
        cfg: &Cfg,
        flow: &mut Flow,
        b: Block,
        d: SsaDef,
    ) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d).clone();
        let width = super::io::flat_size(&op.ty).unwrap_or(0) as u8;
        let mut acc: Option<Comps> = None;
        for (label, value) in Phi::of(&op).pairs() {
            let from = label
                .and_then(|l| cfg.block_of_label(l))
                .ok_or_else(|| self.diag(d, "phi of a block outside the function"))?;
            let e = self
                .edge(flow, from, b)
                .ok_or_else(|| self.diag(d, "phi of a loop (AGAL has no loops)"))?;
            let v = self.val(d, value)?;
            acc = Some(match (acc, e) {
                (None, _) => v,
                (Some(_), None) => v,
                (Some(r), Some(c)) => self.select_on(c, &v, &r, width),
            });
        }
        acc.ok_or_else(|| self.diag(d, "phi without incoming values"))
    }

    /// `c ? a : b` for a scalar 1.0/+0.0 predicate `c`.
    pub(super) fn select_on(&mut self, c: Comp, a: &[Comp], b: &[Comp], width: u8) -> Comps {
        let cs = vec![c; width as usize];
        self.select(&cs, a, b, width)
    }

    /// `Demote` where the current predicate holds.
    pub(super) fn demote(&mut self) {
        let t = match self.pred {
            None => {
                let s = self.src(&[Comp::Lit(-1.0)]);
                self.in_temp(&s)
            }
            Some(p) => {
                let n = self.alu(Opcode::Neg, &[&[p]], 1);
                self.src(&n)
            }
        };
        self.push(Opcode::Kil, super::MDst::None, vec![t]);
    }
}
