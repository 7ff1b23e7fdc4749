//! `irc disasm`: machine code back to assembly text, through the target's
//! [`irc::Target::disassemble`] (which also recognises the target's container: an MBS1 file
//! for lima-fp). Decode errors name the offset of the offending instruction.

use std::path::Path;
use std::process::ExitCode;

/// The target named `name` — or, for a family name (`pica`), one of its targets, which read and
/// write the family's shared format — or an error listing the known ones.
pub fn find(name: &str) -> Result<&'static dyn irc::Target, String> {
    let registry = irc::Registry::builtin();
    match registry.resolve(name) {
        Some(t) => Ok(t),
        None => irc::find_target(registry, name).map_err(|d| d.to_string()),
    }
}

/// Runs `irc disasm`.
pub fn run(target: &str, input: &Path) -> Result<ExitCode, String> {
    let t = find(target)?;
    let bytes = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    match t.disassemble(&bytes) {
        Ok(text) => {
            print!("{text}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{}: {}", input.display(), e.message);
            Ok(ExitCode::FAILURE)
        }
    }
}
