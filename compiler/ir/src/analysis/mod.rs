//! Analyses over a module: blocks and CFG, dominators (owned by the verifier work).
