//! `if-convert` and `unroll` on random programs: the generator's structured form, and its raw
//! form after our frontend, run through both passes with each target family's capabilities
//! (verified after each pass) and compute the same outputs as before in the interpreter on
//! random inputs. For AGAL (no branches, no loops) the passes must also leave no conditional
//! branch and no loop behind unless one of them reported the program unsupported.

use irc_ir::analysis::{construct, functions, Cfg};
use irc_ir::{verifier, Construct, Module, OpCode};
use irc_passes::{registry, PassContext, PassError, TargetCaps};
use irc_testsuite::equivalence::{compare, Verdict};
use irc_testsuite::gen::{generate, regression_file, Form, Limits};

const SEEDS: u64 = 300;
const INPUT_SEEDS: u64 = 4;

enum Outcome {
    Ok(Vec<bool>),
    Unsupported(String),
    Failed(String),
}

/// Runs the named passes in order with `caps`, verifying after each.
fn run_passes(m: &mut Module, names: &[&str], caps: &TargetCaps) -> Outcome {
    let cx = PassContext {
        caps: caps.clone(),
        ..PassContext::default()
    };
    let mut changed = Vec::new();
    for &name in names {
        let pass = registry::find(name).expect("registered pass");
        match (pass.run)(m, &cx) {
            Ok(c) => changed.push(c),
            Err(e @ PassError::Unsupported { .. }) => return Outcome::Unsupported(e.to_string()),
            Err(e) => return Outcome::Failed(format!("{name}: {e}")),
        }
        if let Err(e) = verifier::verify(m) {
            return Outcome::Failed(format!("verifier after {name}:\n{e}"));
        }
    }
    Outcome::Ok(changed)
}

/// Conditional branches, switches and loop headers left in the module.
fn control_flow_left(m: &Module) -> usize {
    let mut n = 0;
    for f in functions(m) {
        let cfg = Cfg::build(m, f);
        for b in cfg.blocks() {
            let t = cfg.block(b).terminator;
            if t.is_some_and(|t| matches!(m.opcode(t), OpCode::BranchConditional | OpCode::Switch))
                || matches!(
                    construct(m, cfg.label(b)),
                    Some((Construct::StructuredLoop, _, _))
                )
            {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn if_convert_and_unroll_keep_random_programs_behaviour() {
    let families = [
        TargetCaps::DEFAULT,
        irc_testsuite::pipeline::caps("lima").unwrap(),
        irc_testsuite::pipeline::caps("pica").unwrap(),
        irc_testsuite::pipeline::caps("agal").unwrap(),
    ];
    let mut failures = Vec::new();
    let mut changed_by = [0usize; 2];
    let (mut agal_runs, mut agal_flat, mut agal_unsupported) = (0usize, 0usize, 0usize);
    let mut reasons = std::collections::BTreeMap::new();
    for seed in 0..SEEDS {
        for form in [Form::Structured, Form::Raw] {
            let mut original = generate(seed, form, Limits::default());
            if form == Form::Raw {
                irc_frontend::to_structured_ssa(&mut original).expect("frontend accepts it");
            }
            for caps in &families {
                // Loops first on AGAL: if-convert leaves loop exit tests to unroll.
                let passes: &[&str] = if caps.loops {
                    &["if-convert", "unroll", "cfg-cleanup"]
                } else {
                    &["unroll", "if-convert", "cfg-cleanup"]
                };
                let mut m = original.clone();
                let why = match run_passes(&mut m, passes, caps) {
                    Outcome::Failed(e) => Some(e),
                    Outcome::Unsupported(e) => {
                        assert!(!caps.loops, "unsupported on {}: {e}", caps.name);
                        agal_runs += 1;
                        agal_unsupported += 1;
                        let key = e.split(": ").skip(2).collect::<Vec<_>>().join(": ");
                        let key: String = key.chars().filter(|c| !c.is_ascii_digit()).collect();
                        *reasons.entry(key).or_insert(0usize) += 1;
                        None
                    }
                    Outcome::Ok(changed) => {
                        let ic = passes
                            .iter()
                            .position(|p| *p == "if-convert")
                            .expect("listed");
                        let un = passes.iter().position(|p| *p == "unroll").expect("listed");
                        changed_by[0] += changed[ic] as usize;
                        changed_by[1] += changed[un] as usize;
                        let left = control_flow_left(&m);
                        if !caps.loops {
                            agal_runs += 1;
                            agal_flat += (left == 0) as usize;
                        }
                        match compare(&original, &m, &original, INPUT_SEEDS) {
                            Verdict::Same if !caps.loops && left > 0 => Some(format!(
                                "{left} branches or loops left for {} without an error",
                                caps.name
                            )),
                            Verdict::Same | Verdict::NotRunnable(_) => None,
                            v => Some(format!("{v:?}")),
                        }
                    }
                };
                if let Some(why) = why {
                    let command = format!("pass {}", passes.join(","));
                    let why = format!("caps {}: {why}", caps.name);
                    failures.push(regression_file(seed, form, &[&command], &why, &original));
                }
            }
        }
    }
    println!(
        "runs changed by if-convert {}, by unroll {}; agal: {agal_runs} runs, {agal_flat} \
         branch-free, {agal_unsupported} unsupported",
        changed_by[0], changed_by[1]
    );
    for (why, n) in &reasons {
        println!("  {n:4} unsupported: {why}");
    }
    if let Some(first) = failures.first() {
        panic!("{} failures; first:\n{first}", failures.len());
    }
    assert!(changed_by[0] > 0, "if-convert never converted anything");
    assert!(changed_by[1] > 0, "unroll never unrolled anything");
    assert!(agal_flat > 0, "no program became branch-free for agal");
}

/// Corpus statistics with the default caps after `inline,cfg-cleanup`: loops, loops with a
/// known trip count, selections converted (run with `cargo test --release -p irc-testsuite
/// --test opt_ifconv_unroll -- --ignored --nocapture`).
#[test]
#[ignore = "statistics over the whole corpus; `irc corpus --check passes:…,if-convert,unroll,…` tests behaviour"]
fn corpus_statistics() {
    use irc_testsuite::corpus::{default_corpus_dir, ir_files};
    let Some(dir) = default_corpus_dir() else {
        println!("corpus not found, skipped");
        return;
    };
    let cx = PassContext::default();
    let (mut files, mut loops, mut known, mut converted, mut unrolled) = (0, 0, 0, 0, 0);
    let mut reasons = std::collections::BTreeMap::new();
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
        for name in ["inline", "cfg-cleanup"] {
            (registry::find(name).expect("registered").run)(&mut m, &cx).expect("pass runs");
        }
        files += 1;
        let counts = irc_passes::unroll::trip_counts(&m);
        loops += counts.len();
        for c in &counts {
            match c {
                Ok(_) => known += 1,
                Err(e) => *reasons.entry(e.clone()).or_insert(0usize) += 1,
            }
        }
        converted += irc_passes::if_convert::convert(&mut m, &cx).expect("if-convert runs");
        let before = irc_passes::unroll::trip_counts(&m).len();
        (registry::find("unroll").expect("registered").run)(&mut m, &cx).expect("unroll runs");
        unrolled += before.saturating_sub(irc_passes::unroll::trip_counts(&m).len());
    }
    println!(
        "{files} files: {loops} loops, {known} with a known trip count, {unrolled} unrolled \
         (default caps); {converted} selections converted"
    );
    for (why, n) in &reasons {
        println!("  {n:5} {why}");
    }
}

/// A filetest's module (header lines are comments to the parser).
fn filetest_module(path: &str) -> Module {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/filetests/passes/");
    let src = std::fs::read_to_string(format!("{dir}{path}")).expect("filetest readable");
    let src: String = src
        .lines()
        .map(|l| if l.starts_with("test ") { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    irc_ir::text::parse(&src).expect("filetest parses")
}

fn run_with(m: &mut Module, name: &str, caps: TargetCaps) -> Result<bool, PassError> {
    let cx = PassContext {
        caps,
        ..PassContext::default()
    };
    (registry::find(name).expect("registered").run)(m, &cx)
}

#[test]
fn agal_reports_what_it_cannot_flatten() {
    // if-convert: the Demote arm stays and is named; the 9-op arm is converted (no limit).
    let mut m = filetest_module("if-convert/keeps.ir");
    let e = run_with(
        &mut m,
        "if-convert",
        irc_testsuite::pipeline::caps("agal").unwrap(),
    )
    .expect_err("Demote is unsupported");
    let msg = e.to_string();
    assert!(msg.contains("Demote"), "{msg}");
    // unroll: the loop with an input limit is named with the reason; the 100-trip loop would
    // fit the loop-less budget.
    let mut m = filetest_module("unroll/keeps.ir");
    let msg = run_with(
        &mut m,
        "unroll",
        irc_testsuite::pipeline::caps("agal").unwrap(),
    )
    .expect_err("unknown trip count")
    .to_string();
    assert!(
        msg.contains("%24") && msg.contains("unknown trip count"),
        "{msg}"
    );
    // What AGAL can flatten, it flattens completely.
    for path in ["if-convert/diamond.ir", "if-convert/nested.ir"] {
        let mut m = filetest_module(path);
        run_with(
            &mut m,
            "if-convert",
            irc_testsuite::pipeline::caps("agal").unwrap(),
        )
        .expect("converts");
        verifier::verify(&m).expect("valid");
        assert_eq!(control_flow_left(&m), 0, "{path}");
    }
    for path in [
        "unroll/counted.ir",
        "unroll/nested.ir",
        "unroll/float_counter.ir",
    ] {
        let mut m = filetest_module(path);
        run_with(
            &mut m,
            "unroll",
            irc_testsuite::pipeline::caps("agal").unwrap(),
        )
        .expect("unrolls");
        verifier::verify(&m).expect("valid");
        assert_eq!(control_flow_left(&m), 0, "{path}");
    }
}

#[test]
fn each_phi_adds_the_select_cost() {
    // diamond.ir: an if/else of 3 ops and a one-armed if of 1 op, each merging one phi.
    let caps = |select_cost| TargetCaps {
        if_convert_limit: 4,
        select_cost,
        ..TargetCaps::DEFAULT
    };
    // 3 + 1·1 ≤ 4 and 1 + 1 ≤ 4: both converted.
    let mut m = filetest_module("if-convert/diamond.ir");
    run_with(&mut m, "if-convert", caps(1)).expect("runs");
    assert_eq!(control_flow_left(&m), 0);
    // 3 + 2 > 4 stays, 1 + 2 ≤ 4 is converted.
    let mut m = filetest_module("if-convert/diamond.ir");
    run_with(&mut m, "if-convert", caps(2)).expect("runs");
    verifier::verify(&m).expect("valid");
    assert_eq!(control_flow_left(&m), 1);
}
