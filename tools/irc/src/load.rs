//! Loading and saving modules by file extension: `.ir` is text, anything else binary (`.dxir`).

use irc_ir::{binary, text, Module};
use std::path::Path;

fn is_text(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ir")
}

/// Reads a module from a text or binary file; the error names the file and the location.
pub fn module(path: &Path) -> Result<Module, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if is_text(path) {
        let src = String::from_utf8(bytes)
            .map_err(|e| format!("{}: not UTF-8 text: {e}", path.display()))?;
        text::parse_named(&src, &path.display().to_string()).map_err(|e| e.to_string())
    } else {
        binary::read(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Writes a module as text (`.ir`) or binary (otherwise).
pub fn save(m: &Module, path: &Path) -> Result<(), String> {
    let bytes = if is_text(path) {
        text::print(m).into_bytes()
    } else {
        binary::write(m).map_err(|e| e.to_string())?
    };
    crate::atomic::write(path, &bytes)
}
