//! The part of a lima-fp program's reflection that only the PP has ([`PpReflection`]): the
//! built-ins read through special hardware paths and the spill stack size.

use std::any::Any;
use std::fmt::Write as _;

use irc_backend::{Reflection, TargetReflection};
use irc_ir::BuiltIn;

/// Lima PP reflection beyond the common fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PpReflection {
    /// Built-ins read through special hardware paths (`Position` = gl_FragCoord,
    /// `IsFrontFace` = gl_FrontFacing, `PointCoord` = gl_PointCoord).
    pub special_inputs: Vec<BuiltIn>,
    /// Spill stack size in vec4 units.
    pub temp_stack: u32,
}

impl PpReflection {
    /// The PP part of `reflection` (an empty one if it has none).
    pub fn of(reflection: &Reflection) -> PpReflection {
        reflection
            .target_part::<PpReflection>()
            .cloned()
            .unwrap_or_default()
    }
}

impl TargetReflection for PpReflection {
    fn to_text(&self) -> String {
        let mut out = String::new();
        for b in &self.special_inputs {
            let _ = writeln!(out, "special {b:?}");
        }
        let _ = writeln!(out, "temp stack {} vec4", self.temp_stack);
        out
    }
    /// `{"special_inputs": ["Position", …], "temp_stack": N}` (docs/reflection.md).
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "special_inputs": self.special_inputs.iter().map(|b| b.name()).collect::<Vec<_>>(),
            "temp_stack": self.temp_stack,
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn clone_box(&self) -> Box<dyn TargetReflection> {
        Box::new(self.clone())
    }
}
