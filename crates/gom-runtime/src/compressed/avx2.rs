//! The eight-lane decoding path: eight lanes of a frame at a time (two four-float
//! fields, see [`Lanes`]), each an AVX2 gather of the four bytes holding its bits, a
//! per-lane shift and mask, a conversion and `offset + step · q` (a multiply then an
//! add, no fused multiply-add, so the bits are those of [`Segment::decode_scalar`]),
//! stored with two masked four-float writes; one or two frames per pass over the
//! segment's arrays. The rotations are then restored eight bones at a time with the
//! operations of [`Segment::restore`]. The tests check both against the scalar path.
//!
//! Hand-written with `std::arch` because the compiler does not turn the scalar loop's
//! variable shifts into gathers. `unsafe` is used for the calls into the
//! `#[target_feature]` functions after the CPU was checked, and for the loads and
//! stores whose bounds are checked once before each loop.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use gom::compressed::decode::{inv_qmax_table, INV_255, WIDTH_MASK};
use gom::compressed::SEGMENT_CHANNEL_BYTES;

use super::segment::{Lanes, Segment, LANES};
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

/// Whether the plan's and the segment's arrays have the lengths the eight-lane loops
/// assume: `n` lanes (a multiple of [`LANES`]) with a quad per four, rotation lanes
/// a multiple of [`LANES`] with a group per four.
fn arrays_fit(seg: &Segment, l: &Lanes) -> bool {
    let n = l.channel.len();
    let r = l.rot_channel.len();
    n.is_multiple_of(LANES)
        && r.is_multiple_of(LANES)
        && [
            l.k.len(),
            l.min.len(),
            l.ext.len(),
            l.valid.len(),
            seg.pos.len(),
            seg.mask.len(),
            seg.off.len(),
        ]
        .iter()
        .chain(&[seg.step.len()])
        .all(|&len| len == n)
        && l.quad_at.len() * 4 == n
        && l.rot_valid.len() == r
        && seg.drop.len() == r
        && l.rot_at.len() * 4 == r
}

/// Decodes the frames whose first bits are `base` (in the segment's packed frames)
/// into `out` and restores their rotations, on this path when the CPU has AVX2, the
/// segment's loads were checked ([`Segment::loads_inside`]) and every output holds
/// the plan's floats; else `false`, and nothing is written.
pub(crate) fn decode<const N: usize>(
    seg: &Segment,
    l: &Lanes,
    payload: &[u8],
    base: [u32; N],
    out: [&mut [f32]; N],
) -> bool {
    // The last byte offset a four-byte load from the packed frames may start at; every
    // gather index is clamped to it, so the loads stay inside `payload` whatever the
    // segment's arrays hold (`loads_inside` only says that no clamp will bite).
    let last = payload
        .len()
        .checked_sub(seg.packed_at)
        .and_then(|n| n.checked_sub(4))
        .and_then(|n| i32::try_from(n).ok());
    let fits = arrays_fit(seg, l) && out.iter().all(|o| o.len() >= l.end.max(16) as usize);
    let (true, true, true, Some(last)) = (available(), seg.loads_inside, fits, last) else {
        return false;
    };
    let out = out.map(|o| o.as_mut_ptr());
    // SAFETY: the CPU has AVX2 (checked just above); `last` is as the contract asks
    // (computed above); the arrays fit and every output holds `l.end` floats and at
    // least 16 (`fits`).
    unsafe {
        decode_avx2(seg, l, payload, base, last, out);
        for o in out {
            restore_avx2(seg, l, o);
        }
    }
    true
}

/// See [`decode`]. Safety: the CPU has AVX2; `seg.packed_at + last + 4 ≤
/// payload.len()` with `0 ≤ last`; [`arrays_fit`]; each `out` points to at least
/// `max(l.end, 16)` floats.
#[target_feature(enable = "avx2")]
unsafe fn decode_avx2<const N: usize>(
    seg: &Segment,
    l: &Lanes,
    payload: &[u8],
    base: [u32; N],
    last: i32,
    out: [*mut f32; N],
) {
    let n = l.channel.len();
    let packed = payload.as_ptr().wrapping_add(seg.packed_at).cast::<i32>();
    let seven = _mm256_set1_epi32(7);
    let lastv = _mm256_set1_epi32(last);
    let basev = base.map(|b| _mm256_set1_epi32(b as i32));
    // Every quad's address is clamped to it, so the stores stay inside `out` whatever
    // the plan holds (a no-op for a plan built by `Lanes::new`).
    let max_at = l.end.max(16) as usize - 4;
    for j in (0..n).step_by(LANES) {
        // SAFETY: `j + 8 ≤ n`, the length of each array (the contract), so the
        // eight-lane loads read inside them; the quad pair `j / 4`, `j / 4 + 1` exists.
        let (pos, mask, off, step, valid, lo_at, hi_at) = unsafe {
            (
                _mm256_loadu_si256(seg.pos.as_ptr().add(j).cast()),
                _mm256_loadu_si256(seg.mask.as_ptr().add(j).cast()),
                _mm256_loadu_ps(seg.off.as_ptr().add(j)),
                _mm256_loadu_ps(seg.step.as_ptr().add(j)),
                _mm256_loadu_si256(l.valid.as_ptr().add(j).cast()),
                (*l.quad_at.get_unchecked(j / 4) as usize).min(max_at),
                (*l.quad_at.get_unchecked(j / 4 + 1) as usize).min(max_at),
            )
        };
        let (valid_lo, valid_hi) = (
            _mm256_castsi256_si128(valid),
            _mm256_extracti128_si256::<1>(valid),
        );
        for (b, o) in basev.iter().zip(out) {
            let p = _mm256_add_epi32(*b, pos);
            // The byte offsets, as unsigned, clamped to `last` (a no-op for a segment
            // whose loads were checked inside, so the bits are the scalar path's).
            let at = _mm256_min_epu32(_mm256_srli_epi32::<3>(p), lastv);
            // SAFETY: each lane reads the four bytes at `packed + at`, with
            // `0 ≤ at ≤ last`, inside `payload` by this function's contract.
            let word = unsafe { _mm256_i32gather_epi32::<1>(packed, at) };
            let q = _mm256_and_si256(_mm256_srlv_epi32(word, _mm256_and_si256(p, seven)), mask);
            let v = _mm256_add_ps(off, _mm256_mul_ps(step, _mm256_cvtepi32_ps(q)));
            // SAFETY: each quad's four floats lie below `max(l.end, 16)` (the clamp
            // above), inside `out`.
            unsafe {
                _mm_maskstore_ps(o.add(lo_at), valid_lo, _mm256_castps256_ps128(v));
                _mm_maskstore_ps(o.add(hi_at), valid_hi, _mm256_extractf128_ps::<1>(v));
            }
        }
    }
}

/// [`Segment::restore`] eight bones at a time (two groups). Safety: the CPU has AVX2;
/// [`arrays_fit`]; `out` points to at least `max(l.end, 16)` floats.
#[target_feature(enable = "avx2")]
unsafe fn restore_avx2(seg: &Segment, l: &Lanes, out: *mut f32) {
    let one = _mm256_set1_ps(1.0);
    // Every group's address is clamped to it, so the loads and stores stay inside
    // `out` whatever the plan holds (a no-op for a plan built by `Lanes::new`).
    let max_at = l.end.max(16) as usize - 16;
    for p in 0..l.rot_at.len() / 2 {
        // SAFETY: the groups `2p` and `2p + 1` exist and `drop` holds four lanes per
        // group (the contract), so the loads are inside; each group's sixteen floats
        // lie below `max(l.end, 16)` (the clamp), inside `out`.
        let (a0, a1, d) = unsafe {
            (
                out.add((*l.rot_at.get_unchecked(2 * p) as usize).min(max_at)),
                out.add((*l.rot_at.get_unchecked(2 * p + 1) as usize).min(max_at)),
                _mm256_loadu_si256(seg.drop.as_ptr().add(8 * p).cast()),
            )
        };
        // SAFETY: as above, inside the groups' sixteen floats.
        let v: [__m256; 4] =
            std::array::from_fn(|m| unsafe { _mm256_loadu2_m128(a1.add(4 * m), a0.add(4 * m)) });
        let dropped: [__m256; 4] = std::array::from_fn(|m| {
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(m as i32)))
        });
        let animated = _mm256_castsi256_ps(_mm256_cmpgt_epi32(d, _mm256_set1_epi32(-1)));
        let [s0, s1, s2, _] = v;
        let n = _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(s0, s0), _mm256_mul_ps(s1, s1)),
            _mm256_mul_ps(s2, s2),
        );
        let inside = _mm256_cmp_ps::<_CMP_LT_OQ>(n, one);
        let c = _mm256_and_ps(inside, _mm256_sqrt_ps(_mm256_sub_ps(one, n)));
        let k = if _mm256_movemask_ps(inside) == 0xFF {
            [s0, s1, s2]
        } else {
            let s = _mm256_div_ps(one, _mm256_sqrt_ps(n));
            [s0, s1, s2].map(|x| _mm256_blendv_ps(_mm256_mul_ps(x, s), x, inside))
        };
        let d01 = _mm256_or_ps(dropped[0], dropped[1]);
        let r = [
            _mm256_blendv_ps(k[0], c, dropped[0]),
            _mm256_blendv_ps(_mm256_blendv_ps(k[1], k[0], dropped[0]), c, dropped[1]),
            _mm256_blendv_ps(_mm256_blendv_ps(k[2], k[1], d01), c, dropped[2]),
            _mm256_blendv_ps(k[2], c, dropped[3]),
        ];
        for m in 0..4 {
            let x = _mm256_blendv_ps(v[m], r[m], animated);
            // SAFETY: as above.
            unsafe { _mm256_storeu2_m128(a1.add(4 * m), a0.add(4 * m), x) };
        }
    }
}

/// [`super::segment::first_bits`] eight channels at a time when the CPU has AVX2 (an
/// in-register prefix sum), the same sums.
pub(crate) fn first_bits(widths: &[u8], reduce: &[u8], out: &mut [u32]) -> u32 {
    let n = widths.len().min(reduce.len()).min(out.len());
    if !available() {
        return super::segment::first_bits(widths, reduce, out);
    }
    // SAFETY: the CPU has AVX2 (checked just above), and `n` is within every slice.
    let (done, carry) = unsafe { first_bits_avx2(widths, reduce, out, n) };
    let (w, r, rest) = (&widths[done..n], &reduce[done..n], &mut out[done..n]);
    let tail = super::segment::first_bits(w, r, rest);
    for o in rest.iter_mut() {
        *o += carry;
    }
    carry + tail
}

/// See [`first_bits`]: the channels below `n / 8 · 8`, their count, and the bits of a
/// frame they take. Safety: the CPU has AVX2; `n` is at most each slice's length.
#[target_feature(enable = "avx2")]
unsafe fn first_bits_avx2(widths: &[u8], reduce: &[u8], out: &mut [u32], n: usize) -> (usize, u32) {
    let three = _mm256_set1_epi32(3);
    let zero = _mm256_setzero_si256();
    let width_mask = _mm256_set1_epi32(i32::from(WIDTH_MASK));
    let high_half = _mm256_setr_epi32(0, 0, 0, 0, -1, -1, -1, -1);
    let mut carry = 0u32;
    let end = n / LANES * LANES;
    for j in (0..end).step_by(LANES) {
        // SAFETY: `j + 8 ≤ n`, within both byte slices and `out`.
        let (w, r) = unsafe {
            (
                _mm256_cvtepu8_epi32(_mm_loadl_epi64(widths.as_ptr().add(j).cast())),
                _mm256_cvtepu8_epi32(_mm_loadl_epi64(reduce.as_ptr().add(j).cast())),
            )
        };
        let b = _mm256_and_si256(w, width_mask);
        let part = |shift: i32| {
            let d = _mm256_and_si256(_mm256_srlv_epi32(r, _mm256_set1_epi32(shift)), three);
            _mm256_max_epi32(_mm256_sub_epi32(b, d), zero)
        };
        let bits = _mm256_add_epi32(_mm256_add_epi32(part(0), part(2)), part(4));
        // Inclusive prefix sums within each half, then the low half's total added to
        // the high half.
        let x = _mm256_add_epi32(bits, _mm256_slli_si256::<4>(bits));
        let x = _mm256_add_epi32(x, _mm256_slli_si256::<8>(x));
        let low_total = _mm256_permutevar8x32_epi32(x, three);
        let x = _mm256_add_epi32(x, _mm256_and_si256(low_total, high_half));
        let first = _mm256_add_epi32(_mm256_sub_epi32(x, bits), _mm256_set1_epi32(carry as i32));
        // SAFETY: as above.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(j).cast(), first) };
        carry = carry.wrapping_add(_mm256_extract_epi32::<7>(x) as u32);
    }
    (end, carry)
}

/// [`Segment::load`]'s per-lane arrays from the segment record `rec` eight lanes at a
/// time, on this path when the CPU has AVX2 (else `false`, and nothing is written).
/// The same operations as [`Segment::setup`], so the same bits; `seg.first_bit` must
/// already hold the channels' first bits.
pub(crate) fn setup(seg: &mut Segment, clip: &CompressedClip<'_>, rec: &[u8]) -> bool {
    let l = &clip.lanes;
    let a = clip.channels.len();
    let fits = arrays_fit(seg, l)
        && seg.first_bit.len() == a
        && a > 0
        && rec.len() >= a * SEGMENT_CHANNEL_BYTES + 4
        && rec.len() < i32::MAX as usize;
    if !(available() && fits) {
        return false;
    }
    // SAFETY: the CPU has AVX2 (checked just above), and the contract's lengths hold
    // (`fits`).
    unsafe { setup_avx2(seg, l, rec, a) };
    true
}

/// See [`setup`]. Safety: the CPU has AVX2; [`arrays_fit`]; `a = seg.first_bit.len()
/// > 0`; `rec` holds at least `8a + 4` bytes, fewer than 2^31.
#[target_feature(enable = "avx2")]
unsafe fn setup_avx2(seg: &mut Segment, l: &Lanes, rec: &[u8], a: usize) {
    let bytes = rec.as_ptr().cast::<i32>();
    let byte = _mm256_set1_epi32(0xFF);
    let inv255 = _mm256_set1_ps(INV_255);
    let one = _mm256_set1_epi32(1);
    let two = _mm256_set1_epi32(2);
    let three = _mm256_set1_epi32(3);
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi32(a as i32 - 1);
    let ld = |v: &Vec<u32>, j: usize| {
        // SAFETY: every caller passes `j + 8 ≤ v.len()` (the loops below and
        // `arrays_fit`).
        unsafe { _mm256_loadu_si256(v.as_ptr().add(j).cast()) }
    };
    for j in (0..l.channel.len()).step_by(LANES) {
        // Channels and components clamped to those that exist, so every gather below
        // reads inside `rec` and `first_bit` whatever the plan holds.
        let c = _mm256_min_epu32(ld(&l.channel, j), top);
        let k = _mm256_min_epu32(ld(&l.k, j), two);
        // Width bytes at `c`, reduction bytes at `a + c`, range bytes at
        // `2a + 6c + k` (lo) and three on (hi).
        let lo_at = _mm256_add_epi32(
            _mm256_set1_epi32(2 * a as i32),
            _mm256_add_epi32(_mm256_mullo_epi32(c, _mm256_set1_epi32(6)), k),
        );
        // SAFETY: every offset is below `8a`, and `rec` holds `8a + 4` bytes, so each
        // four-byte load is inside; `first_bit` holds `a` entries and `c < a`.
        let (w, red, lo, hi, first) = unsafe {
            (
                _mm256_i32gather_epi32::<1>(bytes, c),
                _mm256_i32gather_epi32::<1>(
                    bytes,
                    _mm256_add_epi32(c, _mm256_set1_epi32(a as i32)),
                ),
                _mm256_i32gather_epi32::<1>(bytes, lo_at),
                _mm256_i32gather_epi32::<1>(bytes, _mm256_add_epi32(lo_at, _mm256_set1_epi32(3))),
                _mm256_i32gather_epi32::<4>(seg.first_bit.as_ptr().cast(), c),
            )
        };
        // The component widths: the channel's, less each component's reduction, ≥ 0.
        let width = _mm256_and_si256(w, _mm256_set1_epi32(i32::from(WIDTH_MASK)));
        let narrower = |shift: __m256i| {
            let d = _mm256_and_si256(_mm256_srlv_epi32(red, shift), three);
            _mm256_max_epi32(_mm256_sub_epi32(width, d), zero)
        };
        let b0 = narrower(zero);
        let b1 = narrower(two);
        let b = narrower(_mm256_add_epi32(k, k));
        // SAFETY: `b ≤ 31` indexes the 32-entry table.
        let inv_q = unsafe { _mm256_i32gather_ps::<4>(inv_qmax_table().as_ptr(), b) };
        let lo = _mm256_cvtepi32_ps(_mm256_and_si256(lo, byte));
        let hi = _mm256_cvtepi32_ps(_mm256_and_si256(hi, byte));
        // SAFETY: `j + 8 ≤ n`, the length of `min` and `ext`.
        let (min, ext) = unsafe {
            (
                _mm256_loadu_ps(l.min.as_ptr().add(j)),
                _mm256_loadu_ps(l.ext.as_ptr().add(j)),
            )
        };
        let off = _mm256_add_ps(min, _mm256_mul_ps(ext, _mm256_mul_ps(lo, inv255)));
        let step = _mm256_mul_ps(
            _mm256_mul_ps(ext, _mm256_mul_ps(_mm256_sub_ps(hi, lo), inv255)),
            inv_q,
        );
        let mask = _mm256_and_si256(
            _mm256_sub_epi32(_mm256_sllv_epi32(one, b), one),
            ld(&l.valid, j),
        );
        // After the components before it.
        let before = _mm256_add_epi32(
            _mm256_and_si256(_mm256_cmpgt_epi32(k, zero), b0),
            _mm256_and_si256(_mm256_cmpgt_epi32(k, one), b1),
        );
        let pos = _mm256_add_epi32(first, before);
        // SAFETY: `j + 8 ≤ n`, and each destination array is `n` long.
        unsafe {
            _mm256_storeu_si256(seg.pos.as_mut_ptr().add(j).cast(), pos);
            _mm256_storeu_si256(seg.mask.as_mut_ptr().add(j).cast(), mask);
            _mm256_storeu_ps(seg.off.as_mut_ptr().add(j), off);
            _mm256_storeu_ps(seg.step.as_mut_ptr().add(j), step);
        }
    }
    for j in (0..l.rot_channel.len()).step_by(LANES) {
        let c = _mm256_min_epu32(ld(&l.rot_channel, j), top);
        // SAFETY: `c < a`, and `rec` holds more than `a + 4` bytes.
        let w = unsafe { _mm256_i32gather_epi32::<1>(bytes, c) };
        let drop = _mm256_srli_epi32::<5>(_mm256_and_si256(w, byte));
        // −1 where the lane has no animated rotation.
        let valid = ld(&l.rot_valid, j);
        let d = _mm256_or_si256(
            _mm256_and_si256(valid, drop),
            _mm256_andnot_si256(valid, _mm256_set1_epi32(-1)),
        );
        // SAFETY: `j + 8 ≤` the rotation lanes, the length of `drop`.
        unsafe { _mm256_storeu_si256(seg.drop.as_mut_ptr().add(j).cast(), d) };
    }
}
