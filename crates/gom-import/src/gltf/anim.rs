//! glTF animations → GOM clips (D9).

use std::collections::BTreeMap;

use gltf::accessor::Dimensions;
use gltf::animation::{Interpolation, Property};

use super::accessor::Buffers;
use super::convert::{mirror_quat, mirror_vec3, normalize_quat, slerp};
use super::{GltfError, GltfReport};

/// One sampler read into memory.
pub(crate) struct Channel {
    /// Key times (seconds), strictly ascending.
    pub times: Vec<f64>,
    /// Values: `dims` per key, or `3 * dims` (in-tangent, value, out-tangent) for cubic.
    pub values: Vec<f64>,
    /// 3 (translation, scale), 4 (rotation) or the number of morph targets (weights).
    pub dims: usize,
    /// How the sampler interpolates.
    pub interpolation: Interpolation,
    /// Whether the values are a rotation.
    pub rotation: bool,
}

impl Channel {
    fn value(&self, k: usize) -> &[f64] {
        let (per, off) = match self.interpolation {
            Interpolation::CubicSpline => (3 * self.dims, self.dims),
            _ => (self.dims, 0),
        };
        let s = k * per + off;
        &self.values[s..s + self.dims]
    }

    fn tangent(&self, k: usize, out: bool) -> &[f64] {
        let s = k * 3 * self.dims + if out { 2 * self.dims } else { 0 };
        &self.values[s..s + self.dims]
    }

    /// The channel's value at time `t` in glTF space (the nearest key holds outside
    /// the key range).
    pub fn sample(&self, t: f64) -> Vec<f64> {
        let n = self.times.len();
        let idx = self.times.partition_point(|&x| x <= t);
        if idx == 0 {
            return self.value(0).to_vec();
        }
        let k = idx - 1;
        if k + 1 >= n {
            return self.value(n - 1).to_vec();
        }
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let u = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
        let a = self.value(k);
        let b = self.value(k + 1);
        match self.interpolation {
            Interpolation::Step => a.to_vec(),
            Interpolation::Linear => {
                if self.rotation {
                    slerp([a[0], a[1], a[2], a[3]], [b[0], b[1], b[2], b[3]], u).to_vec()
                } else {
                    a.iter().zip(b).map(|(x, y)| x + (y - x) * u).collect()
                }
            }
            Interpolation::CubicSpline => {
                let td = t1 - t0;
                let (u2, u3) = (u * u, u * u * u);
                let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
                let h10 = u3 - 2.0 * u2 + u;
                let h01 = -2.0 * u3 + 3.0 * u2;
                let h11 = u3 - u2;
                let bk = self.tangent(k, true);
                let ak1 = self.tangent(k + 1, false);
                (0..self.dims)
                    .map(|i| h00 * a[i] + h10 * td * bk[i] + h01 * b[i] + h11 * td * ak1[i])
                    .collect()
            }
        }
    }
}

/// Reads one sampler, checking counts, time order and types; `targets` is the number
/// of morph targets a weights channel animates (unused for the others).
pub(crate) fn read_channel(
    buffers: &Buffers<'_>,
    channel: &gltf::animation::Channel<'_>,
    object: &str,
    targets: usize,
) -> Result<Channel, GltfError> {
    let invalid = |message: String| GltfError::Invalid {
        file: buffers.file.to_string(),
        object: object.to_string(),
        message,
    };
    let sampler = channel.sampler();
    let input = buffers.read_typed(&sampler.input(), &[Dimensions::Scalar], "sampler input")?;
    let rotation = matches!(channel.target().property(), Property::Rotation);
    let (want, dims) = match channel.target().property() {
        Property::Rotation => (Dimensions::Vec4, 4),
        Property::MorphTargetWeights => (Dimensions::Scalar, targets),
        _ => (Dimensions::Vec3, 3),
    };
    let mut output = buffers.read_typed(&sampler.output(), &[want], "sampler output")?;
    output.dims = dims.max(1);
    let times = input.values;
    if times.is_empty() {
        return Err(invalid("the sampler input has no keys".into()));
    }
    for (k, w) in times.windows(2).enumerate() {
        if w[1] <= w[0] {
            return Err(invalid(format!(
                "input times are not strictly increasing at key {} ({} after {})",
                k + 1,
                w[1],
                w[0]
            )));
        }
    }
    if times[0] < 0.0 {
        return Err(invalid(format!("negative input time {}", times[0])));
    }
    let interpolation = sampler.interpolation();
    let per_key = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let expected = times.len() * per_key;
    if output.count() != expected || output.values.len() != expected * output.dims {
        return Err(invalid(format!(
            "the output has {} elements; {} keys with {:?} interpolation need {}",
            output.count(),
            times.len(),
            interpolation,
            expected
        )));
    }
    let mut values = output.values;
    if rotation && interpolation != Interpolation::CubicSpline {
        for q in values.chunks_exact_mut(4) {
            let n = normalize_quat([q[0], q[1], q[2], q[3]])
                .ok_or_else(|| invalid("a rotation key has zero length".into()))?;
            for (d, s) in q.iter_mut().zip(n) {
                *d = f64::from(s);
            }
        }
    }
    Ok(Channel {
        times,
        values,
        dims,
        interpolation,
        rotation,
    })
}

/// The most keys one clip may hold (docs/format.md §3).
const MAX_KEYS: usize = gom::limits::MAX_KEYS_PER_CLIP as usize;

/// The f32 just below `x` (x > 0, finite).
fn f32_below(x: f32) -> f32 {
    f32::from_bits(x.to_bits() - 1)
}

/// The rest pose of a node in glTF space, as TRS.
pub(crate) type Rest = ([f32; 3], [f32; 4], [f32; 3]);

/// Builds the clip of one glTF animation.
pub(crate) fn clip(
    buffers: &Buffers<'_>,
    animation: &gltf::Animation<'_>,
    bone_of: &[Option<usize>],
    rest: &[Rest],
    morphs: &super::morph_anim::MorphNodes<'_>,
    sample_rate: f32,
    report: &mut GltfReport,
) -> Result<gom::Clip, GltfError> {
    let ai = animation.index();
    let name = animation
        .name()
        .map(str::to_string)
        .unwrap_or_else(|| format!("animation{ai}"));
    // node → [T, R, S]
    let mut per_node: BTreeMap<usize, [Option<Channel>; 3]> = BTreeMap::new();
    let mut weights: Vec<(usize, Channel)> = Vec::new();
    let step = if sample_rate > 0.0 && sample_rate.is_finite() {
        1.0 / f64::from(sample_rate)
    } else {
        1.0 / 30.0
    };

    let mut duration = 0.0f32;
    for channel in animation.channels() {
        let object = format!("animations[{ai}].channels[{}]", channel.index());
        let slot = match channel.target().property() {
            Property::Translation => 0,
            Property::Rotation => 1,
            Property::Scale => 2,
            Property::MorphTargetWeights => {
                let node = channel.target().node().index();
                let targets = morphs.targets_of(node);
                if targets == 0 {
                    report.report.warnings.push(format!(
                        "{object}: weights of nodes[{node}], which draws no morph targets; ignored"
                    ));
                    continue;
                }
                let read = read_channel(buffers, &channel, &object, targets)?;
                let span = read.times[read.times.len() - 1] - read.times[0];
                if read.interpolation == Interpolation::CubicSpline && span / step > MAX_KEYS as f64
                {
                    return Err(GltfError::Invalid {
                        file: buffers.file.to_string(),
                        object,
                        message: format!(
                            "resampling a CUBICSPLINE weights channel over {span} s would exceed {MAX_KEYS} keys"
                        ),
                    });
                }
                if let Some(&last) = read.times.last() {
                    duration = duration.max(last as f32);
                }
                weights.push((node, read));
                continue;
            }
        };
        let node = channel.target().node().index();
        let read = read_channel(buffers, &channel, &object, 0)?;
        if let Some(&last) = read.times.last() {
            duration = duration.max(last as f32);
        }
        if bone_of.get(node).copied().flatten().is_none() {
            continue;
        }
        let entry = per_node.entry(node).or_default();
        if entry[slot].is_some() {
            report.report.warnings.push(format!(
                "{object}: a second channel for the same node and property; the later one wins"
            ));
        }
        entry[slot] = Some(read);
    }
    let mut tracks = Vec::new();
    let mut total_keys = 0usize;
    for (&node, channels) in &per_node {
        let Some(bone) = bone_of.get(node).copied().flatten() else {
            continue;
        };
        let mut times: Vec<f32> = Vec::new();
        for ch in channels.iter().flatten() {
            for (k, &t) in ch.times.iter().enumerate() {
                let t = t as f32;
                times.push(t);
                if ch.interpolation == Interpolation::Step && k > 0 {
                    let below = f32_below(t);
                    if f64::from(below) > ch.times[k - 1] {
                        times.push(below);
                    }
                }
            }
            if ch.interpolation == Interpolation::CubicSpline {
                let (first, last) = (ch.times[0], ch.times[ch.times.len() - 1]);
                if (last - first) / step > MAX_KEYS as f64 {
                    return Err(GltfError::Invalid {
                        file: buffers.file.to_string(),
                        object: format!("animations[{ai}]"),
                        message: format!(
                            "resampling a CUBICSPLINE channel of nodes[{node}] over {first}..{last} s would exceed {MAX_KEYS} keys"
                        ),
                    });
                }
                let mut i = libm::ceil(first / step) as u64;
                loop {
                    let t = i as f64 * step;
                    if t >= last {
                        break;
                    }
                    if t > first {
                        times.push(t as f32);
                    }
                    i += 1;
                }
            }
        }
        times.sort_by(f32::total_cmp);
        times.dedup();
        total_keys += times.len();
        if total_keys > MAX_KEYS {
            return Err(GltfError::Invalid {
                file: buffers.file.to_string(),
                object: format!("animations[{ai}]"),
                message: format!("more than {MAX_KEYS} keys in one clip (docs/format.md §3)"),
            });
        }
        let (rt, rr, rs) = rest[node];
        let mut keys = Vec::with_capacity(times.len());
        for &t in &times {
            let tt = f64::from(t);
            let translation = match &channels[0] {
                Some(c) => {
                    let v = c.sample(tt);
                    [v[0] as f32, v[1] as f32, v[2] as f32]
                }
                None => rt,
            };
            let rotation = match &channels[1] {
                Some(c) => {
                    let v = c.sample(tt);
                    normalize_quat([v[0], v[1], v[2], v[3]]).unwrap_or([0.0, 0.0, 0.0, 1.0])
                }
                None => rr,
            };
            let scale = match &channels[2] {
                Some(c) => {
                    let v = c.sample(tt);
                    [v[0] as f32, v[1] as f32, v[2] as f32]
                }
                None => rs,
            };
            keys.push(gom::Key {
                time: t,
                translation: mirror_vec3(translation),
                rotation: mirror_quat(rotation),
                scale,
            });
        }
        if keys.iter().any(|k| {
            k.translation
                .iter()
                .chain(&k.rotation)
                .chain(&k.scale)
                .any(|v| !v.is_finite())
        }) {
            return Err(GltfError::Invalid {
                file: buffers.file.to_string(),
                object: format!("animations[{ai}]"),
                message: format!("nodes[{node}]: an animated value overflows f32"),
            });
        }
        tracks.push(gom::Track {
            bone: bone as u32,
            keys,
        });
    }
    tracks.sort_by_key(|t| t.bone);
    let weight_tracks = morphs.tracks(&weights, step, duration);
    let (float_tracks, events) =
        super::clip_events::read(animation, duration, &mut report.report.warnings);
    Ok(gom::Clip {
        weight_tracks,
        name,
        duration,
        sample_rate,
        root_bone_index: -1,
        flags: gom::ClipFlags::empty(),
        tracks,
        compressed: None,
        extras: gom::ClipExtras {
            float_tracks,
            events,
            ..Default::default()
        },
    })
}
