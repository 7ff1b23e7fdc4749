//! `include/irc.h` is hand-written; this checks it against the source: the same exported
//! functions, the same constant values, the same `IrcStats` fields in the same order.

use std::collections::BTreeSet;

const HEADER: &str = include_str!("../../include/irc.h");
const SOURCE: &str = include_str!("../lib.rs");

/// Identifiers `irc_…` followed by `(` in `text`, after `prefix` (`fn ` in Rust).
fn functions(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("irc_") {
        let before = &text[..i];
        let name: String = text[i..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let after = text[i + name.len()..].trim_start();
        if after.starts_with('(') && before.ends_with(prefix) {
            out.insert(name);
        }
    }
    out
}

#[test]
fn the_header_declares_exactly_the_exported_functions() {
    // In C a declaration is `TYPE NAME(` / `TYPE *NAME(`; calls in comments have no type.
    let mut header: BTreeSet<String> = functions(HEADER, " ");
    header.extend(functions(HEADER, "*"));
    let header: BTreeSet<String> = header
        .into_iter()
        .filter(|n| {
            HEADER.lines().any(|l| {
                !l.trim_start().starts_with("/*")
                    && !l.trim_start().starts_with('*')
                    && l.contains(&format!("{n}("))
            })
        })
        .collect();
    let source = functions(SOURCE, "fn ");
    assert_eq!(header, source, "include/irc.h and src/lib.rs disagree");
    assert!(source.len() >= 25, "{source:?}");
}

#[test]
fn constants_and_the_stats_struct_match() {
    for (name, value) in [
        ("IRC_KIND_UNSUPPORTED", crate::IRC_KIND_UNSUPPORTED),
        ("IRC_KIND_LIMIT", crate::IRC_KIND_LIMIT),
        ("IRC_KIND_INPUT", crate::IRC_KIND_INPUT),
        ("IRC_KIND_INTERNAL", crate::IRC_KIND_INTERNAL),
    ] {
        assert!(
            HEADER.contains(&format!("#define {name} {value}")),
            "{name} is not {value} in irc.h"
        );
    }
    use irc_ir::ShaderStage as S;
    for (name, stage) in [
        ("PIXEL", S::Pixel),
        ("VERTEX", S::Vertex),
        ("GEOMETRY", S::Geometry),
        ("HULL", S::Hull),
        ("DOMAIN", S::Domain),
        ("COMPUTE", S::Compute),
    ] {
        assert!(
            HEADER.contains(&format!("#define IRC_STAGE_{name} {}\n", stage.0)),
            "IRC_STAGE_{name} is not {} in irc.h",
            stage.0
        );
    }
    let between = |text: &str, start: &str, end: &str| -> Vec<String> {
        let from = text.find(start).expect(start) + start.len();
        let to = from + text[from..].find(end).expect(end);
        text[from..to]
            .lines()
            .filter_map(|l| {
                let l = l.trim().trim_end_matches([';', ',']);
                let name = l.rsplit([' ', ':']).find(|w| !w.is_empty())?;
                (!l.starts_with("//") && !l.starts_with('#')).then(|| name.to_string())
            })
            .collect()
    };
    let c = between(HEADER, "typedef struct IrcStats {", "} IrcStats;");
    assert_eq!(c.len(), 8, "{c:?}");
    assert!(SOURCE.contains("pub instructions: u32"));
    let rust_names: Vec<String> = SOURCE[SOURCE.find("pub struct IrcStats {").unwrap()..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('}'))
        .filter_map(|l| l.trim().strip_prefix("pub "))
        .map(|l| l.split(':').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        c, rust_names,
        "IrcStats fields differ between irc.h and lib.rs"
    );
    for l in HEADER[HEADER.find("typedef struct IrcStats {").unwrap()..]
        .lines()
        .skip(1)
        .take(8)
    {
        assert!(l.trim().starts_with("uint32_t "), "{l}");
    }
}
