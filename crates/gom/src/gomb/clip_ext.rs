//! The chunks that follow a clip's `CLP0` inside `ANIM` for the clip extensions of
//! [`crate::ClipExtras`]: `CLPA` (additive reference, `docs/extensions.md` §5) and
//! `EVNT` (float tracks and events, §6).
//! The reader attaches them to their clip; the writer's helpers say which chunks,
//! strings and flag bits a clip adds.

use super::cursor::{check_known, rule, Chunk};
use super::mesh::MeshCtx;
use super::view::ClipView;
use crate::additive::{self, Parsed, Reference, CLIP_FLAG_ADDITIVE};
use crate::error::{FourCc, Place, ReadError, ReadErrorKind};
use crate::events;
use crate::model::{Clip, ClipFlags};

/// The extension bits of a clip's `CLP0.flags` besides v1's (additive).
pub(super) fn flags(c: &Clip) -> ClipFlags {
    if c.extras.additive.is_some() {
        CLIP_FLAG_ADDITIVE
    } else {
        ClipFlags::empty()
    }
}

/// The strings the clip's extension chunks name, in the order they are written.
pub(super) fn strings(c: &Clip) -> Vec<&str> {
    let mut v = match &c.extras.additive {
        Some(Reference::ClipFrame { clip, .. }) => vec![clip.as_str()],
        _ => Vec::new(),
    };
    v.extend(events::strings(&c.extras.float_tracks, &c.extras.events));
    v
}

/// The extension chunks after the clip's `CLP0`, each FourCC with its payload;
/// `id` gives a string's STR0 index.
pub(super) fn chunks(c: &Clip, id: impl Fn(&str) -> u32) -> Vec<(FourCc, Vec<u8>)> {
    let mut out = Vec::new();
    if let Some(r) = &c.extras.additive {
        let name = match r {
            Reference::ClipFrame { clip, .. } => id(clip),
            Reference::BindPose => additive::NO_NAME,
        };
        out.push((FourCc::CLPA, additive::encode(r, name).to_vec()));
    }
    let x = &c.extras;
    if !x.float_tracks.is_empty() || !x.events.is_empty() {
        out.push((FourCc::EVNT, events::encode(&x.float_tracks, &x.events, id)));
    }
    out
}

/// An additive CLP0 (flags bit 4) not followed by its CLPA.
pub(super) fn missing_clpa(clip: &ClipView<'_>) -> ReadError {
    ReadError {
        offset: clip.offset,
        place: Place::Chunk(FourCc::CLP0),
        field: "CLPA",
        kind: ReadErrorKind::Missing,
    }
}

/// Reads the `CLPA` chunk `ch` into `clip`'s extras: a clip whose CLP0 sets bit 4
/// and tracks every bone.
pub(super) fn read_clpa(
    file: &[u8],
    ch: &Chunk,
    clip: &mut ClipView<'_>,
    ctx: &mut MeshCtx<'_, '_>,
) -> Result<(), ReadError> {
    check_known(ch)?;
    let place = ch.place();
    let base = ch.payload();
    let rule = |offset, field, reason| rule(offset, place, field, reason);
    let payload = &file[base..ch.payload_end()];
    let parsed = additive::parse(payload).map_err(|e| rule(base + e.offset, e.field, e.reason))?;
    let bones = ctx.skeleton.bone_count as usize;
    if clip.tracks.len() != bones {
        return Err(ReadError {
            offset: clip.offset + 16 + 20,
            place: Place::Chunk(FourCc::CLP0),
            field: "trackCount",
            kind: ReadErrorKind::Rule {
                reason: format!(
                    "an additive clip tracks every bone: {} tracks for {bones} bones",
                    clip.tracks.len()
                ),
            },
        });
    }
    clip.extras.additive = Some(match parsed {
        Parsed::BindPose => Reference::BindPose,
        Parsed::ClipFrame(id, time) => {
            ctx.name(id, base + 4, place, "referenceClipNameId")?;
            Reference::ClipFrame {
                clip: ctx.strings.get(id).unwrap_or_default().to_owned(),
                time,
            }
        }
    });
    Ok(())
}

/// A string id of an `EVNT` field, checked and counted; its string.
fn evnt_string(
    ctx: &mut MeshCtx<'_, '_>,
    id: u32,
    at: usize,
    field: &'static str,
) -> Result<String, ReadError> {
    ctx.name(id, at, Place::Chunk(FourCc::EVNT), field)?;
    Ok(ctx.strings.get(id).unwrap_or_default().to_owned())
}

/// Reads the `EVNT` chunk `ch` into `clip`'s float tracks and events
/// (`docs/extensions.md` §6.2): every count checked against its limit and the bytes
/// present before anything is allocated, every rule at its field's offset.
pub(super) fn read_evnt(
    file: &[u8],
    ch: &Chunk,
    clip: &mut ClipView<'_>,
    ctx: &mut MeshCtx<'_, '_>,
) -> Result<(), ReadError> {
    check_known(ch)?;
    let place = ch.place();
    let rule = |at, field, reason| rule(at, place, field, reason);
    let mut cur = ch.cur(file);
    let track_count = cur.u32_at_most("floatTrackCount", events::MAX_FLOAT_TRACKS)?;
    let event_count = cur.u32_at_most("eventCount", events::MAX_EVENTS)?;
    cur.reserved(8, "reserved")?;
    // Each float track takes at least 20 bytes, each event 16.
    let least = u64::from(track_count) * 20 + u64::from(event_count) * 16;
    if least > cur.remaining() as u64 {
        cur.take(least, "floatTracks")?;
    }
    let duration = clip.duration;
    let within = |t: f32| (0.0..=duration).contains(&t);
    let mut tracks = Vec::with_capacity(track_count as usize);
    let mut total_keys = 0u32;
    for _ in 0..track_count {
        let at = cur.pos;
        let name = evnt_string(ctx, cur.u32("nameId")?, at, "nameId")?;
        let components = cur.u32("components")?;
        if !(1..=4).contains(&components) {
            return Err(rule(
                at + 4,
                "components",
                format!("{components}, not 1 to 4"),
            ));
        }
        let code = cur.u32("interpolation")?;
        let interpolation = events::Interpolation::from_code(code).ok_or(ReadError {
            offset: at as u64 + 8,
            place,
            field: "interpolation",
            kind: ReadErrorKind::UnknownEnum { value: code },
        })?;
        let kc_at = cur.pos;
        let keys = cur.u32("keyCount")?;
        total_keys = total_keys.saturating_add(keys);
        if keys == 0 || total_keys > events::MAX_FLOAT_KEYS {
            return Err(rule(
                kc_at,
                "keyCount",
                format!(
                    "{keys} keys: a float track has 1 or more, {} at most in a clip",
                    events::MAX_FLOAT_KEYS
                ),
            ));
        }
        let t_at = cur.pos;
        let times = floats(cur.floats(u64::from(keys), "times")?);
        if let Some(k) =
            (0..times.len()).find(|&k| !within(times[k]) || (k > 0 && times[k] <= times[k - 1]))
        {
            return Err(rule(t_at + 4 * k, "times", format!("key {k} of float track \"{name}\" is not after the previous one within [0, {duration}]")));
        }
        let values = floats(cur.floats(u64::from(keys) * u64::from(components), "values")?);
        tracks.push(events::FloatTrack {
            name,
            components,
            interpolation,
            times,
            values,
        });
    }
    let mut list = Vec::with_capacity(event_count as usize);
    let mut prev = 0.0f32;
    for i in 0..event_count {
        let at = cur.pos;
        let time = cur.f32("time")?;
        if !within(time) || time < prev {
            return Err(rule(
                at,
                "time",
                format!("event {i} at {time} is not in time order within [0, {duration}]"),
            ));
        }
        prev = time;
        let name = evnt_string(ctx, cur.u32("nameId")?, at + 4, "nameId")?;
        let payload = match cur.u32("payloadId")? {
            events::NO_PAYLOAD => None,
            id => Some(evnt_string(ctx, id, at + 8, "payloadId")?),
        };
        cur.reserved(4, "reserved")?;
        list.push(events::Event {
            time,
            name,
            payload,
        });
    }
    cur.finish("events")?;
    clip.extras.float_tracks = tracks;
    clip.extras.events = list;
    Ok(())
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|w| f32::from_bits(super::cursor::le32(w)))
        .collect()
}
