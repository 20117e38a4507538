//! A whole model posed at one moment: the clip sampled, the bones taken to model space
//! and every mesh part skinned into that pose. The one way the tools (the renderer,
//! `gom pose`, the converters' tests) pose a model; a game keeps its own
//! [`SamplingContext`] and [`Palette`] per instance instead of allocating per call.

use gom::layout::Attribute;

use crate::clip::{Clip, Playback};
use crate::mesh::Mesh;
use crate::palette::Palette;
use crate::pose::{local_to_model, LocalPose, ModelPose};
use crate::sampling::{sample, SamplingContext};
use crate::skeleton::Skeleton;
use crate::skinning::{skin_with, SkinPath, SkinTargets};
use crate::Error;

/// One mesh part skinned into a pose, in model space (D1: the instance's world matrix
/// is never applied).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkinnedMesh {
    /// Skinned positions.
    pub positions: Vec<[f32; 3]>,
    /// Skinned unit normals, when the mesh has normals.
    pub normals: Option<Vec<[f32; 3]>>,
}

/// The model-space pose of `skeleton` at `time` of `clip` under `playback`, or its bind
/// pose when `clip` is `None`. Allocates a sampling context for the call.
pub fn pose_at(
    skeleton: &Skeleton,
    clip: Option<&Clip<'_>>,
    time: f32,
    playback: Playback,
) -> Result<ModelPose, Error> {
    let Some(clip) = clip else {
        return Ok(ModelPose::bind(skeleton));
    };
    let mut local = LocalPose::default();
    sample(
        clip,
        skeleton,
        time,
        playback,
        &mut SamplingContext::new(),
        &mut local,
    )?;
    let mut pose = ModelPose::new();
    local_to_model(skeleton, &local, &mut pose)?;
    Ok(pose)
}

/// Skins every mesh of `meshes` into `pose` with the palette and CPU skinning (D1):
/// `p' = Σ w_k · (p * G * inverse_bind[b_k] * world[b_k])`, normals through the
/// inverse transposes and renormalised; static meshes go through G only. An error when
/// `pose` is not of the skeleton the meshes were made for. Skinned on the scalar path
/// ([`SkinPath::Scalar`]), so that the results are the same bits on every CPU.
pub fn skin_all(meshes: &[Mesh<'_>], pose: &ModelPose) -> Result<Vec<SkinnedMesh>, Error> {
    let mut palette = Palette::new();
    meshes
        .iter()
        .map(|mesh| {
            palette.compute(mesh, pose)?;
            let n = mesh.vertex_count();
            let mut positions = vec![[0.0f32; 3]; n];
            let mut normals = mesh
                .layout()
                .offset(Attribute::Normal)
                .map(|_| vec![[0.0f32; 3]; n]);
            let targets = SkinTargets {
                positions: Some(&mut positions),
                normals: normals.as_deref_mut(),
                ..Default::default()
            };
            // The reference path: the tools write these results, and the vector paths
            // agree with it within 10⁻⁶, not bit for bit, so another CPU would write
            // other bytes.
            skin_with(mesh, &palette, targets, SkinPath::Scalar)?;
            Ok(SkinnedMesh { positions, normals })
        })
        .collect()
}
