//! How a compiled program binds to the outside world.
//!
//! A driver (or a test harness driving a simulator) needs to know, for the program's code:
//! which input feeds which hardware input slot, what to upload into each uniform slot, which
//! texture and sampler each hardware sampler index stands for, and where each output ends up.
//! Sources are named the way the IR declares them (input location/component or built-in,
//! `(space, register)` resource bindings), never by SSA id, so they stay meaningful across
//! optimization.

use std::any::Any;
use std::fmt;

use irc_ir::BuiltIn;

/// An IR input or output: `DclInput`/`DclOutput` location and first component, or a built-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoSource {
    Location { location: u32, component: u32 },
    BuiltIn(BuiltIn),
}

/// An input read through the target's input unit (Lima: the varying unit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VaryingBinding {
    pub source: IoSource,
    /// Hardware input slot (vec4 units) and first lane in it; component `i` of the source is
    /// lane `lane + i`.
    pub slot: u32,
    pub lane: u8,
    pub components: u8,
}

/// A `(space, register)` resource binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceBinding {
    pub space: u32,
    pub register: u32,
}

/// What the driver uploads into one uniform slot (4 lanes).
#[derive(Debug, Clone, PartialEq)]
pub enum UniformSource {
    /// D3D9 constant register `index` of `kind` (`LegacyConstFloat`, `LegacyConstInt`,
    /// `LegacyConstBool`), converted to float.
    Legacy { kind: BuiltIn, index: u32 },
    /// 16 bytes at `vec4_index · 16` of a constant buffer, as f32 (`int_lanes` marks lanes the
    /// shader reads as integers, to be converted to float values on upload).
    ConstantBuffer {
        binding: ResourceBinding,
        vec4_index: u32,
        int_lanes: u8,
    },
    /// A compiler constant that does not fit the target's immediate fields.
    Literal([f32; 4]),
    /// D3D9 integer constant register `index` as a hardware loop register (PICA200 `LOOP iN`):
    /// the integers `(x − 1, y, z, 0)` of D3D9's `(count, start, step)`, each taken modulo 256
    /// (the register's bytes). A count of 0 never reaches the loop: the code tests it first
    /// (from the register's float copy, bound as [`UniformSource::Legacy`]).
    LegacyLoop { index: u32 },
}

/// One uniform slot.
#[derive(Debug, Clone, PartialEq)]
pub struct UniformBinding {
    /// Slot index in vec4 units.
    pub slot: u32,
    pub source: UniformSource,
}

/// Texture dimensionality a sampler index is used with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SamplerKind {
    D2,
    D3,
    Cube,
}

/// One hardware sampler index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplerBinding {
    pub index: u32,
    /// The image (SRV) binding.
    pub texture: ResourceBinding,
    /// The sampler-state binding (`None` when the IR samples without one).
    pub sampler: Option<ResourceBinding>,
    pub kind: SamplerKind,
}

/// Where an output is found at the end of the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputBinding {
    pub target: IoSource,
    /// Hardware register (vec4 units); component `i` is lane `i`.
    pub register: u32,
    pub components: u8,
}

/// Everything a driver needs to run the program.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reflection {
    pub varyings: Vec<VaryingBinding>,
    pub uniforms: Vec<UniformBinding>,
    /// Uniform slots used (vec4 units).
    pub uniform_slots: u32,
    pub samplers: Vec<SamplerBinding>,
    pub outputs: Vec<OutputBinding>,
    /// The program may discard.
    pub discards: bool,
    /// What only this target has (Lima: special inputs, temporary stack), in its own type.
    pub target: Option<TargetPart>,
}

/// The target-specific part of a [`Reflection`]. Its owner reads it back with
/// [`TargetPart::downcast`]; everyone else sees its text lines.
pub trait TargetReflection: fmt::Debug + Send + Sync + 'static {
    /// `key value` lines appended to [`Reflection::to_text`].
    fn to_text(&self) -> String;
    /// The part as a JSON object, placed under `"target": {"<target name>": …}` in the
    /// reflection document ([`crate::reflection_json`], `docs/reflection.md`). Its fields are
    /// the target's to define and document; the default is an empty object.
    fn to_json(&self) -> serde_json::Value {
        crate::reflection_json::empty_object()
    }
    fn as_any(&self) -> &dyn Any;
    fn clone_box(&self) -> Box<dyn TargetReflection>;
}

/// A boxed [`TargetReflection`] (cloneable, compared by its text).
#[derive(Debug)]
pub struct TargetPart(pub Box<dyn TargetReflection>);

impl TargetPart {
    pub fn new(part: impl TargetReflection) -> TargetPart {
        TargetPart(Box::new(part))
    }
    /// The part as the target's own type, if it is one.
    pub fn downcast<T: TargetReflection>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref()
    }
}

impl Clone for TargetPart {
    fn clone(&self) -> Self {
        TargetPart(self.0.clone_box())
    }
}

impl PartialEq for TargetPart {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_text() == other.0.to_text()
    }
}

impl Reflection {
    /// The target-specific part as `T`, if there is one of that type.
    pub fn target_part<T: TargetReflection>(&self) -> Option<&T> {
        self.target.as_ref().and_then(TargetPart::downcast)
    }

    /// The reflection document of `output` (compiled for `target`) as JSON: see
    /// [`crate::reflection_json`].
    pub fn to_json(target: &str, output: &crate::Output) -> serde_json::Value {
        crate::reflection_json::to_json(target, output)
    }

    /// Renders the reflection as stable, readable text (for `--emit reflection` and snapshots).
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let io = |s: &IoSource| match s {
            IoSource::Location {
                location,
                component,
            } => format!("v{location}.{}", b"xyzw"[*component as usize % 4] as char),
            IoSource::BuiltIn(b) => format!("{b:?}"),
        };
        let mut out = String::new();
        for v in &self.varyings {
            let _ = writeln!(
                out,
                "varying {} -> slot {} lanes {}..{}",
                io(&v.source),
                v.slot,
                v.lane,
                v.lane + v.components
            );
        }
        for u in &self.uniforms {
            let src = match &u.source {
                UniformSource::Legacy { kind, index } => format!("{kind:?}[{index}]"),
                UniformSource::ConstantBuffer {
                    binding,
                    vec4_index,
                    int_lanes,
                } => format!(
                    "cb(space {}, register {})[{vec4_index}]{}",
                    binding.space,
                    binding.register,
                    if *int_lanes != 0 {
                        format!(" int lanes {int_lanes:#x}")
                    } else {
                        String::new()
                    }
                ),
                UniformSource::Literal(v) => format!("literal {v:?}"),
                UniformSource::LegacyLoop { index } => {
                    format!("LegacyConstInt[{index}] as a loop register (x - 1, y, z)")
                }
            };
            let _ = writeln!(out, "uniform {} <- {src}", u.slot);
        }
        let _ = writeln!(out, "uniform slots {}", self.uniform_slots);
        for s in &self.samplers {
            let _ = writeln!(
                out,
                "sampler {} <- texture (space {}, register {}){} {:?}",
                s.index,
                s.texture.space,
                s.texture.register,
                s.sampler
                    .map(|b| format!(" sampler (space {}, register {})", b.space, b.register))
                    .unwrap_or_default(),
                s.kind
            );
        }
        for o in &self.outputs {
            let _ = writeln!(
                out,
                "output {} <- r{} ({} components)",
                io(&o.target),
                o.register,
                o.components
            );
        }
        let _ = writeln!(out, "discards {}", self.discards);
        if let Some(part) = &self.target {
            out.push_str(&part.0.to_text());
        }
        out
    }
}
