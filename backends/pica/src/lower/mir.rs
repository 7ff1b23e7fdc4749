//! The machine ops `pica-vs` lowers to: PICA200 instructions on virtual vec4 registers.
//!
//! An operand names a register (a virtual register, an input `v`, a float uniform `c` or a
//! compiler constant from the literal pool) with a selector per *position* and a negation. For
//! a *component-wise* op (ADD, MUL, MAD, MAX, MIN, SGE, SLT, FLR, MOV) position `i` feeds
//! result component `i`, and the emitter shifts positions by the lane the destination gets;
//! for DP3/DP4/DPH and the scalar ops (RCP, RSQ, EX2, LG2) positions are the hardware's own.
//!
//! Structured flow control is a [`Dst::Flow`] op in the same list: a CMP setting the flags,
//! and markers opening and closing an if/else or a loop and leaving it ([`Flow`]). The markers
//! nest properly; [`Program::blocks`] derives the control-flow graph the register allocator
//! needs, and the emitter turns them into IFC/LOOP/BREAKC words with their addresses.

use irc_backend::regalloc::VReg;
use smallvec::SmallVec;

use crate::isa::{CmpOp, Opcode};

/// What an operand reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reg {
    /// A virtual register; the selector picks its components.
    V(VReg),
    /// Input register `v<n>`; the selector picks lanes.
    In(u8),
    /// Float uniform `c<n>` of the application.
    Uni(u8),
    /// Entry `k` of the literal pool (a DEF uniform placed after the application's).
    Lit(u16),
    /// Float uniform `c[n + a0.x]` (`a == 0`) or `c[n + a0.y]` (`a == 1`), relative
    /// addressing (§7): `n` as in [`Reg::Uni`].
    UniRel(u8, u8),
}

impl Reg {
    /// Float uniforms (application or literal) only fit the wide source slot.
    pub fn is_uniform(self) -> bool {
        matches!(self, Reg::Uni(_) | Reg::Lit(_) | Reg::UniRel(..))
    }
}

/// A source operand: register, per-position selector, negation; `n` positions are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand {
    pub reg: Reg,
    pub swz: [u8; 4],
    pub neg: bool,
    pub n: u8,
}

impl Operand {
    /// The components (lanes) of the register this operand reads.
    pub fn read_mask(&self) -> u8 {
        self.swz[..self.n as usize]
            .iter()
            .fold(0, |m, &c| m | (1 << c))
    }
}

/// Where an op writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dst {
    /// Components `mask` (bit i = component i) of a virtual register.
    V(VReg, u8),
    /// Lanes `mask` (bit i = lane i) of output register `o<n>`.
    Out(u8, u8),
    /// The address register `a0` (MOVA): bit 0 = a0.x, bit 1 = a0.y.
    A0(u8),
    /// Geometry shaders: `SETEMIT` with these flags, then `EMIT` (an op without sources).
    Emit(EmitFlags),
    /// Flow control (the op's `op` is CMP, IFC, LOOP, BREAKC or NOP for a pure marker).
    Flow(Flow),
}

/// What an if tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IfCond {
    /// `cmp.x == value` (IFC).
    Cmp(bool),
    /// Bool uniform `b<id>` is set (IFU).
    Bool(u8),
}

/// How a loop counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopKind {
    /// Two nested LOOPs on the DEF'd int uniform (up to 65,536 iterations), left by BREAKC.
    Pair,
    /// One LOOP on int uniform `i<n>`, which holds a D3D9 `rep`/`loop` count (reflection:
    /// `UniformSource::LegacyLoop`): exactly that many iterations, BREAKCs allowed.
    Counted(u8),
}

/// A flow-control op. Conditions test `cmp.x` as set by the last [`Flow::Cmp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// CMP: cmp.x = src0.x `x` src1.x, cmp.y = src0.y `y` src1.y (src0 is the wide slot).
    Cmp(CmpOp, CmpOp),
    /// Opens an if (IFC on the cmp flags, or IFU on a bool uniform).
    If(IfCond),
    /// Ends the then-arm and opens the else-arm.
    Else,
    /// Closes an if.
    EndIf,
    /// Opens a loop (see [`LoopKind`] and the emitter).
    Loop(LoopKind),
    /// Leaves the innermost loop when `cmp.x == value` (BREAKC).
    Break(bool),
    /// Closes a loop: the back edge.
    EndLoop,
}

/// The operands of `SETEMIT` (§4 format 4): the vertex slot (0–2) the next `EMIT` fills, whether
/// that `EMIT` also emits the triangle of slots 0, 1, 2, and whether its winding is inverted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmitFlags {
    pub vertex: u8,
    pub primitive: bool,
    pub winding: bool,
}

/// One machine op (one instruction).
#[derive(Debug, Clone, PartialEq)]
pub struct MOp {
    /// The hardware opcode, inverted forms (SGEI, SLTI, MADI) included.
    pub op: Opcode,
    pub dst: Dst,
    pub srcs: SmallVec<[Operand; 3]>,
}

impl MOp {
    /// Whether positions follow the destination's components (see the module doc).
    pub fn componentwise(&self) -> bool {
        !matches!(
            self.op,
            Opcode::Dp3
                | Opcode::Dp4
                | Opcode::Dph
                | Opcode::Dphi
                | Opcode::Rcp
                | Opcode::Rsq
                | Opcode::Ex2
                | Opcode::Lg2
                | Opcode::Dst
                | Opcode::Dsti
                | Opcode::Litp
        )
    }

    /// Whether each result lane is a different function of the sources (DST, LITP): the
    /// result cannot move to other lanes.
    pub fn lane_specific(&self) -> bool {
        matches!(self.op, Opcode::Dst | Opcode::Dsti | Opcode::Litp)
    }
}

/// A straight-line program and its virtual registers (sizes in components).
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub ops: Vec<MOp>,
    pub vregs: Vec<u8>,
}

impl Program {
    pub fn new_vreg(&mut self, size: u8) -> VReg {
        self.vregs.push(size);
        VReg(self.vregs.len() as u32 - 1)
    }

    /// Whether the program has flow control.
    pub fn has_flow(&self) -> bool {
        self.ops.iter().any(|o| matches!(o.dst, Dst::Flow(_)))
    }

    /// The control-flow graph of the op list: blocks in order as (first op, end op exclusive,
    /// successor blocks, loop depth). A CMP, IFC, BREAKC or LOOP ends its block; ELSE, ENDIF and
    /// ENDLOOP start one. The loop's header is the block after its LOOP; its back edge goes from
    /// the block ending at ENDLOOP; a BREAKC also leads to the block after the ENDLOOP. Fails on
    /// markers that do not nest.
    pub fn blocks(&self) -> Result<Vec<CfgBlock>, String> {
        // Block boundaries: a new block starts after every IFC/LOOP/BREAKC and at every
        // ELSE/ENDIF/ENDLOOP marker (the marker itself emits no word: it heads its block).
        let mut starts = vec![0usize];
        for (i, op) in self.ops.iter().enumerate() {
            match op.dst {
                Dst::Flow(Flow::If(_) | Flow::Loop(_) | Flow::Break(_)) => starts.push(i + 1),
                Dst::Flow(Flow::Else | Flow::EndIf | Flow::EndLoop) => {
                    starts.push(i);
                    starts.push(i + 1);
                }
                _ => {}
            }
        }
        starts.push(self.ops.len());
        starts.dedup();
        let n = starts.len() - 1;
        let block_at = |i: usize| starts.partition_point(|&s| s <= i) - 1;
        let mut blocks: Vec<CfgBlock> = (0..n)
            .map(|b| CfgBlock {
                start: starts[b],
                end: starts[b + 1],
                succs: Vec::new(),
                depth: 0,
            })
            .collect();
        enum Open {
            If { head: usize, else_at: Option<usize> },
            Loop { header: usize, breaks: Vec<usize> },
        }
        let mut stack: Vec<Open> = Vec::new();
        let mut depth = 0u32;
        for (i, op) in self.ops.iter().enumerate() {
            let b = block_at(i);
            blocks[b].depth = blocks[b].depth.max(depth);
            let flow = match op.dst {
                Dst::Flow(f) => f,
                _ => continue,
            };
            match flow {
                Flow::Cmp(..) => {}
                Flow::If(_) => stack.push(Open::If {
                    head: b,
                    else_at: None,
                }),
                Flow::Else => match stack.last_mut() {
                    Some(Open::If { else_at, .. }) if else_at.is_none() => *else_at = Some(b),
                    _ => return Err(format!("op {i}: else outside an if")),
                },
                Flow::EndIf => {
                    let Some(Open::If { head, else_at }) = stack.pop() else {
                        return Err(format!("op {i}: endif outside an if"));
                    };
                    // `b` is the ENDIF marker's own block: the join.
                    let then_first = head + 1;
                    blocks[head].succs.push(then_first);
                    match else_at {
                        Some(e) => {
                            // The then-arm's last block falls into ELSE's block, which jumps
                            // over the else-arm: ELSE marker block → join; head → else-arm.
                            blocks[e].succs.push(b);
                            blocks[head].succs.push(e + 1);
                            blocks[b - 1].succs.push(b);
                        }
                        None => {
                            blocks[head].succs.push(b);
                            blocks[b - 1].succs.push(b);
                        }
                    }
                }
                Flow::Loop(_) => {
                    stack.push(Open::Loop {
                        header: b + 1,
                        breaks: Vec::new(),
                    });
                    depth += 1;
                    blocks[b].succs.push(b + 1);
                }
                Flow::Break(_) => {
                    let Some(Open::Loop { breaks, .. }) = stack
                        .iter_mut()
                        .rev()
                        .find(|o| matches!(o, Open::Loop { .. }))
                    else {
                        return Err(format!("op {i}: break outside a loop"));
                    };
                    breaks.push(b);
                    blocks[b].succs.push(b + 1);
                }
                Flow::EndLoop => {
                    let Some(Open::Loop { header, breaks }) = stack.pop() else {
                        return Err(format!("op {i}: endloop closes no loop"));
                    };
                    depth -= 1;
                    // `b` is the ENDLOOP marker's block: the back edge to the header, and on
                    // after the last iteration; breaks leave to the block after it.
                    blocks[b - 1].succs.push(b);
                    blocks[b].succs.push(header);
                    blocks[b].succs.push(b + 1);
                    for x in breaks {
                        blocks[x].succs.push(b + 1);
                    }
                }
            }
            // Every other block falls through to the next one.
        }
        if !stack.is_empty() {
            return Err("unclosed if or loop".into());
        }
        // Fall-through edges of blocks not ended by a marker.
        for (b, blk) in blocks.iter_mut().enumerate() {
            let last = blk.end.checked_sub(1).map(|i| self.ops[i].dst);
            let ends_flow = matches!(
                last,
                Some(Dst::Flow(
                    Flow::If(_)
                        | Flow::Else
                        | Flow::EndIf
                        | Flow::Loop(_)
                        | Flow::Break(_)
                        | Flow::EndLoop
                ))
            );
            let falls = !ends_flow || matches!(last, Some(Dst::Flow(Flow::EndIf)));
            if falls && b + 1 < n && !blk.succs.contains(&(b + 1)) {
                blk.succs.push(b + 1);
            }
            blk.succs.retain(|&s| s < n);
            blk.succs.dedup();
        }
        Ok(blocks)
    }
}

/// One block of [`Program::blocks`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CfgBlock {
    pub start: usize,
    pub end: usize,
    pub succs: Vec<usize>,
    pub depth: u32,
}
