//! Bounded random-input tests: the decoder, disassembler and simulator never panic on arbitrary words.

use irc_lima::pp::isa::{control, instr_words};
use irc_lima::pp::sim::{run_program, LaneInputs};
use irc_lima::pp::texture::NoTextures;
use irc_lima::pp::{decode_program, disassemble_program, Precision, QuadInputs, SimOptions};

/// xorshift64* — deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn word(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
}

/// A control word with a consistent count (so that decoding gets past the control word), plus payload.
fn plausible_instruction(rng: &mut Rng, out: &mut Vec<u32>) {
    let fields = (rng.word() & 0xFFF).max(1);
    let count = instr_words(fields);
    let mut c = u128::from(rng.word() & 0x3F8_0020 | 0x40); // random stop/next_count/prefetch bits, sync
    c = control::COUNT.set(c, count.into());
    c = control::FIELDS.set(c, fields.into());
    out.push(c as u32);
    for _ in 1..count {
        // Sparse payloads hit more valid opcodes than uniform ones.
        let w = rng.word() & rng.word() & rng.word();
        out.push(if rng.next() & 3 != 0 { w } else { rng.word() });
    }
}

#[test]
fn random_words_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let inputs = QuadInputs {
        lanes: std::array::from_fn(|l| LaneInputs {
            varyings: (0..16).map(|i| [i as f32, l as f32, -0.5, 2.0]).collect(),
            frag_coord: [l as f32, 1.0, 0.5, 1.0],
            ..Default::default()
        }),
        uniforms: (0..16).map(|i| [i as f32 * 0.5, 1.0, -1.0, 0.0]).collect(),
    };
    let mut decoded = 0;
    for iter in 0..3000 {
        let mut words = Vec::new();
        if iter % 3 == 0 {
            let n = 1 + rng.next() % 24;
            words.extend((0..n).map(|_| rng.word()));
        } else {
            for _ in 0..1 + rng.next() % 4 {
                plausible_instruction(&mut rng, &mut words);
            }
        }
        let Ok(program) = decode_program(&words) else {
            continue;
        };
        decoded += 1;
        let text = disassemble_program(&program);
        assert_eq!(text.lines().count(), program.len());
        for precision in [Precision::Fp16, Precision::Fp32] {
            let opts = SimOptions {
                precision,
                fuel: 64,
                strict_pipeline: iter % 2 == 0,
            };
            let _ = run_program(&program, &inputs, &NoTextures, &opts);
        }
    }
    assert!(
        decoded > 100,
        "only {decoded} random programs decoded; the fuzz test is too weak"
    );
}
