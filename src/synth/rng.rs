//! A small seeded generator owned by the crate.
//!
//! The sample federation in `data/sample/` is regenerated from a seed, and its numbers
//! appear in documentation and tests. A generator from an external crate may change its
//! stream in any upgrade; this one is fixed by its published reference outputs (tested
//! below), so the same seed gives the same federation for as long as the crate exists.
//! Only integer arithmetic and IEEE-exact float operations are used (no `ln`, `cos`), so
//! the stream is the same on every platform too.

/// SplitMix64 (Steele, Lea and Flood): expands a 64-bit seed into well-mixed words.
/// Used to seed [`Rng`] and to derive independent streams from a seed and a key.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// xoshiro256** 1.0 (Blackman and Vigna), the generator behind every random choice of
/// the synthetic federation.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// Seeds the state with four SplitMix64 outputs, as the authors recommend.
    pub fn new(seed: u64) -> Self {
        let mut mix = SplitMix64::new(seed);
        let s = [
            mix.next_u64(),
            mix.next_u64(),
            mix.next_u64(),
            mix.next_u64(),
        ];
        Rng::from_state(s)
    }

    /// A generator for one part of the output (a club's month, say), independent of the
    /// order in which the parts are generated.
    pub fn derive(seed: u64, key: &[u64]) -> Self {
        let mut mixed = SplitMix64::new(seed).next_u64();
        for &k in key {
            mixed = SplitMix64::new(mixed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64();
        }
        Rng::new(mixed)
    }

    /// The raw state; the all-zero state is the one state xoshiro must avoid, and it is
    /// replaced by the state of seed 0.
    pub fn from_state(s: [u64; 4]) -> Self {
        if s == [0; 4] {
            return Rng::new(0);
        }
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in `0..n` (0 when `n` is 0), by Lemire's multiply-shift. The bias
    /// is below 2^-40 for the sizes used here, and the result needs no rejection loop,
    /// which keeps the stream length fixed per call.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform integer in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Approximately standard normal: the Irwin–Hall sum of twelve uniforms minus six.
    /// Mean 0, variance 1, bounded by ±6, which keeps every derived value finite and
    /// avoids platform-dependent transcendental functions.
    pub fn normal(&mut self) -> f64 {
        let mut sum = 0.0;
        for _ in 0..12 {
            sum += self.unit();
        }
        sum - 6.0
    }

    /// An index drawn with probability proportional to `weights` (non-negative). Falls
    /// back to the last index when every weight is zero.
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().filter(|w| **w > 0.0).sum();
        let mut x = self.unit() * total;
        for (i, &w) in weights.iter().enumerate() {
            if w > 0.0 {
                if x < w {
                    return i;
                }
                x -= w;
            }
        }
        weights.len().saturating_sub(1)
    }

    /// Rounds `x` up or down at random so that the expectation is `x` (x ≥ 0).
    pub fn round_random(&mut self, x: f64) -> usize {
        let x = x.max(0.0);
        let floor = x.floor();
        floor as usize + usize::from(self.chance(x - floor))
    }

    /// Shuffles in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rosetta Code, "Pseudo-random numbers/Splitmix64": the first five outputs for seed
    /// 1234567.
    #[test]
    fn splitmix64_matches_the_published_sequence() {
        let mut g = SplitMix64::new(1_234_567);
        let expected: [u64; 5] = [
            6_457_827_717_110_365_317,
            3_203_168_211_198_807_973,
            9_817_491_932_198_370_423,
            4_593_380_528_125_082_431,
            16_408_922_859_458_223_821,
        ];
        for e in expected {
            assert_eq!(g.next_u64(), e);
        }
    }

    /// The reference C implementation of xoshiro256** from state {1, 2, 3, 4}, as
    /// published with the rand_xoshiro and C++ ports.
    #[test]
    fn xoshiro256starstar_matches_the_reference_outputs() {
        let mut g = Rng::from_state([1, 2, 3, 4]);
        let expected: [u64; 10] = [
            11_520,
            0,
            1_509_978_240,
            1_215_971_899_390_074_240,
            1_216_172_134_540_287_360,
            607_988_272_756_665_600,
            16_172_922_978_634_559_625,
            8_476_171_486_693_032_832,
            10_595_114_339_597_558_777,
            2_904_607_092_377_533_576,
        ];
        for e in expected {
            assert_eq!(g.next_u64(), e);
        }
    }

    #[test]
    fn seeding_is_splitmix_expansion() {
        let mut mix = SplitMix64::new(2026);
        let state = [
            mix.next_u64(),
            mix.next_u64(),
            mix.next_u64(),
            mix.next_u64(),
        ];
        let mut a = Rng::new(2026);
        let mut b = Rng::from_state(state);
        for _ in 0..8 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn derived_streams_differ_by_key_and_repeat_by_key() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut g = Rng::derive(7, &[1, 2]);
                move |_| g.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut g = Rng::derive(7, &[1, 2]);
                move |_| g.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut g = Rng::derive(7, &[2, 1]);
                move |_| g.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn normal_has_unit_moments() {
        let mut g = Rng::new(1);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| g.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        // Standard errors: 1/sqrt(n) = 0.0022 for the mean, about 0.003 for the variance.
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.015, "variance {var}");
        assert!(xs.iter().all(|x| x.abs() <= 6.0));
    }

    proptest::proptest! {
        #[test]
        fn below_and_range_stay_in_bounds(seed in proptest::prelude::any::<u64>(), n in 0usize..1000, lo in 0usize..50) {
            let mut g = Rng::new(seed);
            let x = g.below(n);
            proptest::prop_assert!(n == 0 && x == 0 || x < n);
            let y = g.range(lo, lo + n);
            proptest::prop_assert!(y >= lo && y <= lo + n);
            let u = g.unit();
            proptest::prop_assert!((0.0..1.0).contains(&u));
        }
    }
}
