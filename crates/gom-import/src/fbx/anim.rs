//! Animation stacks: sampling, which nodes move, and clips.

use gom::{Clip, ClipFlags, Key, Track};

use super::eval::{KeyTime, NodeEval, NodeStatic, Stored};
use super::follow::Follow;
use super::mat::{self, M64};
use super::skeleton::Skel;
use super::times::{key_sample_times, sample_times, Varying};
use super::FbxOptions;
use crate::optimize::keys;
use crate::report::{ClipReport, Report};

/// The most samples one stack may take (a clip holds at most this many keys, D12).
const MAX_SAMPLES: usize = gom::limits::MAX_KEYS_PER_CLIP as usize;

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

/// Samples every stack at every node whose placement it animates, at every source key
/// and in between at about the sample rate ([`key_sample_times`]), with gom's own
/// evaluation of the curves ([`super::eval`]).
///
/// The (stack, moving node) pairs are sampled on rayon's pool when there are at least
/// `parallel_work` node samples ([`super::map_in_order`]). Each node's samples depend
/// only on the file, so the result is the same at every thread count.
pub(crate) fn sample_stacks(
    root: &ufbx::SceneRoot,
    statics: &[NodeStatic],
    stored: &Stored,
    options: &FbxOptions,
    report: &mut Report,
    parallel_work: usize,
) -> Vec<SampledStack> {
    let scene: &ufbx::Scene = root;
    let mut out = Vec::new();
    // (stack, node) of every node a stack moves, and each stack's sample times on the
    // scene timeline.
    let mut jobs: Vec<(usize, usize)> = Vec::new();
    let mut timelines: Vec<Vec<f64>> = Vec::new();
    for (stack_index, stack) in scene.anim_stacks.iter().enumerate() {
        let (sampled, moving_nodes, timeline) =
            plan_stack(scene, stack, statics, stored, options, report);
        jobs.extend(moving_nodes.iter().map(|&i| (stack_index, i)));
        timelines.push(timeline);
        stack_warnings(stack, report);
        out.push(sampled);
    }
    let work: usize = jobs.iter().map(|&(s, _)| timelines[s].len()).sum();
    let sampled = super::map_in_order(jobs.clone(), work >= parallel_work, |(s, i)| {
        sample_node(root, statics, s, i, &timelines[s])
    });
    for ((s, i), samples) in jobs.into_iter().zip(sampled) {
        out[s].locals[i] = samples;
    }
    out
}

/// One stack before sampling: the stack with the transforms of the nodes it does not
/// move filled in (those it moves are left empty), the nodes it moves, and its sample
/// times on the scene timeline.
fn plan_stack(
    scene: &ufbx::Scene,
    stack: &ufbx::AnimStack,
    statics: &[NodeStatic],
    stored: &Stored,
    options: &FbxOptions,
    report: &mut Report,
) -> (SampledStack, Vec<usize>, Vec<f64>) {
    let duration = stack.time_end - stack.time_begin;
    let duration = if duration.is_finite() {
        duration.max(0.0)
    } else {
        0.0
    };
    let anim: &ufbx::Anim = &stack.anim;
    // Only nodes with animated transform properties (or animated scale helpers) can
    // move; the others keep their stored transform (one entry stands for every
    // sample), as do nodes whose curves hold one value.
    let begin = stack.time_begin;
    let mut locals: Vec<Vec<ufbx::Transform>> = Vec::with_capacity(scene.nodes.count);
    let mut moving_nodes = Vec::new();
    let mut keys = Vec::new();
    let mut spans = Vec::new();
    for (i, (node, st)) in scene.nodes.iter().zip(statics.iter()).enumerate() {
        match NodeEval::new(scene, anim, node, st) {
            None => locals.push(vec![stored.local[i]]),
            Some(mut e) if e.is_constant() => locals.push(vec![e.eval(begin)]),
            Some(e) => {
                e.key_times(&mut keys);
                e.varying_spans(&mut spans);
                moving_nodes.push(i);
                // Filled by the sampling of the moving nodes.
                locals.push(Vec::new());
            }
        }
    }
    let rate = f64::from(options.sample_rate);
    let name: &str = &stack.element.name;
    let samples = StackSamples {
        name,
        begin,
        duration,
        rate,
        moving: moving_nodes.len().max(1),
    };
    let (times, timeline) = samples.times(&keys, Varying::new(spans), report);
    let sampled = SampledStack {
        name: name.to_string(),
        times,
        duration,
        locals,
    };
    (sampled, moving_nodes, timeline)
}

/// What sets a stack's sample times besides its keys.
struct StackSamples<'a> {
    name: &'a str,
    begin: f64,
    duration: f64,
    rate: f64,
    /// The number of moving nodes (at least 1).
    moving: usize,
}

impl StackSamples<'_> {
    /// The sample times relative to the stack start and on the scene timeline: at the
    /// keys ([`key_sample_times`]), or on the regular grid when a clip would hold more
    /// than [`MAX_SAMPLES`] keys (reported).
    fn times(
        &self,
        keys: &[KeyTime],
        varying: Varying,
        report: &mut Report,
    ) -> (Vec<f64>, Vec<f64>) {
        let (duration, rate, moving) = (self.duration, self.rate, self.moving);
        // A clip holds at most MAX_SAMPLES keys (D12): bound the samples so that the
        // moving nodes' keys fit, which also bounds memory by the file's content.
        let max_samples = MAX_SAMPLES / moving;
        let grid = sample_times(duration, rate, max_samples);
        let capped = grid.len() >= max_samples.max(2) && duration * rate > grid.len() as f64;
        if capped {
            report.warn(format!(
                "animation stack \"{}\": {duration} s at {rate} Hz for {moving} moving node(s) exceeds {MAX_SAMPLES} keys; sampled {} times instead",
                self.name,
                grid.len()
            ));
        }
        let pairs = if capped {
            None
        } else {
            key_sample_times(keys, &varying, self.begin, duration, rate, max_samples)
        };
        match pairs {
            Some(p) => p.into_iter().unzip(),
            // Capped, or the keys would give more samples than allowed: the regular
            // grid (which fits).
            None => grid.iter().map(|&t| (t, self.begin + t)).unzip(),
        }
    }
}

/// Whether property `prop` of `element` feeds a blend channel's `DeformPercent`
/// (older files animate a channel's weight as a property of the model or geometry
/// named after the shape, which ufbx connects to the channel): its curve becomes
/// weight tracks through the channel.
fn drives_blend_weight(element: &ufbx::Element, prop: &str) -> bool {
    element.connections_src.iter().any(|c| {
        &*c.src_prop == prop
            && &*c.dst_prop == "DeformPercent"
            && c.dst.type_ == ufbx::ElementType::BlendChannel
    })
}

/// The warning that stack `stack` animates property `prop` of `element` and nothing
/// converts it; `super::custom_props` takes it back for the properties it keeps.
pub(crate) fn not_converted(stack: &ufbx::AnimStack, prop: &str, element: &str) -> String {
    format!(
        "animation stack \"{}\": animated property \"{prop}\" of \"{element}\" not converted (GOM animates bone transforms and blend-shape weights only)",
        &*stack.element.name
    )
}

/// Warnings for what a stack animates that GOM v1 cannot hold.
fn stack_warnings(stack: &ufbx::AnimStack, report: &mut Report) {
    for layer in stack.layers.iter() {
        for prop in layer.anim_props.iter() {
            let p: &str = &prop.prop_name;
            if matches!(p, "Lcl Translation" | "Lcl Rotation" | "Lcl Scaling") {
                continue;
            }
            // A blend channel's weight becomes weight tracks (`super::shape_anim`).
            if p == "DeformPercent" && prop.element.type_ == ufbx::ElementType::BlendChannel {
                continue;
            }
            if drives_blend_weight(&prop.element, p) {
                continue;
            }
            let msg = not_converted(stack, p, &prop.element.name);
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
}

/// Node `node`'s local transform in stack `stack` at every time of `times` (on the
/// scene timeline).
fn sample_node(
    root: &ufbx::SceneRoot,
    statics: &[NodeStatic],
    stack: usize,
    node: usize,
    times: &[f64],
) -> Vec<ufbx::Transform> {
    let scene: &ufbx::Scene = root;
    let anim = &scene.anim_stacks[stack].anim;
    match NodeEval::new(scene, anim, &scene.nodes[node], &statics[node]) {
        Some(mut e) => times.iter().map(|&t| e.eval(t)).collect(),
        None => Vec::new(),
    }
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

/// Per node (typed id): whether any stack moves it away from its stored transform.
pub(crate) fn animated_nodes(
    scene: &ufbx::Scene,
    stored: &Stored,
    stacks: &[SampledStack],
) -> Vec<bool> {
    scene
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            !node.is_root
                && stacks.iter().any(|s| {
                    s.locals
                        .get(i)
                        .is_some_and(|l| l.iter().any(|t| !same_transform(t, &stored.local[i])))
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

/// A track's outcome: the track and its key count before reduction, or `None` when
/// the bone's track is not needed.
pub(crate) type TrackOut = Option<(Track, u64)>;

/// What the clips are built from besides the sampled stacks: each stack's sample
/// indices with their clip times (strictly ascending, within the clip), and each
/// bone's measure for key reduction.
pub(crate) struct ClipPlan {
    times: Vec<Vec<(usize, f32)>>,
    metrics: Vec<keys::JointMetric>,
}

impl ClipPlan {
    /// The plan of `stacks`' clips; `skinned` gives the skinned vertices that set the
    /// reduction's measuring distances.
    pub(crate) fn new(
        stacks: &[SampledStack],
        skel: &Skel,
        skinned: &[keys::SkinnedVertices<'_>],
        options: &FbxOptions,
    ) -> ClipPlan {
        let metrics = keys::joint_metrics(&skel.bones, skinned, options.key_tolerance.distance);
        let times = stacks.iter().map(clip_times).collect();
        ClipPlan { times, metrics }
    }

    /// Every clip's source-node tracks, stack-major in bone order (the order
    /// [`build_clips`] takes them in); on rayon's pool when they hold at least
    /// `parallel_work` keys.
    pub(crate) fn tracks(
        &self,
        stacks: &[SampledStack],
        skel: &Skel,
        options: &FbxOptions,
        parallel_work: usize,
    ) -> Vec<TrackOut> {
        let mut jobs: Vec<(usize, usize)> = Vec::new();
        for si in 0..stacks.len() {
            for (b, &node) in skel.bone_nodes.iter().enumerate() {
                if node != u32::MAX {
                    jobs.push((si, b));
                }
            }
        }
        let work: usize = jobs.iter().map(|&(si, _)| self.times[si].len()).sum();
        super::map_in_order(jobs, work >= parallel_work, |(si, b)| {
            self.track(&stacks[si], &self.times[si], skel, b, options)
        })
    }

    /// Bone `b`'s track in one stack: its keys at `times`, hemisphere-continuous and
    /// reduced; `None` when the bone stays at its rest pose.
    fn track(
        &self,
        stack: &SampledStack,
        times: &[(usize, f32)],
        skel: &Skel,
        b: usize,
        options: &FbxOptions,
    ) -> TrackOut {
        let node_id = skel.bone_nodes[b];
        let metric = &self.metrics[b];
        let tolerance = f64::from(options.key_tolerance.tolerance);
        let mut track_keys: Vec<Key> = times
            .iter()
            .filter_map(|&(k, tf)| stack.local(node_id, k).map(|t| key_of(tf, t)))
            .collect();
        if track_keys.is_empty() {
            return None;
        }
        keys::make_hemisphere_continuous(&mut track_keys);
        let measured = keys::Measured::new(&track_keys);
        if let Some(rest) = &skel.rest_keys[b] {
            if measured.stays_at(rest, metric, tolerance.max(1e-7)) {
                return None;
            }
        }
        let before = track_keys.len() as u64;
        let reduced = if options.reduce_keys {
            measured.reduce(metric, tolerance)
        } else {
            drop(measured);
            track_keys
        };
        let track = Track {
            bone: b as u32,
            keys: reduced,
        };
        Some((track, before))
    }
}

/// A stack's sample indices with their clip times: as `f32`, strictly ascending and
/// within `[0, duration]`.
fn clip_times(stack: &SampledStack) -> Vec<(usize, f32)> {
    let duration = stack.duration as f32;
    let mut times: Vec<(usize, f32)> = Vec::with_capacity(stack.times.len());
    for (k, t) in stack.times.iter().enumerate() {
        let tf = (*t as f32).min(duration);
        if times.last().is_none_or(|(_, last)| tf > *last) {
            times.push((k, tf));
        }
    }
    times
}

/// One clip per stack, from the outcomes of [`track_tasks`] (in their order).
pub(crate) fn build_clips(
    stacks: &[SampledStack],
    plan: &ClipPlan,
    tracks: Vec<TrackOut>,
    skel: &Skel,
    follow: &Follow,
    options: &FbxOptions,
    report: &mut Report,
) -> Vec<Clip> {
    let metrics = &plan.metrics;
    let per_stack = skel.bone_nodes.iter().filter(|&&n| n != u32::MAX).count();
    let mut tracks = tracks.into_iter();
    let mut clips = Vec::new();
    for (stack, times) in stacks.iter().zip(&plan.times) {
        let duration = stack.duration as f32;
        let mut clip = Clip {
            weight_tracks: Vec::new(),
            name: stack.name.clone(),
            duration,
            sample_rate: options.sample_rate,
            root_bone_index: -1,
            flags: ClipFlags::empty(),
            tracks: Vec::new(),
            compressed: None,
            extras: Default::default(),
        };
        let mut cr = ClipReport {
            name: stack.name.clone(),
            duration,
            ..Default::default()
        };
        for (track, before) in tracks.by_ref().take(per_stack).flatten() {
            cr.keys_before += before;
            cr.keys_after += track.keys.len() as u64;
            clip.tracks.push(track);
        }
        // Extra bones of meshes that follow their node.
        if !follow.extra.is_empty() {
            let followed = FollowTracks {
                stack,
                times,
                skel,
                metrics,
                options,
            };
            followed.add(follow, &mut clip, &mut cr, report);
        }
        for track in held_tracks(&follow.held) {
            cr.keys_before += 1;
            cr.keys_after += 1;
            clip.tracks.push(track);
        }
        cr.tracks = clip.tracks.len();
        if clip.tracks.len() == follow.held.len() && stack.locals.iter().all(|l| l.len() <= 1) {
            report.clip_moves_no_node("animation stack", &stack.name);
            continue;
        }
        if cr.keys_after > u64::from(gom::limits::MAX_KEYS_PER_CLIP) {
            report.warn(format!(
                "clip \"{}\" holds {} keys, more than a GOM reader accepts ({})",
                clip.name,
                cr.keys_after,
                gom::limits::MAX_KEYS_PER_CLIP
            ));
        }
        report.clips.push(cr);
        clips.push(clip);
    }
    clips
}

/// What the tracks of the extra bones of meshes that follow their node are made from
/// in one clip.
struct FollowTracks<'a> {
    stack: &'a SampledStack,
    times: &'a [(usize, f32)],
    skel: &'a Skel,
    metrics: &'a [keys::JointMetric],
    options: &'a FbxOptions,
}

impl FollowTracks<'_> {
    /// Adds the extra bones' tracks to `clip` (and their keys to `cr`): local =
    /// boneWorld(t) * inverse(meshBind).
    fn add(&self, follow: &Follow, clip: &mut Clip, cr: &mut ClipReport, report: &mut Report) {
        let (skel, times) = (self.skel, self.times);
        let tolerance = f64::from(self.options.key_tolerance.tolerance);
        // All samples' bone matrices in one buffer, `nb` per sample.
        let nb = skel.bones.len();
        let mut worlds = vec![mat::ID; nb * times.len()];
        for (w, &(k, _)) in worlds.chunks_exact_mut(nb).zip(times.iter()) {
            bone_worlds(self.stack, skel, k, w);
        }
        for &(b, src, inv_t) in &follow.extra {
            let mut track_keys: Vec<Key> = Vec::with_capacity(times.len());
            let mut worst = 0.0f64;
            for (w, &(_, tf)) in worlds.chunks_exact(nb).zip(times.iter()) {
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
            let reduced = if self.options.reduce_keys {
                keys::reduce(&track_keys, &self.metrics[b], tolerance)
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
}

/// A zero-length clip holding the file's stored node transforms for every bone whose
/// stored local transform differs from its bind local (and the identity for the extra
/// bones of meshes bound elsewhere, `held`), or `None` when there is none.
pub(crate) fn stored_pose_clip(
    stored: &Stored,
    skel: &Skel,
    held: &[usize],
    options: &FbxOptions,
    name: &str,
) -> Option<Clip> {
    let mut tracks = Vec::new();
    for (b, &node_id) in skel.bone_nodes.iter().enumerate() {
        if skel.rest_keys[b].is_some() || node_id == u32::MAX {
            continue;
        }
        let local = stored.local.get(node_id as usize)?;
        tracks.push(Track {
            bone: b as u32,
            keys: vec![key_of(0.0, local)],
        });
    }
    tracks.extend(held_tracks(held));
    (!tracks.is_empty()).then(|| Clip {
        weight_tracks: Vec::new(),
        name: name.to_string(),
        duration: 0.0,
        sample_rate: options.sample_rate,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks,
        compressed: None,
        extras: Default::default(),
    })
}

/// The tracks of the extra bones of meshes bound elsewhere (`rebind`): one identity
/// key each, so that each follows its joint.
fn held_tracks(held: &[usize]) -> impl Iterator<Item = Track> + '_ {
    held.iter().map(|&b| Track {
        bone: b as u32,
        keys: vec![super::rebind::held_key()],
    })
}
