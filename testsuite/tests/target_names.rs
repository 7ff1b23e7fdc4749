//! Acceptance test of the backend platform: no target or family name decides behaviour outside
//! the target's own crate (`backends/<family>/`) and the registry
//! (`tools/driver/src/registry.rs`).
//!
//! Scanned: every `.rs` file under `compiler/`, `passes/`, `tools/`, `testsuite/src` and
//! `backends/common`. Allowed, and only these:
//!
//! * comments (`//`, `///`, `//!`, and the rest of a line after `//`): documentation may name
//!   targets;
//! * test fixtures: code under `#[cfg(test)]` (an inline item, or a `mod name;` file it
//!   declares) and integration tests (`tests/` folders), which exercise a real target by name;
//! * the registry file itself.

use std::path::{Path, PathBuf};

/// Spellings of target and family names in code.
const NAMES: [&str; 9] = [
    "\"lima", "\"pica", "\"agal", "lima-fp", "lima-vp", "pica-vs", "pica-gs", "agal-vp", "agal-fp",
];

const ROOTS: [&str; 5] = [
    "compiler",
    "passes",
    "tools",
    "testsuite/src",
    "backends/common",
];

const REGISTRY: &str = "tools/driver/src/registry.rs";

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            // Integration tests are fixtures; build output and fuzz corpora are not source.
            if !matches!(name.as_str(), "tests" | "target" | "corpus" | "artifacts") {
                rs_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// The code of `src` outside comments and `#[cfg(test)]` items, by line number, plus the files
/// of the `#[cfg(test)] mod name;` declarations it holds.
fn code_lines(src: &str) -> (Vec<(usize, String)>, Vec<String>) {
    let mut lines = Vec::new();
    let mut test_mods = Vec::new();
    let mut cfg_test = false;
    let mut path_attr: Option<String> = None;
    // Brace depth inside a `#[cfg(test)]` item (None: not inside one).
    let mut skip: Option<i32> = None;
    for (n, line) in src.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim();
        if let Some(depth) = skip.as_mut() {
            *depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            if *depth <= 0 && (trimmed.ends_with('}') || trimmed.ends_with("};")) {
                skip = None;
            }
            continue;
        }
        if trimmed == "#[cfg(test)]" {
            cfg_test = true;
            continue;
        }
        if cfg_test {
            if let Some(p) = trimmed
                .strip_prefix("#[path = \"")
                .and_then(|r| r.strip_suffix("\"]"))
            {
                path_attr = Some(p.to_string());
                continue;
            }
        }
        if cfg_test && !trimmed.is_empty() && !trimmed.starts_with("#[") {
            cfg_test = false;
            if let Some(name) = trimmed
                .strip_prefix("mod ")
                .or_else(|| trimmed.strip_prefix("pub mod "))
                .or_else(|| trimmed.strip_prefix("pub(crate) mod "))
                .and_then(|r| r.strip_suffix(';'))
            {
                test_mods.push(path_attr.take().unwrap_or_else(|| name.to_string()));
                continue;
            }
            let depth = code.matches('{').count() as i32 - code.matches('}').count() as i32;
            if depth > 0 {
                skip = Some(depth);
            }
            continue;
        }
        lines.push((n + 1, code.to_string()));
    }
    (lines, test_mods)
}

#[test]
fn no_target_name_decides_behaviour_outside_its_crate_and_the_registry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for r in ROOTS {
        rs_files(&root.join(r), &mut files);
    }
    assert!(files.len() > 50, "only {} files found", files.len());
    // Files that are test modules (`#[cfg(test)] mod name;`).
    let mut test_files = Vec::new();
    let mut hits = Vec::new();
    let rel = |p: &Path| {
        p.strip_prefix(&root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let sources: Vec<(PathBuf, String)> = files
        .iter()
        .map(|p| (p.clone(), std::fs::read_to_string(p).unwrap_or_default()))
        .collect();
    for (p, src) in &sources {
        let (_, mods) = code_lines(src);
        let dir = p.parent().unwrap_or(&root);
        let own = if p
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
        {
            dir.to_path_buf()
        } else {
            dir.join(p.file_stem().unwrap_or_default())
        };
        for m in mods {
            if m.ends_with(".rs") {
                // `#[path = "file.rs"]`: relative to the declaring file's folder.
                test_files.push(dir.join(&m));
                continue;
            }
            test_files.push(dir.join(format!("{m}.rs")));
            test_files.push(own.join(format!("{m}.rs")));
            test_files.push(own.join(&m).join("mod.rs"));
        }
    }
    for (p, src) in &sources {
        // tools/fuzz names one fuzz target per reader, like the registry names one target per line.
        if rel(p) == REGISTRY || rel(p).starts_with("tools/fuzz/") || test_files.contains(p) {
            continue;
        }
        for (n, code) in code_lines(src).0 {
            if let Some(name) = NAMES.iter().find(|name| code.contains(*name)) {
                hits.push(format!("{}:{n}: `{name}` in `{}`", rel(p), code.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "target or family names outside their crate and the registry:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_scanner_sees_code_and_skips_comments_and_test_items() {
    let src = "// \"lima-fp\" in a comment\n\
               let a = \"lima-fp\"; // here\n\
               #[cfg(test)]\n\
               mod tests {\n    const X: &str = \"pica-vs\";\n}\n\
               #[cfg(test)]\n\
               mod fixtures;\n\
               #[cfg(test)]\n\
               #[path = \"other_tests.rs\"]\n\
               mod other;\n\
               let b = \"agal-fp\";\n";
    let (lines, mods) = code_lines(src);
    let hits: Vec<usize> = lines
        .iter()
        .filter(|(_, c)| NAMES.iter().any(|n| c.contains(n)))
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(hits, vec![2, 12]);
    assert_eq!(
        mods,
        vec!["fixtures".to_string(), "other_tests.rs".to_string()]
    );
}
