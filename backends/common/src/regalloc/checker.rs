//! The allocation checker: proves that an [`Allocation`] is correct for a [`Program`],
//! independently of how it was made (regalloc2's `checker.rs`; DESIGN rule 11).
//!
//! First the shape: every accessed virtual register has a location inside the file, its
//! components fit in the register, `lane0` and `fixed` constraints hold, and
//! `registers_used` covers every location and fits the file.
//!
//! Then a symbolic execution over the CFG. The abstract state maps each lane of the file to
//! the `(vreg, component)` it is known to hold, or to nothing. At the entry, each component
//! read before being written on some path (an undefined value) is placed in its lane — an
//! undefined value may be anything, but its lanes must not be taken by another value while it
//! is live. A point runs its stages in ascending order; at each stage its reads, then its
//! writes. A write of vreg `v` with mask `m` at `L` sets lane `L.lane + i` to `(v, i)` for each
//! `i` in `m`; two writes of different vregs at one stage of one point may not overlap (they
//! land at the same time). A read of `v` with mask `m` requires `(v, i)` in lane `L.lane + i`
//! for each `i` in `m`. At block entries states are joined by keeping only the facts equal on
//! all incoming edges, iterated to a fixpoint (facts only disappear, so it terminates); then
//! every reachable block is checked against its final entry state. Unreachable blocks never
//! run and are not checked.

use super::liveness::{liveness, reverse_postorder_reachable};
use super::{lane_name, validate, Allocation, CheckError, Loc, Point, Program, RegFile, VReg};

/// What a lane is known to hold.
type Fact = Option<(VReg, u8)>;

/// Checks that `alloc` is a correct allocation of `program` in `file` (see the module doc).
pub fn check(file: &RegFile, program: &Program, alloc: &Allocation) -> Result<(), CheckError> {
    validate(file, program).map_err(|e| {
        let (block, point) = e.location().unwrap_or((0, 0));
        CheckError {
            block,
            point,
            message: e.to_string(),
        }
    })?;
    check_shape(file, program, alloc)?;
    let lanes = usize::from(file.lanes);
    let nlanes = usize::from(file.registers) * lanes;
    let checker = Checker { alloc, lanes };

    // Entry state: undefined values in their lanes.
    let live = liveness(program);
    let mut entry: Vec<Fact> = vec![None; nlanes];
    for &(v, mask) in live.undefined_at_entry() {
        if let Some(loc) = alloc.loc(v) {
            for i in (0..8u8).filter(|i| mask & (1 << i) != 0) {
                if let Some(slot) = entry.get_mut(checker.lane(loc, i)) {
                    *slot = Some((v, i));
                }
            }
        }
    }

    // Fixpoint over reachable blocks.
    let order = reverse_postorder_reachable(program);
    let mut states: Vec<Option<Vec<Fact>>> = vec![None; program.blocks.len()];
    if order.is_empty() {
        return Ok(());
    }
    states[0] = Some(entry);
    let mut rank = vec![usize::MAX; program.blocks.len()];
    for (i, &b) in order.iter().enumerate() {
        rank[b] = i;
    }
    let mut dirty = vec![false; program.blocks.len()];
    dirty[0] = true;
    let mut changed = true;
    let mut state = Vec::with_capacity(nlanes);
    while changed {
        changed = false;
        for &b in &order {
            if !std::mem::replace(&mut dirty[b], false) {
                continue;
            }
            state.clear();
            state.extend_from_slice(states[b].as_deref().unwrap_or_default());
            for (p, point) in program.blocks[b].points.iter().enumerate() {
                // Errors are reported by the final pass, against the fixpoint.
                let _ = checker.step(b, p, point, &mut state, false);
            }
            for &s in &program.blocks[b].succs {
                let grew = match &mut states[s] {
                    slot @ None => {
                        *slot = Some(state.clone());
                        true
                    }
                    Some(old) => {
                        let mut lost = false;
                        for (o, n) in old.iter_mut().zip(&state) {
                            if o.is_some() && o != n {
                                *o = None;
                                lost = true;
                            }
                        }
                        lost
                    }
                };
                if grew {
                    dirty[s] = true;
                    // A back edge: run another sweep.
                    if rank[s] <= rank[b] {
                        changed = true;
                    }
                }
            }
        }
    }

    for &b in &order {
        state.clear();
        state.extend_from_slice(states[b].as_deref().unwrap_or_default());
        for (p, point) in program.blocks[b].points.iter().enumerate() {
            checker.step(b, p, point, &mut state, true)?;
        }
    }
    Ok(())
}

/// Locations exist, fit, and honour the constraints.
fn check_shape(file: &RegFile, program: &Program, alloc: &Allocation) -> Result<(), CheckError> {
    if alloc.locs.len() != program.vregs.len() {
        return Err(CheckError {
            block: 0,
            point: 0,
            message: format!(
                "the allocation has {} locations for {} vregs",
                alloc.locs.len(),
                program.vregs.len()
            ),
        });
    }
    if alloc.registers_used > file.registers {
        return Err(CheckError {
            block: 0,
            point: 0,
            message: format!(
                "registers_used is {} but the file has {} registers",
                alloc.registers_used, file.registers
            ),
        });
    }
    let mut done = vec![false; program.vregs.len()];
    for (b, block) in program.blocks.iter().enumerate() {
        for (p, point) in block.points.iter().enumerate() {
            for a in point.uses.iter().chain(point.defs.iter()) {
                let v = a.vreg;
                if std::mem::replace(&mut done[v.index()], true) {
                    continue;
                }
                let info = &program.vregs[v.index()];
                let err = |message: String| CheckError {
                    block: b,
                    point: p,
                    message,
                };
                let Some(loc) = alloc.locs[v.index()] else {
                    return Err(err(format!("{v} is accessed but has no location")));
                };
                if loc.reg >= file.registers
                    || u32::from(loc.lane) + u32::from(info.size) > u32::from(file.lanes)
                {
                    return Err(err(format!(
                        "{v} (size {}) at {loc} does not fit in {} registers of {} lanes",
                        info.size, file.registers, file.lanes
                    )));
                }
                if loc.reg >= alloc.registers_used {
                    return Err(err(format!(
                        "{v} is at {loc} but registers_used is {}",
                        alloc.registers_used
                    )));
                }
                if info.lane0 && loc.lane != 0 {
                    return Err(err(format!("{v} must start at lane x but is at {loc}")));
                }
                if let Some(fixed) = info.fixed {
                    if fixed != loc {
                        return Err(err(format!("{v} is fixed at {fixed} but is at {loc}")));
                    }
                }
            }
        }
    }
    Ok(())
}

#[derive(Debug)]
struct Checker<'a> {
    alloc: &'a Allocation,
    lanes: usize,
}

impl Checker<'_> {
    /// Index in the state of component `i` of a vreg at `loc` (shape already checked).
    fn lane(&self, loc: Loc, i: u8) -> usize {
        usize::from(loc.reg) * self.lanes + usize::from(loc.lane) + usize::from(i)
    }

    fn describe(&self, lane: usize) -> String {
        format!(
            "r{}.{}",
            lane / self.lanes,
            lane_name((lane % self.lanes) as u8)
        )
    }

    /// Runs one point on `state`; with `report`, the first bad read or overlapping writes is
    /// an error.
    fn step(
        &self,
        block: usize,
        point: usize,
        p: &Point,
        state: &mut [Fact],
        report: bool,
    ) -> Result<(), CheckError> {
        let err = |message: String| CheckError {
            block,
            point,
            message,
        };
        for stage in p.stages() {
            if report {
                for a in p.uses.iter().filter(|a| a.stage == stage) {
                    let Some(loc) = self.alloc.loc(a.vreg) else {
                        continue;
                    };
                    for i in (0..8u8).filter(|i| a.mask & (1 << i) != 0) {
                        let lane = self.lane(loc, i);
                        let found = state.get(lane).copied().flatten();
                        if found != Some((a.vreg, i)) {
                            let holds = match found {
                                Some((w, j)) => format!("{w}.{}", lane_name(j)),
                                None => "no known value on some path".to_string(),
                            };
                            return Err(err(format!(
                                "stage {stage} reads {}.{} from {}, which holds {holds}",
                                a.vreg,
                                lane_name(i),
                                self.describe(lane)
                            )));
                        }
                    }
                }
            }
            let defs = || p.defs.iter().filter(|a| a.stage == stage);
            if report {
                for (k, a) in defs().enumerate() {
                    for b in defs().skip(k + 1).filter(|b| b.vreg != a.vreg) {
                        if let (Some(la), Some(lb)) =
                            (self.alloc.loc(a.vreg), self.alloc.loc(b.vreg))
                        {
                            let lanes_a = (0..8u8)
                                .filter(|i| a.mask & (1 << i) != 0)
                                .map(|i| self.lane(la, i));
                            let clash = lanes_a.into_iter().find(|&x| {
                                (0..8u8)
                                    .filter(|i| b.mask & (1 << i) != 0)
                                    .any(|i| self.lane(lb, i) == x)
                            });
                            if let Some(x) = clash {
                                return Err(err(format!(
                                    "stage {stage} writes {} and {} to the same lane {}",
                                    a.vreg,
                                    b.vreg,
                                    self.describe(x)
                                )));
                            }
                        }
                    }
                }
            }
            for a in defs() {
                let Some(loc) = self.alloc.loc(a.vreg) else {
                    continue;
                };
                for i in (0..8u8).filter(|i| a.mask & (1 << i) != 0) {
                    if let Some(slot) = state.get_mut(self.lane(loc, i)) {
                        *slot = Some((a.vreg, i));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Access, Block, VRegInfo};
    use super::*;

    fn point(uses: &[(u32, u8, u8)], defs: &[(u32, u8, u8)]) -> Point {
        let acc = |&(v, s, m): &(u32, u8, u8)| Access::new(VReg(v), s, m);
        Point {
            uses: uses.iter().map(acc).collect(),
            defs: defs.iter().map(acc).collect(),
        }
    }

    const FILE: RegFile = RegFile {
        registers: 2,
        lanes: 4,
    };

    fn alloc(locs: &[(u8, u8)]) -> Allocation {
        Allocation {
            locs: locs
                .iter()
                .map(|&(reg, lane)| Some(Loc { reg, lane }))
                .collect(),
            registers_used: locs.iter().map(|l| l.0 + 1).max().unwrap_or(0),
        }
    }

    fn straight(points: Vec<Point>, sizes: &[u8]) -> Program {
        Program {
            blocks: vec![Block {
                points,
                succs: vec![],
            }],
            vregs: sizes.iter().map(|&s| VRegInfo::new(s)).collect(),
        }
    }

    #[test]
    fn clobbered_value_is_reported_where_it_is_read() {
        let program = straight(
            vec![
                point(&[], &[(0, 0, 1)]),
                point(&[], &[(1, 0, 1)]),
                point(&[(0, 0, 1), (1, 0, 1)], &[]),
            ],
            &[1, 1],
        );
        assert_eq!(check(&FILE, &program, &alloc(&[(0, 0), (0, 1)])), Ok(()));
        let e = check(&FILE, &program, &alloc(&[(0, 0), (0, 0)])).unwrap_err();
        assert_eq!((e.block, e.point), (0, 2));
        assert_eq!(e.message, "stage 0 reads v0.x from r0.x, which holds v1.x");
    }

    #[test]
    fn stage_order_inside_a_point() {
        // v0 read at stage 1, v1 written at stage 1 into the same lane: fine. At stage 0: not.
        let mut program = straight(
            vec![
                point(&[], &[(0, 0, 1)]),
                point(&[(0, 1, 1)], &[(1, 1, 1)]),
                point(&[(1, 0, 1)], &[]),
            ],
            &[1, 1],
        );
        let same = alloc(&[(0, 0), (0, 0)]);
        assert_eq!(check(&FILE, &program, &same), Ok(()));
        program.blocks[0].points[1].defs[0].stage = 0;
        assert!(check(&FILE, &program, &same).is_err());
    }

    #[test]
    fn same_stage_writes_may_not_overlap() {
        let program = straight(vec![point(&[], &[(0, 0, 1), (1, 0, 3)])], &[1, 2]);
        assert!(check(&FILE, &program, &alloc(&[(0, 0), (0, 1)])).is_ok());
        let e = check(&FILE, &program, &alloc(&[(0, 1), (0, 0)])).unwrap_err();
        assert!(e.message.contains("same lane r0.y"), "{e}");
    }

    #[test]
    fn shape_errors() {
        let mut program = straight(vec![point(&[], &[(0, 0, 3)])], &[2]);
        let e = check(&FILE, &program, &alloc(&[(0, 3)])).unwrap_err();
        assert!(e.message.contains("does not fit"), "{e}");
        let mut a = alloc(&[(2, 0)]);
        assert!(check(&FILE, &program, &a).is_err());
        a.registers_used = 2;
        let e = check(&FILE, &program, &a).unwrap_err();
        assert!(e.message.contains("does not fit"), "{e}");
        let mut a = alloc(&[(1, 0)]);
        a.registers_used = 1;
        let e = check(&FILE, &program, &a).unwrap_err();
        assert!(e.message.contains("registers_used"), "{e}");
        program.vregs[0].lane0 = true;
        let e = check(&FILE, &program, &alloc(&[(0, 1)])).unwrap_err();
        assert!(e.message.contains("lane x"), "{e}");
        program.vregs[0].fixed = Some(Loc { reg: 1, lane: 0 });
        let e = check(&FILE, &program, &alloc(&[(0, 0)])).unwrap_err();
        assert!(e.message.contains("fixed at r1.x"), "{e}");
        assert!(check(&FILE, &program, &alloc(&[(1, 0)])).is_ok());
        let e = check(&FILE, &program, &alloc(&[])).unwrap_err();
        assert!(e.message.contains("0 locations for 1 vregs"), "{e}");
        let none = Allocation {
            locs: vec![None],
            registers_used: 0,
        };
        assert!(check(&FILE, &program, &none)
            .unwrap_err()
            .message
            .contains("no location"));
    }

    #[test]
    fn malformed_programs_are_errors_not_panics() {
        let program = straight(vec![point(&[(5, 0, 1)], &[])], &[1]);
        let e = check(&FILE, &program, &alloc(&[(0, 0)])).unwrap_err();
        assert_eq!((e.block, e.point), (0, 0));
        let mut program = straight(vec![point(&[], &[(0, 0, 2)])], &[1]);
        assert!(check(&FILE, &program, &alloc(&[(0, 0)])).is_err());
        program.blocks[0].succs.push(3);
        assert!(check(&FILE, &program, &alloc(&[(0, 0)])).is_err());
        let bad_file = RegFile {
            registers: 1,
            lanes: 9,
        };
        assert!(check(&bad_file, &Program::default(), &alloc(&[])).is_err());
    }

    #[test]
    fn join_keeps_only_facts_common_to_all_edges() {
        // 0: v0 = .. -> 1, 2;  1: v1 = .. (clobbers v0 if same lane) -> 3;  2: -> 3;  3: use v0
        let program = Program {
            blocks: vec![
                Block {
                    points: vec![point(&[], &[(0, 0, 1)])],
                    succs: vec![1, 2],
                },
                Block {
                    points: vec![point(&[], &[(1, 0, 1)])],
                    succs: vec![3],
                },
                Block {
                    points: vec![],
                    succs: vec![3],
                },
                Block {
                    points: vec![point(&[(0, 0, 1)], &[])],
                    succs: vec![],
                },
            ],
            vregs: vec![VRegInfo::new(1), VRegInfo::new(1)],
        };
        assert!(check(&FILE, &program, &alloc(&[(0, 0), (0, 1)])).is_ok());
        let e = check(&FILE, &program, &alloc(&[(0, 0), (0, 0)])).unwrap_err();
        assert_eq!((e.block, e.point), (3, 0));
        assert!(e.message.contains("no known value"), "{e}");
    }

    #[test]
    fn loop_back_edge_clobber_is_found() {
        // 0: v0 = .. -> 1;  1: use v0; v1 = ..; use v1 -> 1, 2;  2: exit
        let program = Program {
            blocks: vec![
                Block {
                    points: vec![point(&[], &[(0, 0, 1)])],
                    succs: vec![1],
                },
                Block {
                    points: vec![point(&[(0, 0, 1)], &[(1, 0, 1)]), point(&[(1, 0, 1)], &[])],
                    succs: vec![1, 2],
                },
                Block {
                    points: vec![],
                    succs: vec![],
                },
            ],
            vregs: vec![VRegInfo::new(1), VRegInfo::new(1)],
        };
        assert!(check(&FILE, &program, &alloc(&[(0, 0), (0, 1)])).is_ok());
        let e = check(&FILE, &program, &alloc(&[(0, 0), (0, 0)])).unwrap_err();
        assert_eq!((e.block, e.point), (1, 0));
    }

    #[test]
    fn undefined_values_hold_their_lanes_from_the_entry() {
        // v0 is read without a write; v1 written then read. Sharing a lane breaks v0.
        let program = straight(
            vec![
                point(&[], &[(1, 0, 1)]),
                point(&[(0, 0, 1), (1, 0, 1)], &[]),
            ],
            &[1, 1],
        );
        assert!(check(&FILE, &program, &alloc(&[(0, 0), (0, 1)])).is_ok());
        assert!(check(&FILE, &program, &alloc(&[(0, 0), (0, 0)])).is_err());
    }
}
