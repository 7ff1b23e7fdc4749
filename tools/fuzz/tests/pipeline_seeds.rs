//! The committed seeds of the `pipeline` fuzz target name the check their second byte chooses
//! (`opt-0`, `pica-gs-1`, `regress-lima-vp-…`): registering a target shifts the choice (byte 1
//! modulo the number of checks), and this test then names the seeds to renumber, so a
//! regression seed keeps exercising the target it was found on.

use std::path::Path;

#[test]
fn pipeline_seeds_choose_the_check_they_are_named_after() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/pipeline");
    let mut seen = 0;
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("seeds/pipeline") {
        let path = entry.expect("dir entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).expect("seed");
        assert!(
            bytes.len() >= 2,
            "{name}: shorter than the two header bytes"
        );
        let check = irc_fuzz::pipeline::check_name(bytes[1]);
        let named = name.strip_prefix("regress-").unwrap_or(&name);
        if !named.starts_with(&format!("{check}-")) {
            wrong.push(format!("{name}: byte 1 = {} chooses `{check}`", bytes[1]));
        }
        seen += 1;
    }
    assert!(
        wrong.is_empty(),
        "seeds naming another check:\n{}",
        wrong.join("\n")
    );
    // The opt pipeline and the six targets, three seeds each, plus the findings' inputs.
    assert!(seen >= 21, "only {seen} pipeline seeds");
}
