//! The data a run consumes ([`ShaderInputs`]) and produces ([`Outputs`]).
//!
//! Everything is keyed the way a shader declares it, never by SSA id, so that a JSON file or a
//! seeded generator can describe inputs for any compilation of the same shader:
//! - per-invocation I/O by [`IoSlot`]: `(location, component)` of `DclInput`/`DclOutput`, or a
//!   [`BuiltIn`] of `DclInputBuiltIn`/`DclOutputBuiltIn`; values are [`Value`]s of the declared
//!   type (arrays for GS per-vertex inputs and for the legacy D3D9 constant built-ins);
//! - resources by [`Binding`] `(space, register)`; element `i` of a descriptor array declared at
//!   register `r` is looked up at register `r + i`;
//! - constant buffers, push data, raw and structured buffers as little-endian `u32` dwords;
//! - images and typed buffers as [`Image`]s of 4-dword texels (raw bits, interpreted through the
//!   declared scalar type: `f32` bits for float resources, integers for int resources).
//!
//! A resource that is declared but missing from the inputs behaves like a D3D null descriptor:
//! reads return zero, writes are dropped, size queries return 0.

use crate::value::Value;
use irc_ir::BuiltIn;
use std::collections::BTreeMap;

/// Where an input or output lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoSlot {
    /// `DclInput`/`DclOutput` at `location`, first component `component`.
    Location { location: u32, component: u32 },
    /// A built-in (`DclInputBuiltIn`/`DclOutputBuiltIn`), by its `BuiltIn` number.
    BuiltIn(u32),
}

impl IoSlot {
    pub fn builtin(b: BuiltIn) -> IoSlot {
        IoSlot::BuiltIn(b.to_u64() as u32)
    }
}

/// Resource binding: register space and register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Binding {
    pub space: u32,
    pub register: u32,
}

/// Dimensionality of an [`Image`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageDim {
    /// Typed buffer: `width` texels, one mip, one layer.
    Buffer,
    D1,
    D2,
    D3,
    /// Six faces stored as layers `6 * cube + face` (face order +X, −X, +Y, −Y, +Z, −Z).
    Cube,
}

/// An image or typed buffer: mip levels of texels, each texel four raw dwords.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub dim: ImageDim,
    pub width: u32,
    pub height: u32,
    /// Depth of 3D images (1 otherwise).
    pub depth: u32,
    /// Array layers (for cubes: faces × cubes).
    pub layers: u32,
    /// `mips[level]` holds `layers × depth × height × width` texels, layer-major then z, y, x;
    /// level `l` has size `max(1, size >> l)` in each dimension.
    pub mips: Vec<Vec<[u32; 4]>>,
}

impl Image {
    /// Size of mip `level` as (width, height, depth).
    pub fn mip_size(&self, level: u32) -> (u32, u32, u32) {
        let s = |v: u32| (v >> level.min(31)).max(1);
        match self.dim {
            ImageDim::Buffer | ImageDim::D1 => (s(self.width), 1, 1),
            ImageDim::D2 | ImageDim::Cube => (s(self.width), s(self.height), 1),
            ImageDim::D3 => (s(self.width), s(self.height), s(self.depth)),
        }
    }

    /// The texel at integer coordinates, or `None` if out of range.
    pub fn texel(&self, level: u32, layer: u32, x: i64, y: i64, z: i64) -> Option<[u32; 4]> {
        let (w, h, d) = self.mip_size(level);
        if x < 0 || y < 0 || z < 0 || x >= w as i64 || y >= h as i64 || z >= d as i64 {
            return None;
        }
        if layer >= self.layers.max(1) {
            return None;
        }
        let idx =
            (((layer as u64 * d as u64 + z as u64) * h as u64 + y as u64) * w as u64) + x as u64;
        self.mips.get(level as usize)?.get(idx as usize).copied()
    }

    /// Mutable texel access (UAV writes).
    pub fn texel_mut(
        &mut self,
        level: u32,
        layer: u32,
        x: i64,
        y: i64,
        z: i64,
    ) -> Option<&mut [u32; 4]> {
        let (w, h, d) = self.mip_size(level);
        if x < 0 || y < 0 || z < 0 || x >= w as i64 || y >= h as i64 || z >= d as i64 {
            return None;
        }
        if layer >= self.layers.max(1) {
            return None;
        }
        let idx =
            (((layer as u64 * d as u64 + z as u64) * h as u64 + y as u64) * w as u64) + x as u64;
        self.mips.get_mut(level as usize)?.get_mut(idx as usize)
    }

    /// A one-mip image filled by `f(layer, x, y, z)`.
    pub fn from_fn(
        dim: ImageDim,
        (width, height, depth, layers): (u32, u32, u32, u32),
        mip_count: u32,
        mut f: impl FnMut(u32, u32, u32, u32, u32) -> [u32; 4],
    ) -> Image {
        let mut img = Image {
            dim,
            width,
            height,
            depth,
            layers,
            mips: Vec::new(),
        };
        for l in 0..mip_count.max(1) {
            let (w, h, d) = img.mip_size(l);
            let mut v = Vec::with_capacity((w * h * d * layers.max(1)) as usize);
            for layer in 0..layers.max(1) {
                for z in 0..d {
                    for y in 0..h {
                        for x in 0..w {
                            v.push(f(l, layer, x, y, z));
                        }
                    }
                }
            }
            img.mips.push(v);
        }
        img
    }
}

/// Texture filtering of a sampler (applied to minification, magnification and mip selection).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Filter {
    #[default]
    Point,
    Linear,
}

/// Texture addressing of a sampler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AddressMode {
    #[default]
    Wrap,
    Clamp,
    Mirror,
    /// Out-of-range texels read as zero.
    Border,
}

/// Comparison for depth-compare sampling: result is 1 where `dref OP texel` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CompareOp {
    Never,
    Less,
    Equal,
    #[default]
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
    Always,
}

/// A sampler.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Sampler {
    pub filter: Filter,
    /// Address modes for u, v, w.
    pub address: [AddressMode; 3],
    pub compare: CompareOp,
    pub lod_bias: f32,
}

/// A shader resource or UAV.
#[derive(Clone, Debug, PartialEq)]
pub enum Resource {
    /// Raw or structured buffer contents as dwords.
    Buffer(Vec<u32>),
    /// Image or typed buffer.
    Image(Image),
}

/// Inputs of one invocation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InvocationInputs {
    pub io: BTreeMap<IoSlot, Value>,
}

/// Everything a run reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShaderInputs {
    /// Per-invocation inputs: one for vertex and geometry shaders, four for a pixel quad (lane
    /// order (0,0), (1,0), (0,1), (1,1)). Missing lanes reuse lane 0's inputs; a missing input
    /// reads as zero. Compute shaders ignore this (thread ids come from the workgroup).
    pub invocations: Vec<InvocationInputs>,
    pub cbvs: BTreeMap<Binding, Vec<u32>>,
    pub srvs: BTreeMap<Binding, Resource>,
    pub uavs: BTreeMap<Binding, Resource>,
    /// UAV counters, by the binding of their UAV.
    pub uav_counters: BTreeMap<Binding, u32>,
    pub samplers: BTreeMap<Binding, Sampler>,
    /// Push data dwords (a `DclPushData` at byte offset `o` reads from `o / 4` on).
    pub push_data: Vec<u32>,
    /// Specialization constants by spec id (raw bits); missing ids use the declared default.
    pub spec_constants: BTreeMap<u32, u64>,
}

/// Outputs of one invocation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InvocationOutputs {
    /// Final value of every declared output (zero where never written). GS: the values at the
    /// end of the run; the emitted vertices are in [`Outputs::gs_vertices`].
    pub io: BTreeMap<IoSlot, Value>,
    /// The invocation executed `Demote` (pixel shaders).
    pub discarded: bool,
}

/// One vertex emitted by a geometry shader.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GsVertex {
    pub stream: u32,
    /// Index of the primitive (strip) it belongs to: incremented by `EmitPrimitive`.
    pub primitive: u32,
    pub io: BTreeMap<IoSlot, Value>,
}

/// Everything a run produces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    pub invocations: Vec<InvocationOutputs>,
    pub gs_vertices: Vec<GsVertex>,
    /// Final contents of every UAV that was bound.
    pub uavs: BTreeMap<Binding, Resource>,
    pub uav_counters: BTreeMap<Binding, u32>,
    /// Number of ops executed (all invocations).
    pub steps: u64,
    /// Cross-lane ops of a pixel quad (derivatives, implicit-LOD sampling) evaluated while
    /// not every lane of the quad was at that op (some returned, or took another branch):
    /// undefined in D3D, so a result that rests on them is one the interpreter's helper-lane
    /// model picked, not the only correct one.
    pub divergent_quad_ops: u32,
}
