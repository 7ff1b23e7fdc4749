//! A vertex shader compiled as part of a program ([`CompileOptions::output_layout`]): its
//! outputs moved to the registers the next stage (a `pica-gs` geometry shader) reads them from,
//! and the outputs that stage does not read dropped.
//!
//! The layout is the geometry shader's reflection: vertex 0's binding of each input attribute,
//! `slot` = the attribute's index `a` (see [`crate::lower::gs`]). In point mode the geometry
//! shader's `v(j·k + a)` is vertex `j`'s `a`-th output register in output-mask order, so the
//! vertex shader writes attribute `a` to `o<a>` and nothing else: its output registers are then
//! exactly `o0–o(k−1)`.
//!
//! [`CompileOptions::output_layout`]: irc_backend::CompileOptions::output_layout

use irc_backend::{Diagnostic, VaryingBinding};

use crate::lower::mir::Dst;
use crate::lower::Lowered;

/// Rewrites `l`'s output registers (ops and reflection) to the slots `layout` gives; ops
/// writing outputs absent from `layout` go.
pub fn apply_output_layout(l: &mut Lowered, layout: &[VaryingBinding]) -> Result<(), Diagnostic> {
    // Old register → new register (None: dropped).
    let mut map: Vec<Option<u8>> = vec![None; 16];
    let mut kept = Vec::new();
    for o in &l.reflection.outputs {
        let Some(v) = layout.iter().find(|v| v.source == o.target) else {
            continue;
        };
        if o.components > 4 || u32::from(v.components) > u32::from(o.components) {
            return Err(Diagnostic::unsupported(
                None,
                format!(
                    "output {:?}: the next stage reads {} components, {} written",
                    o.target, v.components, o.components
                ),
            ));
        }
        let slot = u8::try_from(v.slot)
            .ok()
            .filter(|&s| s < 16)
            .ok_or_else(|| Diagnostic::limit(format!("output slot {} beyond o15", v.slot)))?;
        if let Some(m) = map.get_mut(o.register as usize) {
            *m = Some(slot);
        }
        let mut o = o.clone();
        o.register = u32::from(slot);
        kept.push(o);
    }
    l.reflection.outputs = kept;
    l.program.ops.retain_mut(|op| match op.dst {
        Dst::Out(r, mask) => match map.get(usize::from(r)).copied().flatten() {
            Some(n) => {
                op.dst = Dst::Out(n, mask);
                true
            }
            None => false,
        },
        _ => true,
    });
    Ok(())
}
