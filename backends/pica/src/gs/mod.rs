//! The `pica-gs` target: PICA200 geometry shaders (point mode), and what a vertex + geometry
//! shader program needs.
//!
//! The code generator is `pica-vs`'s ([`crate::target::compile_stage`]) with the geometry
//! hooks of [`crate::lower::gs`] (per-vertex inputs, `SETEMIT`/`EMIT`). This module adds the
//! [`Target`] itself, the geometry parts of the output (the DVLE's type and GS mode, the
//! [`SECTION_GS_LAYOUT`] section the simulator reads), [`link`] (a vertex shader's outputs
//! placed where its geometry shader reads them) and [`program`] (one SHBIN with both DVLEs).

pub mod link;
pub mod program;

use irc_backend::{
    CompileOptions, Container, Diagnostic, Diagnostics, Oracle, Output, Pipeline, PipelineKind,
    Section, Simulator, Target, TargetCaps, Tolerance,
};
use irc_ir::{Module, ShaderStage};

use crate::lower::gs::GsLayout;
use crate::shbin::{Dvle, ShaderType};
use crate::PicaVs;

/// Section `gs-layout` of a geometry shader's [`Output`]: u32 vertices per input primitive,
/// u32 input registers per vertex (see [`crate::lower::gs`]).
pub const SECTION_GS_LAYOUT: &str = "gs-layout";

/// What the shared passes may leave in a geometry shader: [`crate::CAPS`] without branches
/// and loops, so that loops are unrolled and branches if-converted (or the shader is
/// unsupported) — the strip position of every `EmitVertex` must be known when its `SETEMIT` is
/// encoded (see [`crate::lower::gs`]).
pub const GS_CAPS: TargetCaps = TargetCaps {
    branches: false,
    loops: false,
    ..crate::CAPS
};

/// The PICA200 geometry shader target.
#[derive(Debug, Clone, Copy, Default)]
pub struct PicaGs;

impl Target for PicaGs {
    fn name(&self) -> &'static str {
        "pica-gs"
    }
    fn family(&self) -> &'static str {
        "pica"
    }
    fn description(&self) -> &'static str {
        "Nintendo 3DS PICA200 geometry shader (point mode), code words + operand descriptors \
         and SHBIN container"
    }
    fn stages(&self) -> &'static [ShaderStage] {
        &[ShaderStage::Geometry]
    }
    fn caps(&self) -> &TargetCaps {
        &GS_CAPS
    }
    fn pipeline(&self, options: &CompileOptions) -> Pipeline {
        Pipeline {
            kind: PipelineKind::Optimize,
            caps: GS_CAPS,
            legacy_mul_ieee: false,
            ieee_mul_legacy: options.get(&crate::target::IEEE_MUL) == "legacy",
        }
    }
    fn options(&self) -> &'static [irc_backend::OptionSpec] {
        &[
            crate::target::OUTLINE,
            crate::target::IEEE_MUL,
            crate::target::LEGACY_MUL,
        ]
    }
    fn compile(&self, module: &Module, options: &CompileOptions) -> Result<Output, Diagnostics> {
        crate::target::compile_stage(module, options, ShaderStage::Geometry)
            .map_err(Diagnostics::from)
    }
    fn disassemble(&self, bytes: &[u8]) -> Result<String, Diagnostic> {
        PicaVs.disassemble(bytes)
    }
    fn assemble(&self, text: &str) -> Result<Vec<u8>, Diagnostic> {
        PicaVs.assemble(text)
    }
    fn simulator(&self) -> Option<&dyn Simulator> {
        PicaVs.simulator()
    }
    fn tolerance(&self) -> Tolerance {
        PicaVs.tolerance()
    }
    fn oracle(&self, options: &CompileOptions) -> Oracle {
        PicaVs.oracle(options)
    }
    fn program_container(&self, stages: &[&Output]) -> Option<Result<Container, Diagnostic>> {
        PicaVs.program_container(stages)
    }
}

/// Makes `d` a point-mode geometry-shader DVLE. The inputs a geometry shader reads are not
/// attributes of the vertex loader: no input mask.
pub fn mark_geometry(d: &mut Dvle, _layout: &GsLayout) {
    d.kind = ShaderType::Geometry;
    d.gs_mode = 0;
    d.input_mask = 0;
    d.uniforms.retain(|u| u.first >= 0x10);
}

/// The [`SECTION_GS_LAYOUT`] section.
pub fn layout_section(layout: &GsLayout) -> Section {
    Section {
        name: SECTION_GS_LAYOUT,
        bytes: irc_backend::output::bytes_of(&[
            u32::from(layout.vertices),
            u32::from(layout.stride),
        ]),
    }
}

/// The layout in an output's [`SECTION_GS_LAYOUT`] section, if it has one.
pub fn layout_of(output: &Output) -> Option<GsLayout> {
    let w = irc_backend::output::words_of(output.section(SECTION_GS_LAYOUT)?);
    match w[..] {
        [n, k] => Some(GsLayout {
            vertices: u8::try_from(n).ok()?,
            stride: u8::try_from(k).ok()?,
        }),
        _ => None,
    }
}
