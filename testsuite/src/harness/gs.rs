//! Geometry shaders in the differential harness: the interpreter's emitted vertices and strips
//! against a simulator's emitted vertices and assembled primitives.
//!
//! * **Vertices**: the simulator's invocations are the vertices it emitted, in order; they must
//!   be as many as the interpreter's stream-0 `EmitVertex`es (the rasterized stream), and each
//!   must match the interpreter's snapshot like one vertex's outputs ([`compare_outputs`]).
//! * **Primitives**: the interpreter's strips (vertices with one primitive number) become the
//!   primitives a rasterizer draws — a triangle strip's triangle `i` is (i, i+1, i+2) for even
//!   and (i+1, i, i+2) for odd `i` (D3D's winding rule), a line strip's segment `i` is
//!   (i, i+1), a point list's point `i` is (i) — and the simulator's
//!   [`SimOutputs::primitives`] must list the same primitives in the same order, each equal up
//!   to a rotation of its vertices (a rotation is the same triangle with the same winding; which
//!   vertex comes first only matters for flat shading). Strips too short for one primitive draw
//!   nothing.

use irc_backend::{SimOutputs, Tolerance};
use irc_interp::{InvocationOutputs, Outputs};
use irc_ir::format::SetGsOutputPrimitive;
use irc_ir::{Module, OpCode, PrimitiveType};

use super::compare::compare_outputs;

/// The output primitive of a geometry shader, `None` for other modules.
pub fn output_topology(m: &Module) -> Option<PrimitiveType> {
    let d = m
        .declarations()
        .find(|&d| m.opcode(d) == OpCode::SetGsOutputPrimitive)?;
    SetGsOutputPrimitive::of(m.op(d))
        .primitive()
        .and_then(PrimitiveType::from_u64)
}

/// The primitives of the interpreter's stream-0 strips (indices into the stream-0 vertices).
pub fn strip_primitives(want: &Outputs, topology: PrimitiveType) -> Vec<Vec<usize>> {
    let strips: Vec<(u32, usize)> = want
        .gs_vertices
        .iter()
        .filter(|v| v.stream == 0)
        .enumerate()
        .map(|(i, v)| (v.primitive, i))
        .collect();
    let mut out = Vec::new();
    for strip in strips.chunk_by(|a, b| a.0 == b.0) {
        let g: Vec<usize> = strip.iter().map(|s| s.1).collect();
        match topology {
            PrimitiveType::Points => out.extend(g.iter().map(|&i| vec![i])),
            PrimitiveType::Lines => out.extend(g.windows(2).map(|w| w.to_vec())),
            _ => out.extend(g.windows(3).enumerate().map(|(i, w)| {
                if i % 2 == 0 {
                    vec![w[0], w[1], w[2]]
                } else {
                    vec![w[1], w[0], w[2]]
                }
            })),
        }
    }
    out
}

/// Whether `b` lists `a`'s vertices starting elsewhere (the same triangle, same winding).
pub fn same_up_to_rotation(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len()
        && (a.is_empty()
            || (0..a.len()).any(|r| a.iter().cycle().skip(r).zip(b).all(|(x, y)| x == y)))
}

/// The first difference between the interpreter's emitted vertices and strips and the
/// simulator's (see the module doc).
pub fn compare_gs(
    want: &Outputs,
    got: &SimOutputs,
    tol: Tolerance,
    topology: PrimitiveType,
) -> Result<(), String> {
    let vertices: Vec<InvocationOutputs> = want
        .gs_vertices
        .iter()
        .filter(|v| v.stream == 0)
        .map(|v| InvocationOutputs {
            io: v.io.clone(),
            discarded: false,
        })
        .collect();
    if got.invocations.len() != vertices.len() {
        return Err(format!(
            "the simulator emitted {} vertices, the interpreter {}",
            got.invocations.len(),
            vertices.len()
        ));
    }
    let as_lanes = Outputs {
        invocations: vertices,
        ..Default::default()
    };
    compare_outputs(&as_lanes, got, tol, &|_| {}).map_err(|e| format!("emitted vertex: {e}"))?;
    let prims = strip_primitives(want, topology);
    if prims.len() != got.primitives.len() {
        return Err(format!(
            "the simulator assembled {} primitives, the interpreter's strips make {} \
             ({topology:?})",
            got.primitives.len(),
            prims.len()
        ));
    }
    for (i, (w, g)) in prims.iter().zip(&got.primitives).enumerate() {
        if !same_up_to_rotation(w, g) {
            return Err(format!(
                "primitive {i}: the interpreter's strips give vertices {w:?}, the simulator \
                 {g:?}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use irc_interp::GsVertex;

    fn strips(ids: &[u32]) -> Outputs {
        Outputs {
            gs_vertices: ids
                .iter()
                .map(|&p| GsVertex {
                    stream: 0,
                    primitive: p,
                    io: Default::default(),
                })
                .collect(),
            ..Default::default()
        }
    }

    /// A strip of 5 then a strip of 2 (no triangle) then 3: D3D's triangles, odd ones with
    /// their first two vertices swapped.
    #[test]
    fn triangle_strips_follow_the_d3d_winding_rule() {
        let p = strip_primitives(
            &strips(&[0, 0, 0, 0, 0, 1, 1, 2, 2, 2]),
            PrimitiveType::Triangles,
        );
        assert_eq!(
            p,
            vec![vec![0, 1, 2], vec![2, 1, 3], vec![2, 3, 4], vec![7, 8, 9]]
        );
    }

    #[test]
    fn rotations_are_the_same_triangle_reflections_are_not() {
        assert!(same_up_to_rotation(&[2, 1, 3], &[1, 3, 2]));
        assert!(same_up_to_rotation(&[2, 1, 3], &[3, 2, 1]));
        assert!(!same_up_to_rotation(&[2, 1, 3], &[1, 2, 3]));
    }

    #[test]
    fn a_missing_primitive_is_a_difference() {
        let want = strips(&[0, 0, 0]);
        let got = SimOutputs {
            invocations: vec![Default::default(); 3],
            ..Default::default()
        };
        let e = compare_gs(&want, &got, Tolerance::F32, PrimitiveType::Triangles).unwrap_err();
        assert!(e.contains("assembled 0 primitives"), "{e}");
    }
}
