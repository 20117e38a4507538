//! Animation stacks: sampling, which nodes move, and clips.

use gom::{Clip, ClipFlags, Key, Track};

use super::eval::{KeyTime, NodeEval, NodeStatic, Stored};
use super::follow::Follow;
use super::mat::{self, M64};
use super::skeleton::Skel;
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

/// The f32 just below `x` (`x > 0`), or `None` at zero.
fn f32_below(x: f32) -> Option<f32> {
    (x > 0.0 && x.is_finite()).then(|| f32::from_bits(x.to_bits() - 1))
}

/// The f32 just above `x` (`x >= 0`).
fn f32_above(x: f32) -> Option<f32> {
    (0.0..f32::MAX)
        .contains(&x)
        .then(|| f32::from_bits((x + 0.0).to_bits() + 1))
}

/// Spans of the timeline in which some moving node's transform may change: sorted,
/// disjoint open intervals (from [`NodeEval::varying_spans`]).
pub(crate) struct Varying(Vec<(f64, f64)>);

impl Varying {
    /// The union of `spans` (empty and NaN spans dropped).
    pub(crate) fn new(mut spans: Vec<(f64, f64)>) -> Varying {
        spans.retain(|&(a, b)| a < b);
        spans.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
        let mut merged: Vec<(f64, f64)> = Vec::with_capacity(spans.len());
        for (a, b) in spans {
            match merged.last_mut() {
                Some(last) if a < last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Varying(merged)
    }

    /// Everything may change (no knowledge of where the transforms are constant).
    #[cfg(test)]
    pub(crate) fn everywhere() -> Varying {
        Varying(vec![(f64::NEG_INFINITY, f64::INFINITY)])
    }

    /// Whether some span meets the open interval `(a, b)`.
    pub(crate) fn meets(&self, a: f64, b: f64) -> bool {
        let i = self.0.partition_point(|s| s.1 <= a);
        self.0.get(i).is_some_and(|s| s.0 < b)
    }
}

/// The sample times of a clip: every source key inside `[0, duration]` (key times are
/// relative to the stack start `begin`), the clip's ends, and between two consecutive
/// such times evenly spaced samples `1 / rate` apart or as near to it as the gap
/// allows (a gap of `g` seconds gets `max(1, round(g * rate))` intervals) where a
/// transform may change in the gap (`varying`); a gap in which nothing moves (a hold
/// between keys, or the constant extrapolation after the last key) needs no sample
/// inside: its two ends give the same transform. So every
/// source key is a sample, curves between keys are sampled at about the rate, and a
/// file whose keys are already that dense keeps its keys. A step (constant
/// interpolation) gets a second sample one `f32` step before or after its key, so that
/// the jump stays a jump. Times that round to the same `f32` are one sample. `None`
/// when that would be more than `max_samples` samples.
///
/// Each sample comes as (time relative to `begin`, time on the scene timeline): a
/// source key's sample is its own key time on the timeline (not `begin` plus its
/// relative time, which may round to a neighbour), so its value is the key's value.
pub(crate) fn key_sample_times(
    keys: &[KeyTime],
    varying: &Varying,
    begin: f64,
    duration: f64,
    rate: f64,
    max_samples: usize,
) -> Option<Vec<(f64, f64)>> {
    if duration.is_nan() || duration <= 0.0 {
        return Some(vec![(0.0, begin)]);
    }
    if keys.len() > max_samples {
        return None;
    }
    let mut anchors: Vec<(f64, f64)> = vec![(0.0, begin), (duration, begin + duration)];
    for k in keys {
        let t = k.time - begin;
        if !(t.is_finite() && t >= 0.0 && t <= duration) {
            continue;
        }
        anchors.push((t, k.time));
        let t32 = t as f32;
        let step = |x: f32| (f64::from(x), begin + f64::from(x));
        if k.step_before {
            anchors.extend(f32_below(t32).map(step));
        }
        if k.step_after {
            anchors.extend(f32_above(t32).map(step));
        }
    }
    anchors.retain(|&(t, _)| (0.0..=duration).contains(&t));
    // Equal pairs are identical values: an unstable sort is deterministic here.
    anchors.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    // The anchors' times on the timeline before merging (sorted, as the anchors are):
    // a gap that holds one inside (two anchors closer than one `f32` step are one
    // sample time) is sampled as a varying one.
    let all_at: Vec<f64> = anchors.iter().map(|a| a.1).collect();
    anchors.dedup_by(|b, a| (a.0 as f32) == (b.0 as f32));
    let key_inside = |a: f64, b: f64| {
        let i = all_at.partition_point(|&t| t <= a);
        all_at.get(i).is_some_and(|&t| t < b)
    };
    let intervals = |a: (f64, f64), b: (f64, f64)| {
        if varying.meets(a.1, b.1) || key_inside(a.1, b.1) {
            ((b.0 - a.0) * rate).round().max(1.0)
        } else {
            1.0
        }
    };
    let total: f64 = anchors.windows(2).map(|w| intervals(w[0], w[1])).sum();
    if total + 1.0 > max_samples as f64 {
        return None;
    }
    let mut times = Vec::with_capacity(total as usize + 1);
    for w in anchors.windows(2) {
        let (a, b) = (w[0], w[1]);
        let n = intervals(a, b) as usize;
        times.push(a);
        times.extend((1..n).map(|k| {
            let f = k as f64 / n as f64;
            (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f)
        }));
    }
    times.extend(anchors.last());
    times.dedup_by(|b, a| (a.0 as f32) == (b.0 as f32));
    Some(times)
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
            // More samples than allowed: the regular grid (which fits).
            key_sample_times(keys, &varying, self.begin, duration, rate, max_samples)
        };
        match pairs {
            Some(p) => p.into_iter().unzip(),
            None => grid.iter().map(|&t| (t, self.begin + t)).unzip(),
        }
    }
}

/// Warnings for what a stack animates that GOM v1 cannot hold.
fn stack_warnings(stack: &ufbx::AnimStack, report: &mut Report) {
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
    let tolerance = f64::from(options.key_tolerance.tolerance);
    let per_stack = skel.bone_nodes.iter().filter(|&&n| n != u32::MAX).count();
    let mut tracks = tracks.into_iter();
    let mut clips = Vec::new();
    for (stack, times) in stacks.iter().zip(&plan.times) {
        let duration = stack.duration as f32;
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
        for (track, before) in tracks.by_ref().take(per_stack).flatten() {
            cr.keys_before += before;
            cr.keys_after += track.keys.len() as u64;
            clip.tracks.push(track);
        }
        // Extra bones of meshes that follow their node: local = boneWorld(t) * inverse(meshBind).
        if !follow.extra.is_empty() {
            // All samples' bone matrices in one buffer, `nb` per sample.
            let nb = skel.bones.len();
            let mut worlds = vec![mat::ID; nb * times.len()];
            for (w, &(k, _)) in worlds.chunks_exact_mut(nb).zip(times.iter()) {
                bone_worlds(stack, skel, k, w);
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

/// A zero-length clip holding the file's stored node transforms for every bone whose
/// stored local transform differs from its bind local, or `None` when there is none.
pub(crate) fn stored_pose_clip(
    stored: &Stored,
    skel: &Skel,
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
    fn held_gaps_are_sampled_at_their_ends_only() {
        // Keys at 0 and 0.8 s of a 3.3 s stack; the curves vary between them and hold
        // after the last key.
        let keys: Vec<KeyTime> = [0.0, 0.8]
            .iter()
            .map(|&time| KeyTime {
                time,
                step_before: false,
                step_after: false,
            })
            .collect();
        let varying = Varying::new(vec![(0.0, 0.8), (0.0, 0.4), (0.5, 0.8)]);
        let t = key_sample_times(&keys, &varying, 0.0, 3.3, 30.0, 10_000).unwrap();
        // 24 intervals in [0, 0.8], one for the hold.
        assert_eq!(t.len(), 26);
        assert_eq!(t[24], (0.8, 0.8));
        assert_eq!(t[25], (3.3, 3.3));
        assert!((t[1].0 - 0.8 / 24.0).abs() < 1e-15);
        // Varying everywhere: the hold is sampled at the rate too.
        let t = key_sample_times(&keys, &Varying::everywhere(), 0.0, 3.3, 30.0, 10_000);
        assert_eq!(t.unwrap().len(), 100);
        // A span that only touches a gap's end does not make it vary.
        let v = Varying::new(vec![(f64::NEG_INFINITY, 0.0), (3.3, f64::INFINITY)]);
        assert!(!v.meets(0.0, 3.3) && v.meets(-1.0, 0.5) && v.meets(3.0, 4.0));
        assert!(Varying::new(vec![(1.0, 2.0), (1.5, 3.0)]).meets(2.5, 2.6));
    }

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

    fn key(time: f64) -> KeyTime {
        KeyTime {
            time,
            step_before: false,
            step_after: false,
        }
    }

    #[test]
    fn key_sample_times_hit_every_key_and_fill_gaps_at_the_rate() {
        // Stack from 1 s to 3 s; keys at 24 fps over [1, 1.5], one at 2.9 s.
        let mut keys: Vec<KeyTime> = (0..=12).map(|f| key(1.0 + f64::from(f) / 24.0)).collect();
        keys.push(key(2.9));
        keys.push(key(7.0)); // outside the stack: ignored
        let pairs =
            key_sample_times(&keys, &Varying::everywhere(), 1.0, 2.0, 30.0, 10_000).unwrap();
        let t: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        // Every key inside the stack is a sample (to f32, as clip times are stored),
        // evaluated at the key's own time on the timeline.
        for k in keys.iter().filter(|k| k.time <= 3.0) {
            let want = (k.time - 1.0) as f32;
            assert!(
                pairs
                    .iter()
                    .any(|&(x, at)| x as f32 == want && at == k.time),
                "key {} missing",
                k.time
            );
        }
        // Every other sample is evaluated at its relative time after the start.
        assert!(pairs.iter().all(|&(x, at)| (at - 1.0 - x).abs() < 1e-12));
        assert_eq!(t[0], 0.0);
        assert_eq!(*t.last().unwrap(), 2.0);
        assert!(t.windows(2).all(|w| (w[0] as f32) < (w[1] as f32)));
        // Keys 1/24 s apart are not subdivided at 30 Hz (round(1.25) = 1 interval).
        assert_eq!(t.iter().filter(|&&x| x < 0.5 + 1e-9).count(), 13);
        // The 1.4 s gap from 0.5 s to 1.9 s gets round(42) = 42 intervals of 1/30 s.
        let gap: Vec<f64> = t
            .iter()
            .copied()
            .filter(|&x| x > 0.5 + 1e-9 && x < 1.9 - 1e-9)
            .collect();
        assert_eq!(gap.len(), 41);
        assert!((gap[0] - 0.5 - 1.4 / 42.0).abs() < 1e-12);
        // Too many samples: none returned (the caller falls back to the capped grid).
        assert!(key_sample_times(&keys, &Varying::everywhere(), 1.0, 2.0, 30.0, 50).is_none());
        // No duration: one sample.
        assert_eq!(
            key_sample_times(&keys, &Varying::everywhere(), 1.0, 0.0, 30.0, 50),
            Some(vec![(0.0, 1.0)])
        );
    }

    #[test]
    fn steps_get_a_sample_one_f32_step_away() {
        let keys = [
            KeyTime {
                time: 0.5,
                step_before: true,
                step_after: false,
            },
            KeyTime {
                time: 0.75,
                step_before: false,
                step_after: true,
            },
        ];
        let t = key_sample_times(&keys, &Varying::everywhere(), 0.0, 1.0, 30.0, 1000).unwrap();
        let t32: Vec<f32> = t.iter().map(|&(x, _)| x as f32).collect();
        let below = f32::from_bits(0.5f32.to_bits() - 1);
        let above = f32::from_bits(0.75f32.to_bits() + 1);
        assert!(t32.contains(&below) && t32.contains(&0.5));
        assert!(t32.contains(&0.75) && t32.contains(&above));
    }
}
