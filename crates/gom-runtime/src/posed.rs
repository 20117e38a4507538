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
/// pose when `clip` is `None`. Allocates a sampling context for the call. An additive
/// clip's deltas are taken as local transforms as they are; tools show such a clip
/// with [`pose_shown`].
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

/// How deep [`pose_shown`] follows additive clips whose reference clip is itself
/// additive; past it (or around a cycle) the reference is the bind pose.
pub const MAX_REFERENCE_DEPTH: usize = 8;

/// The model-space pose tools show for `clip` at `time`: [`pose_at`]'s, except that an
/// additive clip (`docs/extensions.md` §5) is shown added with weight 1 to its
/// reference pose by [`crate::blend_additive`], rather than as raw deltas. The
/// reference pose is the bind pose, or the clip of `clips` its `CLPA` names, shown
/// the same way (so an additive reference is itself added to its reference) at the
/// reference time, played once. A reference clip not in `clips` counts as the bind
/// pose, as does a chain deeper than [`MAX_REFERENCE_DEPTH`].
pub fn pose_shown(
    skeleton: &Skeleton,
    clip: Option<&Clip<'_>>,
    clips: &[Clip<'_>],
    time: f32,
    playback: Playback,
) -> Result<ModelPose, Error> {
    let Some(clip) = clip else {
        return Ok(ModelPose::bind(skeleton));
    };
    let mut context = SamplingContext::new();
    let mut local = LocalPose::default();
    shown_local(
        skeleton,
        clip,
        clips,
        (time, playback),
        &mut context,
        MAX_REFERENCE_DEPTH,
        &mut local,
    )?;
    let mut pose = ModelPose::new();
    local_to_model(skeleton, &local, &mut pose)?;
    Ok(pose)
}

/// The local pose [`pose_shown`] shows for `clip` at `at`, following at most `depth`
/// references.
fn shown_local(
    skeleton: &Skeleton,
    clip: &Clip<'_>,
    clips: &[Clip<'_>],
    at: (f32, Playback),
    context: &mut SamplingContext,
    depth: usize,
    out: &mut LocalPose,
) -> Result<(), Error> {
    sample(clip, skeleton, at.0, at.1, context, out)?;
    let Some(reference) = clip.extras().additive.as_ref() else {
        return Ok(());
    };
    let mut base = LocalPose::bind(skeleton);
    if let gom::additive::Reference::ClipFrame { clip: name, time } = reference {
        let found = clips.iter().find(|c| c.name() == name.as_str());
        if let (Some(r), Some(depth)) = (found, depth.checked_sub(1)) {
            let at = (*time, Playback::Once);
            shown_local(skeleton, r, clips, at, context, depth, &mut base)?;
        }
    }
    let deltas = std::mem::take(out);
    crate::blend_additive(&base, &deltas, 1.0, None, out)
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
