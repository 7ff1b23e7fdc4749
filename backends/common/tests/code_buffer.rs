//! The bit-table machinery and the label/fixup code buffer: a toy fixed-size ISA with
//! absolute and relative branch-target fields, forward and backward labels, a field that
//! crosses a word boundary, and the errors for unbound labels and targets out of range.

use irc_backend::bits::{unknown_defaults, unknown_mask, Field};
use irc_backend::machine::buffer::{BufferError, CodeBuffer, FixupKind};
use irc_backend::{layout, opcodes};

layout!(
    /// A one-word toy instruction.
    word, 32, {
    OP: 0, 4;
    /// Absolute target.
    TARGET: 4, 8;
    /// Relative target (signed).
    OFFSET: 12, 6;
    PAD: 18, 14, unknown = 0x155;
});

layout!(
    /// A two-word toy instruction whose target straddles the words.
    wide, 64, {
    OP: 0, 28;
    TARGET: 28, 10;
    REST: 38, 26;
});

/// Toy semantic classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Jump,
    Other,
}

opcodes!(
    /// Toy opcodes.
    ToyOp: Class {
    /// Unconditional jump.
    Jmp = 1, "jmp", 0, Jump;
    Nop = 0, "nop", 0, Other;
    Add = 5, "add", 2, Other;
});

#[test]
fn layouts_cover_their_bits_and_opcodes_decode() {
    for all in [word::ALL, wide::ALL] {
        let mut next = 0;
        for f in all {
            assert_eq!(f.lo, next, "{} leaves a gap", f.name);
            next += f.width;
        }
    }
    assert_eq!(word::BITS, 32);
    assert_eq!(unknown_mask(word::ALL), 0x3fff << 18);
    assert_eq!(unknown_defaults(word::ALL), 0x155 << 18);
    assert_eq!(
        word::OFFSET.get_signed(word::OFFSET.set(0, (-3i64) as u64)),
        -3
    );
    assert!(word::OFFSET.fits_signed(-32) && !word::OFFSET.fits_signed(32));
    assert_eq!(ToyOp::from_bits(5), Some(ToyOp::Add));
    assert_eq!(ToyOp::from_bits(2), None);
    assert_eq!(ToyOp::Jmp.mnemonic(), "jmp");
    assert_eq!(ToyOp::Add.num_srcs(), 2);
    assert_eq!(ToyOp::Jmp.class(), Class::Jump);
    assert_eq!(ToyOp::ALL.len(), 3);
    let f = Field::new("X", 120, 8);
    assert_eq!(f.get(f.set(0, 0x1ab)), 0xab);
}

fn jmp() -> u128 {
    word::OP.set(unknown_defaults(word::ALL), ToyOp::Jmp.bits())
}

#[test]
fn labels_resolve_forward_and_backward() {
    let mut buf = CodeBuffer::new(1);
    let top = buf.new_label();
    let end = buf.new_label();
    buf.bind(top).unwrap();
    buf.push(0); // 0
    let j = buf.push(jmp()); // 1: → end (forward), absolute and relative
    buf.fixup(j, end, word::TARGET, FixupKind::Absolute);
    buf.fixup(j, end, word::OFFSET, FixupKind::Relative { bias: 1 });
    buf.push(0); // 2
    let back = buf.push(jmp()); // 3: → top (backward)
    buf.fixup(back, top, word::OFFSET, FixupKind::Relative { bias: 0 });
    buf.bind(end).unwrap();
    buf.push(0); // 4
    assert_eq!(buf.label_pos(end), Some(4));
    let words = buf.finish().unwrap();
    assert_eq!(words.len(), 5);
    let w1 = u128::from(words[1]);
    assert_eq!(word::OP.get(w1), ToyOp::Jmp.bits());
    assert_eq!(word::TARGET.get(w1), 4);
    assert_eq!(word::OFFSET.get_signed(w1), 2);
    assert_eq!(word::PAD.get(w1), 0x155, "fixups leave other fields alone");
    assert_eq!(word::OFFSET.get_signed(u128::from(words[3])), -3);
}

#[test]
fn multi_word_instructions_split_low_word_first() {
    let mut buf = CodeBuffer::new(2);
    let l = buf.new_label();
    for _ in 0..3 {
        buf.push(wide::REST.set(0, 0x2ab_cdef));
    }
    let at = buf.push(wide::OP.set(0, 7));
    buf.fixup(at, l, wide::TARGET, FixupKind::Absolute);
    buf.bind(l).unwrap();
    buf.push(0);
    let words = buf.finish().unwrap();
    assert_eq!(words.len(), 10);
    let ins = u128::from(words[6]) | u128::from(words[7]) << 32;
    assert_eq!(wide::TARGET.get(ins), 4);
    assert_eq!(wide::OP.get(ins), 7);
    assert_eq!(
        wide::REST.get(u128::from(words[0]) | u128::from(words[1]) << 32),
        0x2ab_cdef
    );
}

#[test]
fn unbound_and_out_of_range_targets_are_errors() {
    let mut buf = CodeBuffer::new(1);
    let nowhere = buf.new_label();
    let at = buf.push(jmp());
    buf.fixup(at, nowhere, word::TARGET, FixupKind::Absolute);
    assert_eq!(buf.finish(), Err(BufferError::Unbound(0, 0)));

    buf.clear();
    assert!(buf.is_empty());
    let far = buf.new_label();
    let at = buf.push(jmp());
    buf.fixup(at, far, word::OFFSET, FixupKind::Relative { bias: 0 });
    for _ in 0..40 {
        buf.push(0);
    }
    buf.bind(far).unwrap();
    buf.push(0);
    let err = buf.finish().unwrap_err();
    assert_eq!(
        err,
        BufferError::OutOfRange {
            at: 0,
            value: 41,
            field: "OFFSET",
            width: 6
        }
    );
    assert!(err.to_string().contains("OFFSET"));
    assert_eq!(buf.bind(far), Err(BufferError::Rebound(0)));

    buf.clear();
    let l = buf.new_label();
    buf.bind(l).unwrap();
    buf.fixup(3, l, word::TARGET, FixupKind::Absolute);
    assert_eq!(buf.finish(), Err(BufferError::NoInstruction(3, 0)));

    // Labels of another buffer.
    let mut other = CodeBuffer::new(1);
    let foreign = CodeBuffer::new(1).new_label();
    assert_eq!(other.bind(foreign), Err(BufferError::Unknown(0)));
    other.push(0);
    other.fixup(0, foreign, word::TARGET, FixupKind::Absolute);
    assert_eq!(other.finish(), Err(BufferError::Unknown(0)));
}
