//! In-place updates (as hand-written AGAL does, `div ft0.xyz, ft0.xyz, ft0.www`): a value built
//! as "some components computed by one lane-wise op, the others moved from the same components
//! of a register `a`" is `a` with those components overwritten, when nothing reads the old
//! ones afterwards:
//!
//! ```text
//! div t.xyz, a.xyz, a.w        →   div a.xyz, a.xyz, a.w
//! mov t.w, a.w                     (t renamed a from here on)
//! ```
//!
//! The op still reads its sources before it writes (every source is read before the
//! destination is written, §5), so reading `a` in it is fine.

use super::{Base, MDst, MProgram};
use crate::isa::Opcode;

/// Applies every such rewrite, in program order.
pub fn coalesce_in_place(p: &mut MProgram) {
    let mut i = 0;
    while i < p.insts.len() {
        if !try_at(p, i) {
            i += 1;
        }
    }
}

/// Tries the rewrite for the op at `i`; true if it was done (the instruction list changed).
fn try_at(p: &mut MProgram, i: usize) -> bool {
    let ins = &p.insts[i];
    let MDst::V { v: t, first, n } = ins.dst else {
        return false;
    };
    if !ins.lanewise() || ins.op == Opcode::Mov {
        return false;
    }
    let width = p.vregs[t as usize].width;
    // The movs right after it fill the other components of `t` from `a`, component for
    // component.
    let mut covered: u8 = ((1u16 << n) - 1) as u8;
    covered <<= first;
    let mut a = None;
    let mut k = i + 1;
    while k < p.insts.len() {
        let m = &p.insts[k];
        let MDst::V { v, first: f, n: mn } = m.dst else {
            break;
        };
        if v != t || m.op != Opcode::Mov || m.indirect.is_some() {
            break;
        }
        let Base::V(src) = m.srcs[0].base else {
            return false;
        };
        if a.is_some_and(|x| x != src) || !m.srcs[0].comps.iter().copied().eq(f..f + mn) {
            return false;
        }
        a = Some(src);
        covered |= (((1u16 << mn) - 1) as u8) << f;
        k += 1;
    }
    let Some(a) = a else {
        return false;
    };
    let full = ((1u16 << width) - 1) as u8;
    let (ta, aa) = (p.vregs[t as usize], p.vregs[a as usize]);
    if covered != full || a == t || aa.width != width || (ta.fixed && !aa.fixed) {
        return false;
    }
    // `t` is written only here; the overwritten components of `a` are not read after the op.
    let overwritten = |c: u8| c >= first && c < first + n;
    let writes_t = p
        .insts
        .iter()
        .filter(|x| matches!(x.dst, MDst::V { v, .. } if v == t))
        .count();
    if writes_t != k - i {
        return false;
    }
    let later_reads_old = p.insts[i + 1..].iter().any(|x| {
        x.srcs
            .iter()
            .any(|s| s.base == Base::V(a) && s.comps.iter().any(|&c| overwritten(c)))
    });
    let later_writes_a = p.insts[i + 1..]
        .iter()
        .any(|x| matches!(x.dst, MDst::V { v, .. } if v == a));
    if later_reads_old || later_writes_a {
        return false;
    }
    p.insts[i].dst = MDst::V { v: a, first, n };
    p.insts.drain(i + 1..k);
    for x in &mut p.insts[i + 1..] {
        for s in &mut x.srcs {
            if s.base == Base::V(t) {
                s.base = Base::V(a);
            }
        }
        if let MDst::V { v, .. } = &mut x.dst {
            if *v == t {
                *v = a;
            }
        }
    }
    true
}
