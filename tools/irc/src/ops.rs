//! `irc ops [NAME] [--class C]`: the opcode table — each op's wire value, classes, operands
//! (named by its format) and what it computes. The same text is the rustdoc of `OpCode` and
//! `irc_ir::format`.

use irc_ir::{format, Attrs, OpCode};
use std::process::ExitCode;

pub fn run(name: Option<&str>, class: Option<&str>) -> Result<ExitCode, String> {
    let class = match class {
        None => None,
        Some(c) => Some(
            Attrs::NAMED
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(c))
                .map(|&(_, a)| a)
                .ok_or_else(|| {
                    let names: Vec<&str> = Attrs::NAMED.iter().map(|(n, _)| *n).collect();
                    format!("unknown class `{c}` (classes: {})", names.join(", "))
                })?,
        ),
    };
    let ops: Vec<OpCode> = match name {
        Some(n) => {
            let exact = OpCode::ALL
                .iter()
                .find(|o| o.name().eq_ignore_ascii_case(n));
            match exact {
                Some(&o) => vec![o],
                None => {
                    let lower = n.to_ascii_lowercase();
                    let found: Vec<OpCode> = OpCode::ALL
                        .iter()
                        .copied()
                        .filter(|o| o.name().to_ascii_lowercase().contains(&lower))
                        .collect();
                    if found.is_empty() {
                        return Err(format!("no opcode matches `{n}`"));
                    }
                    found
                }
            }
        }
        None => OpCode::ALL.to_vec(),
    };
    for op in ops.into_iter().filter(|o| class.is_none_or(|c| o.is(c))) {
        println!("{}", format::describe(op));
    }
    Ok(ExitCode::SUCCESS)
}
