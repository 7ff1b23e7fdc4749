//! `; run:` lines: inputs for the reference interpreter and the outputs to expect.
//!
//! ```text
//! ; run: v0=(0.5,0.25,0,1) cb0=(2.0,0,0,0) => o0=(1.0,0.5,0,2.0)
//! ; run: v0=(0,0,0,0) => discard
//! ```
//!
//! Assignments (before `=>`), separated by spaces, no spaces inside a value:
//! - `vN=VALUE` / `vN.C=VALUE`: input location N (component C, default 0), typed by its
//!   `DclInput`; the same value is given to every invocation (all four lanes of a pixel quad)
//!   unless one of the per-lane forms below says otherwise.
//! - Pixel quads (lanes `0..4` = pixels (0,0), (1,0), (0,1), (1,1) of the quad):
//!   `NAME@L=VALUE` gives lane L its own value of input NAME (after everything else);
//!   `NAME.ddx=VALUE` / `NAME.ddy=VALUE` make NAME a plane over the quad — lane (x, y) reads
//!   `NAME + x·ddx + y·ddy` (float components, rounded to their type; the value of NAME is the
//!   top-left pixel's), as an interpolated varying with those screen-space derivatives is;
//!   `pixel=(X,Y)` puts the quad's top-left pixel at (X, Y): a declared `Position` reads
//!   `(X + x + 0.5, Y + y + 0.5, z, w)` (z, w from `Position=` if given, else 0 and 1).
//! - `<BuiltIn>=VALUE` (`Position`, `IsFrontFace`, `VertexId`, …): a built-in input. A struct
//!   or array built-in takes a flat tuple of all its scalars in order, each read as its
//!   member's type (`LegacyAlphaTest=(7,0,0)` for `{u32,u32,u32}`).
//! - `cbN=(d0,d1,…)` / `cbN.S=(…)`: the dwords of constant buffer register N (space S, default
//!   0); a number with a `.`, an exponent, `inf` or `nan` is an f32, a plain integer a raw dword.
//! - `tN=(r,g,b,a)` / `tN.S=(…)`: SRV register N is a 1×1 image of that texel (dwords as for
//!   `cb`) of the type the shader declares there (2D, 3D, or a cube with that texel on every
//!   face), and sampler register N a default (point, wrap) sampler.
//!
//! Expectations (after `=>`): `oN=VALUE` / `oN.C=VALUE` / `<BuiltIn>=VALUE` for outputs (typed
//! by their declaration, compared bit for bit except that any NaN matches `nan`), `discard`
//! (every lane discarded) and `kept` (no lane discarded). Outputs are checked on every lane;
//! `oN@L=VALUE` checks lane L only. Geometry shaders: `oN#K=VALUE` / `<BuiltIn>#K=VALUE` check
//! the outputs of the K-th vertex emitted to stream 0, `vertices=N` how many were emitted, and
//! `triangles=(a:b:c,…)` the triangles they make (by emitted-vertex index, in drawing order,
//! each equal up to a rotation; the interpreter's triangle strips are turned into triangles
//! by D3D's winding rule, a simulator reports the triangles it assembled).
//! `tolerance=T` relaxes float comparisons to |got − want| ≤ max(T, T·|want|) (for results
//! whose last bits depend on the host's transcendental functions, and later for targets that
//! compute in lower precision).
//!
//! Values: a scalar or a parenthesised tuple (for structs and arrays: of every scalar in
//! flattened order, see [`parse_value`]); scalars are decimal numbers, `-0.0`, `inf`, `-inf`,
//! `nan`, `true`/`false`, or `0x…` for raw bits.

use irc_backend::IoValues;
use irc_interp::{
    Binding, Image, ImageDim, InvocationInputs, IoSlot, Outputs, Resource, Sampler, Scalar,
    ShaderInputs, Value,
};
use irc_ir::format::{DclInput, DclInputBuiltIn, DclOutput, DclOutputBuiltIn};
use irc_ir::{BuiltIn, Module, OpCode, ScalarType, Type};

/// One parsed run line.
#[derive(Clone, Debug, Default)]
pub struct RunLine {
    pub assigns: Vec<(String, String)>,
    pub expects: Vec<Expect>,
    /// `tolerance=T` after `=>`: floats may differ by at most T (absolute) or T relative to
    /// the expected magnitude, whichever is larger. Exact (bitwise) without it.
    pub tolerance: Option<f64>,
}

/// One expectation.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    Output(String, String),
    Discard,
    Kept,
}

impl RunLine {
    /// Parses the text after `; run:`.
    pub fn parse(s: &str) -> Result<RunLine, String> {
        let (lhs, rhs) = s.split_once("=>").ok_or("a run line needs `=>`")?;
        let mut r = RunLine::default();
        for tok in lhs.split_whitespace() {
            let (k, v) = tok
                .split_once('=')
                .ok_or_else(|| format!("`{tok}`: expected NAME=VALUE"))?;
            r.assigns.push((k.to_string(), v.to_string()));
        }
        for tok in rhs.split_whitespace() {
            r.expects.push(match tok {
                "discard" => Expect::Discard,
                "kept" => Expect::Kept,
                _ if tok.starts_with("tolerance=") => {
                    let t = &tok["tolerance=".len()..];
                    let v: f64 = t.parse().map_err(|_| format!("bad tolerance `{t}`"))?;
                    r.tolerance = Some(v);
                    continue;
                }
                _ => {
                    let (k, v) = tok
                        .split_once('=')
                        .ok_or_else(|| format!("`{tok}`: expected NAME=VALUE"))?;
                    Expect::Output(k.to_string(), v.to_string())
                }
            });
        }
        Ok(r)
    }

    /// The interpreter inputs this line describes for `m`.
    pub fn inputs(&self, m: &Module) -> Result<ShaderInputs, String> {
        let mut inv = InvocationInputs::default();
        let mut inputs = ShaderInputs::default();
        let n_lanes = invocation_count(m);
        let mut quad = crate::quad_inputs::QuadSpec::default();
        for (k, v) in &self.assigns {
            if let Some(rest) = k.strip_prefix("cb") {
                let (reg, space) = split_index(rest)?;
                let dwords = parse_tuple(v)?
                    .iter()
                    .map(|s| parse_dword(s))
                    .collect::<Result<_, _>>()?;
                inputs.cbvs.insert(
                    Binding {
                        space,
                        register: reg,
                    },
                    dwords,
                );
                continue;
            }
            if let Some(rest) = k
                .strip_prefix('t')
                .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            {
                let (reg, space) = split_index(rest)?;
                let texel: Vec<u32> = parse_tuple(v)?
                    .iter()
                    .map(|s| parse_dword(s))
                    .collect::<Result<_, _>>()?;
                let [r, g, b, a] = texel[..] else {
                    return Err(format!("`{k}`: a texel has four components"));
                };
                let binding = Binding {
                    space,
                    register: reg,
                };
                // The image type the shader declares at the binding (2D when undeclared).
                let kind = m
                    .declarations()
                    .map(|d| m.op(d))
                    .find(|op| {
                        let b = irc_ir::format::DclBinding::of(op);
                        op.opcode == OpCode::DclSrv
                            && b.space() == Some(u64::from(space))
                            && b.register() == Some(u64::from(reg))
                    })
                    .and_then(|op| {
                        irc_ir::format::DclBinding::of(op)
                            .kind()
                            .and_then(irc_ir::ResourceKind::from_u64)
                    });
                let (dim, size) = match kind {
                    Some(irc_ir::ResourceKind::ImageCube) => (ImageDim::Cube, (1, 1, 1, 6)),
                    Some(irc_ir::ResourceKind::Image3D) => (ImageDim::D3, (1, 1, 1, 1)),
                    _ => (ImageDim::D2, (1, 1, 1, 1)),
                };
                let image = Image::from_fn(dim, size, 1, |_, _, _, _, _| [r, g, b, a]);
                inputs.srvs.insert(binding, Resource::Image(image));
                inputs.samplers.insert(binding, Sampler::default());
                continue;
            }
            if k == "pixel" {
                let p = parse_tuple(v)?;
                let [x, y] = p[..] else {
                    return Err(format!("`pixel={v}`: expected (X,Y)"));
                };
                quad.pixel = Some((parse_f64(x)?, parse_f64(y)?));
                continue;
            }
            let (name, lane) = match k.split_once('@') {
                Some((n, l)) => {
                    let l: usize = l
                        .parse()
                        .ok()
                        .filter(|&l| l < n_lanes)
                        .ok_or_else(|| format!("`{k}`: lane must be below {n_lanes}"))?;
                    (n, Some(l))
                }
                None => (k.as_str(), None),
            };
            let deriv = [(".ddx", 0), (".ddy", 1)]
                .into_iter()
                .find_map(|(sfx, i)| name.strip_suffix(sfx).map(|n| (n, i)));
            if let Some((base, axis)) = deriv {
                if n_lanes < 4 || lane.is_some() {
                    return Err(format!(
                        "`{k}`: derivatives are given for a whole pixel quad"
                    ));
                }
                let (slot, ty) = slot_of(m, base, OpCode::DclInput, OpCode::DclInputBuiltIn)?;
                quad.planes.entry(slot).or_default()[axis] = Some(parse_value(&ty, v)?);
                continue;
            }
            let (slot, ty) = slot_of(m, name, OpCode::DclInput, OpCode::DclInputBuiltIn)?;
            let value = parse_value(&ty, v)?;
            match lane {
                Some(l) => quad.lanes.push((l, slot, value)),
                None => {
                    inv.io.insert(slot, value);
                }
            }
        }
        inputs.invocations = crate::quad_inputs::lanes(m, &inv, &quad, n_lanes)?;
        Ok(inputs)
    }

    /// Checks the interpreter's outputs against the expectations; returns the mismatches.
    pub fn check(&self, m: &Module, out: &Outputs) -> Result<Vec<String>, String> {
        self.check_with(m, out, None, &|_| {})
    }

    /// [`RunLine::check`]; a geometry shader's triangles are `triangles` when given (a
    /// simulator's), else made from the interpreter's strips.
    pub fn check_with(
        &self,
        m: &Module,
        out: &Outputs,
        triangles: Option<&[Vec<usize>]>,
        stored: &dyn Fn(&mut IoValues),
    ) -> Result<Vec<String>, String> {
        let mut bad = Vec::new();
        let emitted: Vec<&irc_interp::GsVertex> =
            out.gs_vertices.iter().filter(|v| v.stream == 0).collect();
        for e in &self.expects {
            match e {
                Expect::Output(k, v) if k == "vertices" => {
                    let want: usize = v.parse().map_err(|_| format!("bad count `{v}`"))?;
                    if emitted.len() != want {
                        bad.push(format!(
                            "{} vertices emitted, expected {want}",
                            emitted.len()
                        ));
                    }
                }
                Expect::Output(k, v) if k == "triangles" => {
                    let mut want = Vec::new();
                    for t in parse_tuple(v)? {
                        let idx: Result<Vec<usize>, _> = t.split(':').map(str::parse).collect();
                        want.push(idx.map_err(|_| format!("bad triangle `{t}`"))?);
                    }
                    let topology = crate::harness::gs::output_topology(m)
                        .ok_or("`triangles=` needs a geometry shader")?;
                    let got = match triangles {
                        Some(t) => t.to_vec(),
                        None => crate::harness::gs::strip_primitives(out, topology),
                    };
                    let same = got.len() == want.len()
                        && got
                            .iter()
                            .zip(&want)
                            .all(|(g, w)| crate::harness::gs::same_up_to_rotation(g, w));
                    if !same {
                        bad.push(format!("triangles {got:?}, expected {want:?}"));
                    }
                }
                Expect::Output(k, v) if k.contains('#') => {
                    let (name, index) = k.split_once('#').unwrap_or((k, "0"));
                    let index: usize = index
                        .parse()
                        .map_err(|_| format!("`{k}`: bad vertex index"))?;
                    let (slot, ty) = slot_of(m, name, OpCode::DclOutput, OpCode::DclOutputBuiltIn)?;
                    let want = parse_value(&ty, v)?;
                    let got = emitted
                        .get(index)
                        .and_then(|g| g.io.get(&slot).cloned())
                        .unwrap_or(Value::Void);
                    if !values_match(&got, &want, self.tolerance) {
                        bad.push(format!(
                            "emitted vertex {index}: {name} = {}, expected {}",
                            show(&got),
                            show(&want)
                        ));
                    }
                }
                Expect::Discard | Expect::Kept => {
                    let want = *e == Expect::Discard;
                    for (lane, o) in out.invocations.iter().enumerate() {
                        if o.discarded != want {
                            bad.push(format!(
                                "lane {lane}: discarded = {}, expected {want}",
                                o.discarded
                            ));
                        }
                    }
                }
                Expect::Output(k, v) => {
                    let (name, only) = match k.split_once('@') {
                        Some((n, l)) => (
                            n,
                            Some(l.parse::<usize>().map_err(|_| format!("`{k}`: bad lane"))?),
                        ),
                        None => (k.as_str(), None),
                    };
                    let (slot, ty) = slot_of(m, name, OpCode::DclOutput, OpCode::DclOutputBuiltIn)?;
                    let want = stored_value(slot, parse_value(&ty, v)?, stored);
                    if only.is_some_and(|l| l >= out.invocations.len()) {
                        return Err(format!(
                            "`{k}`: the run has {} lanes",
                            out.invocations.len()
                        ));
                    }
                    for (lane, o) in out.invocations.iter().enumerate() {
                        if only.is_some_and(|l| l != lane) {
                            continue;
                        }
                        let got = o.io.get(&slot).cloned().unwrap_or(Value::Void);
                        if !values_match(&got, &want, self.tolerance) {
                            bad.push(format!(
                                "lane {lane}: {k} = {}, expected {}",
                                show(&got),
                                show(&want)
                            ));
                        }
                    }
                }
            }
        }
        Ok(bad)
    }
}

/// `want` (the value of output `slot`) as the program stores it: a float output through
/// `stored` (`Simulator::stored_outputs`, e.g. lima-vp's screen-space position), the rest as
/// it is.
fn stored_value(slot: IoSlot, want: Value, stored: &dyn Fn(&mut IoValues)) -> Value {
    if !matches!(want, Value::Scalar(_) | Value::Vector(_)) {
        return want;
    }
    let scalars = crate::harness::inputs::flat(&want);
    let Some((name, first)) = crate::harness::inputs::io_name(slot) else {
        return want;
    };
    let Some(floats) = scalars
        .iter()
        .map(|&s| match s {
            Scalar::F32(x) => Some(x),
            _ => None,
        })
        .collect::<Option<Vec<f32>>>()
    else {
        return want;
    };
    let mut values: IoValues = (first..)
        .zip(&floats)
        .map(|(c, x)| ((name, c), x.to_bits()))
        .collect();
    stored(&mut values);
    let mapped: Vec<f32> = (first..)
        .take(floats.len())
        .map(|c| f32::from_bits(values[&(name, c)]))
        .collect();
    Value::f32s(&mapped)
}

/// Pixel shaders run as a quad; everything else as one invocation.
fn invocation_count(m: &Module) -> usize {
    let pixel = m.declarations().any(|d| {
        m.opcode(d) == OpCode::EntryPoint
            && m.op(d).operands.last().and_then(|o| o.as_lit())
                == Some(irc_ir::ShaderStage::Pixel.0 as u64)
    });
    if pixel {
        4
    } else {
        1
    }
}

fn split_index(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s.split_once('.').unwrap_or((s, "0"));
    let p = |x: &str| x.parse::<u32>().map_err(|_| format!("bad index `{s}`"));
    Ok((p(a)?, p(b)?))
}

/// The slot and declared type named by `vN[.C]`, `oN[.C]` or a built-in name.
fn slot_of(
    m: &Module,
    name: &str,
    loc_op: OpCode,
    builtin_op: OpCode,
) -> Result<(IoSlot, Type), String> {
    let prefix = if loc_op == OpCode::DclInput { 'v' } else { 'o' };
    let located = name
        .strip_prefix(prefix)
        .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    for d in m.declarations() {
        let op = m.op(d);
        match located {
            Some(rest) if op.opcode == loc_op => {
                let (loc, comp) = split_index(rest)?;
                let (location, component) = match DclInput::try_of(op) {
                    Some(i) => (i.location(), i.component()),
                    None => (DclOutput::of(op).location(), DclOutput::of(op).component()),
                };
                if location == Some(loc as u64) && component == Some(comp as u64) {
                    return Ok((
                        IoSlot::Location {
                            location: loc,
                            component: comp,
                        },
                        op.ty.clone(),
                    ));
                }
            }
            None if op.opcode == builtin_op => {
                let b = match DclInputBuiltIn::try_of(op) {
                    Some(i) => i.builtin(),
                    None => DclOutputBuiltIn::of(op).builtin(),
                };
                let b = b.and_then(BuiltIn::from_u64);
                if b.is_some_and(|b| b.name() == name) {
                    return Ok((
                        IoSlot::BuiltIn(b.map_or(0, |b| b.to_u64() as u32)),
                        op.ty.clone(),
                    ));
                }
            }
            _ => {}
        }
    }
    Err(format!(
        "`{name}` names no declared {}",
        if prefix == 'v' { "input" } else { "output" }
    ))
}

pub(crate) fn parse_tuple(v: &str) -> Result<Vec<&str>, String> {
    match v.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        Some(inner) => Ok(inner.split(',').map(str::trim).collect()),
        None => Ok(vec![v]),
    }
}

fn parse_dword(s: &str) -> Result<u32, String> {
    if let Some(h) = s.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).map_err(|_| format!("bad dword `{s}`"));
    }
    let floaty = s.contains(['.', 'e', 'E']) || s.ends_with("inf") || s == "nan";
    if floaty {
        Ok((parse_f64(s)? as f32).to_bits())
    } else if let Some(neg) = s.strip_prefix('-') {
        neg.parse::<i64>()
            .map(|v| (-v) as i32 as u32)
            .map_err(|_| format!("bad dword `{s}`"))
    } else {
        s.parse::<u32>().map_err(|_| format!("bad dword `{s}`"))
    }
}

pub(crate) fn parse_f64(s: &str) -> Result<f64, String> {
    match s {
        "inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        "nan" => Ok(f64::NAN),
        _ => s.parse::<f64>().map_err(|_| format!("bad number `{s}`")),
    }
}

fn parse_scalar(t: ScalarType, s: &str) -> Result<Scalar, String> {
    let bits = if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16).map_err(|_| format!("bad bits `{s}`"))?
    } else if t == ScalarType::Bool {
        match s {
            "true" | "1" => 1,
            "false" | "0" => 0,
            _ => return Err(format!("bad bool `{s}`")),
        }
    } else if t.is_float() {
        let v = parse_f64(s)?;
        match t {
            ScalarType::F16 | ScalarType::MinF16 | ScalarType::MinF10 => {
                half::f16::from_f64(v).to_bits() as u64
            }
            ScalarType::F64 => v.to_bits(),
            _ => (v as f32).to_bits() as u64,
        }
    } else {
        let v: i128 = s.parse().map_err(|_| format!("bad integer `{s}`"))?;
        v as u64
    };
    Ok(Scalar::from_bits(t, bits))
}

/// Parses a value of type `ty`: a scalar or a tuple of its components for scalars and vectors;
/// for structs and arrays a flat tuple of every scalar in flattened order (vector components,
/// struct members, array elements outermost first, as `Constant` literals list them), each
/// read as its member's scalar type: `{u32,u32,u32}` takes `(7,0,0)`, `f32x2[2]` takes
/// `(1.0,2.0,3.0,4.0)`.
pub fn parse_value(ty: &Type, v: &str) -> Result<Value, String> {
    let parts = parse_tuple(v)?;
    if let Some(b) = ty.as_basic() {
        if parts.len() != b.vec_size() as usize {
            return Err(format!(
                "`{v}` has {} components, {ty} needs {}",
                parts.len(),
                b.vec_size()
            ));
        }
        let comps = parts
            .iter()
            .map(|p| parse_scalar(b.scalar_type(), p))
            .collect::<Result<_, _>>()?;
        return Ok(Value::from_components(comps));
    }
    let count = ty
        .flattened_scalar_count()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("a value of type {ty} cannot be given (unbounded or empty)"))?;
    if parts.len() as u64 != count {
        return Err(format!(
            "`{v}` has {} scalars, {ty} needs {count} (members in order, flattened)",
            parts.len()
        ));
    }
    let scalars = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let t = ty
                .flattened_scalar_type(i as u64)
                .ok_or_else(|| format!("{ty} has no scalar {i}"))?;
            parse_scalar(t, p)
        })
        .collect::<Result<Vec<Scalar>, String>>()?;
    let mut it = scalars.into_iter();
    Ok(irc_interp::value::build_value(ty, 0, &mut |t| {
        it.next().unwrap_or_else(|| Scalar::zero(t))
    }))
}

/// The scalars of a value in flattened order (`None` for void and descriptors).
fn flat(v: &Value) -> Option<Vec<Scalar>> {
    match v {
        Value::Void | Value::Descriptor(_) => None,
        _ => {
            let mut out = Vec::new();
            v.flatten(&mut out);
            Some(out)
        }
    }
}

fn values_match(got: &Value, want: &Value, tolerance: Option<f64>) -> bool {
    let (Some(g), Some(w)) = (flat(got), flat(want)) else {
        return got == want;
    };
    let close = |a: &Scalar, b: &Scalar| match (tolerance, float_of(a), float_of(b)) {
        (Some(t), Some(x), Some(y)) if x.is_finite() && y.is_finite() => {
            (x - y).abs() <= t.max(t * y.abs())
        }
        _ => false,
    };
    g.len() == w.len()
        && g.iter().zip(&w).all(|(a, b)| {
            a.bits() == b.bits()
                || (float_of(a).is_some_and(f64::is_nan) && float_of(b).is_some_and(f64::is_nan))
                || close(a, b)
        })
}

/// A value as a run line would spell it.
pub fn show(v: &Value) -> String {
    let Some(c) = flat(v) else {
        return format!("{v:?}");
    };
    let parts: Vec<String> = c
        .iter()
        .map(|s| match s.ty() {
            _ if float_of(s).is_some() => {
                let x = float_of(s).unwrap_or_default();
                if x.is_nan() {
                    "nan".into()
                } else if x.is_infinite() {
                    if x > 0.0 {
                        "inf".into()
                    } else {
                        "-inf".into()
                    }
                } else if let Scalar::F64(_) = s {
                    format!("{x:?}")
                } else {
                    // f32 and f16 values print as the shortest f32 decimal that reads back.
                    format!("{:?}", x as f32)
                }
            }
            ScalarType::Bool => (s.bits() != 0).to_string(),
            t if t.is_signed_int() => (s.sext_bits() as i64).to_string(),
            _ => s.bits().to_string(),
        })
        .collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("({})", parts.join(","))
    }
}

fn float_of(s: &Scalar) -> Option<f64> {
    match *s {
        Scalar::F16(x) => Some(x.to_f64()),
        Scalar::F32(x) => Some(x as f64),
        Scalar::F64(x) => Some(x),
        _ => None,
    }
}

/// The run-line name of a slot: `vN`/`oN` (`.C` when the component is not 0) or the built-in.
pub fn slot_name(slot: &IoSlot, output: bool) -> String {
    match *slot {
        IoSlot::Location {
            location,
            component,
        } => {
            let p = if output { 'o' } else { 'v' };
            if component == 0 {
                format!("{p}{location}")
            } else {
                format!("{p}{location}.{component}")
            }
        }
        IoSlot::BuiltIn(b) => BuiltIn::from_u64(b as u64)
            .map_or_else(|| format!("builtin{b}"), |b| b.name().to_string()),
    }
}

/// One invocation's outputs in run-line syntax (`o0=(…) Depth=… discard`).
pub fn show_outputs(o: &irc_interp::InvocationOutputs) -> String {
    let mut parts: Vec<String> =
        o.io.iter()
            .map(|(slot, v)| format!("{}={}", slot_name(slot, true), show(v)))
            .collect();
    if o.discarded {
        parts.push("discard".into());
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> Type {
        Type::parse(s).expect("a valid type")
    }

    #[test]
    fn struct_and_array_values_are_flat_tuples() {
        let v = parse_value(&ty("{u32,u32,u32}"), "(7,0,0xff)").expect("parses");
        assert_eq!(
            v,
            Value::Composite(vec![Value::u32(7), Value::u32(0), Value::u32(255)])
        );
        let v = parse_value(&ty("{u32,f32x2}"), "(1,0.5,-0.0)").expect("parses");
        assert_eq!(
            v,
            Value::Composite(vec![Value::u32(1), Value::f32s(&[0.5, -0.0])])
        );
        // Array dimensions innermost first: two f32x2 elements, outermost first.
        let v = parse_value(&ty("f32x2[2]"), "(1,2,3,4)").expect("parses");
        assert_eq!(
            v,
            Value::Composite(vec![Value::f32s(&[1.0, 2.0]), Value::f32s(&[3.0, 4.0])])
        );
        assert_eq!(show(&v), "(1.0,2.0,3.0,4.0)");
        assert!(values_match(&v, &v.clone(), None));
        let err = parse_value(&ty("{u32,u32,u32}"), "(7,0)").expect_err("too few");
        assert!(err.contains("needs 3"), "{err}");
        assert!(parse_value(&ty("{u32,u32,u32}"), "(7,0,0.5)").is_err());
        assert!(parse_value(&ty("f32[]"), "(1)").is_err());
    }
}
