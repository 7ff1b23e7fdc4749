//! The target commands of filetests: `test compile` and the target half of `test run`, for
//! every `target NAME` line of the file (resolved through a [`irc::Registry`]), with the
//! compile options of its `option key=value` lines.
//!
//! * `compile`: the module through the driver for the target; the output is the disassembly
//!   decoded from the code section by [`irc::Target::disassemble`] (from the container file
//!   when the code section cannot be decoded alone), the reflection and the
//!   statistics. The program is also compared with the interpreter on [`COMPILE_SEEDS`] random
//!   input sets by the differential harness, so a snapshot never records wrong code.
//!   Compilation errors fail the command unless every `; expect:` text is among them (then the
//!   diagnostics are the output).
//! * `run`: every `; run:` line's inputs in the target's simulator, through the harness's
//!   conversion: the exact run must meet the line's expectations within the line's tolerance or
//!   [`EXACT_TOLERANCE`], whichever is larger; the native-precision run within the target's
//!   tolerance. The output shows the exact run's outputs of the first invocation.

use irc_backend::{IoName, Precision, SimOutputs, Target};
use irc_interp::{InvocationOutputs, IoSlot, Outputs, Scalar, Value};
use irc_ir::{Module, OpCode, ScalarType};

use super::{CommandOutput, Filetest};
use crate::harness::{self, inputs::flush_denormal_uniforms, RunVerdict};
use crate::runline::{show_outputs, RunLine};

/// Random input sets compared for each `compile`.
pub const COMPILE_SEEDS: u64 = 4;
/// The run-line tolerance of an exact run (f32 arithmetic, with hardware reciprocals and
/// transcendental sequences).
pub const EXACT_TOLERANCE: f64 = 1e-4;

impl Filetest {
    /// The compile options of the file's `option` lines.
    fn options(&self) -> Result<irc::Options, String> {
        let mut o = irc::Options::default();
        for (k, v) in &self.options {
            o.backend.set(k.clone(), v.clone());
        }
        Ok(o)
    }

    /// Compiles `m` for the target named `name`.
    fn compile_for(
        &self,
        registry: &irc::Registry,
        name: &str,
        m: &Module,
    ) -> Result<(&'static dyn Target, Module, irc::Output), String> {
        let target = registry
            .target(name)
            .ok_or_else(|| format!("unknown target `{name}`"))?;
        let options = self.options()?;
        let prepared = irc::prepare_for(irc::Input::Module(m.clone()), target, &options)
            .map_err(|d| d.to_string())?;
        let output = target
            .compile(&prepared, &options.backend)
            .map_err(|d| d.to_string())?;
        Ok((target, prepared, output))
    }

    /// The disassembly of the container `target` writes for `prepared`, if it writes one.
    fn container_disassembly(
        &self,
        target: &'static dyn Target,
        prepared: &Module,
    ) -> Option<Result<String, irc_backend::Diagnostic>> {
        let mut options = self.options().ok()?.backend;
        options.container = true;
        let output = target.compile(prepared, &options).ok()?;
        Some(target.disassemble(&output.container?.bytes))
    }

    /// `test compile` for one target.
    pub(super) fn compile_on(
        &self,
        registry: &irc::Registry,
        name: &str,
        m: &Module,
        out: &mut CommandOutput,
    ) {
        let (target, prepared, output) = match self.compile_for(registry, name, m) {
            Ok(c) => c,
            Err(e) => {
                out.output = format!("{e}\n");
                let expected =
                    !self.expects.is_empty() && self.expects.iter().all(|x| e.contains(x.as_str()));
                if !expected {
                    out.failures.push(format!("compile: {e}"));
                }
                return;
            }
        };
        for x in &self.expects {
            out.failures.push(format!(
                "expected an error containing `{x}`, but it compiled"
            ));
        }
        let disassembly = match target.disassemble(output.code()) {
            Ok(d) => d,
            // A code section that cannot be decoded alone (PICA200: the operand descriptors
            // are a table of their own) is decoded from the target's container file.
            Err(e) => match self.container_disassembly(target, &prepared) {
                Some(Ok(d)) => d,
                _ => {
                    out.failures.push(format!("disassemble: {e}"));
                    return;
                }
            },
        };
        let s = &output.stats;
        out.output = format!(
            "{disassembly}\n{}instructions {}, code bytes {}, registers {}, spills {}, fills {}, \
             units filled {}, lower bound {}\n",
            output.reflection.to_text(),
            s.instructions,
            s.code_bytes,
            s.registers,
            s.spills,
            s.fills,
            s.units_filled,
            s.lower_bound
        );
        if harness::simulator(target).is_err() {
            return;
        }
        let options = self.options().unwrap_or_default();
        let legacy = options.legacy_state.input_values(m);
        for seed in 0..COMPILE_SEEDS {
            match harness::compare_run_with(target, m, &prepared, &output, seed, &legacy, &options)
            {
                Ok(RunVerdict::Matched { .. }) | Ok(RunVerdict::NoReference(_)) => {}
                Err(e) => out.failures.push(format!("differential check: {e}")),
            }
        }
    }

    /// The `; run:` lines on the target named `name`.
    pub(super) fn run_on(
        &self,
        registry: &irc::Registry,
        name: &str,
        m: &Module,
        out: &mut CommandOutput,
    ) {
        let (target, _, output) = match self.compile_for(registry, name, m) {
            Ok(c) => c,
            Err(e) => {
                out.failures.push(format!("compile: {e}"));
                return;
            }
        };
        if let Err(e) = harness::simulator(target) {
            out.failures.push(e);
            return;
        }
        let tol = target.tolerance();
        let options = self.options().unwrap_or_default();
        for (line, src) in &self.runs {
            let result = RunLine::parse(src).and_then(|r| {
                let mut inputs = r.inputs(m)?;
                if target.oracle(&options.backend).flush_denormal_uniforms {
                    flush_denormal_uniforms(&mut inputs, &output.reflection);
                }
                let mut bad = Vec::new();
                let mut shown = String::new();
                for (precision, t) in [
                    (Precision::Exact, EXACT_TOLERANCE),
                    (Precision::Native, f64::from(tol.abs.max(tol.rel))),
                ] {
                    let sim = harness::simulate(target, &output, &inputs, precision)?;
                    let got = interp_outputs(m, &sim);
                    let triangles =
                        harness::gs::output_topology(m).map(|_| sim.primitives.as_slice());
                    let mut r = r.clone();
                    r.tolerance = Some(r.tolerance.unwrap_or(0.0).max(t));
                    bad.extend(
                        r.check_with(m, &got, triangles, &|values| {
                            if let Some(s) = target.simulator() {
                                s.stored_outputs(&output, values);
                            }
                        })?
                        .into_iter()
                        .map(|b| format!("{precision:?}: {b}")),
                    );
                    if precision == Precision::Exact {
                        shown = if triangles.is_some() {
                            let vertices: Vec<String> = got
                                .gs_vertices
                                .iter()
                                .map(|v| {
                                    show_outputs(&irc_interp::InvocationOutputs {
                                        io: v.io.clone(),
                                        discarded: false,
                                    })
                                })
                                .collect();
                            format!(
                                "emitted [{}] triangles {:?}",
                                vertices.join("; "),
                                sim.primitives
                            )
                        } else {
                            got.invocations
                                .first()
                                .map(show_outputs)
                                .unwrap_or_default()
                        };
                    }
                }
                Ok((shown, bad))
            });
            match result {
                Ok((shown, bad)) => {
                    out.output
                        .push_str(&format!("; {name} run at line {line}: {shown}\n"));
                    for b in bad {
                        out.failures.push(format!("{name} run at line {line}: {b}"));
                    }
                }
                Err(e) => out.failures.push(format!("{name} run at line {line}: {e}")),
            }
        }
    }
}

/// A simulator's outputs as interpreter outputs, typed by the module's output declarations:
/// float components from their f32 bits, integers and bools from their raw bits. Outputs the
/// simulator did not produce are left out.
pub fn interp_outputs(m: &Module, sim: &SimOutputs) -> Outputs {
    let decls: Vec<(IoSlot, IoName, u32, ScalarType, usize)> = m
        .declarations()
        .filter_map(|d| {
            let op = m.op(d);
            let b = op.ty.as_basic()?;
            let n = usize::from(b.vec_size());
            match op.opcode {
                OpCode::DclOutput => {
                    let out = irc_ir::format::DclOutput::of(op);
                    let (l, c) = (out.location()? as u32, out.component()? as u32);
                    Some((
                        IoSlot::Location {
                            location: l,
                            component: c,
                        },
                        IoName::Location(l),
                        c,
                        b.scalar_type(),
                        n,
                    ))
                }
                OpCode::DclOutputBuiltIn => {
                    let id = irc_ir::format::DclOutputBuiltIn::of(op).builtin()?;
                    let builtin = irc_ir::BuiltIn::from_u64(id)?;
                    Some((
                        IoSlot::BuiltIn(id as u32),
                        IoName::BuiltIn(builtin),
                        0,
                        b.scalar_type(),
                        n,
                    ))
                }
                _ => None,
            }
        })
        .collect();
    let invocations: Vec<InvocationOutputs> = sim
        .invocations
        .iter()
        .map(|inv| {
            let mut io = std::collections::BTreeMap::new();
            for &(slot, name, first, ty, n) in &decls {
                let scalars: Option<Vec<Scalar>> = (0..n as u32)
                    .map(|i| {
                        inv.values.get(&(name, first + i)).map(|&bits| {
                            if ty.is_float() {
                                Scalar::F32(f32::from_bits(bits))
                            } else {
                                Scalar::from_bits(ty, u64::from(bits))
                            }
                        })
                    })
                    .collect();
                let Some(scalars) = scalars else { continue };
                let v = if n == 1 {
                    Value::Scalar(scalars[0])
                } else {
                    Value::Vector(scalars.into_iter().collect())
                };
                io.insert(slot, v);
            }
            InvocationOutputs {
                io,
                discarded: inv.discarded,
            }
        })
        .collect();
    // A geometry shader's invocations are its emitted vertices (one stream).
    if crate::harness::gs::output_topology(m).is_some() {
        return Outputs {
            gs_vertices: invocations
                .into_iter()
                .map(|i| irc_interp::GsVertex {
                    stream: 0,
                    primitive: 0,
                    io: i.io,
                })
                .collect(),
            ..Default::default()
        };
    }
    Outputs {
        invocations,
        ..Default::default()
    }
}
