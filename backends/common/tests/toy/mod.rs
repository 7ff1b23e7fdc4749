//! A toy machine for the machine-layer tests: integer ops on virtual registers of up to four
//! components, a memory of spill slots, outputs as a side effect, and an interpreter that runs
//! a function either on virtual registers or on an allocation (so that a test can check that
//! rewriting and allocating kept the program's behaviour).

#![allow(dead_code, reason = "each test file uses part of the toy machine")]

use irc_backend::machine::cfg::{Cfg, CfgEdit};
use irc_backend::machine::{def_at, use_at, MachFunction, MachOp, Memory, Operands, Slot};
use irc_backend::regalloc::{Allocation, VReg};
use smallvec::{smallvec, SmallVec};
use std::collections::HashMap;

/// One toy op. Components are written with masks; reads name one component.
#[derive(Debug, Clone, PartialEq)]
pub enum ToyOp {
    /// `dst.comp = value`.
    Const { dst: VReg, comp: u8, value: i64 },
    /// `dst.x = a.x + b.x`.
    Add { dst: VReg, a: VReg, b: VReg },
    /// Store `src.x` to memory slot `slot`.
    Store { slot: u32, src: VReg },
    /// `dst.x = memory[slot]`.
    Load { dst: VReg, slot: u32 },
    /// Append `src.comp` to the output.
    Out { src: VReg, comp: u8 },
}

impl MachOp for ToyOp {
    type Unit = ();
    fn operands(&self, out: &mut Operands) {
        let (r, w) = (Slot::Stage(0), Slot::Stage(1));
        match *self {
            ToyOp::Const { dst, comp, .. } => def_at(out, dst, 1 << comp, w),
            ToyOp::Add { dst, a, b } => {
                use_at(out, a, 1, r);
                use_at(out, b, 1, r);
                def_at(out, dst, 1, w);
            }
            ToyOp::Store { src, .. } => use_at(out, src, 1, r),
            ToyOp::Load { dst, .. } => def_at(out, dst, 1, w),
            ToyOp::Out { src, comp } => use_at(out, src, 1 << comp, r),
        }
    }
    fn memory(&self, out: &mut SmallVec<[Memory; 2]>) {
        match *self {
            ToyOp::Store { slot, .. } => out.push(Memory::Store(slot)),
            ToyOp::Load { slot, .. } => out.push(Memory::Load(slot)),
            ToyOp::Const { .. } | ToyOp::Add { .. } | ToyOp::Out { .. } => {}
        }
    }
    fn removable(&self) -> bool {
        !matches!(self, ToyOp::Store { .. } | ToyOp::Out { .. })
    }
    fn stage(slot: Slot, _: &[()]) -> u8 {
        match slot {
            Slot::Stage(s) => s,
            Slot::Unit(_) | Slot::Last => 1,
        }
    }
}

/// How a toy block ends.
#[derive(Debug, Clone, PartialEq)]
pub enum ToyTerm {
    Jump(usize),
    /// To `then` if `cond.x` is non-zero.
    Branch {
        cond: VReg,
        then: usize,
        els: usize,
    },
    /// End; `result.x` is the return value.
    Ret {
        result: Option<VReg>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToyBlock {
    pub ops: Vec<ToyOp>,
    pub term: ToyTerm,
    pub depth: u32,
}

/// A toy function.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToyFn {
    pub blocks: Vec<ToyBlock>,
    pub sizes: Vec<u8>,
    pub no_spill: Vec<bool>,
    pub slots: u32,
}

impl ToyFn {
    pub fn vreg(&mut self, size: u8) -> VReg {
        self.sizes.push(size);
        self.no_spill.push(false);
        VReg(self.sizes.len() as u32 - 1)
    }
    pub fn block(&mut self, ops: Vec<ToyOp>, term: ToyTerm) -> usize {
        self.blocks.push(ToyBlock {
            ops,
            term,
            depth: 0,
        });
        self.blocks.len() - 1
    }
}

impl Cfg for ToyFn {
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn succs(&self, b: usize) -> SmallVec<[usize; 2]> {
        match self.blocks[b].term {
            ToyTerm::Jump(t) => smallvec![t],
            ToyTerm::Branch { then, els, .. } => smallvec![then, els],
            ToyTerm::Ret { .. } => SmallVec::new(),
        }
    }
}

impl CfgEdit for ToyFn {
    fn add_jump_block(&mut self, target: usize, like: usize) -> usize {
        let depth = self.blocks[like].depth;
        self.blocks.push(ToyBlock {
            ops: Vec::new(),
            term: ToyTerm::Jump(target),
            depth,
        });
        self.blocks.len() - 1
    }
    fn retarget(&mut self, from: usize, old: usize, new: usize) {
        let fix = |t: &mut usize| {
            if *t == old {
                *t = new;
            }
        };
        match &mut self.blocks[from].term {
            ToyTerm::Jump(t) => fix(t),
            ToyTerm::Branch { then, els, .. } => {
                fix(then);
                fix(els);
            }
            ToyTerm::Ret { .. } => {}
        }
    }
}

impl MachFunction for ToyFn {
    type Op = ToyOp;
    fn ops(&self, b: usize) -> &[ToyOp] {
        &self.blocks[b].ops
    }
    fn retain_ops(&mut self, b: usize, keep: &mut dyn FnMut(usize) -> bool) {
        let mut i = 0;
        self.blocks[b].ops.retain(|_| {
            i += 1;
            keep(i - 1)
        });
    }
    fn terminator_uses(&self, b: usize, out: &mut Operands) {
        match self.blocks[b].term {
            ToyTerm::Branch { cond, .. } => use_at(out, cond, 1, Slot::Stage(0)),
            ToyTerm::Ret { result: Some(r) } => use_at(out, r, 1, Slot::Stage(0)),
            ToyTerm::Jump(_) | ToyTerm::Ret { result: None } => {}
        }
    }
    fn num_vregs(&self) -> usize {
        self.sizes.len()
    }
    fn vreg_size(&self, v: VReg) -> u8 {
        self.sizes[v.index()]
    }
    fn remap_blocks(&mut self, map: &[Option<usize>]) {
        let blocks = std::mem::take(&mut self.blocks);
        for (i, mut b) in blocks.into_iter().enumerate() {
            if map[i].is_none() {
                continue;
            }
            let m = |t: &mut usize| *t = map[*t].expect("edge to a removed block");
            match &mut b.term {
                ToyTerm::Jump(t) => m(t),
                ToyTerm::Branch { then, els, .. } => {
                    m(then);
                    m(els);
                }
                ToyTerm::Ret { .. } => {}
            }
            self.blocks.push(b);
        }
    }
}

/// What a run produced: the outputs in order and the return value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub outputs: Vec<i64>,
    pub result: Option<i64>,
}

/// Runs `f` (at most `fuel` ops). With `alloc`, component `c` of `v` lives in the allocated
/// register lane; without, every virtual register has its own storage. Unwritten storage
/// reads as 0.
pub fn run(f: &ToyFn, alloc: Option<&Allocation>, fuel: usize) -> Run {
    let place = |v: VReg, c: u8| -> (u32, u8) {
        match alloc {
            Some(a) => {
                let l = a.loc(v).expect("accessed vreg without a location");
                (u32::from(l.reg), l.lane + c)
            }
            None => (v.0 | 1 << 31, c),
        }
    };
    let mut regs: HashMap<(u32, u8), i64> = HashMap::new();
    let mut mem: HashMap<u32, i64> = HashMap::new();
    let mut outputs = Vec::new();
    let mut b = 0;
    let mut fuel = fuel;
    loop {
        for op in &f.blocks[b].ops {
            fuel = fuel.checked_sub(1).expect("out of fuel");
            let get = |regs: &HashMap<(u32, u8), i64>, v: VReg, c: u8| {
                regs.get(&place(v, c)).copied().unwrap_or(0)
            };
            match *op {
                ToyOp::Const { dst, comp, value } => {
                    regs.insert(place(dst, comp), value);
                }
                ToyOp::Add { dst, a, b } => {
                    let s = get(&regs, a, 0) + get(&regs, b, 0);
                    regs.insert(place(dst, 0), s);
                }
                ToyOp::Store { slot, src } => {
                    mem.insert(slot, get(&regs, src, 0));
                }
                ToyOp::Load { dst, slot } => {
                    regs.insert(place(dst, 0), mem.get(&slot).copied().unwrap_or(0));
                }
                ToyOp::Out { src, comp } => outputs.push(get(&regs, src, comp)),
            }
        }
        match f.blocks[b].term {
            ToyTerm::Jump(t) => b = t,
            ToyTerm::Branch { cond, then, els } => {
                let c = regs.get(&place(cond, 0)).copied().unwrap_or(0);
                b = if c != 0 { then } else { els };
            }
            ToyTerm::Ret { result } => {
                let result = result.map(|r| regs.get(&place(r, 0)).copied().unwrap_or(0));
                return Run { outputs, result };
            }
        }
    }
}

impl irc_backend::machine::remat::Rewrite for ToyFn {
    fn new_temp_like(&mut self, v: VReg) -> VReg {
        let t = self.vreg(self.sizes[v.index()]);
        self.no_spill[t.index()] = true;
        t
    }
    fn rematerializable(op: &ToyOp) -> bool {
        matches!(op, ToyOp::Const { .. })
    }
    fn rename_uses(op: &mut ToyOp, from: VReg, to: VReg) {
        let r = |v: &mut VReg| {
            if *v == from {
                *v = to;
            }
        };
        match op {
            ToyOp::Add { a, b, .. } => {
                r(a);
                r(b);
            }
            ToyOp::Store { src, .. } | ToyOp::Out { src, .. } => r(src),
            ToyOp::Const { .. } | ToyOp::Load { .. } => {}
        }
    }
    fn rename_defs(op: &mut ToyOp, from: VReg, to: VReg) {
        match op {
            ToyOp::Const { dst, .. } | ToyOp::Add { dst, .. } | ToyOp::Load { dst, .. } => {
                if *dst == from {
                    *dst = to;
                }
            }
            ToyOp::Store { .. } | ToyOp::Out { .. } => {}
        }
    }
    fn rename_terminator_uses(&mut self, b: usize, from: VReg, to: VReg) {
        if let ToyTerm::Branch { cond: v, .. } | ToyTerm::Ret { result: Some(v) } =
            &mut self.blocks[b].term
        {
            if *v == from {
                *v = to;
            }
        }
    }
    fn set_ops(&mut self, b: usize, ops: Vec<ToyOp>) {
        self.blocks[b].ops = ops;
    }
}
