//! The AVX-512 path: sixteen vertices a block, as a structure of arrays.
//!
//! 1. The block's sixteen blended matrices, `M = Σ w_k · P[b_k]` per vertex, are
//!    needed with one matrix element of all sixteen vertices per register. A block
//!    that names at most sixteen bones (see [`crate::skin_blocks`]) gets them bone
//!    by bone: `M[e] = Σ_b W_b · P[b][e]`, the sixteen vertices'
//!    weights of bone `b` times its element `e` broadcast, twelve multiply-adds a
//!    bone. Any other block blends per vertex, the four columns of a bone's matrix
//!    one 512-bit register (one multiply-add an influence), and transposes the
//!    sixteen results (52 shuffles).
//! 2. The block's positions, normals and tangents are transposed likewise (sixteen
//!    128-bit loads, twelve lane inserts and eight shuffles an attribute; a normal
//!    right after its position comes with it, eight words a vertex in one
//!    transposition).
//! 3. The transforms are then sixteen-wide fused multiply-adds with no horizontal
//!    step: `x' = x·M[0][0] + y·M[1][0] + z·M[2][0] + M[3][0]`, and so on. Normals and
//!    tangents are renormalised with the estimated reciprocal square root and one
//!    Newton step, `r' = r·(3/2 − ½·l²·r²)`, within 10⁻⁶ of `1/√l²`.
//! 4. The results are interleaved back into the caller's arrays, sixteen floats a
//!    store.
//!
//! Per vertex and influence that is at most one multiply-add (the blend) where a
//! vertex at a time needs the blend plus splats and a horizontal sum for every
//! attribute.
//! The vertices past the last whole block go through the scalar path.
//!
//! Hand-written with `std::arch` for the same reason as the AVX2 path. `unsafe` is
//! used for the call into the `#[target_feature]` functions after the CPU was checked,
//! and for a block's loads: the block's bounds (and, for the bone matrices, the bone
//! indices) are checked once, then its sixteen vertices are read through pointers,
//! each with its `SAFETY` argument. Stores go through checked slices.
//! `tests/skinning.rs` runs every one of these paths against the scalar path.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::ext::Ext;
use super::{Flat, Job, SkinTargets};
use crate::palette::PackedBone;
use crate::skin_blocks::{SkinBlock, Weights16};

/// Vertices per block: one [`SkinBlock`] describes exactly one block.
const LANES: usize = 16;
const _: () = assert!(LANES == crate::skin_blocks::SKIN_BLOCK);

/// Whether the CPU can run this path.
pub(super) fn available() -> bool {
    // Every feature `skin_blocks` enables, and those `avx512f` implies.
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
        && is_x86_feature_detected!("f16c")
}

/// Skins `words` into `out` on this path (on the AVX2 path when the CPU lacks
/// AVX-512).
pub(super) fn skin(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    if available() {
        // SAFETY: `skin_blocks` requires the `avx512f`, `avx2` and `fma` target
        // features (and `f16c`, which `avx512f` implies); `available` just checked
        // that the CPU has every one.
        unsafe { skin_blocks(job, words, out) }
    } else {
        super::avx2::skin(job, words, out)
    }
}

/// Skins `words` of a mesh with the `SKNX` extension into `out` on this path (on the
/// AVX2 path when the CPU lacks AVX-512).
pub(super) fn skin_ext(job: &Job<'_>, ext: &Ext<'_>, words: &[f32], out: SkinTargets<'_>) {
    if available() {
        // SAFETY: `ext_blocks` requires the `avx512f`, `avx2` and `fma` target
        // features, and `available` just checked that the CPU has every one.
        unsafe { ext_blocks(job, ext, words, out) }
    } else {
        super::avx2::skin_ext(job, ext, words, out)
    }
}

/// The extension's lanes ([`super::ext::lanes`]) sixteen vertices a block, compiled
/// for AVX-512.
#[target_feature(enable = "avx512f,avx2,fma")]
fn ext_blocks(job: &Job<'_>, ext: &Ext<'_>, words: &[f32], out: SkinTargets<'_>) {
    let io = lanes_io!(
        LANES,
        // A block not kept by bone: every vertex's four slots, and the next four,
        // blended (clamped) by this path's own blend, then one transposition, as the
        // linear path's own such blocks.
        |v: &[f32], extra: &[f32], normal: bool| {
            let top = job.packed.len().checked_sub(1)?;
            let packed = &job.packed[..=job.last.min(top)];
            let mut acc = [_mm512_setzero_ps(); LANES];
            blend(v, job.stride, job.so, packed, normal, (4, false), &mut acc);
            if extra.len() == 6 * LANES {
                let mut more = [_mm512_setzero_ps(); LANES];
                blend(extra, 6, 0, packed, normal, (4, false), &mut more);
                for (a, m) in acc.iter_mut().zip(more) {
                    *a = _mm512_add_ps(*a, m);
                }
            }
            Some(transpose(&acc).map(bytemuck::cast))
        }
    );
    super::ext::lanes::skin::<LANES>(job, ext, (words, out), &io)
}

#[target_feature(enable = "avx512f,avx2,fma")]
fn skin_blocks(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    super::whole_blocks_then_scalar(job, words, out, LANES, |words, head| {
        if job.rigid {
            blocks::<true>(job, words, head)
        } else {
            blocks::<false>(job, words, head)
        }
    });
}

/// Whole blocks of sixteen vertices. `RIGID`: normals use the skinning matrices.
#[target_feature(enable = "avx512f,avx2,fma")]
fn blocks<const RIGID: bool>(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    // No palette entry: `whole_blocks_then_scalar` gave this no vertex.
    let Some(top) = job.packed.len().checked_sub(1) else {
        return;
    };
    let packed = &job.packed[..=job.last.min(top)];
    let mut o = Flat::from(out);
    let normal_matrices = !RIGID && o.n.is_some();
    let stride = job.stride;
    // Every block's blend writes all sixteen entries, so they are zeroed once here:
    // zeroing them per block cost sixteen 512-bit stores a block, about 5 % of the time.
    let mut acc = [_mm512_setzero_ps(); LANES];
    let mut accn = [_mm512_setzero_ps(); LANES];
    for (k, v) in words.chunks_exact(LANES * stride).enumerate() {
        let b = job.blocks.get(k).copied().unwrap_or(SkinBlock::UNKNOWN);
        // The blend reads `packed` unclamped only where the block itself says every
        // index is below `packed.len()` (set only by the code that measured them).
        let in_range = b.indices_below(packed.len());
        let columns = job.by_bone_of(b);
        // A macro, not a closure: a closure called twice (skinning and normal
        // matrices) is inlined only while the compiler's size estimate of it stays
        // under its threshold, and out of line the call returns twelve registers
        // through memory and saves every other vector register, a quarter of the
        // time of a scaled mesh's block.
        macro_rules! matrices {
            ($normal:expr, $acc:expr) => {
                match columns {
                    Some((bones, weights)) => blend_by_bone(packed, bones, weights, $normal),
                    None => {
                        let slots = (b.slots(), in_range);
                        blend(v, stride, job.so, packed, $normal, slots, $acc);
                        transpose($acc)
                    }
                }
            };
        }
        let m = matrices!(false, &mut acc);
        let nm = if normal_matrices {
            matrices!(true, &mut accn)
        } else {
            m
        };
        // Each wanted (zeros if not). A normal right after the position (GOM's order)
        // comes with it: one transposition of eight words a vertex instead of two of
        // four. (Inline: as a function this is not inlined, and the call would save and
        // restore every vector register.)
        let xyz = |want: bool, o: usize| {
            let [x, y, z, _] = if want {
                soa(v, stride, o)
            } else {
                [_mm512_setzero_ps(); 4]
            };
            [x, y, z]
        };
        let (pos, nrm) = match (o.p.is_some(), o.n.is_some()) {
            (true, true) if job.no == 3 => {
                let [px, py, pz, nx, ny, nz] = soa6(v, stride);
                ([px, py, pz], [nx, ny, nz])
            }
            (p, n) => (xyz(p, 0), xyz(n, job.no)),
        };
        if let Some(p) = o.p.as_deref_mut() {
            let [x, y, z] = pos;
            let r = [
                point(&m, x, y, z, 0),
                point(&m, x, y, z, 1),
                point(&m, x, y, z, 2),
            ];
            store3(p, k, &r);
        }
        if let Some(n) = o.n.as_deref_mut() {
            let [x, y, z] = nrm;
            store3(n, k, &unit(direction(&nm, x, y, z)));
        }
        if let Some(t) = o.t.as_deref_mut() {
            let [x, y, z, w] = soa(v, stride, job.to);
            let [x, y, z] = unit(direction(&m, x, y, z));
            store4(t, k, &[x, y, z, w]);
        }
    }
}

/// The block's blended matrices (`normal`: the normal matrices) from its distinct
/// bones, already one element of all sixteen vertices a register (`3·column + row`):
/// `M[e] = Σ_b W_b · P[b][e]`, each `P[b][e]` broadcast. Bone indices past the
/// palette are clamped to its last bone, as in [`blend_k`].
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn blend_by_bone(
    packed: &[PackedBone],
    bones: &[u16],
    weights: &[Weights16],
    normal: bool,
) -> [__m512; 12] {
    let last = packed.len() - 1;
    let mut m = [_mm512_setzero_ps(); 12];
    for (&bone, w) in bones.iter().zip(weights) {
        let w: __m512 = bytemuck::cast(w.0);
        let p = &packed[usize::from(bone).min(last)];
        let p = if normal { &p.n } else { &p.m };
        for column in 0..4 {
            for row in 0..3 {
                let e = 3 * column + row;
                m[e] = _mm512_fmadd_ps(w, _mm512_set1_ps(p[4 * column + row]), m[e]);
            }
        }
    }
    m
}

/// The blended matrices of block `v`'s vertices (`normal`: the normal matrices),
/// over the block's `slots`, clamping bone indices unless `in_range` (the block's
/// [`SkinBlock::indices_below`] for `packed.len()`).
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn blend(
    v: &[f32],
    stride: usize,
    so: usize,
    packed: &[PackedBone],
    normal: bool,
    (slots, in_range): (u8, bool),
    acc: &mut [__m512; LANES],
) {
    let f = match (slots, in_range) {
        (1, true) => blend_k::<1, false>,
        (2, true) => blend_k::<2, false>,
        (3, true) => blend_k::<3, false>,
        (_, true) => blend_k::<4, false>,
        (1, false) => blend_k::<1, true>,
        (2, false) => blend_k::<2, true>,
        (3, false) => blend_k::<3, true>,
        (_, false) => blend_k::<4, true>,
    };
    f(v, stride, so, packed, normal, acc)
}

/// `acc[j] = Σ_{k < K} w_k · P[b_k]` for every vertex `j` of the block; `CLAMP`:
/// bone indices past the palette are clamped to its last bone (their weight is 0).
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn blend_k<const K: usize, const CLAMP: bool>(
    v: &[f32],
    stride: usize,
    so: usize,
    packed: &[PackedBone],
    normal: bool,
    acc: &mut [__m512; LANES],
) {
    // One check for the block's skins instead of one per read.
    assert!(so + 6 <= stride && v.len() >= LANES * stride && !packed.is_empty());
    let last = packed.len() - 1;
    let skin = v.as_ptr().wrapping_add(so);
    let m = packed
        .as_ptr()
        .cast::<f32>()
        .wrapping_add(if normal { 16 } else { 0 });
    for (j, a) in acc.iter_mut().enumerate() {
        let at = skin.wrapping_add(j * stride);
        // SAFETY: `j < 16`, `so + 6 ≤ stride` and `v.len() ≥ 16·stride` (asserted
        // above), so the six skin words at `j·stride + so` are in `v`; the first two
        // (four `u16` bone indices) are read as one unaligned `u64`.
        let bones = unsafe { at.cast::<u64>().read_unaligned() }.to_le();
        let bone = |k: usize| {
            let b = ((bones >> (16 * k)) & 0xFFFF) as usize;
            if CLAMP {
                b.min(last)
            } else {
                b
            }
        };
        // SAFETY: as above, the weight words `j·stride + so + 2 + k`, k < 4, are in `v`.
        let weight = |k: usize| unsafe { _mm512_set1_ps(at.add(2 + k).read_unaligned()) };
        // SAFETY: `bone(k) ≤ last < packed.len()`: clamped, or (without `CLAMP`, which
        // `blocks` chooses only when `SkinBlock::indices_below(packed.len())`, whose
        // bound only `SkinBlocks::new` sets, from the indices it read) every index of
        // the block is below `packed.len()`. A `PackedBone` is 32
        // floats on a 64-byte line, so the 16 floats at `32·b` (`+ 16` for the
        // normal matrix) are inside `packed` and aligned for a 512-bit load.
        let matrix = |k: usize| unsafe { _mm512_load_ps(m.add(32 * bone(k))) };
        // Two chains, (w0·P0 + w1·P1) + (w2·P2 + w3·P3), to halve the latency.
        let mut s = _mm512_mul_ps(weight(0), matrix(0));
        if K > 1 {
            s = _mm512_fmadd_ps(weight(1), matrix(1), s);
        }
        if K > 2 {
            let mut u = _mm512_mul_ps(weight(2), matrix(2));
            if K > 3 {
                u = _mm512_fmadd_ps(weight(3), matrix(3), u);
            }
            s = _mm512_add_ps(s, u);
        }
        *a = s;
    }
}

/// Row `c` of the block's matrices times the point `(x, y, z, 1)`, sixteen at once.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn point(m: &[__m512; 12], x: __m512, y: __m512, z: __m512, c: usize) -> __m512 {
    let e = _mm512_fmadd_ps(z, m[6 + c], m[9 + c]);
    _mm512_fmadd_ps(x, m[c], _mm512_fmadd_ps(y, m[3 + c], e))
}

/// The block's 3x3 times the direction `(x, y, z)`, sixteen at once.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn direction(m: &[__m512; 12], x: __m512, y: __m512, z: __m512) -> [__m512; 3] {
    [
        dir_row(m, x, y, z, 0),
        dir_row(m, x, y, z, 1),
        dir_row(m, x, y, z, 2),
    ]
}

/// Row `c` of [`direction`].
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn dir_row(m: &[__m512; 12], x: __m512, y: __m512, z: __m512, c: usize) -> __m512 {
    let e = _mm512_mul_ps(z, m[6 + c]);
    _mm512_fmadd_ps(x, m[c], _mm512_fmadd_ps(y, m[3 + c], e))
}

/// `v / |v|` sixteen at once (zero for a zero or infinite length).
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn unit(v: [__m512; 3]) -> [__m512; 3] {
    let [x, y, z] = v;
    let l2 = _mm512_fmadd_ps(x, x, _mm512_fmadd_ps(y, y, _mm512_mul_ps(z, z)));
    let r = _mm512_rsqrt14_ps(l2);
    // One Newton step: r' = r·(3/2 − (½·l²·r)·r).
    let hr = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5), l2), r);
    let r = _mm512_mul_ps(r, _mm512_fnmadd_ps(hr, r, _mm512_set1_ps(1.5)));
    let ok = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(l2, _mm512_setzero_ps())
        & _mm512_cmp_ps_mask::<_CMP_LT_OQ>(l2, _mm512_set1_ps(f32::INFINITY));
    [
        _mm512_maskz_mul_ps(ok, x, r),
        _mm512_maskz_mul_ps(ok, y, r),
        _mm512_maskz_mul_ps(ok, z, r),
    ]
}

/// Four words at word `o` of every vertex of the block, as four registers of sixteen
/// (`x` of vertices 0–15, then `y`, `z`, `w`).
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn soa(v: &[f32], stride: usize, o: usize) -> [__m512; 4] {
    // One check for the block's sixteen loads instead of one each.
    assert!(o + 4 <= stride && v.len() >= LANES * stride);
    let p = v.as_ptr().wrapping_add(o);
    // SAFETY: every load reads the four words at `j·stride + o` for j < 16, and
    // `15·stride + o + 4 ≤ 16·stride ≤ v.len()` (asserted above).
    let q = |j: usize| unsafe { _mm_loadu_ps(p.add(j * stride)) };
    // Register `j` holds vertices j, j + 4, j + 8, j + 12, one per 128-bit lane, so
    // that the in-lane transpose below leaves the vertices in order.
    let z = |j: usize| {
        let r = _mm512_castps128_ps512(q(j));
        let r = _mm512_insertf32x4::<1>(r, q(j + 4));
        let r = _mm512_insertf32x4::<2>(r, q(j + 8));
        _mm512_insertf32x4::<3>(r, q(j + 12))
    };
    let (a, b, c, d) = (z(0), z(1), z(2), z(3));
    let (t0, t1) = (_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
    let (t2, t3) = (_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
    [lo_pd(t0, t2), hi_pd(t0, t2), lo_pd(t1, t3), hi_pd(t1, t3)]
}

/// Words 0–5 of every vertex of the block (position and normal) as six registers of
/// sixteen. Each vertex's first eight words are loaded as one 256-bit half; eight
/// registers of two vertices each then go through an 8×8 transpose within each
/// 256-bit half (unpacks of 32 and 64 bits), and a last step of 128-bit lane shuffles
/// puts the vertices in order: 8 loads, 8 inserts and 22 shuffles where two
/// four-word transpositions take 16 loads, 24 inserts and 16 shuffles.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn soa6(v: &[f32], stride: usize) -> [__m512; 6] {
    // One check for the block's sixteen loads instead of one each.
    assert!(8 <= stride && v.len() >= LANES * stride);
    let p = v.as_ptr();
    // SAFETY: every load reads the eight words at `j·stride` for j < 16, and
    // `15·stride + 8 ≤ 16·stride ≤ v.len()` (asserted above).
    let y = |j: usize| unsafe { _mm256_castps_pd(_mm256_loadu_ps(p.add(j * stride))) };
    // Register `r` holds vertices a and a + 4, so that the last step below leaves
    // the vertices in order.
    let z = |a: usize| {
        let lo = _mm512_castpd256_pd512(y(a));
        _mm512_castpd_ps(_mm512_insertf64x4::<1>(lo, y(a + 4)))
    };
    let zs = [z(0), z(1), z(2), z(3), z(8), z(9), z(10), z(11)];
    let t = |a: usize, hi: bool| {
        if hi {
            _mm512_unpackhi_ps(zs[a], zs[a + 1])
        } else {
            _mm512_unpacklo_ps(zs[a], zs[a + 1])
        }
    };
    let (t0, t1, t2, t3) = (t(0, false), t(0, true), t(2, false), t(2, true));
    let (t4, t5, t6, t7) = (t(4, false), t(4, true), t(6, false), t(6, true));
    // Lane l of u_w: word w (l even) or w + 4 (l odd) of four vertices.
    let u = [
        lo_pd(t0, t2),
        hi_pd(t0, t2),
        lo_pd(t1, t3),
        hi_pd(t1, t3),
        lo_pd(t4, t6),
        hi_pd(t4, t6),
        lo_pd(t5, t7),
        hi_pd(t5, t7),
    ];
    let low = |w: usize| _mm512_shuffle_f32x4::<0b10_00_10_00>(u[w], u[w + 4]);
    let high = |w: usize| _mm512_shuffle_f32x4::<0b11_01_11_01>(u[w], u[w + 4]);
    [low(0), low(1), low(2), low(3), high(0), high(1)]
}

/// The low 64-bit halves of each pair of `a` and `b`, interleaved.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn lo_pd(a: __m512, b: __m512) -> __m512 {
    _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)))
}

/// The high 64-bit halves of each pair of `a` and `b`, interleaved.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn hi_pd(a: __m512, b: __m512) -> __m512 {
    _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)))
}

/// Transposes the 128-bit lanes of four registers: lane `l` of output `i` is lane `i`
/// of input `l`.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn transpose_lanes(a: __m512, b: __m512, c: __m512, d: __m512) -> [__m512; 4] {
    let s0 = _mm512_shuffle_f32x4::<0b01_00_01_00>(a, b);
    let s1 = _mm512_shuffle_f32x4::<0b11_10_11_10>(a, b);
    let s2 = _mm512_shuffle_f32x4::<0b01_00_01_00>(c, d);
    let s3 = _mm512_shuffle_f32x4::<0b11_10_11_10>(c, d);
    [
        _mm512_shuffle_f32x4::<0b10_00_10_00>(s0, s2),
        _mm512_shuffle_f32x4::<0b11_01_11_01>(s0, s2),
        _mm512_shuffle_f32x4::<0b10_00_10_00>(s1, s3),
        _mm512_shuffle_f32x4::<0b11_01_11_01>(s1, s3),
    ]
}

/// The sixteen blended matrices (one register each: columns x, y, z, translation)
/// as twelve registers of one element each: `3·column + row`.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn transpose(a: &[__m512; LANES]) -> [__m512; 12] {
    let g = [
        elements(a, 0),
        elements(a, 1),
        elements(a, 2),
        elements(a, 3),
    ];
    let mut out = [_mm512_setzero_ps(); 12];
    for e in 0..3 {
        let cols = transpose_lanes(g[0][e], g[1][e], g[2][e], g[3][e]);
        for (column, r) in cols.into_iter().enumerate() {
            out[3 * column + e] = r;
        }
    }
    out
}

/// Per group `g` of four vertices, element x, y and z of every column, the vertices
/// in order within each 128-bit lane (lane = column).
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn elements(a: &[__m512; LANES], g: usize) -> [__m512; 3] {
    let (r0, r1, r2, r3) = (a[4 * g], a[4 * g + 1], a[4 * g + 2], a[4 * g + 3]);
    let (lo01, hi01) = (_mm512_unpacklo_ps(r0, r1), _mm512_unpackhi_ps(r0, r1));
    let (lo23, hi23) = (_mm512_unpacklo_ps(r2, r3), _mm512_unpackhi_ps(r2, r3));
    [lo_pd(lo01, lo23), hi_pd(lo01, lo23), lo_pd(hi01, hi23)]
}

/// `permutex2var` indices interleaving three registers `x, y, z` of sixteen into
/// `[x0 y0 z0 x1 …]`: for output register `r`, step 1 takes `x` and `y`, step 2 puts
/// `z` in.
const fn interleave3(r: usize, step: usize) -> [i32; 16] {
    let mut idx = [0i32; 16];
    let mut p = 0;
    while p < 16 {
        let g = 16 * r + p;
        let (vertex, c) = ((g / 3) as i32, g % 3);
        idx[p] = match (step, c) {
            (1, 0) => vertex,
            (1, 1) => 16 + vertex,
            (1, _) => 0,
            (_, 2) => 16 + vertex,
            _ => p as i32,
        };
        p += 1;
    }
    idx
}

const I3: [[[i32; 16]; 2]; 3] = [
    [interleave3(0, 1), interleave3(0, 2)],
    [interleave3(1, 1), interleave3(1, 2)],
    [interleave3(2, 1), interleave3(2, 2)],
];

/// Writes `x, y, z` of block `k` into `o` as sixteen `[f32; 3]`.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn store3(o: &mut [f32], k: usize, v: &[__m512; 3]) {
    let Some(dst) = o.get_mut(48 * k..48 * k + 48) else {
        return;
    };
    for (r, d) in dst.chunks_exact_mut(16).enumerate() {
        let [i1, i2] = I3[r].map(bytemuck::cast::<[i32; 16], __m512i>);
        let xy = _mm512_permutex2var_ps(v[0], i1, v[1]);
        let xyz: [f32; 16] = bytemuck::cast(_mm512_permutex2var_ps(xy, i2, v[2]));
        d.copy_from_slice(&xyz);
    }
}

/// Writes `x, y, z, w` of block `k` into `o` as sixteen `[f32; 4]`.
#[target_feature(enable = "avx512f,avx2,fma")]
#[inline]
fn store4(o: &mut [f32], k: usize, v: &[__m512; 4]) {
    let Some(dst) = o.get_mut(64 * k..64 * k + 64) else {
        return;
    };
    let [x, y, z, w] = *v;
    let (t0, t1) = (_mm512_unpacklo_ps(x, y), _mm512_unpackhi_ps(x, y));
    let (t2, t3) = (_mm512_unpacklo_ps(z, w), _mm512_unpackhi_ps(z, w));
    // Output `e`'s lane `m` is vertex 4m + e; transposing the lanes puts four
    // consecutive vertices in each register.
    let r = transpose_lanes(lo_pd(t0, t2), hi_pd(t0, t2), lo_pd(t1, t3), hi_pd(t1, t3));
    for (d, r) in dst.chunks_exact_mut(16).zip(r) {
        let a: [f32; 16] = bytemuck::cast(r);
        d.copy_from_slice(&a);
    }
}
