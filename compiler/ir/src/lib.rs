//! # irc-ir: DXBC-IR for the irc shader compiler
//!
//! The SSA IR of doitsujin/dxbc-spirv, as Rust data: [`types`] (scalar, vector, struct and
//! array types), [`opcode`] (the one opcode table: docs, classes, formats), [`format`](mod@format) (named
//! operands and typed accessors), [`op`] (an op: opcode, flags, type,
//! operands), [`module`] (storage with stable ids, program order and use lists), [`builder`]
//! (a cursor for embedders and passes), [`ssa_util`] (phi clean-up shared by SSA
//! construction and passes), the byte-exact binary format in [`binary`], the
//! round-tripping text format in [`text`], the [`verifier`], and the shape [`limits`] irc
//! compiles within.
//!
//! Numbering (opcodes, enums, flags) is that of dxbc-spirv at commit
//! `c5c1a5b9b61773d59592f628faa39be9add26282`; the format has no version field, so streams from
//! other commits are not meaningful.

pub mod analysis;
pub mod binary;
pub mod builder;
pub mod change_log;
pub mod entities;
pub mod enums;
pub mod flags;
pub mod format;
pub mod limits;
pub mod module;
pub mod op;
pub mod opcode;
mod opcode_counts;
pub mod ssa_util;
pub mod strings;
pub mod text;
pub mod types;
mod uses;
pub mod verifier;

pub use builder::{Builder, Position};
pub use change_log::{ChangeMark, Changes, ModuleVersion};
pub use cranelift_entity::EntityRef;
pub use entities::SsaDef;
pub use enums::*;
pub use flags::OpFlags;
pub use format::{Format, OpView};
pub use module::{BuildError, Module, Section};
pub use op::{Op, Operand, Operands};
pub use opcode::{Attrs, FirstLiteral, LitKind, OpCode, OpInfo};
pub use types::{BasicType, ScalarClass, ScalarType, Type};
