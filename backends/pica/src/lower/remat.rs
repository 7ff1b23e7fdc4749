//! Rematerialization at output stores: a value a geometry shader stores to outputs for several
//! vertices (a projected midpoint shared by two triangles) is computed again before each store
//! instead of once into a register that is then copied.
//!
//! Computed once, the value costs its instructions plus one `MOV` per store; computed at each
//! store, copy folding lets every computation write the output register directly, and the
//! per-vertex code becomes the same sequence with different inputs — what the outliner
//! ([`crate::outline`]) turns into one procedure. Neither is shorter in general, so the target
//! compiles a geometry shader both ways and keeps the shorter (`target::compile_stage`).
//!
//! Candidates are pure arithmetic (one instruction per component, except a `min`/`max` whose
//! operands may both be NaN), and the vectors built from it, whose every
//! use is an output store or a candidate vector, reaching at least two stores. Their operands
//! are computed once, as before; only the candidates move to the stores.

use irc_backend::Diagnostic;
use irc_ir::analysis::cfg::Cfg;
use irc_ir::format::{Arith, CompositeConstruct, Dot, Store};
use irc_ir::{Module, OpCode, SsaDef};
use rustc_hash::{FxHashMap, FxHashSet};

use super::Lower;

/// Whether `op` is pure arithmetic computed from its operands alone.
fn recomputable(m: &Module, d: SsaDef) -> bool {
    let op = m.op(d);
    match op.opcode {
        OpCode::FAdd
        | OpCode::FSub
        | OpCode::FNeg
        | OpCode::FMulLegacy
        | OpCode::FMadLegacy
        | OpCode::FDotLegacy
        | OpCode::FMin
        | OpCode::FMax => true,
        OpCode::CompositeConstruct => op.ty.is_basic_where(|t| t.is_float()),
        _ => false,
    }
}

/// The values to compute at each of their output stores.
pub(super) fn candidates(m: &Module, cfg: &Cfg) -> FxHashSet<SsaDef> {
    let mut chosen = FxHashSet::default();
    // Output stores each value reaches through candidates.
    let mut reach: FxHashMap<SsaDef, usize> = FxHashMap::default();
    let ops: Vec<SsaDef> = cfg
        .blocks()
        .flat_map(|b| cfg.ops(b).iter().copied())
        .collect();
    for &d in ops.iter().rev() {
        if !recomputable(m, d) {
            continue;
        }
        let mut stores = 0;
        let mut only_stores = true;
        for &u in m.uses(d) {
            if m.opcode(u) == OpCode::OutputStore && Store::of(m.op(u)).value() == Some(d) {
                stores += 1;
            } else if chosen.contains(&u) && m.opcode(u) == OpCode::CompositeConstruct {
                stores += reach[&u];
            } else {
                only_stores = false;
            }
        }
        if only_stores && stores >= 2 {
            chosen.insert(d);
            reach.insert(d, stores);
        }
    }
    chosen
}

impl Lower<'_> {
    /// Lowers candidate `d` again (its candidate members first), so that its value is held by
    /// fresh registers read only by the store about to be lowered.
    pub(super) fn rematerialize(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        self.forget(d);
        self.lower_again(d)
    }

    /// Drops the lowered values of candidate `d` and of its candidate members.
    fn forget(&mut self, d: SsaDef) {
        self.values.remove(&d);
        let op = self.m.op(d);
        if op.opcode == OpCode::CompositeConstruct {
            for o in CompositeConstruct::of(op).members() {
                if let Some(o) = o.as_ref().filter(|o| self.remat.contains(o)) {
                    self.values.remove(&o);
                }
            }
        }
    }

    fn lower_again(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(d);
        let operands: Vec<Option<SsaDef>> = match op.opcode {
            OpCode::CompositeConstruct => CompositeConstruct::of(op)
                .members()
                .iter()
                .map(|o| o.as_ref())
                .collect(),
            OpCode::FDotLegacy => {
                let dot = Dot::of(op);
                vec![dot.a(), dot.b()]
            }
            _ => {
                let ar = Arith::of(op);
                vec![ar.a(), ar.b(), ar.c()]
            }
        };
        for o in operands.into_iter().flatten() {
            // A vector's member, once even where the vector repeats it.
            if self.remat.contains(&o) && !self.values.contains_key(&o) {
                self.lower_again(o)?;
            }
        }
        self.lower_op(d)
    }
}
