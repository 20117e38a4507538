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

use super::{Job, SkinTargets};
use crate::mesh::skin_of;
use crate::palette::PackedBone;

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
    super::whole_blocks_then_scalar(job, words, out, LANES, |words, head| {
        if job.rigid {
            blocks::<true>(job, words, head)
        } else {
            blocks::<false>(job, words, head)
        }
    });
}

/// Whole blocks of eight vertices. `RIGID`: normals use the skinning matrices.
#[target_feature(enable = "avx2,fma")]
fn blocks<const RIGID: bool>(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    // No palette entry: `whole_blocks_then_scalar` gave this no vertex.
    let Some(top) = job.packed.len().checked_sub(1) else {
        return;
    };
    // `last < packed.len()` lets the compiler drop the bounds checks after the clamp.
    let packed = &job.packed[..=job.last.min(top)];
    let last = packed.len() - 1;
    let SkinTargets {
        mut positions,
        mut normals,
        mut tangents,
    } = out;
    let mut n = [_mm_setzero_ps(); LANES];
    let mut t = [_mm_setzero_ps(); LANES];
    let mut tw = [0.0f32; LANES];
    for (i, v) in words.chunks_exact(job.stride).enumerate() {
        let j = i % LANES;
        let (b, w) = skin_of(v, job.so);
        let b = b.map(|x| usize::from(x).min(last));
        let (a, c) = blend(packed, &b, &w, 0);
        if let Some(p) = positions.as_deref_mut() {
            p[i] = xyz(apply(a, c, quad(v, 0), 1.0));
        }
        if normals.is_some() {
            let (e, f) = if RIGID {
                (a, c)
            } else {
                blend(packed, &b, &w, 1)
            };
            n[j] = apply(e, f, quad(v, job.no), 0.0);
        }
        if tangents.is_some() {
            t[j] = apply(a, c, quad(v, job.to), 0.0);
            tw[j] = v[job.to + 3];
        }
        if j == LANES - 1 {
            let at = i + 1 - LANES;
            if let Some(o) = normals.as_deref_mut() {
                let inv = inverse_lengths(&n);
                for j in 0..LANES {
                    o[at + j] = xyz(_mm_mul_ps(n[j], _mm_set1_ps(inv[j])));
                }
            }
            if let Some(o) = tangents.as_deref_mut() {
                let inv = inverse_lengths(&t);
                for j in 0..LANES {
                    let [x, y, z] = xyz(_mm_mul_ps(t[j], _mm_set1_ps(inv[j])));
                    o[at + j] = [x, y, z, tw[j]];
                }
            }
        }
    }
}

/// Four words from `o` (the attribute and the next word, which every skinned vertex
/// has: the skin comes last).
#[target_feature(enable = "avx2,fma")]
fn quad(v: &[f32], o: usize) -> __m128 {
    let q: [f32; 4] = v[o..o + 4].try_into().unwrap_or_default();
    bytemuck::cast(q)
}

/// A 256-bit half of a packed matrix.
#[target_feature(enable = "avx2,fma")]
fn half(m: &[f32; 16], k: usize) -> __m256 {
    let h: [f32; 8] = m[8 * k..8 * k + 8].try_into().unwrap_or_default();
    bytemuck::cast(h)
}

/// The weighted sum of the influences' matrices (`which`: 0 skinning, 1 normal) as
/// `[x | y]`, `[z | t]` columns. Influences of weight 0 are skipped (they would add
/// zeros).
#[target_feature(enable = "avx2,fma")]
fn blend(packed: &[PackedBone], b: &[usize; 4], w: &[f32; 4], which: usize) -> (__m256, __m256) {
    let m = pick(&packed[b[0]], which);
    let w0 = _mm256_set1_ps(w[0]);
    let mut a = _mm256_mul_ps(w0, half(m, 0));
    let mut c = _mm256_mul_ps(w0, half(m, 1));
    for k in 1..4 {
        if w[k] != 0.0 {
            let m = pick(&packed[b[k]], which);
            let wk = _mm256_set1_ps(w[k]);
            a = _mm256_fmadd_ps(wk, half(m, 0), a);
            c = _mm256_fmadd_ps(wk, half(m, 1), c);
        }
    }
    (a, c)
}

/// Bone matrix `which` (0 skinning, 1 normal).
#[inline(always)]
fn pick(p: &PackedBone, which: usize) -> &[f32; 16] {
    if which == 0 {
        &p.m
    } else {
        &p.n
    }
}

/// `x·c0 + y·c1 + z·c2 + t·c3` for the columns `a = [c0 | c1]`, `c = [c2 | c3]`, the
/// vector `q = (x, y, z, ·)` and `t` (1 for a point, 0 for a direction).
#[target_feature(enable = "avx2,fma")]
fn apply(a: __m256, c: __m256, q: __m128, t: f32) -> __m128 {
    let qq = _mm256_set_m128(q, q);
    // [x x x x | y y y y] and [z z z z | t t t t].
    let xy = _mm256_permutevar_ps(qq, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    let z = _mm256_permutevar_ps(qq, _mm256_set1_epi32(2));
    let zt = _mm256_blend_ps::<0xF0>(z, _mm256_set1_ps(t));
    let r = _mm256_fmadd_ps(a, xy, _mm256_mul_ps(c, zt));
    _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps::<1>(r))
}
/// `1 / |v|` of eight vectors at once (0 for a zero vector). The fourth lanes are 0
/// (the packed matrices' fourth lanes are).
#[target_feature(enable = "avx2,fma")]
fn inverse_lengths(v: &[__m128; LANES]) -> [f32; LANES] {
    let sq = |j: usize| _mm256_set_m128(_mm_mul_ps(v[j + 4], v[j + 4]), _mm_mul_ps(v[j], v[j]));
    // Horizontal sums: [|v0|² |v1|² |v2|² |v3|² | |v4|² … |v7|²].
    let l2 = _mm256_hadd_ps(_mm256_hadd_ps(sq(0), sq(1)), _mm256_hadd_ps(sq(2), sq(3)));
    let positive = _mm256_cmp_ps::<_CMP_GT_OQ>(l2, _mm256_setzero_ps());
    let inv = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(l2));
    bytemuck::cast(_mm256_and_ps(positive, inv))
}

/// The first three lanes.
#[target_feature(enable = "avx2,fma")]
fn xyz(v: __m128) -> [f32; 3] {
    Vec3A::from(v).to_array()
}
