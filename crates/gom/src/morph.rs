//! Blend shapes (morph targets) and their weight tracks: the `MRPH` and `MWGT`
//! extensions of `docs/extensions.md` §4.
//!
//! A mesh's [`MorphTarget`]s are sparse: each lists the vertices it moves (ascending
//! indices) and, per listed vertex, a position delta and optionally normal and tangent
//! deltas. With weights `w`, a vertex's morphed attributes are
//!
//! ```text
//! p = p0 + Σ w_k · dp_k        n = unit(n0 + Σ w_k · dn_k)
//! t = unit(t0.xyz + Σ w_k · dt_k), t.w = t0.w
//! ```
//!
//! applied to the bind attributes before skinning (glTF 2.0 §3.7.2.2). The weights
//! are each target's default weight unless a clip's [`WeightTrack`] keys it.

use crate::error::{Item, WriteError};
use crate::limits::{MAX_KEYS_PER_CLIP, MAX_WEIGHT_TRACKS};
use crate::limits::{MAX_MORPH_DELTA, MAX_MORPH_DELTAS, MAX_MORPH_TARGETS, MAX_MORPH_WEIGHT};
use crate::model::{ClipFlags, Model};
use crate::validate::limit;

/// MSH0 `flags` bit 3: the mesh has an `MRPH` child with a non-zero default weight,
/// which changes its bind pose (a v1 reader refuses the reserved bit).
pub const MESH_FLAG_MORPH_DEFAULTS: u32 = 1 << 3;

/// CLP0 `flags` bit 3: an `MWGT` chunk with the clip's weight tracks follows the
/// clip (a v1 reader refuses the reserved bit). Like the compressed bit, the GOMB
/// reader takes it off and the writer puts it back: a model's clip never holds it.
pub const CLIP_FLAG_WEIGHT_TRACKS: ClipFlags = ClipFlags::from_bits_retain(1 << 3);

/// `MRPH` `attributes` bit 0: every target has normal deltas.
pub const ATTR_NORMALS: u32 = 1 << 0;
/// `MRPH` `attributes` bit 1: every target has tangent deltas.
pub const ATTR_TANGENTS: u32 = 1 << 1;

/// One morph target (blend shape) of a mesh.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MorphTarget {
    /// Its name, unique within the mesh and not empty.
    pub name: String,
    /// Its weight when no clip keys it (glTF's mesh `weights`).
    pub default_weight: f32,
    /// The vertices it moves, strictly ascending, each below the vertex count.
    pub indices: Vec<u32>,
    /// Per listed vertex, the position delta (geometry space).
    pub positions: Vec<[f32; 3]>,
    /// Per listed vertex, the normal delta; every target of a mesh has them or none.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Per listed vertex, the tangent delta (xyz; w is never morphed); every target
    /// of a mesh has them or none.
    pub tangents: Option<Vec<[f32; 3]>>,
}

/// How a weight track's keys are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum WeightInterpolation {
    /// Linear between keys (binary value 0).
    #[default]
    Linear,
    /// Each key holds until the next (binary value 1).
    Step,
}

impl WeightInterpolation {
    /// The binary value.
    pub fn code(self) -> u32 {
        match self {
            WeightInterpolation::Linear => 0,
            WeightInterpolation::Step => 1,
        }
    }

    /// From the binary value.
    pub fn from_code(code: u32) -> Option<Self> {
        match code {
            0 => Some(WeightInterpolation::Linear),
            1 => Some(WeightInterpolation::Step),
            _ => None,
        }
    }

    /// The GOMT name.
    pub fn name(self) -> &'static str {
        match self {
            WeightInterpolation::Linear => "linear",
            WeightInterpolation::Step => "step",
        }
    }

    /// From the GOMT name.
    pub fn from_name(name: &str) -> Option<Self> {
        [WeightInterpolation::Linear, WeightInterpolation::Step]
            .into_iter()
            .find(|i| i.name() == name)
    }
}

/// One key of a [`WeightTrack`]: 8 bytes in the file, as in memory.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WeightKey {
    /// Time in seconds from the clip start.
    pub time: f32,
    /// The target's weight.
    pub weight: f32,
}

/// The weight of one morph target of one mesh over a clip.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WeightTrack {
    /// Index into [`Model::meshes`].
    pub mesh: u32,
    /// Index into that mesh's [`crate::MeshPart::morph_targets`].
    pub target: u32,
    /// How the keys are joined.
    pub interpolation: WeightInterpolation,
    /// Keys, strictly ascending in time within `[0, duration]`; at least one.
    pub keys: Vec<WeightKey>,
}

/// The weight `keys` give at `time` (clamped to the first and last key), linear or
/// step; 0 without keys. The one definition every sampler of `gom` follows.
pub fn sample_weight(keys: &[WeightKey], interpolation: WeightInterpolation, time: f32) -> f32 {
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return 0.0;
    };
    if time <= first.time {
        return first.weight;
    }
    if time >= last.time {
        return last.weight;
    }
    // The first key after `time`; 1 ≤ hi < len since first.time < time < last.time.
    let hi = keys.partition_point(|k| k.time <= time);
    let (a, b) = (keys[hi - 1], keys[hi]);
    match interpolation {
        WeightInterpolation::Step => a.weight,
        WeightInterpolation::Linear => {
            let s = (time - a.time) / (b.time - a.time);
            a.weight + (b.weight - a.weight) * s
        }
    }
}

/// Whether a mesh with these targets needs MSH0 flags bit 3 (a default weight is not
/// zero, so dropping `MRPH` would pose a different mesh).
pub fn poses_by_default(targets: &[MorphTarget]) -> bool {
    targets.iter().any(|t| t.default_weight != 0.0)
}

/// The `attributes` bits of a mesh's targets (taken from the first target; the
/// structure check makes every target agree).
pub fn attributes(targets: &[MorphTarget]) -> u32 {
    targets.first().map_or(0, |t| {
        u32::from(t.normals.is_some()) * ATTR_NORMALS
            + u32::from(t.tangents.is_some()) * ATTR_TANGENTS
    })
}

/// Bytes of a mesh's `MRPH` payload (without padding of the chunk).
pub fn targets_size(targets: &[MorphTarget]) -> u64 {
    let attrs = attributes(targets);
    let per = 16 + 12 * u64::from(attrs.count_ones());
    let deltas: u64 = targets.iter().map(|t| t.indices.len() as u64).sum();
    16 + 8 * targets.len() as u64 + names_size(targets) + per * deltas
}

fn names_size(targets: &[MorphTarget]) -> u64 {
    let raw: u64 = targets.iter().map(|t| t.name.len() as u64 + 1).sum();
    raw.div_ceil(4) * 4
}

/// Bytes of a clip's `MWGT` payload.
pub fn tracks_size(tracks: &[WeightTrack]) -> u64 {
    8 + tracks
        .iter()
        .map(|t| 16 + 8 * t.keys.len() as u64)
        .sum::<u64>()
}

fn put(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn putf(out: &mut Vec<u8>, v: &[f32]) {
    for x in v {
        // −0.0 is written as +0.0 (D13).
        out.extend_from_slice(&(x + 0.0).to_le_bytes());
    }
}

/// The `MRPH` payload of a mesh's targets (layout in `docs/extensions.md` §4.2);
/// the targets must pass the structural rules (`check_mesh_targets`, which
/// [`crate::validate::check_structure`] runs).
pub fn encode_targets(targets: &[MorphTarget], vertex_count: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(targets_size(targets) as usize);
    put(&mut out, targets.len() as u32);
    put(&mut out, vertex_count);
    put(&mut out, attributes(targets));
    put(&mut out, names_size(targets) as u32);
    for t in targets {
        put(&mut out, t.indices.len() as u32);
        putf(&mut out, &[t.default_weight]);
    }
    let names_at = out.len();
    for t in targets {
        out.extend_from_slice(t.name.as_bytes());
        out.push(0);
    }
    out.resize(names_at + names_size(targets) as usize, 0);
    for t in targets {
        for &i in &t.indices {
            put(&mut out, i);
        }
        putf(&mut out, t.positions.as_flattened());
        if let Some(n) = &t.normals {
            putf(&mut out, n.as_flattened());
        }
        if let Some(d) = &t.tangents {
            putf(&mut out, d.as_flattened());
        }
    }
    out
}

/// The `MWGT` payload of a clip's weight tracks (`docs/extensions.md` §4.3).
pub fn encode_tracks(tracks: &[WeightTrack]) -> Vec<u8> {
    let mut out = Vec::with_capacity(tracks_size(tracks) as usize);
    put(&mut out, tracks.len() as u32);
    put(&mut out, 0);
    for t in tracks {
        put(&mut out, t.mesh);
        put(&mut out, t.target);
        put(&mut out, t.interpolation.code());
        put(&mut out, t.keys.len() as u32);
        for k in &t.keys {
            putf(&mut out, &[k.time, k.weight]);
        }
    }
    out
}

fn invalid(item: Item, name: &str, field: &'static str, reason: String) -> WriteError {
    WriteError::Invalid {
        item,
        name: name.to_owned(),
        field,
        reason,
    }
}

/// Whether a delta component is finite and within ±[`MAX_MORPH_DELTA`].
pub(crate) fn delta_ok(x: f32) -> bool {
    x.is_finite() && x.abs() <= MAX_MORPH_DELTA
}

/// Whether a weight is finite and within ±[`MAX_MORPH_WEIGHT`].
pub(crate) fn weight_ok(x: f32) -> bool {
    x.is_finite() && x.abs() <= MAX_MORPH_WEIGHT
}

/// The rule a target's indices break, if any: strictly ascending, below
/// `vertex_count`. Returns the position of the first bad index and why.
pub(crate) fn indices_rule(
    indices: impl IntoIterator<Item = u32>,
    vertex_count: u32,
) -> Option<(usize, &'static str)> {
    let mut prev: Option<u32> = None;
    for (k, i) in indices.into_iter().enumerate() {
        if i >= vertex_count {
            return Some((k, "a vertex index is not below the mesh's vertex count"));
        }
        if prev.is_some_and(|p| i <= p) {
            return Some((k, "vertex indices are not strictly ascending"));
        }
        prev = Some(i);
    }
    None
}

/// The rule a target name breaks within its mesh, if any (`seen` holds the earlier
/// names).
pub(crate) fn name_rule<'n>(
    name: &'n str,
    seen: &mut std::collections::BTreeSet<&'n str>,
) -> Option<&'static str> {
    if name.is_empty() {
        return Some("a target name is empty");
    }
    if name.as_bytes().contains(&0) {
        return Some("a target name contains a NUL byte");
    }
    if !seen.insert(name) {
        return Some("two targets of the mesh have the same name");
    }
    None
}

/// The structural rules of one mesh's targets (`docs/extensions.md` §4.4).
pub(crate) fn check_mesh_targets(i: usize, mesh: &crate::MeshPart) -> Result<(), WriteError> {
    let targets = &mesh.morph_targets;
    let it = Item::Mesh(i);
    let n = mesh.name.as_str();
    if targets.len() > MAX_MORPH_TARGETS as usize {
        return Err(limit(
            it,
            n,
            "morphTargets",
            targets.len(),
            MAX_MORPH_TARGETS,
        ));
    }
    let total: usize = targets.iter().map(|t| t.indices.len()).sum();
    if total > MAX_MORPH_DELTAS as usize {
        return Err(limit(it, n, "morphTargets", total, MAX_MORPH_DELTAS));
    }
    let vc = u32::try_from(mesh.vertices.len()).unwrap_or(u32::MAX);
    let attrs = attributes(targets);
    let mut seen = std::collections::BTreeSet::new();
    for (k, t) in targets.iter().enumerate() {
        let bad = |why: &str| invalid(it, n, "morphTargets", format!("target {k}: {why}"));
        if let Some(why) = name_rule(&t.name, &mut seen) {
            return Err(bad(why));
        }
        if !weight_ok(t.default_weight) {
            return Err(bad("the default weight is not finite or beyond ±1000"));
        }
        if let Some((_, why)) = indices_rule(t.indices.iter().copied(), vc) {
            return Err(bad(why));
        }
        let len = t.indices.len();
        let lens = [
            Some(t.positions.len()),
            t.normals.as_ref().map(Vec::len),
            t.tangents.as_ref().map(Vec::len),
        ];
        if lens.iter().flatten().any(|&l| l != len) {
            return Err(bad("a delta list's length differs from indices'"));
        }
        if attributes(std::slice::from_ref(t)) != attrs {
            return Err(bad("targets of one mesh differ in which deltas they have"));
        }
        if t.normals.is_some() && mesh.vertices.normals.is_none() {
            return Err(bad("normal deltas on a mesh without normals"));
        }
        if t.tangents.is_some() && mesh.vertices.tangents.is_none() {
            return Err(bad("tangent deltas on a mesh without tangents"));
        }
        let all = [
            t.positions.as_flattened(),
            t.normals.as_deref().unwrap_or_default().as_flattened(),
            t.tangents.as_deref().unwrap_or_default().as_flattened(),
        ];
        if !all.iter().all(|s| s.iter().all(|&x| delta_ok(x))) {
            return Err(bad("a delta is not finite or beyond ±1e6"));
        }
    }
    Ok(())
}

/// The rule a weight track's place breaks, if any: it names a mesh and one of its
/// targets, after the previous track's (mesh, target).
pub(crate) fn track_place_rule(
    mesh: u32,
    target: u32,
    previous: Option<(u32, u32)>,
    target_count: impl Fn(u32) -> Option<usize>,
) -> Option<(&'static str, &'static str)> {
    let Some(count) = target_count(mesh) else {
        return Some(("meshIndex", "the mesh index names no mesh"));
    };
    if target as usize >= count {
        return Some((
            "targetIndex",
            "the target index names no target of the mesh",
        ));
    }
    if previous.is_some_and(|p| (mesh, target) <= p) {
        return Some((
            "targetIndex",
            "tracks are not strictly ascending by (mesh, target)",
        ));
    }
    None
}

/// The rule a weight key breaks, if any: time within `[0, duration]` after the
/// previous key's, weight finite and within ±[`MAX_MORPH_WEIGHT`].
pub(crate) fn key_rule(
    key: WeightKey,
    previous: Option<f32>,
    duration: f32,
) -> Option<(&'static str, &'static str)> {
    if let Some(broken) = crate::validate::key_time_rule(key.time, previous, duration) {
        return Some(broken);
    }
    if !weight_ok(key.weight) {
        return Some(("weight", "a weight is not finite or beyond ±1000"));
    }
    None
}

/// The structural rules of every clip's weight tracks against the model's meshes.
pub(crate) fn check_clip_tracks(model: &Model) -> Result<(), WriteError> {
    for (i, clip) in model.clips.iter().enumerate() {
        let it = Item::Clip(i);
        let n = clip.name.as_str();
        let tracks = &clip.weight_tracks;
        if tracks.len() > MAX_WEIGHT_TRACKS as usize {
            return Err(limit(
                it,
                n,
                "weightTracks",
                tracks.len(),
                MAX_WEIGHT_TRACKS,
            ));
        }
        let total: usize = tracks.iter().map(|t| t.keys.len()).sum();
        if total > MAX_KEYS_PER_CLIP as usize {
            return Err(limit(it, n, "weightTracks", total, MAX_KEYS_PER_CLIP));
        }
        let count = |m: u32| model.meshes.get(m as usize).map(|m| m.morph_targets.len());
        let mut prev = None;
        for (k, t) in tracks.iter().enumerate() {
            let bad =
                |why: &str| invalid(it, n, "weightTracks", format!("weight track {k}: {why}"));
            if let Some((_, why)) = track_place_rule(t.mesh, t.target, prev, count) {
                return Err(bad(why));
            }
            prev = Some((t.mesh, t.target));
            if t.keys.is_empty() {
                return Err(bad("a track has no keys"));
            }
            let mut prev_time = None;
            for key in &t.keys {
                if let Some((_, why)) = key_rule(*key, prev_time, clip.duration) {
                    return Err(bad(why));
                }
                prev_time = Some(key.time);
            }
        }
    }
    Ok(())
}

/// Bakes each mesh's default weights into its vertices (the formula of the module
/// documentation) and drops its targets, and every clip's weight tracks: the model a
/// format without blend shapes shows. Normals and tangents keep their bind value where
/// the morphed sum has zero length.
pub fn bake_defaults(model: &mut Model) {
    for mesh in &mut model.meshes {
        let targets = std::mem::take(&mut mesh.morph_targets);
        let v = &mut mesh.vertices;
        let mut touched = std::collections::BTreeMap::<usize, [[f32; 3]; 2]>::new();
        for t in targets.iter().filter(|t| t.default_weight != 0.0) {
            let w = t.default_weight;
            for (k, &i) in t.indices.iter().enumerate() {
                let i = i as usize;
                let add = |a: &mut [f32], d: [f32; 3]| (0..3).for_each(|c| a[c] += w * d[c]);
                if let Some(p) = v.positions.get_mut(i) {
                    add(p, t.positions[k]);
                }
                let entry = touched.entry(i).or_insert([[0.0; 3]; 2]);
                if let Some(d) = t.normals.as_ref() {
                    add(&mut entry[0], d[k]);
                }
                if let Some(d) = t.tangents.as_ref() {
                    add(&mut entry[1], d[k]);
                }
            }
        }
        let unit = |base: [f32; 3], d: [f32; 3]| {
            let s = [base[0] + d[0], base[1] + d[1], base[2] + d[2]];
            let len = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
            if len > 0.0 && len.is_finite() {
                s.map(|c| c / len)
            } else {
                base
            }
        };
        for (&i, [dn, dt]) in &touched {
            if let Some(n) = v.normals.as_mut().and_then(|n| n.get_mut(i)) {
                if *dn != [0.0; 3] {
                    *n = unit(*n, *dn);
                }
            }
            if let Some(t) = v.tangents.as_mut().and_then(|t| t.get_mut(i)) {
                if *dt != [0.0; 3] {
                    let u = unit([t[0], t[1], t[2]], *dt);
                    *t = [u[0], u[1], u[2], t[3]];
                }
            }
        }
    }
    for clip in &mut model.clips {
        clip.weight_tracks.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(v: &[(f32, f32)]) -> Vec<WeightKey> {
        v.iter()
            .map(|&(time, weight)| WeightKey { time, weight })
            .collect()
    }

    #[test]
    fn sampling_clamps_interpolates_and_steps() {
        let k = keys(&[(0.0, 0.0), (1.0, 1.0), (2.0, 0.5)]);
        let lin = WeightInterpolation::Linear;
        assert_eq!(sample_weight(&k, lin, -1.0), 0.0);
        assert_eq!(sample_weight(&k, lin, 0.25), 0.25);
        assert_eq!(sample_weight(&k, lin, 1.5), 0.75);
        assert_eq!(sample_weight(&k, lin, 9.0), 0.5);
        let step = WeightInterpolation::Step;
        assert_eq!(sample_weight(&k, step, 0.99), 0.0);
        assert_eq!(sample_weight(&k, step, 1.0), 1.0);
        assert_eq!(sample_weight(&k, step, 1.99), 1.0);
        assert_eq!(sample_weight(&[], lin, 1.0), 0.0);
    }

    #[test]
    fn the_extension_bits_are_reserved_in_v1() {
        assert!(!ClipFlags::all().intersects(CLIP_FLAG_WEIGHT_TRACKS));
        assert_eq!(CLIP_FLAG_WEIGHT_TRACKS.bits(), 8);
        assert_eq!(MESH_FLAG_MORPH_DEFAULTS, 8);
    }

    #[test]
    fn baking_adds_the_weighted_deltas_and_drops_targets_and_tracks() {
        let mut m = Model::default();
        let mut mesh = crate::MeshPart::default();
        mesh.vertices.positions = vec![[0.0; 3], [1.0, 0.0, 0.0]];
        mesh.vertices.normals = Some(vec![[0.0, 0.0, 1.0]; 2]);
        mesh.morph_targets = vec![MorphTarget {
            name: "a".into(),
            default_weight: 0.5,
            indices: vec![1],
            positions: vec![[0.0, 2.0, 0.0]],
            normals: Some(vec![[0.0, 2.0, -1.0]]),
            tangents: None,
        }];
        m.meshes.push(mesh);
        m.clips.push(crate::Clip {
            weight_tracks: vec![WeightTrack::default()],
            ..Default::default()
        });
        bake_defaults(&mut m);
        let v = &m.meshes[0].vertices;
        assert_eq!(v.positions, [[0.0; 3], [1.0, 1.0, 0.0]]);
        // (0, 0, 1) + 0.5 · (0, 2, −1) = (0, 1, 0.5), normalised.
        let n = v.normals.as_ref().unwrap()[1];
        let l = 1.25f32.sqrt();
        assert_eq!(n, [0.0, 1.0 / l, 0.5 / l]);
        assert_eq!(v.normals.as_ref().unwrap()[0], [0.0, 0.0, 1.0]);
        assert!(m.meshes[0].morph_targets.is_empty() && m.clips[0].weight_tracks.is_empty());
    }

    #[test]
    fn index_rules_name_the_first_bad_index() {
        assert_eq!(indices_rule([0, 2, 5], 6), None);
        assert_eq!(indices_rule([0, 6], 6).map(|r| r.0), Some(1));
        assert_eq!(indices_rule([3, 3], 6).map(|r| r.0), Some(1));
    }
}
