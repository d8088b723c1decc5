//! The trainer's pseudo-random numbers: small generators that give the same sequence on every
//! platform, so prompt draws, generated tasks and batch orders are reproducible from a seed.
//! (Sampling tokens uses libtorch's generator, seeded through `SamplingParams::seed`.)

/// splitmix64: prompt draws and generated arithmetic tasks (the workspace's one definition).
pub use splitmix::SplitMix64;

/// xorshift64 (13, 7, 17): mini-batch order and warm-up batches. Kept next to splitmix64 rather
/// than replaced by it because recorded runs (docs/experiments/) depend on its exact sequence.
pub struct XorShift64(pub u64);

impl XorShift64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Fisher–Yates shuffle driven by xorshift64 from `seed`.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = XorShift64(seed.wrapping_add(0x2545_F491_4F6C_DD1D));
    for i in (1..items.len()).rev() {
        items.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
}

/// FNV-1a, 64 bits: a stable hash for names that must not change across runs, builds or
/// platforms (tokenizer fingerprints, warm-up evaluation runs).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_are_permutations_and_deterministic() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        assert_eq!(a, b);
        assert_ne!(a, (0..20).collect::<Vec<_>>());
        a.sort();
        assert_eq!(a, (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn fnv1a_is_the_published_function() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
