//! Raw (scoped) control flow: the `Scoped*` ops of a function nest like brackets.
//!
//! `ScopedIf`/`ScopedLoop`/`ScopedSwitch` open a scope and reference their closing op
//! (`ScopedEndIf`/`ScopedEndLoop`/`ScopedEndSwitch`), which references the opener back. `ScopedElse`
//! belongs to the innermost open scope, which must be its `ScopedIf` (once); cases and the default
//! belong directly to their switch; loop breaks and continues reference the innermost enclosing
//! loop, switch breaks the innermost enclosing switch. Structured control-flow ops (`Branch*`,
//! `Switch`, `Phi`) have no place in a function without labels.

use super::Ctx;
use crate::analysis::FunctionRange;
use crate::entities::SsaDef;
use crate::format::{Scoped, ScopedIf, ScopedSwitch};
use crate::opcode::OpCode;

pub(super) fn check_function(cx: &mut Ctx<'_>, f: FunctionRange) {
    let m = cx.m;
    // Open scopes: (opener, saw else).
    let mut stack: Vec<(SsaDef, bool)> = Vec::new();
    // Case values and whether a default was seen, per ScopedSwitch.
    let mut cases: rustc_hash::FxHashMap<SsaDef, (Vec<u64>, bool)> = Default::default();
    for d in f.body(m) {
        let opcode = m.opcode(d);
        if matches!(
            opcode,
            OpCode::Branch | OpCode::BranchConditional | OpCode::Switch | OpCode::Phi
        ) {
            cx.err(d, format!("{opcode} in a function without Labels"));
            continue;
        }
        if !opcode.is_scoped() || cx.is_bad(d) {
            continue;
        }
        // The construct op named (the openers' own end reference is checked at the end).
        let target = Scoped::try_of(m.op(d)).and_then(|s| s.construct());
        match opcode {
            OpCode::ScopedIf | OpCode::ScopedLoop | OpCode::ScopedSwitch => stack.push((d, false)),
            OpCode::ScopedElse => match stack.last_mut() {
                Some((top, seen_else)) if Some(*top) == target => {
                    if *seen_else {
                        cx.err(d, format!("second ScopedElse for {top}"));
                    }
                    *seen_else = true;
                }
                top => {
                    let msg = open_scope_msg(m, top.map(|t| t.0), target);
                    cx.err(d, msg);
                }
            },
            OpCode::ScopedEndIf | OpCode::ScopedEndLoop | OpCode::ScopedEndSwitch => {
                match stack.last() {
                    Some(&(top, _)) if Some(top) == target => {
                        stack.pop();
                        let top_op = m.op(top);
                        let end = match (ScopedIf::try_of(top_op), ScopedSwitch::try_of(top_op)) {
                            (Some(i), _) => i.end(),
                            (None, Some(s)) => s.end(),
                            (None, None) => Scoped::try_of(top_op).and_then(|s| s.construct()),
                        };
                        if end != Some(d) {
                            cx.err(
                                top,
                                format!("{} must reference its closing op {d}", m.opcode(top)),
                            );
                        }
                    }
                    top => {
                        let msg = open_scope_msg(m, top.map(|t| t.0), target);
                        cx.err(d, msg);
                    }
                }
            }
            OpCode::ScopedSwitchCase | OpCode::ScopedSwitchDefault => match stack.last() {
                Some(&(top, _)) if Some(top) == target => {
                    let (values, default) = cases.entry(top).or_default();
                    if opcode == OpCode::ScopedSwitchDefault {
                        if *default {
                            cx.err(d, format!("second ScopedSwitchDefault of {top}"));
                        }
                        *default = true;
                    } else if let Some(v) = Scoped::of(m.op(d)).case_value() {
                        if values.contains(&v) {
                            cx.err(d, format!("case value {} appears twice in {top}", v as i64));
                        }
                        values.push(v);
                    }
                }
                top => {
                    let msg = open_scope_msg(m, top.map(|t| t.0), target);
                    cx.err(d, msg);
                }
            },
            OpCode::ScopedLoopBreak | OpCode::ScopedLoopContinue | OpCode::ScopedSwitchBreak => {
                let want = match opcode {
                    OpCode::ScopedSwitchBreak => OpCode::ScopedSwitch,
                    _ => OpCode::ScopedLoop,
                };
                let inner = stack
                    .iter()
                    .rev()
                    .map(|s| s.0)
                    .find(|&s| m.opcode(s) == want);
                if inner != target {
                    let msg = match inner {
                        Some(i) => format!("{opcode} must reference the innermost {want} {i}"),
                        None => format!("{opcode} outside of any {want}"),
                    };
                    cx.err(d, msg);
                }
            }
            _ => {}
        }
    }
    for (open, _) in stack {
        cx.err(open, format!("{} is never closed", m.opcode(open)));
    }
}

fn open_scope_msg(m: &crate::Module, top: Option<SsaDef>, target: Option<SsaDef>) -> String {
    let t = target.map_or("null".to_string(), |t| t.to_string());
    match top {
        Some(top) => format!(
            "references {t}, but the innermost open scope is {} {top}",
            m.opcode(top)
        ),
        None => format!("references {t}, but no scope is open"),
    }
}
