//! Models built by hand for the tests.
#![allow(dead_code)]

use gom::{Bone, Material, MeshPart, Model, Skeleton, SkinWeights, Submesh, Vertices};

pub fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The six outward normals of an axis-aligned box, each with an "up" direction as seen
/// from outside.
const FACES: [([f32; 3], [f32; 3]); 6] = [
    ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
    ([0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
    ([-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
    ([0.0, -1.0, 0.0], [0.0, 0.0, 1.0]),
];

/// A box from `min` to `max` with per-face normals, appended to `pos`, `nrm` and `idx`.
///
/// Left-handed (D2): someone outside looking at a face looks along f = −n; with "up" u,
/// their right is r = u × f (so that r × u = f, as +X × +Y = +Z). Front faces are
/// clockwise as they see them: top-left, top-right, bottom-right, then top-left,
/// bottom-right, bottom-left.
pub fn push_box_lh(
    min: [f32; 3],
    max: [f32; 3],
    pos: &mut Vec<[f32; 3]>,
    nrm: &mut Vec<[f32; 3]>,
    idx: &mut Vec<u32>,
) {
    let c = [
        (min[0] + max[0]) / 2.0,
        (min[1] + max[1]) / 2.0,
        (min[2] + max[2]) / 2.0,
    ];
    let h = [
        (max[0] - min[0]) / 2.0,
        (max[1] - min[1]) / 2.0,
        (max[2] - min[2]) / 2.0,
    ];
    for (n, u) in FACES {
        let f = [-n[0], -n[1], -n[2]];
        let r = cross(u, f);
        let corner = |sr: f32, su: f32| {
            let mut p = [0.0; 3];
            for k in 0..3 {
                p[k] = c[k] + h[k] * (n[k] + sr * r[k] + su * u[k]);
            }
            p
        };
        let base = pos.len() as u32;
        // 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left.
        pos.extend([
            corner(-1.0, 1.0),
            corner(1.0, 1.0),
            corner(1.0, -1.0),
            corner(-1.0, -1.0),
        ]);
        nrm.extend([n; 4]);
        idx.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
}

/// A unit cube centred on the origin, D2 winding, one material.
pub fn unit_cube(factor: [f32; 4]) -> Model {
    let (mut p, mut n, mut i) = (Vec::new(), Vec::new(), Vec::new());
    push_box_lh([-0.5; 3], [0.5; 3], &mut p, &mut n, &mut i);
    model_of(p, Some(n), i, factor)
}

pub fn model_of(
    positions: Vec<[f32; 3]>,
    normals: Option<Vec<[f32; 3]>>,
    indices: Vec<u32>,
    factor: [f32; 4],
) -> Model {
    let count = indices.len() as u32;
    Model {
        materials: vec![Material {
            name: "paint".into(),
            base_color_texture: None,
            base_color_factor: factor,
        }],
        meshes: vec![MeshPart {
            name: "cube".into(),
            vertices: Vertices {
                positions,
                normals,
                ..Default::default()
            },
            indices,
            submeshes: vec![Submesh {
                material_index: 0,
                index_start: 0,
                index_count: count,
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// Swaps the second and third index of every triangle.
pub fn reverse_winding(indices: &mut [u32]) {
    for t in indices.chunks_exact_mut(3) {
        t.swap(1, 2);
    }
}

pub fn translation(t: [f32; 3]) -> gom::Mat4 {
    let mut m = gom::IDENTITY;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m
}

/// Two bones: a root at the origin holding a static box at x ∈ [-1.5, -0.5], and an
/// "arm" bone at (1, 0, 0) holding an upright box x ∈ [0.5, 1.5], y ∈ [0, 2]. The
/// clip "swing" turns the arm bone from upright (t = 0) to pointing along +X (t = 1):
/// −90° about +Z.
pub fn swinging_arm() -> Model {
    let (mut p, mut n, mut i) = (Vec::new(), Vec::new(), Vec::new());
    push_box_lh([-1.5, 0.0, -0.5], [-0.5, 1.0, 0.5], &mut p, &mut n, &mut i);
    let static_count = p.len();
    push_box_lh([0.5, 0.0, -0.25], [1.5, 2.0, 0.25], &mut p, &mut n, &mut i);
    let skin = (0..p.len())
        .map(|v| SkinWeights {
            bones: [u16::from(v >= static_count), 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        })
        .collect();
    let mut m = model_of(p, Some(n), i, [0.9, 0.9, 0.9, 1.0]);
    m.meshes[0].vertices.skin = Some(skin);
    m.meshes[0].inverse_bind = vec![gom::IDENTITY, translation([-1.0, 0.0, 0.0])];
    m.skeleton = Skeleton {
        bones: vec![
            Bone {
                name: "root".into(),
                path: "root".into(),
                parent: -1,
                bind_local: gom::IDENTITY,
            },
            Bone {
                name: "arm".into(),
                path: "root/arm".into(),
                parent: 0,
                bind_local: translation([1.0, 0.0, 0.0]),
            },
        ],
    };
    let h = core::f32::consts::FRAC_1_SQRT_2;
    let key = |time: f32, rotation: [f32; 4]| gom::Key {
        time,
        translation: [1.0, 0.0, 0.0],
        rotation,
        scale: [1.0; 3],
    };
    m.clips = vec![gom::Clip {
        weight_tracks: Vec::new(),
        name: "swing".into(),
        duration: 1.0,
        sample_rate: 30.0,
        root_bone_index: -1,
        flags: gom::ClipFlags::empty(),
        tracks: vec![gom::Track {
            bone: 1,
            keys: vec![key(0.0, [0.0, 0.0, 0.0, 1.0]), key(1.0, [0.0, 0.0, -h, h])],
        }],
        compressed: None,
        extras: Default::default(),
    }];
    m
}
