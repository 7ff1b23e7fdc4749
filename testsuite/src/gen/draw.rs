//! Draws a random [`Program`] from a seeded generator: typed variables initialised from inputs
//! and constants, then nested ifs, bounded loops, switches, discards and assignments of random
//! expressions. Every variable is assigned before any statement reads it, loops run a fixed
//! number of times, and constant-buffer indices are clamped, so every program terminates and
//! has a defined result on every path.

use super::ast::*;
use super::Rng;

/// Size knobs of the generator.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub statements: usize,
    pub depth: usize,
    pub expr_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            statements: 10,
            depth: 3,
            expr_depth: 3,
        }
    }
}

struct Drawer<'r> {
    rng: &'r mut Rng,
    vars: Vec<Ty>,
    inputs: usize,
    cbuf_vectors: u32,
    uses_texture: bool,
    limits: Limits,
    /// Variables no statement may assign (live loop counters).
    frozen: Vec<usize>,
    /// Variables `0..pool` are always readable; loop counters only inside their loop.
    pool: usize,
}

/// Draws a program.
pub fn draw(rng: &mut Rng, limits: Limits) -> Program {
    let inputs = 1 + rng.below(3) as usize;
    let cbuf_vectors = if rng.chance(0.6) {
        2 + rng.below(7) as u32
    } else {
        0
    };
    let uses_texture = rng.chance(0.4);
    let mut d = Drawer {
        rng,
        vars: Vec::new(),
        inputs,
        cbuf_vectors,
        uses_texture,
        limits,
        frozen: Vec::new(),
        pool: 0,
    };
    let mut body = Vec::new();
    // Initialise a pool of variables of each type.
    let counts = [
        (Ty::F32, 4 + d.rng.below(4)),
        (Ty::I32, 1 + d.rng.below(2)),
        (Ty::U32, 1),
    ];
    for (ty, n) in counts {
        for _ in 0..n {
            let v = d.vars.len();
            d.vars.push(ty);
            let e = d.leaf(ty);
            body.push(Stmt::Assign(v, e));
        }
    }
    d.pool = d.vars.len();
    let n = limits.statements;
    body.extend(d.block(n, 0));
    let outputs = (0..1 + d.rng.below(2))
        .map(|_| std::array::from_fn(|_| d.var_of(Ty::F32).unwrap_or(0)))
        .collect();
    Program {
        vars: d.vars,
        inputs,
        outputs,
        cbuf_vectors,
        uses_texture,
        body,
        stage: irc_ir::ShaderStage::Pixel.0,
    }
}

impl Drawer<'_> {
    fn var_of(&mut self, ty: Ty) -> Option<usize> {
        let cands: Vec<usize> = (0..self.vars.len())
            .filter(|&v| self.vars[v] == ty && (v < self.pool || self.frozen.contains(&v)))
            .collect();
        if cands.is_empty() {
            None
        } else {
            Some(cands[self.rng.below(cands.len() as u64) as usize])
        }
    }

    fn assignable_of(&mut self, ty: Ty) -> Option<usize> {
        let cands: Vec<usize> = (0..self.pool)
            .filter(|&v| self.vars[v] == ty && !self.frozen.contains(&v))
            .collect();
        if cands.is_empty() {
            None
        } else {
            Some(cands[self.rng.below(cands.len() as u64) as usize])
        }
    }

    fn block(&mut self, n: usize, depth: usize) -> Vec<Stmt> {
        (0..n).filter_map(|_| self.stmt(depth)).collect()
    }

    fn stmt(&mut self, depth: usize) -> Option<Stmt> {
        let nested = depth < self.limits.depth;
        let roll = self.rng.below(100);
        Some(match roll {
            0..=11 if nested => {
                let c = self.expr(Ty::Bool, self.limits.expr_depth);
                let n = 1 + self.rng.below(3) as usize;
                let t = self.block(n, depth + 1);
                let e = if self.rng.chance(0.5) {
                    self.block(n, depth + 1)
                } else {
                    Vec::new()
                };
                Stmt::If(c, t, e)
            }
            12..=19 if nested => {
                let counter = self.vars.len();
                self.vars.push(Ty::I32);
                self.frozen.push(counter);
                let trips = self.rng.below(5) as i32;
                let n = 1 + self.rng.below(3) as usize;
                let body = self.block(n, depth + 1);
                self.frozen.pop();
                Stmt::Loop {
                    counter,
                    trips,
                    body,
                }
            }
            20..=25 if nested => {
                let sel = self.expr(Ty::I32, 2);
                let mut cases = Vec::new();
                let mut value = self.rng.below(3) as i32 - 1;
                for _ in 0..1 + self.rng.below(3) {
                    let n = self.rng.below(3) as usize;
                    cases.push((value, self.block(n, depth + 1)));
                    value += 1 + self.rng.below(3) as i32;
                }
                let n = self.rng.below(2) as usize;
                let default = self.block(n, depth + 1);
                Stmt::Switch(sel, cases, default)
            }
            26..=28 => Stmt::Discard(self.expr(Ty::Bool, 2)),
            _ => {
                let ty = match self.rng.below(10) {
                    0..=6 => Ty::F32,
                    7 | 8 => Ty::I32,
                    _ => Ty::U32,
                };
                let v = self.assignable_of(ty)?;
                Stmt::Assign(v, self.expr(ty, self.limits.expr_depth))
            }
        })
    }

    fn leaf(&mut self, ty: Ty) -> Expr {
        match ty {
            Ty::F32 => match self.rng.below(6) {
                0 | 1 => {
                    let v = [0.0, 1.0, -1.0, 0.5, 2.0, -0.0, 3.25][self.rng.below(7) as usize];
                    Expr::ConstF(v)
                }
                2 if self.cbuf_vectors > 0 => {
                    let i = Expr::ConstU(self.rng.below(self.cbuf_vectors as u64) as u32);
                    Expr::Cbuf(Box::new(i), self.rng.below(4) as u32)
                }
                _ => Expr::Input(
                    self.rng.below(self.inputs as u64) as usize,
                    self.rng.below(4) as u32,
                ),
            },
            Ty::I32 => Expr::ConstI(self.rng.below(9) as i32 - 4),
            Ty::U32 => Expr::ConstU(self.rng.below(9) as u32),
            Ty::Bool => Expr::ConstB(self.rng.chance(0.5)),
        }
    }

    fn expr(&mut self, ty: Ty, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(0.25) {
            return match self.var_of(ty) {
                Some(v) if ty != Ty::Bool && self.rng.chance(0.7) => Expr::Var(v),
                _ if ty == Ty::Bool => self.compare(depth.saturating_sub(1)),
                _ => self.leaf(ty),
            };
        }
        let d = depth - 1;
        let b = |x: Expr| Box::new(x);
        match ty {
            Ty::F32 => match self.rng.below(14) {
                0..=4 => {
                    let ops = [
                        Bin::FAdd,
                        Bin::FSub,
                        Bin::FMul,
                        Bin::FMulLegacy,
                        Bin::FPowLegacy,
                        Bin::FDiv,
                        Bin::FMin,
                        Bin::FMax,
                    ];
                    let op = ops[self.rng.below(ops.len() as u64) as usize];
                    Expr::Bin(op, b(self.expr(Ty::F32, d)), b(self.expr(Ty::F32, d)))
                }
                5 | 6 => {
                    let ops = [
                        Un::FNeg,
                        Un::FAbs,
                        Un::FFract,
                        Un::FFloor,
                        Un::FSqrtAbs,
                        Un::FRsqAbs,
                        Un::FRcpRsqAbs,
                        Un::FRcp,
                        Un::FExp2,
                        Un::FLog2Abs,
                        Un::FLog2Legacy,
                        Un::FSin,
                        Un::FCos,
                    ];
                    let op = ops[self.rng.below(ops.len() as u64) as usize];
                    Expr::Un(op, b(self.expr(Ty::F32, d)))
                }
                7 => match self.rng.below(4) {
                    0 | 1 => Expr::Mad(
                        b(self.expr(Ty::F32, d)),
                        b(self.expr(Ty::F32, d)),
                        b(self.expr(Ty::F32, d)),
                    ),
                    2 => Expr::MadLegacy(
                        b(self.expr(Ty::F32, d)),
                        b(self.expr(Ty::F32, d)),
                        b(self.expr(Ty::F32, d)),
                    ),
                    _ => {
                        let n = 2 + self.rng.below(3) as usize;
                        let legacy = self.rng.chance(0.5);
                        let a = (0..n).map(|_| self.expr(Ty::F32, d)).collect();
                        let b = (0..n).map(|_| self.expr(Ty::F32, d)).collect();
                        let add = self
                            .rng
                            .chance(0.3)
                            .then(|| Box::new(self.expr(Ty::F32, d)));
                        Expr::Dot { legacy, a, b, add }
                    }
                },
                8 => Expr::Select(
                    b(self.expr(Ty::Bool, d)),
                    b(self.expr(Ty::F32, d)),
                    b(self.expr(Ty::F32, d)),
                ),
                9 => {
                    let (op, src) = if self.rng.chance(0.5) {
                        (Un::ItoF, Ty::I32)
                    } else {
                        (Un::UtoF, Ty::U32)
                    };
                    Expr::Un(op, b(self.expr(src, d)))
                }
                10 if self.cbuf_vectors > 0 => {
                    // A dynamic index, clamped into range.
                    let i = Expr::Bin(
                        Bin::UMin,
                        b(self.expr(Ty::U32, d)),
                        b(Expr::ConstU(self.cbuf_vectors - 1)),
                    );
                    Expr::Cbuf(b(i), self.rng.below(4) as u32)
                }
                11 if self.uses_texture => Expr::Sample(
                    b(self.expr(Ty::F32, d)),
                    b(self.expr(Ty::F32, d)),
                    self.rng.below(4) as u32,
                ),
                _ => self.leaf(Ty::F32),
            },
            Ty::I32 | Ty::U32 => match self.rng.below(10) {
                0..=5 => {
                    let mut ops = vec![
                        Bin::IAdd,
                        Bin::ISub,
                        Bin::IMul,
                        Bin::IAnd,
                        Bin::IOr,
                        Bin::IXor,
                        Bin::IShl,
                        Bin::UShr,
                    ];
                    if ty == Ty::I32 {
                        ops.extend([Bin::SShr, Bin::SMin, Bin::SMax]);
                    } else {
                        ops.extend([Bin::UMin, Bin::UMax, Bin::UDiv, Bin::UMod]);
                    }
                    let op = ops[self.rng.below(ops.len() as u64) as usize];
                    Expr::Bin(op, b(self.expr(ty, d)), b(self.expr(ty, d)))
                }
                6 => Expr::Un(
                    if self.rng.chance(0.5) {
                        Un::INeg
                    } else {
                        Un::INot
                    },
                    b(self.expr(ty, d)),
                ),
                7 => Expr::Un(
                    if ty == Ty::I32 { Un::FtoI } else { Un::FtoU },
                    b(self.expr(Ty::F32, d)),
                ),
                8 => Expr::Select(
                    b(self.expr(Ty::Bool, d)),
                    b(self.expr(ty, d)),
                    b(self.expr(ty, d)),
                ),
                _ => self.leaf(ty),
            },
            Ty::Bool => match self.rng.below(5) {
                0 => Expr::Bin(
                    if self.rng.chance(0.5) {
                        Bin::BAnd
                    } else {
                        Bin::BOr
                    },
                    b(self.expr(Ty::Bool, d)),
                    b(self.expr(Ty::Bool, d)),
                ),
                1 => Expr::Un(Un::BNot, b(self.expr(Ty::Bool, d))),
                _ => self.compare(d),
            },
        }
    }

    fn compare(&mut self, d: usize) -> Expr {
        let b = |x: Expr| Box::new(x);
        match self.rng.below(7) {
            0..=3 => {
                let ops = [Cmp::FLt, Cmp::FGe, Cmp::FEq, Cmp::FNe];
                let op = ops[self.rng.below(4) as usize];
                Expr::Cmp(op, b(self.expr(Ty::F32, d)), b(self.expr(Ty::F32, d)))
            }
            4 => Expr::Cmp(Cmp::SLt, b(self.expr(Ty::I32, d)), b(self.expr(Ty::I32, d))),
            5 => Expr::Cmp(Cmp::ULt, b(self.expr(Ty::U32, d)), b(self.expr(Ty::U32, d))),
            _ => Expr::Cmp(Cmp::IEq, b(self.expr(Ty::I32, d)), b(self.expr(Ty::I32, d))),
        }
    }
}
