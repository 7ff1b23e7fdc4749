//! Register allocator core and checker: hand-written cases, a seeded random program generator
//! (every successful allocation must pass the checker and a concrete random-path oracle),
//! corrupted allocations the checker must reject, the spill loop a backend runs, malformed
//! input, and one large program.

use irc_backend::regalloc::{
    allocate, check, interference, liveness, validate, Access, AllocFailure, Allocation, Block,
    Loc, Point, Program, RegFile, VReg, VRegInfo,
};

const LIMA: RegFile = RegFile {
    registers: 6,
    lanes: 4,
};

// ---------------------------------------------------------------------------------------------
// Building programs by hand

/// A point from `(vreg, stage, mask)` uses and defs.
fn pt(uses: &[(u32, u8, u8)], defs: &[(u32, u8, u8)]) -> Point {
    let acc = |&(v, s, m): &(u32, u8, u8)| Access::new(VReg(v), s, m);
    Point {
        uses: uses.iter().map(acc).collect(),
        defs: defs.iter().map(acc).collect(),
    }
}

fn block(points: Vec<Point>, succs: &[usize]) -> Block {
    Block {
        points,
        succs: succs.to_vec(),
    }
}

fn vregs(sizes: &[u8]) -> Vec<VRegInfo> {
    sizes.iter().map(|&s| VRegInfo::new(s)).collect()
}

fn loc(reg: u8, lane: u8) -> Loc {
    Loc { reg, lane }
}

/// Allocates, checks, runs the oracle, and returns the allocation.
fn allocate_checked(file: &RegFile, program: &Program) -> Allocation {
    let alloc = allocate(file, program).unwrap_or_else(|e| panic!("{e}"));
    check(file, program, &alloc).unwrap_or_else(|e| panic!("{e}\n{alloc:?}"));
    let mut rng = Rng::new(7);
    assert_eq!(oracle(file, program, &alloc, &mut rng, 8), None);
    alloc
}

fn overlaps(program: &Program, alloc: &Allocation, a: u32, b: u32) -> bool {
    let (la, lb) = (
        alloc.locs[a as usize].unwrap(),
        alloc.locs[b as usize].unwrap(),
    );
    let (sa, sb) = (
        program.vregs[a as usize].size,
        program.vregs[b as usize].size,
    );
    la.reg == lb.reg && la.lane < lb.lane + sb && lb.lane < la.lane + sa
}

// ---------------------------------------------------------------------------------------------
// Hand-written cases

#[test]
fn straight_line_packs_scalars_into_one_register() {
    // Four scalars live at once, then a vec4 built from them: 2 registers at most, and the
    // scalars share one.
    let program = Program {
        blocks: vec![block(
            vec![
                pt(&[], &[(0, 0, 1)]),
                pt(&[], &[(1, 0, 1)]),
                pt(&[], &[(2, 0, 1)]),
                pt(&[], &[(3, 0, 1)]),
                pt(
                    &[(0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1)],
                    &[(4, 2, 0b1111)],
                ),
                pt(&[(4, 0, 0b1111)], &[]),
            ],
            &[],
        )],
        vregs: vregs(&[1, 1, 1, 1, 4]),
    };
    let alloc = allocate_checked(&LIMA, &program);
    assert_eq!(alloc.registers_used, 1, "{alloc:?}");
    assert_eq!(program.max_pressure(), 4);
}

#[test]
fn diamond_with_a_value_defined_in_both_arms() {
    // 0: a = ..; -> 1, 2
    // 1: t = a; phi = t      -> 3
    // 2: phi = a + a         -> 3
    // 3: use phi, a
    let program = Program {
        blocks: vec![
            block(vec![pt(&[], &[(0, 0, 1)])], &[1, 2]),
            block(
                vec![
                    pt(&[(0, 0, 1)], &[(1, 0, 3)]),
                    pt(&[(1, 0, 3)], &[(2, 0, 3)]),
                ],
                &[3],
            ),
            block(vec![pt(&[(0, 0, 1)], &[(2, 1, 3)])], &[3]),
            block(vec![pt(&[(2, 0, 3), (0, 0, 1)], &[])], &[]),
        ],
        vregs: vregs(&[1, 2, 2]),
    };
    let live = liveness(&program);
    assert_eq!(live.live_in(3), &[(VReg(0), 1), (VReg(2), 3)]);
    assert_eq!(live.undefined_at_entry(), &[]);
    let g = interference(&program, &live);
    assert!(g.interferes(VReg(0), VReg(2)));
    assert!(g.interferes(VReg(0), VReg(1)));
    assert!(
        !g.interferes(VReg(1), VReg(2)),
        "t dies where phi is written"
    );
    let alloc = allocate_checked(&LIMA, &program);
    assert_eq!(alloc.registers_used, 1);
}

#[test]
fn loop_carried_value() {
    // 0: i = ..; k = ..       -> 1
    // 1: t = i + k; i = t     -> 1, 2     (i and k live around the back edge)
    // 2: use i
    let program = Program {
        blocks: vec![
            block(vec![pt(&[], &[(0, 0, 1)]), pt(&[], &[(1, 0, 1)])], &[1]),
            block(
                vec![
                    pt(&[(0, 0, 1), (1, 0, 1)], &[(2, 0, 1)]),
                    pt(&[(2, 0, 1)], &[(0, 0, 1)]),
                ],
                &[1, 2],
            ),
            block(vec![pt(&[(0, 0, 1)], &[])], &[]),
        ],
        vregs: vregs(&[1, 1, 1]),
    };
    let live = liveness(&program);
    assert_eq!(live.live_in(1), &[(VReg(0), 1), (VReg(1), 1)]);
    assert_eq!(live.live_out(1), &[(VReg(0), 1), (VReg(1), 1)]);
    let g = interference(&program, &live);
    assert!(g.interferes(VReg(1), VReg(2)), "k is live across t's write");
    assert!(g.interferes(VReg(0), VReg(1)));
    assert!(
        !g.interferes(VReg(0), VReg(2)),
        "i is dead between its read and rewrite"
    );
    let alloc = allocate_checked(&LIMA, &program);
    assert!(!overlaps(&program, &alloc, 1, 2));
    // Two lanes suffice.
    let tiny = RegFile {
        registers: 1,
        lanes: 2,
    };
    allocate_checked(&tiny, &program);
    // Corrupt: k on t's lane — the checker sees k clobbered when t is written.
    let mut bad = alloc.clone();
    bad.locs[1] = bad.locs[2];
    let e = check(&LIMA, &program, &bad).unwrap_err();
    assert_eq!((e.block, e.point), (1, 0), "{e}");
}

#[test]
fn vector_built_component_by_component() {
    // v = vec4 built from temporaries t0..t3; each t_i is written while v is partly live, but
    // only conflicts with v's live components: t_i may take the lane of v's component i.
    let mut points = Vec::new();
    for i in 0..4u32 {
        points.push(pt(&[], &[(1 + i, 0, 1)]));
        points.push(pt(&[(1 + i, 0, 1)], &[(0, 1, 1 << i)]));
    }
    points.push(pt(&[(0, 0, 0b1111)], &[]));
    let program = Program {
        blocks: vec![block(points, &[])],
        vregs: vregs(&[4, 1, 1, 1, 1]),
    };
    let live = liveness(&program);
    assert_eq!(live.undefined_at_entry(), &[]);
    let g = interference(&program, &live);
    assert!(
        !g.interferes(VReg(0), VReg(1)),
        "v is not live yet when t0 is written"
    );
    for t in 2..5u8 {
        assert!(g.interferes(VReg(0), VReg(u32::from(t))));
        // t_i conflicts with components 0..i of v: lanes 0..i of v's location.
        for lane in 0..4 {
            let ok = g.compatible(VReg(0), loc(0, 0), VReg(u32::from(t)), loc(0, lane));
            assert_eq!(ok, lane >= t - 1, "t{} at lane {lane}", t - 1);
        }
        assert!(g.compatible(VReg(0), loc(0, 0), VReg(u32::from(t)), loc(1, 0)));
    }
    let one = RegFile {
        registers: 1,
        lanes: 4,
    };
    let alloc = allocate_checked(&one, &program);
    assert_eq!(alloc.registers_used, 1);
    // t3 written while v.xyz live: it must take v's lane w.
    assert_eq!(alloc.locs[4], Some(loc(0, 3)));
    // A fifth scalar live across the whole construction no longer fits.
    let mut program = program;
    program.vregs.push(VRegInfo::new(1));
    program.blocks[0].points.insert(0, pt(&[], &[(5, 0, 1)]));
    program.blocks[0]
        .points
        .last_mut()
        .unwrap()
        .uses
        .push(Access::new(VReg(5), 0, 1));
    let failure = allocate(&one, &program).unwrap_err();
    assert!(!failure.spill_candidates.is_empty());
    assert_eq!(allocate_checked(&LIMA, &program).registers_used, 2);
}

#[test]
fn stage_sharing_rule() {
    // v0 last read at stage 1 of point 1; v1 written there at stage 2 may share its lane, at
    // stage 1 too (reads come first), at stage 0 it may not.
    let one_lane = RegFile {
        registers: 1,
        lanes: 1,
    };
    for (stage, fits) in [(2, true), (1, true), (0, false)] {
        let program = Program {
            blocks: vec![block(
                vec![
                    pt(&[], &[(0, 0, 1)]),
                    pt(&[(0, 1, 1)], &[(1, stage, 1)]),
                    pt(&[(1, 0, 1)], &[]),
                ],
                &[],
            )],
            vregs: vregs(&[1, 1]),
        };
        assert_eq!(allocate(&one_lane, &program).is_ok(), fits, "stage {stage}");
        if fits {
            allocate_checked(&one_lane, &program);
        } else {
            allocate_checked(&LIMA, &program);
            // Forcing the shared lane is caught by the checker.
            let shared = Allocation {
                locs: vec![Some(loc(0, 0)); 2],
                registers_used: 1,
            };
            let e = check(&LIMA, &program, &shared).unwrap_err();
            assert_eq!((e.block, e.point), (0, 1), "{e}");
        }
    }
}

#[test]
fn two_writes_of_one_point() {
    // Point 1 reads v1 at stage 1 and writes v2 at stage 0 and v3 at stage 1: v2 lands before
    // the read (conflict), v3 after it (may share). Writes of different stages conflict when
    // the earlier value is still live at the later write.
    let program = Program {
        blocks: vec![block(
            vec![
                pt(&[], &[(0, 0, 1), (1, 0, 1)]),
                pt(&[(1, 1, 1)], &[(2, 0, 1), (3, 1, 1)]),
                pt(&[(0, 0, 1), (2, 0, 1), (3, 0, 1)], &[]),
            ],
            &[],
        )],
        vregs: vregs(&[1, 1, 1, 1]),
    };
    let g = interference(&program, &liveness(&program));
    assert!(g.interferes(VReg(0), VReg(1)));
    assert!(
        g.interferes(VReg(1), VReg(2)),
        "v2 written at stage 0 before v1's stage-1 read"
    );
    assert!(!g.interferes(VReg(1), VReg(3)));
    assert!(g.interferes(VReg(2), VReg(3)));
    let three = RegFile {
        registers: 1,
        lanes: 3,
    };
    allocate_checked(&three, &program);
}

#[test]
fn lane0_vregs_start_at_lane_x() {
    // Two scalars live across the write of a lane0 vec2 in a single 4-lane register: they
    // must take lanes z and w.
    let mut program = Program {
        blocks: vec![block(
            vec![
                pt(&[], &[(0, 0, 1)]),
                pt(&[], &[(1, 0, 1)]),
                pt(&[], &[(2, 0, 3)]),
                pt(&[(0, 0, 1), (1, 0, 1), (2, 0, 3)], &[]),
            ],
            &[],
        )],
        vregs: vregs(&[1, 1, 2]),
    };
    program.vregs[2].lane0 = true;
    let one = RegFile {
        registers: 1,
        lanes: 4,
    };
    let alloc = allocate_checked(&one, &program);
    assert_eq!(alloc.locs[2], Some(loc(0, 0)));
    // Many lane0 vregs: each needs its own register's lane x.
    let n = 6;
    let mut points: Vec<Point> = (0..n).map(|v| pt(&[], &[(v, 0, 1)])).collect();
    points.push(pt(&(0..n).map(|v| (v, 0, 1)).collect::<Vec<_>>(), &[]));
    let mut program = Program {
        blocks: vec![block(points, &[])],
        vregs: vregs(&[1; 6]),
    };
    for v in &mut program.vregs {
        v.lane0 = true;
    }
    let alloc = allocate_checked(&LIMA, &program);
    assert!(alloc.locs.iter().all(|l| l.unwrap().lane == 0));
    assert_eq!(alloc.registers_used, 6);
    program.vregs.push(VRegInfo {
        lane0: true,
        ..VRegInfo::new(1)
    });
    program.blocks[0].points.insert(0, pt(&[], &[(6, 0, 1)]));
    program.blocks[0]
        .points
        .last_mut()
        .unwrap()
        .uses
        .push(Access::new(VReg(6), 0, 1));
    assert!(allocate(&LIMA, &program).is_err());
}

#[test]
fn fixed_locations_are_honoured() {
    // An output fixed at r2.z, another at r0.x (vec4), with values live around them.
    let mut program = Program {
        blocks: vec![block(
            vec![
                pt(&[], &[(0, 0, 1)]),
                pt(&[], &[(1, 0, 1)]),
                pt(&[(0, 0, 1)], &[(2, 0, 1)]),
                pt(&[(1, 0, 1)], &[(3, 0, 0b1111)]),
                pt(&[(2, 0, 1), (3, 0, 0b1111), (1, 0, 1)], &[]),
            ],
            &[],
        )],
        vregs: vregs(&[1, 1, 1, 4]),
    };
    program.vregs[2].fixed = Some(loc(2, 2));
    program.vregs[3].fixed = Some(loc(0, 0));
    program.vregs[3].lane0 = true;
    let alloc = allocate_checked(&LIMA, &program);
    assert_eq!(alloc.locs[2], Some(loc(2, 2)));
    assert_eq!(alloc.locs[3], Some(loc(0, 0)));
    assert_eq!(alloc.registers_used, 3);
    assert!(
        alloc.locs[1].unwrap().reg != 0,
        "v1 is live while r0 is written"
    );
    // Two interfering fixed vregs on the same lane: no allocation.
    program.vregs[2].fixed = Some(loc(0, 3));
    let failure = allocate(&LIMA, &program).unwrap_err();
    assert!(failure.message.contains("fixed"), "{failure}");
    // A fixed location outside the file is a malformed program.
    program.vregs[2].fixed = Some(loc(6, 0));
    assert!(validate(&LIMA, &program).is_err());
    assert!(allocate(&LIMA, &program).is_err());
}

/// `n` scalars written one after another, then all read by one point.
fn all_live(n: u32) -> Program {
    let mut points: Vec<Point> = (0..n).map(|v| pt(&[], &[(v, 0, 1)])).collect();
    points.push(pt(&(0..n).map(|v| (v, 0, 1)).collect::<Vec<_>>(), &[]));
    Program {
        blocks: vec![block(points, &[])],
        vregs: vregs(&vec![1; n as usize]),
    }
}

#[test]
fn pressure_over_24_lanes_fails_with_spill_candidates() {
    let program = all_live(24);
    let alloc = allocate_checked(&LIMA, &program);
    assert_eq!(alloc.registers_used, 6);

    let mut program = all_live(25);
    program.vregs[7].spill_cost = 0.5;
    for v in [3, 9, 12] {
        program.vregs[v].spill_cost = f32::INFINITY;
    }
    let AllocFailure {
        spill_candidates,
        message,
    } = allocate(&LIMA, &program).unwrap_err();
    assert!(message.contains("not enough"), "{message}");
    assert_eq!(spill_candidates.first(), Some(&VReg(7)), "cheapest first");
    assert!(spill_candidates
        .iter()
        .all(|v| program.vregs[v.index()].spill_cost.is_finite()));
    assert_eq!(spill_candidates.len(), 22);
    // Nothing spillable: empty list.
    for v in &mut program.vregs {
        v.spill_cost = f32::INFINITY;
    }
    assert_eq!(
        allocate(&LIMA, &program).unwrap_err().spill_candidates,
        vec![]
    );
}

/// What a backend does with a spill candidate: every read of `v` reads a fresh reload
/// temporary written just before, every write writes a fresh temporary stored just after.
/// Temporaries never spill; `v` is no longer accessed.
fn spill(program: &mut Program, v: VReg) {
    let mut vregs = std::mem::take(&mut program.vregs);
    let size = vregs[v.index()].size;
    for block in &mut program.blocks {
        let mut points = Vec::new();
        for mut p in std::mem::take(&mut block.points) {
            let mut temp = |size: u8| {
                vregs.push(VRegInfo {
                    spill_cost: f32::INFINITY,
                    ..VRegInfo::new(size)
                });
                VReg(vregs.len() as u32 - 1)
            };
            let read = p
                .uses
                .iter()
                .filter(|a| a.vreg == v)
                .fold(0, |m, a| m | a.mask);
            if read != 0 {
                let t = temp(size);
                points.push(pt(&[], &[(t.0, 0, read)]));
                p.uses
                    .iter_mut()
                    .filter(|a| a.vreg == v)
                    .for_each(|a| a.vreg = t);
            }
            let written = p
                .defs
                .iter()
                .filter(|a| a.vreg == v)
                .fold(0, |m, a| m | a.mask);
            let store = if written != 0 {
                let t = temp(size);
                p.defs
                    .iter_mut()
                    .filter(|a| a.vreg == v)
                    .for_each(|a| a.vreg = t);
                Some(pt(&[(t.0, 0, written)], &[]))
            } else {
                None
            };
            points.push(p);
            points.extend(store);
        }
        block.points = points;
    }
    program.vregs = vregs;
}

#[test]
fn spill_loop_converges() {
    let mut rng = Rng::new(99);
    let mut converged = 0;
    for seed in 0..40 {
        let mut program = generate(&mut Rng::new(1000 + seed), 120, 14);
        if program.max_pressure() <= 24 {
            continue;
        }
        let mut rounds = 0;
        let alloc = loop {
            match allocate(&LIMA, &program) {
                Ok(alloc) => break alloc,
                Err(e) => {
                    assert!(rounds < 200, "no convergence: {e}");
                    let v = *e.spill_candidates.first().unwrap_or_else(|| panic!("{e}"));
                    spill(&mut program, v);
                    rounds += 1;
                }
            }
        };
        check(&LIMA, &program, &alloc).unwrap();
        assert_eq!(oracle(&LIMA, &program, &alloc, &mut rng, 4), None);
        converged += 1;
    }
    assert!(converged >= 10, "{converged}");
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    let good = Program {
        blocks: vec![block(vec![pt(&[], &[(0, 0, 1)])], &[])],
        vregs: vregs(&[2]),
    };
    assert!(allocate(&LIMA, &good).is_ok());
    let mut cases = Vec::new();
    let mut p = good.clone();
    p.blocks[0].points[0].defs[0].vreg = VReg(1);
    cases.push(p);
    let mut p = good.clone();
    p.blocks[0].succs.push(1);
    cases.push(p);
    let mut p = good.clone();
    p.blocks[0].points[0].defs[0].mask = 0b100;
    cases.push(p);
    let mut p = good.clone();
    p.blocks[0].points[0].defs[0].mask = 0;
    cases.push(p);
    let mut p = good.clone();
    p.vregs[0].size = 5;
    cases.push(p);
    let mut p = good.clone();
    p.vregs[0].size = 0;
    cases.push(p);
    let mut p = good.clone();
    p.vregs[0].spill_cost = f32::NAN;
    cases.push(p);
    let mut p = good.clone();
    p.vregs[0].fixed = Some(loc(0, 3));
    cases.push(p);
    let mut p = good.clone();
    p.vregs[0].fixed = Some(loc(0, 1));
    p.vregs[0].lane0 = true;
    cases.push(p);
    let dummy = Allocation {
        locs: vec![Some(loc(0, 0))],
        registers_used: 1,
    };
    for p in &cases {
        let e = allocate(&LIMA, p).unwrap_err();
        assert!(e.spill_candidates.is_empty());
        assert!(check(&LIMA, p, &dummy).is_err());
        // Analyses ignore what they cannot use.
        let live = liveness(p);
        let _ = interference(p, &live);
        let _ = p.max_pressure();
    }
    for lanes in [0, 9] {
        let file = RegFile {
            registers: 4,
            lanes,
        };
        assert!(allocate(&file, &good).is_err());
    }
    // No registers at all.
    let none = RegFile {
        registers: 0,
        lanes: 4,
    };
    let e = allocate(&none, &good).unwrap_err();
    assert_eq!(e.spill_candidates, vec![]);
    // Empty programs.
    let empty = Program::default();
    let alloc = allocate(&LIMA, &empty).unwrap();
    assert_eq!(alloc.registers_used, 0);
    check(&LIMA, &empty, &alloc).unwrap();
    let unused = Program {
        blocks: vec![block(vec![], &[0])],
        vregs: vregs(&[1, 4]),
    };
    let alloc = allocate(&LIMA, &unused).unwrap();
    assert_eq!(alloc.locs, vec![None, None]);
    check(&LIMA, &unused, &alloc).unwrap();
}

#[test]
fn undefined_values_get_lanes() {
    // v0.y is read but never written; v1 written later must not take its lane.
    let program = Program {
        blocks: vec![
            block(vec![pt(&[], &[(0, 0, 1)])], &[1]),
            block(
                vec![
                    pt(&[], &[(1, 0, 0b111)]),
                    pt(&[(0, 0, 0b11), (1, 0, 0b111)], &[]),
                ],
                &[],
            ),
        ],
        vregs: vregs(&[2, 3]),
    };
    assert_eq!(liveness(&program).undefined_at_entry(), &[(VReg(0), 0b10)]);
    let alloc = allocate_checked(&LIMA, &program);
    assert!(!overlaps(&program, &alloc, 0, 1));
}

#[test]
fn unreachable_blocks_get_locations_but_are_not_checked() {
    let program = Program {
        blocks: vec![
            block(vec![pt(&[], &[(0, 0, 1)]), pt(&[(0, 0, 1)], &[])], &[]),
            block(vec![pt(&[(1, 0, 1), (2, 0, 1)], &[])], &[0]),
        ],
        vregs: vregs(&[1, 1, 1]),
    };
    let alloc = allocate_checked(&LIMA, &program);
    assert!(alloc.locs.iter().all(Option::is_some));
}

// ---------------------------------------------------------------------------------------------
// Random programs

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() >> 33) as usize % n.max(1)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// A random non-empty subset of `mask` (0 if `mask` is 0).
    fn subset(&mut self, mask: u8) -> u8 {
        if mask == 0 {
            return 0;
        }
        loop {
            let m = mask & self.next() as u8;
            if m != 0 {
                return m;
            }
        }
    }
}

/// Structured CFGs (sequences, if/else diamonds with values written in both arms, do-while
/// loops with loop-carried values), vregs of 1 to 4 components written whole or
/// component by component, reads and writes at stages 0 to 2, a few undefined reads,
/// `lane0` vregs, fixed outputs, and sometimes an unreachable block.
struct Gen<'a> {
    rng: &'a mut Rng,
    program: Program,
    /// Vregs that may be read: (vreg, components written so far on every path).
    pool: Vec<(u32, u8)>,
    target: usize,
    points_left: usize,
}

fn generate(rng: &mut Rng, points: usize, target: usize) -> Program {
    let mut g = Gen {
        rng,
        program: Program::default(),
        pool: Vec::new(),
        target,
        points_left: points,
    };
    let mut cur = g.new_block();
    while g.points_left > 0 {
        cur = g.body(cur, 0);
    }
    if g.rng.chance(25) {
        // Fixed outputs, written at the end and read by a final point.
        let out = g.new_vreg();
        g.program.vregs[out as usize] = VRegInfo {
            size: 4,
            lane0: true,
            fixed: Some(loc(0, 0)),
            spill_cost: f32::INFINITY,
        };
        let flag = g.new_vreg();
        g.program.vregs[flag as usize] = VRegInfo {
            size: 1,
            lane0: false,
            fixed: Some(loc(1, 2)),
            spill_cost: 5.0,
        };
        g.def_point(cur, out, 0b1111);
        g.def_point(cur, flag, 1);
        g.program.blocks[cur]
            .points
            .push(pt(&[(out, 0, 0b1111), (flag, 0, 1)], &[]));
    } else {
        // Read what is left, three values per point.
        let uses: Vec<(u32, u8, u8)> = g
            .pool
            .iter()
            .filter(|&&(_, m)| m != 0)
            .map(|&(v, m)| (v, 0, m))
            .collect();
        for chunk in uses.chunks(3) {
            g.program.blocks[cur].points.push(pt(chunk, &[]));
        }
    }
    if g.rng.chance(3) {
        let dead = g.new_block();
        let v = g.new_vreg();
        g.program.blocks[dead].points.push(pt(&[(v, 0, 1)], &[]));
        g.program.blocks[dead].succs.push(cur);
    }
    g.program
}

impl Gen<'_> {
    fn new_block(&mut self) -> usize {
        self.program.blocks.push(Block::default());
        self.program.blocks.len() - 1
    }

    fn new_vreg(&mut self) -> u32 {
        let size = match self.rng.below(20) {
            0..=9 => 1,
            10..=12 => 2,
            13..=14 => 3,
            _ => 4,
        };
        let spill_cost = if self.rng.chance(5) {
            f32::INFINITY
        } else {
            1.0 + self.rng.below(100) as f32
        };
        self.program.vregs.push(VRegInfo {
            size,
            lane0: self.rng.chance(10),
            fixed: None,
            spill_cost,
        });
        self.program.vregs.len() as u32 - 1
    }

    fn size(&self, v: u32) -> u8 {
        self.program.vregs[v as usize].size
    }

    fn full(&self, v: u32) -> u8 {
        ((1u16 << self.size(v)) - 1) as u8
    }

    /// Some reads of pool values (recent ones more often).
    fn uses(&mut self, n: usize) -> Vec<Access> {
        let mut uses = Vec::new();
        for _ in 0..n {
            if self.pool.is_empty() {
                break;
            }
            let len = self.pool.len();
            let i = if self.rng.chance(60) {
                len - 1 - self.rng.below(len.min(3))
            } else {
                self.rng.below(len)
            };
            let (v, defined) = self.pool[i];
            let mask = if self.rng.chance(2) {
                self.rng.subset(self.full(v))
            } else {
                self.rng.subset(defined)
            };
            if mask != 0 {
                uses.push(Access::new(VReg(v), self.rng.below(3) as u8, mask));
            }
        }
        uses
    }

    fn point(&mut self, b: usize) {
        self.points_left = self.points_left.saturating_sub(1);
        let nuses = self.rng.below(4);
        let uses = self.uses(nuses);
        let ndefs = match self.rng.below(20) {
            0..=2 => 0,
            3..=16 => 1,
            _ => 2,
        };
        let mut defs = Vec::new();
        for _ in 0..ndefs {
            let stage = self.rng.below(3) as u8;
            if self.pool.is_empty() || self.rng.chance(55) {
                let v = self.new_vreg();
                let mask = if self.rng.chance(70) {
                    self.full(v)
                } else {
                    self.rng.subset(self.full(v))
                };
                defs.push(Access::new(VReg(v), stage, mask));
                self.pool.push((v, mask));
            } else {
                let i = self.rng.below(self.pool.len());
                let v = self.pool[i].0;
                let mask = self.rng.subset(self.full(v));
                defs.push(Access::new(VReg(v), stage, mask));
                self.pool[i].1 |= mask;
            }
        }
        while !self.pool.is_empty() && (self.pool.len() > self.target || self.rng.chance(12)) {
            let i = self.rng.below(self.pool.len());
            self.pool.remove(i);
        }
        self.program.blocks[b].points.push(Point {
            uses: uses.into_iter().collect(),
            defs: defs.into_iter().collect(),
        });
    }

    /// A point writing `mask` of `v`, reading a couple of pool values.
    fn def_point(&mut self, b: usize, v: u32, mask: u8) {
        let uses = self.uses(2);
        let stage = self.rng.below(3) as u8;
        self.program.blocks[b].points.push(Point {
            uses: uses.into_iter().collect(),
            defs: std::iter::once(Access::new(VReg(v), stage, mask)).collect(),
        });
    }

    fn body(&mut self, mut cur: usize, depth: usize) -> usize {
        for _ in 0..1 + self.rng.below(3) {
            if self.points_left == 0 {
                break;
            }
            for _ in 0..1 + self.rng.below(6) {
                self.point(cur);
            }
            match self.rng.below(10) {
                0..=2 if depth < 3 => cur = self.diamond(cur, depth),
                3..=4 if depth < 3 => cur = self.do_while(cur, depth),
                _ => {}
            }
        }
        cur
    }

    fn diamond(&mut self, cur: usize, depth: usize) -> usize {
        let then_b = self.new_block();
        let else_b = self.new_block();
        let join = self.new_block();
        self.program.blocks[cur].succs = vec![then_b, else_b];
        let phi = self.rng.chance(50).then(|| self.new_vreg());
        let before = self.pool.clone();
        let then_end = self.body(then_b, depth + 1);
        if let Some(v) = phi {
            self.def_point(then_end, v, self.full(v));
        }
        let then_pool = std::mem::replace(&mut self.pool, before);
        let else_end = if self.rng.chance(30) {
            else_b
        } else {
            self.body(else_b, depth + 1)
        };
        if let Some(v) = phi {
            self.def_point(else_end, v, self.full(v));
        }
        self.program.blocks[then_end].succs = vec![join];
        self.program.blocks[else_end].succs = vec![join];
        // Keep values written on both paths; sometimes one written on one path only (an
        // undefined read on the other).
        let else_pool = std::mem::take(&mut self.pool);
        for &(v, m) in &then_pool {
            match else_pool.iter().find(|e| e.0 == v) {
                Some(&(_, n)) if m & n != 0 => self.pool.push((v, m & n)),
                _ if self.rng.chance(5) => self.pool.push((v, m)),
                _ => {}
            }
        }
        if let Some(v) = phi {
            self.pool.push((v, self.full(v)));
        }
        join
    }

    fn do_while(&mut self, cur: usize, depth: usize) -> usize {
        let header = self.new_block();
        self.program.blocks[cur].succs = vec![header];
        let mut carried: Vec<(u32, u8)> = Vec::new();
        for _ in 0..self.rng.below(3) {
            if !self.pool.is_empty() {
                carried.push(self.pool[self.rng.below(self.pool.len())]);
            }
        }
        let end = self.body(header, depth + 1);
        for (v, m) in carried {
            if m != 0 {
                self.def_point(end, v, m);
            }
        }
        let exit = self.new_block();
        self.program.blocks[end].succs = vec![header, exit];
        exit
    }
}

/// Runs `walks` random paths (at most 400 points each) with concrete values: every written
/// component gets a fresh token, in the virtual registers and in the lanes of its location.
/// A read of a component that holds a token (not undefined) must find the same token in its
/// lane. Returns the first mismatch.
fn oracle(
    file: &RegFile,
    program: &Program,
    alloc: &Allocation,
    rng: &mut Rng,
    walks: usize,
) -> Option<String> {
    let lanes = usize::from(file.lanes);
    let lane = |v: VReg, i: u8| {
        let l = alloc.locs[v.index()].expect("accessed vreg without location");
        usize::from(l.reg) * lanes + usize::from(l.lane) + usize::from(i)
    };
    for _ in 0..walks {
        let mut virt = vec![[0u64; 8]; program.vregs.len()];
        let mut phys = vec![0u64; usize::from(file.registers) * lanes];
        let mut token = 0u64;
        let mut b = 0;
        let mut steps = 0;
        'walk: while let Some(blk) = program.blocks.get(b) {
            for (p, point) in blk.points.iter().enumerate() {
                let mut stages: Vec<u8> = point
                    .uses
                    .iter()
                    .chain(&point.defs)
                    .map(|a| a.stage)
                    .collect();
                stages.sort_unstable();
                stages.dedup();
                for s in stages {
                    for a in point.uses.iter().filter(|a| a.stage == s) {
                        for i in (0..8).filter(|i| a.mask & (1 << i) != 0) {
                            let want = virt[a.vreg.index()][i as usize];
                            if want != 0 && phys[lane(a.vreg, i)] != want {
                                return Some(format!("block {b} point {p}: {}.{i}", a.vreg));
                            }
                        }
                    }
                    for a in point.defs.iter().filter(|a| a.stage == s) {
                        for i in (0..8).filter(|i| a.mask & (1 << i) != 0) {
                            token += 1;
                            virt[a.vreg.index()][i as usize] = token;
                            phys[lane(a.vreg, i)] = token;
                        }
                    }
                }
                steps += 1;
                if steps > 400 {
                    break 'walk;
                }
            }
            if blk.succs.is_empty() {
                break;
            }
            b = blk.succs[rng.below(blk.succs.len())];
        }
    }
    None
}

#[derive(Debug, Default)]
struct Stats {
    programs: usize,
    low: usize,
    low_ok: usize,
    mid: usize,
    mid_ok: usize,
    /// Successes using more than `ceil(pressure / 4)` registers, and more than one more.
    one_over_bound: usize,
    two_over_bound: usize,
    corruptions: usize,
    caught: usize,
    oracle_caught: usize,
}

#[test]
fn random_programs_allocate_check_and_corruptions_are_caught() {
    let mut s = Stats::default();
    for seed in 0..2000u64 {
        let mut rng = Rng::new(seed);
        let points = 20 + rng.below(150);
        let target = 1 + rng.below(10);
        let program = generate(&mut rng, points, target);
        validate(&LIMA, &program).unwrap();
        s.programs += 1;
        let pressure = program.max_pressure();
        let result = allocate(&LIMA, &program);
        if pressure <= 16 {
            s.low += 1;
            s.low_ok += usize::from(result.is_ok());
        } else if pressure <= 24 {
            s.mid += 1;
            s.mid_ok += usize::from(result.is_ok());
        }
        let alloc = match result {
            Ok(alloc) => alloc,
            Err(e) => {
                assert!(e
                    .spill_candidates
                    .iter()
                    .all(|v| program.vregs[v.index()].spill_cost.is_finite()));
                continue;
            }
        };
        check(&LIMA, &program, &alloc).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(
            oracle(&LIMA, &program, &alloc, &mut rng, 3),
            None,
            "seed {seed}"
        );
        let lower_bound = pressure.div_ceil(4).max(1);
        if u32::from(alloc.registers_used) > lower_bound {
            s.one_over_bound += 1;
        }
        if u32::from(alloc.registers_used) > lower_bound + 1 {
            s.two_over_bound += 1;
        }

        // Corrupt: move one vreg onto the lanes of an interfering one.
        let graph = interference(&program, &liveness(&program));
        let movable: Vec<u32> = (0..program.vregs.len() as u32)
            .filter(|&v| program.vregs[v as usize].fixed.is_none() && graph.degree(VReg(v)) > 0)
            .collect();
        for _ in 0..3 {
            if movable.is_empty() {
                break;
            }
            let v = movable[rng.below(movable.len())];
            let neighbours = graph.neighbors(VReg(v));
            let w = neighbours[rng.below(neighbours.len())];
            let lw = alloc.locs[w.index()].unwrap();
            let sv = program.vregs[v as usize].size;
            let lanes: Vec<u8> = (0..=4 - sv)
                .filter(|&l| !graph.compatible(VReg(v), loc(lw.reg, l), w, lw))
                .filter(|&l| l == 0 || !program.vregs[v as usize].lane0)
                .collect();
            if lanes.is_empty() {
                continue;
            }
            let mut bad = alloc.clone();
            bad.locs[v as usize] = Some(loc(lw.reg, lanes[rng.below(lanes.len())]));
            s.corruptions += 1;
            let caught = check(&LIMA, &program, &bad).is_err();
            let oracle_caught = oracle(&LIMA, &program, &bad, &mut rng, 6).is_some();
            assert!(
                caught || !oracle_caught,
                "seed {seed}: a clobbered read the checker missed"
            );
            s.caught += usize::from(caught);
            s.oracle_caught += usize::from(oracle_caught);
        }
    }
    let rate = |ok: usize, n: usize| ok as f64 / n.max(1) as f64;
    assert!(s.low > 500 && s.mid > 100, "{s:?}");
    assert!(rate(s.low_ok, s.low) >= 0.99, "{s:?}");
    assert!(rate(s.mid_ok, s.mid) >= 0.75, "{s:?}");
    assert!(s.corruptions > 1000, "{s:?}");
    assert!(rate(s.caught, s.corruptions) >= 0.99, "{s:?}");
    assert!(rate(s.two_over_bound, s.programs) <= 0.03, "{s:?}");
}

#[test]
fn large_program() {
    // ~23k points, ~13k vregs, ~5k blocks: allocation and checking stay fast (no quadratic
    // blowup) and correct.
    let mut rng = Rng::new(1);
    let program = chain(&mut rng, 220, 4);
    let points: usize = program.blocks.iter().map(|b| b.points.len()).sum();
    assert!(points > 20_000 && program.vregs.len() > 10_000, "{points}");
    let alloc = allocate(&LIMA, &program).unwrap();
    check(&LIMA, &program, &alloc).unwrap();
    assert_eq!(oracle(&LIMA, &program, &alloc, &mut rng, 2), None);
}

/// `count` random programs run one after another (many points, the pressure of one part).
fn chain(rng: &mut Rng, count: usize, max_target: usize) -> Program {
    let mut program = Program::default();
    let mut exits: Vec<usize> = Vec::new();
    for _ in 0..count {
        let points = 20 + rng.below(150);
        let target = 1 + rng.below(max_target);
        let mut part = generate(rng, points, target);
        // Write what the part reads undefined, so nothing stays live across parts.
        let init: Vec<Point> = liveness(&part)
            .undefined_at_entry()
            .iter()
            .map(|&(v, m)| pt(&[], &[(v.0, 0, m)]))
            .collect();
        part.blocks[0].points.splice(0..0, init);
        let (b0, v0) = (program.blocks.len(), program.vregs.len() as u32);
        for &e in &exits {
            program.blocks[e].succs.push(b0);
        }
        exits.clear();
        for (i, mut block) in part.blocks.into_iter().enumerate() {
            for s in &mut block.succs {
                *s += b0;
            }
            for p in &mut block.points {
                for a in p.uses.iter_mut().chain(p.defs.iter_mut()) {
                    a.vreg.0 += v0;
                }
            }
            if block.succs.is_empty() {
                exits.push(b0 + i);
            }
            program.blocks.push(block);
        }
        program.vregs.extend(
            part.vregs
                .into_iter()
                .map(|v| VRegInfo { fixed: None, ..v }),
        );
    }
    program
}
