//! NOP slots filled by tail duplication, before [`crate::flow_emit::layout`] pads the blocks.
//!
//! An arm of an if/else that is empty or ends where a nested IF or LOOP closes gets a NOP
//! (reference §9 rules 3 and 4: the IF and LOOP stacks pop once per instruction). When both arms
//! of an if/else would get one, the instruction right after the if's end moves into the end of
//! both arms instead: it still runs last on every path through the if (the arms are exclusive),
//! and it now separates the nested closes, so the two NOPs go and the program is one word
//! shorter. Each output component is still written once on every path (erratum 4).
//!
//! Only plain ALU instructions move: not CMP (the flags the layout's loop bookkeeping tracks),
//! not MOVA (no two in a row, erratum 3), not LITP (the loop "no break" reset), not flow control
//! or emission.

use crate::flow_emit::Item;
use crate::instr::Instr;
use crate::isa::Opcode;
use crate::lower::mir::Flow;

/// Fills the NOP slots of every if/else whose arms both need one (innermost ifs first).
pub fn fill_nop_slots(items: &mut Vec<Item>) {
    while let Some((e, f)) = find_fillable(items) {
        let moved = items.remove(f + 1);
        items.insert(f, moved);
        items.insert(e, moved);
    }
}

/// An arm `items[from..to]` the layout would end with a NOP.
fn needs_nop(items: &[Item], from: usize, to: usize) -> bool {
    to == from
        || matches!(
            items[to - 1],
            Item::Flow(Flow::EndIf) | Item::Flow(Flow::EndLoop)
        )
}

fn movable(item: &Item) -> bool {
    match item {
        Item::Instr(Instr::Binary { .. } | Instr::Mad { .. }) => true,
        Item::Instr(Instr::Unary { op, .. }) => *op != Opcode::Litp,
        _ => false,
    }
}

/// (index of `Else`, index of `EndIf`) of an if/else whose arms both need a NOP and whose end
/// is followed by a movable instruction.
fn find_fillable(items: &[Item]) -> Option<(usize, usize)> {
    // Open ifs: (index of If, index of Else).
    let mut open: Vec<(usize, Option<usize>)> = Vec::new();
    for (k, item) in items.iter().enumerate() {
        match item {
            Item::Flow(Flow::If(_)) => open.push((k, None)),
            Item::Flow(Flow::Else) => {
                if let Some(top) = open.last_mut() {
                    top.1 = Some(k);
                }
            }
            Item::Flow(Flow::EndIf) => {
                let Some((i, Some(e))) = open.pop() else {
                    continue;
                };
                if needs_nop(items, i + 1, e)
                    && needs_nop(items, e + 1, k)
                    && items.get(k + 1).is_some_and(movable)
                {
                    return Some((e, k));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow_emit::layout;
    use crate::instr::{Dst, DstReg, Mask, Src, SrcReg};
    use crate::isa::AddrIndex;

    /// `mov r<d>, r<s>`.
    fn mov(d: u8, s: u8) -> Item {
        Item::Instr(Instr::Unary {
            op: Opcode::Mov,
            dst: Dst::new(DstReg::Temp(d), Mask::XYZW),
            src: Src::new(SrcReg::Temp(s)),
            index: AddrIndex::None,
        })
    }

    fn f(x: Flow) -> Item {
        Item::Flow(x)
    }

    /// if { if { a } else { b } } else { if { c } else { d } } e; g — both outer arms end where
    /// an inner if closes: two NOPs (§9 rule 4), 11 words; with `e` moved into both arms, 10.
    #[test]
    fn nested_closes_in_both_arms_take_the_next_instruction() {
        let inner = |a: u8, b: u8| {
            [
                f(Flow::If(crate::lower::mir::IfCond::Cmp(true))),
                mov(a, 0),
                f(Flow::Else),
                mov(b, 0),
                f(Flow::EndIf),
            ]
        };
        let mut items = vec![f(Flow::If(crate::lower::mir::IfCond::Cmp(true)))];
        items.extend(inner(1, 2));
        items.push(f(Flow::Else));
        items.extend(inner(3, 4));
        items.extend([f(Flow::EndIf), mov(5, 6), mov(7, 5)]);
        let before = layout(&items).expect("lays out");
        assert_eq!(before.len(), 11);
        assert_eq!(before.iter().filter(|i| **i == Instr::NOP).count(), 2);
        fill_nop_slots(&mut items);
        let after = layout(&items).expect("lays out");
        assert_eq!(after.len(), 10);
        assert!(!after.contains(&Instr::NOP));
        // mov r5, r6 ends both arms; mov r7, r5 follows the if.
        let Item::Instr(e) = mov(5, 6) else {
            unreachable!()
        };
        let Item::Instr(g) = mov(7, 5) else {
            unreachable!()
        };
        assert_eq!(after.iter().filter(|&&i| i == e).count(), 2);
        assert_eq!(after[4], e);
        assert_eq!(after[8], e);
        assert_eq!(after[9], g);
    }

    /// One arm without a NOP slot: moving would not pay, nothing moves.
    #[test]
    fn one_slot_is_left_alone() {
        let mut items = vec![
            f(Flow::If(crate::lower::mir::IfCond::Cmp(true))),
            mov(1, 0),
            f(Flow::Else),
            f(Flow::If(crate::lower::mir::IfCond::Cmp(false))),
            mov(2, 0),
            f(Flow::EndIf),
            f(Flow::EndIf),
            mov(3, 0),
        ];
        let before = items.clone();
        fill_nop_slots(&mut items);
        assert_eq!(items, before);
    }
}
