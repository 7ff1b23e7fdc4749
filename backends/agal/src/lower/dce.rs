//! Dead machine ops: a write of a virtual register that no op reads (a pattern such as
//! [`super::geometry`]'s `nrm` leaves the `dp3`/`rsq` it replaced; a value the outputs do not
//! need). Flow-insensitive: a register read anywhere keeps all its writes. Ops without a
//! register destination (outputs, `kil`, conditionals) always stay.
//!
//! The result is the fixed point of "remove every op whose register no remaining op reads",
//! reached in linear time: each register counts the operands that read it, and removing an op
//! releases its operands' counts; a register whose count drops to zero kills its writers in
//! turn. (Re-scanning the program until nothing changes was quadratic in the length of a dead
//! chain: about 0.7 s for one fuzz program.)

use rustc_hash::FxHashMap;

use super::{Base, MDst, MProgram};

/// Removes the dead ops of `p`.
pub fn remove_dead(p: &mut MProgram) {
    let mut reads: FxHashMap<u32, u32> = FxHashMap::default();
    let mut writers: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (k, inst) in p.insts.iter().enumerate() {
        for s in &inst.srcs {
            if let Base::V(v) = s.base {
                *reads.entry(v).or_default() += 1;
            }
        }
        if let MDst::V { v, .. } = inst.dst {
            writers.entry(v).or_default().push(k);
        }
    }
    let mut unread: Vec<u32> = writers
        .keys()
        .copied()
        .filter(|v| !reads.contains_key(v))
        .collect();
    let mut dead = vec![false; p.insts.len()];
    while let Some(v) = unread.pop() {
        for &k in writers.get(&v).into_iter().flatten() {
            if std::mem::replace(&mut dead[k], true) {
                continue;
            }
            for s in &p.insts[k].srcs {
                let Base::V(u) = s.base else { continue };
                if let Some(n) = reads.get_mut(&u) {
                    *n -= 1;
                    if *n == 0 {
                        unread.push(u);
                    }
                }
            }
        }
    }
    let mut k = 0;
    p.insts.retain(|_| {
        k += 1;
        !dead[k - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Opcode;
    use crate::lower::{MInst, MSrc, OutKind};

    fn inst(op: Opcode, dst: MDst, srcs: &[Base]) -> MInst {
        MInst {
            op,
            dst,
            srcs: srcs
                .iter()
                .map(|&base| MSrc {
                    base,
                    comps: vec![0],
                })
                .collect(),
            sampler: None,
            indirect: None,
        }
    }

    fn v(v: u32) -> MDst {
        MDst::V { v, first: 0, n: 1 }
    }

    #[test]
    fn removes_a_whole_dead_chain_and_keeps_what_reaches_an_output() {
        let out = MDst::Out {
            kind: OutKind::Output,
            index: 0,
        };
        let mut p = MProgram::default();
        // v0 = c0; v1..v99 = v(k-1) + c0: a chain nothing reads; v100 feeds the output.
        p.insts.push(inst(Opcode::Mov, v(0), &[Base::Const(0)]));
        for k in 1..100 {
            p.insts
                .push(inst(Opcode::Add, v(k), &[Base::V(k - 1), Base::Const(0)]));
        }
        p.insts.push(inst(Opcode::Mov, v(100), &[Base::Input(0)]));
        p.insts.push(inst(Opcode::Mov, out, &[Base::V(100)]));
        // A cycle (v101 ← v102 ← v101) stays: each is read (flow-insensitive).
        p.insts.push(inst(Opcode::Mov, v(101), &[Base::V(102)]));
        p.insts.push(inst(Opcode::Mov, v(102), &[Base::V(101)]));
        remove_dead(&mut p);
        let dsts: Vec<MDst> = p.insts.iter().map(|i| i.dst).collect();
        assert_eq!(dsts, vec![v(100), out, v(101), v(102)]);
    }
}
