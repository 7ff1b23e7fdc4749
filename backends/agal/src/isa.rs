//! THE table of AGAL versions 1–3 (DESIGN rule 9): header, token and operand layouts, opcodes,
//! register types with their per-version/per-stage limits, and the sampler field values.
//!
//! Everything that knows where a bit lives or what a code means reads it from here: the
//! encoder, the decoder, the disassembler, the assembler, the validator and the simulator.
//! Facts come from `shared/reference/agal.md` (§n below refers to it).
//!
//! # Layout
//!
//! A program is a 7-byte header ([`header`]) followed by tokens of [`TOKEN_BYTES`] bytes:
//! `[opcode u32][dest u32][source1 u64][source2-or-sampler u64]`, little-endian (§3). Each field
//! is one `u32`/`u64` read as an LSB-first payload and split with [`dest`], [`source`] and
//! [`sampler`] (§4). Reserved bits have names (`RESERVED_*`) with `unknown = 0`: they must be 0
//! (#3654).

pub use irc_backend::bits::Field;
use irc_backend::{layout, opcodes};

/// Bytes of the program header.
pub const HEADER_BYTES: usize = 7;
/// Bytes of one token.
pub const TOKEN_BYTES: usize = 24;
/// Magic byte at offset 0.
pub const MAGIC: u8 = 0xA0;
/// Shader type id byte at offset 5.
pub const SHADER_TYPE_ID: u8 = 0xA1;
/// Versions this crate knows (§2: 1 baseline, 2 standard, 3 standardExtended).
pub const VERSIONS: std::ops::RangeInclusive<u32> = 1..=3;

/// Byte offsets of the header fields (§3).
pub mod header {
    /// `0xA0`.
    pub const MAGIC: usize = 0;
    /// Version, u32 little-endian.
    pub const VERSION: usize = 1;
    /// `0xA1`.
    pub const TYPE_ID: usize = 5;
    /// 0 vertex, 1 fragment.
    pub const SHADER_TYPE: usize = 6;
}

/// Byte offsets of the token fields inside a token (§3).
pub mod token {
    pub const OPCODE: usize = 0;
    pub const DEST: usize = 4;
    pub const SOURCE1: usize = 8;
    pub const SOURCE2: usize = 16;
}

layout!(
    /// Destination field (u32), §4.1.
    dest, 32, {
    REG: 0, 16;
    /// x = 1, y = 2, z = 4, w = 8.
    MASK: 16, 4;
    RESERVED_0: 20, 4, unknown = 0;
    TYPE: 24, 4;
    RESERVED_1: 28, 4, unknown = 0;
});

layout!(
    /// Source field (u64), §4.2. Indirect: `REG` is the index register's number and the
    /// indexed register is `OFFSET` + the index register's `INDEX_SELECT` lane.
    source, 64, {
    REG: 0, 16;
    /// Indirect offset, 0..255 (keep ≤ 127, §7.5).
    OFFSET: 16, 8;
    /// 2 bits per lane, lane 0 in the low bits; identity 0xE4.
    SWIZZLE: 24, 8;
    TYPE: 32, 4;
    RESERVED_0: 36, 4, unknown = 0;
    INDEX_TYPE: 40, 4;
    RESERVED_1: 44, 4, unknown = 0;
    /// 0 x … 3 w.
    INDEX_SELECT: 48, 2;
    RESERVED_2: 50, 13, unknown = 0;
    INDIRECT: 63, 1;
});

layout!(
    /// Sampler field (u64, source2 of `tex`/`ted`/`tld`), §4.3.
    sampler, 64, {
    REG: 0, 16;
    /// Signed, value = b / 8.
    LOD_BIAS: 16, 8;
    RESERVED_0: 24, 8, unknown = 0;
    /// Always 5 (sampler).
    TYPE: 32, 4;
    RESERVED_1: 36, 4, unknown = 0;
    /// [`TexFormat`].
    FORMAT: 40, 4;
    /// [`Dimension`].
    DIMENSION: 44, 4;
    /// [`special`] flags.
    SPECIAL: 48, 4;
    /// [`Wrap`].
    WRAP: 52, 4;
    /// [`Mipmap`].
    MIPMAP: 56, 4;
    /// [`Filter`].
    FILTER: 60, 4;
});

/// What an opcode does, for the validator and the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// One source, lane-wise (incl. `nrm`, whose result lanes are xyz).
    Unary,
    /// Two sources, lane-wise.
    Binary,
    /// `dp3`, `dp4`, `crs`: two sources, lanes mix.
    Vector,
    /// `m33`, `m34`, `m44`: source2 names the first row register.
    Matrix,
    /// `kil`: no destination, one scalar source.
    Kill,
    /// `tex`, `ted`, `tld`: coordinates in source1, sampler in source2.
    Texture,
    /// `ddx`, `ddy`: fragment quad derivatives.
    Derivative,
    /// `ife`, `ine`, `ifg`, `ifl`: open a block, no destination.
    If,
    /// `els`.
    Else,
    /// `eif`.
    EndIf,
}

opcodes!(
    /// Every AGAL opcode of versions 1–3 (plus `tld` of version 4), §6. Rows: code,
    /// mnemonic, register sources (the sampler counts as source 2), class. The minimum version
    /// is [`Opcode::min_version`]; stage restrictions are [`Opcode::stage`].
    Opcode: OpClass {
    Mov = 0x00, "mov", 1, Unary;
    Add = 0x01, "add", 2, Binary;
    Sub = 0x02, "sub", 2, Binary;
    Mul = 0x03, "mul", 2, Binary;
    Div = 0x04, "div", 2, Binary;
    Rcp = 0x05, "rcp", 1, Unary;
    Min = 0x06, "min", 2, Binary;
    Max = 0x07, "max", 2, Binary;
    Frc = 0x08, "frc", 1, Unary;
    Sqt = 0x09, "sqt", 1, Unary;
    Rsq = 0x0A, "rsq", 1, Unary;
    Pow = 0x0B, "pow", 2, Binary;
    Log = 0x0C, "log", 1, Unary;
    Exp = 0x0D, "exp", 1, Unary;
    Nrm = 0x0E, "nrm", 1, Unary;
    Sin = 0x0F, "sin", 1, Unary;
    Cos = 0x10, "cos", 1, Unary;
    Crs = 0x11, "crs", 2, Vector;
    Dp3 = 0x12, "dp3", 2, Vector;
    Dp4 = 0x13, "dp4", 2, Vector;
    Abs = 0x14, "abs", 1, Unary;
    Neg = 0x15, "neg", 1, Unary;
    Sat = 0x16, "sat", 1, Unary;
    M33 = 0x17, "m33", 2, Matrix;
    M44 = 0x18, "m44", 2, Matrix;
    M34 = 0x19, "m34", 2, Matrix;
    Ddx = 0x1A, "ddx", 1, Derivative;
    Ddy = 0x1B, "ddy", 1, Derivative;
    Ife = 0x1C, "ife", 2, If;
    Ine = 0x1D, "ine", 2, If;
    /// "if greater": Ruffle and the doc table say `>`, the doc text `>=` (§6.2); the simulator
    /// uses `>`.
    Ifg = 0x1E, "ifg", 2, If;
    Ifl = 0x1F, "ifl", 2, If;
    Els = 0x20, "els", 0, Else;
    Eif = 0x21, "eif", 0, EndIf;
    /// Texture sample for if-blocks; undocumented LOD semantics, never emitted (§6.2).
    Ted = 0x26, "ted", 2, Texture;
    Kil = 0x27, "kil", 1, Kill;
    Tex = 0x28, "tex", 2, Texture;
    Sge = 0x29, "sge", 2, Binary;
    Slt = 0x2A, "slt", 2, Binary;
    /// In assemblers but not implemented by any runtime (§6.2); never emitted.
    Sgn = 0x2B, "sgn", 1, Unary;
    Seq = 0x2C, "seq", 2, Binary;
    Sne = 0x2D, "sne", 2, Binary;
    /// Vertex texture fetch, AGAL 4 only.
    Tld = 0x2E, "tld", 2, Texture;
});

/// Which program kinds may use an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageRule {
    Any,
    FragmentOnly,
    VertexOnly,
}

impl Opcode {
    /// The first AGAL version having the opcode; `None` for `sgn`, which no runtime implements.
    pub const fn min_version(self) -> Option<u32> {
        use Opcode::*;
        match self {
            Ddx | Ddy | Ife | Ine | Ifg | Ifl | Els | Eif | Ted => Some(2),
            Tld => Some(4),
            Sgn => None,
            _ => Some(1),
        }
    }

    /// Stage restriction (§7.2: #3622 fragment-only, #3803 vertex-only).
    pub const fn stage(self) -> StageRule {
        use Opcode::*;
        match self {
            Kil | Tex | Ted | Ddx | Ddy => StageRule::FragmentOnly,
            Tld => StageRule::VertexOnly,
            _ => StageRule::Any,
        }
    }

    /// Whether the destination field is used (it must be all 0 otherwise, #3627).
    pub const fn has_dest(self) -> bool {
        !matches!(
            self.class(),
            OpClass::Kill | OpClass::If | OpClass::Else | OpClass::EndIf
        )
    }

    /// Whether source2 is a sampler field.
    pub const fn has_sampler(self) -> bool {
        matches!(self.class(), OpClass::Texture)
    }

    /// Whether a compiler may emit it (false for `ted`, `sgn`, `tld` in versions 1–3).
    pub const fn emittable(self) -> bool {
        !matches!(self, Opcode::Ted | Opcode::Sgn | Opcode::Tld)
    }

    /// The destination mask the validator demands (`nrm`, `crs`, `m33`, `m34` produce xyz
    /// only: exactly `.xyz`, #3628).
    pub const fn required_mask(self) -> Option<u8> {
        match self {
            Opcode::Nrm | Opcode::Crs | Opcode::M33 | Opcode::M34 => Some(0b0111),
            _ => None,
        }
    }

    /// Matrix rows read from consecutive registers starting at source2.
    pub const fn matrix_rows(self) -> u32 {
        match self {
            Opcode::M33 | Opcode::M34 => 3,
            Opcode::M44 => 4,
            _ => 0,
        }
    }

    /// Looks an opcode up by mnemonic.
    pub fn from_mnemonic(m: &str) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|o| o.mnemonic() == m)
    }
}

/// Vertex or fragment program (header byte 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShaderKind {
    Vertex = 0,
    Fragment = 1,
}

impl ShaderKind {
    pub const fn from_bits(b: u8) -> Option<ShaderKind> {
        match b {
            0 => Some(ShaderKind::Vertex),
            1 => Some(ShaderKind::Fragment),
            _ => None,
        }
    }
    /// `vertex` / `fragment`.
    pub const fn name(self) -> &'static str {
        match self {
            ShaderKind::Vertex => "vertex",
            ShaderKind::Fragment => "fragment",
        }
    }
}

/// Register types (§5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegType {
    Attribute = 0,
    Constant = 1,
    Temporary = 2,
    Output = 3,
    Varying = 4,
    Sampler = 5,
    DepthOutput = 6,
    InstanceId = 7,
}

impl RegType {
    pub const ALL: [RegType; 8] = [
        RegType::Attribute,
        RegType::Constant,
        RegType::Temporary,
        RegType::Output,
        RegType::Varying,
        RegType::Sampler,
        RegType::DepthOutput,
        RegType::InstanceId,
    ];

    /// Decodes the 4-bit type field (8..15 are unknown, #3655).
    pub const fn from_bits(b: u64) -> Option<RegType> {
        match b {
            0 => Some(RegType::Attribute),
            1 => Some(RegType::Constant),
            2 => Some(RegType::Temporary),
            3 => Some(RegType::Output),
            4 => Some(RegType::Varying),
            5 => Some(RegType::Sampler),
            6 => Some(RegType::DepthOutput),
            7 => Some(RegType::InstanceId),
            _ => None,
        }
    }

    pub const fn bits(self) -> u64 {
        self as u64
    }

    /// The disassembler's name in a program of `kind` (§8). Types that a stage does not have
    /// still get a name, so that every decodable program prints.
    pub const fn name(self, kind: ShaderKind) -> &'static str {
        let v = matches!(kind, ShaderKind::Vertex);
        match self {
            RegType::Attribute => "va",
            RegType::Constant if v => "vc",
            RegType::Constant => "fc",
            RegType::Temporary if v => "vt",
            RegType::Temporary => "ft",
            RegType::Output if v => "op",
            RegType::Output => "oc",
            RegType::Varying => "v",
            RegType::Sampler if v => "vs",
            RegType::Sampler => "fs",
            RegType::DepthOutput => "fd",
            RegType::InstanceId => "iid",
        }
    }

    /// Every assembler spelling of a register type (§8); both stages' names are accepted in
    /// either stage (the validator checks roles).
    pub fn from_name(name: &str) -> Option<RegType> {
        Some(match name {
            "va" => RegType::Attribute,
            "vc" | "fc" => RegType::Constant,
            "vt" | "ft" => RegType::Temporary,
            "op" | "vo" | "oc" | "fo" => RegType::Output,
            "v" | "vi" | "i" | "fi" => RegType::Varying,
            "fs" | "vs" => RegType::Sampler,
            "fd" | "od" => RegType::DepthOutput,
            "iid" => RegType::InstanceId,
            _ => return None,
        })
    }

    /// Number of registers of this type in `kind` programs of `version` (§5); 0 where the
    /// stage or version has none. Fragment outputs: 1 in v1, 4 (MRT `oc0..oc3`) from v2.
    /// baselineConstrained's 7 temporaries are [`Profile::max_temporaries`].
    pub const fn limit(self, version: u32, kind: ShaderKind) -> u32 {
        let frag = matches!(kind, ShaderKind::Fragment);
        let v1 = version <= 1;
        match self {
            RegType::Attribute if frag => 0,
            RegType::Attribute if version >= 3 => 16,
            RegType::Attribute => 8,
            RegType::Constant => match (version, frag) {
                (0 | 1, true) => 28,
                (0 | 1, false) => 128,
                (2, true) => 64,
                (_, false) => 250,
                (_, true) => 200,
            },
            RegType::Temporary if v1 => 8,
            RegType::Temporary => 26,
            RegType::Output if frag && !v1 => 4,
            RegType::Output => 1,
            RegType::Varying if v1 => 8,
            RegType::Varying => 10,
            RegType::Sampler if !frag => 0,
            RegType::Sampler if v1 => 8,
            RegType::Sampler => 16,
            RegType::DepthOutput if frag && !v1 => 1,
            RegType::DepthOutput => 0,
            RegType::InstanceId if !frag && version >= 3 => 1,
            RegType::InstanceId => 0,
        }
    }
}

/// Tokens allowed per program (§5: 200 / 1024 / 2048).
pub const fn max_tokens(version: u32) -> usize {
    match version {
        0 | 1 => 200,
        2 => 1024,
        _ => 2048,
    }
}

/// Context3D profiles (§2), for the version (#3725), temporaries and MRT checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    BaselineConstrained,
    Baseline,
    BaselineExtended,
    StandardConstrained,
    Standard,
    /// The most permissive profile with versions 1–3 (the default).
    #[default]
    StandardExtended,
}

impl Profile {
    /// Highest AGAL version the profile accepts.
    pub const fn max_version(self) -> u32 {
        match self {
            Profile::BaselineConstrained | Profile::Baseline | Profile::BaselineExtended => 1,
            Profile::StandardConstrained | Profile::Standard => 2,
            Profile::StandardExtended => 3,
        }
    }
    /// Temporaries per stage (baselineConstrained effectively has 7, §2, §13).
    pub const fn max_temporaries(self, version: u32, kind: ShaderKind) -> u32 {
        match self {
            Profile::BaselineConstrained => 7,
            _ => RegType::Temporary.limit(version, kind),
        }
    }
    /// Whether fragment programs may write more than one colour output.
    pub const fn mrt(self) -> bool {
        matches!(self, Profile::Standard | Profile::StandardExtended)
    }
}

/// Swizzle values (§4.2).
pub mod swizzle {
    /// `.xyzw`.
    pub const IDENTITY: u8 = 0xE4;
    /// Lane `i` of a swizzle byte.
    pub const fn lane(swizzle: u8, i: usize) -> usize {
        ((swizzle >> (2 * i)) & 3) as usize
    }
    /// A swizzle byte from four lanes.
    pub const fn from_lanes(l: [u8; 4]) -> u8 {
        (l[0] & 3) | (l[1] & 3) << 2 | (l[2] & 3) << 4 | (l[3] & 3) << 6
    }
    /// Whether all lanes select the same component (`xxxx` …, #3703).
    pub const fn is_scalar(s: u8) -> bool {
        s == 0x00 || s == 0x55 || s == 0xAA || s == 0xFF
    }
    /// Mask of the components the swizzle names.
    pub const fn read_mask(s: u8) -> u8 {
        (1 << lane(s, 0)) | (1 << lane(s, 1)) | (1 << lane(s, 2)) | (1 << lane(s, 3))
    }
}

/// Component letters, lane order.
pub const LANES: [char; 4] = ['x', 'y', 'z', 'w'];

/// Declares a sampler field enum with its assembler spellings (first = disassembler's).
macro_rules! sampler_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $code:literal, [$($sp:literal),+];)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub enum $name { #[default] $($(#[$vm])* $var = $code,)* }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$var),*];
            pub const fn from_bits(b: u64) -> Option<Self> {
                match b { $($code => Some(Self::$var),)* _ => None }
            }
            pub const fn bits(self) -> u64 { self as u64 }
            /// The disassembler's spelling.
            pub const fn name(self) -> &'static str {
                match self { $(Self::$var => sampler_enum!(@first $($sp),+),)* }
            }
            /// Any assembler spelling.
            pub fn from_name(s: &str) -> Option<Self> {
                match s { $($($sp)|+ => Some(Self::$var),)* _ => None }
            }
        }
    };
    (@first $a:literal $(, $rest:literal)*) => { $a };
}

sampler_enum!(
    /// Texture format (bits 40–43): matched against the bound texture at draw time.
    TexFormat {
        Rgba = 0, ["rgba"];
        Dxt1 = 1, ["dxt1", "compressed"];
        Dxt5 = 2, ["dxt5", "compressedalpha"];
        Video = 3, ["video"];
    }
);

sampler_enum!(
    /// Texture dimension (bits 44–47); `3d` is rejected by the runtime (#3664).
    Dimension {
        D2 = 0, ["2d"];
        Cube = 1, ["cube"];
        D3 = 2, ["3d"];
        Rect = 3, ["rect"];
    }
);

sampler_enum!(
    /// Wrap mode (bits 52–55); 2/3 since Flash 13.
    Wrap {
        Clamp = 0, ["clamp"];
        Repeat = 1, ["repeat", "wrap"];
        ClampURepeatV = 2, ["clamp_u_repeat_v"];
        RepeatUClampV = 3, ["repeat_u_clamp_v"];
    }
);

sampler_enum!(
    /// Mipmapping (bits 56–59).
    Mipmap {
        None = 0, ["mipnone", "nomip"];
        Nearest = 1, ["mipnearest"];
        Linear = 2, ["miplinear"];
    }
);

sampler_enum!(
    /// Filter (bits 60–63); anisotropic since Flash 14.
    Filter {
        Nearest = 0, ["nearest"];
        Linear = 1, ["linear"];
        Anisotropic2x = 2, ["anisotropic2x"];
        Anisotropic4x = 3, ["anisotropic4x"];
        Anisotropic8x = 4, ["anisotropic8x"];
        Anisotropic16x = 5, ["anisotropic16x"];
    }
);

/// Special flags (bits 48–51).
pub mod special {
    pub const CENTROID: u8 = 1;
    pub const SINGLE: u8 = 2;
    /// Keep the sampler state of `setSamplerStateAt`; named `depth` in the 2011 assembler.
    pub const IGNORE_SAMPLER: u8 = 4;
    /// Flag bits with a meaning; bit 3 is unknown (#3668).
    pub const KNOWN: u8 = 7;
    /// Flags with their spellings, in bit order.
    pub const NAMES: [(u8, &str); 3] = [
        (CENTROID, "centroid"),
        (SINGLE, "single"),
        (IGNORE_SAMPLER, "ignoresampler"),
    ];
}
