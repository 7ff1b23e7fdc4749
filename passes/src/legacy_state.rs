//! `legacy-state`: specializes a D3D9 shader for known fixed-function render state.
//!
//! dxbc-spirv's SM1–3 frontend makes every shader read the D3D9 fixed-function state it
//! depends on through built-in inputs (reference A.1): `LegacyAlphaTest` (the alpha test every
//! pixel shader carries as integer code: compare op, alpha precision, reference),
//! `LegacyFog`, `LegacyClipPlanes`, `LegacyPointArgs`, `LegacySamplerState` (texture type,
//! depth compare, projection, null texture, gather, per sampler) and `LegacyTextureStage`
//! (bump-environment matrices). A translation layer knows that state when it draws and can
//! compile one variant per state; this pass does the specialization. Given a [`LegacyState`]
//! (in [`PassContext::legacy_state`]), it replaces every `InputLoad` of those built-ins by a
//! constant of the load's type:
//!
//! 1. For each `DclInputBuiltIn` of a legacy-state built-in, the whole input value is built from
//!    the state, following the *declared* type: member `i` of the struct is the state field
//!    that the member-index enum of reference A.1 names (the older 6-member `LegacyFog` without
//!    `useZ` is recognised too), arrays (`LegacySamplerState`, `LegacyTextureStage`) get one
//!    element per sampler/stage. A declared type that matches no known layout (member count,
//!    vector sizes, scalar classes) is left alone: its loads keep reading the input.
//! 2. Each `InputLoad` of such a declaration is resolved like the interpreter resolves it
//!    (`irc_arith::access::value_get`): a null address loads the whole value, a constant
//!    address picks the member / element / component. The load is replaced by a `Constant`
//!    (and its debug names dropped). A load whose constant address is out of range, or whose
//!    result type does not match what it addresses, is left alone (it traps or is malformed;
//!    not ours to change).
//! 3. A dynamic address becomes a `ConstantLoad` from a constant of the whole input, which
//!    `scratch-to-regs` and `const-fold` handle like any constant array.
//!
//! The declarations stay; `dce`/`dead-io` remove them once nothing loads them. After this pass
//! the alpha-test function folds away completely (`compareOp` 7 = always) or to one float
//! comparison, fog to its mode's formula or nothing, and so on.
//!
//! [`LegacyState::input_values`] gives the same values as interpreter inputs, so that a test
//! harness can run the original shader with the state the compiled one was specialized for.

use crate::caps::PassContext;
use crate::fold_util::{const_value, make_constant, replace_value};
use crate::PassError;
use irc_arith::access::value_get;
use irc_arith::{Scalar, Value};
use irc_ir::format::{slots, DclInputBuiltIn, Load};
use irc_ir::{BasicType, BuiltIn, Module, Op, OpCode, Operand, SsaDef, Type};

/// A D3D9 comparison function, numbered like `VkCompareOp` (what `LegacyAlphaTest.compareOp`
/// holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CompareOp {
    Never = 0,
    Less = 1,
    Equal = 2,
    LessEqual = 3,
    Greater = 4,
    NotEqual = 5,
    GreaterEqual = 6,
    #[default]
    Always = 7,
}

impl CompareOp {
    /// Every op, in numeric order.
    pub const ALL: [CompareOp; 8] = [
        CompareOp::Never,
        CompareOp::Less,
        CompareOp::Equal,
        CompareOp::LessEqual,
        CompareOp::Greater,
        CompareOp::NotEqual,
        CompareOp::GreaterEqual,
        CompareOp::Always,
    ];

    /// The lower-case name (`never`, `less`, `equal`, `less-equal`, `greater`, `not-equal`,
    /// `greater-equal`, `always`).
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Never => "never",
            CompareOp::Less => "less",
            CompareOp::Equal => "equal",
            CompareOp::LessEqual => "less-equal",
            CompareOp::Greater => "greater",
            CompareOp::NotEqual => "not-equal",
            CompareOp::GreaterEqual => "greater-equal",
            CompareOp::Always => "always",
        }
    }

    /// Parses a name of [`CompareOp::name`] or a number 0–7.
    pub fn parse(s: &str) -> Option<CompareOp> {
        let s = s.trim();
        if let Ok(n) = s.parse::<u32>() {
            return Self::ALL.get(n as usize).copied();
        }
        Self::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// The alpha test (`LegacyAlphaTest {u32 compareOp, u32 precision, u32 alphaRef}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlphaTest {
    pub compare: CompareOp,
    /// Alpha precision bits above 8 of the render target, as DXVK passes them: 0 for 8-bit
    /// UNORM targets (alpha is quantized to 1/255 steps), up to 8 for 16-bit targets; above 8
    /// means a float target (no quantization).
    pub precision: u32,
    /// The reference value, 0–255.
    pub reference: u32,
}

impl Default for AlphaTest {
    /// Alpha test off: always pass, 8-bit target, reference 0.
    fn default() -> Self {
        AlphaTest {
            compare: CompareOp::Always,
            precision: 0,
            reference: 0,
        }
    }
}

/// Fixed-function fog (`LegacyFog {bool enable, bool useZ, u32 mode, f32x3 color, f32 scale,
/// f32 end, f32 density}`).
#[derive(Clone, Debug, PartialEq)]
pub struct Fog {
    pub enable: bool,
    /// Fog coordinate from depth (`z`) instead of `1/w`.
    pub use_z: bool,
    /// `D3DFOGMODE`: 0 none (the vertex fog value), 1 exp, 2 exp2, 3 linear.
    pub mode: u32,
    pub color: [f32; 3],
    /// Linear fog: `1 / (end − start)`.
    pub scale: f32,
    pub end: f32,
    pub density: f32,
}

impl Default for Fog {
    /// Fog off, D3D9's default range (start 0, end 1) and density 1.
    fn default() -> Self {
        Fog {
            enable: false,
            use_z: false,
            mode: 0,
            color: [0.0; 3],
            scale: 1.0,
            end: 1.0,
            density: 1.0,
        }
    }
}

/// Point rendering (`LegacyPointArgs {bool isPointSprite, f32 size, f32 min, f32 max}`).
#[derive(Clone, Debug, PartialEq)]
pub struct PointArgs {
    pub sprite: bool,
    pub size: f32,
    pub min: f32,
    pub max: f32,
}

impl Default for PointArgs {
    /// Not a point sprite; D3D9's default size 1, range 1–64.
    fn default() -> Self {
        PointArgs {
            sprite: false,
            size: 1.0,
            min: 1.0,
            max: 64.0,
        }
    }
}

/// One sampler's state (an element of `LegacySamplerState`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SamplerState {
    /// 0 = 2D, 1 = 3D, 2 = cube (selects which SRV declaration the shader samples).
    pub texture_type: u32,
    pub depth_compare: bool,
    pub projection: bool,
    /// No texture bound: sampling returns (0, 0, 0, 1).
    pub is_null: bool,
    /// Fetch4.
    pub gather: bool,
    pub dref_clamp: bool,
    pub dref_scale: f32,
}

/// One texture stage's bump-environment state (an element of `LegacyTextureStage`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TextureStage {
    pub bump_mat0: [f32; 2],
    pub bump_mat1: [f32; 2],
    pub bump_scale: f32,
    pub bump_offset: f32,
}

/// The D3D9 fixed-function state a shader is specialized for. The default is D3D9's initial
/// state with the alpha test off, fog off, no point sprite and no user clip planes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct LegacyState {
    pub alpha_test: AlphaTest,
    pub fog: Fog,
    pub point: PointArgs,
    /// Enabled user clip planes (at most 6 are used; `count` is the length).
    pub clip_planes: Vec<[f32; 4]>,
    /// Per sampler index; samplers past the end have the default state.
    pub samplers: Vec<SamplerState>,
    /// Per texture stage; stages past the end have the default state.
    pub texture_stages: Vec<TextureStage>,
}

/// One struct member's data, before it is typed by the declaration.
enum Datum {
    Bool(bool),
    U32(u32),
    F32(Vec<f32>),
}

/// The built-ins this pass specializes.
pub const STATE_BUILTINS: [BuiltIn; 6] = [
    BuiltIn::LegacyAlphaTest,
    BuiltIn::LegacyFog,
    BuiltIn::LegacyClipPlanes,
    BuiltIn::LegacyPointArgs,
    BuiltIn::LegacySamplerState,
    BuiltIn::LegacyTextureStage,
];

/// Largest array the pass builds a value for (D3D9 has 16 + 4 samplers and 8 stages).
const MAX_ELEMENTS: u32 = 64;

impl LegacyState {
    /// The interpreter input value of each legacy-state built-in that `m` declares and that
    /// this pass specializes (declared types of an unknown layout are left out, as the pass
    /// leaves them alone).
    pub fn input_values(&self, m: &Module) -> Vec<(BuiltIn, Value)> {
        let mut out: Vec<(BuiltIn, Value)> = Vec::new();
        for (_, b, v) in self.declarations(m) {
            if !out.iter().any(|(x, _)| *x == b) {
                out.push((b, v));
            }
        }
        out
    }

    /// `(declaration, built-in, value)` of every specializable declaration of `m`.
    fn declarations(&self, m: &Module) -> Vec<(SsaDef, BuiltIn, Value)> {
        state_declarations(m)
            .into_iter()
            .filter_map(|(d, b)| Some((d, b, self.value_of(b, m.ty(d))?)))
            .collect()
    }

    /// The value of built-in `b` declared with type `ty`, if `ty` is a known layout.
    fn value_of(&self, b: BuiltIn, ty: &Type) -> Option<Value> {
        if !is_arrayed(b) {
            return self.element_of(b, ty, 0);
        }
        Some(Value::Composite(
            (0..u64::from(element_count(b, ty)?))
                .map(|i| self.element_of(b, ty, i))
                .collect::<Option<Vec<_>>>()?,
        ))
    }

    /// Element `i` of the value of an arrayed built-in `b` declared with type `ty` (what
    /// [`LegacyState::value_of`]'s composite holds at `i`), or the whole value of a
    /// non-arrayed one for `i` = 0; `None` if `ty` is not a known layout or `i` is past the
    /// end. The elements of one declaration all have the same layout, so an element exists
    /// exactly when the whole value does and `i` is in range.
    fn element_of(&self, b: BuiltIn, ty: &Type, i: u64) -> Option<Value> {
        if i >= u64::from(element_count(b, ty)?) {
            return None;
        }
        let members = ty.members();
        let data = self.members(b, i as usize, members.len())?;
        if data.len() != members.len() {
            return None;
        }
        let values = members
            .iter()
            .zip(data)
            .map(|(&bt, d)| typed(bt, d))
            .collect::<Option<Vec<_>>>()?;
        Some(Value::Composite(values))
    }

    /// The member data of element `i` of built-in `b` for a struct of `count` members.
    fn members(&self, b: BuiltIn, i: usize, count: usize) -> Option<Vec<Datum>> {
        use Datum::{Bool, F32, U32};
        Some(match b {
            BuiltIn::LegacyAlphaTest => {
                let a = &self.alpha_test;
                vec![U32(a.compare as u32), U32(a.precision), U32(a.reference)]
            }
            BuiltIn::LegacyFog => {
                let f = &self.fog;
                let mut v = vec![
                    Bool(f.enable),
                    Bool(f.use_z),
                    U32(f.mode),
                    F32(f.color.to_vec()),
                    F32(vec![f.scale]),
                    F32(vec![f.end]),
                    F32(vec![f.density]),
                ];
                if count == 6 {
                    // The layout before `useZ` was added (2026-06-18).
                    v.remove(1);
                }
                v
            }
            BuiltIn::LegacyClipPlanes => {
                let planes = &self.clip_planes[..self.clip_planes.len().min(6)];
                let mut v = vec![U32(planes.len() as u32)];
                v.extend((0..6).map(|k| F32(planes.get(k).copied().unwrap_or([0.0; 4]).to_vec())));
                v
            }
            BuiltIn::LegacyPointArgs => {
                let p = &self.point;
                vec![
                    Bool(p.sprite),
                    F32(vec![p.size]),
                    F32(vec![p.min]),
                    F32(vec![p.max]),
                ]
            }
            BuiltIn::LegacySamplerState => {
                let s = self.samplers.get(i).cloned().unwrap_or_default();
                vec![
                    U32(s.texture_type),
                    Bool(s.depth_compare),
                    Bool(s.projection),
                    Bool(s.is_null),
                    Bool(s.gather),
                    Bool(s.dref_clamp),
                    F32(vec![s.dref_scale]),
                ]
            }
            BuiltIn::LegacyTextureStage => {
                let t = self.texture_stages.get(i).cloned().unwrap_or_default();
                vec![
                    F32(t.bump_mat0.to_vec()),
                    F32(t.bump_mat1.to_vec()),
                    F32(vec![t.bump_scale]),
                    F32(vec![t.bump_offset]),
                ]
            }
            _ => return None,
        })
    }
}

/// `d` as a value of basic type `bt`, if the shapes and scalar classes agree (bools as bool,
/// integers as any integer type, floats as any float type).
fn typed(bt: BasicType, d: Datum) -> Option<Value> {
    let t = bt.scalar_type();
    let n = bt.vec_size() as usize;
    match d {
        Datum::Bool(b) if n == 1 && t == irc_ir::ScalarType::Bool => Some(Value::bool(b)),
        Datum::U32(v) if n == 1 && t.is_int() => {
            Some(Value::Scalar(Scalar::from_bits(t, u64::from(v))))
        }
        Datum::F32(v) if v.len() == n && t.is_float() => Some(Value::from_components(
            v.iter()
                .map(|&x| irc_arith::float::from_f64(f64::from(x), t))
                .collect(),
        )),
        _ => None,
    }
}

/// True for the built-ins declared as arrays (one element per sampler or texture stage).
fn is_arrayed(b: BuiltIn) -> bool {
    matches!(b, BuiltIn::LegacySamplerState | BuiltIn::LegacyTextureStage)
}

/// The elements of built-in `b` declared with type `ty`: 1 for a non-arrayed one declared
/// as a plain struct, the array length (1 to [`MAX_ELEMENTS`]) for an arrayed one; `None`
/// for any other shape.
fn element_count(b: BuiltIn, ty: &Type) -> Option<u32> {
    match ty.array_dims() {
        [] if !is_arrayed(b) => Some(1),
        &[n] if is_arrayed(b) && n > 0 && n <= MAX_ELEMENTS => Some(n),
        _ => None,
    }
}

/// `(declaration, built-in)` of every legacy-state built-in input `m` declares.
fn state_declarations(m: &Module) -> Vec<(SsaDef, BuiltIn)> {
    m.declarations()
        .filter(|&d| m.opcode(d) == OpCode::DclInputBuiltIn)
        .filter_map(|d| {
            let b = DclInputBuiltIn::of(m.op(d))
                .builtin()
                .and_then(BuiltIn::from_u64)?;
            STATE_BUILTINS.contains(&b).then_some((d, b))
        })
        .collect()
}

/// The state value of one declaration, built as far as its loads read it: a load at a
/// constant address of an arrayed built-in (`sampler_state[0].isNull`) needs only its element,
/// so the other elements (16 samplers and 16 stages of several members each, a tenth of a
/// small shader's whole pipeline when built every time) are not built.
struct StateValue<'a> {
    state: &'a LegacyState,
    builtin: BuiltIn,
    ty: Type,
    whole: Option<Option<Value>>,
}

impl StateValue<'_> {
    fn whole(&mut self) -> Option<&Value> {
        let (state, b, ty) = (self.state, self.builtin, &self.ty);
        self.whole
            .get_or_insert_with(|| state.value_of(b, ty))
            .as_ref()
    }

    /// The part at constant address `idx` (as `value_get` on the whole value).
    fn part(&mut self, idx: &[u64], n: usize) -> Option<Value> {
        match idx.split_first() {
            Some((&i, rest)) if is_arrayed(self.builtin) && self.whole.is_none() => {
                let element = self.state.element_of(self.builtin, &self.ty, i)?;
                value_get(&element, rest, n)
            }
            _ => value_get(self.whole()?, idx, n),
        }
    }
}

/// Runs the pass; returns whether the module changed.
pub fn run(m: &mut Module, cx: &PassContext) -> Result<bool, PassError> {
    let mut changed = false;
    for (decl, builtin) in state_declarations(m) {
        let mut loads: Vec<SsaDef> = m
            .uses(decl)
            .iter()
            .copied()
            .filter(|&u| m.opcode(u) == OpCode::InputLoad && Load::of(m.op(u)).base() == Some(decl))
            .collect();
        if loads.is_empty() {
            continue;
        }
        loads.sort();
        loads.dedup();
        let mut value = StateValue {
            state: &cx.legacy_state,
            builtin,
            ty: m.ty(decl).clone(),
            whole: None,
        };
        for load in loads {
            changed |= specialize(m, decl, load, &mut value);
        }
    }
    Ok(changed)
}

/// Replaces one `InputLoad` of `decl` (whose value is `value`); returns whether it did.
fn specialize(m: &mut Module, decl: SsaDef, load: SsaDef, value: &mut StateValue<'_>) -> bool {
    let op = m.op(load).clone();
    let n = op.ty.as_basic().map_or(1, |b| b.vec_size() as usize);
    let address = op
        .operands
        .get(slots::Load.address)
        .copied()
        .unwrap_or(Operand::Null);
    let index: Option<Vec<u64>> = match address {
        Operand::Null => Some(Vec::new()),
        Operand::Ref(a) => const_value(m, a).and_then(|v| {
            let c = v.components()?;
            c.iter()
                .all(|s| s.ty().is_int())
                .then(|| c.iter().map(|s| s.bits()).collect())
        }),
        Operand::Lit(_) => return false,
    };
    match index {
        Some(idx) => {
            let Some(part) = value.part(&idx, n) else {
                return false;
            };
            let Some(c) = make_constant(m, &op.ty, &part) else {
                return false;
            };
            replace_value(m, load, c);
            true
        }
        None => {
            let Operand::Ref(a) = address else {
                return false;
            };
            let decl_ty = m.ty(decl).clone();
            let Some(whole) = value.whole().cloned() else {
                return false;
            };
            let Some(whole) = make_constant(m, &decl_ty, &whole) else {
                return false;
            };
            let flags = op.flags;
            m.rewrite(
                load,
                Op::new(OpCode::ConstantLoad, op.ty)
                    .arg(whole)
                    .arg(a)
                    .with_flags(flags),
            );
            true
        }
    }
}

#[cfg(test)]
#[path = "legacy_state_tests.rs"]
mod tests;
