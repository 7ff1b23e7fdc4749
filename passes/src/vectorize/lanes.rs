//! Lanes: which ops work lane by lane, how a list of scalar lanes becomes a vector operand
//! (a [`Gather`]) and what that costs on a vec4 machine.
//!
//! A gather is free when the lanes are a whole vector, a swizzle of one vector (extracts of
//! one vector in any order; component loads `InputLoad x i` of a vector input count as
//! extracts of `InputLoad x null`), a broadcast of one scalar or all constants (a
//! constant register or immediate). Otherwise each *source* needs one move with a write
//! mask — a vector some lanes come from, the constants together, a scalar that already sits
//! in a register (an input, a phi) — except a scalar computed by an op, which the op can write
//! straight into its lane (vec4 instructions have destination write masks), unless it is put
//! into another construct too.

use super::BlockCx;
use irc_ir::format::{slots, CompositeExtract, Constant, Load};
use irc_ir::{Module, Op, OpCode, ScalarType, SsaDef, Type};
use smallvec::SmallVec;

/// Up to four lanes.
pub(crate) type Lanes = SmallVec<[SsaDef; 4]>;

/// True for scalar types a vector of which the targets hold in one register.
pub(crate) fn vectorizable_scalar(t: ScalarType) -> bool {
    t == ScalarType::Bool
        || ((t.is_float() || t.is_int()) && matches!(t.byte_size(), 2 | 4) && !t.is_min_precision())
}

/// The value of a scalar integer constant.
pub(crate) fn const_index(m: &Module, d: SsaDef) -> Option<u64> {
    let op = m.op(d);
    let t = op.ty.as_scalar()?;
    (op.opcode == OpCode::Constant && t.is_int() && op.operands.len() == 1)
        .then(|| Constant::of(op).scalar(0))
        .flatten()
        .map(|v| v & irc_arith::value::mask(irc_arith::value::bit_width(t)))
}

/// The scalar type of the components of vector (or scalar) `v`.
pub(crate) fn lane_type(m: &Module, v: SsaDef) -> Option<ScalarType> {
    m.ty(v).as_basic().map(|b| b.scalar_type())
}

/// `(v, i)` if `d` is `CompositeExtract v i` of a vector `v`, `i` a constant in range.
pub(crate) fn extract_of(m: &Module, d: SsaDef) -> Option<(SsaDef, u8)> {
    let op = m.op(d);
    if op.opcode != OpCode::CompositeExtract {
        return None;
    }
    let ext = CompositeExtract::of(op);
    let v = ext.composite()?;
    let b = m.ty(v).as_basic()?;
    let i = const_index(m, ext.address()?)?;
    (b.is_vector() && i < b.vec_size() as u64 && op.ty.as_scalar() == Some(b.scalar_type()))
        .then_some((v, i as u8))
}

/// `(x, i)` if `d` is `InputLoad x i` of component `i` of an input `x` declared as a vector
/// (not an array), `i` a constant in range: component `i` of `InputLoad x null`.
pub(crate) fn input_component(m: &Module, d: SsaDef) -> Option<(SsaDef, u8)> {
    let op = m.op(d);
    if op.opcode != OpCode::InputLoad || !op.flags.is_empty() {
        return None;
    }
    let load = Load::of(op);
    let x = load.base()?;
    let b = m.ty(x).as_basic()?;
    let i = const_index(m, load.address()?)?;
    (b.is_vector() && i < b.vec_size() as u64 && op.ty.as_scalar() == Some(b.scalar_type()))
        .then_some((x, i as u8))
}

/// A vector the lane `d` is component `i` of: `(x, i, true)` for a component load of the
/// input `x` or an extract of `InputLoad x null`, `(v, i, false)` for an extract of another
/// value `v`.
pub(crate) fn component_of(m: &Module, d: SsaDef) -> Option<(SsaDef, u8, bool)> {
    if let Some((v, i)) = extract_of(m, d) {
        let op = m.op(v);
        let whole_input = op.opcode == OpCode::InputLoad
            && op
                .operands
                .get(slots::Load.address)
                .is_some_and(|o| o.is_null());
        if whole_input {
            if let Some(x) = Load::of(op).base().filter(|&x| m.ty(x) == &op.ty) {
                return Some((x, i, true));
            }
        }
        return Some((v, i, false));
    }
    input_component(m, d).map(|(x, i)| (x, i, true))
}

/// What a construct of all lanes of one vector, in order, is the same as.
pub(crate) enum Identity {
    /// This value.
    Value(SsaDef),
    /// `InputLoad x null` of this input.
    Input(SsaDef),
}

/// If `d` is a `CompositeConstruct` of all lanes of one vector, in order, with its type:
/// that vector.
pub(crate) fn identity_of(m: &Module, d: SsaDef) -> Option<Identity> {
    let op = m.op(d);
    if op.opcode != OpCode::CompositeConstruct || !op.ty.as_basic()?.is_vector() {
        return None;
    }
    let parts: Lanes = op.ref_defs().collect();
    match Gather::whole(m, &parts, &op.ty)? {
        Gather::Whole(v) => Some(Identity::Value(v)),
        Gather::WholeInput(x) => Some(Identity::Input(x)),
        _ => None,
    }
}

/// Where a lane's value comes from, for counting moves.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    Constant,
    /// Lanes of an existing vector (or vector input).
    Vector(SsaDef),
    /// A scalar that sits in some register lane already (input, phi, …).
    Scalar(SsaDef),
    /// A scalar op result the op can write straight into its lane (destination write mask).
    Placed(SsaDef),
}

/// The source of lane value `d` of the construct `lanes` (to be) built from it.
///
/// A scalar op result is [`Source::Placed`] unless it is already put into another construct
/// (then it would have to be in two places): vec4 instructions write any lanes of their
/// destination, so computing the scalar into the lane costs nothing. Loads of whole inputs,
/// phis (merged in one register) and extracts are read from where they are.
pub(crate) fn source(m: &Module, d: SsaDef, lanes: &[SsaDef]) -> Source {
    let op = m.op(d);
    if op.opcode == OpCode::Constant {
        return Source::Constant;
    }
    if let Some((v, _, _)) = component_of(m, d) {
        return Source::Vector(v);
    }
    let placeable = !matches!(
        op.opcode,
        OpCode::Phi | OpCode::InputLoad | OpCode::CompositeExtract | OpCode::Undef
    ) && !op.opcode.is_declarative()
        && m.uses(d).iter().all(|&u| {
            let uo = m.op(u);
            uo.opcode != OpCode::CompositeConstruct
                || uo
                    .operands
                    .iter()
                    .map(|o| o.as_ref())
                    .eq(lanes.iter().map(|&l| Some(l)))
        });
    if placeable {
        Source::Placed(d)
    } else {
        Source::Scalar(d)
    }
}

/// Moves needed to assemble lanes with these sources: none for a single source (a swizzle,
/// broadcast or constant), else one per source that is not [`Source::Placed`].
pub(crate) fn cost_of_sources(sources: impl IntoIterator<Item = Source>) -> u32 {
    let mut seen: SmallVec<[Source; 4]> = SmallVec::new();
    for s in sources {
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    if seen.len() <= 1 {
        return 0;
    }
    seen.iter()
        .filter(|s| !matches!(s, Source::Placed(_)))
        .count() as u32
}

/// The moves needed to build a construct of `lanes`.
pub(crate) fn gather_cost(m: &Module, lanes: &[SsaDef]) -> u32 {
    cost_of_sources(lanes.iter().map(|&l| source(m, l, lanes)))
}

/// How a vector operand is made from its lanes.
#[derive(Clone, Debug)]
pub(crate) enum Gather {
    /// An existing vector: the lanes are its extracts 0…n−1 in order.
    Whole(SsaDef),
    /// The whole of an input (`InputLoad x null`): the lanes load its components in order.
    WholeInput(SsaDef),
    /// A vector constant (the op, to be added).
    Constant(Op),
    /// `CompositeConstruct` of the lanes (swizzle, broadcast or mix).
    Construct(Lanes),
}

impl Gather {
    /// The gather of `lanes`, all scalars of one vectorizable type, with its cost.
    pub(crate) fn of(m: &Module, lanes: &[SsaDef]) -> Option<(Gather, u32)> {
        let t = m.ty(*lanes.first()?).as_scalar()?;
        if lanes.len() > 4 || !vectorizable_scalar(t) {
            return None;
        }
        if lanes.iter().any(|&l| m.ty(l).as_scalar() != Some(t)) {
            return None;
        }
        let n = lanes.len() as u8;
        let ty = Type::vector(t, n);
        if lanes.iter().all(|&l| m.opcode(l) == OpCode::Constant) {
            let mut op = Op::new(OpCode::Constant, ty);
            for &l in lanes {
                op = op.lit(Constant::of(m.op(l)).scalar(0)?);
            }
            return Some((Gather::Constant(op), 0));
        }
        if let Some(whole) = Gather::whole(m, lanes, &ty) {
            return Some((whole, 0));
        }
        let cost = gather_cost(m, lanes);
        Some((Gather::Construct(lanes.iter().copied().collect()), cost))
    }

    /// [`Gather::Whole`] or [`Gather::WholeInput`] if `lanes` are all components of one
    /// vector of type `ty`, in order.
    fn whole(m: &Module, lanes: &[SsaDef], ty: &Type) -> Option<Gather> {
        if ty.as_basic()?.vec_size() as usize != lanes.len() {
            return None;
        }
        let in_order = |f: &dyn Fn(SsaDef) -> Option<(SsaDef, u8)>| {
            let (v, _) = f(lanes[0])?;
            let all = m.ty(v) == ty
                && (lanes.iter().enumerate()).all(|(i, &l)| f(l) == Some((v, i as u8)));
            all.then_some(v)
        };
        if let Some(v) = in_order(&|l| extract_of(m, l)) {
            return Some(Gather::Whole(v));
        }
        let input = |l| component_of(m, l).filter(|c| c.2).map(|(x, i, _)| (x, i));
        in_order(&input).map(Gather::WholeInput)
    }

    /// The in-block ops the gather reads (they must come before it).
    pub(crate) fn inputs(&self) -> Lanes {
        match self {
            Gather::Whole(v) => smallvec::smallvec![*v],
            Gather::WholeInput(_) | Gather::Constant(_) => Lanes::new(),
            Gather::Construct(l) => l.clone(),
        }
    }

    /// Makes the vector (inserting before `at` what needs inserting).
    pub(crate) fn emit(&self, m: &mut Module, bcx: &mut BlockCx, at: SsaDef) -> SsaDef {
        match self {
            Gather::Whole(v) => *v,
            Gather::WholeInput(x) => {
                let op = Op::new(OpCode::InputLoad, m.ty(*x).clone())
                    .arg(*x)
                    .arg(irc_ir::Operand::Null);
                bcx.insert(m, at, op)
            }
            Gather::Constant(op) => m.add(op.clone()),
            Gather::Construct(lanes) => {
                let t = m.ty(lanes[0]).as_scalar().expect("scalar lanes");
                let mut op = Op::new(
                    OpCode::CompositeConstruct,
                    Type::vector(t, lanes.len() as u8),
                );
                for &l in lanes {
                    op = op.arg(l);
                }
                bcx.insert(m, at, op)
            }
        }
    }
}
