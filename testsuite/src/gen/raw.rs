//! Lowers a generated program to raw IR, the shape dxbc-spirv's front-ends produce: one
//! `DclTmp` per variable (some untyped `?`, read and written through `ConsumeAs`), scoped
//! control flow (`ScopedIf`/`ScopedLoop`/`ScopedSwitch` with their forward references patched
//! once the matching end op exists), no labels and no `Return` before `FunctionEnd`.

use super::ast::*;
use super::emit::{declare, emit_expr, emit_outputs, scalar, Decls, Form, VarReader};
use irc_ir::{Builder, Module, Op, OpCode, Operand, ScalarType, SsaDef, Type};

struct Temps {
    tmps: Vec<SsaDef>,
    types: Vec<Ty>,
    untyped: Vec<bool>,
}

impl VarReader for Temps {
    fn read(&mut self, m: &mut Module, v: usize) -> SsaDef {
        if self.untyped[v] {
            let x = m.add(Op::new(OpCode::TmpLoad, ScalarType::Unknown).arg(self.tmps[v]));
            m.add(Op::new(OpCode::ConsumeAs, scalar(self.types[v])).arg(x))
        } else {
            m.add(Op::new(OpCode::TmpLoad, scalar(self.types[v])).arg(self.tmps[v]))
        }
    }
}

impl Temps {
    fn write(&self, m: &mut Module, v: usize, value: SsaDef) {
        let value = if self.untyped[v] {
            m.add(Op::new(OpCode::ConsumeAs, ScalarType::Unknown).arg(value))
        } else {
            value
        };
        m.add(
            Op::new(OpCode::TmpStore, Type::void())
                .arg(self.tmps[v])
                .arg(value),
        );
    }
}

fn void(op: OpCode) -> Op {
    Op::new(op, Type::void())
}

/// Lowers `p` to raw IR.
pub fn lower(p: &Program) -> Module {
    let mut m = Module::new();
    let d = declare(&mut m, p, Form::Raw);
    let ep = m
        .uses(d.main)
        .iter()
        .copied()
        .find(|&u| m.opcode(u) == OpCode::EntryPoint);
    let ep = ep.expect("entry point declared");
    let mut temps = Temps {
        tmps: Vec::new(),
        types: p.vars.clone(),
        untyped: Vec::new(),
    };
    for (i, &ty) in p.vars.iter().enumerate() {
        // Every other float variable is untyped, as DXBC's r# registers are.
        let untyped = ty != Ty::Bool && i % 2 == 1;
        let t = if untyped {
            ScalarType::Unknown
        } else {
            scalar(ty)
        };
        temps.tmps.push(m.add(Op::new(OpCode::DclTmp, t).arg(ep)));
        temps.untyped.push(untyped);
    }
    let mut l = Lowering {
        m: &mut m,
        d: &d,
        p,
        temps,
    };
    l.block(&p.body);
    if d.gs_vertices.is_some() {
        // A geometry shader emits its outputs as every vertex of one strip: outputs are
        // undefined after an emit, so each vertex stores them again.
        for _ in 0..super::emit::GS_EMITTED_VERTICES {
            emit_outputs(l.m, &d, p, Form::Raw, &mut l.temps);
            l.m.add(void(OpCode::EmitVertex).lit(0));
        }
        l.m.add(void(OpCode::EmitPrimitive).lit(0));
    } else {
        emit_outputs(l.m, &d, p, Form::Raw, &mut l.temps);
    }
    m.add(void(OpCode::FunctionEnd));
    m
}

struct Lowering<'a> {
    m: &'a mut Module,
    d: &'a Decls,
    p: &'a Program,
    temps: Temps,
}

impl Lowering<'_> {
    fn expr(&mut self, e: &Expr) -> SsaDef {
        emit_expr(self.m, self.d, self.p, Form::Raw, &mut self.temps, e)
    }

    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn scoped_if(
        &mut self,
        cond: SsaDef,
        then: impl FnOnce(&mut Self),
        otherwise: Option<&[Stmt]>,
    ) {
        let if_op = self
            .m
            .add(void(OpCode::ScopedIf).arg(Operand::Null).arg(cond));
        then(self);
        if let Some(e) = otherwise {
            self.m.add(void(OpCode::ScopedElse).arg(if_op));
            self.block(e);
        }
        let end = self.m.add(void(OpCode::ScopedEndIf).arg(if_op));
        self.m.set_operand(if_op, 0, Operand::Ref(end));
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign(v, e) => {
                let x = self.expr(e);
                self.temps.write(self.m, *v, x);
            }
            Stmt::If(c, t, e) => {
                let cond = self.expr(c);
                let otherwise = (!e.is_empty()).then_some(e.as_slice());
                self.scoped_if(cond, |l| l.block(t), otherwise);
            }
            Stmt::Discard(c) => {
                let cond = self.expr(c);
                self.scoped_if(
                    cond,
                    |l| {
                        l.m.add(void(OpCode::Demote));
                    },
                    None,
                );
            }
            Stmt::Loop {
                counter,
                trips,
                body,
            } => {
                let zero = Builder::new(self.m).const_i32(0);
                self.temps.write(self.m, *counter, zero);
                let lp = self.m.add(void(OpCode::ScopedLoop).arg(Operand::Null));
                let i = self.temps.read(self.m, *counter);
                let n = Builder::new(self.m).const_i32(*trips);
                let done = self
                    .m
                    .add(Op::new(OpCode::SGe, ScalarType::Bool).arg(i).arg(n));
                self.scoped_if(
                    done,
                    |l| {
                        l.m.add(void(OpCode::ScopedLoopBreak).arg(lp));
                    },
                    None,
                );
                self.block(body);
                let i = self.temps.read(self.m, *counter);
                let one = Builder::new(self.m).const_i32(1);
                let next = self
                    .m
                    .add(Op::new(OpCode::IAdd, ScalarType::I32).arg(i).arg(one));
                self.temps.write(self.m, *counter, next);
                let end = self.m.add(void(OpCode::ScopedEndLoop).arg(lp));
                self.m.set_operand(lp, 0, Operand::Ref(end));
            }
            Stmt::Switch(sel, cases, default) => {
                let s = self.expr(sel);
                let sw = self
                    .m
                    .add(void(OpCode::ScopedSwitch).arg(Operand::Null).arg(s));
                for (value, body) in cases {
                    self.m.add(
                        void(OpCode::ScopedSwitchCase)
                            .arg(sw)
                            .lit(*value as i64 as u64),
                    );
                    self.block(body);
                    self.m.add(void(OpCode::ScopedSwitchBreak).arg(sw));
                }
                self.m.add(void(OpCode::ScopedSwitchDefault).arg(sw));
                self.block(default);
                self.m.add(void(OpCode::ScopedSwitchBreak).arg(sw));
                let end = self.m.add(void(OpCode::ScopedEndSwitch).arg(sw));
                self.m.set_operand(sw, 0, Operand::Ref(end));
            }
        }
    }
}
