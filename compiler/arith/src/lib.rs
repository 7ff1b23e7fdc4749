//! # irc-arith: values and the arithmetic of pure ops
//!
//! The one definition of what every pure DXBC-IR op computes on known values, used by both the
//! reference interpreter (`irc-interp`, which adds control flow, memory, resources and lanes)
//! and constant folding in `irc-passes` — so a folded constant is bit for bit what a run
//! computes. Nothing here depends on a run: no traps, no inputs.
//!
//! - [`value`]: [`Scalar`] and [`Value`] (bitwise equality), types of values, `Constant`
//!   literals to values ([`value::constant_value`]);
//! - [`float`], [`int`], [`convert`]: per-component float, integer and conversion functions
//!   (their module docs list the semantic decisions: unfused `FMad`, minNum/maxNum, legacy
//!   zero products, wrapping integers, saturating float→int …);
//! - [`fp_mode`]: `SetFpMode` per float width (denormal flushing, rounding toward zero) and
//!   the read/round primitives every float op applies with it;
//! - [`access`]: composite and memory addressing of values (extract, insert, byte layout);
//! - [`trig`]: sine and cosine as the polynomial arithmetic of targets without them;
//! - [`eval`]: [`eval::fold`], one pure op on operand values, and
//!   [`eval::constant_literals`], values back to `Constant` literals.

pub mod access;
pub mod convert;
pub mod eval;
pub mod float;
pub mod fp_mode;
pub mod int;
pub mod trig;
pub mod value;

pub use fp_mode::{FpMode, FpModes, NarrowRange};
pub use value::{Descriptor, DescriptorClass, Scalar, Value};
