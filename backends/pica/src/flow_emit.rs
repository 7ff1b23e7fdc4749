//! Flow markers → IFC / LOOP / BREAKC words with absolute addresses and the NOP padding of
//! reference §9.
//!
//! * `If(v)` … [`Flow::Else`] … [`Flow::EndIf`]: `ifc cmp.x` (or `!cmp.x`), or `ifu bN` on a
//!   bool uniform (same DST/NUM, reference §4 format 3); without an else,
//!   DST = the first word after the body and NUM = 0; with one, DST = the first word of the
//!   else-body and NUM = its length (picasso's encoding).
//! * A loop is two nested LOOPs on the int uniform [`LOOP_UNIFORM`], which the program's
//!   constant table sets to [`LOOP_VALUE`] (256 iterations, aL from 0 by 1): up to 65,536
//!   iterations. `Break(v)` is `breakc cmp.x` (or `!cmp.x`) and leaves the inner LOOP; right
//!   after the inner LOOP's body a second BREAKC on the same flags leaves the outer one when the
//!   inner was left by a break. That second test is only right when every break of the loop
//!   tests the same polarity and no CMP follows the last break (the flags at the end of an
//!   iteration are then "no break" — the lowering ends a body whose last break is followed by
//!   a CMP with a LITP that sets them so); other loops are [`Diagnostic::unsupported`].
//! * NOP padding (§9): a block whose body is empty, a block ending at the same address as a
//!   block closed just before it (IF and LOOP stacks pop once per instruction), a LOOP body
//!   whose last word is a BREAKC, and a block whose last word is a jump or a call each get a
//!   NOP before they close.

use irc_backend::Diagnostic;

use crate::instr::{Cond, Instr};
use crate::isa::Opcode;
use crate::lower::mir::{Flow, IfCond, LoopKind};

/// The int uniform the loops count with (`.consti` allocates from i3 down in picasso).
pub const LOOP_UNIFORM: u8 = 3;
/// Its value: i.x = 255 (256 iterations), i.y = 0 (aL start), i.z = 1 (aL step).
pub const LOOP_VALUE: [u8; 4] = [255, 0, 1, 0];

/// Entries of the IF stack (reference §9).
const IF_STACK: usize = 8;

/// One item of the program: an instruction or a flow marker (CMP is an instruction).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Item {
    Instr(Instr),
    Flow(Flow),
}

enum Open {
    If {
        at: usize,
        body: usize,
        else_at: Option<usize>,
    },
    /// `if (bN) {} else { body }` as `jmpu bN, end; body`.
    JumpOver { at: usize },
    Loop {
        outer: usize,
        inner: usize,
        body: usize,
        polarity: Option<bool>,
        cmp_after_break: bool,
        breaks: u32,
    },
    /// `for iN` on a D3D9 count: one LOOP, any BREAKC.
    Counted { at: usize, body: usize },
}

fn unsupported(msg: &str) -> Diagnostic {
    Diagnostic::unsupported(None, msg.to_string())
}

/// Removes the `else` of an if whose else-arm is empty (its allocation coalesced every phi
/// copy): IFC/IFU without an else skip the body just the same, and the empty arm would cost a
/// NOP (§9 rule 3).
pub fn drop_empty_else(items: &mut Vec<Item>) {
    let mut k = 0;
    while k + 1 < items.len() {
        if items[k] == Item::Flow(Flow::Else) && items[k + 1] == Item::Flow(Flow::EndIf) {
            items.remove(k);
        } else {
            k += 1;
        }
    }
}

/// Whether the `if` on a bool uniform at `items[at]` is best a JMPU over its else-arm: its
/// then-arm is empty (IFU has no negated form, so it would hold a NOP) and the else-arm can be
/// jumped over ([`jumpable_arm`]).
fn jump_over(items: &[Item], at: usize) -> bool {
    items.get(at + 1) == Some(&Item::Flow(Flow::Else)) && jumpable_arm(items, at + 2)
}

/// Whether the `if` on the cmp flags at `items[at]`, which has no else-arm, is best a JMPC
/// past its body: the same one word as IFC, but no IF stack entry (8 deep, §9).
fn jump_past(items: &[Item], at: usize) -> bool {
    jumpable_arm(items, at + 1)
}

/// Whether the last arm of an if, starting at `items[from]` and closed by the if's `EndIf`,
/// can be skipped by a jump to the word after it: it holds an instruction (a jump that would
/// end a block is never taken, §9), it is not followed by another arm (`Else`), and no
/// enclosing block closes right after it (a jump to the first word after an IF's body skips
/// the word whose address pops the IF stack, and a LOOP's last word likewise).
fn jumpable_arm(items: &[Item], from: usize) -> bool {
    let mut depth = 0usize;
    let mut words = false;
    for (k, item) in items.iter().enumerate().skip(from) {
        match item {
            Item::Flow(Flow::If(_) | Flow::Loop(_)) => depth += 1,
            Item::Flow(Flow::EndLoop) => depth = depth.saturating_sub(1),
            Item::Flow(Flow::Else) if depth == 0 => return false,
            Item::Flow(Flow::EndIf) if depth == 0 => {
                let next_closes = matches!(
                    items.get(k + 1),
                    Some(Item::Flow(Flow::Else | Flow::EndIf | Flow::EndLoop))
                );
                return words && !next_closes;
            }
            Item::Flow(Flow::EndIf) => depth -= 1,
            Item::Instr(_) => words = true,
            Item::Flow(_) => {}
        }
    }
    false
}

/// Lays out `items` (END not included).
pub fn layout(items: &[Item]) -> Result<Vec<Instr>, Diagnostic> {
    let mut out: Vec<Instr> = Vec::with_capacity(items.len() + 8);
    let mut stack: Vec<Open> = Vec::new();
    // out.len() when the last block closed.
    let mut last_close: Option<usize> = None;
    let addr = |n: usize| -> Result<u16, Diagnostic> {
        u16::try_from(n)
            .ok()
            .filter(|&a| a < 4096)
            .ok_or_else(|| Diagnostic::limit("flow-control target beyond word 4095"))
    };
    // The NOP rules before closing a block whose body starts at `body`.
    let pad = |out: &mut Vec<Instr>, body: usize, last_close: Option<usize>, is_loop: bool| {
        let empty = out.len() == body;
        let stacked = last_close == Some(out.len());
        let break_last = is_loop
            && matches!(out.last(), Some(Instr::CondFlow { op, .. }) if *op == Opcode::Breakc);
        // Rule 1: a block ending in a jump or a call (a conditional call of the outliner).
        let jump_last = matches!(
            out.last(),
            Some(
                Instr::CondFlow {
                    op: Opcode::Call | Opcode::Callc | Opcode::Jmpc,
                    ..
                } | Instr::UniformFlow {
                    op: Opcode::Callu | Opcode::Jmpu,
                    ..
                }
            )
        );
        if empty || stacked || break_last || jump_last {
            out.push(Instr::NOP);
        }
    };
    for (n, item) in items.iter().enumerate() {
        match *item {
            Item::Instr(i) => {
                // LITP sets cmp.x too: the lowering's "no break" reset at the end of a body.
                if let Instr::Unary {
                    op: Opcode::Litp, ..
                } = i
                {
                    if let Some(Open::Loop {
                        cmp_after_break, ..
                    }) = stack
                        .iter_mut()
                        .rev()
                        .find(|o| matches!(o, Open::Loop { .. }))
                    {
                        *cmp_after_break = false;
                    }
                }
                if matches!(i, Instr::Cmp { .. }) {
                    for o in stack.iter_mut() {
                        if let Open::Loop {
                            cmp_after_break,
                            breaks,
                            ..
                        } = o
                        {
                            *cmp_after_break |= *breaks > 0;
                        }
                    }
                }
                out.push(i);
            }
            Item::Flow(Flow::Cmp(..)) => {
                return Err(Diagnostic::internal(None, "CMP marker without instruction"))
            }
            Item::Flow(Flow::If(IfCond::Bool(id))) if jump_over(items, n) => {
                stack.push(Open::JumpOver { at: out.len() });
                out.push(Instr::UniformFlow {
                    op: Opcode::Jmpu,
                    id,
                    dst: 0,
                    num: 0,
                });
            }
            Item::Flow(Flow::If(IfCond::Cmp(v))) if jump_past(items, n) => {
                stack.push(Open::JumpOver { at: out.len() });
                out.push(Instr::CondFlow {
                    op: Opcode::Jmpc,
                    cond: Cond::x(!v),
                    dst: 0,
                    num: 0,
                });
            }
            Item::Flow(Flow::Else) if matches!(stack.last(), Some(Open::JumpOver { .. })) => {}
            Item::Flow(Flow::EndIf) if matches!(stack.last(), Some(Open::JumpOver { .. })) => {
                let Some(Open::JumpOver { at }) = stack.pop() else {
                    unreachable!("matched above")
                };
                let end = out.len();
                if let Instr::UniformFlow { dst, .. } | Instr::CondFlow { dst, .. } = &mut out[at] {
                    *dst = addr(end)?;
                }
            }
            Item::Flow(Flow::If(c)) => {
                // §9: the IF stack holds 8 entries; a ninth would silently drop the oldest.
                if stack
                    .iter()
                    .filter(|o| matches!(o, Open::If { .. }))
                    .count()
                    >= IF_STACK
                {
                    return Err(Diagnostic::limit(format!(
                        "ifs nested deeper than the {IF_STACK}-entry IF stack"
                    )));
                }
                stack.push(Open::If {
                    at: out.len(),
                    body: out.len() + 1,
                    else_at: None,
                });
                out.push(match c {
                    IfCond::Cmp(v) => Instr::CondFlow {
                        op: Opcode::Ifc,
                        cond: Cond::x(v),
                        dst: 0,
                        num: 0,
                    },
                    IfCond::Bool(id) => Instr::UniformFlow {
                        op: Opcode::Ifu,
                        id,
                        dst: 0,
                        num: 0,
                    },
                });
            }
            Item::Flow(Flow::Else) => {
                let Some(Open::If { body, else_at, .. }) = stack.last_mut() else {
                    return Err(Diagnostic::internal(None, "else outside an if"));
                };
                let b = *body;
                pad(&mut out, b, last_close, false);
                *else_at = Some(out.len());
                *body = out.len();
                last_close = Some(out.len());
            }
            Item::Flow(Flow::EndIf) => {
                let Some(Open::If { at, body, else_at }) = stack.pop() else {
                    return Err(Diagnostic::internal(None, "endif outside an if"));
                };
                pad(&mut out, body, last_close, false);
                let end = out.len();
                let (dst, num) = match else_at {
                    None => (end, 0),
                    Some(e) => (
                        e,
                        u8::try_from(end - e).map_err(|_| {
                            Diagnostic::limit("an else-body longer than 255 words (NUM has 8 bits)")
                        })?,
                    ),
                };
                if let Instr::CondFlow { dst: d, num: n, .. }
                | Instr::UniformFlow { dst: d, num: n, .. } = &mut out[at]
                {
                    *d = addr(dst)?;
                    *n = num;
                }
                last_close = Some(end);
            }
            Item::Flow(Flow::Loop(LoopKind::Counted(id))) => {
                stack.push(Open::Counted {
                    at: out.len(),
                    body: out.len() + 1,
                });
                out.push(Instr::UniformFlow {
                    op: Opcode::Loop,
                    id,
                    dst: 0,
                    num: 0,
                });
            }
            Item::Flow(Flow::Break(v))
                if matches!(
                    stack
                        .iter()
                        .rev()
                        .find(|o| matches!(o, Open::Loop { .. } | Open::Counted { .. })),
                    Some(Open::Counted { .. })
                ) =>
            {
                out.push(Instr::CondFlow {
                    op: Opcode::Breakc,
                    cond: Cond::x(v),
                    dst: 0,
                    num: 0,
                });
            }
            Item::Flow(Flow::EndLoop) if matches!(stack.last(), Some(Open::Counted { .. })) => {
                let Some(Open::Counted { at, body }) = stack.pop() else {
                    unreachable!("matched above")
                };
                pad(&mut out, body, last_close, true);
                let end = out.len() - 1;
                if let Instr::UniformFlow { dst, .. } = &mut out[at] {
                    *dst = addr(end)?;
                }
                last_close = Some(out.len());
            }
            Item::Flow(Flow::Loop(LoopKind::Pair)) => {
                let outer = out.len();
                let uniform = Instr::UniformFlow {
                    op: Opcode::Loop,
                    id: LOOP_UNIFORM,
                    dst: 0,
                    num: 0,
                };
                out.push(uniform);
                out.push(uniform);
                stack.push(Open::Loop {
                    outer,
                    inner: outer + 1,
                    body: outer + 2,
                    polarity: None,
                    cmp_after_break: false,
                    breaks: 0,
                });
            }
            Item::Flow(Flow::Break(v)) => {
                let Some(Open::Loop {
                    polarity,
                    cmp_after_break,
                    breaks,
                    ..
                }) = stack
                    .iter_mut()
                    .rev()
                    .find(|o| matches!(o, Open::Loop { .. }))
                else {
                    return Err(Diagnostic::internal(None, "break outside a loop"));
                };
                if polarity.is_some_and(|p| p != v) {
                    return Err(unsupported(
                        "a loop whose breaks test opposite conditions (the outer LOOP of the \
                         65,536-iteration pair cannot tell whether the inner one broke)",
                    ));
                }
                *polarity = Some(v);
                *cmp_after_break = false;
                *breaks += 1;
                out.push(Instr::CondFlow {
                    op: Opcode::Breakc,
                    cond: Cond::x(v),
                    dst: 0,
                    num: 0,
                });
            }
            Item::Flow(Flow::EndLoop) => {
                let Some(Open::Loop {
                    outer,
                    inner,
                    body,
                    polarity,
                    cmp_after_break,
                    ..
                }) = stack.pop()
                else {
                    return Err(Diagnostic::internal(None, "endloop closes no loop"));
                };
                let Some(v) = polarity else {
                    return Err(unsupported("a loop without a conditional exit"));
                };
                if cmp_after_break {
                    return Err(unsupported(
                        "a loop with a comparison after its last break (the outer LOOP of the \
                         65,536-iteration pair cannot tell whether the inner one broke)",
                    ));
                }
                pad(&mut out, body, last_close, true);
                let inner_end = out.len() - 1;
                if let Instr::UniformFlow { dst, .. } = &mut out[inner] {
                    *dst = addr(inner_end)?;
                }
                out.push(Instr::CondFlow {
                    op: Opcode::Breakc,
                    cond: Cond::x(v),
                    dst: 0,
                    num: 0,
                });
                // The outer body ends in that BREAKC: a NOP (§9 rule 2).
                out.push(Instr::NOP);
                let outer_end = out.len() - 1;
                if let Instr::UniformFlow { dst, .. } = &mut out[outer] {
                    *dst = addr(outer_end)?;
                }
                last_close = Some(out.len());
            }
        }
    }
    if !stack.is_empty() {
        return Err(Diagnostic::internal(None, "unclosed if or loop"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` ifs nested in each other's then-arm, each with an else-arm (no JMPC possible).
    fn nested_ifs(n: usize) -> Vec<Item> {
        let mut items = vec![Item::Instr(Instr::NOP)];
        for _ in 0..n {
            let mut outer = vec![Item::Flow(Flow::If(IfCond::Cmp(true)))];
            outer.append(&mut items);
            outer.extend([
                Item::Flow(Flow::Else),
                Item::Instr(Instr::NOP),
                Item::Flow(Flow::EndIf),
            ]);
            items = outer;
        }
        items
    }

    #[test]
    fn ifs_nest_as_deep_as_the_if_stack_and_no_deeper() {
        let eight = layout(&nested_ifs(IF_STACK)).expect("8 nested ifs fit");
        assert_eq!(
            eight
                .iter()
                .filter(|i| matches!(
                    i,
                    Instr::CondFlow {
                        op: Opcode::Ifc,
                        ..
                    }
                ))
                .count(),
            IF_STACK
        );
        let nine = layout(&nested_ifs(IF_STACK + 1)).expect_err("9 nested ifs do not");
        assert!(nine.to_string().contains("IF stack"), "{nine}");
    }

    #[test]
    fn an_if_without_else_followed_by_code_is_a_jmpc_past_its_body() {
        // if (cmp.x) { nop; nop } nop  →  jmpc !cmp.x, 3; nop; nop; nop
        let items = [
            Item::Flow(Flow::If(IfCond::Cmp(true))),
            Item::Instr(Instr::NOP),
            Item::Instr(Instr::NOP),
            Item::Flow(Flow::EndIf),
            Item::Instr(Instr::NOP),
        ];
        let out = layout(&items).expect("lays out");
        assert_eq!(out.len(), 4);
        assert_eq!(
            out[0],
            Instr::CondFlow {
                op: Opcode::Jmpc,
                cond: Cond::x(false),
                dst: 3,
                num: 0,
            }
        );
        // The inner if closes right before the outer one: a jump past it would skip the word
        // that pops the outer IF stack entry, so the inner stays IFC (the outer, last, jumps).
        let nested = [
            Item::Flow(Flow::If(IfCond::Cmp(true))),
            Item::Flow(Flow::If(IfCond::Cmp(false))),
            Item::Instr(Instr::NOP),
            Item::Flow(Flow::EndIf),
            Item::Flow(Flow::EndIf),
        ];
        let out = layout(&nested).expect("lays out");
        assert!(matches!(
            out[0],
            Instr::CondFlow {
                op: Opcode::Jmpc,
                dst: 3,
                ..
            }
        ));
        assert!(matches!(
            out[1],
            Instr::CondFlow {
                op: Opcode::Ifc,
                dst: 3,
                ..
            }
        ));
    }

    #[test]
    fn a_counted_loop_is_one_loop_word_ending_at_its_last_instruction() {
        let items = [
            Item::Flow(Flow::Loop(LoopKind::Counted(2))),
            Item::Instr(Instr::NOP),
            Item::Instr(Instr::END),
            Item::Flow(Flow::EndLoop),
        ];
        let out = layout(&items).expect("lays out");
        assert_eq!(out.len(), 3);
        assert!(matches!(
            out[0],
            Instr::UniformFlow {
                op: Opcode::Loop,
                id: 2,
                dst: 2,
                ..
            }
        ));
    }
}
