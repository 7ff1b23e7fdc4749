//! The builder: a cursor over a [`Module`] for embedders and passes.
//!
//! Ops are inserted at the cursor (code) or at the end of the declarations (declarative ops,
//! which always precede code). Constants and undefs go through the module's de-duplication, so
//! asking twice for `u32 0` yields one def.
//!
//! ```
//! use irc_ir::{Builder, Module, Op, OpCode, ScalarType, Type};
//! let mut m = Module::new();
//! let mut b = Builder::new(&mut m);
//! let one = b.const_f32(1.0);
//! let f = b.add(Op::new(OpCode::Function, Type::void()));
//! b.add(Op::new(OpCode::Label, Type::void()).lit(0));
//! let sum = b.add(Op::new(OpCode::FAdd, ScalarType::F32).arg(one).arg(one));
//! b.add(Op::new(OpCode::Return, Type::void()));
//! b.add(Op::new(OpCode::FunctionEnd, Type::void()));
//! assert_eq!(b.const_f32(1.0), one);
//! assert_eq!(m.uses(one), &[sum, sum]);
//! # let _ = f;
//! ```

use crate::entities::SsaDef;
use crate::module::{Module, Section};
use crate::op::Op;
use crate::opcode::OpCode;
use crate::types::{ScalarType, Type};

/// Where the next code op goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// At the end of the code.
    End,
    /// Before this op.
    Before(SsaDef),
    /// After this op; the cursor then moves past the inserted op.
    After(SsaDef),
}

/// A cursor that inserts ops into a module.
#[derive(Debug)]
pub struct Builder<'m> {
    module: &'m mut Module,
    pos: Position,
}

impl<'m> Builder<'m> {
    /// A builder appending at the end of the module.
    pub fn new(module: &'m mut Module) -> Self {
        Builder {
            module,
            pos: Position::End,
        }
    }
    /// A builder inserting at `pos`.
    pub fn at(module: &'m mut Module, pos: Position) -> Self {
        Builder { module, pos }
    }
    pub fn position(&self) -> Position {
        self.pos
    }
    pub fn set_position(&mut self, pos: Position) {
        self.pos = pos;
    }
    /// The module being built.
    pub fn module(&mut self) -> &mut Module {
        self.module
    }
    /// Read-only access to the module.
    pub fn module_ref(&self) -> &Module {
        self.module
    }

    /// Inserts `op`: declarations at the end of the declarations, code at the cursor.
    pub fn add(&mut self, op: Op) -> SsaDef {
        if Section::of(op.opcode) == Section::Declarations {
            return self.module.add(op);
        }
        match self.pos {
            Position::End => self.module.add(op),
            Position::Before(at) => self.module.insert_before(at, op),
            Position::After(at) => {
                let d = self.module.insert_after(at, op);
                if !self.module.opcode(d).is_declarative() {
                    self.pos = Position::After(d);
                }
                d
            }
        }
    }

    /// A constant of type `ty` with flattened scalar literals `lits`.
    pub fn constant(&mut self, ty: impl Into<Type>, lits: &[u64]) -> SsaDef {
        let mut op = Op::new(OpCode::Constant, ty);
        for &l in lits {
            op = op.lit(l);
        }
        self.module.add(op)
    }
    pub fn const_u32(&mut self, v: u32) -> SsaDef {
        self.constant(ScalarType::U32, &[v as u64])
    }
    pub fn const_i32(&mut self, v: i32) -> SsaDef {
        self.constant(ScalarType::I32, &[v as i64 as u64])
    }
    pub fn const_f32(&mut self, v: f32) -> SsaDef {
        self.constant(ScalarType::F32, &[v.to_bits() as u64])
    }
    pub fn const_f16(&mut self, v: half::f16) -> SsaDef {
        self.constant(ScalarType::F16, &[v.to_bits() as u64])
    }
    pub fn const_f64(&mut self, v: f64) -> SsaDef {
        self.constant(ScalarType::F64, &[v.to_bits()])
    }
    pub fn const_bool(&mut self, v: bool) -> SsaDef {
        self.constant(ScalarType::Bool, &[v as u64])
    }
    /// An undefined value of type `ty`.
    pub fn undef(&mut self, ty: impl Into<Type>) -> SsaDef {
        self.module.add(Op::new(OpCode::Undef, ty))
    }
}
