//! Cross-lane ops of a pixel quad (derivatives, implicit-LOD sampling) and compute barriers,
//! evaluated by the scheduler once every unfinished lane has parked.
//!
//! Lanes are numbered `y * 2 + x`. Coarse derivatives use the top-left pair of the quad for
//! every lane (`DerivX = v[1] − v[0]`, `DerivY = v[2] − v[0]`); fine derivatives use the
//! lane's own row or column. `DerivativeMode::Default` is **coarse**. Differences are rounded to
//! the result type under its float mode (`SetFpMode`). Implicit LOD uses coarse derivatives of
//! the coordinate.

use crate::exec::Interp;
use crate::float::{from_f64, round_to, to_f64};
use crate::image::{compute_lod, sample};
use crate::resources::{coords_f, image, layer_index, sampler};
use crate::trap::Trap;
use crate::value::{zero_value, Scalar, Value};
use irc_ir::format::{Deriv, ImageComputeLod, ImageSample};
use irc_ir::{OpCode, OpFlags, ScalarType, ShaderStage, SsaDef};

/// True if `d` (an `ImageSample`/`ImageComputeLod`) needs the quad's derivatives.
pub(crate) fn needs_quad(it: &Interp, d: SsaDef) -> bool {
    if it.p.stage != ShaderStage::Pixel {
        return false;
    }
    let op = it.p.m.op(d);
    match op.opcode {
        OpCode::ImageComputeLod => true,
        OpCode::ImageSample => {
            let s = ImageSample::of(op);
            s.lod().is_none() && s.dx().is_none()
        }
        _ => false,
    }
}

/// The value of `a` in lane `j`, falling back to lane `own`'s value.
fn lane_value(it: &Interp, j: usize, own: usize, at: SsaDef, a: SsaDef) -> Result<Value, Trap> {
    if j < it.lanes.len() {
        if let Ok(v) = it.get(j, at, a) {
            return Ok(v);
        }
    }
    it.get(own, at, a)
}

/// (x, y) derivative pairs (lane indices subtracted) for lane `l`.
fn pairs(l: usize, fine: bool) -> ((usize, usize), (usize, usize)) {
    if fine {
        let (x, y) = (l & 1, l >> 1);
        ((y * 2 + 1, y * 2), (2 + x, x))
    } else {
        ((1, 0), (2, 0))
    }
}

fn diff(
    it: &Interp,
    l: usize,
    at: SsaDef,
    a: SsaDef,
    (p, q): (usize, usize),
) -> Result<Vec<Scalar>, Trap> {
    let (vp, vq) = (lane_value(it, p, l, at, a)?, lane_value(it, q, l, at, a)?);
    let (mut fp, mut fq) = (Vec::new(), Vec::new());
    vp.flatten(&mut fp);
    vq.flatten(&mut fq);
    if fp.len() != fq.len() {
        return Err(Trap::bad(
            at,
            "derivative operand changes shape between lanes",
        ));
    }
    Ok(fp
        .iter()
        .zip(&fq)
        .map(|(x, y)| {
            let t = x.ty();
            crate::float::float_op_in(OpCode::FSub, t, &[*x, *y], 0, it.p.fp_modes.get(t))
                .unwrap_or(*x)
        })
        .collect())
}

/// Evaluates the parked op `d` of lane `l`.
pub(crate) fn exec_parked(it: &Interp, l: usize, d: SsaDef) -> Result<Value, Trap> {
    let op = it.p.m.op(d);
    match op.opcode {
        OpCode::DerivX | OpCode::DerivY => {
            let deriv = Deriv::of(op);
            let a = deriv
                .value()
                .ok_or_else(|| Trap::bad(d, "derivative without operand"))?;
            let fine = deriv.mode() == Some(2)
                || (it.cfg.fine_default_derivatives && deriv.mode() == Some(0));
            let (px, py) = pairs(l, fine);
            let c = diff(
                it,
                l,
                d,
                a,
                if op.opcode == OpCode::DerivX { px } else { py },
            )?;
            Ok(Value::from_components(c.into_iter().collect()))
        }
        OpCode::ImageSample | OpCode::ImageComputeLod => {
            let coord = match ImageSample::try_of(op) {
                Some(s) => s.coord(),
                None => ImageComputeLod::of(op).coord(),
            };
            let a = coord.ok_or_else(|| Trap::bad(d, "sample without coordinate"))?;
            let (px, py) = pairs(l, false);
            let g = |v: Vec<Scalar>| coords_f(&v);
            let dx = g(diff(it, l, d, a, px)?);
            let dy = g(diff(it, l, d, a, py)?);
            sample_op(it, l, d, Some((dx, dy)))
        }
        OpCode::Barrier => Ok(Value::Void),
        _ => Err(Trap::bad(d, "op cannot be parked")),
    }
}

/// `ImageSample` / `ImageComputeLod` with optional quad derivatives of the coordinate.
pub(crate) fn sample_op(
    it: &Interp,
    l: usize,
    d: SsaDef,
    derivs: Option<([f64; 3], [f64; 3])>,
) -> Result<Value, Trap> {
    let op = it.p.m.op(d);
    if let Some(q) = ImageComputeLod::try_of(op) {
        let desc = match it.arg(l, d, q.descriptor())? {
            Value::Descriptor(x) => x,
            _ => return Err(Trap::bad(d, "image operand is not a descriptor")),
        };
        let s = sampler(it, l, d, q.sampler())?;
        let c = coords_f(&it.comps(l, d, q.coord())?);
        let Some(img) = image(it, desc) else {
            return Ok(Value::f32s(&[0.0, 0.0]));
        };
        let (dx, dy) = derivs.unwrap_or_default();
        let raw = compute_lod(img, c, dx, dy) + s.lod_bias as f64;
        let max = img.mips.len().saturating_sub(1) as f64;
        let clamped = if raw.is_nan() {
            0.0
        } else {
            raw.clamp(0.0, max)
        };
        return Ok(Value::f32s(&[clamped as f32, raw as f32]));
    }
    let smp = ImageSample::of(op);
    let desc = match it.arg(l, d, smp.descriptor())? {
        Value::Descriptor(x) => x,
        _ => return Err(Trap::bad(d, "image operand is not a descriptor")),
    };
    let s = sampler(it, l, d, smp.sampler())?;
    let f = |v: Option<Value>| v.and_then(|v| v.as_scalar()).map(|s| to_f64(s, s.ty()));
    let layer = f(it.opt_arg(l, d, smp.layer())?).unwrap_or(0.0);
    let c = coords_f(&it.comps(l, d, smp.coord())?);
    let off = match it.opt_arg(l, d, smp.offset())? {
        Some(o) => {
            let mut r = [0i64; 3];
            for (k, s) in o
                .components()
                .unwrap_or_default()
                .iter()
                .take(3)
                .enumerate()
            {
                r[k] = s.sext_bits() as i64;
            }
            r
        }
        None => [0; 3],
    };
    let lod_index = f(it.opt_arg(l, d, smp.lod())?);
    let bias = f(it.opt_arg(l, d, smp.lod_bias())?).unwrap_or(0.0);
    let clamp = f(it.opt_arg(l, d, smp.lod_clamp())?);
    let gdx = it
        .opt_arg(l, d, smp.dx())?
        .and_then(|v| v.components())
        .map(|c| coords_f(&c));
    let gdy = it
        .opt_arg(l, d, smp.dy())?
        .and_then(|v| v.components())
        .map(|c| coords_f(&c));
    let dref = f(it.opt_arg(l, d, smp.depth_compare())?).map(|x| round_to(x, ScalarType::F32));
    let lty = if op.flags.contains(OpFlags::SPARSE_FEEDBACK) && op.ty.members().len() == 2 {
        irc_ir::Type::basic(op.ty.members()[1])
    } else {
        op.ty.clone()
    };
    let v = match image(it, desc) {
        Some(img) => {
            let mut lod = match (lod_index, gdx, gdy, derivs) {
                (Some(x), ..) => x,
                (None, Some(dx), Some(dy), _) => compute_lod(img, c, dx, dy),
                (None, _, _, Some((dx, dy))) => compute_lod(img, c, dx, dy),
                _ => 0.0,
            };
            if lod_index.is_none() {
                lod += bias + s.lod_bias as f64;
            }
            if let Some(cl) = clamp {
                lod = lod.max(cl);
            }
            let layer = layer_index(img, layer);
            let r = sample(img, &s, c, layer, lod, off, dref);
            let t = lty
                .members()
                .first()
                .map_or(ScalarType::F32, |b| b.scalar_type());
            let n = lty.as_basic().map_or(1, |b| b.vec_size() as usize);
            Value::from_components(r.iter().take(n).map(|&x| from_f64(x as f64, t)).collect())
        }
        None => zero_value(&lty),
    };
    Ok(if op.flags.contains(OpFlags::SPARSE_FEEDBACK) {
        Value::Composite(vec![Value::u32(0), v])
    } else {
        v
    })
}
