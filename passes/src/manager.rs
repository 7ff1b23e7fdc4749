//! The pass manager: runs passes one by one with a tracing span and a timing each, verifies the
//! module after every pass when asked (always in debug and test builds), and prints the module
//! after the passes the user names. Pipelines are plain straight-line code calling
//! [`PassManager::run`] (see [`crate::pipelines`]); the [`crate::registry`] lets any pass run
//! alone (`irc opt FILE --passes a,b`).
//!
//! CFGs and dominator trees are kept from pass to pass in the context's
//! [`irc_ir::analysis::Analyses`]. Their cost is not left with whichever pass happened to
//! build them (the next pass would look cheap for reusing them): the time spent building
//! analyses during a pass is taken out of that pass's time and shown in rows of its own,
//! [`CFG_ROW`] and [`DOM_ROW`], whose run counts are the builds.

use crate::caps::PassContext;
use crate::registry::PassInfo;
use crate::PassError;
use irc_ir::{text, verifier, Module, ModuleVersion};
use std::time::{Duration, Instant};

/// Which passes to print the module after.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PrintAfter {
    #[default]
    None,
    All,
    Passes(Vec<String>),
}

impl PrintAfter {
    /// True if the module is to be printed after pass `name`.
    pub fn wants(&self, name: &str) -> bool {
        match self {
            PrintAfter::None => false,
            PrintAfter::All => true,
            PrintAfter::Passes(v) => v.iter().any(|p| p == name),
        }
    }
}

/// Options of a pass-manager run.
#[derive(Clone, Debug)]
pub struct ManagerOptions {
    /// Run the verifier after every pass.
    pub verify: bool,
    pub print_after: PrintAfter,
}

impl Default for ManagerOptions {
    fn default() -> Self {
        ManagerOptions {
            verify: cfg!(debug_assertions),
            print_after: PrintAfter::None,
        }
    }
}

/// The timing row of CFG builds (see the module docs).
pub const CFG_ROW: &str = "(cfg)";
/// The timing row of dominator-tree builds.
pub const DOM_ROW: &str = "(dominators)";

/// Time spent in one pass (summed over its runs).
#[derive(Clone, Debug)]
pub struct Timing {
    pub pass: &'static str,
    pub runs: u32,
    pub time: Duration,
}

/// Runs passes over a module.
#[derive(Debug, Default)]
pub struct PassManager {
    pub options: ManagerOptions,
    /// Target capabilities and other inputs of the passes.
    pub context: PassContext,
    timings: Vec<Timing>,
    /// Text printed by `print_after`, in order.
    printed: String,
    /// Per clean-up pass: the module version right after its last run in a clean-up loop
    /// (see [`PassManager::settled_at`]).
    settled: Vec<(&'static str, ModuleVersion)>,
}

impl PassManager {
    pub fn new(options: ManagerOptions) -> Self {
        PassManager {
            options,
            context: PassContext::default(),
            // Room for a pipeline's passes: the table does not regrow while it fills.
            timings: Vec::with_capacity(48),
            printed: String::new(),
            settled: Vec::new(),
        }
    }

    /// The module version right after `pass`'s last run in a clean-up loop (or the skip of
    /// that run). The clean-up passes are idempotent, so at that same version a run would
    /// change nothing: a later clean-up loop (the optimizer's, the one after
    /// `int-to-float`, …) skips it. Versions are unique to a module and never repeat, so a
    /// version of another module or shader never matches.
    pub fn settled_at(&self, pass: &str) -> Option<ModuleVersion> {
        self.settled.iter().find(|s| s.0 == pass).map(|s| s.1)
    }

    /// Records that `pass` has seen the module at `version` and leaves it as it is.
    pub fn note_settled(&mut self, pass: &'static str, version: ModuleVersion) {
        match self.settled.iter_mut().find(|s| s.0 == pass) {
            Some(s) => s.1 = version,
            None => self.settled.push((pass, version)),
        }
    }

    /// Forgets `pass`'s [`PassManager::settled_at`] version (its last run left work undone).
    pub fn forget_settled_pass(&mut self, pass: &str) {
        self.settled.retain(|s| s.0 != pass);
    }

    /// Forgets every [`PassManager::settled_at`] version (a pipeline starts: its context may
    /// differ from the last one's).
    pub fn forget_settled(&mut self) {
        self.settled.clear();
    }

    /// Runs one pass; returns whether it changed the module.
    pub fn run(&mut self, m: &mut Module, pass: &PassInfo) -> Result<bool, PassError> {
        let span = tracing::debug_span!("pass", name = pass.name);
        let _enter = span.enter();
        self.context.analyses.take_spent();
        let start = Instant::now();
        let changed = (pass.run)(m, &self.context)?;
        let elapsed = start.elapsed();
        let spent = self.context.analyses.take_spent();
        let analyses = spent.cfg_time + spent.dom_time;
        self.record(pass.name, 1, elapsed.saturating_sub(analyses));
        if spent.cfg_builds > 0 {
            self.record(CFG_ROW, spent.cfg_builds, spent.cfg_time);
        }
        if spent.dom_builds > 0 {
            self.record(DOM_ROW, spent.dom_builds, spent.dom_time);
        }
        if self.options.verify {
            if let Err(errors) = verifier::verify(m) {
                return Err(PassError::Verifier {
                    pass: pass.name,
                    errors: errors.to_string(),
                });
            }
        }
        if self.options.print_after.wants(pass.name) {
            self.printed.push_str(&format!("; after {}\n", pass.name));
            self.printed.push_str(&text::print(m));
        }
        Ok(changed)
    }

    fn record(&mut self, pass: &'static str, runs: u32, time: Duration) {
        match self.timings.iter_mut().find(|t| t.pass == pass) {
            Some(t) => {
                t.runs += runs;
                t.time += time;
            }
            None => self.timings.push(Timing { pass, runs, time }),
        }
    }

    /// Runs a pass by name (see [`crate::registry::find`]).
    pub fn run_named(&mut self, m: &mut Module, name: &str) -> Result<bool, PassError> {
        let pass =
            crate::registry::find(name).ok_or_else(|| PassError::UnknownPass(name.into()))?;
        self.run(m, pass)
    }

    /// Timings in order of first run.
    pub fn timings(&self) -> &[Timing] {
        &self.timings
    }

    /// The timing table `--time-passes` prints.
    pub fn timing_table(&self) -> String {
        let total: Duration = self.timings.iter().map(|t| t.time).sum();
        let mut s = format!(
            "{:<24} {:>6} {:>12} {:>7}\n",
            "pass", "runs", "time (µs)", "share"
        );
        for t in &self.timings {
            let share = if total.is_zero() {
                0.0
            } else {
                t.time.as_secs_f64() / total.as_secs_f64()
            };
            s.push_str(&format!(
                "{:<24} {:>6} {:>12.1} {:>6.1}%\n",
                t.pass,
                t.runs,
                t.time.as_secs_f64() * 1e6,
                share * 100.0
            ));
        }
        s.push_str(&format!(
            "{:<24} {:>6} {:>12.1}\n",
            "total",
            "",
            total.as_secs_f64() * 1e6
        ));
        s
    }

    /// Takes the text printed after passes so far.
    pub fn take_printed(&mut self) -> String {
        std::mem::take(&mut self.printed)
    }
}
