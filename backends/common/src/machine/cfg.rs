//! A small control-flow-graph interface and the lowering helpers built on it.
//!
//! Blocks are numbered `0..num_blocks()` in layout order, block 0 being the entry. A backend's
//! machine program implements [`Cfg`] (and [`CfgEdit`] to let the helpers add blocks).
//!
//! * [`edge_block`] — where moves for the edge `pred → succ` go (phi moves, for one): at the
//!   end of `pred` when `succ` is its only successor, else in a new block on the edge (a
//!   *critical* edge when `succ` also has several predecessors; a conditional branch cannot
//!   carry moves for only one of its targets in either case).
//! * [`split_critical_edges`] — splits every edge from a block with several successors to a
//!   block with several predecessors.
//! * [`reachable`] — blocks reachable from the entry.
//! * [`idoms`] / [`dominates`] — immediate dominators (Cooper–Harvey–Kennedy);
//! * [`loop_depths`] — loop nesting depth of every block from the natural loops of the back
//!   edges (an edge to a block that dominates its source). Blocks on a `break` path are
//!   outside the loop, unlike a structured layout's header..merge range.

use smallvec::SmallVec;

/// Successor lists of a machine program.
pub trait Cfg {
    /// Number of blocks.
    fn num_blocks(&self) -> usize;
    /// Successors of block `b` (in branch order; a block may list one twice).
    fn succs(&self, b: usize) -> SmallVec<[usize; 2]>;
}

/// A CFG the lowering helpers may add blocks to.
pub trait CfgEdit: Cfg {
    /// Appends an empty block that jumps to `target`, returning its index; `like` is the
    /// block whose properties (loop depth …) it inherits.
    fn add_jump_block(&mut self, target: usize, like: usize) -> usize;
    /// Makes every edge from `from` to `old` go to `new` instead.
    fn retarget(&mut self, from: usize, old: usize, new: usize);
}

/// Predecessor lists (in block order, one entry per edge).
pub fn preds(cfg: &impl Cfg) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); cfg.num_blocks()];
    for b in 0..cfg.num_blocks() {
        for s in cfg.succs(b) {
            if let Some(p) = out.get_mut(s) {
                p.push(b);
            }
        }
    }
    out
}

/// The block where moves for the edge `pred → succ` go: `pred` itself when it has a single
/// successor, else a new block on the edge (which then inherits `succ`'s properties).
pub fn edge_block(cfg: &mut impl CfgEdit, pred: usize, succ: usize) -> usize {
    if cfg.succs(pred).len() > 1 {
        let nb = cfg.add_jump_block(succ, succ);
        cfg.retarget(pred, succ, nb);
        nb
    } else {
        pred
    }
}

/// Splits every critical edge (from a block with several successors to one with several
/// predecessors) with a new block; returns the new blocks as `(pred, succ, new)`.
pub fn split_critical_edges(cfg: &mut impl CfgEdit) -> Vec<(usize, usize, usize)> {
    let preds = preds(cfg);
    let mut out = Vec::new();
    for b in 0..preds.len() {
        let mut succs = cfg.succs(b);
        if succs.len() < 2 {
            continue;
        }
        succs.sort_unstable();
        succs.dedup();
        for s in succs {
            if preds[s].len() > 1 {
                let nb = cfg.add_jump_block(s, s);
                cfg.retarget(b, s, nb);
                out.push((b, s, nb));
            }
        }
    }
    out
}

/// Which blocks a path from the entry reaches.
pub fn reachable(cfg: &impl Cfg) -> Vec<bool> {
    let n = cfg.num_blocks();
    let mut reach = vec![false; n];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if b >= n || reach[b] {
            continue;
        }
        reach[b] = true;
        stack.extend(cfg.succs(b));
    }
    reach
}

/// Immediate dominators (`None` for the entry and unreachable blocks), by the iterative
/// algorithm of Cooper, Harvey and Kennedy over a reverse postorder.
pub fn idoms(cfg: &impl Cfg) -> Vec<Option<usize>> {
    let n = cfg.num_blocks();
    // Reverse postorder.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    if n > 0 {
        seen[0] = true;
        stack.push((0, 0));
    }
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        let succs = cfg.succs(b);
        if let Some(&s) = succs.get(*i) {
            *i += 1;
            if s < n && !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(b);
            stack.pop();
        }
    }
    order.reverse();
    let mut rpo = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        rpo[b] = i;
    }
    let preds = preds(cfg);
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if n == 0 {
        return idom;
    }
    idom[0] = Some(0);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut a) => {
                        let mut c = p;
                        while a != c {
                            while rpo[a] > rpo[c] {
                                a = idom[a].unwrap_or(0);
                            }
                            while rpo[c] > rpo[a] {
                                c = idom[c].unwrap_or(0);
                            }
                        }
                        a
                    }
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom[0] = None;
    idom
}

/// Whether `a` dominates `b` (given [`idoms`]).
pub fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(d) => b = d,
            None => return false,
        }
    }
}

/// Loop nesting depth of every block: the number of natural loops (one per loop header,
/// merging all its back edges) that contain it.
pub fn loop_depths(cfg: &impl Cfg) -> Vec<u32> {
    let n = cfg.num_blocks();
    let idom = idoms(cfg);
    let preds = preds(cfg);
    let reach = reachable(cfg);
    let mut depth = vec![0u32; n];
    for h in 0..n {
        if !reach[h] {
            continue;
        }
        let latches: Vec<usize> = preds[h]
            .iter()
            .copied()
            .filter(|&p| reach[p] && dominates(&idom, h, p))
            .collect();
        if latches.is_empty() {
            continue;
        }
        // The loop body: the header plus everything reaching a latch without passing it.
        let mut body = vec![false; n];
        body[h] = true;
        let mut stack = latches;
        while let Some(b) = stack.pop() {
            if body[b] {
                continue;
            }
            body[b] = true;
            stack.extend(preds[b].iter().copied().filter(|&p| reach[p]));
        }
        for (d, inside) in depth.iter_mut().zip(body) {
            *d += u32::from(inside);
        }
    }
    depth
}
