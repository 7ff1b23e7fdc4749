//! Exact text round trip of lima-fp code: for every corpus pixel shader lima-fp compiles, the
//! target's assembler applied to the compiler's own disassembly gives back the very same code
//! words (constants print so that they parse to the same fp16 bits, unused operand fields are
//! encoded as the assembler encodes them). Runs when the shared corpus is present
//! (`$IRC_CORPUS` or `../shared/corpus`), with the `-j` of the machine.

use irc_testsuite::corpus::{default_corpus_dir, ir_files};
use irc_testsuite::harness::metrics::applies_to;

#[test]
fn assembler_reproduces_every_compiled_corpus_shader() {
    let Some(dir) = default_corpus_dir() else {
        eprintln!("no corpus: skipped");
        return;
    };
    let target = irc::target("lima-fp").expect("lima-fp is registered");
    let files: Vec<_> = ir_files(&dir)
        .expect("corpus listing")
        .into_iter()
        .filter(|p| applies_to(target, p))
        .collect();
    let options = irc::Options::default();
    let (mut compiled, mut bad) = (0, Vec::new());
    for path in &files {
        let bytes = std::fs::read(path).expect("read corpus file");
        let Ok(out) = irc::compile(irc::Input::Binary(&bytes), "lima-fp", &options) else {
            continue;
        };
        compiled += 1;
        let code = &out.sections[0].bytes;
        match target.assemble(&out.disassembly) {
            Ok(again) if &again == code => {}
            Ok(again) => bad.push(format!(
                "{}: {}",
                path.display(),
                first_difference(code, &again)
            )),
            Err(e) => bad.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(compiled > 100, "only {compiled} corpus shaders compiled");
    assert!(
        bad.is_empty(),
        "{} of {compiled} shaders do not round-trip:\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// The first instruction that differs, decoded from both word streams.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    use irc_lima::pp::decode::decode_program;
    let words = |x: &[u8]| -> Vec<u32> {
        x.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    match (decode_program(&words(a)), decode_program(&words(b))) {
        (Ok(x), Ok(y)) => x.iter().zip(&y).find(|(p, q)| p != q).map_or_else(
            || format!("{} vs {} instructions", x.len(), y.len()),
            |(p, q)| format!("compiled {p:?}\n  reassembled {q:?}"),
        ),
        (x, y) => format!("decode: {:?} / {:?}", x.err(), y.err()),
    }
}
