//! Behaviour of module storage and the builder: order, insertion, use lists, constant
//! uniqueness, removal, rewriting.

use irc_ir::{Builder, Module, Op, OpCode, Operand, Position, ScalarType, SsaDef, Type};

fn void(op: OpCode) -> Op {
    Op::new(op, Type::void())
}

/// `Function; Label; a = FAdd c c; Return; FunctionEnd` with `c = f32 1.0`.
fn small() -> (Module, SsaDef, SsaDef, SsaDef) {
    let mut m = Module::new();
    let mut b = Builder::new(&mut m);
    let f = b.add(void(OpCode::Function));
    b.add(void(OpCode::Label).lit(0));
    let c = b.const_f32(1.0);
    let a = b.add(Op::new(OpCode::FAdd, ScalarType::F32).arg(c).arg(c));
    b.add(void(OpCode::Return));
    b.add(void(OpCode::FunctionEnd));
    (m, f, c, a)
}

#[test]
fn declarations_precede_code_whatever_the_insertion_order() {
    let (m, f, c, a) = small();
    let order: Vec<SsaDef> = m.iter().collect();
    assert_eq!(
        order[0], c,
        "the constant was added after code but is a declaration"
    );
    assert_eq!(order[1], f);
    assert!(m.precedes(c, f));
    assert!(m.precedes(f, a));
    assert!(!m.precedes(a, f));
    assert_eq!(m.declaration_count(), 1);
    assert_eq!(m.len(), 6);
}

#[test]
fn constants_and_undefs_are_unique() {
    let (mut m, _, c, _) = small();
    let mut b = Builder::new(&mut m);
    assert_eq!(b.const_f32(1.0), c);
    assert_ne!(b.const_f32(-1.0), c);
    assert_ne!(b.const_u32(0x3f80_0000), c, "same bits, other type");
    let u1 = b.undef(ScalarType::F32);
    assert_eq!(b.undef(ScalarType::F32), u1);
    assert_ne!(b.undef(ScalarType::U32), u1);
}

#[test]
fn use_lists_follow_every_mutation() {
    let (mut m, _, c, a) = small();
    assert_eq!(m.uses(c), &[a, a]);
    let two = Builder::new(&mut m).const_f32(2.0);
    m.set_operand(a, 1, Operand::Ref(two));
    assert_eq!(m.uses(c), &[a]);
    assert_eq!(m.uses(two), &[a]);
    m.replace_all_uses(c, two);
    assert!(m.uses(c).is_empty());
    assert_eq!(m.uses(two), &[a, a]);
    assert_eq!(
        m.op(a).operands.as_slice(),
        &[Operand::Ref(two), Operand::Ref(two)]
    );
    m.rewrite(a, Op::new(OpCode::FNeg, ScalarType::F32).arg(c));
    assert_eq!(m.uses(two), &[] as &[SsaDef]);
    assert_eq!(m.uses(c), &[a]);
}

#[test]
fn insertion_keeps_order_and_ids_stable() {
    let (mut m, _, c, a) = small();
    let before = m.insert_before(a, Op::new(OpCode::FMul, ScalarType::F32).arg(c).arg(c));
    let after = m.insert_after(a, Op::new(OpCode::FSub, ScalarType::F32).arg(a).arg(c));
    let code: Vec<OpCode> = m.code().map(|d| m.opcode(d)).collect();
    use OpCode::*;
    assert_eq!(
        code,
        [Function, Label, FMul, FAdd, FSub, Return, FunctionEnd]
    );
    assert!(m.precedes(before, a) && m.precedes(a, after));
    assert_eq!(m.op(a).opcode, FAdd, "ids do not move");
}

#[test]
fn many_insertions_at_one_point_renumber_correctly() {
    let (mut m, _, c, a) = small();
    let mut inserted = Vec::new();
    // Always inserting right before `a` halves the same gap each time: forces renumbering.
    for _ in 0..100 {
        inserted.push(m.insert_before(a, Op::new(OpCode::FAbs, ScalarType::F32).arg(c)));
    }
    for w in inserted.windows(2) {
        assert!(m.precedes(w[0], w[1]));
    }
    assert!(m.precedes(*inserted.last().unwrap(), a));
    let seq: Vec<SsaDef> = m.code().collect();
    let pos = |d| seq.iter().position(|&x| x == d).unwrap();
    assert_eq!(pos(a), pos(inserted[99]) + 1);
}

#[test]
fn cursor_after_advances() {
    let (mut m, f, c, _) = small();
    let label = m.next(f).unwrap();
    let mut b = Builder::at(&mut m, Position::After(label));
    let x = b.add(Op::new(OpCode::FAbs, ScalarType::F32).arg(c));
    let y = b.add(Op::new(OpCode::FNeg, ScalarType::F32).arg(x));
    assert_eq!(b.position(), Position::After(y));
    assert_eq!(m.next(label), Some(x));
    assert_eq!(m.next(x), Some(y));
}

#[test]
fn removal_leaves_holes_and_takes_debug_names_along() {
    let (mut m, _, c, a) = small();
    let name = m.add(void(OpCode::DebugName).arg(a).string("sum"));
    let user = m.insert_after(a, Op::new(OpCode::FNeg, ScalarType::F32).arg(a));
    m.remove(user);
    m.remove(a);
    assert!(!m.is_live(a));
    assert!(!m.is_live(name), "the debug name of a removed op goes too");
    assert!(m.uses(c).is_empty());
    assert_eq!(
        m.len(),
        5,
        "six ops, plus name and user, minus user, sum and its name"
    );
    assert!(m.id_bound() > m.len());
    assert!(m.iter().all(|d| m.is_live(d)));
}

#[test]
#[should_panic(expected = "still used by")]
fn removing_a_used_op_is_an_invariant_failure() {
    let (mut m, _, c, _) = small();
    m.remove(c);
}

#[test]
fn from_ordered_rejects_bad_layouts() {
    let f = SsaDef::from_id(1).unwrap();
    let c = SsaDef::from_id(2).unwrap();
    let d = SsaDef::from_id(3).unwrap();
    let konst = Op::new(OpCode::Constant, ScalarType::U32).lit(1);
    let err = Module::from_ordered(vec![(f, void(OpCode::Function)), (c, konst.clone())]);
    assert!(matches!(
        err,
        Err(irc_ir::BuildError::DeclarationAfterCode { .. })
    ));
    let err = Module::from_ordered(vec![(c, konst.clone()), (d, konst.clone())]);
    assert!(matches!(
        err,
        Err(irc_ir::BuildError::DuplicateConstant { .. })
    ));
    let err = Module::from_ordered(vec![(c, konst.clone()), (c, konst.clone())]);
    assert!(matches!(err, Err(irc_ir::BuildError::DuplicateId { .. })));
    let err = Module::from_ordered(vec![(f, void(OpCode::Return).arg(d))]);
    assert!(matches!(err, Err(irc_ir::BuildError::DanglingRef { .. })));
    // Holes are fine: ids 1 and 3 only.
    let m = Module::from_ordered(vec![(f, konst), (d, void(OpCode::FunctionEnd))]).unwrap();
    assert_eq!(m.len(), 2);
    assert_eq!(m.id_bound(), 3);
}

#[test]
fn string_operands_pack_and_unpack() {
    let op = void(OpCode::DebugName)
        .arg(SsaDef::from_id(1).unwrap())
        .string("sampler_state");
    assert_eq!(op.operands.len(), 3);
    assert_eq!(
        op.string_from(irc_ir::format::slots::DebugName.name),
        "sampler_state"
    );
    assert!(op.is_consistent());
    let bad = void(OpCode::DebugName).lit(5).lit(6);
    assert!(!bad.is_consistent(), "operand 0 must be a reference");
}

#[test]
fn order_queries_agree_with_iteration_after_random_insertions() {
    let (mut m, _, c, a) = small();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut ops = vec![a];
    for _ in 0..3000 {
        let at = ops[(next() % ops.len() as u64) as usize];
        let op = Op::new(OpCode::FAbs, ScalarType::F32).arg(c);
        let d = if next() % 2 == 0 {
            m.insert_before(at, op)
        } else {
            m.insert_after(at, op)
        };
        ops.push(d);
    }
    let order: Vec<SsaDef> = m.code().collect();
    for w in order.windows(2) {
        assert!(m.precedes(w[0], w[1]), "{} must precede {}", w[0], w[1]);
    }
    let pos: std::collections::HashMap<SsaDef, usize> =
        order.iter().enumerate().map(|(i, &d)| (d, i)).collect();
    for _ in 0..3000 {
        let x = order[(next() % order.len() as u64) as usize];
        let y = order[(next() % order.len() as u64) as usize];
        assert_eq!(m.precedes(x, y), pos[&x] < pos[&y]);
    }
}

/// `removing_users_of` sets the long lists aside while `edit` runs and leaves exact lists:
/// the debug name stays listed throughout, removed users are gone, a user `edit` kept is
/// listed again (once per operand), and one `edit` rewrote is not listed twice.
#[test]
fn removing_users_of_leaves_exact_use_lists() {
    let (mut m, _, c, a) = small();
    let name = m.add(void(OpCode::DebugName).arg(c).string("one"));
    let neg = |m: &mut Module, x| m.insert_after(a, Op::new(OpCode::FNeg, ScalarType::F32).arg(x));
    let gone: Vec<SsaDef> = (0..40).map(|_| neg(&mut m, c)).collect();
    let rewritten = neg(&mut m, c);
    m.removing_users_of(&[c], |m| {
        assert_eq!(
            m.uses(c),
            &[name],
            "only the debug name is listed meanwhile"
        );
        for &g in &gone {
            m.remove(g);
        }
        m.rewrite(
            rewritten,
            Op::new(OpCode::FMul, ScalarType::F32).arg(c).arg(a),
        );
    });
    let mut listed = m.uses(c).to_vec();
    listed.sort_unstable();
    let mut expected = vec![a, a, name, rewritten];
    expected.sort_unstable();
    assert_eq!(listed, expected);
    // Removing the remaining users one by one finds each of their entries.
    m.remove(rewritten);
    m.remove(a);
    assert_eq!(m.uses(c), &[name]);
}

/// An `edit` that removes a def it left a user of breaks the use lists: caught at the end.
#[test]
#[should_panic(expected = "was removed while still used by")]
fn removing_users_of_catches_a_def_removed_before_its_users() {
    let (mut m, _, c, _) = small();
    m.removing_users_of(&[c], |m| m.remove(c));
}
