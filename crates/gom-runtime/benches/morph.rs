//! Blend shapes then skinning against skinning alone: 20,000 vertices skinned by four
//! bones of a 64-bone chain, 50 targets of 2,000 vertices each, 8 of them active.
//! The morph step on the best path this CPU has and on the scalar reference, and the
//! three interleaved with their ratios printed at the end.
//! `cargo bench -p gom-runtime --bench morph` (`GOM_BENCH_CPU_TIME=1` for thread CPU
//! time on a shared machine). See docs/performance.md ("Blend shapes").

mod cpu_time;

use std::hint::black_box;

use cpu_time::{cpu_time_selected, group, thread_cpu_ns, ThreadCpuTime};
use criterion::measurement::{Measurement, WallTime};
use criterion::{criterion_group, Criterion, Throughput};
use gom::morph::MorphTarget;
use gom::{Bone, MeshPart, Model, Skeleton, SkinWeights, Submesh, Vertices};
use gom_runtime::{Asset, MorphPath, Morpher, Palette, Playback, SkinTargets};
use gom_test_support::rng::Rng;

const VERTICES: usize = 20_000;
const BONES: usize = 64;
const TARGETS: usize = 50;
const ACTIVE: usize = 8;
const MOVED: usize = 2_000;

fn model() -> Model {
    let mut rng = Rng::new(7);
    let mut f = || rng.below(1 << 20) as f32 / (1 << 20) as f32;
    let bones: Vec<Bone> = (0..BONES)
        .map(|i| {
            let mut m = gom::IDENTITY;
            m[13] = if i == 0 { 0.0 } else { 0.1 };
            Bone {
                name: format!("b{i}"),
                path: format!("b{i}"),
                parent: i as i32 - 1,
                bind_local: m,
            }
        })
        .collect();
    let inverse_bind = gom::math::bind_world(&bones)
        .iter()
        .map(|w| gom::math::inverse_affine(w).unwrap_or(gom::IDENTITY))
        .collect();
    let positions: Vec<[f32; 3]> = (0..VERTICES).map(|_| [f(), f() * 6.4, f()]).collect();
    let skin = positions
        .iter()
        .map(|p| {
            let b = ((p[1] * 10.0) as u16).min(BONES as u16 - 4);
            SkinWeights {
                bones: [b + 3, b + 2, b + 1, b],
                weights: [0.4, 0.3, 0.2, 0.1],
            }
        })
        .collect();
    let normals = Some(vec![[0.0, 0.0, 1.0]; VERTICES]);
    let targets = (0..TARGETS)
        .map(|k| {
            let mut idx: Vec<u32> = (0..MOVED)
                .map(|j| ((j * 10 + k) % VERTICES) as u32)
                .collect();
            idx.sort_unstable();
            idx.dedup();
            MorphTarget {
                name: format!("t{k}"),
                default_weight: 0.0,
                positions: idx.iter().map(|_| [f() * 0.01, f() * 0.01, 0.0]).collect(),
                normals: Some(idx.iter().map(|_| [f() * 0.1, 0.0, 0.0]).collect()),
                indices: idx,
                tangents: None,
            }
        })
        .collect();
    let mesh = MeshPart {
        name: "face".into(),
        vertices: Vertices {
            positions,
            normals,
            skin: Some(skin),
            ..Default::default()
        },
        indices: vec![0, 1, 2],
        submeshes: vec![Submesh {
            material_index: -1,
            index_start: 0,
            index_count: 3,
        }],
        inverse_bind,
        morph_targets: targets,
        ..Default::default()
    };
    Model {
        skeleton: Skeleton { bones },
        meshes: vec![mesh],
        ..Default::default()
    }
}

/// The eight targets active in frame `frame`, a different eight each frame (as a face
/// rig moves), written into `weights`.
fn frame_weights(frame: usize, weights: &mut [f32]) {
    weights.iter_mut().for_each(|w| *w = 0.0);
    for k in 0..ACTIVE {
        weights[(frame * 3 + k * 6) % TARGETS] = 0.5 + k as f32 * 0.05;
    }
}

/// The palette of the bind pose for the asset's mesh.
fn bind_palette(asset: &Asset<'_>) -> Palette {
    let pose = asset
        .model_pose(None, 0.0, Playback::Once)
        .expect("bind pose");
    let mut palette = Palette::new();
    palette.compute(&asset.meshes()[0], &pose).expect("palette");
    palette
}

fn bench<M: Measurement>(c: &mut Criterion<M>) {
    let model = model();
    let asset = Asset::from_model(&model).expect("a valid model");
    let (mesh, targets) = (&asset.meshes()[0], asset.morph_targets(0));
    let palette = bind_palette(&asset);
    let (mut p, mut n) = (vec![[0.0; 3]; VERTICES], vec![[0.0; 3]; VERTICES]);
    let mut weights = vec![0.0f32; TARGETS];
    let mut g = group(c, "morph");
    g.throughput(Throughput::Elements(VERTICES as u64));
    let skin = |m: &gom_runtime::Mesh, p: &mut [[f32; 3]], n: &mut [[f32; 3]]| {
        gom_runtime::skin(
            m,
            &palette,
            SkinTargets {
                positions: Some(p),
                normals: Some(n),
                tangents: None,
            },
        )
        .expect("skin")
    };
    g.bench_function("skin alone", |b| {
        b.iter(|| skin(black_box(mesh), &mut p, &mut n))
    });
    let paths = [
        (MorphPath::best(), "morph 8 of 50 then skin"),
        (MorphPath::Scalar, "morph 8 of 50 then skin, scalar path"),
    ];
    for (path, name) in paths {
        let mut morpher = Morpher::new(mesh);
        let mut frame = 0usize;
        g.bench_function(name, |b| {
            b.iter(|| {
                frame += 1;
                frame_weights(frame, &mut weights);
                let m = morpher
                    .apply_with(mesh, targets, black_box(&weights), path)
                    .expect("morph");
                skin(m, &mut p, &mut n)
            })
        });
    }
    g.finish();
}

/// Rounds of the interleaved measurement, after as many again to warm up.
const ROUNDS: usize = 3000;

/// Skinning alone and morph-then-skin on the best path and on the scalar one,
/// alternating, one of each per round, each timed in the thread's CPU time: they see
/// the same machine state, so their ratios hold on a busy machine. Prints the medians
/// of the per-round ratios.
fn interleaved() {
    let model = model();
    let asset = Asset::from_model(&model).expect("a valid model");
    let (mesh, targets) = (&asset.meshes()[0], asset.morph_targets(0));
    let palette = bind_palette(&asset);
    let (mut p, mut n) = (vec![[0.0; 3]; VERTICES], vec![[0.0; 3]; VERTICES]);
    let mut skin = |m: &gom_runtime::Mesh| {
        let out = SkinTargets {
            positions: Some(&mut p),
            normals: Some(&mut n),
            tangents: None,
        };
        gom_runtime::skin(black_box(m), &palette, out).expect("skin")
    };
    let mut weights = vec![0.0f32; TARGETS];
    let mut morphers = [Morpher::new(mesh), Morpher::new(mesh)];
    let paths = [MorphPath::best(), MorphPath::Scalar];
    let mut rounds: Vec<[f64; 3]> = Vec::new();
    for round in 0..2 * ROUNDS {
        frame_weights(round, &mut weights);
        let mut ns = [0u64; 3];
        let c0 = thread_cpu_ns();
        skin(mesh);
        ns[0] = thread_cpu_ns() - c0;
        for (k, (m, path)) in morphers.iter_mut().zip(paths).enumerate() {
            let c0 = thread_cpu_ns();
            let morphed = m
                .apply_with(mesh, targets, black_box(&weights), path)
                .expect("morph");
            skin(morphed);
            ns[k + 1] = thread_cpu_ns() - c0;
        }
        if round >= ROUNDS {
            let skin_ns = ns[0].max(1) as f64;
            rounds.push([ns[1] as f64 / skin_ns, ns[2] as f64 / skin_ns, skin_ns]);
        }
    }
    report(&rounds);
}

/// Prints the medians (and p10, p90) of the interleaved rounds' ratios.
fn report(rounds: &[[f64; 3]]) {
    if rounds.is_empty() {
        return;
    }
    let stats = |k: usize| {
        let mut v: Vec<f64> = rounds.iter().map(|r| r[k]).collect();
        v.sort_by(f64::total_cmp);
        let q = |f: f64| v[((v.len() - 1) as f64 * f) as usize];
        (q(0.5), q(0.1), q(0.9))
    };
    let names = [
        format!("(morph, {:?} path, then skin) / skin", MorphPath::best()),
        "(morph, scalar path, then skin) / skin".to_string(),
        "skin alone, ns (cpu)".to_string(),
    ];
    for (k, name) in names.iter().enumerate() {
        let (m, lo, hi) = stats(k);
        eprintln!(
            "{name}, interleaved: median {m:.2} (p10 {lo:.2}, p90 {hi:.2}; {} rounds)",
            rounds.len()
        );
    }
}

criterion_group!(wall, bench::<WallTime>);
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = bench::<ThreadCpuTime>
}

fn main() {
    // Only under `cargo bench` (which passes `--bench`), not in a test run of it.
    if std::env::args().any(|a| a == "--bench") {
        interleaved();
    }
    if cpu_time_selected() {
        cpu();
    } else {
        wall();
    }
    Criterion::default().configure_from_args().final_summary();
}
