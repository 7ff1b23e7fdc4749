//! `vectorize`: regroups scalar ops into vec2/3/4 ops and recognizes dot products, for the
//! vec4 targets (Lima, PICA200, AGAL), whose every instruction costs the same for one
//! component or four.
//!
//! Legalized IR is largely scalar: a vector computation arrives as lanes
//! `x0·y0, x1·y1, x2·y2` whose operands are `CompositeExtract`s of one vector and whose
//! results are put back together by a `CompositeConstruct` or stored component by component.
//! The IR has no swizzle op; a swizzle is a `CompositeConstruct` of extracts of one vector
//! (the backends read it as a source swizzle), a broadcast a construct of one scalar repeated.
//! The pass works on one basic block at a time, in four steps.
//!
//! 1. **Store merging.** The component stores `OutputStore out c v_c` of a vector output,
//!    c = 0…n−1 each exactly once in the block, with no load of that output, no other store
//!    to it, no emit and no call between the first and the last, become one
//!    `OutputStore out null (CompositeConstruct v_0 … v_n−1)` at the place of the last one
//!    (the interpreter writes outputs as the stores come, and nothing reads them between).
//!    The construct then seeds step 3.
//! 2. **Dot products** (`vectorize/dot.rs`). A chain `acc = x0·y0`, `acc = xi·yi + acc` — an `FMul`
//!    followed by `FMad`s, or `FAdd`s of a single-use `FMul` and the chain — is exactly how
//!    the interpreter evaluates `FDot((x0…), (y0…))`: every product rounded, the sum taken
//!    left to right, each step rounded (`FMad` is unfused: `round(round(x·y) + acc)`). The
//!    chain becomes `FDot` (and `FDotAdd` when it starts from another value), so the rewrite is
//!    bit-exact and is also done on `precise` chains: nothing is reassociated. Only where the
//!    target executes the dot natively (`ctx.caps.is_native`); the D3D9 variants (`FMulLegacy`
//!    / `FMadLegacy` chains → `FDotLegacy`, `FDotAddLegacy`) likewise.
//! 3. **SLP regrouping** (`vectorize/slp.rs`). Seeds are the parts of a `CompositeConstruct`
//!    and the values of the component stores of one output: those that are *isomorphic* (same
//!    opcode, result type, flags and literals, a pure lane-wise op, see the `LANEWISE` class of the opcode table,
//!    all in this block) form a group whose lane order is the construct's or the component
//!    order. Isomorphic ops that read different lanes of one vector seed groups too, in lane
//!    order; seeding is repeated while it finds something, since each vector op turns the
//!    operands of the next level of scalar ops into lanes of a vector.
//!    From a group the tree grows to its operands: the i-th operands of the members form the
//!    lanes of the vector operand, which is again a group if isomorphic, or else a *gather*: a
//!    whole existing vector (extracts of lanes 0…n−1 in order), a swizzle, a broadcast, a
//!    vector constant, or a construct of unrelated scalars (see `vectorize/lanes.rs`). Each group
//!    becomes one vector op placed right after the last in-block definition its operands need;
//!    members that still have scalar users give them a `CompositeExtract` of the vector. A
//!    tree is built only when it pays on a vec4 machine: every group saves `lanes − 1`
//!    instructions and a gather that is not a swizzle, broadcast or constant costs a move per
//!    source, except for scalars computed by an op (it can write its lane directly). Subtrees
//!    that do not pay, or whose members have scalar users placed too early for the vector op,
//!    stay scalar (their lanes are gathered instead).
//! 4. **Identity constructs.** `CompositeConstruct (CompositeExtract v 0) … (… v n−1)` of the
//!    whole of an n-vector `v` is `v` (most constructs the steps above leave behind), and a
//!    construct of the component loads `InputLoad x 0 … n−1` of an n-vector input is
//!    `InputLoad x null`. This runs before the other steps too, so that they see whole vectors.
//!
//! Everything the pass creates computes each lane exactly as the scalar op did (the
//! interpreter evaluates vector ops component by component with the same function; a unit
//! test checks this for every opcode of the lane-wise table), so the members of a group need
//! equal flags and nothing else, `precise` included. Ops the pass made unused are removed; the
//! clean-up passes that follow in the pipeline (`gvn` merges repeated gathers, `dce`) do the
//! rest. The backends are expected to read a construct of extracts of one vector as a source
//! swizzle and to compute the scalars a construct collects directly into its lanes.
//!
//! Filetests run with the default target, which has no native dot product; the dot-product
//! rewrites per target are tested in `vectorize/tests.rs`, and
//! `testsuite/tests/opt_vectorize.rs` compares random lane-structured programs before and
//! after the pass in the interpreter for every vec4 family.

mod dot;
mod lanes;
mod slp;
#[cfg(test)]
mod tests;

use crate::caps::PassContext;
use crate::fold_util::{remove_dead, replace_value};
use crate::PassError;
use irc_ir::analysis::{functions, Block, Cfg};
use irc_ir::format::{Load, Store};
use irc_ir::{Module, Op, OpCode, Operand, SsaDef, Type};
use rustc_hash::FxHashSet;
use smallvec::SmallVec;

/// What the pass did (summed over a module).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// `FDot*` ops made from chains, and the products they took in.
    pub dots: usize,
    pub dot_terms: usize,
    /// Vector ops made from groups of scalar ops, and the scalar ops they replaced.
    pub vector_ops: usize,
    pub vector_lanes: usize,
    /// Sets of component stores merged into one vector store.
    pub merged_stores: usize,
    /// Constructs of a whole vector's lanes replaced by the vector.
    pub identities: usize,
}

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    let stats = run_with_stats(m, cx);
    Ok(stats != Stats::default())
}

/// Runs the pass and says what it did.
pub fn run_with_stats(m: &mut Module, cx: &PassContext) -> Stats {
    let mut stats = Stats::default();
    stats.identities += fold_identities(m);
    for f in functions(m) {
        let cfg = Cfg::build(m, f);
        for b in cfg.blocks() {
            let Some(mut bcx) = BlockCx::new(m, &cfg, b) else {
                continue;
            };
            merge_stores(m, &mut bcx, &mut stats);
            dot::run_block(m, cx, &mut bcx, &mut stats);
            slp::run_block(m, &mut bcx, &mut stats);
        }
    }
    stats.identities += fold_identities(m);
    stats
}

/// The block being worked on: which ops are in it (its ops when the CFG was built, plus the
/// ops the pass inserted into it) and where code can be inserted at its start.
pub(crate) struct BlockCx<'c> {
    cfg: &'c Cfg,
    block: Block,
    created: FxHashSet<SsaDef>,
    /// The label or the last phi: new ops that need nothing from this block go after it.
    head: SsaDef,
}

impl<'c> BlockCx<'c> {
    fn new(m: &Module, cfg: &'c Cfg, block: Block) -> Option<BlockCx<'c>> {
        let ops = cfg.ops(block);
        let head = ops
            .iter()
            .copied()
            .take_while(|&d| matches!(m.opcode(d), OpCode::Label | OpCode::Phi))
            .last()?;
        // A block without a terminator (malformed) is left alone: insertion points need one.
        cfg.block(block).terminator?;
        Some(BlockCx {
            cfg,
            block,
            created: FxHashSet::default(),
            head,
        })
    }

    /// True if `d` is a live op of this block.
    fn contains(&self, m: &Module, d: SsaDef) -> bool {
        m.is_live(d) && (self.created.contains(&d) || self.cfg.block_of(d) == Some(self.block))
    }

    /// The live ops of the block in program order (walked from the head).
    fn ops(&self, m: &Module) -> Vec<SsaDef> {
        let mut v = Vec::new();
        let mut cur = Some(self.cfg.label(self.block));
        while let Some(d) = cur {
            v.push(d);
            if m.opcode(d).is_terminator() {
                break;
            }
            cur = m.next(d);
        }
        v
    }

    /// Of `d` and the in-block ops among `defs`, the one that comes last.
    fn latest(&self, m: &Module, d: SsaDef, defs: impl IntoIterator<Item = SsaDef>) -> SsaDef {
        defs.into_iter().fold(d, |cur, x| {
            if self.contains(m, x) && m.precedes(cur, x) {
                x
            } else {
                cur
            }
        })
    }

    /// Inserts `op` before `at` and records it as part of the block.
    fn insert(&mut self, m: &mut Module, at: SsaDef, op: Op) -> SsaDef {
        let d = m.insert_before(at, op);
        if !m.opcode(d).is_declarative() {
            self.created.insert(d);
        }
        d
    }
}

/// The users of `d` other than debug info, each once.
pub(crate) fn users(m: &Module, d: SsaDef) -> SmallVec<[SsaDef; 4]> {
    let mut v: SmallVec<[SsaDef; 4]> = SmallVec::new();
    for &u in m.uses(d) {
        if !m.opcode(u).is_meta() && !v.contains(&u) {
            v.push(u);
        }
    }
    v
}

/// The only user of `d` (other than debug info) if it has one use, by one operand.
pub(crate) fn only_use(m: &Module, d: SsaDef) -> Option<SsaDef> {
    let mut it = m.uses(d).iter().filter(|&&u| !m.opcode(u).is_meta());
    let u = *it.next()?;
    it.next().is_none().then_some(u)
}

/// `CompositeExtract v i` for the u32 constant `i`, inserted before `at`.
pub(crate) fn extract(m: &mut Module, bcx: &mut BlockCx, at: SsaDef, v: SsaDef, i: u8) -> SsaDef {
    let ty = lanes::lane_type(m, v).map_or_else(Type::void, Type::scalar);
    let index = m.add(Op::new(OpCode::Constant, irc_ir::ScalarType::U32).lit(i as u64));
    bcx.insert(
        m,
        at,
        Op::new(OpCode::CompositeExtract, ty).arg(v).arg(index),
    )
}

/// Step 1: merges complete sets of component stores into one vector store (module docs).
fn merge_stores(m: &mut Module, bcx: &mut BlockCx, stats: &mut Stats) {
    // Per output: the component stores since the last event that ends a window.
    let mut windows: Vec<(SsaDef, Vec<SsaDef>)> = Vec::new();
    let mut done: Vec<Vec<SsaDef>> = Vec::new();
    for d in bcx.ops(m) {
        let op = m.op(d);
        match op.opcode {
            OpCode::OutputStore | OpCode::OutputLoad => {
                let out = match Store::try_of(op) {
                    Some(store) => store.base(),
                    None => Load::of(op).base(),
                };
                let Some(out) = out else {
                    continue;
                };
                let pos = windows.iter().position(|(o, _)| *o == out);
                let component = (op.opcode == OpCode::OutputStore)
                    .then(|| store_component(m, d))
                    .flatten();
                match (component, pos) {
                    (Some(_), Some(p)) => windows[p].1.push(d),
                    (Some(_), None) => windows.push((out, vec![d])),
                    (None, Some(p)) => done.push(windows.swap_remove(p).1),
                    (None, None) => {}
                }
            }
            OpCode::EmitVertex | OpCode::EmitPrimitive | OpCode::FunctionCall => {
                done.extend(windows.drain(..).map(|(_, w)| w));
            }
            _ => {}
        }
    }
    done.extend(windows.into_iter().map(|(_, w)| w));
    for w in done {
        let Some(&last) = w.last() else { continue };
        let out = Store::of(m.op(last))
            .base()
            .expect("store with a declaration");
        let Some(b) = m.ty(out).as_basic() else {
            continue;
        };
        let n = b.vec_size() as usize;
        let mut values: SmallVec<[Option<SsaDef>; 4]> = SmallVec::from_elem(None, n);
        let mut complete = w.len() == n;
        for &s in &w {
            let c = store_component(m, s).expect("component store") as usize;
            complete &= values[c].is_none();
            values[c] = Store::of(m.op(s)).value();
        }
        if !complete {
            continue;
        }
        let mut cons = Op::new(OpCode::CompositeConstruct, m.ty(out).clone());
        for v in values.iter().flatten() {
            cons = cons.arg(*v);
        }
        let c = bcx.insert(m, last, cons);
        let store = Op::new(OpCode::OutputStore, Type::void())
            .arg(out)
            .arg(Operand::Null)
            .arg(c);
        bcx.insert(m, last, store);
        for s in w {
            m.remove(s);
        }
        stats.merged_stores += 1;
    }
}

/// The component `c` of `OutputStore out c v` when `out` is a vector output (not an array),
/// `c` a constant in range, `v` a scalar of its component type and the store has no flags.
pub(crate) fn store_component(m: &Module, d: SsaDef) -> Option<u8> {
    let op = m.op(d);
    if op.opcode != OpCode::OutputStore || !op.flags.is_empty() {
        return None;
    }
    let store = Store::of(op);
    let b = m.ty(store.base()?).as_basic()?;
    let v = store.value()?;
    if !b.is_vector() || m.ty(v).as_scalar() != Some(b.scalar_type()) {
        return None;
    }
    let c = lanes::const_index(m, store.address()?)?;
    (c < b.vec_size() as u64).then_some(c as u8)
}

/// Step 4 over the whole module: constructs of all lanes of a vector, in order, become the
/// vector. Returns how many.
fn fold_identities(m: &mut Module) -> usize {
    let constructs: Vec<SsaDef> = m
        .code()
        .filter(|&d| m.opcode(d) == OpCode::CompositeConstruct)
        .collect();
    let mut n = 0;
    for c in constructs {
        // Resolved now: an earlier fold may have replaced the vector this one extracts from.
        let Some(whole) = m.is_live(c).then(|| lanes::identity_of(m, c)).flatten() else {
            continue;
        };
        let parts: SmallVec<[SsaDef; 4]> = m.op(c).ref_defs().collect();
        match whole {
            lanes::Identity::Value(v) => replace_value(m, c, v),
            lanes::Identity::Input(x) => {
                let ty = m.ty(c).clone();
                m.rewrite(c, Op::new(OpCode::InputLoad, ty).arg(x).arg(Operand::Null));
            }
        }
        remove_dead(m, parts);
        n += 1;
    }
    n
}
