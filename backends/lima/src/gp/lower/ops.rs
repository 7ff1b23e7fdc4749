//! Lowering of the arithmetic IR ops to scalar GP nodes, one per component, with the
//! reference's lowerings (§8.2, Mesa `ir/gp/lower.c`): `abs = max(a, −a)`,
//! `eq = min(ge(a, b), ge(b, a))`, `not = 1 − a`, `sqrt = rcp(rsqrt(a))`, `a / b = a·rcp(b)`,
//! `pow = exp2(b·log2(a))`, `fract = a − floor(a)`, `ceil = −floor(−a)`,
//! `trunc = sign(a)·floor(|a|)`, clamp as max then min, round to nearest even from `floor`
//! (exact: `f + (r > ½) + (r = ½)·odd(f)`, `r = a − floor(a)`).

use irc_backend::Diagnostic;
use irc_ir::format::{
    Arith, Clamp, CompositeConstruct, CompositeExtract, DescriptorLoad, Dot, FRound, Select,
};
use irc_ir::{OpCode, SsaDef};

use super::super::mir::{Op, Src};
use super::io::{const_index, flat_size};
use super::{Comps, Lower, C};

fn neg(v: Comps) -> Comps {
    v.into_iter().map(C::negated).collect()
}

impl Lower<'_> {
    pub(super) fn value(&mut self, d: SsaDef) -> Result<Comps, Diagnostic> {
        if let Some(v) = self.values.get(&d) {
            let v = v.clone();
            return match self.block_of_value(d) {
                Some(b) if b != self.flow.cur => self.export(b, v),
                _ => Ok(v),
            };
        }
        let op = self.m.op(d);
        match op.opcode {
            OpCode::Constant | OpCode::Undef => {
                let c = self.constant(d)?;
                self.values.insert(d, c.clone());
                Ok(c)
            }
            OpCode::ConvertFtoI | OpCode::IAdd | OpCode::ISub | OpCode::Cast => Err(self.diag(
                d,
                "integer value used other than as a constant index (the GP has no integers)",
            )),
            _ => Err(Diagnostic::internal(
                Some((d, op.opcode)),
                "value used before its definition was lowered",
            )),
        }
    }

    pub(super) fn arg(&mut self, d: SsaDef, a: Option<SsaDef>) -> Result<Comps, Diagnostic> {
        let a = a.ok_or_else(|| self.diag(d, "operand missing"))?;
        self.value(a)
    }

    /// `op` per component of `args` (a one-component argument is broadcast).
    fn map(&mut self, d: SsaDef, op: Op, args: &[&Comps]) -> Result<Comps, Diagnostic> {
        let n = args.iter().map(|a| a.len()).max().unwrap_or(0);
        if args.iter().any(|a| a.len() != n && a.len() != 1) {
            return Err(self.diag(d, "operands of different widths"));
        }
        let mut out = Comps::new();
        for i in 0..n {
            let comps: Vec<C> = args
                .iter()
                .map(|a| if a.len() == 1 { a[0] } else { a[i] })
                .collect();
            out.push(self.emit(op, &comps));
        }
        Ok(out)
    }

    /// `x` and true for a condition `x == 0` (false for `x != 0`), `x` a float.
    fn zero_test(&mut self, cond: Option<SsaDef>) -> Result<Option<(Comps, bool)>, Diagnostic> {
        let Some(c) = cond else { return Ok(None) };
        let op = self.m.op(c);
        let eq = match op.opcode {
            OpCode::FEq => true,
            OpCode::FNe => false,
            _ => return Ok(None),
        };
        let ar = Arith::of(op);
        let (Some(x), Some(y)) = (ar.a(), ar.b()) else {
            return Ok(None);
        };
        let is_zero = |l: &mut Self, v: SsaDef| -> Result<bool, Diagnostic> {
            if l.m.opcode(v) != OpCode::Constant {
                return Ok(false);
            }
            Ok(l.value(v)?.iter().all(|k| k.as_lit() == Some(0.0)))
        };
        if is_zero(self, y)? {
            Ok(Some((self.value(x)?, eq)))
        } else if is_zero(self, x)? {
            Ok(Some((self.value(y)?, eq)))
        } else {
            Ok(None)
        }
    }

    /// Replaces a literal-zero `b[i]` by `x[i] − x[i]` (+0 where `x[i]` is ±0, the only case
    /// the select returns it) when `a[i]` or `x[i]` is a uniform (the literal would need a
    /// second uniform vec4 in the select's instruction).
    fn zero_arm(&mut self, x: &Comps, a: &Comps, b: &mut Comps) {
        let n = a.len().max(b.len());
        if b.len() == 1 && n > 1 {
            let z = b[0];
            b.resize(n, z);
        }
        for i in 0..b.len() {
            let xi = if x.len() == 1 { x[0] } else { x[i] };
            let ai = if a.len() == 1 { a[0] } else { a[i] };
            let is_uni =
                |c: C| matches!(c, C::V(o) if matches!(o.src, Src::Uni(..) | Src::UniRel(..)));
            let uniform = is_uni(ai) || is_uni(xi);
            // +0 only: `x − x` is +0, so a −0 arm keeps its literal.
            let zero = b[i].as_lit().is_some_and(|z| z.to_bits() == 0);
            if uniform && zero && xi.as_lit().is_none() {
                b[i] = self.emit(Op::Add, &[xi, xi.negated()]);
            }
        }
    }

    /// Round to nearest even, exactly, from `floor`: `f = floor(a)`, `r = a − f` (exact),
    /// `f + (r > ½) + (r = ½)·odd(f)` with `odd(f) = 2·(f/2 − floor(f/2))`.
    fn round_even(&mut self, a: &Comps) -> Comps {
        let mut out = Comps::new();
        for &x in a {
            let f = self.emit(Op::Floor, &[x]);
            let r = self.emit(Op::Add, &[x, f.negated()]);
            let half = C::lit(0.5);
            let gt = self.emit(Op::Lt, &[half, r]);
            let ge = self.emit(Op::Ge, &[r, half]);
            let le = self.emit(Op::Ge, &[half, r]);
            let tie = self.emit(Op::Min, &[ge, le]);
            let h = self.emit(Op::Mul, &[f, half]);
            let fh = self.emit(Op::Floor, &[h]);
            let odd = self.emit(Op::Add, &[h, fh.negated()]);
            let t = self.emit(Op::Mul, &[tie, odd]);
            let t2 = self.emit(Op::Add, &[t, t]);
            let inc = self.emit(Op::Add, &[gt, t2]);
            out.push(self.emit(Op::Add, &[f, inc]));
        }
        out
    }

    fn splat(x: f32, n: usize) -> Comps {
        (0..n).map(|_| C::lit(x)).collect()
    }

    pub(super) fn lower_op(&mut self, d: SsaDef) -> Result<(), Diagnostic> {
        let op = self.m.op(d);
        let ar = Arith::of(op);
        let r: Comps = match op.opcode {
            OpCode::Return | OpCode::Label | OpCode::FunctionEnd => return Ok(()),
            OpCode::Constant | OpCode::Undef => self.constant(d)?,
            OpCode::InputLoad => self.input_load(d)?,
            OpCode::BufferLoad => self.buffer_load(d)?,
            OpCode::DescriptorLoad
                if self.m.opcode(DescriptorLoad::of(op).decl().unwrap_or(d)) == OpCode::DclCbv =>
            {
                return Ok(())
            }
            OpCode::OutputStore => return self.output_store(d),
            OpCode::Phi => self.phi(d)?,
            OpCode::ConvertItoF => self.int_register_lane(d)?,
            OpCode::CompositeExtract => {
                let ex = CompositeExtract::of(op);
                let v = self.arg(d, ex.composite())?;
                let src_ty = self.m.ty(ex.composite().unwrap_or(d)).clone();
                if src_ty.is_struct() {
                    return Err(self.diag(d, "struct values"));
                }
                let idx = const_index(self.m, ex.address())
                    .ok_or_else(|| self.diag(d, "dynamic composite index"))?
                    as usize;
                let per = flat_size(&op.ty).unwrap_or(1) as usize;
                v.get(idx * per..idx * per + per)
                    .ok_or_else(|| self.diag(d, "composite index out of range"))?
                    .into()
            }
            OpCode::CompositeConstruct => {
                let mut out = Comps::new();
                for member in CompositeConstruct::of(op).members() {
                    out.extend(self.arg(d, member.as_ref())?);
                }
                out
            }
            OpCode::FNeg => neg(self.arg(d, ar.a())?),
            OpCode::FAbs => {
                let a = self.arg(d, ar.a())?;
                let na = neg(a.clone());
                self.map(d, Op::Max, &[&a, &na])?
            }
            OpCode::FAdd | OpCode::FSub => {
                let a = self.arg(d, ar.a())?;
                let mut b = self.arg(d, ar.b())?;
                if op.opcode == OpCode::FSub {
                    b = neg(b);
                }
                self.map(d, Op::Add, &[&a, &b])?
            }
            OpCode::FMul => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                self.map(d, Op::Mul, &[&a, &b])?
            }
            OpCode::FMad => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let c = self.arg(d, ar.c())?;
                let p = self.map(d, Op::Mul, &[&a, &b])?;
                self.map(d, Op::Add, &[&p, &c])?
            }
            OpCode::FMax | OpCode::FMin => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let o = if op.opcode == OpCode::FMax {
                    Op::Max
                } else {
                    Op::Min
                };
                self.map(d, o, &[&a, &b])?
            }
            OpCode::FClamp => {
                let cl = Clamp::of(op);
                let x = self.arg(d, cl.a())?;
                let lo = self.arg(d, cl.lo())?;
                let hi = self.arg(d, cl.hi())?;
                let t = self.map(d, Op::Max, &[&x, &lo])?;
                self.map(d, Op::Min, &[&t, &hi])?
            }
            OpCode::FDot => {
                let dot = Dot::of(op);
                let a = self.arg(d, dot.a())?;
                let b = self.arg(d, dot.b())?;
                if a.len() != b.len() || a.is_empty() {
                    return Err(self.diag(d, "dot product of mismatched vectors"));
                }
                let mut acc = self.emit(Op::Mul, &[a[0], b[0]]);
                for i in 1..a.len() {
                    let p = self.emit(Op::Mul, &[a[i], b[i]]);
                    acc = self.emit(Op::Add, &[acc, p]);
                }
                smallvec::smallvec![acc]
            }
            OpCode::FRcp | OpCode::FRsq | OpCode::FExp2 | OpCode::FLog2 => {
                let a = self.arg(d, ar.a())?;
                let o = match op.opcode {
                    OpCode::FRcp => Op::Rcp,
                    OpCode::FRsq => Op::Rsqrt,
                    OpCode::FExp2 => Op::Exp2,
                    _ => Op::Log2,
                };
                self.map(d, o, &[&a])?
            }
            OpCode::FSqrt => {
                let a = self.arg(d, ar.a())?;
                let r = self.map(d, Op::Rsqrt, &[&a])?;
                self.map(d, Op::Rcp, &[&r])?
            }
            OpCode::FDiv => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let r = self.map(d, Op::Rcp, &[&b])?;
                self.map(d, Op::Mul, &[&a, &r])?
            }
            OpCode::FPow => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let l = self.map(d, Op::Log2, &[&a])?;
                let p = self.map(d, Op::Mul, &[&b, &l])?;
                self.map(d, Op::Exp2, &[&p])?
            }
            OpCode::FSgn => {
                let a = self.arg(d, ar.a())?;
                self.map(d, Op::Sign, &[&a])?
            }
            OpCode::FRound => {
                let fr = FRound::of(op);
                let a = self.arg(d, fr.a())?;
                match fr.mode() {
                    // NegativeInf.
                    Some(4) => self.map(d, Op::Floor, &[&a])?,
                    // PositiveInf: −floor(−a).
                    Some(8) => neg(self.map(d, Op::Floor, &[&neg(a)])?),
                    // Zero: sign(a)·floor(|a|).
                    Some(1) => {
                        let na = neg(a.clone());
                        let abs = self.map(d, Op::Max, &[&a, &na])?;
                        let f = self.map(d, Op::Floor, &[&abs])?;
                        let s = self.map(d, Op::Sign, &[&a])?;
                        self.map(d, Op::Mul, &[&s, &f])?
                    }
                    // NearestEven.
                    _ => self.round_even(&a),
                }
            }
            OpCode::FFract => {
                let a = self.arg(d, ar.a())?;
                let f = self.map(d, Op::Floor, &[&a])?;
                self.map(d, Op::Add, &[&a, &neg(f)])?
            }
            OpCode::FGe | OpCode::FLt | OpCode::FGt | OpCode::FLe => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                match op.opcode {
                    OpCode::FGe => self.map(d, Op::Ge, &[&a, &b])?,
                    OpCode::FLt => self.map(d, Op::Lt, &[&a, &b])?,
                    OpCode::FGt => self.map(d, Op::Lt, &[&b, &a])?,
                    _ => self.map(d, Op::Ge, &[&b, &a])?,
                }
            }
            OpCode::FEq | OpCode::FNe | OpCode::BEq | OpCode::BNe => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let ge = self.map(d, Op::Ge, &[&a, &b])?;
                let le = self.map(d, Op::Ge, &[&b, &a])?;
                let eq = self.map(d, Op::Min, &[&ge, &le])?;
                if matches!(op.opcode, OpCode::FEq | OpCode::BEq) {
                    eq
                } else {
                    // Unordered: NaN operands compare not-equal.
                    let one = Self::splat(1.0, eq.len());
                    self.map(d, Op::Add, &[&one, &neg(eq)])?
                }
            }
            OpCode::BAnd | OpCode::BOr => {
                let a = self.arg(d, ar.a())?;
                let b = self.arg(d, ar.b())?;
                let o = if op.opcode == OpCode::BAnd {
                    Op::Min
                } else {
                    Op::Max
                };
                self.map(d, o, &[&a, &b])?
            }
            OpCode::BNot => {
                let a = self.arg(d, ar.a())?;
                let one = Self::splat(1.0, a.len());
                self.map(d, Op::Add, &[&one, &neg(a)])?
            }
            OpCode::Select => {
                let sel = Select::of(op);
                let mut a = self.arg(d, sel.if_true())?;
                let mut b = self.arg(d, sel.if_false())?;
                // `x == 0 ? a : b` is `x ≠ 0 ? b : a` on the GP's select, which tests its
                // condition against 0 itself (NaN ≠ 0, −0 = 0, as the compare): the compare
                // goes (the D3D9 multiply's pattern).
                let (c, is_bool) = match self.zero_test(sel.cond())? {
                    Some((x, eq)) => {
                        if eq {
                            std::mem::swap(&mut a, &mut b);
                        }
                        // Now `x ≠ 0 ? a : b`. A literal ±0 for `b` next to a uniform `a`
                        // would need a second uniform vec4 (a mov): `x − x` is +0 there.
                        self.zero_arm(&x, &a, &mut b);
                        (x, false)
                    }
                    None => (self.arg(d, sel.cond())?, true),
                };
                // Bit equality: a −0 arm is not the 0 a bool gives.
                let is = |v: &Comps, x: f32| {
                    v.iter()
                        .all(|k| k.as_lit().map(f32::to_bits) == Some(x.to_bits()))
                };
                // `c ? 1 : 0` is `c` itself only for a bool (0.0 or 1.0); the `x` of a zero
                // test is any float.
                if is_bool && is(&a, 1.0) && is(&b, 0.0) && c.len() == a.len() {
                    c
                } else {
                    self.map(d, Op::Select, &[&c, &a, &b])?
                }
            }
            // Parts of a dynamic constant index: consumed by the relative loads.
            OpCode::ConvertFtoI | OpCode::IAdd | OpCode::ISub | OpCode::Cast
                if self.rel_index(d).is_some() =>
            {
                return Ok(())
            }
            o => return Err(self.diag(d, format!("{o:?} has no GP lowering"))),
        };
        self.values.insert(d, r);
        Ok(())
    }
}
