//! The Mali-200/400 vertex processor ("GP", target `lima-vp`): the reference side.
//!
//! A GP program is a sequence of fixed-size 128-bit instructions (four little-endian 32-bit
//! words). Every instruction runs all units at once — two acc (add) units, two mul units, one
//! complex unit, one pass unit, the register-0 (attribute or register), register-1 and
//! uniform/temporary loads, and two store units — and their sources read the results of the
//! previous one or two instructions through the bypass network (reference §7–§9).
//!
//! Module map (written independently of the compiler side, so that they do not share mistakes):
//! * [`isa`] — THE bit-field and opcode table (encoder and decoder read positions only from it);
//! * [`instr`] — the structured instruction ([`Instruction`]);
//! * [`encode`] and, written separately, [`decode`] (never panics, errors carry the instruction
//!   index, bounded allocation);
//! * [`disasm`] (Mesa's GP syntax, disambiguated) and [`asm`] (that syntax → instructions);
//! * [`sim`] — a simulator modelling the forwarding windows and latencies (strict mode reports a
//!   read of a value not yet available); [`sim_io`] puts it behind the generic
//!   `irc_backend::Simulator` interface.
//!
//! The compiler, [`target::LimaVp`] (target `lima-vp`): [`lower`] (IR → [`mir`], scalar nodes
//! and the uniform layout) → [`sched`] (instructions, forwarding and registers together) →
//! [`encode`]; [`mbs`] writes the MBS1 container; [`caps`] is what the shared passes read.

pub mod asm;
pub mod caps;
pub mod decode;
pub mod disasm;
pub mod encode;
pub mod instr;
pub mod isa;
pub mod lower;
pub mod mbs;
pub mod mir;
pub mod sched;
pub mod sim;
pub mod sim_io;
pub mod target;

pub use asm::{assemble, AsmError};
pub use decode::{decode_bytes, decode_program, DecodeError};
pub use disasm::{disassemble_instruction, disassemble_program};
pub use encode::{encode_bytes, encode_program, EncodeError};
pub use instr::Instruction;
pub use sim::{
    run_program, run_words, GpInputs, GpOutputs, GpSimError, GpSimErrorKind, SimOptions,
};
pub use sim_io::{GpReflection, GpSim};
pub use target::LimaVp;
