//! Interpreter outputs against a simulator's, both named by the IR.
//!
//! For each invocation the discard flags must agree. For each invocation the interpreter keeps
//! (does not discard), every output component the interpreter writes must be produced by the
//! simulator (*coverage*: otherwise the comparison could not see it), and each must match
//! (components the interpreter does not write are undefined and not compared): floats within the
//! tolerance; integers and bools either bit for bit or, for targets whose registers hold only
//! floats, as the float of their value within the tolerance. Float outputs are compared in the
//! form the program stores them (`Simulator::stored_outputs`: lima-vp's screen-space position).

use irc_backend::{IoValues, SimOutputs, Tolerance};
use irc_interp::Outputs;

use super::inputs::{io_scalars, io_text, is_float, scalar_bits, scalar_to_f32};

/// The first difference between the interpreter's `want` and the simulator's `got`; `stored`
/// maps one invocation's float outputs (f32 bits) to the values the program stores for them.
pub fn compare_outputs(
    want: &Outputs,
    got: &SimOutputs,
    tol: Tolerance,
    stored: &dyn Fn(&mut IoValues),
) -> Result<(), String> {
    if got.invocations.len() < want.invocations.len() {
        return Err(format!(
            "the simulator ran {} invocations, the interpreter {}",
            got.invocations.len(),
            want.invocations.len()
        ));
    }
    for (l, lane) in got.invocations.iter().enumerate() {
        let Some(w) = want.invocations.get(l) else {
            continue;
        };
        if w.discarded != lane.discarded {
            let says = |d: bool| if d { "discards" } else { "keeps" };
            return Err(format!(
                "lane {l}: the interpreter {} the pixel, the simulator {} it",
                says(w.discarded),
                says(lane.discarded)
            ));
        }
        if w.discarded {
            continue;
        }
        let io = io_scalars(&w.io);
        let mut floats: IoValues = io
            .iter()
            .filter(|(_, s)| is_float(**s))
            .map(|(&k, &s)| (k, scalar_to_f32(s).to_bits()))
            .collect();
        stored(&mut floats);
        for (&(name, c), &bits) in &lane.values {
            // An output the shader declares but never writes is undefined: any value will do.
            let Some(&s) = io.get(&(name, c)) else {
                continue;
            };
            let value = f32::from_bits(bits);
            let expected = match floats.get(&(name, c)) {
                Some(&b) => f32::from_bits(b),
                None => scalar_to_f32(s),
            };
            let ok = if is_float(s) {
                tol.matches(value, expected)
            } else {
                bits == scalar_bits(s) || tol.matches(value, expected)
            };
            if !ok {
                let ir = scalar_to_f32(s);
                let stored_as = if ir.to_bits() == expected.to_bits() {
                    String::new()
                } else {
                    format!(" (stored for the IR's {ir:?})")
                };
                return Err(format!(
                    "lane {l}: output {}: expected {expected:?}{stored_as}, got {value:?} \
                     ({bits:#010x})",
                    io_text(name, c, true),
                ));
            }
        }
        if let Some(&(name, c)) = io.keys().find(|k| !lane.values.contains_key(k)) {
            return Err(format!(
                "coverage: output {} is not produced by the program (no output binding)",
                io_text(name, c, true)
            ));
        }
    }
    Ok(())
}
