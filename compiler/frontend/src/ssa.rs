//! SSA construction: temporaries (`DclTmp`, `TmpLoad`, `TmpStore`) → SSA values and phis.
//!
//! The algorithm is Braun, Buchwald, Hack, Leißa, Mallon and Zwinkau, "Simple and Efficient
//! Construction of Static Single Assignment Form" (CC 2013), in the variant dxbc-spirv uses
//! (reference B.4): one walk over each function's blocks in program order records the value of
//! every temporary at the end of each block (`TmpStore`) and answers every `TmpLoad` by looking
//! the temporary up: in the block itself, else through a chain of single, already-walked
//! predecessors, else by placing an empty phi at the top of the block. All blocks are sealed
//! once the walk ends; then the phis get their operands (one per predecessor, looked up at the
//! end of that predecessor, which may place further phis). Finally trivial phis — all operands
//! the same value or the phi itself — are replaced by that value (or `Undef` when they have no
//! operand), repeatedly, and the `DclTmp`s are removed.
//!
//! A temporary used in more than one function (DXBC subroutines sharing registers) is not
//! handled here and is reported as unsupported.

use crate::FrontendError;
use irc_ir::analysis::cfg::{self, Block, Cfg};
use irc_ir::analysis::Analyses;
use irc_ir::format::{TmpLoad, TmpStore};
use irc_ir::{EntityRef, Module, Op, OpCode, SsaDef, Type};
use rustc_hash::FxHashMap;

/// Converts the temporaries of every structured function to SSA form.
pub fn run(m: &mut Module) -> Result<(), FrontendError> {
    run_with(m, &Analyses::new())
}

/// [`run`], taking the CFGs from `analyses` (the one `unreachable` left when it changed
/// nothing).
pub fn run_with(m: &mut Module, analyses: &Analyses) -> Result<(), FrontendError> {
    check_temps_are_local(m)?;
    let mut phis = Vec::new();
    // Every function's CFG is taken before any function changes: a function's edits (loads
    // and stores removed, phis placed after its labels) leave the other functions' blocks as
    // they are, so the CFGs the frontend's previous pass left in `analyses` serve all of them
    // (taken one by one, each edit would make the next function's CFG a rebuild).
    let graphs: Vec<_> = cfg::functions(m)
        .into_iter()
        .map(|f| analyses.cfg(m, f))
        .collect();
    let tmps: Vec<SsaDef> = m
        .declarations()
        .filter(|&d| m.opcode(d) == OpCode::DclTmp)
        .collect();
    // Every load and store of a temporary goes: its long use list is set aside meanwhile.
    m.removing_users_of(&tmps, |m| {
        for g in graphs {
            if g.is_empty() {
                continue;
            }
            phis.extend(Function::new(m, &g).run());
        }
    });
    irc_ir::ssa_util::remove_trivial_phis(m, phis);
    for t in tmps {
        if m.uses(t).iter().all(|&u| m.opcode(u).is_meta()) {
            m.remove(t);
        }
    }
    Ok(())
}

/// Fails if a `DclTmp` is loaded or stored in two functions.
fn check_temps_are_local(m: &Module) -> Result<(), FrontendError> {
    // The function each temporary is used in, by temporary id (one slot per op: a look-up
    // per load and store without hashing).
    let mut owner: Vec<Option<SsaDef>> = vec![None; m.id_bound()];
    let mut current = None;
    for d in m.code() {
        match m.opcode(d) {
            OpCode::Function => current = Some(d),
            OpCode::TmpLoad | OpCode::TmpStore => {
                let var = match TmpStore::try_of(m.op(d)) {
                    Some(s) => s.var(),
                    None => TmpLoad::of(m.op(d)).var(),
                };
                let (Some(t), Some(f)) = (var, current) else {
                    continue;
                };
                let first = *owner[t.index()].get_or_insert(f);
                if first != f {
                    return Err(FrontendError::Unsupported {
                        op: d,
                        opcode: m.opcode(d),
                        reason: format!(
                            "temporary {t} is shared between functions {first} and {f}"
                        ),
                    });
                }
            }
            _ => {}
        }
    }
    Ok(())
}

struct Function<'a> {
    m: &'a mut Module,
    g: &'a Cfg,
    /// Value of (block, temporary) at the end of the block (or at the walk's current point).
    defs: FxHashMap<(Block, SsaDef), SsaDef>,
    /// Per block: walked already.
    walked: Vec<bool>,
    /// The blocks a [`Function::read`] passed through (kept for its allocation).
    path: Vec<Block>,
    /// Phis whose operands are still to be filled: (phi, block, temporary).
    incomplete: Vec<(SsaDef, Block, SsaDef)>,
    created: Vec<SsaDef>,
}

impl<'a> Function<'a> {
    fn new(m: &'a mut Module, g: &'a Cfg) -> Self {
        let accesses = m.count_of(OpCode::TmpStore) + m.count_of(OpCode::TmpLoad);
        Function {
            m,
            g,
            // An entry per store, and per block a read passes through: sized once for the
            // module's loads and stores instead of regrowing.
            defs: FxHashMap::with_capacity_and_hasher(accesses, Default::default()),
            walked: vec![false; g.len()],
            path: Vec::new(),
            incomplete: Vec::new(),
            created: Vec::new(),
        }
    }

    /// Walks the function and returns every phi it created.
    fn run(mut self) -> Vec<SsaDef> {
        // The CFG is borrowed apart from `self` (a snapshot: the ops removed below stay listed,
        // and the phis placed are not).
        let g = self.g;
        for b in g.blocks() {
            for &d in g.ops(b) {
                match self.m.opcode(d) {
                    OpCode::TmpStore => {
                        let store = TmpStore::of(self.m.op(d));
                        if let (Some(t), Some(v)) = (store.var(), store.value()) {
                            self.defs.insert((b, t), v);
                            self.m.remove(d);
                        }
                    }
                    OpCode::TmpLoad => {
                        if let Some(t) = TmpLoad::of(self.m.op(d)).var() {
                            let v = self.read(t, b);
                            self.m.replace_all_uses(d, v);
                            self.m.remove(d);
                        }
                    }
                    _ => {}
                }
            }
            self.walked[b.index()] = true;
        }
        while let Some((phi, b, t)) = self.incomplete.pop() {
            let preds: Vec<Block> = self.g.preds(b).to_vec();
            let mut op = self.m.op(phi).clone();
            for p in preds {
                let v = self.read(t, p);
                op = op.arg(self.g.label(p)).arg(v);
            }
            self.m.rewrite(phi, op);
        }
        self.created
    }

    /// The value of temporary `t` at the current point of block `b` (its end once walked).
    fn read(&mut self, t: SsaDef, b: Block) -> SsaDef {
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        let mut cur = b;
        let value = loop {
            if let Some(&v) = self.defs.get(&(cur, t)) {
                break v;
            }
            path.push(cur);
            match self.g.preds(cur) {
                [p] if self.walked[p.index()] && !path.contains(p) => cur = *p,
                _ => break self.place_phi(t, cur),
            }
        };
        for &blk in &path {
            self.defs.insert((blk, t), value);
        }
        self.path = path;
        value
    }

    fn place_phi(&mut self, t: SsaDef, b: Block) -> SsaDef {
        let ty: Type = self.m.ty(t).clone();
        let label = self.g.label(b);
        let phi = self.m.insert_after(label, Op::new(OpCode::Phi, ty));
        self.defs.insert((b, t), phi);
        self.incomplete.push((phi, b, t));
        self.created.push(phi);
        phi
    }
}
