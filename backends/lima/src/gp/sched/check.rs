//! The register checker of a GP schedule: the machine layer's allocation checker
//! ([`irc_backend::regalloc::check`]) run on a description of the final instructions, so that a
//! register or temporary the scheduler reuses too early is a compile-time error, not only a
//! stale read in the strict simulator.
//!
//! The scheduler reports what it meant: every value it kept past its forwarding window
//! ([`Kept`]: the register or temporary component and the store's instruction) and every read
//! of such a value ([`Read`]: the instruction whose load port read it and which port). The
//! stores are taken from the encoded instructions, not from the scheduler: each register
//! store (or temporary store, whose address is the `addr0` the same instruction sets from an
//! address literal) becomes a write of the value kept there, or of an unknown value when the
//! scheduler kept nothing there. The physical component of every read and store is compared with
//! where the scheduler says the value lives.
//!
//! **Latency as two writes.** A store at instruction `c` is visible to loads from `c + L`
//! (`L` = 3 for registers, 4 for temporaries, reference §9), and a load in between reads neither
//! value reliably (the strict simulator's reading). So the store writes an anonymous
//! *in-flight* value into the component at instruction `c` (after that instruction's reads) and
//! the kept (or an unknown) value at instruction `c + L − 1` (after its reads): a read of the old value or of the
//! new one inside the window finds the in-flight value and is reported, as is a value clobbered
//! by a later store while still read. One allocator point per instruction; reads at stage 0,
//! writes at stage 1.

use irc_backend::machine::describe::{ProgramBuilder, VRegShape};
use irc_backend::regalloc::{self, Access, Allocation, Loc, Point, RegFile, VReg};

use super::super::instr::Instruction;
use super::super::isa::{ComplexOp, LoadOffset, SrcClass, REGISTERS};
use super::super::mir::NodeId;

/// A storage file values are kept in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum File {
    /// The 16 vec4 registers.
    Reg,
    /// Temporaries (uniform/temporary space, vec4 index).
    Temp,
}

impl File {
    /// Instructions from a store to the first load that sees it (reference §9).
    pub fn latency(self) -> u32 {
        match self {
            File::Reg => 3,
            File::Temp => 4,
        }
    }
}

/// The load port that read a kept value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Port {
    Reg0,
    Reg1,
    /// The uniform/temporary load unit.
    Load,
}

/// A value the scheduler kept in a register or temporary component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    pub value: NodeId,
    pub file: File,
    /// Register, or temporary vec4 index.
    pub index: u16,
    pub comp: u8,
    pub store_cycle: u32,
}

/// A read of a kept value by the load port `port` of instruction `load_cycle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub value: NodeId,
    pub load_cycle: u32,
    pub port: Port,
    pub comp: u8,
}

/// Address literals of the temporary stores: `(first uniform slot, vec4s)`.
pub type AddrLiterals<'a> = (u32, &'a [[f32; 4]]);

/// Checks the kept values of `instrs` in both files (module doc).
pub fn check(
    instrs: &[Instruction],
    kept: &[Kept],
    reads: &[Read],
    literals: AddrLiterals,
) -> Result<(), String> {
    for (c, ins) in instrs.iter().enumerate() {
        let regs = ins
            .store
            .iter()
            .any(|s| s.active() && !s.varying && !s.temporary);
        if regs && c + 2 >= instrs.len() {
            return Err(format!(
                "instruction {c}: register store in the last 2 instructions of the program"
            ));
        }
    }
    check_file(instrs, kept, reads, literals, File::Reg)?;
    check_file(instrs, kept, reads, literals, File::Temp)
}

/// The temporary index `addr0` holds at instruction `c` (set by the same instruction).
fn addr0(ins: &Instruction, c: usize, (base, lits): AddrLiterals) -> Result<u16, String> {
    let known = ins.complex_op == ComplexOp::TempStoreAddr
        && ins.complex_src.class() == SrcClass::Load
        && ins.load_offset == LoadOffset::None;
    let lit = u32::from(ins.load_addr)
        .checked_sub(base)
        .and_then(|i| lits.get(i as usize))
        .map(|l| l[usize::from(ins.complex_src.component())]);
    match lit {
        Some(x) if known && x >= 0.0 && x.fract() == 0.0 && x < 512.0 => Ok(x as u16),
        _ => Err(format!(
            "instruction {c}: temporary store without addr0 set from an address literal"
        )),
    }
}

fn check_file(
    instrs: &[Instruction],
    kept: &[Kept],
    reads: &[Read],
    literals: AddrLiterals,
    file: File,
) -> Result<(), String> {
    let kept: Vec<&Kept> = kept.iter().filter(|k| k.file == file).collect();
    if kept.is_empty() && file == File::Temp {
        return Ok(());
    }
    let base = match file {
        File::Reg => 0,
        File::Temp => kept.iter().map(|k| k.index).min().unwrap_or(0),
    };
    let loc = |index: u16, comp: u8| -> Result<Loc, String> {
        let reg = u8::try_from(index.wrapping_sub(base))
            .map_err(|_| format!("{file:?} index {index} outside the checked range"))?;
        Ok(Loc { reg, lane: comp })
    };
    let lat = file.latency() as usize;
    let mut points = vec![Point::default(); instrs.len() + lat];
    let mut locs: Vec<Option<Loc>> = Vec::new();
    for k in &kept {
        locs.push(Some(loc(k.index, k.comp)?));
    }
    let vreg_of = |v: NodeId| kept.iter().position(|k| k.value == v);
    // Stores, from the instructions.
    for (c, ins) in instrs.iter().enumerate() {
        for (u, st) in ins.store.iter().enumerate() {
            let ours = match file {
                File::Reg => !st.varying && !st.temporary,
                File::Temp => st.temporary,
            };
            if !st.active() || !ours {
                continue;
            }
            let index = match file {
                File::Reg => u16::from(st.addr),
                File::Temp => addr0(ins, c, literals)?,
            };
            for (j, s) in st.src.iter().enumerate() {
                if s.unit().is_none() {
                    continue;
                }
                let comp = (2 * u + j) as u8;
                let here = loc(index, comp)?;
                let anon = VReg(locs.len() as u32);
                locs.push(Some(here));
                points[c].defs.push(Access::new(anon, 1, 1));
                let owner = kept.iter().position(|k| {
                    k.store_cycle as usize == c && k.index == index && k.comp == comp
                });
                // What becomes visible: the kept value, or an unknown one.
                let landed = match owner {
                    Some(i) => VReg(i as u32),
                    None => {
                        locs.push(Some(here));
                        VReg(locs.len() as u32 - 1)
                    }
                };
                points[c + lat - 1].defs.push(Access::new(landed, 1, 1));
            }
        }
    }
    // Reads, as the scheduler placed them, at the component the instruction loads.
    let want = match file {
        File::Reg => [Port::Reg0, Port::Reg1],
        File::Temp => [Port::Load, Port::Load],
    };
    for r in reads.iter().filter(|r| want.contains(&r.port)) {
        let Some(v) = vreg_of(r.value) else {
            return Err(format!(
                "instruction {}: a {file:?} read of node {} that was never kept",
                r.load_cycle, r.value
            ));
        };
        let c = r.load_cycle as usize;
        let ins = instrs
            .get(c)
            .ok_or_else(|| format!("a read at instruction {c}, past the end"))?;
        let index = match r.port {
            Port::Reg0 if ins.reg0_attribute => {
                return Err(format!(
                    "instruction {c}: node {} read from an attribute load",
                    r.value
                ))
            }
            Port::Reg0 => u16::from(ins.reg0_addr),
            Port::Reg1 => u16::from(ins.reg1_addr),
            Port::Load => ins.load_addr,
        };
        let at = loc(index, r.comp)?;
        if locs[v] != Some(at) {
            return Err(format!(
                "instruction {c}: node {} read from {file:?} {index}.{} but kept at {:?}",
                r.value, r.comp, locs[v]
            ));
        }
        points[c].uses.push(Access::new(VReg(v as u32), 0, 1));
    }
    let mut b = ProgramBuilder::new(locs.len());
    b.block(Vec::new(), 0);
    for p in points {
        b.point(p);
    }
    let program = b.finish(|_| VRegShape {
        size: 1,
        lane0: false,
        no_spill: false,
    });
    let used = locs.iter().flatten().map(|l| l.reg + 1).max().unwrap_or(0);
    let regfile = RegFile {
        registers: match file {
            File::Reg => REGISTERS as u8,
            File::Temp => used,
        },
        lanes: 4,
    };
    let alloc = Allocation {
        locs,
        registers_used: used,
    };
    regalloc::check(&regfile, &program, &alloc).map_err(|e| format!("{file:?} check: {e}"))
}

#[cfg(test)]
mod tests {
    use super::super::super::isa::{Src, StoreSrc};
    use super::*;

    /// `n` instructions; instruction 0 computes `a0.x + 0` on acc0 and stores it to `$0.x`.
    fn program(n: usize) -> Vec<Instruction> {
        let mut p = vec![Instruction::NOP; n];
        p[0].reg0_attribute = true;
        p[0].acc[0].src = [Src::Reg0X, Src::Ident];
        p[0].store[0].src[0] = StoreSrc::Acc0;
        p
    }

    const KEPT: Kept = Kept {
        value: 7,
        file: File::Reg,
        index: 0,
        comp: 0,
        store_cycle: 0,
    };

    fn read(at: u32) -> Read {
        Read {
            value: 7,
            load_cycle: at,
            port: Port::Reg1,
            comp: 0,
        }
    }

    #[test]
    fn register_latency_and_clobbers_are_found() {
        let lits: AddrLiterals = (0, &[]);
        let p = program(6);
        assert_eq!(check(&p, &[KEPT], &[read(3)], lits), Ok(()));
        // Read before the store is visible (3 instructions, reference §9).
        let e = check(&p, &[KEPT], &[read(2)], lits).unwrap_err();
        assert!(e.contains("point 2"), "{e}");
        // Another store to $0.x before the read clobbers it.
        let mut q = p.clone();
        q[1].acc[0].src = [Src::Reg0X, Src::Ident];
        q[1].reg0_attribute = true;
        q[1].store[0].src[0] = StoreSrc::Acc0;
        let e = check(&q, &[KEPT], &[read(4)], lits).unwrap_err();
        assert!(e.contains("reads v0.x"), "{e}");
        // The instruction loads another register than the value's home.
        let mut r = p.clone();
        r[3].reg1_addr = 5;
        let e = check(&r, &[KEPT], &[read(3)], lits).unwrap_err();
        assert!(e.contains("kept at"), "{e}");
        // A register store in the last 2 instructions.
        let e = check(&program(2), &[], &[], lits).unwrap_err();
        assert!(e.contains("last 2"), "{e}");
    }

    #[test]
    fn temporary_stores_need_addr0_from_a_literal() {
        let mut p = program(8);
        p[0].store[0].temporary = true;
        let kept = Kept {
            file: File::Temp,
            index: 511,
            ..KEPT
        };
        let load = Read {
            port: Port::Load,
            ..read(4)
        };
        let lits: &[[f32; 4]] = &[[511.0, 510.0, 509.0, 508.0]];
        let mut q = p.clone();
        q[4].load_addr = 511;
        let e = check(&q, &[kept], &[load], (40, lits)).unwrap_err();
        assert!(e.contains("addr0"), "{e}");
        q[0].complex_op = ComplexOp::TempStoreAddr;
        q[0].complex_src = Src::LoadX;
        q[0].load_addr = 40;
        assert_eq!(check(&q, &[kept], &[load], (40, lits)), Ok(()));
        // Temporaries are visible 4 instructions after the store.
        let early = Read {
            load_cycle: 3,
            ..load
        };
        q[3].load_addr = 511;
        assert!(check(&q, &[kept], &[early], (40, lits)).is_err());
    }
}
