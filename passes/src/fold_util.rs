//! Helpers shared by `const-fold` and `simplify`: a worklist over code ops, reading and making
//! constants through the interpreter's value model, replacing a value and sweeping the pure ops
//! that became dead, and the effective float flags of an op (its own flags plus the `SetFpMode`
//! defaults of its result type).

use irc_arith::eval::constant_literals;
use irc_arith::value::constant_value;
use irc_arith::Value;
use irc_ir::{EntityRef, Module, Op, OpCode, OpFlags, ScalarType, SsaDef, Type};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// A LIFO worklist of ops with an "already queued" mark, so each op is queued at most once at a
/// time. Seeded with the code in reverse so that the first pops follow program order.
#[derive(Debug, Default)]
pub struct Worklist {
    stack: Vec<SsaDef>,
    queued: Vec<bool>,
}

impl Worklist {
    /// Every code op of `m`, to be popped in program order.
    pub fn of_code(m: &Module) -> Worklist {
        // Sized for the whole code at once (collecting the walk would grow it step by step).
        let mut stack: Vec<SsaDef> = Vec::with_capacity(m.len() - m.declaration_count());
        stack.extend(m.code());
        stack.reverse();
        let mut queued = vec![false; m.id_bound()];
        for &d in &stack {
            queued[d.index()] = true;
        }
        Worklist { stack, queued }
    }
    /// Queues `d` unless it is queued already.
    pub fn push(&mut self, d: SsaDef) {
        if d.index() >= self.queued.len() {
            self.queued.resize(d.index() + 1, false);
        }
        if !self.queued[d.index()] {
            self.queued[d.index()] = true;
            self.stack.push(d);
        }
    }
    /// Queues every user of `d`.
    pub fn push_users(&mut self, m: &Module, d: SsaDef) {
        for &u in m.uses(d) {
            self.push(u);
        }
    }
    pub fn pop(&mut self) -> Option<SsaDef> {
        let d = self.stack.pop()?;
        self.queued[d.index()] = false;
        Some(d)
    }
}

/// The value of `d` if it is a `Constant`, decoded exactly as the interpreter decodes it.
pub fn const_value(m: &Module, d: SsaDef) -> Option<Value> {
    let op = m.get(d)?;
    if op.opcode != OpCode::Constant {
        return None;
    }
    let lits: SmallVec<[u64; 4]> = op.literals().collect();
    constant_value(&op.ty, &lits)
}

/// The `Constant` of type `ty` holding `v`, if `v` is exactly representable as one.
pub fn make_constant(m: &mut Module, ty: &Type, v: &Value) -> Option<SsaDef> {
    let lits = constant_literals(ty, v)?;
    let mut op = Op::new(OpCode::Constant, ty.clone());
    for l in lits {
        op = op.lit(l);
    }
    Some(m.add(op))
}

/// Removes the constants of `created` that ended up unused (intermediate results of a chain).
pub fn remove_unused_constants(m: &mut Module, created: &[SsaDef]) {
    for &c in created {
        if m.is_live(c) && m.opcode(c) == OpCode::Constant && m.uses(c).is_empty() {
            m.remove(c);
        }
    }
}

/// True for code ops that compute a value and nothing else: removable when unused.
pub fn is_pure(op: OpCode) -> bool {
    !op.is_declarative()
        && !op.has_effect()
        && !op.is_terminator()
        && !op.reads_state()
        && !op.is_meta()
        && !matches!(op, OpCode::Phi | OpCode::Label | OpCode::Unknown)
}

/// True if nothing but debug info uses `d`.
pub fn is_unused(m: &Module, d: SsaDef) -> bool {
    m.uses(d).iter().all(|&u| m.opcode(u).is_meta())
}

/// Makes every use of `old` a use of `new` and removes `old` (with the debug info naming it;
/// a name describes the computation, not the value it was replaced by).
pub fn replace_value(m: &mut Module, old: SsaDef, new: SsaDef) {
    let meta: SmallVec<[SsaDef; 2]> = m
        .uses(old)
        .iter()
        .copied()
        .filter(|&u| m.opcode(u).is_meta())
        .collect();
    for u in meta {
        if m.is_live(u) {
            m.remove(u);
        }
    }
    m.replace_all_uses(old, new);
    m.remove(old);
}

/// Removes each of `defs` that is a pure op without uses, and then, transitively, its operands
/// that became unused.
pub fn remove_dead(m: &mut Module, defs: impl IntoIterator<Item = SsaDef>) {
    let mut stack: SmallVec<[SsaDef; 8]> = defs.into_iter().collect();
    while let Some(d) = stack.pop() {
        if !m.is_live(d) || !is_pure(m.opcode(d)) || !is_unused(m, d) {
            continue;
        }
        stack.extend(m.op(d).ref_defs());
        m.remove(d);
    }
}

/// The `SetFpMode` default flags of each float type.
#[derive(Debug, Default)]
pub struct FpDefaults(FxHashMap<ScalarType, OpFlags>);

impl FpDefaults {
    pub fn of(m: &Module) -> FpDefaults {
        let mut map = FxHashMap::default();
        for d in m.declarations() {
            let op = m.op(d);
            if op.opcode == OpCode::SetFpMode {
                if let Some(t) = op.ty.as_scalar() {
                    *map.entry(t).or_insert(OpFlags::NONE) |= op.flags;
                }
            }
        }
        FpDefaults(map)
    }
    /// The op's own flags plus the defaults for its result type (additive, spec `SetFpMode`).
    pub fn flags(&self, op: &Op) -> OpFlags {
        let t = op.ty.members().first().map(|b| b.scalar_type());
        op.flags
            | t.and_then(|t| self.0.get(&t).copied())
                .unwrap_or(OpFlags::NONE)
    }
}
