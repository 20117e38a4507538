//! Poses, sampling, palettes and skinning checked against hand-computed values.

mod common;

use common::*;
use glam::{Quat, Vec3};
use gom::math::{from_trs, mul, transform_point};
use gom::{ClipFlags, Track};
use gom_demo::quat_from_axis_angle;
use gom_runtime::*;

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

fn assert_close3(a: [f32; 3], b: [f32; 3], tol: f32, what: &str) {
    assert!(
        (0..3).all(|i| close(a[i], b[i], tol)),
        "{what}: {a:?} != {b:?}"
    );
}

#[test]
fn three_bone_chain_model_matrices_match_hand_computation() {
    let asset = Asset::from_model(&model(chain_skeleton(), vec![], vec![])).unwrap();
    let local = LocalPose::bind(asset.skeleton());
    let world = model_pose_of(&asset, &local);
    // Bone 0: world0 = local0 = translate (1,0,0).
    // Bone 1: world1 = local1 * world0. Its origin (0,0,0) -> rotate: (0,0,0) ->
    //   translate (0,2,0) -> translate (1,0,0): (1,2,0). Its x axis (1,0,0) turns
    //   +90° about Z to (0,1,0); its y axis (0,1,0) to (-1,0,0).
    // Bone 2: world2 = local2 * world1. Origin: (3,0,0) in bone 1's space -> rotated
    //   (0,3,0) -> + (0,2,0) + (1,0,0) = (1,5,0). Scale 2: x axis (2,0,0) -> (0,2,0),
    //   y axis (0,2,0) -> (-2,0,0), z axis (0,0,2).
    let expect: [[f32; 16]; 3] = [
        [
            1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 1., 0., 0., 1.,
        ],
        [
            0., 1., 0., 0., -1., 0., 0., 0., 0., 0., 1., 0., 1., 2., 0., 1.,
        ],
        [
            0., 2., 0., 0., -2., 0., 0., 0., 0., 0., 2., 0., 1., 5., 0., 1.,
        ],
    ];
    for (b, e) in expect.iter().enumerate() {
        let m = world.row_major(b).unwrap();
        for k in 0..16 {
            assert!(
                close(m[k], e[k], 1e-6),
                "bone {b} element {k}: {m:?} != {e:?}"
            );
        }
    }
    // The point (1,0,0) of bone 2: 2 along bone 2's x axis (0,1,0) from (1,5,0).
    let p = transform_point(&world.row_major(2).unwrap(), [1.0, 0.0, 0.0]);
    assert_close3(p, [1.0, 7.0, 0.0], 1e-6, "point of bone 2");
}

#[test]
fn three_bone_chain_animated_pose_matches_hand_computation() {
    // Animate bone 0 to turn +90° about Z and bone 2 to move to (0,1,0) unscaled.
    let tracks = vec![
        Track {
            bone: 0,
            keys: vec![key(0.0, [1.0, 0.0, 0.0], rot_z90(), [1.0; 3])],
        },
        Track {
            bone: 2,
            keys: vec![key(0.0, [0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3])],
        },
    ];
    let asset = Asset::from_model(&model(
        chain_skeleton(),
        vec![],
        vec![clip("c", 1.0, tracks)],
    ))
    .unwrap();
    let mut ctx = SamplingContext::new();
    let mut local = LocalPose::default();
    sample_clip(&asset, 0, 0.0, Playback::Once, &mut ctx, &mut local);
    let world = model_pose_of(&asset, &local);
    // world1 = local1 * world0: bone 1's origin (0,2,0) in bone 0's space turns +90°
    // about Z to (-2,0,0), plus (1,0,0): (-1,0,0). Bone 1 is turned 180° in total:
    // its x axis is (-1,0,0), its y axis (0,-1,0).
    // Bone 2's origin (0,1,0) in bone 1's space -> (0,-1,0) + (-1,0,0) = (-1,-1,0).
    let o1 = transform_point(&world.row_major(1).unwrap(), [0.0; 3]);
    assert_close3(o1, [-1.0, 0.0, 0.0], 1e-6, "bone 1 origin");
    let x1 = transform_point(&world.row_major(1).unwrap(), [1.0, 0.0, 0.0]);
    assert_close3(x1, [-2.0, 0.0, 0.0], 1e-6, "bone 1 x axis");
    let o2 = transform_point(&world.row_major(2).unwrap(), [0.0; 3]);
    assert_close3(o2, [-1.0, -1.0, 0.0], 1e-6, "bone 2 origin");
}

fn two_key_clip() -> gom::Clip {
    // Keys at 0, 1 and 2 s. Between 0 and 1: translation (0,0,0) -> (2,4,-6),
    // rotation identity -> +90° about Y, scale (1,1,1) -> (3,1,1).
    let y90 = quat_from_axis_angle([0.0, 1.0, 0.0], core::f32::consts::FRAC_PI_2);
    clip(
        "k",
        2.0,
        vec![Track {
            bone: 0,
            keys: vec![
                key(0.0, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
                key(1.0, [2.0, 4.0, -6.0], y90, [3.0, 1.0, 1.0]),
                key(2.0, [5.0, 5.0, 5.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
            ],
        }],
    )
}

fn sample_one(asset: &Asset, t: f32, playback: Playback, ctx: &mut SamplingContext) -> Transform {
    let mut local = LocalPose::default();
    sample_clip(asset, 0, t, playback, ctx, &mut local);
    local.get(0).unwrap()
}

#[test]
fn sampling_exactly_at_keys_returns_the_keys_bit_for_bit() {
    let m = model(chain_skeleton(), vec![], vec![two_key_clip()]);
    let asset = Asset::from_model(&m).unwrap();
    let mut ctx = SamplingContext::new();
    for (t, k) in [(0.0, 0), (1.0, 1), (2.0, 2), (1.0, 1), (0.0, 0)] {
        let s = sample_one(&asset, t, Playback::Once, &mut ctx);
        let key = &m.clips[0].tracks[0].keys[k];
        assert_eq!(s.translation.to_array(), key.translation, "t={t}");
        assert_eq!(s.rotation.to_array(), key.rotation, "t={t}");
        assert_eq!(s.scale.to_array(), key.scale, "t={t}");
    }
}

#[test]
fn sampling_halfway_interpolates_linearly_and_slerps() {
    let asset = Asset::from_model(&model(chain_skeleton(), vec![], vec![two_key_clip()])).unwrap();
    let mut ctx = SamplingContext::new();
    let s = sample_one(&asset, 0.5, Playback::Once, &mut ctx);
    // Halfway: translation (1,2,-3), scale (2,1,1), rotation 45° about Y:
    // (0, sin 22.5°, 0, cos 22.5°) = (0, 0.38268343, 0, 0.92387953).
    assert_close3(
        s.translation.to_array(),
        [1.0, 2.0, -3.0],
        1e-6,
        "translation",
    );
    assert_close3(s.scale.to_array(), [2.0, 1.0, 1.0], 1e-6, "scale");
    let q = s.rotation.to_array();
    let e = [0.0, 0.382_683_43, 0.0, 0.923_879_5];
    assert!((0..4).all(|i| close(q[i], e[i], 1e-6)), "{q:?}");
    // A quarter of the way: 22.5° about Y: (0, sin 11.25°, 0, cos 11.25°).
    let s = sample_one(&asset, 0.25, Playback::Once, &mut ctx);
    let q = s.rotation.to_array();
    let e = [0.0, 0.195_090_32, 0.0, 0.980_785_3];
    assert!((0..4).all(|i| close(q[i], e[i], 1e-6)), "{q:?}");
}

#[test]
fn times_outside_the_keys_hold_the_nearest_key() {
    let m = model(chain_skeleton(), vec![], vec![two_key_clip()]);
    let asset = Asset::from_model(&m).unwrap();
    let mut ctx = SamplingContext::new();
    let before = sample_one(&asset, -3.0, Playback::Once, &mut ctx);
    assert_eq!(before.translation.to_array(), [0.0; 3]);
    let after = sample_one(&asset, 7.0, Playback::Once, &mut ctx);
    assert_eq!(after.translation.to_array(), [5.0, 5.0, 5.0]);
}

#[test]
fn bones_without_a_track_keep_their_bind_local() {
    let asset = Asset::from_model(&model(chain_skeleton(), vec![], vec![two_key_clip()])).unwrap();
    let mut ctx = SamplingContext::new();
    let mut local = LocalPose::default();
    sample_clip(&asset, 0, 0.7, Playback::Once, &mut ctx, &mut local);
    // Bone 1's bind: translation (0,2,0), +90° about Z, unit scale.
    let t = local.get(1).unwrap();
    assert_close3(t.translation.to_array(), [0.0, 2.0, 0.0], 1e-6, "bone 1");
    assert!(t.rotation.abs_diff_eq(Quat::from_array(rot_z90()), 1e-6));
    let t = local.get(2).unwrap();
    assert_close3(t.scale.to_array(), [2.0; 3], 1e-6, "bone 2 scale");
}

#[test]
fn looping_wraps_with_fmod() {
    let asset = Asset::from_model(&model(chain_skeleton(), vec![], vec![two_key_clip()])).unwrap();
    let mut ctx = SamplingContext::new();
    let mut fresh = SamplingContext::new();
    for (looped, plain) in [
        (2.5, 0.5),
        (4.25, 0.25),
        (-0.5, 1.5),
        (2.0, 0.0),
        (6.0, 0.0),
    ] {
        let a = sample_one(&asset, looped, Playback::Loop, &mut ctx);
        let b = sample_one(&asset, plain, Playback::Once, &mut fresh);
        assert_eq!(a, b, "loop {looped} vs {plain}");
    }
    // Without looping, 2.5 holds the last key instead.
    let held = sample_one(&asset, 2.5, Playback::Once, &mut ctx);
    assert_eq!(held.translation.to_array(), [5.0, 5.0, 5.0]);
}

#[test]
fn forward_cursor_and_random_seeks_give_identical_results() {
    let n = 13;
    let m = model(chain_of(n), vec![], vec![random_clip(n, 17, 2.0, 7)]);
    let asset = Asset::from_model(&m).unwrap();
    let clip = &asset.clips()[0];
    let times: Vec<f32> = (0..400).map(|i| i as f32 * 0.0071 - 0.1).collect();
    let mut fwd_ctx = SamplingContext::new();
    let mut forward = Vec::new();
    for &t in &times {
        let mut p = LocalPose::default();
        sample_clip(&asset, 0, t, Playback::Once, &mut fwd_ctx, &mut p);
        forward.push(p);
    }
    // Random order through one context, and a fresh context each time.
    let mut rng = Rng::new(99);
    let mut order: Vec<usize> = (0..times.len()).collect();
    for i in (1..order.len()).rev() {
        let j = (rng.unit() * (i + 1) as f32) as usize % (i + 1);
        order.swap(i, j);
    }
    let mut ctx = SamplingContext::new();
    for &i in &order {
        let mut p = LocalPose::default();
        sample_clip(&asset, 0, times[i], Playback::Once, &mut ctx, &mut p);
        assert_eq!(p, forward[i], "shuffled seek at t={}", times[i]);
        let mut q = LocalPose::default();
        sample_clip(
            &asset,
            0,
            times[i],
            Playback::Once,
            &mut SamplingContext::new(),
            &mut q,
        );
        assert_eq!(q, forward[i], "fresh seek at t={}", times[i]);
        // The uncached single-bone path agrees too.
        for b in 0..n {
            assert_eq!(clip.sample_bone(b as u32, times[i]), forward[i].get(b));
        }
    }
}

#[test]
fn many_threads_sampling_the_same_clip_agree_bit_for_bit() {
    let n = 40;
    let m = model(chain_of(n), vec![], vec![random_clip(n, 31, 1.0, 3)]);
    let asset = Asset::from_model(&m).unwrap();
    let times: Vec<f32> = (0..200).map(|i| i as f32 * 0.013).collect();
    let run = |reverse: bool| {
        let mut ctx = SamplingContext::new();
        let mut out = vec![LocalPose::default(); times.len()];
        let idx: Vec<usize> = if reverse {
            (0..times.len()).rev().collect()
        } else {
            (0..times.len()).collect()
        };
        for i in idx {
            sample_clip(&asset, 0, times[i], Playback::Loop, &mut ctx, &mut out[i]);
        }
        out
    };
    let reference = run(false);
    let results: Vec<Vec<LocalPose>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8).map(|k| s.spawn(move || run(k % 2 == 1))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &results {
        for (a, b) in r.iter().zip(&reference) {
            for (ga, gb) in a.groups().iter().zip(b.groups()) {
                let bits = |g: &SoaTransform| {
                    let mut v = Vec::new();
                    for x in g.translation.iter().chain(&g.rotation).chain(&g.scale) {
                        v.extend(x.to_array().map(f32::to_bits));
                    }
                    v
                };
                assert_eq!(bits(ga), bits(gb));
            }
        }
    }
}

#[test]
fn tracks_equal_to_bind_local_reproduce_the_bind_positions() {
    let skel = chain_skeleton();
    let positions = vec![
        [1.0, 0.5, 0.0],
        [1.2, 2.5, 0.3],
        [0.5, 5.0, -0.4],
        [0.0, 6.0, 1.0],
        [2.0, 3.0, 0.0],
        [1.0, 4.0, 0.5],
    ];
    let skin_w = vec![
        weights([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        weights([1, 0, 0, 0], [0.6, 0.4, 0.0, 0.0]),
        weights([2, 1, 0, 0], [0.7, 0.2, 0.1, 0.0]),
        weights([2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        weights([1, 2, 0, 0], [0.5, 0.3, 0.2, 0.0]),
        weights([0, 1, 2, 0], [0.25, 0.25, 0.25, 0.25]),
    ];
    let mesh = skinned_mesh(&skel, positions.clone(), skin_w);
    // Tracks whose single key is each bone's bind TRS (as the chain was built).
    let z90 = rot_z90();
    let tracks = vec![
        Track {
            bone: 0,
            keys: vec![key(0.0, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3])],
        },
        Track {
            bone: 1,
            keys: vec![key(0.0, [0.0, 2.0, 0.0], z90, [1.0; 3])],
        },
        Track {
            bone: 2,
            keys: vec![key(0.0, [3.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [2.0; 3])],
        },
    ];
    let asset =
        Asset::from_model(&model(skel, vec![mesh], vec![clip("bind", 1.0, tracks)])).unwrap();
    let mut ctx = SamplingContext::new();
    let mut local = LocalPose::default();
    sample_clip(&asset, 0, 0.3, Playback::Loop, &mut ctx, &mut local);
    let world = model_pose_of(&asset, &local);
    let mut pal = Palette::new();
    pal.compute(&asset.meshes()[0], &world).unwrap();
    let out = skin_positions(&asset.meshes()[0], &pal);
    for (a, b) in out.iter().zip(&positions) {
        assert_close3(*a, *b, 1e-5, "bind position");
    }
}

/// One bone at (1,0,0) in the bind pose; one vertex at (1,1,0) bound to it. In the
/// current pose the bone turns +90° about Z in place.
fn one_bone_turned() -> (Asset<'static>, ModelPose) {
    let skel = gom::Skeleton {
        bones: vec![bone(
            "b",
            -1,
            from_trs([1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
        )],
    };
    let mesh = skinned_mesh(
        &skel,
        vec![[1.0, 1.0, 0.0]],
        vec![weights([0; 4], [1.0, 0.0, 0.0, 0.0])],
    );
    let asset = Asset::from_model(&model(skel, vec![mesh], vec![])).unwrap();
    let mut local = LocalPose::new(1);
    local.set(
        0,
        &Transform {
            translation: Vec3::new(1.0, 0.0, 0.0),
            rotation: Quat::from_array(rot_z90()),
            scale: Vec3::ONE,
        },
    );
    let world = model_pose_of(&asset, &local);
    (asset, world)
}

#[test]
fn palette_is_inverse_bind_times_bone_world_and_the_draft_order_is_wrong() {
    let (asset, world) = one_bone_turned();
    let mut pal = Palette::new();
    pal.compute(&asset.meshes()[0], &world).unwrap();
    let ib = asset.meshes()[0].inverse_bind()[0];
    let w = world.row_major(0).unwrap();
    let d1 = mul(&ib, &w);
    let ours = pal.row_major(0).unwrap();
    for k in 0..16 {
        assert!(close(ours[k], d1[k], 1e-6), "{ours:?} != {d1:?}");
    }
    // By hand: relative to the bone the vertex is at (0,1,0); turning +90° about Z
    // takes it to (-1,0,0); the bone sits at (1,0,0): the vertex lands at (0,0,0).
    let out = skin_positions(&asset.meshes()[0], &pal);
    assert_close3(out[0], [0.0, 0.0, 0.0], 1e-6, "D1 palette");
    // Draft §11.4 read literally with row vectors: boneWorld * inverseBind. The vertex
    // is turned first ((1,1,0) -> (-1,1,0)), moved by (1,0,0) to (0,1,0) and then by
    // (-1,0,0) to (-1,1,0): a different, wrong place.
    let draft = mul(&w, &ib);
    let wrong = transform_point(&draft, [1.0, 1.0, 0.0]);
    assert_close3(wrong, [-1.0, 1.0, 0.0], 1e-6, "draft order");
    assert!((wrong[0] - out[0][0]).abs() > 0.5);
}

#[test]
fn normals_under_non_uniform_scale_use_the_inverse_transpose() {
    // One bone at the origin; the current pose scales x by 2. A surface x + y = c has
    // the normal (1,1,0)/√2. Scaled, its points (x,y) become (2x,y), so the surface is
    // X/2 + Y = c with normal ∝ (1/2, 1, 0), i.e. (1,2,0)/√5 = (0.4472136, 0.8944272, 0).
    // Transforming the normal by the 3x3 itself would give (2,1,0)/√5 instead.
    let skel = gom::Skeleton {
        bones: vec![bone("b", -1, gom::IDENTITY)],
    };
    let mut mesh = skinned_mesh(
        &skel,
        vec![[0.5, 0.5, 0.0]],
        vec![weights([0; 4], [1.0, 0.0, 0.0, 0.0])],
    );
    let s = FRAC_1_SQRT_2;
    mesh.vertices.normals = Some(vec![[s, s, 0.0]]);
    mesh.vertices.tangents = Some(vec![[s, -s, 0.0, -1.0]]);
    let asset = Asset::from_model(&model(skel, vec![mesh], vec![])).unwrap();
    let mut local = LocalPose::new(1);
    local.set(
        0,
        &Transform {
            scale: Vec3::new(2.0, 1.0, 1.0),
            ..Transform::IDENTITY
        },
    );
    let world = model_pose_of(&asset, &local);
    let mut pal = Palette::new();
    pal.compute(&asset.meshes()[0], &world).unwrap();
    assert!(!pal.is_rigid());
    let (p, mut n) = skin_positions_normals(&asset.meshes()[0], &pal);
    let mut t = [[0.0; 4]];
    assert_close3(p[0], [1.0, 0.5, 0.0], 1e-6, "position");
    assert_close3(n[0], [0.447_213_6, 0.894_427_2, 0.0], 1e-6, "normal");
    // Tangent (1,-1,0)/√2 lies in the surface: scaled by the 3x3 it becomes
    // (2,-1,0)/√5 = (0.8944272, -0.4472136, 0), w kept; it stays perpendicular.
    skin(
        &asset.meshes()[0],
        &pal,
        SkinTargets {
            positions: None,
            normals: Some(&mut n),
            tangents: Some(&mut t),
        },
    )
    .unwrap();
    assert_close3(
        [t[0][0], t[0][1], t[0][2]],
        [0.894_427_2, -0.447_213_6, 0.0],
        1e-6,
        "tangent",
    );
    assert_eq!(t[0][3], -1.0);
    assert_close3(
        n[0],
        [0.447_213_6, 0.894_427_2, 0.0],
        1e-6,
        "normal with tangents",
    );
}

#[test]
fn static_meshes_are_transformed_by_gbtm_or_copied() {
    let skel = gom::Skeleton { bones: vec![] };
    let mut mesh = skinned_mesh(
        &skel,
        vec![[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]],
        vec![],
    );
    mesh.vertices.skin = None;
    mesh.inverse_bind.clear();
    let copy = Asset::from_model(&model(skel.clone(), vec![mesh.clone()], vec![])).unwrap();
    // GBTM: scale 2 then move by (0,0,10): (1,2,3) -> (2,4,16).
    mesh.mesh_bind_geo_to_model = Some(from_trs([0.0, 0.0, 10.0], [0.0, 0.0, 0.0, 1.0], [2.0; 3]));
    let moved = Asset::from_model(&model(skel, vec![mesh], vec![])).unwrap();
    let world = ModelPose::new();
    for (asset, expect) in [(copy, [1.0, 2.0, 3.0]), (moved, [2.0, 4.0, 16.0])] {
        let mut pal = Palette::new();
        pal.compute(&asset.meshes()[0], &world).unwrap();
        let (out, nrm) = skin_positions_normals(&asset.meshes()[0], &pal);
        assert_eq!(out[0], expect);
        assert_close3(nrm[0], [0.0, 1.0, 0.0], 1e-6, "normal");
    }
}

#[test]
fn blending_cross_fades_with_weight_and_mask() {
    let mut a = LocalPose::new(2);
    let mut b = LocalPose::new(2);
    a.set(
        0,
        &Transform {
            translation: Vec3::new(0.0, 0.0, 0.0),
            ..Transform::IDENTITY
        },
    );
    b.set(
        0,
        &Transform {
            translation: Vec3::new(4.0, 0.0, 0.0),
            // -q of +90° about Y: the same rotation on the other hemisphere.
            rotation: -Quat::from_rotation_y(core::f32::consts::FRAC_PI_2),
            scale: Vec3::splat(3.0),
        },
    );
    b.set(
        1,
        &Transform {
            translation: Vec3::new(8.0, 0.0, 0.0),
            ..Transform::IDENTITY
        },
    );
    let mut out = LocalPose::default();
    blend(&a, &b, 0.5, None, &mut out).unwrap();
    let t = out.get(0).unwrap();
    assert_close3(
        t.translation.to_array(),
        [2.0, 0.0, 0.0],
        1e-6,
        "translation",
    );
    assert_close3(t.scale.to_array(), [2.0; 3], 1e-6, "scale");
    // Shorter arc: halfway between identity and 90° about Y is 45° about Y.
    let e = Quat::from_rotation_y(core::f32::consts::FRAC_PI_4);
    assert!(t.rotation.abs_diff_eq(e, 1e-6), "{:?}", t.rotation);
    // Mask: bone 0 weight 0 keeps a exactly, bone 1 weight 1 takes b exactly.
    blend(&a, &b, 1.0, Some(&[0.0, 1.0]), &mut out).unwrap();
    assert_eq!(out.get(0), a.get(0));
    assert_eq!(out.get(1), b.get(1));
}

fn root_motion_clip(turn: bool) -> gom::Clip {
    // Root at t=0: origin, no turn; at t=1: (0,0,1), turned +90° about Y (or x = 2).
    let y90 = quat_from_axis_angle([0.0, 1.0, 0.0], core::f32::consts::FRAC_PI_2);
    let keys = if turn {
        vec![
            key(0.0, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
            key(1.0, [0.0, 0.0, 1.0], y90, [1.0; 3]),
        ]
    } else {
        vec![
            key(0.0, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
            key(1.0, [2.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
        ]
    };
    let mut c = clip("walk", 1.0, vec![Track { bone: 0, keys }]);
    c.root_bone_index = 0;
    c.flags = ClipFlags::HAS_ROOT_MOTION;
    c
}

#[test]
fn root_motion_delta_across_a_loop_boundary() {
    let asset = Asset::from_model(&model(
        chain_skeleton(),
        vec![],
        vec![root_motion_clip(false), root_motion_clip(true)],
    ))
    .unwrap();
    // Straight line x = 2t: 0.75 -> end is 0.5, start -> 0.25 another 0.5: 1.0.
    let d = root_motion(&asset.clips()[0], 0.75, 1.25, Playback::Loop);
    assert_close3(d.translation.to_array(), [1.0, 0.0, 0.0], 1e-6, "straight");
    // Three whole loops and a quarter: 6.5.
    let d = root_motion(&asset.clips()[0], 0.0, 3.25, Playback::Loop);
    assert_close3(
        d.translation.to_array(),
        [6.5, 0.0, 0.0],
        1e-5,
        "3.25 loops",
    );
    // Backwards is the inverse.
    let d = root_motion(&asset.clips()[0], 1.25, 0.75, Playback::Loop);
    assert_close3(
        d.translation.to_array(),
        [-1.0, 0.0, 0.0],
        1e-6,
        "backwards",
    );
    // Without looping the root holds its last key: 0.75 -> 1.25 moves 0.5.
    let d = root_motion(&asset.clips()[0], 0.75, 1.25, Playback::Once);
    assert_close3(d.translation.to_array(), [0.5, 0.0, 0.0], 1e-6, "once");

    // Walking and turning, 0.5 -> 1.5. First half: from M(0.5) = (45°, (0,0,0.5)) to
    // M(1) = (90°, (0,0,1)): rotation 45°, translation R(-45°)·(0,0,0.5) =
    // (-0.35355, 0, 0.35355). Second half from the start: M(0.5) itself. Chained:
    // translation (-0.35355,0,0.35355) + R(45°)·(0,0,0.5) = (0, 0, 0.70711), rotation 90°.
    let d = root_motion(&asset.clips()[1], 0.5, 1.5, Playback::Loop);
    assert_close3(
        d.translation.to_array(),
        [0.0, 0.0, FRAC_1_SQRT_2],
        1e-6,
        "turning",
    );
    assert!(d
        .rotation
        .abs_diff_eq(Quat::from_rotation_y(core::f32::consts::FRAC_PI_2), 1e-6));
}

#[test]
fn holding_the_root_in_place_keeps_its_start_transform() {
    let asset = Asset::from_model(&model(
        chain_skeleton(),
        vec![],
        vec![root_motion_clip(true)],
    ))
    .unwrap();
    let mut ctx = SamplingContext::new();
    let mut local = LocalPose::default();
    sample_clip(&asset, 0, 0.6, Playback::Loop, &mut ctx, &mut local);
    hold_root_in_place(&asset.clips()[0], &mut local);
    let t = local.get(0).unwrap();
    assert_eq!(t.translation, Vec3::ZERO);
    assert_eq!(t.rotation, Quat::IDENTITY);
}

#[test]
fn bone_box_bound_contains_the_exact_skinned_bounds() {
    let n = 6;
    let skel = chain_of(n);
    let mut rng = Rng::new(5);
    let mut positions = Vec::new();
    let mut skin_w = Vec::new();
    for i in 0..300 {
        positions.push([
            rng.range(-0.3, 0.3),
            rng.range(0.0, 3.0),
            rng.range(-0.3, 0.3),
        ]);
        let b0 = (i % n) as u16;
        let b1 = ((i + 1) % n) as u16;
        let w = rng.range(0.5, 1.0);
        skin_w.push(weights([b0, b1, 0, 0], [w, 1.0 - w, 0.0, 0.0]));
    }
    let mesh = skinned_mesh(&skel, positions, skin_w);
    let asset =
        Asset::from_model(&model(skel, vec![mesh], vec![random_clip(n, 5, 1.0, 11)])).unwrap();
    let bones = BoneBounds::new(&asset.meshes()[0]);
    let (mut ctx, mut local, mut pal) =
        (SamplingContext::new(), LocalPose::default(), Palette::new());
    for k in 0..10 {
        sample_clip(
            &asset,
            0,
            k as f32 * 0.1,
            Playback::Loop,
            &mut ctx,
            &mut local,
        );
        let world = model_pose_of(&asset, &local);
        pal.compute(&asset.meshes()[0], &world).unwrap();
        let exact = skinned_bounds(&asset.meshes()[0], &pal).unwrap();
        let pts = skin_positions(&asset.meshes()[0], &pal);
        assert_eq!(exact, Aabb::from_points(&pts));
        let fast = bones.bound(&pal);
        for p in &pts {
            assert!(
                fast.contains(Vec3::from_array(*p), 1e-5),
                "{p:?} outside {fast:?}"
            );
        }
    }
}

#[test]
fn invalid_models_are_refused_with_an_error() {
    let mut skel = chain_skeleton();
    skel.bones[1].parent = 2;
    assert!(Asset::from_model(&model(skel, vec![], vec![])).is_err());
    let c = clip(
        "bad",
        1.0,
        vec![Track {
            bone: 9,
            keys: vec![key(0.0, [0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3])],
        }],
    );
    assert!(matches!(
        Asset::from_model(&model(chain_skeleton(), vec![], vec![c])),
        Err(Error::TrackBone { bone: 9, .. })
    ));
    let skel = chain_skeleton();
    let mesh = skinned_mesh(
        &skel,
        vec![[0.0; 3]],
        vec![weights([7, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])],
    );
    assert!(Asset::from_model(&model(skel, vec![mesh], vec![])).is_err());
}

#[test]
fn one_context_switches_between_clips_and_refuses_foreign_bones() {
    let n = 9;
    let m = model(
        chain_of(n),
        vec![],
        vec![random_clip(n, 7, 1.0, 1), random_clip(n, 12, 3.0, 2)],
    );
    let asset = Asset::from_model(&m).unwrap();
    let mut shared = SamplingContext::new();
    for (i, t) in [(0, 0.3), (1, 0.3), (0, 0.9), (1, 2.5), (0, 0.1)] {
        let mut a = LocalPose::default();
        let mut b = LocalPose::default();
        sample_clip(&asset, i, t, Playback::Once, &mut shared, &mut a);
        sample_clip(
            &asset,
            i,
            t,
            Playback::Once,
            &mut SamplingContext::new(),
            &mut b,
        );
        assert_eq!(a, b, "clip {i} at {t}");
    }
    // A clip of a nine-bone skeleton used with a three-bone skeleton.
    let small = Asset::from_model(&model(chain_skeleton(), vec![], vec![])).unwrap();
    let mut pose = LocalPose::default();
    let err = sample(
        &asset.clips()[0],
        small.skeleton(),
        0.0,
        Playback::Once,
        &mut shared,
        &mut pose,
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::TrackBone { bone_count: 3, .. }),
        "{err}"
    );
    // The failed rebinding leaves the context usable for the right skeleton.
    let mut a = LocalPose::default();
    let mut b = LocalPose::default();
    let fresh = &mut SamplingContext::new();
    sample_clip(&asset, 0, 0.4, Playback::Once, &mut shared, &mut a);
    sample_clip(&asset, 0, 0.4, Playback::Once, fresh, &mut b);
    assert_eq!(a, b);
}

#[test]
fn bind_pose_through_trs_matches_the_stored_bind_matrices() {
    // LocalPose::bind splits each bind matrix into TRS; local_to_model rebuilds the
    // matrices. The result must match gom::math::bind_world on the stored matrices.
    let skel = chain_skeleton();
    let expect = gom::math::bind_world(&skel.bones);
    let asset = Asset::from_model(&model(skel, vec![], vec![])).unwrap();
    let world = model_pose_of(&asset, &LocalPose::bind(asset.skeleton()));
    let one_call = asset.model_pose(None, 0.0, Playback::Once).unwrap();
    for (b, e) in expect.iter().enumerate() {
        let got = world.row_major(b).unwrap();
        let bind = one_call.row_major(b).unwrap();
        for k in 0..16 {
            assert!(close(got[k], e[k], 1e-6), "bone {b}: {got:?} != {e:?}");
            assert!(close(bind[k], e[k], 1e-6), "bone {b}: {bind:?} != {e:?}");
        }
    }
}

/// The frame of docs/runtime.md: output buffers sized once from
/// `Mesh::vertex_count`, then every mesh skinned each frame; an empty `Vec` (the
/// natural first try) is refused with an error naming the buffer and its length.
#[test]
fn the_frame_of_the_runtime_guide_sizes_its_buffers_from_the_vertex_count() {
    let bytes = gom::gomb::write(&gom_demo::build()).unwrap();
    let asset = Asset::parse(&bytes).unwrap();
    let (mut ctx, mut local, mut model, mut palette) = (
        SamplingContext::new(),
        LocalPose::default(),
        ModelPose::new(),
        Palette::new(),
    );
    let clip = asset.clip("swish").unwrap();
    // Per mesh: skinned positions and normals.
    type Attributes = (Vec<[f32; 3]>, Vec<[f32; 3]>);
    let mut out: Vec<Attributes> = asset
        .meshes()
        .iter()
        .map(|mesh| {
            let n = mesh.vertex_count();
            (vec![[0.0; 3]; n], vec![[0.0; 3]; n])
        })
        .collect();
    for time in [0.0, 0.4, 1.3] {
        sample(
            clip,
            asset.skeleton(),
            time,
            Playback::Loop,
            &mut ctx,
            &mut local,
        )
        .unwrap();
        local_to_model(asset.skeleton(), &local, &mut model).unwrap();
        for (mesh, (positions, normals)) in asset.meshes().iter().zip(&mut out) {
            palette.compute(mesh, &model).unwrap();
            skin(
                mesh,
                &palette,
                SkinTargets {
                    positions: Some(positions),
                    normals: Some(normals),
                    tangents: None,
                },
            )
            .unwrap();
        }
    }
    assert!(out.iter().all(|(p, _)| !p.is_empty()));
    let mesh = &asset.meshes()[0];
    palette.compute(mesh, &model).unwrap();
    let mut empty: Vec<[f32; 3]> = Vec::new();
    let refused = skin(
        mesh,
        &palette,
        SkinTargets {
            positions: Some(&mut empty),
            normals: None,
            tangents: None,
        },
    );
    match refused {
        Err(Error::BufferLength {
            expected, found, ..
        }) => assert_eq!((expected, found), (mesh.vertex_count(), 0)),
        other => panic!("{other:?}"),
    }
}

/// A clip keyed at every frame plays its keys bit for bit at the frame times (a time on
/// a key returns the key), in the order asked; a bone without a track holds its bind
/// transform.
#[test]
fn sample_at_frames_returns_each_frames_keys_in_the_order_asked() {
    let skeleton = chain_skeleton();
    let rate = 30.0;
    let frames = 7u32;
    let key_at = |f: u32| {
        let x = f as f32 * 0.25;
        key(
            (f64::from(f) / f64::from(rate)) as f32,
            [x, 1.0 - x, 2.0 * x],
            quat_from_axis_angle([0.0, 0.0, 1.0], 0.1 * f as f32),
            [1.0 + x; 3],
        )
    };
    let track = |bone: u32| Track {
        bone,
        keys: (0..frames).map(key_at).collect(),
    };
    let mut c = clip(
        "frames",
        (frames - 1) as f32 / rate,
        vec![track(0), track(2)],
    );
    c.sample_rate = rate;
    let bind1 = skeleton.bones[1].bind_local;
    let bytes = gom::gomb::write(&model(skeleton, vec![], vec![c])).unwrap();
    let asset = Asset::parse(&bytes).unwrap();
    let clip = asset.clip("frames").unwrap();
    let order = [3u32, 0, 6, 5];
    let got = sample_at_frames(clip, asset.skeleton(), order).unwrap();
    assert_eq!(got.len(), order.len() * 3);
    for (i, &f) in order.iter().enumerate() {
        let k = key_at(f);
        for bone in [0, 2] {
            let t = got[i * 3 + bone];
            assert_eq!((t.t, t.r, t.s), (k.translation, k.rotation, k.scale));
        }
        assert_close3(
            got[i * 3 + 1].t,
            [bind1[12], bind1[13], bind1[14]],
            0.0,
            "bind",
        );
    }
}
