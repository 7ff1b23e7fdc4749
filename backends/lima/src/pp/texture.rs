//! The simulator's view of textures: a [`TextureSampler`] answers one fetch of one lane.
//!
//! The PP sampler unit takes its coordinates from `^discard` (written by the varying unit of the same
//! instruction) and computes the level of detail from the coordinates of the whole 2×2 quad (which is why
//! texture instructions carry `sync`). The simulator therefore hands the implementation the coordinates of all
//! four lanes; it is up to the implementation (e.g. the reference interpreter's textures) to derive a LOD from
//! them when [`LodMode::Auto`] or [`LodMode::Bias`] is requested.

use super::isa::SamplerType;

/// How the level of detail is chosen (§4.2 `lod_bias_en` / `explicit_lod`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LodMode {
    /// Implicit LOD from the quad's coordinate derivatives.
    Auto,
    /// Implicit LOD plus this bias (register value).
    Bias(f32),
    /// This LOD (register value).
    Explicit(f32),
}

/// One texture fetch of one lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleRequest {
    /// Sampler / texture descriptor index (after any indirect offset).
    pub sampler: u32,
    /// Sampler type field (generic or cube).
    pub ty: SamplerType,
    /// This lane's coordinates (the `^discard` vec4; cube maps use `.xyz`, projective division has already been
    /// applied by the varying unit when requested).
    pub coords: [f32; 4],
    /// Coordinates of all four lanes of the quad (lane = y·2 + x), for derivative-based LOD.
    pub quad_coords: [[f32; 4]; 4],
    /// LOD selection.
    pub lod: LodMode,
    /// Lane index 0..4 (lane = y·2 + x).
    pub lane: usize,
}

/// Something that can answer texture fetches (plugged into [`super::sim::run_program`]).
pub trait TextureSampler {
    /// Returns the filtered texel (RGBA) for one lane's fetch.
    fn sample(&self, req: &SampleRequest) -> [f32; 4];
}

impl<F: Fn(&SampleRequest) -> [f32; 4]> TextureSampler for F {
    fn sample(&self, req: &SampleRequest) -> [f32; 4] {
        self(req)
    }
}

/// A sampler for programs without textures: every fetch returns (0, 0, 0, 1).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTextures;

impl TextureSampler for NoTextures {
    fn sample(&self, _req: &SampleRequest) -> [f32; 4] {
        [0.0, 0.0, 0.0, 1.0]
    }
}
