//! [`Instruction`]s → text, in Mesa's PP disassembly syntax (reference §15, which corrects the "proposed
//! syntax" of `lima-fp-asm-syntax.txt` per §18 item 14).
//!
//! # Syntax (what an assembler must accept)
//!
//! ```text
//! program     := { line "\n" }
//! line        := [ "@" WORDOFFSET ": " ] instr            (disassemble_program always writes the prefix)
//! instr       := unit { ", " unit } [ ", sync" ] [ ", stop" ]
//! ```
//! Units appear in field order (varying, sampler, uniform, vec4 mul, scalar mul, vec4 add, scalar add,
//! combiner, temp write, branch, const0, const1); `sync`/`stop` are control-word bits 6/5.
//!
//! Operands are separated by single spaces:
//! * vec4 register `$0..$11`; pipeline registers `^const0 ^const1 ^texture ^uniform` (codes 12–15), `^vmul`
//!   and `^fmul` (mul results, only as the mul_in source of the add units or as a pipeline-only mul dest),
//!   `^discard` (varying dest 15 = sampler coordinates).
//! * vec4 source: `[-][abs(]REG[.swz][)]`; `.swz` is four of `xyzw`, omitted for the identity `.xyzw`.
//! * scalar source: `[-][abs(]REG.c[)]` (`^fmul` has no component); scalar dest `$n.c`.
//! * vec4 dest: `$n[.mask]`, mask letters in `xyzw` order, omitted when all four are written.
//! * `_` = an add unit with no destination (mask 0 / output_en 0).
//! * Output modifier before the unit suffix: `.sat` `.pos` `.int`; unit suffixes `.v0` vec4 mul,
//!   `.s0` scalar mul, `.v1` vec4 add, `.s1` scalar add, `.s2` combiner.
//!
//! Units:
//! * varying: `load[.perspective.z|.perspective.w|.perspective.unknown].v DEST[.mask] SRC[.norm]` where
//!   `SRC` is `IDX.c` (alignment 0, IDX = index>>2), `IDX.xy|IDX.zw` (alignment 1, index>>1) or `IDX`
//!   (alignment 2/3), each optionally `+$r.c` (indirect), or a vec4 source (register layout), or
//!   `cube(..)`, `normalize(..)`, `gl_FragCoord`, `gl_PointCoord`, `gl_FrontFacing`. `.norm` after a
//!   register source (plain, inside `cube(..)` or `normalize(..)`) marks bit 6 (not printed by Mesa).
//! * sampler: `texld[.b|.lod][.cube|_tN] INDEX[+$r.c][ $l.c]` (`.b` bias register, `.lod` explicit LOD — Mesa
//!   prints `.b` for both).
//! * uniform: `load.u|load.t|load.uN IDX` with `IDX` = `n` (vec4), `n.xy|n.zw` (vec2), `n.c` (float), indices
//!   signed (`n` = index floor-divided by 2 or 4, so −1 is `-1.w`; Mesa truncates), optionally `+$r.c`.
//!   The result is `^uniform`.
//! * vec4 mul: `OP[.mod].v0 DEST ARG0[<<OPCODE] ` then `ARG1` for two-source ops (a one-source op leaves a
//!   trailing space, as Mesa does). `DEST` is `^vmul` when the mask is 0. Shifted multiplies (opcodes 1–7)
//!   print the raw opcode after `<<`.
//! * scalar mul: `OP[.mod].s0 DEST ARG0[<<OPCODE][ ARG1]`, `DEST` `^fmul` when output_en is 0.
//! * vec4/scalar add: `OP[.mod].v1|.s1 DEST ARG0[ ARG1]`; `ARG0` is `^vmul[.swz]` / `^fmul` with mul_in.
//! * combiner: `OP[.mod].s2 $d.c ARG0[ ARG1]`; scalar×vec4 `mul.s2 $d[.mask] SCALAR VEC4`;
//!   `atan_pt2[.mod].s2 $d.c SCALAR VEC4`; `atan_pt1|atan2_pt1.s2 $d[.mask] ARG0[ ARG1]`.
//! * temp write: `store.t IDX[+$r.c] SRC` (vec4 register for alignment > 0, else scalar); `fb_color $n`,
//!   `fb_depth $n`.
//! * branch: `branch[.COND ARG0 ARG1] TARGET` (COND one of `nv lt eq le gt ne ge`; none = unconditional;
//!   TARGET is the absolute word offset = instruction offset + relative target); `discard`.
//! * constants: `const0 X Y Z W`, `const1 …`, each `%f` (6 decimals) when that parses back to the same
//!   fp16 bits, else the shortest decimal that does; `inf`, `nan`; other NaNs as raw bits `0xHHHH`
//!   (an extension of Mesa's syntax, which prints every value with `%f`).
//!
//! Not printed (derivable or unknown): control `count`/`next_count`/`prefetch`, branch `next_count`, unknown
//! fields. Deviations from Mesa: `^vmul`/`^fmul` instead of Mesa's `^v0`/`^s0` for mul_in, explicit `^vmul`,
//! `^fmul` and `_` destinations where Mesa prints none, `.lod`, `.norm`.

use std::fmt::Write as _;

use half::f16;

use super::instr::*;
use super::isa::{alignment, CombineOp, Swizzle};

const COMP: [char; 4] = ['x', 'y', 'z', 'w'];

/// Disassembles one instruction located at word offset `offset` (used for absolute branch targets).
pub fn disassemble_instruction(instr: &Instruction, offset: u32) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(v) = &instr.varying {
        parts.push(varying(v));
    }
    if let Some(s) = &instr.sampler {
        parts.push(sampler(s));
    }
    if let Some(u) = &instr.uniform {
        parts.push(uniform(u));
    }
    if let Some(m) = &instr.vec4_mul {
        parts.push(vec4_mul(m));
    }
    if let Some(m) = &instr.float_mul {
        parts.push(float_mul(m));
    }
    if let Some(a) = &instr.vec4_acc {
        parts.push(vec4_acc(a));
    }
    if let Some(a) = &instr.float_acc {
        parts.push(float_acc(a));
    }
    if let Some(c) = &instr.combine {
        parts.push(combine(c));
    }
    if let Some(t) = &instr.temp_write {
        parts.push(temp_write(t));
    }
    if let Some(b) = &instr.branch {
        parts.push(branch(b, offset));
    }
    if let Some(c) = &instr.const0 {
        parts.push(constant(0, c));
    }
    if let Some(c) = &instr.const1 {
        parts.push(constant(1, c));
    }
    if instr.control.sync {
        parts.push("sync".into());
    }
    if instr.control.stop {
        parts.push("stop".into());
    }
    parts.join(", ")
}

/// Disassembles a program: one `@OFFSET: text` line per instruction.
pub fn disassemble_program(program: &[Instruction]) -> String {
    let mut out = String::new();
    for (instr, off) in program.iter().zip(instruction_offsets(program)) {
        let _ = writeln!(out, "@{off}: {}", disassemble_instruction(instr, off));
    }
    out
}

fn reg(r: Vec4Reg) -> String {
    match r {
        Vec4Reg::Gpr(n) => format!("${n}"),
        Vec4Reg::Const0 => "^const0".into(),
        Vec4Reg::Const1 => "^const1".into(),
        Vec4Reg::Texture => "^texture".into(),
        Vec4Reg::Uniform => "^uniform".into(),
    }
}

fn swizzle(s: Swizzle) -> String {
    if s == Swizzle::IDENTITY {
        return String::new();
    }
    let mut out = String::from(".");
    out.extend((0..4).map(|i| COMP[s.lane(i)]));
    out
}

fn mask(m: u8) -> String {
    if m & 0xF == 0xF {
        return String::new();
    }
    let mut out = String::from(".");
    out.extend((0..4).filter(|i| m & (1 << i) != 0).map(|i| COMP[i]));
    out
}

fn modified(body: String, abs: bool, neg: bool) -> String {
    let body = if abs { format!("abs({body})") } else { body };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

fn vsrc(s: &Vec4Src, special: Option<&str>) -> String {
    let name = special.map_or_else(|| reg(s.reg), str::to_owned);
    modified(format!("{name}{}", swizzle(s.swizzle)), s.abs, s.neg)
}

fn sreg(r: ScalarReg) -> String {
    format!("{}.{}", reg(r.vec4()), COMP[r.comp()])
}

fn ssrc(s: &ScalarSrc, special: Option<&str>) -> String {
    modified(
        special.map_or_else(|| sreg(s.reg), str::to_owned),
        s.abs,
        s.neg,
    )
}

fn vdest(dest: u8, m: u8) -> String {
    format!("${dest}{}", mask(m))
}

/// Mesa divides with C truncation (`index / 4`, `index & 3`), which prints −1 and 3 alike as `0.w`; floor
/// division (identical for index ≥ 0) keeps negative spill slots unambiguous: −1 → `-1.w`.
fn index_text(index: i16, align: u8) -> String {
    let i = i32::from(index);
    match align {
        2 => format!("{index}"),
        1 => format!(
            "{}.{}",
            i.div_euclid(2),
            if i & 1 != 0 { "zw" } else { "xy" }
        ),
        _ => format!("{}.{}", i.div_euclid(4), COMP[(i & 3) as usize]),
    }
}

fn varying_imm(imm: &VaryingImm) -> String {
    let mut s = match imm.alignment {
        alignment::SCALAR => format!("{}.{}", imm.index >> 2, COMP[usize::from(imm.index & 3)]),
        alignment::VEC2 => format!(
            "{}.{}",
            imm.index >> 1,
            if imm.index & 1 != 0 { "zw" } else { "xy" }
        ),
        _ => format!("{}", imm.index),
    };
    if let Some(r) = imm.offset() {
        s += &format!("+{}", sreg(r));
    }
    s
}

fn varying_reg(r: &VaryingReg) -> String {
    vsrc(&r.src, None)
}

/// `.norm` when bit 6 is set (any register-layout source).
fn norm(r: &VaryingReg) -> &'static str {
    if r.normalize {
        ".norm"
    } else {
        ""
    }
}

fn varying(v: &Varying) -> String {
    let mut s = String::from("load");
    let persp = match v.source {
        VaryingSource::Varying { perspective, .. }
        | VaryingSource::Register { perspective, .. } => perspective,
        _ => 0,
    };
    match persp {
        0 => {}
        2 => s += ".perspective.z",
        3 => s += ".perspective.w",
        _ => s += ".perspective.unknown",
    }
    s += ".v ";
    if v.dest == super::isa::reg::DISCARD {
        s += "^discard";
    } else {
        s += &format!("${}", v.dest);
    }
    s += &mask(v.mask);
    s.push(' ');
    s += &match &v.source {
        VaryingSource::Varying { imm, .. } => varying_imm(imm),
        VaryingSource::Register { reg, .. } => format!("{}{}", varying_reg(reg), norm(reg)),
        VaryingSource::CubeVarying(imm) => format!("cube({})", varying_imm(imm)),
        VaryingSource::CubeRegister(r) => format!("cube({}{})", varying_reg(r), norm(r)),
        VaryingSource::Normalize(r) => format!("normalize({}{})", varying_reg(r), norm(r)),
        VaryingSource::FragCoord(_) => "gl_FragCoord".into(),
        VaryingSource::PointCoord(_) => "gl_PointCoord".into(),
        VaryingSource::FrontFacing(_) => "gl_FrontFacing".into(),
    };
    s
}

fn sampler(t: &Sampler) -> String {
    let mut s = String::from("texld");
    if t.lod_bias_en {
        s += if t.explicit_lod { ".lod" } else { ".b" };
    }
    match t.ty {
        super::isa::SamplerType::Generic => {}
        super::isa::SamplerType::Cube => s += ".cube",
        super::isa::SamplerType::Other(n) => s += &format!("_t{n}"),
    }
    s += &format!(" {}", t.index);
    if t.offset_en {
        s += &format!("+{}", sreg(t.index_offset));
    }
    if t.lod_bias_en {
        s += &format!(" {}", sreg(t.lod_bias));
    }
    s
}

fn uniform(u: &UniformLoad) -> String {
    let src = match u.source {
        super::isa::UniformSource::Uniform => "u".to_string(),
        super::isa::UniformSource::Temporary => "t".to_string(),
        super::isa::UniformSource::Other(n) => format!("u{n}"),
    };
    let mut s = format!("load.{src} {}", index_text(u.index, u.alignment));
    if u.offset_en {
        s += &format!("+{}", sreg(u.offset_reg));
    }
    s
}

fn shift_suffix(op: super::isa::MulOp) -> String {
    let b = op.bits();
    if (1..8).contains(&b) {
        format!("<<{b}")
    } else {
        String::new()
    }
}

fn vec4_mul(m: &Vec4Mul) -> String {
    let dest = if m.mask == 0 {
        "^vmul".to_string()
    } else {
        vdest(m.dest, m.mask)
    };
    let mut s = format!(
        "{}{}.v0 {dest} {}{} ",
        m.op.mnemonic(),
        m.modifier.suffix(),
        vsrc(&m.arg0, None),
        shift_suffix(m.op)
    );
    if m.op.num_srcs() > 1 {
        s += &vsrc(&m.arg1, None);
    }
    s
}

fn float_mul(m: &FloatMul) -> String {
    let dest = if m.output_en {
        sreg(m.dest)
    } else {
        "^fmul".into()
    };
    let mut s = format!(
        "{}{}.s0 {dest} {}{}",
        m.op.mnemonic(),
        m.modifier.suffix(),
        ssrc(&m.arg0, None),
        shift_suffix(m.op)
    );
    if m.op.num_srcs() > 1 {
        s += &format!(" {}", ssrc(&m.arg1, None));
    }
    s
}

fn vec4_acc(a: &Vec4Acc) -> String {
    let dest = if a.mask == 0 {
        "_".to_string()
    } else {
        vdest(a.dest, a.mask)
    };
    let arg0 = vsrc(&a.arg0, a.mul_in.then_some("^vmul"));
    let mut s = format!(
        "{}{}.v1 {dest} {arg0}",
        a.op.mnemonic(),
        a.modifier.suffix()
    );
    if a.op.num_srcs() > 1 {
        s += &format!(" {}", vsrc(&a.arg1, None));
    }
    s
}

fn float_acc(a: &FloatAcc) -> String {
    let dest = if a.output_en {
        sreg(a.dest)
    } else {
        "_".into()
    };
    let arg0 = ssrc(&a.arg0, a.mul_in.then_some("^fmul"));
    let mut s = format!(
        "{}{}.s1 {dest} {arg0}",
        a.op.mnemonic(),
        a.modifier.suffix()
    );
    if a.op.num_srcs() > 1 {
        s += &format!(" {}", ssrc(&a.arg1, None));
    }
    s
}

fn combine(c: &Combine) -> String {
    match c {
        Combine::Scalar {
            op,
            dest,
            modifier,
            arg0,
            arg1,
        } => {
            let mut s = format!(
                "{}{}.s2 {} {}",
                op.mnemonic(),
                modifier.suffix(),
                sreg(*dest),
                ssrc(arg0, None)
            );
            if op.num_srcs() > 1 {
                s += &format!(" {}", ssrc(arg1, None));
            }
            s
        }
        Combine::VecMul {
            dest,
            mask,
            arg0,
            arg1,
        } => {
            format!(
                "mul.s2 {} {} {}",
                vdest(*dest, *mask),
                ssrc(arg0, None),
                vsrc(arg1, None)
            )
        }
        Combine::AtanPt2 {
            dest,
            modifier,
            arg0,
            arg1,
        } => {
            format!(
                "atan_pt2{}.s2 {} {} {}",
                modifier.suffix(),
                sreg(*dest),
                ssrc(arg0, None),
                vsrc(arg1, None)
            )
        }
        Combine::AtanPt1 {
            op,
            dest,
            mask,
            arg0,
            arg1,
        } => {
            let name = match op {
                CombineOp::Atan => "atan_pt1".to_string(),
                CombineOp::Atan2 => "atan2_pt1".to_string(),
                CombineOp::Rcp
                | CombineOp::Mov
                | CombineOp::Sqrt
                | CombineOp::Rsqrt
                | CombineOp::Exp2
                | CombineOp::Log2
                | CombineOp::Sin
                | CombineOp::Cos => format!("{}_pt1", op.mnemonic()),
            };
            let mut s = format!("{name}.s2 {} {}", vdest(*dest, *mask), ssrc(arg0, None));
            if op.num_srcs() > 1 {
                s += &format!(" {}", ssrc(arg1, None));
            }
            s
        }
    }
}

fn temp_write(t: &TempWrite) -> String {
    match t {
        TempWrite::FbRead { color, dest, .. } => {
            format!("{} ${dest}", if *color { "fb_color" } else { "fb_depth" })
        }
        TempWrite::Store {
            dest,
            source,
            alignment,
            offset_reg,
            offset_en,
            index,
            ..
        } => {
            let name = if u64::from(*dest) == super::isa::TEMP_WRITE_DEST_TEMPORARY {
                "store.t".to_string()
            } else {
                format!("store.d{dest}")
            };
            let mut s = format!("{name} {}", index_text(*index, *alignment));
            if *offset_en {
                s += &format!("+{}", sreg(*offset_reg));
            }
            if *alignment != 0 {
                s += &format!(" {}", reg(source.vec4()));
            } else {
                s += &format!(" {}", sreg(*source));
            }
            s
        }
    }
}

fn branch(b: &Branch, offset: u32) -> String {
    match b {
        Branch::Discard => "discard".into(),
        Branch::Branch {
            cond,
            arg0,
            arg1,
            target,
            ..
        } => {
            let mut s = String::from("branch");
            if *cond != super::isa::BranchCond::ALWAYS {
                s += &format!(".{} {} {}", cond.name(), sreg(*arg0), sreg(*arg1));
            }
            s += &format!(" {}", i64::from(offset) + i64::from(*target));
            s
        }
    }
}

/// An fp16 constant as text that parses back to the same bits: C `%f` (Mesa's format) when
/// that is exact, else the shortest decimal of its f32 value (small values such as `0.000123`
/// lose digits in `%f`), `inf`/`-inf`, `nan`/`-nan` for the canonical quiet NaNs and `0xHHHH`
/// (the raw bits) for any other NaN.
fn c_float(v: f16) -> String {
    let f = v.to_f32();
    if f.is_nan() {
        if v.to_bits() == f16::NAN.to_bits() {
            "nan".into()
        } else if v.to_bits() == (-f16::NAN).to_bits() {
            "-nan".into()
        } else {
            format!("0x{:04x}", v.to_bits())
        }
    } else if f.is_infinite() {
        if f < 0.0 { "-inf" } else { "inf" }.into()
    } else {
        let c = format!("{f:.6}");
        // From 2^-8 up, half an fp16 step (at least 2^-19) exceeds the 5·10^-7 that six
        // decimals can be off by, so the text always reads back to the same bits.
        let exact = f == 0.0
            || f.abs() >= 1.0 / 256.0
            || c.parse::<f64>()
                .is_ok_and(|p| f16::from_f64(p).to_bits() == v.to_bits());
        if exact {
            c
        } else {
            format!("{f}")
        }
    }
}

fn constant(n: u32, c: &[f16; 4]) -> String {
    let mut s = format!("const{n}");
    for v in c {
        s.push(' ');
        s += &c_float(*v);
    }
    s
}
