//! Inputs, uniforms and samplers on the PP: the shared [`IoPlan`](irc_backend::io_plan::IoPlan) of `irc_backend::io_plan`
//! (varying slot `L` for location `L`; vec4 uniform slots, uploaded as fp16; one hardware
//! sampler index per (texture, sampler) pair), plus the PP's own part of the reflection.
//!
//! The PP reads compiler constants that fp16 holds exactly from the instruction's own constant
//! slots; only the others go to the plan's literal pool.

use irc_backend::{Reflection, TargetPart};

pub use irc_backend::io_plan::{const_index, flat_size, IoPlan as Io, UniformLayout};

use crate::pp::reflection::PpReflection;

/// The plan's reflection with the PP part (the special inputs the shader reads).
pub fn reflection(io: &Io) -> Reflection {
    let mut r = io.reflection();
    r.target = Some(TargetPart::new(PpReflection {
        special_inputs: io.special.clone(),
        temp_stack: 0,
    }));
    r
}
