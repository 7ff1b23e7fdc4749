//! JSON run inputs (`irc run --inputs FILE`): the run-line assignments of
//! [`crate::runline`] as JSON, plus real textures (any size, mip levels, array layers, cube
//! faces; from texel lists or PNG files) and sampler state. The format is documented in
//! `docs/run-inputs.md`; in short:
//!
//! ```json
//! { "v0": [0.5, 0.25], "v0.ddx": [0.125, 0.0], "v0.ddy": [0.0, 0.125], "pixel": [8, 4],
//!   "cb0": [1.0, 2, 3, 4],
//!   "textures": { "t0": { "width": 4, "height": 4,
//!                         "mips": [[[1.0, 0.0, 0.0, 1.0], …16 texels…], [[…], …4…], [[…]]] },
//!                 "t1": { "png": ["albedo.png"], "generate_mips": true } },
//!   "samplers": { "s0": { "filter": "linear", "address": ["wrap", "clamp"], "lod_bias": 0.5 } } }
//! ```
//!
//! Everything but `textures` and `samplers` becomes a run-line assignment (arrays become
//! tuples, JSON floats f32 values, JSON integers raw dwords where the run line reads dwords),
//! so per-lane values (`"v0@2"`), quad planes (`"v0.ddx"`) and the quad's pixel position
//! (`"pixel"`) mean what they mean on a run line. [`texture`] builds the images, [`png`]
//! decodes image files.

pub mod png;
pub mod texture;

use irc_interp::{AddressMode, Binding, CompareOp, Filter, Image, Sampler, ShaderInputs};
use irc_ir::Module;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::Path;

/// Parsed JSON run inputs.
#[derive(Clone, Debug, Default)]
pub struct RunInputs {
    /// Run-line assignments (`NAME`, `VALUE`).
    pub assigns: Vec<(String, String)>,
    /// Texture descriptions by SRV binding (built against the module in [`RunInputs::apply`]).
    pub textures: BTreeMap<Binding, Json>,
    /// Samplers by sampler binding.
    pub samplers: BTreeMap<Binding, Sampler>,
    /// Directory that relative PNG paths are read from.
    pub base_dir: std::path::PathBuf,
}

impl RunInputs {
    /// Parses `src`: inline JSON when it starts with `{`, else the path of a JSON file (PNG
    /// paths inside are then relative to that file's directory).
    pub fn parse(src: &str) -> Result<RunInputs, String> {
        let (text, base_dir) = if src.trim_start().starts_with('{') {
            (src.to_string(), std::path::PathBuf::from("."))
        } else {
            let p = Path::new(src);
            let text = std::fs::read_to_string(p).map_err(|e| format!("{src}: {e}"))?;
            let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
            (text, dir)
        };
        let v: Json = serde_json::from_str(&text).map_err(|e| format!("inputs: {e}"))?;
        let obj = v.as_object().ok_or("inputs: expected a JSON object")?;
        let mut r = RunInputs {
            base_dir,
            ..RunInputs::default()
        };
        for (k, x) in obj {
            match k.as_str() {
                "textures" => {
                    let t = x
                        .as_object()
                        .ok_or("inputs: `textures` must be an object")?;
                    for (name, desc) in t {
                        let b = binding(name, 't').map_err(|e| format!("inputs: textures: {e}"))?;
                        r.textures.insert(b, desc.clone());
                    }
                }
                "samplers" => {
                    let t = x
                        .as_object()
                        .ok_or("inputs: `samplers` must be an object")?;
                    for (name, desc) in t {
                        let b = binding(name, 's').map_err(|e| format!("inputs: samplers: {e}"))?;
                        let s =
                            sampler(desc).map_err(|e| format!("inputs: sampler {name}: {e}"))?;
                        r.samplers.insert(b, s);
                    }
                }
                _ => r.assigns.push((
                    k.clone(),
                    assign_value(x).map_err(|e| format!("inputs: {k}: {e}"))?,
                )),
            }
        }
        Ok(r)
    }

    /// Adds the textures (typed by the module's SRV declarations) and samplers to `inputs`.
    pub fn apply(&self, m: &Module, inputs: &mut ShaderInputs) -> Result<(), String> {
        for (b, desc) in &self.textures {
            let img: Image = texture::build(m, *b, desc, &self.base_dir)
                .map_err(|e| format!("texture t{}: {e}", b.register))?;
            inputs.srvs.insert(*b, irc_interp::Resource::Image(img));
            inputs.samplers.entry(*b).or_default();
        }
        for (b, s) in &self.samplers {
            inputs.samplers.insert(*b, *s);
        }
        Ok(())
    }
}

/// `tN` / `tN.S` (or `sN…`) → binding.
fn binding(name: &str, prefix: char) -> Result<Binding, String> {
    let rest = name
        .strip_prefix(prefix)
        .ok_or_else(|| format!("`{name}`: expected {prefix}N or {prefix}N.SPACE"))?;
    let (r, s) = rest.split_once('.').unwrap_or((rest, "0"));
    let p = |x: &str| {
        x.parse::<u32>()
            .map_err(|_| format!("`{name}`: expected {prefix}N or {prefix}N.SPACE"))
    };
    Ok(Binding {
        space: p(s)?,
        register: p(r)?,
    })
}

/// One JSON scalar in run-line spelling (floats keep a fraction so they read as floats).
pub fn scalar_text(x: &Json) -> Result<String, String> {
    match x {
        Json::Number(n) if n.is_f64() => Ok(format!("{:?}", n.as_f64().unwrap_or(0.0))),
        Json::Number(n) => Ok(n.to_string()),
        Json::Bool(b) => Ok(b.to_string()),
        Json::String(s) => Ok(s.clone()),
        other => Err(format!("unexpected value {other}")),
    }
}

/// A JSON value (scalar or flat array) as a run-line value.
fn assign_value(x: &Json) -> Result<String, String> {
    match x {
        Json::Array(items) => {
            let parts: Result<Vec<String>, String> = items.iter().map(scalar_text).collect();
            Ok(format!("({})", parts?.join(",")))
        }
        other => scalar_text(other),
    }
}

fn address_mode(s: &str) -> Result<AddressMode, String> {
    Ok(match s {
        "wrap" | "repeat" => AddressMode::Wrap,
        "clamp" => AddressMode::Clamp,
        "mirror" => AddressMode::Mirror,
        "border" => AddressMode::Border,
        _ => return Err(format!("address mode `{s}` (wrap, clamp, mirror, border)")),
    })
}

/// A sampler description: `filter`, `address` (one mode or up to three), `lod_bias`,
/// `compare`.
fn sampler(desc: &Json) -> Result<Sampler, String> {
    let obj = desc.as_object().ok_or("expected an object")?;
    let mut s = Sampler::default();
    for (k, v) in obj {
        match k.as_str() {
            "filter" => {
                s.filter = match v.as_str() {
                    Some("point") | Some("nearest") => Filter::Point,
                    Some("linear") => Filter::Linear,
                    _ => return Err(format!("filter {v} (point, linear)")),
                }
            }
            "address" => match v {
                Json::String(m) => s.address = [address_mode(m)?; 3],
                Json::Array(ms) if !ms.is_empty() && ms.len() <= 3 => {
                    for (i, m) in ms.iter().enumerate() {
                        s.address[i] =
                            address_mode(m.as_str().ok_or("address modes are strings")?)?;
                    }
                }
                _ => return Err("address: a mode or an array of 1–3 modes".into()),
            },
            "lod_bias" => s.lod_bias = v.as_f64().ok_or("lod_bias must be a number")? as f32,
            "compare" => {
                s.compare = match v.as_str() {
                    Some("never") => CompareOp::Never,
                    Some("less") => CompareOp::Less,
                    Some("equal") => CompareOp::Equal,
                    Some("less_equal") => CompareOp::LessEqual,
                    Some("greater") => CompareOp::Greater,
                    Some("not_equal") => CompareOp::NotEqual,
                    Some("greater_equal") => CompareOp::GreaterEqual,
                    Some("always") => CompareOp::Always,
                    _ => return Err(format!("compare {v}")),
                }
            }
            _ => {
                return Err(format!(
                    "unknown key `{k}` (filter, address, lod_bias, compare)"
                ))
            }
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_samplers_and_bindings_parse() {
        let r = RunInputs::parse(
            r#"{"v0": [0.5, 1], "v0@2": [1.0, 2.0], "pixel": [3, 4],
                "samplers": {"s1.2": {"filter": "linear", "address": ["clamp", "mirror"],
                             "lod_bias": -1.5, "compare": "greater"}}}"#,
        )
        .expect("parses");
        assert!(r.assigns.contains(&("v0".into(), "(0.5,1)".into())));
        assert!(r.assigns.contains(&("v0@2".into(), "(1.0,2.0)".into())));
        let s = r.samplers[&Binding {
            space: 2,
            register: 1,
        }];
        assert_eq!(s.filter, Filter::Linear);
        assert_eq!(
            s.address,
            [AddressMode::Clamp, AddressMode::Mirror, AddressMode::Wrap]
        );
        assert_eq!(s.lod_bias, -1.5);
        assert_eq!(s.compare, CompareOp::Greater);
    }

    #[test]
    fn bad_descriptions_are_errors_not_panics() {
        for bad in [
            "[1]",
            r#"{"samplers": {"x0": {}}}"#,
            r#"{"samplers": {"s0": {"filter": "cubic"}}}"#,
            r#"{"samplers": {"s0": {"address": []}}}"#,
            r#"{"textures": {"t0": 5}, "v0": {"a": 1}}"#,
        ] {
            assert!(RunInputs::parse(bad).is_err(), "{bad}");
        }
    }
}
