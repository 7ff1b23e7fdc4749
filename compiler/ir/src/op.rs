//! One op: opcode, flags, result type and operands. Operands are references to other ops
//! (possibly null) or 64-bit literals; which positions are which is fixed by the opcode table's
//! first-literal rule, and [`Op::is_consistent`] checks an op against it.

use crate::entities::SsaDef;
use crate::flags::OpFlags;
use crate::opcode::OpCode;
use crate::strings;
use crate::types::Type;
use smallvec::SmallVec;

/// An operand of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A null reference (optional operand left out).
    Null,
    /// A reference to another op.
    Ref(SsaDef),
    /// A literal, as the 64-bit value dxbc-spirv stores (see reference §A.7).
    Lit(u64),
}

/// One word per operand (a reference with its top bit set, a literal as is, null as all ones;
/// a literal that looks like a reference only collides, equal operands hash alike). Operands
/// are hashed with every op the module's constant table and value numbering look up.
impl std::hash::Hash for Operand {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(match *self {
            Operand::Null => u64::MAX,
            Operand::Ref(d) => 1 << 63 | u64::from(d.as_u32()),
            Operand::Lit(v) => v,
        });
    }
}

impl Operand {
    #[inline]
    pub fn as_ref(self) -> Option<SsaDef> {
        match self {
            Operand::Ref(d) => Some(d),
            _ => None,
        }
    }
    #[inline]
    pub fn as_lit(self) -> Option<u64> {
        match self {
            Operand::Lit(v) => Some(v),
            _ => None,
        }
    }
    #[inline]
    pub fn is_literal(self) -> bool {
        matches!(self, Operand::Lit(_))
    }
    pub fn is_null(self) -> bool {
        matches!(self, Operand::Null)
    }
}

impl From<SsaDef> for Operand {
    fn from(d: SsaDef) -> Operand {
        Operand::Ref(d)
    }
}

impl From<Option<SsaDef>> for Operand {
    fn from(d: Option<SsaDef>) -> Operand {
        d.map_or(Operand::Null, Operand::Ref)
    }
}

/// The operand list type.
pub type Operands = SmallVec<[Operand; 4]>;

const _: () = assert!(std::mem::size_of::<Op>() == 96);
const _: () = assert!(std::mem::size_of::<Type>() == 16);

/// One op: 96 bytes (opcode, flags, a 16-byte type, up to four operands inline). Passes walk
/// every op of modules of tens of thousands, so its size is checked here.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Op {
    pub opcode: OpCode,
    pub flags: OpFlags,
    pub ty: Type,
    pub operands: Operands,
}

/// Operands are `Copy`: the list is copied with `from_slice` (a plain copy, not the
/// element-by-element `extend` of the derived clone; passes copy ops often).
impl Clone for Op {
    #[inline]
    fn clone(&self) -> Op {
        Op {
            opcode: self.opcode,
            flags: self.flags,
            ty: self.ty.clone(),
            operands: Operands::from_slice(&self.operands),
        }
    }
}

impl Op {
    /// An op with no operands and no flags.
    pub fn new(opcode: OpCode, ty: impl Into<Type>) -> Op {
        Op {
            opcode,
            flags: OpFlags::NONE,
            ty: ty.into(),
            operands: SmallVec::new(),
        }
    }
    /// Appends a reference operand.
    pub fn arg(mut self, d: impl Into<Operand>) -> Op {
        self.operands.push(d.into());
        self
    }
    /// Appends a literal operand.
    pub fn lit(mut self, v: u64) -> Op {
        self.operands.push(Operand::Lit(v));
        self
    }
    /// Appends a string literal (packed 8 bytes per operand, reference §A.7).
    pub fn string(mut self, s: &str) -> Op {
        self.operands
            .extend(strings::pack(s.as_bytes()).into_iter().map(Operand::Lit));
        self
    }
    /// Sets flags.
    pub fn with_flags(mut self, f: OpFlags) -> Op {
        self.flags = f;
        self
    }

    /// Index of the first literal operand.
    #[inline]
    pub fn first_literal(&self) -> usize {
        self.opcode.first_literal_index(self.operands.len())
    }
    /// Reference operands (null included as `None`) with their index.
    #[inline]
    pub fn refs(&self) -> impl Iterator<Item = (usize, Option<SsaDef>)> + '_ {
        let fl = self.first_literal();
        self.operands[..fl]
            .iter()
            .enumerate()
            .map(|(i, o)| (i, o.as_ref()))
    }
    /// Referenced defs (nulls skipped).
    #[inline]
    pub fn ref_defs(&self) -> impl Iterator<Item = SsaDef> + '_ {
        self.operands.iter().filter_map(|o| o.as_ref())
    }
    /// The literal operands.
    #[inline]
    pub fn literals(&self) -> impl Iterator<Item = u64> + '_ {
        self.operands.iter().filter_map(|o| o.as_lit())
    }
    /// The reference at `i`, if it is a non-null reference.
    #[inline]
    pub fn operand_def(&self, i: usize) -> Option<SsaDef> {
        self.operands.get(i).and_then(|o| o.as_ref())
    }
    /// The literal at `i`.
    #[inline]
    pub fn operand_lit(&self, i: usize) -> Option<u64> {
        self.operands.get(i).and_then(|o| o.as_lit())
    }
    /// Decodes the string held by literal operands from `start` on.
    pub fn string_from(&self, start: usize) -> String {
        let lits: Vec<u64> = self.operands[start.min(self.operands.len())..]
            .iter()
            .filter_map(|o| o.as_lit())
            .collect();
        String::from_utf8_lossy(&strings::unpack(&lits)).into_owned()
    }
    /// True if reference and literal operands sit where the first-literal rule puts them.
    pub fn is_consistent(&self) -> bool {
        let fl = self.first_literal();
        self.operands
            .iter()
            .enumerate()
            .all(|(i, o)| (i >= fl) == o.is_literal())
    }
    /// True if the op produces a value (non-void type).
    #[inline]
    pub fn has_result(&self) -> bool {
        !self.ty.is_void()
    }
}
