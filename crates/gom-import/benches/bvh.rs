//! BVH import time for the largest shared CMU clip (`002_09.bvh`), against a reference
//! taken in the same run: splitting the same text into words and parsing every number
//! with the standard library (the least any BVH reader does).
//!
//! Three measurements, interleaved one call of each in turn for a few seconds (the
//! machine is shared, so only ratios taken under the same conditions are compared):
//! `words + parse` (the reference), `convert (no reduction)` (parse, build the skeleton
//! and one key per frame per joint) and `convert` (defaults: keys reduced at 1 mm at
//! 10 cm). Prints medians, their ratios to the reference, and frames × joints per
//! second. `docs/bvh.md` records the figures.
//!
//! Run: `cargo bench -p gom-import --bench bvh`. Under `cargo test --benches` (no
//! `--bench` argument) each is called once.

use std::hint::black_box;
use std::time::{Duration, Instant};

use gom_import::bvh::{convert, BvhOptions};

const FILE: &str = "002_09.bvh";

/// The reference: every whitespace-separated word, every one that parses as a number.
fn words_and_numbers(text: &str) -> f64 {
    text.split_ascii_whitespace()
        .filter_map(|w| w.parse::<f64>().ok())
        .sum()
}

fn convert_with(bytes: &[u8], options: &BvhOptions) -> usize {
    let (model, _) = convert(black_box(bytes), FILE, options).expect("the shared clip converts");
    model.clips[0].tracks.iter().map(|t| t.keys.len()).sum()
}

/// Median of `v` in µs (sorted in place).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time(f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e6
}

fn main() {
    let Some(dir) = gom_test_support::shared_data("bvh") else {
        return;
    };
    let bytes = std::fs::read(dir.join(FILE)).expect("the shared clip");
    let text = std::str::from_utf8(&bytes).expect("ASCII text");
    let bench = std::env::args().any(|a| a == "--bench");
    let budget = Duration::from_secs(if bench { 20 } else { 0 });
    let plain = BvhOptions {
        reduce_keys: false,
        ..Default::default()
    };
    let defaults = BvhOptions::default();
    let frames_joints = {
        let frames = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Frames:"))
            .and_then(|n| n.trim().parse::<f64>().ok())
            .expect("a Frames: line");
        let joints = text.matches("ROOT").count() + text.matches("JOINT").count();
        frames * joints as f64
    };
    let mut times: [Vec<f64>; 3] = Default::default();
    let start = Instant::now();
    while start.elapsed() < budget || times[0].len() < if bench { 15 } else { 1 } {
        times[0].push(time(&mut || {
            black_box(words_and_numbers(black_box(text)));
        }));
        times[1].push(time(&mut || {
            black_box(convert_with(&bytes, &plain));
        }));
        times[2].push(time(&mut || {
            black_box(convert_with(&bytes, &defaults));
        }));
    }
    let rounds = times[0].len();
    let [reference, no_reduce, full] = times.map(|mut v| median(&mut v));
    println!(
        "{FILE}: {} bytes, {frames_joints} frames × joints, medians of {rounds} rounds",
        bytes.len(),
    );
    for (label, t) in [
        ("words + parse (reference)", reference),
        ("convert (no reduction)", no_reduce),
        ("convert (defaults)", full),
    ] {
        println!(
            "{label:<28} {:>10.0} µs  {:>5.2}× reference  {:>6.2} M frames×joints/s",
            t,
            t / reference,
            frames_joints / t
        );
    }
}
