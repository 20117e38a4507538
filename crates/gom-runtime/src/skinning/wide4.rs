//! The four-lane path (SSE2 on x86-64, NEON on aarch64, through glam). A block of
//! sixteen vertices kept by bone (see [`crate::skin_blocks`]) is skinned four
//! vertices a step as a structure of arrays ([`super::wide4_bones`]); the other
//! vertices one at a time with a vertex's x, y, z in one `Vec3A`, four normals
//! renormalised together on the positions-and-normals path.

use glam::{Affine3A, Mat3A, Vec3A, Vec4};

use super::wide4_bones::{self, Kept, Splats};
use super::{Flat, Job, SkinTargets};
use crate::mesh::{skin_of, vec3a_at};
use crate::skin_blocks::SKIN_BLOCK;

/// Skins `words` into `out`: the blocks kept by bone by bone, the runs of other
/// vertices between them one vertex at a time.
pub(super) fn skin(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    if job.packed.is_empty() || !job.finite || job.stride == 0 {
        return each_vertex(job, words, out);
    }
    let packed = &job.packed[..=job.last.min(job.packed.len() - 1)];
    let mut o = Flat::from(out);
    let mut splats = Splats::default();
    // The first vertex not yet skinned.
    let mut done = 0;
    for (q, v) in words.chunks_exact(SKIN_BLOCK * job.stride).enumerate() {
        let Some((bones, weights)) = job.blocks.get(q).and_then(|&b| job.by_bone_of(b)) else {
            continue;
        };
        let first = q * SKIN_BLOCK;
        if done < first {
            each_vertex(
                job,
                vertices(job, words, done, first),
                range(&mut o, done, first),
            );
        }
        let k = Kept {
            stride: job.stride,
            no: job.no,
            to: job.to,
            packed,
            bones,
            weights,
        };
        if job.rigid {
            wide4_bones::block::<true>(&k, &mut splats, v, first, &mut o);
        } else {
            wide4_bones::block::<false>(&k, &mut splats, v, first, &mut o);
        }
        done = first + SKIN_BLOCK;
    }
    let end = words.len() / job.stride;
    each_vertex(
        job,
        vertices(job, words, done, end),
        range(&mut o, done, end),
    );
}

/// The words of vertices `start..end`.
fn vertices<'w>(job: &Job<'_>, words: &'w [f32], start: usize, end: usize) -> &'w [f32] {
    words
        .get(start * job.stride..end * job.stride)
        .unwrap_or(&[])
}

/// Vertices `start..end` of every output of `o`.
fn range<'a>(o: &'a mut Flat<'_>, start: usize, end: usize) -> SkinTargets<'a> {
    fn cut<'a, T: bytemuck::Pod>(
        b: &'a mut Option<&mut [f32]>,
        s: usize,
        e: usize,
    ) -> Option<&'a mut [T]> {
        let n = std::mem::size_of::<T>() / 4;
        b.as_deref_mut()?
            .get_mut(n * s..n * e)
            .map(bytemuck::cast_slice_mut)
    }
    SkinTargets {
        positions: cut(&mut o.p, start, end),
        normals: cut(&mut o.n, start, end),
        tangents: cut(&mut o.t, start, end),
    }
}

/// Skins `words` into `out` one vertex at a time.
fn each_vertex(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    let (so, no, last) = (job.so, job.no, job.last);
    let (pal, nrm) = (job.pal, job.nrm);
    match out {
        SkinTargets {
            positions: Some(p),
            normals: Some(nb),
            tangents: None,
        } => {
            if job.rigid {
                skin_pn::<true>(words, job.stride, so, no, pal, nrm, last, p, nb);
            } else {
                skin_pn::<false>(words, job.stride, so, no, pal, nrm, last, p, nb);
            }
        }
        SkinTargets {
            positions: Some(p),
            normals: None,
            tangents: None,
        } => {
            for (v, o) in words.chunks_exact(job.stride).zip(p.iter_mut()) {
                let m = blend_affine(v, so, pal, last);
                *o = m.transform_point3a(vec3a_at(v, 0)).to_array();
            }
        }
        out => per_vertex(
            words,
            job.stride,
            out,
            |v, wants_normal| {
                let (b, w) = influences(v, so, last);
                let m = blend_affine_at(&b, &w, pal);
                let nm = if job.rigid || !wants_normal {
                    m.matrix3
                } else {
                    blend_normal_at(&b, &w, nrm)
                };
                (m, nm)
            },
            no,
            job.to,
        ),
    }
}

/// `a·wa + b·wb + c·wc + d·wd`.
#[inline(always)]
fn wsum(a: Vec3A, b: Vec3A, c: Vec3A, d: Vec3A, w: &[Vec3A; 4]) -> Vec3A {
    a * w[0] + b * w[1] + c * w[2] + d * w[3]
}

/// Bone indices (clamped to the palette; a slot past it has weight 0, D13) and
/// splatted weights of vertex `v`.
#[inline(always)]
fn influences(v: &[f32], so: usize, last: usize) -> ([usize; 4], [Vec3A; 4]) {
    let (b, w) = skin_of(v, so);
    (b.map(|x| (x as usize).min(last)), w.map(Vec3A::splat))
}

/// The weighted sum of the four influences' matrices of vertex `v`.
#[inline(always)]
fn blend_affine(v: &[f32], so: usize, pal: &[Affine3A], last: usize) -> Affine3A {
    let (b, w) = influences(v, so, last);
    blend_affine_at(&b, &w, pal)
}

#[inline(always)]
fn blend_affine_at(b: &[usize; 4], w: &[Vec3A; 4], pal: &[Affine3A]) -> Affine3A {
    let (m0, m1, m2, m3) = (&pal[b[0]], &pal[b[1]], &pal[b[2]], &pal[b[3]]);
    Affine3A::from_cols(
        wsum(
            m0.matrix3.x_axis,
            m1.matrix3.x_axis,
            m2.matrix3.x_axis,
            m3.matrix3.x_axis,
            w,
        ),
        wsum(
            m0.matrix3.y_axis,
            m1.matrix3.y_axis,
            m2.matrix3.y_axis,
            m3.matrix3.y_axis,
            w,
        ),
        wsum(
            m0.matrix3.z_axis,
            m1.matrix3.z_axis,
            m2.matrix3.z_axis,
            m3.matrix3.z_axis,
            w,
        ),
        wsum(
            m0.translation,
            m1.translation,
            m2.translation,
            m3.translation,
            w,
        ),
    )
}

/// The weighted sum of the four influences' normal matrices of vertex `v`.
#[inline(always)]
fn blend_normal_at(b: &[usize; 4], w: &[Vec3A; 4], nrm: &[Mat3A]) -> Mat3A {
    let (m0, m1, m2, m3) = (&nrm[b[0]], &nrm[b[1]], &nrm[b[2]], &nrm[b[3]]);
    Mat3A::from_cols(
        wsum(m0.x_axis, m1.x_axis, m2.x_axis, m3.x_axis, w),
        wsum(m0.y_axis, m1.y_axis, m2.y_axis, m3.y_axis, w),
        wsum(m0.z_axis, m1.z_axis, m2.z_axis, m3.z_axis, w),
    )
}

/// `v / |v|`, or zero for a zero vector.
#[inline(always)]
fn unit(v: Vec3A) -> Vec3A {
    let l2 = v.dot(v);
    if l2 > 0.0 {
        v * (1.0 / l2.sqrt())
    } else {
        Vec3A::ZERO
    }
}

/// One vertex: skinned position and the normal before renormalisation.
#[inline(always)]
fn skin_one<const RIGID: bool>(
    v: &[f32],
    so: usize,
    no: usize,
    pal: &[Affine3A],
    nrm: &[Mat3A],
    last: usize,
) -> (Vec3A, Vec3A) {
    let (b, w) = influences(v, so, last);
    let m = blend_affine_at(&b, &w, pal);
    let p = m.transform_point3a(vec3a_at(v, 0));
    let nm = if RIGID {
        m.matrix3
    } else {
        blend_normal_at(&b, &w, nrm)
    };
    (p, nm * vec3a_at(v, no))
}

/// The hot path: positions and normals of a skinned mesh. Vertices go four at a
/// time so that the four normalisations (square root and division, long latency)
/// overlap instead of waiting on each other.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn skin_pn<const RIGID: bool>(
    words: &[f32],
    stride: usize,
    so: usize,
    no: usize,
    pal: &[Affine3A],
    nrm: &[Mat3A],
    last: usize,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) {
    // Equal lengths and `last = len − 1` let the compiler drop the bounds checks
    // after the clamp.
    let len = if RIGID {
        pal.len()
    } else {
        pal.len().min(nrm.len())
    }
    .min(last + 1);
    if len == 0 {
        return;
    }
    let (pal, nrm, last) = (&pal[..len], &nrm[..len.min(nrm.len())], len - 1);
    let one = |v: &[f32]| skin_one::<RIGID>(v, so, no, pal, nrm, last);
    let block = stride * 4;
    let mut vb = words.chunks_exact(block);
    let mut pb = positions.chunks_exact_mut(4);
    let mut nb = normals.chunks_exact_mut(4);
    for ((v, p), n) in (&mut vb).zip(&mut pb).zip(&mut nb) {
        let (p0, n0) = one(&v[..stride]);
        let (p1, n1) = one(&v[stride..2 * stride]);
        let (p2, n2) = one(&v[2 * stride..3 * stride]);
        let (p3, n3) = one(&v[3 * stride..]);
        let l2 = Vec4::new(n0.dot(n0), n1.dot(n1), n2.dot(n2), n3.dot(n3));
        let inv = Vec4::select(
            l2.cmpgt(Vec4::ZERO),
            Vec4::ONE / crate::sampling::sqrt4(l2),
            Vec4::ZERO,
        );
        p[0] = p0.to_array();
        p[1] = p1.to_array();
        p[2] = p2.to_array();
        p[3] = p3.to_array();
        n[0] = (n0 * inv.x).to_array();
        n[1] = (n1 * inv.y).to_array();
        n[2] = (n2 * inv.z).to_array();
        n[3] = (n3 * inv.w).to_array();
    }
    let rest = vb.remainder().chunks_exact(stride);
    for ((v, p), n) in rest.zip(pb.into_remainder()).zip(nb.into_remainder()) {
        let (pv, nv) = one(v);
        *p = pv.to_array();
        *n = unit(nv).to_array();
    }
}

/// The general path: any combination of outputs, the matrices given per vertex by
/// `matrices(vertex words, whether the normal matrix is needed)`.
pub(super) fn per_vertex(
    words: &[f32],
    stride: usize,
    out: SkinTargets<'_>,
    matrices: impl Fn(&[f32], bool) -> (Affine3A, Mat3A),
    no: usize,
    to: usize,
) {
    let SkinTargets {
        mut positions,
        mut normals,
        mut tangents,
    } = out;
    for (i, v) in words.chunks_exact(stride).enumerate() {
        let (m, nm) = matrices(v, normals.is_some());
        if let Some(p) = positions.as_deref_mut().and_then(|b| b.get_mut(i)) {
            *p = m.transform_point3a(vec3a_at(v, 0)).to_array();
        }
        if let Some(n) = normals.as_deref_mut().and_then(|b| b.get_mut(i)) {
            *n = unit(nm * vec3a_at(v, no)).to_array();
        }
        if let Some(t) = tangents.as_deref_mut().and_then(|b| b.get_mut(i)) {
            let d = unit(m.matrix3 * vec3a_at(v, to));
            let w = v.get(to + 3).copied().unwrap_or(1.0);
            *t = [d.x, d.y, d.z, w];
        }
    }
}
