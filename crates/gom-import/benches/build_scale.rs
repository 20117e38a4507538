//! How `gom build --plan` and `--merge-manifests` grow with the number of files:
//! plans of trees of 10 000, 50 000 and 100 000 small files (read and hashed, not
//! converted: planning never parses a source), and merges of four manifest parts
//! holding as many records. Both should take time proportional to the count.
//!
//! Run: `cargo bench -p gom-import --bench build_scale`. Compare the time per file
//! across the three sizes.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use gom_import::build::{self, BuildOptions};
use gom_import::source::{ImportOptions, OutputFormat};
use std::path::Path;

const SIZES: [usize; 3] = [10_000, 50_000, 100_000];

/// Writes `count` small files with a source extension, 100 to a folder.
fn generate(dir: &Path, count: usize) {
    for i in 0..count {
        let sub = dir.join(format!("d{:04}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&sub).unwrap();
        }
        let text = format!("GOMT0001 model {i}\n");
        std::fs::write(sub.join(format!("m{i:06}.gomt")), text).unwrap();
    }
}

/// Writes four manifest parts holding `count` records between them.
fn write_parts(out: &Path, count: usize) {
    std::fs::create_dir_all(out).unwrap();
    let _ = std::fs::remove_file(out.join(build::MANIFEST_NAME));
    for k in 1..=4 {
        let entries: Vec<serde_json::Value> = (0..count)
            .filter(|i| i % 4 == k - 1)
            .map(|i| {
                serde_json::json!({
                    "converter": "gom 0.1.0",
                    "inputHash": format!("{i:064x}"),
                    "options": "format=gom;0123456789abcdef",
                    "output": format!("d{:04}/m{i:06}.gom", i / 100),
                    "outputBytes": 1234,
                    "outputHash": format!("{:064x}", i * 7),
                    "source": format!("d{:04}/m{i:06}.gomt", i / 100),
                    "warnings": [],
                })
            })
            .collect();
        let doc = serde_json::json!({ "entries": entries, "version": 1 });
        let text = serde_json::to_string_pretty(&doc).unwrap();
        std::fs::write(out.join(build::part_name(k, 4)), text).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let tmp = std::env::temp_dir().join(format!("gom-scale-bench-{}", std::process::id()));
    let import = ImportOptions::default();
    let options = BuildOptions {
        jobs: 1,
        format: OutputFormat::Gomb,
        force: false,
        options_fingerprint: import.fingerprint(),
        shard: None,
        cache: None,
    };
    let mut g = c.benchmark_group("scale");
    g.sample_size(10);
    for n in SIZES {
        let src = tmp.join(format!("src{n}"));
        generate(&src, n);
        let out = tmp.join(format!("out{n}"));
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("plan_{n}"), |b| {
            b.iter(|| {
                let plan = build::plan(&src, &out, &options, |_, _| Vec::new()).unwrap();
                assert_eq!(plan.jobs.len(), n);
            })
        });
        let merged = tmp.join(format!("merged{n}"));
        g.bench_function(format!("merge_{n}"), |b| {
            b.iter_batched(
                || write_parts(&merged, n),
                |()| assert_eq!(build::merge_manifests(&merged).unwrap().records, n),
                BatchSize::PerIteration,
            )
        });
        let _ = std::fs::remove_dir_all(&src);
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&tmp);
}

criterion_group!(benches, bench);
criterion_main!(benches);
