//! The uniform/varying/sampler plan every lowering shares: where each IR declaration's data
//! lives in a target's vec4 uniform slots, varying slots and sampler indices, and the
//! [`Reflection`] that tells the driver. lima-fp and AGAL use it whole; lima-vp and PICA use
//! its helpers ([`flat_size`], [`const_index`]).
//!
//! * **Varyings**: `DclInput` at location `L` is varying slot `L` (vec4 units, component `c` in
//!   lane `c`), recorded with [`IoPlan::varying`].
//! * **Uniforms** (vec4 slots): the D3D9 constant registers first — only the registers the
//!   shader reads, densely packed, unless it indexes an array dynamically (then the whole
//!   array, plus one zero slot that out-of-range indices are clamped to, which is what the
//!   IR's robust constant reads return) —, then constant buffers the same way, then the
//!   literal pool (compiler constants packed four to a slot, deduplicated by bits, reported as
//!   [`UniformSource::Literal`]).
//! * **Samplers**: one hardware sampler index per (texture, sampler) pair, in order of first
//!   use.

use crate::reflection::ResourceBinding;
use crate::{
    Diagnostic, IoSource, Reflection, SamplerBinding, SamplerKind, UniformBinding, UniformSource,
    VaryingBinding,
};
use irc_ir::format::{
    AlignedLoad, CompositeConstruct, Constant, DclBinding, DclInputBuiltIn, DescriptorLoad, Load,
};
use irc_ir::{BuiltIn, Module, OpCode, SsaDef, Type};
use rustc_hash::FxHashMap;

/// Number of flattened scalar components of a type (None for unbounded/huge types).
pub fn flat_size(t: &Type) -> Option<u64> {
    let per: u64 = t.members().iter().map(|m| u64::from(m.vec_size())).sum();
    let mut n = per;
    for &d in t.array_dims() {
        if d == 0 {
            return None;
        }
        n = n.checked_mul(u64::from(d))?;
    }
    Some(n)
}

/// How an array of vec4 constants maps to uniform slots.
#[derive(Debug, Clone)]
pub enum UniformLayout {
    /// Used element → slot.
    Dense(FxHashMap<u32, u32>),
    /// Element `i` at `base + i`; `len` elements, slot `base + len` holds zero.
    Whole { base: u32, len: u32 },
}

/// A uniform-backed declaration.
#[derive(Debug, Clone)]
pub struct UniformArray {
    pub layout: UniformLayout,
}

#[derive(Debug, Clone, Copy)]
pub enum UniformArraySource {
    Legacy(BuiltIn),
    Cbuffer(ResourceBinding),
}

/// The I/O plan of a lowering (see the module docs).
#[derive(Debug, Default)]
pub struct IoPlan {
    pub arrays: FxHashMap<SsaDef, UniformArray>,
    pub next_slot: u32,
    pub uniforms: Vec<UniformBinding>,
    pub literals: Vec<[f32; 4]>,
    literal_fill: usize,
    literal_base: u32,
    pub varyings: Vec<VaryingBinding>,
    pub special: Vec<BuiltIn>,
    pub samplers: Vec<SamplerBinding>,
    sampler_index: FxHashMap<(ResourceBinding, Option<ResourceBinding>), u32>,
    pub discards: bool,
}

/// Constant index of an address operand, if it is a constant.
pub fn const_index(m: &Module, d: Option<SsaDef>) -> Option<u64> {
    let d = d?;
    let op = m.op(d);
    if op.opcode != OpCode::Constant {
        return None;
    }
    let bits = Constant::of(op).scalar(0)?;
    let t = op.ty.as_scalar()?;
    if t.is_float() {
        let f = f32::from_bits(bits as u32);
        (f >= 0.0 && f.fract() == 0.0).then_some(f as u64)
    } else {
        Some(bits)
    }
}

impl IoPlan {
    pub fn new(m: &Module) -> Result<IoPlan, Diagnostic> {
        let mut io = IoPlan::default();
        // Which elements of each uniform array are read, and whether any index is dynamic.
        let mut used: FxHashMap<SsaDef, (Vec<u32>, bool)> = FxHashMap::default();
        for d in m.code() {
            let op = m.op(d);
            let (decl, addr) = match op.opcode {
                OpCode::InputLoad => (Load::of(op).base(), Load::of(op).address()),
                OpCode::BufferLoad => {
                    let desc = AlignedLoad::of(op).base().map(|x| m.op(x));
                    match desc {
                        Some(dop) if dop.opcode == OpCode::DescriptorLoad => (
                            DescriptorLoad::of(dop).decl(),
                            AlignedLoad::of(op).address(),
                        ),
                        _ => continue,
                    }
                }
                _ => continue,
            };
            let Some(decl) = decl else { continue };
            let dop = m.op(decl);
            let is_uniform = match dop.opcode {
                OpCode::DclInputBuiltIn => matches!(
                    DclInputBuiltIn::of(dop)
                        .builtin()
                        .and_then(BuiltIn::from_u64),
                    Some(
                        BuiltIn::LegacyConstFloat
                            | BuiltIn::LegacyConstInt
                            | BuiltIn::LegacyConstBool
                    )
                ),
                OpCode::DclCbv => true,
                _ => false,
            };
            if !is_uniform {
                continue;
            }
            let e = used.entry(decl).or_default();
            // The element index is the first component of the address.
            let elem = addr.and_then(|a| {
                let aop = m.op(a);
                if aop.opcode == OpCode::Constant {
                    Constant::of(aop).scalar(0).map(|v| {
                        if aop
                            .ty
                            .as_basic()
                            .is_some_and(|b| b.scalar_type().is_float())
                        {
                            f32::from_bits(v as u32) as u64
                        } else {
                            v
                        }
                    })
                } else if aop.opcode == OpCode::CompositeConstruct {
                    const_index(
                        m,
                        CompositeConstruct::of(aop)
                            .members()
                            .first()
                            .and_then(|o| o.as_ref()),
                    )
                } else {
                    None
                }
            });
            match elem {
                Some(i) => e.0.push(i as u32),
                None => e.1 = true,
            }
        }
        let mut decls: Vec<SsaDef> = used.keys().copied().collect();
        decls.sort_by_key(|&d| {
            let op = m.op(d);
            let is_builtin = op.opcode == OpCode::DclInputBuiltIn;
            let (a, b) = if is_builtin {
                (DclInputBuiltIn::of(op).builtin(), None)
            } else {
                (DclBinding::of(op).space(), DclBinding::of(op).register())
            };
            (!is_builtin, a, b, d)
        });
        for d in decls {
            let (mut elems, dynamic) = used.remove(&d).unwrap_or_default();
            let op = m.op(d);
            // An array of vec4, or (dxbc-spirv's legalized, structured constant buffers) a
            // struct whose members are all 32-bit vec4s: member `i` is element `i` (16 bytes
            // each, the IR's scalar-aligned layout).
            let members = op.ty.members();
            let dims = op.ty.array_dims();
            let vec4 =
                |b: &irc_ir::BasicType| b.vec_size() == 4 && b.scalar_type().byte_size() == 4;
            let shape_ok = members.iter().all(vec4)
                && (members.len() == 1 || dims.is_empty())
                && dims.len() <= 1;
            let len = if members.len() > 1 {
                members.len() as u32
            } else {
                dims.first().copied().unwrap_or(1)
            };
            let source = if op.opcode == OpCode::DclCbv {
                UniformArraySource::Cbuffer(ResourceBinding {
                    space: DclBinding::of(op).space().unwrap_or(0) as u32,
                    register: DclBinding::of(op).register().unwrap_or(0) as u32,
                })
            } else {
                UniformArraySource::Legacy(
                    DclInputBuiltIn::of(op)
                        .builtin()
                        .and_then(BuiltIn::from_u64)
                        .unwrap_or(BuiltIn::LegacyConstFloat),
                )
            };
            if !shape_ok {
                return Err(Diagnostic::unsupported(
                    Some((d, op.opcode)),
                    "constant data that is neither an array of vec4 nor a struct of vec4s",
                ));
            }
            let layout = if dynamic {
                let base = io.next_slot;
                io.next_slot += len + 1;
                for i in 0..len {
                    io.uniforms.push(binding(base + i, source, i));
                }
                io.uniforms.push(UniformBinding {
                    slot: base + len,
                    source: UniformSource::Literal([0.0; 4]),
                });
                UniformLayout::Whole { base, len }
            } else {
                elems.sort_unstable();
                elems.dedup();
                let mut map = FxHashMap::default();
                for i in elems {
                    let slot = io.next_slot;
                    io.next_slot += 1;
                    map.insert(i, slot);
                    io.uniforms.push(binding(slot, source, i));
                }
                UniformLayout::Dense(map)
            };
            io.arrays.insert(d, UniformArray { layout });
        }
        io.literal_base = io.next_slot;
        Ok(io)
    }

    /// The uniform slot and lane of a literal.
    pub fn literal(&mut self, value: f32) -> (u32, u8) {
        for (i, l) in self.literals.iter().enumerate() {
            let lanes = if i + 1 == self.literals.len() {
                self.literal_fill
            } else {
                4
            };
            if let Some(j) = l[..lanes]
                .iter()
                .position(|&x| x.to_bits() == value.to_bits())
            {
                return (self.literal_base + i as u32, j as u8);
            }
        }
        if self.literals.is_empty() || self.literal_fill == 4 {
            self.literals.push([0.0; 4]);
            self.literal_fill = 0;
        }
        let i = self.literals.len() - 1;
        self.literals[i][self.literal_fill] = value;
        self.literal_fill += 1;
        (self.literal_base + i as u32, self.literal_fill as u8 - 1)
    }

    /// The hardware sampler index of a (texture, sampler) pair.
    pub fn sampler(
        &mut self,
        texture: ResourceBinding,
        sampler: Option<ResourceBinding>,
        kind: SamplerKind,
    ) -> u32 {
        let n = self.sampler_index.len() as u32;
        let idx = *self.sampler_index.entry((texture, sampler)).or_insert(n);
        if idx == n {
            self.samplers.push(SamplerBinding {
                index: idx,
                texture,
                sampler,
                kind,
            });
        }
        idx
    }

    /// Records that varying `source` is read (slot = location).
    pub fn varying(&mut self, source: IoSource, slot: u32, components: u8) {
        if let Some(v) = self.varyings.iter_mut().find(|v| v.source == source) {
            v.components = v.components.max(components);
            return;
        }
        let lane = match source {
            IoSource::Location { component, .. } => component as u8,
            IoSource::BuiltIn(_) => 0,
        };
        self.varyings.push(VaryingBinding {
            source,
            slot,
            lane,
            components,
        });
    }

    pub fn special(&mut self, b: BuiltIn) {
        if !self.special.contains(&b) {
            self.special.push(b);
        }
    }

    /// The reflection of everything recorded (output registers and the target's own part are
    /// filled in by the target after register allocation).
    pub fn reflection(&self) -> Reflection {
        let mut uniforms = self.uniforms.clone();
        for (i, l) in self.literals.iter().enumerate() {
            uniforms.push(UniformBinding {
                slot: self.literal_base + i as u32,
                source: UniformSource::Literal(*l),
            });
        }
        let mut varyings = self.varyings.clone();
        varyings.sort_by_key(|v| (v.slot, v.lane));
        Reflection {
            varyings,
            uniforms,
            uniform_slots: self.literal_base + self.literals.len() as u32,
            samplers: self.samplers.clone(),
            outputs: Vec::new(),
            discards: self.discards,
            target: None,
        }
    }
}

fn binding(slot: u32, source: UniformArraySource, i: u32) -> UniformBinding {
    UniformBinding {
        slot,
        source: match source {
            UniformArraySource::Legacy(kind) => UniformSource::Legacy { kind, index: i },
            UniformArraySource::Cbuffer(b) => UniformSource::ConstantBuffer {
                binding: b,
                vec4_index: i,
                int_lanes: 0,
            },
        },
    }
}

impl IoPlan {
    /// The uniform slot and lanes of a vector of literals, all in one register (so that one
    /// source operand reads them): a register that holds them all, else the last register if
    /// the missing ones fit, else a new one.
    pub fn literal_vec(&mut self, values: &[f32]) -> (u32, Vec<u8>) {
        let find =
            |l: &[f32; 4], n: usize, x: f32| l[..n].iter().position(|y| y.to_bits() == x.to_bits());
        let count = self.literals.len();
        for (i, l) in self.literals.iter().enumerate() {
            let n = if i + 1 == count { self.literal_fill } else { 4 };
            let lanes: Option<Vec<u8>> = values
                .iter()
                .map(|&x| find(l, n, x).map(|p| p as u8))
                .collect();
            if let Some(lanes) = lanes {
                return (self.literal_base + i as u32, lanes);
            }
        }
        let mut distinct: Vec<f32> = Vec::new();
        for &x in values {
            if !distinct.iter().any(|y| y.to_bits() == x.to_bits()) {
                distinct.push(x);
            }
        }
        if let Some(l) = self.literals.last() {
            let missing = distinct
                .iter()
                .filter(|&&x| find(l, self.literal_fill, x).is_none())
                .count();
            if self.literal_fill + missing > 4 {
                self.literal_fill = 4;
            }
        }
        if self.literals.is_empty() || self.literal_fill == 4 {
            self.literals.push([0.0; 4]);
            self.literal_fill = 0;
        }
        let i = self.literals.len() - 1;
        let mut lanes = Vec::new();
        for &x in values {
            let p = match find(&self.literals[i], self.literal_fill, x) {
                Some(p) => p,
                None => {
                    self.literals[i][self.literal_fill] = x;
                    self.literal_fill += 1;
                    self.literal_fill - 1
                }
            };
            lanes.push(p as u8);
        }
        (self.literal_base + i as u32, lanes)
    }
}
