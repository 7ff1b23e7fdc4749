//! Spelling of literal values, shared by the printer and the parser so that the two are exact
//! inverses.
//!
//! Rules (docs/ir-text.md):
//! - `0x…` is always the raw 64-bit literal, in every context.
//! - Integers print as decimal: unsigned as `u64`, signed as `i64` (so `-1`); a leading `-` in
//!   the text is the two's complement of the 64-bit value.
//! - Floats print as the shortest decimal that parses back to the same bits (`1.0`, `-0.0`,
//!   `1e-45`), `inf`/`-inf`, `nan` (the canonical quiet NaN) or `nan:0x7fc00001` (any other NaN,
//!   the raw bits of the float's width). Bits that do not fit the float's width print as `0x…`.
//! - Strings print quoted with `\\`, `\"`, `\n`, `\r`, `\t` and `\xHH` escapes.

use crate::enums::{
    AtomicOp, BuiltIn, Construct, DerivativeMode, LitEnum, LitFlags, PrimitiveType, ResourceKind,
    Scope, ShaderStage, TessPartitioning, TessWindingOrder,
};
use crate::types::ScalarType;
use half::f16;
use std::fmt::Write;

const F16_NAN: u64 = 0x7e00;
const F32_NAN: u64 = 0x7fc0_0000;
const F64_NAN: u64 = 0x7ff8_0000_0000_0000;

/// How a float literal of a given scalar type is stored.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FloatWidth {
    F16,
    F32,
    F64,
}

fn float_width(t: ScalarType) -> Option<FloatWidth> {
    match t {
        ScalarType::F16 => Some(FloatWidth::F16),
        ScalarType::F32 | ScalarType::MinF16 | ScalarType::MinF10 => Some(FloatWidth::F32),
        ScalarType::F64 => Some(FloatWidth::F64),
        _ => None,
    }
}

// ----- printing --------------------------------------------------------------------------------

/// Writes a raw literal as `0x…`.
pub(super) fn write_hex(out: &mut String, v: u64) {
    let _ = write!(out, "{v:#x}");
}

/// Writes a literal holding a scalar of type `t` (`None`: no scalar type, printed as `u64`).
pub(super) fn write_typed(out: &mut String, t: Option<ScalarType>, v: u64) {
    let Some(t) = t else {
        let _ = write!(out, "{v}");
        return;
    };
    if let Some(w) = float_width(t) {
        write_float(out, w, v);
        return;
    }
    let _ = match t {
        ScalarType::Bool if v <= 1 => write!(out, "{}", v == 1),
        ScalarType::Unknown if v > 0xffff => write!(out, "{v:#x}"),
        t if t.is_signed_int() => write!(out, "{}", v as i64),
        _ => write!(out, "{v}"),
    };
}

fn write_float(out: &mut String, w: FloatWidth, v: u64) {
    match w {
        FloatWidth::F16 if v <= 0xffff => {
            let h = f16::from_bits(v as u16);
            if h.is_nan() {
                write_nan(out, v, F16_NAN);
            } else if h.is_infinite() {
                out.push_str(if h.is_sign_negative() { "-inf" } else { "inf" });
            } else {
                write_f16(out, v as u16);
            }
        }
        FloatWidth::F32 if v <= 0xffff_ffff => {
            let f = f32::from_bits(v as u32);
            if f.is_nan() {
                write_nan(out, v, F32_NAN);
            } else {
                let _ = write!(out, "{f:?}");
            }
        }
        FloatWidth::F64 => {
            let f = f64::from_bits(v);
            if f.is_nan() {
                write_nan(out, v, F64_NAN);
            } else {
                let _ = write!(out, "{f:?}");
            }
        }
        _ => write_hex(out, v),
    }
}

fn write_nan(out: &mut String, v: u64, canonical: u64) {
    if v == canonical {
        out.push_str("nan");
    } else {
        let _ = write!(out, "nan:{v:#x}");
    }
}

/// The shortest decimal that parses back (through [`parse_typed`]) to the same f16 bits.
fn write_f16(out: &mut String, bits: u16) {
    let x = f16::from_bits(bits).to_f64();
    for p in 0..6 {
        let s = format!("{x:.p$e}");
        if let Ok(y) = s.parse::<f64>() {
            if f16::from_f64(y).to_bits() == bits {
                let _ = write!(out, "{y:?}");
                return;
            }
        }
    }
    // Every f16 is exact in f64, and f64's Debug spelling round-trips.
    let _ = write!(out, "{x:?}");
}

/// Writes the name of an enum value; false if the value has no name.
pub(super) fn write_enum(out: &mut String, e: LitEnum, v: u64) -> bool {
    let name = match e {
        LitEnum::Construct => Construct::from_u64(v).map(Construct::name),
        LitEnum::ResourceKind => ResourceKind::from_u64(v).map(ResourceKind::name),
        LitEnum::PrimitiveType => {
            return match PrimitiveType::from_u64(v) {
                Some(PrimitiveType::Patch(n)) => write!(out, "Patch{n}").is_ok(),
                Some(p) => {
                    out.push_str(&p.name());
                    true
                }
                None => false,
            };
        }
        LitEnum::TessWindingOrder => TessWindingOrder::from_u64(v).map(TessWindingOrder::name),
        LitEnum::TessPartitioning => TessPartitioning::from_u64(v).map(TessPartitioning::name),
        LitEnum::AtomicOp => AtomicOp::from_u64(v).map(AtomicOp::name),
        LitEnum::Scope => Scope::from_u64(v).map(Scope::name),
        LitEnum::DerivativeMode => DerivativeMode::from_u64(v).map(DerivativeMode::name),
        LitEnum::BuiltIn => BuiltIn::from_u64(v).map(BuiltIn::name),
        LitEnum::ShaderStage => ShaderStage::NAMES
            .iter()
            .find(|(b, _)| *b as u64 == v)
            .map(|(_, n)| *n),
    };
    match name {
        Some(n) => {
            out.push_str(n);
            true
        }
        None => false,
    }
}

/// Writes a flag set as `A|B` (`None` for 0); false if undefined bits are set.
pub(super) fn write_flags(out: &mut String, f: LitFlags, v: u64) -> bool {
    if !f.is_valid(v) {
        return false;
    }
    if v == 0 {
        out.push_str("None");
        return true;
    }
    let mut first = true;
    for &(bit, name) in f.names() {
        if v & bit as u64 != 0 {
            if !first {
                out.push('|');
            }
            out.push_str(name);
            first = false;
        }
    }
    true
}

/// Writes `bytes` as a quoted string literal. Valid UTF-8 keeps its printable characters;
/// control characters and the bytes of invalid UTF-8 are escaped.
pub(super) fn write_string(out: &mut String, bytes: &[u8]) {
    out.push('"');
    match std::str::from_utf8(bytes) {
        Ok(s) => {
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if c.is_control() => {
                        let mut buf = [0u8; 4];
                        for b in c.encode_utf8(&mut buf).bytes() {
                            let _ = write!(out, "\\x{b:02x}");
                        }
                    }
                    c => out.push(c),
                }
            }
        }
        Err(_) => {
            for &b in bytes {
                match b {
                    b'"' => out.push_str("\\\""),
                    b'\\' => out.push_str("\\\\"),
                    b'\n' => out.push_str("\\n"),
                    b'\r' => out.push_str("\\r"),
                    b'\t' => out.push_str("\\t"),
                    0x20..=0x7e => out.push(b as char),
                    _ => {
                        let _ = write!(out, "\\x{b:02x}");
                    }
                }
            }
        }
    }
    out.push('"');
}

// ----- parsing ---------------------------------------------------------------------------------

/// Parses an integer: decimal `u64`, negative decimal `i64` (two's complement), or `0x` hex.
pub(super) fn parse_int(t: &str) -> Option<u64> {
    let digits = |s: &str, hex: bool| {
        !s.is_empty()
            && s.bytes().all(|b| {
                if hex {
                    b.is_ascii_hexdigit()
                } else {
                    b.is_ascii_digit()
                }
            })
    };
    if let Some(h) = t.strip_prefix("0x") {
        return if digits(h, true) {
            u64::from_str_radix(h, 16).ok()
        } else {
            None
        };
    }
    if let Some(d) = t.strip_prefix('-') {
        return if digits(d, false) {
            t.parse::<i64>().ok().map(|v| v as u64)
        } else {
            None
        };
    }
    if digits(t, false) {
        t.parse::<u64>().ok()
    } else {
        None
    }
}

/// Parses a literal holding a scalar of type `t` (see [`write_typed`]).
pub(super) fn parse_typed(t: Option<ScalarType>, tok: &str) -> Result<u64, String> {
    if let Some(w) = t.and_then(float_width) {
        return parse_float(w, tok);
    }
    if t == Some(ScalarType::Bool) {
        match tok {
            "true" => return Ok(1),
            "false" => return Ok(0),
            _ => {}
        }
    }
    parse_int(tok).ok_or_else(|| {
        let what = match t {
            Some(ScalarType::Bool) => "`true`, `false` or an integer".to_string(),
            Some(t) => format!("an integer (a `{t}` value)"),
            None => "an integer".to_string(),
        };
        format!("expected {what}, found `{tok}`")
    })
}

fn parse_float(w: FloatWidth, tok: &str) -> Result<u64, String> {
    let (name, canonical, bits) = match w {
        FloatWidth::F16 => ("f16", F16_NAN, 16),
        FloatWidth::F32 => ("f32", F32_NAN, 32),
        FloatWidth::F64 => ("f64", F64_NAN, 64),
    };
    let bad = || {
        format!("expected a float (`1.5`, `-0.0`, `inf`, `nan`, `nan:0x…` or raw `0x…` bits), found `{tok}`")
    };
    if tok.starts_with("0x") {
        return parse_int(tok).ok_or_else(bad);
    }
    if tok == "nan" {
        return Ok(canonical);
    }
    if let Some(p) = tok.strip_prefix("nan:") {
        let v = p
            .strip_prefix("0x")
            .and_then(|_| parse_int(p))
            .ok_or_else(bad)?;
        let is_nan = match w {
            FloatWidth::F16 => v <= 0xffff && f16::from_bits(v as u16).is_nan(),
            FloatWidth::F32 => v <= 0xffff_ffff && f32::from_bits(v as u32).is_nan(),
            FloatWidth::F64 => f64::from_bits(v).is_nan(),
        };
        return if is_nan {
            Ok(v)
        } else {
            Err(format!(
                "`{tok}` is not the bit pattern of a {bits}-bit {name} NaN"
            ))
        };
    }
    // Only decimal spellings from here on (Rust's parser would also take `NaN`, `infinity`).
    let ok = tok
        .bytes()
        .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
        || matches!(tok, "inf" | "-inf" | "+inf");
    if !ok {
        return Err(bad());
    }
    match w {
        FloatWidth::F16 => tok
            .parse::<f64>()
            .map(|x| f16::from_f64(x).to_bits() as u64),
        FloatWidth::F32 => tok.parse::<f32>().map(|x| x.to_bits() as u64),
        FloatWidth::F64 => tok.parse::<f64>().map(f64::to_bits),
    }
    .map_err(|_| bad())
}

/// Parses an enum value: its name or a number.
pub(super) fn parse_enum(e: LitEnum, tok: &str) -> Result<u64, String> {
    e.value_of(tok)
        .or_else(|| parse_int(tok))
        .ok_or_else(|| format!("expected a {e:?} name or a number, found `{tok}`"))
}

/// Parses a flag set: `A|B`, `None` or a number.
pub(super) fn parse_flags(f: LitFlags, tok: &str) -> Result<u64, String> {
    f.parse(tok)
        .or_else(|| parse_int(tok))
        .ok_or_else(|| format!("expected {f:?} flags (`A|B` or `None`) or a number, found `{tok}`"))
}
