//! `f64` matrices in GOM's convention (D1: row-major, row vectors, `p' = p * M`), used
//! while converting; rounded to `f32` only when written into the model.

use gom::Mat4;

/// A 4x4 `f64` matrix, row-major, row-vector convention.
pub(crate) type M64 = [f64; 16];

/// The identity.
pub(crate) const ID: M64 = [
    1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// A ufbx matrix (column vectors, 3x4) in GOM's row-vector form: its transpose.
pub(crate) fn from_ufbx(m: &ufbx::Matrix) -> M64 {
    [
        m.m00, m.m10, m.m20, 0.0, //
        m.m01, m.m11, m.m21, 0.0, //
        m.m02, m.m12, m.m22, 0.0, //
        m.m03, m.m13, m.m23, 1.0,
    ]
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

/// `S * R * T` of a ufbx transform (scale, then rotate, then translate).
pub(crate) fn from_transform(t: &ufbx::Transform) -> M64 {
    let q = [t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w];
    let [x, y, z, w] = q;
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + w * z),
            2.0 * (x * z - w * y),
        ],
        [
            2.0 * (x * y - w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + w * x),
        ],
        [
            2.0 * (x * z + w * y),
            2.0 * (y * z - w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let s = [t.scale.x, t.scale.y, t.scale.z];
    let mut m = ID;
    for row in 0..3 {
        for col in 0..3 {
            m[row * 4 + col] = r[row][col] * s[row];
        }
    }
    m[12] = t.translation.x;
    m[13] = t.translation.y;
    m[14] = t.translation.z;
    m
}

/// `a * b`: first `a`, then `b`.
pub(crate) fn mul(a: &M64, b: &M64) -> M64 {
    let mut r = [0.0; 16];
    for i in 0..4 {
        for j in 0..4 {
            let mut s = 0.0;
            for k in 0..4 {
                s += a[i * 4 + k] * b[k * 4 + j];
            }
            r[i * 4 + j] = s;
        }
    }
    r
}

/// Determinant of the 3x3 part.
pub(crate) fn det3(m: &M64) -> f64 {
    m[0] * (m[5] * m[10] - m[6] * m[9]) - m[1] * (m[4] * m[10] - m[6] * m[8])
        + m[2] * (m[4] * m[9] - m[5] * m[8])
}

/// Inverse of an affine matrix, `None` when singular (`gom::math::inverse_affine_f64`).
pub(crate) fn inverse(m: &M64) -> Option<M64> {
    gom::math::inverse_affine_f64(m, 0.0)
}

/// The matrix that transforms normals like `m` transforms points: the transpose of the
/// inverse of the 3x3 part (identity when singular).
pub(crate) fn normal_matrix(m: &M64) -> M64 {
    let inv = inverse(m).unwrap_or(ID);
    let mut r = ID;
    for row in 0..3 {
        for col in 0..3 {
            r[row * 4 + col] = inv[col * 4 + row];
        }
    }
    r
}

/// `p * m` for a point.
pub(crate) fn point(m: &M64, p: [f64; 3]) -> [f64; 3] {
    [
        p[0] * m[0] + p[1] * m[4] + p[2] * m[8] + m[12],
        p[0] * m[1] + p[1] * m[5] + p[2] * m[9] + m[13],
        p[0] * m[2] + p[1] * m[6] + p[2] * m[10] + m[14],
    ]
}

/// `v * m` for a direction (3x3 part only).
pub(crate) fn vector(m: &M64, v: [f64; 3]) -> [f64; 3] {
    [
        v[0] * m[0] + v[1] * m[4] + v[2] * m[8],
        v[0] * m[1] + v[1] * m[5] + v[2] * m[9],
        v[0] * m[2] + v[1] * m[6] + v[2] * m[10],
    ]
}

/// `v` scaled to unit length (unchanged when zero).
pub(crate) fn normalize(v: [f64; 3]) -> [f64; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if l > 0.0 && l.is_finite() {
        [v[0] / l, v[1] / l, v[2] / l]
    } else {
        v
    }
}

/// Whether two matrices agree within `eps`, relative to the larger of 1 and the
/// matrices' largest element.
pub(crate) fn approx_eq(a: &M64, b: &M64, eps: f64) -> bool {
    let scale = a.iter().chain(b.iter()).fold(1.0f64, |m, v| m.max(v.abs()));
    a.iter()
        .zip(b.iter())
        .all(|(x, y)| (x - y).abs() <= eps * scale)
}

/// Rounded to `f32` (−0 written as +0).
pub(crate) fn to_f32(m: &M64) -> Mat4 {
    m.map(|v| crate::optimize::mesh::canon(v as f32))
}

/// Splits an affine matrix into `S * R * T` (translation, unit quaternion x y z w,
/// scale). A negative determinant is carried by a negative x scale. Also returns the
/// largest element difference between `m` and the recomposed matrix (non-zero when `m`
/// has shear). Uses only square roots (correctly rounded, so deterministic).
pub(crate) fn decompose(m: &M64) -> ([f64; 3], [f64; 4], [f64; 3], f64) {
    let t = [m[12], m[13], m[14]];
    let row = |r: usize| [m[r * 4], m[r * 4 + 1], m[r * 4 + 2]];
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let mut s = [len(row(0)), len(row(1)), len(row(2))];
    if det3(m) < 0.0 {
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
    // Row-vector rotation matrix (transpose of the column form) to quaternion.
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
    let q = if ql > 0.0 {
        q.map(|v| v / ql)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    };
    let back = from_transform(&transform_of(t, q, s));
    let err = back
        .iter()
        .zip(m.iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    (t, q, s, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decompose_recovers_trs() {
        let t = ufbx::Transform {
            translation: ufbx::Vec3 {
                x: 1.0,
                y: -2.0,
                z: 3.0,
            },
            rotation: ufbx::Quat {
                x: 0.0,
                y: 0.6,
                z: 0.0,
                w: 0.8,
            },
            scale: ufbx::Vec3 {
                x: 2.0,
                y: 0.5,
                z: 1.5,
            },
        };
        let m = from_transform(&t);
        let (tt, q, s, err) = decompose(&m);
        assert!(err < 1e-12);
        assert_eq!(tt, [1.0, -2.0, 3.0]);
        assert!((q[1] - 0.6).abs() < 1e-12 && (q[3] - 0.8).abs() < 1e-12);
        assert!((s[0] - 2.0).abs() < 1e-12 && (s[1] - 0.5).abs() < 1e-12);
        let inv = inverse(&m).unwrap();
        assert!(approx_eq(&mul(&m, &inv), &ID, 1e-12));
    }
}
