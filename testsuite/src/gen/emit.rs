//! What both lowerings share: the declarations of a generated shader (entry point,
//! inputs, outputs, a vertex or geometry shader's position, a geometry shader's primitive
//! settings, constant buffer, texture and sampler) and the emission of expressions as IR ops at
//! the end of the code. How a variable is read is left to the lowering (a `TmpLoad`
//! in raw IR, the current SSA value in structured IR).

use super::ast::*;
use irc_ir::{Builder, Module, Op, OpCode, Operand, ScalarType, SsaDef, Type};

/// Whether to emit the raw (dxbc-spirv front-end) shapes or the legalized ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Scoped control flow, `DclTmp`/`TmpLoad`/`TmpStore`, `ConsumeAs`, untyped cbuffer.
    Raw,
    /// Labels, branches and phis; typed everything.
    Structured,
}

/// Declarations of a generated shader.
#[derive(Debug)]
pub struct Decls {
    pub main: SsaDef,
    pub inputs: Vec<SsaDef>,
    pub outputs: Vec<SsaDef>,
    /// A vertex or geometry shader's `Position` built-in, which gets output 0's value too
    /// (every rasterizing vertex target needs one; AGAL refuses a program without it).
    pub position: Option<SsaDef>,
    /// A geometry shader's vertices per input primitive: every input is an array over them.
    pub gs_vertices: Option<u32>,
    pub cbuf: Option<SsaDef>,
    pub texture: Option<(SsaDef, SsaDef)>,
}

pub fn scalar(ty: Ty) -> ScalarType {
    match ty {
        Ty::F32 => ScalarType::F32,
        Ty::I32 => ScalarType::I32,
        Ty::U32 => ScalarType::U32,
        Ty::Bool => ScalarType::Bool,
    }
}

/// Emits the entry point, the `main` function op and all resource declarations.
pub fn declare(m: &mut Module, p: &Program, form: Form) -> Decls {
    let mut b = Builder::new(m);
    let main = b.add(Op::new(OpCode::Function, Type::void()));
    let ep = b.add(
        Op::new(OpCode::EntryPoint, Type::void())
            .arg(main)
            .lit(u64::from(p.stage)),
    );
    b.add(
        Op::new(OpCode::DebugName, Type::void())
            .arg(main)
            .string("main"),
    );
    let f32x4 = Type::vector(ScalarType::F32, 4);
    let geometry = p.stage == irc_ir::ShaderStage::Geometry.0;
    let gs_vertices = geometry.then_some(GS_INPUT_VERTICES);
    if geometry {
        // One invocation per input triangle, emitting one triangle strip on stream 0.
        let triangles = irc_ir::PrimitiveType::Triangles.to_u64();
        let set = |op: OpCode| Op::new(op, Type::void()).arg(ep);
        b.add(set(OpCode::SetGsInstances).lit(1));
        b.add(set(OpCode::SetGsInputPrimitive).lit(triangles));
        b.add(set(OpCode::SetGsOutputVertices).lit(u64::from(GS_EMITTED_VERTICES)));
        b.add(set(OpCode::SetGsOutputPrimitive).lit(triangles).lit(0));
    }
    let inputs = (0..p.inputs)
        .map(|i| {
            let op = match gs_vertices {
                // Per-vertex arrays carry no interpolation mode.
                Some(n) => Op::new(OpCode::DclInput, f32x4.clone().array_of(n)),
                None => Op::new(OpCode::DclInput, f32x4.clone()),
            };
            let op = op.arg(ep).lit(i as u64).lit(0);
            b.add(if geometry { op } else { op.lit(0) })
        })
        .collect();
    let outputs = (0..p.outputs.len())
        .map(|i| {
            let op = Op::new(OpCode::DclOutput, f32x4.clone())
                .arg(ep)
                .lit(i as u64)
                .lit(0);
            // A geometry shader's outputs name their stream.
            b.add(if geometry { op.lit(0) } else { op })
        })
        .collect();
    let vertex = p.stage == irc_ir::ShaderStage::Vertex.0;
    let position = ((vertex || geometry) && !p.outputs.is_empty()).then(|| {
        let op = Op::new(OpCode::DclOutputBuiltIn, f32x4.clone())
            .arg(ep)
            .lit(irc_ir::BuiltIn::Position.to_u64());
        b.add(if geometry { op.lit(0) } else { op })
    });
    let cbuf = (p.cbuf_vectors > 0).then(|| {
        let elem = match form {
            Form::Raw => Type::vector(ScalarType::Unknown, 4),
            Form::Structured => f32x4.clone(),
        };
        let ty = elem.array_of(p.cbuf_vectors);
        b.add(Op::new(OpCode::DclCbv, ty).arg(ep).lit(0).lit(0).lit(1))
    });
    let texture = p.uses_texture.then(|| {
        let srv = b.add(
            Op::new(OpCode::DclSrv, ScalarType::F32)
                .arg(ep)
                .lit(0)
                .lit(0)
                .lit(1)
                .lit(irc_ir::ResourceKind::Image2D.to_u64()),
        );
        let smp = b.add(
            Op::new(OpCode::DclSampler, Type::void())
                .arg(ep)
                .lit(0)
                .lit(0)
                .lit(1),
        );
        (srv, smp)
    });
    Decls {
        main,
        inputs,
        outputs,
        position,
        gs_vertices,
        cbuf,
        texture,
    }
}

/// Vertices per input primitive of a generated geometry shader (a triangle).
pub const GS_INPUT_VERTICES: u32 = 3;
/// Vertices a generated geometry shader emits (one triangle).
pub const GS_EMITTED_VERTICES: u32 = 3;

/// Reads variables for [`emit_expr`].
pub trait VarReader {
    fn read(&mut self, m: &mut Module, var: usize) -> SsaDef;
}

fn add(m: &mut Module, op: Op) -> SsaDef {
    m.add(op)
}

fn u32c(m: &mut Module, v: u32) -> SsaDef {
    Builder::new(m).const_u32(v)
}

/// Emits `e` at the end of the code and returns its value.
pub fn emit_expr(
    m: &mut Module,
    d: &Decls,
    p: &Program,
    form: Form,
    vars: &mut dyn VarReader,
    e: &Expr,
) -> SsaDef {
    let f32t = || Type::scalar(ScalarType::F32);
    match e {
        Expr::Var(v) => vars.read(m, *v),
        Expr::ConstF(x) => Builder::new(m).const_f32(*x),
        Expr::ConstI(x) => Builder::new(m).const_i32(*x),
        Expr::ConstU(x) => u32c(m, *x),
        Expr::ConstB(x) => Builder::new(m).const_bool(*x),
        Expr::Input(loc, c) => {
            let a = u32c(m, *c);
            // A geometry shader reads input `loc` component `c` of vertex `(loc + c) mod n`.
            let a = match d.gs_vertices {
                Some(n) => {
                    let v = u32c(m, (*loc as u32 + *c) % n);
                    let u32x2 = Type::vector(ScalarType::U32, 2);
                    add(m, Op::new(OpCode::CompositeConstruct, u32x2).arg(v).arg(a))
                }
                None => a,
            };
            add(
                m,
                Op::new(OpCode::InputLoad, f32t())
                    .arg(d.inputs[*loc])
                    .arg(a),
            )
        }
        Expr::Cbuf(idx, c) => {
            let i = emit_expr(m, d, p, form, vars, idx);
            let cb = d.cbuf.expect("cbuf declared when used");
            let zero = u32c(m, 0);
            let desc = add(
                m,
                Op::new(OpCode::DescriptorLoad, ScalarType::Cbv)
                    .arg(cb)
                    .arg(zero),
            );
            let comp = u32c(m, *c);
            match form {
                Form::Structured => {
                    let v = add(
                        m,
                        Op::new(OpCode::BufferLoad, Type::vector(ScalarType::F32, 4))
                            .arg(desc)
                            .arg(i)
                            .lit(16),
                    );
                    add(
                        m,
                        Op::new(OpCode::CompositeExtract, f32t()).arg(v).arg(comp),
                    )
                }
                Form::Raw => {
                    let v = add(
                        m,
                        Op::new(OpCode::BufferLoad, Type::vector(ScalarType::Unknown, 4))
                            .arg(desc)
                            .arg(i)
                            .lit(16),
                    );
                    let x = add(
                        m,
                        Op::new(OpCode::CompositeExtract, ScalarType::Unknown)
                            .arg(v)
                            .arg(comp),
                    );
                    add(m, Op::new(OpCode::ConsumeAs, f32t()).arg(x))
                }
            }
        }
        Expr::Sample(u, v, c) => {
            let uu = emit_expr(m, d, p, form, vars, u);
            let vv = emit_expr(m, d, p, form, vars, v);
            let (srv, smp) = d.texture.expect("texture declared when used");
            let zero = u32c(m, 0);
            let t = add(
                m,
                Op::new(OpCode::DescriptorLoad, ScalarType::Srv)
                    .arg(srv)
                    .arg(zero),
            );
            let s = add(
                m,
                Op::new(OpCode::DescriptorLoad, ScalarType::Sampler)
                    .arg(smp)
                    .arg(zero),
            );
            let coord = add(
                m,
                Op::new(OpCode::CompositeConstruct, Type::vector(ScalarType::F32, 2))
                    .arg(uu)
                    .arg(vv),
            );
            // Explicit LOD 0: samples may sit in divergent control flow, where implicit
            // derivatives are undefined in D3D (and schedule-dependent in the interpreter).
            let lod = Builder::new(m).const_f32(0.0);
            let mut op = Op::new(OpCode::ImageSample, Type::vector(ScalarType::F32, 4))
                .arg(t)
                .arg(s)
                .arg(Operand::Null)
                .arg(coord)
                .arg(Operand::Null)
                .arg(lod);
            for _ in 0..5 {
                op = op.arg(Operand::Null);
            }
            let texel = add(m, op);
            let comp = u32c(m, *c);
            add(
                m,
                Op::new(OpCode::CompositeExtract, f32t())
                    .arg(texel)
                    .arg(comp),
            )
        }
        Expr::Un(op, a) => {
            let x = emit_expr(m, d, p, form, vars, a);
            let ty = Type::scalar(scalar(e.ty(&p.vars)));
            let un =
                |m: &mut Module, code: OpCode, x: SsaDef| add(m, Op::new(code, ty.clone()).arg(x));
            match op {
                Un::FNeg => un(m, OpCode::FNeg, x),
                Un::FAbs => un(m, OpCode::FAbs, x),
                Un::FFract => un(m, OpCode::FFract, x),
                Un::FFloor => add(
                    m,
                    Op::new(OpCode::FRound, ty.clone())
                        .arg(x)
                        .lit(irc_ir::RoundMode::NegativeInf.0 as u64),
                ),
                Un::FSqrtAbs => {
                    let a = un(m, OpCode::FAbs, x);
                    un(m, OpCode::FSqrt, a)
                }
                Un::FRsqAbs => {
                    let a = un(m, OpCode::FAbs, x);
                    un(m, OpCode::FRsq, a)
                }
                Un::FRcpRsqAbs => {
                    let a = un(m, OpCode::FAbs, x);
                    let r = un(m, OpCode::FRsq, a);
                    un(m, OpCode::FRcp, r)
                }
                Un::FRcp => un(m, OpCode::FRcp, x),
                Un::FExp2 => un(m, OpCode::FExp2, x),
                Un::FLog2Legacy => un(m, OpCode::FLog2Legacy, x),
                Un::FLog2Abs => {
                    let a = un(m, OpCode::FAbs, x);
                    un(m, OpCode::FLog2, a)
                }
                Un::FSin => un(m, OpCode::FSin, x),
                Un::FCos => un(m, OpCode::FCos, x),
                Un::FtoI | Un::FtoU => un(m, OpCode::ConvertFtoI, x),
                Un::ItoF | Un::UtoF => un(m, OpCode::ConvertItoF, x),
                Un::INeg => un(m, OpCode::INeg, x),
                Un::INot => un(m, OpCode::INot, x),
                Un::BNot => un(m, OpCode::BNot, x),
            }
        }
        Expr::Bin(op, a, bb) => {
            let x = emit_expr(m, d, p, form, vars, a);
            let y = emit_expr(m, d, p, form, vars, bb);
            let code = match op {
                Bin::FAdd => OpCode::FAdd,
                Bin::FSub => OpCode::FSub,
                Bin::FMul => OpCode::FMul,
                Bin::FMulLegacy => OpCode::FMulLegacy,
                Bin::FPowLegacy => OpCode::FPowLegacy,
                Bin::FDiv => OpCode::FDiv,
                Bin::FMin => OpCode::FMin,
                Bin::FMax => OpCode::FMax,
                Bin::IAdd => OpCode::IAdd,
                Bin::ISub => OpCode::ISub,
                Bin::IMul => OpCode::IMul,
                Bin::IAnd => OpCode::IAnd,
                Bin::IOr => OpCode::IOr,
                Bin::IXor => OpCode::IXor,
                Bin::IShl => OpCode::IShl,
                Bin::UShr => OpCode::UShr,
                Bin::SShr => OpCode::SShr,
                Bin::UMin => OpCode::UMin,
                Bin::UMax => OpCode::UMax,
                Bin::SMin => OpCode::SMin,
                Bin::SMax => OpCode::SMax,
                Bin::UDiv => OpCode::UDiv,
                Bin::UMod => OpCode::UMod,
                Bin::BAnd => OpCode::BAnd,
                Bin::BOr => OpCode::BOr,
            };
            let ty = Type::scalar(scalar(e.ty(&p.vars)));
            add(m, Op::new(code, ty).arg(x).arg(y))
        }
        Expr::Mad(a, bb, c) => {
            let x = emit_expr(m, d, p, form, vars, a);
            let y = emit_expr(m, d, p, form, vars, bb);
            let z = emit_expr(m, d, p, form, vars, c);
            add(m, Op::new(OpCode::FMad, f32t()).arg(x).arg(y).arg(z))
        }
        Expr::MadLegacy(a, bb, c) => {
            let x = emit_expr(m, d, p, form, vars, a);
            let y = emit_expr(m, d, p, form, vars, bb);
            let z = emit_expr(m, d, p, form, vars, c);
            add(m, Op::new(OpCode::FMadLegacy, f32t()).arg(x).arg(y).arg(z))
        }
        Expr::Dot {
            legacy,
            a,
            b,
            add: addend,
        } => {
            let mut vector = |m: &mut Module, es: &[Expr]| {
                let lanes: Vec<SsaDef> = es
                    .iter()
                    .map(|e| emit_expr(m, d, p, form, vars, e))
                    .collect();
                let ty = Type::vector(ScalarType::F32, lanes.len() as u8);
                let op = lanes
                    .into_iter()
                    .fold(Op::new(OpCode::CompositeConstruct, ty), |op, l| op.arg(l));
                add(m, op)
            };
            let (x, y) = (vector(m, a), vector(m, b));
            let c = addend.as_ref().map(|c| emit_expr(m, d, p, form, vars, c));
            let code = match (*legacy, c.is_some()) {
                (false, false) => OpCode::FDot,
                (true, false) => OpCode::FDotLegacy,
                (false, true) => OpCode::FDotAdd,
                (true, true) => OpCode::FDotAddLegacy,
            };
            let op = Op::new(code, f32t()).arg(x).arg(y);
            let op = match c {
                Some(c) => op.arg(c),
                None => op,
            };
            add(m, op)
        }
        Expr::Cmp(op, a, bb) => {
            let x = emit_expr(m, d, p, form, vars, a);
            let y = emit_expr(m, d, p, form, vars, bb);
            let code = match op {
                Cmp::FLt => OpCode::FLt,
                Cmp::FGe => OpCode::FGe,
                Cmp::FEq => OpCode::FEq,
                Cmp::FNe => OpCode::FNe,
                Cmp::SLt => OpCode::SLt,
                Cmp::ULt => OpCode::ULt,
                Cmp::IEq => OpCode::IEq,
            };
            add(m, Op::new(code, ScalarType::Bool).arg(x).arg(y))
        }
        Expr::Select(c, a, bb) => {
            let cc = emit_expr(m, d, p, form, vars, c);
            let x = emit_expr(m, d, p, form, vars, a);
            let y = emit_expr(m, d, p, form, vars, bb);
            let ty = Type::scalar(scalar(e.ty(&p.vars)));
            add(m, Op::new(OpCode::Select, ty).arg(cc).arg(x).arg(y))
        }
    }
}

/// Stores every output component from its variable (and output 0's into the position), in
/// one of four shapes chosen from the program's size and the output's index (so that both
/// forms of a program store alike): a scalar store per component, in order or in reverse; one
/// vector store of the four; or a vector store of components 0 and 1 and two placeholders
/// that scalar stores of components 2 and 3 then overwrite (components stored twice, the last
/// store winning).
pub fn emit_outputs(m: &mut Module, d: &Decls, p: &Program, form: Form, vars: &mut dyn VarReader) {
    let position = d.position.map(|dcl| (dcl, 0));
    let stores = d.outputs.iter().copied().zip(0..).chain(position);
    for (dcl, k) in stores {
        let comps = p.outputs[k];
        let mut value =
            |m: &mut Module, c: usize| emit_expr(m, d, p, form, vars, &Expr::Var(comps[c]));
        let store = |m: &mut Module, address: Option<SsaDef>, val: SsaDef| {
            let op = Op::new(OpCode::OutputStore, Type::void())
                .arg(dcl)
                .arg(irc_ir::Operand::from(address))
                .arg(val);
            add(m, op);
        };
        let shape = (p.vars.len() + k) % 4;
        if shape == 1 {
            let lanes: Vec<SsaDef> = (0..4).map(|c| value(m, c)).collect();
            let mut construct =
                Op::new(OpCode::CompositeConstruct, Type::vector(ScalarType::F32, 4));
            for l in lanes {
                construct = construct.arg(l);
            }
            let v = add(m, construct);
            store(m, None, v);
            continue;
        }
        if shape == 3 {
            // Components 0 and 1 in a vector store with two placeholders, which scalar
            // stores of components 2 and 3 then overwrite.
            let (x, y) = (value(m, 0), value(m, 1));
            let placeholder = add(
                m,
                Op::new(OpCode::Constant, Type::scalar(ScalarType::F32))
                    .lit(7.0f32.to_bits().into()),
            );
            let v = add(
                m,
                Op::new(OpCode::CompositeConstruct, Type::vector(ScalarType::F32, 4))
                    .arg(x)
                    .arg(y)
                    .arg(placeholder)
                    .arg(placeholder),
            );
            store(m, None, v);
            for c in 2..4 {
                let val = value(m, c);
                let a = u32c(m, c as u32);
                store(m, Some(a), val);
            }
            continue;
        }
        let order: [usize; 4] = if shape == 2 {
            [3, 2, 1, 0]
        } else {
            [0, 1, 2, 3]
        };
        for c in order {
            let val = value(m, c);
            let a = u32c(m, c as u32);
            store(m, Some(a), val);
        }
    }
}
