//! Every reader fed a small input that declares huge counts or sizes: each rejects it with an
//! error and none allocates for what the input only declares (the process's peak resident
//! memory stays within a few MiB of where it started; this test is alone in its binary so
//! nothing else moves the peak).

use irc_ir::binary::vle;

/// Peak resident set (VmHWM) in KiB, where /proc exists.
fn peak_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn le(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The IR binary: op count, operand count, array sizes and struct members far beyond the
/// input, each a few bytes.
fn ir_binary() {
    let mut huge_ops = Vec::new();
    vle::push(&mut huge_ops, 1 << 40);
    let mut huge_operands = Vec::new();
    vle::push(&mut huge_operands, 1); // one op
    let mut one = Vec::new();
    vle::push(&mut one, 1 << 40); // an opcode token, then 2^40 operands
    vle::push(&mut huge_operands, 0);
    huge_operands.extend_from_slice(&one);
    let mut huge_array = Vec::new();
    vle::push(&mut huge_array, 1);
    vle::push(&mut huge_array, 1); // some opcode
    vle::push(&mut huge_array, 0); // no operands
    vle::push(&mut huge_array, 3 | (1 << 2)); // 3 dims, 1 member
    for _ in 0..3 {
        vle::push(&mut huge_array, 1 << 40);
    }
    let mut huge_struct = Vec::new();
    vle::push(&mut huge_struct, 1);
    vle::push(&mut huge_struct, 1);
    vle::push(&mut huge_struct, 0);
    vle::push(&mut huge_struct, 1 << 42); // 2^40 members
    for (what, b) in [
        ("op count", huge_ops),
        ("operand count", huge_operands),
        ("array sizes", huge_array),
        ("struct members", huge_struct),
    ] {
        assert!(b.len() < 64, "{what}");
        let e = irc_ir::binary::read(&b).expect_err(what);
        assert!(!e.to_string().is_empty(), "{what}");
    }
}

/// The IR text: ids near the limit make the parser allocate per id, not per op; the largest
/// encodable array type is only a type.
fn ir_text() {
    for src in [
        "%4000000000 = Function",
        "%1000000 = Function",
        "%65553 = Function",
    ] {
        let e = irc_ir::text::parse(src).expect_err(src);
        assert!(
            e.message.contains("too large") || e.message.contains("ids up to"),
            "{e}"
        );
    }
    let m = irc_ir::text::parse("%1 = f32[65535][65535][65535] Constant 1.0").unwrap();
    assert!(
        irc_ir::binary::write(&m).is_err(),
        "2.8e14 scalars from one literal"
    );
}

/// MBS1: chunk sizes up to 4 GiB in a 16-byte file.
fn mbs1() {
    let mut b = b"MBS1".to_vec();
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    b.extend_from_slice(b"CFRA");
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    assert!(irc_lima::pp::mbs::read_mbs1(&b).is_err());
    let mut b = b"MBS1".to_vec();
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(b"CFRA");
    b.extend_from_slice(&8u32.to_le_bytes());
    b.extend_from_slice(&[0; 4]);
    b.extend_from_slice(b"DBIN");
    assert!(irc_lima::pp::mbs::read_mbs1(&b).is_err());
}

/// SHBIN: DVLE count, code and descriptor lengths, and table counts of 2^32 - 1.
fn shbin() {
    let dvlb = |n: u32| {
        let mut b = b"DVLB".to_vec();
        b.extend_from_slice(&n.to_le_bytes());
        b
    };
    assert!(irc_pica::shbin::read(&dvlb(u32::MAX)).is_err());
    // One DVLE; DVLP declaring 4G code words and 4G descriptors.
    let mut b = dvlb(1);
    b.extend_from_slice(&le(&[0x2C]));
    b.extend_from_slice(b"DVLP");
    b.extend_from_slice(&le(&[0, 0x28, u32::MAX, 0x28, u32::MAX, 0, 0, 0, 0]));
    assert!(irc_pica::shbin::read(&b).is_err());
    // A DVLE declaring 4G constants, outputs and uniforms.
    let mut b = dvlb(1);
    b.extend_from_slice(&le(&[0x34]));
    b.extend_from_slice(b"DVLP");
    b.extend_from_slice(&le(&[0, 0x28, 0, 0x28, 0, 0, 0, 0, 0]));
    b.extend_from_slice(b"DVLE");
    let mut e = vec![0u32; 15];
    for (at, v) in [
        (0x18, 0x40),
        (0x1C, u32::MAX),
        (0x2C, u32::MAX),
        (0x34, u32::MAX),
    ] {
        e[at / 4 - 1] = v;
    }
    b.extend_from_slice(&le(&e));
    assert!(irc_pica::shbin::read(&b).is_err());
}

/// The decoders: a Lima PP control word claiming more words than there are, a GP program of a
/// partial instruction, a PICA instruction naming a descriptor past the table, an AGAL header
/// and a partial token.
fn decoders() {
    assert!(irc_lima::pp::decode_program(&[0xFFFF_FFFF]).is_err());
    assert!(irc_lima::gp::decode_bytes(&[0xFF; 15]).is_err());
    assert!(irc_pica::decode::decode_program(&[0x0800_007F], &[]).is_err());
    let agal = [0xA0, 1, 0, 0, 0, 0xA1, 0, 0xFF, 0xFF];
    assert!(irc_agal::decode::decode_program(&agal).is_err());
}

#[test]
fn small_inputs_declaring_huge_sizes_are_rejected_without_allocating() {
    let before = peak_kib();
    ir_binary();
    ir_text();
    mbs1();
    shbin();
    decoders();
    if let (Some(a), Some(b)) = (before, peak_kib()) {
        assert!(b - a < 64 * 1024, "peak resident memory grew {} KiB", b - a);
    }
}
