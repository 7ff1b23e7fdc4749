//! SLP regrouping (step 3 of [`super`]): from seed lanes to a tree of groups, priced, pruned,
//! placed and emitted.
//!
//! **Seeds.** From the top: the isomorphic classes among the parts of a construct or the
//! values of an output's component stores ([`classes`]). From the bottom: candidates of one
//! kind that read different lanes of one vector at the same operand position, in lane order
//! ([`lane_seeds`]) — a group made from them turns the next level of scalar ops (their users)
//! into readers of lanes too, so seeding is repeated, up to [`MAX_ROUNDS`] rounds per block,
//! while it finds something.
//!
//! **Build.** [`Tree::build`] takes a lane list. If the lanes are exactly the members of a group
//! already in the tree (same order), that group is reused; if any lane is a member of another
//! group (or of a group still being built: a cycle), the whole tree is given up. If the lanes
//! are isomorphic candidates ([`candidate`]) a new group is made and each operand position
//! built in turn; otherwise they are a [`Gather`] (and if a gathered lane becomes a member of
//! a group built later, the tree is given up too). Depth and size are bounded.
//!
//! **Decide.** The groups form a DAG (a group may be shared by several parents); walking it in
//! post-order meets every child before its parents. Each group gets an *anchor*: the last
//! in-block op its operands need (the anchors of kept child groups, the lanes of gathers and
//! of pruned children), or the block head; its vector op goes right after the anchor, before the op that followed the
//! anchor when planning began (`at`). A group is kept if the scalar users of its members that
//! stay (everything but members of kept groups) are in later blocks or at or after `at` (they
//! will read an extract placed before `at`), and if keeping it pays: it saves `lanes − 1`
//! instructions, each gather costs its moves, and a kept child contributes its own net saving
//! where a pruned child would cost the gather of its lanes. Pruning a group changes the
//! anchors and users seen by others, so the decisions are repeated until nothing changes
//! (each round only prunes, so this ends). A group no kept group needs is kept only if its
//! own net saving is positive. The kept groups are emitted if their total saving, plus the
//! seed's (moves no longer needed to assemble a construct seed) when the root is kept, is
//! positive.
//!
//! **Emit.** Children first: each operand (a kept child's vector, or a gather), the vector op,
//! and an extract for each member that has users outside the kept groups, all before `at`;
//! then the members of kept groups are removed together, and their operands that nothing
//! uses any more.

use super::lanes::{component_of, vectorizable_scalar, Gather, Lanes, Source};
use super::{extract, store_component, users, BlockCx, Stats};
use irc_ir::format::Store;
use irc_ir::{Attrs, Module, Op, OpCode, SsaDef, Type};
use rustc_hash::FxHashMap;

/// Deepest operand nesting a tree follows.
const MAX_DEPTH: usize = 12;
/// Most groups in one tree.
const MAX_GROUPS: usize = 64;

/// True if `lanes` can form a group: 2–4 distinct live ops of this block with equal opcode
/// (pure, lane-wise), result type (a vectorizable scalar), flags, operand count, literals and
/// operand types, every reference operand present and scalar.
pub(super) fn candidate(m: &Module, bcx: &BlockCx, lanes: &[SsaDef]) -> bool {
    if !(2..=4).contains(&lanes.len()) {
        return false;
    }
    if !candidate_op(m, lanes[0]) {
        return false;
    }
    let first = m.op(lanes[0]);
    let fl = first.first_literal();
    for (i, &l) in lanes.iter().enumerate() {
        if !bcx.contains(m, l) || lanes[..i].contains(&l) {
            return false;
        }
        let op = m.op(l);
        if op.opcode != first.opcode
            || op.ty != first.ty
            || op.flags != first.flags
            || op.operands.len() != first.operands.len()
            || op.operands[fl..] != first.operands[fl..]
        {
            return false;
        }
        for k in 0..fl {
            let (Some(a), Some(b)) = (op.operand_def(k), first.operand_def(k)) else {
                return false;
            };
            if m.ty(a) != m.ty(b) || !m.ty(a).as_scalar().is_some_and(vectorizable_scalar) {
                return false;
            }
        }
    }
    true
}

/// How an operand of a group is made.
#[derive(Clone, Debug)]
enum Src {
    Group(usize),
    Gather(Gather, u32),
}

#[derive(Debug)]
struct Group {
    lanes: Lanes,
    operands: Vec<Src>,
    /// Groups that use this one as an operand.
    parents: Vec<usize>,
    keep: bool,
    /// Set by [`Tree::decide`].
    anchor: Option<SsaDef>,
    net: i64,
}

/// One tree of groups over a block.
struct Tree {
    groups: Vec<Group>,
    /// Member → (group, lane).
    member: FxHashMap<SsaDef, (usize, u8)>,
    building: Vec<bool>,
}

impl Tree {
    fn new() -> Tree {
        Tree {
            groups: Vec::new(),
            member: FxHashMap::default(),
            building: Vec::new(),
        }
    }

    /// The vector for `lanes` (module docs); `None` gives up the whole tree.
    fn build(
        &mut self,
        m: &Module,
        bcx: &BlockCx,
        lanes: &[SsaDef],
        parent: Option<usize>,
        depth: usize,
    ) -> Option<Src> {
        if let Some(&(g, 0)) = self.member.get(&lanes[0]) {
            if self.groups[g].lanes.as_slice() == lanes && !self.building[g] {
                self.groups[g].parents.extend(parent);
                return Some(Src::Group(g));
            }
        }
        if lanes.iter().any(|l| self.member.contains_key(l)) {
            return None;
        }
        if depth < MAX_DEPTH && self.groups.len() < MAX_GROUPS && candidate(m, bcx, lanes) {
            let g = self.groups.len();
            self.groups.push(Group {
                lanes: lanes.iter().copied().collect(),
                operands: Vec::new(),
                parents: parent.into_iter().collect(),
                keep: true,
                anchor: None,
                net: 0,
            });
            self.building.push(true);
            for (i, &l) in lanes.iter().enumerate() {
                self.member.insert(l, (g, i as u8));
            }
            let fl = m.op(lanes[0]).first_literal();
            for k in 0..fl {
                let sub: Lanes = lanes
                    .iter()
                    .map(|&l| {
                        m.op(l)
                            .operand_def(k)
                            .expect("candidate operands are present")
                    })
                    .collect();
                let src = self.build(m, bcx, &sub, Some(g), depth + 1)?;
                self.groups[g].operands.push(src);
            }
            self.building[g] = false;
            return Some(Src::Group(g));
        }
        let (gather, cost) = Gather::of(m, lanes)?;
        Some(Src::Gather(gather, cost))
    }

    /// True if a gather reads a lane that became a member of a group built after the gather
    /// was planned (the member will be removed).
    fn gathers_members(&self) -> bool {
        self.groups.iter().flat_map(|g| &g.operands).any(|src| {
            matches!(src, Src::Gather(Gather::Construct(lanes), _)
                if lanes.iter().any(|l| self.member.contains_key(l)))
        })
    }

    /// The groups with every child before its parents (post-order from the root).
    fn order(&self) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.groups.len());
        let mut seen = vec![false; self.groups.len()];
        // (group, next operand to look at)
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some(top) = stack.last_mut() {
            let (g, k) = *top;
            match self.groups[g].operands.get(k) {
                Some(src) => {
                    top.1 += 1;
                    if let Src::Group(c) = src {
                        if !seen[*c] {
                            seen[*c] = true;
                            stack.push((*c, 0));
                        }
                    }
                }
                None => {
                    order.push(g);
                    stack.pop();
                }
            }
        }
        order
    }

    /// True if `u` is a member of a kept group.
    fn kept_member(&self, u: SsaDef) -> bool {
        self.member
            .get(&u)
            .is_some_and(|&(g, _)| self.groups[g].keep)
    }

    /// The gather that replaces pruned group `c` as an operand, with its cost.
    fn gather_of(&self, m: &Module, c: usize) -> (Gather, u32) {
        Gather::of(m, &self.groups[c].lanes).expect("group lanes are vectorizable scalars")
    }

    /// Anchors, validity and profit of every group, until stable (module docs). `gain` is what
    /// the seed saves if the root is kept.
    fn decide(&mut self, m: &Module, bcx: &BlockCx, gain: i64) {
        let order = self.order();
        loop {
            let mut changed = false;
            for &g in &order {
                let mut anchor = bcx.head;
                let mut net = self.groups[g].lanes.len() as i64 - 1;
                for src in &self.groups[g].operands {
                    match src {
                        Src::Group(c) if self.groups[*c].keep => {
                            anchor = bcx.latest(m, anchor, self.groups[*c].anchor);
                            net += self.groups[*c].net;
                        }
                        Src::Group(c) => {
                            anchor = bcx.latest(m, anchor, self.groups[*c].lanes.iter().copied());
                            net -= self.gather_of(m, *c).1 as i64;
                        }
                        Src::Gather(gather, cost) => {
                            anchor = bcx.latest(m, anchor, gather.inputs());
                            net -= *cost as i64;
                        }
                    }
                }
                let grp = &self.groups[g];
                let at = m
                    .next(anchor)
                    .expect("an anchor is followed by the terminator");
                let valid = grp.lanes.iter().all(|&l| {
                    users(m, l).iter().all(|&u| {
                        self.kept_member(u) || !bcx.contains(m, u) || u == at || m.precedes(at, u)
                    })
                });
                // Needed by a kept parent, the alternative is gathering the scalar lanes;
                // otherwise it is leaving them alone.
                let pays = if grp.parents.iter().any(|&p| self.groups[p].keep) {
                    net + self.gather_of(m, g).1 as i64 >= 0
                } else {
                    net + if g == 0 { gain } else { 0 } > 0
                };
                let keep = grp.keep && valid && pays;
                changed |= keep != grp.keep;
                let grp = &mut self.groups[g];
                grp.keep = keep;
                grp.anchor = Some(anchor);
                grp.net = net;
            }
            if !changed {
                break;
            }
        }
    }

    /// Instructions saved by emitting the kept groups, each counted once (plus `gain` if the
    /// root is kept).
    fn saving(&self, m: &Module, gain: i64) -> i64 {
        let mut total = 0;
        for (g, grp) in self.groups.iter().enumerate().filter(|(_, g)| g.keep) {
            total += grp.lanes.len() as i64 - 1 + if g == 0 { gain } else { 0 };
            for src in &grp.operands {
                total -= match src {
                    Src::Group(c) if self.groups[*c].keep => 0,
                    Src::Group(c) => self.gather_of(m, *c).1 as i64,
                    Src::Gather(_, cost) => *cost as i64,
                };
            }
        }
        total
    }

    /// Emits the kept groups (module docs).
    fn emit(&self, m: &mut Module, bcx: &mut BlockCx, stats: &mut Stats) {
        let at: Vec<Option<SsaDef>> = self
            .groups
            .iter()
            .map(|g| g.keep.then(|| m.next(g.anchor.expect("decided"))).flatten())
            .collect();
        let mut vecs: Vec<Option<SsaDef>> = vec![None; self.groups.len()];
        for g in self.order() {
            let grp = &self.groups[g];
            let Some(at) = at[g] else { continue };
            let first = m.op(grp.lanes[0]).clone();
            let t = first.ty.as_scalar().expect("scalar members");
            let mut op = Op::new(first.opcode, Type::vector(t, grp.lanes.len() as u8))
                .with_flags(first.flags);
            for src in &grp.operands {
                let v = match src {
                    Src::Group(c) if self.groups[*c].keep => vecs[*c].expect("child first"),
                    Src::Group(c) => self.gather_of(m, *c).0.emit(m, bcx, at),
                    Src::Gather(gather, _) => gather.emit(m, bcx, at),
                };
                op = op.arg(v);
            }
            for &l in &first.operands[first.first_literal()..] {
                op.operands.push(l);
            }
            let v = bcx.insert(m, at, op);
            vecs[g] = Some(v);
            for (i, &l) in grp.lanes.iter().enumerate() {
                if users(m, l).iter().any(|&u| !self.kept_member(u)) {
                    let e = extract(m, bcx, at, v, i as u8);
                    m.replace_all_uses(l, e);
                }
            }
            stats.vector_ops += 1;
            stats.vector_lanes += grp.lanes.len();
        }
        let dead: Vec<SsaDef> = self
            .groups
            .iter()
            .filter(|g| g.keep)
            .flat_map(|g| g.lanes.iter().copied())
            .collect();
        let inputs: Vec<SsaDef> = dead.iter().flat_map(|&d| m.op(d).ref_defs()).collect();
        crate::dce::remove_all(m, &dead);
        crate::fold_util::remove_dead(m, inputs);
    }
}

/// Where seeds come from: a construct, or the component stores of one output in this block.
enum Seed {
    Construct(SsaDef),
    Stores(Vec<SsaDef>),
}

/// The seeds of a block: constructs whose parts include ops of this block, and the component
/// stores of each output in it.
fn seeds(m: &Module, bcx: &BlockCx) -> Vec<Seed> {
    let mut out = Vec::new();
    let mut stores: Vec<(SsaDef, Vec<SsaDef>)> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    for d in bcx.ops(m) {
        for u in users(m, d) {
            if m.opcode(u) == OpCode::CompositeConstruct && seen.insert(u) {
                out.push(Seed::Construct(u));
            }
        }
        if store_component(m, d).is_some() {
            let o = Store::of(m.op(d)).base().expect("store declaration");
            match stores.iter_mut().find(|(x, _)| *x == o) {
                Some((_, v)) => v.push(d),
                None => stores.push((o, vec![d])),
            }
        }
    }
    out.extend(stores.into_iter().map(|(_, v)| Seed::Stores(v)));
    out
}

/// The isomorphism key of a lane value (opcode, type, flags, literals), if it can be a member.
fn key(m: &Module, d: SsaDef) -> Option<Op> {
    let op = m.op(d);
    if !op.opcode.is(Attrs::LANEWISE) {
        return None;
    }
    let mut k = Op::new(op.opcode, op.ty.clone()).with_flags(op.flags);
    for o in &op.operands[op.first_literal()..] {
        k.operands.push(*o);
    }
    Some(k)
}

/// The classes of isomorphic ops among `values` (first occurrences, in order), ≥ 2 each.
fn classes(m: &Module, bcx: &BlockCx, values: &[SsaDef]) -> Vec<Lanes> {
    let mut out: Vec<(Op, Lanes)> = Vec::new();
    for &v in values {
        if !bcx.contains(m, v) {
            continue;
        }
        let Some(k) = key(m, v) else { continue };
        match out.iter_mut().find(|(x, _)| *x == k) {
            Some((_, l)) if !l.contains(&v) && l.len() < 4 => l.push(v),
            Some(_) => {}
            None => out.push((k, smallvec::smallvec![v])),
        }
    }
    out.into_iter()
        .map(|(_, l)| l)
        .filter(|l| l.len() >= 2)
        .collect()
}

/// Moves a construct of `parts` needs when the members of `group` come from one new vector
/// (computed straight into the construct's lanes).
fn construct_cost(m: &Module, parts: &[SsaDef], group: &[SsaDef]) -> u32 {
    super::lanes::cost_of_sources(parts.iter().map(|&p| {
        if group.contains(&p) {
            Source::Placed(group[0])
        } else {
            super::lanes::source(m, p, parts)
        }
    }))
}

/// Rounds of seeding per block: a round's vector ops turn the operands of the next level of
/// scalar ops into extracts, which seed the next round.
const MAX_ROUNDS: usize = 4;

/// Seeds from the bottom: isomorphic candidates that read different lanes of one vector (at
/// the same operand position), in lane order, up to four per seed.
fn lane_seeds(m: &Module, bcx: &BlockCx) -> Vec<Lanes> {
    // (key, operand position, vector) → (lane, op), in program order.
    type Bucket = (Op, usize, SsaDef);
    let mut buckets: Vec<(Bucket, Vec<(u8, SsaDef)>)> = Vec::new();
    let mut index: FxHashMap<Bucket, usize> = FxHashMap::default();
    for d in bcx.ops(m) {
        let Some(k) = key(m, d) else { continue };
        if !candidate_op(m, d) {
            continue;
        }
        let op = m.op(d);
        for pos in 0..op.first_literal() {
            let Some((v, lane, _)) = op.operand_def(pos).and_then(|x| component_of(m, x)) else {
                continue;
            };
            let bk = (k.clone(), pos, v);
            let b = *index.entry(bk.clone()).or_insert_with(|| {
                buckets.push((bk, Vec::new()));
                buckets.len() - 1
            });
            buckets[b].1.push((lane, d));
            break;
        }
    }
    let mut out = Vec::new();
    for (_, mut ops) in buckets {
        // One op per lane (the first), in lane order.
        let mut seen = [false; 4];
        ops.retain(|&(l, _)| !std::mem::replace(&mut seen[l as usize % 4], true));
        ops.sort_by_key(|&(l, _)| l);
        for chunk in ops.chunks(4) {
            if chunk.len() >= 2 {
                out.push(chunk.iter().map(|&(_, d)| d).collect());
            }
        }
    }
    out
}

/// True if `d` could be a member of some group (the per-op part of [`candidate`]).
fn candidate_op(m: &Module, d: SsaDef) -> bool {
    let op = m.op(d);
    op.opcode.is(Attrs::LANEWISE)
        && op.ty.as_scalar().is_some_and(vectorizable_scalar)
        && crate::gvn_pure::is_pure(m, d)
}

/// Tries one tree from `lanes`; returns whether it was emitted.
fn try_tree(
    m: &mut Module,
    bcx: &mut BlockCx,
    lanes: &[SsaDef],
    gain: i64,
    stats: &mut Stats,
) -> bool {
    if lanes.iter().any(|&l| !m.is_live(l)) {
        return false;
    }
    let mut tree = Tree::new();
    if tree.build(m, bcx, lanes, None, 0).is_none()
        || tree.groups.is_empty()
        || tree.gathers_members()
    {
        return false;
    }
    tree.decide(m, bcx, gain);
    if tree.saving(m, gain) <= 0 {
        return false;
    }
    tree.emit(m, bcx, stats);
    true
}

/// Regroups the seeds of one block (module docs).
pub(super) fn run_block(m: &mut Module, bcx: &mut BlockCx, stats: &mut Stats) {
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for seed in seeds(m, bcx) {
            // Seeds are re-read: earlier trees may have replaced their values by extracts.
            let values: Vec<SsaDef> = match &seed {
                Seed::Construct(c) if m.is_live(*c) => m.op(*c).ref_defs().collect(),
                Seed::Stores(s) => {
                    let mut s: Vec<(u8, SsaDef)> = s
                        .iter()
                        .filter(|&&d| m.is_live(d))
                        .filter_map(|&d| {
                            Some((store_component(m, d)?, Store::of(m.op(d)).value()?))
                        })
                        .collect();
                    s.sort_by_key(|&(c, _)| c);
                    s.into_iter().map(|(_, v)| v).collect()
                }
                Seed::Construct(_) => continue,
            };
            for lanes in classes(m, bcx, &values) {
                let gain = match &seed {
                    Seed::Construct(_) => {
                        let before = super::lanes::gather_cost(m, &values);
                        before as i64 - construct_cost(m, &values, &lanes) as i64
                    }
                    Seed::Stores(_) => 0,
                };
                changed |= try_tree(m, bcx, &lanes, gain, stats);
            }
        }
        for lanes in lane_seeds(m, bcx) {
            changed |= try_tree(m, bcx, &lanes, 0, stats);
        }
        if !changed {
            break;
        }
    }
}
