//! Programs: the stages of one pipeline (a vertex and a pixel shader; a PICA vertex and
//! geometry shader) compiled together, so that what one stage writes lands where the next
//! reads it.
//!
//! The stages are matched by the IR's I/O locations (D3D9 semantics and DXBC signatures
//! already became locations in the IR): output location `L` component `c` of a stage feeds
//! input location `L` component `c` of the next. The last stage is compiled first, alone; its
//! reflection says which hardware slot each input it reads occupies. Each earlier stage is then
//! compiled with [`CompileOptions::output_layout`] set to those slots, and its target writes
//! each listed output there and drops the outputs no later stage reads. An input the next stage
//! reads that the earlier stage never writes is an `Input` diagnostic naming it. When the
//! target asks for it ([`Target::program_agreement`], e.g. one AGAL version for both stages),
//! every stage is compiled again with the options it names.

use irc_backend::{
    CompileOptions, Diagnostic, Diagnostics, IoSource, Output, Target, VaryingBinding,
};
use irc_ir::{Module, OpCode, ShaderStage};

use crate::{diag, input, prepare_module, Input, Options, Registry};

/// One compiled stage of a program.
#[derive(Debug, Clone)]
pub struct StageOutput {
    pub stage: ShaderStage,
    /// The target that compiled it (`lima-vp`).
    pub target: &'static str,
    pub output: Output,
}

/// A compiled program: its stages in pipeline order and the links between them.
#[derive(Debug, Clone)]
pub struct ProgramOutput {
    pub stages: Vec<StageOutput>,
    /// For each pair of consecutive stages, the inputs of the later one with the hardware slot
    /// both agree on (the combined reflection of the varyings).
    pub links: Vec<Vec<VaryingBinding>>,
    /// One container file for the whole program, when the options ask for containers and the
    /// family's format holds several stages ([`Target::program_container`]: PICA200's SHBIN
    /// with a DVLE per stage); otherwise each stage's output has its own.
    pub container: Option<irc_backend::Container>,
}

/// Pipeline order of the stages a program can have.
const ORDER: [ShaderStage; 3] = [
    ShaderStage::Vertex,
    ShaderStage::Geometry,
    ShaderStage::Pixel,
];

/// Compiles the stages `inputs` (any order, one per stage) of one program for the built-in
/// targets of `family` (`lima`: `lima-vp` + `lima-fp`).
pub fn compile_program(
    inputs: Vec<Input<'_>>,
    family: &str,
    options: &Options,
) -> Result<ProgramOutput, Diagnostics> {
    compile_program_in(Registry::builtin(), inputs, family, options)
}

/// [`compile_program`] with the targets of `registry`.
pub fn compile_program_in(
    registry: &Registry,
    inputs: Vec<Input<'_>>,
    family: &str,
    options: &Options,
) -> Result<ProgramOutput, Diagnostics> {
    diag::guard(|| {
        let targets = registry.family(family);
        if targets.is_empty() {
            return Err(Diagnostic::input(format!(
                "no target family `{family}` (targets: {})",
                registry.names().join(", ")
            ))
            .into());
        }
        let mut stages: Vec<Stage> = Vec::new();
        for input in inputs {
            let m = input::read(input)?;
            input::verify(&m)?;
            let stage = stage_of(&m)?;
            let Some(order) = ORDER.iter().position(|s| *s == stage) else {
                return Err(Diagnostic::input(format!(
                    "a {} shader cannot be part of a program",
                    stage_name(stage)
                ))
                .into());
            };
            if stages.iter().any(|(o, ..)| *o == order) {
                return Err(Diagnostic::input(format!(
                    "two {} shaders given for one program",
                    stage_name(stage)
                ))
                .into());
            }
            let target = targets
                .iter()
                .copied()
                .find(|t| t.stages().contains(&stage))
                .ok_or_else(|| {
                    let names: Vec<&str> = targets.iter().map(|t| t.name()).collect();
                    Diagnostic::unsupported(
                        None,
                        format!(
                            "target family `{family}` has no target for {} shaders (its \
                             targets: {})",
                            stage_name(stage),
                            names.join(", ")
                        ),
                    )
                })?;
            stages.push((order, stage, m, target));
        }
        stages.sort_by_key(|(o, ..)| *o);
        let (mut outputs, mut links) = compile_stages(&stages, options)?;
        // Properties the runtime requires of the stages together (one AGAL version): compile
        // every stage again with the options the target asks for.
        if let Some((_, _, _, target)) = stages.first() {
            let outs: Vec<&Output> = outputs.iter().map(|s| &s.output).collect();
            if let Some(extra) = target.program_agreement(&outs) {
                let mut agreed = options.clone();
                for (k, v) in extra {
                    agreed.backend.set(k, v);
                }
                (outputs, links) = compile_stages(&stages, &agreed)?;
            }
        }
        let container = match (options.backend.container, outputs.first()) {
            (true, Some(first)) => {
                let target = targets
                    .iter()
                    .copied()
                    .find(|t| t.name() == first.target)
                    .ok_or_else(|| Diagnostic::internal(None, "stage target vanished"))?;
                let stages: Vec<&Output> = outputs.iter().map(|s| &s.output).collect();
                target.program_container(&stages).transpose()?
            }
            _ => None,
        };
        Ok(ProgramOutput {
            stages: outputs,
            links,
            container,
        })
    })
}

type Stage = (usize, ShaderStage, Module, &'static dyn Target);

/// Compiles `stages` (pipeline order), the last first: the stage outputs and the links.
fn compile_stages(
    stages: &[Stage],
    options: &Options,
) -> Result<(Vec<StageOutput>, Vec<Vec<VaryingBinding>>), Diagnostics> {
    let mut outputs: Vec<StageOutput> = Vec::new();
    let mut links = Vec::new();
    let mut layout: Option<Vec<VaryingBinding>> = None;
    for (_, stage, m, target) in stages.iter().rev() {
        let (stage, target) = (*stage, *target);
        let mut opts = options.clone();
        opts.backend = CompileOptions {
            output_layout: layout.clone(),
            ..options.backend.clone()
        };
        let prepared = prepare_module(Input::Module(m.clone()), target, &opts)?;
        let out = target.compile(&prepared, &opts.backend)?;
        if let Some(next) = &layout {
            check_link(next, &out, stage, target)?;
            links.push(next.clone());
        }
        layout = Some(out.reflection.varyings.clone());
        outputs.push(StageOutput {
            stage,
            target: target.name(),
            output: out,
        });
    }
    outputs.reverse();
    links.reverse();
    Ok((outputs, links))
}

/// The stage of a module's entry point.
pub(crate) fn stage_of(m: &Module) -> Result<ShaderStage, Diagnostics> {
    let entry = m
        .declarations()
        .find(|&d| m.opcode(d) == OpCode::EntryPoint)
        .ok_or_else(|| Diagnostic::input("the module has no entry point"))?;
    let stage = m
        .op(entry)
        .operands
        .last()
        .and_then(|o| o.as_lit())
        .ok_or_else(|| Diagnostic::input("the entry point has no stage"))?;
    Ok(ShaderStage(stage as u32))
}

fn stage_name(s: ShaderStage) -> String {
    irc_ir::LitEnum::ShaderStage
        .name_of(u64::from(s.0))
        .unwrap_or_else(|| format!("stage {}", s.0))
        .to_lowercase()
}

/// Every input component the next stage reads must be an output the earlier stage writes.
fn check_link(
    next: &[VaryingBinding],
    producer: &Output,
    stage: ShaderStage,
    target: &dyn Target,
) -> Result<(), Diagnostics> {
    for v in next {
        let IoSource::Location {
            location,
            component,
        } = v.source
        else {
            continue;
        };
        for c in component..component + u32::from(v.components) {
            let written = producer.reflection.outputs.iter().any(|o| match o.target {
                IoSource::Location {
                    location: l,
                    component: first,
                } => l == location && (first..first + u32::from(o.components)).contains(&c),
                IoSource::BuiltIn(_) => false,
            });
            if !written {
                return Err(Diagnostic::input(format!(
                    "the next stage reads input location {location} component {c}, which the \
                     {} shader ({}) does not write",
                    stage_name(stage),
                    target.name()
                ))
                .into());
            }
        }
    }
    Ok(())
}
