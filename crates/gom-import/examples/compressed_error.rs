//! Size and worst error of compressed clips against their BVH source, per clip, with
//! the method of `shared/bench/acl` (worst joint position and ACL's 3 cm shell metric
//! over every frame, forward kinematics in `f64`, against the BVH read with every key).
//!
//! ```text
//! # files written by `gom convert CLIP.bvh CLIP.gom --compress ...`:
//! cargo run --release -p gom-import --example compressed_error -- A.gom A.bvh [B.gom B.bvh ...]
//! # or compress in memory at MM millimetres measured CM centimetres from each joint:
//! cargo run --release -p gom-import --example compressed_error -- --compress MM CM A.bvh ...
//! # per clip, the largest tolerance (at CM) whose measured 3 cm shell error is at most
//! # LIMIT millimetres (bisection from LIMIT up to 1.5 × LIMIT, 7 steps):
//! cargo run --release -p gom-import --example compressed_error -- --within CM LIMIT A.bvh [LIMIT B.bvh ...]
//! ```
use std::path::{Path, PathBuf};

use gom::compressed::{metric, Trs};
use gom_import::compress::sample_frames;
use gom_import::options::ImportOptions;
use gom_runtime::{sample_at_frames, Asset};

fn import(path: &Path, drop_end_sites: bool) -> Result<gom::Model, String> {
    let options = ImportOptions {
        key_tolerance: 0.0,
        bvh_drop_end_sites: drop_end_sites,
        ..Default::default()
    };
    gom_import::source::import_path(path, &options)
        .map(|i| i.model)
        .map_err(|e| e.to_string())
}

/// Every bone at every frame of the file's first clip, through the runtime.
fn sampled(bytes: &[u8], frames: usize) -> Result<Vec<Trs>, String> {
    let asset = Asset::parse(bytes).map_err(|e| e.to_string())?;
    let clip = asset.clips().first().ok_or("no clip")?;
    sample_at_frames(clip, asset.skeleton(), 0..frames as u32).map_err(|e| e.to_string())
}

fn row(gom_bytes: &[u8], bvh: &Path) -> Result<(String, usize, usize, usize, f64, f64), String> {
    let model = gom::gomb::read(gom_bytes).map_err(|e| e.to_string())?.model;
    let clip = model.clips.first().ok_or("no clip")?;
    let payload = clip
        .compressed
        .as_ref()
        .ok_or("the clip is not compressed")?;
    // The reference skeleton: End Sites kept or dropped as the file was converted.
    let mut raw = import(bvh, true)?;
    if raw.skeleton.bones.len() != model.skeleton.bones.len() {
        raw = import(bvh, false)?;
    }
    let src = sample_frames(&raw.skeleton, &raw.clips[0]).map_err(|e| e.to_string())?;
    let bones = src.parents.len();
    let frames = src.frames.len() / bones.max(1);
    let got = sampled(gom_bytes, frames)?;
    let (joint, shell) = metric::clip_errors(&src.parents, &src.frames, &got, 0.03);
    Ok((
        clip.name.clone(),
        bones,
        frames,
        payload.len(),
        joint,
        shell,
    ))
}

/// The GOMB bytes of `bvh` imported and compressed at `mm` millimetres at `cm`.
fn compress(bvh: &str, mm: f32, cm: f32) -> Vec<u8> {
    let options = ImportOptions {
        key_tolerance: mm / 1000.0,
        key_tolerance_distance: cm / 100.0,
        compress: true,
        bvh_drop_end_sites: true,
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let model = gom_import::source::import_path(bvh.as_ref(), &options)
        .expect("imports")
        .model;
    eprintln!(
        "{bvh} at {mm:.4} mm: imported and compressed in {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    gom::gomb::write(&model).expect("writes")
}

/// The bytes of `bvh` at the largest tolerance tried (at `cm`) whose measured 3 cm
/// shell error is at most `limit_mm`, and that tolerance: `limit_mm` first (lowered by
/// 5 % steps while it fails), then bisection up to 1.5 × `limit_mm`.
fn within(bvh: &str, cm: f32, limit_mm: f32) -> (Vec<u8>, f32) {
    let shell = |bytes: &[u8]| row(bytes, bvh.as_ref()).map_or(f64::INFINITY, |r| r.5 * 1000.0);
    let mut lo = limit_mm;
    let mut best = compress(bvh, lo, cm);
    for _ in 0..8 {
        if shell(&best) <= f64::from(limit_mm) {
            break;
        }
        lo *= 0.95;
        best = compress(bvh, lo, cm);
    }
    let mut hi = 1.5 * limit_mm;
    for _ in 0..7 {
        let mid = 0.5 * (lo + hi);
        let bytes = compress(bvh, mid, cm);
        if shell(&bytes) <= f64::from(limit_mm) {
            (lo, best) = (mid, bytes);
        } else {
            hi = mid;
        }
    }
    (best, lo)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut jobs: Vec<(Vec<u8>, PathBuf)> = Vec::new();
    let mut tolerances: Vec<f32> = Vec::new();
    if args.first().is_some_and(|a| a == "--compress") && args.len() >= 4 {
        let mm: f32 = args[1].parse().expect("MM");
        let cm: f32 = args[2].parse().expect("CM");
        for p in &args[3..] {
            jobs.push((compress(p, mm, cm), PathBuf::from(p)));
            tolerances.push(mm);
        }
    } else if args.first().is_some_and(|a| a == "--within") && args.len() >= 4 {
        let cm: f32 = args[1].parse().expect("CM");
        for pair in args[2..].chunks(2) {
            let [limit, p] = pair else {
                eprintln!("give pairs LIMIT FILE.bvh");
                std::process::exit(2);
            };
            let (bytes, mm) = within(p, cm, limit.parse().expect("LIMIT"));
            jobs.push((bytes, PathBuf::from(p)));
            tolerances.push(mm);
        }
    } else {
        for pair in args.chunks(2) {
            let [g, b] = pair else {
                eprintln!("give pairs FILE.gom FILE.bvh");
                std::process::exit(2);
            };
            jobs.push((
                std::fs::read(g).expect("reads the GOM file"),
                PathBuf::from(b),
            ));
        }
    }
    println!(
        "| clip | joints | frames | bytes | B/joint/frame | joint err mm | 3 cm shell err mm | tolerance mm |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|");
    let (mut bytes, mut samples, mut worst_j, mut worst_s) = (0usize, 0usize, 0f64, 0f64);
    for (i, (gom_bytes, bvh)) in jobs.iter().enumerate() {
        let tol = tolerances
            .get(i)
            .map_or(String::new(), |t| format!("{t:.4}"));
        match row(gom_bytes, bvh) {
            Ok((name, joints, frames, size, j, s)) => {
                println!(
                    "| {name} | {joints} | {frames} | {size} | {:.3} | {:.3} | {:.3} | {tol} |",
                    size as f64 / (joints * frames) as f64,
                    j * 1000.0,
                    s * 1000.0
                );
                bytes += size;
                samples += joints * frames;
                worst_j = worst_j.max(j);
                worst_s = worst_s.max(s);
            }
            Err(e) => println!("| {} | error: {e} |", bvh.display()),
        }
    }
    println!(
        "| **total / max** | | | {bytes} | {:.3} | {:.3} | {:.3} | |",
        bytes as f64 / samples.max(1) as f64,
        worst_j * 1000.0,
        worst_s * 1000.0
    );
}
