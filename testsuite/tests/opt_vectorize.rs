//! `vectorize` on random programs, compared in the interpreter bit for bit.
//!
//! The shared generator draws scalar programs that rarely line up into lanes, so this file has
//! a generator of its own that draws what the pass looks for, and what it must leave alone:
//! bundles of 2–4 isomorphic scalar ops whose operands are lanes of input vectors (in order,
//! swizzled, or mixed), broadcasts, constants, results of earlier bundles or unrelated values;
//! multiply-add chains of 1–6 terms in `FMul`/`FMad`/`FAdd` and legacy forms, sometimes from an
//! addend, with shared partial sums and `precise` flags; component stores, constructs and
//! scalar uses of the results, in one block or across a branch. Each program runs through
//! `vectorize` with every vec4 family's capabilities and with every dot product native
//! (verified), then through the clean-up passes, and must compute what it computed before on
//! random inputs and on inputs full of zeros, infinities and NaNs. The shared generator's programs, through the `opt` pipelines,
//! are compared by `irc fuzz-diff`.

use irc_interp::{run, RunConfig, ShaderInputs, Value};
use irc_ir::{text, verifier, Module, OpCode};
use irc_passes::vectorize::{run_with_stats, Stats};
use irc_passes::{registry, PassContext, TargetCaps};
use irc_testsuite::gen::Rng;

/// Programs per `cargo test` run; `VECTORIZE_PROGRAMS=N` runs more.
const PROGRAMS: u64 = 1500;
const INPUT_SETS: u64 = 6;

/// A vec4 family with every dot product native and no minimum size (the real families skip
/// the short ones).
fn all_dots() -> TargetCaps {
    TargetCaps {
        name: "vec4-all-dots",
        min_dot_terms: 2,
        native: &[
            OpCode::FDot,
            OpCode::FDotAdd,
            OpCode::FDotLegacy,
            OpCode::FDotAddLegacy,
        ],
        ..irc_testsuite::pipeline::caps("lima").unwrap()
    }
}

/// Builds the text of one program.
struct Gen {
    rng: Rng,
    next: u32,
    decls: String,
    body: String,
    /// Scalar f32 values available in the current block.
    pool: Vec<u32>,
    /// Bundles made so far: lanes of a "vector" computed as scalars.
    bundles: Vec<Vec<u32>>,
    /// Ids of the u32 constants 0…3 and the f32 input vectors' extracts.
    index: [u32; 4],
    /// Id of the first of the f32 `CONSTANTS` (the others follow).
    constants: u32,
    inputs: Vec<[u32; 4]>,
    outputs: Vec<u32>,
}

const UNARY: &[&str] = &["FAbs", "FNeg", "FFract", "FRcp", "FExp2"];
const BINARY: &[&str] = &["FAdd", "FSub", "FMul", "FMin", "FMax", "FMulLegacy", "FDiv"];
const CONSTANTS: &[&str] = &["0.0", "-0.0", "1.0", "0.5", "2.0", "-3.0", "inf"];

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
            next: 100,
            decls: String::new(),
            body: String::new(),
            pool: Vec::new(),
            bundles: Vec::new(),
            index: [0; 4],
            constants: 0,
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }

    fn id(&mut self) -> u32 {
        self.next += 1;
        self.next
    }

    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.rng.below(v.len() as u64) as usize]
    }

    fn op(&mut self, text: String) -> u32 {
        let d = self.id();
        self.body += &format!("  %{d} = {text}\n");
        d
    }

    fn constant(&mut self) -> u32 {
        let c = self.rng.below(CONSTANTS.len() as u64) as u32;
        self.constants + c
    }

    fn flags(&mut self) -> &'static str {
        if self.rng.chance(0.3) {
            "[precise] "
        } else {
            ""
        }
    }

    /// A lane value for lane `i` of a bundle: a lane of an input or of a bundle (same lane,
    /// or another one), a broadcast value, a constant, or anything.
    fn lane_source(&mut self, kind: u64, i: usize, shared: u32) -> u32 {
        match kind {
            0 => {
                let v = self.rng.below(self.inputs.len() as u64) as usize;
                self.inputs[v][i]
            }
            1 if !self.bundles.is_empty() => {
                let b = self.rng.below(self.bundles.len() as u64) as usize;
                let lanes = self.bundles[b].clone();
                lanes[i % lanes.len()]
            }
            2 => shared,
            3 => self.constant(),
            4 => {
                let v = self.rng.below(self.inputs.len() as u64) as usize;
                let j = self.rng.below(4) as usize;
                self.inputs[v][j]
            }
            _ => self.pick(&self.pool.clone()),
        }
    }

    /// One bundle of `k` isomorphic ops.
    fn bundle(&mut self) {
        let k = 2 + self.rng.below(3) as usize;
        let arity = 1 + self.rng.below(3) as usize;
        let opcode = match arity {
            1 => self.pick(UNARY),
            2 => self.pick(BINARY),
            _ => self.pick(&["FMad", "FMadLegacy", "FClamp"]),
        };
        let flags = self.flags();
        // Per operand: how its lanes are chosen, the same for all lanes (mostly).
        let kinds: Vec<u64> = (0..arity).map(|_| self.rng.below(6)).collect();
        let shared: Vec<u32> = (0..arity).map(|_| self.pick(&self.pool.clone())).collect();
        let mut lanes = Vec::new();
        for i in 0..k {
            let mut args = String::new();
            for a in 0..arity {
                let kind = if self.rng.chance(0.1) { 5 } else { kinds[a] };
                let s = self.lane_source(kind, i, shared[a]);
                args += &format!(" %{s}");
            }
            lanes.push(self.op(format!("{flags}f32 {opcode}{args}")));
        }
        self.pool.extend(&lanes);
        self.bundles.push(lanes);
    }

    /// A compare-and-select bundle.
    fn select_bundle(&mut self) {
        let k = 2 + self.rng.below(3) as usize;
        let cmp = self.pick(&["FLt", "FGe", "FEq", "FNe"]);
        let mut lanes = Vec::new();
        for i in 0..k {
            let a = self.lane_source(0, i, 0);
            let kind = self.pick(&[1, 3, 5]);
            let b = self.lane_source(kind, i, 0);
            let c = self.op(format!("bool {cmp} %{a} %{b}"));
            lanes.push(self.op(format!("f32 Select %{c} %{a} %{b}")));
        }
        self.pool.extend(&lanes);
        self.bundles.push(lanes);
    }

    /// A multiply-add chain of 1–6 terms.
    fn chain(&mut self) {
        let legacy = self.rng.chance(0.25);
        let (mul, mad) = if legacy {
            ("FMulLegacy", "FMadLegacy")
        } else {
            ("FMul", "FMad")
        };
        let terms = 1 + self.rng.below(6) as usize;
        let (va, vb) = (
            self.rng.below(self.inputs.len() as u64) as usize,
            self.rng.below(self.inputs.len() as u64) as usize,
        );
        let mut acc = if self.rng.chance(0.25) {
            Some(self.pick(&self.pool.clone()))
        } else {
            None
        };
        for t in 0..terms {
            let mut x = self.inputs[va][t % 4];
            let mut y = self.inputs[vb][(t + self.rng.below(2) as usize) % 4];
            if self.rng.chance(0.15) {
                x = self.pick(&self.pool.clone());
            }
            if self.rng.chance(0.5) {
                std::mem::swap(&mut x, &mut y);
            }
            let f = self.flags();
            let step = match acc {
                None => self.op(format!("{f}f32 {mul} %{x} %{y}")),
                Some(a) if self.rng.chance(0.3) => {
                    let p = self.op(format!("{f}f32 {mul} %{x} %{y}"));
                    let f2 = self.flags();
                    if self.rng.chance(0.5) {
                        self.op(format!("{f2}f32 FAdd %{a} %{p}"))
                    } else {
                        self.op(format!("{f2}f32 FAdd %{p} %{a}"))
                    }
                }
                Some(a) => self.op(format!("{f}f32 {mad} %{x} %{y} %{a}")),
            };
            if self.rng.chance(0.1) {
                self.pool.push(step);
            }
            acc = Some(step);
        }
        self.pool.extend(acc);
    }

    /// Stores or constructs some pool values into output `o` (f32x4).
    fn output(&mut self, o: u32) {
        let whole = self.rng.chance(0.2);
        let v = self.rng.below(self.inputs.len() as u64) as usize;
        let vals: Vec<u32> = (0..4)
            .map(|i| {
                if whole {
                    self.inputs[v][i]
                } else if self.rng.chance(0.6) && !self.bundles.is_empty() {
                    let b = self.rng.below(self.bundles.len() as u64) as usize;
                    let l = self.bundles[b].clone();
                    l[i % l.len()]
                } else {
                    let p = self.pool.clone();
                    self.pick(&p)
                }
            })
            .collect();
        if self.rng.chance(0.5) {
            let mut order: Vec<usize> = (0..4).collect();
            if self.rng.chance(0.5) {
                order.swap(0, 3);
            }
            for c in order {
                let idx = self.index[c];
                self.op(format!("OutputStore %{o} %{idx} %{}", vals[c]));
            }
        } else {
            let c = self.op(format!(
                "f32x4 CompositeConstruct %{} %{} %{} %{}",
                vals[0], vals[1], vals[2], vals[3]
            ));
            self.op(format!("OutputStore %{o} null %{c}"));
        }
    }

    fn statements(&mut self, n: usize) {
        for _ in 0..n {
            match self.rng.below(10) {
                0..=3 => self.bundle(),
                4 => self.select_bundle(),
                5..=7 => self.chain(),
                _ => {
                    // Scalar uses of bundle lanes in between.
                    let a = self.pick(&self.pool.clone());
                    let b = self.pick(&self.pool.clone());
                    let d = self.op(format!("f32 FAdd %{a} %{b}"));
                    self.pool.push(d);
                }
            }
        }
    }

    /// The whole program text.
    fn program(mut self) -> String {
        self.decls += "%1 = EntryPoint %2 Pixel\n";
        for i in 0..4 {
            let d = self.id();
            self.decls += &format!("%{d} = u32 Constant {i}\n");
            self.index[i] = d;
        }
        self.constants = self.next + 1;
        for c in CONSTANTS {
            let d = self.id();
            self.decls += &format!("%{d} = f32 Constant {c}\n");
        }
        let n_inputs = 2 + self.rng.below(2) as u32;
        let mut dcls = Vec::new();
        for l in 0..n_inputs {
            let d = self.id();
            self.decls += &format!("%{d} = f32x4 DclInput %1 {l} 0 None\n");
            dcls.push(d);
        }
        let s = self.id();
        self.decls += &format!("%{s} = f32 DclInput %1 {n_inputs} 0 None\n");
        for o in 0..2 {
            let d = self.id();
            self.decls += &format!("%{d} = f32x4 DclOutput %1 {o} 0\n");
            self.outputs.push(d);
        }
        let entry = self.id();
        for &d in &dcls {
            let v = self.op(format!("f32x4 InputLoad %{d} null"));
            let mut lanes = [0; 4];
            for (i, lane) in lanes.iter_mut().enumerate() {
                *lane = if self.rng.chance(0.2) {
                    self.op(format!("f32 InputLoad %{d} %{}", self.index[i]))
                } else {
                    self.op(format!("f32 CompositeExtract %{v} %{}", self.index[i]))
                };
            }
            self.inputs.push(lanes);
        }
        let sv = self.op(format!("f32 InputLoad %{s} null"));
        self.pool.push(sv);
        self.pool.extend(self.inputs.clone().concat());
        let n = 3 + self.rng.below(8) as usize;
        self.statements(n);
        let mut blocks = format!("%{entry} = Label None\n");
        if self.rng.chance(0.4) {
            // if (x < y) { more } — the merge block sees phis of two pool values.
            let (a, b) = (self.pool[0], self.pick(&self.pool.clone()));
            let c = self.op(format!("bool FLt %{a} %{b}"));
            let (then, merge) = (self.id(), self.id());
            let head = std::mem::take(&mut self.body);
            blocks = format!(
                "%{entry} = Label %{merge} StructuredSelection\n{head}  %{} = BranchConditional %{c} %{then} %{merge}\n",
                self.id()
            );
            let saved = (self.pool.clone(), self.bundles.clone());
            let n = 2 + self.rng.below(4) as usize;
            self.statements(n);
            let (x, y) = (self.pick(&self.pool.clone()), self.pick(&saved.0.clone()));
            let body = std::mem::take(&mut self.body);
            blocks += &format!(
                "%{then} = Label None\n{body}  %{} = Branch %{merge}\n",
                self.id()
            );
            self.pool = saved.0;
            self.bundles = saved.1;
            let phi = self.id();
            blocks +=
                &format!("%{merge} = Label None\n  %{phi} = f32 Phi %{entry} %{y} %{then} %{x}\n");
            self.pool.push(phi);
            let n = 1 + self.rng.below(4) as usize;
            self.statements(n);
        }
        for o in self.outputs.clone() {
            self.output(o);
        }
        let ret = self.id();
        let end = self.id();
        format!(
            "{}\n%2 = Function\n{blocks}{}  %{ret} = Return\n%{end} = FunctionEnd\n",
            self.decls, self.body
        )
    }
}

/// Random inputs, with float components replaced by zeros, infinities and NaN in some sets.
fn inputs(m: &Module, set: u64) -> ShaderInputs {
    let mut inputs = ShaderInputs::random(m, set);
    if set % 2 == 1 {
        const SPECIAL: [f32; 6] = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0];
        for (k, inv) in inputs.invocations.iter_mut().enumerate() {
            for (i, v) in inv.io.values_mut().enumerate() {
                let c: Vec<f32> = (0..v.components().map_or(1, |c| c.len()))
                    .map(|j| SPECIAL[(set as usize + i * 4 + j + k) % SPECIAL.len()])
                    .collect();
                *v = if c.len() == 1 {
                    Value::f32(c[0])
                } else {
                    Value::f32s(&c)
                };
            }
        }
    }
    inputs
}

/// Runs `vectorize` with `caps`, then the clean-up; checks verifier and behaviour.
fn check(seed: u64, src: &str, caps: &TargetCaps, total: &mut Stats) -> Result<(), String> {
    let original = text::parse(src).map_err(|e| format!("generator output: {e}"))?;
    verifier::verify(&original).map_err(|e| format!("generator output:\n{e}"))?;
    let mut m = original.clone();
    let cx = PassContext {
        caps: caps.clone(),
        ..PassContext::default()
    };
    let stats =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_with_stats(&mut m, &cx)))
            .map_err(|_| "vectorize panicked".to_string())?;
    verifier::verify(&m).map_err(|e| format!("verifier after vectorize:\n{e}"))?;
    for pass in ["const-fold", "simplify", "gvn", "dce"] {
        (registry::find(pass).expect("registered").run)(&mut m, &cx)
            .map_err(|e| format!("{pass}: {e}"))?;
    }
    verifier::verify(&m).map_err(|e| format!("verifier after clean-up:\n{e}"))?;
    let config = RunConfig::default();
    for set in 0..INPUT_SETS {
        let inp = inputs(&original, seed * 100 + set);
        let want = run(&original, &inp, &config).map_err(|t| format!("original traps: {t}"))?;
        let got = run(&m, &inp, &config).map_err(|t| format!("result traps: {t}"))?;
        irc_interp::compare::outputs_equal(&want, &got)
            .map_err(|d| format!("input set {set}: {d}\nafter:\n{}", text::print(&m)))?;
    }
    total.dots += stats.dots;
    total.dot_terms += stats.dot_terms;
    total.vector_ops += stats.vector_ops;
    total.vector_lanes += stats.vector_lanes;
    total.merged_stores += stats.merged_stores;
    total.identities += stats.identities;
    Ok(())
}

#[test]
fn vectorize_keeps_random_lane_programs_behaviour() {
    let mut total = Stats::default();
    let programs = std::env::var("VECTORIZE_PROGRAMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(PROGRAMS);
    for seed in 0..programs {
        let src = Gen::new(seed).program();
        for caps in [
            irc_testsuite::pipeline::caps("lima").unwrap(),
            irc_testsuite::pipeline::caps("pica").unwrap(),
            irc_testsuite::pipeline::caps("agal").unwrap(),
            all_dots(),
        ] {
            if let Err(why) = check(seed, &src, &caps, &mut total) {
                let commented: String = why.lines().map(|l| format!("; {l}\n")).collect();
                panic!(
                    "seed {seed} on {}:\ntest pass vectorize\n{commented}{src}",
                    caps.name
                );
            }
        }
    }
    println!("{total:?}");
    // The generator must exercise every part of the pass.
    assert!(total.dots > 100, "{total:?}");
    assert!(total.vector_ops > 100, "{total:?}");
    assert!(total.merged_stores > 100, "{total:?}");
    assert!(total.identities > 100, "{total:?}");
}
