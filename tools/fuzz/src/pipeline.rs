//! Structure-aware fuzz bodies for the whole pipeline.
//!
//! [`pipeline`] turns the fuzz input into a verifier-clean program through the random program
//! generator of `irc fuzz-diff` (`irc_testsuite::gen`), whose every choice is read from the
//! input ([`irc_testsuite::gen::Rng::from_bytes`]), and applies `irc fuzz-diff`'s checks: the
//! optimizing pipeline keeps the interpreter's results and stays verifier-clean after every
//! pass, and every registered target compiles it (or reports it unsupported) with its
//! simulator agreeing with the interpreter. [`compile_ir`] feeds arbitrary verifier-clean
//! modules from the binary reader to every registered target: no panic, no internal error.

use irc_testsuite::corpus::Outcome;
use irc_testsuite::gen::{self, Form, Limits, Rng};
use irc_testsuite::harness::{check_shader, DIFF_SEEDS};

/// The pipeline `irc fuzz-diff` checks by default.
const PIPELINE: &str = "opt";

/// Generator limits from the first input byte: 1–16 statements, nesting depth 1–4, expression
/// depth 1–4 (the defaults of `irc fuzz-diff` are 10, 3, 3).
fn limits(b: u8) -> Limits {
    Limits {
        statements: 1 + usize::from(b & 15),
        depth: 1 + usize::from((b >> 4) & 3),
        expr_depth: 1 + usize::from(b >> 6),
    }
}

/// Fuzz input → generator program → `irc fuzz-diff`'s checks for the default pipeline and
/// for every registered target. Panics with a ready-to-commit filetest on a finding.
pub fn pipeline(data: &[u8]) {
    let Some((&b, rest)) = data.split_first() else {
        return;
    };
    let limits = limits(b);
    let program = gen::draw::draw(&mut Rng::from_bytes(rest), limits);
    let raw = gen::raw::lower(&program);
    if let Err(case) = irc_testsuite::difftest::check_module(&raw, 0, PIPELINE) {
        panic!("pipeline `{PIPELINE}` finding ({limits:?}):\n{case}");
    }
    for &target in irc::Registry::builtin().targets() {
        let check = check_shader(target, &raw, DIFF_SEEDS);
        if let Outcome::Failed(why) = check.outcome {
            let name = target.name();
            let why = format!("target {name}, generator {limits:?}: {why}");
            let file = gen::regression_file(0, Form::Raw, &["verify"], &why, &raw);
            panic!("target {name} finding:\n{file}");
        }
    }
}

/// Binary IR → (if verifier-clean) every registered target's whole compile: any outcome but a
/// panic or an internal error is fine.
pub fn compile_ir(data: &[u8]) {
    let Ok(m) = irc_ir::binary::read(data) else {
        return;
    };
    if irc_ir::verifier::verify(&m).is_err() {
        return;
    }
    for &target in irc::Registry::builtin().targets() {
        let input = irc::Input::Module(m.clone());
        if let Err(d) = irc::compile_for(input, target, &irc::Options::default()) {
            let internal =
                d.0.iter()
                    .find(|d| d.kind == irc_backend::DiagnosticKind::Internal);
            if let Some(e) = internal {
                panic!(
                    "{}: internal error: {e}\n{}",
                    target.name(),
                    irc_ir::text::print(&m)
                );
            }
        }
    }
}
