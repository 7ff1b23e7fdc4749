//! Every serialized module of the shared corpus (`*.dxir` legalized, `*.raw.dxir` raw) reads
//! and verifies without a single error. The corpus lives at `$IRC_CORPUS`, else
//! `<CARGO_MANIFEST_DIR>/../../../shared/corpus`; without it the test passes with a note.

use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    match std::env::var_os("IRC_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

#[test]
fn corpus_modules_verify() {
    let dir = corpus_dir().join("ir");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("corpus not found, skipped");
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dxir"))
        .collect();
    files.sort();
    let (mut raw, mut legal, mut failures) = (0usize, 0usize, Vec::new());
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let is_raw = name.ends_with(".raw.dxir");
        let bytes = std::fs::read(path).expect("corpus file readable");
        let module = match irc_ir::binary::read(&bytes) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: read error: {e}"));
                continue;
            }
        };
        if let Err(errors) = irc_ir::verifier::verify(&module) {
            let first: Vec<String> = errors.iter().take(5).map(|e| e.to_string()).collect();
            failures.push(format!(
                "{name}: {} errors\n    {}",
                errors.len(),
                first.join("\n    ")
            ));
        }
        if is_raw {
            raw += 1;
        } else {
            legal += 1;
        }
    }
    println!(
        "verified {legal} legalized and {raw} raw modules: {} clean, {} failing",
        files.len() - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} modules fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
