//! Per-lane inputs of a pixel quad: from one set of input values, the quad's pixel position,
//! screen-space derivatives of interpolated inputs and explicit per-lane values, the four
//! lanes' inputs — so that derivative ops (`DerivX`/`DerivY`, implicit-LOD sampling) see the
//! differences a rasterizer would give them.
//!
//! Lane `l` is pixel `(x, y) = (l & 1, l >> 1)` of the quad. An input with derivatives
//! `(ddx, ddy)` reads `v + x·ddx + y·ddy` in lane `(x, y)` (each float component computed in
//! f64 and rounded to its type once; integer and bool components are flat). `Position`
//! follows the quad's pixel position. Explicit per-lane values are applied last.

use irc_interp::{float, InvocationInputs, IoSlot, Scalar, Value};
use irc_ir::{BuiltIn, Module, OpCode};
use std::collections::BTreeMap;

/// How the lanes of a quad differ from the shared inputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuadSpec {
    /// `(ddx, ddy)` per input.
    pub planes: BTreeMap<IoSlot, [Option<Value>; 2]>,
    /// The quad's top-left pixel.
    pub pixel: Option<(f64, f64)>,
    /// `(lane, input, value)` overrides.
    pub lanes: Vec<(usize, IoSlot, Value)>,
}

/// `base + x·dx + y·dy` per float component (`dx`, `dy` missing → 0).
pub fn plane(base: &Value, dx: Option<&Value>, dy: Option<&Value>, x: f64, y: f64) -> Value {
    match base {
        Value::Scalar(_) | Value::Vector(_) => {
            let b = base.components().unwrap_or_default();
            let d = |v: Option<&Value>, k: usize| {
                v.and_then(|v| v.components())
                    .and_then(|c| c.get(k).copied())
            };
            Value::from_components(
                b.iter()
                    .enumerate()
                    .map(|(k, &s)| plane_scalar(s, d(dx, k), d(dy, k), x, y))
                    .collect(),
            )
        }
        Value::Composite(members) => Value::Composite(
            members
                .iter()
                .enumerate()
                .map(|(i, m)| plane(m, member(dx, i), member(dy, i), x, y))
                .collect(),
        ),
        _ => base.clone(),
    }
}

/// Member `i` of a composite value.
fn member(v: Option<&Value>, i: usize) -> Option<&Value> {
    match v {
        Some(Value::Composite(c)) => c.get(i),
        _ => None,
    }
}

fn plane_scalar(b: Scalar, dx: Option<Scalar>, dy: Option<Scalar>, x: f64, y: f64) -> Scalar {
    let t = b.ty();
    if !t.is_float() {
        return b;
    }
    let f = |s: Option<Scalar>| s.map_or(0.0, |s| float::to_f64(s, s.ty()));
    float::from_f64(float::to_f64(b, t) + x * f(dx) + y * f(dy), t)
}

/// True if `m` declares the `Position` input built-in.
fn declares_position(m: &Module) -> bool {
    m.declarations().any(|d| {
        let op = m.op(d);
        op.opcode == OpCode::DclInputBuiltIn
            && irc_ir::format::DclInputBuiltIn::of(op).builtin() == Some(BuiltIn::Position.to_u64())
    })
}

/// The inputs of each of `n` lanes (`n` is 4 for a pixel quad, else 1).
pub fn lanes(
    m: &Module,
    shared: &InvocationInputs,
    spec: &QuadSpec,
    n: usize,
) -> Result<Vec<InvocationInputs>, String> {
    if n < 4 && (spec.pixel.is_some() || !spec.planes.is_empty()) {
        return Err("pixel positions and derivatives apply to pixel shaders only".into());
    }
    let pos = IoSlot::builtin(BuiltIn::Position);
    let mut out = Vec::with_capacity(n);
    for l in 0..n {
        let (x, y) = ((l & 1) as f64, (l >> 1) as f64);
        let mut inv = shared.clone();
        for (slot, [dx, dy]) in &spec.planes {
            let Some(base) = shared.io.get(slot) else {
                return Err(format!(
                    "{slot:?}: derivatives given without the input's value"
                ));
            };
            inv.io
                .insert(*slot, plane(base, dx.as_ref(), dy.as_ref(), x, y));
        }
        if let Some((px, py)) = spec.pixel {
            if declares_position(m) {
                let zw = shared
                    .io
                    .get(&pos)
                    .and_then(|v| v.components())
                    .map_or((0.0, 1.0), |c| {
                        let g = |i: usize| c.get(i).map_or(0.0, |s| s.as_f32());
                        (g(2), g(3))
                    });
                let v = Value::f32s(&[(px + x + 0.5) as f32, (py + y + 0.5) as f32, zw.0, zw.1]);
                inv.io.insert(pos, v);
            }
        }
        for (lane, slot, v) in &spec.lanes {
            if *lane == l {
                inv.io.insert(*slot, v.clone());
            }
        }
        out.push(inv);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plane_adds_the_derivatives_per_lane_and_keeps_integers_flat() {
        let base = Value::Vector(smallvec::smallvec![Scalar::F32(0.5), Scalar::U32(7)]);
        let dx = Value::Vector(smallvec::smallvec![Scalar::F32(0.25), Scalar::U32(1)]);
        let dy = Value::Vector(smallvec::smallvec![Scalar::F32(-1.0), Scalar::U32(1)]);
        let v = plane(&base, Some(&dx), Some(&dy), 1.0, 1.0);
        assert_eq!(
            v,
            Value::Vector(smallvec::smallvec![Scalar::F32(-0.25), Scalar::U32(7)])
        );
        assert_eq!(plane(&base, Some(&dx), None, 0.0, 0.0), base);
    }
}
