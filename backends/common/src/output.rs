//! What a compilation produces: machine code as named byte [`Section`]s, an optional container
//! file, the disassembly decoded back from the code, the [`Reflection`] and the [`Stats`].
//!
//! Targets differ in what a program is made of: Lima's PP program is one stream of 32-bit
//! words; a PICA200 program is code words plus an operand-descriptor table (and a SHBIN
//! container around both); an AGAL program is a 7-byte header followed by 24-byte tokens.
//! Sections name those parts (`code`, `operand-descriptors`, `constants` …) so that one
//! `Output` type serves every target, and simulators and disassemblers read the sections they
//! need by name.

use crate::reflection::Reflection;

/// The section every target has: the program's instructions.
pub const CODE: &str = "code";

/// One named part of a compiled program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// `code`, or a target's name for another part (`operand-descriptors`).
    pub name: &'static str,
    pub bytes: Vec<u8>,
}

/// A file format wrapping the program for a loader (MBS1 for Lima, SHBIN for PICA).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    /// The format's name (`mbs1`), also the `--emit` value that writes it.
    pub format: &'static str,
    pub bytes: Vec<u8>,
}

/// Figures about a compiled program (all counts are of the final code). Every target fills
/// the common fields it has; `extra` holds target-specific counters by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Machine instructions (Lima PP: variable-length instruction bundles).
    pub instructions: u32,
    /// Bytes of the code section.
    pub code_bytes: u32,
    /// Distinct hardware registers used (vec4 registers).
    pub registers: u32,
    /// Values spilled to memory / reloads from memory.
    pub spills: u32,
    pub fills: u32,
    /// Filled unit slots over all instructions (for "units per instruction"); 0 on a target
    /// that issues one operation per instruction (nothing to report).
    pub units_filled: u32,
    /// Lower bound on the instruction count (e.g. the busiest unit class's op count); 0 when
    /// the target computes none (summaries then print no ratio).
    pub lower_bound: u32,
    /// IR ops the backend consumed.
    pub ir_ops: u32,
    /// Target-specific counters (`("operand-descriptors", 12)`), in a fixed order.
    pub extra: Vec<(&'static str, u64)>,
}

impl Stats {
    /// `key value` lines for `--emit stats`.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "instructions {}\ncode bytes {}\nregisters {}\nspills {}\nfills {}\n\
             units filled {}\nlower bound {}\nir ops {}\n",
            self.instructions,
            self.code_bytes,
            self.registers,
            self.spills,
            self.fills,
            self.units_filled,
            self.lower_bound,
            self.ir_ops
        );
        for (k, v) in &self.extra {
            s.push_str(&format!("{k} {v}\n"));
        }
        s
    }
}

/// The result of a compilation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Output {
    /// The program's parts; the first is always [`CODE`].
    pub sections: Vec<Section>,
    /// The target's container when [`crate::CompileOptions::container`] is set.
    pub container: Option<Container>,
    /// Disassembly decoded from the sections by the target's own decoder.
    pub disassembly: String,
    pub reflection: Reflection,
    pub stats: Stats,
}

impl Output {
    /// The bytes of section `name`, if the program has it.
    pub fn section(&self, name: &str) -> Option<&[u8]> {
        self.sections
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.bytes.as_slice())
    }

    /// The code section (empty if missing).
    pub fn code(&self) -> &[u8] {
        self.section(CODE).unwrap_or(&[])
    }

    /// The code section as little-endian 32-bit words (a trailing partial word is dropped).
    pub fn code_words(&self) -> Vec<u32> {
        words_of(self.code())
    }
}

/// Little-endian 32-bit words of `bytes` (a trailing partial word is dropped).
pub fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `words` as little-endian bytes.
pub fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
