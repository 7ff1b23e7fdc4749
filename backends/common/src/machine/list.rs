//! Windowed list scheduling of one block into bundles (VLIW instructions, or one op each on
//! single-issue targets).
//!
//! Instructions are filled top-down: for each new bundle the ops whose predecessors
//! ([`super::deps::deps`]) all sit in earlier bundles are offered to [`Bundle::try_place`] in
//! priority order — urgent ops first (spill stores, which end live ranges), then by decreasing
//! critical-path height, then program order. Only the `window` earliest unscheduled ops (in
//! program order) are candidates, which keeps live ranges close to the source's: a wide window
//! packs more, a narrow one needs fewer registers (the spill driver tries several).
//!
//! *Just-in-time* ops (recomputable ones that read no register: a constant or uniform moved
//! or clamped into a register, a rematerialized copy) would otherwise go into the first
//! instruction with a free unit, long before their reader, and hold a register all that time.
//! When the caller asks for it ([`list_schedule_just_in_time`], for schedules under register
//! pressure: elsewhere the early placement is free and often shortens the code), they wait
//! instead until a reader of theirs has every other predecessor placed (the reader can then
//! follow at once), and are offered after the other candidates. An instruction that would stay
//! empty takes them anyway, so the wait can never stall the schedule.
//!
//! The dependence graph and the priority order do not depend on the window: [`Priorities`]
//! holds them, so that a caller trying several windows on one block builds them once
//! ([`list_schedule_with`]).

use smallvec::SmallVec;

use super::deps::{deps, Deps};
use super::pressure::{BlockPressure, Tracker};
use super::MachOp;

/// An instruction being filled.
pub trait Bundle<O>: Default {
    /// Adds `op` if it fits (units, immediates, ports …); false leaves the bundle unchanged.
    fn try_place(&mut self, op: &O) -> bool;
    /// Whether nothing was placed.
    fn is_empty(&self) -> bool;
}

/// The window-independent part of scheduling one block: its dependence graph, and the
/// position of every op in the priority order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Priorities {
    deps: Deps,
    rank: Vec<u32>,
    /// Per op: whether it is just-in-time (see the module documentation).
    late: Vec<bool>,
    /// For the just-in-time ops (empty for the others): the ops that depend on them.
    late_succs: Vec<SmallVec<[u32; 2]>>,
}

impl Priorities {
    /// The dependence graph of `ops` and their order: `urgent` ones first, then by decreasing
    /// height, then program order.
    pub fn new<O: MachOp>(ops: &[O], urgent: impl Fn(&O) -> bool) -> Priorities {
        Priorities::with_just_in_time(ops, urgent, |_| false)
    }

    /// [`Priorities::new`], with the ops for which `just_in_time` holds scheduled just in
    /// time (module documentation).
    pub fn with_just_in_time<O: MachOp>(
        ops: &[O],
        urgent: impl Fn(&O) -> bool,
        just_in_time: impl Fn(&O) -> bool,
    ) -> Priorities {
        let deps = deps(ops);
        let n = ops.len();
        let late: Vec<bool> = ops.iter().map(just_in_time).collect();
        let mut order: Vec<(bool, std::cmp::Reverse<u32>, u32)> = (0..n)
            .map(|i| {
                (
                    !urgent(&ops[i]),
                    std::cmp::Reverse(deps.height[i]),
                    i as u32,
                )
            })
            .collect();
        order.sort_unstable();
        let mut rank = vec![0u32; n];
        for (r, &(_, _, i)) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let mut late_succs = vec![SmallVec::new(); if late.contains(&true) { n } else { 0 }];
        if !late_succs.is_empty() {
            for s in 0..n {
                for &p in deps.preds(s) {
                    if late[p as usize] {
                        late_succs[p as usize].push(s as u32);
                    }
                }
            }
        }
        Priorities {
            deps,
            rank,
            late,
            late_succs,
        }
    }

    /// Whether just-in-time op `i` may be placed now (`at`: the bundle of every placed op):
    /// it has no dependent, or one whose other predecessors, just-in-time ones aside, are all
    /// placed.
    fn due(&self, i: usize, at: &[usize]) -> bool {
        let succs = &self.late_succs[i];
        succs.is_empty()
            || succs.iter().any(|&s| {
                self.deps
                    .preds(s as usize)
                    .iter()
                    .all(|&p| self.late[p as usize] || at[p as usize] != usize::MAX)
            })
    }

    /// The dependence graph.
    pub fn deps(&self) -> &Deps {
        &self.deps
    }
}

/// Schedules `ops` into bundles; returns them and the bundle index of every op. Fails with
/// the index of an op that does not fit even an empty bundle.
pub fn list_schedule<O: MachOp, B: Bundle<O>>(
    ops: &[O],
    window: usize,
    urgent: impl Fn(&O) -> bool,
) -> Result<(Vec<B>, Vec<usize>), usize> {
    list_schedule_with(ops, &Priorities::new(ops, urgent), window)
}

/// [`list_schedule`] with the block's [`Priorities`] already built (from the same `ops`).
pub fn list_schedule_with<O, B: Bundle<O>>(
    ops: &[O],
    prio: &Priorities,
    window: usize,
) -> Result<(Vec<B>, Vec<usize>), usize> {
    schedule(ops, prio, window, None, false)
}

/// [`list_schedule_with`] (or [`list_schedule_capped`], with `pressure`) placing the
/// just-in-time ops of `prio` just in time (module documentation).
pub fn list_schedule_just_in_time<O, B: Bundle<O>>(
    ops: &[O],
    prio: &Priorities,
    window: usize,
    pressure: Option<(&BlockPressure, u32)>,
) -> Result<(Vec<B>, Vec<usize>), usize> {
    schedule(ops, prio, window, pressure, true)
}

/// [`list_schedule_with`] that watches register pressure ([`BlockPressure`], facts of the same
/// `ops`): while the live components are at `limit` or above, candidates that free registers
/// come first (fewest started components, then priority); an op that would raise the count
/// above `limit` waits unless the instruction is still empty (every instruction places
/// something, so the schedule always completes).
pub fn list_schedule_capped<O, B: Bundle<O>>(
    ops: &[O],
    prio: &Priorities,
    window: usize,
    pressure: &BlockPressure,
    limit: u32,
) -> Result<(Vec<B>, Vec<usize>), usize> {
    schedule(ops, prio, window, Some((pressure, limit)), false)
}

/// Which candidates a pass over one bundle's candidates offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Offer {
    /// Every op, or with just-in-time placement every op but the just-in-time ones.
    Timely,
    /// The just-in-time ops that are due.
    Due,
    /// Everything left (only for a bundle the other passes left empty).
    Any,
}

fn schedule<O, B: Bundle<O>>(
    ops: &[O],
    prio: &Priorities,
    window: usize,
    pressure: Option<(&BlockPressure, u32)>,
    just_in_time: bool,
) -> Result<(Vec<B>, Vec<usize>), usize> {
    let just_in_time = just_in_time && !prio.late_succs.is_empty();
    let passes: &[Offer] = if just_in_time {
        &[Offer::Timely, Offer::Due, Offer::Any]
    } else {
        &[Offer::Timely]
    };
    let d = &prio.deps;
    let rank = &prio.rank;
    let n = ops.len();
    let mut at = vec![usize::MAX; n];
    let mut bundles: Vec<B> = Vec::new();
    let mut done = 0;
    let mut tracker = pressure.map(|(f, limit)| (Tracker::new(f), limit));
    // Each bundle offers the window's unplaced ops sorted by rank (the same order as walking
    // the whole priority order, in O(window log window) instead of O(n) per bundle, so that
    // long blocks schedule in near-linear time).
    let mut first = 0;
    let mut candidates: Vec<usize> = Vec::with_capacity(window.max(1));
    let mut keyed: Vec<(u64, u32, usize)> = Vec::new();
    while done < n {
        while first < n && at[first] != usize::MAX {
            first += 1;
        }
        let limit = (first + window.max(1)).min(n);
        let k = bundles.len();
        let mut bundle = B::default();
        candidates.clear();
        candidates.extend((first..limit).filter(|&i| at[i] == usize::MAX));
        match &tracker {
            Some((t, cap)) if t.live() >= *cap => {
                // Each candidate's delta once, not once per comparison.
                keyed.clear();
                keyed.extend(
                    candidates
                        .iter()
                        .map(|&i| (t.delta(i).max(0) as u64, rank[i], i)),
                );
                keyed.sort_unstable();
                candidates.clear();
                candidates.extend(keyed.iter().map(|&(_, _, i)| i));
            }
            _ => candidates.sort_unstable_by_key(|&i| rank[i]),
        }
        for &offer in passes {
            if offer == Offer::Any && !bundle.is_empty() {
                break;
            }
            for &i in &candidates {
                if at[i] != usize::MAX || d.preds(i).iter().any(|&p| at[p as usize] >= k) {
                    continue;
                }
                let wanted = match offer {
                    Offer::Timely => !just_in_time || !prio.late[i],
                    Offer::Due => prio.late[i] && prio.due(i, &at),
                    Offer::Any => true,
                };
                if !wanted {
                    continue;
                }
                if let Some((t, cap)) = &tracker {
                    let delta = t.delta(i);
                    if delta > 0 && !bundle.is_empty() && t.live() as i64 + delta > i64::from(*cap)
                    {
                        continue;
                    }
                }
                if bundle.try_place(&ops[i]) {
                    at[i] = k;
                    done += 1;
                    if let Some((t, _)) = &mut tracker {
                        t.place(i);
                    }
                }
            }
        }
        if bundle.is_empty() {
            return Err((0..n).find(|&i| at[i] == usize::MAX).unwrap_or(0));
        }
        bundles.push(bundle);
    }
    Ok((bundles, at))
}
