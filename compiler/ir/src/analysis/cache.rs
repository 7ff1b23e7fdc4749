//! Analyses kept across passes: the [`Cfg`] and the [`DomTree`] of each function, built once
//! and handed to every pass that asks while they still hold.
//!
//! A pipeline runs pass after pass over one module, and most of them start by building the CFG
//! and often the dominator tree of each function, which the previous pass may have built for
//! the very same code. [`Analyses`] keeps the last ones built per function:
//!
//! - a [`Cfg`] lists every op of its blocks, so it is reused only while the module is exactly
//!   as it was when it was built: same [`ModuleVersion`] (the same module — a copy has another
//!   id — and no mutation since);
//! - a [`DomTree`] depends on the block graph alone (the blocks, numbered in program order, and
//!   their successors), so it is reused for any CFG with the same graph — after passes that
//!   changed ops but no branch, however the CFG was come by. The graph is compared in full, a
//!   walk over the blocks and edges instead of the dominator iteration.
//!
//! The cache also measures what building costs ([`Analyses::take_spent`]), so that a pass
//! manager can account the analyses apart from the pass that happened to ask first.
//!
//! The cache is shared through `&` (a pass context is): it locks a mutex, once per request.

use super::cfg::{Cfg, FunctionRange};
use super::dominators::DomTree;
use crate::change_log::ModuleVersion;
use crate::entities::SsaDef;
use crate::module::Module;
use cranelift_entity::EntityRef;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Functions whose analyses are kept (more are rare: the inliner leaves one).
const KEPT: usize = 8;

/// The analyses kept for a module's functions, and what building them cost.
#[derive(Debug, Default)]
pub struct Analyses {
    inner: Mutex<Inner>,
}

/// A copy starts empty (analyses are a cache, not state).
impl Clone for Analyses {
    fn clone(&self) -> Analyses {
        Analyses::default()
    }
}

#[derive(Debug, Default)]
struct Inner {
    cfgs: Vec<CfgEntry>,
    doms: Vec<DomEntry>,
    spent: Spent,
}

#[derive(Debug)]
struct CfgEntry {
    function: FunctionRange,
    version: ModuleVersion,
    cfg: Arc<Cfg>,
}

#[derive(Debug)]
struct DomEntry {
    function: SsaDef,
    /// The block graph the tree was computed for ([`graph_key`]).
    graph: Vec<u32>,
    dom: Arc<DomTree>,
}

/// Time spent building analyses, and how many were built and reused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spent {
    pub cfg_time: Duration,
    pub cfg_builds: u32,
    pub cfg_reuses: u32,
    pub dom_time: Duration,
    pub dom_builds: u32,
    pub dom_reuses: u32,
}

impl Analyses {
    pub fn new() -> Analyses {
        Analyses::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the lock was held leaves at worst a stale entry that still checks its
        // own validity: go on with the data.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The CFG of function `f` of `m`: the one kept if `m` has not changed since it was built,
    /// else a new one (which is kept).
    pub fn cfg(&self, m: &Module, f: FunctionRange) -> Arc<Cfg> {
        let version = m.version();
        {
            let mut inner = self.lock();
            if let Some(e) = inner.cfgs.iter().find(|e| e.function == f) {
                if e.version == version {
                    let cfg = e.cfg.clone();
                    inner.spent.cfg_reuses += 1;
                    return cfg;
                }
            }
        }
        let start = Instant::now();
        let cfg = Arc::new(Cfg::build(m, f));
        let elapsed = start.elapsed();
        let mut inner = self.lock();
        inner.spent.cfg_time += elapsed;
        inner.spent.cfg_builds += 1;
        inner.store_cfg(CfgEntry {
            function: f,
            version,
            cfg: cfg.clone(),
        });
        cfg
    }

    /// Keeps `cfg`, the CFG of function `f` built before the latest edits of `m`, as `f`'s CFG
    /// at `m`'s current version: for a pass whose edits since it was built touched other
    /// functions only (the caller vouches for that; ops of other functions are neither in a
    /// CFG's blocks nor between them). A function's CFG otherwise becomes a rebuild as soon as
    /// any function changes.
    pub fn keep_cfg(&self, m: &Module, f: FunctionRange, cfg: Arc<Cfg>) {
        self.lock().store_cfg(CfgEntry {
            function: f,
            version: m.version(),
            cfg,
        });
    }

    /// The dominator tree of `cfg`: the one kept for its function if that was computed for the
    /// same block graph, else a new one (which is kept).
    pub fn dom(&self, cfg: &Cfg) -> Arc<DomTree> {
        let function = cfg.function().function;
        let graph = graph_key(cfg);
        {
            let mut inner = self.lock();
            if let Some(e) = inner.doms.iter().find(|e| e.function == function) {
                if e.graph == graph {
                    let dom = e.dom.clone();
                    inner.spent.dom_reuses += 1;
                    return dom;
                }
            }
        }
        let start = Instant::now();
        let dom = Arc::new(DomTree::compute(cfg));
        let elapsed = start.elapsed();
        let mut inner = self.lock();
        inner.spent.dom_time += elapsed;
        inner.spent.dom_builds += 1;
        let entry = DomEntry {
            function,
            graph,
            dom: dom.clone(),
        };
        match inner.doms.iter_mut().position(|e| e.function == function) {
            Some(i) => inner.doms[i] = entry,
            None => push_bounded(&mut inner.doms, entry),
        }
        dom
    }

    /// What building analyses cost since the last call, which starts a new count.
    pub fn take_spent(&self) -> Spent {
        std::mem::take(&mut self.lock().spent)
    }

    /// Drops every kept analysis (they would not be reused: another module comes).
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.cfgs.clear();
        inner.doms.clear();
    }
}

impl Inner {
    /// Keeps `entry` as its function's CFG, in place of the one kept before.
    fn store_cfg(&mut self, entry: CfgEntry) {
        let f = entry.function.function;
        match self.cfgs.iter().position(|e| e.function.function == f) {
            Some(i) => self.cfgs[i] = entry,
            None => push_bounded(&mut self.cfgs, entry),
        }
    }
}

/// Keeps at most [`KEPT`] entries: the oldest goes first.
fn push_bounded<T>(v: &mut Vec<T>, entry: T) {
    if v.len() == KEPT {
        v.remove(0);
    }
    v.push(entry);
}

/// The block graph of `cfg`, flat: the block count, then per block its successor count and
/// successors. Two CFGs with equal keys have the same dominator tree.
fn graph_key(cfg: &Cfg) -> Vec<u32> {
    let mut key = Vec::with_capacity(1 + cfg.len() * 3);
    key.push(cfg.len() as u32);
    for b in cfg.blocks() {
        let succs = cfg.succs(b);
        key.push(succs.len() as u32);
        key.extend(succs.iter().map(|s| s.index() as u32));
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::functions;
    use crate::op::Op;
    use crate::opcode::OpCode;
    use crate::types::{ScalarType, Type};

    const SRC: &str = "%1 = EntryPoint %2 Vertex\n%9 = bool Constant true\n%2 = Function\n\
                       %10 = Label %13 StructuredSelection\n%20 = BranchConditional %9 %11 %13\n\
                       %11 = Label None\n%21 = Branch %13\n\
                       %13 = Label None\n%25 = Return\n%30 = FunctionEnd\n";

    /// A CFG is reused while the module is unchanged, rebuilt after any change (and for a
    /// copy); the dominator tree is reused for the same graph, recomputed for another.
    #[test]
    fn reuse_only_while_valid() {
        let mut m = crate::text::parse(SRC).expect("parse");
        let a = Analyses::new();
        let f = functions(&m)[0];
        let c1 = a.cfg(&m, f);
        let c2 = a.cfg(&m, f);
        assert!(Arc::ptr_eq(&c1, &c2));
        let d1 = a.dom(&c1);
        // A non-branch change: a new CFG, the same tree.
        let _ = m.add(Op::new(OpCode::Undef, Type::scalar(ScalarType::F32)));
        let c3 = a.cfg(&m, f);
        assert!(!Arc::ptr_eq(&c1, &c3));
        assert!(Arc::ptr_eq(&d1, &a.dom(&c3)));
        // A copy is another module.
        let copy = m.clone();
        assert!(!Arc::ptr_eq(&c3, &a.cfg(&copy, f)));
        // A changed branch: a new tree.
        let br = c1.block(c1.entry().unwrap()).terminator.unwrap();
        let target = c1.label(c1.blocks().last().unwrap());
        m.rewrite(br, Op::new(OpCode::Branch, Type::void()).arg(target));
        let c4 = a.cfg(&m, f);
        assert!(!Arc::ptr_eq(&d1, &a.dom(&c4)));
        let spent = a.take_spent();
        assert_eq!((spent.cfg_builds, spent.cfg_reuses), (4, 1));
        assert_eq!((spent.dom_builds, spent.dom_reuses), (2, 1));
        assert_eq!(a.take_spent(), Spent::default());
    }
}
