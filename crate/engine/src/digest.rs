//! A text's 64-bit digest: the key a program is remembered by (the validity check's verdicts,
//! the session's answered candidates, the witness search's programs). A megabyte program is
//! digested for every candidate, so it must be fast: std's SipHash (DoS-resistant, which a
//! reducer's own candidates do not need) read a byte or so per cycle and was 4% of the engine
//! on a 1.6 MB C++ reduction. This mixes 16 bytes per 64x64->128-bit multiply, in the manner
//! of wyhash; its collisions are as rare as a random function's for texts.

/// Two odd constants with well-spread bits (wyhash's).
const P0: u64 = 0xa076_1d64_78bd_642f;
const P1: u64 = 0xe703_7ed1_a0b4_28db;

/// The high and low halves of `a * b`, folded.
fn mix(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

/// Little-endian word of up to 8 bytes (zero-padded).
fn word(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(w)
}

/// The digest of `bytes`, seeded by `seed` (texts of different kinds stay apart).
pub fn of(seed: u64, bytes: &[u8]) -> u64 {
    let mut h = mix(seed ^ P0, bytes.len() as u64 ^ P1);
    let mut pairs = bytes.chunks_exact(16);
    for p in &mut pairs {
        h = mix(word(&p[..8]) ^ P1, word(&p[8..]) ^ h);
    }
    let rest = pairs.remainder();
    let (lo, hi) = rest.split_at(rest.len().min(8));
    h = mix(word(lo) ^ P1, word(hi) ^ h);
    mix(h ^ P0, P1)
}

/// The digest of a text.
pub fn text(text: &str) -> u64 {
    of(0, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn texts_that_differ_anywhere_get_different_digests() {
        // Every one-byte change, insertion and deletion of a text, at every place, and every
        // prefix: the edits a reducer makes. (A hash that ignored a tail, a lane or the length
        // would collide here.)
        let base = "int main(void) { int a = 1, b = 2; return a + b; } /* 0123456789 */";
        let mut seen = HashSet::new();
        let mut texts = HashSet::new();
        let mut add = |t: String| {
            if texts.insert(t.clone()) {
                assert!(seen.insert(text(&t)), "a collision on {t:?}");
            }
        };
        for i in 0..=base.len() {
            add(base[..i].to_string());
            add(format!(
                "{}{}",
                &base[..i],
                &base[(i + 1).min(base.len())..]
            ));
            add(format!("{} {}", &base[..i], &base[i..]));
            if i < base.len() {
                add(format!("{}#{}", &base[..i], &base[i + 1..]));
            }
        }
        add("\0".repeat(16));
        add("\0".repeat(17));
        assert!(texts.len() > 250);
    }

    #[test]
    fn seeds_keep_equal_texts_apart() {
        assert_eq!(of(3, b"x = 1;"), of(3, b"x = 1;"));
        assert_ne!(of(1, b"x = 1;"), of(2, b"x = 1;"));
    }
}
