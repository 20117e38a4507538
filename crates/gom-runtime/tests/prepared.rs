//! Prepared clips give the pose of the in-place sampler bit for bit.

mod common;

use common::*;
use gom::Track;
use gom_runtime::*;

/// A clip on `n` bones with irregular tracks: bone `b` has no track when `b % 5 == 4`,
/// one key when `b % 5 == 3`, otherwise 2 to 20 keys at random, increasing times
/// that start and end inside `[0, duration]`.
fn irregular_clip(n: usize, duration: f32, seed: u64) -> gom::Clip {
    let mut rng = Rng::new(seed);
    let tracks = (0..n as u32)
        .filter(|b| b % 5 != 4)
        .map(|bone| {
            let count = if bone % 5 == 3 {
                1
            } else {
                2 + (rng.unit() * 19.0) as usize
            };
            let mut time = rng.range(0.0, 0.2 * duration);
            let step = (duration - time) / count as f32;
            let keys = (0..count)
                .map(|_| {
                    let k = key(
                        time,
                        [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.0],
                        common::unit_quat(&mut rng),
                        [rng.range(0.5, 2.0), 1.0, rng.range(0.5, 2.0)],
                    );
                    time += step * rng.range(0.2, 1.0);
                    k
                })
                .collect();
            Track { bone, keys }
        })
        .collect();
    clip("irregular", duration, tracks)
}

fn bits(p: &LocalPose) -> Vec<[u32; 10]> {
    (0..p.bone_count())
        .map(|i| {
            let t = p.get(i).unwrap();
            let (a, q, s) = (t.translation, t.rotation, t.scale);
            [a.x, a.y, a.z, q.x, q.y, q.z, q.w, s.x, s.y, s.z].map(f32::to_bits)
        })
        .collect()
}

struct Both {
    asset: Asset<'static>,
    prepared: PreparedClip,
}

impl Both {
    fn new(n: usize, seed: u64) -> Both {
        let m = model(chain_of(n), vec![], vec![irregular_clip(n, 2.0, seed)]);
        let asset = Asset::from_model(&m).unwrap();
        let prepared = PreparedClip::new(&asset.clips()[0], asset.skeleton()).unwrap();
        Both { asset, prepared }
    }

    /// The in-place sampler's pose, from a fresh context (a seek from scratch).
    fn expected(&self, t: f32, playback: Playback) -> Vec<[u32; 10]> {
        let mut p = LocalPose::default();
        let clip = &self.asset.clips()[0];
        let mut ctx = SamplingContext::new();
        sample(clip, self.asset.skeleton(), t, playback, &mut ctx, &mut p).unwrap();
        bits(&p)
    }

    fn check(&self, ctx: &mut PreparedContext, t: f32, playback: Playback, what: &str) {
        let mut p = LocalPose::default();
        sample_prepared(&self.prepared, t, playback, ctx, &mut p);
        assert_eq!(bits(&p), self.expected(t, playback), "{what} at t={t}");
    }

    fn key_times(&self) -> Vec<f32> {
        let mut v: Vec<f32> = self.asset.clips()[0]
            .tracks()
            .iter()
            .flat_map(|t| t.keys().iter().map(|k| k.time))
            .collect();
        v.sort_by(f32::total_cmp);
        v.dedup();
        v
    }
}

#[test]
fn at_every_key_and_just_before_it_the_poses_are_identical() {
    let both = Both::new(13, 5);
    let mut ctx = PreparedContext::new();
    for t in both.key_times() {
        let before = f32::from_bits(t.to_bits() - 1);
        both.check(&mut ctx, before, Playback::Once, "just before a key");
        both.check(&mut ctx, t, Playback::Once, "on a key");
    }
}

#[test]
fn between_keys_and_outside_them_playing_forward_the_poses_are_identical() {
    let both = Both::new(13, 6);
    let mut ctx = PreparedContext::new();
    let times = both.key_times();
    both.check(&mut ctx, -1.0, Playback::Once, "before the first key");
    for w in times.windows(2) {
        for f in [0.25, 0.5, 0.9] {
            both.check(
                &mut ctx,
                w[0] + (w[1] - w[0]) * f,
                Playback::Once,
                "between",
            );
        }
    }
    both.check(&mut ctx, 5.0, Playback::Once, "after the last key");
    assert!(both.prepared.record_count() > 0);
}

#[test]
fn looping_across_the_end_many_times_the_poses_are_identical() {
    let both = Both::new(9, 7);
    let mut ctx = PreparedContext::new();
    // 60 frames per second for five loops and a bit, starting before zero.
    for i in 0..640 {
        let t = -0.3 + i as f32 / 60.0;
        both.check(&mut ctx, t, Playback::Loop, "looping");
    }
}

#[test]
fn random_seeks_backwards_and_forwards_give_identical_poses() {
    // 41 bones, up to 20 keys each: the stream is far longer than the bone count, so
    // seeks take every path (replay from the start, seek each bone, walk forward).
    let both = Both::new(41, 8);
    assert!(both.prepared.record_count() > 4 * 48);
    let mut rng = Rng::new(77);
    let mut ctx = PreparedContext::new();
    for i in 0..600 {
        let t = match i % 4 {
            0 => rng.range(-0.5, 2.5),
            1 => rng.range(0.0, 0.05),
            _ => rng.range(0.0, 2.0),
        };
        let playback = if i % 3 == 0 {
            Playback::Loop
        } else {
            Playback::Once
        };
        both.check(&mut ctx, t, playback, "random seek");
        both.check(&mut ctx, t + 0.004, playback, "a step after a seek");
        both.check(&mut ctx, t - 0.004, playback, "a step back after a seek");
    }
}

#[test]
fn one_context_follows_a_change_of_clip() {
    let a = Both::new(9, 10);
    let b = Both::new(9, 11);
    let mut ctx = PreparedContext::new();
    for i in 0..50 {
        let t = i as f32 * 0.037;
        a.check(&mut ctx, t, Playback::Loop, "clip a");
        b.check(&mut ctx, t, Playback::Loop, "clip b");
    }
}

#[test]
fn a_track_on_a_bone_the_skeleton_lacks_is_refused() {
    let m = model(chain_of(4), vec![], vec![random_clip(4, 3, 1.0, 1)]);
    let asset = Asset::from_model(&m).unwrap();
    let small = Skeleton::from_model(&chain_of(2)).unwrap();
    assert!(matches!(
        PreparedClip::new(&asset.clips()[0], &small),
        Err(Error::TrackBone { bone: 2, .. })
    ));
}
