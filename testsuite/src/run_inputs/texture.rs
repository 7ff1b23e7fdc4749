//! Textures of run inputs: an [`Image`] from a JSON description — explicit texels per mip
//! level, or PNG files — of any size, with mip levels, array layers and cube faces.
//!
//! Keys: `dim` (`1d`, `2d`, `3d`, `cube`, `buffer`; default: what the shader declares at the
//! binding), `width`, `height`, `depth`, `layers` (a cube's six faces count as six layers;
//! default 1, 6 for a cube), `format` (`float`: a JSON number with a fraction or exponent is an
//! f32, an integer or a `"0x…"` string a raw dword, as for constant buffers; `unorm8`: integers
//! 0–255 become the f32 `n/255`), `mips` (one array per level, each of `layers × depth × height
//! × width` texels in layer, z, y, x order; a texel is 1–4 numbers, missing green/blue read 0
//! and missing alpha 1), `png` (one file per level; layers and depth slices stacked vertically;
//! 8- or 16-bit grey, grey+alpha, RGB or RGBA read as unorm f32) and `generate_mips` (`true`
//! for the full chain, or a level count: each level the 2×2(×2) box average of the one above,
//! computed in f64 and rounded to f32). Level `l` has size `max(1, size >> l)`.

use super::png;
use irc_interp::{Binding, Image, ImageDim};
use irc_ir::{Module, OpCode, ResourceKind};
use serde_json::Value as Json;
use std::path::Path;

/// Largest width/height/depth accepted.
pub const MAX_SIZE: u32 = 16384;
/// Largest number of texels over all levels and layers accepted.
pub const MAX_TEXELS: u64 = 1 << 24;

/// The image the shader's declaration at `b` implies, if it declares one.
pub fn declared_dim(m: &Module, b: Binding) -> Option<ImageDim> {
    let op = m.declarations().map(|d| m.op(d)).find(|op| {
        let f = irc_ir::format::DclBinding::of(op);
        op.opcode == OpCode::DclSrv
            && f.space() == Some(u64::from(b.space))
            && f.register() == Some(u64::from(b.register))
    })?;
    let kind = irc_ir::format::DclBinding::of(op)
        .kind()
        .and_then(ResourceKind::from_u64)?;
    Some(match kind {
        ResourceKind::Image1D | ResourceKind::Image1DArray => ImageDim::D1,
        ResourceKind::Image3D => ImageDim::D3,
        ResourceKind::ImageCube | ResourceKind::ImageCubeArray => ImageDim::Cube,
        ResourceKind::BufferTyped => ImageDim::Buffer,
        _ => ImageDim::D2,
    })
}

fn dim_of(s: &str) -> Result<ImageDim, String> {
    Ok(match s {
        "1d" => ImageDim::D1,
        "2d" => ImageDim::D2,
        "3d" => ImageDim::D3,
        "cube" => ImageDim::Cube,
        "buffer" => ImageDim::Buffer,
        _ => return Err(format!("dim `{s}` (1d, 2d, 3d, cube, buffer)")),
    })
}

/// A texel component as a raw dword under `format`.
fn dword(x: &Json, unorm8: bool) -> Result<u32, String> {
    match x {
        Json::Number(n) if unorm8 && !n.is_f64() => {
            let v = n
                .as_u64()
                .filter(|&v| v <= 255)
                .ok_or("unorm8 values are 0–255")?;
            Ok((v as f32 / 255.0).to_bits())
        }
        Json::Number(n) if n.is_f64() => Ok((n.as_f64().unwrap_or(0.0) as f32).to_bits()),
        Json::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(v), _) if v <= u64::from(u32::MAX) => Ok(v as u32),
            (_, Some(v)) if v >= i64::from(i32::MIN) => Ok(v as i32 as u32),
            _ => Err(format!("{n} does not fit a dword")),
        },
        Json::String(s) => match s.as_str() {
            "nan" => Ok(f32::NAN.to_bits()),
            "inf" => Ok(f32::INFINITY.to_bits()),
            "-inf" => Ok(f32::NEG_INFINITY.to_bits()),
            _ => s
                .strip_prefix("0x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("`{s}`: expected 0x…, nan, inf or -inf")),
        },
        other => Err(format!("texel component {other} is not a number")),
    }
}

fn texel(x: &Json, unorm8: bool) -> Result<[u32; 4], String> {
    let comps: Vec<&Json> = match x {
        Json::Array(c) if !c.is_empty() && c.len() <= 4 => c.iter().collect(),
        Json::Number(_) | Json::String(_) => vec![x],
        _ => return Err(format!("a texel is 1–4 numbers, found {x}")),
    };
    let mut t = [0, 0, 0, 1.0f32.to_bits()];
    for (i, c) in comps.iter().enumerate() {
        t[i] = dword(c, unorm8)?;
    }
    Ok(t)
}

fn get_u32(obj: &serde_json::Map<String, Json>, k: &str) -> Result<Option<u32>, String> {
    match obj.get(k) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|&v| (1..=u64::from(MAX_SIZE)).contains(&v))
            .map(|v| Some(v as u32))
            .ok_or_else(|| format!("`{k}` must be an integer in 1..={MAX_SIZE}")),
    }
}

/// Builds the image described by `desc` for SRV binding `b` of `m`.
pub fn build(m: &Module, b: Binding, desc: &Json, base_dir: &Path) -> Result<Image, String> {
    let obj = desc.as_object().ok_or("a texture is a JSON object")?;
    for k in obj.keys() {
        if ![
            "dim",
            "width",
            "height",
            "depth",
            "layers",
            "format",
            "mips",
            "png",
            "generate_mips",
        ]
        .contains(&k.as_str())
        {
            return Err(format!("unknown key `{k}`"));
        }
    }
    let dim = match obj.get("dim") {
        Some(d) => dim_of(d.as_str().ok_or("`dim` is a string")?)?,
        None => declared_dim(m, b).unwrap_or(ImageDim::D2),
    };
    let unorm8 = match obj.get("format").map(|f| f.as_str()) {
        None | Some(Some("float")) => false,
        Some(Some("unorm8")) => true,
        _ => return Err("`format` is `float` or `unorm8`".into()),
    };
    let mut layers = get_u32(obj, "layers")?.unwrap_or(if dim == ImageDim::Cube { 6 } else { 1 });
    if dim == ImageDim::Cube && layers % 6 != 0 {
        return Err(format!("a cube has a multiple of 6 layers, not {layers}"));
    }
    let depth = get_u32(obj, "depth")?.unwrap_or(1);
    let (mut width, mut height) = (get_u32(obj, "width")?, get_u32(obj, "height")?);
    let mut levels: Vec<Vec<[u32; 4]>> = Vec::new();
    if let Some(p) = obj.get("png") {
        let files: Vec<&str> = match p {
            Json::String(s) => vec![s.as_str()],
            Json::Array(a) => a
                .iter()
                .map(|f| f.as_str().ok_or("`png` lists file names"))
                .collect::<Result<_, _>>()?,
            _ => return Err("`png` is a file name or a list of them".into()),
        };
        let slices = layers * if dim == ImageDim::D3 { depth } else { 1 };
        for (level, f) in files.iter().enumerate() {
            let img = png::read(&base_dir.join(f))?;
            if img.height % slices != 0 {
                return Err(format!(
                    "{f}: height {} is not a multiple of {slices} stacked layers/slices",
                    img.height
                ));
            }
            if level == 0 {
                width.get_or_insert(img.width);
                height.get_or_insert(img.height / slices);
            }
            levels.push(img.texels);
        }
    } else if let Some(ms) = obj.get("mips") {
        let ms = ms.as_array().ok_or("`mips` is an array of levels")?;
        for (l, level) in ms.iter().enumerate() {
            let ts = level
                .as_array()
                .ok_or_else(|| format!("mip {l}: a level is an array of texels"))?;
            if ts.len() as u64 > MAX_TEXELS {
                return Err(format!("mip {l}: more than {MAX_TEXELS} texels"));
            }
            levels.push(
                ts.iter()
                    .map(|t| texel(t, unorm8))
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("mip {l}: {e}"))?,
            );
        }
    } else {
        return Err("a texture needs `mips` or `png`".into());
    }
    if levels.is_empty() {
        return Err("a texture needs at least one level".into());
    }
    let (width, height) = match (dim, width, height) {
        (ImageDim::D1 | ImageDim::Buffer, w, _) => {
            (w.unwrap_or(levels[0].len() as u32 / layers.max(1)), 1)
        }
        (_, Some(w), Some(h)) => (w, h),
        _ => return Err("`width` and `height` are needed for texel lists".into()),
    };
    if dim == ImageDim::Buffer {
        layers = 1;
    }
    if (width as u64) * (height as u64) * (depth as u64) * (layers as u64) > MAX_TEXELS {
        return Err(format!("more than {MAX_TEXELS} texels"));
    }
    let mut img = Image {
        dim,
        width,
        height,
        depth: if dim == ImageDim::D3 { depth } else { 1 },
        layers,
        mips: Vec::new(),
    };
    let max_levels = 32 - width.max(height).max(img.depth).leading_zeros();
    if levels.len() as u32 > max_levels {
        return Err(format!(
            "{} levels given, a {width}×{height}×{} image has {max_levels}",
            levels.len(),
            img.depth
        ));
    }
    for (l, texels) in levels.into_iter().enumerate() {
        let (w, h, d) = img.mip_size(l as u32);
        let want = u64::from(w) * u64::from(h) * u64::from(d) * u64::from(layers);
        if texels.len() as u64 != want {
            return Err(format!(
                "mip {l}: {} texels given, {w}×{h}×{d} × {layers} layers needs {want}",
                texels.len()
            ));
        }
        img.mips.push(texels);
    }
    let wanted = match obj.get("generate_mips") {
        None | Some(Json::Bool(false)) => 0,
        Some(Json::Bool(true)) => max_levels,
        Some(n) => n
            .as_u64()
            .filter(|&n| (1..=u64::from(max_levels)).contains(&n))
            .ok_or_else(|| format!("`generate_mips` is true or a level count 1..={max_levels}"))?
            as u32,
    };
    while (img.mips.len() as u32) < wanted {
        let next = downsample(&img, img.mips.len() as u32 - 1);
        img.mips.push(next);
    }
    Ok(img)
}

/// Level `level + 1` of `img` as the box average of `level` (f32 texel values).
fn downsample(img: &Image, level: u32) -> Vec<[u32; 4]> {
    let (w, h, d) = img.mip_size(level + 1);
    let (sw, sh, sd) = img.mip_size(level);
    let mut out = Vec::with_capacity((w * h * d * img.layers) as usize);
    for layer in 0..img.layers.max(1) {
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let mut acc = [0f64; 4];
                    let mut n = 0.0;
                    for (dz, dy, dx) in (0..2)
                        .flat_map(|a| (0..2).flat_map(move |b| (0..2).map(move |c| (a, b, c))))
                    {
                        let (sx, sy, sz) = (
                            (2 * x + dx).min(sw - 1),
                            (2 * y + dy).min(sh - 1),
                            (2 * z + dz).min(sd - 1),
                        );
                        if let Some(t) = img.texel(level, layer, sx.into(), sy.into(), sz.into()) {
                            for k in 0..4 {
                                acc[k] += f64::from(f32::from_bits(t[k]));
                            }
                            n += 1.0;
                        }
                    }
                    out.push(acc.map(|a| ((a / n) as f32).to_bits()));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module() -> Module {
        irc_ir::text::parse(
            "%1 = EntryPoint %10 Pixel\n%2 = f32 DclSrv %1 0 0 1 ImageCube\n\n\
             %10 = Function\n%11 = Label None\n  %12 = Return\n%13 = FunctionEnd\n",
        )
        .expect("parses")
    }

    fn b(r: u32) -> Binding {
        Binding {
            space: 0,
            register: r,
        }
    }

    #[test]
    fn texel_lists_with_mips_and_generated_levels() {
        let desc: Json = serde_json::from_str(
            r#"{"width": 2, "height": 2, "mips": [[[1.0], [0.0, 1.0], 7, "0x3f000000"]],
                "generate_mips": true}"#,
        )
        .expect("json");
        let img = build(&module(), b(1), &desc, Path::new(".")).expect("builds");
        assert_eq!(img.dim, ImageDim::D2);
        assert_eq!(img.mips.len(), 2);
        assert_eq!(img.mips[0][0], [1.0f32.to_bits(), 0, 0, 1.0f32.to_bits()]);
        assert_eq!(img.mips[0][2], [7, 0, 0, 1.0f32.to_bits()]);
        // Level 1 averages the red channels 1, 0, 7 (raw bits 7 = a denormal, ≈ 0) and 0.5.
        let r = f32::from_bits(img.mips[1][0][0]);
        assert!((r - 0.375).abs() < 1e-6, "{r}");
        assert_eq!(f32::from_bits(img.mips[1][0][3]), 1.0);
    }

    #[test]
    fn the_declared_cube_gets_six_faces_and_sizes_are_checked() {
        let face = |v: f64| format!("[{v}]");
        let texels: Vec<String> = (0..6).map(|f| face(f as f64 + 0.5)).collect();
        let desc: Json = serde_json::from_str(&format!(
            r#"{{"width": 1, "height": 1, "mips": [[{}]]}}"#,
            texels.join(",")
        ))
        .expect("json");
        let img = build(&module(), b(0), &desc, Path::new(".")).expect("builds");
        assert_eq!((img.dim, img.layers), (ImageDim::Cube, 6));
        assert_eq!(f32::from_bits(img.mips[0][5][0]), 5.5);
        for bad in [
            r#"{"width": 2, "height": 2, "mips": [[[1.0]]]}"#,
            r#"{"width": 1, "height": 1, "mips": [[[1.0]], [[1.0]]]}"#,
            r#"{"width": 100000, "height": 1, "mips": [[]]}"#,
            r#"{"width": 1, "height": 1}"#,
            r#"{"width": 1, "height": 1, "mips": [[[1, 2, 3, 4, 5]]]}"#,
            r#"{"width": 1, "height": 1, "format": "unorm8", "mips": [[[256]]]}"#,
            r#"{"width": 1, "height": 1, "mips": [[[1.0]]], "colour": 1}"#,
        ] {
            let desc: Json = serde_json::from_str(bad).expect("json");
            assert!(
                build(&module(), b(1), &desc, Path::new(".")).is_err(),
                "{bad}"
            );
        }
    }
}
