//! Whole-pose decompression of compressed clips on the shared BVH set, measured as
//! `shared/bench/acl` measures ACL and ozz: thread CPU time, 0.2 s warm-up, batches of
//! about 5 ms for 1 s, the median time per pose; forward playback at the clip's rate
//! (looping) and 1,024 random times (xorshift, as the harness draws them).
//!
//! `cargo bench -p gom-runtime --bench compressed -- [MM CM] [CLIP...]` (default 0.1 mm
//! at 3 cm, ACL's default precision; every clip, or those whose names contain a CLIP
//! argument). See docs/performance.md ("Compressed clips").

use std::borrow::Cow;
use std::hint::black_box;

use gom::compressed::Settings;
use gom_runtime::{sample, Clip, LocalPose, Playback, SamplingContext, Skeleton};

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux
    // defines; the call writes only into `ts`.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Median nanoseconds per call of `f(i)`, `i` counting up across calls. With
/// `GOM_BENCH_CALLS=N` in the environment, instead exactly `N` calls and no timing
/// (for instruction counts: run under `valgrind --tool=callgrind` with `N` and with
/// 0, and divide the difference by `N`), and with `GOM_BENCH_MODE=WHAT` only the
/// measurement named `WHAT` (`fwd`, `rnd` or `frame`).
fn time(what: &str, mut f: impl FnMut(usize)) -> f64 {
    if std::env::var("GOM_BENCH_MODE").is_ok_and(|m| m != what) {
        return f64::NAN;
    }
    if let Some(n) = std::env::var("GOM_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        (0..n).for_each(&mut f);
        return f64::NAN;
    }
    let mut i = 0usize;
    let start = thread_cpu_ns();
    while thread_cpu_ns() - start < 200_000_000 {
        f(i);
        i += 1;
    }
    // Calls per ~5 ms batch.
    let t0 = thread_cpu_ns();
    let mut n = 0usize;
    while thread_cpu_ns() - t0 < 5_000_000 {
        f(i);
        i += 1;
        n += 1;
    }
    let mut per = Vec::new();
    let begin = thread_cpu_ns();
    while thread_cpu_ns() - begin < 1_000_000_000 || per.len() < 15 {
        let t = thread_cpu_ns();
        for _ in 0..n {
            f(i);
            i += 1;
        }
        per.push((thread_cpu_ns() - t) as f64 / n as f64);
    }
    per.sort_by(f64::total_cmp);
    per[per.len() / 2]
}

fn main() {
    let words: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let args: Vec<f32> = words.iter().filter_map(|a| a.parse().ok()).collect();
    let only: Vec<&String> = words.iter().filter(|a| a.parse::<f32>().is_err()).collect();
    let (mm, cm) = (
        args.first().copied().unwrap_or(0.1),
        args.get(1).copied().unwrap_or(3.0),
    );
    let Some(dir) = gom_test_support::shared_data("bvh") else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
        .filter(|p| {
            let name = p.file_stem().map(|s| s.to_string_lossy().into_owned());
            only.is_empty()
                || only
                    .iter()
                    .any(|o| name.as_deref().unwrap_or("").contains(*o))
        })
        .collect();
    files.sort();
    let options = gom_import::options::ImportOptions {
        key_tolerance: 0.0,
        bvh_drop_end_sites: true,
        ..Default::default()
    };
    let settings = Settings {
        tolerance: mm / 1000.0,
        distance: cm / 100.0,
    };
    println!("compressed at {mm} mm at {cm} cm; times: median ns per whole pose (thread CPU)");
    println!("| clip | joints | frames | bytes | B/joint/frame | fwd ns | rnd ns | fwd ns/joint |");
    println!("|---|--:|--:|--:|--:|--:|--:|--:|");
    let (mut sum_f, mut sum_r, mut count) = (0.0, 0.0, 0.0);
    for path in files {
        let Ok(imported) = gom_import::source::import_path(&path, &options) else {
            eprintln!("{} did not import", path.display());
            continue;
        };
        let model = imported.model;
        let Some(clip) = model.clips.first() else {
            continue;
        };
        let payload = gom_import::compress::compress_clip(&model.skeleton, clip, settings)
            .expect("BVH clips compress");
        let skeleton = Skeleton::from_model(&model.skeleton).expect("skeleton");
        let rt = Clip::new_compressed(
            Cow::Borrowed(clip.name.as_str()),
            clip.duration,
            clip.sample_rate,
            clip.root_bone_index,
            clip.flags,
            Cow::Borrowed(&payload),
            &skeleton,
        )
        .expect("own payload");
        let frames = rt.compressed().map_or(0, |c| c.layout().frame_count);
        let joints = skeleton.bone_count();
        let (mut ctx, mut pose) = (SamplingContext::new(), LocalPose::default());
        let rate = clip.sample_rate;
        let fwd = time("fwd", |i| {
            let t = (i % frames as usize) as f32 / rate;
            sample(&rt, &skeleton, t, Playback::Once, &mut ctx, &mut pose).ok();
            black_box(&pose);
        });
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let times: Vec<f32> = (0..1024)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 11) as f32 / (1u64 << 53) as f32 * clip.duration
            })
            .collect();
        let rnd = time("rnd", |i| {
            sample(
                &rt,
                &skeleton,
                times[i % 1024],
                Playback::Once,
                &mut ctx,
                &mut pose,
            )
            .ok();
            black_box(&pose);
        });
        let layout = gom::compressed::Layout::parse(&payload, 0, joints as u32).expect("layout");
        let dec = gom::compressed::decode::Decoder::new(&layout, &payload);
        let mut vals = vec![[0.0f32; 4]; layout.animated_count as usize];
        let only = time("frame", |i| {
            dec.decode_frame(&payload, (i % frames as usize) as u32, &mut vals);
            black_box(&vals);
        });
        eprintln!("decode one frame: {only:.0} ns");
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!(
            "| {name} | {joints} | {frames} | {} | {:.3} | {fwd:.0} | {rnd:.0} | {:.2} |",
            payload.len(),
            payload.len() as f64 / (joints as f64 * f64::from(frames)),
            fwd / joints as f64
        );
        sum_f += fwd;
        sum_r += rnd;
        count += 1.0;
    }
    println!(
        "mean fwd {:.0} ns, mean rnd {:.0} ns",
        sum_f / count,
        sum_r / count
    );
}
