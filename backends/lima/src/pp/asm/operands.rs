//! Operand-level parsing for the assembler: words of a line, a character cursor, registers, sources,
//! destinations, masks, swizzles, numbers.

use half::f16;

use super::super::instr::*;
use super::super::isa::{self, Swizzle};

/// A parse error at a byte offset of a logical line.
#[derive(Debug)]
pub(super) struct PErr {
    pub(super) at: usize,
    pub(super) msg: String,
}

impl PErr {
    pub(super) fn new(at: usize, msg: String) -> PErr {
        PErr { at, msg }
    }
}

pub(super) type R<T> = Result<T, PErr>;

/// A word of the line with its byte offset.
#[derive(Debug, Clone, Copy)]
pub(super) struct Word<'a> {
    pub(super) s: &'a str,
    pub(super) at: usize,
}

/// Splits `s` (starting at byte `base` of the line) into whitespace-separated words.
pub(super) fn words(s: &str, base: usize) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                out.push(Word {
                    s: &s[b..i],
                    at: base + b,
                });
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// Expects exactly `n` operands.
pub(super) fn count<'a>(mn: Word<'_>, ops: &[Word<'a>], n: &[usize], what: &str) -> R<()> {
    if n.contains(&ops.len()) {
        return Ok(());
    }
    let at = match ops.get(n.iter().copied().max().unwrap_or(0)) {
        Some(extra) => extra.at,
        None => ops.last().map_or(mn.at + mn.s.len(), |w| w.at + w.s.len()),
    };
    Err(PErr::new(
        at,
        format!("`{}` takes {what}, found {} operand(s)", mn.s, ops.len()),
    ))
}

pub(super) fn float(w: Word<'_>) -> R<f16> {
    let v = match w.s {
        "nan" => return Ok(f16::NAN),
        "-nan" => return Ok(-f16::NAN),
        "inf" => return Ok(f16::INFINITY),
        "-inf" => return Ok(f16::NEG_INFINITY),
        s if s.starts_with("0x") => {
            return u16::from_str_radix(&s[2..], 16)
                .map(f16::from_bits)
                .map_err(|_| {
                    PErr::new(
                        w.at,
                        format!("expected 4 hex digits of fp16 bits, found `{s}`"),
                    )
                });
        }
        s if s
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)) =>
        {
            s.parse::<f64>().ok()
        }
        _ => None,
    };
    let v = v.ok_or_else(|| {
        PErr::new(
            w.at,
            format!("expected a number (or nan, inf), found `{}`", w.s),
        )
    })?;
    let h = f16::from_f64(v);
    if h.is_infinite() {
        return Err(PErr::new(w.at, format!("{} is out of fp16 range", w.s)));
    }
    Ok(h)
}

pub(super) fn vdest(w: Word<'_>) -> R<(u8, u8)> {
    let mut c = Cur::new(w);
    let d = c.dest_num()?;
    let m = c.mask()?;
    c.end("the destination")?;
    Ok((d, m))
}

pub(super) fn sdest(w: Word<'_>) -> R<ScalarReg> {
    let mut c = Cur::new(w);
    let r = if c.rest().starts_with('$') {
        let n = c.dest_num()?;
        ScalarReg(n * 4 + c.comp()?)
    } else {
        c.scalar_reg()?
    };
    c.end("the destination")?;
    Ok(r)
}

/// `[-][abs(]REG[.swz][)]`, or a special name (then reg = code 0); returns whether the special was used.
pub(super) fn vsrc(w: Word<'_>, special: &[&str]) -> R<(Vec4Src, bool)> {
    let mut c = Cur::new(w);
    let neg = c.eat("-");
    let abs = c.eat("abs(");
    let sp = special.iter().any(|s| c.eat(s));
    let reg = if sp { Vec4Reg::Gpr(0) } else { c.vec4_reg()? };
    let swizzle = c.swizzle()?;
    if abs && !c.eat(")") {
        return Err(c.expected("`)` closing abs("));
    }
    c.end("the operand")?;
    Ok((
        Vec4Src {
            reg,
            swizzle,
            abs,
            neg,
        },
        sp,
    ))
}

pub(super) fn ssrc(w: Word<'_>, special: &[&str]) -> R<(ScalarSrc, bool)> {
    let mut c = Cur::new(w);
    let neg = c.eat("-");
    let abs = c.eat("abs(");
    let sp = special.iter().any(|s| c.eat(s));
    let reg = if sp { ScalarReg(0) } else { c.scalar_reg()? };
    if abs && !c.eat(")") {
        return Err(c.expected("`)` closing abs("));
    }
    c.end("the operand")?;
    Ok((ScalarSrc { reg, abs, neg }, sp))
}

/// Component suffix of an index: `.c` or `.xy`/`.zw`.
pub(super) enum Comps {
    One(u8),
    Half(u8),
}

/// A character cursor inside one word.
pub(super) struct Cur<'a> {
    pub(super) s: &'a str,
    pub(super) pos: usize,
    pub(super) at: usize,
}

impl<'a> Cur<'a> {
    pub(super) fn new(w: Word<'a>) -> Self {
        Cur {
            s: w.s,
            pos: 0,
            at: w.at,
        }
    }
    /// Parses the whole word with `f`.
    pub(super) fn whole<T>(w: Word<'a>, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let mut c = Cur::new(w);
        let v = f(&mut c)?;
        c.end("the operand")?;
        Ok(v)
    }
    pub(super) fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or("")
    }
    pub(super) fn here(&self) -> usize {
        self.at + self.pos
    }
    pub(super) fn eat(&mut self, p: &str) -> bool {
        let ok = self.rest().starts_with(p);
        if ok {
            self.pos += p.len();
        }
        ok
    }
    pub(super) fn expected(&self, what: &str) -> PErr {
        let rest = self.rest();
        let found = if rest.is_empty() {
            "the end of the operand".to_string()
        } else {
            format!("`{}`", rest.chars().take(24).collect::<String>())
        };
        PErr::new(self.here(), format!("expected {what}, found {found}"))
    }
    pub(super) fn end(&self, what: &str) -> R<()> {
        if self.rest().is_empty() {
            return Ok(());
        }
        Err(self.expected(&format!("nothing more after {what}")))
    }
    pub(super) fn uint(&mut self) -> R<u64> {
        let digits = self.rest().bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 9 {
            return Err(self.expected(if digits == 0 {
                "a number"
            } else {
                "a number below 10^9"
            }));
        }
        let v = self.rest()[..digits].parse().unwrap_or(0);
        self.pos += digits;
        Ok(v)
    }
    pub(super) fn int(&mut self) -> R<i64> {
        let neg = self.eat("-");
        let v = self.uint()? as i64;
        Ok(if neg { -v } else { v })
    }
    pub(super) fn vec4_reg(&mut self) -> R<Vec4Reg> {
        let start = self.here();
        if self.eat("$") {
            let n = self.uint()?;
            return match u8::try_from(n) {
                Ok(n) if n < isa::reg::GPR_ENCODABLE => Ok(Vec4Reg::Gpr(n)),
                _ => Err(PErr::new(
                    start, format!("general registers are $0..$11 (12-15 are ^const0 ^const1 ^texture ^uniform), found ${n}"))),
            };
        }
        for (name, r) in [
            ("^const0", Vec4Reg::Const0),
            ("^const1", Vec4Reg::Const1),
            ("^texture", Vec4Reg::Texture),
            ("^uniform", Vec4Reg::Uniform),
        ] {
            if self.eat(name) {
                return Ok(r);
            }
        }
        Err(self.expected("a register ($0..$11, ^const0, ^const1, ^texture, ^uniform)"))
    }
    /// `$n` with n ≤ 15 (a destination register code).
    pub(super) fn dest_num(&mut self) -> R<u8> {
        if !self.eat("$") {
            return Err(self.expected("a destination register $0..$15"));
        }
        match self.uint()? {
            n @ 0..=15 => Ok(n as u8),
            n => Err(PErr::new(
                self.here(),
                format!("destination register codes are $0..$15, found ${n}"),
            )),
        }
    }
    pub(super) fn comp(&mut self) -> R<u8> {
        for (k, name) in [".x", ".y", ".z", ".w"].iter().enumerate() {
            if self.eat(name) {
                return Ok(k as u8);
            }
        }
        Err(self.expected("a component (.x .y .z .w)"))
    }
    pub(super) fn scalar_reg(&mut self) -> R<ScalarReg> {
        let r = self.vec4_reg()?;
        Ok(ScalarReg(r.bits() * 4 + self.comp()?))
    }
    pub(super) fn letters(&self) -> &'a str {
        let r = self.rest().strip_prefix('.').unwrap_or("");
        &r[..r.bytes().take_while(|b| b"xyzw".contains(b)).count()]
    }
    pub(super) fn swizzle(&mut self) -> R<Swizzle> {
        let l = self.letters();
        if l.is_empty() {
            return Ok(Swizzle::IDENTITY);
        }
        if l.len() != 4 {
            return Err(self.expected("a four-letter swizzle"));
        }
        self.pos += 5;
        Ok(Swizzle::new(std::array::from_fn(|i| {
            "xyzw".find(l.as_bytes()[i] as char).unwrap_or(0) as u8
        })))
    }
    pub(super) fn mask(&mut self) -> R<u8> {
        if !self.rest().starts_with('.') {
            return Ok(0xF);
        }
        let l = self.letters();
        let mut m = 0u8;
        for b in l.bytes() {
            let bit = 1 << "xyzw".find(b as char).unwrap_or(0);
            if m >= bit {
                return Err(self.expected("a write mask in xyzw order"));
            }
            m |= bit;
        }
        self.pos += 1 + l.len();
        Ok(m)
    }
    pub(super) fn components(&mut self) -> R<Option<Comps>> {
        let l = self.letters();
        let c = match l {
            "" if self.rest().starts_with('.') => {
                return Err(self.expected("a component (.x .y .z .w .xy .zw)"))
            }
            "" => return Ok(None),
            "x" | "y" | "z" | "w" => Comps::One("xyzw".find(l).unwrap_or(0) as u8),
            "xy" => Comps::Half(0),
            "zw" => Comps::Half(1),
            _ => return Err(self.expected("a component (.x .y .z .w .xy .zw)")),
        };
        self.pos += 1 + l.len();
        Ok(Some(c))
    }
}
