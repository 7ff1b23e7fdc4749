//! `irc run`: runs a shader in the reference interpreter and prints its outputs in run-line
//! syntax (`o0=(…) discard`), one line per invocation.
//!
//! Inputs come from `--inputs JSON` (a file, or inline JSON when the argument starts with `{`;
//! [`irc_testsuite::run_inputs`]: run-line assignments plus textures of any size with mips,
//! layers and faces, from texel lists or PNG files, and sampler state), `--set NAME=VALUE`
//! (run-line syntax, see `irc_testsuite::runline`: per-lane values `v0@2=…`, quad planes
//! `v0.ddx=…`, the quad's position `pixel=(x,y)`) and `--seed N` (random inputs for
//! everything declared, applied first). The format is documented in `docs/run-inputs.md`.

use irc_interp::{RunConfig, ShaderInputs};
use irc_testsuite::run_inputs::RunInputs;
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
    let json = inputs.map(RunInputs::parse).transpose()?;
    if let Some(j) = &json {
        line.assigns.extend(j.assigns.iter().cloned());
    }
    for s in sets {
        let (k, v) = s
            .split_once('=')
            .ok_or_else(|| format!("--set `{s}`: expected NAME=VALUE"))?;
        line.assigns.push((k.to_string(), v.to_string()));
    }
    let mut explicit = line.inputs(&m)?;
    if let Some(j) = &json {
        j.apply(&m, &mut explicit)?;
    }
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
