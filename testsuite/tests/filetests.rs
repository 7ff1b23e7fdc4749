//! Runs every filetest under `testsuite/filetests` and snapshots each command's output.

use irc_testsuite::filetest::{find_filetests, run_file};
use std::path::Path;

#[test]
fn filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let files = find_filetests(&root).expect("filetests directory");
    assert!(!files.is_empty(), "no filetests found under {}", root.display());
    let mut failures = Vec::new();
    let mut count = 0;
    for path in &files {
        let rel = path.strip_prefix(&root).unwrap_or(path).with_extension("");
        let rel = rel.to_string_lossy().replace(['/', '\\'], "__");
        for out in run_file(path).expect("readable filetest") {
            count += 1;
            for f in &out.failures {
                failures.push(format!("{}: test {}: {f}", path.display(), out.command));
            }
            insta::with_settings!({
                snapshot_path => root.join("snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(format!("{rel}.{}", out.command), out.output);
            });
        }
    }
    assert!(failures.is_empty(), "{} filetest failures:\n{}", failures.len(), failures.join("\n"));
    println!("{count} filetest commands in {} files passed", files.len());
}
