//! `inline`: inlines every `FunctionCall`, leaving only the entry point's function(s).
//!
//! Our targets have no call instruction, so every call is inlined: the targets' legalization
//! runs this pass. The `legalize` pipeline for IR consumers with calls does not (its output
//! keeps the shader's functions, as dxbc-spirv's own legalization does). The pass works bottom-up
//! over the call graph: a depth-first walk from the functions the `EntryPoint` names gives a
//! post-order in which every callee comes before its callers (a call to a function still on the
//! walk's stack is recursion, reported as [`PassError::Unsupported`]). Each function then gets
//! the calls in its body inlined; since its callees were handled before, their bodies contain
//! no calls any more and each call site costs one copy of the callee — except the last call of
//! a callee that is going away (one the `EntryPoint` does not name), which gets the callee's
//! own body, moved (step 2). Finally every function the `EntryPoint` does not name is removed,
//! with the `DclParam`s only they used; after a move that is just its `Function` and
//! `FunctionEnd`. (A hull shader's `EntryPoint` names two functions, so it keeps two.)
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
//!
//!    **Move** instead at the callee's last call, when the callee goes away afterwards (most
//!    callees have one call; the earlier calls of the others need the original intact, so only
//!    the last can take it): its ops are moved, in program order, to the same place the copy
//!    would take, keeping their ids — no map, no forward patching, and no dead body to delete
//!    op by op at the end (copying a body and then deleting the original was most of the pass's
//!    time). A `ParamLoad`'s uses get the argument and the load is removed; each `Return` is
//!    rewritten in place into `Branch K` (its value read once every load is replaced: it may be
//!    a load placed later in program order). The result is the same program as a copy's, only
//!    under the callee's ids; debug names of the moved ops stay with them (a copy has none).
//!    Steps 1, 3 and 4 are the same for both.
//! 3. **Wrap**, if needed. A callee with several `Return`s, or with one `Return` that sits inside
//!    one of its constructs, exits from the middle of structured control flow; a plain branch
//!    to `K` from there would leave a selection other than through its merge block. The body is
//!    then wrapped in a single-iteration loop, the usual answer of SPIR-V inliners
//!    (spirv-opt's inline pass, glslang): `H = Label K C StructuredLoop; Branch entry` before
//!    the body, `C = Label None; Branch H` after it (the continue block, which nothing reaches).
//!    Every `Branch K` is then a `break` out of that loop, valid from any depth of nesting. A
//!    callee whose single `Return` lies outside all its constructs (the common case: helpers
//!    without early returns) needs no wrapper, and `A` branches straight to the inlined entry.
//! 4. **Result.** With several returns, `K` starts with a phi of (return block, value) pairs;
//!    with one, the value is used directly; a callee that never returns gives `Undef`. The uses
//!    of the call are replaced and the call removed.
//!
//! The many small blocks this leaves (`A → entry`, `return block → K`) are merged again by
//! `cfg-cleanup`.

use crate::caps::PassContext;
use crate::dce::remove_all;
use crate::fold_util::replace_value;
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

    // Calls of each function, in program order; and the calls of each callee not yet inlined,
    // counted over the whole module (a call in a function the walk never reaches is never
    // inlined, so its callee is never moved away from under it).
    let mut calls: FxHashMap<SsaDef, Vec<SsaDef>> = FxHashMap::default();
    let mut calls_left: FxHashMap<SsaDef, u32> = FxHashMap::default();
    for r in &functions {
        let list: Vec<SsaDef> = r
            .body(m)
            .filter(|&d| m.opcode(d) == OpCode::FunctionCall)
            .collect();
        for &c in &list {
            if let Some(g) = FunctionCall::of(m.op(c)).callee() {
                *calls_left.entry(g).or_insert(0) += 1;
            }
        }
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
            let left = calls_left.get_mut(&g).expect("every call is counted");
            *left -= 1;
            if *left == 0 && !entries.contains(&g) {
                // The last call of a function that goes away: its body moves.
                let callee = match cache.remove(&g) {
                    Some(c) => c,
                    None => Callee::analyze(m, ranges[&g], false),
                };
                inline_call(m, call, &callee, Body::Move);
            } else {
                let callee = cache
                    .entry(g)
                    .or_insert_with(|| Callee::analyze(m, ranges[&g], true));
                inline_call(m, call, callee, Body::Copy);
            }
            changed = true;
        }
    }

    // Remove every function the entry point does not name (the ones whose body moved are down
    // to `Function` and `FunctionEnd`), then parameters left unused.
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
    /// The body ops, for telling callee-local references from global ones (copies only; empty
    /// for a callee that is only moved).
    local: FxHashSet<SsaDef>,
    /// The body must be wrapped in a single-iteration loop (see the module docs).
    wrap: bool,
}

impl Callee {
    /// `copies`: the body will be copied at least once (it needs [`Callee::local`]).
    fn analyze(m: &Module, r: FunctionRange, copies: bool) -> Callee {
        let body: Vec<SsaDef> = r.body(m).collect();
        let local: FxHashSet<SsaDef> = if copies {
            body.iter().copied().collect()
        } else {
            FxHashSet::default()
        };
        let g = Cfg::build(m, r);
        let returns: Vec<SsaDef> = g
            .blocks()
            .filter_map(|b| {
                let t = g.block(b).terminator?;
                (m.opcode(t) == OpCode::Return).then_some(t)
            })
            .collect();
        let wrap = match returns.len() {
            0 => false,
            1 => {
                // The return must not lie inside any construct: for each header h with merge
                // mb, either h does not dominate the return block or mb does.
                let dom = DomTree::compute(&g);
                let rb = g.block_of(returns[0]).expect("return inside a block");
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

/// How the callee's body gets into the caller.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// A copy with fresh ids; the callee stays as it is (it has other calls left).
    Copy,
    /// The callee's own ops, moved (the last call of a function that goes away).
    Move,
}

/// The callee's body placed before `k` (copied or moved): the caller's label of its entry
/// block, and for each `Return` (now a `Branch K`) in program order, the caller's label of its
/// block and the caller's value it returned.
struct Placed {
    entry: SsaDef,
    returns: Vec<(SsaDef, Option<SsaDef>)>,
}

/// Inlines one call (see the module docs).
fn inline_call(m: &mut Module, call: SsaDef, g: &Callee, how: Body) {
    // The block holding the call.
    let mut a = call;
    while m.opcode(a) != OpCode::Label {
        a = m.prev(a).expect("call inside a block");
    }
    let params: Vec<SsaDef> = m.op(g.function).ref_defs().collect();
    let args: Vec<Operand> = FunctionCall::of(m.op(call)).args().to_vec();
    // The caller's value for a `ParamLoad` (`None` for a non-reference argument).
    let arg_of = |m: &Module, load: SsaDef| -> Option<SsaDef> {
        let p = ParamLoad::of(m.op(load))
            .param()
            .expect("ParamLoad names a parameter");
        let i = params.iter().position(|&x| x == p).expect("parameter");
        match args[i] {
            Operand::Ref(v) => Some(v),
            _ => None,
        }
    };

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

    // 2. The body before K; A ends with a branch to it (or its wrapper).
    let a_branch = m.insert_before(k, branch(k)); // target patched below
    let header = g.wrap.then(|| {
        let h = m.insert_before(k, label(Construct::StructuredLoop, &[k, k]));
        let hb = m.insert_before(k, branch(k)); // target patched below
        (h, hb)
    });
    let placed = match how {
        Body::Copy => copy_body(m, g, k, arg_of),
        Body::Move => move_body(m, g, k, arg_of),
    };
    match header {
        Some((h, hb)) => {
            let c = m.insert_before(k, label(Construct::None, &[]));
            m.insert_before(k, branch(h));
            m.set_operand(h, 1, Operand::Ref(c));
            m.set_operand(hb, 0, Operand::Ref(placed.entry));
            m.set_operand(a_branch, 0, Operand::Ref(h));
        }
        None => m.set_operand(a_branch, 0, Operand::Ref(placed.entry)),
    }

    // 4. The call's result.
    let ty = m.ty(call).clone();
    if !ty.is_void() && !m.uses(call).is_empty() {
        let value = |v: Option<SsaDef>, m: &mut Module| -> SsaDef {
            match v {
                Some(v) => v,
                None => m.add(Op::new(OpCode::Undef, ty.clone())),
            }
        };
        let result = match placed.returns.len() {
            0 => m.add(Op::new(OpCode::Undef, ty.clone())),
            1 => value(placed.returns[0].1, m),
            _ => {
                let mut phi = Op::new(OpCode::Phi, ty.clone());
                for &(block, v) in &placed.returns {
                    phi = phi.arg(block).arg(value(v, m));
                }
                m.insert_after(k, phi)
            }
        };
        m.replace_all_uses(call, result);
    }
    m.remove(call);
}

/// Copies the callee's body before `k` with fresh ids (the module docs, step 2).
fn copy_body(
    m: &mut Module,
    g: &Callee,
    k: SsaDef,
    arg_of: impl Fn(&Module, SsaDef) -> Option<SsaDef>,
) -> Placed {
    let mut map: FxHashMap<SsaDef, SsaDef> = FxHashMap::default();
    let mut pending: Vec<SsaDef> = Vec::new();
    // (copied block label, original returned value) per `Return`.
    let mut returns: Vec<(SsaDef, Option<SsaDef>)> = Vec::new();
    let mut block = None;
    for &o in &g.body {
        let op = m.op(o);
        match op.opcode {
            OpCode::ParamLoad => {
                if let Some(v) = arg_of(m, o) {
                    map.insert(o, v);
                }
                continue;
            }
            OpCode::Return => {
                let v = Return::of(op).value();
                let b = m.insert_before(k, branch(k));
                map.insert(o, b);
                returns.push((block.expect("return inside a block"), v));
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
        let is_label = new.opcode == OpCode::Label;
        let n = m.insert_before(k, new);
        if is_label {
            block = Some(n);
        }
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
    for (_, v) in &mut returns {
        if let Some(x) = v {
            *x = map.get(x).copied().unwrap_or(*x);
        }
    }
    Placed {
        entry: map[&g.body[0]],
        returns,
    }
}

/// Moves the callee's own body before `k`, in program order (the module docs, step 2): ids are
/// kept, so nothing needs remapping; each `ParamLoad`'s uses get the argument and it goes; each
/// `Return` is rewritten in place into `Branch K`. The callee is left empty.
fn move_body(
    m: &mut Module,
    g: &Callee,
    k: SsaDef,
    arg_of: impl Fn(&Module, SsaDef) -> Option<SsaDef>,
) -> Placed {
    // (block label, Return) per `Return`.
    let mut returns: Vec<(SsaDef, SsaDef)> = Vec::new();
    let mut block = None;
    for &o in &g.body {
        match m.opcode(o) {
            // The argument replaces the load; debug names of the load go with it (as the copy
            // path drops them), rather than move to the argument.
            OpCode::ParamLoad => match arg_of(m, o) {
                Some(v) => replace_value(m, o, v),
                None => m.remove(o),
            },
            opcode => {
                if opcode == OpCode::Label {
                    block = Some(o);
                } else if opcode == OpCode::Return {
                    returns.push((block.expect("return inside a block"), o));
                }
                m.move_before(o, k);
            }
        }
    }
    // The returned values are read once every `ParamLoad` is replaced: a value may be one that
    // comes later in program order.
    let returns = returns
        .into_iter()
        .map(|(b, r)| {
            let v = Return::of(m.op(r)).value();
            m.rewrite(r, branch(k));
            (b, v)
        })
        .collect();
    Placed {
        entry: g.body[0],
        returns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use irc_interp::{InvocationInputs, IoSlot, RunConfig, ShaderInputs, Value};

    /// `main`: `o0 = x > -10 ? pick(x) + 1 : 2 * x`, then `o1 = sq(x) + sq(x + 1)`, where
    /// `pick(p) { if (p < 0) return p; return p * 3; }` is called once, from inside main's
    /// selection, and has two returns inside its selection (it is moved into a loop wrapper;
    /// the first return gives the parameter itself), and `sq` is called twice (copied once,
    /// then moved).
    const MOVES: &str = "\
%1 = EntryPoint %20 Pixel
%2 = f32 DclInput %1 0 0 None
%3 = f32 DclOutput %1 0 0
%4 = f32 DclOutput %1 1 0
%5 = f32 Constant 1.0
%6 = f32 Constant 2.0
%8 = f32 Constant 0.0
%9 = f32 Constant -10.0
%11 = f32 DclParam
%12 = f32 Constant 3.0
%13 = f32 DclParam
%14 = DebugName %58 \"tripled\"
%15 = DebugName %52 \"p\"
%20 = Function
%21 = Label %30 StructuredSelection
  %22 = f32 InputLoad %2 null
  %23 = bool FGt %22 %9
  %24 = BranchConditional %23 %25 %29
%25 = Label None
  %26 = f32 FunctionCall %50 %22
  %27 = f32 FAdd %26 %5
  %28 = Branch %30
%29 = Label None
  %31 = f32 FMul %22 %6
  %32 = Branch %30
%30 = Label None
  %33 = f32 Phi %25 %27 %29 %31
  %34 = OutputStore %3 null %33
  %35 = f32 FunctionCall %70 %22
  %36 = f32 FAdd %22 %5
  %37 = f32 FunctionCall %70 %36
  %38 = f32 FAdd %35 %37
  %39 = OutputStore %4 null %38
  %40 = Return
%41 = FunctionEnd
%50 = f32 Function %11
%51 = Label %55 StructuredSelection
  %52 = f32 ParamLoad %50 %11
  %53 = bool FLt %52 %8
  %54 = BranchConditional %53 %56 %55
%56 = Label None
  %57 = Return %52
%55 = Label None
  %58 = f32 FMul %52 %12
  %59 = Return %58
%60 = FunctionEnd
%70 = f32 Function %13
%71 = Label None
  %72 = f32 ParamLoad %70 %13
  %73 = f32 FMul %72 %72
  %74 = Return %73
%75 = FunctionEnd
";

    /// Outputs `o0`, `o1` of `m` for input `v0 = x`.
    fn outputs(m: &Module, x: f32) -> [f32; 2] {
        let mut inv = InvocationInputs::default();
        inv.io.insert(
            IoSlot::Location {
                location: 0,
                component: 0,
            },
            Value::f32(x),
        );
        let inputs = ShaderInputs {
            invocations: vec![inv],
            ..Default::default()
        };
        let out = irc_interp::run(m, &inputs, &RunConfig::default()).expect("runs");
        [0, 1].map(|l| {
            let v = &out.invocations[0].io[&IoSlot::Location {
                location: l,
                component: 0,
            }];
            f32::from_bits(v.components().expect("a scalar")[0].bits() as u32)
        })
    }

    #[test]
    fn a_last_call_moves_the_body() {
        let before = irc_ir::text::parse(MOVES).expect("parses");
        let mut m = irc_ir::text::parse(MOVES).expect("parses");
        assert!(run(&mut m, &PassContext::default()).expect("inlines"));
        if let Err(e) = irc_ir::verifier::verify(&m) {
            panic!("{e}\n{}", irc_ir::text::print(&m));
        }
        let d = |id: u32| SsaDef::from_id(id).expect("an id");
        // Only main is left; pick's ops and sq's (its second call's) are main's now, under
        // their own ids; the returns are branches, the loads are gone.
        let in_main: Vec<SsaDef> = cfg::functions(&m)
            .iter()
            .map(|r| {
                assert_eq!(r.function, d(20), "only main is left");
                r.body(&m).collect()
            })
            .next()
            .expect("main");
        for id in [51, 53, 54, 56, 57, 55, 58, 59, 71, 73, 74] {
            assert!(in_main.contains(&d(id)), "%{id} moved into main");
        }
        for id in [57, 59, 74] {
            assert_eq!(m.opcode(d(id)), OpCode::Branch, "%{id}");
        }
        for id in [50, 52, 60, 70, 72, 75, 11, 13] {
            assert!(!m.is_live(d(id)), "%{id} is gone");
        }
        assert_eq!(m.count_of(OpCode::Return), 1);
        // The moved FMul keeps its name; the load's name goes with the load (it does not
        // move to the argument).
        assert_eq!(m.count_of(OpCode::DebugName), 1);
        assert_eq!(m.opcode(d(14)), OpCode::DebugName);
        assert!(m.uses(d(22)).iter().all(|&u| !m.opcode(u).is_meta()));
        // The first call of sq was a copy (sq's FMul twice: the copy and the original).
        assert_eq!(m.count_of(OpCode::FMul), 4);
        for x in [-2.0, 2.0, 20.0, 12.5, -30.0] {
            let want_o0 = match x {
                x if x <= -10.0 => 2.0 * x,
                x if x < 0.0 => x + 1.0,
                x => x * 3.0 + 1.0,
            };
            let want = [want_o0, x * x + (x + 1.0) * (x + 1.0)];
            assert_eq!(outputs(&before, x), want, "before, x = {x}");
            assert_eq!(outputs(&m, x), want, "after, x = {x}");
        }
    }

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
