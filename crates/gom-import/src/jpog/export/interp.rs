//! Keys that read the same under any interpolation. Readers of the game's keys disagree
//! on how a rotation moves between two stored keys: GOM slerps along the shorter arc, a
//! public Blender importer lerps the quaternion components and normalises, the game's
//! own method is not documented. Both follow the same great circle, but not at the same
//! speed, and the gap grows with the cube of the angle between the keys (150° apart it
//! is about 4.5° of rotation). Keys are inserted on GOM's slerp path until the two
//! readings of every interval agree within the key tolerance, measured as the key
//! reduction measures it: the displacement of a point at the joint's measuring distance
//! (the extent of what it moves plus the tolerance's distance).
//!
//! The arithmetic is IEEE operations and `libm` (no platform math library), so the
//! keys inserted are the same on every platform.

use crate::optimize::keys::slerp;

/// A key in the game's space: time, translation, unit rotation (x, y, z, w).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GameKey {
    pub time: f32,
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
}

/// Most keys inserted into one interval; an interval still disagreeing then is left
/// as it is (only a tolerance far below f32's resolution gets there).
const MAX_SPLITS: usize = 4096;

fn dot(a: [f64; 4], b: [f64; 4]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

/// Normalised component-wise lerp from `a` to `b` at `t` (no sign flip: a reader that
/// lerps components takes the arc the stored signs give).
pub(crate) fn nlerp(a: [f32; 4], b: [f32; 4], t: f64) -> [f64; 4] {
    let mut q = [0.0; 4];
    for k in 0..4 {
        q[k] = (1.0 - t) * f64::from(a[k]) + t * f64::from(b[k]);
    }
    let len = dot(q, q).sqrt();
    if len > 0.0 {
        q.map(|v| v / len)
    } else {
        q
    }
}

/// Displacement of a point `distance` from the joint between rotations `p` and `q`
/// (unit, either sign): `2 d sin(δ/2)` for the angle `δ` between them, computed from the
/// chord between the quaternions (precise for small angles).
pub(crate) fn displacement(p: [f64; 4], q: [f64; 4], distance: f64) -> f64 {
    let sign = if dot(p, q) < 0.0 { -1.0 } else { 1.0 };
    let c2: f64 = (0..4).map(|k| (p[k] - sign * q[k]).powi(2)).sum();
    // the quaternions are δ/2 apart: chord c = 2 sin(δ/4); 2 sin(δ/2) = 2 c √(1 − c²/4)
    let c = c2.sqrt();
    2.0 * distance * c * (1.0 - c2 / 4.0).max(0.0).sqrt()
}

/// Where in `[0, 1/2]` slerp and normalised lerp between keys `Ω` apart (on the
/// quaternion sphere) differ most: the lerp's angular speed, `sin Ω / |lerp(t)|²`,
/// equals the slerp's `Ω` there, so `t(1 − t) = (1 − sin Ω / Ω) / (2 (1 − cos Ω))`.
fn widest(cos_omega: f64, sin_omega: f64) -> f64 {
    let omega = libm::atan2(sin_omega, cos_omega);
    // below this the ratio's limit 1/6 is exact to far more than the gap needs
    let r = if omega < 1e-4 {
        1.0 / 6.0
    } else {
        (1.0 - sin_omega / omega) / (2.0 * (1.0 - cos_omega))
    };
    (1.0 - (1.0 - 4.0 * r).max(0.0).sqrt()) / 2.0
}

/// The largest displacement, at `distance` from the joint, between slerp (GOM's, along
/// the shorter arc) and normalised component-wise lerp from `a` to `b`.
pub(crate) fn disagreement(a: [f32; 4], b: [f32; 4], distance: f64) -> f64 {
    let (a64, b64) = (a.map(f64::from), b.map(f64::from));
    let d = dot(a64, b64);
    if d < 0.0 {
        // the lerp takes the long way round, the slerp the short one: they part at once
        // and meet only at the ends; the widest gap is at the middle or beyond
        return [0.25, 0.5, 0.75]
            .iter()
            .map(|&t| displacement(slerp(a, b, t), nlerp(a, b, t), distance))
            .fold(0.0, f64::max);
    }
    let len = (dot(a64, a64) * dot(b64, b64)).sqrt();
    let cos = (d / len).min(1.0);
    let sin = ((1.0 - cos) * (1.0 + cos)).sqrt();
    let t = widest(cos, sin);
    [t, 1.0 - t]
        .iter()
        .map(|&t| displacement(slerp(a, b, t), nlerp(a, b, t), distance))
        .fold(0.0, f64::max)
}

/// The `j`-th of `n - 1` keys evenly spaced in time between `a` and `b`, on the slerp
/// path (translation lerped), or `None` when f32 time cannot hold it strictly between.
fn between(a: &GameKey, b: &GameKey, j: usize, n: usize) -> Option<GameKey> {
    let t = j as f64 / n as f64;
    let time = (f64::from(a.time) + (f64::from(b.time) - f64::from(a.time)) * t) as f32;
    if !(time > a.time && time < b.time) {
        return None;
    }
    let lerp = |x: f32, y: f32| ((1.0 - t) * f64::from(x) + t * f64::from(y)) as f32 + 0.0;
    let q = slerp(a.rotation, b.rotation, t);
    Some(GameKey {
        time,
        translation: [0, 1, 2].map(|k| lerp(a.translation[k], b.translation[k])),
        rotation: q.map(|v| v as f32 + 0.0),
    })
}

/// The keys splitting `a`..`b` into `n` intervals that agree within `tolerance`, or
/// `None` when some interval does not (or time cannot be split that finely).
fn split(
    a: &GameKey,
    b: &GameKey,
    n: usize,
    distance: f64,
    tolerance: f64,
) -> Option<Vec<GameKey>> {
    let mut inner = Vec::with_capacity(n - 1);
    for j in 1..n {
        inner.push(between(a, b, j, n)?);
    }
    let mut prev = a;
    for k in inner.iter().chain(std::iter::once(b)) {
        if disagreement(prev.rotation, k.rotation, distance) >= tolerance {
            return None;
        }
        prev = k;
    }
    Some(inner)
}

/// What [`agree_everywhere`] did to one track.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Inserted {
    /// Keys added.
    pub keys: usize,
    /// Intervals that could not be brought within the tolerance.
    pub left: usize,
}

/// Flips rotation signs so that each key lies in the hemisphere of the one before (the
/// same rotations; a component-wise lerp then takes the shorter arc too), then inserts
/// keys on the slerp path wherever slerp and normalised lerp between two successive
/// keys would differ by `tolerance` or more at `distance` from the joint. Keys must be
/// in ascending time.
pub(crate) fn agree_everywhere(keys: &mut Vec<GameKey>, distance: f64, tolerance: f64) -> Inserted {
    for i in 1..keys.len() {
        let p = keys[i - 1].rotation.map(f64::from);
        if dot(p, keys[i].rotation.map(f64::from)) < 0.0 {
            keys[i].rotation = keys[i].rotation.map(|v| -v + 0.0);
        }
    }
    let mut out = Vec::with_capacity(keys.len());
    let mut done = Inserted::default();
    for (i, key) in keys.iter().enumerate() {
        if let Some(prev) = i.checked_sub(1).map(|p| &keys[p]) {
            let gap = disagreement(prev.rotation, key.rotation, distance);
            if gap >= tolerance && key.time > prev.time {
                // the gap shrinks with about the cube of the angle
                // the gap shrinks a little faster than that: start below the estimate
                let estimate = (gap / tolerance).cbrt() * 0.5;
                let mut n = (estimate.floor() as usize).clamp(2, MAX_SPLITS);
                loop {
                    if let Some(inner) = split(prev, key, n, distance, tolerance) {
                        done.keys += inner.len();
                        out.extend(inner);
                        break;
                    }
                    if n >= MAX_SPLITS || between(prev, key, n / 2, n + 1).is_none() {
                        done.left += 1;
                        break;
                    }
                    n += 1;
                }
            }
        }
        out.push(*key);
    }
    *keys = out;
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis_angle(axis: [f64; 3], degrees: f64) -> [f32; 4] {
        let h = degrees.to_radians() / 2.0;
        let s = h.sin();
        [axis[0] * s, axis[1] * s, axis[2] * s, h.cos()].map(|v| v as f32)
    }

    /// The gap found by brute force: slerp written out with `acos` and `sin` (a second
    /// path), against the normalised lerp, at 10,001 points.
    fn brute_gap(a: [f32; 4], b: [f32; 4], distance: f64) -> f64 {
        let (a, b) = (a.map(f64::from), b.map(f64::from));
        let omega = dot(a, b).clamp(-1.0, 1.0).acos();
        (0..=10_000)
            .map(|i| {
                let t = i as f64 / 10_000.0;
                let (wa, wb) = (
                    ((1.0 - t) * omega).sin() / omega.sin(),
                    (t * omega).sin() / omega.sin(),
                );
                let unit = |q: [f64; 4]| q.map(|v| v / dot(q, q).sqrt());
                let s = unit([0, 1, 2, 3].map(|k| wa * a[k] + wb * b[k]));
                let l = unit([0, 1, 2, 3].map(|k| (1.0 - t) * a[k] + t * b[k]));
                // the quaternions' angle from their chord, the rotation's twice that
                let chord = [0, 1, 2, 3]
                    .map(|k| (s[k] - l[k]).powi(2))
                    .iter()
                    .sum::<f64>()
                    .sqrt();
                let delta = 4.0 * (chord / 2.0).asin();
                2.0 * distance * (delta / 2.0).sin()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn the_widest_gap_matches_a_brute_force_search() {
        for deg in [1.0, 10.0, 45.0, 90.0, 150.0, 179.0] {
            let a = axis_angle([0.0, 0.0, 1.0], 0.0);
            let b = axis_angle([0.6, 0.0, 0.8], deg);
            let got = disagreement(a, b, 2.0);
            let want = brute_gap(a, b, 2.0);
            assert!(
                (got - want).abs() <= 1e-6 * want.max(1e-9) + 1e-12,
                "{deg}°: {got} vs {want}"
            );
        }
        // 150° apart, a point 1 unit away: nlerp lags slerp by about 4.5° of rotation
        let gap = disagreement(
            axis_angle([0.0, 1.0, 0.0], 0.0),
            axis_angle([0.0, 1.0, 0.0], 150.0),
            1.0,
        );
        assert!((0.075..0.08).contains(&gap), "{gap}");
    }

    #[test]
    fn keys_are_inserted_until_every_interval_agrees_and_the_old_keys_stay() {
        let k = |time: f32, deg: f64| GameKey {
            time,
            translation: [time, 0.0, 0.0],
            rotation: axis_angle([0.0, 0.0, 1.0], deg),
        };
        let orig = vec![k(0.0, 0.0), k(1.0, 150.0), k(1.5, 152.0), k(2.0, -60.0)];
        let mut keys = orig.clone();
        let done = agree_everywhere(&mut keys, 1.0, 1e-3);
        assert_eq!(done.left, 0);
        assert_eq!(done.keys, keys.len() - orig.len());
        // the fewest even splits that agree, found by brute force: 150° and 148° (152°
        // to −60° the short way) need some, 2° none
        let fewest = |deg: f64| {
            (1..100)
                .find(|&n| {
                    let step = axis_angle([0.0, 0.0, 1.0], deg / n as f64);
                    brute_gap(axis_angle([0.0, 0.0, 1.0], 0.0), step, 1.0) < 1e-3
                })
                .unwrap()
        };
        assert_eq!(done.keys, fewest(150.0) - 1 + fewest(148.0) - 1, "{done:?}");
        for o in &orig {
            let kept = keys.iter().find(|x| x.time == o.time).unwrap();
            let (a, b) = (kept.rotation.map(f64::from), o.rotation.map(f64::from));
            assert!(displacement(a, b, 1.0) < 1e-6, "{o:?}");
        }
        for w in keys.windows(2) {
            assert!(w[0].time < w[1].time);
            assert!(dot(w[0].rotation.map(f64::from), w[1].rotation.map(f64::from)) >= 0.0);
            assert!(brute_gap(w[0].rotation, w[1].rotation, 1.0) < 1e-3);
        }
        // 2° apart: nothing to add
        let mut calm = vec![k(0.0, 0.0), k(1.0, 2.0)];
        assert_eq!(agree_everywhere(&mut calm, 1.0, 1e-3), Inserted::default());
        assert_eq!(calm.len(), 2);
    }
}
