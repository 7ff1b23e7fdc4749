//! `irc compile`: shaders through the driver (`irc::Compiler`) to machine code — one file, the
//! stages of a program, or many files and directories in one process (`crate::batch`).
//!
//! ```text
//! irc compile --target lima-fp shader.dxir                 # disassembly to stdout
//! irc compile --target lima-fp shader.dxir -o shader.bin   # little-endian code words
//! irc compile --target lima-fp shader.ir --emit stats -O1 --legacy-mul ieee
//! irc compile --target lima-fp shader.dxir --alpha-test greater-equal,128 --emit ir
//! irc compile --target lima-fp corpus/ir --out-dir out/ -j2 --json   # batch
//! ```
//!
//! `--emit`: `bin` (code words, the default with `-o` or `--out-dir`), `asm` (disassembly, the
//! default without), `reflection` (bindings as text), `reflection-json` (docs/reflection.md),
//! `stats` (a table), `container` (the target's container file: MBS1 for lima-fp; `mbs1` is
//! accepted as an alias), `ir` (the module the backend receives, after specialization and the
//! target's pipeline). The fixed-function state options set the D3D9 render state the shader
//! is specialized for (`legacy-state`). Diagnostics go to stderr, one per line.
//!
//! Exit codes: 0 everything compiled, 1 something is unsupported by the target (or over a
//! hardware limit), 2 a failure: bad input, bad arguments, a compiler error.

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
    /// Bindings, constants, limits used and stats as JSON (docs/reflection.md).
    ReflectionJson,
}

/// Examples and exit codes for `irc compile --help`.
pub const HELP: &str = "\
Inputs: `.ir` files are text, anything else the binary `.dxir` format; `-` reads stdin (text
when it starts with `%` or `;`). A directory stands for every `.dxir`/`.ir` file under it; when
one shader is there in several forms (`X.raw.dxir`, `X.dxir`, `X.ir`), only the first of these
is compiled: the raw form is what dxbc-spirv's readers produce, and irc's own frontend and
optimizer do the rest (as `irc corpus --check TARGET` does).

Several inputs, a directory, --out-dir or --json compile in batch: in parallel (-j), a progress
bar on a terminal, then a summary table (compiled / unsupported with the top reasons / failed,
wall time). Shaders of a stage the target does not compile count as unsupported (`T
compiles pixel shaders only` for a target T). With --out-dir each output is written beside the input's
relative path: NAME.bin, NAME.s, NAME.reflection.txt, NAME.reflection.json, NAME.stats.txt,
NAME.<container format> or NAME.ir. With --json the last line of stdout is one JSON object:
{\"target\", \"files\", \"compiled\", \"unsupported\", \"failed\", \"wall_ms\", \"jobs\",
\"unsupported_reasons\": [{\"reason\", \"count\"}], \"failures\": [{\"file\", \"message\"}]}.

Exit codes:
  0  everything compiled
  1  something is unsupported by the target or over a hardware limit (nothing failed)
  2  failures: malformed input, unreadable files, bad arguments, compiler errors

Examples (`irc targets` lists the targets and their options):
  irc compile -t TARGET shader.dxir                      disassembly to stdout
  irc compile -t TARGET shader.dxir -o shader.bin        code words
  irc compile -t TARGET shader.ir --emit reflection-json -O1 -C legacy-mul=ieee
  irc -t TARGET shader.dxir --emit stats                 (the subcommand is optional)
  cat shader.ir | irc compile -t TARGET - -o - --emit bin > shader.bin
  irc compile -t TARGET corpus/ir --out-dir out/ -j2 --json
  irc compile -t FAMILY --vs vs.dxir --ps ps.dxir           a program, varyings linked
";

/// The arguments of `irc compile` (also accepted without the subcommand).
#[derive(Args, Debug, Clone)]
pub struct CompileArgs {
    /// Shaders: `.ir` text, anything else the binary `.dxir` format, `-` for stdin, or
    /// directories (every `.dxir`/`.ir` inside). Omitted when the stages of a program are
    /// given with `--vs`/`--gs`/`--ps`.
    #[arg(required_unless_present_any = ["vs", "gs", "ps"], value_name = "IN")]
    pub input: Vec<PathBuf>,
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
    /// Write here instead of stdout (`-` for stdout); one input only.
    #[arg(short, long, conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,
    /// Batch: write one output file per input into this directory.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// What to write (default: bin with -o or --out-dir, asm without).
    #[arg(long, value_enum)]
    pub emit: Option<Emit>,
    /// Batch: worker threads (default: all cores).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Batch: end the output with one line of JSON summarizing the run.
    #[arg(long)]
    pub json: bool,
    /// Optimization level (-O0, -O1, -O2).
    #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub opt_level: u8,
    /// How D3D9 legacy multiplies are compiled, on targets that have the option: `finite`
    /// (the default: factors clamped to the finite range, so 0 · x = 0 for every x; a
    /// nonzero factor times inf or NaN gives a finite value or an overflow), `exact`
    /// (D3D9's rule exactly: a compare and select per lane), `ieee` (smaller; differs for
    /// 0 · inf and 0 · NaN) or `clamp` (DXVK's default: IEEE multiplies, rcp/rsq/exp results
    /// clamped to the finite range). Short for `-C legacy-mul=MODE`.
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
    /// Run the IR verifier after every pass of the target's pipeline; a pass that leaves
    /// invalid IR is reported by name.
    #[arg(long)]
    pub verify_each_pass: bool,
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

/// The options the arguments describe.
fn options(args: &CompileArgs, emit: Emit) -> Result<Options, String> {
    let mut options = Options {
        legacy_state: legacy_state(args)?,
        verify_each_pass: args.verify_each_pass,
        ..Default::default()
    };
    options.backend.opt_level = args.opt_level;
    if let Some(mode) = &args.legacy_mul {
        options.backend.set("legacy-mul", mode.clone());
    }
    set_codegen(&mut options.backend, &args.codegen)?;
    options.backend.container = emit == Emit::Container;
    Ok(options)
}

/// Sets the target options of `-C KEY=VALUE` arguments (checked against the target when it
/// compiles).
pub fn set_codegen(options: &mut irc::CompileOptions, codegen: &[String]) -> Result<(), String> {
    for kv in codegen {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("-C {kv}: expected KEY=VALUE"))?;
        options.set(k.trim(), v.trim());
    }
    Ok(())
}

/// Exit code 1: something unsupported, nothing failed.
pub const UNSUPPORTED: u8 = 1;
/// Exit code 2: a failure or bad input.
pub const FAILED: u8 = 2;

/// Runs `irc compile`; errors are printed here and exit with [`FAILED`].
pub fn run(args: &CompileArgs) -> Result<ExitCode, String> {
    Ok(run_inner(args).unwrap_or_else(|msg| {
        eprintln!("error: {msg}");
        ExitCode::from(FAILED)
    }))
}

fn run_inner(args: &CompileArgs) -> Result<ExitCode, String> {
    let batch = args.input.len() > 1
        || args.out_dir.is_some()
        || args.json
        || args.input.iter().any(|p| p.is_dir());
    let emit = args
        .emit
        .unwrap_or(if args.output.is_some() || args.out_dir.is_some() {
            Emit::Bin
        } else {
            Emit::Asm
        });
    let options = options(args, emit)?;
    let stages: Vec<&PathBuf> = [&args.vs, &args.gs, &args.ps]
        .into_iter()
        .flatten()
        .collect();
    if !stages.is_empty() {
        if !args.input.is_empty() {
            return Err("give either shaders or the stages of a program (--vs/--gs/--ps)".into());
        }
        return run_program(args, &stages, emit, &options);
    }
    if batch {
        if args.output.is_some() {
            return Err("-o takes one input; use --out-dir DIR for several".into());
        }
        return crate::batch::run(args, emit, options);
    }
    let input = args.input.first().ok_or("no shader given")?;
    let (name, m) = if input.as_os_str() == "-" {
        ("<stdin>".to_string(), crate::batch::read_stdin()?)
    } else {
        (input.display().to_string(), crate::load::module(input)?)
    };
    let mut compiler = match irc::Compiler::new(&args.target, options) {
        Ok(c) => c,
        Err(d) => return Ok(report(&name, &d)),
    };
    match compile_one(&mut compiler, Input::Module(m), emit) {
        Ok((bytes, _)) => {
            let out = args.output.as_deref().filter(|p| p.as_os_str() != "-");
            write_out(out, &bytes)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(d) => Ok(report(&name, &d)),
    }
}

/// Compiles one shader and renders `emit`; also returns the container format's name when
/// `emit` is `container` (for the output file's extension). A shader of a stage the target
/// does not compile is an `Unsupported` diagnostic naming the stages it does compile (the
/// driver's check).
pub fn compile_one(
    compiler: &mut irc::Compiler,
    input: Input<'_>,
    emit: Emit,
) -> Result<(Vec<u8>, Option<&'static str>), irc::Diagnostics> {
    let target = compiler.target();
    if emit == Emit::Ir {
        let m = compiler.prepare(input)?;
        return Ok((irc_ir::text::print(&m).into_bytes(), None));
    }
    let out = compiler.compile(input)?;
    let format = out.container.as_ref().map(|c| c.format);
    let bytes = render(&out, emit, target.name()).map_err(irc::Diagnostic::input)?;
    Ok((bytes, format))
}

/// `irc compile --target FAMILY --vs VS --ps PS`: the stages compiled together. Text outputs
/// print each stage under a `; STAGE (TARGET)` header; `-o OUT` with `bin` or `container`
/// writes one file per stage, `OUT.vs`, `OUT.gs`, `OUT.ps` — except `container` for a family
/// whose container holds the whole program (PICA200: one SHBIN with both DVLEs; Lima: one MBS1
/// with the `CVER` and the `CFRA` chunk) in `OUT`.
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
    // A family whose container holds every stage (PICA200's SHBIN): one file.
    if let (Emit::Container, Some(c)) = (emit, &program.container) {
        let Some(out) = &args.output else {
            return Err("binary output of a program needs -o OUT".into());
        };
        write_out(Some(out.as_path()), &c.bytes)?;
        return Ok(ExitCode::SUCCESS);
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

/// Prints diagnostics, one per line, prefixed with the file name; the exit code: 1 when all
/// are unsupported features or hardware limits, 2 otherwise.
fn report(file: &str, d: &irc::Diagnostics) -> ExitCode {
    for diag in &d.0 {
        eprintln!("{file}: {diag}");
    }
    ExitCode::from(if d.is_unsupported() {
        UNSUPPORTED
    } else {
        FAILED
    })
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
        Emit::ReflectionJson => irc::reflection_json::to_json_string(target, out).into_bytes(),
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
    ];
    // 0: a target that issues one operation per instruction reports neither.
    if s.units_filled > 0 {
        rows.push(("units per instruction", format!("{per:.2}")));
    }
    if s.lower_bound > 0 {
        rows.push(("lower bound", s.lower_bound.to_string()));
    }
    rows.push(("IR ops", s.ir_ops.to_string()));
    rows.extend(s.extra.iter().map(|(k, v)| (*k, v.to_string())));
    rows.iter()
        .map(|(k, v)| format!("{k:<22} {v:>8}\n"))
        .collect()
}

/// Writes `bytes` to `path`, or to stdout.
pub fn write_out(path: Option<&Path>, bytes: &[u8]) -> Result<(), String> {
    match path {
        Some(p) => crate::atomic::write(p, bytes),
        None => std::io::stdout()
            .write_all(bytes)
            .map_err(|e| format!("stdout: {e}")),
    }
}
