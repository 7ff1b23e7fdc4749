//! Image access: texel fetch, filtered sampling (point / bilinear / trilinear, wrap / clamp /
//! mirror / border), cube maps, depth comparison, gather and LOD computation.
//!
//! Sampling reads texels as `f32` bits and computes the filter in `f64`, rounding the result
//! to `f32` once. Texel centres are at `(i + 0.5) / size`. The mip level is
//! `clamp(lod + bias, 0, mips − 1)`, rounded to nearest for point filtering and interpolated
//! for linear filtering. Gather returns the bilinear footprint in D3D order
//! `(u0,v1), (u1,v1), (u1,v0), (u0,v0)` from mip 0. Integer fetches outside the image give 0.

use crate::inputs::{AddressMode, CompareOp, Filter, Image, ImageDim, Sampler};

/// Wraps integer texel coordinate `i` into `0..n`, `None` for border.
fn wrap(i: i64, n: u32, m: AddressMode) -> Option<i64> {
    let n = n.max(1) as i64;
    Some(match m {
        AddressMode::Wrap => i.rem_euclid(n),
        AddressMode::Clamp => i.clamp(0, n - 1),
        AddressMode::Mirror => {
            let k = i.rem_euclid(2 * n);
            if k >= n {
                2 * n - 1 - k
            } else {
                k
            }
        }
        AddressMode::Border => {
            if i < 0 || i >= n {
                return None;
            }
            i
        }
    })
}

/// Cube direction → (face, u, v) in [0, 1].
pub fn cube_face(x: f64, y: f64, z: f64) -> (u32, f64, f64) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, ma, sc, tc) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, ax, -z, -y)
        } else {
            (1, ax, z, -y)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, ay, x, z)
        } else {
            (3, ay, x, -z)
        }
    } else if z >= 0.0 {
        (4, az, x, -y)
    } else {
        (5, az, -x, -y)
    };
    let ma = if ma == 0.0 { 1.0 } else { ma };
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

/// Normalized coordinates → (layer, u, v, w, address modes) after cube face selection.
fn resolve(img: &Image, s: &Sampler, c: [f64; 3], layer: u32) -> (u32, [f64; 3], [AddressMode; 3]) {
    if img.dim == ImageDim::Cube {
        let (f, u, v) = cube_face(c[0], c[1], c[2]);
        (layer * 6 + f, [u, v, 0.0], [AddressMode::Clamp; 3])
    } else {
        (layer, c, s.address)
    }
}

fn texel_f(img: &Image, level: u32, layer: u32, ijk: [i64; 3], m: [AddressMode; 3]) -> [f64; 4] {
    let (w, h, d) = img.mip_size(level);
    let dims = [w, h, d];
    let mut p = [0i64; 3];
    for k in 0..3 {
        match wrap(ijk[k], dims[k], m[k]) {
            Some(v) => p[k] = v,
            None => return [0.0; 4],
        }
    }
    let t = img.texel(level, layer, p[0], p[1], p[2]).unwrap_or([0; 4]);
    t.map(|b| f32::from_bits(b) as f64)
}

fn compare(op: CompareOp, dref: f64, t: f64) -> f64 {
    let r = match op {
        CompareOp::Never => false,
        CompareOp::Less => dref < t,
        CompareOp::Equal => dref == t,
        CompareOp::LessEqual => dref <= t,
        CompareOp::Greater => dref > t,
        CompareOp::NotEqual => dref != t,
        CompareOp::GreaterEqual => dref >= t,
        CompareOp::Always => true,
    };
    if r {
        1.0
    } else {
        0.0
    }
}

fn sample_level(
    img: &Image,
    s: &Sampler,
    c: [f64; 3],
    layer: u32,
    level: u32,
    off: [i64; 3],
    dref: Option<f64>,
) -> [f64; 4] {
    let (layer, uvw, modes) = resolve(img, s, c, layer);
    let (w, h, d) = img.mip_size(level);
    let size = [w as f64, h as f64, d as f64];
    let ndim = match img.dim {
        ImageDim::Buffer | ImageDim::D1 => 1,
        ImageDim::D2 | ImageDim::Cube => 2,
        ImageDim::D3 => 3,
    };
    let fetch = |ijk: [i64; 3]| {
        let t = texel_f(img, level, layer, ijk, modes);
        match dref {
            Some(r) => [compare(s.compare, r, t[0]), 0.0, 0.0, 0.0],
            None => t,
        }
    };
    match s.filter {
        Filter::Point => {
            let mut ijk = [0i64; 3];
            for k in 0..ndim {
                ijk[k] = ((uvw[k] * size[k]).floor() as i64).saturating_add(off[k]);
            }
            fetch(ijk)
        }
        Filter::Linear => {
            let mut base = [0i64; 3];
            let mut frac = [0f64; 3];
            for k in 0..ndim {
                let x = uvw[k] * size[k] - 0.5;
                base[k] = (x.floor() as i64).saturating_add(off[k]);
                frac[k] = x - x.floor();
            }
            let mut acc = [0f64; 4];
            for corner in 0..(1 << ndim) {
                let mut wgt = 1.0;
                let mut ijk = base;
                for k in 0..ndim {
                    if corner >> k & 1 == 1 {
                        ijk[k] = ijk[k].saturating_add(1);
                        wgt *= frac[k];
                    } else {
                        wgt *= 1.0 - frac[k];
                    }
                }
                let t = fetch(ijk);
                for (a, v) in acc.iter_mut().zip(t) {
                    *a += wgt * v;
                }
            }
            acc
        }
    }
}

/// Filtered sample at level of detail `lod` (already including bias and clamp).
pub fn sample(
    img: &Image,
    s: &Sampler,
    c: [f64; 3],
    layer: u32,
    lod: f64,
    off: [i64; 3],
    dref: Option<f64>,
) -> [f32; 4] {
    let max = img.mips.len().saturating_sub(1) as f64;
    let lod = if lod.is_nan() {
        0.0
    } else {
        lod.clamp(0.0, max)
    };
    let r = match s.filter {
        Filter::Point => sample_level(
            img,
            s,
            c,
            layer,
            (lod + 0.5).floor().min(max) as u32,
            off,
            dref,
        ),
        Filter::Linear => {
            let l0 = lod.floor();
            let f = lod - l0;
            let a = sample_level(img, s, c, layer, l0 as u32, off, dref);
            if f == 0.0 {
                a
            } else {
                let b = sample_level(img, s, c, layer, (l0 as u32 + 1).min(max as u32), off, dref);
                std::array::from_fn(|k| a[k] * (1.0 - f) + b[k] * f)
            }
        }
    };
    r.map(|x| x as f32)
}

/// LOD from coordinate derivatives (normalized coordinates, scaled by the mip-0 size).
pub fn compute_lod(img: &Image, c: [f64; 3], dx: [f64; 3], dy: [f64; 3]) -> f64 {
    let (w, h, d) = img.mip_size(0);
    let mut size = [w as f64, h as f64, d as f64];
    let mut n = match img.dim {
        ImageDim::Buffer | ImageDim::D1 => 1,
        ImageDim::D2 => 2,
        ImageDim::Cube | ImageDim::D3 => 3,
    };
    if img.dim == ImageDim::Cube {
        let ma = c.iter().fold(0f64, |m, v| m.max(v.abs())).max(1e-30);
        size = [w as f64 * 0.5 / ma; 3];
        n = 3;
    }
    let len = |g: [f64; 3]| (0..n).map(|k| (g[k] * size[k]).powi(2)).sum::<f64>().sqrt();
    let rho = len(dx).max(len(dy));
    rho.log2()
}

/// Gather of one component (or of depth comparisons) from mip 0.
pub fn gather(
    img: &Image,
    s: &Sampler,
    c: [f64; 3],
    layer: u32,
    off: [i64; 2],
    comp: usize,
    dref: Option<f64>,
) -> [u32; 4] {
    let (layer, uvw, modes) = resolve(img, s, c, layer);
    let (w, h, _) = img.mip_size(0);
    let x = uvw[0] * w as f64 - 0.5;
    let y = uvw[1] * h as f64 - 0.5;
    let (i0, j0) = (
        (x.floor() as i64).saturating_add(off[0]),
        (y.floor() as i64).saturating_add(off[1]),
    );
    let pick = |i: i64, j: i64| -> u32 {
        let mut p = [0i64; 3];
        let dims = [w, h];
        for (k, v) in [i, j].into_iter().enumerate() {
            match wrap(v, dims[k], modes[k]) {
                Some(q) => p[k] = q,
                None => return 0,
            }
        }
        let t = img.texel(0, layer, p[0], p[1], 0).unwrap_or([0; 4]);
        match dref {
            Some(r) => (compare(s.compare, r, f32::from_bits(t[0]) as f64) as f32).to_bits(),
            None => t[comp.min(3)],
        }
    };
    let (i1, j1) = (i0.saturating_add(1), j0.saturating_add(1));
    [pick(i0, j1), pick(i1, j1), pick(i1, j0), pick(i0, j0)]
}
