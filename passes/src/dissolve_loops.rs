//! `dissolve-loops`: loops that never repeat become plain structured code.
//!
//! The inliner wraps a callee with early returns in a single-iteration loop (`inline.rs`), so
//! that each `return` can be a `break`; HLSL compilers emit `loop { …; break; }` too. Such a
//! loop's continue block is unreachable, yet the construct makes later passes and backends
//! treat its body as a loop (loop-invariant code motion, unrolling, register-allocation
//! weights) and loop-less targets fail on it ("cannot unroll"). In the corpus, 1120 of the
//! 1315 loops after `legalize` are of this kind, all made by inlining.
//!
//! **Finding them.** A reachable loop header `H` (`Label %merge %continue StructuredLoop`)
//! never repeats when every *backward* predecessor (a block at or after `H` in program order:
//! the continue block, or any other block branching back) is unreachable from the function's
//! entry: a block reachable from `H` would be reachable from the entry.
//!
//! **Breaks.** Inside the loop, a `break` (a branch to the merge block `M`) is valid at any
//! depth; without the loop it must leave every construct through that construct's own merge.
//! A construct contains the blocks its header dominates, except those its merge dominates
//! ([`containing`] also excludes code after an enclosing construct that ends before the
//! block). For each reachable predecessor `p` of `M` inside the loop, the constructs
//! containing `p` below `H` must be:
//! - selections merging at `M` itself (nothing to do), enclosing all of the following;
//! - other selections `X`: `X`'s merge is *replaced* by a new block `N_X` (`Label None;
//!   Branch` to the new merge of the next replaced selection enclosing `X`, or to `M`). `X`
//!   then contains every loop block it dominates, its old merge and the code after it
//!   included, and every break among them goes to the innermost such `N_X`:
//!   `if (c) return a; rest; return b;` becomes `if (c) { a } else { rest; b }`. This is
//!   valid when the blocks `X` dominates are left only towards `M` (else the code after `X`
//!   runs on after an enclosing selection, and the break would need a flag: the loop stays).
//!   A switch qualifies only if no case enters its old merge, which then becomes one more
//!   case (a `break` out of the switch would otherwise land in code that belongs to no case).
//! - A loop containing `p` (a two-level break) keeps the loop.
//!
//! Each `N_X` goes right after the last block (in program order) `X` now spans, inner ones
//! before outer ones, and takes phis for the values the breaks it collects bring to `M`'s phis
//! (none when they agree); `M`'s phis take the outermost new blocks' values instead.
//!
//! **Rewrite.** The header keeps its label id (constructs and phis may name it) and loses its
//! construct: `Label None` when it ends in `Branch` (the usual shape) or a non-branching
//! terminator, `Label %merge StructuredSelection` when it ends in `BranchConditional` or
//! `Switch` (a conditional branch needs a selection merge). Each backward predecessor is
//! deleted: its successors drop the phi operand pairs naming it (a header phi left with one
//! pair, its value from the single entering edge, is replaced by that value), its ops go, and
//! so does its label unless another (unreachable) block still branches to it, in which case it
//! stays as `Label None; Unreachable`. `M` is no longer named by the loop, so `cfg-cleanup`
//! can merge the chains header → body → … → merge into straight-line code.
//!
//! Each round is one CFG and dominator-tree build plus a walk over the loop headers; a round
//! dissolves every eligible loop whose blocks no earlier dissolution of the round touched.
//! Loops are looked at again in the next round, since dissolving an inner loop can lift the
//! breaks of an enclosing one out of its construct.

use crate::caps::PassContext;
use crate::dce::remove_all;
use crate::PassError;
use irc_ir::analysis::{construct, functions, Analyses, Block, Cfg, DomTree};
use irc_ir::format::Phi;
use irc_ir::{Construct, Module, Op, OpCode, Operand, SsaDef, Type};
use rustc_hash::FxHashSet;
use smallvec::SmallVec;

/// Why a loop stays: its back edge is taken.
pub const REPEATS: &str = "the loop repeats (a back edge is reachable)";
/// Why a loop stays: a break leaves a nested loop.
pub const NESTED_LOOP: &str = "a break leaves a nested loop";
/// Why a loop stays: a break leaves a switch whose merge block is entered from a case.
pub const SWITCH_REST: &str = "a break leaves a switch whose merge block is entered from a case";
/// Why a loop stays: a break leaves a selection merging at the loop's merge block that lies
/// inside a selection whose merge must be replaced.
pub const SHARED_MERGE: &str = "a break leaves a selection that shares the loop's merge block";
/// Why a loop stays: the code after a selection a break leaves does not run into the loop's
/// merge block (the break would need a flag).
pub const NEEDS_FLAG: &str =
    "a break leaves a selection whose following code leaves an enclosing selection";

/// Why a loop stays: a block a replaced selection would span lies after the loop's merge block
/// in program order (its new merge block must come before the loop's merge).
pub const LAYOUT: &str = "a block of the loop lies after its merge block in program order";

/// Why a loop stays: a block has no terminator (the verifier reports it).
pub const MALFORMED: &str = "a block of the loop has no terminator";

/// Upper bound on rounds per function (each round dissolves at least one loop).
const MAX_ROUNDS: usize = 4096;

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    Ok(dissolve_with(m, &cx.analyses) > 0)
}

/// Dissolves every loop that never repeats (as far as the breaks allow); returns how many.
pub fn dissolve(m: &mut Module) -> usize {
    dissolve_with(m, &Analyses::new())
}

/// [`dissolve`], taking CFGs and dominator trees from (and leaving them in) `analyses`.
pub fn dissolve_with(m: &mut Module, analyses: &Analyses) -> usize {
    let mut count = 0;
    for f in functions(m) {
        // Only loop headers start a plan: a function without one needs no CFG or dominator
        // tree (most shaders, and every one after its loops are gone).
        let has_loop = |m: &Module| {
            f.body(m)
                .any(|d| matches!(construct(m, d), Some((Construct::StructuredLoop, ..))))
        };
        for _ in 0..MAX_ROUNDS {
            // Also after a round: one that dissolved the last loop needs no check round.
            if !has_loop(m) {
                break;
            }
            let cfg = analyses.cfg(m, f);
            let dom = analyses.dom(&cfg);
            let mut touched: FxHashSet<Block> = FxHashSet::default();
            let mut done = 0;
            for h in cfg.blocks() {
                let Some(Ok(plan)) = analyze(m, &cfg, &dom, h) else {
                    continue;
                };
                if plan.blocks.iter().any(|b| touched.contains(b)) {
                    continue;
                }
                touched.extend(plan.blocks.iter().copied());
                // Dissolving keeps dominance among the blocks that stay: the deleted backward
                // predecessors are unreachable, and a break sent through new merge blocks
                // reaches the loop's merge from the same blocks as before.
                m.keeping_dominance(|m| apply(m, &cfg, &plan));
                done += 1;
            }
            count += done;
            if done == 0 {
                break;
            }
        }
    }
    count
}

/// For each reachable loop of the module: `Ok(n)` if it never repeats and can be dissolved
/// (`n`: selections that get a new merge block), otherwise why not ([`REPEATS`],
/// [`NESTED_LOOP`], …). For statistics and tests.
pub fn survey(m: &Module) -> Vec<Result<usize, &'static str>> {
    let mut out = Vec::new();
    for f in functions(m) {
        let cfg = Cfg::build(m, f);
        let dom = DomTree::compute(&cfg);
        for h in cfg.blocks() {
            if let Some(r) = analyze(m, &cfg, &dom, h) {
                out.push(r.map(|p| p.fixes.len()));
            }
        }
    }
    out
}

/// What dissolving one loop does.
struct Plan {
    header: SsaDef,
    /// The header's new label.
    label: Op,
    merge: Option<SsaDef>,
    /// Backward predecessors of the header (all unreachable), to delete.
    dead: SmallVec<[Block; 2]>,
    /// Selections that get a new merge block, each after the ones enclosing it.
    fixes: Vec<Fix>,
    /// The reachable predecessors of the merge block inside the loop, with the fix whose new
    /// merge block they branch to instead (`None`: they stay breaks to the merge).
    breaks: Vec<(Block, Option<usize>)>,
    /// Every block the rewrite touches.
    blocks: Vec<Block>,
}

/// A selection header `header` whose merge becomes a new block branching to the new merge
/// block of `parent` (or to the loop's merge); the new block goes right after `last`, the last
/// block in program order of the selection's new extent.
struct Fix {
    header: Block,
    parent: Option<usize>,
    last: Block,
}

/// `None` if `h` is no reachable loop header; else the plan or why the loop stays.
fn analyze(m: &Module, cfg: &Cfg, dom: &DomTree, h: Block) -> Option<Result<Plan, &'static str>> {
    let hl = cfg.label(h);
    let Some((Construct::StructuredLoop, merge, _)) = construct(m, hl) else {
        return None;
    };
    if !dom.is_reachable(h) {
        return None;
    }
    Some(plan(m, cfg, dom, h, merge))
}

fn plan(
    m: &Module,
    cfg: &Cfg,
    dom: &DomTree,
    h: Block,
    merge: Option<SsaDef>,
) -> Result<Plan, &'static str> {
    let hl = cfg.label(h);
    let mut dead = SmallVec::new();
    for &p in cfg.preds(h) {
        if p == h || m.precedes(hl, cfg.label(p)) {
            if dom.is_reachable(p) {
                return Err(REPEATS);
            }
            dead.push(p);
        }
    }
    let mb = merge.and_then(|l| cfg.block_of_label(l));
    let in_loop = |b: Block| {
        dom.is_reachable(b)
            && dom.dominates(h, b)
            && !mb.is_some_and(|mb| dom.is_reachable(mb) && dom.dominates(mb, b))
    };
    let breaks: Vec<Block> = mb
        .map(|mb| {
            cfg.preds(mb)
                .iter()
                .copied()
                .filter(|&p| in_loop(p))
                .collect()
        })
        .unwrap_or_default();

    if breaks.iter().any(|&p| cfg.block(p).terminator.is_none()) {
        return Err(MALFORMED);
    }

    // The constructs each break leaves.
    let mut fix_headers: Vec<Block> = Vec::new();
    for &p in &breaks {
        for (a, kind, xm) in containing(m, cfg, dom, h, p, &[]) {
            match kind {
                Construct::StructuredLoop => return Err(NESTED_LOOP),
                _ if xm == merge => {}
                _ => {
                    let xb = xm.and_then(|l| cfg.block_of_label(l));
                    let switch = cfg
                        .block(a)
                        .terminator
                        .is_some_and(|t| m.opcode(t) == OpCode::Switch);
                    // A switch's merge entered from a case (a `break` out of the switch) would
                    // belong to no case once it stops being the merge; entered only from the
                    // switch itself, it becomes one more case.
                    let entered_from_case = xb.is_some_and(|xb| {
                        cfg.preds(xb).iter().any(|&q| q != a && dom.is_reachable(q))
                    });
                    if switch && entered_from_case {
                        return Err(SWITCH_REST);
                    }
                    fix_headers.push(a);
                }
            }
        }
    }
    fix_headers.sort_unstable();
    fix_headers.dedup();
    let fix_of = |b: Block| fix_headers.binary_search(&b).ok();

    // Each break goes to the new merge of the innermost selection it leaves (which now
    // include the code after their old merge); selections sharing the loop's merge must
    // enclose every selection whose merge is replaced.
    let mut targets: Vec<(Block, Option<usize>)> = Vec::with_capacity(breaks.len());
    for &p in &breaks {
        let mut shared = false;
        let mut target = None;
        for (a, kind, xm) in containing(m, cfg, dom, h, p, &fix_headers) {
            match fix_of(a) {
                Some(_) if shared => return Err(SHARED_MERGE),
                Some(i) => {
                    target.get_or_insert(i);
                }
                None if kind == Construct::StructuredLoop => return Err(NESTED_LOOP),
                None if xm == merge => shared = true,
                None => return Err(NEEDS_FLAG),
            }
        }
        targets.push((p, target));
    }

    // Each replaced selection's new extent (every loop block it dominates) may be left only
    // towards the loop's merge, which the breaks in it now reach through the new merge block.
    let loop_blocks: Vec<Block> = cfg.blocks().filter(|&b| in_loop(b)).collect();
    let mut fixes: Vec<(usize, Fix)> = Vec::with_capacity(fix_headers.len());
    for &x in &fix_headers {
        let mut last = x;
        for &b in loop_blocks.iter().filter(|&&b| dom.dominates(x, b)) {
            if cfg.block(b).terminator.is_none() {
                return Err(MALFORMED);
            }
            for &s in cfg.succs(b) {
                if !(Some(s) == mb || (in_loop(s) && dom.dominates(x, s))) {
                    return Err(NEEDS_FLAG);
                }
            }
            last = last.max(b);
        }
        if mb.is_some_and(|mb| last > mb) {
            return Err(LAYOUT);
        }
        let mut parent = None;
        let mut depth = 0;
        let mut a = x;
        while let Some(i) = dom.idom(a).filter(|_| a != h) {
            a = i;
            if let Some(f) = fix_of(a) {
                parent.get_or_insert(f);
                depth += 1;
            }
        }
        fixes.push((
            depth,
            Fix {
                header: x,
                parent,
                last,
            },
        ));
    }
    // Enclosing selections first; renumber the parents and the breaks' targets.
    let mut order: Vec<usize> = (0..fixes.len()).collect();
    order.sort_by_key(|&i| (fixes[i].0, fixes[i].1.header));
    let mut new_index = vec![0; fixes.len()];
    for (n, &i) in order.iter().enumerate() {
        new_index[i] = n;
    }
    let mut sorted: Vec<Fix> = Vec::with_capacity(fixes.len());
    for &i in &order {
        let f = &fixes[i].1;
        sorted.push(Fix {
            header: f.header,
            parent: f.parent.map(|p| new_index[p]),
            last: f.last,
        });
    }
    for t in &mut targets {
        t.1 = t.1.map(|i| new_index[i]);
    }

    let conditional = cfg
        .block(h)
        .terminator
        .is_some_and(|t| matches!(m.opcode(t), OpCode::BranchConditional | OpCode::Switch));
    let label = match merge {
        Some(ml) if conditional => label_op(Construct::StructuredSelection, &[ml]),
        _ => label_op(Construct::None, &[]),
    };
    let mut blocks: Vec<Block> = vec![h];
    blocks.extend(dead.iter().copied());
    blocks.extend(dead.iter().flat_map(|&p| cfg.succs(p).iter().copied()));
    blocks.extend(mb);
    blocks.extend(sorted.iter().flat_map(|f| [f.header, f.last]));
    blocks.extend(targets.iter().map(|t| t.0));
    Ok(Plan {
        header: hl,
        label,
        merge,
        dead,
        fixes: sorted,
        breaks: targets,
        blocks,
    })
}

/// The constructs (header, kind, merge) between the loop header `h` and the block `p` that
/// contain `p`, innermost first. A construct contains the blocks its header dominates, except
/// those its merge block dominates (SPIR-V's definition) and those after the merge of an
/// enclosing construct that does not contain `p` (a selection inside an inner loop does not
/// contain the code after that loop, which its exit test dominates). The selections `fixed`
/// get a new merge block and contain every loop block they dominate.
fn containing(
    m: &Module,
    cfg: &Cfg,
    dom: &DomTree,
    h: Block,
    p: Block,
    fixed: &[Block],
) -> SmallVec<[(Block, Construct, Option<SsaDef>); 4]> {
    let mut chain: SmallVec<[(Block, Construct, Option<SsaDef>); 8]> = SmallVec::new();
    let mut a = p;
    while a != h {
        if let Some((kind, xm, _)) = construct(m, cfg.label(a)) {
            if kind != Construct::None {
                chain.push((a, kind, xm));
            }
        }
        match dom.idom(a) {
            Some(i) => a = i,
            None => break,
        }
    }
    let mut closed: SmallVec<[Block; 4]> = SmallVec::new();
    let mut out = SmallVec::new();
    for &(x, kind, xm) in chain.iter().rev() {
        if closed.iter().any(|&c| !dom.dominates(c, x)) {
            continue;
        }
        let xb = xm
            .and_then(|l| cfg.block_of_label(l))
            .filter(|&b| dom.is_reachable(b));
        match xb {
            Some(xb) if !fixed.contains(&x) && dom.dominates(xb, p) => closed.push(xb),
            _ => out.push((x, kind, xm)),
        }
    }
    out.reverse();
    out
}

fn apply(m: &mut Module, cfg: &Cfg, plan: &Plan) {
    m.rewrite(plan.header, plan.label.clone());
    if let Some(ml) = plan.merge {
        restructure(m, cfg, plan, ml);
    }
    for &p in &plan.dead {
        delete_block(m, cfg, p);
    }
}

/// Gives each selection of `plan.fixes` its new merge block and sends the breaks there.
fn restructure(m: &mut Module, cfg: &Cfg, plan: &Plan, ml: SsaDef) {
    if plan.fixes.is_empty() {
        return;
    }
    // New merge blocks, enclosing ones first: an inner one with the same last block is then
    // inserted before the outer one.
    let mut news: Vec<SsaDef> = Vec::with_capacity(plan.fixes.len());
    for f in &plan.fixes {
        let after = cfg
            .block(f.last)
            .terminator
            .expect("a reachable block has a terminator");
        let n = m.insert_after(after, label_op(Construct::None, &[]));
        let to = f.parent.map_or(ml, |p| news[p]);
        m.insert_after(n, Op::new(OpCode::Branch, Type::void()).arg(to));
        m.rewrite(
            cfg.label(f.header),
            label_op(Construct::StructuredSelection, &[n]),
        );
        news.push(n);
    }
    for &(p, target) in &plan.breaks {
        let Some(i) = target else { continue };
        let t = cfg.block(p).terminator.expect("a break has a terminator");
        for k in 0..m.op(t).operands.len() {
            if m.op(t).operands[k] == Operand::Ref(ml) {
                m.set_operand(t, k, Operand::Ref(news[i]));
            }
        }
    }
    // Phis of the merge block: each new block takes the values of the breaks and new blocks
    // that now enter it (innermost first), the merge block keeps its other pairs and takes the
    // outermost new blocks' values.
    let mut cur = m.next(ml);
    while let Some(phi) = cur.filter(|&d| m.opcode(d) == OpCode::Phi) {
        cur = m.next(phi);
        let old = m.op(phi).clone();
        let value_from = |m: &mut Module, pred: SsaDef| -> SsaDef {
            phi_value(&old, pred).unwrap_or_else(|| m.add(Op::new(OpCode::Undef, old.ty.clone())))
        };
        let mut incoming: Vec<Vec<(SsaDef, SsaDef)>> = vec![Vec::new(); plan.fixes.len()];
        let mut outer: Vec<(SsaDef, SsaDef)> = Vec::new();
        for &(p, target) in &plan.breaks {
            if let Some(i) = target {
                let pl = cfg.label(p);
                let v = value_from(m, pl);
                incoming[i].push((pl, v));
            }
        }
        for i in (0..plan.fixes.len()).rev() {
            let pairs = std::mem::take(&mut incoming[i]);
            let v = match pairs.first() {
                None => m.add(Op::new(OpCode::Undef, old.ty.clone())),
                Some(&(_, v0)) if pairs.iter().all(|&(_, v)| v == v0) => v0,
                Some(_) => {
                    let mut op = Op::new(OpCode::Phi, old.ty.clone()).with_flags(old.flags);
                    for (l, v) in pairs {
                        op = op.arg(l).arg(v);
                    }
                    m.insert_after(news[i], op)
                }
            };
            match plan.fixes[i].parent {
                Some(p) => incoming[p].push((news[i], v)),
                None => outer.push((news[i], v)),
            }
        }
        let redirected: FxHashSet<SsaDef> = plan
            .breaks
            .iter()
            .filter(|b| b.1.is_some())
            .map(|b| cfg.label(b.0))
            .collect();
        let mut new = Op::new(OpCode::Phi, old.ty.clone()).with_flags(old.flags);
        for pair in old.operands.chunks(2) {
            if !pair[0].as_ref().is_some_and(|l| redirected.contains(&l)) {
                new.operands.extend_from_slice(pair);
            }
        }
        for (l, v) in outer {
            new = new.arg(l).arg(v);
        }
        let only = Phi::of(&new).pairs().next().and_then(|(_, v)| v);
        match only {
            Some(v) if new.operands.len() == 2 && v != phi => {
                m.replace_all_uses(phi, v);
                m.remove(phi);
            }
            _ => m.rewrite(phi, new),
        }
    }
}

/// The value a phi takes from predecessor `pred`.
fn phi_value(op: &Op, pred: SsaDef) -> Option<SsaDef> {
    op.operands
        .chunks(2)
        .find(|p| p[0] == Operand::Ref(pred))
        .and_then(|p| p.get(1).and_then(|o| o.as_ref()))
}

/// Deletes the unreachable block `b`: phi pairs naming it, its ops, and its label unless an
/// unreachable block still branches to it (then it stays as `Label None; Unreachable`).
fn delete_block(m: &mut Module, cfg: &Cfg, b: Block) {
    let label = cfg.label(b);
    for &s in cfg.succs(b) {
        drop_phi_pairs(m, cfg.label(s), label);
    }
    let ops = &cfg.ops(b)[1..];
    let set: FxHashSet<SsaDef> = ops.iter().copied().collect();
    for &d in ops {
        let outside = m
            .uses(d)
            .iter()
            .any(|u| !set.contains(u) && !m.opcode(*u).is_meta());
        if outside && !m.ty(d).is_void() {
            let u = m.add(Op::new(OpCode::Undef, m.ty(d).clone()));
            m.replace_all_uses(d, u);
        }
    }
    remove_all(m, ops);
    if m.uses(label).iter().any(|&u| !m.opcode(u).is_meta()) {
        m.rewrite(label, label_op(Construct::None, &[]));
        m.insert_after(label, Op::new(OpCode::Unreachable, Type::void()));
    } else {
        m.remove(label);
    }
}

fn label_op(construct: Construct, refs: &[SsaDef]) -> Op {
    let mut op = Op::new(OpCode::Label, Type::void());
    for &r in refs {
        op = op.arg(r);
    }
    op.lit(construct.to_u64())
}

/// Drops the operand pairs naming `pred` from the phis at the top of the block `label`; a phi
/// left with one pair is replaced by its value (by `Undef` with none, or if it is itself).
fn drop_phi_pairs(m: &mut Module, label: SsaDef, pred: SsaDef) {
    let mut cur = m.next(label);
    while let Some(phi) = cur.filter(|&d| m.opcode(d) == OpCode::Phi) {
        cur = m.next(phi);
        let op = m.op(phi);
        if !op.operands.chunks(2).any(|p| p[0] == Operand::Ref(pred)) {
            continue;
        }
        let mut new = Op::new(OpCode::Phi, op.ty.clone()).with_flags(op.flags);
        for p in op.operands.chunks(2) {
            if p[0] != Operand::Ref(pred) {
                new.operands.extend_from_slice(p);
            }
        }
        if new.operands.len() > 2 {
            m.rewrite(phi, new);
            continue;
        }
        let only = Phi::of(&new).pairs().next().and_then(|(_, v)| v);
        let v = match only {
            Some(v) if v != phi => v,
            _ => m.add(Op::new(OpCode::Undef, m.ty(phi).clone())),
        };
        m.replace_all_uses(phi, v);
        m.remove(phi);
    }
}
