//! Unit tests of the text format: one per literal kind, layout, annotations and parse errors.

use super::*;
use crate::entities::SsaDef;
use crate::module::Module;
use crate::op::Op;
use crate::opcode::OpCode;
use crate::types::{ScalarType, Type};
use cranelift_entity::EntityRef;

/// Parses, checks that printing gives the text back exactly, and returns the module.
fn round_trip(src: &str) -> Module {
    let m = parse(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(print(&m), src);
    assert_eq!(parse(&print(&m)).as_ref(), Ok(&m));
    m
}

/// A module of one constant of type `ty` with literals `lits`, and its printed text.
fn constant(ty: &str, lits: &[u64]) -> (Module, String) {
    let mut op = Op::new(OpCode::Constant, Type::parse(ty).unwrap());
    for &l in lits {
        op = op.lit(l);
    }
    let m = Module::from_ordered(vec![(SsaDef::new(0), op)]).unwrap();
    let text = print(&m);
    assert_eq!(parse(&text).as_ref(), Ok(&m), "{text}");
    (m, text)
}

fn const_text(ty: &str, lits: &[u64]) -> String {
    let t = constant(ty, lits).1;
    t.trim_end()
        .strip_prefix(&format!("%1 = {ty} Constant"))
        .unwrap()
        .trim()
        .to_string()
}

/// Prints one typed literal and parses it back.
fn lit_round_trip(t: ScalarType, v: u64) {
    let mut s = String::new();
    super::literal::write_typed(&mut s, Some(t), v);
    assert_eq!(
        super::literal::parse_typed(Some(t), &s),
        Ok(v),
        "{t} {v:#x} printed as {s}"
    );
}

fn parse_err(src: &str) -> ParseError {
    match parse_named(src, "t.ir") {
        Ok(m) => panic!("parsed: {}", print(&m)),
        Err(e) => e,
    }
}

#[test]
fn f32_literals_are_bit_exact() {
    let cases: &[(u32, &str)] = &[
        (0x3f80_0000, "1.0"),
        (0x8000_0000, "-0.0"),
        (0, "0.0"),
        (0x3dcc_cccd, "0.1"),
        (1, "1e-45"),
        (0x7f7f_ffff, "3.4028235e38"),
        (0x7f80_0000, "inf"),
        (0xff80_0000, "-inf"),
        (0x7fc0_0000, "nan"),
        (0x7fc0_0001, "nan:0x7fc00001"),
        (0xffc0_0000, "nan:0xffc00000"),
        (0x7f80_0001, "nan:0x7f800001"),
    ];
    for &(bits, text) in cases {
        assert_eq!(const_text("f32", &[bits as u64]), text);
    }
    // Bits that do not fit 32 bits print raw.
    assert_eq!(const_text("f32", &[1 << 40]), "0x10000000000");
    // Min-precision floats are stored as f32 bits.
    assert_eq!(const_text("minf16", &[0x3f80_0000]), "1.0");
    assert_eq!(
        const_text("minf10x2", &[0xbf00_0000, 0x7fc0_0002]),
        "-0.5 nan:0x7fc00002"
    );
    // 65536 patterns spread over the whole range round-trip.
    for hi in 0..=0xffffu32 {
        lit_round_trip(
            ScalarType::F32,
            (hi << 16 | (hi.wrapping_mul(0x9e37) & 0xffff)) as u64,
        );
    }
}

#[test]
fn f16_and_f64_literals_are_bit_exact() {
    assert_eq!(const_text("f16", &[0x3c00]), "1.0");
    assert_eq!(const_text("f16", &[0x2e66]), "0.1");
    assert_eq!(const_text("f16", &[0x8000]), "-0.0");
    assert_eq!(const_text("f16", &[0x7bff]), "65500.0");
    assert_eq!(const_text("f16", &[0x0001]), "6e-8");
    assert_eq!(
        const_text("f16", &[0x7c00, 0xfc00, 0x7e00, 0x7e01]),
        "inf -inf nan nan:0x7e01"
    );
    assert_eq!(const_text("f16", &[0x1_0000]), "0x10000");
    for bits in 0..=0xffffu64 {
        lit_round_trip(ScalarType::F16, bits);
    }
    assert_eq!(const_text("f64", &[1.0f64.to_bits()]), "1.0");
    assert_eq!(const_text("f64", &[0.1f64.to_bits()]), "0.1");
    assert_eq!(const_text("f64", &[(-0.0f64).to_bits()]), "-0.0");
    assert_eq!(const_text("f64", &[1]), "5e-324");
    assert_eq!(const_text("f64", &[0x7ff8_0000_0000_0000]), "nan");
    assert_eq!(
        const_text("f64", &[0xfff8_0000_0000_0001]),
        "nan:0xfff8000000000001"
    );
}

#[test]
fn integer_bool_and_unknown_literals() {
    assert_eq!(const_text("i32", &[u64::MAX]), "-1");
    assert_eq!(const_text("i32", &[0xffff_ffff]), "4294967295");
    assert_eq!(const_text("i64", &[1 << 63]), "-9223372036854775808");
    assert_eq!(const_text("mini16", &[(-5i64) as u64]), "-5");
    assert_eq!(const_text("u32", &[0xffff_ffff]), "4294967295");
    assert_eq!(const_text("u64", &[u64::MAX]), "18446744073709551615");
    assert_eq!(const_text("u8x2", &[0, 255]), "0 255");
    assert_eq!(const_text("bool", &[1]), "true");
    assert_eq!(const_text("bool", &[0]), "false");
    assert_eq!(const_text("bool", &[2]), "2");
    assert_eq!(const_text("?", &[0xffff]), "65535");
    assert_eq!(
        const_text("?x2", &[0x3f80_0000, u64::MAX]),
        "0x3f800000 0xffffffffffffffff"
    );
    assert_eq!(
        const_text("{u32,f32,bool}[2]", &[1, 0x4000_0000, 1, 2, 0, 0]),
        "1 2.0 true 2 0.0 false"
    );
    // Parser conveniences: hex anywhere, integers in float context, negative = two's complement.
    let m = parse("%1 = f32x2 Constant 1 0x3f800000\n%2 = u32 Constant -1").unwrap();
    let scalar =
        |d: u32, i: usize| crate::format::Constant::of(m.op(SsaDef::new(d as usize))).scalar(i);
    assert_eq!(scalar(0, 0), Some(0x3f80_0000));
    assert_eq!(scalar(0, 1), Some(0x3f80_0000));
    assert_eq!(scalar(1, 0), Some(u64::MAX));
}

#[test]
fn int_sint_case_value_enum_and_flag_literals() {
    round_trip(
        "%1 = EntryPoint %20 Pixel\n\
         %2 = [precise|nosz] f32 SetFpMode %1 NearestEven Flush\n\
         %3 = f32x4 DclInput %1 1 0 Flat|NoPerspective\n\
         %4 = u32 DclInput %1 4294967295 18446744073709551615 None\n\
         %5 = u32 DclInputTarget %1 0 0 1 Image2DMS -1\n\
         %6 = SetTessPrimitive %1 Patch32 Cw FractOdd\n\
         %7 = SetGsInputPrimitive %1 99\n\
         %8 = f32x4 DclInputBuiltIn %1 1000 255\n\
         %9 = f32 DclSpecConstant %1 3 0.5\n\
         %10 = {u32,f32} DclSpecConstant %1 4 7 -0.0\n\
         %11 = uav DclUav %1 0 1 1 Image2D Coherent|WriteOnly\n\
         \n\
         %20 = Function\n\
         %21 = Label None\n\
         \x20 %22 = Barrier Workgroup Global Lds|Uav\n\
         \x20 %23 = Barrier 5 Thread 4\n\
         \x20 %24 = f32 FRound %9 NegativeInf\n\
         \x20 %25 = f32 DerivX %9 Fine\n\
         \x20 %26 = u32 LdsAtomic %3 null %4 Dec\n\
         \x20 %27 = ScopedSwitch %31 %4\n\
         \x20 %28 = ScopedSwitchCase %27 -1\n\
         \x20 %29 = ScopedSwitchCase %27 18\n\
         \x20   %30 = ScopedSwitchBreak %27\n\
         \x20 %31 = ScopedEndSwitch %27\n\
         \x20 %32 = Return\n\
         %33 = FunctionEnd\n",
    );
}

#[test]
fn strings_canonical_and_not() {
    let m = round_trip(
        "%1 = DebugName %2 \"main\"\n\
         %3 = DebugName %2 \"\"\n\
         %4 = DebugName %2 \"abcdefgh\"\n\
         %5 = DebugName %2 \"quote\\\" back\\\\ nl\\n tab\\t \\x01 é ✓\"\n\
         %6 = DebugName %2 \"\\xff\\xfe bytes\"\n\
         %7 = DebugName %2 0x41 0x0\n\
         %8 = DebugName %2 0x4100000042\n\
         %9 = Semantic %2 3 \"SV_Target\"\n\
         %10 = DebugMemberName %2 1 \"member_\"\n\
         %11 = Semantic %2 4 \"\"\n\
         \n\
         %2 = Function\n\
         %12 = FunctionEnd\n",
    );
    let op = |i: usize| m.op(SsaDef::new(i - 1));
    let name = |i: usize| crate::format::DebugName::of(op(i)).name().to_vec();
    assert_eq!(name(1)[0].as_lit(), Some(0x6E69616D));
    assert_eq!(op(3).operands.len(), 2);
    assert_eq!(op(4).operands.len(), 2, "a multiple of 8 has no terminator");
    assert_eq!(op(7).operands.len(), 3);
    // `"A"` would be one operand, so `0x41 0x0` stays numeric; the empty string is `""`.
    assert_eq!(op(11).operands.len(), 3);
    assert_eq!(
        crate::format::Semantic::of(op(11)).name()[0].as_lit(),
        Some(0)
    );
}

#[test]
fn holes_forward_refs_and_layout() {
    let src = "%1 = EntryPoint %9 Vertex\n\
               %4 = f32x4 DclOutputBuiltIn %1 Position\n\
               %6 = f32x4 Constant 0.0 0.0 0.0 1.0\n\
               %2 = DebugName %9 \"main\"\n\
               \n\
               %9 = Function\n\
               %5 = Label None\n\
               \x20 %7 = OutputStore %4 null %6\n\
               \x20 %12 = [precise|invariant] f32x4 FMul %6 %6\n\
               \x20 %8 = Return\n\
               %100 = FunctionEnd\n";
    let m = round_trip(src);
    assert_eq!(m.len(), 10);
    assert_eq!(m.id_bound(), 100);
    // Comments, blank lines and odd spacing are ignored.
    let loose = "; header\n\n  %1=EntryPoint   %9 Vertex ; trailing\n%4 = f32x4 DclOutputBuiltIn %1 Position\n\
                 %6 = f32x4 Constant 0 0 0 1\n%2 = DebugName %9 \"main\"\n%9 = Function\n\t%5 = Label None\n\
                 %7 = OutputStore %4 null %6\n%12 = [invariant|precise] f32x4 FMul %6 %6\n%8 = Return\n%100 = FunctionEnd";
    assert_eq!(parse(loose).unwrap(), m);
}

#[test]
fn annotated_output_still_parses() {
    let m = parse("%1 = f32 Constant 1.0\n%2 = Function\n%3 = f32 FAdd %1 %1\n%4 = FunctionEnd\n")
        .unwrap();
    let s = print_annotated(&m, &|d| {
        if d.id() == 3 {
            vec!["operand 0 is bad".into(), "two\nlines".into()]
        } else {
            vec![]
        }
    });
    assert_eq!(
        s,
        "%1 = f32 Constant 1.0\n\n%2 = Function\n  %3 = f32 FAdd %1 %1\n  ; error: operand 0 is bad\n  \
         ; error: two\n  ;   lines\n%4 = FunctionEnd\n"
    );
    assert_eq!(parse(&s).unwrap(), m);
    assert_eq!(
        print_op(SsaDef::new(2), m.op(SsaDef::new(2))),
        "%3 = f32 FAdd %1 %1"
    );
}

#[test]
fn errors_are_located() {
    let cases: &[(&str, usize, usize, &str)] = &[
        (
            "%1 = Function\n%2 = f32 FAdd 1.0 %1",
            2,
            15,
            "expected a reference",
        ),
        ("%1 = Bogus", 1, 6, "unknown opcode `Bogus`"),
        ("%1 = f33 Constant", 1, 6, "expected a type or an opcode"),
        ("%1 = f32 Frobnicate", 1, 10, "unknown opcode `Frobnicate`"),
        (
            "%1 = DebugName %2 \"x\"\n%2 = Function\n%2 = FunctionEnd",
            3,
            1,
            "already defined on line 2",
        ),
        ("%1 = Function\n%2 = Branch %7", 2, 13, "%7 is not defined"),
        (
            "%1 = Function\n%2 = u32 DclTmp %1",
            2,
            10,
            "declaration `DclTmp` after code (line 1)",
        ),
        ("%1 = u32 DclInput %1 1 2 Bad", 1, 26, "InterpolationModes"),
        (
            "%1 = u32 DclInput %1 1",
            1,
            10,
            "DclInput takes 3 to 4 operands, found 2",
        ),
        (
            "%1 = DebugName %1 \"a\" 3",
            1,
            19,
            "a string must be the last operand",
        ),
        ("%1 = DebugName %1 \"a", 1, 19, "unterminated string"),
        ("%1 = EntryPoint %1 \"a\"", 1, 20, "not a string"),
        ("%1 = u32 Constant %1", 1, 19, "expected a literal"),
        ("%1 = f32 Constant 1.0.0", 1, 19, "expected a float"),
        (
            "%1 = f32 Constant nan:0x3f800000",
            1,
            19,
            "not the bit pattern",
        ),
        (
            "%1 = u32 Constant 1\n%2 = u32 Constant 1",
            2,
            1,
            "duplicates %1",
        ),
        ("%0 = Function", 1, 1, "ids start at %1"),
        ("%99999999999 = Function", 1, 1, "too large"),
        ("%1000000 = Function", 1, 1, "may use ids up to %65552"),
        ("%1 [precise] Function", 1, 4, "expected `=`"),
        ("%1 = [fast] f32 Undef", 1, 7, "unknown op flag `fast`"),
        ("%1 = [precise f32 Undef", 1, 6, "missing `]`"),
        ("Function", 1, 1, "expected an op"),
        ("%1 = Switch %2 %3 %4", 1, 6, "an even number"),
        (
            "\t%1 = u32 Constant x",
            1,
            20,
            "expected an integer (a `u32` value)",
        ),
    ];
    for &(src, line, column, what) in cases {
        let e = parse_err(src);
        assert!(e.message.contains(what), "{src:?}: {e}");
        assert_eq!((e.line, e.column), (line, column), "{src:?}: {e}");
    }
    let e = parse_err("%1 = Function\n\t%2 = f32 FAdd 1.0 %1");
    assert_eq!(
        e.to_string(),
        "t.ir:2:16: error: expected a reference (`%N` or `null`), found `1.0`: FAdd takes only \
         references\n\t%2 = f32 FAdd 1.0 %1\n\t              ^"
    );
}

#[test]
fn empty_and_comment_only_inputs() {
    assert_eq!(parse("").unwrap(), Module::new());
    assert_eq!(parse("; nothing\n\n   ; more\n").unwrap(), Module::new());
    assert_eq!(print(&Module::new()), "");
    assert_eq!(
        parse("\u{feff}%1 = Function\r\n%2 = FunctionEnd\r\n")
            .unwrap()
            .len(),
        2
    );
    let m = parse("%3 = f32x4[2][] Undef").unwrap();
    assert_eq!(
        m.op(SsaDef::new(2)).ty,
        Type::vector(ScalarType::F32, 4).array_of(2).array_of(0)
    );
}
