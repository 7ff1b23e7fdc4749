//! Inputs, uniforms and samplers in AGAL registers: the shared [`IoPlan`](irc_backend::io_plan::IoPlan) of
//! `irc_backend::io_plan` (the same layout lima-fp uses), read the AGAL way.
//!
//! * **Varyings / attributes**: plan slot `L` is `v<L>` in a fragment program and `va<L>` in a
//!   vertex program (component `c` in lane `c`).
//! * **Constants**: plan uniform slot `s` is `fc<s>` / `vc<s>`; the literal pool (immediates
//!   packed four to a register, deduplicated) follows the application's constants.
//! * **Samplers**: plan sampler `i` is `fs<i>`.

pub use irc_backend::io_plan::{const_index, flat_size, IoPlan as Io, UniformLayout};
