//! One test per rule: the rule firing with its message on a small module, and a valid
//! counterpart passing.

use super::verify;
use crate::analysis::{functions, Cfg, DomTree};
use crate::{Builder, Module, Op, OpCode, ScalarType, SsaDef, Type};
use cranelift_entity::EntityRef;

const F32: ScalarType = ScalarType::F32;
const U32: ScalarType = ScalarType::U32;

fn void() -> Type {
    Type::void()
}
fn op(o: OpCode, ty: impl Into<Type>) -> Op {
    Op::new(o, ty)
}
fn label(m: &mut Module) -> SsaDef {
    m.add(op(OpCode::Label, void()).lit(0))
}

/// A module with an entry point and an open `main` function (no Label yet).
fn start() -> (Module, SsaDef, SsaDef) {
    let mut m = Module::new();
    let f = m.add(op(OpCode::Function, void()));
    let ep = m.add(op(OpCode::EntryPoint, void()).arg(f).lit(1));
    (m, ep, f)
}

fn finish(m: &mut Module) {
    m.add(op(OpCode::Return, void()));
    m.add(op(OpCode::FunctionEnd, void()));
}

fn messages(m: &Module) -> Vec<String> {
    match verify(m) {
        Ok(()) => vec![],
        Err(e) => e.iter().map(|e| e.to_string()).collect(),
    }
}

#[track_caller]
fn assert_ok(m: &Module) {
    let msgs = messages(m);
    assert!(msgs.is_empty(), "unexpected errors:\n{}", msgs.join("\n"));
}

#[track_caller]
fn assert_err(m: &Module, want: &str) {
    let msgs = messages(m);
    assert!(
        msgs.iter().any(|e| e.contains(want)),
        "expected `{want}`, got:\n{}",
        msgs.join("\n")
    );
}

/// A structured module whose body is `body(m)` in one block.
fn structured(body: impl FnOnce(&mut Module)) -> Module {
    let (mut m, _, _) = start();
    label(&mut m);
    body(&mut m);
    finish(&mut m);
    m
}

/// A raw module whose body is `body(m)`.
fn raw(body: impl FnOnce(&mut Module, SsaDef)) -> Module {
    let (mut m, ep, _) = start();
    body(&mut m, ep);
    m.add(op(OpCode::FunctionEnd, void()));
    m
}

#[test]
fn minimal_modules_pass() {
    assert_ok(&structured(|_| {}));
    assert_ok(&raw(|_, _| {}));
}

#[test]
fn entry_point_rules() {
    let mut m = Module::new();
    m.add(op(OpCode::Function, void()));
    m.add(op(OpCode::FunctionEnd, void()));
    assert_err(&m, "module has no EntryPoint");

    let (mut m, _, f) = start();
    m.add(op(OpCode::EntryPoint, void()).arg(f).lit(2));
    m.add(op(OpCode::FunctionEnd, void()));
    assert_err(&m, "second EntryPoint");

    let mut m = Module::new();
    let c = Builder::new(&mut m).const_u32(1);
    m.add(op(OpCode::EntryPoint, void()).arg(c).lit(1));
    assert_err(
        &m,
        "operand 0 of EntryPoint must be a Function, found %1 (Constant)",
    );
}

#[test]
fn operand_count_and_literal_positions() {
    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::FAdd, F32).arg(a));
    });
    assert_err(&m, "FAdd has 1 operands, expected 2..2");

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::FAdd, F32).arg(a).lit(3));
    });
    assert_err(&m, "operand 1 of FAdd is a literal, expected a reference");

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::FAdd, F32).arg(a).arg(a));
    });
    assert_ok(&m);
}

#[test]
fn references_must_be_live_and_not_null() {
    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::FAdd, F32).arg(a).arg(SsaDef::new(999)));
    });
    assert_err(&m, "operand 1 references %1000, which does not exist");

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::FAdd, F32).arg(a).arg(None));
    });
    assert_err(&m, "operand 1 of FAdd must not be null");
}

#[test]
fn definition_before_use() {
    let (mut m, _, _) = start();
    label(&mut m);
    let one = Builder::new(&mut m).const_f32(1.0);
    let ret = m.add(op(OpCode::Return, void()));
    m.add(op(OpCode::FunctionEnd, void()));
    let b = m.insert_before(ret, op(OpCode::FAdd, F32).arg(one).arg(one));
    let a = m.insert_before(b, op(OpCode::FAdd, F32).arg(one).arg(one));
    assert_ok(&m);
    m.set_operand(a, 1, b.into());
    assert_err(
        &m,
        &format!("operand 1 references {b}, which is defined later"),
    );
}

#[test]
fn reference_kinds() {
    let m = structured(|m| {
        let c = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::TmpLoad, F32).arg(c));
    });
    assert_err(
        &m,
        "operand 0 of TmpLoad must be a DclTmp, found %4 (Constant)",
    );

    let (mut m, _, _) = start();
    label(&mut m);
    let c = Builder::new(&mut m).const_bool(true);
    m.add(op(OpCode::Branch, void()).arg(c));
    m.add(op(OpCode::FunctionEnd, void()));
    assert_err(&m, "operand 0 of Branch must be a Label");

    let (mut m, _, _) = start();
    label(&mut m);
    let sel = Builder::new(&mut m).const_u32(0);
    let sw = m.add(
        op(OpCode::Switch, void())
            .arg(sel)
            .arg(sel)
            .arg(sel)
            .arg(sel),
    );
    m.add(op(OpCode::FunctionEnd, void()));
    let l = m.insert_after(sw, op(OpCode::Label, void()).lit(0));
    m.set_operand(sw, 1, l.into());
    m.set_operand(sw, 3, l.into());
    m.insert_after(l, op(OpCode::Return, void()));
    assert_ok(&m);
    let x = m.insert_before(sw, op(OpCode::IAdd, U32).arg(sel).arg(sel));
    m.set_operand(sw, 2, x.into());
    assert_err(&m, "operand 2 of Switch must be a Constant");
}

#[test]
fn params_and_calls() {
    let (mut m, _, main) = start();
    let p = m.add(op(OpCode::DclParam, F32));
    let q = m.add(op(OpCode::DclParam, F32));
    label(&mut m);
    let one = Builder::new(&mut m).const_f32(1.0);
    // Operand 0 is a placeholder until the callee exists.
    let call = op(OpCode::FunctionCall, F32).arg(one).arg(one);
    let call = m.add(call);
    finish(&mut m);
    let g = m.add(op(OpCode::Function, F32).arg(p));
    label(&mut m);
    let v = m.add(op(OpCode::ParamLoad, F32).arg(g).arg(p));
    m.add(op(OpCode::Return, void()).arg(v));
    m.add(op(OpCode::FunctionEnd, void()));
    m.set_operand(call, 0, g.into());
    assert_ok(&m);

    let mut bad = m.clone();
    bad.set_operand(v, 1, q.into());
    assert_err(&bad, &format!("{q} is not a parameter of function {g}"));
    let mut bad = m.clone();
    bad.set_operand(v, 0, main.into());
    assert_err(
        &bad,
        &format!("ParamLoad names function {main}, but is not inside it"),
    );
    let mut bad = m.clone();
    let mut c = bad.op(call).clone();
    c.operands.truncate(1);
    bad.rewrite(call, c);
    assert_err(&bad, "passes 0 arguments, the function has 1 parameters");
}

#[test]
fn arithmetic_types() {
    let m = structured(|m| {
        let a = Builder::new(m).const_u32(1);
        m.add(op(OpCode::FAdd, U32).arg(a).arg(a));
    });
    assert_err(
        &m,
        "FAdd must have a float scalar or vector type, found u32",
    );

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        let h = Builder::new(m).const_f16(half::f16::ONE);
        m.add(op(OpCode::FMul, F32).arg(a).arg(h));
    });
    assert_err(
        &m,
        "operand 1 of FMul has type f16, expected f32 (the result type)",
    );

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::IAdd, F32).arg(a).arg(a));
    });
    assert_err(&m, "IAdd must have an integer scalar or vector type");

    let m = structured(|m| {
        let a = Builder::new(m).const_u32(1);
        m.add(op(OpCode::BNot, ScalarType::Bool).arg(a));
    });
    assert_err(&m, "operand 0 of BNot has type u32, expected bool");
}

#[test]
fn comparisons_and_select() {
    let m = structured(|m| {
        let a = Builder::new(m).constant(Type::vector(F32, 2), &[0, 0]);
        m.add(op(OpCode::FLt, ScalarType::Bool).arg(a).arg(a));
    });
    assert_err(&m, "FLt must have type boolx2, found bool");

    let m = structured(|m| {
        let a = Builder::new(m).constant(Type::vector(F32, 2), &[0, 0]);
        m.add(
            op(OpCode::FLt, Type::vector(ScalarType::Bool, 2))
                .arg(a)
                .arg(a),
        );
    });
    assert_ok(&m);

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::Select, F32).arg(a).arg(a).arg(a));
    });
    assert_err(&m, "operand 0 of Select must be a bool");
}

#[test]
fn conversions() {
    let m = structured(|m| {
        let a = Builder::new(m).const_u32(1);
        m.add(op(OpCode::ConvertFtoI, ScalarType::I32).arg(a));
    });
    assert_err(&m, "operand 0 of ConvertFtoI must be a float");

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::ConvertFtoI, Type::vector(U32, 2)).arg(a));
    });
    assert_err(&m, "ConvertFtoI changes the vector size");

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::Cast, ScalarType::U16).arg(a));
    });
    assert_err(&m, "Cast from f32 to u16 changes the bit size");

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(op(OpCode::Cast, U32).arg(a));
        let u = m.add(op(OpCode::Undef, ScalarType::Unknown));
        m.add(op(OpCode::ConsumeAs, F32).arg(u));
    });
    assert_ok(&m);
}

#[test]
fn composites() {
    let m = structured(|m| {
        let v = Builder::new(m).constant(Type::vector(F32, 4), &[0; 4]);
        let i = Builder::new(m).const_u32(2);
        m.add(op(OpCode::CompositeExtract, F32).arg(v).arg(i));
        m.add(op(OpCode::CompositeExtract, U32).arg(v).arg(i));
    });
    assert_err(&m, "CompositeExtract must have type f32, found u32");

    let m = structured(|m| {
        let v = Builder::new(m).constant(Type::vector(F32, 4), &[0; 4]);
        let i = Builder::new(m).const_u32(7);
        m.add(op(OpCode::CompositeExtract, F32).arg(v).arg(i));
    });
    assert_err(&m, "component 0 does not index into f32x4");

    let m = structured(|m| {
        let a = Builder::new(m).const_f32(1.0);
        m.add(
            op(OpCode::CompositeConstruct, Type::vector(F32, 4))
                .arg(a)
                .arg(a),
        );
        m.add(
            op(OpCode::CompositeConstruct, Type::vector(F32, 2))
                .arg(a)
                .arg(a),
        );
    });
    assert_err(&m, "CompositeConstruct of f32x4 needs 4 members, found 2");
}

#[test]
fn temporaries_and_outputs() {
    let (mut m, ep, _) = start();
    let t = m.add(op(OpCode::DclTmp, F32).arg(ep));
    let unk = m.add(op(OpCode::DclTmp, ScalarType::Unknown).arg(ep));
    let out = m.add(
        op(OpCode::DclOutput, Type::vector(F32, 4))
            .arg(ep)
            .lit(0)
            .lit(0),
    );
    let u = Builder::new(&mut m).const_u32(1);
    let x = Builder::new(&mut m).const_u32(0);
    m.add(op(OpCode::TmpStore, void()).arg(t).arg(u));
    let l = m.add(op(OpCode::TmpLoad, ScalarType::Unknown).arg(unk));
    m.add(op(OpCode::TmpStore, void()).arg(unk).arg(l));
    let v = m.add(op(OpCode::TmpLoad, F32).arg(t));
    m.add(op(OpCode::OutputStore, void()).arg(out).arg(x).arg(v));
    m.add(op(OpCode::OutputStore, void()).arg(out).arg(x).arg(u));
    m.add(op(OpCode::FunctionEnd, void()));
    let msgs = messages(&m);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(
        msgs[0].contains("operand 1 of TmpStore has type u32, expected f32 (the temporary's type)")
    );
    assert!(msgs[1].contains("OutputStore stored value has type u32, the addressed type is f32"));
}

#[test]
fn constants_and_returns() {
    let m = structured(|m| {
        m.add(op(OpCode::Constant, Type::vector(F32, 2)).lit(0));
    });
    assert_err(&m, "Constant of type f32x2 needs 2 literals, found 1");

    let (mut m, _, f) = start();
    let mut fop = m.op(f).clone();
    fop.ty = F32.into();
    m.rewrite(f, fop);
    label(&mut m);
    let u = Builder::new(&mut m).const_u32(1);
    m.add(op(OpCode::Return, void()).arg(u));
    m.add(op(OpCode::FunctionEnd, void()));
    assert_err(&m, "Return value has type u32, the function returns f32");
}

#[test]
fn function_ranges() {
    let (mut m, _, _) = start();
    label(&mut m);
    m.add(op(OpCode::Return, void()));
    assert_err(&m, "function has no FunctionEnd");

    let (mut m, _, _) = start();
    m.add(op(OpCode::FunctionEnd, void()));
    m.add(op(OpCode::Demote, void()));
    assert_err(&m, "Demote outside of any function");
}

#[test]
fn blocks_and_terminators() {
    let (mut m, _, _) = start();
    label(&mut m);
    m.add(op(OpCode::FunctionEnd, void()));
    assert_err(&m, "block has no terminator");

    let m = structured(|m| {
        m.add(op(OpCode::Return, void()));
        m.add(op(OpCode::Demote, void()));
    });
    assert_err(&m, "Demote between a terminator and the next Label");

    let (mut m, _, _) = start();
    let c = Builder::new(&mut m).const_f32(1.0);
    m.add(op(OpCode::FNeg, F32).arg(c));
    label(&mut m);
    finish(&mut m);
    assert_err(&m, "FNeg before the first Label of the function");
}

/// `entry: Label[construct] -> cond branch to a / merge; a: Branch merge; merge: Return`.
fn diamond(construct: u64, refs: usize) -> (Module, [SsaDef; 4]) {
    let (mut m, _, _) = start();
    let entry = m.add(op(OpCode::Label, void()).lit(construct));
    let c = Builder::new(&mut m).const_bool(true);
    let br = m.add(op(OpCode::BranchConditional, void()).arg(c).arg(c).arg(c));
    let a = label(&mut m);
    let jump = m.add(op(OpCode::Branch, void()).arg(a));
    let merge = label(&mut m);
    finish(&mut m);
    m.set_operand(br, 1, a.into());
    m.set_operand(br, 2, merge.into());
    m.set_operand(jump, 0, merge.into());
    let mut l = m.op(entry).clone();
    l.operands.clear();
    for _ in 0..refs {
        l.operands.push(merge.into());
    }
    l.operands.push(crate::Operand::Lit(construct));
    m.rewrite(entry, l);
    (m, [entry, a, merge, br])
}

#[test]
fn label_constructs() {
    assert_ok(&diamond(1, 1).0);
    assert_err(
        &diamond(1, 0).0,
        "StructuredSelection label takes 1 label operands, found 0",
    );
    assert_err(
        &diamond(0, 1).0,
        "None label takes 0 label operands, found 1",
    );
    assert_err(
        &diamond(2, 1).0,
        "StructuredLoop label takes 2 label operands, found 1",
    );
}

#[test]
fn back_edges_only_to_loop_headers() {
    // header: Label merge cont Loop; Branch body; body: Branch cont; cont: Branch header; merge: Return
    let (mut m, _, _) = start();
    let header = m.add(op(OpCode::Label, void()).lit(0));
    let b0 = m.add(op(OpCode::Branch, void()).arg(header));
    let body = label(&mut m);
    let b1 = m.add(op(OpCode::Branch, void()).arg(body));
    let cont = label(&mut m);
    m.add(op(OpCode::Branch, void()).arg(header));
    let merge = label(&mut m);
    finish(&mut m);
    m.set_operand(b0, 0, body.into());
    m.set_operand(b1, 0, cont.into());
    assert_err(
        &m,
        &format!("back edge to {header}, which is not a StructuredLoop header"),
    );
    let l = op(OpCode::Label, void()).arg(merge).arg(cont).lit(2);
    m.rewrite(header, l);
    assert_ok(&m);
}

#[test]
fn phis_match_predecessors() {
    let (mut m, [entry, a, merge, _]) = diamond(1, 1);
    let one = Builder::new(&mut m).const_f32(1.0);
    let two = Builder::new(&mut m).const_f32(2.0);
    let next = m.next(merge).unwrap();
    let phi = m.insert_before(
        next,
        op(OpCode::Phi, F32).arg(entry).arg(one).arg(a).arg(two),
    );
    assert_ok(&m);
    let mut p = m.op(phi).clone();
    p.operands.truncate(2);
    m.rewrite(phi, p);
    assert_err(&m, &format!("no incoming value for predecessor {a}"));
    let p = op(OpCode::Phi, F32)
        .arg(entry)
        .arg(one)
        .arg(a)
        .arg(two)
        .arg(merge)
        .arg(two);
    m.rewrite(phi, p);
    assert_err(
        &m,
        &format!("incoming block {merge} is not a predecessor of {merge}"),
    );
}

#[test]
fn phi_values_dominate_their_predecessor() {
    let (mut m, [entry, a, merge, _]) = diamond(1, 1);
    let one = Builder::new(&mut m).const_f32(1.0);
    let in_a = m.insert_after(a, op(OpCode::FNeg, F32).arg(one));
    let next = m.next(merge).unwrap();
    let phi = m.insert_before(
        next,
        op(OpCode::Phi, F32).arg(entry).arg(one).arg(a).arg(in_a),
    );
    assert_ok(&m);
    m.set_operand(phi, 1, in_a.into());
    assert_err(
        &m,
        &format!("incoming value {in_a} does not dominate the end of {entry}"),
    );
}

#[test]
fn uses_are_dominated() {
    let (mut m, [_, a, merge, _]) = diamond(1, 1);
    let one = Builder::new(&mut m).const_f32(1.0);
    let in_a = m.insert_after(a, op(OpCode::FNeg, F32).arg(one));
    let next = m.next(merge).unwrap();
    let user = m.insert_before(next, op(OpCode::FNeg, F32).arg(one));
    assert_ok(&m);
    m.set_operand(user, 0, in_a.into());
    assert_err(
        &m,
        &format!("operand 0 uses {in_a}, whose definition does not dominate this use"),
    );
}

#[test]
fn scoped_nesting() {
    let ok = raw(|m, _| {
        let c = Builder::new(m).const_bool(true);
        let i = m.add(op(OpCode::ScopedIf, void()).arg(None).arg(c));
        m.add(op(OpCode::ScopedElse, void()).arg(i));
        let e = m.add(op(OpCode::ScopedEndIf, void()).arg(i));
        m.set_operand(i, 0, e.into());
        let l = m.add(op(OpCode::ScopedLoop, void()).arg(None));
        m.add(op(OpCode::ScopedLoopBreak, void()).arg(l));
        let el = m.add(op(OpCode::ScopedEndLoop, void()).arg(l));
        m.set_operand(l, 0, el.into());
    });
    assert_ok(&ok);

    let m = raw(|m, _| {
        let l = m.add(op(OpCode::ScopedLoop, void()).arg(None));
        let c = Builder::new(m).const_bool(true);
        let i = m.add(op(OpCode::ScopedIf, void()).arg(None).arg(c));
        let el = m.add(op(OpCode::ScopedEndLoop, void()).arg(l));
        m.set_operand(l, 0, el.into());
        let e = m.add(op(OpCode::ScopedEndIf, void()).arg(i));
        m.set_operand(i, 0, e.into());
    });
    assert_err(&m, "but the innermost open scope is ScopedIf");

    let m = raw(|m, _| {
        m.add(op(OpCode::ScopedLoop, void()).arg(None));
    });
    assert_err(&m, "operand 0 of ScopedLoop must not be null");

    let m = raw(|m, _| {
        let l = m.add(op(OpCode::ScopedLoop, void()).arg(None));
        let el = m.add(op(OpCode::ScopedEndLoop, void()).arg(l));
        m.set_operand(l, 0, el.into());
        m.add(op(OpCode::ScopedLoopBreak, void()).arg(l));
    });
    assert_err(&m, "ScopedLoopBreak outside of any ScopedLoop");

    let m = raw(|m, _| {
        let l = m.add(op(OpCode::ScopedLoop, void()).arg(None));
        let other = m.add(op(OpCode::ScopedLoop, void()).arg(None));
        let el = m.add(op(OpCode::ScopedEndLoop, void()).arg(other));
        m.set_operand(other, 0, el.into());
        m.set_operand(l, 0, el.into());
    });
    assert_err(&m, "ScopedLoop is never closed");
}

#[test]
fn structured_and_scoped_do_not_mix() {
    let m = structured(|m| {
        let l = m.add(op(OpCode::ScopedLoop, void()).arg(None));
        let el = m.add(op(OpCode::ScopedEndLoop, void()).arg(l));
        m.set_operand(l, 0, el.into());
    });
    assert_err(
        &m,
        "function mixes structured (Label) and scoped control flow",
    );
}

#[test]
fn unknown_types_are_accepted_where_raw_ir_uses_them() {
    let (mut m, ep, _) = start();
    let t = m.add(op(OpCode::DclTmp, ScalarType::Unknown).arg(ep));
    let v = m.add(op(OpCode::TmpLoad, ScalarType::Unknown).arg(t));
    let c = Builder::new(&mut m).const_bool(true);
    let s = m.add(op(OpCode::Select, ScalarType::Unknown).arg(c).arg(v).arg(v));
    let f = m.add(op(OpCode::ConsumeAs, F32).arg(s));
    let u = m.add(op(OpCode::ConsumeAs, ScalarType::Unknown).arg(f));
    m.add(op(OpCode::TmpStore, void()).arg(t).arg(u));
    m.add(op(OpCode::FunctionEnd, void()));
    assert_ok(&m);
}

#[test]
fn errors_display_with_op() {
    let m = structured(|m| {
        let a = Builder::new(m).const_u32(1);
        m.add(op(OpCode::FAdd, U32).arg(a).arg(a));
    });
    let e = verify(&m).unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e.0[0].def, Some(SsaDef::new(4)));
    assert_eq!(
        e.to_string(),
        "%5: FAdd must have a float scalar or vector type, found u32"
    );
    assert_eq!(e.messages_for(SsaDef::new(4)).len(), 1);
}

#[test]
fn cfg_and_dominators() {
    let (m, [entry, a, merge, _]) = diamond(1, 1);
    let f = functions(&m)[0];
    let cfg = Cfg::build(&m, f);
    let dom = DomTree::compute(&cfg);
    let (be, ba, bm) = (
        cfg.block_of_label(entry).unwrap(),
        cfg.block_of_label(a).unwrap(),
        cfg.block_of_label(merge).unwrap(),
    );
    assert_eq!(cfg.entry(), Some(be));
    assert_eq!(cfg.succs(be), &[ba, bm]);
    assert_eq!(cfg.preds(bm), &[be, ba]);
    assert!(dom.dominates(be, bm) && dom.dominates(be, ba));
    assert!(!dom.dominates(ba, bm));
    assert_eq!(dom.idom(bm), Some(be));
    assert_eq!(dom.reverse_post_order()[0], be);
    assert!(cfg.stray_ops().is_empty());
}
