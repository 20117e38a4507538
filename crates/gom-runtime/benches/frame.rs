//! Prepared clips and the whole frame. Sampling 64, 128 and 1,023 bones from the clip
//! with every key (30 Hz for 2 s) and from the same clip after the importer's key
//! reduction (1 mm at 10 cm beyond each joint), in place ([`sample`]) and prepared
//! ([`sample_prepared`]), played forward at 60 frames per second and at random times.
//! Then the frame of 1, 16 and 256 characters (64 bones, 20,000 vertices with four
//! influences, positions and normals; each at its own time): sample two clips, blend
//! them, local to model, palette, skin; on one thread, and on all threads (wall time
//! only). See docs/performance.md (section "Prepared clips and the frame").

mod cpu_time;

use cpu_time::{cpu_time_selected, group, ThreadCpuTime};
use criterion::measurement::{Measurement, WallTime};
use criterion::{black_box, criterion_group, BenchmarkId, Criterion, Throughput};
use gom::math::{bind_world, from_trs, inverse_affine};
use gom::{Bone, Clip, ClipFlags, Key, MeshPart, Model, Skeleton, SkinWeights, Submesh, Track};
use gom_demo::quat_from_axis_angle;
use gom_import::optimize::keys::{joint_metrics, make_hemisphere_continuous, reduce};
use gom_runtime::{
    blend, local_to_model, sample, sample_prepared, skin, Asset, LocalPose, ModelPose, Palette,
    Playback, PreparedClip, PreparedContext, SamplingContext, SkinTargets,
};
use gom_test_support::rng::Rng;
use rayon::prelude::*;

const KEY_RATE: f32 = 30.0;
const DURATION: f32 = 2.0;
const FRAME: f32 = 1.0 / 60.0;

/// A unit vector in a random direction (the length of a random point of the cube,
/// at least 1e-3).
fn axis(rng: &mut Rng) -> [f32; 3] {
    let v = [0; 3].map(|_| rng.range(-1.0, 1.0));
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-3);
    v.map(|x| x / l)
}

/// A ternary tree of `n` bones (parent of `i` is `(i - 1) / 3`), `clips` clips each
/// swinging every bone about its own axis (keyed at 30 Hz for 2 s), and a mesh of
/// `vertices` vertices with four influences whose primary bone walks the skeleton
/// with the vertex index, as in a real mesh.
fn model(n: usize, clips: usize, vertices: usize) -> Model {
    let mut rng = Rng::new(0x5EED ^ n as u64);
    let bones: Vec<Bone> = (0..n)
        .map(|i| Bone {
            name: format!("b{i}"),
            path: format!("b{i}"),
            parent: if i == 0 { -1 } else { ((i - 1) / 3) as i32 },
            bind_local: from_trs(
                [rng.range(-0.2, 0.2), rng.range(0.1, 0.4), 0.0],
                quat_from_axis_angle(axis(&mut rng), rng.range(-0.5, 0.5)),
                [1.0; 3],
            ),
        })
        .collect();
    let clips = (0..clips).map(|c| swing_clip(n, c, &mut rng)).collect();
    let skeleton = Skeleton { bones };
    let inverse_bind = bind_world(&skeleton.bones)
        .iter()
        .map(|w| inverse_affine(w).unwrap_or(gom::IDENTITY))
        .collect();
    let positions = (0..vertices)
        .map(|_| [rng.range(-1.0, 1.0), rng.range(0.0, 2.0), 0.0])
        .collect();
    let normals = (0..vertices).map(|_| axis(&mut rng)).collect();
    let skin_w = (0..vertices)
        .map(|i| {
            let p = i * n / vertices.max(1);
            SkinWeights {
                bones: [p, p.saturating_sub(1) / 3, (p + 1) % n, (p + 2) % n].map(|x| x as u16),
                weights: [0.4, 0.3, 0.2, 0.1],
            }
        })
        .collect();
    let tri = vertices / 3 * 3;
    let mesh = MeshPart {
        morph_targets: Vec::new(),
        name: "body".into(),
        vertices: gom::Vertices {
            positions,
            normals: Some(normals),
            skin: Some(skin_w),
            ..Default::default()
        },
        indices: (0..tri as u32).collect(),
        submeshes: vec![Submesh {
            material_index: -1,
            index_start: 0,
            index_count: tri as u32,
        }],
        inverse_bind,
        mesh_bind_geo_to_model: None,
        bounds: None,
        skinning: Default::default(),
    };
    Model {
        skeleton,
        meshes: vec![mesh],
        clips,
        ..Default::default()
    }
}

/// Clip `c`: every bone swings with its own amplitude and phase, plus a small bob.
fn swing_clip(n: usize, c: usize, rng: &mut Rng) -> Clip {
    let keys = (DURATION * KEY_RATE) as usize + 1;
    let speed = std::f32::consts::PI * (1.0 + c as f32 * 0.5);
    let tracks = (0..n as u32)
        .map(|bone| {
            let (axis, amp, phase) = (axis(rng), rng.range(0.2, 1.2), rng.range(0.0, 6.0));
            let t0 = [rng.range(-0.2, 0.2), rng.range(0.1, 0.4), 0.0];
            let keys = (0..keys)
                .map(|k| {
                    let time = k as f32 / KEY_RATE;
                    let a = amp * sin(phase + time * speed);
                    Key {
                        time,
                        translation: [t0[0], t0[1] + 0.01 * a, t0[2]],
                        rotation: quat_from_axis_angle(axis, a),
                        scale: [1.0; 3],
                    }
                })
                .collect();
            Track { bone, keys }
        })
        .collect();
    Clip {
        weight_tracks: Vec::new(),
        name: format!("clip{c}"),
        duration: DURATION,
        sample_rate: KEY_RATE,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks,
        compressed: None,
        extras: Default::default(),
    }
}

/// A sine good enough for test data (Taylor series after range reduction).
fn sin(x: f32) -> f32 {
    let tau = std::f32::consts::TAU;
    let mut x = x % tau;
    if x > std::f32::consts::PI {
        x -= tau;
    }
    let x2 = x * x;
    x * (1.0
        - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0 * (1.0 - x2 / 110.0)))))
}

/// `m` with every clip reduced as the converter does by default: 1 mm, measured
/// 10 cm beyond each joint's sub-hierarchy and skinned vertices.
fn reduced(mut m: Model) -> Model {
    let mesh = &m.meshes[0];
    let skinned = [(
        &mesh.vertices.positions[..],
        mesh.vertices.skin.as_deref().unwrap_or(&[]),
    )];
    let metrics = joint_metrics(&m.skeleton.bones, &skinned, 0.1);
    for clip in &mut m.clips {
        for t in &mut clip.tracks {
            make_hemisphere_continuous(&mut t.keys);
            t.keys = reduce(&t.keys, &metrics[t.bone as usize], 0.001);
        }
    }
    m
}

/// Times for the random-seek benchmarks.
fn seek_times() -> Vec<f32> {
    let mut rng = Rng::new(0xBADC0FFEE);
    (0..256).map(|_| rng.range(0.0, DURATION)).collect()
}

fn sampling<M: Measurement>(c: &mut Criterion<M>) {
    let seeks = &seek_times();
    for n in [64usize, 128, 1023] {
        let every_key = model(n, 1, VERTICES);
        for (kind, m) in [
            ("reduced", reduced(every_key.clone())),
            ("every_key", every_key),
        ] {
            let asset = Asset::from_model(&m).expect("valid generated model");
            let (skel, clip) = (asset.skeleton(), &asset.clips()[0]);
            let prepared = PreparedClip::new(clip, skel).expect("prepared");
            for (how, seek) in [("forward", false), ("seek", true)] {
                let mut g = group(c, &format!("sampling_{kind}_{how}"));
                g.throughput(Throughput::Elements(n as u64));
                let next_time = move |i: &mut usize, t: &mut f32| {
                    if seek {
                        *i = (*i + 1) % seeks.len();
                        *t = seeks[*i];
                    } else {
                        *t = (*t + FRAME) % DURATION;
                    }
                };
                g.bench_function(BenchmarkId::new("in_place", n), |b| {
                    let (mut ctx, mut pose) = (SamplingContext::new(), LocalPose::default());
                    let (mut i, mut t) = (0usize, 0.0f32);
                    b.iter(|| {
                        next_time(&mut i, &mut t);
                        sample(
                            clip,
                            skel,
                            black_box(t),
                            Playback::Loop,
                            &mut ctx,
                            &mut pose,
                        )
                        .ok();
                        black_box(&pose);
                    })
                });
                g.bench_function(BenchmarkId::new("prepared", n), |b| {
                    let (mut ctx, mut pose) = (PreparedContext::new(), LocalPose::default());
                    let (mut i, mut t) = (0usize, 0.0f32);
                    b.iter(|| {
                        next_time(&mut i, &mut t);
                        sample_prepared(
                            &prepared,
                            black_box(t),
                            Playback::Loop,
                            &mut ctx,
                            &mut pose,
                        );
                        black_box(&pose);
                    })
                });
                g.finish();
            }
        }
    }
}

const BONES: usize = 64;
const VERTICES: usize = 20_000;

/// What every character shares: skeleton, mesh, two clips in both forms.
struct Scene {
    asset: Asset<'static>,
    prepared: [PreparedClip; 2],
}

/// One character's buffers and playing state.
struct Character {
    time: f32,
    prepared: [PreparedContext; 2],
    in_place: [SamplingContext; 2],
    clips: [LocalPose; 2],
    blended: LocalPose,
    model: ModelPose,
    palette: Palette,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

impl Character {
    fn new(i: usize) -> Self {
        Character {
            time: i as f32 * 0.173 % DURATION,
            prepared: Default::default(),
            in_place: Default::default(),
            clips: Default::default(),
            blended: LocalPose::default(),
            model: ModelPose::new(),
            palette: Palette::new(),
            positions: vec![[0.0; 3]; VERTICES],
            normals: vec![[0.0; 3]; VERTICES],
        }
    }

    /// One frame: sample both clips (the second 30 % faster), cross-fade them,
    /// local to model, palette, skin positions and normals.
    fn frame(&mut self, scene: &Scene, prepared: bool) {
        let (skel, mesh) = (scene.asset.skeleton(), &scene.asset.meshes()[0]);
        self.time += FRAME;
        let times = [self.time, self.time * 1.3];
        for (k, time) in times.into_iter().enumerate() {
            if prepared {
                let (clip, ctx) = (&scene.prepared[k], &mut self.prepared[k]);
                sample_prepared(clip, time, Playback::Loop, ctx, &mut self.clips[k]);
            } else {
                let (clip, ctx) = (&scene.asset.clips()[k], &mut self.in_place[k]);
                sample(clip, skel, time, Playback::Loop, ctx, &mut self.clips[k]).ok();
            }
        }
        let [a, b] = &self.clips;
        blend(a, b, 0.4, None, &mut self.blended).ok();
        local_to_model(skel, &self.blended, &mut self.model).ok();
        self.palette.compute(mesh, &self.model).ok();
        let targets = SkinTargets {
            positions: Some(&mut self.positions),
            normals: Some(&mut self.normals),
            tangents: None,
        };
        skin(mesh, &self.palette, targets).ok();
    }
}

fn frames<M: Measurement>(c: &mut Criterion<M>) {
    let asset = Asset::from_model(&model(BONES, 2, VERTICES)).expect("valid generated model");
    let prep = |k: usize| PreparedClip::new(&asset.clips()[k], asset.skeleton()).expect("prepared");
    let prepared = [prep(0), prep(1)];
    let scene = Scene { asset, prepared };
    let threads = if cpu_time_selected() {
        // The thread's CPU time does not see the other threads' work.
        vec![false]
    } else {
        vec![false, true]
    };
    for count in [1usize, 16, 256] {
        let mut chars: Vec<Character> = (0..count).map(Character::new).collect();
        for &parallel in &threads {
            let name = if parallel {
                "frame_all_threads"
            } else {
                "frame_one_thread"
            };
            let mut g = group(c, name);
            g.throughput(Throughput::Elements(count as u64));
            g.sample_size(10);
            for (how, prepared) in [("in_place", false), ("prepared", true)] {
                g.bench_function(BenchmarkId::new(how, count), |b| {
                    b.iter(|| {
                        if parallel {
                            chars
                                .par_iter_mut()
                                .for_each(|ch| ch.frame(&scene, prepared));
                        } else {
                            chars.iter_mut().for_each(|ch| ch.frame(&scene, prepared));
                        }
                        black_box(&chars);
                    })
                });
            }
            g.finish();
        }
    }
}

fn bench<M: Measurement>(c: &mut Criterion<M>) {
    sampling(c);
    frames(c);
}

criterion_group!(wall, bench::<WallTime>);
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = bench::<ThreadCpuTime>
}

fn main() {
    if cpu_time_selected() {
        cpu();
    } else {
        wall();
    }
    Criterion::default().configure_from_args().final_summary();
}
