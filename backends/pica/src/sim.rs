//! A PICA200 shader-unit simulator: runs decoded vertex and geometry shaders in float24
//! ([`Precision::Native`]) or f32 ([`Precision::Exact`]) arithmetic.
//!
//! # Model (reference §7–§11)
//!
//! * **State**: inputs `v0–v15`, temporaries `r0–r15` (start at 0), outputs `o0–o15` (start at
//!   0), float uniforms `c0–c95`, int uniforms `i0–i3` (u8 × 4), bool uniforms `b0–b15`, `a0.x`,
//!   `a0.y`, `aL`, `cmp.x`, `cmp.y`.
//! * **Arithmetic**: values are held as f32. In `Native` precision uniforms and inputs are
//!   truncated to float24 when loaded ([`float24::truncate`], like picasso/citro3d convert) and
//!   every arithmetic result is rounded to float24 ([`float24::round`]: nearest even — the
//!   hardware's rounding is not public — with flush of magnitudes below 2⁻⁶² to +0 and no −0).
//!   MOV and MOVA do not round. Dot products sum exact f32 products and round once; MAD/MADI
//!   round the product before the add (§3: not fused). `Exact` rounds nothing but keeps every
//!   semantic rule below, "no −0" included: in both precisions a negated zero, a −0 uniform
//!   and a zero result (`0 · −1`, `−0 + −0`) read and compute as +0.
//! * **Semantic rules** (§10): 0 · ±inf = 0 in MUL, MAD, DP3/DP4/DPH (0 · NaN = NaN);
//!   `max(a, b) = a > b ? a : b`, `min(a, b) = a < b ? a : b`; SGE/SLT and CMP use IEEE
//!   comparisons (NaN: NE true, all others false); RCP is f32 `1/x`; RSQ/EX2/LG2 are
//!   `1/sqrt`, `exp2`, `log2` as the IR rounds them (`irc_backend::exact_fn`: f64 libm rounded
//!   once; citra's interpreter uses f32 libm, which may differ in the last place, and hardware
//!   precision is not characterized — tests need a tolerance), with rcp(±0) = +inf,
//!   rsq(±0) = +inf, rsq(x < 0) = NaN; LG2(0) = −inf.
//! * **Relative addressing** (§7): the offset applies to a float-uniform wide source only;
//!   offsets outside [−128, 127] count as 0; index = (c + offset) & 0x7F; an index above 95 reads
//!   (1, 1, 1, 1). MOVA truncates toward zero (saturating to i32). `aL` is a u8: LOOP sets it to
//!   `i.y` and adds `i.z` (wrapping) at the end of every iteration.
//! * **Flow control** (§9): three stacks — CALL (4), IF (8), LOOP (4) — dropping their oldest
//!   entry on overflow. After every instruction PC+1 is compared with each stack's top; the IF
//!   and LOOP stacks pop at most once, the CALL stack repeatedly; the new PC is chosen by
//!   priority LOOP > IF > CALL > jump > sequential, where "jump" is the transfer of the
//!   instruction itself (JMPC/JMPU, CALL*, BREAK*, an IF whose condition is false). So a jump or
//!   call that is the last instruction of a body is lost, as on hardware. The 4-pops hardware
//!   bug is not modelled.
//! * **Errata are errors** (the hardware freezes or computes garbage, §11): two consecutively
//!   executed MOVAs, writing an output component twice (per vertex: EMIT starts a new vertex),
//!   two different input registers in one instruction, BREAK/BREAKC with an empty loop stack,
//!   running past the last word (missing END), running out of fuel.
//! * **Geometry shaders**: SETEMIT selects the vertex slot (0–2) and the primitive/winding flags
//!   of the next EMIT; EMIT copies `o0–o15` into that slot and, with the primitive flag, emits
//!   the triangle of slots 0, 1, 2 (each primitive also records which EMIT filled each slot).
//!   Inputs are `v0–v15` as for a vertex shader.

use irc_backend::exact_fn;
use thiserror::Error;

pub use irc_backend::Precision;

use crate::decode::{decode_program, DecodeError};
use crate::float24;
use crate::instr::{Dst, DstReg, Instr, Mask, Src, SrcReg};
use crate::isa::{limits, AddrIndex, CmpOp, Opcode};
use crate::shbin::{self, ConstValue, Shbin, ShbinError};

/// Uniform values.
#[derive(Debug, Clone, PartialEq)]
pub struct Uniforms {
    pub float: [[f32; 4]; 96],
    pub int: [[u8; 4]; 4],
    /// Bit n = b`n`.
    pub bools: u16,
}

impl Default for Uniforms {
    fn default() -> Self {
        Uniforms {
            float: [[0.0; 4]; 96],
            int: [[0; 4]; 4],
            bools: 0,
        }
    }
}

impl Uniforms {
    /// Applies a DVLE constant table (DEF constants).
    pub fn apply_constants(&mut self, constants: &[shbin::Constant]) {
        for c in constants {
            let r = c.reg as usize;
            match c.value {
                ConstValue::Float(v) if r < 96 => self.float[r] = v.map(float24::to_f32),
                ConstValue::Int(v) if r < 4 => self.int[r] = v,
                ConstValue::Bool(b) if r < 16 => {
                    self.bools = (self.bools & !(1 << r)) | ((b as u16) << r)
                }
                _ => {}
            }
        }
    }
}

/// How to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimOptions {
    pub precision: Precision,
    /// Most instructions executed before the run fails.
    pub fuel: u64,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            precision: Precision::Native,
            fuel: 1 << 20,
        }
    }
}

/// One emitted triangle of a geometry shader.
#[derive(Debug, Clone, PartialEq)]
pub struct Primitive {
    pub vertices: [[[f32; 4]; 16]; 3],
    /// The SETEMIT winding (invert) flag.
    pub winding: bool,
    /// Per slot, the index (in [`RunResult::emitted`]) of the EMIT that filled it.
    pub emits: [usize; 3],
}

/// What one run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// Output registers at END.
    pub outputs: [[f32; 4]; 16],
    /// Per output register, the components written since the start or the last EMIT (bit n =
    /// component n, x = bit 0).
    pub written: [u8; 16],
    /// Every EMIT's copy of the outputs, in order.
    pub emitted: Vec<[[f32; 4]; 16]>,
    /// Triangles completed by EMITs with the primitive flag.
    pub primitives: Vec<Primitive>,
    pub steps: u64,
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Shbin(#[from] ShbinError),
    #[error("no DVLE {0} in the SHBIN")]
    NoDvle(usize),
    #[error("word {0}: ran past the end of the code (missing END?)")]
    PastEnd(usize),
    #[error("out of fuel after {0} instructions")]
    OutOfFuel(u64),
    #[error("word {0}: two consecutive MOVA instructions freeze the PICA (erratum 3)")]
    ConsecutiveMova(usize),
    #[error("word {pc}: o{reg} component {comp} written twice (erratum 4)")]
    OutputWrittenTwice { pc: usize, reg: usize, comp: usize },
    #[error("word {0}: two different input registers in one instruction (erratum 2)")]
    TwoInputs(usize),
    #[error("word {0}: BREAK with an empty loop stack hangs")]
    BreakOutsideLoop(usize),
}

#[derive(Debug, Clone, Copy)]
struct LoopEntry {
    start: usize,
    last: usize,
    remaining: u32,
    step: u8,
}

#[derive(Debug, Clone, Copy)]
struct IfEntry {
    end: usize,
    jump_to: usize,
}

#[derive(Debug, Clone, Copy)]
struct CallEntry {
    end: usize,
    ret: usize,
}

fn push_bounded<T>(stack: &mut Vec<T>, v: T, depth: usize) {
    if stack.len() == depth {
        stack.remove(0);
    }
    stack.push(v);
}

struct Machine<'a> {
    prog: &'a [Instr],
    u: Uniforms,
    v: [[f32; 4]; 16],
    r: [[f32; 4]; 16],
    o: [[f32; 4]; 16],
    written: [u8; 16],
    a0: [i32; 2],
    al: u8,
    cmp: [bool; 2],
    native: bool,
    vtx: usize,
    prim: bool,
    winding: bool,
    slots: [[[f32; 4]; 16]; 3],
    slot_emits: [usize; 3],
    emitted: Vec<[[f32; 4]; 16]>,
    primitives: Vec<Primitive>,
}

/// PICA has no −0 (§10): a zero of either sign is +0; every other value (NaN included) is kept.
pub fn pos_zero(x: f32) -> f32 {
    if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// 0 · ±inf = 0 (D3D9 legacy multiply); NaN stays NaN.
pub fn mul_legacy(a: f32, b: f32) -> f32 {
    if (a == 0.0 && b.is_infinite()) || (b == 0.0 && a.is_infinite()) {
        0.0
    } else {
        a * b
    }
}

impl Machine<'_> {
    /// An arithmetic result: rounded to float24 in `Native` precision; in both precisions a
    /// zero is +0 (§10: "no −0").
    fn round(&self, x: f32) -> f32 {
        if self.native {
            float24::round(x)
        } else {
            pos_zero(x)
        }
    }

    fn read(&self, pc: usize, s: &Src, index: AddrIndex) -> Result<[f32; 4], SimError> {
        let raw = match s.reg {
            SrcReg::Input(n) => self.v[n as usize & 15],
            SrcReg::Temp(n) => self.r[n as usize & 15],
            SrcReg::Const(n) => {
                let off = match index {
                    AddrIndex::None => 0,
                    AddrIndex::A0X => self.a0[0],
                    AddrIndex::A0Y => self.a0[1],
                    AddrIndex::AL => self.al as i32,
                };
                let off = if (-128..=127).contains(&off) { off } else { 0 };
                let i = ((n as i32 + off) & 0x7F) as usize;
                if i > 95 {
                    [1.0; 4]
                } else {
                    self.u.float[i]
                }
            }
        };
        let _ = pc;
        let sw = s.swizzle.comps();
        let mut out = [0.0; 4];
        for (o, &c) in out.iter_mut().zip(&sw) {
            // Negating a zero (or reading a −0 uniform bit pattern) gives +0: no −0 (§10).
            *o = pos_zero(if s.negate { -raw[c] } else { raw[c] });
        }
        Ok(out)
    }

    fn write(&mut self, pc: usize, d: &Dst, val: [f32; 4]) -> Result<(), SimError> {
        for (c, &v) in val.iter().enumerate() {
            if !d.mask.has(c) {
                continue;
            }
            match d.reg {
                DstReg::Temp(n) => self.r[n as usize & 15][c] = v,
                DstReg::Output(n) => {
                    let n = n as usize & 15;
                    if self.written[n] & (1 << c) != 0 {
                        return Err(SimError::OutputWrittenTwice {
                            pc,
                            reg: n,
                            comp: c,
                        });
                    }
                    self.written[n] |= 1 << c;
                    self.o[n][c] = v;
                }
            }
        }
        Ok(())
    }

    fn check_inputs(&self, pc: usize, srcs: &[&Src]) -> Result<(), SimError> {
        let mut seen = None;
        for s in srcs {
            if let SrcReg::Input(n) = s.reg {
                if seen.is_some_and(|m| m != n) {
                    return Err(SimError::TwoInputs(pc));
                }
                seen = Some(n);
            }
        }
        Ok(())
    }

    fn binary(&self, op: Opcode, a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
        let dot = |n: usize| {
            let s: f32 = (0..n).map(|i| mul_legacy(a[i], b[i])).sum();
            s
        };
        let r = match op.plain() {
            Opcode::Add => [0, 1, 2, 3].map(|i| a[i] + b[i]),
            Opcode::Mul => [0, 1, 2, 3].map(|i| mul_legacy(a[i], b[i])),
            Opcode::Dp3 => [dot(3); 4],
            Opcode::Dp4 => [dot(4); 4],
            Opcode::Dph => [dot(3) + b[3]; 4],
            Opcode::Dst => [1.0, mul_legacy(a[1], b[1]), a[2], b[3]],
            Opcode::Sge => [0, 1, 2, 3].map(|i| if a[i] >= b[i] { 1.0 } else { 0.0 }),
            Opcode::Slt => [0, 1, 2, 3].map(|i| if a[i] < b[i] { 1.0 } else { 0.0 }),
            Opcode::Max => [0, 1, 2, 3].map(|i| if a[i] > b[i] { a[i] } else { b[i] }),
            Opcode::Min => [0, 1, 2, 3].map(|i| if a[i] < b[i] { a[i] } else { b[i] }),
            _ => a,
        };
        match op.plain() {
            // Copies of source values or exact 0/1: no rounding needed, and MAX/MIN must not
            // flush (§10: "CMP and MAX do not flush subnormals").
            Opcode::Sge | Opcode::Slt | Opcode::Max | Opcode::Min => r,
            Opcode::Dst => [r[0], self.round(r[1]), r[2], r[3]],
            _ => r.map(|x| self.round(x)),
        }
    }

    fn unary(&mut self, op: Opcode, s: [f32; 4]) -> [f32; 4] {
        let x = s[0];
        let scalar = |v: f32| [v; 4];
        let r = match op {
            Opcode::Mov => return s,
            Opcode::Flr => s.map(f32::floor),
            Opcode::Ex2 => scalar(exact_fn::exp2(x)),
            Opcode::Lg2 => scalar(if x == 0.0 {
                f32::NEG_INFINITY
            } else {
                exact_fn::log2(x)
            }),
            Opcode::Rcp => scalar(if x == 0.0 { f32::INFINITY } else { 1.0 / x }),
            Opcode::Rsq => scalar(if x == 0.0 {
                f32::INFINITY
            } else {
                exact_fn::rsqrt(x)
            }),
            Opcode::Litp => {
                const LIM: f32 = 127.996_09; // 0x7FFF / 0x100
                self.cmp = [s[0] >= 0.0, s[3] >= 0.0];
                let y = if s[1].is_nan() {
                    s[1]
                } else {
                    s[1].clamp(-LIM, LIM)
                };
                [
                    if s[0] > 0.0 { s[0] } else { 0.0 },
                    y,
                    0.0,
                    if s[3] > 0.0 { s[3] } else { 0.0 },
                ]
            }
            _ => s,
        };
        r.map(|v| self.round(v))
    }

    fn cond_flag(op: CmpOp, a: f32, b: f32) -> bool {
        match op {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    fn bool_u(&self, id: u8) -> bool {
        self.u.bools & (1 << (id & 15)) != 0
    }

    fn run(&mut self, entry: usize, fuel: u64) -> Result<u64, SimError> {
        let mut pc = entry;
        let mut steps = 0u64;
        let mut loops: Vec<LoopEntry> = Vec::new();
        let mut ifs: Vec<IfEntry> = Vec::new();
        let mut calls: Vec<CallEntry> = Vec::new();
        let mut last_mova = false;
        loop {
            if steps >= fuel {
                return Err(SimError::OutOfFuel(steps));
            }
            steps += 1;
            let ins = *self.prog.get(pc).ok_or(SimError::PastEnd(pc))?;
            let mut jump: Option<usize> = None;
            let is_mova = matches!(ins, Instr::Mova { .. });
            if is_mova && last_mova {
                return Err(SimError::ConsecutiveMova(pc));
            }
            last_mova = is_mova;
            match ins {
                Instr::Plain(Opcode::End) => return Ok(steps),
                Instr::Plain(Opcode::Break) => {
                    let l = loops.pop().ok_or(SimError::BreakOutsideLoop(pc))?;
                    jump = Some(l.last + 1);
                }
                Instr::Plain(Opcode::Emit) => {
                    let slot = self.vtx.min(2);
                    self.slots[slot] = self.o;
                    self.slot_emits[slot] = self.emitted.len();
                    self.emitted.push(self.o);
                    if self.prim {
                        self.primitives.push(Primitive {
                            vertices: self.slots,
                            winding: self.winding,
                            emits: self.slot_emits,
                        });
                    }
                    self.written = [0; 16];
                }
                Instr::Plain(_) => {}
                Instr::Binary {
                    op,
                    dst,
                    src1,
                    src2,
                    index,
                } => {
                    self.check_inputs(pc, &[&src1, &src2])?;
                    let (i1, i2) = if op.is_inverted() {
                        (AddrIndex::None, index)
                    } else {
                        (index, AddrIndex::None)
                    };
                    let a = self.read(pc, &src1, i1)?;
                    let b = self.read(pc, &src2, i2)?;
                    let r = self.binary(op, a, b);
                    self.write(pc, &dst, r)?;
                }
                Instr::Unary {
                    op,
                    dst,
                    src,
                    index,
                } => {
                    let s = self.read(pc, &src, index)?;
                    let r = self.unary(op, s);
                    self.write(pc, &dst, r)?;
                }
                Instr::Mova { mask, src, index } => {
                    let s = self.read(pc, &src, index)?;
                    for (c, (a, v)) in self.a0.iter_mut().zip(s).enumerate() {
                        if mask.has(c) {
                            // `as` saturates and maps NaN to 0.
                            *a = v.trunc() as i32;
                        }
                    }
                }
                Instr::Cmp {
                    src1,
                    x,
                    y,
                    src2,
                    index,
                } => {
                    self.check_inputs(pc, &[&src1, &src2])?;
                    let a = self.read(pc, &src1, index)?;
                    let b = self.read(pc, &src2, AddrIndex::None)?;
                    self.cmp = [
                        Self::cond_flag(x, a[0], b[0]),
                        Self::cond_flag(y, a[1], b[1]),
                    ];
                }
                Instr::Mad {
                    inverted,
                    dst,
                    src1,
                    src2,
                    src3,
                    index,
                } => {
                    self.check_inputs(pc, &[&src1, &src2, &src3])?;
                    let (i2, i3) = if inverted {
                        (AddrIndex::None, index)
                    } else {
                        (index, AddrIndex::None)
                    };
                    let a = self.read(pc, &src1, AddrIndex::None)?;
                    let b = self.read(pc, &src2, i2)?;
                    let c = self.read(pc, &src3, i3)?;
                    let r =
                        [0, 1, 2, 3].map(|i| self.round(self.round(mul_legacy(a[i], b[i])) + c[i]));
                    self.write(pc, &dst, r)?;
                }
                Instr::SetEmit {
                    vertex,
                    primitive,
                    winding,
                } => {
                    self.vtx = vertex as usize;
                    self.prim = primitive;
                    self.winding = winding;
                }
                Instr::CondFlow { op, cond, dst, num } => {
                    let taken = op == Opcode::Call || cond.eval(self.cmp);
                    let (dst, num) = (dst as usize, num as usize);
                    match op {
                        Opcode::Breakc if taken => {
                            let l = loops.pop().ok_or(SimError::BreakOutsideLoop(pc))?;
                            jump = Some(l.last + 1);
                        }
                        Opcode::Call | Opcode::Callc if taken => {
                            push_bounded(
                                &mut calls,
                                CallEntry {
                                    end: dst + num,
                                    ret: pc + 1,
                                },
                                limits::CALL_STACK,
                            );
                            jump = Some(dst);
                        }
                        Opcode::Ifc if taken => push_bounded(
                            &mut ifs,
                            IfEntry {
                                end: dst,
                                jump_to: dst + num,
                            },
                            limits::IF_STACK,
                        ),
                        Opcode::Ifc => jump = Some(dst),
                        Opcode::Jmpc if taken => jump = Some(dst),
                        _ => {}
                    }
                }
                Instr::UniformFlow { op, id, dst, num } => {
                    let (dst, numu) = (dst as usize, num as usize);
                    match op {
                        Opcode::Callu if self.bool_u(id) => {
                            push_bounded(
                                &mut calls,
                                CallEntry {
                                    end: dst + numu,
                                    ret: pc + 1,
                                },
                                limits::CALL_STACK,
                            );
                            jump = Some(dst);
                        }
                        Opcode::Ifu if self.bool_u(id) => push_bounded(
                            &mut ifs,
                            IfEntry {
                                end: dst,
                                jump_to: dst + numu,
                            },
                            limits::IF_STACK,
                        ),
                        Opcode::Ifu => jump = Some(dst),
                        Opcode::Loop => {
                            let i = self.u.int[id as usize & 3];
                            self.al = i[1];
                            push_bounded(
                                &mut loops,
                                LoopEntry {
                                    start: pc + 1,
                                    last: dst,
                                    remaining: i[0] as u32,
                                    step: i[2],
                                },
                                limits::LOOP_STACK,
                            );
                        }
                        Opcode::Jmpu if self.bool_u(id) != (num & 1 != 0) => jump = Some(dst),
                        _ => {}
                    }
                }
            }
            // Stack checks against PC+1 (§9).
            let next = pc + 1;
            let mut new_pc: Option<usize> = None;
            if let Some(top) = loops.last_mut() {
                if next == top.last + 1 {
                    self.al = self.al.wrapping_add(top.step);
                    if top.remaining > 0 {
                        top.remaining -= 1;
                        new_pc = Some(top.start);
                    } else {
                        loops.pop();
                        new_pc = Some(next);
                    }
                }
            }
            if let Some(top) = ifs.last().copied() {
                if next == top.end {
                    ifs.pop();
                    new_pc = new_pc.or(Some(top.jump_to));
                }
            }
            let mut p = next;
            let mut popped = false;
            while let Some(top) = calls.last().copied() {
                if p != top.end {
                    break;
                }
                calls.pop();
                p = top.ret;
                popped = true;
            }
            if popped {
                new_pc = new_pc.or(Some(p));
            }
            pc = new_pc.or(jump).unwrap_or(next);
        }
    }
}

/// Runs `prog` from word `entry` until END.
pub fn run(
    prog: &[Instr],
    entry: usize,
    inputs: &[[f32; 4]; 16],
    uniforms: &Uniforms,
    opts: &SimOptions,
) -> Result<RunResult, SimError> {
    let native = opts.precision == Precision::Native;
    let mut u = uniforms.clone();
    let mut v = *inputs;
    if native {
        for c in u.float.iter_mut().flatten() {
            *c = float24::truncate(*c);
        }
        for c in v.iter_mut().flatten() {
            *c = float24::truncate(*c);
        }
    }
    let mut m = Machine {
        prog,
        u,
        v,
        r: [[0.0; 4]; 16],
        o: [[0.0; 4]; 16],
        written: [0; 16],
        a0: [0; 2],
        al: 0,
        cmp: [false; 2],
        native,
        vtx: 0,
        prim: false,
        winding: false,
        slots: [[[0.0; 4]; 16]; 3],
        slot_emits: [0; 3],
        emitted: Vec::new(),
        primitives: Vec::new(),
    };
    let steps = m.run(entry, opts.fuel)?;
    Ok(RunResult {
        outputs: m.o,
        written: m.written,
        emitted: m.emitted,
        primitives: m.primitives,
        steps,
    })
}

/// Decodes code words + descriptors and runs them from `entry`.
pub fn run_words(
    code: &[u32],
    opdescs: &[u32],
    entry: usize,
    inputs: &[[f32; 4]; 16],
    uniforms: &Uniforms,
    opts: &SimOptions,
) -> Result<RunResult, SimError> {
    let prog = decode_program(code, opdescs)?;
    run(&prog, entry, inputs, uniforms, opts)
}

/// Runs DVLE `dvle` of a parsed SHBIN: its constant table is applied over `uniforms`, execution
/// starts at its `main`.
pub fn run_shbin(
    shbin: &Shbin,
    dvle: usize,
    inputs: &[[f32; 4]; 16],
    uniforms: &Uniforms,
    opts: &SimOptions,
) -> Result<RunResult, SimError> {
    let d = shbin.dvles.get(dvle).ok_or(SimError::NoDvle(dvle))?;
    let mut u = uniforms.clone();
    u.apply_constants(&d.constants);
    run_words(
        &shbin.code,
        &shbin.opdescs,
        d.main as usize,
        inputs,
        &u,
        opts,
    )
}

/// Parses SHBIN bytes and runs DVLE `dvle` (see [`run_shbin`]).
pub fn run_shbin_bytes(
    bytes: &[u8],
    dvle: usize,
    inputs: &[[f32; 4]; 16],
    uniforms: &Uniforms,
    opts: &SimOptions,
) -> Result<RunResult, SimError> {
    run_shbin(&shbin::read(bytes)?, dvle, inputs, uniforms, opts)
}

/// The mask helper for tests and tools: descriptor-order [`Mask`] → `written`-order bits.
pub fn written_bits(m: Mask) -> u8 {
    (0..4).filter(|&i| m.has(i)).fold(0, |a, i| a | 1 << i)
}
