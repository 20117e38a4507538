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

use gom::math;
use gom::{Bone, Key, MeshPart};

/// Reduction tolerance (draft §11.3 style, ozz defaults).
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

/// Per-bone metrics from the skeleton's bind pose: a bone's measuring distance is the
/// farthest model-space distance from it to any descendant bone or to any skinned vertex
/// it or a descendant moves (from `meshes`' bind-pose positions), plus `extra`.
pub fn joint_metrics(bones: &[Bone], meshes: &[MeshPart], extra: f32) -> Vec<JointMetric> {
    let world = math::bind_world(bones);
    let pos = |m: &gom::Mat4| [f64::from(m[12]), f64::from(m[13]), f64::from(m[14])];
    let mut extent = vec![0.0f64; bones.len()];
    for (i, bone) in bones.iter().enumerate() {
        let p = pos(&world[i]);
        let mut parent = bone.parent_index();
        while let Some(a) = parent {
            if a >= i {
                break;
            }
            let q = pos(&world[a]);
            let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
            if d > extent[a] {
                extent[a] = d;
            }
            parent = bones[a].parent_index();
        }
    }
    // Skinned vertices: their bind positions are in model space.
    for mesh in meshes {
        let Some(skin) = &mesh.vertices.skin else {
            continue;
        };
        for (p, sw) in mesh.vertices.positions.iter().zip(skin) {
            let p = p.map(f64::from);
            for k in 0..4 {
                if sw.weights[k] <= 0.0 {
                    continue;
                }
                let mut b = Some(sw.bones[k] as usize);
                while let Some(a) = b {
                    if a >= bones.len() {
                        break;
                    }
                    let q = pos(&world[a]);
                    let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2))
                        .sqrt();
                    if d > extent[a] {
                        extent[a] = d;
                    }
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
                distance: extent[i] + f64::from(extra),
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

/// `sin(x)` for `0 <= x <= pi/2`, by its Taylor series (error below 1e-15).
fn sin_small(x: f64) -> f64 {
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    for n in 1..12 {
        let k = (2 * n) as f64;
        term *= -x2 / (k * (k + 1.0));
        sum += term;
    }
    sum
}

/// `atan2(y, x)` for `y >= 0`, `x >= 0` (the angle lies in `[0, pi/2]`).
fn atan2_first_quadrant(y: f64, x: f64) -> f64 {
    if y == 0.0 {
        return 0.0;
    }
    if x == 0.0 {
        return core::f64::consts::FRAC_PI_2;
    }
    let (z, swap) = if y > x { (x / y, true) } else { (y / x, false) };
    // Halve the argument twice: atan(z) = 2 atan(z / (1 + sqrt(1 + z^2))).
    let z1 = z / (1.0 + (1.0 + z * z).sqrt());
    let z2 = z1 / (1.0 + (1.0 + z1 * z1).sqrt());
    // |z2| <= tan(pi/16) ~ 0.199: the series converges fast (the first omitted term,
    // z2^27 / 27, is below 1e-20).
    const A: [f64; 12] = [
        -1.0 / 3.0,
        1.0 / 5.0,
        -1.0 / 7.0,
        1.0 / 9.0,
        -1.0 / 11.0,
        1.0 / 13.0,
        -1.0 / 15.0,
        1.0 / 17.0,
        -1.0 / 19.0,
        1.0 / 21.0,
        -1.0 / 23.0,
        1.0 / 25.0,
    ];
    let z2sq = z2 * z2;
    let mut poly = 0.0;
    for c in A.iter().rev() {
        poly = (poly + c) * z2sq;
    }
    let a = 4.0 * (z2 + z2 * poly);
    if swap {
        core::f64::consts::FRAC_PI_2 - a
    } else {
        a
    }
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

/// `(sin x, cos x)` for `0 <= x <= pi/2`, by their Taylor polynomials with constant
/// coefficients (absolute error below 1e-13): plain IEEE arithmetic, no divisions.
fn sin_cos_small(x: f64) -> (f64, f64) {
    const S: [f64; 8] = [
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5_040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
        1.0 / 6_227_020_800.0,
        -1.0 / 1_307_674_368_000.0,
        1.0 / 355_687_428_096_000.0,
    ];
    const C: [f64; 9] = [
        -1.0 / 2.0,
        1.0 / 24.0,
        -1.0 / 720.0,
        1.0 / 40_320.0,
        -1.0 / 3_628_800.0,
        1.0 / 479_001_600.0,
        -1.0 / 87_178_291_200.0,
        1.0 / 20_922_789_888_000.0,
        -1.0 / 6_402_373_705_728_000.0,
    ];
    let x2 = x * x;
    let mut s = 0.0;
    for c in S.iter().rev() {
        s = (s + c) * x2;
    }
    let mut c = 0.0;
    for k in C.iter().rev() {
        c = (c + k) * x2;
    }
    (x + x * s, 1.0 + c)
}

/// A key in `f64` with what every error measurement against it needs.
#[derive(Debug, Clone, Copy)]
struct Sample {
    time: f64,
    translation: [f64; 3],
    rotation: [f64; 4],
    scale: [f64; 3],
    /// `1 / max(|scale|, 1e-6)` per axis: scale errors are relative.
    inv_scale: [f64; 3],
}

impl Sample {
    fn new(k: &Key) -> Sample {
        let scale = k.scale.map(f64::from);
        Sample {
            time: f64::from(k.time),
            translation: k.translation.map(f64::from),
            rotation: k.rotation.map(f64::from),
            scale,
            inv_scale: scale.map(|s| 1.0 / s.abs().max(1e-6)),
        }
    }
}

/// How a segment interpolates rotations.
enum Arc {
    /// Keys (nearly) parallel: normalised linear interpolation towards `qb`.
    Linear([f64; 4]),
    /// `slerp(t) = cos(t omega) qa + sin(t omega) perp`, with `perp` the unit quaternion
    /// orthogonal to `qa` in the plane of `qa` and `qb` (the same rotation as the
    /// classic `sin`-weighted form, with one angle per evaluation).
    Great { perp: [f64; 4], omega: f64 },
}

/// The interpolation between two keys, prepared once for many error measurements.
struct Segment {
    t0: f64,
    /// `1 / span`, or 0 for a zero-length segment (every key measures against `a`).
    inv_span: f64,
    ta: [f64; 3],
    dt: [f64; 3],
    sa: [f64; 3],
    ds: [f64; 3],
    qa: [f64; 4],
    arc: Arc,
}

impl Segment {
    fn new(a: &Sample, b: &Sample) -> Segment {
        let span = b.time - a.time;
        let qa = a.rotation;
        let mut qb = b.rotation;
        let mut dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
        if dot < 0.0 {
            qb = qb.map(|v| -v);
            dot = -dot;
        }
        let dot = dot.min(1.0);
        let mut perp = [0.0; 4];
        for (k, p) in perp.iter_mut().enumerate() {
            *p = qb[k] - dot * qa[k];
        }
        let perp_len =
            (perp[0] * perp[0] + perp[1] * perp[1] + perp[2] * perp[2] + perp[3] * perp[3]).sqrt();
        let arc = if perp_len >= 1e-9 {
            Arc::Great {
                perp: perp.map(|v| v / perp_len),
                omega: atan2_first_quadrant(perp_len, dot),
            }
        } else {
            Arc::Linear(qb)
        };
        Segment {
            t0: a.time,
            inv_span: if span > 0.0 { 1.0 / span } else { 0.0 },
            ta: a.translation,
            dt: [0, 1, 2].map(|k| b.translation[k] - a.translation[k]),
            sa: a.scale,
            ds: [0, 1, 2].map(|k| b.scale[k] - a.scale[k]),
            qa,
            arc,
        }
    }

    /// The constant "interpolation" holding `a` at every time (no trigonometry).
    fn constant(a: &Sample) -> Segment {
        Segment {
            t0: a.time,
            inv_span: 0.0,
            ta: a.translation,
            dt: [0.0; 3],
            sa: a.scale,
            ds: [0.0; 3],
            qa: a.rotation,
            arc: Arc::Linear(a.rotation),
        }
    }

    /// The displacement error of `key` against this interpolation at `key.time`.
    fn error(&self, key: &Sample, metric: &JointMetric) -> f64 {
        let t = (key.time - self.t0) * self.inv_span;
        let mut dt = 0.0f64;
        let mut ds = 0.0f64;
        for k in 0..3 {
            let d = self.ta[k] + self.dt[k] * t - key.translation[k];
            dt += d * d;
            let rel = (self.sa[k] + self.ds[k] * t - key.scale[k]).abs() * key.inv_scale[k];
            ds = ds.max(rel);
        }
        let qa = &self.qa;
        let q = match &self.arc {
            Arc::Great { perp, omega } => {
                let (s, c) = sin_cos_small(t * omega);
                [0, 1, 2, 3].map(|k| c * qa[k] + s * perp[k])
            }
            Arc::Linear(qb) => {
                let q = [0, 1, 2, 3].map(|k| qa[k] + (qb[k] - qa[k]) * t);
                let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
                if len > 0.0 {
                    q.map(|v| v / len)
                } else {
                    q
                }
            }
        };
        let r = &key.rotation;
        // Vector part of conj(q) * r: its length is sin(angle / 2) of the rotation between them.
        let v = [
            q[3] * r[0] - q[0] * r[3] - q[1] * r[2] + q[2] * r[1],
            q[3] * r[1] - q[1] * r[3] - q[2] * r[0] + q[0] * r[2],
            q[3] * r[2] - q[2] * r[3] - q[0] * r[1] + q[1] * r[0],
        ];
        let half_sin = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        dt.sqrt() * metric.parent_scale + 2.0 * half_sin * metric.distance + ds * metric.distance
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
    if keys.len() <= 2 {
        return keys.to_vec();
    }
    let samples: Vec<Sample> = keys.iter().map(Sample::new).collect();
    let mut keep = vec![false; keys.len()];
    keep[0] = true;
    keep[keys.len() - 1] = true;
    let mut stack = vec![(0usize, keys.len() - 1)];
    while let Some((i, j)) = stack.pop() {
        if j <= i + 1 {
            continue;
        }
        let mut worst = (0.0f64, i);
        let segment = Segment::new(&samples[i], &samples[j]);
        for (k, sample) in samples.iter().enumerate().take(j).skip(i + 1) {
            let e = segment.error(sample, metric);
            if e > worst.0 {
                worst = (e, k);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: f32, tx: f32, angle: f32) -> Key {
        Key {
            time,
            translation: [tx, 0.0, 0.0],
            rotation: math::quat_from_axis_angle([0.0, 0.0, 1.0], angle),
            scale: [1.0; 3],
        }
    }

    #[test]
    fn slerp_matches_axis_angle_interpolation() {
        let a = math::quat_from_axis_angle([0.0, 1.0, 0.0], 0.2);
        let b = math::quat_from_axis_angle([0.0, 1.0, 0.0], 1.4);
        let q = slerp(a, b, 0.25);
        let e = math::quat_from_axis_angle([0.0, 1.0, 0.0], 0.5);
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
    fn sin_cos_small_matches_the_library_functions() {
        for i in 0..=1000 {
            let x = core::f64::consts::FRAC_PI_2 * f64::from(i) / 1000.0;
            let (s, c) = sin_cos_small(x);
            assert!((s - x.sin()).abs() < 1e-13, "sin {x}: {s} vs {}", x.sin());
            assert!((c - x.cos()).abs() < 1e-13, "cos {x}: {c} vs {}", x.cos());
            let (y, x) = (x.sin() * 3.0, x.cos() * 3.0);
            let a = atan2_first_quadrant(y, x);
            assert!((a - y.atan2(x)).abs() < 1e-14, "atan2({y}, {x}): {a}");
        }
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
                rotation: math::quat_from_axis_angle([0.0, 0.0, 1.0], angle as f32),
                ..on
            };
            let e = key_error(&a, &b, &off, &metric);
            assert!((e - 2.0 * 0.005f64.sin()).abs() < 1e-5, "{e}");
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
        rot[1].rotation = math::quat_from_axis_angle([0.0, 0.0, 1.0], 0.02);
        assert_eq!(reduce(&rot, &metric, 0.001).len(), 3);
        let far = JointMetric {
            distance: 0.01,
            parent_scale: 1.0,
        };
        assert_eq!(reduce(&rot, &far, 0.001).len(), 2);
    }
}
