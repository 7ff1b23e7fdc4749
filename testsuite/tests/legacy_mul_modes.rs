//! The legacy-multiply modes other than the default (`finite`, which every corpus check runs),
//! each against its own oracle: `legacy-mul=exact` (D3D9's rule, the interpreter's own
//! semantics), `legacy-mul=clamp` (DXVK's default D3D9 float emulation;
//! `RunConfig::legacy_clamp`) and `legacy-mul=ieee` (plain IEEE products, `0 · inf` is NaN;
//! `RunConfig::legacy_ieee`). For
//! every target that declares the mode, every D3D9 corpus shader it compiles in that mode must
//! match, in the target's simulator, the interpreter run under the mode's oracle (the
//! raw-vs-prepared check of the harness uses that oracle for the raw shader:
//! `harness::raw_config`), so a mode compiled one way and checked another fails here. Runs when
//! the shared corpus is present (`$IRC_CORPUS` or `../shared/corpus`), on scoped threads, one
//! per core.

use irc_testsuite::corpus::{default_corpus_dir, ir_files, Outcome};
use irc_testsuite::harness::check_shader_with;
use irc_testsuite::harness::metrics::applies_to;

/// SM1–3 profiles (`ps_2_0`, `vs_1_1` …) in a corpus file name.
fn is_d3d9(path: &std::path::Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    name.is_some_and(|n| ["s_1_", "s_2_", "s_3_"].iter().any(|p| n.contains(p)))
}

#[test]
fn d3d9_corpus_shaders_match_the_exact_rule() {
    check_mode("exact");
}

#[test]
fn d3d9_corpus_shaders_match_the_clamp_oracle() {
    check_mode("clamp");
}

#[test]
fn d3d9_corpus_shaders_match_the_ieee_oracle() {
    check_mode("ieee");
}

fn check_mode(mode: &str) {
    let Some(dir) = default_corpus_dir() else {
        eprintln!("no corpus: skipped");
        return;
    };
    let mut options = irc::Options::default();
    options.backend.set("legacy-mul", mode);
    let mut checked = 0;
    for &target in irc::targets() {
        let declares = target
            .options()
            .iter()
            .any(|o| o.name == "legacy-mul" && o.values.iter().any(|v| v.0 == mode));
        if !declares {
            continue;
        }
        let files: Vec<_> = ir_files(&dir)
            .expect("corpus listing")
            .into_iter()
            .filter(|p| is_d3d9(p) && applies_to(target, p))
            .collect();
        let check = |path: &std::path::PathBuf| -> (bool, Option<String>) {
            let bytes = std::fs::read(path).expect("read corpus file");
            let Ok(raw) = irc_ir::binary::read(&bytes) else {
                return (false, None);
            };
            match check_shader_with(target, &raw, 2, &options).outcome {
                Outcome::Ok | Outcome::Known(_) => (true, None),
                Outcome::Unsupported(_) => (false, None),
                Outcome::Failed(why) => (true, Some(format!("{}: {why}", path.display()))),
            }
        };
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        let chunk = files.len().div_ceil(jobs).max(1);
        let results: Vec<(bool, Option<String>)> = std::thread::scope(|s| {
            let handles: Vec<_> = files
                .chunks(chunk)
                .map(|c| s.spawn(|| c.iter().map(check).collect::<Vec<_>>()))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("worker"))
                .collect()
        });
        let compiled = results.iter().filter(|r| r.0).count();
        let failed: Vec<&String> = results.iter().filter_map(|r| r.1.as_ref()).collect();
        assert!(
            failed.is_empty(),
            "{}: {} of {compiled} D3D9 shaders fail in {mode} mode:\n{}",
            target.name(),
            failed.len(),
            failed
                .iter()
                .take(10)
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
        checked += compiled;
    }
    assert!(
        checked > 100,
        "only {checked} shaders compiled in {mode} mode"
    );
}
