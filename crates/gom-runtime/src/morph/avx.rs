//! The AVX path of the morph step: a target's row (position delta, then normal and
//! tangent deltas) added to the run of a vertex's words it matches with one masked
//! load of the words, one of the row, a multiply, an add and a masked store (rows of
//! nine floats, with tangents, add their last word alone). Multiply then add, as the
//! scalar reference does, so both give the same bits.
//!
//! Hand-written with `std::arch` because the compiler turns the scalar loop into three
//! loads, multiplies, adds and stores per attribute. `unsafe` is used for the call into
//! the `#[target_feature]` function after the CPU was checked, and for the masked loads
//! and stores, whose bounds [`add_rows`] checks once for the whole target.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::{Frame, Parts, Rows};

/// Whether the CPU can run this path.
pub(super) fn available() -> bool {
    is_x86_feature_detected!("avx")
}

/// Lane masks: eight set lanes, then eight clear; a mask of `k` lanes starts at
/// `8 - k`.
const MASKS: [i32; 16] = [-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0];

/// Adds `w` times each of `t`'s rows to words `0..run` of its vertex, `run` being the
/// row's width (every part of the row at its own offset in the vertex: see
/// [`Parts::run`]). Takes the scalar path when the CPU lacks AVX or a bound does not
/// hold.
pub(super) fn add_rows(frame: &mut Frame<'_>, t: &Rows<'_>, parts: Parts, run: usize, w: f32) {
    let vertices = frame.dst.len() / frame.stride.max(1);
    let inside = run <= frame.stride
        && (1..=9).contains(&run)
        && t.rows.len() >= t.indices.len() * run
        && (t.indices.is_empty() || (t.max_index as usize) < vertices);
    if !(inside && available()) {
        return super::add_parts(frame, t, parts, w);
    }
    // SAFETY: `rows_avx` only requires the `avx` target feature, and the CPU has it
    // (checked just above); every index is below `vertices`, so its `run ≤ stride`
    // words lie inside `dst`, and `rows` holds `run` floats per index (checked above).
    unsafe { rows_avx(frame.dst, frame.stride, t.indices, t.rows, run, w) }
}

/// See [`add_rows`]. Safety: the CPU has AVX; `1 ≤ run ≤ 9`, `run ≤ stride`, every
/// `i` of `indices` has `(i + 1) · stride ≤ dst.len()`, and `rows.len() ≥
/// indices.len() · run`.
#[target_feature(enable = "avx")]
unsafe fn rows_avx(
    dst: &mut [f32],
    stride: usize,
    indices: &[u32],
    rows: &[f32],
    run: usize,
    w: f32,
) {
    let lanes = run.min(8);
    // SAFETY: `8 - lanes + 8 ≤ 16`: the eight words read lie inside `MASKS`.
    let mask = unsafe { _mm256_loadu_si256(MASKS.as_ptr().add(8 - lanes).cast()) };
    let wv = _mm256_set1_ps(w);
    let (d, r) = (dst.as_mut_ptr(), rows.as_ptr());
    for (j, &i) in indices.iter().enumerate() {
        let at = i as usize * stride;
        // SAFETY: the masked lanes (the first `lanes ≤ run`) of the vertex's words
        // and of row `j` lie inside `dst` and `rows` (the function's contract); the
        // other lanes are neither read nor written.
        unsafe {
            let v = _mm256_maskload_ps(d.add(at), mask);
            let x = _mm256_maskload_ps(r.add(j * run), mask);
            _mm256_maskstore_ps(d.add(at), mask, _mm256_add_ps(v, _mm256_mul_ps(wv, x)));
            if run == 9 {
                *d.add(at + 8) += w * *r.add(j * run + 8);
            }
        }
    }
}
