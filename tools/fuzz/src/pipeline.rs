//! Structure-aware fuzz bodies for the whole pipeline.
//!
//! [`pipeline`] turns the fuzz input into a verifier-clean program through the random program
//! generator of `irc fuzz-diff` (`irc_testsuite::gen`), whose every choice is read from the
//! input ([`irc_testsuite::gen::Rng::from_bytes`]), and applies one of `irc fuzz-diff`'s checks,
//! chosen by the input: the optimizing pipeline keeps the interpreter's results and stays
//! verifier-clean after every pass, or one registered target compiles the program (as a vertex
//! shader for the vertex-stage targets, a geometry shader for the geometry-stage ones),
//! verifier-clean after every pass of its pipeline, or
//! reports it unsupported, with its simulator agreeing with the interpreter. One check per
//! input rather than all of them keeps an execution short (a few milliseconds) and lets the
//! coverage feedback steer each target's inputs separately. [`compile_ir`] feeds arbitrary
//! verifier-clean modules from the binary reader to every registered target: no panic, no
//! internal error.

use irc_backend::Target;
use irc_ir::ShaderStage;
use irc_testsuite::gen::{self, Limits, Rng};
use irc_testsuite::harness::check_program_with;

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

/// What one input checks.
#[derive(Clone, Copy)]
enum Check {
    /// The `opt` pipeline against the interpreter, verifier after every pass.
    Pipeline,
    /// One target's whole compile against its simulator.
    Target(&'static dyn Target),
}

/// The checks an input's second byte chooses from: the `opt` pipeline, then every registered
/// target of a stage the generator makes (pixel, vertex through [`gen::vertex_form`], geometry
/// through [`gen::geometry_form`]).
fn checks() -> Vec<Check> {
    let makes = |t: &'static dyn Target| {
        t.stages().iter().any(|s| {
            *s == ShaderStage::Pixel || *s == ShaderStage::Vertex || *s == ShaderStage::Geometry
        })
    };
    let targets = irc::Registry::builtin().targets().iter().copied();
    std::iter::once(Check::Pipeline)
        .chain(targets.filter(|&t| makes(t)).map(Check::Target))
        .collect()
}

/// The name of the check an input's second byte chooses: `opt` or a target's name (the seed
/// files under `seeds/pipeline/` start with it, so a newly registered target that shifts the
/// choice shows up in the seed test).
pub fn check_name(which: u8) -> &'static str {
    let checks = checks();
    match checks[usize::from(which) % checks.len()] {
        Check::Pipeline => PIPELINE,
        Check::Target(t) => t.name(),
    }
}

/// Fuzz input → generator program → the check its second byte names. Panics with a
/// ready-to-commit filetest on a finding.
pub fn pipeline(data: &[u8]) {
    let [b, which, rest @ ..] = data else {
        return;
    };
    let limits = limits(*b);
    let checks = checks();
    let program = gen::draw::draw(&mut Rng::from_bytes(rest), limits);
    match checks[usize::from(*which) % checks.len()] {
        Check::Pipeline => {
            let raw = gen::raw::lower(&program);
            if let Err(case) = irc_testsuite::difftest::check_module(&raw, 0, PIPELINE) {
                panic!("pipeline `{PIPELINE}` finding ({limits:?}):\n{case}");
            }
        }
        Check::Target(target) => {
            let options = irc::Options {
                verify_each_pass: true,
                ..Default::default()
            };
            if let Err(file) = check_program_with(target, program, 0, limits, &options) {
                panic!("finding:\n{file}");
            }
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
