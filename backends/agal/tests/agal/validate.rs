//! The validator: one minimal program per error number that breaks exactly that rule (§7), and
//! programs that pass.

use irc_agal::isa::Profile;
use irc_agal::validate::{validate, validate_pair, ValidateOptions};
use irc_agal::ShaderKind;

use super::{asm, round_trip, F, V};

const OPTS: ValidateOptions = ValidateOptions {
    profile: Profile::StandardExtended,
    unary_constant: true,
};

/// (error, kind, version, text, byte patches `(token, byte in token, bits ORed in)`).
type Case = (
    u32,
    ShaderKind,
    u32,
    &'static str,
    &'static [(usize, usize, u8)],
);

const CASES: &[Case] = &[
    // §7.2 opcodes.
    (3620, F, 1, "mov oc, v0", &[(0, 0, 0xFF)]),
    (3621, F, 2, "sgn ft0, v0\nmov oc, ft0", &[]),
    (3726, F, 1, "ddx ft0, v0\nmov oc, ft0", &[]),
    (3726, F, 1, "ife v0.x, fc0.x\nmov ft0, v0\neif\nmov oc, v0", &[]),
    (3622, V, 1, "kil va0.x\nmov op, va0", &[]),
    (3622, V, 2, "ddx vt0, va0\nmov op, va0", &[]),
    (3803, F, 2, "tld ft0, v0, fs0 <2d>\nmov oc, ft0", &[]),
    (3805, V, 3, "tld vt0, va0, vs0 <2d>\nmov op, vt0", &[]),
    // §7.3 zero fields.
    (3627, F, 1, "kil v0.x\nmov oc, v0", &[(0, 4, 1)]),
    (3636, F, 1, "mov oc, v0", &[(0, 16, 1)]),
    (3636, F, 2, "ife v0.x, fc0.x\nmov ft0, v0\nels\nmov ft0, v1\neif\nmov oc, ft0", &[(2, 8, 1)]),
    (3654, F, 1, "mov oc, v0", &[(0, 6, 0x10)]),
    (3654, F, 1, "mov oc, v0", &[(0, 12, 0x10)]),
    (3643, F, 1, "mov oc, v0", &[(0, 10, 1)]),
    // §7.4 register type, index, role.
    (3655, F, 1, "mov oc, v0", &[(0, 7, 0x08)]),
    (3655, F, 1, "mov oc, v0", &[(0, 12, 0x08)]),
    (3656, F, 1, "tex ft0, v0, fs8 <2d>\nmov oc, ft0", &[]),
    (3657, F, 1, "mov oc, v8", &[]),
    (3658, V, 1, "mov op, va8", &[]),
    (3658, V, 2, "mov op, vc[va8.x]", &[]),
    (3659, F, 1, "mov oc, fc28", &[]),
    (3659, V, 1, "m44 op, va0, vc125", &[]),
    (3660, V, 1, "mov op1, va0", &[]),
    (3660, F, 1, "mov oc1, v0", &[]),
    (3661, F, 1, "mov ft8, v0\nmov oc, ft8", &[]),
    (3749, F, 1, "mov fd.x, v0\nmov oc, v0", &[]),
    (3749, F, 1, "mov oc, fd", &[]),
    (3637, V, 1, "mov op, va0", &[(0, 12, 0x05)]),
    (3638, F, 1, "mov oc, v0", &[(0, 12, 0x05)]),
    (3693, F, 1, "tex ft0, v0, fs0 <2d>\nmov oc, ft0", &[(0, 20, 0x02)]),
    (3644, V, 1, "mov op, v0", &[]),
    (3645, F, 1, "mov oc, va0", &[]),
    (3646, F, 1, "mov ft0, oc\nmov oc, ft0", &[]),
    (3646, F, 2, "mov oc, v0\nmov ft0, fd\nmov fd.x, ft0", &[]),
    (3650, F, 1, "mov v0, fc0\nmov oc, v0", &[]),
    (3651, V, 1, "mov va0, vc0\nmov op, va0", &[]),
    (3652, F, 1, "mov fc0, v0\nmov oc, v0", &[]),
    (3649, F, 1, "mov va0, v0\nmov oc, v0", &[(0, 7, 0x05)]),
    (3786, V, 3, "mov iid, va0\nmov op, va0", &[]),
    (3788, F, 3, "mov ft0, iid\nmov oc, ft0", &[]),
    (3789, V, 2, "mov vt0, iid\nmov op, vt0", &[]),
    (3750, V, 2, "mov fd.x, va0\nmov op, va0", &[]),
    (3756, F, 2, "mov fd, v0\nmov oc, v0", &[]),
    (3653, F, 1, "mov ft0.-, v0\nmov oc, v0", &[]),
    // §7.5 indirect addressing.
    (3639, F, 1, "mov oc, fc[v0.x]", &[]),
    (3640, V, 1, "mov op, va[va1.x]", &[]),
    (3641, F, 1, "tex ft0, v[v0.x], fs0 <2d>\nmov oc, ft0", &[]),
    (3642, V, 1, "mov op, vc[v0.x]", &[]),
    (3626, V, 1, "add op, vc[va0.x], vc[va1.x+4]", &[]),
    (3648, V, 1, "mov vt0.y, va0\nmov op, vc[vt0.x]", &[]),
    // §7.6 temporaries.
    (3647, F, 1, "mov oc, ft0", &[]),
    (3648, F, 1, "mov ft0.x, v0\nmov oc, ft0", &[]),
    (3648, F, 1, "mov ft0.xyz, v0\ndp3 ft1, ft0, fc0\nmov oc, ft1", &[]),
    (3648, V, 1, "mov vt1.xyz, va0\nmov vt2, va0\nmov vt3, va0\nm33 vt0.xyz, va0, vt1\nmov op, va0", &[]),
    // §7.7 operand combinations.
    (3625, F, 1, "add oc, fc0, fc1", &[]),
    (3625, V, 1, "m44 vt0, vc4, vc0\nmov op, vt0", &[]),
    (3625, F, 1, "rcp ft0, fc0\nmov oc, ft0", &[]),
    (3625, F, 1, "kil fc0.x\nmov oc, v0", &[]),
    (3689, V, 1, "m44 op, va0, vc0.yxzw", &[]),
    (3628, F, 1, "nrm ft0, v0\nmov oc, ft0", &[]),
    (3628, F, 1, "crs ft0.xy, v0, v1\nmov oc, v0", &[]),
    (3703, F, 1, "kil v0.xy\nmov oc, v0", &[]),
    (3703, F, 2, "ife v0.x, fc0\nmov ft0, v0\neif\nmov oc, v0", &[]),
    (3758, F, 2, "ife v0.x, v0.x\nmov ft0, v0\neif\nmov oc, v0", &[]),
    // §7.8 samplers.
    (3696, F, 1, "tex ft0, v0, fs0 <2d,linear>\ntex ft1, v0, fs0 <2d,nearest>\nmov oc, ft0", &[]),
    (3662, F, 1, "tex ft0, v0, fs0 <cube,repeat,miplinear>\nmov oc, ft0", &[]),
    (3704, F, 1, "tex ft0, v0, fs0 <cube,clamp,mipnone>\nmov oc, ft0", &[]),
    (3664, F, 1, "tex ft0, v0, fs0 <3d>\nmov oc, ft0", &[]),
    (3664, F, 1, "tex ft0, v0, fs0 <2d>\nmov oc, ft0", &[(0, 21, 0x40)]),
    (3665, F, 1, "tex ft0, v0, fs0 <2d>\nmov oc, ft0", &[(0, 23, 0x60)]),
    (3666, F, 1, "tex ft0, v0, fs0 <2d>\nmov oc, ft0", &[(0, 23, 0x03)]),
    (3667, F, 1, "tex ft0, v0, fs0 <2d>\nmov oc, ft0", &[(0, 22, 0x40)]),
    (3668, F, 1, "tex ft0, v0, fs0 <2d,special8>\nmov oc, ft0", &[]),
    (3606, F, 1, "tex ft0, v0, fs0 <2d>\nmov oc, ft0", &[(0, 21, 0x04)]),
    (3654, F, 1, "tex ft0, v0, fs0 <2d>\nmov oc, ft0", &[(0, 19, 0x01)]),
    (3740, F, 2, "ted ft0, v0, fs0 <2d,miplinear,1>\nmov oc, ft0", &[]),
    (3743, F, 2, "ted ft0, v0, fs0 <2d,mipnone>\nmov oc, ft0", &[]),
    (3741, F, 2, "mov ft1, v0\nife ft1.x, fc0.x\ntex ft0, ft1, fs0 <2d>\neif\nmov oc, v0", &[]),
    // §7.9 outputs.
    (3701, F, 1, "mov oc.xyz, v0", &[]),
    (3634, F, 1, "mov ft0, v0", &[]),
    (3635, V, 1, "mov op.xyz, va0", &[]),
    (3744, F, 2, "mov oc, v0\nmov oc, v1", &[]),
    (3633, V, 1, "mov op, va0\nmov v0.xy, va0", &[]),
    (3775, F, 2, "mov oc1, v0", &[]),
    // §7.10 control flow.
    (3623, F, 2, "mov oc, v0\neif", &[]),
    (3624, F, 2, "ife v0.x, fc0.x\nife v0.y, fc0.x\nife v0.z, fc0.x\nife v0.w, fc0.x\nife v1.x, fc0.x\nmov ft0, v0\neif\neif\neif\neif\neif\nmov oc, v0", &[]),
    (3739, F, 2, "ife v0.x, fc0.x\nmov ft0, v0", &[]),
    (3748, F, 2, "ife v0.x, fc0.x\neif\nmov oc, v0", &[]),
    (3748, F, 2, "ife v0.x, fc0.x\nmov ft0, v0\nels\neif\nmov oc, v0", &[]),
    (3752, F, 2, "els\nmov oc, v0", &[]),
    (3752, F, 2, "ife v0.x, fc0.x\nmov ft0, v0\nels\nmov ft0, v1\nels\nmov ft0, v2\neif\nmov oc, v0", &[]),
    (3742, F, 2, "ife v0.x, fc0.x\nddx ft0, v0\neif\nmov oc, v0", &[]),
    (3751, F, 2, "ife v0.x, fc0.x\nmov oc, v0\neif", &[]),
];

fn build(kind: ShaderKind, version: u32, text: &str, patches: &[(usize, usize, u8)]) -> Vec<u8> {
    let mut b = asm(kind, version, text);
    for &(token, byte, or) in patches {
        b[7 + 24 * token + byte] |= or;
    }
    b
}

#[test]
fn each_rule_has_a_failing_program() {
    for &(code, kind, version, text, patches) in CASES {
        let b = build(kind, version, text, patches);
        match validate(&b, &OPTS) {
            Err(e) => assert_eq!(e.code, code, "{text} {patches:?}: {e}"),
            Ok(_) => panic!("#{code} expected for\n{text} {patches:?}"),
        }
        // Invalid programs round-trip too, where the structured form can hold them.
        if irc_agal::decode::decode_program(&b).is_ok() {
            round_trip(&b);
        }
    }
}

/// The same programs without the broken rule pass: the cases break exactly one rule where a
/// "fixed" twin exists.
#[test]
fn fixed_twins_pass() {
    let ok: &[(ShaderKind, u32, &str)] = &[
        (F, 1, "mov oc, v0"),
        (F, 2, "ddx ft0, v0\nmov oc, ft0"),
        (F, 1, "kil v0.x\nmov oc, v0"),
        (F, 1, "tex ft0, v0, fs7 <2d>\nmov oc, ft0"),
        (F, 1, "mov oc, v7"),
        (V, 1, "mov op, va7"),
        (F, 1, "mov oc, fc27"),
        (V, 1, "m44 op, va0, vc124"),
        (F, 1, "mov ft7, v0\nmov oc, ft7"),
        (F, 2, "mov fd.x, v0\nmov oc, v0"),
        (V, 3, "mov vt0, iid\nmov op, vt0"),
        (V, 1, "mov op, vc[va1.x]"),
        (V, 1, "add op, vc[va0.x], va1"),
        (V, 1, "mov vt0.x, va0\nmov op, vc[vt0.x+3]"),
        (F, 1, "mov ft0.x, v0\nmov oc, ft0.x"),
        (F, 1, "mov ft0.xyz, v0\ndp3 ft1, ft0.xyz, fc0\nmov oc, ft1"),
        (V, 1, "mov vt1, va0\nmov vt2, va0\nmov vt3, va0\nm33 vt0.xyz, va0, vt1\nmov op, va0"),
        (F, 1, "add oc, v0, fc1"),
        (F, 1, "mov ft0, fc0\nrcp ft0, ft0\nmov oc, ft0"),
        (F, 1, "nrm ft0.xyz, v0\nmov oc, v0"),
        (F, 1, "tex ft0, v0, fs0 <2d,linear>\ntex ft1, v1, fs0 <2d,linear>\nmov oc, ft0"),
        (F, 1, "tex ft0, v0, fs0 <cube,clamp,miplinear>\nmov oc, ft0"),
        (F, 2, "ife v0.x, fc0.x\ntex ft0, v0, fs0 <2d>\nels\nmov ft0, v1\neif\nmov oc, ft0"),
        (F, 2, "ted ft0, v0, fs0 <2d,miplinear>\nmov oc, ft0"),
        (F, 2, "mov oc, v0\nmov oc1, v1"),
        (F, 2, "ife v0.x, fc0.x\nife v0.y, fc0.x\nife v0.z, fc0.x\nife v0.w, fc0.x\nmov ft0, v0\neif\neif\neif\neif\nmov oc, v0"),
        (V, 1, "mov op.xy, va0\nmov op.zw, va1\nmov v0, va0"),
        (F, 1, "mov ft0, v0\nmov ft0, v1\nmov oc, ft0\nmov oc, ft0"),
    ];
    for &(kind, version, text) in ok {
        let b = asm(kind, version, text);
        validate(&b, &OPTS).unwrap_or_else(|e| panic!("{text}: {e}"));
        round_trip(&b);
    }
}

#[test]
fn header_and_size_rules() {
    let ok = asm(F, 1, "mov oc, v0");
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = ok.clone();
        f(&mut b);
        validate(&b, &OPTS).map(|_| ()).map_err(|e| e.code)
    };
    assert_eq!(with(&|b| b.clear()), Err(3615));
    assert_eq!(with(&|b| b.truncate(2)), Err(3612));
    assert_eq!(with(&|b| b[0] = 0xA1), Err(3612));
    assert_eq!(with(&|b| b[1] = 5), Err(3617));
    assert_eq!(with(&|b| b[5] = 0xA2), Err(3618));
    assert_eq!(with(&|b| b[6] = 2), Err(3619));
    assert_eq!(with(&|b| b.truncate(7)), Err(3615));
    assert_eq!(with(&|b| b.push(0)), Err(3615));
    assert_eq!(with(&|_| ()), Ok(()));
    let many = "mov oc, v0\n".repeat(201);
    let e = validate(&asm(F, 1, &many), &OPTS).unwrap_err();
    assert_eq!(e.code, 3629);
    // Version vs profile.
    let baseline = ValidateOptions {
        profile: Profile::Baseline,
        ..OPTS
    };
    assert_eq!(
        validate(&asm(F, 2, "mov oc, v0"), &baseline)
            .unwrap_err()
            .code,
        3725
    );
    let constrained = ValidateOptions {
        profile: Profile::BaselineConstrained,
        ..OPTS
    };
    let e = validate(&asm(F, 1, "mov ft7, v0\nmov oc, ft7"), &constrained).unwrap_err();
    assert_eq!(e.code, 3661);
    let no_mrt = ValidateOptions {
        profile: Profile::StandardConstrained,
        ..OPTS
    };
    let e = validate(&asm(F, 2, "mov oc, v0\nmov oc1, v0"), &no_mrt).unwrap_err();
    assert_eq!(e.code, 3760);
    // The agal.cpp unary-constant rule can be turned off.
    let lax = ValidateOptions {
        unary_constant: false,
        ..OPTS
    };
    validate(&asm(F, 1, "rcp ft0, fc0\nmov oc, ft0"), &lax).unwrap();
}

#[test]
fn errors_say_where() {
    let e = validate(&build(F, 1, "mov oc, v0", &[(0, 0, 0xFF)]), &OPTS).unwrap_err();
    assert_eq!((e.token, e.offset), (Some(1), 7));
    assert!(
        e.to_string().contains("value out of range: 255 at token 1"),
        "{e}"
    );
    let e = validate(&asm(F, 1, "mov ft0, v0\nmov ft1, oc\nmov oc, ft0"), &OPTS).unwrap_err();
    assert_eq!((e.code, e.token, e.offset), (3646, Some(2), 7 + 24 + 8));
    assert!(e.to_string().contains("source operand 1"), "{e}");
}

#[test]
fn pair_rules() {
    let vs = asm(V, 1, "m44 op, va0, vc0\nmov v0, va1");
    let fs = asm(F, 1, "mov oc, v0");
    validate_pair(&vs, &fs, &OPTS).unwrap();
    let fs2 = asm(F, 2, "mov oc, v0");
    assert_eq!(validate_pair(&vs, &fs2, &OPTS).unwrap_err().code, 3757);
    let fs1 = asm(F, 1, "mul oc, v0, v1.x");
    assert_eq!(validate_pair(&vs, &fs1, &OPTS).unwrap_err().code, 3632);
}

/// The error numbers the validator can report, each covered by a test above.
#[test]
fn every_rule_is_tested() {
    let mut covered: Vec<u32> = CASES.iter().map(|c| c.0).collect();
    covered.extend([3615, 3612, 3617, 3618, 3619, 3629, 3725, 3760, 3757, 3632]);
    covered.sort_unstable();
    covered.dedup();
    let src = include_str!("../../src/validate.rs");
    let mut used: Vec<u32> = Vec::new();
    let bytes = src.as_bytes();
    for i in 0..bytes.len().saturating_sub(4) {
        if bytes[i..i + 4].iter().all(u8::is_ascii_digit)
            && (bytes[i] == b'3')
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            && !bytes.get(i + 4).is_some_and(u8::is_ascii_alphanumeric)
            && (i < 2 || &bytes[i - 2..i] != b"0x")
        {
            let n: u32 = src[i..i + 4].parse().unwrap();
            // Error numbers appear as code literals: `err(36xx`, `(37xx`, `=> 36xx`.
            let before = src[..i].trim_end();
            if before.ends_with('(') || before.ends_with("=>") || before.ends_with("code,") {
                used.push(n);
            }
        }
    }
    used.sort_unstable();
    used.dedup();
    assert!(
        used.len() >= 75,
        "found only {} error numbers in validate.rs",
        used.len()
    );
    let missing: Vec<u32> = used
        .iter()
        .copied()
        .filter(|n| !covered.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "error numbers without a negative test: {missing:?}"
    );
}
