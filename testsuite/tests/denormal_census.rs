//! Not a test: lists the corpus shaders whose interpreter outputs depend on denormal flushing
//! (raw IR, the corpus checks' seeded inputs, the declared `SetFpMode` against denormals
//! preserved everywhere). `cargo test --release -p irc-testsuite --test denormal_census --
//! --ignored --nocapture` (needs the corpus: `$IRC_CORPUS` or
//! ../shared/corpus).

use irc_interp::{run, RunConfig, ShaderInputs};
use irc_testsuite::equivalence::{run_config, SEEDS};

#[test]
#[ignore = "a report over the corpus, not a check"]
fn denormal_census() {
    let Some(dir) = irc_testsuite::corpus::default_corpus_dir().map(|d| d.join("ir")) else {
        eprintln!("no corpus (set IRC_CORPUS)");
        return;
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("cannot read {}", dir.display());
        return;
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".raw.dxir"))
        .collect();
    files.sort();
    let declared = run_config();
    let preserved = RunConfig {
        flush_denormals: Some(false),
        ..run_config()
    };
    let (mut runnable, mut changed) = (0, Vec::new());
    for f in &files {
        let Ok(m) = std::fs::read(f)
            .map_err(|e| e.to_string())
            .and_then(|b| irc_ir::binary::read(&b).map_err(|e| e.to_string()))
        else {
            continue;
        };
        let mut seeds = Vec::new();
        let mut ran = false;
        for seed in 0..SEEDS {
            let inputs = ShaderInputs::random(&m, seed);
            if let (Ok(a), Ok(b)) = (run(&m, &inputs, &declared), run(&m, &inputs, &preserved)) {
                ran = true;
                if irc_interp::compare::outputs_equal(&a, &b).is_err() {
                    seeds.push(seed);
                }
            }
        }
        runnable += u32::from(ran);
        if !seeds.is_empty() {
            changed.push((f.file_name().unwrap().to_string_lossy().into_owned(), seeds));
        }
    }
    for (name, seeds) in &changed {
        println!("{name}: seeds {seeds:?}");
    }
    println!(
        "denormal census: {} of {runnable} runnable shaders change on at least one of {SEEDS} seeds",
        changed.len()
    );
}
