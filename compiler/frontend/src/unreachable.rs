//! Removes blocks that cannot be reached from a function's entry (what is left after a
//! `break`, `continue` or `return` once scoped control flow is structured).
//!
//! Structured constructs name their merge and continue blocks, so those must survive even when
//! unreachable: an unreachable continue block of a reachable loop becomes `Label; Branch
//! %header` (the back edge the loop header requires), an unreachable merge block of a reachable
//! construct becomes `Label; Unreachable`. Everything else in an unreachable block is removed;
//! a value still used from live code (which valid input never does) is replaced by `Undef`
//! rather than left dangling.

use irc_ir::analysis::cfg::{self, Block, Cfg, FunctionRange};
use irc_ir::analysis::Analyses;
use irc_ir::format::Phi;
use irc_ir::{Construct, Module, Op, OpCode, SsaDef, Type};
use rustc_hash::FxHashSet;

/// Removes functions the entry point never calls, then unreachable blocks from every
/// structured function of `m`.
pub fn run(m: &mut Module) {
    run_with(m, &Analyses::new());
}

/// [`run`], taking the CFGs from (and leaving them in) `analyses`.
pub fn run_with(m: &mut Module, analyses: &Analyses) {
    // Every function's CFG is taken before any function changes: removing one function's
    // dead blocks leaves the other functions' blocks as they are. The CFGs of the functions
    // left unchanged are then kept at the module's new version, for the next pass (`ssa`):
    // else one function's edit would make every CFG a rebuild there.
    let graphs: Vec<_> = remove_uncalled_functions(m)
        .into_iter()
        .map(|f| (f, analyses.cfg(m, f)))
        .collect();
    let mut unchanged = Vec::with_capacity(graphs.len());
    for (f, graph) in graphs {
        if graph.is_empty() || !function(m, &graph) {
            unchanged.push((f, graph));
        }
    }
    for (f, graph) in unchanged {
        analyses.keep_cfg(m, f, graph);
    }
}

enum Keep {
    Continue { header: SsaDef },
    Merge,
}

/// Removes the unreachable blocks of the function of `g`; returns whether it changed.
fn function(m: &mut Module, g: &Cfg) -> bool {
    let Some(entry) = g.entry() else { return false };
    let mut reachable = FxHashSet::default();
    let mut stack = vec![entry];
    while let Some(b) = stack.pop() {
        if reachable.insert(b) {
            stack.extend(g.succs(b).iter().copied());
        }
    }
    if reachable.len() == g.len() {
        return false;
    }
    // Merge and continue blocks named by reachable headers survive, emptied.
    let mut keep: Vec<(Block, Keep)> = Vec::new();
    for &b in &reachable {
        let label = g.label(b);
        if let Some((kind, merge, cont)) = cfg::construct(m, label) {
            if kind == Construct::None {
                continue;
            }
            if let Some(mb) = merge.and_then(|l| g.block_of_label(l)) {
                if !reachable.contains(&mb) {
                    keep.push((mb, Keep::Merge));
                }
            }
            if let Some(cb) = cont.and_then(|l| g.block_of_label(l)) {
                if !reachable.contains(&cb) {
                    keep.push((cb, Keep::Continue { header: label }));
                }
            }
        }
    }
    // Phis of live blocks drop the pairs of dead predecessors, except a kept continue block
    // still branching to its header.
    let label_of = |b: Block| g.label(b);
    let dead_pred = |pred: SsaDef, phi_block: SsaDef| {
        let Some(pb) = g.block_of_label(pred) else {
            return false;
        };
        !reachable.contains(&pb)
            && !keep.iter().any(|(k, kind)| {
                *k == pb && matches!(kind, Keep::Continue { header } if *header == phi_block)
            })
    };
    for &b in &reachable {
        let label = label_of(b);
        for &d in g.ops(b) {
            if m.opcode(d) != OpCode::Phi {
                continue;
            }
            let op = m.op(d);
            let pairs: Vec<_> = Phi::of(op).pairs().collect();
            if !pairs
                .iter()
                .any(|&(p, _)| p.is_some_and(|p| dead_pred(p, label)))
            {
                continue;
            }
            let mut new = Op::new(OpCode::Phi, op.ty.clone()).with_flags(op.flags);
            for (chunk, (p, _)) in op.operands.chunks(2).zip(pairs) {
                if !p.is_some_and(|p| dead_pred(p, label)) {
                    new.operands.extend_from_slice(chunk);
                }
            }
            m.rewrite(d, new);
        }
    }
    // Remove the ops of dead blocks (all but kept labels), last op first.
    let mut dead_ops: Vec<SsaDef> = Vec::new();
    for b in g.blocks().filter(|b| !reachable.contains(b)) {
        let kept = keep.iter().any(|(k, _)| *k == b);
        let ops = g.ops(b);
        dead_ops.extend(ops.iter().copied().filter(|&d| !(kept && d == g.label(b))));
    }
    remove_ops(m, &dead_ops);
    for (b, kind) in keep {
        let label = g.label(b);
        m.rewrite(
            label,
            Op::new(OpCode::Label, Type::void()).lit(Construct::None.to_u64()),
        );
        let term = match kind {
            Keep::Continue { header } => Op::new(OpCode::Branch, Type::void()).arg(header),
            Keep::Merge => Op::new(OpCode::Unreachable, Type::void()),
        };
        m.insert_after(label, term);
    }
    true
}

/// Removes every function that is neither an entry point's function nor called, directly or
/// indirectly, from one; returns the functions left, in program order (what
/// [`cfg::functions`] would find again with another walk of the code).
pub fn remove_uncalled_functions(m: &mut Module) -> Vec<FunctionRange> {
    if cfg::is_one_entry_function_without_calls(m) {
        return cfg::functions(m);
    }
    // One walk finds the functions (as `cfg::functions`) and the calls each one makes.
    let (functions, calls) = functions_and_calls(m);
    let mut live: FxHashSet<SsaDef> = m
        .declarations()
        .filter(|&d| m.opcode(d) == OpCode::EntryPoint)
        .flat_map(|d| m.op(d).ref_defs().collect::<Vec<_>>())
        .collect();
    let mut work: Vec<SsaDef> = live.iter().copied().collect();
    while let Some(f) = work.pop() {
        let Some(i) = functions.iter().position(|r| r.function == f) else {
            continue;
        };
        for &callee in &calls[i] {
            if live.insert(callee) {
                work.push(callee);
            }
        }
    }
    let dead: Vec<SsaDef> = functions
        .iter()
        .filter(|r| !live.contains(&r.function))
        .flat_map(|r| {
            std::iter::once(r.function)
                .chain(r.body(m))
                .chain(r.end)
                .collect::<Vec<_>>()
        })
        .collect();
    remove_ops(m, &dead);
    // Removing other functions' ops leaves a live function's bounds as they were.
    functions
        .into_iter()
        .filter(|r| live.contains(&r.function))
        .collect()
}

/// The functions of `m` in program order (as [`cfg::functions`]) and, per function, the
/// callees of the `FunctionCall`s in its body: one walk of the code.
fn functions_and_calls(m: &Module) -> (Vec<FunctionRange>, Vec<Vec<SsaDef>>) {
    // (caller's index, callee), in program order.
    let mut found: Vec<(usize, SsaDef)> = Vec::new();
    let functions = cfg::functions_visiting(m, |i, d| {
        if m.opcode(d) == OpCode::FunctionCall {
            found.extend(
                irc_ir::format::FunctionCall::of(m.op(d))
                    .callee()
                    .map(|c| (i, c)),
            );
        }
    });
    let mut calls = vec![Vec::new(); functions.len()];
    for (i, callee) in found {
        calls[i].push(callee);
    }
    (functions, calls)
}

/// Removes `ops` from the module: a value still used by an op not in `ops` (never the case in
/// valid input) is first replaced by `Undef`; then every op is detached from its operands, so
/// that ops referring to each other in any order can go; debug names go along.
fn remove_ops(m: &mut Module, ops: &[SsaDef]) {
    let dead: FxHashSet<SsaDef> = ops.iter().copied().collect();
    for &d in ops {
        let live_users = m
            .uses(d)
            .iter()
            .any(|u| !dead.contains(u) && !m.opcode(*u).is_meta());
        if live_users {
            let undef = m.add(Op::new(OpCode::Undef, m.ty(d).clone()));
            m.replace_all_uses(d, undef);
        }
    }
    for &d in ops {
        m.rewrite(d, Op::new(OpCode::Unreachable, Type::void()));
    }
    for &d in ops {
        m.remove(d);
    }
}

#[cfg(test)]
mod tests {
    use irc_ir::analysis::cfg::{self, Cfg};
    use irc_ir::analysis::Analyses;
    use irc_ir::{text, Module, SsaDef};

    /// `main` has a dead block after its `Return`; the helper it calls has none.
    const SRC: &str = "
%1 = EntryPoint %20 Pixel
%2 = f32 DclOutput %1 0 0
%3 = f32 Constant 1.0
%4 = f32 Constant 2.0

%20 = Function
%21 = Label None
  %22 = f32 FunctionCall %40
  %23 = OutputStore %2 null %22
  %24 = Return
%25 = Label None
  %26 = OutputStore %2 null %3
  %27 = Return
%28 = FunctionEnd

%40 = f32 Function
%41 = Label None
  %42 = f32 Return %4
%43 = FunctionEnd
";

    fn blocks(g: &Cfg) -> Vec<(SsaDef, Vec<SsaDef>)> {
        g.blocks()
            .map(|b| (g.label(b), g.ops(b).to_vec()))
            .collect()
    }

    /// The CFG of a function the pass left alone is kept at the module's new version (the next
    /// pass reuses it, and it is the CFG a rebuild gives); the edited function's is rebuilt.
    #[test]
    fn unchanged_functions_keep_their_cfg_across_another_functions_edit() {
        let mut m: Module = text::parse(SRC).expect("the test module parses");
        let analyses = Analyses::new();
        super::run_with(&mut m, &analyses);
        assert!(!m.is_live(SsaDef::from_u32(25)), "the dead block goes");
        let functions = cfg::functions(&m);
        let (main, helper) = (functions[0], functions[1]);
        analyses.take_spent();

        let kept = analyses.cfg(&m, helper);
        let spent = analyses.take_spent();
        assert_eq!((spent.cfg_reuses, spent.cfg_builds), (1, 0));
        assert_eq!(blocks(&kept), blocks(&Cfg::build(&m, helper)));

        let rebuilt = analyses.cfg(&m, main);
        let spent = analyses.take_spent();
        assert_eq!((spent.cfg_reuses, spent.cfg_builds), (0, 1));
        assert_eq!(rebuilt.len(), 1);
    }

    /// Functions reached through a chain of calls stay; a function called only by an uncalled
    /// one goes with it.
    #[test]
    fn uncalled_functions_go_with_the_functions_only_they_call() {
        let src = "
%1 = EntryPoint %10 Pixel
%2 = f32 DclOutput %1 0 0
%3 = f32 Constant 1.0

%10 = Function
%11 = Label None
  %12 = f32 FunctionCall %20
  %13 = OutputStore %2 null %12
  %14 = Return
%15 = FunctionEnd

%20 = f32 Function
%21 = Label None
  %22 = f32 FunctionCall %30
  %23 = f32 Return %22
%24 = FunctionEnd

%30 = f32 Function
%31 = Label None
  %32 = f32 Return %3
%33 = FunctionEnd

%40 = f32 Function
%41 = Label None
  %42 = f32 FunctionCall %50
  %43 = f32 Return %42
%44 = FunctionEnd

%50 = f32 Function
%51 = Label None
  %52 = f32 Return %3
%53 = FunctionEnd
";
        let mut m: Module = text::parse(src).expect("the test module parses");
        let left = super::remove_uncalled_functions(&mut m);
        // Text ids are 1-based (`%n` is `SsaDef` n - 1).
        let def = |n: u32| SsaDef::from_u32(n - 1);
        let names = |fs: &[cfg::FunctionRange]| {
            fs.iter()
                .map(|f| f.function.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&left), ["%10", "%20", "%30"]);
        assert_eq!(names(&cfg::functions(&m)), ["%10", "%20", "%30"]);
        for gone in [40, 42, 44, 50, 53] {
            assert!(!m.is_live(def(gone)), "%{gone} is removed");
        }
        assert!(m.is_live(def(22)) && m.is_live(def(33)));
    }
}
