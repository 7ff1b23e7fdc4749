//! Runs every filetest under `testsuite/filetests` and snapshots each command's output.

use irc_testsuite::filetest::{find_filetests, run_file};
use std::path::Path;

/// The shipped examples must verify, keep their `; run:` promises and survive the binary
/// format; they carry no `test` lines so that `irc` reads them as plain modules.
#[test]
fn examples() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut n = 0;
    for path in find_filetests(&dir).expect("examples directory") {
        let src = std::fs::read_to_string(&path).unwrap();
        let mut t = irc_testsuite::filetest::Filetest::parse(&src);
        assert!(
            t.commands.is_empty(),
            "{}: examples carry no test lines",
            path.display()
        );
        assert!(
            !t.runs.is_empty(),
            "{}: an example needs `; run:` lines",
            path.display()
        );
        t.commands = vec!["verify".into(), "run".into(), "binary".into()];
        for out in t.run(&path.display().to_string()) {
            assert!(
                out.failures.is_empty(),
                "{}: {}: {:?}",
                path.display(),
                out.command,
                out.failures
            );
            n += 1;
        }
    }
    assert!(n > 0);
}

#[test]
fn filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let files = find_filetests(&root).expect("filetests directory");
    assert!(
        !files.is_empty(),
        "no filetests found under {}",
        root.display()
    );
    let mut failures = Vec::new();
    let mut count = 0;
    for path in &files {
        let rel = path.strip_prefix(&root).unwrap_or(path).with_extension("");
        let rel = rel.to_string_lossy().replace(['/', '\\'], "__");
        for out in run_file(path).expect("readable filetest") {
            count += 1;
            for f in &out.failures {
                let on = out
                    .target
                    .as_ref()
                    .map(|t| format!(" on {t}"))
                    .unwrap_or_default();
                failures.push(format!("{}: test {}{on}: {f}", path.display(), out.command));
            }
            insta::with_settings!({
                snapshot_path => root.join("snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                // `pass a,b` is spelled `pass_a+b` in file names.
                // `run` on a target is spelled `run.TARGET`, `compile` `compile.TARGET`.
                let mut command = out.command.replace(' ', "_").replace(',', "+");
                if let Some(t) = &out.target {
                    command = format!("{command}.{t}");
                }
                insta::assert_snapshot!(format!("{rel}.{command}"), out.output);
            });
        }
    }
    assert!(
        failures.is_empty(),
        "{} filetest failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("{count} filetest commands in {} files passed", files.len());
}
