//! The interpreter's inputs as the simulator sees them, through the program's [`Reflection`].
//!
//! * **Varyings**: each [`VaryingBinding`] copies `components` scalars of its source into slot
//!   `slot`, lanes `lane..lane + components`. A `Location { location, component }` source is
//!   read by *absolute* component: scalar `i` is component `component + i` of location
//!   `location`, whichever `DclInput` of that location declares it (so a binding may start in
//!   the middle of a declaration). A built-in source reads the built-in's flattened scalars
//!   from 0. Scalars convert to float: floats as they are, integers by value, bools 0.0/1.0.
//! * **Special inputs**: `Position` → `frag_coord = (x, y, z, 1/w)` (the hardware delivers
//!   raw `w`; the program computes `1/w` itself, so it recovers the IR's `w`), `IsFrontFace` →
//!   `front_facing`, `PointCoord` → `point_coord` as the IR value (an identity scale/bias).
//! * **Uniforms** per [`UniformSource`]: `Legacy` reads element `index` of the D3D9 constant
//!   array built-in (lane 0's value; 0 past the end, as the interpreter reads it): float and
//!   int registers lane by lane, a bool register splatted to all four lanes as 0.0/1.0;
//!   `ConstantBuffer` reads dwords `4·vec4_index ..` of the buffer at the binding as f32 bits,
//!   lanes in `int_lanes` as signed integers converted to float (0 past the end or when the
//!   buffer is missing); `Literal` as is.

use irc_backend::reflection::{IoSource, Reflection, UniformSource};
use irc_interp::random::Rng;
use irc_interp::{
    Binding, Image, ImageDim, InvocationInputs, IoSlot, Resource, Scalar, ShaderInputs, Value,
};
use irc_ir::{BuiltIn, Module, OpCode, ResourceKind};
use irc_lima::pp::{LaneInputs, QuadInputs};
use std::collections::BTreeMap;

/// A scalar as the float the hardware holds for it.
pub fn scalar_to_f32(s: Scalar) -> f32 {
    match s {
        Scalar::Bool(b) => f32::from(u8::from(b)),
        Scalar::I8(v) => f32::from(v),
        Scalar::I16(v) => f32::from(v),
        Scalar::I32(v) => v as f32,
        Scalar::I64(v) => v as f32,
        Scalar::U8(v) => f32::from(v),
        Scalar::U16(v) => f32::from(v),
        Scalar::U32(v) => v as f32,
        Scalar::U64(v) => v as f32,
        Scalar::F16(v) => v.to_f32(),
        Scalar::F32(v) => v,
        Scalar::F64(v) => v as f32,
        Scalar::Unknown(bits) => f32::from_bits(bits),
    }
}

/// The flattened scalars of a value.
pub fn flat(v: &Value) -> Vec<Scalar> {
    let mut out = Vec::new();
    v.flatten(&mut out);
    out
}

/// Per-lane I/O by absolute component: `(location, component) → scalar` for every
/// `Location` slot, plus the built-ins' flattened scalars.
#[derive(Debug, Default)]
pub struct IoMap {
    pub locations: BTreeMap<(u32, u32), Scalar>,
    pub builtins: BTreeMap<u32, Vec<Scalar>>,
}

impl IoMap {
    pub fn new(io: &BTreeMap<IoSlot, Value>) -> IoMap {
        let mut m = IoMap::default();
        for (slot, v) in io {
            match *slot {
                IoSlot::Location {
                    location,
                    component,
                } => {
                    for (i, s) in flat(v).into_iter().enumerate() {
                        m.locations.insert((location, component + i as u32), s);
                    }
                }
                IoSlot::BuiltIn(b) => {
                    m.builtins.insert(b, flat(v));
                }
            }
        }
        m
    }

    /// Scalar `i` of `source`, if the I/O has it.
    pub fn get(&self, source: IoSource, i: u32) -> Option<Scalar> {
        match source {
            IoSource::Location {
                location,
                component,
            } => self.locations.get(&(location, component + i)).copied(),
            IoSource::BuiltIn(b) => self
                .builtins
                .get(&(b.to_u64() as u32))
                .and_then(|v| v.get(i as usize))
                .copied(),
        }
    }
}

/// Readable name of an I/O source (`v3.y`, `Position`).
pub fn source_name(s: IoSource) -> String {
    match s {
        IoSource::Location {
            location,
            component,
        } => format!("v{location}.{}", comp_name(component)),
        IoSource::BuiltIn(b) => format!("{b:?}"),
    }
}

/// `x y z w` for components 0–3, the number beyond.
pub fn comp_name(c: u32) -> String {
    match c {
        0..=3 => (b"xyzw"[c as usize] as char).to_string(),
        _ => c.to_string(),
    }
}

fn is_legacy(b: u32) -> bool {
    (BuiltIn::LegacyAlphaTest.to_u64() as u32..=BuiltIn::LegacyConstFloat.to_u64() as u32)
        .contains(&b)
}

/// Makes `inputs` describe one draw of `module` as a GPU would run it: four lanes (missing
/// lanes get lane 0's inputs); the D3D9 state and constant built-ins (`Legacy*`, uniform on
/// the hardware, while random inputs vary their floats over the quad) take lane 0's value in
/// every lane; then `legacy` (the render state the code was specialized for) overrides them.
pub fn prepare_interp_inputs(
    module: &Module,
    inputs: &mut ShaderInputs,
    legacy: &[(BuiltIn, Value)],
) {
    let lane0 = inputs.invocations.first().cloned().unwrap_or_default();
    inputs.invocations.resize(4, lane0.clone());
    let declared: Vec<u32> = module
        .declarations()
        .filter(|&d| module.opcode(d) == OpCode::DclInputBuiltIn)
        .filter_map(|d| module.op(d).operand_lit(1).map(|b| b as u32))
        .collect();
    for inv in &mut inputs.invocations {
        for (slot, v) in &lane0.io {
            if matches!(slot, IoSlot::BuiltIn(b) if is_legacy(*b)) {
                inv.io.insert(*slot, v.clone());
            }
        }
        for (b, v) in legacy {
            let id = b.to_u64() as u32;
            if declared.contains(&id) {
                inv.io.insert(IoSlot::BuiltIn(id), v.clone());
            }
        }
    }
}

/// D3D9 shaders declare one SRV per texture type (2D, 3D, cube) at the same binding and sample
/// the one `LegacySamplerState[register].texture_type` selects (0 = 2D, 1 = 3D, 2 = cube);
/// random inputs hold one image per binding, of whichever declaration came last. This puts an
/// image of the selected type at every such binding (random texels in [0, 1] from `seed`,
/// sized like the interpreter's random images), so that the interpreter and the compiled code
/// see the texture the render state says is bound. Call after [`prepare_interp_inputs`].
pub fn select_aliased_images(module: &Module, inputs: &mut ShaderInputs, seed: u64) {
    let mut kinds: BTreeMap<Binding, Vec<ResourceKind>> = BTreeMap::new();
    for d in module.declarations() {
        let op = module.op(d);
        if op.opcode != OpCode::DclSrv {
            continue;
        }
        let (Some(space), Some(register), Some(kind)) = (
            op.operand_lit(1),
            op.operand_lit(2),
            op.operand_lit(4).and_then(ResourceKind::from_u64),
        ) else {
            continue;
        };
        let b = Binding {
            space: space as u32,
            register: register as u32,
        };
        kinds.entry(b).or_default().push(kind);
    }
    let state = inputs
        .invocations
        .first()
        .and_then(|inv| inv.io.get(&IoSlot::builtin(BuiltIn::LegacySamplerState)))
        .cloned();
    for (b, declared) in kinds {
        if declared.len() < 2 {
            continue;
        }
        let texture_type = match &state {
            Some(Value::Composite(samplers)) => match samplers.get(b.register as usize) {
                Some(Value::Composite(members)) => members
                    .first()
                    .and_then(Value::as_scalar)
                    .map_or(0, |s| s.bits()),
                _ => 0,
            },
            _ => 0,
        };
        let (kind, dim, size) = match texture_type {
            1 => (ResourceKind::Image3D, ImageDim::D3, (4, 4, 4, 1)),
            2 => (ResourceKind::ImageCube, ImageDim::Cube, (4, 4, 1, 6)),
            _ => (ResourceKind::Image2D, ImageDim::D2, (4, 4, 1, 1)),
        };
        if !declared.contains(&kind) {
            continue;
        }
        if let Some(Resource::Image(img)) = inputs.srvs.get(&b) {
            if img.dim == dim {
                continue;
            }
        }
        let mut rng = Rng::new(seed ^ (u64::from(b.register) << 32));
        let img = Image::from_fn(dim, size, 3, |_, _, _, _, _| {
            std::array::from_fn(|_| (rng.below(65) as f32 / 64.0).to_bits())
        });
        inputs.srvs.insert(b, Resource::Image(img));
    }
}

/// Flushes to (signed) zero every constant-buffer dword that the reflection uploads as a
/// float (a lane not in `int_lanes`) and that is an f32 denormal. The PP has no f32: uniforms
/// are uploaded as fp16, where these are 0, and D3D's `Flush` float mode allows it. Random
/// inputs make them often (untyped dwords are small integers a quarter of the time), and a
/// denormal divisor or sine argument would otherwise give results no hardware computes.
/// Both runs then see the flushed value.
pub fn flush_denormal_uniforms(inputs: &mut ShaderInputs, refl: &Reflection) {
    for u in &refl.uniforms {
        let UniformSource::ConstantBuffer {
            binding,
            vec4_index,
            int_lanes,
        } = u.source
        else {
            continue;
        };
        let b = Binding {
            space: binding.space,
            register: binding.register,
        };
        let Some(dwords) = inputs.cbvs.get_mut(&b) else {
            continue;
        };
        for i in (0..4).filter(|i| int_lanes >> i & 1 == 0) {
            if let Some(d) = dwords.get_mut(vec4_index as usize * 4 + i) {
                if f32::from_bits(*d).is_subnormal() {
                    *d &= 0x8000_0000;
                }
            }
        }
    }
}

/// Sets `.w` of the `Position` input of every lane (random inputs always give 1, which would
/// not tell `w` from `1/w`).
pub fn set_position_w(inputs: &mut ShaderInputs, w: f32) {
    let slot = IoSlot::builtin(BuiltIn::Position);
    for inv in &mut inputs.invocations {
        if let Some(Value::Vector(v)) = inv.io.get_mut(&slot) {
            if let Some(s @ Scalar::F32(_)) = v.get_mut(3) {
                *s = Scalar::F32(w);
            }
        }
    }
}

fn lane_inputs(inputs: &ShaderInputs, l: usize) -> &InvocationInputs {
    static EMPTY: std::sync::OnceLock<InvocationInputs> = std::sync::OnceLock::new();
    inputs
        .invocations
        .get(l)
        .or_else(|| inputs.invocations.first())
        .unwrap_or_else(|| EMPTY.get_or_init(InvocationInputs::default))
}

/// The simulator's inputs for the interpreter's `inputs`, as the reflection binds them.
pub fn quad_inputs(inputs: &ShaderInputs, refl: &Reflection) -> Result<QuadInputs, String> {
    let mut q = QuadInputs::default();
    for (l, lane) in q.lanes.iter_mut().enumerate() {
        let io = IoMap::new(&lane_inputs(inputs, l).io);
        *lane = lane_of(&io, refl)?;
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
        q.uniforms[u.slot as usize] = uniform_value(inputs, &u.source)?;
    }
    Ok(q)
}

fn lane_of(io: &IoMap, refl: &Reflection) -> Result<LaneInputs, String> {
    let mut lane = LaneInputs::default();
    for v in &refl.varyings {
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
        for i in 0..u32::from(v.components) {
            let s = io.get(v.source, i).ok_or_else(|| {
                format!(
                    "reflection: varying slot {} lane {} reads {} component {i}, which the \
                     shader does not declare",
                    v.slot,
                    u32::from(v.lane) + i,
                    source_name(v.source)
                )
            })?;
            lane.varyings[slot][usize::from(v.lane) + i as usize] = scalar_to_f32(s);
        }
    }
    for &b in &irc_lima::pp::reflection::PpReflection::of(refl).special_inputs {
        let scalars = |n: usize| -> Vec<f32> {
            let v = io.builtins.get(&(b.to_u64() as u32));
            (0..n)
                .map(|i| v.and_then(|v| v.get(i)).copied().map_or(0.0, scalar_to_f32))
                .collect()
        };
        match b {
            BuiltIn::Position => {
                let p = scalars(4);
                lane.frag_coord = [p[0], p[1], p[2], 1.0 / p[3]];
            }
            BuiltIn::IsFrontFace => lane.front_facing = scalars(1)[0] != 0.0,
            BuiltIn::PointCoord => {
                let p = scalars(2);
                lane.point_coord = [p[0], p[1]];
            }
            other => {
                return Err(format!(
                    "reflection: special input {other:?} has no simulator input"
                ))
            }
        }
    }
    Ok(lane)
}

fn uniform_value(inputs: &ShaderInputs, src: &UniformSource) -> Result<[f32; 4], String> {
    Ok(match src {
        UniformSource::Literal(v) => *v,
        UniformSource::Legacy { kind, index } => {
            let id = kind.to_u64() as u32;
            let arr = lane_inputs(inputs, 0).io.get(&IoSlot::BuiltIn(id));
            let elem = match arr {
                Some(Value::Composite(elems)) => elems.get(*index as usize).map(flat),
                Some(_) => {
                    return Err(format!(
                        "uniform: the {kind:?} input is not an array of registers"
                    ))
                }
                None => None,
            };
            let elem = elem.unwrap_or_default();
            match (kind, elem.as_slice()) {
                (BuiltIn::LegacyConstBool, [b, ..]) => [scalar_to_f32(*b); 4],
                (
                    BuiltIn::LegacyConstBool | BuiltIn::LegacyConstInt | BuiltIn::LegacyConstFloat,
                    e,
                ) => std::array::from_fn(|i| e.get(i).copied().map_or(0.0, scalar_to_f32)),
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
            let dwords = inputs.cbvs.get(&Binding {
                space: binding.space,
                register: binding.register,
            });
            std::array::from_fn(|i| {
                let d = dwords
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
