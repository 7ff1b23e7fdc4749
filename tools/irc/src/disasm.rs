//! `irc disasm`: machine code back to assembly text.
//!
//! The input is either raw little-endian 32-bit words or an MBS1 container (recognised by its
//! `MBS1` magic; the code is its `DBIN` chunk). Decode errors name the word offset of the
//! offending instruction.

use std::path::Path;
use std::process::ExitCode;

/// Targets `irc disasm` and `irc asm` know.
pub const MACHINE_TARGETS: &[&str] = &["lima-fp"];

/// An error for a target without a decoder/assembler.
pub fn check_target(target: &str) -> Result<(), String> {
    if MACHINE_TARGETS.contains(&target) {
        Ok(())
    } else {
        Err(format!(
            "unknown target `{target}` (known targets: {})",
            MACHINE_TARGETS.join(", ")
        ))
    }
}

/// The code words of a raw or MBS1 file.
pub fn read_words(path: &Path) -> Result<Vec<u32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if irc_lima::pp::mbs::is_mbs1(&bytes) {
        return irc_lima::pp::mbs::read_mbs1(&bytes)
            .map_err(|e| format!("{}: {e}", path.display()));
    }
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "{}: {} bytes is not a whole number of 32-bit words",
            path.display(),
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}

/// Runs `irc disasm`.
pub fn run(target: &str, input: &Path) -> Result<ExitCode, String> {
    check_target(target)?;
    let words = read_words(input)?;
    match irc_lima::pp::decode_program(&words) {
        Ok(program) => {
            print!("{}", irc_lima::pp::disassemble_program(&program));
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{}: {e}", input.display());
            Ok(ExitCode::FAILURE)
        }
    }
}
