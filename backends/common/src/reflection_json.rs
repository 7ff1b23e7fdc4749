//! The reflection of a compiled program as JSON: one versioned schema for every target
//! (`docs/reflection.md`, `docs/reflection.schema.json`), with the target-specific part in a
//! sub-object named after the target (`"target": {"lima-fp": {…}}`, from
//! [`crate::TargetReflection::to_json`]).
//!
//! The document is built from plain `serde` structs mirroring the schema one to one, so that
//! the Rust types here and the schema file are read side by side. Uniform slots are split in
//! two lists: `bindings` (slots filled from the application's constants: D3D9 constant
//! registers or constant-buffer elements) and `immediate_constants` (slots the compiler filled
//! with literal values the driver uploads as they are, given both as numbers and as exact
//! IEEE-754 bit patterns since JSON has no infinities or NaNs).
//!
//! Changing the meaning or the type of a field bumps [`SCHEMA_VERSION`]; adding an optional
//! field does not.

use serde::Serialize;
use serde_json::Value;

use crate::output::{Output, Stats};
use crate::reflection::{
    IoSource, OutputBinding, Reflection, ResourceBinding, SamplerBinding, SamplerKind,
    UniformSource, VaryingBinding,
};

/// The `schema_version` of the documents [`to_json`] makes.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole document.
#[derive(Serialize)]
struct Doc<'a> {
    schema_version: u32,
    target_name: &'a str,
    inputs: Vec<Input>,
    bindings: Vec<Binding>,
    immediate_constants: Vec<Immediate>,
    samplers: Vec<Sampler>,
    outputs: Vec<OutputJson>,
    discards: bool,
    limits_used: Limits,
    stats: StatsJson,
    target: serde_json::Map<String, Value>,
}

/// An IR input or output: `{"location": L, "component": C}` or `{"builtin": "Position"}`.
#[derive(Serialize)]
#[serde(untagged)]
enum Io {
    Location { location: u32, component: u32 },
    BuiltIn { builtin: String },
}

impl From<IoSource> for Io {
    fn from(s: IoSource) -> Io {
        match s {
            IoSource::Location {
                location,
                component,
            } => Io::Location {
                location,
                component,
            },
            IoSource::BuiltIn(b) => Io::BuiltIn {
                builtin: b.name().to_string(),
            },
        }
    }
}

#[derive(Serialize)]
struct Input {
    source: Io,
    slot: u32,
    lane: u8,
    components: u8,
}

impl From<&VaryingBinding> for Input {
    fn from(v: &VaryingBinding) -> Input {
        Input {
            source: v.source.into(),
            slot: v.slot,
            lane: v.lane,
            components: v.components,
        }
    }
}

#[derive(Serialize)]
struct Resource {
    space: u32,
    register: u32,
}

impl From<ResourceBinding> for Resource {
    fn from(b: ResourceBinding) -> Resource {
        Resource {
            space: b.space,
            register: b.register,
        }
    }
}

/// What fills a uniform slot from the application's constants.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum BindingSource {
    /// D3D9 constant register: `file` is `float`, `int` or `bool` (the built-in's name
    /// otherwise).
    LegacyConstant { file: String, index: u32 },
    /// D3D9 integer register `index` as a hardware loop register: upload the bytes
    /// `(x − 1, y, z, 0)` of its `(count, start, step)`.
    LegacyLoop { index: u32 },
    ConstantBuffer {
        space: u32,
        register: u32,
        vec4_index: u32,
        /// Lanes (bit i = lane i) the shader reads as integers: convert to float on upload.
        int_lanes: u8,
    },
}

#[derive(Serialize)]
struct Binding {
    slot: u32,
    source: BindingSource,
}

#[derive(Serialize)]
struct Immediate {
    slot: u32,
    /// The four lanes as numbers (`null` for an infinity or NaN).
    values: [Option<f64>; 4],
    /// The four lanes' IEEE-754 binary32 bit patterns (exact).
    bits: [u32; 4],
}

#[derive(Serialize)]
struct Sampler {
    index: u32,
    texture: Resource,
    sampler: Option<Resource>,
    kind: &'static str,
}

impl From<&SamplerBinding> for Sampler {
    fn from(s: &SamplerBinding) -> Sampler {
        Sampler {
            index: s.index,
            texture: s.texture.into(),
            sampler: s.sampler.map(Resource::from),
            kind: match s.kind {
                SamplerKind::D2 => "2d",
                SamplerKind::D3 => "3d",
                SamplerKind::Cube => "cube",
            },
        }
    }
}

#[derive(Serialize)]
struct OutputJson {
    target: Io,
    register: u32,
    components: u8,
}

impl From<&OutputBinding> for OutputJson {
    fn from(o: &OutputBinding) -> OutputJson {
        OutputJson {
            target: o.target.into(),
            register: o.register,
            components: o.components,
        }
    }
}

/// How much of the stage's hardware resources the program uses.
#[derive(Serialize)]
struct Limits {
    /// Uniform slots (vec4 units), bindings and immediates together.
    uniform_slots: u32,
    /// Hardware input slots read (vec4 units): highest slot + 1.
    input_slots: u32,
    /// Hardware sampler indices: highest index + 1.
    samplers: u32,
    /// Distinct vec4 registers.
    registers: u32,
    /// Machine instructions.
    instructions: u32,
    /// Bytes of the code section.
    code_bytes: u32,
}

#[derive(Serialize)]
struct StatsJson {
    instructions: u32,
    code_bytes: u32,
    registers: u32,
    spills: u32,
    fills: u32,
    units_filled: u32,
    lower_bound: u32,
    ir_ops: u32,
    extra: serde_json::Map<String, Value>,
}

impl From<&Stats> for StatsJson {
    fn from(s: &Stats) -> StatsJson {
        StatsJson {
            instructions: s.instructions,
            code_bytes: s.code_bytes,
            registers: s.registers,
            spills: s.spills,
            fills: s.fills,
            units_filled: s.units_filled,
            lower_bound: s.lower_bound,
            ir_ops: s.ir_ops,
            extra: s
                .extra
                .iter()
                .map(|(k, v)| ((*k).to_string(), Value::from(*v)))
                .collect(),
        }
    }
}

fn legacy_file(kind: irc_ir::BuiltIn) -> String {
    match kind.name() {
        "LegacyConstFloat" => "float".into(),
        "LegacyConstInt" => "int".into(),
        "LegacyConstBool" => "bool".into(),
        other => other.to_string(),
    }
}

/// The reflection document of `output`, compiled for the target named `target` (as a value:
/// object keys in alphabetical order).
pub fn to_json(target: &str, output: &Output) -> Value {
    // Serializing plain structs of numbers, strings and maps cannot fail.
    serde_json::to_value(doc(target, output)).unwrap_or(Value::Null)
}

/// [`to_json`] as pretty-printed text with a final newline, keys in the schema's order.
pub fn to_json_string(target: &str, output: &Output) -> String {
    let mut s = serde_json::to_string_pretty(&doc(target, output)).unwrap_or_default();
    s.push('\n');
    s
}

fn doc<'a>(target: &'a str, output: &Output) -> Doc<'a> {
    let r: &Reflection = &output.reflection;
    let mut bindings = Vec::new();
    let mut immediate_constants = Vec::new();
    for u in &r.uniforms {
        match &u.source {
            UniformSource::Legacy { kind, index } => bindings.push(Binding {
                slot: u.slot,
                source: BindingSource::LegacyConstant {
                    file: legacy_file(*kind),
                    index: *index,
                },
            }),
            UniformSource::ConstantBuffer {
                binding,
                vec4_index,
                int_lanes,
            } => bindings.push(Binding {
                slot: u.slot,
                source: BindingSource::ConstantBuffer {
                    space: binding.space,
                    register: binding.register,
                    vec4_index: *vec4_index,
                    int_lanes: *int_lanes,
                },
            }),
            UniformSource::LegacyLoop { index } => bindings.push(Binding {
                slot: u.slot,
                source: BindingSource::LegacyLoop { index: *index },
            }),
            UniformSource::Literal(v) => immediate_constants.push(Immediate {
                slot: u.slot,
                values: v.map(|x| x.is_finite().then_some(f64::from(x))),
                bits: v.map(f32::to_bits),
            }),
        }
    }
    let mut target_part = serde_json::Map::new();
    if let Some(part) = &r.target {
        target_part.insert(target.to_string(), part.0.to_json());
    }
    Doc {
        schema_version: SCHEMA_VERSION,
        target_name: target,
        inputs: r.varyings.iter().map(Input::from).collect(),
        bindings,
        immediate_constants,
        samplers: r.samplers.iter().map(Sampler::from).collect(),
        outputs: r.outputs.iter().map(OutputJson::from).collect(),
        discards: r.discards,
        limits_used: Limits {
            uniform_slots: r.uniform_slots,
            input_slots: r.varyings.iter().map(|v| v.slot + 1).max().unwrap_or(0),
            samplers: r.samplers.iter().map(|s| s.index + 1).max().unwrap_or(0),
            registers: output.stats.registers,
            instructions: output.stats.instructions,
            code_bytes: output.stats.code_bytes,
        },
        stats: (&output.stats).into(),
        target: target_part,
    }
}

/// The default [`crate::TargetReflection::to_json`]: an empty object.
pub(crate) fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflection::{TargetPart, TargetReflection, UniformBinding};
    use std::any::Any;

    #[derive(Debug, Clone)]
    struct Part;
    impl TargetReflection for Part {
        fn to_text(&self) -> String {
            String::new()
        }
        fn to_json(&self) -> Value {
            serde_json::json!({"x": 1})
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
        fn clone_box(&self) -> Box<dyn TargetReflection> {
            Box::new(self.clone())
        }
    }

    #[test]
    fn every_section_is_filled_and_literals_keep_their_bits() {
        let mut out = Output::default();
        out.reflection.uniforms = vec![
            UniformBinding {
                slot: 0,
                source: UniformSource::Legacy {
                    kind: irc_ir::BuiltIn::LegacyConstFloat,
                    index: 3,
                },
            },
            UniformBinding {
                slot: 1,
                source: UniformSource::Literal([1.0, f32::INFINITY, -0.0, 0.5]),
            },
        ];
        out.reflection.uniform_slots = 2;
        out.reflection.varyings = vec![VaryingBinding {
            source: IoSource::Location {
                location: 1,
                component: 0,
            },
            slot: 2,
            lane: 0,
            components: 2,
        }];
        out.reflection.target = Some(TargetPart::new(Part));
        let v = to_json("toy", &out);
        assert_eq!(v["schema_version"], 1);
        assert_eq!(
            v["bindings"][0]["source"],
            serde_json::json!({"kind": "legacy-constant", "file": "float", "index": 3})
        );
        assert_eq!(v["immediate_constants"][0]["values"][1], Value::Null);
        assert_eq!(v["immediate_constants"][0]["bits"][2], 0x8000_0000u32);
        assert_eq!(v["inputs"][0]["source"]["location"], 1);
        assert_eq!(v["limits_used"]["input_slots"], 3);
        assert_eq!(v["target"]["toy"]["x"], 1);
    }
}
