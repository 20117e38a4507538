//! ANIM and its CLP0 children (D9).

use super::clip_ext;
use super::cursor::{check_known, le32, Chunk, Chunks};
use super::mesh::MeshCtx;
use super::to_model::decode_key;
use super::view::{misplaced, ClipView, TrackView};
use super::UnknownChunk;
use crate::additive::CLIP_FLAG_ADDITIVE;
use crate::compressed::{Layout, CLIP_FLAG_COMPRESSED};
use crate::error::{FourCc, Place, ReadError, ReadErrorKind};
use crate::limits::{MAX_CLIPS, MAX_KEYS_PER_CLIP, MAX_TRACKS};
use crate::model::ClipFlags;
use crate::morph::CLIP_FLAG_WEIGHT_TRACKS;
use crate::validate::{clip_structure, finite_bits, key_structure, track_bone_structure};

/// Bytes of one key in the file.
pub(crate) const KEY_SIZE: usize = 44;
/// The smallest track: its header and one key.
const MIN_TRACK: u64 = 8 + KEY_SIZE as u64;

pub(crate) fn parse_anim<'a>(
    file: &'a [u8],
    c: &Chunk,
    ctx: &mut MeshCtx<'_, 'a>,
    unknown: &mut Vec<UnknownChunk>,
) -> Result<Vec<ClipView<'a>>, ReadError> {
    let place = c.place();
    if !c.size.is_multiple_of(16) {
        return Err(ReadError {
            offset: c.offset as u64 + 4,
            place,
            field: "size",
            kind: ReadErrorKind::Value {
                value: u64::from(c.size),
                expected: "a multiple of 16 (ANIM is a container)",
            },
        });
    }
    let mut cur = c.cur(file);
    let count_at = cur.pos;
    let clip_count = cur.u32_at_most("clipCount", MAX_CLIPS)?;
    let pad_at = cur.pos;
    let pad = cur.take(12, "padding")?;
    if let Some(k) = pad.iter().position(|&b| b != 0) {
        return Err(ReadError {
            offset: (pad_at + k) as u64,
            place,
            field: "fixed-field padding",
            kind: ReadErrorKind::Padding,
        });
    }
    let mut clips: Vec<ClipView<'a>> = Vec::new();
    // The compressed clip waiting for its CLPZ, which must come right after it.
    let mut waiting: Option<usize> = None;
    // Per clip, whether its CLP0 sets bit 3 and its MWGT is still to come.
    let mut needs: Vec<bool> = Vec::new();
    // The additive clip waiting for its CLPA, which must come right after it.
    let mut waiting_additive: Option<usize> = None;
    // Whether an EVNT may follow: after a CLP0 (and its CLPZ or CLPA), once.
    let mut evnt_allowed = false;
    for ch in Chunks::new(file, cur.pos, c.payload_end(), place) {
        let ch = ch?;
        if let Some(i) = waiting_additive.take() {
            if ch.fourcc != FourCc::CLPA {
                return Err(clip_ext::missing_clpa(&clips[i]));
            }
            clip_ext::read_clpa(file, &ch, &mut clips[i], ctx)?;
            continue;
        }
        if let Some(i) = waiting.take() {
            if ch.fourcc != FourCc::CLPZ {
                return Err(missing_clpz(&clips[i]));
            }
            check_known(&ch)?;
            let payload = &file[ch.payload()..ch.payload_end()];
            let layout = Layout::parse(payload, ch.payload() as u64, ctx.skeleton.bone_count)?;
            clips[i].compressed = Some((layout, payload));
            continue;
        }
        match ch.fourcc {
            FourCc::CLPZ => return Err(misplaced(&ch, "other than right after a compressed CLP0")),
            FourCc::CLPA => return Err(misplaced(&ch, "other than right after an additive CLP0")),
            FourCc::EVNT => {
                let Some(clip) = clips.last_mut().filter(|_| evnt_allowed) else {
                    return Err(misplaced(&ch, "other than after a CLP0 (once)"));
                };
                evnt_allowed = false;
                clip_ext::read_evnt(file, &ch, clip, ctx)?;
            }
            FourCc::CLP0 => {
                check_known(&ch)?;
                evnt_allowed = true;
                if clips.len() >= clip_count as usize {
                    return Err(ReadError {
                        offset: count_at as u64,
                        place,
                        field: "clipCount",
                        kind: ReadErrorKind::Value {
                            value: u64::from(clip_count),
                            expected: "the number of CLP0 children",
                        },
                    });
                }
                let (clip, compressed, additive) = parse_clip(file, &ch, ctx)?;
                if compressed {
                    waiting = Some(clips.len());
                }
                if additive {
                    waiting_additive = Some(clips.len());
                }
                needs.push(clip.flags.contains(CLIP_FLAG_WEIGHT_TRACKS));
                clips.push(ClipView {
                    flags: clip.flags.difference(CLIP_FLAG_WEIGHT_TRACKS),
                    ..clip
                });
            }
            FourCc::STR0
            | FourCc::SKEL
            | FourCc::MATL
            | FourCc::MSH0
            | FourCc::ANIM
            | FourCc::VB0
            | FourCc::IB0
            | FourCc::SUB0
            | FourCc::IBND
            | FourCc::BND0
            | FourCc::GBTM
            | FourCc::SKNX
            | FourCc::MRPH => return Err(misplaced(&ch, "inside ANIM")),
            FourCc::MWGT => {
                check_known(&ch)?;
                weights(file, &ch, &mut clips, &mut needs)?;
            }
            f => unknown.push(UnknownChunk {
                fourcc: f.0,
                offset: ch.offset as u64,
                size: ch.size,
                parent: Some(FourCc::ANIM.0),
            }),
        }
    }
    if let Some(i) = waiting {
        return Err(missing_clpz(&clips[i]));
    }
    if let Some(i) = waiting_additive {
        return Err(clip_ext::missing_clpa(&clips[i]));
    }
    if let Some(i) = needs.iter().position(|&n| n) {
        return Err(ReadError {
            offset: clips[i].offset,
            place: Place::Chunk(FourCc::CLP0),
            field: "MWGT",
            kind: ReadErrorKind::Missing,
        });
    }
    if clips.len() != clip_count as usize {
        return Err(ReadError {
            offset: count_at as u64,
            place,
            field: "clipCount",
            kind: ReadErrorKind::Value {
                value: u64::from(clip_count),
                expected: "the number of CLP0 children",
            },
        });
    }
    Ok(clips)
}

/// A clip's `MWGT`: it follows a CLP0 with flags bit 3 (after that clip's CLPZ, if
/// any), once.
fn weights<'a>(
    file: &'a [u8],
    ch: &Chunk,
    clips: &mut [ClipView<'a>],
    needs: &mut [bool],
) -> Result<(), ReadError> {
    let (Some(clip), Some(need)) = (clips.last_mut(), needs.last_mut()) else {
        return Err(misplaced(ch, "before any CLP0"));
    };
    if !*need {
        return Err(misplaced(
            ch,
            "after a CLP0 without flags bit 3 (weight tracks), or twice after one",
        ));
    }
    *need = false;
    clip.weight_tracks = super::morph::parse_tracks(file, ch, clip.duration)?;
    Ok(())
}

/// A compressed CLP0 (flags bit 1) not followed by its CLPZ.
fn missing_clpz(clip: &ClipView<'_>) -> ReadError {
    ReadError {
        offset: clip.offset,
        place: Place::Chunk(FourCc::CLP0),
        field: "CLPZ",
        kind: ReadErrorKind::Missing,
    }
}

/// One CLP0, whether it is compressed (its samples in the CLPZ after it) and whether
/// it is additive (its reference in the CLPA after it).
fn parse_clip<'a>(
    file: &'a [u8],
    c: &Chunk,
    ctx: &mut MeshCtx<'_, 'a>,
) -> Result<(ClipView<'a>, bool, bool), ReadError> {
    let place = c.place();
    let mut cur = c.cur(file);
    let base = cur.pos;
    let name_id = cur.u32("clipNameId")?;
    ctx.name(name_id, base, place, "clipNameId")?;
    let duration = cur.f32("duration")?;
    let sample_rate = cur.f32("sampleRate")?;
    let root_bone_index = cur.i32("rootBoneIndex")?;
    let flags_at = cur.pos;
    let raw_flags = cur.u32("flags")?;
    // Bit 1 belongs to the compressed-clip extension; the v1 rules see the rest.
    let raw = ClipFlags::from_bits_retain(raw_flags);
    let compressed = raw.contains(CLIP_FLAG_COMPRESSED);
    let additive = raw.contains(CLIP_FLAG_ADDITIVE);
    if compressed && additive {
        return Err(ReadError {
            offset: flags_at as u64,
            place,
            field: "flags",
            kind: ReadErrorKind::Rule {
                reason: "bits 1 (compressed) and 4 (additive) are both set; an additive clip is stored as keys".into(),
            },
        });
    }
    // Bit 3 belongs to the weight-track extension: kept for the caller, unseen by
    // the v1 rules.
    let weights = raw & CLIP_FLAG_WEIGHT_TRACKS;
    let flags = raw.difference(CLIP_FLAG_COMPRESSED | CLIP_FLAG_ADDITIVE | CLIP_FLAG_WEIGHT_TRACKS);
    let tc_at = cur.pos;
    let track_count = cur.u32("trackCount")?;
    if compressed && track_count != 0 {
        return Err(ReadError {
            offset: flags_at as u64,
            place,
            field: "flags",
            kind: ReadErrorKind::Rule {
                reason: format!(
                    "bit 1 (compressed) is set while the CLP0 holds {track_count} tracks; a compressed clip's CLP0 holds none"
                ),
            },
        });
    }
    let bone_count = ctx.skeleton.bone_count;
    if let Some((field, reason)) =
        clip_structure(duration, sample_rate, root_bone_index, flags, bone_count)
    {
        let off = match field {
            "duration" => 4,
            "sampleRate" => 8,
            "rootBoneIndex" => 12,
            _ => 16,
        };
        return Err(ReadError {
            offset: (base + off) as u64,
            place,
            field,
            kind: ReadErrorKind::Rule {
                reason: reason.into(),
            },
        });
    }
    if track_count > MAX_TRACKS {
        return Err(ReadError {
            offset: tc_at as u64,
            place,
            field: "trackCount",
            kind: ReadErrorKind::Limit {
                value: u64::from(track_count),
                limit: u64::from(MAX_TRACKS),
            },
        });
    }
    // Every track holds at least one key: reserve only for the tracks the bytes
    // present can hold; each field is then checked as it is read.
    let fit = (cur.remaining() as u64 / MIN_TRACK).min(u64::from(track_count));
    let mut tracks = Vec::with_capacity(fit as usize);
    let mut total_keys = 0u32;
    let mut prev_bone = None;
    for _ in 0..track_count {
        let t_at = cur.pos;
        let bone = cur.i32("boneIndex")?;
        if let Some(reason) = track_bone_structure(i64::from(bone), prev_bone, bone_count) {
            return Err(ReadError {
                offset: t_at as u64,
                place,
                field: "boneIndex",
                kind: ReadErrorKind::Rule {
                    reason: reason.into(),
                },
            });
        }
        prev_bone = Some(i64::from(bone));
        let kc_at = cur.pos;
        let key_count = cur.u32("keyCount")?;
        if key_count == 0 {
            return Err(ReadError {
                offset: kc_at as u64,
                place,
                field: "keyCount",
                kind: ReadErrorKind::Rule {
                    reason: "a track has no keys".into(),
                },
            });
        }
        total_keys = total_keys.saturating_add(key_count);
        if total_keys > MAX_KEYS_PER_CLIP {
            return Err(ReadError {
                offset: kc_at as u64,
                place,
                field: "keyCount",
                kind: ReadErrorKind::Limit {
                    value: u64::from(total_keys),
                    limit: u64::from(MAX_KEYS_PER_CLIP),
                },
            });
        }
        let keys_at = cur.pos;
        let key_data = cur.take(u64::from(key_count) * KEY_SIZE as u64, "keys")?;
        let mut prev_time = None;
        for (k, kb) in key_data.chunks_exact(KEY_SIZE).enumerate() {
            let at = keys_at + k * KEY_SIZE;
            if let Some(w) = kb.chunks_exact(4).position(|w| !finite_bits(le32(w))) {
                let field = match w {
                    0 => "time",
                    1..=3 => "translation",
                    4..=7 => "rotation",
                    _ => "scale",
                };
                return Err(ReadError {
                    offset: (at + 4 * w) as u64,
                    place,
                    field,
                    kind: ReadErrorKind::NotFinite,
                });
            }
            let key = decode_key(kb);
            if let Some((field, reason)) = key_structure(&key, prev_time, duration) {
                let off = if field == "time" { 0 } else { 16 };
                return Err(ReadError {
                    offset: (at + off) as u64,
                    place,
                    field,
                    kind: ReadErrorKind::Rule {
                        reason: format!("key {k} of bone {bone}: {reason}"),
                    },
                });
            }
            prev_time = Some(key.time);
        }
        tracks.push(TrackView {
            bone: bone as u32,
            key_count,
            key_data,
        });
    }
    cur.finish("tracks")?;
    if compressed && sample_rate <= 0.0 {
        return Err(ReadError {
            offset: (base + 8) as u64,
            place,
            field: "sampleRate",
            kind: ReadErrorKind::Rule {
                reason: "a compressed clip's sample rate is not positive".into(),
            },
        });
    }
    let clip = ClipView {
        name: ctx.strings.get(name_id).unwrap_or_default(),
        duration,
        sample_rate,
        root_bone_index,
        flags: flags | weights,
        tracks,
        offset: c.offset as u64,
        compressed: None,
        weight_tracks: Vec::new(),
        extras: Default::default(),
    };
    Ok((clip, compressed, additive))
}
