//! Helpers that build small modules with the builder API and run them.

#![allow(dead_code)]

use irc_interp::{run, IoSlot, Outputs, RunConfig, ShaderInputs, Value};
use irc_ir::{Builder, Module, Op, OpCode, ScalarType, ShaderStage, SsaDef, Type};

pub struct Sh {
    pub m: Module,
    pub ep: SsaDef,
    pub func: SsaDef,
    pub outs: Vec<SsaDef>,
}

impl Sh {
    /// A shader of the given stage; the entry function is open (no Label).
    pub fn new(stage: ShaderStage) -> Sh {
        let mut m = Module::new();
        let mut b = Builder::new(&mut m);
        let func = b.add(Op::new(OpCode::Function, Type::void()));
        let ep = b.add(
            Op::new(OpCode::EntryPoint, Type::void())
                .arg(func)
                .lit(stage.0 as u64),
        );
        Sh {
            m,
            ep,
            func,
            outs: Vec::new(),
        }
    }
    pub fn b(&mut self) -> Builder<'_> {
        Builder::new(&mut self.m)
    }
    pub fn add(&mut self, op: Op) -> SsaDef {
        self.b().add(op)
    }
    pub fn f32(&mut self, v: f32) -> SsaDef {
        self.b().const_f32(v)
    }
    pub fn u32(&mut self, v: u32) -> SsaDef {
        self.b().const_u32(v)
    }
    pub fn i32(&mut self, v: i32) -> SsaDef {
        self.b().const_i32(v)
    }
    pub fn op1(&mut self, oc: OpCode, t: ScalarType, a: SsaDef) -> SsaDef {
        self.add(Op::new(oc, t).arg(a))
    }
    pub fn op2(&mut self, oc: OpCode, t: ScalarType, a: SsaDef, b: SsaDef) -> SsaDef {
        self.add(Op::new(oc, t).arg(a).arg(b))
    }
    pub fn op3(&mut self, oc: OpCode, t: ScalarType, a: SsaDef, b: SsaDef, c: SsaDef) -> SsaDef {
        self.add(Op::new(oc, t).arg(a).arg(b).arg(c))
    }
    /// The `f32x2` vector `(a, b)`.
    pub fn vec2_f32(&mut self, a: SsaDef, b: SsaDef) -> SsaDef {
        self.add(
            Op::new(OpCode::CompositeConstruct, Type::vector(ScalarType::F32, 2))
                .arg(a)
                .arg(b),
        )
    }
    /// Declares output location `outs.len()` with the type of `v` and stores `v` to it.
    pub fn output(&mut self, v: SsaDef) {
        let ty = self.m.ty(v).clone();
        let loc = self.outs.len() as u64;
        let ep = self.ep;
        let o = self.add(Op::new(OpCode::DclOutput, ty).arg(ep).lit(loc).lit(0));
        self.add(
            Op::new(OpCode::OutputStore, Type::void())
                .arg(o)
                .arg(None::<SsaDef>)
                .arg(v),
        );
        self.outs.push(o);
    }
    /// Closes the entry function (Return + FunctionEnd).
    pub fn finish(&mut self) {
        self.add(Op::new(OpCode::Return, Type::void()));
        self.add(Op::new(OpCode::FunctionEnd, Type::void()));
    }
    pub fn run(&self, inputs: &ShaderInputs) -> Outputs {
        self.run_with(inputs, &RunConfig::default())
    }
    /// [`Sh::run`] under an oracle configuration.
    pub fn run_with(&self, inputs: &ShaderInputs, cfg: &RunConfig) -> Outputs {
        run(&self.m, inputs, cfg).unwrap_or_else(|t| panic!("trap: {t}"))
    }
    /// Output `i` of lane `lane`.
    pub fn out(o: &Outputs, lane: usize, i: u32) -> Value {
        o.invocations[lane].io[&IoSlot::Location {
            location: i,
            component: 0,
        }]
            .clone()
    }
}

/// Runs a vertex shader whose body is built by `f` (which returns the values to output).
pub fn eval(f: impl FnOnce(&mut Sh) -> Vec<SsaDef>) -> Vec<Value> {
    eval_with(&RunConfig::default(), f)
}

/// [`eval`] under an oracle configuration.
pub fn eval_with(cfg: &RunConfig, f: impl FnOnce(&mut Sh) -> Vec<SsaDef>) -> Vec<Value> {
    let mut sh = Sh::new(ShaderStage::Vertex);
    let vals = f(&mut sh);
    for v in vals {
        sh.output(v);
    }
    sh.finish();
    let o = sh.run_with(&ShaderInputs::default(), cfg);
    (0..sh.outs.len() as u32)
        .map(|i| Sh::out(&o, 0, i))
        .collect()
}

pub fn bits(v: &Value) -> u64 {
    v.as_scalar().expect("scalar").bits()
}

pub fn f32_of(v: &Value) -> f32 {
    f32::from_bits(bits(v) as u32)
}
