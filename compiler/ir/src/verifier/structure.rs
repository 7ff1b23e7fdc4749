//! Module structure: declarations before code, the module's per-opcode counts matching its ops,
//! exactly one `EntryPoint`, every code op inside a `Function … FunctionEnd` range (functions do
//! not nest), parameter loads naming a parameter of the function they are in, and calls passing
//! one argument per parameter.

use super::Ctx;
use crate::opcode::OpCode;

/// Returns true if the module's per-opcode counts agree with its ops (later checks may then
/// answer presence questions from the counts).
pub(super) fn check(cx: &mut Ctx<'_>) -> bool {
    let m = cx.m;
    // Declarations first: the module keeps two sections, so this holds by construction; check
    // anyway in case a future storage change breaks it. The same two walks count the ops per
    // opcode (declarations then code is `m.iter()`'s order) and find the entry points.
    let mut walked = vec![0usize; crate::opcode::OPCODE_VALUE_BOUND];
    let mut entry_points: Vec<crate::SsaDef> = Vec::new();
    for d in m.declarations() {
        walked[usize::from(m.opcode(d).value())] += 1;
        if m.opcode(d) == OpCode::EntryPoint {
            entry_points.push(d);
        }
        if !m.opcode(d).is_declarative() {
            cx.err(
                d,
                format!(
                    "{} is not a declaration but sits among the declarations",
                    m.opcode(d)
                ),
            );
        }
    }
    for d in m.code() {
        walked[usize::from(m.opcode(d).value())] += 1;
        if m.opcode(d).is_declarative() {
            cx.err(d, format!("declaration {} placed after code", m.opcode(d)));
        }
    }
    // The module's per-opcode counts (presence queries that let passes skip walks) must
    // agree with the ops; they are kept by every mutation, so this too holds by construction.
    let mut counts_ok = true;
    for &op in OpCode::ALL {
        let n = walked[usize::from(op.value())];
        if m.count_of(op) != n {
            counts_ok = false;
            cx.err(
                None,
                format!("module counts {} {op} ops, but holds {n}", m.count_of(op)),
            );
        }
    }

    match entry_points.len() {
        0 => cx.err(None, "module has no EntryPoint"),
        1 => {
            // Entry functions take no parameters and return nothing.
            let e = entry_points[0];
            for f in m.op(e).ref_defs().filter(|&f| m.is_live(f)) {
                let op = m.op(f);
                if op.opcode == OpCode::Function && (!op.operands.is_empty() || !op.ty.is_void()) {
                    cx.err(
                        e,
                        format!("entry function {f} must take no parameters and return void"),
                    );
                }
            }
        }
        _ => {
            for &e in &entry_points[1..] {
                cx.err(
                    e,
                    format!("second EntryPoint (the first is {})", entry_points[0]),
                );
            }
        }
    }

    // Function ranges.
    let mut open: Option<crate::SsaDef> = None;
    for d in m.code() {
        match m.opcode(d) {
            OpCode::Function => {
                if let Some(f) = open {
                    cx.err(
                        d,
                        format!("Function inside function {f} (missing FunctionEnd)"),
                    );
                }
                open = Some(d);
            }
            OpCode::FunctionEnd => {
                if open.is_none() {
                    cx.err(d, "FunctionEnd without a Function");
                }
                open = None;
            }
            o => {
                if open.is_none() {
                    cx.err(d, format!("{o} outside of any function"));
                }
            }
        }
    }
    if let Some(f) = open {
        cx.err(f, "function has no FunctionEnd");
    }

    // Parameter loads and calls, each with the function around it.
    for (d, inside) in super::with_function(m, m.code()) {
        if cx.is_bad(d) {
            continue;
        }
        let op = m.op(d);
        match op.opcode {
            OpCode::ParamLoad => {
                let load = crate::format::ParamLoad::of(op);
                let (Some(f), Some(p)) = (load.function(), load.param()) else {
                    continue;
                };
                if inside != Some(f) {
                    cx.err(
                        d,
                        format!("ParamLoad names function {f}, but is not inside it"),
                    );
                }
                if !m.op(f).ref_defs().any(|x| x == p) {
                    cx.err(d, format!("{p} is not a parameter of function {f}"));
                }
            }
            OpCode::FunctionCall => {
                let Some(f) = crate::format::FunctionCall::of(op).callee() else {
                    continue;
                };
                let params = m.op(f).operands.len();
                let args = op.operands.len() - 1;
                if params != args {
                    cx.err(d, format!("call of {f} passes {args} arguments, the function has {params} parameters"));
                }
            }
            _ => {}
        }
    }
    counts_ok
}
