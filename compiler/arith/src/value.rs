//! Runtime values: [`Scalar`] (one typed scalar), [`Value`] (void, scalar, vector, composite or
//! descriptor handle) and the helpers that build them from IR types and `Constant` literals.
//!
//! Equality of scalars is **bitwise** (`NaN == NaN` when the bits match, `-0 != +0`), which is
//! what differential testing wants. Min-precision types never appear in values: they are
//! evaluated as the type dxbc-spirv's `LowerMin16Pass` picks by default (see [`effective`]).

use half::f16;
use irc_ir::{ScalarType, SsaDef, Type};
use smallvec::SmallVec;

/// One scalar of a concrete type. `Unknown` holds the raw 32 bits of an untyped value.
#[derive(Clone, Copy, Debug)]
pub enum Scalar {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(f16),
    F32(f32),
    F64(f64),
    Unknown(u32),
}

impl PartialEq for Scalar {
    #[inline]
    fn eq(&self, o: &Scalar) -> bool {
        self.ty() == o.ty() && self.bits() == o.bits()
    }
}
impl Eq for Scalar {}

/// The type a scalar type is evaluated as: min-precision types become the 16-bit types that
/// `LowerMin16Pass` uses with its default options; descriptors and void map to themselves.
#[inline]
pub fn effective(t: ScalarType) -> ScalarType {
    match t {
        ScalarType::MinF16 | ScalarType::MinF10 => ScalarType::F16,
        ScalarType::MinI16 => ScalarType::I16,
        ScalarType::MinU16 => ScalarType::U16,
        t => t,
    }
}

/// Bit width of an (effective) scalar type as held in a [`Scalar`]; bool counts as 1.
#[inline]
pub fn bit_width(t: ScalarType) -> u32 {
    match effective(t) {
        ScalarType::Bool => 1,
        ScalarType::I8 | ScalarType::U8 => 8,
        ScalarType::I16 | ScalarType::U16 | ScalarType::F16 => 16,
        ScalarType::I64 | ScalarType::U64 | ScalarType::F64 => 64,
        _ => 32,
    }
}

/// Mask of the low `bits` bits.
#[inline]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl Scalar {
    /// The scalar type.
    #[inline]
    pub fn ty(self) -> ScalarType {
        match self {
            Scalar::Bool(_) => ScalarType::Bool,
            Scalar::I8(_) => ScalarType::I8,
            Scalar::I16(_) => ScalarType::I16,
            Scalar::I32(_) => ScalarType::I32,
            Scalar::I64(_) => ScalarType::I64,
            Scalar::U8(_) => ScalarType::U8,
            Scalar::U16(_) => ScalarType::U16,
            Scalar::U32(_) => ScalarType::U32,
            Scalar::U64(_) => ScalarType::U64,
            Scalar::F16(_) => ScalarType::F16,
            Scalar::F32(_) => ScalarType::F32,
            Scalar::F64(_) => ScalarType::F64,
            Scalar::Unknown(_) => ScalarType::Unknown,
        }
    }

    /// The raw bits, zero-extended (bool: 0/1).
    #[inline]
    pub fn bits(self) -> u64 {
        match self {
            Scalar::Bool(b) => b as u64,
            Scalar::I8(v) => v as u8 as u64,
            Scalar::I16(v) => v as u16 as u64,
            Scalar::I32(v) => v as u32 as u64,
            Scalar::I64(v) => v as u64,
            Scalar::U8(v) => v as u64,
            Scalar::U16(v) => v as u64,
            Scalar::U32(v) => v as u64,
            Scalar::U64(v) => v,
            Scalar::F16(v) => v.to_bits() as u64,
            Scalar::F32(v) => v.to_bits() as u64,
            Scalar::F64(v) => v.to_bits(),
            Scalar::Unknown(v) => v as u64,
        }
    }

    /// A scalar of type `t` from raw bits (truncated to the width; bool: nonzero). Types that
    /// have no scalar values (void, descriptors) give `Unknown`.
    #[inline]
    pub fn from_bits(t: ScalarType, b: u64) -> Scalar {
        match effective(t) {
            ScalarType::Bool => Scalar::Bool(b != 0),
            ScalarType::I8 => Scalar::I8(b as i8),
            ScalarType::I16 => Scalar::I16(b as i16),
            ScalarType::I32 => Scalar::I32(b as i32),
            ScalarType::I64 => Scalar::I64(b as i64),
            ScalarType::U8 => Scalar::U8(b as u8),
            ScalarType::U16 => Scalar::U16(b as u16),
            ScalarType::U32 => Scalar::U32(b as u32),
            ScalarType::U64 => Scalar::U64(b),
            ScalarType::F16 => Scalar::F16(f16::from_bits(b as u16)),
            ScalarType::F32 => Scalar::F32(f32::from_bits(b as u32)),
            ScalarType::F64 => Scalar::F64(f64::from_bits(b)),
            _ => Scalar::Unknown(b as u32),
        }
    }

    /// The zero of type `t`.
    #[inline]
    pub fn zero(t: ScalarType) -> Scalar {
        Scalar::from_bits(t, 0)
    }

    /// The bits sign-extended to 64 bits if the type is signed.
    #[inline]
    pub fn sext_bits(self) -> u64 {
        let w = bit_width(self.ty());
        let b = self.bits();
        if self.ty().is_signed_int() && w < 64 {
            (((b << (64 - w)) as i64) >> (64 - w)) as u64
        } else {
            b
        }
    }

    /// Truthiness for bool (or nonzero bits for anything else).
    #[inline]
    pub fn as_bool(self) -> bool {
        self.bits() != 0
    }

    /// Convenience: an `f32` scalar's value (bits reinterpreted).
    #[inline]
    pub fn as_f32(self) -> f32 {
        f32::from_bits(self.bits() as u32)
    }
}

/// Which kind of descriptor a handle refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorClass {
    Sampler,
    Cbv,
    Srv,
    Uav,
    UavCounter,
    InputTarget,
}

/// A descriptor handle as returned by `DescriptorLoad`: the declaration plus the index into a
/// descriptor array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Descriptor {
    pub class: DescriptorClass,
    pub decl: SsaDef,
    pub index: u32,
}

/// A runtime value.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Value {
    /// The result of an op without a result.
    #[default]
    Void,
    Scalar(Scalar),
    /// A vector of 2–4 components.
    Vector(SmallVec<[Scalar; 4]>),
    /// Struct members in order, or the elements of the outermost array dimension.
    Composite(Vec<Value>),
    Descriptor(Descriptor),
}

impl Value {
    #[inline]
    pub fn f32(v: f32) -> Value {
        Value::Scalar(Scalar::F32(v))
    }
    #[inline]
    pub fn u32(v: u32) -> Value {
        Value::Scalar(Scalar::U32(v))
    }
    #[inline]
    pub fn i32(v: i32) -> Value {
        Value::Scalar(Scalar::I32(v))
    }
    #[inline]
    pub fn bool(v: bool) -> Value {
        Value::Scalar(Scalar::Bool(v))
    }
    /// An `f32` vector (or scalar if one component).
    #[inline]
    pub fn f32s(v: &[f32]) -> Value {
        Value::from_components(v.iter().map(|&x| Scalar::F32(x)).collect())
    }
    /// A `u32` vector (or scalar if one component).
    #[inline]
    pub fn u32s(v: &[u32]) -> Value {
        Value::from_components(v.iter().map(|&x| Scalar::U32(x)).collect())
    }

    /// A scalar (one component) or a vector.
    #[inline]
    pub fn from_components(c: SmallVec<[Scalar; 4]>) -> Value {
        if c.len() == 1 {
            Value::Scalar(c[0])
        } else {
            Value::Vector(c)
        }
    }

    /// The components of a scalar or vector (`None` for anything else).
    #[inline]
    pub fn components(&self) -> Option<SmallVec<[Scalar; 4]>> {
        match self {
            Value::Scalar(s) => Some(smallvec::smallvec![*s]),
            Value::Vector(v) => Some(v.clone()),
            _ => None,
        }
    }

    #[inline]
    pub fn as_scalar(&self) -> Option<Scalar> {
        match self {
            Value::Scalar(s) => Some(*s),
            Value::Vector(v) if v.len() == 1 => Some(v[0]),
            _ => None,
        }
    }

    /// Visits every scalar in flattened order (vector components, struct members, array
    /// elements outermost first) — the order of `Constant` literals.
    #[inline]
    pub fn flatten(&self, out: &mut Vec<Scalar>) {
        match self {
            Value::Void | Value::Descriptor(_) => {}
            Value::Scalar(s) => out.push(*s),
            Value::Vector(v) => out.extend_from_slice(v),
            Value::Composite(c) => c.iter().for_each(|v| v.flatten(out)),
        }
    }
}

/// Builds a value of type `ty` from flattened scalars produced by `next` (called once per
/// scalar with its scalar type). Unbounded arrays get `unbounded_len` elements.
#[inline]
pub fn build_value(
    ty: &Type,
    unbounded_len: u32,
    next: &mut dyn FnMut(ScalarType) -> Scalar,
) -> Value {
    build_dims(ty.members(), ty.array_dims(), unbounded_len, next)
}

fn build_dims(
    members: &[irc_ir::BasicType],
    dims: &[u32],
    unbounded: u32,
    next: &mut dyn FnMut(ScalarType) -> Scalar,
) -> Value {
    if let Some((&outer, inner)) = dims.split_last() {
        let n = if outer == 0 { unbounded } else { outer };
        return Value::Composite(
            (0..n)
                .map(|_| build_dims(members, inner, unbounded, next))
                .collect(),
        );
    }
    let basic = |b: irc_ir::BasicType, next: &mut dyn FnMut(ScalarType) -> Scalar| {
        Value::from_components((0..b.vec_size()).map(|_| next(b.scalar_type())).collect())
    };
    match members.len() {
        0 => Value::Void,
        1 => basic(members[0], next),
        _ => Value::Composite(members.iter().map(|&b| basic(b, next)).collect()),
    }
}

/// The zero value of a type (also what `Undef` evaluates to).
#[inline]
pub fn zero_value(ty: &Type) -> Value {
    if let Some(d) = descriptor_class(ty) {
        return Value::Descriptor(Descriptor {
            class: d,
            decl: SsaDef::from_u32(0),
            index: 0,
        });
    }
    build_value(ty, 0, &mut |t| Scalar::zero(t))
}

/// The descriptor class of a descriptor type.
#[inline]
pub fn descriptor_class(ty: &Type) -> Option<DescriptorClass> {
    Some(match ty.as_basic()?.scalar_type() {
        ScalarType::Sampler => DescriptorClass::Sampler,
        ScalarType::Cbv => DescriptorClass::Cbv,
        ScalarType::Srv => DescriptorClass::Srv,
        ScalarType::Uav => DescriptorClass::Uav,
        ScalarType::UavCounter => DescriptorClass::UavCounter,
        ScalarType::InputTarget => DescriptorClass::InputTarget,
        _ => return None,
    })
}

/// Decodes one `Constant` literal of type `t` (reference §A.7). Min-precision float constants
/// hold **32-bit float bits** and are rounded (nearest-even) to the f16 they evaluate as;
/// min-precision integers hold i32/u32 values and are truncated to 16 bits.
#[inline]
pub fn constant_scalar(t: ScalarType, lit: u64) -> Scalar {
    match t {
        ScalarType::MinF16 | ScalarType::MinF10 => {
            Scalar::F16(f16::from_f32(f32::from_bits(lit as u32)))
        }
        _ => Scalar::from_bits(t, lit),
    }
}

/// Decodes the literals of a `Constant` op. `None` if the literal count does not match.
#[inline]
pub fn constant_value(ty: &Type, lits: &[u64]) -> Option<Value> {
    // Scalars and vectors (nearly every constant) directly, as `build_value` would build them.
    if let Some(b) = ty.as_basic() {
        if usize::from(b.vec_size()) != lits.len() {
            return None;
        }
        let t = b.scalar_type();
        return Some(Value::from_components(
            lits.iter().map(|&l| constant_scalar(t, l)).collect(),
        ));
    }
    if ty.flattened_scalar_count()? != lits.len() as u64 {
        return None;
    }
    let mut i = 0;
    Some(build_value(ty, 0, &mut |t| {
        let s = constant_scalar(t, lits[i]);
        i += 1;
        s
    }))
}
