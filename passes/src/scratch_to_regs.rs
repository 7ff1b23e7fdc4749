//! `scratch-to-regs`: scratch arrays → SSA values and selects, for targets without indexable
//! memory (`!cx.caps.indexable_scratch`); constant-array loads with a dynamic index → selects.
//!
//! **Scratch.** A `DclScratch` array (DXBC `x#` registers, `?x4[n]`) is split into *slots*, one
//! per flattened scalar (array elements outer-major, then struct members, then vector
//! components — the order of `Constant` literals). Each slot touched becomes a function-local
//! temporary (`DclTmp` of the slot's scalar type), initialized to zero at the top of the
//! function (the interpreter's and D3D's zero-initialized scratch), and every access becomes
//! temporary loads and stores; SSA construction (`irc_frontend::ssa::run`, Braun et al.) then
//! turns the temporaries into SSA values and phis across any control flow. An access:
//!
//! - with a **constant address** (array indices, member, component) reads or writes the slots
//!   it covers directly (a vector access covers consecutive slots). An out-of-range array
//!   index reads zero and drops the write, as the interpreter's robust scratch does.
//! - with **dynamic array indices** (member and component must still be constant) enumerates
//!   the candidate elements `e` (those matching the constant indices): a load becomes
//!   `Select(idx == e, value(e), …)` chained over the candidates, starting from zero (so an
//!   out-of-range index reads zero); a store becomes, for each candidate slot,
//!   `slot = Select(idx == e, new, slot)` (an out-of-range index writes nothing). With several
//!   dynamic dimensions the condition is the `BAnd` of the per-dimension equalities.
//!
//! Slots and accesses must consist of 4-byte scalars (`?`, `f32`, `i32`, `u32`), so that a slot
//! is one scalar of the interpreter's byte layout; when an access type differs from the slot
//! type the bits are reinterpreted with `Cast`. A scratch array used in several functions, one
//! accessed as a whole or with a dynamic member/component index, and other layouts are reported
//! as `PassError::Unsupported`.
//!
//! **Size limit.** A dynamically indexed access enumerates at most [`MAX_DYNAMIC_ELEMENTS`]
//! (= 64) candidate elements; each costs one compare and one select per component, so larger
//! arrays would not fit the instruction budgets of our targets (PICA: 512 instructions) and are
//! rejected as `Unsupported`, naming the op and the element count. DXBC's `x#` arrays in the
//! corpus have at most 10 elements.
//!
//! **Constant arrays.** A `ConstantLoad` from a constant array is replaced by the constant it
//! reads when the address is constant, and by the same select chain over per-element constants
//! when it is dynamic (out of range reads zero, like the interpreter's bound-checked
//! `ConstantLoad`).

use crate::caps::PassContext;
use crate::PassError;
use irc_ir::analysis::cfg;
use irc_ir::format::{Constant, EntryMode, Load, Store};
use irc_ir::{Module, Op, OpCode, Operand, ScalarType, SsaDef, Type};
use rustc_hash::FxHashMap;

/// Most candidate elements a dynamically indexed access may expand to.
pub const MAX_DYNAMIC_ELEMENTS: u64 = 64;

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    if cx.caps.indexable_scratch {
        return Ok(false);
    }
    let mut changed = false;
    let loads: Vec<SsaDef> = m
        .code()
        .filter(|&d| m.opcode(d) == OpCode::ConstantLoad)
        .collect();
    for d in loads {
        constant_load(m, d)?;
        changed = true;
    }
    let arrays: Vec<SsaDef> = m
        .declarations()
        .filter(|&d| m.opcode(d) == OpCode::DclScratch)
        .collect();
    let mut temps = false;
    for s in arrays {
        temps |= scratch(m, s)?;
        changed = true;
    }
    if temps {
        irc_frontend::ssa::run(m)?;
    }
    Ok(changed)
}

/// One index of an address.
#[derive(Clone, Copy, Debug)]
enum Index {
    Const(u64),
    Dyn(SsaDef),
}

/// The flattened layout of a storage type: outer-first array sizes, scalars per element,
/// the first slot of each struct member and the vector sizes.
struct Layout {
    dims: Vec<u64>,
    per_elem: u64,
    member_start: Vec<u64>,
    member_size: Vec<u64>,
    ty: Type,
}

impl Layout {
    fn new(ty: &Type) -> Option<Layout> {
        let dims: Vec<u64> = ty.array_dims().iter().rev().map(|&d| d as u64).collect();
        if dims.contains(&0) {
            return None;
        }
        let mut member_start = Vec::new();
        let mut member_size = Vec::new();
        let mut n = 0;
        for b in ty.members() {
            member_start.push(n);
            member_size.push(b.vec_size() as u64);
            n += b.vec_size() as u64;
        }
        Some(Layout {
            dims,
            per_elem: n,
            member_start,
            member_size,
            ty: ty.clone(),
        })
    }
    fn total(&self) -> u64 {
        self.dims.iter().product::<u64>() * self.per_elem
    }
    fn scalar(&self, slot: u64) -> ScalarType {
        self.ty
            .flattened_scalar_type(slot)
            .unwrap_or(ScalarType::Unknown)
    }
    /// First slot of the element with outer-first indices `e`.
    fn elem_slot(&self, e: &[u64]) -> u64 {
        let mut s = 0;
        for (i, &k) in e.iter().enumerate() {
            s = s * self.dims[i] + k;
        }
        s * self.per_elem
    }
    /// Slot offset of the member/component indices `rest` within an element.
    fn inner_slot(&self, rest: &[u64]) -> Option<u64> {
        let mut rest = rest.iter().copied();
        let (start, size) = if self.member_start.len() > 1 {
            match rest.next() {
                Some(k) => (
                    *self.member_start.get(k as usize)?,
                    *self.member_size.get(k as usize)?,
                ),
                None => return Some(0),
            }
        } else {
            (0, self.per_elem)
        };
        match rest.next() {
            Some(c) if c < size && size > 1 => Some(start + c),
            Some(_) => None,
            None => Some(start),
        }
    }
}

fn unsupported(m: &Module, d: SsaDef, reason: impl Into<String>) -> PassError {
    PassError::Unsupported {
        op: d,
        opcode: m.opcode(d),
        reason: reason.into(),
    }
}

/// The indices of the address operand `addr` of the access `at`.
fn address(m: &mut Module, at: SsaDef, addr: Option<SsaDef>) -> Vec<Index> {
    let Some(a) = addr else {
        return Vec::new();
    };
    let op = m.op(a).clone();
    let n = op.ty.as_basic().map_or(1, |b| b.vec_size());
    let mask = |s: ScalarType, v: u64| match s.literal_bits() {
        64 => v,
        w => v & ((1u64 << w) - 1),
    };
    let scalar = irc_ir::Type::scalar(
        op.ty
            .as_basic()
            .map_or(ScalarType::U32, |b| b.scalar_type()),
    );
    match op.opcode {
        OpCode::Constant => op
            .literals()
            .map(|v| Index::Const(mask(scalar.as_scalar().unwrap_or(ScalarType::U32), v)))
            .collect(),
        OpCode::CompositeConstruct if op.operands.len() == n as usize => op
            .ref_defs()
            .map(|c| match m.op(c) {
                o if o.opcode == OpCode::Constant && o.operands.len() == 1 => Index::Const(mask(
                    o.ty.as_scalar().unwrap_or(ScalarType::U32),
                    Constant::of(o).scalar(0).unwrap_or(0),
                )),
                _ => Index::Dyn(c),
            })
            .collect(),
        _ if n == 1 => vec![Index::Dyn(a)],
        _ => (0..n)
            .map(|i| {
                let k = m.add(Op::new(OpCode::Constant, ScalarType::U32).lit(i as u64));
                Index::Dyn(
                    m.insert_before(
                        at,
                        Op::new(OpCode::CompositeExtract, scalar.clone())
                            .arg(a)
                            .arg(k),
                    ),
                )
            })
            .collect(),
    }
}

/// A resolved access: candidate elements with their first slot and condition (None = always).
struct Candidates {
    list: Vec<(u64, Option<SsaDef>)>,
    /// Number of scalars the access covers.
    len: u64,
}

/// Enumerates the elements an access may touch. `Ok(None)`: the address is out of range.
fn candidates(
    m: &mut Module,
    at: SsaDef,
    lay: &Layout,
    idx: &[Index],
    len: u64,
) -> Result<Candidates, PassError> {
    let ndims = lay.dims.len();
    if idx.len() < ndims {
        return Err(unsupported(
            m,
            at,
            "access to a whole array (address too short)",
        ));
    }
    let mut rest = Vec::new();
    for i in &idx[ndims..] {
        match i {
            Index::Const(c) => rest.push(*c),
            Index::Dyn(_) => {
                return Err(unsupported(
                    m,
                    at,
                    "dynamic struct member or vector component index",
                ))
            }
        }
    }
    let Some(inner) = lay.inner_slot(&rest) else {
        return Err(unsupported(m, at, "member or component index out of range"));
    };
    // Candidate tuples over the array dimensions.
    let mut count: u64 = 1;
    for (i, &d) in lay.dims.iter().enumerate() {
        if let Index::Dyn(_) = idx[i] {
            count = count.saturating_mul(d);
        }
    }
    if count > MAX_DYNAMIC_ELEMENTS {
        return Err(unsupported(
            m,
            at,
            format!(
                "dynamically indexed array of {count} elements (type {}); at most {MAX_DYNAMIC_ELEMENTS} \
                 can be expanded to selects",
                lay.ty
            ),
        ));
    }
    let mut tuples: Vec<Vec<u64>> = vec![Vec::new()];
    for (i, &d) in lay.dims.iter().enumerate() {
        tuples = match idx[i] {
            Index::Const(c) if c < d => tuples
                .into_iter()
                .map(|mut t| {
                    t.push(c);
                    t
                })
                .collect(),
            Index::Const(_) => Vec::new(),
            Index::Dyn(_) => tuples
                .into_iter()
                .flat_map(|t| {
                    (0..d).map(move |k| {
                        let mut t = t.clone();
                        t.push(k);
                        t
                    })
                })
                .collect(),
        };
    }
    let mut list = Vec::new();
    for t in tuples {
        let mut cond: Option<SsaDef> = None;
        for (i, &k) in t.iter().enumerate() {
            let Index::Dyn(v) = idx[i] else { continue };
            let vt = m.ty(v).clone();
            let kc = m.add(Op::new(OpCode::Constant, vt).lit(k));
            let eq = m.insert_before(at, Op::new(OpCode::IEq, ScalarType::Bool).arg(v).arg(kc));
            cond = Some(match cond {
                None => eq,
                Some(c) => {
                    m.insert_before(at, Op::new(OpCode::BAnd, ScalarType::Bool).arg(c).arg(eq))
                }
            });
        }
        list.push((lay.elem_slot(&t) + inner, cond));
    }
    Ok(Candidates { list, len })
}

fn four_byte(s: ScalarType) -> bool {
    matches!(
        s,
        ScalarType::Unknown | ScalarType::F32 | ScalarType::I32 | ScalarType::U32
    )
}

/// Scalar type and component count of an access value type (4-byte scalars only).
fn access_type(m: &Module, d: SsaDef, ty: &Type) -> Result<(ScalarType, u64), PassError> {
    match ty.as_basic() {
        Some(b) if four_byte(b.scalar_type()) => Ok((b.scalar_type(), b.vec_size() as u64)),
        _ => Err(unsupported(
            m,
            d,
            format!("access of type {ty}: only scalars and vectors of 4-byte types are supported"),
        )),
    }
}

fn zero_of(m: &mut Module, ty: &Type) -> SsaDef {
    let n = ty.flattened_scalar_count().unwrap_or(1);
    let mut op = Op::new(OpCode::Constant, ty.clone());
    for _ in 0..n {
        op = op.lit(0);
    }
    m.add(op)
}

/// `v` (of scalar type `from`) as scalar type `to`, bits kept.
fn reinterpret(m: &mut Module, at: SsaDef, v: SsaDef, from: ScalarType, to: ScalarType) -> SsaDef {
    if from == to {
        v
    } else {
        m.insert_before(at, Op::new(OpCode::Cast, to).arg(v))
    }
}

/// Lowers one scratch array. Returns whether temporaries were created.
fn scratch(m: &mut Module, s: SsaDef) -> Result<bool, PassError> {
    let lay = Layout::new(&m.ty(s).clone())
        .filter(|l| (0..l.per_elem).all(|i| four_byte(l.scalar(i))))
        .ok_or_else(|| {
            unsupported(
                m,
                s,
                format!(
                    "scratch of type {}: only bounded arrays of 4-byte scalars",
                    m.ty(s)
                ),
            )
        })?;
    let users: Vec<SsaDef> = m
        .uses(s)
        .iter()
        .copied()
        .filter(|&u| !m.opcode(u).is_meta())
        .collect();
    let mut users = users;
    users.sort_by(|&a, &b| {
        if m.precedes(a, b) {
            std::cmp::Ordering::Less
        } else if a == b {
            std::cmp::Ordering::Equal
        } else {
            std::cmp::Ordering::Greater
        }
    });
    users.dedup();
    if users.is_empty() {
        let metas: Vec<SsaDef> = m.uses(s).to_vec();
        for u in metas {
            if m.is_live(u) {
                m.remove(u);
            }
        }
        m.remove(s);
        return Ok(false);
    }
    let funcs: Vec<Option<SsaDef>> = users.iter().map(|&u| cfg::function_of(m, u)).collect();
    if funcs.iter().any(|f| *f != funcs[0]) || funcs[0].is_none() {
        return Err(unsupported(
            m,
            users[0],
            format!("scratch array {s} is used in several functions (inline first)"),
        ));
    }
    for &u in &users {
        if !matches!(m.opcode(u), OpCode::ScratchLoad | OpCode::ScratchStore)
            || irc_ir::format::access(m.op(u)).and_then(|a| a.base) != Some(s)
        {
            return Err(unsupported(
                m,
                u,
                format!("unexpected use of scratch array {s}"),
            ));
        }
    }
    let func = funcs[0].unwrap_or(s);
    let entry_label = m
        .iter_from(func)
        .find(|&d| m.opcode(d) == OpCode::Label)
        .ok_or_else(|| unsupported(m, func, "function without blocks"))?;
    // Temporaries are declared for the entry point the scratch array belongs to.
    let entry = EntryMode::of(m.op(s)).entry();
    let mut slots: FxHashMap<u64, SsaDef> = FxHashMap::default();
    let mut slot = |m: &mut Module, k: u64| -> SsaDef {
        *slots.entry(k).or_insert_with(|| {
            let st = lay.scalar(k);
            let t = m.add(Op::new(OpCode::DclTmp, st).arg(entry));
            let zero = zero_of(m, &Type::scalar(st));
            m.insert_after(
                entry_label,
                Op::new(OpCode::TmpStore, Type::void()).arg(t).arg(zero),
            );
            t
        })
    };
    for u in users {
        let op = m.op(u).clone();
        let store = op.opcode == OpCode::ScratchStore;
        let (addr, value) = match Store::try_of(&op) {
            Some(s) => (s.address(), s.value()),
            None => (Load::of(&op).address(), None),
        };
        let idx = address(m, u, addr);
        let vty = if store {
            let v = value.ok_or_else(|| unsupported(m, u, "store without value"))?;
            m.ty(v).clone()
        } else {
            op.ty.clone()
        };
        let (vs, n) = access_type(m, u, &vty)?;
        let cands = candidates(m, u, &lay, &idx, n)?;
        let total = lay.total();
        if store {
            let v = value.unwrap_or(u);
            let comps: Vec<SsaDef> = (0..n).map(|j| component(m, u, v, j, n)).collect();
            for &(base, cond) in &cands.list {
                for (j, &c) in comps.iter().enumerate() {
                    let k = base + j as u64;
                    if k >= total {
                        continue;
                    }
                    let t = slot(m, k);
                    let st = lay.scalar(k);
                    let mut new = reinterpret(m, u, c, vs, st);
                    if let Some(cond) = cond {
                        let old = m.insert_before(u, Op::new(OpCode::TmpLoad, st).arg(t));
                        new = m.insert_before(
                            u,
                            Op::new(OpCode::Select, st).arg(cond).arg(new).arg(old),
                        );
                    }
                    m.insert_before(u, Op::new(OpCode::TmpStore, Type::void()).arg(t).arg(new));
                }
            }
            m.remove(u);
        } else {
            let mut acc: Option<SsaDef> = None;
            let zero = zero_of(m, &vty);
            for &(base, cond) in &cands.list {
                let mut parts = Vec::new();
                for j in 0..cands.len {
                    let k = base + j;
                    let part = if k >= total {
                        zero_of(m, &Type::scalar(vs))
                    } else {
                        let t = slot(m, k);
                        let st = lay.scalar(k);
                        let l = m.insert_before(u, Op::new(OpCode::TmpLoad, st).arg(t));
                        reinterpret(m, u, l, st, vs)
                    };
                    parts.push(part);
                }
                let value = if n == 1 {
                    parts[0]
                } else {
                    let mut c = Op::new(OpCode::CompositeConstruct, vty.clone());
                    for p in parts {
                        c = c.arg(p);
                    }
                    m.insert_before(u, c)
                };
                acc = Some(match cond {
                    None => value,
                    Some(cond) => m.insert_before(
                        u,
                        Op::new(OpCode::Select, vty.clone())
                            .arg(cond)
                            .arg(value)
                            .arg(acc.unwrap_or(zero)),
                    ),
                });
            }
            let result = acc.unwrap_or(zero);
            m.replace_all_uses(u, result);
            m.remove(u);
        }
    }
    let metas: Vec<SsaDef> = m.uses(s).to_vec();
    for u in metas {
        if m.is_live(u) {
            m.remove(u);
        }
    }
    m.remove(s);
    Ok(true)
}

/// Component `j` of the `n`-component value `v`, read before `at`.
fn component(m: &mut Module, at: SsaDef, v: SsaDef, j: u64, n: u64) -> SsaDef {
    if n == 1 {
        return v;
    }
    let op = m.op(v);
    if op.opcode == OpCode::CompositeConstruct && op.operands.len() == n as usize {
        if let Some(c) = op.operand_def(j as usize) {
            return c;
        }
    }
    let st = op
        .ty
        .as_basic()
        .map_or(ScalarType::Unknown, |b| b.scalar_type());
    let k = m.add(Op::new(OpCode::Constant, ScalarType::U32).lit(j));
    m.insert_before(at, Op::new(OpCode::CompositeExtract, st).arg(v).arg(k))
}

/// Converts a constant literal of scalar type `from` to `to` (both 4-byte; bits kept).
fn convert_literal(lit: u64, to: ScalarType) -> u64 {
    let bits = lit as u32;
    if to.is_signed_int() {
        bits as i32 as i64 as u64
    } else {
        bits as u64
    }
}

/// Replaces a `ConstantLoad` by constants and selects.
fn constant_load(m: &mut Module, d: SsaDef) -> Result<(), PassError> {
    let op = m.op(d).clone();
    let load = Load::of(&op);
    let Some(c) = load.base() else {
        return Err(unsupported(m, d, "ConstantLoad without constant"));
    };
    let cop = m.op(c).clone();
    let lay = Layout::new(&cop.ty)
        .filter(|l| (0..l.per_elem).all(|i| four_byte(l.scalar(i))))
        .ok_or_else(|| {
            unsupported(
                m,
                d,
                format!(
                    "constant array of type {}: only arrays of 4-byte scalars",
                    cop.ty
                ),
            )
        })?;
    let (vs, n) = access_type(m, d, &op.ty)?;
    let idx = address(m, d, load.address());
    let cands = candidates(m, d, &lay, &idx, n)?;
    let total = lay.total();
    let zero = zero_of(m, &op.ty);
    let mut acc: Option<SsaDef> = None;
    for &(base, cond) in &cands.list {
        let mut k_op = Op::new(OpCode::Constant, op.ty.clone());
        for j in 0..n {
            let k = base + j;
            let lit = match cop.operands.get(k as usize) {
                Some(Operand::Lit(l)) if k < total => convert_literal(*l, vs),
                _ => 0,
            };
            k_op = k_op.lit(lit);
        }
        let value = m.add(k_op);
        acc = Some(match cond {
            None => value,
            Some(cond) => m.insert_before(
                d,
                Op::new(OpCode::Select, op.ty.clone())
                    .arg(cond)
                    .arg(value)
                    .arg(acc.unwrap_or(zero)),
            ),
        });
    }
    m.replace_all_uses(d, acc.unwrap_or(zero));
    m.remove(d);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower_legacy::test_util::check_same;
    use irc_ir::text;

    fn lima() -> PassContext {
        PassContext {
            caps: crate::caps::test_profiles::LIMA_LIKE,
            ..Default::default()
        }
    }

    /// Constant-indexed scratch across an if/else and a loop; a dynamic load and store; a
    /// dynamic constant-array load. `v0` is a float, `v1` an index in 0..8 (random inputs),
    /// which is out of range for the 3-element arrays in 5 of 8 cases.
    const MODULE: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%3 = u32 DclInput %1 1 0
%4 = f32x4 DclOutput %1 0 0
%5 = f32 DclOutput %1 1 0
%6 = f32x2 DclOutput %1 2 0
%7 = ?x4[3] DclScratch %1
%8 = f32[4] DclScratch %1
%9 = f32x2[3] Constant 1.0 2.0 3.0 4.0 5.0 6.0
%10 = u32 Constant 0
%11 = u32 Constant 1
%12 = u32 Constant 2
%13 = f32 Constant 0.5
%14 = u32 Constant 3
%15 = u32x2 Constant 1 2
%20 = Function
%21 = Label %70 StructuredSelection
  %30 = f32 InputLoad %2 null
  %31 = u32 InputLoad %3 null
  %32 = ? Cast %30
  %33 = ScratchStore %7 %15 %32
  %34 = bool FLt %30 %13
  %35 = BranchConditional %34 %22 %23
%22 = Label None
  %36 = u32x2 CompositeConstruct %10 %11
  %37 = ScratchStore %7 %36 %32
  %38 = Branch %70
%23 = Label None
  %39 = f32 FAdd %30 %30
  %40 = u32x2 CompositeConstruct %10 %11
  %41 = ScratchStore %8 %14 %39
  %42 = Branch %70
%70 = Label None
  %71 = Branch %25
%25 = Label %27 %26 StructuredLoop
  %43 = u32 Phi %70 %10 %26 %50
  %44 = Branch %24
%24 = Label %28 StructuredSelection
  %45 = bool ULt %43 %14
  %46 = BranchConditional %45 %29 %27
%29 = Label None
  %47 = f32 ScratchLoad %8 %43
  %48 = f32 FAdd %47 %13
  %49 = ScratchStore %8 %43 %48
  %51 = Branch %28
%28 = Label None
  %52 = Branch %26
%26 = Label None
  %50 = u32 IAdd %43 %11
  %53 = Branch %25
%27 = Label None
  %54 = u32x2 CompositeConstruct %31 %10
  %55 = ScratchStore %7 %54 %32
  %56 = ?x4 ScratchLoad %7 %11
  %57 = f32x4 Cast %56
  %58 = OutputStore %4 null %57
  %59 = f32 ScratchLoad %8 %31
  %60 = f32 ScratchLoad %8 %14
  %61 = f32 FAdd %59 %60
  %62 = OutputStore %5 null %61
  %63 = f32x2 ConstantLoad %9 %31
  %64 = OutputStore %6 null %63
  %65 = Return
%66 = FunctionEnd
";

    #[test]
    fn scratch_and_constant_arrays_become_values() {
        let m = text::parse(MODULE).unwrap();
        irc_ir::verifier::verify(&m).unwrap();
        let mut l = m.clone();
        assert!(run(&mut l, &lima()).unwrap());
        let p = text::print(&l);
        for gone in ["Scratch", "ConstantLoad", "Tmp"] {
            assert!(!p.contains(gone), "{gone} left:\n{p}");
        }
        check_same(&m, &l, "scratch-to-regs on lima");
        // With indexable memory nothing changes.
        let mut d = m.clone();
        assert!(!run(&mut d, &PassContext::default()).unwrap());
        assert_eq!(d, m);
    }

    #[test]
    fn large_dynamic_array_is_unsupported() {
        let src = "
%1 = EntryPoint %20 Vertex
%3 = u32 DclInput %1 1 0
%5 = f32 DclOutput %1 1 0
%8 = f32[100] DclScratch %1
%20 = Function
%21 = Label None
  %31 = u32 InputLoad %3 null
  %59 = f32 ScratchLoad %8 %31
  %62 = OutputStore %5 null %59
  %65 = Return
%66 = FunctionEnd
";
        let mut m = text::parse(src).unwrap();
        let e = run(&mut m, &lima()).unwrap_err().to_string();
        assert!(
            e.contains("ScratchLoad") && e.contains("100 elements"),
            "{e}"
        );
    }
}
