//! The machine layer: what every backend does between lowering and encoding, written once.
//!
//! A backend lowers IR into its own machine ops on virtual registers ([`VReg`]), grouped in
//! blocks. Everything after that — liveness, dead-write removal, the scheduler's dependence
//! graph, the register allocator's view of the program, the schedule → allocate → spill loop —
//! needs the same fact about every op: *which components of which virtual registers it reads
//! and writes, and when inside the instruction*. [`MachOp::operands`] states it once (in the
//! spirit of regalloc2's operand interface and Cranelift's `MachInst::get_operands`), and the
//! generic pieces of this module read nothing else:
//!
//! * [`MachFunction`] — blocks of [`MachOp`]s with a [`cfg::Cfg`] and the reads of each
//!   block's terminator;
//! * [`point`] — one allocator [`Point`] from the operands of the ops sharing an instruction,
//!   and [`describe::ProgramBuilder`] for the whole [`crate::regalloc::Program`] with spill costs;
//! * [`deps`] — the scheduler's dependence graph of one block (register and memory order), and
//!   [`list::list_schedule`], windowed list scheduling into target-defined bundles;
//! * [`dce`] — dead-write removal and unreachable-block removal;
//! * [`cfg`](mod@cfg) — a small CFG interface with the lowering helpers built on it: edge blocks for
//!   moves on critical edges, loop depth;
//! * [`copies`] — sequencing parallel copies (phi moves) into ordinary moves;
//! * [`spill`] — the schedule → allocate → spill driver with a pluggable [`spill::SpillStrategy`]
//!   ([`spill::NoSpill`] for a plain limit error, [`remat::Rematerialize`] for targets without
//!   memory, the backend's own memory spill otherwise);
//! * [`buffer`] — a label/fixup code buffer for fixed-size-instruction targets.
//!
//! # Stages
//!
//! An operand is tied to a [`Slot`]: the *n*-th unit of the op's placement ([`Slot::Unit`]),
//! its last unit ([`Slot::Last`]), or a fixed pipeline stage ([`Slot::Stage`]). The backend
//! maps slots to the stages of [`Access`] with [`MachOp::stage`] once the scheduler has chosen
//! the units; before scheduling (`units` empty) the same function gives the op's default
//! stages. Inside one point, reads at a stage happen before writes at the same stage (see
//! [`crate::regalloc`]).
//!
//! # Putting a backend on it (Lima PP is the worked example)
//!
//! 1. Implement [`MachOp`] for the machine op (Lima PP: `pp/facts.rs`, next to the op's unit
//!    options and opcodes) and [`MachFunction`] + [`cfg::CfgEdit`] for the program.
//! 2. Lower with [`cfg::edge_block`] and [`copies::sequence`] for phi moves and
//!    [`cfg::loop_depths`] for spill weights; clean up with [`dce::remove_unreachable`] and
//!    [`dce::dead_writes`].
//! 3. Schedule each block with [`list::list_schedule`] (or your own scheduler on
//!    [`deps::deps`]); implement [`spill::Schedulable`] (schedule with
//!    an attempt parameter, describe with [`point`] and [`describe::ProgramBuilder`]) and run
//!    [`spill::schedule_and_allocate`] with a [`spill::SpillStrategy`]; check the result with
//!    [`crate::regalloc::check`].
//! 4. Encode through the target's [`crate::bits`] table, with a [`buffer::CodeBuffer`] when
//!    instructions have a fixed size.

pub mod buffer;
pub mod cfg;
pub mod copies;
pub mod dce;
pub mod deps;
pub mod depth;
pub mod describe;
pub mod list;
pub mod pressure;
pub mod remat;
pub mod spill;

use smallvec::SmallVec;

use crate::regalloc::{Access, Point, VReg};

/// Whether an operand is read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Use,
    Def,
}

/// When inside its instruction an operand is accessed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    /// By the `n`-th unit of the op's placement.
    Unit(u8),
    /// By the last unit of the op's placement.
    Last,
    /// At a fixed pipeline stage, wherever the op is placed.
    Stage(u8),
}

/// One register operand: components `mask` of `vreg`, read or written at `slot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operand {
    pub vreg: VReg,
    /// Bit `i` = component `i`.
    pub mask: u8,
    pub role: Role,
    pub slot: Slot,
}

/// A memory location an op loads from or stores to (spill slots, scratch): the dependence
/// graph keeps loads after earlier stores of the same slot and stores after earlier loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Memory {
    Load(u32),
    Store(u32),
}

/// The operands of one op, in the op's own order.
pub type Operands = SmallVec<[Operand; 6]>;

/// Adds a read.
pub fn use_at(out: &mut Operands, vreg: VReg, mask: u8, slot: Slot) {
    out.push(Operand {
        vreg,
        mask,
        role: Role::Use,
        slot,
    });
}

/// Adds a write.
pub fn def_at(out: &mut Operands, vreg: VReg, mask: u8, slot: Slot) {
    out.push(Operand {
        vreg,
        mask,
        role: Role::Def,
        slot,
    });
}

/// A machine op on virtual registers.
pub trait MachOp {
    /// What the scheduler places the op on (a hardware unit, an issue slot …).
    type Unit: Copy;

    /// Every register operand: the one description used by liveness, dead-write removal, the
    /// dependence graph, the allocator's program and the checker.
    fn operands(&self, out: &mut Operands);

    /// Memory accesses (for the dependence graph). Default: none.
    fn memory(&self, _out: &mut SmallVec<[Memory; 2]>) {}

    /// Whether the op may be deleted when nothing reads what it writes (false for stores
    /// and other side effects).
    fn removable(&self) -> bool;

    /// The pipeline stage of `slot` when the op occupies `units` (empty before scheduling).
    fn stage(slot: Slot, units: &[Self::Unit]) -> u8;

    /// The operands as a fresh list.
    fn operand_list(&self) -> Operands {
        let mut out = Operands::new();
        self.operands(&mut out);
        out
    }
}

/// Blocks of machine ops (block 0 is the entry).
pub trait MachFunction: cfg::Cfg {
    type Op: MachOp;

    /// The ops of block `b`, in order.
    fn ops(&self, b: usize) -> &[Self::Op];

    /// Keeps the ops of block `b` for which `keep(index)` holds.
    fn retain_ops(&mut self, b: usize, keep: &mut dyn FnMut(usize) -> bool);

    /// Reads made by block `b`'s terminator (branch conditions, values read at exit).
    fn terminator_uses(&self, b: usize, out: &mut Operands);

    /// Number of virtual registers.
    fn num_vregs(&self) -> usize;

    /// Number of components of `v`.
    fn vreg_size(&self, v: VReg) -> u8;

    /// Deletes the blocks whose `map` entry is `None` and renumbers the others (and every
    /// block reference) to `map[b]`; kept blocks stay in layout order.
    fn remap_blocks(&mut self, map: &[Option<usize>]);
}

/// Adds the accesses of `op` placed on `units` to `point`.
pub fn point<O: MachOp>(op: &O, units: &[O::Unit], point: &mut Point) {
    let mut ops = Operands::new();
    op.operands(&mut ops);
    for o in ops {
        let a = Access::new(o.vreg, O::stage(o.slot, units), o.mask);
        match o.role {
            Role::Use => point.uses.push(a),
            Role::Def => point.defs.push(a),
        }
    }
}
