//! `f64` matrices while converting, rounded to `f32` only when written into the model.
//!
//! GOM writes matrices row-major for row vectors (D1: `p' = p * M`). An [`M64`] is a
//! glam [`DMat4`] for column vectors holding the same transform: its column-major
//! array is GOM's row-major array, so [`to_f32`] and [`inverse`] pass the array
//! through, and a GOM product `a * b` ("first `a`, then `b`", [`mul`]) is glam's
//! `b * a`.

use glam::{DMat3, DMat4, DQuat, DVec3};
use gom::Mat4;

/// A 4x4 `f64` affine matrix (see the module documentation).
pub(crate) type M64 = DMat4;

/// The identity.
pub(crate) const ID: M64 = DMat4::IDENTITY;

/// A ufbx matrix (column vectors, 3x4).
pub(crate) fn from_ufbx(m: &ufbx::Matrix) -> M64 {
    DMat4::from_cols_array(&[
        m.m00, m.m10, m.m20, 0.0, //
        m.m01, m.m11, m.m21, 0.0, //
        m.m02, m.m12, m.m22, 0.0, //
        m.m03, m.m13, m.m23, 1.0,
    ])
}

/// A ufbx transform from translation, rotation (x, y, z, w) and scale.
pub(crate) fn transform_of(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> ufbx::Transform {
    ufbx::Transform {
        translation: ufbx::Vec3 {
            x: t[0],
            y: t[1],
            z: t[2],
        },
        rotation: ufbx::Quat {
            x: q[0],
            y: q[1],
            z: q[2],
            w: q[3],
        },
        scale: ufbx::Vec3 {
            x: s[0],
            y: s[1],
            z: s[2],
        },
    }
}

/// Scale, then rotate, then translate, by a ufbx transform (whose rotation is taken
/// as given, not normalised).
pub(crate) fn from_transform(t: &ufbx::Transform) -> M64 {
    let r = &t.rotation;
    DMat4::from_scale_rotation_translation(
        DVec3::new(t.scale.x, t.scale.y, t.scale.z),
        DQuat::from_xyzw(r.x, r.y, r.z, r.w),
        DVec3::new(t.translation.x, t.translation.y, t.translation.z),
    )
}

/// First `a`, then `b` (GOM's `a * b`).
pub(crate) fn mul(a: &M64, b: &M64) -> M64 {
    *b * *a
}

/// Inverse of an affine matrix, `None` when singular. gom's own inverse
/// (`gom::math::inverse_affine_f64`), not glam's: the bind matrices it gives are
/// written into the model, and the golden output bytes depend on its rounding.
pub(crate) fn inverse(m: &M64) -> Option<M64> {
    gom::math::inverse_affine_f64(&m.to_cols_array(), 0.0).map(|a| DMat4::from_cols_array(&a))
}

/// The matrix that transforms normals like `m` transforms points: the transpose of the
/// inverse of the 3x3 part (identity when singular).
pub(crate) fn normal_matrix(m: &M64) -> M64 {
    let inv = inverse(m).unwrap_or(DMat4::IDENTITY);
    DMat4::from_mat3(DMat3::from_mat4(inv).transpose())
}

/// Determinant of the 3x3 part.
pub(crate) fn det3(m: &M64) -> f64 {
    DMat3::from_mat4(*m).determinant()
}

/// `v` scaled to unit length (unchanged when zero). Divides by the length rather than
/// multiplying by its reciprocal as glam's `normalize` does: the normals and tangents
/// it gives are written into the model, and the golden output bytes depend on the
/// division's rounding.
pub(crate) fn normalize(v: DVec3) -> DVec3 {
    let l = v.length();
    if l > 0.0 && l.is_finite() {
        v / l
    } else {
        v
    }
}

/// Whether two matrices agree within `eps`, relative to the larger of 1 and the
/// matrices' largest element.
pub(crate) fn approx_eq(a: &M64, b: &M64, eps: f64) -> bool {
    let largest = |m: &M64| m.abs().to_cols_array().into_iter().fold(1.0f64, f64::max);
    a.abs_diff_eq(*b, eps * largest(a).max(largest(b)))
}

/// Rounded to `f32` in GOM's layout (−0 written as +0).
pub(crate) fn to_f32(m: &M64) -> Mat4 {
    m.to_cols_array()
        .map(|v| crate::optimize::mesh::canon(v as f32))
}

/// Splits an affine matrix into `S * R * T` (translation, unit quaternion x y z w,
/// scale). A negative determinant is carried by a negative x scale. Also returns the
/// largest element difference between `m` and the recomposed matrix (non-zero when `m`
/// has shear). Uses only square roots (correctly rounded, so deterministic).
///
/// Written out rather than glam's `to_scale_rotation_translation`: the keys it gives
/// are written into the model, and glam picks the quaternion branch and normalises
/// differently, which changes the golden output bytes.
pub(crate) fn decompose(m: &M64) -> ([f64; 3], [f64; 4], [f64; 3], f64) {
    let negative = det3(m) < 0.0;
    let m = m.to_cols_array();
    let t = [m[12], m[13], m[14]];
    let row = |r: usize| [m[r * 4], m[r * 4 + 1], m[r * 4 + 2]];
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let mut s = [len(row(0)), len(row(1)), len(row(2))];
    if negative {
        s[0] = -s[0];
    }
    let mut r = [[0.0f64; 3]; 3];
    for (i, ri) in r.iter_mut().enumerate() {
        let v = row(i);
        for k in 0..3 {
            ri[k] = if s[i] != 0.0 {
                v[k] / s[i]
            } else if i == k {
                1.0
            } else {
                0.0
            };
        }
    }
    let q = rotation_to_quat(&r);
    let back = from_transform(&transform_of(t, q, s)).to_cols_array();
    let err = back
        .iter()
        .zip(m.iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    (t, q, s, err)
}

/// The unit quaternion (x, y, z, w) of a row-vector rotation matrix (the transpose of
/// the column form).
fn rotation_to_quat(r: &[[f64; 3]; 3]) -> [f64; 4] {
    let (m00, m01, m02) = (r[0][0], r[0][1], r[0][2]);
    let (m10, m11, m12) = (r[1][0], r[1][1], r[1][2]);
    let (m20, m21, m22) = (r[2][0], r[2][1], r[2][2]);
    let trace = m00 + m11 + m22;
    let q = if trace > 0.0 {
        let k = (trace + 1.0).sqrt() * 2.0;
        [(m12 - m21) / k, (m20 - m02) / k, (m01 - m10) / k, 0.25 * k]
    } else if m00 > m11 && m00 > m22 {
        let k = (1.0 + m00 - m11 - m22).sqrt() * 2.0;
        [0.25 * k, (m01 + m10) / k, (m02 + m20) / k, (m12 - m21) / k]
    } else if m11 > m22 {
        let k = (1.0 + m11 - m00 - m22).sqrt() * 2.0;
        [(m01 + m10) / k, 0.25 * k, (m12 + m21) / k, (m20 - m02) / k]
    } else {
        let k = (1.0 + m22 - m00 - m11).sqrt() * 2.0;
        [(m02 + m20) / k, (m12 + m21) / k, 0.25 * k, (m01 - m10) / k]
    };
    let ql = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if ql > 0.0 {
        q.map(|v| v / ql)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The old hand-written row-major product, as an independent reference.
    fn row_major_product(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
        let mut r = [0.0; 16];
        for i in 0..4 {
            for j in 0..4 {
                r[i * 4 + j] = (0..4).map(|k| a[i * 4 + k] * b[k * 4 + j]).sum();
            }
        }
        r
    }

    fn sample_transform() -> ufbx::Transform {
        transform_of([1.0, -2.0, 3.0], [0.0, 0.6, 0.0, 0.8], [2.0, 0.5, 1.5])
    }

    #[test]
    fn decompose_recovers_trs() {
        let m = from_transform(&sample_transform());
        let (tt, q, s, err) = decompose(&m);
        assert!(err < 1e-12);
        assert_eq!(tt, [1.0, -2.0, 3.0]);
        assert!((q[1] - 0.6).abs() < 1e-12 && (q[3] - 0.8).abs() < 1e-12);
        assert!((s[0] - 2.0).abs() < 1e-12 && (s[1] - 0.5).abs() < 1e-12);
        let inv = inverse(&m).unwrap();
        assert!(approx_eq(&mul(&m, &inv), &DMat4::IDENTITY, 1e-12));
    }

    /// GOM's layout and order: a point `p` goes through `a` first, then `b`, as row
    /// vectors times the row-major arrays; the scale of x lands in the first row.
    #[test]
    fn products_follow_gom_order_and_layout() {
        let a = from_transform(&sample_transform());
        let b = from_transform(&transform_of(
            [0.5, 0.0, -1.0],
            [0.6, 0.0, 0.0, 0.8],
            [1.0, 3.0, 1.0],
        ));
        let (ra, rb) = (a.to_cols_array(), b.to_cols_array());
        assert_eq!(mul(&a, &b).to_cols_array(), row_major_product(&ra, &rb));
        // Row 0 of S * R with R = rotation about y by 2 * atan(0.6 / 0.8): (cos, 0, -sin) * 2.
        let (c, s) = (0.8 * 0.8 - 0.6 * 0.6, 2.0 * 0.6 * 0.8);
        assert!((ra[0] - 2.0 * c).abs() < 1e-15 && ra[1] == 0.0);
        assert!((ra[2] + 2.0 * s).abs() < 1e-15);
        assert_eq!(&ra[12..], &[1.0, -2.0, 3.0, 1.0]);
        let p = DVec3::new(1.0, 2.0, 3.0);
        let row = |m: &[f64; 16], p: DVec3| {
            let v = [p.x, p.y, p.z, 1.0];
            DVec3::new(
                (0..4).map(|k| v[k] * m[k * 4]).sum(),
                (0..4).map(|k| v[k] * m[k * 4 + 1]).sum(),
                (0..4).map(|k| v[k] * m[k * 4 + 2]).sum(),
            )
        };
        let want = row(&rb, row(&ra, p));
        assert!(mul(&a, &b).transform_point3(p).abs_diff_eq(want, 1e-12));
        assert!((det3(&a) - 1.5).abs() < 1e-12);
    }
}
