//! Sequencing a parallel copy (the phi moves of one CFG edge) into ordinary moves.
//!
//! A parallel copy `d₁ := s₁ ‖ d₂ := s₂ ‖ …` reads every source before writing any
//! destination. Emitted one move at a time, a move may overwrite what a later move still has
//! to read (`a := b ‖ b := a`). [`sequence`] orders the copies and says which sources to save
//! in a temporary first; the caller emits the steps with its own move and temporary ops. A
//! single move reads its source before writing its destination, so a copy that reads its own
//! destination (`a.x := a.y`) needs nothing.
//!
//! Two strategies:
//!
//! * [`Strategy::SaveConflicts`] — save every source that reads any destination, then emit the
//!   moves in the given order. Simple and order-preserving; it costs a temporary per
//!   conflicting source (Lima PP uses it).
//! * [`Strategy::Minimal`] — emit a move as soon as no pending copy reads its destination, and
//!   save a source only to break a cycle (one temporary per cycle).

/// One step of a sequenced parallel copy; indices refer to the caller's copy list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// Copy `i`'s source into a fresh temporary; copy `i` then reads the temporary.
    Save(usize),
    /// Perform copy `i` (from its temporary if it was saved).
    Move(usize),
}

/// How [`sequence`] resolves conflicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Save every source that reads some destination, then move in order.
    SaveConflicts,
    /// Order moves so that temporaries are needed only for cycles.
    Minimal,
}

/// Orders `copies` (`(destination, source)` pairs) into moves. `reads(s, d)` says whether
/// source `s` reads (part of) destination `d`. Every copy gets exactly one [`Step::Move`],
/// preceded by its [`Step::Save`] if it has one.
pub fn sequence<D, S>(
    copies: &[(D, S)],
    reads: impl Fn(&S, &D) -> bool,
    strategy: Strategy,
) -> Vec<Step> {
    let n = copies.len();
    let mut steps = Vec::with_capacity(n + 1);
    match strategy {
        Strategy::SaveConflicts => {
            for (i, (_, s)) in copies.iter().enumerate() {
                if copies.iter().any(|(d, _)| reads(s, d)) {
                    steps.push(Step::Save(i));
                }
            }
            steps.extend((0..n).map(Step::Move));
        }
        Strategy::Minimal => {
            let mut done = vec![false; n];
            let mut saved = vec![false; n];
            let mut left = n;
            while left > 0 {
                // A copy whose destination no other pending, unsaved source reads.
                let ready = (0..n).find(|&i| {
                    !done[i]
                        && !(0..n).any(|j| {
                            j != i && !done[j] && !saved[j] && reads(&copies[j].1, &copies[i].0)
                        })
                });
                match ready {
                    Some(i) => {
                        steps.push(Step::Move(i));
                        done[i] = true;
                        left -= 1;
                    }
                    None => {
                        // Every pending destination is still read: a cycle. Saving one
                        // source that reads a pending destination frees that destination.
                        let Some(j) = (0..n).find(|&j| {
                            !done[j]
                                && !saved[j]
                                && (0..n).any(|i| {
                                    i != j && !done[i] && reads(&copies[j].1, &copies[i].0)
                                })
                        }) else {
                            // Unreachable for consistent `reads`; fall back to in-order moves.
                            steps.extend((0..n).filter(|&i| !done[i]).map(Step::Move));
                            break;
                        };
                        steps.push(Step::Save(j));
                        saved[j] = true;
                    }
                }
            }
        }
    }
    steps
}
