//! The PP simulator behind the generic [`Simulator`] interface: IR-named [`SimInputs`] in,
//! IR-named [`SimOutputs`] out, through the program's [`Reflection`].
//!
//! * **Varyings**: each [`VaryingBinding`] copies `components` scalars of its source into slot
//!   `slot`, lanes `lane..lane + components`. A `Location { location, component }` source is
//!   read by *absolute* component: scalar `i` is component `component + i` of location
//!   `location` (so a binding may start in the middle of a declaration). A built-in source
//!   reads the built-in's scalars from 0. Values are f32 bits (the PP has float varyings only).
//! * **Special inputs** ([`PpReflection::special_inputs`]): `Position` → `frag_coord =
//!   (x, y, z, 1/w)` (the hardware delivers raw `w`; the program computes `1/w` itself, so it
//!   recovers the IR's `w`), `IsFrontFace` → `front_facing` (nonzero bits), `PointCoord` →
//!   `point_coord` as the IR value (an identity scale/bias). A missing one reads as 0.
//! * **Uniforms** per [`UniformSource`]: `Legacy` reads D3D9 constant register `index` of its
//!   kind (0 when not given): float registers as f32 bits, int registers as signed integers
//!   converted to float, a bool register (lane 0) splatted to all four lanes as 0.0/1.0;
//!   `ConstantBuffer` reads words `4·vec4_index ..` of the buffer at the binding as f32 bits,
//!   lanes in `int_lanes` as signed integers converted to float (0 past the end or when the
//!   buffer is missing); `Literal` as is.
//! * **Textures**: a fetch of hardware sampler `index` goes through [`Reflection::samplers`] to
//!   its texture and sampler bindings and is answered by the [`TextureSource`]; a generic fetch
//!   of a cube binding is asked as a 2D fetch (the source reports the mismatch).
//! * **Outputs**: every [`OutputBinding`] names the register whose lanes `0..components` hold
//!   output components `component..`; their f32 bits are returned for every lane, with the
//!   lane's discard flag and the quad operations run in divergent control flow.
//!
//! [`Precision::Exact`] runs in fp32 with the strict pipeline model, [`Precision::Native`] in
//! fp16 (also strict).

use std::cell::RefCell;

use irc_backend::reflection::{IoSource, OutputBinding, Reflection, SamplerKind, VaryingBinding};
use irc_backend::{
    InvocationOutputs, IoName, Output, Precision, SimConfig, SimError, SimInputs, SimOutputs,
    Simulator, TextureFetch, TextureSource,
};
use irc_ir::BuiltIn;

use super::isa::SamplerType;
use super::reflection::PpReflection;
use super::sim::{self, run_words, LaneInputs, QuadInputs, SimOptions};
use super::texture::{LodMode, SampleRequest, TextureSampler};

/// Hardware registers of a PP lane.
const REGISTERS: u32 = 6;

/// The PP simulator as a [`Simulator`] (what [`super::LimaFp`] returns).
#[derive(Debug, Clone, Copy, Default)]
pub struct PpSim;

impl Simulator for PpSim {
    fn run(
        &self,
        output: &Output,
        inputs: &SimInputs<'_>,
        config: &SimConfig,
    ) -> Result<SimOutputs, SimError> {
        let refl = &output.reflection;
        let quad = quad_inputs(inputs, refl).map_err(SimError)?;
        for o in &refl.outputs {
            check_binding(o).map_err(SimError)?;
        }
        let textures = Textures {
            source: inputs.textures,
            refl,
            errors: RefCell::new(Vec::new()),
        };
        let opts = SimOptions {
            precision: match config.precision {
                Precision::Exact => sim::Precision::Fp32,
                Precision::Native => sim::Precision::Fp16,
            },
            fuel: config.fuel,
            strict_pipeline: true,
        };
        let out = run_words(&output.code_words(), &quad, &textures, &opts)
            .map_err(|e| SimError(e.to_string()))?;
        if let Some(e) = textures.errors.borrow().first() {
            return Err(SimError(e.clone()));
        }
        let invocations = out
            .lanes
            .iter()
            .map(|lane| {
                let mut values = irc_backend::IoValues::new();
                for o in &refl.outputs {
                    let (name, first) = IoName::of(o.target);
                    for i in 0..u32::from(o.components) {
                        let v = lane.regs[o.register as usize][i as usize];
                        values.insert((name, first + i), v.to_bits());
                    }
                }
                InvocationOutputs {
                    values,
                    discarded: lane.discarded,
                }
            })
            .collect();
        Ok(SimOutputs {
            invocations,
            divergent_quad_ops: out.divergent_quad_ops,
            steps: out.steps,
            ..Default::default()
        })
    }
}

/// Readable name of an I/O source (`v3.y`, `Position`).
fn source_name(s: IoSource) -> String {
    match s {
        IoSource::Location {
            location,
            component,
        } => format!("v{location}.{}", comp_name(component)),
        IoSource::BuiltIn(b) => format!("{b:?}"),
    }
}

fn comp_name(c: u32) -> String {
    match c {
        0..=3 => (b"xyzw"[c as usize] as char).to_string(),
        _ => c.to_string(),
    }
}

fn check_binding(o: &OutputBinding) -> Result<(), String> {
    if o.register >= REGISTERS || o.components > 4 {
        return Err(format!(
            "reflection: output {} in ${} with {} components does not fit the PP's $0..$5",
            source_name(o.target),
            o.register,
            o.components
        ));
    }
    Ok(())
}

/// The PP's quad inputs for `inputs`, as the reflection binds them (lanes beyond the given
/// invocations repeat the first).
pub fn quad_inputs(inputs: &SimInputs<'_>, refl: &Reflection) -> Result<QuadInputs, String> {
    let mut q = QuadInputs::default();
    let pp = PpReflection::of(refl);
    for (l, lane) in q.lanes.iter_mut().enumerate() {
        let Some(io) = inputs
            .invocations
            .get(l)
            .or_else(|| inputs.invocations.first())
        else {
            continue;
        };
        *lane = lane_of(io, refl, &pp)?;
    }
    let slots = refl
        .uniforms
        .iter()
        .map(|u| u.slot + 1)
        .max()
        .unwrap_or(0)
        .max(refl.uniform_slots);
    q.uniforms = vec![[0.0; 4]; slots as usize];
    for u in &refl.uniforms {
        q.uniforms[u.slot as usize] = irc_backend::sim::uniform_value(inputs, &u.source)?;
    }
    Ok(q)
}

fn lane_of(
    io: &irc_backend::IoValues,
    refl: &Reflection,
    pp: &PpReflection,
) -> Result<LaneInputs, String> {
    let mut lane = LaneInputs::default();
    for v in &refl.varyings {
        varying(io, v, &mut lane)?;
    }
    for &b in &pp.special_inputs {
        let f = |i: u32| {
            io.get(&(IoName::BuiltIn(b), i))
                .map_or(0.0, |&bits| f32::from_bits(bits))
        };
        match b {
            BuiltIn::Position => lane.frag_coord = [f(0), f(1), f(2), 1.0 / f(3)],
            BuiltIn::IsFrontFace => {
                lane.front_facing = io.get(&(IoName::BuiltIn(b), 0)).is_some_and(|&v| v != 0)
            }
            BuiltIn::PointCoord => lane.point_coord = [f(0), f(1)],
            other => {
                return Err(format!(
                    "reflection: special input {other:?} has no simulator input"
                ))
            }
        }
    }
    Ok(lane)
}

fn varying(
    io: &irc_backend::IoValues,
    v: &VaryingBinding,
    lane: &mut LaneInputs,
) -> Result<(), String> {
    if u32::from(v.lane) + u32::from(v.components) > 4 {
        return Err(format!(
            "reflection: varying {} at slot {} lane {} has {} components (past the slot)",
            source_name(v.source),
            v.slot,
            v.lane,
            v.components
        ));
    }
    let slot = v.slot as usize;
    if lane.varyings.len() <= slot {
        lane.varyings.resize(slot + 1, [0.0; 4]);
    }
    let (name, first) = IoName::of(v.source);
    for i in 0..u32::from(v.components) {
        let bits = io.get(&(name, first + i)).ok_or_else(|| {
            format!(
                "reflection: varying slot {} lane {} reads {} component {i}, which the inputs \
                 do not have (the shader does not declare it)",
                v.slot,
                u32::from(v.lane) + i,
                source_name(v.source)
            )
        })?;
        lane.varyings[slot][usize::from(v.lane) + i as usize] = f32::from_bits(*bits);
    }
    Ok(())
}

/// The [`TextureSource`] as the PP's texture unit sees it, by hardware sampler index.
struct Textures<'a> {
    source: &'a dyn TextureSource,
    refl: &'a Reflection,
    /// Fetches that could not be answered (deduplicated); the run fails with the first.
    errors: RefCell<Vec<String>>,
}

impl Textures<'_> {
    fn error(&self, e: String) -> [f32; 4] {
        let mut errs = self.errors.borrow_mut();
        if !errs.contains(&e) {
            errs.push(e);
        }
        [f32::NAN; 4]
    }
}

impl TextureSampler for Textures<'_> {
    fn sample(&self, req: &SampleRequest) -> [f32; 4] {
        let Some(b) = self.refl.samplers.iter().find(|b| b.index == req.sampler) else {
            return self.error(format!(
                "texture fetch with sampler index {}, which the reflection does not bind",
                req.sampler
            ));
        };
        let kind = match (req.ty, b.kind) {
            (SamplerType::Cube, _) => SamplerKind::Cube,
            (_, SamplerKind::Cube) => SamplerKind::D2,
            (_, k) => k,
        };
        let fetch = TextureFetch {
            texture: b.texture,
            sampler: b.sampler,
            kind,
            coords: req.coords,
            quad_coords: req.quad_coords,
            lod: match req.lod {
                LodMode::Auto => irc_backend::LodMode::Auto,
                LodMode::Bias(x) => irc_backend::LodMode::Bias(x),
                LodMode::Explicit(x) => irc_backend::LodMode::Explicit(x),
            },
            lane: req.lane,
        };
        match self.source.fetch(&fetch) {
            Ok(t) => t,
            Err(e) => self.error(format!("sampler {}: {e}", req.sampler)),
        }
    }
}
