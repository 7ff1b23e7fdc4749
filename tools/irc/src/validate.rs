//! `irc validate`: a target's own validator (the rules its runtime checks before accepting a
//! program) on any bytes, through [`irc::validate`]. The target may be a family name (any
//! member reads the family's format). Each broken rule is printed with its error number and
//! instruction; the exit code is 0 for a valid program, 1 for an invalid one and 2 when the
//! file cannot be read or the target is unknown or has no validator.

use std::path::Path;
use std::process::ExitCode;

/// Exit code for a usage or read error (clap's own usage errors use it too).
const USAGE: u8 = 2;

/// Runs `irc validate`.
pub fn run(target: &str, input: &Path) -> ExitCode {
    let bytes = match std::fs::read(input) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {}: {e}", input.display());
            return ExitCode::from(USAGE);
        }
    };
    match irc::validate(&bytes, target) {
        Ok(broken) if broken.is_empty() => {
            println!("{}: valid", input.display());
            ExitCode::SUCCESS
        }
        Ok(broken) => {
            for d in &broken {
                println!("{}: {}", input.display(), d.message);
            }
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {}: {}", input.display(), e);
            ExitCode::from(USAGE)
        }
    }
}
