//! Randomized differential test of `const-fold` and `simplify`: random expression DAGs over
//! special constants and inputs, built with the [`Builder`], run in the interpreter before and
//! after `const-fold, simplify, const-fold` on many inputs (NaN, ±inf, ±0, denormals, huge
//! integers); outputs must agree exactly (any NaN matching any NaN).

use crate::caps::PassContext;
use irc_interp::random::Rng;
use irc_interp::{run, InvocationInputs, IoSlot, RunConfig, Scalar, ShaderInputs, Value};
use irc_ir::{Builder, Module, Op, OpCode, OpFlags, ScalarType as S, ShaderStage, SsaDef, Type};

const F_SPECIALS: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0,
    0.5,
    -4.0,
    3.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    1e-45,
    -1e-40,
    f32::MAX,
    f32::MIN_POSITIVE,
    1.5,
];
const I_SPECIALS: &[u32] = &[
    0,
    1,
    2,
    4,
    8,
    3,
    7,
    31,
    32,
    33,
    u32::MAX,
    0x8000_0000,
    0x7fff_ffff,
    0xffff_fffe,
    65536,
];

/// Ty: 0 f32, 1 u32, 2 i32, 3 bool.
const TYS: [S; 4] = [S::F32, S::U32, S::I32, S::Bool];

fn fbits(rng: &mut Rng) -> f32 {
    match rng.below(3) {
        0 => F_SPECIALS[rng.below(F_SPECIALS.len() as u64) as usize],
        1 => rng.float(),
        _ => f32::from_bits(rng.next_u64() as u32),
    }
}

fn ibits(rng: &mut Rng) -> u32 {
    match rng.below(3) {
        0 => I_SPECIALS[rng.below(I_SPECIALS.len() as u64) as usize],
        1 => rng.below(16) as u32,
        _ => rng.next_u64() as u32,
    }
}

struct Gen<'a> {
    rng: &'a mut Rng,
    pools: [Vec<SsaDef>; 4],
}

impl Gen<'_> {
    fn pick(&mut self, t: usize) -> SsaDef {
        let p = &self.pools[t];
        // Prefer recent values, so that chains form.
        let n = p.len() as u64;
        let i = if self.rng.below(2) == 0 {
            n - 1 - self.rng.below(n.min(4))
        } else {
            self.rng.below(n)
        };
        p[i as usize]
    }
}

/// A random module: inputs v0–v2 f32, v3–v4 u32, v5 i32; one output per computed value.
fn random_module(seed: u64) -> Module {
    let mut rng = Rng::new(seed);
    let mut m = Module::new();
    let mut b = Builder::new(&mut m);
    let func = b.add(Op::new(OpCode::Function, Type::void()));
    let ep = b.add(
        Op::new(OpCode::EntryPoint, Type::void())
            .arg(func)
            .lit(ShaderStage::Vertex.0 as u64),
    );
    if rng.below(3) == 0 {
        // Sometimes every f32 op is precise by default.
        b.add(
            Op::new(OpCode::SetFpMode, S::F32)
                .with_flags(OpFlags::PRECISE)
                .arg(ep)
                .lit(0)
                .lit(0),
        );
    }
    let in_tys = [S::F32, S::F32, S::F32, S::U32, S::U32, S::I32];
    let dcl_in: Vec<SsaDef> = in_tys
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            b.add(
                Op::new(OpCode::DclInput, t)
                    .arg(ep)
                    .lit(i as u64)
                    .lit(0)
                    .lit(0),
            )
        })
        .collect();
    b.add(Op::new(OpCode::Label, Type::void()).lit(0));
    let mut pools: [Vec<SsaDef>; 4] = Default::default();
    for (i, &t) in in_tys.iter().enumerate() {
        let v = b.add(Op::new(OpCode::InputLoad, t).arg(dcl_in[i]).arg(None));
        pools[TYS.iter().position(|&x| x == t).unwrap()].push(v);
    }
    for _ in 0..4 {
        let f = fbits(&mut rng);
        pools[0].push(b.const_f32(f));
        let u = ibits(&mut rng);
        pools[1].push(b.const_u32(u));
        let i = ibits(&mut rng);
        pools[2].push(b.const_i32(i as i32));
    }
    pools[3].push(b.const_bool(true));
    pools[3].push(b.const_bool(false));
    let cond = b.add(
        Op::new(OpCode::FLt, S::Bool)
            .arg(pools[0][0])
            .arg(pools[0][1]),
    );
    pools[3].push(cond);

    let mut g = Gen {
        rng: &mut rng,
        pools,
    };
    let ops = 20 + g.rng.below(30);
    for _ in 0..ops {
        // Sometimes a fresh special constant, to make identities fire.
        if g.rng.below(4) == 0 {
            let t = g.rng.below(3) as usize;
            let c = special(&mut b, g.rng, t);
            g.pools[t].push(c);
        }
        let flags = match g.rng.below(6) {
            0 => OpFlags::PRECISE,
            _ => OpFlags::NONE,
        };
        let (opcode, arity, t_res, t_arg) = random_op(g.rng);
        let mut op = Op::new(opcode, TYS[t_res]).with_flags(flags);
        let mut first = None;
        for k in 0..arity {
            let ta = if opcode == OpCode::Select && k == 0 {
                3
            } else {
                t_arg
            };
            // Same operand twice now and then (x op x rules).
            let v = match first {
                Some(f) if ta == t_arg && g.rng.below(5) == 0 => f,
                _ if k > 0 && ta < 3 && g.rng.below(3) == 0 => special(&mut b, g.rng, ta),
                _ => g.pick(ta),
            };
            if first.is_none() && ta == t_arg {
                first = Some(v);
            }
            op = op.arg(v);
        }
        if opcode == OpCode::FRound {
            op = op.lit([1, 2, 4, 8][g.rng.below(4) as usize]);
        }
        let v = b.add(op);
        g.pools[t_res].push(v);
    }
    // Outputs: every value computed (bools through a select, i32 through a cast), so that
    // no rewrite can hide behind dead code.
    let mut loc = 0u64;
    for (t, vals) in g.pools.clone().iter().enumerate() {
        for &v0 in vals {
            if b.module_ref().op(v0).opcode == OpCode::Constant {
                continue;
            }
            let v = match t {
                3 => {
                    let (one, zero) = (b.const_u32(1), b.const_u32(0));
                    b.add(Op::new(OpCode::Select, S::U32).arg(v0).arg(one).arg(zero))
                }
                2 => b.add(Op::new(OpCode::Cast, S::U32).arg(v0)),
                _ => v0,
            };
            let ty = if t == 0 { S::F32 } else { S::U32 };
            let out = b.add(Op::new(OpCode::DclOutput, ty).arg(ep).lit(loc).lit(0));
            loc += 1;
            b.add(
                Op::new(OpCode::OutputStore, Type::void())
                    .arg(out)
                    .arg(None)
                    .arg(v),
            );
        }
    }
    b.add(Op::new(OpCode::Return, Type::void()));
    b.add(Op::new(OpCode::FunctionEnd, Type::void()));
    m
}

/// A special constant of type index `t` (f32, u32, i32).
fn special(b: &mut Builder, rng: &mut Rng, t: usize) -> SsaDef {
    match t {
        0 => b.const_f32(F_SPECIALS[rng.below(F_SPECIALS.len() as u64) as usize]),
        1 => b.const_u32(I_SPECIALS[rng.below(I_SPECIALS.len() as u64) as usize]),
        _ => b.const_i32(I_SPECIALS[rng.below(I_SPECIALS.len() as u64) as usize] as i32),
    }
}

/// (opcode, operand count, result type, operand type).
fn random_op(rng: &mut Rng) -> (OpCode, usize, usize, usize) {
    use OpCode::*;
    const F: &[(OpCode, usize)] = &[
        (FAdd, 2),
        (FSub, 2),
        (FMul, 2),
        (FDiv, 2),
        (FMad, 3),
        (FNeg, 1),
        (FAbs, 1),
        (FMin, 2),
        (FMax, 2),
        (FSqrt, 1),
        (FRcp, 1),
        (FFract, 1),
        (FRound, 1),
        (FClamp, 3),
        (FSgn, 1),
        (FMulLegacy, 2),
    ];
    const I: &[(OpCode, usize)] = &[
        (IAdd, 2),
        (ISub, 2),
        (IMul, 2),
        (IAnd, 2),
        (IOr, 2),
        (IXor, 2),
        (INot, 1),
        (INeg, 1),
        (IShl, 2),
        (UShr, 2),
        (SShr, 2),
        (UDiv, 2),
        (UMod, 2),
        (SMin, 2),
        (UMax, 2),
        (IBitCount, 1),
    ];
    const C: &[OpCode] = &[FEq, FNe, FLt, FLe, FGt, FGe];
    const IC: &[OpCode] = &[IEq, INe, SLt, SLe, SGt, SGe, ULt, ULe, UGt, UGe];
    const B: &[(OpCode, usize)] = &[(BAnd, 2), (BOr, 2), (BEq, 2), (BNe, 2), (BNot, 1)];
    match rng.below(12) {
        0..=4 => {
            let (o, n) = F[rng.below(F.len() as u64) as usize];
            (o, n, 0, 0)
        }
        5..=7 => {
            let (o, n) = I[rng.below(I.len() as u64) as usize];
            let t = 1 + rng.below(2) as usize;
            (o, n, t, t)
        }
        8 => (C[rng.below(C.len() as u64) as usize], 2, 3, 0),
        9 => {
            let t = 1 + rng.below(2) as usize;
            (IC[rng.below(IC.len() as u64) as usize], 2, 3, t)
        }
        10 => {
            let (o, n) = B[rng.below(B.len() as u64) as usize];
            (o, n, 3, 3)
        }
        _ => {
            let t = rng.below(4) as usize;
            (OpCode::Select, 3, t, t)
        }
    }
}

fn random_inputs(rng: &mut Rng) -> ShaderInputs {
    let mut inv = InvocationInputs::default();
    for loc in 0..6u32 {
        let v = if loc < 3 {
            Value::Scalar(Scalar::F32(fbits(rng)))
        } else if loc < 5 {
            Value::Scalar(Scalar::U32(ibits(rng)))
        } else {
            Value::Scalar(Scalar::I32(ibits(rng) as i32))
        };
        inv.io.insert(
            IoSlot::Location {
                location: loc,
                component: 0,
            },
            v,
        );
    }
    ShaderInputs {
        invocations: vec![inv],
        ..Default::default()
    }
}

fn optimize(m: &mut Module) {
    let cx = PassContext::default();
    for pass in [
        crate::const_fold::run,
        crate::simplify::run,
        crate::const_fold::run,
    ] {
        pass(m, &cx).unwrap();
        if let Err(e) = irc_ir::verifier::verify(m) {
            panic!("{e}\n{}", irc_ir::text::print(m));
        }
    }
}

#[test]
fn random_dags_keep_their_outputs() {
    let cfg = RunConfig::default();
    let (mut before_ops, mut after_ops, mut mismatches) = (0, 0, 0);
    for seed in 0..400 {
        let m = random_module(seed);
        if let Err(e) = irc_ir::verifier::verify(&m) {
            panic!(
                "generator made an invalid module: {e}\n{}",
                irc_ir::text::print(&m)
            );
        }
        let mut opt = m.clone();
        optimize(&mut opt);
        before_ops += m.len();
        after_ops += opt.len();
        let mut rng = Rng::new(seed.wrapping_mul(7919));
        for _ in 0..40 {
            let inputs = random_inputs(&mut rng);
            let a = run(&m, &inputs, &cfg).expect("original runs");
            let b = run(&opt, &inputs, &cfg).expect("optimized runs");
            if let Err(d) = irc_interp::compare::outputs_equal(&a, &b) {
                mismatches += 1;
                if mismatches < 4 {
                    eprintln!(
                        "seed {seed}: {d}\ninputs {:?}\n--- before\n{}\n--- after\n{}",
                        inputs.invocations[0].io,
                        irc_ir::text::print(&m),
                        irc_ir::text::print(&opt)
                    );
                }
            }
        }
    }
    eprintln!("ops before {before_ops}, after {after_ops}");
    assert_eq!(mismatches, 0);
    assert!(after_ops < before_ops);
}
