//! Scoped → structured control flow (dxbc-spirv's `ConvertControlFlowPass`, reference B.3).
//!
//! One forward walk over the original code ops of each raw function, with a stack of open
//! constructs. Every scoped op is rewritten *in place* into the structured op that takes its
//! position, and new labels are inserted around it:
//!
//! - `Function` gets an entry `Label` after it; `FunctionEnd` gets a `Return` (of `Undef` for
//!   non-void functions) before it unless the body already ends in a `Return`/`Unreachable`; a
//!   mid-function `Return`/`Unreachable` is followed by a new label (an unreachable block,
//!   removed later).
//! - `ScopedIf %end %c` becomes `BranchConditional %c %then %merge`; the current block's label
//!   becomes `Label %merge StructuredSelection`; `%merge` is inserted right after `%end` (known
//!   from the if's forward reference), which becomes `Branch %merge`; `ScopedElse` becomes the
//!   else block's label, preceded by `Branch %merge`, and retargets the false edge.
//! - `ScopedLoop %end` becomes `Branch %header`, followed by
//!   `%header = Label %merge %continue StructuredLoop; Branch %body; %body = Label`. After `%end`
//!   (which becomes `Branch %continue`) come `%continue = Label; Branch %header; %merge = Label`.
//!   Break and continue become branches to `%merge` / `%continue` plus a new label.
//! - `ScopedSwitch %end %sel` becomes `Switch %sel %merge` (default = merge until a default
//!   appears) with the header marked `StructuredSelection`; each case or default op becomes a
//!   branch into its new block (the fall-through edge from the previous case) and adds a
//!   `(Constant, label)` pair; the case value becomes a `Constant` of the selector's type.
//!
//! Unreachable blocks are left for [`crate::unreachable`].

use crate::FrontendError;
use irc_ir::format::{slots, Scoped, ScopedIf, ScopedSwitch};
use irc_ir::{Construct, Module, Op, OpCode, Operand, ScalarType, SsaDef, Type};

enum Open {
    If {
        scoped: SsaDef,
        merge: SsaDef,
        branch: SsaDef,
    },
    Loop {
        scoped: SsaDef,
        merge: SsaDef,
        cont: SsaDef,
    },
    Switch {
        scoped: SsaDef,
        merge: SsaDef,
        switch: SsaDef,
        selector: Type,
    },
}

impl Open {
    fn scoped(&self) -> SsaDef {
        match self {
            Open::If { scoped, .. } | Open::Loop { scoped, .. } | Open::Switch { scoped, .. } => {
                *scoped
            }
        }
    }
}

fn void(op: OpCode) -> Op {
    Op::new(op, Type::void())
}

fn label() -> Op {
    void(OpCode::Label).lit(Construct::None.to_u64())
}

/// Converts every raw function of `m` (one with no `Label`) to structured control flow.
pub fn run(m: &mut Module) -> Result<(), FrontendError> {
    let code: Vec<SsaDef> = m.code().collect();
    let mut i = 0;
    while i < code.len() {
        if m.opcode(code[i]) != OpCode::Function {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < code.len() && m.opcode(code[i]) != OpCode::FunctionEnd {
            i += 1;
        }
        let end = (i < code.len()).then(|| code[i]);
        let body = &code[start + 1..i];
        if !body.iter().any(|&d| m.opcode(d) == OpCode::Label) {
            Walker {
                m,
                stack: Vec::new(),
                block: code[start],
            }
            .function(code[start], body, end)?;
        }
        i += 1;
    }
    Ok(())
}

struct Walker<'m> {
    m: &'m mut Module,
    stack: Vec<Open>,
    /// Label of the block being walked.
    block: SsaDef,
}

impl Walker<'_> {
    fn function(
        &mut self,
        f: SsaDef,
        body: &[SsaDef],
        end: Option<SsaDef>,
    ) -> Result<(), FrontendError> {
        self.block = self.m.insert_after(f, label());
        // A body that ends in a `Return` (the usual shader) has its last block closed by it:
        // no block opens after it and no `Return` is added, where a dead `Label; Return` pair
        // would only be made for `remove-unreachable` to take away again.
        let ends_closed = end.is_some()
            && body
                .last()
                .is_some_and(|&d| matches!(self.m.opcode(d), OpCode::Return | OpCode::Unreachable));
        let walked = if ends_closed {
            &body[..body.len() - 1]
        } else {
            body
        };
        for &d in walked {
            self.op(d)?;
        }
        if let Some(open) = self.stack.last() {
            return Err(FrontendError::malformed(
                self.m,
                open.scoped(),
                "construct is never closed",
            ));
        }
        let Some(end) = end else {
            return Err(FrontendError::malformed(
                self.m,
                f,
                "function has no FunctionEnd",
            ));
        };
        if ends_closed {
            return Ok(());
        }
        let ret_ty = self.m.ty(f).clone();
        let ret = if ret_ty.is_void() {
            void(OpCode::Return)
        } else {
            let u = self.m.add(Op::new(OpCode::Undef, ret_ty.clone()));
            Op::new(OpCode::Return, ret_ty).arg(u)
        };
        self.m.insert_before(end, ret);
        Ok(())
    }

    /// Index in the stack of the open construct made by scoped op `scoped`.
    fn find(&self, d: SsaDef, scoped: Option<SsaDef>) -> Result<usize, FrontendError> {
        scoped
            .and_then(|s| self.stack.iter().rposition(|o| o.scoped() == s))
            .ok_or_else(|| FrontendError::malformed(self.m, d, "refers to no open construct"))
    }

    /// Starts a new (possibly unreachable) block after the terminator `d`.
    fn new_block_after(&mut self, d: SsaDef) {
        self.block = self.m.insert_after(d, label());
    }

    /// Pops the innermost construct, which must be the one `d` closes.
    fn close(&mut self, d: SsaDef, scoped: Option<SsaDef>) -> Result<Open, FrontendError> {
        let k = self.find(d, scoped)?;
        if k + 1 != self.stack.len() {
            return Err(FrontendError::malformed(
                self.m,
                d,
                "closes a construct that is not the innermost",
            ));
        }
        Ok(self.stack.pop().expect("stack is not empty"))
    }

    fn mark_header(&mut self, merge: SsaDef) {
        let op = void(OpCode::Label)
            .arg(merge)
            .lit(Construct::StructuredSelection.to_u64());
        self.m.rewrite(self.block, op);
    }

    fn op(&mut self, d: SsaDef) -> Result<(), FrontendError> {
        if !is_control_flow(self.m.opcode(d)) {
            // Everything but control flow stays as it is (most ops: no copy to look at).
            return Ok(());
        }
        let op = self.m.op(d).clone();
        // The construct op a scoped op names (`ScopedIf`/`ScopedSwitch` name their end).
        let construct = Scoped::try_of(&op).and_then(|s| s.construct());
        match op.opcode {
            OpCode::ScopedIf => {
                let sif = ScopedIf::of(&op);
                let (Some(end), Some(cond)) = (sif.end(), sif.cond()) else {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "needs an end and a condition",
                    ));
                };
                if self.m.opcode(end) != OpCode::ScopedEndIf {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "operand 0 is not a ScopedEndIf",
                    ));
                }
                let merge = self.m.insert_after(end, label());
                self.mark_header(merge);
                let then = self.m.insert_after(d, label());
                let branch = void(OpCode::BranchConditional)
                    .arg(cond)
                    .arg(then)
                    .arg(merge);
                self.m.rewrite(d, branch);
                self.stack.push(Open::If {
                    scoped: d,
                    merge,
                    branch: d,
                });
                self.block = then;
            }
            OpCode::ScopedElse => {
                let k = self.find(d, construct)?;
                let Open::If { merge, branch, .. } = self.stack[k] else {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "else of a non-if construct",
                    ));
                };
                self.m.insert_before(d, void(OpCode::Branch).arg(merge));
                self.m.rewrite(d, label());
                self.m
                    .set_operand(branch, slots::BranchConditional.if_false, Operand::Ref(d));
                self.block = d;
            }
            OpCode::ScopedEndIf => {
                let Open::If { merge, .. } = self.close(d, construct)? else {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "end of a non-if construct",
                    ));
                };
                self.m.rewrite(d, void(OpCode::Branch).arg(merge));
                self.block = merge;
            }
            OpCode::ScopedLoop => {
                let Some(end) = construct.filter(|&e| self.m.opcode(e) == OpCode::ScopedEndLoop)
                else {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "operand 0 is not a ScopedEndLoop",
                    ));
                };
                let cont = self.m.insert_after(end, label());
                let merge = self.m.insert_after(cont, label());
                let header_op = void(OpCode::Label)
                    .arg(merge)
                    .arg(cont)
                    .lit(Construct::StructuredLoop.to_u64());
                let header = self.m.insert_after(d, header_op);
                self.m.insert_after(cont, void(OpCode::Branch).arg(header));
                let body = self.m.insert_after(header, label());
                self.m.insert_after(header, void(OpCode::Branch).arg(body));
                self.m.rewrite(d, void(OpCode::Branch).arg(header));
                self.stack.push(Open::Loop {
                    scoped: d,
                    merge,
                    cont,
                });
                self.block = body;
            }
            OpCode::ScopedLoopBreak | OpCode::ScopedLoopContinue => {
                let k = self.find(d, construct)?;
                let Open::Loop { merge, cont, .. } = self.stack[k] else {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "break/continue of a non-loop",
                    ));
                };
                let target = if op.opcode == OpCode::ScopedLoopBreak {
                    merge
                } else {
                    cont
                };
                self.m.rewrite(d, void(OpCode::Branch).arg(target));
                self.new_block_after(d);
            }
            OpCode::ScopedEndLoop => {
                let Open::Loop { merge, cont, .. } = self.close(d, construct)? else {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "end of a non-loop construct",
                    ));
                };
                self.m.rewrite(d, void(OpCode::Branch).arg(cont));
                self.block = merge;
            }
            OpCode::ScopedSwitch => {
                let sw = ScopedSwitch::of(&op);
                let (Some(end), Some(sel)) = (sw.end(), sw.selector()) else {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "needs an end and a selector",
                    ));
                };
                if self.m.opcode(end) != OpCode::ScopedEndSwitch {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "operand 0 is not a ScopedEndSwitch",
                    ));
                }
                let merge = self.m.insert_after(end, label());
                self.mark_header(merge);
                let selector = self.m.ty(sel).clone();
                self.m.rewrite(d, void(OpCode::Switch).arg(sel).arg(merge));
                self.stack.push(Open::Switch {
                    scoped: d,
                    merge,
                    switch: d,
                    selector,
                });
                self.new_block_after(d);
            }
            OpCode::ScopedSwitchCase | OpCode::ScopedSwitchDefault => {
                let k = self.find(d, construct)?;
                let Open::Switch {
                    switch,
                    ref selector,
                    ..
                } = self.stack[k]
                else {
                    return Err(FrontendError::malformed(self.m, d, "case of a non-switch"));
                };
                let case_label = self.m.insert_after(d, label());
                let mut sw = self.m.op(switch).clone();
                if op.opcode == OpCode::ScopedSwitchCase {
                    let value = Scoped::of(&op).case_value().unwrap_or(0);
                    let c = case_constant(self.m, selector, value);
                    sw = sw.arg(c).arg(case_label);
                } else {
                    sw.operands[slots::Switch.default] = Operand::Ref(case_label);
                }
                self.m.rewrite(switch, sw);
                self.m.rewrite(d, void(OpCode::Branch).arg(case_label));
                self.block = case_label;
            }
            OpCode::ScopedSwitchBreak => {
                let k = self.find(d, construct)?;
                let Open::Switch { merge, .. } = self.stack[k] else {
                    return Err(FrontendError::malformed(self.m, d, "break of a non-switch"));
                };
                self.m.rewrite(d, void(OpCode::Branch).arg(merge));
                self.new_block_after(d);
            }
            OpCode::ScopedEndSwitch => {
                let Open::Switch { merge, .. } = self.close(d, construct)? else {
                    return Err(FrontendError::malformed(
                        self.m,
                        d,
                        "end of a non-switch construct",
                    ));
                };
                self.m.rewrite(d, void(OpCode::Branch).arg(merge));
                self.block = merge;
            }
            OpCode::Return | OpCode::Unreachable => self.new_block_after(d),
            OpCode::Label
            | OpCode::Branch
            | OpCode::BranchConditional
            | OpCode::Switch
            | OpCode::Phi => {
                return Err(FrontendError::malformed(
                    self.m,
                    d,
                    "structured op in a raw function",
                ));
            }
            _ => {}
        }
        Ok(())
    }
}

/// The ops `Walker::op` rewrites or rejects: the control-flow class of the opcode table
/// (scoped and structured control flow, phis) apart from the function ops, which the walk
/// itself handles.
fn is_control_flow(opcode: OpCode) -> bool {
    opcode.is(irc_ir::Attrs::CONTROL)
        && !matches!(
            opcode,
            OpCode::Function | OpCode::FunctionEnd | OpCode::FunctionCall
        )
}

/// The `Constant` of the selector's type for a scoped case literal (canonicalized: signed types
/// sign-extend their low bits, others zero-extend; an untyped selector counts as u32).
fn case_constant(m: &mut Module, selector: &Type, value: u64) -> SsaDef {
    let scalar = selector
        .as_scalar()
        .filter(|s| s.is_int())
        .unwrap_or(ScalarType::U32);
    let bits = scalar.literal_bits().clamp(1, 64);
    let v = if bits == 64 {
        value
    } else if scalar.is_signed_int() {
        let shift = 64 - bits;
        (((value << shift) as i64) >> shift) as u64
    } else {
        value & ((1u64 << bits) - 1)
    };
    m.add(Op::new(OpCode::Constant, scalar).lit(v))
}

#[cfg(test)]
mod tests {
    use irc_ir::{text, Module, OpCode};

    fn structured(body: &str) -> Module {
        let src = format!(
            "%1 = EntryPoint %20 Pixel\n%2 = f32 DclOutput %1 0 0\n%3 = f32 Constant 1.0\n\n\
             %20 = Function\n{body}%29 = FunctionEnd\n"
        );
        let mut m = text::parse(&src).expect("the test module parses");
        super::run(&mut m).expect("structurize");
        m
    }

    /// A body that ends in its `Return` is one block, closed by that `Return`; a body that
    /// does not gets the `Return`; a `Return` in the middle is followed by a new (dead) block.
    #[test]
    fn a_closing_return_ends_the_last_block() {
        let closed = structured("  %21 = OutputStore %2 null %3\n  %22 = Return\n");
        assert_eq!(
            (
                closed.count_of(OpCode::Label),
                closed.count_of(OpCode::Return)
            ),
            (1, 1)
        );

        let open = structured("  %21 = OutputStore %2 null %3\n");
        assert_eq!(
            (open.count_of(OpCode::Label), open.count_of(OpCode::Return)),
            (1, 1)
        );

        let early = structured("  %21 = Return\n  %22 = OutputStore %2 null %3\n");
        assert_eq!(
            (
                early.count_of(OpCode::Label),
                early.count_of(OpCode::Return)
            ),
            (2, 2)
        );
    }
}
