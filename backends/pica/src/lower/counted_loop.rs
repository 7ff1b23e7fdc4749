//! D3D9 `rep i#` / `loop aL, i#` loops as one hardware `LOOP iN` on the application's count.
//!
//! The frontend turns `rep i#` into a loop whose header phi `P` starts at the float value of
//! `i#.x` and counts down by 1, leaving the loop when `P == 0` before the body. PICA's LOOP
//! runs its body `i.x + 1` times (reference §9), so the count register is uploaded as
//! `(x − 1, y, z, 0)` (reflection `UniformSource::LegacyLoop`) into one of i0–i2 (i3 is the
//! DEF'd register of the generic loops, [`crate::flow_emit::LOOP_UNIFORM`]), and a count of 0 is
//! tested first on the register's float copy (an if on `x > 0`, which the emitter lays out as a
//! JMPC past the loop): the counter, its test and its decrement disappear.
//!
//! Taken when: `P`'s only uses are that test and its decrement `P − 1` (whose only use is `P`),
//! the test `FEq(P, 0)` is the first thing an iteration does (alone in the header, or in the
//! block the header branches to), its true arm leaves the loop, the back edge is unconditional,
//! and the loop's other exits (BREAKC inside the body) feed no phi of the merge block (the exit
//! edge's phi copies are made after the loop). Everything else stays the generic pair of
//! LOOPs ([`super::flow`]).

use irc_backend::Diagnostic;
use irc_ir::analysis::cfg::{Block, Cfg};
use irc_ir::format::{Arith, Branch, BranchConditional, Constant, Load, Phi};
use irc_ir::{BuiltIn, Construct, OpCode, SsaDef};

use super::mir::{Flow, IfCond, LoopKind};
use super::{Lower, C};
use crate::isa::{CmpOp, Opcode};

/// Int registers i0–i2 hold application counts; i3 is the generic loops' DEF.
const COUNT_REGISTERS: usize = 3;

/// A loop [`Lower::counted_loop`] recognized.
#[derive(Debug, Clone, Copy)]
pub(super) struct Counted {
    /// The counter phi, its test `P == 0` and its decrement.
    phi: SsaDef,
    test: SsaDef,
    step: SsaDef,
    /// The counter's initial value: the float copy of `i#.x`.
    init: SsaDef,
    /// The D3D9 register number `#`.
    register: u32,
    /// The block holding the test, the first block of the body, and the block whose edge to
    /// the merge block leaves the loop.
    test_block: Block,
    body: Block,
    exit_from: Block,
}

impl Lower<'_> {
    /// Finds the counted loops of the function (before lowering, so that the edges into a
    /// loop know its counter needs no copies), assigns their int registers and marks their
    /// counters, tests and decrements as not lowered.
    pub(super) fn plan_counted_loops(&mut self, cfg: &Cfg) {
        for b in cfg.blocks() {
            let label = cfg.block(b).label;
            let Some((Construct::StructuredLoop, Some(merge), Some(cont))) =
                irc_ir::analysis::cfg::construct(self.m, label)
            else {
                continue;
            };
            let (Some(merge), Some(cont)) = (cfg.block_of_label(merge), cfg.block_of_label(cont))
            else {
                continue;
            };
            if let Some(c) = self.counted_loop(cfg, b, merge, cont) {
                if !self.loop_registers.contains(&c.register) {
                    self.loop_registers.push(c.register);
                }
                self.counted_skip.extend([c.phi, c.test, c.step]);
                self.counted.insert(b, c);
            }
        }
    }

    /// The loop headed by `h` (merge `merge`, continue block `cont`) as a counted loop, if it is
    /// one and an int register is free for its count.
    fn counted_loop(&self, cfg: &Cfg, h: Block, merge: Block, cont: Block) -> Option<Counted> {
        let m = self.m;
        if cont == h {
            return None;
        }
        let hdata = cfg.block(h);
        let non_phi = |b: Block| {
            cfg.ops(b)
                .iter()
                .copied()
                .filter(|&d| !matches!(m.opcode(d), OpCode::Label | OpCode::Phi))
                .collect::<Vec<_>>()
        };
        let t = hdata.terminator?;
        let test_block = match m.opcode(t) {
            OpCode::Branch => {
                if non_phi(h).len() != 1 {
                    return None;
                }
                cfg.block_of_label(Branch::of(m.op(t)).target()?)?
            }
            OpCode::BranchConditional => h,
            _ => return None,
        };
        // The test block: the comparison and the conditional branch, nothing else.
        let tt = cfg.block(test_block).terminator?;
        if m.opcode(tt) != OpCode::BranchConditional
            || (test_block != h
                && cfg
                    .ops(test_block)
                    .iter()
                    .any(|&d| m.opcode(d) == OpCode::Phi))
        {
            return None;
        }
        let br = BranchConditional::of(m.op(tt));
        let test = br.cond()?;
        if non_phi(test_block) != [test, tt] {
            return None;
        }
        let yes = cfg.block_of_label(br.if_true()?)?;
        let body = cfg.block_of_label(br.if_false()?)?;
        let leaves = |x: Block| x == merge || self.is_pure_jump(cfg, x, merge);
        if !leaves(yes) || leaves(body) || body == h {
            return None;
        }
        let exit_from = if yes == merge { test_block } else { yes };
        // The test `P == 0` on a header phi P.
        let top = m.op(test);
        if top.opcode != OpCode::FEq {
            return None;
        }
        let (a, b) = (Arith::of(top).a()?, Arith::of(top).b()?);
        let phi = match (is_zero(m, a), is_zero(m, b)) {
            (false, true) => a,
            (true, false) => b,
            _ => return None,
        };
        if m.opcode(phi) != OpCode::Phi || cfg.block_of(phi) != Some(h) {
            return None;
        }
        // P's incoming values: the count from outside, P − 1 along the back edge.
        let cont_label = cfg.block(cont).label;
        let (mut init, mut step) = (None, None);
        for (from, v) in Phi::of(m.op(phi)).pairs() {
            let (from, v) = (from?, v?);
            if from == cont_label {
                step = Some(v);
            } else {
                init = Some(v);
            }
        }
        let (init, step) = (init?, step?);
        if cfg.preds(h).len() != 2 || !is_decrement(m, step, phi) {
            return None;
        }
        let only_used_by = |x: SsaDef, users: &[SsaDef]| {
            m.uses(x)
                .iter()
                .filter(|&&u| m.is_live(u) && !m.opcode(u).is_meta())
                .all(|u| users.contains(u))
        };
        if !only_used_by(phi, &[test, step]) || !only_used_by(step, &[phi]) {
            return None;
        }
        // The back edge is unconditional.
        let ct = cfg.block(cont).terminator?;
        if m.opcode(ct) != OpCode::Branch {
            return None;
        }
        // Other exits must not feed the merge block's phis (their copies precede their
        // BREAKC; the exit edge's are made after the loop and would overwrite them).
        let merge_has_phis = cfg.ops(merge).iter().any(|&d| m.opcode(d) == OpCode::Phi);
        if merge_has_phis && cfg.preds(merge).iter().any(|&p| p != exit_from) {
            return None;
        }
        let register = self.count_register(init)?;
        let known = self.loop_registers.contains(&register);
        if !known && self.loop_registers.len() >= COUNT_REGISTERS {
            return None;
        }
        Some(Counted {
            phi,
            test,
            step,
            init,
            register,
            test_block,
            body,
            exit_from,
        })
    }

    /// The D3D9 integer register whose `.x` the float value `init` is (a lane of a converted
    /// `i#` load, `ConvertItoF` or an extract of a vector one).
    fn count_register(&self, init: SsaDef) -> Option<u32> {
        let m = self.m;
        let op = m.op(init);
        let (conv, k) = match op.opcode {
            OpCode::ConvertItoF => (init, 0),
            OpCode::CompositeExtract => {
                let ce = irc_ir::format::CompositeExtract::of(op);
                let v = ce.composite()?;
                (
                    v,
                    irc_backend::io_plan::const_index(m, ce.address())? as usize,
                )
            }
            _ => return None,
        };
        if m.opcode(conv) != OpCode::ConvertItoF {
            return None;
        }
        let lanes = irc_backend::ir_reads::int_register_lanes(m, conv)?;
        let (load, lane) = *lanes.get(k)?;
        let decl = Load::of(m.op(load)).base()?;
        if irc_backend::ir_reads::int_or_bool_registers(m, decl) != Some(BuiltIn::LegacyConstInt) {
            return None;
        }
        let (Some(index), Some(comp)) = self.element_address(Load::of(m.op(load)).address()) else {
            return None;
        };
        (comp as usize + lane == 0 && index < 16).then_some(index as u32)
    }

    /// Lowers counted loop `c` (header `h`); returns its merge block.
    pub(super) fn lower_counted_loop(
        &mut self,
        cfg: &Cfg,
        h: Block,
        merge: Block,
        cont: Block,
        c: Counted,
    ) -> Result<Block, Diagnostic> {
        let label = cfg.block(h).label;
        if self.loop_entries + 1 > 4 {
            return Err(self.diag(label, "loops nested deeper than the 4-entry LOOP stack"));
        }
        let reg = self
            .loop_registers
            .iter()
            .position(|&r| r == c.register)
            .ok_or_else(|| self.diag(label, "counted loop without its register"))?
            as u8;
        // Zero iterations: the LOOP would run once.
        let count = self.value(c.init)?;
        self.emit_cmp(&count[..1], &[C::lit(0.0)], CmpOp::Gt);
        self.marker(Opcode::Ifc, Flow::If(IfCond::Cmp(true)));
        self.flow_depth += 1;
        self.new_block();
        let outer = self.loop_ctx.replace(super::flow::LoopCtx { merge });
        self.loop_entries += 1;
        self.flow_depth += 1;
        self.marker(Opcode::Loop, Flow::Loop(LoopKind::Counted(reg)));
        self.new_block();
        self.block_ops(cfg, h, None)?;
        if c.test_block != h {
            self.block_ops(cfg, c.test_block, None)?;
        }
        if c.body != cont {
            self.region(cfg, c.body, Some(cont))?;
        }
        self.new_block();
        self.block_ops(cfg, cont, None)?;
        self.phi_copies(cfg, cont, h)?;
        self.marker(Opcode::Nop, Flow::EndLoop);
        self.new_block();
        self.flow_depth -= 1;
        self.loop_entries -= 1;
        self.loop_ctx = outer;
        self.marker(Opcode::Nop, Flow::EndIf);
        self.flow_depth -= 1;
        self.new_block();
        // The exit edge's phi values: those the header's phis hold after the last back edge
        // (or from before the loop when it ran no iteration).
        self.phi_copies(cfg, c.exit_from, merge)?;
        Ok(merge)
    }
}

/// True when `x` is the float constant ±0.
fn is_zero(m: &irc_ir::Module, x: SsaDef) -> bool {
    m.opcode(x) == OpCode::Constant
        && Constant::of(m.op(x))
            .scalar(0)
            .is_some_and(|bits| f32::from_bits(bits as u32) == 0.0)
        && m.ty(x).as_scalar() == Some(irc_ir::ScalarType::F32)
}

/// True when `d` is `p − 1` (or `p + (−1)`).
fn is_decrement(m: &irc_ir::Module, d: SsaDef, p: SsaDef) -> bool {
    let op = m.op(d);
    let (a, b) = match (Arith::of(op).a(), Arith::of(op).b()) {
        (Some(a), Some(b)) => (a, b),
        _ => return false,
    };
    let constant = |x: SsaDef, want: f32| {
        m.opcode(x) == OpCode::Constant
            && m.ty(x).as_scalar() == Some(irc_ir::ScalarType::F32)
            && Constant::of(m.op(x))
                .scalar(0)
                .is_some_and(|bits| f32::from_bits(bits as u32) == want)
    };
    match op.opcode {
        OpCode::FSub => a == p && constant(b, 1.0),
        OpCode::FAdd => (a == p && constant(b, -1.0)) || (b == p && constant(a, -1.0)),
        _ => false,
    }
}
