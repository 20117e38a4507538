//! FBX conversion time against ufbx's own load of the same file, in the same run.
//!
//! For each file: `ufbx load` (ufbx defaults), `ufbx load (GOM space)` (the converter's
//! load options: axis/unit conversion, geometric transforms, inherit modes),
//! `convert (no meshopt)` and `convert` (defaults, meshoptimizer ordering on). The aim:
//! conversion without meshopt costs at most 1.5× the load.

use std::path::PathBuf;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use gom_import::fbx::{convert, FbxOptions};

const FILES: &[&str] = &[
    "blender_279_sausage_7400_binary.fbx",
    "blender_suzanne_multimaterial_7400_binary.fbx",
    "max_transformed_skin_7500_binary.fbx",
    "maya_game_sausage_7500_ascii_wiggle.fbx",
];

fn bench(c: &mut Criterion) {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/fbx"
    ));
    if !dir.is_dir() {
        eprintln!("skipping: {} is absent", dir.display());
        return;
    }
    for name in FILES {
        let bytes = std::fs::read(dir.join(name)).expect("test data file");
        let mut group = c.benchmark_group(*name);
        group.bench_function("ufbx load", |b| {
            b.iter(|| {
                ufbx::load_memory(black_box(&bytes), ufbx::LoadOpts::default())
                    .map(|s| s.nodes.count)
                    .is_ok()
            })
        });
        group.bench_function("ufbx load (GOM space)", |b| {
            b.iter(|| {
                ufbx::load_memory(
                    black_box(&bytes),
                    ufbx::LoadOpts {
                        target_axes: ufbx::CoordinateAxes {
                            right: ufbx::CoordinateAxis::PositiveX,
                            up: ufbx::CoordinateAxis::PositiveY,
                            front: ufbx::CoordinateAxis::NegativeZ,
                        },
                        target_unit_meters: 1.0,
                        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
                        handedness_conversion_axis: ufbx::MirrorAxis::Z,
                        geometry_transform_handling:
                            ufbx::GeometryTransformHandling::ModifyGeometry,
                        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
                        clean_skin_weights: true,
                        ..Default::default()
                    },
                )
                .map(|s| s.nodes.count)
                .is_ok()
            })
        });
        let no_meshopt = FbxOptions {
            optimize_meshes: false,
            ..Default::default()
        };
        group.bench_function("convert (no meshopt)", |b| {
            b.iter(|| convert(black_box(&bytes), name, &no_meshopt).map(|(m, _)| m.meshes.len()))
        });
        let defaults = FbxOptions::default();
        group.bench_function("convert", |b| {
            b.iter(|| convert(black_box(&bytes), name, &defaults).map(|(m, _)| m.meshes.len()))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
