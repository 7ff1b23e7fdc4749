//! Functions, blocks and the control-flow graph of structured code.
//!
//! A *function* is the range of code ops from a `Function` op up to its `FunctionEnd`
//! ([`functions`]). In structured code a function body is a sequence of *blocks*: a block starts
//! at a `Label` and ends at its first terminator (`Branch`, `BranchConditional`, `Switch`,
//! `Return`, `Unreachable`). [`Cfg::build`] splits one function into blocks, numbers them
//! [`Block`]s in program order (the first block is the entry), and derives successors from the
//! terminators' label operands and predecessors from those. Successor and predecessor lists hold
//! each block once, even when several edges connect the same pair (a `Switch` with several cases
//! to one label, a `BranchConditional` with equal targets): this is the notion of predecessor
//! that `Phi` operands follow.
//!
//! The builder is total: on malformed code (ops before the first `Label` or after a terminator,
//! a block without terminator, branch targets that are not labels of the function) it still
//! produces a CFG and records the irregularities ([`Cfg::stray_ops`], a `None` terminator, targets
//! ignored), leaving the verdict to the verifier. Raw (scoped) functions have no `Label`s and give
//! a CFG with no blocks.

use crate::entities::SsaDef;
use crate::enums::Construct;
use crate::module::Module;
use crate::opcode::OpCode;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, EntityRef, PrimaryMap, SecondaryMap};
use smallvec::SmallVec;

/// A basic block of one function's [`Cfg`], numbered in program order from 0 (the entry).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// The code range of one function: its `Function` op and its `FunctionEnd` (if present before
/// the next `Function` or the end of the code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionRange {
    pub function: SsaDef,
    pub end: Option<SsaDef>,
}

impl FunctionRange {
    /// The ops strictly between `Function` and `FunctionEnd` (or the next `Function`).
    pub fn body<'m>(&self, m: &'m Module) -> impl Iterator<Item = SsaDef> + 'm {
        let end = self.end;
        m.iter_from(self.function)
            .skip(1)
            .take_while(move |&d| Some(d) != end && m.opcode(d) != OpCode::Function)
    }
}

/// Every function of the module in program order. A `FunctionEnd` with no open function is not
/// part of any range.
pub fn functions(m: &Module) -> Vec<FunctionRange> {
    if let Some((function, end)) = m.sole_function() {
        // The usual shader: one function, no walk.
        return vec![FunctionRange {
            function,
            end: Some(end),
        }];
    }
    functions_visiting(m, |_, _| {})
}

/// [`functions`] by one walk of the code that also shows `visit` every op of each function's
/// body ([`FunctionRange::body`]) with the index of its function in the result: for a pass
/// that needs the ranges and something of the bodies (the calls each function makes) without
/// walking the code twice.
pub fn functions_visiting(m: &Module, mut visit: impl FnMut(usize, SsaDef)) -> Vec<FunctionRange> {
    let mut out: Vec<FunctionRange> = Vec::new();
    let mut open = false;
    for d in m.code() {
        match m.opcode(d) {
            OpCode::Function => {
                out.push(FunctionRange {
                    function: d,
                    end: None,
                });
                open = true;
            }
            OpCode::FunctionEnd if open => {
                if let Some(f) = out.last_mut() {
                    f.end = Some(d);
                }
                open = false;
            }
            _ if open => visit(out.len() - 1, d),
            _ => {}
        }
    }
    out
}

/// True for the usual shader: no `FunctionCall`, and one function, which the `EntryPoint`
/// names; so there is no call to inline and no uncalled function to remove. Found from the
/// module's opcode counts and the declarations, without walking the code.
pub fn is_one_entry_function_without_calls(m: &Module) -> bool {
    if m.contains_opcode(OpCode::FunctionCall) {
        return false;
    }
    let Some((function, _)) = m.sole_function() else {
        return false;
    };
    m.declarations()
        .find(|&d| m.opcode(d) == OpCode::EntryPoint)
        .is_some_and(|e| m.op(e).ref_defs().any(|f| f == function))
}

/// The `Function` op whose range contains `d` (or `d` itself if it is a `Function`).
pub fn function_of(m: &Module, d: SsaDef) -> Option<SsaDef> {
    let mut cur = Some(d);
    while let Some(c) = cur {
        match m.opcode(c) {
            OpCode::Function => return Some(c),
            OpCode::FunctionEnd if c != d => return None,
            _ => {}
        }
        cur = m.prev(c);
    }
    None
}

/// What one block holds.
#[derive(Clone, Debug)]
pub struct BlockData {
    /// The `Label` that opens the block.
    pub label: SsaDef,
    /// The terminator, or `None` if the block runs into the next `Label` or the function end.
    pub terminator: Option<SsaDef>,
    /// The block's ops ([`Cfg::ops`]): this range of the CFG's op list.
    ops: std::ops::Range<u32>,
    /// Distinct successor blocks in operand order of the terminator.
    pub succs: SmallVec<[Block; 2]>,
    /// Distinct predecessor blocks in program order.
    pub preds: SmallVec<[Block; 2]>,
}

/// The control-flow graph of one function.
#[derive(Clone, Debug)]
pub struct Cfg {
    function: FunctionRange,
    blocks: PrimaryMap<Block, BlockData>,
    /// The ops of all blocks, block after block (a block is a contiguous run of the body): one
    /// list for the whole function instead of one allocation per block.
    ops: Vec<SsaDef>,
    /// The block of each op inside a block (a dense map over the module's ids: one slot store per
    /// op instead of a hash insert, as the CFG is rebuilt after every control-flow change).
    block_of: SecondaryMap<SsaDef, PackedOption<Block>>,
    stray: Vec<SsaDef>,
}

impl Cfg {
    /// Splits the function `f` into blocks and connects them.
    pub fn build(m: &Module, f: FunctionRange) -> Cfg {
        let mut cfg = Cfg {
            function: f,
            // Every label of the module is an upper bound of one function's blocks.
            blocks: PrimaryMap::with_capacity(m.count_of(OpCode::Label)),
            // The whole code is an upper bound of one function's body: one allocation.
            ops: Vec::with_capacity(m.len() - m.declaration_count()),
            block_of: SecondaryMap::new(),
            stray: Vec::new(),
        };
        cfg.block_of.resize(m.id_bound());
        let mut cur: Option<Block> = None;
        // The body (as `FunctionRange::body`), walked by hand: this loop runs for every op of
        // every CFG a pass builds. The body is code, so the code list's links are followed
        // directly (no crossing from declarations to code to consider).
        let mut next = m.next(f.function);
        while let Some(d) = next {
            let opcode = m.opcode(d);
            if Some(d) == f.end || opcode == OpCode::Function {
                break;
            }
            next = m.next_in_section(d);
            if opcode == OpCode::Label {
                if let Some(open) = cur {
                    cfg.blocks[open].ops.end = cfg.ops.len() as u32;
                }
                let start = cfg.ops.len() as u32;
                cfg.ops.push(d);
                let b = cfg.blocks.push(BlockData {
                    label: d,
                    terminator: None,
                    ops: start..start + 1,
                    succs: SmallVec::new(),
                    preds: SmallVec::new(),
                });
                cfg.block_of[d] = b.into();
                cur = Some(b);
                continue;
            }
            match cur {
                Some(b) => {
                    cfg.ops.push(d);
                    cfg.block_of[d] = b.into();
                    if opcode.is_terminator() {
                        cfg.blocks[b].terminator = Some(d);
                        cfg.blocks[b].ops.end = cfg.ops.len() as u32;
                        cur = None;
                    }
                }
                None => cfg.stray.push(d),
            }
        }
        if let Some(open) = cur {
            cfg.blocks[open].ops.end = cfg.ops.len() as u32;
        }
        for i in 0..cfg.blocks.len() {
            let b = Block::new(i);
            let Some(t) = cfg.blocks[b].terminator else {
                continue;
            };
            let mut succs: SmallVec<[Block; 2]> = SmallVec::new();
            for target in branch_targets(m, t) {
                if let Some(s) = cfg.block_of_label(target) {
                    if !succs.contains(&s) {
                        succs.push(s);
                    }
                }
            }
            for &s in &succs {
                cfg.blocks[s].preds.push(b);
            }
            cfg.blocks[b].succs = succs;
        }
        cfg
    }

    /// The function this CFG describes.
    pub fn function(&self) -> FunctionRange {
        self.function
    }
    /// The entry block (the first one), if the function has any block.
    pub fn entry(&self) -> Option<Block> {
        (!self.blocks.is_empty()).then(|| Block::from_u32(0))
    }
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
    /// Number of ops in all blocks (labels and terminators included).
    pub fn op_count(&self) -> usize {
        self.ops.len()
    }
    /// The blocks in program order.
    pub fn blocks(&self) -> impl Iterator<Item = Block> + '_ {
        self.blocks.keys()
    }
    /// The data of a block.
    pub fn block(&self, b: Block) -> &BlockData {
        &self.blocks[b]
    }
    /// Every op of a block in order, the label and terminator included.
    pub fn ops(&self, b: Block) -> &[SsaDef] {
        let r = &self.blocks[b].ops;
        &self.ops[r.start as usize..r.end as usize]
    }
    /// The `Label` of a block.
    pub fn label(&self, b: Block) -> SsaDef {
        self.blocks[b].label
    }
    /// Distinct successors of a block.
    pub fn succs(&self, b: Block) -> &[Block] {
        &self.blocks[b].succs
    }
    /// Distinct predecessors of a block.
    pub fn preds(&self, b: Block) -> &[Block] {
        &self.blocks[b].preds
    }
    /// The block a `Label` opens, if it is a label of this function.
    pub fn block_of_label(&self, label: SsaDef) -> Option<Block> {
        self.block_of(label)
            .filter(|&b| self.blocks[b].label == label)
    }
    /// The block containing op `d`, if `d` is inside a block of this function.
    pub fn block_of(&self, d: SsaDef) -> Option<Block> {
        self.block_of[d].expand()
    }
    /// Ops of the function body that belong to no block: before the first `Label` or between a
    /// terminator and the next `Label`. Empty for well-formed structured code.
    pub fn stray_ops(&self) -> &[SsaDef] {
        &self.stray
    }
}

/// The label operands of a terminator (or any branch-like op), in operand order.
pub fn branch_targets(m: &Module, t: SsaDef) -> SmallVec<[SsaDef; 2]> {
    let op = m.op(t);
    let mut out = SmallVec::new();
    // A push per present target (`extend` from an `Option` cost three times as much).
    let mut take = |i: usize| {
        if let Some(d) = op.operand_def(i) {
            out.push(d);
        }
    };
    match op.opcode {
        OpCode::Branch => take(0),
        OpCode::BranchConditional => {
            take(1);
            take(2);
        }
        OpCode::Switch => {
            take(1);
            (3..op.operands.len()).step_by(2).for_each(take);
        }
        _ => {}
    }
    out
}

/// The structured construct a `Label` declares: its kind with merge and continue labels (as far
/// as present). `None` if `label` is not a `Label` or its construct literal is invalid.
pub fn construct(m: &Module, label: SsaDef) -> Option<(Construct, Option<SsaDef>, Option<SsaDef>)> {
    let op = m.op(label);
    if op.opcode != OpCode::Label {
        return None;
    }
    let label = crate::format::Label::of(op);
    let kind = Construct::from_u64(label.construct()?)?;
    // A reference slot holding the construct literal reads as `None`.
    Some((kind, label.merge(), label.continue_target()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Op;
    use crate::types::Type;
    use cranelift_entity::EntityRef;

    /// The no-call shortcut holds for one function the entry point names, and stops holding
    /// with a call or a second function.
    #[test]
    fn one_entry_function_without_calls() {
        let src = "%1 = EntryPoint %2 Vertex\n%2 = Function\n%3 = Label None\n%4 = Return\n\
                   %5 = FunctionEnd\n";
        let mut m = crate::text::parse(src).expect("parse");
        let d = |i: usize| SsaDef::new(i - 1);
        assert!(is_one_entry_function_without_calls(&m));
        let call = m.insert_before(d(4), Op::new(OpCode::FunctionCall, Type::void()).arg(d(2)));
        assert!(!is_one_entry_function_without_calls(&m));
        m.remove(call);
        assert!(is_one_entry_function_without_calls(&m));
        let f2 = m.add(Op::new(OpCode::Function, Type::void()));
        let e2 = m.add(Op::new(OpCode::FunctionEnd, Type::void()));
        assert!(!is_one_entry_function_without_calls(&m));
        m.remove(e2);
        m.remove(f2);
        // A function the entry point does not name is uncalled: not the shortcut.
        m.rewrite(d(1), Op::new(OpCode::EntryPoint, Type::void()).lit(0));
        assert!(!is_one_entry_function_without_calls(&m));
    }

    /// The one-function shortcut of [`functions`] must give what the walk gives, and must not
    /// be taken once the module holds a second function or a stray `FunctionEnd`.
    #[test]
    fn one_function_shortcut_agrees_with_the_walk() {
        let src = "%1 = EntryPoint %2 Vertex\n%2 = Function\n%3 = Label None\n%4 = Return\n\
                   %5 = FunctionEnd\n";
        let mut m = crate::text::parse(src).expect("parse");
        let d = |i: usize| SsaDef::new(i - 1);
        assert_eq!(m.sole_function(), Some((d(2), d(5))));
        assert_eq!(
            functions(&m),
            vec![FunctionRange {
                function: d(2),
                end: Some(d(5))
            }]
        );
        // A second function: the walk, two ranges.
        let f2 = m.add(Op::new(OpCode::Function, Type::void()));
        let l2 = m.add(Op::new(OpCode::Label, Type::void()));
        let r2 = m.add(Op::new(OpCode::Return, Type::void()));
        let e2 = m.add(Op::new(OpCode::FunctionEnd, Type::void()));
        assert_eq!(m.sole_function(), None);
        assert_eq!(functions(&m).len(), 2);
        // Back to one function: the shortcut again.
        for x in [e2, r2, l2, f2] {
            m.remove(x);
        }
        assert_eq!(m.sole_function(), Some((d(2), d(5))));
        // A stray FunctionEnd after the function: not the shortcut; the walk ignores it.
        let stray = m.add(Op::new(OpCode::FunctionEnd, Type::void()));
        assert_eq!(m.sole_function(), None);
        assert_eq!(
            functions(&m),
            vec![FunctionRange {
                function: d(2),
                end: Some(d(5))
            }]
        );
        // Turning the function into something else drops the shortcut too.
        m.remove(stray);
        m.rewrite(d(2), Op::new(OpCode::Unreachable, Type::void()));
        assert_eq!(m.sole_function(), None);
        assert!(functions(&m).is_empty());
        // A clone keeps the counts.
        assert_eq!(m.clone().sole_function(), None);
    }
}
