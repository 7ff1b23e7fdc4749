//! The bit-table machinery every encoder, decoder and disassembler builds its ISA table from
//! (DESIGN rule 9: a target's bit layout lives in one table).
//!
//! * [`Field`] — one named bit range (`lo`, `width`) inside an instruction word or a unit's
//!   payload, LSB-first, held in a `u128`. Fields of unknown meaning carry
//!   [`Field::unknown`] = `Some(value normally seen)`; a decoder keeps their bits (see
//!   [`unknown_mask`]) so that decode → encode is the identity, and an encoder starts from
//!   [`unknown_defaults`].
//! * [`layout!`](crate::layout) — one `pub mod` per layout: `BITS` (payload size), one `const`
//!   [`Field`] per field and `ALL` (every field in bit order, for coverage tests and the unknown
//!   masks).
//! * [`opcodes!`](crate::opcodes) — one opcode enum from a table of rows
//!   `Variant = code, "mnemonic", sources, Class;` with `ALL`, `from_bits`, `bits`, `mnemonic`,
//!   `num_srcs` and `class` (into a target-defined class enum). Every `match` on the enum
//!   elsewhere is exhaustive, so adding a row makes the compiler list every place to update.
//!
//! ```
//! irc_backend::layout!(
//!     /// A 16-bit toy instruction.
//!     toy, 16, {
//!     OP: 0, 4;
//!     DST: 4, 4;
//!     /// Always seen as 5.
//!     PAD: 8, 8, unknown = 5;
//! });
//! let w = toy::DST.set(toy::OP.set(0, 3), 9);
//! assert_eq!((toy::OP.get(w), toy::DST.get(w)), (3, 9));
//! assert_eq!(irc_backend::bits::unknown_defaults(toy::ALL), 5 << 8);
//! ```

/// One bit range inside a unit payload (or the control word). Bits are numbered LSB-first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Field name as in the reference (upper case, Mesa naming where it exists).
    pub name: &'static str,
    /// First bit.
    pub lo: u32,
    /// Number of bits (1..=64).
    pub width: u32,
    /// `Some(v)` for a field of unknown meaning; `v` is the value normally observed (Mesa/blob).
    pub unknown: Option<u64>,
}

impl Field {
    /// A field of known meaning.
    pub const fn new(name: &'static str, lo: u32, width: u32) -> Self {
        Field {
            name,
            lo,
            width,
            unknown: None,
        }
    }

    /// A field of unknown meaning, normally holding `seen`.
    pub const fn unk(name: &'static str, lo: u32, width: u32, seen: u64) -> Self {
        Field {
            name,
            lo,
            width,
            unknown: Some(seen),
        }
    }

    /// Mask of the field's value (not shifted).
    pub const fn value_mask(self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// Mask of the field's bits inside the payload.
    pub const fn mask(self) -> u128 {
        (self.value_mask() as u128) << self.lo
    }

    /// Extracts the field from a payload.
    pub const fn get(self, payload: u128) -> u64 {
        ((payload >> self.lo) as u64) & self.value_mask()
    }

    /// Extracts the field and sign-extends it from `width` bits.
    pub const fn get_signed(self, payload: u128) -> i64 {
        let v = self.get(payload);
        let shift = 64 - self.width;
        ((v << shift) as i64) >> shift
    }

    /// Returns `payload` with the field replaced by `value` (truncated to the field width).
    pub const fn set(self, payload: u128, value: u64) -> u128 {
        (payload & !self.mask()) | (((value & self.value_mask()) as u128) << self.lo)
    }

    /// Whether `value` fits in the field unsigned.
    pub const fn fits(self, value: u64) -> bool {
        value & !self.value_mask() == 0
    }

    /// Whether `value` fits in the field as a two's-complement signed number.
    pub const fn fits_signed(self, value: i64) -> bool {
        let half = 1i64 << (self.width - 1);
        value >= -half && value < half
    }
}

/// Mask of all bits covered by unknown fields of a layout (`ALL` of a layout module).
pub fn unknown_mask(fields: &[Field]) -> u128 {
    fields
        .iter()
        .filter(|f| f.unknown.is_some())
        .fold(0, |m, f| m | f.mask())
}

/// Payload holding the normally-seen value of every unknown field of a layout.
pub fn unknown_defaults(fields: &[Field]) -> u128 {
    fields.iter().fold(0, |p, f| match f.unknown {
        Some(v) => f.set(p, v),
        None => p,
    })
}

/// Declares a bit layout: `layout!(/// doc\n name, BITS, { FIELD: lo, width; UNK: lo, width,
/// unknown = seen; … });` makes `pub mod name` with `BITS`, one [`Field`] const per field and
/// `ALL`.
#[macro_export]
macro_rules! layout {
    ($(#[$m:meta])* $module:ident, $bits:literal, {
        $( $(#[$fm:meta])* $name:ident : $lo:literal, $w:literal $(, unknown = $seen:expr)? ; )*
    }) => {
        $(#[$m])*
        pub mod $module {
            use $crate::bits::Field;
            /// Payload size in bits.
            pub const BITS: u32 = $bits;
            $( $(#[$fm])* pub const $name: Field = $crate::layout!(@field $name, $lo, $w $(, $seen)?); )*
            /// Every field of the layout in bit order.
            pub const ALL: &[Field] = &[$($name),*];
        }
    };
    (@field $name:ident, $lo:literal, $w:literal) => { $crate::bits::Field::new(stringify!($name), $lo, $w) };
    (@field $name:ident, $lo:literal, $w:literal, $seen:expr) => {
        $crate::bits::Field::unk(stringify!($name), $lo, $w, $seen)
    };
}

/// Declares an opcode enum from a table: `opcodes!(/// doc\n Name: Class { Variant = code,
/// "mnemonic", sources, ClassVariant; … });` (`Class` is the target's semantics-class enum).
#[macro_export]
macro_rules! opcodes {
    ($(#[$m:meta])* $name:ident : $cls:ident {
        $( $(#[$vm:meta])* $var:ident = $code:literal, $mn:literal, $srcs:literal, $class:ident; )*
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $( $(#[$vm])* $var = $code, )* }
        impl $name {
            /// Every opcode of the table.
            pub const ALL: &'static [$name] = &[$($name::$var),*];
            /// Decodes the opcode field; `None` for codes not in the table.
            pub const fn from_bits(bits: u64) -> Option<Self> {
                match bits { $($code => Some(Self::$var),)* _ => None }
            }
            /// The opcode field value.
            pub const fn bits(self) -> u64 { self as u64 }
            /// Disassembly mnemonic.
            pub const fn mnemonic(self) -> &'static str { match self { $(Self::$var => $mn,)* } }
            /// Number of register sources read.
            pub const fn num_srcs(self) -> u32 { match self { $(Self::$var => $srcs,)* } }
            /// Semantics class.
            pub const fn class(self) -> $cls { match self { $(Self::$var => $cls::$class,)* } }
        }
    };
}
