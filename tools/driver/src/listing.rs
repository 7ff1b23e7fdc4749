//! The text of `irc targets`: every registered target with its stages, description, options (allowed
//! values, default, help) and the capability profiles `irc opt --pipeline opt:NAME` accepts.

use std::fmt::Write as _;

/// The listing for `registry`.
pub fn listing(registry: &crate::Registry) -> String {
    let mut s = String::new();
    for t in registry.targets() {
        let stages: Vec<String> = t
            .stages()
            .iter()
            .map(|st| {
                irc_ir::LitEnum::ShaderStage
                    .name_of(u64::from(st.0))
                    .unwrap_or_else(|| st.0.to_string())
                    .to_lowercase()
            })
            .collect();
        let _ = writeln!(
            s,
            "{} ({} stages; family {}): {}",
            t.name(),
            stages.join(", "),
            t.family(),
            t.description()
        );
        for o in t.options() {
            let values = if o.values.is_empty() {
                "N".to_string()
            } else {
                o.values
                    .iter()
                    .map(|(v, _)| *v)
                    .collect::<Vec<_>>()
                    .join("|")
            };
            let _ = writeln!(
                s,
                "  -C {}={values}  (default {}) {}",
                o.name, o.default, o.help
            );
            for (v, help) in o.values {
                let _ = writeln!(s, "       {v}: {help}");
            }
        }
    }
    let _ = writeln!(
        s,
        "capability profiles (opt:NAME, legalize:NAME): {}",
        registry.caps_names().join(", ")
    );
    s
}
