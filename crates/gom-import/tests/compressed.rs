//! Compressed clips (`--compress`, docs/extensions.md) on the shared BVH clips: the
//! bound holds against the uncompressed import through the runtime's sampler, the
//! bytes survive GOMT, the encoder is deterministic, hostile payloads are refused.

use std::path::{Path, PathBuf};

use gom::compressed::{metric, Trs};
use gom_import::options::ImportOptions;
use gom_runtime::{sample, sample_at_frames, Asset, LocalPose, Playback, SamplingContext};

fn clip_path(name: &str) -> Option<PathBuf> {
    gom_test_support::shared_data("bvh").map(|d| d.join(name))
}

fn import(path: &Path, compress: bool, mm: f32, cm: f32) -> gom::Model {
    let options = ImportOptions {
        key_tolerance: if compress { mm / 1000.0 } else { 0.0 },
        key_tolerance_distance: cm / 100.0,
        compress,
        bvh_drop_end_sites: true,
        ..Default::default()
    };
    gom_import::source::import_path(path, &options)
        .expect("shared clip imports")
        .model
}

/// Every bone at every frame of the first clip, sampled by the runtime from `bytes`,
/// frame by frame (played backwards when `reverse`, then put back in frame order).
fn runtime_frames(bytes: &[u8], frames: usize, reverse: bool) -> Vec<Trs> {
    let asset = Asset::parse(bytes).expect("written file reads");
    let clip = asset.clips().first().expect("a clip");
    assert!(clip.compressed().is_some(), "the clip reads as compressed");
    let n = asset.skeleton().bone_count();
    let order = 0..frames as u32;
    if !reverse {
        return sample_at_frames(clip, asset.skeleton(), order).expect("samples");
    }
    let backward = sample_at_frames(clip, asset.skeleton(), order.rev()).expect("samples");
    backward.chunks(n).rev().flatten().copied().collect()
}

#[test]
fn bvh_clips_stay_within_the_bound_on_the_whole_skeleton() {
    for (name, mm, cm) in [
        ("002_01.bvh", 1.0, 10.0),
        ("006_14.bvh", 0.1, 3.0),
        ("007_12.bvh", 0.5, 5.0),
    ] {
        let Some(path) = clip_path(name) else { return };
        let model = import(&path, true, mm, cm);
        let bytes = gom::gomb::write(&model).expect("writes");
        // The reference: the same file imported with every key, sampled independently.
        let raw = import(&path, false, 0.0, 10.0);
        let src =
            gom_import::compress::sample_frames(&raw.skeleton, &raw.clips[0]).expect("samples");
        let frames = src.frames.len() / src.parents.len();
        let got = runtime_frames(&bytes, frames, false);
        let (joint, shell) =
            metric::clip_errors(&src.parents, &src.frames, &got, f64::from(cm) / 100.0);
        let bound = f64::from(mm) / 1000.0;
        assert!(
            shell <= bound * 1.001,
            "{name}: shell error {shell} above {bound}"
        );
        assert!(
            joint <= shell,
            "{name}: joint error {joint} above shell {shell}"
        );
        // Far smaller than the keys it replaces (44 bytes a key).
        let keys: usize = raw.clips[0].tracks.iter().map(|t| t.keys.len()).sum();
        let payload = model.clips[0]
            .compressed
            .as_ref()
            .expect("compressed")
            .len();
        assert!(
            payload * 8 < keys * 44,
            "{name}: {payload} bytes for {keys} keys"
        );
    }
}

#[test]
fn seeking_backwards_gives_the_bits_of_forward_playback() {
    let Some(path) = clip_path("005_03.bvh") else {
        return;
    };
    let model = import(&path, true, 1.0, 10.0);
    let bytes = gom::gomb::write(&model).expect("writes");
    let frames = gom::compressed::Layout::header(model.clips[0].compressed.as_ref().unwrap())
        .unwrap()
        .frame_count as usize;
    let forward = runtime_frames(&bytes, frames, false);
    let backward = runtime_frames(&bytes, frames, true);
    assert_eq!(forward, backward);
}

#[test]
fn gomt_reproduces_the_compressed_bytes_and_refuses_edited_keys() {
    let Some(path) = clip_path("002_03.bvh") else {
        return;
    };
    let model = import(&path, true, 1.0, 10.0);
    let bytes = gom::gomb::write(&model).expect("writes");
    let text = gom::gomt::write(&gom::gomb::read(&bytes).expect("reads").model).expect("text");
    assert!(text.contains("compressed = { toleranceMm = 1, distanceCm = 10, frames = 86"));
    let back = gom::gomb::write(&gom::gomt::read(&text).expect("text reads")).expect("writes");
    assert_eq!(back, bytes, "GOMB -> GOMT -> GOMB");
    // A key changed by hand no longer matches the samples: refused, naming the tracks.
    let keys = text.find("keys = [").expect("a key list");
    let at = keys + text[keys..].find(", t = [").expect("a translation") + ", t = [".len();
    let end = at + text[at..].find(',').expect("the next component");
    let edited = format!("{}0.123{}", &text[..at], &text[end..]);
    let err = gom::gomt::read(&edited)
        .expect_err("edited keys are refused")
        .to_string();
    assert!(err.contains("compress the clip again"), "{err}");
}

#[test]
fn compression_is_deterministic() {
    let Some(path) = clip_path("003_02.bvh") else {
        return;
    };
    let a = gom::gomb::write(&import(&path, true, 0.2, 3.0)).unwrap();
    let b = gom::gomb::write(&import(&path, true, 0.2, 3.0)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn hostile_payload_bytes_are_refused_or_sample_finite_poses() {
    let Some(path) = clip_path("007_09.bvh") else {
        return;
    };
    let model = import(&path, true, 2.0, 10.0);
    let bytes = gom::gomb::write(&model).expect("writes");
    let payload = model.clips[0].compressed.as_ref().unwrap();
    let start = bytes
        .windows(payload.len().min(64))
        .position(|w| w == &payload[..payload.len().min(64)])
        .expect("payload in the file");
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let (mut refused, mut read) = (0, 0);
    for i in 0..600 {
        let mut m = bytes.clone();
        // Every byte of the fixed fields and tables, then random bytes of the data.
        let k = if i < 400 {
            i
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % payload.len() as u64) as usize
        };
        m[start + k] ^= 0x5A;
        match Asset::parse(&m) {
            Err(_) => refused += 1,
            Ok(asset) => {
                read += 1;
                let (mut ctx, mut pose) = (SamplingContext::new(), LocalPose::default());
                for t in [0.0, 0.37, 1.0, 2.5] {
                    sample(
                        &asset.clips()[0],
                        asset.skeleton(),
                        t,
                        Playback::Loop,
                        &mut ctx,
                        &mut pose,
                    )
                    .unwrap();
                    for b in 0..pose.bone_count() {
                        let tr = pose.get(b).unwrap();
                        assert!(
                            tr.translation.is_finite()
                                && tr.rotation.is_finite()
                                && tr.scale.is_finite()
                        );
                    }
                }
            }
        }
    }
    assert!(refused > 0 && read > 0, "refused {refused}, read {read}");
}

#[test]
fn the_report_says_each_clip_is_stored_compressed_with_its_size_and_bound() {
    let Some(path) = clip_path("002_01.bvh") else {
        return;
    };
    let options = ImportOptions {
        key_tolerance: 0.001,
        key_tolerance_distance: 0.1,
        compress: true,
        bvh_drop_end_sites: true,
        ..Default::default()
    };
    let imported = gom_import::source::import_path(&path, &options).expect("imports");
    let payload = imported.model.clips[0]
        .compressed
        .as_ref()
        .expect("compressed");
    let name = &imported.model.clips[0].name;
    let line = format!(
        "  clip \"{name}\" stored compressed: {} bytes, ",
        payload.len()
    );
    let found: Vec<&String> = imported
        .summary
        .iter()
        .filter(|l| l.starts_with(&line))
        .collect();
    assert_eq!(found.len(), 1, "{:#?}", imported.summary);
    assert!(found[0].ends_with("bound 1 mm at 10 cm"), "{}", found[0]);
    assert!(
        !imported
            .summary
            .iter()
            .any(|l| l.contains("after reduction")),
        "{:#?}",
        imported.summary
    );
    let entry = &imported.report["compressed"][0];
    assert_eq!(entry["clip"], name.as_str());
    assert_eq!(entry["bytes"], payload.len());
}
