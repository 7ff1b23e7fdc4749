//! Whether two values are the same by construction: the same op, or identical pure ops of
//! identical operands.
//!
//! The D3D9 readers build every source operand on its own: `dp3 r, v0, v0` reads `v0` through
//! two constructs of two sets of input loads, which `gvn` merges only later. The legacy
//! multiply lowering (`irc_passes::lower_legacy`) asks [`same_value`] to know that such a
//! product is a square — `x · x` is the same under the D3D9 and the IEEE rules, so in the
//! exact mode it needs no guard.
//!
//! *Pure* here is the opcode table's notion: a code op with a result and none of the
//! `EFFECT`, `READS`, `META`, `SCOPED` or `TERMINATOR` attributes, and not a `Phi`. Its value
//! depends on its operands alone (inputs, constants and push data never change while a shader
//! runs), so two such ops with the same opcode, type, flags, literals and operand values are
//! the same value wherever they are.

use crate::{Module, OpCode, Operand, SsaDef};

/// How deep [`same_value`] looks by default: a swizzle is a construct of extracts of a
/// register value (or of input loads), two levels, plus one.
pub const SAME_VALUE_DEPTH: u32 = 3;

/// Whether `a` and `b` always hold the same value (module documentation), looking at most
/// `depth` ops down.
pub fn same_value(m: &Module, a: SsaDef, b: SsaDef, depth: u32) -> bool {
    if a == b {
        return true;
    }
    if depth == 0 || !pure(m, a) || !pure(m, b) {
        return false;
    }
    let (x, y) = (m.op(a), m.op(b));
    x.opcode == y.opcode
        && x.ty == y.ty
        && x.flags == y.flags
        && x.operands.len() == y.operands.len()
        && x.operands
            .iter()
            .zip(y.operands.iter())
            .all(|(p, q)| match (p, q) {
                (Operand::Ref(p), Operand::Ref(q)) => same_value(m, *p, *q, depth - 1),
                _ => p == q,
            })
}

fn pure(m: &Module, d: SsaDef) -> bool {
    if !m.is_live(d) {
        return false;
    }
    let op = m.op(d);
    let o = op.opcode;
    !(o.is_declarative()
        || o.is_terminator()
        || o.has_effect()
        || o.is_meta()
        || o.is_scoped()
        || o.reads_state()
        || matches!(o, OpCode::Phi | OpCode::Unknown)
        || !op.has_result())
}

#[cfg(test)]
mod tests {
    use super::{same_value, SAME_VALUE_DEPTH};
    use crate::{text, EntityRef, SsaDef};

    const SOURCE: &str = "%1 = EntryPoint %20 Pixel
%2 = f32x4 DclInput %1 0 0 None
%3 = u32 Constant 0
%4 = u32 Constant 1
%5 = f32 DclOutput %1 0 0
%6 = f32 DclTmp %1
%20 = Function
%21 = Label None
%22 = f32 InputLoad %2 %3
%23 = f32 InputLoad %2 %4
%24 = f32x2 CompositeConstruct %22 %23
%25 = f32 InputLoad %2 %3
%26 = f32 InputLoad %2 %4
%27 = f32x2 CompositeConstruct %25 %26
%28 = f32x2 CompositeConstruct %23 %22
%29 = f32 TmpLoad %6
%30 = f32 TmpLoad %6
%31 = f32 FDot %24 %27
%32 = OutputStore %5 null %31
%33 = Return
%34 = FunctionEnd
";

    fn d(n: usize) -> SsaDef {
        SsaDef::new(n - 1)
    }

    #[test]
    fn identical_pure_ops_are_one_value() {
        let m = text::parse(SOURCE).unwrap_or_else(|e| panic!("{e}"));
        let same = |a, b| same_value(&m, d(a), d(b), SAME_VALUE_DEPTH);
        // Two constructs of two loads each of the same input components.
        assert!(same(24, 27));
        assert!(same(22, 25));
        // Other components, or the same ones in another order.
        assert!(!same(22, 23));
        assert!(!same(24, 28));
        // Reads of writable state are never the same by construction.
        assert!(!same(29, 30));
        // Too deep to see: the loads are one level below the constructs.
        assert!(!same_value(&m, d(24), d(27), 1));
        assert!(same_value(&m, d(24), d(27), 2));
    }
}
