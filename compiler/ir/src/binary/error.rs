//! Errors of the binary reader and writer.
//!
//! A [`ReadError`] is located: the byte offset of the offending token in the stream and, once the
//! op token has been read, the op's 0-based stream position and opcode. It displays as
//! `byte 0x1a3 (op 17, FAdd): reference to op 40 is a forward reference, not allowed for operand 1`.
//! Op numbers in messages are stream positions (the op at position k gets text id `%k+1`).

use crate::entities::SsaDef;
use crate::enums::{LitEnum, LitFlags};
use crate::module::BuildError;
use crate::opcode::OpCode;
use crate::types::Type;
use std::fmt;

/// Why a stream was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadErrorKind {
    #[error("stream ends inside a VLE token")]
    TruncatedToken,
    #[error("stream ends inside the member bytes of a type ({needed} needed, {available} left)")]
    TruncatedMembers { needed: usize, available: usize },
    #[error("stream ends after {read} of {expected} ops")]
    MissingOps { read: usize, expected: usize },
    #[error("{count} trailing bytes after the last op")]
    TrailingBytes { count: usize },
    #[error("negative {what} {value}")]
    Negative { what: &'static str, value: i64 },
    #[error("op count {count} needs at least {} bytes, only {remaining} remain", .count.saturating_mul(3))]
    OpCountTooLarge { count: u64, remaining: usize },
    #[error("operand count {count} exceeds the {remaining} bytes remaining")]
    OperandCountTooLarge { count: u64, remaining: usize },
    #[error("unknown opcode {value}")]
    UnknownOpcode { value: u16 },
    #[error("op token {token:#x} has bits set above the flags byte (bit 17)")]
    TokenTooLarge { token: i64 },
    #[error("{count} operands are not accepted")]
    OperandCount { count: usize },
    #[error("type has {count} members, at most 512 are allowed")]
    TooManyMembers { count: u64 },
    #[error("array size {size} is out of range (0..=65535)")]
    ArraySize { size: i64 },
    #[error("array of void")]
    ArrayOfVoid,
    #[error("member byte {byte:#04x}: bit 7 is set")]
    MemberBit7 { byte: u8 },
    #[error("member byte {byte:#04x}: scalar type {} is not assigned", .byte & 0x1f)]
    UnassignedScalarType { byte: u8 },
    #[error("member {index} of the type is void")]
    VoidMember { index: usize },
    #[error("operand {operand}: reference delta {delta} points outside the stream")]
    RefOutOfRange { operand: usize, delta: i64 },
    #[error("reference to op {target} is a forward reference, not allowed for operand {operand}")]
    ForwardRef { operand: usize, target: usize },
    #[error("declaration after code")]
    DeclarationAfterCode,
    #[error("duplicates constant op {first}")]
    DuplicateConstant { first: usize },
    #[error("duplicates undef op {first} of the same type {ty}")]
    DuplicateUndef { first: usize, ty: Type },
    #[error("operand {operand}: {value} is not a valid {kind:?} value")]
    InvalidEnum {
        operand: usize,
        value: u64,
        kind: LitEnum,
    },
    #[error("operand {operand}: {value:#x} sets bits not defined in {kind:?}")]
    InvalidFlags {
        operand: usize,
        value: u64,
        kind: LitFlags,
    },
    #[error("constant of type {ty} has {count} operands, its type flattens to {}",
        .expected.map_or_else(|| "an unbounded number of scalars".to_string(), |n| n.to_string()))]
    ConstantCount {
        count: usize,
        ty: Type,
        expected: Option<u64>,
    },
    #[error("cannot build the module: {0}")]
    Build(BuildError),
}

/// Where an op is: its stream position and, once known, its opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpLocation {
    pub index: usize,
    pub opcode: Option<OpCode>,
}

/// A rejected stream, with the location of the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset:#x}{}: {kind}", LocationDisplay(.op))]
pub struct ReadError {
    /// Byte offset of the offending token (or of the op, for op-level problems).
    pub offset: usize,
    /// The op being read, if the problem is inside one.
    pub op: Option<OpLocation>,
    pub kind: ReadErrorKind,
}

struct LocationDisplay<'a>(&'a Option<OpLocation>);

impl fmt::Display for LocationDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => Ok(()),
            Some(OpLocation {
                index,
                opcode: None,
            }) => write!(f, " (op {index})"),
            Some(OpLocation {
                index,
                opcode: Some(c),
            }) => write!(f, " (op {index}, {c})"),
        }
    }
}

/// A module that cannot be serialized.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error(
        "{def} ({opcode}): reference and literal operands disagree with the first-literal rule"
    )]
    Inconsistent { def: SsaDef, opcode: OpCode },
    #[error("{def} ({opcode}): operand {operand} references {target}, which is not in the module")]
    RemovedRef {
        def: SsaDef,
        opcode: OpCode,
        operand: usize,
        target: SsaDef,
    },
    #[error("{def} ({opcode}): operand {operand} refers forward to {target}, which the reader rejects for this operand ")]
    ForwardRef {
        def: SsaDef,
        opcode: OpCode,
        operand: usize,
        target: SsaDef,
    },
    #[error("{def} ({opcode}): operand {operand} is {value}, not a defined value of its enum or flags (the reader rejects it)")]
    InvalidLiteral {
        def: SsaDef,
        opcode: OpCode,
        operand: usize,
        value: u64,
    },
    #[error("{def} (Unknown): opcode 0 is the invalid/null op; the reader rejects it")]
    UnknownOpcode { def: SsaDef },
    #[error("{def} (Constant): {count} literals, but its type {ty} flattens to a different number of scalars (the reader would reject it)")]
    ConstantCount { def: SsaDef, ty: Type, count: usize },
    #[error("{def} ({opcode}): type {ty} cannot be encoded (at most 3 array dimensions of size ≤ 65535, 512 non-void members)")]
    UnencodableType {
        def: SsaDef,
        opcode: OpCode,
        ty: Type,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_offset_op_and_opcode() {
        let e = ReadError {
            offset: 0x1a3,
            op: Some(OpLocation {
                index: 17,
                opcode: Some(OpCode::FAdd),
            }),
            kind: ReadErrorKind::ForwardRef {
                operand: 1,
                target: 40,
            },
        };
        assert_eq!(
            e.to_string(),
            "byte 0x1a3 (op 17, FAdd): reference to op 40 is a forward reference, not allowed for operand 1"
        );
        let e = ReadError {
            offset: 0,
            op: None,
            kind: ReadErrorKind::TruncatedToken,
        };
        assert_eq!(e.to_string(), "byte 0x0: stream ends inside a VLE token");
    }
}
