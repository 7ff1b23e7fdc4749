//! The random program generator makes verifier-clean, deterministic modules in both forms,
//! and they survive the binary and text formats.

use irc_ir::{binary, text, verifier};
use irc_testsuite::gen::{generate, regression_file, Form, Limits};

const SEEDS: u64 = 300;

#[test]
fn generated_modules_verify_and_round_trip() {
    let mut failures = Vec::new();
    let mut ops = 0;
    for seed in 0..SEEDS {
        for form in [Form::Raw, Form::Structured] {
            let m = generate(seed, form, Limits::default());
            ops += m.len();
            if let Err(e) = verifier::verify(&m) {
                failures.push(regression_file(seed, form, &["verify"], &e.to_string(), &m));
                continue;
            }
            let bytes = binary::write(&m).expect("generated modules serialize");
            let back = binary::read(&bytes).expect("and read back");
            assert_eq!(
                binary::write(&back).unwrap(),
                bytes,
                "seed {seed} {form:?}: binary"
            );
            let printed = text::print(&back);
            assert_eq!(
                text::parse(&printed).ok().as_ref(),
                Some(&back),
                "seed {seed} {form:?}: text"
            );
        }
    }
    if let Some(first) = failures.first() {
        panic!(
            "{} generated modules fail the verifier; first:\n{first}",
            failures.len()
        );
    }
    println!("{} modules, {ops} ops", SEEDS * 2);
}

#[test]
fn generation_is_deterministic_and_varied() {
    let a = generate(7, Form::Structured, Limits::default());
    let b = generate(7, Form::Structured, Limits::default());
    assert_eq!(a, b);
    let c = generate(8, Form::Structured, Limits::default());
    assert_ne!(a, c);
    // Across seeds the generator reaches every construct it knows.
    let mut seen = std::collections::HashSet::new();
    for seed in 0..200 {
        let m = generate(seed, Form::Raw, Limits::default());
        seen.extend(m.iter().map(|d| m.opcode(d)));
    }
    use irc_ir::OpCode::*;
    for op in [
        ScopedIf,
        ScopedElse,
        ScopedLoop,
        ScopedLoopBreak,
        ScopedSwitch,
        ScopedSwitchCase,
        Demote,
        BufferLoad,
        ImageSample,
        ConsumeAs,
        FMulLegacy,
        ConvertFtoI,
        Select,
        UDiv,
    ] {
        assert!(seen.contains(&op), "generator never emits {op}");
    }
}

/// The backbone of differential testing: the raw and structured forms of one random program,
/// the raw form after our frontend and after the whole `legalize` pipeline, all compute
/// bit-identical outputs in the interpreter.
#[test]
fn raw_structured_and_frontend_forms_agree_in_the_interpreter() {
    use irc_interp::{run, RunConfig, ShaderInputs};
    let mut compared = 0;
    for seed in 0..SEEDS {
        let raw = generate(seed, Form::Raw, Limits::default());
        let structured = generate(seed, Form::Structured, Limits::default());
        let mut converted = raw.clone();
        irc_frontend::to_structured_ssa(&mut converted).expect("frontend accepts generated IR");
        verifier::verify(&converted).expect("frontend output verifies");
        let mut legalized = raw.clone();
        let mut pm = irc_passes::PassManager::new(irc_passes::ManagerOptions {
            verify: true,
            ..Default::default()
        });
        irc_testsuite::pipeline::run(&mut pm, &mut legalized, "legalize")
            .unwrap_or_else(|e| panic!("seed {seed}: legalize: {e}"));
        for input_seed in 0..4 {
            let inputs = ShaderInputs::random(&structured, input_seed);
            let config = RunConfig::default();
            let results: Vec<_> = [&raw, &structured, &converted, &legalized]
                .iter()
                .map(|m| run(m, &inputs, &config))
                .collect();
            let reference = match &results[0] {
                Ok(o) => o,
                Err(t) => panic!("seed {seed}/{input_seed}: generated programs must not trap: {t}"),
            };
            for (name, r, m) in [
                ("structured", &results[1], &structured),
                ("frontend", &results[2], &converted),
                ("legalized", &results[3], &legalized),
            ] {
                // Bit for bit, except that any NaN matches any NaN (passes may change payloads).
                let verdict = match r {
                    Ok(o) => {
                        irc_interp::compare::outputs_equal(reference, o).map_err(|d| d.to_string())
                    }
                    Err(t) => Err(format!("traps: {t}")),
                };
                if let Err(why) = verdict {
                    let file = regression_file(
                        seed,
                        Form::Raw,
                        &["run"],
                        &format!("{name} form differs from raw on input seed {input_seed}: {why}"),
                        m,
                    );
                    panic!("{file}");
                }
            }
            compared += 1;
        }
    }
    println!("{compared} program/input pairs agree in four forms");
}

/// The optimizing pipelines for every target family keep random programs' behaviour (the
/// bounded CI share of `irc fuzz-diff`).
#[test]
fn opt_pipelines_keep_behaviour() {
    for pipeline in ["opt", "opt:lima", "opt:pica", "opt:agal"] {
        let (mut ops, mut unsupported) = (0, 0);
        for seed in 0..150 {
            match irc_testsuite::difftest::check_seed(seed, pipeline) {
                Ok(Some(n)) => ops += n,
                Ok(None) => unsupported += 1,
                Err(case) => panic!("{case}"),
            }
        }
        assert!(
            unsupported < 150,
            "{pipeline}: no generated program was compared"
        );
        println!(
            "{pipeline}: 150 programs, {unsupported} unsupported, {ops} ops after the pipeline"
        );
    }
}
