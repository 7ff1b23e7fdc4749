//! Text round trip over the real-shader corpus: for every `*.dxir` under the corpus directory
//! (`$IRC_CORPUS`, else `shared/corpus` next to the workspace), `parse(print(m)) == m` and
//! printing the parsed module gives the same text. Modules the binary reader rejects are counted
//! and listed (that is the binary format's test to fail on), never compared.

use irc_ir::{binary, text};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("IRC_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

fn dxir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            dxir_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "dxir") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_text_round_trip() {
    let dir = corpus_dir();
    let mut files = Vec::new();
    dxir_files(&dir, &mut files);
    if files.is_empty() {
        println!("corpus not found, skipped ({})", dir.display());
        return;
    }
    files.sort();
    let (mut identical, mut unreadable, mut failures) = (0usize, Vec::new(), Vec::new());
    for path in &files {
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let module = match binary::read(&bytes) {
            Ok(m) => m,
            Err(e) => {
                unreadable.push(format!("{name}: {e}"));
                continue;
            }
        };
        let printed = text::print(&module);
        match text::parse_named(&printed, &name) {
            Ok(back) if back == module && text::print(&back) == printed => identical += 1,
            Ok(back) => {
                let (a, b) = (printed, text::print(&back));
                let line = a.lines().zip(b.lines()).find(|(x, y)| x != y);
                failures.push(format!(
                    "{name}: parsed module differs; first differing line {line:?}"
                ));
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let read = files.len() - unreadable.len();
    println!(
        "corpus: {identical}/{read} text round trips identical ({} files, {} unreadable)",
        files.len(),
        unreadable.len()
    );
    for u in unreadable.iter().take(10) {
        println!("  unreadable: {u}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(identical > 0, "no corpus module could be read");
}
