//! The demo model: a rigged, animated tentacle on a base plate, built procedurally so
//! that examples, tests and the renderer have a model without any source file.
//!
//! - Skeleton: `root` at the origin and a chain `seg1` … `seg5` rising along +Y
//!   (`seg1` 0.1 m above the root, each further bone 0.4 m above its parent).
//! - Mesh `tentacle`: a tapered tube (radius 0.15 m at the base, 0.05 m at the tip) of
//!   [`RINGS`] rings of [`SIDES`] + 1 vertices (the seam is duplicated for the UVs), with
//!   normals, tangents, UVs and skin weights blended between neighbouring bones near
//!   each joint. Material 0 (`skin`).
//! - Mesh `base`: a box, authored as the unit cube and placed by its
//!   `meshBindGeoToModel` matrix (0.6 × 0.1 × 0.6 m, bottom at y = 0), with normals,
//!   UVs and vertex colours, rigidly bound to `root` (D7: the root moves in `swish`).
//!   Material 1 (`prop`).
//! - Clips: `swish` (2 s, a side-to-side wave running up the chain, with root motion
//!   0.5 m forward along +Z) and `curl` (1.5 s, the chain curls forward and back, the
//!   tip swells).
//!
//! Everything is computed with `libm`, so the model is the same bit for bit on every
//! platform (D11). Triangles are clockwise seen from outside (D2). All three validation
//! checks pass.
//!
//! ```
//! let model = gom_demo::build();
//! assert_eq!(model.skeleton.bones.len(), 6);
//! let bytes = gom::gomb::write(&model).unwrap();
//! assert!(gom::gomb::read(&bytes).unwrap().findings.is_empty());
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

use gom::math::{bind_world, inverse_affine};
use gom::{
    Bone, Clip, ClipFlags, Header, Key, Mat4, Material, MeshPart, Model, Skeleton, SkinWeights,
    Submesh, Track, ValidationFlags, Vertices, IDENTITY,
};
use sha2::{Digest, Sha256};

/// Number of bones in the tentacle chain (below them is `root`).
pub const SEGMENTS: usize = 5;
/// Rings of vertices per chain segment.
pub const RINGS_PER_SEGMENT: usize = 4;
/// Rings of vertices along the tube, base to tip.
pub const RINGS: usize = SEGMENTS * RINGS_PER_SEGMENT + 1;
/// Sides of the tube (each ring has one more vertex: the seam is duplicated).
pub const SIDES: usize = 12;
/// Height of the tube's base (and of `seg1`) above the root, in metres.
pub const BASE_HEIGHT: f32 = 0.1;
/// Length of each chain segment, in metres.
pub const SEGMENT_LENGTH: f32 = 0.4;
/// Tube radius at the base, in metres.
pub const BASE_RADIUS: f32 = 0.15;
/// Tube radius at the tip, in metres.
pub const TIP_RADIUS: f32 = 0.05;
/// The base plate's `meshBindGeoToModel`: the unit cube scaled to 0.6 × 0.1 × 0.6 m and
/// lifted so that its bottom lies at y = 0.
pub const BASE_GEO_TO_MODEL: Mat4 = [
    0.6, 0.0, 0.0, 0.0, //
    0.0, 0.1, 0.0, 0.0, //
    0.0, 0.0, 0.6, 0.0, //
    0.0, 0.05, 0.0, 1.0,
];

/// The unit quaternion (x, y, z, w) of a rotation by `angle` radians about the unit
/// `axis`. Uses `libm` rather than `std`'s `sin`/`cos`, whose results may differ between
/// platforms: the demo's keys (and so its golden hashes) depend on these exact bits.
pub fn quat_from_axis_angle(axis: [f32; 3], angle: f32) -> [f32; 4] {
    let h = angle * 0.5;
    let (s, c) = (libm::sinf(h), libm::cosf(h));
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

mod morphs;
pub use morphs::with_morphs;

/// Builds the demo model. Deterministic: every call returns the same model.
pub fn build() -> Model {
    let bones = skeleton();
    let world = bind_world(&bones);
    let inverse_bind: Vec<Mat4> = world
        .iter()
        .map(|w| inverse_affine(w).unwrap_or(IDENTITY))
        .collect();
    Model {
        header: Header {
            source_hash: Sha256::digest(b"gom demo model 1").into(),
            converter_version: gom::CONVERTER_VERSION.to_string(),
            validation_flags: ValidationFlags::all(),
        },
        skeleton: Skeleton { bones },
        materials: vec![
            Material {
                name: "skin".into(),
                base_color_texture: None,
                base_color_factor: [0.85, 0.45, 0.5, 1.0],
            },
            Material {
                name: "prop".into(),
                base_color_texture: None,
                base_color_factor: [0.4, 0.35, 0.3, 1.0],
            },
        ],
        meshes: vec![tentacle(inverse_bind.clone()), base(inverse_bind)],
        clips: vec![swish(), curl()],
    }
}

fn translation(x: f32, y: f32, z: f32) -> Mat4 {
    let mut m = IDENTITY;
    m[12] = x;
    m[13] = y;
    m[14] = z;
    m
}

/// The bind translation of bone `i` relative to its parent.
fn bind_offset(i: usize) -> [f32; 3] {
    match i {
        0 => [0.0, 0.0, 0.0],
        1 => [0.0, BASE_HEIGHT, 0.0],
        _ => [0.0, SEGMENT_LENGTH, 0.0],
    }
}

fn skeleton() -> Vec<Bone> {
    let mut bones = vec![Bone {
        name: "root".into(),
        path: "root".into(),
        parent: -1,
        bind_local: IDENTITY,
    }];
    let mut path = String::from("root");
    for k in 1..=SEGMENTS {
        let name = format!("seg{k}");
        path = format!("{path}/{name}");
        let [x, y, z] = bind_offset(k);
        bones.push(Bone {
            name,
            path: path.clone(),
            parent: (k - 1) as i32,
            bind_local: translation(x, y, z),
        });
    }
    bones
}

/// cos and sin of side `j` of the tube, with the seam vertex equal to side 0.
fn side_angle(j: usize) -> (f32, f32) {
    let theta = 2.0 * core::f64::consts::PI * ((j % SIDES) as f64) / (SIDES as f64);
    (libm::cos(theta) as f32, libm::sin(theta) as f32)
}

/// Skin influences of ring `i`: the segment's own bone, blended linearly with the
/// neighbouring segment's bone within half a segment of a joint (0.5 / 0.5 at the
/// joint), sorted per D7.
fn ring_weights(i: usize) -> SkinWeights {
    let seg = (i / RINGS_PER_SEGMENT).min(SEGMENTS - 1);
    let f = (i - seg * RINGS_PER_SEGMENT) as f32 / RINGS_PER_SEGMENT as f32;
    let cur = (seg + 1) as u16;
    let pair = if f < 0.5 && seg > 0 {
        Some((cur - 1, 0.5 - f))
    } else if f > 0.5 && seg + 1 < SEGMENTS {
        Some((cur + 1, f - 0.5))
    } else {
        None
    };
    match pair {
        None => SkinWeights {
            bones: [cur, 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        },
        Some((other, w)) => {
            let wc = 1.0 - w;
            // Descending weight; a tie goes to the lower bone index first.
            let (a, b) = if wc > w || (wc == w && cur < other) {
                ((cur, wc), (other, w))
            } else {
                ((other, w), (cur, wc))
            };
            SkinWeights {
                bones: [a.0, b.0, 0, 0],
                weights: [a.1, b.1, 0.0, 0.0],
            }
        }
    }
}

fn tentacle(inverse_bind: Vec<Mat4>) -> MeshPart {
    let height = SEGMENTS as f32 * SEGMENT_LENGTH;
    let slope = (TIP_RADIUS - BASE_RADIUS) / height; // dr/dy
    let n_len = libm::sqrtf(1.0 + slope * slope);
    let mut positions = Vec::new();
    let (mut normals, mut tangents, mut uvs, mut skin) = (vec![], vec![], vec![], vec![]);
    for i in 0..RINGS {
        let s = i as f32 / (RINGS - 1) as f32;
        let y = BASE_HEIGHT + s * height;
        let r = BASE_RADIUS + s * (TIP_RADIUS - BASE_RADIUS);
        let w = ring_weights(i);
        for j in 0..=SIDES {
            let (c, sn) = side_angle(j);
            positions.push([r * c, y, r * sn]);
            // Outward normal of the surface (r(y) cos θ, y, r(y) sin θ).
            normals.push([c / n_len, -slope / n_len, sn / n_len]);
            // Tangent along +u (increasing θ); bitangent w·(n × t) points along +v,
            // which runs from the tip (v = 0, top of the image) down to the base.
            tangents.push([-sn, 0.0, c, 1.0]);
            uvs.push([j as f32 / SIDES as f32, 1.0 - s]);
            skin.push(w);
        }
    }
    let v = Vertices {
        positions,
        normals: Some(normals),
        tangents: Some(tangents),
        uv0: Some(uvs),
        skin: Some(skin),
        ..Vertices::default()
    };
    let row = (SIDES + 1) as u32;
    let mut indices = Vec::with_capacity((RINGS - 1) * SIDES * 6);
    for i in 0..(RINGS - 1) as u32 {
        for j in 0..SIDES as u32 {
            let a = i * row + j;
            let b = a + 1;
            let c = a + row;
            let d = c + 1;
            // Clockwise seen from outside (D2).
            indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    let count = indices.len() as u32;
    MeshPart {
        morph_targets: Vec::new(),
        name: "tentacle".into(),
        vertices: v,
        indices,
        submeshes: vec![Submesh {
            material_index: 0,
            index_start: 0,
            index_count: count,
        }],
        inverse_bind,
        mesh_bind_geo_to_model: None,
        bounds: None,
        skinning: Default::default(),
    }
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn base(inverse_bind: Vec<Mat4>) -> MeshPart {
    // Each face: outward normal N and an in-face axis U; V = N × U, so U × V = N and
    // the corners (-U-V, +U-V, +U+V, -U+V) taken as (0,1,2), (0,2,3) are clockwise
    // seen from outside.
    let faces: [([f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0]),
        ([0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
    ];
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    let mut colors = Vec::new();
    let mut indices = Vec::new();
    for (n, u) in faces {
        let v = cross(n, u);
        let base_index = positions.len() as u32;
        let color = if n[1] > 0.0 {
            [210, 200, 185, 255]
        } else {
            [120, 110, 100, 255]
        };
        for (su, sv, uv) in [
            (-0.5, -0.5, [0.0, 1.0]),
            (0.5, -0.5, [1.0, 1.0]),
            (0.5, 0.5, [1.0, 0.0]),
            (-0.5, 0.5, [0.0, 0.0]),
        ] {
            positions.push([
                0.5 * n[0] + su * u[0] + sv * v[0],
                0.5 * n[1] + su * u[1] + sv * v[1],
                0.5 * n[2] + su * u[2] + sv * v[2],
            ]);
            normals.push(n);
            uvs.push(uv);
            colors.push(color);
        }
        indices.extend_from_slice(&[0, 1, 2, 0, 2, 3].map(|k| base_index + k));
    }
    let rigid = SkinWeights {
        bones: [0; 4],
        weights: [1.0, 0.0, 0.0, 0.0],
    };
    let count = indices.len() as u32;
    MeshPart {
        morph_targets: Vec::new(),
        name: "base".into(),
        vertices: Vertices {
            skin: Some(vec![rigid; positions.len()]),
            positions,
            normals: Some(normals),
            uv0: Some(uvs),
            colors: Some(colors),
            ..Vertices::default()
        },
        indices,
        submeshes: vec![Submesh {
            material_index: 1,
            index_start: 0,
            index_count: count,
        }],
        inverse_bind,
        mesh_bind_geo_to_model: Some(BASE_GEO_TO_MODEL),
        bounds: None,
        skinning: Default::default(),
    }
}

/// Keys of bone `bone` at `rate` keys per second over `duration`, rotating about
/// `axis` by `angle(t)` and scaling uniformly by `scale(t)`.
fn track(
    bone: usize,
    duration: f32,
    rate: f32,
    axis: [f32; 3],
    angle: impl Fn(f64) -> f64,
    scale: impl Fn(f64) -> f32,
) -> Track {
    let n = (duration * rate) as usize;
    let keys = (0..=n)
        .map(|k| {
            let time = k as f32 / rate;
            let phase = f64::from(time) / f64::from(duration);
            let s = scale(phase);
            Key {
                time,
                translation: bind_offset(bone),
                rotation: quat_from_axis_angle(axis, angle(phase) as f32),
                scale: [s, s, s],
            }
        })
        .collect();
    Track {
        bone: bone as u32,
        keys,
    }
}

fn swish() -> Clip {
    const DURATION: f32 = 2.0;
    const RATE: f32 = 30.0;
    let n = (DURATION * RATE) as usize;
    let root = Track {
        bone: 0,
        keys: (0..=n)
            .map(|k| {
                let time = k as f32 / RATE;
                Key {
                    time,
                    translation: [0.0, 0.0, 0.5 * time / DURATION],
                    rotation: [0.0, 0.0, 0.0, 1.0],
                    scale: [1.0; 3],
                }
            })
            .collect(),
    };
    let mut tracks = vec![root];
    for k in 1..=SEGMENTS {
        let amplitude = 0.35 * k as f64 / SEGMENTS as f64;
        let lag = 0.6 * k as f64;
        tracks.push(track(
            k,
            DURATION,
            RATE,
            [0.0, 0.0, 1.0],
            // Offset so that every segment is straight at t = 0 (and at the loop
            // point): the clip starts from the bind pose.
            move |phase| {
                amplitude * (libm::sin(2.0 * core::f64::consts::PI * phase - lag) + libm::sin(lag))
            },
            |_| 1.0,
        ));
    }
    Clip {
        weight_tracks: Vec::new(),
        name: "swish".into(),
        duration: DURATION,
        sample_rate: RATE,
        root_bone_index: 0,
        flags: ClipFlags::HAS_ROOT_MOTION,
        tracks,
        compressed: None,
        extras: Default::default(),
    }
}

fn curl() -> Clip {
    const DURATION: f32 = 1.5;
    const RATE: f32 = 30.0;
    let bend = |phase: f64| 0.5 * (1.0 - libm::cos(2.0 * core::f64::consts::PI * phase));
    let mut tracks = Vec::new();
    for k in 1..=SEGMENTS {
        let tip = k == SEGMENTS;
        tracks.push(track(
            k,
            DURATION,
            RATE,
            [1.0, 0.0, 0.0],
            move |phase| 0.45 * bend(phase),
            move |phase| {
                if tip {
                    (1.0 + 0.2 * bend(phase)) as f32
                } else {
                    1.0
                }
            },
        ));
    }
    Clip {
        weight_tracks: Vec::new(),
        name: "curl".into(),
        duration: DURATION,
        sample_rate: RATE,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks,
        compressed: None,
        extras: Default::default(),
    }
}

/// The model-space bind matrix of each demo bone, for tests and examples.
pub fn bind_pose() -> Vec<Mat4> {
    bind_world(&skeleton())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gom::math::transform_point;

    fn sub(a: [f32; 3], b: [f32; 3]) -> [f64; 3] {
        [0, 1, 2].map(|i| f64::from(a[i]) - f64::from(b[i]))
    }

    fn cross64(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    /// Model-space triangles of a mesh (after its GBTM).
    fn triangles(m: &MeshPart) -> Vec<[[f32; 3]; 3]> {
        let g = m.mesh_bind_geo_to_model.unwrap_or(IDENTITY);
        m.indices
            .chunks_exact(3)
            .map(|t| {
                [t[0], t[1], t[2]].map(|i| transform_point(&g, m.vertices.positions[i as usize]))
            })
            .collect()
    }

    // In a left-handed system with clockwise front faces (D2), the outward normal of
    // the triangle (a, b, c) is (b - a) × (c - a) with the usual component formula:
    // seen from -Z, a = (0,0), b = (0,1), c = (1,0) runs clockwise and the formula
    // gives (0, 0, -1), towards the viewer.
    #[test]
    fn winding_rule_example_points_at_the_viewer() {
        let n = cross64(
            sub([0.0, 1.0, 1.0], [0.0, 0.0, 1.0]),
            sub([1.0, 0.0, 1.0], [0.0, 0.0, 1.0]),
        );
        assert_eq!(n, [0.0, 0.0, -1.0]);
    }

    #[test]
    fn every_tube_triangle_faces_away_from_the_axis() {
        let model = build();
        let tube = &model.meshes[0];
        assert_eq!(tube.name, "tentacle");
        let tris = triangles(tube);
        assert_eq!(tris.len(), (RINGS - 1) * SIDES * 2);
        for (k, [a, b, c]) in tris.iter().enumerate() {
            let n = cross64(sub(*b, *a), sub(*c, *a));
            // Radial direction from the Y axis (the tube's axis) to the centroid.
            let cx = (f64::from(a[0]) + f64::from(b[0]) + f64::from(c[0])) / 3.0;
            let cz = (f64::from(a[2]) + f64::from(b[2]) + f64::from(c[2])) / 3.0;
            let radial = [cx, 0.0, cz];
            assert!(dot(n, radial) > 0.0, "triangle {k} faces inward: n = {n:?}");
        }
    }

    #[test]
    fn every_box_triangle_faces_out_of_the_box() {
        let model = build();
        let plate = &model.meshes[1];
        assert_eq!(plate.name, "base");
        let tris = triangles(plate);
        assert_eq!(tris.len(), 12);
        // The box's centre in model space: the unit cube's centre moved by the GBTM.
        let centre = [0.0f32, 0.05, 0.0];
        for (k, [a, b, c]) in tris.iter().enumerate() {
            let n = cross64(sub(*b, *a), sub(*c, *a));
            let mid = [0, 1, 2].map(|i| {
                (f64::from(a[i]) + f64::from(b[i]) + f64::from(c[i])) / 3.0 - f64::from(centre[i])
            });
            assert!(dot(n, mid) > 0.0, "triangle {k} faces inward: n = {n:?}");
        }
    }

    #[test]
    fn stored_normals_agree_with_the_winding() {
        let model = build();
        for m in &model.meshes {
            let normals = m.vertices.normals.as_ref().unwrap();
            for t in m.indices.chunks_exact(3) {
                let p = [t[0], t[1], t[2]].map(|i| m.vertices.positions[i as usize]);
                let face = cross64(sub(p[1], p[0]), sub(p[2], p[0]));
                for &i in t {
                    let n = normals[i as usize].map(f64::from);
                    assert!(dot(face, n) > 0.0, "mesh {} vertex {i}", m.name);
                }
            }
        }
    }

    #[test]
    fn tube_tangent_frames_follow_the_uvs() {
        // Per triangle, dP/du and dP/dv from positions and UVs; the stored tangent must
        // point along dP/du and w·(n × t) along dP/dv (the documented convention).
        let model = build();
        let tube = &model.meshes[0];
        let v = &tube.vertices;
        let (uv, n, t) = (
            v.uv0.as_ref().unwrap(),
            v.normals.as_ref().unwrap(),
            v.tangents.as_ref().unwrap(),
        );
        for tri in tube.indices.chunks_exact(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| i as usize);
            let e1 = sub(v.positions[b], v.positions[a]);
            let e2 = sub(v.positions[c], v.positions[a]);
            let (du1, dv1) = (
                f64::from(uv[b][0] - uv[a][0]),
                f64::from(uv[b][1] - uv[a][1]),
            );
            let (du2, dv2) = (
                f64::from(uv[c][0] - uv[a][0]),
                f64::from(uv[c][1] - uv[a][1]),
            );
            let r = 1.0 / (du1 * dv2 - du2 * dv1);
            let dpdu = [0, 1, 2].map(|k| (e1[k] * dv2 - e2[k] * dv1) * r);
            let dpdv = [0, 1, 2].map(|k| (e2[k] * du1 - e1[k] * du2) * r);
            for i in [a, b, c] {
                let tv = [t[i][0], t[i][1], t[i][2]].map(f64::from);
                let bitangent = cross64(n[i].map(f64::from), tv).map(|x| x * f64::from(t[i][3]));
                assert!(dot(tv, dpdu) > 0.0, "vertex {i}: tangent against +u");
                assert!(
                    dot(bitangent, dpdv) > 0.0,
                    "vertex {i}: bitangent against +v"
                );
            }
        }
    }

    #[test]
    fn the_plate_spans_the_documented_box() {
        let model = build();
        let plate = &model.meshes[1];
        let g = plate.mesh_bind_geo_to_model.unwrap();
        let ps: Vec<[f32; 3]> = plate
            .vertices
            .positions
            .iter()
            .map(|&p| transform_point(&g, p))
            .collect();
        for p in &ps {
            assert!((p[0].abs() - 0.3).abs() < 1e-6, "{p:?}");
            assert!(p[1].abs() < 1e-6 || (p[1] - 0.1).abs() < 1e-6, "{p:?}");
            assert!((p[2].abs() - 0.3).abs() < 1e-6, "{p:?}");
        }
    }

    #[test]
    fn all_three_validation_checks_pass() {
        let model = build();
        gom::validate::check_structure(&model).unwrap();
        assert_eq!(gom::validate::validate(&model), vec![]);
        assert_eq!(gom::validate::flags_for(&model), ValidationFlags::all());
    }

    #[test]
    fn skeleton_chain_and_clips_match_the_description() {
        let model = build();
        let bones = &model.skeleton.bones;
        assert_eq!(bones.len(), 1 + SEGMENTS);
        const { assert!(SEGMENTS >= 3) };
        for (i, b) in bones.iter().enumerate() {
            assert_eq!(b.parent, i as i32 - 1);
        }
        assert_eq!(bones[3].path, "root/seg1/seg2/seg3");
        // The tip bone sits 0.1 + 4 × 0.4 = 1.7 m above the root.
        let world = bind_pose();
        assert!((world[5][13] - 1.7).abs() < 1e-6);
        let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["swish", "curl"]);
        assert_eq!(model.clips[0].tracks[0].keys.len(), 61);
        assert_eq!(model.clips[1].tracks[0].keys.len(), 46);
        assert_eq!(model.clips[0].tracks[0].keys[60].time, 2.0);
        let mats: Vec<&str> = model.materials.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(mats, ["skin", "prop"]);
    }

    #[test]
    fn joint_rings_split_weight_between_neighbours() {
        // Ring 4 lies at the joint of seg1 and seg2: 0.5 / 0.5, lower bone first.
        let w = ring_weights(4);
        assert_eq!(w.bones, [1, 2, 0, 0]);
        assert_eq!(w.weights, [0.5, 0.5, 0.0, 0.0]);
        // A quarter segment past the joint: 0.75 on seg2, 0.25 on seg1.
        let w = ring_weights(5);
        assert_eq!(w.bones, [2, 1, 0, 0]);
        assert_eq!(w.weights, [0.75, 0.25, 0.0, 0.0]);
        // The middle of a segment and the tip are rigid.
        assert_eq!(ring_weights(2).weights, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(ring_weights(RINGS - 1).bones, [5, 0, 0, 0]);
    }

    #[test]
    fn build_is_deterministic() {
        assert_eq!(build(), build());
    }
}
