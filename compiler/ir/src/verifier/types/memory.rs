//! Type rules of memory and composite access: loads and stores through an address into a
//! declaration, pointer or buffer, descriptor loads, and composite extract/insert/construct.

use super::access::{addressed_type, descriptor_decl};
use super::{compat, int, scalar_compat, Rules};
use crate::flags::OpFlags;
use crate::format::slots;
use crate::opcode::OpCode;
use crate::types::{ScalarType, Type};

impl<'m> Rules<'_, 'm> {
    pub(super) fn want_descriptor(&mut self, i: usize) {
        if let Some(t) = self.arg_ty(i) {
            if !t
                .as_basic()
                .is_some_and(|b| b.scalar_type().is_descriptor())
            {
                self.err(format!(
                    "operand {i} of {} must be a descriptor, found {t}",
                    self.opcode()
                ));
            }
        }
    }

    pub(super) fn descriptor_load(&mut self) {
        use OpCode as O;
        let m = self.cx.m;
        let Some(decl) = self.arg(slots::DescriptorLoad.decl) else {
            return;
        };
        let want = match m.opcode(decl) {
            O::DclSampler => ScalarType::Sampler,
            O::DclCbv => ScalarType::Cbv,
            O::DclSrv => ScalarType::Srv,
            O::DclUav => ScalarType::Uav,
            O::DclUavCounter => ScalarType::UavCounter,
            _ => ScalarType::InputTarget,
        };
        self.want_result_is(&Type::scalar(want));
        self.want_arg(slots::DescriptorLoad.index, int, "an integer");
    }

    /// Loads and stores addressing into a declaration or pointer (operand 0).
    pub(super) fn load_store(&mut self, value: Option<usize>) {
        let m = self.cx.m;
        let Some(base) = self.arg(slots::Load.base) else {
            return;
        };
        self.access(m.ty(base), value, false);
    }

    pub(super) fn buffer_access(&mut self, value: Option<usize>) {
        self.want_descriptor(slots::AlignedLoad.base);
        let Some(decl) = self
            .arg(slots::AlignedLoad.base)
            .and_then(|d| descriptor_decl(self.cx.m, d))
        else {
            return;
        };
        let m: &'m crate::Module = self.cx.m;
        let base_ty = m.ty(decl);
        // Typed buffers are indexed by element and return vec4s; only arrays are checked.
        if base_ty.is_array() {
            self.access(base_ty, value, true);
        }
    }

    fn access(&mut self, base: &Type, value: Option<usize>, vector_ok: bool) {
        let m = self.cx.m;
        let addr = self.arg(slots::Load.address);
        let target = match addressed_type(m, base, addr) {
            Ok(Some(t)) => t,
            Ok(None) => return,
            Err(e) => return self.err(e),
        };
        let (actual, what) = match value {
            Some(i) => match self.arg_ty(i) {
                Some(t) => (t, "stored value"),
                None => return,
            },
            None => (self.result(), "result"),
        };
        let sparse = m.op(self.d).flags.contains(OpFlags::SPARSE_FEEDBACK);
        let data_ty;
        let actual = if sparse && value.is_none() {
            match actual.members() {
                [_, data] if actual.array_dims().is_empty() => {
                    data_ty = Type::basic(*data);
                    &data_ty
                }
                _ => {
                    return self.err(format!(
                        "sparse-feedback {} must return {{u32, value}}",
                        self.opcode()
                    ))
                }
            }
        } else {
            actual
        };
        if compat(actual, &target) {
            return;
        }
        // A widened TmpLoad (see `widened_tmp_load`) really holds its temporary's type.
        if let Some(v) = value.and_then(|i| self.arg(i)) {
            let vop = m.op(v);
            if vop.opcode == OpCode::TmpLoad {
                if let Some(tmp) = crate::format::TmpLoad::of(vop)
                    .var()
                    .filter(|&t| m.is_live(t))
                {
                    if compat(m.ty(tmp), &target) {
                        return;
                    }
                }
            }
        }
        let consecutive = vector_ok
            && matches!((actual.as_basic(), target.as_scalar()), (Some(a), Some(s)) if scalar_compat(a.scalar_type(), s));
        if !consecutive {
            self.err(format!(
                "{} {what} has type {actual}, the addressed type is {target}",
                self.opcode()
            ));
        }
    }

    pub(super) fn composite_access(&mut self) {
        let m = self.cx.m;
        let insert = self.opcode() == OpCode::CompositeInsert;
        let (Some(c), Some(addr)) = (
            self.arg_ty(slots::CompositeInsert.composite),
            self.arg(slots::CompositeInsert.address),
        ) else {
            return;
        };
        let target = match addressed_type(m, c, Some(addr)) {
            Ok(Some(t)) => t,
            Ok(None) => return,
            Err(e) => return self.err(e),
        };
        if insert {
            self.want_result_is(c);
            self.want_arg_is(
                slots::CompositeInsert.value,
                &target,
                " (the addressed type)",
            );
        } else {
            self.want_result_is(&target);
        }
    }

    pub(super) fn composite_construct(&mut self) {
        let t = self.result();
        let n = self.nargs();
        // The member types, made one at a time (no list of them).
        let elem = t.element_type();
        let count = if elem.is_some() {
            t.array_dims().last().copied().unwrap_or(0) as usize
        } else if t.is_struct() {
            t.members().len()
        } else if let Some(b) = t.as_basic().filter(|b| b.is_vector()) {
            b.vec_size() as usize
        } else {
            return self.err(format!(
                "CompositeConstruct must build a vector, struct or array, not {t}"
            ));
        };
        if count != n {
            return self.err(format!(
                "CompositeConstruct of {t} needs {count} members, found {n}"
            ));
        }
        for i in 0..count {
            match &elem {
                Some(e) => self.want_arg_is(i, e, " (the member type)"),
                None => {
                    let mt = if t.is_struct() {
                        Type::basic(t.members()[i])
                    } else {
                        Type::scalar(t.members()[0].scalar_type())
                    };
                    self.want_arg_is(i, &mt, " (the member type)");
                }
            }
        }
    }
}
