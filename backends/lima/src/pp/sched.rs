//! Packing machine ops into PP instructions (list scheduling per block).
//!
//! Each block's ops form a dependence graph: a read of a register waits for the instruction
//! after the one writing it (the compiler never relies on one unit seeing a general register
//! written by an earlier unit of the same instruction — that is *unverified* on hardware, so
//! the simulator's strict mode rejects it), and a write waits for earlier reads and writes of
//! the same components. Values travel inside one instruction only through pipeline registers,
//! which the op groups of [`super::mir::Kind`] encode (`^vmul`/`^fmul` into the add units, `^texture`
//! into the mov after the sampler, `^uniform`, `^const0/1`).
//!
//! Instructions are filled top-down (the generic loop of `irc_backend::machine::list`, with
//! [`Instr`] as its bundle): at each step the ready ops, by decreasing critical-path
//! length, are placed if one of their unit choices is free and the constant fields (2 × 4
//! fp16) and the single uniform/temporary load can hold their operands. The objective is the
//! fewest instructions; register pressure is left to the allocator (which spills).
//!
//! The block's terminator goes into the branch unit of the last instruction when that
//! instruction has no combiner op (Mesa never pairs them) and the condition was computed
//! earlier; otherwise into an instruction of its own.
//!
//! The spill driver schedules each program version with several windows: [`Planned`] keeps
//! every block's window-independent [`Priorities`] (dependence graph and priority order) from
//! the first attempt for the next ones, and across spill rounds for the blocks a spill did not
//! rewrite.

use std::cell::OnceCell;

use half::f16;
use irc_backend::machine::dce::{one_point_per_op, Reads};
use irc_backend::machine::list::{
    list_schedule_capped, list_schedule_just_in_time, list_schedule_with, Bundle, Priorities,
};
use irc_backend::machine::pressure::BlockPressure;
use irc_backend::machine::{MachFunction, Operands};
use irc_backend::regalloc::{liveness, VReg};
use smallvec::{smallvec, SmallVec};

use super::facts::{const_groups, uniform_need, unit_options};

use super::mir::{Kind, MOp, Program, Terminator, UniformUse, UnitKind};

/// What the branch unit of an instruction does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BranchUse {
    /// Branch to block `target` if `cond` compares with 0.0 by `when` (`ne`/`eq`), or always.
    Branch {
        cond: Option<((VReg, u8), bool)>,
        target: usize,
    },
    /// Branch to the shared discard instruction if the kill flag is set.
    ToDiscard((VReg, u8)),
    /// `discard`.
    Discard,
}

/// One scheduled instruction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Instr {
    /// Ops with the units they occupy.
    pub ops: Vec<(MOp, SmallVec<[UnitKind; 3]>)>,
    pub const0: SmallVec<[f16; 4]>,
    pub const1: SmallVec<[f16; 4]>,
    pub uniform: Option<UniformUse>,
    pub branch: Option<BranchUse>,
    /// End of program.
    pub stop: bool,
    /// Registers read at the very end (outputs).
    pub exit_reads: Vec<VReg>,
    used: u16,
}

impl Instr {
    pub fn units_used(&self) -> u16 {
        self.used
            | if self.branch.is_some() {
                UnitKind::Branch.bit()
            } else {
                0
            }
    }
    /// Number of filled units (for statistics).
    pub fn filled(&self) -> u32 {
        self.units_used().count_ones()
            + u32::from(!self.const0.is_empty())
            + u32::from(!self.const1.is_empty())
    }
}

/// A scheduled block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SBlock {
    pub instrs: Vec<Instr>,
}

/// The scalars of one constant field.
type ConstField = SmallVec<[f16; 4]>;

/// Places constant groups into the fields, returning the new fields or `None`.
fn place_consts(
    c0: &SmallVec<[f16; 4]>,
    c1: &SmallVec<[f16; 4]>,
    groups: &[SmallVec<[f16; 4]>],
) -> Option<(ConstField, ConstField)> {
    let (mut a, mut b) = (c0.clone(), c1.clone());
    for g in groups {
        let union = |f: &SmallVec<[f16; 4]>| -> Option<SmallVec<[f16; 4]>> {
            let mut u = f.clone();
            for h in g {
                if !u.iter().any(|x| x.to_bits() == h.to_bits()) {
                    u.push(*h);
                }
            }
            (u.len() <= 4).then_some(u)
        };
        let fits_a = g
            .iter()
            .all(|h| a.iter().any(|x| x.to_bits() == h.to_bits()));
        let fits_b = g
            .iter()
            .all(|h| b.iter().any(|x| x.to_bits() == h.to_bits()));
        if fits_a || fits_b {
            continue;
        }
        if let Some(u) = union(&a) {
            a = u;
        } else if let Some(u) = union(&b) {
            b = u;
        } else {
            return None;
        }
    }
    Some((a, b))
}

impl Instr {
    /// Tries to add `op`; returns false (leaving the instruction unchanged) if it does not fit:
    /// the uniform load, then a free unit choice (the first that is), then the constant
    /// fields — cheapest test first, as most ops offered to a filling instruction do not fit.
    pub fn try_place(&mut self, op: &MOp) -> bool {
        let need_u = uniform_need(op);
        if let (Some(a), Some(b)) = (self.uniform, need_u) {
            if a != b {
                return false;
            }
        }
        let Some(units) = unit_options(op).into_iter().find(|units| {
            let bits = units.iter().fold(0u16, |m, u| m | u.bit());
            // The combiner and the branch unit are never used together.
            let comb = UnitKind::Combine.bit();
            self.used & bits == 0 && (bits & comb == 0 || self.branch.is_none())
        }) else {
            return false;
        };
        let groups = const_groups(op);
        if !groups.is_empty() {
            let Some((c0, c1)) = place_consts(&self.const0, &self.const1, &groups) else {
                return false;
            };
            self.const0 = c0;
            self.const1 = c1;
        }
        self.used |= units.iter().fold(0u16, |m, u| m | u.bit());
        if need_u.is_some() {
            self.uniform = need_u;
        }
        self.ops.push((op.clone(), units));
        true
    }

    /// Recomputes the used-unit mask and constant/uniform needs after ops were removed.
    pub fn recompute_units(&mut self) {
        self.used = self
            .ops
            .iter()
            .flat_map(|(_, u)| u.iter())
            .fold(0, |m, u| m | u.bit());
        if !self.ops.iter().any(|(op, _)| uniform_need(op).is_some()) {
            self.uniform = None;
        }
    }

    /// Whether a branch can be added.
    pub fn branch_free(&self) -> bool {
        self.branch.is_none() && self.used & UnitKind::Combine.bit() == 0
    }
}

/// The last op index writing `v` in `ops`.
fn last_def(ops: &[MOp], v: VReg) -> Option<usize> {
    ops.iter().rposition(|o| o.dst == Some(v))
}

/// The window-independent scheduling facts of one block's ops: spill stores are urgent (they
/// end live ranges); ops that read only constants and directly addressed uniforms (a
/// uniform's finite clamp, a constant moved into a register, their rematerialized copies) are
/// just in time, so that they do not hold a register from the block's first instruction on.
pub fn priorities(ops: &[MOp]) -> Priorities {
    Priorities::with_just_in_time(
        ops,
        |op: &MOp| matches!(op.kind, Kind::Spill { .. }),
        super::regalloc::reads_no_register,
    )
}

/// Schedules one block's ops into instructions (terminator not included), with the block's
/// [`priorities`]. Only the `window` earliest unscheduled ops (in lowering order) are
/// candidates, which keeps live ranges close to the source's: a wide window packs more, a
/// narrow one needs fewer registers.
pub fn schedule_ops(
    ops: &[MOp],
    prio: &Priorities,
    window: usize,
    cap: Option<(&BlockPressure, u32)>,
    just_in_time: bool,
) -> Result<(Vec<Instr>, Vec<usize>), String> {
    match cap {
        _ if just_in_time => list_schedule_just_in_time(ops, prio, window, cap),
        None => list_schedule_with(ops, prio, window),
        Some((facts, limit)) => list_schedule_capped(ops, prio, window, facts, limit),
    }
    .map_err(|stuck| format!("cannot place {:?} in an empty instruction", ops[stuck].kind))
}

/// A program with each block's [`priorities`], built on first use and kept until the block
/// changes: all that scheduling attempts with different windows share.
#[derive(Debug, Clone)]
pub struct Planned {
    prog: Program,
    prios: Vec<OnceCell<Priorities>>,
    /// Every block's pressure facts (they depend on the liveness of the whole program).
    pressure: OnceCell<Vec<BlockPressure>>,
}

/// How to schedule: the window, the live-component count above which the scheduler defers
/// ops that start new values (`None`: no cap), and whether ops that read no register are
/// placed just in time ([`priorities`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    pub window: usize,
    pub cap: Option<u32>,
    pub just_in_time: bool,
}

impl Attempt {
    /// Window `window`, no cap, no just-in-time placement.
    pub const fn window(window: usize) -> Attempt {
        Attempt {
            window,
            cap: None,
            just_in_time: false,
        }
    }
    /// This attempt with the pressure cap `cap`.
    pub const fn capped(self, cap: u32) -> Attempt {
        Attempt {
            cap: Some(cap),
            ..self
        }
    }
    /// This attempt with just-in-time placement.
    pub const fn just_in_time(self) -> Attempt {
        Attempt {
            just_in_time: true,
            ..self
        }
    }
}

/// Every block's [`BlockPressure`], from the program's component liveness.
pub fn pressure_facts(p: &Program) -> Vec<BlockPressure> {
    let live = liveness(&one_point_per_op(p, Reads::WholeRegister));
    let mut term = Operands::new();
    (0..p.blocks.len())
        .map(|b| {
            term.clear();
            p.terminator_uses(b, &mut term);
            let out = live.live_out(b);
            BlockPressure::new(&p.blocks[b].ops, live.live_in(b), |v| {
                out.binary_search_by_key(&v, |e| e.0).is_ok() || term.iter().any(|o| o.vreg == v)
            })
        })
        .collect()
}

impl Planned {
    pub fn new(prog: Program) -> Planned {
        let prios = vec![OnceCell::new(); prog.blocks.len()];
        Planned {
            prog,
            prios,
            pressure: OnceCell::new(),
        }
    }

    /// The program.
    pub fn program(&self) -> &Program {
        &self.prog
    }

    /// The program, to change the blocks `edit` reports (true = changed; everything when
    /// it reports fewer blocks than there are).
    pub fn edit(&mut self, edit: impl FnOnce(&mut Program) -> Vec<bool>) {
        let changed = edit(&mut self.prog);
        self.pressure = OnceCell::new();
        if changed.len() != self.prog.blocks.len() || self.prios.len() != changed.len() {
            self.prios = vec![OnceCell::new(); self.prog.blocks.len()];
            return;
        }
        for (cell, _) in self.prios.iter_mut().zip(changed).filter(|(_, c)| *c) {
            *cell = OnceCell::new();
        }
    }

    /// The program, taken back.
    pub fn into_program(self) -> Program {
        self.prog
    }

    /// [`schedule`] with the kept priorities.
    pub fn schedule(&self, attempt: Attempt) -> Result<(Vec<SBlock>, bool), String> {
        let facts = attempt
            .cap
            .map(|c| (self.pressure.get_or_init(|| pressure_facts(&self.prog)), c));
        schedule_with(
            &self.prog,
            Attempt {
                cap: None,
                ..attempt
            },
            &|b| self.prios[b].get_or_init(|| priorities(&self.prog.blocks[b].ops)),
            facts.map(|(f, c)| (f.as_slice(), c)),
        )
    }
}

impl Bundle<MOp> for Instr {
    fn try_place(&mut self, op: &MOp) -> bool {
        Instr::try_place(self, op)
    }
    fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

/// Schedules the whole program. Block `i`'s instructions are `result[i]`; the discard
/// instruction (if any block exits with a kill flag or discards) is returned separately.
pub fn schedule(p: &Program, window: usize) -> Result<(Vec<SBlock>, bool), String> {
    let prios: Vec<Priorities> = p.blocks.iter().map(|b| priorities(&b.ops)).collect();
    schedule_with(p, Attempt::window(window), &|b| &prios[b], None)
}

/// [`schedule`] with block `b`'s [`priorities`] from `prio(b)` (`attempt`'s cap is ignored:
/// `cap` holds it with the pressure facts).
fn schedule_with<'a>(
    p: &Program,
    attempt: Attempt,
    prio: &dyn Fn(usize) -> &'a Priorities,
    cap: Option<(&[BlockPressure], u32)>,
) -> Result<(Vec<SBlock>, bool), String> {
    let mut out = Vec::with_capacity(p.blocks.len());
    let mut needs_discard_block = false;
    for (bi, b) in p.blocks.iter().enumerate() {
        let (mut instrs, at) = schedule_ops(
            &b.ops,
            prio(bi),
            attempt.window,
            cap.map(|(f, c)| (&f[bi], c)),
            attempt.just_in_time,
        )?;
        let next = bi + 1;
        // The instruction index after which a register read by the terminator is ready.
        let ready_after = |v: VReg| last_def(&b.ops, v).map(|i| at[i]);
        let add_branch = |instrs: &mut Vec<Instr>, br: BranchUse, dep: Option<VReg>| {
            let min = dep.and_then(ready_after).map_or(0, |i| i + 1);
            // Conditional branches compare with 0.0 from a constant field.
            let zero: SmallVec<[SmallVec<[f16; 4]>; 4]> = if dep.is_some() {
                smallvec![smallvec![f16::ZERO]]
            } else {
                SmallVec::new()
            };
            let len = instrs.len();
            let placed = instrs.last_mut().filter(|_| len > min).is_some_and(|last| {
                if !last.branch_free() {
                    return false;
                }
                match place_consts(&last.const0, &last.const1, &zero) {
                    Some((a, b)) => {
                        last.const0 = a;
                        last.const1 = b;
                        last.branch = Some(br);
                        true
                    }
                    None => false,
                }
            });
            if !placed {
                let (const0, const1) =
                    place_consts(&SmallVec::new(), &SmallVec::new(), &zero).unwrap_or_default();
                instrs.push(Instr {
                    branch: Some(br),
                    const0,
                    const1,
                    ..Instr::default()
                });
            }
        };
        match &b.term {
            Terminator::Jump(t) => {
                if *t != next {
                    add_branch(
                        &mut instrs,
                        BranchUse::Branch {
                            cond: None,
                            target: *t,
                        },
                        None,
                    );
                }
            }
            Terminator::Branch { cond, then, els } => {
                if *els == next {
                    add_branch(
                        &mut instrs,
                        BranchUse::Branch {
                            cond: Some((*cond, true)),
                            target: *then,
                        },
                        Some(cond.0),
                    );
                } else {
                    add_branch(
                        &mut instrs,
                        BranchUse::Branch {
                            cond: Some((*cond, false)),
                            target: *els,
                        },
                        Some(cond.0),
                    );
                    if *then != next {
                        instrs.push(Instr {
                            branch: Some(BranchUse::Branch {
                                cond: None,
                                target: *then,
                            }),
                            ..Instr::default()
                        });
                    }
                }
            }
            Terminator::Exit { kill } => {
                if let Some(k) = kill {
                    needs_discard_block = true;
                    add_branch(&mut instrs, BranchUse::ToDiscard(*k), Some(k.0));
                    // The stop goes on an instruction after the kill test.
                    instrs.push(Instr::default());
                }
                if instrs.is_empty() {
                    instrs.push(Instr::default());
                }
                let last = instrs.len() - 1;
                instrs[last].stop = true;
                instrs[last].exit_reads = p.outputs.iter().map(|o| o.1).collect();
            }
            Terminator::Discard => {
                instrs.push(Instr {
                    branch: Some(BranchUse::Discard),
                    stop: true,
                    ..Instr::default()
                });
            }
        }
        out.push(SBlock { instrs });
    }
    Ok((out, needs_discard_block))
}
