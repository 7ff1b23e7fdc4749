//! Atomic file output: every file the `irc` tool writes is written to a temporary file in
//! the destination's directory and then renamed over the destination, so an interrupted or
//! failed run never leaves a truncated file where a good one was (a reader sees the old file
//! or the new one, never a part). The temporary file is removed when anything fails. Data is
//! not `fsync`ed: the guarantee is against the process dying, not against power loss.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The temporary name for `path`: hidden, in the same directory (so the rename stays on one
/// file system), unique per process and call.
fn temp_path(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tmp = format!(".{name}.irc-tmp-{}-{n}", std::process::id());
    path.with_file_name(tmp)
}

/// Writes `bytes` to `path` atomically (see the module doc); errors name the file.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = temp_path(path);
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes))
        .and_then(|()| std::fs::rename(&tmp, path));
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("irc-atomic-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Files in `dir` other than `keep`: temporaries left behind.
    fn leftovers(dir: &Path, keep: &[&str]) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !keep.contains(&n.as_str()))
            .collect()
    }

    #[test]
    fn writes_new_files_and_replaces_old_ones_whole() {
        let d = scratch("replace");
        let p = d.join("out.bin");
        write(&p, b"first").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"first");
        write(&p, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second, longer");
        write(&p, b"").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"");
        assert_eq!(leftovers(&d, &["out.bin"]), Vec::<String>::new());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
        let d = scratch("fail");
        // The destination is a non-empty directory: the rename fails after the data is written.
        let p = d.join("out.bin");
        std::fs::create_dir_all(p.join("inside")).unwrap();
        let e = write(&p, b"data").unwrap_err();
        assert!(e.starts_with(&p.display().to_string()), "{e}");
        assert!(p.join("inside").is_dir());
        assert_eq!(leftovers(&d, &["out.bin"]), Vec::<String>::new());
        // A missing directory fails before anything is created, and names the file.
        let q = d.join("missing/out.bin");
        assert!(write(&q, b"x").unwrap_err().contains("missing/out.bin"));
        // The temporary is a sibling, so the rename never crosses file systems.
        let good = d.join("good.bin");
        assert_eq!(temp_path(&good).parent(), good.parent());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
