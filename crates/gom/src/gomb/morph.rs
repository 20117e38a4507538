//! `MRPH` (a mesh's morph targets, inside MSH0) and `MWGT` (a clip's weight tracks,
//! inside ANIM after its CLP0): the blend-shape extension of `docs/extensions.md` §4.
//! Every count is checked against the bytes present before anything is allocated.

use super::cursor::{le32, lef32, rule, value, Chunk, Cur};
use crate::error::{FourCc, Place, ReadError, ReadErrorKind};
use crate::limits::{MAX_KEYS_PER_CLIP, MAX_MORPH_DELTAS, MAX_MORPH_TARGETS, MAX_WEIGHT_TRACKS};
use crate::morph::{
    delta_ok, indices_rule, key_rule, name_rule, weight_ok, MorphTarget, WeightInterpolation,
    WeightKey, WeightTrack, ATTR_NORMALS, ATTR_TANGENTS,
};

/// One morph target as it lies in the file: little-endian arrays of `delta_count`
/// entries (indices u32, deltas f32×3).
#[derive(Debug, Clone, Copy)]
pub struct TargetView<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its default weight.
    pub default_weight: f32,
    /// Number of vertices it moves.
    pub delta_count: u32,
    /// `delta_count × 4` bytes: the vertex indices, strictly ascending.
    pub indices: &'a [u8],
    /// `delta_count × 12` bytes: position deltas.
    pub positions: &'a [u8],
    /// `delta_count × 12` bytes: normal deltas, when the mesh's targets have them.
    pub normals: Option<&'a [u8]>,
    /// `delta_count × 12` bytes: tangent deltas, when the mesh's targets have them.
    pub tangents: Option<&'a [u8]>,
}

impl TargetView<'_> {
    /// The target as a model value.
    pub fn to_target(&self) -> MorphTarget {
        let v3 = |b: &[u8]| -> Vec<[f32; 3]> {
            b.chunks_exact(12)
                .map(|c| [lef32(c), lef32(&c[4..]), lef32(&c[8..])])
                .collect()
        };
        MorphTarget {
            name: self.name.to_owned(),
            default_weight: self.default_weight,
            indices: self.indices.chunks_exact(4).map(le32).collect(),
            positions: v3(self.positions),
            normals: self.normals.map(v3),
            tangents: self.tangents.map(v3),
        }
    }
}

/// One weight track as it lies in the file.
#[derive(Debug, Clone, Copy)]
pub struct WeightTrackView<'a> {
    /// Index of the mesh.
    pub mesh: u32,
    /// Index of the target in that mesh.
    pub target: u32,
    /// How the keys are joined.
    pub interpolation: WeightInterpolation,
    /// `key_count × 8` bytes: (time, weight) pairs of f32.
    pub keys: &'a [u8],
    /// File offset of the track's `meshIndex`, for errors found once the meshes are
    /// known.
    pub(crate) offset: u64,
}

impl WeightTrackView<'_> {
    /// The keys as model values.
    pub fn to_keys(&self) -> Vec<WeightKey> {
        self.keys
            .chunks_exact(8)
            .map(|c| WeightKey {
                time: lef32(c),
                weight: lef32(&c[4..]),
            })
            .collect()
    }

    /// The track as a model value.
    pub fn to_track(&self) -> WeightTrack {
        WeightTrack {
            mesh: self.mesh,
            target: self.target,
            interpolation: self.interpolation,
            keys: self.to_keys(),
        }
    }
}

/// What `MRPH` is checked against: MSH0's vertex count and which attributes it has.
pub(crate) struct MeshSide {
    pub vertex_count: u32,
    pub normals: bool,
    pub tangents: bool,
}

/// Reads and checks a mesh's `MRPH`: counts, names, indices, deltas, weights.
pub(crate) fn parse_targets<'a>(
    file: &'a [u8],
    ch: &Chunk,
    mesh: &MeshSide,
) -> Result<Vec<TargetView<'a>>, ReadError> {
    let place = Place::Chunk(FourCc::MRPH);
    let mut c = ch.cur(file);
    let at = c.pos;
    let count = c.u32_at_most("targetCount", MAX_MORPH_TARGETS)?;
    if count == 0 {
        return Err(value(at, place, "targetCount", 0, "at least 1"));
    }
    let at = c.pos;
    let vc = c.u32("vertexCount")?;
    if vc != mesh.vertex_count {
        return Err(value(at, place, "vertexCount", vc, "MSH0's vertexCount"));
    }
    let attrs_at = c.pos;
    let attrs = c.u32("attributes")?;
    if attrs & !(ATTR_NORMALS | ATTR_TANGENTS) != 0 {
        return Err(ReadError {
            offset: attrs_at as u64,
            place,
            field: "attributes",
            kind: ReadErrorKind::Reserved,
        });
    }
    if (attrs & ATTR_NORMALS != 0 && !mesh.normals)
        || (attrs & ATTR_TANGENTS != 0 && !mesh.tangents)
    {
        return Err(value(
            attrs_at,
            place,
            "attributes",
            attrs,
            "deltas only of attributes the mesh's vertices have",
        ));
    }
    let names_size = c.u32("namesSize")?;
    let records_at = c.pos;
    let records = c.take(8 * u64::from(count), "targets")?;
    let names_at = c.pos;
    let names = c.take(u64::from(names_size), "names")?;
    let names = split_names(names, names_at, count)?;
    let per = 16 + 12 * u64::from(attrs.count_ones());
    let mut total = 0u64;
    let mut seen = std::collections::BTreeSet::new();
    // `count` ≤ the records present (8 bytes each), so this allocation is justified.
    let mut out = Vec::with_capacity(count as usize);
    for (k, (r, (name, name_at))) in records.chunks_exact(8).zip(names).enumerate() {
        let r_at = records_at + 8 * k;
        let dc = le32(r);
        total += u64::from(dc);
        if total > u64::from(MAX_MORPH_DELTAS) {
            return Err(ReadError {
                offset: r_at as u64,
                place,
                field: "deltaCount",
                kind: ReadErrorKind::Limit {
                    value: total,
                    limit: u64::from(MAX_MORPH_DELTAS),
                },
            });
        }
        let w = lef32(&r[4..]);
        if !weight_ok(w) {
            let kind = if w.is_finite() {
                ReadErrorKind::Rule {
                    reason: format!("target {k}: the default weight {w} is beyond ±1000"),
                }
            } else {
                ReadErrorKind::NotFinite
            };
            return Err(ReadError {
                offset: r_at as u64 + 4,
                place,
                field: "defaultWeight",
                kind,
            });
        }
        if let Some(why) = name_rule(name, &mut seen) {
            return Err(rule(name_at, place, "names", format!("target {k}: {why}")));
        }
        // The whole target's bytes are checked present before any is read.
        let data_at = c.pos;
        if (c.remaining() as u64) < per * u64::from(dc) {
            c.take(per * u64::from(dc), "deltas")?;
        }
        let t = target(&mut c, k, dc, attrs, vc)?;
        debug_assert_eq!(c.pos - data_at, (per * u64::from(dc)) as usize);
        out.push(TargetView {
            name,
            default_weight: w,
            ..t
        });
    }
    c.finish("deltas")?;
    Ok(out)
}

/// `count` NUL-terminated UTF-8 names, then zero padding to a multiple of 4.
fn split_names(names: &[u8], at: usize, count: u32) -> Result<Vec<(&str, usize)>, ReadError> {
    let place = Place::Chunk(FourCc::MRPH);
    let mut out = Vec::new();
    let mut pos = 0usize;
    for k in 0..count {
        let Some(len) = names[pos..].iter().position(|&b| b == 0) else {
            return Err(rule(
                at + pos,
                place,
                "names",
                format!("target {k}'s name has no terminating NUL within namesSize"),
            ));
        };
        let name = std::str::from_utf8(&names[pos..pos + len]).map_err(|e| ReadError {
            offset: (at + pos + e.valid_up_to()) as u64,
            place,
            field: "names",
            kind: ReadErrorKind::Rule {
                reason: format!("target {k}'s name is not UTF-8"),
            },
        })?;
        out.push((name, at + pos));
        pos += len + 1;
    }
    if names.len() != pos.div_ceil(4) * 4 {
        return Err(value(
            at,
            place,
            "namesSize",
            names.len() as u32,
            "the names' bytes rounded up to a multiple of 4",
        ));
    }
    if let Some(k) = names[pos..].iter().position(|&b| b != 0) {
        return Err(ReadError {
            offset: (at + pos + k) as u64,
            place,
            field: "names padding",
            kind: ReadErrorKind::Padding,
        });
    }
    Ok(out)
}

/// One target's arrays, checked: indices ascending and in range, deltas finite and
/// within ±1e6.
fn target<'a>(
    c: &mut Cur<'a>,
    k: usize,
    dc: u32,
    attrs: u32,
    vertex_count: u32,
) -> Result<TargetView<'a>, ReadError> {
    let place = c.place;
    let n = u64::from(dc);
    let idx_at = c.pos;
    let indices = c.take(4 * n, "indices")?;
    if let Some((j, why)) = indices_rule(indices.chunks_exact(4).map(le32), vertex_count) {
        return Err(rule(
            idx_at + 4 * j,
            place,
            "indices",
            format!("target {k}: {why}"),
        ));
    }
    let mut deltas = |field: &'static str| -> Result<&'a [u8], ReadError> {
        let at = c.pos;
        let s = c.take(12 * n, field)?;
        if let Some(j) = s.chunks_exact(4).position(|w| !delta_ok(lef32(w))) {
            let x = lef32(&s[4 * j..]);
            let kind = if x.is_finite() {
                ReadErrorKind::Rule {
                    reason: format!("target {k}: the delta {x} is beyond ±1e6"),
                }
            } else {
                ReadErrorKind::NotFinite
            };
            return Err(ReadError {
                offset: (at + 4 * j) as u64,
                place,
                field,
                kind,
            });
        }
        Ok(s)
    };
    let positions = deltas("positions")?;
    let normals = (attrs & ATTR_NORMALS != 0)
        .then(|| deltas("normals"))
        .transpose()?;
    let tangents = (attrs & ATTR_TANGENTS != 0)
        .then(|| deltas("tangents"))
        .transpose()?;
    Ok(TargetView {
        name: "",
        default_weight: 0.0,
        delta_count: dc,
        indices,
        positions,
        normals,
        tangents,
    })
}

/// Reads and checks a clip's `MWGT` against the clip's duration; the mesh and target
/// indices are checked by [`check_places`] once every mesh is known.
pub(crate) fn parse_tracks<'a>(
    file: &'a [u8],
    ch: &Chunk,
    duration: f32,
) -> Result<Vec<WeightTrackView<'a>>, ReadError> {
    let place = Place::Chunk(FourCc::MWGT);
    let mut c = ch.cur(file);
    let at = c.pos;
    let count = c.u32_at_most("trackCount", MAX_WEIGHT_TRACKS)?;
    if count == 0 {
        return Err(value(at, place, "trackCount", 0, "at least 1"));
    }
    c.reserved(4, "reserved")?;
    // Every track holds its 16-byte header and a key: reserve only what fits.
    let fit = (c.remaining() / 24).min(count as usize);
    let mut out = Vec::with_capacity(fit);
    let mut total = 0u64;
    for t in 0..count {
        let t_at = c.pos;
        let mesh = c.u32("meshIndex")?;
        let target = c.u32("targetIndex")?;
        let i_at = c.pos;
        let code = c.u32("interpolation")?;
        let interpolation = WeightInterpolation::from_code(code).ok_or(ReadError {
            offset: i_at as u64,
            place,
            field: "interpolation",
            kind: ReadErrorKind::UnknownEnum { value: code },
        })?;
        let kc_at = c.pos;
        let kc = c.u32("keyCount")?;
        if kc == 0 {
            return Err(rule(
                kc_at,
                place,
                "keyCount",
                format!("track {t} has no keys"),
            ));
        }
        total += u64::from(kc);
        if total > u64::from(MAX_KEYS_PER_CLIP) {
            return Err(ReadError {
                offset: kc_at as u64,
                place,
                field: "keyCount",
                kind: ReadErrorKind::Limit {
                    value: total,
                    limit: u64::from(MAX_KEYS_PER_CLIP),
                },
            });
        }
        let keys_at = c.pos;
        let keys = c.take(8 * u64::from(kc), "keys")?;
        check_keys(keys, keys_at, t, duration)?;
        out.push(WeightTrackView {
            mesh,
            target,
            interpolation,
            keys,
            offset: t_at as u64,
        });
    }
    c.finish("tracks")?;
    Ok(out)
}

fn check_keys(keys: &[u8], at: usize, t: u32, duration: f32) -> Result<(), ReadError> {
    let place = Place::Chunk(FourCc::MWGT);
    let mut prev = None;
    for (k, b) in keys.chunks_exact(8).enumerate() {
        let key_at = at + 8 * k;
        for (w, field) in [(0, "time"), (4, "weight")] {
            if !lef32(&b[w..]).is_finite() {
                return Err(ReadError {
                    offset: (key_at + w) as u64,
                    place,
                    field,
                    kind: ReadErrorKind::NotFinite,
                });
            }
        }
        let key = WeightKey {
            time: lef32(b),
            weight: lef32(&b[4..]),
        };
        if let Some((field, why)) = key_rule(key, prev, duration) {
            let off = if field == "time" { 0 } else { 4 };
            return Err(rule(
                key_at + off,
                place,
                field,
                format!("key {k} of weight track {t}: {why}"),
            ));
        }
        prev = Some(key.time);
    }
    Ok(())
}

/// Checks every clip's tracks name a mesh and one of its targets, in ascending
/// (mesh, target) order; `target_count` gives a mesh's target count.
pub(crate) fn check_places(
    tracks: &[WeightTrackView<'_>],
    target_count: impl Fn(u32) -> Option<usize>,
) -> Result<(), ReadError> {
    let mut prev = None;
    for (t, x) in tracks.iter().enumerate() {
        if let Some((field, why)) =
            crate::morph::track_place_rule(x.mesh, x.target, prev, &target_count)
        {
            let off = if field == "meshIndex" { 0 } else { 4 };
            return Err(ReadError {
                offset: x.offset + off,
                place: Place::Chunk(FourCc::MWGT),
                field,
                kind: ReadErrorKind::Rule {
                    reason: format!("weight track {t}: {why}"),
                },
            });
        }
        prev = Some((x.mesh, x.target));
    }
    Ok(())
}
