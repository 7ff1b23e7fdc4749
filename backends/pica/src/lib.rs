//! `irc-pica`: the PICA200 (Nintendo 3DS) backend of irc.
//!
//! This crate holds what the shared passes need to know about the PICA200 shader unit
//! ([`CAPS`], in [`caps`]), the `pica-vs` code generator (below), and the "reference side" of
//! the `pica-vs` / `pica-gs` targets — everything that must not depend on the code generator,
//! so that the two cannot share mistakes:
//!
//! * [`isa`] — THE table: every instruction format (§4) as a `layout!`, every opcode (§3) with
//!   its format and class, the operand descriptor (§5), register encodings (§6), conditions
//!   (§8), limits (§2, §11). Encoder, decoder and tests read bit positions from here only.
//! * [`instr`] — the structured instruction [`instr::Instr`] (operands inline: register,
//!   swizzle, negation, mask, relative index).
//! * [`encode`] (instructions → words + picasso-style de-duplicated operand descriptors) and,
//!   written separately, [`decode`] (words + descriptors → instructions; never panics, errors
//!   carry the word offset).
//! * [`disasm`] / [`asm`] — picasso syntax (§14): `.proc`, blocks, labels, aliases, uniforms,
//!   constants, `.in`/`.out`/`.gsh`, automatic NOPs (§9); assemble ∘ disassemble reproduces the
//!   words and descriptors.
//! * [`shbin`] — the SHBIN container (DVLB/DVLP/DVLE, §13) reader and writer, laid out as
//!   picasso does and as libctru reads it.
//! * [`float24`] and [`sim`] — a float24 (or exact f32) simulator of vertex and geometry
//!   shaders with the flow-control stacks, relative addressing, EMIT/SETEMIT and the hardware
//!   errata as errors; [`sim_io`] puts it behind the generic [`irc_backend::Simulator`].
//!
//! The `pica-vs` target: [`lower`] (IR after the `opt` pipeline → machine ops on virtual vec4
//! registers, with the operand-slot errata resolved), [`regalloc`] (r0–r15 through the shared
//! allocator core and its checker) and [`target`] (`impl Target`, emission, reflection,
//! SHBIN). The `pica-gs` target ([`gs`]) is the same code generator with the geometry hooks of
//! [`lower::gs`] (point-mode inputs, `SETEMIT`/`EMIT`), and [`gs::program`] puts a vertex and a
//! geometry shader into one SHBIN. Section numbers (§n) refer to
//! `shared/reference/pica.md`.

pub mod asm;
pub mod caps;
pub mod decode;
pub mod disasm;
pub mod encode;
pub mod float24;
pub mod flow_emit;
pub mod flow_fill;
pub mod gs;
pub mod instr;
pub mod isa;
pub mod lower;
pub mod mov_merge;
pub mod outline;
pub mod outmap;
pub mod redundant_moves;
pub mod regalloc;
pub mod shbin;
pub mod sim;
pub mod sim_io;
pub mod target;

pub use gs::PicaGs;
pub use target::PicaVs;

pub use caps::CAPS;
