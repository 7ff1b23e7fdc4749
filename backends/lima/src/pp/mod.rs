//! The Mali-200/400 fragment processor ("PP", target `lima-fp`).
//!
//! A PP program is a sequence of variable-length instructions (2–19 little-endian 32-bit words). Each
//! instruction is a control word followed by the bit fields of the units it uses, packed LSB-first without
//! alignment in the fixed unit order of [`isa::Unit`] (reference §2).
//!
//! Module map:
//! * [`isa`] — the bit-field and opcode tables (shared with the encoder);
//! * [`instr`] — the structured, decoded form of one instruction ([`Instruction`]);
//! * [`decode`] — words → [`Instruction`]s;
//! * [`disasm`] — [`Instruction`]s → text;
//! * [`encode`] — [`Instruction`]s → words (with program linking);
//! * [`asm`] — text → [`Instruction`]s (the disassembler's syntax);
//! * [`sim`] (+ `sim_units`, [`texture`]) — the quad simulator; [`sim_io`] puts it behind the
//!   generic `irc_backend::Simulator` (IR-named inputs and outputs through the reflection);
//! * the compiler, [`target::LimaFp`]: [`lower`] → [`mir`] (machine ops on virtual registers;
//!   [`facts`] says what each op reads, writes and runs on) → dead writes (generic, in
//!   `irc_backend::machine`) → [`fuse`] (texture fetches with their readers) → [`sched`] (instructions) → [`regalloc`] (registers, spilling) →
//!   [`emit`] → [`encode`]; [`mbs`] writes the MBS1 container.

pub mod asm;
pub mod bound;
pub mod caps;
pub mod decode;
pub mod disasm;
pub mod emit;
pub mod encode;
pub mod facts;
pub mod fuse;
pub mod instr;
pub mod isa;
pub mod lower;
pub mod mbs;
pub mod mir;
pub mod reflection;
pub mod regalloc;
pub mod sched;
pub mod sim;
pub mod sim_io;
mod sim_units;
pub mod target;
pub mod texture;

pub use decode::{decode_program, DecodeError};
pub use disasm::{disassemble_instruction, disassemble_program};
pub use instr::Instruction;
pub use sim::{
    run_program, run_words, LaneInputs, LaneOutput, PpSimulator, Precision, QuadInputs, QuadOutput,
    SimError, SimErrorKind, SimOptions,
};
pub use target::LimaFp;
pub use texture::{LodMode, SampleRequest, TextureSampler};
