//! `irc asm`: assembly text (the disassembler's syntax) to machine code.
//!
//! The text is assembled, linked (instruction sizes, `next_count`, branch targets) and encoded;
//! the words are written little-endian to `-o OUT`, or printed as hex, eight per line.
//! Errors name `FILE:line:column` and show the line with a caret.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Runs `irc asm`.
pub fn run(target: &str, input: &Path, output: Option<&Path>) -> Result<ExitCode, String> {
    crate::disasm::check_target(target)?;
    let text = std::fs::read_to_string(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let program = match irc_lima::pp::asm::assemble(&text) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{}:{e}", input.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    let words = match irc_lima::pp::encode::encode_program(&program) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("{}: {e}", input.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    match output {
        Some(path) => {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            crate::compile::write_out(Some(path), &bytes)?;
        }
        None => {
            let mut s = String::new();
            for line in words.chunks(8) {
                let hex: Vec<String> = line.iter().map(|w| format!("{w:08x}")).collect();
                let _ = writeln!(s, "{}", hex.join(" "));
            }
            print!("{s}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
