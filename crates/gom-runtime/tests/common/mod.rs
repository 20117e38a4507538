//! Helpers shared by the integration tests: small models built in code.
#![allow(dead_code)]

use gom::math::{bind_world, from_trs, inverse_affine};

use gom::{Bone, Clip, ClipFlags, Key, MeshPart, Model, Skeleton, SkinWeights, Submesh, Track};
use gom_demo::quat_from_axis_angle;

pub const FRAC_1_SQRT_2: f32 = core::f32::consts::FRAC_1_SQRT_2;

pub fn bone(name: &str, parent: i32, bind_local: [f32; 16]) -> Bone {
    Bone {
        name: name.into(),
        path: name.into(),
        parent,
        bind_local,
    }
}

pub fn key(time: f32, t: [f32; 3], r: [f32; 4], s: [f32; 3]) -> Key {
    Key {
        time,
        translation: t,
        rotation: r,
        scale: s,
    }
}

/// +90° about Z: (0, 0, sin 45°, cos 45°).
pub fn rot_z90() -> [f32; 4] {
    [0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2]
}

/// The three-bone chain of the hand-computed tests:
/// bone 0 at (1,0,0); bone 1 at (0,2,0) from bone 0, turned +90° about Z;
/// bone 2 at (3,0,0) from bone 1, scaled 2.
pub fn chain_skeleton() -> Skeleton {
    Skeleton {
        bones: vec![
            bone(
                "b0",
                -1,
                from_trs([1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
            ),
            bone("b1", 0, from_trs([0.0, 2.0, 0.0], rot_z90(), [1.0; 3])),
            bone(
                "b2",
                1,
                from_trs([3.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [2.0; 3]),
            ),
        ],
    }
}

/// A skinned mesh over `skeleton` with vertices bound to 1–3 bones, inverse binds
/// computed from the bind pose, indices making triangles.
pub fn skinned_mesh(
    skeleton: &Skeleton,
    positions: Vec<[f32; 3]>,
    skin: Vec<SkinWeights>,
) -> MeshPart {
    let n = positions.len();
    let inverse_bind = bind_world(&skeleton.bones)
        .iter()
        .map(|w| inverse_affine(w).expect("invertible bind"))
        .collect();
    let tri = (n / 3) * 3;
    MeshPart {
        morph_targets: Vec::new(),
        name: "m".into(),
        vertices: gom::Vertices {
            normals: Some(vec![[0.0, 1.0, 0.0]; n]),
            positions,
            skin: Some(skin),
            ..Default::default()
        },
        indices: (0..tri as u32).collect(),
        submeshes: if tri > 0 {
            vec![Submesh {
                material_index: -1,
                index_start: 0,
                index_count: tri as u32,
            }]
        } else {
            vec![]
        },
        inverse_bind,
        mesh_bind_geo_to_model: None,
        bounds: None,
        skinning: Default::default(),
    }
}

pub fn weights(bones: [u16; 4], weights: [f32; 4]) -> SkinWeights {
    SkinWeights { bones, weights }
}

pub fn clip(name: &str, duration: f32, tracks: Vec<Track>) -> Clip {
    Clip {
        weight_tracks: Vec::new(),
        name: name.into(),
        duration,
        sample_rate: 30.0,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks,
        compressed: None,
        extras: Default::default(),
    }
}

pub fn model(skeleton: Skeleton, meshes: Vec<MeshPart>, clips: Vec<Clip>) -> Model {
    Model {
        skeleton,
        meshes,
        clips,
        ..Default::default()
    }
}

pub use gom_test_support::rng::Rng;

/// A rotation about a random axis by a random angle in `[-3, 3)` radians.
pub fn unit_quat(rng: &mut Rng) -> [f32; 4] {
    let axis = [0; 3].map(|_| rng.range(-1.0, 1.0));
    let l = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2])
        .sqrt()
        .max(1e-3);
    quat_from_axis_angle(axis.map(|x| x / l), rng.range(-3.0, 3.0))
}

/// A clip animating every bone of an `n`-bone skeleton with `keys` random keys over
/// `duration` seconds.
pub fn random_clip(n: usize, keys: usize, duration: f32, seed: u64) -> Clip {
    let mut rng = Rng::new(seed);
    let tracks = (0..n as u32)
        .map(|bone| Track {
            bone,
            keys: (0..keys)
                .map(|k| {
                    key(
                        duration * k as f32 / (keys.max(2) - 1) as f32,
                        [
                            rng.range(-1.0, 1.0),
                            rng.range(-1.0, 1.0),
                            rng.range(-1.0, 1.0),
                        ],
                        unit_quat(&mut rng),
                        [
                            rng.range(0.5, 2.0),
                            rng.range(0.5, 2.0),
                            rng.range(0.5, 2.0),
                        ],
                    )
                })
                .collect(),
        })
        .collect();
    clip("random", duration, tracks)
}

pub fn chain_of(n: usize) -> Skeleton {
    Skeleton {
        bones: (0..n)
            .map(|i| {
                bone(
                    &format!("b{i}"),
                    i as i32 - 1,
                    from_trs([0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
                )
            })
            .collect(),
    }
}

/// Samples clip `clip` of `asset` at `t` into `local`, through `ctx`.
pub fn sample_clip(
    asset: &gom_runtime::Asset,
    clip: usize,
    t: f32,
    playback: gom_runtime::Playback,
    ctx: &mut gom_runtime::SamplingContext,
    local: &mut gom_runtime::LocalPose,
) {
    gom_runtime::sample(
        &asset.clips()[clip],
        asset.skeleton(),
        t,
        playback,
        ctx,
        local,
    )
    .unwrap();
}

/// The model-space pose of `local` on `asset`'s skeleton.
pub fn model_pose_of(
    asset: &gom_runtime::Asset,
    local: &gom_runtime::LocalPose,
) -> gom_runtime::ModelPose {
    let mut world = gom_runtime::ModelPose::new();
    gom_runtime::local_to_model(asset.skeleton(), local, &mut world).unwrap();
    world
}

/// The skinned positions of `mesh` with `palette`. The buffer starts as NaN, so an
/// entry the skinning leaves unwritten cannot pass for a result.
pub fn skin_positions(mesh: &gom_runtime::Mesh, palette: &gom_runtime::Palette) -> Vec<[f32; 3]> {
    let mut p = vec![[f32::NAN; 3]; mesh.vertex_count()];
    gom_runtime::skin(
        mesh,
        palette,
        gom_runtime::SkinTargets {
            positions: Some(&mut p),
            ..Default::default()
        },
    )
    .unwrap();
    p
}

/// The skinned positions and normals of `mesh` with `palette` (buffers start as NaN,
/// as in [`skin_positions`]).
pub fn skin_positions_normals(
    mesh: &gom_runtime::Mesh,
    palette: &gom_runtime::Palette,
) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let n = mesh.vertex_count();
    let (mut p, mut nr) = (vec![[f32::NAN; 3]; n], vec![[f32::NAN; 3]; n]);
    gom_runtime::skin(
        mesh,
        palette,
        gom_runtime::SkinTargets {
            positions: Some(&mut p),
            normals: Some(&mut nr),
            tangents: None,
        },
    )
    .unwrap();
    (p, nr)
}

/// Positions, normals and tangents of a skinning run.
pub type Out = (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<[f32; 4]>);

/// Positions, normals and tangents of the first mesh of `asset` on `path` (NaN where
/// nothing was written).
pub fn skin_all(
    asset: &gom_runtime::Asset<'_>,
    pal: &gom_runtime::Palette,
    path: gom_runtime::SkinPath,
) -> Out {
    let n = asset.meshes()[0].vertex_count();
    let mut o = (
        vec![[f32::NAN; 3]; n],
        vec![[f32::NAN; 3]; n],
        vec![[f32::NAN; 4]; n],
    );
    let targets = gom_runtime::SkinTargets {
        positions: Some(&mut o.0),
        normals: Some(&mut o.1),
        tangents: Some(&mut o.2),
    };
    gom_runtime::skin_with(&asset.meshes()[0], pal, targets, path).unwrap();
    o
}
