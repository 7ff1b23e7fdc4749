//! `irc asm`: assembly text (the disassembler's syntax) to machine code, through the target's
//! [`irc::Target::assemble`]. The code bytes are written to `-o OUT`, or printed as
//! little-endian 32-bit words in hex, eight per line. Errors name `FILE:line:column` and show
//! the line with a caret.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Runs `irc asm`.
pub fn run(target: &str, input: &Path, output: Option<&Path>) -> Result<ExitCode, String> {
    let t = crate::disasm::find(target)?;
    let text = std::fs::read_to_string(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let bytes = match t.assemble(&text) {
        Ok(b) => b,
        Err(e) => {
            let sep = if e.message.starts_with(char::is_numeric) {
                ":"
            } else {
                ": "
            };
            eprintln!("{}{sep}{}", input.display(), e.message);
            return Ok(ExitCode::FAILURE);
        }
    };
    match output {
        Some(path) => crate::compile::write_out(Some(path), &bytes)?,
        None => {
            let words = irc_backend::output::words_of(&bytes);
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
