//! The interpreter's inputs for one input set, adjusted to what a GPU delivers, and their
//! conversion to the simulator interface's IR-named [`SimInputs`].
//!
//! Adjustments ([`prepare_interp_inputs`], [`select_aliased_images`], [`set_position_w`],
//! [`flush_denormal_uniforms`]): the D3D9 constant and state built-ins are the same in every
//! invocation of a pixel quad and hold the render state the code was specialized for; a D3D9
//! texture binding declared for several texture types holds an image of the type the sampler
//! state selects; `Position.w` is not 1; constant-buffer dwords uploaded as floats that are f32
//! denormals are flushed when the target's [`irc_backend::Oracle`] says its uniforms cannot
//! hold them.
//!
//! Conversion ([`sim_inputs`]): every input component becomes one 32-bit value — floats of any
//! width as f32 bits, integers as their low 32 bits (sign-extended from narrower types), bools
//! as 0/1 — keyed by `(IoName, component)` with the component counted from the location's `x`
//! (absolute, across declarations of one location) or from a built-in's first scalar. The D3D9
//! constant register files (`LegacyConstFloat`/`Int`/`Bool`, arrays of registers) become
//! [`SimInputs::legacy_constants`] (one register per element, 4 lanes, lane 0's value);
//! constant buffers are passed as their dwords.

use irc_backend::reflection::{Reflection, ResourceBinding, UniformSource};
use irc_backend::{IoName, IoValues, SimInputs, TextureSource};
use irc_interp::random::Rng;
use irc_interp::{Binding, Image, ImageDim, IoSlot, Resource, Scalar, ShaderInputs, Value};
use irc_ir::{BuiltIn, Module, OpCode, ResourceKind};
use std::collections::BTreeMap;

/// A scalar as the float a float-only machine holds for it (integers by value, bools 0/1).
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

/// True for float scalars (compared with a tolerance).
pub fn is_float(s: Scalar) -> bool {
    matches!(s, Scalar::F16(_) | Scalar::F32(_) | Scalar::F64(_))
}

/// A scalar as one 32-bit simulator value (see the module doc).
pub fn scalar_bits(s: Scalar) -> u32 {
    match s {
        Scalar::Bool(b) => u32::from(b),
        Scalar::I8(v) => v as i32 as u32,
        Scalar::I16(v) => v as i32 as u32,
        Scalar::I32(v) => v as u32,
        Scalar::I64(v) => v as u32,
        Scalar::U8(v) => u32::from(v),
        Scalar::U16(v) => u32::from(v),
        Scalar::U32(v) => v,
        Scalar::U64(v) => v as u32,
        Scalar::F16(v) => v.to_f32().to_bits(),
        Scalar::F32(v) => v.to_bits(),
        Scalar::F64(v) => (v as f32).to_bits(),
        Scalar::Unknown(bits) => bits,
    }
}

/// The flattened scalars of a value.
pub fn flat(v: &Value) -> Vec<Scalar> {
    let mut out = Vec::new();
    v.flatten(&mut out);
    out
}

/// The IR name of an interpreter I/O slot and the component its first scalar has.
pub fn io_name(slot: IoSlot) -> Option<(IoName, u32)> {
    match slot {
        IoSlot::Location {
            location,
            component,
        } => Some((IoName::Location(location), component)),
        IoSlot::BuiltIn(b) => BuiltIn::from_u64(u64::from(b)).map(|b| (IoName::BuiltIn(b), 0)),
    }
}

/// Every scalar of one invocation's I/O by `(IoName, component)`.
pub fn io_scalars(io: &BTreeMap<IoSlot, Value>) -> BTreeMap<(IoName, u32), Scalar> {
    let mut m = BTreeMap::new();
    for (slot, v) in io {
        let Some((name, first)) = io_name(*slot) else {
            continue;
        };
        for (i, s) in flat(v).into_iter().enumerate() {
            m.insert((name, first + i as u32), s);
        }
    }
    m
}

/// Readable name of an IR input (`v3.y`) or output (`o3.y`) component, or a built-in's
/// (`Position.w`, `LegacyAlphaTest[2]`).
pub fn io_text(name: IoName, component: u32, output: bool) -> String {
    let c = |c: u32| match c {
        0..=3 => (b"xyzw"[c as usize] as char).to_string(),
        _ => c.to_string(),
    };
    match name {
        IoName::Location(l) => format!("{}{l}.{}", if output { 'o' } else { 'v' }, c(component)),
        IoName::BuiltIn(b) if component < 4 => format!("{b:?}.{}", c(component)),
        IoName::BuiltIn(b) => format!("{b:?}[{component}]"),
    }
}

fn is_legacy(b: u32) -> bool {
    (BuiltIn::LegacyAlphaTest.to_u64() as u32..=BuiltIn::LegacyConstFloat.to_u64() as u32)
        .contains(&b)
}

/// Makes `inputs` describe one draw of `module` as a GPU would run it: four invocations for a
/// pixel quad, one otherwise (missing ones get the first one's inputs); the D3D9 state and
/// constant built-ins (`Legacy*`, uniform on the hardware, while random inputs vary their
/// floats over the quad) take the first invocation's value in every invocation; then `legacy`
/// (the render state the code was specialized for) overrides them.
pub fn prepare_interp_inputs(
    module: &Module,
    inputs: &mut ShaderInputs,
    legacy: &[(BuiltIn, Value)],
) {
    let lane0 = inputs.invocations.first().cloned().unwrap_or_default();
    let pixel = crate::equivalence::stage(module) == Some(irc_ir::ShaderStage::Pixel);
    inputs
        .invocations
        .resize(if pixel { 4 } else { 1 }, lane0.clone());
    let declared: Vec<u32> = module
        .declarations()
        .filter(|&d| module.opcode(d) == OpCode::DclInputBuiltIn)
        .filter_map(|d| {
            irc_ir::format::DclInputBuiltIn::of(module.op(d))
                .builtin()
                .map(|b| b as u32)
        })
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
        let binding = irc_ir::format::DclBinding::of(op);
        let (Some(space), Some(register), Some(kind)) = (
            binding.space(),
            binding.register(),
            binding.kind().and_then(ResourceKind::from_u64),
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
/// float (a lane not in `int_lanes`) and that is an f32 denormal, for targets whose
/// [`irc_backend::Oracle::flush_denormal_uniforms`] is set (no f32 registers: Lima's uniforms
/// are fp16, where these are 0; D3D's `Flush` float mode allows it). Random
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

/// The simulator's inputs for the interpreter's `inputs` (see the module doc).
pub fn sim_inputs<'a>(inputs: &ShaderInputs, textures: &'a dyn TextureSource) -> SimInputs<'a> {
    let invocations = inputs
        .invocations
        .iter()
        .map(|inv| {
            io_scalars(&inv.io)
                .into_iter()
                .map(|(k, s)| (k, scalar_bits(s)))
                .collect::<IoValues>()
        })
        .collect();
    let mut legacy_constants = BTreeMap::new();
    if let Some(first) = inputs.invocations.first() {
        for kind in [
            BuiltIn::LegacyConstFloat,
            BuiltIn::LegacyConstInt,
            BuiltIn::LegacyConstBool,
        ] {
            let Some(Value::Composite(regs)) = first.io.get(&IoSlot::builtin(kind)) else {
                continue;
            };
            for (index, reg) in regs.iter().enumerate() {
                let s = flat(reg);
                let lanes = std::array::from_fn(|i| s.get(i).copied().map_or(0, scalar_bits));
                legacy_constants.insert((kind, index as u32), lanes);
            }
        }
    }
    let constant_buffers = inputs
        .cbvs
        .iter()
        .map(|(b, words)| {
            (
                ResourceBinding {
                    space: b.space,
                    register: b.register,
                },
                words.clone(),
            )
        })
        .collect();
    SimInputs {
        invocations,
        legacy_constants,
        constant_buffers,
        textures,
    }
}
