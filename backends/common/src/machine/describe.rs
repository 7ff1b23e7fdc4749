//! Building the allocator's [`regalloc::Program`] from a scheduled machine program.
//!
//! A backend walks its scheduled blocks and hands every instruction's [`Point`] (made with
//! [`super::point`] from the ops' operands, plus whatever its branch unit or program end
//! reads) to a [`ProgramBuilder`], which also counts spill costs the usual way: every access
//! of a value adds the weight of its block, `10^min(loop depth, 6)`, and the total is divided
//! by the value's size; values that must never spill (reload temporaries) cost infinity; a
//! value never accessed costs the floor of 0.1.

use crate::regalloc::{self, Point, VReg, VRegInfo};

/// Block weight for spill costs: `10^min(depth, 6)`.
pub fn block_weight(depth: u32) -> f32 {
    10f32.powi(depth.min(6) as i32)
}

/// Spill cost of a value of `size` components accessed with total weight `accesses`.
pub fn spill_cost(accesses: f32, size: u8, no_spill: bool) -> f32 {
    if no_spill {
        f32::INFINITY
    } else {
        accesses.max(0.1) / f32::from(size)
    }
}

/// What the allocator must know about a virtual register besides its accesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VRegShape {
    pub size: u8,
    /// The first component must live in lane 0.
    pub lane0: bool,
    /// Never spill (infinite spill cost).
    pub no_spill: bool,
}

/// Accumulates blocks and points into a [`regalloc::Program`].
#[derive(Debug, Clone, Default)]
pub struct ProgramBuilder {
    program: regalloc::Program,
    costs: Vec<f32>,
    weight: f32,
}

impl ProgramBuilder {
    /// A builder for a program of `vregs` virtual registers.
    pub fn new(vregs: usize) -> ProgramBuilder {
        ProgramBuilder {
            program: regalloc::Program::default(),
            costs: vec![0.0; vregs],
            weight: 1.0,
        }
    }

    /// Starts the next block (blocks are numbered in call order).
    pub fn block(&mut self, succs: Vec<usize>, depth: u32) {
        self.weight = block_weight(depth);
        self.program.blocks.push(regalloc::Block {
            points: Vec::new(),
            succs,
        });
    }

    /// Appends a point to the current block.
    pub fn point(&mut self, point: Point) {
        for a in point.uses.iter().chain(point.defs.iter()) {
            if let Some(c) = self.costs.get_mut(a.vreg.index()) {
                *c += self.weight;
            }
        }
        if self.program.blocks.is_empty() {
            self.block(Vec::new(), 0);
        }
        if let Some(b) = self.program.blocks.last_mut() {
            b.points.push(point);
        }
    }

    /// The program, with every virtual register described by `shape`.
    pub fn finish(mut self, shape: impl Fn(VReg) -> VRegShape) -> regalloc::Program {
        self.program.vregs = self
            .costs
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let s = shape(VReg(i as u32));
                VRegInfo {
                    size: s.size,
                    lane0: s.lane0,
                    fixed: None,
                    spill_cost: spill_cost(c, s.size, s.no_spill),
                }
            })
            .collect();
        self.program
    }
}
