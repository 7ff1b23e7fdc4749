//! The opcode table is the one place that knows operand positions and opcode classes.
//!
//! 1. No source file reads an operand by its position: `operand_def(5)`, `operand_lit(1)`,
//!    `operands[2]`, `operands.get(1)`, `operands[2..]`, `string_from(1)`, or an index helper
//!    called with a literal (`arg(d, 0)`, `opt_arg(l, d, 5)`, `self.arg_ty(0)`,
//!    `want_arg(1, …)`, closures `arg(0)`, `base(0)` …). Reads go through the format views of
//!    `irc_ir::format` (`ImageSample::of(op).lod()`), positions through `slots::Switch.default`.
//! 2. No `matches!` list of opcodes is retyped: a list that equals a class of the table, or
//!    appears in two crates, must be a class query (`op.is(Attrs::COMMUTATIVE)`).
//!
//! Exhaustive `match`es on `OpCode` are not lists: they stay exhaustive (DESIGN rule 3).

use irc_ir::{Attrs, OpCode};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Directories scanned, from the workspace root.
const ROOTS: &[&str] = &["compiler", "passes", "backends", "tools", "testsuite/src"];

/// Files that may read by position: the accessor definitions themselves.
const DEFINITIONS: &[&str] = &["compiler/ir/src/format.rs"];

/// Not converted yet: owned by the lima-fp harness restructuring in progress on another branch
/// (convert its four `operand_lit` reads of declarations when that lands).
const PENDING: &[&str] = &["testsuite/src/lima_fp/"];

/// Calls whose argument list must not hold a bare integer: the operand readers and the index
/// helpers built on them.
const INDEX_CALLS: &[&str] = &[
    "operand_def",
    "operand_lit",
    "string_from",
    "arg",
    "opt_arg",
    "scalar_arg",
    "arg_ty",
    "comps",
    "address",
    "descriptor",
    "sampler",
    "want_arg",
    "want_arg_is",
    "want_descriptor",
    "base",
    "addr",
    "iarg",
    "fl",
    "may",
    "target",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let root = workspace();
    let mut files = Vec::new();
    for r in ROOTS {
        walk(&root.join(r), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).expect("readable source"))
        })
        .collect()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// True if `s` is an integer literal (digits, optional `_` and type suffix).
fn is_int(s: &str) -> bool {
    let s = s.trim();
    let s = ["usize", "u64", "u32", "u16", "u8", "i64", "i32"]
        .iter()
        .find_map(|suffix| s.strip_suffix(suffix))
        .unwrap_or(s);
    s.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && s.bytes().all(|c| c.is_ascii_digit() || c == b'_')
}

/// The top-level arguments of the call whose `(` is at `open`.
fn call_args(line: &str, open: usize) -> Vec<&str> {
    let b = line.as_bytes();
    let (mut depth, mut start, mut args) = (0i32, open + 1, Vec::new());
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    args.push(&line[start..i]);
                    return args;
                }
            }
            b',' if depth == 1 => {
                args.push(&line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    args
}

/// Positional reads on one line.
fn positional_reads(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let b = code.as_bytes();
    let mut found = Vec::new();
    // `operands[N]`, `operands[N..]`, `operands.get(N)`, `operands.get(N..)`.
    for pat in ["operands[", "operands.get("] {
        let mut from = 0;
        while let Some(k) = code[from..].find(pat) {
            let at = from + k + pat.len();
            let rest = &code[at..];
            let n = rest.chars().take_while(|c| c.is_ascii_digit()).count();
            if n > 0
                && (rest[n..].starts_with(']')
                    || rest[n..].starts_with(')')
                    || rest[n..].starts_with(".."))
            {
                found.push(format!("{pat}{}", &rest[..n]));
            }
            from = at;
        }
    }
    // Index helpers called with a literal index.
    let mut i = 0;
    while i < b.len() {
        if is_ident(b[i]) && (i == 0 || !is_ident(b[i - 1])) {
            let start = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            let name = &code[start..i];
            if i < b.len()
                && b[i] == b'('
                && INDEX_CALLS.contains(&name)
                && call_args(code, i).iter().any(|a| is_int(a))
            {
                found.push(format!("{name}(…)"));
            }
        } else {
            i += 1;
        }
    }
    found
}

#[test]
fn no_positional_operand_reads() {
    let mut hits = Vec::new();
    for (path, text) in sources() {
        if DEFINITIONS.contains(&path.as_str()) || PENDING.iter().any(|p| path.starts_with(p)) {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for h in positional_reads(line) {
                hits.push(format!("{path}:{}: {h}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "positional operand reads (use the views in irc_ir::format):\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_scanner_sees_each_spelling() {
    for bad in [
        "op.operand_def(5)",
        "x.operand_lit(1).unwrap_or(0)",
        "op.operands[2..].chunks(2)",
        "op.operands.get(1)",
        "self.arg(d, 0)?",
        "it.opt_arg(l, d, 10)?",
        "self.arg_ty(0)",
        "self.want_arg(1, int, \"an integer\")",
        "let (a, b) = (arg(0)?, arg(1)?);",
        "op.string_from(1)",
    ] {
        assert!(!positional_reads(bad).is_empty(), "{bad}");
    }
    for good in [
        "ImageSample::of(op).lod()",
        "op.operands[slots::Switch.default]",
        "self.arg(d, bin.a())?",
        "op.operand_def(i)",
        "self.want_arg(slots::Arith.a, int, \"an integer\")",
        "konst(1.0)",
    ] {
        assert!(positional_reads(good).is_empty(), "{good}");
    }
}

/// The opcode names of every `matches!(…)` list of at least `min` opcodes in `text`.
fn matches_lists(text: &str, min: usize) -> Vec<BTreeSet<String>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find("matches!(") {
        let open = from + k + "matches!".len();
        let b = text.as_bytes();
        let (mut depth, mut end) = (0i32, open);
        for (i, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let body = &text[open..end.max(open)];
        let mut names = BTreeSet::new();
        for prefix in ["OpCode::", "O::"] {
            let mut at = 0;
            while let Some(p) = body[at..].find(prefix) {
                let s = at + p + prefix.len();
                let n: String = body[s..]
                    .chars()
                    .take_while(|&c| is_ident(c as u8))
                    .collect();
                if OpCode::from_name(&n).is_some()
                    && (at + p == 0 || !is_ident(body.as_bytes()[at + p - 1]))
                {
                    names.insert(n);
                }
                at = s;
            }
        }
        if names.len() >= min {
            out.push(names);
        }
        from = open;
    }
    out
}

#[test]
fn no_retyped_opcode_lists() {
    let classes: Vec<(&str, BTreeSet<String>)> = Attrs::NAMED
        .iter()
        .map(|&(n, a)| {
            let set = OpCode::ALL
                .iter()
                .filter(|o| o.is(a))
                .map(|o| o.name().to_string())
                .collect();
            (n, set)
        })
        .collect();
    let mut seen: BTreeMap<BTreeSet<String>, BTreeSet<String>> = BTreeMap::new();
    let mut errors = Vec::new();
    for (path, text) in sources() {
        if path.starts_with("compiler/ir/src/opcode.rs") {
            continue;
        }
        let krate = path.split('/').take(2).collect::<Vec<_>>().join("/");
        for list in matches_lists(&text, 4) {
            if let Some((class, _)) = classes.iter().find(|(_, s)| *s == list) {
                errors.push(format!(
                    "{path}: a list of the `{class}` class: use op.is(…)"
                ));
            }
            seen.entry(list).or_default().insert(krate.clone());
        }
    }
    for (list, crates) in &seen {
        if crates.len() > 1 {
            errors.push(format!("{list:?} is listed in {crates:?}: make it a class"));
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
