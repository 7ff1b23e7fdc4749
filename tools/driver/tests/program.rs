//! Programs: `compile_program` links a vertex and a pixel shader by I/O location, with two
//! toy targets of one family written only against the `Target` trait.

use irc::registry::Registry;
use irc::{program::compile_program_in, Input, Options};
use irc_backend::{
    CompileOptions, Diagnostic, Diagnostics, IoSource, Output, OutputBinding, Pipeline,
    PipelineKind, Reflection, Target, TargetCaps, VaryingBinding,
};
use irc_ir::{Module, OpCode, ShaderStage};

/// A toy stage: its "code" is nothing; its reflection is what the linker needs. The pixel
/// stage reads every declared input at consecutive slots (in declaration order, so that the
/// slots differ from the locations); the vertex stage writes its outputs where
/// `output_layout` says and drops the rest, or at slot = location when compiled alone.
struct Toy(ShaderStage, &'static str);

fn decls(m: &Module, opcode: OpCode) -> Vec<u32> {
    m.declarations()
        .filter(|&d| m.opcode(d) == opcode)
        .filter_map(|d| match opcode {
            OpCode::DclInput => irc_ir::format::DclInput::of(m.op(d)).location(),
            _ => irc_ir::format::DclOutput::of(m.op(d)).location(),
        })
        .map(|l| l as u32)
        .collect()
}

impl Target for Toy {
    fn name(&self) -> &'static str {
        self.1
    }
    fn family(&self) -> &'static str {
        "toy"
    }
    fn description(&self) -> &'static str {
        "a toy stage for linking tests"
    }
    fn stages(&self) -> &'static [ShaderStage] {
        if self.0 == ShaderStage::Vertex {
            &[ShaderStage::Vertex]
        } else {
            &[ShaderStage::Pixel]
        }
    }
    fn caps(&self) -> &TargetCaps {
        &TargetCaps::DEFAULT
    }
    fn pipeline(&self, _: &CompileOptions) -> Pipeline {
        Pipeline {
            kind: PipelineKind::Legalize,
            caps: TargetCaps::DEFAULT,
            legacy_mul_ieee: false,
            ieee_mul_legacy: false,
        }
    }
    fn compile(&self, m: &Module, options: &CompileOptions) -> Result<Output, Diagnostics> {
        let mut r = Reflection::default();
        if self.0 == ShaderStage::Pixel {
            for (slot, loc) in decls(m, OpCode::DclInput).into_iter().enumerate() {
                r.varyings.push(VaryingBinding {
                    source: IoSource::Location {
                        location: loc,
                        component: 0,
                    },
                    slot: slot as u32,
                    lane: 0,
                    components: 4,
                });
            }
        } else {
            for loc in decls(m, OpCode::DclOutput) {
                let slot = match &options.output_layout {
                    None => Some(loc),
                    Some(layout) => layout
                        .iter()
                        .find(|v| {
                            v.source
                                == IoSource::Location {
                                    location: loc,
                                    component: 0,
                                }
                        })
                        .map(|v| v.slot),
                };
                if let Some(slot) = slot {
                    r.outputs.push(OutputBinding {
                        target: IoSource::Location {
                            location: loc,
                            component: 0,
                        },
                        register: slot,
                        components: 4,
                    });
                }
            }
        }
        Ok(Output {
            reflection: r,
            ..Default::default()
        })
    }
    fn disassemble(&self, _: &[u8]) -> Result<String, Diagnostic> {
        Ok(String::new())
    }
    fn assemble(&self, _: &str) -> Result<Vec<u8>, Diagnostic> {
        Ok(Vec::new())
    }
}

static TOY_VS: Toy = Toy(ShaderStage::Vertex, "toy-vs");
static TOY_PS: Toy = Toy(ShaderStage::Pixel, "toy-ps");

/// A vertex shader writing the given output locations (each from input 0).
fn vertex(outputs: &[u32]) -> String {
    let mut s = String::from("%1 = EntryPoint %100 Vertex\n%2 = f32x4 DclInput %1 0 0 None\n");
    for (i, l) in outputs.iter().enumerate() {
        s += &format!("%{} = f32x4 DclOutput %1 {l} 0\n", 10 + i);
    }
    s += "%100 = Function\n%101 = Label None\n  %102 = f32x4 InputLoad %2 null\n";
    for i in 0..outputs.len() {
        s += &format!("  %{} = OutputStore %{} null %102\n", 110 + i, 10 + i);
    }
    s + "  %199 = Return\n%200 = FunctionEnd\n"
}

/// A pixel shader reading the given input locations (summed into output 0).
fn pixel(inputs: &[u32]) -> String {
    let mut s = String::from("%1 = EntryPoint %100 Pixel\n%2 = f32x4 DclOutput %1 0 0\n");
    for (i, l) in inputs.iter().enumerate() {
        s += &format!("%{} = f32x4 DclInput %1 {l} 0 None\n", 10 + i);
    }
    s += "%100 = Function\n%101 = Label None\n";
    for i in 0..inputs.len() {
        s += &format!("  %{} = f32x4 InputLoad %{} null\n", 110 + i, 10 + i);
    }
    let mut acc = 110;
    for i in 1..inputs.len() {
        s += &format!("  %{} = f32x4 FAdd %{acc} %{}\n", 150 + i, 110 + i);
        acc = 150 + i;
    }
    s += &format!("  %198 = OutputStore %2 null %{acc}\n");
    s + "  %199 = Return\n%200 = FunctionEnd\n"
}

fn registry() -> Registry {
    Registry::builtin().with(&TOY_VS).with(&TOY_PS)
}

#[test]
fn vertex_outputs_land_where_the_pixel_shader_reads_and_unread_ones_are_dropped() {
    let (vs, ps) = (vertex(&[1, 3, 5]), pixel(&[5, 1]));
    let p = compile_program_in(
        &registry(),
        vec![Input::Text(&ps), Input::Text(&vs)],
        "toy",
        &Options::default(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let names: Vec<&str> = p.stages.iter().map(|s| s.target).collect();
    assert_eq!(names, ["toy-vs", "toy-ps"], "pipeline order");
    let ps_reads = &p.stages[1].output.reflection.varyings;
    let vs_writes = &p.stages[0].output.reflection.outputs;
    assert_eq!(vs_writes.len(), 2, "location 3 is read by no one: dropped");
    for v in ps_reads {
        let w = vs_writes
            .iter()
            .find(|o| o.target == v.source)
            .expect("every input the pixel shader reads is written");
        assert_eq!(w.register, v.slot, "{:?}", v.source);
    }
    assert_eq!(p.links, vec![ps_reads.clone()]);
}

#[test]
fn an_input_no_earlier_stage_writes_is_an_input_error() {
    let (vs, ps) = (vertex(&[1]), pixel(&[1, 2]));
    let e = compile_program_in(
        &registry(),
        vec![Input::Text(&vs), Input::Text(&ps)],
        "toy",
        &Options::default(),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("location 2") && msg.contains("toy-vs"),
        "{msg}"
    );
}

#[test]
fn stages_a_family_lacks_and_duplicate_stages_are_reported() {
    let ps = pixel(&[0]);
    let e = irc::compile_program(vec![Input::Text(&ps)], "pica", &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no target for pixel shaders"), "{e}");
    let e = compile_program_in(
        &registry(),
        vec![Input::Text(&ps), Input::Text(&ps)],
        "toy",
        &Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("two pixel shaders"), "{e}");
    let e = compile_program_in(&registry(), vec![], "nope", &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no target family `nope`"), "{e}");
}

#[test]
fn a_pixel_shader_alone_is_a_program_of_one_stage() {
    let ps = pixel(&[0, 1]);
    let p = irc::compile_program(vec![Input::Text(&ps)], "lima", &Options::default())
        .unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(p.stages.len(), 1);
    assert_eq!(p.stages[0].target, "lima-fp");
    assert!(!p.stages[0].output.code().is_empty());
}
