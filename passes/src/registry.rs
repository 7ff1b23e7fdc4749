//! Every pass by name, so that any pass can run alone (`irc opt FILE --passes a,b`) and
//! pipelines can refer to them. One entry per pass file.

use crate::PassError;
use irc_ir::Module;

/// A registered pass.
#[derive(Debug)]
pub struct PassInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// Runs the pass; returns whether the module changed.
    pub run: fn(&mut Module) -> Result<bool, PassError>,
}

fn structurize(m: &mut Module) -> Result<bool, PassError> {
    let before = m.len();
    irc_frontend::structurize::run(m)?;
    Ok(m.len() != before)
}

fn remove_unreachable(m: &mut Module) -> Result<bool, PassError> {
    let before = m.len();
    irc_frontend::unreachable::run(m);
    Ok(m.len() != before)
}

fn ssa(m: &mut Module) -> Result<bool, PassError> {
    let before = m.len();
    irc_frontend::ssa::run(m)?;
    Ok(m.len() != before)
}

/// All passes.
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        name: "structurize",
        description: "scoped control flow to structured control flow (frontend)",
        run: structurize,
    },
    PassInfo {
        name: "remove-unreachable",
        description: "remove uncalled functions and unreachable blocks (frontend)",
        run: remove_unreachable,
    },
    PassInfo {
        name: "ssa",
        description: "temporaries to SSA values and phis, trivial-phi removal (frontend)",
        run: ssa,
    },
];

/// The pass with this name.
pub fn find(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.name == name)
}
