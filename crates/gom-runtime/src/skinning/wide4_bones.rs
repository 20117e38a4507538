//! The four-lane path's blocks kept by bone (see [`crate::skin_blocks`]): four
//! vertices a step, a quarter of a block of sixteen, as a structure of arrays. The
//! quarter's attributes are transposed to one register per coordinate; its twelve
//! blended matrix elements are `M[e] = Σ_b W_b · P[b][e]` over the block's distinct
//! bones (the four vertices' weights of bone `b` times its element `e`, broadcast
//! once per block for the four quarters, [`Splats`]; a bone none of the four uses is
//! skipped); each output row is then `x'_c = x·M[c] +
//! y·M[3 + c] + z·M[6 + c] + M[9 + c]`, the directions are renormalised four at a
//! time and the outputs interleaved back. Plain glam `Vec4` (SSE2 on x86-64, NEON on
//! aarch64): no per-vertex matrix loads, index decoding or horizontal sums.

use glam::{Mat4, Vec4};

use super::Flat;
use crate::palette::PackedBone;
use crate::skin_blocks::{Weights16, MAX_COLUMN_BONES, SKIN_BLOCK};

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

/// The elements of a block's bones, each broadcast to four lanes once per block and
/// read by its four quarters (SSE2 has no broadcast from memory: a splat is a load
/// and a shuffle, and the shuffles bound the blend when each quarter splats anew).
/// Made once per call and reused from block to block.
#[derive(Default)]
pub(super) struct Splats {
    /// Per distinct bone, the skinning matrix's twelve elements, column by column.
    m: [[Vec4; 12]; MAX_COLUMN_BONES],
    /// Per distinct bone, the normal matrix's nine.
    n: [[Vec4; 9]; MAX_COLUMN_BONES],
}

impl Splats {
    /// Splats the elements of `k`'s bones (`normals`: the normal matrices' too) and
    /// returns how many bones.
    fn fill(&mut self, k: &Kept<'_>, normals: bool) -> usize {
        let last = k.packed.len().saturating_sub(1);
        let mut count = 0;
        for ((&bone, m), n) in k.bones.iter().zip(&mut self.m).zip(&mut self.n) {
            let Some(p) = k.packed.get(usize::from(bone).min(last)) else {
                break;
            };
            splat(&p.m, m);
            if normals {
                splat(&p.n, n);
            }
            count += 1;
        }
        count
    }
}

/// The first `E` elements of the column-major `cols` (three of each column), each
/// broadcast to four lanes.
#[inline(always)]
fn splat<const E: usize>(cols: &[f32; 16], out: &mut [Vec4; E]) {
    let cols: &[[f32; 4]; 4] = bytemuck::cast_ref(cols);
    for (col, e) in cols.iter().zip(out.chunks_exact_mut(3)) {
        e[0] = Vec4::splat(col[0]);
        e[1] = Vec4::splat(col[1]);
        e[2] = Vec4::splat(col[2]);
    }
}

/// Skins the block of sixteen vertices `v` (vertex `first` of the outputs `o` on),
/// kept by bone as `k` says, with `s` as scratch. `RIGID`: normals use the skinning
/// matrices.
pub(super) fn block<const RIGID: bool>(
    k: &Kept<'_>,
    s: &mut Splats,
    v: &[f32],
    first: usize,
    o: &mut Flat<'_>,
) {
    let bones = s.fill(k, !RIGID && o.n.is_some());
    let weights = &k.weights[..bones.min(k.weights.len())];
    let (m, n) = (&s.m[..weights.len()], &s.n[..weights.len()]);
    for (h, v) in v
        .chunks_exact(LANES * k.stride)
        .take(SKIN_BLOCK / LANES)
        .enumerate()
    {
        quarter::<RIGID>(k, (m, n, weights), v, h, first + LANES * h, o);
    }
}

/// A block's splatted elements (see [`Splats`]) and weights, bone for bone.
type Bones<'s> = (&'s [[Vec4; 12]], &'s [[Vec4; 9]], &'s [Weights16]);

/// Quarter `h` of a kept block: its four vertices `v`, outputs from vertex `at`.
#[inline(always)]
fn quarter<const RIGID: bool>(
    k: &Kept<'_>,
    (ms, ns, weights): Bones<'_>,
    v: &[f32],
    h: usize,
    at: usize,
    o: &mut Flat<'_>,
) {
    let m = blend(ms, weights, h);
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
            dir(&blend(ns, weights, h), &d)
        };
        store3(n, at, unit(d));
    }
    if let Some(t) = o.t.as_deref_mut() {
        let d = soa(v, k.stride, k.to);
        let [x, y, z] = unit(dir(&m, &d));
        store4(t, at, [x, y, z, d[3]]);
    }
}

/// The `E` blended elements of quarter `h`, column by column, four vertices a
/// register: `Σ_b W_b · P[b][e]` over the bones with a weight in the quarter.
#[inline(always)]
fn blend<const E: usize>(splats: &[[Vec4; E]], weights: &[Weights16], h: usize) -> [Vec4; E] {
    let mut m = [Vec4::ZERO; E];
    for (p, w) in splats.iter().zip(weights) {
        let quarters: &[[f32; LANES]; SKIN_BLOCK / LANES] = bytemuck::cast_ref(&w.0);
        let w = Vec4::from_array(quarters[h % (SKIN_BLOCK / LANES)]);
        if !w.cmpne(Vec4::ZERO).any() {
            continue;
        }
        for (m, p) in m.iter_mut().zip(p) {
            *m += w * *p;
        }
    }
    m
}

/// The 3x3 of `m` times the directions `d`, row by row.
#[inline(always)]
fn dir<const E: usize>(m: &[Vec4; E], d: &[Vec4; 4]) -> [Vec4; 3] {
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
