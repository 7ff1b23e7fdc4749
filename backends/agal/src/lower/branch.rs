//! Control flow by real AGAL 2 conditionals (`ine`/`ife` … `els` … `eif`), the alternative to
//! predication ([`super::flow`]) that the target tries for versions 2 and 3: it can run arms
//! holding implicit-LOD samples, and it is shorter when the arms are long (a predicated arm
//! costs its selects; a branched one an `ine`, an `els`, an `eif` and the phi copies).
//!
//! Every structured selection becomes one conditional. At the header's `BranchConditional` on
//! `c` (1.0/+0.0) with true target `T`, false target `F` and merge `M`:
//! * each phi of `M` gets a *merge register* `P`; the value of an edge `header → M` is moved
//!   into `P` before the conditional; the arm ending in a branch to `M` moves its value into
//!   `P` last (or the op computing it in that arm writes `P` itself);
//! * an output stored anywhere in the construct becomes a *variable*: its current value is
//!   moved into a register before the conditional, stores in the arms write that register
//!   (outputs cannot be written inside conditionals, #3751; [`super::Lower::finish_outputs`]
//!   writes them at the end, as always);
//! * implicit-LOD samples and derivatives in the construct whose operands are computed before
//!   the conditional are lowered before it (on every lane, as the reference interpreter's
//!   result is: it reads the operand on all lanes of the quad); the others must be samples at
//!   a varying read directly (#3741) or are unsupported (derivatives: #3742);
//! * then `ine c, 0` opens `T` (`els` before `F`), or `ife c, 0` opens `F` when `T` is `M`;
//!   `eif` is emitted when `M` is reached. Where `c` is a scalar comparison only the branch
//!   reads, the conditional compares its operands instead (`ife a, b` for `a == b`, `ine` for
//!   `≠`, `ifl a, b` for `a < b` and `ifl b, a` for `a > b`; `Lower::compare_in_branch`),
//!   one instruction fewer.
//!
//! Register allocation stays a linear scan in program order: for these acyclic structured
//! programs a value's interval from first write to last read contains every point where it is
//! live on any path. Arms that end up empty (#3748) are removed after allocation
//! ([`remove_empty_arms`]). Anything else — a branch leaving a construct other than to its
//! merge, nesting deeper than 4 (#3624) — is reported as unsupported, and the target keeps the
//! predicated program.

use irc_backend::Diagnostic;
use irc_ir::analysis::cfg::{self, Block, Cfg};
use irc_ir::format::{Arith, BranchConditional, Deriv, ImageSample, Phi, Store};
use irc_ir::{Construct, EntityRef, OpCode, SsaDef};

use super::{Base, Comp, Comps, Lower, MDst, MInst, MSrc};
use crate::instr::Instruction;
use crate::isa::{OpClass, Opcode};

/// Conditionals AGAL 2 allows to nest (#3624).
const MAX_NESTING: usize = 4;

/// An open conditional.
#[derive(Debug)]
pub struct Frame {
    merge: Block,
    /// The block `els` opens (the false target when both arms are present).
    else_block: Option<Block>,
    /// Merge registers of the phis of `merge`.
    phis: Vec<(SsaDef, u32)>,
    /// Length of the gather cache when the current arm started (registers gathered in an arm
    /// are not written on the other path).
    gathered: usize,
    /// First machine op of the current arm.
    arm_start: usize,
}

impl Lower<'_> {
    /// Branch mode, before block `b`: closes the conditionals merging at `b` (the phis of `b`
    /// then read their merge registers) and opens the else arm starting at `b`.
    pub(super) fn enter_block(&mut self, b: Block) -> Result<(), Diagnostic> {
        while self.frames.last().is_some_and(|f| f.merge == b) {
            let f = self.frames.pop().expect("checked");
            self.gathered.truncate(f.gathered);
            self.emit_cf(Opcode::Eif, Vec::new());
            for (phi, p) in f.phis {
                let w = self.prog.vregs[p as usize].width;
                self.values
                    .insert(phi, (0..w).map(|c| Comp::V(p, c)).collect());
            }
        }
        if let Some(f) = self.frames.last() {
            if f.else_block == Some(b) {
                let g = f.gathered;
                self.gathered.truncate(g);
                self.emit_cf(Opcode::Els, Vec::new());
                let at = self.prog.insts.len();
                self.frames.last_mut().expect("checked").arm_start = at;
            }
        }
        Ok(())
    }

    fn emit_cf(&mut self, op: Opcode, srcs: Vec<MSrc>) {
        self.prog.needs_v2 = true;
        self.prog.insts.push(MInst {
            op,
            dst: MDst::None,
            srcs,
            sampler: None,
            indirect: None,
        });
    }

    /// Branch mode: the terminator `t` of block `b`.
    pub(super) fn branch_out(&mut self, cfg: &Cfg, b: Block, t: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(t).clone();
        match op.opcode {
            OpCode::Branch => {
                let s = cfg.succs(b).first().copied();
                if let Some(s) = s {
                    self.edge_into(cfg, b, s, t)?;
                }
                Ok(())
            }
            OpCode::BranchConditional => self.open(cfg, b, t),
            _ => Ok(()),
        }
    }

    /// Branch mode: block `b` without a terminator runs into `s`.
    pub(super) fn branch_out_fallthrough(
        &mut self,
        cfg: &Cfg,
        b: Block,
        s: Block,
    ) -> Result<(), Diagnostic> {
        self.edge_into(cfg, b, s, cfg.label(s))
    }

    /// An unconditional edge `b → s`: into the merge of the innermost conditional, the phi
    /// copies; into a later block of the same arm, nothing; anything else leaves a construct.
    fn edge_into(&mut self, cfg: &Cfg, b: Block, s: Block, t: SsaDef) -> Result<(), Diagnostic> {
        if s.index() <= b.index() {
            return Err(self.diag(t, "a loop (AGAL has no loops; not unrolled)"));
        }
        match self.frames.last() {
            Some(f) if f.merge == s => self.phi_copies(cfg, b, true),
            Some(f) if f.else_block == Some(s) || s.index() > f.merge.index() => {
                Err(self.diag(t, "a branch out of a conditional arm"))
            }
            _ if self.frames.iter().any(|f| f.merge == s) => {
                Err(self.diag(t, "a branch out of a conditional arm"))
            }
            _ => Ok(()),
        }
    }

    /// Moves the values the phis of `s` take from `b` into their merge registers (`in_arm`:
    /// an op of the current arm computing a whole value may write the register itself).
    fn phi_copies(&mut self, cfg: &Cfg, b: Block, in_arm: bool) -> Result<(), Diagnostic> {
        let f = self.frames.last().expect("a frame is open");
        let phis = f.phis.clone();
        let min = in_arm.then_some(f.arm_start);
        for (phi, p) in phis {
            let op = self.m.op(phi).clone();
            let mut value = None;
            for (label, v) in Phi::of(&op).pairs() {
                if label.and_then(|l| cfg.block_of_label(l)) == Some(b) {
                    value = v;
                }
            }
            let Some(v) = value else {
                return Err(self.diag(phi, "phi without a value for an incoming edge"));
            };
            let comps = self.value(v)?;
            self.fill(p, &comps, min);
        }
        Ok(())
    }

    /// Opens the conditional of the selection header `b` ending in `t`.
    fn open(&mut self, cfg: &Cfg, b: Block, t: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(t).clone();
        let v = BranchConditional::of(&op);
        let merge = match cfg::construct(self.m, cfg.label(b)) {
            Some((Construct::StructuredSelection, Some(m), _)) => cfg.block_of_label(m),
            _ => None,
        }
        .ok_or_else(|| self.diag(t, "a conditional branch that is not a structured selection"))?;
        let target = |l: Option<SsaDef>| l.and_then(|l| cfg.block_of_label(l));
        let (tt, ff) = (target(v.if_true()), target(v.if_false()));
        let (Some(tt), Some(ff)) = (tt, ff) else {
            return Err(self.diag(t, "branch target outside the function"));
        };
        if tt.index() <= b.index() || ff.index() <= b.index() || merge.index() <= b.index() {
            return Err(self.diag(t, "a loop (AGAL has no loops; not unrolled)"));
        }
        if let Some(f) = self.frames.last() {
            if merge.index() > f.merge.index() {
                return Err(self.diag(t, "a selection merging outside its conditional arm"));
            }
        }
        if self.frames.len() >= MAX_NESTING {
            return Err(self.diag(t, "conditionals nested deeper than 4 (#3624)"));
        }
        let c = self.val(t, v.cond())?;
        let c = *c.first().ok_or_else(|| self.diag(t, "empty condition"))?;
        // The construct: the blocks after the header up to the merge.
        let body: Vec<Block> = cfg
            .blocks()
            .filter(|x| x.index() > b.index() && x.index() < merge.index())
            .collect();
        self.hoist_quad_ops(cfg, &body)?;
        self.output_variables(cfg, &body)?;
        // Merge registers, and the values of the edges from the header straight to the merge.
        let mut phis = Vec::new();
        for &d in cfg.ops(merge) {
            if self.m.opcode(d) == OpCode::Phi {
                let w = super::io::flat_size(&self.m.op(d).ty).unwrap_or(0).min(64) as u8;
                if w == 0 || w > 4 {
                    return Err(self.diag(d, "phi wider than a register"));
                }
                let p = self.new_vreg(w, false);
                phis.push((d, p));
            }
        }
        self.frames.push(Frame {
            merge,
            else_block: None,
            phis,
            gathered: self.gathered.len(),
            arm_start: 0,
        });
        if tt == merge || ff == merge {
            self.phi_copies(cfg, b, false)?;
        }
        if tt == ff {
            // Both edges to one block: no conditional (the frame closes at the merge).
            if tt != merge {
                return Err(self.diag(t, "a selection with both edges into one arm"));
            }
            let f = self.frames.pop().expect("pushed");
            for (phi, p) in f.phis {
                let w = self.prog.vregs[p as usize].width;
                self.values
                    .insert(phi, (0..w).map(|k| Comp::V(p, k)).collect());
            }
            return Ok(());
        }
        let (opcode, else_block) = if tt == merge {
            (Opcode::Ife, None)
        } else if ff == merge {
            (Opcode::Ine, None)
        } else {
            (Opcode::Ine, Some(ff))
        };
        let negate = opcode == Opcode::Ife;
        if let Some((opcode, srcs)) = self.compare_in_branch(v.cond(), negate, else_block)? {
            self.emit_cf(opcode, srcs);
        } else {
            let mut cs = self.src(&[c]);
            let zero = self.src(&[Comp::Lit(0.0)]);
            if matches!(cs.base, Base::Const(_)) {
                cs = self.in_temp(&cs);
            }
            self.emit_cf(opcode, vec![cs, zero]);
        }
        let f = self.frames.last_mut().expect("pushed");
        f.else_block = else_block;
        f.arm_start = self.prog.insts.len();
        f.gathered = self.gathered.len();
        Ok(())
    }

    /// The conditional that compares the operands of the scalar comparison `cond` itself
    /// (`ife a, b` for `a == b`, …) when the branch is its only reader: the `seq`/`sne`/`slt`
    /// computing it then goes ([`super::dce`]). `negate`: the conditional opens where `cond`
    /// is false. An equality negates exactly (`!(a == b)` is the unordered `a != b`, as `ine`
    /// is); `a < b` (`ifl`) and `a > b` (`ifl b, a`) do not (NaN), so they are used only
    /// unnegated and without an else arm: [`remove_empty_arms`] inverts the condition of a
    /// conditional whose then arm ends up empty.
    fn compare_in_branch(
        &mut self,
        cond: Option<SsaDef>,
        negate: bool,
        else_block: Option<Block>,
    ) -> Result<Option<(Opcode, Vec<MSrc>)>, Diagnostic> {
        let Some(cond) = cond else {
            return Ok(None);
        };
        if self.m.uses(cond).len() != 1 {
            return Ok(None);
        }
        let op = self.m.op(cond).clone();
        let (Some(a), Some(b)) = (Arith::of(&op).a(), Arith::of(&op).b()) else {
            return Ok(None);
        };
        let (opcode, x, y) = match (op.opcode, negate) {
            (OpCode::FEq | OpCode::BEq, false) | (OpCode::FNe | OpCode::BNe, true) => {
                (Opcode::Ife, a, b)
            }
            (OpCode::FNe | OpCode::BNe, false) | (OpCode::FEq | OpCode::BEq, true) => {
                (Opcode::Ine, a, b)
            }
            (OpCode::FLt, false) if else_block.is_none() => (Opcode::Ifl, a, b),
            (OpCode::FGt, false) if else_block.is_none() => (Opcode::Ifl, b, a),
            _ => return Ok(None),
        };
        let (x, y) = (self.value(x)?, self.value(y)?);
        // One value on both sides: the runtime rejects a conditional reading one source twice
        // (#3758), so the comparison is computed into a register instead.
        if x.len() != 1 || y.len() != 1 || x == y {
            return Ok(None);
        }
        let sx = self.src(&x);
        let mut sy = self.src(&y);
        if matches!(sx.base, Base::Const(_)) && matches!(sy.base, Base::Const(_)) {
            sy = self.in_temp(&sy);
        }
        Ok(Some((opcode, vec![sx, sy])))
    }

    /// Lowers, before the conditional, the quad ops of `body` whose operands are known.
    fn hoist_quad_ops(&mut self, cfg: &Cfg, body: &[Block]) -> Result<(), Diagnostic> {
        for &blk in body {
            for &d in cfg.ops(blk) {
                let op = self.m.op(d);
                let operands: Vec<Option<SsaDef>> = match op.opcode {
                    OpCode::ImageSample => {
                        let s = ImageSample::of(op);
                        vec![s.coord(), s.lod_bias()]
                    }
                    OpCode::DerivX | OpCode::DerivY => vec![Deriv::of(op).value()],
                    _ => continue,
                };
                if self.values.contains_key(&d) {
                    continue;
                }
                let known = operands.iter().flatten().all(|&a| {
                    self.values.contains_key(&a)
                        || matches!(self.m.opcode(a), OpCode::Constant | OpCode::Undef)
                });
                if known {
                    self.lower_op(d)?;
                }
            }
        }
        Ok(())
    }

    /// Makes every output stored in `body` a variable (see the module doc).
    fn output_variables(&mut self, cfg: &Cfg, body: &[Block]) -> Result<(), Diagnostic> {
        for &blk in body {
            for &d in cfg.ops(blk) {
                if self.m.opcode(d) != OpCode::OutputStore {
                    continue;
                }
                let Some(decl) = Store::of(self.m.op(d)).base() else {
                    continue;
                };
                let Some(k) = self.outputs.iter().position(|o| o.decl == decl) else {
                    continue;
                };
                if self.outputs[k].var.is_some() || self.outputs[k].fixed {
                    continue;
                }
                let n = self.outputs[k].n;
                let cur: Comps = self.outputs[k]
                    .comps
                    .iter()
                    .map(|c| self.resolve(c.unwrap_or(Comp::Lit(0.0))))
                    .collect();
                let r = self.new_vreg(n, false);
                self.fill(r, &cur, None);
                let o = &mut self.outputs[k];
                o.var = Some(r);
                o.comps = (0..n).map(|c| Some(Comp::V(r, c))).collect();
            }
        }
        Ok(())
    }

    /// Branch mode, an output store inside a conditional: writes the output's variable.
    pub(super) fn store_variable(
        &mut self,
        d: SsaDef,
        k: usize,
        first: usize,
        vals: &[Comp],
    ) -> Result<(), Diagnostic> {
        let r = self.outputs[k].var.ok_or_else(|| {
            self.diag(
                d,
                "an output without a register (reported in the reflection) stored in a \
                 conditional",
            )
        })?;
        if first + vals.len() > usize::from(self.outputs[k].n) {
            return Err(self.diag(d, "a constant output index beyond the declaration"));
        }
        self.fill_at(r, first as u8, vals, None);
        Ok(())
    }
}

/// Removes arms left empty by allocation (a copy into a merge register that became a
/// self-move), which the validator rejects (#3748): `if; els` → the inverted `if`; `els;
/// eif` → `eif`; `if; eif` → nothing. Repeated until none is left.
pub fn remove_empty_arms(code: &mut Vec<Instruction>) {
    loop {
        let mut changed = false;
        let mut i = 0;
        while i + 1 < code.len() {
            let (a, b) = (code[i].op.class(), code[i + 1].op.class());
            match (a, b) {
                (OpClass::If, OpClass::Else) => {
                    // Only equality negates exactly; `ifl`/`ifg` never have an else arm here
                    // (`Lower::compare_in_branch`). Left alone, the validator would report it.
                    let inverse = match code[i].op {
                        Opcode::Ife => Some(Opcode::Ine),
                        Opcode::Ine => Some(Opcode::Ife),
                        _ => None,
                    };
                    if let Some(o) = inverse {
                        code[i].op = o;
                        code.remove(i + 1);
                        changed = true;
                    } else {
                        i += 1;
                    }
                }
                (OpClass::Else, OpClass::EndIf) => {
                    code.remove(i);
                    changed = true;
                }
                (OpClass::If, OpClass::EndIf) => {
                    code.drain(i..i + 2);
                    changed = true;
                }
                _ => i += 1,
            }
        }
        if !changed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::{Dest, Source, Src2};
    use crate::isa::RegType;

    fn ins(op: Opcode) -> Instruction {
        Instruction::new(op, Dest::NONE, Source::NONE, Src2::NONE)
    }

    fn mov() -> Instruction {
        let t = Source::new(RegType::Temporary, 0);
        Instruction::new(Opcode::Mov, Dest::new(RegType::Temporary, 1), t, Src2::NONE)
    }

    fn ops(code: &[Instruction]) -> Vec<Opcode> {
        code.iter().map(|i| i.op).collect()
    }

    #[test]
    fn an_empty_then_arm_inverts_the_condition() {
        let mut c = vec![ins(Opcode::Ine), ins(Opcode::Els), mov(), ins(Opcode::Eif)];
        remove_empty_arms(&mut c);
        assert_eq!(ops(&c), [Opcode::Ife, Opcode::Mov, Opcode::Eif]);
    }

    #[test]
    fn empty_else_arms_and_empty_conditionals_go() {
        let mut c = vec![
            ins(Opcode::Ife),
            mov(),
            ins(Opcode::Ine),
            ins(Opcode::Els),
            ins(Opcode::Eif),
            ins(Opcode::Els),
            ins(Opcode::Eif),
        ];
        remove_empty_arms(&mut c);
        assert_eq!(ops(&c), [Opcode::Ife, Opcode::Mov, Opcode::Eif]);
    }
}
