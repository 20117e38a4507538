//! The weight animation of blend channels (`DeformPercent`, evaluated by ufbx with
//! the stack's layers) into GOM weight tracks (`docs/extensions.md` §4.4): sampled at
//! the clip rate and at the curves' own keys, turned into each keyframe shape's
//! weight by FBX's in-between rule, and reduced to the keys linear interpolation
//! cannot replace within `crate::gltf::morph_anim::WEIGHT_TOLERANCE`.

use gom::morph::{WeightInterpolation, WeightKey, WeightTrack};
use gom::{Clip, ClipFlags, Model};

use super::mesh::morph::{effective_weights, ChannelTargets};
use super::mesh::MorphSource;
use super::times::sample_times;
use super::FbxOptions;
use crate::report::Report;

/// Gives every clip the weight tracks of its stack, and writes a clip holding only
/// weight tracks for a stack that moves no node but animates blend weights.
pub(crate) fn add_weight_tracks(
    scene: &ufbx::Scene,
    sources: &[MorphSource],
    options: &FbxOptions,
    model: &mut Model,
    report: &mut Report,
) {
    if sources.is_empty() {
        return;
    }
    for stack in scene.anim_stacks.iter() {
        let tracks = stack_tracks(scene, stack, sources, options);
        if tracks.is_empty() {
            continue;
        }
        clip_for_stack(stack, options, model, report).weight_tracks = tracks;
    }
}

/// The clip of `stack` (by its name); for a stack that moves no node, a new clip
/// without tracks, in place of the warning that no clip was written.
pub(crate) fn clip_for_stack<'m>(
    stack: &ufbx::AnimStack,
    options: &FbxOptions,
    model: &'m mut Model,
    report: &mut Report,
) -> &'m mut Clip {
    let name: &str = &stack.element.name;
    if let Some(i) = model.clips.iter().position(|c| c.name == name) {
        return &mut model.clips[i];
    }
    let note = format!("animation stack \"{name}\" moves no node: no clip written");
    report.warnings.retain(|w| *w != note);
    model.clips.push(Clip {
        name: name.to_string(),
        duration: duration(stack) as f32,
        sample_rate: options.sample_rate,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks: Vec::new(),
        weight_tracks: Vec::new(),
        compressed: None,
        extras: Default::default(),
    });
    let last = model.clips.len() - 1;
    &mut model.clips[last]
}

/// The stack's length in seconds (0 when not a finite positive span).
pub(crate) fn duration(stack: &ufbx::AnimStack) -> f64 {
    let d = stack.time_end - stack.time_begin;
    if d.is_finite() {
        d.max(0.0)
    } else {
        0.0
    }
}

/// The weight tracks of one stack, by mesh then target: one per keyframe shape of
/// each channel whose weight the stack changes from the stored one.
fn stack_tracks(
    scene: &ufbx::Scene,
    stack: &ufbx::AnimStack,
    sources: &[MorphSource],
    options: &FbxOptions,
) -> Vec<WeightTrack> {
    let d = duration(stack);
    let max = gom::limits::MAX_KEYS_PER_CLIP as usize;
    let grid = sample_times(d, f64::from(options.sample_rate), max);
    let mut out = Vec::new();
    for s in sources {
        let Some(mesh) = scene.nodes.get(s.node).and_then(|n| n.mesh.as_deref()) else {
            continue;
        };
        for ch in &s.channels {
            let Some(channel) = mesh
                .blend_deformers
                .get(ch.deformer)
                .and_then(|b| b.channels.get(ch.channel))
            else {
                continue;
            };
            let times = with_curve_keys(&grid, stack, channel, d);
            let weights: Vec<f64> = times
                .iter()
                .map(|&t| ufbx::evaluate_blend_weight(&stack.anim, channel, stack.time_begin + t))
                .collect();
            if weights
                .iter()
                .all(|&w| w == channel.weight || !w.is_finite())
            {
                continue;
            }
            out.extend(channel_tracks(
                s.mesh,
                ch,
                &times,
                &weights,
                options.reduce_keys,
            ));
        }
    }
    out
}

/// `grid` with the times of the keys of the channel's `DeformPercent` curves in the
/// stack (relative to its start, within `[0, duration]`), sorted, without repeats.
fn with_curve_keys(
    grid: &[f64],
    stack: &ufbx::AnimStack,
    channel: &ufbx::BlendChannel,
    duration: f64,
) -> Vec<f64> {
    let id = channel.element.element_id;
    super::times::with_prop_keys(grid, stack, id, "DeformPercent", duration)
}

/// One track per keyframe shape of `ch`, from the channel's weights at `times`.
fn channel_tracks(
    mesh: u32,
    ch: &ChannelTargets,
    times: &[f64],
    weights: &[f64],
    reduce: bool,
) -> Vec<WeightTrack> {
    let n = ch.target_weights.len();
    if n == 0 {
        return Vec::new();
    }
    let mut keys: Vec<Vec<WeightKey>> = vec![Vec::with_capacity(times.len()); n];
    let mut shares = vec![0.0; n];
    for (&t, &w) in times.iter().zip(weights) {
        let time = t as f32;
        if keys[0].last().is_some_and(|k| k.time >= time) || !w.is_finite() {
            continue;
        }
        effective_weights(&ch.target_weights, w, &mut shares);
        let limit = f64::from(gom::limits::MAX_MORPH_WEIGHT);
        for (k, &e) in keys.iter_mut().zip(&shares) {
            let weight = crate::optimize::mesh::canon(e.clamp(-limit, limit) as f32);
            k.push(WeightKey { time, weight });
        }
    }
    keys.into_iter()
        .enumerate()
        .filter(|(_, k)| !k.is_empty())
        .map(|(j, k)| WeightTrack {
            mesh,
            target: (ch.first_target + j) as u32,
            interpolation: WeightInterpolation::Linear,
            keys: if reduce {
                crate::gltf::morph_anim::reduce(k)
            } else {
                k
            },
        })
        .collect()
}
