//! Acceptance test of the backend platform: a throw-away target written only against the
//! `Target` trait — a tiny stack machine with its own byte encoding, disassembler, assembler
//! and simulator, compiling pixel shaders made of input → output moves, adds and multiplies
//! (and the optimizer's multiply-adds)
//! and reporting everything else unsupported — joins a registry with
//! `Registry::builtin().with(&TOY)` and is listed, checked over a corpus, fuzzed and
//! filetested by the same machinery as the real targets, with no edit anywhere else.

use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

use irc_backend::reflection::{IoSource, OutputBinding};
use irc_backend::{
    CompileOptions, Diagnostic, Diagnostics, IoName, IoValues, Output, Pipeline, PipelineKind,
    Reflection, Section, SimConfig, SimError, SimInputs, SimOutputs, Simulator, Stats, Target,
    TargetCaps, CODE,
};
use irc_ir::{Module, OpCode, ScalarType, ShaderStage, SsaDef};
use irc_testsuite::corpus::{self, Check};

/// The toy target.
struct Toy;

static TOY: Toy = Toy;

const CAPS: TargetCaps = TargetCaps {
    name: "toy-stack",
    native: &[],
    float16: false,
    int16: false,
    indexable_scratch: false,
    integers: true,
    branches: true,
    loops: true,
    vectorize: false,
    min_dot_terms: 2,
    if_convert_limit: 0,
    select_cost: 0,
    trig: true,
    fp16_arithmetic: false,
};

// Encoding: one opcode byte, then operands.
const IN: u8 = 1; // location, component: push input
const CONST: u8 = 2; // f32 (4 bytes LE): push
const ADD: u8 = 3; // pop b, pop a, push a + b
const MUL: u8 = 4; // pop b, pop a, push a · b
const OUT: u8 = 5; // location, component: pop to output

/// An expression over inputs, per scalar component.
#[derive(Debug)]
enum Expr {
    In(u8, u8),
    Const(u32),
    Add(Rc<Expr>, Rc<Expr>),
    Mul(Rc<Expr>, Rc<Expr>),
}

fn emit(e: &Expr, code: &mut Vec<u8>) {
    match e {
        Expr::In(l, c) => code.extend([IN, *l, *c]),
        Expr::Const(bits) => {
            code.push(CONST);
            code.extend(bits.to_le_bytes());
        }
        Expr::Add(a, b) | Expr::Mul(a, b) => {
            emit(a, code);
            emit(b, code);
            code.push(if matches!(e, Expr::Add(..)) { ADD } else { MUL });
        }
    }
}

fn f32_typed(m: &Module, d: SsaDef) -> bool {
    m.op(d).ty.is_basic_where(|s| s == ScalarType::F32)
}

fn compile(m: &Module) -> Result<Output, Diagnostic> {
    let unsupported = |d: SsaDef, why: &str| Diagnostic::unsupported(Some((d, m.opcode(d))), why);
    let mut values: HashMap<SsaDef, Vec<Rc<Expr>>> = HashMap::new();
    let mut code = Vec::new();
    let mut outputs = Vec::new();
    let lit = |d: SsaDef, i: usize| m.op(d).operand_lit(i).unwrap_or(0) as u8;
    for d in m.iter() {
        let op = m.op(d);
        // The components of operand `i`, if the toy could compute it.
        let get = |values: &HashMap<SsaDef, Vec<Rc<Expr>>>, i: usize| {
            op.operand_def(i)
                .and_then(|p| values.get(&p).cloned())
                .ok_or_else(|| unsupported(d, "an operand the toy cannot compute"))
        };
        match op.opcode {
            OpCode::EntryPoint
            | OpCode::DclInput
            | OpCode::Function
            | OpCode::FunctionEnd
            | OpCode::Label
            | OpCode::Return => {}
            OpCode::DclOutput => {
                // Outputs start at 0.
                if !f32_typed(m, d) {
                    return Err(unsupported(d, "outputs other than f32"));
                }
                let n = op.ty.as_basic().map_or(1, |b| b.vec_size());
                let (l, c) = (lit(d, 1), lit(d, 2));
                for i in 0..n {
                    code.extend([CONST, 0, 0, 0, 0, OUT, l, c + i]);
                }
                outputs.push(OutputBinding {
                    target: IoSource::Location {
                        location: u32::from(l),
                        component: u32::from(c),
                    },
                    register: u32::from(l),
                    components: n,
                });
            }
            OpCode::Constant => {
                values.insert(
                    d,
                    op.literals()
                        .map(|b| Rc::new(Expr::Const(b as u32)))
                        .collect(),
                );
            }
            OpCode::InputLoad => {
                let decl = op
                    .operand_def(0)
                    .ok_or_else(|| unsupported(d, "no declaration"))?;
                if m.opcode(decl) != OpCode::DclInput || !f32_typed(m, decl) {
                    return Err(unsupported(d, "inputs other than f32 locations"));
                }
                let n = m.op(decl).ty.as_basic().map_or(1, |b| b.vec_size());
                let (l, c) = (lit(decl, 1), lit(decl, 2));
                let all: Vec<_> = (0..n).map(|i| Rc::new(Expr::In(l, c + i))).collect();
                let v = match op.operand_def(1) {
                    None => all,
                    // One component, by a constant index.
                    Some(a) => m
                        .op(a)
                        .operand_lit(0)
                        .filter(|_| m.opcode(a) == OpCode::Constant)
                        .and_then(|i| all.get(i as usize).cloned())
                        .map(|e| vec![e])
                        .ok_or_else(|| unsupported(d, "dynamically indexed inputs"))?,
                };
                values.insert(d, v);
            }
            OpCode::FAdd | OpCode::FMul if f32_typed(m, d) => {
                let (a, b) = (get(&values, 0)?, get(&values, 1)?);
                let v = a
                    .iter()
                    .zip(&b)
                    .map(|(a, b)| {
                        Rc::new(if op.opcode == OpCode::FAdd {
                            Expr::Add(a.clone(), b.clone())
                        } else {
                            Expr::Mul(a.clone(), b.clone())
                        })
                    })
                    .collect();
                values.insert(d, v);
            }
            // A multiply-add (formed by the optimizer) as a multiply, then an add.
            OpCode::FMad if f32_typed(m, d) => {
                let (a, b, c) = (get(&values, 0)?, get(&values, 1)?, get(&values, 2)?);
                if a.len() != b.len() || a.len() != c.len() {
                    return Err(unsupported(d, "mixed widths"));
                }
                let e = (0..a.len())
                    .map(|i| {
                        let p = Rc::new(Expr::Mul(a[i].clone(), b[i].clone()));
                        Rc::new(Expr::Add(p, c[i].clone()))
                    })
                    .collect();
                values.insert(d, e);
            }
            OpCode::CompositeExtract => {
                let v = get(&values, 0)?;
                let e = op
                    .operand_def(1)
                    .filter(|&i| m.opcode(i) == OpCode::Constant)
                    .and_then(|i| m.op(i).operand_lit(0))
                    .and_then(|i| v.get(i as usize).cloned())
                    .ok_or_else(|| unsupported(d, "dynamic or nested extract"))?;
                values.insert(d, vec![e]);
            }
            OpCode::CompositeConstruct => {
                let mut v = Vec::new();
                for p in op.ref_defs() {
                    v.extend(
                        values
                            .get(&p)
                            .cloned()
                            .ok_or_else(|| unsupported(d, "an operand the toy cannot compute"))?,
                    );
                }
                values.insert(d, v);
            }
            OpCode::OutputStore => {
                let decl = op
                    .operand_def(0)
                    .filter(|&p| m.opcode(p) == OpCode::DclOutput)
                    .ok_or_else(|| unsupported(d, "outputs other than locations"))?;
                let (l, mut c) = (lit(decl, 1), lit(decl, 2));
                if let Some(a) = op.operand_def(1) {
                    // One component, by a constant index.
                    c += m
                        .op(a)
                        .operand_lit(0)
                        .filter(|_| m.opcode(a) == OpCode::Constant)
                        .ok_or_else(|| unsupported(d, "dynamically indexed outputs"))?
                        as u8;
                }
                for (i, e) in get(&values, 2)?.iter().enumerate() {
                    emit(e, &mut code);
                    code.extend([OUT, l, c + i as u8]);
                }
            }
            other if other.is_declarative() => {}
            _ => return Err(unsupported(d, "not a move, add or multiply")),
        }
    }
    let disassembly = disassemble(&code)?;
    Ok(Output {
        stats: Stats {
            instructions: disassembly.lines().count() as u32,
            code_bytes: code.len() as u32,
            ..Default::default()
        },
        sections: vec![Section {
            name: CODE,
            bytes: code,
        }],
        container: None,
        disassembly,
        reflection: Reflection {
            outputs,
            ..Default::default()
        },
    })
}

/// Decoded instructions: (opcode, operand bytes).
fn decode(code: &[u8]) -> Result<Vec<(u8, Vec<u8>)>, Diagnostic> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let n = match code[at] {
            IN | OUT => 2,
            CONST => 4,
            ADD | MUL => 0,
            b => return Err(Diagnostic::input(format!("byte {at}: bad opcode {b}"))),
        };
        let operands = code
            .get(at + 1..at + 1 + n)
            .ok_or_else(|| Diagnostic::input(format!("byte {at}: truncated")))?;
        out.push((code[at], operands.to_vec()));
        at += 1 + n;
    }
    Ok(out)
}

fn disassemble(code: &[u8]) -> Result<String, Diagnostic> {
    let mut s = String::new();
    for (op, o) in decode(code)? {
        s.push_str(&match op {
            IN => format!("in v{}.{}\n", o[0], o[1]),
            OUT => format!("out o{}.{}\n", o[0], o[1]),
            CONST => format!(
                "const {:#010x}\n",
                u32::from_le_bytes([o[0], o[1], o[2], o[3]])
            ),
            ADD => "add\n".into(),
            _ => "mul\n".into(),
        });
    }
    Ok(s)
}

fn assemble(text: &str) -> Result<Vec<u8>, Diagnostic> {
    let mut code = Vec::new();
    let bad = |l: &str| Diagnostic::input(format!("cannot assemble `{l}`"));
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (mnemonic, arg) = line.split_once(' ').unwrap_or((line, ""));
        let loc = |prefix: char| -> Result<[u8; 2], Diagnostic> {
            let (l, c) = arg
                .strip_prefix(prefix)
                .and_then(|r| r.split_once('.'))
                .ok_or_else(|| bad(line))?;
            Ok([
                l.parse().map_err(|_| bad(line))?,
                c.parse().map_err(|_| bad(line))?,
            ])
        };
        match mnemonic {
            "in" => {
                code.push(IN);
                code.extend(loc('v')?);
            }
            "out" => {
                code.push(OUT);
                code.extend(loc('o')?);
            }
            "const" => {
                let bits =
                    u32::from_str_radix(arg.trim_start_matches("0x"), 16).map_err(|_| bad(line))?;
                code.push(CONST);
                code.extend(bits.to_le_bytes());
            }
            "add" => code.push(ADD),
            "mul" => code.push(MUL),
            _ => return Err(bad(line)),
        }
    }
    Ok(code)
}

struct ToySim;

impl Simulator for ToySim {
    fn run(
        &self,
        output: &Output,
        inputs: &SimInputs<'_>,
        config: &SimConfig,
    ) -> Result<SimOutputs, SimError> {
        let program = decode(output.code()).map_err(|e| SimError(e.to_string()))?;
        let mut result = SimOutputs::default();
        for io in &inputs.invocations {
            let mut stack: Vec<f32> = Vec::new();
            let mut values = IoValues::new();
            let pop = |s: &mut Vec<f32>| s.pop().ok_or_else(|| SimError("stack empty".into()));
            for (op, o) in &program {
                result.steps += 1;
                if result.steps > config.fuel {
                    return Err(SimError("out of fuel".into()));
                }
                match *op {
                    IN => {
                        let key = (IoName::Location(u32::from(o[0])), u32::from(o[1]));
                        let bits = io
                            .get(&key)
                            .ok_or_else(|| SimError(format!("no input v{}.{}", o[0], o[1])))?;
                        stack.push(f32::from_bits(*bits));
                    }
                    CONST => {
                        stack.push(f32::from_bits(u32::from_le_bytes([o[0], o[1], o[2], o[3]])))
                    }
                    ADD | MUL => {
                        let b = pop(&mut stack)?;
                        let a = pop(&mut stack)?;
                        stack.push(if *op == ADD { a + b } else { a * b });
                    }
                    _ => {
                        let v = pop(&mut stack)?;
                        values.insert(
                            (IoName::Location(u32::from(o[0])), u32::from(o[1])),
                            v.to_bits(),
                        );
                    }
                }
            }
            result.invocations.push(irc_backend::InvocationOutputs {
                values,
                discarded: false,
            });
        }
        Ok(result)
    }
}

impl Target for Toy {
    fn name(&self) -> &'static str {
        "toy-stack"
    }
    fn family(&self) -> &'static str {
        "toy"
    }
    fn description(&self) -> &'static str {
        "a stack machine for testing the backend platform"
    }
    fn stages(&self) -> &'static [ShaderStage] {
        &[ShaderStage::Pixel]
    }
    fn caps(&self) -> &TargetCaps {
        &CAPS
    }
    fn pipeline(&self, _options: &CompileOptions) -> Pipeline {
        Pipeline {
            kind: PipelineKind::Optimize,
            caps: CAPS,
            legacy_mul_ieee: true,
            ieee_mul_legacy: false,
        }
    }
    fn compile(&self, module: &Module, _options: &CompileOptions) -> Result<Output, Diagnostics> {
        compile(module).map_err(Diagnostics::from)
    }
    fn disassemble(&self, bytes: &[u8]) -> Result<String, Diagnostic> {
        disassemble(bytes)
    }
    fn assemble(&self, text: &str) -> Result<Vec<u8>, Diagnostic> {
        assemble(text)
    }
    fn simulator(&self) -> Option<&dyn Simulator> {
        Some(&ToySim)
    }
}

/// Toy-compatible pixel shaders: `o0 = v0 · k + v1` and variations.
fn programs() -> Vec<Module> {
    (0..6)
        .map(|k| {
            let (a, b) = (1.0 + k as f32 * 0.5, -0.25 * k as f32);
            let text = format!(
                "%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = f32x2 DclInput %1 1 0 None
%4 = f32x4 DclOutput %1 0 0
%5 = f32x4 Constant {a:?} {b:?} {a:?} {b:?}
%6 = u32 Constant {i}
%20 = Function
%21 = Label None
  %22 = f32x4 InputLoad %2 null
  %23 = f32x2 InputLoad %3 null
  %24 = f32x4 FMul %22 %5
  %25 = f32 CompositeExtract %23 %6
  %26 = f32x4 CompositeConstruct %25 %25 %25 %25
  %27 = f32x4 FAdd %24 %26
  %28 = OutputStore %4 null %27
  %29 = Return
%30 = FunctionEnd
",
                i = k % 2
            );
            irc_ir::text::parse(&text).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

/// A corpus folder of [`programs`] named like corpus files (`<source>-<profile>-<hash>`).
fn program_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("irc-toy-corpus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (k, m) in programs().iter().enumerate() {
        let bytes = irc_ir::binary::write(m).expect("writes");
        std::fs::write(dir.join(format!("toy-ps_4_0-{k:010}.raw.dxir")), bytes).expect("write");
    }
    dir
}

#[test]
fn the_toy_encoding_round_trips() {
    let text = "in v0.1\nconst 0x3fc00000\nmul\nin v1.0\nadd\nout o0.3\n";
    let code = assemble(text).unwrap();
    assert_eq!(disassemble(&code).unwrap(), text);
}

#[test]
fn a_target_added_to_a_registry_is_listed_checked_and_fuzzed() {
    let registry = irc::Registry::builtin().with(&TOY);
    // Listed, and found by name; the built-in registry does not know it.
    assert!(irc::listing::listing(&registry).contains("toy-stack (pixel stages; family toy)"));
    assert!(Check::parse("toy-stack").is_none());
    let check = Check::parse_in("toy-stack", &registry).expect("resolved through the registry");
    assert_eq!(check.name(), "toy-stack");

    // The corpus machinery, on programs the toy compiles.
    let dir = program_dir();
    let report = corpus::run_with(&dir, &check, 2, &registry).expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    print!("{report}");
    assert_eq!((report.ok, report.failed), (6, 0), "{report}");
    let compared: u32 = report.target_metrics.iter().map(|m| m.seeds_compared).sum();
    assert!(compared > 0, "no input set compared");
    assert!(report.to_string().contains("toy-stack input sets: "));

    // The shared corpus, when present: nothing may fail; most shaders are unsupported.
    match corpus::default_corpus_dir() {
        Some(dir) => {
            let report = corpus::run_with(&dir, &check, 2, &registry).expect("runs");
            println!("shared corpus through the toy target: {}", report.summary());
            assert_eq!(report.failed, 0, "{report}");
            assert!(report.unsupported > 0, "{report}");
        }
        None => println!("corpus not found, skipped"),
    }

    // The fuzz-diff machinery: generator programs are mostly beyond the toy; none may fail.
    let r = irc_testsuite::difftest::fuzz(&registry, "toy-stack", 0, 40)
        .unwrap_or_else(|(seed, case)| panic!("seed {seed}:\n{case}"));
    assert_eq!(r.programs, 40);
    assert_eq!(r.compared + r.unsupported, 40);
    println!("fuzz-diff through the toy target: {r:?}");
    // Tiny generator programs: some are within the toy's reach and must compare.
    let tiny = irc_testsuite::gen::Limits {
        statements: 1,
        depth: 0,
        expr_depth: 1,
    };
    let r = irc_testsuite::difftest::fuzz_with(
        &registry,
        "toy-stack",
        0,
        400,
        tiny,
        &Default::default(),
    )
    .unwrap_or_else(|(seed, case)| panic!("seed {seed}:\n{case}"));
    println!("fuzz-diff of tiny programs through the toy target: {r:?}");
    assert!(r.compared > 0, "{r:?}");
}

#[test]
fn a_wrong_toy_program_is_caught() {
    // The harness is not fooled by the toy: a program computing `v0 + v1` where the shader
    // multiplies is a mismatch.
    let m = &programs()[1];
    let mut out = compile(
        &irc::prepare_for(
            irc::Input::Module(m.clone()),
            &TOY,
            &irc::Options::default(),
        )
        .unwrap(),
    )
    .unwrap();
    let code: Vec<u8> = out.sections[0]
        .bytes
        .iter()
        .map(|&b| if b == MUL { ADD } else { b })
        .collect();
    out.sections[0].bytes = code;
    let e = irc_testsuite::harness::compare_run(&TOY, m, m, &out, 0, &[]).unwrap_err();
    assert!(e.contains("exact: lane 0: output o0.x"), "{e}");
}

#[test]
fn filetests_run_on_the_toy_target() {
    let registry = irc::Registry::builtin().with(&TOY);
    // o0 = v0 · 2 + v1; (1, 2) · 2 + (0.5, 0.25) = (2.5, 4.25).
    let src = "test compile
test run
target toy-stack
; run: v0=(1.0,2.0) v1=(0.5,0.25) => o0=(2.5,4.25)
%1 = EntryPoint %20 Pixel
%2 = f32x2 DclInput %1 0 0 None
%3 = f32x2 DclInput %1 1 0 None
%4 = f32x2 DclOutput %1 0 0
%5 = f32x2 Constant 2.0 2.0
%20 = Function
%21 = Label None
  %22 = f32x2 InputLoad %2 null
  %23 = f32x2 InputLoad %3 null
  %24 = f32x2 FMul %22 %5
  %25 = f32x2 FAdd %24 %23
  %26 = OutputStore %4 null %25
  %27 = Return
%28 = FunctionEnd
";
    let outs = irc_testsuite::filetest::Filetest::parse(src).run_in("toy.ir", &registry);
    let shown: Vec<(String, Option<String>)> = outs
        .iter()
        .map(|o| (o.command.clone(), o.target.clone()))
        .collect();
    let toy = Some("toy-stack".to_string());
    assert_eq!(
        shown,
        vec![
            ("compile".into(), toy.clone()),
            ("run".into(), None),
            ("run".into(), toy)
        ]
    );
    for o in &outs {
        assert!(o.failures.is_empty(), "{}: {:?}", o.command, o.failures);
    }
    assert!(
        outs[0].output.starts_with("const 0x00000000\nout o0.0\n"),
        "{}",
        outs[0].output
    );
    assert!(outs[0]
        .output
        .contains("in v0.0\nconst 0x40000000\nmul\nin v1.0\nadd\nout o0.0\n"));
    assert_eq!(outs[2].output, "; toy-stack run at line 4: o0=(2.5,4.25)\n");
    // A wrong expectation fails on the target too.
    let wrong = src.replace("o0=(2.5,4.25)", "o0=(2.5,4.5)");
    let outs = irc_testsuite::filetest::Filetest::parse(&wrong).run_in("toy.ir", &registry);
    assert!(
        outs[2]
            .failures
            .iter()
            .any(|f| f.contains("Exact: lane 0: o0")),
        "{:?}",
        outs[2].failures
    );
}
