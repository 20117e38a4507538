//! The interpolation between two keys and the errors of the keys between them.

use gom::Key;

use super::trig::{atan2_first_quadrant, sin_cos_fixed, sin_cos_small, terms_for};
use super::JointMetric;

/// `[f(0), f(1), f(2)]`, inlined (array `map` is not always).
#[inline(always)]
fn arr3(f: impl Fn(usize) -> f64) -> [f64; 3] {
    [f(0), f(1), f(2)]
}

/// `[f(0), f(1), f(2), f(3)]`, inlined.
#[inline(always)]
fn arr4(f: impl Fn(usize) -> f64) -> [f64; 4] {
    [f(0), f(1), f(2), f(3)]
}

/// A key in `f64` with what every error measurement against it needs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sample {
    time: f64,
    translation: [f64; 3],
    rotation: [f64; 4],
    scale: [f64; 3],
    /// `1 / max(|scale|, 1e-6)` per axis: scale errors are relative.
    inv_scale: [f64; 3],
}

impl Sample {
    pub(super) fn new(k: &Key) -> Sample {
        let scale = arr3(|c| f64::from(k.scale[c]));
        Sample {
            time: f64::from(k.time),
            translation: arr3(|c| f64::from(k.translation[c])),
            rotation: arr4(|c| f64::from(k.rotation[c])),
            scale,
            inv_scale: arr3(|c| 1.0 / scale[c].abs().max(1e-6)),
        }
    }
}

/// How a segment interpolates rotations.
enum Arc {
    /// Keys (nearly) parallel: normalised linear interpolation towards `qb`.
    Linear([f64; 4]),
    /// `slerp(t) = cos(t omega) qa + sin(t omega) perp`, with `perp` the unit quaternion
    /// orthogonal to `qa` in the plane of `qa` and `qb` (the same rotation as the
    /// classic `sin`-weighted form, with one angle per evaluation); `terms` Taylor terms
    /// give `sin` and `cos` on `[0, omega]`.
    Great {
        perp: [f64; 4],
        omega: f64,
        terms: usize,
    },
}

/// The interpolation between two keys, prepared once for many error measurements.
pub(super) struct Segment {
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
    pub(super) fn new(a: &Sample, b: &Sample) -> Segment {
        let span = b.time - a.time;
        let qa = a.rotation;
        let mut qb = b.rotation;
        let mut dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
        if dot < 0.0 {
            qb = arr4(|c| -qb[c]);
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
            let omega = atan2_first_quadrant(perp_len, dot);
            Arc::Great {
                perp: {
                    let inv = 1.0 / perp_len;
                    arr4(|c| perp[c] * inv)
                },
                omega,
                terms: terms_for(omega),
            }
        } else {
            Arc::Linear(qb)
        };
        Segment {
            t0: a.time,
            inv_span: if span > 0.0 { 1.0 / span } else { 0.0 },
            ta: a.translation,
            dt: arr3(|k| b.translation[k] - a.translation[k]),
            sa: a.scale,
            ds: arr3(|k| b.scale[k] - a.scale[k]),
            qa,
            arc,
        }
    }

    /// The constant "interpolation" holding `a` at every time (no trigonometry).
    pub(super) fn constant(a: &Sample) -> Segment {
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
    pub(super) fn error(&self, key: &Sample, metric: &JointMetric) -> f64 {
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
            Arc::Great { perp, omega, terms } => {
                let (s, c) = sin_cos_small(t * omega, *terms);
                arr4(|k| c * qa[k] + s * perp[k])
            }
            Arc::Linear(qb) => {
                let q = arr4(|k| qa[k] + (qb[k] - qa[k]) * t);
                let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
                if len > 0.0 {
                    arr4(|c| q[c] / len)
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

/// A track's samples, as one [`Sample`] per key (for single measurements) and as one
/// array per component (in one allocation), so that the error loop over the keys of a
/// long segment runs over plain slices (and vectorises).
pub(super) struct Samples {
    each: Vec<Sample>,
    /// [`COLUMNS`] columns of one entry per key: time, translation (3), rotation (4),
    /// scale (3), inverse scale (3).
    data: Vec<f64>,
}

const COLUMNS: usize = 14;
const TIME: usize = 0;
const T: usize = 1;
const R: usize = 4;
const S: usize = 8;
const INV_S: usize = 11;

impl Samples {
    pub(super) fn new(keys: &[Key]) -> Samples {
        let n = keys.len();
        let each: Vec<Sample> = keys.iter().map(Sample::new).collect();
        let mut data = vec![0.0; n * COLUMNS];
        let (time, rest) = data.split_at_mut(n);
        let (t, rest) = rest.split_at_mut(3 * n);
        let (r, rest) = rest.split_at_mut(4 * n);
        let (sc, inv) = rest.split_at_mut(3 * n);
        for (k, smp) in each.iter().enumerate() {
            time[k] = smp.time;
            for c in 0..3 {
                t[c * n + k] = smp.translation[c];
                sc[c * n + k] = smp.scale[c];
                inv[c * n + k] = smp.inv_scale[c];
            }
            for c in 0..4 {
                r[c * n + k] = smp.rotation[c];
            }
        }
        Samples { each, data }
    }

    /// The number of keys.
    pub(super) fn len(&self) -> usize {
        self.each.len()
    }

    /// Column `c`, keys `lo..hi`.
    fn col(&self, c: usize, lo: usize, hi: usize) -> &[f64] {
        let n = self.len();
        &self.data[c * n..(c + 1) * n][lo..hi]
    }

    pub(super) fn sample(&self, k: usize) -> &Sample {
        &self.each[k]
    }
}

/// Up to this many keys, [`Segment::errors`] measures them one by one.
const SHORT: usize = 6;

/// The components of keys `lo..hi`, all of one length.
struct Slices<'a> {
    time: &'a [f64],
    t: [&'a [f64]; 3],
    r: [&'a [f64]; 4],
    s: [&'a [f64]; 3],
    inv_s: [&'a [f64]; 3],
}

impl Segment {
    /// The errors of keys `lo..hi` of `samples` against this interpolation, into
    /// `out` (cleared first); each equals [`Segment::error`] of that key, bit for bit.
    pub(super) fn errors(
        &self,
        samples: &Samples,
        lo: usize,
        hi: usize,
        metric: &JointMetric,
        out: &mut Vec<f64>,
    ) {
        let n = hi.saturating_sub(lo);
        out.clear();
        if n <= SHORT {
            // Setting up the column loops costs more than a few single measurements
            // (which give the same values, bit for bit).
            out.extend(
                samples.each[lo..lo + n]
                    .iter()
                    .map(|k| self.error(k, metric)),
            );
            return;
        }
        // Every entry is written below.
        out.resize(n, 0.0);
        let col = |c: usize| samples.col(c, lo, hi);
        let x = Slices {
            time: col(TIME),
            t: [col(T), col(T + 1), col(T + 2)],
            r: [col(R), col(R + 1), col(R + 2), col(R + 3)],
            s: [col(S), col(S + 1), col(S + 2)],
            inv_s: [col(INV_S), col(INV_S + 1), col(INV_S + 2)],
        };
        match &self.arc {
            Arc::Great { perp, omega, terms } => match terms {
                3 => self.great_errors::<3>(perp, *omega, &x, metric, out),
                5 => self.great_errors::<5>(perp, *omega, &x, metric, out),
                7 => self.great_errors::<7>(perp, *omega, &x, metric, out),
                _ => self.great_errors::<9>(perp, *omega, &x, metric, out),
            },
            Arc::Linear(qb) => {
                for (i, e) in out.iter_mut().enumerate() {
                    let t = (x.time[i] - self.t0) * self.inv_span;
                    let qa = &self.qa;
                    let q = arr4(|k| qa[k] + (qb[k] - qa[k]) * t);
                    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
                    let q = if len > 0.0 { arr4(|c| q[c] / len) } else { q };
                    let r = [x.r[0][i], x.r[1][i], x.r[2][i], x.r[3][i]];
                    let v = [
                        q[3] * r[0] - q[0] * r[3] - q[1] * r[2] + q[2] * r[1],
                        q[3] * r[1] - q[1] * r[3] - q[2] * r[0] + q[0] * r[2],
                        q[3] * r[2] - q[2] * r[3] - q[0] * r[1] + q[1] * r[0],
                    ];
                    let half_sin = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                    *e = self.total(&x, i, t, half_sin, metric);
                }
            }
        }
    }

    /// The loop for a great arc with `N` Taylor terms (see [`terms_for`]): the rotation
    /// term of every key in one straight loop over plain arrays (into `out`), then the
    /// rest.
    fn great_errors<const N: usize>(
        &self,
        perp: &[f64; 4],
        omega: f64,
        x: &Slices<'_>,
        metric: &JointMetric,
        out: &mut [f64],
    ) {
        let n = out.len();
        let (t0, inv_span, qa) = (self.t0, self.inv_span, self.qa);
        let time = &x.time[..n];
        let (r0, r1) = (&x.r[0][..n], &x.r[1][..n]);
        let (r2, r3) = (&x.r[2][..n], &x.r[3][..n]);
        for i in 0..n {
            let t = (time[i] - t0) * inv_span;
            let (s, c) = sin_cos_fixed::<N>(t * omega);
            let q0 = c * qa[0] + s * perp[0];
            let q1 = c * qa[1] + s * perp[1];
            let q2 = c * qa[2] + s * perp[2];
            let q3 = c * qa[3] + s * perp[3];
            let v0 = q3 * r0[i] - q0 * r3[i] - q1 * r2[i] + q2 * r1[i];
            let v1 = q3 * r1[i] - q1 * r3[i] - q2 * r0[i] + q0 * r2[i];
            let v2 = q3 * r2[i] - q2 * r3[i] - q0 * r1[i] + q1 * r0[i];
            out[i] = (v0 * v0 + v1 * v1 + v2 * v2).sqrt();
        }
        for (i, e) in out.iter_mut().enumerate() {
            let t = (time[i] - t0) * inv_span;
            *e = self.total(x, i, t, *e, metric);
        }
    }

    /// The error of key `i` of `x` at parameter `t` given the rotation term
    /// `half_sin` (sin of half the angle to the interpolated rotation).
    #[inline(always)]
    fn total(&self, x: &Slices<'_>, i: usize, t: f64, half_sin: f64, metric: &JointMetric) -> f64 {
        let mut dt = 0.0f64;
        let mut ds = 0.0f64;
        for k in 0..3 {
            let d = self.ta[k] + self.dt[k] * t - x.t[k][i];
            dt += d * d;
            let rel = (self.sa[k] + self.ds[k] * t - x.s[k][i]).abs() * x.inv_s[k][i];
            ds = ds.max(rel);
        }
        dt.sqrt() * metric.parent_scale + 2.0 * half_sin * metric.distance + ds * metric.distance
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random sequence (xorshift).
    fn rng(seed: &mut u64) -> f64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn batched_errors_equal_single_errors_bit_for_bit() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let metric = JointMetric {
            distance: 0.7,
            parent_scale: 1.3,
        };
        for case in 0..200 {
            // Keys along a random rotation with noise; some cases nearly parallel.
            let spread = if case % 3 == 0 { 1e-6 } else { 1.5 };
            let keys: Vec<Key> = (0..150)
                .map(|i| {
                    let a = (rng(&mut seed) - 0.5) * spread + f64::from(i) * 0.01;
                    let axis = [rng(&mut seed), rng(&mut seed), 1.0];
                    let l = (axis[0] * axis[0] + axis[1] * axis[1] + 1.0).sqrt();
                    let (s, c) = (a * 0.5).sin_cos();
                    Key {
                        time: i as f32 / 30.0,
                        translation: [rng(&mut seed) as f32, 0.5, -(rng(&mut seed) as f32)],
                        rotation: [
                            (s * axis[0] / l) as f32,
                            (s * axis[1] / l) as f32,
                            (s / l) as f32,
                            c as f32,
                        ],
                        scale: [1.0 + rng(&mut seed) as f32 * 0.1, 1.0, 0.9],
                    }
                })
                .collect();
            let samples = Samples::new(&keys);
            let (i, j) = (case % 20, 100 + case % 50);
            let seg = Segment::new(samples.sample(i), samples.sample(j));
            let mut out = Vec::new();
            seg.errors(&samples, i + 1, j, &metric, &mut out);
            assert_eq!(out.len(), j - i - 1);
            for (k, e) in out.iter().enumerate() {
                let one = seg.error(samples.sample(i + 1 + k), &metric);
                assert_eq!(
                    e.to_bits(),
                    one.to_bits(),
                    "case {case} key {k}: {e} vs {one}"
                );
            }
        }
    }
}
