//! The GP compiler's machine IR: per block, a straight-line graph of **scalar** nodes, what
//! [`super::lower`] makes of an IR vertex shader and [`super::sched`] turns into instructions.
//!
//! A node is one scalar operation of a GP unit (or one of the reference's fixed multi-unit
//! sequences, §8.2: `complex1(impl(x), complex2(x), x)` for rcp/rsqrt, with `preexp2` before
//! exp2 and `postlog2` after log2). Its operands are results of earlier nodes, components of
//! attribute registers `a<n>`, or components of uniform vec4s (the application's, the viewport
//! pair, then the literal pool), each optionally negated. Nodes are in a valid execution order
//! (operands before users); outputs name a varying component and the operand stored there.
//!
//! Lowering keeps the form the scheduler can always place: at most one distinct uniform vec4
//! and two distinct attribute vec4s per node, negation only where the unit has a negate bit
//! (acc sources, mul src1, mov on acc/mul).

use smallvec::SmallVec;

/// Index of a node in [`Program::nodes`].
pub type NodeId = u32;

/// Where one scalar operand comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Src {
    /// The result of a node.
    Node(NodeId),
    /// Attribute `a<slot>`, component `comp`.
    Attr(u8, u8),
    /// Uniform vec4 `id` (a [`Program::uniforms`] index until slots are final, then the slot),
    /// component `comp`.
    Uni(u32, u8),
    /// Uniform vec4 `id` (as for [`Src::Uni`]) plus the address register that the
    /// [`Op::SetAddr`] node `addr` set (relative addressing), component `comp`.
    UniRel(u32, NodeId, u8),
    /// Component `comp` of register `reg`, pinned to a value that crosses blocks (a phi, or a
    /// value used outside its block): stored by an earlier block ([`OutputStore::register`]),
    /// read here as it was when the block began.
    Reg(u8, u8),
}

/// A scalar operand: source and negation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operand {
    pub src: Src,
    pub neg: bool,
}

impl Operand {
    pub fn node(n: NodeId) -> Operand {
        Operand {
            src: Src::Node(n),
            neg: false,
        }
    }
    pub fn negated(self) -> Operand {
        Operand {
            neg: !self.neg,
            ..self
        }
    }
    pub fn plain(self) -> Operand {
        Operand { neg: false, ..self }
    }
    /// The node that must be placed before this operand can be read.
    pub fn producer(&self) -> Option<NodeId> {
        match self.src {
            Src::Node(n) | Src::UniRel(_, n, _) => Some(n),
            Src::Attr(..) | Src::Uni(..) | Src::Reg(..) => None,
        }
    }
}

/// What a node computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// acc `add` (a + b).
    Add,
    /// acc `min`, `max`.
    Min,
    Max,
    /// acc `ge` (a ≥ b → 1.0/0.0), `lt`.
    Ge,
    Lt,
    /// acc `floor`, `sign` (one source).
    Floor,
    Sign,
    /// mul `mul` (a · b; only b may be negated).
    Mul,
    /// A copy (pass unit, or acc/mul in their `mov` forms; negated only on acc/mul).
    Mov,
    /// mul0+mul1 `select`: `cond ≠ 0 ? t : f`, operands (cond, t, f), none negated.
    Select,
    /// Complex-unit sequences (operand not negated).
    Rcp,
    Rsqrt,
    Exp2,
    Log2,
    /// Complex unit: sets an address register (`addr1`–`addr3`) to the operand, an integral
    /// value; read by [`Src::UniRel`] operands 4 instructions later (reference §9).
    SetAddr,
}

impl Op {
    /// Which unit class runs the op.
    pub fn class(self) -> OpClass {
        match self {
            Op::Add | Op::Min | Op::Max | Op::Ge | Op::Lt | Op::Floor | Op::Sign => OpClass::Acc,
            Op::Mul => OpClass::Mul,
            Op::Mov => OpClass::Mov,
            Op::Select => OpClass::Select,
            Op::Rcp | Op::Rsqrt | Op::Exp2 | Op::Log2 => OpClass::Complex,
            Op::SetAddr => OpClass::Addr,
        }
    }
    pub fn num_srcs(self) -> usize {
        match self {
            Op::Floor
            | Op::Sign
            | Op::Mov
            | Op::Rcp
            | Op::Rsqrt
            | Op::Exp2
            | Op::Log2
            | Op::SetAddr => 1,
            Op::Select => 3,
            _ => 2,
        }
    }
}

/// Unit classes (for placement and for the lower bound of the statistics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// One of the two acc units.
    Acc,
    /// One of the two mul units.
    Mul,
    /// pass, acc or mul.
    Mov,
    /// Both mul units.
    Select,
    /// Complex unit plus both mul units on two instructions.
    Complex,
    /// The complex unit alone (address register writes).
    Addr,
}

/// One scalar node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub op: Op,
    pub srcs: SmallVec<[Operand; 3]>,
}

/// A varying component the program stores, or (`register`) a pinned register component a
/// block stores for later blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputStore {
    /// Varying vec4 `v<varying>` (register `$<varying>` when `register`).
    pub varying: u8,
    pub comp: u8,
    pub value: Operand,
    /// A store to a pinned register (placed only after every read of that component in the
    /// block, so that those reads see the value the block began with).
    pub register: bool,
}

/// A lowered vertex shader, or one basic block of one ([`Blocks`]).
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub nodes: Vec<Node>,
    pub outputs: Vec<OutputStore>,
    /// The block ends in a branch taken when this operand is not 0.0 (reference §8.4); the
    /// target is the caller's.
    pub branch: Option<Operand>,
}

/// Where a block's branch goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The first instruction of block `n`.
    Block(usize),
    /// The end of the program.
    End,
}

/// One block of a program with control flow, in layout order: its nodes, its branch's target,
/// and an unconditional jump after the branch (for a two-way branch whose targets are both
/// elsewhere), read from the literal-pool component `jump_one` (1.0).
#[derive(Debug, Clone, Default)]
pub struct Block {
    pub prog: Program,
    pub target: Option<Target>,
    pub jump: Option<Target>,
}

/// A lowered vertex shader with control flow: blocks in layout order (a block without a
/// branch falls through to the next), pinned register components counted from `$15.w` down
/// ([`Blocks::pinned`]), and the literal-pool operand reading 1.0 for unconditional jumps.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    pub blocks: Vec<Block>,
    pub pinned: u32,
    pub one: Option<Operand>,
}

impl Program {
    /// Appends a node, returning its id.
    pub fn push(&mut self, op: Op, srcs: &[Operand]) -> NodeId {
        self.nodes.push(Node {
            op,
            srcs: srcs.iter().copied().collect(),
        });
        (self.nodes.len() - 1) as NodeId
    }

    /// Which nodes an output depends on.
    pub fn live(&self) -> Vec<bool> {
        let mut live = vec![false; self.nodes.len()];
        let mut stack: Vec<NodeId> = self
            .outputs
            .iter()
            .map(|o| o.value)
            .chain(self.branch)
            .filter_map(|o| o.producer())
            .collect();
        while let Some(v) = stack.pop() {
            let Some(l) = live.get_mut(v as usize) else {
                continue;
            };
            if std::mem::replace(l, true) {
                continue;
            }
            for s in &self.nodes[v as usize].srcs {
                stack.extend(s.producer());
            }
        }
        live
    }

    /// Rewrites every uniform id through `map` (ids → slots).
    pub fn map_uniforms(&mut self, map: impl Fn(u32) -> u32) {
        let f = |o: &mut Operand| match o.src {
            Src::Uni(id, c) => o.src = Src::Uni(map(id), c),
            Src::UniRel(id, a, c) => o.src = Src::UniRel(map(id), a, c),
            Src::Node(_) | Src::Attr(..) | Src::Reg(..) => {}
        };
        for n in &mut self.nodes {
            n.srcs.iter_mut().for_each(f);
        }
        self.outputs.iter_mut().for_each(|o| f(&mut o.value));
        if let Some(b) = self.branch.as_mut() {
            f(b);
        }
    }
}
