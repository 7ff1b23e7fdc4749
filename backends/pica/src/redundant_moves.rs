//! Redundant constant copies removed after register allocation: `mov r1, c0.x` when r1 still
//! holds `c0.x` from an earlier identical MOV.
//!
//! The lowering copies a uniform or literal to a fresh temporary wherever two meet in one
//! instruction (one `c` register per instruction, §11), and the same input `v` where two
//! distinct inputs meet. The allocator often gives those copies one register, so a chain of
//! `x · 0.5 + 0.5` becomes `mov r1, c0.x; mad r0, r0, c0.x, r1` repeated. Uniforms, literals
//! and inputs never change while the shader runs, so a MOV writing exactly what its destination
//! already holds does nothing. What a register holds is tracked within straight-line code: a
//! flow marker (an if or loop boundary, or a break) forgets everything, and any other write to
//! a temporary forgets what it held.

use crate::flow_emit::Item;
use crate::instr::{Dst, DstReg, Instr, Src, SrcReg};
use crate::isa::{AddrIndex, Opcode};

/// Removes MOVs of a uniform, literal or input into a temporary that already holds it.
pub fn remove_redundant_moves(items: &mut Vec<Item>) {
    // held[r]: the (destination, source) of the last MOV of an unchanging register into r.
    let mut held: [Option<(Dst, Src)>; 16] = [None; 16];
    items.retain(|item| {
        let Item::Instr(i) = item else {
            held = [None; 16];
            return true;
        };
        if let Instr::Unary {
            op: Opcode::Mov,
            dst: dst @ Dst {
                reg: DstReg::Temp(r),
                ..
            },
            src,
            index: AddrIndex::None,
        } = *i
        {
            if matches!(src.reg, SrcReg::Const(_) | SrcReg::Input(_)) {
                let slot = &mut held[usize::from(r & 15)];
                if *slot == Some((dst, src)) {
                    return false;
                }
                *slot = Some((dst, src));
                return true;
            }
        }
        if let Some(r) = i.written_temp() {
            held[usize::from(r & 15)] = None;
        }
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::Mask;
    use crate::lower::mir::Flow;

    fn mov(r: u8, src: SrcReg) -> Item {
        Item::Instr(Instr::Unary {
            op: Opcode::Mov,
            dst: Dst::new(DstReg::Temp(r), Mask::XYZW),
            src: Src::new(src),
            index: AddrIndex::None,
        })
    }

    fn mad(r: u8) -> Item {
        Item::Instr(Instr::Mad {
            inverted: false,
            dst: Dst::new(DstReg::Temp(r), Mask::XYZW),
            src1: Src::new(SrcReg::Temp(r)),
            src2: Src::new(SrcReg::Const(0)),
            src3: Src::new(SrcReg::Temp(1)),
            index: AddrIndex::None,
        })
    }

    #[test]
    fn a_copy_still_held_is_dropped_and_one_overwritten_is_kept() {
        let c0 = SrcReg::Const(0);
        let mut items = vec![mov(1, c0), mad(0), mov(1, c0), mad(0), mad(1), mov(1, c0)];
        remove_redundant_moves(&mut items);
        // The second MOV goes (r1 still holds c0); the third stays (the MAD wrote r1).
        assert_eq!(items, vec![mov(1, c0), mad(0), mad(0), mad(1), mov(1, c0)]);
    }

    #[test]
    fn flow_markers_forget_what_registers_hold() {
        let c0 = SrcReg::Const(0);
        let mut items = vec![mov(1, c0), Item::Flow(Flow::EndIf), mov(1, c0)];
        let before = items.clone();
        remove_redundant_moves(&mut items);
        assert_eq!(items, before);
    }
}
