//! [`Program`] → text in AGALMiniAssembler syntax (§8), which [`crate::asm`] reads back to the
//! same bytes.
//!
//! # Syntax printed
//!
//! ```text
//! .agal fragment 2
//! tex ft0, v0, fs0 <2d,linear,repeat,mipnone>
//! mul oc, ft0, v1
//! ```
//!
//! * The first line `.agal KIND VERSION` carries the header (the mini-assembler takes these
//!   as arguments instead); then one token per line: `op dest, src1, src2`, with only the
//!   operands the opcode has (`kil ft0.x`, `ife ft0.x, fc0.x`, `els`, `eif`).
//! * Registers are named per stage (`va vc vt op v` / `fc ft oc v fs`, plus `fd`, `iid`); the
//!   single-register outputs print without a number when it is 0 (`op`, `oc`, `fd`, `iid`).
//! * Write masks print when not `.xyzw`. Swizzles print when not identity, in the shortest
//!   form the assembler's repeat-the-last-lane padding expands back (`xyzz` → `.xyz`,
//!   `xxxx` → `.x`).
//! * Indirect sources: `vc[va0.x+5]` (`+0` omitted), then the swizzle.
//! * Samplers: `fs0 <dimension,filter,wrap,mipmap[,bias][,format][,flags…]>`; the bias (in
//!   eighths in the field) prints as a decimal (`-1.5`), the format when not `rgba`, flags by
//!   name and an unknown flag bit as `special8`.
//! * A zero write mask (invalid, #3653) prints as `.-`, so that every decodable program prints
//!   and reads back.

use std::fmt::Write;

use crate::decode::{decode_program, DecodeError};
use crate::instr::{Dest, Instruction, Program, Sampler, Source, Src2};
use crate::isa::{special, swizzle, RegType, ShaderKind, TexFormat, LANES};

/// Decodes and disassembles program bytes.
pub fn disassemble(bytes: &[u8]) -> Result<String, DecodeError> {
    Ok(disassemble_program(&decode_program(bytes)?))
}

/// The text of a whole program, header line first.
pub fn disassemble_program(p: &Program) -> String {
    let mut out = format!(".agal {} {}\n", p.kind.name(), p.version);
    for i in &p.instructions {
        out.push_str(&instruction_text(i, p.kind));
        out.push('\n');
    }
    out
}

/// The text of one token.
pub fn instruction_text(i: &Instruction, kind: ShaderKind) -> String {
    let mut ops: Vec<String> = Vec::new();
    if i.op.has_dest() {
        ops.push(dest_text(&i.dest, kind));
    }
    if i.op.num_srcs() >= 1 {
        ops.push(source_text(&i.src1, kind));
    }
    if i.op.num_srcs() >= 2 {
        ops.push(match &i.src2 {
            Src2::Source(s) => source_text(s, kind),
            Src2::Sampler(s) => sampler_text(s, kind),
        });
    }
    if ops.is_empty() {
        i.op.mnemonic().to_string()
    } else {
        format!("{} {}", i.op.mnemonic(), ops.join(", "))
    }
}

/// `ft0`, `oc`, `v3`.
pub fn reg_text(ty: RegType, reg: u16, kind: ShaderKind) -> String {
    let single = matches!(
        ty,
        RegType::Output | RegType::DepthOutput | RegType::InstanceId
    );
    if single && reg == 0 {
        ty.name(kind).to_string()
    } else {
        format!("{}{reg}", ty.name(kind))
    }
}

/// Mask suffix: `""` for xyzw, `.xz`, `.-` for none.
pub fn mask_text(mask: u8) -> String {
    match mask & 0xF {
        0xF => String::new(),
        0 => ".-".to_string(),
        m => {
            let mut s = String::from(".");
            for (i, c) in LANES.iter().enumerate() {
                if m & (1 << i) != 0 {
                    s.push(*c);
                }
            }
            s
        }
    }
}

/// Swizzle suffix: `""` for identity, else the shortest repeat-last form.
pub fn swizzle_text(s: u8) -> String {
    if s == swizzle::IDENTITY {
        return String::new();
    }
    let lanes: Vec<usize> = (0..4).map(|i| swizzle::lane(s, i)).collect();
    let mut n = 4;
    while n > 1 && lanes[n - 1] == lanes[n - 2] {
        n -= 1;
    }
    let mut out = String::from(".");
    for &l in &lanes[..n] {
        out.push(LANES[l]);
    }
    out
}

fn dest_text(d: &Dest, kind: ShaderKind) -> String {
    format!("{}{}", reg_text(d.ty, d.reg, kind), mask_text(d.mask))
}

fn source_text(s: &Source, kind: ShaderKind) -> String {
    let base = match s.indirect {
        None => reg_text(s.ty, s.reg, kind),
        Some(ind) => {
            let mut t = format!(
                "{}[{}.{}",
                s.ty.name(kind),
                reg_text(ind.index_type, s.reg, kind),
                LANES[usize::from(ind.select & 3)]
            );
            if ind.offset != 0 {
                let _ = write!(t, "+{}", ind.offset);
            }
            t.push(']');
            t
        }
    };
    format!("{base}{}", swizzle_text(s.swizzle))
}

/// `fs0 <2d,linear,repeat,mipnone>`.
pub fn sampler_text(s: &Sampler, kind: ShaderKind) -> String {
    let mut opts = vec![
        s.dimension.name().to_string(),
        s.filter.name().to_string(),
        s.wrap.name().to_string(),
        s.mipmap.name().to_string(),
    ];
    if s.lod_bias != 0 {
        opts.push(format!("{}", f64::from(s.lod_bias) / 8.0));
    }
    if s.format != TexFormat::Rgba {
        opts.push(s.format.name().to_string());
    }
    for (bit, name) in special::NAMES {
        if s.special & bit != 0 {
            opts.push(name.to_string());
        }
    }
    let unknown = s.special & !special::KNOWN;
    if unknown != 0 {
        opts.push(format!("special{unknown}"));
    }
    format!(
        "{} <{}>",
        reg_text(RegType::Sampler, s.reg, kind),
        opts.join(",")
    )
}
