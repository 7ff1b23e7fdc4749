//! The clean-up loop's skips against the full computation. `pipelines::fixpoint` does not run a
//! pass again when its `settled` check says the changes since its last run give it nothing to
//! do; with verification on, every skipped pass also runs on a copy of the module, which must
//! come out unchanged (else the pipeline fails with a verifier error). Here over random
//! programs (both forms) and, when the shared corpus is there, every fourth raw shader; through
//! `legalize` and `opt:lima`.

use irc_ir::{binary, Module};
use irc_passes::{ManagerOptions, PassError, PassManager};
use irc_testsuite::gen::{generate, Form, Limits};

const SEEDS: u64 = 150;
const PIPELINES: [&str; 2] = ["legalize", "opt:lima"];

/// Runs `pipeline` with verification after every pass; a failure other than unsupported
/// input is returned.
fn failure(m: &Module, pipeline: &str) -> Option<String> {
    let mut m = m.clone();
    let mut pm = PassManager::new(ManagerOptions {
        verify: true,
        ..Default::default()
    });
    match irc_testsuite::pipeline::run(&mut pm, &mut m, pipeline) {
        Ok(()) | Err(PassError::Unsupported { .. }) | Err(PassError::Frontend(_)) => None,
        Err(e) => Some(e.to_string()),
    }
}

#[test]
fn skipped_clean_up_runs_would_change_nothing() {
    let mut failures = Vec::new();
    for seed in 0..SEEDS {
        for form in [Form::Structured, Form::Raw] {
            let m = generate(seed, form, Limits::default());
            for p in PIPELINES {
                if let Some(why) = failure(&m, p) {
                    failures.push(format!("seed {seed} {form:?} {p}: {why}"));
                }
            }
        }
    }
    let corpus = irc_testsuite::corpus::default_corpus_dir();
    let files = corpus
        .as_deref()
        .and_then(|d| irc_testsuite::corpus::ir_files(d).ok())
        .unwrap_or_default();
    let raw = files
        .iter()
        .filter(|f| f.to_string_lossy().ends_with(".raw.dxir"));
    for f in raw.step_by(4) {
        let Some(m) = std::fs::read(f).ok().and_then(|b| binary::read(&b).ok()) else {
            continue;
        };
        for p in PIPELINES {
            if let Some(why) = failure(&m, p) {
                failures.push(format!("{} {p}: {why}", f.display()));
            }
        }
    }
    if corpus.is_none() {
        eprintln!("note: no shared corpus; random programs only");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Programs `irc fuzz-diff` found where a skipped run would have changed the module (kept
/// as text in `testsuite/regressions/`), with the pipeline. Generator seed 9053687 (raw form):
/// `gvn` stopped after one round although merging an op read by a loop header's phis had
/// made two of them equal, so its next run in the loop merged them.
const FOUND: [(&str, &str); 1] = [("pixel_seed_9053687", "opt")];

#[test]
fn fuzz_found_skips_stay_fixed() {
    let failures: Vec<String> = FOUND
        .iter()
        .filter_map(|&(name, p)| {
            let m = irc_testsuite::harness::regression_program(name);
            failure(&m, p).map(|why| format!("{name} {p}: {why}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
