//! Readers fed arbitrary bytes and text never panic (DESIGN §4 fuzzing): the decoder, the
//! disassembler, the validator, the simulator and the assembler.

use irc_agal::asm::assemble;
use irc_agal::decode::decode_program;
use irc_agal::disasm::{disassemble, disassemble_program};
use irc_agal::encode::encode_program;
use irc_agal::sim::{run, RunInputs};
use irc_agal::validate::{validate, ValidateOptions};
use irc_backend::NoTextures;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random bytes biased towards almost-valid programs: valid headers, small opcodes, known
/// register types, few reserved bits.
fn program(r: &mut Rng) -> Vec<u8> {
    let mut b = vec![0xA0, 1 + r.below(3) as u8, 0, 0, 0, 0xA1, r.below(2) as u8];
    if r.below(20) == 0 {
        let k = r.below(7) as usize;
        b[k] = r.next() as u8;
    }
    let tokens = r.below(12);
    for _ in 0..tokens {
        let mut t = [0u8; 24];
        for x in t.iter_mut() {
            *x = r.next() as u8;
        }
        t[0] = if r.below(8) == 0 {
            r.next() as u8
        } else {
            r.below(0x2F) as u8
        };
        t[1..4].fill(0);
        for (field, len) in [(4usize, 4usize), (8, 8), (16, 8)] {
            match r.below(4) {
                0 => t[field..field + len].fill(0),
                1 | 2 => {
                    // Small register number, type 0..7, no reserved bits.
                    t[field + 1] = 0;
                    if len == 4 {
                        t[field + 2] &= 0x0F;
                        t[field + 3] &= 0x07;
                    } else {
                        t[field + 2] = if r.below(4) == 0 { t[field + 2] } else { 0 };
                        t[field + 4] &= 0x07;
                        t[field + 5] &= 0x07;
                        t[field + 6] &= 0x03;
                        t[field + 7] &= 0x80;
                    }
                    t[field] %= 12;
                }
                _ => {}
            }
        }
        b.extend_from_slice(&t);
    }
    if r.below(10) == 0 {
        let n = r.below(b.len() as u64 + 1) as usize;
        b.truncate(n);
    }
    b
}

#[test]
fn random_bytes_never_panic_any_reader() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let constants = [[1.0f32; 4]; 4];
    let mut decoded = 0;
    let mut valid = 0;
    for _ in 0..40_000 {
        let b = program(&mut r);
        let _ = disassemble(&b);
        let opts = ValidateOptions::default();
        if validate(&b, &opts).is_ok() {
            valid += 1;
        }
        if let Ok(p) = decode_program(&b) {
            decoded += 1;
            assert_eq!(encode_program(&p), b, "encode ∘ decode");
            let text = disassemble_program(&p);
            let q = assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(encode_program(&q), b, "assemble ∘ disassemble\n{text}");
        }
        let lanes = if b.get(6) == Some(&1) { 4 } else { 1 };
        let inputs = RunInputs {
            constants: &constants,
            inputs: vec![vec![[0.5, -1.0, 2.0, 3.0]; 16]; lanes],
            instance_id: 1,
            textures: &NoTextures,
            samplers: &[],
            fuel: 64,
        };
        let _ = run(&b, &inputs);
    }
    assert!(
        decoded > 1000,
        "the generator should reach the decoder ({decoded})"
    );
    assert!(valid > 0 || decoded > 0);
}

#[test]
fn random_text_never_panics_the_assembler() {
    let mut r = Rng(12345);
    let alphabet: Vec<char> = "movtexfsvcaoidp0123456789 ,.[]<>+-xyzw\n/é"
        .chars()
        .collect();
    let words = [
        "mov",
        "tex",
        "ife",
        "els",
        "ft0",
        "vc[va0.x+5]",
        "fs0",
        "<2d,linear>",
        ".xyz",
        ", ",
        "\n",
        ".agal fragment 2\n",
        "1.5",
        "oc",
        "iid",
    ];
    for _ in 0..20_000 {
        let mut s = String::new();
        for _ in 0..r.below(40) {
            if r.below(2) == 0 {
                s.push(alphabet[r.below(alphabet.len() as u64) as usize]);
            } else {
                s.push_str(words[r.below(words.len() as u64) as usize]);
            }
        }
        let _ = assemble(&s);
        let _ = irc_agal::asm::assemble_as(&s, irc_agal::ShaderKind::Vertex, 1);
    }
}
