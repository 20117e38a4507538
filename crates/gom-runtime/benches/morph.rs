//! Blend shapes then skinning against skinning alone: 20,000 vertices skinned by four
//! bones of a 64-bone chain, 50 targets of 2,000 vertices each, 8 of them active.
//! `cargo bench -p gom-runtime --bench morph` (`GOM_BENCH_CPU_TIME=1` for thread CPU
//! time on a shared machine). See docs/performance.md ("Blend shapes").

mod cpu_time;

use std::hint::black_box;

use cpu_time::{cpu_time_selected, group, ThreadCpuTime};
use criterion::measurement::{Measurement, WallTime};
use criterion::{criterion_group, Criterion, Throughput};
use gom::morph::MorphTarget;
use gom::{Bone, MeshPart, Model, Skeleton, SkinWeights, Submesh, Vertices};
use gom_runtime::{Asset, Morpher, Palette, Playback, SkinTargets};
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

fn bench<M: Measurement>(c: &mut Criterion<M>) {
    let model = model();
    let asset = Asset::from_model(&model).expect("a valid model");
    let mesh = &asset.meshes()[0];
    let targets = asset.morph_targets(0);
    let pose = asset
        .model_pose(None, 0.0, Playback::Once)
        .expect("bind pose");
    let mut palette = Palette::new();
    palette.compute(mesh, &pose).expect("palette");
    let (mut p, mut n) = (vec![[0.0; 3]; VERTICES], vec![[0.0; 3]; VERTICES]);
    let mut weights = vec![0.0f32; TARGETS];
    let mut morpher = Morpher::new(mesh);
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
    let mut frame = 0usize;
    g.bench_function("morph 8 of 50 then skin", |b| {
        b.iter(|| {
            // Eight targets active, a different eight each frame (as a face rig moves).
            frame += 1;
            weights.iter_mut().for_each(|w| *w = 0.0);
            for k in 0..ACTIVE {
                weights[(frame * 3 + k * 6) % TARGETS] = 0.5 + k as f32 * 0.05;
            }
            let m = morpher
                .apply(mesh, targets, black_box(&weights))
                .expect("morph");
            skin(m, &mut p, &mut n)
        })
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
    if cpu_time_selected() {
        cpu();
    } else {
        wall();
    }
    Criterion::default().configure_from_args().final_summary();
}
