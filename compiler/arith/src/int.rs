//! Integer, bitwise and boolean ops, per component.
//!
//! Arithmetic wraps at the result width. Decisions:
//! - shift counts are masked to `width − 1` (D3D and what SPIR-V backends emit);
//! - `UDiv`/`UMod` by zero give all ones (D3D11 `udiv`);
//! - `IBitInsert`/`UBitExtract`/`SBitExtract` mask offset and count to `width − 1` (D3D `bfi`,
//!   `ubfe`, `ibfe`); a count of 0 extracts 0 / inserts nothing; fields running past the top bit
//!   are truncated;
//! - `IFindLsb`, `UFindMsb`, `SFindMsb` follow SPIR-V: −1 (all ones) when no bit is found;
//!   `SFindMsb` of a negative value finds the highest 0 bit;
//! - `IAbs(MIN) = MIN`; `UMSad` is D3D `msad`: Σ over bytes with a nonzero reference byte of
//!   `|ref − src|`, plus the accumulator.

use crate::value::{bit_width, mask, Scalar};
use irc_ir::{OpCode, ScalarType};

fn sext(v: u64, w: u32) -> i64 {
    if w >= 64 {
        v as i64
    } else {
        ((v << (64 - w)) as i64) >> (64 - w)
    }
}

/// The integer type an op computes in (Unknown counts as u32).
#[inline]
pub fn int_type(t: ScalarType) -> ScalarType {
    let t = crate::value::effective(t);
    if t.is_int() {
        t
    } else {
        ScalarType::U32
    }
}

/// Evaluates a per-component integer or bitwise op with result type `t`.
#[inline]
pub fn int_op(op: OpCode, t: ScalarType, args: &[Scalar]) -> Option<Scalar> {
    let t = int_type(t);
    let w = bit_width(t);
    let m = mask(w);
    let u = |i: usize| args.get(i).map_or(0, |s| s.bits() & m);
    let s = |i: usize| sext(u(i), w);
    let sh = |i: usize| (u(i) & (w as u64 - 1)) as u32;
    let r = |v: u64| Some(Scalar::from_bits(t, v & m));
    match op {
        OpCode::IAnd => r(u(0) & u(1)),
        OpCode::IOr => r(u(0) | u(1)),
        OpCode::IXor => r(u(0) ^ u(1)),
        OpCode::INot => r(!u(0)),
        OpCode::IShl => r(u(0) << sh(1)),
        OpCode::UShr => r(u(0) >> sh(1)),
        OpCode::SShr => r((s(0) >> sh(1)) as u64),
        OpCode::IBitInsert => {
            let (off, cnt) = (sh(2), sh(3));
            let field = mask(cnt) << off;
            r(((u(1) << off) & field) | (u(0) & !field))
        }
        OpCode::UBitExtract | OpCode::SBitExtract => {
            let (off, cnt) = (sh(1), sh(2));
            if cnt == 0 {
                return r(0);
            }
            let v = u(0) >> off;
            let width = cnt.min(w - off);
            let f = v & mask(width);
            if op == OpCode::SBitExtract {
                r(sext(f, width) as u64)
            } else {
                r(f)
            }
        }
        OpCode::IBitCount => r(u(0).count_ones() as u64),
        OpCode::IBitReverse => r(u(0).reverse_bits() >> (64 - w)),
        OpCode::IFindLsb => {
            let v = u(0);
            r(if v == 0 { m } else { v.trailing_zeros() as u64 })
        }
        OpCode::UFindMsb => {
            let v = u(0);
            r(if v == 0 {
                m
            } else {
                (63 - v.leading_zeros()) as u64
            })
        }
        OpCode::SFindMsb => {
            let v = if s(0) < 0 { !u(0) & m } else { u(0) };
            r(if v == 0 {
                m
            } else {
                (63 - v.leading_zeros()) as u64
            })
        }
        OpCode::IAdd => r(u(0).wrapping_add(u(1))),
        OpCode::ISub => r(u(0).wrapping_sub(u(1))),
        OpCode::IAbs => r(s(0).unsigned_abs()),
        OpCode::INeg => r(u(0).wrapping_neg()),
        OpCode::IMul => r(u(0).wrapping_mul(u(1))),
        OpCode::UDiv => r(if u(1) == 0 { m } else { u(0) / u(1) }),
        OpCode::UMod => r(if u(1) == 0 { m } else { u(0) % u(1) }),
        OpCode::SMin => r(s(0).min(s(1)) as u64),
        OpCode::SMax => r(s(0).max(s(1)) as u64),
        OpCode::SClamp => r(s(0).max(s(1)).min(s(2)) as u64),
        OpCode::UMin => r(u(0).min(u(1))),
        OpCode::UMax => r(u(0).max(u(1))),
        OpCode::UClamp => r(u(0).max(u(1)).min(u(2))),
        OpCode::UMSad => {
            let (rf, src) = (u(0), u(1));
            let mut acc = u(2);
            for k in 0..4 {
                let a = (rf >> (8 * k)) & 0xff;
                let b = (src >> (8 * k)) & 0xff;
                if a != 0 {
                    acc = acc.wrapping_add(a.abs_diff(b));
                }
            }
            r(acc)
        }
        _ => None,
    }
}

/// `IAddCarry`, `ISubBorrow`, `SMulExtended`, `UMulExtended` on 32-bit operands:
/// (low, high/carry/borrow).
#[inline]
pub fn extended(op: OpCode, a: Scalar, b: Scalar) -> Option<(u32, u32)> {
    let (x, y) = (a.bits() as u32, b.bits() as u32);
    Some(match op {
        OpCode::IAddCarry => {
            let (lo, c) = x.overflowing_add(y);
            (lo, c as u32)
        }
        OpCode::ISubBorrow => {
            let (lo, c) = x.overflowing_sub(y);
            (lo, c as u32)
        }
        OpCode::UMulExtended => {
            let p = x as u64 * y as u64;
            (p as u32, (p >> 32) as u32)
        }
        OpCode::SMulExtended => {
            let p = (x as i32 as i64) * (y as i32 as i64);
            (p as u32, (p as u64 >> 32) as u32)
        }
        _ => return None,
    })
}

/// Integer comparisons; `t` is the operand type.
#[inline]
pub fn compare(op: OpCode, t: ScalarType, a: Scalar, b: Scalar) -> Option<bool> {
    let w = bit_width(int_type(t));
    let m = mask(w);
    let (x, y) = (a.bits() & m, b.bits() & m);
    let (sx, sy) = (sext(x, w), sext(y, w));
    Some(match op {
        OpCode::IEq => x == y,
        OpCode::INe => x != y,
        OpCode::SLt => sx < sy,
        OpCode::SLe => sx <= sy,
        OpCode::SGt => sx > sy,
        OpCode::SGe => sx >= sy,
        OpCode::ULt => x < y,
        OpCode::ULe => x <= y,
        OpCode::UGt => x > y,
        OpCode::UGe => x >= y,
        _ => return None,
    })
}

/// Boolean ops.
#[inline]
pub fn bool_op(op: OpCode, a: bool, b: bool) -> Option<bool> {
    Some(match op {
        OpCode::BAnd => a && b,
        OpCode::BOr => a || b,
        OpCode::BEq => a == b,
        OpCode::BNe => a != b,
        OpCode::BNot => !a,
        _ => return None,
    })
}
