//! A simulator for decoded PP programs, executing one 2×2 quad.
//!
//! # Model
//!
//! * **Lanes**: lane = y·2 + x (lanes 0,1 form the top row). Each lane has 6 vec4 registers (`$0..$5`,
//!   initially 0), its own temporary memory (scalar-addressed, initially 0) and a program counter.
//! * **Instruction**: the units run in the fixed pipeline order of §2.2 — varying → sampler → uniform →
//!   {vec4 mul ∥ scalar mul} → {vec4 add ∥ scalar add} → {combiner ∥ branch} → temp write. Units of one stage
//!   read the state from before the stage; their register writes become visible to *later stages of the same
//!   instruction* (the old text's model; Mesa relies only on pipeline registers, so this is *unverified*:
//!   [`SimOptions::strict_pipeline`] turns such reads into errors). Pipeline registers (`^discard`, `^texture`,
//!   `^uniform`, `^vmul`, `^fmul`, `^const0/1`) exist only inside the instruction that produces them; reading
//!   one that was not produced there is an error.
//! * **Precision**: in [`Precision::Fp16`] every unit result, every register write, uniform and texel is rounded
//!   to IEEE binary16 (via `half`), after the output modifier. The varying → `^discard` → sampler path keeps f32
//!   (the hardware keeps ~fp24 there, §4.1, §11). [`Precision::Fp32`] rounds nothing.
//! * **Control flow and divergence**: all unfinished lanes at the lowest program counter execute the next
//!   instruction together (min-PC scheduling); the others wait. This reconverges forward (if/else) and backward
//!   (loop) branches at the earliest common instruction. Lanes that are not executing (waiting, stopped or
//!   discarded) act as *helper lanes* for quad operations: derivatives and texture LOD read their operands
//!   computed from their current (frozen) registers, but nothing is written to them.
//! * **End**: a lane finishes after an instruction with `stop` (stop wins over a taken branch in the same
//!   instruction — *unverified*), or when it executes `discard` (then it is flagged discarded). Running past the
//!   last instruction is an error. Every executed instruction costs one unit of fuel.
//! * **Output**: the registers of each lane at its end; the colour is whatever register the compiler reported
//!   (§6: the RSW names it), read with [`QuadOutput::color`].
//!
//! Semantic choices the reference leaves open are documented on the unit implementations (`sim_units.rs`).

use std::collections::HashMap;

use thiserror::Error;

use super::decode::{decode_program, DecodeError};
use super::instr::{instruction_offsets, Branch, Instruction};
use super::texture::TextureSampler;

/// Arithmetic precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// Round every result to binary16 like the hardware.
    #[default]
    Fp16,
    /// Keep f32 (for comparing against an exact reference).
    Fp32,
}

/// Simulator options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimOptions {
    pub precision: Precision,
    /// Maximum number of executed (quad) instructions.
    pub fuel: u64,
    /// Error on reading a general register written by an earlier stage of the same instruction.
    pub strict_pipeline: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            precision: Precision::Fp16,
            fuel: 100_000,
            strict_pipeline: false,
        }
    }
}

/// Inputs of one lane (pixel).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LaneInputs {
    /// Varyings as vec4 slots (varying index `n` of alignment vec4 = slot `n`).
    pub varyings: Vec<[f32; 4]>,
    /// Raw gl_FragCoord as delivered by the varying unit (the program must itself invert `.w`, §6).
    pub frag_coord: [f32; 4],
    pub front_facing: bool,
    /// Raw gl_PointCoord (the program applies the scale/bias, §6).
    pub point_coord: [f32; 2],
    /// Framebuffer colour for `fb_color`.
    pub fb_color: [f32; 4],
    /// Framebuffer depth for `fb_depth`.
    pub fb_depth: f32,
}

/// Inputs of the quad.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QuadInputs {
    pub lanes: [LaneInputs; 4],
    /// Uniforms as vec4 slots.
    pub uniforms: Vec<[f32; 4]>,
}

/// State of one lane at its end.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LaneOutput {
    pub regs: [[f32; 4]; 6],
    pub discarded: bool,
}

/// Result of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QuadOutput {
    pub lanes: [LaneOutput; 4],
    /// Executed quad instructions (fuel used).
    pub steps: u64,
    /// Quad operations (derivatives, implicit-LOD fetches) executed while some lanes of the
    /// quad were not executing: their result depends on the helper lanes' frozen state, which
    /// D3D and GL leave undefined.
    pub divergent_quad_ops: u32,
}

impl QuadOutput {
    /// Register `reg` of every lane (the colour output when `reg` is the reported output register).
    pub fn color(&self, reg: usize) -> [[f32; 4]; 4] {
        std::array::from_fn(|l| self.lanes[l].regs.get(reg).copied().unwrap_or_default())
    }
}

/// What went wrong while simulating.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SimErrorKind {
    #[error("out of fuel")]
    OutOfFuel,
    #[error("execution ran past the last instruction")]
    FellOffEnd,
    #[error("branch target word {0} is not the start of an instruction")]
    BadBranchTarget(i64),
    #[error("register ${0} does not exist (hardware has $0..$5)")]
    RegisterOutOfRange(u8),
    #[error("{unit}: invalid destination register code {dest}")]
    InvalidDest { unit: &'static str, dest: u8 },
    #[error("pipeline register {0} is not produced by this instruction")]
    PipelineNotWritten(&'static str),
    #[error("{0} without the sync bit")]
    MissingSync(&'static str),
    #[error("varying index {0} out of range")]
    VaryingOutOfRange(i64),
    #[error("uniform index {0} out of range")]
    UniformOutOfRange(i64),
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    #[error(
        "strict pipeline: ${reg}.{comp} read after being written earlier in the same instruction"
    )]
    IntraInstructionRead { reg: u8, comp: u8 },
    #[error("{0}")]
    Decode(#[from] DecodeError),
}

/// A simulation error, at the word offset of the executing instruction.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("word {word}: {kind}")]
pub struct SimError {
    pub word: u32,
    pub kind: SimErrorKind,
}

/// The PP simulator with its textures and options fixed: one quad per run.
#[derive(Clone, Copy)]
pub struct PpSimulator<'a> {
    pub textures: &'a dyn TextureSampler,
    pub options: SimOptions,
}

impl std::fmt::Debug for PpSimulator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PpSimulator")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl PpSimulator<'_> {
    /// Runs the program `words` on one quad.
    pub fn run(&self, words: &[u32], inputs: &QuadInputs) -> Result<QuadOutput, SimError> {
        run_words(words, inputs, self.textures, &self.options)
    }
}

/// Decodes and runs a program given as words.
pub fn run_words(
    words: &[u32],
    inputs: &QuadInputs,
    textures: &dyn TextureSampler,
    opts: &SimOptions,
) -> Result<QuadOutput, SimError> {
    let program = decode_program(words).map_err(|e| SimError {
        word: 0,
        kind: e.into(),
    })?;
    run_program(&program, inputs, textures, opts)
}

/// Runs a decoded program on one quad.
pub fn run_program(
    program: &[Instruction],
    inputs: &QuadInputs,
    textures: &dyn TextureSampler,
    opts: &SimOptions,
) -> Result<QuadOutput, SimError> {
    let offsets = instruction_offsets(program);
    let mut lanes: [Lane; 4] = Default::default();
    let mut steps = 0u64;
    let mut divergent_quad_ops = 0;
    if program.is_empty() {
        return Err(SimError {
            word: 0,
            kind: SimErrorKind::FellOffEnd,
        });
    }
    while let Some(pc) = lanes.iter().filter(|l| !l.done).map(|l| l.pc).min() {
        let word = offsets[pc];
        let err = |kind| SimError { word, kind };
        if steps >= opts.fuel {
            return Err(err(SimErrorKind::OutOfFuel));
        }
        steps += 1;
        let instr = &program[pc];
        let active: [bool; 4] = std::array::from_fn(|l| !lanes[l].done && lanes[l].pc == pc);
        if !active.iter().all(|&a| a) && quad_op(instr) {
            divergent_quad_ops += 1;
        }
        let mut exec = Exec {
            instr,
            opts,
            inputs,
            textures,
            lanes: &mut lanes,
            active,
            pipe: Default::default(),
            pending: Vec::new(),
            taken: [false; 4],
        };
        exec.run().map_err(err)?;
        let taken = exec.taken;
        let next_index = |target: i64| -> Result<usize, SimError> {
            offsets
                .binary_search(&u32::try_from(target).unwrap_or(u32::MAX))
                .map_err(|_| err(SimErrorKind::BadBranchTarget(target)))
        };
        for (l, lane) in lanes.iter_mut().enumerate() {
            if !active[l] {
                continue;
            }
            lane.written = 0;
            if lane.discarded || instr.control.stop {
                lane.done = true;
            } else if taken[l] {
                let Some(Branch::Branch { target, .. }) = instr.branch else {
                    return Err(err(SimErrorKind::Unsupported(
                        "taken branch without a branch unit",
                    )));
                };
                lane.pc = next_index(i64::from(word) + i64::from(target))?;
            } else if pc + 1 < program.len() {
                lane.pc = pc + 1;
            } else {
                return Err(err(SimErrorKind::FellOffEnd));
            }
        }
    }
    Ok(QuadOutput {
        lanes: std::array::from_fn(|l| LaneOutput {
            regs: lanes[l].regs,
            discarded: lanes[l].discarded,
        }),
        steps,
        divergent_quad_ops,
    })
}

/// Whether an instruction computes across the quad (derivative or implicit-LOD fetch).
fn quad_op(instr: &Instruction) -> bool {
    use super::isa::AccOp;
    let deriv = |op: AccOp| matches!(op, AccOp::DFdx | AccOp::DFdy);
    instr
        .sampler
        .is_some_and(|s| !(s.lod_bias_en && s.explicit_lod))
        || instr.vec4_acc.is_some_and(|a| deriv(a.op))
        || instr.float_acc.is_some_and(|a| deriv(a.op))
}

/// Architectural state of one lane.
#[derive(Debug, Clone, Default)]
pub(super) struct Lane {
    pub regs: [[f32; 4]; 6],
    /// Temporary memory, by scalar address.
    pub temps: HashMap<i64, f32>,
    pub pc: usize,
    pub done: bool,
    pub discarded: bool,
    /// Scalar slots (reg·4 + comp) written by earlier stages of the current instruction.
    pub written: u32,
}

/// Pipeline registers of one lane inside the current instruction.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Pipe {
    pub discard: Option<[f32; 4]>,
    pub texture: Option<[f32; 4]>,
    pub uniform: Option<[f32; 4]>,
    pub vmul: Option<[f32; 4]>,
    pub fmul: Option<f32>,
}

/// A state change produced by a stage, committed (for active lanes) when the stage ends.
#[derive(Debug, Clone, Copy)]
pub(super) enum Write {
    /// Scalar register slot reg·4 + comp.
    Slot {
        lane: usize,
        slot: usize,
        value: f32,
    },
    Temp {
        lane: usize,
        addr: i64,
        value: f32,
    },
    Discard {
        lane: usize,
    },
}

/// Execution of one instruction for the active lanes of the quad.
pub(super) struct Exec<'a> {
    pub instr: &'a Instruction,
    pub opts: &'a SimOptions,
    pub inputs: &'a QuadInputs,
    pub textures: &'a dyn TextureSampler,
    pub lanes: &'a mut [Lane; 4],
    pub active: [bool; 4],
    pub pipe: [Pipe; 4],
    pub pending: Vec<Write>,
    pub taken: [bool; 4],
}

impl Exec<'_> {
    fn run(&mut self) -> Result<(), SimErrorKind> {
        self.stage_varying()?;
        self.commit();
        self.stage_sampler()?;
        self.stage_uniform()?;
        self.stage_mul()?;
        self.commit();
        self.stage_acc()?;
        self.commit();
        self.stage_combine_branch()?;
        self.commit();
        self.stage_temp_write()?;
        self.commit();
        Ok(())
    }

    /// Applies pending writes of active lanes.
    fn commit(&mut self) {
        for w in std::mem::take(&mut self.pending) {
            match w {
                Write::Slot { lane, slot, value } if self.active[lane] => {
                    self.lanes[lane].regs[slot / 4][slot % 4] = value;
                    self.lanes[lane].written |= 1 << slot;
                }
                Write::Temp { lane, addr, value } if self.active[lane] => {
                    self.lanes[lane].temps.insert(addr, value);
                }
                Write::Discard { lane } if self.active[lane] => self.lanes[lane].discarded = true,
                Write::Slot { .. } | Write::Temp { .. } | Write::Discard { .. } => {}
            }
        }
    }

    /// Runs `f` for every lane; errors of inactive (helper) lanes are replaced by `T::default()`.
    pub fn per_lane<T: Default>(
        &mut self,
        mut f: impl FnMut(&mut Self, usize) -> Result<T, SimErrorKind>,
    ) -> Result<[T; 4], SimErrorKind> {
        let mut out: [T; 4] = Default::default();
        for (l, slot) in out.iter_mut().enumerate() {
            match f(self, l) {
                Ok(v) => *slot = v,
                Err(e) if self.active[l] => return Err(e),
                Err(_) => {}
            }
        }
        Ok(out)
    }

    /// Rounds to the simulated precision.
    pub fn round(&self, x: f32) -> f32 {
        match self.opts.precision {
            Precision::Fp16 => half::f16::from_f32(x).to_f32(),
            Precision::Fp32 => x,
        }
    }
}
