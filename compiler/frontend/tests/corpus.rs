//! Every raw corpus shader converts to structured SSA that the verifier accepts, with no
//! temporaries or scoped control flow left.

use irc_ir::{binary, verifier, OpCode};
use std::path::PathBuf;

fn corpus_ir() -> Option<PathBuf> {
    let dir = std::env::var_os("IRC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"))
        .join("ir");
    dir.is_dir().then_some(dir)
}

#[test]
fn raw_corpus_converts_to_verified_structured_ssa() {
    let Some(dir) = corpus_ir() else {
        println!("corpus not found, skipped");
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".raw.dxir"))
        .collect();
    files.sort();
    let (mut ok, mut unsupported, mut failed) = (0, 0, Vec::new());
    for f in &files {
        let mut m = binary::read(&std::fs::read(f).unwrap()).unwrap();
        match irc_frontend::to_structured_ssa(&mut m) {
            Err(irc_frontend::FrontendError::Unsupported { .. }) => unsupported += 1,
            Err(e) => failed.push(format!("{}: {e}", f.display())),
            Ok(()) => {
                let left = m.iter().find(|&d| {
                    let op = m.opcode(d);
                    op.is_scoped()
                        || matches!(op, OpCode::TmpLoad | OpCode::TmpStore | OpCode::DclTmp)
                });
                if let Some(d) = left {
                    failed.push(format!("{}: {d} ({}) left", f.display(), m.opcode(d)));
                } else if let Err(e) = verifier::verify(&m) {
                    failed.push(format!("{}: {e}", f.display()));
                } else {
                    ok += 1;
                }
            }
        }
    }
    println!(
        "{ok} ok, {unsupported} unsupported (shared temporaries), {} failed",
        failed.len()
    );
    assert!(
        failed.is_empty(),
        "{} failures, first:\n{}",
        failed.len(),
        failed[..failed.len().min(5)].join("\n")
    );
}
