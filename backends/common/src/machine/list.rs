//! Windowed list scheduling of one block into bundles (VLIW instructions, or one op each on
//! single-issue targets).
//!
//! Instructions are filled top-down: for each new bundle the ops whose predecessors
//! ([`super::deps::deps`]) all sit in earlier bundles are offered to [`Bundle::try_place`] in
//! priority order — urgent ops first (spill stores, which end live ranges), then by decreasing
//! critical-path height, then program order. Only the `window` earliest unscheduled ops (in
//! program order) are candidates, which keeps live ranges close to the source's: a wide window
//! packs more, a narrow one needs fewer registers (the spill driver tries several).

use super::deps::deps;
use super::MachOp;

/// An instruction being filled.
pub trait Bundle<O>: Default {
    /// Adds `op` if it fits (units, immediates, ports …); false leaves the bundle unchanged.
    fn try_place(&mut self, op: &O) -> bool;
    /// Whether nothing was placed.
    fn is_empty(&self) -> bool;
}

/// Schedules `ops` into bundles; returns them and the bundle index of every op. Fails with
/// the index of an op that does not fit even an empty bundle.
pub fn list_schedule<O: MachOp, B: Bundle<O>>(
    ops: &[O],
    window: usize,
    urgent: impl Fn(&O) -> bool,
) -> Result<(Vec<B>, Vec<usize>), usize> {
    let d = deps(ops);
    let n = ops.len();
    let mut at = vec![usize::MAX; n];
    let mut bundles: Vec<B> = Vec::new();
    let mut done = 0;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (!urgent(&ops[i]), std::cmp::Reverse(d.height[i]), i));
    // Position of every op in the priority order: each bundle offers the window's unplaced
    // ops sorted by it (the same order as walking `order`, in O(window log window) instead of
    // O(n) per bundle, so that long blocks schedule in near-linear time).
    let mut rank = vec![0usize; n];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    let mut first = 0;
    let mut candidates: Vec<usize> = Vec::with_capacity(window.max(1));
    while done < n {
        while first < n && at[first] != usize::MAX {
            first += 1;
        }
        let limit = (first + window.max(1)).min(n);
        let k = bundles.len();
        let mut bundle = B::default();
        candidates.clear();
        candidates.extend((first..limit).filter(|&i| at[i] == usize::MAX));
        candidates.sort_unstable_by_key(|&i| rank[i]);
        for &i in &candidates {
            if d.preds[i].iter().any(|&p| at[p] >= k) {
                continue;
            }
            if bundle.try_place(&ops[i]) {
                at[i] = k;
                done += 1;
            }
        }
        if bundle.is_empty() {
            return Err((0..n).find(|&i| at[i] == usize::MAX).unwrap_or(0));
        }
        bundles.push(bundle);
    }
    Ok((bundles, at))
}
