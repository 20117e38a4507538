//! Animation key reduction under a hierarchical error tolerance, in the manner of
//! ozz-animation's optimizer: a joint's error is measured as the displacement it causes
//! at a distance from the joint equal to the extent of what it moves (its descendant
//! joints and the skinned vertices they carry) plus a fixed distance (10 cm by
//! default), so joints that carry long chains or large meshes are kept more precise
//! than leaves. Along a chain the errors add up: a vertex stays within
//! `tolerance × chain depth` of the unreduced animation at the sampled times.
//!
//! GOM keys carry translation, rotation and scale together (D9), so a key time is kept
//! whenever any of the three needs it. The decimation is Ramer–Douglas–Peucker over the
//! sampled keys, interpolated exactly as a GOM reader does (linear translation and
//! scale, slerp along the shorter arc). The first and last keys are always kept.
//!
//! The slerp used to measure errors needs `sin` and `atan`; they are evaluated here with
//! plain IEEE arithmetic (range-limited series) so that which keys survive is the same
//! on every platform (D11).

mod segment;
mod trig;

use gom::math;
use gom::{Bone, Key, SkinWeights};

use segment::{Sample, Samples, Segment};
use trig::{atan2_first_quadrant, sin_small};

/// Reduction tolerance (a distance error measured beyond each joint, as ozz's optimiser measures it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyTolerance {
    /// Largest displacement allowed, in metres (default 1 mm).
    pub tolerance: f32,
    /// Distance from each joint at which the displacement is measured, added to the
    /// extent of the joint's sub-hierarchy, in metres (default 10 cm).
    pub distance: f32,
}

impl Default for KeyTolerance {
    fn default() -> Self {
        KeyTolerance {
            tolerance: 0.001,
            distance: 0.1,
        }
    }
}

/// How errors of one joint's local transform turn into displacements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointMetric {
    /// Distance at which rotation and scale errors are measured (model units).
    pub distance: f64,
    /// Scale of the parent's model-space bind matrix (translation errors are multiplied by it).
    pub parent_scale: f64,
}

/// Skinned vertices for [`joint_metrics`]: model-space bind positions and their weights.
pub type SkinnedVertices<'a> = (&'a [[f32; 3]], &'a [SkinWeights]);

/// Per-bone metrics from the skeleton's bind pose: a bone's measuring distance is the
/// farthest model-space distance from it to any descendant bone or to any skinned vertex
/// it or a descendant moves (from `skinned`: bind-pose positions with their weights),
/// plus `extra`.
pub fn joint_metrics(
    bones: &[Bone],
    skinned: &[SkinnedVertices<'_>],
    extra: f32,
) -> Vec<JointMetric> {
    let world = math::bind_world(bones);
    let pos = |m: &gom::Mat4| [f64::from(m[12]), f64::from(m[13]), f64::from(m[14])];
    let dist2 = |p: [f64; 3], q: [f64; 3]| {
        (p[0] - q[0]) * (p[0] - q[0])
            + (p[1] - q[1]) * (p[1] - q[1])
            + (p[2] - q[2]) * (p[2] - q[2])
    };
    let bone_pos: Vec<[f64; 3]> = world.iter().map(pos).collect();
    // Squared extents; the square root is taken once per bone at the end (the same
    // maximum, as the square root is monotonic).
    let mut extent2 = vec![0.0f64; bones.len()];
    for (i, bone) in bones.iter().enumerate() {
        let p = bone_pos[i];
        let mut parent = bone.parent_index();
        while let Some(a) = parent {
            if a >= i {
                break;
            }
            extent2[a] = extent2[a].max(dist2(p, bone_pos[a]));
            parent = bones[a].parent_index();
        }
    }
    // Skinned vertices: their bind positions are in model space.
    for &(positions, skin) in skinned {
        for (p, sw) in positions.iter().zip(skin) {
            let p = [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])];
            for k in 0..4 {
                if sw.weights[k] <= 0.0 {
                    continue;
                }
                let mut b = Some(sw.bones[k] as usize);
                while let Some(a) = b {
                    if a >= bones.len() {
                        break;
                    }
                    extent2[a] = extent2[a].max(dist2(p, bone_pos[a]));
                    b = bones[a].parent_index().filter(|&x| x < a);
                }
            }
        }
    }
    bones
        .iter()
        .enumerate()
        .map(|(i, bone)| {
            let parent_scale = match bone.parent_index() {
                Some(p) if p < i => matrix_scale(&world[p]),
                _ => 1.0,
            };
            JointMetric {
                distance: extent2[i].sqrt() + f64::from(extra),
                parent_scale,
            }
        })
        .collect()
}

/// The largest row length of the 3x3 part (an upper bound of how much it scales).
fn matrix_scale(m: &gom::Mat4) -> f64 {
    (0..3)
        .map(|r| {
            let v = [m[r * 4], m[r * 4 + 1], m[r * 4 + 2]].map(f64::from);
            (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
        })
        .fold(0.0, f64::max)
}

/// Spherical interpolation from `a` to `b` along the shorter arc, as a GOM reader
/// samples rotations (D9), computed in `f64` without a platform math library.
pub fn slerp(a: [f32; 4], b: [f32; 4], t: f64) -> [f64; 4] {
    let a = a.map(f64::from);
    let mut b = b.map(f64::from);
    let mut dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if dot < 0.0 {
        b = b.map(|v| -v);
        dot = -dot;
    }
    let dot = dot.min(1.0);
    let sin_omega = (1.0 - dot * dot).max(0.0).sqrt();
    let (wa, wb) = if sin_omega < 1e-9 {
        (1.0 - t, t)
    } else {
        let omega = atan2_first_quadrant(sin_omega, dot);
        (
            sin_small((1.0 - t) * omega) / sin_omega,
            sin_small(t * omega) / sin_omega,
        )
    };
    let mut q = [0.0; 4];
    for k in 0..4 {
        q[k] = wa * a[k] + wb * b[k];
    }
    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if len > 0.0 {
        q = q.map(|v| v / len);
    }
    q
}

/// Flips the sign of quaternions where needed so that each is in the hemisphere of
/// the previous one (`dot >= 0`): the same rotations, continuous for interpolation.
pub fn make_hemisphere_continuous(keys: &mut [Key]) {
    for i in 1..keys.len() {
        let p = keys[i - 1].rotation;
        let q = &mut keys[i].rotation;
        let dot = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
        if dot < 0.0 {
            *q = q.map(|v| -v);
        }
    }
}

/// The displacement error of `key` against the interpolation between `a` and `b` at
/// `key.time`.
#[cfg(test)]
fn key_error(a: &Key, b: &Key, key: &Key, metric: &JointMetric) -> f64 {
    Segment::new(&Sample::new(a), &Sample::new(b)).error(&Sample::new(key), metric)
}

/// The displacement error between two keys at the same time (used to compare a
/// sampled track with a constant pose).
pub fn pose_error(a: &Key, b: &Key, metric: &JointMetric) -> f64 {
    Segment::constant(&Sample::new(a)).error(&Sample::new(b), metric)
}

/// Reduces `keys` (sampled, strictly ascending in time) so that every dropped key is
/// reproduced within `tolerance` by interpolating the kept ones. The first and last
/// keys are always kept.
pub fn reduce(keys: &[Key], metric: &JointMetric, tolerance: f64) -> Vec<Key> {
    Measured::new(keys).reduce(metric, tolerance)
}

/// A sampled track made ready for a clip: hemisphere-continuous, dropped (`None`)
/// when every key stays within `tolerance` (at least 1e-7) of the bone's `rest` pose,
/// else reduced under `tolerance` when `reduce`; with the key count before reduction.
pub fn finish_track(
    mut keys: Vec<Key>,
    rest: Option<&Key>,
    metric: &JointMetric,
    tolerance: f64,
    reduce: bool,
) -> Option<(Vec<Key>, u64)> {
    if keys.is_empty() {
        return None;
    }
    make_hemisphere_continuous(&mut keys);
    let measured = Measured::new(&keys);
    if rest.is_some_and(|r| measured.stays_at(r, metric, tolerance.max(1e-7))) {
        return None;
    }
    let before = keys.len() as u64;
    if !reduce {
        drop(measured);
        return Some((keys, before));
    }
    Some((measured.reduce(metric, tolerance), before))
}

/// A sampled track (keys strictly ascending in time) prepared once for several error
/// measurements: [`Measured::stays_at`] and [`Measured::reduce`].
pub struct Measured<'a> {
    keys: &'a [Key],
    samples: Samples,
}

impl<'a> Measured<'a> {
    /// Prepares `keys`.
    pub fn new(keys: &'a [Key]) -> Measured<'a> {
        Measured {
            keys,
            samples: Samples::new(keys),
        }
    }

    /// Whether every key is within `tolerance` of `pose` ([`pose_error`] of each).
    pub fn stays_at(&self, pose: &Key, metric: &JointMetric, tolerance: f64) -> bool {
        let mut errors = Vec::with_capacity(self.keys.len());
        Segment::constant(&Sample::new(pose)).errors(
            &self.samples,
            0,
            self.keys.len(),
            metric,
            &mut errors,
        );
        errors.iter().all(|&e| e <= tolerance)
    }

    /// [`reduce`] of the keys.
    pub fn reduce(&self, metric: &JointMetric, tolerance: f64) -> Vec<Key> {
        let (keys, samples) = (self.keys, &self.samples);
        if keys.len() <= 2 {
            return keys.to_vec();
        }
        let n = samples.len();
        let mut keep = vec![false; n];
        keep[0] = true;
        keep[n - 1] = true;
        let mut errors = Vec::with_capacity(n);
        let mut stack = vec![(0usize, n - 1)];
        while let Some((i, j)) = stack.pop() {
            if j <= i + 1 {
                continue;
            }
            let segment = Segment::new(samples.sample(i), samples.sample(j));
            segment.errors(samples, i + 1, j, metric, &mut errors);
            // The first key of largest error.
            let mut worst = (0.0f64, i);
            for (k, &e) in errors.iter().enumerate() {
                if e > worst.0 {
                    worst = (e, i + 1 + k);
                }
            }
            if worst.0 > tolerance {
                keep[worst.1] = true;
                stack.push((worst.1, j));
                stack.push((i, worst.1));
            }
        }
        keys.iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(key, _)| *key)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: f32, tx: f32, angle: f32) -> Key {
        Key {
            time,
            translation: [tx, 0.0, 0.0],
            rotation: gom_demo::quat_from_axis_angle([0.0, 0.0, 1.0], angle),
            scale: [1.0; 3],
        }
    }

    #[test]
    fn slerp_matches_axis_angle_interpolation() {
        let a = gom_demo::quat_from_axis_angle([0.0, 1.0, 0.0], 0.2);
        let b = gom_demo::quat_from_axis_angle([0.0, 1.0, 0.0], 1.4);
        let q = slerp(a, b, 0.25);
        let e = gom_demo::quat_from_axis_angle([0.0, 1.0, 0.0], 0.5);
        for k in 0..4 {
            assert!((q[k] - f64::from(e[k])).abs() < 1e-6, "{q:?} {e:?}");
        }
        // The shorter arc: -b is the same rotation.
        let q2 = slerp(a, b.map(|v| -v), 0.25);
        for k in 0..4 {
            assert!((q2[k] - q[k]).abs() < 1e-12);
        }
        assert!((atan2_first_quadrant(1.0, 1.0) - core::f64::consts::FRAC_PI_4).abs() < 1e-15);
        assert!((sin_small(1.0) - 0.841_470_984_807_896_5).abs() < 1e-15);
    }

    #[test]
    fn segment_error_agrees_with_slerp() {
        let metric = JointMetric {
            distance: 1.0,
            parent_scale: 1.0,
        };
        let a = key(0.0, 0.0, 0.3);
        let b = key(1.0, 0.0, 1.9);
        for i in 1..10 {
            let t = f64::from(i) / 10.0;
            // A key exactly on the slerp measures (close to) zero ...
            let q = slerp(a.rotation, b.rotation, t).map(|v| v as f32);
            let on = Key {
                time: t as f32,
                rotation: q,
                ..a
            };
            assert!(key_error(&a, &b, &on, &metric) < 1e-6);
            // ... and one rotated 0.01 rad further measures 2 sin(0.005) at distance 1.
            let angle = 0.3 + 1.6 * f64::from(on.time) + 0.01;
            let off = Key {
                rotation: gom_demo::quat_from_axis_angle([0.0, 0.0, 1.0], angle as f32),
                ..on
            };
            let e = key_error(&a, &b, &off, &metric);
            assert!((e - 2.0 * 0.005f64.sin()).abs() < 1e-5, "{e}");
        }
    }

    #[test]
    fn a_track_stays_at_a_pose_exactly_when_every_key_is_within_tolerance() {
        let metric = JointMetric {
            distance: 0.1,
            parent_scale: 1.0,
        };
        let rest = key(0.0, 0.0, 0.0);
        // 40 keys (the column loop) and 4 (key by key), each with one key 2 mm off.
        for n in [40usize, 4] {
            let mut keys: Vec<Key> = (0..n).map(|i| key(i as f32 / 30.0, 0.0, 0.0)).collect();
            let all_within =
                |keys: &[Key], tol: f64| keys.iter().all(|k| pose_error(&rest, k, &metric) <= tol);
            assert!(Measured::new(&keys).stays_at(&rest, &metric, 0.001));
            keys[n / 2].translation[0] = 0.002;
            for tol in [0.001, 0.0025] {
                assert_eq!(
                    Measured::new(&keys).stays_at(&rest, &metric, tol),
                    all_within(&keys, tol),
                    "{n} keys, tolerance {tol}"
                );
            }
            assert!(!Measured::new(&keys).stays_at(&rest, &metric, 0.001));
        }
    }

    #[test]
    fn pose_error_measures_the_difference_of_two_poses() {
        let metric = JointMetric {
            distance: 0.5,
            parent_scale: 2.0,
        };
        let a = key(0.0, 0.1, 0.2);
        assert!(pose_error(&a, &a, &metric) < 1e-12);
        // 1 cm of translation (parent scale 2) and 0.1 rad of rotation at 0.5 m.
        let b = key(0.0, 0.11, 0.3);
        let want = 0.01 * 2.0 + 2.0 * 0.05f64.sin() * 0.5;
        assert!((pose_error(&a, &b, &metric) - want).abs() < 1e-6);
    }

    #[test]
    fn linear_motion_reduces_to_end_keys() {
        let keys: Vec<Key> = (0..31)
            .map(|i| key(i as f32 / 30.0, i as f32 * 0.01, i as f32 * 0.02))
            .collect();
        let metric = JointMetric {
            distance: 0.1,
            parent_scale: 1.0,
        };
        let out = reduce(&keys, &metric, 0.001);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0], keys[0]);
        assert_eq!(out[1], keys[30]);
    }

    #[test]
    fn a_bump_is_kept_and_errors_stay_within_tolerance() {
        let mut keys: Vec<Key> = (0..31).map(|i| key(i as f32 / 30.0, 0.0, 0.0)).collect();
        keys[12].translation[0] = 0.005; // 5 mm bump
        let metric = JointMetric {
            distance: 0.1,
            parent_scale: 1.0,
        };
        let out = reduce(&keys, &metric, 0.001);
        assert!(out.iter().any(|k| k.time == keys[12].time));
        assert!(out.len() < keys.len());
        // Every original key is reproduced within the tolerance by the kept ones.
        for k in &keys {
            let j = out.iter().position(|o| o.time >= k.time).unwrap();
            let (a, b) = if out[j].time == k.time {
                (&out[j], &out[j])
            } else {
                (&out[j - 1], &out[j])
            };
            assert!(key_error(a, b, k, &metric) <= 0.001);
        }
        // A rotation of 0.02 rad at 0.1 m moves a point by ~2 mm: kept when alone.
        let mut rot: Vec<Key> = (0..3).map(|i| key(i as f32, 0.0, 0.0)).collect();
        rot[1].rotation = gom_demo::quat_from_axis_angle([0.0, 0.0, 1.0], 0.02);
        assert_eq!(reduce(&rot, &metric, 0.001).len(), 3);
        let far = JointMetric {
            distance: 0.01,
            parent_scale: 1.0,
        };
        assert_eq!(reduce(&rot, &far, 0.001).len(), 2);
    }
}
