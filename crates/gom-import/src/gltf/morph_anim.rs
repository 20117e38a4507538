//! glTF `weights` animation channels → GOM weight tracks (`docs/extensions.md`
//! §4.4): LINEAR and STEP keys as they are; CUBICSPLINE resampled at the import rate
//! (and at its keys), then reduced to the keys linear interpolation cannot replace
//! within [`WEIGHT_TOLERANCE`].

use std::collections::BTreeMap;

use gltf::animation::Interpolation;
use gom::morph::{WeightInterpolation, WeightKey, WeightTrack};

use super::anim::Channel;

/// A resampled cubic weight curve keeps the keys needed to stay within this of it.
pub const WEIGHT_TOLERANCE: f64 = 1e-6;

/// Which GOM meshes each glTF node draws, and how many targets each mesh has.
pub(crate) struct MorphNodes<'a> {
    /// Per glTF node, the indices of the GOM mesh parts made from it.
    pub node_parts: &'a [Vec<usize>],
    /// Per GOM mesh part, its targets' default weights.
    pub defaults: &'a [Vec<f32>],
}

impl MorphNodes<'_> {
    /// The number of targets a weights channel on `node` animates (0 when the node
    /// draws none).
    pub fn targets_of(&self, node: usize) -> usize {
        self.node_parts
            .get(node)
            .into_iter()
            .flatten()
            .filter_map(|&p| self.defaults.get(p).map(Vec::len))
            .max()
            .unwrap_or(0)
    }

    /// The weight tracks of the `(node, channel)` pairs, one per mesh part and target,
    /// sorted by (mesh, target); a later channel on the same node wins, and a track
    /// that holds the target's default weight throughout is left out (it says nothing
    /// the default does not). `step` is the resampling interval, `duration` the clip's.
    pub fn tracks(
        &self,
        channels: &[(usize, Channel)],
        step: f64,
        duration: f32,
    ) -> Vec<WeightTrack> {
        let mut out: BTreeMap<(u32, u32), WeightTrack> = BTreeMap::new();
        for (node, ch) in channels {
            for &part in self.node_parts.get(*node).into_iter().flatten() {
                let defaults = self.defaults.get(part).map_or(&[][..], Vec::as_slice);
                for (target, &default) in defaults.iter().enumerate().take(ch.dims) {
                    let (interpolation, keys) = keys_of(ch, target, step, duration);
                    let (mesh, target) = (part as u32, target as u32);
                    if keys.iter().all(|k| k.weight == default) {
                        out.remove(&(mesh, target));
                        continue;
                    }
                    out.insert(
                        (mesh, target),
                        WeightTrack {
                            mesh,
                            target,
                            interpolation,
                            keys,
                        },
                    );
                }
            }
        }
        out.into_values().collect()
    }
}

/// One target's keys from a channel.
fn keys_of(
    ch: &Channel,
    target: usize,
    step: f64,
    duration: f32,
) -> (WeightInterpolation, Vec<WeightKey>) {
    let key = |t: f64| WeightKey {
        time: (t as f32).min(duration),
        weight: (ch.sample(t)[target] as f32).clamp(-1000.0, 1000.0),
    };
    let dedup = |mut keys: Vec<WeightKey>| {
        keys.dedup_by(|b, a| b.time <= a.time);
        keys
    };
    match ch.interpolation {
        Interpolation::Step => (
            WeightInterpolation::Step,
            dedup(ch.times.iter().map(|&t| key(t)).collect()),
        ),
        Interpolation::Linear => (
            WeightInterpolation::Linear,
            dedup(ch.times.iter().map(|&t| key(t)).collect()),
        ),
        Interpolation::CubicSpline => {
            let (first, last) = (ch.times[0], ch.times[ch.times.len() - 1]);
            let mut times = ch.times.clone();
            let mut i = (first / step).ceil() as u64;
            while (i as f64) * step < last {
                times.push(i as f64 * step);
                i += 1;
            }
            times.sort_by(f64::total_cmp);
            let keys = dedup(times.iter().map(|&t| key(t)).collect());
            (WeightInterpolation::Linear, reduce(keys))
        }
    }
}

/// Drops the keys the straight line between their kept neighbours reproduces within
/// [`WEIGHT_TOLERANCE`] (greedy, from the first key; first and last kept).
pub(crate) fn reduce(keys: Vec<WeightKey>) -> Vec<WeightKey> {
    if keys.len() <= 2 {
        return keys;
    }
    let mut out = vec![keys[0]];
    let mut anchor = 0;
    for next in 2..keys.len() {
        let (a, b) = (keys[anchor], keys[next]);
        let fits = keys[anchor + 1..next].iter().all(|k| {
            let s = f64::from(k.time - a.time) / f64::from(b.time - a.time);
            let line = f64::from(a.weight) + (f64::from(b.weight) - f64::from(a.weight)) * s;
            (line - f64::from(k.weight)).abs() <= WEIGHT_TOLERANCE
        });
        // A window of at most 64 keys bounds the work per key.
        if !fits || next - anchor > 64 {
            anchor = next - 1;
            out.push(keys[anchor]);
        }
    }
    out.extend(keys.last().copied());
    out
}
