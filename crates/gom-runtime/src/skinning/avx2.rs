//! The AVX2 + FMA path: eight vertices a block. Each vertex blends its influences'
//! matrices as two 256-bit halves (`[x axis | y axis]`, `[z axis | translation]`,
//! one fused multiply-add each per influence) and transforms its attributes with
//! them; the block's eight normals (and tangents) are then renormalised together, one
//! 8-wide square root and division. The vertices past the last whole block go
//! through the scalar path.
//!
//! Hand-written with `std::arch` because the blend reads whole matrix columns per
//! vertex, which the compiler does not vectorise from scalar code. The only `unsafe`
//! is the call into the `#[target_feature]` function after the CPU was checked.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use glam::Vec3A;

use super::{split_targets, Job, SkinTargets};
use crate::mesh::skin_of;

/// Vertices per block.
const LANES: usize = 8;

/// Whether the CPU can run this path.
pub(super) fn available() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
}

/// Skins `words` into `out` on this path (on the four-lane path when the CPU lacks
/// AVX2 or FMA).
pub(super) fn skin(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    if available() {
        // SAFETY: `skin_blocks` only requires the `avx2` and `fma` target features,
        // and the CPU has both (checked just above).
        unsafe { skin_blocks(job, words, out) }
    } else {
        super::wide4::skin(job, words, out)
    }
}

#[target_feature(enable = "avx2,fma")]
fn skin_blocks(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    let stride = job.stride;
    let whole = words.len() / stride / LANES * LANES;
    let (head, tail) = split_targets(out, whole);
    let (head_words, tail_words) = words.split_at(whole * stride);
    let SkinTargets {
        mut positions,
        mut normals,
        mut tangents,
    } = head;
    for (blk, vb) in head_words.chunks_exact(LANES * stride).enumerate() {
        let at = blk * LANES;
        let mut n = [_mm_setzero_ps(); LANES];
        let mut t = [_mm_setzero_ps(); LANES];
        for (j, v) in vb.chunks_exact(stride).enumerate() {
            let (a, c) = blend_affine(job, v);
            if let Some(p) = positions.as_deref_mut() {
                p[at + j] = xyz(apply(a, c, &v[..3], 1.0));
            }
            if normals.is_some() {
                let (e, f) = if job.rigid {
                    (a, c)
                } else {
                    blend_normal(job, v)
                };
                n[j] = apply(e, f, &v[job.no..job.no + 3], 0.0);
            }
            if tangents.is_some() {
                t[j] = apply(a, c, &v[job.to..job.to + 3], 0.0);
            }
        }
        if let Some(o) = normals.as_deref_mut() {
            let inv = inverse_lengths(&n);
            for j in 0..LANES {
                o[at + j] = xyz(_mm_mul_ps(n[j], _mm_set1_ps(inv[j])));
            }
        }
        if let Some(o) = tangents.as_deref_mut() {
            let inv = inverse_lengths(&t);
            for (j, v) in vb.chunks_exact(stride).enumerate() {
                let [x, y, z] = xyz(_mm_mul_ps(t[j], _mm_set1_ps(inv[j])));
                o[at + j] = [x, y, z, v[job.to + 3]];
            }
        }
    }
    super::scalar::skin(job, tail_words, tail);
}

/// `[lo | hi]` as one 256-bit vector.
#[target_feature(enable = "avx2,fma")]
fn halves(lo: Vec3A, hi: Vec3A) -> __m256 {
    _mm256_set_m128(hi.into(), lo.into())
}

/// The weighted sum of vertex `v`'s influence matrices as `[x | y]`, `[z | t]`
/// columns. Influences of weight 0 are skipped (they would add zeros).
#[target_feature(enable = "avx2,fma")]
fn blend_affine(job: &Job<'_>, v: &[f32]) -> (__m256, __m256) {
    let (b, w) = skin_of(v, job.so);
    let m = &job.pal[usize::from(b[0]).min(job.last)];
    let w0 = _mm256_set1_ps(w[0]);
    let mut a = _mm256_mul_ps(w0, halves(m.matrix3.x_axis, m.matrix3.y_axis));
    let mut c = _mm256_mul_ps(w0, halves(m.matrix3.z_axis, m.translation));
    for k in 1..4 {
        if w[k] != 0.0 {
            let m = &job.pal[usize::from(b[k]).min(job.last)];
            let wk = _mm256_set1_ps(w[k]);
            a = _mm256_fmadd_ps(wk, halves(m.matrix3.x_axis, m.matrix3.y_axis), a);
            c = _mm256_fmadd_ps(wk, halves(m.matrix3.z_axis, m.translation), c);
        }
    }
    (a, c)
}

/// The weighted sum of vertex `v`'s normal matrices as `[x | y]`, `[z | 0]`.
#[target_feature(enable = "avx2,fma")]
fn blend_normal(job: &Job<'_>, v: &[f32]) -> (__m256, __m256) {
    let (b, w) = skin_of(v, job.so);
    let m = &job.nrm[usize::from(b[0]).min(job.last)];
    let w0 = _mm256_set1_ps(w[0]);
    let mut a = _mm256_mul_ps(w0, halves(m.x_axis, m.y_axis));
    let mut c = _mm256_mul_ps(w0, halves(m.z_axis, Vec3A::ZERO));
    for k in 1..4 {
        if w[k] != 0.0 {
            let m = &job.nrm[usize::from(b[k]).min(job.last)];
            let wk = _mm256_set1_ps(w[k]);
            a = _mm256_fmadd_ps(wk, halves(m.x_axis, m.y_axis), a);
            c = _mm256_fmadd_ps(wk, halves(m.z_axis, Vec3A::ZERO), c);
        }
    }
    (a, c)
}

/// `x·c0 + y·c1 + z·c2 + t·c3` for the columns `a = [c0 | c1]`, `c = [c2 | c3]`.
#[target_feature(enable = "avx2,fma")]
fn apply(a: __m256, c: __m256, v: &[f32], t: f32) -> __m128 {
    let xy = _mm256_set_m128(_mm_set1_ps(v[1]), _mm_set1_ps(v[0]));
    let zt = _mm256_set_m128(_mm_set1_ps(t), _mm_set1_ps(v[2]));
    let r = _mm256_fmadd_ps(a, xy, _mm256_mul_ps(c, zt));
    _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps::<1>(r))
}

/// `1 / |v|` of eight vectors at once (0 for a zero vector).
#[target_feature(enable = "avx2,fma")]
fn inverse_lengths(v: &[__m128; LANES]) -> [f32; LANES] {
    let l2: [f32; LANES] = std::array::from_fn(|j| _mm_cvtss_f32(_mm_dp_ps::<0x71>(v[j], v[j])));
    let l2: __m256 = bytemuck::cast(l2);
    let positive = _mm256_cmp_ps::<_CMP_GT_OQ>(l2, _mm256_setzero_ps());
    let inv = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(l2));
    bytemuck::cast(_mm256_and_ps(positive, inv))
}

/// The first three lanes.
#[target_feature(enable = "avx2,fma")]
fn xyz(v: __m128) -> [f32; 3] {
    Vec3A::from(v).to_array()
}
