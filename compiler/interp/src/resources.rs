//! Resource and memory ops: descriptors, constant/raw/structured/typed buffers, push data,
//! scratch, LDS, atomics, image load/store/query/gather, spec constants, GS emission.
//!
//! A resource is found through its descriptor: `(space, register + index)` of the declaration.
//! Whether a buffer op takes the byte path (raw, structured, constant buffers; layout of the
//! declared type, see [`crate::access`]) or the texel path (typed buffers: the address is the
//! element index, a texel is four dwords) depends on the bound [`Resource`]. Missing resources
//! act as null descriptors. Helper (demoted) lanes do not write UAVs.

use crate::access::{
    byte_offset, bytes_to_dwords, dwords_to_bytes, read_scalar, read_typed, type_size,
    write_scalar, write_value, ByteAddr,
};
use crate::exec::Interp;
use crate::inputs::{Binding, GsVertex, Image, ImageDim, Outputs, Resource, Sampler};
use crate::ops::{result_len, rt};
use crate::trap::Trap;
use crate::value::{
    build_value, effective, zero_value, Descriptor, DescriptorClass, Scalar, Value,
};
use irc_ir::format::{
    AlignedLoad, AlignedStore, Atomic, CounterAtomic, DclBinding, DclInputTarget, DclPushData,
    DclSpecConstant, DclUavCounter, DescriptorLoad, Emit, ImageAtomic, ImageGather, ImageLoad,
    ImageQuerySize, ImageStore, Load, Query, Store,
};
use irc_ir::{AtomicOp, Module, OpCode, OpFlags, ScalarType, SsaDef, Type};

/// Copies the byte-addressed resources of the inputs into run memory.
pub(crate) fn init_memory(it: &mut Interp) -> Result<(), Trap> {
    let inp = it.inputs;
    for (b, d) in &inp.cbvs {
        it.mem.cbv.insert(*b, dwords_to_bytes(d));
    }
    for (b, r) in &inp.srvs {
        if let Resource::Buffer(d) = r {
            it.mem.srv_buf.insert(*b, dwords_to_bytes(d));
        }
    }
    for (b, r) in &inp.uavs {
        match r {
            Resource::Buffer(d) => {
                it.mem.uav_buf.insert(*b, dwords_to_bytes(d));
            }
            Resource::Image(i) => {
                it.mem.uav_img.insert(*b, i.clone());
            }
        }
    }
    it.mem.counters = inp.uav_counters.iter().map(|(k, v)| (*k, *v)).collect();
    it.mem.push = dwords_to_bytes(&inp.push_data);
    for d in it.p.m.declarations() {
        let op = it.p.m.op(d);
        if op.opcode == OpCode::DclLds {
            it.mem.lds.insert(d, vec![0u8; type_size(&op.ty) as usize]);
        }
    }
    Ok(())
}

/// Final UAV contents.
pub(crate) fn collect_uavs(mem: &crate::exec::Memory, _m: &Module, out: &mut Outputs) {
    for (b, bytes) in &mem.uav_buf {
        out.uavs
            .insert(*b, Resource::Buffer(bytes_to_dwords(bytes)));
    }
    for (b, img) in &mem.uav_img {
        out.uavs.insert(*b, Resource::Image(img.clone()));
    }
    out.uav_counters = mem.counters.iter().map(|(k, v)| (*k, *v)).collect();
}

/// The value of a `DclSpecConstant`.
pub(crate) fn spec_constant(it: &Interp, d: SsaDef) -> Value {
    let op = it.p.m.op(d);
    let spec = DclSpecConstant::of(op);
    let id = spec.spec_id().unwrap_or(0) as u32;
    let mut k = 0u32;
    build_value(&op.ty, 1, &mut |t| {
        let bits = it
            .inputs
            .spec_constants
            .get(&(id + k))
            .copied()
            .or_else(|| spec.default().get(k as usize).and_then(|o| o.as_lit()))
            .unwrap_or(0);
        k += 1;
        Scalar::from_bits(t, bits)
    })
}

fn binding(op: &irc_ir::Op, index: u32) -> Binding {
    let (space, register) = match (DclBinding::try_of(op), DclInputTarget::try_of(op)) {
        (Some(b), _) => (b.space(), b.register()),
        (None, Some(t)) => (t.space(), t.register()),
        (None, None) => (None, None),
    };
    Binding {
        space: space.unwrap_or(0) as u32,
        register: (register.unwrap_or(0) as u32).wrapping_add(index),
    }
}

/// `DescriptorLoad`.
pub(crate) fn descriptor_load(it: &Interp, l: usize, d: SsaDef) -> Result<Value, Trap> {
    let m = it.p.m;
    let load = DescriptorLoad::of(m.op(d));
    let dcl = load
        .decl()
        .ok_or_else(|| Trap::bad(d, "DescriptorLoad without declaration"))?;
    let class = match m.op(dcl).opcode {
        OpCode::DclSampler => DescriptorClass::Sampler,
        OpCode::DclCbv => DescriptorClass::Cbv,
        OpCode::DclSrv => DescriptorClass::Srv,
        OpCode::DclUav => DescriptorClass::Uav,
        OpCode::DclUavCounter => DescriptorClass::UavCounter,
        OpCode::DclInputTarget => DescriptorClass::InputTarget,
        _ => return Err(Trap::bad(d, "DescriptorLoad of a non-resource declaration")),
    };
    let index = match it.opt_arg(l, d, load.index())? {
        Some(v) => v.as_scalar().map_or(0, |s| s.bits() as u32),
        None => 0,
    };
    Ok(Value::Descriptor(Descriptor {
        class,
        decl: dcl,
        index,
    }))
}

fn descriptor(it: &Interp, l: usize, d: SsaDef, a: Option<SsaDef>) -> Result<Descriptor, Trap> {
    match it.arg(l, d, a)? {
        Value::Descriptor(desc) if it.p.m.get(desc.decl).is_some() => Ok(desc),
        _ => Err(Trap::bad(d, "operand is not a descriptor")),
    }
}

/// The binding a descriptor refers to (UAV counters: their UAV's binding).
fn desc_binding(it: &Interp, desc: Descriptor) -> Binding {
    let op = it.p.m.op(desc.decl);
    if op.opcode == OpCode::DclUavCounter {
        if let Some(u) = DclUavCounter::of(op).uav() {
            return binding(it.p.m.op(u), desc.index);
        }
    }
    binding(op, desc.index)
}

enum Target<'a> {
    Bytes(&'a [u8]),
    Texels(&'a Image),
    Null,
}

fn target<'a>(it: &'a Interp, desc: Descriptor) -> Target<'a> {
    let b = desc_binding(it, desc);
    let found = match desc.class {
        DescriptorClass::Cbv => it.mem.cbv.get(&b).map(|v| Target::Bytes(v)),
        DescriptorClass::Srv => match it.inputs.srvs.get(&b) {
            Some(Resource::Image(i)) => Some(Target::Texels(i)),
            Some(Resource::Buffer(_)) => it.mem.srv_buf.get(&b).map(|v| Target::Bytes(v)),
            None => None,
        },
        DescriptorClass::Uav => it
            .mem
            .uav_buf
            .get(&b)
            .map(|v| Target::Bytes(v))
            .or_else(|| it.mem.uav_img.get(&b).map(Target::Texels)),
        _ => None,
    };
    found.unwrap_or(Target::Null)
}

/// The declared element scalar type of a typed resource (`?` counts as u32).
fn decl_scalar(it: &Interp, desc: Descriptor) -> ScalarType {
    match effective(
        it.p.m
            .ty(desc.decl)
            .members()
            .first()
            .map_or(ScalarType::U32, |b| b.scalar_type()),
    ) {
        ScalarType::Unknown => ScalarType::U32,
        t => t,
    }
}

/// Texel dwords → `n` scalars of type `to`, read as the declared type `decl`.
fn texel_value(t: [u32; 4], decl: ScalarType, to: ScalarType, n: usize) -> Value {
    Value::from_components(
        (0..n.min(4))
            .map(|k| {
                let s = Scalar::from_bits(decl, t[k] as u64);
                let to = effective(to);
                if s.ty().is_float() && to.is_float() && s.ty() != to {
                    crate::convert::f_to_f(s, to)
                } else {
                    Scalar::from_bits(to, s.bits())
                }
            })
            .collect(),
    )
}

/// Wraps a loaded value in a sparse-feedback struct if the op asks for one.
fn sparse(op: &irc_ir::Op, v: Value) -> Value {
    if op.flags.contains(OpFlags::SPARSE_FEEDBACK) {
        Value::Composite(vec![Value::u32(0), v])
    } else {
        v
    }
}

/// The type actually loaded (member 1 of a sparse-feedback struct).
fn load_type(op: &irc_ir::Op) -> Type {
    if op.flags.contains(OpFlags::SPARSE_FEEDBACK) && op.ty.members().len() == 2 {
        Type::basic(op.ty.members()[1])
    } else {
        op.ty.clone()
    }
}

fn offset(it: &Interp, d: SsaDef, ty: &Type, addr: &[u64]) -> Result<ByteAddr, Trap> {
    let _ = it;
    byte_offset(ty, addr).map_err(|e| Trap::bad(d, e))
}

/// `BufferLoad`, `BufferStore`, `BufferQuerySize`, `BufferAtomic`.
pub(crate) fn buffer_op(it: &mut Interp, l: usize, d: SsaDef) -> Result<Value, Trap> {
    let m = it.p.m;
    let op = m.op(d);
    // (descriptor, address, value) by format.
    let (base, address, value) = match op.opcode {
        OpCode::BufferLoad => (
            AlignedLoad::of(op).base(),
            AlignedLoad::of(op).address(),
            None,
        ),
        OpCode::BufferStore => {
            let s = AlignedStore::of(op);
            (s.base(), s.address(), s.value())
        }
        OpCode::BufferQuerySize => (Query::of(op).descriptor(), None, None),
        _ => {
            let a = Atomic::of(op);
            (a.base(), a.address(), a.value())
        }
    };
    let desc = descriptor(it, l, d, base)?;
    let dty = m.ty(desc.decl).clone();
    match op.opcode {
        OpCode::BufferLoad => {
            let addr = it.address(l, d, address)?;
            let lty = load_type(op);
            let v = match target(it, desc) {
                Target::Bytes(b) => read_typed(b, offset(it, d, &dty, &addr)?, &lty),
                Target::Texels(img) => {
                    let n = lty.as_basic().map_or(1, |b| b.vec_size() as usize);
                    let t = img
                        .texel(0, 0, addr.first().copied().unwrap_or(0) as i64, 0, 0)
                        .unwrap_or([0; 4]);
                    texel_value(
                        t,
                        decl_scalar(it, desc),
                        lty.members()
                            .first()
                            .map_or(ScalarType::U32, |b| b.scalar_type()),
                        n,
                    )
                }
                Target::Null => zero_value(&lty),
            };
            Ok(sparse(op, v))
        }
        OpCode::BufferStore => {
            let addr = it.address(l, d, address)?;
            let v = it.arg(l, d, value)?;
            if it.lanes[l].demoted || desc.class != DescriptorClass::Uav {
                return Ok(Value::Void);
            }
            let b = desc_binding(it, desc);
            let off = offset(it, d, &dty, &addr)?;
            if let Some(bytes) = it.mem.uav_buf.get_mut(&b) {
                write_value(bytes, off, &v);
            } else if let Some(img) = it.mem.uav_img.get_mut(&b) {
                let c = v.components().unwrap_or_default();
                if let Some(t) =
                    img.texel_mut(0, 0, addr.first().copied().unwrap_or(0) as i64, 0, 0)
                {
                    for (k, s) in c.iter().enumerate().take(4) {
                        t[k] = s.bits() as u32;
                    }
                }
            }
            Ok(Value::Void)
        }
        OpCode::BufferQuerySize => {
            let n = match target(it, desc) {
                Target::Bytes(b) => {
                    let elem = dty.element_type().unwrap_or_else(|| dty.clone());
                    (b.len() as u64 / type_size(&elem).max(1)) as u32
                }
                Target::Texels(img) => img.width,
                Target::Null => 0,
            };
            Ok(Value::u32(n))
        }
        OpCode::BufferAtomic => {
            let addr = it.address(l, d, address)?;
            let operand = it.opt_arg(l, d, value)?;
            let aop = atomic_kind(op, d)?;
            let t = effective(rt(op));
            let t = if t.is_int() { t } else { ScalarType::U32 };
            let b = desc_binding(it, desc);
            let off = offset(it, d, &dty, &addr)?;
            let helper = it.lanes[l].demoted;
            if let (Some(bytes), ByteAddr::At(o)) = (it.mem.uav_buf.get_mut(&b), off) {
                let old = read_scalar(bytes, o, t);
                let (new, ret) = atomic(old, operand.as_ref(), aop);
                if let (Some(n), false) = (new, helper) {
                    write_scalar(bytes, o, n);
                }
                return Ok(if op.has_result() {
                    Value::Scalar(ret)
                } else {
                    Value::Void
                });
            }
            if let Some(img) = it.mem.uav_img.get_mut(&b) {
                if let Some(tx) =
                    img.texel_mut(0, 0, addr.first().copied().unwrap_or(0) as i64, 0, 0)
                {
                    let old = Scalar::from_bits(t, tx[0] as u64);
                    let (new, ret) = atomic(old, operand.as_ref(), aop);
                    if let (Some(n), false) = (new, helper) {
                        tx[0] = n.bits() as u32;
                    }
                    return Ok(if op.has_result() {
                        Value::Scalar(ret)
                    } else {
                        Value::Void
                    });
                }
            }
            Ok(if op.has_result() {
                zero_value(&op.ty)
            } else {
                Value::Void
            })
        }
        _ => Err(Trap::bad(d, "not a buffer op")),
    }
}

fn atomic_kind(op: &irc_ir::Op, d: SsaDef) -> Result<AtomicOp, Trap> {
    op.operands
        .last()
        .and_then(|o| o.as_lit())
        .and_then(AtomicOp::from_u64)
        .ok_or_else(|| Trap::bad(d, "bad atomic op"))
}

/// One atomic read-modify-write: (value to store, value returned).
pub(crate) fn atomic(
    old: Scalar,
    operand: Option<&Value>,
    op: AtomicOp,
) -> (Option<Scalar>, Scalar) {
    let t = old.ty();
    let c = operand.and_then(|v| v.components()).unwrap_or_default();
    let a = c.first().map_or(0, |s| s.bits());
    let args = |o: OpCode, b: u64| crate::int::int_op(o, t, &[old, Scalar::from_bits(t, b)]);
    let new = match op {
        AtomicOp::Load => None,
        AtomicOp::Store | AtomicOp::Exchange => Some(Scalar::from_bits(t, a)),
        AtomicOp::CompareExchange => {
            let cmp = a;
            let val = c.get(1).map_or(0, |s| s.bits());
            let m = crate::value::mask(crate::value::bit_width(t));
            ((old.bits() & m) == (cmp & m)).then(|| Scalar::from_bits(t, val))
        }
        AtomicOp::Add => args(OpCode::IAdd, a),
        AtomicOp::Sub => args(OpCode::ISub, a),
        AtomicOp::SMin => args(OpCode::SMin, a),
        AtomicOp::SMax => args(OpCode::SMax, a),
        AtomicOp::UMin => args(OpCode::UMin, a),
        AtomicOp::UMax => args(OpCode::UMax, a),
        AtomicOp::And => args(OpCode::IAnd, a),
        AtomicOp::Or => args(OpCode::IOr, a),
        AtomicOp::Xor => args(OpCode::IXor, a),
        AtomicOp::Inc => args(OpCode::IAdd, 1),
        AtomicOp::Dec => args(OpCode::ISub, 1),
    };
    (new, old)
}

/// `LdsAtomic`, `CounterAtomic`, `ImageAtomic`.
pub(crate) fn atomic_op(it: &mut Interp, l: usize, d: SsaDef) -> Result<Value, Trap> {
    let m = it.p.m;
    let op = m.op(d);
    let aop = atomic_kind(op, d)?;
    let t = effective(rt(op));
    let t = if t.is_int() { t } else { ScalarType::U32 };
    let helper = it.lanes[l].demoted;
    let ret = match op.opcode {
        OpCode::LdsAtomic => {
            let view = Atomic::of(op);
            let lds = view
                .base()
                .ok_or_else(|| Trap::bad(d, "LdsAtomic without LDS"))?;
            let addr = it.address(l, d, view.address())?;
            let operand = it.opt_arg(l, d, view.value())?;
            let off = offset(it, d, m.ty(lds), &addr)?;
            let bytes = it
                .mem
                .lds
                .get_mut(&lds)
                .ok_or_else(|| Trap::bad(d, "not an LDS declaration"))?;
            match off {
                ByteAddr::At(o) => {
                    let old = read_scalar(bytes, o, t);
                    let (new, ret) = atomic(old, operand.as_ref(), aop);
                    if let Some(n) = new {
                        write_scalar(bytes, o, n);
                    }
                    ret
                }
                ByteAddr::OutOfRange => Scalar::zero(t),
            }
        }
        OpCode::CounterAtomic => {
            let desc = descriptor(it, l, d, CounterAtomic::of(op).counter())?;
            let b = desc_binding(it, desc);
            let c = it.mem.counters.entry(b).or_insert(0);
            let old = *c;
            if !helper {
                match aop {
                    AtomicOp::Inc => *c = c.wrapping_add(1),
                    AtomicOp::Dec => *c = c.wrapping_sub(1),
                    _ => {}
                }
            }
            // D3D: imm_atomic_consume returns the decremented value.
            Scalar::from_bits(
                t,
                if aop == AtomicOp::Dec {
                    old.wrapping_sub(1)
                } else {
                    old
                } as u64,
            )
        }
        _ => {
            let view = ImageAtomic::of(op);
            let desc = descriptor(it, l, d, view.descriptor())?;
            let layer = it
                .opt_arg(l, d, view.layer())?
                .and_then(|v| v.as_scalar())
                .map_or(0, |s| s.bits() as u32);
            let coord = it.comps(l, d, view.coord())?;
            let operand = it.opt_arg(l, d, view.value())?;
            let b = desc_binding(it, desc);
            let xyz = coords_i(&coord);
            match it
                .mem
                .uav_img
                .get_mut(&b)
                .and_then(|img| img.texel_mut(0, layer, xyz[0], xyz[1], xyz[2]))
            {
                Some(tx) => {
                    let old = Scalar::from_bits(t, tx[0] as u64);
                    let (new, ret) = atomic(old, operand.as_ref(), aop);
                    if let (Some(n), false) = (new, helper) {
                        tx[0] = n.bits() as u32;
                    }
                    ret
                }
                None => Scalar::zero(t),
            }
        }
    };
    Ok(if op.has_result() {
        Value::Scalar(ret)
    } else {
        Value::Void
    })
}

fn coords_i(c: &[Scalar]) -> [i64; 3] {
    let mut r = [0i64; 3];
    for (k, s) in c.iter().take(3).enumerate() {
        r[k] = s.sext_bits() as i64;
    }
    r
}

/// `ScratchLoad`/`ScratchStore`, `LdsLoad`/`LdsStore`, `PushDataLoad`.
pub(crate) fn local_memory(it: &mut Interp, l: usize, d: SsaDef) -> Result<Value, Trap> {
    let m = it.p.m;
    let op = m.op(d);
    let (var, address, value) = match Store::try_of(op) {
        Some(s) => (s.base(), s.address(), Some(s.value())),
        None => (Load::of(op).base(), Load::of(op).address(), None),
    };
    let var = var.ok_or_else(|| Trap::bad(d, "memory op without variable"))?;
    let addr = it.address(l, d, address)?;
    let off = offset(it, d, m.ty(var), &addr)?;
    let value = match value {
        Some(v) => Some(it.arg(l, d, v)?),
        None => None,
    };
    let bytes: &mut Vec<u8> = match op.opcode {
        OpCode::ScratchLoad | OpCode::ScratchStore => it.lanes[l].scratch.get_mut(&var),
        OpCode::LdsLoad | OpCode::LdsStore => it.mem.lds.get_mut(&var),
        _ => {
            let base = DclPushData::of(m.op(var)).offset().unwrap_or(0) as usize;
            let b = it.mem.push.get(base..).unwrap_or(&[]);
            return Ok(read_typed(b, off, &op.ty));
        }
    }
    .ok_or_else(|| Trap::bad(d, "memory op on the wrong kind of declaration"))?;
    match value {
        Some(v) => {
            write_value(bytes, off, &v);
            Ok(Value::Void)
        }
        None => Ok(read_typed(bytes, off, &op.ty)),
    }
}

/// The image and sampler behind operands.
pub(crate) fn image<'a>(it: &'a Interp, desc: Descriptor) -> Option<&'a Image> {
    match target(it, desc) {
        Target::Texels(i) => Some(i),
        _ => None,
    }
}

pub(crate) fn sampler(
    it: &Interp,
    l: usize,
    d: SsaDef,
    a: Option<SsaDef>,
) -> Result<Sampler, Trap> {
    let desc = descriptor(it, l, d, a)?;
    Ok(it
        .inputs
        .samplers
        .get(&desc_binding(it, desc))
        .copied()
        .unwrap_or_default())
}

/// `ImageLoad`, `ImageStore`, `ImageQuery*`, `ImageGather`.
pub(crate) fn image_op(it: &mut Interp, l: usize, d: SsaDef) -> Result<Value, Trap> {
    let m = it.p.m;
    let op = m.op(d);
    let descriptor_ref = match op.opcode {
        OpCode::ImageLoad => ImageLoad::of(op).descriptor(),
        OpCode::ImageStore => ImageStore::of(op).descriptor(),
        OpCode::ImageQuerySize => ImageQuerySize::of(op).descriptor(),
        OpCode::ImageGather => ImageGather::of(op).descriptor(),
        _ => Query::of(op).descriptor(),
    };
    let desc = descriptor(it, l, d, descriptor_ref)?;
    let scalar = |v: Option<Value>| v.and_then(|v| v.as_scalar()).map_or(0, |s| s.bits() as u32);
    match op.opcode {
        OpCode::ImageLoad => {
            let load = ImageLoad::of(op);
            let mip = scalar(it.opt_arg(l, d, load.mip())?);
            let layer = scalar(it.opt_arg(l, d, load.layer())?);
            let mut xyz = coords_i(&it.comps(l, d, load.coord())?);
            if let Some(o) = it.opt_arg(l, d, load.offset())? {
                let o = coords_i(&o.components().unwrap_or_default());
                (0..3).for_each(|k| xyz[k] = xyz[k].saturating_add(o[k]));
            }
            let lty = load_type(op);
            let v = match image(it, desc) {
                Some(img) => {
                    let t = img
                        .texel(mip, layer, xyz[0], xyz[1], xyz[2])
                        .unwrap_or([0; 4]);
                    texel_value(
                        t,
                        decl_scalar(it, desc),
                        lty.members()
                            .first()
                            .map_or(ScalarType::U32, |b| b.scalar_type()),
                        result_len_ty(&lty),
                    )
                }
                None => zero_value(&lty),
            };
            Ok(sparse(op, v))
        }
        OpCode::ImageStore => {
            let store = ImageStore::of(op);
            let layer = scalar(it.opt_arg(l, d, store.layer())?);
            let xyz = coords_i(&it.comps(l, d, store.coord())?);
            let v = it.comps(l, d, store.value())?;
            if it.lanes[l].demoted {
                return Ok(Value::Void);
            }
            let b = desc_binding(it, desc);
            if let Some(t) = it
                .mem
                .uav_img
                .get_mut(&b)
                .and_then(|img| img.texel_mut(0, layer, xyz[0], xyz[1], xyz[2]))
            {
                for (k, s) in v.iter().enumerate().take(4) {
                    t[k] = s.bits() as u32;
                }
            }
            Ok(Value::Void)
        }
        OpCode::ImageQuerySize => {
            let mip = scalar(it.opt_arg(l, d, ImageQuerySize::of(op).mip())?);
            let n = op.ty.members().first().map_or(1, |b| b.vec_size() as usize);
            let (size, layers) = match image(it, desc) {
                Some(img) if (mip as usize) < img.mips.len() => {
                    let (w, h, z) = img.mip_size(mip);
                    let layers = if img.dim == ImageDim::Cube {
                        img.layers / 6
                    } else {
                        img.layers
                    };
                    ([w, h, z], layers.max(1))
                }
                _ => ([0; 3], 0),
            };
            Ok(Value::Composite(vec![
                Value::u32s(&size[..n.min(3)]),
                Value::u32(layers),
            ]))
        }
        OpCode::ImageQueryMips => Ok(Value::u32(
            image(it, desc).map_or(0, |i| i.mips.len() as u32),
        )),
        OpCode::ImageQuerySamples => Ok(Value::u32(if image(it, desc).is_some() { 1 } else { 0 })),
        OpCode::ImageGather => {
            let gather = ImageGather::of(op);
            let s = sampler(it, l, d, gather.sampler())?;
            let layer = it
                .opt_arg(l, d, gather.layer())?
                .and_then(|v| v.as_scalar())
                .map_or(0.0, |s| crate::float::to_f64(s, s.ty()));
            let c = it.comps(l, d, gather.coord())?;
            let off = match it.opt_arg(l, d, gather.offset())? {
                Some(o) => {
                    let o = coords_i(&o.components().unwrap_or_default());
                    [o[0], o[1]]
                }
                None => [0, 0],
            };
            let dref = it
                .opt_arg(l, d, gather.depth_compare())?
                .and_then(|v| v.as_scalar())
                .map(|s| crate::float::to_f64(s, ScalarType::F32));
            let comp = gather.component().unwrap_or(0) as usize;
            let lty = load_type(op);
            let v = match image(it, desc) {
                Some(img) => {
                    let layer = layer_index(img, layer);
                    let t = crate::image::gather(img, &s, coords_f(&c), layer, off, comp, dref);
                    let decl = if dref.is_some() {
                        ScalarType::F32
                    } else {
                        decl_scalar(it, desc)
                    };
                    texel_value(
                        t,
                        decl,
                        lty.members()
                            .first()
                            .map_or(ScalarType::F32, |b| b.scalar_type()),
                        4,
                    )
                }
                None => zero_value(&lty),
            };
            Ok(sparse(op, v))
        }
        _ => Err(Trap::bad(d, "not an image op")),
    }
}

fn result_len_ty(t: &Type) -> usize {
    t.as_basic().map_or(1, |b| b.vec_size() as usize)
}

/// Float coordinates of a coordinate operand.
pub(crate) fn coords_f(c: &[Scalar]) -> [f64; 3] {
    let mut r = [0f64; 3];
    for (k, s) in c.iter().take(3).enumerate() {
        r[k] = crate::float::to_f64(*s, s.ty());
    }
    r
}

/// Array layer from a float layer coordinate: rounded to nearest, clamped.
pub(crate) fn layer_index(img: &Image, layer: f64) -> u32 {
    let n = if img.dim == ImageDim::Cube {
        img.layers / 6
    } else {
        img.layers
    }
    .max(1);
    let r = layer.round_ties_even();
    if r.is_nan() || r < 0.0 {
        0
    } else {
        (r as u32).min(n - 1)
    }
}

/// `EmitVertex` / `EmitPrimitive`.
pub(crate) fn gs_emit(it: &mut Interp, l: usize, d: SsaDef) -> Result<(), Trap> {
    let m = it.p.m;
    let op = m.op(d);
    let stream = Emit::of(op).stream().unwrap_or(0) as u32;
    if op.opcode == OpCode::EmitPrimitive {
        it.gs_prim += 1;
        return Ok(());
    }
    let mut io = std::collections::BTreeMap::new();
    for (dcl, v) in &it.lanes[l].outputs {
        let o = m.op(*dcl);
        let s = crate::exec::output_stream(o);
        if s == stream {
            if let Some(slot) = crate::exec::io_slot(o) {
                io.insert(slot, v.clone());
            }
        }
    }
    it.gs.push(GsVertex {
        stream,
        primitive: it.gs_prim,
        io,
    });
    let _ = result_len;
    Ok(())
}
