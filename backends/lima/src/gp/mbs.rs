//! The MBS1 container of a vertex program (reference §16): what the blob's offline compiler
//! writes, and what Mesa's `lima_disasm` reads.
//!
//! ```text
//! MBS1
//!   CVER  u32 version = 6 (Mali-400 GP)
//!     FINS  u32 unknown = 0, u32 instructions, u32 attribute prefetch (index of the last
//!           instruction loading an attribute through register 0, 0 when none)
//!     DBIN  the code words
//! ```
//!
//! The symbol tables (`SUNI`, `SATT`, `SVAR`) are left out: readers skip chunks by size up to
//! `DBIN` (§16, "minimal file"), and the reflection carries the bindings.

use super::encode::attribute_prefetch;
use super::instr::Instruction;

fn chunk(id: &[u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + payload.len());
    out.extend_from_slice(id);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// The MBS1 file of `program` (encoded as `words`).
pub fn write_mbs1(program: &[Instruction], words: &[u32]) -> Vec<u8> {
    let mut fins = Vec::with_capacity(12);
    fins.extend_from_slice(&0u32.to_le_bytes());
    fins.extend_from_slice(&(program.len() as u32).to_le_bytes());
    let prefetch = attribute_prefetch(program).unwrap_or(0) as u32;
    fins.extend_from_slice(&prefetch.to_le_bytes());
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut cver = 6u32.to_le_bytes().to_vec();
    cver.extend(chunk(b"FINS", &fins));
    cver.extend(chunk(b"DBIN", &code));
    chunk(b"MBS1", &chunk(b"CVER", &cver))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vertex_container_holds_the_code_where_readers_find_it() {
        let program = [Instruction::NOP, Instruction::NOP];
        let words = super::super::encode::encode_program(&program).unwrap();
        let file = write_mbs1(&program, &words);
        assert_eq!(&file[..4], b"MBS1");
        assert_eq!(&file[8..12], b"CVER");
        assert_eq!(crate::pp::mbs::read_mbs1(&file).unwrap(), words);
    }
}
