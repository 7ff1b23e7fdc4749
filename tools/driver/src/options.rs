//! [`Options`] of one compilation: the backend's [`CompileOptions`] and the D3D9
//! fixed-function state to specialize for.

use irc_backend::CompileOptions;
use irc_passes::legacy_state::LegacyState;

/// Everything a compilation can be told besides the input and the target.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Optimization level, container output and the target's own options (`-C key=value`).
    /// The optimization level and target options such as `legacy-mul` also steer the shared
    /// pipeline.
    pub backend: CompileOptions,
    /// The D3D9 render state (alpha test, fog, point sprites, clip planes, sampler types, bump
    /// matrices) the shader is specialized for by the `legacy-state` pass. The default is D3D9's
    /// initial state with the alpha test and fog off. Shaders that declare none of the
    /// legacy-state built-ins (everything but SM1–3) are not affected.
    pub legacy_state: LegacyState,
}
