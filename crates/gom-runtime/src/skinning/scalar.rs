//! The scalar path: one vertex at a time in plain `f32` arithmetic. It is the
//! reference the vector paths are tested against and the tail of the AVX2 path.

use glam::{Affine3A, Mat3A, Vec3A};

use super::{Job, SkinTargets};
use crate::mesh::skin_of;

/// Four columns of three rows: `x`, `y`, `z` axes and the translation.
pub(super) type Cols = [[f32; 3]; 4];

fn xyz(v: Vec3A) -> [f32; 3] {
    [v.x, v.y, v.z]
}

pub(super) fn affine_cols(m: &Affine3A) -> Cols {
    [
        xyz(m.matrix3.x_axis),
        xyz(m.matrix3.y_axis),
        xyz(m.matrix3.z_axis),
        xyz(m.translation),
    ]
}

pub(super) fn mat3_cols(m: &Mat3A) -> Cols {
    [xyz(m.x_axis), xyz(m.y_axis), xyz(m.z_axis), [0.0; 3]]
}

/// `Σ w_k · cols(b_k)`, summed in influence order.
pub(super) fn blend(b: &[usize], w: &[f32], cols: impl Fn(usize) -> Cols) -> Cols {
    let mut acc = [[0.0f32; 3]; 4];
    for (&bk, &wk) in b.iter().zip(w) {
        let m = cols(bk);
        for c in 0..4 {
            for r in 0..3 {
                acc[c][r] += wk * m[c][r];
            }
        }
    }
    acc
}

/// `x·c0 + y·c1 + z·c2 + t·c3`.
pub(super) fn apply(m: &Cols, v: &[f32], t: f32) -> [f32; 3] {
    let mut o = [0.0f32; 3];
    for (r, o) in o.iter_mut().enumerate() {
        *o = v[0] * m[0][r] + v[1] * m[1][r] + v[2] * m[2][r] + t * m[3][r];
    }
    o
}

/// `v / |v|`, or zero for a zero vector.
fn unit(v: [f32; 3]) -> [f32; 3] {
    let l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if l2 > 0.0 {
        let inv = 1.0 / l2.sqrt();
        v.map(|x| x * inv)
    } else {
        [0.0; 3]
    }
}

/// Skins the vertices of `words` (whole vertices) into `out` (one entry each).
pub(super) fn skin(job: &Job<'_>, words: &[f32], out: SkinTargets<'_>) {
    let SkinTargets {
        mut positions,
        mut normals,
        mut tangents,
    } = out;
    for (i, v) in words.chunks_exact(job.stride).enumerate() {
        let (b, w) = skin_of(v, job.so);
        let b = b.map(|x| usize::from(x).min(job.last));
        let m = blend(&b, &w, |k| affine_cols(&job.pal[k]));
        if let Some(p) = positions.as_deref_mut().and_then(|o| o.get_mut(i)) {
            *p = apply(&m, &v[..3], 1.0);
        }
        if let Some(n) = normals.as_deref_mut().and_then(|o| o.get_mut(i)) {
            let nm = if job.rigid {
                m
            } else {
                blend(&b, &w, |k| mat3_cols(&job.nrm[k]))
            };
            *n = unit(apply(&nm, &v[job.no..job.no + 3], 0.0));
        }
        if let Some(t) = tangents.as_deref_mut().and_then(|o| o.get_mut(i)) {
            let [x, y, z] = unit(apply(&m, &v[job.to..job.to + 3], 0.0));
            *t = [x, y, z, v[job.to + 3]];
        }
    }
}
