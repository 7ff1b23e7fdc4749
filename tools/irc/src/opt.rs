//! `irc opt`: runs a pipeline and/or a list of passes over a module.

use irc_passes::{registry, ManagerOptions, PassManager, PrintAfter};
use std::path::Path;
use std::process::ExitCode;

/// What `irc opt` was asked to do.
pub struct OptArgs<'a> {
    pub passes: &'a [String],
    pub pipeline: Option<&'a str>,
    pub opt_level: u8,
    pub print_after: &'a [String],
    pub time_passes: bool,
}

pub fn run(file: &Path, args: &OptArgs<'_>, output: Option<&Path>) -> Result<ExitCode, String> {
    let OptArgs {
        passes,
        pipeline,
        opt_level,
        print_after,
        time_passes,
    } = *args;
    let mut m = crate::load::module(file)?;
    let print_after = match print_after {
        [] => PrintAfter::None,
        [all] if all == "all" => PrintAfter::All,
        names => PrintAfter::Passes(names.to_vec()),
    };
    for name in passes {
        if registry::find(name).is_none() {
            let known: Vec<&str> = registry::PASSES.iter().map(|p| p.name).collect();
            return Err(format!(
                "unknown pass `{name}` (known: {})",
                known.join(", ")
            ));
        }
    }
    let mut pm = PassManager::new(ManagerOptions {
        verify: true,
        print_after,
    });
    pm.context.opt_level = opt_level;
    let result = (|| {
        if let Some(p) = pipeline {
            irc_testsuite::pipeline::run(&mut pm, &mut m, p)?;
        }
        for name in passes {
            pm.run_named(&mut m, name)?;
        }
        Ok::<(), irc_passes::PassError>(())
    })();
    print!("{}", pm.take_printed());
    if time_passes {
        eprint!("{}", pm.timing_table());
    }
    result.map_err(|e| format!("{}: {e}", file.display()))?;
    match output {
        Some(out) => crate::load::save(&m, out)?,
        None => print!("{}", irc_ir::text::print(&m)),
    }
    Ok(ExitCode::SUCCESS)
}
