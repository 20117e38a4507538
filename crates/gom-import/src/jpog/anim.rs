//! Animations and their keyframe library into GOM clips: one key per stored key, values
//! looked up in the `.tkl`, axes changed.

use gom::{Clip, ClipFlags, Key, Track};
use jpog::{Tkl, Tmd};

use super::axes::Basis;
use super::error::JpogImportError;
use super::skeleton::Skeleton;
use crate::report::{ClipReport, Report};

/// How a channel whose flags are 3 (bits 0 and 1) is read; the meaning of bit 1 is open.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ChannelFlag3Reading {
    /// Translation and rotation keys are both used, as the engine of a later game on
    /// the same engine does (the default).
    #[default]
    TranslationAndRotation,
    /// Translation keys only; the rotation holds the node's rest rotation, as one public
    /// tool reads it.
    TranslationOnly,
}

impl ChannelFlag3Reading {
    /// The option's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            ChannelFlag3Reading::TranslationAndRotation => "translation-and-rotation",
            ChannelFlag3Reading::TranslationOnly => "translation-only",
        }
    }

    /// The reading named `name` (as [`ChannelFlag3Reading::name`] gives it, any case).
    pub fn from_name(name: &str) -> Option<ChannelFlag3Reading> {
        match name.to_ascii_lowercase().as_str() {
            "translation-and-rotation" => Some(ChannelFlag3Reading::TranslationAndRotation),
            "translation-only" => Some(ChannelFlag3Reading::TranslationOnly),
            _ => None,
        }
    }
}

/// Per-animation facts the report mentions.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct AnimNotes {
    /// Clips whose name ends in "_lp": the game loops them.
    pub looping: Vec<String>,
    /// Channels with flags 3, read as the option says.
    pub flag3_channels: usize,
    /// Rotations that were not unit length and were normalised.
    pub normalised_rotations: usize,
}

struct Ctx<'a> {
    file: &'a str,
    tkl_file: &'a str,
    tkl: &'a Tkl,
}

impl Ctx<'_> {
    fn invalid(&self, record: String, problem: impl Into<String>) -> JpogImportError {
        JpogImportError::Invalid {
            file: self.file.to_string(),
            record,
            problem: problem.into(),
        }
    }

    fn location(&self, record: &str, i: u16) -> Result<[f32; 3], JpogImportError> {
        let v = self.tkl.locations.get(usize::from(i)).ok_or_else(|| {
            self.invalid(
                record.to_string(),
                format!(
                    "locIndex {i} but the keyframe library {} has {} translations",
                    self.tkl_file,
                    self.tkl.locations.len()
                ),
            )
        })?;
        if !v.iter().all(|x| x.is_finite()) {
            return Err(self.invalid(
                record.to_string(),
                format!("translation {i} of {} is not finite", self.tkl_file),
            ));
        }
        Ok(*v)
    }

    fn rotation(&self, record: &str, i: u16) -> Result<[f32; 4], JpogImportError> {
        let q = self.tkl.rotations.get(usize::from(i)).ok_or_else(|| {
            self.invalid(
                record.to_string(),
                format!(
                    "rotIndex {i} but the keyframe library {} has {} rotations",
                    self.tkl_file,
                    self.tkl.rotations.len()
                ),
            )
        })?;
        if !q.iter().all(|x| x.is_finite()) {
            return Err(self.invalid(
                record.to_string(),
                format!("rotation {i} of {} is not finite", self.tkl_file),
            ));
        }
        Ok(*q)
    }
}

/// A unit quaternion: unchanged when its length is 1 within 1e-5, normalised otherwise
/// (counted); `None` when it has no length.
fn unit(q: [f32; 4], normalised: &mut usize) -> Option<[f32; 4]> {
    let len2: f64 = q.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
    if (len2.sqrt() - 1.0).abs() <= 1e-5 {
        return Some(q);
    }
    if len2 < 1e-12 || !len2.is_finite() {
        return None;
    }
    *normalised += 1;
    let l = len2.sqrt();
    Some(q.map(|v| (f64::from(v) / l) as f32 + 0.0))
}

/// Converts every animation of `tmd` into a clip, with keys from `tkl`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn convert(
    file: &str,
    tmd: &Tmd,
    tkl: &Tkl,
    tkl_file: &str,
    skeleton: &Skeleton,
    basis: &Basis,
    flag3: ChannelFlag3Reading,
    report: &mut Report,
) -> Result<(Vec<Clip>, AnimNotes), JpogImportError> {
    let ctx = Ctx {
        file,
        tkl_file,
        tkl,
    };
    let mut notes = AnimNotes::default();
    let mut clips: Vec<Clip> = Vec::with_capacity(tmd.animations.len());
    for (ai, a) in tmd.animations.iter().enumerate() {
        let arec = format!("animation {ai} \"{}\"", a.name());
        if !(a.duration.is_finite() && a.duration >= 0.0) {
            return Err(ctx.invalid(
                arec,
                format!(
                    "duration {} is not a finite, non-negative number of seconds",
                    a.duration
                ),
            ));
        }
        let mut duration = a.duration;
        let mut tracks = Vec::new();
        let mut keys_total = 0u64;
        let mut max_keys = 0usize;
        let mut dropped_keys = 0usize;
        for (bone, &node) in skeleton.bone_node.iter().enumerate() {
            let Some(ch) = a.channels.get(node) else {
                continue;
            };
            if ch.keys.is_empty() {
                continue;
            }
            let translation_used = ch.flags & 1 != 0;
            let rotation_used = !(ch.flags == 3 && flag3 == ChannelFlag3Reading::TranslationOnly);
            if ch.flags == 3 {
                notes.flag3_channels += 1;
            }
            let mut keys: Vec<Key> = Vec::with_capacity(ch.keys.len());
            for (ki, k) in ch.keys.iter().enumerate() {
                let rec = format!("{arec} channel {node} key {ki}");
                if !(k.time.is_finite() && k.time >= 0.0) {
                    return Err(ctx.invalid(
                        rec,
                        format!(
                            "time {} is not a finite, non-negative number of seconds",
                            k.time
                        ),
                    ));
                }
                if let Some(prev) = keys.last() {
                    if k.time < prev.time {
                        return Err(ctx.invalid(
                            rec,
                            format!(
                                "time {} comes before the previous key's {}",
                                k.time, prev.time
                            ),
                        ));
                    }
                    if k.time == prev.time {
                        dropped_keys += 1;
                        continue;
                    }
                }
                let translation = if translation_used {
                    basis.vector(ctx.location(&rec, k.loc_index)?)
                } else {
                    skeleton.rest_translation[node]
                };
                let rotation = if rotation_used {
                    let q = unit(
                        ctx.rotation(&rec, k.rot_index)?,
                        &mut notes.normalised_rotations,
                    )
                    .ok_or_else(|| {
                        ctx.invalid(
                            rec.clone(),
                            format!("rotation {} has no length", k.rot_index),
                        )
                    })?;
                    basis.quat(q)
                } else {
                    skeleton.rest_rotation[node]
                };
                if k.time > duration {
                    duration = k.time;
                }
                keys.push(Key {
                    time: k.time + 0.0,
                    translation,
                    rotation,
                    scale: [1.0; 3],
                });
            }
            keys_total += keys.len() as u64;
            max_keys = max_keys.max(keys.len());
            tracks.push(Track {
                bone: bone as u32,
                keys,
            });
        }
        if duration > a.duration {
            report.warn(format!(
                "{arec}: keys run to {duration} s, past the stored duration {} s; the clip lasts {duration} s",
                a.duration
            ));
        }
        if dropped_keys > 0 {
            report.warn(format!(
                "{arec}: {dropped_keys} key(s) repeat the previous key's time and were dropped"
            ));
        }
        if a.overlay != 0 {
            report.warn(format!(
                "{arec}: overlay field is {} (likely an additive/overlay animation); converted as a plain clip",
                a.overlay
            ));
        }
        let mut name = a.name();
        if name.is_empty() {
            name = format!("animation{ai}");
        }
        if clips.iter().any(|c| c.name == name) {
            let mut k = 2;
            while clips.iter().any(|c| c.name == format!("{name}#{k}")) {
                k += 1;
            }
            report.warn(format!(
                "{arec}: another animation has the same name; this clip is named \"{name}#{k}\""
            ));
            name = format!("{name}#{k}");
        }
        if a.is_looping() {
            notes.looping.push(name.clone());
        }
        let sample_rate = if duration > 0.0 && max_keys > 1 {
            ((max_keys - 1) as f64 / f64::from(duration)) as f32
        } else {
            0.0
        };
        report.clips.push(ClipReport {
            name: name.clone(),
            duration,
            tracks: tracks.len(),
            keys_before: keys_total,
            keys_after: keys_total,
        });
        clips.push(Clip {
            weight_tracks: Vec::new(),
            name,
            duration,
            sample_rate,
            root_bone_index: -1,
            flags: ClipFlags::default(),
            tracks,
            compressed: None,
            extras: Default::default(),
        });
    }
    if notes.normalised_rotations > 0 {
        report.warn(format!(
            "{} key rotation(s) of {tkl_file} were not unit length and were normalised",
            notes.normalised_rotations
        ));
    }
    Ok((clips, notes))
}
