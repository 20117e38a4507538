//! The four-lane path's blocks kept by bone (see [`crate::skin_blocks`]): four
//! vertices a step, a quarter of a block of sixteen, as a structure of arrays. The
//! quarter's attributes are transposed to one register per coordinate; its twelve
//! blended matrix elements are `M[e] = Σ_b W_b · P[b][e]` over the block's distinct
//! bones (the four vertices' weights of bone `b` times its element `e`, broadcast
//! once per block for the four quarters and kept for the next block that names the
//! same bone in the same place, [`Splats`]; a bone none of the four uses is
//! skipped); each output row is then `x'_c = x·M[c] +
//! y·M[3 + c] + z·M[6 + c] + M[9 + c]`, the directions are renormalised four at a
//! time and the outputs interleaved back (three 16-byte stores a quarter and output).
//! Plain glam `Vec4` (SSE2 on x86-64, NEON on aarch64) but for the interleave's
//! shuffles on x86-64: no per-vertex matrix loads, index decoding or horizontal sums.

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
/// Made once per call and reused from block to block: a slot that holds the same
/// bone as in the block before is not splatted again (neighbouring blocks mostly name
/// the same bones in the same order).
pub(super) struct Splats {
    /// Per distinct bone, the skinning matrix's twelve elements, column by column.
    m: [[Vec4; 12]; MAX_COLUMN_BONES],
    /// Per distinct bone, the normal matrix's nine.
    n: [[Vec4; 9]; MAX_COLUMN_BONES],
    /// The bone each slot holds (`u32::MAX`: none yet).
    held: [u32; MAX_COLUMN_BONES],
}

impl Default for Splats {
    fn default() -> Self {
        Self {
            m: [[Vec4::ZERO; 12]; MAX_COLUMN_BONES],
            n: [[Vec4::ZERO; 9]; MAX_COLUMN_BONES],
            held: [u32::MAX; MAX_COLUMN_BONES],
        }
    }
}

impl Splats {
    /// Splats the elements of `k`'s bones (`normals`: the normal matrices' too; the
    /// same for every block of a call) and returns how many bones.
    fn fill(&mut self, k: &Kept<'_>, normals: bool) -> usize {
        let last = k.packed.len().saturating_sub(1);
        let mut count = 0;
        let slots = self.m.iter_mut().zip(&mut self.n).zip(&mut self.held);
        for (&bone, ((m, n), held)) in k.bones.iter().zip(slots) {
            let Some(p) = k.packed.get(usize::from(bone).min(last)) else {
                break;
            };
            if *held != u32::from(bone) {
                splat(&p.m, m);
                if normals {
                    splat(&p.n, n);
                }
                *held = u32::from(bone);
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
    let mut p = quarters::<3>(&mut o.p, first);
    let mut nm = quarters::<3>(&mut o.n, first);
    let mut t = quarters::<4>(&mut o.t, first);
    for (h, v) in v
        .chunks_exact(LANES * k.stride)
        .take(SKIN_BLOCK / LANES)
        .enumerate()
    {
        let out = (
            p.as_deref_mut().map(|p| &mut p[h]),
            nm.as_deref_mut().map(|n| &mut n[h]),
            t.as_deref_mut().map(|t| &mut t[h]),
        );
        quarter::<RIGID>(k, (m, n, weights), v, h, out);
    }
}

/// Four vertices' outputs of `N` floats each.
type Quarter<const N: usize> = [[f32; N]; LANES];

/// The sixteen vertices from vertex `first` of the output `o` (`N` floats a vertex)
/// as four quarters; none when there is no such output or it is too short.
fn quarters<'o, const N: usize>(
    o: &'o mut Option<&mut [f32]>,
    first: usize,
) -> Option<&'o mut [Quarter<N>; SKIN_BLOCK / LANES]> {
    let b = o
        .as_deref_mut()?
        .get_mut(N * first..N * (first + SKIN_BLOCK))?;
    bytemuck::cast_slice_mut::<f32, Quarter<N>>(b)
        .try_into()
        .ok()
}

/// A block's splatted elements (see [`Splats`]) and weights, bone for bone.
type Bones<'s> = (&'s [[Vec4; 12]], &'s [[Vec4; 9]], &'s [Weights16]);

/// The outputs of a quarter: positions, normals, tangents.
type Outs<'o> = (
    Option<&'o mut Quarter<3>>,
    Option<&'o mut Quarter<3>>,
    Option<&'o mut Quarter<4>>,
);

/// Quarter `h` of a kept block: its four vertices `v` into `(p, n, t)`.
#[inline(always)]
fn quarter<const RIGID: bool>(
    k: &Kept<'_>,
    (ms, ns, weights): Bones<'_>,
    v: &[f32],
    h: usize,
    (p, n, t): Outs<'_>,
) {
    let m = blend(ms, weights, h);
    if let Some(p) = p {
        let [x, y, z, _] = soa(v, k.stride, 0);
        let r = |c: usize| x * m[c] + y * m[3 + c] + z * m[6 + c] + m[9 + c];
        store3(p, [r(0), r(1), r(2)]);
    }
    if let Some(n) = n {
        let d = soa(v, k.stride, k.no);
        let d = if RIGID {
            dir(&m, &d)
        } else {
            dir(&blend(ns, weights, h), &d)
        };
        store3(n, unit(d));
    }
    if let Some(t) = t {
        let d = soa(v, k.stride, k.to);
        let [x, y, z] = unit(dir(&m, &d));
        store4(t, [x, y, z, d[3]]);
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

/// Writes `x, y, z` of the four vertices into `o`: three 16-byte stores.
#[inline(always)]
fn store3(o: &mut Quarter<3>, xyz: [Vec4; 3]) {
    let o: &mut [f32; 12] = bytemuck::cast_mut(o);
    for (d, r) in o.chunks_exact_mut(LANES).zip(interleave3(xyz)) {
        r.write_to_slice(d);
    }
}

/// `x, y, z` of four vertices interleaved as `[x0 y0 z0 x1] [y1 z1 x2 y2] [z2 x3 y3
/// z3]`: nine shuffles on x86-64.
#[inline(always)]
#[allow(unsafe_code)]
fn interleave3(xyz: [Vec4; 3]) -> [Vec4; 3] {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{__m128, _mm_shuffle_ps, _mm_unpackhi_ps, _mm_unpacklo_ps};
        let [x, y, z] = xyz.map(__m128::from);
        // SAFETY: SSE is part of x86-64's baseline (every x86-64 target enables it);
        // the intrinsics only move lanes between registers.
        let r = unsafe {
            let xy_lo = _mm_unpacklo_ps(x, y); // x0 y0 x1 y1
            let zx_lo = _mm_unpacklo_ps(z, x); // z0 x0 z1 x1
            let yz_lo = _mm_unpacklo_ps(y, z); // y0 z0 y1 z1
            let xy_hi = _mm_unpackhi_ps(x, y); // x2 y2 x3 y3
            let zx_hi = _mm_unpackhi_ps(z, x); // z2 x2 z3 x3
            let yz_hi = _mm_unpackhi_ps(y, z); // y2 z2 y3 z3
            [
                _mm_shuffle_ps::<0b11_00_01_00>(xy_lo, zx_lo),
                _mm_shuffle_ps::<0b01_00_11_10>(yz_lo, xy_hi),
                _mm_shuffle_ps::<0b11_10_11_00>(zx_hi, yz_hi),
            ]
        };
        r.map(Vec4::from)
    }
    #[cfg(not(target_arch = "x86_64"))]
    interleave3_lanes(xyz)
}

/// [`interleave3`] lane by lane.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn interleave3_lanes([x, y, z]: [Vec4; 3]) -> [Vec4; 3] {
    [
        Vec4::new(x.x, y.x, z.x, x.y),
        Vec4::new(y.y, z.y, x.z, y.z),
        Vec4::new(z.z, x.w, y.w, z.w),
    ]
}

/// Writes `x, y, z, w` of the four vertices into `o`.
#[inline(always)]
fn store4(o: &mut Quarter<4>, [x, y, z, w]: [Vec4; 4]) {
    *o = Mat4::from_cols(x, y, z, w).transpose().to_cols_array_2d();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shuffles give what the lanes say, for distinct values in every lane.
    #[test]
    fn interleave3_matches_the_lanes() {
        let v = |b: f32| Vec4::new(b, b + 1.0, b + 2.0, b + 3.0);
        let xyz = [v(0.0), v(10.0), v(20.0)];
        let got = interleave3(xyz).map(|v| v.to_array());
        let want = interleave3_lanes(xyz).map(|v| v.to_array());
        assert_eq!(got, want);
        assert_eq!(
            got.concat(),
            [0.0, 10.0, 20.0, 1.0, 11.0, 21.0, 2.0, 12.0, 22.0, 3.0, 13.0, 23.0]
        );
    }
}
