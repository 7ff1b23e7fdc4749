//! The load/store/texture/branch units of the assembler.

use super::super::instr::*;
use super::super::isa::{self, *};
use super::operands::*;
use super::{label, Target};

pub(super) fn varying(mn: Word<'_>, persp: &[&str], ops: &[Word<'_>]) -> R<Varying> {
    let perspective = match persp {
        [] => 0,
        ["perspective", "z"] => isa::perspective::DIV_Z,
        ["perspective", "w"] => isa::perspective::DIV_W,
        ["perspective", "unknown"] => 1,
        _ => return Err(PErr::new(mn.at, "expected load.v, load.perspective.z.v, load.perspective.w.v or load.perspective.unknown.v".into())),
    };
    count(mn, ops, &[2], "DEST and SOURCE")?;
    let (dest, mask) = match ops[0].s.strip_prefix("^discard") {
        Some(rest) => {
            let mut c = Cur::new(Word {
                s: rest,
                at: ops[0].at + 8,
            });
            let m = c.mask()?;
            c.end("the destination")?;
            (isa::reg::DISCARD, m)
        }
        None => vdest(ops[0])?,
    };
    let w = ops[1];
    let inner = |prefix: &str| {
        w.s.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(')'))
            .map(|s| Word {
                s,
                at: w.at + prefix.len(),
            })
    };
    // Width of the mask (index of its highest lane + 1) → alignment, as Mesa derives it from num_components.
    let comps = 8 - (mask & 0xF).leading_zeros();
    let alignment = match comps {
        0 | 1 => alignment::SCALAR,
        2 => alignment::VEC2,
        _ => alignment::VARYING_VEC4,
    };
    let special = VaryingImm {
        alignment,
        index: 0,
        offset_vector: 0xF,
        offset_scalar: 0,
    };
    let source = match w.s {
        "gl_FragCoord" => VaryingSource::FragCoord(special),
        "gl_PointCoord" => VaryingSource::PointCoord(special),
        "gl_FrontFacing" => VaryingSource::FrontFacing(special),
        _ => {
            if let Some(x) = inner("cube(") {
                if x.s.starts_with(|c: char| c.is_ascii_digit()) {
                    VaryingSource::CubeVarying(varying_imm(x)?)
                } else {
                    VaryingSource::CubeRegister(varying_reg(x)?)
                }
            } else if let Some(x) = inner("normalize(") {
                VaryingSource::Normalize(varying_reg(x)?)
            } else if w.s.starts_with(|c: char| c.is_ascii_digit()) {
                VaryingSource::Varying {
                    perspective,
                    imm: varying_imm(w)?,
                }
            } else {
                VaryingSource::Register {
                    perspective,
                    reg: varying_reg(w)?,
                }
            }
        }
    };
    if perspective != 0
        && !matches!(
            source,
            VaryingSource::Varying { .. } | VaryingSource::Register { .. }
        )
    {
        return Err(PErr::new(
            mn.at,
            "a perspective divide applies only to plain varying or register loads".into(),
        ));
    }
    let layout = if source.kind().uses_register_layout() {
        varying_reg::ALL
    } else {
        varying_imm::ALL
    };
    Ok(Varying {
        dest,
        mask,
        source,
        unknown: unknown_defaults(layout),
    })
}

pub(super) fn varying_imm(w: Word<'_>) -> R<VaryingImm> {
    let mut c = Cur::new(w);
    let n = c.uint()?;
    let (alignment, index) = match c.components()? {
        None => (alignment::VARYING_VEC4, n),
        Some(Comps::One(k)) => (alignment::SCALAR, n * 4 + u64::from(k)),
        Some(Comps::Half(h)) => (alignment::VEC2, n * 2 + u64::from(h)),
    };
    if index > 63 {
        return Err(PErr::new(
            w.at,
            format!("varying index {index} does not fit in 6 bits"),
        ));
    }
    let (mut offset_vector, mut offset_scalar) = (0xF, 0);
    if c.eat("+") {
        let r = c.scalar_reg()?;
        if r.0 >> 2 == 0xF {
            return Err(PErr::new(
                w.at,
                "^uniform cannot be an offset (code 15 means no offset)".into(),
            ));
        }
        (offset_vector, offset_scalar) = (r.0 >> 2, r.0 & 3);
    }
    c.end("the varying")?;
    Ok(VaryingImm {
        alignment,
        index: index as u8,
        offset_vector,
        offset_scalar,
    })
}

pub(super) fn varying_reg(w: Word<'_>) -> R<VaryingReg> {
    let (src, n) = match w.s.strip_suffix(".norm") {
        Some(s) => (Word { s, at: w.at }, true),
        None => (w, false),
    };
    Ok(VaryingReg {
        src: vsrc(src, &[])?.0,
        normalize: n,
    })
}

pub(super) fn sampler(mn: Word<'_>, rest: &str, ops: &[Word<'_>]) -> R<Sampler> {
    let mut c = Cur::new(Word {
        s: rest,
        at: mn.at + 5,
    });
    let (lod_bias_en, explicit_lod) = if c.eat(".lod") {
        (true, true)
    } else if c.rest().starts_with(".b")
        && !c.rest()[2..].starts_with(|ch: char| ch.is_ascii_alphanumeric())
    {
        c.eat(".b");
        (true, false)
    } else {
        (false, false)
    };
    let ty = if c.eat(".cube") {
        SamplerType::Cube
    } else if c.eat("_t") {
        match c.uint()? {
            0 => SamplerType::Generic,
            0x1F => SamplerType::Cube,
            n if n < 0x1F => SamplerType::Other(n as u8),
            _ => {
                return Err(PErr::new(
                    mn.at,
                    "sampler type does not fit in 5 bits".into(),
                ))
            }
        }
    } else {
        c.eat(".2d");
        SamplerType::Generic
    };
    c.end("texld[.b|.lod][.cube|_tN]")?;
    count(
        mn,
        ops,
        &[1 + usize::from(lod_bias_en)],
        if lod_bias_en {
            "INDEX and a LOD register"
        } else {
            "INDEX"
        },
    )?;
    let mut c = Cur::new(ops[0]);
    let index = c.uint()?;
    if index > 0xFFF {
        return Err(PErr::new(
            ops[0].at,
            format!("sampler index {index} does not fit in 12 bits"),
        ));
    }
    let offset_en = c.eat("+");
    let index_offset = if offset_en {
        c.scalar_reg()?
    } else {
        ScalarReg(0)
    };
    c.end("the sampler index")?;
    let lod_bias = if lod_bias_en {
        Cur::whole(ops[1], Cur::scalar_reg)?
    } else {
        ScalarReg(0)
    };
    let unknown = unknown_defaults(isa::sampler::ALL);
    Ok(Sampler {
        lod_bias,
        index_offset,
        explicit_lod,
        lod_bias_en,
        ty,
        offset_en,
        index: index as u16,
        unknown,
    })
}

/// `n`, `n.xy|n.zw` or `n.c` (signed) → (alignment, index), optionally `+$r.c`.
pub(super) fn mem_index(w: Word<'_>) -> R<(u8, i16, Option<ScalarReg>, Cur<'_>)> {
    let mut c = Cur::new(w);
    let n = c.int()?;
    let (alignment, index) = match c.components()? {
        None => (alignment::UNIFORM_VEC4, n),
        Some(Comps::Half(h)) => (alignment::VEC2, n * 2 + i64::from(h)),
        Some(Comps::One(k)) => (alignment::SCALAR, n * 4 + i64::from(k)),
    };
    let index = i16::try_from(index)
        .map_err(|_| PErr::new(w.at, format!("index {index} does not fit in 16 bits")))?;
    let off = if c.eat("+") {
        Some(c.scalar_reg()?)
    } else {
        None
    };
    Ok((alignment, index, off, c))
}

pub(super) fn uniform_load(
    mn: Word<'_>,
    parts: &[&str],
    s: &str,
    ops: &[Word<'_>],
) -> R<UniformLoad> {
    let source = match (parts.len(), s) {
        (2, "u") => UniformSource::Uniform,
        (2, "t") => UniformSource::Temporary,
        (2 | 3, "u1" | "u2") if parts.len() == 2 || parts[1].is_empty() => {
            UniformSource::Other(s.as_bytes()[1] - b'0')
        }
        _ => {
            return Err(PErr::new(
                mn.at,
                format!(
                    "expected load.v, load.u, load.t, load.u1 or load.u2, found `{}`",
                    mn.s
                ),
            ))
        }
    };
    count(mn, ops, &[1], "an INDEX")?;
    let (alignment, index, off, c) = mem_index(ops[0])?;
    c.end("the index")?;
    let unknown = unknown_defaults(isa::uniform::ALL);
    Ok(UniformLoad {
        source,
        alignment,
        offset_reg: off.unwrap_or(ScalarReg(0)),
        offset_en: off.is_some(),
        index,
        unknown,
    })
}

pub(super) fn store(mn: Word<'_>, s: &str, ops: &[Word<'_>]) -> R<TempWrite> {
    let dest = match s {
        "t" => TEMP_WRITE_DEST_TEMPORARY as u8,
        "d0" | "d1" | "d2" => s.as_bytes()[1] - b'0',
        _ => {
            return Err(PErr::new(
                mn.at,
                format!("expected store.t, found `{}`", mn.s),
            ))
        }
    };
    count(mn, ops, &[2], "INDEX and SOURCE")?;
    let (align, index, off, c) = mem_index(ops[0])?;
    c.end("the index")?;
    let mut c = Cur::new(ops[1]);
    let reg = c.vec4_reg()?;
    let (alignment, source) = if c.rest().starts_with('.') {
        if align != alignment::SCALAR {
            return Err(PErr::new(
                c.here(),
                "a vec2/vec4 store takes a vec4 register (no component)".into(),
            ));
        }
        (align, ScalarReg(reg.bits() * 4 + c.comp()?))
    } else {
        (
            if align == alignment::SCALAR { 3 } else { align },
            ScalarReg(reg.bits() * 4),
        )
    };
    c.end("the source register")?;
    let unknown = unknown_defaults(isa::temp_write::ALL);
    let (offset_reg, offset_en) = (off.unwrap_or(ScalarReg(0)), off.is_some());
    Ok(TempWrite::Store {
        dest,
        source,
        alignment,
        offset_reg,
        offset_en,
        index,
        unknown,
    })
}

pub(super) fn branch(mn: Word<'_>, rest: &str, ops: &[Word<'_>]) -> R<(Branch, (Target, usize))> {
    let names = ["nv", "lt", "eq", "le", "gt", "ne", "ge"];
    let (cond, args) = match rest.strip_prefix('.') {
        None if rest.is_empty() => (BranchCond::ALWAYS, false),
        Some(n) => match names.iter().position(|x| *x == n) {
            Some(m) => (BranchCond::from_mask(m as u32), true),
            None => {
                return Err(PErr::new(
                    mn.at + 6,
                    format!("expected a condition (nv lt eq le gt ne ge), found `{rest}`"),
                ))
            }
        },
        None => {
            return Err(PErr::new(
                mn.at,
                format!("expected `branch` or `branch.COND`, found `{}`", mn.s),
            ))
        }
    };
    count(
        mn,
        ops,
        &[if args { 3 } else { 1 }],
        if args { "ARG0 ARG1 TARGET" } else { "a TARGET" },
    )?;
    let (arg0, arg1) = if args {
        (
            Cur::whole(ops[0], Cur::scalar_reg)?,
            Cur::whole(ops[1], Cur::scalar_reg)?,
        )
    } else {
        (ScalarReg(0), ScalarReg(0))
    };
    let w = ops[ops.len() - 1];
    let target = if w.s.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        Target::Abs(Cur::whole(w, Cur::int)?)
    } else if label(&format!("{}:", w.s)).is_some() {
        Target::Label(w.s.to_string())
    } else {
        return Err(PErr::new(
            w.at,
            format!("expected a word offset or a label, found `{}`", w.s),
        ));
    };
    let b = Branch::Branch {
        cond,
        arg0,
        arg1,
        target: 0,
        next_count: 0,
        unknown: unknown_defaults(isa::branch::ALL),
    };
    Ok((b, (target, w.at)))
}
