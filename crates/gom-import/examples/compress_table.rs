//! Compresses BVH clips in memory and prints size and worst error per clip.
//!
//! `cargo run --release -p gom-import --example compress_table -- MM CM FILE.bvh...`
use gom::compressed::{decode, metric, Layout, Settings};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mm: f32 = args[0].parse().unwrap();
    let cm: f32 = args[1].parse().unwrap();
    let options = gom_import::options::ImportOptions {
        key_tolerance: 0.0,
        bvh_drop_end_sites: true,
        ..Default::default()
    };
    let (mut tb, mut tjf, mut wj, mut ws) = (0usize, 0usize, 0f64, 0f64);
    for path in &args[2..] {
        let imp = gom_import::source::import_path(path.as_ref(), &options).unwrap();
        let m = &imp.model;
        let clip = &m.clips[0];
        let t0 = std::time::Instant::now();
        let settings = Settings {
            tolerance: mm / 1000.0,
            distance: cm / 100.0,
        };
        let payload = gom_import::compress::compress_clip(&m.skeleton, clip, settings).unwrap();
        let secs = t0.elapsed().as_secs_f64();
        let gom_import::compress::Sampled {
            parents,
            bind,
            frames,
        } = gom_import::compress::sample_frames(&m.skeleton, clip).unwrap();
        let layout = Layout::parse(&payload, 0, parents.len() as u32).unwrap();
        let dec = decode::decode_all(&layout, &payload, &bind);
        let (j, s) = metric::clip_errors(&parents, &frames, &dec, 0.03);
        let jf = parents.len() * layout.frame_count as usize;
        println!(
            "{:<12} joints {:3} frames {:4} bytes {:6} B/j/f {:.3} joint {:.3} mm shell3 {:.3} mm anim {} const {} enc {:.2}s",
            std::path::Path::new(path).file_stem().unwrap().to_string_lossy(),
            parents.len(), layout.frame_count, payload.len(), payload.len() as f64 / jf as f64,
            j * 1000.0, s * 1000.0, layout.animated_count, layout.constant_count, secs
        );
        tb += payload.len();
        tjf += jf;
        wj = wj.max(j);
        ws = ws.max(s);
    }
    println!(
        "TOTAL bytes {tb} B/j/f {:.3} worst joint {:.3} mm shell3 {:.3} mm",
        tb as f64 / tjf as f64,
        wj * 1000.0,
        ws * 1000.0
    );
}
