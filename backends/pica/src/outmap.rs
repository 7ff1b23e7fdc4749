//! The output map: which fixed-function semantic (§7 GPUREG_SH_OUTMAP, §13.1 output table)
//! each IR output of a `pica-vs` program feeds.
//!
//! The IR names an output's meaning with a `Semantic` op (HLSL name + index; D3D9 `oD0` is
//! `color 0`, `oT1` is `texcoord 1`) or a built-in (`Position`). The mapping, documented in
//! [`PicaReflection`]'s text and in `docs/reflection.md`:
//!
//! | IR output | PICA semantic | components |
//! |---|---|---|
//! | built-in `Position`, `position`/`sv_position` | position | x y z w |
//! | `color 0` | color | up to 4 |
//! | `texcoord 0` | texcoord0 (x y) and, with ≥ 3 components, texcoord0w on z (the third coordinate of a cube / 3D lookup, as the hand-written skybox shader feeds it) | |
//! | `texcoord 1`, `texcoord 2` | texcoord1, texcoord2 | x y |
//! | `normalquat`/`nquat`/`quaternion` | normalquat | up to 4 |
//! | `view` | view | x y z |
//!
//! Everything else (a second colour, `texcoord 3+`, `normal`, `fog`, clip distances, point
//! size, a semantic taken by an earlier output, an output wider than one register) is a
//! `dummy` output: written to its register, fed to nothing fixed-function; its entry carries
//! the reason. Components a semantic has no code for (texcoord z/w) are left out of the mask.

use std::fmt::Write as _;

use irc_backend::{IoSource, OutputBinding, TargetReflection};
use irc_ir::format::{DclOutput, Semantic};
use irc_ir::{BuiltIn, Module, OpCode, SsaDef};
use rustc_hash::FxHashMap;

use crate::shbin::{self, semantic};

/// One output-table entry with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutMapEntry {
    /// Output register `o<reg>`.
    pub reg: u32,
    /// `shbin::semantic` code.
    pub semantic: u16,
    /// Component mask, bit 0 = x (the output table's order).
    pub mask: u16,
    /// The IR's name for the output (`texcoord 1`, `Position`, `location 3`).
    pub source: String,
    /// Why a `dummy` entry feeds nothing (`None` for mapped entries).
    pub reason: Option<String>,
}

/// The `pica-vs` part of the reflection: the output map.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PicaReflection {
    pub outmap: Vec<OutMapEntry>,
}

impl TargetReflection for PicaReflection {
    fn to_text(&self) -> String {
        let mut out = String::new();
        for e in &self.outmap {
            let _ = write!(
                out,
                "outmap o{}.{} {} <- {}",
                e.reg,
                mask_text(e.mask),
                semantic::name(e.semantic).unwrap_or("?"),
                e.source
            );
            if let Some(r) = &e.reason {
                let _ = write!(out, " ({r})");
            }
            out.push('\n');
        }
        out
    }
    /// `{"outmap": [{"register", "semantic", "mask", "source", "reason"?}]}` (docs/reflection.md).
    fn to_json(&self) -> serde_json::Value {
        let entries: Vec<_> = self
            .outmap
            .iter()
            .map(|e| {
                let mut v = serde_json::json!({
                    "register": e.reg,
                    "semantic": semantic::name(e.semantic).unwrap_or("?"),
                    "mask": mask_text(e.mask),
                    "source": e.source,
                });
                if let Some(r) = &e.reason {
                    v["reason"] = serde_json::Value::from(r.as_str());
                }
                v
            })
            .collect();
        serde_json::json!({ "outmap": entries })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn clone_box(&self) -> Box<dyn TargetReflection> {
        Box::new(self.clone())
    }
}

fn mask_text(mask: u16) -> String {
    (0..4)
        .filter(|c| mask & (1 << c) != 0)
        .map(|c| ['x', 'y', 'z', 'w'][c])
        .collect()
}

/// `(location, component)` of each `DclOutput` → its `Semantic` (lower-case name, index).
fn semantics(m: &Module) -> FxHashMap<(u32, u32), (String, u64)> {
    let mut by_def: FxHashMap<SsaDef, (String, u64)> = FxHashMap::default();
    for d in m.declarations() {
        let op = m.op(d);
        if op.opcode == OpCode::Semantic {
            let s = Semantic::of(op);
            if let Some(t) = s.target() {
                let name = op.string_from(irc_ir::format::slots::Semantic.name);
                by_def.insert(t, (name.to_ascii_lowercase(), s.index().unwrap_or(0)));
            }
        }
    }
    let mut out = FxHashMap::default();
    for d in m.declarations() {
        let op = m.op(d);
        if op.opcode == OpCode::DclOutput {
            if let Some(s) = by_def.get(&d) {
                let decl = DclOutput::of(op);
                let key = (
                    decl.location().unwrap_or(0) as u32,
                    decl.component().unwrap_or(0) as u32,
                );
                out.insert(key, s.clone());
            }
        }
    }
    out
}

/// The wanted semantic of one output: `Ok([(semantic, first component, count)…])` or
/// `Err(reason)` for a dummy.
fn wanted(name: &str, index: u64, n: u32) -> Result<Vec<(u16, u32, u32)>, String> {
    let one = |s: u16, max: u32| Ok(vec![(s, 0, n.min(max))]);
    match (name, index) {
        ("position" | "sv_position", 0) => one(semantic::POSITION, 4),
        ("color", 0) => one(semantic::COLOR, 4),
        ("color", _) => Err("PICA has one vertex colour".into()),
        ("texcoord", 0) if n >= 3 => Ok(vec![
            (semantic::TEXCOORD0, 0, 2),
            (semantic::TEXCOORD0W, 2, 1),
        ]),
        ("texcoord", 0) => one(semantic::TEXCOORD0, 2),
        ("texcoord", 1) => one(semantic::TEXCOORD1, 2),
        ("texcoord", 2) => one(semantic::TEXCOORD2, 2),
        ("texcoord", _) => Err("PICA has three texture coordinate sets".into()),
        ("normalquat" | "nquat" | "quaternion", 0) => one(semantic::NORMALQUAT, 4),
        ("view", 0) => one(semantic::VIEW, 3),
        ("normal", _) => {
            Err("a normal vector, not the quaternion PICA fragment lighting reads".into())
        }
        _ => Err(format!("no PICA semantic for {name} {index}")),
    }
}

/// The output table of `outputs` (registers as allocated by the lowering).
pub fn build(m: &Module, outputs: &[OutputBinding]) -> Vec<OutMapEntry> {
    let names = semantics(m);
    let mut used: Vec<u16> = Vec::new();
    let mut out = Vec::new();
    for o in outputs {
        let n = u32::from(o.components);
        let (source, want) = match o.target {
            IoSource::BuiltIn(BuiltIn::Position) => (
                "Position".to_string(),
                Ok(vec![(semantic::POSITION, 0, n.min(4))]),
            ),
            IoSource::BuiltIn(b) => (
                format!("{b:?}"),
                Err("no PICA output semantic for this built-in".to_string()),
            ),
            IoSource::Location {
                location,
                component,
            } => match names.get(&(location, component)) {
                Some((name, index)) => (format!("{name} {index}"), wanted(name, *index, n)),
                None => (
                    format!("location {location}"),
                    Err("no semantic name in the IR".to_string()),
                ),
            },
        };
        let want = want.and_then(|w| {
            if n > 4 {
                Err("wider than one output register".to_string())
            } else if let Some(&(s, _, _)) = w.iter().find(|(s, _, _)| used.contains(s)) {
                Err(format!(
                    "{} already fed by an earlier output",
                    semantic::name(s).unwrap_or("?")
                ))
            } else {
                Ok(w)
            }
        });
        match want {
            Ok(w) => {
                for (s, first, count) in w {
                    used.push(s);
                    out.push(OutMapEntry {
                        reg: o.register,
                        semantic: s,
                        mask: ((1u16 << count) - 1) << first,
                        source: source.clone(),
                        reason: None,
                    });
                }
            }
            Err(reason) => {
                for k in 0..n.div_ceil(4) {
                    let c = (n - 4 * k).min(4);
                    out.push(OutMapEntry {
                        reg: o.register + k,
                        semantic: semantic::DUMMY,
                        mask: (1 << c) - 1,
                        source: source.clone(),
                        reason: Some(reason.clone()),
                    });
                }
            }
        }
    }
    out
}

/// The output table entries of [`build`]'s map.
pub fn entries(map: &[OutMapEntry]) -> Vec<shbin::OutputEntry> {
    map.iter()
        .map(|e| shbin::OutputEntry {
            semantic: e.semantic,
            reg: e.reg as u16,
            mask: e.mask,
        })
        .collect()
}
