//! Prepared clips: a clip laid out once in memory for forward playback.
//!
//! [`crate::sample`] reads a clip in place (zero copy) and finds, per bone, the key
//! pair around each time in that bone's own track. A [`PreparedClip`] is built once
//! from a checked [`Clip`] and a [`Skeleton`] (a copy in memory, not a file format)
//! and stores every key of every track in one stream, ordered by the time from which
//! the key is needed:
//!
//! ```text
//! track of bone b, keys k₀ … kₙ₋₁ (times t₀ < … < tₙ₋₁):
//!   record (b, kⱼ₊₁, pair)   from tⱼ    for j = 0 … n−2   (interpolate kⱼ → kⱼ₊₁)
//!   record (b, kₙ₋₁, hold)   from tₙ₋₁                    (hold the last key)
//!   before t₀ the bone holds k₀; bones without a track hold their bind-local transform
//! stream = all records sorted by (from, bone)
//! state at time t = initial state + every record with from ≤ t, applied in order
//! ```
//!
//! Applying a record to a bone makes its old second key the first key and the
//! record's key the second. A [`PreparedContext`] (one per playing instance) keeps the
//! cursor into the stream and the key pairs of all bones in SoA blocks of four bones,
//! the layout of [`LocalPose`]. Playing forward applies the records between the last
//! time and the new one (amortised O(1) per bone and key, reading the stream in
//! order) and re-derives only the blocks that changed; going back, or forward past
//! more records than there are bones, restores each bone from the initial state and
//! at most two records found by binary search in the bone's own list (O(bones · log
//! keys)).
//!
//! The interpolation is [`crate::sampling`]'s, on the same key pairs and with the same
//! slerp angles, in the same operation order: the pose is bit for bit the pose
//! [`crate::sample`] returns (tested), so it inherits its bound, within 10⁻⁶ per
//! rotation component of a double-precision slerp.

use glam::{BVec4A, Vec4};
use gom::Key;

use crate::clip::{Clip, Playback};
use crate::pose::LocalPose;
use crate::sampling::{Group, Next, IDENTITY_KEY};
use crate::skeleton::Skeleton;
use crate::Error;

/// One key of the stream: from time `from`, bone `bone`'s second key is `key`.
#[derive(Debug, Clone, Copy)]
struct Record {
    /// Time from which the record applies.
    from: f32,
    /// Bone (lane) index.
    bone: u32,
    /// The new second key.
    key: Key,
    /// `θ` and `θ / sin θ` of the new pair (`[0, 1]` when held).
    angle: [f32; 2],
    /// The bone holds `key` from now on.
    hold: bool,
}

/// One lane's first key, second key, pair angles (`θ`, `θ / sin θ`) and hold flag.
type LanePair = (Key, Key, [f32; 2], bool);

/// One value of each of four lanes, as a vector.
#[inline(always)]
fn soa(lanes: &[LanePair; 4], f: impl Fn(&LanePair) -> f32) -> Vec4 {
    Vec4::new(f(&lanes[0]), f(&lanes[1]), f(&lanes[2]), f(&lanes[3]))
}

/// The key pairs of every bone at some time, in blocks of four bones.
#[derive(Debug, Clone, Default)]
struct State {
    groups: Vec<Group>,
    nexts: Vec<Next>,
    /// Per block, bit `l` set when lane `l` holds its first key.
    held: Vec<u8>,
}

impl State {
    /// Makes bone `bone`'s second key its first and `r`'s key its second.
    #[inline(always)]
    fn apply(&mut self, r: &Record) -> usize {
        let (b, l) = (r.bone as usize / 4, r.bone as usize % 4);
        if let (Some(g), Some(n), Some(h)) = (
            self.groups.get_mut(b),
            self.nexts.get_mut(b),
            self.held.get_mut(b),
        ) {
            g.t0[l] = n.time[l];
            n.time[l] = r.key.time;
            for c in 0..3 {
                g.tr0[c][l] = n.tr[c][l];
                g.sc0[c][l] = n.sc[c][l];
                n.tr[c][l] = r.key.translation[c];
                n.sc[c][l] = r.key.scale[c];
            }
            for c in 0..4 {
                g.q0[c][l] = n.q[c][l];
                n.q[c][l] = r.key.rotation[c];
            }
            g.theta[l] = r.angle[0];
            g.inv_sinc[l] = r.angle[1];
            *h = if r.hold { *h | 1 << l } else { *h & !(1 << l) };
        }
        b
    }

    /// Re-derives the interpolation data of block `b` from its key pairs.
    #[inline(always)]
    fn derive(&mut self, b: usize) {
        if let (Some(g), Some(n), Some(&h)) =
            (self.groups.get_mut(b), self.nexts.get(b), self.held.get(b))
        {
            let held = BVec4A::new(h & 1 != 0, h & 2 != 0, h & 4 != 0, h & 8 != 0);
            g.derive(g.t0, g.tr0, g.sc0, g.q0, n, held);
        }
    }
}

/// A clip laid out for forward playback on one skeleton; see the module
/// documentation. Built once ([`PreparedClip::new`]), shared by any number of
/// [`PreparedContext`]s.
#[derive(Debug, Clone)]
pub struct PreparedClip {
    id: u64,
    duration: f32,
    bone_count: usize,
    /// Every record, sorted by (`from`, bone).
    records: Vec<Record>,
    /// The state before every record (each bone holding its first key).
    initial: State,
    /// Per lane, its first key (the bind-local transform for bones without a track).
    first: Vec<Key>,
    /// Per bone, the range of `by_bone` holding its records.
    bone_start: Vec<usize>,
    /// Stream indices of each bone's records, in order, bone after bone.
    by_bone: Vec<usize>,
    /// `from` of each entry of `by_bone`.
    by_bone_from: Vec<f32>,
}

impl PreparedClip {
    /// Lays `clip` out for `skeleton`: O(keys · log keys) time, about 80 bytes per key.
    /// Errors when the clip animates a bone the skeleton does not have.
    pub fn new(clip: &Clip, skeleton: &Skeleton) -> Result<Self, Error> {
        let n = skeleton.bone_count();
        let padded = n.div_ceil(4) * 4;
        let mut first = vec![IDENTITY_KEY; padded];
        for (k, t) in first.iter_mut().zip(skeleton.bind_local()) {
            k.translation = t.translation.to_array();
            k.rotation = t.rotation.to_array();
            k.scale = t.scale.to_array();
        }
        let angles = clip.pair_angles();
        let mut records = Vec::new();
        for (ti, track) in clip.tracks().iter().enumerate() {
            let bone = track.bone();
            let slot = match first.get_mut(bone as usize) {
                Some(slot) if (bone as usize) < n => slot,
                _ => {
                    return Err(Error::TrackBone {
                        clip: clip.name().to_string(),
                        bone,
                        bone_count: n,
                    })
                }
            };
            let keys = track.keys();
            if let Some(k0) = keys.first() {
                *slot = *k0;
            }
            let pairs = clip.pair_offsets.get(ti).copied().unwrap_or(0);
            for (j, pair) in keys.windows(2).enumerate() {
                records.push(Record {
                    from: pair[0].time,
                    bone,
                    key: pair[1],
                    angle: angles.get(pairs + j).copied().unwrap_or([0.0, 1.0]),
                    hold: false,
                });
            }
            if let (true, Some(last)) = (keys.len() >= 2, keys.last()) {
                records.push(Record {
                    from: last.time,
                    bone,
                    key: *last,
                    angle: [0.0, 1.0],
                    hold: true,
                });
            }
        }
        // Key times are finite (checked by `Clip`), so `total_cmp` is their order.
        records.sort_by(|a, b| a.from.total_cmp(&b.from).then(a.bone.cmp(&b.bone)));
        let (bone_start, by_bone, by_bone_from) = index_by_bone(&records, padded);
        Ok(PreparedClip {
            id: crate::skeleton::next_id(),
            duration: clip.duration(),
            bone_count: n,
            records,
            initial: initial_state(&first),
            first,
            bone_start,
            by_bone,
            by_bone_from,
        })
    }

    /// The number of bones of the skeleton it was prepared for.
    pub fn bone_count(&self) -> usize {
        self.bone_count
    }

    /// Length in seconds.
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// The number of keys in the stream (one per key of every track).
    pub fn record_count(&self) -> usize {
        self.records.len()
    }

    /// Sets `state` to time `t` (every record with `from ≤ t` applied): per lane, the
    /// key pair of its last record with `from ≤ t` (binary search in the lane's list),
    /// gathered four lanes at a time; returns the cursor.
    fn seek(&self, state: &mut State, t: f32) -> usize {
        let blocks = self.first.len() / 4;
        state.groups.resize(blocks, Group::EMPTY);
        state.nexts.resize(blocks, Next::EMPTY);
        state.held.resize(blocks, 0);
        for (b, ((g, n), h)) in state
            .groups
            .iter_mut()
            .zip(state.nexts.iter_mut())
            .zip(state.held.iter_mut())
            .enumerate()
        {
            let lanes: [LanePair; 4] = std::array::from_fn(|l| self.pair_at(b * 4 + l, t));
            *n = Next {
                time: soa(&lanes, |p: &LanePair| p.1.time),
                tr: std::array::from_fn(|c| soa(&lanes, |p: &LanePair| p.1.translation[c])),
                sc: std::array::from_fn(|c| soa(&lanes, |p: &LanePair| p.1.scale[c])),
                q: std::array::from_fn(|c| soa(&lanes, |p: &LanePair| p.1.rotation[c])),
            };
            *h = lanes
                .iter()
                .enumerate()
                .fold(0, |m, (l, p)| if p.3 { m | 1 << l } else { m });
            let held = BVec4A::new(lanes[0].3, lanes[1].3, lanes[2].3, lanes[3].3);
            g.theta = soa(&lanes, |p: &LanePair| p.2[0]);
            g.inv_sinc = soa(&lanes, |p: &LanePair| p.2[1]);
            g.derive(
                soa(&lanes, |p: &LanePair| p.0.time),
                std::array::from_fn(|c| soa(&lanes, |p: &LanePair| p.0.translation[c])),
                std::array::from_fn(|c| soa(&lanes, |p: &LanePair| p.0.scale[c])),
                std::array::from_fn(|c| soa(&lanes, |p: &LanePair| p.0.rotation[c])),
                n,
                held,
            );
        }
        self.records.partition_point(|r| r.from <= t)
    }

    /// Lane `lane`'s first and second key, pair angles and hold flag once every record
    /// with `from ≤ t` is applied.
    #[inline]
    fn pair_at(&self, lane: usize, t: f32) -> LanePair {
        let first = self.first.get(lane).copied().unwrap_or(IDENTITY_KEY);
        let held = (first, first, [0.0, 1.0], true);
        let (Some(&lo), Some(&hi)) = (self.bone_start.get(lane), self.bone_start.get(lane + 1))
        else {
            return held;
        };
        let (Some(from), Some(idx)) = (self.by_bone_from.get(lo..hi), self.by_bone.get(lo..hi))
        else {
            return held;
        };
        let m = from.partition_point(|&f| f <= t);
        let record = |i: usize| idx.get(i).and_then(|&r| self.records.get(r));
        let Some(last) = m.checked_sub(1).and_then(record) else {
            return held;
        };
        let k0 = match m.checked_sub(2).and_then(record) {
            Some(r) => r.key,
            None => first,
        };
        (k0, last.key, last.angle, last.hold)
    }
}

/// The state in which every lane holds `first[lane]`.
fn initial_state(first: &[Key]) -> State {
    let blocks = first.len() / 4;
    let mut s = State {
        groups: vec![Group::EMPTY; blocks],
        nexts: vec![Next::EMPTY; blocks],
        held: vec![0xF; blocks],
    };
    for (b, keys) in first.chunks_exact(4).enumerate() {
        for (l, k) in keys.iter().enumerate() {
            // Two records with the same key: first and second key are both `k`.
            let r = Record {
                from: 0.0,
                bone: (b * 4 + l) as u32,
                key: *k,
                angle: [0.0, 1.0],
                hold: true,
            };
            s.apply(&r);
            s.apply(&r);
        }
        s.derive(b);
    }
    s
}

/// Per lane, where its records are in the stream: (`bone_start`, `by_bone`,
/// `by_bone_from`), a counting sort of the stream by lane that keeps stream order.
fn index_by_bone(records: &[Record], lanes: usize) -> (Vec<usize>, Vec<usize>, Vec<f32>) {
    let mut start = vec![0usize; lanes + 1];
    for r in records {
        if let Some(c) = start.get_mut(r.bone as usize + 1) {
            *c += 1;
        }
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut fill = start.clone();
    let mut by_bone = vec![0usize; records.len()];
    let mut from = vec![0.0f32; records.len()];
    for (i, r) in records.iter().enumerate() {
        if let Some(at) = fill.get_mut(r.bone as usize) {
            if let (Some(b), Some(f)) = (by_bone.get_mut(*at), from.get_mut(*at)) {
                *b = i;
                *f = r.from;
            }
            *at += 1;
        }
    }
    (start, by_bone, from)
}

/// The playing state of one instance of a [`PreparedClip`]: the cursor into its
/// stream and the key pairs of every bone. It rebinds itself when given another clip.
#[derive(Debug, Clone, Default)]
pub struct PreparedContext {
    clip_id: u64,
    /// Records before `cursor` are applied; those after are not.
    cursor: usize,
    state: State,
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
}

impl PreparedContext {
    /// An empty context; it sizes itself on first use.
    pub fn new() -> Self {
        Self::default()
    }

    fn bind(&mut self, clip: &PreparedClip) {
        if self.clip_id == clip.id {
            return;
        }
        self.state.groups.clone_from(&clip.initial.groups);
        self.state.nexts.clone_from(&clip.initial.nexts);
        self.state.held.clone_from(&clip.initial.held);
        self.cursor = 0;
        self.dirty.clear();
        self.is_dirty.clear();
        self.is_dirty.resize(clip.initial.groups.len(), false);
        self.clip_id = clip.id;
    }

    /// Applies the records from the cursor up to time `t`, at most `budget` of them;
    /// `false` when the budget ran out first.
    fn advance(&mut self, clip: &PreparedClip, t: f32, budget: usize) -> bool {
        let mut left = budget;
        while let Some(r) = clip.records.get(self.cursor) {
            if r.from > t {
                break;
            }
            if left == 0 {
                return false;
            }
            left -= 1;
            let b = self.state.apply(r);
            if let Some(d) = self.is_dirty.get_mut(b) {
                if !*d {
                    *d = true;
                    self.dirty.push(b as u32);
                }
            }
            self.cursor += 1;
        }
        for &b in &self.dirty {
            self.state.derive(b as usize);
            if let Some(d) = self.is_dirty.get_mut(b as usize) {
                *d = false;
            }
        }
        self.dirty.clear();
        true
    }

    /// Moves the context to time `t` (already wrapped).
    fn move_to(&mut self, clip: &PreparedClip, t: f32) {
        let lanes = clip.initial.groups.len() * 4;
        let behind = self
            .cursor
            .checked_sub(1)
            .and_then(|c| clip.records.get(c))
            .is_some_and(|r| r.from > t);
        if behind {
            let target = clip.records.partition_point(|r| r.from <= t);
            if target <= lanes {
                // Replaying from the start is cheaper than seeking every bone.
                self.clip_id = 0;
                self.bind(clip);
            } else {
                self.cursor = clip.seek(&mut self.state, t);
                return;
            }
        }
        if !self.advance(clip, t, lanes) {
            self.cursor = clip.seek(&mut self.state, t);
        }
    }
}

/// Samples `clip` at `time` into `out` (local transforms of every bone of the
/// skeleton it was prepared for), as [`crate::sample`] does with the clip and
/// skeleton it was prepared from: the same pose, bit for bit.
pub fn sample_prepared(
    clip: &PreparedClip,
    time: f32,
    playback: Playback,
    ctx: &mut PreparedContext,
    out: &mut LocalPose,
) {
    ctx.bind(clip);
    out.resize(clip.bone_count);
    let t = crate::clip::local_time(clip.duration, time, playback);
    let t = if t.is_nan() { 0.0 } else { t };
    ctx.move_to(clip, t);
    for (g, o) in ctx.state.groups.iter().zip(out.groups.iter_mut()) {
        *o = g.eval(t);
    }
}
