//! Unit dispatch and the ALU units (`.v0 .s0 .v1 .s1 .s2`) of the assembler.

use half::f16;

use super::super::instr::*;
use super::super::isa::*;
use super::operands::*;
use super::units::*;
use super::Target;

pub(super) fn unused_vsrc(arg0: &Vec4Src) -> Vec4Src {
    unused_vec4_src(arg0)
}

pub(super) fn zero_ssrc() -> ScalarSrc {
    ScalarSrc {
        reg: ScalarReg(0),
        abs: false,
        neg: false,
    }
}

/// Parses one unit into `instr`; returns the unit's rank (unit index, 12 = sync, 13 = stop) and a target.
pub(super) fn parse_unit(
    mn: Word<'_>,
    ops: &[Word<'_>],
    i: &mut Instruction,
) -> R<(usize, Option<(Target, usize)>)> {
    let m = mn.s;
    let unit = |u: Unit| Ok((u.index() as usize, None));
    match m {
        "sync" | "stop" => {
            count(mn, ops, &[0], "no operands")?;
            if m == "sync" {
                i.control.sync = true
            } else {
                i.control.stop = true
            }
            return Ok((if m == "sync" { 12 } else { 13 }, None));
        }
        "discard" => {
            count(mn, ops, &[0], "no operands")?;
            i.branch = Some(Branch::Discard);
            return unit(Unit::Branch);
        }
        "const0" | "const1" => {
            count(mn, ops, &[4], "four fp16 values")?;
            let mut c = [f16::ZERO; 4];
            for (v, w) in c.iter_mut().zip(ops) {
                *v = float(*w)?;
            }
            if m == "const0" {
                i.const0 = Some(c)
            } else {
                i.const1 = Some(c)
            }
            return unit(if m == "const0" {
                Unit::Const0
            } else {
                Unit::Const1
            });
        }
        "fb_color" | "fb_depth" => {
            count(mn, ops, &[1], "a destination register")?;
            let mut c = Cur::new(ops[0]);
            let dest = c.dest_num()?;
            c.end("the register")?;
            let unknown = unknown_defaults(fb_read::ALL);
            i.temp_write = Some(TempWrite::FbRead {
                color: m == "fb_color",
                dest,
                unknown,
            });
            return unit(Unit::TempWrite);
        }
        _ => {}
    }
    if let Some(rest) = m.strip_prefix("texld") {
        i.sampler = Some(sampler(mn, rest, ops)?);
        return unit(Unit::Sampler);
    }
    if let Some(rest) = m.strip_prefix("branch") {
        let (b, t) = branch(mn, rest, ops)?;
        i.branch = Some(b);
        return Ok((Unit::Branch.index() as usize, Some(t)));
    }
    let parts: Vec<&str> = m.split('.').collect();
    match (parts[0], parts.last().copied().unwrap_or("")) {
        ("load", "v") => {
            i.varying = Some(varying(mn, &parts[1..parts.len() - 1], ops)?);
            unit(Unit::Varying)
        }
        ("load", s) if parts.len() >= 2 => {
            i.uniform = Some(uniform_load(mn, &parts, s, ops)?);
            unit(Unit::Uniform)
        }
        ("store", s) if parts.len() == 2 => {
            i.temp_write = Some(store(mn, s, ops)?);
            unit(Unit::TempWrite)
        }
        (op, u @ ("v0" | "s0" | "v1" | "s1" | "s2")) if parts.len() <= 3 && parts.len() >= 2 => {
            let modifier = match parts.get(1).filter(|_| parts.len() == 3).copied() {
                None => OutMod::None,
                Some("sat") => OutMod::Sat,
                Some("pos") => OutMod::Pos,
                Some("int") => OutMod::Int,
                Some(other) => {
                    let at = mn.at + op.len() + 1;
                    return Err(PErr::new(at, format!("expected an output modifier (sat, pos, int), found `{other}`")));
                }
            };
            alu(mn, op, u, modifier, ops, i)
        }
        _ => Err(PErr::new(
            mn.at,
            format!(
                "expected a unit: load[.perspective.z|.w].v, texld, load.u|.t, OP.v0|.s0|.v1|.s1|.s2, store.t, \
                 fb_color, fb_depth, branch, discard, const0, const1, sync or stop; found `{m}`"
            ),
        )),
    }
}

pub(super) fn alu(
    mn: Word<'_>,
    op: &str,
    u: &str,
    modifier: OutMod,
    ops: &[Word<'_>],
    i: &mut Instruction,
) -> R<(usize, Option<(Target, usize)>)> {
    let bad_op = |list: &str| PErr::new(mn.at, format!("expected a {list} opcode, found `{op}`"));
    let rank = |u: Unit| Ok((u.index() as usize, None));
    match u {
        "v0" | "s0" => {
            let base = MulOp::ALL
                .iter()
                .copied()
                .find(|o| o.mnemonic() == op)
                .ok_or_else(|| bad_op("multiply-unit"))?;
            let n = base.num_srcs() as usize;
            count(mn, ops, &[n, n + 1], &format!("[DEST] and {n} source(s)"))?;
            let (dest, srcs) = if ops.len() > n {
                (Some(ops[0]), &ops[1..])
            } else {
                (None, ops)
            };
            let (a0, shift) = match srcs[0].s.find("<<") {
                Some(p) => {
                    let mut c = Cur::new(Word {
                        s: &srcs[0].s[p + 2..],
                        at: srcs[0].at + p + 2,
                    });
                    let s = c.uint()?;
                    c.end("the shift")?;
                    if base != MulOp::Mul || s > 7 {
                        return Err(PErr::new(
                            srcs[0].at + p,
                            "`<<N` (N = 0..7) is only valid on `mul`".into(),
                        ));
                    }
                    (
                        Word {
                            s: &srcs[0].s[..p],
                            at: srcs[0].at,
                        },
                        s,
                    )
                }
                None => (srcs[0], 0),
            };
            let op = MulOp::from_bits(if base == MulOp::Mul {
                shift
            } else {
                base.bits()
            })
            .unwrap_or(base);
            if u == "v0" {
                let (dest, mask) = match dest {
                    Some(w) if w.s == "^vmul" => (0, 0),
                    Some(w) => vdest(w)?,
                    None => (0, 0),
                };
                let arg0 = vsrc(a0, &[])?.0;
                let arg1 = if n > 1 {
                    vsrc(srcs[1], &[])?.0
                } else {
                    unused_vsrc(&arg0)
                };
                i.vec4_mul = Some(Vec4Mul {
                    op,
                    arg0,
                    arg1,
                    dest,
                    mask,
                    modifier,
                });
                rank(Unit::Vec4Mul)
            } else {
                let (dest, output_en) = match dest {
                    Some(w) if w.s == "^fmul" => (ScalarReg(0), false),
                    Some(w) => (sdest(w)?, true),
                    None => (ScalarReg(0), false),
                };
                let arg0 = ssrc(a0, &[])?.0;
                let arg1 = if n > 1 {
                    ssrc(srcs[1], &[])?.0
                } else {
                    zero_ssrc()
                };
                i.float_mul = Some(FloatMul {
                    op,
                    arg0,
                    arg1,
                    dest,
                    output_en,
                    modifier,
                });
                rank(Unit::FloatMul)
            }
        }
        "v1" | "s1" => {
            let op = AccOp::ALL
                .iter()
                .copied()
                .find(|o| o.mnemonic() == op)
                .ok_or_else(|| bad_op("add-unit"))?;
            if u == "s1" && !op.scalar_ok() {
                return Err(PErr::new(
                    mn.at,
                    format!("`{}` exists only on the vec4 add unit (.v1)", op.mnemonic()),
                ));
            }
            let n = op.num_srcs() as usize;
            count(mn, ops, &[n, n + 1], &format!("[DEST] and {n} source(s)"))?;
            let (dest, srcs) = if ops.len() > n {
                (Some(ops[0]), &ops[1..])
            } else {
                (None, ops)
            };
            let off = |d: Option<Word<'_>>| d.is_none_or(|w| w.s == "_");
            if u == "v1" {
                let (dest, mask) = if off(dest) {
                    (0, 0)
                } else {
                    vdest(dest.unwrap_or(srcs[0]))?
                };
                let (mut arg0, mul_in) = vsrc(srcs[0], &["^vmul", "^v0"])?;
                if mul_in {
                    arg0.reg = Vec4Reg::Gpr(0);
                }
                let arg1 = if n > 1 {
                    vsrc(srcs[1], &[])?.0
                } else {
                    unused_vsrc(&arg0)
                };
                i.vec4_acc = Some(Vec4Acc {
                    op,
                    arg0,
                    arg1,
                    dest,
                    mask,
                    modifier,
                    mul_in,
                });
                rank(Unit::Vec4Acc)
            } else {
                let (dest, output_en) = if off(dest) {
                    (ScalarReg(0), false)
                } else {
                    (sdest(dest.unwrap_or(srcs[0]))?, true)
                };
                let (arg0, mul_in) = ssrc(srcs[0], &["^fmul", "^s0"])?;
                let arg1 = if n > 1 {
                    ssrc(srcs[1], &[])?.0
                } else {
                    zero_ssrc()
                };
                i.float_acc = Some(FloatAcc {
                    op,
                    arg0,
                    arg1,
                    dest,
                    output_en,
                    modifier,
                    mul_in,
                });
                rank(Unit::FloatAcc)
            }
        }
        _ => {
            i.combine = Some(combiner(mn, op, modifier, ops)?);
            rank(Unit::Combine)
        }
    }
}

pub(super) fn combiner(mn: Word<'_>, op: &str, modifier: OutMod, ops: &[Word<'_>]) -> R<Combine> {
    let no_mod = |what: &str| {
        if modifier == OutMod::None {
            Ok(())
        } else {
            Err(PErr::new(mn.at, format!("{what} has no output modifier")))
        }
    };
    let plain_vec = |w: Word<'_>| {
        let s = vsrc(w, &[])?.0;
        if s.abs || s.neg {
            return Err(PErr::new(
                w.at,
                "the combiner's vec4 operand has no abs/negate".into(),
            ));
        }
        Ok(s)
    };
    let find = |name: &str| {
        CombineOp::ALL
            .iter()
            .copied()
            .find(|o| o.mnemonic() == name)
    };
    if op == "mul" {
        no_mod("the scalar × vec4 multiply (mul.s2)")?;
        count(mn, ops, &[3], "DEST SCALAR VEC4")?;
        let (dest, mask) = vdest(ops[0])?;
        return Ok(Combine::VecMul {
            dest,
            mask,
            arg0: ssrc(ops[1], &[])?.0,
            arg1: plain_vec(ops[2])?,
        });
    }
    if op == "atan_pt2" {
        count(mn, ops, &[3], "DEST SCALAR VEC4")?;
        let dest = sdest(ops[0])?;
        return Ok(Combine::AtanPt2 {
            dest,
            modifier,
            arg0: ssrc(ops[1], &[])?.0,
            arg1: plain_vec(ops[2])?,
        });
    }
    if let Some(base) = op.strip_suffix("_pt1") {
        let op = find(base).ok_or_else(|| {
            PErr::new(
                mn.at,
                format!("expected a combiner opcode before `_pt1`, found `{base}`"),
            )
        })?;
        no_mod("the atan_pt1 form")?;
        let n = op.num_srcs() as usize;
        count(mn, ops, &[n + 1], &format!("DEST and {n} source(s)"))?;
        let (dest, mask) = vdest(ops[0])?;
        let arg1 = if n > 1 {
            ssrc(ops[2], &[])?.0
        } else {
            zero_ssrc()
        };
        return Ok(Combine::AtanPt1 {
            op,
            dest,
            mask,
            arg0: ssrc(ops[1], &[])?.0,
            arg1,
        });
    }
    let op = find(op).ok_or_else(|| {
        PErr::new(mn.at, format!("expected a combiner opcode (rcp mov sqrt rsqrt exp2 log2 sin cos atan atan2 mul atan_pt2 atan_pt1), found `{op}`"))
    })?;
    let n = op.num_srcs() as usize;
    count(mn, ops, &[n + 1], &format!("DEST and {n} source(s)"))?;
    let dest = sdest(ops[0])?;
    let arg1 = if n > 1 {
        ssrc(ops[2], &[])?.0
    } else {
        zero_ssrc()
    };
    Ok(Combine::Scalar {
        op,
        dest,
        modifier,
        arg0: ssrc(ops[1], &[])?.0,
        arg1,
    })
}
