//! The verifier: checks that a module is well-formed DXBC-IR, and pins every problem to an op.
//!
//! Passes may index without checks once a module verified (DESIGN rule 5), so the verifier itself
//! never panics, whatever the module: every reference is checked for liveness before it is looked
//! at, and later checks skip ops an earlier check found malformed. The checks, by concern:
//!
//! - [`operands`]: operand count and literal positions per opcode, references to live ops
//!   defined earlier (except the forward references the format allows), and references to the
//!   right *kind* of op (a `TmpLoad` reads a `DclTmp`, a branch targets a `Label` …).
//! - [`structure`]: declarations first, exactly one `EntryPoint`, code inside
//!   `Function … FunctionEnd`, calls and parameter loads matching their function.
//! - [`types`]: the type rules of every opcode (one exhaustive `match`). Raw IR's Unknown scalar
//!   type `?` is accepted wherever dxbc-spirv's front-ends produce it.
//! - [`cfg`]: structured control flow — blocks, terminators, constructs, back edges, phis and
//!   dominance of definitions over uses.
//! - [`scoped`]: raw control flow — balanced `Scoped*` nesting with matching partners.
//!
//! - [`legal`]: the "legal" mode ([`verify_legal`]): the legality contract of `legalize`'s
//!   output for the default target (ops, types and operand shapes dxbc-spirv's SPIR-V writer
//!   takes; see `docs/legality.md`).
//!
//! A function with `Label`s is checked as structured code, one with `Scoped*` ops as raw code;
//! mixing both is an error.

mod cfg;
mod legal;
mod operands;
mod scoped;
mod structure;
mod types;

#[cfg(test)]
mod tests;

use crate::entities::SsaDef;
use crate::module::Module;
use cranelift_entity::EntityRef;
use std::fmt;

/// One verifier finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifierError {
    /// The op the problem is pinned to (`None` for module-level problems).
    pub def: Option<SsaDef>,
    pub message: String,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.def {
            Some(d) => write!(f, "{d}: {}", self.message),
            None => write!(f, "module: {}", self.message),
        }
    }
}

/// All findings of one [`verify`] run, in the order found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifierErrors(pub Vec<VerifierError>);

impl VerifierErrors {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn iter(&self) -> std::slice::Iter<'_, VerifierError> {
        self.0.iter()
    }
    /// The messages pinned to `def` (for printing errors inline in the IR text).
    pub fn messages_for(&self, def: SsaDef) -> Vec<String> {
        self.0
            .iter()
            .filter(|e| e.def == Some(def))
            .map(|e| e.message.clone())
            .collect()
    }
}

impl fmt::Display for VerifierErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifierErrors {}

impl<'a> IntoIterator for &'a VerifierErrors {
    type Item = &'a VerifierError;
    type IntoIter = std::slice::Iter<'a, VerifierError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Shared state of one verification run.
struct Ctx<'m> {
    m: &'m Module,
    errors: Vec<VerifierError>,
    /// Ops whose operands are malformed (bad count, literal in a ref position, dead or wrong-kind
    /// reference): the type rules skip them. A dense flag per id (every later check asks once
    /// per op; a hash look-up each was a tenth of the verifier).
    bad: Vec<bool>,
}

impl<'m> Ctx<'m> {
    /// True if `d` was marked bad by the operand checks (false for ids out of range).
    #[inline]
    fn is_bad(&self, d: SsaDef) -> bool {
        self.bad.get(d.index()).copied().unwrap_or(false)
    }
    /// Marks `d` bad (`d` is a live op, so inside the id range).
    fn mark_bad(&mut self, d: SsaDef) {
        self.bad[d.index()] = true;
    }
    fn err(&mut self, def: impl Into<Option<SsaDef>>, message: impl Into<String>) {
        self.errors.push(VerifierError {
            def: def.into(),
            message: message.into(),
        });
    }
}

pub use legal::removed_by_legalize;

/// `ops` (in program order) with the function around each (`function_of`'s answer): the
/// `Function` op itself, its body and its `FunctionEnd` get the function, ops outside any get
/// `None`. Tracked along the walk; asking `function_of` per op walked back to the `Function`
/// each time, quadratic in a large function.
pub(super) fn with_function<'a>(
    m: &'a Module,
    ops: impl Iterator<Item = SsaDef> + 'a,
) -> impl Iterator<Item = (SsaDef, Option<SsaDef>)> + 'a {
    let mut current: Option<SsaDef> = None;
    ops.map(move |d| {
        let function = match m.opcode(d) {
            crate::OpCode::Function => {
                current = Some(d);
                current
            }
            crate::OpCode::FunctionEnd => current.take(),
            _ => current,
        };
        (d, function)
    })
}

/// Verifies `m`; `Ok(())` if no rule is violated, else every violation found.
pub fn verify(m: &Module) -> Result<(), VerifierErrors> {
    verify_mode(m, None)
}

/// The "legal" mode: [`verify`], then the legality contract of `legalize`'s output
/// ([`legal`]); `native` lists the ops the target executes natively, which may remain (a
/// target's `TargetCaps::native`; the default target keeps `FClamp` only, which the contract
/// allows anyway).
pub fn verify_legal(m: &Module, native: &[crate::OpCode]) -> Result<(), VerifierErrors> {
    verify_mode(m, Some(native))
}

fn verify_mode(m: &Module, legal: Option<&[crate::OpCode]>) -> Result<(), VerifierErrors> {
    let mut cx = Ctx {
        m,
        errors: Vec::new(),
        bad: vec![false; m.id_bound()],
    };
    operands::check(&mut cx);
    let counts_ok = structure::check(&mut cx);
    types::check(&mut cx);
    // A module whose code is exactly one function, once the structure checks found the
    // module's opcode counts right (which `Module::sole_function` trusts).
    let sole = counts_ok && m.sole_function().is_some();
    for f in crate::analysis::functions(m) {
        // A sole function's body is all code but its `Function` and `FunctionEnd`: the module's
        // opcode counts answer without two walks of the body.
        let (has_labels, has_scoped) = if sole {
            (
                m.contains_opcode(crate::OpCode::Label),
                m.contains_where(|o| o.is_scoped()),
            )
        } else {
            (
                f.body(m).any(|d| m.opcode(d) == crate::OpCode::Label),
                f.body(m).any(|d| m.opcode(d).is_scoped()),
            )
        };
        if has_labels && has_scoped {
            cx.err(
                f.function,
                "function mixes structured (Label) and scoped control flow",
            );
        } else if has_labels {
            cfg::check_function(&mut cx, f);
        } else {
            scoped::check_function(&mut cx, f);
        }
    }
    if let Some(native) = legal {
        legal::check(&mut cx, native);
    }
    if cx.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(cx.errors))
    }
}
