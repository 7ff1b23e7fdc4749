//! The `agal-fp` and `agal-vp` [`Target`]s: IR (after the `opt:agal` pipeline) → an AGAL
//! program (header + tokens) that the runtime validator accepts.
//!
//! Stages: [`crate::lower`] (machine ops on virtual registers, constant pool, I/O), then for
//! each AGAL version from the lowest allowed: [`crate::regalloc`] (lane packing into the
//! version's temporaries), emission, the version's register and token limits; the first
//! version the program fits is kept (`-C agal-version=auto`, the default) or the one asked
//! for. The encoded program goes through [`crate::validate::validate`] (a rejection is an
//! internal error) and the independent decoder for the disassembly.

use irc_backend::{
    CompileOptions, Diagnostic, Diagnostics, LegacyMul, OptionSpec, Oracle, Output, Pipeline,
    PipelineKind, Section, Simulator, Stats, Target, TargetCaps, Tolerance, CODE,
};
use irc_ir::{Module, ShaderStage};

use crate::instr::Program;
use crate::isa::{self, RegType, ShaderKind};
use crate::lower::FlowMode;
use crate::validate::{validate, ValidateOptions};
use crate::{asm, decode, disasm, encode, lower, regalloc, sim};

/// `-C agal-version=1|2|3|auto`.
pub const AGAL_VERSION: OptionSpec = OptionSpec {
    name: "agal-version",
    values: &[
        ("auto", "the lowest version the program fits"),
        ("1", "AGAL 1 (baseline profiles)"),
        ("2", "AGAL 2 (standard profiles)"),
        ("3", "AGAL 3 (standardExtended)"),
    ],
    default: "auto",
    help: "AGAL version of the program",
};

/// The Stage3D fragment program target.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgalFp;

/// The Stage3D vertex program target.
#[derive(Debug, Clone, Copy, Default)]
pub struct AgalVp;

static SIM: sim::AgalSimulator = sim::AgalSimulator;

macro_rules! agal_target {
    ($ty:ident, $name:literal, $stage:expr, $desc:literal) => {
        impl Target for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn family(&self) -> &'static str {
                "agal"
            }
            fn description(&self) -> &'static str {
                $desc
            }
            fn stages(&self) -> &'static [ShaderStage] {
                &[$stage]
            }
            fn caps(&self) -> &TargetCaps {
                &crate::caps::CAPS
            }
            fn pipeline(&self, options: &CompileOptions) -> Pipeline {
                Pipeline {
                    kind: PipelineKind::Optimize,
                    caps: crate::caps::PIPELINE_CAPS,
                    legacy_mul_ieee: LegacyMul::from_options(options) == LegacyMul::Ieee,
                    ieee_mul_legacy: false,
                }
            }
            fn options(&self) -> &'static [OptionSpec] {
                &[LegacyMul::OPTION, AGAL_VERSION]
            }
            fn compile(
                &self,
                module: &Module,
                options: &CompileOptions,
            ) -> Result<Output, Diagnostics> {
                compile(module, options, $stage).map_err(Diagnostics::from)
            }
            fn disassemble(&self, bytes: &[u8]) -> Result<String, Diagnostic> {
                disasm::disassemble(bytes).map_err(|e| Diagnostic::input(e.to_string()))
            }
            fn assemble(&self, text: &str) -> Result<Vec<u8>, Diagnostic> {
                let p = asm::assemble(text).map_err(|e| Diagnostic::input(e.to_string()))?;
                encode::encode_program_checked(&p).map_err(|e| Diagnostic::input(e.to_string()))
            }
            fn validate(&self, bytes: &[u8]) -> Option<Result<Vec<Diagnostic>, Diagnostic>> {
                Some(Ok(validate_bytes(bytes)))
            }
            fn simulator(&self) -> Option<&dyn Simulator> {
                Some(&SIM)
            }
            fn program_agreement(&self, stages: &[&Output]) -> Option<Vec<(&'static str, String)>> {
                program_version(stages)
            }
            fn tolerance(&self) -> Tolerance {
                Tolerance::F32
            }
            fn oracle(&self, _options: &CompileOptions) -> Oracle {
                // `rcp(rsq(x))` is one `sqt` (`try_sqt`); everything else is exact.
                Oracle {
                    rcp_rsq_as_sqrt: true,
                    ..Oracle::default()
                }
            }
        }
    };
}

agal_target!(
    AgalFp,
    "agal-fp",
    ShaderStage::Pixel,
    "Adobe Stage3D AGAL 1-3 fragment program"
);
agal_target!(
    AgalVp,
    "agal-vp",
    ShaderStage::Vertex,
    "Adobe Stage3D AGAL 1-3 vertex program"
);

/// The AGAL version of a compiled program (its header), if it is one.
fn version_of(out: &Output) -> Option<u32> {
    let code = out.sections.iter().find(|s| s.name == CODE)?;
    let v = code
        .bytes
        .get(isa::header::VERSION..isa::header::VERSION + 4)?;
    Some(u32::from_le_bytes(v.try_into().ok()?))
}

/// One version for the vertex and the fragment program (the runtime rejects a pair whose
/// versions differ, #3757): when the stages' versions differ, all of them again at the highest
/// (a program that fits a version fits every later one).
fn program_version(stages: &[&Output]) -> Option<Vec<(&'static str, String)>> {
    let versions: Vec<u32> = stages.iter().filter_map(|o| version_of(o)).collect();
    let max = versions.iter().copied().max()?;
    if versions.iter().all(|&v| v == max) {
        return None;
    }
    Some(vec![(AGAL_VERSION.name, max.to_string())])
}

/// The runtime validator's verdict on any AGAL bytes (either shader type: the header says
/// which), in the most permissive profile: the broken rule, with its error number, token and
/// byte offset, as one `Input` diagnostic (the validator stops at the first, like Flash).
fn validate_bytes(bytes: &[u8]) -> Vec<Diagnostic> {
    match validate(bytes, &ValidateOptions::default()) {
        Ok(_) => Vec::new(),
        Err(e) => vec![Diagnostic::input(e.to_string())],
    }
}

fn internal(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::internal(None, msg)
}

/// What a version's limits say about a program, or `None` if it fits.
fn over_limits(
    version: u32,
    kind: ShaderKind,
    tokens: usize,
    lowered: &lower::Lowered,
) -> Option<String> {
    let r = &lowered.reflection;
    let lim = |t: RegType| t.limit(version, kind);
    let max_tokens = isa::max_tokens(version);
    if tokens > max_tokens {
        return Some(format!("{tokens} tokens (AGAL {version}: {max_tokens})"));
    }
    if r.uniform_slots > lim(RegType::Constant) {
        return Some(format!(
            "{} constant registers (AGAL {version}: {})",
            r.uniform_slots,
            lim(RegType::Constant)
        ));
    }
    let inputs = r.varyings.iter().map(|v| v.slot + 1).max().unwrap_or(0);
    let in_ty = if kind == ShaderKind::Fragment {
        RegType::Varying
    } else {
        RegType::Attribute
    };
    if inputs > lim(in_ty) {
        return Some(format!(
            "{inputs} input registers (AGAL {version}: {})",
            lim(in_ty)
        ));
    }
    if kind == ShaderKind::Vertex {
        let outs = r
            .outputs
            .iter()
            .filter(|o| matches!(o.target, irc_backend::IoSource::Location { .. }))
            .map(|o| o.register + 1)
            .max()
            .unwrap_or(0);
        if outs > lim(RegType::Varying) {
            return Some(format!(
                "{outs} varyings (AGAL {version}: {})",
                lim(RegType::Varying)
            ));
        }
    }
    let samplers = r.samplers.len() as u32;
    if kind == ShaderKind::Fragment && samplers > lim(RegType::Sampler) {
        return Some(format!(
            "{samplers} samplers (AGAL {version}: {})",
            lim(RegType::Sampler)
        ));
    }
    if lowered.program.needs_v2 && version < 2 {
        return Some("AGAL 2 features (ddx/ddy, multiple render targets, depth output)".into());
    }
    None
}

/// Compiles an optimized module for `stage`.
pub fn compile(
    module: &Module,
    options: &CompileOptions,
    stage: ShaderStage,
) -> Result<Output, Diagnostic> {
    let versions: Vec<u32> = match options.get(&AGAL_VERSION) {
        "1" => vec![1],
        "2" => vec![2],
        "3" => vec![3],
        _ => vec![1, 2, 3],
    };
    let layout = || options.output_layout.clone();
    let predicated = lower::lower(module, stage, layout(), FlowMode::Predicated);
    // Real conditionals (AGAL 2+) where selections are left: kept where shorter, or where
    // predication cannot.
    let branched = (versions.iter().any(|&v| v >= 2) && lower::has_control_flow(module))
        .then(|| lower::lower(module, stage, layout(), FlowMode::Branched))
        .and_then(Result::ok);
    let lowered_all: Vec<(FlowMode, lower::Lowered)> = match (predicated, branched) {
        (Ok(p), Some(b)) => vec![(FlowMode::Predicated, p), (FlowMode::Branched, b)],
        (Ok(p), None) => vec![(FlowMode::Predicated, p)],
        (Err(_), Some(b)) => vec![(FlowMode::Branched, b)],
        (Err(e), None) => return Err(e),
    };
    let mut why = String::new();
    let mut chosen = None;
    for &version in &versions {
        let kind = lowered_all[0].1.kind;
        let temps = RegType::Temporary.limit(version, kind);
        let mut best: Option<(usize, regalloc::Allocation, Vec<crate::instr::Instruction>)> = None;
        for (k, (mode, lowered)) in lowered_all.iter().enumerate() {
            if *mode == FlowMode::Branched && version < 2 {
                continue;
            }
            let alloc = match regalloc::allocate(&lowered.program, temps) {
                Ok(a) => a,
                Err(e) => {
                    why = format!("AGAL {version}: {}", e.reason());
                    continue;
                }
            };
            crate::regalloc_check::check(&lowered.program, &alloc, temps)?;
            let mut instrs = regalloc::emit(&lowered.program, &alloc, kind)?;
            lower::remove_empty_arms(&mut instrs);
            if let Some(w) = over_limits(version, kind, instrs.len(), lowered) {
                why = w;
                continue;
            }
            if best.as_ref().is_none_or(|b| instrs.len() < b.2.len()) {
                best = Some((k, alloc, instrs));
            }
        }
        if let Some((k, alloc, instrs)) = best {
            chosen = Some((version, k, alloc, instrs));
            break;
        }
    }
    let Some((version, k, alloc, instructions)) = chosen else {
        return Err(Diagnostic::limit(format!(
            "the program does not fit AGAL {}: {why}",
            versions.last().copied().unwrap_or(3)
        )));
    };
    let lowered = lowered_all.into_iter().nth(k).map(|x| x.1).expect("chosen");
    let kind = lowered.kind;
    let program = Program {
        version,
        kind,
        instructions,
    };
    let bytes =
        encode::encode_program_checked(&program).map_err(|e| internal(format!("encode: {e}")))?;
    validate(&bytes, &ValidateOptions::default()).map_err(|e| {
        internal(format!(
            "the runtime validator rejects the program: {e}\n{}",
            disasm::disassemble_program(&program)
        ))
    })?;
    let decoded = decode::decode_program(&bytes)
        .map_err(|e| internal(format!("the decoder rejects the encoder's output: {e}")))?;
    let disassembly = disasm::disassemble_program(&decoded);
    let tokens = program.instructions.len() as u32;
    let stats = Stats {
        instructions: tokens,
        code_bytes: bytes.len() as u32,
        registers: alloc.registers,
        spills: 0,
        fills: 0,
        // One operation per token: no units to fill, no bound computed.
        units_filled: 0,
        lower_bound: 0,
        ir_ops: lowered.ir_ops,
        extra: vec![
            ("agal-version", u64::from(version)),
            (
                "constant-registers",
                u64::from(lowered.reflection.uniform_slots),
            ),
        ],
    };
    Ok(Output {
        sections: vec![Section { name: CODE, bytes }],
        container: None,
        disassembly,
        reflection: lowered.reflection,
        stats,
    })
}
