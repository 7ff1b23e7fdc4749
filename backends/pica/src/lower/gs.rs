//! Geometry-shader lowering for `pica-gs`: the per-vertex inputs in the "point" GS mode layout,
//! and D3D's `EmitVertex`/`EmitPrimitive` as `SETEMIT`/`EMIT`.
//!
//! # Inputs (reference §2, §13; picasso's `.gsh point` example shader)
//!
//! In point mode the PICA200 collects the outputs of the vertex shader of `n` consecutive
//! vertices (`n` = the input primitive's vertex count) and starts the geometry shader with them
//! in `v0–v15`: vertex `j`'s `a`-th output register (in the vertex shader's output-mask order) is
//! `v(j·k + a)`, `k` being the number of output registers per vertex (libctru's
//! `shaderProgramSetGsh` "stride"). The attributes a geometry shader reads are numbered `a` in
//! the order the vertex side gives its output registers (`Position` first, then by location and
//! component, as `pica-vs` numbers its `o` registers), so a vertex shader writing exactly those
//! outputs feeds it without a map; in a program the vertex shader is compiled with this layout
//! (`output_layout`). A packed input (location component `c > 0`) is read from lane x of its
//! register, as `pica-vs` writes packed outputs. The reflection lists vertex 0's binding of
//! each attribute (`slot` = `a`); [`GsLayout`] gives `n` and `k` for the other vertices.
//!
//! # Emission
//!
//! D3D emits triangle strips; the PICA200 assembles a triangle from three vertex slots: `EMIT`
//! copies `o0–o6` into the slot `SETEMIT` chose and, with the primitive flag, sends the
//! triangle (slot 0, slot 1, slot 2) — or (slot 1, slot 0, slot 2) with the winding flag
//! (citra's primitive assembler). The `i`-th vertex of a strip goes to slot `i mod 3`; from the
//! third on it completes triangle `i − 2`, whose D3D order is (i−2, i−1, i) for even and
//! (i−1, i−2, i) for odd `i − 2`: the slots hold a rotation of (i−2, i−1, i), so odd triangles
//! set the winding flag. Rotations draw the same triangle. The strip position of every
//! `EmitVertex` is known because the code is straight-line. Before each `EMIT` every declared
//! output component is written once (a value never stored reads 0, as in the interpreter);
//! output values stay across emits, as in the interpreter.
//!
//! What the PICA200 geometry shader cannot do is unsupported: points and lines as output
//! primitives (it rasterizes only the triangles it assembles), streams other than 0, GS
//! instancing, more than 16 input registers or 7 output registers.

use irc_backend::{Diagnostic, IoSource, Reflection, VaryingBinding};
use irc_ir::format::{
    DclInput, DclInputBuiltIn, Emit, Load, SetCount, SetGsOutputPrimitive, SetPrimitive,
};
use irc_ir::{BuiltIn, Module, OpCode, PrimitiveType, SsaDef};
use rustc_hash::FxHashMap;
use smallvec::smallvec;

use super::mir::{Dst, EmitFlags, MOp};
use super::{flat_size, unsupported, Comps, Loc, Lower, C};

/// Output registers of a geometry shader (§2: o0–o6).
pub const GS_OUTPUT_REGISTERS: u32 = 7;

/// The point-mode input layout of a geometry shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GsLayout {
    /// Vertices per input primitive (`n`).
    pub vertices: u8,
    /// Input registers per vertex (`k`, libctru's stride).
    pub stride: u8,
}

/// One attribute: its vertex-side order key, the components of one vertex.
#[derive(Debug, Clone, Copy)]
struct Attr {
    index: u8,
    width: u8,
}

/// Geometry-shader state of a [`Lower`].
#[derive(Debug)]
pub struct GsState {
    pub layout: GsLayout,
    attrs: FxHashMap<SsaDef, Attr>,
    /// Vertices emitted since the strip began.
    strip: u32,
}

/// The order key `pica-vs` gives an output (`Position` 0, location `L` component `c`
/// `1 + 4L + c`); `None` for inputs no vertex shader output feeds.
fn attr_key(m: &Module, d: SsaDef) -> Option<u32> {
    let op = m.op(d);
    match op.opcode {
        OpCode::DclInput => {
            let i = DclInput::of(op);
            Some(1 + 4 * i.location()? as u32 + i.component().unwrap_or(0) as u32)
        }
        OpCode::DclInputBuiltIn
            if DclInputBuiltIn::of(op).builtin() == Some(BuiltIn::Position.to_u64()) =>
        {
            Some(0)
        }
        _ => None,
    }
}

impl GsState {
    /// Checks the GS declarations and lays out the inputs (binding vertex 0 of each in `r`).
    pub fn new(m: &Module, r: &mut Reflection) -> Result<GsState, Diagnostic> {
        let mut vertices = None;
        for d in m.declarations() {
            let op = m.op(d);
            match op.opcode {
                OpCode::SetGsInputPrimitive => {
                    let p = SetPrimitive::of(op)
                        .primitive()
                        .and_then(PrimitiveType::from_u64);
                    vertices = Some(match p {
                        Some(PrimitiveType::Points) => 1u8,
                        Some(PrimitiveType::Lines) => 2,
                        Some(PrimitiveType::Triangles) => 3,
                        Some(PrimitiveType::LinesAdj) => 4,
                        Some(PrimitiveType::TrianglesAdj) => 6,
                        _ => {
                            return Err(unsupported(
                                m,
                                d,
                                format!("geometry-shader input primitive {p:?}"),
                            ))
                        }
                    });
                }
                OpCode::SetGsOutputPrimitive => {
                    let o = SetGsOutputPrimitive::of(op);
                    let p = o.primitive().and_then(PrimitiveType::from_u64);
                    if p != Some(PrimitiveType::Triangles) {
                        return Err(unsupported(
                            m,
                            d,
                            format!(
                                "output primitive {} (a PICA200 geometry shader emits \
                                 triangles only)",
                                p.map_or("?".to_string(), |p| format!("{p:?}"))
                            ),
                        ));
                    }
                    if o.stream_mask().is_some_and(|s| s & !1 != 0) {
                        return Err(unsupported(
                            m,
                            d,
                            "output streams other than 0 (no stream output on PICA200)",
                        ));
                    }
                }
                OpCode::SetGsInstances if SetCount::of(op).count().is_some_and(|n| n > 1) => {
                    return Err(unsupported(
                        m,
                        d,
                        "geometry-shader instancing (PICA200 runs one invocation per \
                         primitive)",
                    ));
                }
                _ => {}
            }
        }
        let entry = m
            .declarations()
            .find(|&d| m.opcode(d) == OpCode::EntryPoint);
        let vertices = vertices.ok_or_else(|| {
            Diagnostic::unsupported(
                entry.map(|e| (e, OpCode::EntryPoint)),
                "geometry shader without an input primitive",
            )
        })?;
        // The attributes read, in the vertex side's output order.
        let read: Vec<SsaDef> = m
            .code()
            .filter(|&d| m.opcode(d) == OpCode::InputLoad)
            .filter_map(|d| Load::of(m.op(d)).base())
            .collect();
        let mut keyed: Vec<(u32, SsaDef)> = Vec::new();
        for d in m.declarations() {
            let op = m.op(d);
            match op.opcode {
                OpCode::DclInput | OpCode::DclInputBuiltIn if read.contains(&d) => {}
                _ => continue,
            }
            let Some(key) = attr_key(m, d) else { continue };
            if !op.ty.is_basic_where(|s| s.is_float()) && !is_float_array(&op.ty) {
                return Err(unsupported(
                    m,
                    d,
                    "integer or boolean geometry-shader inputs",
                ));
            }
            keyed.push((key, d));
        }
        keyed.sort_by_key(|k| k.0);
        let stride = keyed.len();
        if stride * usize::from(vertices) > 16 {
            return Err(Diagnostic::limit(format!(
                "geometry-shader inputs: {vertices} vertices × {stride} registers; PICA200 \
                 has v0–v15"
            )));
        }
        let mut attrs = FxHashMap::default();
        for (a, &(_, d)) in keyed.iter().enumerate() {
            let op = m.op(d);
            let per = flat_size(&op.ty).unwrap_or(0) / u64::from(vertices);
            let width = u8::try_from(per)
                .ok()
                .filter(|w| (1..=4).contains(w))
                .ok_or_else(|| unsupported(m, d, "geometry-shader input wider than a vec4"))?;
            let dims = op.ty.array_dims();
            if dims.len() != 1 || dims[0] != u32::from(vertices) {
                return Err(unsupported(
                    m,
                    d,
                    "geometry-shader input that is not one array over the input vertices",
                ));
            }
            let source = match op.opcode {
                OpCode::DclInput => {
                    let i = DclInput::of(op);
                    IoSource::Location {
                        location: i.location().unwrap_or(0) as u32,
                        component: i.component().unwrap_or(0) as u32,
                    }
                }
                _ => IoSource::BuiltIn(BuiltIn::Position),
            };
            r.varyings.push(VaryingBinding {
                source,
                slot: a as u32,
                lane: 0,
                components: width,
            });
            attrs.insert(
                d,
                Attr {
                    index: a as u8,
                    width,
                },
            );
        }
        Ok(GsState {
            layout: GsLayout {
                vertices,
                stride: stride as u8,
            },
            attrs,
            strip: 0,
        })
    }
}

fn is_float_array(t: &irc_ir::Type) -> bool {
    t.members().iter().all(|m| m.scalar_type().is_float())
}

/// The outputs fit o0–o6.
pub fn check_outputs(r: &Reflection) -> Result<(), Diagnostic> {
    for o in &r.outputs {
        let end = o.register + u32::from(o.components).div_ceil(4);
        if end > GS_OUTPUT_REGISTERS {
            return Err(Diagnostic::limit(format!(
                "geometry-shader output registers: {end} needed; PICA200 has o0–o6"
            )));
        }
    }
    Ok(())
}

impl Lower<'_> {
    /// An `InputLoad` of a per-vertex input (constant vertex and component) or of the input
    /// vertex count.
    pub(super) fn gs_input_load(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        let op = self.m.op(d);
        let load = Load::of(op);
        let decl = load.base().ok_or_else(|| self.diag(d, "no declaration"))?;
        let width = flat_size(&op.ty).unwrap_or(0) as usize;
        let gs = self.gs.as_ref().ok_or_else(|| self.diag(d, "not a GS"))?;
        let Some(attr) = gs.attrs.get(&decl).copied() else {
            let what = match self.m.op(decl).opcode {
                OpCode::DclInputBuiltIn => DclInputBuiltIn::of(self.m.op(decl))
                    .builtin()
                    .and_then(BuiltIn::from_u64)
                    .map_or("built-in".to_string(), |b| format!("{b:?}")),
                o => format!("{o:?}"),
            };
            return Err(self.diag(
                d,
                format!("geometry-shader input {what} (PICA200 passes only vertex outputs)"),
            ));
        };
        let layout = gs.layout;
        let (vertex, comp) = self.element_address(load.address());
        let (Some(vertex), Some(comp)) = (vertex, comp) else {
            return Err(self.diag(d, "dynamically indexed geometry-shader input vertex"));
        };
        if vertex >= u64::from(layout.vertices) || comp as usize + width > usize::from(attr.width) {
            return Err(self.diag(d, "geometry-shader input index out of range"));
        }
        let reg = vertex as u8 * layout.stride + attr.index;
        Ok((0..width as u8)
            .map(|i| C {
                loc: Loc::In(reg, comp as u8 + i),
                neg: false,
            })
            .collect())
    }

    /// `EmitVertex`: every output component written, then `SETEMIT` + `EMIT`;
    /// `EmitPrimitive`: the next vertex starts a new strip.
    pub(super) fn gs_emit(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(d);
        if Emit::of(op).stream().unwrap_or(0) != 0 {
            return Err(self.diag(d, "emitting to a stream other than 0"));
        }
        let gs = self
            .gs
            .as_mut()
            .ok_or_else(|| unsupported(self.m, d, "not a GS"))?;
        if op.opcode == OpCode::EmitPrimitive {
            gs.strip = 0;
            return Ok(());
        }
        let i = gs.strip;
        gs.strip += 1;
        let flags = EmitFlags {
            vertex: (i % 3) as u8,
            primitive: i >= 2,
            winding: i >= 2 && (i - 2) % 2 == 1,
        };
        for out in self.outputs.values_mut() {
            for c in &mut out.comps {
                c.get_or_insert(C::lit(0.0));
            }
        }
        let mut unused = Reflection::default();
        self.write_outputs(&mut unused);
        self.prog.ops.push(MOp {
            op: crate::isa::Opcode::Emit,
            dst: Dst::Emit(flags),
            srcs: smallvec![],
        });
        Ok(())
    }
}
