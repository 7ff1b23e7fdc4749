//! `call-helpers`: moves the D3D9 legacy multiplies and the dot products that `lower-legacy`
//! and `lower-dot` would expand in place into helper functions, when that makes the module
//! smaller, as dxbc-spirv's `legalizeIr` does for SPIR-V (`mul_legacy_<type>`,
//! `dp<N>_<type>_legacy`, …, reference §B.6).
//!
//! Expanded in place, each `FMulLegacy` costs five ops (two `FEq`, two `Select`, the `FMul`),
//! each four-component legacy dot product about sixteen (the selects, the lane extracts, the
//! multiply-add chain). A helper costs its body once, plus the `Function`, `Label`, `Return`,
//! `FunctionEnd` and one `DclParam` and `ParamLoad` per operand, and then one `FunctionCall` per
//! use. For each group of ops with the same opcode, flags, result and operand types, the pass
//! estimates both sizes (the in-place cost of an op is smaller when an operand is a constant
//! or was built by `CompositeConstruct`: its lanes are free) and outlines the group when the
//! helper is smaller. The helper's body is the op itself applied to the `ParamLoad`s, so the
//! lowering passes that follow expand it there, once; the op at the call site becomes the
//! `FunctionCall` (its id and uses stay). Values are exactly what the in-place expansion
//! computes: the same ops on the same values, only behind a call.
//!
//! Multiplies with a constant factor are left in place: `simplify` reduces their zero guard to a
//! plain `FMul` there, which a call would hide. Ops the target executes natively, and the
//! legacy multiplies when the context asks for IEEE multiplies, are left alone too.
//!
//! Only the `legalize` pipeline runs this pass (output for IR consumers such as dxbc-spirv's
//! SPIR-V writer, which has calls); the targets' `opt` pipeline inlines everything, since our
//! machines have no calls, and does not run it.

use crate::caps::PassContext;
use crate::PassError;
use irc_ir::{Construct, Module, Op, OpCode, OpFlags, SsaDef, Type};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// What identifies a helper: opcode, flags, result type, operand types.
type Key = (OpCode, OpFlags, Type, SmallVec<[Type; 3]>);

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    if !m.contains_where(outlinable) {
        return Ok(false);
    }
    let mut groups: FxHashMap<Key, (Vec<SsaDef>, usize)> = FxHashMap::default();
    let mut order: Vec<Key> = Vec::new();
    for d in m.code() {
        let Some(cost) = inline_cost(m, cx, d) else {
            continue;
        };
        let op = m.op(d);
        let key: Key = (
            op.opcode,
            op.flags,
            op.ty.clone(),
            op.ref_defs().map(|a| m.ty(a).clone()).collect(),
        );
        let g = groups.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            (Vec::new(), 0)
        });
        g.0.push(d);
        g.1 += cost;
    }
    let Some(first) = m.first_code() else {
        return Ok(false);
    };
    let mut changed = false;
    for key in order {
        let Some((uses, inline)) = groups.remove(&key) else {
            continue;
        };
        let params = key.3.len();
        let body = body_cost(&key, cx);
        let helper = 4 + 2 * params + body + uses.len();
        if helper >= inline {
            continue;
        }
        let f = make_helper(m, first, &key);
        for d in uses {
            let args: SmallVec<[SsaDef; 3]> = m.op(d).ref_defs().collect();
            let mut call = Op::new(OpCode::FunctionCall, key.2.clone()).arg(f);
            for a in args {
                call = call.arg(a);
            }
            m.rewrite(d, call);
        }
        changed = true;
    }
    Ok(changed)
}

/// The helper `ty f(p0, …) { return op(p0, …) }`, inserted before `first` (the first code op,
/// so before every other function).
fn make_helper(m: &mut Module, first: SsaDef, key: &Key) -> SsaDef {
    let (opcode, flags, ty, params) = key;
    let decls: SmallVec<[SsaDef; 3]> = params
        .iter()
        .map(|t| m.add(Op::new(OpCode::DclParam, t.clone())))
        .collect();
    let mut function = Op::new(OpCode::Function, ty.clone());
    for &p in &decls {
        function = function.arg(p);
    }
    let f = m.insert_before(first, function);
    m.insert_before(
        first,
        Op::new(OpCode::Label, Type::void()).lit(Construct::None.to_u64()),
    );
    let mut body = Op::new(*opcode, ty.clone()).with_flags(*flags);
    for (&p, t) in decls.iter().zip(params) {
        let load = m.insert_before(first, Op::new(OpCode::ParamLoad, t.clone()).arg(f).arg(p));
        body = body.arg(load);
    }
    let value = m.insert_before(first, body);
    m.insert_before(first, Op::new(OpCode::Return, ty.clone()).arg(value));
    m.insert_before(first, Op::new(OpCode::FunctionEnd, Type::void()));
    f
}

/// Lanes of a vector type (1 for a scalar).
fn lanes(ty: &Type) -> usize {
    ty.as_basic().map_or(1, |b| usize::from(b.vec_size()))
}

/// Ops the in-place expansion of `opcode` leaves, with `free` operand lanes already at hand
/// (constants, `CompositeConstruct`s) out of `lanes` per operand, `None` if the pass leaves
/// the op alone.
fn expansion(cx: &PassContext, opcode: OpCode, n: usize, extracts: usize) -> Option<usize> {
    if cx.caps.is_native(opcode) {
        return None;
    }
    let guard = if cx.ieee_products() { 0 } else { 4 };
    Some(match opcode {
        OpCode::FMulLegacy | OpCode::FMadLegacy if guard > 0 => 1 + guard,
        OpCode::FPowLegacy => 3 + guard,
        OpCode::FLog2Legacy => 4,
        OpCode::FDot | OpCode::FDotAdd => n + extracts,
        OpCode::FDotLegacy | OpCode::FDotAddLegacy => n + extracts + guard,
        _ => return None,
    })
}

/// The in-place cost of op `d`, `None` if it stays in place.
/// The ops a helper may take: the legacy multiplies (and `FLog2Legacy`) and the dot products.
fn outlinable(opcode: OpCode) -> bool {
    matches!(
        opcode,
        OpCode::FMulLegacy
            | OpCode::FMadLegacy
            | OpCode::FPowLegacy
            | OpCode::FLog2Legacy
            | OpCode::FDot
            | OpCode::FDotAdd
            | OpCode::FDotLegacy
            | OpCode::FDotAddLegacy
    )
}

fn inline_cost(m: &Module, cx: &PassContext, d: SsaDef) -> Option<usize> {
    let op = m.op(d);
    let opcode = op.opcode;
    if !outlinable(opcode) {
        return None;
    }
    let args: SmallVec<[SsaDef; 3]> = op.ref_defs().collect();
    if args.len() != op.operands.len() {
        return None;
    }
    let constant = |a: SsaDef| m.opcode(a).is_constant_like();
    let is_dot = matches!(
        opcode,
        OpCode::FDot | OpCode::FDotAdd | OpCode::FDotLegacy | OpCode::FDotAddLegacy
    );
    if !is_dot && args.iter().any(|&a| constant(a)) {
        return None;
    }
    let n = args.first().map_or(1, |&a| lanes(m.ty(a)));
    let extracts = args
        .iter()
        .take(2)
        .filter(|&&a| !constant(a) && m.opcode(a) != OpCode::CompositeConstruct)
        .count()
        * n;
    expansion(cx, opcode, n, extracts)
}

/// The cost of the helper's body: the expansion with every lane extracted.
fn body_cost(key: &Key, cx: &PassContext) -> usize {
    let n = key.3.first().map_or(1, lanes);
    let extracts = key.3.len().min(2) * n;
    expansion(cx, key.0, n, extracts).unwrap_or(0)
}
