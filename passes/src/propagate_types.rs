//! `propagate-types`: give every value and resource of Unknown scalar type `?` a concrete type
//! (dxbc-spirv's `PropagateTypesPass` and the common cases of `PropagateResourceTypesPass`,
//! reference §B.5).
//!
//! DXBC registers are untyped, so after SSA construction the IR still holds `?`-typed phis and
//! selects, composites built from or taken out of them, `ConsumeAs(?, x)` writes, loads from
//! `?`-typed constant buffers, scratch and LDS arrays, raw and structured buffers and
//! immediate-constant arrays, and `?` constants.
//!
//! **Exactness.** A `?` value is 32 raw bits and converts exactly like a `u32` (interpreter,
//! §B.5). Retyping a value to any 32-bit type `T` keeps its bits; what can change is how its
//! `ConsumeAs` users convert it, and only when they convert to a 64-bit type, or to `bool`
//! from a float `T`. Those users get an explicit `ConsumeAs(u32, …)` in between. So any
//! choice of `T` preserves behaviour; the choice only decides how many casts remain.
//!
//! **Algorithm** (linear in the module size, apart from the near-constant union-find):
//! 1. *Nodes.* Every op whose type mentions `?` becomes a node: value nodes (Phi, Select,
//!    Composite*, ConsumeAs, loads) and resource nodes (Dcl{Cbv,Srv,Uav,Scratch,Lds}, constant
//!    arrays read by `ConstantLoad`). `?` constants and undefs are not nodes: each use gets a
//!    typed copy. Any other op with a `?` type is `Unsupported`.
//! 2. *Classes.* A union-find joins value nodes that must share a type: a phi with its
//!    incoming values, a select with its arms, a composite with its parts, `ConsumeAs(?, v)`
//!    with a `?`-typed `v`. Resources are not joined: a load or a stored value only *links*
//!    its class to the resource.
//! 3. *Votes.* Sources: `ConsumeAs(?, x)` with a typed `x` votes `x`'s type normalized to 32
//!    bits. Consumers: `ConsumeAs(U, v)` votes `U`. A class takes the merge of its sources, or
//!    if it has none of its consumers (§B.5: equal → keep; float and int → u32; mixed
//!    signedness → signed). A resource takes the merge of its linked classes' types, of typed
//!    values stored into it and of atomics (u32 when nothing votes). A class without votes
//!    takes the type of a resource it is linked to, else u32.
//! 4. *Rewrite.* Types get `?` replaced; a load whose class type differs from its resource's
//!    is followed by a `ConsumeAs` to the class type; a stored value whose type differs from
//!    the resource's gets a `ConsumeAs` before the store; `?` constants become typed copies
//!    with re-encoded literals. `lower-consume` turns these `ConsumeAs` into casts.
//! 5. Dead `?` constants are removed and the module is checked: nothing may mention `?`.

use crate::caps::PassContext;
use crate::types_util::{
    check_resolved, has_unknown, remove_dead_unknown_constants, subst, typed_constant, unsupported,
    width, Votes,
};
use crate::PassError;
use irc_ir::format::{access, slots, Arith, DescriptorLoad};
use irc_ir::{EntityRef, Module, Op, OpCode, ScalarType, SsaDef, Type};
use rustc_hash::FxHashMap;

const NONE: u32 = u32::MAX;

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    let mut st = State::new(m.id_bound());
    st.collect(m)?;
    if st.defs.is_empty() && m.unknown_typed_count() == 0 {
        return Ok(false);
    }
    st.link(m)?;
    st.solve();
    st.rewrite(m)?;
    remove_dead_unknown_constants(m);
    check_resolved(m, false)?;
    Ok(true)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Value,
    /// A resource whose scalar type is chosen by the pass.
    Resource,
    /// A typed resource accessed by `?` loads or stores: its type is fixed.
    Fixed(ScalarType),
}

#[derive(Debug)]
struct State {
    /// Node of each def (`NONE` if none), indexed by def.
    node_of: Vec<u32>,
    /// Per node: its def, kind, union-find parent, votes.
    defs: Vec<SsaDef>,
    kind: Vec<Kind>,
    parent: Vec<u32>,
    src: Vec<Votes>,
    con: Vec<Votes>,
    /// Per node: first resource node linked to it (value classes, after solving: roots).
    link: Vec<u32>,
    /// Per load node: the resource node it reads.
    res: Vec<u32>,
    /// (value node, resource node) pairs.
    links: Vec<(u32, u32)>,
    /// Per node: the resolved scalar type.
    ty: Vec<ScalarType>,
    /// Stores whose value or resource is involved: (store op, resource node).
    stores: Vec<(SsaDef, u32)>,
    /// The stores and atomics of the module in program order, gathered by `collect`'s walk so
    /// that `link` visits them without walking the code again.
    memory_ops: Vec<SsaDef>,
    /// The typed copies of `?` constants made so far, by constant and scalar type.
    typed: FxHashMap<(SsaDef, ScalarType), SsaDef>,
}

fn is_resource_decl(op: OpCode) -> bool {
    matches!(
        op,
        OpCode::DclCbv | OpCode::DclSrv | OpCode::DclUav | OpCode::DclScratch | OpCode::DclLds
    )
}

fn is_load(op: OpCode) -> bool {
    matches!(
        op,
        OpCode::BufferLoad | OpCode::ScratchLoad | OpCode::LdsLoad | OpCode::ConstantLoad
    )
}

fn is_store(op: OpCode) -> bool {
    matches!(
        op,
        OpCode::BufferStore | OpCode::ScratchStore | OpCode::LdsStore
    )
}

/// Operand positions of a value node that carry its (shared) type.
fn value_operands(op: &Op) -> impl Iterator<Item = usize> + '_ {
    let n = op.first_literal();
    (0..n).filter(move |&i| is_value_operand(op.opcode, i))
}

/// Whether operand `i` of an `opcode` op is one of its [`value_operands`].
fn is_value_operand(opcode: OpCode, i: usize) -> bool {
    match opcode {
        OpCode::Phi => i % 2 == 1,
        OpCode::Select => i >= 1,
        OpCode::CompositeConstruct | OpCode::ConsumeAs => true,
        OpCode::CompositeExtract => i == 0,
        OpCode::CompositeInsert => i == 0 || i == 2,
        _ => false,
    }
}

/// The opcode and type of an op that is being rewritten (what `rewrite_value` reads of the
/// original once its copy is edited).
struct OpHead {
    opcode: OpCode,
    ty: Type,
}

/// The declaration a load, store or atomic accesses.
fn resource_of(m: &Module, d: SsaDef) -> Option<SsaDef> {
    let op = m.op(d);
    let base = access(op)?.base?;
    match op.opcode {
        OpCode::BufferLoad | OpCode::BufferStore | OpCode::BufferAtomic => {
            DescriptorLoad::try_of(m.op(base))?.decl()
        }
        _ => Some(base),
    }
}

impl State {
    fn new(bound: usize) -> State {
        // Room for a node per four ids (typical of raw shaders: their phis, selects and
        // composites) so the per-node lists do not grow one by one.
        let nodes = bound / 4 + 8;
        State {
            node_of: vec![NONE; bound],
            defs: Vec::with_capacity(nodes),
            kind: Vec::with_capacity(nodes),
            parent: Vec::with_capacity(nodes),
            src: Vec::with_capacity(nodes),
            con: Vec::with_capacity(nodes),
            link: Vec::with_capacity(nodes),
            links: Vec::new(),
            res: Vec::with_capacity(nodes),
            ty: Vec::with_capacity(nodes),
            stores: Vec::new(),
            memory_ops: Vec::new(),
            typed: FxHashMap::default(),
        }
    }

    fn node(&self, d: SsaDef) -> Option<u32> {
        let n = self.node_of.get(d.index()).copied().unwrap_or(NONE);
        (n != NONE).then_some(n)
    }

    fn is_value(&self, d: SsaDef) -> bool {
        self.node(d)
            .is_some_and(|n| self.kind[n as usize] == Kind::Value)
    }

    fn add_node(&mut self, d: SsaDef, kind: Kind) -> u32 {
        let n = self.defs.len() as u32;
        self.node_of[d.index()] = n;
        self.defs.push(d);
        self.kind.push(kind);
        self.parent.push(n);
        self.src.push(Votes::default());
        self.con.push(Votes::default());
        self.link.push(NONE);
        self.res.push(NONE);
        self.ty.push(ScalarType::U32);
        n
    }

    /// [`typed_constant`], made once per constant and type: every use of a `?` constant asks
    /// (the copy is one constant of the module either way, as equal constants are merged).
    fn typed_constant(&mut self, m: &mut Module, k: SsaDef, t: ScalarType) -> SsaDef {
        *self
            .typed
            .entry((k, t))
            .or_insert_with(|| typed_constant(m, k, t))
    }

    fn find(&mut self, mut n: u32) -> u32 {
        while self.parent[n as usize] != n {
            let p = self.parent[n as usize];
            self.parent[n as usize] = self.parent[p as usize];
            n = p;
        }
        n
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }

    /// Step 1: nodes, in program order.
    fn collect(&mut self, m: &Module) -> Result<(), PassError> {
        for d in m.iter() {
            // Opcode and `?` flag from the program order: only `?`-typed ops are read.
            let opcode = m.opcode(d);
            if is_store(opcode) || matches!(opcode, OpCode::LdsAtomic | OpCode::BufferAtomic) {
                self.memory_ops.push(d);
            }
            if !m.type_mentions_unknown(d) {
                continue;
            }
            let op = m.op(d);
            let kind = match op.opcode {
                OpCode::Constant if op.ty.is_array() => Kind::Resource,
                OpCode::Constant | OpCode::Undef => continue,
                o if is_resource_decl(o) => Kind::Resource,
                OpCode::Phi
                | OpCode::Select
                | OpCode::CompositeConstruct
                | OpCode::CompositeExtract
                | OpCode::CompositeInsert
                | OpCode::ConsumeAs => Kind::Value,
                o if is_load(o) => Kind::Value,
                _ => {
                    return Err(unsupported(
                        m,
                        d,
                        format!("cannot infer a type for `?`-typed {}", op.opcode),
                    ))
                }
            };
            self.add_node(d, kind);
        }
        Ok(())
    }

    /// The resource node of `r`, creating a fixed node for a typed resource.
    fn resource_node(&mut self, m: &Module, r: SsaDef) -> u32 {
        if let Some(n) = self.node(r) {
            return n;
        }
        let t = m
            .ty(r)
            .members()
            .first()
            .map_or(ScalarType::U32, |b| b.scalar_type());
        self.add_node(r, Kind::Fixed(t))
    }

    /// Steps 2 and 3: classes, links and votes.
    fn link(&mut self, m: &Module) -> Result<(), PassError> {
        let count = self.defs.len();
        for n in 0..count {
            let d = self.defs[n];
            if self.kind[n] != Kind::Value {
                continue;
            }
            let op = m.op(d);
            for i in value_operands(op) {
                let Some(a) = op.operand_def(i) else { continue };
                if let Some(an) = self
                    .node(a)
                    .filter(|&an| self.kind[an as usize] == Kind::Value)
                {
                    self.union(n as u32, an);
                } else if op.opcode == OpCode::ConsumeAs && !has_unknown(m.ty(a)) {
                    if let Some(s) = m.ty(a).members().first() {
                        self.src[n].add(s.scalar_type());
                    }
                }
            }
            if is_load(op.opcode) {
                let r = resource_of(m, d)
                    .ok_or_else(|| unsupported(m, d, "load from an unknown resource"))?;
                let rn = self.resource_node(m, r);
                self.links.push((n as u32, rn));
                self.res[n] = rn;
            }
            for &u in m.uses(d) {
                let uop = m.op(u);
                if uop.opcode == OpCode::ConsumeAs && !has_unknown(&uop.ty) {
                    if let Some(s) = uop.ty.members().first() {
                        self.con[n].add(s.scalar_type());
                    }
                    continue;
                }
                let allowed = self.node(u).is_some()
                    || uop.opcode.is_meta()
                    || (is_store(uop.opcode) && access(uop).and_then(|a| a.value) == Some(d))
                    || (uop.opcode == OpCode::CompositeExtract && op.ty.is_struct());
                if !allowed {
                    return Err(unsupported(
                        m,
                        u,
                        format!("uses `?`-typed {d} ({}) directly", op.opcode),
                    ));
                }
            }
        }
        // Stores and atomics.
        let memory_ops = std::mem::take(&mut self.memory_ops);
        for &d in &memory_ops {
            let op = m.op(d);
            if is_store(op.opcode) {
                let Some(r) = resource_of(m, d) else { continue };
                let v = access(op).and_then(|a| a.value);
                let res_unknown = self.node(r).is_some();
                let val_node = v.is_some_and(|v| self.is_value(v));
                let val_unknown = v.is_some_and(|v| has_unknown(m.ty(v)));
                if !res_unknown && !val_node && !val_unknown {
                    continue;
                }
                let rn = self.resource_node(m, r);
                if let Some(v) = v {
                    if let Some(vn) = self.node(v).filter(|_| val_node) {
                        self.links.push((vn, rn));
                    } else if !val_unknown {
                        if let Some(s) = m.ty(v).members().first() {
                            self.src[rn as usize].add(s.scalar_type());
                        }
                    }
                }
                self.stores.push((d, rn));
            } else if matches!(op.opcode, OpCode::LdsAtomic | OpCode::BufferAtomic) {
                let Some(rn) = resource_of(m, d).and_then(|r| self.node(r)) else {
                    continue;
                };
                let t = access(op)
                    .and_then(|a| a.value)
                    .and_then(|v| m.ty(v).as_basic())
                    .map_or(ScalarType::U32, |b| b.scalar_type());
                self.src[rn as usize].add(if t.is_int() { t } else { ScalarType::U32 });
            }
        }
        Ok(())
    }

    /// Step 3: types of classes and resources.
    fn solve(&mut self) {
        let count = self.defs.len();
        for n in 0..count {
            if self.kind[n] != Kind::Value {
                continue;
            }
            let r = self.find(n as u32) as usize;
            if r != n {
                let (s, c) = (self.src[n], self.con[n]);
                self.src[r].merge(s);
                self.con[r].merge(c);
            }
        }
        // Preferred class types (None = no votes).
        let pref: Vec<Option<ScalarType>> = (0..count)
            .map(|n| {
                (self.kind[n] == Kind::Value && self.parent[n] == n as u32)
                    .then(|| self.src[n].resolve().or(self.con[n].resolve()))
                    .flatten()
            })
            .collect();
        let links = std::mem::take(&mut self.links);
        for &(v, r) in &links {
            let root = self.find(v) as usize;
            if let Some(t) = pref[root] {
                self.src[r as usize].add(t);
            }
            if self.link[root] == NONE {
                self.link[root] = r;
            }
        }
        for n in 0..count {
            match self.kind[n] {
                Kind::Resource => {
                    self.ty[n] = self.src[n].resolve().unwrap_or(ScalarType::U32);
                }
                Kind::Fixed(t) => self.ty[n] = t,
                Kind::Value => {}
            }
        }
        for n in 0..count {
            if self.kind[n] != Kind::Value {
                continue;
            }
            let root = self.find(n as u32) as usize;
            self.ty[n] = match pref[root] {
                Some(t) => t,
                None if self.link[root] != NONE => self.ty[self.link[root] as usize],
                None => ScalarType::U32,
            };
        }
    }

    /// Step 4: rewrite the module.
    fn rewrite(&mut self, m: &mut Module) -> Result<(), PassError> {
        // Defs whose type was concretized, with the scalar they now carry: the ConsumeAs users
        // of these may need the u32 detour.
        let mut retyped: Vec<SsaDef> = Vec::new();
        for n in 0..self.defs.len() {
            let d = self.defs[n];
            let t = self.ty[n];
            match self.kind[n] {
                Kind::Fixed(_) => {}
                Kind::Resource => {
                    if m.opcode(d) == OpCode::Constant {
                        let new = self.typed_constant(m, d, t);
                        m.replace_all_uses(d, new);
                    } else {
                        let ty = subst(m.ty(d), t);
                        m.set_type(d, ty);
                    }
                }
                Kind::Value => {
                    self.rewrite_value(m, d, t, &mut retyped)?;
                }
            }
        }
        for i in 0..self.stores.len() {
            let (s, rn) = self.stores[i];
            self.rewrite_store(m, s, self.ty[rn as usize])?;
        }
        // `?` constants used directly by typed ConsumeAs ops convert exactly like u32.
        let consts: Vec<SsaDef> = m
            .declarations()
            .filter(|&d| m.opcode(d).is_constant_like() && has_unknown(m.ty(d)))
            .collect();
        for k in consts {
            let users: Vec<SsaDef> = m.uses(k).to_vec();
            for u in users {
                if m.opcode(u) == OpCode::ConsumeAs && !has_unknown(m.ty(u)) {
                    let c = self.typed_constant(m, k, ScalarType::U32);
                    m.set_operand(u, 0, c.into());
                }
            }
        }
        for d in retyped {
            fix_consumers(m, d);
        }
        Ok(())
    }

    fn rewrite_value(
        &mut self,
        m: &mut Module,
        d: SsaDef,
        t: ScalarType,
        retyped: &mut Vec<SsaDef>,
    ) -> Result<(), PassError> {
        // The usual node (a phi, select or composite of typed values): only its type changes,
        // set in place (no copy of the op, and the use lists stay as they are, as a rewrite
        // with the same operands keeps them).
        if !is_load(m.opcode(d)) && !self.needs_operand_edits(m, d) {
            let ty = subst(m.ty(d), t);
            m.set_type(d, ty);
            retyped.push(d);
            return Ok(());
        }
        // One copy of the op, edited in place: what is read of the original (its type, its
        // opcode, the operand a `ConsumeAs` converts) is taken before any edit.
        let mut new = m.op(d).clone();
        let opcode = new.opcode;
        let old_ty = std::mem::replace(&mut new.ty, Type::void());
        new.ty = subst(&old_ty, t);
        let consumed = if opcode == OpCode::ConsumeAs {
            Arith::of(&new).a()
        } else {
            None
        };
        for i in 0..new.first_literal() {
            if !is_value_operand(opcode, i) {
                continue;
            }
            let Some(a) = new.operand_def(i) else {
                continue;
            };
            if m.opcode(a).is_constant_like() && has_unknown(m.ty(a)) {
                new.operands[i] = self.typed_constant(m, a, t).into();
            }
        }
        let op = OpHead { opcode, ty: old_ty };
        if op.opcode == OpCode::ConsumeAs {
            if let Some(s) = consumed
                .filter(|&a| !has_unknown(m.ty(a)))
                .and_then(|a| m.ty(a).as_basic())
            {
                let s = s.scalar_type();
                if s == ScalarType::Bool || width(s) == 64 {
                    // `ConsumeAs(?, x)` converts these differently from `ConsumeAs(T, x)`:
                    // go through u32, which is what `?` means.
                    let mid = Op::new(OpCode::ConsumeAs, subst(&op.ty, ScalarType::U32))
                        .arg(new.operands[slots::Arith.a]);
                    let mid = m.insert_before(d, mid);
                    new.operands[slots::Arith.a] = mid.into();
                }
            }
        }
        if is_load(op.opcode) {
            let rn = self.node(d).map_or(NONE, |n| self.res[n as usize]);
            if rn == NONE {
                return Err(unsupported(m, d, "load from an unknown resource"));
            }
            let tr = self.ty[rn as usize];
            new.ty = subst(&op.ty, tr);
            m.rewrite(d, new);
            if tr != t {
                let cv = m.insert_after(d, Op::new(OpCode::ConsumeAs, subst(&op.ty, t)).arg(d));
                m.replace_all_uses(d, cv);
                m.set_operand(cv, 0, d.into());
                retyped.push(cv);
            } else {
                retyped.push(d);
            }
            return Ok(());
        }
        m.rewrite(d, new);
        retyped.push(d);
        Ok(())
    }

    /// Whether [`State::rewrite_value`] changes an operand of value node `d`: a `?` constant
    /// among its value operands gets a typed copy, or a `ConsumeAs` of a bool or 64-bit value
    /// gets a `u32` step in between.
    fn needs_operand_edits(&self, m: &Module, d: SsaDef) -> bool {
        let op = m.op(d);
        let constant = (0..op.first_literal()).any(|i| {
            is_value_operand(op.opcode, i)
                && op
                    .operand_def(i)
                    .is_some_and(|a| m.opcode(a).is_constant_like() && has_unknown(m.ty(a)))
        });
        constant
            || (op.opcode == OpCode::ConsumeAs
                && Arith::of(op)
                    .a()
                    .filter(|&a| !has_unknown(m.ty(a)))
                    .and_then(|a| m.ty(a).as_basic())
                    .is_some_and(|b| {
                        let s = b.scalar_type();
                        s == ScalarType::Bool || width(s) == 64
                    }))
    }

    fn rewrite_store(
        &mut self,
        m: &mut Module,
        s: SsaDef,
        tr: ScalarType,
    ) -> Result<(), PassError> {
        let Some(v) = access(m.op(s)).and_then(|a| a.value) else {
            return Ok(());
        };
        let vty = m.ty(v).clone();
        if m.opcode(v).is_constant_like() && has_unknown(&vty) {
            let c = self.typed_constant(m, v, tr);
            m.set_operand(s, 2, c.into());
            return Ok(());
        }
        let Some(b) = vty.as_basic() else {
            return Err(unsupported(m, s, format!("stored value of type {vty}")));
        };
        let sv = b.scalar_type();
        if sv == tr {
            return Ok(());
        }
        if width(sv) != 32 || width(tr) != 32 || sv.is_min_precision() {
            return Err(unsupported(
                m,
                s,
                format!("store of {vty} into memory typed {tr}"),
            ));
        }
        let cv = Op::new(OpCode::ConsumeAs, crate::types_util::with_scalar(&vty, tr)).arg(v);
        let cv = m.insert_before(s, cv);
        m.set_operand(s, 2, cv.into());
        Ok(())
    }
}

/// `ConsumeAs(U, v)` of a value retyped from `?` to a 32-bit `T` converts like `?` (u32) did
/// unless `U` is 64-bit, or `U` is bool and `T` a float: route those through `u32`.
fn fix_consumers(m: &mut Module, v: SsaDef) {
    let Some(t) = m.ty(v).members().first().map(|b| b.scalar_type()) else {
        return;
    };
    if t == ScalarType::U32 {
        return;
    }
    let needs_detour = |m: &Module, u: SsaDef| {
        let uop = m.op(u);
        uop.opcode == OpCode::ConsumeAs
            && uop.ty.members().first().is_some_and(|b| {
                let ut = b.scalar_type();
                width(ut) == 64 || (ut == ScalarType::Bool && t.is_float())
            })
    };
    // The usual value has no such user: no copy of its use list.
    if !m.uses(v).iter().any(|&u| needs_detour(m, u)) {
        return;
    }
    let users: smallvec::SmallVec<[SsaDef; 4]> = m.uses(v).iter().copied().collect();
    for u in users {
        if needs_detour(m, u) {
            let mid = Op::new(OpCode::ConsumeAs, subst_scalar(m.ty(v), ScalarType::U32)).arg(v);
            let mid = m.insert_before(u, mid);
            m.set_operand(u, 0, mid.into());
        }
    }
}

/// `ty` with every scalar replaced by `t`.
fn subst_scalar(ty: &irc_ir::Type, t: ScalarType) -> irc_ir::Type {
    let members = ty
        .members()
        .iter()
        .map(|b| irc_ir::BasicType::new(t, b.vec_size()))
        .collect();
    irc_ir::Type::from_parts(members, ty.array_dims().iter().copied().collect())
}
