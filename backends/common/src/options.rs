//! Options of one compilation: the few every target understands ([`CompileOptions`]) and the
//! ones a target declares for itself ([`OptionSpec`], set as `-C key=value` on the command line
//! or with [`CompileOptions::set`] through the API).
//!
//! A target lists its options in [`crate::Target::options`]; the driver checks every
//! `key=value` against that list before compiling, so a misspelt key or a value outside the
//! allowed set is an `Input` diagnostic naming the allowed values, never silently ignored.
//! Targets read their values with [`CompileOptions::get`], which falls back to the declared
//! default.

use std::collections::BTreeMap;

use crate::diagnostic::Diagnostic;

/// One option a target declares (`legacy-mul`, `agal-version`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionSpec {
    /// The key, as written after `-C` (`legacy-mul`).
    pub name: &'static str,
    /// Allowed values with a one-line help each; empty for a free-form numeric value.
    pub values: &'static [(&'static str, &'static str)],
    /// The value used when the option is not set.
    pub default: &'static str,
    /// What the option does (one sentence).
    pub help: &'static str,
}

impl OptionSpec {
    /// True if `value` is allowed (one of [`OptionSpec::values`], or a whole number when the
    /// option is numeric).
    pub fn accepts(&self, value: &str) -> bool {
        if self.values.is_empty() {
            value.parse::<u32>().is_ok()
        } else {
            self.values.iter().any(|(v, _)| *v == value)
        }
    }
}

/// How D3D9 legacy multiplies (`0 · x = 0` even for inf/NaN `x`) are compiled on targets that
/// only multiply the IEEE way (the `legacy-mul` option those targets declare).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LegacyMul {
    /// Exact D3D9 semantics (a compare and a select around each factor, per lane).
    Exact,
    /// Plain IEEE multiply: smaller code, differs only when one factor is 0 and the other is
    /// infinite or NaN.
    Ieee,
    /// DXVK's default D3D9 float emulation (`d3d9.floatEmulation = True`, dxbc-spirv's
    /// `fastFloatEmulation`): IEEE multiplies, and the results of `rcp`, `rsq` and `exp`
    /// limited to the largest finite value, so that an infinity the shader makes never meets
    /// a zero factor; `0 · inf` and `0 · NaN` from inputs still give NaN
    /// (`irc_passes::legacy_clamp`; oracle: `irc_interp::RunConfig::legacy_clamp`).
    Clamp,
    /// IEEE multiplies of factors limited to the finite range of the target's arithmetic
    /// (a vector min/max per factor instead of a compare and select per lane): `0 · x = 0`
    /// for every `x`, inf and NaN included — what a D3D9 shader relies on, and on fp16
    /// hardware overflow to infinity is common — while a non-zero factor times inf or NaN
    /// gives a finite value or an overflow instead (`irc_passes::legacy_finite`; oracle:
    /// `irc_interp::RunConfig::legacy_finite`). The default: the cheapest mode that keeps
    /// D3D9's zero rule.
    #[default]
    Finite,
}

impl LegacyMul {
    /// The `legacy-mul` option, for targets that multiply the IEEE way.
    pub const OPTION: OptionSpec = OptionSpec {
        name: "legacy-mul",
        values: &[
            ("exact", "D3D9 rules: 0 · x = 0 even for infinite or NaN x"),
            (
                "ieee",
                "plain IEEE multiplies (smaller code; differs only for 0 · inf and 0 · NaN)",
            ),
            (
                "clamp",
                "DXVK's default: IEEE multiplies, rcp/rsq/exp results clamped to the finite range \
                 (0 · inf and 0 · NaN from inputs give NaN)",
            ),
            (
                "finite",
                "IEEE multiplies of factors clamped to the finite range: 0 · x = 0 for every x; \
                 nonzero · inf or NaN gives a finite value or an overflow",
            ),
        ],
        default: "finite",
        help: "how D3D9 legacy multiplies (and legacy dot products) are compiled",
    };

    /// The mode set in `options` for a target that declares `declared`: `None` unless the
    /// target declares this option (PICA's own `legacy-mul` has other values and meanings).
    pub fn of_target(declared: &[OptionSpec], options: &CompileOptions) -> Option<LegacyMul> {
        declared
            .contains(&Self::OPTION)
            .then(|| Self::from_options(options))
    }

    /// The mode set in `options` (the default when unset).
    pub fn from_options(options: &CompileOptions) -> LegacyMul {
        match options.get(&Self::OPTION) {
            "ieee" => LegacyMul::Ieee,
            "clamp" => LegacyMul::Clamp,
            "exact" => LegacyMul::Exact,
            _ => LegacyMul::Finite,
        }
    }
}

/// Options of one compilation.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileOptions {
    /// Optimization level of the shared pipeline (0, 1, 2).
    pub opt_level: u8,
    /// Also produce the target's container format (Lima: MBS1).
    pub container: bool,
    /// Target options by key (`legacy-mul` → `ieee`), checked against the target's
    /// [`OptionSpec`]s by [`CompileOptions::validate`].
    pub target: BTreeMap<String, String>,
    /// Program compilation: hardware input slots the next stage reads, which this stage's
    /// outputs must be written to (and outputs not listed dropped). `None` for a stage
    /// compiled alone. Set by the driver's program entry point.
    pub output_layout: Option<Vec<crate::reflection::VaryingBinding>>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            opt_level: 2,
            container: false,
            target: BTreeMap::new(),
            output_layout: None,
        }
    }
}

impl CompileOptions {
    /// Sets target option `key` to `value` (checked later by [`CompileOptions::validate`]).
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) -> &mut Self {
        self.target.insert(key.into(), value.into());
        self
    }

    /// The value of `spec`: the one set, or its default.
    pub fn get(&self, spec: &OptionSpec) -> &str {
        self.target
            .get(spec.name)
            .map(String::as_str)
            .unwrap_or(spec.default)
    }

    /// The value of a numeric option (its default when unset or not a number).
    pub fn get_u32(&self, spec: &OptionSpec) -> u32 {
        self.get(spec)
            .parse()
            .unwrap_or_else(|_| spec.default.parse().unwrap_or(0))
    }

    /// Checks every set option against `specs` (the target's declared options).
    pub fn validate(&self, target: &str, specs: &[OptionSpec]) -> Result<(), Diagnostic> {
        for (key, value) in &self.target {
            let Some(spec) = specs.iter().find(|s| s.name == key) else {
                let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
                return Err(Diagnostic::input(format!(
                    "target `{target}` has no option `{key}` (its options: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            };
            if !spec.accepts(value) {
                let allowed = if spec.values.is_empty() {
                    "a whole number".to_string()
                } else {
                    spec.values
                        .iter()
                        .map(|(v, _)| *v)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Err(Diagnostic::input(format!(
                    "option `{key}` of target `{target}` takes {allowed}, not `{value}`"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NUM: OptionSpec = OptionSpec {
        name: "force-spills",
        values: &[],
        default: "0",
        help: "",
    };

    #[test]
    fn unknown_keys_and_bad_values_are_rejected_and_defaults_apply() {
        let specs = [LegacyMul::OPTION, NUM];
        let mut o = CompileOptions::default();
        assert_eq!(LegacyMul::from_options(&o), LegacyMul::Finite);
        assert_eq!(o.get_u32(&NUM), 0);
        o.set("legacy-mul", "ieee").set("force-spills", "3");
        assert!(o.validate("t", &specs).is_ok());
        assert_eq!(LegacyMul::from_options(&o), LegacyMul::Ieee);
        assert_eq!(o.get_u32(&NUM), 3);
        o.set("legacy-mul", "fast");
        let e = o.validate("t", &specs).unwrap_err().to_string();
        assert!(e.contains("exact, ieee") && e.contains("`fast`"), "{e}");
        let mut o = CompileOptions::default();
        o.set("agal-version", "2");
        let e = o.validate("t", &specs).unwrap_err().to_string();
        assert!(e.contains("no option `agal-version`"), "{e}");
        o.target.clear();
        o.set("force-spills", "many");
        assert!(o.validate("t", &specs).is_err());
    }
}
