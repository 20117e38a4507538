//! The AVX2 + FMA path: eight vertices a block, in one of two forms.
//!
//! - **By bone**, when the block of sixteen the eight are half of names at most
//!   sixteen bones (see [`crate::skin_blocks`]): the attributes are transposed to one
//!   register per coordinate of eight vertices; then row by row, the row's four
//!   blended elements `M[e] = Σ_b W_b · P[b][e]` (the eight vertices' weights of bone
//!   `b` times its element `e` broadcast) and that row of every output, `x'_c =
//!   x·M[c] + y·M[3 + c] + z·M[6 + c] + M[9 + c]`; then the directions are
//!   renormalised eight at a time (a square root and a division) and the outputs
//!   interleaved back.
//! - **Per vertex** otherwise: each vertex blends its influences' matrices as two
//!   256-bit halves (`[x axis | y axis]`, `[z axis | translation]`, one fused
//!   multiply-add each per influence) and transforms its attributes with them; the
//!   block's eight normals (and tangents) are then renormalised together, one 8-wide
//!   square root and division.
//!
//! The vertices past the last whole block go through the scalar path.
//!
//! Hand-written with `std::arch` because the blend reads whole matrix columns per
//! vertex, which the compiler does not vectorise from scalar code. `unsafe` is used
//! for the call into the `#[target_feature]` function after the CPU was checked, and
//! for a by-bone block's attribute loads: the block's bounds are checked once, then
//! its eight vertices are read through pointers (checked slices here cost a fifth of
//! the path's speed: the transposition is then not inlined).
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use glam::Vec3A;

use super::ext::Ext;
use super::{Flat, Job, SkinTargets};
use crate::mesh::skin_of;
use crate::palette::PackedBone;
use crate::skin_blocks::Weights16;

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

/// Skins `words` of a mesh with the `SKNX` extension into `out` on this path: dual
/// quaternions with four influences in lanes, every other mesh (and every mesh when
/// the CPU lacks AVX2 or FMA) on the four-lane extension path, which measured faster
/// for them than eight lanes (docs/performance.md, "Skinning methods beside linear
/// skinning").
pub(super) fn skin_ext(job: &Job<'_>, ext: &Ext<'_>, words: &[f32], out: SkinTargets<'_>) {
    let lanes = ext.method == gom::SkinningMethod::DualQuaternion && ext.extra.is_empty();
    if lanes && available() {
        // SAFETY: `ext_blocks` only requires the `avx2` and `fma` target features, and
        // the CPU has both (checked just above).
        unsafe { ext_blocks(job, ext, words, out) }
    } else {
        super::ext::wide4::skin(job, ext, words, out)
    }
}

/// The extension's lanes ([`super::ext::lanes`]) eight vertices a block, compiled
/// for AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
fn ext_blocks(job: &Job<'_>, ext: &Ext<'_>, words: &[f32], out: SkinTargets<'_>) {
    let io = lanes_io!(
        LANES,
        // The generic blend: eight lanes gain little from a transposition here.
        |_: &[f32], _: &[f32], _: bool| None
    );
    super::ext::lanes::skin::<LANES>(job, ext, (words, out), &io)
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

/// Whole blocks of eight vertices: bone by bone when the block of sixteen they are
/// half of is kept so, else one vertex at a time. `RIGID`: normals use the skinning
/// matrices.
#[target_feature(enable = "avx2,fma")]
fn blocks<const RIGID: bool>(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    // No palette entry: `whole_blocks_then_scalar` gave this no vertex.
    let Some(top) = job.packed.len().checked_sub(1) else {
        return;
    };
    // `last < packed.len()` lets the compiler drop the bounds checks after the clamp.
    let packed = &job.packed[..=job.last.min(top)];
    let mut o = Flat::from(out);
    for (q, v) in words.chunks_exact(LANES * job.stride).enumerate() {
        let block = job.blocks.get(q / 2).copied();
        match block.and_then(|b| job.by_bone_of(b)) {
            Some((bones, weights)) => {
                let half = q % 2;
                by_bone::<RIGID>(job, packed, v, (bones, weights, half), q, &mut o);
            }
            None => per_vertex::<RIGID>(job, packed, v, q, &mut o),
        }
    }
}

/// Block `q`'s eight vertices `v` one at a time: each blends its influences' matrices
/// and transforms its attributes; the normals and tangents are renormalised together.
#[target_feature(enable = "avx2,fma")]
fn per_vertex<const RIGID: bool>(
    job: &Job<'_>,
    packed: &[PackedBone],
    v: &[f32],
    q: usize,
    o: &mut Flat<'_>,
) {
    let last = packed.len() - 1;
    let mut n = [_mm_setzero_ps(); LANES];
    let mut t = [_mm_setzero_ps(); LANES];
    let mut tw = [0.0f32; LANES];
    for (j, v) in v.chunks_exact(job.stride).enumerate() {
        let i = q * LANES + j;
        // `j < LANES` already; said so, the compiler drops the checks of `n[j]`, `t[j]`
        // and `tw[j]` (with them the whole path, by-bone blocks included, measured 5 %
        // slower).
        let j = j % LANES;
        let (b, w) = skin_of(v, job.so);
        let b = b.map(|x| usize::from(x).min(last));
        let (a, c) = blend(packed, &b, &w, 0);
        if let Some(p) = o.p.as_deref_mut() {
            put(p, 3 * i, &xyz(apply(a, c, quad(v, 0), 1.0)));
        }
        if o.n.is_some() {
            let (e, f) = if RIGID {
                (a, c)
            } else {
                blend(packed, &b, &w, 1)
            };
            n[j] = apply(e, f, quad(v, job.no), 0.0);
        }
        if o.t.is_some() {
            t[j] = apply(a, c, quad(v, job.to), 0.0);
            tw[j] = v[job.to + 3];
        }
    }
    let at = q * LANES;
    if let Some(out) = o.n.as_deref_mut() {
        let inv = inverse_lengths(&n);
        for j in 0..LANES {
            put(
                out,
                3 * (at + j),
                &xyz(_mm_mul_ps(n[j], _mm_set1_ps(inv[j]))),
            );
        }
    }
    if let Some(out) = o.t.as_deref_mut() {
        let inv = inverse_lengths(&t);
        for j in 0..LANES {
            let [x, y, z] = xyz(_mm_mul_ps(t[j], _mm_set1_ps(inv[j])));
            put(out, 4 * (at + j), &[x, y, z, tw[j]]);
        }
    }
}

/// Writes `v` at `o[at..]` (nothing past the end: the caller's buffers hold every
/// vertex of a whole block).
fn put(o: &mut [f32], at: usize, v: &[f32]) {
    if let Some(d) = o.get_mut(at..at + v.len()) {
        d.copy_from_slice(v);
    }
}

/// Block `q`'s eight vertices `v`, half `half` of a block of sixteen kept by bone
/// (`bones`, `weights`), as a structure of arrays: the attributes are transposed to
/// one register per coordinate; then row by row, the row's four blended elements
/// `M[e] = Σ_b W_b · P[b][e]` eight vertices a register (see `skin_blocks`) and that
/// row of every output; then the directions are renormalised and the outputs
/// interleaved back. (Row by row, a row's four elements stay in registers: the
/// twelve of a whole matrix and the attributes do not fit AVX2's sixteen.)
#[target_feature(enable = "avx2,fma")]
#[inline]
fn by_bone<const RIGID: bool>(
    job: &Job<'_>,
    packed: &[PackedBone],
    v: &[f32],
    (bones, weights, half): (&[u16], &[Weights16], usize),
    q: usize,
    o: &mut Flat<'_>,
) {
    let z = _mm256_setzero_ps();
    let zero = [z; 4];
    let want = |o: &Option<&mut [f32]>, at: usize| {
        if o.is_some() {
            soa(v, job.stride, at)
        } else {
            zero
        }
    };
    let (pi, ni, ti) = (want(&o.p, 0), want(&o.n, job.no), want(&o.t, job.to));
    let (mut po, mut no, mut to) = ([z; 3], [z; 3], [z; 3]);
    for c in 0..3 {
        let r = blend_row(packed, bones, weights, half, false, c);
        if o.p.is_some() {
            po[c] = _mm256_fmadd_ps(
                pi[0],
                r[0],
                _mm256_fmadd_ps(pi[1], r[1], _mm256_fmadd_ps(pi[2], r[2], r[3])),
            );
        }
        if o.n.is_some() {
            let rn = if RIGID {
                r
            } else {
                blend_row(packed, bones, weights, half, true, c)
            };
            no[c] = dir_row(&rn, &ni);
        }
        if o.t.is_some() {
            to[c] = dir_row(&r, &ti);
        }
    }
    if let Some(p) = o.p.as_deref_mut() {
        store3(p, q, &po);
    }
    if let Some(n) = o.n.as_deref_mut() {
        store3(n, q, &unit(no));
    }
    if let Some(t) = o.t.as_deref_mut() {
        let [x, y, z] = unit(to);
        store4(t, q, &[x, y, z, ti[3]]);
    }
}

/// Row `c` of half `half` of a block's blended matrices (`normal`: the normal
/// matrices) from its distinct bones, eight vertices a register: the elements
/// `M[c]`, `M[3 + c]`, `M[6 + c]`, `M[9 + c]` (column by column). Bone indices past
/// the palette are clamped to its last bone.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn blend_row(
    packed: &[PackedBone],
    bones: &[u16],
    weights: &[Weights16],
    half: usize,
    normal: bool,
    c: usize,
) -> [__m256; 4] {
    let last = packed.len() - 1;
    let mut m = [_mm256_setzero_ps(); 4];
    for (&bone, w) in bones.iter().zip(weights) {
        let w: [f32; LANES] = w.0[LANES * half..][..LANES].try_into().unwrap_or_default();
        let w: __m256 = bytemuck::cast(w);
        let p = &packed[usize::from(bone).min(last)];
        let p = if normal { &p.n } else { &p.m };
        for (column, m) in m.iter_mut().enumerate() {
            *m = _mm256_fmadd_ps(w, _mm256_set1_ps(p[4 * column + c]), *m);
        }
    }
    m
}

/// One row of a 3x3 (`r`'s first three elements) times the direction `d`.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn dir_row(r: &[__m256; 4], d: &[__m256; 4]) -> __m256 {
    let e = _mm256_mul_ps(d[2], r[2]);
    _mm256_fmadd_ps(d[0], r[0], _mm256_fmadd_ps(d[1], r[1], e))
}

/// `v / |v|` eight at once (zero for a zero length).
#[target_feature(enable = "avx2,fma")]
#[inline]
fn unit(v: [__m256; 3]) -> [__m256; 3] {
    let [x, y, z] = v;
    let l2 = _mm256_fmadd_ps(x, x, _mm256_fmadd_ps(y, y, _mm256_mul_ps(z, z)));
    let positive = _mm256_cmp_ps::<_CMP_GT_OQ>(l2, _mm256_setzero_ps());
    // A square root and a division, as the per-vertex blocks: exact for a subnormal
    // `l²` (which the 256-bit reciprocal square root estimate takes as 0) and 0 for
    // an infinite one (where its Newton step would give NaN).
    let inv = _mm256_and_ps(
        positive,
        _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(l2)),
    );
    [
        _mm256_mul_ps(x, inv),
        _mm256_mul_ps(y, inv),
        _mm256_mul_ps(z, inv),
    ]
}

/// Four words at word `o` of each of the block's eight vertices as four registers of
/// eight (`x` of vertices 0–7, then `y`, `z`, `w`).
#[target_feature(enable = "avx2,fma")]
#[inline]
fn soa(v: &[f32], stride: usize, o: usize) -> [__m256; 4] {
    // One check for the block's eight loads instead of one each.
    assert!(o + 4 <= stride && v.len() >= LANES * stride);
    let p = v.as_ptr().wrapping_add(o);
    // SAFETY: every load reads the four words at `j·stride + o` for j < 8, and
    // `7·stride + o + 4 ≤ 8·stride ≤ v.len()` (asserted above).
    let q = |j: usize| unsafe { _mm_loadu_ps(p.add(j * stride)) };
    // Vertices j and j + 4 in the two 128-bit lanes, so that the in-lane transpose
    // below leaves the vertices in order.
    let pair = |j: usize| _mm256_set_m128(q(j + 4), q(j));
    transpose4(pair(0), pair(1), pair(2), pair(3))
}

/// Transposes the 4×4 blocks within each 128-bit lane: lane `l` of output `i` holds
/// element `i` of lane `l` of each input, in input order.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn transpose4(a: __m256, b: __m256, c: __m256, d: __m256) -> [__m256; 4] {
    let (t0, t1) = (_mm256_unpacklo_ps(a, b), _mm256_unpackhi_ps(a, b));
    let (t2, t3) = (_mm256_unpacklo_ps(c, d), _mm256_unpackhi_ps(c, d));
    [lo_pd(t0, t2), hi_pd(t0, t2), lo_pd(t1, t3), hi_pd(t1, t3)]
}

/// The low 64-bit halves of each pair of `a` and `b`, interleaved.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn lo_pd(a: __m256, b: __m256) -> __m256 {
    _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(a), _mm256_castps_pd(b)))
}

/// The high 64-bit halves of each pair of `a` and `b`, interleaved.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn hi_pd(a: __m256, b: __m256) -> __m256 {
    _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(a), _mm256_castps_pd(b)))
}

/// Writes `x, y, z` of block `q` into `o` as eight `[f32; 3]`: output register `r`
/// takes float `8r + p` from vertex `(8r + p) / 3`, coordinate `(8r + p) % 3`.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn store3(o: &mut [f32], q: usize, v: &[__m256; 3]) {
    let Some(dst) = o.get_mut(24 * q..24 * q + 24) else {
        return;
    };
    let idx = [
        _mm256_setr_epi32(0, 0, 0, 1, 1, 1, 2, 2),
        _mm256_setr_epi32(2, 3, 3, 3, 4, 4, 4, 5),
        _mm256_setr_epi32(5, 5, 6, 6, 6, 7, 7, 7),
    ];
    let [x, y, z] = *v;
    let pick = |r: usize| {
        let (px, py, pz) = (
            _mm256_permutevar8x32_ps(x, idx[r]),
            _mm256_permutevar8x32_ps(y, idx[r]),
            _mm256_permutevar8x32_ps(z, idx[r]),
        );
        // Coordinate of float p: r = 0 → 0 1 2 0 1 2 0 1, r = 1 → 2 0 1 …, r = 2 → 1 2 0 ….
        match r {
            0 => _mm256_blend_ps::<0x24>(_mm256_blend_ps::<0x92>(px, py), pz),
            1 => _mm256_blend_ps::<0x49>(_mm256_blend_ps::<0x24>(px, py), pz),
            _ => _mm256_blend_ps::<0x92>(_mm256_blend_ps::<0x49>(px, py), pz),
        }
    };
    for (r, d) in dst.chunks_exact_mut(LANES).enumerate() {
        let a: [f32; LANES] = bytemuck::cast(pick(r));
        d.copy_from_slice(&a);
    }
}

/// Writes `x, y, z, w` of block `q` into `o` as eight `[f32; 4]`.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn store4(o: &mut [f32], q: usize, v: &[__m256; 4]) {
    let Some(dst) = o.get_mut(32 * q..32 * q + 32) else {
        return;
    };
    let [x, y, z, w] = *v;
    // Vertex j in lane 0 and j + 4 in lane 1 of register j.
    let r = transpose4(x, y, z, w);
    let ordered = [
        _mm256_permute2f128_ps::<0x20>(r[0], r[1]),
        _mm256_permute2f128_ps::<0x20>(r[2], r[3]),
        _mm256_permute2f128_ps::<0x31>(r[0], r[1]),
        _mm256_permute2f128_ps::<0x31>(r[2], r[3]),
    ];
    for (d, r) in dst.chunks_exact_mut(LANES).zip(ordered) {
        let a: [f32; LANES] = bytemuck::cast(r);
        d.copy_from_slice(&a);
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
