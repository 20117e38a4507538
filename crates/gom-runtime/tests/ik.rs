//! Two-bone and aim IK against hand-computed geometry, and the subtree update.

mod common;

use common::*;
use glam::{Quat, Vec3};
use gom::math::from_trs;
use gom_runtime::{
    aim_ik, apply_aim_ik, apply_two_bone_ik, local_to_model, local_to_model_from, two_bone_ik,
    AimIk, Asset, LocalPose, ModelPose, TwoBoneIk,
};

const HIP: usize = 1;
const KNEE: usize = 2;
const ANKLE: usize = 3;

/// root → hip (at 0, 3, 0) → knee (1 below) → ankle (1 below) → toe (0.2 ahead);
/// "arm" is a second child of the root. The leg hangs straight down.
fn leg() -> Asset<'static> {
    let t = |x: f32, y: f32, z: f32| from_trs([x, y, z], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let skeleton = gom::Skeleton {
        bones: vec![
            bone("root", -1, t(0.0, 0.0, 0.0)),
            bone("hip", 0, t(0.0, 3.0, 0.0)),
            bone("knee", 1, t(0.0, -1.0, 0.0)),
            bone("ankle", 2, t(0.0, -1.0, 0.0)),
            bone("toe", 3, t(0.0, 0.0, 0.2)),
            bone("arm", 0, t(0.5, 4.0, 0.0)),
        ],
    };
    Asset::from_model(&model(skeleton, vec![], vec![])).unwrap()
}

fn pos(model: &ModelPose, b: usize) -> Vec3 {
    Vec3::from(model.matrices()[b].translation)
}

/// The leg's local and model poses, the knee bent `knee` radians about X first.
fn poses(asset: &Asset, knee: f32) -> (LocalPose, ModelPose) {
    let mut local = LocalPose::bind(asset.skeleton());
    let mut t = local.get(KNEE).unwrap();
    t.rotation = Quat::from_rotation_x(knee);
    local.set(KNEE, &t);
    let mut model = ModelPose::new();
    local_to_model(asset.skeleton(), &local, &mut model).unwrap();
    (local, model)
}

fn near(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).length() <= tol
}

/// Where the knee must be for a chain of two unit bones from `hip` to `target`
/// bending towards `pole`, turned `twist` about the hip→target line: the middle of
/// hip–target plus the height of the isosceles triangle, perpendicular to the line.
fn expected_knee(hip: Vec3, target: Vec3, pole: Vec3, twist: f32) -> Vec3 {
    let axis = (target - hip).normalize();
    let d = (target - hip).length();
    let h = (1.0 - d * d / 4.0).sqrt();
    let perp = (pole - axis * pole.dot(axis)).normalize();
    hip + (target - hip) / 2.0 + Quat::from_axis_angle(axis, twist) * perp * h
}

/// `p` on the leg's hip, knee and ankle; whether the target was reached.
fn solve(asset: &Asset, p: &TwoBoneIk, local: &mut LocalPose, model: &mut ModelPose) -> bool {
    apply_two_bone_ik(asset.skeleton(), [HIP, KNEE, ANKLE], p, local, model).unwrap()
}

fn leg_ik(target: Vec3, pole: Vec3) -> TwoBoneIk {
    TwoBoneIk {
        target,
        pole,
        mid_axis: Vec3::X,
        ..Default::default()
    }
}

#[test]
fn two_bone_ik_reaches_a_target_with_the_knee_towards_the_pole() {
    let asset = leg();
    let hip = Vec3::new(0.0, 3.0, 0.0);
    let cases = [
        (Vec3::new(0.0, 1.8, 0.5), Vec3::Z, 0.0),
        (Vec3::new(0.3, 1.6, 0.2), Vec3::X, 0.0),
        (Vec3::new(0.3, 1.6, 0.2), Vec3::Z, 0.0),
        (Vec3::new(-0.4, 2.0, 0.9), Vec3::NEG_Z, 0.0),
        (Vec3::new(0.0, 1.8, 0.5), Vec3::Z, 1.0),
    ];
    for bent in [0.0, 0.6, -1.2] {
        for (target, pole, twist) in cases {
            let (mut local, mut model) = poses(&asset, bent);
            let p = TwoBoneIk {
                twist,
                ..leg_ik(target, pole)
            };
            let toe_offset = model.matrices()[ANKLE].inverse() * model.matrices()[4];
            let reached = solve(&asset, &p, &mut local, &mut model);
            assert!(reached, "{target} {pole} bent {bent}");
            let what = format!("target {target} pole {pole} twist {twist} bent {bent}");
            assert!(
                near(pos(&model, ANKLE), target, 1e-5),
                "{what}: {}",
                pos(&model, ANKLE)
            );
            let knee = expected_knee(hip, target, pole, twist);
            assert!(
                near(pos(&model, KNEE), knee, 1e-5),
                "{what}: {} {knee}",
                pos(&model, KNEE)
            );
            // The hip did not move, and the toe kept its place on the ankle.
            assert!(near(pos(&model, HIP), hip, 1e-6));
            let toe = model.matrices()[ANKLE].inverse() * model.matrices()[4];
            assert!(toe.abs_diff_eq(toe_offset, 1e-5), "{what}");
        }
    }
}

#[test]
fn an_unreachable_target_leaves_the_leg_straight_and_pointing_at_it() {
    let asset = leg();
    let hip = Vec3::new(0.0, 3.0, 0.0);
    for bent in [0.0, 0.8] {
        let (mut local, mut model) = poses(&asset, bent);
        let target = Vec3::new(2.0, 0.0, 1.0);
        let p = leg_ik(target, Vec3::Z);
        let reached = solve(&asset, &p, &mut local, &mut model);
        assert!(!reached);
        let dir = (target - hip).normalize();
        assert!(
            near(pos(&model, KNEE), hip + dir, 1e-5),
            "{}",
            pos(&model, KNEE)
        );
        assert!(
            near(pos(&model, ANKLE), hip + 2.0 * dir, 1e-5),
            "{}",
            pos(&model, ANKLE)
        );
    }
}

#[test]
fn softening_holds_the_end_back_as_the_formula_says() {
    let asset = leg();
    let hip = Vec3::new(0.0, 3.0, 0.0);
    let (mut local, mut model) = poses(&asset, 0.3);
    // 1.9 from the hip, softened from half the chain's length (1.0):
    // 1 + 1·(1 − e^−0.9).
    let target = hip + Vec3::new(0.0, -1.9, 0.0);
    let p = TwoBoneIk {
        soften: 0.5,
        ..leg_ik(target, Vec3::Z)
    };
    let reached = solve(&asset, &p, &mut local, &mut model);
    assert!(!reached);
    let expected = 1.0 + (1.0 - (-0.9f32).exp());
    let ankle = pos(&model, ANKLE);
    assert!(((ankle - hip).length() - expected).abs() < 1e-5, "{ankle}");
    assert!(near((ankle - hip).normalize(), Vec3::NEG_Y, 1e-5));
}

#[test]
fn the_weight_scales_the_corrections() {
    let asset = leg();
    let (_, model) = poses(&asset, 0.4);
    let w = model.matrices();
    let p = leg_ik(Vec3::new(0.5, 1.7, 0.4), Vec3::Z);
    let full = two_bone_ik(&w[HIP], &w[KNEE], &w[ANKLE], &p);
    let half = two_bone_ik(
        &w[HIP],
        &w[KNEE],
        &w[ANKLE],
        &TwoBoneIk { weight: 0.5, ..p },
    );
    for (f, h) in [(full.start, half.start), (full.mid, half.mid)] {
        let (fa, fangle) = f.to_axis_angle();
        let (ha, hangle) = h.to_axis_angle();
        assert!((hangle - fangle / 2.0).abs() < 1e-5, "{fangle} {hangle}");
        assert!(fangle < 1e-4 || near(fa, ha, 1e-4));
    }
    assert!(!half.reached);
    // Weight 0 leaves the pose exactly as it was.
    let (mut local, mut model) = poses(&asset, 0.4);
    let before = (local.clone(), model.clone());
    let p0 = TwoBoneIk { weight: 0.0, ..p };
    solve(&asset, &p0, &mut local, &mut model);
    assert_eq!((local, model), before);
}

#[test]
fn degenerate_chains_and_targets_give_no_nan() {
    let asset = leg();
    let (_, model) = poses(&asset, 0.5);
    let w = model.matrices();
    let hip = w[HIP];
    let finite = |q: Quat| q.is_finite() && (q.length() - 1.0).abs() < 1e-5;
    let targets = [
        Vec3::new(0.0, 3.0, 0.0), // on the start joint
        Vec3::new(0.0, 2.0, 0.0),
        Vec3::splat(f32::NAN),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    for target in targets {
        for pole in [Vec3::ZERO, Vec3::Y, Vec3::Z] {
            for axis in [Vec3::ZERO, Vec3::X, Vec3::Y] {
                let p = TwoBoneIk {
                    target,
                    pole,
                    mid_axis: axis,
                    soften: 0.0,
                    ..Default::default()
                };
                // A real chain, then zero-length bones (mid on start, end on mid).
                for (s, m, e) in [
                    (hip, w[KNEE], w[ANKLE]),
                    (hip, hip, w[ANKLE]),
                    (hip, w[KNEE], w[KNEE]),
                    (hip, hip, hip),
                ] {
                    let c = two_bone_ik(&s, &m, &e, &p);
                    assert!(
                        finite(c.start) && finite(c.mid),
                        "{target} {pole} {axis}: {c:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn aim_ik_points_the_forward_axis_at_the_target_with_up_towards_the_pole() {
    let asset = leg();
    let (mut local, mut model) = poses(&asset, 0.0);
    let arm = 5;
    let at = pos(&model, arm);
    let target = at + Vec3::new(0.0, 0.0, 7.0);
    let p = AimIk {
        target,
        forward: Vec3::X,
        up: Vec3::Y,
        pole: Vec3::Y,
        ..Default::default()
    };
    assert!(apply_aim_ik(asset.skeleton(), arm, &p, &mut local, &mut model).unwrap());
    let m = model.matrices()[arm];
    assert!(near(m.transform_vector3(Vec3::X), Vec3::Z, 1e-5));
    assert!(near(m.transform_vector3(Vec3::Y), Vec3::Y, 1e-5));
    // The pole turns the up axis about the aiming line.
    let (mut local, mut model) = poses(&asset, 0.0);
    let p = AimIk {
        target: at + Vec3::new(3.0, 0.0, 0.0),
        pole: Vec3::new(0.0, 0.0, -1.0),
        ..p
    };
    apply_aim_ik(asset.skeleton(), arm, &p, &mut local, &mut model).unwrap();
    let m = model.matrices()[arm];
    assert!(near(m.transform_vector3(Vec3::X), Vec3::X, 1e-5));
    assert!(near(m.transform_vector3(Vec3::Y), Vec3::NEG_Z, 1e-5));
}

#[test]
fn aim_ik_with_an_offset_passes_the_ray_through_the_target() {
    let asset = leg();
    let (_, model) = poses(&asset, 0.7);
    let joint = model.matrices()[ANKLE];
    let target = Vec3::new(2.0, 1.5, -1.0);
    let p = AimIk {
        target,
        forward: Vec3::new(0.0, 0.0, 1.0),
        up: Vec3::Y,
        offset: Vec3::new(0.0, 0.3, 0.1),
        pole: Vec3::Y,
        ..Default::default()
    };
    let (c, reached) = aim_ik(&joint, &p);
    assert!(reached);
    let (_, q, t) = joint.to_scale_rotation_translation();
    let q = q * c;
    let origin = t + q * p.offset;
    let dir = q * p.forward;
    let to = target - origin;
    // The target is on the ray: no perpendicular distance, ahead of the origin.
    assert!((to - dir * to.dot(dir)).length() < 1e-5);
    assert!(to.dot(dir) > 0.0);
    // A target inside the offset's reach cannot be hit; nothing is NaN.
    let close = AimIk {
        target: t + Vec3::new(0.0, 0.01, 0.0),
        offset: Vec3::new(0.0, 0.5, 0.0),
        ..p
    };
    let (c, reached) = aim_ik(&joint, &close);
    assert!(!reached && c.is_finite());
    for bad in [Vec3::ZERO, Vec3::splat(f32::NAN)] {
        let (c, reached) = aim_ik(&joint, &AimIk { forward: bad, ..p });
        assert!(!reached && c == Quat::IDENTITY);
        let (c, _) = aim_ik(
            &joint,
            &AimIk {
                target: t,
                pole: bad,
                ..p
            },
        );
        assert!(c.is_finite());
    }
    let (c, _) = aim_ik(&joint, &AimIk { weight: 0.0, ..p });
    assert_eq!(c, Quat::IDENTITY);
}

#[test]
fn aim_ik_with_any_non_finite_parameter_turns_nothing() {
    let asset = leg();
    let (_, model) = poses(&asset, 0.7);
    let joint = model.matrices()[ANKLE];
    let p = AimIk {
        target: Vec3::new(2.0, 1.5, -1.0),
        forward: Vec3::Z,
        offset: Vec3::new(0.0, 0.3, 0.1),
        ..Default::default()
    };
    // The parameters as given turn the joint.
    assert_ne!(aim_ik(&joint, &p).0, Quat::IDENTITY);
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        // One component of one parameter at a time.
        for (field, i) in (0..5).flat_map(|f| (0..3).map(move |i| (f, i))) {
            let mut q = p;
            let slot = match field {
                0 => &mut q.target,
                1 => &mut q.forward,
                2 => &mut q.up,
                3 => &mut q.offset,
                _ => &mut q.pole,
            };
            slot[i] = bad;
            assert_eq!(aim_ik(&joint, &q), (Quat::IDENTITY, false), "{q:?}");
        }
        let twisted = AimIk { twist: bad, ..p };
        assert_eq!(aim_ik(&joint, &twisted), (Quat::IDENTITY, false));
    }
}

#[test]
fn local_to_model_from_updates_only_the_subtree_and_matches_the_full_pass() {
    let clip = random_clip(9, 3, 1.0, 4);
    let mut skeleton = chain_of(9);
    // Two branches: bones 5.. hang from bone 1.
    skeleton.bones[5].parent = 1;
    let asset = Asset::from_model(&model(skeleton, vec![], vec![clip])).unwrap();
    let mut ctx = gom_runtime::SamplingContext::new();
    let mut local = LocalPose::default();
    sample_clip(
        &asset,
        0,
        0.3,
        gom_runtime::Playback::Once,
        &mut ctx,
        &mut local,
    );
    let mut partial = ModelPose::new();
    local_to_model(asset.skeleton(), &local, &mut partial).unwrap();
    let before = partial.clone();
    let mut t = local.get(2).unwrap();
    t.rotation = Quat::from_rotation_y(1.0) * t.rotation;
    local.set(2, &t);
    local_to_model_from(asset.skeleton(), 2, &local, &mut partial).unwrap();
    let mut full = ModelPose::new();
    local_to_model(asset.skeleton(), &local, &mut full).unwrap();
    assert_eq!(partial.matrices(), full.matrices(), "bit for bit");
    // Bones 0, 1 and the branch 5.. are not below bone 2: untouched.
    for b in [0, 1, 5, 6, 7, 8] {
        assert_eq!(partial.matrices()[b], before.matrices()[b], "bone {b}");
    }
    for b in [2, 3, 4] {
        assert_ne!(partial.matrices()[b], before.matrices()[b], "bone {b}");
    }
    assert!(local_to_model_from(asset.skeleton(), 9, &local, &mut partial).is_err());
    let short = LocalPose::new(3);
    assert!(local_to_model_from(asset.skeleton(), 0, &short, &mut partial).is_err());
}

#[test]
fn bones_past_the_skeleton_and_poses_of_other_skeletons_are_refused() {
    let asset = leg();
    let (mut local, mut model) = poses(&asset, 0.0);
    let p = leg_ik(Vec3::new(0.0, 1.5, 0.5), Vec3::Z);
    let sk = asset.skeleton();
    assert!(apply_two_bone_ik(sk, [HIP, KNEE, 6], &p, &mut local, &mut model).is_err());
    assert!(apply_aim_ik(sk, 6, &AimIk::default(), &mut local, &mut model).is_err());
    let mut other = ModelPose::new();
    assert!(apply_aim_ik(sk, 1, &AimIk::default(), &mut local, &mut other).is_err());
    assert_eq!((local, model), poses(&asset, 0.0), "nothing changed");
}
