//! The eight-lane decoding path: eight components of a frame at a time, each an AVX2
//! gather of the four bytes holding its bits, a per-lane shift and mask, a conversion
//! and `offset + step · q` (a multiply then an add, no fused multiply-add, so the bits
//! are those of [`Segment::decode_scalar`]; the tests check it).
//!
//! Hand-written with `std::arch` because the compiler does not turn the scalar loop's
//! variable shifts into gathers. `unsafe` is used for the call into the
//! `#[target_feature]` function after the CPU was checked, and for the loads of the
//! component arrays and the gather, whose bounds [`Segment::load`] checked.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use gom::compressed::decode::{inv_qmax_table, INV_255, WIDTH_MASK};
use gom::compressed::SEGMENT_CHANNEL_BYTES;

use super::segment::{ComponentLanes, Segment, LANES};
use super::CompressedClip;

/// Per-lane IEEE square root, one `sqrtps` (the glam vector has none).
#[inline(always)]
pub(crate) fn sqrt4(v: glam::Vec4) -> glam::Vec4 {
    // SAFETY: `sqrtps` needs SSE, which every x86-64 CPU has (the target's baseline).
    unsafe { _mm_sqrt_ps(v.into()) }.into()
}

/// Whether the CPU can run this path.
pub(crate) fn available() -> bool {
    is_x86_feature_detected!("avx2")
}

/// Decodes the frame whose first bit is `base` (in the segment's packed frames) into
/// `out`, on this path when the CPU has AVX2 and the segment's loads were checked
/// ([`Segment::loads_inside`]), else on the scalar one.
pub(crate) fn decode(seg: &Segment, payload: &[u8], base: u32, out: &mut [f32]) {
    // The last byte offset a four-byte load from the packed frames may start at; every
    // gather index is clamped to it, so the loads stay inside `payload` whatever the
    // segment's arrays hold (`loads_inside` only says that no clamp will bite).
    let last = payload
        .len()
        .checked_sub(seg.packed_at)
        .and_then(|n| n.checked_sub(4))
        .and_then(|n| i32::try_from(n).ok());
    if let (true, true, Some(last)) = (available(), seg.loads_inside, last) {
        // SAFETY: `decode_avx2` only requires the `avx2` target feature, and the CPU
        // has it (checked just above); `last` is as its contract asks (computed above).
        unsafe { decode_avx2(seg, payload, base, last, out) }
    } else {
        seg.decode_scalar(payload, base, out);
    }
}

/// See [`decode`]. Safety: the CPU has AVX2, and `seg.packed_at + last + 4 ≤
/// payload.len()` with `0 ≤ last`.
#[target_feature(enable = "avx2")]
unsafe fn decode_avx2(seg: &Segment, payload: &[u8], base: u32, last: i32, out: &mut [f32]) {
    let n = seg.pos.len() / LANES * LANES;
    let n = n
        .min(seg.mask.len())
        .min(seg.off.len())
        .min(seg.step.len())
        .min(seg.dst.len());
    let packed = payload.as_ptr().wrapping_add(seg.packed_at).cast::<i32>();
    let basev = _mm256_set1_epi32(base as i32);
    let seven = _mm256_set1_epi32(7);
    let lastv = _mm256_set1_epi32(last);
    let mut vals = [0.0f32; LANES];
    for j in (0..n).step_by(LANES) {
        // SAFETY: `j + 8 ≤ n`, and `n` is at most each array's length (above), so the
        // four unaligned eight-lane loads read inside the arrays.
        let (pos, mask, off, step) = unsafe {
            (
                _mm256_loadu_si256(seg.pos.as_ptr().add(j).cast()),
                _mm256_loadu_si256(seg.mask.as_ptr().add(j).cast()),
                _mm256_loadu_ps(seg.off.as_ptr().add(j)),
                _mm256_loadu_ps(seg.step.as_ptr().add(j)),
            )
        };
        let p = _mm256_add_epi32(basev, pos);
        // The byte offsets, as unsigned, clamped to `last` (a no-op for a segment whose
        // loads were checked inside, so the bits are the scalar path's).
        let at = _mm256_min_epu32(_mm256_srli_epi32::<3>(p), lastv);
        // SAFETY: each lane reads the four bytes at `packed + at`, with `0 ≤ at ≤ last`,
        // inside `payload` by this function's contract.
        let word = unsafe { _mm256_i32gather_epi32::<1>(packed, at) };
        let q = _mm256_and_si256(_mm256_srlv_epi32(word, _mm256_and_si256(p, seven)), mask);
        let v = _mm256_add_ps(off, _mm256_mul_ps(step, _mm256_cvtepi32_ps(q)));
        // SAFETY: `vals` holds eight floats.
        unsafe { _mm256_storeu_ps(vals.as_mut_ptr(), v) };
        for (&d, &x) in seg.dst[j..j + LANES].iter().zip(&vals) {
            // `d < seg.dst_end` ([`Segment::load`] clamps it); checked here all the
            // same, so that nothing outside this function can make the store unsound.
            if let Some(o) = out.get_mut(d as usize) {
                *o = x;
            }
        }
    }
}

/// [`Segment::load`]'s per-component arrays from the segment record `rec` eight
/// components at a time, on this path when the CPU has AVX2 (else `false`, and
/// nothing is written). The same operations as [`Segment::components`], so the same
/// bits; `seg.first_bit` must already hold the channels' first bits.
pub(crate) fn components(seg: &mut Segment, clip: &CompressedClip<'_>, rec: &[u8]) -> bool {
    let l = &clip.lanes;
    let n = seg.pos.len();
    let a = clip.channels.len();
    let fits = [
        l.channel.len(),
        l.k.len(),
        l.min.len(),
        l.ext.len(),
        l.dst.len(),
    ]
    .iter()
    .chain(&[
        l.rotation.len(),
        l.valid.len(),
        seg.mask.len(),
        seg.off.len(),
    ])
    .chain(&[seg.step.len(), seg.dst.len()])
    .all(|&len| len == n)
        && seg.first_bit.len() == a
        && rec.len() >= a * SEGMENT_CHANNEL_BYTES + 4
        && rec.len() < i32::MAX as usize;
    if !(available() && fits) {
        return false;
    }
    // SAFETY: the CPU has AVX2 (checked just above), and the contract's lengths hold
    // (`fits`): every array is `n` long, `first_bit` has a channel per channel index
    // the lanes name (below `a`), and `rec` holds the record and four bytes more.
    unsafe { components_avx2(seg, l, rec, a) };
    true
}

/// See [`components`]. Safety: the CPU has AVX2; `seg`'s and `l`'s component arrays
/// are all `seg.pos.len()` long, a multiple of [`LANES`]; every `l.channel` is below
/// `a = seg.first_bit.len()`; `rec` holds at least `7a + 4` bytes, fewer than 2^31.
#[target_feature(enable = "avx2")]
unsafe fn components_avx2(seg: &mut Segment, l: &ComponentLanes, rec: &[u8], a: usize) {
    let n = seg.pos.len() / LANES * LANES;
    let bytes = rec.as_ptr().cast::<i32>();
    let byte = _mm256_set1_epi32(0xFF);
    let inv255 = _mm256_set1_ps(INV_255);
    let one = _mm256_set1_epi32(1);
    let last = _mm256_set1_epi32(seg.dst_end.saturating_sub(1) as i32);
    for j in (0..n).step_by(LANES) {
        let ld = |v: &Vec<u32>| {
            // SAFETY: `j + 8 ≤ n ≤ v.len()` (this function's contract).
            unsafe { _mm256_loadu_si256(v.as_ptr().add(j).cast()) }
        };
        let ldf = |v: &Vec<f32>| {
            // SAFETY: as for `ld`.
            unsafe { _mm256_loadu_ps(v.as_ptr().add(j)) }
        };
        let (c, k) = (ld(&l.channel), ld(&l.k));
        // Width bytes at `c`, range bytes at `a + 6c + k` (lo) and three on (hi).
        let lo_at = _mm256_add_epi32(
            _mm256_set1_epi32(a as i32),
            _mm256_add_epi32(_mm256_mullo_epi32(c, _mm256_set1_epi32(6)), k),
        );
        // SAFETY: every offset is below `7a`, and `rec` holds `7a + 4` bytes, so each
        // four-byte load is inside; `first_bit` holds `a` entries and `c < a`.
        let (w, lo, hi, first) = unsafe {
            (
                _mm256_i32gather_epi32::<1>(bytes, c),
                _mm256_i32gather_epi32::<1>(bytes, lo_at),
                _mm256_i32gather_epi32::<1>(bytes, _mm256_add_epi32(lo_at, _mm256_set1_epi32(3))),
                _mm256_i32gather_epi32::<4>(seg.first_bit.as_ptr().cast(), c),
            )
        };
        let w = _mm256_and_si256(w, byte);
        let b = _mm256_and_si256(w, _mm256_set1_epi32(WIDTH_MASK as i32));
        let drop = _mm256_srli_epi32::<5>(w);
        // SAFETY: `b ≤ 31` indexes the 32-entry table.
        let inv_q = unsafe { _mm256_i32gather_ps::<4>(inv_qmax_table().as_ptr(), b) };
        let lo = _mm256_cvtepi32_ps(_mm256_and_si256(lo, byte));
        let hi = _mm256_cvtepi32_ps(_mm256_and_si256(hi, byte));
        let (min, ext) = (ldf(&l.min), ldf(&l.ext));
        let off = _mm256_add_ps(min, _mm256_mul_ps(ext, _mm256_mul_ps(lo, inv255)));
        let step = _mm256_mul_ps(
            _mm256_mul_ps(ext, _mm256_mul_ps(_mm256_sub_ps(hi, lo), inv255)),
            inv_q,
        );
        let mask = _mm256_and_si256(
            _mm256_sub_epi32(_mm256_sllv_epi32(one, b), one),
            ld(&l.valid),
        );
        let pos = _mm256_add_epi32(first, _mm256_mullo_epi32(k, b));
        // A rotation's stored components at or after the dropped one go one field on.
        let shift = _mm256_andnot_si256(_mm256_cmpgt_epi32(drop, k), ld(&l.rotation));
        let dst = _mm256_min_epu32(_mm256_add_epi32(ld(&l.dst), shift), last);
        // SAFETY: `j + 8 ≤ n`, and each destination array is `n` long.
        unsafe {
            _mm256_storeu_si256(seg.pos.as_mut_ptr().add(j).cast(), pos);
            _mm256_storeu_si256(seg.mask.as_mut_ptr().add(j).cast(), mask);
            _mm256_storeu_ps(seg.off.as_mut_ptr().add(j), off);
            _mm256_storeu_ps(seg.step.as_mut_ptr().add(j), step);
            _mm256_storeu_si256(seg.dst.as_mut_ptr().add(j).cast(), dst);
        }
    }
}
