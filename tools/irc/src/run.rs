//! `irc run`: runs a shader in the reference interpreter and prints its outputs in run-line
//! syntax (`o0=(…) discard`), one line per invocation.
//!
//! Inputs come from `--inputs JSON` (a file, or inline JSON when the argument starts with `{`),
//! `--set NAME=VALUE` (run-line syntax, see `irc_testsuite::runline`) and `--seed N` (random
//! inputs for everything declared, applied first). JSON maps the same names to numbers or
//! arrays: `{"v0": [0.5, 0.5], "cb0": [0.0, 1.0, 2, 3], "t0": [1.0, 1.0, 1.0, 1.0]}`; a JSON
//! number with a fraction or exponent is a float, an integer a raw dword for `cb`/`t`.

use irc_interp::{RunConfig, ShaderInputs};
use irc_testsuite::runline::{show_outputs, RunLine};
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    file: &Path,
    inputs: Option<&str>,
    sets: &[String],
    seed: Option<u64>,
) -> Result<ExitCode, String> {
    let m = crate::load::module(file)?;
    let mut line = RunLine::default();
    if let Some(src) = inputs {
        line.assigns.extend(json_assigns(src)?);
    }
    for s in sets {
        let (k, v) = s
            .split_once('=')
            .ok_or_else(|| format!("--set `{s}`: expected NAME=VALUE"))?;
        line.assigns.push((k.to_string(), v.to_string()));
    }
    let explicit = line.inputs(&m)?;
    let mut all = match seed {
        Some(s) => ShaderInputs::random(&m, s),
        None => explicit.clone(),
    };
    if seed.is_some() {
        merge(&mut all, explicit);
    }
    let out = irc_interp::run(&m, &all, &RunConfig::default())
        .map_err(|t| format!("{}: trap: {t}", file.display()))?;
    for (lane, o) in out.invocations.iter().enumerate() {
        println!("invocation {lane}: {}", show_outputs(o));
    }
    for v in &out.gs_vertices {
        println!(
            "emitted (stream {}, primitive {}): {} outputs",
            v.stream,
            v.primitive,
            v.io.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Explicit inputs override random ones.
fn merge(all: &mut ShaderInputs, explicit: ShaderInputs) {
    for (lane, inv) in explicit.invocations.into_iter().enumerate() {
        if let Some(target) = all.invocations.get_mut(lane) {
            target.io.extend(inv.io);
        }
    }
    all.cbvs.extend(explicit.cbvs);
    all.srvs.extend(explicit.srvs);
    all.samplers.extend(explicit.samplers);
}

fn json_assigns(src: &str) -> Result<Vec<(String, String)>, String> {
    let text = if src.trim_start().starts_with('{') {
        src.to_string()
    } else {
        std::fs::read_to_string(src).map_err(|e| format!("{src}: {e}"))?
    };
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("--inputs: {e}"))?;
    let obj = v.as_object().ok_or("--inputs: expected a JSON object")?;
    let scalar = |x: &serde_json::Value| -> Result<String, String> {
        match x {
            serde_json::Value::Number(n) if n.is_f64() => {
                Ok(format!("{:?}", n.as_f64().unwrap_or(0.0)))
            }
            serde_json::Value::Number(n) => Ok(n.to_string()),
            serde_json::Value::Bool(b) => Ok(b.to_string()),
            serde_json::Value::String(s) => Ok(s.clone()),
            other => Err(format!("--inputs: unexpected value {other}")),
        }
    };
    obj.iter()
        .map(|(k, x)| {
            let v = match x {
                serde_json::Value::Array(items) => {
                    let parts: Result<Vec<String>, String> = items.iter().map(scalar).collect();
                    format!("({})", parts?.join(","))
                }
                other => scalar(other)?,
            };
            Ok((k.clone(), v))
        })
        .collect()
}
