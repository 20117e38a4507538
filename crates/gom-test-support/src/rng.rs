//! One deterministic generator for the data tests and benchmarks make up: the `rand`
//! project's xorshift ([`rand_xorshift::XorShiftRng`]) seeded from a `u64`, with the
//! few kinds of number they draw. The same seed gives the same numbers on every
//! platform and run.

use rand_core::{Rng as _, SeedableRng};
use rand_xorshift::XorShiftRng;

/// A seeded generator of test data.
#[derive(Debug, Clone)]
pub struct Rng(XorShiftRng);

impl Rng {
    /// A generator started from `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Rng {
        Rng(XorShiftRng::seed_from_u64(seed))
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// An index in `0..n` (`0` when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A number in `[0, 1)` with 24 random bits (every value an exact `f32`).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A number in `[0, 1)` with 53 random bits (every value an exact `f64`).
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// A number in `[-1, 1)`.
    pub fn signed(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_numbers_and_another_seed_others() {
        let draw = |seed| {
            let mut r = Rng::new(seed);
            (0..64).map(|_| r.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
        assert!(draw(0).iter().any(|&x| x != 0), "seed 0 must not stall");
    }

    #[test]
    fn numbers_stay_in_their_ranges_and_cover_them() {
        let mut r = Rng::new(1);
        let (mut lo, mut hi) = (f32::MAX, f32::MIN);
        let mut seen = [false; 10];
        for _ in 0..10_000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            let s = r.signed();
            assert!((-1.0..1.0).contains(&s));
            lo = lo.min(s);
            hi = hi.max(s);
            let f = r.unit_f64();
            assert!((0.0..1.0).contains(&f));
            let x = r.range(-3.0, 5.0);
            assert!((-3.0..5.0).contains(&x));
            seen[r.index(10)] = true;
        }
        assert!(lo < -0.99 && hi > 0.99, "[-1, 1) covered: {lo}..{hi}");
        assert!(seen.iter().all(|&s| s), "every index below 10 drawn");
        assert_eq!(r.below(0), 0);
    }
}
