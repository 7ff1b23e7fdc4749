//! The `lima-vp` [`Target`]: IR (after the `opt` pipeline with [`super::caps::CAPS`]) → GP
//! machine code.
//!
//! Stages: [`super::lower`] (IR → scalar nodes, uniforms and reflection), [`super::sched`]
//! (instructions, forwarding and registers together), then the encoder. The disassembly in the
//! [`Output`] is decoded back from the final words by the independent decoder; the container
//! is MBS1 with a `CVER` chunk ([`super::mbs`], reference §16); a program's container holds
//! the `CVER` and the fragment stage's `CFRA` in one file ([`crate::pp::mbs::merge_mbs1`]).

use irc_backend::output::bytes_of;
use irc_backend::{
    CompileOptions, Container, Denormals, Diagnostic, Diagnostics, LegacyMul, OptionSpec, Oracle,
    Output, Pipeline, PipelineKind, Section, Simulator, Stats, Target, TargetCaps, TargetPart,
    Tolerance, UniformBinding, UniformSource, CODE,
};
use irc_ir::{Module, ShaderStage};

use super::isa::{MAX_INSTRUCTIONS, REGISTERS};
use super::mir::{OpClass, Program};
use super::{decode, disasm, encode, lower, sched, GpReflection};

/// The Mali-200/400 vertex processor target.
#[derive(Debug, Clone, Copy, Default)]
pub struct LimaVp;

impl Target for LimaVp {
    fn name(&self) -> &'static str {
        "lima-vp"
    }
    fn family(&self) -> &'static str {
        "lima"
    }
    fn description(&self) -> &'static str {
        "ARM Mali-200/400 vertex processor (GP), 128-bit instruction words and MBS1 container"
    }
    fn stages(&self) -> &'static [ShaderStage] {
        &[ShaderStage::Vertex]
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
        &[LegacyMul::OPTION, REGISTER_BUDGET]
    }
    fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Output, Diagnostics> {
        compile(module, options).map_err(Diagnostics::from)
    }
    fn disassemble(&self, bytes: &[u8]) -> Result<String, Diagnostic> {
        let words = crate::pp::mbs::code_words(bytes, b"CVER").map_err(Diagnostic::input)?;
        let program =
            decode::decode_program(&words).map_err(|e| Diagnostic::input(e.to_string()))?;
        Ok(disasm::disassemble_program(&program))
    }
    fn assemble(&self, text: &str) -> Result<Vec<u8>, Diagnostic> {
        let program = super::asm::assemble(text).map_err(|e| Diagnostic::input(e.to_string()))?;
        encode::encode_bytes(&program).map_err(|e| Diagnostic::input(e.to_string()))
    }
    fn simulator(&self) -> Option<&dyn Simulator> {
        Some(&super::GpSim)
    }
    fn tolerance(&self) -> Tolerance {
        // fp32 (reference §11); the position goes through the viewport transform and back.
        Tolerance::F32
    }
    /// A program's container: one MBS1 file with the vertex stage's `CVER` and the fragment
    /// stage's `CFRA` chunks (layout and reasons: [`crate::pp::mbs`]).
    fn program_container(&self, stages: &[&Output]) -> Option<Result<Container, Diagnostic>> {
        let files: Option<Vec<&[u8]>> = stages
            .iter()
            .map(|s| s.container.as_ref().map(|c| c.bytes.as_slice()))
            .collect();
        Some(match files {
            Some(files) => crate::pp::mbs::merge_mbs1(&files)
                .map(|bytes| Container {
                    format: "mbs1",
                    bytes,
                })
                .map_err(|e| internal(format!("a stage's MBS1 file: {e}"))),
            None => Err(internal(
                "a stage of the program was compiled without its container",
            )),
        })
    }
    fn oracle(&self, _options: &CompileOptions) -> Oracle {
        // Division is rcp + mul, square root rcp(rsqrt); f32 uniforms.
        Oracle {
            div_as_rcp_mul: true,
            sqrt_as_rcp_rsqrt: true,
            rcp_rsq_as_sqrt: false,
            fine_default_derivatives: false,
            stepwise_transcendentals: false,
            polynomial_trig: true,
            flush_denormal_uniforms: false,
            denormals: Denormals::Unknown,
            narrow_range: None,
            legacy_zero_keeps_nan: false,
        }
    }
}

/// `-C register-budget=N`: keep values in at most N of the 16 vec4 registers and spill the
/// rest to temporaries (tests the spill path).
pub const REGISTER_BUDGET: OptionSpec = OptionSpec {
    name: "register-budget",
    values: &[],
    default: "16",
    help: "vec4 registers (0-16) the scheduler may keep values in; fewer forces spills to \
           temporaries (tests the spill path)",
};

fn internal(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::internal(None, msg)
}

/// Compiles an optimized module.
pub fn compile(module: &Module, options: &CompileOptions) -> Result<Output, Diagnostic> {
    let lowered = lower::lower(module, options.output_layout.as_deref())?;
    let prog = &lowered.program;
    let cfg = sched::Config {
        registers: (options.get_u32(&REGISTER_BUDGET) as usize).min(REGISTERS),
        uniform_base: lowered.reflection.uniform_slots,
    };
    let scheduled = sched::schedule_blocks(prog, cfg)?;
    if scheduled.instrs.len() > MAX_INSTRUCTIONS {
        return Err(Diagnostic::limit(format!(
            "{} instructions; the GP runs at most {MAX_INSTRUCTIONS} (reference §12)",
            scheduled.instrs.len()
        )));
    }
    let words =
        encode::encode_program(&scheduled.instrs).map_err(|e| internal(format!("encode: {e}")))?;
    let decoded = decode::decode_program(&words)
        .map_err(|e| internal(format!("the decoder rejects the encoder's output: {e}")))?;
    let disassembly = disasm::disassemble_program(&decoded);
    let mut reflection = lowered.reflection;
    for (i, lit) in scheduled.addr_literals.iter().enumerate() {
        reflection.uniforms.push(UniformBinding {
            slot: cfg.uniform_base + i as u32,
            source: UniformSource::Literal(*lit),
        });
    }
    reflection.uniform_slots += scheduled.addr_literals.len() as u32;
    reflection.target = Some(TargetPart::new(GpReflection {
        viewport: lowered.viewport,
        point_size: lowered.point_size,
    }));
    let s = scheduled.stats;
    let stats = Stats {
        instructions: scheduled.instrs.len() as u32,
        code_bytes: 4 * words.len() as u32,
        registers: s.registers,
        spills: s.spills,
        fills: s.fills,
        units_filled: s.units_filled,
        lower_bound: prog.blocks.iter().map(|b| lower_bound(&b.prog)).sum(),
        ir_ops: lowered.ir_ops,
        extra: vec![
            ("register-stores", u64::from(s.reg_stores)),
            ("register-loads", u64::from(s.reg_loads)),
            ("moves", u64::from(s.movs)),
            ("uniform-slots", u64::from(reflection.uniform_slots)),
        ],
    };
    let container = options.container.then(|| Container {
        format: "mbs1",
        bytes: super::mbs::write_mbs1(&scheduled.instrs, &words),
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

/// A lower bound on the instruction count: the busiest unit class (two acc units, two mul
/// units, one complex unit; a select or complex step takes both mul units), the work of the
/// six ALU units together, and the two store units' varying components.
fn lower_bound(prog: &Program) -> u32 {
    let (mut acc, mut mul, mut complex, mut alu) = (0u32, 0u32, 0u32, 0u32);
    let live = prog.live();
    for n in prog
        .nodes
        .iter()
        .zip(&live)
        .filter(|(_, &l)| l)
        .map(|(n, _)| n)
    {
        match n.op.class() {
            OpClass::Acc => acc += 1,
            OpClass::Mul => mul += 1,
            OpClass::Select => mul += 2,
            OpClass::Complex => {
                complex += 1;
                mul += 4;
            }
            OpClass::Addr => complex += 1,
            OpClass::Mov => {}
        }
        alu += match n.op.class() {
            OpClass::Select => 2,
            OpClass::Complex => 5,
            _ => 1,
        };
    }
    let stores = (prog.outputs.len() as u32).div_ceil(4);
    acc.div_ceil(2)
        .max(mul.div_ceil(2))
        .max(complex)
        .max(alu.div_ceil(6))
        .max(stores)
        .max(1)
}
