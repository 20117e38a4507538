//! `gom render --animate` and `--all-clips`: every frame of an APNG is the picture at
//! its time through one camera for the whole animation (the cell of the clip's
//! filmstrip), a GIF's within palette quantisation; delays, looping, errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[allow(dead_code)] // this file reads no shared data
mod common;
use common::{gom, s};

const SIZE: &str = "64x64";

fn demo(dir: &Path) -> PathBuf {
    let path = dir.join("demo.gom");
    std::fs::write(&path, gom::gomb::write(&gom_demo::build()).unwrap()).unwrap();
    path
}

/// The RGBA8 pixels of each cell of `gom render FILE --clip CLIP --frames N` at
/// [`SIZE`]: the clip at `i · duration / (N − 1)` for `i` in `0..N`, every cell through
/// the camera framed on all of them.
fn filmstrip_cells(dir: &Path, model: &Path, clip: &str, n: u32) -> Vec<Vec<u8>> {
    let out = dir.join(format!("strip-{clip}-{n}.png"));
    let frames = n.to_string();
    let o = gom(&[
        "render",
        s(model),
        "--clip",
        clip,
        "--frames",
        &frames,
        "--size",
        SIZE,
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let decoder = png::Decoder::new(std::fs::File::open(&out).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let width = info.width as usize;
    // One row of 64-pixel cells, 4 pixels apart and from the edge (gom_render::layout).
    (0..n as usize)
        .map(|i| {
            let x0 = 4 + i * (64 + 4);
            (4..4 + 64)
                .flat_map(|y| buf[(y * width + x0) * 4..(y * width + x0 + 64) * 4].to_vec())
                .collect()
        })
        .collect()
}

struct ApngFrame {
    rgba: Vec<u8>,
    delay: (u16, u16),
    size: (u32, u32),
}

/// Every frame of an APNG with its delay, and the play count.
fn decode_apng(path: &Path) -> (Vec<ApngFrame>, u32) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let actl = reader.info().animation_control.expect("an animated PNG");
    let mut frames = Vec::new();
    for _ in 0..actl.num_frames {
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        let fc = reader
            .info()
            .frame_control
            .expect("every frame has a delay");
        assert_eq!((fc.x_offset, fc.y_offset), (0, 0), "whole frames");
        buf.truncate(info.buffer_size());
        frames.push(ApngFrame {
            rgba: buf,
            delay: (fc.delay_num, fc.delay_den),
            size: (info.width, info.height),
        });
    }
    (frames, actl.num_plays)
}

fn render_animation(model: &Path, extra: &[&str], out: &Path) {
    let mut args = vec!["render", s(model), "-o", s(out)];
    args.extend_from_slice(extra);
    if !extra.contains(&"--size") {
        args.extend_from_slice(&["--size", SIZE]);
    }
    let o = gom(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn every_apng_frame_is_the_filmstrip_cell_at_its_time_with_the_stated_delay() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo(dir.path());
    let out = dir.path().join("swish.png");
    let args = ["--clip", "swish", "--animate", "--fps", "5"];
    render_animation(&model, &args, &out);
    let (frames, plays) = decode_apng(&out);
    assert_eq!(plays, 0, "loops forever");
    // The clip lasts 2 s: 2 × 5 frames, at 0, 0.2, …, 1.8 s; the filmstrip of 11
    // frames shows 0, 0.2, …, 2 s, framed on the same poses.
    assert_eq!(frames.len(), 10);
    let cells = filmstrip_cells(dir.path(), &model, "swish", 11);
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f.delay, (1, 5), "frame {i}");
        assert_eq!(f.size, (64, 64));
        assert!(f.rgba == cells[i], "frame {i} differs from the filmstrip's");
    }
    // Not all frames alike: the clip moves.
    assert_ne!(frames[0].rgba, frames[5].rgba);
    // The same command gives the same bytes.
    let again = dir.path().join("again.png");
    render_animation(&model, &args, &again);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn without_fps_an_animation_plays_at_the_clip_s_sample_rate() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo(dir.path());
    let out = dir.path().join("curl.png");
    render_animation(&model, &["--clip", "curl", "--animate"], &out);
    let (frames, _) = decode_apng(&out);
    // 1.5 s at the demo's 30 Hz.
    assert_eq!(frames.len(), 45);
    assert!(frames.iter().all(|f| f.delay == (1, 30)));
    let cells = filmstrip_cells(dir.path(), &model, "curl", 46);
    assert!(frames[44].rgba == cells[44]);
}

#[test]
fn a_gif_at_30_hz_lasts_the_clip_s_duration_to_the_hundredth() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo(dir.path());
    let out = dir.path().join("curl.gif");
    render_animation(&model, &["--clip", "curl", "--animate"], &out);
    let mut decoder = gif::DecodeOptions::new()
        .read_info(std::fs::File::open(&out).unwrap())
        .unwrap();
    let mut delays = Vec::new();
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        delays.push(u32::from(frame.delay));
    }
    // 45 frames of 3⅓ hundredths: 1.5 s, as 3, 4, 3, 3, 4, 3, … (not 45 × 3 = 1.35 s).
    assert_eq!(delays.len(), 45);
    assert_eq!(delays.iter().sum::<u32>(), 150);
    assert_eq!(&delays[..6], &[3, 4, 3, 3, 4, 3]);
}

/// Largest and mean absolute difference over every channel of two RGBA images.
fn difference(a: &[u8], b: &[u8]) -> (u8, f64) {
    assert_eq!(a.len(), b.len());
    let mut max = 0;
    let mut sum = 0u64;
    for (x, y) in a.iter().zip(b) {
        let d = x.abs_diff(*y);
        max = max.max(d);
        sum += u64::from(d);
    }
    (max, sum as f64 / a.len() as f64)
}

/// How far a GIF frame may be from the APNG's. A frame of at most 256 colours keeps
/// them exactly (the `gif` crate's palette of the colours present); above that,
/// NeuQuant's palette gives no hard bound per pixel, so the mean over the picture is
/// bounded tightly and the largest difference loosely.
const GIF_MEAN_BOUND: f64 = 1.5;
const GIF_MAX_BOUND: u8 = 48;

#[test]
fn every_gif_frame_is_the_apng_frame_within_palette_quantisation() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo(dir.path());
    let out = dir.path().join("swish.gif");
    let args = [
        "--clip",
        "swish",
        "--animate",
        "--fps",
        "5",
        "--size",
        "160x160",
    ];
    render_animation(&model, &args, &out);
    let apng = dir.path().join("swish.png");
    render_animation(&model, &args, &apng);
    let (lossless, _) = decode_apng(&apng);
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(&out).unwrap())
        .unwrap();
    assert_eq!(decoder.repeat(), gif::Repeat::Infinite);
    let mut n = 0;
    let mut worst = (0u8, 0f64);
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!((frame.width, frame.height), (160, 160));
        assert_eq!(frame.delay, 20, "1/5 s in hundredths");
        let (max, mean) = difference(&frame.buffer, &lossless[n].rgba);
        assert!(
            max <= GIF_MAX_BOUND && mean <= GIF_MEAN_BOUND,
            "frame {n}: largest difference {max}, mean {mean}"
        );
        worst = (worst.0.max(max), worst.1.max(mean));
        n += 1;
    }
    eprintln!(
        "worst GIF frame: largest difference {}, mean {:.3}",
        worst.0, worst.1
    );
    assert_eq!(n, 10);
    let again = dir.path().join("again.gif");
    render_animation(&model, &args, &again);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn all_clips_plays_each_clip_in_turn_under_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo(dir.path());
    let out = dir.path().join("all.png");
    render_animation(&model, &["--all-clips", "--fps", "4"], &out);
    let (frames, _) = decode_apng(&out);
    // swish: 2 s × 4; curl: 1.5 s × 4.
    assert_eq!(frames.len(), 8 + 6);
    let (w, h) = frames[0].size;
    assert_eq!(w, 64);
    assert!(h > 64, "a caption strip under the picture");
    let picture = |f: &ApngFrame| f.rgba[..64 * 64 * 4].to_vec();
    let caption = |f: &ApngFrame| f.rgba[64 * 64 * 4..].to_vec();
    // One camera for both clips: the demo's static base (the bottom rows of the
    // picture) stays on the same pixels in every frame, while the tentacle moves.
    let base = |f: &ApngFrame| f.rgba[56 * 64 * 4..64 * 64 * 4].to_vec();
    for (i, f) in frames.iter().enumerate() {
        assert!(base(f) == base(&frames[0]), "frame {i}: the base moved");
    }
    assert!(
        base(&frames[0]).chunks(4).any(|p| p != [48, 52, 60, 255]),
        "the base is in the bottom rows"
    );
    assert_ne!(picture(&frames[0]), picture(&frames[4]));
    assert_ne!(picture(&frames[8]), picture(&frames[11]));
    assert_eq!(
        caption(&frames[0]),
        caption(&frames[7]),
        "one caption per clip"
    );
    assert_ne!(
        caption(&frames[0]),
        caption(&frames[8]),
        "each clip's own name"
    );
}

#[test]
fn a_bad_fps_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo(dir.path());
    let out = dir.path().join("x.png");
    for fps in ["0", "-3", "NaN", "inf", "101"] {
        let o = gom(&[
            "render",
            s(&model),
            "--clip",
            "swish",
            "--animate",
            "--fps",
            fps,
            "-o",
            s(&out),
        ]);
        assert_eq!(o.status.code(), Some(2), "--fps {fps}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--fps"), "--fps {fps}: {err}");
        assert!(!out.exists());
    }
    let o = gom(&["render", s(&model), "--fps", "10", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--animate"));
}

#[test]
fn a_closed_pipe_ends_the_animation_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_gom"))
        .args([
            "render",
            s(&model),
            "--all-clips",
            "--size",
            SIZE,
            "-o",
            "-",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!o.status.success(), "the animation could not be written");
}

#[test]
fn an_animation_to_standard_output_is_the_file_s_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo(dir.path());
    let file = dir.path().join("a.png");
    let args = ["--clip", "curl", "--animate", "--fps", "2"];
    render_animation(&model, &args, &file);
    let mut piped = vec!["render", s(&model), "--size", SIZE, "-o", "-"];
    piped.extend_from_slice(&args);
    let o = gom(&piped);
    assert!(o.status.success());
    assert_eq!(o.stdout, std::fs::read(&file).unwrap());
}
