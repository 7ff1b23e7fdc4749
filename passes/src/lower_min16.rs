//! `lower-min16`: min-precision types → 16- or 32-bit types; `MinValue`/`MaxValue` → constants.
//!
//! D3D's min-precision types (`minf16`, `minf10`, `mini16`, `minu16`) promise *at least* that
//! precision. Like dxbc-spirv's `LowerMin16Pass`, this pass gives every op and declaration a
//! concrete type, walking the whole module once and rewriting types in place (struct members
//! and array element types included):
//!
//! - `minf16`/`minf10` → `f16` if the target has 16-bit floats (`cx.caps.float16`), else `f32`;
//! - `mini16`/`minu16` → `i16`/`u16` if it has 16-bit integers (`cx.caps.int16`), else
//!   `i32`/`u32`.
//!
//! Ops themselves stay as they are; only `Constant` and `Undef` need more care, since their
//! literals encode the type (reference §A.7: min-precision float constants hold f32 bits,
//! min-precision integer constants i32/u32 values). A 16-bit float literal is the f32 value
//! rounded to nearest-even f16, a 16-bit integer literal the truncated value (sign-extended for
//! `i16`); 32-bit literals keep their bits. Constants and undefs are unique in a module, so a
//! converted one that equals an existing one is merged into it. `DclSpecConstant` defaults are
//! converted the same way.
//!
//! The interpreter evaluates min-precision types as the 16-bit types, so the 16-bit choice is
//! exact. The 32-bit choice (targets without 16-bit types: Lima, PICA, AGAL) *raises* the
//! precision, which D3D allows; results may then differ from the 16-bit evaluation. On the
//! corpus, 4 of the 6 shaders with min-precision types change outputs that way (values that
//! overflow or round in f16 but not in f32); the ignored test `corpus_per_target` counts them.
//!
//! `MinValue`/`MaxValue` (historical opcodes 768/769) become constants of their (resolved)
//! type: the lowest and highest finite values — for floats `−MAX` and `MAX`, for signed integers
//! `INT_MIN`/`INT_MAX`, for unsigned ones 0 and all ones. dxbc-spirv's old lowering used
//! `numeric_limits<T>::min()` for the float minimum, which is the smallest positive normal, not
//! the lowest finite value the spec defines; we follow the spec (reference §B.7) and the
//! interpreter.

use crate::caps::PassContext;
use crate::PassError;
use irc_ir::{BasicType, Module, Op, OpCode, Operand, ScalarType, SsaDef, Type};

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    let map = Map {
        float16: cx.caps.float16,
        int16: cx.caps.int16,
    };
    // The usual shader has no min-precision type: the module counts them.
    let limits = m.contains_opcode(OpCode::MinValue) || m.contains_opcode(OpCode::MaxValue);
    if !limits && m.min_precision_typed_count() == 0 {
        return Ok(false);
    }
    let mut changed = false;
    let all: Vec<SsaDef> = m.iter().collect();
    for d in all {
        if !m.is_live(d) {
            continue;
        }
        let op = m.op(d);
        match op.opcode {
            OpCode::MinValue | OpCode::MaxValue => {
                let c = limit_constant(m, &map, d)?;
                m.replace_all_uses(d, c);
                m.remove(d);
                changed = true;
            }
            OpCode::Constant | OpCode::Undef | OpCode::DclSpecConstant => {
                if !has_min(&op.ty) {
                    continue;
                }
                let new = convert_literal_op(op, &map);
                changed = true;
                if op.opcode.is_constant_like() {
                    if let Some(existing) = m.find_constant(&new).filter(|&e| e != d) {
                        m.replace_all_uses(d, existing);
                        m.remove(d);
                        continue;
                    }
                }
                m.rewrite(d, new);
            }
            _ => {
                if has_min(&op.ty) {
                    let ty = map.ty(&op.ty);
                    m.set_type(d, ty);
                    changed = true;
                }
            }
        }
    }
    Ok(changed)
}

/// What min-precision types become.
struct Map {
    float16: bool,
    int16: bool,
}

impl Map {
    fn scalar(&self, s: ScalarType) -> ScalarType {
        match s {
            ScalarType::MinF16 | ScalarType::MinF10 if self.float16 => ScalarType::F16,
            ScalarType::MinF16 | ScalarType::MinF10 => ScalarType::F32,
            ScalarType::MinI16 if self.int16 => ScalarType::I16,
            ScalarType::MinI16 => ScalarType::I32,
            ScalarType::MinU16 if self.int16 => ScalarType::U16,
            ScalarType::MinU16 => ScalarType::U32,
            s => s,
        }
    }

    fn ty(&self, t: &Type) -> Type {
        let members = t
            .members()
            .iter()
            .map(|b| BasicType::new(self.scalar(b.scalar_type()), b.vec_size()))
            .collect();
        Type::from_parts(members, t.array_dims().iter().copied().collect())
    }

    /// The literal of a constant scalar of min-precision type `s` in the resolved type.
    fn literal(&self, s: ScalarType, lit: u64) -> u64 {
        match (s, self.scalar(s)) {
            (ScalarType::MinF16 | ScalarType::MinF10, ScalarType::F16) => {
                f32_to_f16_bits(f32::from_bits(lit as u32)) as u64
            }
            (ScalarType::MinI16, ScalarType::I16) => lit as i16 as i64 as u64,
            (ScalarType::MinU16, ScalarType::U16) => lit as u16 as u64,
            (ScalarType::MinI16, _) => lit as i32 as i64 as u64,
            (ScalarType::MinU16 | ScalarType::MinF16 | ScalarType::MinF10, _) => lit as u32 as u64,
            _ => lit,
        }
    }
}

/// True if a min-precision scalar occurs in `t`.
fn has_min(t: &Type) -> bool {
    t.members()
        .iter()
        .any(|b| b.scalar_type().is_min_precision())
}

/// `Constant`, `Undef` or `DclSpecConstant` with the resolved type and converted literals.
fn convert_literal_op(op: &Op, map: &Map) -> Op {
    let mut new = op.clone();
    new.ty = map.ty(&op.ty);
    // Typed literals: all operands of a Constant; those after the spec id of a DclSpecConstant.
    let first_typed = match op.opcode {
        OpCode::Constant => 0,
        OpCode::DclSpecConstant => 2,
        _ => return new,
    };
    for (k, i) in (first_typed..op.operands.len()).enumerate() {
        if let Operand::Lit(l) = op.operands[i] {
            let s = op
                .ty
                .flattened_scalar_type(k as u64)
                .unwrap_or(ScalarType::Unknown);
            new.operands[i] = Operand::Lit(map.literal(s, l));
        }
    }
    new
}

/// The constant a `MinValue`/`MaxValue` op stands for.
fn limit_constant(m: &mut Module, map: &Map, d: SsaDef) -> Result<SsaDef, PassError> {
    let op = m.op(d);
    let max = op.opcode == OpCode::MaxValue;
    let ty = map.ty(&op.ty);
    let unsupported = |reason: String| PassError::Unsupported {
        op: d,
        opcode: op.opcode,
        reason,
    };
    let b = ty
        .as_basic()
        .ok_or_else(|| unsupported(format!("type {ty} is not a scalar or vector")))?;
    let lit = match b.scalar_type() {
        ScalarType::F16 => (if max { 0x7bff } else { 0xfbff }) as u64,
        ScalarType::F32 => (if max { f32::MAX } else { f32::MIN }).to_bits() as u64,
        ScalarType::F64 => (if max { f64::MAX } else { f64::MIN }).to_bits(),
        ScalarType::I8 => (if max { i8::MAX as i64 } else { i8::MIN as i64 }) as u64,
        ScalarType::I16 => {
            (if max {
                i16::MAX as i64
            } else {
                i16::MIN as i64
            }) as u64
        }
        ScalarType::I32 => {
            (if max {
                i32::MAX as i64
            } else {
                i32::MIN as i64
            }) as u64
        }
        ScalarType::I64 => (if max { i64::MAX } else { i64::MIN }) as u64,
        ScalarType::U8 => {
            if max {
                u8::MAX as u64
            } else {
                0
            }
        }
        ScalarType::U16 => {
            if max {
                u16::MAX as u64
            } else {
                0
            }
        }
        ScalarType::U32 => {
            if max {
                u32::MAX as u64
            } else {
                0
            }
        }
        ScalarType::U64 => {
            if max {
                u64::MAX
            } else {
                0
            }
        }
        s => return Err(unsupported(format!("no numeric limits for type {s}"))),
    };
    let mut c = Op::new(OpCode::Constant, ty.clone());
    for _ in 0..b.vec_size() {
        c = c.lit(lit);
    }
    Ok(m.add(c))
}

/// f16 bits of `x`, rounded to nearest-even (overflow → inf, NaN stays NaN).
pub(crate) fn f32_to_f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        let nan = if man != 0 {
            0x200 | (man >> 13) as u16
        } else {
            0
        };
        return sign | 0x7c00 | nan;
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    // Value in units of the result's last place: m · 2^-shift.
    let (m, shift, base) = if e >= 1 {
        (man, 13u32, (e as u32) << 10)
    } else {
        let shift = (14 - e) as u32; // 126 − exp: the f16 subnormal unit is 2^-24.
        if shift > 24 {
            return sign;
        }
        (man | 0x80_0000, shift, 0)
    };
    let mut h = m >> shift;
    let rem = m & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rem > half || (rem == half && h & 1 == 1) {
        h += 1;
    }
    sign | (base + h) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower_legacy::test_util::check_same;
    use irc_arith::value::constant_scalar;
    use irc_ir::text;

    #[test]
    fn f16_rounding_matches_interpreter() {
        let mut vals: Vec<f32> = vec![
            0.0,
            -0.0,
            1.0,
            0.1,
            65504.0,
            65519.0,
            65520.0,
            1e9,
            f32::INFINITY,
            -f32::INFINITY,
            6.0e-8,
            2.9e-8,
            3.0e-8,
            1.0e-5,
            -3.1e-5,
            f32::MIN_POSITIVE,
        ];
        let mut x: u32 = 0x1234_5678;
        for _ in 0..20000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let v = f32::from_bits(x);
            if !v.is_nan() {
                vals.push(v);
            }
        }
        for v in vals {
            let want = constant_scalar(ScalarType::MinF16, v.to_bits() as u64).bits() as u16;
            assert_eq!(f32_to_f16_bits(v), want, "{v:e}");
        }
    }

    const MODULE: &str = "
%1 = EntryPoint %20 Vertex
%2 = minf16x2 DclInput %1 0 0
%3 = mini16 DclInput %1 1 0
%4 = minu16 DclInput %1 2 0
%5 = minf16x2 DclOutput %1 0 0
%6 = mini16 DclOutput %1 1 0
%7 = minu16 DclOutput %1 2 0
%8 = f32 DclOutput %1 3 0
%9 = f32 DclOutput %1 4 0
%10 = minf16x2 Constant 0x3dcccccd 0x477fe000
%11 = mini16 Constant -70000
%12 = minu16 Constant 70001
%13 = f16x2 Constant 0x2e66 0x7bff
%14 = i32 DclOutput %1 5 0
%20 = Function
%21 = Label None
  %30 = minf16x2 InputLoad %2 null
  %31 = minf16x2 FMul %30 %10
  %32 = OutputStore %5 null %31
  %33 = mini16 InputLoad %3 null
  %34 = mini16 IAdd %33 %11
  %35 = OutputStore %6 null %34
  %36 = minu16 InputLoad %4 null
  %37 = minu16 IMul %36 %12
  %38 = OutputStore %7 null %37
  %39 = minf16 MinValue
  %40 = f32 ConvertFtoF %39
  %41 = OutputStore %8 null %40
  %42 = minf16 MaxValue
  %43 = f32 ConvertFtoF %42
  %44 = OutputStore %9 null %43
  %45 = f16x2 FAdd %13 %13
  %46 = mini16 MinValue
  %47 = i32 ConvertItoI %46
  %48 = OutputStore %14 null %47
  %49 = Return
%50 = FunctionEnd
";

    #[test]
    fn sixteen_bit_lowering_is_exact() {
        let m = text::parse(MODULE).unwrap();
        let mut l = m.clone();
        assert!(run(&mut l, &PassContext::default()).unwrap());
        assert!(l
            .iter()
            .all(|d| !has_min(l.ty(d))
                && !matches!(l.opcode(d), OpCode::MinValue | OpCode::MaxValue)));
        // minf16 0.1 and 65504 (f32 bits) become f16 0x2e66 0x7bff, the existing constant.
        let p = text::print(&l);
        assert!(!p.contains("%10 ="), "{p}");
        check_same(&m, &l, "min16 → 16 bit");
    }

    #[test]
    fn thirty_two_bit_lowering_raises_precision() {
        let m = text::parse(MODULE).unwrap();
        for caps in [
            crate::caps::test_profiles::LIMA_LIKE,
            crate::caps::test_profiles::PICA_LIKE,
            crate::caps::test_profiles::AGAL_LIKE,
        ] {
            let mut l = m.clone();
            assert!(run(
                &mut l,
                &PassContext {
                    caps,
                    ..Default::default()
                }
            )
            .unwrap());
            irc_ir::verifier::verify(&l).unwrap();
            let p = text::print(&l);
            assert!(p.contains("%2 = f32x2 DclInput"), "{p}");
            assert!(p.contains("%3 = i32 DclInput"), "{p}");
            assert!(p.contains("%10 = f32x2 Constant 0.1 65504"), "{p}");
            assert!(p.contains("%11 = i32 Constant -70000"), "{p}");
            assert!(p.contains("%12 = u32 Constant 70001"), "{p}");
            // −FLT_MAX and FLT_MAX, INT_MIN.
            assert!(p.contains("f32 Constant -3.4028235e38"), "{p}");
            assert!(p.contains("i32 Constant -2147483648"), "{p}");
        }
    }

    /// The corpus through the frontend and the four lowering passes with each target family's
    /// capabilities, compared with the raw input in the interpreter (8 seeds). Prints counts;
    /// outputs may change only in shaders with min-precision types (32-bit evaluation).
    /// `cargo test --release -p irc-passes --lib -- --ignored corpus_per_target --nocapture`
    #[test]
    #[ignore]
    fn corpus_per_target() {
        use irc_interp::{compare::outputs_equal, run as interp, RunConfig, ShaderInputs};
        let dir = std::env::var("IRC_CORPUS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/ir")
            });
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("corpus not found, skipped");
            return;
        };
        let mut files: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".raw.dxir"))
            .collect();
        files.sort();
        let config = RunConfig {
            max_compute_lanes: 64,
            fuel: 2_000_000,
            ..RunConfig::default()
        };
        let passes = [
            "lower-legacy",
            "lower-dot",
            "lower-min16",
            "scratch-to-regs",
        ];
        for caps in [
            crate::caps::test_profiles::PICA_LIKE,
            crate::caps::test_profiles::LIMA_LIKE,
            crate::caps::test_profiles::AGAL_LIKE,
        ] {
            let (mut ok, mut unsupported, mut failed) = (0, 0, 0);
            let (mut ref_traps, mut memory_ok, mut memory_total) = (0, 0, 0);
            let (mut differs_min16, mut differs_other) = (Vec::new(), Vec::new());
            let mut reasons: std::collections::BTreeMap<String, u32> = Default::default();
            for f in &files {
                let raw = irc_ir::binary::read(&std::fs::read(f).unwrap()).unwrap();
                let mut m = raw.clone();
                let mut pm = crate::PassManager::new(crate::ManagerOptions {
                    verify: true,
                    ..Default::default()
                });
                pm.context = PassContext {
                    caps: caps.clone(),
                    ..Default::default()
                };
                let r = crate::pipelines::frontend(&mut pm, &mut m).and_then(|()| {
                    passes
                        .iter()
                        .try_for_each(|p| pm.run_named(&mut m, p).map(|_| ()))
                });
                match r {
                    Ok(()) => {}
                    Err(PassError::Unsupported { reason, opcode, .. }) => {
                        unsupported += 1;
                        let key = format!("{opcode}: {}", reason.split(" (").next().unwrap_or(""));
                        *reasons.entry(key).or_default() += 1;
                        continue;
                    }
                    Err(PassError::Frontend(irc_frontend::FrontendError::Unsupported {
                        ..
                    })) => {
                        unsupported += 1;
                        continue;
                    }
                    Err(e) => {
                        failed += 1;
                        eprintln!("{}: {e}", f.display());
                        continue;
                    }
                }
                let has_min = raw.iter().any(|d| has_min(raw.ty(d)));
                let memory = raw
                    .iter()
                    .any(|d| matches!(raw.opcode(d), OpCode::DclScratch | OpCode::ConstantLoad));
                memory_total += memory as u32;
                let mut verdict = Ok(());
                for seed in 0..8 {
                    let inputs = ShaderInputs::random(&raw, seed);
                    match (interp(&raw, &inputs, &config), interp(&m, &inputs, &config)) {
                        (Ok(a), Ok(b)) => {
                            if let Err(d) = outputs_equal(&a, &b) {
                                verdict = Err(d.to_string());
                                break;
                            }
                        }
                        (Err(_), _) => {
                            verdict = Err(String::new());
                            break;
                        }
                        (Ok(_), Err(t)) => {
                            verdict = Err(format!("lowered traps: {t}"));
                            break;
                        }
                    }
                }
                match verdict {
                    Ok(()) => {
                        ok += 1;
                        memory_ok += memory as u32;
                    }
                    Err(e) if e.is_empty() => ref_traps += 1,
                    Err(e) if has_min => differs_min16.push((f.clone(), e)),
                    Err(e) => differs_other.push((f.clone(), e)),
                }
            }
            eprintln!(
                "{}: {ok} ok, {unsupported} unsupported, {ref_traps} not comparable (the raw shader traps), \
                 {failed} failed, {} differ (min-precision, 32-bit), {} differ (other); \
                 scratch/constant arrays: {memory_ok} of {memory_total} ok",
                caps.name,
                differs_min16.len(),
                differs_other.len()
            );
            for (k, n) in &reasons {
                eprintln!("  unsupported {n}× {k}");
            }
            for (f, e) in differs_min16.iter().chain(&differs_other) {
                eprintln!("  differs {}: {e}", f.display());
            }
            assert_eq!(failed, 0);
            assert!(differs_other.is_empty());
        }
    }
}
