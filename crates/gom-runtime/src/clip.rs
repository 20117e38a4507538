//! Animation clips as stored: tracks of keys, read in place.

use std::borrow::Cow;

use glam::{Quat, Vec3};
use gom::{ClipFlags, Key};

use crate::transform::Transform;

/// How time outside `[0, duration]` is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Playback {
    /// Times are used as given: before the first key or after the last, the nearest
    /// key holds (D9).
    #[default]
    Once,
    /// Times wrap with `fmod(time, duration)`; negative times wrap from the end (D9).
    Loop,
}

/// The keys of one bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Track<'a> {
    pub(crate) bone: u32,
    pub(crate) keys: Cow<'a, [Key]>,
}

impl<'a> Track<'a> {
    /// The track of skeleton bone `bone`; [`Clip::new`] checks the keys.
    pub fn new(bone: u32, keys: Cow<'a, [Key]>) -> Self {
        Track { bone, keys }
    }

    /// Skeleton bone index.
    #[inline]
    pub fn bone(&self) -> u32 {
        self.bone
    }

    /// Keys, strictly ascending in time, at least one (in a [`Clip`]).
    #[inline]
    pub fn keys(&self) -> &[Key] {
        &self.keys
    }
}

/// One animation clip, read in place from a file or copied from a [`gom::Clip`].
///
/// The fields are private: [`Clip::new`] checks what sampling relies on and derives
/// per-key data from the tracks, so they cannot change afterwards.
#[derive(Debug, Clone)]
pub struct Clip<'a> {
    pub(crate) id: u64,
    /// Per track, the index of its first key pair in `angles`.
    pub(crate) pair_offsets: Vec<usize>,
    /// Per key pair, the slerp angle and `θ / sin θ`, computed on first use.
    pub(crate) angles: std::sync::OnceLock<Vec<[f32; 2]>>,
    /// Clip name.
    pub(crate) name: Cow<'a, str>,
    /// Length in seconds.
    pub(crate) duration: f32,
    /// Rate the clip was sampled at, in keys per second.
    pub(crate) sample_rate: f32,
    /// The root-motion bone, if any.
    pub(crate) root_bone: Option<u32>,
    /// Clip flags.
    pub(crate) flags: ClipFlags,
    /// Tracks sorted by bone index, at most one per bone.
    pub(crate) tracks: Vec<Track<'a>>,
    /// The samples of a compressed clip (then `tracks` is empty).
    pub(crate) compressed: Option<crate::compressed::CompressedClip<'a>>,
    /// What the clip carries beyond v1's tracks (the additive reference).
    pub(crate) extras: gom::ClipExtras,
}

impl<'a> Clip<'a> {
    /// Builds a clip from parts, checking what sampling relies on: every track has
    /// keys, times are finite and strictly ascending, tracks are sorted by bone.
    pub fn new(
        name: Cow<'a, str>,
        duration: f32,
        sample_rate: f32,
        root_bone_index: i32,
        flags: ClipFlags,
        tracks: Vec<Track<'a>>,
    ) -> Result<Self, crate::Error> {
        let bad = |problem: String| crate::Error::InvalidModel {
            location: format!("clip \"{name}\""),
            problem,
        };
        if !duration.is_finite() || duration < 0.0 {
            return Err(bad(format!(
                "duration {duration} is not a finite non-negative number"
            )));
        }
        let mut last_bone: Option<u32> = None;
        for t in &tracks {
            if last_bone.is_some_and(|b| b >= t.bone) {
                return Err(bad(format!("track of bone {} is out of order", t.bone)));
            }
            last_bone = Some(t.bone);
            if t.keys.is_empty() {
                return Err(bad(format!("track of bone {} has no keys", t.bone)));
            }
            let mut prev = f32::NEG_INFINITY;
            for k in t.keys.iter() {
                let finite = k.translation.iter().all(|v| v.is_finite())
                    && k.rotation.iter().all(|v| v.is_finite())
                    && k.scale.iter().all(|v| v.is_finite());
                if !k.time.is_finite() || k.time <= prev || !finite {
                    return Err(bad(format!(
                        "track of bone {} has a key at time {} that is not finite or not after {}",
                        t.bone, k.time, prev
                    )));
                }
                prev = k.time;
            }
        }
        let root_bone = u32::try_from(root_bone_index).ok();
        if flags.has_root_motion() && root_bone.is_none() {
            return Err(bad("HasRootMotion is set but there is no root bone".into()));
        }
        Ok(Clip {
            id: crate::skeleton::next_id(),
            pair_offsets: pair_offsets(&tracks),
            angles: std::sync::OnceLock::new(),
            name,
            duration,
            sample_rate,
            root_bone,
            flags,
            tracks,
            compressed: None,
            extras: gom::ClipExtras::default(),
        })
    }

    /// A compressed clip (`docs/extensions.md`) on a skeleton: its `CLPZ` payload is
    /// checked in full (every rule, bounds of the decoded values included).
    pub fn new_compressed(
        name: Cow<'a, str>,
        duration: f32,
        sample_rate: f32,
        root_bone_index: i32,
        flags: ClipFlags,
        payload: Cow<'a, [u8]>,
        skeleton: &crate::Skeleton,
    ) -> Result<Self, crate::Error> {
        let bad = |problem: String| crate::Error::InvalidModel {
            location: format!("clip \"{name}\""),
            problem,
        };
        if !sample_rate.is_finite() || sample_rate <= 0.0 {
            return Err(bad(format!("sample rate {sample_rate} is not positive")));
        }
        let cz = crate::compressed::CompressedClip::new(payload, skeleton.bone_count() as u32)
            .map_err(|e| bad(e.to_string()))?
            .with_bind(skeleton);
        let mut clip = Clip::new(
            name,
            duration,
            sample_rate,
            root_bone_index,
            flags,
            Vec::new(),
        )?;
        clip.compressed = Some(cz);
        Ok(clip)
    }

    /// A clip of a checked file, on its skeleton: in place, keys or compressed samples.
    pub(crate) fn from_view(c: &gom::gomb::ClipView<'a>, skeleton: &crate::Skeleton) -> Clip<'a> {
        let tracks = c
            .tracks
            .iter()
            .map(|t| Track {
                bone: t.bone,
                keys: crate::mesh::cast_or_copy(t.key_data),
            })
            .collect();
        let mut clip = Clip::trusted(
            Cow::Borrowed(c.name),
            c.duration,
            c.sample_rate,
            c.root_bone_index,
            c.flags,
            tracks,
        );
        clip.extras = c.extras.clone();
        if let Some((layout, payload)) = &c.compressed {
            clip.compressed = Some(
                crate::compressed::CompressedClip::trusted(Cow::Borrowed(payload), layout)
                    .with_bind(skeleton),
            );
        }
        clip
    }

    /// Copies a [`gom::Clip`] for `skeleton`: a compressed clip samples its payload
    /// (as a file's would), any other its keys.
    pub fn from_model_on(
        clip: &gom::Clip,
        skeleton: &crate::Skeleton,
    ) -> Result<Clip<'static>, crate::Error> {
        match &clip.compressed {
            Some(payload) => Clip::new_compressed(
                Cow::Owned(clip.name.clone()),
                clip.duration,
                clip.sample_rate,
                clip.root_bone_index,
                clip.flags,
                Cow::Owned(payload.clone()),
                skeleton,
            ),
            None => Clip::from_model(clip),
        }
    }

    /// The samples of a compressed clip, `None` for a clip of keys.
    pub fn compressed(&self) -> Option<&crate::compressed::CompressedClip<'a>> {
        self.compressed.as_ref()
    }

    /// Builds a clip from parts already checked by the GOMB reader (O(tracks)).
    pub(crate) fn trusted(
        name: Cow<'a, str>,
        duration: f32,
        sample_rate: f32,
        root_bone_index: i32,
        flags: ClipFlags,
        tracks: Vec<Track<'a>>,
    ) -> Self {
        Clip {
            id: crate::skeleton::next_id(),
            pair_offsets: pair_offsets(&tracks),
            angles: std::sync::OnceLock::new(),
            name,
            duration,
            sample_rate,
            root_bone: u32::try_from(root_bone_index).ok(),
            flags,
            tracks,
            compressed: None,
            extras: gom::ClipExtras::default(),
        }
    }

    /// Copies a [`gom::Clip`] as keys (a compressed clip's decoded keys; see
    /// [`Clip::from_model_on`] to sample its payload).
    pub fn from_model(clip: &gom::Clip) -> Result<Clip<'static>, crate::Error> {
        Ok(Clip::new(
            Cow::Owned(clip.name.clone()),
            clip.duration,
            clip.sample_rate,
            clip.root_bone_index,
            clip.flags,
            clip.tracks
                .iter()
                .map(|t| Track::new(t.bone, Cow::Owned(t.keys.clone())))
                .collect(),
        )?
        .with_extras(clip.extras.clone()))
    }

    /// The clip with `extras` (an additive clip's reference); an additive clip is
    /// meant for [`crate::blend_additive`], its untracked bones having no delta.
    pub fn with_extras(mut self, extras: gom::ClipExtras) -> Self {
        self.extras = extras;
        self
    }

    /// What the clip carries beyond v1's tracks.
    pub fn extras(&self) -> &gom::ClipExtras {
        &self.extras
    }

    /// Whether the clip is additive: its samples are deltas for
    /// [`crate::blend_additive`] (`docs/extensions.md` §4).
    pub fn is_additive(&self) -> bool {
        self.extras.additive.is_some()
    }

    /// Clip name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Length in seconds.
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// Rate the clip was sampled at, in keys per second.
    pub fn sample_rate(&self) -> f32 {
        self.sample_rate
    }

    /// The root-motion bone, if any.
    pub fn root_bone(&self) -> Option<u32> {
        self.root_bone
    }

    /// Clip flags.
    pub fn flags(&self) -> ClipFlags {
        self.flags
    }

    /// Tracks sorted by bone index, at most one per bone, each with at least one key.
    #[inline]
    pub fn tracks(&self) -> &[Track<'a>] {
        &self.tracks
    }

    /// Whether every track's keys are read in place from the file bytes.
    pub fn is_in_place(&self) -> bool {
        self.tracks
            .iter()
            .all(|t| matches!(t.keys, Cow::Borrowed(_)))
    }

    /// Whether the clip carries root motion (flag HasRootMotion).
    pub fn has_root_motion(&self) -> bool {
        self.flags.has_root_motion() && self.root_bone.is_some()
    }

    /// The time actually sampled for `time` under `playback`: non-finite times become
    /// 0; looping wraps with `fmod` into `[0, duration)`.
    #[inline]
    pub fn local_time(&self, time: f32, playback: Playback) -> f32 {
        local_time(self.duration, time, playback)
    }

    /// The track of `bone`, if the clip animates it.
    pub fn track(&self, bone: u32) -> Option<&Track<'a>> {
        self.tracks
            .binary_search_by_key(&bone, |t| t.bone)
            .ok()
            .and_then(|i| self.tracks.get(i))
    }

    /// Samples one bone at `time` (already wrapped; see [`Clip::local_time`]) without a
    /// cache: binary search, then interpolation (D9). `None` when the bone has no
    /// track. The result is bit-identical to what [`crate::sample`] produces.
    pub fn sample_bone(&self, bone: u32, time: f32) -> Option<Transform> {
        if let Some(cz) = &self.compressed {
            return cz
                .stores(bone)
                .then(|| cz.sample_bone(bone, time, self.sample_rate));
        }
        let ti = self.tracks.binary_search_by_key(&bone, |t| t.bone).ok()?;
        let keys = &self.tracks.get(ti)?.keys;
        let seg = crate::sampling::Segment::find(keys, time, 0);
        let angle = self.pair_angle(ti, &seg);
        Some(crate::sampling::eval_one(keys, &seg, angle, time))
    }

    /// The slerp angle data of track `ti`'s segment `seg` (see [`crate::sampling`]).
    #[inline]
    pub(crate) fn pair_angle(&self, ti: usize, seg: &crate::sampling::Segment) -> [f32; 2] {
        if seg.k0 == seg.k1 {
            return [0.0, 1.0];
        }
        // In range: the offsets and angles were derived from the tracks, which cannot
        // change after `Clip::new`, and k0 < k1 names a key pair of track `ti`.
        self.pair_angles()[self.pair_offsets[ti] + seg.k0]
    }

    /// Per key pair of every track (tracks in order), the slerp angle `θ` and
    /// `θ / sin θ`. Computed once, on first use, for all users of the clip: O(keys)
    /// time and 8 bytes per key pair. Opening a file never pays for it.
    pub(crate) fn pair_angles(&self) -> &[[f32; 2]] {
        self.angles
            .get_or_init(|| crate::sampling::pair_angles(&self.tracks))
    }
}

/// The time sampled for `time` under `playback` in a clip of length `duration`: see
/// [`Clip::local_time`].
#[inline]
pub(crate) fn local_time(duration: f32, time: f32, playback: Playback) -> f32 {
    if !time.is_finite() {
        return 0.0;
    }
    match playback {
        Playback::Once => time,
        Playback::Loop => {
            if duration > 0.0 {
                let r = time % duration;
                if r < 0.0 {
                    // -0.0 stays -0.0 and is equal to 0.
                    let w = r + duration;
                    if w >= duration {
                        0.0
                    } else {
                        w
                    }
                } else {
                    r
                }
            } else {
                0.0
            }
        }
    }
}

/// Per track, the index of its first key pair in a list of all tracks' pairs.
fn pair_offsets(tracks: &[Track]) -> Vec<usize> {
    let mut at = 0usize;
    tracks
        .iter()
        .map(|t| {
            let o = at;
            at += t.keys.len().saturating_sub(1);
            o
        })
        .collect()
}

/// The translation, rotation and scale of a key.
#[inline]
pub fn key_transform(k: &Key) -> Transform {
    Transform {
        translation: Vec3::from_array(k.translation),
        rotation: Quat::from_array(k.rotation),
        scale: Vec3::from_array(k.scale),
    }
}
