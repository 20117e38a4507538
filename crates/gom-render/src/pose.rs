//! Poses to draw: bone matrices from the bind pose or from a clip sampled by
//! `gom-runtime`, and meshes skinned into that pose by `gom-runtime` (D1).

use gom::{Mat4, MeshPart, Model, Vertices};
use gom_runtime::{Mesh, ModelPose, SkinnedMesh};

use crate::camera::{add_finite, Aabb};
use crate::error::RenderError;

/// Model-space matrices of every bone, as the runtime computes them (D1).
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    model: ModelPose,
    /// Per mesh, the weights of its morph targets; `None` for their default weights.
    weights: Option<Vec<Vec<f32>>>,
}

impl Pose {
    /// The bind pose: `world[i] = bind_local[i] * world[parent]`. An error when the
    /// runtime refuses the skeleton (a parent that is not an earlier bone).
    pub fn bind(model: &Model) -> Result<Pose, RenderError> {
        let skeleton = gom_runtime::Skeleton::from_model(&model.skeleton)?;
        Ok(Pose {
            model: ModelPose::bind(&skeleton),
            weights: None,
        })
    }

    /// The runtime's model-space pose.
    pub fn model_pose(&self) -> &ModelPose {
        &self.model
    }

    /// The number of bones.
    pub fn bone_count(&self) -> usize {
        self.model.bone_count()
    }

    /// Bone `i`'s model-space matrix (GOM convention, row-major, row vectors).
    pub fn world(&self, i: usize) -> Option<Mat4> {
        self.model.row_major(i)
    }

    /// Bone `i`'s joint position in model space (the translation row of its matrix).
    pub fn joint(&self, i: usize) -> Option<[f32; 3]> {
        self.world(i).map(|m| [m[12], m[13], m[14]])
    }
}

impl From<ModelPose> for Pose {
    fn from(model: ModelPose) -> Pose {
        Pose {
            model,
            weights: None,
        }
    }
}

/// Samples one clip of a model into [`Pose`]s with the runtime's sampler (linear
/// translation and scale, shortest-arc slerp, the nearest key held outside the keys).
pub struct ClipSampler {
    skeleton: gom_runtime::Skeleton,
    clip: gom_runtime::Clip<'static>,
    /// An additive clip's reference clips in the model (each the reference of the one
    /// before), as [`gom_runtime::pose_shown`] follows them.
    references: Vec<gom_runtime::Clip<'static>>,
    /// The clip's morph weight tracks and, per mesh, its targets' default weights.
    weight_tracks: Vec<gom::morph::WeightTrack>,
    defaults: Vec<Vec<f32>>,
}

impl std::fmt::Debug for ClipSampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClipSampler")
            .field("clip", &self.clip.name())
            .finish_non_exhaustive()
    }
}

impl ClipSampler {
    /// A sampler for the first clip of `model` named `name`.
    pub fn new(model: &Model, name: &str) -> Result<ClipSampler, RenderError> {
        let Some(clip) = model.clips.iter().find(|c| c.name == name) else {
            return Err(RenderError::UnknownClip {
                name: name.to_string(),
                available: model.clip_names_listed(),
            });
        };
        let skeleton = gom_runtime::Skeleton::from_model(&model.skeleton)?;
        let weight_tracks = clip.weight_tracks.clone();
        let references = reference_chain(model, clip)?;
        let clip = gom_runtime::Clip::from_model(clip)?;
        let defaults = model
            .meshes
            .iter()
            .map(|m| m.morph_targets.iter().map(|t| t.default_weight).collect())
            .collect();
        Ok(ClipSampler {
            skeleton,
            clip,
            references,
            weight_tracks,
            defaults,
        })
    }

    /// The clip's duration in seconds.
    pub fn duration(&self) -> f32 {
        self.clip.duration()
    }

    /// The pose at `time` seconds (held at the first or last key outside the keys); an
    /// additive clip added to its reference pose ([`gom_runtime::pose_shown`]).
    pub fn sample(&mut self, time: f32) -> Result<Pose, RenderError> {
        let model = gom_runtime::pose_shown(
            &self.skeleton,
            Some(&self.clip),
            &self.references,
            time,
            gom_runtime::Playback::Once,
        )?;
        let mut weights = Vec::with_capacity(self.defaults.len());
        for (i, d) in self.defaults.iter().enumerate() {
            let mut w = vec![0.0; d.len()];
            gom_runtime::sample_weights(
                &self.weight_tracks,
                i,
                d,
                self.clip.duration(),
                time,
                gom_runtime::Playback::Once,
                &mut w,
            )?;
            weights.push(w);
        }
        Ok(Pose {
            model,
            weights: Some(weights),
        })
    }
}

/// The clips of `model` an additive `clip` leans on: its reference clip, that clip's
/// reference, and so on, as far as [`gom_runtime::pose_shown`] follows them.
fn reference_chain<'a>(
    model: &'a Model,
    mut clip: &'a gom::Clip,
) -> Result<Vec<gom_runtime::Clip<'static>>, RenderError> {
    let mut chain = Vec::new();
    while let Some(gom::additive::Reference::ClipFrame { clip: name, .. }) = &clip.extras.additive {
        let Some(next) = model.clips.iter().find(|c| &c.name == name) else {
            break;
        };
        if chain.len() == gom_runtime::posed::MAX_REFERENCE_DEPTH {
            break;
        }
        chain.push(gom_runtime::Clip::from_model(next)?);
        clip = next;
    }
    Ok(chain)
}

/// One mesh part in a pose: model-space positions and normals.
pub(crate) type PosedMesh = SkinnedMesh;

/// The mesh parts of one model as the runtime skins them, ready for any pose of the
/// model's skeleton.
#[derive(Debug)]
pub(crate) struct Skinner {
    meshes: Vec<Mesh<'static>>,
    /// Per mesh, its morph targets (applied before skinning).
    targets: Vec<gom_runtime::MorphTargets>,
}

impl Skinner {
    /// Hands every mesh part to the runtime with just what skinning reads: positions,
    /// normals, skin weights, inverse binds and G. Indices, submeshes and the other
    /// streams stay with the renderer, which skips triangles it cannot draw. An error
    /// when the runtime refuses a part (streams of different lengths, weights naming
    /// bones the skeleton does not have, inverse binds not one per bone).
    pub(crate) fn new(model: &Model) -> Result<Skinner, RenderError> {
        let bones = model.skeleton.bones.len();
        let meshes = model
            .meshes
            .iter()
            .map(|part| {
                let v = &part.vertices;
                let skinnable = MeshPart {
                    name: part.name.clone(),
                    vertices: Vertices {
                        positions: v.positions.clone(),
                        normals: v.normals.clone(),
                        skin: v.skin.clone(),
                        ..Default::default()
                    },
                    inverse_bind: part.inverse_bind.clone(),
                    mesh_bind_geo_to_model: part.mesh_bind_geo_to_model,
                    ..Default::default()
                };
                Mesh::from_model(&skinnable, bones)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let targets = model
            .meshes
            .iter()
            .map(|m| gom_runtime::MorphTargets::new(&m.morph_targets))
            .collect();
        Ok(Skinner { meshes, targets })
    }

    /// Morphs every mesh part by the pose's weights ([`gom_runtime::Morpher`]), then
    /// skins it into `pose` with the runtime ([`gom_runtime::skin_all`]).
    pub(crate) fn pose(&self, pose: &Pose) -> Result<Vec<PosedMesh>, RenderError> {
        let mut meshes = Vec::with_capacity(self.meshes.len());
        for (i, (mesh, targets)) in self.meshes.iter().zip(&self.targets).enumerate() {
            let weights = match &pose.weights {
                Some(w) => w.get(i).map_or(&[][..], Vec::as_slice),
                None => targets.default_weights(),
            };
            if weights.len() != targets.len() || weights.iter().all(|&w| w == 0.0) {
                meshes.push(mesh.clone());
                continue;
            }
            let mut m = gom_runtime::Morpher::new(mesh);
            meshes.push(m.apply(mesh, targets, weights)?.clone());
        }
        Ok(gom_runtime::skin_all(&meshes, &pose.model)?)
    }
}

pub(crate) fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if l > 0.0 && l.is_finite() {
        [v[0] / l, v[1] / l, v[2] / l]
    } else {
        [0.0, 0.0, 0.0]
    }
}

/// The bounds of posed meshes, plus the joints of `pose` when `joints` is set or when
/// there is no vertex at all.
pub(crate) fn pose_bounds(meshes: &[PosedMesh], pose: &Pose, joints: bool) -> Aabb {
    let mut b = Aabb::EMPTY;
    for m in meshes {
        for p in &m.positions {
            add_finite(&mut b, *p);
        }
    }
    if joints || b.is_empty() {
        for i in 0..pose.bone_count() {
            if let Some(j) = pose.joint(i) {
                add_finite(&mut b, j);
            }
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use gom::{Bone, Clip, ClipFlags, Key, Skeleton, SkinWeights, Track};

    fn translation(t: [f32; 3]) -> Mat4 {
        let mut m = gom::IDENTITY;
        m[12..15].copy_from_slice(&t);
        m
    }

    /// Bone 0 at the origin, bone 1 at (1, 0, 0); one vertex at (1.5, 2, −0.25) with
    /// normal +X bound to bone 1; a clip turning bone 1 by −90° about +Z at t = 1.
    fn arm() -> Model {
        let h = core::f32::consts::FRAC_1_SQRT_2;
        let bone = |name: &str, parent, t| Bone {
            name: name.into(),
            path: name.into(),
            parent,
            bind_local: translation(t),
        };
        let key = |time, rotation| Key {
            time,
            translation: [1.0, 0.0, 0.0],
            rotation,
            scale: [1.0; 3],
        };
        Model {
            skeleton: Skeleton {
                bones: vec![bone("root", -1, [0.0; 3]), bone("arm", 0, [1.0, 0.0, 0.0])],
            },
            meshes: vec![MeshPart {
                vertices: Vertices {
                    positions: vec![[1.5, 2.0, -0.25]],
                    normals: Some(vec![[1.0, 0.0, 0.0]]),
                    skin: Some(vec![SkinWeights {
                        bones: [1, 0, 0, 0],
                        weights: [1.0, 0.0, 0.0, 0.0],
                    }]),
                    ..Default::default()
                },
                inverse_bind: vec![gom::IDENTITY, translation([-1.0, 0.0, 0.0])],
                ..Default::default()
            }],
            clips: vec![Clip {
                weight_tracks: Vec::new(),
                name: "swing".into(),
                duration: 1.0,
                sample_rate: 1.0,
                root_bone_index: -1,
                flags: ClipFlags::empty(),
                tracks: vec![Track {
                    bone: 1,
                    keys: vec![key(0.0, [0.0, 0.0, 0.0, 1.0]), key(1.0, [0.0, 0.0, -h, h])],
                }],
                compressed: None,
                extras: Default::default(),
            }],
            ..Default::default()
        }
    }

    /// Every mesh part of `model` skinned into `pose`.
    fn pose_meshes(model: &Model, pose: &Pose) -> Vec<PosedMesh> {
        Skinner::new(model).unwrap().pose(pose).unwrap()
    }

    fn near(a: [f32; 3], b: [f32; 3]) -> bool {
        (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5)
    }

    #[test]
    fn bind_pose_leaves_vertices_where_they_are() {
        let model = arm();
        let posed = pose_meshes(&model, &Pose::bind(&model).unwrap());
        assert!(near(posed[0].positions[0], [1.5, 2.0, -0.25]));
        assert!(near(posed[0].normals.as_ref().unwrap()[0], [1.0, 0.0, 0.0]));
    }

    #[test]
    fn a_skinned_vertex_follows_its_bone_through_the_clip() {
        // −90° about +Z maps +X to −Y and +Y to +X (row-vector rotation matrix). The
        // vertex's offset from the joint, (0.5, 2, −0.25), becomes (2, −0.5, −0.25), so
        // it lands at (3, −0.5, −0.25); the normal +X becomes −Y.
        let model = arm();
        let mut sampler = ClipSampler::new(&model, "swing").unwrap();
        let pose = sampler.sample(1.0).unwrap();
        assert!(near(pose.joint(1).unwrap(), [1.0, 0.0, 0.0]));
        let posed = pose_meshes(&model, &pose);
        assert!(
            near(posed[0].positions[0], [3.0, -0.5, -0.25]),
            "{:?}",
            posed[0].positions
        );
        assert!(near(
            posed[0].normals.as_ref().unwrap()[0],
            [0.0, -1.0, 0.0]
        ));
        // Past the last key the last key holds.
        let held = pose_meshes(&model, &sampler.sample(5.0).unwrap());
        assert!(near(held[0].positions[0], [3.0, -0.5, -0.25]));
    }

    #[test]
    fn an_additive_clip_is_drawn_on_its_reference_pose() {
        use gom::additive::{make_additive, reference_pose, Reference};
        let mut model = arm();
        let reference = Reference::ClipFrame {
            clip: "swing".into(),
            time: 0.5,
        };
        let pose = reference_pose(&model, &reference).unwrap();
        let mut delta = make_additive(&model, &model.clips[0], reference, &pose).unwrap();
        delta.name = "swing delta".into();
        model.clips.push(delta);
        let drawn = ClipSampler::new(&model, "swing delta")
            .unwrap()
            .sample(0.8)
            .unwrap();
        let source = ClipSampler::new(&model, "swing")
            .unwrap()
            .sample(0.8)
            .unwrap();
        for b in 0..model.skeleton.bones.len() {
            let (d, s) = (drawn.world(b).unwrap(), source.world(b).unwrap());
            assert!(
                d.iter().zip(&s).all(|(x, y)| (x - y).abs() < 1e-5),
                "{d:?} {s:?}"
            );
        }
        // Drawn as raw deltas, the arm would not be where the clip puts it.
        let raw = gom_runtime::pose_at(
            &gom_runtime::Skeleton::from_model(&model.skeleton).unwrap(),
            Some(&gom_runtime::Clip::from_model(&model.clips[1]).unwrap()),
            0.8,
            gom_runtime::Playback::Once,
        )
        .unwrap();
        let moved = raw.row_major(1).unwrap();
        assert!(moved
            .iter()
            .zip(&source.world(1).unwrap())
            .any(|(x, y)| (x - y).abs() > 1e-3));
    }

    #[test]
    fn gbtm_applies_before_the_palette_and_alone_for_static_meshes() {
        let mut model = arm();
        // G moves geometry up by 1: the vertex given at (1.5, 1, −0.25) sits at
        // (1.5, 2, −0.25) at bind time.
        model.meshes[0].vertices.positions[0] = [1.5, 1.0, -0.25];
        model.meshes[0].mesh_bind_geo_to_model = Some(translation([0.0, 1.0, 0.0]));
        let pose = ClipSampler::new(&model, "swing")
            .unwrap()
            .sample(1.0)
            .unwrap();
        let posed = pose_meshes(&model, &pose);
        assert!(near(posed[0].positions[0], [3.0, -0.5, -0.25]));
        // Static: the skin (and with it the inverse binds) removed, only G applies
        // whatever the pose.
        model.meshes[0].vertices.skin = None;
        model.meshes[0].inverse_bind.clear();
        let posed = pose_meshes(&model, &pose);
        assert!(near(posed[0].positions[0], [1.5, 2.0, -0.25]));
    }

    #[test]
    fn a_mirroring_gbtm_keeps_normals_pointing_out() {
        // G = diag(1, 1, −1) mirrors Z: a normal −Z must become +Z (the inverse
        // transpose of a mirror is the mirror itself).
        let mut model = arm();
        model.meshes[0].vertices.skin = None;
        model.meshes[0].inverse_bind.clear();
        model.meshes[0].vertices.normals = Some(vec![[0.0, 0.0, -1.0]]);
        let mut g = gom::IDENTITY;
        g[10] = -1.0;
        model.meshes[0].mesh_bind_geo_to_model = Some(g);
        let posed = pose_meshes(&model, &Pose::bind(&model).unwrap());
        assert!(near(posed[0].normals.as_ref().unwrap()[0], [0.0, 0.0, 1.0]));
        assert!(near(posed[0].positions[0], [1.5, 2.0, 0.25]));
    }

    #[test]
    fn a_pose_of_another_skeleton_is_an_error_not_a_picture() {
        // The arm's skin has two bones; the bind pose of its root alone has one.
        let model = arm();
        let mut root_only = arm();
        root_only.skeleton.bones.truncate(1);
        let pose = Pose::bind(&root_only).unwrap();
        assert_eq!(pose.bone_count(), 1);
        let err = Skinner::new(&model).unwrap().pose(&pose).unwrap_err();
        assert!(matches!(err, RenderError::Runtime(_)), "{err}");
    }

    #[test]
    fn weights_naming_a_bone_the_skeleton_lacks_are_an_error() {
        let mut model = arm();
        model.meshes[0].vertices.skin.as_mut().unwrap()[0].bones[0] = 7;
        let err = Skinner::new(&model).unwrap_err();
        assert!(matches!(err, RenderError::Runtime(_)), "{err}");
    }
}
