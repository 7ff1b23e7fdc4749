//! The binary reader: bytes → [`Module`] (reference §A.9, §A.10).
//!
//! The stream is `VLE(opCount)` followed by the ops. Each op is its token (`opcode | flags << 10`),
//! its operand count, its type (header `dims | members << 2`, array sizes innermost first, raw
//! member bytes) and its operands: references as positive-backward relative stream positions
//! (0 = null) up to the first-literal index of the opcode table, literals after it.
//!
//! The op at stream position k becomes `SsaDef::new(k)` (text id `%k+1`). Unlike the reference,
//! which accepts almost anything, the reader rejects every stream it could not write back
//! faithfully or that is obviously corrupt: unknown opcodes, token bits above the flags byte,
//! operand counts the opcode does not accept, bad types, references out of range or forward where
//! the opcode forbids it, declarations after code, duplicate constants and undefs, undefined enum
//! and flag values, constants whose operand count does not match their type, and any bytes after
//! the last op. Every error carries the byte offset and the op. Counts are checked against the
//! bytes that remain before anything is allocated, so no input makes it allocate more than a
//! small multiple of its own size, and no input makes it panic.

use super::error::{OpLocation, ReadError, ReadErrorKind};
use super::vle;
use crate::entities::SsaDef;
use crate::flags::OpFlags;
use crate::module::{BuildError, Module};
use crate::op::{Op, Operand, Operands};
use crate::opcode::{LitKind, OpCode};
use crate::types::{BasicType, ScalarType, Type, MAX_STRUCT_MEMBERS};
use cranelift_entity::EntityRef;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Every op takes at least three bytes: token, operand count, type header.
const MIN_OP_BYTES: usize = 3;
/// Largest encodable array size (sizes are `u16` in the reference).
const MAX_ARRAY_SIZE: i64 = u16::MAX as i64;

/// Reads a serialized module. Never panics; see the module docs for what is rejected.
pub fn read(bytes: &[u8]) -> Result<Module, ReadError> {
    let mut m = Module::new();
    read_into(bytes, &mut m)?;
    Ok(m)
}

/// [`read`] into `m`, replacing its contents and reusing its allocations (for embedders
/// reading shader after shader). On an error `m` holds no meaningful module.
pub fn read_into(bytes: &[u8], m: &mut Module) -> Result<(), ReadError> {
    m.clear();
    let mut r = Reader {
        bytes,
        pos: 0,
        op: None,
    };
    let count = r.vle()?;
    if count < 0 {
        return Err(r.err_at(
            0,
            ReadErrorKind::Negative {
                what: "op count",
                value: count,
            },
        ));
    }
    let remaining = r.remaining();
    if count as u64 > (remaining / MIN_OP_BYTES) as u64 {
        return Err(r.err_at(
            0,
            ReadErrorKind::OpCountTooLarge {
                count: count as u64,
                remaining,
            },
        ));
    }
    let count = count as usize;
    let mut state = State {
        count,
        entries: Vec::with_capacity(count),
        offsets: Vec::with_capacity(count),
        seen_code: false,
        undefs: FxHashMap::default(),
    };
    for k in 0..count {
        if r.remaining() == 0 {
            let kind = ReadErrorKind::MissingOps {
                read: k,
                expected: count,
            };
            return Err(r.err_at(r.pos, kind));
        }
        r.op = Some(OpLocation {
            index: k,
            opcode: None,
        });
        let start = r.pos;
        let op = r.read_op(k, &mut state)?;
        state.offsets.push(start);
        state.entries.push((SsaDef::new(k), op));
    }
    r.op = None;
    if r.remaining() != 0 {
        return Err(r.err_at(
            r.pos,
            ReadErrorKind::TrailingBytes {
                count: r.remaining(),
            },
        ));
    }
    let State {
        entries, offsets, ..
    } = state;
    let opcodes: Vec<OpCode> = entries.iter().map(|(_, op)| op.opcode).collect();
    m.fill_ordered(entries)
        .map_err(|e| build_error(e, &offsets, &opcodes))
}

/// Per-stream state the op checks need.
struct State {
    count: usize,
    entries: Vec<(SsaDef, Op)>,
    offsets: Vec<usize>,
    seen_code: bool,
    /// Undef ops by type: the reference merges undefs of one type whatever their flags.
    undefs: FxHashMap<Type, usize>,
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    op: Option<OpLocation>,
}

impl Reader<'_> {
    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn err_at(&self, offset: usize, kind: ReadErrorKind) -> ReadError {
        ReadError {
            offset,
            op: self.op,
            kind,
        }
    }

    fn vle(&mut self) -> Result<i64, ReadError> {
        let rest = self.bytes.get(self.pos..).unwrap_or(&[]);
        match vle::decode(rest) {
            Some((v, n)) => {
                self.pos += n;
                Ok(v)
            }
            None => Err(self.err_at(self.pos, ReadErrorKind::TruncatedToken)),
        }
    }

    /// Reads a VLE token that must be non-negative.
    fn count(&mut self, what: &'static str) -> Result<(u64, usize), ReadError> {
        let at = self.pos;
        let v = self.vle()?;
        if v < 0 {
            return Err(self.err_at(at, ReadErrorKind::Negative { what, value: v }));
        }
        Ok((v as u64, at))
    }

    fn read_op(&mut self, k: usize, st: &mut State) -> Result<Op, ReadError> {
        let start = self.pos;
        let token = self.vle()?;
        if !(0..1 << 18).contains(&token) {
            return Err(self.err_at(start, ReadErrorKind::TokenTooLarge { token }));
        }
        let value = (token & 0x3ff) as u16;
        let opcode = match OpCode::from_u16(value) {
            Some(c) if c != OpCode::Unknown => c,
            _ => return Err(self.err_at(start, ReadErrorKind::UnknownOpcode { value })),
        };
        self.op = Some(OpLocation {
            index: k,
            opcode: Some(opcode),
        });
        let flags = OpFlags((token >> 10) as u8);

        if opcode.is_declarative() {
            if st.seen_code {
                return Err(self.err_at(start, ReadErrorKind::DeclarationAfterCode));
            }
        } else {
            st.seen_code = true;
        }

        let (n, at) = self.count("operand count")?;
        let remaining = self.remaining();
        // One byte for the type header, at least one per operand.
        if n >= remaining as u64 {
            let kind = ReadErrorKind::OperandCountTooLarge {
                count: n,
                remaining,
            };
            return Err(self.err_at(at, kind));
        }
        let n = n as usize;
        if !opcode.accepts_operand_count(n) {
            return Err(self.err_at(at, ReadErrorKind::OperandCount { count: n }));
        }

        let ty = self.read_type()?;
        let operands = self.read_operands(opcode, n, k, st.count)?;

        match opcode {
            OpCode::Constant => {
                let expected = ty.flattened_scalar_count();
                if expected != Some(n as u64) {
                    let kind = ReadErrorKind::ConstantCount {
                        count: n,
                        ty,
                        expected,
                    };
                    return Err(self.err_at(start, kind));
                }
            }
            OpCode::Undef => {
                if let Some(&first) = st.undefs.get(&ty) {
                    return Err(self.err_at(start, ReadErrorKind::DuplicateUndef { first, ty }));
                }
                st.undefs.insert(ty.clone(), k);
            }
            _ => {}
        }
        Ok(Op {
            opcode,
            flags,
            ty,
            operands,
        })
    }

    fn read_type(&mut self) -> Result<Type, ReadError> {
        let (header, at) = self.count("type header")?;
        let dims = (header & 3) as usize;
        let members = header >> 2;
        if members > MAX_STRUCT_MEMBERS as u64 {
            return Err(self.err_at(at, ReadErrorKind::TooManyMembers { count: members }));
        }
        let members = members as usize;
        if members == 0 && dims > 0 {
            return Err(self.err_at(at, ReadErrorKind::ArrayOfVoid));
        }
        let mut sizes: SmallVec<[u32; 1]> = SmallVec::new();
        for _ in 0..dims {
            let at = self.pos;
            let size = self.vle()?;
            if !(0..=MAX_ARRAY_SIZE).contains(&size) {
                return Err(self.err_at(at, ReadErrorKind::ArraySize { size }));
            }
            sizes.push(size as u32);
        }
        let at = self.pos;
        let Some(raw) = self.bytes.get(at..at.saturating_add(members)) else {
            let kind = ReadErrorKind::TruncatedMembers {
                needed: members,
                available: self.remaining(),
            };
            return Err(self.err_at(at, kind));
        };
        let mut list: SmallVec<[BasicType; 2]> = SmallVec::with_capacity(members);
        for (i, &byte) in raw.iter().enumerate() {
            let kind = if byte & 0x80 != 0 {
                ReadErrorKind::MemberBit7 { byte }
            } else {
                match BasicType::from_byte(byte) {
                    Some(b) if b.scalar_type() != ScalarType::Void => {
                        list.push(b);
                        continue;
                    }
                    Some(_) => ReadErrorKind::VoidMember { index: i },
                    None => ReadErrorKind::UnassignedScalarType { byte },
                }
            };
            return Err(self.err_at(at + i, kind));
        }
        self.pos = at + members;
        Ok(Type::from_parts(list, sizes))
    }

    fn read_operands(
        &mut self,
        opcode: OpCode,
        n: usize,
        k: usize,
        op_count: usize,
    ) -> Result<Operands, ReadError> {
        let fl = opcode.first_literal_index(n);
        let mut operands = Operands::with_capacity(n);
        for i in 0..n {
            let at = self.pos;
            let v = self.vle()?;
            let operand = if i < fl {
                if v == 0 {
                    Operand::Null
                } else {
                    let target = k as i128 - v as i128;
                    if target < 0 || target >= op_count as i128 {
                        let kind = ReadErrorKind::RefOutOfRange {
                            operand: i,
                            delta: v,
                        };
                        return Err(self.err_at(at, kind));
                    }
                    let target = target as usize;
                    if target > k && !opcode.allows_forward_ref(i) {
                        let kind = ReadErrorKind::ForwardRef { operand: i, target };
                        return Err(self.err_at(at, kind));
                    }
                    Operand::Ref(SsaDef::new(target))
                }
            } else {
                let lit = v as u64;
                match opcode.literal_kind(i - fl) {
                    Some(LitKind::Enum(kind)) if !kind.is_valid(lit) => {
                        let kind = ReadErrorKind::InvalidEnum {
                            operand: i,
                            value: lit,
                            kind,
                        };
                        return Err(self.err_at(at, kind));
                    }
                    Some(LitKind::Flags(kind)) if !kind.is_valid(lit) => {
                        let kind = ReadErrorKind::InvalidFlags {
                            operand: i,
                            value: lit,
                            kind,
                        };
                        return Err(self.err_at(at, kind));
                    }
                    _ => {}
                }
                Operand::Lit(lit)
            };
            operands.push(operand);
        }
        Ok(operands)
    }
}

/// Locates a module-building failure at the op it names.
fn build_error(e: BuildError, offsets: &[usize], opcodes: &[OpCode]) -> ReadError {
    let def = match &e {
        BuildError::DuplicateId { def }
        | BuildError::DeclarationAfterCode { def, .. }
        | BuildError::DanglingRef { def, .. } => *def,
        BuildError::DuplicateConstant { second, .. } => *second,
    };
    let index = def.index();
    let op = Some(OpLocation {
        index,
        opcode: opcodes.get(index).copied(),
    });
    let offset = offsets.get(index).copied().unwrap_or(0);
    let kind = match e {
        BuildError::DuplicateConstant { first, .. } => ReadErrorKind::DuplicateConstant {
            first: first.index(),
        },
        e => ReadErrorKind::Build(e),
    };
    ReadError { offset, op, kind }
}
