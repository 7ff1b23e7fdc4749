//! Comparing the [`Outputs`] of two runs (e.g. raw vs legalized IR of one shader).
//!
//! [`outputs_equal`] is the exact comparison: every output value bit for bit, except that two
//! NaNs of the same float type are equal whatever their sign and payload (passes may
//! canonicalize NaNs). It covers per-invocation outputs and discard state, emitted GS vertices,
//! final UAV contents and UAV counters. UAV contents are raw dwords; two dwords that are both
//! f32 NaN patterns count as equal. [`outputs_close`] additionally accepts finite floats of the
//! same type that are at most `max_ulps` representable values apart (for classifying
//! differences that come from non-exact algebraic rewrites; never for agreement).
//!
//! Both return the **first** [`Difference`] found, whose `Display` names the output, the lane
//! and both values.

use crate::inputs::{IoSlot, Outputs, Resource};
use crate::value::{Scalar, Value};
use std::collections::BTreeMap;
use std::fmt;

/// Where two runs differ.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// Number of invocations, GS vertices, UAVs or UAV counters.
    Count(&'static str),
    /// An output of invocation `lane`.
    Output { lane: usize, slot: IoSlot },
    /// The discard flag of invocation `lane`.
    Discard { lane: usize },
    /// An output of the `index`-th emitted GS vertex (or its stream/primitive: `slot = None`).
    GsVertex { index: usize, slot: Option<IoSlot> },
    /// A UAV (space, register), dword or texel index.
    Uav {
        space: u32,
        register: u32,
        index: usize,
    },
    /// A UAV counter (space, register).
    UavCounter { space: u32, register: u32 },
}

/// The first difference found; `left`/`right` are the values (Debug-formatted).
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub place: Place,
    pub left: String,
    pub right: String,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Count(what) => write!(f, "number of {what}"),
            Place::Output { lane, slot } => write!(f, "output {slot:?} of lane {lane}"),
            Place::Discard { lane } => write!(f, "discard flag of lane {lane}"),
            Place::GsVertex {
                index,
                slot: Some(s),
            } => write!(f, "output {s:?} of GS vertex {index}"),
            Place::GsVertex { index, slot: None } => {
                write!(f, "stream/primitive of GS vertex {index}")
            }
            Place::Uav {
                space,
                register,
                index,
            } => {
                write!(f, "UAV space {space} register {register} element {index}")
            }
            Place::UavCounter { space, register } => {
                write!(f, "UAV counter space {space} register {register}")
            }
        }
    }
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} vs {}", self.place, self.left, self.right)
    }
}

impl std::error::Error for Difference {}

/// Exact comparison (bitwise, NaN == NaN). See the module docs.
pub fn outputs_equal(a: &Outputs, b: &Outputs) -> Result<(), Difference> {
    compare(a, b, 0)
}

/// Like [`outputs_equal`], but finite floats of the same type may differ by up to `max_ulps`
/// units in the last place (`max_ulps > 0`; with a tolerance, +0 and −0 are the same point).
pub fn outputs_close(a: &Outputs, b: &Outputs, max_ulps: u64) -> Result<(), Difference> {
    compare(a, b, max_ulps)
}

fn diff<T: fmt::Debug + ?Sized, U: fmt::Debug + ?Sized>(place: Place, l: &T, r: &U) -> Difference {
    Difference {
        place,
        left: format!("{l:?}"),
        right: format!("{r:?}"),
    }
}

fn compare(a: &Outputs, b: &Outputs, ulps: u64) -> Result<(), Difference> {
    if a.invocations.len() != b.invocations.len() {
        let p = Place::Count("invocations");
        return Err(diff(p, &a.invocations.len(), &b.invocations.len()));
    }
    for (lane, (x, y)) in a.invocations.iter().zip(&b.invocations).enumerate() {
        io_equal(&x.io, &y.io, ulps, |slot| Place::Output { lane, slot })?;
        if x.discarded != y.discarded {
            return Err(diff(Place::Discard { lane }, &x.discarded, &y.discarded));
        }
    }
    if a.gs_vertices.len() != b.gs_vertices.len() {
        let p = Place::Count("GS vertices");
        return Err(diff(p, &a.gs_vertices.len(), &b.gs_vertices.len()));
    }
    for (index, (x, y)) in a.gs_vertices.iter().zip(&b.gs_vertices).enumerate() {
        if (x.stream, x.primitive) != (y.stream, y.primitive) {
            let p = Place::GsVertex { index, slot: None };
            return Err(diff(p, &(x.stream, x.primitive), &(y.stream, y.primitive)));
        }
        io_equal(&x.io, &y.io, ulps, |slot| Place::GsVertex {
            index,
            slot: Some(slot),
        })?;
    }
    if a.uavs.keys().ne(b.uavs.keys()) {
        let (ka, kb): (Vec<_>, Vec<_>) = (a.uavs.keys().collect(), b.uavs.keys().collect());
        return Err(diff(Place::Count("UAVs"), &ka, &kb));
    }
    for ((k, x), y) in a.uavs.iter().zip(b.uavs.values()) {
        let place = |index| Place::Uav {
            space: k.space,
            register: k.register,
            index,
        };
        let dwords = |r: &Resource| -> Vec<u32> {
            match r {
                Resource::Buffer(d) => d.clone(),
                Resource::Image(i) => i.mips.iter().flatten().flatten().copied().collect(),
            }
        };
        let (dx, dy) = (dwords(x), dwords(y));
        if dx.len() != dy.len() {
            return Err(diff(place(usize::MAX), &dx.len(), &dy.len()));
        }
        for (i, (&p, &q)) in dx.iter().zip(&dy).enumerate() {
            if !scalar_match(
                Scalar::F32(f32::from_bits(p)),
                Scalar::F32(f32::from_bits(q)),
                ulps,
            ) {
                return Err(diff(place(i), &format!("{p:#010x}"), &format!("{q:#010x}")));
            }
        }
    }
    if a.uav_counters != b.uav_counters {
        for (k, x) in &a.uav_counters {
            let y = b.uav_counters.get(k);
            if y != Some(x) {
                let p = Place::UavCounter {
                    space: k.space,
                    register: k.register,
                };
                return Err(diff(p, &Some(x), &y));
            }
        }
        return Err(diff(
            Place::Count("UAV counters"),
            &a.uav_counters,
            &b.uav_counters,
        ));
    }
    Ok(())
}

fn io_equal(
    a: &BTreeMap<IoSlot, Value>,
    b: &BTreeMap<IoSlot, Value>,
    ulps: u64,
    place: impl Fn(IoSlot) -> Place,
) -> Result<(), Difference> {
    for (slot, x) in a {
        match b.get(slot) {
            Some(y) if value_match(x, y, ulps) => {}
            y => return Err(diff(place(*slot), x, &y)),
        }
    }
    if let Some((slot, y)) = b.iter().find(|(k, _)| !a.contains_key(k)) {
        return Err(diff(place(*slot), &None::<Value>, y));
    }
    Ok(())
}

/// Value equality: bitwise, NaN == NaN for the same float type, finite floats within `ulps`.
pub fn value_match(a: &Value, b: &Value, ulps: u64) -> bool {
    match (a, b) {
        (Value::Scalar(x), Value::Scalar(y)) => scalar_match(*x, *y, ulps),
        (Value::Vector(x), Value::Vector(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| scalar_match(*p, *q, ulps))
        }
        (Value::Composite(x), Value::Composite(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| value_match(p, q, ulps))
        }
        _ => a == b,
    }
}

/// Scalar equality: bitwise, NaN == NaN for the same float type, finite floats within `ulps`.
pub fn scalar_match(a: Scalar, b: Scalar, ulps: u64) -> bool {
    if a == b {
        return true;
    }
    let key = |s: Scalar| -> Option<(bool, bool, i64)> {
        // (is NaN, is finite, position on the ordered number line)
        let (nan, fin, bits, sign) = match s {
            Scalar::F16(v) => (v.is_nan(), v.is_finite(), v.to_bits() as u64, 1u64 << 15),
            Scalar::F32(v) => (v.is_nan(), v.is_finite(), v.to_bits() as u64, 1u64 << 31),
            Scalar::F64(v) => (v.is_nan(), v.is_finite(), v.to_bits(), 1u64 << 63),
            _ => return None,
        };
        let mag = (bits & !sign) as i64;
        Some((nan, fin, if bits & sign != 0 { -mag } else { mag }))
    };
    match (a.ty() == b.ty(), key(a), key(b)) {
        (true, Some((true, _, _)), Some((true, _, _))) => true,
        (true, Some((false, true, p)), Some((false, true, q))) => ulps > 0 && p.abs_diff(q) <= ulps,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::InvocationOutputs;

    fn one(v: Value) -> Outputs {
        let mut io = BTreeMap::new();
        io.insert(
            IoSlot::Location {
                location: 0,
                component: 0,
            },
            v,
        );
        Outputs {
            invocations: vec![InvocationOutputs {
                io,
                discarded: false,
            }],
            ..Outputs::default()
        }
    }

    #[test]
    fn nan_payloads_are_equal_but_signed_zeros_are_not() {
        let qnan = Value::f32(f32::from_bits(0x7fc0_0000));
        let other_nan = Value::f32(f32::from_bits(0xffc0_0001));
        assert!(outputs_equal(&one(qnan.clone()), &one(other_nan)).is_ok());
        let e = outputs_equal(&one(Value::f32(0.0)), &one(Value::f32(-0.0))).unwrap_err();
        assert_eq!(
            e.place,
            Place::Output {
                lane: 0,
                slot: IoSlot::Location {
                    location: 0,
                    component: 0
                }
            }
        );
        assert!(e.to_string().contains("lane 0"), "{e}");
        // NaN never equals a number, not even within a tolerance.
        assert!(outputs_close(&one(qnan), &one(Value::f32(1.0)), 1 << 40).is_err());
    }

    #[test]
    fn ulp_distance() {
        let a = Value::f32(1.0);
        let b = Value::f32(f32::from_bits(1.0f32.to_bits() + 2));
        assert!(outputs_equal(&one(a.clone()), &one(b.clone())).is_err());
        assert!(outputs_close(&one(a.clone()), &one(b.clone()), 1).is_err());
        assert!(outputs_close(&one(a), &one(b), 2).is_ok());
        // With a tolerance, +0 and -0 are the same point of the number line.
        assert!(outputs_close(&one(Value::f32(0.0)), &one(Value::f32(-0.0)), 1).is_ok());
        assert!(outputs_close(
            &one(Value::f32(f32::INFINITY)),
            &one(Value::f32(f32::MAX)),
            4
        )
        .is_err());
    }
}
