//! GOM clips as the game's animations: one channel per node, keys as (time, location
//! index, rotation index) into the keyframe library. Keys already in the library keep
//! their indices; a value the library holds already is shared, not appended again.
//! Keys are added where readers interpolating differently would disagree
//! ([`super::interp`]).

use std::collections::HashMap;

use jpog::tmd::{Animation, Channel, Key, Node};
use jpog::Tkl;

use super::interp::{self, GameKey};
use super::names::{NameLimit, Renames};
use super::skeleton::Skeleton;
use super::{refused, ExportError, ExportOptions};
use crate::jpog::axes::Basis;
use crate::optimize::keys::{joint_metrics, KeyTolerance, SkinnedVertices};

/// A translation differing from the node's rest translation by more than this (in any
/// axis) moves, and sets the channel's translation flag.
const MOVES: f32 = 1e-6;

/// A key scale this close to 1 is f32 noise, not scaling worth reporting.
const SCALE_NOISE: f32 = 1e-4;

/// The library's values by their bits, first index of each; new values appended.
struct Interner<'a> {
    tkl: &'a mut Tkl,
    locations: HashMap<[u32; 3], u16>,
    rotations: HashMap<[u32; 4], u16>,
}

impl<'a> Interner<'a> {
    fn new(tkl: &'a mut Tkl) -> Self {
        let mut locations = HashMap::new();
        for (i, l) in tkl.locations.iter().enumerate().take(1 << 16) {
            locations.entry(l.map(f32::to_bits)).or_insert(i as u16);
        }
        let mut rotations = HashMap::new();
        for (i, q) in tkl.rotations.iter().enumerate().take(1 << 16) {
            rotations.entry(q.map(f32::to_bits)).or_insert(i as u16);
        }
        Interner {
            tkl,
            locations,
            rotations,
        }
    }

    fn location(&mut self, v: [f32; 3]) -> Result<u16, ExportError> {
        if let Some(&i) = self.locations.get(&v.map(f32::to_bits)) {
            return Ok(i);
        }
        let i = self.tkl.push_location(v)?;
        self.locations.insert(v.map(f32::to_bits), i);
        Ok(i)
    }

    fn rotation(&mut self, q: [f32; 4]) -> Result<u16, ExportError> {
        if let Some(&i) = self.rotations.get(&q.map(f32::to_bits)) {
            return Ok(i);
        }
        let i = self.tkl.push_rotation(q)?;
        self.rotations.insert(q.map(f32::to_bits), i);
        Ok(i)
    }
}

/// `q` of unit length (negative zeros made positive, so that equal rotations share one
/// library entry), the identity when it has no length.
fn unit(q: [f32; 4]) -> [f32; 4] {
    crate::gltf::normalize_quat(q.map(f64::from))
        .map_or([0.0, 0.0, 0.0, 1.0], |n| n.map(|v| v + 0.0))
}

/// Whether a clip loops in the game: its name ends in `_lp` or the options name it.
fn loops(clip: &gom::Clip, options: &ExportOptions) -> bool {
    clip.name.ends_with("_lp") || options.loop_clips.iter().any(|c| c == &clip.name)
}

/// How many keys [`interp::agree_everywhere`] added, and intervals it could not mend.
#[derive(Debug, Default)]
struct Counts {
    scaled: usize,
    inserted: interp::Inserted,
}

/// One node's channel from its track (an empty channel holds the rest pose): keys in
/// the game's space, with keys inserted where interpolations would disagree.
fn channel(
    track: Option<&gom::Track>,
    node: &Node,
    basis: &Basis,
    fit: (f64, f64),
    lib: &mut Interner<'_>,
    counts: &mut Counts,
) -> Result<Channel, ExportError> {
    let Some(track) = track.filter(|t| !t.keys.is_empty()) else {
        return Ok(Channel {
            flags: 0,
            keys: Vec::new(),
        });
    };
    let mut game: Vec<GameKey> = Vec::with_capacity(track.keys.len());
    for k in &track.keys {
        if k.scale.iter().any(|&s| (s - 1.0).abs() > SCALE_NOISE) {
            counts.scaled += 1;
        }
        game.push(GameKey {
            time: k.time,
            translation: basis.vector(k.translation),
            rotation: basis.quat(unit(k.rotation)),
        });
    }
    let (distance, tolerance) = fit;
    let done = interp::agree_everywhere(&mut game, distance, tolerance);
    counts.inserted.keys += done.keys;
    counts.inserted.left += done.left;
    let moves = game
        .iter()
        .any(|k| (0..3).any(|a| (k.translation[a] - node.rest_translation[a]).abs() > MOVES));
    let mut keys = Vec::with_capacity(game.len());
    for k in game {
        keys.push(Key {
            time: k.time,
            loc_index: lib.location(k.translation)?,
            rot_index: lib.rotation(k.rotation)?,
        });
    }
    Ok(Channel {
        flags: u16::from(moves),
        keys,
    })
}

/// Each bone's measuring distance for `tolerance`, as the key reduction measures: the
/// farthest bone or skinned vertex it moves, plus the tolerance's distance.
fn measuring_distances(model: &gom::Model, tolerance: &KeyTolerance) -> Vec<f64> {
    let positions: Vec<Vec<[f32; 3]>> = model
        .meshes
        .iter()
        .map(|part| match &part.mesh_bind_geo_to_model {
            Some(g) => part
                .vertices
                .positions
                .iter()
                .map(|&p| gom::math::transform_point(g, p))
                .collect(),
            None => part.vertices.positions.clone(),
        })
        .collect();
    let skinned: Vec<SkinnedVertices<'_>> = model
        .meshes
        .iter()
        .zip(&positions)
        .filter_map(|(part, p)| part.vertices.skin.as_deref().map(|s| (p.as_slice(), s)))
        .collect();
    joint_metrics(&model.skeleton.bones, &skinned, tolerance.distance)
        .iter()
        .map(|m| m.distance)
        .collect()
}

/// What the notes say about keys inserted for interpolation.
fn inserted_notes(done: &interp::Inserted, tolerance: &KeyTolerance) -> Vec<String> {
    let mut notes = Vec::new();
    if done.keys > 0 {
        notes.push(format!(
            "{} key(s) inserted so that slerp and normalised lerp agree within {} at {} beyond each joint",
            done.keys, tolerance.tolerance, tolerance.distance
        ));
    }
    if done.left > 0 {
        notes.push(format!(
            "{} key interval(s) could not be split finely enough for slerp and normalised lerp to agree within {}",
            done.left, tolerance.tolerance
        ));
    }
    notes
}

/// Builds every clip's animation, appending its keys to `tkl`.
pub(crate) fn build(
    model: &gom::Model,
    skel: &Skeleton,
    basis: &Basis,
    options: &ExportOptions,
    renames: &mut Renames,
    tkl: &mut Tkl,
    notes: &mut Vec<String>,
) -> Result<Vec<Animation>, ExportError> {
    let tolerance = &options.key_tolerance;
    if !(tolerance.tolerance > 0.0 && tolerance.tolerance.is_finite()) {
        return Err(refused(
            "key tolerance",
            format!("{} is not a positive distance", tolerance.tolerance),
        ));
    }
    let distances = measuring_distances(model, tolerance);
    let mut lib = Interner::new(tkl);
    let mut out = Vec::with_capacity(model.clips.len());
    let mut counts = Counts::default();
    for (ci, clip) in model.clips.iter().enumerate() {
        let record = format!("clip {ci} \"{}\"", clip.name);
        let base = clip.name.strip_suffix("_lp").unwrap_or(&clip.name);
        let base = if base.is_empty() {
            format!("anim{ci}")
        } else {
            base.to_string()
        };
        let suffix = if loops(clip, options) { "_lp" } else { "" };
        let name = renames.fit_suffixed(&base, suffix, NameLimit::Animation, &record)?;
        let (name_length, name_field) = jpog::tmd::short_name(&name, &record)?;
        if !(clip.duration.is_finite() && clip.duration >= 0.0) {
            return Err(refused(
                record,
                format!("duration {} is not a number of seconds", clip.duration),
            ));
        }
        let mut channels = Vec::with_capacity(skel.nodes.len());
        for (n, node) in skel.nodes.iter().enumerate() {
            let track = clip.tracks.iter().find(|t| t.bone as usize == n);
            let track = track.filter(|_| Some(n) != skel.static_node);
            let distance = distances.get(n).copied().unwrap_or(0.0);
            let fit = (distance, f64::from(tolerance.tolerance));
            channels.push(channel(track, node, basis, fit, &mut lib, &mut counts)?);
        }
        out.push(Animation {
            name_length,
            name_field,
            overlay: 0,
            unknown: 0,
            used_node_count: skel.nodes.len() as u32,
            duration: clip.duration,
            channels,
        });
    }
    if counts.scaled > 0 {
        notes.push(format!(
            "{} key(s) scale their bone; the game's keys hold no scale, so it is left out",
            counts.scaled
        ));
    }
    notes.extend(inserted_notes(&counts.inserted, tolerance));
    Ok(out)
}
