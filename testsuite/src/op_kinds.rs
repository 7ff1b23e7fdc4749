//! Where a pipeline's ops come from, against dxbc-spirv's `.dxir`: `irc corpus DIR --check
//! legalize --op-kinds N` counts the ops of each opcode in our result and in the reference of
//! every shader, then prints one table per opcode (ours, theirs, surplus; largest surplus first)
//! and the `N` shaders with the largest surplus with the op kinds that make it up.
//!
//! This is how the surplus of `legalize` over dxbc-spirv's `legalizeIr` is found and tracked
//! (issue 19): the totals alone say how far off we are, the kinds say which lowering or
//! clean-up to look at, the shaders give a small example to read.

use irc_ir::{Module, OpCode};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Ops per opcode of one shader: (opcode, ours, reference), only opcodes present in either.
pub type KindCounts = Vec<(OpCode, u32, u32)>;

/// Counts the ops of `ours` and `reference` per opcode.
pub fn count(ours: &Module, reference: &Module) -> KindCounts {
    let mut map: FxHashMap<OpCode, (u32, u32)> = FxHashMap::default();
    for d in ours.iter() {
        map.entry(ours.opcode(d)).or_default().0 += 1;
    }
    for d in reference.iter() {
        map.entry(reference.opcode(d)).or_default().1 += 1;
    }
    let mut v: KindCounts = map.into_iter().map(|(k, (a, b))| (k, a, b)).collect();
    v.sort_by_key(|e| e.0);
    v
}

/// One shader's counts, as the table takes them.
#[derive(Debug)]
pub struct ShaderKinds<'a> {
    pub file: &'a str,
    pub kinds: &'a KindCounts,
}

/// The per-opcode table over all shaders, then the `worst` shaders with the largest surplus.
pub fn table(shaders: &[ShaderKinds<'_>], worst: usize) -> String {
    let mut totals: BTreeMap<OpCode, (i64, i64, usize)> = BTreeMap::new();
    for s in shaders {
        for &(k, a, b) in s.kinds {
            let t = totals.entry(k).or_default();
            t.0 += i64::from(a);
            t.1 += i64::from(b);
            if a > b {
                t.2 += 1;
            }
        }
    }
    let mut rows: Vec<(OpCode, i64, i64, usize)> = totals
        .into_iter()
        .map(|(k, (a, b, n))| (k, a, b, n))
        .collect();
    rows.sort_by_key(|r| (std::cmp::Reverse(r.1 - r.2), r.0));
    let (ours, theirs): (i64, i64) = rows.iter().fold((0, 0), |t, r| (t.0 + r.1, t.1 + r.2));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<28} {:>9} {:>9} {:>9} {:>8}",
        "op kind", "ours", ".dxir", "surplus", "shaders"
    );
    for (k, a, b, n) in rows.iter().filter(|r| r.1 != r.2) {
        let _ = writeln!(s, "{:<28} {a:>9} {b:>9} {:>+9} {n:>8}", k.name(), a - b);
    }
    let _ = writeln!(
        s,
        "{:<28} {ours:>9} {theirs:>9} {:>+9}",
        "total",
        ours - theirs
    );
    let surplus =
        |k: &KindCounts| -> i64 { k.iter().map(|&(_, a, b)| i64::from(a) - i64::from(b)).sum() };
    let mut by_surplus: Vec<(&ShaderKinds<'_>, i64)> =
        shaders.iter().map(|s| (s, surplus(s.kinds))).collect();
    by_surplus.sort_by_key(|e| (std::cmp::Reverse(e.1), e.0.file));
    if worst > 0 {
        let _ = writeln!(s, "largest surplus:");
    }
    for (sh, n) in by_surplus.iter().take(worst) {
        let mut kinds: Vec<(OpCode, i64)> = sh
            .kinds
            .iter()
            .map(|&(k, a, b)| (k, i64::from(a) - i64::from(b)))
            .filter(|e| e.1 != 0)
            .collect();
        kinds.sort_by_key(|e| (std::cmp::Reverse(e.1), e.0));
        let top: Vec<String> = kinds
            .iter()
            .take(4)
            .map(|(k, d)| format!("{} {d:+}", k.name()))
            .collect();
        let _ = writeln!(s, "  {n:>+7}  {}  ({})", sh.file, top.join(", "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ranks_the_surplus() {
        let ours = irc_ir::text::parse(
            "%1 = EntryPoint %2 Compute\n%3 = u32 Constant 1\n%4 = u32 Constant 2\n\
             %2 = Function\n%5 = Label None\n%6 = Return\n%7 = FunctionEnd\n",
        )
        .expect("parse");
        let theirs = irc_ir::text::parse(
            "%1 = EntryPoint %2 Compute\n\
             %2 = Function\n%5 = Label None\n%6 = Return\n%7 = FunctionEnd\n",
        )
        .expect("parse");
        let k = count(&ours, &theirs);
        assert!(k.contains(&(OpCode::Constant, 2, 0)));
        assert!(k.contains(&(OpCode::Function, 1, 1)));
        let t = table(
            &[ShaderKinds {
                file: "a",
                kinds: &k,
            }],
            1,
        );
        assert!(t.contains("Constant"), "{t}");
        assert!(!t.lines().any(|l| l.starts_with("Function ")), "{t}");
        assert!(t.contains("+2  a  (Constant +2)"), "{t}");
    }
}
