//! Relative addressing of constants: `vc[vt0.x + base]` for D3D9 `c[a0.x + k]` and dynamically
//! indexed constant buffers (vertex programs only: the runtime rejects indirect sources in
//! fragment programs, #3639).
//!
//! After `int-to-float`, a dynamic index is an integer chain the pass leaves for backends with
//! address registers: `Cast`s, `IAdd` of a constant and `ConvertFtoI(x)` of an integer-valued
//! float (a D3D9 `mova` is `ConvertFtoI(FRound(x))`), per component through
//! `CompositeConstruct`/`CompositeExtract`. [`Lower::index_comps`] reads it as a float
//! component plus a constant.
//!
//! The array's uniform layout ([`super::io::UniformLayout::Whole`]) holds every element from
//! `base` and one zero register after them, so the IR's out-of-range rule (an element outside
//! the array reads 0) is a clamp: `i = t + (t < 0)·10^30` (negative and NaN indices become
//! huge), `i = min(i, len)` (`min` also turns NaN into `len`), and the element is read by a
//! `mov` from `vc[i + base]` into a temporary ([`super::MInst::indirect`]): AGAL truncates the
//! index lane, which is an exact integer here.

use irc_backend::Diagnostic;
use irc_ir::format::{Arith, CompositeConstruct, CompositeExtract, Constant};
use irc_ir::{OpCode, SsaDef};

use super::io;
use super::{Base, Comp, Comps, Lower, MDst, MInst, MSrc};
use crate::isa::{Opcode, ShaderKind};

/// A relative constant read: the `vc` register offset and the components read, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndirectRead {
    pub offset: u32,
    pub comps: Vec<u8>,
}

/// Largest indirect offset emitted (Adobe's `agal.h` declares the field `int8_t`, §7.5).
const MAX_OFFSET: u32 = 127;

impl Lower<'_> {
    /// The components of integer index `d`: a float component (or none) plus a constant.
    pub(super) fn index_comps(
        &mut self,
        d: SsaDef,
    ) -> Result<Vec<(Option<Comp>, i64)>, Diagnostic> {
        let op = self.m.op(d).clone();
        let unsupported = |what: &str| Diagnostic::unsupported(Some((d, op.opcode)), what);
        match op.opcode {
            OpCode::Constant => {
                let n = io::flat_size(&op.ty).unwrap_or(1).min(4) as usize;
                let signed = op
                    .ty
                    .as_basic()
                    .is_some_and(|b| b.scalar_type().is_signed_int());
                Ok((0..n)
                    .map(|i| {
                        let bits = Constant::of(&op).scalar(i).unwrap_or(0);
                        let k = if signed {
                            i64::from(bits as u32 as i32)
                        } else {
                            i64::from(bits as u32)
                        };
                        (None, k)
                    })
                    .collect())
            }
            OpCode::Cast => self.index_comps(
                Arith::of(&op)
                    .a()
                    .ok_or_else(|| unsupported("no operand"))?,
            ),
            OpCode::ConvertFtoI => {
                let a = self.val(d, Arith::of(&op).a())?;
                Ok(a.into_iter().map(|c| (Some(c), 0)).collect())
            }
            OpCode::IAdd => {
                let v = Arith::of(&op);
                let (a, b) = (
                    v.a().ok_or_else(|| unsupported("no operand"))?,
                    v.b().ok_or_else(|| unsupported("no operand"))?,
                );
                let (a, b) = (self.index_comps(a)?, self.index_comps(b)?);
                if a.len() != b.len() {
                    return Err(unsupported("index sum of unequal widths"));
                }
                a.into_iter()
                    .zip(b)
                    .map(|((ca, ka), (cb, kb))| match (ca, cb) {
                        (Some(_), Some(_)) => Err(unsupported(
                            "a sum of two dynamic indices (AGAL reads one index lane)",
                        )),
                        (c, None) | (None, c) => Ok((c, ka + kb)),
                    })
                    .collect()
            }
            OpCode::CompositeExtract => {
                let x = CompositeExtract::of(&op);
                let i = io::const_index(self.m, x.address())
                    .ok_or_else(|| unsupported("dynamic composite index"))?;
                let v =
                    self.index_comps(x.composite().ok_or_else(|| unsupported("no operand"))?)?;
                let c = v
                    .get(i as usize)
                    .copied()
                    .ok_or_else(|| unsupported("composite index out of range"))?;
                Ok(vec![c])
            }
            OpCode::CompositeConstruct => {
                let mut out = Vec::new();
                for m in CompositeConstruct::of(&op).members() {
                    let m = m.as_ref().ok_or_else(|| unsupported("no operand"))?;
                    out.extend(self.index_comps(m)?);
                }
                Ok(out)
            }
            o => Err(unsupported(&format!(
                "a dynamic constant index computed by {o:?}"
            ))),
        }
    }

    /// Components `comp..comp + width` of element `index` (dynamic) of the array laid out at
    /// `base` with `len` elements and a zero register after them.
    pub(super) fn relative_load(
        &mut self,
        d: SsaDef,
        index: SsaDef,
        base: u32,
        len: u32,
        comp: u8,
        width: u8,
    ) -> Result<Comps, Diagnostic> {
        if self.kind != ShaderKind::Vertex {
            return Err(self.diag(
                d,
                "dynamically indexed constants in a fragment program (AGAL allows relative \
                 addressing in vertex programs only, #3639)",
            ));
        }
        if base > MAX_OFFSET {
            return Err(Diagnostic::limit(format!(
                "a dynamically indexed constant array at vc{base} (relative offsets above \
                 {MAX_OFFSET} are not portable)"
            )));
        }
        let ix = self.index_comps(index)?;
        let (c, k) = match ix.first() {
            Some(&(Some(c), k)) => (c, k),
            Some(&(None, k)) => {
                // Not dynamic after all.
                let e = if (0..i64::from(len)).contains(&k) {
                    k as u32
                } else {
                    len
                };
                let slot = base + e;
                return Ok((0..width).map(|i| Comp::Const(slot, comp + i)).collect());
            }
            None => return Err(self.diag(d, "empty constant index")),
        };
        let k = k.clamp(-(1 << 24), 1 << 24) as f32;
        let t = if k == 0.0 {
            vec![c]
        } else {
            self.alu(Opcode::Add, &[&[c], &[Comp::Lit(k)]], 1)
        };
        let neg = self.alu(Opcode::Slt, &[&t, &[Comp::Lit(0.0)]], 1);
        let big = self.alu(Opcode::Mul, &[&neg, &[Comp::Lit(1e30)]], 1);
        let i = self.alu(Opcode::Add, &[&t, &big], 1);
        let i = self.alu(Opcode::Min, &[&i, &[Comp::Lit(len as f32)]], 1);
        let idx = match self.src(&i) {
            s @ MSrc {
                base: Base::V(_), ..
            } => s,
            s => self.in_temp(&s),
        };
        let v = self.new_vreg(width, false);
        self.prog.insts.push(MInst {
            op: Opcode::Mov,
            dst: MDst::V {
                v,
                first: 0,
                n: width,
            },
            srcs: vec![idx],
            sampler: None,
            indirect: Some(IndirectRead {
                offset: base,
                comps: (comp..comp + width).collect(),
            }),
        });
        self.producer.insert(v, self.prog.insts.len() - 1);
        Ok((0..width).map(|i| Comp::V(v, i)).collect())
    }
}
