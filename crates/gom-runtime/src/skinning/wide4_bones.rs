//! The four-lane path's blocks kept by bone (see [`crate::skin_blocks`]): four
//! vertices a step, a quarter of a block of sixteen, as a structure of arrays. The
//! quarter's attributes are transposed to one register per coordinate; its twelve
//! blended matrix elements are `M[e] = Σ_b W_b · P[b][e]` over the block's distinct
//! bones (the four vertices' weights of bone `b` times its element `e` broadcast,
//! skipping a bone none of the four uses); each output row is then `x'_c = x·M[c] +
//! y·M[3 + c] + z·M[6 + c] + M[9 + c]`, the directions are renormalised four at a
//! time and the outputs interleaved back. Plain glam `Vec4` (SSE2 on x86-64, NEON on
//! aarch64): no per-vertex matrix loads, index decoding or horizontal sums.

use glam::{Mat4, Vec4};

use super::Flat;
use crate::palette::PackedBone;
use crate::skin_blocks::{Weights16, SKIN_BLOCK};

/// Vertices a step.
const LANES: usize = 4;

/// What a kept block's quarters read: the vertex layout, the palette clamped to its
/// last bone, and the block's distinct bones with their weights.
#[derive(Clone, Copy)]
pub(super) struct Kept<'a> {
    pub stride: usize,
    pub no: usize,
    pub to: usize,
    pub packed: &'a [PackedBone],
    pub bones: &'a [u16],
    pub weights: &'a [Weights16],
}

/// Skins the block of sixteen vertices `v` (vertex `first` of the outputs `o` on),
/// kept by bone as `k` says. `RIGID`: normals use the skinning matrices.
pub(super) fn block<const RIGID: bool>(k: &Kept<'_>, v: &[f32], first: usize, o: &mut Flat<'_>) {
    for (h, v) in v
        .chunks_exact(LANES * k.stride)
        .take(SKIN_BLOCK / LANES)
        .enumerate()
    {
        quarter::<RIGID>(k, v, h, first + LANES * h, o);
    }
}

/// Quarter `h` of a kept block: its four vertices `v`, outputs from vertex `at`.
#[inline(always)]
fn quarter<const RIGID: bool>(k: &Kept<'_>, v: &[f32], h: usize, at: usize, o: &mut Flat<'_>) {
    let m = blend(k, h, false);
    if let Some(p) = o.p.as_deref_mut() {
        let [x, y, z, _] = soa(v, k.stride, 0);
        let r = |c: usize| x * m[c] + y * m[3 + c] + z * m[6 + c] + m[9 + c];
        store3(p, at, [r(0), r(1), r(2)]);
    }
    if let Some(n) = o.n.as_deref_mut() {
        let d = soa(v, k.stride, k.no);
        let d = if RIGID {
            dir(&m, &d)
        } else {
            dir(&blend(k, h, true), &d)
        };
        store3(n, at, unit(d));
    }
    if let Some(t) = o.t.as_deref_mut() {
        let d = soa(v, k.stride, k.to);
        let [x, y, z] = unit(dir(&m, &d));
        store4(t, at, [x, y, z, d[3]]);
    }
}

/// The twelve blended elements of quarter `h` (`normal`: of the normal matrices,
/// whose translation column is zero), column by column, four vertices a register.
#[inline(always)]
fn blend(k: &Kept<'_>, h: usize, normal: bool) -> [Vec4; 12] {
    let last = k.packed.len().saturating_sub(1);
    let mut m = [Vec4::ZERO; 12];
    for (&bone, w) in k.bones.iter().zip(k.weights) {
        let quarters: &[[f32; LANES]; SKIN_BLOCK / LANES] = bytemuck::cast_ref(&w.0);
        let w = Vec4::from_array(quarters[h % (SKIN_BLOCK / LANES)]);
        if !w.cmpne(Vec4::ZERO).any() {
            continue;
        }
        let Some(p) = k.packed.get(usize::from(bone).min(last)) else {
            continue;
        };
        let cols: &[[f32; 4]; 4] = bytemuck::cast_ref(if normal { &p.n } else { &p.m });
        let used = if normal { 3 } else { 4 };
        for (col, e) in cols.iter().take(used).zip(m.chunks_exact_mut(3)) {
            let c = Vec4::from_array(*col);
            e[0] += w * Vec4::splat(c.x);
            e[1] += w * Vec4::splat(c.y);
            e[2] += w * Vec4::splat(c.z);
        }
    }
    m
}

/// The 3x3 of `m` times the directions `d`, row by row.
#[inline(always)]
fn dir(m: &[Vec4; 12], d: &[Vec4; 4]) -> [Vec4; 3] {
    let r = |c: usize| d[0] * m[c] + d[1] * m[3 + c] + d[2] * m[6 + c];
    [r(0), r(1), r(2)]
}

/// `v / |v|` four at once (zero for a zero length): a square root and a division, as
/// the other paths.
#[inline(always)]
fn unit([x, y, z]: [Vec4; 3]) -> [Vec4; 3] {
    let l2 = x * x + y * y + z * z;
    let inv = Vec4::select(
        l2.cmpgt(Vec4::ZERO),
        Vec4::ONE / crate::sampling::sqrt4(l2),
        Vec4::ZERO,
    );
    [x * inv, y * inv, z * inv]
}

/// Four words at word `o` of each of the four vertices of `v` as four registers (`x`
/// of the four, then `y`, `z`, `w`); zeros past the end of `v` (never for a whole
/// quarter of a valid layout).
#[inline(always)]
fn soa(v: &[f32], stride: usize, o: usize) -> [Vec4; 4] {
    let q = |j: usize| {
        v.get(j * stride + o..j * stride + o + 4)
            .map_or(Vec4::ZERO, Vec4::from_slice)
    };
    let t = Mat4::from_cols(q(0), q(1), q(2), q(3)).transpose();
    [t.x_axis, t.y_axis, t.z_axis, t.w_axis]
}

/// Writes `x, y, z` of the four vertices from vertex `at` into `o` (`[f32; 3]` each).
#[inline(always)]
fn store3(o: &mut [f32], at: usize, [x, y, z]: [Vec4; 3]) {
    let Some(d) = o.get_mut(3 * at..3 * at + 3 * LANES) else {
        return;
    };
    let t = Mat4::from_cols(x, y, z, Vec4::ZERO).transpose();
    for (d, v) in d.chunks_exact_mut(3).zip(t.to_cols_array_2d()) {
        d.copy_from_slice(&v[..3]);
    }
}

/// Writes `x, y, z, w` of the four vertices from vertex `at` into `o` (`[f32; 4]`
/// each).
#[inline(always)]
fn store4(o: &mut [f32], at: usize, [x, y, z, w]: [Vec4; 4]) {
    let Some(d) = o.get_mut(4 * at..4 * at + 4 * LANES) else {
        return;
    };
    d.copy_from_slice(&Mat4::from_cols(x, y, z, w).transpose().to_cols_array());
}
