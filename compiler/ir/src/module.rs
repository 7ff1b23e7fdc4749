//! Module storage: what an op is, apart from where it is (Cranelift's `dfg`/`layout` split).
//!
//! Op data lives in a `PrimaryMap<SsaDef, Op>`; program order lives in two doubly linked lists —
//! declarations, then code — with sparse sequence numbers, so inserting never renumbers ids and
//! "does A come before B" is a comparison. Use lists are kept up to date by every mutation, one
//! entry per referencing operand. `Constant` and `Undef` ops are unique: [`Module::add`] returns
//! the existing def for an identical one.
//!
//! Removed ops leave a hole in the id space (ids are stable); the serializer renumbers densely.

use crate::change_log::{ChangeLog, ChangeMark, Changes, ModuleVersion};
use crate::entities::SsaDef;
use crate::op::{Op, Operand};
use crate::opcode::{Attrs, OpCode};
use crate::opcode_counts::{OpcodeCounts, TypeCounts};
use crate::types::Type;
use crate::uses::UseLists;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

const SEQ_STEP: u32 = 1 << 10;

const _: () = assert!(std::mem::size_of::<Node>() == 16);

/// Where an op is in program order, its opcode and whether its type mentions `?`: 16 bytes,
/// so that walks over the code that only look at opcodes read four nodes per cache line
/// instead of one op each (the op table's entries are six times larger). Measured on the
/// legalize pipeline: most of its first-level data-cache misses were such walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Node {
    prev: PackedOption<SsaDef>,
    next: PackedOption<SsaDef>,
    seq: u32,
    /// `ops[d].opcode`, kept in step by every write of the op table (`Unknown` for a hole or a
    /// removed op).
    opcode: OpCode,
    linked: bool,
    /// Whether `ops[d].ty` mentions the Unknown scalar `?`, kept in step like `opcode`.
    unknown_typed: bool,
}

impl Default for Node {
    fn default() -> Node {
        Node {
            prev: None.into(),
            next: None.into(),
            seq: 0,
            opcode: OpCode::Unknown,
            linked: false,
            unknown_typed: false,
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct List {
    /// Packed (a reserved id for none), so the module stays small.
    first: PackedOption<SsaDef>,
    last: PackedOption<SsaDef>,
    /// Number of ops (`u32`: ids are 32 bits; keeps the module small).
    len: u32,
}

/// Which of the two sections an op belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Declarations,
    Code,
}

impl Section {
    pub fn of(opcode: OpCode) -> Section {
        if opcode.is_declarative() {
            Section::Declarations
        } else {
            Section::Code
        }
    }
}

/// Error of [`Module::from_ordered`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("{def} is defined twice")]
    DuplicateId { def: SsaDef },
    #[error("{def} ({opcode}) is a declaration placed after code")]
    DeclarationAfterCode { def: SsaDef, opcode: OpCode },
    #[error("{second} duplicates constant {first}")]
    DuplicateConstant { first: SsaDef, second: SsaDef },
    #[error("{def} references {target}, which does not exist")]
    DanglingRef { def: SsaDef, target: SsaDef },
}

/// A DXBC-IR module.
#[derive(Debug, Default)]
pub struct Module {
    ops: PrimaryMap<SsaDef, Op>,
    nodes: SecondaryMap<SsaDef, Node>,
    uses: UseLists,
    decls: List,
    code: List,
    constants: FxHashMap<Op, SsaDef>,
    /// Live ops per opcode: presence queries without a walk ([`Module::contains_opcode`],
    /// [`Module::contains_class`]), and the common one-function module found at once
    /// ([`Module::sole_function`]).
    opcode_counts: OpcodeCounts,
    /// Live ops whose type mentions `?` ([`Module::unknown_typed_count`]) or a min-precision
    /// scalar ([`Module::min_precision_typed_count`]).
    type_counts: TypeCounts,
    /// The ops mutations touched, while a client keeps the log on ([`Module::start_change_log`]).
    log: ChangeLog,
}

/// The id bound [`Module::reserve_growth`] makes room for, for a module of `ids` ids.
fn growth_bound(ids: usize) -> usize {
    ids + ids / 2 + 16
}

/// A copy is made to be transformed (a pipeline runs on it): it gets room for the ops passes
/// add ([`Module::reserve_growth`]), as a module read from bytes does.
impl Clone for Module {
    fn clone(&self) -> Module {
        let mut m = Module {
            ops: self.ops.clone(),
            nodes: self.nodes.clone(),
            uses: self.uses.clone(),
            decls: self.decls,
            code: self.code,
            constants: self.constants.clone(),
            opcode_counts: self.opcode_counts.clone(),
            type_counts: self.type_counts,
            log: self.log.clone(),
        };
        m.reserve_growth();
        m
    }
}

impl Module {
    pub fn new() -> Module {
        Module::default()
    }

    /// Makes room for half as many new ops again as there are ids (plus a few), so that the
    /// first ops a pass adds do not copy the whole op table to grow it (one copy per module and
    /// pipeline, a few percent of a small shader's legalization).
    pub fn reserve_growth(&mut self) {
        let bound = growth_bound(self.ops.len());
        self.ops.reserve(bound - self.ops.len());
        self.nodes.resize(bound);
        self.uses.reserve_ids(bound);
    }

    /// Empties the module, keeping allocations.
    pub fn clear(&mut self) {
        self.ops.clear();
        self.nodes.clear();
        self.uses.clear();
        self.decls = List::default();
        self.code = List::default();
        self.constants.clear();
        self.opcode_counts.clear();
        self.type_counts = TypeCounts::default();
        self.log.stop();
        self.log.note_edit();
    }

    /// Builds a module from ops with given ids, in program order. Ids not listed become holes.
    /// Fails on a repeated id, a declaration after code, a duplicate constant/undef or a reference
    /// to an id that is not listed.
    pub fn from_ordered(entries: Vec<(SsaDef, Op)>) -> Result<Module, BuildError> {
        let mut m = Module::new();
        m.fill_ordered(entries)?;
        Ok(m)
    }

    /// [`Module::from_ordered`] into this module, which is cleared first: its allocations are
    /// reused (for embedders compiling shader after shader, DESIGN rule 14). On an error the
    /// module is left partly filled; clear or refill it before use.
    pub fn fill_ordered(&mut self, entries: Vec<(SsaDef, Op)>) -> Result<(), BuildError> {
        self.clear();
        let m = self;
        let bound = entries
            .iter()
            .map(|(d, _)| d.index() + 1)
            .max()
            .unwrap_or(0);
        m.ops.reserve(growth_bound(bound));
        for _ in 0..bound {
            m.ops.push(Op::new(OpCode::Unknown, Type::void()));
        }
        m.reserve_growth();
        let mut seen_code = false;
        for (def, op) in entries {
            if m.nodes[def].linked {
                return Err(BuildError::DuplicateId { def });
            }
            let section = Section::of(op.opcode);
            if section == Section::Code {
                seen_code = true;
            } else if seen_code {
                return Err(BuildError::DeclarationAfterCode {
                    def,
                    opcode: op.opcode,
                });
            }
            if op.opcode.is_constant_like() {
                if let Some(&first) = m.constants.get(&op) {
                    return Err(BuildError::DuplicateConstant { first, second: def });
                }
                m.constants.insert(op.clone(), def);
            }
            m.opcode_counts.added(op.opcode);
            m.type_counts.added(&op.ty);
            m.ops[def] = op;
            m.link_at_end(def, section);
        }
        for def in m.ops.keys() {
            if !m.nodes[def].linked {
                continue;
            }
            for i in 0..m.ops[def].operands.len() {
                if let Operand::Ref(t) = m.ops[def].operands[i] {
                    if !m.is_live(t) {
                        return Err(BuildError::DanglingRef { def, target: t });
                    }
                    m.uses.push(t, def);
                }
            }
        }
        Ok(())
    }

    // ----- queries -------------------------------------------------------------------------

    /// The op of a def. Panics for a def that was never created.
    #[inline]
    pub fn op(&self, d: SsaDef) -> &Op {
        &self.ops[d]
    }
    /// A typed view of the op of a def: `m.view::<ImageSample>(d).lod()` (see
    /// [`crate::format`]).
    pub fn view<'a, V: crate::format::OpView<'a>>(&'a self, d: SsaDef) -> V {
        V::of(&self.ops[d])
    }
    /// The op of a def if it exists and is part of the program.
    #[inline]
    pub fn get(&self, d: SsaDef) -> Option<&Op> {
        self.is_live(d).then(|| &self.ops[d])
    }
    /// True if `d` exists and was not removed.
    #[inline]
    pub fn is_live(&self, d: SsaDef) -> bool {
        d.index() < self.ops.len() && self.nodes[d].linked
    }
    /// The opcode of a def.
    #[inline]
    pub fn opcode(&self, d: SsaDef) -> OpCode {
        self.nodes[d].opcode
    }
    /// The result type of a def.
    #[inline]
    pub fn ty(&self, d: SsaDef) -> &Type {
        &self.ops[d].ty
    }
    /// Number of live ops.
    pub fn len(&self) -> usize {
        (self.decls.len + self.code.len) as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// One past the highest id ever allocated.
    pub fn id_bound(&self) -> usize {
        self.ops.len()
    }
    /// Number of declarative ops.
    pub fn declaration_count(&self) -> usize {
        self.decls.len as usize
    }
    /// The ops that reference `d`, one entry per referencing operand.
    #[inline]
    pub fn uses(&self, d: SsaDef) -> &[SsaDef] {
        self.uses.get(d)
    }
    /// The op after `d` in program order (crossing from declarations into code).
    #[inline]
    pub fn next(&self, d: SsaDef) -> Option<SsaDef> {
        let n = &self.nodes[d];
        n.next.expand().or_else(|| {
            (Section::of(n.opcode) == Section::Declarations)
                .then_some(self.code.first.expand())
                .flatten()
        })
    }
    /// The op after `d` in its own section (`None` at the end of the declarations, unlike
    /// [`Module::next`]): for walks over code, one link read per op.
    #[inline]
    pub(crate) fn next_in_section(&self, d: SsaDef) -> Option<SsaDef> {
        self.nodes[d].next.expand()
    }
    /// The op before `d` in program order.
    #[inline]
    pub fn prev(&self, d: SsaDef) -> Option<SsaDef> {
        let n = &self.nodes[d];
        n.prev.expand().or_else(|| {
            (Section::of(n.opcode) == Section::Code)
                .then_some(self.decls.last.expand())
                .flatten()
        })
    }
    /// First op in program order.
    pub fn first(&self) -> Option<SsaDef> {
        self.decls.first.expand().or(self.code.first.expand())
    }
    /// First code op.
    pub fn first_code(&self) -> Option<SsaDef> {
        self.code.first.expand()
    }
    /// The `Function` and `FunctionEnd` ops of a module whose code is exactly one function
    /// (one of each, the first and the last code op); `None` otherwise. Constant time.
    pub fn sole_function(&self) -> Option<(SsaDef, SsaDef)> {
        let (f, e) = (self.code.first.expand()?, self.code.last.expand()?);
        (self.opcode_counts.of(OpCode::Function) == 1
            && self.opcode_counts.of(OpCode::FunctionEnd) == 1
            && self.nodes[f].opcode == OpCode::Function
            && self.nodes[e].opcode == OpCode::FunctionEnd)
            .then_some((f, e))
    }
    /// The number of live ops whose type mentions the Unknown scalar `?`. Constant time: a
    /// check that every type is resolved walks the module only to name an unresolved op.
    pub fn unknown_typed_count(&self) -> usize {
        self.type_counts.unknown as usize
    }
    /// Whether the type of `d` mentions the Unknown scalar `?`: read from `d`'s place in the
    /// program order, not from the op, so a walk asking it of every op stays out of the op
    /// table (`propagate-types` looks at the `?`-typed ops only).
    #[inline]
    pub fn type_mentions_unknown(&self, d: SsaDef) -> bool {
        self.nodes[d].unknown_typed
    }
    /// The number of live ops whose type mentions a min-precision scalar. Constant time.
    pub fn min_precision_typed_count(&self) -> usize {
        self.type_counts.min_precision as usize
    }
    /// The number of live ops of `opcode`. Constant time.
    pub fn count_of(&self, opcode: OpCode) -> usize {
        self.opcode_counts.of(opcode)
    }
    /// True if some live op has opcode `opcode`. Constant time: a pass whose opcodes are all
    /// absent returns without a walk.
    pub fn contains_opcode(&self, opcode: OpCode) -> bool {
        self.opcode_counts.of(opcode) > 0
    }
    /// True if some live op's opcode has every class of `class` (the opcode table's
    /// [`Attrs`]): one look-up per opcode, no walk.
    pub fn contains_class(&self, class: Attrs) -> bool {
        self.contains_where(|op| op.is(class))
    }
    /// True if some live op's opcode satisfies `wanted` (a pass's own test of the opcodes it
    /// works on, asked once per opcode of the table): no walk.
    pub fn contains_where(&self, wanted: impl Fn(OpCode) -> bool) -> bool {
        self.opcode_counts.any(wanted)
    }
    /// All live ops in program order: declarations first, then code.
    pub fn iter(&self) -> impl Iterator<Item = SsaDef> + '_ {
        std::iter::successors(self.first(), move |&d| self.next(d))
    }
    /// Declarative ops in order.
    pub fn declarations(&self) -> impl Iterator<Item = SsaDef> + '_ {
        std::iter::successors(self.decls.first.expand(), move |&d| {
            self.nodes[d].next.expand()
        })
    }
    /// Code ops in order.
    pub fn code(&self) -> impl Iterator<Item = SsaDef> + '_ {
        std::iter::successors(self.code.first.expand(), move |&d| {
            self.nodes[d].next.expand()
        })
    }
    /// Code ops from `d` on (inclusive).
    pub fn iter_from(&self, d: SsaDef) -> impl Iterator<Item = SsaDef> + '_ {
        std::iter::successors(Some(d), move |&d| self.next(d))
    }
    /// True if `a` comes strictly before `b` in program order.
    #[inline]
    pub fn precedes(&self, a: SsaDef, b: SsaDef) -> bool {
        let (na, nb) = (&self.nodes[a], &self.nodes[b]);
        let (sa, sb) = (Section::of(na.opcode), Section::of(nb.opcode));
        if sa != sb {
            return sa == Section::Declarations;
        }
        na.seq < nb.seq
    }
    /// The existing constant or undef identical to `op`, if any.
    pub fn find_constant(&self, op: &Op) -> Option<SsaDef> {
        self.constants.get(op).copied()
    }

    // ----- change log ----------------------------------------------------------------------

    /// Starts recording the ops that mutations touch (see [`crate::change_log`]); a new
    /// session, so marks taken before are no longer valid.
    pub fn start_change_log(&mut self) {
        self.log.start();
    }
    /// Stops recording and empties the log.
    pub fn stop_change_log(&mut self) {
        self.log.stop();
    }
    /// True while the change log records.
    pub fn is_change_log_on(&self) -> bool {
        self.log.is_on()
    }
    /// The current position of the change log, if it is on.
    pub fn change_mark(&self) -> Option<ChangeMark> {
        self.log.mark(self.ops.len())
    }
    /// What changed since `mark`, if the log has recorded everything since (it is on, in the
    /// session of the mark).
    pub fn changes_since(&self, mark: ChangeMark) -> Option<Changes<'_>> {
        self.log.since(mark, self.ops.len())
    }
    /// Records in the change log that a pass left work undone (it stopped before its fixpoint):
    /// counted as a control-flow change, so every check of what changed since sees a change,
    /// and kept for [`Module::take_unsettled`] (the change happened *during* the pass's run:
    /// the mark a clean-up loop takes after the run does not see it).
    pub fn note_unsettled(&mut self) {
        self.log.note_unsettled();
    }
    /// Whether a pass noted work left undone ([`Module::note_unsettled`]) since the last call,
    /// while the change log is on; clears the note.
    pub fn take_unsettled(&mut self) -> bool {
        self.log.take_unsettled()
    }
    /// Runs `edit`, whose block edits keep the dominance relation among the blocks that remain
    /// (merging a block into its only predecessor, removing blocks unreachable from the entry,
    /// bypassing an empty block, sending edges through new blocks): the change log counts them as control changes but not as
    /// dominance changes ([`Changes::dominance_changed`]), so a pass that depends on dominance
    /// alone need not run again after them. Phis, labels and terminators touched are still
    /// listed as touched ops.
    pub fn keeping_dominance<R>(&mut self, edit: impl FnOnce(&mut Module) -> R) -> R {
        let before = self.log.set_keeping_dominance(true);
        let result = edit(self);
        self.log.set_keeping_dominance(before);
        result
    }
    /// The module's version: equal at two moments only if nothing changed in between (see
    /// [`crate::change_log`]). Constant time.
    pub fn version(&self) -> ModuleVersion {
        self.log.version()
    }
    fn note(&mut self, d: SsaDef) {
        if self.log.is_on() {
            self.log.note(d, self.ops[d].opcode);
        } else {
            self.log.note_edit();
        }
    }

    // ----- mutation ------------------------------------------------------------------------

    /// Appends `op` at the end of its section (declarations or code). Constants and undefs are
    /// de-duplicated: an identical existing one is returned instead.
    pub fn add(&mut self, op: Op) -> SsaDef {
        if let Some(d) = self.dedup(&op) {
            return d;
        }
        let section = Section::of(op.opcode);
        let d = self.create(op);
        self.link_at_end(d, section);
        d
    }

    /// Inserts `op` right before `at`. A declarative op goes to the end of the declarations if
    /// `at` is code (and vice versa a code op before the first code op when `at` is a declaration).
    pub fn insert_before(&mut self, at: SsaDef, op: Op) -> SsaDef {
        if let Some(d) = self.dedup(&op) {
            return d;
        }
        let section = Section::of(op.opcode);
        let d = self.create(op);
        if Section::of(self.ops[at].opcode) == section {
            self.link_before(d, at, section);
        } else if section == Section::Declarations {
            self.link_at_end(d, section);
        } else {
            match self.code.first.expand() {
                Some(f) => self.link_before(d, f, section),
                None => self.link_at_end(d, section),
            }
        }
        d
    }

    /// Inserts `op` right after `at` (see [`Module::insert_before`] for cross-section rules).
    pub fn insert_after(&mut self, at: SsaDef, op: Op) -> SsaDef {
        if let Some(d) = self.dedup(&op) {
            return d;
        }
        let section = Section::of(op.opcode);
        let d = self.create(op);
        if Section::of(self.ops[at].opcode) == section {
            match self.nodes[at].next.expand() {
                Some(n) => self.link_before(d, n, section),
                None => self.link_at_end(d, section),
            }
        } else if section == Section::Declarations {
            self.link_at_end(d, section);
        } else {
            match self.code.first.expand() {
                Some(f) => self.link_before(d, f, section),
                None => self.link_at_end(d, section),
            }
        }
        d
    }

    /// Replaces the whole op of `d` (opcode, flags, type, operands), updating use lists. The new
    /// op must stay in the same section; constants keep their uniqueness entry up to date.
    pub fn rewrite(&mut self, d: SsaDef, op: Op) {
        assert!(self.is_live(d), "rewrite of removed op {d}");
        assert_eq!(
            Section::of(self.ops[d].opcode),
            Section::of(op.opcode),
            "rewrite of {d} would move it between declarations and code"
        );
        self.note(d);
        let constant = self.ops[d].opcode.is_constant_like() || op.opcode.is_constant_like();
        if !constant && self.ops[d].operands == op.operands {
            let opcode = op.opcode;
            // Same references: the use lists stay as they are.
            self.opcode_counts.removed(self.ops[d].opcode);
            self.opcode_counts.added(op.opcode);
            self.type_counts.removed(&self.ops[d].ty);
            self.type_counts.added(&op.ty);
            self.nodes[d].opcode = op.opcode;
            self.nodes[d].unknown_typed = op.ty.mentions_unknown();
            self.ops[d] = op;
            self.log.note(d, opcode);
            return;
        }
        self.unregister(d);
        self.nodes[d].opcode = op.opcode;
        self.nodes[d].unknown_typed = op.ty.mentions_unknown();
        self.ops[d] = op;
        self.register(d);
        self.note(d);
    }

    /// Sets operand `i` of `d`.
    pub fn set_operand(&mut self, d: SsaDef, i: usize, operand: Operand) {
        self.note(d);
        let is_const = self.ops[d].opcode.is_constant_like();
        if is_const {
            self.constants.remove(&self.ops[d]);
        }
        if let Operand::Ref(old) = self.ops[d].operands[i] {
            self.uses.remove_one(old, d);
        }
        self.ops[d].operands[i] = operand;
        if let Operand::Ref(new) = operand {
            self.uses.push(new, d);
        }
        if is_const {
            self.constants.entry(self.ops[d].clone()).or_insert(d);
        }
    }

    /// Sets the flags of `d`.
    pub fn set_flags(&mut self, d: SsaDef, flags: crate::OpFlags) {
        if self.ops[d].opcode.is_constant_like() {
            let mut op = self.ops[d].clone();
            op.flags = flags;
            self.rewrite(d, op);
        } else {
            self.ops[d].flags = flags;
            self.note(d);
        }
    }

    /// Sets the result type of `d`.
    pub fn set_type(&mut self, d: SsaDef, ty: Type) {
        if self.ops[d].opcode.is_constant_like() {
            let mut op = self.ops[d].clone();
            op.ty = ty;
            self.rewrite(d, op);
        } else {
            self.type_counts.removed(&self.ops[d].ty);
            self.type_counts.added(&ty);
            self.nodes[d].unknown_typed = ty.mentions_unknown();
            self.ops[d].ty = ty;
            self.note(d);
        }
    }

    /// Makes every operand that references `old` reference `new` instead.
    pub fn replace_all_uses(&mut self, old: SsaDef, new: SsaDef) {
        if old == new {
            return;
        }
        let users = self.uses.take(old);
        // A user listed once per operand has all of them replaced at its first entry; its
        // later entries find nothing left to replace (no search of the users done so far,
        // which was quadratic for a value with many users).
        for &u in users.iter() {
            if self.ops[u].opcode.is_constant_like() {
                // Keeps the uniqueness table up to date, operand by operand.
                let mut first = true;
                for i in 0..self.ops[u].operands.len() {
                    if self.ops[u].operands[i] == Operand::Ref(old) {
                        if first {
                            self.note(u);
                            first = false;
                        }
                        self.set_operand_untracked_old(u, i, new);
                    }
                }
                continue;
            }
            // Any other user: its operands rewritten in one pass over the list, then one use
            // entry per rewritten operand (the entries `set_operand_untracked_old` would push,
            // all alike).
            let mut replaced = 0;
            for o in self.ops[u].operands.iter_mut() {
                if *o == Operand::Ref(old) {
                    *o = Operand::Ref(new);
                    replaced += 1;
                }
            }
            if replaced > 0 {
                self.note(u);
                for _ in 0..replaced {
                    self.uses.push(new, u);
                }
            }
        }
    }

    /// Removes `d` from the program. Panics if a live op still references it (other than a
    /// debug or semantic op, which is removed with it).
    pub fn remove(&mut self, d: SsaDef) {
        assert!(self.is_live(d), "remove of removed op {d}");
        self.note(d);
        if !self.uses.get(d).is_empty() {
            self.remove_meta_users(d);
        }
        self.unregister(d);
        self.uses.clear_of(d);
        self.unlink(d);
        // Reset in place, as `Op::new(Unknown, void)` (no new op moved in over the old one).
        let op = &mut self.ops[d];
        op.opcode = OpCode::Unknown;
        op.flags = crate::OpFlags::NONE;
        op.ty = Type::void();
        op.operands.clear();
    }

    /// Runs `edit`, meant to remove the users of each of `defs` other than their debug and
    /// semantic ops (SSA construction removing the loads and stores of its temporaries), with
    /// the use lists of `defs` cut down to those debug and semantic ops meanwhile, so that each
    /// removal skips the search of a long list. Afterwards a user `edit` left referencing one
    /// of `defs` is listed again: the use lists are exact whatever `edit` did, only such a
    /// list's order may differ from the one removals one by one leave. Panics if `edit`
    /// removed one of `defs` and left it a user.
    pub fn removing_users_of<R>(
        &mut self,
        defs: &[SsaDef],
        edit: impl FnOnce(&mut Module) -> R,
    ) -> R {
        let mut set_aside = Vec::with_capacity(defs.len());
        for &t in defs {
            let all = self.uses.take(t);
            for &u in &all {
                if self.ops[u].opcode.is_meta() {
                    self.uses.push(t, u);
                }
            }
            set_aside.push((t, all));
        }
        let result = edit(self);
        for (t, all) in set_aside {
            let mut left: Vec<SsaDef> = all
                .iter()
                .copied()
                .filter(|&u| self.is_live(u) && !self.ops[u].opcode.is_meta())
                .collect();
            if left.is_empty() {
                continue;
            }
            assert!(
                self.is_live(t),
                "{t} was removed while still used by {}",
                left[0]
            );
            left.sort_unstable();
            left.dedup();
            let mut listed: FxHashMap<SsaDef, usize> = FxHashMap::default();
            for &u in self.uses.get(t) {
                *listed.entry(u).or_default() += 1;
            }
            for u in left {
                let refs = self.ops[u]
                    .operands
                    .iter()
                    .filter(|&&o| o == Operand::Ref(t))
                    .count();
                for _ in listed.get(&u).copied().unwrap_or(0)..refs {
                    self.uses.push(t, u);
                }
            }
        }
        result
    }

    /// Removes the debug and semantic ops naming `d`; panics on any other live user.
    fn remove_meta_users(&mut self, d: SsaDef) {
        let users: SmallVec<[SsaDef; 4]> = self.uses.get(d).iter().copied().collect();
        for u in users {
            if u == d || !self.is_live(u) {
                continue;
            }
            assert!(
                self.ops[u].opcode.is_meta(),
                "cannot remove {d} ({}): still used by {u} ({})",
                self.ops[d].opcode,
                self.ops[u].opcode
            );
            self.remove(u);
        }
    }

    /// Moves `d` to right before `at` (same section).
    pub fn move_before(&mut self, d: SsaDef, at: SsaDef) {
        let section = Section::of(self.ops[d].opcode);
        assert_eq!(
            section,
            Section::of(self.ops[at].opcode),
            "move across sections"
        );
        self.note(d);
        self.log.note_control();
        self.unlink(d);
        self.link_before(d, at, section);
    }

    // ----- internals -----------------------------------------------------------------------

    fn dedup(&self, op: &Op) -> Option<SsaDef> {
        if op.opcode.is_constant_like() {
            self.constants.get(op).copied()
        } else {
            None
        }
    }

    fn create(&mut self, op: Op) -> SsaDef {
        let d = self.ops.push(op);
        self.register(d);
        self.note(d);
        d
    }

    fn register(&mut self, d: SsaDef) {
        self.opcode_counts.added(self.ops[d].opcode);
        self.type_counts.added(&self.ops[d].ty);
        // The op's operands read in place while the use lists change (disjoint fields).
        for o in &self.ops[d].operands {
            if let Operand::Ref(t) = *o {
                self.uses.push(t, d);
            }
        }
        if self.ops[d].opcode.is_constant_like() {
            self.constants.entry(self.ops[d].clone()).or_insert(d);
        }
    }

    fn unregister(&mut self, d: SsaDef) {
        self.opcode_counts.removed(self.ops[d].opcode);
        self.type_counts.removed(&self.ops[d].ty);
        for o in &self.ops[d].operands {
            if let Operand::Ref(t) = *o {
                self.uses.remove_one(t, d);
            }
        }
        if self.ops[d].opcode.is_constant_like() {
            // One hash lookup: take the entry out, put it back in the rare case that it names
            // another op (a duplicate that `add` did not merge).
            if let Some(e) = self.constants.remove(&self.ops[d]) {
                if e != d {
                    self.constants.insert(self.ops[d].clone(), e);
                }
            }
        }
    }

    /// Sets a ref operand whose old use entry was already taken away.
    fn set_operand_untracked_old(&mut self, d: SsaDef, i: usize, new: SsaDef) {
        let is_const = self.ops[d].opcode.is_constant_like();
        if is_const {
            self.constants.remove(&self.ops[d]);
        }
        self.ops[d].operands[i] = Operand::Ref(new);
        self.uses.push(new, d);
        if is_const {
            self.constants.entry(self.ops[d].clone()).or_insert(d);
        }
    }

    fn list(&mut self, s: Section) -> &mut List {
        match s {
            Section::Declarations => &mut self.decls,
            Section::Code => &mut self.code,
        }
    }

    fn link_at_end(&mut self, d: SsaDef, s: Section) {
        let last = self.list(s).last.expand();
        let seq = last.map_or(SEQ_STEP, |l| self.nodes[l].seq.saturating_add(SEQ_STEP));
        self.nodes[d] = Node {
            prev: last.into(),
            next: None.into(),
            seq,
            opcode: self.ops[d].opcode,
            linked: true,
            unknown_typed: self.ops[d].ty.mentions_unknown(),
        };
        match last {
            Some(l) => self.nodes[l].next = d.into(),
            None => self.list(s).first = d.into(),
        }
        let list = self.list(s);
        list.last = d.into();
        list.len += 1;
        if seq == u32::MAX {
            self.renumber(s);
        }
    }

    fn link_before(&mut self, d: SsaDef, at: SsaDef, s: Section) {
        let prev = self.nodes[at].prev.expand();
        let lo = prev.map_or(0, |p| self.nodes[p].seq);
        let hi = self.nodes[at].seq;
        self.nodes[d] = Node {
            prev: prev.into(),
            next: at.into(),
            seq: lo + (hi - lo) / 2,
            opcode: self.ops[d].opcode,
            linked: true,
            unknown_typed: self.ops[d].ty.mentions_unknown(),
        };
        self.nodes[at].prev = d.into();
        match prev {
            Some(p) => self.nodes[p].next = d.into(),
            None => self.list(s).first = d.into(),
        }
        self.list(s).len += 1;
        if hi - lo < 2 {
            self.renumber_from(d, s);
        }
    }

    /// Restores increasing sequence numbers after `d` was squeezed into a full gap: renumbers
    /// forward from `d` only as far as the numbers collide (Cranelift's local renumbering), so
    /// that many insertions at one point cost amortized constant time, not a full renumbering
    /// each. Falls back to renumbering the whole section if the numbers would overflow.
    fn renumber_from(&mut self, d: SsaDef, s: Section) {
        let mut prev_seq = self.nodes[d].prev.expand().map_or(0, |p| self.nodes[p].seq);
        let mut cur = Some(d);
        while let Some(c) = cur {
            if self.nodes[c].seq > prev_seq {
                return;
            }
            let Some(seq) = prev_seq.checked_add(SEQ_STEP) else {
                self.renumber(s);
                return;
            };
            self.nodes[c].seq = seq;
            prev_seq = seq;
            cur = self.nodes[c].next.expand();
        }
    }

    fn unlink(&mut self, d: SsaDef) {
        // The section's list picked once (a field borrow disjoint from `nodes`): this runs for
        // every removed or moved op.
        let list = match Section::of(self.nodes[d].opcode) {
            Section::Declarations => &mut self.decls,
            Section::Code => &mut self.code,
        };
        // The node is reset (opcode `Unknown`); linking it again takes the opcode from the op.
        let Node { prev, next, .. } = std::mem::take(&mut self.nodes[d]);
        match prev.expand() {
            Some(p) => self.nodes[p].next = next,
            None => list.first = next,
        }
        match next.expand() {
            Some(n) => self.nodes[n].prev = prev,
            None => list.last = prev,
        }
        list.len -= 1;
    }

    fn renumber(&mut self, s: Section) {
        let mut cur = self.list(s).first.expand();
        let mut seq = SEQ_STEP;
        while let Some(d) = cur {
            self.nodes[d].seq = seq;
            seq = seq.saturating_add(SEQ_STEP);
            cur = self.nodes[d].next.expand();
        }
    }
}

/// Two modules are equal if they hold the same live ops under the same ids in the same order
/// (holes left by removed ops do not matter).
impl PartialEq for Module {
    fn eq(&self, other: &Module) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other.iter())
                .all(|(a, b)| a == b && self.ops[a] == other.ops[b])
    }
}

impl Eq for Module {}
