//! A register-allocator core for lane-structured register files, and its checker.
//!
//! # Model
//!
//! A register file ([`RegFile`]) has `registers` registers of `lanes` scalar lanes each (Lima
//! PP: 6 × 4, PICA: 16 × 4, AGAL: 8 × 4). A virtual register ([`VReg`]) holds `size`
//! components and is given one location ([`Loc`]) for its whole life: component `i` lives in
//! lane `lane + i` of register `reg`. [`VRegInfo::lane0`] pins the first component to lane 0;
//! [`VRegInfo::fixed`] pins the whole location.
//!
//! A [`Program`] is a control-flow graph of [`Block`]s (block 0 is the entry); a block is a list
//! of [`Point`]s, one machine instruction each. A point reads ([`Point::uses`]) and writes
//! ([`Point::defs`]) components of virtual registers; every [`Access`] carries a component mask
//! and a pipeline *stage*. Inside one point, accesses happen in stage order and, at one stage,
//! reads before writes: a read at stage `t` sees the register file before a write at stage
//! `s` iff `t <= s`. Virtual registers are not SSA: they may be written one component at a
//! time and in several blocks, and a partial write leaves the other components alone.
//! A component read on some path before any write is *undefined*; it is treated as written
//! at the entry (it still gets a location, and keeps it until its last read).
//!
//! # Pipeline
//!
//! * [`liveness()`] — component-wise backward dataflow to a fixpoint ([`Liveness`]).
//! * [`interference()`] — "a write conflicts with everything live after it", at the
//!   granularity of the read/write steps inside a point and of components: the graph records
//!   which components of two virtual registers may not share a lane ([`Interference`]), so a
//!   vector with only some components live leaves its other lanes to other values.
//! * `color` — Chaitin–Briggs simplify/select with a lane-aware degree, plus two greedy
//!   orderings and "squeaky wheel" retries; then the same with fewer registers while above
//!   `ceil(max pressure / lanes)`. [`allocate`] runs the three.
//! * [`pressure_spills`] — when some step has more live components than the file has lanes,
//!   the values to spill so that none has, chosen in one go (a weighted set cover over the
//!   over-full steps), without coloring.
//! * [`check`] — a symbolic execution of the allocated program that proves every read finds
//!   the value it expects (regalloc2's checker; DESIGN rule 11).
//!
//! # Using it from a backend
//!
//! * Masks must be exact: a write must list every lane the hardware writes (a write of a
//!   whole register to set `.x` is a write of four components), and nothing more — other
//!   values may live in the lanes it does not list.
//! * Stages order the units of one instruction: a unit reading the register file at stage
//!   `t` sees the writes of stages `< t` of the same instruction and not those of `>= t`.
//! * When [`allocate`] fails, its [`AllocFailure`] lists spill candidates, best first; the
//!   caller inserts spill code (reload and store temporaries get an infinite
//!   [`VRegInfo::spill_cost`]) and calls again. Spilling several candidates per round saves
//!   rounds on large programs. An empty list means spilling cannot help (fixed locations in
//!   conflict, a malformed program, an empty file, or only unspillable values in conflict).

mod checker;
mod color;
mod interference;
mod liveness;
mod pressure;

pub use checker::check;
pub use interference::{interference, Interference};
pub use liveness::{liveness, Liveness};
pub use pressure::{pressure_spills, pressure_spills_with};

use smallvec::SmallVec;
use std::fmt;

/// The shape of a register file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegFile {
    /// Number of registers.
    pub registers: u8,
    /// Scalar lanes per register (1..=8).
    pub lanes: u8,
}

/// A virtual register: an index into [`Program::vregs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

impl VReg {
    /// The index into [`Program::vregs`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// A location: component `i` of a virtual register lives in lane `lane + i` of `reg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Loc {
    pub reg: u8,
    pub lane: u8,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}.{}", self.reg, lane_name(self.lane))
    }
}

/// `x y z w` for lanes 0..4, digits beyond.
pub(crate) fn lane_name(lane: u8) -> char {
    match lane {
        0 => 'x',
        1 => 'y',
        2 => 'z',
        3 => 'w',
        _ => char::from_digit(u32::from(lane), 36).unwrap_or('?'),
    }
}

/// What the allocator must know about a virtual register.
#[derive(Debug, Clone, PartialEq)]
pub struct VRegInfo {
    /// Number of components (1..=lanes).
    pub size: u8,
    /// The first component must live in lane 0.
    pub lane0: bool,
    /// A pre-assigned location.
    pub fixed: Option<Loc>,
    /// relative cost of spilling (uses+defs weighted by loop depth; f32::INFINITY = never
    /// spill, e.g. short spill-reload temporaries)
    pub spill_cost: f32,
}

impl VRegInfo {
    /// A free-floating virtual register of `size` components with spill cost 1.
    pub fn new(size: u8) -> VRegInfo {
        VRegInfo {
            size,
            lane0: false,
            fixed: None,
            spill_cost: 1.0,
        }
    }
}

/// One read or write of some components of a virtual register.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Access {
    pub vreg: VReg,
    /// Pipeline stage inside the point.
    pub stage: u8,
    /// Bit `i` = component `i`.
    pub mask: u8,
}

impl Access {
    pub fn new(vreg: VReg, stage: u8, mask: u8) -> Access {
        Access { vreg, stage, mask }
    }
}

/// One machine instruction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Point {
    pub uses: SmallVec<[Access; 4]>,
    pub defs: SmallVec<[Access; 2]>,
}

impl Point {
    /// The distinct stages of this point's accesses, ascending.
    pub(crate) fn stages(&self) -> SmallVec<[u8; 8]> {
        let mut stages: SmallVec<[u8; 8]> = self
            .uses
            .iter()
            .chain(self.defs.iter())
            .map(|a| a.stage)
            .collect();
        stages.sort_unstable();
        stages.dedup();
        stages
    }
}

/// A basic block: points in order, then a jump to any of `succs`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub points: Vec<Point>,
    pub succs: Vec<usize>,
}

/// A program to allocate: block 0 is the entry; `VReg(i)` is described by `vregs[i]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Program {
    pub blocks: Vec<Block>,
    pub vregs: Vec<VRegInfo>,
}

impl Program {
    /// The largest number of scalar components live at once (counting components written by
    /// a point, even dead ones, at the step that writes them). For statistics; the registers
    /// needed can be higher (a vector occupies all its lanes while any component is live).
    pub fn max_pressure(&self) -> u32 {
        let live = liveness(self);
        let mut scan = liveness::Scanner::new(self.vregs.len());
        let mut max = 0;
        for block in 0..self.blocks.len() {
            scan.run(self, block, live.live_out(block), |event| {
                max = max.max(event.pressure());
            });
        }
        max
    }
}

/// The result of [`allocate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    /// One per virtual register; `None` = never accessed.
    pub locs: Vec<Option<Loc>>,
    /// Highest register index used + 1.
    pub registers_used: u8,
}

impl Allocation {
    /// The location of `v`, if it has one.
    pub fn loc(&self, v: VReg) -> Option<Loc> {
        self.locs.get(v.index()).copied().flatten()
    }
}

/// Why [`allocate`] gave up.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("register allocation failed: {message}")]
pub struct AllocFailure {
    /// best spill candidates first (never an infinite-cost vreg; empty if nothing can be
    /// spilled)
    pub spill_candidates: Vec<VReg>,
    pub message: String,
}

/// An allocation the [`check`]er rejects (or a malformed program). `block` and `point` locate
/// the offending point; errors about a virtual register's location point at its first access.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("block {block}, point {point}: {message}")]
pub struct CheckError {
    pub block: usize,
    pub point: usize,
    pub message: String,
}

/// A malformed program or register file (see [`validate`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    #[error("a register file of {0} lanes per register is not supported (1 to 8)")]
    Lanes(u8),
    #[error("{vreg}: size {size} is not in 1..={lanes}")]
    Size { vreg: VReg, size: u8, lanes: u8 },
    #[error("{vreg}: fixed location {loc} does not fit (size {size}, lane0 {lane0}, file {registers} × {lanes})")]
    Fixed {
        vreg: VReg,
        loc: Loc,
        size: u8,
        lane0: bool,
        registers: u8,
        lanes: u8,
    },
    #[error("{vreg}: spill cost is NaN")]
    SpillCost { vreg: VReg },
    #[error("block {block}: successor {succ} does not exist ({blocks} blocks)")]
    Succ {
        block: usize,
        succ: usize,
        blocks: usize,
    },
    #[error("block {block}, point {point}: {vreg} does not exist ({count} vregs)")]
    VRegIndex {
        block: usize,
        point: usize,
        vreg: VReg,
        count: usize,
    },
    #[error("block {block}, point {point}: {vreg} accessed with mask {mask:#04x}, but its size is {size}")]
    Mask {
        block: usize,
        point: usize,
        vreg: VReg,
        mask: u8,
        size: u8,
    },
}

impl ProgramError {
    /// The (block, point) the error is about, if any.
    pub fn location(&self) -> Option<(usize, usize)> {
        match *self {
            ProgramError::VRegIndex { block, point, .. }
            | ProgramError::Mask { block, point, .. } => Some((block, point)),
            ProgramError::Succ { block, .. } => Some((block, 0)),
            _ => None,
        }
    }
}

/// Checks that `program` is well formed for `file`: lanes in 1..=8, sizes in 1..=lanes,
/// fixed locations inside the file (and at lane 0 for `lane0` vregs), no NaN spill cost,
/// successors and vregs that exist, masks that are non-empty and within the vreg's size.
/// [`allocate`] and [`check`] call it first; [`liveness()`] ignores what it would reject.
pub fn validate(file: &RegFile, program: &Program) -> Result<(), ProgramError> {
    if file.lanes == 0 || file.lanes > 8 {
        return Err(ProgramError::Lanes(file.lanes));
    }
    for (i, info) in program.vregs.iter().enumerate() {
        let vreg = VReg(i as u32);
        if info.size == 0 || info.size > file.lanes {
            return Err(ProgramError::Size {
                vreg,
                size: info.size,
                lanes: file.lanes,
            });
        }
        if let Some(loc) = info.fixed {
            let fits = loc.reg < file.registers
                && u32::from(loc.lane) + u32::from(info.size) <= u32::from(file.lanes)
                && (!info.lane0 || loc.lane == 0);
            if !fits {
                return Err(ProgramError::Fixed {
                    vreg,
                    loc,
                    size: info.size,
                    lane0: info.lane0,
                    registers: file.registers,
                    lanes: file.lanes,
                });
            }
        }
        if info.spill_cost.is_nan() {
            return Err(ProgramError::SpillCost { vreg });
        }
    }
    for (b, block) in program.blocks.iter().enumerate() {
        if let Some(&succ) = block.succs.iter().find(|&&s| s >= program.blocks.len()) {
            return Err(ProgramError::Succ {
                block: b,
                succ,
                blocks: program.blocks.len(),
            });
        }
        for (p, point) in block.points.iter().enumerate() {
            for a in point.uses.iter().chain(point.defs.iter()) {
                let Some(info) = program.vregs.get(a.vreg.index()) else {
                    return Err(ProgramError::VRegIndex {
                        block: b,
                        point: p,
                        vreg: a.vreg,
                        count: program.vregs.len(),
                    });
                };
                if a.mask == 0 || u32::from(a.mask) >= 1u32 << info.size {
                    return Err(ProgramError::Mask {
                        block: b,
                        point: p,
                        vreg: a.vreg,
                        mask: a.mask,
                        size: info.size,
                    });
                }
            }
        }
    }
    Ok(())
}

/// Assigns a location to every accessed virtual register of `program` so that no write
/// clobbers a live component of another virtual register, honouring sizes, `lane0` and
/// `fixed`, using as few registers as it can. On failure, returns spill candidates.
pub fn allocate(file: &RegFile, program: &Program) -> Result<Allocation, AllocFailure> {
    allocate_with(file, program, &liveness(program))
}

/// [`allocate`] with the program's [`liveness()`] already computed (the spill driver computes
/// it once for the pressure check and the allocation).
pub fn allocate_with(
    file: &RegFile,
    program: &Program,
    live: &Liveness,
) -> Result<Allocation, AllocFailure> {
    validate(file, program).map_err(|e| AllocFailure {
        spill_candidates: Vec::new(),
        message: e.to_string(),
    })?;
    let graph = interference(program, live);
    color::color(file, program, &graph)
}
