//! `unroll`: trip-count analysis and full unrolling of counted loops.
//!
//! **Shape.** The pass handles dxbc-spirv's loop shape (reference B.3): a header `H`
//! (`Label %merge %continue StructuredLoop`) holding only phis and `Branch %B`, entered from one
//! preheader `P` (earlier in program order, ending in `Branch %H`) and from the continue block
//! (`Branch %H`); the first body block `B` (no phis, `H` its only predecessor) ends in the exit
//! test `BranchConditional %c` between a break block `K` (`Label None; Branch %merge`, entered
//! only from `B`) and the rest of the body. The loop's blocks (the natural loop of the back
//! edge) must leave the loop only through `B → K`, the merge block must have `K` as its only
//! predecessor, and the blocks between `H` and the continue block in program order must all be
//! loop blocks or `K`. Loops with other exits (a `break` or `return` inside a nested `if`) are
//! not handled.
//!
//! **Trip count.** `%c` must compare a header phi `i` with a `Constant` (either side), with `i`
//! starting at a `Constant` from the preheader and its back-edge value being `i + s` or
//! `i - s` for a constant `s` (`IAdd`/`ISub` on 32-bit integers, `FAdd`/`FSub` on `f32`, floats
//! only with integral values below 2^24 so every step is exact). Comparisons: `IEq`, `INe`,
//! `SLt`…`SGe`, `ULt`…`UGe`, `FEq`…`FGe`. Two shapes of the frontend's raw form are looked
//! through: `ConsumeAs` between 32-bit scalar types (a bit-for-bit reinterpretation), and
//! DXBC's integer booleans, `INe (Select %c, ~0, 0), 0` (or `IEq`), which tests `%c` or its
//! negation. A "loop" whose continue block is unreachable (left only by `break`s, as HLSL
//! compilers emit for `switch`-like code) never repeats and is not handled. The pass simulates the counter with the interpreter's
//! wrapping 32-bit (or exact float) arithmetic until the test exits, up to [`MAX_TRIPS`]: the
//! trip count `n` is how often the rest of the body runs (the exit test runs `n + 1` times).
//!
//! **Cost model.** With `n` trips and `s` ops in the loop's blocks besides the header, full
//! unrolling adds about `n × s` ops. Targets without loops (`!caps.loops`, AGAL) unroll every
//! counted loop up to [`LOOPLESS_BUDGET`] ops; any loop left there is reported as
//! [`PassError::Unsupported`] naming its header with the reason (unknown trip count, other
//! exits, or the numbers when too large). Other targets unroll only when `n × s` is at most
//! [`UNROLL_BUDGET`] (straight-line code then folds and schedules freely; larger loops stay).
//!
//! **Unrolling.** Inner loops first (fewest blocks), one loop per CFG rebuild. For iteration
//! `k` the loop's blocks except the header are cloned before the header with fresh ids (two
//! phases: copy, then remap every operand through the clone map, so forward references —
//! branches, nested loops' back-edge phi values — resolve), with the header's phis mapped to
//! their values for iteration `k` (the preheader values for `k = 0`, then the previous clone's
//! back-edge values). Each clone of `B` branches straight to its rest of the body (its label
//! loses its selection construct), each clone of the continue block branches to the next
//! iteration's `B`. After the last iteration the original `B` runs once more as the final,
//! exiting evaluation of the test and branches to `K` unconditionally; the preheader branches
//! to the first clone. Remaining uses of the header phis (in `B`, after the loop) take the final
//! values; the header and the original body blocks are removed, and with them the construct.

use crate::caps::PassContext;
use crate::dce::remove_all;
use crate::PassError;
use irc_ir::analysis::{construct, functions, Block, Cfg, DomTree};
use irc_ir::format::{Arith, Branch, BranchConditional, Constant, Select};
use irc_ir::{Construct, EntityRef, Module, Op, OpCode, Operand, ScalarType, SsaDef, Type};
use rustc_hash::{FxHashMap, FxHashSet};

/// Why a "loop" whose continue block is unreachable (a block that is left by `break`s only,
/// as HLSL compilers emit for `switch`-like code) is not handled.
pub const NO_BACK_EDGE: &str =
    "the loop never repeats (its continue block is unreachable); breaks out of nested code are not handled";

/// Most trips the counter simulation follows.
pub const MAX_TRIPS: u32 = 4096;
/// Ops full unrolling may add on targets with loops.
pub const UNROLL_BUDGET: usize = 128;
/// Ops full unrolling may add per loop on targets without loops.
pub const LOOPLESS_BUDGET: usize = 16384;
/// Rounds (unrolled loops) per function.
const MAX_ROUNDS: usize = 4096;

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    let loopless = !cx.caps.loops;
    let mut changed = false;
    for f in functions(m) {
        if !f.body(m).any(|d| m.opcode(d) == OpCode::Label) {
            continue;
        }
        let mut failure: Option<(SsaDef, String)> = None;
        for _ in 0..MAX_ROUNDS {
            let cfg = Cfg::build(m, f);
            let dom = DomTree::compute(&cfg);
            let mut headers: Vec<(usize, Block)> = Vec::new();
            for b in cfg.blocks() {
                if dom.is_reachable(b)
                    && matches!(
                        construct(m, cfg.label(b)),
                        Some((Construct::StructuredLoop, _, _))
                    )
                {
                    headers.push((members(&cfg, &dom, b).len(), b));
                }
            }
            headers.sort();
            failure = None;
            let mut done = false;
            for &(_, h) in &headers {
                let plan = analyze(m, &cfg, &dom, h).and_then(|s| {
                    let trips = trip_count(m, &s)?;
                    Ok((s, trips))
                });
                let (shape, trips) = match plan {
                    Ok(p) => p,
                    Err(why) => {
                        failure.get_or_insert((cfg.label(h), why));
                        continue;
                    }
                };
                let total = trips as usize * shape.size;
                let budget = if loopless {
                    LOOPLESS_BUDGET
                } else {
                    UNROLL_BUDGET
                };
                if total > budget {
                    failure.get_or_insert((
                        cfg.label(h),
                        format!(
                            "{trips} trips × {} ops = {total} ops exceeds the unrolling budget \
                             of {budget} ops",
                            shape.size
                        ),
                    ));
                    continue;
                }
                unroll(m, &cfg, &shape, trips);
                remove_self_phis(m, f);
                done = true;
                break;
            }
            if !done {
                break;
            }
            changed = true;
        }
        if loopless {
            if let Some((op, why)) = failure {
                return Err(PassError::Unsupported {
                    op,
                    opcode: OpCode::Label,
                    reason: format!(
                        "target `{}` has no loops and this loop cannot be fully \
                         unrolled: {why}",
                        cx.caps.name
                    ),
                });
            }
        }
    }
    Ok(changed)
}

/// The trip count of every reachable loop of the module, or why it is unknown (statistics).
pub fn trip_counts(m: &Module) -> Vec<Result<u32, String>> {
    let mut out = Vec::new();
    for f in functions(m) {
        let cfg = Cfg::build(m, f);
        let dom = DomTree::compute(&cfg);
        for h in cfg.blocks() {
            if dom.is_reachable(h)
                && matches!(
                    construct(m, cfg.label(h)),
                    Some((Construct::StructuredLoop, _, _))
                )
            {
                out.push(analyze(m, &cfg, &dom, h).and_then(|s| trip_count(m, &s)));
            }
        }
    }
    out
}

/// The natural loop of `h`: `h` and every block reaching one of its back-edge sources
/// without passing through `h`.
fn members(cfg: &Cfg, dom: &DomTree, h: Block) -> FxHashSet<Block> {
    let mut set: FxHashSet<Block> = FxHashSet::default();
    set.insert(h);
    let mut work: Vec<Block> = cfg
        .preds(h)
        .iter()
        .copied()
        .filter(|&p| dom.is_reachable(p) && dom.dominates(h, p))
        .collect();
    while let Some(b) = work.pop() {
        if set.insert(b) {
            work.extend(
                cfg.preds(b)
                    .iter()
                    .copied()
                    .filter(|&p| dom.is_reachable(p)),
            );
        }
    }
    set
}

/// A loop in the handled shape.
struct Shape {
    header: Block,
    preheader: Block,
    /// First body block (the exit test) and the break block.
    body: Block,
    brk: Block,
    /// The rest-of-body target of the exit test.
    rest: SsaDef,
    /// Whether the test exits when the condition is true.
    exit_when: bool,
    cond: SsaDef,
    /// Header phis with their preheader and back-edge values.
    phis: Vec<(SsaDef, SsaDef, SsaDef)>,
    /// The loop's blocks except the header, in program order.
    blocks: Vec<Block>,
    /// Ops in `blocks`.
    size: usize,
}

fn analyze(m: &Module, cfg: &Cfg, dom: &DomTree, h: Block) -> Result<Shape, String> {
    let hl = cfg.label(h);
    let Some((Construct::StructuredLoop, Some(merge_l), Some(cont_l))) = construct(m, hl) else {
        return Err("malformed loop header".into());
    };
    let (Some(merge), Some(cont)) = (cfg.block_of_label(merge_l), cfg.block_of_label(cont_l))
    else {
        return Err("merge or continue block missing".into());
    };
    let hops = cfg.ops(h);
    let Some(&hterm) = hops.last().filter(|&&t| m.opcode(t) == OpCode::Branch) else {
        return Err("the header does not end in a Branch".into());
    };
    if hops[1..hops.len() - 1]
        .iter()
        .any(|&d| m.opcode(d) != OpCode::Phi)
    {
        return Err("the header holds other ops than phis".into());
    }
    let preds = cfg.preds(h);
    let Some(&preheader) = preds.iter().find(|&&p| p != cont) else {
        return Err("no preheader".into());
    };
    if preds.len() != 2 || !preds.contains(&cont) {
        return Err(
            "the header is entered from more than a preheader and the continue block".into(),
        );
    }
    let pterm = cfg.block(preheader).terminator;
    if cfg.succs(preheader) != [h]
        || pterm.is_none_or(|t| m.opcode(t) != OpCode::Branch)
        || !m.precedes(cfg.label(preheader), hl)
    {
        return Err("no preheader ending in Branch before the header".into());
    }
    if cfg.succs(cont) != [h]
        || cfg
            .block(cont)
            .terminator
            .is_none_or(|t| m.opcode(t) != OpCode::Branch)
    {
        return Err("the continue block does not branch back to the header".into());
    }
    let set = members(cfg, dom, h);
    if !set.contains(&cont) {
        return Err(NO_BACK_EDGE.into());
    }
    let Some(body) = Branch::of(m.op(hterm))
        .target()
        .and_then(|l| cfg.block_of_label(l))
    else {
        return Err("the header branches nowhere".into());
    };
    let bops = cfg.ops(body);
    let Some(&bterm) = bops
        .last()
        .filter(|&&t| m.opcode(t) == OpCode::BranchConditional)
    else {
        return Err("the first body block does not end in the exit test".into());
    };
    if cfg.preds(body) != [h]
        || bops.iter().any(|&d| m.opcode(d) == OpCode::Phi)
        || !matches!(
            construct(m, cfg.label(body)),
            Some((Construct::None | Construct::StructuredSelection, _, _))
        )
    {
        return Err("the first body block is not a plain exit test".into());
    }
    let top = BranchConditional::of(m.op(bterm));
    let (Some(cond), Some(x), Some(y)) = (top.cond(), top.if_true(), top.if_false()) else {
        return Err("malformed exit test".into());
    };
    let is_break = |l: SsaDef| {
        cfg.block_of_label(l).filter(|&k| {
            let ops = cfg.ops(k);
            !set.contains(&k)
                && ops.len() == 2
                && cfg.preds(k) == [body]
                && cfg.succs(k) == [merge]
                && m.opcode(ops[1]) == OpCode::Branch
                && matches!(construct(m, l), Some((Construct::None, _, _)))
        })
    };
    let (brk, rest, exit_when) = match (is_break(x), is_break(y)) {
        (Some(k), None) => (k, y, true),
        (None, Some(k)) => (k, x, false),
        _ => return Err("the first body block does not test for a plain break".into()),
    };
    if cfg.block_of_label(rest).is_none_or(|r| !set.contains(&r)) {
        return Err("the exit test's other target is not in the loop".into());
    }
    for &b in &set {
        for &s in cfg.succs(b) {
            let leaves_by_break = b == body && s == brk;
            if !set.contains(&s) && !leaves_by_break {
                return Err("the loop has other exits (a break or return inside the body)".into());
            }
        }
    }
    if cfg.preds(merge) != [brk] {
        return Err("the merge block is entered from elsewhere".into());
    }
    let (hi, ci) = (h.index(), cont.index());
    if ci < hi {
        return Err("the continue block precedes the header".into());
    }
    let mut blocks = Vec::new();
    for i in hi + 1..=ci {
        let b = Block::new(i);
        if set.contains(&b) {
            blocks.push(b);
        } else if b != brk {
            return Err(
                "blocks of other code sit between the header and the continue block".into(),
            );
        }
    }
    if blocks.len() + 1 != set.len() {
        return Err("loop blocks outside the range from the header to the continue block".into());
    }
    let size = blocks.iter().map(|&b| cfg.ops(b).len()).sum();
    let (pl, cl) = (cfg.label(preheader), cfg.label(cont));
    let mut phis = Vec::new();
    for &d in &hops[1..hops.len() - 1] {
        let op = m.op(d);
        let val = |l: SsaDef| {
            (0..op.operands.len() / 2)
                .find(|&i| op.operand_def(2 * i) == Some(l))
                .and_then(|i| op.operand_def(2 * i + 1))
        };
        let (Some(a), Some(b)) = (val(pl), val(cl)) else {
            return Err("a header phi without both incoming values".into());
        };
        phis.push((d, a, b));
    }
    Ok(Shape {
        header: h,
        preheader,
        body,
        brk,
        rest,
        exit_when,
        cond,
        phis,
        blocks,
        size,
    })
}

/// A counter value during the simulation.
#[derive(Clone, Copy)]
enum Num {
    Int(u32),
    Float(f32),
}

fn constant(m: &Module, d: SsaDef, float: bool) -> Option<Num> {
    let op = m.op(d);
    if op.opcode != OpCode::Constant || op.operands.len() != 1 {
        return None;
    }
    let bits = Constant::of(op).scalar(0)? as u32;
    Some(if float {
        Num::Float(f32::from_bits(bits))
    } else {
        Num::Int(bits)
    })
}

/// DXBC tests booleans as integers: `breakc_nz` of `ige` becomes
/// `INe (Select %c, ~0, 0), 0`. Looks through such `IEq`/`INe` of a `Select` between two
/// constants against a constant (through `ConsumeAs`), to the boolean `%c` it depends on:
/// returns the innermost condition and whether it is negated.
fn through_select(m: &Module, mut d: SsaDef) -> (SsaDef, bool) {
    let mut negate = false;
    for _ in 0..8 {
        let op = m.op(d);
        if !matches!(op.opcode, OpCode::IEq | OpCode::INe) {
            break;
        }
        let (Some(a), Some(b)) = (Arith::of(op).a(), Arith::of(op).b()) else {
            break;
        };
        let (a, b) = (strip(m, a), strip(m, b));
        let (sel, k) = if m.opcode(a) == OpCode::Select {
            (a, b)
        } else {
            (b, a)
        };
        let Some(sop) = Select::try_of(m.op(sel)) else {
            break;
        };
        let lit = |x: Option<SsaDef>| {
            x.map(|x| strip(m, x))
                .filter(|&x| m.opcode(x) == OpCode::Constant && m.op(x).operands.len() == 1)
                .and_then(|x| Constant::of(m.op(x)).scalar(0))
        };
        let (Some(kv), Some(tv), Some(fv), Some(c)) = (
            lit(Some(k)),
            lit(sop.if_true()),
            lit(sop.if_false()),
            sop.cond(),
        ) else {
            break;
        };
        let ne = op.opcode == OpCode::INe;
        let (vt, vf) = ((tv != kv) == ne, (fv != kv) == ne);
        if vt == vf {
            break;
        }
        negate ^= !vt;
        d = c;
    }
    (d, negate)
}

/// True for the 32-bit scalar types `ConsumeAs` reinterprets bit for bit.
fn is_word(t: &Type) -> bool {
    matches!(
        t.as_scalar(),
        Some(ScalarType::Unknown | ScalarType::I32 | ScalarType::U32 | ScalarType::F32)
    )
}

/// Looks through `ConsumeAs` between 32-bit scalar types (a bit-for-bit reinterpretation in
/// the frontend's raw form).
fn strip(m: &Module, mut d: SsaDef) -> SsaDef {
    while m.opcode(d) == OpCode::ConsumeAs && is_word(m.ty(d)) {
        match Arith::of(m.op(d)).a() {
            Some(s) if is_word(m.ty(s)) => d = s,
            _ => break,
        }
    }
    d
}

/// Simulates the counter of the exit test; the number of completed iterations.
fn trip_count(m: &Module, s: &Shape) -> Result<u32, String> {
    let unknown = |why: &str| Err(format!("unknown trip count: {why}"));
    let (cond, negate) = through_select(m, s.cond);
    let exit_when = s.exit_when != negate;
    let c = m.op(cond);
    let cmp = c.opcode;
    use OpCode::*;
    let float = match cmp {
        IEq | INe | SLt | SLe | SGt | SGe | ULt | ULe | UGt | UGe => false,
        FEq | FNe | FLt | FLe | FGt | FGe => true,
        _ => return unknown("the exit test is not a comparison"),
    };
    let (Some(a), Some(b)) = (Arith::of(c).a(), Arith::of(c).b()) else {
        return unknown("malformed comparison");
    };
    let (a, b) = (strip(m, a), strip(m, b));
    let phi_of = |d: SsaDef| s.phis.iter().find(|p| p.0 == d).copied();
    let (phi, limit, counter_left) = match (phi_of(a), phi_of(b)) {
        (Some(p), None) => (p, b, true),
        (None, Some(p)) => (p, a, false),
        _ => return unknown("the comparison does not test one header phi"),
    };
    let want = if float {
        ScalarType::F32
    } else {
        ScalarType::U32
    };
    let st = m.ty(phi.0).as_scalar();
    let ok_ty = match st {
        Some(ScalarType::F32) => float,
        Some(ScalarType::I32 | ScalarType::U32) => !float,
        Some(ScalarType::Unknown) => true,
        _ => false,
    };
    if !ok_ty || m.ty(limit).as_scalar().is_none() {
        return unknown(&format!("the counter is not {want:?}-sized"));
    }
    let (Some(init), Some(lim)) = (
        constant(m, strip(m, phi.1), float),
        constant(m, limit, float),
    ) else {
        return unknown("the counter's start or limit is not a constant");
    };
    let next = m.op(strip(m, phi.2));
    // Only the add and subtract ops (all `Arith`) match below.
    let step_operands = Arith::try_of(next);
    let (x, y) = (
        step_operands.and_then(|s| s.a()).map(|d| strip(m, d)),
        step_operands.and_then(|s| s.b()).map(|d| strip(m, d)),
    );
    let (sub, step) = match (next.opcode, x, y) {
        (IAdd | FAdd, Some(x), Some(y)) if x == phi.0 => (false, y),
        (IAdd | FAdd, Some(x), Some(y)) if y == phi.0 => (false, x),
        (ISub | FSub, Some(x), Some(y)) if x == phi.0 => (true, y),
        _ => return unknown("the counter is not stepped by a constant add or subtract"),
    };
    if matches!(next.opcode, FAdd | FSub) != float {
        return unknown("the counter's step has the wrong type");
    }
    let Some(step) = constant(m, strip(m, step), float) else {
        return unknown("the counter's step is not a constant");
    };
    const EXACT: f32 = 16_777_216.0;
    let exact = |v: Num| match v {
        Num::Float(f) => f.fract() == 0.0 && f.abs() < EXACT,
        Num::Int(_) => true,
    };
    if !exact(init) || !exact(step) || !exact(lim) {
        return unknown("a float counter with non-integral or huge values");
    }
    let mut i = init;
    for trips in 0..=MAX_TRIPS {
        let (l, r) = if counter_left { (i, lim) } else { (lim, i) };
        let v = match (l, r) {
            (Num::Int(l), Num::Int(r)) => match cmp {
                IEq => l == r,
                INe => l != r,
                SLt => (l as i32) < (r as i32),
                SLe => (l as i32) <= (r as i32),
                SGt => (l as i32) > (r as i32),
                SGe => (l as i32) >= (r as i32),
                ULt => l < r,
                ULe => l <= r,
                UGt => l > r,
                _ => l >= r,
            },
            (Num::Float(l), Num::Float(r)) => match cmp {
                FEq => l == r,
                FNe => l != r,
                FLt => l < r,
                FLe => l <= r,
                FGt => l > r,
                _ => l >= r,
            },
            _ => return unknown("mixed counter types"),
        };
        if v == exit_when {
            return Ok(trips);
        }
        i = match (i, step) {
            (Num::Int(a), Num::Int(b)) => Num::Int(if sub {
                a.wrapping_sub(b)
            } else {
                a.wrapping_add(b)
            }),
            (Num::Float(a), Num::Float(b)) => Num::Float(if sub { a - b } else { a + b }),
            _ => return unknown("mixed counter types"),
        };
        if !exact(i) {
            return unknown("the float counter leaves the exactly representable range");
        }
    }
    Err(format!(
        "the exit test does not exit within {MAX_TRIPS} iterations"
    ))
}

/// An enclosing loop's phi whose back-edge value was a header phi of the unrolled loop that
/// passed its value through unchanged now names itself, which the IR cannot encode: such a phi
/// whose other incoming values are all one value is replaced by that value, to a fixed point.
fn remove_self_phis(m: &mut Module, f: irc_ir::analysis::FunctionRange) {
    loop {
        let mut found = None;
        for d in f.body(m) {
            if m.opcode(d) != OpCode::Phi {
                continue;
            }
            let op = m.op(d);
            let vals: Vec<SsaDef> = (0..op.operands.len() / 2)
                .filter_map(|i| op.operand_def(2 * i + 1))
                .collect();
            if !vals.contains(&d) {
                continue;
            }
            let mut others = vals.iter().copied().filter(|&v| v != d);
            if let Some(v) = others.next() {
                if others.all(|o| o == v) {
                    found = Some((d, v));
                    break;
                }
            }
        }
        let Some((d, v)) = found else { return };
        m.replace_all_uses(d, v);
        m.remove(d);
    }
}

fn label_none() -> Op {
    Op::new(OpCode::Label, Type::void()).lit(Construct::None.to_u64())
}

fn branch(to: SsaDef) -> Op {
    Op::new(OpCode::Branch, Type::void()).arg(to)
}

/// Fully unrolls the loop `s` with `trips` iterations (see the module docs).
fn unroll(m: &mut Module, cfg: &Cfg, s: &Shape, trips: u32) {
    let anchor = cfg.label(s.header);
    let body_label = cfg.label(s.body);
    let cont = *s.blocks.last().expect("the continue block");
    let ops: Vec<SsaDef> = s
        .blocks
        .iter()
        .flat_map(|&b| cfg.ops(b).iter().copied())
        .collect();
    let mut vals: Vec<SsaDef> = s.phis.iter().map(|p| p.1).collect();
    let mut first: Option<SsaDef> = None;
    let mut pending: Option<SsaDef> = None;
    let mut map: FxHashMap<SsaDef, SsaDef> = FxHashMap::default();
    for _ in 0..trips {
        map.clear();
        for (p, &v) in s.phis.iter().zip(&vals) {
            map.insert(p.0, v);
        }
        let mut clones = Vec::with_capacity(ops.len());
        for &d in &ops {
            let c = m.insert_before(anchor, m.op(d).clone());
            map.insert(d, c);
            clones.push(c);
        }
        for &c in &clones {
            let n = m.op(c).first_literal();
            for i in 0..n {
                if let Operand::Ref(r) = m.op(c).operands[i] {
                    if let Some(&r2) = map.get(&r) {
                        m.set_operand(c, i, Operand::Ref(r2));
                    }
                }
            }
        }
        let b_clone = map[&body_label];
        m.rewrite(b_clone, label_none());
        let bterm = cfg.block(s.body).terminator.expect("exit test");
        m.rewrite(map[&bterm], branch(map[&s.rest]));
        if let Some(p) = pending {
            m.rewrite(p, branch(b_clone));
        }
        first.get_or_insert(b_clone);
        pending = Some(map[&cfg.block(cont).terminator.expect("back edge")]);
        vals = s
            .phis
            .iter()
            .map(|p| map.get(&p.2).copied().unwrap_or(p.2))
            .collect();
    }
    if let Some(p) = pending {
        m.rewrite(p, branch(body_label));
    }
    let pterm = cfg.block(s.preheader).terminator.expect("preheader branch");
    m.rewrite(pterm, branch(first.unwrap_or(body_label)));
    for (p, &v) in s.phis.iter().zip(&vals) {
        m.replace_all_uses(p.0, v);
    }
    let bterm = cfg.block(s.body).terminator.expect("exit test");
    m.rewrite(bterm, branch(cfg.label(s.brk)));
    m.rewrite(body_label, label_none());
    let mut dead: Vec<SsaDef> = cfg.ops(s.header).to_vec();
    for &b in &s.blocks {
        if b != s.body {
            dead.extend(cfg.ops(b).iter().copied());
        }
    }
    remove_all(m, &dead);
}
