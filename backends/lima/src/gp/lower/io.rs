//! Lowering of declarations, inputs (attributes, D3D9 float constants, constant buffers),
//! constants and output stores.

use irc_backend::ir_reads::constant_lanes;
use irc_backend::{Diagnostic, IoSource, OutputBinding, Reflection, VaryingBinding};
use irc_ir::format::{
    AlignedLoad, Arith, CompositeConstruct, Constant, DclBinding, DclInput, DclInputBuiltIn,
    DclOutput, DclOutputBuiltIn, DescriptorLoad, Load, Store,
};
use irc_ir::{BuiltIn, OpCode, SsaDef};

pub use irc_backend::io_plan::{const_index, flat_size};

use super::super::isa::{ATTRIBUTES, VARYINGS};
use super::super::mir::{Op, Operand, Src};
use super::{Comps, Lower, OutDecl, RelLayout, UniKey, C};

impl Lower<'_> {
    /// Inputs → attributes `a<location>`; outputs → varyings: the position in v0, the others
    /// in declaration order from v1, or, in a program (`layout`: the inputs of the pixel
    /// stage), output location `L` component `c` where the layout puts it, slot `s` lane `l`
    /// becoming varying `s + 1` component `l` (v0 is the position; the pixel processor's
    /// varyings are numbered without it). Outputs no later stage reads are dropped.
    pub(super) fn declare(
        &mut self,
        r: &mut Reflection,
        layout: Option<&[VaryingBinding]>,
    ) -> Result<(), Diagnostic> {
        let m = self.m;
        let mut outs: Vec<(u32, SsaDef, IoSource, usize)> = Vec::new();
        for d in m.declarations() {
            let op = m.op(d);
            match op.opcode {
                OpCode::DclInput => {
                    let decl = DclInput::of(op);
                    let loc = decl.location().unwrap_or(0) as u32;
                    let c0 = decl.component().unwrap_or(0) as u8;
                    let n = flat_size(&op.ty).unwrap_or(0) as u8;
                    if op.ty.is_array() || n == 0 || c0 + n > 4 || loc as usize >= ATTRIBUTES {
                        return Err(self.diag(d, "input array or input beyond a15"));
                    }
                    if !op.ty.is_basic_where(|s| s.is_float()) {
                        return Err(self.diag(d, "integer or boolean vertex inputs"));
                    }
                    r.varyings.push(VaryingBinding {
                        source: IoSource::Location {
                            location: loc,
                            component: u32::from(c0),
                        },
                        slot: loc,
                        lane: c0,
                        components: n,
                    });
                }
                OpCode::DclOutput | OpCode::DclOutputBuiltIn => {
                    let n = flat_size(&op.ty)
                        .filter(|&n| (1..=8).contains(&n))
                        .ok_or_else(|| self.diag(d, "output wider than 8 components"))?
                        as usize;
                    let (key, src) = if op.opcode == OpCode::DclOutput {
                        let decl = DclOutput::of(op);
                        let loc = decl.location().unwrap_or(0) as u32;
                        let c = decl.component().unwrap_or(0) as u32;
                        (
                            1 + 4 * loc + c,
                            IoSource::Location {
                                location: loc,
                                component: c,
                            },
                        )
                    } else {
                        let b = DclOutputBuiltIn::of(op)
                            .builtin()
                            .and_then(BuiltIn::from_u64)
                            .ok_or_else(|| self.diag(d, "invalid built-in"))?;
                        let key = match b {
                            BuiltIn::Position => 0,
                            // No clipping against user planes on the GP: clip and cull
                            // distances are ordinary varyings (a pixel stage can discard on
                            // them), after the others.
                            BuiltIn::PointSize | BuiltIn::ClipDistance | BuiltIn::CullDistance => {
                                1000 + b.to_u64() as u32
                            }
                            _ => return Err(self.diag(d, format!("output built-in {b:?}"))),
                        };
                        (key, IoSource::BuiltIn(b))
                    };
                    if !op.ty.members().iter().all(|m| m.scalar_type().is_float()) {
                        return Err(self.diag(d, "integer or boolean outputs"));
                    }
                    outs.push((key, d, src, n));
                }
                _ => {}
            }
        }
        outs.sort_by_key(|o| o.0);
        // Varying 0 is the position (reference §10), whether or not the shader writes it.
        let mut varying = match layout {
            Some(l) => l.iter().map(|v| v.slot as usize + 2).max().unwrap_or(1),
            None => 1usize,
        };
        for (key, d, target, n) in outs {
            let linked = match (layout, target) {
                (
                    Some(l),
                    IoSource::Location {
                        location,
                        component,
                    },
                ) => Some((l, location, component)),
                _ => None,
            };
            let dests: Vec<Option<(u8, u8)>> = if let Some((l, location, component)) = linked {
                (0..n as u32)
                    .map(|i| {
                        let c = component + i;
                        l.iter().find_map(|v| match v.source {
                            IoSource::Location {
                                location: vl,
                                component: vc,
                            } if vl == location
                                && (vc..vc + u32::from(v.components)).contains(&c) =>
                            {
                                let lane = u32::from(v.lane) + c - vc;
                                Some(((v.slot + 1 + lane / 4) as usize, (lane % 4) as u8))
                            }
                            _ => None,
                        })
                    })
                    .map(|x| x.and_then(|(v, c)| (v < VARYINGS).then_some((v as u8, c))))
                    .collect()
            } else {
                let v = if key == 0 {
                    0
                } else {
                    varying += n.div_ceil(4);
                    varying - n.div_ceil(4)
                };
                if v + n.div_ceil(4) > VARYINGS {
                    return Err(Diagnostic::limit(format!(
                        "more output components than the {VARYINGS} varying vec4s hold"
                    )));
                }
                (0..n)
                    .map(|i| Some(((v + i / 4) as u8, (i % 4) as u8)))
                    .collect()
            };
            if let Some(&Some((v, _))) = dests.iter().find(|x| x.is_some()) {
                r.outputs.push(OutputBinding {
                    target,
                    register: u32::from(v),
                    components: n as u8,
                });
            }
            self.outputs.insert(
                d,
                OutDecl {
                    dests,
                    comps: vec![None; n],
                    target,
                },
            );
        }
        r.outputs.sort_by_key(|o| o.register);
        Ok(())
    }

    pub(super) fn constant(&self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let lanes = constant_lanes(self.m, d, 64).map_err(|e| self.diag(d, e))?;
        let mut out = Comps::new();
        for lane in lanes {
            if lane.ty.is_float() && lane.ty.byte_size() != 4 && lane.ty.byte_size() != 8 {
                return Err(self.diag(d, "16-bit float constant"));
            }
            out.push(C::lit(lane.value));
        }
        Ok(out)
    }

    pub(super) fn input_load(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d);
        let load = Load::of(op);
        let decl = load.base().ok_or_else(|| self.diag(d, "no declaration"))?;
        let dop = self.m.op(decl);
        let width = flat_size(&op.ty).unwrap_or(0) as usize;
        if let Some(kind) = irc_backend::ir_reads::int_or_bool_registers(self.m, decl) {
            let (Some(idx), Some(comp)) = self.element_address(load.address()) else {
                return Err(self.diag(d, format!("dynamically indexed {kind:?} register")));
            };
            if idx >= 16 || comp as usize + width > 4 {
                return Err(self.diag(d, format!("{kind:?} register {idx} out of range")));
            }
            return Ok(self.uniform_comps(
                UniKey::LegacyOther(kind, idx as u32),
                comp as u8,
                width,
            ));
        }
        match dop.opcode {
            OpCode::DclInput => {
                let input = DclInput::of(dop);
                let loc = input.location().unwrap_or(0) as u8;
                let c0 = input.component().unwrap_or(0) as u8;
                let first = match load.address() {
                    None => 0,
                    Some(a) => const_index(self.m, Some(a))
                        .ok_or_else(|| self.diag(d, "dynamically indexed input"))?
                        as u8,
                };
                if usize::from(c0 + first) + width > 4 {
                    return Err(self.diag(d, "input load past the attribute vec4"));
                }
                Ok((0..width as u8)
                    .map(|i| {
                        C::V(Operand {
                            src: Src::Attr(loc, c0 + first + i),
                            neg: false,
                        })
                    })
                    .collect())
            }
            OpCode::DclInputBuiltIn
                if DclInputBuiltIn::of(dop).builtin()
                    == Some(BuiltIn::LegacyConstFloat.to_u64()) =>
            {
                let (idx, comp) = self.element_address(load.address());
                let (Some(idx), Some(comp)) = (idx, comp) else {
                    return self.relative_load(d, load.address(), width);
                };
                if idx >= 256
                    || comp as usize + width > 4
                    || self.rel.is_some_and(|r| idx >= u64::from(r.len))
                {
                    return Err(Diagnostic::limit(format!(
                        "float constant c{idx}: at most c0–c255"
                    )));
                }
                Ok(self.uniform_comps(UniKey::Legacy(idx as u32), comp as u8, width))
            }
            _ => Err(self.diag(
                d,
                "input of this kind (only vertex inputs and D3D9 constants)",
            )),
        }
    }

    /// `(float base, k)` of a dynamic constant index `[Cast] (ConvertFtoI(base) ± k…)`.
    pub(super) fn rel_index(&self, a: SsaDef) -> Option<(SsaDef, i64)> {
        let op = self.m.op(a);
        let ar = Arith::of(op);
        let int = |x: SsaDef| -> Option<i64> {
            let o = self.m.op(x);
            let t = o.ty.as_scalar()?;
            if o.opcode != OpCode::Constant || !t.is_int() {
                return None;
            }
            let bits = Constant::of(o).scalar(0)?;
            Some(if t.is_signed_int() {
                bits as i32 as i64
            } else {
                bits as u32 as i64
            })
        };
        match op.opcode {
            OpCode::Cast => self.rel_index(ar.a()?),
            OpCode::ConvertFtoI => Some((ar.a()?, 0)),
            OpCode::IAdd | OpCode::ISub => {
                let (x, y) = (ar.a()?, ar.b()?);
                let sign = if op.opcode == OpCode::ISub { -1 } else { 1 };
                let k = match (int(x), int(y)) {
                    (_, Some(c)) => return self.rel_index(x).map(|(b, k)| (b, k + sign * c)),
                    (Some(c), None) if sign == 1 => c,
                    _ => return None,
                };
                self.rel_index(y).map(|(b, j)| (b, j + k))
            }
            _ => None,
        }
    }

    /// The range of `k` over the dynamically indexed D3D9 float constant loads among `ops`.
    pub(super) fn scan_relative(&self, ops: &[SsaDef]) -> Result<Option<RelLayout>, Diagnostic> {
        let mut range: Option<RelLayout> = None;
        for &d in ops {
            let op = self.m.op(d);
            if op.opcode != OpCode::InputLoad {
                continue;
            }
            let load = Load::of(op);
            let legacy = load.base().is_some_and(|b| {
                let bop = self.m.op(b);
                bop.opcode == OpCode::DclInputBuiltIn
                    && DclInputBuiltIn::of(bop).builtin()
                        == Some(BuiltIn::LegacyConstFloat.to_u64())
            });
            if !legacy || self.element_address(load.address()).0.is_some() {
                continue;
            }
            let len = load
                .base()
                .and_then(|b| self.m.op(b).ty.array_dims().first().copied())
                .filter(|&n| (1..=256).contains(&n))
                .ok_or_else(|| self.diag(d, "float constant array of unknown length"))?;
            let Some((_, k)) = load.address().and_then(|a| self.rel_index(a)) else {
                continue;
            };
            if !(-64..=320).contains(&k) {
                return Err(self.diag(d, "relative constant offset outside −64..320"));
            }
            range = Some(match range {
                None => RelLayout {
                    len,
                    kmin: k,
                    kmax: k,
                },
                Some(r) => RelLayout {
                    len: r.len.max(len),
                    kmin: r.kmin.min(k),
                    kmax: r.kmax.max(k),
                },
            });
        }
        Ok(range)
    }

    /// `c[a + k]` (module doc of [`RelLayout`]): a load of the uniform at `c<k>`'s slot plus
    /// the address register holding the clamped base `a`.
    fn relative_load(
        &mut self,
        d: SsaDef,
        address: Option<SsaDef>,
        width: usize,
    ) -> Result<Comps, Diagnostic> {
        let m = self.m;
        let unsupported = || {
            Diagnostic::unsupported(
                Some((d, m.opcode(d))),
                "dynamically indexed float constants with an index not of the form \
                 ConvertFtoI(x) + k",
            )
        };
        let a = address.ok_or_else(unsupported)?;
        if width > 4 || self.m.opcode(a) == OpCode::CompositeConstruct {
            return Err(unsupported());
        }
        let (base, k) = self.rel_index(a).ok_or_else(unsupported)?;
        let rel = self
            .rel
            .ok_or_else(|| Diagnostic::internal(Some((d, OpCode::InputLoad)), "no layout"))?;
        let node = match self.addr_nodes.get(&base) {
            Some(&n) => n,
            None => {
                let x = self.value(base)?;
                let &[x] = x.as_slice() else {
                    return Err(unsupported());
                };
                // ConvertFtoI truncates: exact already for a rounded value.
                let integral = matches!(self.m.opcode(base), OpCode::FRound);
                let x = if integral { x } else { self.trunc(x) };
                let hi = self.emit(
                    Op::Min,
                    &[x, C::lit((i64::from(rel.len) - rel.kmin) as f32)],
                );
                let lo = self.emit(Op::Max, &[hi, C::lit((-rel.kmax - 1) as f32)]);
                let src = self.operand(lo);
                let n = self.prog.push(Op::SetAddr, &[src]);
                self.addr_nodes.insert(base, n);
                n
            }
        };
        let id = self.uniform_id(UniKey::LegacyRel(k as i32));
        Ok((0..width as u8)
            .map(|i| {
                C::V(Operand {
                    src: Src::UniRel(id, node, i),
                    neg: false,
                })
            })
            .collect())
    }

    /// `trunc(x) = sign(x)·floor(|x|)`.
    fn trunc(&mut self, x: C) -> C {
        let abs = self.emit(Op::Max, &[x, x.negated()]);
        let f = self.emit(Op::Floor, &[abs]);
        let s = self.emit(Op::Sign, &[x]);
        self.emit(Op::Mul, &[s, f])
    }

    fn uniform_comps(&mut self, k: UniKey, comp: u8, width: usize) -> Comps {
        let id = self.uniform_id(k);
        (0..width as u8)
            .map(|i| {
                C::V(Operand {
                    src: Src::Uni(id, comp + i),
                    neg: false,
                })
            })
            .collect()
    }

    /// (element, component) of a constant address: a scalar element, a `CompositeConstruct`
    /// of two constants, or a two-component constant.
    fn element_address(&self, a: Option<SsaDef>) -> (Option<u64>, Option<u64>) {
        match a.map(|a| self.m.op(a)) {
            Some(aop) if aop.opcode == OpCode::CompositeConstruct => {
                let members = CompositeConstruct::of(aop).members();
                (
                    const_index(self.m, members.first().and_then(|o| o.as_ref())),
                    const_index(self.m, members.get(1).and_then(|o| o.as_ref())),
                )
            }
            Some(aop) if aop.opcode == OpCode::Constant && flat_size(&aop.ty) == Some(2) => {
                let values = Constant::of(aop);
                (values.scalar(0), values.scalar(1))
            }
            _ => (const_index(self.m, a), Some(0)),
        }
    }

    pub(super) fn buffer_load(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d);
        let load = AlignedLoad::of(op);
        let decl = match load.base().map(|x| self.m.op(x)) {
            Some(dop) if dop.opcode == OpCode::DescriptorLoad => DescriptorLoad::of(dop).decl(),
            _ => None,
        }
        .ok_or_else(|| self.diag(d, "buffer load without a descriptor"))?;
        let dop = self.m.op(decl);
        if dop.opcode != OpCode::DclCbv {
            return Err(self.diag(d, "loads from buffers other than constant buffers"));
        }
        if !op.ty.is_basic_where(|s| s.is_float()) {
            return Err(self.diag(d, "integer constant-buffer data"));
        }
        let binding = irc_backend::ResourceBinding {
            space: DclBinding::of(dop).space().unwrap_or(0) as u32,
            register: DclBinding::of(dop).register().unwrap_or(0) as u32,
        };
        let width = flat_size(&op.ty).unwrap_or(0) as usize;
        let (Some(e), Some(c)) = self.element_address(load.address()) else {
            return Err(self.diag(
                d,
                "dynamically indexed constant buffers (relative addressing through the \
                 address registers is not lowered yet)",
            ));
        };
        if c as usize + width > 4 || e > 4096 {
            return Err(self.diag(d, "constant-buffer load across a vec4"));
        }
        Ok(self.uniform_comps(UniKey::Cbuffer(binding, e as u32), c as u8, width))
    }

    /// `ConvertItoF` of a lane of a D3D9 integer constant register (the only integer the
    /// `int-to-float` pass leaves converted): the register is uploaded as floats, so the lane
    /// is the uniform component itself.
    pub(super) fn int_register_lane(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let lanes = irc_backend::ir_reads::int_register_lanes(self.m, d)
            .ok_or_else(|| self.diag(d, "conversion of an integer other than a D3D9 `i#` lane"))?;
        let mut out = Comps::new();
        for (load, lane) in lanes {
            let c = *self
                .value(load)?
                .get(lane)
                .ok_or_else(|| self.diag(d, "lane out of range"))?;
            out.push(c);
        }
        Ok(out)
    }

    pub(super) fn output_store(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        self.check_output_block(d)?;
        let op = self.m.op(d);
        let store = Store::of(op);
        let decl = store.base().ok_or_else(|| self.diag(d, "no declaration"))?;
        let first = match store.address() {
            None => 0,
            Some(a) => const_index(self.m, Some(a))
                .ok_or_else(|| self.diag(d, "dynamically indexed output"))?
                as usize,
        };
        let value = store
            .value()
            .ok_or_else(|| self.diag(d, "store without a value"))?;
        let v = self.value(value)?;
        let Some(out) = self.outputs.get_mut(&decl) else {
            return Err(self.diag(d, "store to an undeclared output"));
        };
        for (i, c) in v.into_iter().enumerate() {
            let slot = out
                .comps
                .get_mut(first + i)
                .ok_or_else(|| Diagnostic::unsupported(None, "output index out of range"))?;
            *slot = Some(c);
        }
        Ok(())
    }
}
