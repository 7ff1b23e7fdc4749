//! Bounded random-input tests: the GP decoder and simulator never panic on arbitrary words.

use irc_lima::gp::isa::*;
use irc_lima::gp::{decode_program, run_program, GpInputs, SimOptions};

/// xorshift64* — deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// A random instruction whose opcode fields hold known codes, branching inside the program.
fn instruction(rng: &mut Rng, n: usize) -> [u32; 4] {
    let mut w = (u128::from(rng.next()) << 64) | u128::from(rng.next());
    let fields: [(Field, Vec<u64>); 5] = [
        (instr::ACC_OP, AccOp::ALL.iter().map(|o| o.bits()).collect()),
        (instr::MUL_OP, MulOp::ALL.iter().map(|o| o.bits()).collect()),
        (
            instr::COMPLEX_OP,
            ComplexOp::ALL.iter().map(|o| o.bits()).collect(),
        ),
        (
            instr::PASS_OP,
            PassOp::ALL.iter().map(|o| o.bits()).collect(),
        ),
        (
            instr::LOAD_OFFSET,
            LoadOffset::ALL.iter().map(|o| o.bits()).collect(),
        ),
    ];
    for (f, codes) in &fields {
        w = f.set(w, codes[(rng.next() % codes.len() as u64) as usize]);
    }
    for f in [
        instr::STORE0_SRC_X,
        instr::STORE0_SRC_Y,
        instr::STORE1_SRC_Z,
        instr::STORE1_SRC_W,
    ] {
        let codes: Vec<u64> = StoreSrc::ALL.iter().map(|o| o.bits()).collect();
        w = f.set(w, codes[(rng.next() % codes.len() as u64) as usize]);
    }
    let target = rng.next() % (n as u64 + 1);
    w = instr::BRANCH_TARGET.set(w, target & 0xFF);
    w = instr::BRANCH_TARGET_LO.set(w, (target >> 8) ^ 1);
    [
        w as u32,
        (w >> 32) as u32,
        (w >> 64) as u32,
        (w >> 96) as u32,
    ]
}

#[test]
fn random_programs_never_panic_the_simulator() {
    let mut rng = Rng(0x5eed_0f9b_c0de);
    let mut inputs = GpInputs::default();
    for (i, a) in inputs.attributes.iter_mut().enumerate() {
        *a = [i as f32, -1.5, 0.25, 1e30];
    }
    inputs.uniforms = (0..520).map(|i| [i as f32 * 0.5, -2.0, 7.0, 0.0]).collect();
    let mut ran = 0;
    for _ in 0..1500 {
        let n = 1 + (rng.next() % 12) as usize;
        let words: Vec<u32> = (0..n).flat_map(|_| instruction(&mut rng, n)).collect();
        let program = decode_program(&words).expect("decodable");
        for strict in [false, true] {
            let opts = SimOptions { fuel: 200, strict };
            if run_program(&program, &inputs, &opts).is_ok() {
                ran += 1;
            }
        }
    }
    // Lenient runs of random programs mostly finish (or run out of fuel in a loop).
    assert!(ran > 0);
}
