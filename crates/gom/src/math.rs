//! The few matrix and quaternion operations the format needs, in GOM's convention (D1):
//! row-major storage, row vectors (`p' = p * M`), composition left to right.
//!
//! Everything here is plain `f32`/`f64` arithmetic without transcendental functions, so
//! results are the same on every platform (D11).

use crate::model::Mat4;
#[cfg(test)]
use crate::model::IDENTITY;

/// `a * b`: first `a`, then `b`.
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut r = [0.0f32; 16];
    for i in 0..4 {
        for j in 0..4 {
            let mut s = 0.0f32;
            for k in 0..4 {
                s += a[i * 4 + k] * b[k * 4 + j];
            }
            r[i * 4 + j] = s;
        }
    }
    r
}

/// `a * b` in `f64`: first `a`, then `b`. Each element is summed as an iterator
/// `sum()` of the four products, in index order; converters that derive stored matrices
/// from it rely on exactly these bits (D11).
pub fn mul_f64(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
    let mut r = [0.0f64; 16];
    for i in 0..4 {
        for j in 0..4 {
            r[i * 4 + j] = (0..4).map(|k| a[i * 4 + k] * b[k * 4 + j]).sum();
        }
    }
    r
}

/// Transforms the point `p` (w = 1): `p * m`, no w divide (matrices are affine).
pub fn transform_point(m: &Mat4, p: [f32; 3]) -> [f32; 3] {
    [
        p[0] * m[0] + p[1] * m[4] + p[2] * m[8] + m[12],
        p[0] * m[1] + p[1] * m[5] + p[2] * m[9] + m[13],
        p[0] * m[2] + p[1] * m[6] + p[2] * m[10] + m[14],
    ]
}

/// Transforms the direction `v` (w = 0) by the upper 3x3 of `m`.
pub fn transform_vector(m: &Mat4, v: [f32; 3]) -> [f32; 3] {
    [
        v[0] * m[0] + v[1] * m[4] + v[2] * m[8],
        v[0] * m[1] + v[1] * m[5] + v[2] * m[9],
        v[0] * m[2] + v[1] * m[6] + v[2] * m[10],
    ]
}

/// The rotation matrix of the unit quaternion `q = (x, y, z, w)` in row-vector form
/// (the transpose of the usual column-vector matrix).
pub fn quat_to_mat(q: [f32; 4]) -> Mat4 {
    let [x, y, z, w] = q;
    let (xx, yy, zz) = (x * x, y * y, z * z);
    let (xy, xz, yz) = (x * y, x * z, y * z);
    let (wx, wy, wz) = (w * x, w * y, w * z);
    [
        1.0 - 2.0 * (yy + zz),
        2.0 * (xy + wz),
        2.0 * (xz - wy),
        0.0,
        2.0 * (xy - wz),
        1.0 - 2.0 * (xx + zz),
        2.0 * (yz + wx),
        0.0,
        2.0 * (xz + wy),
        2.0 * (yz - wx),
        1.0 - 2.0 * (xx + yy),
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
    ]
}

/// `S * R * T` (D1): scale, then rotate, then translate.
pub fn from_trs(t: [f32; 3], r: [f32; 4], s: [f32; 3]) -> Mat4 {
    let mut m = quat_to_mat(r);
    for (row, scale) in s.iter().enumerate() {
        for col in 0..3 {
            m[row * 4 + col] *= scale;
        }
    }
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m
}

/// Inverse of an affine matrix (last column 0, 0, 0, 1), computed in `f64` and rounded
/// to `f32`. Returns `None` when the 3x3 part is singular.
pub fn inverse_affine(m: &Mat4) -> Option<Mat4> {
    inverse_affine_f64(&m.map(f64::from), 0.0).map(|r| r.map(|v| v as f32))
}

/// Inverse of an affine `f64` matrix (row-major, row vectors). Returns `None` when the
/// determinant of the 3x3 part is zero, not finite, or smaller in magnitude than
/// `min_abs_det`.
pub fn inverse_affine_f64(m: &[f64; 16], min_abs_det: f64) -> Option<[f64; 16]> {
    let a = |r: usize, c: usize| m[r * 4 + c];
    let c00 = a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1);
    let c01 = a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2);
    let c02 = a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0);
    let det = a(0, 0) * c00 + a(0, 1) * c01 + a(0, 2) * c02;
    if det == 0.0 || !det.is_finite() || det.abs() < min_abs_det {
        return None;
    }
    let inv_det = 1.0 / det;
    let i = [
        [
            c00 * inv_det,
            (a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2)) * inv_det,
            (a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1)) * inv_det,
        ],
        [
            c01 * inv_det,
            (a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0)) * inv_det,
            (a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2)) * inv_det,
        ],
        [
            c02 * inv_det,
            (a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1)) * inv_det,
            (a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0)) * inv_det,
        ],
    ];
    let mut r = [0.0f64; 16];
    for row in 0..3 {
        for col in 0..3 {
            r[row * 4 + col] = i[row][col];
        }
    }
    for col in 0..3 {
        r[12 + col] = -(a(3, 0) * i[0][col] + a(3, 1) * i[1][col] + a(3, 2) * i[2][col]);
    }
    r[15] = 1.0;
    Some(r)
}

/// Model-space bind matrices of a skeleton: `world[i] = bind_local[i] * world[parent]`.
/// Bones whose parent is not an earlier bone are treated as roots.
pub fn bind_world(bones: &[crate::model::Bone]) -> Vec<Mat4> {
    let mut world: Vec<Mat4> = Vec::with_capacity(bones.len());
    for (i, bone) in bones.iter().enumerate() {
        let m = match bone.parent_index() {
            Some(p) if p < i => mul(&bone.bind_local, &world[p]),
            _ => bone.bind_local,
        };
        world.push(m);
    }
    world
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trs_applies_scale_then_rotation_then_translation() {
        // +90° about Y: (0, sin 45°, 0, cos 45°).
        let h = core::f32::consts::FRAC_1_SQRT_2;
        let q = [0.0, h, 0.0, h];
        let m = from_trs([1.0, 2.0, 3.0], q, [2.0, 2.0, 2.0]);
        let p = transform_point(&m, [1.0, 0.0, 0.0]);
        // scale gives (2,0,0), +90° about Y takes +X to -Z: (0,0,-2), then translate.
        assert!((p[0] - 1.0).abs() < 1e-6, "{p:?}");
        assert!((p[1] - 2.0).abs() < 1e-6, "{p:?}");
        assert!((p[2] - 1.0).abs() < 1e-6, "{p:?}");
    }

    #[test]
    fn mul_f64_composes_left_to_right() {
        // Scale x by 2, then translate by (1, 0, 0): (1, 0, 0) goes to (3, 0, 0).
        let mut s = [0.0f64; 16];
        let mut t = [0.0f64; 16];
        for k in 0..4 {
            s[k * 5] = 1.0;
            t[k * 5] = 1.0;
        }
        s[0] = 2.0;
        t[12] = 1.0;
        let m = mul_f64(&s, &t);
        let p = [1.0, 0.0, 0.0, 1.0];
        let x: f64 = (0..4).map(|k| p[k] * m[k * 4]).sum();
        assert_eq!(x, 3.0);
        assert_eq!(mul_f64(&t, &s)[12], 2.0);
    }

    #[test]
    fn inverse_affine_undoes_the_matrix() {
        let (s, c) = 0.35f32.sin_cos();
        let q = [0.0, 0.6 * s, 0.8 * s, c];
        let m = from_trs([1.0, -2.0, 3.0], q, [1.0, 2.0, 0.5]);
        let inv = inverse_affine(&m).unwrap();
        let id = mul(&m, &inv);
        for (a, b) in id.iter().zip(IDENTITY.iter()) {
            assert!((a - b).abs() < 1e-5);
        }
    }
}
