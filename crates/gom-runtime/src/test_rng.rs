//! A small deterministic generator for the unit tests.

/// Numbers in `[-1, 1)` from an xorshift generator started at `seed` (not 0).
pub(crate) fn signed_unit(mut seed: u64) -> impl FnMut() -> f32 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}
