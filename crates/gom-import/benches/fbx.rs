//! FBX conversion time against ufbx's own load of the same file, in the same run.
//!
//! For each file: `ufbx load` (ufbx defaults), `ufbx load (GOM space)` (the converter's
//! load options: axis/unit conversion, geometric transforms, inherit modes),
//! `convert (no meshopt)` and `convert` (defaults, meshoptimizer ordering on). The aim:
//! conversion without meshopt costs at most 1.5× the load.
//!
//! Criterion times each of the four on its own, one after the other; on a machine
//! shared with other work the load can change between them. So the run ends with a
//! paired measurement that interleaves the three that the ratios compare, one call of
//! each in turn, for a few seconds per file, and prints the medians and their ratios:
//! every ratio there is taken under the same conditions. Those are the figures
//! `docs/performance.md` records. A filter that matches no criterion benchmark
//! (`cargo bench -p gom-import --bench fbx -- skip-criterion`) runs only the paired
//! measurement.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{black_box, Criterion};
use gom_import::fbx::{convert, load_options, FbxOptions};

const FILES: &[&str] = &[
    "blender_279_sausage_7400_binary.fbx",
    "blender_suzanne_multimaterial_7400_binary.fbx",
    "max_transformed_skin_7500_binary.fbx",
    "maya_game_sausage_7500_ascii_wiggle.fbx",
];

fn data_dir() -> Option<PathBuf> {
    gom_test_support::shared_data("fbx")
}

fn load_default(bytes: &[u8]) -> bool {
    ufbx::load_memory(black_box(bytes), ufbx::LoadOpts::default())
        .map(|s| s.nodes.count)
        .is_ok()
}

fn load_gom_space(bytes: &[u8]) -> bool {
    ufbx::load_memory(black_box(bytes), load_options())
        .map(|s| s.nodes.count)
        .is_ok()
}

fn convert_with(bytes: &[u8], name: &str, options: &FbxOptions) -> Option<usize> {
    convert(black_box(bytes), name, options)
        .map(|(m, _)| m.meshes.len())
        .ok()
}

fn no_meshopt() -> FbxOptions {
    FbxOptions {
        optimize_meshes: false,
        ..Default::default()
    }
}

fn bench(c: &mut Criterion, dir: &std::path::Path) {
    for name in FILES {
        let bytes = std::fs::read(dir.join(name)).expect("test data file");
        let mut group = c.benchmark_group(*name);
        group.bench_function("ufbx load", |b| b.iter(|| load_default(&bytes)));
        group.bench_function("ufbx load (GOM space)", |b| {
            b.iter(|| load_gom_space(&bytes))
        });
        let plain = no_meshopt();
        group.bench_function("convert (no meshopt)", |b| {
            b.iter(|| convert_with(&bytes, name, &plain))
        });
        let defaults = FbxOptions::default();
        group.bench_function("convert", |b| {
            b.iter(|| convert_with(&bytes, name, &defaults))
        });
        group.finish();
    }
}

/// The `q` quantile of `v` (sorted in place).
fn quantile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// The interleaved measurement (see the module documentation): per quantile (the
/// median, and the 10th percentile, which leaves out most calls that other work on the
/// machine slowed down), the times in µs of the default load, the GOM-space load and the
/// conversion without meshopt.
fn paired(bytes: &[u8], name: &str, budget: Duration) -> [[f64; 3]; 2] {
    let plain = no_meshopt();
    let mut times: [Vec<f64>; 3] = Default::default();
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64() * 1e6
    };
    // Warm up, then alternate until the budget is spent.
    for _ in 0..20 {
        load_default(bytes);
        convert_with(bytes, name, &plain);
    }
    let start = Instant::now();
    while start.elapsed() < budget || times[0].len() < 100 {
        times[0].push(time(&mut || {
            black_box(load_default(bytes));
        }));
        times[1].push(time(&mut || {
            black_box(load_gom_space(bytes));
        }));
        times[2].push(time(&mut || {
            black_box(convert_with(bytes, name, &plain));
        }));
    }
    [0.5, 0.1].map(|q| [0, 1, 2].map(|k| quantile(&mut times[k], q)))
}

fn main() {
    let Some(dir) = data_dir() else { return };
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &dir);
    c.final_summary();
    // Criterion's test mode (`cargo test --benches`, or `--test`: the arguments lack
    // `--bench`) only checks that the paired measurement runs; `--list` skips it.
    let has = |flag: &str| std::env::args().any(|a| a == flag);
    if has("--list") {
        return;
    }
    let test_mode = has("--test") || !has("--bench");
    let budget = Duration::from_secs(if test_mode { 0 } else { 4 });
    println!();
    println!("paired, interleaved (µs); ratios: convert without meshopt over each load");
    println!(
        "{:<46} {:>8} {:>8} {:>10} {:>8} {:>8} {:>10}",
        "file", "", "load", "load (GOM)", "convert", "÷ load", "÷ (GOM)"
    );
    for name in FILES {
        let bytes = std::fs::read(dir.join(name)).expect("test data file");
        for (label, [load, load_gom, conv]) in
            ["median", "p10"].iter().zip(paired(&bytes, name, budget))
        {
            println!(
                "{name:<46} {label:>8} {load:>8.1} {load_gom:>10.1} {conv:>8.1} {:>7.2}× {:>9.2}×",
                conv / load,
                conv / load_gom
            );
        }
    }
}
