//! Control flow (raw scoped vs structured must agree), functions, quads, discard, memory, and
//! traps.

mod common;
use common::*;
use irc_interp::{run, Binding, IoSlot, RunConfig, ShaderInputs, TrapKind, Value};
use irc_ir::{Construct, Op, OpCode as O, ScalarType as T, ShaderStage, SsaDef, Type};

fn void(oc: O) -> Op {
    Op::new(oc, Type::void())
}

/// Raw IR: `t = 0; i = 0; loop { if (i >= n) break; t += i; i++ } out = t`, with a DclTmp.
fn raw_loop(n: u32) -> u32 {
    let mut s = Sh::new(ShaderStage::Vertex);
    let ep = s.ep;
    let t = s.add(Op::new(O::DclTmp, T::U32).arg(ep));
    let i = s.add(Op::new(O::DclTmp, T::U32).arg(ep));
    let zero = s.u32(0);
    let one = s.u32(1);
    let nn = s.u32(n);
    s.add(void(O::TmpStore).arg(t).arg(zero));
    s.add(void(O::TmpStore).arg(i).arg(zero));
    // ScopedLoop's operand is the EndLoop (forward); patch it afterwards.
    let lp = s.add(void(O::ScopedLoop).arg(zero));
    let iv = s.add(Op::new(O::TmpLoad, T::U32).arg(i));
    let c = s.op2(O::UGe, T::Bool, iv, nn);
    let iff = s.add(void(O::ScopedIf).arg(zero).arg(c));
    s.add(void(O::ScopedLoopBreak).arg(lp));
    let endif = s.add(void(O::ScopedEndIf).arg(iff));
    s.m.set_operand(iff, 0, endif.into());
    let tv = s.add(Op::new(O::TmpLoad, T::U32).arg(t));
    let sum = s.op2(O::IAdd, T::U32, tv, iv);
    s.add(void(O::TmpStore).arg(t).arg(sum));
    let inc = s.op2(O::IAdd, T::U32, iv, one);
    s.add(void(O::TmpStore).arg(i).arg(inc));
    let end = s.add(void(O::ScopedEndLoop).arg(lp));
    s.m.set_operand(lp, 0, end.into());
    let res = s.add(Op::new(O::TmpLoad, T::U32).arg(t));
    s.output(res);
    s.finish();
    bits(&Sh::out(&s.run(&ShaderInputs::default()), 0, 0)) as u32
}

/// Structured IR of the same loop, with phis.
fn structured_loop(n: u32) -> u32 {
    let mut s = Sh::new(ShaderStage::Vertex);
    let zero = s.u32(0);
    let one = s.u32(1);
    let nn = s.u32(n);
    let entry = s.add(void(O::Label).lit(Construct::None.to_u64()));
    let header = s.add(
        void(O::Label)
            .arg(zero)
            .arg(zero)
            .lit(Construct::StructuredLoop.to_u64()),
    );
    s.m.set_operand(entry, 0, irc_ir::Operand::Lit(0));
    // entry: branch header (inserted before header)
    let br = s.m.insert_before(header, void(O::Branch).arg(header));
    let _ = br;
    let phi_i = s.add(Op::new(O::Phi, T::U32).arg(entry).arg(zero));
    let phi_t = s.add(Op::new(O::Phi, T::U32).arg(entry).arg(zero));
    let body = s.add(void(O::Label).lit(0));
    let _ = s.m.insert_before(body, void(O::Branch).arg(body));
    let c = s.op2(O::UGe, T::Bool, phi_i, nn);
    let cont = s.add(void(O::Label).lit(0));
    let merge = s.add(void(O::Label).lit(0));
    let bc =
        s.m.insert_before(cont, void(O::BranchConditional).arg(c).arg(merge).arg(cont));
    let _ = bc;
    let mut b = irc_ir::Builder::at(&mut s.m, irc_ir::Position::Before(merge));
    let sum = b.add(Op::new(O::IAdd, T::U32).arg(phi_t).arg(phi_i));
    let inc = b.add(Op::new(O::IAdd, T::U32).arg(phi_i).arg(one));
    b.add(void(O::Branch).arg(header));
    // Header operands: merge, continue; phis get the back edge.
    s.m.set_operand(header, 0, merge.into());
    s.m.set_operand(header, 1, cont.into());
    let ph = Op::new(O::Phi, T::U32)
        .arg(entry)
        .arg(zero)
        .arg(cont)
        .arg(inc);
    s.m.rewrite(phi_i, ph);
    let pt = Op::new(O::Phi, T::U32)
        .arg(entry)
        .arg(zero)
        .arg(cont)
        .arg(sum);
    s.m.rewrite(phi_t, pt);
    s.output(phi_t);
    s.finish();
    bits(&Sh::out(&s.run(&ShaderInputs::default()), 0, 0)) as u32
}

#[test]
fn raw_and_structured_loops_agree() {
    for n in [0u32, 1, 5, 10] {
        let expect = n * n.saturating_sub(1) / 2;
        assert_eq!(raw_loop(n), expect, "raw n={n}");
        assert_eq!(structured_loop(n), expect, "structured n={n}");
    }
}

/// Raw switch with fall-through: case 1 adds 10 and falls into case 2 (adds 100), default adds
/// 1000.
fn raw_switch(sel: u32) -> u32 {
    let mut s = Sh::new(ShaderStage::Vertex);
    let ep = s.ep;
    let t = s.add(Op::new(O::DclTmp, T::U32).arg(ep));
    let zero = s.u32(0);
    let ten = s.u32(10);
    let hundred = s.u32(100);
    let thousand = s.u32(1000);
    let sv = s.u32(sel);
    s.add(void(O::TmpStore).arg(t).arg(zero));
    let sw = s.add(void(O::ScopedSwitch).arg(zero).arg(sv));
    let add = |s: &mut Sh, k: SsaDef| {
        let v = s.add(Op::new(O::TmpLoad, T::U32).arg(t));
        let r = s.op2(O::IAdd, T::U32, v, k);
        s.add(void(O::TmpStore).arg(t).arg(r));
    };
    s.add(void(O::ScopedSwitchDefault).arg(sw));
    add(&mut s, thousand);
    s.add(void(O::ScopedSwitchBreak).arg(sw));
    s.add(void(O::ScopedSwitchCase).arg(sw).lit(1));
    add(&mut s, ten);
    s.add(void(O::ScopedSwitchCase).arg(sw).lit(2));
    add(&mut s, hundred);
    s.add(void(O::ScopedSwitchBreak).arg(sw));
    let end = s.add(void(O::ScopedEndSwitch).arg(sw));
    s.m.set_operand(sw, 0, end.into());
    let r = s.add(Op::new(O::TmpLoad, T::U32).arg(t));
    s.output(r);
    s.finish();
    bits(&Sh::out(&s.run(&ShaderInputs::default()), 0, 0)) as u32
}

#[test]
fn scoped_switch_fallthrough_and_default() {
    assert_eq!(raw_switch(1), 110);
    assert_eq!(raw_switch(2), 100);
    assert_eq!(raw_switch(7), 1000);
}

#[test]
fn function_call_with_parameter() {
    let mut s = Sh::new(ShaderStage::Vertex);
    let p = s.add(Op::new(O::DclParam, T::F32));
    let x = s.f32(3.0);
    // Close main first, then define the callee after it.
    let call_at = s.add(Op::new(O::FunctionCall, T::F32).arg(x)); // patched below
    s.output(call_at);
    s.finish();
    let f = s.add(Op::new(O::Function, T::F32).arg(p));
    let pl = s.add(Op::new(O::ParamLoad, T::F32).arg(f).arg(p));
    let sq = s.op2(O::FMul, T::F32, pl, pl);
    s.add(void(O::Return).arg(sq));
    s.add(void(O::FunctionEnd));
    s.m.rewrite(call_at, Op::new(O::FunctionCall, T::F32).arg(f).arg(x));
    let o = s.run(&ShaderInputs::default());
    assert_eq!(f32_of(&Sh::out(&o, 0, 0)), 9.0);
}

/// A pixel shader reading input v (lanes 1, 2, 4, 8) and writing derivatives and discarding
/// lanes with v > 3.
#[test]
fn quad_derivatives_and_discard() {
    let mut s = Sh::new(ShaderStage::Pixel);
    let ep = s.ep;
    let inp = s.add(Op::new(O::DclInput, T::F32).arg(ep).lit(0).lit(0).lit(0));
    let v = s.add(Op::new(O::InputLoad, T::F32).arg(inp).arg(None::<SsaDef>));
    let three = s.f32(3.0);
    let zero = s.u32(0);
    let c = s.op2(O::FGt, T::Bool, v, three);
    let iff = s.add(void(O::ScopedIf).arg(zero).arg(c));
    s.add(void(O::Demote));
    let end = s.add(void(O::ScopedEndIf).arg(iff));
    s.m.set_operand(iff, 0, end.into());
    for (oc, mode) in [
        (O::DerivX, 1),
        (O::DerivX, 2),
        (O::DerivY, 1),
        (O::DerivY, 2),
    ] {
        let d = s.add(Op::new(oc, T::F32).arg(v).lit(mode));
        s.output(d);
    }
    s.finish();
    let mut inputs = ShaderInputs::default();
    for x in [1.0f32, 2.0, 4.0, 8.0] {
        let mut inv = irc_interp::InvocationInputs::default();
        inv.io.insert(
            IoSlot::Location {
                location: 0,
                component: 0,
            },
            Value::f32(x),
        );
        inputs.invocations.push(inv);
    }
    let o = s.run(&inputs);
    let get = |lane, i| f32_of(&Sh::out(&o, lane, i));
    // coarse dx = 2-1, fine dx row1 = 8-4, coarse dy = 4-1, fine dy col1 = 8-2
    assert_eq!([get(0, 0), get(3, 0)], [1.0, 1.0]);
    assert_eq!([get(0, 1), get(3, 1)], [1.0, 4.0]);
    assert_eq!([get(1, 2), get(3, 2)], [3.0, 3.0]);
    assert_eq!([get(0, 3), get(1, 3)], [3.0, 6.0]);
    let disc: Vec<bool> = o.invocations.iter().map(|i| i.discarded).collect();
    assert_eq!(disc, vec![false, false, true, true]);
}

#[test]
fn cbv_scratch_and_constant_load() {
    let mut s = Sh::new(ShaderStage::Vertex);
    let ep = s.ep;
    let cbv_ty = Type::vector(T::Unknown, 4).array_of(2);
    let cbv = s.add(Op::new(O::DclCbv, cbv_ty).arg(ep).lit(0).lit(3).lit(1));
    let zero = s.u32(0);
    let one = s.u32(1);
    let desc = s.add(Op::new(O::DescriptorLoad, T::Cbv).arg(cbv).arg(zero));
    let whole = s.add(
        Op::new(O::BufferLoad, Type::vector(T::Unknown, 4))
            .arg(desc)
            .arg(one)
            .lit(16),
    );
    let addr = s.b().constant(Type::vector(T::U32, 2), &[0, 2]);
    let pair = s.add(
        Op::new(O::BufferLoad, Type::vector(T::Unknown, 2))
            .arg(desc)
            .arg(addr)
            .lit(8),
    );
    let scr = s.add(Op::new(O::DclScratch, T::U32.into_arr(4)).arg(ep));
    let nine = s.u32(9);
    let two = s.u32(2);
    let big = s.u32(100);
    s.add(void(O::ScratchStore).arg(scr).arg(two).arg(nine));
    s.add(void(O::ScratchStore).arg(scr).arg(big).arg(nine)); // dropped
    let l2 = s.add(Op::new(O::ScratchLoad, T::U32).arg(scr).arg(two));
    let lbig = s.add(Op::new(O::ScratchLoad, T::U32).arg(scr).arg(big)); // 0
    let arr = s.b().constant(
        Type::scalar(T::F32).array_of(3),
        &[
            1.0f32.to_bits() as u64,
            2.0f32.to_bits() as u64,
            5.0f32.to_bits() as u64,
        ],
    );
    let cl = s.add(Op::new(O::ConstantLoad, T::F32).arg(arr).arg(two));
    for v in [whole, pair, l2, lbig, cl] {
        s.output(v);
    }
    s.finish();
    let mut inputs = ShaderInputs::default();
    inputs.cbvs.insert(
        Binding {
            space: 0,
            register: 3,
        },
        (10..18).collect(),
    );
    let o = s.run(&inputs);
    let c = |v: Value| {
        v.components()
            .unwrap()
            .iter()
            .map(|s| s.bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(c(Sh::out(&o, 0, 0)), vec![14, 15, 16, 17]);
    assert_eq!(c(Sh::out(&o, 0, 1)), vec![12, 13]);
    assert_eq!(bits(&Sh::out(&o, 0, 2)), 9);
    assert_eq!(bits(&Sh::out(&o, 0, 3)), 0);
    assert_eq!(f32_of(&Sh::out(&o, 0, 4)), 5.0);
}

trait Arr {
    fn into_arr(self, n: u32) -> Type;
}
impl Arr for T {
    fn into_arr(self, n: u32) -> Type {
        Type::scalar(self).array_of(n)
    }
}

#[test]
fn traps_are_values() {
    // Infinite loop: fuel.
    let mut s = Sh::new(ShaderStage::Vertex);
    let zero = s.u32(0);
    let lp = s.add(void(O::ScopedLoop).arg(zero));
    let end = s.add(void(O::ScopedEndLoop).arg(lp));
    s.m.set_operand(lp, 0, end.into());
    s.finish();
    let cfg = RunConfig {
        fuel: 1000,
        ..RunConfig::default()
    };
    let t = run(&s.m, &ShaderInputs::default(), &cfg).unwrap_err();
    assert_eq!(t.kind, TrapKind::FuelExhausted);

    // Out-of-range input index.
    let mut s = Sh::new(ShaderStage::Vertex);
    let ep = s.ep;
    let inp = s.add(
        Op::new(O::DclInput, Type::scalar(T::F32).array_of(2))
            .arg(ep)
            .lit(0)
            .lit(0),
    );
    let five = s.u32(5);
    let bad = s.add(Op::new(O::InputLoad, T::F32).arg(inp).arg(five));
    s.output(bad);
    s.finish();
    let t = run(&s.m, &ShaderInputs::default(), &RunConfig::default()).unwrap_err();
    assert_eq!((t.op, t.kind), (bad, TrapKind::OutOfBounds));

    // Unsupported op.
    let mut s = Sh::new(ShaderStage::Vertex);
    let a = s.b().constant(T::U64, &[0]);
    let p = s.add(Op::new(O::Pointer, T::U32).arg(a).lit(0));
    s.finish();
    let t = run(&s.m, &ShaderInputs::default(), &RunConfig::default()).unwrap_err();
    assert_eq!((t.op, t.kind), (p, TrapKind::Unsupported(O::Pointer)));

    // No entry point.
    let t = run(
        &irc_ir::Module::new(),
        &ShaderInputs::default(),
        &RunConfig::default(),
    )
    .unwrap_err();
    assert!(matches!(t.kind, TrapKind::BadModule(_)));
}

#[test]
fn malformed_modules_never_panic() {
    // Every opcode with missing or junk operands, alone in a function.
    for &oc in irc_ir::OpCode::ALL {
        for ty in [Type::void(), Type::scalar(T::F32), Type::vector(T::U32, 3)] {
            let mut s = Sh::new(ShaderStage::Pixel);
            let one = s.u32(1);
            let f = s.f32(2.0);
            let mut op = Op::new(oc, ty.clone());
            if !oc.is_declarative() && oc != O::Function {
                for k in 0..3 {
                    op = op.arg(if k % 2 == 0 { one } else { f });
                }
                s.add(op);
            }
            s.finish();
            let _ = run(
                &s.m,
                &ShaderInputs::random(&s.m, 1),
                &RunConfig {
                    fuel: 10_000,
                    ..RunConfig::default()
                },
            );
        }
    }
}

#[test]
fn random_inputs_are_deterministic_and_complete() {
    let mut s = Sh::new(ShaderStage::Pixel);
    let ep = s.ep;
    s.add(
        Op::new(O::DclInput, Type::vector(T::F32, 4))
            .arg(ep)
            .lit(1)
            .lit(0)
            .lit(0),
    );
    s.add(
        Op::new(O::DclInputBuiltIn, Type::vector(T::F32, 4).array_of(8))
            .arg(ep)
            .lit(38),
    );
    s.add(
        Op::new(O::DclCbv, Type::vector(T::Unknown, 4).array_of(4))
            .arg(ep)
            .lit(0)
            .lit(0)
            .lit(1),
    );
    s.add(
        Op::new(O::DclSrv, T::F32)
            .arg(ep)
            .lit(0)
            .lit(1)
            .lit(1)
            .lit(5),
    );
    s.finish();
    let a = ShaderInputs::random(&s.m, 42);
    let b = ShaderInputs::random(&s.m, 42);
    assert_eq!(a, b);
    assert_eq!(a.invocations.len(), 4);
    assert!(a.invocations[0].io.contains_key(&IoSlot::BuiltIn(38)));
    assert_eq!(
        a.cbvs[&Binding {
            space: 0,
            register: 0
        }]
            .len(),
        16
    );
    assert!(a.srvs.contains_key(&Binding {
        space: 0,
        register: 1
    }));
    assert_ne!(a, ShaderInputs::random(&s.m, 43));
}

#[test]
fn image_sample_point_and_linear() {
    use irc_interp::{AddressMode, Filter, Image, ImageDim, Resource, Sampler};
    let mut s = Sh::new(ShaderStage::Vertex);
    let ep = s.ep;
    let srv = s.add(
        Op::new(O::DclSrv, T::F32)
            .arg(ep)
            .lit(0)
            .lit(0)
            .lit(1)
            .lit(5),
    );
    let smp = s.add(
        Op::new(O::DclSampler, Type::void())
            .arg(ep)
            .lit(0)
            .lit(0)
            .lit(1),
    );
    let zero = s.u32(0);
    let d = s.add(Op::new(O::DescriptorLoad, T::Srv).arg(srv).arg(zero));
    let sd = s.add(Op::new(O::DescriptorLoad, T::Sampler).arg(smp).arg(zero));
    // Centre between texels (0,0) and (1,0) of a 2x2 image.
    let coord = s.b().constant(
        Type::vector(T::F32, 2),
        &[0.5f32.to_bits() as u64, 0.25f32.to_bits() as u64],
    );
    let lod = s.f32(0.0);
    let n = None::<SsaDef>;
    let smp_op = Op::new(O::ImageSample, Type::vector(T::F32, 4))
        .arg(d)
        .arg(sd)
        .arg(n)
        .arg(coord)
        .arg(n)
        .arg(lod)
        .arg(n)
        .arg(n)
        .arg(n)
        .arg(n)
        .arg(n);
    let r = s.add(smp_op);
    s.output(r);
    s.finish();
    let img = Image::from_fn(ImageDim::D2, (2, 2, 1, 1), 1, |_, _, x, y, _| {
        let v = (x + 2 * y) as f32;
        [v.to_bits(), 0, 0, 1f32.to_bits()]
    });
    let mut inputs = ShaderInputs::default();
    inputs.srvs.insert(
        Binding {
            space: 0,
            register: 0,
        },
        Resource::Image(img),
    );
    let mut go = |filter| {
        let smp = Sampler {
            filter,
            address: [AddressMode::Clamp; 3],
            ..Sampler::default()
        };
        inputs.samplers.insert(
            Binding {
                space: 0,
                register: 0,
            },
            smp,
        );
        let o = s.run(&inputs);
        Sh::out(&o, 0, 0).components().unwrap()[0].as_f32()
    };
    // Point: u = 0.5 -> texel x = 1, v = 0.25 -> y = 0: value 1.
    assert_eq!(go(Filter::Point), 1.0);
    // Linear: x = 0.5*2-0.5 = 0.5 between texels 0 and 1; y = 0.25*2-0.5 = 0 -> row 0: 0.5.
    assert_eq!(go(Filter::Linear), 0.5);
}
