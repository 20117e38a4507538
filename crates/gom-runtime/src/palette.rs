//! Skinning palettes (D1): `G * inverseBind[b] * boneWorld[b]` per bone of a mesh.

use glam::{Affine3A, Mat3A, Vec3A};

use crate::mesh::Mesh;
use crate::pose::ModelPose;
use crate::transform::affine_to_row_major;
use crate::Error;
use gom::skinning::{dual_quat, DualQuat};

/// The matrices that take a mesh's geometry-space vertices to model space in the
/// current pose, one per bone, with the inverse-transposed 3x3 for normals.
///
/// For a static mesh the palette has one entry: `G` (or the identity).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Palette {
    pub(crate) skin: Vec<Affine3A>,
    pub(crate) normal: Vec<Mat3A>,
    pub(crate) rigid: bool,
    /// Per bone, the skinning and normal matrices as the vector skinning paths load
    /// them (see [`PackedBone`]).
    pub(crate) packed: Vec<PackedBone>,
    /// Every float of `packed` is finite: the vector paths may then blend a block of
    /// vertices bone by bone (a weight of 0 times an infinite element would give NaN
    /// in vertices that do not use that bone).
    pub(crate) finite: bool,
    /// Per bone, the dual quaternion and scale of its skinning matrix
    /// ([`gom::skinning::dual_quat`]), for meshes skinned with dual quaternions:
    /// filled by [`Palette::compute`] for such a mesh and by
    /// [`Palette::set_row_major`], empty otherwise.
    pub(crate) dq: Vec<DualQuat>,
}

/// One bone's matrices as whole columns: the skinning matrix's `x, y, z, translation`
/// (each `x, y, z, 0`) and the normal matrix's `x, y, z, 0` (and a zero column). Each
/// is sixteen floats on a 64-byte line of its own: one 512-bit load, or two 256-bit
/// halves, never split across cache lines.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct PackedBone {
    /// The skinning matrix's columns.
    pub m: [f32; 16],
    /// The normal matrix's columns.
    pub n: [f32; 16],
}

/// Two 3x3 matrices closer than this per element count as equal when deciding
/// whether a bone's normal matrix is its own 3x3 (no scale, no shear).
const RIGID_TOLERANCE: f32 = 1e-6;

impl Palette {
    /// An empty palette; [`Palette::compute`] sizes it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the palette of `mesh` for the model-space pose `pose`:
    /// `palette[b] = G * inverseBind[b] * boneWorld[b]` in GOM's row-vector order
    /// (D1; glam: `boneWorld * inverseBind * G`). No allocation after the first call.
    pub fn compute(&mut self, mesh: &Mesh, pose: &ModelPose) -> Result<(), Error> {
        self.clear();
        if !mesh.is_skinned() {
            let g = mesh.gbtm_affine();
            self.skin.push(g);
            let (n, rigid) = normal_matrix(&g.matrix3);
            self.normal.push(n);
            // Every palette keeps `packed` beside `skin`, one entry a bone, whatever
            // mesh it is later used with.
            self.push_packed(&g, &n);
            self.rigid = rigid;
            return Ok(());
        }
        let world = pose.matrices();
        if world.len() != mesh.bone_count() {
            return Err(Error::BoneCount {
                what: "palette",
                expected: mesh.bone_count(),
                found: world.len(),
            });
        }
        let mut all_rigid = true;
        let dq = mesh.skinning().uses_dual_quaternions();
        for (w, b) in world.iter().zip(mesh.bind_to_bone()) {
            let m = *w * *b;
            let (n, rigid) = normal_matrix(&m.matrix3);
            all_rigid &= rigid;
            self.skin.push(m);
            self.normal.push(n);
            self.push_packed(&m, &n);
            if dq {
                self.dq.push(dual_quat(&affine_to_row_major(&m)));
            }
        }
        self.rigid = all_rigid;
        Ok(())
    }

    /// The skinning matrices (glam form), one per bone.
    #[inline]
    pub fn matrices(&self) -> &[Affine3A] {
        &self.skin
    }

    /// The normal matrices: the inverse-transpose of each skinning matrix's 3x3.
    #[inline]
    pub fn normal_matrices(&self) -> &[Mat3A] {
        &self.normal
    }

    /// Bone `b`'s skinning matrix in GOM convention (row-major, row vectors).
    pub fn row_major(&self, b: usize) -> Option<[f32; 16]> {
        self.skin.get(b).map(affine_to_row_major)
    }

    /// Whether every matrix is a pure rotation plus translation (within 10⁻⁶), so that
    /// normals can use the 3x3 itself.
    pub fn is_rigid(&self) -> bool {
        self.rigid
    }

    /// Replaces the palette with skinning matrices in GOM convention (row-major, row
    /// vectors), e.g. a palette a caller keeps in its own buffers, and derives the
    /// normal matrices and the dual quaternions as [`Palette::compute`] does. No
    /// allocation once the palette has held as many matrices.
    pub fn set_row_major(&mut self, matrices: &[[f32; 16]]) {
        self.set_row_major_with(matrices, true);
    }

    /// [`Palette::set_row_major`] without the normal matrices (one inverse per bone
    /// saved), for skinning positions and tangents only: [`crate::skin`] then refuses
    /// normals.
    pub fn set_row_major_without_normals(&mut self, matrices: &[[f32; 16]]) {
        self.set_row_major_with(matrices, false);
    }

    fn set_row_major_with(&mut self, matrices: &[[f32; 16]], normals: bool) {
        self.clear();
        let mut all_rigid = normals;
        for m in matrices {
            let m = crate::transform::affine_from_row_major(m);
            let n = if normals {
                let (n, rigid) = normal_matrix(&m.matrix3);
                all_rigid &= rigid;
                self.normal.push(n);
                n
            } else {
                Mat3A::ZERO
            };
            self.skin.push(m);
            self.push_packed(&m, &n);
            self.dq.push(dual_quat(&affine_to_row_major(&m)));
        }
        self.rigid = all_rigid;
    }

    /// The dual-quaternion palette: per bone the dual quaternion and scale of its
    /// skinning matrix (empty unless computed for a dual-quaternion or blended mesh,
    /// or set with [`Palette::set_row_major`]).
    #[inline]
    pub fn dual_quaternions(&self) -> &[DualQuat] {
        &self.dq
    }

    /// Empties every list, keeping their memory.
    fn clear(&mut self) {
        self.skin.clear();
        self.normal.clear();
        self.packed.clear();
        self.dq.clear();
        self.finite = true;
    }

    /// Appends one bone's packed columns, noting whether they are all finite.
    #[inline]
    fn push_packed(&mut self, m: &Affine3A, n: &Mat3A) {
        let p = pack(m, n);
        self.finite &= p.m.iter().chain(&p.n).all(|x| x.is_finite());
        self.packed.push(p);
    }

    /// Whether the palette has normal matrices ([`Palette::set_row_major_without_normals`]
    /// leaves them out).
    pub fn has_normal_matrices(&self) -> bool {
        self.normal.len() == self.skin.len()
    }
}

/// The columns of `m` and `n` with a zero fourth lane each (see [`Palette`]).
fn pack(m: &Affine3A, n: &Mat3A) -> PackedBone {
    let col = |v: Vec3A| [v.x, v.y, v.z, 0.0];
    let cat = |a: [Vec3A; 4]| {
        let mut out = [0.0; 16];
        for (k, v) in a.into_iter().enumerate() {
            out[4 * k..4 * k + 4].copy_from_slice(&col(v));
        }
        out
    };
    let a = m.matrix3;
    PackedBone {
        m: cat([a.x_axis, a.y_axis, a.z_axis, m.translation]),
        n: cat([n.x_axis, n.y_axis, n.z_axis, Vec3A::ZERO]),
    }
}

/// The inverse-transpose of `m`, and whether it equals `m` (within tolerance), in
/// which case `m` itself is returned. A singular matrix gives zero.
fn normal_matrix(m: &Mat3A) -> (Mat3A, bool) {
    let det = m.determinant();
    if det == 0.0 || !det.is_finite() {
        return (Mat3A::ZERO, false);
    }
    let it = m.inverse().transpose();
    let close = |a: Vec3A, b: Vec3A| (a - b).abs().max_element() <= RIGID_TOLERANCE;
    if close(it.x_axis, m.x_axis) && close(it.y_axis, m.y_axis) && close(it.z_axis, m.z_axis) {
        (*m, true)
    } else {
        (it, false)
    }
}
