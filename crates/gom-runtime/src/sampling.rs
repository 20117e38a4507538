//! Sampling clips into local poses (D9), four bones at a time.
//!
//! Translation and scale are interpolated linearly; rotation with slerp along the
//! shorter arc. Before the first key or after the last, the nearest key holds.
//!
//! # How the slerp is computed
//! For unit quaternions `q0`, `q1` (with `q1` negated when their dot product is
//! negative, so the angle `θ` between them is at most π/2),
//! `slerp = q0 · sin((1−α)θ)/sin θ + q1 · sin(αθ)/sin θ`. The weights are rewritten as
//! `(1−α) · sinc((1−α)θ) · θ/sin θ` and `α · sinc(αθ) · θ/sin θ`, which stay finite and
//! smooth as `θ → 0` (they become the plain lerp weights), so no branch is needed.
//! `θ` is found once per key pair, for all key pairs of a clip at its first sampling
//! (8 bytes per pair, shared by every user of the clip, never paid when opening a
//! file), as `2·atan(|q1−q0| / |q1+q0|)` (accurate also for
//! small angles, unlike `acos` of the dot product), with `atan` reduced to
//! `|y| ≤ tan(π/8)` and an odd Taylor polynomial up to `y¹⁵`; `sinc` is a polynomial in
//! `x²` up to `x¹⁰`. Both truncations are below 4·10⁻⁸ on their ranges; the result
//! differs from a double-precision slerp by less than 10⁻⁶ per component (tested).
//! Only `+ − × ÷ √` are used, never `mul_add` or library transcendental functions,
//! so the results are the same on every platform and in every thread.
//!
//! At α = 0 (a time exactly on a key, or a held key) the key's rotation, translation
//! and scale are returned bit for bit.
//!
//! # The cursor cache
//! A [`SamplingContext`] keeps, per bone, the key pair around the last sampled time,
//! already laid out four bones per SIMD vector (keys are read with three vector loads
//! each and transposed four bones at a time). Sampling checks the time against each
//! group's validity interval and only re-seeks the bones whose interval was left:
//! forward playback costs amortised O(1) per bone (one key time decides the step to
//! the next pair, whose first key is already in the cache), a random seek a binary
//! search. The cached, the uncached ([`Clip::sample_bone`]) and the seeking paths give
//! bit-identical results.

use glam::{BVec4A, Mat4, Vec4};
use gom::Key;

use crate::clip::{Clip, Playback};
use crate::pose::LocalPose;
use crate::skeleton::Skeleton;
use crate::transform::{SoaTransform, Transform};
use crate::Error;

mod frames;
mod paired;
mod wide;

pub use frames::sample_at_frames;
pub(crate) use paired::Paired;
pub(crate) use wide::{eval_paired, has_avx};

const NO_TRACK: u32 = u32::MAX;

/// The key pair surrounding a time in one track.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Segment {
    /// Index of the first key of the pair.
    pub k0: usize,
    /// Index of the second key (equal to `k0` when a key holds).
    pub k1: usize,
    /// The segment is valid for times in `[lo, hi)`.
    pub lo: f32,
    pub hi: f32,
}

impl Segment {
    /// Finds the segment of `keys` containing `t`, starting the search at `hint`.
    #[inline]
    pub fn find(keys: &[Key], t: f32, hint: usize) -> Segment {
        let t = if t.is_nan() { 0.0 } else { t };
        let n = keys.len();
        let (first, last) = match (keys.first(), keys.last()) {
            (Some(f), Some(l)) => (f.time, l.time),
            _ => {
                return Segment {
                    k0: 0,
                    k1: 0,
                    lo: f32::NEG_INFINITY,
                    hi: f32::INFINITY,
                }
            }
        };
        if t < first {
            return Segment {
                k0: 0,
                k1: 0,
                lo: f32::NEG_INFINITY,
                hi: first,
            };
        }
        if t >= last {
            return Segment {
                k0: n - 1,
                k1: n - 1,
                lo: last,
                hi: f32::INFINITY,
            };
        }
        // Here first <= t < last, so n >= 2 and the answer i satisfies i + 1 < n.
        let mut i = hint.min(n - 2);
        let mut found = false;
        if keys[i].time <= t {
            for _ in 0..4 {
                if t < keys[i + 1].time {
                    found = true;
                    break;
                }
                if i + 2 >= n {
                    break;
                }
                i += 1;
            }
        }
        if !found {
            // Keys are strictly ascending: the last key with time <= t.
            i = keys
                .partition_point(|k| k.time <= t)
                .saturating_sub(1)
                .min(n - 2);
        }
        Segment {
            k0: i,
            k1: i + 1,
            lo: keys[i].time,
            hi: keys[i + 1].time,
        }
    }
}

/// The keys of one lane and the pair around the current time.
#[derive(Debug, Clone, Copy)]
struct Lane<'k> {
    keys: &'k [Key],
    seg: Segment,
    /// `θ` and `θ / sin θ` of the pair.
    angle: [f32; 2],
}

/// A key that holds the identity, for lanes past the last bone.
pub(crate) const IDENTITY_KEY: Key = Key {
    time: 0.0,
    translation: [0.0; 3],
    rotation: [0.0, 0.0, 0.0, 1.0],
    scale: [1.0; 3],
};

/// A segment that holds its key for all times.
const CONSTANT: Segment = Segment {
    k0: 0,
    k1: 0,
    lo: f32::NEG_INFINITY,
    hi: f32::INFINITY,
};

/// A segment valid for no time at all, so that the first sample seeks.
const INVALID: Segment = Segment {
    k0: 0,
    k1: 0,
    lo: f32::INFINITY,
    hi: f32::NEG_INFINITY,
};

/// Key `k` of `keys` as three vectors: `[time tx ty tz]`, `[qx qy qz qw]`,
/// `[qw sx sy sz]` (three unaligned loads; the key is 11 floats).
#[inline(always)]
fn key_rows(keys: &[Key], k: usize) -> [Vec4; 3] {
    match keys.get(k) {
        Some(key) => {
            let f: &[f32; 11] = bytemuck::cast_ref(key);
            let row = |at: usize| {
                let mut a = [0.0f32; 4];
                a.copy_from_slice(&f[at..at + 4]);
                Vec4::from(a)
            };
            [row(0), row(4), row(7)]
        }
        None => [Vec4::ZERO, Vec4::W, Vec4::ONE],
    }
}

/// Cached interpolation data of four bones.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Group {
    /// The group is valid for times in `[lo, hi)`: the intersection of its lanes.
    lo: f32,
    hi: f32,
    pub(crate) t0: Vec4,
    dt: Vec4,
    pub(crate) tr0: [Vec4; 3],
    dtr: [Vec4; 3],
    pub(crate) sc0: [Vec4; 3],
    dsc: [Vec4; 3],
    pub(crate) q0: [Vec4; 4],
    q1: [Vec4; 4],
    pub(crate) theta: Vec4,
    pub(crate) inv_sinc: Vec4,
}

/// The number of floats of one lane's interpolation data.
pub(crate) const LANE_FLOATS: usize = 24;

/// One lane's interpolation data: `t0`, `dt`, `tr0`, `dtr`, `sc0`, `dsc`, `q0`, `q1`,
/// `θ`, `θ / sin θ` (see [`Group`]).
pub(crate) type LaneData = [f32; LANE_FLOATS];

/// The second key of each lane of a group as stored (time, translation, scale,
/// rotation before the shorter-arc sign), to become the first key when playback
/// moves on. Kept apart from [`Group`] so that interpolation streams less memory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Next {
    pub(crate) time: Vec4,
    pub(crate) tr: [Vec4; 3],
    pub(crate) sc: [Vec4; 3],
    pub(crate) q: [Vec4; 4],
}

impl Next {
    pub(crate) const EMPTY: Next = Next {
        time: Vec4::ZERO,
        tr: [Vec4::ZERO; 3],
        sc: [Vec4::ONE; 3],
        q: [Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE],
    };
}

impl Group {
    pub(crate) const EMPTY: Group = Group {
        lo: f32::INFINITY,
        hi: f32::NEG_INFINITY,
        t0: Vec4::ZERO,
        dt: Vec4::INFINITY,
        tr0: [Vec4::ZERO; 3],
        dtr: [Vec4::ZERO; 3],
        sc0: [Vec4::ONE; 3],
        dsc: [Vec4::ZERO; 3],
        q0: [Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE],
        q1: [Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE],
        theta: Vec4::ZERO,
        inv_sinc: Vec4::ONE,
    };

    /// Loads the key pairs of four lanes into the SoA layout: each lane's second key
    /// is read from memory as rows and transposed four at a time.
    ///
    /// `shifted`: `None` reads the first keys from memory too. `Some(mask)` takes the
    /// first key of the lanes in `mask` (forward playback: their new first key is their
    /// old second key) from `next` instead of memory, and keeps the first key of the
    /// other lanes, which did not move.
    #[inline]
    fn load(&mut self, next: &mut Next, lanes: &[Lane; 4], shifted: Option<BVec4A>) {
        let [l0, l1, l2, l3] = lanes;
        let r1 = [
            key_rows(l0.keys, l0.seg.k1),
            key_rows(l1.keys, l1.seg.k1),
            key_rows(l2.keys, l2.seg.k1),
            key_rows(l3.keys, l3.seg.k1),
        ];
        let soa = |r: &[[Vec4; 3]; 4], i: usize| {
            Mat4::from_cols(r[0][i], r[1][i], r[2][i], r[3][i]).transpose()
        };
        // Columns: a = time, tx, ty, tz; b = qx, qy, qz, qw; c = qw, sx, sy, sz.
        let (a1, b1, c1) = (soa(&r1, 0), soa(&r1, 1), soa(&r1, 2));
        let (time0, tr0, sc0, q0) = match shifted {
            // Every lane moved on: the old second keys are the new first keys.
            Some(m) if m.all() => (next.time, next.tr, next.sc, next.q),
            Some(m) => {
                let pick = |new: Vec4, old: Vec4| Vec4::select(m, new, old);
                (
                    pick(next.time, self.t0),
                    std::array::from_fn(|c| pick(next.tr[c], self.tr0[c])),
                    std::array::from_fn(|c| pick(next.sc[c], self.sc0[c])),
                    std::array::from_fn(|c| pick(next.q[c], self.q0[c])),
                )
            }
            None => {
                let r0 = [
                    key_rows(l0.keys, l0.seg.k0),
                    key_rows(l1.keys, l1.seg.k0),
                    key_rows(l2.keys, l2.seg.k0),
                    key_rows(l3.keys, l3.seg.k0),
                ];
                let (a0, b0, c0) = (soa(&r0, 0), soa(&r0, 1), soa(&r0, 2));
                (
                    a0.x_axis,
                    [a0.y_axis, a0.z_axis, a0.w_axis],
                    [c0.y_axis, c0.z_axis, c0.w_axis],
                    [b0.x_axis, b0.y_axis, b0.z_axis, b0.w_axis],
                )
            }
        };
        let q1 = [b1.x_axis, b1.y_axis, b1.z_axis, b1.w_axis];
        next.time = a1.x_axis;
        next.tr = [a1.y_axis, a1.z_axis, a1.w_axis];
        next.sc = [c1.y_axis, c1.z_axis, c1.w_axis];
        next.q = q1;
        let held = BVec4A::new(
            l0.seg.k0 == l0.seg.k1,
            l1.seg.k0 == l1.seg.k1,
            l2.seg.k0 == l2.seg.k1,
            l3.seg.k0 == l3.seg.k1,
        );
        self.derive(time0, tr0, sc0, q0, next, held);
        self.lo = l0.seg.lo.max(l1.seg.lo).max(l2.seg.lo.max(l3.seg.lo));
        self.hi = l0.seg.hi.min(l1.seg.hi).min(l2.seg.hi.min(l3.seg.hi));
        self.theta = Vec4::new(l0.angle[0], l1.angle[0], l2.angle[0], l3.angle[0]);
        self.inv_sinc = Vec4::new(l0.angle[1], l1.angle[1], l2.angle[1], l3.angle[1]);
    }

    /// Sets the interpolation data of the four lanes from their first keys (`time0`,
    /// `tr0`, `sc0`, `q0`) and second keys (`next`); `held` lanes hold their first key.
    /// The slerp angles (`theta`, `inv_sinc`) are set by the caller.
    #[inline(always)]
    pub(crate) fn derive(
        &mut self,
        time0: Vec4,
        tr0: [Vec4; 3],
        sc0: [Vec4; 3],
        q0: [Vec4; 4],
        next: &Next,
        held: BVec4A,
    ) {
        let q1 = next.q;
        self.t0 = Vec4::select(held, Vec4::ZERO, time0);
        self.dt = Vec4::select(held, Vec4::INFINITY, next.time - time0);
        self.dtr = std::array::from_fn(|c| next.tr[c] - tr0[c]);
        self.dsc = std::array::from_fn(|c| next.sc[c] - sc0[c]);
        self.tr0 = tr0;
        self.sc0 = sc0;
        let dot = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3];
        let sign = Vec4::select(dot.cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE);
        self.q0 = q0;
        self.q1 = [q1[0] * sign, q1[1] * sign, q1[2] * sign, q1[3] * sign];
    }

    /// Lane `l`'s interpolation data (the fields [`Group::eval`] reads), as
    /// [`Paired::set_lane`] takes it.
    #[inline]
    pub(crate) fn lane(&self, l: usize) -> LaneData {
        let l = l & 3;
        let mut d = [0.0; LANE_FLOATS];
        let fields = self.fields();
        for (x, v) in d.iter_mut().zip(fields) {
            *x = v[l];
        }
        d
    }

    /// A group from the fields [`Group::eval`] reads, in [`LaneData`] order (valid for
    /// no time: `lo`/`hi` are not set).
    pub(crate) fn from_fields(f: [Vec4; LANE_FLOATS]) -> Group {
        Group {
            t0: f[0],
            dt: f[1],
            tr0: [f[2], f[3], f[4]],
            dtr: [f[5], f[6], f[7]],
            sc0: [f[8], f[9], f[10]],
            dsc: [f[11], f[12], f[13]],
            q0: [f[14], f[15], f[16], f[17]],
            q1: [f[18], f[19], f[20], f[21]],
            theta: f[22],
            inv_sinc: f[23],
            ..Group::EMPTY
        }
    }

    /// The fields [`Group::eval`] reads, in [`LaneData`] order.
    pub(crate) fn fields(&self) -> [Vec4; LANE_FLOATS] {
        let [tr0, dtr, sc0, dsc] = [self.tr0, self.dtr, self.sc0, self.dsc];
        let [q0, q1] = [self.q0, self.q1];
        [
            self.t0,
            self.dt,
            tr0[0],
            tr0[1],
            tr0[2],
            dtr[0],
            dtr[1],
            dtr[2],
            sc0[0],
            sc0[1],
            sc0[2],
            dsc[0],
            dsc[1],
            dsc[2],
            q0[0],
            q0[1],
            q0[2],
            q0[3],
            q1[0],
            q1[1],
            q1[2],
            q1[3],
            self.theta,
            self.inv_sinc,
        ]
    }

    /// The interpolation data of one lane going from key `k0` to key `k1` (holding
    /// `k0` when `held`), with the pair's slerp angles: what [`Group::derive`] makes
    /// of them, so a lane set from it interpolates bit for bit like a loaded group.
    pub(crate) fn pair(k0: &Key, k1: &Key, angle: [f32; 2], held: bool) -> LaneData {
        let v3 = |a: [f32; 3]| a.map(Vec4::splat);
        let next = Next {
            time: Vec4::splat(k1.time),
            tr: v3(k1.translation),
            sc: v3(k1.scale),
            q: k1.rotation.map(Vec4::splat),
        };
        let mut g = Group::EMPTY;
        let q0 = k0.rotation.map(Vec4::splat);
        let (tr0, sc0) = (v3(k0.translation), v3(k0.scale));
        g.derive(
            Vec4::splat(k0.time),
            tr0,
            sc0,
            q0,
            &next,
            BVec4A::splat(held),
        );
        g.theta = Vec4::splat(angle[0]);
        g.inv_sinc = Vec4::splat(angle[1]);
        g.lane(0)
    }

    /// Interpolates all four lanes at time `t`.
    #[inline(always)]
    pub(crate) fn eval(&self, t: f32) -> SoaTransform {
        let a = (Vec4::splat(t) - self.t0) / self.dt;
        let b = Vec4::ONE - a;
        let translation = [
            self.tr0[0] + self.dtr[0] * a,
            self.tr0[1] + self.dtr[1] * a,
            self.tr0[2] + self.dtr[2] * a,
        ];
        let scale = [
            self.sc0[0] + self.dsc[0] * a,
            self.sc0[1] + self.dsc[1] * a,
            self.sc0[2] + self.dsc[2] * a,
        ];
        let x1 = a * self.theta;
        let x0 = b * self.theta;
        let w1 = a * sinc_sq(x1 * x1) * self.inv_sinc;
        let w0 = b * sinc_sq(x0 * x0) * self.inv_sinc;
        let exact: BVec4A = a.cmpeq(Vec4::ZERO);
        let q = |c: usize| Vec4::select(exact, self.q0[c], self.q0[c] * w0 + self.q1[c] * w1);
        SoaTransform {
            translation,
            rotation: [q(0), q(1), q(2), q(3)],
            scale,
        }
    }
}

/// The coefficients of `sin(x)/x = 1 + C₁u + C₂u² + … + C₅u⁵` in `u = x²` (Taylor).
pub(crate) const SINC: [f32; 6] = [
    1.0,
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
];

/// `sin(x)/x` as a polynomial in `u = x²`, for `0 <= x <= π/2`.
#[inline(always)]
fn sinc_sq(u: Vec4) -> Vec4 {
    let c = SINC.map(Vec4::splat);
    // Estrin's scheme: fewer dependent steps than Horner's.
    let u2 = u * u;
    let a = c[0] + u * c[1];
    let b = c[2] + u * c[3];
    let c = c[4] + u * c[5];
    a + u2 * (b + u2 * c)
}

/// Lane-wise square root.
#[inline(always)]
pub(crate) fn sqrt4(v: Vec4) -> Vec4 {
    Vec4::new(v.x.sqrt(), v.y.sqrt(), v.z.sqrt(), v.w.sqrt())
}

/// The angle `θ` between `q0` and `q1` (at most π/2) and `θ / sin θ` (1 at θ = 0).
fn rotation_params(q0: &[Vec4; 4], q1: &[Vec4; 4]) -> (Vec4, Vec4) {
    let mut dsq = Vec4::ZERO;
    let mut ssq = Vec4::ZERO;
    for c in 0..4 {
        let d = q1[c] - q0[c];
        let s = q1[c] + q0[c];
        dsq += d * d;
        ssq += s * s;
    }
    // x = tan(θ/2) = |q1 − q0| / |q1 + q0|, at most 1 since the dot product is >= 0.
    let ratio = Vec4::select(ssq.cmpgt(Vec4::ZERO), dsq / ssq, Vec4::ZERO);
    let x = sqrt4(ratio).min(Vec4::ONE);
    let big = x.cmpgt(Vec4::splat(core::f32::consts::SQRT_2 - 1.0));
    let y = Vec4::select(big, (x - Vec4::ONE) / (x + Vec4::ONE), x);
    let offset = Vec4::select(big, Vec4::splat(core::f32::consts::FRAC_PI_4), Vec4::ZERO);
    // atan(y)/y = 1 − u/3 + u²/5 − … − u⁷/15 with u = y², by Estrin's scheme.
    let u = y * y;
    let u2 = u * u;
    let u4 = u2 * u2;
    let p01 = Vec4::ONE + u * (-1.0 / 3.0);
    let p23 = Vec4::splat(1.0 / 5.0) + u * (-1.0 / 7.0);
    let p45 = Vec4::splat(1.0 / 9.0) + u * (-1.0 / 11.0);
    let p67 = Vec4::splat(1.0 / 13.0) + u * (-1.0 / 15.0);
    let p = (p01 + u2 * p23) + u4 * (p45 + u2 * p67);
    let theta = (offset + y * p) * 2.0;
    // sin θ = 2x / (1 + x²).
    let ratio = theta * (Vec4::ONE + x * x) / (x * 2.0);
    let degenerate = x.cmpeq(Vec4::ZERO) | !ratio.is_finite_mask();
    (theta, Vec4::select(degenerate, Vec4::ONE, ratio))
}

/// Per-bone cache of key pairs for one clip on one skeleton. Reuse one context per
/// playing clip instance; it rebinds itself when given another clip or skeleton.
#[derive(Debug, Clone, Default)]
pub struct SamplingContext {
    clip_id: u64,
    skeleton_id: u64,
    track_of: Vec<u32>,
    segs: Vec<Segment>,
    bind_keys: Vec<Key>,
    groups: Vec<Group>,
    nexts: Vec<Next>,
    reloaded: Vec<(u32, u8)>,
    compressed: crate::compressed::Cache,
}

impl SamplingContext {
    /// An empty context; it sizes itself on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets every cached key pair (the next sample seeks from scratch).
    pub fn invalidate(&mut self) {
        self.clip_id = 0;
        self.skeleton_id = 0;
    }

    fn bind(&mut self, clip: &Clip, skeleton: &Skeleton) -> Result<(), Error> {
        if self.clip_id == clip.id && self.skeleton_id == skeleton.id && clip.id != 0 {
            return Ok(());
        }
        // Until the rebinding succeeds, the context matches nothing.
        self.invalidate();
        let n = skeleton.bone_count();
        let padded = n.div_ceil(4) * 4;
        self.track_of.clear();
        self.track_of.resize(padded, NO_TRACK);
        for (i, t) in clip.tracks.iter().enumerate() {
            match self.track_of.get_mut(t.bone as usize) {
                Some(slot) if (t.bone as usize) < n => *slot = i as u32,
                _ => {
                    return Err(Error::TrackBone {
                        clip: clip.name.to_string(),
                        bone: t.bone,
                        bone_count: n,
                    })
                }
            }
        }
        self.segs.clear();
        self.segs.resize(padded, INVALID);
        self.bind_keys.clear();
        self.bind_keys.resize(padded, IDENTITY_KEY);
        for (k, t) in self.bind_keys.iter_mut().zip(skeleton.bind_local()) {
            k.translation = t.translation.to_array();
            k.rotation = t.rotation.to_array();
            k.scale = t.scale.to_array();
        }
        self.groups.clear();
        self.groups.resize(padded / 4, Group::EMPTY);
        self.nexts.clear();
        self.nexts.resize(padded / 4, Next::EMPTY);
        self.reloaded.clear();
        self.reloaded.reserve(padded / 4);
        self.clip_id = clip.id;
        self.skeleton_id = skeleton.id;
        Ok(())
    }
}

/// Samples `clip` at `time` into `out` (local transforms of every bone of `skeleton`).
///
/// `playback` decides what happens outside `[0, duration]` (hold or wrap). Bones
/// without a track get their bind-local transform. `out` is resized to the skeleton's
/// bone count (allocation only the first time). Errors when the clip animates a bone
/// the skeleton does not have.
pub fn sample(
    clip: &Clip,
    skeleton: &Skeleton,
    time: f32,
    playback: Playback,
    ctx: &mut SamplingContext,
    out: &mut LocalPose,
) -> Result<(), Error> {
    if let Some(cz) = &clip.compressed {
        let t = clip.local_time(time, playback);
        let ids = (clip.id, skeleton.id);
        return crate::compressed::sample(
            cz,
            ids,
            clip.sample_rate,
            skeleton,
            t,
            &mut ctx.compressed,
            out,
        );
    }
    ctx.bind(clip, skeleton)?;
    out.resize(skeleton.bone_count());
    let t = clip.local_time(time, playback);
    let t = if t.is_nan() { 0.0 } else { t };
    let SamplingContext {
        track_of,
        segs,
        bind_keys,
        groups,
        nexts,
        reloaded,
        ..
    } = ctx;
    // Three passes: move the cursors of the groups whose interval was left (short
    // and independent, so key-time cache misses overlap), reload those groups,
    // interpolate every group.
    reloaded.clear();
    for (gi, g) in groups.iter().enumerate() {
        if !(t >= g.lo && t < g.hi) {
            let shifted = reseek(gi, t, &clip.tracks, track_of, segs);
            reloaded.push((gi as u32, shifted));
        }
    }
    if !reloaded.is_empty() {
        let angles = clip.pair_angles();
        for &(gi, shifted) in reloaded.iter() {
            if let (Some(g), Some(next)) = (groups.get_mut(gi as usize), nexts.get_mut(gi as usize))
            {
                reload(
                    g,
                    next,
                    gi as usize,
                    clip,
                    &clip.pair_offsets,
                    angles,
                    track_of,
                    segs,
                    bind_keys,
                    shifted,
                );
            }
        }
    }
    wide::eval_all(groups, t, &mut out.groups);
    Ok(())
}

/// Moves the segments of group `gi`'s lanes whose segment does not contain `t`; the
/// caller reloads the group.
///
/// Returns which lanes stepped to the next key pair (bits 0..4), or [`FULL`] when a
/// lane had to search (or has no track) and the group must be loaded entirely.
#[inline(never)]
fn reseek(
    gi: usize,
    t: f32,
    tracks: &[crate::clip::Track],
    track_of: &[u32],
    segs: &mut [Segment],
) -> u8 {
    let base = gi * 4;
    let (Some(segs), Some(track_of)) = (segs.get_mut(base..base + 4), track_of.get(base..base + 4))
    else {
        return FULL;
    };
    let mut shifted = 0u8;
    for (l, (seg, &ti)) in segs.iter_mut().zip(track_of).enumerate() {
        let current = *seg;
        if t >= current.lo && t < current.hi {
            continue;
        }
        *seg = match tracks.get(ti as usize) {
            Some(track) => {
                let keys: &[Key] = &track.keys;
                // Forward playback: the time usually just passed `hi`, into the next
                // pair. One key time decides it.
                let next = current.k1 + 1;
                match keys.get(next) {
                    Some(k) if current.k0 < current.k1 && t >= current.hi && t < k.time => {
                        // Touch the key's last word too, so that both cache lines it
                        // may span are requested now, while other lanes' misses are in
                        // flight, rather than when the group is reloaded.
                        std::hint::black_box(k.scale[2]);
                        shifted |= 1 << l;
                        Segment {
                            k0: current.k1,
                            k1: next,
                            lo: current.hi,
                            hi: k.time,
                        }
                    }
                    _ => {
                        shifted = FULL;
                        Segment::find(keys, t, current.k0)
                    }
                }
            }
            None => {
                shifted = FULL;
                CONSTANT
            }
        };
    }
    shifted
}

/// [`reseek`]'s answer when the group must be loaded from memory entirely.
const FULL: u8 = 0xFF;

/// Reloads group `gi` from its lanes' segments.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn reload(
    g: &mut Group,
    next: &mut Next,
    gi: usize,
    clip: &Clip,
    offsets: &[usize],
    angles: &[[f32; 2]],
    track_of: &[u32],
    segs: &[Segment],
    bind_keys: &[Key],
    shifted: u8,
) {
    let base = gi * 4;
    let (Some(segs), Some(track_of), Some(bind_keys)) = (
        segs.get(base..base + 4),
        track_of.get(base..base + 4),
        bind_keys.get(base..base + 4),
    ) else {
        return;
    };
    let id = Lane {
        keys: std::slice::from_ref(&IDENTITY_KEY),
        seg: CONSTANT,
        angle: [0.0, 1.0],
    };
    let mut lanes = [id; 4];
    for l in 0..4 {
        let ti = track_of[l] as usize;
        lanes[l] = match clip.tracks.get(ti) {
            Some(track) => Lane {
                keys: &track.keys,
                seg: segs[l],
                angle: if segs[l].k0 == segs[l].k1 {
                    [0.0, 1.0]
                } else {
                    // In range: the offsets and angles were derived from the clip's
                    // tracks, which cannot change, and k0 < k1 names a key pair.
                    angles[offsets[ti] + segs[l].k0]
                },
            },
            None => Lane {
                keys: std::slice::from_ref(&bind_keys[l]),
                seg: CONSTANT,
                angle: [0.0, 1.0],
            },
        };
    }
    let shift = (shifted != FULL).then(|| {
        BVec4A::new(
            shifted & 1 != 0,
            shifted & 2 != 0,
            shifted & 4 != 0,
            shifted & 8 != 0,
        )
    });
    g.load(next, &lanes, shift);
}

/// Interpolates one segment of `keys` at `t` exactly as [`sample`] does, `angle`
/// being the pair's entry of [`pair_angles`].
pub(crate) fn eval_one(keys: &[Key], seg: &Segment, angle: [f32; 2], t: f32) -> Transform {
    let mut g = Group::EMPTY;
    let mut next = Next::EMPTY;
    let id = Lane {
        keys: std::slice::from_ref(&IDENTITY_KEY),
        seg: CONSTANT,
        angle: [0.0, 1.0],
    };
    g.load(
        &mut next,
        &[
            Lane {
                keys,
                seg: *seg,
                angle,
            },
            id,
            id,
            id,
        ],
        None,
    );
    g.eval(t).get(0)
}

/// For every key pair of every track (tracks in order, pairs in order), `θ` and
/// `θ / sin θ` of the pair's rotations, `q1` on the shorter arc: four pairs at a time
/// with the same arithmetic the sampler would use.
pub(crate) fn pair_angles(tracks: &[crate::clip::Track]) -> Vec<[f32; 2]> {
    let pairs: Vec<(&Key, &Key)> = tracks
        .iter()
        .flat_map(|t| t.keys.iter().zip(t.keys.iter().skip(1)))
        .collect();
    let mut out = Vec::with_capacity(pairs.len());
    for chunk in pairs.chunks(4) {
        let lane = |l: usize, c: usize, second: bool| {
            chunk
                .get(l)
                .map_or(if c == 3 { 1.0 } else { 0.0 }, |(a, b)| {
                    if second {
                        b.rotation[c]
                    } else {
                        a.rotation[c]
                    }
                })
        };
        let q0: [Vec4; 4] = std::array::from_fn(|c| {
            Vec4::new(
                lane(0, c, false),
                lane(1, c, false),
                lane(2, c, false),
                lane(3, c, false),
            )
        });
        let q1: [Vec4; 4] = std::array::from_fn(|c| {
            Vec4::new(
                lane(0, c, true),
                lane(1, c, true),
                lane(2, c, true),
                lane(3, c, true),
            )
        });
        let dot = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3];
        let sign = Vec4::select(dot.cmplt(Vec4::ZERO), Vec4::NEG_ONE, Vec4::ONE);
        let q1 = [q1[0] * sign, q1[1] * sign, q1[2] * sign, q1[3] * sign];
        let (theta, inv_sinc) = rotation_params(&q0, &q1);
        for l in 0..chunk.len() {
            out.push([theta[l], inv_sinc[l]]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slerp in double precision from the textbook formula, shorter arc; the angle
    /// from `2·atan2(|q−p|, |q+p|)` so that nearly equal inputs are exact too.
    fn slerp_f64(p: [f32; 4], q: [f32; 4], t: f64) -> [f64; 4] {
        let p = p.map(f64::from);
        let mut q = q.map(f64::from);
        let d: f64 = (0..4).map(|i| p[i] * q[i]).sum();
        if d < 0.0 {
            q = q.map(|x| -x);
        }
        let norm = |v: [f64; 4]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let diff = norm(std::array::from_fn(|i| q[i] - p[i]));
        let sum = norm(std::array::from_fn(|i| q[i] + p[i]));
        let theta = 2.0 * diff.atan2(sum);
        if theta == 0.0 {
            return p;
        }
        let (a, b) = (
            ((1.0 - t) * theta).sin() / theta.sin(),
            (t * theta).sin() / theta.sin(),
        );
        std::array::from_fn(|i| a * p[i] + b * q[i])
    }

    fn normalized(v: [f64; 4]) -> [f32; 4] {
        let l = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        v.map(|x| (x / l) as f32)
    }

    #[test]
    fn slerp_is_within_1e6_of_double_precision_slerp() {
        let mut rng = gom_test_support::rng::Rng::new(0x9E37_79B9_7F4A_7C15);
        let mut rnd = || rng.unit_f64();
        let mut worst = 0.0f64;
        for case in 0..20_000 {
            // Random unit quaternions; every fourth pair very close together.
            let p = normalized(std::array::from_fn(|_| rnd() * 2.0 - 1.0));
            let q = if case % 4 == 0 {
                let e = 10f64.powf(-1.0 - 5.0 * rnd());
                normalized(std::array::from_fn(|i| f64::from(p[i]) + e * (rnd() - 0.5)))
            } else {
                normalized(std::array::from_fn(|_| rnd() * 2.0 - 1.0))
            };
            let keys = [
                Key {
                    time: 0.0,
                    translation: [0.0; 3],
                    rotation: p,
                    scale: [1.0; 3],
                },
                Key {
                    time: 1.0,
                    translation: [0.0; 3],
                    rotation: q,
                    scale: [1.0; 3],
                },
            ];
            let t = rnd() as f32;
            let seg = Segment::find(&keys, t, 0);
            let angle = pair_angles(&[crate::clip::Track {
                bone: 0,
                keys: std::borrow::Cow::Borrowed(&keys[..]),
            }])[0];
            let got = eval_one(&keys, &seg, angle, t).rotation.to_array();
            let want = slerp_f64(p, q, f64::from(t));
            for i in 0..4 {
                let e = (f64::from(got[i]) - want[i]).abs();
                worst = worst.max(e);
            }
        }
        eprintln!("worst slerp error {worst:e}");
        assert!(worst < 1e-6, "worst slerp error {worst:e}");
    }

    #[test]
    fn segment_search_finds_the_pair_around_the_time() {
        let keys: Vec<Key> = [0.0f32, 0.5, 1.0, 2.0]
            .iter()
            .map(|&time| Key {
                time,
                ..Key::default()
            })
            .collect();
        for hint in 0..4 {
            assert_eq!(Segment::find(&keys, 0.75, hint).k0, 1);
            assert_eq!(Segment::find(&keys, 1.0, hint).k0, 2);
            assert_eq!(Segment::find(&keys, 1.99, hint).k0, 2);
            assert_eq!(Segment::find(&keys, 2.0, hint).k0, 3);
            assert_eq!(Segment::find(&keys, -1.0, hint).k1, 0);
            assert_eq!(Segment::find(&keys, f32::NAN, hint).k0, 0);
        }
    }
}
