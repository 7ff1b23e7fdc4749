//! `if-convert`: turns small `if`/`else` selections into straight-line code with `Select`s.
//!
//! **Shape.** A selection header `S` (`Label %merge StructuredSelection`, ending in
//! `BranchConditional %c %t %f`) is convertible when each arm is either empty (the target is
//! the merge block itself) or a *straight chain* of blocks `A1 → … → Ak → merge`: each `Ai` has
//! exactly one predecessor (`S`, then `A(i-1)`), declares no construct, is named by none
//! (not some construct's merge or continue block) and ends in `Branch`;
//! and the merge block's predecessors are exactly the two arm ends. Every op of an arm must be
//! safe to execute speculatively: pure and unable to trap ([`crate::gvn_pure::is_pure`],
//! [`crate::gvn_pure::may_trap`]) — so no stores, `Demote`, atomics, derivatives or
//! implicit-LOD samples (those read state and are not pure; moving them out of a possibly
//! divergent arm would change which lanes compute them, so arms containing them stay as they
//! are). Single-pair phis inside a chain are replaced by their value.
//!
//! **Rewrite.** The arm ops move, in program order, before `S`'s terminator; each phi of the
//! merge block becomes `Select %c, <value from the true arm>, <value from the false arm>`
//! placed after them; the terminator becomes `Branch %merge`, the header's label loses its
//! construct (`Label None`: it no longer branches conditionally), and the arms' labels and
//! branches are removed. `S` then runs into the merge block, a chain that `cfg-cleanup` merges.
//!
//! **Order.** Blocks are visited in reverse program order, so an inner selection (which sits
//! inside an arm, after its enclosing header) is converted first and its enclosing arm becomes a
//! chain; blocks touched in a round are not looked at again until the CFG is rebuilt for the
//! next round, until a round converts nothing.
//!
//! **Cost model** ([`speculation_limit`], from [`TargetCaps::if_convert_limit`]): branching
//! costs differ per target.
//! - No branches (`!caps.branches`, AGAL): every convertible selection is converted whatever its
//!   size. Once a function has no loop left (loops are `unroll`'s business, run it before a
//!   final `if-convert`), any conditional branch or switch that remains is reported as
//!   [`PassError::Unsupported`] naming the op that blocks conversion (an op with an effect such
//!   as `Demote`, an op that may trap, or the terminator of an arm that is not straight-line).
//! - Targets whose branches cost a pipeline flush of several cycles while an ALU op issues in
//!   one (Lima, PICA) declare a larger limit (16 ops in both arms together).
//! - Default (dxbc-spirv / SPIR-V consumers): up to 8 ops, the usual "both sides cheaper than
//!   a branch" heuristic.
//! - Each phi of the merge block adds [`TargetCaps::select_cost`] (0 on most targets, where a
//!   select is one instruction): where a select is a sequence (AGAL: six instructions at
//!   least), a selection whose arms compute little but choose several values is dearer
//!   converted than branched.
//!
//! The work per round is linear in the function; rounds are bounded by the nesting depth.

use crate::caps::{PassContext, TargetCaps};
use crate::dce::remove_all;
use crate::gvn_pure::{is_pure, may_trap};
use crate::PassError;
use irc_ir::analysis::{construct, functions, Block, Cfg};
use irc_ir::format::{Branch, BranchConditional, Phi};
use irc_ir::{Construct, Module, Op, OpCode, SsaDef, Type};
use rustc_hash::FxHashSet;

/// Longest arm chain looked at.
const MAX_CHAIN: usize = 64;

/// How many ops both arms of a selection may hold together to be converted; `None`: no limit.
pub fn speculation_limit(caps: &TargetCaps) -> Option<usize> {
    caps.branches.then_some(usize::from(caps.if_convert_limit))
}

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    Ok(convert(m, cx)? > 0)
}

/// Runs the pass; returns the number of selections converted.
pub fn convert(m: &mut Module, cx: &PassContext) -> Result<usize, PassError> {
    let limit = speculation_limit(&cx.caps);
    let mut changed = 0;
    for f in functions(m) {
        if !f.body(m).any(|d| m.opcode(d) == OpCode::Label) {
            continue;
        }
        loop {
            let cfg = Cfg::build(m, f);
            let mut dirty: FxHashSet<Block> = FxHashSet::default();
            let mut round = false;
            let blocks: Vec<Block> = cfg.blocks().collect();
            for &b in blocks.iter().rev() {
                let Ok(Some(plan)) = analyze(m, &cfg, b, cx.caps.select_cost) else {
                    continue;
                };
                if limit.is_some_and(|l| plan.cost > l) {
                    continue;
                }
                let touched: Vec<Block> = std::iter::once(b)
                    .chain(plan.arms[0].iter().copied())
                    .chain(plan.arms[1].iter().copied())
                    .chain(std::iter::once(plan.merge))
                    .collect();
                if touched.iter().any(|t| dirty.contains(t)) {
                    continue;
                }
                apply(m, &cfg, b, &plan);
                dirty.extend(touched);
                round = true;
                changed += 1;
            }
            if !round {
                break;
            }
        }
        if !cx.caps.branches {
            report_remaining(m, f, &cx.caps)?;
        }
    }
    Ok(changed)
}

/// On a target without branches: the first conditional branch left in a loop-free function.
fn report_remaining(
    m: &Module,
    f: irc_ir::analysis::FunctionRange,
    caps: &TargetCaps,
) -> Result<(), PassError> {
    let cfg = Cfg::build(m, f);
    let has_loop = cfg.blocks().any(|b| {
        matches!(
            construct(m, cfg.label(b)),
            Some((Construct::StructuredLoop, _, _))
        )
    });
    if has_loop {
        return Ok(());
    }
    // Innermost (last) first: its blocker is the most specific reason.
    let blocks: Vec<Block> = cfg.blocks().collect();
    for &b in blocks.iter().rev() {
        let Some(t) = cfg.block(b).terminator else {
            continue;
        };
        if !matches!(m.opcode(t), OpCode::BranchConditional | OpCode::Switch) {
            continue;
        }
        let (op, why) = match analyze(m, &cfg, b, caps.select_cost) {
            Err(e) => e,
            Ok(_) => (
                t,
                "a conditional branch that is not a convertible if/else".to_string(),
            ),
        };
        return Err(PassError::Unsupported {
            op,
            opcode: m.opcode(op),
            reason: format!(
                "target `{}` has no branches and this selection cannot become \
                 straight-line code: {why}",
                caps.name
            ),
        });
    }
    Ok(())
}

/// A convertible selection.
struct Plan {
    cond: SsaDef,
    /// The blocks of the true and the false arm (empty: the arm is the merge block).
    arms: [Vec<Block>; 2],
    /// The last block of each arm (the header for an empty arm): the merge's predecessors.
    ends: [Block; 2],
    merge: Block,
    cost: usize,
}

/// `Ok(None)`: not an if/else header; `Err((op, why))`: a selection that cannot be converted.
fn analyze(
    m: &Module,
    cfg: &Cfg,
    b: Block,
    select_cost: u16,
) -> Result<Option<Plan>, (SsaDef, String)> {
    let Some(term) = cfg.block(b).terminator else {
        return Ok(None);
    };
    match m.opcode(term) {
        OpCode::BranchConditional => {}
        OpCode::Switch => return Err((term, "a switch".into())),
        _ => return Ok(None),
    }
    let Some((Construct::StructuredSelection, Some(merge_label), _)) = construct(m, cfg.label(b))
    else {
        return Err((
            term,
            "a conditional branch that is not an if/else header".into(),
        ));
    };
    let br = BranchConditional::of(m.op(term));
    let (Some(cond), Some(t), Some(f)) = (br.cond(), br.if_true(), br.if_false()) else {
        return Ok(None);
    };
    if t == f {
        return Ok(None);
    }
    let Some(merge) = cfg.block_of_label(merge_label) else {
        return Ok(None);
    };
    let mut cost = 0;
    let (arm_t, end_t) = arm(m, cfg, b, t, merge, &mut cost)?;
    let (arm_f, end_f) = arm(m, cfg, b, f, merge, &mut cost)?;
    let mut preds: Vec<Block> = cfg.preds(merge).to_vec();
    preds.sort();
    let mut want = vec![end_t, end_f];
    want.sort();
    if end_t == end_f || preds != want {
        return Err((
            term,
            "the merge block has other predecessors than the arms".into(),
        ));
    }
    for &d in cfg.ops(merge) {
        if m.opcode(d) == OpCode::Phi {
            if m.ty(d).as_basic().is_none() {
                return Err((d, "a phi of a non-basic type".into()));
            }
            cost += usize::from(select_cost);
        }
    }
    Ok(Some(Plan {
        cond,
        arms: [arm_t, arm_f],
        ends: [end_t, end_f],
        merge,
        cost,
    }))
}

/// The straight chain of blocks from `start` to `merge` (see the module docs) and its last
/// block (`header` for an empty arm); adds the number of speculated ops to `cost`.
fn arm(
    m: &Module,
    cfg: &Cfg,
    header: Block,
    start: SsaDef,
    merge: Block,
    cost: &mut usize,
) -> Result<(Vec<Block>, Block), (SsaDef, String)> {
    let mut chain = Vec::new();
    let mut prev = header;
    let mut label = start;
    loop {
        let Some(cur) = cfg.block_of_label(label) else {
            return Err((label, "a branch target outside the function".into()));
        };
        if cur == merge {
            return Ok((chain, prev));
        }
        if chain.len() >= MAX_CHAIN || cfg.preds(cur) != [prev] {
            return Err((
                label,
                "an arm that is entered from elsewhere or too long".into(),
            ));
        }
        if !matches!(construct(m, label), Some((Construct::None, _, _))) {
            return Err((label, "an arm holding nested control flow".into()));
        }
        if m.uses(label).iter().any(|&u| m.opcode(u) == OpCode::Label) {
            return Err((
                label,
                "an arm block named as merge or continue of a construct".into(),
            ));
        }
        let data = cfg.block(cur);
        let Some(t) = data.terminator else {
            return Err((label, "a block without terminator".into()));
        };
        if m.opcode(t) != OpCode::Branch {
            return Err((
                t,
                "an arm that does not run straight into the merge block".into(),
            ));
        }
        let ops = cfg.ops(cur);
        for &d in &ops[1..ops.len() - 1] {
            match m.opcode(d) {
                OpCode::Phi => {}
                o if !is_pure(m, d) => {
                    return Err((d, format!("{o} in an arm cannot be executed speculatively")))
                }
                o if may_trap(m, d) => {
                    return Err((d, format!("{o} in an arm may trap when speculated")))
                }
                _ => *cost += 1,
            }
        }
        chain.push(cur);
        prev = cur;
        let Some(next) = Branch::of(m.op(t)).target() else {
            return Err((t, "a branch without target".into()));
        };
        label = next;
    }
}

/// Performs the conversion of `plan` for header `b`.
fn apply(m: &mut Module, cfg: &Cfg, b: Block, plan: &Plan) {
    let term = cfg.block(b).terminator.expect("analyzed");
    let mut dead = Vec::new();
    for &a in plan.arms.iter().flatten() {
        let ops = cfg.ops(a);
        for &d in &ops[1..ops.len() - 1] {
            if m.opcode(d) == OpCode::Phi {
                let v = Phi::of(m.op(d)).pairs().next().and_then(|(_, v)| v);
                let v = v.expect("single-pair phi");
                m.replace_all_uses(d, v);
                m.remove(d);
            } else {
                m.move_before(d, term);
            }
        }
        dead.push(ops[0]);
        dead.push(ops[ops.len() - 1]);
    }
    let [end_t, end_f] = plan.ends;
    let (lt, lf) = (cfg.label(end_t), cfg.label(end_f));
    for &d in cfg.ops(plan.merge) {
        if m.opcode(d) != OpCode::Phi {
            continue;
        }
        let op = m.op(d).clone();
        let value_from = |l: SsaDef| {
            (0..op.operands.len() / 2)
                .find(|&i| op.operand_def(2 * i) == Some(l))
                .and_then(|i| op.operand_def(2 * i + 1))
        };
        let sel = Op::new(OpCode::Select, op.ty.clone())
            .arg(plan.cond)
            .arg(value_from(lt))
            .arg(value_from(lf));
        let s = m.insert_before(term, sel);
        m.replace_all_uses(d, s);
        m.remove(d);
    }
    let merge_label = cfg.label(plan.merge);
    m.rewrite(term, Op::new(OpCode::Branch, Type::void()).arg(merge_label));
    m.rewrite(
        cfg.label(b),
        Op::new(OpCode::Label, Type::void()).lit(Construct::None.to_u64()),
    );
    remove_all(m, &dead);
}
