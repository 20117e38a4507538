//! Translation–rotation–scale transforms, one at a time and four at a time (SoA).

use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};

/// A local bone transform: scale, then rotate, then translate (`S * R * T` in GOM's
/// row-vector convention, D1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Translation.
    pub translation: Vec3,
    /// Rotation, a unit quaternion (x, y, z, w) as stored in GOM files.
    pub rotation: Quat,
    /// Scale along the bone's own axes.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Transform = Transform {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// Splits a GOM matrix (row-major, row vectors) into scale, rotation and
    /// translation. A matrix with shear loses the shear; a mirroring matrix gets a
    /// negative x scale.
    pub fn from_row_major(m: &[f32; 16]) -> Self {
        let (scale, rotation, translation) = to_glam(m).to_scale_rotation_translation();
        Transform {
            translation,
            rotation,
            scale,
        }
    }

    /// The same transform as an affine matrix in glam's column-vector form (whose
    /// memory layout equals GOM's row-major row-vector layout).
    #[inline]
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// The same transform as a GOM matrix: row-major, row vectors, `S * R * T`.
    pub fn to_row_major(&self) -> [f32; 16] {
        affine_to_row_major(&self.to_affine())
    }
}

/// Reads a GOM matrix (row-major, row vectors) as a glam matrix (column-major, column
/// vectors). The sixteen numbers are the same, in the same order: GOM's row `i` is
/// glam's column `i`, so `p * M` in GOM is `M * p` in glam and GOM's `A * B`
/// ("first A, then B") is glam's `B * A`.
#[inline]
pub fn to_glam(m: &[f32; 16]) -> Mat4 {
    Mat4::from_cols_array(m)
}

/// Reads a GOM matrix as an affine glam matrix (the last column of a GOM matrix is
/// (0, 0, 0, 1) and is not read).
#[inline]
pub fn affine_from_row_major(m: &[f32; 16]) -> Affine3A {
    Affine3A::from_cols_array(&[
        m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10], m[12], m[13], m[14],
    ])
}

/// Writes an affine glam matrix as a GOM matrix (row-major, row vectors).
pub fn affine_to_row_major(a: &Affine3A) -> [f32; 16] {
    let c = a.to_cols_array();
    [
        c[0], c[1], c[2], 0.0, c[3], c[4], c[5], 0.0, c[6], c[7], c[8], 0.0, c[9], c[10], c[11],
        1.0,
    ]
}

/// Four transforms in structure-of-arrays form: lane `j` of every vector belongs to
/// the `j`-th bone of a group of four.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoaTransform {
    /// Translation x, y, z.
    pub translation: [Vec4; 3],
    /// Rotation x, y, z, w.
    pub rotation: [Vec4; 4],
    /// Scale x, y, z.
    pub scale: [Vec4; 3],
}

impl SoaTransform {
    /// Four identity transforms.
    pub const IDENTITY: SoaTransform = SoaTransform {
        translation: [Vec4::ZERO; 3],
        rotation: [Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE],
        scale: [Vec4::ONE; 3],
    };

    /// The transform in lane `lane` (0..4).
    #[inline]
    pub fn get(&self, lane: usize) -> Transform {
        let l = lane & 3;
        Transform {
            translation: Vec3::new(
                self.translation[0][l],
                self.translation[1][l],
                self.translation[2][l],
            ),
            rotation: Quat::from_xyzw(
                self.rotation[0][l],
                self.rotation[1][l],
                self.rotation[2][l],
                self.rotation[3][l],
            ),
            scale: Vec3::new(self.scale[0][l], self.scale[1][l], self.scale[2][l]),
        }
    }

    /// Stores `t` in lane `lane` (0..4).
    #[inline]
    pub fn set(&mut self, lane: usize, t: &Transform) {
        let l = lane & 3;
        for c in 0..3 {
            self.translation[c][l] = t.translation[c];
            self.scale[c][l] = t.scale[c];
        }
        let q = t.rotation.to_array();
        for (c, v) in q.iter().enumerate() {
            self.rotation[c][l] = *v;
        }
    }
}
