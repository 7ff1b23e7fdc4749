//! A small deterministic mutator for the smoke run: the libFuzzer-style edits (bit flips,
//! byte and word overwrites with boundary values, inserts, deletes, duplicated chunks,
//! truncation, splicing with another seed) and, for text inputs, swapping whole tokens taken
//! from the seeds. Not coverage-guided: the smoke run only proves that the committed seeds and
//! their near neighbours still pass; the long runs use libFuzzer (`tools/fuzz/README.md`).

pub use irc_testsuite::gen::Rng;

/// Uniform in `0..n` (0 when `n` is 0).
fn below(rng: &mut Rng, n: usize) -> usize {
    rng.below(n as u64) as usize
}

/// Boundary values written over 1, 2 or 4 bytes (counts and sizes are where readers break).
const INTERESTING: [u32; 10] = [
    0,
    1,
    0x7F,
    0x80,
    0xFF,
    0x7FFF,
    0xFFFF,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
];

/// `seed` with 1–4 random edits; `other` is a second seed for splicing, `tokens` the
/// whitespace-separated words of the text seeds (empty for binary targets).
pub fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8], tokens: &[&str]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + below(rng, 4) {
        let at = below(rng, b.len() + 1);
        match below(rng, 10) {
            0 if at < b.len() => b[at] ^= 1 << below(rng, 8),
            1 if at < b.len() => b[at] = rng.next_u64() as u8,
            2 => {
                let v = INTERESTING[below(rng, INTERESTING.len())].to_le_bytes();
                let w = [1, 2, 4][below(rng, 3)];
                for (k, byte) in v.iter().take(w).enumerate() {
                    if let Some(x) = b.get_mut(at + k) {
                        *x = *byte;
                    }
                }
            }
            3 => b.insert(at, rng.next_u64() as u8),
            4 if at < b.len() => {
                let end = (at + 1 + below(rng, 16)).min(b.len());
                b.drain(at..end);
            }
            5 => {
                let end = (at + 1 + below(rng, 32)).min(b.len());
                let chunk = b[at.min(end)..end].to_vec();
                let to = below(rng, b.len() + 1);
                b.splice(to..to, chunk);
            }
            6 => b.truncate(at),
            7 if !other.is_empty() => {
                let from = below(rng, other.len());
                let end = (from + 1 + below(rng, 64)).min(other.len());
                b.splice(at..at, other[from..end].iter().copied());
            }
            _ if !tokens.is_empty() => {
                let t = tokens[below(rng, tokens.len())].as_bytes();
                let mut end = at;
                while end < b.len() && !b[end].is_ascii_whitespace() {
                    end += 1;
                }
                b.splice(at..end, t.iter().copied());
            }
            _ => {}
        }
    }
    b
}
