//! Two 128-bit vectors as one 256-bit register and back: the data movement of the
//! eight-bone AVX paths (`sampling::wide`, `pose::avx`). Safe to call from any
//! function compiled with at least `avx`.

use std::arch::x86_64::*;

use glam::Vec4;

/// Lanes 0–3 from `lo`, 4–7 from `hi`.
#[target_feature(enable = "avx")]
#[inline]
pub(crate) fn join(lo: Vec4, hi: Vec4) -> __m256 {
    _mm256_set_m128(hi.into(), lo.into())
}

/// Lanes 0–3, then lanes 4–7 of `v`.
#[target_feature(enable = "avx")]
#[inline]
pub(crate) fn halves(v: __m256) -> [Vec4; 2] {
    [
        _mm256_castps256_ps128(v).into(),
        _mm256_extractf128_ps::<1>(v).into(),
    ]
}
