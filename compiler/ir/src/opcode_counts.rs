//! How many live ops of each opcode a [`crate::Module`] holds, kept up to date by every
//! mutation, so that "does the module have any `FunctionCall` / legacy op / dot product?" is a
//! lookup instead of a walk. Passes whose opcodes are absent return at once
//! ([`crate::Module::contains_opcode`], [`crate::Module::contains_class`]): in a legalization
//! most lowering passes find nothing to do, and a walk of the whole module each cost more than
//! the lookups of a whole pipeline. Likewise the live ops whose type mentions the Unknown scalar
//! `?` or a min-precision scalar ([`TypeCounts`]): `lower-min16` and the `?` checks then skip
//! modules without them without a look at every op's type.

use crate::opcode::{OpCode, OPCODE_VALUE_BOUND};
use crate::types::Type;

/// Live ops per opcode, indexed by the opcode's wire value.
#[derive(Clone, Debug)]
pub(crate) struct OpcodeCounts(Box<[u32; OPCODE_VALUE_BOUND]>);

impl Default for OpcodeCounts {
    fn default() -> Self {
        OpcodeCounts(Box::new([0; OPCODE_VALUE_BOUND]))
    }
}

impl OpcodeCounts {
    /// Counts one more live op of `opcode`.
    #[inline]
    pub(crate) fn added(&mut self, opcode: OpCode) {
        self.0[opcode.value() as usize] += 1;
    }
    /// Counts one live op of `opcode` less.
    #[inline]
    pub(crate) fn removed(&mut self, opcode: OpCode) {
        self.0[opcode.value() as usize] -= 1;
    }
    /// Forgets every op.
    pub(crate) fn clear(&mut self) {
        self.0.fill(0);
    }
    /// The number of live ops of `opcode`.
    #[inline]
    pub(crate) fn of(&self, opcode: OpCode) -> usize {
        self.0[opcode.value() as usize] as usize
    }
    /// True if some live op's opcode satisfies `wanted` (asked once per opcode of the table).
    pub(crate) fn any(&self, wanted: impl Fn(OpCode) -> bool) -> bool {
        OpCode::ALL.iter().any(|&op| self.of(op) > 0 && wanted(op))
    }
}

/// Live ops whose type mentions the Unknown scalar `?`, and those whose type mentions a
/// min-precision scalar (`min16float`, `min10float`, `min16int`, `min16uint`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TypeCounts {
    pub(crate) unknown: u32,
    pub(crate) min_precision: u32,
}

impl TypeCounts {
    /// Counts one more live op of type `t`.
    #[inline]
    pub(crate) fn added(&mut self, t: &Type) {
        let (unknown, min) = classes(t);
        self.unknown += unknown;
        self.min_precision += min;
    }
    /// Counts one live op of type `t` less.
    #[inline]
    pub(crate) fn removed(&mut self, t: &Type) {
        let (unknown, min) = classes(t);
        self.unknown -= unknown;
        self.min_precision -= min;
    }
}

/// Whether `t` mentions `?`, and whether it mentions a min-precision scalar (1 or 0 each).
#[inline]
fn classes(t: &Type) -> (u32, u32) {
    let (mut unknown, mut min) = (false, false);
    for b in t.members() {
        let s = b.scalar_type();
        unknown |= s == crate::types::ScalarType::Unknown;
        min |= s.is_min_precision();
    }
    (u32::from(unknown), u32::from(min))
}

#[cfg(test)]
mod tests {
    use crate::op::Op;
    use crate::opcode::{Attrs, OpCode};
    use crate::types::{ScalarType, Type};
    use crate::{Module, SsaDef};
    use cranelift_entity::EntityRef;

    /// The counts against a walk of the whole module, for every opcode and class, and the
    /// count of ops typed with the Unknown scalar.
    fn assert_counts_match_walk(m: &Module) {
        let unknown = m.iter().filter(|&d| m.ty(d).mentions_unknown()).count();
        assert_eq!(m.unknown_typed_count(), unknown, "ops typed with `?`");
        for d in m.iter() {
            assert_eq!(
                m.type_mentions_unknown(d),
                m.ty(d).mentions_unknown(),
                "{d}"
            );
        }
        let min = m
            .iter()
            .filter(|&d| {
                m.ty(d)
                    .members()
                    .iter()
                    .any(|b| b.scalar_type().is_min_precision())
            })
            .count();
        assert_eq!(
            m.min_precision_typed_count(),
            min,
            "ops of min-precision types"
        );
        for &op in OpCode::ALL {
            let walked = m.iter().filter(|&d| m.opcode(d) == op).count();
            assert_eq!(m.count_of(op), walked, "count of {op}");
            assert_eq!(m.contains_opcode(op), walked > 0, "presence of {op}");
        }
        for &(name, class) in Attrs::NAMED {
            let walked = m.iter().any(|d| m.opcode(d).is(class));
            assert_eq!(m.contains_class(class), walked, "class {name}");
            let by_predicate = m.contains_where(|op| op.is(class));
            assert_eq!(by_predicate, walked, "class {name} by predicate");
        }
    }

    #[test]
    fn counts_follow_every_mutation() {
        let src = "%1 = EntryPoint %2 Pixel\n%4 = f32 Constant 1.0\n%2 = Function\n\
                   %3 = Label None\n%5 = f32 FAdd %4 %4\n%6 = f32 FMulLegacy %5 %4\n\
                   %7 = Return\n%8 = FunctionEnd\n";
        let mut m = crate::text::parse(src).expect("parse");
        let d = |i: usize| SsaDef::new(i - 1);
        assert_counts_match_walk(&m);
        assert_eq!(m.count_of(OpCode::Constant), 1);
        assert!(m.contains_class(Attrs::LEGACY));

        // rewrite with the same operands (the fast path) and with other operands.
        let mut mul = m.op(d(6)).clone();
        mul.opcode = OpCode::FMul;
        m.rewrite(d(6), mul);
        assert_counts_match_walk(&m);
        assert!(!m.contains_class(Attrs::LEGACY));
        let f32_constant = |v: f32| {
            Op::new(OpCode::Constant, Type::scalar(ScalarType::F32)).lit(v.to_bits() as u64)
        };
        let two = m.add(f32_constant(2.0));
        let sub = Op::new(OpCode::FSub, Type::scalar(ScalarType::F32))
            .arg(d(4))
            .arg(two);
        m.rewrite(d(5), sub);
        assert_counts_match_walk(&m);

        // insertions, a constant that is merged, removal, type change of a constant.
        let neg = m.insert_before(
            d(7),
            Op::new(OpCode::FNeg, Type::scalar(ScalarType::F32)).arg(d(6)),
        );
        assert_eq!(m.add(f32_constant(2.0)), two);
        assert_counts_match_walk(&m);
        m.remove(neg);
        assert_counts_match_walk(&m);
        m.set_type(two, Type::scalar(ScalarType::U32));
        assert_counts_match_walk(&m);

        // min-precision types: set on an op and on a struct-typed one, then resolved again.
        m.set_type(d(5), Type::vector(ScalarType::MinF16, 2));
        assert_eq!(m.min_precision_typed_count(), 1);
        let mixed = Type::structure([
            crate::types::BasicType::scalar(ScalarType::F32),
            crate::types::BasicType::scalar(ScalarType::MinU16),
        ]);
        let fresh = m.insert_before(d(7), Op::new(OpCode::FNeg, mixed).arg(d(6)));
        assert_counts_match_walk(&m);
        assert_eq!(m.min_precision_typed_count(), 2);
        m.remove(fresh);
        m.set_type(d(5), Type::scalar(ScalarType::F32));
        assert_counts_match_walk(&m);
        assert_eq!(m.min_precision_typed_count(), 0);

        // types with the Unknown scalar: set on an op and a constant, by a rewrite with the
        // same operands and by one with others, then resolved again.
        let unknown = Type::scalar(ScalarType::Unknown);
        m.set_type(d(5), unknown.clone());
        assert_eq!(m.unknown_typed_count(), 1);
        m.set_type(two, unknown.clone());
        assert_counts_match_walk(&m);
        let mut retyped = m.op(d(6)).clone();
        retyped.ty = unknown.clone();
        m.rewrite(d(6), retyped);
        assert_eq!(m.unknown_typed_count(), 3);
        let fresh = m.insert_before(d(7), Op::new(OpCode::FNeg, unknown.clone()).arg(d(6)));
        assert_counts_match_walk(&m);
        m.remove(fresh);
        m.set_type(d(5), Type::scalar(ScalarType::F32));
        let resolved = Op::new(OpCode::FMul, Type::scalar(ScalarType::F32))
            .arg(d(4))
            .arg(d(4));
        m.rewrite(d(6), resolved);
        assert_counts_match_walk(&m);
        assert_eq!(m.unknown_typed_count(), 1);

        // copies, clearing and refilling.
        let copy = m.clone();
        assert_counts_match_walk(&copy);
        m.clear();
        assert_counts_match_walk(&m);
        assert!(!m.contains_opcode(OpCode::Function));
        let entries: Vec<(SsaDef, Op)> = copy.iter().map(|d| (d, copy.op(d).clone())).collect();
        m.fill_ordered(entries).expect("refill");
        assert_counts_match_walk(&m);
        assert_eq!(m.count_of(OpCode::Constant), 2);
    }
}
