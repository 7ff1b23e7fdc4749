//! Tests of the AGAL reference side: encoding tables, anchors, round trips, validator, simulator,
//! and readers fed random bytes. One test binary (modules below) to keep link time down.

mod anchors;
mod encoding;
mod fuzz;
mod sim;
mod validate;

use irc_agal::asm::assemble_as;
use irc_agal::encode::encode_program;
use irc_agal::ShaderKind;

pub const V: ShaderKind = ShaderKind::Vertex;
pub const F: ShaderKind = ShaderKind::Fragment;

/// Assembles `text` as a `kind` program of `version` and encodes it.
pub fn asm(kind: ShaderKind, version: u32, text: &str) -> Vec<u8> {
    let p = assemble_as(text, kind, version).unwrap_or_else(|e| panic!("{e}\n{text}"));
    encode_program(&p)
}

/// Bytes from hex text (blanks ignored).
pub fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(|b| b.is_ascii_hexdigit()).collect();
    digits
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

/// Checks decode/encode and assemble/disassemble round trips on program bytes.
pub fn round_trip(bytes: &[u8]) {
    use irc_agal::{asm::assemble, decode::decode_program, disasm::disassemble_program};
    let p = decode_program(bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(encode_program(&p), bytes, "encode ∘ decode");
    let text = disassemble_program(&p);
    let q = assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(q, p, "assemble ∘ disassemble on\n{text}");
    assert_eq!(encode_program(&q), bytes);
    assert_eq!(
        decode_program(&encode_program(&q)).unwrap(),
        q,
        "decode ∘ encode"
    );
}
