//! Interpreter outputs vs the simulator's registers, as the reflection maps them.
//!
//! Every [`OutputBinding`] says output `target` component `i` is lane `i` of register
//! `register` at the end of the program. For each lane the interpreter keeps (does not
//! discard), each bound component must match within the tolerance (interpreter values converted
//! to float like inputs: integers by value, bools 0.0/1.0). The discard flags of all four lanes
//! must agree. Every component of every output the shader declares must be bound, otherwise
//! the comparison could not see it.

use irc_backend::reflection::{IoSource, OutputBinding, Reflection};
use irc_backend::Tolerance;
use irc_interp::{IoSlot, Outputs};
use irc_lima::pp::QuadOutput;

use super::inputs::{comp_name, scalar_to_f32, source_name, IoMap};

/// Hardware registers of a PP lane.
const REGISTERS: u32 = 6;

/// The first difference between the interpreter's `want` and the simulator's `got`.
pub fn compare_outputs(
    want: &Outputs,
    got: &QuadOutput,
    refl: &Reflection,
    tol: Tolerance,
) -> Result<(), String> {
    for (l, lane) in got.lanes.iter().enumerate() {
        let w = want.invocations.get(l).or_else(|| want.invocations.first());
        let discarded = w.is_some_and(|w| w.discarded);
        if discarded != lane.discarded {
            let says = |d: bool| if d { "discards" } else { "keeps" };
            return Err(format!(
                "lane {l}: the interpreter {} the pixel, the simulator {} it",
                says(discarded),
                says(lane.discarded)
            ));
        }
        let Some(w) = w else { continue };
        if discarded {
            continue;
        }
        let io = IoMap::new(&w.io);
        for o in &refl.outputs {
            check_binding(o)?;
            for i in 0..u32::from(o.components) {
                let Some(s) = io.get(o.target, i) else {
                    return Err(format!(
                        "reflection: output {} component {i} is not an output of the shader",
                        source_name(o.target)
                    ));
                };
                let expected = scalar_to_f32(s);
                let got = lane.regs[o.register as usize][i as usize];
                if !tol.matches(got, expected) {
                    return Err(format!(
                        "lane {l}: output {} component {} (${}.{}): expected {expected:?}, got \
                         {got:?}",
                        source_name(o.target),
                        comp_name(i),
                        o.register,
                        comp_name(i)
                    ));
                }
            }
        }
    }
    Ok(())
}

fn check_binding(o: &OutputBinding) -> Result<(), String> {
    if o.register >= REGISTERS || o.components > 4 {
        return Err(format!(
            "reflection: output {} in ${} with {} components does not fit the PP's $0..$5",
            source_name(o.target),
            o.register,
            o.components
        ));
    }
    Ok(())
}

/// Checks that every declared output component (of lane 0) is bound by the reflection.
pub fn check_coverage(want: &Outputs, refl: &Reflection) -> Result<(), String> {
    let Some(w) = want.invocations.first() else {
        return Ok(());
    };
    let io = IoMap::new(&w.io);
    let bound = |src: IoSource| {
        refl.outputs.iter().any(|o| {
            (0..u32::from(o.components)).any(|i| match (o.target, src) {
                (
                    IoSource::Location {
                        location: a,
                        component: ca,
                    },
                    IoSource::Location {
                        location: b,
                        component: cb,
                    },
                ) => a == b && ca + i == cb,
                (IoSource::BuiltIn(a), IoSource::BuiltIn(b)) => a == b && i == 0,
                _ => false,
            })
        })
    };
    for &(location, component) in io.locations.keys() {
        let src = IoSource::Location {
            location,
            component,
        };
        if !bound(src) {
            return Err(format!(
                "reflection: output {} is not bound to a register",
                source_name(src)
            ));
        }
    }
    for slot in w.io.keys() {
        if let IoSlot::BuiltIn(b) = *slot {
            let Some(b) = irc_ir::BuiltIn::from_u64(u64::from(b)) else {
                continue;
            };
            if !bound(IoSource::BuiltIn(b)) {
                return Err(format!(
                    "reflection: output {b:?} is not bound to a register"
                ));
            }
        }
    }
    Ok(())
}
