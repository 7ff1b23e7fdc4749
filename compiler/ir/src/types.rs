//! Value types of DXBC-IR: scalar types, basic (scalar or vector) types and full types
//! (void, scalar/vector, struct, each optionally wrapped in up to three array dimensions).
//!
//! Numbering follows dxbc-spirv at the pinned commit (`ir/ir.h`, see
//! `shared/reference/dxbc-ir-binary.md` §A.1). The textual spelling (`f32x4`, `{u32,f32}`,
//! `u32[4][]`) is the one of dxbc-spirv's disassembler, and is what our text format uses.

use smallvec::SmallVec;
use std::fmt;

macro_rules! scalar_types {
    ($($name:ident = $val:literal, $text:literal, $size:literal, $class:ident;)*) => {
        /// A scalar type (`ScalarType`, 5 bits on the wire).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum ScalarType { $($name = $val,)* }

        impl ScalarType {
            /// Every scalar type, in numeric order.
            pub const ALL: &'static [ScalarType] = &[$(ScalarType::$name,)*];

            /// The scalar type with this wire value, if it is assigned.
            pub fn from_u8(v: u8) -> Option<Self> {
                match v { $($val => Some(ScalarType::$name),)* _ => None }
            }

            /// Text spelling (`f32`, `?`, `uav_ctr` …).
            pub fn text(self) -> &'static str {
                match self { $(ScalarType::$name => $text,)* }
            }

            /// Parses the text spelling.
            pub fn from_text(s: &str) -> Option<Self> {
                match s { $($text => Some(ScalarType::$name),)* _ => None }
            }

            /// Size in bytes (0 for void, bool, min-precision and descriptor types; Unknown counts as 4).
            pub fn byte_size(self) -> u32 {
                match self { $(ScalarType::$name => $size,)* }
            }

            /// The class of the type.
            #[inline]
            pub fn class(self) -> ScalarClass {
                match self { $(ScalarType::$name => ScalarClass::$class,)* }
            }
        }
    };
}

scalar_types! {
    Void = 0, "void", 0, Void;
    Unknown = 1, "?", 4, Unknown;
    Bool = 2, "bool", 0, Bool;
    I8 = 3, "i8", 1, SInt;
    I16 = 4, "i16", 2, SInt;
    I32 = 5, "i32", 4, SInt;
    I64 = 6, "i64", 8, SInt;
    U8 = 7, "u8", 1, UInt;
    U16 = 8, "u16", 2, UInt;
    U32 = 9, "u32", 4, UInt;
    U64 = 10, "u64", 8, UInt;
    F16 = 11, "f16", 2, Float;
    F32 = 12, "f32", 4, Float;
    F64 = 13, "f64", 8, Float;
    MinI16 = 14, "mini16", 0, SInt;
    MinU16 = 15, "minu16", 0, UInt;
    MinF16 = 16, "minf16", 0, Float;
    MinF10 = 17, "minf10", 0, Float;
    Sampler = 22, "sampler", 0, Descriptor;
    Cbv = 23, "cbv", 0, Descriptor;
    Srv = 24, "srv", 0, Descriptor;
    Uav = 25, "uav", 0, Descriptor;
    UavCounter = 26, "uav_ctr", 0, Descriptor;
    InputTarget = 27, "input_target", 0, Descriptor;
}

/// Broad classification of scalar types used by type rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarClass {
    Void,
    Unknown,
    Bool,
    SInt,
    UInt,
    Float,
    Descriptor,
}

impl ScalarType {
    #[inline]
    pub fn is_float(self) -> bool {
        self.class() == ScalarClass::Float
    }
    #[inline]
    pub fn is_int(self) -> bool {
        matches!(self.class(), ScalarClass::SInt | ScalarClass::UInt)
    }
    #[inline]
    pub fn is_signed_int(self) -> bool {
        self.class() == ScalarClass::SInt
    }
    #[inline]
    pub fn is_unsigned_int(self) -> bool {
        self.class() == ScalarClass::UInt
    }
    /// Integer, float or Unknown: a type arithmetic can act on.
    pub fn is_numeric(self) -> bool {
        self.is_int() || self.is_float() || self == ScalarType::Unknown
    }
    pub fn is_descriptor(self) -> bool {
        self.class() == ScalarClass::Descriptor
    }
    pub fn is_min_precision(self) -> bool {
        matches!(
            self,
            ScalarType::MinI16 | ScalarType::MinU16 | ScalarType::MinF16 | ScalarType::MinF10
        )
    }
    /// Width in bits of the value as stored in a 64-bit literal (min-precision types are 32-bit there).
    pub fn literal_bits(self) -> u32 {
        match self {
            ScalarType::Bool => 1,
            ScalarType::MinI16 | ScalarType::MinU16 | ScalarType::MinF16 | ScalarType::MinF10 => 32,
            ScalarType::Unknown => 32,
            t => t.byte_size() * 8,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// A scalar or vector type (`BasicType`): one serialized member byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BasicType {
    scalar: ScalarType,
    vec_size: u8,
}

impl BasicType {
    /// Creates a basic type; `vec_size` must be 1..=4.
    pub fn new(scalar: ScalarType, vec_size: u8) -> Self {
        assert!(
            (1..=4).contains(&vec_size),
            "vector size {vec_size} out of range"
        );
        BasicType { scalar, vec_size }
    }
    pub fn scalar(scalar: ScalarType) -> Self {
        BasicType {
            scalar,
            vec_size: 1,
        }
    }
    #[inline]
    pub fn scalar_type(self) -> ScalarType {
        self.scalar
    }
    #[inline]
    pub fn vec_size(self) -> u8 {
        self.vec_size
    }
    #[inline]
    pub fn is_vector(self) -> bool {
        self.vec_size > 1
    }
    /// The serialized member byte: `scalar | (vec_size - 1) << 5`.
    pub fn to_byte(self) -> u8 {
        self.scalar as u8 | ((self.vec_size - 1) << 5)
    }
    /// Decodes a member byte; `None` for unassigned scalar types or bit 7 set.
    pub fn from_byte(b: u8) -> Option<Self> {
        if b & 0x80 != 0 {
            return None;
        }
        Some(BasicType {
            scalar: ScalarType::from_u8(b & 0x1f)?,
            vec_size: ((b >> 5) & 3) + 1,
        })
    }
    /// Byte size of the whole vector.
    pub fn byte_size(self) -> u32 {
        self.scalar.byte_size() * self.vec_size as u32
    }
}

impl fmt::Display for BasicType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.vec_size > 1 {
            write!(f, "{}x{}", self.scalar, self.vec_size)
        } else {
            write!(f, "{}", self.scalar)
        }
    }
}

/// Maximum number of array dimensions.
pub const MAX_ARRAY_DIMS: usize = 3;
/// Maximum number of struct members.
pub const MAX_STRUCT_MEMBERS: usize = 512;

/// A full type: zero members = void; one member = scalar/vector; two or more = struct;
/// optionally an array of that with up to three dimensions. `array_dims()[0]` is the
/// **innermost** dimension; an outermost size of 0 means an unbounded (runtime) array.
///
/// Stored in 16 bytes: void and the plain scalar or vector (nearly every value's type) inline,
/// structs and arrays boxed. Every op holds a type, and passes walk the ops of modules of tens
/// of thousands of them: the two inline lists this used to be (48 bytes) made each op 32 bytes
/// larger.
/// Each type has one representation ([`Type::from_parts`] picks it), so the derived equality
/// is the equality of the member and dimension lists.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Type(Repr);

#[derive(Clone, PartialEq, Eq, Default)]
enum Repr {
    /// No members, no dimensions.
    #[default]
    Void,
    /// One member, no dimensions.
    Basic(BasicType),
    /// Anything else: a struct, or an array of anything.
    Other(Box<Parts>),
}

#[derive(Clone, PartialEq, Eq)]
struct Parts {
    members: SmallVec<[BasicType; 2]>,
    dims: SmallVec<[u32; 1]>,
}

/// Member by member, then dimension by dimension (the order of the two lists).
impl Ord for Type {
    fn cmp(&self, other: &Type) -> std::cmp::Ordering {
        self.members()
            .cmp(other.members())
            .then_with(|| self.array_dims().cmp(other.array_dims()))
    }
}

impl PartialOrd for Type {
    fn partial_cmp(&self, other: &Type) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Type")
            .field("members", &self.members())
            .field("dims", &self.array_dims())
            .finish()
    }
}

/// The usual type (a scalar or vector) hashes as one word; others member by member. Types are
/// hashed with every op the module's constant table and value numbering look up.
impl std::hash::Hash for Type {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match &self.0 {
            Repr::Basic(b) => {
                h.write_u32(u32::from(b.scalar_type() as u8) << 8 | u32::from(b.vec_size()))
            }
            _ => {
                let (members, dims) = (self.members(), self.array_dims());
                h.write_usize(members.len());
                members.iter().for_each(|b| b.hash(h));
                h.write_usize(dims.len());
                dims.iter().for_each(|&d| h.write_u32(d));
            }
        }
    }
}

impl Type {
    /// The void type.
    pub fn void() -> Self {
        Type(Repr::Void)
    }
    /// A scalar or vector type.
    #[inline]
    pub fn basic(b: BasicType) -> Self {
        Type(Repr::Basic(b))
    }
    /// A scalar type.
    pub fn scalar(s: ScalarType) -> Self {
        if s == ScalarType::Void {
            return Type::void();
        }
        Type::basic(BasicType::scalar(s))
    }
    /// A vector type.
    pub fn vector(s: ScalarType, n: u8) -> Self {
        Type::basic(BasicType::new(s, n))
    }
    /// A struct (or a scalar/vector if `members` has one entry).
    pub fn structure(members: impl IntoIterator<Item = BasicType>) -> Self {
        Type::from_parts(members.into_iter().collect(), SmallVec::new())
    }
    /// Wraps the type in one more (outer) array dimension of `size` elements (0 = unbounded).
    pub fn array_of(self, size: u32) -> Self {
        let (members, mut dims) = self.into_parts();
        dims.push(size);
        Type::from_parts(members, dims)
    }
    /// Builds a type from raw parts without checking limits (the binary reader checks them).
    pub fn from_parts(members: SmallVec<[BasicType; 2]>, dims: SmallVec<[u32; 1]>) -> Self {
        match (&members[..], dims.is_empty()) {
            ([], true) => Type(Repr::Void),
            (&[b], true) => Type(Repr::Basic(b)),
            _ => Type(Repr::Other(Box::new(Parts { members, dims }))),
        }
    }
    /// The member and dimension lists.
    fn into_parts(self) -> (SmallVec<[BasicType; 2]>, SmallVec<[u32; 1]>) {
        match self.0 {
            Repr::Void => (SmallVec::new(), SmallVec::new()),
            Repr::Basic(b) => (smallvec::smallvec![b], SmallVec::new()),
            Repr::Other(p) => (p.members, p.dims),
        }
    }

    #[inline]
    pub fn members(&self) -> &[BasicType] {
        match &self.0 {
            Repr::Void => &[],
            Repr::Basic(b) => std::slice::from_ref(b),
            Repr::Other(p) => &p.members,
        }
    }
    /// True if some member's scalar type is the Unknown scalar `?` (a type `propagate-types`
    /// has not resolved yet).
    #[inline]
    pub fn mentions_unknown(&self) -> bool {
        self.members()
            .iter()
            .any(|b| b.scalar_type() == ScalarType::Unknown)
    }
    /// Array sizes, innermost first.
    #[inline]
    pub fn array_dims(&self) -> &[u32] {
        match &self.0 {
            Repr::Other(p) => &p.dims,
            _ => &[],
        }
    }
    #[inline]
    pub fn is_void(&self) -> bool {
        self.members().is_empty()
    }
    pub fn is_array(&self) -> bool {
        !self.array_dims().is_empty()
    }
    pub fn is_struct(&self) -> bool {
        self.members().len() > 1
    }
    pub fn is_unbounded_array(&self) -> bool {
        self.array_dims().last() == Some(&0)
    }
    /// The basic type if this is a plain scalar or vector (no array, no struct).
    #[inline]
    pub fn as_basic(&self) -> Option<BasicType> {
        match self.0 {
            Repr::Basic(b) => Some(b),
            _ => None,
        }
    }
    /// The scalar type if this is a plain scalar.
    #[inline]
    pub fn as_scalar(&self) -> Option<ScalarType> {
        self.as_basic()
            .filter(|b| b.vec_size == 1)
            .map(|b| b.scalar)
    }
    /// True if this is a plain scalar or vector of the given class test.
    pub fn is_basic_where(&self, f: impl Fn(ScalarType) -> bool) -> bool {
        self.as_basic().is_some_and(|b| f(b.scalar))
    }
    /// The type of one element of the outermost array dimension.
    pub fn element_type(&self) -> Option<Type> {
        if !self.is_array() {
            return None;
        }
        let (members, mut dims) = self.clone().into_parts();
        dims.pop();
        Some(Type::from_parts(members, dims))
    }

    /// The type reached by indexing one level into this type: array element, struct member or
    /// vector component. `index` is needed for structs only.
    pub fn sub_type(&self, index: u32) -> Option<Type> {
        if self.is_array() {
            return self.element_type();
        }
        let members = self.members();
        match members.len() {
            0 => None,
            1 => {
                let b = members[0];
                (b.vec_size > 1 && index < b.vec_size as u32).then(|| Type::scalar(b.scalar))
            }
            _ => members.get(index as usize).map(|&b| Type::basic(b)),
        }
    }

    /// Number of flattened scalars (vector components, struct members, array elements), as used
    /// by `Constant` ops. `None` for unbounded arrays.
    pub fn flattened_scalar_count(&self) -> Option<u64> {
        let per_elem: u64 = self.members().iter().map(|m| m.vec_size as u64).sum();
        let mut n = per_elem;
        for &d in self.array_dims() {
            if d == 0 {
                return None;
            }
            n = n.checked_mul(d as u64)?;
        }
        Some(n)
    }

    /// Scalar type of the `i`-th flattened scalar (see [`Type::flattened_scalar_count`]).
    pub fn flattened_scalar_type(&self, i: u64) -> Option<ScalarType> {
        let per_elem: u64 = self.members().iter().map(|m| m.vec_size as u64).sum();
        if per_elem == 0 {
            return None;
        }
        let mut k = i % per_elem;
        for m in self.members() {
            if k < m.vec_size as u64 {
                return Some(m.scalar);
            }
            k -= m.vec_size as u64;
        }
        None
    }
}

impl From<ScalarType> for Type {
    fn from(s: ScalarType) -> Type {
        Type::scalar(s)
    }
}

impl From<BasicType> for Type {
    fn from(b: BasicType) -> Type {
        Type::basic(b)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let members = self.members();
        match members.len() {
            0 => f.write_str("void")?,
            1 => write!(f, "{}", members[0])?,
            _ => {
                f.write_str("{")?;
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{m}")?;
                }
                f.write_str("}")?;
            }
        }
        let dims = self.array_dims();
        let n = dims.len();
        for (i, d) in dims.iter().enumerate() {
            if *d == 0 && i + 1 == n {
                f.write_str("[]")?;
            } else {
                write!(f, "[{d}]")?;
            }
        }
        Ok(())
    }
}

/// Error of [`Type::parse`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid type `{text}`: {reason}")]
pub struct TypeParseError {
    pub text: String,
    pub reason: &'static str,
}

impl Type {
    /// Parses the text spelling produced by `Display`.
    pub fn parse(s: &str) -> Result<Type, TypeParseError> {
        let err = |reason| TypeParseError {
            text: s.to_string(),
            reason,
        };
        let (base, rest) = if let Some(inner) = s.strip_prefix('{') {
            let close = inner.find('}').ok_or_else(|| err("missing `}`"))?;
            (&inner[..close], &inner[close + 1..])
        } else {
            let end = s.find('[').unwrap_or(s.len());
            (&s[..end], &s[end..])
        };
        let mut members = SmallVec::new();
        if s.starts_with('{') {
            for m in base.split(',') {
                members.push(parse_basic(m).ok_or_else(|| err("bad struct member"))?);
            }
            if members.len() < 2 {
                return Err(err("a struct needs at least two members"));
            }
        } else if base != "void" {
            members.push(parse_basic(base).ok_or_else(|| err("unknown scalar type"))?);
        }
        let mut dims = SmallVec::new();
        let mut rest = rest;
        while !rest.is_empty() {
            let r = rest.strip_prefix('[').ok_or_else(|| err("expected `[`"))?;
            let close = r.find(']').ok_or_else(|| err("missing `]`"))?;
            let num = &r[..close];
            let v = if num.is_empty() {
                0
            } else {
                num.parse::<u32>().map_err(|_| err("bad array size"))?
            };
            if num.is_empty() && close + 1 != r.len() {
                return Err(err("only the outermost dimension may be unbounded"));
            }
            dims.push(v);
            rest = &r[close + 1..];
        }
        if dims.len() > MAX_ARRAY_DIMS {
            return Err(err("more than three array dimensions"));
        }
        if members.is_empty() && !dims.is_empty() {
            return Err(err("array of void"));
        }
        Ok(Type::from_parts(members, dims))
    }
}

fn parse_basic(s: &str) -> Option<BasicType> {
    if let Some(t) = ScalarType::from_text(s) {
        return (t != ScalarType::Void).then_some(BasicType::scalar(t));
    }
    let x = s.rfind('x')?;
    let n: u8 = s[x + 1..].parse().ok()?;
    let t = ScalarType::from_text(&s[..x])?;
    ((2..=4).contains(&n) && t != ScalarType::Void).then(|| BasicType::new(t, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_byte_matches_reference_examples() {
        // f32x3 is 0x4C and f32x4 0x6C in the reference's worked example.
        assert_eq!(BasicType::new(ScalarType::F32, 3).to_byte(), 0x4c);
        assert_eq!(BasicType::new(ScalarType::F32, 4).to_byte(), 0x6c);
        assert_eq!(
            BasicType::from_byte(0x6c),
            Some(BasicType::new(ScalarType::F32, 4))
        );
        assert_eq!(BasicType::from_byte(0x80 | 0x0c), None);
        assert_eq!(BasicType::from_byte(18), None);
    }

    /// The hand-written hash agrees with equality: equal types (built apart) hash alike, and
    /// the one-word form of a scalar or vector tells scalar types and sizes apart.
    #[test]
    fn equal_types_hash_alike() {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let hash = |t: &Type| BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(t);
        let structure = |n: u32| {
            let members = [
                BasicType::new(ScalarType::F32, 4),
                BasicType::scalar(ScalarType::U32),
            ];
            Type::from_parts(members.into_iter().collect(), [n].into_iter().collect())
        };
        let pairs = [
            (
                Type::scalar(ScalarType::F32),
                Type::vector(ScalarType::F32, 1),
            ),
            (
                Type::vector(ScalarType::I32, 3),
                Type::vector(ScalarType::I32, 3),
            ),
            (
                Type::vector(ScalarType::F16, 2).array_of(8),
                Type::vector(ScalarType::F16, 2).array_of(8),
            ),
            (structure(4), structure(4)),
            (Type::void(), Type::default()),
        ];
        for (a, b) in &pairs {
            assert_eq!(a, b);
            assert_eq!(hash(a), hash(b), "{a}");
        }
        let distinct = [
            Type::scalar(ScalarType::F32),
            Type::scalar(ScalarType::U32),
            Type::vector(ScalarType::F32, 4),
            Type::vector(ScalarType::F32, 4).array_of(4),
            structure(4),
            structure(5),
        ];
        for (i, a) in distinct.iter().enumerate() {
            for b in &distinct[i + 1..] {
                assert_ne!(hash(a), hash(b), "{a} and {b}");
            }
        }
    }

    #[test]
    fn type_text_round_trips() {
        for s in [
            "void",
            "f32",
            "f32x4",
            "{u32,f32x4}",
            "u32[4][]",
            "?x4[4096]",
            "{u32,bool,bool,bool,bool,bool,f32}[16]",
            "u32[0][3]",
            "uav_ctr",
        ] {
            let t = Type::parse(s).unwrap();
            assert_eq!(t.to_string(), s);
        }
        assert!(Type::parse("f32x5").is_err());
        assert!(Type::parse("u32[][3]").is_err());
        assert!(Type::parse("{f32}").is_err());
    }

    #[test]
    fn flattening() {
        let t = Type::parse("{u32,f32x3}[2]").unwrap();
        assert_eq!(t.flattened_scalar_count(), Some(8));
        assert_eq!(t.flattened_scalar_type(0), Some(ScalarType::U32));
        assert_eq!(t.flattened_scalar_type(5), Some(ScalarType::F32));
        assert_eq!(Type::parse("u32[]").unwrap().flattened_scalar_count(), None);
        assert_eq!(t.sub_type(0), Type::parse("{u32,f32x3}").ok());
        assert_eq!(
            Type::parse("{u32,f32x3}").unwrap().sub_type(1),
            Type::parse("f32x3").ok()
        );
        assert_eq!(
            Type::parse("f32x3").unwrap().sub_type(2),
            Some(Type::scalar(ScalarType::F32))
        );
    }
}
