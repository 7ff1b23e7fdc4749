//! The interface every target's simulator offers, so that one differential harness compares
//! the reference interpreter with any target.
//!
//! A [`Simulator`] runs a compiled [`Output`] (it decodes the sections itself, independently of
//! the encoder, so running compiled code checks the encoder too) on [`SimInputs`] named the
//! way the IR names them — input locations and built-ins, D3D9 constant registers, constant
//! buffer bindings, textures by binding — and returns [`SimOutputs`] named the same way. The
//! mapping between those names and hardware slots (varying slots, uniform registers, sampler
//! indices, output registers) is the target's business and goes through the program's
//! [`crate::Reflection`]; the harness never sees hardware registers.

use std::collections::BTreeMap;

use irc_ir::BuiltIn;

use crate::output::Output;
use crate::reflection::{IoSource, ResourceBinding, SamplerKind, UniformSource};

/// An input or output of the IR: a `DclInput`/`DclOutput` location or a built-in. Values are
/// keyed by `(IoName, component)`, the component counted from the location's `x` (or the
/// built-in's first scalar).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoName {
    Location(u32),
    BuiltIn(BuiltIn),
}

/// Scalar values (raw 32-bit patterns) by input or output component.
pub type IoValues = BTreeMap<(IoName, u32), u32>;

/// How the level of detail of a texture fetch is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LodMode {
    /// Implicit LOD from the quad's coordinate derivatives.
    Auto,
    /// Implicit LOD plus this bias.
    Bias(f32),
    /// This LOD.
    Explicit(f32),
}

/// One texture fetch of one invocation, named by the IR's bindings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureFetch {
    /// The image (SRV) binding.
    pub texture: ResourceBinding,
    /// The sampler-state binding (`None` when the IR samples without one).
    pub sampler: Option<ResourceBinding>,
    pub kind: SamplerKind,
    /// This invocation's coordinates (cube maps use `.xyz`).
    pub coords: [f32; 4],
    /// Coordinates of all four lanes of the quad (lane = y·2 + x), for derivative-based LOD.
    pub quad_coords: [[f32; 4]; 4],
    pub lod: LodMode,
    /// Lane index in the quad (0 for vertex programs).
    pub lane: usize,
}

/// Something that answers texture fetches (the harness backs it with the interpreter's
/// images and samplers).
pub trait TextureSource {
    /// The filtered texel (RGBA) of one fetch, or why it cannot be answered.
    fn fetch(&self, fetch: &TextureFetch) -> Result<[f32; 4], String>;
}

/// A texture source for programs without textures: every fetch is an error.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTextures;

impl TextureSource for NoTextures {
    fn fetch(&self, fetch: &TextureFetch) -> Result<[f32; 4], String> {
        Err(format!("no texture bound at {:?}", fetch.texture))
    }
}

/// Everything one simulator run consumes.
pub struct SimInputs<'a> {
    /// Per invocation (1 for a vertex, 4 for a pixel quad in lane order y·2 + x): the IR's
    /// inputs and input built-ins.
    pub invocations: Vec<IoValues>,
    /// D3D9 constant registers by (`LegacyConstFloat`/`Int`/`Bool`, index): 4 raw lanes.
    pub legacy_constants: BTreeMap<(BuiltIn, u32), [u32; 4]>,
    /// Constant buffers by binding, as 32-bit words.
    pub constant_buffers: BTreeMap<ResourceBinding, Vec<u32>>,
    pub textures: &'a dyn TextureSource,
}

impl std::fmt::Debug for SimInputs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimInputs")
            .field("invocations", &self.invocations)
            .field("legacy_constants", &self.legacy_constants)
            .field("constant_buffers", &self.constant_buffers)
            .finish_non_exhaustive()
    }
}

/// What one invocation produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InvocationOutputs {
    /// Every output component the program wrote, by the IR's output names (raw bits).
    pub values: IoValues,
    /// The invocation was discarded (pixel programs).
    pub discarded: bool,
}

/// What one simulator run produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SimOutputs {
    pub invocations: Vec<InvocationOutputs>,
    /// Quad operations (derivatives, implicit-LOD fetches) executed while some lanes of the
    /// quad were inactive: undefined in D3D, so a mismatch that depends on one has no verdict.
    pub divergent_quad_ops: u32,
    /// Instructions executed.
    pub steps: u64,
    /// Geometry shaders: the primitives the emitted vertices (`invocations`, one per emitted
    /// vertex) form, in the order they are rasterized, each as the indices of its vertices in
    /// the order the rasterizer takes them (a triangle: three). Empty for other stages.
    pub primitives: Vec<Vec<usize>>,
}

/// Which arithmetic a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// f32 arithmetic and strict pipeline rules: proves the compiler right (compared within
    /// [`crate::Tolerance::F32`]).
    Exact,
    /// The hardware's own precision (fp16, float24 …): measures its error (compared within the
    /// target's [`crate::Target::tolerance`]).
    Native,
}

/// How to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimConfig {
    pub precision: Precision,
    /// Most instructions executed (per invocation group) before the run fails.
    pub fuel: u64,
}

/// A failed run: undecodable sections, an invalid operand, out of fuel, an input the program
/// needs but was not given, a texture fetch that cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SimError(pub String);

/// A simulator for one target.
pub trait Simulator: Sync {
    /// Runs the program in `output` on `inputs`.
    fn run(
        &self,
        output: &Output,
        inputs: &SimInputs<'_>,
        config: &SimConfig,
    ) -> Result<SimOutputs, SimError>;

    /// The values the program in `output` stores for one invocation's outputs whose IR values
    /// are `values` (f32 bits by IR name and component), for a target whose programs transform
    /// an output on its way out (lima-vp's viewport epilogue stores the clip-space `Position`
    /// in screen space). The harness compares the simulator's outputs with these, so the
    /// transform is checked exactly, infinities and NaNs included, rather than inverted.
    /// Default: unchanged.
    fn stored_outputs(&self, output: &Output, values: &mut IoValues) {
        let _ = (output, values);
    }
}

impl IoName {
    /// The IR name and first component of a reflection source.
    pub fn of(source: IoSource) -> (IoName, u32) {
        match source {
            IoSource::Location {
                location,
                component,
            } => (IoName::Location(location), component),
            IoSource::BuiltIn(b) => (IoName::BuiltIn(b), 0),
        }
    }
}

/// The four floats a driver uploads for a uniform slot filled from `src` (the convention of
/// [`UniformSource`]: D3D9 bool registers fill all lanes with 0/1, integer registers and
/// `int_lanes` of constant buffers are converted to float, everything else is bit-cast),
/// shared by the simulators of targets whose uniforms are float vec4s.
pub fn uniform_value(inputs: &SimInputs<'_>, src: &UniformSource) -> Result<[f32; 4], String> {
    Ok(match src {
        UniformSource::Literal(v) => *v,
        UniformSource::LegacyLoop { index } => {
            return Err(format!(
                "uniform: integer register i{index} as a loop register is no float vec4"
            ))
        }
        UniformSource::Legacy { kind, index } => {
            let reg = inputs
                .legacy_constants
                .get(&(*kind, *index))
                .copied()
                .unwrap_or_default();
            match kind {
                BuiltIn::LegacyConstBool => [f32::from(u8::from(reg[0] != 0)); 4],
                BuiltIn::LegacyConstInt => reg.map(|d| d as i32 as f32),
                BuiltIn::LegacyConstFloat => reg.map(f32::from_bits),
                _ => {
                    return Err(format!(
                        "uniform: {kind:?} is not a D3D9 constant register file"
                    ))
                }
            }
        }
        UniformSource::ConstantBuffer {
            binding,
            vec4_index,
            int_lanes,
        } => {
            let words = inputs.constant_buffers.get(binding);
            std::array::from_fn(|i| {
                let d = words
                    .and_then(|d| d.get(*vec4_index as usize * 4 + i))
                    .copied()
                    .unwrap_or(0);
                if int_lanes >> i & 1 != 0 {
                    d as i32 as f32
                } else {
                    f32::from_bits(d)
                }
            })
        }
    })
}
