//! The change log of a [`crate::Module`]: while a client keeps it on
//! ([`crate::Module::start_change_log`]), every mutation records the op it touched — created,
//! rewritten, given a new operand, flags or type, moved or removed — and counts the changes to
//! control flow (labels, terminators, phis, function bounds, moves). A client takes a
//! [`ChangeMark`] and later asks what changed since ([`crate::Module::changes_since`]).
//!
//! The clean-up loop uses it to skip a pass whose last run left the module at that pass's
//! fixpoint when nothing changed since that could give it new work (the pass's own check, which
//! must over-approximate: a skip has to give exactly the module the run would give).

use crate::entities::SsaDef;
use crate::opcode::OpCode;
use cranelift_entity::EntityRef;
use std::sync::atomic::{AtomicU64, Ordering};

/// A position in the change log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeMark {
    /// The log session the mark belongs to (a mark of an earlier session is not valid).
    session: u64,
    touched: usize,
    control: u64,
    /// The module's id bound at the mark: ops at or above it were created since.
    id_bound: usize,
}

/// What changed since a [`ChangeMark`].
#[derive(Clone, Copy, Debug)]
pub struct Changes<'a> {
    /// The ops touched, in order, with repeats; some may have been removed since.
    pub touched: &'a [SsaDef],
    /// True if control flow changed (a label, terminator, phi or function bound was touched, or
    /// an op moved), or a pass said it left work undone ([`crate::Module::note_unsettled`]).
    pub control_changed: bool,
    /// The id bound at the mark and now.
    id_bound_at_mark: usize,
    id_bound: usize,
}

impl Changes<'_> {
    /// True if `d` was created since the mark (all its users were created or touched since).
    pub fn created(&self, d: SsaDef) -> bool {
        d.index() >= self.id_bound_at_mark
    }
    /// True if `f` holds for every touched op, asking each once (in order of first touch),
    /// stopping at the first that fails.
    pub fn all_distinct(&self, mut f: impl FnMut(SsaDef) -> bool) -> bool {
        let mut seen = vec![false; self.id_bound];
        self.touched.iter().all(|&d| {
            let first = !std::mem::replace(&mut seen[d.index()], true);
            !first || f(d)
        })
    }
}

/// The log itself: `None` unless a client started it (one pointer in every module).
#[derive(Clone, Debug, Default)]
pub(crate) struct ChangeLog(Option<Box<Session>>);

/// One session of the log.
#[derive(Clone, Debug)]
struct Session {
    id: u64,
    touched: Vec<SsaDef>,
    control: u64,
}

/// Session ids, unique in the process (a mark names its session).
static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

/// True for the opcodes whose changes change control flow or phis.
pub(crate) fn is_control(op: OpCode) -> bool {
    matches!(
        op,
        OpCode::Label | OpCode::Phi | OpCode::Function | OpCode::FunctionEnd
    ) || op.is_terminator()
}

impl ChangeLog {
    /// Starts a new session with an empty log.
    pub(crate) fn start(&mut self) {
        self.0 = Some(Box::new(Session {
            id: NEXT_SESSION.fetch_add(1, Ordering::Relaxed),
            touched: Vec::new(),
            control: 0,
        }));
    }

    /// Ends the session and drops the log.
    pub(crate) fn stop(&mut self) {
        self.0 = None;
    }

    /// Records that `d` was touched (`control`: a control-flow change).
    #[inline]
    pub(crate) fn note(&mut self, d: SsaDef, control: bool) {
        if let Some(s) = &mut self.0 {
            s.touched.push(d);
            s.control += u64::from(control);
        }
    }

    /// Records a control-flow change without an op.
    pub(crate) fn note_control(&mut self) {
        if let Some(s) = &mut self.0 {
            s.control += 1;
        }
    }

    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        self.0.is_some()
    }

    pub(crate) fn mark(&self, id_bound: usize) -> Option<ChangeMark> {
        let s = self.0.as_ref()?;
        Some(ChangeMark {
            session: s.id,
            touched: s.touched.len(),
            control: s.control,
            id_bound,
        })
    }

    pub(crate) fn since(&self, mark: ChangeMark, id_bound: usize) -> Option<Changes<'_>> {
        let s = self.0.as_ref()?;
        let valid = mark.session == s.id && mark.touched <= s.touched.len();
        valid.then(|| Changes {
            touched: &s.touched[mark.touched..],
            control_changed: s.control != mark.control,
            id_bound_at_mark: mark.id_bound,
            id_bound,
        })
    }
}
