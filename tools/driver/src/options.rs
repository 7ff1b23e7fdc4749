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
    /// Run the IR verifier after every pass of the target's pipeline (always on in builds with
    /// debug assertions). A pass that leaves invalid IR is then an `Internal` diagnostic naming
    /// the pass, instead of a failure further on. Costs about as much as the pipeline itself;
    /// for fuzzing and for debugging a pass (`irc compile --verify-each-pass`).
    pub verify_each_pass: bool,
}

impl Options {
    /// Sets an option by `key=value`, the way the C API and configuration files give them:
    /// `opt-level` (0, 1, 2), `container` (`0`/`1`, `false`/`true`: also produce the target's
    /// container file), `verify-each-pass` (`0`/`1`, `false`/`true`: see
    /// [`Options::verify_each_pass`]), or any other key as a target option (`legacy-mul=ieee`; checked
    /// against the target's declared options when compiling). Errors: an `Input` diagnostic
    /// for a bad `opt-level` or `container` value.
    ///
    /// ```
    /// let mut o = irc::Options::default();
    /// o.set("opt-level", "1")?.set("container", "true")?.set("legacy-mul", "ieee")?;
    /// assert_eq!((o.backend.opt_level, o.backend.container), (1, true));
    /// assert_eq!(o.backend.target["legacy-mul"], "ieee");
    /// assert!(o.set("opt-level", "3").is_err());
    /// # Ok::<(), irc::Diagnostic>(())
    /// ```
    pub fn set(&mut self, key: &str, value: &str) -> Result<&mut Self, irc_backend::Diagnostic> {
        let bad = |allowed: &str| {
            irc_backend::Diagnostic::input(format!("option `{key}` takes {allowed}, not `{value}`"))
        };
        match key {
            "opt-level" => {
                self.backend.opt_level = match value {
                    "0" => 0,
                    "1" => 1,
                    "2" => 2,
                    _ => return Err(bad("0, 1 or 2")),
                }
            }
            "container" => {
                self.backend.container = match value {
                    "1" | "true" => true,
                    "0" | "false" => false,
                    _ => return Err(bad("0, 1, false or true")),
                }
            }
            "verify-each-pass" => {
                self.verify_each_pass = match value {
                    "1" | "true" => true,
                    "0" | "false" => false,
                    _ => return Err(bad("0, 1, false or true")),
                }
            }
            _ => {
                self.backend.set(key, value);
            }
        }
        Ok(self)
    }
}
