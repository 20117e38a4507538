//! Poses to draw: bone matrices from the bind pose or from a clip sampled by
//! `gom-runtime`, and meshes skinned into that pose (D1).

use gom::math::{bind_world, mul, transform_point, transform_vector};
use gom::{Mat4, Model};

use crate::camera::Aabb;
use crate::error::RenderError;

/// Model-space matrices of every bone (GOM convention, row-major, row vectors).
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    /// `world[i]`: bone `i`'s model-space matrix.
    pub world: Vec<Mat4>,
}

impl Pose {
    /// The bind pose: `world[i] = bind_local[i] * world[parent]`.
    pub fn bind(model: &Model) -> Pose {
        Pose {
            world: bind_world(&model.skeleton.bones),
        }
    }

    /// Bone `i`'s joint position in model space (the translation row of its matrix).
    pub fn joint(&self, i: usize) -> Option<[f32; 3]> {
        self.world.get(i).map(|m| [m[12], m[13], m[14]])
    }
}

/// Samples one clip of a model into [`Pose`]s with the runtime's sampler (linear
/// translation and scale, shortest-arc slerp, the nearest key held outside the keys).
pub struct ClipSampler {
    skeleton: gom_runtime::Skeleton,
    clip: gom_runtime::Clip<'static>,
    context: gom_runtime::SamplingContext,
    local: gom_runtime::LocalPose,
    model_pose: gom_runtime::ModelPose,
}

impl std::fmt::Debug for ClipSampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClipSampler")
            .field("clip", &self.clip.name)
            .finish_non_exhaustive()
    }
}

impl ClipSampler {
    /// A sampler for the first clip of `model` named `name`.
    pub fn new(model: &Model, name: &str) -> Result<ClipSampler, RenderError> {
        let Some(clip) = model.clips.iter().find(|c| c.name == name) else {
            let available: Vec<String> = model
                .clips
                .iter()
                .map(|c| format!("{:?}", c.name))
                .collect();
            return Err(RenderError::UnknownClip {
                name: name.to_string(),
                available: if available.is_empty() {
                    "(none)".to_string()
                } else {
                    available.join(", ")
                },
            });
        };
        let skeleton = gom_runtime::Skeleton::from_model(&model.skeleton)?;
        let clip = gom_runtime::Clip::from_model(clip)?;
        Ok(ClipSampler {
            skeleton,
            clip,
            context: gom_runtime::SamplingContext::new(),
            local: gom_runtime::LocalPose::default(),
            model_pose: gom_runtime::ModelPose::new(),
        })
    }

    /// The clip's duration in seconds.
    pub fn duration(&self) -> f32 {
        self.clip.duration
    }

    /// The pose at `time` seconds (held at the first or last key outside the keys).
    pub fn sample(&mut self, time: f32) -> Result<Pose, RenderError> {
        gom_runtime::sample(
            &self.clip,
            &self.skeleton,
            time,
            gom_runtime::Playback::Once,
            &mut self.context,
            &mut self.local,
        )?;
        gom_runtime::local_to_model(&self.skeleton, &self.local, &mut self.model_pose)?;
        let world = (0..self.model_pose.bone_count())
            .map(|i| self.model_pose.row_major(i).unwrap_or(gom::IDENTITY))
            .collect();
        Ok(Pose { world })
    }
}

/// One mesh part in a pose: model-space positions and normals.
#[derive(Debug, Clone)]
pub(crate) struct PosedMesh {
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, when the mesh has normals.
    pub normals: Option<Vec<[f32; 3]>>,
}

/// The cofactor matrix of the upper 3x3 of `m`, signed so that it maps normals like
/// the inverse transpose up to a positive scale.
fn normal_matrix(m: &Mat4) -> Mat4 {
    let a = |r: usize, c: usize| m[r * 4 + c];
    let c = [
        [
            a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1),
            a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2),
            a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0),
        ],
        [
            a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2),
            a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0),
            a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1),
        ],
        [
            a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1),
            a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2),
            a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0),
        ],
    ];
    let det = a(0, 0) * c[0][0] + a(0, 1) * c[0][1] + a(0, 2) * c[0][2];
    let s = if det < 0.0 { -1.0 } else { 1.0 };
    let mut r = gom::IDENTITY;
    for (row, cr) in c.iter().enumerate() {
        for (col, v) in cr.iter().enumerate() {
            r[row * 4 + col] = v * s;
        }
    }
    r
}

pub(crate) fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if l > 0.0 && l.is_finite() {
        [v[0] / l, v[1] / l, v[2] / l]
    } else {
        [0.0, 0.0, 0.0]
    }
}

/// Skins every mesh of `model` into `pose` (D1): `p' = Σ w_k · (p * G * palette[b_k])`,
/// `palette[b] = inverse_bind[b] * world[b]`; normals through each influence's inverse
/// transpose, summed and renormalised. Static meshes go through G only. Influences
/// naming a bone the pose or the mesh does not have are ignored; a vertex left with no
/// weight stays at `p * G`.
pub(crate) fn pose_meshes(model: &Model, pose: &Pose) -> Vec<PosedMesh> {
    model
        .meshes
        .iter()
        .map(|mesh| {
            let g = mesh.mesh_bind_geo_to_model.unwrap_or(gom::IDENTITY);
            let g_n = normal_matrix(&g);
            let v = &mesh.vertices;
            let skin = v.skin.as_ref().filter(|s| s.len() == v.positions.len());
            let normals_in = v.normals.as_ref().filter(|n| n.len() == v.positions.len());
            let (mats, nmats): (Vec<Mat4>, Vec<Mat4>) = if skin.is_some() {
                mesh.inverse_bind
                    .iter()
                    .zip(&pose.world)
                    .map(|(ib, w)| {
                        let m = mul(&g, &mul(ib, w));
                        (m, normal_matrix(&m))
                    })
                    .unzip()
            } else {
                (Vec::new(), Vec::new())
            };
            let mut positions = Vec::with_capacity(v.positions.len());
            let mut normals = normals_in.map(|_| Vec::with_capacity(v.positions.len()));
            for (i, p) in v.positions.iter().enumerate() {
                let n = normals_in.and_then(|ns| ns.get(i)).copied();
                let mut pos = [0.0f32; 3];
                let mut nrm = [0.0f32; 3];
                let mut total = 0.0f32;
                if let Some(sw) = skin.and_then(|s| s.get(i)) {
                    for (b, w) in sw.bones.iter().zip(sw.weights) {
                        let b = usize::from(*b);
                        let (Some(m), Some(nm)) = (mats.get(b), nmats.get(b)) else {
                            continue;
                        };
                        if w == 0.0 || !w.is_finite() {
                            continue;
                        }
                        let q = transform_point(m, *p);
                        for k in 0..3 {
                            pos[k] += w * q[k];
                        }
                        if let Some(n) = n {
                            let q = normalize(transform_vector(nm, n));
                            for k in 0..3 {
                                nrm[k] += w * q[k];
                            }
                        }
                        total += w;
                    }
                }
                if total == 0.0 {
                    pos = transform_point(&g, *p);
                    if let Some(n) = n {
                        nrm = transform_vector(&g_n, n);
                    }
                }
                positions.push(pos);
                if let Some(ns) = normals.as_mut() {
                    ns.push(normalize(nrm));
                }
            }
            PosedMesh { positions, normals }
        })
        .collect()
}

/// The bounds of posed meshes, plus the joints of `pose` when `joints` is set or when
/// there is no vertex at all.
pub(crate) fn pose_bounds(meshes: &[PosedMesh], pose: &Pose, joints: bool) -> Aabb {
    let mut b = Aabb::EMPTY;
    for m in meshes {
        for p in &m.positions {
            b.add(*p);
        }
    }
    if joints || b.is_empty() {
        for i in 0..pose.world.len() {
            if let Some(j) = pose.joint(i) {
                b.add(j);
            }
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use gom::{Bone, Clip, ClipFlags, Key, MeshPart, Skeleton, SkinWeights, Track, Vertices};

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
                name: "swing".into(),
                duration: 1.0,
                sample_rate: 1.0,
                root_bone_index: -1,
                flags: ClipFlags(0),
                tracks: vec![Track {
                    bone: 1,
                    keys: vec![key(0.0, [0.0, 0.0, 0.0, 1.0]), key(1.0, [0.0, 0.0, -h, h])],
                }],
            }],
            ..Default::default()
        }
    }

    fn near(a: [f32; 3], b: [f32; 3]) -> bool {
        (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5)
    }

    #[test]
    fn bind_pose_leaves_vertices_where_they_are() {
        let model = arm();
        let posed = pose_meshes(&model, &Pose::bind(&model));
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
        // Static: the skin removed, only G applies whatever the pose.
        model.meshes[0].vertices.skin = None;
        let posed = pose_meshes(&model, &pose);
        assert!(near(posed[0].positions[0], [1.5, 2.0, -0.25]));
    }

    #[test]
    fn a_mirroring_gbtm_keeps_normals_pointing_out() {
        // G = diag(1, 1, −1) mirrors Z: a normal −Z must become +Z (the inverse
        // transpose of a mirror is the mirror itself).
        let mut model = arm();
        model.meshes[0].vertices.skin = None;
        model.meshes[0].vertices.normals = Some(vec![[0.0, 0.0, -1.0]]);
        let mut g = gom::IDENTITY;
        g[10] = -1.0;
        model.meshes[0].mesh_bind_geo_to_model = Some(g);
        let posed = pose_meshes(&model, &Pose::bind(&model));
        assert!(near(posed[0].normals.as_ref().unwrap()[0], [0.0, 0.0, 1.0]));
        assert!(near(posed[0].positions[0], [1.5, 2.0, 0.25]));
    }
}
