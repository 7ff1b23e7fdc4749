//! Register allocation for `pica-vs`: the sixteen vec4 temporaries r0–r15 through the shared
//! allocator core ([`irc_backend::regalloc`]), checked by its symbolic checker, over the
//! control-flow graph of the program's flow markers ([`Program::blocks`]).
//!
//! Each machine op is one point; its operands' virtual-register components are uses and its
//! destination's components a def, all at stage 0 (PICA reads every source before it writes),
//! so a destination may reuse the lanes of a source that dies in the same instruction. PICA has
//! no memory to spill to: a program that does not fit is a [`Diagnostic::limit`].

use irc_backend::machine::describe::{ProgramBuilder, VRegShape};
use irc_backend::regalloc::{self, Access, Allocation, Point, RegFile};
use irc_backend::Diagnostic;

use crate::lower::mir::{CfgBlock, Dst, Program, Reg};

/// r0–r15.
pub const FILE: RegFile = RegFile {
    registers: 16,
    lanes: 4,
};

/// The allocator's view of the program: one block for straight-line code, the blocks of
/// [`Program::blocks`] with flow control.
pub fn describe(p: &Program) -> Result<regalloc::Program, Diagnostic> {
    let mut b = ProgramBuilder::new(p.vregs.len());
    let blocks = if p.has_flow() {
        p.blocks()
            .map_err(|e| Diagnostic::internal(None, format!("flow markers: {e}")))?
    } else {
        vec![CfgBlock {
            start: 0,
            end: p.ops.len(),
            succs: Vec::new(),
            depth: 0,
        }]
    };
    for blk in &blocks {
        b.block(blk.succs.clone(), blk.depth);
        for op in &p.ops[blk.start..blk.end] {
            let mut pt = Point::default();
            for s in &op.srcs {
                if let Reg::V(v) = s.reg {
                    pt.uses.push(Access::new(v, 0, s.read_mask()));
                }
            }
            if let Dst::V(v, mask) = op.dst {
                pt.defs.push(Access::new(v, 0, mask));
            }
            b.point(pt);
        }
    }
    Ok(b.finish(|v| VRegShape {
        size: p.vregs[v.index()],
        lane0: false,
        no_spill: false,
    }))
}

/// Allocates and checks; a program needing more than r0–r15 is a limit error.
pub fn allocate(p: &Program) -> Result<(Allocation, regalloc::Program), Diagnostic> {
    let desc = describe(p)?;
    let alloc = regalloc::allocate(&FILE, &desc).map_err(|e| {
        Diagnostic::limit(format!(
            "more values live at once than the 16 temporary registers hold \
             (pressure {} components; no memory to spill to): {}",
            desc.max_pressure(),
            e.message
        ))
    })?;
    regalloc::check(&FILE, &desc, &alloc).map_err(|e| {
        Diagnostic::internal(None, format!("register allocation check failed: {e}"))
    })?;
    Ok((alloc, desc))
}
