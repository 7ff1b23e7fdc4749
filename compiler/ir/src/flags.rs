//! Op flags (`OpFlags`, one byte on the wire, bits 10–17 of the op token).

use std::fmt;

/// The flags of one op.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct OpFlags(pub u8);

impl OpFlags {
    pub const NONE: OpFlags = OpFlags(0);
    /// No result-altering transforms (≈ SPIR-V NoContraction).
    pub const PRECISE: OpFlags = OpFlags(0x01);
    pub const INVARIANT: OpFlags = OpFlags(0x02);
    /// The descriptor may be non-uniform.
    pub const NON_UNIFORM: OpFlags = OpFlags(0x04);
    /// The result is a `{u32 feedback, value}` struct.
    pub const SPARSE_FEEDBACK: OpFlags = OpFlags(0x08);
    pub const NO_NAN: OpFlags = OpFlags(0x10);
    pub const NO_INF: OpFlags = OpFlags(0x20);
    /// Signed zero need not be preserved.
    pub const NO_SZ: OpFlags = OpFlags(0x40);
    pub const IN_BOUNDS: OpFlags = OpFlags(0x80);

    /// `(bit, text name)`, lowest bit first.
    pub const NAMES: [(u8, &'static str); 8] = [
        (0x01, "precise"),
        (0x02, "invariant"),
        (0x04, "nonuniform"),
        (0x08, "sparsefeedback"),
        (0x10, "nonan"),
        (0x20, "noinf"),
        (0x40, "nosz"),
        (0x80, "inbounds"),
    ];

    pub fn contains(self, o: OpFlags) -> bool {
        self.0 & o.0 == o.0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn from_name(s: &str) -> Option<OpFlags> {
        Self::NAMES
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(b, _)| OpFlags(*b))
    }
}

impl std::ops::BitOr for OpFlags {
    type Output = OpFlags;
    fn bitor(self, o: OpFlags) -> OpFlags {
        OpFlags(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for OpFlags {
    fn bitor_assign(&mut self, o: OpFlags) {
        self.0 |= o.0
    }
}

/// Spelled as `precise|nonan`, or `None` when empty.
impl fmt::Display for OpFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("None");
        }
        let mut first = true;
        for (b, n) in Self::NAMES {
            if self.0 & b != 0 {
                if !first {
                    f.write_str("|")?;
                }
                f.write_str(n)?;
                first = false;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for OpFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
