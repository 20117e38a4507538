//! Shared test helpers: a proptest [`Strategy`] for structurally valid [`Model`]s.
//!
//! The models obey every structural rule of GOM v1 (parents earlier, indices below the
//! vertex count, submeshes in range and multiples of 3, tracks ascending by bone, keys
//! ascending in time within the duration, unit quaternions, tangent w = ±1, …) and
//! carry odd floats: 1e-30, 3.4e38, subnormals, -0.0. Most skin weights follow the D7
//! order and most inverse binds match the skeleton, so that both set and clear
//! validation flags occur.
#![allow(dead_code)]

use gom::math::{bind_world, inverse_affine};
use gom::model::*;
use proptest::prelude::*;

/// Floats a writer must carry exactly: ordinary values, extremes, subnormals and -0.0.
pub fn odd_f32() -> BoxedStrategy<f32> {
    prop_oneof![
        4 => -100.0f32..100.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => Just(1e-30f32),
        1 => Just(-3.4e38f32),
        1 => Just(3.4e38f32),
        1 => Just(f32::MAX),
        1 => (1u32..0x0080_0000).prop_map(f32::from_bits),
        1 => (1u32..0x0080_0000).prop_map(|b| -f32::from_bits(b)),
        2 => any::<u32>()
            .prop_map(f32::from_bits)
            .prop_filter("finite", |x| x.is_finite()),
    ]
    .boxed()
}

/// Floats small enough that a position stays inside f32 bounds (a sphere radius
/// computed from them cannot overflow).
pub fn coord() -> BoxedStrategy<f32> {
    prop_oneof![
        6 => -10.0f32..10.0,
        1 => Just(-0.0f32),
        1 => Just(1e-30f32),
        1 => Just(1e30f32),
        1 => Just(-1e36f32),
        1 => (1u32..0x0080_0000).prop_map(f32::from_bits),
    ]
    .boxed()
}

/// Strings with characters the text form must escape.
pub fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z][a-z0-9_]{0,8}",
        1 => "[ -~]{0,12}",
        1 => "[\"\\\\\t\n\u{1}\u{7f}é€😀 a-z]{0,8}",
    ]
}

fn arr<const N: usize, S: Strategy<Value = f32>>(s: S) -> impl Strategy<Value = [f32; N]> {
    proptest::collection::vec(s, N).prop_map(|v| {
        let mut a = [0.0f32; N];
        a.copy_from_slice(&v);
        a
    })
}

fn affine() -> impl Strategy<Value = Mat4> {
    prop_oneof![
        1 => Just(IDENTITY),
        3 => (arr::<12, _>(-2.0f32..2.0), arr::<3, _>(coord())).prop_map(|(m, t)| {
            let mut r = IDENTITY;
            for row in 0..3 {
                r[row * 4..row * 4 + 3].copy_from_slice(&m[row * 3..row * 3 + 3]);
            }
            r[12..15].copy_from_slice(&t);
            r
        }),
        1 => arr::<16, _>(odd_f32()),
    ]
}

fn unit_quat() -> impl Strategy<Value = [f32; 4]> {
    prop_oneof![
        1 => Just([0.0, 0.0, 0.0, 1.0]),
        1 => Just([-0.0, 0.0, -0.0, -1.0]),
        4 => arr::<4, _>(-1.0f32..1.0)
            .prop_filter("not tiny", |q| q.iter().map(|x| x * x).sum::<f32>() > 0.01)
            .prop_map(|q| {
                let l = q.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
                q.map(|x| (f64::from(x) / l) as f32)
            }),
    ]
}

fn bones() -> impl Strategy<Value = Vec<Bone>> {
    (0usize..6).prop_flat_map(|n| {
        let each: Vec<_> = (0..n)
            .map(|i| {
                let parent = if i == 0 {
                    Just(-1i32).boxed()
                } else {
                    (-1i32..i as i32).boxed()
                };
                (parent, name(), name(), affine()).prop_map(|(parent, name, path, bind_local)| {
                    Bone {
                        name,
                        path,
                        parent,
                        bind_local,
                    }
                })
            })
            .collect();
        each
    })
}

fn material() -> impl Strategy<Value = Material> {
    (name(), proptest::option::of(name()), arr::<4, _>(odd_f32())).prop_map(|(name, t, f)| {
        Material {
            name,
            base_color_texture: t,
            base_color_factor: f,
        }
    })
}

/// Skin weights for `bone_count` bones: mostly following D7, sometimes any
/// non-negative weights (which only clear weightsPass).
fn skin(bone_count: usize) -> BoxedStrategy<SkinWeights> {
    if bone_count == 0 {
        return Just(SkinWeights::default()).boxed();
    }
    let valid = (
        proptest::sample::subsequence(
            (0..bone_count as u16).collect::<Vec<_>>(),
            1..=bone_count.min(4),
        ),
        proptest::collection::vec(1u32..16, 4),
    )
        .prop_map(|(picked, parts)| {
            // Integer parts out of a power of two, so that the f32 weights sum to 1.
            let k = picked.len();
            let mut parts: Vec<u32> = parts[..k].to_vec();
            let total: u32 = parts.iter().sum();
            let mut ws: Vec<f32> = parts.iter_mut().map(|p| *p as f32 / total as f32).collect();
            // Make the sum exactly representable: put the remainder on the first slot.
            let rest: f32 = ws[1..].iter().sum();
            ws[0] = 1.0 - rest;
            let mut pairs: Vec<(u16, f32)> = picked.into_iter().zip(ws).collect();
            pairs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let mut s = SkinWeights::default();
            for (slot, (b, w)) in pairs.into_iter().enumerate() {
                s.bones[slot] = b;
                s.weights[slot] = w;
            }
            s
        });
    let raw = (
        proptest::collection::vec(0..bone_count as u16, 4),
        arr::<4, _>(0.0f32..1.0),
    )
        .prop_map(|(b, w)| SkinWeights {
            bones: [b[0], b[1], b[2], b[3]],
            weights: w,
        });
    prop_oneof![6 => valid, 1 => raw].boxed()
}

fn mesh(bones: Vec<Bone>, materials: usize) -> impl Strategy<Value = MeshPart> {
    let bone_count = bones.len();
    let world = bind_world(&bones);
    let matching: Vec<Mat4> = world
        .iter()
        .map(|w| {
            inverse_affine(w)
                .filter(|m| m.iter().all(|x| x.is_finite()))
                .unwrap_or(IDENTITY)
        })
        .collect();
    (
        0usize..8,
        any::<[bool; 6]>(),
        proptest::option::of(
            affine().prop_filter("moderate", |m| m.iter().all(|x| x.abs() < 100.0)),
        ),
        name(),
        any::<bool>(),
    )
        .prop_flat_map(move |(vc, has, gbtm, name, matching_ibnd)| {
            let skinned = has[5];
            let n = proptest::collection::vec(arr::<3, _>(odd_f32()), vc);
            let t = proptest::collection::vec(
                (arr::<3, _>(odd_f32()), any::<bool>())
                    .prop_map(|(v, s)| [v[0], v[1], v[2], if s { 1.0 } else { -1.0 }]),
                vc,
            );
            let uv = proptest::collection::vec(arr::<2, _>(odd_f32()), vc);
            let uv1 = proptest::collection::vec(arr::<2, _>(odd_f32()), vc);
            let c = proptest::collection::vec(any::<[u8; 4]>(), vc);
            let sk = proptest::collection::vec(skin(bone_count), vc);
            let p = proptest::collection::vec(arr::<3, _>(coord()), vc);
            let tris = if vc == 0 {
                Just(Vec::<u32>::new()).boxed()
            } else {
                proptest::collection::vec(0..vc as u32, 0..24)
                    .prop_map(|mut v| {
                        v.truncate(v.len() / 3 * 3);
                        v
                    })
                    .boxed()
            };
            let ibnd: BoxedStrategy<Vec<Mat4>> = if !skinned {
                Just(Vec::new()).boxed()
            } else if matching_ibnd {
                Just(matching.clone()).boxed()
            } else {
                proptest::collection::vec(affine(), bone_count).boxed()
            };
            (
                p,
                n,
                t,
                uv,
                uv1,
                c,
                sk,
                tris,
                ibnd,
                proptest::collection::vec(any::<u8>(), 0..6),
            )
                .prop_flat_map(
                    move |(p, n, t, uv, uv1, c, sk, indices, ibnd, cuts)| {
                        let ic = indices.len() as u32;
                        // Split [0, ic) into contiguous triangle-aligned submeshes.
                        let tri_count = ic / 3;
                        let mut bounds: Vec<u32> = cuts
                            .iter()
                            .filter(|_| tri_count > 0)
                            .map(|c| u32::from(*c) % (tri_count + 1))
                            .collect();
                        bounds.push(0);
                        bounds.push(tri_count);
                        bounds.sort_unstable();
                        bounds.dedup();
                        let ranges: Vec<(u32, u32)> = bounds
                            .windows(2)
                            .map(|w| (w[0] * 3, (w[1] - w[0]) * 3))
                            .collect();
                        let mats =
                            proptest::collection::vec(-1i32..materials as i32 + 1, ranges.len());
                        let vertices = Vertices {
                            positions: p,
                            normals: has[0].then_some(n),
                            tangents: has[1].then_some(t),
                            uv0: has[2].then_some(uv),
                            uv1: has[3].then_some(uv1),
                            colors: has[4].then_some(c),
                            skin: skinned.then_some(sk),
                            skin_extra: None,
                            dq_weights: None,
                        };
                        let name = name.clone();
                        mats.prop_map(move |mats| MeshPart {
                            morph_targets: Vec::new(),
                            name: name.clone(),
                            vertices: vertices.clone(),
                            indices: indices.clone(),
                            submeshes: ranges
                                .iter()
                                .zip(mats)
                                .map(|(&(s, c), m)| Submesh {
                                    material_index: m,
                                    index_start: s,
                                    index_count: c,
                                })
                                .collect(),
                            inverse_bind: ibnd.clone(),
                            mesh_bind_geo_to_model: gbtm,
                            bounds: None,
                            skinning: Default::default(),
                        })
                    },
                )
        })
}

fn clip(bone_count: usize) -> impl Strategy<Value = Clip> {
    let durations = prop_oneof![
        4 => 0.0f32..10.0,
        1 => Just(0.0f32),
        1 => Just(1e-30f32),
        1 => Just(3.4e38f32),
    ];
    (
        name(),
        durations,
        prop_oneof![Just(30.0f32), 0.0f32..120.0, Just(1e-30f32)],
        proptest::sample::subsequence((0..bone_count as u32).collect::<Vec<_>>(), 0..=bone_count),
        proptest::option::of(0..bone_count.max(1) as i32),
        any::<bool>(),
    )
        .prop_flat_map(move |(name, duration, rate, track_bones, root, motion)| {
            let root = root.filter(|&r| (r as usize) < bone_count).unwrap_or(-1);
            let flags = if motion && root >= 0 {
                ClipFlags::HAS_ROOT_MOTION
            } else {
                ClipFlags::empty()
            };
            let tracks: Vec<_> = track_bones
                .into_iter()
                .map(|bone| {
                    let times = proptest::collection::vec(0.0f32..=1.0, 1..5).prop_map(move |fr| {
                        let mut t: Vec<f32> =
                            fr.iter().map(|f| (f * duration).min(duration)).collect();
                        t.sort_by(f32::total_cmp);
                        t.dedup();
                        t
                    });
                    times.prop_flat_map(move |times| {
                        let n = times.len();
                        proptest::collection::vec(
                            (arr::<3, _>(odd_f32()), unit_quat(), arr::<3, _>(odd_f32())),
                            n,
                        )
                        .prop_map(move |v| Track {
                            bone,
                            keys: times
                                .iter()
                                .zip(v)
                                .map(|(&time, (translation, rotation, scale))| Key {
                                    time,
                                    translation,
                                    rotation,
                                    scale,
                                })
                                .collect(),
                        })
                    })
                })
                .collect();
            let name = name.clone();
            tracks.prop_map(move |tracks| Clip {
                weight_tracks: Vec::new(),
                name: name.clone(),
                duration,
                sample_rate: rate,
                root_bone_index: root,
                flags,
                tracks,
                compressed: None,
                extras: Default::default(),
            })
        })
}

/// Structurally valid models (see the module documentation).
pub fn model() -> impl Strategy<Value = Model> {
    (
        bones(),
        proptest::collection::vec(material(), 0..3),
        any::<[u8; 32]>(),
        name(),
    )
        .prop_flat_map(|(bones, materials, hash, version)| {
            let bone_count = bones.len();
            let meshes = proptest::collection::vec(mesh(bones.clone(), materials.len()), 0..3);
            let clips = proptest::collection::vec(clip(bone_count), 0..3);
            (meshes, clips).prop_map(move |(meshes, clips)| Model {
                header: Header {
                    source_hash: hash,
                    converter_version: version.clone(),
                    validation_flags: ValidationFlags::empty(),
                },
                skeleton: Skeleton {
                    bones: bones.clone(),
                },
                materials: materials.clone(),
                meshes,
                clips,
            })
        })
}
