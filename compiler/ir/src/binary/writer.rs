//! The binary writer: [`Module`] → bytes (reference §A.9).
//!
//! Ops are written in program order (declarations first, as [`Module::iter`] yields them) and
//! numbered densely by stream position, so holes left by removed ops disappear. References are
//! written as `position(this) - position(target)` (0 = null), literals as the signed VLE of their
//! 64-bit value, types as `dims | members << 2`, array sizes innermost first, then the raw member
//! bytes. VLE lengths follow the reference encoder (§A.8), so a canonical stream read and written
//! back is byte-identical.
//!
//! Writing takes two passes: the first numbers the ops, the second validates each op (operands
//! consistent with the first-literal rule, references to live ops, encodable types) and appends
//! its bytes. [`Writer`] keeps its numbering tables and the output buffer between calls for
//! embedders that serialize many modules.

use super::error::WriteError;
use super::vle;
use crate::entities::SsaDef;
use crate::module::Module;
use crate::op::{Op, Operand};
use crate::opcode::{LitKind, OpCode};
use crate::types::{ScalarType, Type, MAX_ARRAY_DIMS, MAX_STRUCT_MEMBERS};
use cranelift_entity::EntityRef;

/// Marks an id with no stream position (removed or never created).
const UNNUMBERED: u32 = u32::MAX;

/// Serializes a module into a new byte vector.
pub fn write(m: &Module) -> Result<Vec<u8>, WriteError> {
    let mut out = Vec::new();
    Writer::default().write_into(m, &mut out)?;
    Ok(out)
}

/// A reusable serializer: keeps its scratch tables between modules.
#[derive(Debug, Default)]
pub struct Writer {
    /// Stream position of each id, `UNNUMBERED` if it has none.
    position: Vec<u32>,
    /// The live ops in program order.
    order: Vec<SsaDef>,
}

impl Writer {
    pub fn new() -> Writer {
        Writer::default()
    }

    /// Serializes `m`, replacing the contents of `out` (its capacity is reused).
    pub fn write_into(&mut self, m: &Module, out: &mut Vec<u8>) -> Result<(), WriteError> {
        out.clear();
        self.position.clear();
        self.position.resize(m.id_bound(), UNNUMBERED);
        self.order.clear();
        self.order.extend(m.iter());
        for (k, d) in self.order.iter().enumerate() {
            self.position[d.index()] = k as u32;
        }

        let count = self.order.len();
        // Most ops take well under 8 bytes; growing past the estimate is amortized.
        out.reserve(count * 8 + 1);
        vle::push(out, count as i64);
        for (k, &d) in self.order.iter().enumerate() {
            let op = m.op(d);
            // Opcode 0 is dxbc-spirv's invalid/null op, which the reader refuses.
            if op.opcode == OpCode::Unknown {
                return Err(WriteError::UnknownOpcode { def: d });
            }
            if !type_is_encodable(&op.ty) {
                let ty = op.ty.clone();
                return Err(WriteError::UnencodableType {
                    def: d,
                    opcode: op.opcode,
                    ty,
                });
            }
            // The reader's rule: a constant has one literal per scalar of its type.
            if op.opcode == OpCode::Constant
                && op.ty.flattened_scalar_count() != Some(op.operands.len() as u64)
            {
                return Err(WriteError::ConstantCount {
                    def: d,
                    ty: op.ty.clone(),
                    count: op.operands.len(),
                });
            }
            vle::push(out, op_token(op));
            let operands = op.operands.as_slice();
            let fl = op.opcode.first_literal_index(operands.len());
            vle::push(out, operands.len() as i64);
            write_type(out, &op.ty);
            for (i, &operand) in operands.iter().enumerate() {
                // The first-literal rule (`Op::is_consistent`), checked on the way.
                if (i >= fl) != operand.is_literal() {
                    return Err(WriteError::Inconsistent {
                        def: d,
                        opcode: op.opcode,
                    });
                }
                let v = match operand {
                    Operand::Null => 0,
                    Operand::Ref(t) => match self.position.get(t.index()) {
                        // The reader's rule: only some operands may refer forward.
                        Some(&p)
                            if p != UNNUMBERED
                                && p as usize > k
                                && !op.opcode.allows_forward_ref(i) =>
                        {
                            return Err(WriteError::ForwardRef {
                                def: d,
                                opcode: op.opcode,
                                operand: i,
                                target: t,
                            });
                        }
                        Some(&p) if p != UNNUMBERED => k as i64 - p as i64,
                        _ => {
                            let opcode = op.opcode;
                            return Err(WriteError::RemovedRef {
                                def: d,
                                opcode,
                                operand: i,
                                target: t,
                            });
                        }
                    },
                    Operand::Lit(v) => {
                        // The reader's rule: enum and flag literals hold defined values.
                        let valid = match op.opcode.literal_kind(i - fl) {
                            Some(LitKind::Enum(kind)) => kind.is_valid(v),
                            Some(LitKind::Flags(kind)) => kind.is_valid(v),
                            _ => true,
                        };
                        if !valid {
                            return Err(WriteError::InvalidLiteral {
                                def: d,
                                opcode: op.opcode,
                                operand: i,
                                value: v,
                            });
                        }
                        v as i64
                    }
                };
                vle::push(out, v);
            }
        }
        Ok(())
    }
}

fn op_token(op: &Op) -> i64 {
    op.opcode.value() as i64 | (op.flags.0 as i64) << 10
}

fn type_is_encodable(ty: &Type) -> bool {
    ty.array_dims().len() <= MAX_ARRAY_DIMS
        && ty.members().len() <= MAX_STRUCT_MEMBERS
        && ty.array_dims().iter().all(|&s| s <= u16::MAX as u32)
        && !(ty.is_void() && ty.is_array())
        && ty
            .members()
            .iter()
            .all(|b| b.scalar_type() != ScalarType::Void)
}

fn type_header(ty: &Type) -> i64 {
    ty.array_dims().len() as i64 | (ty.members().len() as i64) << 2
}

fn write_type(out: &mut Vec<u8>, ty: &Type) {
    vle::push(out, type_header(ty));
    for &s in ty.array_dims() {
        vle::push(out, s as i64);
    }
    out.extend(ty.members().iter().map(|b| b.to_byte()));
}
