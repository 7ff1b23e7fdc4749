//! `irc`: the command-line driver of the irc shader compiler.
//!
//! Subcommands: `compile` (to machine code; also `irc --target T FILE` without the
//! subcommand), `disasm` / `asm` (machine code ↔ assembly), `validate` (a target's
//! validator on machine code), `dump`, `verify`, `convert` (IR
//! formats), `opt` (passes), `run` (the reference interpreter), `corpus` (the project's
//! yardstick over the shared corpus), `test` (filetests), `bench` (speed), `ops` (the opcode
//! table: operands, classes and meaning of every op). Errors go to stderr
//! with a non-zero exit code.

/// The allocator of the command-line tool. A compile allocates many small short-lived
/// objects (operand lists, use lists, per-pass tables): mimalloc's per-thread free lists serve
/// them with about a third of glibc's instructions and without returning memory to the kernel
/// between shaders (the page faults that follow), measured on `legalize` over the corpus's
/// mid-size shaders: 6.8% fewer instructions in the passes. Embedders of the library keep the
/// allocator of their own program.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod asm;
mod atomic;
mod batch;
mod bench;
mod bench_pipeline;
mod bench_target;
mod compile;
mod disasm;
mod fuzzdiff;
mod load;
mod ops;
mod opt;
mod run;
mod validate;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "irc",
    version,
    about = "An optimizing shader compiler for DXBC-IR",
    args_conflicts_with_subcommands = true,
    arg_required_else_help = true,
    after_help = "Without a subcommand, `irc --target T FILE...` is `irc compile`; see `irc compile --help` \
                  for batch use and exit codes."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Without a subcommand: `irc --target T FILE [compile options]` compiles.
    #[command(flatten)]
    compile: Option<compile::CompileArgs>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile shaders (`.ir`, `.dxir`, directories, `-`) for a target: disassembly, code
    /// words, reflection (text or JSON), statistics or a container; many files in parallel.
    #[command(after_help = compile::HELP)]
    Compile(compile::CompileArgs),
    /// Disassemble machine code (raw little-endian words, or an MBS1 container).
    Disasm {
        input: PathBuf,
        #[arg(long, short = 't')]
        target: String,
    },
    /// Check machine code with the target's validator (the runtime's upload-time rules):
    /// each broken rule with its error number and instruction; exit 0 valid, 1 invalid,
    /// 2 on usage or read errors. `--target` may name a family (`agal`).
    Validate {
        input: PathBuf,
        #[arg(long, short = 't')]
        target: String,
    },
    /// List the targets with their stages and options (`-C key=value`).
    Targets,
    /// Assemble text in the disassembler's syntax to machine code.
    Asm {
        input: PathBuf,
        #[arg(long, short = 't')]
        target: String,
        /// Write little-endian words here (default: hex words to stdout).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Print a module (binary `.dxir` or text `.ir`) as text.
    Dump { file: PathBuf },
    /// Check a module with the verifier; errors are shown inline under the offending ops.
    Verify { file: PathBuf },
    /// Convert between text (`.ir`) and binary (`.dxir`), chosen by the output's extension.
    Convert {
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Run a check over every `.dxir`/`.raw.dxir` under DIR; prints failures and a summary.
    Corpus {
        dir: PathBuf,
        /// Check: roundtrip, interp, frontend, passes:a,b,…, legalize[:TARGET], opt[:TARGET],
        /// or a target name (`irc targets`: compiled and run in its simulator).
        #[arg(long, default_value = "roundtrip")]
        check: String,
        /// Worker threads (default: all cores).
        #[arg(short, long)]
        jobs: Option<usize>,
        /// Also list the N slowest files with their times.
        #[arg(long)]
        slowest: Option<usize>,
        /// With `legalize`/`opt`: ops per op kind against dxbc-spirv's `.dxir` (surplus first),
        /// and the N shaders with the largest surplus.
        #[arg(long)]
        op_kinds: Option<usize>,
        /// A target option for a target check, `KEY=VALUE` (repeatable): each mode is compared
        /// with its own oracle (e.g. `--check pica-vs -C legacy-mul=exact`).
        #[arg(short = 'C', value_name = "KEY=VALUE")]
        codegen: Vec<String>,
    },
    /// Run passes or a pipeline over a module and print the result.
    Opt {
        file: PathBuf,
        /// Comma-separated passes to run in order.
        #[arg(long, value_delimiter = ',')]
        passes: Vec<String>,
        /// A named pipeline (`frontend`, `legalize[:TARGET]`, `opt[:TARGET]`), run before
        /// `--passes`.
        #[arg(long)]
        pipeline: Option<String>,
        /// Optimization level of the `opt` pipeline (0, 1, 2).
        #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
        opt_level: u8,
        /// Print the module after these passes (`all` for every pass).
        #[arg(long, value_delimiter = ',')]
        print_after: Vec<String>,
        /// Print a table of time per pass to stderr.
        #[arg(long)]
        time_passes: bool,
        /// Write the result here (`.ir` text or `.dxir` binary) instead of printing it.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Run a shader in the reference interpreter and print its outputs.
    Run {
        file: PathBuf,
        /// Inputs as JSON: a file, or inline when it starts with `{` (run-line names, plus
        /// `textures` with mips/layers/faces from texel lists or PNG files and `samplers`;
        /// docs/run-inputs.md).
        #[arg(long)]
        inputs: Option<String>,
        /// One input in run-line syntax, e.g. `v0=(0.5,0.5)`, `cb0=(1.0,2.0)`, per lane
        /// `v0@2=(1.0,0.0)`, quad derivatives `v0.ddx=(0.25,0.0)`, `pixel=(8,4)`.
        #[arg(long = "set")]
        sets: Vec<String>,
        /// Fill every declared input randomly from this seed first.
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Differential test: random programs, raw vs after a pipeline, in the interpreter.
    FuzzDiff {
        /// Number of generated programs.
        #[arg(long, default_value_t = 1000)]
        count: u64,
        /// First seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Pipeline to check (`legalize[:TARGET]`, `opt[:TARGET]`), or a target name (compiled
        /// and run in its simulator).
        #[arg(long, default_value = "opt")]
        pipeline: String,
        /// Where to write the first failing case (a ready-to-commit filetest).
        #[arg(long)]
        save: Option<PathBuf>,
        /// A target option when `--pipeline` names a target, `KEY=VALUE` (repeatable).
        #[arg(short = 'C', value_name = "KEY=VALUE")]
        codegen: Vec<String>,
    },
    /// Run filetests and print their outputs.
    Test { files: Vec<PathBuf> },
    /// Print the opcode table: each op's operands (named), classes and what it computes.
    Ops {
        /// An opcode name (case-insensitive); a part of one lists every op containing it.
        name: Option<String>,
        /// Only ops of this class (commutative, lanewise, float, int, bool, compare, control,
        /// resource, legacy, effect, reads, terminator, scoped, meta).
        #[arg(long)]
        class: Option<String>,
    },
    /// Measure binary read/write and text print/parse speed over a corpus directory.
    Bench {
        dir: PathBuf,
        /// Repetitions per file.
        #[arg(long, default_value_t = 5)]
        reps: usize,
        /// Time this pass pipeline (`legalize`, `opt:lima`, …) over the raw shaders instead.
        #[arg(long)]
        pipeline: Option<String>,
        /// Time whole compilations for this target over the raw shaders instead (pipeline and
        /// backend apart, with the pass table); `-C` options apply.
        #[arg(long, short = 't', conflicts_with = "pipeline")]
        target: Option<String>,
        /// With --target: a target option, `KEY=VALUE` (repeatable).
        #[arg(short = 'C', value_name = "KEY=VALUE", requires = "target")]
        codegen: Vec<String>,
        /// With --pipeline or --target: list this many slowest shaders.
        #[arg(long, default_value_t = 10)]
        slowest: usize,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match (cli.command, cli.compile) {
        (Some(cmd), _) => run(cmd),
        (None, Some(args)) => compile::run(&args),
        (None, None) => Err("nothing to do (see `irc --help`)".into()),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run(cmd: Command) -> Result<ExitCode, String> {
    match cmd {
        Command::Compile(args) => compile::run(&args),
        Command::Disasm { input, target } => disasm::run(&target, &input),
        Command::Validate { input, target } => Ok(validate::run(&target, &input)),
        Command::Targets => {
            print!("{}", irc::listing::listing(irc::Registry::builtin()));
            Ok(ExitCode::SUCCESS)
        }
        Command::Asm {
            input,
            target,
            output,
        } => asm::run(&target, &input, output.as_deref()),
        Command::Dump { file } => {
            let m = load::module(&file)?;
            print!("{}", irc_ir::text::print(&m));
            Ok(ExitCode::SUCCESS)
        }
        Command::Verify { file } => {
            let m = load::module(&file)?;
            match irc_ir::verifier::verify(&m) {
                Ok(()) => {
                    println!("{}: ok ({} ops)", file.display(), m.len());
                    Ok(ExitCode::SUCCESS)
                }
                Err(errs) => {
                    let list = &errs.0;
                    eprint!(
                        "{}",
                        irc_ir::text::print_annotated(&m, &|d| {
                            list.iter()
                                .filter(|e| e.def == Some(d))
                                .map(|e| e.message.clone())
                                .collect()
                        })
                    );
                    for e in list.iter().filter(|e| e.def.is_none()) {
                        eprintln!("; error: {}", e.message);
                    }
                    eprintln!("{}: {} verifier error(s)", file.display(), list.len());
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        Command::Convert { input, output } => {
            let m = load::module(&input)?;
            load::save(&m, &output)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Corpus {
            dir,
            check,
            jobs,
            slowest,
            op_kinds,
            codegen,
        } => {
            let mut check = irc_testsuite::corpus::Check::parse(&check).ok_or_else(|| {
                format!(
                    "unknown check `{check}` (known: roundtrip, interp, frontend, passes:a,b,…, legalize[:TARGET], opt[:TARGET], {})",
                    irc::Registry::builtin().names().join(", ")
                )
            })?;
            match &mut check {
                irc_testsuite::corpus::Check::Target(t, options) => {
                    **options = target_options(*t, &codegen)?;
                }
                _ if !codegen.is_empty() => {
                    return Err("-C applies to target checks only".to_string());
                }
                _ => {}
            }
            let jobs = jobs.unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            });
            let report = irc_testsuite::corpus::run(&dir, &check, jobs)
                .map_err(|e| format!("{}: {e}", dir.display()))?;
            if let Some(n) = slowest {
                let total: f64 = report.times.iter().map(|t| t.1.as_secs_f64()).sum();
                println!(
                    "slowest of {} files ({total:.2} s in all):",
                    report.times.len()
                );
                for (f, t) in report.times.iter().take(n) {
                    println!("  {:>9.1} ms  {f}", t.as_secs_f64() * 1e3);
                }
                let pipelines = report.slowest_pipelines(n);
                if !pipelines.is_empty() {
                    println!("slowest pipeline runs (the timed part, without checks):");
                    for (f, us) in pipelines {
                        println!("  {:>9.1} µs  {f}", us);
                    }
                }
            }
            if let Some(t) = op_kinds.and_then(|n| report.op_kinds(n)) {
                print!("{t}");
            }
            print!("{report}");
            Ok(if report.failed > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Opt {
            file,
            passes,
            pipeline,
            opt_level,
            print_after,
            time_passes,
            output,
        } => {
            let args = opt::OptArgs {
                passes: &passes,
                pipeline: pipeline.as_deref(),
                opt_level,
                print_after: &print_after,
                time_passes,
            };
            opt::run(&file, &args, output.as_deref())
        }
        Command::Run {
            file,
            inputs,
            sets,
            seed,
        } => run::run(&file, inputs.as_deref(), &sets, seed),
        Command::FuzzDiff {
            count,
            seed,
            pipeline,
            save,
            codegen,
        } => {
            let options = match irc::target(&pipeline) {
                Some(t) => target_options(t, &codegen)?,
                None if !codegen.is_empty() => {
                    return Err("-C applies when --pipeline names a target".to_string());
                }
                None => irc::Options::default(),
            };
            fuzzdiff::run(count, seed, &pipeline, save.as_deref(), &options)
        }
        Command::Test { files } => {
            let mut failed = 0;
            for f in &files {
                let outs = irc_testsuite::filetest::run_file(f)
                    .map_err(|e| format!("{}: {e}", f.display()))?;
                for o in outs {
                    let on = o
                        .target
                        .as_ref()
                        .map(|t| format!(" on {t}"))
                        .unwrap_or_default();
                    println!("; {} — test {}{on}", f.display(), o.command);
                    print!("{}", o.output);
                    for x in &o.failures {
                        eprintln!("{}: test {}{on}: FAILED: {x}", f.display(), o.command);
                        failed += 1;
                    }
                }
            }
            Ok(if failed > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Bench {
            dir,
            reps,
            pipeline: Some(p),
            slowest,
            ..
        } => bench_pipeline::run(&dir, &p, reps, slowest),
        Command::Bench {
            dir,
            reps,
            target: Some(t),
            codegen,
            slowest,
            ..
        } => {
            let target = irc::target(&t).ok_or_else(|| format!("unknown target `{t}`"))?;
            let options = target_options(target, &codegen)?;
            bench_target::run(&dir, target.name(), options, reps, slowest)
        }
        Command::Bench { dir, reps, .. } => bench::run(&dir, reps),
        Command::Ops { name, class } => ops::run(name.as_deref(), class.as_deref()),
    }
}

/// Compile options from `-C KEY=VALUE` arguments, checked against `target`'s options.
fn target_options(target: &dyn irc::Target, codegen: &[String]) -> Result<irc::Options, String> {
    let mut options = irc::Options::default();
    compile::set_codegen(&mut options.backend, codegen)?;
    options
        .backend
        .validate(target.name(), target.options())
        .map_err(|d| d.to_string())?;
    Ok(options)
}
