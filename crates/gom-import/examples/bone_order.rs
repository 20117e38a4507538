//! What the conversion's vertex order does to the GPU and to CPU skinning, per skinned
//! mesh part of each model given: the part as the importer gives it without mesh
//! optimisation (`file`), after meshoptimizer's vertex-cache and vertex-fetch orders
//! (`meshopt`), and with the clusters of the cache order ordered by dominant bone
//! between the two (`bones`, what `gom convert` does; `gom_import::optimize::bone_order`).
//!
//! `cargo run --release -p gom-import --example bone_order -- [--rounds N] FILE...`
//!
//! Columns: ACMR and ATVR from meshoptimizer's `analyzeVertexCache` (a 16-entry FIFO),
//! overfetch from `analyzeVertexFetch`; blocks of 16 vertices kept by bone (at most 16
//! distinct bones: the by-bone paths) and their mean distinct bones; the skinning rate
//! on the best path and on the four-lane path (M vertices per second, positions and
//! normals, median of the rounds, the three orders interleaved within each round).

use std::path::PathBuf;
use std::time::Instant;

use gom::{MeshPart, Model};
use gom_import::optimize::mesh::{order_for_gpu, GpuOrder};
use gom_import::source::{self, ImportOptions};
use gom_runtime::{skin_with, Asset, ModelPose, Palette, SkinPath, SkinTargets};

/// The orders compared, in column order.
const ORDERS: [&str; 3] = ["file", "meshopt", "bones"];

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 3;
    if let Some(k) = args.iter().position(|a| a == "--rounds") {
        rounds = args.get(k + 1).and_then(|r| r.parse().ok()).unwrap_or(3);
        args.drain(k..(k + 2).min(args.len()));
    }
    println!("| model / part | vertices | order | ACMR | ATVR | overfetch | by-bone blocks | bones / block | best path M/s | four-lane M/s |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for file in args.iter().map(PathBuf::from) {
        let options = ImportOptions {
            optimize_meshes: false,
            ..Default::default()
        };
        let model = match source::import_path(&file, &options) {
            Ok(i) => i.model,
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                continue;
            }
        };
        for part in model.meshes.iter().filter(|m| skinned(m)) {
            report(&file, &model, part, rounds);
        }
    }
}

/// Whether `part` is skinned and drawn with triangles.
fn skinned(part: &MeshPart) -> bool {
    part.vertices.skin.is_some() && part.indices.len() >= 3 && !part.inverse_bind.is_empty()
}

/// One table row per order of `part`.
fn report(file: &std::path::Path, model: &Model, part: &MeshPart, rounds: usize) {
    let parts: Vec<MeshPart> = [
        None,
        Some(GpuOrder::CacheThenFetch),
        Some(GpuOrder::CacheBonesThenFetch),
    ]
    .into_iter()
    .map(|order| {
        let mut p = part.clone();
        if let Some(order) = order {
            order_for_gpu(&mut p, order);
        }
        p
    })
    .collect();
    let models: Vec<Model> = parts
        .iter()
        .map(|p| Model {
            meshes: vec![p.clone()],
            clips: Vec::new(),
            ..model.clone()
        })
        .collect();
    let assets: Vec<Asset<'_>> = match models.iter().map(Asset::from_model).collect() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{} / {}: {e}", file.display(), part.name);
            return;
        }
    };
    let mut rates = vec![[Vec::new(), Vec::new()]; ORDERS.len()];
    for _ in 0..rounds {
        for (k, a) in assets.iter().enumerate() {
            for (r, path) in [SkinPath::best(), SkinPath::Vec4].into_iter().enumerate() {
                rates[k][r].push(rate(a, path));
            }
        }
    }
    let name = format!(
        "{} / {}",
        file.file_name().unwrap_or_default().to_string_lossy(),
        part.name
    );
    for (k, p) in parts.iter().enumerate() {
        let n = p.vertices.len();
        let cache = meshopt::analyze_vertex_cache(&p.indices, n, 16, 0, 0);
        let size = 4 * a_vertex_words(&assets[k]);
        let fetch = meshopt::analyze_vertex_fetch(&p.indices, n, size);
        let (kept, mean) = blocks(p);
        println!(
            "| {name} | {n} | {} | {:.3} | {:.3} | {:.3} | {kept:.1} % | {mean:.1} | {:.1} | {:.1} |",
            ORDERS[k],
            cache.acmr,
            cache.atvr,
            fetch.overfetch,
            median(&mut rates[k][0]),
            median(&mut rates[k][1]),
        );
    }
}

/// Words per vertex of the asset's mesh.
fn a_vertex_words(a: &Asset<'_>) -> usize {
    a.meshes().first().map_or(0, |m| m.stride_words())
}

/// The share of whole blocks of 16 vertices that name at most 16 distinct weighted
/// bones, in per cent, and the mean distinct bones of a block.
fn blocks(p: &MeshPart) -> (f64, f64) {
    let Some(skin) = p.vertices.skin.as_deref() else {
        return (0.0, 0.0);
    };
    let (mut kept, mut total, mut bones) = (0usize, 0usize, 0usize);
    for block in skin.chunks_exact(16) {
        let mut b: Vec<u16> = block
            .iter()
            .flat_map(|s| s.bones.iter().zip(&s.weights))
            .filter(|(_, &w)| w > 0.0)
            .map(|(&b, _)| b)
            .collect();
        b.sort_unstable();
        b.dedup();
        total += 1;
        bones += b.len();
        kept += usize::from(b.len() <= 16);
    }
    let t = total.max(1) as f64;
    (100.0 * kept as f64 / t, bones as f64 / t)
}

/// M vertices per second skinning the asset's mesh on `path` (positions and normals
/// when it has them) in the bind pose, over about 0.2 s.
fn rate(a: &Asset<'_>, path: SkinPath) -> f64 {
    let Some(mesh) = a.meshes().first() else {
        return 0.0;
    };
    let mut pal = Palette::new();
    if pal.compute(mesh, &ModelPose::bind(a.skeleton())).is_err() {
        return 0.0;
    }
    let n = mesh.vertex_count();
    let normals = mesh.normal(0).is_some();
    let (mut p, mut nr) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
    let mut run = || {
        let out = SkinTargets {
            positions: Some(&mut p),
            normals: normals.then_some(&mut nr[..]),
            tangents: None,
        };
        skin_with(mesh, &pal, out, path).ok();
    };
    run();
    let (start, mut iterations) = (Instant::now(), 0u64);
    while start.elapsed().as_secs_f64() < 0.2 {
        run();
        iterations += 1;
    }
    std::hint::black_box(&p);
    (iterations * n as u64) as f64 / start.elapsed().as_secs_f64() / 1e6
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}
