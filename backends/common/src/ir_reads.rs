//! Reading IR values the same way in every lowering: the scalar lanes of a `Constant` as
//! `f32`, the (space, register) binding a `DescriptorLoad` names, and the shape of an
//! `ImageSample` every sampling target accepts. Every backend turns IR
//! constants into float lanes (all four targets compute in floats) and every sampling backend
//! resolves descriptors; one definition keeps their rules identical.

use irc_ir::format::{
    Arith, CompositeConstruct, CompositeExtract, DclBinding, DclInputBuiltIn, DescriptorLoad,
    ImageSample,
};
use irc_ir::{BuiltIn, Module, OpCode, ResourceKind, ScalarType, SsaDef};

use crate::io_plan::{const_index, flat_size};
use crate::reflection::{ResourceBinding, SamplerKind};

/// The D3D9 register file `decl` declares when it is the integer or the bool constants
/// (`LegacyConstInt`, `LegacyConstBool`): the float-only targets upload both as float vec4s
/// (the convention of `UniformSource::Legacy`).
pub fn int_or_bool_registers(m: &Module, decl: SsaDef) -> Option<BuiltIn> {
    let op = m.op(decl);
    if op.opcode != OpCode::DclInputBuiltIn {
        return None;
    }
    match DclInputBuiltIn::of(op)
        .builtin()
        .and_then(BuiltIn::from_u64)?
    {
        b @ (BuiltIn::LegacyConstInt | BuiltIn::LegacyConstBool) => Some(b),
        _ => None,
    }
}

/// What the `ConvertItoF` op `d` converts, lane by lane, in the forms `int-to-float` (and the
/// vectorizer after it) leave for float-only targets: for each converted lane, the `InputLoad`
/// of a D3D9 integer register and the lane of its value (a `CompositeExtract` of a constant
/// lane, or the scalar load itself), possibly gathered by a `CompositeConstruct`. The backends
/// read each as that uniform component, the register being uploaded converted to float.
pub fn int_register_lanes(m: &Module, d: SsaDef) -> Option<Vec<(SsaDef, usize)>> {
    let x = Arith::of(m.op(d)).a()?;
    let lane_of = |x: SsaDef| -> Option<(SsaDef, usize)> {
        let xop = m.op(x);
        let (load, lane) = match xop.opcode {
            OpCode::CompositeExtract => {
                let ce = CompositeExtract::of(xop);
                (ce.composite()?, const_index(m, ce.address())?)
            }
            _ => (x, 0),
        };
        (m.opcode(load) == OpCode::InputLoad).then_some((load, lane as usize))
    };
    let xop = m.op(x);
    if xop.opcode == OpCode::CompositeConstruct {
        CompositeConstruct::of(xop)
            .members()
            .iter()
            .map(|o| o.as_ref().and_then(lane_of))
            .collect()
    } else {
        lane_of(x).map(|l| vec![l])
    }
}

/// One lane of a constant: its IR scalar type and its value as `f32` (booleans 0/1, integers
/// by value, f64 rounded, f16/min16 exactly).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConstantLane {
    pub ty: ScalarType,
    pub value: f32,
}

/// The flattened lanes of the `Constant` or `Undef` op `d` (an `Undef` reads as zeros), or
/// the reason it cannot be read (unbounded, more than `max_lanes` lanes, a type without a
/// float value).
pub fn constant_lanes(m: &Module, d: SsaDef, max_lanes: u64) -> Result<Vec<ConstantLane>, String> {
    let op = m.op(d);
    let n = flat_size(&op.ty).ok_or("constant of unbounded type")?;
    if n > max_lanes {
        return Err(format!("constant wider than {max_lanes} components"));
    }
    let mut types: Vec<ScalarType> = Vec::with_capacity(n as usize);
    for _ in 0..op.ty.array_dims().iter().product::<u32>().max(1) {
        for member in op.ty.members() {
            for _ in 0..member.vec_size() {
                types.push(member.scalar_type());
            }
        }
    }
    if op.opcode == OpCode::Undef {
        return Ok(types
            .into_iter()
            .map(|ty| ConstantLane { ty, value: 0.0 })
            .collect());
    }
    let bits: Vec<u64> = op.literals().collect();
    types
        .into_iter()
        .enumerate()
        .map(|(i, ty)| {
            let b = bits.get(i).copied().unwrap_or(0);
            let value = match ty {
                ScalarType::Bool => f32::from(u8::from(b != 0)),
                ScalarType::F32 => f32::from_bits(b as u32),
                ScalarType::F64 => f64::from_bits(b) as f32,
                ScalarType::F16 | ScalarType::MinF16 => half::f16::from_bits(b as u16).to_f32(),
                t if t.is_signed_int() => b as i32 as f32,
                t if t.is_int() => b as u32 as f32,
                t => return Err(format!("constant of type {t:?}")),
            };
            Ok(ConstantLane { ty, value })
        })
        .collect()
}

/// The binding of the resource a `DescriptorLoad` `d` reads (its declaration's space and
/// register plus a constant index) and the declaration, which must have opcode `want`; or the
/// reason it cannot be resolved statically.
pub fn descriptor_binding(
    m: &Module,
    d: SsaDef,
    want: OpCode,
) -> Result<(ResourceBinding, SsaDef), &'static str> {
    let load = m.op(d);
    if load.opcode != OpCode::DescriptorLoad {
        return Err("resource not from a descriptor load");
    }
    let load = DescriptorLoad::of(load);
    let decl = load.decl().ok_or("no declaration")?;
    let dop = m.op(decl);
    if dop.opcode != want {
        return Err("unexpected descriptor kind");
    }
    let binding = DclBinding::of(dop);
    let index = const_index(m, load.index()).ok_or("dynamically indexed descriptor")?;
    Ok((
        ResourceBinding {
            space: binding.space().unwrap_or(0) as u32,
            register: (binding.register().unwrap_or(0) + index) as u32,
        },
        decl,
    ))
}

/// What every sampling backend needs to know of an `ImageSample` before lowering it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleShape {
    /// The texture's binding and declaration (`DclSrv`).
    pub texture: ResourceBinding,
    pub texture_decl: SsaDef,
    /// The sampler's binding (`DclSampler`).
    pub sampler: ResourceBinding,
    /// 2D or cube.
    pub kind: SamplerKind,
    /// Coordinates the kind reads (2 or 3).
    pub coords: usize,
}

/// The shape of the `ImageSample` `d`: a 2D or cube texture and sampler bound statically, a
/// vec4 result, and none of array layers, texel offsets, LOD clamps, explicit gradients or
/// depth comparison (which no irc target samples with); or the reason it is not one.
pub fn sample_shape(m: &Module, d: SsaDef) -> Result<SampleShape, String> {
    let op = m.op(d);
    let sample = ImageSample::of(op);
    let tex = sample.descriptor().ok_or("no texture")?;
    let smp = sample.sampler().ok_or("no sampler")?;
    let (texture, texture_decl) = descriptor_binding(m, tex, OpCode::DclSrv)?;
    let (sampler, _) = descriptor_binding(m, smp, OpCode::DclSampler)?;
    let kind = DclBinding::of(m.op(texture_decl))
        .kind()
        .and_then(ResourceKind::from_u64)
        .ok_or("unknown resource kind")?;
    let (kind, coords) = match kind {
        ResourceKind::Image2D => (SamplerKind::D2, 2),
        ResourceKind::ImageCube => (SamplerKind::Cube, 3),
        k => return Err(format!("sampling {k:?} images")),
    };
    for (operand, what) in [
        (sample.layer(), "array layer"),
        (sample.offset(), "texel offset"),
        (sample.lod_clamp(), "LOD clamp"),
        (sample.dx(), "explicit gradients"),
        (sample.dy(), "explicit gradients"),
        (sample.depth_compare(), "depth comparison"),
    ] {
        if operand.is_some() {
            return Err(format!("sampling with {what}"));
        }
    }
    if flat_size(&op.ty) != Some(4) {
        return Err("sparse or non-vec4 sample result".into());
    }
    Ok(SampleShape {
        texture,
        texture_decl,
        sampler,
        kind,
        coords,
    })
}
