//! Procedure outlining: a run of instructions that occurs several times becomes one procedure
//! after `END`, and each occurrence a `CALL` to it (reference §9: CALL's DST is the procedure's
//! first word, NUM its length; the call returns by length, so a procedure costs no RET word).
//!
//! This is how hand-written PICA200 code stays short (devkitPro's geoshader `program.g.pica`,
//! anchor A6, calls a triangle procedure three times and, inside it, a vertex procedure).
//!
//! Runs match *up to their inputs*: a register a run reads before writing it (an input `v` or a
//! temporary `r`) is a parameter. Two runs match when they are equal once every parameter is
//! named by its first appearance; a parameter whose register differs between occurrences gets
//! a register no code uses, which each call site fills with one `MOV` before its `CALL` (the
//! parameterized outlining of LLVM's MachineOutliner and of code-compaction work since the
//! 1990s). An occurrence of `len` words found `count` times with `p` varying parameters saves
//! `count · len − len − count · (1 + p)` words; the outliner repeatedly takes the run with the
//! largest saving, in the entry code and in the procedures it made, until none saves a word.
//!
//! What may move into a procedure: ALU instructions, MAD, SETEMIT and EMIT. Not flow control or
//! NOP (the layout's NOP rules and addresses), not CMP or LITP (the layout follows the flags
//! for its loop-exit bookkeeping), not MOVA (a MOVA ending a procedure and one after the call
//! would run back to back, erratum 3), not a source read through an address register. A CALL
//! is never the last word of a procedure, an if arm or a loop body (§9 NOP rule 1). Procedures
//! nest at most [`MAX_DEPTH`] deep, within the 4-entry call stack (§9: popping four entries at
//! once loses one return).

use irc_backend::Diagnostic;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::flow_emit::Item;
use crate::instr::{Cond, Dst, DstReg, Instr, Mask, Src, SrcReg};
use crate::isa::{AddrIndex, CondOp, Opcode};
use crate::lower::mir::{Flow, IfCond};

/// The longest run considered (longer repeats are found as repeats of their parts).
const MAX_RUN: usize = 64;

/// The deepest procedure (called from the entry code: 1).
pub const MAX_DEPTH: u8 = 3;

/// The most parameters a run may have.
const MAX_PARAMS: usize = 8;

/// Marks parameter `k` in a run's canonical form as `r(PARAM + k)`: no register (r0–r15).
const PARAM: u8 = 0x40;

/// The temporaries r0–r15.
const TEMPS: u8 = 16;

/// The condition field of CALL, which ignores it: zero, as picasso writes it.
const CALL_COND: Cond = Cond {
    op: CondOp::Or,
    refx: false,
    refy: false,
};

fn movable(item: &Item) -> bool {
    match item {
        Item::Instr(i) => match i {
            Instr::Binary { .. } | Instr::Mad { .. } | Instr::SetEmit { .. } => true,
            Instr::Unary { op, .. } => *op != Opcode::Litp,
            Instr::Plain(op) => *op == Opcode::Emit,
            Instr::Mova { .. }
            | Instr::Cmp { .. }
            | Instr::CondFlow { .. }
            | Instr::UniformFlow { .. } => false,
        },
        Item::Flow(_) => false,
    }
}

/// A placeholder CALL to procedure `proc`; [`place_procedures`] sets its address and length.
fn call(proc: usize) -> Item {
    Item::Instr(Instr::CondFlow {
        op: Opcode::Call,
        cond: CALL_COND,
        dst: proc as u16,
        num: 0,
    })
}

/// `mov r<to>, <from>` (all four components): fills a parameter before a CALL.
fn param_move(to: u8, from: SrcReg) -> Item {
    Item::Instr(Instr::Unary {
        op: Opcode::Mov,
        dst: Dst::new(DstReg::Temp(to), Mask::XYZW),
        src: Src::new(from),
        index: AddrIndex::None,
    })
}

/// The sources an instruction reads through its operand fields.
fn sources_mut(i: &mut Instr) -> SmallVec<[&mut Src; 3]> {
    match i {
        Instr::Binary { src1, src2, .. } => SmallVec::from_iter([src1, src2]),
        Instr::Unary { src, .. } => SmallVec::from_iter([src]),
        Instr::Mad {
            src1, src2, src3, ..
        } => SmallVec::from_iter([src1, src2, src3]),
        Instr::Mova { src, .. } => SmallVec::from_iter([src]),
        Instr::Cmp { src1, src2, .. } => SmallVec::from_iter([src1, src2]),
        Instr::Plain(_) | Instr::SetEmit { .. } | Instr::CondFlow { .. } => SmallVec::new(),
        Instr::UniformFlow { .. } => SmallVec::new(),
    }
}

fn index_of(i: &Instr) -> AddrIndex {
    match *i {
        Instr::Binary { index, .. }
        | Instr::Unary { index, .. }
        | Instr::Mad { index, .. }
        | Instr::Mova { index, .. }
        | Instr::Cmp { index, .. } => index,
        _ => AddrIndex::None,
    }
}

/// A run read from its start: the registers it takes as parameters (by first appearance) and
/// the temporaries it has written so far (a read after the run's own write is no parameter).
#[derive(Clone, Default)]
struct Walk {
    params: SmallVec<[SrcReg; 4]>,
    written: u16,
}

impl Walk {
    /// `i` with every parameter register replaced by its marker.
    fn canon(&mut self, i: &Instr) -> Instr {
        let mut c = *i;
        if index_of(i) == AddrIndex::None {
            for s in sources_mut(&mut c) {
                let parameter = match s.reg {
                    SrcReg::Input(_) => true,
                    SrcReg::Temp(n) => self.written & (1 << n) == 0,
                    SrcReg::Const(_) => false,
                };
                if parameter {
                    let k = match self.params.iter().position(|&p| p == s.reg) {
                        Some(k) => k,
                        None => {
                            self.params.push(s.reg);
                            self.params.len() - 1
                        }
                    };
                    s.reg = SrcReg::Temp(PARAM + k as u8);
                }
            }
        }
        if let Some(n) = i.written_temp() {
            self.written |= 1 << n;
        }
        c
    }
}

/// The code being outlined: the entry code (with its flow-control markers) and the bodies of
/// the procedures made so far, with how deep each procedure runs.
struct Code<'a> {
    seqs: Vec<&'a [Item]>,
    depth: &'a [u8],
}

impl Code<'_> {
    /// Whether the run `seqs[q][off..off + len]` may become a CALL: not as the last word of a
    /// procedure, an if arm or a loop body (the entry code ends in END), except where the run
    /// is the whole body of an if without else, which becomes a conditional call
    /// ([`conditional_calls`]).
    fn may_call(&self, q: usize, off: usize, len: usize) -> bool {
        let seq = self.seqs[q];
        match seq.get(off + len) {
            None => q == 0,
            Some(Item::Flow(Flow::EndIf)) => {
                off > 0 && matches!(seq[off - 1], Item::Flow(Flow::If(_)))
            }
            Some(Item::Flow(Flow::Else | Flow::EndLoop)) => false,
            Some(_) => true,
        }
    }

    fn instr(&self, q: usize, at: usize) -> Option<&Instr> {
        match self.seqs[q].get(at) {
            Some(item @ Item::Instr(i)) if movable(item) => Some(i),
            _ => None,
        }
    }
}

/// Where a run starts: (sequence, offset).
type Site = (usize, usize);

/// An occurrence of a run and the registers it passes, by parameter.
type Occurrence = (Site, SmallVec<[SrcReg; 4]>);

/// A run chosen for outlining.
struct Choice {
    saving: usize,
    len: usize,
    /// (sequence, offset) of each occurrence, in order.
    starts: Vec<Site>,
    /// The registers each occurrence passes, by parameter.
    actuals: Vec<SmallVec<[SrcReg; 4]>>,
    varying: Vec<bool>,
}

impl Choice {
    fn key(
        &self,
    ) -> (
        usize,
        usize,
        std::cmp::Reverse<usize>,
        std::cmp::Reverse<Site>,
    ) {
        let v = self.varying.iter().filter(|&&x| x).count();
        (
            self.saving,
            self.len,
            std::cmp::Reverse(v),
            std::cmp::Reverse(self.starts[0]),
        )
    }
}

/// The occurrences of one group that do not overlap an earlier one and may call one more level
/// down, with their parameters.
fn eligible(code: &Code, len: usize, members: &[(Site, &Walk)]) -> Vec<Occurrence> {
    let mut taken: Vec<Occurrence> = Vec::new();
    for &((q, off), w) in members {
        if code.depth[q] >= MAX_DEPTH || !code.may_call(q, off, len) {
            continue;
        }
        if taken
            .last()
            .is_none_or(|&((tq, toff), _)| tq != q || off >= toff + len)
        {
            taken.push(((q, off), w.params.clone()));
        }
    }
    taken
}

/// The best choice among the occurrences `taken` of one run: all of them (parameters that
/// differ passed in fresh registers), or only those passing the same registers.
fn best_of_group(len: usize, taken: &[Occurrence], free: usize, best: &mut Option<Choice>) {
    let mut consider = |occ: Vec<&Occurrence>| {
        let count = occ.len();
        if count < 2 {
            return;
        }
        let nparams = occ[0].1.len();
        let varying: Vec<bool> = (0..nparams)
            .map(|k| occ.iter().any(|o| o.1[k] != occ[0].1[k]))
            .collect();
        let v = varying.iter().filter(|&&x| x).count();
        if v > free {
            return;
        }
        let saving = (count * len).saturating_sub(len + count * (1 + v));
        if saving == 0 {
            return;
        }
        let c = Choice {
            saving,
            len,
            starts: occ.iter().map(|o| o.0).collect(),
            actuals: occ.iter().map(|o| o.1.clone()).collect(),
            varying,
        };
        if best.as_ref().is_none_or(|b| c.key() > b.key()) {
            *best = Some(c);
        }
    };
    consider(taken.iter().collect());
    let mut same: FxHashMap<&[SrcReg], Vec<&Occurrence>> = FxHashMap::default();
    for t in taken {
        same.entry(&t.1[..]).or_default().push(t);
    }
    if same.len() > 1 {
        for occ in same.into_values() {
            consider(occ);
        }
    }
}

/// The best run to outline, if any saves a word. Runs of each length are grouped by their
/// canonical form one instruction at a time (the groups of length `n` refine those of `n − 1`),
/// so a start stops growing once no other start matches it.
fn best_run(code: &Code, free: usize) -> Option<Choice> {
    let mut alive: Vec<(Site, Walk, u32)> = Vec::new();
    for (q, seq) in code.seqs.iter().enumerate() {
        for off in 0..seq.len() {
            if code.instr(q, off).is_some() {
                alive.push(((q, off), Walk::default(), 0));
            }
        }
    }
    let mut best: Option<Choice> = None;
    let mut ids: FxHashMap<(u32, Instr), u32> = FxHashMap::default();
    for len in 1..=MAX_RUN {
        ids.clear();
        let mut next: Vec<(Site, Walk, u32)> = Vec::with_capacity(alive.len());
        for ((q, off), mut walk, gid) in alive {
            let Some(i) = code.instr(q, off + len - 1) else {
                continue;
            };
            let c = walk.canon(i);
            if walk.params.len() > MAX_PARAMS {
                continue;
            }
            let n = ids.len() as u32;
            let id = *ids.entry((gid, c)).or_insert(n);
            next.push(((q, off), walk, id));
        }
        let mut groups: FxHashMap<u32, Vec<(Site, &Walk)>> = FxHashMap::default();
        for (start, walk, id) in &next {
            groups.entry(*id).or_default().push((*start, walk));
        }
        groups.retain(|_, members| members.len() > 1);
        if groups.is_empty() {
            break;
        }
        if len >= 2 {
            for members in groups.values_mut() {
                members.sort_by_key(|m| m.0);
                let taken = eligible(code, len, members);
                best_of_group(len, &taken, free, &mut best);
            }
        }
        let keep: rustc_hash::FxHashSet<u32> = groups.keys().copied().collect();
        alive = next.into_iter().filter(|n| keep.contains(&n.2)).collect();
    }
    best
}

/// Replaces repeated runs of `items` by placeholder CALLs and returns the procedures' bodies
/// (which may call procedures made after them).
pub fn outline(items: &mut Vec<Item>) -> Vec<Vec<Instr>> {
    let mut seqs: Vec<Vec<Item>> = vec![std::mem::take(items)];
    let mut depth: Vec<u8> = vec![0];
    loop {
        let mut used = 0u16;
        for item in seqs.iter().flatten() {
            if let Item::Instr(i) = item {
                let mut i = *i;
                for s in sources_mut(&mut i) {
                    if let SrcReg::Temp(n) = s.reg {
                        used |= 1 << n;
                    }
                }
                if let Some(n) = i.written_temp() {
                    used |= 1 << n;
                }
            }
        }
        let fresh: Vec<u8> = (0..TEMPS).filter(|&n| used & (1 << n) == 0).collect();
        let choice = {
            let code = Code {
                seqs: seqs.iter().map(Vec::as_slice).collect(),
                depth: &depth,
            };
            best_run(&code, fresh.len())
        };
        let Some(c) = choice else { break };
        // Parameter k's register in the procedure.
        let mut fresh = fresh.into_iter();
        let regs: Vec<Option<u8>> = c
            .varying
            .iter()
            .map(|&v| if v { fresh.next() } else { None })
            .collect();
        let (q0, off0) = c.starts[0];
        let mut walk = Walk::default();
        let body: Vec<Item> = seqs[q0][off0..off0 + c.len]
            .iter()
            .map(|item| {
                let Item::Instr(i) = item else {
                    unreachable!("runs hold instructions only")
                };
                let mut body = walk.canon(i);
                for s in sources_mut(&mut body) {
                    if let SrcReg::Temp(n) = s.reg {
                        if let Some(k) = n.checked_sub(PARAM) {
                            let k = usize::from(k);
                            s.reg = regs[k].map_or(c.actuals[0][k], SrcReg::Temp);
                        }
                    }
                }
                Item::Instr(body)
            })
            .collect();
        let proc = seqs.len() - 1;
        let mut proc_depth = 0;
        for (n, &(q, off)) in c.starts.iter().enumerate().rev() {
            let mut site: Vec<Item> = regs
                .iter()
                .zip(&c.actuals[n])
                .filter_map(|(r, &a)| r.map(|r| param_move(r, a)))
                .collect();
            site.push(call(proc));
            seqs[q].splice(off..off + c.len, site);
            proc_depth = proc_depth.max(depth[q] + 1);
        }
        seqs.push(body);
        depth.push(proc_depth);
    }
    conditional_calls(&mut seqs[0]);
    let mut seqs = seqs.into_iter();
    *items = seqs.next().unwrap_or_default();
    seqs.map(|body| {
        body.into_iter()
            .filter_map(|i| match i {
                Item::Instr(i) => Some(i),
                Item::Flow(_) => None,
            })
            .collect()
    })
    .collect()
}

/// `if (c) { [MOV parameters;] CALL p }` → `[MOV parameters;] CALLC c, p` (CALLU on a bool
/// uniform): one word for the IF, the CALL and the NOP a CALL ending the if-body would need
/// (§9). The parameter MOVs run whatever the condition: they write registers only the
/// procedure reads.
fn conditional_calls(items: &mut Vec<Item>) {
    let mut k = 0;
    while k < items.len() {
        if let Item::Flow(Flow::If(c)) = items[k] {
            let moves = items[k + 1..]
                .iter()
                .take_while(|i| {
                    matches!(i, Item::Instr(Instr::Unary { op: Opcode::Mov, dst, .. })
                        if matches!(dst.reg, DstReg::Temp(_)))
                })
                .count();
            let at = k + 1 + moves;
            if let (
                Some(&Item::Instr(Instr::CondFlow {
                    op: Opcode::Call,
                    dst: proc,
                    ..
                })),
                Some(Item::Flow(Flow::EndIf)),
            ) = (items.get(at), items.get(at + 1))
            {
                let call = match c {
                    IfCond::Cmp(v) => Instr::CondFlow {
                        op: Opcode::Callc,
                        cond: Cond::x(v),
                        dst: proc,
                        num: 0,
                    },
                    IfCond::Bool(id) => Instr::UniformFlow {
                        op: Opcode::Callu,
                        id,
                        dst: proc,
                        num: 0,
                    },
                };
                items[at] = Item::Instr(call);
                items.remove(at + 1);
                items.remove(k);
                continue;
            }
        }
        k += 1;
    }
}

/// Appends the procedures after the main code `code` (which ends in END) and points every
/// placeholder CALL (in the main code and in the procedures) at its procedure.
pub fn place_procedures(code: &mut Vec<Instr>, procs: &[Vec<Instr>]) -> Result<(), Diagnostic> {
    let mut at = Vec::with_capacity(procs.len());
    for p in procs {
        at.push(code.len());
        code.extend_from_slice(p);
    }
    for i in code.iter_mut() {
        if let Instr::CondFlow {
            op: Opcode::Call | Opcode::Callc,
            dst,
            num,
            ..
        }
        | Instr::UniformFlow {
            op: Opcode::Callu,
            dst,
            num,
            ..
        } = i
        {
            let p = usize::from(*dst);
            let start = at
                .get(p)
                .copied()
                .ok_or_else(|| Diagnostic::internal(None, "a call to no procedure"))?;
            *dst = u16::try_from(start)
                .ok()
                .filter(|&a| a < 4096)
                .ok_or_else(|| Diagnostic::limit("flow-control target beyond word 4095"))?;
            *num = u8::try_from(procs[p].len())
                .map_err(|_| Diagnostic::internal(None, "a procedure over 255 words"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::{Dst, DstReg, Mask, Src, SrcReg};

    fn mov(o: u8, v: u8) -> Item {
        Item::Instr(Instr::Unary {
            op: Opcode::Mov,
            dst: Dst::new(DstReg::Output(o), Mask::XYZW),
            src: Src::new(SrcReg::Input(v)),
            index: crate::isa::AddrIndex::None,
        })
    }

    fn emit() -> Item {
        Item::Instr(Instr::Plain(Opcode::Emit))
    }

    #[test]
    fn a_run_found_three_times_becomes_one_procedure() {
        // 3 × (mov o0, v0; mov o1, v1; emit) = 9 words → 3 calls + a 3-word procedure.
        let mut items: Vec<Item> = (0..3)
            .flat_map(|_| [mov(0, 0), mov(1, 1), emit()])
            .collect();
        let procs = outline(&mut items);
        assert_eq!(procs.len(), 1);
        assert_eq!(procs[0].len(), 3);
        assert_eq!(items, vec![call(0); 3]);
        let mut code: Vec<Instr> = items
            .iter()
            .map(|i| match i {
                Item::Instr(i) => *i,
                Item::Flow(_) => unreachable!(),
            })
            .collect();
        code.push(Instr::END);
        place_procedures(&mut code, &procs).unwrap();
        assert_eq!(code.len(), 7);
        assert!(matches!(code[0], Instr::CondFlow { dst: 4, num: 3, .. }));
    }

    #[test]
    fn a_run_saving_nothing_stays() {
        // 2 × a 2-word run: 2 calls + 2 words = 4, no saving.
        let mut items: Vec<Item> = (0..2).flat_map(|_| [mov(0, 0), emit()]).collect();
        let before = items.clone();
        assert!(outline(&mut items).is_empty());
        assert_eq!(items, before);
    }

    #[test]
    fn no_call_ends_an_if_arm() {
        // The third occurrence closes an if arm after another instruction, so only the first
        // two become calls (a 3-word run twice saves 2·3 − 2 − 3 = 1 word, as much as its
        // first 2 words three times; the longer run wins the tie).
        let run = [mov(0, 0), mov(1, 1), emit()];
        let mut items: Vec<Item> = run.iter().chain(&run).cloned().collect();
        items.push(Item::Flow(Flow::If(IfCond::Cmp(true))));
        items.push(mov(2, 2));
        items.extend(run.iter().cloned());
        items.push(Item::Flow(Flow::EndIf));
        outline(&mut items);
        assert_eq!(items[0], call(0));
        assert_eq!(items[1], call(0));
        assert_eq!(items[items.len() - 2], emit());
    }

    #[test]
    fn a_whole_if_body_becomes_a_conditional_call() {
        // The third occurrence is the whole body of an if without else: CALLC on the if's
        // condition (CALLU for a bool uniform) replaces the IF, the CALL and the ENDIF.
        let run = [mov(0, 0), mov(1, 1), emit()];
        for (cond, want) in [
            (
                IfCond::Cmp(false),
                Instr::CondFlow {
                    op: Opcode::Callc,
                    cond: Cond::x(false),
                    dst: 0,
                    num: 0,
                },
            ),
            (
                IfCond::Bool(3),
                Instr::UniformFlow {
                    op: Opcode::Callu,
                    id: 3,
                    dst: 0,
                    num: 0,
                },
            ),
        ] {
            let mut items: Vec<Item> = run.iter().chain(&run).cloned().collect();
            items.push(Item::Flow(Flow::If(cond)));
            items.extend(run.iter().cloned());
            items.push(Item::Flow(Flow::EndIf));
            outline(&mut items);
            assert_eq!(items, vec![call(0), call(0), Item::Instr(want)]);
        }
    }

    fn dp4(o: u8, c: u8, src: SrcReg) -> Item {
        Item::Instr(Instr::Binary {
            op: Opcode::Dp4,
            dst: Dst::new(DstReg::Output(o), Mask::comp(usize::from(c))),
            src1: Src::new(SrcReg::Const(c)),
            src2: Src::new(src),
            index: crate::isa::AddrIndex::None,
        })
    }

    /// `outpos = M · src` (four DP4) and EMIT.
    fn project(src: SrcReg) -> Vec<Item> {
        let mut v: Vec<Item> = (0..4).map(|c| dp4(0, c, src)).collect();
        v.push(emit());
        v
    }

    fn instrs(items: &[Item]) -> Vec<Instr> {
        items
            .iter()
            .map(|i| match i {
                Item::Instr(i) => *i,
                Item::Flow(_) => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn runs_differing_in_a_source_register_share_a_procedure_with_a_parameter() {
        // 3 × 5 words reading v0, r1, v2 → 3 × (MOV + CALL) + 5 = 11 words. The procedure
        // reads a register no code uses (r0, r2 and up are free; r1 is read), filled by
        // each call site.
        let mut items: Vec<Item> = [SrcReg::Input(0), SrcReg::Temp(1), SrcReg::Input(2)]
            .into_iter()
            .flat_map(project)
            .collect();
        let procs = outline(&mut items);
        assert_eq!(procs.len(), 1);
        assert_eq!(procs[0], instrs(&project(SrcReg::Temp(0))));
        assert_eq!(
            items,
            vec![
                param_move(0, SrcReg::Input(0)),
                call(0),
                param_move(0, SrcReg::Temp(1)),
                call(0),
                param_move(0, SrcReg::Input(2)),
                call(0),
            ]
        );
    }

    #[test]
    fn a_register_read_after_the_runs_own_write_is_no_parameter() {
        // `dp4 o0.x, c0, r3; mov r3, v0; dp4 o0.y, c1, r3`: the first read of r3 takes the
        // value from before the run (parameter 0), the second the run's own (r3 itself).
        let run = [
            dp4(0, 0, SrcReg::Temp(3)),
            Item::Instr(Instr::Unary {
                op: Opcode::Mov,
                dst: Dst::new(DstReg::Temp(3), Mask::XYZW),
                src: Src::new(SrcReg::Input(0)),
                index: crate::isa::AddrIndex::None,
            }),
            dp4(0, 1, SrcReg::Temp(3)),
        ];
        let mut walk = Walk::default();
        let canon: Vec<Instr> = instrs(&run).iter().map(|i| walk.canon(i)).collect();
        let param = |k: u8| SrcReg::Temp(PARAM + k);
        assert!(matches!(canon[0], Instr::Binary { src2, .. } if src2.reg == param(0)));
        assert!(matches!(canon[1], Instr::Unary { src, .. } if src.reg == param(1)));
        assert!(matches!(canon[2], Instr::Binary { src2, .. } if src2.reg == SrcReg::Temp(3)));
        assert_eq!(&walk.params[..], &[SrcReg::Temp(3), SrcReg::Input(0)]);
    }

    #[test]
    fn procedures_nest_within_the_call_stack() {
        // Three triangles of three vertices (four DP4, SETEMIT k, EMIT), each reading its
        // own three inputs: 54 words. The triangle becomes a procedure taking three
        // parameters (3 × (3 MOV + CALL) in main, 3 × (MOV + CALL + SETEMIT + EMIT) in it),
        // and inside it the projection one taking one (4 words): 28. No call is a
        // procedure's last word.
        let triple = |a: u8, b: u8, c: u8| {
            let mut v = Vec::new();
            for (k, src) in [a, b, c].into_iter().enumerate() {
                v.extend((0..4).map(|c| dp4(0, c, SrcReg::Input(src))));
                v.push(Item::Instr(Instr::SetEmit {
                    vertex: k as u8,
                    primitive: k == 2,
                    winding: false,
                }));
                v.push(emit());
            }
            v
        };
        let mut items: Vec<Item> = [(0, 1, 2), (3, 4, 5), (6, 7, 8)]
            .into_iter()
            .flat_map(|(a, b, c)| triple(a, b, c))
            .collect();
        let before = items.len();
        let procs = outline(&mut items);
        let total: usize = items.len() + procs.iter().map(Vec::len).sum::<usize>();
        assert_eq!((before, total), (54, 28));
        let is_call = |i: &Instr| {
            matches!(
                i,
                Instr::CondFlow {
                    op: Opcode::Call,
                    ..
                }
            )
        };
        assert!(procs.iter().any(|p| p.iter().any(is_call)), "no nesting");
        for p in &procs {
            assert!(!is_call(p.last().unwrap()));
        }
    }
}
