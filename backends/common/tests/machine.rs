//! The generic machine layer on a toy machine ([`toy`]): parallel copies executed move by move,
//! CFG helpers on small graphs, dead-write and unreachable-block removal, the dependence graph,
//! and the schedule → allocate → spill driver spilling for real (the allocated, spilled
//! program must compute what the original computed).

mod toy;

use irc_backend::machine::cfg::{
    edge_block, idoms, loop_depths, preds, reachable, split_critical_edges, Cfg,
};
use irc_backend::machine::copies::{sequence, Step, Strategy};
use irc_backend::machine::dce::{dead_writes, remove_unreachable, Reads};
use irc_backend::machine::deps::deps;
use irc_backend::machine::depth::{dependence_depth, dependence_levels};
use irc_backend::machine::describe::{ProgramBuilder, VRegShape};
use irc_backend::machine::list::{
    list_schedule, list_schedule_capped, list_schedule_just_in_time, list_schedule_with, Bundle,
    Priorities,
};
use irc_backend::machine::pressure::{BlockPressure, Tracker};
use irc_backend::machine::remat::Rematerialize;
use irc_backend::machine::spill::{
    schedule_and_allocate, Attempts, NoSpill, RefuseLonger, Schedulable, SpillStrategy,
};
use irc_backend::machine::{point, MachFunction};
use irc_backend::regalloc::{self, check, Point, RegFile, VReg};
use irc_backend::{Diagnostic, DiagnosticKind};
use toy::{run, ToyFn, ToyOp, ToyTerm};

// ---------------------------------------------------------------------------------------------
// Parallel copies

/// A copy source: a register or a constant.
#[derive(Debug, Clone, Copy)]
enum Src {
    Reg(usize),
    Const(i64),
}

/// Executes the steps on `regs` with temporaries, the way a backend emits them.
fn execute(copies: &[(usize, Src)], steps: &[Step], regs: &mut [i64]) {
    let mut temps = vec![None; copies.len()];
    let read = |regs: &[i64], s: Src| match s {
        Src::Reg(r) => regs[r],
        Src::Const(k) => k,
    };
    let mut moved = vec![false; copies.len()];
    for &step in steps {
        match step {
            Step::Save(i) => {
                assert!(temps[i].is_none(), "copy {i} saved twice");
                temps[i] = Some(read(regs, copies[i].1));
            }
            Step::Move(i) => {
                assert!(!moved[i], "copy {i} moved twice");
                moved[i] = true;
                regs[copies[i].0] = temps[i].unwrap_or_else(|| read(regs, copies[i].1));
            }
        }
    }
    assert!(moved.iter().all(|&m| m), "a copy was never performed");
}

/// The simultaneous semantics.
fn parallel(copies: &[(usize, Src)], regs: &[i64]) -> Vec<i64> {
    let mut out = regs.to_vec();
    for &(d, s) in copies {
        out[d] = match s {
            Src::Reg(r) => regs[r],
            Src::Const(k) => k,
        };
    }
    out
}

fn reads(s: &Src, d: &usize) -> bool {
    matches!(s, Src::Reg(r) if r == d)
}

fn check_copies(copies: &[(usize, Src)], nregs: usize) -> [usize; 2] {
    let init: Vec<i64> = (0..nregs as i64).map(|i| 100 + i).collect();
    let want = parallel(copies, &init);
    let mut saves = [0; 2];
    for (k, strategy) in [Strategy::SaveConflicts, Strategy::Minimal]
        .into_iter()
        .enumerate()
    {
        let steps = sequence(copies, reads, strategy);
        let mut regs = init.clone();
        execute(copies, &steps, &mut regs);
        assert_eq!(regs, want, "{strategy:?} on {copies:?}: {steps:?}");
        saves[k] = steps.iter().filter(|s| matches!(s, Step::Save(_))).count();
    }
    saves
}

#[test]
fn parallel_copies_swap_rotate_and_fan_out() {
    use Src::*;
    // Swap: one temporary when minimal, two when saving every conflict.
    assert_eq!(check_copies(&[(0, Reg(1)), (1, Reg(0))], 2), [2, 1]);
    // A 4-cycle plus a constant and a fan-out of register 0.
    let rot = [
        (0, Reg(1)),
        (1, Reg(2)),
        (2, Reg(3)),
        (3, Reg(0)),
        (4, Const(7)),
        (5, Reg(0)),
    ];
    assert_eq!(check_copies(&rot, 6)[1], 1);
    // A chain needs no temporary when ordered.
    assert_eq!(
        check_copies(&[(0, Reg(1)), (1, Reg(2)), (2, Reg(3))], 4)[1],
        0
    );
    // A self-copy and an empty copy.
    assert_eq!(check_copies(&[(0, Reg(0))], 1)[1], 0);
    assert_eq!(check_copies(&[], 1), [0, 0]);
}

#[test]
fn parallel_copies_random_permutations() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for _ in 0..500 {
        let n = 1 + next(7);
        // Distinct destinations, arbitrary sources (registers or constants).
        let mut dsts: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            dsts.swap(i, next(i + 1));
        }
        let k = 1 + next(n);
        let copies: Vec<(usize, Src)> = dsts[..k]
            .iter()
            .map(|&d| {
                let s = if next(5) == 0 {
                    Src::Const(next(50) as i64)
                } else {
                    Src::Reg(next(n))
                };
                (d, s)
            })
            .collect();
        check_copies(&copies, n);
    }
}

// ---------------------------------------------------------------------------------------------
// CFG helpers

fn jump(f: &mut ToyFn, to: usize) -> usize {
    f.block(vec![], ToyTerm::Jump(to))
}

fn branch(f: &mut ToyFn, cond: VReg, then: usize, els: usize) -> usize {
    f.block(vec![], ToyTerm::Branch { cond, then, els })
}

/// 0: branch 1 / 3; 1: branch 2 / 3 (inner loop header 2 ↔ 2); 2: branch 2 / 3; 3: ret.
fn loopy() -> ToyFn {
    let mut f = ToyFn::default();
    let c = f.vreg(1);
    branch(&mut f, c, 1, 3);
    branch(&mut f, c, 2, 3);
    branch(&mut f, c, 2, 3);
    f.block(vec![], ToyTerm::Ret { result: None });
    f
}

#[test]
fn critical_edges_are_split() {
    let mut f = loopy();
    // Critical: every edge into 2 (preds 1, 2) or 3 (preds 0, 1, 2); 0→1 is not.
    let split = split_critical_edges(&mut f);
    let pairs: Vec<(usize, usize)> = split.iter().map(|&(p, s, _)| (p, s)).collect();
    assert_eq!(pairs, [(0, 3), (1, 2), (1, 3), (2, 2), (2, 3)]);
    // Every new block jumps to the old successor and is the only way there from the pred.
    for &(p, s, nb) in &split {
        assert_eq!(f.succs(nb).as_slice(), &[s]);
        assert!(f.succs(p).contains(&nb) && !f.succs(p).contains(&s));
    }
    // No critical edge is left.
    let pr = preds(&f);
    for b in 0..f.num_blocks() {
        if f.succs(b).len() > 1 {
            assert!(f.succs(b).iter().all(|&s| pr[s].len() == 1));
        }
    }
}

#[test]
fn edge_blocks_only_for_branching_predecessors() {
    let mut f = ToyFn::default();
    let c = f.vreg(1);
    branch(&mut f, c, 1, 2);
    jump(&mut f, 2);
    f.block(vec![], ToyTerm::Ret { result: None });
    assert_eq!(edge_block(&mut f, 1, 2), 1);
    let nb = edge_block(&mut f, 0, 2);
    assert_eq!(nb, 3);
    assert_eq!(f.succs(0).as_slice(), &[1, 3]);
    assert_eq!(f.succs(3).as_slice(), &[2]);
}

#[test]
fn dominators_and_loop_depths() {
    let f = loopy();
    assert_eq!(idoms(&f), [None, Some(0), Some(1), Some(0)]);
    assert_eq!(loop_depths(&f), [0, 0, 1, 0]);
    // Nested: 0 → 1 (outer header) → 2 (inner header) → 3 (latch of both: branch 2 / 4),
    // 4: branch 1 / 5, 5: ret; 6 unreachable.
    let mut g = ToyFn::default();
    let c = g.vreg(1);
    jump(&mut g, 1);
    jump(&mut g, 2);
    jump(&mut g, 3);
    branch(&mut g, c, 2, 4);
    branch(&mut g, c, 1, 5);
    g.block(vec![], ToyTerm::Ret { result: None });
    jump(&mut g, 1);
    assert_eq!(loop_depths(&g), [0, 1, 2, 2, 1, 0, 0]);
    assert_eq!(reachable(&g), [true, true, true, true, true, true, false]);
    // A break path (2 → 3 → 4) leaves the loop {1, 2}.
    let mut h = ToyFn::default();
    let c = h.vreg(1);
    jump(&mut h, 1);
    branch(&mut h, c, 2, 4);
    branch(&mut h, c, 3, 1);
    jump(&mut h, 4);
    h.block(vec![], ToyTerm::Ret { result: None });
    assert_eq!(loop_depths(&h), [0, 1, 1, 0, 0]);
}

// ---------------------------------------------------------------------------------------------
// Dead writes and unreachable blocks

#[test]
fn dead_writes_cascade_and_respect_side_effects() {
    let mut f = ToyFn::default();
    let [a, b, c, d, e] = [(); 5].map(|_| f.vreg(1));
    let ops = vec![
        ToyOp::Const {
            dst: a,
            comp: 0,
            value: 1,
        },
        ToyOp::Const {
            dst: b,
            comp: 0,
            value: 2,
        }, // dead
        ToyOp::Add { dst: c, a, b: a },
        ToyOp::Const {
            dst: d,
            comp: 0,
            value: 3,
        }, // dead once e's add is gone
        ToyOp::Add { dst: e, a: d, b: d }, // dead
        ToyOp::Store { slot: 0, src: a },  // side effect: stays
        ToyOp::Out { src: c, comp: 0 },
    ];
    f.block(ops, ToyTerm::Ret { result: None });
    let before = run(&f, None, 100);
    assert_eq!(dead_writes(&mut f, Reads::Lanes), 3);
    assert_eq!(f.ops(0).len(), 4);
    assert_eq!(run(&f, None, 100), before);
}

#[test]
fn dead_writes_per_component_or_whole_register() {
    let build = || {
        let mut f = ToyFn::default();
        let v = f.vreg(2);
        let c = f.vreg(1);
        let entry = vec![
            ToyOp::Const {
                dst: v,
                comp: 0,
                value: 4,
            },
            ToyOp::Const {
                dst: v,
                comp: 1,
                value: 5,
            }, // only .x is read
            ToyOp::Const {
                dst: c,
                comp: 0,
                value: 1,
            },
        ];
        f.block(
            entry,
            ToyTerm::Branch {
                cond: c,
                then: 1,
                els: 2,
            },
        );
        // Block 1 reads v.x on one path only.
        f.block(vec![ToyOp::Out { src: v, comp: 0 }], ToyTerm::Jump(2));
        f.block(vec![], ToyTerm::Ret { result: Some(c) });
        f
    };
    let mut lanes = build();
    assert_eq!(dead_writes(&mut lanes, Reads::Lanes), 1);
    assert_eq!(run(&lanes, None, 100), run(&build(), None, 100));
    let mut whole = build();
    assert_eq!(dead_writes(&mut whole, Reads::WholeRegister), 0);
}

#[test]
fn unreachable_blocks_are_removed_and_renumbered() {
    let mut f = ToyFn::default();
    let c = f.vreg(1);
    let out = |value| {
        vec![
            ToyOp::Const {
                dst: c,
                comp: 0,
                value,
            },
            ToyOp::Out { src: c, comp: 0 },
        ]
    };
    f.block(out(1), ToyTerm::Jump(2));
    f.block(out(2), ToyTerm::Jump(3)); // unreachable
    f.block(out(3), ToyTerm::Jump(4));
    f.block(out(4), ToyTerm::Jump(2)); // unreachable
    f.block(out(5), ToyTerm::Ret { result: None });
    let before = run(&f, None, 100);
    assert!(remove_unreachable(&mut f));
    assert_eq!(f.num_blocks(), 3);
    assert_eq!(f.blocks[0].term, ToyTerm::Jump(1));
    assert_eq!(f.blocks[1].term, ToyTerm::Jump(2));
    assert_eq!(run(&f, None, 100), before);
    assert!(!remove_unreachable(&mut f));
}

// ---------------------------------------------------------------------------------------------
// Dependence graph

#[test]
fn dependences_follow_registers_and_memory() {
    let mut f = ToyFn::default();
    let [a, b, c, d] = [(); 4].map(|_| f.vreg(1));
    let ops = vec![
        ToyOp::Const {
            dst: a,
            comp: 0,
            value: 1,
        }, // 0
        ToyOp::Const {
            dst: b,
            comp: 0,
            value: 2,
        }, // 1
        ToyOp::Add { dst: c, a, b }, // 2: reads 0, 1
        ToyOp::Const {
            dst: a,
            comp: 0,
            value: 3,
        }, // 3: after 0 (WAW) and 2 (WAR)
        ToyOp::Store { slot: 0, src: c }, // 4: reads 2
        ToyOp::Load { dst: d, slot: 0 }, // 5: after the store
        ToyOp::Store { slot: 0, src: a }, // 6: reads 3, after the load
        ToyOp::Out { src: d, comp: 0 }, // 7: reads 5
    ];
    let g = deps(&ops);
    let want: [&[u32]; 8] = [&[], &[], &[0, 1], &[0, 2], &[2], &[4], &[3, 5], &[5]];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(g.preds(i), *w, "op {i}");
    }
    assert_eq!(g.height, [5, 5, 4, 2, 3, 2, 1, 1]);
}

#[test]
fn dependence_depth_counts_true_dependences_only() {
    let mut f = ToyFn::default();
    let [a, b, c, d] = [(); 4].map(|_| f.vreg(1));
    let konst = |dst| ToyOp::Const {
        dst,
        comp: 0,
        value: 1,
    };
    let ops = vec![
        konst(a),                       // 0: depth 1
        ToyOp::Add { dst: b, a, b: a }, // 1: reads 0, depth 2
        ToyOp::Add { dst: c, a: b, b }, // 2: reads 1, depth 3
        konst(a),                       // 3: overwrites `a` after op 1 read it (no true dependence)
        ToyOp::Out { src: a, comp: 0 }, // 4: reads 3 only, depth 2
    ];
    // The scheduler's graph also orders op 3 after op 1's read: its critical path is longer.
    assert_eq!(deps(&ops).height.iter().max(), Some(&4));
    assert_eq!(dependence_depth(&ops, |_| false), 3);
    // Vanishing adds make every chain one op long, except `Out` after its constant.
    assert_eq!(
        dependence_depth(&ops, |o| matches!(o, ToyOp::Add { .. })),
        2
    );
    // A load comes after the store of its slot, and the stored value's chain.
    let mem = vec![
        konst(a),                         // 1
        ToyOp::Add { dst: b, a, b: a },   // 2
        ToyOp::Store { slot: 3, src: b }, // 3
        ToyOp::Load { dst: d, slot: 3 },  // 4
        ToyOp::Load { dst: c, slot: 1 },  // 1: another slot
        ToyOp::Out { src: d, comp: 0 },   // 5
    ];
    assert_eq!(dependence_depth(&mem, |_| false), 5);
    assert_eq!(dependence_depth::<ToyOp>(&[], |_| false), 0);
    // Per op: the chain before it and the chain it heads.
    let levels = dependence_levels(&ops, |_| false);
    assert_eq!(levels.before, [0, 1, 2, 0, 1]);
    assert_eq!(levels.tail, [3, 2, 1, 2, 1]);
    let levels = dependence_levels(&mem, |_| false);
    assert_eq!(levels.before, [0, 1, 2, 3, 0, 4]);
    assert_eq!(levels.tail, [5, 4, 3, 2, 1, 1]);
    // A vanishing op passes the chain on without adding to it.
    let levels = dependence_levels(&ops, |o| matches!(o, ToyOp::Add { .. }));
    assert_eq!(levels.before, [0, 1, 1, 0, 1]);
    assert_eq!(levels.tail, [1, 0, 0, 2, 1]);
}

/// Two ops per bundle, at most one touching memory, never an output when `no_out`.
#[derive(Default)]
struct Pair {
    ops: Vec<ToyOp>,
}

impl Bundle<ToyOp> for Pair {
    fn try_place(&mut self, op: &ToyOp) -> bool {
        let mem = |o: &ToyOp| matches!(o, ToyOp::Store { .. } | ToyOp::Load { .. });
        if self.ops.len() == 2 || (mem(op) && self.ops.iter().any(mem)) {
            return false;
        }
        if matches!(op, ToyOp::Out { comp: 3, .. }) {
            return false; // "does not fit any bundle"
        }
        self.ops.push(op.clone());
        true
    }
    fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

#[test]
fn list_scheduling_respects_dependences_and_the_window() {
    let mut f = ToyFn::default();
    let [a, b, c, d] = [(); 4].map(|_| f.vreg(1));
    let ops = vec![
        ToyOp::Const {
            dst: a,
            comp: 0,
            value: 1,
        },
        ToyOp::Const {
            dst: b,
            comp: 0,
            value: 2,
        },
        ToyOp::Add { dst: c, a, b },
        ToyOp::Const {
            dst: a,
            comp: 0,
            value: 3,
        },
        ToyOp::Store { slot: 0, src: c },
        ToyOp::Load { dst: d, slot: 0 },
        ToyOp::Store { slot: 0, src: a },
        ToyOp::Out { src: d, comp: 0 },
    ];
    let g = deps(&ops);
    for window in [1, 2, 3, 8] {
        let (bundles, at): (Vec<Pair>, Vec<usize>) =
            list_schedule(&ops, window, |_| false).unwrap();
        for i in 0..g.len() {
            assert!(
                g.preds(i).iter().all(|&p| at[p as usize] < at[i]),
                "window {window}: op {i}"
            );
        }
        assert_eq!(
            bundles.iter().map(|b| b.ops.len()).sum::<usize>(),
            ops.len()
        );
        if window == 1 {
            assert_eq!(bundles.len(), ops.len(), "one candidate at a time");
        }
    }
    let (wide, _): (Vec<Pair>, _) = list_schedule(&ops, 8, |_| false).unwrap();
    assert_eq!(wide.len(), 5, "the critical path 0/1 → 2 → 4 → 5 → 7");
    // Urgent ops go first among the ready ones.
    let three: Vec<ToyOp> = [a, b, c]
        .iter()
        .map(|&dst| ToyOp::Const {
            dst,
            comp: 0,
            value: 0,
        })
        .collect();
    let (_, at): (Vec<Pair>, _) = list_schedule(&three, 8, |_| false).unwrap();
    assert_eq!(at, [0, 0, 1]);
    let (_, at): (Vec<Pair>, _) = list_schedule(
        &three,
        8,
        |o| matches!(o, ToyOp::Const { dst, .. } if *dst == c),
    )
    .unwrap();
    assert_eq!(at, [0, 1, 0]);
    // An op no bundle takes.
    let stuck = [ToyOp::Out { src: a, comp: 3 }];
    assert_eq!(
        list_schedule::<_, Pair>(&stuck, 4, |_| false).err(),
        Some(0)
    );
}

/// The most live registers after any bundle of a schedule (`at`: each op's bundle).
fn max_live(facts: &BlockPressure, at: &[usize]) -> u32 {
    let mut t = Tracker::new(facts);
    let mut order: Vec<usize> = (0..at.len()).collect();
    order.sort_by_key(|&i| (at[i], i));
    let mut most = 0;
    for (k, &i) in order.iter().enumerate() {
        t.place(i);
        if order.get(k + 1).is_none_or(|&j| at[j] != at[i]) {
            most = most.max(t.live());
        }
    }
    most
}

#[test]
fn a_pressure_cap_finishes_values_before_starting_new_ones() {
    // (x0 + x1) + (x2 + x3): by height alone all four constants come first.
    let mut f = ToyFn::default();
    let x = [(); 4].map(|_| f.vreg(1));
    let [s1, s2, s] = [(); 3].map(|_| f.vreg(1));
    let k = |dst| ToyOp::Const {
        dst,
        comp: 0,
        value: 1,
    };
    let ops = vec![
        k(x[0]),
        k(x[1]),
        ToyOp::Add {
            dst: s1,
            a: x[0],
            b: x[1],
        },
        k(x[2]),
        k(x[3]),
        ToyOp::Add {
            dst: s2,
            a: x[2],
            b: x[3],
        },
        ToyOp::Add {
            dst: s,
            a: s1,
            b: s2,
        },
        ToyOp::Out { src: s, comp: 0 },
    ];
    let prio = Priorities::new(&ops, |_| false);
    let facts = BlockPressure::new(&ops, &[], |_| false);
    let (_, free): (Vec<Pair>, _) = list_schedule(&ops, 8, |_| false).unwrap();
    let (_, capped): (Vec<Pair>, _) = list_schedule_capped(&ops, &prio, 8, &facts, 2).unwrap();
    for i in 0..ops.len() {
        assert!(prio
            .deps()
            .preds(i)
            .iter()
            .all(|&p| capped[p as usize] < capped[i]));
    }
    assert_eq!(max_live(&facts, &free), 4);
    assert_eq!(max_live(&facts, &capped), 3);
    // A cap nobody can meet still schedules everything.
    let (b, _): (Vec<Pair>, _) = list_schedule_capped(&ops, &prio, 8, &facts, 0).unwrap();
    assert_eq!(b.iter().map(|b| b.ops.len()).sum::<usize>(), ops.len());
}

#[test]
fn just_in_time_ops_wait_for_their_reader() {
    // A chain a → a+a → … → out, and a constant k read only at the end (k + chain): placed
    // by height alone, k goes into the first bundle and lives through the whole chain.
    let mut f = ToyFn::default();
    let chain = [(); 5].map(|_| f.vreg(1));
    let (k, sum) = (f.vreg(1), f.vreg(1));
    let konst = |dst| ToyOp::Const {
        dst,
        comp: 0,
        value: 3,
    };
    let mut ops = vec![konst(k), konst(chain[0])];
    for w in chain.windows(2) {
        ops.push(ToyOp::Add {
            dst: w[1],
            a: w[0],
            b: w[0],
        });
    }
    ops.push(ToyOp::Add {
        dst: sum,
        a: chain[4],
        b: k,
    });
    ops.push(ToyOp::Out { src: sum, comp: 0 });
    let is_const = |o: &ToyOp| matches!(o, ToyOp::Const { .. });
    let prio = Priorities::with_just_in_time(&ops, |_| false, is_const);
    let (eager, at_eager): (Vec<Pair>, _) = list_schedule_with(&ops, &prio, 16).unwrap();
    let (timely, at): (Vec<Pair>, _) = list_schedule_just_in_time(&ops, &prio, 16, None).unwrap();
    for i in 0..ops.len() {
        assert!(prio.deps().preds(i).iter().all(|&p| at[p as usize] < at[i]));
    }
    // Eagerly, k shares the first bundle with the chain's start; just in time, it goes into
    // the bundle of the chain's last add, right before its reader, at no cost in bundles.
    assert_eq!(at_eager[0], 0);
    assert_eq!(at[0], at[5]);
    assert_eq!(at[6], at[5] + 1);
    assert_eq!(timely.len(), eager.len());
    // The chain's own constant has no other predecessor to wait for: due at once.
    assert_eq!(at[1], 0);
    // A program of nothing but just-in-time ops still schedules (empty bundles take them).
    let only = vec![konst(k)];
    let p = Priorities::with_just_in_time(&only, |_| false, is_const);
    let (b, _): (Vec<Pair>, _) = list_schedule_just_in_time(&only, &p, 4, None).unwrap();
    assert_eq!(b.len(), 1);
}

// ---------------------------------------------------------------------------------------------
// Schedule → allocate → spill

/// One op per point; spill costs weighted by loop depth.
impl Schedulable for ToyFn {
    type Attempt = ();
    type Schedule = ();
    fn schedule(&self, (): ()) -> Result<(), Diagnostic> {
        Ok(())
    }
    fn length(&self, (): &()) -> usize {
        self.blocks.iter().map(|b| b.ops.len()).sum()
    }
    fn describe(&self, (): &()) -> regalloc::Program {
        let mut out = ProgramBuilder::new(self.sizes.len());
        for (b, blk) in self.blocks.iter().enumerate() {
            out.block(self.succs(b).into_vec(), blk.depth);
            for op in &blk.ops {
                let mut pt = Point::default();
                point(op, &[], &mut pt);
                out.point(pt);
            }
            let mut end = Point::default();
            let mut ops = Default::default();
            self.terminator_uses(b, &mut ops);
            for o in &ops {
                end.uses.push(regalloc::Access::new(o.vreg, 0, o.mask));
            }
            out.point(end);
        }
        out.finish(|v| VRegShape {
            size: self.sizes[v.index()],
            lane0: false,
            no_spill: self.no_spill[v.index()],
        })
    }
}

/// Spills to toy memory: a store after every write, a load into a fresh register before
/// every read.
struct ToyMemory {
    spilled: Vec<VReg>,
}

impl SpillStrategy<ToyFn> for ToyMemory {
    fn spillable(&self, p: &ToyFn, v: VReg) -> bool {
        !p.no_spill[v.index()]
    }
    fn spill(&mut self, p: &mut ToyFn, v: VReg) -> Result<(), Diagnostic> {
        self.spilled.push(v);
        let slot = p.slots;
        p.slots += 1;
        p.no_spill[v.index()] = true;
        for b in 0..p.blocks.len() {
            let ops = std::mem::take(&mut p.blocks[b].ops);
            let mut out = Vec::new();
            let reload = |p: &mut ToyFn, out: &mut Vec<ToyOp>| {
                let t = p.vreg(1);
                p.no_spill[t.index()] = true;
                out.push(ToyOp::Load { dst: t, slot });
                t
            };
            for mut op in ops {
                match &mut op {
                    ToyOp::Add { a, b, .. } if *a == v || *b == v => {
                        let t = reload(p, &mut out);
                        *a = if *a == v { t } else { *a };
                        *b = if *b == v { t } else { *b };
                    }
                    ToyOp::Out { src, .. } | ToyOp::Store { src, .. } if *src == v => {
                        *src = reload(p, &mut out);
                    }
                    _ => {}
                }
                let wrote = matches!(op, ToyOp::Const { dst, .. } | ToyOp::Add { dst, .. } | ToyOp::Load { dst, .. } if dst == v);
                out.push(op);
                if wrote {
                    out.push(ToyOp::Store { slot, src: v });
                }
            }
            let reads_v = matches!(p.blocks[b].term,
                ToyTerm::Branch { cond, .. } | ToyTerm::Ret { result: Some(cond) } if cond == v);
            if reads_v {
                let t = reload(p, &mut out);
                if let ToyTerm::Branch { cond, .. } | ToyTerm::Ret { result: Some(cond) } =
                    &mut p.blocks[b].term
                {
                    *cond = t;
                }
            }
            p.blocks[b].ops = out;
        }
        Ok(())
    }
}

/// Eight values all live at once, summed pairwise in reverse, in a loop run twice.
fn pressure() -> ToyFn {
    let mut f = ToyFn::default();
    let vals: Vec<VReg> = (0..8).map(|_| f.vreg(1)).collect();
    let (n, one, minus) = (f.vreg(1), f.vreg(1), f.vreg(1));
    let mut entry: Vec<ToyOp> = vals
        .iter()
        .enumerate()
        .map(|(i, &v)| ToyOp::Const {
            dst: v,
            comp: 0,
            value: 10 + i as i64,
        })
        .collect();
    entry.push(ToyOp::Const {
        dst: n,
        comp: 0,
        value: 2,
    });
    entry.push(ToyOp::Const {
        dst: minus,
        comp: 0,
        value: -1,
    });
    f.block(entry, ToyTerm::Jump(1));
    let mut body = Vec::new();
    for w in vals.windows(2).rev() {
        let s = f.vreg(1);
        body.push(ToyOp::Add {
            dst: s,
            a: w[1],
            b: w[0],
        });
        body.push(ToyOp::Out { src: s, comp: 0 });
    }
    body.push(ToyOp::Add {
        dst: vals[0],
        a: vals[0],
        b: vals[7],
    });
    body.push(ToyOp::Add {
        dst: n,
        a: n,
        b: minus,
    });
    body.push(ToyOp::Const {
        dst: one,
        comp: 0,
        value: 1,
    });
    f.block(
        body,
        ToyTerm::Branch {
            cond: n,
            then: 1,
            els: 2,
        },
    );
    f.blocks[1].depth = 1;
    f.block(
        vec![ToyOp::Out {
            src: vals[0],
            comp: 0,
        }],
        ToyTerm::Ret { result: Some(one) },
    );
    f
}

const ATTEMPTS: Attempts<'static, ()> = Attempts {
    first: &[()],
    retry: &[()],
    late: None,
    max_rounds: 50,
    growth_period: 3,
    file_name: "the toy registers",
    refuse_longer: None,
    shortest: false,
};

#[test]
fn spill_loop_spills_until_the_program_fits() {
    let file = RegFile {
        registers: 4,
        lanes: 1,
    };
    let original = pressure();
    let want = run(&original, None, 10_000);
    let mut f = original.clone();
    let mut strategy = ToyMemory {
        spilled: Vec::new(),
    };
    let done = schedule_and_allocate(&mut f, &file, &mut strategy, &ATTEMPTS, 0)
        .expect("spilling makes it fit");
    assert!(!strategy.spilled.is_empty(), "nothing was spilled");
    assert!(f.slots > 0);
    check(&file, &done.program, &done.allocation).expect("the checker accepts the allocation");
    assert!(done.allocation.registers_used <= 4);
    assert_eq!(run(&f, Some(&done.allocation), 10_000), want);
}

#[test]
fn forced_spills_take_the_cheapest_values_first() {
    let file = RegFile {
        registers: 16,
        lanes: 1,
    };
    let mut f = pressure();
    let want = run(&f, None, 10_000);
    let mut strategy = ToyMemory {
        spilled: Vec::new(),
    };
    let done = schedule_and_allocate(&mut f, &file, &mut strategy, &ATTEMPTS, 2).unwrap();
    // Two forced spills, none needed afterwards: `one` (written in the loop, weight 10, read
    // once after it) and `minus` (written once, read in the loop) cost 11 each; everything
    // else is read in the loop more often.
    assert_eq!(strategy.spilled, [VReg(9), VReg(10)]);
    assert_eq!(run(&f, Some(&done.allocation), 10_000), want);
}

/// `dst.x = value`.
fn konst(dst: VReg, value: i64) -> ToyOp {
    ToyOp::Const {
        dst,
        comp: 0,
        value,
    }
}

/// Writes `src.x` to the output.
fn out(src: VReg) -> ToyOp {
    ToyOp::Out { src, comp: 0 }
}

/// Two schedules of one program: the preferred `wide` one (attempt `true`), and a `narrow`
/// one of a given length that always fits (attempt `false`).
struct Twin {
    wide: ToyFn,
    narrow: ToyFn,
    narrow_length: usize,
    /// What [`Schedulable::lower_bound`] reports.
    bound: usize,
}

impl Schedulable for Twin {
    type Attempt = bool;
    type Schedule = bool;
    fn schedule(&self, wide: bool) -> Result<bool, Diagnostic> {
        Ok(wide)
    }
    fn describe(&self, &wide: &bool) -> regalloc::Program {
        if wide {
            self.wide.describe(&())
        } else {
            self.narrow.describe(&())
        }
    }
    fn length(&self, &wide: &bool) -> usize {
        if wide {
            self.wide.length(&())
        } else {
            self.narrow_length
        }
    }
    fn lower_bound(&self) -> usize {
        self.bound
    }
}

/// Spills in the wide schedule's program.
impl SpillStrategy<Twin> for ToyMemory {
    fn spillable(&self, p: &Twin, v: VReg) -> bool {
        SpillStrategy::<ToyFn>::spillable(self, &p.wide, v)
    }
    fn spill(&mut self, p: &mut Twin, v: VReg) -> Result<(), Diagnostic> {
        SpillStrategy::<ToyFn>::spill(self, &mut p.wide, v)
    }
}

#[test]
fn much_longer_schedules_are_refused_for_a_spill() {
    // Two single-lane registers, and five values that are never more than two at a time
    // but interfere in a cycle of five (`a` is written twice): the pressure fits, the colorer
    // cannot.
    let file = RegFile {
        registers: 2,
        lanes: 1,
    };
    let mut wide = ToyFn::default();
    let [a, b, c, d, e] = [(); 5].map(|_| wide.vreg(1));
    wide.block(
        vec![
            konst(a, 1),
            konst(b, 2), // a b
            out(a),
            konst(c, 3), // b c
            out(b),
            konst(d, 4), // c d
            out(c),
            konst(e, 5), // d e
            out(d),
            konst(a, 6), // e a
            out(e),
            out(a),
        ],
        ToyTerm::Ret { result: None },
    );
    let want = run(&wide, None, 1_000);
    let mut narrow = ToyFn::default();
    let x = narrow.vreg(1);
    narrow.block(vec![konst(x, 1), out(x)], ToyTerm::Ret { result: None });
    let attempts = |refuse_longer| Attempts {
        first: &[true, false],
        retry: &[true, false],
        late: None,
        max_rounds: 20,
        growth_period: 3,
        file_name: "the toy registers",
        refuse_longer,
        shortest: false,
    };
    let refuse = Some(RefuseLonger {
        slack: 0.1,
        rounds: 10,
    });
    let compile = |narrow_length, refuse_longer| {
        let mut twin = Twin {
            wide: wide.clone(),
            narrow: narrow.clone(),
            narrow_length,
            bound: 0,
        };
        let mut strategy = ToyMemory {
            spilled: Vec::new(),
        };
        let done =
            schedule_and_allocate(&mut twin, &file, &mut strategy, &attempts(refuse_longer), 0)
                .unwrap();
        (done, twin.wide, strategy.spilled.len())
    };
    // Without the refusal, or within the slack, the narrow schedule wins at once.
    let (done, _, spilled) = compile(100, None);
    assert!(!done.schedule);
    assert_eq!(spilled, 0);
    let (done, _, spilled) = compile(13, refuse);
    assert!(!done.schedule);
    assert_eq!(spilled, 0);
    // Much longer: the wide schedule's candidates are spilled until it fits.
    let (done, spilled_wide, spilled) = compile(100, refuse);
    assert!(done.schedule, "the wide schedule after spilling");
    assert!(spilled > 0);
    check(&file, &done.program, &done.allocation).expect("the checker accepts the allocation");
    assert_eq!(run(&spilled_wide, Some(&done.allocation), 1_000), want);
}

/// [`Twin`]'s schedules (`Some(wide)`) and one that never fits (`None`): a program with
/// more values live at once than the file holds.
struct Trio {
    over: ToyFn,
    twin: Twin,
}

impl Schedulable for Trio {
    type Attempt = Option<bool>;
    type Schedule = Option<bool>;
    fn schedule(&self, attempt: Option<bool>) -> Result<Option<bool>, Diagnostic> {
        Ok(attempt)
    }
    fn describe(&self, schedule: &Option<bool>) -> regalloc::Program {
        match schedule {
            None => self.over.describe(&()),
            Some(wide) => self.twin.describe(wide),
        }
    }
    fn length(&self, schedule: &Option<bool>) -> usize {
        match schedule {
            None => 1,
            Some(wide) => self.twin.length(wide),
        }
    }
    fn lower_bound(&self) -> usize {
        self.twin.bound
    }
}

#[test]
fn shortest_keeps_the_shortest_schedule_that_fits() {
    // One single-lane register. The wide schedule (2 ops) and the narrow one
    // (`narrow_length`) fit; the over-full one (two values at once) never does.
    let file = RegFile {
        registers: 1,
        lanes: 1,
    };
    let one_value = || {
        let mut f = ToyFn::default();
        let x = f.vreg(1);
        f.block(vec![konst(x, 7), out(x)], ToyTerm::Ret { result: None });
        f
    };
    let mut over = ToyFn::default();
    let [a, b] = [(); 2].map(|_| over.vreg(1));
    over.block(
        vec![konst(a, 1), konst(b, 2), out(a), out(b)],
        ToyTerm::Ret { result: None },
    );
    // Which schedule wins, given the order of the attempts, `shortest` and the bound.
    let winner = |order: &'static [Option<bool>], shortest, narrow_length, bound| {
        let attempts = Attempts {
            first: order,
            retry: order,
            late: None,
            max_rounds: 4,
            growth_period: 3,
            file_name: "the toy registers",
            refuse_longer: None,
            shortest,
        };
        let mut trio = Trio {
            over: over.clone(),
            twin: Twin {
                wide: one_value(),
                narrow: one_value(),
                narrow_length,
                bound,
            },
        };
        let done = schedule_and_allocate(&mut trio, &file, &mut NoSpill, &attempts, 0).unwrap();
        match done.schedule {
            None => "over",
            Some(true) => "wide",
            Some(false) => "narrow",
        }
    };
    const NARROW_FIRST: &[Option<bool>] = &[None, Some(false), Some(true)];
    const WIDE_FIRST: &[Option<bool>] = &[Some(true), Some(false)];
    // The first that fits, or the shortest.
    assert_eq!(winner(NARROW_FIRST, false, 50, 0), "narrow");
    assert_eq!(winner(NARROW_FIRST, true, 50, 0), "wide");
    // A schedule at the lower bound ends the search.
    assert_eq!(winner(NARROW_FIRST, true, 50, 50), "narrow");
    // Round 0's first attempt is taken when it fits, even if a later one is shorter.
    assert_eq!(winner(WIDE_FIRST, true, 1, 0), "wide");
    // Otherwise the narrow schedule wins when it is the shorter one.
    assert_eq!(winner(NARROW_FIRST, true, 1, 0), "narrow");
}

#[test]
fn no_spill_strategy_reports_the_limit() {
    let file = RegFile {
        registers: 4,
        lanes: 1,
    };
    let mut f = pressure();
    let err = schedule_and_allocate(&mut f, &file, &mut NoSpill, &ATTEMPTS, 0).unwrap_err();
    assert_eq!(err.kind, DiagnosticKind::Limit);
    assert!(err.message.contains("the toy registers"), "{}", err.message);
    assert_eq!(f, pressure(), "NoSpill must leave the program alone");
}

#[test]
fn rematerialization_recomputes_constants_instead_of_spilling() {
    let file = RegFile {
        registers: 4,
        lanes: 1,
    };
    let mut f = pressure();
    let want = run(&f, None, 10_000);
    let done = schedule_and_allocate(&mut f, &file, &mut Rematerialize, &ATTEMPTS, 0)
        .expect("rematerializing the constants makes it fit");
    assert_eq!(f.slots, 0, "no memory used");
    assert!(f.blocks[1]
        .ops
        .iter()
        .any(|op| matches!(op, ToyOp::Const { value: 13, .. })));
    check(&file, &done.program, &done.allocation).expect("the checker accepts the allocation");
    assert_eq!(run(&f, Some(&done.allocation), 10_000), want);
    // vals[0] is written twice and the sums read registers: not candidates.
    assert!(!Rematerialize.spillable(&pressure(), VReg(0)));
    assert!(Rematerialize.spillable(&pressure(), VReg(3)));
    // Two registers are too few even so.
    let two = RegFile {
        registers: 2,
        lanes: 1,
    };
    let err =
        schedule_and_allocate(&mut pressure(), &two, &mut Rematerialize, &ATTEMPTS, 0).unwrap_err();
    assert_eq!(err.kind, DiagnosticKind::Limit);
}

#[test]
fn over_full_programs_spill_their_pressure_cover_in_one_round() {
    // Eight values live at once in four registers: one spill per round would need rounds
    // 0..=4 at least; the pressure cover spills enough in round 0 and round 1 fits.
    let file = RegFile {
        registers: 4,
        lanes: 1,
    };
    let two_rounds = Attempts {
        max_rounds: 2,
        ..ATTEMPTS
    };
    let mut f = pressure();
    let want = run(&f, None, 10_000);
    let mut strategy = ToyMemory {
        spilled: Vec::new(),
    };
    let done = schedule_and_allocate(&mut f, &file, &mut strategy, &two_rounds, 0)
        .expect("two rounds are enough");
    assert!(strategy.spilled.len() >= 4, "{:?}", strategy.spilled);
    check(&file, &done.program, &done.allocation).expect("the checker accepts the allocation");
    assert_eq!(run(&f, Some(&done.allocation), 10_000), want);
}
