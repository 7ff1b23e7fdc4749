//! Signed variable-length tokens (dxbc-spirv `util/util_vle.h`, reference §A.8).
//!
//! A token is 1 to 9 bytes. The number of leading 1-bits of the first byte is the number of
//! bytes that follow; the remaining low bits of the first byte and the following bytes form a
//! big-endian two's-complement payload that is sign-extended on decoding. The 8-byte form
//! (header `0xFE`) carries 56 payload bits, all in the following bytes; the 9-byte form (header
//! `0xFF`) carries the 64 bits verbatim.
//!
//! The encoder reproduces the reference's length choice exactly, which is *not* always the
//! shortest: the magnitude used to pick the length is the value itself when non-negative and its
//! (wrapping) negation otherwise, so `-2^k` at a length boundary goes one size up (`-64` is
//! `bf c0`, not `40`). The decoder accepts any length.

/// Longest token, in bytes.
pub const MAX_LEN: usize = 9;

/// Total token length by number of significant magnitude bits (0..=64): a length `t` ≤ 8 holds
/// magnitudes up to `2^(7t-1) - 1` (the table of §A.8), i.e. at most `7t - 1` bits.
const LEN_BY_BITS: [u8; 65] = {
    let mut t = [0u8; 65];
    let mut bits = 0;
    while bits <= 64 {
        let len = (bits + 7) / 7;
        t[bits] = if len > MAX_LEN {
            MAX_LEN as u8
        } else {
            len as u8
        };
        bits += 1;
    }
    t
};

/// Number of bytes the reference encoder uses for `v` (`encodedSize`): the magnitude is `v`, or
/// its wrapping negation when negative, so `-2^k` at a boundary takes one byte more.
#[inline]
pub fn encoded_len(v: i64) -> usize {
    let m = if v < 0 {
        (v as u64).wrapping_neg()
    } else {
        v as u64
    };
    LEN_BY_BITS[(64 - m.leading_zeros()) as usize] as usize
}

/// The token of `v` when it is at most 8 bytes long, left-aligned in a big-endian word.
#[inline]
fn short_form(v: i64, total: usize) -> [u8; 8] {
    // Lengths 1..=8 carry 7 payload bits per byte; the marker's leading ones sit above them.
    let payload = v as u64 & ((1u64 << (7 * total)) - 1);
    let marker = (0xff00u64 >> (total - 1)) & 0xff;
    let word = (marker << (8 * (total - 1))) | payload;
    (word << (8 * (8 - total))).to_be_bytes()
}

/// Encodes `v` into `buf`, returning the number of bytes used.
#[inline]
pub fn encode(v: i64, buf: &mut [u8; MAX_LEN]) -> usize {
    let total = encoded_len(v);
    if total == MAX_LEN {
        buf[0] = 0xff;
        buf[1..].copy_from_slice(&v.to_be_bytes());
    } else {
        buf[..8].copy_from_slice(&short_form(v, total));
    }
    total
}

/// Appends the encoding of `v` to `out`.
#[inline(always)]
pub fn push(out: &mut Vec<u8>, v: i64) {
    // Most tokens are one byte (-63..=63): skip the general path.
    if (v.wrapping_add(63) as u64) < 127 {
        out.push(v as u8 & 0x7f);
        return;
    }
    let total = encoded_len(v);
    if total == MAX_LEN {
        out.push(0xff);
        out.extend_from_slice(&v.to_be_bytes());
    } else {
        // A fixed 8-byte append compiles to one store; drop the unused tail.
        let len = out.len();
        out.extend_from_slice(&short_form(v, total));
        out.truncate(len + total);
    }
}

/// Decodes one token from the start of `bytes`: the value and the number of bytes consumed, or
/// `None` if the token runs past the end of `bytes`.
#[inline]
pub fn decode(bytes: &[u8]) -> Option<(i64, usize)> {
    let &first = bytes.first()?;
    let follow = first.leading_ones() as usize;
    if follow == 0 {
        // 7 bits, sign bit 0x40.
        return Some((((first as i64) << 57) >> 57, 1));
    }
    let rest = bytes.get(1..=follow)?;
    let mut raw = (first & (0x7fu32 >> follow) as u8) as u64;
    for &b in rest {
        raw = (raw << 8) | b as u64;
    }
    let value = if follow == 8 {
        raw as i64
    } else {
        let bits = 7 + 7 * follow as u32;
        let shift = 64 - bits;
        ((raw << shift) as i64) >> shift
    };
    Some((value, follow + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Largest magnitude that fits each total length 1..=8 (index = length - 1).
    const LIMITS: [u64; 8] = [
        0x3f,
        0x1fff,
        0xf_ffff,
        0x7ff_ffff,
        0x3_ffff_ffff,
        0x1ff_ffff_ffff,
        0xffff_ffff_ffff,
        0x7f_ffff_ffff_ffff,
    ];

    fn enc(v: i64) -> Vec<u8> {
        let mut out = Vec::new();
        push(&mut out, v);
        out
    }

    #[test]
    fn reference_examples() {
        let table: &[(i64, &[u8])] = &[
            (0, &[0x00]),
            (1, &[0x01]),
            (63, &[0x3f]),
            (64, &[0x80, 0x40]),
            (-1, &[0x7f]),
            (-63, &[0x41]),
            (-64, &[0xbf, 0xc0]),
            (-65, &[0xbf, 0xbf]),
            (8191, &[0x9f, 0xff]),
            (8192, &[0xc0, 0x20, 0x00]),
            (-8192, &[0xdf, 0xe0, 0x00]),
            (-8193, &[0xdf, 0xdf, 0xff]),
            (0x8000_0000, &[0xf0, 0x80, 0x00, 0x00, 0x00]),
            (-(1 << 31), &[0xf7, 0x80, 0x00, 0x00, 0x00]),
            (0xffff_ffff, &[0xf0, 0xff, 0xff, 0xff, 0xff]),
            (0x3f80_0000, &[0xf0, 0x3f, 0x80, 0x00, 0x00]),
            (
                i64::MAX,
                &[0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            ),
            (
                i64::MIN,
                &[0xff, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
            ),
            // Stream-layout examples (§A.9): Function, Label, OutputStore, FMul|Precise.
            (64, &[0x80, 0x40]),
            (96, &[0x80, 0x60]),
            (299, &[0x81, 0x2b]),
            (1700, &[0x86, 0xa4]),
            (-4, &[0x7c]),
        ];
        for &(v, bytes) in table {
            assert_eq!(enc(v), bytes, "encoding {v}");
            assert_eq!(encoded_len(v), bytes.len(), "length of {v}");
            assert_eq!(decode(bytes), Some((v, bytes.len())), "decoding {v}");
        }
    }

    #[test]
    fn round_trips_small_range() {
        for v in -70_000i64..70_000 {
            let b = enc(v);
            assert_eq!(decode(&b), Some((v, b.len())), "value {v}");
        }
    }

    fn probes_for_len() -> Vec<i64> {
        let mut probes = vec![i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1];
        for &limit in &LIMITS {
            let l = limit as i64;
            for d in -2..=2 {
                probes.extend([l + d, -l + d, -(l + 1) + d]);
            }
        }
        for shift in 0..64 {
            let p = 1u64 << shift;
            probes.extend([
                p as i64,
                (p as i64).wrapping_neg(),
                (p - 1) as i64,
                !(p as i64),
            ]);
        }
        probes
    }

    #[test]
    fn round_trips_around_every_length_limit() {
        for v in probes_for_len() {
            let b = enc(v);
            assert_eq!(decode(&b), Some((v, b.len())), "value {v}");
            assert!(b.len() <= MAX_LEN);
        }
        // The closed form of `encoded_len` agrees with the reference's table walk.
        let table_len = |v: i64| {
            let m = if v < 0 {
                (v as u64).wrapping_neg()
            } else {
                v as u64
            };
            LIMITS
                .iter()
                .position(|&l| m <= l)
                .map_or(MAX_LEN, |i| i + 1)
        };
        for v in (-70_000..70_000).chain(probes_for_len()) {
            assert_eq!(encoded_len(v), table_len(v), "length of {v}");
        }
        // Non-minimal boundary rule: -(limit + 1) goes one size up.
        for (i, &limit) in LIMITS.iter().enumerate() {
            assert_eq!(encoded_len(limit as i64), i + 1);
            assert_eq!(encoded_len(limit as i64 + 1), i + 2);
            assert_eq!(encoded_len(-(limit as i64)), i + 1);
            assert_eq!(encoded_len(-(limit as i64) - 1), i + 2);
        }
    }

    #[test]
    fn decode_accepts_any_length_and_rejects_truncation() {
        // 1 written with 2, 3 and 9 bytes.
        assert_eq!(decode(&[0x80, 0x01]), Some((1, 2)));
        assert_eq!(decode(&[0xc0, 0x00, 0x01]), Some((1, 3)));
        assert_eq!(decode(&[0xff, 0, 0, 0, 0, 0, 0, 0, 1]), Some((1, 9)));
        // -1 in the 8-byte form: sign from the first following byte.
        assert_eq!(
            decode(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            Some((-1, 8))
        );
        assert_eq!(
            decode(&[0xfe, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            Some(((1 << 55) - 1, 8))
        );
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&[0x80]), None);
        assert_eq!(decode(&[0xff, 0, 0, 0, 0, 0, 0, 0]), None);
        // Trailing bytes are not consumed.
        assert_eq!(decode(&[0x01, 0x02]), Some((1, 1)));
    }
}
