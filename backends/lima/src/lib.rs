//! `irc-lima`: the ARM Mali-200/400 ("Utgard", driver name "Lima") backend of irc.
//!
//! The Mali-200/400 has two programmable processors: the GP (geometry/vertex processor, "lima-vp") and the
//! PP (pixel/fragment processor, "lima-fp"). This crate currently holds the PP *decoding side*:
//!
//! * [`pp::isa`] — THE table of PP bit fields (control word, every unit layout, opcode tables). Encoder,
//!   decoder and disassembler all read bit positions from here and nowhere else (DESIGN rule 9).
//! * [`pp::decode`] — machine words → structured [`pp::Instruction`]s (never panics, errors carry the word
//!   offset).
//! * [`pp::disasm`] — instructions → text in Mesa's PP disassembly syntax (documented there so an assembler can
//!   be written against it).
//! * [`pp::sim`] — a 2×2-quad simulator executing decoded programs in fp16 (or fp32) arithmetic.
//!
//! The authoritative reference for every encoding and semantic choice is `shared/reference/lima.md`; section
//! numbers (§n) in the docs of this crate refer to it.

pub mod pp;
