//! The module's change log: every mutation records the op it touched while the log is on;
//! control-flow changes are counted; marks belong to one session.

use irc_ir::{Builder, Module, Op, OpCode, Operand, ScalarType, SsaDef, Type};

fn void(op: OpCode) -> Op {
    Op::new(op, Type::void())
}

/// `Function; Label; a = FAdd c c; n = FNeg a; Return; FunctionEnd` with `c = f32 1.0`.
fn small() -> (Module, SsaDef, SsaDef, SsaDef, SsaDef) {
    let mut m = Module::new();
    let mut b = Builder::new(&mut m);
    b.add(void(OpCode::Function));
    let label = b.add(void(OpCode::Label).lit(0));
    let c = b.const_f32(1.0);
    let a = b.add(Op::new(OpCode::FAdd, ScalarType::F32).arg(c).arg(c));
    let n = b.add(Op::new(OpCode::FNeg, ScalarType::F32).arg(a));
    b.add(void(OpCode::Return));
    b.add(void(OpCode::FunctionEnd));
    (m, label, c, a, n)
}

fn touched(m: &Module, mark: irc_ir::ChangeMark) -> Vec<SsaDef> {
    m.changes_since(mark)
        .expect("same session")
        .touched
        .to_vec()
}

#[test]
fn mutations_are_logged_only_while_the_log_is_on() {
    let (mut m, _, c, a, n) = small();
    assert_eq!(m.change_mark(), None);
    m.set_flags(a, irc_ir::OpFlags::PRECISE);
    m.start_change_log();
    let start = m.change_mark().expect("on");
    assert!(touched(&m, start).is_empty());

    m.set_operand(a, 1, Operand::Ref(c));
    m.set_flags(n, irc_ir::OpFlags::NONE);
    m.set_type(n, Type::scalar(ScalarType::F32));
    assert_eq!(touched(&m, start), vec![a, n, n]);

    let mark = m.change_mark().expect("on");
    let two = Builder::new(&mut m).const_f32(2.0);
    m.replace_all_uses(c, two);
    m.rewrite(n, Op::new(OpCode::FAbs, ScalarType::F32).arg(a));
    let changes = m.changes_since(mark).expect("same session");
    assert_eq!(changes.touched, &[two, a, n, n]);
    assert!(changes.created(two) && !changes.created(a));
    assert!(
        !changes.control_changed,
        "no label, terminator or phi touched"
    );
    let mut asked = Vec::new();
    assert!(changes.all_distinct(|d| {
        asked.push(d);
        true
    }));
    assert_eq!(asked, vec![two, a, n], "each touched op asked once");
    assert!(!changes.all_distinct(|d| d != a), "stops at a failing op");

    let mark = m.change_mark().expect("on");
    m.replace_all_uses(n, a);
    m.remove(n);
    assert!(touched(&m, mark).ends_with(&[n]));

    m.stop_change_log();
    assert_eq!(m.change_mark(), None);
    assert!(m.changes_since(start).is_none());
}

#[test]
fn control_flow_changes_are_counted() {
    let (mut m, label, _, a, n) = small();
    m.start_change_log();
    let mark = m.change_mark().expect("on");
    m.move_before(n, a);
    assert!(m.changes_since(mark).expect("on").control_changed, "a move");

    let mark = m.change_mark().expect("on");
    m.insert_before(a, void(OpCode::Label).lit(1));
    assert!(
        m.changes_since(mark).expect("on").control_changed,
        "a label"
    );

    let mark = m.change_mark().expect("on");
    m.set_operand(label, 0, Operand::Lit(2));
    assert!(m.changes_since(mark).expect("on").control_changed);

    let mark = m.change_mark().expect("on");
    m.note_unsettled();
    let changes = m.changes_since(mark).expect("on");
    assert!(changes.control_changed && changes.touched.is_empty());
    // The note is also kept until taken (a mark taken after the pass's run would miss it).
    assert!(m.take_unsettled());
    assert!(!m.take_unsettled());
}

#[test]
fn marks_of_an_earlier_session_are_not_valid() {
    let (mut m, _, _, a, _) = small();
    m.start_change_log();
    let old = m.change_mark().expect("on");
    m.start_change_log();
    assert!(m.changes_since(old).is_none());
    let mark = m.change_mark().expect("on");
    m.set_flags(a, irc_ir::OpFlags::PRECISE);
    assert_eq!(touched(&m, mark), vec![a]);
}

#[test]
fn dominance_changes_are_counted_apart_from_edits_that_keep_it() {
    let (mut m, label, _, a, n) = small();
    m.start_change_log();

    // A move or a label touched outside `keeping_dominance` may change dominance.
    let mark = m.change_mark().expect("on");
    m.move_before(n, a);
    let changes = m.changes_since(mark).expect("on");
    assert!(
        changes.control_changed && changes.dominance_changed,
        "a move"
    );

    // The same edits inside it are control changes that keep dominance.
    let mark = m.change_mark().expect("on");
    m.keeping_dominance(|m| {
        m.move_before(a, n);
        m.set_operand(label, 0, Operand::Lit(2));
    });
    let changes = m.changes_since(mark).expect("on");
    assert!(changes.control_changed && !changes.dominance_changed);
    assert_eq!(changes.touched, &[a, label], "still listed as touched");

    // The setting ends with the edit.
    let mark = m.change_mark().expect("on");
    m.set_operand(label, 0, Operand::Lit(0));
    assert!(m.changes_since(mark).expect("on").dominance_changed);

    // A pass that left work undone counts as a dominance change, even inside.
    let mark = m.change_mark().expect("on");
    m.keeping_dominance(|m| m.note_unsettled());
    assert!(m.changes_since(mark).expect("on").dominance_changed);
    assert!(m.take_unsettled());
}
