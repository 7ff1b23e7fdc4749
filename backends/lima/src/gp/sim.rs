//! A simulator for GP programs that models what every source select reads at every instruction,
//! so that a scheduling mistake shows up as a wrong value (or, in strict mode, as an error naming
//! the read), not as a pass.
//!
//! # Model (reference §8–§9; where the reference is silent, the choice is stated)
//!
//! * One vertex per run, f32 arithmetic. State: 16 attribute vec4s (read-only), 16 register vec4s,
//!   512 uniform/temporary vec4s (uniforms are the initial contents; temporary stores write into the
//!   same space, since both are read by the one load unit), 16 varying vec4s (write-only), four
//!   address registers.
//! * **Forwarding.** Each executed instruction leaves a record of its six unit results and its
//!   register-0 load. `p1` sources read the record of the previous executed instruction, `p2` the
//!   one before it (there is no p2 complex code, so the complex result is readable by the next
//!   instruction only); codes 28–31 read the previous instruction's register-0 load. A unit that
//!   was not active leaves an unavailable result. In strict mode the records are also unavailable
//!   at the start of every block (instruction 0, a branch target, the instruction after a
//!   branch): Mesa carries values across blocks in registers only, and a block can be entered from
//!   two places.
//! * **complex1 latency 2.** The `complex1` result (on mul0) is unavailable to the stores of its
//!   own instruction and to `p1` reads; it is read as `p2` mul0.
//! * **Registers** (store → load ≥ 3 instructions later), **temporaries** (store → load ≥ 4),
//!   **address registers 1–3** (write → use 4 instructions later) and **address register 0**
//!   (usable by a temporary store of the same instruction): a load issued before the write is
//!   visible returns the previous value, or is an error in strict mode. Latencies count executed
//!   instructions.
//! * **Stores** read the results of the same instruction. A register store in one of the last 2
//!   instructions of a block (before a branch, before a branch target, at the end of the program)
//!   is a strict-mode error (§9).
//! * **Complex functions** (§8.2): the impl step of the complex unit (`rcp`, `rsqrt`, `exp2`,
//!   `log2`) computes the exact f32 function but marks its result; `complex2` (mul0, sources
//!   `x, x`) marks `x`; `preexp2` marks its source (value unchanged); `complex1(impl, complex2,
//!   impl, x)` checks that the four sources belong to one sequence on the same `x` and yields
//!   the function's value (for `log2` marked for `postlog2`, which yields it unchanged). A marked
//!   value may be moved (`mov` forms keep the mark); used in any other arithmetic, or a
//!   mis-wired `complex1`, it is a strict-mode error and NaN otherwise. The real hardware refines
//!   an approximation in these steps; the simulator is exact (the GP's documented precision is
//!   f32, §11).
//! * **min / max** (and the clamp below): a NaN operand gives the other operand; `−0 < +0`
//!   (IEEE 754-2019 `minimumNumber`/`maximumNumber`, as the IR's `FMin`/`FMax`). The reference
//!   is silent on signed zeros; the order matters where a zero reaches the position
//!   epilogue's reciprocal (§10), which makes `w = ±0` observable.
//! * **select**: `mul0_src1 ≠ 0 ? mul1_src0 : mul0_src0` (Mesa's reading, §8.2); result on mul0.
//! * **clamp** (pass op 6): `max(min(x, load.x), load.y)`, the old text's formula (the reference
//!   gives only "between load.x and load.y"; open question).
//! * **Addresses**: an address register holds its source value truncated toward zero to an
//!   integer; a load or temporary store outside 0–511 is an error.
//! * **Branch** when the pass result of the branch instruction is not 0.0; the target is absolute;
//!   a target equal to the program length ends the program. In strict mode `UNKNOWN_1` must be
//!   13 with a branch, 12 with a temporary store and 0 otherwise (what Mesa emits).
//! * **Fuel**: every executed instruction costs one unit.

use std::fmt;

use super::decode::{decode_program, DecodeError};
use super::instr::Instruction;
use super::isa::*;
use irc_backend::exact_fn;

/// How to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimOptions {
    /// Most instructions executed.
    pub fuel: u64,
    /// Reads of values not yet (or no longer) available are errors instead of stale values.
    pub strict: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            fuel: 100_000,
            strict: true,
        }
    }
}

/// What a run reads.
#[derive(Debug, Clone, PartialEq)]
pub struct GpInputs {
    pub attributes: [[f32; 4]; ATTRIBUTES],
    /// Uniform vec4s from slot 0 (missing slots read 0.0; at most 512 are used).
    pub uniforms: Vec<[f32; 4]>,
}

impl Default for GpInputs {
    fn default() -> Self {
        GpInputs {
            attributes: [[0.0; 4]; ATTRIBUTES],
            uniforms: Vec::new(),
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct GpOutputs {
    pub varyings: [[f32; 4]; VARYINGS],
    /// Components written per varying (bit c = component c).
    pub written: [u8; VARYINGS],
    /// Registers at the end (every write visible).
    pub registers: [[f32; 4]; REGISTERS],
    /// Instructions executed.
    pub steps: u64,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpSimErrorKind {
    Decode(DecodeError),
    /// Strict mode: a read of a value not (or no longer) available.
    NotAvailable,
    /// An encoding the simulator (or the reference) gives no meaning.
    Invalid,
    OutOfFuel,
}

/// A failed run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpSimError {
    pub kind: GpSimErrorKind,
    /// The instruction executing, if any.
    pub instruction: Option<usize>,
    pub message: String,
}

impl fmt::Display for GpSimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.instruction {
            Some(i) => write!(f, "instruction {i}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for GpSimError {}

/// Decodes and runs a program given as words.
pub fn run_words(
    words: &[u32],
    inputs: &GpInputs,
    opts: &SimOptions,
) -> Result<GpOutputs, GpSimError> {
    let program = decode_program(words).map_err(|e| GpSimError {
        message: e.to_string(),
        kind: GpSimErrorKind::Decode(e),
        instruction: None,
    })?;
    run_program(&program, inputs, opts)
}

/// The mark a value carries through a complex-function sequence.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mark {
    Plain,
    /// Result of the impl step `op` on the argument with these bits.
    Impl(ComplexOp, u32),
    /// `complex2` of the argument with these bits.
    Complex2(u32),
    /// `preexp2` output.
    PreExp2,
    /// `complex1` result of a log2 sequence, for `postlog2`.
    Log2,
    /// No value: why.
    Unavailable(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Val {
    f: f32,
    mark: Mark,
}

impl Val {
    const fn plain(f: f32) -> Val {
        Val {
            f,
            mark: Mark::Plain,
        }
    }
    const fn none(why: &'static str) -> Val {
        Val {
            f: f32::NAN,
            mark: Mark::Unavailable(why),
        }
    }
}

/// What an executed instruction leaves for the next two.
#[derive(Debug, Clone, Copy)]
struct Record {
    units: [Val; 6],
    reg0: [Val; 4],
    /// A `complex1` result, which becomes the mul0 result once the record is two back.
    complex1: Option<Val>,
}

impl Record {
    fn none(why: &'static str) -> Record {
        Record {
            units: [Val::none(why); 6],
            reg0: [Val::none(why); 4],
            complex1: None,
        }
    }
}

/// A scalar whose latest write becomes visible at step `ready`.
#[derive(Debug, Clone, Copy)]
struct Slot<T> {
    old: T,
    new: T,
    ready: u64,
    /// Instruction that wrote `new`.
    by: usize,
}

impl<T: Copy> Slot<T> {
    fn init(v: T) -> Self {
        Slot {
            old: v,
            new: v,
            ready: 0,
            by: usize::MAX,
        }
    }
    fn write(&mut self, v: T, step: u64, ready: u64, by: usize) {
        if step >= self.ready {
            self.old = self.new;
        }
        self.new = v;
        self.ready = ready;
        self.by = by;
    }
}

struct Machine<'a> {
    program: &'a [Instruction],
    opts: SimOptions,
    attributes: [[f32; 4]; ATTRIBUTES],
    regs: Vec<Slot<f32>>,
    mem: Vec<Slot<f32>>,
    addr: [Slot<i32>; ADDRESS_REGISTERS],
    varyings: [[f32; 4]; VARYINGS],
    written: [u8; VARYINGS],
    /// Records of the previous and the one-before instruction.
    p1: Record,
    p2: Record,
    block_start: Vec<bool>,
    /// Instructions left in the block after this one.
    block_left: Vec<usize>,
    step: u64,
    pc: usize,
}

/// Runs a decoded program.
pub fn run_program(
    program: &[Instruction],
    inputs: &GpInputs,
    opts: &SimOptions,
) -> Result<GpOutputs, GpSimError> {
    let n = program.len();
    if n > MAX_INSTRUCTIONS {
        return Err(GpSimError {
            kind: GpSimErrorKind::Invalid,
            instruction: None,
            message: format!("{n} instructions, at most {MAX_INSTRUCTIONS}"),
        });
    }
    let mut block_start = vec![false; n + 1];
    if n > 0 {
        block_start[0] = true;
    }
    for (i, ins) in program.iter().enumerate() {
        if ins.branch {
            block_start[i + 1] = true;
            if let Some(t) = block_start.get_mut(usize::from(ins.branch_target)) {
                *t = true;
            }
        }
    }
    let mut block_left = vec![0; n];
    for i in (0..n).rev() {
        block_left[i] = if block_start[i + 1] || i + 1 == n {
            0
        } else {
            block_left[i + 1] + 1
        };
    }
    let mut mem = vec![Slot::init(0.0f32); UNIFORM_SLOTS * 4];
    for (s, u) in inputs.uniforms.iter().take(UNIFORM_SLOTS).enumerate() {
        for c in 0..4 {
            mem[s * 4 + c] = Slot::init(u[c]);
        }
    }
    let mut m = Machine {
        program,
        opts: *opts,
        attributes: inputs.attributes,
        regs: vec![Slot::init(0.0); REGISTERS * 4],
        mem,
        addr: [Slot::init(0); ADDRESS_REGISTERS],
        varyings: [[0.0; 4]; VARYINGS],
        written: [0; VARYINGS],
        p1: Record::none("no previous instruction"),
        p2: Record::none("no previous instruction"),
        block_start,
        block_left,
        step: 0,
        pc: 0,
    };
    while m.pc < n {
        if m.step >= m.opts.fuel {
            return Err(GpSimError {
                kind: GpSimErrorKind::OutOfFuel,
                instruction: Some(m.pc),
                message: format!("out of fuel after {} instructions", m.step),
            });
        }
        m.exec().map_err(|(kind, message)| GpSimError {
            kind,
            instruction: Some(m.pc),
            message,
        })?;
    }
    let mut registers = [[0.0; 4]; REGISTERS];
    for (r, reg) in registers.iter_mut().enumerate() {
        for (c, v) in reg.iter_mut().enumerate() {
            *v = m.regs[r * 4 + c].new;
        }
    }
    Ok(GpOutputs {
        varyings: m.varyings,
        written: m.written,
        registers,
        steps: m.step,
    })
}

type Res<T> = Result<T, (GpSimErrorKind, String)>;

fn invalid<T>(msg: String) -> Res<T> {
    Err((GpSimErrorKind::Invalid, msg))
}

const UNIT_NAMES: [&str; 6] = ["acc0", "acc1", "mul0", "mul1", "pass", "complex"];

impl Machine<'_> {
    /// A stale or missing value: an error in strict mode, else `v`.
    fn late<T>(&self, v: T, what: String) -> Res<T> {
        if self.opts.strict {
            Err((GpSimErrorKind::NotAvailable, what))
        } else {
            Ok(v)
        }
    }

    fn read_slot(&self, s: Slot<f32>, what: &str) -> Res<f32> {
        if self.step >= s.ready {
            return Ok(s.new);
        }
        self.late(
            s.old,
            format!(
                "{what} stored by instruction {} is not visible before step {} (now {})",
                s.by, s.ready, self.step
            ),
        )
    }

    fn addr_reg(&self, k: usize) -> Res<i32> {
        let s = self.addr[k];
        if self.step >= s.ready {
            return Ok(s.new);
        }
        self.late(
            s.old,
            format!(
                "addr{k} written by instruction {} is usable from step {} (now {})",
                s.by, s.ready, self.step
            ),
        )
    }

    fn reg0(&self, ins: &Instruction, c: usize) -> Res<Val> {
        if ins.reg0_attribute {
            return Ok(Val::plain(self.attributes[usize::from(ins.reg0_addr)][c]));
        }
        let i = usize::from(ins.reg0_addr) * 4 + c;
        let what = format!("${}.{}", ins.reg0_addr, b"xyzw"[c] as char);
        Ok(Val::plain(self.read_slot(self.regs[i], &what)?))
    }

    fn load(&self, ins: &Instruction, c: usize) -> Res<Val> {
        let off = match ins.load_offset.address_register() {
            Some(k) => self.addr_reg(k)?,
            None => 0,
        };
        let a = i64::from(ins.load_addr) + i64::from(off);
        if !(0..UNIFORM_SLOTS as i64).contains(&a) {
            return invalid(format!("load of t[{a}] outside 0..{UNIFORM_SLOTS}"));
        }
        let what = format!("t[{a}].{}", b"xyzw"[c] as char);
        Ok(Val::plain(
            self.read_slot(self.mem[a as usize * 4 + c], &what)?,
        ))
    }

    /// Reads source `src` of `unit` in position `idx` (1 = src1, where code 22 is the identity).
    fn read(&self, ins: &Instruction, src: Src, unit: Unit, idx: usize) -> Res<Val> {
        let c = src.component() as usize;
        let v = match src.class() {
            SrcClass::Reg0 => self.reg0(ins, c)?,
            SrcClass::Reg1 => {
                let i = usize::from(ins.reg1_addr) * 4 + c;
                let what = format!("${}.{}", ins.reg1_addr, b"xyzw"[c] as char);
                Val::plain(self.read_slot(self.regs[i], &what)?)
            }
            SrcClass::Load => self.load(ins, c)?,
            SrcClass::Unknown => {
                return invalid(format!("source code {} has no known meaning", src.bits()))
            }
            SrcClass::Unused => {
                return invalid(format!(
                    "{} reads an unused source",
                    UNIT_NAMES[unit.index()]
                ))
            }
            SrcClass::IdentOrP1Complex if idx == 1 && matches!(unit, Unit::Acc0 | Unit::Acc1) => {
                Val::plain(0.0)
            }
            SrcClass::IdentOrP1Complex if idx == 1 && matches!(unit, Unit::Mul0 | Unit::Mul1) => {
                Val::plain(1.0)
            }
            SrcClass::P1 | SrcClass::P2 | SrcClass::IdentOrP1Complex => {
                let (u, back) = src.forwarded().unwrap_or((Unit::Complex, 1));
                let rec = if back == 1 { &self.p1 } else { &self.p2 };
                rec.units[u.index()]
            }
            SrcClass::PrevReg0 => self.p1.reg0[c],
        };
        if let Mark::Unavailable(why) = v.mark {
            return self.late(
                v,
                format!(
                    "{} source {idx} ({}) is not available: {why}",
                    UNIT_NAMES[unit.index()],
                    src.mnemonic()
                ),
            );
        }
        Ok(v)
    }

    /// Reads a source used as a plain number (marked values only in moves or their sequence).
    fn num(&self, ins: &Instruction, src: Src, unit: Unit, idx: usize) -> Res<f32> {
        let v = self.read(ins, src, unit, idx)?;
        match v.mark {
            Mark::Plain | Mark::Unavailable(_) => Ok(v.f),
            _ => self.late(
                f32::NAN,
                format!(
                    "{} source {idx} reads a complex-sequence step ({:?}) as a number",
                    UNIT_NAMES[unit.index()],
                    v.mark
                ),
            ),
        }
    }

    fn exec(&mut self) -> Res<()> {
        let i = self.pc;
        let ins = self.program[i];
        if self.opts.strict && self.block_start[i] {
            self.p1 = Record::none("forwarded across a block boundary");
            self.p2 = self.p1;
        }
        let mut out = [Val::none("unit not active in that instruction"); 6];
        // acc units.
        for a in 0..2 {
            let slot = ins.acc[a];
            let unit = [Unit::Acc0, Unit::Acc1][a];
            if slot.src[0] == Src::Unused {
                continue;
            }
            let mov = ins.acc_op == AccOp::Add && slot.src[1] == Src::Ident && slot.neg[1];
            out[a] = if mov {
                let v = self.read(&ins, slot.src[0], unit, 0)?;
                Val {
                    f: if slot.neg[0] { -v.f } else { v.f },
                    ..v
                }
            } else {
                let sign = |n: bool, x: f32| if n { -x } else { x };
                let x = sign(slot.neg[0], self.num(&ins, slot.src[0], unit, 0)?);
                let y = if ins.acc_op.num_srcs() == 2 {
                    sign(slot.neg[1], self.num(&ins, slot.src[1], unit, 1)?)
                } else {
                    0.0
                };
                Val::plain(match ins.acc_op {
                    AccOp::Add => x + y,
                    AccOp::Floor => x.floor(),
                    AccOp::Sign => {
                        if x > 0.0 {
                            1.0
                        } else if x < 0.0 {
                            -1.0
                        } else {
                            x * 0.0
                        }
                    }
                    AccOp::Ge => f32::from(u8::from(x >= y)),
                    AccOp::Lt => f32::from(u8::from(x < y)),
                    AccOp::Min => exact_fn::min(x, y),
                    AccOp::Max => exact_fn::max(x, y),
                })
            };
        }
        let complex1 = self.exec_mul(&ins, &mut out)?;
        // Complex unit (before the stores: addr0 is usable by a temporary store of this instruction).
        if ins.complex_src != Src::Unused && ins.complex_op != ComplexOp::Nop {
            let v = self.read(&ins, ins.complex_src, Unit::Complex, 0)?;
            out[5] = match ins.complex_op {
                ComplexOp::Rcp | ComplexOp::Rsqrt | ComplexOp::Log2 | ComplexOp::Exp2 => {
                    if ins.complex_op == ComplexOp::Exp2 && v.mark != Mark::PreExp2 {
                        self.late((), "exp2 impl source is not a preexp2 result".into())?;
                    } else if ins.complex_op != ComplexOp::Exp2 && v.mark != Mark::Plain {
                        self.late(
                            (),
                            format!("{} impl reads {:?}", ins.complex_op.mnemonic(), v.mark),
                        )?;
                    }
                    Val {
                        f: complex_fn(ins.complex_op, v.f),
                        mark: Mark::Impl(ins.complex_op, v.f.to_bits()),
                    }
                }
                _ => v,
            };
            if let Some(k) = ins.complex_op.address_register() {
                if v.mark != Mark::Plain {
                    self.late((), "address from a complex-sequence step".into())?;
                }
                let lat = if k == 0 { 0 } else { 4 };
                let step = self.step;
                self.addr[k].write(v.f as i32, step, step + lat, i);
            }
        }
        // Pass unit.
        if ins.pass_src != Src::Unused {
            out[4] = match ins.pass_op {
                PassOp::Pass => self.read(&ins, ins.pass_src, Unit::Pass, 0)?,
                PassOp::PreExp2 => Val {
                    f: self.num(&ins, ins.pass_src, Unit::Pass, 0)?,
                    mark: Mark::PreExp2,
                },
                PassOp::PostLog2 => {
                    let v = self.read(&ins, ins.pass_src, Unit::Pass, 0)?;
                    if v.mark != Mark::Log2 {
                        self.late((), "postlog2 source is not a log2 complex1 result".into())?;
                    }
                    Val::plain(v.f)
                }
                PassOp::Clamp => {
                    let x = self.num(&ins, ins.pass_src, Unit::Pass, 0)?;
                    let lo = self.load(&ins, 0)?.f;
                    let hi = self.load(&ins, 1)?.f;
                    Val::plain(exact_fn::max(exact_fn::min(x, lo), hi))
                }
            };
        }
        let reg0 = [0, 1, 2, 3].map(|c| {
            self.reg0(&ins, c)
                .unwrap_or(Val::none("register load not visible"))
        });
        self.exec_stores(&ins, &out)?;
        if self.opts.strict {
            let temp = ins.store.iter().any(|s| s.temporary && s.active());
            let want = if ins.branch {
                UNKNOWN_1_BRANCH
            } else if temp {
                UNKNOWN_1_TEMP_STORE
            } else {
                0
            };
            if ins.branch && temp {
                return invalid("a branch and a temporary store in one instruction".into());
            }
            if u64::from(ins.unknown_1) != want {
                return invalid(format!(
                    "unknown_1 is {} where Mesa writes {want}",
                    ins.unknown_1
                ));
            }
        }
        let mut next = i + 1;
        if ins.branch {
            let c = out[4];
            if let Mark::Unavailable(why) = c.mark {
                self.late((), format!("branch condition (pass) not available: {why}"))?;
            }
            let t = usize::from(ins.branch_target);
            if t > self.program.len() {
                return invalid(format!(
                    "branch to {t}, past the end ({})",
                    self.program.len()
                ));
            }
            if c.f != 0.0 {
                next = t;
            }
        }
        self.p2 = self.p1;
        if let Some(r) = self.p2.complex1.take() {
            self.p2.units[Unit::Mul0.index()] = r;
        }
        self.p1 = Record {
            units: out,
            reg0,
            complex1,
        };
        self.step += 1;
        self.pc = next;
        Ok(())
    }

    /// Runs the mul units; returns the `complex1` result, which is not in `out` yet.
    fn exec_mul(&self, ins: &Instruction, out: &mut [Val; 6]) -> Res<Option<Val>> {
        let (m0, m1) = (Unit::Mul0, Unit::Mul1);
        match ins.mul_op {
            MulOp::Mul => {
                for m in 0..2 {
                    let slot = ins.mul[m];
                    let unit = [m0, m1][m];
                    if slot.src[0] == Src::Unused || slot.src[1] == Src::Unused {
                        continue;
                    }
                    out[2 + m] = if slot.src[1] == Src::Ident && !slot.neg {
                        self.read(ins, slot.src[0], unit, 0)?
                    } else {
                        let x = self.num(ins, slot.src[0], unit, 0)?;
                        let y = self.num(ins, slot.src[1], unit, 1)?;
                        Val::plain(x * if slot.neg { -y } else { y })
                    };
                }
            }
            MulOp::Complex2 => {
                let s = ins.mul[0];
                if s.src[0] != Src::Unused {
                    let a = self.read(ins, s.src[0], m0, 0)?;
                    let b = self.read(ins, s.src[1], m0, 1)?;
                    if a.f.to_bits() != b.f.to_bits() || s.neg {
                        self.late((), "complex2 sources differ".into())?;
                    }
                    out[2] = Val {
                        f: a.f,
                        mark: Mark::Complex2(a.f.to_bits()),
                    };
                }
                if ins.mul[1].src[0] != Src::Unused {
                    self.late((), "mul1 has no defined result under complex2".into())?;
                }
                out[3] = Val::none("mul1 has no result under complex2");
            }
            MulOp::Complex1 => {
                let a = self.read(ins, ins.mul[0].src[0], m0, 0)?;
                let b = self.read(ins, ins.mul[0].src[1], m0, 1)?;
                let c = self.read(ins, ins.mul[1].src[0], m1, 0)?;
                let x = self.read(ins, ins.mul[1].src[1], m1, 1)?;
                let xb = x.f.to_bits();
                let ok = match (a.mark, b.mark, c.mark) {
                    (Mark::Impl(op, ax), Mark::Complex2(bx), Mark::Impl(op2, cx)) => {
                        op == op2
                            && ax == xb
                            && bx == xb
                            && cx == xb
                            && (x.mark == Mark::PreExp2) == (op == ComplexOp::Exp2)
                    }
                    _ => false,
                };
                let r = match a.mark {
                    Mark::Impl(ComplexOp::Log2, _) if ok => Val {
                        f: a.f,
                        mark: Mark::Log2,
                    },
                    Mark::Impl(..) if ok => Val::plain(a.f),
                    _ => {
                        self.late(
                            (),
                            format!(
                                "complex1 sources do not form one sequence: {:?} {:?} {:?} {:?}",
                                a.mark, b.mark, c.mark, x.mark
                            ),
                        )?;
                        Val::plain(f32::NAN)
                    }
                };
                // Latency 2: the record shows `r` only once it is two back.
                out[2] = Val::none("complex1 result has latency 2 (read it as p2 mul0)");
                out[3] = Val::none("mul1 has no result under complex1");
                return Ok(Some(r));
            }
            MulOp::Select => {
                let f = self.num(ins, ins.mul[0].src[0], m0, 0)?;
                let cond = self.num(ins, ins.mul[0].src[1], m0, 1)?;
                let t = self.num(ins, ins.mul[1].src[0], m1, 0)?;
                out[2] = Val::plain(if cond != 0.0 { t } else { f });
                out[3] = Val::none("mul1 has no result under select");
            }
        }
        Ok(None)
    }

    fn exec_stores(&mut self, ins: &Instruction, out: &[Val; 6]) -> Res<()> {
        let i = self.pc;
        for (k, st) in ins.store.iter().enumerate() {
            for (c, &src) in st.src.iter().enumerate() {
                let Some(unit) = src.unit() else { continue };
                let v = out[unit.index()];
                let comp = 2 * k + c;
                let f = match v.mark {
                    Mark::Unavailable(why) => self.late(
                        v.f,
                        format!(
                            "store{k} of {} which is not available: {why}",
                            UNIT_NAMES[unit.index()]
                        ),
                    )?,
                    _ => v.f,
                };
                let step = self.step;
                if st.temporary {
                    let a = self.addr_reg(0)?;
                    if !(0..UNIFORM_SLOTS as i32).contains(&a) {
                        return invalid(format!(
                            "temporary store to t[{a}] outside 0..{UNIFORM_SLOTS}"
                        ));
                    }
                    self.mem[a as usize * 4 + comp].write(f, step, step + 4, i);
                } else if st.varying {
                    self.varyings[usize::from(st.addr)][comp] = f;
                    self.written[usize::from(st.addr)] |= 1 << comp;
                } else {
                    if self.opts.strict && self.block_left[i] < 2 {
                        return invalid(format!(
                            "register store in the last 2 instructions of a block (${}.{})",
                            st.addr, b"xyzw"[comp] as char
                        ));
                    }
                    self.regs[usize::from(st.addr) * 4 + comp].write(f, step, step + 3, i);
                }
            }
        }
        Ok(())
    }
}

/// The exact value of a complex function (the IR's rounding: [`exact_fn`]).
fn complex_fn(op: ComplexOp, x: f32) -> f32 {
    match op {
        ComplexOp::Rcp => 1.0 / x,
        ComplexOp::Rsqrt => exact_fn::rsqrt(x),
        ComplexOp::Exp2 => exact_fn::exp2(x),
        ComplexOp::Log2 => exact_fn::log2(x),
        _ => x,
    }
}
