//! Encoder and assembler tests (DESIGN rule 10):
//! * the table test: every encoding the reference states (lima.md §17 vectors, §4.8 discard, §4.7 fb_read),
//!   as (assembly text, words), checked both ways — `encode(asm(text)) == words` and
//!   `disasm(decode(words)) == text`;
//! * the size test: no instruction exceeds `isa::MAX_INSTR_WORDS`, every unit payload fits its declared size;
//! * round trips: every opcode of every unit with a few operand/modifier combinations, seeded random valid
//!   instructions (`decode(encode(i)) == i`), seeded random canonical programs (`asm(disasm(p)) == p`), and
//!   the random-word corpus of `pp_fuzz.rs` (`encode(decode(w)) == w`);
//! * the assembler never panics on mutated text and its errors point at the right place.

use half::f16;
use irc_lima::pp::asm::assemble;
use irc_lima::pp::encode::{
    encode_instruction, encode_program, link_program, presence_mask, unit_payloads, EncodeError,
};
use irc_lima::pp::instr::*;
use irc_lima::pp::isa::{self, *};
use irc_lima::pp::{decode_program, disassemble_instruction, disassemble_program};

/// xorshift64* — deterministic, dependency-free (same generator as `pp_fuzz.rs`).
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
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bits(&mut self, n: u32) -> u64 {
        self.next() & ((1u64 << n) - 1)
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 != 0
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------------------------------------
// Table test

/// (name, assembly text exactly as the disassembler prints it, words). Expected texts were checked by hand
/// against lima.md §17 (Mesa's output) and §15; words are the reference's.
const TABLE: &[(&str, &str, &[u32])] = &[
    (
        // §17.1 PP_CLEAR_PROGRAM (the reference stores it padded to 8 words; the instruction is 5 words).
        "PP_CLEAR_PROGRAM",
        "@0: mov.v0 $0 ^const0.xxxx , const0 1.000000 0.000000 0.000000 -1.677734, stop\n",
        &[0x00020425, 0x0000000c, 0x01e007cf, 0xb0000000, 0x000005f5],
    ),
    (
        // §17.2 the four-instruction program.
        "four-instruction program",
        "@0: load.v $0.xy 0.xy\n\
         @3: load.v ^discard.xy 0.zw, texld 2, mov.v0 $1 ^texture , sync\n\
         @9: mul.sat.s0 $2.y $1.x ^const0.y, rcp.s2 $2.x $1.w, const0 1.000000 2.000000 3.000000 4.000000, \
         const1 0.500000 2.000000 -1.000000 0.250000\n\
         @16: branch 0, stop\n",
        &[
            0x02300083, 0x30003c20, 0x00000000, // @0
            0x023805c6, 0x3f043c20, 0x00000000, 0x39001002, 0x13900e4e, 0x000007cf, // @3
            0x02264807, 0x00c93104, 0x0201c000, 0x040003c0, 0x04400420, 0x04000380, 0x03400bc0, // @9
            0x00010024, 0x00070000, 0xffffe000, 0x0000003f, // @16
        ],
    ),
    (
        // §4.8: discard = branch payload word0 0x007F0003, word1 0, word2 0; control count 4, stop,
        // fields 0x200 → 0x00010024 (as in §17.2 @16).
        "discard",
        "@0: discard, stop\n",
        &[0x00010024, 0x007F0003, 0, 0],
    ),
    (
        // §4.7 fb_read, derived by hand: payload bit 0 = 1 (colour), bits 1–5 = 0b00111, dest 1 in bits 6–9,
        // bit 11 set (the observed `…10` in bits 10–11) → 0x84F; unit 8 → fields 0x100, 41 bits → count 3;
        // control = 3 | 0x100 << 7 = 0x8003.
        "fb_read colour",
        "@0: fb_color $1\n",
        &[0x00008003, 0x0000084F, 0],
    ),
];

#[test]
fn table_asm_encode_decode_disasm() {
    for (name, text, words) in TABLE {
        let program = assemble(text).unwrap_or_else(|e| panic!("{name}: assemble failed:\n{e}"));
        let encoded = encode_program(&program).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&encoded, words, "{name}: asm → encode");
        let decoded = decode_program(words).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            disassemble_program(&decoded),
            *text,
            "{name}: decode → disasm"
        );
        assert_eq!(
            keys(&decoded),
            keys(&program),
            "{name}: decode(words) == asm(text)"
        );
    }
}

#[test]
fn pp_clear_padding_decodes_the_same() {
    // The reference stores PP_CLEAR_PROGRAM as 8 words (3 words of zero padding after the instruction).
    let padded = [
        0x00020425, 0x0000000c, 0x01e007cf, 0xb0000000, 0x000005f5, 0, 0, 0,
    ];
    let p = decode_program(&padded).unwrap();
    assert_eq!(encode_program(&p).unwrap(), padded[..5]);
}

// ---------------------------------------------------------------------------------------------------------
// Size test

fn empty() -> Instruction {
    Instruction::empty()
}

#[test]
fn no_instruction_exceeds_the_declared_size() {
    let mut rng = Rng(7);
    // Every unit present: exactly the maximum.
    let mut full = gen_instr(&mut rng, false, 0xFFF);
    finish(&mut full);
    assert_eq!(
        encode_instruction(&full).unwrap().len() as u32,
        MAX_INSTR_WORDS
    );
    for n in 0..3000 {
        let mut i = gen_instr(&mut rng, n % 2 == 0, 0);
        finish(&mut i);
        let Ok(words) = encode_instruction(&i) else {
            continue;
        };
        assert!(words.len() as u32 <= MAX_INSTR_WORDS);
        assert_eq!(words.len() as u32, instr_words(presence_mask(&i)));
        for (unit, p) in unit_payloads(&i).unwrap() {
            assert_eq!(
                p >> unit.bits(),
                0,
                "{} payload exceeds {} bits",
                unit.name(),
                unit.bits()
            );
        }
    }
    // Every field of every layout lies inside its unit.
    let layouts: [(u32, &[Field]); 17] = [
        (control::BITS, control::ALL),
        (varying_imm::BITS, varying_imm::ALL),
        (varying_reg::BITS, varying_reg::ALL),
        (sampler::BITS, sampler::ALL),
        (uniform::BITS, uniform::ALL),
        (vec4_mul::BITS, vec4_mul::ALL),
        (vec4_acc::BITS, vec4_acc::ALL),
        (float_mul::BITS, float_mul::ALL),
        (float_acc::BITS, float_acc::ALL),
        (combine_scalar::BITS, combine_scalar::ALL),
        (combine_vector::BITS, combine_vector::ALL),
        (combine_atan_pt2::BITS, combine_atan_pt2::ALL),
        (combine_atan_pt1::BITS, combine_atan_pt1::ALL),
        (temp_write::BITS, temp_write::ALL),
        (fb_read::BITS, fb_read::ALL),
        (branch::BITS, branch::ALL),
        (vec4_const::BITS, vec4_const::ALL),
    ];
    for (bits, fields) in layouts {
        for f in fields {
            assert!(f.lo + f.width <= bits, "{} exceeds its layout", f.name);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Instruction generator. `canonical` = the hidden fields (those the disassembler does not print) hold what the
// assembler fills in (asm.rs doc), so that asm(disasm(i)) == i can hold.

fn vreg(rng: &mut Rng) -> Vec4Reg {
    Vec4Reg::from_bits(rng.bits(4))
}

fn vsrc(rng: &mut Rng, mods: bool) -> Vec4Src {
    Vec4Src {
        reg: vreg(rng),
        swizzle: Swizzle(if rng.coin() { 0xE4 } else { rng.bits(8) as u8 }),
        abs: mods && rng.coin(),
        neg: mods && rng.coin(),
    }
}

fn ssrc(rng: &mut Rng) -> ScalarSrc {
    ScalarSrc {
        reg: ScalarReg(rng.bits(6) as u8),
        abs: rng.coin(),
        neg: rng.coin(),
    }
}

const ZV: Vec4Src = Vec4Src {
    reg: Vec4Reg::Gpr(0),
    swizzle: Swizzle(0),
    abs: false,
    neg: false,
};

/// What the assembler fills in for the unused arg1 of a one-source vec4 op (asm.rs `unused_vsrc`).
fn unused(arg0: &Vec4Src) -> Vec4Src {
    Vec4Src {
        swizzle: arg0.swizzle,
        ..ZV
    }
}
const ZS: ScalarSrc = ScalarSrc {
    reg: ScalarReg(0),
    abs: false,
    neg: false,
};

fn outmod(rng: &mut Rng) -> OutMod {
    OutMod::from_bits(rng.bits(2))
}

/// Random unknown bits of a layout (all of them if not canonical, the defaults if canonical).
fn unk(rng: &mut Rng, canonical: bool, layout: &[Field]) -> u128 {
    if canonical {
        unknown_defaults(layout)
    } else {
        (u128::from(rng.next()) | u128::from(rng.next()) << 64) & unknown_mask(layout)
    }
}

/// Any fp16 value; for canonical programs NaNs are the two quiet NaNs (`Instruction`'s `==`
/// compares floats, and NaN payloads print as raw bits anyway).
fn half(rng: &mut Rng, canonical: bool) -> f16 {
    let h = f16::from_bits(rng.bits(16) as u16);
    if !canonical {
        return h;
    }
    if h.is_nan() {
        return if h.is_sign_negative() {
            -f16::NAN
        } else {
            f16::NAN
        };
    }
    // Every other value, subnormals and values below `%f`'s 6 decimals included, prints so
    // that it reads back to the same bits.
    h
}

fn gen_varying(rng: &mut Rng, c: bool) -> Varying {
    let mask = rng.bits(4) as u8;
    let imm = |rng: &mut Rng| {
        let offset_vector = if rng.coin() { 0xF } else { rng.bits(4) as u8 };
        VaryingImm {
            alignment: if c {
                rng.pick(&[0, 1, 3])
            } else {
                rng.bits(2) as u8
            },
            index: rng.bits(6) as u8,
            offset_vector,
            offset_scalar: if c && offset_vector == 0xF {
                0
            } else {
                rng.bits(2) as u8
            },
        }
    };
    let reg = |rng: &mut Rng, norm_printed: bool| VaryingReg {
        src: vsrc(rng, true),
        normalize: (!c || norm_printed) && rng.coin(),
    };
    let comps = 8 - mask.leading_zeros();
    let special = VaryingImm {
        alignment: [0, 0, 1, 3, 3][comps as usize],
        index: 0,
        offset_vector: 0xF,
        offset_scalar: 0,
    };
    let persp = rng.bits(2) as u8;
    let source = match rng.below(8) {
        0 => VaryingSource::Varying {
            perspective: persp,
            imm: imm(rng),
        },
        1 => VaryingSource::Register {
            perspective: persp,
            reg: reg(rng, true),
        },
        2 => VaryingSource::CubeVarying(imm(rng)),
        3 => VaryingSource::CubeRegister(reg(rng, true)),
        4 => VaryingSource::Normalize(reg(rng, true)),
        5 => VaryingSource::FragCoord(if c { special } else { imm(rng) }),
        6 => VaryingSource::PointCoord(if c { special } else { imm(rng) }),
        _ => VaryingSource::FrontFacing(if c { special } else { imm(rng) }),
    };
    let layout = if source.kind().uses_register_layout() {
        varying_reg::ALL
    } else {
        varying_imm::ALL
    };
    Varying {
        dest: rng.bits(4) as u8,
        mask,
        source,
        unknown: unk(rng, c, layout),
    }
}

fn gen_combine(rng: &mut Rng, c: bool) -> Combine {
    let op = rng.pick(CombineOp::ALL);
    let arg1s = |rng: &mut Rng| {
        if c && op.num_srcs() < 2 {
            ZS
        } else {
            ssrc(rng)
        }
    };
    match rng.below(4) {
        0 => Combine::Scalar {
            op,
            dest: ScalarReg(rng.bits(6) as u8),
            modifier: outmod(rng),
            arg0: ssrc(rng),
            arg1: arg1s(rng),
        },
        1 => Combine::VecMul {
            dest: rng.bits(4) as u8,
            mask: rng.bits(4) as u8,
            arg0: ssrc(rng),
            arg1: vsrc(rng, false),
        },
        2 => Combine::AtanPt2 {
            dest: ScalarReg(rng.bits(6) as u8),
            modifier: outmod(rng),
            arg0: ssrc(rng),
            arg1: vsrc(rng, false),
        },
        _ => Combine::AtanPt1 {
            op,
            dest: rng.bits(4) as u8,
            mask: rng.bits(4) as u8,
            arg0: ssrc(rng),
            arg1: arg1s(rng),
        },
    }
}

fn gen_temp_write(rng: &mut Rng, c: bool) -> TempWrite {
    if rng.below(4) == 0 {
        let mut unknown = unk(rng, c, fb_read::ALL);
        unknown = fb_read::UNKNOWN_0.set(unknown, FB_READ_SELECT);
        return TempWrite::FbRead {
            color: rng.coin(),
            dest: rng.bits(4) as u8,
            unknown,
        };
    }
    let alignment = rng.bits(2) as u8;
    let offset_en = rng.coin();
    let source = rng.bits(6) as u8;
    TempWrite::Store {
        dest: if c {
            rng.pick(&[0, 1, 2, 3, 3, 3])
        } else {
            rng.bits(2) as u8
        },
        source: ScalarReg(if c && alignment != 0 {
            source & !3
        } else {
            source
        }),
        alignment,
        offset_reg: ScalarReg(if offset_en || !c {
            rng.bits(6) as u8
        } else {
            0
        }),
        offset_en,
        index: rng.next() as i16,
        unknown: unk(rng, c, isa::temp_write::ALL),
    }
}

fn gen_branch(rng: &mut Rng, c: bool) -> Branch {
    if rng.below(4) == 0 {
        return Branch::Discard;
    }
    let cond = BranchCond::from_mask(rng.bits(3) as u32);
    let always = c && cond == BranchCond::ALWAYS;
    let r = |rng: &mut Rng| ScalarReg(if always { 0 } else { rng.bits(6) as u8 });
    Branch::Branch {
        cond,
        arg0: r(rng),
        arg1: r(rng),
        target: isa::branch::TARGET.get_signed(u128::from(rng.next()) << 41) as i32,
        next_count: rng.bits(5) as u8,
        unknown: unk(rng, c, isa::branch::ALL),
    }
}

/// A random instruction with the units of `fields` (random units if 0). Control count/fields are left 0.
fn gen_instr(rng: &mut Rng, c: bool, fields: u32) -> Instruction {
    let fields = if fields != 0 {
        fields
    } else {
        let f = rng.word() & rng.word() & 0xFFF;
        if f == 0 {
            1 << rng.below(12)
        } else {
            f
        }
    };
    let has = |u: Unit| fields & u.presence_bit() != 0;
    let mut i = empty();
    if has(Unit::Varying) {
        i.varying = Some(gen_varying(rng, c));
    }
    if has(Unit::Sampler) {
        let lod_bias_en = rng.coin();
        let offset_en = rng.coin();
        i.sampler = Some(Sampler {
            lod_bias: ScalarReg(if lod_bias_en || !c {
                rng.bits(6) as u8
            } else {
                0
            }),
            index_offset: ScalarReg(if offset_en || !c {
                rng.bits(6) as u8
            } else {
                0
            }),
            explicit_lod: (lod_bias_en || !c) && rng.coin(),
            lod_bias_en,
            ty: SamplerType::from_bits(rng.bits(5)),
            offset_en,
            index: rng.bits(12) as u16,
            unknown: unk(rng, c, isa::sampler::ALL),
        });
    }
    if has(Unit::Uniform) {
        let offset_en = rng.coin();
        i.uniform = Some(UniformLoad {
            source: UniformSource::from_bits(rng.bits(2)),
            alignment: if c {
                rng.below(3) as u8
            } else {
                rng.bits(2) as u8
            },
            offset_reg: ScalarReg(if offset_en || !c {
                rng.bits(6) as u8
            } else {
                0
            }),
            offset_en,
            index: rng.next() as i16,
            unknown: unk(rng, c, isa::uniform::ALL),
        });
    }
    if has(Unit::Vec4Mul) {
        let op = rng.pick(MulOp::ALL);
        let mask = rng.bits(4) as u8;
        let arg0 = vsrc(rng, true);
        i.vec4_mul = Some(Vec4Mul {
            op,
            arg0,
            arg1: if c && op.num_srcs() < 2 {
                unused(&arg0)
            } else {
                vsrc(rng, true)
            },
            dest: if c && mask == 0 { 0 } else { rng.bits(4) as u8 },
            mask,
            modifier: outmod(rng),
        });
    }
    if has(Unit::FloatMul) {
        let op = rng.pick(MulOp::ALL);
        let output_en = rng.coin();
        i.float_mul = Some(FloatMul {
            op,
            arg0: ssrc(rng),
            arg1: if c && op.num_srcs() < 2 {
                ZS
            } else {
                ssrc(rng)
            },
            dest: ScalarReg(if c && !output_en {
                0
            } else {
                rng.bits(6) as u8
            }),
            output_en,
            modifier: outmod(rng),
        });
    }
    if has(Unit::Vec4Acc) {
        let op = rng.pick(AccOp::ALL);
        let mask = rng.bits(4) as u8;
        let mul_in = rng.coin();
        let mut arg0 = vsrc(rng, true);
        if c && mul_in {
            arg0.reg = Vec4Reg::Gpr(0);
        }
        i.vec4_acc = Some(Vec4Acc {
            op,
            arg0,
            arg1: if c && op.num_srcs() < 2 {
                unused(&arg0)
            } else {
                vsrc(rng, true)
            },
            dest: if c && mask == 0 { 0 } else { rng.bits(4) as u8 },
            mask,
            modifier: outmod(rng),
            mul_in,
        });
    }
    if has(Unit::FloatAcc) {
        let scalar_ops: Vec<AccOp> = AccOp::ALL
            .iter()
            .copied()
            .filter(|o| o.scalar_ok())
            .collect();
        let op = rng.pick(&scalar_ops);
        let output_en = rng.coin();
        let mul_in = rng.coin();
        let mut arg0 = ssrc(rng);
        if c && mul_in {
            arg0.reg = ScalarReg(0);
        }
        i.float_acc = Some(FloatAcc {
            op,
            arg0,
            arg1: if c && op.num_srcs() < 2 {
                ZS
            } else {
                ssrc(rng)
            },
            dest: ScalarReg(if c && !output_en {
                0
            } else {
                rng.bits(6) as u8
            }),
            output_en,
            modifier: outmod(rng),
            mul_in,
        });
    }
    if has(Unit::Combine) {
        i.combine = Some(gen_combine(rng, c));
    }
    if has(Unit::TempWrite) {
        i.temp_write = Some(gen_temp_write(rng, c));
    }
    if has(Unit::Branch) {
        i.branch = Some(gen_branch(rng, c));
    }
    if has(Unit::Const0) {
        i.const0 = Some(std::array::from_fn(|_| half(rng, c)));
    }
    if has(Unit::Const1) {
        i.const1 = Some(std::array::from_fn(|_| half(rng, c)));
    }
    let needs_sync = i.sampler.is_some()
        || i.vec4_acc
            .is_some_and(|a| matches!(a.op, AccOp::DFdx | AccOp::DFdy))
        || i.float_acc
            .is_some_and(|a| matches!(a.op, AccOp::DFdx | AccOp::DFdy));
    i.control.sync = needs_sync || rng.coin();
    i.control.stop = rng.coin();
    if !c {
        i.control.next_count = rng.bits(6) as u8;
        i.control.prefetch = rng.coin();
        i.control.unknown = rng.bits(6) as u8;
    }
    i
}

/// Fills in control `count` and `fields` from the units present.
fn finish(i: &mut Instruction) {
    i.control.fields = presence_mask(i) as u16;
    i.control.count = instr_words(presence_mask(i)) as u8;
}

/// A random canonical program of `n` instructions, branch targets on instruction starts, linked.
fn gen_program(rng: &mut Rng, n: usize) -> Vec<Instruction> {
    let mut p: Vec<Instruction> = (0..n).map(|_| gen_instr(rng, true, 0)).collect();
    let mut offsets = Vec::new();
    let mut off = 0i32;
    for i in &mut p {
        finish(i);
        offsets.push(off);
        off += i32::from(i.control.count);
    }
    for k in 0..n {
        let to = offsets[rng.below(n as u64) as usize];
        if let Some(Branch::Branch { target, .. }) = &mut p[k].branch {
            *target = to - offsets[k];
        }
    }
    link_program(&mut p).unwrap();
    p
}

// ---------------------------------------------------------------------------------------------------------
// Round trips

/// An instruction with its constants as bit patterns (`f16` NaN != NaN under `PartialEq`).
type Key = (Instruction, Option<[u16; 4]>, Option<[u16; 4]>);

fn key(i: &Instruction) -> Key {
    let mut c = i.clone();
    let k0 = c.const0.take().map(|v| v.map(f16::to_bits));
    let k1 = c.const1.take().map(|v| v.map(f16::to_bits));
    (c, k0, k1)
}

fn keys(p: &[Instruction]) -> Vec<Key> {
    p.iter().map(key).collect()
}

/// decode(encode(p)) == p and asm(disasm(p)) == p for a linked canonical program.
fn check_program(p: &[Instruction]) {
    let words = encode_program(p).unwrap_or_else(|e| panic!("encode: {e}\n{p:#?}"));
    assert_eq!(
        keys(&decode_program(&words).unwrap()),
        keys(p),
        "decode(encode(p))"
    );
    let text = disassemble_program(p);
    let back =
        assemble(&text).unwrap_or_else(|e| panic!("assemble failed:\n{e}\n--- text ---\n{text}"));
    for (k, (a, b)) in back.iter().zip(p).enumerate() {
        assert_eq!(
            key(a),
            key(b),
            "asm(disasm(p)) differs at instruction {k}:\n{text}"
        );
    }
    assert_eq!(back.len(), p.len());
}

/// One canonical single-unit instruction, linked as a one-instruction program.
fn single(mut i: Instruction) -> Vec<Instruction> {
    if let Some(Branch::Branch { target, .. }) = &mut i.branch {
        *target = 0;
    }
    if i.sampler.is_some() {
        i.control.sync = true;
    }
    let mut p = vec![i];
    link_program(&mut p).unwrap();
    p
}

#[test]
fn every_opcode_of_every_unit_round_trips() {
    let mut rng = Rng(0x5EED);
    let mut checked = 0;
    let srcs = |rng: &mut Rng| [ZV, vsrc(rng, true), vsrc(rng, true)];
    for modifier in [OutMod::None, OutMod::Sat, OutMod::Pos, OutMod::Int] {
        for &op in MulOp::ALL {
            for (k, arg) in srcs(&mut rng).into_iter().enumerate() {
                let mut i = empty();
                let two = op.num_srcs() > 1;
                i.vec4_mul = Some(Vec4Mul {
                    op,
                    arg0: arg,
                    arg1: if two {
                        vsrc(&mut rng, true)
                    } else {
                        unused(&arg)
                    },
                    dest: if k == 0 { 0 } else { k as u8 + 1 },
                    mask: [0, 0xF, 0x5][k],
                    modifier,
                });
                i.float_mul = Some(FloatMul {
                    op,
                    arg0: ssrc(&mut rng),
                    arg1: if two { ssrc(&mut rng) } else { ZS },
                    dest: ScalarReg(if k == 0 { 0 } else { 9 }),
                    output_en: k != 0,
                    modifier,
                });
                check_program(&single(i));
                checked += 2;
            }
        }
        for &op in AccOp::ALL {
            for k in 0..3 {
                let mut i = empty();
                let two = op.num_srcs() > 1;
                let mut arg0 = vsrc(&mut rng, true);
                if k == 1 {
                    arg0.reg = Vec4Reg::Gpr(0);
                }
                i.vec4_acc = Some(Vec4Acc {
                    op,
                    arg0,
                    arg1: if two {
                        vsrc(&mut rng, true)
                    } else {
                        unused(&arg0)
                    },
                    dest: if k == 2 { 0 } else { 3 },
                    mask: if k == 2 { 0 } else { 0xB },
                    modifier,
                    mul_in: k == 1,
                });
                if op.scalar_ok() {
                    let mut a0 = ssrc(&mut rng);
                    if k == 1 {
                        a0.reg = ScalarReg(0);
                    }
                    i.float_acc = Some(FloatAcc {
                        op,
                        arg0: a0,
                        arg1: if two { ssrc(&mut rng) } else { ZS },
                        dest: ScalarReg(if k == 2 { 0 } else { 50 }),
                        output_en: k != 2,
                        modifier,
                        mul_in: k == 1,
                    });
                }
                i.control.sync = matches!(op, AccOp::DFdx | AccOp::DFdy);
                check_program(&single(i));
                checked += 2;
            }
        }
        for &op in CombineOp::ALL {
            let two = op.num_srcs() > 1;
            let mut i = empty();
            i.combine = Some(Combine::Scalar {
                op,
                dest: ScalarReg(rng.bits(6) as u8),
                modifier,
                arg0: ssrc(&mut rng),
                arg1: if two { ssrc(&mut rng) } else { ZS },
            });
            check_program(&single(i.clone()));
            i.combine = Some(Combine::AtanPt1 {
                op,
                dest: 2,
                mask: 7,
                arg0: ssrc(&mut rng),
                arg1: if two { ssrc(&mut rng) } else { ZS },
            });
            check_program(&single(i));
            checked += 2;
        }
        let mut i = empty();
        i.combine = Some(Combine::AtanPt2 {
            dest: ScalarReg(5),
            modifier,
            arg0: ssrc(&mut rng),
            arg1: vsrc(&mut rng, false),
        });
        check_program(&single(i.clone()));
        i.combine = Some(Combine::VecMul {
            dest: 4,
            mask: 0xE,
            arg0: ssrc(&mut rng),
            arg1: vsrc(&mut rng, false),
        });
        check_program(&single(i));
        checked += 2;
    }
    // Load/store/branch/constant units: every kind, several random canonical instances each.
    for unit in [
        Unit::Varying,
        Unit::Sampler,
        Unit::Uniform,
        Unit::TempWrite,
        Unit::Branch,
        Unit::Const0,
        Unit::Const1,
    ] {
        for _ in 0..64 {
            check_program(&single(gen_instr(&mut rng, true, unit.presence_bit())));
            checked += 1;
        }
    }
    for m in 0..8 {
        let mut i = empty();
        i.branch = Some(Branch::Branch {
            cond: BranchCond::from_mask(m),
            arg0: ScalarReg(if m == 7 { 0 } else { 3 }),
            arg1: ScalarReg(if m == 7 { 0 } else { 61 }),
            target: 0,
            next_count: 0,
            unknown: 0,
        });
        check_program(&single(i));
        checked += 1;
    }
    println!("{checked} systematic unit instances round-tripped");
    assert!(checked > 700, "{checked}");
}

#[test]
fn random_instructions_decode_encode() {
    let mut rng = Rng(0xC0FFEE);
    let (mut ok, mut rejected) = (0, 0);
    for _ in 0..5000 {
        let mut i = gen_instr(&mut rng, false, 0);
        finish(&mut i);
        match encode_instruction(&i) {
            Ok(words) => {
                let d = decode_program(&words).unwrap_or_else(|e| panic!("{e}: {i:#?}"));
                assert_eq!(keys(&d), [key(&i)]);
                assert_eq!(encode_instruction(&d[0]).unwrap(), words);
                ok += 1;
            }
            // Random unknown bits may spell the fb_read selector inside a store, or the discard payload.
            Err(EncodeError::Invalid { .. }) => rejected += 1,
            Err(e) => panic!("{e}: {i:#?}"),
        }
    }
    println!("{ok} random instructions round-tripped, {rejected} rejected by the encoder");
    assert!(ok > 4500 && rejected < 500, "ok {ok}, rejected {rejected}");
}

#[test]
fn random_programs_asm_disasm() {
    let mut rng = Rng(0xABCD_1234);
    for n in 0..1500 {
        let p = gen_program(&mut rng, 1 + n % 6);
        check_program(&p);
    }
}

/// The corpus of `pp_fuzz.rs` (same seed and generator): every decodable word sequence re-encodes exactly.
#[test]
fn fuzz_corpus_encode_decode() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut decoded, mut instrs, mut padded) = (0, 0, 0);
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
        let mut out = Vec::new();
        let mut expected = words.clone();
        for i in &program {
            // The bits after the last unit in an instruction's final word belong to no field: the decoder
            // ignores them and the encoder writes 0, so they are cleared in the expectation.
            let bits: u32 = Unit::ALL
                .iter()
                .filter(|u| presence_mask(i) & u.presence_bit() != 0)
                .map(|u| u.bits())
                .sum();
            let last = out.len() + i.control.count as usize - 1;
            if !bits.is_multiple_of(32) {
                let keep = (1u32 << (bits % 32)) - 1;
                padded += usize::from(expected[last] & !keep != 0);
                expected[last] &= keep;
            }
            out.extend(encode_instruction(i).unwrap_or_else(|e| panic!("{e}: {i:#?}")));
            instrs += 1;
        }
        assert_eq!(out, expected[..out.len()], "iteration {iter}");
        assert!(words[out.len()..].iter().all(|&w| w == 0));
    }
    println!(
        "{decoded} programs, {instrs} instructions re-encoded; {padded} had nonzero padding bits"
    );
    assert!(
        decoded > 100 && instrs > 200,
        "{decoded} programs, {instrs} instructions"
    );
}

fn plausible_instruction(rng: &mut Rng, out: &mut Vec<u32>) {
    let fields = (rng.word() & 0xFFF).max(1);
    let count = instr_words(fields);
    let mut c = u128::from(rng.word() & 0x3F8_0020 | 0x40);
    c = control::COUNT.set(c, count.into());
    c = control::FIELDS.set(c, fields.into());
    out.push(c as u32);
    for _ in 1..count {
        let w = rng.word() & rng.word() & rng.word();
        out.push(if rng.next() & 3 != 0 { w } else { rng.word() });
    }
}

// ---------------------------------------------------------------------------------------------------------
// Assembler robustness and errors

#[test]
fn assembler_never_panics_on_mutated_text() {
    let mut rng = Rng(0xDEAD_BEEF);
    let alphabet: Vec<char> = "$^.,-+()<>_ \n#:@0123456789xyzwabcdefghijklmnopqrstuv\tµ€😀"
        .chars()
        .collect();
    let mut errors = 0;
    for n in 0..3000 {
        let p = gen_program(&mut rng, 1 + n % 4);
        let mut text: Vec<char> = disassemble_program(&p).chars().collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(text.len() as u64 + 1) as usize;
            match rng.below(4) {
                0 if at < text.len() => {
                    text.remove(at);
                }
                1 => text.insert(at, rng.pick(&alphabet)),
                2 if at < text.len() => text[at] = rng.pick(&alphabet),
                _ => {
                    let end = (at + rng.below(12) as usize).min(text.len());
                    let dup: Vec<char> = text[at..end].to_vec();
                    text.splice(at..at, dup);
                }
            }
        }
        let text: String = text.into_iter().collect();
        if let Err(e) = assemble(&text) {
            errors += 1;
            assert!(e.line >= 1 && e.column >= 1, "{e:?}");
            assert!(e.column <= e.source_line.chars().count() + 1, "{e:?}");
            assert!(e.to_string().ends_with('^'));
        }
    }
    assert!(errors > 500, "{errors}");
}

#[test]
fn assembler_errors_point_at_the_problem() {
    let cases: &[(&str, usize, usize, &str)] = &[
        ("mov.v0 $0 $12.xxxx", 1, 11, "general registers are $0..$11"),
        ("mov.v0 $0 $1.xyz", 1, 13, "four-letter swizzle"),
        ("add.v1 $0 $1 $2, mov.v0 $0 $1", 1, 18, "out of order"),
        ("\n  foo.v0 $0 $1", 2, 3, "expected a multiply-unit opcode"),
        ("mov.v0 $0 $1 $2 $3", 1, 14, "takes [DEST] and 1 source(s)"),
        ("texld 2", 1, 1, "needs sync"),
        ("branch 1", 1, 8, "word offset of an instruction"),
        ("sum3.s1 $0.x $1.x", 1, 1, "only on the vec4 add unit"),
        ("mul.s2 $0 $1.x -$2", 1, 16, "no abs/negate"),
        ("const0 1 2 3 1e9", 1, 14, "out of fp16 range"),
        ("load.v $0 64", 1, 11, "does not fit in 6 bits"),
        (
            "mov.v0 $0 $1,\n  # comment\n  bogus",
            3,
            3,
            "expected a unit",
        ),
        ("branch nowhere", 1, 8, "unknown label"),
    ];
    let mut bad = Vec::new();
    for (text, line, column, msg) in cases {
        let e = assemble(text).expect_err(text);
        if (e.line, e.column) != (*line, *column) || !e.message.contains(msg) {
            bad.push(format!(
                "{text:?}: expected {line}:{column} `{msg}`, got\n{e}"
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

#[test]
fn assembler_aliases_and_labels() {
    // Mesa spellings: ^v0/^s0 mul_in, omitted destinations, $12.x scalar destination, texld.2d, load..u1.
    let a = assemble(
        "mul.v0 $1 $2, mul.s0 $0.x $0.y, add.v1 ^v0 $3, add.s1 $12.x ^s0 $1.x, load..u1 3\n",
    );
    assert!(a.is_err(), "uniform after the add units is out of order");
    let p = assemble(
        "load..u1 3, mul.v0 $1 $2, mul.s0 $0.x $0.y, add.v1 ^v0 $3, add.s1 $12.x ^s0 $1.x",
    )
    .unwrap();
    let q = assemble("load.u1 3, mul.v0 ^vmul $1 $2, mul.s0 ^fmul $0.x $0.y, add.v1 _ ^vmul $3, add.s1 ^const0.x ^fmul $1.x")
        .unwrap();
    assert_eq!(p, q);
    assert_eq!(
        assemble("texld.2d 1, sync").unwrap(),
        assemble("texld 1, sync").unwrap()
    );
    // Labels and comments; a line ending in a comma continues.
    let p = assemble("top: # the loop head\n  mov.v0 $0 $1 ,\n  sync\n  branch.lt $0.x ^const0.x top, const0 0 0 0 0\n")
        .unwrap();
    assert_eq!(disassemble_program(&p), "@0: mov.v0 $0 $1 , sync\n@3: branch.lt $0.x ^const0.x 0, const0 0.000000 0.000000 0.000000 0.000000\n");
}

#[test]
fn every_fp16_constant_reads_back_to_its_bits() {
    for bits in (0..=u16::MAX).step_by(4) {
        let c = [0, 1, 2, 3].map(|i| f16::from_bits(bits + i));
        let mut ins = empty();
        ins.const0 = Some(c);
        let text = disassemble_instruction(&ins, 0);
        let back = assemble(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let read = back[0].const0.map(|c| c.map(f16::to_bits));
        assert_eq!(read, Some(c.map(f16::to_bits)), "{text}");
    }
}
