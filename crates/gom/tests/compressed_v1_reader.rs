//! What a GOM v1 reader that knows nothing of compressed clips does with a file that
//! holds one (docs/extensions.md §2.1). The reader here is written from the draft and
//! D3, D4, D9 and D13 alone and shares no code with `gom`: it walks the chunks,
//! skips unknown FourCCs by their size (§8.5) and reads ANIM's clips (`v1_reader`).

mod v1_reader;

use gom::compressed::{decoded_tracks, encode, EncodeInput, Layout, Settings, Trs};
use gom::{Bone, Clip, ClipFlags, Model, Skeleton};
use v1_reader::{v1_read_clips, V1Clip};

/// Three bones swinging for 40 frames at 30 Hz, as keys and compressed.
fn models() -> (Model, Model) {
    let bind = |y: f32| {
        let mut m = gom::IDENTITY;
        m[13] = y;
        m
    };
    let bones: Vec<Bone> = (0..3)
        .map(|i| Bone {
            name: format!("b{i}"),
            path: format!("b{i}"),
            parent: i - 1,
            bind_local: bind(if i == 0 { 0.0 } else { 0.2 }),
        })
        .collect();
    let parents: Vec<i32> = bones.iter().map(|b| b.parent).collect();
    let bind_trs: Vec<Trs> = bones
        .iter()
        .map(|b| gom::compressed::bind_trs(&b.bind_local))
        .collect();
    let mut frames = Vec::new();
    for f in 0..40 {
        for (i, b) in bind_trs.iter().enumerate() {
            let a = (f as f64 * 0.1 + i as f64).sin() * 0.5;
            let mut t = *b;
            t.r = [(a / 2.0).sin() as f32, 0.0, 0.0, (a / 2.0).cos() as f32];
            frames.push(t);
        }
    }
    let settings = Settings {
        tolerance: 1e-4,
        distance: 0.1,
    };
    let payload = encode(
        &EncodeInput {
            parents: &parents,
            bind: &bind_trs,
            frames: &frames,
        },
        settings,
    );
    let layout = Layout::parse(&payload, 0, 3).expect("own payload");
    let mats: Vec<gom::Mat4> = bones.iter().map(|b| b.bind_local).collect();
    let tracks = decoded_tracks(&layout, &payload, &mats, 30.0, 39.0 / 30.0);
    let clip = Clip {
        weight_tracks: Vec::new(),
        name: "swing".into(),
        duration: 39.0 / 30.0,
        sample_rate: 30.0,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks,
        compressed: Some(payload),
        extras: Default::default(),
    };
    let compressed = Model {
        skeleton: Skeleton { bones },
        clips: vec![clip],
        ..Default::default()
    };
    let mut plain = compressed.clone();
    plain.clips[0].compressed = None;
    (plain, compressed)
}

#[test]
fn a_v1_reader_reads_plain_clips_as_gom_does() {
    let (plain, _) = models();
    let bytes = gom::gomb::write(&plain).unwrap();
    let clips = v1_read_clips(&bytes).expect("a v1 file");
    let expected: Vec<(i32, u32)> = plain.clips[0]
        .tracks
        .iter()
        .map(|t| (t.bone as i32, t.keys.len() as u32))
        .collect();
    assert_eq!(
        clips,
        vec![V1Clip {
            flags: 0,
            tracks: expected
        }]
    );
}

#[test]
fn a_v1_reader_refuses_a_compressed_clip_at_its_flags() {
    let (_, compressed) = models();
    let bytes = gom::gomb::write(&compressed).unwrap();
    let err = v1_read_clips(&bytes).expect_err("the v1 reader must not read it");
    assert!(err.starts_with("CLP0 field flags at offset"), "{err}");
    // gom itself reads the clip back, samples and all.
    let back = gom::gomb::read(&bytes).unwrap().model;
    assert_eq!(back.clips, compressed.clips);
}

#[test]
fn gom_refuses_a_compressed_clip_without_its_samples() {
    let (_, compressed) = models();
    let bytes = gom::gomb::write(&compressed).unwrap();
    // Rename the CLPZ chunk: a reader now meets a compressed CLP0 followed by an
    // unknown chunk.
    let at = bytes.windows(4).position(|w| w == b"CLPZ").unwrap();
    let mut cut = bytes.clone();
    cut[at..at + 4].copy_from_slice(b"XXXX");
    let err = gom::gomb::read(&cut).expect_err("refused").to_string();
    assert!(err.contains("CLPZ"), "{err}");
}
