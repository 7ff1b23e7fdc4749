//! The SHBIN container (§13): one DVLB header, one DVLP (code blob + operand descriptor table
//! shared by every shader of the file) and one DVLE per shader (entry point, constant table,
//! output table, uniform table, symbol table).
//!
//! [`write`] lays the file out exactly as picasso does (`picasso_frontend.cpp`): DVLP right after
//! the DVLB header with the code at DVLP+0x28 and the descriptors after it (8-byte entries, high
//! word 0), DVLP word 6 = end of the descriptor table, DVLE version 0x1002, per DVLE the tables in
//! the order constants, labels (always empty), outputs, uniforms (sorted by register), symbols,
//! each DVLE padded to 4 bytes. libctru reads what §13.2 lists; the rest holds picasso's values.
//!
//! [`read`] accepts any bytes without panicking; counts are checked against the file size before
//! anything is allocated, and errors carry the byte offset.

use thiserror::Error;

/// Shader type byte of a DVLE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShaderType {
    Vertex = 0,
    Geometry = 1,
}

/// A constant-table entry (DEF constant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstValue {
    /// b register.
    Bool(bool),
    /// i register: x, y, z, w bytes.
    Int([u8; 4]),
    /// c register: four float24 values (low 24 bits).
    Float([u32; 4]),
}

/// One constant: register index within its own file (c 0–95 / i 0–3 / b 0–15) and value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constant {
    pub reg: u16,
    pub value: ConstValue,
}

/// Output semantics of the output table (§13.1).
pub mod semantic {
    pub const POSITION: u16 = 0;
    pub const NORMALQUAT: u16 = 1;
    pub const COLOR: u16 = 2;
    pub const TEXCOORD0: u16 = 3;
    pub const TEXCOORD0W: u16 = 4;
    pub const TEXCOORD1: u16 = 5;
    pub const TEXCOORD2: u16 = 6;
    pub const VIEW: u16 = 8;
    pub const DUMMY: u16 = 9;
    /// picasso's `.out` spellings, by semantic.
    pub const NAMES: &[(&str, u16)] = &[
        ("position", POSITION),
        ("pos", POSITION),
        ("normalquat", NORMALQUAT),
        ("nquat", NORMALQUAT),
        ("color", COLOR),
        ("clr", COLOR),
        ("texcoord0", TEXCOORD0),
        ("tcoord0", TEXCOORD0),
        ("texcoord0w", TEXCOORD0W),
        ("tcoord0w", TEXCOORD0W),
        ("texcoord1", TEXCOORD1),
        ("tcoord1", TEXCOORD1),
        ("texcoord2", TEXCOORD2),
        ("tcoord2", TEXCOORD2),
        ("view", VIEW),
        ("dummy", DUMMY),
    ];
    /// The first spelling of a semantic.
    pub fn name(sem: u16) -> Option<&'static str> {
        NAMES.iter().find(|(_, s)| *s == sem).map(|(n, _)| *n)
    }
}

/// An output-table entry. `mask`: bit 0 = x … bit 3 = w (the opposite of the descriptor order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputEntry {
    pub semantic: u16,
    pub reg: u16,
    pub mask: u16,
}

/// A uniform-table entry; registers in the unified space (v 0x00–0x0F, c 0x10–0x6F, i 0x70–0x73,
/// b 0x78–0x87).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniformEntry {
    pub name: String,
    pub first: u16,
    pub last: u16,
}

/// One shader (DVLE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dvle {
    pub kind: ShaderType,
    /// Merge VS/GS output maps (GS with `dummy` outputs).
    pub merge_outmaps: bool,
    /// Entry point and end (exclusive), in words of the shared code.
    pub main: u32,
    pub endmain: u32,
    pub input_mask: u16,
    pub output_mask: u16,
    /// GS mode: 0 point, 1 variable, 2 fixed.
    pub gs_mode: u8,
    pub gs_fixed_start: u8,
    pub gs_variable_num: u8,
    pub gs_fixed_num: u8,
    pub constants: Vec<Constant>,
    pub outputs: Vec<OutputEntry>,
    pub uniforms: Vec<UniformEntry>,
}

impl Dvle {
    /// An empty vertex-shader DVLE.
    pub fn new(kind: ShaderType) -> Dvle {
        Dvle {
            kind,
            merge_outmaps: false,
            main: 0,
            endmain: 0,
            input_mask: 0,
            output_mask: 0,
            gs_mode: 0,
            gs_fixed_start: 0,
            gs_variable_num: 0,
            gs_fixed_num: 0,
            constants: Vec::new(),
            outputs: Vec::new(),
            uniforms: Vec::new(),
        }
    }
}

/// A whole SHBIN file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Shbin {
    pub code: Vec<u32>,
    /// Operand descriptors (the low word of each 8-byte entry).
    pub opdescs: Vec<u32>,
    pub dvles: Vec<Dvle>,
}

/// Why bytes are not a SHBIN file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("SHBIN byte {offset:#x}: {what}")]
pub struct ShbinError {
    pub offset: usize,
    pub what: String,
}

fn w32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn w16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Serializes `shbin` as picasso lays it out.
pub fn write(shbin: &Shbin) -> Vec<u8> {
    let n = shbin.dvles.len() as u32;
    let dvlp = 8 + 4 * n;
    let code_off = 0x28u32;
    let desc_off = code_off + 4 * shbin.code.len() as u32;
    let dvlp_end = desc_off + 8 * shbin.opdescs.len() as u32;
    let mut dvle_bytes: Vec<Vec<u8>> = Vec::new();
    for d in &shbin.dvles {
        dvle_bytes.push(write_dvle(d));
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"DVLB");
    w32(&mut out, n);
    let mut off = dvlp + dvlp_end;
    for b in &dvle_bytes {
        w32(&mut out, off);
        off += b.len() as u32;
    }
    out.extend_from_slice(b"DVLP");
    for v in [
        0,
        code_off,
        shbin.code.len() as u32,
        desc_off,
        shbin.opdescs.len() as u32,
        dvlp_end,
        0,
        0,
        0,
    ] {
        w32(&mut out, v);
    }
    for &w in &shbin.code {
        w32(&mut out, w);
    }
    for &d in &shbin.opdescs {
        w32(&mut out, d);
        w32(&mut out, 0);
    }
    for b in dvle_bytes {
        out.extend_from_slice(&b);
    }
    out
}

fn write_dvle(d: &Dvle) -> Vec<u8> {
    let mut uniforms: Vec<&UniformEntry> = d.uniforms.iter().collect();
    uniforms.sort_by_key(|u| u.first);
    let mut symbols = Vec::new();
    let mut name_offs = Vec::new();
    for u in &uniforms {
        name_offs.push(symbols.len() as u32);
        symbols.extend(u.name.bytes().map(|b| if b == b'$' { b'.' } else { b }));
        symbols.push(0);
    }
    let const_off = 0x40u32;
    let label_off = const_off + 20 * d.constants.len() as u32;
    let out_off = label_off;
    let unif_off = out_off + 8 * d.outputs.len() as u32;
    let sym_off = unif_off + 8 * uniforms.len() as u32;
    let mut out = Vec::new();
    out.extend_from_slice(b"DVLE");
    w16(&mut out, 0x1002);
    out.push(d.kind as u8);
    out.push(d.merge_outmaps as u8);
    for v in [d.main, d.endmain] {
        w32(&mut out, v);
    }
    w16(&mut out, d.input_mask);
    w16(&mut out, d.output_mask);
    out.extend_from_slice(&[
        d.gs_mode,
        d.gs_fixed_start,
        d.gs_variable_num,
        d.gs_fixed_num,
    ]);
    for v in [
        const_off,
        d.constants.len() as u32,
        label_off,
        0,
        out_off,
        d.outputs.len() as u32,
        unif_off,
        uniforms.len() as u32,
        sym_off,
        symbols.len() as u32,
    ] {
        w32(&mut out, v);
    }
    for c in &d.constants {
        let (ty, vals): (u16, [u32; 4]) = match c.value {
            ConstValue::Bool(b) => (0, [b as u32, 0, 0, 0]),
            ConstValue::Int(v) => (1, [u32::from_le_bytes(v), 0, 0, 0]),
            ConstValue::Float(v) => (2, v.map(|x| x & 0xFF_FFFF)),
        };
        w16(&mut out, ty);
        w16(&mut out, c.reg);
        for v in vals {
            w32(&mut out, v);
        }
    }
    for o in &d.outputs {
        for v in [o.semantic, o.reg, o.mask, 0] {
            w16(&mut out, v);
        }
    }
    for (u, off) in uniforms.iter().zip(name_offs) {
        w32(&mut out, off);
        w16(&mut out, u.first);
        w16(&mut out, u.last);
    }
    out.extend_from_slice(&symbols);
    while out.len() % 4 != 0 {
        out.push(0);
    }
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    /// Bytes of tables (and uniform names) still allowed to be parsed. Tables may overlap
    /// (DVLEs can share offsets), so without this budget a small file could make the reader
    /// parse the same entries again and again; with it, what is parsed is at most the file's
    /// size (picasso's files never share a table, so they always fit).
    budget: std::cell::Cell<usize>,
}

impl Reader<'_> {
    /// Takes `n` bytes from the budget.
    fn spend(&self, at: usize, n: usize) -> Result<(), ShbinError> {
        match self.budget.get().checked_sub(n) {
            Some(left) => {
                self.budget.set(left);
                Ok(())
            }
            None => Err(self.err(
                at,
                format!(
                    "the DVLE tables hold more than the file's {} bytes (tables overlap)",
                    self.bytes.len()
                ),
            )),
        }
    }
    fn err(&self, offset: usize, what: impl Into<String>) -> ShbinError {
        ShbinError {
            offset,
            what: what.into(),
        }
    }
    fn u32(&self, at: usize) -> Result<u32, ShbinError> {
        self.bytes
            .get(at..at.wrapping_add(4))
            .filter(|_| at.checked_add(4).is_some())
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| self.err(at, "truncated (u32 past the end)"))
    }
    fn u16(&self, at: usize) -> Result<u16, ShbinError> {
        self.bytes
            .get(at..at.wrapping_add(2))
            .filter(|_| at.checked_add(2).is_some())
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .ok_or_else(|| self.err(at, "truncated (u16 past the end)"))
    }
    fn u8(&self, at: usize) -> Result<u8, ShbinError> {
        self.bytes
            .get(at)
            .copied()
            .ok_or_else(|| self.err(at, "truncated"))
    }
    /// `count` entries of `size` bytes at `at` must lie inside the file.
    fn table(&self, at: usize, count: u32, size: usize) -> Result<(), ShbinError> {
        let len = (count as usize).checked_mul(size);
        match len.and_then(|l| at.checked_add(l)) {
            Some(end) if end <= self.bytes.len() => Ok(()),
            _ => Err(self.err(at, format!("table of {count} entries runs past the end"))),
        }
    }
    fn magic(&self, at: usize, m: &[u8; 4]) -> Result<(), ShbinError> {
        if self.bytes.get(at..at.saturating_add(4)) == Some(&m[..]) {
            Ok(())
        } else {
            Err(self.err(at, format!("expected {}", String::from_utf8_lossy(m))))
        }
    }
}

/// Parses a SHBIN file.
pub fn read(bytes: &[u8]) -> Result<Shbin, ShbinError> {
    let r = Reader {
        bytes,
        budget: std::cell::Cell::new(bytes.len()),
    };
    r.magic(0, b"DVLB")?;
    let n = r.u32(4)?;
    r.table(8, n, 4)?;
    let dvlp = 8 + 4 * n as usize;
    r.magic(dvlp, b"DVLP")?;
    let code_off = dvlp + r.u32(dvlp + 8)? as usize;
    let code_len = r.u32(dvlp + 12)?;
    let desc_off = dvlp + r.u32(dvlp + 16)? as usize;
    let desc_len = r.u32(dvlp + 20)?;
    r.table(code_off, code_len, 4)?;
    r.table(desc_off, desc_len, 8)?;
    let code = (0..code_len as usize)
        .map(|i| r.u32(code_off + 4 * i))
        .collect::<Result<_, _>>()?;
    let opdescs = (0..desc_len as usize)
        .map(|i| r.u32(desc_off + 8 * i))
        .collect::<Result<_, _>>()?;
    let mut dvles = Vec::new();
    for i in 0..n as usize {
        let at = r.u32(8 + 4 * i)? as usize;
        dvles.push(read_dvle(&r, at)?);
    }
    Ok(Shbin {
        code,
        opdescs,
        dvles,
    })
}

fn read_dvle(r: &Reader<'_>, at: usize) -> Result<Dvle, ShbinError> {
    r.magic(at, b"DVLE")?;
    r.table(at, 1, 0x40)?;
    let kind = match r.u8(at + 6)? {
        0 => ShaderType::Vertex,
        1 => ShaderType::Geometry,
        t => return Err(r.err(at + 6, format!("unknown shader type {t}"))),
    };
    let word = |o: usize| r.u32(at + o);
    let sub = |o: usize| -> Result<usize, ShbinError> {
        at.checked_add(word(o)? as usize)
            .ok_or_else(|| r.err(at + o, "offset overflows"))
    };
    let mut d = Dvle::new(kind);
    d.merge_outmaps = r.u8(at + 7)? & 1 != 0;
    d.main = word(8)?;
    d.endmain = word(12)?;
    d.input_mask = r.u16(at + 0x10)?;
    d.output_mask = r.u16(at + 0x12)?;
    d.gs_mode = r.u8(at + 0x14)?;
    d.gs_fixed_start = r.u8(at + 0x15)?;
    d.gs_variable_num = r.u8(at + 0x16)?;
    d.gs_fixed_num = r.u8(at + 0x17)?;
    let (c_off, c_n) = (sub(0x18)?, word(0x1C)?);
    let (o_off, o_n) = (sub(0x28)?, word(0x2C)?);
    let (u_off, u_n) = (sub(0x30)?, word(0x34)?);
    let (s_off, s_n) = (sub(0x38)?, word(0x3C)?);
    r.table(c_off, c_n, 20)?;
    r.table(o_off, o_n, 8)?;
    r.table(u_off, u_n, 8)?;
    r.table(s_off, s_n, 1)?;
    r.spend(
        at,
        0x40 + 20 * c_n as usize + 8 * o_n as usize + 8 * u_n as usize,
    )?;
    for i in 0..c_n as usize {
        let e = c_off + 20 * i;
        let ty = r.u16(e)?;
        let reg = r.u16(e + 2)?;
        let v = [r.u32(e + 4)?, r.u32(e + 8)?, r.u32(e + 12)?, r.u32(e + 16)?];
        let value = match ty {
            0 => ConstValue::Bool(v[0] & 1 != 0),
            1 => ConstValue::Int(v[0].to_le_bytes()),
            2 => ConstValue::Float(v.map(|x| x & 0xFF_FFFF)),
            t => return Err(r.err(e, format!("unknown constant type {t}"))),
        };
        d.constants.push(Constant { reg, value });
    }
    for i in 0..o_n as usize {
        let e = o_off + 8 * i;
        d.outputs.push(OutputEntry {
            semantic: r.u16(e)?,
            reg: r.u16(e + 2)?,
            mask: r.u16(e + 4)?,
        });
    }
    let symbols = &r.bytes[s_off..s_off + s_n as usize];
    for i in 0..u_n as usize {
        let e = u_off + 8 * i;
        let name_off = r.u32(e)? as usize;
        let name = symbols
            .get(name_off..)
            .and_then(|s| s.split(|&b| b == 0).next())
            .ok_or_else(|| r.err(e, "uniform name outside the symbol table"))?;
        r.spend(e, name.len())?;
        d.uniforms.push(UniformEntry {
            name: String::from_utf8_lossy(name).into_owned(),
            first: r.u16(e + 4)?,
            last: r.u16(e + 6)?,
        });
    }
    Ok(d)
}
