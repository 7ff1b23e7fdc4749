//! Which outputs an op may write directly.
//!
//! An output store's value is usually computed by one op into a fresh register; where nothing
//! else reads that register, the op writes the output register itself instead, with no move
//! (`Lower::output_store`). The op then writes the output where it computes, before the
//! store. That is only right when no other store writes those components in between. A
//! shader storing `o0 = a` and then `o0.x = b`, with `b` computed before `a`, got `o0.x = a.x`:
//! `b`'s op wrote `o0.x` first, `a`'s op overwrote it. So the direct write is done only for
//! outputs whose stores write pairwise disjoint components and that nothing else reads
//! ([`Lower::output_lanes_disjoint`]). Every corpus shader compiles to the same code with the
//! check as without it.

use irc_ir::format::Store;
use irc_ir::{OpCode, SsaDef};

use super::io::{const_index, flat_size};
use super::Lower;

impl Lower<'_> {
    /// True if every reader of output `decl` is a store with a constant component index, and
    /// the stores' components are pairwise disjoint (debug and semantic ops aside).
    pub(super) fn output_lanes_disjoint(&self, decl: SsaDef) -> bool {
        let m = self.m;
        let mut written = 0u8;
        for &u in m.uses(decl) {
            let op = m.op(u);
            if op.opcode.is_meta() {
                continue;
            }
            if op.opcode != OpCode::OutputStore {
                return false;
            }
            let store = Store::of(op);
            let first = match store.address() {
                None => Some(0),
                Some(a) => const_index(m, Some(a)),
            };
            let width = store.value().and_then(|v| flat_size(m.ty(v)));
            let (Some(first), Some(width)) = (first, width) else {
                return false;
            };
            if first.saturating_add(width) > 4 {
                return false;
            }
            let mask = (((1u16 << width) - 1) << first) as u8;
            if written & mask != 0 {
                return false;
            }
            written |= mask;
        }
        true
    }
}
