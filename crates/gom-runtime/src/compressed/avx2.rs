//! The eight-lane decoding path: eight lanes of a frame at a time (two four-float
//! fields, see [`Lanes`]), each an AVX2 gather of the four bytes holding its bits, a
//! per-lane shift and mask, a conversion and `offset + step · q` (a multiply then an
//! add, no fused multiply-add, so the bits are those of [`Segment::decode_scalar`]),
//! stored with two masked four-float writes; one or two frames per pass over the
//! segment's arrays, or, when a seek enters a segment, in the same pass that makes
//! its arrays (each lane's first bit an in-register running sum of the widths, the
//! lanes being in the packed bits' order). The rotations are then restored eight
//! bones at a time with the operations of [`Segment::restore`], and the pose blended
//! eight bones at a time with those of [`super::blend_group`]. The tests check each
//! against the scalar path.
//!
//! Hand-written with `std::arch` because the compiler does not turn the scalar loop's
//! variable shifts into gathers. `unsafe` is used for the calls into the
//! `#[target_feature]` functions after the CPU was checked, and for the loads and
//! stores whose bounds are checked once before each loop.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use gom::compressed::decode::{inv_qmax_table, INV_255, WIDTH_MASK};
use gom::compressed::SEGMENT_CHANNEL_BYTES;

use glam::Vec4;

use super::segment::{Lanes, Segment, GROUP_FLOATS, LANES};
use super::{blend_linear, CompressedClip, GroupMotion};
use crate::transform::SoaTransform;

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
        restore_avx2(seg, l, out);
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
    let lastv = _mm256_set1_epi32(last);
    let basev = base.map(|b| _mm256_set1_epi32(b as i32));
    for j in (0..n).step_by(LANES) {
        // SAFETY: `j + 8 ≤ n`, the length of each array (the contract), so the
        // eight-lane loads read inside them; the quad pair `j / 4`, `j / 4 + 1` exists.
        let lanes = unsafe {
            Block {
                pos: _mm256_loadu_si256(seg.pos.as_ptr().add(j).cast()),
                mask: _mm256_loadu_si256(seg.mask.as_ptr().add(j).cast()),
                off: _mm256_loadu_ps(seg.off.as_ptr().add(j)),
                step: _mm256_loadu_ps(seg.step.as_ptr().add(j)),
                valid: _mm256_loadu_si256(l.valid.as_ptr().add(j).cast()),
                at: quads(l, j),
            }
        };
        for (b, o) in basev.iter().zip(out) {
            // SAFETY: as this function's contract says.
            unsafe { decode_block(packed, lastv, *b, &lanes, o) };
        }
    }
}

/// What decoding eight lanes needs: per lane its first bit in a frame, mask, offset,
/// step and whether it is a component (all ones) or a hole; the floats of a frame
/// its two quads go to.
struct Block {
    pos: __m256i,
    mask: __m256i,
    off: __m256,
    step: __m256,
    valid: __m256i,
    at: [usize; 2],
}

/// The floats of a frame that quads `j / 4` and `j / 4 + 1` go to, each clamped so
/// that its four floats lie below `max(l.end, 16)` (a no-op for a plan built by
/// `Lanes::new`). Safety: `j / 4 + 1 < l.quad_at.len()`.
#[inline(always)]
unsafe fn quads(l: &Lanes, j: usize) -> [usize; 2] {
    let max_at = l.end.max(16) as usize - 4;
    // SAFETY: as the contract says.
    unsafe {
        [
            (*l.quad_at.get_unchecked(j / 4) as usize).min(max_at),
            (*l.quad_at.get_unchecked(j / 4 + 1) as usize).min(max_at),
        ]
    }
}

/// Eight lanes of the frame whose first bit is `base` (in every lane) into `o`: the
/// four bytes holding each lane's bits gathered from `packed` (the byte offsets, as
/// unsigned, clamped to `last`: a no-op for a segment whose loads were checked
/// inside, so the bits are the scalar path's), shifted, masked, converted, then
/// `offset + step · q`, stored to the two quads but for the holes. Safety: the CPU
/// has AVX2; the four bytes at `packed + at` lie inside the payload for every
/// `0 ≤ at ≤ last`; `o` holds `max(l.end, 16)` floats of the plan whose quads gave
/// `lanes.at`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn decode_block(
    packed: *const i32,
    last: __m256i,
    base: __m256i,
    lanes: &Block,
    o: *mut f32,
) {
    let p = _mm256_add_epi32(base, lanes.pos);
    let at = _mm256_min_epu32(_mm256_srli_epi32::<3>(p), last);
    // SAFETY: each lane reads the four bytes at `packed + at`, with `0 ≤ at ≤ last`,
    // inside the payload by the contract.
    let word = unsafe { _mm256_i32gather_epi32::<1>(packed, at) };
    let shift = _mm256_and_si256(p, _mm256_set1_epi32(7));
    let q = _mm256_and_si256(_mm256_srlv_epi32(word, shift), lanes.mask);
    let v = _mm256_add_ps(lanes.off, _mm256_mul_ps(lanes.step, _mm256_cvtepi32_ps(q)));
    let (valid_lo, valid_hi) = (
        _mm256_castsi256_si128(lanes.valid),
        _mm256_extracti128_si256::<1>(lanes.valid),
    );
    // SAFETY: each quad's four floats lie below `max(l.end, 16)`, inside `o`.
    unsafe {
        _mm_maskstore_ps(o.add(lanes.at[0]), valid_lo, _mm256_castps256_ps128(v));
        _mm_maskstore_ps(o.add(lanes.at[1]), valid_hi, _mm256_extractf128_ps::<1>(v));
    }
}

/// [`Segment::restore`] eight bones at a time (two groups), in each frame of `out`
/// (the segment's masks made once for them). Safety: the CPU has AVX2;
/// [`arrays_fit`]; each `out` points to at least `max(l.end, 16)` floats.
#[target_feature(enable = "avx2")]
unsafe fn restore_avx2<const N: usize>(seg: &Segment, l: &Lanes, out: [*mut f32; N]) {
    // Every group's address is clamped to it, so the loads and stores stay inside
    // `out` whatever the plan holds (a no-op for a plan built by `Lanes::new`).
    let max_at = l.end.max(16) as usize - 16;
    for p in 0..l.rot_at.len() / 2 {
        // SAFETY: the groups `2p` and `2p + 1` exist and `drop` holds four lanes per
        // group (the contract), so the loads are inside.
        let (at0, at1, d) = unsafe {
            (
                (*l.rot_at.get_unchecked(2 * p) as usize).min(max_at),
                (*l.rot_at.get_unchecked(2 * p + 1) as usize).min(max_at),
                _mm256_loadu_si256(seg.drop.as_ptr().add(8 * p).cast()),
            )
        };
        let dropped: [__m256; 4] = std::array::from_fn(|m| {
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(m as i32)))
        });
        let animated = _mm256_castsi256_ps(_mm256_cmpgt_epi32(d, _mm256_set1_epi32(-1)));
        for o in out {
            // SAFETY: each group's sixteen floats lie below `max(l.end, 16)` (the
            // clamp), inside `o`.
            unsafe { restore_pair(o.add(at0), o.add(at1), dropped, animated) };
        }
    }
}

/// Eight rotations of [`restore_avx2`], the sixteen floats at `a0` (four fields of
/// four lanes) and those at `a1`: `dropped[m]` the lanes dropping component `m`,
/// `animated` the lanes to change. Safety: the CPU has AVX2; both hold sixteen
/// floats.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn restore_pair(a0: *mut f32, a1: *mut f32, dropped: [__m256; 4], animated: __m256) {
    let one = _mm256_set1_ps(1.0);
    // SAFETY: inside the groups' sixteen floats (the contract).
    let v: [__m256; 4] =
        std::array::from_fn(|m| unsafe { _mm256_loadu2_m128(a1.add(4 * m), a0.add(4 * m)) });
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

/// [`Segment::load`]'s per-lane arrays from the segment record `rec` eight lanes at a
/// time, on this path when the CPU has AVX2 (else `None`, and nothing is written):
/// the same operations as [`Segment::setup`], so the same bits, each lane's first
/// bit by an in-register prefix sum of the widths. Gives the bits of a frame, and
/// whether it also decoded `job` (the frames whose first bits are `base` into the
/// two outputs, restored, as [`decode`] does) in the same pass; it does when each
/// output holds the plan's floats.
pub(crate) fn setup(
    seg: &mut Segment,
    clip: &CompressedClip<'_>,
    rec: &[u8],
    job: Option<([u32; 2], [&mut [f32]; 2])>,
) -> (Option<u32>, bool) {
    let l = &clip.lanes;
    let a = clip.channels.len();
    let fits = arrays_fit(seg, l)
        && a > 0
        && rec.len() >= a * SEGMENT_CHANNEL_BYTES + 4
        && rec.len() < i32::MAX as usize;
    if !(available() && fits) {
        return (None, false);
    }
    let packed = rec.as_ptr().wrapping_add(a * SEGMENT_CHANNEL_BYTES);
    // The last byte offset a four-byte load from the packed frames may start at.
    let last = (rec.len() - a * SEGMENT_CHANNEL_BYTES).checked_sub(4);
    let job = job
        .filter(|(_, o)| o.iter().all(|o| o.len() >= l.end.max(16) as usize))
        .zip(last.and_then(|n| i32::try_from(n).ok()));
    match job {
        Some(((base, out), last)) => {
            let out = out.map(|o| o.as_mut_ptr());
            let frames = Frames {
                packed: packed.cast(),
                last,
                base,
                out,
            };
            // SAFETY: the CPU has AVX2 (checked above); the contract's lengths hold
            // (`fits`); `packed + last + 4` is inside `rec` (`last` above) and each
            // output holds `max(l.end, 16)` floats (the filter).
            let bits = unsafe {
                let bits = setup_avx2(seg, l, rec, a, &frames);
                restore_avx2(seg, l, out);
                bits
            };
            (Some(bits), true)
        }
        None => {
            let none: Frames<0> = Frames {
                packed: packed.cast(),
                last: 0,
                base: [],
                out: [],
            };
            // SAFETY: as above, with no frame to decode.
            (Some(unsafe { setup_avx2(seg, l, rec, a, &none) }), false)
        }
    }
}

/// Frames to decode in a pass over the lanes: the packed frames, the last byte offset
/// a four-byte load from them may start at (in every lane), each frame's first bit
/// (in every lane) and its output.
struct Frames<const N: usize> {
    packed: *const i32,
    last: i32,
    base: [u32; N],
    out: [*mut f32; N],
}

/// See [`setup`]. Safety: the CPU has AVX2; [`arrays_fit`]; `a > 0` animated
/// channels; `rec` holds at least `8a + 4` bytes, fewer than 2^31; for each frame of
/// `frames`, the four bytes at `packed + at` lie inside the payload for every
/// `0 ≤ at ≤ last` and its output holds `max(l.end, 16)` floats.
#[target_feature(enable = "avx2")]
unsafe fn setup_avx2<const N: usize>(
    seg: &mut Segment,
    l: &Lanes,
    rec: &[u8],
    a: usize,
    frames: &Frames<N>,
) -> u32 {
    let bytes = rec.as_ptr().cast::<i32>();
    let byte = _mm256_set1_epi32(0xFF);
    let inv255 = _mm256_set1_ps(INV_255);
    let ones = _mm256_set1_epi32(-1);
    let thirty_two = _mm256_set1_epi32(32);
    let two = _mm256_set1_epi32(2);
    let three = _mm256_set1_epi32(3);
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi32(a as i32 - 1);
    let high_half = _mm256_setr_epi32(0, 0, 0, 0, -1, -1, -1, -1);
    let mut carry = 0u32;
    let lastv = _mm256_set1_epi32(frames.last);
    let basev = frames.base.map(|b| _mm256_set1_epi32(b as i32));
    let ld = |v: &Vec<u32>, j: usize| {
        // SAFETY: every caller passes `j + 8 ≤ v.len()` (the loops below and
        // `arrays_fit`).
        unsafe { _mm256_loadu_si256(v.as_ptr().add(j).cast()) }
    };
    for j in (0..l.channel.len()).step_by(LANES) {
        // Channels and components clamped to those that exist, so every gather below
        // reads inside `rec` whatever the plan holds.
        let c = _mm256_min_epu32(ld(&l.channel, j), top);
        let k = _mm256_min_epu32(ld(&l.k, j), two);
        // Width bytes at `c`, reduction bytes at `a + c`, range bytes at
        // `2a + 6c + k` (lo) and three on (hi): the lowest and the highest byte of
        // the four-byte word at lo.
        let lo_at = _mm256_add_epi32(
            _mm256_set1_epi32(2 * a as i32),
            _mm256_add_epi32(_mm256_mullo_epi32(c, _mm256_set1_epi32(6)), k),
        );
        // SAFETY: every offset is below `8a`, and `rec` holds `8a + 4` bytes, so each
        // four-byte load is inside.
        let (w, red, range) = unsafe {
            (
                _mm256_i32gather_epi32::<1>(bytes, c),
                _mm256_i32gather_epi32::<1>(
                    bytes,
                    _mm256_add_epi32(c, _mm256_set1_epi32(a as i32)),
                ),
                _mm256_i32gather_epi32::<1>(bytes, lo_at),
            )
        };
        // The component's width: the channel's, less the component's reduction, ≥ 0;
        // 0 for a hole.
        let width = _mm256_and_si256(w, _mm256_set1_epi32(i32::from(WIDTH_MASK)));
        let d = _mm256_and_si256(_mm256_srlv_epi32(red, _mm256_add_epi32(k, k)), three);
        let valid = ld(&l.valid, j);
        let b = _mm256_and_si256(_mm256_max_epi32(_mm256_sub_epi32(width, d), zero), valid);
        // SAFETY: `b ≤ 31` indexes the 32-entry table.
        let inv_q = unsafe { _mm256_i32gather_ps::<4>(inv_qmax_table().as_ptr(), b) };
        let lo = _mm256_cvtepi32_ps(_mm256_and_si256(range, byte));
        let hi = _mm256_cvtepi32_ps(_mm256_srli_epi32::<24>(range));
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
        // `2^b − 1`: all ones shifted right by `32 − b` (by 32, which gives 0, for
        // `b = 0`).
        let mask = _mm256_srlv_epi32(ones, _mm256_sub_epi32(thirty_two, b));
        // The first bits: the widths' inclusive prefix sums within each half, the low
        // half's total added to the high half, less each lane's own width, after the
        // lanes before these eight.
        let x = _mm256_add_epi32(b, _mm256_slli_si256::<4>(b));
        let x = _mm256_add_epi32(x, _mm256_slli_si256::<8>(x));
        let low_total = _mm256_permutevar8x32_epi32(x, three);
        let x = _mm256_add_epi32(x, _mm256_and_si256(low_total, high_half));
        let pos = _mm256_add_epi32(_mm256_sub_epi32(x, b), _mm256_set1_epi32(carry as i32));
        carry = carry.wrapping_add(_mm256_extract_epi32::<7>(x) as u32);
        if N > 0 {
            let lanes = Block {
                pos,
                mask,
                off,
                step,
                valid: ld(&l.valid, j),
                // SAFETY: the quad pair `j / 4`, `j / 4 + 1` exists (`arrays_fit`).
                at: unsafe { quads(l, j) },
            };
            for (b, o) in basev.iter().zip(frames.out) {
                // SAFETY: as this function's contract says.
                unsafe { decode_block(frames.packed, lastv, *b, &lanes, o) };
            }
        }
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
    carry
}

/// [`super::blend_pose`] on pairs of groups, eight bones at a time, when the CPU has
/// AVX2: translation and scale as [`super::blend_group`] does them, each rotation
/// pair by the operations of [`super::blend_group`] in its order (separate multiplies
/// and adds, the same comparison, negation by the sign bit, an IEEE square root and
/// division), so the same bits. Gives the groups done (an even number, 0 without
/// AVX2); the caller blends the rest.
pub(crate) fn blend_pairs(
    x: &[[f32; GROUP_FLOATS]],
    y: &[[f32; GROUP_FLOATS]],
    a: f32,
    motion: &[GroupMotion],
    out: &mut [SoaTransform],
) -> usize {
    if !available() {
        return 0;
    }
    // SAFETY: the CPU has AVX2 (checked just above).
    unsafe { blend_pairs_avx2(x, y, a, motion, out) }
}

/// See [`blend_pairs`]. Safety: the CPU has AVX2.
#[target_feature(enable = "avx2")]
fn blend_pairs_avx2(
    x: &[[f32; GROUP_FLOATS]],
    y: &[[f32; GROUP_FLOATS]],
    a: f32,
    motion: &[GroupMotion],
    out: &mut [SoaTransform],
) -> usize {
    let pairs = out
        .chunks_exact_mut(2)
        .zip(x.chunks_exact(2))
        .zip(y.chunks_exact(2))
        .zip(motion.chunks_exact(2));
    let mut done = 0;
    for (((o, x), y), m) in pairs {
        let ([o0, o1], [x0, x1], [y0, y1], [m0, m1]) = (o, x, y, m) else {
            break;
        };
        if a == 0.0 || !(m0.any[0] || m0.any[2] || m1.any[0] || m1.any[2]) {
            copy_linear(x0, o0);
            copy_linear(x1, o1);
        } else {
            blend_linear(x0, y0, a, m0, o0);
            blend_linear(x1, y1, a, m1, o1);
        }
        let pair = |g0: &[f32; GROUP_FLOATS], g1: &[f32; GROUP_FLOATS]| -> [__m256; 4] {
            std::array::from_fn(|m| {
                let at = 4 * (3 + m);
                let lo: __m128 = Vec4::from_slice(&g0[at..at + 4]).into();
                let hi: __m128 = Vec4::from_slice(&g1[at..at + 4]).into();
                _mm256_set_m128(hi, lo)
            })
        };
        let fx = pair(x0, x1);
        let r = if a == 0.0 || !(m0.any[1] || m1.any[1]) {
            fx
        } else {
            let lanes = _mm256_set_m128(m1.lanes[1].into(), m0.lanes[1].into());
            rotation_nlerp(fx, pair(y0, y1), a, lanes)
        };
        for (m, v) in r.iter().enumerate() {
            o0.rotation[m] = _mm256_castps256_ps128(*v).into();
            o1.rotation[m] = _mm256_extractf128_ps::<1>(*v).into();
        }
        done += 2;
    }
    done
}

/// The translation and scale of a frame's group into `g`: what [`blend_linear`] gives
/// where nothing moves, in whole-vector copies.
#[inline(always)]
fn copy_linear(x: &[f32; GROUP_FLOATS], g: &mut SoaTransform) {
    g.translation = std::array::from_fn(|i| Vec4::from_slice(&x[4 * i..4 * i + 4]));
    g.scale = std::array::from_fn(|i| Vec4::from_slice(&x[28 + 4 * i..32 + 4 * i]));
}

/// Eight rotations of `x` blended towards `y` by `a` (normalised lerp along the
/// shorter arc) where `lanes` is set, else `x`: [`super::blend_group`]'s operations.
#[inline]
#[target_feature(enable = "avx2")]
fn rotation_nlerp(x: [__m256; 4], y: [__m256; 4], a: f32, lanes: __m256) -> [__m256; 4] {
    let (add, mul, sub) = (_mm256_add_ps, _mm256_mul_ps, _mm256_sub_ps);
    let dot = add(
        add(add(mul(x[0], y[0]), mul(x[1], y[1])), mul(x[2], y[2])),
        mul(x[3], y[3]),
    );
    let flip = _mm256_cmp_ps::<_CMP_LT_OQ>(dot, _mm256_setzero_ps());
    let sign = _mm256_and_ps(flip, _mm256_set1_ps(-0.0));
    let av = _mm256_set1_ps(a);
    let q: [__m256; 4] = std::array::from_fn(|m| {
        let y = _mm256_xor_ps(y[m], sign);
        add(x[m], mul(sub(y, x[m]), av))
    });
    let len2 = add(
        add(add(mul(q[0], q[0]), mul(q[1], q[1])), mul(q[2], q[2])),
        mul(q[3], q[3]),
    );
    let inv = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(len2));
    std::array::from_fn(|m| _mm256_blendv_ps(x[m], mul(q[m], inv), lanes))
}
