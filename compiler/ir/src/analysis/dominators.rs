//! The dominator tree of one function's [`Cfg`].
//!
//! Immediate dominators come from Cooper, Harvey and Kennedy's iteration ("A Simple, Fast
//! Dominance Algorithm") over the CFG's reverse post-order, on dense positions. petgraph's
//! `simple_fast` is the same algorithm, but generic over node ids it keeps its post-order
//! numbers and predecessor sets in hash maps: building those was most of its cost, and its
//! calls were 10% of the `legalize` pipeline of a D3D9 shader (63K instructions per tree of
//! a 30-block function, against a few thousand for the dense loop here). petgraph stays as
//! the oracle: a test checks this tree against `simple_fast` on random graphs. The tree is then
//! numbered by one iterative depth-first walk (pre- and post-order), so that
//! [`DomTree::dominates`] is two comparisons.
//!
//! Unreachable blocks (not reachable from the entry) are not part of the tree. Following LLVM's
//! convention, every block dominates an unreachable block, and an unreachable block dominates
//! only itself; use [`DomTree::is_reachable`] to tell them apart.

use super::cfg::{Block, Cfg};
use crate::entities::SsaDef;
use crate::module::Module;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::EntityRef;

/// What the tree knows of one block.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    idom: PackedOption<Block>,
    reachable: bool,
    pre: u32,
    post: u32,
}

/// Dominator tree of one function.
#[derive(Clone, Debug, Default)]
pub struct DomTree {
    /// Per block (one allocation for the four per-block facts).
    nodes: Vec<Node>,
    /// The children of every block, block after block, each block's in block order (one list
    /// for the tree instead of one allocation per parent).
    children: Vec<Block>,
    /// Where each block's children start in `children` (one more entry than blocks).
    child_start: Vec<u32>,
    rpo: Vec<Block>,
}

impl DomTree {
    /// Computes the dominator tree of `cfg`. An empty CFG gives an empty tree.
    pub fn compute(cfg: &Cfg) -> DomTree {
        let mut t = DomTree::default();
        let Some(entry) = cfg.entry() else { return t };
        let n = cfg.len();
        t.nodes = vec![Node::default(); n];
        t.child_start = vec![0; n + 1];
        if n == 1 {
            // Straight-line code (most shaders): the entry alone, no graph to build.
            t.nodes[0] = Node {
                idom: None.into(),
                reachable: true,
                pre: 0,
                post: 1,
            };
            t.rpo.push(entry);
            return t;
        }
        let rpo = reverse_post_order(cfg, entry);
        let idom = immediate_dominators(cfg, &rpo);
        for (i, &b) in rpo.iter().enumerate() {
            t.nodes[b.index()].reachable = true;
            if i > 0 {
                let d = rpo[idom[i] as usize];
                t.nodes[b.index()].idom = d.into();
                t.child_start[d.index() + 1] += 1;
            }
        }
        // Children lists: counts to starts, then each block into its parent's run, in block
        // order.
        for i in 0..n {
            t.child_start[i + 1] += t.child_start[i];
        }
        let mut next: Vec<u32> = t.child_start[..n].to_vec();
        t.children = vec![entry; t.child_start[n] as usize];
        for b in cfg.blocks() {
            if let Some(i) = t.nodes[b.index()].idom.expand() {
                t.children[next[i.index()] as usize] = b;
                next[i.index()] += 1;
            }
        }
        // Pre/post numbering of the tree, and a reverse post-order of the CFG.
        let mut counter = 0u32;
        let mut stack: Vec<(Block, usize)> = Vec::with_capacity(n);
        stack.push((entry, 0));
        t.nodes[entry.index()].pre = counter;
        counter += 1;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if let Some(&c) = t.children(b).get(*i) {
                *i += 1;
                t.nodes[c.index()].pre = counter;
                counter += 1;
                stack.push((c, 0));
            } else {
                t.nodes[b.index()].post = counter;
                counter += 1;
                stack.pop();
            }
        }
        t.rpo = rpo;
        t
    }

    /// The facts of `b` (the defaults for a block outside the tree's CFG).
    #[inline]
    fn node(&self, b: Block) -> Node {
        self.nodes.get(b.index()).copied().unwrap_or_default()
    }

    /// True if `b` is reachable from the entry block.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.node(b).reachable
    }
    /// The immediate dominator of `b` (`None` for the entry and unreachable blocks).
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.node(b).idom.expand()
    }
    /// The blocks `b` immediately dominates.
    pub fn children(&self, b: Block) -> &[Block] {
        let i = b.index();
        match (self.child_start.get(i), self.child_start.get(i + 1)) {
            (Some(&s), Some(&e)) => &self.children[s as usize..e as usize],
            _ => &[],
        }
    }
    /// True if `a` dominates `b` (reflexive). See the module docs for unreachable blocks.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let nb = self.node(b);
        if a == b || !nb.reachable {
            return true;
        }
        let na = self.node(a);
        na.reachable && na.pre <= nb.pre && nb.post <= na.post
    }
    /// True if `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }
    /// Reachable blocks in reverse post-order of the CFG (a definition-before-use order for
    /// forward data-flow problems).
    pub fn reverse_post_order(&self) -> &[Block] {
        &self.rpo
    }

    /// True if op `a` dominates op `b` (reflexive): in the same block `a` must not come after
    /// `b`, otherwise `a`'s block must dominate `b`'s. `false` if either op is in no block.
    pub fn op_dominates(&self, m: &Module, cfg: &Cfg, a: SsaDef, b: SsaDef) -> bool {
        match (cfg.block_of(a), cfg.block_of(b)) {
            (Some(ba), Some(bb)) if ba == bb => a == b || m.precedes(a, b),
            (Some(ba), Some(bb)) => self.dominates(ba, bb),
            _ => false,
        }
    }
}

/// Marks a block outside the reverse post-order (unreachable), or a dominator not yet known.
const NONE: u32 = u32::MAX;

/// The immediate dominator of every block of `rpo` (the reachable blocks in reverse
/// post-order, the entry first), as a position in `rpo`; the entry's is itself. Cooper, Harvey
/// and Kennedy's iteration over the reverse post-order, on dense positions: a dominator comes
/// before the blocks it dominates, so intersecting two candidates walks the later one up.
fn immediate_dominators(cfg: &Cfg, rpo: &[Block]) -> Vec<u32> {
    let mut position = vec![NONE; cfg.len()];
    for (i, &b) in rpo.iter().enumerate() {
        position[b.index()] = i as u32;
    }
    let mut idom = vec![NONE; rpo.len()];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for (i, &b) in rpo.iter().enumerate().skip(1) {
            let mut new = NONE;
            for &p in cfg.preds(b) {
                let p = position[p.index()];
                if p == NONE || idom[p as usize] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    intersect(&idom, p, new)
                };
            }
            if idom[i] != new {
                idom[i] = new;
                changed = true;
            }
        }
    }
    idom
}

/// The nearest common dominator of positions `a` and `b`.
fn intersect(idom: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = idom[a as usize];
        }
        while b > a {
            b = idom[b as usize];
        }
    }
    a
}

/// The reachable blocks in reverse post-order.
fn reverse_post_order(cfg: &Cfg, entry: Block) -> Vec<Block> {
    let mut seen = vec![false; cfg.len()];
    let mut post = Vec::with_capacity(cfg.len());
    let mut stack: Vec<(Block, usize)> = Vec::with_capacity(cfg.len());
    stack.push((entry, 0));
    seen[entry.index()] = true;
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        if let Some(&s) = cfg.succs(b).get(*i) {
            *i += 1;
            if !seen[s.index()] {
                seen[s.index()] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::functions;

    fn tree(src: &str) -> (Cfg, DomTree) {
        let m = crate::text::parse(src).expect("parse");
        let f = functions(&m)[0];
        let cfg = Cfg::build(&m, f);
        let t = DomTree::compute(&cfg);
        (cfg, t)
    }

    fn b(i: usize) -> Block {
        Block::new(i)
    }

    #[test]
    fn straight_line_code_is_the_entry_alone() {
        let (_, t) = tree(
            "%1 = EntryPoint %2 Vertex\n%2 = Function\n%3 = Label None\n%4 = Return\n\
             %5 = FunctionEnd\n",
        );
        assert!(t.is_reachable(b(0)));
        assert_eq!(t.idom(b(0)), None);
        assert!(t.children(b(0)).is_empty());
        assert!(t.dominates(b(0), b(0)));
        assert!(!t.strictly_dominates(b(0), b(0)));
        assert_eq!(t.reverse_post_order(), &[b(0)]);
    }

    #[test]
    fn diamond_loop_and_unreachable_block() {
        // 0 → {1, 2} → 3 (loop header) ⇄ 4 (body), 3 → 5 (exit); 6 is unreachable.
        let (cfg, t) = tree(
            "%1 = EntryPoint %2 Vertex\n%9 = bool Constant true\n%2 = Function\n\
             %10 = Label %13 StructuredSelection\n%20 = BranchConditional %9 %11 %12\n\
             %11 = Label None\n%21 = Branch %13\n\
             %12 = Label None\n%22 = Branch %13\n\
             %13 = Label %15 %14 StructuredLoop\n%23 = BranchConditional %9 %14 %15\n\
             %14 = Label None\n%24 = Branch %13\n\
             %15 = Label None\n%25 = Return\n\
             %16 = Label None\n%26 = Branch %15\n\
             %30 = FunctionEnd\n",
        );
        assert_eq!(cfg.len(), 7);
        assert_eq!(t.idom(b(1)), Some(b(0)));
        assert_eq!(t.idom(b(2)), Some(b(0)));
        assert_eq!(
            t.idom(b(3)),
            Some(b(0)),
            "the join is dominated by the fork only"
        );
        assert_eq!(t.idom(b(4)), Some(b(3)));
        assert_eq!(t.idom(b(5)), Some(b(3)));
        assert!(!t.is_reachable(b(6)));
        assert_eq!(t.idom(b(6)), None);
        assert!(t.dominates(b(3), b(4)) && !t.dominates(b(4), b(3)));
        assert!(!t.dominates(b(1), b(3)) && !t.dominates(b(2), b(5)));
        assert!(
            t.dominates(b(1), b(6)),
            "every block dominates an unreachable one"
        );
        let rpo = t.reverse_post_order();
        assert_eq!(rpo.len(), 6);
        assert_eq!(rpo[0], b(0));
        let at = |x: Block| rpo.iter().position(|&y| y == x).expect("in rpo");
        assert!(at(b(1)) < at(b(3)) && at(b(2)) < at(b(3)) && at(b(3)) < at(b(4)));
    }

    /// A random function of `n` blocks: each returns, branches, or branches two ways to
    /// random blocks (the entry included, so there are loops and unreachable blocks).
    fn random_function(n: usize, seed: &mut u64) -> String {
        let mut next = |k: usize| {
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (*seed >> 33) as usize % k
        };
        let mut src =
            String::from("%1 = EntryPoint %2 Vertex\n%9 = bool Constant true\n%2 = Function\n");
        for b in 0..n {
            src.push_str(&format!("%{} = Label None\n", 100 + b));
            let t = 200 + b;
            match next(4) {
                0 => src.push_str(&format!("%{t} = Return\n")),
                1 => src.push_str(&format!("%{t} = Branch %{}\n", 100 + next(n))),
                _ => src.push_str(&format!(
                    "%{t} = BranchConditional %9 %{} %{}\n",
                    100 + next(n),
                    100 + next(n)
                )),
            }
        }
        src.push_str("%3 = FunctionEnd\n");
        src
    }

    /// True if every path from the entry to `b` passes through `a` (by search with `a` cut).
    fn dominates_by_search(cfg: &Cfg, a: Block, b: Block) -> bool {
        let entry = cfg.entry().expect("entry");
        if a == entry || a == b {
            return true;
        }
        let mut seen = vec![false; cfg.len()];
        let mut work = vec![entry];
        seen[entry.index()] = true;
        seen[a.index()] = true;
        while let Some(x) = work.pop() {
            if x == b {
                return false;
            }
            for &s in cfg.succs(x) {
                if !std::mem::replace(&mut seen[s.index()], true) {
                    work.push(s);
                }
            }
        }
        true
    }

    #[test]
    fn agrees_with_petgraph_and_with_path_search_on_random_graphs() {
        use petgraph::algo::dominators::simple_fast;
        use petgraph::graph::{DiGraph, NodeIndex};
        let mut seed = 7;
        let mut unreachable_seen = 0;
        for round in 0..400 {
            let n = 2 + round % 14;
            let (cfg, t) = tree(&random_function(n, &mut seed));
            assert_eq!(cfg.len(), n);
            let mut g: DiGraph<(), ()> = DiGraph::new();
            let nodes: Vec<NodeIndex> = (0..n).map(|_| g.add_node(())).collect();
            for x in cfg.blocks() {
                for &s in cfg.succs(x) {
                    g.add_edge(nodes[x.index()], nodes[s.index()], ());
                }
            }
            let oracle = simple_fast(&g, nodes[0]);
            let reachable: Vec<bool> =
                petgraph::algo::has_path_connecting(&g, nodes[0], nodes[0], None)
                    .then(|| {
                        (0..n)
                            .map(|i| {
                                petgraph::algo::has_path_connecting(&g, nodes[0], nodes[i], None)
                            })
                            .collect()
                    })
                    .expect("the entry reaches itself");
            for x in cfg.blocks() {
                let i = x.index();
                assert_eq!(t.is_reachable(x), reachable[i], "round {round} block {i}");
                if !reachable[i] {
                    unreachable_seen += 1;
                    assert_eq!(t.idom(x), None);
                    continue;
                }
                let expected = oracle
                    .immediate_dominator(nodes[i])
                    .map(|d| Block::new(d.index()));
                assert_eq!(t.idom(x), expected, "round {round} block {i}");
                for y in cfg.blocks() {
                    if reachable[y.index()] {
                        assert_eq!(
                            t.dominates(x, y),
                            dominates_by_search(&cfg, x, y),
                            "round {round}: {i} dominates {}",
                            y.index()
                        );
                    }
                }
            }
            assert_eq!(
                t.reverse_post_order().len(),
                reachable.iter().filter(|&&r| r).count()
            );
        }
        assert!(unreachable_seen > 100, "{unreachable_seen}");
    }
}
