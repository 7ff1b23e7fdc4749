//! `legalize-ops`: puts the ops the legality contract (`docs/legality.md`, the verifier's legal
//! mode) restricts into the shape it allows, where the earlier lowerings leave them otherwise.
//!
//! - **Bit-field ops on vectors** (`IBitInsert`, `UBitExtract`, `SBitExtract`): SPIR-V's
//!   `OpBitField*` take a scalar offset and count even for vector bases. A vector offset and
//!   count whose lanes are all the same constant become that scalar constant (the op stays one
//!   vector op); otherwise the op is split into one scalar op per lane, its lanes read with
//!   `CompositeExtract` (or taken from the `CompositeConstruct` or constant that built them) and
//!   the results put back together with `CompositeConstruct`.
//! - **`ConvertF32toPackedF16` of a non-`f32x2` vector** (min-precision front-end code packs
//!   `minf16x2` values, which `lower-min16` makes `f16x2`): the operand is widened with
//!   `ConvertFtoF` first. The widening is exact, so the packed halves are the same.
//! - **`UMSad`** (D3D `msad`), unless the target executes it natively: for each byte `k` of the
//!   reference `a` and source `b`, `ak = UBitExtract(a, 8k, 8)`, `bk = UBitExtract(b, 8k, 8)`,
//!   `acc += Select(INe(ak, 0), UMax(ak, bk) − UMin(ak, bk), 0)`, starting from the
//!   accumulator `c`. The ops stay vector ops of the `UMSad`'s type, with scalar bit-field
//!   offsets and counts (which the contract allows); dxbc-spirv calls a scalar helper function
//!   per lane instead.

use crate::caps::PassContext;
use crate::PassError;
use irc_ir::format::{Arith, BitExtract, CompositeConstruct, Constant, IBitInsert};
use irc_ir::{BasicType, Module, Op, OpCode, ScalarType, SsaDef, Type};

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    if !m.contains_where(may_need_legalizing) {
        return Ok(false);
    }
    let work: Vec<SsaDef> = m
        .code()
        .filter(|&d| match m.opcode(d) {
            OpCode::UBitExtract | OpCode::SBitExtract | OpCode::IBitInsert => {
                let (offset, count) = bit_field_operands(m.op(d));
                [offset, count].into_iter().any(|x| is_vector(m, x))
            }
            OpCode::ConvertF32toPackedF16 => packs_non_f32(m, d),
            OpCode::UMSad => !cx.caps.is_native(OpCode::UMSad),
            _ => false,
        })
        .collect();
    for &d in &work {
        match m.opcode(d) {
            OpCode::ConvertF32toPackedF16 => widen_pack_operand(m, d),
            OpCode::UMSad => lower_msad(m, d)?,
            _ => bit_field(m, d)?,
        }
    }
    Ok(!work.is_empty())
}

/// The opcodes whose ops this pass may rewrite (which of them it does depends on the op).
fn may_need_legalizing(opcode: OpCode) -> bool {
    matches!(
        opcode,
        OpCode::UBitExtract
            | OpCode::SBitExtract
            | OpCode::IBitInsert
            | OpCode::ConvertF32toPackedF16
            | OpCode::UMSad
    )
}

/// True if `d` is a `ConvertF32toPackedF16` of something else than `f32x2`.
pub fn packs_non_f32(m: &Module, d: SsaDef) -> bool {
    m.opcode(d) == OpCode::ConvertF32toPackedF16
        && Arith::of(m.op(d))
            .a()
            .is_some_and(|a| *m.ty(a) != Type::vector(ScalarType::F32, 2))
}

/// Widens the operand of every `ConvertF32toPackedF16` that is not `f32x2` (raw or legalized
/// IR); returns whether it changed anything.
pub fn widen_packed_f16_operands(m: &mut Module) -> bool {
    let work: Vec<SsaDef> = m.code().filter(|&d| packs_non_f32(m, d)).collect();
    for &d in &work {
        widen_pack_operand(m, d);
    }
    !work.is_empty()
}

/// The offset and count of a bit-field op.
fn bit_field_operands(op: &Op) -> (Option<SsaDef>, Option<SsaDef>) {
    match op.opcode {
        OpCode::IBitInsert => {
            let v = IBitInsert::of(op);
            (v.offset(), v.count())
        }
        _ => {
            let v = BitExtract::of(op);
            (v.offset(), v.count())
        }
    }
}

fn is_vector(m: &Module, d: Option<SsaDef>) -> bool {
    d.and_then(|d| m.ty(d).as_basic())
        .is_some_and(|b| b.is_vector())
}

fn internal(m: &Module, d: SsaDef, reason: &str) -> PassError {
    PassError::Internal {
        pass: "legalize-ops",
        op: d,
        opcode: m.opcode(d),
        reason: reason.into(),
    }
}

fn u32_constant(m: &mut Module, v: u64) -> SsaDef {
    m.add(Op::new(OpCode::Constant, ScalarType::U32).lit(v))
}

/// Lane `i` of vector `v` (of `n` lanes) as a scalar, read before `at`: a constant's lane is a
/// new scalar constant, a `CompositeConstruct`'s lane its member, else a `CompositeExtract`.
fn lane(m: &mut Module, at: SsaDef, v: SsaDef, i: usize) -> SsaDef {
    let Some(b) = m.ty(v).as_basic() else {
        return v;
    };
    if !b.is_vector() {
        return v;
    }
    let scalar = BasicType::scalar(b.scalar_type());
    let op = m.op(v);
    match op.opcode {
        OpCode::Constant => {
            if let Some(bits) = Constant::of(op).scalar(i) {
                return m.add(Op::new(OpCode::Constant, scalar).lit(bits));
            }
        }
        OpCode::CompositeConstruct => {
            let members = CompositeConstruct::of(op).members();
            if members.len() == b.vec_size() as usize {
                if let Some(x) = members[i].as_ref() {
                    if m.ty(x).as_basic() == Some(scalar) {
                        return x;
                    }
                }
            }
        }
        _ => {}
    }
    let index = u32_constant(m, i as u64);
    m.insert_before(
        at,
        Op::new(OpCode::CompositeExtract, scalar).arg(v).arg(index),
    )
}

/// The scalar constant all lanes of constant vector `v` hold, if they hold the same one.
fn splat(m: &mut Module, v: SsaDef) -> Option<SsaDef> {
    let b = m.ty(v).as_basic()?;
    let op = m.op(v);
    if op.opcode != OpCode::Constant {
        return None;
    }
    let k = Constant::of(op);
    let first = k.scalar(0)?;
    if (1..b.vec_size() as usize).any(|i| k.scalar(i) != Some(first)) {
        return None;
    }
    Some(m.add(Op::new(OpCode::Constant, BasicType::scalar(b.scalar_type())).lit(first)))
}

fn bit_field(m: &mut Module, d: SsaDef) -> Result<(), PassError> {
    let op = m.op(d).clone();
    let (Some(offset), Some(count)) = bit_field_operands(&op) else {
        return Err(internal(m, d, "offset or count missing"));
    };
    let (off_slot, count_slot) = match op.opcode {
        OpCode::IBitInsert => (
            irc_ir::format::slots::IBitInsert.offset,
            irc_ir::format::slots::IBitInsert.count,
        ),
        _ => (
            irc_ir::format::slots::BitExtract.offset,
            irc_ir::format::slots::BitExtract.count,
        ),
    };
    let scalar_of = |m: &mut Module, x: SsaDef| {
        if is_vector(m, Some(x)) {
            splat(m, x)
        } else {
            Some(x)
        }
    };
    if let (Some(o), Some(c)) = (scalar_of(m, offset), scalar_of(m, count)) {
        m.set_operand(d, off_slot, o.into());
        m.set_operand(d, count_slot, c.into());
        return Ok(());
    }
    // Lanes differ: one scalar op per lane.
    let Some(b) = op.ty.as_basic() else {
        return Err(internal(m, d, "result is not a vector"));
    };
    let scalar = BasicType::scalar(b.scalar_type());
    let refs: Vec<Option<SsaDef>> = match op.opcode {
        OpCode::IBitInsert => {
            let v = IBitInsert::of(&op);
            vec![v.base(), v.insert(), v.offset(), v.count()]
        }
        _ => {
            let v = BitExtract::of(&op);
            vec![v.value(), v.offset(), v.count()]
        }
    };
    let mut lanes = Vec::with_capacity(b.vec_size() as usize);
    for i in 0..b.vec_size() as usize {
        let mut lane_op = Op::new(op.opcode, scalar).with_flags(op.flags);
        for r in &refs {
            let r = r.ok_or_else(|| internal(m, d, "operand missing"))?;
            lane_op = lane_op.arg(lane(m, d, r, i));
        }
        lanes.push(m.insert_before(d, lane_op));
    }
    let mut construct = Op::new(OpCode::CompositeConstruct, op.ty.clone());
    for l in lanes {
        construct = construct.arg(l);
    }
    let c = m.insert_before(d, construct);
    m.replace_all_uses(d, c);
    m.remove(d);
    Ok(())
}

fn widen_pack_operand(m: &mut Module, d: SsaDef) {
    let Some(a) = Arith::of(m.op(d)).a() else {
        return;
    };
    let wide = m.insert_before(
        d,
        Op::new(OpCode::ConvertFtoF, Type::vector(ScalarType::F32, 2)).arg(a),
    );
    m.set_operand(d, irc_ir::format::slots::Arith.a, wide.into());
}

fn lower_msad(m: &mut Module, d: SsaDef) -> Result<(), PassError> {
    let op = m.op(d).clone();
    let v = Arith::of(&op);
    let (Some(a), Some(b), Some(mut acc)) = (v.a(), v.b(), v.c()) else {
        return Err(internal(m, d, "operand missing"));
    };
    let Some(basic) = op.ty.as_basic() else {
        return Err(internal(m, d, "result is not a scalar or vector"));
    };
    let ty = op.ty.clone();
    let n = basic.vec_size();
    let bools = Type::basic(BasicType::new(ScalarType::Bool, n));
    let mut zero = Op::new(OpCode::Constant, ty.clone());
    for _ in 0..n {
        zero = zero.lit(0);
    }
    let zero = m.add(zero);
    let eight = u32_constant(m, 8);
    let at = |m: &mut Module, o: Op| m.insert_before(d, o.with_flags(op.flags));
    for k in 0..4u64 {
        let offset = u32_constant(m, 8 * k);
        let byte = |m: &mut Module, x: SsaDef| {
            at(
                m,
                Op::new(OpCode::UBitExtract, ty.clone())
                    .arg(x)
                    .arg(offset)
                    .arg(eight),
            )
        };
        let ak = byte(m, a);
        let bk = byte(m, b);
        let hi = at(m, Op::new(OpCode::UMax, ty.clone()).arg(ak).arg(bk));
        let lo = at(m, Op::new(OpCode::UMin, ty.clone()).arg(ak).arg(bk));
        let diff = at(m, Op::new(OpCode::ISub, ty.clone()).arg(hi).arg(lo));
        let counted = at(m, Op::new(OpCode::INe, bools.clone()).arg(ak).arg(zero));
        let term = at(
            m,
            Op::new(OpCode::Select, ty.clone())
                .arg(counted)
                .arg(diff)
                .arg(zero),
        );
        acc = at(m, Op::new(OpCode::IAdd, ty.clone()).arg(acc).arg(term));
    }
    m.replace_all_uses(d, acc);
    m.remove(d);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::caps::TargetCaps;
    use crate::lower_legacy::test_util::{check_same, op_module, ty};
    use irc_ir::{text, verifier};

    fn cx() -> PassContext {
        PassContext {
            caps: TargetCaps::DEFAULT,
            ..Default::default()
        }
    }

    fn legal(m: &Module) {
        if let Err(e) = verifier::verify_legal(m, TargetCaps::DEFAULT.native) {
            panic!("{e}\n{}", text::print(m));
        }
    }

    #[test]
    fn msad_matches_interpreter() {
        for s in [ScalarType::U32, ScalarType::I32] {
            for n in [1, 2, 4] {
                let t = ty(s, n);
                let m = op_module(OpCode::UMSad, &[t.clone(), t.clone(), t.clone()], &t);
                let mut lowered = m.clone();
                assert!(run(&mut lowered, &cx()).unwrap());
                legal(&lowered);
                assert!(lowered.code().all(|d| lowered.opcode(d) != OpCode::UMSad));
                check_same(&m, &lowered, &format!("UMSad {t}"));
            }
        }
    }

    /// `OP v0, offsets, counts` with constant vector offsets and counts.
    fn bit_field_module(opcode: OpCode, offsets: [u32; 2], counts: [u32; 2]) -> Module {
        let insert = opcode == OpCode::IBitInsert;
        let s = format!(
            "%1 = EntryPoint %20 Vertex\n\
             %2 = i32x2 DclInput %1 0 0\n\
             %3 = i32x2 DclInput %1 1 0\n\
             %4 = u32x2 Constant {} {}\n\
             %5 = u32x2 Constant {} {}\n\
             %9 = i32x2 DclOutput %1 0 0\n\
             %20 = Function\n%21 = Label None\n\
             %30 = i32x2 InputLoad %2 null\n\
             %31 = i32x2 InputLoad %3 null\n\
             %40 = i32x2 {opcode} %30{} %4 %5\n\
             %41 = OutputStore %9 null %40\n%42 = Return\n%43 = FunctionEnd\n",
            offsets[0],
            offsets[1],
            counts[0],
            counts[1],
            if insert { " %31" } else { "" },
        );
        text::parse(&s).unwrap_or_else(|e| panic!("{e}\n{s}"))
    }

    #[test]
    fn vector_bit_fields_get_scalar_offsets_and_counts() {
        for opcode in [OpCode::UBitExtract, OpCode::SBitExtract, OpCode::IBitInsert] {
            for (offsets, counts, split) in [
                ([0, 0], [6, 6], false),
                ([3, 3], [32, 32], false),
                ([0, 8], [6, 6], true),
                ([4, 4], [5, 9], true),
            ] {
                let m = bit_field_module(opcode, offsets, counts);
                let mut lowered = m.clone();
                assert!(run(&mut lowered, &cx()).unwrap());
                legal(&lowered);
                let ops = lowered
                    .code()
                    .filter(|&d| lowered.opcode(d) == opcode)
                    .count();
                assert_eq!(
                    ops,
                    if split { 2 } else { 1 },
                    "{opcode} {offsets:?} {counts:?}"
                );
                check_same(&m, &lowered, &format!("{opcode} {offsets:?} {counts:?}"));
            }
        }
    }

    /// Front-end code packs `minf16x2` values; `lower-min16` makes them `f16x2`. The packed
    /// halves must be the f16 values themselves (the widening and the packing are exact). The
    /// expected value is computed here from the input bits, not by running the unlowered op:
    /// the interpreter's `ConvertF32toPackedF16` reads a 16-bit float operand's bits as f32.
    #[test]
    fn packed_f16_of_min16_vector_is_widened() {
        let m = op_module(
            OpCode::ConvertF32toPackedF16,
            &[ty(ScalarType::MinF16, 2)],
            "u32",
        );
        let mut lowered = m.clone();
        crate::lower_min16::run(&mut lowered, &cx()).unwrap();
        assert!(run(&mut lowered, &cx()).unwrap());
        legal(&lowered);
        for seed in 0..16 {
            let inputs = irc_interp::ShaderInputs::random(&lowered, seed);
            let out = irc_interp::run(&lowered, &inputs, &Default::default()).unwrap();
            let x = inputs.invocations[0].io.values().next().unwrap();
            let halves: Vec<u64> = x
                .components()
                .unwrap()
                .iter()
                .map(|c| c.bits() & 0xffff)
                .collect();
            let want = halves[0] | (halves[1] << 16);
            let got = out.invocations[0].io.values().next().unwrap();
            assert_eq!(got.as_scalar().map(|s| s.bits()), Some(want), "{x:?}");
        }
    }
}
