//! `irc compile`: a shader through the driver (`irc::compile`) to machine code.
//!
//! ```text
//! irc compile --target lima-fp shader.dxir                 # disassembly to stdout
//! irc compile --target lima-fp shader.dxir -o shader.bin   # little-endian code words
//! irc compile --target lima-fp shader.ir --emit stats -O1 --legacy-mul ieee
//! irc compile --target lima-fp shader.dxir --alpha-test greater-equal,128 --emit ir
//! ```
//!
//! `--emit`: `bin` (code words, the default with `-o`), `asm` (disassembly, the default
//! without), `reflection` (bindings as text), `stats` (a table), `container` (the target's
//! container file: MBS1 for lima-fp; `mbs1` is accepted as an alias),
//! `ir` (the module the backend receives, after specialization and the target's pipeline).
//! The fixed-function state options set the D3D9 render state the shader is specialized for
//! (`legacy-state`). Diagnostics go to stderr, one per line, and the exit code is 1.

use clap::{Args, ValueEnum};
use irc::{Input, Options, Output};
use irc_passes::legacy_state::{CompareOp, LegacyState};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `irc compile` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// Code as little-endian 32-bit words.
    Bin,
    /// Disassembly decoded from the code.
    Asm,
    /// Input, uniform, sampler and output bindings.
    Reflection,
    /// Instruction, register, spill and unit-use counts.
    Stats,
    /// The target's container file (lima-fp: MBS1, the Mali offline-compiler format).
    #[value(alias = "mbs1")]
    Container,
    /// The IR module the code generator receives.
    Ir,
}

/// The arguments of `irc compile` (also accepted without the subcommand).
#[derive(Args, Debug, Clone)]
pub struct CompileArgs {
    /// The shader: `.ir` text, anything else the binary `.dxir` format. Omitted when the
    /// stages of a program are given with `--vs`/`--gs`/`--ps`.
    #[arg(required_unless_present_any = ["vs", "gs", "ps"])]
    pub input: Option<PathBuf>,
    /// A program's vertex shader: with `--ps` (and `--gs`), the stages are compiled together
    /// for the target family given as `--target` (`lima`), varyings linked by I/O location.
    #[arg(long, value_name = "FILE")]
    pub vs: Option<PathBuf>,
    /// A program's geometry shader (see `--vs`).
    #[arg(long, value_name = "FILE")]
    pub gs: Option<PathBuf>,
    /// A program's pixel shader (see `--vs`).
    #[arg(long, value_name = "FILE")]
    pub ps: Option<PathBuf>,
    /// Target (`irc targets` lists them), or a target family for a program.
    #[arg(long, short = 't')]
    pub target: String,
    /// A target option, `KEY=VALUE` (repeatable; `irc targets` lists each target's options,
    /// e.g. `-C legacy-mul=ieee`).
    #[arg(short = 'C', value_name = "KEY=VALUE")]
    pub codegen: Vec<String>,
    /// Write here instead of stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// What to write (default: bin with -o, asm without).
    #[arg(long, value_enum)]
    pub emit: Option<Emit>,
    /// Optimization level (-O0, -O1, -O2).
    #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub opt_level: u8,
    /// How D3D9 legacy multiplies are compiled, on targets that have the option: `exact`
    /// (0 · x = 0 even for infinite or NaN x) or `ieee` (smaller; differs only for 0 · inf
    /// and 0 · NaN). Short for `-C legacy-mul=MODE`.
    #[arg(long, value_name = "MODE")]
    pub legacy_mul: Option<String>,
    /// D3D9 alpha test: compare op (never, less, equal, less-equal, greater, not-equal,
    /// greater-equal, always, or 0–7), reference 0–255, optionally extra precision bits.
    #[arg(long, value_name = "OP,REF[,PRECISION]")]
    pub alpha_test: Option<String>,
    /// D3D9 fog mode to specialize for: none (vertex fog), exp, exp2 or linear; fog is off
    /// without this option.
    #[arg(long, value_name = "MODE")]
    pub fog: Option<String>,
    /// Specialize for point-sprite rendering.
    #[arg(long)]
    pub point_sprite: bool,
}

/// The D3D9 state the options describe.
fn legacy_state(args: &CompileArgs) -> Result<LegacyState, String> {
    let mut s = LegacyState::default();
    if let Some(a) = &args.alpha_test {
        let parts: Vec<&str> = a.split(',').map(str::trim).collect();
        let number = |what: &str, p: &str| {
            p.parse::<u32>()
                .map_err(|_| format!("--alpha-test: bad {what} `{p}`"))
        };
        s.alpha_test.compare = CompareOp::parse(parts[0]).ok_or_else(|| {
            let names: Vec<&str> = CompareOp::ALL.iter().map(|c| c.name()).collect();
            format!(
                "--alpha-test: unknown compare op `{}` (known: {})",
                parts[0],
                names.join(", ")
            )
        })?;
        match parts[1..] {
            [] => {}
            [r] => s.alpha_test.reference = number("reference", r)?,
            [r, p] => {
                s.alpha_test.reference = number("reference", r)?;
                s.alpha_test.precision = number("precision", p)?;
            }
            _ => return Err("--alpha-test takes OP,REF[,PRECISION]".into()),
        }
        if s.alpha_test.reference > 255 {
            return Err("--alpha-test: the reference is 0–255".into());
        }
    }
    if let Some(mode) = &args.fog {
        s.fog.enable = true;
        s.fog.mode = match mode.as_str() {
            "none" => 0,
            "exp" => 1,
            "exp2" => 2,
            "linear" => 3,
            m => {
                return Err(format!(
                    "--fog: unknown mode `{m}` (none, exp, exp2, linear)"
                ))
            }
        };
    }
    s.point.sprite = args.point_sprite;
    Ok(s)
}

/// Runs `irc compile`.
pub fn run(args: &CompileArgs) -> Result<ExitCode, String> {
    let emit = args.emit.unwrap_or(if args.output.is_some() {
        Emit::Bin
    } else {
        Emit::Asm
    });
    let mut options = Options {
        legacy_state: legacy_state(args)?,
        ..Default::default()
    };
    options.backend.opt_level = args.opt_level;
    if let Some(mode) = &args.legacy_mul {
        options.backend.set("legacy-mul", mode.clone());
    }
    for kv in &args.codegen {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("-C {kv}: expected KEY=VALUE"))?;
        options.backend.set(k.trim(), v.trim());
    }
    options.backend.container = emit == Emit::Container;
    let stages: Vec<&PathBuf> = [&args.vs, &args.gs, &args.ps]
        .into_iter()
        .flatten()
        .collect();
    if !stages.is_empty() {
        if args.input.is_some() {
            return Err(
                "give either one shader or the stages of a program (--vs/--gs/--ps)".into(),
            );
        }
        return run_program(args, &stages, emit, &options);
    }
    let input = args.input.as_ref().ok_or("no shader given")?;
    let m = crate::load::module(input)?;
    let name = input.display();
    let bytes = if emit == Emit::Ir {
        match irc::prepare(Input::Module(m), &args.target, &options) {
            Ok(m) => irc_ir::text::print(&m).into_bytes(),
            Err(d) => return Ok(report(&name.to_string(), &d)),
        }
    } else {
        match irc::compile(Input::Module(m), &args.target, &options) {
            Ok(out) => render(&out, emit, &args.target)?,
            Err(d) => return Ok(report(&name.to_string(), &d)),
        }
    };
    write_out(args.output.as_deref(), &bytes)?;
    Ok(ExitCode::SUCCESS)
}

/// `irc compile --target FAMILY --vs VS --ps PS`: the stages compiled together. Text outputs
/// print each stage under a `; STAGE (TARGET)` header; `-o OUT` with `bin` or `container`
/// writes one file per stage, `OUT.vs`, `OUT.gs`, `OUT.ps`.
fn run_program(
    args: &CompileArgs,
    stages: &[&PathBuf],
    emit: Emit,
    options: &Options,
) -> Result<ExitCode, String> {
    let modules = stages
        .iter()
        .map(|p| crate::load::module(p))
        .collect::<Result<Vec<_>, _>>()?;
    let inputs = modules.into_iter().map(Input::Module).collect();
    let program = match irc::compile_program(inputs, &args.target, options) {
        Ok(p) => p,
        Err(d) => return Ok(report(&format!("program ({})", args.target), &d)),
    };
    if emit == Emit::Ir {
        return Err("--emit ir takes one shader, not a program".into());
    }
    let binary = matches!(emit, Emit::Bin | Emit::Container);
    let mut text = Vec::new();
    for stage in &program.stages {
        let short = match stage.stage {
            irc_ir::ShaderStage::Vertex => "vs",
            irc_ir::ShaderStage::Geometry => "gs",
            _ => "ps",
        };
        let bytes = render(&stage.output, emit, stage.target)?;
        match (&args.output, binary) {
            (Some(out), true) => {
                let mut path = out.clone().into_os_string();
                path.push(format!(".{short}"));
                write_out(Some(Path::new(&path)), &bytes)?;
            }
            (None, true) => return Err("binary output of a program needs -o OUT".into()),
            (_, false) => {
                text.extend(format!("; {short} ({})\n", stage.target).into_bytes());
                text.extend(bytes);
            }
        }
    }
    if !binary {
        write_out(args.output.as_deref(), &text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints diagnostics, one per line, prefixed with the file name; the exit code of a failure.
fn report(file: &str, d: &irc::Diagnostics) -> ExitCode {
    for diag in &d.0 {
        eprintln!("{file}: {diag}");
    }
    ExitCode::FAILURE
}

fn render(out: &Output, emit: Emit, target: &str) -> Result<Vec<u8>, String> {
    Ok(match emit {
        Emit::Bin => out.code().to_vec(),
        Emit::Asm => out.disassembly.clone().into_bytes(),
        Emit::Reflection => out.reflection.to_text().into_bytes(),
        Emit::Stats => stats_table(out).into_bytes(),
        Emit::Container => match &out.container {
            Some(c) => c.bytes.clone(),
            None => return Err(format!("target {target} has no container format")),
        },
        Emit::Ir => Vec::new(),
    })
}

/// The `--emit stats` table.
pub fn stats_table(out: &Output) -> String {
    let s = &out.stats;
    let per = if s.instructions == 0 {
        0.0
    } else {
        f64::from(s.units_filled) / f64::from(s.instructions)
    };
    let mut rows: Vec<(&str, String)> = vec![
        ("instructions", s.instructions.to_string()),
        ("code bytes", s.code_bytes.to_string()),
        ("registers", s.registers.to_string()),
        ("spills", s.spills.to_string()),
        ("fills", s.fills.to_string()),
        ("units per instruction", format!("{per:.2}")),
        ("lower bound", s.lower_bound.to_string()),
        ("IR ops", s.ir_ops.to_string()),
    ];
    rows.extend(s.extra.iter().map(|(k, v)| (*k, v.to_string())));
    rows.iter()
        .map(|(k, v)| format!("{k:<22} {v:>8}\n"))
        .collect()
}

/// Writes `bytes` to `path`, or to stdout.
pub fn write_out(path: Option<&Path>, bytes: &[u8]) -> Result<(), String> {
    match path {
        Some(p) => std::fs::write(p, bytes).map_err(|e| format!("{}: {e}", p.display())),
        None => std::io::stdout()
            .write_all(bytes)
            .map_err(|e| format!("stdout: {e}")),
    }
}
