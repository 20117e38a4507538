//! Size and worst error of compressed clips against their BVH source, per clip, with
//! the method of `shared/bench/acl` (worst joint position and ACL's 3 cm shell metric
//! over every frame, forward kinematics in `f64`, against the BVH read with every key).
//!
//! ```text
//! # files written by `gom convert CLIP.bvh CLIP.gom --compress ...`:
//! cargo run --release -p gom-import --example compressed_error -- A.gom A.bvh [B.gom B.bvh ...]
//! # or compress in memory at MM millimetres measured CM centimetres from each joint:
//! cargo run --release -p gom-import --example compressed_error -- --compress MM CM A.bvh ...
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut jobs: Vec<(Vec<u8>, PathBuf)> = Vec::new();
    if args.first().is_some_and(|a| a == "--compress") && args.len() >= 4 {
        let mm: f32 = args[1].parse().expect("MM");
        let cm: f32 = args[2].parse().expect("CM");
        for p in &args[3..] {
            let options = ImportOptions {
                key_tolerance: mm / 1000.0,
                key_tolerance_distance: cm / 100.0,
                compress: true,
                bvh_drop_end_sites: true,
                ..Default::default()
            };
            let t0 = std::time::Instant::now();
            let model = gom_import::source::import_path(p.as_ref(), &options)
                .expect("imports")
                .model;
            eprintln!(
                "{p}: imported and compressed in {:.2} s",
                t0.elapsed().as_secs_f64()
            );
            jobs.push((gom::gomb::write(&model).expect("writes"), PathBuf::from(p)));
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
        "| clip | joints | frames | bytes | B/joint/frame | joint err mm | 3 cm shell err mm |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|");
    let (mut bytes, mut samples, mut worst_j, mut worst_s) = (0usize, 0usize, 0f64, 0f64);
    for (gom_bytes, bvh) in &jobs {
        match row(gom_bytes, bvh) {
            Ok((name, joints, frames, size, j, s)) => {
                println!(
                    "| {name} | {joints} | {frames} | {size} | {:.3} | {:.3} | {:.3} |",
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
        "| **total / max** | | | {bytes} | {:.3} | {:.3} | {:.3} |",
        bytes as f64 / samples.max(1) as f64,
        worst_j * 1000.0,
        worst_s * 1000.0
    );
}
