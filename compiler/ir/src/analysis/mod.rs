//! Analyses over a module, reused by the verifier and by passes.
//!
//! - [`cfg`]: function ranges (`Function` … `FunctionEnd`), basic blocks of structured code
//!   (`Label` … terminator) with successors and predecessors ([`Cfg`]).
//! - [`dominators`]: the dominator tree of one function ([`DomTree`]): Cooper, Harvey and
//!   Kennedy's iteration on dense positions (checked against petgraph in its tests).
//! - [`cache`]: the CFGs and dominator trees kept across passes while they hold ([`Analyses`]).
//! - [`same_value`]: whether two values are equal by construction (identical pure ops).
//! - [`rcp_rsq`]: which `rcp(rsq(x))` pairs the backends fuse into one square root.
//!
//! ```
//! use irc_ir::analysis::{functions, Cfg, DomTree};
//! # let m = irc_ir::Module::new();
//! for f in functions(&m) {
//!     let cfg = Cfg::build(&m, f);
//!     let dom = DomTree::compute(&cfg);
//!     for b in cfg.blocks() {
//!         assert!(dom.dominates(cfg.entry().unwrap(), b));
//!     }
//! }
//! ```

pub mod cache;
pub mod cfg;
pub mod dominators;
pub mod rcp_rsq;
pub mod same_value;

pub use cache::Analyses;
pub use cfg::{
    branch_targets, construct, function_of, functions, Block, BlockData, Cfg, FunctionRange,
};
pub use dominators::DomTree;
pub use rcp_rsq::rsq_of_rcp;
