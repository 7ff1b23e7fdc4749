//! Entity references. An [`SsaDef`] names one op of a [`crate::Module`]; it is a `u32` index
//! (cranelift-entity), never a Rust reference. The text spelling is `%N` with N = index + 1, so
//! that ids match dxbc-spirv's numbering (its id 0 is the null reference, and stream position k
//! becomes id k + 1 on reading).

use cranelift_entity::entity_impl;
use std::fmt;

/// An SSA definition: the result (possibly void) of one op.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SsaDef(u32);
entity_impl!(SsaDef);

impl SsaDef {
    /// The def with text id `%id` (`id` ≥ 1).
    pub fn from_id(id: u32) -> Option<SsaDef> {
        id.checked_sub(1).map(SsaDef)
    }
    /// The text id (index + 1).
    pub fn id(self) -> u32 {
        self.0 + 1
    }
}

impl fmt::Display for SsaDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0 + 1)
    }
}

impl fmt::Debug for SsaDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
