//! The AGAL part of the reflection: outputs that AGAL has no register for but whose value the
//! program proves constant, reported with that value and what the host does about it.
//!
//! D3D9 vertex shaders carry fixed-function state as outputs: dxbc-spirv writes the user clip
//! planes as `ClipDistance[6]` (the dot products with `LegacyClipPlanes`) and the point size as
//! `PointSize`. With the render state the shader is specialized for (no clip planes enabled,
//! the D3D9 default), the clip distances fold to constants ≥ 0, which clip nothing: the host
//! has nothing to do. Stage3D draws triangles only, so a point size has no effect. Such outputs
//! are left out of the program and listed here; the simulator reports them with these values
//! so that the program plus its reflection reproduce every output of the IR. A clip distance
//! that is computed per vertex, or constant and negative, is unsupported (AGAL cannot clip).

use std::any::Any;
use std::fmt::Write;

use irc_backend::reflection::TargetReflection;
use irc_backend::IoSource;

/// An output left out of the program, with its constant value.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedOutput {
    pub target: IoSource,
    /// The value of each component.
    pub values: Vec<f32>,
    /// Why the host need not do anything with it.
    pub reason: &'static str,
}

/// The target-specific part of an AGAL program's reflection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgalReflection {
    pub fixed_outputs: Vec<FixedOutput>,
}

fn source_name(s: IoSource) -> String {
    match s {
        IoSource::BuiltIn(b) => format!("{b:?}"),
        IoSource::Location {
            location,
            component,
        } => format!("o{location}.{component}"),
    }
}

impl TargetReflection for AgalReflection {
    fn to_text(&self) -> String {
        let mut s = String::new();
        for f in &self.fixed_outputs {
            let vals: Vec<String> = f.values.iter().map(|v| format!("{v:?}")).collect();
            let _ = writeln!(
                s,
                "fixed-output {} = ({}): {}",
                source_name(f.target),
                vals.join(", "),
                f.reason
            );
        }
        s
    }

    fn to_json(&self) -> serde_json::Value {
        let fixed: Vec<serde_json::Value> = self
            .fixed_outputs
            .iter()
            .map(|f| {
                serde_json::json!({
                    "source": source_name(f.target),
                    "values": f.values,
                    "reason": f.reason,
                })
            })
            .collect();
        serde_json::json!({ "fixed_outputs": fixed })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn clone_box(&self) -> Box<dyn TargetReflection> {
        Box::new(self.clone())
    }
}
