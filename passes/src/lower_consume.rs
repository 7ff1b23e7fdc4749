//! `lower-consume`: replace every `ConsumeAs` by casts and conversions, folding chains of
//! them and of `Cast` (dxbc-spirv's `LowerConsumePass`, reference §B.5).
//!
//! `ConsumeAs(T, v)` means "reinterpret or convert `v` as `T`": same type → `v`; `bool` on
//! either side → compare with zero / select 1 or 0; same size → `Cast`; float → float
//! `ConvertFtoF`; int → int `ConvertItoI`; otherwise through 32 bits: `Convert(src → src32)`,
//! `Cast(src32 → dst32)` (or a conversion when one side is 64-bit), `Convert(dst32 → dst)`.
//! These are exactly the rules the interpreter evaluates `ConsumeAs` with.
//!
//! **Algorithm.**
//! 1. *Plan.* Each `ConsumeAs` is expanded into a list of primitive steps (cast, FtoF, ItoI,
//!    ItoF, FtoI, to-bool, from-bool) applied to its *root*, the first non-`ConsumeAs` op
//!    down its operand chain. The steps of a chain are the concatenation of the steps of its
//!    links (reusing the plan of an inner link), simplified while they are pushed by rules
//!    that are exact for every input: adjacent casts fuse (and vanish when they return to the
//!    type they started from); an integer widening followed by a truncation to at most the
//!    original width is a truncation (or a cast); a cast between same-width integers folds
//!    into an adjacent truncation or extension; an exact float widening and its narrowing
//!    back cancel. So `ConsumeAs(T, ConsumeAs(?, x: T))` vanishes, and
//!    `min16 → ? → min16` round trips too. Plans are made before anything changes.
//! 2. *Lower*, in reverse program order so that outer links are replaced first and inner
//!    ones usually end up unused: a `ConsumeAs` without uses is removed; otherwise its steps
//!    are emitted right before it from the root (or folded into a new `Constant` when the
//!    root is a constant and every step can be evaluated here with the interpreter's
//!    rounding; `Undef` stays `Undef`, as every conversion maps zero to zero), its uses are
//!    redirected and it is removed.
//! 3. *Cast chains.* `Cast(Cast(x))` becomes `Cast(x)`, identity casts vanish, casts of
//!    constants fold.
//! 4. Unused `?` constants are removed; if any `ConsumeAs` or `?` type remains the pass fails
//!    with `Unsupported` naming the op (run `propagate-types` first).
//!
//! Linear in the module size: each `ConsumeAs` is planned once, from its operand's plan.

use crate::caps::PassContext;
use crate::types_util::{
    bits_lit, check_resolved, eff, lit_bits, remove_dead_unknown_constants, size32, unsupported,
    width,
};
use crate::PassError;
use irc_ir::format::{slots, Arith};
use irc_ir::{EntityRef, Module, Op, OpCode, ScalarType, SsaDef, Type};
use smallvec::SmallVec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Cast,
    FtoF,
    ItoI,
    ItoF,
    FtoI,
    ToBool,
    FromBool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    kind: Kind,
    from: ScalarType,
    to: ScalarType,
}

type Steps = SmallVec<[Step; 4]>;

#[derive(Debug)]
struct Plan {
    op: SsaDef,
    root: SsaDef,
    steps: Steps,
}

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    let plans = plan(m)?;
    let mut changed = !plans.is_empty();
    for p in plans.iter().rev() {
        lower(m, p);
    }
    changed |= fold_casts(m);
    let before = m.len();
    remove_dead_unknown_constants(m);
    // Forwarding a no-op conversion can leave a loop phi whose back-edge value is the phi
    // itself (a variable the loop only round-trips through `?`): such phis are trivial, and a
    // self reference cannot even be encoded.
    let mut phis: Vec<SsaDef> = Vec::with_capacity(m.count_of(OpCode::Phi));
    phis.extend(m.code().filter(|&d| m.opcode(d) == OpCode::Phi));
    irc_ir::ssa_util::remove_trivial_phis(m, phis);
    changed |= m.len() != before;
    check_resolved(m, true)?;
    Ok(changed)
}

fn is_f(t: ScalarType) -> bool {
    eff(t).is_float()
}
fn is_i(t: ScalarType) -> bool {
    eff(t).is_int()
}

/// Step 1: a plan per `ConsumeAs`, in program order.
fn plan(m: &Module) -> Result<Vec<Plan>, PassError> {
    let mut index = vec![u32::MAX; m.id_bound()];
    let mut plans: Vec<Plan> = Vec::with_capacity(m.count_of(OpCode::ConsumeAs));
    for c in m.code() {
        if m.opcode(c) != OpCode::ConsumeAs {
            continue;
        }
        let x = Arith::of(m.op(c))
            .a()
            .ok_or_else(|| unsupported(m, c, "ConsumeAs without operand"))?;
        let to = scalar_of(m, c)?;
        let (root, mut steps) = if m.opcode(x) == OpCode::ConsumeAs {
            match index[x.index()] {
                u32::MAX => chain(m, x)?,
                i => {
                    let p = &plans[i as usize];
                    (p.root, p.steps.clone())
                }
            }
        } else {
            (x, Steps::new())
        };
        let from = match steps.last() {
            Some(s) => s.to,
            None => scalar_of(m, root)?,
        };
        if vec_size(m, root) != vec_size(m, c) {
            return Err(unsupported(m, c, "ConsumeAs changes the vector size"));
        }
        consume_steps(from, to, &mut steps);
        index[c.index()] = plans.len() as u32;
        plans.push(Plan { op: c, root, steps });
    }
    Ok(plans)
}

/// Root and steps of a `ConsumeAs` chain, walked without a plan of its links.
fn chain(m: &Module, c: SsaDef) -> Result<(SsaDef, Steps), PassError> {
    let mut links: SmallVec<[SsaDef; 8]> = SmallVec::new();
    let mut x = c;
    while m.opcode(x) == OpCode::ConsumeAs {
        links.push(x);
        x = Arith::of(m.op(x))
            .a()
            .ok_or_else(|| unsupported(m, x, "ConsumeAs without operand"))?;
    }
    let mut steps = Steps::new();
    let mut from = scalar_of(m, x)?;
    for &l in links.iter().rev() {
        let to = scalar_of(m, l)?;
        consume_steps(from, to, &mut steps);
        from = to;
    }
    Ok((x, steps))
}

fn scalar_of(m: &Module, d: SsaDef) -> Result<ScalarType, PassError> {
    m.ty(d)
        .as_basic()
        .map(|b| b.scalar_type())
        .ok_or_else(|| unsupported(m, d, format!("ConsumeAs of type {}", m.ty(d))))
}

fn vec_size(m: &Module, d: SsaDef) -> u8 {
    m.ty(d).as_basic().map_or(0, |b| b.vec_size())
}

/// Appends the steps of `ConsumeAs(to, x: from)` (§B.5, as the interpreter evaluates it).
fn consume_steps(from: ScalarType, to: ScalarType, out: &mut Steps) {
    if from == to {
        return;
    }
    let (f, t) = (eff(from), eff(to));
    let step = |kind| Step { kind, from, to };
    if f == t {
        push(out, step(Kind::Cast));
    } else if f == ScalarType::Bool {
        push(out, step(Kind::FromBool));
    } else if t == ScalarType::Bool {
        push(out, step(Kind::ToBool));
    } else if width(f) == width(t) {
        push(out, step(Kind::Cast));
    } else if is_f(f) && is_f(t) {
        push(out, step(Kind::FtoF));
    } else if is_i(f) && is_i(t) {
        push(out, step(Kind::ItoI));
    } else {
        let (s32, d32) = (size32(from), size32(to));
        convert(from, s32, out);
        if width(s32) == width(d32) {
            push(
                out,
                Step {
                    kind: Kind::Cast,
                    from: s32,
                    to: d32,
                },
            );
        } else {
            convert(s32, d32, out);
        }
        convert(d32, to, out);
    }
}

/// Appends the plain conversion `a → b` (the interpreter's `convert_any` without bool).
fn convert(a: ScalarType, b: ScalarType, out: &mut Steps) {
    if a == b {
        return;
    }
    let kind = if eff(a) == eff(b) {
        Kind::Cast
    } else if is_f(a) && is_f(b) {
        Kind::FtoF
    } else if is_f(a) {
        Kind::FtoI
    } else if is_f(b) {
        Kind::ItoF
    } else if width(a) == width(b) {
        Kind::Cast
    } else {
        Kind::ItoI
    };
    push(
        out,
        Step {
            kind,
            from: a,
            to: b,
        },
    );
}

/// Pushes a step, simplifying with the previous ones (rules in the module doc).
fn push(out: &mut Steps, mut s: Step) {
    loop {
        if s.kind == Kind::Cast && s.from == s.to {
            return;
        }
        let Some(&p) = out.last() else {
            out.push(s);
            return;
        };
        match merge(p, s) {
            Some(n) => {
                out.pop();
                s = n;
            }
            None => {
                out.push(s);
                return;
            }
        }
    }
}

/// One step equivalent to `p` then `s`, if there is one.
fn merge(p: Step, s: Step) -> Option<Step> {
    let (a, b, c) = (p.from, p.to, s.to);
    let (wa, wb, wc) = (width(a), width(b), width(c));
    let step = |kind| {
        Some(Step {
            kind,
            from: a,
            to: c,
        })
    };
    match (p.kind, s.kind) {
        (Kind::Cast, Kind::Cast) => step(Kind::Cast),
        // Extension/truncation then reinterpretation as another integer of the same width.
        (Kind::ItoI, Kind::Cast) if is_i(c) && wc == wb => step(Kind::ItoI),
        // Reinterpretation between same-width integers, then truncation.
        (Kind::Cast, Kind::ItoI) if is_i(a) && is_i(b) && wa == wb && wc <= wb => step(Kind::ItoI),
        // Widening then truncating to at most the original width keeps the low bits.
        (Kind::ItoI, Kind::ItoI) if wb >= wa && wc <= wa => {
            step(if wc == wa { Kind::Cast } else { Kind::ItoI })
        }
        // Exact float widening and back.
        (Kind::FtoF, Kind::FtoF) if wb >= wa && eff(c) == eff(a) => step(Kind::Cast),
        // Two exact widenings.
        (Kind::FtoF, Kind::FtoF) if wa <= wb && wb <= wc => step(Kind::FtoF),
        _ => None,
    }
}

fn vec_type(t: ScalarType, n: u8) -> Type {
    if n > 1 {
        Type::vector(t, n)
    } else {
        Type::scalar(t)
    }
}

/// Literal of 1 in type `t` (min-precision floats are stored as f32 bits).
fn one_lit(t: ScalarType) -> u64 {
    match t {
        ScalarType::F16 => 0x3c00,
        ScalarType::F32 | ScalarType::MinF16 | ScalarType::MinF10 => 1f32.to_bits() as u64,
        ScalarType::F64 => 1f64.to_bits(),
        _ => 1,
    }
}

fn splat(m: &mut Module, t: ScalarType, n: u8, lit: u64) -> SsaDef {
    let mut op = Op::new(OpCode::Constant, vec_type(t, n));
    for _ in 0..n {
        op = op.lit(lit);
    }
    m.add(op)
}

/// Step 2 for one `ConsumeAs`.
fn lower(m: &mut Module, p: &Plan) {
    let c = p.op;
    if m.uses(c).is_empty() {
        m.remove(c);
        return;
    }
    let n = vec_size(m, c);
    let result = if p.steps.is_empty() {
        p.root
    } else if m.opcode(p.root) == OpCode::Undef {
        let ty = m.ty(c).clone();
        m.add(Op::new(OpCode::Undef, ty))
    } else if let Some(k) = {
        let ty = m.ty(c).clone();
        fold_constant(m, p.root, &p.steps, &ty)
    } {
        k
    } else {
        let flags = m.op(c).flags;
        let mut cur = p.root;
        for s in &p.steps {
            let ty = vec_type(s.to, n);
            let op = match s.kind {
                Kind::Cast => Op::new(OpCode::Cast, ty).arg(cur),
                Kind::FtoF => Op::new(OpCode::ConvertFtoF, ty).arg(cur),
                Kind::ItoI => Op::new(OpCode::ConvertItoI, ty).arg(cur),
                Kind::ItoF => Op::new(OpCode::ConvertItoF, ty).arg(cur),
                Kind::FtoI => Op::new(OpCode::ConvertFtoI, ty).arg(cur),
                Kind::ToBool => {
                    let zero = splat(m, s.from, n, 0);
                    let cmp = if is_f(s.from) {
                        OpCode::FNe
                    } else {
                        OpCode::INe
                    };
                    Op::new(cmp, ty).arg(cur).arg(zero)
                }
                Kind::FromBool => {
                    let one = splat(m, s.to, n, one_lit(s.to));
                    let zero = splat(m, s.to, n, 0);
                    Op::new(OpCode::Select, ty).arg(cur).arg(one).arg(zero)
                }
            };
            cur = m.insert_before(c, op.with_flags(flags));
        }
        cur
    };
    m.replace_all_uses(c, result);
    m.remove(c);
}

/// Folds `steps` over constant `k` into a constant of type `ty`, if every step can be
/// evaluated exactly as the interpreter does (no f16 or min-precision types involved).
fn fold_constant(m: &mut Module, k: SsaDef, steps: &[Step], ty: &Type) -> Option<SsaDef> {
    let op = m.op(k);
    if op.opcode != OpCode::Constant {
        return None;
    }
    let simple = |t: ScalarType| !t.is_min_precision() && eff(t) != ScalarType::F16;
    let root = op.ty.as_basic()?.scalar_type();
    if !simple(root) || !steps.iter().all(|s| simple(s.to)) {
        return None;
    }
    let to = ty.as_basic()?.scalar_type();
    let mut new = Op::new(OpCode::Constant, ty.clone());
    for lit in op.literals() {
        let mut bits = lit_bits(root, lit);
        for s in steps {
            bits = eval(*s, bits);
        }
        new = new.lit(bits_lit(to, bits));
    }
    Some(m.add(new))
}

fn sext(bits: u64, w: u32) -> i64 {
    if w >= 64 {
        bits as i64
    } else {
        ((bits << (64 - w)) as i64) >> (64 - w)
    }
}

fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

fn to_f64(t: ScalarType, bits: u64) -> f64 {
    if width(t) == 64 {
        f64::from_bits(bits)
    } else {
        f32::from_bits(bits as u32) as f64
    }
}

fn from_f64(t: ScalarType, x: f64) -> u64 {
    if width(t) == 64 {
        x.to_bits()
    } else {
        (x as f32).to_bits() as u64
    }
}

/// One step on raw bits (f32/f64 and integers only; the interpreter's rounding).
fn eval(s: Step, bits: u64) -> u64 {
    let (f, t) = (s.from, s.to);
    let wt = width(t);
    match s.kind {
        Kind::Cast => bits,
        Kind::ItoI => {
            let v = if f.is_signed_int() {
                sext(bits, width(f)) as u64
            } else {
                bits
            };
            v & mask(wt)
        }
        Kind::FtoF => from_f64(t, to_f64(f, bits)),
        Kind::ItoF => {
            if f.is_signed_int() {
                let v = sext(bits, width(f));
                if wt == 64 {
                    (v as f64).to_bits()
                } else {
                    (v as f32).to_bits() as u64
                }
            } else {
                let v = bits & mask(width(f));
                if wt == 64 {
                    (v as f64).to_bits()
                } else {
                    (v as f32).to_bits() as u64
                }
            }
        }
        Kind::FtoI => {
            let x = to_f64(f, bits);
            if t.is_signed_int() {
                let lo = -(2f64.powi(wt as i32 - 1));
                let v = if x.is_nan() {
                    0
                } else if x <= lo {
                    lo as i64
                } else if x >= -lo {
                    ((1u64 << (wt - 1)) - 1) as i64
                } else {
                    x.trunc() as i64
                };
                (v as u64) & mask(wt)
            } else {
                let hi = 2f64.powi(wt as i32);
                if x.is_nan() || x <= 0.0 {
                    0
                } else if x >= hi {
                    mask(wt)
                } else {
                    x.trunc() as u64
                }
            }
        }
        Kind::ToBool => {
            let w = width(f);
            let mag = if is_f(f) { mask(w - 1) } else { mask(w) };
            (bits & mag != 0) as u64
        }
        Kind::FromBool => {
            if bits == 0 {
                0
            } else if is_f(t) {
                one_lit(t)
            } else {
                1
            }
        }
    }
}

/// Step 3: `Cast(Cast(x))` → `Cast(x)`, identity casts, casts of constants. Returns whether
/// anything changed.
fn fold_casts(m: &mut Module) -> bool {
    let mut casts: Vec<SsaDef> = Vec::with_capacity(m.count_of(OpCode::Cast));
    casts.extend(m.code().filter(|&d| m.opcode(d) == OpCode::Cast));
    let mut changed = false;
    for c in casts {
        if !m.is_live(c) {
            continue;
        }
        let Some(mut x) = Arith::of(m.op(c)).a() else {
            continue;
        };
        if m.opcode(x) == OpCode::Cast {
            let inner = x;
            if let Some(y) = Arith::of(m.op(inner)).a() {
                m.set_operand(c, slots::Arith.a, y.into());
                x = y;
                changed = true;
                if m.uses(inner).is_empty() {
                    m.remove(inner);
                }
            }
        }
        let replacement = if m.ty(x) == m.ty(c) {
            Some(x)
        } else {
            fold_cast_constant(m, x, c)
        };
        if let Some(r) = replacement {
            m.replace_all_uses(c, r);
            m.remove(c);
            changed = true;
        }
    }
    changed
}

/// A constant holding the bits of constant `k` reinterpreted as the type of cast `c`.
fn fold_cast_constant(m: &mut Module, k: SsaDef, c: SsaDef) -> Option<SsaDef> {
    let op = m.op(k);
    if op.opcode != OpCode::Constant {
        return None;
    }
    let from = op.ty.as_basic()?;
    let to = m.ty(c).as_basic()?;
    let ok = |t: ScalarType| !t.is_min_precision() && t != ScalarType::Bool;
    if !ok(from.scalar_type()) || !ok(to.scalar_type()) {
        return None;
    }
    let (wf, wt) = (width(from.scalar_type()), width(to.scalar_type()));
    if wf * from.vec_size() as u32 != wt * to.vec_size() as u32 {
        return None;
    }
    let mut bytes: SmallVec<[u8; 32]> = SmallVec::new();
    for lit in op.literals() {
        let b = lit_bits(from.scalar_type(), lit);
        bytes.extend_from_slice(&b.to_le_bytes()[..(wf / 8) as usize]);
    }
    let mut new = Op::new(OpCode::Constant, m.ty(c).clone());
    for chunk in bytes.chunks((wt / 8) as usize) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        new = new.lit(bits_lit(to.scalar_type(), u64::from_le_bytes(b)));
    }
    Some(m.add(new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    fn steps(chain: &[ScalarType]) -> Vec<(Kind, ScalarType, ScalarType)> {
        let mut out = Steps::new();
        for w in chain.windows(2) {
            consume_steps(w[0], w[1], &mut out);
        }
        out.iter().map(|s| (s.kind, s.from, s.to)).collect()
    }

    #[test]
    fn chains_simplify() {
        assert_eq!(steps(&[F32, Unknown, F32]), vec![]);
        assert_eq!(steps(&[F32, Unknown, I32]), vec![(Kind::Cast, F32, I32)]);
        assert_eq!(steps(&[MinI16, Unknown, MinI16]), vec![]);
        assert_eq!(steps(&[MinI16, F32, MinI16]), vec![]);
        assert_eq!(steps(&[MinF16, Unknown, MinF16]), vec![]);
        assert_eq!(
            steps(&[MinF16, Unknown, F32]),
            vec![(Kind::FtoF, MinF16, F32)]
        );
        assert_eq!(
            steps(&[F32, U32, F64]),
            vec![(Kind::Cast, F32, U32), (Kind::ItoF, U32, F64)]
        );
        assert_eq!(steps(&[U32, MinU16]), vec![(Kind::ItoI, U32, MinU16)]);
    }

    #[test]
    fn eval_matches_rust_rounding() {
        let s = Step {
            kind: Kind::FtoI,
            from: F32,
            to: I32,
        };
        assert_eq!(eval(s, (-3.7f32).to_bits() as u64), (-3i32) as u32 as u64);
        assert_eq!(eval(s, f32::NAN.to_bits() as u64), 0);
        assert_eq!(eval(s, 3e10f32.to_bits() as u64), i32::MAX as u64);
        let s = Step {
            kind: Kind::ToBool,
            from: F32,
            to: Bool,
        };
        assert_eq!(eval(s, (-0.0f32).to_bits() as u64), 0);
    }
}
