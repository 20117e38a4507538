//! Runtime throughput: sampling, local to model, skinning, on generated skeletons of
//! 64, 128 and 1,023 bones with 2-second clips keyed at 30 Hz, played forward at 60
//! frames per second on one thread; skinning 20,000 vertices with four influences
//! each, positions and normals. See docs/performance.md (section "Runtime").

mod cpu_time;

use cpu_time::{group, ThreadCpuTime};
use criterion::measurement::{Measurement, WallTime};
use criterion::{black_box, criterion_group, BenchmarkGroup, BenchmarkId, Criterion, Throughput};
use gom::math::{bind_world, from_trs, inverse_affine};
use gom::{Bone, Clip, ClipFlags, Key, MeshPart, Model, Skeleton, SkinWeights, Submesh, Track};
use gom_demo::quat_from_axis_angle;
use gom_runtime::{
    local_to_model, sample, skin, skin_with, Asset, LocalPose, Mesh, ModelPose, Palette, Playback,
    SamplingContext, SkinPath, SkinTargets,
};
use gom_test_support::rng::Rng;

const SIZES: [usize; 3] = [64, 128, 1023];
const KEY_RATE: f32 = 30.0;
const DURATION: f32 = 2.0;
const FRAME: f32 = 1.0 / 60.0;
const VERTICES: usize = 20_000;

/// A unit vector in a random direction (the length of a random point of the cube,
/// at least 1e-3).
fn axis(rng: &mut Rng) -> [f32; 3] {
    let v = [0; 3].map(|_| rng.range(-1.0, 1.0));
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-3);
    v.map(|x| x / l)
}

/// A tree of `n` bones (each bone's parent is `(i - 1) / 3`), every bone animated
/// with a smooth swing about its own axis, keyed at 30 Hz for 2 s. `scaled` adds a
/// non-uniform scale pulse to every bone.
fn model(n: usize, scaled: bool) -> Model {
    let mut rng = Rng::new(0x5EED ^ n as u64);
    let bones: Vec<Bone> = (0..n)
        .map(|i| Bone {
            name: format!("b{i}"),
            path: format!("b{i}"),
            parent: if i == 0 { -1 } else { ((i - 1) / 3) as i32 },
            bind_local: from_trs(
                [
                    rng.range(-0.2, 0.2),
                    rng.range(0.1, 0.4),
                    rng.range(-0.2, 0.2),
                ],
                quat_from_axis_angle(axis(&mut rng), rng.range(-0.5, 0.5)),
                [1.0; 3],
            ),
        })
        .collect();
    let keys = (DURATION * KEY_RATE) as usize + 1;
    let tracks = (0..n as u32)
        .map(|bone| {
            let axis = axis(&mut rng);
            let (amp, phase) = (rng.range(0.2, 1.2), rng.range(0.0, 6.0));
            let t0 = [
                rng.range(-0.2, 0.2),
                rng.range(0.1, 0.4),
                rng.range(-0.2, 0.2),
            ];
            Track {
                bone,
                keys: (0..keys)
                    .map(|k| {
                        let time = k as f32 / KEY_RATE;
                        let a = amp * libm_free_sin(phase + time * std::f32::consts::PI);
                        let s = if scaled { 1.0 + 0.2 * a.abs() } else { 1.0 };
                        Key {
                            time,
                            translation: [t0[0], t0[1] + 0.01 * a, t0[2]],
                            rotation: quat_from_axis_angle(axis, a),
                            scale: [s, 1.0, 1.0],
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    let skeleton = Skeleton { bones };
    let inverse_bind = bind_world(&skeleton.bones)
        .iter()
        .map(|w| inverse_affine(w).unwrap_or(gom::IDENTITY))
        .collect();
    let mut positions = Vec::with_capacity(VERTICES);
    let mut normals = Vec::with_capacity(VERTICES);
    let mut skin_w = Vec::with_capacity(VERTICES);
    for i in 0..VERTICES {
        positions.push([
            rng.range(-1.0, 1.0),
            rng.range(0.0, 2.0),
            rng.range(-1.0, 1.0),
        ]);
        normals.push(axis(&mut rng));
        // As in a real mesh, neighbouring vertices follow neighbouring bones: the
        // primary bone walks through the skeleton with the vertex index, the others
        // are its parent and its next two bones.
        let p = i * n / VERTICES;
        let b = [p, p.saturating_sub(1) / 3, (p + 1) % n, (p + 2) % n].map(|x| x as u16);
        skin_w.push(SkinWeights {
            bones: b,
            weights: [0.4, 0.3, 0.2, 0.1],
        });
    }
    let tri = VERTICES / 3 * 3;
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
    let clip = Clip {
        weight_tracks: Vec::new(),
        name: "anim".into(),
        duration: DURATION,
        sample_rate: KEY_RATE,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks,
        compressed: None,
        extras: Default::default(),
    };
    Model {
        skeleton,
        meshes: vec![mesh],
        clips: vec![clip],
        ..Default::default()
    }
}

/// A sine good enough for test data (Taylor series after range reduction).
fn libm_free_sin(x: f32) -> f32 {
    let tau = std::f32::consts::TAU;
    let mut x = x % tau;
    if x > std::f32::consts::PI {
        x -= tau;
    }
    let x2 = x * x;
    x * (1.0
        - x2 / 6.0 * (1.0 - x2 / 20.0 * (1.0 - x2 / 42.0 * (1.0 - x2 / 72.0 * (1.0 - x2 / 110.0)))))
}

fn bench<M: Measurement>(c: &mut Criterion<M>) {
    for &n in &SIZES {
        let m = model(n, false);
        let asset = Asset::from_model(&m).expect("valid generated model");
        let (skel, clip, mesh) = (asset.skeleton(), &asset.clips()[0], &asset.meshes()[0]);

        let mut g = group(c, "sampling");
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            let mut ctx = SamplingContext::new();
            let mut pose = LocalPose::default();
            let mut t = 0.0f32;
            b.iter(|| {
                t += FRAME;
                if t >= DURATION {
                    t -= DURATION;
                }
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
        g.finish();

        let mut g = group(c, "sampling_same_segment");
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            let mut ctx = SamplingContext::new();
            let mut pose = LocalPose::default();
            let mut k = 0u32;
            b.iter(|| {
                k = (k + 1) & 15;
                let t = 0.7 + k as f32 * 0.001;
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
        g.finish();

        let mut ctx = SamplingContext::new();
        let mut local = LocalPose::default();
        sample(clip, skel, 0.7, Playback::Loop, &mut ctx, &mut local).expect("sample");
        let mut g = group(c, "local_to_model");
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            let mut world = ModelPose::new();
            b.iter(|| {
                local_to_model(skel, black_box(&local), &mut world).ok();
                black_box(&world);
            })
        });
        g.finish();

        let mut world = ModelPose::new();
        local_to_model(skel, &local, &mut world).expect("pose");
        additive_and_ik(c, n, &local, &world);
        let mut pal = Palette::new();
        pal.compute(mesh, &world).expect("palette");
        let mut g = group(c, "skinning");
        g.throughput(Throughput::Elements(VERTICES as u64));
        let mut p = vec![[0.0f32; 3]; VERTICES];
        let mut nrm = vec![[0.0f32; 3]; VERTICES];
        positions_and_normals(
            &mut g,
            BenchmarkId::new("rigid", n),
            mesh,
            &pal,
            (&mut p, &mut nrm),
        );
        // The same with a non-uniform scale on every bone: normals blend the
        // inverse-transposed matrices as well.
        let ms = model(n, true);
        let scaled = Asset::from_model(&ms).expect("valid generated model");
        let mut ctx = SamplingContext::new();
        let mut local = LocalPose::default();
        sample(
            &scaled.clips()[0],
            scaled.skeleton(),
            0.7,
            Playback::Loop,
            &mut ctx,
            &mut local,
        )
        .expect("sample");
        local_to_model(scaled.skeleton(), &local, &mut world).expect("pose");
        pal.compute(&scaled.meshes()[0], &world).expect("palette");
        assert!(!pal.is_rigid());
        let scaled_mesh = &scaled.meshes()[0];
        positions_and_normals(
            &mut g,
            BenchmarkId::new("scaled", n),
            scaled_mesh,
            &pal,
            (&mut p, &mut nrm),
        );
        g.finish();
        if n == SIZES[0] {
            skinning_variants(c, &m);
            skinning_methods(c, &m, n);
        }
    }
}

/// `m` skinned with `method` (blended: shares 0, ¼, ½, ¾, 1 in turn) and, when
/// `eight`, four more influences per vertex (the next four bones; the eight weights
/// 0.32, 0.24, 0.16, 0.08, 0.07, 0.06, 0.04, 0.03).
fn with_method(m: &Model, method: gom::SkinningMethod, eight: bool) -> Model {
    let mut m = m.clone();
    let n = m.skeleton.bones.len();
    let v = &mut m.meshes[0].vertices;
    if eight {
        let extra = v
            .skin
            .iter_mut()
            .flatten()
            .enumerate()
            .map(|(i, s)| {
                s.weights = s.weights.map(|w| 0.8 * w);
                let p = i * n / VERTICES;
                SkinWeights {
                    bones: [3, 4, 5, 6].map(|k| ((p + k) % n) as u16),
                    weights: [0.07, 0.06, 0.04, 0.03],
                }
            })
            .collect();
        v.skin_extra = Some(extra);
    }
    if method == gom::SkinningMethod::Blended {
        v.dq_weights = Some((0..VERTICES).map(|i| (i % 5) as f32 / 4.0).collect());
    }
    m.meshes[0].skinning = method;
    m
}

/// One row: `mesh` skinned with `pal` on the best path, positions and normals into
/// `out`.
fn positions_and_normals<M: Measurement>(
    g: &mut BenchmarkGroup<'_, M>,
    id: BenchmarkId,
    mesh: &Mesh<'_>,
    pal: &Palette,
    out: (&mut [[f32; 3]], &mut [[f32; 3]]),
) {
    positions_and_normals_on(g, id, (mesh, SkinPath::best()), pal, out)
}

/// [`positions_and_normals`] on `path`.
fn positions_and_normals_on<M: Measurement>(
    g: &mut BenchmarkGroup<'_, M>,
    id: BenchmarkId,
    (mesh, path): (&Mesh<'_>, SkinPath),
    pal: &Palette,
    out: (&mut [[f32; 3]], &mut [[f32; 3]]),
) {
    let (p, nrm) = out;
    g.bench_function(id, |b| {
        b.iter(|| {
            let targets = SkinTargets {
                positions: Some(&mut *p),
                normals: Some(&mut *nrm),
                tangents: None,
            };
            skin_with(mesh, black_box(pal), targets, path).ok();
            black_box(&*p);
        })
    });
}

/// Skinning methods beside linear with four influences, on the workload of
/// `skinning/rigid` (positions and normals, the best path): dual quaternions, blended
/// (per-vertex share), eight influences; each row also on the AVX2 (`_avx2`) and
/// four-lane (`_vec4`) paths when the best path is another.
fn skinning_methods<M: Measurement>(c: &mut Criterion<M>, m: &Model, n: usize) {
    use gom::SkinningMethod::{Blended, DualQuaternion, Linear};
    let mut g = group(c, "skinning_method");
    g.throughput(Throughput::Elements(VERTICES as u64));
    let mut p = vec![[0.0f32; 3]; VERTICES];
    let mut nrm = vec![[0.0f32; 3]; VERTICES];
    for (name, method, eight) in [
        ("lbs4", Linear, false),
        ("dq4", DualQuaternion, false),
        ("blended4", Blended, false),
        ("lbs8", Linear, true),
        ("dq8", DualQuaternion, true),
        ("blended8", Blended, true),
    ] {
        let model = with_method(m, method, eight);
        let asset = Asset::from_model(&model).expect("valid generated model");
        let mesh = &asset.meshes()[0];
        let mut ctx = SamplingContext::new();
        let mut local = LocalPose::default();
        sample(
            &asset.clips()[0],
            asset.skeleton(),
            0.7,
            Playback::Loop,
            &mut ctx,
            &mut local,
        )
        .expect("sample");
        let mut world = ModelPose::new();
        local_to_model(asset.skeleton(), &local, &mut world).expect("pose");
        let mut pal = Palette::new();
        pal.compute(mesh, &world).expect("palette");
        positions_and_normals(
            &mut g,
            BenchmarkId::new(name, n),
            mesh,
            &pal,
            (&mut p, &mut nrm),
        );
        let others = [(SkinPath::Avx2Fma, "avx2"), (SkinPath::Vec4, "vec4")];
        for (path, suffix) in others {
            if path.is_supported() && path != SkinPath::best() {
                positions_and_normals_on(
                    &mut g,
                    BenchmarkId::new(format!("{name}_{suffix}"), n),
                    (mesh, path),
                    &pal,
                    (&mut p, &mut nrm),
                );
            }
        }
    }
    g.finish();
}

/// `m` with `k` influences per vertex (the first `k` of the four, weights
/// renormalised) and, when `tangents`, a unit tangent per vertex (w = 1).
fn with_influences(m: &Model, k: usize, tangents: bool) -> Model {
    let mut m = m.clone();
    let v = &mut m.meshes[0].vertices;
    for s in v.skin.iter_mut().flatten() {
        let sum: f32 = s.weights[..k].iter().sum();
        for j in 0..4 {
            s.weights[j] = if j < k { s.weights[j] / sum } else { 0.0 };
            if j >= k {
                s.bones[j] = 0;
            }
        }
    }
    if tangents {
        let t = v.normals.iter().flatten().map(|n| {
            // Any unit vector across the normal.
            let a = if n[0].abs() < 0.9 {
                [1.0, 0.0, 0.0]
            } else {
                [0.0, 1.0, 0.0]
            };
            let c = [
                n[1] * a[2] - n[2] * a[1],
                n[2] * a[0] - n[0] * a[2],
                n[0] * a[1] - n[1] * a[0],
            ];
            let l = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
            [c[0] / l, c[1] / l, c[2] / l, 1.0]
        });
        v.tangents = Some(t.collect());
    }
    m
}

/// `m` with each block of 16 vertices bound to `d` of the bones (neighbouring
/// vertices following neighbouring bones when `d` is small, none when `d` is the
/// bone count): every vertex takes four distinct bones of its block's `d`, with random
/// weights, so that no two vertices blend alike.
fn with_block_bones(m: &Model, d: usize, bones: usize) -> Model {
    let mut m = m.clone();
    let mut rng = Rng::new(0x5EED ^ d as u64);
    for (i, s) in m.meshes[0].vertices.skin.iter_mut().flatten().enumerate() {
        let block = i / 16;
        let start = (rng.unit() * d as f32) as usize;
        let mut w = [0.0; 4].map(|_: f32| rng.range(0.05, 1.0));
        w.sort_by(|a, b| b.total_cmp(a));
        let sum: f32 = w.iter().sum();
        for (k, w) in w.iter().enumerate() {
            s.bones[k] = ((block * 5 + (start + k) % d) % bones) as u16;
            s.weights[k] = w / sum;
        }
    }
    m
}

/// Skinning at 64 bones: every instruction-set path (positions and normals, 4
/// influences), then 1, 2 and 4 influences with positions only, positions and
/// normals, and positions, normals and tangents, on the fastest path.
fn skinning_variants<M: Measurement>(c: &mut Criterion<M>, m: &Model) {
    let asset = Asset::from_model(m).expect("valid generated model");
    let (skel, clip, mesh) = (asset.skeleton(), &asset.clips()[0], &asset.meshes()[0]);
    let (mut ctx, mut local, mut world) = (
        SamplingContext::new(),
        LocalPose::default(),
        ModelPose::new(),
    );
    sample(clip, skel, 0.7, Playback::Loop, &mut ctx, &mut local).expect("sample");
    local_to_model(skel, &local, &mut world).expect("pose");
    let mut pal = Palette::new();
    pal.compute(mesh, &world).expect("palette");
    let mut p = vec![[0.0f32; 3]; VERTICES];
    let mut nrm = vec![[0.0f32; 3]; VERTICES];
    let mut tan = vec![[0.0f32; 4]; VERTICES];
    let mut g = group(c, "skinning_path");
    g.throughput(Throughput::Elements(VERTICES as u64));
    for path in SkinPath::ALL.into_iter().filter(|p| p.is_supported()) {
        g.bench_function(format!("{path:?}"), |b| {
            b.iter(|| {
                let out = SkinTargets {
                    positions: Some(&mut p),
                    normals: Some(&mut nrm),
                    tangents: None,
                };
                skin_with(mesh, black_box(&pal), out, path).ok();
                black_box(&p);
            })
        });
    }
    // The same bytes moved without arithmetic: each vertex's position and normal
    // (GOM puts the normal right after the position) copied out. Skinning slower than
    // this by far is not bound by memory.
    g.bench_function("copy, no arithmetic (reference)", |b| {
        b.iter(|| {
            let words = black_box(mesh.vertex_words());
            let stride = mesh.stride_words();
            for ((v, p), n) in words.chunks_exact(stride).zip(&mut p).zip(&mut nrm) {
                *p = [v[0], v[1], v[2]];
                *n = [v[3], v[4], v[5]];
            }
            black_box(&p);
        })
    });
    g.finish();
    let mut g = group(c, "skinning_influences");
    g.throughput(Throughput::Elements(VERTICES as u64));
    for k in [1, 2, 4] {
        let mk = with_influences(m, k, true);
        let a = Asset::from_model(&mk).expect("valid generated model");
        let mesh = &a.meshes()[0];
        for (name, normals, tangents) in [
            ("p", false, false),
            ("pn", true, false),
            ("pnt", true, true),
        ] {
            g.bench_function(BenchmarkId::new(name, k), |b| {
                b.iter(|| {
                    let out = SkinTargets {
                        positions: Some(&mut p),
                        normals: normals.then_some(&mut nrm[..]),
                        tangents: tangents.then_some(&mut tan[..]),
                    };
                    skin(mesh, black_box(&pal), out).ok();
                    black_box(&p);
                })
            });
        }
    }
    g.finish();
    // How the vertex order matters: a block of 16 vertices that names few bones is
    // blended bone by bone (see docs/performance.md); 64 is every bone, no locality.
    let mut g = group(c, "skinning_block_bones");
    g.throughput(Throughput::Elements(VERTICES as u64));
    for d in [4, 6, 8, 12, 16, 64] {
        let a = Asset::from_model(&with_block_bones(m, d, SIZES[0])).expect("valid model");
        let mesh = &a.meshes()[0];
        g.bench_function(BenchmarkId::from_parameter(d), |b| {
            b.iter(|| {
                let out = SkinTargets {
                    positions: Some(&mut p),
                    normals: Some(&mut nrm),
                    tangents: None,
                };
                skin(mesh, black_box(&pal), out).ok();
                black_box(&p);
            })
        });
    }
    g.finish();
}

/// Rows beside ozz's `BlendingJob` (additive layer), `IKTwoBoneJob` and `IKAimJob`:
/// an additive pose of `n` bones added at weight 0.5, and one solve of each IK on the
/// pose's first joints.
fn additive_and_ik<M: Measurement>(
    c: &mut Criterion<M>,
    n: usize,
    local: &LocalPose,
    world: &ModelPose,
) {
    let mut g = group(c, "blend_additive");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(BenchmarkId::from_parameter(n), |b| {
        let mut out = LocalPose::default();
        b.iter(|| {
            gom_runtime::blend_additive(black_box(local), black_box(local), 0.5, None, &mut out)
                .ok();
            black_box(&out);
        })
    });
    g.finish();
    if n != SIZES[0] {
        return;
    }
    let w = world.matrices();
    let mut g = group(c, "ik");
    let p = gom_runtime::TwoBoneIk {
        target: glam::Vec3::from(w[3].translation) + glam::Vec3::new(0.05, 0.02, -0.03),
        pole: glam::Vec3::Z,
        mid_axis: glam::Vec3::X,
        soften: 0.97,
        ..Default::default()
    };
    g.bench_function("two_bone", |b| {
        b.iter(|| black_box(gom_runtime::two_bone_ik(&w[1], &w[2], &w[3], black_box(&p))))
    });
    let a = gom_runtime::AimIk {
        target: glam::Vec3::new(1.0, 2.0, 3.0),
        offset: glam::Vec3::new(0.0, 0.1, 0.0),
        ..Default::default()
    };
    g.bench_function("aim", |b| {
        b.iter(|| black_box(gom_runtime::aim_ik(&w[1], black_box(&a))))
    });
    g.finish();
}

criterion_group!(wall, bench::<WallTime>);
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = bench::<ThreadCpuTime>
}

fn main() {
    if std::env::var_os("GOM_BENCH_CPU_TIME").is_some() {
        cpu();
    } else {
        wall();
    }
    Criterion::default().configure_from_args().final_summary();
}
