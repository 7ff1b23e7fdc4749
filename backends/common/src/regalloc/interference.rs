//! The interference graph: which virtual registers may not share a lane, and at which
//! relative lane offsets.
//!
//! The classic construction, at the granularity of the steps inside a point (reads of stage
//! 0, writes of stage 0, reads of stage 1, …): walking each block backward from its live-out
//! set, every group of writes of one stage conflicts with every component live right after
//! the group — including dead writes, which still write their lanes — and the writes of one
//! group conflict with each other (they land at the same time). So a value last read at stage
//! `t` may share lanes with a value written at stage `s >= t` of the same point, but not with
//! one written at `s < t`. Components undefined at the entry are written there, all at once:
//! they conflict pairwise. A virtual register never interferes with itself (a partial write
//! leaves its other components where they are).
//!
//! Two virtual registers interfere when some component of one conflicts with some component
//! of the other. The graph also records *which* components: component `i` of `v` and `j` of
//! `n` conflict iff they must not share a lane, i.e. iff `v` and `n` may not sit in one register
//! with `lane(n) − lane(v) = i − j`. So a vector whose only live component is `w` while a
//! scalar is written blocks one lane for it, not four. For each edge `v → n` this is a 15-bit
//! mask `S(v, n)` with bit `j − i + 7` set per conflicting pair; with `n` at lane `l`, the
//! first lanes of `v` it forbids are the bits of `S(v, n) >> (7 − l)`. `S(n, v)` is `S(v, n)`
//! bit-reversed.
//!
//! Conflicts are collected as `(a, b, S(a, b))` with `a < b`, sorted by two stable counting
//! passes (by `b`, then by `a`: time linear in the number of conflicts and virtual registers,
//! where a comparison sort of the hundreds of thousands of conflicts of a large shader took
//! more than half of the build), merged, and stored as sorted adjacency lists (CSR): memory is
//! linear in the number of edges.

use super::liveness::{reverse_postorder_reachable, Event, Scanner};
use super::{Liveness, Loc, Program, VReg};

/// The interference graph of a program, plus what the colorer needs to know about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interference {
    /// `adj[offsets[v]..offsets[v + 1]]` are the neighbours of `v`, sorted; `shift` the
    /// matching `S(v, n)` masks (see the module doc).
    offsets: Vec<u32>,
    adj: Vec<VReg>,
    shift: Vec<u16>,
    accessed: Vec<bool>,
    /// Linear position (reachable blocks in reverse post-order, then the others) of the
    /// first step where each vreg is written or live.
    start: Vec<u32>,
    max_pressure: u32,
}

impl Interference {
    /// The virtual registers interfering with `v`, sorted.
    pub fn neighbors(&self, v: VReg) -> &[VReg] {
        let (a, b) = self.range(v);
        &self.adj[a..b]
    }

    fn range(&self, v: VReg) -> (usize, usize) {
        let i = v.index();
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => (a as usize, b as usize),
            _ => (0, 0),
        }
    }

    /// The positions of `v`'s edges in [`Interference::adjacency`] (for per-edge tables).
    pub(crate) fn edge_range(&self, v: VReg) -> std::ops::Range<usize> {
        let (a, b) = self.range(v);
        a..b
    }

    /// Every vertex's neighbours and `S` masks, concatenated in vertex order.
    pub(crate) fn adjacency(&self) -> (&[VReg], &[u16]) {
        (&self.adj, &self.shift)
    }

    /// The `S(v, n)` masks of `v`'s neighbours, in the order of [`Interference::neighbors`].
    pub(crate) fn shifts(&self, v: VReg) -> &[u16] {
        let (a, b) = self.range(v);
        &self.shift[a..b]
    }

    /// Whether `a` and `b` interfere (some components of theirs may not share a lane).
    pub fn interferes(&self, a: VReg, b: VReg) -> bool {
        self.neighbors(a).binary_search(&b).is_ok()
    }

    /// Whether `a` at `la` and `b` at `lb` can coexist: different registers, or no
    /// conflicting components in a common lane.
    pub fn compatible(&self, a: VReg, la: Loc, b: VReg, lb: Loc) -> bool {
        if la.reg != lb.reg {
            return true;
        }
        match self.neighbors(a).binary_search(&b) {
            Ok(k) => {
                let s = self.shifts(a)[k];
                // Bit `la − lb + 7` of S(a, b): a conflicting (i, j) with la + i = lb + j.
                let bit = i32::from(la.lane) - i32::from(lb.lane) + 7;
                !(0..15).contains(&bit) || s & (1 << bit) == 0
            }
            Err(_) => true,
        }
    }

    /// Number of neighbours of `v`.
    pub fn degree(&self, v: VReg) -> usize {
        self.neighbors(v).len()
    }

    /// Whether some point reads or writes `v` (only those get a location).
    pub fn is_accessed(&self, v: VReg) -> bool {
        self.accessed.get(v.index()).copied().unwrap_or(false)
    }

    /// [`Program::max_pressure`], computed on the way (including the undefined components
    /// written at the entry).
    pub fn max_pressure(&self) -> u32 {
        self.max_pressure
    }

    /// Number of edges.
    pub fn edges(&self) -> usize {
        self.adj.len() / 2
    }

    /// Linear start position of `v` (for greedy orderings).
    pub(crate) fn start(&self, v: VReg) -> u32 {
        self.start.get(v.index()).copied().unwrap_or(u32::MAX)
    }
}

/// `S(a, b)` for components `ma` of `a` conflicting with components `mb` of `b`.
fn shift_mask(ma: u8, mb: u8) -> u16 {
    let mut s = 0u16;
    let mut rest = ma;
    while rest != 0 {
        s |= (u16::from(mb) << 7) >> rest.trailing_zeros();
        rest &= rest - 1;
    }
    s
}

/// `S(n, v)` from `S(v, n)`.
pub(crate) fn mirror(s: u16) -> u16 {
    s.reverse_bits() >> 1
}

/// Collected conflicts: `(a, b, S(a, b))`, `a < b`.
#[derive(Debug, Default)]
struct Pairs(Vec<(u32, u32, u16)>);

impl Pairs {
    fn add(&mut self, a: VReg, ma: u8, b: VReg, mb: u8) {
        if a == b {
            return;
        }
        let s = shift_mask(ma, mb);
        if a < b {
            self.0.push((a.0, b.0, s));
        } else {
            self.0.push((b.0, a.0, mirror(s)));
        }
    }
}

/// Builds the interference graph of `program` from its liveness (see the module doc).
/// Malformed references are ignored, as in [`super::liveness()`].
pub fn interference(program: &Program, live: &Liveness) -> Interference {
    let nvregs = program.vregs.len();
    let mut pairs = Pairs::default();
    let mut max_pressure = 0;
    let mut scan = Scanner::new(nvregs);
    for block in 0..program.blocks.len() {
        scan.run(program, block, live.live_out(block), |event| {
            max_pressure = max_pressure.max(event.pressure());
            let Event::Write { defs, live, .. } = event else {
                return;
            };
            for (i, d) in defs.iter().enumerate() {
                for &b in live.members() {
                    let b = VReg(b);
                    pairs.add(d.vreg, d.mask, b, live.mask(b));
                }
                for e in &defs[i + 1..] {
                    pairs.add(d.vreg, d.mask, e.vreg, e.mask);
                }
            }
        });
    }
    // Undefined components are all written at the entry.
    let entry = live.undefined_at_entry();
    max_pressure = max_pressure.max(entry.iter().map(|&(_, m)| m.count_ones()).sum());
    for (i, &(a, ma)) in entry.iter().enumerate() {
        for &(b, mb) in &entry[i + 1..] {
            pairs.add(a, ma, b, mb);
        }
    }
    let mut pairs = sorted_pairs(pairs.0, nvregs);
    pairs.dedup_by(|next, kept| {
        let same = (next.0, next.1) == (kept.0, kept.1);
        if same {
            kept.2 |= next.2;
        }
        same
    });

    let mut degree = vec![0u32; nvregs + 1];
    for &(a, b, _) in &pairs {
        degree[a as usize] += 1;
        degree[b as usize] += 1;
    }
    let mut offsets = Vec::with_capacity(nvregs + 1);
    let mut sum = 0u32;
    for d in &degree[..nvregs] {
        offsets.push(sum);
        sum += d;
    }
    offsets.push(sum);
    let mut fill: Vec<u32> = offsets[..nvregs].to_vec();
    let mut adj = vec![VReg(0); sum as usize];
    let mut shift = vec![0u16; sum as usize];
    // Pairs are sorted by (a, b), a < b: each list receives its smaller neighbours (as the
    // `b` of earlier pairs) before its larger ones, both ascending — so lists come out sorted.
    for &(a, b, s) in &pairs {
        let k = fill[a as usize] as usize;
        adj[k] = VReg(b);
        shift[k] = s;
        fill[a as usize] += 1;
        let k = fill[b as usize] as usize;
        adj[k] = VReg(a);
        shift[k] = mirror(s);
        fill[b as usize] += 1;
    }

    let (accessed, start) = accessed_and_start(program, live);
    Interference {
        offsets,
        adj,
        shift,
        accessed,
        start,
        max_pressure,
    }
}

/// `pairs` sorted by `(a, b)`: a stable counting sort by `b`, then one by `a` (every vreg
/// index is below `nvregs`).
fn sorted_pairs(pairs: Vec<(u32, u32, u16)>, nvregs: usize) -> Vec<(u32, u32, u16)> {
    let mut by_b = Vec::new();
    counting_sort(&pairs, &mut by_b, nvregs, |p| p.1);
    let mut out = pairs;
    counting_sort(&by_b, &mut out, nvregs, |p| p.0);
    out
}

/// Stable counting sort of `src` into `dst` by `key` (below `keys`).
fn counting_sort(
    src: &[(u32, u32, u16)],
    dst: &mut Vec<(u32, u32, u16)>,
    keys: usize,
    key: impl Fn(&(u32, u32, u16)) -> u32,
) {
    let mut next = vec![0u32; keys + 1];
    for p in src {
        next[key(p) as usize + 1] += 1;
    }
    for k in 1..next.len() {
        next[k] += next[k - 1];
    }
    dst.clear();
    dst.resize(src.len(), (0, 0, 0));
    for p in src {
        let slot = &mut next[key(p) as usize];
        dst[*slot as usize] = *p;
        *slot += 1;
    }
}

/// Which vregs are accessed, and where each starts in a linear order of the blocks.
fn accessed_and_start(program: &Program, live: &Liveness) -> (Vec<bool>, Vec<u32>) {
    let nvregs = program.vregs.len();
    let mut accessed = vec![false; nvregs];
    let mut start = vec![u32::MAX; nvregs];
    let mut order = reverse_postorder_reachable(program);
    let mut placed = vec![false; program.blocks.len()];
    for &b in &order {
        placed[b] = true;
    }
    order.extend((0..program.blocks.len()).filter(|&b| !placed[b]));
    let mut pos = 0u32;
    for b in order {
        for &(v, _) in live.live_in(b) {
            start[v.index()] = start[v.index()].min(pos);
        }
        pos += 1;
        for point in &program.blocks[b].points {
            for a in point.uses.iter().chain(point.defs.iter()) {
                if let Some(flag) = accessed.get_mut(a.vreg.index()) {
                    *flag = true;
                }
            }
            for d in &point.defs {
                if let Some(s) = start.get_mut(d.vreg.index()) {
                    *s = (*s).min(pos);
                }
            }
            pos += 1;
        }
    }
    (accessed, start)
}

#[cfg(test)]
mod tests {
    use super::super::{liveness, Access, Block, Point, VRegInfo};
    use super::*;

    fn point(uses: &[(u32, u8, u8)], defs: &[(u32, u8, u8)]) -> Point {
        let acc = |&(v, s, m): &(u32, u8, u8)| Access::new(VReg(v), s, m);
        Point {
            uses: uses.iter().map(acc).collect(),
            defs: defs.iter().map(acc).collect(),
        }
    }

    fn graph(points: Vec<Point>, nvregs: usize) -> Interference {
        let program = Program {
            blocks: vec![Block {
                points,
                succs: vec![],
            }],
            vregs: vec![VRegInfo::new(1); nvregs],
        };
        interference(&program, &liveness(&program))
    }

    #[test]
    fn stage_rule() {
        // v0 last read at stage 1; v1 written at stage 2 (may share), v2 at stage 0 (may not),
        // v3 at stage 1 (may share: reads before writes at one stage).
        let g = graph(
            vec![
                point(&[], &[(0, 0, 1)]),
                point(&[(0, 1, 1)], &[(1, 2, 1), (2, 0, 1), (3, 1, 1)]),
                point(&[(1, 0, 1), (2, 0, 1), (3, 0, 1)], &[]),
            ],
            4,
        );
        assert!(!g.interferes(VReg(0), VReg(1)));
        assert!(g.interferes(VReg(0), VReg(2)));
        assert!(!g.interferes(VReg(0), VReg(3)));
        // Writes of different stages: v2 (stage 0) is live when v1 and v3 are written.
        assert!(g.interferes(VReg(2), VReg(1)));
        assert!(g.interferes(VReg(2), VReg(3)));
        assert!(g.interferes(VReg(1), VReg(3)));
        assert_eq!(g.neighbors(VReg(2)), &[VReg(0), VReg(1), VReg(3)]);
        assert_eq!(g.edges(), 4);
    }

    #[test]
    fn dead_writes_interfere_with_live_values_and_same_stage_writes() {
        let g = graph(
            vec![
                point(&[], &[(0, 0, 1)]),
                point(&[], &[(1, 0, 1), (2, 0, 1)]),
                point(&[(0, 0, 1)], &[]),
            ],
            3,
        );
        assert!(g.interferes(VReg(1), VReg(0)));
        assert!(g.interferes(VReg(2), VReg(0)));
        assert!(g.interferes(VReg(1), VReg(2)));
    }

    #[test]
    fn undefined_values_interfere_pairwise_and_never_with_themselves() {
        let g = graph(
            vec![
                point(&[(0, 0, 1)], &[(0, 0, 1)]),
                point(&[(1, 0, 1), (0, 0, 1)], &[]),
            ],
            3,
        );
        assert!(g.interferes(VReg(0), VReg(1)));
        assert!(!g.interferes(VReg(0), VReg(0)));
        assert!(!g.is_accessed(VReg(2)));
        assert!(g.is_accessed(VReg(1)));
        assert_eq!(g.degree(VReg(2)), 0);
        assert_eq!(g.max_pressure(), 2);
    }
}
