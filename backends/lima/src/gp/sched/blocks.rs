//! Scheduling a program with control flow: each [`Block`] is scheduled on its own by
//! [`schedule`] (no forwarding into a block, reference §9 and the simulator's strict block
//! rule), then the blocks are laid out in order and their branches pointed at absolute
//! instruction indices (reference §8.4).
//!
//! - The pinned register components ([`Blocks::pinned`], from `$15.w` down) are kept out of the
//!   blocks' own register allocation.
//! - A block that stores a register ends at least 3 instructions after its last register
//!   store (no register store in a block's last 2 instructions, §9): the scheduler places a
//!   branch late enough and pads a block without one with empty instructions. A later block's
//!   first load of the register then sees the store.
//! - A two-way branch whose targets are both elsewhere is followed by a jump: an instruction
//!   whose pass unit passes the literal 1.0 and branches.
//! - Blocks share the temporaries and the address literals (their values do not depend on the
//!   block), so the program's literals are the longest list of any block.

use irc_backend::Diagnostic;

use super::super::instr::Instruction;
use super::super::isa::{PassOp, Src, SrcClass, REGISTERS, UNKNOWN_1_BRANCH};
use super::super::mir::{Blocks, Src as MSrc, Target};
use super::{schedule, Config, Schedule};

/// Schedules every block and lays them out (module doc).
pub fn schedule_blocks(prog: &Blocks, cfg: Config) -> Result<Schedule, Diagnostic> {
    if let ([only], 0) = (prog.blocks.as_slice(), prog.pinned) {
        return schedule(&only.prog, cfg);
    }
    let pinned_regs = prog.pinned.div_ceil(4) as usize;
    let local = Config {
        registers: cfg.registers.min(REGISTERS - pinned_regs),
        ..cfg
    };
    let jump = match prog.one {
        Some(o) => Some(jump_instruction(o.src)?),
        None => None,
    };
    let mut out = Schedule::default();
    let mut parts: Vec<Vec<Instruction>> = Vec::with_capacity(prog.blocks.len());
    for b in &prog.blocks {
        let p = &b.prog;
        if p.nodes.is_empty() && p.outputs.is_empty() && p.branch.is_none() {
            parts.push(Vec::new());
            continue;
        }
        let s = schedule(p, local)?;
        let mut instrs = s.instrs;
        if b.jump.is_some() {
            instrs.push(jump.ok_or_else(|| internal("a jump without the literal 1.0"))?);
        }
        let st = &mut out.stats;
        st.reg_stores += s.stats.reg_stores;
        st.reg_loads += s.stats.reg_loads;
        st.movs += s.stats.movs;
        st.registers = st.registers.max(s.stats.registers);
        st.units_filled += s.stats.units_filled;
        st.spills += s.stats.spills;
        st.fills += s.stats.fills;
        if s.addr_literals.len() > out.addr_literals.len() {
            out.addr_literals = s.addr_literals;
        }
        parts.push(instrs);
    }
    out.stats.registers += pinned_regs as u32;
    let mut starts = Vec::with_capacity(parts.len() + 1);
    let mut at = 0usize;
    for p in &parts {
        starts.push(at);
        at += p.len();
    }
    let end = at;
    let resolve = |t: Target| match t {
        Target::Block(n) => starts.get(n).copied().unwrap_or(end),
        Target::End => end,
    };
    for (b, instrs) in prog.blocks.iter().zip(&mut parts) {
        let mut k = instrs.len();
        if let Some(j) = b.jump {
            k -= 1;
            instrs[k].branch_target = resolve(j) as u16;
        }
        if let Some(t) = b.target {
            let ins = instrs
                .get_mut(k.wrapping_sub(1))
                .filter(|i| i.branch)
                .ok_or_else(|| internal("a block's branch is not its last instruction"))?;
            ins.branch_target = resolve(t) as u16;
        }
    }
    out.instrs = parts.into_iter().flatten().collect();
    if out.instrs.is_empty() {
        out.instrs.push(Instruction::NOP);
    }
    Ok(out)
}

/// An instruction that only jumps: the pass unit passes the literal 1.0 that `one` reads
/// through the load unit, and the instruction branches (Mesa's unconditional branch).
fn jump_instruction(one: MSrc) -> Result<Instruction, Diagnostic> {
    let MSrc::Uni(slot, lane) = one else {
        return Err(internal("the literal 1.0 is not a uniform"));
    };
    let mut ins = Instruction::NOP;
    ins.load_addr = u16::try_from(slot).map_err(|_| internal("literal slot"))?;
    ins.pass_op = PassOp::Pass;
    ins.pass_src = Src::load(SrcClass::Load, lane).ok_or_else(|| internal("literal lane"))?;
    ins.branch = true;
    ins.unknown_1 = UNKNOWN_1_BRANCH as u8;
    Ok(ins)
}

fn internal(msg: &str) -> Diagnostic {
    Diagnostic::internal(None, msg)
}
