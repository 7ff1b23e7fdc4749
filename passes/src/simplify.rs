//! `simplify`: algebraic identities and peepholes that keep every result exactly as the IR
//! computes it (the interpreter's semantics), or change it only where the op's flags allow.
//!
//! **Algorithm.** A worklist seeded with all code in program order. Each popped op is matched
//! against the rules below; a rule either replaces the op by an existing value or a new
//! constant (the op is removed and its users are queued), or rewrites the op in place (the op
//! and its users are queued again). Operands that lose their last use and are pure are removed
//! on the spot, transitively. Every rule looks only at the op and its direct operands, so the
//! pass is linear in the module times the (small) number of requeues.
//!
//! **Flags.** An op's flags are its own plus the `SetFpMode` defaults of its result type
//! (additive); it is *precise* if either says so. Rules on float arithmetic fire only on
//! non-precise ops (and, where they merge two ops, only if neither is precise), except the
//! pure sign-bit rules on `FNeg`/`FAbs`, which cannot change any bit of any result. A rule that
//! creates an op from two keeps the first op's flags, with `NoNan`/`NoInf`/`NoSz` only where
//! both had them. NaN sign and payload are not preserved by arithmetic (IEEE leaves them open;
//! `irc_interp::compare` treats all NaNs as equal); every other bit is. Constants `c` below
//! must hold the value in every component; "exact" means bit-exact for all inputs including
//! ±0, ±inf, NaN and denormals.
//!
//! Float (result f16/f32/f64, op not precise):
//! - `FAdd x -0 → x`, `FAdd -0 x → x`: exact (`x + −0 = x`, also for `x = ±0`).
//! - `FAdd x +0 → x` (either side): only with `NoSz` (`−0 + +0 = +0`).
//! - `FSub x +0 → x`: exact. `FSub x -0 → x`: only with `NoSz`.
//! - `FSub -0 x → FNeg x`: exact (`−0 − x = −x` for every x). `FSub +0 x → FNeg x`: `NoSz`.
//! - `FSub x x → +0`: only with `NoNan` and `NoInf` (`inf − inf` and `NaN − NaN` are NaN).
//! - `FAdd a (FNeg b) → FSub a b`, `FAdd (FNeg a) b → FSub b a`, `FSub a (FNeg b) → FAdd a b`:
//!   exact (IEEE defines `a − b` as `a + (−b)`; addition commutes).
//! - `FMul x (Select (FEq x 0) +0 k) → FMul x k` (either operand order, also the first two
//!   operands of `FMad`), `k` a constant with every component finite and > 0: exact. This is
//!   the zero guard of D3D9's legacy multiply once one factor is a constant; for `x = ±0` both
//!   products are `±0` (the sign of `x`, since `k > 0`), otherwise the select yields `k`.
//! - `FMul x 1 → x`, `FDiv x 1 → x`: exact. `FMul x -1 → FNeg x`, `FDiv x -1 → FNeg x`: exact.
//! - `FMul (FNeg a) (FNeg b) → FMul a b`, same for `FDiv`: exact (signs cancel, rounding is
//!   sign-symmetric).
//! - `FDiv x c → FMul x (1/c)` for c = ±2^k when 1/c is exactly representable in the type:
//!   exact (both compute the exact `x·2^−k` and round once).
//! - `FMul x ±0 → +0`: only with `NoNan`, `NoInf` and `NoSz` (`inf·0` is NaN, `−1·0 = −0`).
//! - `FAdd (FMul a b) c → FMad a b c` (either side), `FSub (FMul a b) c → FMad a b (−c)` for a
//!   constant c: our `FMad` is **not fused** — `round(round(a·b) + c)` — which is exactly what
//!   the pair computes; only if the `FMul` has this single use and neither op is precise.
//! - `FMad a b -0 → FMul a b`, `FMad a 1 c → FAdd a c` (either factor): exact.
//! - `FNeg (FSub a b) → FSub b a`: only with `NoSz` on the `FNeg` (`a = b` gives −0 vs +0), the
//!   `FSub` not precise and used only here.
//! - `FNeg (FMul a c) → FMul a (−c)` for a constant c, the `FMul` not precise and used only
//!   here: exact (`round(−p) = −round(p)`; zero signs flip alike).
//! - `FMin x x → x`, `FMax x x → x`: exact.
//!
//! Sign bit (any float op, precise or not): `FNeg (FNeg x) → x`, `FAbs (FNeg x) → FAbs x`,
//! `FAbs (FAbs x) → FAbs x` — bit operations, exact. `FAbs y → y` for a square `y`
//! (`FMul x x`, `FMulLegacy x x`, `FDot v v`, `FDotLegacy v v`): a square is never negative
//! and never −0 (`(−a)·(−a) = +a²`, `(−0)·(−0) = +0`, a sum of such is too, in every rounding
//! mode), so `FAbs` changes nothing but the sign of a NaN (NaNs compare equal whatever their
//! sign: `irc_interp::compare`). D3D9's `nrm` and `rsq` take `|dp3(v, v)|`.
//!
//! Comparisons and booleans (exact):
//! - constants to the right: `cmp c x → cmp' x c` with `<` ↔ `>`, `≤` ↔ `≥` (float and int);
//! - `IEq x x`, `SLe/SGe/ULe/UGe x x → true`; `INe`, `SLt/SGt/ULt/UGt x x → false` (not for
//!   floats: NaN);
//! - `BNot (icmp a b) → icmp' a b` with the inverse integer comparison; `BNot (FEq a b) → FNe a
//!   b` and back (our `FNe` is unordered, the others ordered). `BNot (FLt a b) → FGe a b` (and
//!   the other ordered pairs) only when both operands are known not NaN (non-NaN constants or
//!   ops with `NoNan`) — with a NaN operand `FLt` and `FGe` are both false;
//! - `BNot (BNot x) → x`; `BAnd x true`, `BOr x false`, `BEq x true`, `BNe x false`, `BAnd x x`,
//!   `BOr x x → x`; `BAnd x false → false`; `BOr x true → true`; `BEq x false`,
//!   `BNe x true → BNot x`; `BEq x x → true`, `BNe x x → false`.
//!
//! Distribution (exact): an integer op, integer comparison or `Cast` whose operands are
//! constants except one `Select c k1 k2` with constant arms becomes
//! `Select c (op … k1 …) (op … k2 …)`,
//! both arms folded as `const-fold` would. This is D3D10's mask idiom, `IAnd (Select c ~0 0)
//! 0x3f800000` read as a float (`Cast`): it ends as `Select c 1.0 0.0`, which targets without
//! integers execute (`int-to-float` refuses the `~0` the mask select holds). Around it:
//! `CompositeConstruct s … s` of such a select → a select on the splatted condition;
//! `IAnd`/`IOr` of two selects of the masks `~0`/`0` (true arm `~0`) → one select on `BAnd`/`BOr`
//! of the conditions.
//!
//! Select (exact): `Select c x x → x`; `Select true a b → a`, `Select false a b → b`;
//! `Select (BNot c) a b → Select c b a`; on bool `Select c true false → c`,
//! `Select c false true → BNot c`.
//!
//! Integers (result an integer type; wrapping, masked shift counts as the interpreter does):
//! `IAdd x 0`, `ISub x 0`, `IOr x 0`, `IXor x 0`, `IAnd x ~0`, `IMul x 1`, `UDiv x 1`,
//! `IShl/UShr/SShr x c` with `c mod width = 0`, `IAnd x x`, `IOr x x`, `S/UMin x x`,
//! `S/UMax x x → x`; `INot (INot x)`, `INeg (INeg x) → x`; `ISub x x`, `IXor x x`, `IAnd x 0`,
//! `IMul x 0`, `UMod x 1 → 0`; `IOr x ~0 → ~0`; strength reduction `IMul x 2^k → IShl x k`,
//! `UDiv x 2^k → UShr x k`, `UMod x 2^k → IAnd x (2^k − 1)` (the interpreter's `UDiv`/`UMod`
//! are unsigned whatever the type; division by 0 is not a power of two).
//!
//! Other (exact): a `Phi` whose incoming values are all one value (or the phi) → that value;
//! `CompositeExtract (CompositeConstruct p0 … pn) i → pi` when part i has the result type;
//! `CompositeConstruct (CompositeExtract v 0) … (CompositeExtract v n−1) → v` when `v` has the
//! result type (a vector taken apart and put back together unchanged).
//!
//! Every replacement must have the op's exact result type; rules whose operand types differ
//! from the result type (scalar operands broadcast into a vector op) do not fire.

use crate::caps::PassContext;
use crate::fold_util::{
    const_all, const_components, const_value, is_constant, make_constant, remove_dead,
    remove_unused_constants, replace_value, FpDefaults, Worklist,
};
use crate::PassError;
use irc_arith::value::{bit_width, effective, mask};
use irc_arith::{Scalar, Value};
use irc_ir::format::{Arith, CompositeConstruct, CompositeExtract, Dot, Select};
use irc_ir::{Module, Op, OpCode, OpFlags, ScalarType, SsaDef, Type};
use smallvec::SmallVec;

/// What a rule does to the op.
enum Action {
    /// Replace the op by this value.
    Replace(SsaDef),
    /// Rewrite the op in place.
    Rewrite(Op),
}

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    let fp = FpDefaults::of(m);
    let mut work = Worklist::of_code(m);
    let mut changed = false;
    let mut created = Vec::new();
    while let Some(d) = work.pop() {
        if !m.is_live(d) || !m.op(d).has_result() {
            continue;
        }
        let Some(action) = simplify_op(m, &fp, d) else {
            continue;
        };
        let old: SmallVec<[SsaDef; 4]> = m.op(d).ref_defs().collect();
        match action {
            Action::Replace(v) => {
                created.push(v);
                work.push_users(m, d);
                replace_value(m, d, v);
            }
            Action::Rewrite(op) => {
                created.extend(op.ref_defs());
                m.rewrite(d, op);
                work.push(d);
                work.push_users(m, d);
            }
        }
        remove_dead(m, old);
        changed = true;
    }
    // Constants a rule made that a later rule made unused again.
    created.retain(|&c| m.is_live(c) && m.opcode(c) == OpCode::Constant);
    remove_unused_constants(m, &created);
    Ok(changed)
}

const FAST: u8 = OpFlags::NO_NAN.0 | OpFlags::NO_INF.0 | OpFlags::NO_SZ.0;

/// Flags for an op made from `a` and `b`: `a`'s, with the fast-math bits both have.
fn merged(a: OpFlags, b: OpFlags) -> OpFlags {
    OpFlags((a.0 & !FAST) | (a.0 & b.0 & FAST))
}

fn op2(opcode: OpCode, flags: OpFlags, ty: &Type, a: SsaDef, b: SsaDef) -> Op {
    Op::new(opcode, ty.clone()).with_flags(flags).arg(a).arg(b)
}

fn op1(opcode: OpCode, flags: OpFlags, ty: &Type, a: SsaDef) -> Op {
    Op::new(opcode, ty.clone()).with_flags(flags).arg(a)
}

/// The components of constant `x`, if it is one.
fn comps(m: &Module, x: SsaDef) -> Option<SmallVec<[Scalar; 4]>> {
    const_components(m, x, |_| true)
}

/// True if `x` is a float constant each of whose components is bitwise `v` (as f64).
fn is_f(m: &Module, x: SsaDef, v: f64) -> bool {
    const_all(m, x, ScalarType::is_float, |s| {
        s.ty().is_float() && irc_arith::float::to_f64(s, s.ty()).to_bits() == v.to_bits()
    })
}

/// True if `x` is a float constant whose components are all ±0.
fn is_fzero(m: &Module, x: SsaDef) -> bool {
    const_all(m, x, ScalarType::is_float, |s| {
        s.ty().is_float() && irc_arith::float::to_f64(s, s.ty()) == 0.0
    })
}

/// The value every component of integer constant `x` has at width `w`, if they agree.
fn int_splat(m: &Module, x: SsaDef, w: u32) -> Option<u64> {
    let c = const_components(m, x, ScalarType::is_int)?;
    let v = c.first()?.bits() & mask(w);
    c.iter()
        .all(|s| s.ty().is_int() && s.bits() & mask(w) == v)
        .then_some(v)
}

/// The value every component of bool constant `x` has, if they agree.
fn bool_splat(m: &Module, x: SsaDef) -> Option<bool> {
    let c = const_components(m, x, |t| t == ScalarType::Bool)?;
    let v = c.first()?.as_bool();
    c.iter()
        .all(|s| s.ty() == irc_ir::ScalarType::Bool && s.as_bool() == v)
        .then_some(v)
}

/// A constant of type `ty` with every component `s` (converted to the component type).
fn splat(m: &mut Module, ty: &Type, bits: u64) -> Option<SsaDef> {
    let b = ty.as_basic()?;
    let t = effective(b.scalar_type());
    let c = (0..b.vec_size())
        .map(|_| Scalar::from_bits(t, bits))
        .collect();
    make_constant(m, ty, &Value::from_components(c))
}

/// The constants of type `ty` holding `a` and `b`, made only when both can be: a rule that
/// needs two constants must not leave the first behind when the second fails (an unused
/// constant made on every run keeps the clean-up loop from ever settling).
fn constant_pair(m: &mut Module, ty: &Type, a: &Value, b: &Value) -> Option<(SsaDef, SsaDef)> {
    irc_arith::eval::constant_literals(ty, a)?;
    irc_arith::eval::constant_literals(ty, b)?;
    Some((make_constant(m, ty, a)?, make_constant(m, ty, b)?))
}

/// Constant `x` with every component mapped through `f` (float components).
fn map_const(m: &mut Module, x: SsaDef, f: impl Fn(Scalar) -> Option<Scalar>) -> Option<SsaDef> {
    let c: SmallVec<[Scalar; 4]> = comps(m, x)?.into_iter().map(f).collect::<Option<_>>()?;
    let ty = m.ty(x).clone();
    make_constant(m, &ty, &Value::from_components(c))
}

fn negate(s: Scalar) -> Option<Scalar> {
    irc_arith::float::float_op(OpCode::FNeg, s.ty(), &[s], 0)
}

/// `1/s` if `s` is ±2^k and its reciprocal is exact in the type.
fn exact_reciprocal(s: Scalar) -> Option<Scalar> {
    use irc_arith::float::{from_f64, round_to, to_f64};
    let t = s.ty();
    if !t.is_float() {
        return None;
    }
    let x = to_f64(s, t);
    let r = 1.0 / x;
    let pow2 = x.is_finite() && x != 0.0 && x.abs().log2().fract() == 0.0;
    (pow2 && r.is_finite() && r != 0.0 && round_to(r, t) == r && 1.0 / r == x)
        .then(|| from_f64(r, t))
}

fn single_use(m: &Module, x: SsaDef) -> bool {
    m.uses(x).len() == 1
}

/// Which family of rules [`simplify_op`] applies to an opcode.
#[derive(Clone, Copy)]
enum Rules {
    Phi,
    Extract,
    Construct,
    SignBit,
    FloatArith,
    Compare,
    Boolean,
    Select,
    Integer,
}

/// The rules for opcode `o`, if it has any (decided before the op is copied: most have none).
fn rules_of(o: OpCode) -> Option<Rules> {
    Some(match o {
        OpCode::Phi => Rules::Phi,
        OpCode::CompositeExtract => Rules::Extract,
        OpCode::CompositeConstruct => Rules::Construct,
        OpCode::FNeg | OpCode::FAbs => Rules::SignBit,
        OpCode::FAdd
        | OpCode::FSub
        | OpCode::FMul
        | OpCode::FDiv
        | OpCode::FMad
        | OpCode::FMin
        | OpCode::FMax => Rules::FloatArith,
        OpCode::FEq
        | OpCode::FNe
        | OpCode::FLt
        | OpCode::FLe
        | OpCode::FGt
        | OpCode::FGe
        | OpCode::IEq
        | OpCode::INe
        | OpCode::SLt
        | OpCode::SLe
        | OpCode::SGt
        | OpCode::SGe
        | OpCode::ULt
        | OpCode::ULe
        | OpCode::UGt
        | OpCode::UGe => Rules::Compare,
        OpCode::BNot | OpCode::BAnd | OpCode::BOr | OpCode::BEq | OpCode::BNe => Rules::Boolean,
        OpCode::Select => Rules::Select,
        OpCode::IAdd
        | OpCode::ISub
        | OpCode::IOr
        | OpCode::IXor
        | OpCode::IAnd
        | OpCode::IMul
        | OpCode::UDiv
        | OpCode::UMod
        | OpCode::IShl
        | OpCode::UShr
        | OpCode::SShr
        | OpCode::INot
        | OpCode::INeg
        | OpCode::SMin
        | OpCode::SMax
        | OpCode::UMin
        | OpCode::UMax => Rules::Integer,
        _ => return None,
    })
}

/// The rule that applies to `d`, if any (creating the constants it needs).
fn simplify_op(m: &mut Module, fp: &FpDefaults, d: SsaDef) -> Option<Action> {
    let opcode = m.opcode(d);
    let rules = rules_of(opcode);
    // Distribution (integer ops, casts, integer comparisons) needs a `Select` operand: look
    // before copying the op.
    let distributes = matches!(rules, Some(Rules::Integer))
        || opcode == OpCode::Cast
        || opcode.is(irc_ir::Attrs::INT | irc_ir::Attrs::COMPARE);
    if distributes && m.op(d).ref_defs().any(|a| m.opcode(a) == OpCode::Select) {
        let op = m.op(d).clone();
        if let Some(a) = distribute_over_select(m, &op) {
            return Some(a);
        }
    }
    if opcode == OpCode::CompositeConstruct {
        if let Some(a) = splatted_select(m, d) {
            return Some(a);
        }
    }
    if opcode == OpCode::CompositeExtract {
        if let Some(a) = extracted_select(m, d) {
            return Some(a);
        }
    }
    if matches!(opcode, OpCode::IAnd | OpCode::IOr) {
        if let Some(a) = combined_masks(m, d) {
            return Some(a);
        }
    }
    // The common families read the op in place; the others work on a copy.
    match rules? {
        Rules::Phi => phi(m, d, m.op(d)),
        Rules::Extract => extract(m, m.op(d)),
        Rules::Construct => reassembled(m, m.op(d)),
        Rules::Compare => compare(m, d),
        Rules::Boolean => boolean(m, fp, d),
        Rules::Select => select(m, d),
        Rules::SignBit => {
            let op = m.op(d).clone();
            sign_bit(m, fp, &op)
        }
        Rules::FloatArith => {
            let op = m.op(d);
            let t = effective(op.ty.as_basic()?.scalar_type());
            let operands_typed = op.ref_defs().all(|x| m.ty(x) == &op.ty);
            if !t.is_float() || !operands_typed || fp.flags(op).contains(OpFlags::PRECISE) {
                return None;
            }
            let op = op.clone();
            float_arith(m, fp, &op)
        }
        Rules::Integer => {
            let op = m.op(d).clone();
            integer(m, &op)
        }
    }
}

/// Replaces by `x` if it has the op's type.
fn to(m: &Module, op: &Op, x: SsaDef) -> Option<Action> {
    (m.ty(x) == &op.ty).then_some(Action::Replace(x))
}

/// Replaces `d` by `x` if `x` has `d`'s type.
fn to_def(m: &Module, d: SsaDef, x: SsaDef) -> Option<Action> {
    (m.ty(x) == m.ty(d)).then_some(Action::Replace(x))
}

fn phi(m: &Module, d: SsaDef, op: &Op) -> Option<Action> {
    let mut value = None;
    for pair in op.operands.chunks(2) {
        let v = pair.get(1)?.as_ref()?;
        if v == d || value == Some(v) {
            continue;
        }
        if value.is_some() {
            return None;
        }
        value = Some(v);
    }
    to(m, op, value?)
}

fn extract(m: &Module, op: &Op) -> Option<Action> {
    let ce = CompositeExtract::of(op);
    let (c, i) = (ce.composite()?, ce.address()?);
    let cons = m.op(c);
    if cons.opcode != OpCode::CompositeConstruct {
        return None;
    }
    let idx = comps(m, i).filter(|a| a.len() == 1)?[0];
    let idx = idx.bits() & mask(bit_width(idx.ty()));
    let part = cons.operand_def(usize::try_from(idx).ok()?)?;
    // Vector parts must each be one scalar for index i to be part i.
    if cons.ty.as_basic().is_some() && cons.ref_defs().any(|p| m.ty(p).as_scalar().is_none()) {
        return None;
    }
    to(m, op, part)
}

/// `CompositeConstruct` of the lanes `0 … n−1` of one vector `v`, in order, with `v` of the
/// result type: `v`.
fn reassembled(m: &Module, op: &Op) -> Option<Action> {
    let mut whole = None;
    for (lane, part) in CompositeConstruct::of(op).members().iter().enumerate() {
        let part = m.op(part.as_ref()?);
        if part.opcode != OpCode::CompositeExtract {
            return None;
        }
        let ce = CompositeExtract::of(part);
        let v = ce.composite()?;
        if whole.is_some_and(|w| w != v) {
            return None;
        }
        whole = Some(v);
        let idx = comps(m, ce.address()?).filter(|a| a.len() == 1)?[0];
        if idx.bits() & mask(bit_width(idx.ty())) != lane as u64 {
            return None;
        }
    }
    to(m, op, whole?)
}

fn sign_bit(m: &mut Module, fp: &FpDefaults, op: &Op) -> Option<Action> {
    // Only on float types: on an untyped `?` op the interpreter's result carries a float tag
    // that the operand may not.
    if !effective(op.ty.as_basic()?.scalar_type()).is_float() {
        return None;
    }
    let a = Arith::of(op).a()?;
    let inner = m.op(a).clone();
    let x = Arith::try_of(&inner).and_then(|i| i.a());
    let precise = fp.flags(op).contains(OpFlags::PRECISE);
    match (op.opcode, inner.opcode) {
        (OpCode::FNeg, OpCode::FNeg) => to(m, op, x?),
        (OpCode::FAbs, OpCode::FNeg | OpCode::FAbs) if m.ty(x?) == &op.ty => {
            Some(Action::Rewrite(op1(OpCode::FAbs, op.flags, &op.ty, x?)))
        }
        (OpCode::FAbs, OpCode::FMul | OpCode::FMulLegacy)
            if x.is_some() && x == Arith::of(&inner).b() =>
        {
            to(m, op, a)
        }
        (OpCode::FAbs, OpCode::FDot | OpCode::FDotLegacy)
            if Dot::of(&inner).a().is_some() && Dot::of(&inner).a() == Dot::of(&inner).b() =>
        {
            to(m, op, a)
        }
        (OpCode::FNeg, OpCode::FSub | OpCode::FMul)
            if !precise
                && single_use(m, a)
                && inner.ty == op.ty
                && !fp.flags(&inner).contains(OpFlags::PRECISE) =>
        {
            let (x, y) = (x?, Arith::of(&inner).b()?);
            let flags = merged(inner.flags, op.flags);
            if inner.opcode == OpCode::FSub {
                if !fp.flags(op).contains(OpFlags::NO_SZ) {
                    return None;
                }
                return Some(Action::Rewrite(op2(OpCode::FSub, flags, &op.ty, y, x)));
            }
            let (v, c) = if is_constant(m, y) {
                (x, y)
            } else if is_constant(m, x) {
                (y, x)
            } else {
                return None;
            };
            let nc = map_const(m, c, negate)?;
            Some(Action::Rewrite(op2(OpCode::FMul, flags, &op.ty, v, nc)))
        }
        _ => None,
    }
}

fn float_arith(m: &mut Module, fp: &FpDefaults, op: &Op) -> Option<Action> {
    let flags = fp.flags(op);
    let nosz = flags.contains(OpFlags::NO_SZ);
    let finite = flags.contains(OpFlags::NO_NAN) && flags.contains(OpFlags::NO_INF);
    let arith = Arith::of(op);
    let (a, b) = (arith.a()?, arith.b()?);
    let ty = &op.ty;
    let fneg_arg = |m: &Module, x: SsaDef| {
        (m.opcode(x) == OpCode::FNeg)
            .then(|| Arith::of(m.op(x)).a())
            .flatten()
            .filter(|&y| m.ty(y) == ty)
    };
    // `FMul x y` used only here and not precise: its operands.
    let mul_of = |m: &Module, x: SsaDef| {
        let o = m.op(x);
        (o.opcode == OpCode::FMul
            && single_use(m, x)
            && o.ty == *ty
            && !fp.flags(o).contains(OpFlags::PRECISE))
        .then(|| Some((Arith::of(o).a()?, Arith::of(o).b()?, o.flags)))
        .flatten()
    };
    match op.opcode {
        OpCode::FAdd => {
            if is_f(m, b, -0.0) || (nosz && is_fzero(m, b)) {
                return to(m, op, a);
            }
            if is_f(m, a, -0.0) || (nosz && is_fzero(m, a)) {
                return to(m, op, b);
            }
            if let Some(y) = fneg_arg(m, b) {
                return Some(Action::Rewrite(op2(OpCode::FSub, op.flags, ty, a, y)));
            }
            if let Some(y) = fneg_arg(m, a) {
                return Some(Action::Rewrite(op2(OpCode::FSub, op.flags, ty, b, y)));
            }
            for (p, c) in [(a, b), (b, a)] {
                if let Some((x, y, f)) = mul_of(m, p) {
                    let op = Op::new(OpCode::FMad, ty.clone())
                        .with_flags(merged(op.flags, f))
                        .arg(x)
                        .arg(y)
                        .arg(c);
                    return Some(Action::Rewrite(op));
                }
            }
            None
        }
        OpCode::FSub => {
            if is_f(m, b, 0.0) || (nosz && is_fzero(m, b)) {
                return to(m, op, a);
            }
            if is_f(m, a, -0.0) || (nosz && is_fzero(m, a)) {
                return Some(Action::Rewrite(op1(OpCode::FNeg, op.flags, ty, b)));
            }
            if let Some(y) = fneg_arg(m, b) {
                return Some(Action::Rewrite(op2(OpCode::FAdd, op.flags, ty, a, y)));
            }
            if a == b && finite {
                return splat(m, ty, 0).map(Action::Replace);
            }
            if let Some((x, y, f)) = mul_of(m, a) {
                if is_constant(m, b) {
                    let c = map_const(m, b, negate)?;
                    let op = Op::new(OpCode::FMad, ty.clone())
                        .with_flags(merged(op.flags, f))
                        .arg(x)
                        .arg(y)
                        .arg(c);
                    return Some(Action::Rewrite(op));
                }
            }
            None
        }
        OpCode::FMul | OpCode::FDiv => {
            let div = op.opcode == OpCode::FDiv;
            if !div {
                if let Some(k) = zero_guarded(m, b, a) {
                    return Some(Action::Rewrite(op2(OpCode::FMul, op.flags, ty, a, k)));
                }
                if let Some(k) = zero_guarded(m, a, b) {
                    return Some(Action::Rewrite(op2(OpCode::FMul, op.flags, ty, k, b)));
                }
            }
            if is_f(m, b, 1.0) {
                return to(m, op, a);
            }
            if !div && is_f(m, a, 1.0) {
                return to(m, op, b);
            }
            if is_f(m, b, -1.0) {
                return Some(Action::Rewrite(op1(OpCode::FNeg, op.flags, ty, a)));
            }
            if !div && is_f(m, a, -1.0) {
                return Some(Action::Rewrite(op1(OpCode::FNeg, op.flags, ty, b)));
            }
            if let (Some(x), Some(y)) = (fneg_arg(m, a), fneg_arg(m, b)) {
                return Some(Action::Rewrite(op2(op.opcode, op.flags, ty, x, y)));
            }
            if !div && finite && nosz && (is_fzero(m, a) || is_fzero(m, b)) {
                return splat(m, ty, 0).map(Action::Replace);
            }
            if div && is_constant(m, b) {
                let r = map_const(m, b, exact_reciprocal)?;
                return Some(Action::Rewrite(op2(OpCode::FMul, op.flags, ty, a, r)));
            }
            None
        }
        OpCode::FMad => {
            let c = arith.c()?;
            for (x, other) in [(b, a), (a, b)] {
                if let Some(k) = zero_guarded(m, x, other) {
                    let (p, q) = if x == b { (a, k) } else { (k, b) };
                    let mut o = op2(OpCode::FMad, op.flags, ty, p, q);
                    o.operands.push(c.into());
                    return Some(Action::Rewrite(o));
                }
            }
            if is_f(m, c, -0.0) {
                return Some(Action::Rewrite(op2(OpCode::FMul, op.flags, ty, a, b)));
            }
            if is_f(m, b, 1.0) {
                return Some(Action::Rewrite(op2(OpCode::FAdd, op.flags, ty, a, c)));
            }
            if is_f(m, a, 1.0) {
                return Some(Action::Rewrite(op2(OpCode::FAdd, op.flags, ty, b, c)));
            }
            None
        }
        OpCode::FMin | OpCode::FMax if a == b => to(m, op, a),
        _ => None,
    }
}

/// `k` when `x = Select(FEq(other, 0), +0, k)` with `k` a constant whose components are all
/// finite and positive: the zero guard D3D9's legacy multiply leaves after constant folding
/// (`mul_legacy(other, k)`). Then `other · x` is bitwise `other · k`: for `other = ±0` both are
/// `±0` (`k > 0` keeps the sign), for every other value `x = k`.
fn zero_guarded(m: &Module, x: SsaDef, other: SsaDef) -> Option<SsaDef> {
    let sel = m.op(x);
    if sel.opcode != OpCode::Select {
        return None;
    }
    let sel = Select::of(sel);
    let (cond, zero, k) = (sel.cond()?, sel.if_true()?, sel.if_false()?);
    let c = m.op(cond);
    if c.opcode != OpCode::FEq {
        return None;
    }
    let (p, q) = (Arith::of(c).a()?, Arith::of(c).b()?);
    let guards_other = (p == other && is_fzero(m, q)) || (q == other && is_fzero(m, p));
    let positive = const_components(m, k, ScalarType::is_float).is_some_and(|c| {
        c.iter().all(|&s| {
            let v = irc_arith::float::to_f64(s, s.ty());
            s.ty().is_float() && v.is_finite() && v > 0.0
        })
    });
    (guards_other && is_f(m, zero, 0.0) && positive && m.ty(k) == m.ty(x)).then_some(k)
}

/// The comparison with operands swapped.
fn mirrored(op: OpCode) -> OpCode {
    match op {
        OpCode::FLt => OpCode::FGt,
        OpCode::FGt => OpCode::FLt,
        OpCode::FLe => OpCode::FGe,
        OpCode::FGe => OpCode::FLe,
        OpCode::SLt => OpCode::SGt,
        OpCode::SGt => OpCode::SLt,
        OpCode::SLe => OpCode::SGe,
        OpCode::SGe => OpCode::SLe,
        OpCode::ULt => OpCode::UGt,
        OpCode::UGt => OpCode::ULt,
        OpCode::ULe => OpCode::UGe,
        OpCode::UGe => OpCode::ULe,
        o => o,
    }
}

fn compare(m: &mut Module, d: SsaDef) -> Option<Action> {
    let op = m.op(d);
    let (opcode, flags) = (op.opcode, op.flags);
    let (a, b) = (Arith::of(op).a()?, Arith::of(op).b()?);
    if is_constant(m, a) && !is_constant(m, b) {
        let o = op2(mirrored(opcode), flags, m.ty(d), b, a);
        return Some(Action::Rewrite(o));
    }
    if a == b {
        let v = match opcode {
            OpCode::IEq | OpCode::SLe | OpCode::SGe | OpCode::ULe | OpCode::UGe => true,
            OpCode::INe | OpCode::SLt | OpCode::SGt | OpCode::ULt | OpCode::UGt => false,
            _ => return None,
        };
        let ty = m.ty(d).clone();
        return splat(m, &ty, v as u64).map(Action::Replace);
    }
    None
}

/// True if `x` is known not to be NaN: a constant without NaN components, or an op whose
/// (effective) flags say `NoNan`.
fn not_nan(m: &Module, fp: &FpDefaults, x: SsaDef) -> bool {
    match comps(m, x) {
        Some(c) => c
            .iter()
            .all(|&s| !irc_arith::float::to_f64(s, s.ty()).is_nan()),
        None => fp.flags(m.op(x)).contains(OpFlags::NO_NAN),
    }
}

fn boolean(m: &mut Module, fp: &FpDefaults, d: SsaDef) -> Option<Action> {
    let op = m.op(d);
    let opcode = op.opcode;
    let a = Arith::of(op).a()?;
    if opcode == OpCode::BNot {
        let inner = m.op(a);
        if inner.opcode == OpCode::BNot {
            return to_def(m, d, Arith::of(inner).a()?);
        }
        let (inv, needs_ordered) = crate::compare::inverse(inner.opcode)?;
        let (x, y) = (Arith::of(inner).a()?, Arith::of(inner).b()?);
        if inner.ty != op.ty || (needs_ordered && !(not_nan(m, fp, x) && not_nan(m, fp, y))) {
            return None;
        }
        return Some(Action::Rewrite(op2(inv, inner.flags, &op.ty, x, y)));
    }
    let b = Arith::of(op).b()?;
    let bool_of = |m: &mut Module, v: u64| {
        let ty = m.ty(d).clone();
        splat(m, &ty, v).map(Action::Replace)
    };
    let (x, c) = match (bool_splat(m, a), bool_splat(m, b)) {
        (_, Some(c)) => (a, c),
        (Some(c), None) => (b, c),
        (None, None) => {
            if a != b {
                return None;
            }
            return match opcode {
                OpCode::BAnd | OpCode::BOr => to_def(m, d, a),
                OpCode::BEq => bool_of(m, 1),
                OpCode::BNe => bool_of(m, 0),
                _ => None,
            };
        }
    };
    match (opcode, c) {
        (OpCode::BAnd, true)
        | (OpCode::BOr, false)
        | (OpCode::BEq, true)
        | (OpCode::BNe, false) => to_def(m, d, x),
        (OpCode::BAnd, false) => bool_of(m, 0),
        (OpCode::BOr, true) => bool_of(m, 1),
        (OpCode::BEq, false) | (OpCode::BNe, true) if m.ty(x) == m.ty(d) => Some(Action::Rewrite(
            op1(OpCode::BNot, OpFlags::NONE, m.ty(d), x),
        )),
        _ => None,
    }
}

/// `op (… Select c k1 k2 …)` with every other operand constant → `Select c (op … k1 …)
/// (op … k2 …)`, when the select has constant arms. The op count does not grow: the user
/// becomes a select, and the old select goes once no user is left.
fn distribute_over_select(m: &mut Module, op: &Op) -> Option<Action> {
    let mut sel = None;
    let mut args: SmallVec<[Option<Value>; 4]> = SmallVec::new();
    for (_, a) in op.refs() {
        let a = a?;
        if let Some(v) = const_value(m, a) {
            args.push(Some(v));
        } else if sel.is_none() && m.opcode(a) == OpCode::Select {
            sel = Some((args.len(), a));
            args.push(None);
        } else {
            return None;
        }
    }
    let (at, s) = sel?;
    // Same shape only (a scalar select broadcast into a vector op would need a vector condition).
    if m.ty(s).as_basic()?.vec_size() != op.ty.as_basic()?.vec_size() {
        return None;
    }
    let select = Select::of(m.op(s));
    let (c, t, f) = (select.cond()?, select.if_true()?, select.if_false()?);
    let (kt, kf) = (const_value(m, t)?, const_value(m, f)?);
    let modes = irc_arith::FpModes::of_module(m);
    let arm = |k: Value| -> Option<Value> {
        let mut vals: SmallVec<[Value; 4]> = SmallVec::new();
        for (i, a) in args.iter().enumerate() {
            vals.push(if i == at { k.clone() } else { a.clone()? });
        }
        irc_arith::eval::fold_in(op, &vals, &op.ty, &modes)
    };
    let (t, f) = constant_pair(m, &op.ty, &arm(kt)?, &arm(kf)?)?;
    let o = Op::new(OpCode::Select, op.ty.clone())
        .with_flags(op.flags)
        .arg(c)
        .arg(t)
        .arg(f);
    Some(Action::Rewrite(o))
}

/// `CompositeConstruct x … x` of one `x = Select c k1 k2` (scalar condition, constant arms)
/// → `Select (CompositeConstruct c … c) (k1 … k1) (k2 … k2)`, so that the rules above see the
/// select through the splat (`INe (splat (Select c ~0 0)) 0` ends as the splatted `c`).
fn splatted_select(m: &mut Module, d: SsaDef) -> Option<Action> {
    let parts = CompositeConstruct::of(m.op(d)).members();
    let x = parts.first()?.as_ref()?;
    let same = parts.iter().all(|p| p.as_ref() == Some(x));
    if parts.len() < 2 || !same || m.opcode(x) != OpCode::Select {
        return None;
    }
    let op = m.op(d).clone();
    let parts = CompositeConstruct::of(&op).members();
    let select = Select::of(m.op(x));
    let (c, t, f) = (select.cond()?, select.if_true()?, select.if_false()?);
    let n = op.ty.as_basic()?.vec_size();
    if m.ty(c) != &Type::scalar(irc_ir::ScalarType::Bool) || usize::from(n) != parts.len() {
        return None;
    }
    let splat_of = |k: SsaDef| -> Option<Value> {
        let Value::Scalar(s) = const_value(m, k)? else {
            return None;
        };
        Some(Value::from_components((0..n).map(|_| s).collect()))
    };
    let (vt, vf) = (splat_of(t)?, splat_of(f)?);
    let (kt, kf) = constant_pair(m, &op.ty, &vt, &vf)?;
    let mut cond = Op::new(
        OpCode::CompositeConstruct,
        Type::vector(irc_ir::ScalarType::Bool, n),
    );
    for _ in 0..n {
        cond = cond.arg(c);
    }
    let cv = m.insert_before(d, cond);
    let o = Op::new(OpCode::Select, op.ty.clone())
        .arg(cv)
        .arg(kt)
        .arg(kf);
    Some(Action::Rewrite(o))
}

/// `CompositeExtract (Select c k1 k2) i` of an integer vector select with a vector condition
/// and constant arms → `Select (CompositeExtract c i) k1[i] k2[i]`, so that the mask rules
/// see each lane (`IAnd` of two lanes of `Select (FGt v 0) ~0 0` becomes one select). Only for
/// lanes that only `IAnd`/`IOr` read: a lane that is put back into a vector stays a lane of
/// the vector select, which the rules above already see whole.
fn extracted_select(m: &mut Module, d: SsaDef) -> Option<Action> {
    let masks_only = m
        .uses(d)
        .iter()
        .all(|&u| m.opcode(u).is_meta() || matches!(m.opcode(u), OpCode::IAnd | OpCode::IOr));
    if !masks_only {
        return None;
    }
    let op = m.op(d).clone();
    let ce = CompositeExtract::of(&op);
    let (v, i) = (ce.composite()?, ce.address()?);
    let sel = m.op(v);
    if sel.opcode != OpCode::Select || !op.ty.as_scalar()?.is_int() {
        return None;
    }
    let select = Select::of(sel);
    let (c, t, f) = (select.cond()?, select.if_true()?, select.if_false()?);
    let lane = comps(m, i).filter(|a| a.len() == 1)?[0];
    let lane = usize::try_from(lane.bits() & mask(bit_width(lane.ty()))).ok()?;
    if !m.ty(c).as_basic()?.is_vector() {
        return None;
    }
    let lane_of = |m: &mut Module, k: SsaDef| -> Option<SsaDef> {
        let s = *comps(m, k)?.get(lane)?;
        make_constant(m, &op.ty, &Value::Scalar(s))
    };
    let (kt, kf) = (lane_of(m, t)?, lane_of(m, f)?);
    let cond_ty = Type::scalar(m.ty(c).as_basic()?.scalar_type());
    let cl = m.insert_before(d, Op::new(OpCode::CompositeExtract, cond_ty).arg(c).arg(i));
    let o = Op::new(OpCode::Select, op.ty.clone())
        .arg(cl)
        .arg(kt)
        .arg(kf);
    Some(Action::Rewrite(o))
}

/// `IAnd`/`IOr (Select c1 ~0 0) (Select c2 ~0 0)` → `Select (BAnd/BOr c1 c2) ~0 0`.
fn combined_masks(m: &mut Module, d: SsaDef) -> Option<Action> {
    // Both operands selects before the op is copied.
    let both_selects = m.op(d).ref_defs().all(|x| m.opcode(x) == OpCode::Select);
    if !both_selects {
        return None;
    }
    let op = m.op(d).clone();
    let t = effective(op.ty.as_basic()?.scalar_type());
    if !t.is_int() {
        return None;
    }
    let ones = mask(bit_width(t));
    let mask_select = |x: SsaDef| -> Option<SsaDef> {
        if m.opcode(x) != OpCode::Select || m.ty(x) != &op.ty {
            return None;
        }
        let s = Select::of(m.op(x));
        let w = bit_width(t);
        (int_splat(m, s.if_true()?, w)? == ones && int_splat(m, s.if_false()?, w)? == 0)
            .then_some(s.cond()?)
    };
    let a = Arith::of(&op);
    let (c1, c2) = (mask_select(a.a()?)?, mask_select(a.b()?)?);
    if m.ty(c1) != m.ty(c2) {
        return None;
    }
    let (on, off) = {
        let s = Select::of(m.op(a.a()?));
        (s.if_true()?, s.if_false()?)
    };
    let bop = if op.opcode == OpCode::IAnd {
        OpCode::BAnd
    } else {
        OpCode::BOr
    };
    let cond_ty = m.ty(c1).clone();
    let b = m.insert_before(d, Op::new(bop, cond_ty).arg(c1).arg(c2));
    let o = Op::new(OpCode::Select, op.ty.clone())
        .arg(b)
        .arg(on)
        .arg(off);
    Some(Action::Rewrite(o))
}

fn select(m: &Module, d: SsaDef) -> Option<Action> {
    let op = m.op(d);
    let sel = Select::of(op);
    let (c, t, f) = (sel.cond()?, sel.if_true()?, sel.if_false()?);
    if t == f {
        return to(m, op, t);
    }
    if let Some(v) = bool_splat(m, c) {
        return to(m, op, if v { t } else { f });
    }
    let cond = m.op(c);
    if cond.opcode == OpCode::BNot {
        let y = Arith::of(cond).a()?;
        if m.ty(y) == m.ty(c) {
            let o = Op::new(OpCode::Select, op.ty.clone())
                .with_flags(op.flags)
                .arg(y)
                .arg(f)
                .arg(t);
            return Some(Action::Rewrite(o));
        }
    }
    match (bool_splat(m, t), bool_splat(m, f)) {
        (Some(true), Some(false)) => to(m, op, c),
        (Some(false), Some(true)) if m.ty(c) == &op.ty => {
            Some(Action::Rewrite(op1(OpCode::BNot, OpFlags::NONE, &op.ty, c)))
        }
        _ => None,
    }
}

fn integer(m: &mut Module, op: &Op) -> Option<Action> {
    let t = effective(op.ty.as_basic()?.scalar_type());
    if !t.is_int() {
        return None;
    }
    let w = bit_width(t);
    let ones = mask(w);
    let ty = &op.ty;
    let a = Arith::of(op).a()?;
    if matches!(op.opcode, OpCode::INot | OpCode::INeg) {
        let inner = m.op(a);
        return (inner.opcode == op.opcode)
            .then(|| to(m, op, Arith::of(inner).a()?))
            .flatten();
    }
    let b = Arith::of(op).b()?;
    let (ka, kb) = (int_splat(m, a, w), int_splat(m, b, w));
    let zero = |m: &mut Module| splat(m, ty, 0).map(Action::Replace);
    // Shift count k (a constant of the type of `like`).
    let count = |m: &mut Module, like: SsaDef, k: u64| {
        let lty = m.ty(like).clone();
        splat(m, &lty, k)
    };
    match op.opcode {
        OpCode::IAdd | OpCode::IOr | OpCode::IXor if kb == Some(0) => to(m, op, a),
        OpCode::IAdd | OpCode::IOr | OpCode::IXor if ka == Some(0) => to(m, op, b),
        OpCode::ISub if kb == Some(0) => to(m, op, a),
        OpCode::ISub | OpCode::IXor if a == b => zero(m),
        OpCode::IAnd | OpCode::IOr | OpCode::SMin | OpCode::SMax | OpCode::UMin | OpCode::UMax
            if a == b =>
        {
            to(m, op, a)
        }
        OpCode::IAnd if kb == Some(ones) => to(m, op, a),
        OpCode::IAnd if ka == Some(ones) => to(m, op, b),
        OpCode::IAnd if ka == Some(0) || kb == Some(0) => zero(m),
        OpCode::IOr if ka == Some(ones) || kb == Some(ones) => {
            splat(m, ty, ones).map(Action::Replace)
        }
        OpCode::IMul | OpCode::UDiv if kb == Some(1) => to(m, op, a),
        OpCode::IMul if ka == Some(1) => to(m, op, b),
        OpCode::IMul if ka == Some(0) || kb == Some(0) => zero(m),
        OpCode::UMod if kb == Some(1) => zero(m),
        OpCode::IShl | OpCode::UShr | OpCode::SShr
            if kb.is_some_and(|k| k & (w as u64 - 1) == 0) =>
        {
            to(m, op, a)
        }
        OpCode::IMul | OpCode::UDiv | OpCode::UMod => {
            let (x, k) = match (ka, kb) {
                (_, Some(k)) if k.is_power_of_two() => (a, k),
                (Some(k), _) if k.is_power_of_two() && op.opcode == OpCode::IMul => (b, k),
                _ => return None,
            };
            let c = if x == a { b } else { a };
            if m.ty(x) != ty {
                return None;
            }
            let (opcode, arg) = match op.opcode {
                OpCode::IMul => (OpCode::IShl, count(m, c, k.trailing_zeros() as u64)?),
                OpCode::UDiv => (OpCode::UShr, count(m, c, k.trailing_zeros() as u64)?),
                _ if m.ty(c) == ty => (OpCode::IAnd, splat(m, ty, k - 1)?),
                _ => return None,
            };
            Some(Action::Rewrite(op2(opcode, op.flags, ty, x, arg)))
        }
        _ => None,
    }
}
