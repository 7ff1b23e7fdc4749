//! Encoding table (DESIGN rule 10): (instruction text, token bytes) from the reference's
//! examples (§3, §4), plus the layout, opcode and limit tables against the reference.

use irc_agal::asm::assemble_as;
use irc_agal::decode::{decode_program, decode_token, RawToken};
use irc_agal::disasm::instruction_text;
use irc_agal::encode::{encode_header, encode_instruction, encode_program};
use irc_agal::isa::{self, RegType, TOKEN_BYTES};
use irc_agal::{Opcode, Program, ShaderKind};

use super::{hex, round_trip, F, V};

/// (kind, version, canonical text, token bytes).
const TABLE: &[(ShaderKind, u32, &str, &str)] = &[
    // FilterEffect.as: op = type 3, mask f; va0 / vc0 identity swizzles.
    (V, 1, "m44 op, va0, vc0", "18000000 00000f03 000000e4 00000000 000000e4 01000000"),
    (V, 1, "mov v0, va1", "00000000 00000f04 010000e4 00000000 00000000 00000000"),
    (V, 1, "mul v1, va2, vc4", "03000000 01000f04 020000e4 00000000 040000e4 01000000"),
    // §4.2 indirect examples: vc[va0.x+5] / vc[va1.w+10].
    (V, 1, "mov vt0, vc[va0.x+5]", "00000000 00000f02 000005e4 01000080 00000000 00000000"),
    (V, 1, "add vt1.xy, vc[va1.w+10], vt0.zw", "01000000 01000302 01000ae4 01000380 000000fe 02000000"),
    (V, 2, "mov vt0, vc[vt1.y]", "00000000 00000f02 010000e4 01020180 00000000 00000000"),
    // §4.3 sampler example: fs3 <2d,linear,repeat,mipnearest,-1.5,dxt5> → 03 00 f4 00 05 02 10 11.
    (F, 1, "tex ft0, v0, fs3 <2d,linear,repeat,mipnearest,-1.5,dxt5>", "28000000 00000f02 000000e4 04000000 0300f400 05021011"),
    (F, 1, "tex ft1, v0, fs0 <cube,linear,clamp,miplinear>", "28000000 01000f02 000000e4 04000000 00000000 05100012"),
    (F, 1, "tex ft2, v1.xyyy, fs7 <2d,nearest,clamp,mipnone,rect_none>", ""),
    (F, 2, "tex ft0, v0, fs15 <2d,anisotropic16x,repeat_u_clamp_v,mipnone,0.125,video,centroid,ignoresampler>", "28000000 00000f02 000000e4 04000000 0f000100 05033550"),
    (F, 1, "mul oc, ft0, v1", "03000000 00000f03 000000e4 02000000 010000e4 04000000"),
    // Scalar swizzles (.x = 0x00, .y = 0x55, .z = 0xaa, .w = 0xff) and xyzz padding.
    (F, 1, "kil ft0.x", "27000000 00000000 00000000 02000000 00000000 00000000"),
    (F, 1, "dp3 ft1.x, ft0.xyz, fc0", "12000000 01000102 000000a4 02000000 000000e4 01000000"),
    (F, 1, "div ft0.xyz, ft0.xyz, ft0.w", "04000000 00000702 000000a4 02000000 000000ff 02000000"),
    (F, 1, "nrm ft3.xyz, v2", "0e000000 03000702 020000e4 04000000 00000000 00000000"),
    (F, 1, "m33 ft0.xyz, ft1, fc2", "17000000 00000702 010000e4 02000000 020000e4 01000000"),
    (V, 1, "m34 vt0.xyz, va0, vc8", "19000000 00000702 000000e4 00000000 080000e4 01000000"),
    (F, 1, "sat ft0, ft0.yxwz", "16000000 00000f02 000000b1 02000000 00000000 00000000"),
    (F, 1, "sge ft0.yw, v0.z, fc27", "29000000 00000a02 000000aa 04000000 1b0000e4 01000000"),
    // AGAL2: ddx/ddy, if/else, MRT and depth output.
    (F, 2, "ddx ft0, v0", "1a000000 00000f02 000000e4 04000000 00000000 00000000"),
    (F, 2, "ddy ft1.x, ft0.y", "1b000000 01000102 00000055 02000000 00000000 00000000"),
    (F, 2, "ife ft0.x, fc0.y", "1c000000 00000000 00000000 02000000 00000055 01000000"),
    (F, 2, "ine v0.w, fc63.x", "1d000000 00000000 000000ff 04000000 3f000000 01000000"),
    (F, 2, "ifg ft25.z, fc1.z", "1e000000 00000000 190000aa 02000000 010000aa 01000000"),
    (F, 2, "ifl v9.x, fc0.x", "1f000000 00000000 09000000 04000000 00000000 01000000"),
    (F, 2, "els", "20000000 00000000 00000000 00000000 00000000 00000000"),
    (F, 2, "eif", "21000000 00000000 00000000 00000000 00000000 00000000"),
    (F, 2, "mov oc3, ft0", "00000000 03000f03 000000e4 02000000 00000000 00000000"),
    (F, 2, "mov fd.x, ft0.z", "00000000 00000106 000000aa 02000000 00000000 00000000"),
    // AGAL3: instance id, attribute 15.
    (V, 3, "add vt0, va15, iid.x", "01000000 00000f02 0f0000e4 00000000 00000000 07000000"),
];

#[test]
fn encoding_table() {
    for &(kind, version, text, bytes) in TABLE {
        if bytes.is_empty() {
            // An entry whose text must be rejected (unknown sampler option).
            assert!(assemble_as(text, kind, version).is_err(), "{text}");
            continue;
        }
        let want = hex(bytes);
        assert_eq!(want.len(), TOKEN_BYTES, "{text}");
        let p = assemble_as(text, kind, version).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(p.instructions.len(), 1);
        let i = p.instructions[0];
        let got = encode_instruction(&i);
        assert_eq!(got.len(), TOKEN_BYTES, "no token exceeds 24 bytes");
        assert_eq!(got.to_vec(), want, "encoding of `{text}`");
        let back =
            decode_token(&RawToken::read(&want), 7).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(back, i, "decoding of `{text}`");
        assert_eq!(instruction_text(&back, kind), text, "disassembly");
        round_trip(&encode_program(&p));
    }
}

#[test]
fn headers() {
    assert_eq!(encode_header(2, V).to_vec(), hex("a0 02 00 00 00 a1 00"));
    assert_eq!(encode_header(3, F).to_vec(), hex("a0 03 00 00 00 a1 01"));
    let p = Program {
        version: 1,
        kind: V,
        instructions: vec![],
    };
    assert_eq!(encode_program(&p), hex("a0 01 00 00 00 a1 00"));
    assert_eq!(decode_program(&hex("a0 01 00 00 00 a1 00")).unwrap(), p);
}

#[test]
fn assembler_spellings() {
    // Aliases and padding of the mini-assemblers (§8) give the canonical encodings.
    let same = [
        ("mov vo, va0", "mov op, va0", V),
        ("mov fo0, fi0", "mov oc, v0", F),
        ("mov ft0, i1.xy", "mov ft0, v1.xyyy", F),
        (
            "tex ft0, v0, fs0 <2d, rgba>",
            "tex ft0, v0, fs0 <2d,nearest,clamp,mipnone>",
            F,
        ),
        (
            "tex ft0,v0,fs0<wrap,nomip,compressedalpha,linear,depth>",
            "tex ft0, v0, fs0 <2d,linear,repeat,mipnone,dxt5,ignoresampler>",
            F,
        ),
        (
            "MUL ft0.xyzw, ft1.xyzw, fc0 // comment",
            "mul ft0, ft1, fc0",
            F,
        ),
        ("mov od.x, ft0", "mov fd.x, ft0", F),
        ("seq vt4.z, vt4.y vc6.x", "seq vt4.z, vt4.y, vc6.x", V),
    ];
    for (a, b, kind) in same {
        assert_eq!(
            assemble_as(a, kind, 2).unwrap_or_else(|e| panic!("{e}: {a}")),
            assemble_as(b, kind, 2).unwrap(),
            "{a}"
        );
    }
}

#[test]
fn assembler_errors_have_positions() {
    let cases = [
        ("mov ft0, v0\nfoo ft0, v0", 2, 1),
        ("mov ft0, v0\n  add ft0, v0", 2, 14),
        ("mov ft0, vq0", 1, 10),
        ("mov ft0.xq, v0", 1, 9),
        ("tex ft0, v0, fs0 <2d,bogus>", 1, 22),
        ("mov ft0, v0, v1", 1, 12),
        ("mov ft0, v0.xyzwx", 1, 13),
        ("mov vc[va0.x], v0", 1, 7),
        ("tex ft0, v0, ft1", 1, 14),
        ("mov ft0, vc[va0.x+300]", 1, 19),
    ];
    for (text, line, column) in cases {
        let e = assemble_as(text, F, 2).expect_err(text);
        assert_eq!((e.line, e.column), (line, column), "{text}: {e}");
    }
    let e = irc_agal::asm::assemble("mov ft0, v0").unwrap_err();
    assert!(e.message.contains(".agal"), "{e}");
}

/// Fuzz finding (tools/fuzz, agal_asm): the assembler accepted `.agal vertex 11`, a header the
/// decoder rejects (and whose version does not fit the header byte at 256 and above).
#[test]
fn assembler_rejects_versions_the_decoder_rejects() {
    for v in [0u32, 4, 11, 256] {
        let e = irc_agal::asm::assemble(&format!(".agal vertex {v}\nmov op, va0")).unwrap_err();
        assert_eq!((e.line, e.column), (1, 14), "{e}");
        assert!(e.message.contains("unsupported AGAL version"), "{e}");
        let e = assemble_as("mov op, va0", irc_agal::isa::ShaderKind::Vertex, v).unwrap_err();
        assert!(e.message.contains("unsupported AGAL version"), "{e}");
    }
    for v in 1..=3 {
        let p = irc_agal::asm::assemble(&format!(".agal vertex {v}\nmov op, va0")).unwrap();
        let bytes = irc_agal::encode::encode_program(&p);
        assert_eq!(irc_agal::decode::decode_program(&bytes).unwrap(), p);
    }
}

/// Every layout covers its bits exactly once (reserved fields included).
#[test]
fn layouts_cover_their_bits() {
    for (name, bits, fields) in [
        ("dest", isa::dest::BITS, isa::dest::ALL),
        ("source", isa::source::BITS, isa::source::ALL),
        ("sampler", isa::sampler::BITS, isa::sampler::ALL),
    ] {
        let mut covered = 0u128;
        for f in fields {
            assert_eq!(covered & f.mask(), 0, "{name}.{} overlaps", f.name);
            covered |= f.mask();
        }
        assert_eq!(covered, (1u128 << bits) - 1, "{name} leaves bits uncovered");
    }
}

/// The opcode table against §6.1/§6.2.
#[test]
fn opcode_table_matches_reference() {
    let v1 = [
        ("mov", 0x00),
        ("add", 0x01),
        ("sub", 0x02),
        ("mul", 0x03),
        ("div", 0x04),
        ("rcp", 0x05),
        ("min", 0x06),
        ("max", 0x07),
        ("frc", 0x08),
        ("sqt", 0x09),
        ("rsq", 0x0A),
        ("pow", 0x0B),
        ("log", 0x0C),
        ("exp", 0x0D),
        ("nrm", 0x0E),
        ("sin", 0x0F),
        ("cos", 0x10),
        ("crs", 0x11),
        ("dp3", 0x12),
        ("dp4", 0x13),
        ("abs", 0x14),
        ("neg", 0x15),
        ("sat", 0x16),
        ("m33", 0x17),
        ("m44", 0x18),
        ("m34", 0x19),
        ("kil", 0x27),
        ("tex", 0x28),
        ("sge", 0x29),
        ("slt", 0x2A),
        ("seq", 0x2C),
        ("sne", 0x2D),
    ];
    let v2 = [
        ("ddx", 0x1A),
        ("ddy", 0x1B),
        ("ife", 0x1C),
        ("ine", 0x1D),
        ("ifg", 0x1E),
        ("ifl", 0x1F),
        ("els", 0x20),
        ("eif", 0x21),
    ];
    for (m, code) in v1 {
        let op = Opcode::from_mnemonic(m).unwrap();
        assert_eq!((op.bits(), op.min_version()), (code, Some(1)), "{m}");
        assert!(op.emittable());
    }
    for (m, code) in v2 {
        let op = Opcode::from_mnemonic(m).unwrap();
        assert_eq!((op.bits(), op.min_version()), (code, Some(2)), "{m}");
    }
    assert_eq!(
        Opcode::ALL.len(),
        v1.len() + v2.len() + 3,
        "plus ted, sgn, tld"
    );
    assert!(!Opcode::Ted.emittable() && !Opcode::Sgn.emittable() && !Opcode::Tld.emittable());
    assert_eq!(
        Opcode::from_bits(0x22),
        None,
        "old speculative codes are gone"
    );
    for op in Opcode::ALL {
        assert_eq!(Opcode::from_bits(op.bits()), Some(*op));
    }
}

/// Register limits against the table of §5.
#[test]
fn register_limits_match_reference() {
    use RegType::*;
    let rows: [(RegType, [u32; 6]); 8] = [
        // v1 frag, v1 vert, v2 frag, v2 vert, v3 frag, v3 vert
        (Attribute, [0, 8, 0, 8, 0, 16]),
        (Constant, [28, 128, 64, 250, 200, 250]),
        (Temporary, [8, 8, 26, 26, 26, 26]),
        (Output, [1, 1, 4, 1, 4, 1]),
        (Varying, [8, 8, 10, 10, 10, 10]),
        (Sampler, [8, 0, 16, 0, 16, 0]),
        (DepthOutput, [0, 0, 1, 0, 1, 0]),
        (InstanceId, [0, 0, 0, 0, 0, 1]),
    ];
    for (ty, want) in rows {
        for (k, w) in want.iter().enumerate() {
            let version = k as u32 / 2 + 1;
            let kind = if k % 2 == 0 { F } else { V };
            assert_eq!(ty.limit(version, kind), *w, "{ty:?} v{version} {kind:?}");
        }
    }
    assert_eq!(
        [isa::max_tokens(1), isa::max_tokens(2), isa::max_tokens(3)],
        [200, 1024, 2048]
    );
}

/// Decoder errors name the byte offset and what is wrong.
#[test]
fn decode_errors() {
    use irc_agal::decode::DecodeErrorKind as K;
    let ok = super::asm(F, 1, "mov ft0, v0\nmov oc, ft0");
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = ok.clone();
        f(&mut b);
        decode_program(&b)
            .map(|_| ())
            .map_err(|e| (e.offset, e.kind))
    };
    assert_eq!(with(&|_| ()), Ok(()));
    assert_eq!(with(&|b| b.truncate(3)), Err((0, K::TooShort(3))));
    assert_eq!(with(&|b| b[0] = 0), Err((0, K::BadMagic(0))));
    assert_eq!(with(&|b| b[1] = 9), Err((1, K::BadVersion(9))));
    assert_eq!(with(&|b| b[5] = 0), Err((5, K::BadTypeId(0))));
    assert_eq!(with(&|b| b[6] = 7), Err((6, K::BadShaderType(7))));
    assert_eq!(with(&|b| b.push(1)), Err((55, K::PartialToken(49))));
    assert_eq!(with(&|b| b[31] = 0x30), Err((31, K::UnknownOpcode(0x30))));
    assert_eq!(with(&|b| b[31 + 7] = 9), Err((35, K::UnknownRegType(9))));
    assert_eq!(
        with(&|b| b[31 + 6] |= 0x10),
        Err((35, K::Reserved(1 << 20, "destination")))
    );
    assert_eq!(
        with(&|b| b[31 + 16] = 1),
        Err((47, K::UnusedNotZero("source 2", 1)))
    );
    assert_eq!(
        with(&|b| b[31 + 10] = 1),
        Err((39, K::IndirectFieldsInDirect(1 << 16)))
    );
    assert_eq!(with(&|b| b[31 + 12] = 5), Err((39, K::UnexpectedSampler)));
    let tex = super::asm(F, 1, "tex ft0, v0, fs0 <2d>\nmov oc, ft0");
    let mut b = tex.clone();
    b[7 + 23] = 0x70;
    let e = decode_program(&b).unwrap_err();
    assert_eq!(
        (e.offset, e.kind.clone()),
        (23, K::BadSamplerValue("filter", 7))
    );
    assert_eq!(e.to_string(), "byte 23: unknown sampler filter value 7");
    let mut b = tex;
    b[7 + 20] = 4;
    assert_eq!(decode_program(&b).unwrap_err().kind, K::NotASampler(4));
}

#[test]
fn encoder_checks_field_widths() {
    use irc_agal::encode::encode_program_checked;
    use irc_agal::{Dest, Instruction, Source};
    let mut p = irc_agal::asm::assemble_as("mov ft0, v0\nmov oc, ft0", F, 1).unwrap();
    assert!(encode_program_checked(&p).is_ok());
    p.instructions[1] = Instruction::unary(
        Opcode::Mov,
        Dest::new(RegType::Output, 0).masked(0x1F),
        Source::new(RegType::Temporary, 0),
    );
    let e = encode_program_checked(&p).unwrap_err();
    assert_eq!((e.token, e.field), (2, "MASK"));
}

/// The structured constructors the compiler side will use give what the assembler gives.
#[test]
fn constructors_match_the_assembler() {
    use irc_agal::isa::{swizzle, Filter, Mipmap, Wrap};
    use irc_agal::{Dest, Instruction, Sampler, Source};
    let t = |r| Source::new(RegType::Temporary, r);
    let fc = |r| Source::new(RegType::Constant, r);
    let v = |r| Source::new(RegType::Varying, r);
    let sampler = Sampler {
        reg: 1,
        lod_bias: Sampler::bias_field(-0.5).unwrap(),
        filter: Filter::Linear,
        wrap: Wrap::Repeat,
        mipmap: Mipmap::Linear,
        ..Sampler::default()
    };
    let built = Program {
        version: 2,
        kind: F,
        instructions: vec![
            Instruction::tex(Dest::new(RegType::Temporary, 0), v(0), sampler),
            Instruction::cond(
                Opcode::Ine,
                t(0).swz(0x55),
                fc(0).swz(swizzle::from_lanes([3; 4])),
            ),
            Instruction::kil(t(0).swz(0)),
            Instruction::bare(Opcode::Els),
            Instruction::binary(
                Opcode::Add,
                Dest::new(RegType::Temporary, 0).masked(0b1001),
                t(0),
                fc(1),
            ),
            Instruction::bare(Opcode::Eif),
            Instruction::unary(Opcode::Mov, Dest::new(RegType::Output, 0), t(0)),
        ],
    };
    let text = "tex ft0, v0, fs1 <2d,linear,repeat,miplinear,-0.5>
ine ft0.y, fc0.w
kil ft0.x
els
add ft0.xw, ft0, fc1
eif
mov oc, ft0";
    assert_eq!(assemble_as(text, F, 2).unwrap(), built);
    assert_eq!(sampler.bias(), -0.5);
    super::round_trip(&encode_program(&built));
}
