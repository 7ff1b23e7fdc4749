//! `gvn` and `licm` on random programs: the generator's structured form, and its raw form
//! after our frontend, run through the passes (verified after each) and compute the same
//! outputs as before in the interpreter on random inputs.

use irc_ir::{verifier, Module};
use irc_passes::{registry, PassContext};
use irc_testsuite::equivalence::{compare, Verdict};
use irc_testsuite::gen::{generate, regression_file, Form, Limits};

const SEEDS: u64 = 300;
const INPUT_SEEDS: u64 = 4;

/// Runs the named passes in order, verifying after each; returns which passes changed the
/// module, or the first failure.
fn run_passes(m: &mut Module, names: &[&str]) -> Result<Vec<bool>, String> {
    let cx = PassContext::default();
    let mut changed = Vec::new();
    for &name in names {
        let pass = registry::find(name).expect("registered pass");
        changed.push((pass.run)(m, &cx).map_err(|e| format!("{name}: {e}"))?);
        verifier::verify(m).map_err(|e| format!("verifier after {name}:\n{e}"))?;
    }
    Ok(changed)
}

#[test]
fn gvn_and_licm_keep_random_programs_behaviour() {
    let mut failures = Vec::new();
    let (mut before, mut after) = (0usize, 0usize);
    let mut changed_by = [0usize; 2];
    for seed in 0..SEEDS {
        for form in [Form::Structured, Form::Raw] {
            let mut original = generate(seed, form, Limits::default());
            if form == Form::Raw {
                irc_frontend::to_structured_ssa(&mut original).expect("frontend accepts it");
            }
            for passes in [&["gvn", "licm"][..], &["licm", "gvn"][..]] {
                let mut m = original.clone();
                let why = match run_passes(&mut m, passes) {
                    Err(e) => Some(e),
                    Ok(changed) => {
                        for (i, name) in ["gvn", "licm"].iter().enumerate() {
                            let k = passes.iter().position(|p| p == name).expect("listed");
                            changed_by[i] += changed[k] as usize;
                        }
                        match compare(&original, &m, &original, INPUT_SEEDS) {
                            Verdict::Same => None,
                            v => Some(format!("{v:?}")),
                        }
                    }
                };
                if let Some(why) = why {
                    let command = format!("pass {}", passes.join(","));
                    failures.push(regression_file(seed, form, &[&command], &why, &original));
                }
                before += original.len();
                after += m.len();
            }
        }
    }
    if let Some(first) = failures.first() {
        panic!("{} failures; first:\n{first}", failures.len());
    }
    assert!(after < before, "the passes never removed anything");
    assert!(changed_by[1] > 0, "licm never hoisted anything");
    println!(
        "ops before {before}, after {after}; runs changed by gvn {}, by licm {}",
        changed_by[0], changed_by[1]
    );
}

#[test]
fn gvn_reaches_a_fixed_point() {
    // A second run finds nothing left to merge.
    let cx = PassContext::default();
    let gvn = registry::find("gvn").expect("registered");
    for seed in 0..100 {
        let mut m = generate(seed, Form::Raw, Limits::default());
        irc_frontend::to_structured_ssa(&mut m).expect("frontend accepts it");
        (gvn.run)(&mut m, &cx).expect("gvn runs");
        let n = m.len();
        (gvn.run)(&mut m, &cx).expect("gvn runs");
        assert_eq!(m.len(), n, "seed {seed}: second gvn run removed more ops");
    }
}

/// Op counts of the corpus after the frontend, then after `gvn` and `licm` (run with
/// `cargo test --release -p irc-testsuite --test opt_gvn_licm -- --ignored --nocapture`).
#[test]
#[ignore = "statistics over the whole corpus; the corpus check (`irc corpus --check passes:gvn,licm`) tests behaviour"]
fn corpus_op_counts() {
    use irc_testsuite::corpus::{default_corpus_dir, ir_files};
    let Some(dir) = default_corpus_dir() else {
        println!("corpus not found, skipped");
        return;
    };
    let cx = PassContext::default();
    let (mut files, mut before, mut after_gvn, mut licm_changed) = (0, 0, 0, 0);
    let (mut t_gvn, mut t_licm) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    for path in ir_files(&dir).expect("corpus readable") {
        if !path.to_string_lossy().ends_with(".raw.dxir") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("readable");
        let Ok(mut m) = irc_ir::binary::read(&bytes) else {
            continue;
        };
        if irc_frontend::to_structured_ssa(&mut m).is_err() {
            continue;
        }
        files += 1;
        before += m.len();
        let t = std::time::Instant::now();
        (registry::find("gvn").expect("gvn").run)(&mut m, &cx).expect("gvn runs");
        t_gvn += t.elapsed();
        after_gvn += m.len();
        let t = std::time::Instant::now();
        licm_changed +=
            (registry::find("licm").expect("licm").run)(&mut m, &cx).expect("licm runs") as usize;
        t_licm += t.elapsed();
    }
    println!(
        "{files} files: {before} ops after the frontend, {after_gvn} after gvn \
         ({:.1}% fewer); licm hoisted in {licm_changed} files; gvn {t_gvn:?}, licm {t_licm:?}",
        100.0 * (before - after_gvn) as f64 / before.max(1) as f64
    );
}
