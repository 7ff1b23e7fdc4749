//! Procedure outlining: a run of instructions that occurs several times becomes one procedure
//! after `END`, and each occurrence a `CALL` to it (reference §9: CALL's DST is the procedure's
//! first word, NUM its length; the call returns by length, so a procedure costs no RET word).
//!
//! This is how hand-written PICA200 code stays short (devkitPro's geoshader `program.g.pica`,
//! anchor A6, calls one vertex-emission procedure per vertex). An occurrence of `len` words
//! found `count` times saves `count · len − count − len` words; the outliner repeatedly takes
//! the run with the largest saving until none saves a word (a greedy choice in the spirit of
//! LLVM's MachineOutliner, over exact instruction matches after register allocation).
//!
//! What may move into a procedure: ALU instructions, MAD, SETEMIT and EMIT. Not flow control or
//! NOP (the layout's NOP rules and addresses), not CMP or LITP (the layout follows the flags
//! for its loop-exit bookkeeping), not MOVA (a MOVA ending a procedure and one after the call
//! would run back to back, erratum 3). An occurrence is never the last thing in an if arm or a
//! loop body, where a CALL would need a NOP after it (§9 rule 1). Procedures hold no calls, so
//! the call stack (4 deep) holds one entry.

use irc_backend::Diagnostic;
use rustc_hash::FxHashMap;

use crate::flow_emit::Item;
use crate::instr::{Cond, Instr};
use crate::isa::{CondOp, Opcode};
use crate::lower::mir::Flow;

/// The longest run considered (longer repeats are found as repeats of their parts).
const MAX_RUN: usize = 64;

/// The condition field of CALL, which ignores it: zero, as picasso writes it.
const CALL_COND: Cond = Cond {
    op: CondOp::Or,
    refx: false,
    refy: false,
};

fn movable(item: &Item) -> bool {
    match item {
        Item::Instr(i) => match i {
            Instr::Binary { .. } | Instr::Mad { .. } | Instr::SetEmit { .. } => true,
            Instr::Unary { op, .. } => *op != Opcode::Litp,
            Instr::Plain(op) => *op == Opcode::Emit,
            Instr::Mova { .. }
            | Instr::Cmp { .. }
            | Instr::CondFlow { .. }
            | Instr::UniformFlow { .. } => false,
        },
        Item::Flow(_) => false,
    }
}

/// Whether a CALL at `items[at]` would be the last word of an if arm or a loop body.
fn closes_block(items: &[Item], at: usize) -> bool {
    matches!(
        items.get(at),
        Some(Item::Flow(Flow::Else | Flow::EndIf | Flow::EndLoop))
    )
}

/// A placeholder CALL to procedure `proc` of `len` words; [`place_procedures`] sets its address.
fn call(proc: usize, len: usize) -> Item {
    Item::Instr(Instr::CondFlow {
        op: Opcode::Call,
        cond: CALL_COND,
        dst: proc as u16,
        num: len as u8,
    })
}

/// The best run to outline: (saving, length, non-overlapping starts).
fn best_run(items: &[Item]) -> Option<(usize, usize, Vec<usize>)> {
    // movable_from[s]: how many movable items start at s.
    let mut movable_from = vec![0usize; items.len() + 1];
    for s in (0..items.len()).rev() {
        if movable(&items[s]) {
            movable_from[s] = movable_from[s + 1] + 1;
        }
    }
    let longest = movable_from.iter().copied().max().unwrap_or(0).min(MAX_RUN);
    // The instructions (a NOP stands for what is not movable: no run contains it).
    let flat: Vec<Instr> = items
        .iter()
        .map(|i| match i {
            Item::Instr(i) if movable(&Item::Instr(*i)) => *i,
            _ => Instr::NOP,
        })
        .collect();
    let mut best: Option<(usize, usize, Vec<usize>)> = None;
    let mut groups: FxHashMap<&[Instr], Vec<usize>> = FxHashMap::default();
    for len in 2..=longest {
        groups.clear();
        for s in 0..items.len() {
            if movable_from[s] >= len && !closes_block(items, s + len) {
                groups.entry(&flat[s..s + len]).or_default().push(s);
            }
        }
        // No run of this length repeats, so no longer one does.
        if groups.values().all(|starts| starts.len() < 2) {
            break;
        }
        for starts in groups.values() {
            let mut taken: Vec<usize> = Vec::new();
            for &s in starts {
                if taken.last().is_none_or(|&t| s >= t + len) {
                    taken.push(s);
                }
            }
            let count = taken.len();
            let saving = (count * len).saturating_sub(count + len);
            // Ties: the longer run (fewer calls executed), then the earlier one.
            let better = best.as_ref().is_none_or(|b| {
                (saving, len, std::cmp::Reverse(taken[0])) > (b.0, b.1, std::cmp::Reverse(b.2[0]))
            });
            if count >= 2 && saving > 0 && better {
                best = Some((saving, len, taken));
            }
        }
    }
    best
}

/// Replaces repeated runs of `items` by placeholder CALLs and returns the procedures' bodies.
pub fn outline(items: &mut Vec<Item>) -> Vec<Vec<Instr>> {
    let mut procs: Vec<Vec<Instr>> = Vec::new();
    while let Some((_, len, starts)) = best_run(items) {
        let body = items[starts[0]..starts[0] + len]
            .iter()
            .filter_map(|i| match i {
                Item::Instr(i) => Some(*i),
                Item::Flow(_) => None,
            })
            .collect();
        for &s in starts.iter().rev() {
            items.splice(s..s + len, [call(procs.len(), len)]);
        }
        procs.push(body);
    }
    procs
}

/// Appends the procedures after the main code `code` (which ends in END) and points every
/// placeholder CALL at its procedure.
pub fn place_procedures(code: &mut Vec<Instr>, procs: &[Vec<Instr>]) -> Result<(), Diagnostic> {
    let mut at = Vec::with_capacity(procs.len());
    let main_len = code.len();
    for p in procs {
        at.push(code.len());
        code.extend_from_slice(p);
    }
    for i in &mut code[..main_len] {
        if let Instr::CondFlow {
            op: Opcode::Call,
            dst,
            ..
        } = i
        {
            let start = at
                .get(usize::from(*dst))
                .copied()
                .ok_or_else(|| Diagnostic::internal(None, "a call to no procedure"))?;
            *dst = u16::try_from(start)
                .ok()
                .filter(|&a| a < 4096)
                .ok_or_else(|| Diagnostic::limit("flow-control target beyond word 4095"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::{Dst, DstReg, Mask, Src, SrcReg};

    fn mov(o: u8, v: u8) -> Item {
        Item::Instr(Instr::Unary {
            op: Opcode::Mov,
            dst: Dst::new(DstReg::Output(o), Mask::XYZW),
            src: Src::new(SrcReg::Input(v)),
            index: crate::isa::AddrIndex::None,
        })
    }

    fn emit() -> Item {
        Item::Instr(Instr::Plain(Opcode::Emit))
    }

    #[test]
    fn a_run_found_three_times_becomes_one_procedure() {
        // 3 × (mov o0, v0; mov o1, v1; emit) = 9 words → 3 calls + a 3-word procedure.
        let mut items: Vec<Item> = (0..3)
            .flat_map(|_| [mov(0, 0), mov(1, 1), emit()])
            .collect();
        let procs = outline(&mut items);
        assert_eq!(procs.len(), 1);
        assert_eq!(procs[0].len(), 3);
        assert_eq!(items, vec![call(0, 3); 3]);
        let mut code: Vec<Instr> = items
            .iter()
            .map(|i| match i {
                Item::Instr(i) => *i,
                Item::Flow(_) => unreachable!(),
            })
            .collect();
        code.push(Instr::END);
        place_procedures(&mut code, &procs).unwrap();
        assert_eq!(code.len(), 7);
        assert!(matches!(code[0], Instr::CondFlow { dst: 4, num: 3, .. }));
    }

    #[test]
    fn a_run_saving_nothing_stays() {
        // 2 × a 2-word run: 2 calls + 2 words = 4, no saving.
        let mut items: Vec<Item> = (0..2).flat_map(|_| [mov(0, 0), emit()]).collect();
        let before = items.clone();
        assert!(outline(&mut items).is_empty());
        assert_eq!(items, before);
    }

    #[test]
    fn no_call_ends_an_if_arm() {
        // The third occurrence closes an if arm, so only the first two become calls (a 3-word
        // run twice saves 2·3 − 2 − 3 = 1 word, as much as its first 2 words three times; the
        // longer run wins the tie).
        let run = [mov(0, 0), mov(1, 1), emit()];
        let mut items: Vec<Item> = run.iter().chain(&run).cloned().collect();
        items.push(Item::Flow(Flow::If(crate::lower::mir::IfCond::Cmp(true))));
        items.extend(run.iter().cloned());
        items.push(Item::Flow(Flow::EndIf));
        outline(&mut items);
        assert_eq!(items[0], call(0, 3));
        assert_eq!(items[1], call(0, 3));
        assert_eq!(items[items.len() - 2], emit());
    }
}
