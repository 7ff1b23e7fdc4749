//! `irc-agal`: the Adobe AGAL (Stage3D) backend of irc.
//!
//! This crate holds what the shared passes need to know about AGAL, [`CAPS`], so that
//! `irc opt --pipeline opt:agal` and the `legalize:agal` / `opt:agal` corpus checks prepare IR
//! the way the code generator will want it, and the *reference side* of the backend, written
//! independently of the (future) compiler so that the two do not share mistakes:
//!
//! * [`isa`] — THE table of AGAL versions 1–3: header, token and operand bit layouts, opcodes
//!   with their minimum version and stage, register types with per-version/per-stage limits,
//!   sampler field values (DESIGN rule 9);
//! * [`instr`] — the structured program ([`Program`], [`Instruction`]);
//! * [`encode`] and, written separately, [`decode`] (never panics, errors carry the byte
//!   offset);
//! * [`disasm`] and [`asm`] in AGALMiniAssembler syntax (`assemble ∘ disassemble` = identity);
//! * [`validate`] — the Flash runtime's upload-time validator rules with their error numbers;
//! * [`sim`] — an f32 simulator of vertex programs and fragment quads, with the generic
//!   [`irc_backend::Simulator`] implementation ([`sim::AgalSimulator`]).
//!
//! The compiler side: [`caps`], [`lower`] (IR → machine ops on virtual registers, constant
//! pool, I/O assignment, predicated selections or AGAL 2 conditionals, relative addressing,
//! `FRound`, matrix ops, `nrm`/`crs` and in-place updates),
//! [`regalloc`] (lane packing into the temporaries), [`regalloc_check`] (the machine layer's
//! allocation checker on every program), [`reflection`] (outputs AGAL has no register for)
//! and [`target`] (`agal-fp`, `agal-vp`). Facts: `shared/reference/agal.md` (§n in this crate's docs refers to it).
//!
//! # Conventions for the compiler side
//!
//! * The `code` section is the whole AGAL program, header included (what `Program3D.upload`
//!   takes); [`encode::encode_program_checked`] writes it, [`decode::decode_program`] reads it.
//! * Text: [`disasm::disassemble_program`] prints an `.agal KIND VERSION` line, then
//!   AGALMiniAssembler syntax; [`asm::assemble`] reads it back ([`asm::assemble_as`] reads a
//!   bare mini-assembler body).
//! * Validation: [`validate::validate`] / [`validate::validate_pair`] with a
//!   [`validate::ValidateOptions`] (profile, default standardExtended); every compiled program
//!   should pass it. Emit exactly `.xyz` for nrm/crs/m33/m34, full swizzle lanes written for
//!   temporaries (§7.6), no constant-only operands (mov constants to a temporary first), one
//!   full-mask `oc` write, all four lanes of every written varying and of `op`.
//! * Simulation through the generic simulator follows the reflection mapping documented in
//!   [`sim`]: `varyings[k].slot` = `va<slot>` (vertex) / `v<slot>` (fragment), `uniforms[k].slot`
//!   = `vc`/`fc<slot>`, `samplers[k].index` = `fs<index>`, `outputs[k]`: `Position` → `op`,
//!   `Depth` → `fd`, otherwise `v<register>` (vertex) / `oc<register>` (fragment).

pub mod asm;
pub mod caps;
pub mod decode;
pub mod disasm;
pub mod encode;
pub mod instr;
pub mod isa;
pub mod lower;
pub mod reflection;
pub mod regalloc;
pub mod regalloc_check;
pub mod sim;
pub mod target;
pub mod validate;

pub use instr::{Dest, Indirect, Instruction, Program, Sampler, Source, Src2};
pub use isa::{Opcode, Profile, RegType, ShaderKind};
pub use target::{AgalFp, AgalVp};

pub use caps::CAPS;
