//! `int-to-float`: integer arithmetic that is provably exact in `f32` becomes float arithmetic,
//! for targets without integers (Lima, PICA, AGAL: `TargetCaps::integers == false`). On other
//! targets the pass does nothing.
//!
//! ## Algorithm
//!
//! 0. **Float bits** ([`crate::float_bit_webs`]): integer phis, selects and composites that only
//!    carry float constants' bits to bit casts become f32 values first; they are not numbers.
//! 1. **Ranges** ([`crate::int_range`]): an interval for every scalar integer value (and a
//!    NaN-free interval for float values), refined by dominating branch conditions and
//!    iterated to a fixed point with widening and narrowing, so that loop counters compared
//!    against constants are bounded.
//! 2. **Candidates**: scalar integer values computed by `IAdd`, `ISub`, `IMul`, `INeg`, `IAbs`,
//!    `SMin`/`SMax`/`UMin`/`UMax`, `SClamp`/`UClamp`, `Select`, `Phi`, `ConvertFtoI` or `Cast`
//!    (between integer types of one width) whose interval lies in `[−2^24, 2^24]`, and whose
//!    integer operands mean the same under the op's signedness (a `u32` operand of a signed op
//!    is in `[0, 2^31)`). Every f32 result of the float counterpart is then the exact
//!    mathematical result, because an exact integer of magnitude ≤ 2^24 is representable. The
//!    set is the greatest fixed point of "every integer operand is a candidate, a constant, or
//!    a lane of a D3D9 integer constant register" (phi cycles stay in). Those lanes (loop
//!    counts, starts and steps, bounded by D3D9) reach the targets as floats (the uniform
//!    convention of `irc_backend::UniformSource`): their float form is `ConvertItoF` of the
//!    lane, which the backends read as the uniform itself.
//! 3. **Rewrite**, in place (ids stay): the candidates get type `f32` and the float opcode
//!    (`FAdd`, `FSub`, `FMul`, `FNeg`, `FAbs`, `FMin`, `FMax`, `FClamp`, `Select`, `Phi`;
//!    `ConvertFtoI` → `FRound Zero`, exact because its input was proven within range and never
//!    NaN), marked `Precise` so that later passes do not reassociate them; integer constant
//!    operands become f32 constants; a `Cast` becomes `FAdd x, −0` (a copy). Comparisons whose
//!    operands are all candidates, small constants or integer-register lanes become `FEq`/`FNe`/`FLt`/`FLe`/`FGt`/`FGe`. `ConvertItoF` to f32 of a candidate
//!    becomes the value itself — through `FAdd x, +0.0` when `x` may be −0 (`FMul`, `FNeg`,
//!    `FRound` can produce −0 where the integer was 0, and `ConvertItoF(0)` is +0).
//! 4. **Interface**: a candidate used by any op that was not rewritten (a load address, a
//!    store value, a `CompositeConstruct` of an index vector, a phi that stayed integer, …)
//!    gets a `ConvertFtoI` to its old integer type right before that user (before the
//!    incoming block's terminator for a phi).
//! 5. **Check**: any integer op left (bit ops, division, integer comparisons of unbounded
//!    values, integer `Phi`/`Select`, `ConvertItoF` of an unbounded value, `Cast` involving
//!    integers, …) is [`PassError::Unsupported`] naming the op and the reason.
//!
//! ## The IR the backends get (float-only targets)
//!
//! After the pass, integer-typed values remain only as:
//! - integer **constants** (index operands, literals-like values);
//! - **loads** that produce integers (`InputLoad`, `ConstantLoad`, `BufferLoad`, …), used only
//!   by the ops below;
//! - `ConvertItoF` to f32 of a lane of a D3D9 integer constant register (`.x`–`.z`), which the
//!   backend reads as that register's uniform (uploaded converted to float);
//! - `ConvertFtoI` whose float operand the backend turns into an index (or a value to store);
//!   either inserted by step 4 (its operand is then an exact integer-valued float in
//!   `[−2^24, 2^24]`) or present before (a D3D9 `mova`, unchanged);
//! - `CompositeConstruct` of integer vectors used as multi-dimensional addresses;
//!
//! and they are consumed only as the address/index operand of loads and stores
//! (`ConstantLoad`, `InputLoad`, `OutputLoad`, `OutputStore`, `BufferLoad`, `BufferStore`,
//! `ScratchLoad`/`Store`, `LdsLoad`/`Store`, `PushDataLoad`, `CompositeExtract`/`Insert`,
//! `DescriptorLoad`) or as a stored value. A backend that indexes with floats (PICA `mova`,
//! Lima GP address registers) reads `ConvertFtoI(x)` as "index with float `x`", which is
//! exact: `x` is an integer-valued float within range.
//!
//! Relative-addressing indices stay integer: `IAdd(k, ConvertFtoI(x))` and `Cast`s between
//! `i32` and `u32` of them, when they are used only as load addresses (see
//! [`address_values`]); backends with address registers lower them.
//!
//! ## Not handled
//!
//! Vector integer arithmetic, 64-bit and 16-bit integers, `ConvertItoI`, bitwise ops even on
//! bounded values (`IAnd` with a mask could be a `FMod`-free identity in some cases), and
//! integer values loaded from inputs/constant buffers that feed arithmetic: these are reported
//! as unsupported.

use crate::caps::PassContext;
use crate::int_range::{self, compare_type, int_scalar, reinterpret, R};
use crate::PassError;
use irc_ir::analysis::{functions, Cfg};
use irc_ir::format::Arith;
use irc_ir::{
    Attrs, EntityRef, Module, Op, OpCode, OpFlags, Operand, RoundMode, ScalarType, SsaDef, Type,
};
use rustc_hash::FxHashSet;

/// The largest magnitude of integers that are all exactly representable in f32.
const EXACT: i64 = 1 << 24;

/// Runs the pass (only for targets without integers); returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    if cx.caps.integers {
        return Ok(false);
    }
    let webs = crate::float_bit_webs::run(m);
    let ranges = int_range::analyze(m);
    let cands = candidates(m, &ranges);
    let cmps: Vec<SsaDef> = m
        .code()
        .filter(|&d| {
            float_comparison(m.opcode(d)).is_some() && comparison_ok(m, &ranges, &cands, d)
        })
        .collect();
    let itofs: Vec<SsaDef> = m
        .code()
        .filter(|&d| {
            let op = m.op(d);
            op.opcode == OpCode::ConvertItoF
                && op.ty.as_scalar() == Some(ScalarType::F32)
                && Arith::of(op)
                    .a()
                    .is_some_and(|x| cands.contains(&x) || small_constant(m, x))
        })
        .collect();
    let negz = maybe_negative_zero(m, &ranges, &cands);
    let mut changed = webs;

    // Old integer type of each candidate, before rewriting.
    let old_ty: Vec<(SsaDef, Type)> = cands.iter().map(|&d| (d, m.ty(d).clone())).collect();
    let mut order: Vec<SsaDef> = cands.iter().copied().collect();
    order.sort();
    for &d in &order {
        rewrite_candidate(m, &cands, d);
        changed = true;
    }
    for &d in &cmps {
        let op = m.op(d).clone();
        let fop = float_comparison(op.opcode).expect("comparison");
        let mut new = Op::new(fop, op.ty.clone()).with_flags(op.flags);
        for i in 0..2 {
            let x = op.operand_def(i).expect("comparison operand");
            new = new.arg(float_operand(m, &cands, x));
        }
        m.rewrite(d, new);
        changed = true;
    }
    let rewritten: FxHashSet<SsaDef> = cands.iter().chain(&cmps).chain(&itofs).copied().collect();
    // Interface conversions for users that stayed integer.
    let functions = functions(m);
    for (d, ty) in old_ty {
        let users: Vec<SsaDef> = {
            let mut u: Vec<SsaDef> = m.uses(d).to_vec();
            u.sort();
            u.dedup();
            u
        };
        for u in users {
            if rewritten.contains(&u) || !m.is_live(u) || m.opcode(u).is_meta() {
                continue;
            }
            let conv = Op::new(OpCode::ConvertFtoI, ty.clone()).arg(d);
            if m.opcode(u) == OpCode::Phi {
                let ops = m.op(u).operands.clone();
                let f = functions
                    .iter()
                    .find(|f| f.body(m).any(|x| x == u))
                    .copied();
                let Some(f) = f else { continue };
                let cfg = Cfg::build(m, f);
                for (i, pair) in ops.chunks(2).enumerate() {
                    if pair.get(1) != Some(&Operand::Ref(d)) {
                        continue;
                    }
                    let term = pair[0]
                        .as_ref()
                        .and_then(|l| cfg.block_of_label(l))
                        .and_then(|b| cfg.block(b).terminator);
                    let Some(term) = term else { continue };
                    let c = m.insert_before(term, conv.clone());
                    m.set_operand(u, 2 * i + 1, Operand::Ref(c));
                }
            } else {
                let c = m.insert_before(u, conv);
                let n = m.op(u).operands.len();
                for i in 0..n {
                    if m.op(u).operands[i] == Operand::Ref(d) {
                        m.set_operand(u, i, Operand::Ref(c));
                    }
                }
            }
        }
    }
    for &d in &itofs {
        let x = Arith::of(m.op(d)).a().expect("operand");
        let fx = float_operand(m, &cands, x);
        if negz.contains(&x) {
            let zero = m.add(Op::new(OpCode::Constant, ScalarType::F32).lit(0));
            let new = Op::new(OpCode::FAdd, ScalarType::F32)
                .with_flags(OpFlags::PRECISE)
                .arg(fx)
                .arg(zero);
            m.rewrite(d, new);
        } else {
            crate::fold_util::replace_value(m, d, fx);
        }
        changed = true;
    }

    check(m, &ranges)?;
    Ok(changed)
}

/// Candidates (step 2 of the module docs).
fn candidates(m: &Module, ranges: &[R]) -> FxHashSet<SsaDef> {
    let mut set: FxHashSet<SsaDef> = m
        .code()
        .filter(|&d| {
            let op = m.op(d);
            let Some(t) = int_scalar(m, d) else {
                return false;
            };
            let exact = ranges[d.index()]
                .int()
                .is_some_and(|(lo, hi)| lo >= -EXACT && hi <= EXACT);
            let shape = matches!(
                op.opcode,
                OpCode::IAdd
                    | OpCode::ISub
                    | OpCode::IMul
                    | OpCode::INeg
                    | OpCode::IAbs
                    | OpCode::SMin
                    | OpCode::SMax
                    | OpCode::UMin
                    | OpCode::UMax
                    | OpCode::SClamp
                    | OpCode::UClamp
                    | OpCode::Select
                    | OpCode::Phi
                    | OpCode::ConvertFtoI
            ) || (op.opcode == OpCode::Cast
                && Arith::of(op)
                    .a()
                    .and_then(|x| int_scalar(m, x))
                    .is_some_and(|xt| xt.byte_size() == t.byte_size()));
            let as_t = match op.opcode {
                OpCode::SMin | OpCode::SMax | OpCode::SClamp => ScalarType::I32,
                OpCode::UMin | OpCode::UMax | OpCode::UClamp => ScalarType::U32,
                _ => t,
            };
            // Integer operands must mean the same under the op's reading (value-carrying
            // operands only; a select's condition is a bool, a phi's labels are not values).
            let operands_ok = value_operands(m, d).all(|x| match int_scalar(m, x) {
                Some(xt) => operand_range(m, ranges, x)
                    .and_then(|r| reinterpret(r, xt, as_t))
                    .is_some(),
                None => op.opcode == OpCode::ConvertFtoI,
            });
            shape && exact && operands_ok
        })
        .collect();
    loop {
        let drop: Vec<SsaDef> = set
            .iter()
            .copied()
            .filter(|&d| {
                m.op(d).opcode != OpCode::ConvertFtoI
                    && value_operands(m, d).any(|x| {
                        !set.contains(&x) && !small_constant(m, x) && !delivered_as_float(m, x)
                    })
            })
            .collect();
        if drop.is_empty() {
            return set;
        }
        for d in drop {
            set.remove(&d);
        }
    }
}

/// The operands of `d` that carry its value (not a select's condition or a phi's labels).
fn value_operands(m: &Module, d: SsaDef) -> impl Iterator<Item = SsaDef> + '_ {
    let op = m.op(d);
    let skip = |i: usize| match op.opcode {
        OpCode::Select => i == 0,
        OpCode::Phi => i.is_multiple_of(2),
        _ => false,
    };
    op.operands
        .iter()
        .enumerate()
        .filter(move |&(i, _)| !skip(i))
        .filter_map(|(_, o)| o.as_ref())
}

fn operand_range(m: &Module, ranges: &[R], x: SsaDef) -> Option<(i64, i64)> {
    match m.opcode(x) {
        OpCode::Constant | OpCode::Undef => int_range::constant_range(m, x).int(),
        _ => ranges.get(x.index())?.int(),
    }
}

/// An integer constant (or undef, which is zero) of magnitude ≤ 2^24.
fn small_constant(m: &Module, x: SsaDef) -> bool {
    matches!(m.opcode(x), OpCode::Constant | OpCode::Undef)
        && int_scalar(m, x).is_some()
        && int_range::constant_range(m, x)
            .int()
            .is_some_and(|(lo, hi)| lo >= -EXACT && hi <= EXACT)
}

fn float_comparison(op: OpCode) -> Option<OpCode> {
    Some(match op {
        OpCode::IEq => OpCode::FEq,
        OpCode::INe => OpCode::FNe,
        OpCode::SLt | OpCode::ULt => OpCode::FLt,
        OpCode::SLe | OpCode::ULe => OpCode::FLe,
        OpCode::SGt | OpCode::UGt => OpCode::FGt,
        OpCode::SGe | OpCode::UGe => OpCode::FGe,
        _ => return None,
    })
}

/// A scalar comparison whose operands are candidates or small constants, each meaning the
/// same under the comparison's signedness (and, for `IEq`/`INe`, under each other's type).
fn comparison_ok(m: &Module, ranges: &[R], cands: &FxHashSet<SsaDef>, d: SsaDef) -> bool {
    let op = m.op(d);
    let (Some(x), Some(y)) = (Arith::of(op).a(), Arith::of(op).b()) else {
        return false;
    };
    let (Some(xt), Some(yt)) = (int_scalar(m, x), int_scalar(m, y)) else {
        return false;
    };
    let usable = |v: SsaDef| cands.contains(&v) || small_constant(m, v) || delivered_as_float(m, v);
    if !usable(x) || !usable(y) {
        return false;
    }
    let ct = compare_type(op.opcode, xt);
    [(x, xt), (y, yt)].iter().all(|&(v, vt)| {
        operand_range(m, ranges, v)
            .and_then(|r| reinterpret(r, vt, ct))
            .is_some()
    })
}

/// A lane of a D3D9 integer constant register within the range D3D9 defines for it
/// ([`int_range::d3d9_int_constant_range`]): the targets without integers upload these
/// registers converted to float (the convention of `irc_backend::UniformSource`), so
/// `ConvertItoF` of the lane is the uniform as the machine holds it, exact in that range.
fn delivered_as_float(m: &Module, x: SsaDef) -> bool {
    int_range::d3d9_int_constant_lane(m, x)
        .and_then(int_range::d3d9_int_constant_range)
        .is_some()
}

/// The f32 operand standing for integer `x`: the candidate itself (rewritten in place), an
/// f32 constant of the same value, or `ConvertItoF` of a lane delivered as float.
fn float_operand(m: &mut Module, cands: &FxHashSet<SsaDef>, x: SsaDef) -> SsaDef {
    if cands.contains(&x) {
        return x;
    }
    if delivered_as_float(m, x) {
        return m.insert_after(x, Op::new(OpCode::ConvertItoF, ScalarType::F32).arg(x));
    }
    let v = int_range::constant_range(m, x).int().map_or(0, |r| r.0);
    m.add(Op::new(OpCode::Constant, ScalarType::F32).lit((v as f32).to_bits() as u64))
}

fn rewrite_candidate(m: &mut Module, cands: &FxHashSet<SsaDef>, d: SsaDef) {
    let op = m.op(d).clone();
    let fop = match op.opcode {
        OpCode::IAdd => OpCode::FAdd,
        OpCode::ISub => OpCode::FSub,
        OpCode::IMul => OpCode::FMul,
        OpCode::INeg => OpCode::FNeg,
        OpCode::IAbs => OpCode::FAbs,
        OpCode::SMin | OpCode::UMin => OpCode::FMin,
        OpCode::SMax | OpCode::UMax => OpCode::FMax,
        OpCode::SClamp | OpCode::UClamp => OpCode::FClamp,
        OpCode::ConvertFtoI => OpCode::FRound,
        o => o,
    };
    let arith = !matches!(fop, OpCode::Select | OpCode::Phi);
    let mut new = Op::new(fop, ScalarType::F32).with_flags(if arith {
        op.flags | OpFlags::PRECISE
    } else {
        op.flags
    });
    if op.opcode == OpCode::Cast {
        // Same value in both integer types: a float copy (`x + −0` is `x` for every `x`; not
        // `Precise`, so that `simplify` folds it away).
        let x = float_operand(m, cands, Arith::of(&op).a().expect("operand"));
        let neg_zero = m.add(Op::new(OpCode::Constant, ScalarType::F32).lit(0x8000_0000));
        m.rewrite(
            d,
            Op::new(OpCode::FAdd, ScalarType::F32)
                .with_flags(op.flags)
                .arg(x)
                .arg(neg_zero),
        );
        return;
    }
    if op.opcode == OpCode::ConvertFtoI {
        new = new
            .arg(Arith::of(&op).a().expect("operand"))
            .lit(u64::from(RoundMode::Zero.0));
        m.rewrite(d, new);
        return;
    }
    for (i, o) in op.operands.iter().enumerate() {
        let keep = match op.opcode {
            OpCode::Select => i == 0,
            OpCode::Phi => i % 2 == 0,
            _ => false,
        };
        new.operands.push(match (keep, *o) {
            (false, Operand::Ref(x)) => Operand::Ref(float_operand(m, cands, x)),
            (_, o) => o,
        });
    }
    m.rewrite(d, new);
}

/// Candidates whose float form may be −0 where the integer is 0.
fn maybe_negative_zero(m: &Module, ranges: &[R], cands: &FxHashSet<SsaDef>) -> FxHashSet<SsaDef> {
    let mut set = FxHashSet::default();
    loop {
        let mut changed = false;
        for &d in cands {
            if set.contains(&d) {
                continue;
            }
            let op = m.op(d);
            let may = |a: Option<SsaDef>| a.is_some_and(|x| set.contains(&x));
            let ar = Arith::try_of(op);
            let (a0, a1) = (ar.and_then(|x| x.a()), ar.and_then(|x| x.b()));
            let yes = match op.opcode {
                OpCode::IMul | OpCode::INeg => true,
                OpCode::ConvertFtoI => !matches!(
                    a0.map(|x| ranges[x.index()]),
                    Some(R::Float(lo, _)) if lo > 0.0
                ),
                OpCode::IAdd => may(a0) && may(a1),
                OpCode::ISub => may(a0),
                OpCode::IAbs => false,
                _ => value_operands(m, d).any(|x| set.contains(&x)),
            };
            if yes {
                set.insert(d);
                changed = true;
            }
        }
        if !changed {
            return set;
        }
    }
}

/// Relative-addressing indices (the D3D9 `mova` idiom): scalar 32-bit integer values made by
/// `ConvertFtoI` of a float, `IAdd` of such a value and an integer constant, or a `Cast` between
/// `i32` and `u32` of such a value, used only as load addresses or by each other. They stay
/// integer with their wrapping semantics; a backend that indexes with an address register
/// (PICA `mova` + `c[a0.x + k]`) reads them as "constant offset `k` plus the truncated float".
/// The greatest set closed under "every user is a load address or a member".
fn address_values(m: &Module) -> FxHashSet<SsaDef> {
    let int32 = |x: SsaDef| {
        matches!(
            m.ty(x).as_scalar(),
            Some(ScalarType::I32) | Some(ScalarType::U32)
        )
    };
    let mut set: FxHashSet<SsaDef> = m
        .code()
        .filter(|&d| {
            let op = m.op(d);
            int32(d)
                && match op.opcode {
                    OpCode::ConvertFtoI => Arith::of(op)
                        .a()
                        .is_some_and(|x| m.ty(x).as_scalar() == Some(ScalarType::F32)),
                    OpCode::IAdd => {
                        let (a, b) = (Arith::of(op).a(), Arith::of(op).b());
                        let k = |x: Option<SsaDef>| {
                            x.is_some_and(|x| m.opcode(x) == OpCode::Constant && int32(x))
                        };
                        k(a) != k(b) && a.is_some() && b.is_some()
                    }
                    OpCode::Cast => Arith::of(op).a().is_some_and(int32),
                    _ => false,
                }
        })
        .collect();
    loop {
        let bad: Vec<SsaDef> = set
            .iter()
            .copied()
            .filter(|&d| {
                let op = m.op(d);
                let operand_ok = match op.opcode {
                    OpCode::ConvertFtoI => true,
                    _ => op
                        .ref_defs()
                        .filter(|&x| m.opcode(x) != OpCode::Constant)
                        .all(|x| set.contains(&x)),
                };
                let users_ok = m.uses(d).iter().all(|&u| {
                    !m.is_live(u)
                        || m.opcode(u).is_meta()
                        || set.contains(&u)
                        || (matches!(
                            m.opcode(u),
                            OpCode::InputLoad | OpCode::BufferLoad | OpCode::ConstantLoad
                        ) && irc_ir::format::access(m.op(u))
                            .is_some_and(|a| a.address == Some(d) && a.base != Some(d)))
                });
                !(operand_ok && users_ok)
            })
            .collect();
        if bad.is_empty() {
            return set;
        }
        for d in bad {
            set.remove(&d);
        }
    }
}

/// Step 5: everything integer that is left must be interface (see the module docs) or a
/// relative-addressing index ([`address_values`]).
fn check(m: &Module, ranges: &[R]) -> Result<(), PassError> {
    let addresses = address_values(m);
    for d in m.code() {
        if addresses.contains(&d) {
            continue;
        }
        let op = m.op(d);
        let int_result = op.ty.is_basic_where(|t| t.is_int());
        let int_operand = op
            .ref_defs()
            .any(|x| m.is_live(x) && m.ty(x).is_basic_where(|t| t.is_int()));
        let unbounded = |what: &str| {
            let vals: Vec<String> = op
                .ref_defs()
                .filter(|&x| m.ty(x).is_basic_where(|t| t.is_int()))
                .map(|x| describe(m, ranges, x))
                .collect();
            format!("{what} ({})", vals.join(", "))
        };
        let reason = match op.opcode {
            OpCode::IAnd
            | OpCode::IOr
            | OpCode::IXor
            | OpCode::INot
            | OpCode::IShl
            | OpCode::SShr
            | OpCode::UShr
            | OpCode::IBitInsert
            | OpCode::UBitExtract
            | OpCode::SBitExtract
            | OpCode::IBitCount
            | OpCode::IBitReverse
            | OpCode::IFindLsb
            | OpCode::SFindMsb
            | OpCode::UFindMsb => Some(unbounded("bit operation")),
            OpCode::UDiv | OpCode::UMod | OpCode::UMSad => Some(unbounded("integer division")),
            OpCode::IAddCarry
            | OpCode::ISubBorrow
            | OpCode::SMulExtended
            | OpCode::UMulExtended => Some(unbounded("extended-precision integer arithmetic")),
            OpCode::IAdd
            | OpCode::ISub
            | OpCode::IMul
            | OpCode::INeg
            | OpCode::IAbs
            | OpCode::SMin
            | OpCode::SMax
            | OpCode::UMin
            | OpCode::UMax
            | OpCode::SClamp
            | OpCode::UClamp => Some(unbounded(
                "integer arithmetic not provably exact in f32 (|v| > 2^24, wraparound or vector)",
            )),
            o if o.is(Attrs::INT | Attrs::COMPARE) => {
                Some(unbounded("integer comparison of values not exact in f32"))
            }
            OpCode::ConvertItoF
                if op.ty.as_scalar() == Some(ScalarType::F32)
                    && Arith::of(op).a().is_some_and(|x| delivered_as_float(m, x)) =>
            {
                None
            }
            OpCode::ConvertItoF | OpCode::ConvertItoI => {
                Some(unbounded("conversion of an integer not exact in f32"))
            }
            OpCode::Cast if int_result || int_operand => {
                Some("bit reinterpretation of an integer".to_string())
            }
            OpCode::Phi | OpCode::Select if int_result => Some(unbounded(
                "integer phi/select of values not provably exact in f32",
            )),
            _ => None,
        };
        if let Some(reason) = reason {
            return Err(PassError::Unsupported {
                op: d,
                opcode: op.opcode,
                reason,
            });
        }
    }
    Ok(())
}

fn describe(m: &Module, ranges: &[R], x: SsaDef) -> String {
    match operand_range(m, ranges, x) {
        Some((lo, hi)) => format!("{x} in [{lo}, {hi}]"),
        None => format!("{x} = {} unbounded", m.opcode(x)),
    }
}

#[cfg(test)]
#[path = "int_to_float_tests.rs"]
mod tests;
