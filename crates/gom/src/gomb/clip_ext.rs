//! The chunks that follow a clip's `CLP0` inside `ANIM` for the clip extensions of
//! [`crate::ClipExtras`]: `CLPA` (additive reference, `docs/extensions.md` §4).
//! The reader attaches them to their clip; the writer's helpers say which chunks,
//! strings and flag bits a clip adds.

use super::cursor::{check_known, Chunk};
use super::mesh::MeshCtx;
use super::view::ClipView;
use crate::additive::{self, Parsed, Reference, CLIP_FLAG_ADDITIVE};
use crate::error::{FourCc, Place, ReadError, ReadErrorKind};
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
    match &c.extras.additive {
        Some(Reference::ClipFrame { clip, .. }) => vec![clip.as_str()],
        _ => Vec::new(),
    }
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
    out
}

/// An additive CLP0 (flags bit 3) not followed by its CLPA.
pub(super) fn missing_clpa(clip: &ClipView<'_>) -> ReadError {
    ReadError {
        offset: clip.offset,
        place: Place::Chunk(FourCc::CLP0),
        field: "CLPA",
        kind: ReadErrorKind::Missing,
    }
}

/// Reads the `CLPA` chunk `ch` into `clip`'s extras: a clip whose CLP0 sets bit 3
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
    let rule = |offset: usize, field: &'static str, reason: String| ReadError {
        offset: offset as u64,
        place,
        field,
        kind: ReadErrorKind::Rule { reason },
    };
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
