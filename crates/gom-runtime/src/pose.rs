//! Poses: local transforms (four bones per SIMD vector) and model-space matrices.

use glam::{Affine3A, Mat4, Vec3A, Vec4};

use crate::skeleton::Skeleton;
use crate::transform::{affine_to_row_major, SoaTransform, Transform};
use crate::Error;

#[cfg(target_arch = "x86_64")]
mod avx;
mod subtree;

pub use subtree::local_to_model_from;

/// Local transforms of every bone of a skeleton, stored four bones per
/// [`SoaTransform`]. Lanes past the last bone hold the identity.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalPose {
    pub(crate) groups: Vec<SoaTransform>,
    bone_count: usize,
}

impl LocalPose {
    /// `bone_count` identity transforms.
    pub fn new(bone_count: usize) -> Self {
        let mut p = LocalPose::default();
        p.resize(bone_count);
        p
    }

    /// The bind pose of `skeleton` (every bone at its bind-local transform).
    pub fn bind(skeleton: &Skeleton) -> Self {
        let mut p = LocalPose::new(skeleton.bone_count());
        for (i, t) in skeleton.bind_local().iter().enumerate() {
            p.set(i, t);
        }
        p
    }

    /// Changes the bone count; new bones are the identity.
    pub fn resize(&mut self, bone_count: usize) {
        if bone_count != self.bone_count {
            self.groups
                .resize(bone_count.div_ceil(4), SoaTransform::IDENTITY);
            self.bone_count = bone_count;
        }
    }

    /// The number of bones.
    #[inline]
    pub fn bone_count(&self) -> usize {
        self.bone_count
    }

    /// The transform of bone `i`, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Transform> {
        if i >= self.bone_count {
            return None;
        }
        self.groups.get(i / 4).map(|g| g.get(i % 4))
    }

    /// Sets the transform of bone `i`; does nothing past the end.
    #[inline]
    pub fn set(&mut self, i: usize, t: &Transform) {
        if i < self.bone_count {
            if let Some(g) = self.groups.get_mut(i / 4) {
                g.set(i % 4, t);
            }
        }
    }

    /// The SoA groups: bone `i` is lane `i % 4` of group `i / 4`.
    #[inline]
    pub fn groups(&self) -> &[SoaTransform] {
        &self.groups
    }

    /// The SoA groups, mutable.
    #[inline]
    pub fn groups_mut(&mut self) -> &mut [SoaTransform] {
        &mut self.groups
    }
}

/// Model-space matrices of every bone (glam column-vector form, whose memory layout
/// equals GOM's row-major row-vector layout; see [`crate::transform::to_glam`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelPose {
    pub(crate) world: Vec<Affine3A>,
}

impl ModelPose {
    /// An empty pose; [`local_to_model`] sizes it.
    pub fn new() -> Self {
        Self::default()
    }

    /// The model-space bind pose of `skeleton`.
    pub fn bind(skeleton: &Skeleton) -> Self {
        ModelPose {
            world: skeleton.bind_world().to_vec(),
        }
    }

    /// The number of bones.
    pub fn bone_count(&self) -> usize {
        self.world.len()
    }

    /// The matrices, one per bone.
    #[inline]
    pub fn matrices(&self) -> &[Affine3A] {
        &self.world
    }

    /// Bone `i`'s matrix in GOM convention (row-major, row vectors), or `None`.
    pub fn row_major(&self, i: usize) -> Option<[f32; 16]> {
        self.world.get(i).map(affine_to_row_major)
    }

    /// Bone `i`'s matrix as a glam `Mat4`, or `None`.
    pub fn mat4(&self, i: usize) -> Option<Mat4> {
        self.world.get(i).map(|a| Mat4::from(*a))
    }

    /// Replaces the pose with `matrices` in GOM convention (row-major, row vectors),
    /// one per bone, e.g. matrices a caller keeps in its own buffers. No allocation
    /// once the pose has held as many bones.
    pub fn set_row_major(&mut self, matrices: &[[f32; 16]]) {
        self.world.clear();
        self.world
            .extend(matrices.iter().map(crate::transform::affine_from_row_major));
    }
}

/// The four local matrices of a group, one [`Affine3A`] per lane.
#[inline(always)]
pub(crate) fn soa_to_affines(t: &SoaTransform) -> [Affine3A; 4] {
    let [x, y, z, w] = t.rotation;
    let (xx, yy, zz) = (x * x, y * y, z * z);
    let (xy, xz, yz) = (x * y, x * z, y * z);
    let (wx, wy, wz) = (w * x, w * y, w * z);
    let one = Vec4::ONE;
    let two = Vec4::splat(2.0);
    let [sx, sy, sz] = t.scale;
    // Rows of GOM's `S * R` = columns of glam's `R * S` (gom::math::quat_to_mat).
    let ax = Mat4::from_cols(
        (one - two * (yy + zz)) * sx,
        two * (xy + wz) * sx,
        two * (xz - wy) * sx,
        Vec4::ZERO,
    )
    .transpose();
    let ay = Mat4::from_cols(
        two * (xy - wz) * sy,
        (one - two * (xx + zz)) * sy,
        two * (yz + wx) * sy,
        Vec4::ZERO,
    )
    .transpose();
    let az = Mat4::from_cols(
        two * (xz + wy) * sz,
        two * (yz - wx) * sz,
        (one - two * (xx + yy)) * sz,
        Vec4::ZERO,
    )
    .transpose();
    let at = Mat4::from_cols(
        t.translation[0],
        t.translation[1],
        t.translation[2],
        Vec4::ZERO,
    )
    .transpose();
    let lane = |i: usize| {
        Affine3A::from_cols(
            Vec3A::from_vec4(ax.col(i)),
            Vec3A::from_vec4(ay.col(i)),
            Vec3A::from_vec4(az.col(i)),
            Vec3A::from_vec4(at.col(i)),
        )
    };
    [lane(0), lane(1), lane(2), lane(3)]
}

/// Model-space matrices from local transforms, in D1's order:
/// `world[i] = local[i] * world[parent[i]]` (GOM row vectors; glam's
/// `world[parent] * local`), roots `world[i] = local[i]`. `out` is resized to the
/// bone count (allocation only the first time).
///
/// On a CPU with AVX, eight bones at a time; with FMA as well, each multiply-add
/// rounded once (the matrices then differ from the four-bone path's in the last
/// bits; [`local_to_model_reference`] gives the same bits on every CPU).
pub fn local_to_model(
    skeleton: &Skeleton,
    local: &LocalPose,
    out: &mut ModelPose,
) -> Result<(), Error> {
    let world = sized("local_to_model", skeleton, local, out)?;
    #[cfg(target_arch = "x86_64")]
    avx::local_to_model(skeleton.parents(), &local.groups, world);
    #[cfg(not(target_arch = "x86_64"))]
    all_groups_to_model(skeleton.parents(), &local.groups, world);
    Ok(())
}

/// [`local_to_model`] on the four-bone path whatever the CPU: glam's products,
/// the same bits on every CPU (and platform), for what the tools write to files.
pub fn local_to_model_reference(
    skeleton: &Skeleton,
    local: &LocalPose,
    out: &mut ModelPose,
) -> Result<(), Error> {
    let world = sized("local_to_model_reference", skeleton, local, out)?;
    all_groups_to_model(skeleton.parents(), &local.groups, world);
    Ok(())
}

/// `out`'s matrices, one per bone of `skeleton`, after checking that `local` has
/// as many bones (an error naming `what` if not).
fn sized<'o>(
    what: &'static str,
    skeleton: &Skeleton,
    local: &LocalPose,
    out: &'o mut ModelPose,
) -> Result<&'o mut [Affine3A], Error> {
    let n = skeleton.bone_count();
    if local.bone_count() != n {
        return Err(Error::BoneCount {
            what,
            expected: n,
            found: local.bone_count(),
        });
    }
    out.world.resize(n, Affine3A::IDENTITY);
    Ok(&mut out.world)
}

/// `parent * local` as [`local_to_model`] composes a bone on this CPU.
#[inline]
pub(crate) fn compose(parent: &Affine3A, local: &Affine3A) -> Affine3A {
    #[cfg(target_arch = "x86_64")]
    return avx::compose(parent, local);
    #[cfg(not(target_arch = "x86_64"))]
    return *parent * *local;
}

/// The instruction-set path [`local_to_model`] takes on this CPU.
pub(crate) fn path_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    return match avx::width() {
        avx::Width::Avx512 => "AVX-512 with FMA, eight bones at a time",
        avx::Width::AvxFma => "AVX with FMA, eight bones at a time",
        avx::Width::Avx => "AVX, eight bones at a time",
        avx::Width::FourLane => "four lanes (SSE2), four bones at a time",
    };
    #[cfg(not(target_arch = "x86_64"))]
    "four lanes, four bones at a time"
}

/// Model matrices of every bone of `groups` below `world.len()`, four at a time.
fn all_groups_to_model(parents: &[i32], groups: &[SoaTransform], world: &mut [Affine3A]) {
    for (gi, g) in groups.iter().enumerate() {
        groups_to_model(parents, gi, g, world);
    }
}

/// Model matrices of the bones of group `gi` (those below `world.len()`).
#[inline(always)]
fn groups_to_model(parents: &[i32], gi: usize, g: &SoaTransform, world: &mut [Affine3A]) {
    for (l, m) in soa_to_affines(g).into_iter().enumerate() {
        let i = gi * 4 + l;
        let w = match parent_of(parents, i, world) {
            Some(pw) => *pw * m,
            None => m,
        };
        if let Some(slot) = world.get_mut(i) {
            *slot = w;
        }
    }
}

/// The model matrix of bone `i`'s parent, `None` for a root. Validated skeletons
/// have `parent < i`, so the parent's matrix is already final.
#[inline(always)]
fn parent_of<'w>(parents: &[i32], i: usize, world: &'w [Affine3A]) -> Option<&'w Affine3A> {
    let p = usize::try_from(*parents.get(i)?).ok()?;
    world.get(p)
}
