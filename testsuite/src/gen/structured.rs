//! Lowers a generated program to structured SSA IR, in the shapes dxbc-spirv's legalization
//! produces: selection headers `Label %merge StructuredSelection`, loops
//! `header (phis; Branch body) → body (if counter ≥ n break) → … → continue → header` with the
//! exit test at the top of the body, switches without fall-through, and phis in merge blocks
//! for every variable whose value differs between the incoming edges.

use super::ast::*;
use super::emit::{declare, emit_expr, emit_outputs, scalar, Decls, Form, VarReader};
use irc_ir::format::{slots, BranchConditional, Label, Phi};
use irc_ir::{Builder, Construct, Module, Op, OpCode, Operand, ScalarType, SsaDef, Type};
use rustc_hash::FxHashMap;

/// The current SSA value of every variable.
#[derive(Clone)]
struct Env(Vec<Option<SsaDef>>);

impl VarReader for Env {
    fn read(&mut self, _m: &mut Module, v: usize) -> SsaDef {
        self.0[v].expect("variables are assigned before use")
    }
}

fn void(op: OpCode) -> Op {
    Op::new(op, Type::void())
}

fn label(m: &mut Module) -> SsaDef {
    m.add(void(OpCode::Label).lit(Construct::None.to_u64()))
}

/// Lowers `p` to structured SSA IR.
pub fn lower(p: &Program) -> Module {
    let mut m = Module::new();
    let d = declare(&mut m, p, Form::Structured);
    let entry = label(&mut m);
    let mut l = Lowering {
        m: &mut m,
        d: &d,
        p,
        env: Env(vec![None; p.vars.len()]),
        block: entry,
    };
    l.stmts(&p.body);
    let mut env = l.env.clone();
    emit_outputs(l.m, &d, p, Form::Structured, &mut env);
    m.add(void(OpCode::Return));
    m.add(void(OpCode::FunctionEnd));
    m
}

struct Lowering<'a> {
    m: &'a mut Module,
    d: &'a Decls,
    p: &'a Program,
    env: Env,
    /// Label of the block being emitted.
    block: SsaDef,
}

impl Lowering<'_> {
    fn expr(&mut self, e: &Expr) -> SsaDef {
        emit_expr(self.m, self.d, self.p, Form::Structured, &mut self.env, e)
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    /// Makes the current block the header of a selection merging at `merge`.
    fn make_selection_header(&mut self, merge: SsaDef) {
        let op = void(OpCode::Label)
            .arg(merge)
            .lit(Construct::StructuredSelection.to_u64());
        self.m.rewrite(self.block, op);
    }

    /// Emits one arm: a new block running `body`, ending in a branch to a merge block that is
    /// patched in later. Returns (last block of the arm, its environment, the branch op).
    fn arm(&mut self, start_env: &Env, body: &[Stmt]) -> (SsaDef, SsaDef, Env, SsaDef) {
        let first = label(self.m);
        self.block = first;
        self.env = start_env.clone();
        self.stmts(body);
        let br = self.m.add(void(OpCode::Branch).arg(Operand::Null));
        (first, self.block, self.env.clone(), br)
    }

    /// Opens the merge block of `arms` (last block, env, branch) and inserts phis.
    fn merge(&mut self, arms: &[(SsaDef, Env, SsaDef)]) -> SsaDef {
        let merge = label(self.m);
        for (_, _, br) in arms {
            self.m.set_operand(*br, 0, Operand::Ref(merge));
        }
        self.block = merge;
        let mut env = arms[0].1.clone();
        for v in 0..self.p.vars.len() {
            let vals: Vec<Option<SsaDef>> = arms.iter().map(|(_, e, _)| e.0[v]).collect();
            if vals.iter().all(|x| *x == vals[0]) {
                continue;
            }
            if vals.iter().any(Option::is_none) {
                // Assigned on some paths only (a loop counter inside one arm): dead here.
                env.0[v] = None;
                continue;
            }
            let mut phi = Op::new(OpCode::Phi, scalar(self.p.vars[v]));
            for ((pred, _, _), val) in arms.iter().zip(&vals) {
                let val = val.expect("variables are assigned before branching");
                phi = phi.arg(*pred).arg(val);
            }
            env.0[v] = Some(self.m.add(phi));
        }
        self.env = env;
        merge
    }

    fn if_else(&mut self, cond: SsaDef, then: &[Stmt], otherwise: &[Stmt]) {
        let header = self.block;
        let start = self.env.clone();
        let bc = self.m.add(
            void(OpCode::BranchConditional)
                .arg(cond)
                .arg(Operand::Null)
                .arg(Operand::Null),
        );
        let (t_first, t_last, t_env, t_br) = self.arm(&start, then);
        let (f_first, f_last, f_env, f_br) = self.arm(&start, otherwise);
        self.m.set_operand(bc, 1, Operand::Ref(t_first));
        self.m.set_operand(bc, 2, Operand::Ref(f_first));
        let merge = self.merge(&[(t_last, t_env, t_br), (f_last, f_env, f_br)]);
        let saved = self.block;
        self.block = header;
        self.make_selection_header(merge);
        self.block = saved;
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign(v, e) => {
                let x = self.expr(e);
                self.env.0[*v] = Some(x);
            }
            Stmt::If(c, t, e) => {
                let cond = self.expr(c);
                self.if_else(cond, t, e);
            }
            Stmt::Discard(c) => {
                let cond = self.expr(c);
                self.if_else(cond, &[], &[]);
                // Put the Demote into the then-block: it is the block after the header's
                // BranchConditional target 1.
                let header_label = self.header_of_last_if();
                let bc = self.terminator_of(header_label);
                let then_label = BranchConditional::of(self.m.op(bc))
                    .if_true()
                    .expect("then target");
                let br = self.terminator_of(then_label);
                self.m.insert_before(br, void(OpCode::Demote));
            }
            Stmt::Loop {
                counter,
                trips,
                body,
            } => self.lower_loop(*counter, *trips, body),
            Stmt::Switch(sel, cases, default) => {
                let s = self.expr(sel);
                let header = self.block;
                let start = self.env.clone();
                let sw = self.m.add(void(OpCode::Switch).arg(s).arg(Operand::Null));
                let mut arms = Vec::new();
                let mut targets = Vec::new();
                for (value, body) in cases {
                    let (first, last, env, br) = self.arm(&start, body);
                    targets.push((*value, first));
                    arms.push((last, env, br));
                }
                let (d_first, d_last, d_env, d_br) = self.arm(&start, default);
                arms.push((d_last, d_env, d_br));
                let mut op = self.m.op(sw).clone();
                op.operands[slots::Switch.default] = Operand::Ref(d_first);
                for (value, first) in targets {
                    let c = Builder::new(self.m).const_i32(value);
                    op = op.arg(c).arg(first);
                }
                self.m.rewrite(sw, op);
                let merge = self.merge(&arms);
                let saved = self.block;
                self.block = header;
                self.make_selection_header(merge);
                self.block = saved;
            }
        }
    }

    fn lower_loop(&mut self, counter: usize, trips: i32, body: &[Stmt]) {
        let mut b = Builder::new(self.m);
        let zero = b.const_i32(0);
        let n = b.const_i32(trips);
        let one = b.const_i32(1);
        self.env.0[counter] = Some(zero);
        let pre = self.block;
        let pre_env = self.env.clone();
        let to_header = self.m.add(void(OpCode::Branch).arg(Operand::Null));
        // Header: one phi per variable that has a value (trivial ones are harmless); the
        // back-edge operands are patched after the body.
        let header = label(self.m);
        self.m.set_operand(to_header, 0, Operand::Ref(header));
        let mut phis = Vec::new();
        for v in 0..self.p.vars.len() {
            if let Some(val) = pre_env.0[v] {
                let phi = Op::new(OpCode::Phi, scalar(self.p.vars[v]))
                    .arg(pre)
                    .arg(val)
                    .arg(Operand::Null)
                    .arg(Operand::Null);
                let d = self.m.add(phi);
                self.env.0[v] = Some(d);
                phis.push((v, d));
            }
        }
        let header_env = self.env.clone();
        let to_body = self.m.add(void(OpCode::Branch).arg(Operand::Null));
        // Body: exit test first.
        let body_label = label(self.m);
        self.m.set_operand(to_body, 0, Operand::Ref(body_label));
        self.block = body_label;
        let i = header_env.0[counter].expect("counter has a phi");
        let done = self
            .m
            .add(Op::new(OpCode::SGe, ScalarType::Bool).arg(i).arg(n));
        let bc = self.m.add(
            void(OpCode::BranchConditional)
                .arg(done)
                .arg(Operand::Null)
                .arg(Operand::Null),
        );
        let brk = label(self.m);
        let to_merge = self.m.add(void(OpCode::Branch).arg(Operand::Null));
        let rest = label(self.m);
        self.m.set_operand(bc, 1, Operand::Ref(brk));
        self.m.set_operand(bc, 2, Operand::Ref(rest));
        let op = void(OpCode::Label)
            .arg(rest)
            .lit(Construct::StructuredSelection.to_u64());
        self.m.rewrite(body_label, op);
        self.block = rest;
        self.stmts(body);
        let to_cont = self.m.add(void(OpCode::Branch).arg(Operand::Null));
        let cont = label(self.m);
        self.m.set_operand(to_cont, 0, Operand::Ref(cont));
        self.block = cont;
        let next = self
            .m
            .add(Op::new(OpCode::IAdd, ScalarType::I32).arg(i).arg(one));
        self.env.0[counter] = Some(next);
        self.m.add(void(OpCode::Branch).arg(header));
        for &(v, phi) in &phis {
            let val = self.env.0[v].expect("loop-carried value");
            self.m.set_operand(phi, 2, Operand::Ref(cont));
            self.m.set_operand(phi, 3, Operand::Ref(val));
        }
        // A variable the loop does not change leaves a phi whose back-edge value is the phi
        // itself (or another such phi), which the IR cannot encode: replace those by the value
        // from before the loop, to a fixed point.
        let mut replaced: FxHashMap<SsaDef, SsaDef> = FxHashMap::default();
        let resolve = |r: &FxHashMap<SsaDef, SsaDef>, mut d: SsaDef| {
            while let Some(&n) = r.get(&d) {
                d = n;
            }
            d
        };
        loop {
            let mut changed = false;
            for &(_, phi) in &phis {
                if replaced.contains_key(&phi) {
                    continue;
                }
                let values: Vec<Option<SsaDef>> =
                    Phi::of(self.m.op(phi)).pairs().map(|(_, v)| v).collect();
                let (Some(&Some(pre_val)), Some(&Some(back))) = (values.first(), values.get(1))
                else {
                    continue;
                };
                if back == phi || back == pre_val {
                    self.m.replace_all_uses(phi, pre_val);
                    self.m.remove(phi);
                    replaced.insert(phi, pre_val);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut header_env = header_env;
        for slot in header_env.0.iter_mut().flatten() {
            *slot = resolve(&replaced, *slot);
        }
        let merge = label(self.m);
        self.m.set_operand(to_merge, 0, Operand::Ref(merge));
        let op = void(OpCode::Label)
            .arg(merge)
            .arg(cont)
            .lit(Construct::StructuredLoop.to_u64());
        self.m.rewrite(header, op);
        self.block = merge;
        self.env = header_env;
    }

    /// The header label of the selection whose merge block is the current block.
    fn header_of_last_if(&self) -> SsaDef {
        self.m
            .uses(self.block)
            .iter()
            .copied()
            .find(|&u| {
                self.m.opcode(u) == OpCode::Label
                    && Label::of(self.m.op(u)).merge() == Some(self.block)
            })
            .expect("selection header")
    }

    /// The terminator of the block starting at `label`.
    fn terminator_of(&self, label: SsaDef) -> SsaDef {
        self.m
            .iter_from(label)
            .skip(1)
            .find(|&d| self.m.opcode(d).is_terminator())
            .expect("block terminator")
    }
}
