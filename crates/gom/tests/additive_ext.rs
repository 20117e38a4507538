//! The `CLPA` extension (docs/extensions.md §5): additive clips. The deltas against
//! the definition, round trips through GOMB and GOMT, what an independent v1 reader
//! does, and hostile chunks refused with the field and offset named.

mod v1_reader;

use gom::additive::{make_additive, reference_pose, Reference, CLIP_FLAG_ADDITIVE};
use gom::error::{FourCc, Place, ReadErrorKind, WriteError};
use gom::gomb;
use gom::{Bone, Clip, ClipFlags, Key, Model, Skeleton, Track};
use v1_reader::v1_read_clips;

fn quat(axis: [f32; 3], angle: f32) -> [f32; 4] {
    let (s, c) = (angle / 2.0).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

fn key(time: f32, t: [f32; 3], r: [f32; 4], s: [f32; 3]) -> Key {
    Key {
        time,
        translation: t,
        rotation: r,
        scale: s,
    }
}

/// Three bones in a chain; "walk" moves bones 0 and 1 (translation, rotation and
/// scale), "idle" moves bone 2; bone 2 has no track in "walk".
fn model() -> Model {
    let bind = |y: f32| {
        let mut m = gom::IDENTITY;
        m[13] = y;
        m
    };
    let bones = (0..3)
        .map(|i| Bone {
            name: format!("b{i}"),
            path: format!("b{i}"),
            parent: i - 1,
            bind_local: bind(0.25 * i as f32),
        })
        .collect();
    let walk = Clip {
        name: "walk".into(),
        duration: 1.0,
        sample_rate: 30.0,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks: vec![
            Track {
                bone: 0,
                keys: (0..5)
                    .map(|k| {
                        let f = k as f32 / 4.0;
                        key(
                            f,
                            [f, 0.1 * f, -f],
                            quat([0.0, 1.0, 0.0], f * 1.5),
                            [1.0 + f, 1.0, 0.5 + f],
                        )
                    })
                    .collect(),
            },
            Track {
                bone: 1,
                keys: vec![
                    key(0.0, [0.0, 0.25, 0.0], quat([1.0, 0.0, 0.0], -0.3), [1.0; 3]),
                    key(1.0, [0.0, 0.3, 0.0], quat([0.6, 0.0, 0.8], 2.0), [1.0; 3]),
                ],
            },
        ],
        compressed: None,
        weight_tracks: Vec::new(),
        extras: Default::default(),
    };
    let idle = Clip {
        name: "idle".into(),
        tracks: vec![Track {
            bone: 2,
            keys: vec![
                key(0.0, [0.1, 0.5, 0.0], quat([0.0, 0.0, 1.0], 0.4), [2.0; 3]),
                key(1.0, [0.3, 0.5, 0.0], quat([0.0, 0.0, 1.0], 1.2), [4.0; 3]),
            ],
        }],
        ..walk.clone()
    };
    Model {
        skeleton: Skeleton { bones },
        clips: vec![walk, idle],
        ..Default::default()
    }
}

/// `model()` with "walk" made additive against `reference`.
fn additive_model(reference: Reference) -> Model {
    let mut m = model();
    let pose = reference_pose(&m, &reference).unwrap();
    m.clips[0] = make_additive(&m, &m.clips[0], reference, &pose).unwrap();
    m
}

fn idle_half() -> Reference {
    Reference::ClipFrame {
        clip: "idle".into(),
        time: 0.5,
    }
}

/// The Hamilton product, written here from the definition.
fn mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

#[test]
fn each_delta_key_composed_with_the_reference_gives_the_clip_key_back() {
    let m = additive_model(idle_half());
    let source = &model().clips[0];
    // The reference: bind for bones 0 and 1, idle halfway for bone 2 (hand-computed).
    let r2 = key(0.0, [0.2, 0.5, 0.0], quat([0.0, 0.0, 1.0], 0.8), [3.0; 3]);
    let clip = &m.clips[0];
    assert_eq!(clip.tracks.len(), 3, "every bone is tracked");
    for t in &clip.tracks {
        let (reference, expected): (Key, Vec<Key>) = match t.bone {
            2 => (
                r2,
                vec![key(0.0, [0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3])],
            ),
            b => (
                key(
                    0.0,
                    [0.0, 0.25 * b as f32, 0.0],
                    [0.0, 0.0, 0.0, 1.0],
                    [1.0; 3],
                ),
                source.tracks[b as usize].keys.clone(),
            ),
        };
        assert_eq!(t.keys.len(), expected.len());
        for (d, e) in t.keys.iter().zip(&expected) {
            assert_eq!(d.time, e.time);
            let r = mul(reference.rotation, d.rotation);
            for c in 0..3 {
                let tr = reference.translation[c] + d.translation[c];
                assert!((tr - e.translation[c]).abs() < 1e-6, "bone {} t", t.bone);
                let s = reference.scale[c] * d.scale[c];
                assert!((s - e.scale[c]).abs() < 1e-6, "bone {} s", t.bone);
            }
            let dot: f32 = (0..4).map(|c| r[c] * e.rotation[c]).sum();
            assert!(
                dot.abs() > 1.0 - 1e-6,
                "bone {} r: {r:?} {:?}",
                t.bone,
                e.rotation
            );
        }
    }
}

#[test]
fn additive_clips_round_trip_through_gomb_and_gomt_byte_for_byte() {
    for reference in [Reference::BindPose, idle_half()] {
        let m = additive_model(reference.clone());
        let bytes = gomb::write(&m).unwrap();
        assert_eq!(bytes, gomb::write(&m).unwrap(), "deterministic");
        let back = gomb::read(&bytes).unwrap().model;
        assert_eq!(back.clips, m.clips);
        assert_eq!(back.clips[0].extras.additive, Some(reference));
        assert_eq!(back.clips[1].extras.additive, None);
        let text = gom::gomt::write(&back).unwrap();
        assert!(text.contains("additive = {"), "{text}");
        let from_text = gom::gomt::read(&text).unwrap();
        assert_eq!(from_text.clips, m.clips);
        assert_eq!(gomb::write(&from_text).unwrap(), bytes);
    }
}

#[test]
fn a_v1_reader_refuses_an_additive_clip_at_its_flags_and_reads_the_others() {
    let plain = gomb::write(&model()).unwrap();
    let clips = v1_read_clips(&plain).expect("a v1 file");
    assert_eq!(clips.len(), 2);
    let bytes = gomb::write(&additive_model(Reference::BindPose)).unwrap();
    let err = v1_read_clips(&bytes).expect_err("the v1 reader must not read it");
    assert!(err.starts_with("CLP0 field flags at offset"), "{err}");
    let clp0 = bytes.windows(4).position(|w| w == b"CLP0").unwrap();
    let flags = u32::from_le_bytes(bytes[clp0 + 32..clp0 + 36].try_into().unwrap());
    assert_eq!(flags, CLIP_FLAG_ADDITIVE.bits());
    assert_eq!(flags, 16);
}

fn clpa_at(bytes: &[u8]) -> usize {
    bytes.windows(4).position(|w| w == b"CLPA").unwrap() + 16
}

fn put(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn clpa_fields_out_of_range_are_refused_at_their_offsets() {
    let bytes = gomb::write(&additive_model(idle_half())).unwrap();
    let at = clpa_at(&bytes);
    let cases: [(usize, u32, &str); 5] = [
        (0, 2, "referenceKind"),
        (4, 999, "referenceClipNameId"),
        (8, f32::NAN.to_bits(), "referenceTime"),
        (8, (-1.0f32).to_bits(), "referenceTime"),
        (12, 1, "reserved"),
    ];
    for (off, value, field) in cases {
        let mut b = bytes.clone();
        put(&mut b, at + off, value);
        let e = gomb::read(&b).expect_err(field);
        assert_eq!(e.place, Place::Chunk(FourCc::CLPA), "{e}");
        assert_eq!(e.field, field, "{e}");
        assert_eq!(e.offset, (at + off) as u64, "{e}");
    }
    // The bind pose names no clip and no time.
    let bytes = gomb::write(&additive_model(Reference::BindPose)).unwrap();
    let at = clpa_at(&bytes);
    let mut b = bytes.clone();
    put(&mut b, at + 4, 0);
    assert_eq!(gomb::read(&b).unwrap_err().field, "referenceClipNameId");
}

#[test]
fn the_flag_and_the_chunk_go_together() {
    let bytes = gomb::write(&additive_model(Reference::BindPose)).unwrap();
    // The CLPA renamed: an additive CLP0 without its reference.
    let at = clpa_at(&bytes) - 16;
    let mut b = bytes.clone();
    b[at..at + 4].copy_from_slice(b"XXXX");
    let e = gomb::read(&b).unwrap_err();
    assert_eq!((e.place, e.field), (Place::Chunk(FourCc::CLP0), "CLPA"));
    assert!(matches!(e.kind, ReadErrorKind::Missing), "{e}");
    // The flag cleared: a CLPA after a clip that is not additive.
    let clp0 = bytes.windows(4).position(|w| w == b"CLP0").unwrap();
    let mut b = bytes.clone();
    put(&mut b, clp0 + 32, 0);
    let e = gomb::read(&b).unwrap_err();
    assert_eq!(e.place, Place::Chunk(FourCc::CLPA), "{e}");
    assert!(matches!(e.kind, ReadErrorKind::Misplaced { .. }), "{e}");
    // Compressed and additive at once.
    let mut b = bytes.clone();
    put(&mut b, clp0 + 32, 8 | 2);
    let e = gomb::read(&b).unwrap_err();
    assert_eq!((e.field, e.offset), ("flags", (clp0 + 32) as u64), "{e}");
}

#[test]
fn the_writer_refuses_an_additive_clip_that_leaves_a_bone_out_or_is_compressed() {
    let mut m = additive_model(Reference::BindPose);
    m.clips[0].tracks.pop();
    match gomb::write(&m) {
        Err(WriteError::Invalid { field, .. }) => assert_eq!(field, "trackCount"),
        other => panic!("{other:?}"),
    }
    let m = model();
    let e = make_additive(
        &m,
        &Clip {
            compressed: Some(vec![0]),
            ..m.clips[0].clone()
        },
        Reference::BindPose,
        &reference_pose(&m, &Reference::BindPose).unwrap(),
    );
    assert!(e.is_err());
    let missing = Reference::ClipFrame {
        clip: "run".into(),
        time: 0.0,
    };
    assert!(reference_pose(&m, &missing).is_err());
}
