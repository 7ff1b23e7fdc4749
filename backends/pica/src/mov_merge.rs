//! Adjacent MOVs merged after register allocation: `mov o0.x, r3.w` + `mov o0.y, r3.z` →
//! `mov o0.xy, r3.wz`.
//!
//! The lowering builds a vector from component sources with one MOV per source register
//! (`Lower::copy_into`); scalars computed into separate virtual registers need one MOV each,
//! even when the allocator then places them in lanes of one physical register. Two MOVs in a
//! row with the same destination register, disjoint masks and the same source register, sign
//! and relative index become one: MOV is component-wise, so lane `j` of the merged swizzle is the
//! selector lane `j` had in the MOV that wrote it. The second MOV must not read what the first
//! writes (then the merged one would read the old value).

use crate::flow_emit::Item;
use crate::instr::{DstReg, Instr, Mask, Src, SrcReg, Swizzle};
use crate::isa::Opcode;

/// Merges runs of adjacent MOVs (flow markers end a run).
pub fn merge_movs(items: &mut Vec<Item>) {
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    for &item in items.iter() {
        if let (Some(Item::Instr(a)), Item::Instr(b)) = (out.last(), item) {
            if let Some(m) = merged(*a, b) {
                *out.last_mut().expect("non-empty") = Item::Instr(m);
                continue;
            }
        }
        out.push(item);
    }
    *items = out;
}

fn merged(a: Instr, b: Instr) -> Option<Instr> {
    let (
        Instr::Unary {
            op: Opcode::Mov,
            dst: da,
            src: sa,
            index: ia,
        },
        Instr::Unary {
            op: Opcode::Mov,
            dst: db,
            src: sb,
            index: ib,
        },
    ) = (a, b)
    else {
        return None;
    };
    if da.reg != db.reg
        || da.mask.0 & db.mask.0 != 0
        || (sa.reg, sa.negate, ia) != (sb.reg, sb.negate, ib)
    {
        return None;
    }
    // b reads a register a writes: only lanes a does not write.
    if let (DstReg::Temp(d), SrcReg::Temp(s)) = (da.reg, sb.reg) {
        if d == s && (0..4).any(|j| db.mask.has(j) && da.mask.has(sb.swizzle.comp(j))) {
            return None;
        }
    }
    let comps = [0, 1, 2, 3].map(|j| {
        let from = if da.mask.has(j) { sa } else { sb };
        from.swizzle.comp(j) as u8
    });
    let mut dst = da;
    dst.mask = Mask(da.mask.0 | db.mask.0);
    Some(Instr::Unary {
        op: Opcode::Mov,
        dst,
        src: Src {
            swizzle: Swizzle::new(comps),
            ..sa
        },
        index: ia,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::Dst;
    use crate::isa::AddrIndex;

    fn mov(dst: DstReg, mask: u8, src: SrcReg, swz: [u8; 4]) -> Item {
        Item::Instr(Instr::Unary {
            op: Opcode::Mov,
            dst: Dst::new(dst, Mask(mask)),
            src: Src::new(src).swz(Swizzle::new(swz)),
            index: AddrIndex::None,
        })
    }

    /// o0 = r3.wzyx written lane by lane: one MOV with mask xyzw and swizzle wzyx.
    #[test]
    fn lanes_of_one_register_become_one_mov() {
        let (o0, r3) = (DstReg::Output(0), SrcReg::Temp(3));
        let mut items = vec![
            mov(o0, 0b1000, r3, [3; 4]),
            mov(o0, 0b0100, r3, [2; 4]),
            mov(o0, 0b0010, r3, [1; 4]),
            mov(o0, 0b0001, r3, [0; 4]),
        ];
        merge_movs(&mut items);
        assert_eq!(items, vec![mov(o0, 0b1111, r3, [3, 2, 1, 0])]);
    }

    /// `mov r0.x, r0.y; mov r0.y, r0.x` swaps nothing: the second reads the first's result.
    #[test]
    fn reading_the_first_result_stays_apart() {
        let (r0d, r0s) = (DstReg::Temp(0), SrcReg::Temp(0));
        let mut items = vec![mov(r0d, 0b1000, r0s, [1; 4]), mov(r0d, 0b0100, r0s, [0; 4])];
        let before = items.clone();
        merge_movs(&mut items);
        assert_eq!(items, before);
    }

    /// Different source registers or signs stay two MOVs.
    #[test]
    fn different_sources_stay_apart() {
        let o1 = DstReg::Output(1);
        let mut items = vec![
            mov(o1, 0b1000, SrcReg::Temp(1), [0; 4]),
            mov(o1, 0b0100, SrcReg::Temp(2), [0; 4]),
        ];
        let before = items.clone();
        merge_movs(&mut items);
        assert_eq!(items, before);
    }
}
