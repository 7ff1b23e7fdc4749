//! The filetest driver (`testsuite/filetests/**/*.ir`, `irc test FILE`).
//!
//! A filetest is a header of `test <command>` / `target <name>` lines and `; expect: <text>`
//! lines, then one module in the text format (docs/ir-text.md). Header lines are blanked before
//! parsing so that line numbers in parse errors stay those of the file. Each command produces
//! an output text, which `cargo test` snapshots with insta (one snapshot per file and command),
//! and may fail on its own (a `; expect:` that did not appear, an unexpected verifier error).
//!
//! Commands:
//! - `print`: the module as printed after parsing (checks the text format).
//! - `verify`: the module with the verifier's errors inline under the offending ops; every
//!   `; expect:` text must occur among the errors, and every error must match an `; expect:`
//!   (so a module without expectations must verify).
//! - `binary`: text → binary → text must reproduce the printed module exactly.
//! - `run`: runs every `; run:` line (crate::runline) in the reference interpreter; the
//!   outputs are printed, and any mismatch with the line's expectations fails the test.
//! - `pass a,b,…`: runs the named passes (verifying after each) with the capabilities of the
//!   file's target when it names exactly one (the default target's otherwise); the output is
//!   the module after them; every `; run:` line must hold both before and after.
//! - `compile` (per `target` line): the disassembly of the compiled code, its reflection and
//!   statistics; also `run` executes the `; run:` lines on each `target`'s simulator
//!   ([`target`]). `option key=value` lines set the targets' compile options (`-C key=value`).
//!
//! The grammar and the roadmap of commands (`pass`, `optimize`, `compile`, `run`) are in
//! docs/testing.md.

mod target;
pub use target::interp_outputs;

use crate::runline::{show_outputs, RunLine};
use irc_ir::{binary, text, verifier, Module};
use irc_passes::{ManagerOptions, PassManager};
use std::path::Path;

/// A parsed filetest.
#[derive(Clone, Debug, Default)]
pub struct Filetest {
    pub commands: Vec<String>,
    pub targets: Vec<String>,
    /// `option key=value` lines: target compile options.
    pub options: Vec<(String, String)>,
    pub expects: Vec<String>,
    /// `; run:` lines (the text after `; run:`), with their line numbers.
    pub runs: Vec<(usize, String)>,
    /// The module source with header lines blanked.
    pub source: String,
}

/// Output of one command.
#[derive(Clone, Debug)]
pub struct CommandOutput {
    pub command: String,
    /// The target a `compile` or target `run` output is for.
    pub target: Option<String>,
    pub output: String,
    /// Why the command failed, if it did.
    pub failures: Vec<String>,
}

impl Filetest {
    /// Splits a file into header and module text.
    pub fn parse(src: &str) -> Filetest {
        let mut t = Filetest::default();
        let mut body = String::with_capacity(src.len());
        for (line_no, line) in src.lines().enumerate() {
            let trimmed = line.trim();
            if let Some(c) = trimmed.strip_prefix("test ") {
                t.commands.push(c.trim().to_string());
                body.push('\n');
            } else if let Some(c) = trimmed.strip_prefix("target ") {
                t.targets.push(c.trim().to_string());
                body.push('\n');
            } else if let Some(c) = trimmed.strip_prefix("option ") {
                let (k, v) = c.trim().split_once('=').unwrap_or((c.trim(), ""));
                t.options.push((k.trim().to_string(), v.trim().to_string()));
                body.push('\n');
            } else {
                if let Some(e) = trimmed.strip_prefix("; expect:") {
                    t.expects.push(e.trim().to_string());
                }
                if let Some(r) = trimmed.strip_prefix("; run:") {
                    t.runs.push((line_no + 1, r.trim().to_string()));
                }
                body.push_str(line);
                body.push('\n');
            }
        }
        t.source = body;
        t
    }

    /// Runs every command of the test, targets from the built-in registry.
    pub fn run(&self, file_name: &str) -> Vec<CommandOutput> {
        self.run_in(file_name, irc::Registry::builtin())
    }

    /// Runs every command of the test with the targets of `registry`: one output per command,
    /// plus one per `target` line for `run`; `compile` has one per `target` line only.
    pub fn run_in(&self, file_name: &str, registry: &irc::Registry) -> Vec<CommandOutput> {
        let module = text::parse_named(&self.source, file_name);
        let mut outs = Vec::new();
        for cmd in &self.commands {
            let new = |target: Option<&String>| CommandOutput {
                command: cmd.clone(),
                target: target.cloned(),
                output: String::new(),
                failures: Vec::new(),
            };
            let m = match &module {
                Err(e) => {
                    let mut out = new(None);
                    out.output = format!("{e}\n");
                    out.failures.push(format!("parse error: {e}"));
                    outs.push(out);
                    continue;
                }
                Ok(m) => m,
            };
            if cmd == "compile" {
                if self.targets.is_empty() {
                    let mut out = new(None);
                    out.failures
                        .push("`test compile` needs `target` lines".into());
                    outs.push(out);
                }
                for t in &self.targets {
                    let mut out = new(Some(t));
                    self.compile_on(registry, t, m, &mut out);
                    outs.push(out);
                }
                continue;
            }
            let mut out = new(None);
            self.run_command(cmd, m, &mut out);
            outs.push(out);
            if cmd == "run" {
                for t in &self.targets {
                    let mut out = new(Some(t));
                    self.run_on(registry, t, m, &mut out);
                    outs.push(out);
                }
            }
        }
        outs
    }

    fn run_command(&self, cmd: &str, m: &Module, out: &mut CommandOutput) {
        match cmd {
            "print" => out.output = text::print(m),
            "verify" => {
                let errors = match verifier::verify(m) {
                    Ok(()) => Vec::new(),
                    Err(e) => e.0,
                };
                out.output = text::print_annotated(m, &|d| {
                    errors
                        .iter()
                        .filter(|e| e.def == Some(d))
                        .map(|e| e.message.clone())
                        .collect()
                });
                for e in errors.iter().filter(|e| e.def.is_none()) {
                    out.output.push_str(&format!("; error: {}\n", e.message));
                }
                for e in &errors {
                    if !self.expects.iter().any(|x| e.message.contains(x.as_str())) {
                        out.failures.push(format!("unexpected verifier error: {e}"));
                    }
                }
                for x in &self.expects {
                    if !errors.iter().any(|e| e.message.contains(x.as_str())) {
                        out.failures
                            .push(format!("expected an error containing `{x}`"));
                    }
                }
            }
            "binary" => {
                let printed = text::print(m);
                match binary::write(m)
                    .map_err(|e| e.to_string())
                    .and_then(|bytes| binary::read(&bytes).map_err(|e| e.to_string()))
                {
                    Ok(back) => {
                        // The binary format renumbers ids densely in program order; compare
                        // the text of modules that were numbered that way to begin with (dense
                        // ids out of program order are renumbered too).
                        out.output = text::print(&back);
                        let in_order = m.iter().enumerate().all(|(k, d)| d.id() as usize == k + 1);
                        if in_order && out.output != printed {
                            out.failures
                                .push("binary round trip changed the module".into());
                        }
                    }
                    Err(e) => out.failures.push(format!("binary round trip: {e}")),
                }
            }
            "run" => {
                if self.runs.is_empty() {
                    out.failures.push("`test run` needs `; run:` lines".into());
                }
                self.run_lines(m, "", out);
            }
            cmd if cmd.starts_with("pass ") => {
                let mut after = m.clone();
                let mut pm = PassManager::new(ManagerOptions {
                    verify: true,
                    ..Default::default()
                });
                // With one `target` line, the passes see that target's capabilities (so that
                // target-dependent passes such as `int-to-float` act).
                if let [t] = self.targets.as_slice() {
                    match crate::pipeline::caps(t) {
                        Some(caps) => pm.context.caps = caps,
                        None => {
                            out.failures.push(format!("unknown target `{t}`"));
                            return;
                        }
                    }
                }
                for name in cmd["pass ".len()..].split(',').map(str::trim) {
                    if let Err(e) = pm.run_named(&mut after, name) {
                        out.failures.push(format!("pass {name}: {e}"));
                        return;
                    }
                }
                out.output = text::print(&after);
                // Behaviour must not change: every run line holds before and after.
                self.run_lines(m, "before: ", out);
                self.run_lines(&after, "after: ", out);
            }
            other => out.failures.push(format!("unknown test command `{other}`")),
        }
    }
}

impl Filetest {
    /// Runs every `; run:` line on `m` in the interpreter, appending the outputs to the output
    /// text (prefixed) and mismatches to the failures.
    fn run_lines(&self, m: &Module, prefix: &str, out: &mut CommandOutput) {
        for (line, src) in &self.runs {
            let result = RunLine::parse(src).and_then(|r| {
                let inputs = r.inputs(m)?;
                let outputs = irc_interp::run(m, &inputs, &irc_interp::RunConfig::default())
                    .map_err(|t| format!("trap: {t}"))?;
                let bad = r.check(m, &outputs)?;
                Ok((outputs, bad))
            });
            match result {
                Ok((outputs, bad)) => {
                    let shown = outputs
                        .invocations
                        .first()
                        .map(show_outputs)
                        .unwrap_or_default();
                    out.output
                        .push_str(&format!("; {prefix}run at line {line}: {shown}\n"));
                    for b in bad {
                        out.failures
                            .push(format!("{prefix}run at line {line}: {b}"));
                    }
                }
                Err(e) => out
                    .failures
                    .push(format!("{prefix}run at line {line}: {e}")),
            }
        }
    }
}

/// Reads and runs one filetest file.
pub fn run_file(path: &Path) -> std::io::Result<Vec<CommandOutput>> {
    let src = std::fs::read_to_string(path)?;
    let name = path.display().to_string();
    Ok(Filetest::parse(&src).run(&name))
}

/// All `.ir` files under `dir`, sorted.
pub fn find_filetests(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ir") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}
