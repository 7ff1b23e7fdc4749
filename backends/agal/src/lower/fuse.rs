//! Matrix ops from dot products (as HxSL's `optiMat`, §9): consecutive `dp4`s (`dp3`s) of one
//! vector with consecutive constant registers, writing components 0, 1, 2(, 3) of one value,
//! become one `m44` (`m34`, `m33`): `dest.x = dot(src1, row0)`, … (§5). Rows must be constant
//! registers read with the identity swizzle (#3689; a temporary row would need all four lanes
//! written, #3648), and the vector must not be the value written. `m33`/`m34` write exactly
//! `.xyz` (#3628), so their value is pinned to lanes `xyz`. A matrix op whose whole result is
//! then moved to an output register, and read nowhere else, writes the output itself.

use super::{Base, MDst, MInst, MProgram, MSrc};
use crate::isa::Opcode;

/// The matrix op of `n` dot products of kind `dot`, if there is one.
fn matrix_op(dot: Opcode, n: usize) -> Option<Opcode> {
    match (dot, n) {
        (Opcode::Dp4, 4) => Some(Opcode::M44),
        (Opcode::Dp4, 3) => Some(Opcode::M34),
        (Opcode::Dp3, 3) => Some(Opcode::M33),
        _ => None,
    }
}

/// The (vector, first row) of a dot product `i` writing component `c` of `v`.
fn dot_parts(ins: &MInst, v: u32, c: u8) -> Option<(&MSrc, u32)> {
    if !matches!(ins.dst, MDst::V { v: w, first, n: 1 } if w == v && first == c) {
        return None;
    }
    let width = if ins.op == Opcode::Dp4 { 4 } else { 3 };
    let identity = |s: &MSrc| s.comps.iter().copied().eq(0..width);
    let [a, b] = ins.srcs.as_slice() else {
        return None;
    };
    let row = |s: &MSrc| match s.base {
        Base::Const(r) if identity(s) => Some(r),
        _ => None,
    };
    let vector = |s: &MSrc| !matches!(s.base, Base::Const(_)) && s.base != Base::V(v);
    match (row(b), row(a)) {
        (Some(r), _) if vector(a) => Some((a, r)),
        (_, Some(r)) if vector(b) => Some((b, r)),
        _ => None,
    }
}

/// Tries to fuse the dot products starting at instruction `i`: the matrix op and how many
/// instructions it replaces.
fn fuse_at(p: &MProgram, i: usize) -> Option<(MInst, usize)> {
    let first = p.insts.get(i)?;
    if !matches!(first.op, Opcode::Dp4 | Opcode::Dp3) {
        return None;
    }
    let MDst::V { v, first: 0, n: 1 } = first.dst else {
        return None;
    };
    let (vec0, row0) = dot_parts(first, v, 0)?;
    let mut n = 1;
    while n < 4 {
        let Some(ins) = p.insts.get(i + n).filter(|x| x.op == first.op) else {
            break;
        };
        match dot_parts(ins, v, n as u8) {
            Some((vec, row)) if vec == vec0 && row == row0 + n as u32 => n += 1,
            _ => break,
        }
    }
    // Three dp4s followed by a fourth that does not match still make an m34.
    let n = if first.op == Opcode::Dp3 { n.min(3) } else { n };
    let op = matrix_op(first.op, n)?;
    Some((
        MInst {
            op,
            dst: MDst::V {
                v,
                first: 0,
                n: n as u8,
            },
            srcs: vec![
                vec0.clone(),
                // The rows are read whole: identity swizzle (#3689).
                MSrc {
                    base: Base::Const(row0),
                    comps: vec![0, 1, 2, 3],
                },
            ],
            sampler: None,
            indirect: None,
        },
        n,
    ))
}

/// Fuses every run of dot products that forms a matrix op.
pub fn fuse_matrices(p: &mut MProgram) {
    let mut out = Vec::with_capacity(p.insts.len());
    let mut i = 0;
    while i < p.insts.len() {
        if let Some((m, n)) = fuse_at(p, i) {
            if let MDst::V { v, n: w, .. } = m.dst {
                let info = &mut p.vregs[v as usize];
                // m33/m34 write exactly .xyz: the value's first three components in xyz.
                if w == 3 || info.width == 4 {
                    info.fixed = true;
                }
            }
            out.push(m);
            i += n;
        } else {
            out.push(p.insts[i].clone());
            i += 1;
        }
    }
    p.insts = out;
    fold_output_moves(p);
}

/// `m44 t, …; mov out, t` with `t` read nowhere else → `m44 out, …`.
fn fold_output_moves(p: &mut MProgram) {
    let mut i = 0;
    while i < p.insts.len() {
        let ins = &p.insts[i];
        let MDst::V { v, first: 0, n: 4 } = ins.dst else {
            i += 1;
            continue;
        };
        if ins.op != Opcode::M44 || p.vregs[v as usize].width != 4 {
            i += 1;
            continue;
        }
        let reads: Vec<usize> = (0..p.insts.len())
            .filter(|&k| p.insts[k].srcs.iter().any(|s| s.base == Base::V(v)))
            .collect();
        let writes = p
            .insts
            .iter()
            .filter(|x| matches!(x.dst, MDst::V { v: w, .. } if w == v))
            .count();
        let fold = match reads.as_slice() {
            [k] if *k > i && writes == 1 => {
                let m = &p.insts[*k];
                (m.op == Opcode::Mov
                    && matches!(m.dst, MDst::Out { .. })
                    && m.srcs[0].comps == [0, 1, 2, 3])
                .then_some(*k)
            }
            _ => None,
        };
        if let Some(k) = fold {
            p.insts[i].dst = p.insts[k].dst;
            p.insts.remove(k);
        }
        i += 1;
    }
}
