//! The schedule → allocate → spill driver.
//!
//! Scheduling decides how many values are alive at once, allocation whether they fit, and
//! when they do not, something must give: a value is spilled (stored to memory after its
//! writes and reloaded before its reads), rematerialized, or its live range split — or the
//! program is over the target's limit. [`schedule_and_allocate`] runs the loop:
//!
//! 1. `force_spills` times, spill the cheapest spillable value first (a test knob that makes
//!    the spill path run on small programs);
//! 2. each round, schedule with every [`Attempts`] entry in turn (round 0 uses
//!    [`Attempts::first`], later rounds [`Attempts::retry`]) and allocate; the first success
//!    wins; with [`Attempts::shortest`], the shortest that does: unless round 0's first
//!    attempt (the preferred, widest schedule, which is almost always the shortest when it
//!    fits) succeeded, the round goes on after a success, does not allocate schedules no
//!    shorter than the best so far, and stops at the program's
//!    [`Schedulable::lower_bound`];
//!    a schedule with more live components at some step than the file has lanes
//!    ([`regalloc::pressure_spills`]) cannot be colored and is not tried: its pressure cover
//!    is kept instead;
//!    after round 0, an over-full first attempt ends the round (a spill round is cheaper than
//!    the longer code of a narrower schedule);
//!    with [`Attempts::refuse_longer`], once the preferred attempt ([`Attempts::retry`]'s
//!    first) failed only in the colorer, a later attempt's schedule longer than the
//!    preferred one's by more than the slack is not even allocated; unless a later
//!    attempt is short enough, the round ends with the preferred schedule's spill candidates
//!    (a spill or two cost less than a schedule narrowed for the whole program);
//! 3. when every attempt failed: if the schedule the next round tries first
//!    ([`Attempts::retry`]'s first entry) was over-full, spill its pressure cover all at once
//!    (one round instead of one per value), so that it fits; if every schedule was over-full,
//!    the shortest cover; otherwise hand the allocator's
//!    spill candidates (best first, filtered by [`SpillStrategy::spillable`]) to
//!    [`SpillStrategy::spill`]: one per round at first, then twice as many every
//!    [`Attempts::growth_period`] rounds (up to 32), so that large programs converge quickly;
//!    no candidate left means the program is over the limit.
//!
//! What "spill" means is the strategy's business: Lima stores to its temporary stack;
//! targets without memory answer with [`NoSpill`] (a clear [`Diagnostic::limit`]) or a
//! rematerializing strategy of their own.

use crate::regalloc::{self, AllocFailure, Allocation, RegFile, VReg};
use crate::Diagnostic;

/// A machine program the driver can schedule and describe to the allocator.
pub trait Schedulable {
    /// Scheduling parameter tried in turn (a window size, a heuristic …).
    type Attempt: Copy + PartialEq;
    /// A scheduled program.
    type Schedule;
    /// Schedules the program.
    fn schedule(&self, attempt: Self::Attempt) -> Result<Self::Schedule, Diagnostic>;
    /// The allocator's view of a schedule (points, stages, spill costs).
    fn describe(&self, schedule: &Self::Schedule) -> regalloc::Program;
    /// The schedule's length (instructions), to compare attempts by.
    fn length(&self, schedule: &Self::Schedule) -> usize;
    /// A length no schedule of the program can go below ([`Attempts::shortest`] stops
    /// searching when a schedule that allocates reaches it); 0 when the target knows none.
    fn lower_bound(&self) -> usize {
        0
    }
}

/// How a target makes room when allocation fails.
pub trait SpillStrategy<P> {
    /// Whether `v` may be spilled (false for outputs read from fixed registers, reload
    /// temporaries, …).
    fn spillable(&self, p: &P, v: VReg) -> bool;
    /// Rewrites `p` so that `v` no longer occupies a register across its whole life.
    fn spill(&mut self, p: &mut P, v: VReg) -> Result<(), Diagnostic>;
}

/// For targets without memory to spill to: nothing is spillable, so a failed allocation is a
/// [`Diagnostic::limit`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSpill;

impl<P> SpillStrategy<P> for NoSpill {
    fn spillable(&self, _: &P, _: VReg) -> bool {
        false
    }
    fn spill(&mut self, _: &mut P, v: VReg) -> Result<(), Diagnostic> {
        Err(Diagnostic::limit(format!(
            "{v} does not fit in the registers and the target has no memory to spill to"
        )))
    }
}

/// The driver's parameters.
#[derive(Debug, Clone, Copy)]
pub struct Attempts<'a, A> {
    /// Scheduling attempts of round 0, in order.
    pub first: &'a [A],
    /// Scheduling attempts of later rounds.
    pub retry: &'a [A],
    /// From round `.0` on, these attempts instead of `retry` (a cheaper list for programs
    /// that need many spill rounds, whose extra attempts rarely succeed and cost the most);
    /// their first entry must be `retry`'s first.
    pub late: Option<(usize, &'a [A])>,
    /// Most spill rounds before giving up.
    pub max_rounds: usize,
    /// Spills per round double every this many rounds.
    pub growth_period: usize,
    /// What the register file is, for messages ("the 6 vec4 registers").
    pub file_name: &'a str,
    /// Refuse schedules much longer than the preferred one (module documentation).
    pub refuse_longer: Option<RefuseLonger>,
    /// Whether a round keeps the shortest schedule that allocates instead of the first
    /// (module documentation).
    pub shortest: bool,
}

/// When a schedule is refused because the preferred attempt's is much shorter.
#[derive(Debug, Clone, Copy)]
pub struct RefuseLonger {
    /// Refused when longer than the preferred attempt's schedule by more than this fraction.
    pub slack: f64,
    /// Only in the rounds below this one (later rounds take any schedule that fits, so the
    /// loop still ends).
    pub rounds: usize,
}

/// A successful allocation.
#[derive(Debug, Clone)]
pub struct Allocated<S> {
    pub schedule: S,
    pub allocation: Allocation,
    /// The allocator's program (for the checker).
    pub program: regalloc::Program,
}

/// Runs the loop of the module documentation.
pub fn schedule_and_allocate<P, S>(
    p: &mut P,
    file: &RegFile,
    strategy: &mut S,
    attempts: &Attempts<'_, P::Attempt>,
    force_spills: u32,
) -> Result<Allocated<P::Schedule>, Diagnostic>
where
    P: Schedulable,
    S: SpillStrategy<P>,
{
    for _ in 0..force_spills {
        let Some(v) = cheapest_spill(p, strategy, attempts) else {
            break;
        };
        strategy.spill(p, v)?;
    }
    for round in 0..attempts.max_rounds {
        let mut failure: Option<AllocFailure> = None;
        // The pressure cover of the attempt the next round tries first, else the shortest.
        let mut cover: Option<(bool, Vec<VReg>)> = None;
        let tries = match attempts.late {
            _ if round == 0 => attempts.first,
            Some((from, late)) if round >= from => late,
            _ => attempts.retry,
        };
        // The length and the failure of the attempt the next round tries first, when it was
        // short of registers only for the colorer.
        let mut preferred: Option<(usize, AllocFailure)> = None;
        // With `shortest`: the shortest schedule that allocated so far; `bound`, the length
        // none can beat (asked for at the first success that does not end the round).
        let mut best: Option<(usize, Allocated<P::Schedule>)> = None;
        let mut bound: Option<usize> = None;
        for (index, &attempt) in tries.iter().enumerate() {
            let schedule = p.schedule(attempt)?;
            let length = p.length(&schedule);
            if best
                .as_ref()
                .is_some_and(|(shortest, _)| length >= *shortest)
            {
                continue;
            }
            // Much longer than the preferred schedule, which only missed the colorer: not
            // allocated; unless a later attempt is short enough, the round spills for the
            // preferred one.
            if let (Some(refuse), Some((preferred_length, preferred_failure))) =
                (attempts.refuse_longer, &preferred)
            {
                if round < refuse.rounds
                    && length as f64 > *preferred_length as f64 * (1.0 + refuse.slack)
                {
                    failure = Some(preferred_failure.clone());
                    continue;
                }
            }
            let program = p.describe(&schedule);
            let live = regalloc::liveness(&program);
            let over =
                regalloc::pressure_spills_with(file, &program, &live, |v| strategy.spillable(p, v));
            match over {
                Some(picks) if !picks.is_empty() => {
                    let next = attempts.retry.first() == Some(&attempt);
                    let better = match &cover {
                        None => true,
                        Some((true, _)) => false,
                        Some((false, c)) => next || picks.len() < c.len(),
                    };
                    if better {
                        cover = Some((next, picks));
                    }
                    // After round 0, the preferred schedule over-full: spill its cover rather
                    // than settle for a narrower (longer) schedule.
                    if next && round > 0 {
                        break;
                    }
                    continue;
                }
                _ => {}
            }
            match regalloc::allocate_with(file, &program, &live) {
                Ok(allocation) => {
                    let done = Allocated {
                        schedule,
                        allocation,
                        program,
                    };
                    let preferred_fits = round == 0 && index == 0;
                    if !attempts.shortest
                        || preferred_fits
                        || length <= *bound.get_or_insert_with(|| p.lower_bound())
                    {
                        return Ok(done);
                    }
                    best = Some((length, done));
                }
                // The earliest attempt's candidates: the next round tries it first.
                Err(e) => {
                    if attempts.retry.first() == Some(&attempt) {
                        preferred = Some((length, e.clone()));
                    }
                    failure.get_or_insert(e);
                }
            }
        }
        if let Some((_, done)) = best {
            return Ok(done);
        }
        let picks: Vec<VReg> = match (failure, cover) {
            // The schedule the next round tries first is over-full: its cover.
            (_, Some((true, cover))) => cover,
            // Some schedule fits the lanes but not the colorer: its candidates, a few a round.
            (Some(fail), _) => {
                let per_round = 1usize << (round / attempts.growth_period.max(1)).min(5);
                let picks: Vec<VReg> = fail
                    .spill_candidates
                    .iter()
                    .copied()
                    .filter(|&v| strategy.spillable(p, v))
                    .take(per_round)
                    .collect();
                if picks.is_empty() {
                    return Err(Diagnostic::limit(format!(
                        "more values live at once than {} hold, and nothing left to spill ({})",
                        attempts.file_name, fail.message
                    )));
                }
                picks
            }
            // Every schedule is over-full: the whole cover at once.
            (None, Some((_, cover))) => cover,
            (None, None) => return Err(Diagnostic::internal(None, "no allocation attempt")),
        };
        for v in picks {
            strategy.spill(p, v)?;
        }
    }
    Err(Diagnostic::limit(format!(
        "register allocation did not converge after {} spill rounds",
        attempts.max_rounds
    )))
}

/// The spillable value with the lowest finite spill cost above the floor of 0.1 (values never
/// accessed cost the floor), scheduled with the first attempt.
fn cheapest_spill<P, S>(p: &P, strategy: &S, attempts: &Attempts<'_, P::Attempt>) -> Option<VReg>
where
    P: Schedulable,
    S: SpillStrategy<P>,
{
    let schedule = p.schedule(*attempts.first.first()?).ok()?;
    let desc = p.describe(&schedule);
    (0..desc.vregs.len() as u32)
        .map(VReg)
        .filter(|&v| strategy.spillable(p, v))
        .filter(|&v| {
            let c = desc.vregs[v.index()].spill_cost;
            c.is_finite() && c > 0.1
        })
        .min_by(|a, b| {
            desc.vregs[a.index()]
                .spill_cost
                .total_cmp(&desc.vregs[b.index()].spill_cost)
        })
}
