//! Dead machine ops: a write of a virtual register that no op reads (a pattern such as
//! [`super::geometry`]'s `nrm` leaves the `dp3`/`rsq` it replaced; a value the outputs do not
//! need). Flow-insensitive: a register read anywhere keeps all its writes. Ops without a
//! register destination (outputs, `kil`, conditionals) always stay. Repeated to a fixed point.

use rustc_hash::FxHashSet;

use super::{Base, MDst, MProgram};

/// Removes the dead ops of `p`.
pub fn remove_dead(p: &mut MProgram) {
    loop {
        let read: FxHashSet<u32> = p
            .insts
            .iter()
            .flat_map(|i| i.srcs.iter())
            .filter_map(|s| match s.base {
                Base::V(v) => Some(v),
                _ => None,
            })
            .collect();
        let before = p.insts.len();
        p.insts
            .retain(|i| !matches!(i.dst, MDst::V { v, .. } if !read.contains(&v)));
        if p.insts.len() == before {
            return;
        }
    }
}
