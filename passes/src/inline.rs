//! `inline`: inlines every `FunctionCall`, leaving only the entry point's function(s).
//!
//! Our targets have no call instruction, so every call is inlined. The pass works bottom-up
//! over the call graph: a depth-first walk from the functions the `EntryPoint` names gives a
//! post-order in which every callee comes before its callers (a call to a function still on the
//! walk's stack is recursion, reported as [`PassError::Unsupported`]). Each function then gets
//! the calls in its body inlined; since its callees were handled before, their bodies contain
//! no calls any more and each call site costs one copy of the callee. Finally every function
//! the `EntryPoint` does not name is removed, with the `DclParam`s only they used. (A hull
//! shader's `EntryPoint` names two functions, so it keeps two.)
//!
//! Inlining one call `%c = FunctionCall %g args…` in block `A`:
//!
//! 1. **Split** `A` at the call: a new label `K` (the continuation) is inserted right after
//!    the call, so the ops after the call and `A`'s terminator now form block `K`. If `A` was a
//!    selection header, its construct moves to `K` (the construct belongs to the block whose
//!    conditional branch it describes) and `A` becomes `Label None`; a loop header keeps its
//!    construct, since back edges and phis name it. Phis in `A`'s successors that named `A` now
//!    name `K`.
//! 2. **Copy** the callee's blocks between `A` and `K`, with fresh ids (one map old → new; branch
//!    targets and phi labels, which may refer forward, are patched after all copies exist).
//!    `ParamLoad`s are not copied: their uses get the call's argument. Each `Return` becomes
//!    `Branch K`. `Demote`, stores and other effects are copied like any op.
//! 3. **Wrap**, if needed. A callee with several `Return`s, or with one `Return` that sits inside
//!    one of its constructs, exits from the middle of structured control flow; a plain branch
//!    to `K` from there would leave a selection other than through its merge block. The copy is
//!    then wrapped in a single-iteration loop, the usual answer of SPIR-V inliners
//!    (spirv-opt's inline pass, glslang): `H = Label K C StructuredLoop; Branch entry` before
//!    the body, `C = Label None; Branch H` after it (the continue block, which nothing reaches).
//!    Every `Branch K` is then a `break` out of that loop, valid from any depth of nesting. A
//!    callee whose single `Return` lies outside all its constructs (the common case: helpers
//!    without early returns) needs no wrapper, and `A` branches straight to the copied entry.
//! 4. **Result.** With several returns, `K` starts with a phi of (return block, value) pairs;
//!    with one, the value is used directly; a callee that never returns gives `Undef`. The uses
//!    of the call are replaced and the call removed.
//!
//! The many small blocks this leaves (`A → entry`, `return block → K`) are merged again by
//! `cfg-cleanup`.

use crate::caps::PassContext;
use crate::dce::remove_all;
use crate::PassError;
use irc_ir::analysis::cfg::{self, Cfg, FunctionRange};
use irc_ir::analysis::DomTree;
use irc_ir::format::{FunctionCall, ParamLoad, Return};
use irc_ir::{Construct, Module, Op, OpCode, Operand, SsaDef, Type};
use rustc_hash::{FxHashMap, FxHashSet};

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    if cfg::is_one_entry_function_without_calls(m) {
        return Ok(false);
    }
    let functions = cfg::functions(m);
    let ranges: FxHashMap<SsaDef, FunctionRange> =
        functions.iter().map(|r| (r.function, *r)).collect();
    let entries: Vec<SsaDef> = m
        .declarations()
        .filter(|&d| m.opcode(d) == OpCode::EntryPoint)
        .flat_map(|d| m.op(d).ref_defs().collect::<Vec<_>>())
        .filter(|f| ranges.contains_key(f))
        .collect();

    // Calls of each function, in program order.
    let mut calls: FxHashMap<SsaDef, Vec<SsaDef>> = FxHashMap::default();
    for r in &functions {
        let list: Vec<SsaDef> = r
            .body(m)
            .filter(|&d| m.opcode(d) == OpCode::FunctionCall)
            .collect();
        calls.insert(r.function, list);
    }
    let order = post_order(m, &entries, &calls)?;

    let mut changed = false;
    let mut cache: FxHashMap<SsaDef, Callee> = FxHashMap::default();
    for f in &order {
        for &call in &calls[f] {
            let Some(g) = FunctionCall::of(m.op(call)).callee() else {
                continue;
            };
            let callee = cache
                .entry(g)
                .or_insert_with(|| Callee::analyze(m, ranges[&g]));
            inline_call(m, call, callee);
            changed = true;
        }
    }

    // Remove every function the entry point does not name, then parameters left unused.
    let dead: Vec<SsaDef> = functions
        .iter()
        .filter(|r| !entries.contains(&r.function))
        .flat_map(|r| {
            std::iter::once(r.function)
                .chain(r.body(m))
                .chain(r.end)
                .collect::<Vec<_>>()
        })
        .collect();
    if !dead.is_empty() {
        let params: FxHashSet<SsaDef> = dead
            .iter()
            .filter(|&&d| m.opcode(d) == OpCode::Function)
            .flat_map(|&d| m.op(d).ref_defs().collect::<Vec<_>>())
            .collect();
        remove_all(m, &dead);
        let unused: Vec<SsaDef> = params
            .into_iter()
            .filter(|&p| m.uses(p).iter().all(|&u| m.opcode(u).is_meta()))
            .collect();
        remove_all(m, &unused);
        changed = true;
    }
    Ok(changed)
}

/// Functions reachable from `entries` through calls, callees before callers. Fails on
/// recursion, naming the call that closes the cycle.
fn post_order(
    m: &Module,
    entries: &[SsaDef],
    calls: &FxHashMap<SsaDef, Vec<SsaDef>>,
) -> Result<Vec<SsaDef>, PassError> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        OnStack,
        Done,
    }
    let mut state: FxHashMap<SsaDef, State> = FxHashMap::default();
    let mut order = Vec::new();
    for &e in entries {
        if state.contains_key(&e) {
            continue;
        }
        state.insert(e, State::OnStack);
        let mut stack: Vec<(SsaDef, usize)> = vec![(e, 0)];
        while let Some(&mut (f, ref mut i)) = stack.last_mut() {
            let list = calls.get(&f).map_or(&[][..], |v| &v[..]);
            if let Some(&call) = list.get(*i) {
                *i += 1;
                let Some(g) = FunctionCall::of(m.op(call)).callee() else {
                    continue;
                };
                match state.get(&g) {
                    Some(State::OnStack) => {
                        return Err(PassError::Unsupported {
                            op: call,
                            opcode: OpCode::FunctionCall,
                            reason: format!("recursive call of {g}; recursion cannot be inlined"),
                        })
                    }
                    Some(State::Done) => {}
                    None => {
                        if calls.contains_key(&g) {
                            state.insert(g, State::OnStack);
                            stack.push((g, 0));
                        }
                    }
                }
            } else {
                state.insert(f, State::Done);
                order.push(f);
                stack.pop();
            }
        }
    }
    Ok(order)
}

/// What inlining needs to know about a callee (computed once, after its own calls are gone).
struct Callee {
    function: SsaDef,
    /// The body ops in program order.
    body: Vec<SsaDef>,
    /// The body ops, for telling callee-local references from global ones.
    local: FxHashSet<SsaDef>,
    /// `(label of the block, Return op)` for every `Return`.
    returns: Vec<(SsaDef, SsaDef)>,
    /// The copy must be wrapped in a single-iteration loop (see the module docs).
    wrap: bool,
}

impl Callee {
    fn analyze(m: &Module, r: FunctionRange) -> Callee {
        let body: Vec<SsaDef> = r.body(m).collect();
        let local: FxHashSet<SsaDef> = body.iter().copied().collect();
        let g = Cfg::build(m, r);
        let returns: Vec<(SsaDef, SsaDef)> = g
            .blocks()
            .filter_map(|b| {
                let t = g.block(b).terminator?;
                (m.opcode(t) == OpCode::Return).then_some((g.label(b), t))
            })
            .collect();
        let wrap = match returns.len() {
            0 => false,
            1 => {
                // The return must not lie inside any construct: for each header h with merge
                // mb, either h does not dominate the return block or mb does.
                let dom = DomTree::compute(&g);
                let rb = g.block_of(returns[0].1).expect("return inside a block");
                g.blocks().any(|h| {
                    let Some((kind, merge, _)) = cfg::construct(m, g.label(h)) else {
                        return false;
                    };
                    if kind == Construct::None || !dom.dominates(h, rb) {
                        return false;
                    }
                    match merge.and_then(|l| g.block_of_label(l)) {
                        Some(mb) => !(dom.is_reachable(mb) && dom.dominates(mb, rb)),
                        None => true,
                    }
                })
            }
            _ => true,
        };
        Callee {
            function: r.function,
            body,
            local,
            returns,
            wrap,
        }
    }
}

fn label(construct: Construct, refs: &[SsaDef]) -> Op {
    let mut op = Op::new(OpCode::Label, Type::void());
    for &r in refs {
        op = op.arg(r);
    }
    op.lit(construct.to_u64())
}

fn branch(target: SsaDef) -> Op {
    Op::new(OpCode::Branch, Type::void()).arg(target)
}

/// Inlines one call (see the module docs).
fn inline_call(m: &mut Module, call: SsaDef, g: &Callee) {
    // The block holding the call.
    let mut a = call;
    while m.opcode(a) != OpCode::Label {
        a = m.prev(a).expect("call inside a block");
    }
    let params: Vec<SsaDef> = m.op(g.function).ref_defs().collect();
    let args: Vec<Operand> = FunctionCall::of(m.op(call)).args().to_vec();

    // 1. Split A at the call: K takes the rest of A, and its construct if it is a selection.
    let (kind, merge, _) = cfg::construct(m, a).unwrap_or((Construct::None, None, None));
    let k = if kind == Construct::StructuredSelection {
        let k = m.insert_after(call, label(kind, &[merge.expect("selection merge")]));
        m.rewrite(a, label(Construct::None, &[]));
        k
    } else {
        m.insert_after(call, label(Construct::None, &[]))
    };
    let phi_users: Vec<SsaDef> = m
        .uses(a)
        .iter()
        .copied()
        .filter(|&u| m.opcode(u) == OpCode::Phi)
        .collect();
    for p in phi_users {
        for i in (0..m.op(p).operands.len()).step_by(2) {
            if m.op(p).operands[i] == Operand::Ref(a) {
                m.set_operand(p, i, Operand::Ref(k));
            }
        }
    }

    // 2. Copy the body before K; A ends with a branch to the copy (or its wrapper).
    let a_branch = m.insert_before(k, branch(k)); // target patched below
    let header = g.wrap.then(|| {
        let h = m.insert_before(k, label(Construct::StructuredLoop, &[k, k]));
        let hb = m.insert_before(k, branch(k)); // target patched below
        (h, hb)
    });
    let mut map: FxHashMap<SsaDef, SsaDef> = FxHashMap::default();
    let mut pending: Vec<SsaDef> = Vec::new();
    let mut ret_values: Vec<(SsaDef, Option<SsaDef>)> = Vec::new();
    for &o in &g.body {
        let op = m.op(o);
        match op.opcode {
            OpCode::ParamLoad => {
                let p = ParamLoad::of(op)
                    .param()
                    .expect("ParamLoad names a parameter");
                let i = params.iter().position(|&x| x == p).expect("parameter");
                if let Operand::Ref(v) = args[i] {
                    map.insert(o, v);
                }
                continue;
            }
            OpCode::Return => {
                let v = Return::of(op).value();
                let b = m.insert_before(k, branch(k));
                map.insert(o, b);
                ret_values.push((o, v));
                continue;
            }
            _ => {}
        }
        let mut new = op.clone();
        let mut forward = false;
        for operand in new.operands.iter_mut() {
            if let Operand::Ref(r) = *operand {
                if let Some(&n) = map.get(&r) {
                    *operand = Operand::Ref(n);
                } else if g.local.contains(&r) {
                    forward = true;
                }
            }
        }
        let n = m.insert_before(k, new);
        if forward {
            pending.push(n);
        }
        map.insert(o, n);
    }
    for n in pending {
        for i in 0..m.op(n).operands.len() {
            if let Operand::Ref(r) = m.op(n).operands[i] {
                if g.local.contains(&r) {
                    m.set_operand(n, i, Operand::Ref(map[&r]));
                }
            }
        }
    }
    let entry = map[&g.body[0]];
    match header {
        Some((h, hb)) => {
            let c = m.insert_before(k, label(Construct::None, &[]));
            m.insert_before(k, branch(h));
            m.set_operand(h, 1, Operand::Ref(c));
            m.set_operand(hb, 0, Operand::Ref(entry));
            m.set_operand(a_branch, 0, Operand::Ref(h));
        }
        None => m.set_operand(a_branch, 0, Operand::Ref(entry)),
    }

    // 4. The call's result.
    let ty = m.ty(call).clone();
    if !ty.is_void() && !m.uses(call).is_empty() {
        let value = |v: Option<SsaDef>, m: &mut Module| -> SsaDef {
            match v {
                Some(v) => map.get(&v).copied().unwrap_or(v),
                None => m.add(Op::new(OpCode::Undef, ty.clone())),
            }
        };
        let result = match ret_values.len() {
            0 => m.add(Op::new(OpCode::Undef, ty.clone())),
            1 => value(ret_values[0].1, m),
            _ => {
                let mut phi = Op::new(OpCode::Phi, ty.clone());
                let mut pairs = Vec::new();
                for &(ret, v) in &ret_values {
                    let block = g
                        .returns
                        .iter()
                        .find(|&&(_, r)| r == ret)
                        .map(|&(l, _)| map[&l])
                        .expect("return block");
                    pairs.push((block, value(v, m)));
                }
                for (b, v) in pairs {
                    phi = phi.arg(b).arg(v);
                }
                m.insert_after(k, phi)
            }
        };
        m.replace_all_uses(call, result);
    }
    m.remove(call);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursion_is_unsupported() {
        let src = "\
%1 = EntryPoint %20 Pixel
%2 = f32 DclOutput %1 0 0
%3 = f32 Constant 1.0
%20 = Function
%21 = Label None
  %22 = f32 FunctionCall %30
  %23 = OutputStore %2 null %22
  %24 = Return
%25 = FunctionEnd
%30 = f32 Function
%31 = Label None
  %32 = f32 FunctionCall %30
  %33 = Return %32
%34 = FunctionEnd
";
        let mut m = irc_ir::text::parse(src).expect("parses");
        match run(&mut m, &PassContext::default()) {
            Err(PassError::Unsupported { op, .. }) => assert_eq!(op.id(), 32),
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }
}
