//! `irc-lima`: the ARM Mali-200/400 ("Utgard", driver name "Lima") backend of irc.
//!
//! The Mali-200/400 has two programmable processors: the GP (geometry/vertex processor, "lima-vp") and the
//! PP (pixel/fragment processor, "lima-fp"). This crate holds the PP target, [`pp::LimaFp`]:
//!
//! * the compiler: [`pp::lower`] (IR → machine ops), [`pp::sched`] (instruction packing),
//!   [`pp::regalloc`] (6 vec4 registers, spilling), [`pp::emit`], [`pp::target`];
//! * [`pp::isa`] — THE table of PP bit fields (control word, every unit layout, opcode tables). Encoder,
//!   decoder and disassembler all read bit positions from here and nowhere else (DESIGN rule 9);
//! * [`pp::encode`] and, written separately from it, [`pp::decode`] (words → [`pp::Instruction`]s, never
//!   panics, errors carry the word offset), [`pp::disasm`] (Mesa's syntax), [`pp::asm`] (that syntax →
//!   instructions) and [`pp::mbs`] (the MBS1 container);
//! * [`pp::sim`] — a 2×2-quad simulator executing decoded programs in fp16 (or fp32) arithmetic, which the
//!   test harness runs against the reference interpreter.
//!
//! The GP side, [`gp`], is the `lima-vp` target, [`gp::LimaVp`]: its compiler ([`gp::lower`],
//! [`gp::sched`], [`gp::target`]) and the reference pieces written independently of it:
//! [`gp::isa`] (THE 128-bit instruction table), [`gp::encode`] / [`gp::decode`], [`gp::disasm`] /
//! [`gp::asm`], and [`gp::sim`] (forwarding windows and latencies modelled, strict mode) behind
//! the generic simulator interface ([`gp::sim_io`]).
//!
//! The authoritative reference for every encoding and semantic choice is `shared/reference/lima.md`; section
//! numbers (§n) in the docs of this crate refer to it.

pub mod gp;
pub mod pp;
