//! The binary format of dxbc-spirv's `ir::Serializer`, byte for byte (reference
//! `shared/reference/dxbc-ir-binary.md` §A.7–A.11).
//!
//! A stream is an op count followed by the ops in builder order — declarations first, then code —
//! each as signed VLE tokens ([`vle`]): `opcode | flags << 10`, the operand count, the type, and
//! the operands. References are relative stream positions (0 = null), literals are 64-bit
//! values; which operands are which is decided by the opcode table's first-literal rule.
//!
//! - [`read`] turns bytes into a [`Module`](crate::Module): the op at stream position k gets
//!   `SsaDef::new(k)` (text id `%k+1`). It never panics, and rejects corrupt or non-canonical
//!   structure with a [`ReadError`] naming the byte offset and the op.
//! - [`write`] serializes a module in program order, numbering ops densely; [`Writer`] does the
//!   same while reusing its buffers. A canonical stream (what the reference writes) survives
//!   `read` then `write` byte for byte.

mod error;
mod reader;
pub mod vle;
mod writer;

pub use error::{OpLocation, ReadError, ReadErrorKind, WriteError};
pub use reader::{read, read_into};
pub use writer::{write, Writer};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuiltIn, LitEnum, Module, Op, OpCode, Operand, ScalarType, Type};

    /// The worked example of §A.11, built through the module API in builder order.
    fn worked_example() -> Module {
        let mut m = Module::new();
        let func = m.add(Op::new(OpCode::Function, Type::void()));
        m.add(
            Op::new(OpCode::DebugName, Type::void())
                .arg(func)
                .string("main"),
        );
        let vertex = LitEnum::ShaderStage.value_of("Vertex").unwrap_or(2);
        let ep = m.add(
            Op::new(OpCode::EntryPoint, Type::void())
                .arg(func)
                .lit(vertex),
        );
        let out = m.add(
            Op::new(OpCode::DclOutputBuiltIn, Type::vector(ScalarType::F32, 4))
                .arg(ep)
                .lit(BuiltIn::Position.to_u64()),
        );
        m.add(Op::new(OpCode::Label, Type::void()).lit(0));
        let c = m.add(
            Op::new(OpCode::Constant, Type::vector(ScalarType::F32, 4))
                .lit(0)
                .lit(0)
                .lit(0)
                .lit(1.0f32.to_bits() as u64),
        );
        m.add(
            Op::new(OpCode::OutputStore, Type::void())
                .arg(out)
                .arg(Operand::Null)
                .arg(c),
        );
        m.add(Op::new(OpCode::Return, Type::void()));
        m.add(Op::new(OpCode::FunctionEnd, Type::void()));
        m
    }

    const WORKED_EXAMPLE: &[u8] = &[
        0x09, // op count
        0x03, 0x02, 0x00, 0x7c, 0xf0, 0x6e, 0x69, 0x61, 0x6d, // DebugName %func "main"
        0x01, 0x02, 0x00, 0x7d, 0x02, // EntryPoint %func Vertex
        0x23, 0x02, 0x04, 0x6c, 0x01, 0x00, // DclOutputBuiltIn f32x4 %ep Position
        0x08, 0x04, 0x04, 0x6c, 0x00, 0x00, 0x00, 0xf0, 0x3f, 0x80, 0x00, 0x00, // Constant
        0x80, 0x40, 0x00, 0x00, // Function
        0x80, 0x60, 0x01, 0x00, 0x00, // Label None
        0x81, 0x2b, 0x03, 0x00, 0x04, 0x00, 0x03, // OutputStore %out null %c
        0x80, 0x65, 0x00, 0x00, // Return
        0x80, 0x41, 0x00, 0x00, // FunctionEnd
    ];

    #[test]
    fn worked_example_writes_byte_for_byte() {
        let m = worked_example();
        let bytes = write(&m).expect("write");
        assert_eq!(bytes.len(), 57);
        assert_eq!(bytes, WORKED_EXAMPLE);
    }

    #[test]
    fn worked_example_reads_back() {
        let m = read(WORKED_EXAMPLE).expect("read");
        assert_eq!(m.len(), 9);
        let ops: Vec<OpCode> = m.iter().map(|d| m.opcode(d)).collect();
        assert_eq!(ops[0], OpCode::DebugName);
        assert_eq!(ops[4], OpCode::Function);
        let d = crate::SsaDef::from_id(7).expect("id");
        assert_eq!(m.opcode(d), OpCode::OutputStore);
        assert_eq!(crate::format::Store::of(m.op(d)).address(), None);
        assert_eq!(write(&m).expect("write"), WORKED_EXAMPLE);
        // The stream-ordered module written by the builder reads back to the same ops.
        let built = worked_example();
        let again = read(&write(&built).expect("write")).expect("read");
        assert_eq!(again, m);
    }

    #[test]
    fn writer_reuses_its_buffer() {
        let m = worked_example();
        let mut w = Writer::new();
        let mut out = Vec::new();
        w.write_into(&m, &mut out).expect("write");
        w.write_into(&m, &mut out).expect("write");
        assert_eq!(out, WORKED_EXAMPLE);
    }

    #[test]
    fn writer_names_inconsistent_and_dangling_ops() {
        let mut m = Module::new();
        let bad = m.add(Op::new(OpCode::FAdd, ScalarType::F32).lit(1).lit(2));
        assert!(matches!(write(&m), Err(WriteError::Inconsistent { def, .. }) if def == bad));

        let mut m = Module::new();
        let f = m.add(Op::new(OpCode::Function, Type::void()));
        let c = m.add(Op::new(OpCode::Constant, ScalarType::U32).lit(1));
        let user = m.add(Op::new(OpCode::Return, Type::void()).arg(c));
        m.remove(f);
        assert!(write(&m).is_ok());
        // Rewriting the user to reference the removed op's id makes it dangle.
        m.rewrite(user, Op::new(OpCode::Return, Type::void()).arg(f));
        assert!(matches!(write(&m), Err(WriteError::RemovedRef { def, .. }) if def == user));
    }

    fn reject(bytes: &[u8]) -> ReadErrorKind {
        match read(bytes) {
            Ok(_) => panic!("accepted {bytes:02x?}"),
            Err(e) => e.kind,
        }
    }

    #[test]
    fn reader_rejects_with_location() {
        use ReadErrorKind as K;
        // Truncations and counts.
        assert_eq!(reject(&[]), K::TruncatedToken);
        assert_eq!(reject(&[0x80]), K::TruncatedToken);
        assert!(matches!(
            reject(&[0x02, 0x80, 0x40, 0x00, 0x00]),
            K::OpCountTooLarge { .. }
        ));
        assert!(matches!(
            reject(&[0x01, 0x80, 0x40, 0x00, 0x00, 0x00]),
            K::TrailingBytes { count: 1 }
        ));
        assert!(matches!(reject(&[0x7f]), K::Negative { .. }));
        // Opcode 0 and an unassigned opcode; token bits above 17.
        assert_eq!(
            reject(&[0x01, 0x00, 0x00, 0x00]),
            K::UnknownOpcode { value: 0 }
        );
        assert_eq!(
            reject(&[0x01, 0x05, 0x00, 0x00]),
            K::UnknownOpcode { value: 5 }
        );
        assert!(matches!(
            reject(&[0x01, 0xe4, 0x00, 0x00, 0x00, 0x00, 0x00]),
            K::TokenTooLarge { .. }
        ));
        // Return with 2 operands.
        assert_eq!(
            reject(&[0x01, 0x80, 0x65, 0x02, 0x00, 0x00, 0x00]),
            K::OperandCount { count: 2 }
        );
        // Types: struct of 513 members, bit 7, unassigned scalar 18, void member, big array.
        assert!(matches!(
            reject(&[0x01, 0x09, 0x00, 0x88, 0x04]),
            K::TooManyMembers { count: 513 }
        ));
        assert_eq!(reject(&[0x01, 0x09, 0x00, 0x01, 0x04]), K::ArrayOfVoid);
        assert!(matches!(
            reject(&[0x01, 0x09, 0x00, 0x04, 0x8c]),
            K::MemberBit7 { .. }
        ));
        assert!(matches!(
            reject(&[0x01, 0x09, 0x00, 0x04, 0x12]),
            K::UnassignedScalarType { .. }
        ));
        assert!(matches!(
            reject(&[0x01, 0x09, 0x00, 0x08, 0x0c, 0x00]),
            K::VoidMember { index: 1 }
        ));
        assert!(matches!(
            reject(&[0x01, 0x09, 0x00, 0x05, 0xc1, 0x00, 0x00, 0x0c]),
            K::ArraySize { .. }
        ));
        assert!(matches!(
            reject(&[0x01, 0x09, 0x00, 0x08, 0x0c]),
            K::TruncatedMembers { .. }
        ));
        // Undef twice with different flags.
        let e = read(&[0x02, 0x09, 0x00, 0x04, 0x0c, 0x88, 0x09, 0x00, 0x04, 0x0c]).unwrap_err();
        assert!(matches!(e.kind, K::DuplicateUndef { first: 0, .. }));
        assert_eq!((e.offset, e.op.map(|o| o.index)), (5, Some(1)));
        // Identical constants.
        let e = read(&[
            0x02, 0x08, 0x01, 0x04, 0x09, 0x05, 0x08, 0x01, 0x04, 0x09, 0x05,
        ])
        .unwrap_err();
        assert_eq!(e.kind, K::DuplicateConstant { first: 0 });
        assert_eq!(e.offset, 6);
        // Constant count mismatch, declaration after code.
        assert!(matches!(
            reject(&[0x01, 0x08, 0x00, 0x04, 0x09]),
            K::ConstantCount { .. }
        ));
        assert_eq!(
            reject(&[0x02, 0x80, 0x40, 0x00, 0x00, 0x09, 0x00, 0x04, 0x0c]),
            K::DeclarationAfterCode
        );
        // Refs: out of range, forward where not allowed (FAdd), bad enum literal (Label construct 7).
        let fadd = [0x82, 0xa2];
        let e = read(&[0x01, fadd[0], fadd[1], 0x02, 0x04, 0x0c, 0x01, 0x01]).unwrap_err();
        assert_eq!(
            e.kind,
            K::RefOutOfRange {
                operand: 0,
                delta: 1
            }
        );
        let e = read(&[
            0x03, 0x80, 0x40, 0x00, 0x00, fadd[0], fadd[1], 0x02, 0x04, 0x0c, 0x01, 0x7f, 0x80,
            0x65, 0x00, 0x00,
        ])
        .unwrap_err();
        assert_eq!(
            e.kind,
            K::ForwardRef {
                operand: 1,
                target: 2
            }
        );
        assert_eq!(
            e.to_string(),
            "byte 0xb (op 1, FAdd): reference to op 2 is a forward reference, not allowed for operand 1"
        );
        assert!(matches!(
            reject(&[0x01, 0x80, 0x60, 0x01, 0x00, 0x07]),
            K::InvalidEnum { .. }
        ));
        // EntryPoint stage 3 is not a single stage.
        assert!(matches!(
            reject(&[0x01, 0x01, 0x02, 0x00, 0x00, 0x03]),
            K::InvalidEnum { .. }
        ));
    }
}
