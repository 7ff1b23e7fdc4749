//! Address chains: reading and writing parts of values (inputs, outputs, composites,
//! constants) and of byte-addressed storage (buffers, push data, scratch, LDS).
//!
//! An address is a list of indices: array dimensions outer to inner, then the struct member,
//! then the vector component; an empty list (null address) means the whole object. A load
//! whose result has more components than the addressed scalar reads consecutive scalars (and
//! a store of a vector to a scalar location writes consecutive scalars), as the spec allows for
//! buffer and memory ops; the interpreter applies the same rule everywhere.
//!
//! Byte storage uses dxbc-spirv's layout rule: every member aligned to its scalar size, no
//! vec4 padding; arrays have stride = element size. `bool` and `?` (Unknown) take 4 bytes.
//! Byte storage is **robust**: an out-of-range array index or byte offset reads zero and drops
//! writes (D3D buffer semantics; dxbc-spirv bound-checks scratch the same way).

use crate::value::{effective, Scalar, Value};
use irc_ir::{BasicType, ScalarType, Type};
use smallvec::SmallVec;

/// Size in bytes of a scalar in byte storage.
#[inline]
pub fn scalar_size(t: ScalarType) -> u64 {
    match effective(t) {
        ScalarType::I8 | ScalarType::U8 => 1,
        ScalarType::I16 | ScalarType::U16 | ScalarType::F16 => 2,
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 8,
        _ => 4,
    }
}

fn basic_size(b: BasicType) -> u64 {
    scalar_size(b.scalar_type()) * b.vec_size() as u64
}

/// (size, alignment) of the non-array part of a type (struct or basic).
fn element_layout(members: &[BasicType]) -> (u64, u64) {
    let mut off = 0u64;
    let mut align = 1u64;
    for &m in members {
        let a = scalar_size(m.scalar_type());
        align = align.max(a);
        off = off.div_ceil(a) * a + basic_size(m);
    }
    (off.div_ceil(align) * align, align)
}

/// Byte size of a type (unbounded arrays count one element).
#[inline]
pub fn type_size(ty: &Type) -> u64 {
    let (mut s, _) = element_layout(ty.members());
    for &d in ty.array_dims() {
        s = s.saturating_mul(d.max(1) as u64);
    }
    s
}

/// Byte offset of a member in a struct.
fn member_offset(members: &[BasicType], idx: usize) -> u64 {
    let mut off = 0u64;
    for (i, &m) in members.iter().enumerate() {
        let a = scalar_size(m.scalar_type());
        off = off.div_ceil(a) * a;
        if i == idx {
            return off;
        }
        off += basic_size(m);
    }
    off
}

/// Result of resolving an address in byte storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteAddr {
    /// In range: byte offset.
    At(u64),
    /// An index was out of range: reads give zero, writes are dropped.
    OutOfRange,
}

/// Resolves `idx` in a storage object of type `ty`. `Err` if the chain is malformed (too many
/// indices, struct member out of range), which is a bad module rather than a robust access.
#[inline]
pub fn byte_offset(ty: &Type, idx: &[u64]) -> Result<ByteAddr, &'static str> {
    let mut off = 0u64;
    let mut dims: Vec<u32> = ty.array_dims().to_vec();
    let members = ty.members();
    let mut i = 0;
    let mut oob = false;
    while let Some(&n) = dims.last() {
        let Some(&k) = idx.get(i) else {
            return Ok(addr(off, oob));
        };
        dims.pop();
        let mut inner = Type::structure(members.iter().copied());
        for &d in &dims {
            inner = inner.array_of(d);
        }
        if n != 0 && k >= n as u64 {
            oob = true;
        }
        off = off.saturating_add(k.saturating_mul(type_size(&inner)));
        i += 1;
    }
    let mut basic = None;
    if members.len() > 1 {
        let Some(&k) = idx.get(i) else {
            return Ok(addr(off, oob));
        };
        let b = *members
            .get(k as usize)
            .ok_or("struct member index out of range")?;
        off += member_offset(members, k as usize);
        basic = Some(b);
        i += 1;
    } else if let Some(&b) = members.first() {
        basic = Some(b);
    }
    if let Some(&k) = idx.get(i) {
        let b = basic.ok_or("address into void")?;
        if k >= b.vec_size() as u64 || b.vec_size() == 1 {
            return Err("vector component index out of range");
        }
        off += k * scalar_size(b.scalar_type());
        i += 1;
    }
    if i != idx.len() {
        return Err("address has too many indices");
    }
    Ok(addr(off, oob))
}

fn addr(off: u64, oob: bool) -> ByteAddr {
    if oob {
        ByteAddr::OutOfRange
    } else {
        ByteAddr::At(off)
    }
}

/// Reads a scalar of type `t` at byte `off` (zero if out of range).
#[inline]
pub fn read_scalar(bytes: &[u8], off: u64, t: ScalarType) -> Scalar {
    let n = scalar_size(t);
    let mut v = 0u64;
    for k in 0..n {
        let b = off
            .checked_add(k)
            .and_then(|o| bytes.get(usize::try_from(o).ok()?))
            .copied();
        match b {
            Some(b) => v |= (b as u64) << (8 * k),
            None => return Scalar::zero(t),
        }
    }
    Scalar::from_bits(t, v)
}

/// Writes a scalar at byte `off` (dropped if out of range).
#[inline]
pub fn write_scalar(bytes: &mut [u8], off: u64, s: Scalar) {
    let n = scalar_size(s.ty());
    let end = off.checked_add(n);
    if end.is_none_or(|e| e > bytes.len() as u64) {
        return;
    }
    let b = s.bits();
    for k in 0..n {
        bytes[(off + k) as usize] = (b >> (8 * k)) as u8;
    }
}

/// Reads a value of type `ty` laid out at `off`.
#[inline]
pub fn read_typed(bytes: &[u8], off: ByteAddr, ty: &Type) -> Value {
    let ByteAddr::At(off) = off else {
        return crate::value::zero_value(ty);
    };
    let members = ty.members();
    let dims = ty.array_dims();
    if let Some((&n, inner_dims)) = dims.split_last() {
        let mut inner = Type::structure(members.iter().copied());
        for &d in inner_dims {
            inner = inner.array_of(d);
        }
        let stride = type_size(&inner);
        return Value::Composite(
            (0..n.max(1) as u64)
                .map(|k| read_typed(bytes, ByteAddr::At(off.saturating_add(k * stride)), &inner))
                .collect(),
        );
    }
    let basic = |b: BasicType, o: u64| {
        let s = scalar_size(b.scalar_type());
        Value::from_components(
            (0..b.vec_size() as u64)
                .map(|c| read_scalar(bytes, o + c * s, b.scalar_type()))
                .collect(),
        )
    };
    match members.len() {
        0 => Value::Void,
        1 => basic(members[0], off),
        _ => Value::Composite(
            members
                .iter()
                .enumerate()
                .map(|(i, &b)| basic(b, off + member_offset(members, i)))
                .collect(),
        ),
    }
}

/// Writes `v` at `off`: scalars and vectors consecutively, composites member by member with
/// the layout of their own types (scalar alignment).
#[inline]
pub fn write_value(bytes: &mut [u8], off: ByteAddr, v: &Value) {
    let ByteAddr::At(off) = off else { return };
    write_at(bytes, off, v);
}

fn write_at(bytes: &mut [u8], off: u64, v: &Value) -> u64 {
    match v {
        Value::Void | Value::Descriptor(_) => off,
        Value::Scalar(s) => {
            let a = scalar_size(s.ty());
            let o = off.div_ceil(a) * a;
            write_scalar(bytes, o, *s);
            o + a
        }
        Value::Vector(c) => {
            let mut o = off;
            for s in c {
                o = write_at(bytes, o, &Value::Scalar(*s));
            }
            o
        }
        Value::Composite(c) => {
            let mut o = off;
            for m in c {
                o = write_at(bytes, o, m);
            }
            o
        }
    }
}

/// Reads the part of `v` at `idx`, taking `n` consecutive components if the chain ends at a
/// vector component and `n > 1`. `None` if out of range.
#[inline]
pub fn value_get(v: &Value, idx: &[u64], n: usize) -> Option<Value> {
    let Some((&last, init)) = idx.split_last() else {
        return Some(v.clone());
    };
    let mut cur = v;
    for &k in init {
        cur = match cur {
            Value::Composite(c) => c.get(usize::try_from(k).ok()?)?,
            _ => return None,
        };
    }
    let k = usize::try_from(last).ok()?;
    match cur {
        Value::Composite(c) => c.get(k).cloned(),
        Value::Vector(c) => {
            let n = n.max(1);
            if k.checked_add(n)? > c.len() {
                return None;
            }
            Some(Value::from_components(
                c[k..k + n].iter().copied().collect(),
            ))
        }
        Value::Scalar(s) if k == 0 && n <= 1 => Some(Value::Scalar(*s)),
        _ => None,
    }
}

/// Writes `new` at `idx` in `v` (consecutive components for a vector written to a component).
/// `None` if out of range.
#[inline]
pub fn value_set(v: &mut Value, idx: &[u64], new: Value) -> Option<()> {
    let Some((&last, init)) = idx.split_last() else {
        *v = new;
        return Some(());
    };
    let mut cur = v;
    for &k in init {
        cur = match cur {
            Value::Composite(c) => c.get_mut(usize::try_from(k).ok()?)?,
            _ => return None,
        };
    }
    let k = usize::try_from(last).ok()?;
    match cur {
        Value::Composite(c) => {
            *c.get_mut(k)? = new;
        }
        Value::Vector(c) => {
            let comps: SmallVec<[Scalar; 4]> = new.components()?;
            if k.checked_add(comps.len())? > c.len() {
                return None;
            }
            c[k..k + comps.len()].copy_from_slice(&comps);
        }
        Value::Scalar(s) if k == 0 => {
            *s = new.as_scalar()?;
        }
        _ => return None,
    }
    Some(())
}

/// Converts the bytes of a dword array to a byte vector.
#[inline]
pub fn dwords_to_bytes(d: &[u32]) -> Vec<u8> {
    d.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Converts bytes back to dwords (zero-padded).
#[inline]
pub fn bytes_to_dwords(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}
