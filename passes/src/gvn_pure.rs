//! What `gvn` may merge and `licm` may move: pure ops, commutative ops, ops that can trap.
//!
//! **Pure** means: the result depends only on the operands (and on data that never changes
//! while the shader runs), evaluating the op has no effect, and evaluating it in another lane
//! or at another point of the program gives the same value. From the opcode table that is every
//! code op with a result and none of the `EFFECT`, `READS`, `META`, `SCOPED` or `TERMINATOR`
//! attributes, except `Phi` (its value depends on the edge taken; `gvn` merges phis only within
//! one block). The interpreter (`compiler/interp`) confirms this op by op; the ones that look
//! like memory reads are read-only data:
//!
//! - `InputLoad`: inputs are filled once when the invocation starts and never written.
//! - `DescriptorLoad`: a handle (declaration, array index); no memory is read.
//! - `PushDataLoad`, `ConstantLoad`: push data and constant arrays are immutable.
//! - `ParamLoad`: the argument of the current call frame, fixed for the whole call.
//! - `BufferQuerySize`, `ImageQuery*`: resource sizes do not change during a run.
//!
//! Two `READS` ops are pure when their resource is read-only: `BufferLoad` and `ImageLoad`
//! whose descriptor is a `DescriptorLoad` of a `DclCbv` or `DclSrv` (the interpreter keeps CBV
//! and SRV contents apart from UAVs and nothing writes them). Loads from writable memory
//! (`TmpLoad`, `ScratchLoad`, `LdsLoad`, `OutputLoad`, UAV buffers and images, `MemoryLoad`),
//! derivatives, implicit-LOD sampling and interpolation stay `READS` and are never touched.
//!
//! **Commutative** ops give identical results for swapped operands: integer and boolean
//! arithmetic exactly; `FAdd`, `FMul`, `FMulLegacy`, `FDot*` and `FMin`/`FMax` up to the
//! payload of a NaN result when both operands are NaN (the host, like GPUs, returns one of the
//! input NaNs; `irc_interp::compare` treats all NaNs of a type as equal, and no target
//! preserves NaN payloads). `FMin`/`FMax` were checked against `irc_arith::float::fmin`: a
//! single NaN yields the other operand in either order, and `min(−0, +0) = −0` either way.
//!
//! **May trap** are the pure ops the interpreter can stop on with an out-of-range access, unless
//! their address is known to be in range ([`may_trap`]): `CompositeExtract`/`CompositeInsert`
//! and `InputLoad` (any index), `ConstantLoad`, `PushDataLoad` and `BufferLoad` (vector and
//! struct indices; their array indices are robust), and `Pointer` (unsupported). `licm` hoists
//! those only from blocks that run whenever the loop is entered.

use irc_ir::format::{
    slots, AlignedLoad, CompositeExtract, CompositeInsert, Constant, DescriptorLoad, ImageLoad,
    Load,
};
use irc_ir::{Attrs, Module, Op, OpCode, Operand, SsaDef, Type};

/// True if `d` is a pure op (see the module docs): it may be merged with an identical op that
/// dominates it, and computed anywhere its operands are available.
pub fn is_pure(m: &Module, d: SsaDef) -> bool {
    let op = m.op(d);
    let o = op.opcode;
    if o.is_declarative()
        || o.is_terminator()
        || o.has_effect()
        || o.is_meta()
        || o.is_scoped()
        || !op.has_result()
    {
        return false;
    }
    match o {
        OpCode::Phi | OpCode::Unknown => false,
        OpCode::BufferLoad => AlignedLoad::of(op)
            .base()
            .is_some_and(|desc| is_read_only_descriptor(m, desc)),
        OpCode::ImageLoad => ImageLoad::of(op)
            .descriptor()
            .is_some_and(|desc| is_read_only_descriptor(m, desc)),
        _ => !o.reads_state(),
    }
}

/// True if `desc` is a `DescriptorLoad` of a constant buffer or shader resource view.
fn is_read_only_descriptor(m: &Module, desc: SsaDef) -> bool {
    let op = m.op(desc);
    op.opcode == OpCode::DescriptorLoad
        && DescriptorLoad::of(op)
            .decl()
            .is_some_and(|dcl| matches!(m.opcode(dcl), OpCode::DclCbv | OpCode::DclSrv))
}

/// True if the interpreter may trap on the pure op `d` for some values of its operands: an
/// access whose address is not statically known to be in range. Array indices of constant
/// arrays, push data and read-only buffers may be anything (those reads are robust: out of
/// range reads zero); every other index (vector components, struct members, arrays of inputs
/// and composites) must be a constant in range. `Pointer` is unsupported by the interpreter.
pub fn may_trap(m: &Module, d: SsaDef) -> bool {
    let op = m.op(d);
    let width = op.ty.as_basic().map_or(1, |b| b.vec_size() as u64);
    let ty = |x: Option<SsaDef>| x.map(|x| m.ty(x).clone());
    let (base, addr, robust_arrays) = match op.opcode {
        OpCode::CompositeExtract => {
            let e = CompositeExtract::of(op);
            (ty(e.composite()), e.address(), false)
        }
        OpCode::CompositeInsert => {
            let i = CompositeInsert::of(op);
            (ty(i.composite()), i.address(), false)
        }
        OpCode::InputLoad => (ty(Load::of(op).base()), Load::of(op).address(), false),
        OpCode::ConstantLoad | OpCode::PushDataLoad => {
            (ty(Load::of(op).base()), Load::of(op).address(), true)
        }
        OpCode::BufferLoad => {
            let load = AlignedLoad::of(op);
            let decl = load
                .base()
                .and_then(|desc| DescriptorLoad::try_of(m.op(desc))?.decl());
            (ty(decl), load.address(), true)
        }
        OpCode::Pointer => return true,
        _ => return false,
    };
    // An insert writes as many components as the inserted value has.
    let width = match op.opcode {
        OpCode::CompositeInsert => CompositeInsert::of(op)
            .value()
            .and_then(|v| m.ty(v).as_basic())
            .map_or(1, |b| b.vec_size() as u64),
        _ => width,
    };
    match base {
        Some(base) => !address_in_range(m, &base, addr, width, robust_arrays),
        None => true,
    }
}

/// True if `addr` (null: the whole value) certainly indexes into `base`; the last index of a
/// vector may address `width` consecutive components.
fn address_in_range(
    m: &Module,
    base: &Type,
    addr: Option<SsaDef>,
    width: u64,
    robust_arrays: bool,
) -> bool {
    let Some(addr) = addr else { return true };
    let Some(n) = m.ty(addr).as_basic().map(|b| b.vec_size() as usize) else {
        return false;
    };
    let constant = m.opcode(addr) == OpCode::Constant;
    let mut t = base.clone();
    for k in 0..n {
        let index = if constant {
            Constant::of(m.op(addr)).scalar(k)
        } else {
            None
        };
        let last = k + 1 == n;
        let next = if let Some(&len) = t.array_dims().last() {
            if !robust_arrays && index.is_none_or(|i| i >= len as u64) {
                return false;
            }
            t.element_type()
        } else if let Some(b) = t.as_basic().filter(|b| b.vec_size() > 1) {
            let w = if last { width } else { 1 };
            match index {
                Some(i) if i.checked_add(w).is_some_and(|e| e <= b.vec_size() as u64) => {
                    Some(Type::scalar(b.scalar_type()))
                }
                _ => return false,
            }
        } else if t.is_struct() {
            match index {
                Some(i) if i < t.members().len() as u64 => t.sub_type(i as u32),
                _ => return false,
            }
        } else {
            None
        };
        match next {
            Some(n) => t = n,
            None => return false,
        }
    }
    true
}

/// The value-numbering key of a pure op: the op itself with the operands of a commutative op
/// in id order, so `a + b` and `b + a` get the same key.
pub fn value_key(op: &Op) -> Op {
    let mut key = op.clone();
    if op.opcode.is(Attrs::COMMUTATIVE) && key.operands.len() == 2 {
        let (sa, sb) = (slots::Arith.a, slots::Arith.b);
        if let (Operand::Ref(a), Operand::Ref(b)) = (key.operands[sa], key.operands[sb]) {
            if b < a {
                key.operands.swap(sa, sb);
            }
        }
    }
    key
}

/// The operands of the pure op `op` in key order: those of a commutative op in id order, as
/// [`value_key`] puts them, without building the key.
fn key_operands(op: &Op) -> impl Iterator<Item = Operand> + '_ {
    let (sa, sb) = (slots::Arith.a, slots::Arith.b);
    let mut swap = false;
    if op.opcode.is(Attrs::COMMUTATIVE) && op.operands.len() == 2 {
        if let (Operand::Ref(a), Operand::Ref(b)) = (op.operands[sa], op.operands[sb]) {
            swap = b < a;
        }
    }
    (0..op.operands.len()).map(move |i| {
        let j = match i {
            _ if !swap => i,
            i if i == sa => sb,
            i if i == sb => sa,
            i => i,
        };
        op.operands[j]
    })
}

/// The hash of [`value_key`]`(op)`, computed in place (no allocation).
pub fn value_hash(op: &Op) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    op.opcode.hash(&mut h);
    op.flags.hash(&mut h);
    op.ty.hash(&mut h);
    for o in key_operands(op) {
        o.hash(&mut h);
    }
    h.finish()
}

/// True if `value_key(a) == value_key(b)`, compared in place (no allocation).
pub fn same_value(a: &Op, b: &Op) -> bool {
    a.opcode == b.opcode
        && a.flags == b.flags
        && a.ty == b.ty
        && a.operands.len() == b.operands.len()
        && key_operands(a).eq(key_operands(b))
}

/// The key of a phi: the op with its (block, value) pairs sorted by block, so two phis of one
/// block that take the same value from every predecessor get the same key.
pub fn phi_key(op: &Op) -> Op {
    let mut key = op.clone();
    if key.operands.len().is_multiple_of(2) {
        let mut pairs: Vec<(Operand, Operand)> =
            key.operands.chunks(2).map(|p| (p[0], p[1])).collect();
        pairs.sort_by_key(|&(l, _)| operand_order(l));
        key.operands = pairs.into_iter().flat_map(|(l, v)| [l, v]).collect();
    }
    key
}

fn operand_order(o: Operand) -> (u8, u64) {
    match o {
        Operand::Null => (0, 0),
        Operand::Ref(d) => (1, d.as_u32() as u64),
        Operand::Lit(v) => (2, v),
    }
}
