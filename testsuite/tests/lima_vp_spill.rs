//! The `lima-vp` spill path, proven by execution: generator vertex programs compiled with
//! `-C register-budget=N` (fewer of the 16 vec4 registers, so values go to temporaries) must
//! still match the interpreter in the GP simulator, and with no register at all must actually
//! contain temporary stores and loads (the compiler's register checker runs on each).
//!
//! `IRC_CORPUS=DIR cargo test --release --test lima_vp_spill -- --ignored` runs the same over
//! every vertex shader of a corpus directory.

use irc_testsuite::corpus::Outcome;
use irc_testsuite::gen::{generate_vertex, Limits};
use irc_testsuite::harness::check_shader_with;

fn target() -> &'static dyn irc::Target {
    *irc::targets()
        .iter()
        .find(|t| t.name() == "lima-vp")
        .expect("lima-vp is registered")
}

fn options(budget: u32) -> irc::Options {
    let mut options = irc::Options::default();
    options.backend.set("register-budget", budget.to_string());
    options
}

#[test]
fn forced_spills_keep_generated_vertex_programs_correct() {
    let target = target();
    for budget in [0u32, 1] {
        let options = options(budget);
        let (mut compared, mut with_spills) = (0, 0);
        for seed in 0..150 {
            let Some(raw) = generate_vertex(seed, Limits::default()) else {
                continue;
            };
            let check = check_shader_with(target, &raw, 3, &options);
            match &check.outcome {
                Outcome::Ok | Outcome::Known(_) => {
                    compared += 1;
                    let stats = &check.output.as_ref().expect("compiled").stats;
                    if stats.spills > 0 && stats.fills > 0 {
                        with_spills += 1;
                    }
                }
                Outcome::Unsupported(_) => {}
                Outcome::Failed(why) => {
                    panic!("seed {seed} with register-budget={budget}: {why}")
                }
            }
        }
        println!("register-budget={budget}: {compared} compared, {with_spills} with spills");
        assert!(compared >= 20, "only {compared} programs compiled");
        // Small programs keep most values in the forwarding network; some must spill.
        if budget == 0 {
            assert!(
                with_spills >= 3,
                "only {with_spills} of {compared} programs spilled"
            );
        }
    }
}

#[test]
#[ignore = "needs IRC_CORPUS=DIR"]
fn forced_spills_keep_corpus_vertex_shaders_correct() {
    let Ok(dir) = std::env::var("IRC_CORPUS") else {
        return;
    };
    let target = target();
    let mut files: Vec<_> = walk(std::path::Path::new(&dir));
    files.sort();
    for budget in [0u32, 2] {
        let options = options(budget);
        let (mut ok, mut unsupported, mut spilled) = (0, 0, 0);
        let mut failed = Vec::new();
        for path in &files {
            let Ok(raw) = std::fs::read(path)
                .map_err(|e| e.to_string())
                .and_then(|b| irc_ir::binary::read(&b).map_err(|e| e.to_string()))
            else {
                continue;
            };
            let check = check_shader_with(target, &raw, 2, &options);
            match &check.outcome {
                Outcome::Ok | Outcome::Known(_) => {
                    ok += 1;
                    let stats = &check.output.as_ref().expect("compiled").stats;
                    spilled += usize::from(stats.spills > 0);
                }
                Outcome::Unsupported(_) => unsupported += 1,
                Outcome::Failed(why) => failed.push(format!("{}: {why}", path.display())),
            }
        }
        println!(
            "register-budget={budget}: {ok} ok ({spilled} with spills), {unsupported} \
             unsupported, {} failed",
            failed.len()
        );
        for f in &failed {
            println!("  {}", &f[..f.len().min(300)]);
        }
        assert!(failed.is_empty());
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.to_string_lossy().ends_with(".raw.dxir") && p.to_string_lossy().contains("-vs_")
        {
            out.push(p);
        }
    }
    out
}
