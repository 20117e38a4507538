//! Additive clips, the `CLPA` extension (`docs/extensions.md` §5): a clip stored as
//! the difference of each bone's local transform from a reference pose, to be added
//! on top of another pose at run time.
//!
//! The definition (ozz-animation's): with reference `R` and pose `P`, the delta `D` is
//!
//! ```text
//! D.t = P.t − R.t          D.r = conj(R.r) ⊗ P.r          D.s = P.s ⊘ R.s
//! ```
//!
//! and adding `D` with weight `w` to a base pose `B` gives
//! `B.t + w·D.t`, `B.r ⊗ nlerp(1, D.r, w)`, `B.s ⊙ lerp(1, D.s, w)`, so that adding a
//! clip's delta to its reference with weight 1 gives the clip back.
//!
//! This module holds the model side: the reference ([`Reference`]), making an
//! additive clip from a clip ([`make_additive`]), the chunk's bytes ([`encode`],
//! [`parse`]) and its rules ([`check_clip`]).

use crate::compressed::{bind_trs, Trs};
use crate::error::{Item, WriteError};
use crate::model::{Clip, ClipFlags, Key, Model, Track};

/// The version of the `CLPA` chunk this module reads and writes.
pub const VERSION: u32 = 1;
/// Bytes of a `CLPA` payload.
pub const PAYLOAD_SIZE: usize = 16;
/// The `referenceClipNameId` of a clip whose reference is the bind pose.
pub const NO_NAME: u32 = u32::MAX;

/// `CLP0.flags` bit 4, reserved in GOM v1 (so v1 readers refuse the clip): the clip
/// is additive and a `CLPA` chunk follows its `CLP0`. Outside [`ClipFlags::all`];
/// the GOMB reader takes it off and the writer puts it back from
/// [`crate::ClipExtras::additive`].
pub const CLIP_FLAG_ADDITIVE: ClipFlags = ClipFlags::from_bits_retain(1 << 4);

/// The pose an additive clip's deltas were taken from.
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    /// The skeleton's bind pose (`referenceKind` 0).
    BindPose,
    /// A moment of a clip (`referenceKind` 1): the clip's name in the source (for
    /// information: it need not be in the file) and the time, in seconds.
    ClipFrame {
        /// The reference clip's name.
        clip: String,
        /// Where in that clip, seconds, finite and not negative.
        time: f32,
    },
}

impl core::fmt::Display for Reference {
    /// `the bind pose` or `clip "NAME" at T s`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Reference::BindPose => f.write_str("the bind pose"),
            Reference::ClipFrame { clip, time } => write!(f, "clip \"{clip}\" at {time} s"),
        }
    }
}

/// Why an additive clip could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AdditiveError {
    /// The clip to make additive is compressed.
    #[error("clip \"{0}\" is compressed; an additive clip is stored as keys")]
    Compressed(String),
    /// The reference clip does not exist.
    #[error("the reference clip \"{0}\" is not in the model")]
    NoReferenceClip(String),
    /// The reference time is not finite or negative.
    #[error("the reference time {0} is not a finite, non-negative number of seconds")]
    BadTime(f32),
    /// A reference bone has a zero scale component, which no ratio can undo.
    #[error("bone {bone} has a zero scale in the reference pose; its scale ratio is undefined")]
    ZeroScale {
        /// The bone.
        bone: usize,
    },
}

/// Each bone's local transform in `reference`, from `model`'s bind pose and clips.
pub fn reference_pose(model: &Model, reference: &Reference) -> Result<Vec<Trs>, AdditiveError> {
    let mut pose: Vec<Trs> = model
        .skeleton
        .bones
        .iter()
        .map(|b| bind_trs(&b.bind_local))
        .collect();
    let Reference::ClipFrame { clip, time } = reference else {
        return Ok(pose);
    };
    if !time.is_finite() || *time < 0.0 {
        return Err(AdditiveError::BadTime(*time));
    }
    let source = model
        .clips
        .iter()
        .find(|c| &c.name == clip)
        .ok_or_else(|| AdditiveError::NoReferenceClip(clip.clone()))?;
    for t in &source.tracks {
        if let Some(p) = pose.get_mut(t.bone as usize) {
            *p = sample_keys(&t.keys, *time);
        }
    }
    Ok(pose)
}

/// `clip` as an additive clip against `reference_pose` (one transform per bone):
/// every bone gets a track, keyed where the clip keys it (one key where it has no
/// track, the bone then being at its bind pose), each key the delta of the pose from
/// the reference. The deltas of a track interpolate exactly as the clip's keys do:
/// differences and ratios are linear in the keys, and a fixed left factor keeps the
/// angle between two rotations.
pub fn make_additive(
    model: &Model,
    clip: &Clip,
    reference: Reference,
    reference_pose: &[Trs],
) -> Result<Clip, AdditiveError> {
    if clip.compressed.is_some() {
        return Err(AdditiveError::Compressed(clip.name.clone()));
    }
    let mut tracks = Vec::with_capacity(reference_pose.len());
    for (bone, (b, r)) in model.skeleton.bones.iter().zip(reference_pose).enumerate() {
        if r.s.contains(&0.0) {
            return Err(AdditiveError::ZeroScale { bone });
        }
        let keys = match clip.tracks.iter().find(|t| t.bone as usize == bone) {
            Some(t) => t.keys.iter().map(|k| delta_key(r, k)).collect(),
            None => {
                let bind = bind_trs(&b.bind_local);
                vec![delta_key(r, &key_of(0.0, &bind))]
            }
        };
        tracks.push(Track {
            bone: bone as u32,
            keys,
        });
    }
    let mut out = clip.clone();
    out.tracks = tracks;
    out.extras.additive = Some(reference);
    Ok(out)
}

fn key_of(time: f32, p: &Trs) -> Key {
    Key {
        time,
        translation: p.t,
        rotation: p.r,
        scale: p.s,
    }
}

/// The delta key of key `k` from reference `r`, computed in `f64`.
fn delta_key(r: &Trs, k: &Key) -> Key {
    let d = delta(
        r,
        &Trs {
            t: k.translation,
            r: k.rotation,
            s: k.scale,
        },
    );
    key_of(k.time, &d)
}

/// The delta of `pose` from `reference` (module docs), in `f64`, rounded once.
pub fn delta(reference: &Trs, pose: &Trs) -> Trs {
    let f = f64::from;
    let t = std::array::from_fn(|c| (f(pose.t[c]) - f(reference.t[c])) as f32);
    let s = std::array::from_fn(|c| (f(pose.s[c]) / f(reference.s[c])) as f32);
    let q = mul(conj(reference.r.map(f)), pose.r.map(f));
    Trs {
        t,
        r: normalised(q).map(|v| v as f32),
        s,
    }
}

/// The local transform of keys `keys` at `time`: held before the first and after the
/// last key, linear between keys for translation and scale, spherical for rotation
/// along the shorter arc (D9), in `f64`.
pub fn sample_keys(keys: &[Key], time: f32) -> Trs {
    let Some(first) = keys.first() else {
        return Trs {
            r: [0.0, 0.0, 0.0, 1.0],
            s: [1.0; 3],
            ..Trs::default()
        };
    };
    let i = keys.partition_point(|k| k.time <= time);
    if i == 0 || i == keys.len() {
        let k = if i == 0 { first } else { &keys[keys.len() - 1] };
        return Trs {
            t: k.translation,
            r: k.rotation,
            s: k.scale,
        };
    }
    let (a, b) = (&keys[i - 1], &keys[i]);
    let u = (f64::from(time) - f64::from(a.time)) / (f64::from(b.time) - f64::from(a.time));
    let lerp = |x: f32, y: f32| (f64::from(x) + (f64::from(y) - f64::from(x)) * u) as f32;
    Trs {
        t: std::array::from_fn(|c| lerp(a.translation[c], b.translation[c])),
        r: slerp(a.rotation.map(f64::from), b.rotation.map(f64::from), u).map(|v| v as f32),
        s: std::array::from_fn(|c| lerp(a.scale[c], b.scale[c])),
    }
}

fn slerp(a: [f64; 4], b: [f64; 4], u: f64) -> [f64; 4] {
    let mut d = dot(a, b);
    let b = if d < 0.0 {
        d = -d;
        b.map(|v| -v)
    } else {
        b
    };
    let (wa, wb) = if d > 0.9995 {
        (1.0 - u, u)
    } else {
        let theta = d.min(1.0).acos();
        let s = theta.sin();
        (((1.0 - u) * theta).sin() / s, (u * theta).sin() / s)
    };
    normalised(std::array::from_fn(|c| a[c] * wa + b[c] * wb))
}

fn dot(a: [f64; 4], b: [f64; 4]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

fn conj(q: [f64; 4]) -> [f64; 4] {
    [-q[0], -q[1], -q[2], q[3]]
}

/// The Hamilton product `a ⊗ b` of (x, y, z, w) quaternions.
fn mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

fn normalised(q: [f64; 4]) -> [f64; 4] {
    let len = dot(q, q).sqrt();
    if len > 0.0 {
        q.map(|v| v / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// The `CLPA` payload of `reference` (`docs/extensions.md` §5.2), with `name_id` the
/// string-table id of the reference clip's name (ignored for the bind pose).
pub fn encode(reference: &Reference, name_id: u32) -> [u8; PAYLOAD_SIZE] {
    let (kind, id, time) = match reference {
        Reference::BindPose => (0u32, NO_NAME, 0.0f32),
        Reference::ClipFrame { time, .. } => (1, name_id, *time + 0.0),
    };
    let mut b = [0u8; PAYLOAD_SIZE];
    b[0..4].copy_from_slice(&kind.to_le_bytes());
    b[4..8].copy_from_slice(&id.to_le_bytes());
    b[8..12].copy_from_slice(&time.to_le_bytes());
    b
}

/// What is wrong with a `CLPA` payload, by field and offset within it.
#[derive(Debug, Clone, PartialEq)]
pub struct PayloadError {
    /// Offset within the payload.
    pub offset: usize,
    /// The field.
    pub field: &'static str,
    /// The rule broken.
    pub reason: String,
}

/// The fields of a `CLPA` payload: the reference kind with, for a clip frame, the
/// name id (to be resolved by the caller) and the time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Parsed {
    /// The bind pose.
    BindPose,
    /// A clip frame: the reference clip's name id and the time.
    ClipFrame(u32, f32),
}

/// Parses a `CLPA` payload strictly (size, kind, name id, time, reserved).
pub fn parse(payload: &[u8]) -> Result<Parsed, PayloadError> {
    let err = |offset, field, reason: &str| PayloadError {
        offset,
        field,
        reason: reason.to_string(),
    };
    if payload.len() != PAYLOAD_SIZE {
        return Err(err(0, "size", "a CLPA payload is 16 bytes"));
    }
    let word = |at: usize| {
        u32::from_le_bytes([
            payload[at],
            payload[at + 1],
            payload[at + 2],
            payload[at + 3],
        ])
    };
    let (kind, id, time, reserved) = (word(0), word(4), f32::from_bits(word(8)), word(12));
    if reserved != 0 {
        return Err(err(12, "reserved", "not 0"));
    }
    match kind {
        0 if id != NO_NAME => Err(err(
            4,
            "referenceClipNameId",
            "not 0xFFFFFFFF with the bind pose",
        )),
        0 if time.to_bits() != 0 => Err(err(8, "referenceTime", "not 0 with the bind pose")),
        0 => Ok(Parsed::BindPose),
        1 if !time.is_finite() || time < 0.0 => Err(err(
            8,
            "referenceTime",
            "not a finite, non-negative number of seconds",
        )),
        1 => Ok(Parsed::ClipFrame(id, time)),
        _ => Err(err(
            0,
            "referenceKind",
            "neither 0 (bind pose) nor 1 (clip frame)",
        )),
    }
}

/// The rules of an additive clip (`docs/extensions.md` §5.3): not compressed, a
/// track for every bone (a bone without one would take its bind pose, which is no
/// delta), a valid reference. Nothing for a clip that is not additive.
pub fn check_clip(model: &Model, index: usize) -> Result<(), WriteError> {
    let Some(clip) = model.clips.get(index) else {
        return Ok(());
    };
    let Some(reference) = &clip.extras.additive else {
        return Ok(());
    };
    let invalid = |field: &'static str, reason: String| WriteError::Invalid {
        item: Item::Clip(index),
        name: clip.name.clone(),
        field,
        reason,
    };
    if clip.compressed.is_some() {
        return Err(invalid(
            "compressed",
            "an additive clip is stored as keys, not compressed".into(),
        ));
    }
    if clip.tracks.len() != model.skeleton.bones.len() {
        return Err(invalid(
            "trackCount",
            format!(
                "an additive clip tracks every bone: {} tracks for {} bones",
                clip.tracks.len(),
                model.skeleton.bones.len()
            ),
        ));
    }
    if let Reference::ClipFrame { clip: name, time } = reference {
        if name.as_bytes().contains(&0) {
            return Err(invalid(
                "referenceClipNameId",
                "the reference clip's name contains a NUL byte".into(),
            ));
        }
        if !time.is_finite() || *time < 0.0 {
            return Err(invalid(
                "referenceTime",
                format!("{time} is not a finite, non-negative number of seconds"),
            ));
        }
    }
    Ok(())
}
