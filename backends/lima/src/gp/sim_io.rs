//! The GP simulator behind the generic [`Simulator`] interface: IR-named [`SimInputs`] in,
//! IR-named [`SimOutputs`] out, through the program's [`Reflection`]. One invocation is one
//! vertex; each runs the program separately.
//!
//! Conventions (the compiler side must produce reflections that follow them):
//! * **Attributes**: each [`VaryingBinding`] (`reflection.varyings`) names an attribute register:
//!   `slot` = attribute vec4 `a<slot>` (0–15), component `i` of the source in lane `lane + i`. A
//!   `Location { location, component }` source is read by absolute component (`component + i`);
//!   a built-in from its first scalar. Values are f32 bits; an input the binding names but the
//!   inputs lack is an error.
//! * **Uniforms**: each [`UniformBinding`] (`reflection.uniforms`) fills uniform vec4 `slot` of
//!   the load unit's space (`t[slot]`): `Literal` values as given; `Legacy` float registers as
//!   f32 bits, int registers converted to float, bool registers splatted as 0.0/1.0 (0 when not
//!   given); `ConstantBuffer` words `4·vec4_index ..` as f32 bits, `int_lanes` converted from
//!   signed integers (0 past the end).
//! * **Outputs**: each [`OutputBinding`] (`reflection.outputs`) names the *varying slot* its value
//!   is stored to by the store units (`register` = `v<register>`), component `i` in lane `i % 4`
//!   of varying `register + i / 4` (at most 8 components: an array of two vec4s). A component
//!   the program never stored is an error.
//! * **Position**: varying 0 is the position. When [`GpReflection::viewport`] is `Some(s)` the
//!   program applies the viewport epilogue of reference §10 (Mesa's `nir_lower_viewport_transform`)
//!   with the scale vec4 in uniform slot `s` and the translate vec4 in slot `s + 1`: it stores
//!   `(x·w'·sx + tx, y·w'·sy + ty, z·w'·sz + tz, w')`, `w' = clamp(1/w, −2^15, 2^15)`. The
//!   simulator uploads [`VIEWPORT_SCALE`] and [`VIEWPORT_TRANSLATE`] there (not an identity, so
//!   that a swapped component shows) and returns the stored screen-space values; its
//!   [`Simulator::stored_outputs`] maps the IR's clip-space `Position` the same way
//!   ([`viewport`]), so the comparison is exact for every `w` (an infinite, zero or NaN `w`
//!   included), where inverting the transform ([`unviewport`], for tests that read the
//!   varyings) loses `x` whenever `w'` is 0 or clamped. Without the epilogue the position is
//!   returned as stored.
//!
//! * **Point size**: when [`GpReflection::point_size`] is `Some(s)` the program stores
//!   `min(max(ps, p.x), p.y) · p.z` with the parameters `p` in uniform slot `s` (the blob's
//!   `clamp(ps, p.x, p.y) · p.z`, reference §10). The simulator uploads
//!   [`POINT_SIZE_PARAMETERS`] (no clamp, a scale of 2 so that a missing multiply shows), and
//!   `stored_outputs` maps the IR's point size the same way.
//!
//! `SimOutputs::steps` is the sum over the invocations (each vertex runs the whole program).
//!
//! [`Precision::Exact`](irc_backend::Precision) and `Native` both run in f32 (the GP's precision,
//! §11), strict.

use irc_backend::reflection::{
    IoSource, OutputBinding, Reflection, TargetReflection, UniformBinding, VaryingBinding,
};
use irc_backend::{
    InvocationOutputs, IoName, IoValues, Output, SimConfig, SimError, SimInputs, SimOutputs,
    Simulator,
};
use irc_ir::BuiltIn;

use super::decode::decode_bytes;
use super::isa::{ATTRIBUTES, UNIFORM_SLOTS, VARYINGS};
use super::sim::{run_program, GpInputs, SimOptions};

/// Viewport scale the simulator uploads for the position epilogue (`w` unused).
pub const VIEWPORT_SCALE: [f32; 4] = [2.0, -3.0, 0.5, 1.0];
/// Viewport translate the simulator uploads for the position epilogue (`w` unused).
pub const VIEWPORT_TRANSLATE: [f32; 4] = [10.0, 20.0, 0.25, 0.0];

/// Point-size parameters (min, max, scale, unused) the simulator uploads: no clamp, scale 2.
pub const POINT_SIZE_PARAMETERS: [f32; 4] = [f32::MIN, f32::MAX, 2.0, 0.0];

/// What only the GP's reflection has (stored in [`Reflection::target`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GpReflection {
    /// Uniform slot of the viewport scale (translate in the next slot) when the program ends with
    /// the position epilogue.
    pub viewport: Option<u32>,
    /// Uniform slot of the point-size parameters `(min, max, scale, −)` when the program writes
    /// the point size (`clamp(ps, min, max) · scale`, reference §10; Mesa's clamp is
    /// `(1, 100, 1)`).
    pub point_size: Option<u32>,
}

impl TargetReflection for GpReflection {
    fn to_text(&self) -> String {
        let mut out = String::new();
        if let Some(s) = self.viewport {
            out += &format!("viewport scale {s} translate {}\n", s + 1);
        }
        if let Some(s) = self.point_size {
            out += &format!("point size parameters {s}\n");
        }
        out
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn clone_box(&self) -> Box<dyn TargetReflection> {
        Box::new(self.clone())
    }
}

/// The GP simulator as a [`Simulator`].
#[derive(Debug, Clone, Copy, Default)]
pub struct GpSim;

impl Simulator for GpSim {
    fn run(
        &self,
        output: &Output,
        inputs: &SimInputs<'_>,
        config: &SimConfig,
    ) -> Result<SimOutputs, SimError> {
        let refl = &output.reflection;
        let program = decode_bytes(output.code()).map_err(|e| SimError(e.to_string()))?;
        let gp = refl
            .target_part::<GpReflection>()
            .cloned()
            .unwrap_or_default();
        let uniforms = uniforms(inputs, refl, &gp).map_err(SimError)?;
        let opts = SimOptions {
            fuel: config.fuel,
            strict: true,
        };
        let mut out = SimOutputs::default();
        for io in &inputs.invocations {
            let gin = GpInputs {
                attributes: attributes(io, &refl.varyings).map_err(SimError)?,
                uniforms: uniforms.clone(),
            };
            let r = run_program(&program, &gin, &opts).map_err(|e| SimError(e.to_string()))?;
            out.steps += r.steps;
            let mut values = IoValues::new();
            for o in &refl.outputs {
                let v = output_value(o, &r.varyings, &r.written)?;
                let (name, first) = IoName::of(o.target);
                for (i, x) in v.iter().take(usize::from(o.components)).enumerate() {
                    values.insert((name, first + i as u32), x.to_bits());
                }
            }
            out.invocations.push(InvocationOutputs {
                values,
                discarded: false,
            });
        }
        Ok(out)
    }

    fn stored_outputs(&self, output: &Output, values: &mut IoValues) {
        stored_outputs(&output.reflection, values);
    }
}

fn output_value(
    o: &OutputBinding,
    varyings: &[[f32; 4]; VARYINGS],
    written: &[u8; VARYINGS],
) -> Result<[f32; 8], SimError> {
    let r = o.register as usize;
    let n = usize::from(o.components);
    if n > 8 || r + n.div_ceil(4) > VARYINGS {
        return Err(SimError(format!(
            "reflection: output {:?} in varying {r} with {n} components does not fit v0..v15",
            o.target
        )));
    }
    let mut out = [0.0; 8];
    for (i, x) in out.iter_mut().enumerate().take(n) {
        let (v, c) = (r + i / 4, i % 4);
        if written[v] & (1 << c) == 0 {
            return Err(SimError(format!(
                "output {:?}: the program did not store component {c} of varying {v}",
                o.target
            )));
        }
        *x = varyings[v][c];
    }
    Ok(out)
}

/// The screen-space position and scaled point size the program stores for the IR's values
/// (see [`GpSim`]'s `stored_outputs`).
fn stored_outputs(refl: &Reflection, values: &mut IoValues) {
    let gp = refl
        .target_part::<GpReflection>()
        .cloned()
        .unwrap_or_default();
    let position = IoSource::BuiltIn(BuiltIn::Position);
    let in_varying_0 = refl
        .outputs
        .iter()
        .any(|o| o.target == position && o.register == 0);
    let key = |c| (IoName::BuiltIn(BuiltIn::Position), c);
    if gp.viewport.is_some() && in_varying_0 {
        let p: Option<Vec<f32>> = (0..4)
            .map(|c| values.get(&key(c)).map(|&b| f32::from_bits(b)))
            .collect();
        if let Some(p) = p {
            let stored = viewport([p[0], p[1], p[2], p[3]]);
            for (c, x) in (0..).zip(stored) {
                values.insert(key(c), x.to_bits());
            }
        }
    }
    let size = (IoName::BuiltIn(BuiltIn::PointSize), 0);
    if let (Some(_), Some(ps)) = (gp.point_size, values.get_mut(&size)) {
        let [lo, hi, scale, _] = POINT_SIZE_PARAMETERS;
        *ps = (f32::from_bits(*ps).max(lo).min(hi) * scale).to_bits();
    }
}

/// The bound of the epilogue's clamp, `|w'| ≤ 2^15` (reference §10, Mesa's reading).
pub const W_CLAMP: f32 = 32768.0;

/// Inverts the position epilogue (reference §10) with the simulator's viewport.
///
/// Where the clamp engaged (`|w'| = 2^15`) the screen-space position keeps only that
/// `|w| ≤ 2^−15` (a vertex on the eye plane, `w = 0` for the usual inputs): `w` is given back
/// as zero with the sign of `w'`. `x`, `y`, `z` are recovered in every case.
pub fn unviewport(v: [f32; 4]) -> [f32; 4] {
    let wp = v[3];
    let (s, t) = (VIEWPORT_SCALE, VIEWPORT_TRANSLATE);
    let w = if wp.abs() == W_CLAMP {
        0.0f32.copysign(wp)
    } else {
        1.0 / wp
    };
    [
        (v[0] - t[0]) / (s[0] * wp),
        (v[1] - t[1]) / (s[1] * wp),
        (v[2] - t[2]) / (s[2] * wp),
        w,
    ]
}

/// The epilogue's result for clip-space `p` with the simulator's viewport: what the program
/// stores, operation for operation (`rcp`, then `min` and `max` with the GP's rule that a NaN
/// operand gives the other one, so a NaN `w` stores `w' = 2^15`).
pub fn viewport(p: [f32; 4]) -> [f32; 4] {
    // Not `clamp`, which keeps a NaN: the GP's min and max give the bound for a NaN `w`.
    #[allow(clippy::manual_clamp)]
    let wp = (1.0 / p[3]).min(W_CLAMP).max(-W_CLAMP);
    let (s, t) = (VIEWPORT_SCALE, VIEWPORT_TRANSLATE);
    [
        p[0] * wp * s[0] + t[0],
        p[1] * wp * s[1] + t[1],
        p[2] * wp * s[2] + t[2],
        wp,
    ]
}

fn attributes(
    io: &IoValues,
    bindings: &[VaryingBinding],
) -> Result<[[f32; 4]; ATTRIBUTES], String> {
    let mut a = [[0.0; 4]; ATTRIBUTES];
    for v in bindings {
        if v.slot as usize >= ATTRIBUTES || u32::from(v.lane) + u32::from(v.components) > 4 {
            return Err(format!(
                "reflection: attribute {:?} at a{} lane {} ({} components) does not fit a0..a15",
                v.source, v.slot, v.lane, v.components
            ));
        }
        let (name, first) = IoName::of(v.source);
        for i in 0..u32::from(v.components) {
            let bits = io.get(&(name, first + i)).ok_or_else(|| {
                format!(
                    "attribute a{} lane {} reads {:?} component {}, which the inputs do not have",
                    v.slot,
                    u32::from(v.lane) + i,
                    v.source,
                    first + i
                )
            })?;
            a[v.slot as usize][usize::from(v.lane) + i as usize] = f32::from_bits(*bits);
        }
    }
    Ok(a)
}

/// The uniform space as the reflection fills it (plus the viewport).
pub fn uniforms(
    inputs: &SimInputs<'_>,
    refl: &Reflection,
    gp: &GpReflection,
) -> Result<Vec<[f32; 4]>, String> {
    let mut n = refl
        .uniforms
        .iter()
        .map(|u| u.slot + 1)
        .max()
        .unwrap_or(0)
        .max(refl.uniform_slots);
    if let Some(s) = gp.viewport {
        n = n.max(s.saturating_add(2));
    }
    if let Some(s) = gp.point_size {
        n = n.max(s.saturating_add(1));
    }
    if n as usize > UNIFORM_SLOTS {
        return Err(format!(
            "reflection: {n} uniform slots, the GP has {UNIFORM_SLOTS}"
        ));
    }
    let mut u = vec![[0.0; 4]; n as usize];
    for UniformBinding { slot, source } in &refl.uniforms {
        u[*slot as usize] = irc_backend::sim::uniform_value(inputs, source)?;
    }
    if let Some(s) = gp.viewport {
        u[s as usize] = VIEWPORT_SCALE;
        u[s as usize + 1] = VIEWPORT_TRANSLATE;
    }
    if let Some(s) = gp.point_size {
        u[s as usize] = POINT_SIZE_PARAMETERS;
    }
    Ok(u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unviewport_inverts_the_epilogue_and_reads_a_clamped_w_as_the_eye_plane() {
        let p = [1.0f32, 2.0, 3.0, 4.0];
        assert_eq!(unviewport(viewport(p)), p);
        // w = ±0: 1/w = ±inf, clamped to ±2^15 (reference §10); x, y, z still come back.
        for w in [0.0f32, -0.0] {
            let v = viewport([0.5, -1.5, 0.25, w]);
            assert_eq!(v[3], W_CLAMP.copysign(w));
            let back = unviewport(v);
            assert_eq!(back[..3], [0.5, -1.5, 0.25]);
            assert_eq!(back[3].to_bits(), w.to_bits());
        }
        // Just inside the bound the reciprocal is kept.
        let w = 1.0 / 16384.0;
        assert_eq!(unviewport(viewport([1.0, 1.0, 1.0, w]))[3], w);
    }
}
