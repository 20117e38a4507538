//! Right-handed glTF ↔ left-handed GOM (D2), and the small vector helpers both
//! directions share.
//!
//! A glTF matrix stored column-major, read element by element as a row-major GOM
//! matrix, is exactly its row-vector form (the transpose), so no reordering is needed.
//! The mirror F = diag(1, 1, −1, 1) is its own inverse: the same functions convert
//! both ways.

use gom::Mat4;

/// `F * m * F`: negates the elements with exactly one index equal to 2 (z).
pub(crate) fn mirror_mat(m: &Mat4) -> Mat4 {
    let mut r = *m;
    for i in [2usize, 6, 14, 8, 9, 11] {
        r[i] = -r[i];
    }
    r
}

/// Mirrors a point or a direction: z negated.
pub(crate) fn mirror_vec3(v: [f32; 3]) -> [f32; 3] {
    [v[0], v[1], -v[2]]
}

/// Mirrors a rotation: (x, y, z, w) → (−x, −y, z, w).
pub(crate) fn mirror_quat(q: [f32; 4]) -> [f32; 4] {
    [-q[0], -q[1], q[2], q[3]]
}

/// Mirrors a tangent: xyz like a direction, and the handedness w flips sign.
pub(crate) fn mirror_tangent(t: [f32; 4]) -> [f32; 4] {
    [t[0], t[1], -t[2], -t[3]]
}

/// A whole model mirrored on z (read in the other handedness): bind poses, inverse
/// binds and mesh transforms by [`mirror_mat`], points, normals and tangents, bounds,
/// key translations and rotations, and every triangle's winding reversed so that its
/// front stays its front.
pub(crate) fn mirror_model(model: &mut gom::Model) {
    for bone in &mut model.skeleton.bones {
        bone.bind_local = mirror_mat(&bone.bind_local);
    }
    for part in &mut model.meshes {
        let v = &mut part.vertices;
        v.positions.iter_mut().for_each(|p| *p = mirror_vec3(*p));
        if let Some(n) = &mut v.normals {
            n.iter_mut().for_each(|n| *n = mirror_vec3(*n));
        }
        if let Some(t) = &mut v.tangents {
            t.iter_mut().for_each(|t| *t = mirror_tangent(*t));
        }
        for tri in part.indices.chunks_exact_mut(3) {
            tri.swap(1, 2);
        }
        part.inverse_bind
            .iter_mut()
            .for_each(|m| *m = mirror_mat(m));
        if let Some(g) = &mut part.mesh_bind_geo_to_model {
            *g = mirror_mat(g);
        }
        if let Some(b) = &mut part.bounds {
            (b.aabb_min[2], b.aabb_max[2]) = (-b.aabb_max[2], -b.aabb_min[2]);
            b.sphere_center[2] = -b.sphere_center[2];
        }
        // Morph deltas are directions: mirrored as positions are.
        for t in &mut part.morph_targets {
            let deltas = [
                Some(&mut t.positions),
                t.normals.as_mut(),
                t.tangents.as_mut(),
            ];
            for d in deltas.into_iter().flatten() {
                d.iter_mut().for_each(|v| *v = mirror_vec3(*v));
            }
        }
    }
    for key in model
        .clips
        .iter_mut()
        .flat_map(|c| &mut c.tracks)
        .flat_map(|t| &mut t.keys)
    {
        key.translation = mirror_vec3(key.translation);
        key.rotation = mirror_quat(key.rotation);
    }
}

/// `v / |v|` in `f64`, rounded to `f32`; `None` when the length is NaN, infinite or
/// at most `min_len`.
fn normalize_n<const N: usize>(v: [f64; N], min_len: f64) -> Option<[f32; N]> {
    let len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if len.is_nan() || len <= min_len || !len.is_finite() {
        return None;
    }
    Some(v.map(|x| (x / len) as f32))
}

/// Normalises a quaternion in `f64`; `None` when its length is zero or not finite.
pub(crate) fn normalize_quat(q: [f64; 4]) -> Option<[f32; 4]> {
    normalize_n(q, 1e-12)
}

/// Normalises a 3-vector in `f64`; `None` when its length is zero.
pub(crate) fn normalize3(v: [f64; 3]) -> Option<[f32; 3]> {
    normalize_n(v, 1e-20)
}

/// Spherical interpolation along the shorter arc, in `f64` with `libm`.
pub(crate) fn slerp(a: [f64; 4], b: [f64; 4], u: f64) -> [f64; 4] {
    let mut d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    let mut b = b;
    if d < 0.0 {
        d = -d;
        b = [-b[0], -b[1], -b[2], -b[3]];
    }
    let (wa, wb) = if d > 0.9995 {
        (1.0 - u, u)
    } else {
        let theta = libm::acos(d.min(1.0));
        let s = libm::sin(theta);
        (libm::sin((1.0 - u) * theta) / s, libm::sin(u * theta) / s)
    };
    [
        wa * a[0] + wb * b[0],
        wa * a[1] + wb * b[1],
        wa * a[2] + wb * b[2],
        wa * a[3] + wb * b[3],
    ]
}

/// Determinant of the upper 3x3 of `m`, in `f64` (only its sign is used: whether a
/// transform mirrors).
pub(crate) fn det3(m: &Mat4) -> f64 {
    // Rows of the row-vector form as columns: the transpose, whose determinant is the
    // same.
    let row = |r: usize| {
        glam::DVec3::new(
            f64::from(m[r * 4]),
            f64::from(m[r * 4 + 1]),
            f64::from(m[r * 4 + 2]),
        )
    };
    glam::DMat3::from_cols(row(0), row(1), row(2)).determinant()
}

/// Splits a row-vector affine matrix `S * R * T` into translation, rotation (x, y, z, w)
/// and scale. A negative determinant is carried by a negative x scale. Exact for
/// matrices built from TRS; for sheared matrices it gives the nearest rotation.
///
/// Written out rather than taken from `glam::DMat4::to_scale_rotation_translation`:
/// the exported glTF's TRS values, and the exporter's check that they rebuild the
/// matrix exactly, depend on these bits; glam picks its quaternion branch differently
/// (and leaves the sign of `w` free), which changes the last bits of some rotations.
pub(crate) fn decompose(m: &Mat4) -> ([f32; 3], [f32; 4], [f32; 3]) {
    let t = [m[12], m[13], m[14]];
    let row = |r: usize| {
        [
            f64::from(m[r * 4]),
            f64::from(m[r * 4 + 1]),
            f64::from(m[r * 4 + 2]),
        ]
    };
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let mut rows = [row(0), row(1), row(2)];
    let mut s = [len(rows[0]), len(rows[1]), len(rows[2])];
    if det3(m) < 0.0 {
        s[0] = -s[0];
    }
    for (r, sc) in rows.iter_mut().zip(s) {
        if sc != 0.0 {
            for v in r.iter_mut() {
                *v /= sc;
            }
        }
    }
    // rows is now the row-vector rotation matrix R^T of the column-vector R:
    // element (i, j) of the row form is R[j][i].
    let r = |i: usize, j: usize| rows[j][i];
    let trace = r(0, 0) + r(1, 1) + r(2, 2);
    let q = if trace > 0.0 {
        let k = (trace + 1.0).sqrt() * 2.0;
        [
            (r(2, 1) - r(1, 2)) / k,
            (r(0, 2) - r(2, 0)) / k,
            (r(1, 0) - r(0, 1)) / k,
            0.25 * k,
        ]
    } else if r(0, 0) > r(1, 1) && r(0, 0) > r(2, 2) {
        let k = (1.0 + r(0, 0) - r(1, 1) - r(2, 2)).max(0.0).sqrt() * 2.0;
        [
            0.25 * k,
            (r(0, 1) + r(1, 0)) / k,
            (r(0, 2) + r(2, 0)) / k,
            (r(2, 1) - r(1, 2)) / k,
        ]
    } else if r(1, 1) > r(2, 2) {
        let k = (1.0 + r(1, 1) - r(0, 0) - r(2, 2)).max(0.0).sqrt() * 2.0;
        [
            (r(0, 1) + r(1, 0)) / k,
            0.25 * k,
            (r(1, 2) + r(2, 1)) / k,
            (r(0, 2) - r(2, 0)) / k,
        ]
    } else {
        let k = (1.0 + r(2, 2) - r(0, 0) - r(1, 1)).max(0.0).sqrt() * 2.0;
        [
            (r(0, 2) + r(2, 0)) / k,
            (r(1, 2) + r(2, 1)) / k,
            0.25 * k,
            (r(1, 0) - r(0, 1)) / k,
        ]
    };
    let mut q = normalize_quat(q).unwrap_or([0.0, 0.0, 0.0, 1.0]);
    if q[3] < 0.0 {
        q = [-q[0], -q[1], -q[2], -q[3]];
    }
    (t, q, [s[0] as f32, s[1] as f32, s[2] as f32])
}

/// The inverse-transpose of the upper 3x3 of `m` (for normals), as a matrix whose
/// `transform_vector` maps normals; `None` when singular.
pub(crate) fn normal_matrix(m: &Mat4) -> Option<Mat4> {
    let mut lin = *m;
    lin[12] = 0.0;
    lin[13] = 0.0;
    lin[14] = 0.0;
    let inv = gom::math::inverse_affine(&lin)?;
    let mut t = gom::IDENTITY;
    for r in 0..3 {
        for c in 0..3 {
            t[r * 4 + c] = inv[c * 4 + r];
        }
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mirrored model's morph deltas are mirrored with its vertices: z negated.
    #[test]
    fn mirroring_a_model_mirrors_its_morph_deltas() {
        let target = gom::morph::MorphTarget {
            name: "t".into(),
            indices: vec![0],
            positions: vec![[1.0, 2.0, 3.0]],
            normals: Some(vec![[0.0, 0.5, -0.5]]),
            tangents: Some(vec![[0.25, 0.0, 1.0]]),
            ..Default::default()
        };
        let mut model = gom::Model::default();
        model.meshes.push(gom::MeshPart {
            morph_targets: vec![target],
            ..Default::default()
        });
        mirror_model(&mut model);
        let t = &model.meshes[0].morph_targets[0];
        assert_eq!(t.positions, [[1.0, 2.0, -3.0]]);
        assert_eq!(t.normals.as_deref(), Some(&[[0.0, 0.5, 0.5]][..]));
        assert_eq!(t.tangents.as_deref(), Some(&[[0.25, 0.0, -1.0]][..]));
    }
}
