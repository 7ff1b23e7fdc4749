//! Use lists of a [`crate::Module`]: for each def, the ops that reference it, one entry per
//! referencing operand.
//!
//! Removing a user takes its first entry out with a swap-remove. A plain linear search for that
//! entry is quadratic for defs with many users (a constant used by hundreds of ops that a fold
//! removes one by one), so a list that grows to [`INDEX_AT`] entries also keeps an index from
//! user to its positions in the list (dropped again when the list shrinks below half that). The
//! index only speeds up the search: the list's contents and order are exactly those of the plain
//! search-and-swap-remove, so passes that walk a use list see the same order either way.

use cranelift_entity::{EntityRef, SecondaryMap};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::entities::SsaDef;

/// A use list that grows to this length gets an index; it keeps it until it shrinks below half.
const INDEX_AT: usize = 32;

/// Positions of one user in an indexed use list, ascending.
type Positions = SmallVec<[u32; 2]>;

/// One def's use list and, once it has grown long, its index (user -> positions).
#[derive(Clone, Debug, Default)]
struct Entry {
    list: SmallVec<[SsaDef; 2]>,
    index: Option<Box<FxHashMap<SsaDef, Positions>>>,
}

/// The use lists of every def.
#[derive(Clone, Debug, Default)]
pub(crate) struct UseLists {
    entries: SecondaryMap<SsaDef, Entry>,
}

impl UseLists {
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }

    /// Sizes the map for ids below `bound` at once.
    pub(crate) fn reserve_ids(&mut self, bound: usize) {
        self.entries.resize(bound);
        if bound > 0 {
            let _ = &self.entries[SsaDef::new(bound - 1)];
        }
    }

    #[inline]
    pub(crate) fn get(&self, d: SsaDef) -> &[SsaDef] {
        &self.entries[d].list
    }

    /// Appends `user` to the list of `t`.
    #[inline]
    pub(crate) fn push(&mut self, t: SsaDef, user: SsaDef) {
        let e = &mut self.entries[t];
        e.list.push(user);
        // The short unindexed list is the common case, inline; the index out of line.
        if e.index.is_some() || e.list.len() == INDEX_AT {
            e.index_push(user);
        }
    }

    /// Removes the first entry of `user` from the list of `t` (swap-remove), if there is one.
    #[inline]
    pub(crate) fn remove_one(&mut self, t: SsaDef, user: SsaDef) {
        let e = &mut self.entries[t];
        if e.index.is_some() {
            e.remove_indexed(user);
        } else if let Some(i) = e.list.iter().position(|&x| x == user) {
            e.list.swap_remove(i);
        }
    }

    /// Takes the whole list of `t`, leaving it empty.
    pub(crate) fn take(&mut self, t: SsaDef) -> SmallVec<[SsaDef; 2]> {
        let e = &mut self.entries[t];
        e.index = None;
        std::mem::take(&mut e.list)
    }

    /// Empties the list of `t`.
    #[inline]
    pub(crate) fn clear_of(&mut self, t: SsaDef) {
        let e = &mut self.entries[t];
        e.index = None;
        e.list.clear();
    }
}

impl Entry {
    /// After `user` was pushed as the last entry: records it in the index, or builds the index
    /// if the list just reached [`INDEX_AT`].
    #[inline(never)]
    fn index_push(&mut self, user: SsaDef) {
        let pos = self.list.len() - 1;
        if let Some(idx) = &mut self.index {
            idx.entry(user).or_default().push(pos as u32);
        } else {
            let mut idx: FxHashMap<SsaDef, Positions> = FxHashMap::default();
            for (i, &u) in self.list.iter().enumerate() {
                idx.entry(u).or_default().push(i as u32);
            }
            self.index = Some(Box::new(idx));
        }
    }

    /// [`UseLists::remove_one`] on an indexed list.
    #[inline(never)]
    fn remove_indexed(&mut self, user: SsaDef) {
        let e = self;
        let Some(idx) = &mut e.index else {
            return;
        };
        let Some(ps) = idx.get_mut(&user) else {
            return;
        };
        let i = ps.remove(0) as usize;
        if ps.is_empty() {
            idx.remove(&user);
        }
        let last = e.list.len() - 1;
        if i != last {
            let moved = e.list[last];
            let mps = idx
                .get_mut(&moved)
                .expect("use index holds every entry of an indexed list");
            // `last` is the highest position of any entry: it is `moved`'s last one.
            mps.pop();
            let at = mps.partition_point(|&p| (p as usize) < i);
            mps.insert(at, i as u32);
        }
        e.list.swap_remove(i);
        if e.list.len() < INDEX_AT / 2 {
            e.index = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain search-and-swap-remove the index must agree with.
    fn reference_remove(v: &mut Vec<SsaDef>, d: SsaDef) {
        if let Some(i) = v.iter().position(|&x| x == d) {
            v.swap_remove(i);
        }
    }

    #[test]
    fn indexed_lists_keep_the_plain_order() {
        // A deterministic pseudo-random mix of pushes and removals on one long list, with
        // repeated users, crossing the index threshold both ways.
        let t = SsaDef::new(0);
        let mut lists = UseLists::default();
        let mut plain: Vec<SsaDef> = Vec::new();
        let mut x: u32 = 12345;
        let (mut max_len, mut crossed_down) = (0, false);
        for step in 0..20_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let user = SsaDef::new(1 + (x >> 16) as usize % 8);
            // Mostly pushes for a while, then mostly removals for twice as long, and so on.
            let grow = (step / 1000) % 3 == 0;
            let push = (x >> 8).is_multiple_of(4) != grow;
            if push {
                lists.push(t, user);
                plain.push(user);
            } else {
                lists.remove_one(t, user);
                reference_remove(&mut plain, user);
            }
            assert_eq!(lists.get(t), &plain[..], "step {step}");
            max_len = max_len.max(plain.len());
            crossed_down |= max_len >= INDEX_AT && plain.len() < INDEX_AT / 2;
        }
        assert!(max_len >= 4 * INDEX_AT && crossed_down, "max {max_len}");
    }
}
