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
use std::collections::hash_map;

use crate::entities::SsaDef;

const _: () = assert!(std::mem::size_of::<UseList>() == 24);

/// A use list that grows to this length gets an index; it keeps it until it shrinks below half.
const INDEX_AT: usize = 32;

/// Positions of one user in an indexed use list, ascending.
type Positions = SmallVec<[u32; 2]>;

/// [`Index::first`]'s value for a user listed more than once (its positions in `multi`).
const MULTI: u32 = u32::MAX;

/// The index of a long use list: user -> its positions in the list.
///
/// Nearly every user is listed once, so the table holds one position per user (8 bytes a
/// slot, dense enough to stay in cache while a pass removes users one by one); the few users
/// listed more than once (`x * x`) are marked [`MULTI`] there and have their ascending
/// positions in a second map.
#[derive(Clone, Debug, Default)]
struct Index {
    first: FxHashMap<SsaDef, u32>,
    multi: FxHashMap<SsaDef, Positions>,
}

/// A use list: up to four users inline, in the 24 bytes a list of two took as well (a `union`
/// small vector is as large as its heap pointer and length); most defs have one to four users.
pub(crate) type UseList = SmallVec<[SsaDef; 4]>;

/// One def's use list and, once it has grown long, its index.
#[derive(Clone, Debug, Default)]
struct Entry {
    list: UseList,
    index: Option<Box<Index>>,
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
    pub(crate) fn take(&mut self, t: SsaDef) -> UseList {
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

impl Index {
    /// Records `user` at position `pos`, above every position recorded so far.
    fn push(&mut self, user: SsaDef, pos: u32) {
        match self.first.entry(user) {
            hash_map::Entry::Vacant(v) => {
                v.insert(pos);
            }
            hash_map::Entry::Occupied(mut o) => {
                let p = *o.get();
                if p == MULTI {
                    self.multi.entry(user).or_default().push(pos);
                } else {
                    *o.get_mut() = MULTI;
                    self.multi.insert(user, SmallVec::from_slice(&[p, pos]));
                }
            }
        }
    }

    /// Takes out the lowest position of `user`, if it is listed.
    fn take_first(&mut self, user: SsaDef) -> Option<u32> {
        let hash_map::Entry::Occupied(mut o) = self.first.entry(user) else {
            return None;
        };
        let p = *o.get();
        if p != MULTI {
            o.remove();
            return Some(p);
        }
        let ps = self
            .multi
            .get_mut(&user)
            .expect("a user marked as listed more than once has its positions");
        let i = ps.remove(0);
        if let [only] = ps[..] {
            *o.get_mut() = only;
            self.multi.remove(&user);
        }
        Some(i)
    }

    /// `user`'s position `from`, its highest, becomes `to` (below `from`).
    fn move_last(&mut self, user: SsaDef, from: u32, to: u32) {
        let p = self
            .first
            .get_mut(&user)
            .expect("use index holds every entry of an indexed list");
        if *p != MULTI {
            debug_assert_eq!(*p, from);
            *p = to;
            return;
        }
        let ps = self
            .multi
            .get_mut(&user)
            .expect("a user marked as listed more than once has its positions");
        debug_assert_eq!(ps.last(), Some(&from));
        ps.pop();
        let at = ps.partition_point(|&q| q < to);
        ps.insert(at, to);
    }
}

impl Entry {
    /// After `user` was pushed as the last entry: records it in the index, or builds the index
    /// if the list just reached [`INDEX_AT`].
    #[inline(never)]
    fn index_push(&mut self, user: SsaDef) {
        let pos = self.list.len() - 1;
        if let Some(idx) = &mut self.index {
            idx.push(user, pos as u32);
        } else {
            let mut idx = Index::default();
            idx.first.reserve(self.list.len());
            for (i, &u) in self.list.iter().enumerate() {
                idx.push(u, i as u32);
            }
            self.index = Some(Box::new(idx));
        }
    }

    /// [`UseLists::remove_one`] on an indexed list.
    #[inline(never)]
    fn remove_indexed(&mut self, user: SsaDef) {
        let Some(idx) = &mut self.index else {
            return;
        };
        let Some(i) = idx.take_first(user) else {
            return;
        };
        let last = self.list.len() - 1;
        if i as usize != last {
            // `last` is the highest position of any entry: it is `moved`'s highest one.
            let moved = self.list[last];
            idx.move_last(moved, last as u32, i);
        }
        self.list.swap_remove(i as usize);
        if self.list.len() < INDEX_AT / 2 {
            self.index = None;
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

    /// A deterministic pseudo-random mix of pushes and removals on one long list of `users`
    /// distinct users, crossing the index threshold both ways, against the plain search.
    fn check_against_plain(users: usize) {
        let t = SsaDef::new(0);
        let mut lists = UseLists::default();
        let mut plain: Vec<SsaDef> = Vec::new();
        let mut x: u32 = 12345;
        let (mut max_len, mut crossed_down) = (0, false);
        for step in 0..20_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let mut user = SsaDef::new(1 + (x >> 16) as usize % users);
            // Mostly pushes for a while, then mostly removals for twice as long, and so on.
            let grow = (step / 1000) % 3 == 0;
            let push = (x >> 8).is_multiple_of(4) != grow;
            // A removal mostly names a listed user (else, with many users, few would be).
            if !push && !plain.is_empty() && !(x >> 4).is_multiple_of(4) {
                user = plain[(x >> 16) as usize % plain.len()];
            }
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

    #[test]
    fn indexed_lists_keep_the_plain_order_with_users_listed_many_times() {
        // 8 users: nearly every user is listed several times.
        check_against_plain(8);
    }

    #[test]
    fn indexed_lists_keep_the_plain_order_with_users_listed_once() {
        // 5000 users: most are listed once, a few twice.
        check_against_plain(5000);
    }
}
