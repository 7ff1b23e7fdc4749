//! [`Compiler`]: a target and options fixed once, for embedders that compile many shaders.

use irc_backend::{Diagnostic, Diagnostics, Output, Target};
use irc_ir::Module;
use irc_passes::{ManagerOptions, PassManager};

use crate::{diag, find_target, input, run_pipeline, Input, Options, Registry};

/// Compiles shader after shader for one target with one set of options.
///
/// The target is looked up and the options are checked once, in [`Compiler::new`]; the pass
/// manager (its context and timing table) and the module storage are kept across
/// compilations instead of being built for each shader (DESIGN rule 14): a binary input is
/// read into the previous shader's cleared module (`irc_ir::binary::read_into`), reusing its
/// op, use-list and constant tables. A `Compiler` is `Send`: use one per thread.
///
/// ```
/// use irc::{Compiler, Input, Options};
///
/// let shader = "%1 = EntryPoint %4 Pixel\n%2 = f32x4 DclInput %1 0 0 None\n\
///               %3 = f32x4 DclOutput %1 0 0\n%4 = Function\n%5 = Label None\n\
///               %6 = f32x4 InputLoad %2 null\n%7 = OutputStore %3 null %6\n%8 = Return\n\
///               %9 = FunctionEnd\n";
///
/// let mut options = Options::default();
/// options.backend.container = true;
/// options.set("opt-level", "1").unwrap(); // or options.backend.opt_level = 1
/// let mut compiler = Compiler::new("lima-fp", options).expect("known target, valid options");
/// for _ in 0..3 {
///     let output = compiler.compile(Input::Text(shader)).expect("compiles");
///     assert!(!output.code().is_empty());
///     assert_eq!(output.container.as_ref().map(|c| c.format), Some("mbs1"));
///     let json = compiler.reflection_json(&output);
///     assert_eq!(json["schema_version"], 1);
///     assert!(json["target"]["lima-fp"].is_object());
/// }
///
/// // An unknown target or option is an error from `new`, never a panic.
/// assert!(Compiler::new("no-such-gpu", Options::default()).is_err());
/// let mut bad = Options::default();
/// bad.backend.set("no-such-option", "1");
/// assert!(Compiler::new("lima-fp", bad).is_err());
///
/// // Truncated input is an `Input` diagnostic.
/// let err = compiler.compile(Input::Binary(&[0x05, 0x01])).unwrap_err();
/// assert_eq!(err.0[0].kind, irc::DiagnosticKind::Input);
/// ```
#[derive(Debug)]
pub struct Compiler {
    target: &'static dyn Target,
    options: Options,
    passes: PassManager,
    /// The last shader's module, cleared and refilled by the next binary input.
    module: Module,
}

impl Compiler {
    /// A compiler for the built-in target named `target` (`lima-fp`) with `options`. Errors:
    /// an `Input` diagnostic for an unknown target, option key or option value.
    pub fn new(target: &str, options: Options) -> Result<Compiler, Diagnostics> {
        Compiler::in_registry(Registry::builtin(), target, options)
    }

    /// [`Compiler::new`] with a target of `registry`.
    pub fn in_registry(
        registry: &Registry,
        target: &str,
        options: Options,
    ) -> Result<Compiler, Diagnostics> {
        let target = find_target(registry, target)?;
        options
            .backend
            .validate(target.name(), target.options())
            .map_err(Diagnostics::from)?;
        if options.backend.opt_level > 2 {
            return Err(Diagnostic::input(format!(
                "optimization level {} (0, 1 or 2)",
                options.backend.opt_level
            ))
            .into());
        }
        Ok(Compiler {
            target,
            options,
            passes: PassManager::new(ManagerOptions::default()),
            module: Module::new(),
        })
    }

    /// The target it compiles for.
    pub fn target(&self) -> &'static dyn Target {
        self.target
    }

    /// The options it compiles with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Compiles one shader, like [`crate::compile`] (the same output for the same input).
    pub fn compile(&mut self, input: Input<'_>) -> Result<Output, Diagnostics> {
        let (target, options) = (self.target, &self.options);
        let (pm, m) = (&mut self.passes, &mut self.module);
        diag::guard(|| {
            input::read_into(input, m)?;
            run_pipeline(pm, m, target, options)?;
            target.compile(m, &options.backend)
        })
    }

    /// Everything [`Compiler::compile`] does before code generation, like [`crate::prepare`].
    pub fn prepare(&mut self, input: Input<'_>) -> Result<Module, Diagnostics> {
        let (target, options) = (self.target, &self.options);
        let (pm, m) = (&mut self.passes, &mut self.module);
        diag::guard(|| {
            input::read_into(input, m)?;
            run_pipeline(pm, m, target, options)?;
            Ok(std::mem::take(m))
        })
    }

    /// Time per pass over every shader this compiler prepared so far (the pass manager's own
    /// timings), for benchmarks.
    pub fn pass_timings(&self) -> &[irc_passes::Timing] {
        self.passes.timings()
    }

    /// The reflection of `output` as a JSON document (`docs/reflection.md`).
    pub fn reflection_json(&self, output: &Output) -> serde_json::Value {
        irc_backend::reflection_json::to_json(self.target.name(), output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn a_compiler_can_move_to_another_thread() {
        assert_send::<Compiler>();
    }
}
