//! The verifier.
//!
//! CONTRACT (owned by the verifier work):
//! - `pub fn verify(m: &Module) -> Result<(), VerifierErrors>`; each error names the op.
