//! The GP scheduler: scalar nodes → instructions, with registers assigned on the way.
//!
//! A GP unit reads the results of the previous one or two instructions directly (reference §9):
//! what an operand reads depends on where its producer and its user are placed, so scheduling
//! and register allocation are one pass here, as the forwarding windows make them one problem.
//!
//! **Cycle-by-cycle list scheduling.** Instructions are filled in order. At cycle `t` the ready
//! nodes (all producers placed) are tried highest first (longest latency path to an output);
//! a node fits if its unit is free (the acc op and the mul op are shared by both units of a
//! kind) and every operand can be read at `t`:
//!
//! * a forwarded result: acc/mul/pass one or two instructions back (`p1`, `p2`); the `complex1`
//!   result of an rcp/rsqrt/exp2 sequence exactly two instructions after its `complex1` (p2
//!   mul0);
//! * a register the value was stored to at least 3 instructions earlier, through the
//!   register-0 or register-1 load of `t` or the register-0 load of `t − 1`;
//! * an attribute through register 0 of `t` (or of `t − 1`); a uniform through the one vec4 load
//!   of `t`.
//!
//! The complex sequences of §8.2 are placed whole: rcp/rsqrt as impl + `complex2` at `t` and
//! `complex1` at `t + 1`; exp2 as `preexp2` at `t`, impl + `complex2` at `t + 1`, `complex1` at
//! `t + 2`; log2 as rcp's two steps then `postlog2` at `t + 3` (on the pass unit, reading p2 mul0).
//!
//! **Registers only where forwarding cannot reach.** Before filling cycle `t`, every value
//! whose last forwarding cycle is `t` and that still has unplaced users gets a register: stored
//! by the store unit of its own instruction (store0 writes `.x/.y`, store1 `.z/.w` of one vec4),
//! or by a `mov` placed in a free unit of an instruction that can still forward it, with the
//! store there. A register component is reused once its last read is placed; a register store
//! whose value was in the end never read from the register is removed with its `mov`. Outputs
//! are stored to varyings by the store unit of the producing instruction when it has room, else
//! through a `mov`.
//!
//! **Relays and spills.** When no store unit can take the value (four components per
//! instruction), a `mov` at `t` forwards it two more instructions and the store is tried again
//! then. When the registers are full (a first round of attempts lowers the pressure threshold
//! without spilling; then the same with spilling), the value is stored to a temporary instead:
//! the temporaries are vec4s at the top of the uniform/temporary space (`t[511]` down, at most
//! [`MAX_TEMPS`]), a temporary store writes `t[addr0]`, and its instruction's complex unit sets
//! `addr0` from an *address literal* (a uniform vec4 of temporary indices appended after the
//! lowering's uniforms, [`Schedule::addr_literals`]) read by its load unit (reference §8.3).
//! A temporary is read by the load unit at least 4 instructions after its store (§9); when a
//! uniform operand needs the load unit of the reading instruction, the temporary is loaded and
//! moved one or two instructions earlier and forwarded. `-C register-budget=N` (tests) keeps
//! values in only N registers.
//!
//! **Address registers.** An [`Op::SetAddr`] node takes the complex unit and one of
//! `addr1`–`addr3` (free once the last relative load of the previous value is placed); a
//! relative uniform operand is read by the load unit with that register's offset at least 4
//! instructions later (§9).
//!
//! Every schedule passes [`check`] (the machine layer's allocation checker on the final
//! instructions, with the store latencies) or is an internal error. A shader longer than 512
//! instructions, or needing more storage than registers and temporaries give, fails with a
//! limit error.

mod blocks;
mod check;
mod cycle;

pub use blocks::schedule_blocks;

use irc_backend::Diagnostic;

pub use check::File;
use check::{Kept, Port, Read};

use super::instr::Instruction;
use super::isa::{
    AccOp, ComplexOp, LoadOffset, MulOp, PassOp, Src, SrcClass, Unit, MAX_INSTRUCTIONS, REGISTERS,
    UNIFORM_SLOTS, UNKNOWN_1_BRANCH, UNKNOWN_1_TEMP_STORE,
};
use super::mir::{NodeId, Op, Operand, Program, Src as MSrc};
pub use cycle::Cyc;

/// A scheduled program and what it cost.
#[derive(Debug, Clone, Default)]
pub struct Schedule {
    pub instrs: Vec<Instruction>,
    pub stats: SchedStats,
    /// Uniform vec4s the program reads after the lowering's (from [`Config::uniform_base`]):
    /// the temporary addresses its temporary stores set `addr0` from.
    pub addr_literals: Vec<[f32; 4]>,
}

/// What the scheduler may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// vec4 registers values may be kept in (16 on the hardware; fewer forces spilling, for
    /// tests).
    pub registers: usize,
    /// The first uniform slot after the lowering's uniforms (address literals go there).
    pub uniform_base: u32,
}

/// Instructions from an address register write to the first load that adds it (§9).
const ADDR_LATENCY: u32 = 4;

/// Temporary vec4s values may be spilled to, from the top of the uniform/temporary space
/// down (`t[511]`, `t[510]`, …).
pub const MAX_TEMPS: usize = 64;

/// Counters of a schedule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchedStats {
    /// Register components stored (values kept past their forwarding window).
    pub reg_stores: u32,
    /// Register loads (register-0 loads of registers and register-1 loads).
    pub reg_loads: u32,
    /// Moves placed to store a value (to a register or a varying).
    pub movs: u32,
    /// Distinct vec4 registers written.
    pub registers: u32,
    /// Units doing work, over all instructions.
    pub units_filled: u32,
    /// Temporary components stored (spills) and temporary loads (fills).
    pub spills: u32,
    pub fills: u32,
}

/// How a placed value is forwarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A unit result: read `p1` and `p2`, storable by its own instruction.
    Unit(Unit),
    /// A `complex1` result: read as `p2` mul0 only.
    Complex1,
    /// Address register `addr<n>` (1–3) set: read by relative uniform loads from 4
    /// instructions on, never forwarded.
    Addr(u8),
}

#[derive(Debug, Clone, Copy)]
struct Home {
    file: File,
    /// Register, or temporary vec4 index.
    index: u16,
    comp: u8,
    /// First instruction whose register loads see the value.
    ready: u32,
    store_cycle: u32,
    /// Store unit and component of the store.
    k: usize,
    j: usize,
    /// The `mov` placed for the store, if the producing instruction could not store.
    mov: Option<Unit>,
    /// Register reads of the value.
    reads: u32,
}

#[derive(Debug, Clone, Copy)]
struct Val {
    def: u32,
    kind: Kind,
    /// Uses not placed yet.
    remaining: u32,
    home: Option<Home>,
    last_read: u32,
}

impl Val {
    /// (cycle, source) pairs the value can be forwarded at.
    fn windows(&self) -> [Option<(u32, Src)>; 2] {
        match self.kind {
            Kind::Unit(u) => [
                Src::from_forwarded(u, 1).map(|s| (self.def + 1, s)),
                Src::from_forwarded(u, 2).map(|s| (self.def + 2, s)),
            ],
            Kind::Complex1 => [Some((self.def + 2, Src::P2Mul0)), None],
            Kind::Addr(_) => [None, None],
        }
    }

    fn last_forward(&self) -> u32 {
        self.windows()
            .iter()
            .flatten()
            .map(|w| w.0)
            .max()
            .unwrap_or(self.def)
    }
}

/// A read of a value: (node, cycle, the register or temporary load that read it).
type Effect = (NodeId, u32, Option<Read>);

struct Sched<'a> {
    prog: &'a Program,
    cycles: Vec<Cyc>,
    vals: Vec<Option<Val>>,
    node_done: Vec<bool>,
    out_done: Vec<bool>,
    /// Per output storing a pinned register: the nodes reading that component (placed first).
    reg_readers: Vec<Vec<NodeId>>,
    /// The block's branch is placed.
    branch_done: bool,
    /// Operand producers not placed yet, per node.
    waiting: Vec<u32>,
    users: Vec<Vec<NodeId>>,
    height: Vec<u32>,
    /// Per register component: first cycle a new store may be placed at (`u32::MAX` while a
    /// value lives there).
    slot_free: [u32; REGISTERS * 4],
    /// The same per temporary component (`MAX_TEMPS` vec4s).
    temp_free: Vec<u32>,
    /// Spill to temporaries when no register is free.
    spill: bool,
    /// Per address register 1–3: first cycle a new value may be set (`u32::MAX` while one is
    /// in use).
    addr_free: [u32; 3],
    cfg: Config,
    /// Register and temporary reads placed, for the checker.
    reads: Vec<Read>,
    /// Temporaries are read through `mov`s in earlier instructions (leaving the load unit to
    /// a uniform operand).
    force_reload: bool,
    movs: u32,
    /// Register components in use from which ops that end values go first.
    pressure: usize,
}

/// Latency (instructions from the first step to the result being readable) of a node.
fn latency(op: Op) -> u32 {
    match op {
        Op::Rcp | Op::Rsqrt => 3,
        Op::Exp2 | Op::Log2 | Op::SetAddr => 4,
        _ => 1,
    }
}

fn internal(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::internal(None, msg)
}

/// Register-pressure thresholds tried in turn when a schedule runs out of registers.
const PRESSURE_STEPS: [usize; 4] = [40, 24, 8, 0];

/// Schedules `prog` (module doc): with the default pressure threshold, then, while the
/// registers run out, lower ones; then the same spilling to temporaries. The result passes
/// the register checker ([`check`]) or is an internal error.
pub fn schedule(prog: &Program, cfg: Config) -> Result<Schedule, Diagnostic> {
    let mut last = None;
    for spill in [false, true] {
        for p in PRESSURE_STEPS {
            let pressure = p * cfg.registers.min(REGISTERS) / REGISTERS;
            match schedule_with(prog, pressure, spill, cfg) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
    }
    Err(last.unwrap_or_else(|| internal("no schedule attempted")))
}

fn schedule_with(
    prog: &Program,
    pressure: usize,
    spill: bool,
    cfg: Config,
) -> Result<Schedule, Diagnostic> {
    let n = prog.nodes.len();
    let live = prog.live();
    let mut uses = vec![0u32; n];
    let mut waiting = vec![0u32; n];
    let mut users: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    for (i, node) in prog.nodes.iter().enumerate() {
        if !live[i] {
            continue;
        }
        for s in &node.srcs {
            if let Some(p) = s.producer() {
                if p as usize >= i {
                    return Err(internal(format!("node {i} reads the later node {p}")));
                }
                uses[p as usize] += 1;
                waiting[i] += 1;
                users[p as usize].push(i as NodeId);
            }
        }
    }
    for o in prog.outputs.iter().map(|o| &o.value).chain(&prog.branch) {
        if let Some(v) = o.producer() {
            uses[v as usize] += 1;
        }
    }
    let reg_readers = prog
        .outputs
        .iter()
        .map(|o| {
            if !o.register {
                return Vec::new();
            }
            let pinned = MSrc::Reg(o.varying, o.comp);
            (0..n as NodeId)
                .filter(|&i| live[i as usize])
                .filter(|&i| prog.nodes[i as usize].srcs.iter().any(|s| s.src == pinned))
                .collect()
        })
        .collect();
    let mut height = vec![0u32; n];
    for i in (0..n).rev() {
        let h = users[i]
            .iter()
            .map(|&u| height[u as usize])
            .max()
            .unwrap_or(0);
        height[i] = h + latency(prog.nodes[i].op);
    }
    let mut s = Sched {
        prog,
        cycles: Vec::new(),
        vals: vec![None; n],
        node_done: live.iter().map(|&l| !l).collect(),
        out_done: vec![false; prog.outputs.len()],
        reg_readers,
        branch_done: prog.branch.is_none(),
        waiting,
        users,
        height,
        slot_free: [0; REGISTERS * 4],
        temp_free: vec![0; MAX_TEMPS * 4],
        addr_free: [0; 3],
        spill,
        cfg,
        reads: Vec::new(),
        force_reload: false,
        movs: 0,
        pressure,
    };
    s.run(&uses)?;
    s.finish()
}

impl Sched<'_> {
    fn run(&mut self, uses: &[u32]) -> Result<(), Diagnostic> {
        let mut order: Vec<NodeId> = (0..self.prog.nodes.len() as NodeId)
            .filter(|&i| !self.node_done[i as usize])
            .collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(self.height[i as usize]), i));
        let mut rank = vec![0usize; self.prog.nodes.len()];
        for (k, &v) in order.iter().enumerate() {
            rank[v as usize] = k;
        }
        let total = order.len() + self.prog.outputs.len() + usize::from(!self.branch_done);
        let mut placed = 0usize;
        let mut t = 0u32;
        let mut idle = 0u32;
        while placed < total {
            if t as usize >= MAX_INSTRUCTIONS + 8 {
                return Err(Diagnostic::limit(format!(
                    "more than {MAX_INSTRUCTIONS} instructions (the GP's program limit, \
                     reference §12)"
                )));
            }
            self.ensure(t + 5);
            let before = placed;
            // Outputs of values forwarded for the last time here first: stored to their
            // varyings now, they need no register.
            for i in 0..self.prog.outputs.len() {
                let urgent = match self.prog.outputs[i].value.src {
                    MSrc::Node(v) => self.vals[v as usize].is_some_and(|x| x.last_forward() == t),
                    _ => false,
                };
                if urgent && !self.out_done[i] && self.output_ready(i, t) && self.try_output(i, t) {
                    self.out_done[i] = true;
                    placed += 1;
                }
            }
            self.rescue(t)?;
            loop {
                let mut progress = false;
                for i in 0..self.prog.outputs.len() {
                    if !self.out_done[i] && self.output_ready(i, t) && self.try_output(i, t) {
                        self.out_done[i] = true;
                        placed += 1;
                        progress = true;
                    }
                }
                let mut ready: Vec<NodeId> = order
                    .iter()
                    .copied()
                    .filter(|&v| !self.node_done[v as usize] && self.waiting[v as usize] == 0)
                    .collect();
                let busy = self.slot_free.iter().filter(|&&f| f == u32::MAX).count();
                if busy >= self.pressure {
                    // Under register pressure, ops that end values first.
                    ready.sort_by_key(|&v| (self.pressure_delta(v), rank[v as usize]));
                }
                for v in ready {
                    let vi = v as usize;
                    if self.node_done[vi] || self.waiting[vi] != 0 {
                        continue;
                    }
                    if self.try_node(v, t, uses[vi]) {
                        self.node_done[vi] = true;
                        for k in 0..self.users[vi].len() {
                            let u = self.users[vi][k] as usize;
                            self.waiting[u] -= 1;
                        }
                        placed += 1;
                        progress = true;
                    }
                }
                if !progress {
                    break;
                }
            }
            if !self.branch_done && placed + 1 == total && self.try_branch(t) {
                self.branch_done = true;
                placed += 1;
            }
            idle = if placed == before { idle + 1 } else { 0 };
            if idle > 16 {
                return Err(internal(format!(
                    "the GP scheduler made no progress at instruction {t}"
                )));
            }
            t += 1;
        }
        Ok(())
    }

    /// Register components a node would add (its result, if used) minus those its placement
    /// may free (operands in registers read for the last time).
    fn pressure_delta(&self, v: NodeId) -> i32 {
        let mut d = i32::from(!self.users[v as usize].is_empty());
        for o in &self.prog.nodes[v as usize].srcs {
            if let MSrc::Node(p) = o.src {
                if let Some(val) = self.vals[p as usize] {
                    if val.remaining == 1 && val.home.is_some() {
                        d -= 1;
                    }
                }
            }
        }
        d
    }

    fn ensure(&mut self, len: u32) {
        if self.cycles.len() < len as usize {
            self.cycles.resize(len as usize, Cyc::default());
        }
    }

    /// True if output `i` can be stored at `t`: its value is placed and, for a pinned register,
    /// every node reading the register's old value has read it (a node reads its sources from
    /// its first step to its result's cycle: a complex sequence reads `x` again in `complex1`),
    /// so that no read falls between the store and its visibility (reference §9).
    fn output_ready(&self, i: usize, t: u32) -> bool {
        let readers_done = self.reg_readers[i].iter().all(|&r| {
            self.node_done[r as usize] && self.vals[r as usize].is_none_or(|v| v.def <= t)
        });
        readers_done
            && match self.prog.outputs[i].value.producer() {
                Some(v) => self.vals[v as usize].is_some(),
                None => true,
            }
    }

    /// Places the block's branch at `t` once everything else is: the last instruction of the
    /// block (nothing placed after it), at least 2 instructions after the last register store
    /// (reference §9: no register store in a block's last 2 instructions), its pass unit
    /// passing the condition (reference §8.4), without a temporary store.
    fn try_branch(&mut self, t: u32) -> bool {
        let Some(cond) = self.prog.branch else {
            return true;
        };
        let ti = t as usize;
        if self.cycles[ti + 1..].iter().any(|c| !c.is_empty()) {
            return false;
        }
        let last_store = self.cycles[..=ti].iter().rposition(|c| {
            c.ins
                .store
                .iter()
                .any(|s| s.active() && !s.temporary && !s.varying)
        });
        if last_store.is_some_and(|s| ti < s + 2) {
            return false;
        }
        if self.cycles[ti].temp.is_some() || self.cycles[ti].pass {
            return false;
        }
        let placed = self.attempt(t, |s, eff| {
            let src = s.read(t, cond.src, eff)?;
            let c = &mut s.cycles[ti];
            c.pass = true;
            c.ins.pass_op = PassOp::Pass;
            c.ins.pass_src = src;
            c.ins.branch = true;
            c.ins.unknown_1 = UNKNOWN_1_BRANCH as u8;
            Some(())
        });
        match placed {
            Some(((), eff)) => {
                self.reads.extend(eff.iter().filter_map(|e| e.2));
                self.commit(&eff);
                true
            }
            None => false,
        }
    }

    /// Reads `src` at cycle `t`, taking a load port if needed.
    fn read(&mut self, t: u32, src: MSrc, eff: &mut Vec<Effect>) -> Option<Src> {
        let ti = t as usize;
        match src {
            MSrc::Node(v) => {
                let val = self.vals[v as usize]?;
                for (c, code) in val.windows().into_iter().flatten() {
                    if c == t {
                        eff.push((v, t, None));
                        return Some(code);
                    }
                }
                let h = val.home?;
                if t < h.ready {
                    return None;
                }
                let (code, load_cycle, port) = match h.file {
                    File::Reg => {
                        let code = self.read_reg(t, h.index as u8, false, h.ready)?;
                        match code {
                            SrcClass::Reg0 => (code, t, Port::Reg0),
                            SrcClass::Reg1 => (code, t, Port::Reg1),
                            _ => (code, t - 1, Port::Reg0),
                        }
                    }
                    File::Temp => {
                        if self.force_reload || self.load_port(ti, h.index).is_none() {
                            return self.reload(v, h, t, eff);
                        }
                        (SrcClass::Load, t, Port::Load)
                    }
                };
                let read = Read {
                    value: v,
                    load_cycle,
                    port,
                    comp: h.comp,
                };
                eff.push((v, t, Some(read)));
                Some(Src::load(code, h.comp)?)
            }
            MSrc::Attr(a, c) => Src::load(self.read_reg(t, a, true, 0)?, c),
            MSrc::Reg(r, c) => Src::load(self.read_reg(t, r, false, 0)?, c),
            MSrc::Uni(slot, c) => {
                self.load_port(ti, u16::try_from(slot).ok()?)?;
                Src::load(SrcClass::Load, c)
            }
            MSrc::UniRel(slot, a, c) => {
                let val = self.vals[a as usize]?;
                let Kind::Addr(k) = val.kind else {
                    return None;
                };
                if t < val.def + ADDR_LATENCY {
                    return None;
                }
                self.load_port_at(ti, u16::try_from(slot).ok()?, k)?;
                eff.push((a, t, None));
                Src::load(SrcClass::Load, c)
            }
        }
    }

    /// A temporary read when the load unit of `t` is taken: loaded by one of the two previous
    /// instructions and moved there, the `mov` forwarded to `t`.
    fn reload(&mut self, v: NodeId, h: Home, t: u32, eff: &mut Vec<Effect>) -> Option<Src> {
        for back in 1..=2u32 {
            if t < back || t - back < h.ready {
                continue;
            }
            let c = (t - back) as usize;
            let saved = self.cycles[c];
            if self.load_port(c, h.index).is_some() {
                if let Some(u) = self.cycles[c].place_mov(Src::load(SrcClass::Load, h.comp)?, false)
                {
                    let read = Read {
                        value: v,
                        load_cycle: t - back,
                        port: Port::Load,
                        comp: h.comp,
                    };
                    eff.push((v, t, Some(read)));
                    return Src::from_forwarded(u, back);
                }
            }
            self.cycles[c] = saved;
        }
        None
    }

    /// The uniform/temporary load of instruction `ti` reading vec4 `slot`.
    fn load_port(&mut self, ti: usize, slot: u16) -> Option<()> {
        self.load_port_at(ti, slot, 0)
    }

    /// The load of instruction `ti` reading vec4 `slot` plus address register `addr<k>` (0:
    /// none).
    fn load_port_at(&mut self, ti: usize, slot: u16, k: u8) -> Option<()> {
        let cyc = &mut self.cycles[ti];
        match cyc.load {
            Some(s) if s == slot && cyc.load_off == k => {}
            Some(_) => return None,
            None => {
                cyc.load = Some(slot);
                cyc.load_off = k;
                cyc.ins.load_addr = slot;
                cyc.ins.load_offset = match k {
                    1 => LoadOffset::Addr1,
                    2 => LoadOffset::Addr2,
                    3 => LoadOffset::Addr3,
                    _ => LoadOffset::None,
                };
            }
        }
        Some(())
    }

    /// A load port reading register (or attribute) `r` at `t`: this instruction's register 0
    /// or 1, or the previous instruction's register 0 (not before `ready`).
    fn read_reg(&mut self, t: u32, r: u8, attr: bool, ready: u32) -> Option<SrcClass> {
        let ti = t as usize;
        let prev_ok = t >= 1 && t > ready;
        if self.cycles[ti].reg0 == Some((r, attr)) {
            return Some(SrcClass::Reg0);
        }
        if !attr && self.cycles[ti].reg1 == Some(r) {
            return Some(SrcClass::Reg1);
        }
        if prev_ok && self.cycles[ti - 1].reg0 == Some((r, attr)) {
            return Some(SrcClass::PrevReg0);
        }
        if !attr && self.cycles[ti].reg1.is_none() {
            self.cycles[ti].reg1 = Some(r);
            self.cycles[ti].ins.reg1_addr = r;
            return Some(SrcClass::Reg1);
        }
        let set0 = |c: &mut Cyc| {
            c.reg0 = Some((r, attr));
            c.ins.reg0_addr = r;
            c.ins.reg0_attribute = attr;
        };
        if self.cycles[ti].reg0.is_none() {
            set0(&mut self.cycles[ti]);
            return Some(SrcClass::Reg0);
        }
        if prev_ok && self.cycles[ti - 1].reg0.is_none() {
            set0(&mut self.cycles[ti - 1]);
            return Some(SrcClass::PrevReg0);
        }
        None
    }

    /// Runs `f` on the cycles from `t − 2`; undoes its changes when it fails.
    fn attempt<R>(
        &mut self,
        t: u32,
        f: impl FnOnce(&mut Self, &mut Vec<Effect>) -> Option<R>,
    ) -> Option<(R, Vec<Effect>)> {
        let lo = t.saturating_sub(2) as usize;
        let hi = (t as usize + 5).min(self.cycles.len());
        let saved: Vec<Cyc> = self.cycles[lo..hi].to_vec();
        let mut eff = Vec::new();
        match f(self, &mut eff) {
            Some(r) => Some((r, eff)),
            None => {
                self.cycles[lo..hi].copy_from_slice(&saved);
                None
            }
        }
    }

    /// Records the reads of a placed op.
    fn commit(&mut self, eff: &[Effect]) {
        for &(v, cyc, reg) in eff {
            let Some(val) = self.vals[v as usize].as_mut() else {
                continue;
            };
            val.remaining = val.remaining.saturating_sub(1);
            if let Kind::Addr(k) = val.kind {
                val.last_read = val.last_read.max(cyc);
                if val.remaining == 0 {
                    self.addr_free[usize::from(k) - 1] = val.last_read + 1;
                }
                continue;
            }
            if reg.is_some() {
                val.last_read = val.last_read.max(cyc);
                if let Some(h) = val.home.as_mut() {
                    h.reads += 1;
                }
            }
            if val.remaining == 0 {
                if let Some(h) = val.home {
                    let free = val.last_read.max(h.store_cycle);
                    *self.free_slot(h.file, h.index, h.comp) = free;
                }
            }
        }
    }

    /// The free-from cycle of a register or temporary component.
    fn free_slot(&mut self, file: File, index: u16, comp: u8) -> &mut u32 {
        let i = usize::from(index) * 4 + usize::from(comp);
        match file {
            File::Reg => &mut self.slot_free[i],
            File::Temp => &mut self.temp_free[temp_number(index) * 4 + usize::from(comp)],
        }
    }

    fn try_node(&mut self, v: NodeId, t: u32, uses: u32) -> bool {
        let prog = self.prog;
        let node = &prog.nodes[v as usize];
        let srcs: Vec<Operand> = node.srcs.to_vec();
        let op = node.op;
        let mut placed = self.attempt(t, |s, eff| s.place(op, &srcs, t, eff));
        if placed.is_none() && self.spill {
            self.force_reload = true;
            placed = self.attempt(t, |s, eff| s.place(op, &srcs, t, eff));
            self.force_reload = false;
        }
        let Some(((def, kind), eff)) = placed else {
            return false;
        };
        self.reads.extend(eff.iter().filter_map(|e| e.2));
        // A node reading one value twice is one use per operand.
        self.commit(&eff_dedup(&eff, &srcs));
        self.vals[v as usize] = Some(Val {
            def,
            kind,
            remaining: uses,
            home: None,
            last_read: def,
        });
        true
    }

    /// Places `op` at `t`; returns the result's cycle and kind.
    fn place(
        &mut self,
        op: Op,
        srcs: &[Operand],
        t: u32,
        eff: &mut Vec<Effect>,
    ) -> Option<(u32, Kind)> {
        let ti = t as usize;
        let acc_op = match op {
            Op::Add => Some(AccOp::Add),
            Op::Min => Some(AccOp::Min),
            Op::Max => Some(AccOp::Max),
            Op::Ge => Some(AccOp::Ge),
            Op::Lt => Some(AccOp::Lt),
            Op::Floor => Some(AccOp::Floor),
            Op::Sign => Some(AccOp::Sign),
            _ => None,
        };
        if let Some(aop) = acc_op {
            let i = self.cycles[ti].free_acc(aop)?;
            let s0 = self.read(t, srcs[0].src, eff)?;
            let (s1, n1) = match srcs.get(1) {
                Some(o) => (self.read(t, o.src, eff)?, o.neg),
                // One-source ops leave src1 at 0, as Mesa's code generator (and our
                // assembler) writes it.
                None => (Src::Reg0X, false),
            };
            self.cycles[ti].set_acc(i, aop, [s0, s1], [srcs[0].neg, n1]);
            return Some((t, Kind::Unit([Unit::Acc0, Unit::Acc1][i])));
        }
        match op {
            Op::Mul => {
                let i = self.cycles[ti].free_mul()?;
                let s0 = self.read(t, srcs[0].src, eff)?;
                let s1 = self.read(t, srcs[1].src, eff)?;
                self.cycles[ti].set_mul(i, [s0, s1], srcs[1].neg);
                Some((t, Kind::Unit([Unit::Mul0, Unit::Mul1][i])))
            }
            Op::Mov => {
                let s = self.read(t, srcs[0].src, eff)?;
                let u = self.cycles[ti].place_mov(s, srcs[0].neg)?;
                Some((t, Kind::Unit(u)))
            }
            Op::Select => {
                if !self.cycles[ti].muls_free() {
                    return None;
                }
                let c = self.read(t, srcs[0].src, eff)?;
                let a = self.read(t, srcs[1].src, eff)?;
                let b = self.read(t, srcs[2].src, eff)?;
                let cyc = &mut self.cycles[ti];
                cyc.mul = [true; 2];
                cyc.ins.mul_op = MulOp::Select;
                cyc.ins.mul[0].src = [b, c];
                cyc.ins.mul[1].src = [a, Src::Unused];
                Some((t, Kind::Unit(Unit::Mul0)))
            }
            Op::Rcp | Op::Rsqrt | Op::Log2 => {
                let cop = match op {
                    Op::Rcp => ComplexOp::Rcp,
                    Op::Rsqrt => ComplexOp::Rsqrt,
                    _ => ComplexOp::Log2,
                };
                if self.cycles[ti].complex
                    || !self.cycles[ti].muls_free()
                    || !self.cycles[ti + 1].muls_free()
                    || (op == Op::Log2 && self.cycles[ti + 3].pass)
                {
                    return None;
                }
                let x0 = self.read(t, srcs[0].src, eff)?;
                self.impl_step(ti, cop, x0, x0);
                let x1 = self.read(t + 1, srcs[0].src, eff)?;
                self.complex1(ti + 1, x1);
                if op == Op::Log2 {
                    self.cycles[ti + 3].set_pass(PassOp::PostLog2, Src::P2Mul0);
                    return Some((t + 3, Kind::Unit(Unit::Pass)));
                }
                Some((t + 1, Kind::Complex1))
            }
            Op::Exp2 => {
                if self.cycles[ti].pass
                    || self.cycles[ti + 1].complex
                    || !self.cycles[ti + 1].muls_free()
                    || !self.cycles[ti + 2].muls_free()
                {
                    return None;
                }
                let x = self.read(t, srcs[0].src, eff)?;
                self.cycles[ti].set_pass(PassOp::PreExp2, x);
                self.impl_step(ti + 1, ComplexOp::Exp2, Src::P1Pass, Src::P1Pass);
                self.complex1(ti + 2, Src::P2Pass);
                Some((t + 2, Kind::Complex1))
            }
            Op::SetAddr => {
                if self.cycles[ti].complex || self.cycles[ti].temp.is_some() {
                    return None;
                }
                let k = (0..3).find(|&k| self.addr_free[k] <= t)?;
                let x = self.read(t, srcs[0].src, eff)?;
                let cyc = &mut self.cycles[ti];
                cyc.complex = true;
                cyc.ins.complex_op = [
                    ComplexOp::TempLoadAddr0,
                    ComplexOp::TempLoadAddr1,
                    ComplexOp::TempLoadAddr2,
                ][k];
                cyc.ins.complex_src = x;
                self.addr_free[k] = u32::MAX;
                Some((t, Kind::Addr(k as u8 + 1)))
            }
            Op::Add | Op::Min | Op::Max | Op::Ge | Op::Lt | Op::Floor | Op::Sign => None,
        }
    }

    /// The impl step on the complex unit and `complex2` on mul0 (mul1 idle).
    fn impl_step(&mut self, ti: usize, op: ComplexOp, x: Src, x2: Src) {
        let cyc = &mut self.cycles[ti];
        cyc.complex = true;
        cyc.ins.complex_op = op;
        cyc.ins.complex_src = x;
        cyc.mul = [true; 2];
        cyc.ins.mul_op = MulOp::Complex2;
        cyc.ins.mul[0].src = [x2, x2];
    }

    /// `complex1(impl, complex2, impl, x)` reading the previous instruction's steps.
    fn complex1(&mut self, ti: usize, x: Src) {
        let cyc = &mut self.cycles[ti];
        cyc.mul = [true; 2];
        cyc.ins.mul_op = MulOp::Complex1;
        cyc.ins.mul[0].src = [Src::Ident, Src::P1Mul0];
        cyc.ins.mul[1].src = [Src::Ident, x];
    }

    fn try_output(&mut self, i: usize, t: u32) -> bool {
        let o = self.prog.outputs[i];
        let (k, j) = (usize::from(o.comp / 2), usize::from(o.comp % 2));
        let ti = t as usize;
        let varying = !o.register;
        if !self.cycles[ti].store_fits(k, j, o.varying, varying) {
            return false;
        }
        if let MSrc::Node(v) = o.value.src {
            if let Some(val) = self.vals[v as usize] {
                if let (Kind::Unit(u), false, true) = (val.kind, o.value.neg, val.def == t) {
                    self.cycles[ti].set_store(k, j, o.varying, varying, u);
                    self.commit(&[(v, t, None)]);
                    return true;
                }
            }
        }
        let placed = self.attempt(t, |s, eff| {
            let src = s.read(t, o.value.src, eff)?;
            let u = s.cycles[ti].place_mov(src, o.value.neg)?;
            s.cycles[ti].set_store(k, j, o.varying, varying, u);
            Some(())
        });
        match placed {
            Some(((), eff)) => {
                self.movs += 1;
                self.reads.extend(eff.iter().filter_map(|e| e.2));
                self.commit(&eff);
                true
            }
            None => false,
        }
    }

    /// Gives a register to every value whose forwarding ends at `t` and that has users left
    /// (a temporary when no register is free and spilling is on).
    fn rescue(&mut self, t: u32) -> Result<(), Diagnostic> {
        // Early, while more instructions can still store it: a value forwarded until `t + 1`
        // with a user that waits for another producer too.
        for v in 0..self.vals.len() {
            let Some(val) = self.vals[v] else { continue };
            if val.remaining == 0
                || val.home.is_some()
                || val.last_forward() != t + 1
                || matches!(val.kind, Kind::Addr(_))
            {
                continue;
            }
            if !self.users[v].iter().any(|&u| self.waiting[u as usize] > 0) {
                continue;
            }
            if let Some(home) = self.keep(&val, File::Reg) {
                self.set_home(v, home);
            }
        }
        for v in 0..self.vals.len() {
            let Some(val) = self.vals[v] else { continue };
            if val.remaining == 0
                || val.home.is_some()
                || val.last_forward() > t
                || matches!(val.kind, Kind::Addr(_))
            {
                continue;
            }
            let mut kept = self.keep(&val, File::Reg);
            if kept.is_none() && self.spill {
                kept = self.keep(&val, File::Temp);
            }
            if kept.is_none() && self.relay(v, t) {
                continue;
            }
            let home = kept.ok_or_else(|| {
                Diagnostic::limit(format!(
                    "no register component, temporary or store unit free to keep a value past \
                     its forwarding window at instruction {t} (the GP has {} vec4 registers; \
                     at most {MAX_TEMPS} temporaries are used for spilling)",
                    self.cfg.registers
                ))
            })?;
            self.set_home(v, home);
        }
        Ok(())
    }

    /// No store is possible: a `mov` at `t` forwards the value two more instructions (the
    /// value becomes the mov's result), and the store is tried again then.
    fn relay(&mut self, v: usize, t: u32) -> bool {
        let Some(val) = self.vals[v] else {
            return false;
        };
        let Some((_, code)) = val.windows().into_iter().flatten().find(|w| w.0 == t) else {
            return false;
        };
        let Some(u) = self.cycles[t as usize].place_mov(code, false) else {
            return false;
        };
        self.movs += 1;
        if let Some(x) = self.vals[v].as_mut() {
            x.def = t;
            x.kind = Kind::Unit(u);
        }
        true
    }

    fn set_home(&mut self, v: usize, home: Home) {
        *self.free_slot(home.file, home.index, home.comp) = u32::MAX;
        if let Some(x) = self.vals[v].as_mut() {
            x.home = Some(home);
        }
    }

    /// Stores `val` to a free component of `file`: by its own instruction, or through a `mov`
    /// in an instruction that still forwards it.
    fn keep(&mut self, val: &Val, file: File) -> Option<Home> {
        if let Kind::Unit(u) = val.kind {
            if let Some(h) = self.store(file, val.def, u, None) {
                return Some(h);
            }
        }
        for (f, code) in val.windows().into_iter().flatten() {
            let fi = f as usize;
            let saved = self.cycles[fi];
            let Some(u) = self.cycles[fi].place_mov(code, false) else {
                continue;
            };
            if let Some(h) = self.store(file, f, u, Some(u)) {
                return Some(h);
            }
            self.cycles[fi] = saved;
        }
        None
    }

    fn store(&mut self, file: File, c: u32, unit: Unit, mov: Option<Unit>) -> Option<Home> {
        let (k, j, index) = match file {
            File::Reg => self.store_reg(c, unit)?,
            File::Temp => self.store_temp(c, unit)?,
        };
        Some(Home {
            file,
            index,
            comp: (2 * k + j) as u8,
            ready: c + file.latency(),
            store_cycle: c,
            k,
            j,
            mov,
            reads: 0,
        })
    }

    /// A register store of `unit`'s result at cycle `c` into a free component: (store unit,
    /// component in it, register).
    fn store_reg(&mut self, c: u32, unit: Unit) -> Option<(usize, usize, u16)> {
        let ci = c as usize;
        let free = |s: &Self, r: u8, comp: usize| s.slot_free[usize::from(r) * 4 + comp] <= c;
        let mut choice = None;
        'search: for k in 0..2 {
            for j in 0..2 {
                let st = self.cycles[ci].ins.store[k];
                if st.active()
                    && !st.temporary
                    && self.cycles[ci].store_fits(k, j, st.addr, false)
                    && usize::from(st.addr) < self.cfg.registers
                    && free(self, st.addr, 2 * k + j)
                {
                    choice = Some((k, j, st.addr));
                    break 'search;
                }
            }
        }
        // A fresh store unit: a register with both of the unit's components free first, so
        // that another value can share the store.
        for both in [true, false] {
            if choice.is_some() {
                break;
            }
            'fresh: for k in 0..2 {
                if self.cycles[ci].ins.store[k].active() {
                    continue;
                }
                for r in 0..self.cfg.registers.min(REGISTERS) as u8 {
                    let (a, b) = (free(self, r, 2 * k), free(self, r, 2 * k + 1));
                    if both && !(a && b) {
                        continue;
                    }
                    if a || b {
                        choice = Some((k, usize::from(!a), r));
                        break 'fresh;
                    }
                }
            }
        }
        let (k, j, r) = choice?;
        self.cycles[ci].set_store(k, j, r, false, unit);
        Some((k, j, u16::from(r)))
    }

    /// A temporary store of `unit`'s result at cycle `c` (module doc): into the temporary
    /// vec4 `addr0` already holds there, or a fresh one whose address literal the instruction's
    /// load unit can read while its complex unit sets `addr0`.
    fn store_temp(&mut self, c: u32, unit: Unit) -> Option<(usize, usize, u16)> {
        let ci = c as usize;
        let cyc = self.cycles[ci];
        let free = |s: &Self, n: usize, comp: usize| s.temp_free[n * 4 + comp] <= c;
        let open = |k: usize, j: usize| {
            let st = cyc.ins.store[k];
            !st.active() || (st.temporary && st.src[j] == super::isa::StoreSrc::None)
        };
        let pick =
            |s: &Self, n: usize| (0..4).find(|&comp| open(comp / 2, comp % 2) && free(s, n, comp));
        let (n, comp) = if let Some(index) = cyc.temp {
            let n = temp_number(index);
            (n, pick(self, n)?)
        } else {
            if cyc.complex || cyc.ins.branch {
                return None;
            }
            (0..MAX_TEMPS)
                .filter(|&n| {
                    let lit = self.cfg.uniform_base + (n / 4) as u32;
                    cyc.load.is_none_or(|l| u32::from(l) == lit)
                })
                .find_map(|n| pick(self, n).map(|comp| (n, comp)))?
        };
        let index = temp_index(n);
        let (k, j) = (comp / 2, comp % 2);
        let cyc = &mut self.cycles[ci];
        if cyc.temp.is_none() {
            let lit = (self.cfg.uniform_base + (n / 4) as u32) as u16;
            cyc.temp = Some(index);
            cyc.complex = true;
            cyc.load = Some(lit);
            cyc.ins.load_addr = lit;
            cyc.ins.complex_op = ComplexOp::TempStoreAddr;
            cyc.ins.complex_src = Src::load(SrcClass::Load, (n % 4) as u8)?;
            cyc.ins.unknown_1 = UNKNOWN_1_TEMP_STORE as u8;
        }
        let st = &mut cyc.ins.store[k];
        st.temporary = true;
        st.varying = false;
        st.addr = 0;
        st.src[j] = super::isa::StoreSrc::from_unit(unit);
        Some((k, j, index))
    }

    /// Removes stores never read, trims the empty tail, checks the registers and temporaries
    /// ([`check`]) and counts.
    fn finish(mut self) -> Result<Schedule, Diagnostic> {
        let mut stats = SchedStats::default();
        let mut regs = [false; REGISTERS];
        let mut kept = Vec::new();
        let mut temps = 0usize;
        for (v, val) in self.vals.iter().enumerate() {
            let Some(h) = val.and_then(|x| x.home) else {
                continue;
            };
            let c = &mut self.cycles[h.store_cycle as usize];
            if h.reads == 0 {
                c.clear_store(h.k, h.j);
                if let Some(u) = h.mov {
                    c.remove_unit(u);
                }
                if h.file == File::Temp && !c.ins.store.iter().any(|s| s.temporary) {
                    c.clear_temp(self.cfg.uniform_base);
                }
                continue;
            }
            stats.movs += u32::from(h.mov.is_some());
            match h.file {
                File::Reg => {
                    stats.reg_stores += 1;
                    regs[usize::from(h.index)] = true;
                }
                File::Temp => {
                    stats.spills += 1;
                    stats.fills += h.reads;
                    temps = temps.max(temp_number(h.index) + 1);
                }
            }
            kept.push(Kept {
                value: v as NodeId,
                file: h.file,
                index: h.index,
                comp: h.comp,
                store_cycle: h.store_cycle,
            });
        }
        while self.cycles.last().is_some_and(Cyc::is_empty) {
            self.cycles.pop();
        }
        if self.cycles.is_empty() {
            // A program is at least one instruction (one that stores nothing).
            self.cycles.push(Cyc::default());
        }
        // A block storing a pinned register for later blocks ends at least 2 instructions
        // after the store (reference §9); the branch, when there is one, is placed so already.
        let last_reg_store = self.cycles.iter().rposition(|c| {
            c.ins
                .store
                .iter()
                .any(|s| s.active() && !s.temporary && !s.varying)
        });
        if let Some(k) = last_reg_store {
            let len = self.cycles.len().max(k + 3);
            self.cycles.resize(len, Cyc::default());
        }
        stats.movs += self.movs;
        stats.registers = regs.iter().filter(|&&r| r).count() as u32;
        for c in &self.cycles {
            stats.units_filled += c.filled();
            stats.reg_loads += u32::from(matches!(c.reg0, Some((_, false))));
            stats.reg_loads += u32::from(c.reg1.is_some());
        }
        let addr_literals: Vec<[f32; 4]> = (0..temps.div_ceil(4))
            .map(|m| [0, 1, 2, 3].map(|i| f32::from(temp_index(4 * m + i))))
            .collect();
        let top = self.cfg.uniform_base as usize + addr_literals.len();
        if temps > 0 && top > UNIFORM_SLOTS - temps {
            return Err(Diagnostic::limit(format!(
                "{top} uniform vec4s and {temps} temporaries do not fit the {UNIFORM_SLOTS} \
                 vec4s of the uniform/temporary space"
            )));
        }
        let instrs: Vec<Instruction> = self.cycles.iter().map(|c| c.ins).collect();
        check::check(
            &instrs,
            &kept,
            &self.reads,
            (self.cfg.uniform_base, &addr_literals),
        )
        .map_err(|e| internal(format!("the GP register checker rejects the schedule: {e}")))?;
        Ok(Schedule {
            instrs,
            stats,
            addr_literals,
        })
    }
}

/// The vec4 index of temporary number `n` (from the top of the space down).
fn temp_index(n: usize) -> u16 {
    (UNIFORM_SLOTS - 1 - n) as u16
}

/// The number of the temporary at vec4 `index`.
fn temp_number(index: u16) -> usize {
    UNIFORM_SLOTS - 1 - usize::from(index)
}

/// One read per operand (a value read twice by one op, e.g. `rcp` reading `x` at two
/// instructions, counts once per operand, and through a register if any read was).
fn eff_dedup(eff: &[Effect], srcs: &[Operand]) -> Vec<Effect> {
    let mut out: Vec<Effect> = Vec::new();
    let mut per_operand: Vec<NodeId> = srcs.iter().filter_map(Operand::producer).collect();
    for &(v, c, reg) in eff {
        if let Some(e) = out.iter_mut().find(|e| e.0 == v) {
            if reg.is_some() {
                e.1 = e.1.max(c);
                e.2 = reg;
            }
            continue;
        }
        out.push((v, c, reg));
    }
    // Operands naming one value several times are several uses.
    let mut result = Vec::new();
    for e in out {
        let n = per_operand.iter().filter(|&&x| x == e.0).count();
        per_operand.retain(|&x| x != e.0);
        for _ in 0..n.max(1) {
            result.push(e);
        }
    }
    result
}
