//! Fuzz finding (tools/fuzz, pipeline, overflow checks on): the interval product of two `u32`
//! ranges near 2^32 overflowed `i64` in `int_range` (a panic with overflow checks; without
//! them the wrapped bounds are negative, so still `Top`: a debug-build panic). The product saturates now,
//! so such a multiply is `Top` (it may wrap in `u32`).

use irc_passes::int_range::{analyze, R};

/// Without overflow checks a wrapped `u32 × u32` product is negative in `i64`, so `Top` either
/// way: only a build with overflow checks can tell the saturating product from the wrapping
/// one. `.ci/run` runs this test in a debug build.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs overflow checks: cargo test -p irc-passes --test int_range_overflow"
)]
fn u32_products_past_i64_are_top() {
    let src =
        "%1 = EntryPoint %5 Pixel\n%2 = u32 DclInput %1 0 0 None\n%3 = u32 DclOutput %1 0 0\n\
               %4 = u32 Constant 4294901760\n%5 = Function\n%6 = Label None\n\
               %7 = u32 InputLoad %2 null\n%8 = u32 UMax %7 %4\n%9 = u32 IMul %8 %8\n\
               %10 = u32 IMul %4 %4\n%11 = u32 IAdd %9 %10\n%12 = OutputStore %3 null %11\n\
               %13 = Return\n%14 = FunctionEnd\n";
    let m = irc_ir::text::parse(src).unwrap_or_else(|e| panic!("{e}"));
    irc_ir::verifier::verify(&m).unwrap_or_else(|e| panic!("{e}"));
    let r = analyze(&m);
    let at = |id: &str| {
        let d = m.iter().find(|&d| d.to_string() == id).unwrap();
        r[irc_ir::EntityRef::index(d)]
    };
    assert_eq!(at("%9"), R::Top, "[2^32-2^16, 2^32-1]² wraps in u32");
    assert_eq!(at("%10"), R::Top);
}
