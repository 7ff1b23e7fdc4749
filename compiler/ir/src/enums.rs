//! The small enums and flag sets that appear as literal operands (stage, built-in, construct,
//! resource kind, atomic op, …), each with its exact numeric value from dxbc-spirv
//! (`shared/reference/dxbc-ir-binary.md` §A.3, §A.4) and its text name.
//!
//! [`LitEnum`] and [`LitFlags`] name every such enum so that the opcode table can say which
//! enum each literal operand holds; the printer and parser use that to spell values by name.

/// Defines a plain literal enum with a fixed set of values.
macro_rules! lit_enum {
    ($(#[$m:meta])* $name:ident : $repr:ty { $($var:ident = $val:literal => $text:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr($repr)]
        pub enum $name { $($var = $val,)* }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$var,)*];
            /// The value with this numeric encoding.
            pub fn from_u64(v: u64) -> Option<Self> {
                match v { $($val => Some($name::$var),)* _ => None }
            }
            /// The text name of the value.
            pub fn name(self) -> &'static str {
                match self { $($name::$var => $text,)* }
            }
            /// The value with this text name.
            pub fn from_name(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$var),)* _ => None }
            }
            /// The numeric encoding as a literal operand.
            pub fn to_u64(self) -> u64 { self as $repr as u64 }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// Defines a flag set: a `u32` newtype with named bits.
macro_rules! lit_flags {
    ($(#[$m:meta])* $name:ident { $($var:ident = $val:literal => $text:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $name(pub u32);

        #[allow(non_upper_case_globals)]
        impl $name {
            $(pub const $var: $name = $name($val);)*
            /// The named bits with their names, lowest first.
            pub const NAMES: &'static [(u32, &'static str)] = &[$(($val, $text),)*];
            /// Mask of all defined bits.
            pub const ALL_BITS: u32 = 0 $(| $val)*;
            pub fn contains(self, other: $name) -> bool { self.0 & other.0 == other.0 }
            pub fn is_empty(self) -> bool { self.0 == 0 }
            /// True if only defined bits are set.
            pub fn is_valid(self) -> bool { self.0 & !Self::ALL_BITS == 0 }
        }

        impl std::ops::BitOr for $name {
            type Output = $name;
            fn bitor(self, o: $name) -> $name { $name(self.0 | o.0) }
        }
    };
}

lit_enum!(
    /// Structured construct declared by a `Label`.
    Construct: u32 {
        None = 0 => "None",
        StructuredSelection = 1 => "StructuredSelection",
        StructuredLoop = 2 => "StructuredLoop",
    }
);

lit_enum!(
    /// Kind of a declared SRV/UAV/input-target resource.
    ResourceKind: u32 {
        BufferTyped = 0 => "BufferTyped",
        BufferStructured = 1 => "BufferStructured",
        BufferRaw = 2 => "BufferRaw",
        Image1D = 3 => "Image1D",
        Image1DArray = 4 => "Image1DArray",
        Image2D = 5 => "Image2D",
        Image2DArray = 6 => "Image2DArray",
        Image2DMS = 7 => "Image2DMS",
        Image2DMSArray = 8 => "Image2DMSArray",
        ImageCube = 9 => "ImageCube",
        ImageCubeArray = 10 => "ImageCubeArray",
        Image3D = 11 => "Image3D",
    }
);

impl ResourceKind {
    pub fn is_buffer(self) -> bool {
        matches!(
            self,
            Self::BufferTyped | Self::BufferStructured | Self::BufferRaw
        )
    }
    pub fn is_arrayed(self) -> bool {
        matches!(
            self,
            Self::Image1DArray | Self::Image2DArray | Self::Image2DMSArray | Self::ImageCubeArray
        )
    }
    pub fn is_multisampled(self) -> bool {
        matches!(self, Self::Image2DMS | Self::Image2DMSArray)
    }
    /// Number of coordinate components (without the array layer).
    pub fn coord_dims(self) -> u32 {
        match self {
            Self::BufferTyped | Self::BufferStructured | Self::BufferRaw => 1,
            Self::Image1D | Self::Image1DArray => 1,
            Self::Image2D | Self::Image2DArray | Self::Image2DMS | Self::Image2DMSArray => 2,
            Self::ImageCube | Self::ImageCubeArray | Self::Image3D => 3,
        }
    }
}

lit_enum!(
    /// Tessellator winding order.
    TessWindingOrder: u32 { Ccw = 0 => "Ccw", Cw = 1 => "Cw", }
);

lit_enum!(
    /// Tessellator partitioning.
    TessPartitioning: u32 {
        Integer = 0 => "Integer",
        FractOdd = 1 => "FractOdd",
        FractEven = 2 => "FractEven",
    }
);

lit_enum!(
    /// Operation of an atomic op.
    AtomicOp: u32 {
        Load = 0 => "Load",
        Store = 1 => "Store",
        Exchange = 2 => "Exchange",
        CompareExchange = 3 => "CompareExchange",
        Add = 4 => "Add",
        Sub = 5 => "Sub",
        SMin = 6 => "SMin",
        SMax = 7 => "SMax",
        UMin = 8 => "UMin",
        UMax = 9 => "UMax",
        And = 10 => "And",
        Or = 11 => "Or",
        Xor = 12 => "Xor",
        Inc = 13 => "Inc",
        Dec = 14 => "Dec",
    }
);

lit_enum!(
    /// Memory or execution scope (a `u8` in dxbc-spirv).
    Scope: u8 {
        Thread = 0 => "Thread",
        Quad = 1 => "Quad",
        Subgroup = 2 => "Subgroup",
        Workgroup = 3 => "Workgroup",
        Global = 4 => "Global",
    }
);

lit_enum!(
    /// Derivative precision.
    DerivativeMode: u32 {
        Default = 0 => "Default",
        Coarse = 1 => "Coarse",
        Fine = 2 => "Fine",
    }
);

lit_enum!(
    /// Built-in inputs and outputs (§A.4). Legacy built-ins 30–38 come from the SM1–3 frontend.
    BuiltIn: u32 {
        Position = 0 => "Position",
        ClipDistance = 1 => "ClipDistance",
        CullDistance = 2 => "CullDistance",
        VertexId = 3 => "VertexId",
        InstanceId = 4 => "InstanceId",
        PrimitiveId = 5 => "PrimitiveId",
        LayerIndex = 6 => "LayerIndex",
        ViewportIndex = 7 => "ViewportIndex",
        GsVertexCountIn = 8 => "GsVertexCountIn",
        GsInstanceId = 9 => "GsInstanceId",
        TessControlPointCountIn = 10 => "TessControlPointCountIn",
        TessControlPointId = 11 => "TessControlPointId",
        TessCoord = 12 => "TessCoord",
        TessFactorInner = 13 => "TessFactorInner",
        TessFactorOuter = 14 => "TessFactorOuter",
        SampleCount = 15 => "SampleCount",
        SampleId = 16 => "SampleId",
        SamplePosition = 17 => "SamplePosition",
        SampleMask = 18 => "SampleMask",
        IsFrontFace = 19 => "IsFrontFace",
        Depth = 20 => "Depth",
        StencilRef = 21 => "StencilRef",
        IsFullyCovered = 22 => "IsFullyCovered",
        WorkgroupId = 23 => "WorkgroupId",
        GlobalThreadId = 24 => "GlobalThreadId",
        LocalThreadId = 25 => "LocalThreadId",
        LocalThreadIndex = 26 => "LocalThreadIndex",
        PointSize = 27 => "PointSize",
        TessFactorLimit = 28 => "TessFactorLimit",
        PointCoord = 29 => "PointCoord",
        LegacyAlphaTest = 30 => "LegacyAlphaTest",
        LegacyFog = 31 => "LegacyFog",
        LegacyClipPlanes = 32 => "LegacyClipPlanes",
        LegacyPointArgs = 33 => "LegacyPointArgs",
        LegacySamplerState = 34 => "LegacySamplerState",
        LegacyTextureStage = 35 => "LegacyTextureStage",
        LegacyConstBool = 36 => "LegacyConstBool",
        LegacyConstInt = 37 => "LegacyConstInt",
        LegacyConstFloat = 38 => "LegacyConstFloat",
    }
);

/// Primitive type (`PrimitiveType`); `Patch(n)` with n = 1..=32 control points encodes as 6 + n.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimitiveType {
    Points,
    Lines,
    LinesAdj,
    Triangles,
    TrianglesAdj,
    Quads,
    Patch(u8),
}

impl PrimitiveType {
    pub fn from_u64(v: u64) -> Option<Self> {
        Some(match v {
            0 => Self::Points,
            1 => Self::Lines,
            2 => Self::LinesAdj,
            3 => Self::Triangles,
            4 => Self::TrianglesAdj,
            5 => Self::Quads,
            7..=38 => Self::Patch((v - 6) as u8),
            _ => return None,
        })
    }
    pub fn to_u64(self) -> u64 {
        match self {
            Self::Points => 0,
            Self::Lines => 1,
            Self::LinesAdj => 2,
            Self::Triangles => 3,
            Self::TrianglesAdj => 4,
            Self::Quads => 5,
            Self::Patch(n) => 6 + n as u64,
        }
    }
    pub fn name(self) -> String {
        match self {
            Self::Points => "Points".into(),
            Self::Lines => "Lines".into(),
            Self::LinesAdj => "LinesAdj".into(),
            Self::Triangles => "Triangles".into(),
            Self::TrianglesAdj => "TrianglesAdj".into(),
            Self::Quads => "Quads".into(),
            Self::Patch(n) => format!("Patch{n}"),
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        (0..=38u64)
            .filter_map(Self::from_u64)
            .find(|p| p.name() == s)
    }
}

lit_flags!(
    /// Shader stage bits: `EntryPoint` has exactly one, `DclPushData` a mask.
    ShaderStage {
        Pixel = 1 => "Pixel",
        Vertex = 2 => "Vertex",
        Geometry = 4 => "Geometry",
        Hull = 8 => "Hull",
        Domain = 16 => "Domain",
        Compute = 32 => "Compute",
    }
);

lit_flags!(
    /// UAV access flags.
    UavFlags {
        Coherent = 1 => "Coherent",
        ReadOnly = 2 => "ReadOnly",
        WriteOnly = 4 => "WriteOnly",
        RasterizerOrdered = 8 => "RasterizerOrdered",
        FixedFormat = 16 => "FixedFormat",
    }
);

lit_flags!(
    /// Interpolation modes of a pixel shader input.
    InterpolationModes {
        Flat = 1 => "Flat",
        Centroid = 2 => "Centroid",
        Sample = 4 => "Sample",
        NoPerspective = 8 => "NoPerspective",
    }
);

lit_flags!(
    /// Memory types affected by a barrier or ROV lock.
    MemoryTypes { Lds = 1 => "Lds", Uav = 2 => "Uav", }
);

lit_flags!(
    /// Rounding modes (`FRound`: exactly one; `SetFpMode`: Zero or NearestEven).
    RoundMode {
        Zero = 1 => "Zero",
        NearestEven = 2 => "NearestEven",
        NegativeInf = 4 => "NegativeInf",
        PositiveInf = 8 => "PositiveInf",
    }
);

lit_flags!(
    /// Denormal handling of `SetFpMode`.
    DenormMode { Flush = 1 => "Flush", Preserve = 2 => "Preserve", }
);

lit_flags!(
    /// Locking granularity of rasterizer-ordered views.
    RovScope { Sample = 1 => "Sample", Pixel = 2 => "Pixel", VrsBlock = 4 => "VrsBlock", }
);

/// Which enum a literal operand holds, for printing by name and for range checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LitEnum {
    Construct,
    ResourceKind,
    PrimitiveType,
    TessWindingOrder,
    TessPartitioning,
    AtomicOp,
    Scope,
    DerivativeMode,
    BuiltIn,
    /// A single shader stage bit (EntryPoint).
    ShaderStage,
}

/// Which flag set a literal operand holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LitFlags {
    ShaderStageMask,
    UavFlags,
    InterpolationModes,
    MemoryTypes,
    RoundMode,
    DenormMode,
    RovScope,
}

impl LitEnum {
    /// Name of a value, or `None` if the value is not assigned.
    pub fn name_of(self, v: u64) -> Option<String> {
        fn s(x: &str) -> Option<String> {
            Some(x.to_string())
        }
        match self {
            LitEnum::Construct => Construct::from_u64(v).and_then(|e| s(e.name())),
            LitEnum::ResourceKind => ResourceKind::from_u64(v).and_then(|e| s(e.name())),
            LitEnum::PrimitiveType => PrimitiveType::from_u64(v).map(|e| e.name()),
            LitEnum::TessWindingOrder => TessWindingOrder::from_u64(v).and_then(|e| s(e.name())),
            LitEnum::TessPartitioning => TessPartitioning::from_u64(v).and_then(|e| s(e.name())),
            LitEnum::AtomicOp => AtomicOp::from_u64(v).and_then(|e| s(e.name())),
            LitEnum::Scope => Scope::from_u64(v).and_then(|e| s(e.name())),
            LitEnum::DerivativeMode => DerivativeMode::from_u64(v).and_then(|e| s(e.name())),
            LitEnum::BuiltIn => BuiltIn::from_u64(v).and_then(|e| s(e.name())),
            LitEnum::ShaderStage => ShaderStage::NAMES
                .iter()
                .find(|(bit, _)| *bit as u64 == v)
                .and_then(|(_, n)| s(n)),
        }
    }

    /// Value of a name.
    pub fn value_of(self, name: &str) -> Option<u64> {
        match self {
            LitEnum::Construct => Construct::from_name(name).map(|e| e.to_u64()),
            LitEnum::ResourceKind => ResourceKind::from_name(name).map(|e| e.to_u64()),
            LitEnum::PrimitiveType => PrimitiveType::from_name(name).map(|e| e.to_u64()),
            LitEnum::TessWindingOrder => TessWindingOrder::from_name(name).map(|e| e.to_u64()),
            LitEnum::TessPartitioning => TessPartitioning::from_name(name).map(|e| e.to_u64()),
            LitEnum::AtomicOp => AtomicOp::from_name(name).map(|e| e.to_u64()),
            LitEnum::Scope => Scope::from_name(name).map(|e| e.to_u64()),
            LitEnum::DerivativeMode => DerivativeMode::from_name(name).map(|e| e.to_u64()),
            LitEnum::BuiltIn => BuiltIn::from_name(name).map(|e| e.to_u64()),
            LitEnum::ShaderStage => ShaderStage::NAMES
                .iter()
                .find(|(_, n)| *n == name)
                .map(|(b, _)| *b as u64),
        }
    }

    /// True if `v` is an assigned value.
    pub fn is_valid(self, v: u64) -> bool {
        self.name_of(v).is_some()
    }
}

impl LitFlags {
    /// `(bit, name)` pairs of the flag set.
    pub fn names(self) -> &'static [(u32, &'static str)] {
        match self {
            LitFlags::ShaderStageMask => ShaderStage::NAMES,
            LitFlags::UavFlags => UavFlags::NAMES,
            LitFlags::InterpolationModes => InterpolationModes::NAMES,
            LitFlags::MemoryTypes => MemoryTypes::NAMES,
            LitFlags::RoundMode => RoundMode::NAMES,
            LitFlags::DenormMode => DenormMode::NAMES,
            LitFlags::RovScope => RovScope::NAMES,
        }
    }

    /// True if only defined bits are set.
    pub fn is_valid(self, v: u64) -> bool {
        let all: u64 = self.names().iter().map(|(b, _)| *b as u64).sum();
        v & !all == 0
    }

    /// Spells a flag value as `A|B`, `None` for zero; `None` (Option) if undefined bits are set.
    pub fn format(self, v: u64) -> Option<String> {
        if !self.is_valid(v) {
            return None;
        }
        if v == 0 {
            return Some("None".into());
        }
        let parts: Vec<&str> = self
            .names()
            .iter()
            .filter(|(b, _)| v & *b as u64 != 0)
            .map(|(_, n)| *n)
            .collect();
        Some(parts.join("|"))
    }

    /// Parses `A|B` or `None`.
    pub fn parse(self, s: &str) -> Option<u64> {
        if s == "None" {
            return Some(0);
        }
        let mut v = 0u64;
        for part in s.split('|') {
            let (b, _) = self.names().iter().find(|(_, n)| *n == part)?;
            v |= *b as u64;
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_values_match_reference() {
        assert_eq!(BuiltIn::LegacyConstFloat.to_u64(), 38);
        assert_eq!(BuiltIn::IsFrontFace.to_u64(), 19);
        assert_eq!(AtomicOp::Dec.to_u64(), 14);
        assert_eq!(ResourceKind::Image3D.to_u64(), 11);
        assert_eq!(PrimitiveType::Patch(32).to_u64(), 38);
        assert_eq!(
            PrimitiveType::from_name("Patch3"),
            Some(PrimitiveType::Patch(3))
        );
        assert_eq!(LitEnum::ShaderStage.name_of(2).as_deref(), Some("Vertex"));
        assert_eq!(LitEnum::ShaderStage.name_of(3), None);
    }

    #[test]
    fn flags_format_and_parse() {
        let f = LitFlags::InterpolationModes;
        assert_eq!(f.format(0).as_deref(), Some("None"));
        assert_eq!(f.format(9).as_deref(), Some("Flat|NoPerspective"));
        assert_eq!(f.parse("Flat|NoPerspective"), Some(9));
        assert_eq!(f.format(16), None);
        assert_eq!(LitFlags::ShaderStageMask.parse("Pixel|Vertex"), Some(3));
    }
}
