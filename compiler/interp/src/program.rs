//! Preprocessing of a module for execution: the entry point and stage, each function's op list
//! (positions for jumps), decoded constants, and the matching of scoped control flow ops
//! (`ScopedIf` → its `ScopedElse`, `ScopedSwitch` → its cases). Everything is checked here or
//! at use, so a malformed module gives a [`Trap`] rather than a panic.

use crate::trap::Trap;
use crate::value::{constant_value, zero_value, Value};
use irc_ir::format::{EntryPoint, Scoped};
use irc_ir::{Module, OpCode, OpFlags, ScalarType, ShaderStage, SsaDef};
use rustc_hash::FxHashMap;

/// One function body.
#[derive(Debug, Default)]
pub(crate) struct Func {
    /// Ops after `Function` up to and including `FunctionEnd`.
    pub ops: Vec<SsaDef>,
    /// The `DclParam` defs of the parameters.
    pub params: Vec<SsaDef>,
}

#[derive(Debug)]
pub(crate) struct Program<'m> {
    pub m: &'m Module,
    pub stage: ShaderStage,
    pub entry_point: SsaDef,
    pub entry_fn: SsaDef,
    pub funcs: FxHashMap<SsaDef, Func>,
    /// Def index → (function, position) for code ops inside functions.
    pub pos: Vec<Option<(SsaDef, u32)>>,
    /// Decoded `Constant` and `Undef` values.
    pub consts: FxHashMap<SsaDef, Value>,
    /// `ScopedIf` → position of its `ScopedElse`.
    pub else_of: FxHashMap<SsaDef, u32>,
    /// `ScopedSwitch` → (case literal or `None` for default, position) in program order.
    pub cases: FxHashMap<SsaDef, Vec<(Option<u64>, u32)>>,
    /// Float types whose `SetFpMode` carries the `precise` flag (every op of that type is
    /// precise, as dxbc-spirv's `ArithmeticPass::getFpFlags` reads it).
    pub precise_types: Vec<ScalarType>,
    /// The float modes of the module's `SetFpMode` declarations (denormals, rounding).
    pub fp_modes: irc_arith::FpModes,
    /// The module has an op of the `legacy` class (a D3D9 shader; see
    /// [`crate::RunConfig::legacy_clamp`]).
    pub has_legacy_ops: bool,
}

fn null() -> SsaDef {
    SsaDef::from_u32(0)
}

impl<'m> Program<'m> {
    pub fn new(m: &'m Module) -> Result<Program<'m>, Trap> {
        let mut entry = None;
        let mut consts = FxHashMap::default();
        let mut precise_types = Vec::new();
        for d in m.declarations() {
            let op = m.op(d);
            match op.opcode {
                OpCode::EntryPoint => {
                    if entry.is_some() {
                        return Err(Trap::bad(d, "more than one EntryPoint"));
                    }
                    entry = Some(d);
                }
                OpCode::Constant => {
                    let lits: Vec<u64> = op.literals().collect();
                    let v = constant_value(&op.ty, &lits).ok_or_else(|| {
                        Trap::bad(d, "constant literal count does not match its type")
                    })?;
                    consts.insert(d, v);
                }
                OpCode::Undef => {
                    consts.insert(d, zero_value(&op.ty));
                }
                OpCode::SetFpMode if op.flags.contains(OpFlags::PRECISE) => {
                    precise_types.extend(op.ty.as_scalar());
                }
                _ => {}
            }
        }
        let entry = entry.ok_or_else(|| Trap::bad(null(), "no EntryPoint"))?;
        let ep = m.op(entry);
        let stage = EntryPoint::of(ep)
            .stage()
            .map(|v| ShaderStage(v as u32))
            .ok_or_else(|| Trap::bad(entry, "EntryPoint without stage"))?;
        let entry_fn = EntryPoint::of(ep)
            .function()
            .ok_or_else(|| Trap::bad(entry, "EntryPoint without function"))?;

        let mut funcs: FxHashMap<SsaDef, Func> = FxHashMap::default();
        let mut pos = vec![None; m.id_bound()];
        let mut cur: Option<SsaDef> = None;
        for d in m.code() {
            let op = m.op(d);
            match op.opcode {
                OpCode::Function => {
                    if cur.is_some() {
                        return Err(Trap::bad(d, "Function inside a function"));
                    }
                    cur = Some(d);
                    let params = op.ref_defs().collect();
                    funcs.insert(
                        d,
                        Func {
                            ops: Vec::new(),
                            params,
                        },
                    );
                }
                _ => {
                    let Some(f) = cur else {
                        return Err(Trap::bad(d, "code op outside a function"));
                    };
                    let func = funcs.get_mut(&f).expect("function inserted above");
                    pos[d.index()] = Some((f, func.ops.len() as u32));
                    func.ops.push(d);
                    if op.opcode == OpCode::FunctionEnd {
                        cur = None;
                    }
                }
            }
        }
        if let Some(f) = cur {
            return Err(Trap::bad(f, "function without FunctionEnd"));
        }
        if !funcs.contains_key(&entry_fn) {
            return Err(Trap::bad(entry, "EntryPoint does not name a function"));
        }
        let mut p = Program {
            m,
            stage,
            entry_point: entry,
            entry_fn,
            funcs,
            pos,
            consts,
            else_of: FxHashMap::default(),
            cases: FxHashMap::default(),
            precise_types,
            fp_modes: irc_arith::FpModes::of_module(m),
            has_legacy_ops: m
                .code()
                .any(|d| m.opcode(d).info().attrs.contains(irc_ir::Attrs::LEGACY)),
        };
        for d in m.code() {
            let op = m.op(d);
            match op.opcode {
                OpCode::ScopedElse => {
                    let i = Scoped::of(op)
                        .construct()
                        .ok_or_else(|| Trap::bad(d, "ScopedElse without If"))?;
                    let at = p.pos_in_same_fn(d, d)?;
                    p.else_of.insert(i, at);
                }
                OpCode::ScopedSwitchCase | OpCode::ScopedSwitchDefault => {
                    let s = Scoped::of(op)
                        .construct()
                        .ok_or_else(|| Trap::bad(d, "case without switch"))?;
                    let at = p.pos_in_same_fn(d, d)?;
                    let lit = if op.opcode == OpCode::ScopedSwitchCase {
                        Some(
                            Scoped::of(op)
                                .case_value()
                                .ok_or_else(|| Trap::bad(d, "case without value"))?,
                        )
                    } else {
                        None
                    };
                    p.cases.entry(s).or_default().push((lit, at));
                }
                _ => {}
            }
        }
        Ok(p)
    }

    /// Position of `target` if it is in the same function as `from`.
    pub fn pos_in_same_fn(&self, from: SsaDef, target: SsaDef) -> Result<u32, Trap> {
        let a = self.pos.get(from.index()).copied().flatten();
        let b = self.pos.get(target.index()).copied().flatten();
        match (a, b) {
            (Some((fa, _)), Some((fb, p))) if fa == fb => Ok(p),
            _ => Err(Trap::bad(
                from,
                format!("{target} is not an op of the same function"),
            )),
        }
    }
}

use irc_ir::EntityRef;
