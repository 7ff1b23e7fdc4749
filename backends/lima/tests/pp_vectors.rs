//! Reference test vectors (lima.md §17 and encodings stated elsewhere in lima.md): decoded fields and
//! disassembly text are compared with the values the reference states (or that were derived from its tables by
//! hand, noted inline), never with this crate's own output. Also structural checks of the field table.

use half::f16;
use irc_lima::pp::instr::*;
use irc_lima::pp::isa::{self, *};
use irc_lima::pp::{decode_program, disassemble_instruction, disassemble_program, DecodeError};

const PP_CLEAR: [u32; 8] = [
    0x00020425, 0x0000000c, 0x01e007cf, 0xb0000000, 0x000005f5, 0, 0, 0,
];

const FOUR: [u32; 20] = [
    0x02300083, 0x30003c20, 0x00000000, // @0
    0x023805c6, 0x3f043c20, 0x00000000, 0x39001002, 0x13900e4e, 0x000007cf, // @3
    0x02264807, 0x00c93104, 0x0201c000, 0x040003c0, 0x04400420, 0x04000380, 0x03400bc0, // @9
    0x00010024, 0x00070000, 0xffffe000, 0x0000003f, // @16
];

fn src(reg: Vec4Reg, swizzle: u8) -> Vec4Src {
    Vec4Src {
        reg,
        swizzle: Swizzle(swizzle),
        abs: false,
        neg: false,
    }
}

fn ssrc(code: u8) -> ScalarSrc {
    ScalarSrc {
        reg: ScalarReg(code),
        abs: false,
        neg: false,
    }
}

#[test]
fn pp_clear_program() {
    let p = decode_program(&PP_CLEAR).unwrap();
    assert_eq!(p.len(), 1);
    let i = &p[0];
    assert_eq!(
        i.control,
        Control {
            count: 5,
            stop: true,
            sync: false,
            fields: 0x408,
            next_count: 0,
            prefetch: false,
            unknown: 0
        }
    );
    assert_eq!(
        i.vec4_mul,
        Some(Vec4Mul {
            op: MulOp::Mov,
            arg0: src(Vec4Reg::Const0, 0x00),
            // Bits 14–27 of word 1 are 0: arg1 = $0.xxxx.
            arg1: src(Vec4Reg::Gpr(0), 0x00),
            dest: 0,
            mask: 0xF,
            modifier: OutMod::None,
        })
    );
    let c = i.const0.unwrap();
    // x = 0x3C00 (reference); w = 0xBEB6 derived by hand from words 3–4 (bits 27–42 of the stream after
    // const0's start) and equal to the quoted −1.677734.
    assert_eq!(c.map(f16::to_bits), [0x3C00, 0, 0, 0xBEB6]);
    assert!(i.const1.is_none() && i.varying.is_none() && i.branch.is_none());
    assert_eq!(
        disassemble_instruction(i, 0),
        "mov.v0 $0 ^const0.xxxx , const0 1.000000 0.000000 0.000000 -1.677734, stop"
    );
}

#[test]
fn four_instruction_program_fields() {
    let p = decode_program(&FOUR).unwrap();
    assert_eq!(p.len(), 4);
    assert_eq!(instruction_offsets(&p), vec![0, 3, 9, 16]);

    // @0
    assert_eq!(
        p[0].control,
        Control {
            count: 3,
            stop: false,
            sync: false,
            fields: 0x001,
            next_count: 6,
            prefetch: true,
            unknown: 0
        }
    );
    let v = p[0].varying.unwrap();
    assert_eq!((v.dest, v.mask), (0, 0x3));
    assert_eq!(
        v.source,
        VaryingSource::Varying {
            perspective: 0,
            imm: VaryingImm {
                alignment: 1,
                index: 0,
                offset_vector: 0xF,
                offset_scalar: 0
            }
        }
    );

    // @3
    assert_eq!(
        p[3 - 2].control,
        Control {
            count: 6,
            stop: false,
            sync: true,
            fields: 0x00B,
            next_count: 7,
            prefetch: true,
            unknown: 0
        }
    );
    let v = p[1].varying.unwrap();
    assert_eq!((v.dest, v.mask), (isa::reg::DISCARD, 0x3));
    assert!(matches!(
        v.source,
        VaryingSource::Varying {
            imm: VaryingImm {
                alignment: 1,
                index: 1,
                ..
            },
            ..
        }
    ));
    let s = p[1].sampler.unwrap();
    assert_eq!(s.index, 2);
    assert_eq!(sampler::UNKNOWN_2.get(s.unknown), 0x39001);
    assert_eq!(s.ty, SamplerType::Generic);
    assert!(!s.lod_bias_en && !s.offset_en && !s.explicit_lod);
    let m = p[1].vec4_mul.unwrap();
    assert_eq!(m.arg0, src(Vec4Reg::Texture, 0xE4));
    assert_eq!(
        (m.dest, m.mask, m.op, m.modifier),
        (1, 0xF, MulOp::Mov, OutMod::None)
    );

    // @9
    assert_eq!(
        p[2].control,
        Control {
            count: 7,
            stop: false,
            sync: false,
            fields: 0xC90,
            next_count: 4,
            prefetch: true,
            unknown: 0
        }
    );
    assert_eq!(
        p[2].float_mul,
        Some(FloatMul {
            op: MulOp::Mul,
            arg0: ssrc(4),
            arg1: ssrc(49),
            dest: ScalarReg(9),
            output_en: true,
            modifier: OutMod::Sat,
        })
    );
    match p[2].combine.unwrap() {
        Combine::Scalar {
            op,
            dest,
            modifier,
            arg0,
            ..
        } => {
            assert_eq!(
                (op, dest, modifier, arg0),
                (CombineOp::Rcp, ScalarReg(8), OutMod::None, ssrc(7))
            );
        }
        other => panic!("expected scalar combiner, got {other:?}"),
    }
    let f = |v: [f32; 4]| v.map(f16::from_f32);
    assert_eq!(p[2].const0, Some(f([1.0, 2.0, 3.0, 4.0])));
    assert_eq!(p[2].const1, Some(f([0.5, 2.0, -1.0, 0.25])));

    // @16
    assert_eq!(
        p[3].control,
        Control {
            count: 4,
            stop: true,
            sync: false,
            fields: 0x200,
            next_count: 0,
            prefetch: false,
            unknown: 0
        }
    );
    match p[3].branch.unwrap() {
        Branch::Branch {
            cond,
            target,
            next_count,
            arg0,
            arg1,
            unknown,
        } => {
            assert_eq!(cond, BranchCond::ALWAYS);
            assert_eq!((target, next_count), (-16, 3));
            assert_eq!((arg0, arg1, unknown), (ScalarReg(0), ScalarReg(0), 0));
        }
        Branch::Discard => panic!("expected a branch"),
    }
}

#[test]
fn four_instruction_program_text() {
    let p = decode_program(&FOUR).unwrap();
    let expected = "\
@0: load.v $0.xy 0.xy
@3: load.v ^discard.xy 0.zw, texld 2, mov.v0 $1 ^texture , sync
@9: mul.sat.s0 $2.y $1.x ^const0.y, rcp.s2 $2.x $1.w, const0 1.000000 2.000000 3.000000 4.000000, const1 0.500000 2.000000 -1.000000 0.250000
@16: branch 0, stop
";
    assert_eq!(disassemble_program(&p), expected);
}

#[test]
fn discard_encoding() {
    // §4.8: word0 = 0x007F0003, word1 = 0, word2 (9 bits) = 0; branch unit only (fields 0x200 → 4 words).
    let ctrl = 4 | 1 << 5 | 0x200 << 7;
    let p = decode_program(&[ctrl, 0x007F_0003, 0, 0]).unwrap();
    assert_eq!(p[0].branch, Some(Branch::Discard));
    assert_eq!(disassemble_instruction(&p[0], 0), "discard, stop");
    // One bit off is an ordinary branch again.
    let p = decode_program(&[ctrl, 0x007F_0003, 0, 1 << 8]).unwrap();
    assert!(matches!(p[0].branch, Some(Branch::Branch { .. })));
}

#[test]
fn swizzle_and_register_codes() {
    // §3.4 and the old text's swizzle table.
    for (code, text) in [
        (0xE4u8, [0, 1, 2, 3]),
        (0x00, [0; 4]),
        (0x44, [0, 1, 0, 1]),
        (0x50, [0, 0, 1, 1]),
    ] {
        let s = Swizzle(code);
        assert_eq!(std::array::from_fn::<usize, 4, _>(|i| s.lane(i)), text);
        assert_eq!(Swizzle::new(text.map(|c| c as u8)), s);
    }
    assert_eq!(Swizzle::IDENTITY, Swizzle(0xE4));
    // §3.2: $0.x = 0, $5.w = 23, ^const0.x = 48, ^const1 = 52, ^texture = 56, ^uniform = 60.
    assert_eq!(ScalarReg(23).vec4(), Vec4Reg::Gpr(5));
    assert_eq!(ScalarReg(23).comp(), 3);
    assert_eq!(ScalarReg(48).vec4(), Vec4Reg::Const0);
    assert_eq!(ScalarReg(52).vec4(), Vec4Reg::Const1);
    assert_eq!(ScalarReg(56).vec4(), Vec4Reg::Texture);
    assert_eq!(ScalarReg(63).vec4(), Vec4Reg::Uniform);
    assert_eq!(reg::scalar(12, 1), 49);
}

#[test]
fn unit_sizes_and_limits() {
    // §2.2 sizes, §2 max instruction 19 words.
    let sizes: Vec<u32> = Unit::ALL.iter().map(|u| u.bits()).collect();
    assert_eq!(sizes, [34, 62, 41, 43, 30, 44, 31, 30, 41, 73, 64, 64]);
    assert_eq!(MAX_PAYLOAD_BITS, 557);
    assert_eq!(MAX_INSTR_WORDS, 19);
    assert_eq!(instr_words(0xFFF), 19);
    assert_eq!(instr_words(0x408), 5);
    // Control word bit positions, §2.1.
    assert_eq!(
        (control::STOP.lo, control::SYNC.lo, control::FIELDS.lo),
        (5, 6, 7)
    );
    assert_eq!(
        (
            control::NEXT_COUNT.lo,
            control::PREFETCH.lo,
            control::UNKNOWN.lo
        ),
        (19, 25, 26)
    );
}

#[test]
fn every_layout_covers_its_unit_exactly() {
    let layouts: [(&str, u32, &[Field]); 18] = [
        ("control", control::BITS, control::ALL),
        ("varying_imm", varying_imm::BITS, varying_imm::ALL),
        ("varying_reg", varying_reg::BITS, varying_reg::ALL),
        ("sampler", sampler::BITS, sampler::ALL),
        ("uniform", uniform::BITS, uniform::ALL),
        ("vec4_mul", vec4_mul::BITS, vec4_mul::ALL),
        ("vec4_acc", vec4_acc::BITS, vec4_acc::ALL),
        ("float_mul", float_mul::BITS, float_mul::ALL),
        ("float_acc", float_acc::BITS, float_acc::ALL),
        ("combine_scalar", combine_scalar::BITS, combine_scalar::ALL),
        ("combine_vector", combine_vector::BITS, combine_vector::ALL),
        (
            "combine_atan_pt2",
            combine_atan_pt2::BITS,
            combine_atan_pt2::ALL,
        ),
        (
            "combine_atan_pt1",
            combine_atan_pt1::BITS,
            combine_atan_pt1::ALL,
        ),
        ("temp_write", temp_write::BITS, temp_write::ALL),
        ("fb_read", fb_read::BITS, fb_read::ALL),
        ("branch", branch::BITS, branch::ALL),
        ("vec4_const", vec4_const::BITS, vec4_const::ALL),
        (
            "varying_imm (again, size check)",
            Unit::Varying.bits(),
            varying_imm::ALL,
        ),
    ];
    for (name, bits, fields) in layouts {
        let mut next = 0;
        for f in fields {
            assert_eq!(f.lo, next, "{name}: gap or overlap before {}", f.name);
            next += f.width;
        }
        assert_eq!(next, bits, "{name}: fields do not end at the unit size");
    }
}

#[test]
fn opcode_tables_round_trip() {
    for op in MulOp::ALL {
        assert_eq!(MulOp::from_bits(op.bits()), Some(*op));
    }
    for op in AccOp::ALL {
        assert_eq!(AccOp::from_bits(op.bits()), Some(*op));
    }
    for op in CombineOp::ALL {
        assert_eq!(CombineOp::from_bits(op.bits()), Some(*op));
    }
    // §5 spot checks.
    assert_eq!(MulOp::from_bits(0x0D), Some(MulOp::Gt));
    assert_eq!(MulOp::from_bits(0x1F), Some(MulOp::Mov));
    assert_eq!(MulOp::MulShr1.shift(), -1);
    assert_eq!(MulOp::MulShl3.shift(), 3);
    assert_eq!(AccOp::from_bits(0x17), Some(AccOp::Sel));
    assert_eq!(AccOp::from_bits_scalar(0x10), None);
    assert_eq!(CombineOp::from_bits(6), Some(CombineOp::Sin));
    assert_eq!(BranchCond::from_mask(3).name(), "le");
    assert_eq!(BranchCond::from_mask(6).name(), "ge");
}

#[test]
fn decode_errors_carry_word_offsets() {
    // Count mismatch in the second instruction (word 3).
    let mut w = FOUR.to_vec();
    w[3] = (w[3] & !0x1F) | 5;
    assert_eq!(
        decode_program(&w),
        Err(DecodeError::CountMismatch {
            word: 3,
            count: 5,
            expected: 6
        })
    );
    // Truncated last instruction.
    assert!(matches!(
        decode_program(&FOUR[..19]),
        Err(DecodeError::Truncated { word: 16, .. })
    ));
    // Unknown vec4 mul opcode 0x12 in the clear program.
    let mut w = PP_CLEAR.to_vec();
    w[2] = (w[2] & !(0x1F << 6)) | (0x12 << 6);
    assert!(matches!(
        decode_program(&w),
        Err(DecodeError::UnknownOpcode {
            word: 0,
            op: 0x12,
            ..
        })
    ));
    assert_eq!(decode_program(&[]), Err(DecodeError::EmptyProgram));
}
