//! Structured control flow → flow markers ([`mir::Flow`]).
//!
//! The optimizer if-converts and unrolls what it can; what reaches here is a structured CFG of
//! selections and loops (unknown trip counts, big bodies). It is walked in program order:
//!
//! * A **selection** `if (c) A else B` (merge `M`) becomes CMP, `If`, A, `Else`, B, `EndIf`;
//!   an empty arm is dropped (the condition flipped when the then-arm is empty). A D3D9 bool
//!   register `c` needs no CMP: `If` is IFU on the bool uniform of its number (whose then-arm
//!   stays, empty, when only the else-arm has code: IFU has no negation). The CMP tests
//!   the float comparison feeding the branch directly when the branch is its only use (IR
//!   `FLt`/`FEq`/`FNe` … and PICA CMP agree on NaN: ordered except NE), else the 0/1 value
//!   against 0.
//! * A **loop** (header `H`, continue `C`, merge `M`) becomes `Loop`, the blocks from `H` to
//!   `C`, `EndLoop`. A selection one of whose arms only branches to `M` is a **break**: CMP +
//!   `Break` (BREAKC), the other arm running unconditionally after it. A conditional back edge
//!   (`C` ending in `c ? H : M`) breaks on `!c`.
//! * **Phis** get a register each when their block is entered; every edge into the block copies
//!   its incoming value into it (a parallel copy: through temporaries when a source is another
//!   phi's register). A phi of a loop's merge takes the value of the breaking edge, copied just
//!   before the BREAKC (harmless when the break is not taken: the merge is reached only through
//!   a break).
//! * Output stores and returns inside a branch or loop, `Switch`, and breaks from inside a
//!   nested selection are [`Diagnostic::unsupported`].
//!
//! Caches of [`Lower`] that assume straight-line code (registers built from mixed sources inside
//! a branch or loop, the value a0.x holds, range masks) are cleared at every block boundary;
//! registers built outside every construct stay valid.

use irc_backend::Diagnostic;
use irc_ir::analysis::cfg::{self, Block, Cfg};
use irc_ir::format::{Arith, Branch, BranchConditional, Phi};
use irc_ir::{Construct, OpCode, SsaDef};
use smallvec::smallvec;

use super::mir::{Dst, Flow, IfCond, LoopKind, MOp, Operand, Reg};
use super::{flat_size, Comps, Lower, C};
use crate::isa::{CmpOp, Opcode};

/// The innermost loop being lowered.
#[derive(Debug, Clone, Copy)]
pub(super) struct LoopCtx {
    pub(super) merge: Block,
}

impl Lower<'_> {
    /// Forgets everything that is only valid in straight-line code.
    pub(super) fn new_block(&mut self) {
        let top = &self.built_top;
        self.built.retain(|k, _| top.contains(k));
        self.a0 = [None; 2];
        self.a0_victim = 0;
        self.range_masks.clear();
    }

    pub(super) fn marker(&mut self, op: Opcode, f: Flow) {
        self.prog.ops.push(MOp {
            op,
            dst: Dst::Flow(f),
            srcs: smallvec![],
        });
    }

    /// Lowers blocks from `b` until `stop` is reached (not lowered).
    pub(super) fn region(
        &mut self,
        cfg: &Cfg,
        mut b: Block,
        stop: Option<Block>,
    ) -> Result<(), Diagnostic> {
        let m = self.m;
        loop {
            if Some(b) == stop {
                return Ok(());
            }
            self.new_block();
            let data = cfg.block(b);
            let construct = cfg::construct(m, data.label);
            if let Some((Construct::StructuredLoop, merge, cont)) = construct {
                b = self.lower_loop(cfg, b, merge, cont)?;
                continue;
            }
            let t = data
                .terminator
                .ok_or_else(|| self.diag(data.label, "block without terminator"))?;
            let skip = self.fused_condition(cfg, b);
            self.block_ops(cfg, b, skip)?;
            match m.opcode(t) {
                OpCode::Return | OpCode::Unreachable => {
                    if self.flow_depth > 0 {
                        return Err(self.diag(t, "return inside a branch or loop"));
                    }
                    return Ok(());
                }
                OpCode::Branch => {
                    let to = self.block_of(cfg, t, Branch::of(m.op(t)).target())?;
                    if let Some(l) = self.loop_ctx {
                        if to == l.merge {
                            return Err(self.diag(t, "break outside a conditional (BREAK)"));
                        }
                    }
                    self.phi_copies(cfg, b, to)?;
                    b = to;
                }
                OpCode::BranchConditional => {
                    let merge = match construct {
                        Some((Construct::StructuredSelection, Some(mg), _)) => {
                            self.block_of(cfg, t, Some(mg))?
                        }
                        _ => return Err(self.diag(t, "conditional branch outside a selection")),
                    };
                    self.selection(cfg, b, t, merge, skip)?;
                    b = merge;
                }
                o => return Err(self.diag(t, format!("{o:?} control flow"))),
            }
        }
    }

    fn block_of(&self, cfg: &Cfg, at: SsaDef, label: Option<SsaDef>) -> Result<Block, Diagnostic> {
        label
            .and_then(|l| cfg.block_of_label(l))
            .ok_or_else(|| self.diag(at, "branch to an unknown block"))
    }

    /// The non-control ops of block `b` (phis were given registers when it was entered).
    pub(super) fn block_ops(
        &mut self,
        cfg: &Cfg,
        b: Block,
        skip: Option<SsaDef>,
    ) -> Result<(), Diagnostic> {
        for &d in cfg.ops(b) {
            match self.m.opcode(d) {
                OpCode::Label
                | OpCode::Phi
                | OpCode::Branch
                | OpCode::BranchConditional
                | OpCode::Return
                | OpCode::Unreachable => {}
                _ if Some(d) == skip
                    || self.remat.contains(&d)
                    || self.dst_products.contains(&d)
                    || self.counted_skip.contains(&d) => {}
                _ => self.lower_op(d)?,
            }
        }
        Ok(())
    }

    /// The float comparison feeding `b`'s conditional branch, when it is defined in `b` and the
    /// branch is its only use: the CMP then tests it directly.
    fn fused_condition(&self, cfg: &Cfg, b: Block) -> Option<SsaDef> {
        let m = self.m;
        let t = cfg.block(b).terminator?;
        if m.opcode(t) != OpCode::BranchConditional {
            return None;
        }
        let c = BranchConditional::of(m.op(t)).cond()?;
        let cop = m.op(c);
        let is_cmp = matches!(
            cop.opcode,
            OpCode::FLt | OpCode::FLe | OpCode::FGt | OpCode::FGe | OpCode::FEq | OpCode::FNe
        );
        if !is_cmp || flat_size(&cop.ty) != Some(1) || !cfg.ops(b).contains(&c) {
            return None;
        }
        let uses = m
            .code()
            .filter(|&u| m.op(u).operands.iter().any(|o| o.as_ref() == Some(c)))
            .count();
        (uses == 1).then_some(c)
    }

    /// Emits the CMP for branch condition `c` (fused comparison when `fused`); returns the value
    /// of cmp.x meaning "true".
    fn condition(&mut self, t: SsaDef, c: SsaDef, fused: bool) -> Result<bool, Diagnostic> {
        let m = self.m;
        let (a, b, op) = if fused {
            let cop = m.op(c);
            let a = self.arg(c, Arith::of(cop).a())?;
            let b = self.arg(c, Arith::of(cop).b())?;
            let op = match cop.opcode {
                OpCode::FLt => CmpOp::Lt,
                OpCode::FLe => CmpOp::Le,
                OpCode::FGt => CmpOp::Gt,
                OpCode::FGe => CmpOp::Ge,
                OpCode::FEq => CmpOp::Eq,
                _ => CmpOp::Ne,
            };
            (a, b, op)
        } else {
            // 0/1 value: true iff 0 != c.
            let v = self.arg(t, Some(c))?;
            (smallvec![C::lit(0.0)], v, CmpOp::Ne)
        };
        self.emit_cmp(&a[..1], &b[..1], op);
        Ok(true)
    }

    /// CMP of the first components of `a` and `b` (`a op b` in cmp.x and cmp.y), with the
    /// operands placed as the slots require.
    pub(super) fn emit_cmp(&mut self, a: &[C], b: &[C], op: CmpOp) {
        let mut sa = self.operand(&a[..1]);
        let mut sb = self.operand(&b[..1]);
        let mut op = op;
        // SRC1 is the wide slot: a uniform goes there (mirroring the operator), two meet → copy.
        if sb.reg.is_uniform() {
            if sa.reg.is_uniform() {
                sb = self.copy_to_temp(sb);
            } else {
                std::mem::swap(&mut sa, &mut sb);
                op = mirror(op);
            }
        }
        // One distinct input register per instruction.
        if let (Reg::In(x), Reg::In(y)) = (sa.reg, sb.reg) {
            if x != y {
                sb = self.copy_to_temp(sb);
            }
        }
        let one = |o: Operand| Operand { n: 1, ..o };
        self.prog.ops.push(MOp {
            op: Opcode::Cmp,
            dst: Dst::Flow(Flow::Cmp(op, op)),
            srcs: smallvec![one(sa), one(sb)],
        });
    }

    /// A block that only branches to `target` (no ops, no phis).
    pub(super) fn is_pure_jump(&self, cfg: &Cfg, b: Block, target: Block) -> bool {
        let data = cfg.block(b);
        let Some(t) = data.terminator else {
            return false;
        };
        self.m.opcode(t) == OpCode::Branch
            && cfg.block_of_label(Branch::of(self.m.op(t)).target().unwrap_or(t)) == Some(target)
            && cfg
                .ops(b)
                .iter()
                .all(|&d| matches!(self.m.opcode(d), OpCode::Label | OpCode::Branch))
    }

    fn selection(
        &mut self,
        cfg: &Cfg,
        b: Block,
        t: SsaDef,
        merge: Block,
        fused: Option<SsaDef>,
    ) -> Result<(), Diagnostic> {
        let br = BranchConditional::of(self.m.op(t));
        let c = br.cond().ok_or_else(|| self.diag(t, "operand missing"))?;
        let yes = self.block_of(cfg, t, br.if_true())?;
        let no = self.block_of(cfg, t, br.if_false())?;
        // A break: one arm leaves the innermost loop.
        if let Some(l) = self.loop_ctx {
            let leaves = |x: Block| x == l.merge || self.is_pure_jump(cfg, x, l.merge);
            for (arm, other, when) in [(yes, no, true), (no, yes, false)] {
                if leaves(arm) && !leaves(other) {
                    self.phi_copies(cfg, if arm == l.merge { b } else { arm }, l.merge)?;
                    let truth = self.condition(t, c, fused.is_some())?;
                    self.marker(Opcode::Breakc, Flow::Break(truth == when));
                    self.new_block();
                    if other == merge {
                        self.phi_copies(cfg, b, merge)?;
                    } else {
                        self.region(cfg, other, Some(merge))?;
                    }
                    return Ok(());
                }
            }
        }
        // A D3D9 bool register is tested by IFU on the bool uniform itself.
        let (test, truth) = match self.bool_register(c) {
            Some(b) => {
                if !self.bool_uniforms.contains(&b) {
                    self.bool_uniforms.push(b);
                }
                (IfCond::Bool(b as u8), true)
            }
            None => {
                let truth = self.condition(t, c, fused.is_some())?;
                (IfCond::Cmp(truth), truth)
            }
        };
        let if_at = self.prog.ops.len();
        let opcode = match test {
            IfCond::Cmp(_) => Opcode::Ifc,
            IfCond::Bool(_) => Opcode::Ifu,
        };
        self.marker(opcode, Flow::If(test));
        self.flow_depth += 1;
        let arm = |this: &mut Self, x: Block| -> Result<(), Diagnostic> {
            this.new_block();
            if x == merge {
                this.phi_copies(cfg, b, merge)
            } else {
                this.region(cfg, x, Some(merge))
            }
        };
        arm(self, yes)?;
        let else_at = self.prog.ops.len();
        self.marker(Opcode::Nop, Flow::Else);
        arm(self, no)?;
        self.marker(Opcode::Nop, Flow::EndIf);
        self.flow_depth -= 1;
        self.new_block();
        let end = self.prog.ops.len() - 1;
        let then_empty = else_at == if_at + 1;
        let else_empty = end == else_at + 1;
        match (then_empty, else_empty) {
            (true, true) => {
                self.prog.ops.truncate(if_at);
            }
            (false, true) => {
                self.prog.ops.remove(else_at);
            }
            // IFU has no negated form: its then-arm stays empty (a NOP).
            (true, false) if matches!(test, IfCond::Bool(_)) => {}
            (true, false) => {
                self.prog.ops.remove(else_at);
                self.prog.ops[if_at].dst = Dst::Flow(Flow::If(IfCond::Cmp(!truth)));
            }
            (false, false) => {}
        }
        Ok(())
    }

    /// Lowers the loop headed by `h`; returns its merge block.
    fn lower_loop(
        &mut self,
        cfg: &Cfg,
        h: Block,
        merge: Option<SsaDef>,
        cont: Option<SsaDef>,
    ) -> Result<Block, Diagnostic> {
        let label = cfg.block(h).label;
        let merge = self.block_of(cfg, label, merge)?;
        let cont = self.block_of(cfg, label, cont)?;
        if let Some(c) = self.counted.get(&h).copied() {
            return self.lower_counted_loop(cfg, h, merge, cont, c);
        }
        if self.loop_entries + 2 > 4 {
            return Err(self.diag(
                label,
                "loops nested deeper than the 4-entry LOOP stack (a loop of unknown trip \
                 count takes 2 entries, a D3D9 `rep`/`loop` on `i#` 1)",
            ));
        }
        let outer = self.loop_ctx.replace(LoopCtx { merge });
        self.loop_entries += 2;
        self.flow_depth += 1;
        let loop_at = self.prog.ops.len();
        self.marker(Opcode::Loop, Flow::Loop(LoopKind::Pair));
        self.new_block();
        // The header's own ops and terminator, then the body up to the continue block.
        let data = cfg.block(h);
        let t = data
            .terminator
            .ok_or_else(|| self.diag(label, "block without terminator"))?;
        let skip = self.fused_condition(cfg, h);
        self.block_ops(cfg, h, skip)?;
        match self.m.opcode(t) {
            OpCode::Branch => {
                let to = self.block_of(cfg, t, Branch::of(self.m.op(t)).target())?;
                self.phi_copies(cfg, h, to)?;
                if to != cont {
                    self.region(cfg, to, Some(cont))?;
                }
            }
            // `c ? body : merge` in the header: a break, the rest up to the continue block.
            OpCode::BranchConditional => self.selection(cfg, h, t, cont, skip)?,
            o => return Err(self.diag(t, format!("{o:?} in a loop header"))),
        }
        // The continue block: its ops, then the back edge (possibly conditional).
        if cont != h {
            self.new_block();
            let cdata = cfg.block(cont);
            let ct = cdata
                .terminator
                .ok_or_else(|| self.diag(cdata.label, "block without terminator"))?;
            let skip = self.fused_condition(cfg, cont);
            self.block_ops(cfg, cont, skip)?;
            match self.m.opcode(ct) {
                OpCode::Branch => self.phi_copies(cfg, cont, h)?,
                OpCode::BranchConditional => {
                    let br = BranchConditional::of(self.m.op(ct));
                    let c = br.cond().ok_or_else(|| self.diag(ct, "operand missing"))?;
                    let yes = self.block_of(cfg, ct, br.if_true())?;
                    let exit_when = yes != h;
                    self.phi_copies(cfg, cont, merge)?;
                    let truth = self.condition(ct, c, skip.is_some())?;
                    self.marker(Opcode::Breakc, Flow::Break(truth == exit_when));
                    self.new_block();
                    self.phi_copies(cfg, cont, h)?;
                }
                o => return Err(self.diag(ct, format!("{o:?} as a loop's back edge"))),
            }
        }
        self.reset_flags_after_breaks(loop_at);
        self.marker(Opcode::Nop, Flow::EndLoop);
        self.new_block();
        self.flow_depth -= 1;
        self.loop_entries -= 2;
        self.loop_ctx = outer;
        Ok(merge)
    }

    /// The emitter leaves the outer LOOP of a loop's pair on the flags the inner one was left
    /// with ([`crate::flow_emit`]): at the end of an iteration they must say "no break". When a
    /// CMP follows the loop's last break, a LITP on a literal sets cmp.x to that value (LITP sets
    /// cmp.x = s.x ≥ 0; its register result is dead).
    fn reset_flags_after_breaks(&mut self, loop_at: usize) {
        let mut depth = 0u32;
        let mut last_break = None;
        for (i, op) in self.prog.ops.iter().enumerate().skip(loop_at + 1) {
            match op.dst {
                Dst::Flow(Flow::Loop(_)) => depth += 1,
                Dst::Flow(Flow::EndLoop) => depth -= 1,
                Dst::Flow(Flow::Break(v)) if depth == 0 => last_break = Some((i, v)),
                _ => {}
            }
        }
        let Some((at, v)) = last_break else { return };
        let cmp_after = self.prog.ops[at + 1..]
            .iter()
            .any(|o| matches!(o.dst, Dst::Flow(Flow::Cmp(..))));
        if !cmp_after {
            return;
        }
        // Break when cmp.x == v; "no break" is cmp.x = !v: s.x = −1 gives false, 0 gives true.
        let x = if v { -1.0 } else { 0.0 };
        let src = self.operand(&[C::lit(x); 4]);
        let t = self.prog.new_vreg(1);
        self.prog.ops.push(MOp {
            op: Opcode::Litp,
            dst: Dst::V(t, 1),
            srcs: smallvec![src],
        });
    }

    /// Copies the values `from` passes to the phis of `to` into their registers (created on
    /// first sight), as one parallel copy.
    pub(super) fn phi_copies(
        &mut self,
        cfg: &Cfg,
        from: Block,
        to: Block,
    ) -> Result<(), Diagnostic> {
        let m = self.m;
        let from_label = cfg.block(from).label;
        let mut moves: Vec<(SsaDef, Comps)> = Vec::new();
        for &d in cfg.ops(to) {
            if m.opcode(d) != OpCode::Phi || self.counted_skip.contains(&d) {
                continue;
            }
            let regs = self.phi_reg(cfg, d, to)?;
            let Some(v) = Phi::of(m.op(d))
                .pairs()
                .find(|p| p.0 == Some(from_label))
                .and_then(|p| p.1)
            else {
                continue;
            };
            let src = self.value(v)?;
            if src != regs {
                moves.push((d, src));
            }
        }
        // Sources reading a phi register that is also written: copy them out first.
        let written: Vec<_> = moves
            .iter()
            .filter_map(|(d, _)| {
                self.values.get(d).and_then(|c| match c[0].loc {
                    super::Loc::V(r, _) => Some(r),
                    _ => None,
                })
            })
            .collect();
        let mut staged = Vec::with_capacity(moves.len());
        for (d, src) in moves {
            let reads_written = src
                .iter()
                .any(|c| matches!(c.loc, super::Loc::V(r, _) if written.contains(&r)));
            let src = if reads_written {
                let o = self.operand(&src);
                let t = self.copy_to_temp(o);
                let Reg::V(r) = t.reg else { unreachable!() };
                (0..src.len() as u8)
                    .map(|i| C {
                        loc: super::Loc::V(r, i),
                        neg: false,
                    })
                    .collect()
            } else {
                src
            };
            staged.push((d, src));
        }
        for (d, src) in staged {
            let super::Loc::V(r, _) = self.values[&d][0].loc else {
                continue;
            };
            self.copy_into(r, &src);
        }
        Ok(())
    }

    /// The register of phi `d` of block `b` (created on first use): the register of the phi
    /// it feeds when that is its only use, `b` branches straight to that phi's block and that
    /// block is no loop header (a nested selection's result passed on to the enclosing one is
    /// then written where the enclosing one wants it, with no copy between the two merges; the
    /// enclosing phi's register is written only on paths that end in its block, so nothing reads
    /// it before).
    fn phi_reg(&mut self, cfg: &Cfg, d: SsaDef, b: Block) -> Result<Comps, Diagnostic> {
        if let Some(v) = self.values.get(&d) {
            return Ok(v.clone());
        }
        if let Some((p, pb)) = self.sole_phi_use(cfg, d, b) {
            let regs = self.phi_reg(cfg, p, pb)?;
            if Some(regs.len() as u64) == flat_size(&self.m.op(d).ty) {
                self.values.insert(d, regs.clone());
                return Ok(regs);
            }
        }
        let op = self.m.op(d);
        let n = flat_size(&op.ty)
            .filter(|&n| (1..=4).contains(&n))
            .ok_or_else(|| self.diag(d, "phi wider than a vec4"))?;
        if !op
            .ty
            .is_basic_where(|s| s.is_float() || s == irc_ir::ScalarType::Bool)
        {
            return Err(self.diag(d, "integer phi"));
        }
        let r = self.prog.new_vreg(n as u8);
        let comps: Comps = (0..n as u8)
            .map(|i| C {
                loc: super::Loc::V(r, i),
                neg: false,
            })
            .collect();
        self.values.insert(d, comps.clone());
        Ok(comps)
    }
}

impl Lower<'_> {
    /// The phi `p` (and its block) that is the only use of phi `d` of block `b`, when `b` ends
    /// in a plain branch to `p`'s block and that block is not a loop header.
    fn sole_phi_use(&self, cfg: &Cfg, d: SsaDef, b: Block) -> Option<(SsaDef, Block)> {
        let m = self.m;
        let t = cfg.block(b).terminator?;
        if m.opcode(t) != OpCode::Branch {
            return None;
        }
        let to = cfg.block_of_label(Branch::of(m.op(t)).target()?)?;
        if matches!(
            cfg::construct(m, cfg.block(to).label),
            Some((Construct::StructuredLoop, ..))
        ) {
            return None;
        }
        let mut uses = m
            .code()
            .filter(|&u| m.op(u).operands.iter().any(|o| o.as_ref() == Some(d)));
        let p = uses.next()?;
        if uses.next().is_some() || m.opcode(p) != OpCode::Phi || !cfg.ops(to).contains(&p) {
            return None;
        }
        Some((p, to))
    }
}

/// `a op b` ⇔ `b mirror(op) a`.
fn mirror(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Le,
        o => o,
    }
}
