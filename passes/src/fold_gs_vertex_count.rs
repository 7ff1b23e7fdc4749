//! `fold-gs-vertex-count`: the geometry-shader input `GsVertexCountIn` becomes the constant it
//! is.
//!
//! A D3D geometry shader declares its input primitive (`SetGsInputPrimitive`), and every
//! invocation receives exactly that primitive's vertices: 1 for points, 2 for lines, 4 for
//! lines with adjacency, 3 for triangles, 6 for triangles with adjacency, `n` for an `n`-point
//! patch. dxbc-spirv's raw reader guards every per-vertex input read with
//! `vertex < GsVertexCountIn`; with the count known, those guards fold away and the vertex
//! reads keep constant indices, which targets without integer arithmetic (PICA200) need. The
//! interpreter gives the same value (`ShaderInputs::random`), so the fold is exact.

use crate::caps::PassContext;
use crate::PassError;
use irc_ir::format::{Load, SetPrimitive};
use irc_ir::{BuiltIn, Module, Op, OpCode, PrimitiveType, ScalarType, SsaDef};

/// Vertices per input primitive.
fn vertex_count(p: PrimitiveType) -> u64 {
    match p {
        PrimitiveType::Points => 1,
        PrimitiveType::Lines => 2,
        PrimitiveType::LinesAdj | PrimitiveType::Quads => 4,
        PrimitiveType::Triangles => 3,
        PrimitiveType::TrianglesAdj => 6,
        PrimitiveType::Patch(n) => u64::from(n),
    }
}

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, _: &PassContext) -> Result<bool, PassError> {
    if !m.contains_opcode(OpCode::SetGsInputPrimitive) {
        return Ok(false);
    }
    let count = m
        .declarations()
        .find(|&d| m.opcode(d) == OpCode::SetGsInputPrimitive)
        .and_then(|d| SetPrimitive::of(m.op(d)).primitive())
        .and_then(PrimitiveType::from_u64)
        .map(vertex_count);
    let Some(count) = count else {
        return Ok(false);
    };
    let decls: Vec<SsaDef> = m
        .declarations()
        .filter(|&d| {
            m.opcode(d) == OpCode::DclInputBuiltIn
                && irc_ir::format::DclInputBuiltIn::of(m.op(d)).builtin()
                    == Some(BuiltIn::GsVertexCountIn.to_u64())
        })
        .collect();
    if decls.is_empty() {
        return Ok(false);
    }
    let loads: Vec<SsaDef> = m
        .code()
        .filter(|&d| m.opcode(d) == OpCode::InputLoad)
        .filter(|&d| Load::of(m.op(d)).base().is_some_and(|b| decls.contains(&b)))
        .collect();
    let mut changed = false;
    for d in loads {
        let Some(s) = m.ty(d).as_scalar() else {
            continue;
        };
        if !matches!(s, ScalarType::U32 | ScalarType::I32) {
            continue;
        }
        let k = m.add(Op::new(OpCode::Constant, s).lit(count));
        m.replace_all_uses(d, k);
        m.remove(d);
        changed = true;
    }
    Ok(changed)
}
