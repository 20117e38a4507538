//! GOM clips as the game's animations: one channel per node, keys as (time, location
//! index, rotation index) into the keyframe library. Keys already in the library keep
//! their indices; a value the library holds already is shared, not appended again.

use std::collections::HashMap;

use jpog::tmd::{Animation, Channel, Key, Node};
use jpog::Tkl;

use super::names::{NameLimit, Renames};
use super::skeleton::Skeleton;
use super::{refused, ExportError, ExportOptions};
use crate::jpog::axes::Basis;

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

/// One node's channel from its track (an empty channel holds the rest pose).
fn channel(
    track: Option<&gom::Track>,
    node: &Node,
    basis: &Basis,
    lib: &mut Interner<'_>,
    scaled: &mut usize,
) -> Result<Channel, ExportError> {
    let Some(track) = track.filter(|t| !t.keys.is_empty()) else {
        return Ok(Channel {
            flags: 0,
            keys: Vec::new(),
        });
    };
    let locs: Vec<[f32; 3]> = track
        .keys
        .iter()
        .map(|k| basis.vector(k.translation))
        .collect();
    let moves = locs
        .iter()
        .any(|l| (0..3).any(|a| (l[a] - node.rest_translation[a]).abs() > MOVES));
    let mut keys = Vec::with_capacity(track.keys.len());
    for (k, loc) in track.keys.iter().zip(locs) {
        if k.scale.iter().any(|&s| (s - 1.0).abs() > SCALE_NOISE) {
            *scaled += 1;
        }
        keys.push(Key {
            time: k.time,
            loc_index: lib.location(loc)?,
            rot_index: lib.rotation(basis.quat(unit(k.rotation)))?,
        });
    }
    Ok(Channel {
        flags: u16::from(moves),
        keys,
    })
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
    let mut lib = Interner::new(tkl);
    let mut out = Vec::with_capacity(model.clips.len());
    let mut scaled = 0usize;
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
            channels.push(channel(track, node, basis, &mut lib, &mut scaled)?);
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
    if scaled > 0 {
        notes.push(format!(
            "{scaled} key(s) scale their bone; the game's keys hold no scale, so it is left out"
        ));
    }
    Ok(out)
}
