//! The interpreter's images and samplers behind the simulator's texture unit.
//!
//! A fetch of hardware sampler `index` goes through the reflection's [`SamplerBinding`] to the
//! image at its texture binding and the sampler state at its sampler binding (the default
//! sampler when there is none, as in the interpreter), and is answered by the interpreter's
//! own sampling code ([`irc_interp::image::sample`] and [`irc_interp::image::compute_lod`]) the
//! way `ImageSample` uses it:
//!
//! * [`LodMode::Auto`] / [`LodMode::Bias`]: LOD from the *coarse* derivatives of the quad's
//!   coordinates (`dx = c[1] − c[0]`, `dy = c[2] − c[0]`, each difference rounded to f32 as the
//!   interpreter rounds it to the coordinate type), plus the bias and the sampler's `lod_bias`;
//! * [`LodMode::Explicit`]: that LOD (the sampler's bias does not apply, as in the
//!   interpreter);
//! * layer 0, no texel offset, no depth comparison; the image's dimensionality decides how many
//!   coordinates count (a cube takes `.xyz` as a direction).
//!
//! A missing image reads as zero (a null descriptor). Problems the simulator cannot report
//! through the trait (an index without a binding, a cube fetch of a non-cube image or the
//! reverse) are collected in [`InterpTextures::errors`] and the fetch returns NaN.

use std::cell::RefCell;

use irc_backend::reflection::SamplerBinding;
use irc_interp::image::{compute_lod, sample};
use irc_interp::{Binding, ImageDim, Resource, ShaderInputs};
use irc_lima::pp::isa::SamplerType;
use irc_lima::pp::{LodMode, SampleRequest, TextureSampler};

/// Textures of one interpreter input set, as the reflection binds them.
#[derive(Debug)]
pub struct InterpTextures<'a> {
    inputs: &'a ShaderInputs,
    bindings: &'a [SamplerBinding],
    errors: RefCell<Vec<String>>,
}

impl<'a> InterpTextures<'a> {
    pub fn new(inputs: &'a ShaderInputs, bindings: &'a [SamplerBinding]) -> Self {
        InterpTextures {
            inputs,
            bindings,
            errors: RefCell::new(Vec::new()),
        }
    }

    /// Binding problems met by fetches so far (deduplicated).
    pub fn errors(&self) -> Vec<String> {
        self.errors.borrow().clone()
    }

    fn error(&self, e: String) {
        let mut errs = self.errors.borrow_mut();
        if !errs.contains(&e) {
            errs.push(e);
        }
    }
}

fn binding(b: irc_backend::reflection::ResourceBinding) -> Binding {
    Binding {
        space: b.space,
        register: b.register,
    }
}

impl TextureSampler for InterpTextures<'_> {
    fn sample(&self, req: &SampleRequest) -> [f32; 4] {
        let Some(b) = self.bindings.iter().find(|b| b.index == req.sampler) else {
            self.error(format!(
                "texture fetch with sampler index {}, which the reflection does not bind",
                req.sampler
            ));
            return [f32::NAN; 4];
        };
        let img = match self.inputs.srvs.get(&binding(b.texture)) {
            Some(Resource::Image(img)) => img,
            _ => return [0.0; 4],
        };
        let cube_fetch = req.ty == SamplerType::Cube;
        if cube_fetch != (img.dim == ImageDim::Cube) {
            self.error(format!(
                "sampler {}: {:?} fetch of a {:?} image",
                req.sampler, req.ty, img.dim
            ));
            return [f32::NAN; 4];
        }
        let s = b
            .sampler
            .and_then(|sb| self.inputs.samplers.get(&binding(sb)))
            .copied()
            .unwrap_or_default();
        let c: [f64; 3] = std::array::from_fn(|k| f64::from(req.coords[k]));
        let implicit = |bias: f64| {
            let q = &req.quad_coords;
            let d = |a: usize, b: usize| -> [f64; 3] {
                std::array::from_fn(|k| f64::from((f64::from(q[a][k]) - f64::from(q[b][k])) as f32))
            };
            // `lod += bias + lod_bias`, associated as the interpreter does.
            compute_lod(img, c, d(1, 0), d(2, 0)) + (bias + f64::from(s.lod_bias))
        };
        let lod = match req.lod {
            LodMode::Auto => implicit(0.0),
            LodMode::Bias(b) => implicit(f64::from(b)),
            LodMode::Explicit(l) => f64::from(l),
        };
        sample(img, &s, c, 0, lod, [0; 3], None)
    }
}
