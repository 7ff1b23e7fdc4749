//! Unit tests of `vectorize`: the lane-wise table against the interpreter, and the dot-product
//! and SLP rewrites on small modules per target (the filetests run with the default target,
//! which has no native dot product).

use super::*;
use crate::caps::TargetCaps;
use crate::lower_legacy::test_util::check_same;
use irc_arith::value::{Scalar, Value};
use irc_ir::{text, OpFlags, ScalarType};

/// Operand and result types of a lane-wise opcode, for the table test.
fn signature(op: OpCode) -> (Vec<ScalarType>, ScalarType) {
    use OpCode as O;
    use ScalarType::{Bool as B, F32, I32, U32};
    if op.is(irc_ir::Attrs::FLOAT) {
        // Float ops take f32 operands (as many as precede the first literal).
        let n = op.first_literal_index(op.info().max_operands as usize);
        let result = if op.is(irc_ir::Attrs::COMPARE) {
            B
        } else {
            F32
        };
        return (vec![F32; n], result);
    }
    match op {
        O::IEq | O::INe | O::SLt | O::SLe | O::SGt | O::SGe => (vec![I32, I32], B),
        O::ULt | O::ULe | O::UGt | O::UGe => (vec![U32, U32], B),
        O::BAnd | O::BOr | O::BEq | O::BNe => (vec![B, B], B),
        O::BNot => (vec![B], B),
        O::Select => (vec![B, F32, F32], F32),
        O::ConvertFtoF => (vec![F32], ScalarType::F16),
        O::ConvertFtoI => (vec![F32], I32),
        O::ConvertItoF => (vec![I32], F32),
        O::ConvertItoI => (vec![I32], ScalarType::U16),
        O::INot | O::IAbs | O::INeg => (vec![I32], I32),
        O::IShl | O::SShr | O::UShr => (vec![I32, U32], I32),
        O::SClamp => (vec![I32, I32, I32], I32),
        O::UClamp => (vec![U32, U32, U32], U32),
        O::UDiv | O::UMod | O::UMin | O::UMax => (vec![U32, U32], U32),
        _ => (vec![I32, I32], I32),
    }
}

/// Deterministic values with zeros, infinities, NaN, negative and large ones mixed in.
fn value(t: ScalarType, k: u64) -> Scalar {
    let x = k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17;
    match t {
        ScalarType::Bool => Scalar::Bool(x & 1 == 1),
        ScalarType::I32 | ScalarType::U32 => {
            let v = [0u64, 1, 31, 32, 0xffff_ffff, 0x8000_0000, 7][(k % 7) as usize];
            Scalar::from_bits(
                t,
                if k.is_multiple_of(3) {
                    x & 0xffff_ffff
                } else {
                    v
                },
            )
        }
        _ => {
            let specials = [0.0, -0.0, 1.0, -2.5, f64::INFINITY, f64::NAN, 1e30, 0.3];
            let v = if k.is_multiple_of(2) {
                specials[(k / 2 % 8) as usize]
            } else {
                (x % 2000) as f64 / 7.0 - 140.0
            };
            irc_arith::float::from_f64(v, t)
        }
    }
}

fn same(a: &Option<Value>, b: &Option<Value>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return a.is_none() && b.is_none();
    };
    let (a, b) = (a.components().unwrap(), b.components().unwrap());
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| {
            x.bits() == y.bits()
                || (x.ty().is_float()
                    && irc_arith::float::to_f64(*x, x.ty()).is_nan()
                    && irc_arith::float::to_f64(*y, y.ty()).is_nan())
        })
}

#[test]
fn lanewise_table_matches_the_interpreter() {
    let mut checked = 0;
    for &op in OpCode::ALL
        .iter()
        .filter(|&&o| o.is(irc_ir::Attrs::LANEWISE))
    {
        let (args, result) = signature(op);
        for n in 2..=4u8 {
            for round in 0..64u64 {
                let lanes: Vec<Vec<Scalar>> = (0..n as u64)
                    .map(|l| {
                        (0..args.len() as u64)
                            .map(|a| value(args[a as usize], round * 31 + l * 7 + a * 3))
                            .collect()
                    })
                    .collect();
                let mk = |ty: Type| {
                    let o = Op::new(op, ty);
                    let o = (0..args.len()).fold(o, |o, _| o.arg(SsaDef::from_u32(0)));
                    if op == OpCode::FRound {
                        o.lit(round % 4)
                    } else {
                        o
                    }
                };
                let vector_args: Vec<Value> = (0..args.len())
                    .map(|a| Value::from_components(lanes.iter().map(|l| l[a]).collect()))
                    .collect();
                let vty = Type::vector(args[0], n);
                let got = irc_arith::eval::fold(&mk(Type::vector(result, n)), &vector_args, &vty);
                let want: Option<Vec<Scalar>> = lanes
                    .iter()
                    .map(|l| {
                        let a: Vec<Value> = l.iter().map(|&s| Value::Scalar(s)).collect();
                        irc_arith::eval::fold(&mk(Type::scalar(result)), &a, &Type::scalar(args[0]))
                            .and_then(|v| v.as_scalar())
                    })
                    .collect();
                let want = want.map(|w| Value::from_components(w.into_iter().collect()));
                assert!(
                    same(&got, &want),
                    "{op} x{n}: vector {got:?}, lanes {want:?} for {lanes:?}"
                );
                checked += got.is_some() as usize;
            }
        }
    }
    assert!(checked > 60 * 3 * 50);
}

/// A vec4 family executing every dot product natively, of any size.
const ALL_DOTS: TargetCaps = TargetCaps {
    name: "test",
    native: &[
        OpCode::FDot,
        OpCode::FDotAdd,
        OpCode::FDotLegacy,
        OpCode::FDotAddLegacy,
    ],
    min_dot_terms: 2,
    ..crate::caps::test_profiles::LIMA_LIKE
};

fn context(caps: TargetCaps) -> PassContext {
    PassContext {
        caps,
        ..Default::default()
    }
}

/// Runs the pass on `src` for `caps`, checks behaviour on random and special inputs, and
/// returns the result and what the pass reported.
fn vectorized(src: &str, caps: TargetCaps) -> (Module, Stats) {
    let before = text::parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let mut after = before.clone();
    let stats = run_with_stats(&mut after, &context(caps.clone()));
    check_same(&before, &after, &format!("vectorize on {}", caps.name));
    (after, stats)
}

fn count(m: &Module, opcode: OpCode) -> usize {
    m.code().filter(|&d| m.opcode(d) == opcode).count()
}

/// A vertex shader with f32x4 inputs `%2` and `%3` (loaded as `%30`, `%31`), a scalar input
/// `%4` (`%32`), one f32 output `%9` storing `%OUT`, and `body` in between; extract indices
/// are `%60`…`%63`.
fn dot_module(body: &str, flags: &str) -> String {
    format!(
        "%1 = EntryPoint %20 Vertex
%2 = f32x4 DclInput %1 0 0
%3 = f32x4 DclInput %1 1 0
%4 = f32 DclInput %1 2 0
%9 = f32 DclOutput %1 0 0
%60 = u32 Constant 0
%61 = u32 Constant 1
%62 = u32 Constant 2
%63 = u32 Constant 3
%20 = Function
%21 = Label None
%30 = f32x4 InputLoad %2 null
%31 = f32x4 InputLoad %3 null
%32 = f32 InputLoad %4 null
%40 = f32 CompositeExtract %30 %60
%41 = f32 CompositeExtract %30 %61
%42 = f32 CompositeExtract %30 %62
%43 = f32 CompositeExtract %30 %63
%44 = f32 CompositeExtract %31 %60
%45 = f32 CompositeExtract %31 %61
%46 = f32 CompositeExtract %31 %62
%47 = f32 CompositeExtract %31 %63
{}
%98 = OutputStore %9 null %OUT
%99 = Return
%100 = FunctionEnd
",
        body.replace("FLAGS", flags)
    )
}

#[test]
fn mad_chains_become_dot_products() {
    // x·y over four lanes, as FMul + FMad (the lowered form), plain and precise.
    for flags in ["", "[precise]"] {
        let body = "%50 = FLAGS f32 FMul %40 %44
%51 = FLAGS f32 FMad %41 %45 %50
%52 = FLAGS f32 FMad %42 %46 %51
%53 = FLAGS f32 FMad %43 %47 %52"
            .to_string();
        let src = dot_module(&body, flags).replace("%OUT", "%53");
        let (m, stats) = vectorized(&src, crate::caps::test_profiles::LIMA_LIKE);
        assert_eq!((stats.dots, stats.dot_terms), (1, 4));
        assert_eq!(count(&m, OpCode::FMad) + count(&m, OpCode::FMul), 0);
        let dot = m.code().find(|&d| m.opcode(d) == OpCode::FDot).unwrap();
        // Both operands are the loaded vectors themselves, not swizzles.
        let view = irc_ir::format::Dot::of(m.op(dot));
        assert_eq!(view.a(), Some(SsaDef::from_u32(29)));
        assert_eq!(
            m.op(dot).flags.contains(OpFlags::PRECISE),
            flags == "[precise]"
        );
    }
}

#[test]
fn add_of_products_and_swizzles() {
    // (x.z·y.x + x.x·y.y) + x.y·y.z as FAdds of FMuls, factors in either order: a dot of
    // the swizzles x.zxy and y.xyz.
    let body = "%50 = f32 FMul %42 %44
%51 = f32 FMul %45 %40
%52 = f32 FAdd %50 %51
%53 = f32 FMul %41 %46
%54 = f32 FAdd %53 %52";
    let (m, stats) = vectorized(
        &dot_module(body, "").replace("%OUT", "%54"),
        crate::caps::test_profiles::AGAL_LIKE,
    );
    assert_eq!((stats.dots, stats.dot_terms), (1, 3));
    assert_eq!(count(&m, OpCode::FAdd) + count(&m, OpCode::FMul), 0);
}

#[test]
fn chains_from_an_addend_need_fdotadd() {
    // v2 + x.x·y.x + x.y·y.y + x.z·y.z + x.w·y.w: FDotAdd on Lima; AGAL has no FDotAdd and
    // FDot + v2 would round differently, so the chain stays.
    let body = "%50 = f32 FMad %40 %44 %32
%51 = f32 FMad %41 %45 %50
%52 = f32 FMad %42 %46 %51
%53 = f32 FMad %43 %47 %52";
    let src = dot_module(body, "").replace("%OUT", "%53");
    let (m, stats) = vectorized(&src, crate::caps::test_profiles::LIMA_LIKE);
    assert_eq!(stats.dots, 1);
    assert_eq!(count(&m, OpCode::FDotAdd), 1);
    let (m, stats) = vectorized(&src, crate::caps::test_profiles::AGAL_LIKE);
    assert_eq!(stats.dots, 0);
    assert_eq!(count(&m, OpCode::FMad), 4);
}
#[test]
fn long_chains_are_cut_into_pieces() {
    // Five terms: FDot of four, then one FMad (AGAL) — on Lima the same (a one-term
    // FDotAdd is not a dot product).
    let body = "%50 = f32 FMul %40 %44
%51 = f32 FMad %41 %45 %50
%52 = f32 FMad %42 %46 %51
%53 = f32 FMad %43 %47 %52
%54 = f32 FMad %32 %32 %53";
    for caps in [
        crate::caps::test_profiles::AGAL_LIKE,
        crate::caps::test_profiles::LIMA_LIKE,
    ] {
        let (m, stats) = vectorized(&dot_module(body, "").replace("%OUT", "%54"), caps);
        assert_eq!((stats.dots, stats.dot_terms), (1, 4));
        assert_eq!((count(&m, OpCode::FDot), count(&m, OpCode::FMad)), (1, 1));
    }
    // Six terms, x·y then x.xy·y.xy: FDot of four and FDotAdd of two where any size goes;
    // Lima (four terms at least) keeps two steps; with three at least (PICA's sizes), FDot of
    // x.xyz·y.xyz and FDotAdd of x.wxy·y.wxy.
    let body = body.replace("%54 = f32 FMad %32 %32 %53", "%54 = f32 FMad %40 %44 %53");
    let body = format!("{body}\n%55 = f32 FMad %41 %45 %54");
    let src = dot_module(&body, "").replace("%OUT", "%55");
    let (m, stats) = vectorized(&src, ALL_DOTS);
    assert_eq!((stats.dots, stats.dot_terms), (2, 6));
    assert_eq!(
        (count(&m, OpCode::FDot), count(&m, OpCode::FDotAdd)),
        (1, 1)
    );
    let (m, stats) = vectorized(&src, crate::caps::test_profiles::LIMA_LIKE);
    assert_eq!((stats.dots, stats.dot_terms), (1, 4));
    assert_eq!((count(&m, OpCode::FDot), count(&m, OpCode::FMad)), (1, 2));
    let three = TargetCaps {
        min_dot_terms: 3,
        ..ALL_DOTS
    };
    let (m, stats) = vectorized(&src, three);
    assert_eq!((stats.dots, stats.dot_terms), (2, 6));
    let sizes: Vec<String> = m
        .code()
        .filter(|&d| matches!(m.opcode(d), OpCode::FDot | OpCode::FDotAdd))
        .map(|d| {
            m.ty(irc_ir::format::Dot::of(m.op(d)).a().unwrap())
                .to_string()
        })
        .collect();
    assert_eq!(sizes, ["f32x3", "f32x3"]);
}
#[test]
fn shared_partial_sums_stop_the_chain() {
    // %51 is also stored: the chain above it starts from %51 (an FDotAdd of two) and %51's
    // own chain becomes an FDot of two.
    let body = "%50 = f32 FMul %40 %44
%51 = f32 FMad %41 %45 %50
%52 = f32 FMad %42 %46 %51
%53 = f32 FMad %43 %47 %52
%97 = OutputStore %9 null %51";
    let (m, stats) = vectorized(&dot_module(body, "").replace("%OUT", "%53"), ALL_DOTS);
    assert_eq!(stats.dots, 2);
    assert_eq!(
        (count(&m, OpCode::FDot), count(&m, OpCode::FDotAdd)),
        (1, 1)
    );
}
#[test]
fn legacy_chains_on_pica_and_none_without_native_dots() {
    let body = "%50 = f32 FMulLegacy %40 %44
%51 = f32 FMadLegacy %41 %45 %50
%52 = f32 FMadLegacy %42 %46 %51";
    let src = dot_module(body, "").replace("%OUT", "%52");
    let (m, stats) = vectorized(&src, crate::caps::test_profiles::PICA_LIKE);
    assert_eq!(stats.dots, 1);
    assert_eq!(count(&m, OpCode::FDotLegacy), 1);
    // Lima has IEEE dots only; the default target has none.
    for caps in [crate::caps::test_profiles::LIMA_LIKE, TargetCaps::DEFAULT] {
        let (m, stats) = vectorized(&src, caps);
        assert_eq!(stats.dots, 0);
        assert_eq!(count(&m, OpCode::FMadLegacy), 2);
    }
}

#[test]
fn unprofitable_gathers_keep_the_chain() {
    // x.x·y.x + y.y·v2: whichever way the factors go, the gathers need two moves (lanes of
    // two vectors, or a vector lane and the input v2), more than the chain of two saves.
    let body = "%50 = f32 FMul %40 %44
%51 = f32 FMad %45 %32 %50";
    let (_, stats) = vectorized(&dot_module(body, "").replace("%OUT", "%51"), ALL_DOTS);
    assert_eq!(stats.dots, 0);
}

#[test]
fn trees_of_sums_are_not_chains() {
    // (x0·y0 + x1·y1) + (x2·y2 + x3·y3) sums in another order than a dot product: only the
    // two inner sums (each exactly a dot of two) are recognized.
    let body = "%50 = f32 FMul %40 %44
%51 = f32 FMad %41 %45 %50
%52 = f32 FMul %42 %46
%53 = f32 FMad %43 %47 %52
%54 = f32 FAdd %51 %53";
    let (m, stats) = vectorized(&dot_module(body, "").replace("%OUT", "%54"), ALL_DOTS);
    assert_eq!((stats.dots, stats.dot_terms), (2, 4));
    assert_eq!(count(&m, OpCode::FAdd), 1);
}
/// A pixel shader with f32x4 inputs `%2`, `%3` and an f32x4 output `%9`.
fn slp_module(body: &str) -> String {
    format!(
        "%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x4 DclInput %1 1 0 None
%4 = f32 DclInput %1 2 0 None
%9 = f32x4 DclOutput %1 0 0
%60 = u32 Constant 0
%61 = u32 Constant 1
%62 = u32 Constant 2
%63 = u32 Constant 3
%64 = f32 Constant 2.0
%65 = f32 Constant 0.5
%20 = Function
%21 = Label None
%30 = f32x4 InputLoad %2 null
%31 = f32x4 InputLoad %3 null
%32 = f32 InputLoad %4 null
%40 = f32 CompositeExtract %30 %60
%41 = f32 CompositeExtract %30 %61
%42 = f32 CompositeExtract %30 %62
%43 = f32 CompositeExtract %30 %63
%44 = f32 CompositeExtract %31 %60
%45 = f32 CompositeExtract %31 %61
%46 = f32 CompositeExtract %31 %62
%47 = f32 CompositeExtract %31 %63
{body}
%99 = Return
%100 = FunctionEnd
"
    )
}

#[test]
fn component_stores_of_isomorphic_ops_become_one_vector_op() {
    // o = max(x·y + 0.5, 2) per component, scalarized: one store, two vector ops.
    let mut body = String::new();
    for c in 0..4 {
        body += &format!(
            "%{a} = f32 FMad %{x} %{y} %65\n%{b} = f32 FMax %{a} %64\n%{s} = OutputStore %9 %{i} %{b}\n",
            a = 70 + c,
            b = 74 + c,
            s = 80 + c,
            x = 40 + c,
            y = 44 + c,
            i = 60 + c
        );
    }
    let (m, stats) = vectorized(&slp_module(&body), crate::caps::test_profiles::LIMA_LIKE);
    assert_eq!(
        (stats.merged_stores, stats.vector_ops, stats.vector_lanes),
        (1, 2, 8)
    );
    assert_eq!(count(&m, OpCode::OutputStore), 1);
    let store = m
        .code()
        .find(|&d| m.opcode(d) == OpCode::OutputStore)
        .unwrap();
    let v = irc_ir::format::Store::of(m.op(store)).value().unwrap();
    assert_eq!(
        (m.opcode(v), m.ty(v).to_string()),
        (OpCode::FMax, "f32x4".into())
    );
}

#[test]
fn partial_groups_swizzles_and_broadcasts() {
    // Lanes 0, 1, 2 are x.zyx · v2 (a swizzle times a broadcast), lane 3 is different: a
    // vec3 FMul feeds the construct.
    let body = "%70 = f32 FMul %42 %32
%71 = f32 FMul %41 %32
%72 = f32 FMul %40 %32
%73 = f32 FAdd %43 %47
%74 = f32x4 CompositeConstruct %70 %71 %72 %73
%75 = OutputStore %9 null %74";
    let (m, stats) = vectorized(&slp_module(body), crate::caps::test_profiles::AGAL_LIKE);
    assert_eq!((stats.vector_ops, stats.vector_lanes), (1, 3));
    assert_eq!(count(&m, OpCode::FMul), 1);
}

#[test]
fn users_before_the_vector_op_keep_the_group_scalar() {
    // Lanes x + y (lane 0 with y.x, lane 1 with t, lane 2 with y.z) would pay, but t is made
    // from lane 0's result: the vector op would come after t, too late for lane 0's user.
    let body = "%70 = f32 FAdd %40 %44
%72 = f32 FMul %70 %70
%73 = f32 FAdd %72 %45
%71 = f32 FAdd %41 %73
%77 = f32 FAdd %42 %46
%75 = f32x4 CompositeConstruct %70 %71 %77 %43
%76 = OutputStore %9 null %75";
    let (m, stats) = vectorized(&slp_module(body), crate::caps::test_profiles::LIMA_LIKE);
    assert_eq!(stats.vector_ops, 0);
    assert_eq!(count(&m, OpCode::FAdd), 4);
    // Without the dependency the same lanes are one vec3 FAdd.
    let body = body.replace("%72 = f32 FMul %70 %70", "%72 = f32 FMul %47 %47");
    let (m, stats) = vectorized(&slp_module(&body), crate::caps::test_profiles::LIMA_LIKE);
    assert_eq!(stats.vector_ops, 1);
    assert_eq!(count(&m, OpCode::FAdd), 2);
}

#[test]
fn identity_constructs_and_input_components() {
    // (x.x, x.y, x.z, x.w) is x; (v0 component loads 0…3) is the whole input.
    let body = "%70 = f32x4 CompositeConstruct %40 %41 %42 %43
%71 = f32 InputLoad %3 %60
%72 = f32 InputLoad %3 %61
%73 = f32 InputLoad %3 %62
%74 = f32 InputLoad %3 %63
%75 = f32x4 CompositeConstruct %71 %72 %73 %74
%76 = f32x4 FAdd %70 %75
%77 = OutputStore %9 null %76";
    let (m, stats) = vectorized(&slp_module(body), TargetCaps::DEFAULT);
    assert_eq!(stats.identities, 2);
    assert_eq!(count(&m, OpCode::CompositeConstruct), 0);
    let add = m.code().find(|&d| m.opcode(d) == OpCode::FAdd).unwrap();
    let ops: Vec<OpCode> = m.op(add).ref_defs().map(|d| m.opcode(d)).collect();
    assert_eq!(ops, [OpCode::InputLoad, OpCode::InputLoad]);
}

#[test]
fn second_run_finds_nothing() {
    let body = "%50 = f32 FMul %40 %44
%51 = f32 FMad %41 %45 %50
%52 = f32 FMad %42 %46 %51";
    let src = dot_module(body, "").replace("%OUT", "%52");
    let (mut m, stats) = vectorized(&src, ALL_DOTS);
    assert_eq!(stats.dots, 1);
    assert_eq!(run_with_stats(&mut m, &context(ALL_DOTS)), Stats::default());
}
#[test]
fn a_lane_gathered_and_grouped_gives_up_the_tree() {
    // From the construct: the adds' first operands (a, b) are gathered, their second operands
    // (a, c) form a group of two FMul, which would remove `a` from under the gather: that tree
    // is given up. The FMuls (lanes x and z of both inputs) still become one vec2 FMul from
    // the bottom, and the adds stay scalar.
    let body = "%70 = f32 FMul %40 %44
%71 = f32 FAdd %41 %45
%72 = f32 FMul %42 %46
%73 = f32 FAdd %70 %70
%74 = f32 FAdd %71 %72
%75 = f32x4 CompositeConstruct %73 %74 %43 %47
%76 = OutputStore %9 null %75";
    let (m, stats) = vectorized(&slp_module(body), crate::caps::test_profiles::LIMA_LIKE);
    assert_eq!((stats.vector_ops, stats.vector_lanes), (1, 2));
    assert_eq!((count(&m, OpCode::FMul), count(&m, OpCode::FAdd)), (1, 3));
}
