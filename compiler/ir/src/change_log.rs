//! The change log of a [`crate::Module`]: while a client keeps it on
//! ([`crate::Module::start_change_log`]), every mutation records the op it touched — created,
//! rewritten, given a new operand, flags or type, moved or removed — and counts the changes to
//! control flow (labels, terminators, phis, function bounds, moves). A client takes a
//! [`ChangeMark`] and later asks what changed since ([`crate::Module::changes_since`]).
//!
//! The clean-up loop uses it to skip a pass whose last run left the module at that pass's
//! fixpoint when nothing changed since that could give it new work (the pass's own check, which
//! must over-approximate: a skip has to give exactly the module the run would give).
//!
//! Whether the log is on or not, every mutation also counts one edit: a module's
//! [`ModuleVersion`] (a process-unique module id, new for every copy, and the edit count) is
//! equal at two moments only if the module did not change in between, which is what an
//! analysis kept across passes checks before it is reused ([`crate::analysis::Analyses`]).

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
    dominance: u64,
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
    /// True if the blocks may dominate each other otherwise than at the mark: a label,
    /// terminator or function bound was touched or an op moved outside an edit that keeps
    /// dominance ([`crate::Module::keeping_dominance`]), or a pass left work undone. Phis alone
    /// do not count (they are touched ops).
    pub dominance_changed: bool,
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

/// The state of a module's contents: equal versions mean an unchanged module (the same
/// module, or the same copy, and no mutation in between).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModuleVersion {
    module: u64,
    edits: u64,
}

/// The log itself: the version counters, and the session (`None` unless a client started
/// it: one pointer in every module).
#[derive(Debug)]
pub(crate) struct ChangeLog {
    /// Process-unique id of the module (a copy gets a new one).
    module: u64,
    /// Mutations so far.
    edits: u64,
    session: Option<Box<Session>>,
    /// Inside [`crate::Module::keeping_dominance`]: block edits do not count as dominance
    /// changes.
    keeping_dominance: bool,
}

/// Module ids, unique in the process.
static NEXT_MODULE: AtomicU64 = AtomicU64::new(1);

impl Default for ChangeLog {
    fn default() -> ChangeLog {
        ChangeLog {
            module: NEXT_MODULE.fetch_add(1, Ordering::Relaxed),
            edits: 0,
            session: None,
            keeping_dominance: false,
        }
    }
}

/// A copy is another module: it gets its own id (its edits are not the original's).
impl Clone for ChangeLog {
    fn clone(&self) -> ChangeLog {
        ChangeLog {
            session: self.session.clone(),
            ..ChangeLog::default()
        }
    }
}

/// One session of the log.
#[derive(Clone, Debug)]
struct Session {
    id: u64,
    touched: Vec<SsaDef>,
    control: u64,
    /// Control changes that may change dominance ([`Changes::dominance_changed`]).
    dominance: u64,
    /// A pass said it left work undone, and nobody has taken the note yet
    /// ([`crate::Module::take_unsettled`]).
    unsettled: bool,
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
        self.session = Some(Box::new(Session {
            id: NEXT_SESSION.fetch_add(1, Ordering::Relaxed),
            touched: Vec::new(),
            control: 0,
            dominance: 0,
            unsettled: false,
        }));
    }

    /// Ends the session and drops the log.
    pub(crate) fn stop(&mut self) {
        self.session = None;
    }

    /// Counts a mutation that no op stands for (the module was emptied).
    pub(crate) fn note_edit(&mut self) {
        self.edits += 1;
    }

    /// The module's current version.
    pub(crate) fn version(&self) -> ModuleVersion {
        ModuleVersion {
            module: self.module,
            edits: self.edits,
        }
    }

    /// Records that `d`, an op with opcode `op`, was touched.
    #[inline]
    pub(crate) fn note(&mut self, d: SsaDef, op: OpCode) {
        self.edits += 1;
        if let Some(s) = &mut self.session {
            s.touched.push(d);
            if is_control(op) {
                s.control += 1;
                s.dominance += u64::from(op != OpCode::Phi && !self.keeping_dominance);
            }
        }
    }

    /// Notes a control-flow change that may change dominance and (while the log is on) that a
    /// pass left work undone, for [`ChangeLog::take_unsettled`].
    pub(crate) fn note_unsettled(&mut self) {
        self.edits += 1;
        if let Some(s) = &mut self.session {
            s.control += 1;
            s.dominance += 1;
            s.unsettled = true;
        }
    }

    /// Sets whether block edits keep dominance ([`crate::Module::keeping_dominance`]); returns
    /// the previous setting.
    pub(crate) fn set_keeping_dominance(&mut self, keep: bool) -> bool {
        std::mem::replace(&mut self.keeping_dominance, keep)
    }

    /// Whether a pass noted work left undone since the last call (always false while the log is
    /// off); clears the note.
    pub(crate) fn take_unsettled(&mut self) -> bool {
        self.session
            .as_mut()
            .is_some_and(|s| std::mem::take(&mut s.unsettled))
    }

    /// Records a control-flow change without an op (a move).
    pub(crate) fn note_control(&mut self) {
        self.edits += 1;
        if let Some(s) = &mut self.session {
            s.control += 1;
            s.dominance += u64::from(!self.keeping_dominance);
        }
    }

    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        self.session.is_some()
    }

    pub(crate) fn mark(&self, id_bound: usize) -> Option<ChangeMark> {
        let s = self.session.as_ref()?;
        Some(ChangeMark {
            session: s.id,
            touched: s.touched.len(),
            control: s.control,
            dominance: s.dominance,
            id_bound,
        })
    }

    pub(crate) fn since(&self, mark: ChangeMark, id_bound: usize) -> Option<Changes<'_>> {
        let s = self.session.as_ref()?;
        let valid = mark.session == s.id && mark.touched <= s.touched.len();
        valid.then(|| Changes {
            touched: &s.touched[mark.touched..],
            control_changed: s.control != mark.control,
            dominance_changed: s.dominance != mark.dominance,
            id_bound_at_mark: mark.id_bound,
            id_bound,
        })
    }
}
