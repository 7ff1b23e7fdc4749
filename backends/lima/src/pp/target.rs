//! The `lima-fp` [`Target`]: IR (after the `opt:lima` pipeline) → PP machine code.
//!
//! Stages: [`super::lower`] (IR ops → unit ops on virtual registers), dead-write and
//! unreachable-block removal ([`irc_backend::machine::dce`]), [`super::sched`] (packing unit ops into instructions),
//! [`super::regalloc`] (6 vec4 registers; on failure spill and go back to scheduling), the
//! allocation checker, then [`super::emit`] and the encoder. The disassembly in the
//! [`Output`] is decoded back from the final words by the independent decoder.

use irc_backend::machine::dce;
use irc_backend::machine::spill::{self, Attempts, RefuseLonger, Schedulable};
use irc_backend::output::bytes_of;
use irc_backend::regalloc as ra;
use irc_backend::{
    CompileOptions, Container, Denormals, Diagnostic, Diagnostics, LegacyMul, OptionSpec, Oracle,
    Output, OutputBinding, Pipeline, PipelineKind, Section, Simulator, Stats, Target, TargetCaps,
    TargetPart, Tolerance, CODE,
};
use irc_ir::{Module, ShaderStage};

use super::mir::{Kind, Operand, Program};
use super::sched::{Attempt, Planned, SBlock};
use super::{bound, decode, disasm, emit, encode, fuse, lower, regalloc};

/// The Mali-200/400 fragment processor target.
#[derive(Debug, Clone, Copy, Default)]
pub struct LimaFp;

/// Scheduling attempts tried in each round ([`Attempt`]); the shortest schedule that
/// allocates wins (`Attempts::shortest`), except that round 0's first attempt, the widest
/// window, is taken as soon as it fits (it is the shortest for 284 of the 288 D3D9 pixel
/// shaders where it fits, by 6 instructions in all, and trying the others costs time). The
/// widest window comes only in the first round; then a medium one, which later rounds try
/// first; then the scheduler deferring ops that start new values above a cap of live
/// components (of the 24 lanes) with several windows and caps — each fits a different set of
/// shaders, and each of the ones listed saved instructions that the others did not; then the
/// medium window placing the ops that read no register (a uniform's finite clamp, a constant
/// moved into a register) just in time instead of as early as possible, which keeps them out
/// of the registers until their reader comes; the narrowest window last. The capped attempts
/// come after the uncapped medium window: put first, their over-full schedules' covers would
/// be spilled instead of the narrower schedules being tried. Keeping the shortest instead of
/// the first that fits saved 3.6% of the `ieee` code of the D3D9 pixel shaders (10,389 →
/// 10,016 instructions) and 2.1% of the default mode's (13,675 → 13,393).
const WINDOWS: [Attempt; 11] = [
    Attempt::window(64),
    Attempt::window(12),
    Attempt::window(64).capped(20),
    Attempt::window(12).capped(22),
    Attempt::window(24).capped(20),
    Attempt::window(8).capped(22),
    Attempt::window(32).capped(24),
    Attempt::window(48).capped(24),
    Attempt::window(64).capped(22),
    Attempt::window(12).just_in_time(),
    Attempt::window(3),
];

/// Spill rounds that also try the pressure-capped schedules; later rounds (large programs
/// spilling round after round, where the capped schedules rarely fit and cost the most
/// compile time) try only [`LATE_WINDOWS`].
const CAPPED_ROUNDS: usize = 3;

/// The attempts of the rounds from [`CAPPED_ROUNDS`] on.
const LATE_WINDOWS: [Attempt; 2] = [Attempt::window(12), Attempt::window(3)];

/// Programs with more machine ops than this skip the pressure-capped schedules altogether
/// (the uncapped windows of [`UNCAPPED_WINDOWS`]): on the largest shaders every extra
/// attempt is a full schedule and allocation per round, and the capped ones did not win
/// there (the largest compiles take about half the time without them). At 600 rather than
/// 1,000 ops, the three D3D9 pixel shaders between take the wide window's spill path too and
/// all gain: `ieee` 9,639 → 9,613 instructions (`72e4cb94d3` 304 → 278), default 13,109 →
/// 12,977 (`2216ea995d` 338 → 296, `48f018c83d` 389 → 325, `72e4cb94d3` 407 → 381).
const CAPPED_MAX_OPS: usize = 600;

/// The attempts of programs over [`CAPPED_MAX_OPS`]. After the widest window, a wide one
/// (28) that later rounds try first: when its schedule is over-full, the round spills its
/// pressure cover and schedules it again, instead of settling for the medium window's longer
/// schedule. On the largest D3D9 pixel shaders the widest schedule needs many more registers
/// than there are, and the medium one is over a third longer: `bgfx-ps_3_0-3145125430`
/// (`ieee`) had window 64 over-full by 38 values and window 12 at 912 instructions;
/// spilling window 28's cover gives 780. Over the D3D9 pixel shaders:
/// `ieee` 9,929 → 9,639 instructions, default 13,318 → 13,109, `exact` 23,002 → 22,715,
/// `clamp` 10,774 → 10,344; default spills 269 → 328. The wide window's width matters
/// (window 24: `ieee` 9,749, default 13,187; 32: 9,695 and 13,691 with 395 spills).
const UNCAPPED_WINDOWS: [Attempt; 5] = [
    Attempt::window(64),
    Attempt::window(28),
    Attempt::window(12),
    Attempt::window(12).just_in_time(),
    Attempt::window(3),
];

/// The attempts of programs over [`CAPPED_MAX_OPS`] from round [`CAPPED_ROUNDS`] on (the
/// first entry is the one later rounds try first, as in [`UNCAPPED_WINDOWS`]).
const UNCAPPED_LATE_WINDOWS: [Attempt; 2] = [Attempt::window(28), Attempt::window(3)];

/// A narrower window's schedule more than 10% longer than the medium window's, which only
/// missed the colorer, is refused in the first 12 rounds: the medium window's spill
/// candidates are spilled instead. On the D3D9 pixel shaders of the corpus this saves 6% of
/// the instructions, mostly on the largest shaders, where the narrowest window used to win;
/// the slack hardly matters between 5% and 15%.
const REFUSE_LONGER: RefuseLonger = RefuseLonger {
    slack: 0.1,
    rounds: 12,
};

/// Most rounds of spill-and-retry before giving up.
const MAX_SPILL_ROUNDS: usize = 200;

/// `-C force-spills=N`: spill at least N values (tests the spill path).
pub const FORCE_SPILLS: OptionSpec = OptionSpec {
    name: "force-spills",
    values: &[],
    default: "0",
    help: "spill at least this many values to the temporary stack (tests the spill path)",
};

impl Target for LimaFp {
    fn name(&self) -> &'static str {
        "lima-fp"
    }
    fn family(&self) -> &'static str {
        "lima"
    }
    fn description(&self) -> &'static str {
        "ARM Mali-200/400 fragment processor (PP), code words and MBS1 container"
    }
    fn stages(&self) -> &'static [ShaderStage] {
        &[ShaderStage::Pixel]
    }
    fn caps(&self) -> &TargetCaps {
        &super::caps::CAPS
    }
    fn pipeline(&self, options: &CompileOptions) -> Pipeline {
        Pipeline {
            kind: PipelineKind::Optimize,
            caps: super::caps::CAPS,
            legacy_mul_ieee: LegacyMul::from_options(options) == LegacyMul::Ieee,
            ieee_mul_legacy: false,
        }
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[LegacyMul::OPTION, FORCE_SPILLS]
    }
    fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Output, Diagnostics> {
        compile(module, options).map_err(Diagnostics::from)
    }
    fn disassemble(&self, bytes: &[u8]) -> Result<String, Diagnostic> {
        let words = super::mbs::code_words(bytes, b"CFRA").map_err(Diagnostic::input)?;
        let program =
            decode::decode_program(&words).map_err(|e| Diagnostic::input(e.to_string()))?;
        Ok(disasm::disassemble_program(&program))
    }
    fn assemble(&self, text: &str) -> Result<Vec<u8>, Diagnostic> {
        let program = super::asm::assemble(text).map_err(|e| Diagnostic::input(e.to_string()))?;
        let words =
            encode::encode_program(&program).map_err(|e| Diagnostic::input(e.to_string()))?;
        Ok(bytes_of(&words))
    }
    fn simulator(&self) -> Option<&dyn Simulator> {
        Some(&super::sim_io::PpSim)
    }
    fn tolerance(&self) -> Tolerance {
        // Every result, register, uniform and constant is binary16 (reference §11).
        Tolerance::FP16
    }
    fn oracle(&self, _options: &CompileOptions) -> Oracle {
        // Division is rcp + mul, derivatives are fine, pow/sin/cos run as the combiner's
        // step sequences, and uniforms are fp16 (no f32 denormals survive the upload); the
        // fp16 datapath flushes denormals.
        Oracle {
            div_as_rcp_mul: true,
            sqrt_as_rcp_rsqrt: false,
            // `rcp(rsq(x))` is one combiner `sqrt` (`Lower::rsq_operand`).
            rcp_rsq_as_sqrt: true,
            fine_default_derivatives: true,
            stepwise_transcendentals: true,
            polynomial_trig: false,
            flush_denormal_uniforms: true,
            denormals: Denormals::Flush,
            narrow_range: None,
            legacy_zero_keeps_nan: false,
        }
    }
}

fn internal(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::internal(None, msg)
}

/// The scheduled program: blocks of instructions, and whether a shared discard instruction
/// follows them.
type Scheduled = (Vec<SBlock>, bool);

impl Schedulable for Planned {
    type Attempt = Attempt;
    type Schedule = Scheduled;
    fn schedule(&self, attempt: Attempt) -> Result<Scheduled, Diagnostic> {
        Planned::schedule(self, attempt).map_err(internal)
    }
    fn describe(&self, (blocks, _): &Scheduled) -> ra::Program {
        let p = self.program();
        regalloc::describe(p, blocks, &p.succs())
    }
    fn length(&self, (blocks, _): &Scheduled) -> usize {
        blocks.iter().map(|b| b.instrs.len()).sum()
    }
    fn lower_bound(&self) -> usize {
        bound::lower_bound(self.program()) as usize
    }
}

/// Schedules and allocates, spilling to the temporary stack until the program fits. Wide
/// scheduling windows pack more ops per instruction, narrow ones keep fewer values alive: each
/// round tries them in turn before spilling (the widest only in the first round); the
/// attempts share each block's scheduling facts ([`Planned`]).
fn schedule_and_allocate(
    prog: &mut Program,
    options: &CompileOptions,
) -> Result<(Vec<SBlock>, bool, ra::Allocation, ra::Program), Diagnostic> {
    let ops: usize = prog.blocks.iter().map(|b| b.ops.len()).sum();
    let (windows, late): (&[Attempt], &[Attempt]) = if ops > CAPPED_MAX_OPS {
        (&UNCAPPED_WINDOWS, &UNCAPPED_LATE_WINDOWS)
    } else {
        (&WINDOWS, &LATE_WINDOWS)
    };
    let attempts = Attempts {
        first: windows,
        retry: &windows[1..],
        late: Some((CAPPED_ROUNDS, late)),
        max_rounds: MAX_SPILL_ROUNDS,
        growth_period: 3,
        file_name: "the 6 vec4 registers",
        refuse_longer: Some(REFUSE_LONGER),
        // The largest programs keep the first schedule that fits: searching on found no
        // shorter code there and cost them the most time.
        shortest: ops <= CAPPED_MAX_OPS,
    };
    let mut planned = Planned::new(std::mem::take(prog));
    let done = spill::schedule_and_allocate(
        &mut planned,
        &regalloc::FILE,
        &mut regalloc::TempStack,
        &attempts,
        options.get_u32(&FORCE_SPILLS),
    );
    *prog = planned.into_program();
    let done = done?;
    let (blocks, discard) = done.schedule;
    Ok((blocks, discard, done.allocation, done.program))
}

/// Compiles an optimized module.
pub fn compile(module: &Module, options: &CompileOptions) -> Result<Output, Diagnostic> {
    let lowered = lower::lower(module)?;
    let mut prog = lowered.program;
    dce::remove_unreachable(&mut prog);
    dce::dead_writes(&mut prog, dce::Reads::WholeRegister);
    fuse::texture_readers(&mut prog);
    let (mut blocks, discard, alloc, desc) = schedule_and_allocate(&mut prog, options)?;
    ra::check(&regalloc::FILE, &desc, &alloc)
        .map_err(|e| internal(format!("register allocation check failed: {e}")))?;
    drop_self_moves(&mut blocks, &alloc);
    let mut instrs = emit::emit(&blocks, &alloc, discard)?;
    encode::link_program(&mut instrs).map_err(|e| internal(format!("link: {e}")))?;
    let words = encode::encode_program(&instrs).map_err(|e| internal(format!("encode: {e}")))?;
    let decoded = decode::decode_program(&words)
        .map_err(|e| internal(format!("the decoder rejects the encoder's output: {e}")))?;
    let disassembly = disasm::disassemble_program(&decoded);

    let mut reflection = lowered.reflection;
    for (src, v, n) in &prog.outputs {
        let loc = alloc
            .loc(*v)
            .ok_or_else(|| internal(format!("output {v} has no register")))?;
        reflection.outputs.push(OutputBinding {
            target: *src,
            register: u32::from(loc.reg),
            components: *n,
        });
    }
    let mut pp = super::reflection::PpReflection::of(&reflection);
    pp.temp_stack = prog.spill_slots;
    reflection.target = Some(TargetPart::new(pp));

    let stats = stats(&prog, &blocks, &alloc, &words, discard, lowered.ir_ops);
    let container = options.container.then(|| Container {
        format: "mbs1",
        bytes: super::mbs::write_mbs1(&words, &reflection),
    });
    Ok(Output {
        sections: vec![Section {
            name: CODE,
            bytes: bytes_of(&words),
        }],
        container,
        disassembly,
        reflection,
        stats,
    })
}

fn stats(
    prog: &Program,
    blocks: &[SBlock],
    alloc: &ra::Allocation,
    words: &[u32],
    discard: bool,
    ir_ops: u32,
) -> Stats {
    let mut spills = 0;
    let mut fills = 0;
    let mut units_filled = 0;
    for b in blocks {
        for i in &b.instrs {
            units_filled += i.filled();
            for (op, _) in &i.ops {
                if matches!(op.kind, Kind::Spill { .. }) {
                    spills += 1;
                }
                fills += op
                    .srcs
                    .iter()
                    .filter(|s| matches!(s.op, Operand::Temp { .. }))
                    .count() as u32;
            }
        }
    }
    Stats {
        instructions: blocks.iter().map(|b| b.instrs.len() as u32).sum::<u32>()
            + u32::from(discard),
        code_bytes: 4 * words.len() as u32,
        registers: u32::from(alloc.registers_used),
        spills,
        fills,
        units_filled,
        lower_bound: bound::lower_bound(prog),
        ir_ops,
        extra: Vec::new(),
    }
}

/// Removes moves whose source and destination got the same lanes, and instructions left empty.
fn drop_self_moves(blocks: &mut [SBlock], alloc: &ra::Allocation) {
    for b in blocks {
        for ins in &mut b.instrs {
            ins.ops.retain(|(op, _)| {
                if !bound::may_vanish(op) {
                    return true;
                }
                let (Some(d), Operand::Reg(v, swz)) = (op.dst, op.srcs[0].op) else {
                    return true;
                };
                let (Some(ld), Some(ls)) = (alloc.loc(d), alloc.loc(v)) else {
                    return true;
                };
                let same = ld.reg == ls.reg
                    && (0..op.width)
                        .all(|i| ld.lane + op.dst_comp + i == ls.lane + swz[i as usize]);
                !same
            });
            ins.recompute_units();
        }
        // A `stop` left alone moves up to the previous instruction when that one does not
        // branch (stop and a taken branch together are left untested on hardware).
        let n = b.instrs.len();
        if n >= 2 {
            let (last, prev) = (&b.instrs[n - 1], &b.instrs[n - 2]);
            if last.ops.is_empty() && last.branch.is_none() && last.stop && prev.branch.is_none() {
                let exit_reads = std::mem::take(&mut b.instrs[n - 1].exit_reads);
                b.instrs[n - 2].stop = true;
                b.instrs[n - 2].exit_reads = exit_reads;
                b.instrs.pop();
            }
        }
        b.instrs
            .retain(|i| !i.ops.is_empty() || i.branch.is_some() || i.stop);
    }
}
