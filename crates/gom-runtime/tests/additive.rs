//! Additive clips at run time: a clip's additive version added to its reference
//! gives the clip back, weight 0 gives the base exactly, and the four-lane
//! `blend_additive` agrees with a scalar reference written here from the definition.

mod common;

use common::*;
use glam::{Quat, Vec3};
use gom::additive::{make_additive, reference_pose, Reference};
use gom_runtime::{blend_additive, sample, Asset, LocalPose, Playback, SamplingContext, Transform};

/// Six bones; "walk" moves every bone but 3, "idle" every bone.
fn model_with(reference: &Reference) -> gom::Model {
    let mut walk = random_clip(6, 7, 1.0, 11);
    walk.name = "walk".into();
    walk.tracks.remove(3);
    let mut idle = random_clip(6, 4, 2.0, 12);
    idle.name = "idle".into();
    let mut m = model(chain_of(6), vec![], vec![walk, idle]);
    let pose = reference_pose(&m, reference).unwrap();
    let mut add = make_additive(&m, &m.clips[0], reference.clone(), &pose).unwrap();
    add.name = "walk+".into();
    m.clips.push(add);
    m
}

/// The pose `reference` stands for, sampled by the runtime.
fn reference_local(asset: &Asset, reference: &Reference) -> LocalPose {
    match reference {
        Reference::BindPose => LocalPose::bind(asset.skeleton()),
        Reference::ClipFrame { clip, time } => {
            let mut out = LocalPose::default();
            let c = asset.clip(clip).unwrap();
            let mut ctx = SamplingContext::new();
            sample(
                c,
                asset.skeleton(),
                *time,
                Playback::Once,
                &mut ctx,
                &mut out,
            )
            .unwrap();
            out
        }
    }
}

fn close(a: &Transform, b: &Transform, tol: f32) -> bool {
    a.translation.abs_diff_eq(b.translation, tol)
        && a.scale.abs_diff_eq(b.scale, tol)
        && (a.rotation.dot(b.rotation).abs() - 1.0).abs() < tol
}

#[test]
fn a_clips_additive_version_added_to_its_reference_gives_the_clip_back() {
    let references = [
        Reference::BindPose,
        Reference::ClipFrame {
            clip: "walk".into(),
            time: 0.0,
        },
        Reference::ClipFrame {
            clip: "idle".into(),
            time: 0.7,
        },
    ];
    for reference in &references {
        let m = model_with(reference);
        // Through the file, as a game reads it.
        let bytes = gom::gomb::write(&m).unwrap();
        let asset = Asset::parse(&bytes).unwrap();
        let add = asset.clip("walk+").unwrap();
        assert!(add.is_additive());
        assert!(!asset.clip("walk").unwrap().is_additive());
        let base = reference_local(&asset, reference);
        let (mut ctx, mut ctx2) = (SamplingContext::new(), SamplingContext::new());
        let (mut expected, mut delta, mut out) = (
            LocalPose::default(),
            LocalPose::default(),
            LocalPose::default(),
        );
        for i in 0..=40 {
            let t = i as f32 / 40.0;
            sample_clip(&asset, 0, t, Playback::Once, &mut ctx, &mut expected);
            sample(
                add,
                asset.skeleton(),
                t,
                Playback::Once,
                &mut ctx2,
                &mut delta,
            )
            .unwrap();
            blend_additive(&base, &delta, 1.0, None, &mut out).unwrap();
            for b in 0..6 {
                let (o, e) = (out.get(b).unwrap(), expected.get(b).unwrap());
                assert!(
                    close(&o, &e, 1e-5),
                    "{reference:?} t {t} bone {b}: {o:?} {e:?}"
                );
            }
        }
    }
}

/// Random local poses of `n` bones: rotations of either sign, scales in [0.5, 2).
fn random_pose(n: usize, rng: &mut Rng) -> LocalPose {
    let mut p = LocalPose::new(n);
    for i in 0..n {
        let q = unit_quat(rng);
        let sign = if rng.unit() < 0.5 { -1.0 } else { 1.0 };
        p.set(
            i,
            &Transform {
                translation: Vec3::new(rng.signed(), rng.signed(), rng.signed()),
                rotation: Quat::from_array(q.map(|v| v * sign)),
                scale: Vec3::new(
                    rng.range(0.5, 2.0),
                    rng.range(0.5, 2.0),
                    rng.range(0.5, 2.0),
                ),
            },
        );
    }
    p
}

/// The definition, one bone at a time with glam's scalar quaternions.
fn scalar_add(b: &Transform, d: &Transform, w: f32) -> Transform {
    if w == 0.0 {
        return *b;
    }
    let d_r = if d.rotation.w < 0.0 {
        -d.rotation
    } else {
        d.rotation
    };
    let q = Quat::from_xyzw(d_r.x * w, d_r.y * w, d_r.z * w, 1.0 + (d_r.w - 1.0) * w);
    Transform {
        translation: b.translation + d.translation * w,
        rotation: b.rotation * q.normalize(),
        scale: b.scale * (Vec3::ONE + (d.scale - Vec3::ONE) * w),
    }
}

#[test]
fn the_four_lane_blend_agrees_with_the_scalar_definition_under_weights_and_masks() {
    let mut rng = Rng::new(5);
    for n in [1, 4, 11] {
        let base = random_pose(n, &mut rng);
        let delta = random_pose(n, &mut rng);
        // A short mask with a NaN: missing entries and NaN count as 0.
        let mask: Vec<f32> = (0..n.saturating_sub(1))
            .map(|i| if i == 2 { f32::NAN } else { rng.unit() })
            .collect();
        for weight in [0.0, 0.3, 1.0, 1.5] {
            for m in [None, Some(mask.as_slice())] {
                let mut out = LocalPose::default();
                blend_additive(&base, &delta, weight, m, &mut out).unwrap();
                for i in 0..n {
                    let w = match m {
                        None => weight,
                        Some(m) => {
                            m.get(i).copied().filter(|v| !v.is_nan()).unwrap_or(0.0) * weight
                        }
                    };
                    let e = scalar_add(&base.get(i).unwrap(), &delta.get(i).unwrap(), w);
                    let o = out.get(i).unwrap();
                    assert!(
                        close(&o, &e, 2e-6),
                        "n {n} w {weight} bone {i}: {o:?} {e:?}"
                    );
                    assert!(
                        o.rotation.dot(e.rotation) > 0.0,
                        "the same sign as the definition"
                    );
                }
            }
        }
    }
}

#[test]
fn weight_zero_gives_the_base_exactly() {
    let mut rng = Rng::new(9);
    let base = random_pose(7, &mut rng);
    let delta = random_pose(7, &mut rng);
    let mut out = LocalPose::default();
    blend_additive(&base, &delta, 0.0, None, &mut out).unwrap();
    let mask = [0.0f32; 7];
    let mut masked = LocalPose::default();
    blend_additive(&base, &delta, 1.0, Some(&mask), &mut masked).unwrap();
    for i in 0..7 {
        assert_eq!(out.get(i), base.get(i));
        assert_eq!(masked.get(i), base.get(i));
    }
    // NaN weight counts as 0 too.
    blend_additive(&base, &delta, f32::NAN, None, &mut out).unwrap();
    assert_eq!(out.get(6), base.get(6));
}

#[test]
fn poses_of_different_bone_counts_are_refused() {
    let mut rng = Rng::new(1);
    let (a, b) = (random_pose(3, &mut rng), random_pose(4, &mut rng));
    let mut out = LocalPose::default();
    assert!(blend_additive(&a, &b, 1.0, None, &mut out).is_err());
}
