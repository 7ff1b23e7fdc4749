//! Structured control flow of one function (one that has `Label`s).
//!
//! - Every op of the body lies in a block: a block starts with a `Label` and ends with exactly
//!   one terminator; only `FunctionEnd` may follow the last terminator.
//! - A `Label`'s construct literal fixes its reference count (None 0, StructuredSelection 1 =
//!   merge, StructuredLoop 2 = merge and continue); those references and all branch targets are
//!   labels of the same function.
//! - An edge to a block that does not come later in program order (a back edge) must target a
//!   StructuredLoop header.
//! - Phis sit at the start of their block and name each predecessor exactly once; each incoming
//!   value dominates the end of its predecessor.
//! - Every other use of a code value is dominated by its definition (in the same block: defined
//!   earlier). Uses in unreachable blocks need only a definition in the same function.

use super::Ctx;
use crate::analysis::{branch_targets, Block, Cfg, DomTree, FunctionRange};
use crate::entities::SsaDef;
use crate::enums::Construct;
use crate::opcode::OpCode;
use smallvec::SmallVec;

pub(super) fn check_function(cx: &mut Ctx<'_>, f: FunctionRange) {
    let m = cx.m;
    let cfg = Cfg::build(m, f);
    let dom = DomTree::compute(&cfg);

    for &d in cfg.stray_ops() {
        let msg = if cfg.entry().is_some_and(|e| m.precedes(d, cfg.label(e))) {
            format!("{} before the first Label of the function", m.opcode(d))
        } else {
            format!("{} between a terminator and the next Label", m.opcode(d))
        };
        cx.err(d, msg);
    }

    for b in cfg.blocks() {
        let label = cfg.label(b);
        if cfg.block(b).terminator.is_none() {
            cx.err(label, "block has no terminator");
        }
        check_label(cx, &cfg, label);
        if let Some(t) = cfg.block(b).terminator {
            if !cx.is_bad(t) {
                for target in branch_targets(m, t) {
                    match cfg.block_of_label(target) {
                        None => cx.err(
                            t,
                            format!("branch target {target} is not a label of this function"),
                        ),
                        Some(s) => {
                            let backward = s == b || m.precedes(target, label);
                            let is_loop = matches!(
                                crate::analysis::construct(m, target),
                                Some((Construct::StructuredLoop, _, _))
                            );
                            if backward && !is_loop {
                                cx.err(t, format!("back edge to {target}, which is not a StructuredLoop header"));
                            }
                        }
                    }
                }
            }
        }
        let mut seen_non_phi = false;
        for &d in &cfg.ops(b)[1..] {
            if m.opcode(d) == OpCode::Phi {
                if seen_non_phi {
                    cx.err(d, "Phi after a non-Phi op of its block");
                }
                if !cx.is_bad(d) {
                    check_phi(cx, &cfg, &dom, b, d);
                }
            } else {
                seen_non_phi = true;
                if !cx.is_bad(d) {
                    check_dominance(cx, &cfg, &dom, d);
                }
            }
        }
    }
}

fn check_label(cx: &mut Ctx<'_>, cfg: &Cfg, label: SsaDef) {
    let m = cx.m;
    if cx.is_bad(label) {
        return;
    }
    let op = m.op(label);
    let Some(lit) = op.operands.last().and_then(|o| o.as_lit()) else {
        cx.err(label, "Label has no construct literal");
        return;
    };
    let Some(kind) = Construct::from_u64(lit) else {
        cx.err(label, format!("invalid construct {lit}"));
        return;
    };
    let want = match kind {
        Construct::None => 0,
        Construct::StructuredSelection => 1,
        Construct::StructuredLoop => 2,
    };
    let refs = op.operands.len() - 1;
    if refs != want {
        cx.err(
            label,
            format!("{kind} label takes {want} label operands, found {refs}"),
        );
        return;
    }
    for (i, r) in op.ref_defs().enumerate() {
        if cfg.block_of_label(r).is_none() {
            let what = if i == 0 { "merge" } else { "continue" };
            cx.err(
                label,
                format!("{what} block {r} is not a label of this function"),
            );
        }
    }
}

fn check_phi(cx: &mut Ctx<'_>, cfg: &Cfg, dom: &DomTree, b: Block, phi: SsaDef) {
    let m = cx.m;
    let op = m.op(phi);
    let mut named: SmallVec<[Block; 4]> = SmallVec::new();
    for pair in op.operands.chunks(2) {
        let (Some(l), Some(v)) = (pair[0].as_ref(), pair.get(1).and_then(|o| o.as_ref())) else {
            continue;
        };
        let Some(p) = cfg.block_of_label(l) else {
            cx.err(
                phi,
                format!("incoming block {l} is not a label of this function"),
            );
            continue;
        };
        if named.contains(&p) {
            cx.err(phi, format!("incoming block {l} is named twice"));
            continue;
        }
        named.push(p);
        if !cfg.preds(b).contains(&p) {
            cx.err(
                phi,
                format!(
                    "incoming block {l} is not a predecessor of {}",
                    cfg.label(b)
                ),
            );
            continue;
        }
        if is_local(m, v) {
            match cfg.block_of(v) {
                None => cx.err(
                    phi,
                    format!("incoming value {v} is not defined in this function"),
                ),
                Some(vb) => {
                    if !dom.dominates(vb, p) {
                        cx.err(
                            phi,
                            format!("incoming value {v} does not dominate the end of {l}"),
                        );
                    }
                }
            }
        }
    }
    for &p in cfg.preds(b) {
        if !named.contains(&p) {
            cx.err(
                phi,
                format!("no incoming value for predecessor {}", cfg.label(p)),
            );
        }
    }
}

fn check_dominance(cx: &mut Ctx<'_>, cfg: &Cfg, dom: &DomTree, d: SsaDef) {
    let m = cx.m;
    let op = m.op(d);
    for (i, v) in op.refs() {
        let Some(v) = v else { continue };
        if !is_local(m, v) {
            continue;
        }
        let ub = cfg.block_of(d);
        match cfg.block_of(v) {
            None => cx.err(
                d,
                format!("operand {i} uses {v}, which is not defined in this function"),
            ),
            Some(vb) => {
                let ok = match ub {
                    Some(ub) if ub == vb => m.precedes(v, d),
                    Some(ub) => dom.dominates(vb, ub),
                    None => true,
                };
                if !ok {
                    cx.err(
                        d,
                        format!(
                            "operand {i} uses {v}, whose definition does not dominate this use"
                        ),
                    );
                }
            }
        }
    }
}

/// True for values that live in a function body (not declarations, labels or functions).
fn is_local(m: &crate::Module, v: SsaDef) -> bool {
    let o = m.opcode(v);
    !o.is_declarative() && !matches!(o, OpCode::Label | OpCode::Function)
}
