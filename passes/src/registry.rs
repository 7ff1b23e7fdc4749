//! Every pass by name, so that any pass can run alone (`irc opt FILE --passes a,b`) and
//! pipelines can refer to them. One entry per pass file.

use crate::caps::PassContext;
use crate::PassError;
use irc_ir::{Changes, Module};

/// A registered pass.
#[derive(Debug)]
pub struct PassInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// Runs the pass; returns whether the module changed.
    pub run: fn(&mut Module, &PassContext) -> Result<bool, PassError>,
    /// For a pass whose run leaves the module at its fixpoint: true if a run would change
    /// nothing after these changes since its last run (an over-approximation of its work; the
    /// clean-up loop skips the run then, see [`crate::pipelines::fixpoint`]).
    pub settled: Option<fn(&Module, Changes) -> bool>,
}

fn structurize(m: &mut Module, _: &PassContext) -> Result<bool, PassError> {
    let before = m.len();
    irc_frontend::structurize::run(m)?;
    Ok(m.len() != before)
}

fn remove_unreachable(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    let before = m.len();
    irc_frontend::unreachable::run_with(m, &cx.analyses);
    Ok(m.len() != before)
}

fn ssa(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    let before = m.len();
    irc_frontend::ssa::run_with(m, &cx.analyses)?;
    Ok(m.len() != before)
}

/// All passes.
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        name: "structurize",
        description: "scoped control flow to structured control flow (frontend)",
        run: structurize,
        settled: None,
    },
    PassInfo {
        name: "remove-unreachable",
        description: "remove uncalled functions and unreachable blocks (frontend)",
        run: remove_unreachable,
        settled: None,
    },
    PassInfo {
        name: "ssa",
        description: "temporaries to SSA values and phis, trivial-phi removal (frontend)",
        run: ssa,
        settled: None,
    },
    PassInfo {
        name: "lower-consume",
        description: "ConsumeAs to casts and conversions; fold cast chains",
        run: crate::lower_consume::run,
        settled: None,
    },
    PassInfo {
        name: "propagate-types",
        description: "resolve Unknown-typed values and resources from their uses",
        run: crate::propagate_types::run,
        settled: None,
    },
    PassInfo {
        name: "fold-gs-vertex-count",
        description: "the geometry-shader input GsVertexCountIn to its input primitive's vertex count",
        run: crate::fold_gs_vertex_count::run,
        settled: None,
    },
    PassInfo {
        name: "trim-legacy-guards",
        description: "D3D9 legacy multiplies whose zero guards are provably identities to IEEE ops",
        run: crate::trim_legacy_guards::run,
        settled: None,
    },
    PassInfo {
        name: "lower-legacy",
        description: "D3D9 legacy multiply/mad/pow/log2 to IEEE ops, unless the target has them",
        run: crate::lower_legacy::run,
        settled: None,
    },
    PassInfo {
        name: "legacy-state",
        description: "D3D9 fixed-function state built-ins (alpha test, fog, …) to constants",
        run: crate::legacy_state::run,
        settled: None,
    },
    PassInfo {
        name: "lower-dot",
        description: "dot products to multiply-add chains, unless the target has them",
        run: crate::lower_dot::run,
        settled: None,
    },
    PassInfo {
        name: "call-helpers",
        description: "legacy multiplies and dot products into helper functions where that is smaller (legalize only)",
        run: crate::call_helpers::run,
        settled: None,
    },
    PassInfo {
        name: "legalize-ops",
        description: "bit-field ops, packed-half conversions and UMSad into the shape the legality contract allows",
        run: crate::legalize_ops::run,
        settled: None,
    },
    PassInfo {
        name: "lower-min16",
        description: "min-precision types to 16- or 32-bit types; MinValue/MaxValue to constants",
        run: crate::lower_min16::run,
        settled: None,
    },
    PassInfo {
        name: "scratch-to-regs",
        description:
            "scratch arrays to values and selects where the target has no indexable memory",
        run: crate::scratch_to_regs::run,
        settled: None,
    },
    PassInfo {
        name: "cfg-cleanup",
        description: "fold constant branches and switches, remove empty blocks, merge block chains",
        run: crate::cfg_cleanup::run,
        settled: None,
    },
    PassInfo {
        name: "dissolve-loops",
        description: "loops that never repeat (unreachable back edge) to plain structured code",
        run: crate::dissolve_loops::run,
        settled: None,
    },
    PassInfo {
        name: "dce",
        description: "remove unused ops and declarations",
        run: crate::dce::run,
        settled: None,
    },
    PassInfo {
        name: "inline",
        description: "inline every function call into the entry point",
        run: crate::inline::run,
        settled: None,
    },
    PassInfo {
        name: "const-fold",
        description: "fold ops on constants with the interpreter's own arithmetic",
        run: crate::const_fold::run,
        settled: Some(crate::const_fold::settled),
    },
    PassInfo {
        name: "const-fold-int",
        description: "const-fold for ops with integer and boolean results only (conditions)",
        run: crate::const_fold::run_int,
        settled: None,
    },
    PassInfo {
        name: "simplify",
        description:
            "algebraic identities, negation/abs folding, comparison and select simplification",
        run: crate::simplify::run,
        settled: None,
    },
    PassInfo {
        name: "gvn",
        description: "global value numbering over the dominator tree (CSE), copy propagation",
        run: crate::gvn::run,
        settled: Some(crate::gvn::settled),
    },
    PassInfo {
        name: "licm",
        description: "hoist loop-invariant pure ops out of loops",
        run: crate::licm::run,
        settled: None,
    },
    PassInfo {
        name: "if-convert",
        description: "branches to selects where the target cost model says so",
        run: crate::if_convert::run,
        settled: None,
    },
    PassInfo {
        name: "unroll",
        description:
            "loop unrolling with trip-count analysis; full unrolling for loop-less targets",
        run: crate::unroll::run,
        settled: None,
    },
    PassInfo {
        name: "lower-trig",
        description: "sine and cosine to polynomial arithmetic on targets without them",
        run: crate::lower_trig::run,
        settled: None,
    },
    PassInfo {
        name: "relax-ieee-mul",
        description: "IEEE multiplies to D3D9 legacy ones where the target's option asks for it",
        run: crate::relax_ieee_mul::run,
        settled: None,
    },
    PassInfo {
        name: "int-to-float",
        description: "integer ops provably exact in float become float ops on float-only targets",
        run: crate::int_to_float::run,
        settled: None,
    },
    PassInfo {
        name: "vectorize",
        description: "scalar ops to vec2/3/4 ops (SLP), multiply-add chains to dot products",
        run: crate::vectorize::run,
        settled: None,
    },
    PassInfo {
        name: "dead-io",
        description: "remove outputs nobody reads and inputs nobody loads",
        run: crate::dead_io::run,
        settled: None,
    },
];

/// The pass with this name (one hash lookup: pipelines look their passes up by name at every
/// step).
pub fn find(name: &str) -> Option<&'static PassInfo> {
    static BY_NAME: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, &'static PassInfo>> =
        std::sync::OnceLock::new();
    BY_NAME
        .get_or_init(|| PASSES.iter().map(|p| (p.name, p)).collect())
        .get(name)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pass_is_found_by_its_unique_name() {
        for (i, p) in PASSES.iter().enumerate() {
            assert!(
                PASSES[..i].iter().all(|q| q.name != p.name),
                "two passes named {}",
                p.name
            );
            assert!(std::ptr::eq(find(p.name).expect("registered"), p));
        }
        assert!(find("no-such-pass").is_none());
    }
}
