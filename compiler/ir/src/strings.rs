//! String literals: bytes packed little-endian, 8 per 64-bit operand, first byte in bits 0–7; the
//! last operand zero-padded; a length that is a multiple of 8 gets **no** terminating operand,
//! and the empty string is one zero operand (reference §A.7).

/// Packs bytes into literal operands.
pub fn pack(bytes: &[u8]) -> Vec<u64> {
    if bytes.is_empty() {
        return vec![0];
    }
    bytes
        .chunks(8)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u64, |acc, (i, &b)| acc | (b as u64) << (8 * i))
        })
        .collect()
}

/// Unpacks literal operands, stopping each operand at its first NUL byte (as dxbc-spirv does).
pub fn unpack(ops: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ops.len() * 8);
    for &v in ops {
        for i in 0..8 {
            let b = (v >> (8 * i)) as u8;
            if b == 0 {
                break;
            }
            out.push(b);
        }
    }
    out
}

/// True if `ops` is exactly what [`pack`] produces for the string it decodes to.
pub fn is_canonical(ops: &[u64]) -> bool {
    pack(&unpack(ops)) == ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_like_the_reference() {
        assert_eq!(pack(b"main"), vec![0x6E69616D]);
        assert_eq!(pack(b""), vec![0]);
        assert_eq!(pack(b"sampler_").len(), 1);
        assert_eq!(pack(b"sampler_state").len(), 2);
        assert_eq!(unpack(&pack(b"sampler_state")), b"sampler_state");
        assert!(is_canonical(&pack(b"abcdefgh")));
        assert!(!is_canonical(&[0x41, 0]));
    }
}
