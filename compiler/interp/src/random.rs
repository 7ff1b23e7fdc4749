//! Deterministic random inputs: [`ShaderInputs::random`] fills every declared input, constant
//! buffer, push-data block, resource and sampler of a module from a seed (SplitMix64).
//!
//! Value choices: floats are multiples of 1/64 in [−2, 2] (so they are exact in f16 too), with
//! 1 in 8 being exactly 0 and 1 in 8 exactly 1; integers are in 0..8; bools are fair. Untyped
//! (`?`) dwords in constant/push/raw buffers are floats with probability 3/4, else small
//! integers. Pixel-shader inputs are a plane over the quad (`v + x·dx + y·dy`), so derivatives
//! are meaningful; flat (integer, bool) inputs are the same in all four lanes. `Position` in a
//! pixel shader is the fragment coordinate `(px + x + 0.5, py + y + 0.5, z, w)`. Images are
//! 4×4 (3 mips; 3D 4×4×4; arrays 2 layers; cubes 6 faces) with texels in [0, 1] for float
//! resources; buffers have 64 dwords (structured: 16 elements); typed buffers 16 texels.
//! `GsVertexCountIn` is the vertex count of the `SetGsInputPrimitive` primitive (points 1,
//! lines 2, triangles 3, adjacency 4/6, patches n), not random.

use crate::inputs::*;
use crate::value::{build_value, Scalar, Value};
use irc_ir::format::{DclBinding, DclPushData, DclUavCounter, SetPrimitive};
use irc_ir::{BuiltIn, Module, OpCode, PrimitiveType, ResourceKind, ScalarType, ShaderStage, Type};

/// SplitMix64.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5eed_1234_abcd_ef01)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// A "reasonable" float: k/64 in [−2, 2], often exactly 0 or 1.
    pub fn float(&mut self) -> f32 {
        match self.below(8) {
            0 => 0.0,
            1 => 1.0,
            _ => (self.below(257) as f32 - 128.0) / 64.0,
        }
    }
    pub fn scalar(&mut self, t: ScalarType) -> Scalar {
        let t = crate::value::effective(t);
        match t {
            ScalarType::Bool => Scalar::Bool(self.below(2) == 1),
            t if t.is_float() => crate::float::from_f64(self.float() as f64, t),
            t if t.is_int() => Scalar::from_bits(t, self.below(8)),
            _ => self.untyped(),
        }
    }
    /// An untyped dword: usually float bits, sometimes a small integer.
    pub fn untyped(&mut self) -> Scalar {
        if self.below(4) == 0 {
            Scalar::Unknown(self.below(8) as u32)
        } else {
            Scalar::Unknown(self.float().to_bits())
        }
    }
}

fn random_value(rng: &mut Rng, ty: &Type) -> Value {
    build_value(ty, 4, &mut |t| rng.scalar(t))
}

/// Dwords for a byte-addressed object of type `ty` (untyped members get mixed values).
fn random_dwords(rng: &mut Rng, ty: &Type, unbounded: u32) -> Vec<u32> {
    let v = build_value(ty, unbounded, &mut |t| rng.scalar(t));
    let size = crate::access::type_size(ty).max(4) as usize;
    let n = match ty.array_dims().last() {
        Some(0) => size * unbounded as usize,
        _ => size,
    };
    let mut bytes = vec![0u8; n];
    crate::access::write_value(&mut bytes, crate::access::ByteAddr::At(0), &v);
    crate::access::bytes_to_dwords(&bytes)
}

fn texel(rng: &mut Rng, t: ScalarType) -> [u32; 4] {
    std::array::from_fn(|_| {
        let t = crate::value::effective(t);
        if t.is_int() {
            rng.below(8) as u32
        } else {
            (rng.below(65) as f32 / 64.0).to_bits()
        }
    })
}

fn random_resource(rng: &mut Rng, kind: ResourceKind, ty: &Type) -> Resource {
    let st = ty
        .members()
        .first()
        .map_or(ScalarType::F32, |b| b.scalar_type());
    let img = |rng: &mut Rng, dim, size, mips| {
        Image::from_fn(dim, size, mips, |_, _, _, _, _| texel(rng, st))
    };
    match kind {
        ResourceKind::BufferRaw | ResourceKind::BufferStructured => {
            Resource::Buffer(random_dwords(
                rng,
                ty,
                if kind == ResourceKind::BufferRaw {
                    64
                } else {
                    16
                },
            ))
        }
        ResourceKind::BufferTyped => Resource::Image(img(rng, ImageDim::Buffer, (16, 1, 1, 1), 1)),
        ResourceKind::Image1D => Resource::Image(img(rng, ImageDim::D1, (4, 1, 1, 1), 3)),
        ResourceKind::Image1DArray => Resource::Image(img(rng, ImageDim::D1, (4, 1, 1, 2), 3)),
        ResourceKind::Image2D | ResourceKind::Image2DMS => {
            Resource::Image(img(rng, ImageDim::D2, (4, 4, 1, 1), 3))
        }
        ResourceKind::Image2DArray | ResourceKind::Image2DMSArray => {
            Resource::Image(img(rng, ImageDim::D2, (4, 4, 1, 2), 3))
        }
        ResourceKind::ImageCube => Resource::Image(img(rng, ImageDim::Cube, (4, 4, 1, 6), 3)),
        ResourceKind::ImageCubeArray => Resource::Image(img(rng, ImageDim::Cube, (4, 4, 1, 12), 3)),
        ResourceKind::Image3D => Resource::Image(img(rng, ImageDim::D3, (4, 4, 4, 1), 3)),
    }
}

fn descriptor_count(op: &irc_ir::Op) -> u32 {
    match DclBinding::of(op).count().unwrap_or(1) {
        0 => 4,
        n => n.min(16) as u32,
    }
}

impl ShaderInputs {
    /// Random inputs for every declaration of `module`, deterministic in `seed`.
    pub fn random(module: &Module, seed: u64) -> ShaderInputs {
        let mut rng = Rng::new(seed);
        let mut inp = ShaderInputs::default();
        let stage = module
            .declarations()
            .find(|&d| module.op(d).opcode == OpCode::EntryPoint)
            .and_then(|d| module.op(d).operands.last().and_then(|o| o.as_lit()))
            .map_or(ShaderStage::Vertex, |v| ShaderStage(v as u32));
        let lanes = if stage == ShaderStage::Pixel { 4 } else { 1 };
        inp.invocations = vec![InvocationInputs::default(); lanes];
        let (px, py) = (rng.below(64) as f32, rng.below(64) as f32);
        let mut gs_vertices = None;
        for d in module.declarations() {
            let op = module.op(d);
            if crate::access::type_size(&op.ty) > crate::exec::MAX_DECLARATION_BYTES {
                continue; // the run traps on it; no values for it
            }
            match op.opcode {
                OpCode::DclInput | OpCode::DclInputBuiltIn => {
                    let Some(slot) = crate::exec::io_slot(op) else {
                        continue;
                    };
                    let base = random_value(&mut rng, &op.ty);
                    let is_pos = slot == IoSlot::builtin(BuiltIn::Position);
                    if lanes == 4 {
                        let dx = random_value(&mut rng, &op.ty);
                        let dy = random_value(&mut rng, &op.ty);
                        for (l, inv) in inp.invocations.iter_mut().enumerate() {
                            let (x, y) = ((l & 1) as f64, (l >> 1) as f64);
                            let mut v = plane(&base, &dx, &dy, x, y);
                            if is_pos {
                                let z = rng.float().abs() / 2.0;
                                v = Value::f32s(&[
                                    px + x as f32 + 0.5,
                                    py + y as f32 + 0.5,
                                    z,
                                    1.0,
                                ]);
                            }
                            inv.io.insert(slot, v);
                        }
                    } else {
                        inp.invocations[0].io.insert(slot, base);
                    }
                }
                OpCode::DclCbv => {
                    for i in 0..descriptor_count(op) {
                        let b = binding(op, i);
                        inp.cbvs.insert(b, random_dwords(&mut rng, &op.ty, 1));
                    }
                }
                OpCode::DclSrv | OpCode::DclUav => {
                    let kind = DclBinding::of(op)
                        .kind()
                        .and_then(ResourceKind::from_u64)
                        .unwrap_or(ResourceKind::BufferRaw);
                    for i in 0..descriptor_count(op) {
                        let r = random_resource(&mut rng, kind, &op.ty);
                        if op.opcode == OpCode::DclSrv {
                            inp.srvs.insert(binding(op, i), r);
                        } else {
                            inp.uavs.insert(binding(op, i), r);
                        }
                    }
                }
                OpCode::DclUavCounter => {
                    if let Some(u) = DclUavCounter::of(op).uav().and_then(|u| module.get(u)) {
                        inp.uav_counters.insert(binding(u, 0), rng.below(8) as u32);
                    }
                }
                OpCode::DclSampler => {
                    for i in 0..descriptor_count(op) {
                        let mode = |r: &mut Rng| match r.below(4) {
                            0 => AddressMode::Wrap,
                            1 => AddressMode::Clamp,
                            2 => AddressMode::Mirror,
                            _ => AddressMode::Border,
                        };
                        let s = Sampler {
                            filter: if rng.below(2) == 0 {
                                Filter::Point
                            } else {
                                Filter::Linear
                            },
                            address: [mode(&mut rng), mode(&mut rng), mode(&mut rng)],
                            compare: CompareOp::LessEqual,
                            lod_bias: 0.0,
                        };
                        inp.samplers.insert(binding(op, i), s);
                    }
                }
                OpCode::DclPushData => {
                    let off = (DclPushData::of(op).offset().unwrap_or(0) / 4) as usize;
                    let words = random_dwords(&mut rng, &op.ty, 1);
                    if inp.push_data.len() < off + words.len() {
                        inp.push_data.resize(off + words.len(), 0);
                    }
                    inp.push_data[off..off + words.len()].copy_from_slice(&words);
                }
                OpCode::SetGsInputPrimitive => {
                    gs_vertices = SetPrimitive::of(op)
                        .primitive()
                        .and_then(PrimitiveType::from_u64)
                        .map(|p| match p {
                            PrimitiveType::Points => 1,
                            PrimitiveType::Lines => 2,
                            PrimitiveType::LinesAdj | PrimitiveType::Quads => 4,
                            PrimitiveType::Triangles => 3,
                            PrimitiveType::TrianglesAdj => 6,
                            PrimitiveType::Patch(n) => u32::from(n),
                        });
                }
                _ => {}
            }
        }
        // `GsVertexCountIn` is not free data: it is the vertex count of the declared input
        // primitive (the raw IR guards vertex reads with it; legalization may fold it).
        if let Some(n) = gs_vertices {
            let slot = IoSlot::builtin(BuiltIn::GsVertexCountIn);
            for inv in &mut inp.invocations {
                if let Some(v) = inv.io.get_mut(&slot) {
                    *v = Value::Scalar(Scalar::U32(n));
                }
            }
        }
        inp
    }
}

fn binding(op: &irc_ir::Op, i: u32) -> Binding {
    Binding {
        space: DclBinding::of(op).space().unwrap_or(0) as u32,
        register: (DclBinding::of(op).register().unwrap_or(0) as u32).wrapping_add(i),
    }
}

/// `base + x·dx + y·dy` for float scalars (rounded to their type); other scalars stay `base`.
fn plane(base: &Value, dx: &Value, dy: &Value, x: f64, y: f64) -> Value {
    match (base, dx, dy) {
        (Value::Scalar(b), Value::Scalar(a), Value::Scalar(c)) => {
            Value::Scalar(plane_s(*b, *a, *c, x, y))
        }
        (Value::Vector(b), Value::Vector(a), Value::Vector(c)) => Value::Vector(
            b.iter()
                .zip(a)
                .zip(c)
                .map(|((b, a), c)| plane_s(*b, *a, *c, x, y))
                .collect(),
        ),
        (Value::Composite(b), Value::Composite(a), Value::Composite(c)) => Value::Composite(
            b.iter()
                .zip(a)
                .zip(c)
                .map(|((b, a), c)| plane(b, a, c, x, y))
                .collect(),
        ),
        _ => base.clone(),
    }
}

fn plane_s(b: Scalar, dx: Scalar, dy: Scalar, x: f64, y: f64) -> Scalar {
    let t = b.ty();
    if !t.is_float() {
        return b;
    }
    let f = |s: Scalar| crate::float::to_f64(s, t);
    crate::float::from_f64(f(b) + x * f(dx) / 4.0 + y * f(dy) / 4.0, t)
}
