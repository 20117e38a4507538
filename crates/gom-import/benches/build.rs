//! Batch build throughput: 200 generated models (100 GOM text files and 100 glTF
//! binaries, each a variant of the demo model) converted to GOM binary with 1 and 2
//! worker threads, and a no-op rebuild of the same folder.
//!
//! Run: `cargo bench -p gom-import --bench build`. The figures that matter are ratios
//! measured in the same run: scaling efficiency (2-thread throughput over twice the
//! 1-thread throughput) and the no-op rebuild's time over a full build's.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gom_import::build::{self, BuildOptions};
use gom_import::source::{self, ImportOptions, OutputFormat};
use std::path::Path;
use std::sync::atomic::AtomicBool;

const MODELS: usize = 200;

/// Writes the source folder; returns its total size in bytes.
fn generate(dir: &Path) -> u64 {
    let demo = gom_demo::build();
    let mut total = 0u64;
    for i in 0..MODELS {
        let mut m = demo.clone();
        // Vary the models a little so that no two files are the same.
        m.skeleton.bones[0].name = format!("root{i}");
        for key in m
            .clips
            .iter_mut()
            .flat_map(|c| &mut c.tracks)
            .flat_map(|t| &mut t.keys)
        {
            key.translation[0] += i as f32 * 0.001;
        }
        let sub = dir.join(format!("set{}", i % 10));
        std::fs::create_dir_all(&sub).unwrap();
        let (path, bytes) = if i % 2 == 0 {
            (
                sub.join(format!("model{i:03}.gomt")),
                gom::gomt::write(&m).unwrap().into_bytes(),
            )
        } else {
            let path = sub.join(format!("model{i:03}.glb"));
            let (b, _) = source::export(&m, OutputFormat::Glb, &path).unwrap();
            (path, b)
        };
        total += bytes.len() as u64;
        std::fs::write(path, bytes).unwrap();
    }
    total
}

fn run_build(src: &Path, out: &Path, jobs: usize, force: bool) {
    let import = ImportOptions::default();
    let options = BuildOptions {
        jobs,
        format: OutputFormat::Gomb,
        force,
        options_fingerprint: import.fingerprint(),
        shard: None,
        cache: None,
    };
    let cancel = AtomicBool::new(false);
    let report = build::run(
        src,
        out,
        &options,
        |p| source::convert_path(p, &import, OutputFormat::Gomb),
        |p, b| source::companions_of(p, b, &import),
        &cancel,
        |_| {},
    )
    .unwrap();
    assert_eq!(report.failed(), 0);
}

fn bench(c: &mut Criterion) {
    let tmp = std::env::temp_dir().join(format!("gom-build-bench-{}", std::process::id()));
    let src = tmp.join("src");
    let bytes = generate(&src);
    let mut g = c.benchmark_group("build");
    g.sample_size(10);
    println!("{MODELS} models, {bytes} source bytes");
    for jobs in [1usize, 2] {
        g.throughput(Throughput::Elements(MODELS as u64));
        g.bench_function(format!("full_{jobs}_jobs"), |b| {
            b.iter(|| run_build(&src, &tmp.join(format!("out{jobs}")), jobs, true))
        });
    }
    g.throughput(Throughput::Elements(MODELS as u64));
    run_build(&src, &tmp.join("noop"), 2, true);
    g.bench_function("noop_rebuild_2_jobs", |b| {
        b.iter(|| run_build(&src, &tmp.join("noop"), 2, false))
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&tmp);
}

criterion_group!(benches, bench);
criterion_main!(benches);
