//! Animation stacks: sampling, which nodes move, and clips.

use gom::{Clip, ClipFlags, Key, Track};

use super::follow::Follow;
use super::mat::{self, M64};
use super::skeleton::Skel;
use super::FbxOptions;
use crate::optimize::keys;
use crate::report::{ClipReport, Report};

/// The most samples one stack may take (a clip holds at most 1,000,000 keys, D12).
const MAX_SAMPLES: usize = 1_000_000;

/// One animation stack sampled at every node.
pub(crate) struct SampledStack {
    /// Stack name.
    pub name: String,
    /// Sample times relative to the stack start, seconds.
    pub times: Vec<f64>,
    /// Duration in seconds.
    pub duration: f64,
    /// Per node (by typed id): the local transform at each sample time, or a single
    /// entry for a node the stack does not animate.
    pub locals: Vec<Vec<ufbx::Transform>>,
}

impl SampledStack {
    /// The local transform of node `node` at sample `k`.
    pub fn local(&self, node: u32, k: usize) -> Option<&ufbx::Transform> {
        let l = self.locals.get(node as usize)?;
        if l.len() == 1 {
            l.first()
        } else {
            l.get(k)
        }
    }
}

/// Sample times `0, 1/rate, …` up to and including `duration`, at most `max_samples`
/// of them (evenly spread when the rate would give more).
fn sample_times(duration: f64, rate: f64, max_samples: usize) -> Vec<f64> {
    if duration.is_nan() || duration <= 0.0 {
        return vec![0.0];
    }
    let max_samples = max_samples.max(2);
    let intervals = (duration * rate - 1e-6).ceil().max(1.0);
    let capped = intervals >= max_samples as f64;
    let n = if capped {
        max_samples - 1
    } else {
        intervals as usize
    };
    let step = duration / n as f64;
    let exact = (duration * rate - n as f64).abs() < 1e-6;
    (0..=n)
        .map(|k| {
            if k == n {
                duration
            } else if exact || capped {
                k as f64 * step
            } else {
                k as f64 / rate
            }
        })
        .collect()
}

/// Samples every stack at every node.
pub(crate) fn sample_stacks(
    scene: &ufbx::Scene,
    options: &FbxOptions,
    report: &mut Report,
) -> Vec<SampledStack> {
    let rate = f64::from(options.sample_rate);
    let mut out = Vec::new();
    for stack in scene.anim_stacks.iter() {
        let duration = stack.time_end - stack.time_begin;
        let duration = if duration.is_finite() {
            duration.max(0.0)
        } else {
            0.0
        };
        let anim: &ufbx::Anim = &stack.anim;
        // Only nodes with animated properties in some layer can move; the others keep
        // their stored transform (one entry stands for every sample).
        let mut moves: Vec<bool> = scene
            .nodes
            .iter()
            .map(|node| {
                stack
                    .layers
                    .iter()
                    .any(|layer| !ufbx::find_anim_props(layer, &node.element).is_empty())
            })
            .collect();
        propagate_compensated_motion(scene, &mut moves);
        // A clip holds at most MAX_SAMPLES keys (D12): bound the samples so that the
        // moving nodes' keys fit, which also bounds memory by the file's content.
        let moving = moves.iter().filter(|m| **m).count().max(1);
        let max_samples = MAX_SAMPLES / moving;
        let times = sample_times(duration, rate, max_samples);
        if times.len() >= max_samples.max(2) && duration * rate > times.len() as f64 {
            report.warn(format!(
                "animation stack \"{}\": {duration} s at {rate} Hz for {moving} moving node(s) exceeds {MAX_SAMPLES} keys; sampled {} times instead",
                &*stack.element.name,
                times.len()
            ));
        }
        let locals = scene
            .nodes
            .iter()
            .zip(&moves)
            .map(|(node, &moves)| {
                if moves {
                    times
                        .iter()
                        .map(|t| ufbx::evaluate_transform(anim, node, stack.time_begin + t))
                        .collect()
                } else {
                    vec![node.local_transform]
                }
            })
            .collect();
        for layer in stack.layers.iter() {
            for prop in layer.anim_props.iter() {
                let p: &str = &prop.prop_name;
                if matches!(p, "Lcl Translation" | "Lcl Rotation" | "Lcl Scaling") {
                    continue;
                }
                let element: &str = &prop.element.name;
                let msg = format!(
                    "animation stack \"{}\": animated property \"{p}\" of \"{element}\" not converted (GOM v1 animates bone transforms only)",
                    &*stack.element.name
                );
                if !report.warnings.contains(&msg) {
                    report.warn(msg);
                }
            }
        }
        if stack.layers.count > 1 {
            report.warn(format!(
                "animation stack \"{}\": {} layers, baked into one clip as ufbx blends them",
                &*stack.element.name, stack.layers.count
            ));
        }
        out.push(SampledStack {
            name: stack.element.name.to_string(),
            times,
            duration,
            locals,
        });
    }
    out
}

/// Whether two transforms are the same within rounding noise.
fn same_transform(a: &ufbx::Transform, b: &ufbx::Transform) -> bool {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0);
    let dot = a.rotation.x * b.rotation.x
        + a.rotation.y * b.rotation.y
        + a.rotation.z * b.rotation.z
        + a.rotation.w * b.rotation.w;
    close(a.translation.x, b.translation.x)
        && close(a.translation.y, b.translation.y)
        && close(a.translation.z, b.translation.z)
        && close(a.scale.x, b.scale.x)
        && close(a.scale.y, b.scale.y)
        && close(a.scale.z, b.scale.z)
        && dot.abs() >= 1.0 - 1e-10
}

/// Under a compensated inherit mode (scale not inherited, or inherited per component)
/// ufbx folds the parent's scale into the child's local transform, so the child's
/// local transform changes when its parent's (or its scale node's) scale is animated,
/// even when the child has no animated property of its own. Marks such children as
/// moving, down the hierarchy, until nothing changes.
fn propagate_compensated_motion(scene: &ufbx::Scene, moves: &mut [bool]) {
    let moving = |moves: &[bool], node: &Option<ufbx::Ref<ufbx::Node>>| {
        node.as_ref().is_some_and(|n| {
            moves
                .get(n.element.typed_id as usize)
                .copied()
                .unwrap_or(false)
        })
    };
    loop {
        let mut changed = false;
        for (i, node) in scene.nodes.iter().enumerate() {
            let compensated = !matches!(node.original_inherit_mode, ufbx::InheritMode::Normal);
            if moves[i] || !compensated {
                continue;
            }
            if moving(moves, &node.parent) || moving(moves, &node.inherit_scale_node) {
                moves[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Per node (typed id): whether any stack moves it away from its stored transform.
pub(crate) fn animated_nodes(scene: &ufbx::Scene, stacks: &[SampledStack]) -> Vec<bool> {
    scene
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            !node.is_root
                && stacks.iter().any(|s| {
                    s.locals.get(i).is_some_and(|l| {
                        l.iter().any(|t| !same_transform(t, &node.local_transform))
                    })
                })
        })
        .collect()
}

/// A key from a ufbx transform (quaternion normalised, −0 written as +0).
pub(crate) fn key_of(time: f32, t: &ufbx::Transform) -> Key {
    let c = crate::optimize::mesh::canon;
    let q = [t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w];
    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let q = if len > 0.0 && len.is_finite() {
        q.map(|v| v / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    };
    Key {
        time: c(time),
        translation: [t.translation.x, t.translation.y, t.translation.z].map(|v| c(v as f32)),
        rotation: q.map(|v| c(v as f32)),
        scale: [t.scale.x, t.scale.y, t.scale.z].map(|v| c(v as f32)),
    }
}

/// Model-space matrices of the source nodes' bones at sample `k`, written into `world`
/// (one per bone; extra bones are left as identity).
fn bone_worlds(stack: &SampledStack, skel: &Skel, k: usize, world: &mut [M64]) {
    for (b, bone) in skel.bones.iter().enumerate() {
        let local = match stack.local(skel.bone_nodes[b], k) {
            Some(t) => mat::from_transform(t),
            None => mat::ID,
        };
        world[b] = match bone.parent_index() {
            Some(p) if p < b => mat::mul(&local, &world[p]),
            _ => local,
        };
    }
}

/// One clip per stack.
pub(crate) fn build_clips(
    stacks: &[SampledStack],
    skel: &Skel,
    follow: &Follow,
    meshes: &[gom::MeshPart],
    options: &FbxOptions,
    report: &mut Report,
) -> Vec<Clip> {
    let metrics = keys::joint_metrics(&skel.bones, meshes, options.key_tolerance.distance);
    let tolerance = f64::from(options.key_tolerance.tolerance);
    let mut clips = Vec::new();
    for stack in stacks {
        let duration = stack.duration as f32;
        // Times as f32, strictly ascending and within [0, duration].
        let mut times: Vec<(usize, f32)> = Vec::with_capacity(stack.times.len());
        for (k, t) in stack.times.iter().enumerate() {
            let tf = (*t as f32).min(duration);
            if times.last().is_none_or(|(_, last)| tf > *last) {
                times.push((k, tf));
            }
        }
        let mut clip = Clip {
            name: stack.name.clone(),
            duration,
            sample_rate: options.sample_rate,
            root_bone_index: -1,
            flags: ClipFlags(0),
            tracks: Vec::new(),
        };
        let mut cr = ClipReport {
            name: stack.name.clone(),
            duration,
            ..Default::default()
        };
        for (b, &node_id) in skel.bone_nodes.iter().enumerate() {
            if node_id == u32::MAX {
                continue;
            }
            let mut track_keys: Vec<Key> = times
                .iter()
                .filter_map(|&(k, tf)| stack.local(node_id, k).map(|t| key_of(tf, t)))
                .collect();
            if track_keys.is_empty() {
                continue;
            }
            keys::make_hemisphere_continuous(&mut track_keys);
            if let Some(rest) = &skel.rest_keys[b] {
                if track_keys
                    .iter()
                    .all(|k| keys::pose_error(rest, k, &metrics[b]) <= tolerance.max(1e-7))
                {
                    continue;
                }
            }
            cr.keys_before += track_keys.len() as u64;
            let reduced = if options.reduce_keys {
                keys::reduce(&track_keys, &metrics[b], tolerance)
            } else {
                track_keys
            };
            cr.keys_after += reduced.len() as u64;
            clip.tracks.push(Track {
                bone: b as u32,
                keys: reduced,
            });
        }
        // Extra bones of meshes that follow their node: local = boneWorld(t) * inverse(meshBind).
        if !follow.extra.is_empty() {
            // All samples' bone matrices in one buffer, `nb` per sample.
            let nb = skel.bones.len();
            let mut worlds = vec![mat::ID; nb * times.len()];
            for (w, &(k, _)) in worlds.chunks_exact_mut(nb).zip(&times) {
                bone_worlds(stack, skel, k, w);
            }
            for &(b, src, inv_t) in &follow.extra {
                let mut track_keys: Vec<Key> = Vec::with_capacity(times.len());
                let mut worst = 0.0f64;
                for (w, &(_, tf)) in worlds.chunks_exact(nb).zip(&times) {
                    let (t, q, s, err) = mat::decompose(&mat::mul(&w[src], &inv_t));
                    worst = worst.max(err);
                    track_keys.push(key_of(tf, &mat::transform_of(t, q, s)));
                }
                if worst > 1e-4 {
                    report.warn(format!(
                        "clip \"{}\": bone \"{}\" has shear (up to {worst:.2e}) that translation/rotation/scale keys cannot hold",
                        clip.name, skel.bones[b].name
                    ));
                }
                keys::make_hemisphere_continuous(&mut track_keys);
                cr.keys_before += track_keys.len() as u64;
                let reduced = if options.reduce_keys {
                    keys::reduce(&track_keys, &metrics[b], tolerance)
                } else {
                    track_keys
                };
                cr.keys_after += reduced.len() as u64;
                clip.tracks.push(Track {
                    bone: b as u32,
                    keys: reduced,
                });
            }
        }
        cr.tracks = clip.tracks.len();
        if cr.keys_after > 1_000_000 {
            report.warn(format!(
                "clip \"{}\" holds {} keys, more than a GOM reader accepts (1,000,000)",
                clip.name, cr.keys_after
            ));
        }
        report.clips.push(cr);
        clips.push(clip);
    }
    clips
}

/// A zero-length clip holding the file's stored node transforms for every bone whose
/// stored local transform differs from its bind local, or `None` when there is none.
pub(crate) fn stored_pose_clip(
    scene: &ufbx::Scene,
    skel: &Skel,
    options: &FbxOptions,
    name: &str,
) -> Option<Clip> {
    let mut tracks = Vec::new();
    for (b, &node_id) in skel.bone_nodes.iter().enumerate() {
        if skel.rest_keys[b].is_some() || node_id == u32::MAX {
            continue;
        }
        let node = scene.nodes.get(node_id as usize)?;
        tracks.push(Track {
            bone: b as u32,
            keys: vec![key_of(0.0, &node.local_transform)],
        });
    }
    (!tracks.is_empty()).then(|| Clip {
        name: name.to_string(),
        duration: 0.0,
        sample_rate: options.sample_rate,
        root_bone_index: -1,
        flags: ClipFlags(0),
        tracks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_times_cover_the_stack_and_end_exactly() {
        let t = sample_times(19.0 / 24.0, 30.0, 1000);
        // 0.79166 s at 30 Hz: 24 intervals (the last one shorter), 25 samples.
        assert_eq!(t.len(), 25);
        assert_eq!(t[0], 0.0);
        assert!((t[1] - 1.0 / 30.0).abs() < 1e-15);
        assert_eq!(*t.last().unwrap(), 19.0 / 24.0);
        assert!(t.windows(2).all(|w| w[1] > w[0]));
        let t = sample_times(1.0, 30.0, 1000);
        assert_eq!(t.len(), 31);
        assert_eq!(sample_times(0.0, 30.0, 1000), vec![0.0]);
        // Capped: 10 samples spread evenly over the whole duration.
        let t = sample_times(100.0, 30.0, 10);
        assert_eq!(t.len(), 10);
        assert_eq!(t[9], 100.0);
        assert!((t[1] - 100.0 / 9.0).abs() < 1e-12);
    }
}
