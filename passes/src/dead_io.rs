//! `dead-io`: removes shader I/O nobody observes, and measures how much of a shader is uniform.
//!
//! Within one module the next stage is unknown, so the pass only removes what is dead inside
//! the shader itself:
//!
//! 1. **Overwritten output stores.** Inside one block, an `OutputStore` to the same output at
//!    the same constant address (or both without address) as a later `OutputStore` of that
//!    block, with no `OutputLoad` of that output, no call, emit (`EmitVertex`) or barrier in
//!    between, never becomes visible: it is removed. Stores across blocks are left alone.
//! 2. **Inputs never loaded.** `DclInput`/`DclInputBuiltIn` without users (debug names aside)
//!    are removed with [`crate::dce::remove_all`], except those that change how the shader runs
//!    (the `SampleId`/`SamplePosition` built-ins and `Sample`-interpolated inputs make a pixel
//!    shader run per sample — the same exception `dce` makes).
//!
//! Output *declarations* are never removed, even when never stored: the interpreter (and the
//! pipeline) defines an unwritten output as zero, which the next stage may read, and
//! system-value outputs (`Position`, `Depth`, `ClipDistance`, …) are needed by fixed-function
//! hardware. Whether the next stage reads an output is a question for a linker that sees both
//! stages.
//!
//! **Uniform values** ([`uniform_values`]): values that depend only on constants, constant
//! buffers, push data and spec constants — not on per-invocation inputs, resources that can be
//! written (UAVs, LDS, scratch), or control flow that depends on such values. Computed as a
//! forward data-flow over program order: a code op is uniform if it is pure or a read of
//! uniform memory (`ConstantLoad`, `PushDataLoad`, `BufferLoad` of a constant-buffer
//! descriptor, `DescriptorLoad` of a CBV) and all its operands are uniform; a phi is uniform
//! only when its incoming values are (iterated to a fixed point, starting optimistic) and the
//! block it sits in is not control-dependent on a non-uniform branch — approximated
//! conservatively: phis of blocks that are the merge of a non-uniform branch are not uniform.
//! [`stats`] reports the counts for corpus reports.

use crate::caps::PassContext;
use crate::fold_util::is_pure;
use crate::PassError;
use irc_ir::analysis::{functions, Cfg};
use irc_ir::format::{BranchConditional, DclInput, DclInputBuiltIn, Load, Store, Switch};
use irc_ir::{BuiltIn, InterpolationModes, Module, OpCode, SsaDef};
use rustc_hash::FxHashSet;

/// Counts for corpus reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeadIoStats {
    /// Input declarations the pass would remove.
    pub removed_inputs: usize,
    /// Output stores the pass would remove.
    pub removed_outputs: usize,
    /// Code ops computing uniform values.
    pub uniform_ops: usize,
    /// Code ops computing a value.
    pub total_ops: usize,
}

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, _cx: &PassContext) -> Result<bool, PassError> {
    let stores = dead_output_stores(m);
    for &s in &stores {
        m.remove(s);
    }
    let inputs = dead_inputs(m);
    crate::dce::remove_all(m, &inputs);
    Ok(!stores.is_empty() || !inputs.is_empty())
}

/// The statistics of `m` (what the pass would remove, and the uniform share), without
/// changing it.
pub fn stats(m: &Module) -> DeadIoStats {
    let uniform = uniform_values(m);
    DeadIoStats {
        removed_inputs: dead_inputs(m).len(),
        removed_outputs: dead_output_stores(m).len(),
        uniform_ops: m.code().filter(|d| uniform.contains(d)).count(),
        total_ops: m.code().filter(|&d| m.op(d).has_result()).count(),
    }
}

/// Input declarations nothing loads (see the module docs).
fn dead_inputs(m: &Module) -> Vec<SsaDef> {
    m.declarations()
        .filter(|&d| {
            let op = m.op(d);
            let keep = match op.opcode {
                OpCode::DclInputBuiltIn => matches!(
                    DclInputBuiltIn::of(op)
                        .builtin()
                        .and_then(BuiltIn::from_u64),
                    Some(BuiltIn::SampleId | BuiltIn::SamplePosition)
                ),
                OpCode::DclInput => DclInput::of(op)
                    .interpolation()
                    .is_some_and(|f| f & u64::from(InterpolationModes::Sample.0) != 0),
                _ => return false,
            };
            !keep && m.uses(d).iter().all(|&u| m.opcode(u).is_meta())
        })
        .collect()
}

/// Output stores overwritten later in the same block (see the module docs).
fn dead_output_stores(m: &Module) -> Vec<SsaDef> {
    let mut dead = Vec::new();
    // Pending stores of the current block: (output, address operand, store).
    let mut pending: Vec<(SsaDef, irc_ir::Operand, SsaDef)> = Vec::new();
    for d in m.code() {
        let op = m.op(d);
        match op.opcode {
            OpCode::OutputStore => {
                let addr = op.operands[irc_ir::format::slots::Store.address];
                let (Some(out), addr) = (Store::of(op).base(), addr) else {
                    pending.clear();
                    continue;
                };
                let constant_addr = match addr {
                    irc_ir::Operand::Null => true,
                    irc_ir::Operand::Ref(a) => m.opcode(a) == OpCode::Constant,
                    irc_ir::Operand::Lit(_) => false,
                };
                if !constant_addr {
                    // A dynamic address may overwrite anything of this output: forget it.
                    pending.retain(|p| p.0 != out);
                    continue;
                }
                if let Some(i) = pending.iter().position(|p| p.0 == out && p.1 == addr) {
                    dead.push(pending[i].2);
                    pending.remove(i);
                }
                pending.push((out, addr, d));
            }
            OpCode::OutputLoad => {
                let out = Load::of(op).base();
                pending.retain(|p| Some(p.0) != out);
            }
            o if o == OpCode::Label
                || o.is_terminator()
                || matches!(
                    o,
                    OpCode::FunctionCall
                        | OpCode::EmitVertex
                        | OpCode::EmitPrimitive
                        | OpCode::Barrier
                        | OpCode::Function
                        | OpCode::FunctionEnd
                ) =>
            {
                pending.clear()
            }
            _ => {}
        }
    }
    dead
}

/// Values that depend only on constants, constant buffers, push data and spec constants.
pub fn uniform_values(m: &Module) -> FxHashSet<SsaDef> {
    let mut uni: FxHashSet<SsaDef> = FxHashSet::default();
    // Declarations and resources that read uniform data.
    for d in m.declarations() {
        match m.opcode(d) {
            OpCode::Constant
            | OpCode::Undef
            | OpCode::DclCbv
            | OpCode::DclPushData
            | OpCode::DclSpecConstant => {
                uni.insert(d);
            }
            _ => {}
        }
    }
    // Merge blocks of branches on non-uniform conditions: their phis are not uniform.
    let code: Vec<SsaDef> = m.code().collect();
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 16 {
        changed = false;
        rounds += 1;
        let mut divergent_labels: FxHashSet<SsaDef> = FxHashSet::default();
        for f in functions(m) {
            let cfg = Cfg::build(m, f);
            for b in cfg.blocks() {
                let Some(t) = cfg.block(b).terminator else {
                    continue;
                };
                let top = m.op(t);
                let cond = match top.opcode {
                    OpCode::BranchConditional => BranchConditional::of(top).cond(),
                    OpCode::Switch => Switch::of(top).selector(),
                    _ => None,
                };
                if cond.is_some_and(|c| !uni.contains(&c)) {
                    // Every phi reachable below a divergent branch is suspect: mark all blocks
                    // this one does not dominate trivially — conservatively, every block after
                    // it in the function.
                    let after = m
                        .iter_from(t)
                        .take_while(|&x| m.opcode(x) != OpCode::FunctionEnd)
                        .filter(|&x| m.opcode(x) == OpCode::Label);
                    divergent_labels.extend(after);
                }
            }
        }
        let mut label = None;
        for &d in &code {
            let op = m.op(d);
            if op.opcode == OpCode::Label {
                label = Some(d);
            }
            if uni.contains(&d) || !op.has_result() {
                continue;
            }
            let operands_uniform = || op.ref_defs().all(|x| uni.contains(&x));
            let ok = match op.opcode {
                OpCode::Phi => {
                    label.is_some_and(|l| !divergent_labels.contains(&l))
                        && op
                            .operands
                            .iter()
                            .skip(1)
                            .step_by(2)
                            .filter_map(|o| o.as_ref())
                            .all(|x| uni.contains(&x))
                }
                OpCode::ConstantLoad
                | OpCode::PushDataLoad
                | OpCode::BufferLoad
                | OpCode::DescriptorLoad => operands_uniform(),
                o => is_pure(o) && operands_uniform(),
            };
            if ok {
                uni.insert(d);
                changed = true;
            }
        }
    }
    uni.retain(|d| !m.opcode(*d).is_declarative());
    uni
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "
%1 = EntryPoint %20 Vertex
%2 = f32 DclInput %1 0 0
%3 = f32 DclInput %1 1 0
%4 = f32 DclOutput %1 0 0
%5 = f32x4[1] DclCbv %1 0 0 1
%6 = u32 Constant 0
%7 = f32 Constant 2.0

%20 = Function
%21 = Label None
  %22 = f32 InputLoad %2 null
  %23 = cbv DescriptorLoad %5 %6
  %24 = f32x4 BufferLoad %23 %6 16
  %25 = f32 CompositeExtract %24 %6
  %26 = f32 FMul %25 %7
  %27 = OutputStore %4 null %26
  %28 = f32 FAdd %22 %26
  %29 = OutputStore %4 null %28
  %30 = Return
%31 = FunctionEnd
";

    #[test]
    fn removes_unloaded_inputs_and_overwritten_stores() {
        let mut m = irc_ir::text::parse(SRC).unwrap();
        let s = stats(&m);
        assert_eq!(s.removed_inputs, 1);
        assert_eq!(s.removed_outputs, 1);
        // DescriptorLoad, BufferLoad, CompositeExtract, FMul are uniform; InputLoad, FAdd not.
        assert_eq!(s.uniform_ops, 4);
        assert_eq!(s.total_ops, 6);
        let before = m.clone();
        assert!(run(&mut m, &PassContext::default()).unwrap());
        irc_ir::verifier::verify(&m).unwrap();
        for seed in 0..4 {
            let inputs = irc_interp::ShaderInputs::random(&before, seed);
            let cfg = irc_interp::RunConfig::default();
            let a = irc_interp::run(&before, &inputs, &cfg).unwrap();
            let b = irc_interp::run(&m, &inputs, &cfg).unwrap();
            irc_interp::compare::outputs_equal(&a, &b).unwrap();
        }
        assert_eq!(stats(&m).removed_inputs, 0);
        assert!(!run(&mut m, &PassContext::default()).unwrap());
    }
}
