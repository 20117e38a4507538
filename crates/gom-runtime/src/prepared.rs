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
//!   record (b, pair(kⱼ, kⱼ₊₁))   from tⱼ    for j = 0 … n−2   (interpolate kⱼ → kⱼ₊₁)
//!   record (b, hold(kₙ₋₁))       from tₙ₋₁                    (hold the last key)
//!   before t₀ the bone holds k₀; bones without a track hold their bind-local transform
//! stream = all records sorted by (from, bone)
//! state at time t = initial state + every record with from ≤ t, applied in order
//! ```
//!
//! A record carries its bone's interpolation data for the pair, ready for the
//! sampler (24 floats: first key's time, translation, scale and rotation, the
//! differences to the second key, the second rotation on the shorter arc, the slerp
//! angles), so applying it is a copy into the bone's lane. A [`PreparedContext`] (one
//! per playing instance) keeps the cursor into the stream and that data for all bones
//! in blocks of eight bones whose floats are kept in pairs, so that a record is twelve
//! 8-byte stores (storing is what a copy costs) and reading a block back into SoA form,
//! the layout of [`LocalPose`], is two loads and two shuffles a pair of fields.
//! Playing forward applies the records between the last time and the new one
//! (amortised O(1) per bone and key, reading the stream in order) and interpolates
//! every block; going back, or forward past more records than there are bones,
//! restores each bone from the initial state or its last record with `from ≤ t`,
//! found by binary search in the bone's own list (O(bones · log keys)).
//!
//! The interpolation is [`crate::sampling`]'s, on the same key pairs and with the same
//! slerp angles, in the same operation order: the pose is bit for bit the pose
//! [`crate::sample`] returns (tested), so it inherits its bound, within 10⁻⁶ per
//! rotation component of a double-precision slerp.

use gom::Key;

use crate::clip::{Clip, Playback};
use crate::pose::LocalPose;
use crate::sampling::{Group, LaneData, Paired, IDENTITY_KEY};
use crate::skeleton::Skeleton;
use crate::Error;

/// One key of the stream: from time `from`, bone `bone` interpolates `lane`.
#[derive(Debug, Clone, Copy)]
struct Record {
    /// Time from which the record applies.
    from: f32,
    /// Bone (lane) index.
    bone: u32,
    /// The bone's interpolation data from `from` on ([`Group::pair`] of the key pair
    /// and its slerp angles).
    lane: LaneData,
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
    /// The blocks of eight bones before every record (each bone holding its first
    /// key).
    initial: Vec<Paired>,
    /// Per bone, the range of `by_bone` holding its records.
    bone_start: Vec<usize>,
    /// Stream indices of each bone's records, in order, bone after bone.
    by_bone: Vec<usize>,
    /// `from` of each entry of `by_bone`.
    by_bone_from: Vec<f32>,
}

impl PreparedClip {
    /// Lays `clip` out for `skeleton`: O(keys · log keys) time, about 115 bytes per
    /// key. Errors when the clip animates a bone the skeleton does not have.
    pub fn new(clip: &Clip, skeleton: &Skeleton) -> Result<Self, Error> {
        if clip.compressed().is_some() {
            return Err(Error::InvalidModel {
                location: format!("clip \"{}\"", clip.name()),
                problem: "a compressed clip is sampled with `sample`, whose context keeps \
                          its decoded frames; it has no prepared form"
                    .into(),
            });
        }
        let n = skeleton.bone_count();
        let padded = n.div_ceil(8) * 8;
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
                let angle = angles.get(pairs + j).copied().unwrap_or([0.0, 1.0]);
                records.push(Record {
                    from: pair[0].time,
                    bone,
                    lane: Group::pair(&pair[0], &pair[1], angle, false),
                });
            }
            if let (true, Some(last)) = (keys.len() >= 2, keys.last()) {
                records.push(Record {
                    from: last.time,
                    bone,
                    lane: held(last),
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
            initial: initial_blocks(&first),
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

    /// Sets `blocks` to time `t` (every record with `from ≤ t` applied): per lane, its
    /// last record with `from ≤ t` (binary search in the lane's list) or its initial
    /// data; returns the cursor.
    fn seek(&self, blocks: &mut Vec<Paired>, t: f32) -> usize {
        blocks.clone_from(&self.initial);
        for (b, block) in blocks.iter_mut().enumerate() {
            for l in 0..8 {
                if let Some(r) = self.last_record(b * 8 + l, t) {
                    block.set_lane(l, &r.lane);
                }
            }
        }
        self.records.partition_point(|r| r.from <= t)
    }

    /// Lane `lane`'s last record with `from ≤ t`, if any.
    #[inline]
    fn last_record(&self, lane: usize, t: f32) -> Option<&Record> {
        let lo = *self.bone_start.get(lane)?;
        let hi = *self.bone_start.get(lane + 1)?;
        let from = self.by_bone_from.get(lo..hi)?;
        let m = from.partition_point(|&f| f <= t);
        let r = *self.by_bone.get(lo + m.checked_sub(1)?)?;
        self.records.get(r)
    }
}

/// A lane holding `k` for all times.
fn held(k: &Key) -> LaneData {
    Group::pair(k, k, [0.0, 1.0], true)
}

/// The blocks in which every lane holds `first[lane]`.
fn initial_blocks(first: &[Key]) -> Vec<Paired> {
    first
        .chunks_exact(8)
        .map(|keys| {
            let mut block = Paired::ZERO;
            for (l, k) in keys.iter().enumerate() {
                block.set_lane(l, &held(k));
            }
            block
        })
        .collect()
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
/// stream and the interpolation data of every bone. It rebinds itself when given
/// another clip.
#[derive(Debug, Clone, Default)]
pub struct PreparedContext {
    clip_id: u64,
    /// Records before `cursor` are applied; those after are not.
    cursor: usize,
    blocks: Vec<Paired>,
}

impl PreparedContext {
    /// An empty context; it sizes itself on first use.
    pub fn new() -> Self {
        Self::default()
    }

    fn bind(&mut self, clip: &PreparedClip) {
        if self.clip_id != clip.id {
            self.restart(clip);
        }
    }

    /// Every bone back to its state before the first record of `clip`.
    fn restart(&mut self, clip: &PreparedClip) {
        self.blocks.clone_from(&clip.initial);
        self.cursor = 0;
        self.clip_id = clip.id;
    }

    /// Applies the records from the cursor up to time `t`, at most `budget` of them;
    /// `false` when the budget ran out first.
    fn advance(&mut self, clip: &PreparedClip, t: f32, budget: usize) -> bool {
        let Some(ahead) = clip.records.get(self.cursor..) else {
            return true;
        };
        let due = ahead.iter().take_while(|r| r.from <= t).take(budget + 1);
        let mut applied = 0;
        for r in due {
            if applied == budget {
                return false;
            }
            let b = r.bone as usize;
            if let Some(block) = self.blocks.get_mut(b / 8) {
                block.set_lane(b % 8, &r.lane);
            }
            applied += 1;
        }
        self.cursor += applied;
        true
    }

    /// Moves the context to time `t` (already wrapped).
    fn move_to(&mut self, clip: &PreparedClip, t: f32) {
        let lanes = clip.initial.len() * 8;
        let behind = self
            .cursor
            .checked_sub(1)
            .and_then(|c| clip.records.get(c))
            .is_some_and(|r| r.from > t);
        if behind {
            let target = clip.records.partition_point(|r| r.from <= t);
            if target <= lanes {
                // Replaying from the start is cheaper than seeking every bone.
                self.restart(clip);
            } else {
                self.cursor = clip.seek(&mut self.blocks, t);
                return;
            }
        }
        if !self.advance(clip, t, lanes) {
            self.cursor = clip.seek(&mut self.blocks, t);
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
    crate::sampling::eval_paired(&ctx.blocks, t, &mut out.groups);
}
