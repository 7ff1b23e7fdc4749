//! Simulator tests on hand-assembled programs (built field by field with the test-only packer in `common`),
//! with results computed by hand. fp16 expectations were computed independently (IEEE binary16 rounding).

mod common;

use common::{instr, link, payload};
use irc_lima::pp::isa::*;
use irc_lima::pp::sim::{run_words, LaneInputs, SimErrorKind};
use irc_lima::pp::texture::NoTextures;
use irc_lima::pp::{
    decode_program, disassemble_instruction, LodMode, Precision, QuadInputs, SampleRequest,
    SimOptions,
};

const ID: u64 = 0xE4;
/// binary16 0x3555, the nearest to 1/3.
const THIRD: f32 = 0.333_251_95;

fn quad(varyings: impl Fn(usize) -> Vec<[f32; 4]>) -> QuadInputs {
    QuadInputs {
        lanes: std::array::from_fn(|l| LaneInputs {
            varyings: varyings(l),
            ..Default::default()
        }),
        uniforms: vec![],
    }
}

/// `load.v $dest[.mask] index` (vec4 alignment, no offset) or `^discard` for dest 15.
fn load_v(index: u64, dest: u64, mask: u64) -> (Unit, u128) {
    use varying_imm as f;
    let p = payload(&[
        (f::ALIGNMENT, 3),
        (f::OFFSET_VECTOR, 0xF),
        (f::INDEX, index),
        (f::DEST, dest),
        (f::MASK, mask),
    ]);
    (Unit::Varying, p)
}

fn vmul(op: MulOp, a0: u64, a1: u64, dest: u64, mask: u64) -> (Unit, u128) {
    use vec4_mul as f;
    let p = payload(&[
        (f::ARG0_SOURCE, a0),
        (f::ARG0_SWIZZLE, ID),
        (f::ARG1_SOURCE, a1),
        (f::ARG1_SWIZZLE, ID),
        (f::DEST, dest),
        (f::MASK, mask),
        (f::OP, op.bits()),
    ]);
    (Unit::Vec4Mul, p)
}

fn konst(unit: Unit, v: [f32; 4]) -> (Unit, u128) {
    use vec4_const as f;
    let h = v.map(|x| u64::from(half::f16::from_f32(x).to_bits()));
    (
        unit,
        payload(&[(f::X, h[0]), (f::Y, h[1]), (f::Z, h[2]), (f::W, h[3])]),
    )
}

fn combine(op: CombineOp, src: u64, dest: u64) -> (Unit, u128) {
    use combine_scalar as f;
    (
        Unit::Combine,
        payload(&[(f::OP, op.bits()), (f::ARG0_SRC, src), (f::DEST, dest)]),
    )
}

fn text(words: &[u32]) -> Vec<String> {
    let p = decode_program(words).unwrap();
    let offs = irc_lima::pp::instr::instruction_offsets(&p);
    p.iter()
        .zip(offs)
        .map(|(i, o)| disassemble_instruction(i, o))
        .collect()
}

#[test]
fn mov_varying_to_output() {
    let words = instr(&[load_v(0, 0, 0xF)], true, false);
    assert_eq!(text(&words), ["load.v $0 0, stop"]);
    let inputs = quad(|l| vec![[0.1 * (l + 1) as f32, 0.5, -2.0, 1000.3]]);
    let out = run_words(&words, &inputs, &NoTextures, &SimOptions::default()).unwrap();
    // binary16 0x2E66, 0x3266, 0x34CD, 0x3666 = nearest to 0.1, 0.2, 0.3, 0.4.
    let x = [0x2E66u16, 0x3266, 0x34CD, 0x3666].map(|b| half::f16::from_bits(b).to_f32());
    for (l, &xl) in x.iter().enumerate() {
        assert_eq!(out.lanes[l].regs[0], [xl, 0.5, -2.0, 1000.5]);
        assert!(!out.lanes[l].discarded);
    }
    assert_eq!(out.steps, 1);
}

#[test]
fn vec4_mul_into_add_through_vmul() {
    let add = {
        use vec4_acc as f;
        let p = payload(&[
            (f::ARG0_SWIZZLE, ID),
            (f::ARG1_SOURCE, u64::from(reg::CONST1)),
            (f::ARG1_SWIZZLE, ID),
            (f::DEST, 1),
            (f::MASK, 0xF),
            (f::OP, AccOp::Add.bits()),
            (f::MUL_IN, 1),
        ]);
        (Unit::Vec4Acc, p)
    };
    let words = link(&[
        instr(&[load_v(0, 0, 0xF)], false, false),
        instr(
            &[
                vmul(MulOp::Mul, 0, u64::from(reg::CONST0), 0, 0),
                add,
                konst(Unit::Const0, [2.0, 3.0, 4.0, 5.0]),
                konst(Unit::Const1, [1.0, 1.0, 1.0, 0.5]),
            ],
            true,
            false,
        ),
    ]);
    assert_eq!(
        text(&words)[1],
        "mul.v0 ^vmul $0 ^const0, add.v1 $1 ^vmul ^const1, const0 2.000000 3.000000 4.000000 5.000000, \
         const1 1.000000 1.000000 1.000000 0.500000, stop"
    );
    let out = run_words(
        &words,
        &quad(|_| vec![[1.0, 2.0, 3.0, 4.0]]),
        &NoTextures,
        &SimOptions::default(),
    )
    .unwrap();
    for l in 0..4 {
        assert_eq!(out.lanes[l].regs[0], [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(out.lanes[l].regs[1], [3.0, 7.0, 13.0, 20.5]);
    }
}

#[test]
fn combiner_rcp_and_sin_in_turns() {
    let c = [3.0, 0.25, 0.0, 0.0];
    let words = link(&[
        instr(
            &[combine(CombineOp::Rcp, 48, 0), konst(Unit::Const0, c)],
            false,
            false,
        ),
        instr(
            &[combine(CombineOp::Sin, 49, 1), konst(Unit::Const0, c)],
            true,
            false,
        ),
    ]);
    assert_eq!(
        text(&words)[0],
        "rcp.s2 $0.x ^const0.x, const0 3.000000 0.250000 0.000000 0.000000"
    );
    let out = run_words(
        &words,
        &quad(|_| vec![]),
        &NoTextures,
        &SimOptions::default(),
    )
    .unwrap();
    assert_eq!(out.lanes[0].regs[0], [THIRD, 1.0, 0.0, 0.0]);
    let fp32 = SimOptions {
        precision: Precision::Fp32,
        ..Default::default()
    };
    let out = run_words(&words, &quad(|_| vec![]), &NoTextures, &fp32).unwrap();
    assert_eq!(out.lanes[3].regs[0][0], 1.0f32 / 3.0);
}

#[test]
fn texture_fetch() {
    let tex = {
        use sampler as f;
        (
            Unit::Sampler,
            payload(&[(f::INDEX, 5), (f::UNKNOWN_2, 0x39001)]),
        )
    };
    let body = [
        load_v(0, 15, 0xF),
        tex,
        vmul(MulOp::Mov, u64::from(reg::TEXTURE), 0, 0, 0xF),
    ];
    let words = instr(&body, true, true);
    assert_eq!(
        text(&words),
        ["load.v ^discard 0, texld 5, mov.v0 $0 ^texture , sync, stop"]
    );
    let sampler = |r: &SampleRequest| {
        assert_eq!(r.lod, LodMode::Auto);
        assert_eq!(r.ty, SamplerType::Generic);
        assert_eq!(r.quad_coords[r.lane], r.coords);
        [
            r.coords[0] + 1.0,
            r.coords[1],
            r.sampler as f32,
            r.lane as f32,
        ]
    };
    let inputs = quad(|l| vec![[l as f32 * 0.25, 0.5, 0.0, 1.0]]);
    let out = run_words(&words, &inputs, &sampler, &SimOptions::default()).unwrap();
    for l in 0..4 {
        assert_eq!(
            out.lanes[l].regs[0],
            [1.0 + l as f32 * 0.25, 0.5, 5.0, l as f32]
        );
    }
    // Without sync the fetch is rejected.
    let words = instr(&body, true, false);
    let err = run_words(&words, &inputs, &sampler, &SimOptions::default()).unwrap_err();
    assert_eq!(
        (err.word, err.kind),
        (0, SimErrorKind::MissingSync("texture fetch"))
    );
}

#[test]
fn conditional_discard() {
    // @0 load.v $0 0 (3 words); @3 branch.lt $0.x ^const0.x → @12 (6 words); @9 mov $1 $0, stop (3 words);
    // @12 discard, stop (4 words).
    let br = {
        use branch as f;
        let p = payload(&[
            (f::ARG0_SOURCE, 0),
            (f::ARG1_SOURCE, 48),
            (f::COND_LT, 1),
            (f::TARGET, 9),
            (f::NEXT_COUNT, 4),
        ]);
        (Unit::Branch, p)
    };
    let words = link(&[
        instr(&[load_v(0, 0, 0xF)], false, false),
        instr(
            &[br, konst(Unit::Const0, [0.5, 0.0, 0.0, 0.0])],
            false,
            false,
        ),
        instr(&[vmul(MulOp::Mov, 0, 0, 1, 0xF)], true, false),
        instr(&[(Unit::Branch, DISCARD_PAYLOAD)], true, false),
    ]);
    assert_eq!(
        text(&words),
        [
            "load.v $0 0",
            "branch.lt $0.x ^const0.x 12, const0 0.500000 0.000000 0.000000 0.000000",
            "mov.v0 $1 $0 , stop",
            "discard, stop"
        ]
    );
    let xs = [0.25, 0.75, 0.125, 0.875];
    let out = run_words(
        &words,
        &quad(|l| vec![[xs[l], 1.0, 2.0, 3.0]]),
        &NoTextures,
        &SimOptions::default(),
    )
    .unwrap();
    let discarded: Vec<bool> = out.lanes.iter().map(|l| l.discarded).collect();
    assert_eq!(discarded, [true, false, true, false]);
    assert_eq!(out.lanes[1].regs[1], [0.75, 1.0, 2.0, 3.0]);
    assert_eq!(out.lanes[3].regs[1], [0.875, 1.0, 2.0, 3.0]);
    assert_eq!(out.lanes[0].regs[1], [0.0; 4]);
}

#[test]
fn derivatives_across_the_quad() {
    let dfdx = {
        use vec4_acc as f;
        let p = payload(&[
            (f::ARG0_SWIZZLE, ID),
            (f::ARG1_SWIZZLE, ID),
            (f::ARG1_NEG, 1),
            (f::DEST, 1),
            (f::MASK, 0xF),
            (f::OP, AccOp::DFdx.bits()),
        ]);
        (Unit::Vec4Acc, p)
    };
    let dfdy = {
        use float_acc as f;
        let p = payload(&[
            (f::ARG0_SOURCE, 1),
            (f::ARG0_NEG, 1),
            (f::ARG1_SOURCE, 1),
            (f::DEST, 8),
            (f::OUTPUT_EN, 1),
            (f::OP, AccOp::DFdy.bits()),
        ]);
        (Unit::FloatAcc, p)
    };
    let words = link(&[
        instr(&[load_v(0, 0, 0xF)], false, false),
        instr(&[dfdx], false, true),
        instr(&[dfdy], true, true),
    ]);
    assert_eq!(
        text(&words)[1..],
        [
            "dFdx.v1 $1 $0 -$0, sync",
            "dFdy.s1 $2.x -$0.y $0.y, sync, stop"
        ]
    );
    // lane = y·2 + x; v.x = 3x + 10y, v.y = x + 5y.
    let inputs = quad(|l| {
        let (x, y) = ((l & 1) as f32, (l >> 1) as f32);
        vec![[3.0 * x + 10.0 * y, x + 5.0 * y, 7.0, 0.0]]
    });
    let out = run_words(&words, &inputs, &NoTextures, &SimOptions::default()).unwrap();
    for l in 0..4 {
        assert_eq!(out.lanes[l].regs[1], [3.0, 1.0, 0.0, 0.0]);
        assert_eq!(out.lanes[l].regs[2][0], 5.0);
    }
}

#[test]
fn intra_instruction_forwarding_and_strict_mode() {
    let add = {
        use vec4_acc as f;
        let p = payload(&[
            (f::ARG0_SOURCE, 1),
            (f::ARG0_SWIZZLE, ID),
            (f::ARG1_SOURCE, 1),
            (f::ARG1_SWIZZLE, ID),
            (f::DEST, 2),
            (f::MASK, 0xF),
            (f::OP, AccOp::Add.bits()),
        ]);
        (Unit::Vec4Acc, p)
    };
    let words = link(&[
        instr(&[load_v(0, 0, 0xF)], false, false),
        instr(&[vmul(MulOp::Mov, 0, 0, 1, 0xF), add], true, false),
    ]);
    let inputs = quad(|_| vec![[1.0, 2.0, 3.0, 4.0]]);
    let out = run_words(&words, &inputs, &NoTextures, &SimOptions::default()).unwrap();
    assert_eq!(out.lanes[2].regs[2], [2.0, 4.0, 6.0, 8.0]);
    let strict = SimOptions {
        strict_pipeline: true,
        ..Default::default()
    };
    let err = run_words(&words, &inputs, &NoTextures, &strict).unwrap_err();
    assert_eq!(
        (err.word, err.kind),
        (3, SimErrorKind::IntraInstructionRead { reg: 1, comp: 0 })
    );
}

#[test]
fn infinite_loop_runs_out_of_fuel() {
    let br = {
        use branch as f;
        let p = payload(&[
            (f::COND_LT, 1),
            (f::COND_EQ, 1),
            (f::COND_GT, 1),
            (f::TARGET, 0),
            (f::NEXT_COUNT, 4),
        ]);
        (Unit::Branch, p)
    };
    let words = instr(&[br], false, false);
    let opts = SimOptions {
        fuel: 50,
        ..Default::default()
    };
    let err = run_words(&words, &quad(|_| vec![]), &NoTextures, &opts).unwrap_err();
    assert_eq!(err.kind, SimErrorKind::OutOfFuel);
}

#[test]
fn reference_four_instruction_program_runs() {
    // lima.md §17 vector 2: $0.xy = v0.xy; ^discard.xy = v0.zw; $1 = texture; $2.y = sat($1.x·2); $2.x = 1/$1.w;
    // the last instruction is `branch 0, stop` (stop wins).
    let words = [
        0x02300083, 0x30003c20, 0x00000000, 0x023805c6, 0x3f043c20, 0x00000000, 0x39001002,
        0x13900e4e, 0x000007cf, 0x02264807, 0x00c93104, 0x0201c000, 0x040003c0, 0x04400420,
        0x04000380, 0x03400bc0, 0x00010024, 0x00070000, 0xffffe000, 0x0000003f,
    ];
    let sampler = |r: &SampleRequest| [r.coords[0] * 2.0, 0.0, 0.0, r.coords[1] * 4.0];
    let inputs = quad(|_| vec![[0.5, 0.25, 0.125, 0.75]]);
    let out = run_words(&words, &inputs, &sampler, &SimOptions::default()).unwrap();
    assert_eq!(out.steps, 4);
    assert_eq!(out.color(0)[0], [0.5, 0.25, 0.0, 0.0]);
    assert_eq!(out.color(1)[1], [0.25, 0.0, 0.0, 3.0]);
    assert_eq!(out.color(2)[2], [THIRD, 0.5, 0.0, 0.0]);
}
