//! Dot-product recognition (step 2 of [`super`]).
//!
//! **Chains.** A *step* is `FMad x y acc`, or `FAdd` of `acc` and a single-use `FMul x y` (in
//! either order), or — the first step — `FMul x y`; all of one scalar float type, in this
//! block. Walking down from a step whose result is not the accumulator of another step, through
//! accumulators that are steps used only by the step above, gives the terms `(x0, y0) …
//! (xk−1, yk−1)` in evaluation order and either nothing below (the chain starts with a product)
//! or an initial accumulator `c`. The interpreter (`irc_arith::float::dot`) evaluates
//! `FDot(a, b)` as `p0 = round(a0·b0)`, then `acc = round(acc + round(ai·bi))`, and `FDotAdd(a,
//! b, c)` the same starting from `acc = c`; `FMad` is `round(round(x·y) + acc)` and `FAdd` of a
//! rounded product the same sum, so the chain *is* the dot product of `(x0…)` and `(y0…)`,
//! bit for bit, whatever the flags say. The legacy family (`FMulLegacy`, `FMadLegacy` →
//! `FDotLegacy`, `FDotAddLegacy`) uses the D3D9 product in both.
//!
//! **Pieces.** The terms are cut, in order, into dot products of up to four terms — the first
//! `FDot` (or `FDotAdd` from `c`), the following ones `FDotAdd` of the previous piece — and
//! single multiply-add steps, wherever that is cheapest ([`cut`]: dynamic programming over
//! the terms). Since products commute exactly (`round(x·y) = round(y·x)`, also for the D3D9
//! product), each term may put either factor into either vector: the assignment with the
//! cheapest gathers is taken.
//!
//! **Profit.** Per target family, a dot product needs a minimum number of terms
//! ([`min_terms`]): four on Lima, whose PP is VLIW (its scalar multiply and add units
//! co-issue a short chain, while `sum3`/`sum4` first need the product vector in a register:
//! on the `lima-fp` corpus, recognizing vec2 and vec3 dots made the code about 5% longer,
//! through spills, and vec4 dots came out about even), three on PICA and AGAL (single
//! DP3/DP4 instructions, no two-component dot), two elsewhere. A dot product costs one
//! instruction plus the moves its gathers need (see [`super::lanes`]), a single step one;
//! the chain is rewritten only if that is less than its instructions now (steps and separate
//! products). The flags of the new ops: `precise` and
//! `invariant` if any op of the chain had them, the fast-math flags only if all had them.

use super::lanes::{Gather, Lanes};
use super::{only_use, BlockCx, Stats};
use crate::caps::{PassContext, TargetCaps};
use crate::fold_util::{remove_dead, replace_value};
use irc_ir::format::Arith;
use irc_ir::{Module, Op, OpCode, OpFlags, SsaDef, Type};
use smallvec::SmallVec;

/// The opcodes of one kind of product.
struct Family {
    mul: OpCode,
    mad: OpCode,
    dot: OpCode,
    dot_add: OpCode,
}

const FAMILIES: [Family; 2] = [
    Family {
        mul: OpCode::FMul,
        mad: OpCode::FMad,
        dot: OpCode::FDot,
        dot_add: OpCode::FDotAdd,
    },
    Family {
        mul: OpCode::FMulLegacy,
        mad: OpCode::FMadLegacy,
        dot: OpCode::FDotLegacy,
        dot_add: OpCode::FDotAddLegacy,
    },
];

/// Most terms of one dot product (vec4).
const MAX_TERMS: usize = 4;

/// Fewest terms a dot product must have to pay on the target (module docs;
/// [`TargetCaps::min_dot_terms`]).
pub(crate) fn min_terms(caps: &TargetCaps) -> usize {
    usize::from(caps.min_dot_terms)
}

/// One step of a chain: the product `x·y`, the accumulator it adds to, and the ops it is
/// made of (the step, and its separate `FMul` for an `FAdd` step).
struct Step {
    x: SsaDef,
    y: SsaDef,
    acc: Option<SsaDef>,
    ops: SmallVec<[SsaDef; 2]>,
}

fn step(m: &Module, bcx: &BlockCx, fam: &Family, d: SsaDef, ty: &Type) -> Option<Step> {
    let op = m.op(d);
    if &op.ty != ty || !bcx.contains(m, d) {
        return None;
    }
    if op.opcode == fam.mul {
        let mul = Arith::of(op);
        return Some(Step {
            x: mul.a()?,
            y: mul.b()?,
            acc: None,
            ops: smallvec::smallvec![d],
        });
    }
    if op.opcode == fam.mad {
        let mad = Arith::of(op);
        return Some(Step {
            x: mad.a()?,
            y: mad.b()?,
            acc: Some(mad.c()?),
            ops: smallvec::smallvec![d],
        });
    }
    if op.opcode != OpCode::FAdd {
        return None;
    }
    let (a, b) = (Arith::of(op).a()?, Arith::of(op).b()?);
    // Prefer the product on the right, so that a chain continues through the left operand.
    for (p, acc) in [(b, a), (a, b)] {
        let po = m.op(p);
        if po.opcode == fam.mul && &po.ty == ty && only_use(m, p) == Some(d) && bcx.contains(m, p) {
            return Some(Step {
                x: Arith::of(po).a()?,
                y: Arith::of(po).b()?,
                acc: Some(acc),
                ops: smallvec::smallvec![d, p],
            });
        }
    }
    None
}

/// A whole chain, terms in evaluation order.
struct Chain {
    terms: Vec<(SsaDef, SsaDef)>,
    init: Option<SsaDef>,
    ops: Vec<SsaDef>,
}

fn chain(m: &Module, bcx: &BlockCx, fam: &Family, top: SsaDef) -> Option<Chain> {
    let ty = m.ty(top).clone();
    let t = ty.as_scalar()?;
    if !t.is_float() || !super::lanes::vectorizable_scalar(t) {
        return None;
    }
    let mut c = Chain {
        terms: Vec::new(),
        init: None,
        ops: Vec::new(),
    };
    let mut cur = top;
    loop {
        let s = step(m, bcx, fam, cur, &ty)?;
        c.terms.push((s.x, s.y));
        c.ops.extend(s.ops);
        match s.acc {
            None => break,
            Some(a) if only_use(m, a) == Some(cur) && step(m, bcx, fam, a, &ty).is_some() => {
                cur = a
            }
            Some(a) => {
                c.init = Some(a);
                break;
            }
        }
    }
    c.terms.reverse();
    Some(c)
}

/// How one piece of the chain is rewritten.
enum Piece {
    /// `dot`/`dot_add` of these terms: the two vectors (factors assigned) and the moves their
    /// gathers cost.
    Dot(Box<(Gather, Gather, u32)>),
    /// One multiply(-add) step.
    Single(SsaDef, SsaDef),
}

/// The cheapest assignment of factors to the two vectors for `terms`, with its cost.
fn best_gathers(m: &Module, terms: &[(SsaDef, SsaDef)]) -> Option<(Gather, Gather, u32)> {
    let mut best: Option<(Gather, Gather, u32)> = None;
    for mask in 0..(1u32 << terms.len()) {
        let (mut a, mut b) = (Lanes::new(), Lanes::new());
        for (i, &(x, y)) in terms.iter().enumerate() {
            let (p, q) = if mask >> i & 1 == 0 { (x, y) } else { (y, x) };
            a.push(p);
            b.push(q);
        }
        let (ga, ca) = Gather::of(m, &a)?;
        let (gb, cb) = Gather::of(m, &b)?;
        if best.as_ref().is_none_or(|(_, _, c)| ca + cb < *c) {
            best = Some((ga, gb, ca + cb));
            if ca + cb == 0 {
                break;
            }
        }
    }
    best
}

/// Recognizes the dot products of one block (module docs).
pub(super) fn run_block(m: &mut Module, cx: &PassContext, bcx: &mut BlockCx, stats: &mut Stats) {
    for fam in &FAMILIES {
        if !cx.caps.is_native(fam.dot) && !cx.caps.is_native(fam.dot_add) {
            continue;
        }
        let ops = bcx.ops(m);
        let mut seen = rustc_hash::FxHashSet::default();
        for &top in ops.iter().rev() {
            if !m.is_live(top) || seen.contains(&top) {
                continue;
            }
            let Some(c) = chain(m, bcx, fam, top) else {
                continue;
            };
            seen.extend(c.ops.iter().copied());
            rewrite(m, cx, bcx, fam, top, &c, stats);
        }
    }
}

/// The cheapest cut of the chain into pieces (module docs), by dynamic programming over the
/// terms: each position either starts a dot product of `min_terms` to four terms (if native)
/// or is a single step. Ties go to fewer ops, then to a dot product as early as possible.
fn cut(m: &Module, cx: &PassContext, fam: &Family, c: &Chain) -> Vec<(Piece, usize)> {
    let n = c.terms.len();
    let min = min_terms(&cx.caps).max(2);
    // best[i]: (cost, ops, piece size at i, gathers) of covering terms i.. .
    type Best = (u32, u32, usize, Option<(Gather, Gather, u32)>);
    let mut best: Vec<Best> = vec![(0, 0, 0, None); n + 1];
    for i in (0..n).rev() {
        let (c1, o1, _, _) = best[i + 1];
        let mut here = (c1 + 1, o1 + 1, 1, None);
        let opcode = if i == 0 && c.init.is_none() {
            fam.dot
        } else {
            fam.dot_add
        };
        if cx.caps.is_native(opcode) {
            for size in min..=MAX_TERMS.min(n - i) {
                let Some((a, b, g)) = best_gathers(m, &c.terms[i..i + size]) else {
                    continue;
                };
                let (cr, or, _, _) = best[i + size];
                if (cr + 1 + g, or + 1) <= (here.0, here.1) {
                    here = (cr + 1 + g, or + 1, size, Some((a, b, g)));
                }
            }
        }
        best[i] = here;
    }
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < n {
        let (_, _, size, gathers) = std::mem::take(&mut best[i]);
        match gathers {
            Some(g) => pieces.push((Piece::Dot(Box::new(g)), size)),
            None => pieces.push((Piece::Single(c.terms[i].0, c.terms[i].1), 1)),
        }
        i += size;
    }
    pieces
}

fn rewrite(
    m: &mut Module,
    cx: &PassContext,
    bcx: &mut BlockCx,
    fam: &Family,
    top: SsaDef,
    c: &Chain,
    stats: &mut Stats,
) {
    let pieces = cut(m, cx, fam, c);
    let dots = pieces
        .iter()
        .filter(|(p, _)| matches!(p, Piece::Dot(..)))
        .count();
    let cost: u32 = pieces
        .iter()
        .map(|(p, _)| match p {
            Piece::Dot(g) => 1 + g.2,
            Piece::Single(..) => 1,
        })
        .sum();
    if dots == 0 || cost >= c.ops.len() as u32 {
        return;
    }
    let flags = chain_flags(m, &c.ops);
    let ty = m.ty(top).clone();
    let mut acc = c.init;
    for (piece, n) in pieces {
        let op = match piece {
            Piece::Dot(gathers) => {
                let (a, b, _) = *gathers;
                let a = a.emit(m, bcx, top);
                let b = b.emit(m, bcx, top);
                stats.dots += 1;
                stats.dot_terms += n;
                let opcode = if acc.is_some() { fam.dot_add } else { fam.dot };
                Op::new(opcode, ty.clone()).arg(a).arg(b)
            }
            Piece::Single(x, y) => {
                let opcode = if acc.is_some() { fam.mad } else { fam.mul };
                Op::new(opcode, ty.clone()).arg(x).arg(y)
            }
        };
        let op = match acc {
            Some(a) => op.arg(a),
            None => op,
        };
        acc = Some(bcx.insert(m, top, op.with_flags(flags)));
    }
    replace_value(m, top, acc.expect("a chain has terms"));
    remove_dead(m, c.ops.iter().copied().filter(|&d| d != top));
}

/// `precise` and `invariant` if any op has them; `nonan`, `noinf`, `nosz` if all have them.
fn chain_flags(m: &Module, ops: &[SsaDef]) -> OpFlags {
    const ANY: u8 = OpFlags::PRECISE.0 | OpFlags::INVARIANT.0;
    const ALL: u8 = OpFlags::NO_NAN.0 | OpFlags::NO_INF.0 | OpFlags::NO_SZ.0;
    let mut any = 0u8;
    let mut all = ALL;
    for &d in ops {
        let f = m.op(d).flags.0;
        any |= f & ANY;
        all &= f;
    }
    OpFlags(any | all)
}
