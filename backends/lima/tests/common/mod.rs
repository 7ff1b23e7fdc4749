//! Test-only bit packer: builds PP instruction words from unit payloads using the field table of
//! `irc_lima::pp::isa`. Deliberately minimal (payloads are assembled field by field in each test) — it is NOT
//! an encoder.

#![allow(dead_code)]

use irc_lima::pp::isa::{control, instr_words, Field, Unit};

/// Builds a payload from `(field, value)` pairs.
pub fn payload(fields: &[(Field, u64)]) -> u128 {
    fields.iter().fold(0, |p, &(f, v)| {
        assert!(f.fits(v), "value {v:#x} does not fit field {}", f.name);
        f.set(p, v)
    })
}

/// Packs one instruction (units must be given in `Unit::ALL` order); `next_count`/`prefetch` are left 0.
pub fn instr(units: &[(Unit, u128)], stop: bool, sync: bool) -> Vec<u32> {
    let mut fields = 0u32;
    let mut bits: Vec<bool> = Vec::new();
    let mut last = None;
    for &(unit, p) in units {
        assert!(last < Some(unit), "units out of order");
        last = Some(unit);
        fields |= unit.presence_bit();
        bits.extend((0..unit.bits()).map(|i| (p >> i) & 1 != 0));
    }
    let count = instr_words(fields);
    let mut words = vec![0u32; count as usize];
    for (i, b) in bits.iter().enumerate() {
        if *b {
            words[1 + i / 32] |= 1 << (i % 32);
        }
    }
    let mut c: u128 = 0;
    c = control::COUNT.set(c, count.into());
    c = control::STOP.set(c, stop.into());
    c = control::SYNC.set(c, sync.into());
    c = control::FIELDS.set(c, fields.into());
    words[0] = c as u32;
    words
}

/// Concatenates instructions, filling in `NEXT_COUNT` and `PREFETCH`.
pub fn link(instrs: &[Vec<u32>]) -> Vec<u32> {
    let mut out = Vec::new();
    for (i, ins) in instrs.iter().enumerate() {
        let mut ins = ins.clone();
        if let Some(next) = instrs.get(i + 1) {
            let mut c = u128::from(ins[0]);
            c = control::NEXT_COUNT.set(c, u64::from(next.len() as u32));
            c = control::PREFETCH.set(c, 1);
            ins[0] = c as u32;
        }
        out.extend(ins);
    }
    out
}
