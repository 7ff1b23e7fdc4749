//! The interpreter's images and samplers behind any simulator's texture unit: an
//! [`irc_backend::TextureSource`] keyed by the IR's bindings.
//!
//! A fetch reads the image at its texture binding and the sampler state at its sampler binding
//! (the default sampler when there is none, as in the interpreter), and is answered by the
//! interpreter's own sampling code ([`irc_interp::image::sample`] and
//! [`irc_interp::image::compute_lod`]) the way `ImageSample` uses it:
//!
//! * [`LodMode::Auto`] / [`LodMode::Bias`]: LOD from the *coarse* derivatives of the quad's
//!   coordinates (`dx = c[1] − c[0]`, `dy = c[2] − c[0]`, each difference rounded to f32 as the
//!   interpreter rounds it to the coordinate type), plus the bias and the sampler's `lod_bias`;
//! * [`LodMode::Explicit`]: that LOD (the sampler's bias does not apply, as in the
//!   interpreter);
//! * layer 0, no texel offset, no depth comparison; the image's dimensionality decides how many
//!   coordinates count (a cube takes `.xyz` as a direction).
//!
//! A missing image reads as zero (a null descriptor). A cube fetch of a non-cube image (or the
//! reverse) is an error the simulator reports.

use irc_backend::{LodMode, ResourceBinding, SamplerKind, TextureFetch, TextureSource};
use irc_interp::image::{compute_lod, sample};
use irc_interp::{Binding, ImageDim, Resource, ShaderInputs};

/// Textures of one interpreter input set.
#[derive(Debug, Clone, Copy)]
pub struct InterpTextures<'a> {
    inputs: &'a ShaderInputs,
}

impl<'a> InterpTextures<'a> {
    pub fn new(inputs: &'a ShaderInputs) -> Self {
        InterpTextures { inputs }
    }
}

fn binding(b: ResourceBinding) -> Binding {
    Binding {
        space: b.space,
        register: b.register,
    }
}

impl TextureSource for InterpTextures<'_> {
    fn fetch(&self, f: &TextureFetch) -> Result<[f32; 4], String> {
        let img = match self.inputs.srvs.get(&binding(f.texture)) {
            Some(Resource::Image(img)) => img,
            _ => return Ok([0.0; 4]),
        };
        if (f.kind == SamplerKind::Cube) != (img.dim == ImageDim::Cube) {
            return Err(format!("{:?} fetch of a {:?} image", f.kind, img.dim));
        }
        let s = f
            .sampler
            .and_then(|sb| self.inputs.samplers.get(&binding(sb)))
            .copied()
            .unwrap_or_default();
        let c: [f64; 3] = std::array::from_fn(|k| f64::from(f.coords[k]));
        let implicit = |bias: f64| {
            let q = &f.quad_coords;
            let d = |a: usize, b: usize| -> [f64; 3] {
                std::array::from_fn(|k| f64::from((f64::from(q[a][k]) - f64::from(q[b][k])) as f32))
            };
            // `lod += bias + lod_bias`, associated as the interpreter does.
            compute_lod(img, c, d(1, 0), d(2, 0)) + (bias + f64::from(s.lod_bias))
        };
        let lod = match f.lod {
            LodMode::Auto => implicit(0.0),
            LodMode::Bias(b) => implicit(f64::from(b)),
            LodMode::Explicit(l) => f64::from(l),
        };
        Ok(sample(img, &s, c, 0, lod, [0; 3], None))
    }
}
