//! The allocation checker on every compiled program: [`crate::regalloc`]'s lane packing is
//! proven with the shared checker of the machine layer ([`irc_backend::regalloc::check`], a
//! symbolic execution that proves every read finds the value it expects).
//!
//! The shared allocator model gives a value *consecutive* lanes (`lane + i`), while AGAL's lane
//! packing puts the components of one value in any free lanes (`xw`, `yz`, …: a swizzle
//! reorders them for free), which is what lets 8 temporaries hold more. So the shared
//! allocator does not fit, but its checker does, one scalar at a time: every component of a
//! virtual register becomes a one-component virtual register of the checker's program, located
//! at the register and lane the packing gave it; each machine op reads the components its
//! operands name and writes the components of its destination (reads before writes, as the
//! hardware reads every source before writing). Conditionals (`if`/`els`/`eif`) split the
//! program into the checker's blocks: the block ending in the `if` flows into the then arm and
//! the else arm (or past `eif`), the then arm past `eif`.

use irc_backend::regalloc::{self, Access, Block, Loc, Point, Program, RegFile, VReg, VRegInfo};
use irc_backend::Diagnostic;

use crate::isa::OpClass;
use crate::lower::{Base, MDst, MProgram};

fn unbalanced(what: &str) -> Diagnostic {
    Diagnostic::internal(None, format!("unbalanced conditional at `{what}`"))
}
use crate::regalloc::Allocation;

/// Checks that `alloc` is a correct allocation of `prog` in `temps` temporaries.
pub fn check(prog: &MProgram, alloc: &Allocation, temps: u32) -> Result<(), Diagnostic> {
    // Scalar virtual register of component `c` of `v`: 4·v + c.
    let scalar = |v: u32, c: u8| VReg(4 * v + u32::from(c));
    let mut blocks = vec![Block::default()];
    // Open conditionals: (block ending in the `if`, block ending the then arm).
    let mut open: Vec<(usize, Option<usize>)> = Vec::new();
    for ins in &prog.insts {
        let mut p = Point::default();
        for s in &ins.srcs {
            if let Base::V(v) = s.base {
                for &c in &s.comps {
                    p.uses.push(Access::new(scalar(v, c), 0, 1));
                }
            }
        }
        if let MDst::V { v, first, n } = ins.dst {
            for c in first..first + n {
                p.defs.push(Access::new(scalar(v, c), 0, 1));
            }
        }
        let cur = blocks.len() - 1;
        blocks[cur].points.push(p);
        let next = cur + 1;
        match ins.op.class() {
            OpClass::If => {
                blocks[cur].succs.push(next);
                open.push((cur, None));
            }
            OpClass::Else => {
                let &(head, _) = open.last().ok_or_else(|| unbalanced("els"))?;
                blocks[head].succs.push(next);
                open.last_mut().expect("checked").1 = Some(cur);
            }
            OpClass::EndIf => {
                let (head, then_end) = open.pop().ok_or_else(|| unbalanced("eif"))?;
                match then_end {
                    Some(t) => blocks[t].succs.push(next),
                    None => blocks[head].succs.push(next),
                }
                blocks[cur].succs.push(next);
            }
            _ => continue,
        }
        blocks.push(Block::default());
    }
    if !open.is_empty() {
        return Err(unbalanced("if"));
    }
    let mut vregs = Vec::with_capacity(4 * prog.vregs.len());
    let mut locs = Vec::with_capacity(4 * prog.vregs.len());
    for (v, _) in prog.vregs.iter().enumerate() {
        let place = alloc.locs.get(v).copied().flatten();
        for c in 0..4 {
            vregs.push(VRegInfo::new(1));
            locs.push(place.map(|(reg, lanes)| Loc {
                reg: reg as u8,
                lane: lanes[c],
            }));
        }
    }
    let program = Program { blocks, vregs };
    let allocation = regalloc::Allocation {
        locs,
        registers_used: alloc.registers as u8,
    };
    let file = RegFile {
        registers: temps.min(255) as u8,
        lanes: 4,
    };
    regalloc::check(&file, &program, &allocation).map_err(|e| {
        Diagnostic::internal(
            None,
            format!("the register allocation checker rejects the lane packing: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Opcode;
    use crate::lower::{MInst, MSrc, VRegInfo as MVReg};

    /// `v0 = in0 + in0; v1 = v0 · v0; out = v1`, two 4-component values.
    fn program() -> MProgram {
        let inst = |op, dst, srcs| MInst {
            op,
            dst,
            srcs,
            sampler: None,
            indirect: None,
        };
        let whole = |base| MSrc {
            base,
            comps: vec![0, 1, 2, 3],
        };
        let full = |v| MDst::V { v, first: 0, n: 4 };
        MProgram {
            insts: vec![
                inst(
                    Opcode::Add,
                    full(0),
                    vec![whole(Base::Input(0)), whole(Base::Input(0))],
                ),
                inst(
                    Opcode::Mul,
                    full(1),
                    vec![whole(Base::V(0)), whole(Base::V(0))],
                ),
                inst(
                    Opcode::Mov,
                    MDst::Out {
                        kind: crate::lower::OutKind::Output,
                        index: 0,
                    },
                    vec![whole(Base::V(1))],
                ),
            ],
            vregs: vec![
                MVReg {
                    width: 4,
                    fixed: false
                };
                2
            ],
            needs_v2: false,
        }
    }

    #[test]
    fn the_allocator_passes_the_checker() {
        let p = program();
        let a = crate::regalloc::allocate(&p, 8).unwrap();
        check(&p, &a, 8).unwrap();
    }

    #[test]
    fn values_sharing_a_live_lane_are_caught() {
        let mut p = program();
        // v0 is still read after v1 is written: they may not share lanes.
        p.insts.push(MInst {
            op: Opcode::Mov,
            dst: MDst::Out {
                kind: crate::lower::OutKind::Varying,
                index: 0,
            },
            srcs: vec![MSrc {
                base: Base::V(0),
                comps: vec![0, 1, 2, 3],
            }],
            sampler: None,
            indirect: None,
        });
        let mut a = crate::regalloc::allocate(&p, 8).unwrap();
        check(&p, &a, 8).unwrap();
        a.locs[1] = a.locs[0];
        let e = check(&p, &a, 8).unwrap_err();
        assert!(e.to_string().contains("checker"), "{e}");
    }
}
