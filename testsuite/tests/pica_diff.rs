//! Differential test of the `pica-vs` code generator with the random-program generator: the
//! generator writes pixel shaders, so each program is retargeted to the vertex stage (the
//! entry point's stage only; programs using pixel-only features then verify-fail or are
//! unsupported and are skipped), compiled for `pica-vs`, run in the float24 simulator and
//! compared with the interpreter on the raw program (`harness::check_shader`). Any mismatch
//! or panic fails with a ready-to-commit regression file; a minimum number must compile.

use irc_testsuite::corpus::Outcome;
use irc_testsuite::gen::{generate, regression_file, Form, Limits};
use irc_testsuite::harness::check_shader;

/// Programs per size class.
const PROGRAMS: u64 = 300;
/// Programs that must compile and match, over both classes.
const MIN_COMPARED: u32 = 150;

fn as_vertex_shader(m: &irc_ir::Module) -> Option<irc_ir::Module> {
    let text = irc_ir::text::print(m);
    let mut changed = false;
    let text: String = text
        .lines()
        .map(|l| {
            if l.contains("EntryPoint") && l.trim_end().ends_with(" Pixel") {
                changed = true;
                format!(
                    "{}Vertex\n",
                    l.trim_end().strip_suffix("Pixel").unwrap_or(l)
                )
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let v = irc_ir::text::parse(&text).ok()?;
    (changed && irc_ir::verifier::verify(&v).is_ok()).then_some(v)
}

#[test]
fn generated_programs_match_in_the_pica_simulator() {
    let target = irc::target("pica-vs").expect("registered");
    let small = Limits {
        statements: 4,
        depth: 1,
        expr_depth: 2,
    };
    let (mut compared, mut skipped, mut instructions) = (0u32, 0u32, 0u32);
    for limits in [Limits::default(), small] {
        for seed in 0..PROGRAMS {
            let raw = generate(seed, Form::Raw, limits);
            let Some(vs) = as_vertex_shader(&raw) else {
                skipped += 1;
                continue;
            };
            let check = check_shader(target, &vs, 8);
            match check.outcome {
                Outcome::Ok | Outcome::Known(_) => {
                    compared += 1;
                    instructions += check.output.map_or(0, |o| o.stats.instructions);
                }
                Outcome::Unsupported(_) => skipped += 1,
                Outcome::Failed(why) => {
                    let mut why = format!("pica-vs, generator {limits:?}: {why}");
                    if let Some(o) = &check.output {
                        why.push_str("\ndisassembly:\n");
                        why.push_str(&o.disassembly);
                    }
                    panic!(
                        "seed {seed}:\n{}",
                        regression_file(seed, Form::Raw, &["verify"], &why, &vs)
                    );
                }
            }
        }
    }
    println!("pica-vs diff: {compared} programs compared ({instructions} instructions), {skipped} skipped");
    assert!(
        compared >= MIN_COMPARED,
        "only {compared} of {} generator programs compiled for pica-vs",
        2 * PROGRAMS
    );
}

/// Generator programs found by `irc fuzz-diff --pipeline pica-vs` (kept as text in
/// `testsuite/regressions/`): seed 20081 (`min(x, NaN)`, which PICA's MIN answers with the NaN
/// and the IR with `x`), 105052 (a product past float24's largest value, infinite on the
/// hardware), 105796 (`rcp(−x)` at `x = 0`: float24 has no −0, so +inf), 506228 (a D3D9-rule
/// `0 · NaN`: NaN on PICA's MUL, the oracle's rule).
#[test]
fn generated_programs_with_nan_range_and_zero_sign_cases_match() {
    let target = irc::target("pica-vs").expect("registered");
    for seed in [20081, 105052, 105796, 506228] {
        let name = format!("vertex_seed_{seed}");
        let run = irc_testsuite::harness::check_regression(target, &name)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(run.instructions > 0 && run.seeds_compared > 0, "{name}");
    }
}

/// `pica-gs` on generator programs as geometry shaders ([`irc_testsuite::gen::geometry_form`]:
/// one input triangle, the program once, its outputs emitted as the three vertices of one
/// strip), each compared by its emitted vertices and assembled triangle on every input set.
#[test]
fn generated_geometry_programs_match_in_the_pica_simulator() {
    let target = irc::target("pica-gs").expect("registered");
    let (mut compared, mut instructions) = (0u32, 0u32);
    for seed in 0..1500 {
        match irc_testsuite::harness::check_generated(target, seed, Limits::default()) {
            Ok(Some(run)) => {
                assert!(
                    run.seeds_compared > 0,
                    "program {seed}: no input set compared"
                );
                compared += 1;
                instructions += run.instructions;
            }
            Ok(None) => {}
            Err(case) => panic!("{case}"),
        }
    }
    println!("pica-gs diff: {compared} programs compared ({instructions} instructions)");
    assert!(
        compared >= 150,
        "only {compared} of 1500 generator programs compiled for pica-gs"
    );
}
