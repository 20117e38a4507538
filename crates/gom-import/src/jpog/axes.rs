//! The change of axes from the game's Z-up models to GOM's left-handed Y-up space (D2).
//!
//! The change is a signed permutation `C` of the axes, applied to row vectors as
//! `p' = p * C`. Matrices in the row-vector convention become `C⁻¹ * M * C` (the
//! draft's `F*M*F` when `C` is its own inverse), quaternions keep `w` and take
//! `det(C) * (v * C)` as their vector part (a rotation axis is a pseudovector), and
//! triangles swap their second and third index exactly when `det(C) = -1`, so that
//! every triangle keeps facing its normal.

use gom::Mat4;

/// How the game's Z-up axes are read.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Handedness {
    /// The models are right-handed Z-up, as the public tools show them (the default):
    /// `(x, y, z) → (x, z, y)`. This change mirrors (det −1), so triangle winding swaps.
    #[default]
    Right,
    /// The models are left-handed Z-up: `(x, y, z) → (x, z, −y)`, a rotation of the
    /// axes (det +1); winding is kept.
    Left,
}

impl Handedness {
    /// The option's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Handedness::Right => "right",
            Handedness::Left => "left",
        }
    }

    /// The handedness named `name` (`right` or `left`, any case).
    pub fn from_name(name: &str) -> Option<Handedness> {
        match name.to_ascii_lowercase().as_str() {
            "right" | "rh" | "right-handed" => Some(Handedness::Right),
            "left" | "lh" | "left-handed" => Some(Handedness::Left),
            _ => None,
        }
    }

    /// The axis change this reading selects.
    pub fn basis(self) -> Basis {
        match self {
            Handedness::Right => Basis {
                source: [0, 2, 1],
                sign: [1.0, 1.0, 1.0],
            },
            Handedness::Left => Basis {
                source: [0, 2, 1],
                sign: [1.0, 1.0, -1.0],
            },
        }
    }
}

/// A signed permutation of the axes: output axis `j` is `sign[j]` times input axis
/// `source[j]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Basis {
    /// For each output axis, the input axis it takes.
    pub source: [usize; 3],
    /// For each output axis, +1 or −1.
    pub sign: [f32; 3],
}

/// `v + 0.0` turns −0.0 into +0.0 and leaves every other value unchanged.
fn plus_zero(v: f32) -> f32 {
    v + 0.0
}

impl Basis {
    /// The 3x3 matrix `C` (row-vector form): `C[i][j]` is the weight of input axis `i`
    /// in output axis `j`.
    pub fn matrix(&self) -> [[f32; 3]; 3] {
        let mut c = [[0.0f32; 3]; 3];
        for j in 0..3 {
            c[self.source[j]][j] = self.sign[j];
        }
        c
    }

    /// The determinant of `C`: −1 when the change mirrors.
    pub fn det(&self) -> f32 {
        let c = self.matrix();
        c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1])
            - c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0])
            + c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0])
    }

    /// Whether the change mirrors (and triangle winding must swap).
    pub fn mirrors(&self) -> bool {
        self.det() < 0.0
    }

    /// A point or direction: `v * C`. Exact (a signed permutation).
    pub fn vector(&self, v: [f32; 3]) -> [f32; 3] {
        let mut out = [0.0f32; 3];
        for j in 0..3 {
            out[j] = plus_zero(self.sign[j] * v[self.source[j]]);
        }
        out
    }

    /// A unit quaternion (x, y, z, w) describing the same rotation in the new axes.
    pub fn quat(&self, q: [f32; 4]) -> [f32; 4] {
        let d = self.det();
        let v = self.vector([q[0], q[1], q[2]]);
        [
            plus_zero(d * v[0]),
            plus_zero(d * v[1]),
            plus_zero(d * v[2]),
            plus_zero(q[3]),
        ]
    }

    /// A row-vector matrix: `C⁻¹ * M * C`, with `C⁻¹ = Cᵀ`. Exact.
    pub fn mat4(&self, m: &Mat4) -> Mat4 {
        // (C⁻¹ M C)[i][j] = Σ C[a][i] M[a][b] C[b][j] = sign_i sign_j M[src_i][src_j]
        // for i, j < 3; the translation row and the last column permute the same way.
        let src = [self.source[0], self.source[1], self.source[2], 3];
        let sign = [self.sign[0], self.sign[1], self.sign[2], 1.0];
        let mut out = [0.0f32; 16];
        for i in 0..4 {
            for j in 0..4 {
                out[i * 4 + j] = plus_zero(sign[i] * sign[j] * m[src[i] * 4 + src[j]]);
            }
        }
        out
    }

    /// A triangle's indices, with the second and third swapped when the change mirrors.
    pub fn triangle(&self, t: [u32; 3]) -> [u32; 3] {
        if self.mirrors() {
            [t[0], t[2], t[1]]
        } else {
            t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gom::math::{mul, quat_to_mat};
    use gom_demo::quat_from_axis_angle;

    fn c4(b: &Basis) -> Mat4 {
        let c = b.matrix();
        let mut m = gom::IDENTITY;
        for i in 0..3 {
            for j in 0..3 {
                m[i * 4 + j] = c[i][j];
            }
        }
        m
    }

    fn transpose(m: &Mat4) -> Mat4 {
        let mut t = [0.0; 16];
        for i in 0..4 {
            for j in 0..4 {
                t[i * 4 + j] = m[j * 4 + i];
            }
        }
        t
    }

    #[test]
    fn right_handed_reading_swaps_y_and_z_and_mirrors() {
        let b = Handedness::Right.basis();
        assert_eq!(b.vector([1.0, 2.0, 3.0]), [1.0, 3.0, 2.0]);
        assert_eq!(b.det(), -1.0);
        assert_eq!(b.triangle([4, 5, 6]), [4, 6, 5]);
        let l = Handedness::Left.basis();
        // Z-up becomes Y-up, +Y (forward in the source) becomes -Z.
        assert_eq!(l.vector([1.0, 2.0, 3.0]), [1.0, 3.0, -2.0]);
        assert_eq!(l.det(), 1.0);
        assert_eq!(l.triangle([4, 5, 6]), [4, 5, 6]);
    }

    #[test]
    fn matrices_and_quaternions_follow_the_points() {
        for h in [Handedness::Right, Handedness::Left] {
            let b = h.basis();
            let c = c4(&b);
            let q = quat_from_axis_angle([0.48, 0.6, 0.64], 0.9);
            let mut m = quat_to_mat(q);
            m[12] = 1.5;
            m[13] = -2.0;
            m[14] = 0.25;
            // second path: Cᵀ * M * C by full multiplication
            let expect = mul(&mul(&transpose(&c), &m), &c);
            let got = b.mat4(&m);
            for k in 0..16 {
                assert!((got[k] - expect[k]).abs() < 1e-6, "{h:?} {k}");
            }
            // a point moved by M then converted equals the converted point moved by M'
            let p = [0.3, -0.7, 2.0];
            let a = b.vector(gom::math::transform_point(&m, p));
            let d = gom::math::transform_point(&got, b.vector(p));
            for k in 0..3 {
                assert!((a[k] - d[k]).abs() < 1e-6);
            }
            // the converted quaternion's matrix is the converted rotation matrix
            let qm = quat_to_mat(b.quat(q));
            let rm = b.mat4(&quat_to_mat(q));
            for k in 0..16 {
                assert!((qm[k] - rm[k]).abs() < 1e-6, "{h:?} {k}: {qm:?} {rm:?}");
            }
        }
    }
}
