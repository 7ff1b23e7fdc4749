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
//!   `; expect:` text must occur among the errors; without expectations the module must verify.
//! - `binary`: text → binary → text must reproduce the printed module exactly.
//!
//! The grammar and the roadmap of commands (`pass`, `optimize`, `compile`, `run`) are in
//! docs/testing.md.

use irc_ir::{binary, text, verifier, Module};
use std::path::Path;

/// A parsed filetest.
#[derive(Clone, Debug, Default)]
pub struct Filetest {
    pub commands: Vec<String>,
    pub targets: Vec<String>,
    pub expects: Vec<String>,
    /// The module source with header lines blanked.
    pub source: String,
}

/// Output of one command.
#[derive(Clone, Debug)]
pub struct CommandOutput {
    pub command: String,
    pub output: String,
    /// Why the command failed, if it did.
    pub failures: Vec<String>,
}

impl Filetest {
    /// Splits a file into header and module text.
    pub fn parse(src: &str) -> Filetest {
        let mut t = Filetest::default();
        let mut body = String::with_capacity(src.len());
        for line in src.lines() {
            let trimmed = line.trim();
            if let Some(c) = trimmed.strip_prefix("test ") {
                t.commands.push(c.trim().to_string());
                body.push('\n');
            } else if let Some(c) = trimmed.strip_prefix("target ") {
                t.targets.push(c.trim().to_string());
                body.push('\n');
            } else {
                if let Some(e) = trimmed.strip_prefix("; expect:") {
                    t.expects.push(e.trim().to_string());
                }
                body.push_str(line);
                body.push('\n');
            }
        }
        t.source = body;
        t
    }

    /// Runs every command of the test.
    pub fn run(&self, file_name: &str) -> Vec<CommandOutput> {
        let module = text::parse_named(&self.source, file_name);
        self.commands
            .iter()
            .map(|cmd| {
                let mut out = CommandOutput {
                    command: cmd.clone(),
                    output: String::new(),
                    failures: Vec::new(),
                };
                match &module {
                    Err(e) => {
                        out.output = format!("{e}\n");
                        out.failures.push(format!("parse error: {e}"));
                    }
                    Ok(m) => self.run_command(cmd, m, &mut out),
                }
                out
            })
            .collect()
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
                    errors.iter().filter(|e| e.def == Some(d)).map(|e| e.message.clone()).collect()
                });
                for e in errors.iter().filter(|e| e.def.is_none()) {
                    out.output.push_str(&format!("; error: {}\n", e.message));
                }
                if self.expects.is_empty() && !errors.is_empty() {
                    out.failures.push(format!("unexpected verifier errors: {}", errors.len()));
                }
                for x in &self.expects {
                    if !errors.iter().any(|e| e.message.contains(x.as_str())) {
                        out.failures.push(format!("expected an error containing `{x}`"));
                    }
                }
            }
            "binary" => {
                let printed = text::print(m);
                match binary::write(m).map_err(|e| e.to_string()).and_then(|bytes| {
                    binary::read(&bytes).map_err(|e| e.to_string())
                }) {
                    Ok(back) => {
                        // Ids are renumbered densely by the binary format; compare the text
                        // of modules that were dense to begin with.
                        out.output = text::print(&back);
                        if m.len() == m.id_bound() && out.output != printed {
                            out.failures.push("binary round trip changed the module".into());
                        }
                    }
                    Err(e) => out.failures.push(format!("binary round trip: {e}")),
                }
            }
            other => out.failures.push(format!("unknown test command `{other}`")),
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
