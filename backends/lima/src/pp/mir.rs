//! The PP machine IR between lowering and encoding.
//!
//! A [`Program`] is a list of blocks in layout order; each block holds [`MOp`]s (one hardware
//! unit operation or a fixed group of them that must share an instruction, like a multiply
//! feeding an add through `^fmul`) on virtual registers, and a [`Terminator`]. The scheduler
//! ([`super::sched`]) packs the ops of a block into instructions ([`super::sched::Instr`]); the register
//! allocator ([`super::regalloc`]) gives every virtual register a place in `$0..$5`; the
//! emitter ([`super::emit`]) turns bundles into [`super::Instruction`]s.
//!
//! Values are virtual registers of 1–4 components. An op writes `width` components of its
//! destination starting at component `dst_comp` (so a vector can be built piecewise and an
//! output register filled by the ops computing it). Sources select components by a swizzle;
//! constants, uniforms, spill reloads and the texture result are *pipeline* operands that the
//! scheduler places in the instruction's constant fields, uniform unit or sampler.

use half::f16;
use irc_backend::machine::cfg::{Cfg, CfgEdit};
use irc_backend::machine::{use_at, MachFunction, Operands, Slot};
use irc_backend::regalloc::VReg;
use smallvec::{smallvec, SmallVec};

use super::isa::{MulOp, OutMod, SamplerType};

/// The scheduler's unit classes (hardware units an op can occupy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnitKind {
    Varying,
    Sampler,
    Uniform,
    VMul,
    SMul,
    VAdd,
    SAdd,
    Combine,
    TempWrite,
    Branch,
}

/// Stage of the reads made at the end of the program (outputs), after every unit.
pub const END_STAGE: u8 = 7;

impl UnitKind {
    pub const COUNT: usize = 10;
    /// Pipeline stage (units of one stage run in parallel; later stages see earlier results
    /// only through pipeline registers).
    pub const fn stage(self) -> u8 {
        match self {
            UnitKind::Varying => 0,
            UnitKind::Sampler => 1,
            UnitKind::Uniform => 2,
            UnitKind::VMul | UnitKind::SMul => 3,
            UnitKind::VAdd | UnitKind::SAdd => 4,
            UnitKind::Combine | UnitKind::Branch => 5,
            UnitKind::TempWrite => 6,
        }
    }
    pub const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A pipeline or register operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Operand {
    /// Components `swz[i]` of a virtual register.
    Reg(VReg, [u8; 4]),
    /// fp16 constant per component.
    Const([f16; 4]),
    /// Components `swz[i]` of uniform slot `slot` (+ the integer value of `offset`'s
    /// component when indexed dynamically).
    Uniform {
        slot: u32,
        swz: [u8; 4],
        offset: Option<(VReg, u8)>,
    },
    /// Reload of a spilled register: temporary-stack slot `slot`, components `swz[i]` of the
    /// value `of` (stored as the whole vec4 register `of` lived in).
    Temp { slot: u32, of: VReg, swz: [u8; 4] },
    /// `^texture` components (only inside a [`Kind::Texture`] group).
    Texture([u8; 4]),
}

impl Operand {
    pub fn reg(v: VReg, comp: u8) -> Operand {
        Operand::Reg(v, [comp; 4])
    }
    pub fn vreg(&self) -> Option<VReg> {
        match self {
            Operand::Reg(v, _) => Some(*v),
            _ => None,
        }
    }
}

/// A source: operand with input modifiers (abs first, then negate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Src {
    pub op: Operand,
    pub abs: bool,
    pub neg: bool,
}

impl Src {
    pub fn new(op: Operand) -> Src {
        Src {
            op,
            abs: false,
            neg: false,
        }
    }
    pub fn negated(mut self) -> Src {
        self.neg = !self.neg;
        self
    }
    pub fn absolute(mut self) -> Src {
        self.abs = true;
        self.neg = false;
        self
    }
}

/// A one-unit ALU operation (the unit is chosen by the scheduler among [`Alu::units`]; its
/// facts are in [`super::facts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Alu {
    Mov,
    Mul,
    Add,
    Min,
    Max,
    Gt,
    Ge,
    Eq,
    Ne,
    Not,
    And,
    Or,
    Floor,
    Ceil,
    Fract,
    Sum3,
    Sum4,
    /// `arg0 (right/bottom lane) + arg1 (left/top lane)`: sources carry Mesa's negations.
    DdxRaw,
    DdyRaw,
    Rcp,
    Rsqrt,
    Sqrt,
    Exp2,
    Log2,
    /// Argument in turns (the caller scales by 1/2π).
    Sin,
    Cos,
}

/// Where texture coordinates come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Coords {
    /// Straight from varying slot `slot` (keeps the sampler path's extra precision).
    Varying { slot: u32, components: u8 },
    /// From a register value.
    Reg(Src),
}

/// What an op does.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// One ALU op: `dst = alu(srcs)`.
    Alu(Alu),
    /// `dst = srcs[0] · srcs[1] + srcs[2]` in a mul unit feeding the add unit of the same
    /// instruction (`^vmul` / `^fmul`).
    Mad,
    /// `dst = min(max(srcs[0], srcs[1]), srcs[2])` (`FClamp`): the max in a mul unit feeding
    /// the min in the add unit of the same instruction (`^vmul` / `^fmul`), so that a clamp
    /// costs one instruction on the path instead of two.
    Clamp,
    /// `dst = (cmp(srcs[0], srcs[1]) == srcs[2]) ? 1.0 : 0.0`: the comparison in a mul unit
    /// feeding an `eq` in the add unit of the same instruction (`^vmul` / `^fmul`). With
    /// `srcs[2]` = 0.0 it is the comparison's `not` (a comparison gives exactly 1.0 or 0.0),
    /// one instruction on the path instead of a comparison and a `not` in the next one.
    CompareEq(MulOp),
    /// `dst = cond(srcs[0], srcs[1]) ? srcs[2] : srcs[3]`: the condition computed in the
    /// scalar mul unit (`^fmul`), the select in an add unit.
    Select(MulOp),
    /// `dst = combiner scalar srcs[0] × vec4 srcs[1]`.
    ScaleVec,
    /// Varying slot load (`alignment` 0 scalar, 1 vec2, 3 vec4; `index` in those units).
    Varying {
        alignment: u8,
        index: u32,
        perspective: u8,
    },
    /// gl_FragCoord / gl_FrontFacing / gl_PointCoord.
    Special(super::isa::VaryingKind),
    /// Texture fetch into `dst` (varying unit → `^discard` → sampler → mov `^texture`).
    Texture {
        sampler: u32,
        ty: SamplerType,
        coords: Coords,
        /// Register holding the LOD (explicit) or bias.
        lod: Option<(VReg, u8, bool)>,
        swz: [u8; 4],
        /// The op that takes the texel from `^texture` in the fetch's own instruction instead
        /// of the move ([`super::fuse`]): then `srcs` are that op's sources, one of them
        /// [`Operand::Texture`] (and `swz` is unused), and `dst` its result.
        reader: Option<Reader>,
    },
    /// Store `srcs[0]` to the temporary stack at scalar index `slot`: one component (`width`
    /// 1), or a whole register holding a vec4 value at lane 0 (`width` 4, `slot` a multiple of
    /// 4: one vec4-aligned store instead of four scalar ones).
    Spill { slot: u32 },
}

/// What a fused texture fetch's reader is ([`Kind::Texture`]'s `reader`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reader {
    Alu(Alu),
    Mad,
    Clamp,
}

impl Reader {
    pub fn kind(self) -> Kind {
        match self {
            Reader::Alu(a) => Kind::Alu(a),
            Reader::Mad => Kind::Mad,
            Reader::Clamp => Kind::Clamp,
        }
    }
}

/// One machine op (before unit assignment).
#[derive(Debug, Clone, PartialEq)]
pub struct MOp {
    pub kind: Kind,
    /// Destination value, first component written, number of components.
    pub dst: Option<VReg>,
    pub dst_comp: u8,
    pub width: u8,
    pub srcs: SmallVec<[Src; 4]>,
    pub modifier: OutMod,
}

impl MOp {
    pub fn alu(alu: Alu, dst: VReg, dst_comp: u8, width: u8, srcs: &[Src]) -> MOp {
        MOp {
            kind: Kind::Alu(alu),
            dst: Some(dst),
            dst_comp,
            width,
            srcs: srcs.iter().copied().collect(),
            modifier: OutMod::None,
        }
    }
    /// The reader of a fused texture fetch as an op of its own (its sources read `^texture`).
    pub fn texture_reader(&self) -> Option<MOp> {
        match self.kind {
            Kind::Texture {
                reader: Some(r), ..
            } => Some(MOp {
                kind: r.kind(),
                ..self.clone()
            }),
            _ => None,
        }
    }
    /// Component mask written in the destination.
    pub fn dst_mask(&self) -> u8 {
        (((1u16 << self.width) - 1) << self.dst_comp) as u8
    }
}

/// How a block ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Terminator {
    /// Continue with block `0`.
    Jump(usize),
    /// If `cond` (a scalar register component, 1.0/0.0) is non-zero go to `then`, else `els`.
    Branch {
        cond: (VReg, u8),
        then: usize,
        els: usize,
    },
    /// End of the program: outputs are read here; when `kill` is set, lanes whose flag
    /// component is non-zero are discarded.
    Exit { kill: Option<(VReg, u8)> },
    /// Unconditional discard.
    Discard,
}

impl Terminator {
    /// Calls `f` on every successor block index.
    pub fn for_each_target(&mut self, mut f: impl FnMut(&mut usize)) {
        match self {
            Terminator::Jump(t) => f(t),
            Terminator::Branch { then, els, .. } => {
                f(then);
                f(els);
            }
            Terminator::Exit { .. } | Terminator::Discard => {}
        }
    }
}

/// A block of machine ops.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub ops: Vec<MOp>,
    pub term: Terminator,
    /// Loop nesting depth (for spill costs).
    pub depth: u32,
}

/// Size and placement constraint of a virtual register.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VRegData {
    pub size: u8,
    /// Must start at lane x (loads/stores/outputs without swizzle).
    pub lane0: bool,
    /// A spill reload: never spilled again.
    pub no_spill: bool,
}

/// A lowered program.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Program {
    pub blocks: Vec<Block>,
    pub vregs: Vec<VRegData>,
    /// Output registers: (source, value, components) — read at every [`Terminator::Exit`].
    pub outputs: Vec<(irc_backend::IoSource, VReg, u8)>,
    /// Temporary-stack slots used by spills.
    pub spill_slots: u32,
}

impl Program {
    pub fn new_vreg(&mut self, size: u8, lane0: bool) -> VReg {
        self.vregs.push(VRegData {
            size,
            lane0,
            no_spill: false,
        });
        VReg(self.vregs.len() as u32 - 1)
    }
    /// A register holding a spill reload.
    pub fn new_vreg_nospill(&mut self, size: u8) -> VReg {
        self.vregs.push(VRegData {
            size,
            lane0: false,
            no_spill: true,
        });
        VReg(self.vregs.len() as u32 - 1)
    }
    /// Successor blocks of every block.
    pub fn succs(&self) -> Vec<Vec<usize>> {
        (0..self.blocks.len())
            .map(|b| Cfg::succs(self, b).into_vec())
            .collect()
    }
}

/// The single uniform/temporary load of an instruction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UniformUse {
    Uniform {
        slot: u32,
        offset: Option<(VReg, u8)>,
    },
    Temp {
        slot: u32,
    },
}

impl Cfg for Program {
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn succs(&self, b: usize) -> SmallVec<[usize; 2]> {
        match &self.blocks[b].term {
            Terminator::Jump(t) => smallvec![*t],
            Terminator::Branch { then, els, .. } => smallvec![*then, *els],
            Terminator::Exit { .. } | Terminator::Discard => SmallVec::new(),
        }
    }
}

impl CfgEdit for Program {
    fn add_jump_block(&mut self, target: usize, like: usize) -> usize {
        let depth = self.blocks[like].depth;
        self.blocks.push(Block {
            ops: Vec::new(),
            term: Terminator::Jump(target),
            depth,
        });
        self.blocks.len() - 1
    }
    fn retarget(&mut self, from: usize, old: usize, new: usize) {
        self.blocks[from].term.for_each_target(|t| {
            if *t == old {
                *t = new;
            }
        });
    }
}

impl MachFunction for Program {
    type Op = MOp;
    fn ops(&self, b: usize) -> &[MOp] {
        &self.blocks[b].ops
    }
    fn retain_ops(&mut self, b: usize, keep: &mut dyn FnMut(usize) -> bool) {
        let mut i = 0;
        self.blocks[b].ops.retain(|_| {
            i += 1;
            keep(i - 1)
        });
    }
    /// A branch reads its condition; the exit reads the kill flag and every output.
    fn terminator_uses(&self, b: usize, out: &mut Operands) {
        let at_end = Slot::Stage(END_STAGE);
        match &self.blocks[b].term {
            Terminator::Branch { cond, .. } => use_at(
                out,
                cond.0,
                1 << cond.1,
                Slot::Stage(UnitKind::Branch.stage()),
            ),
            Terminator::Exit { kill } => {
                if let Some(k) = kill {
                    use_at(out, k.0, 1 << k.1, Slot::Stage(UnitKind::Branch.stage()));
                }
                for o in &self.outputs {
                    let size = self.vregs[o.1 .0 as usize].size;
                    use_at(out, o.1, ((1u16 << size) - 1) as u8, at_end);
                }
            }
            Terminator::Jump(_) | Terminator::Discard => {}
        }
    }
    fn num_vregs(&self) -> usize {
        self.vregs.len()
    }
    fn vreg_size(&self, v: VReg) -> u8 {
        self.vregs[v.0 as usize].size
    }
    fn remap_blocks(&mut self, map: &[Option<usize>]) {
        let blocks = std::mem::take(&mut self.blocks);
        for (i, mut b) in blocks.into_iter().enumerate() {
            if map.get(i).copied().flatten().is_none() {
                continue;
            }
            b.term
                .for_each_target(|t| *t = map[*t].unwrap_or(usize::MAX));
            self.blocks.push(b);
        }
    }
}
