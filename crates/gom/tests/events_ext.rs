//! The `EVNT` extension (docs/extensions.md §6): float tracks and events round trip
//! through GOMB and GOMT, a v1 reader reads the rest of the file as before, and
//! hostile chunks are refused at the field's offset.

mod v1_reader;

use gom::error::{FourCc, Place, ReadErrorKind};
use gom::events::{Event, FloatTrack, Interpolation};
use gom::gomb;
use gom::{Bone, Clip, ClipFlags, Model, Skeleton};

fn model() -> Model {
    let clip = |name: &str| Clip {
        name: name.into(),
        duration: 1.0,
        sample_rate: 30.0,
        root_bone_index: -1,
        flags: ClipFlags::empty(),
        tracks: vec![],
        compressed: None,
        weight_tracks: Vec::new(),
        extras: Default::default(),
    };
    let mut walk = clip("walk");
    walk.extras.float_tracks = vec![
        FloatTrack {
            name: "blink".into(),
            components: 1,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.5, 1.0],
            values: vec![0.0, 1.0, 0.0],
        },
        FloatTrack {
            name: "hand".into(),
            components: 3,
            interpolation: Interpolation::Step,
            times: vec![0.25],
            values: vec![1.0, -2.0, 0.5],
        },
    ];
    walk.extras.events = vec![
        Event {
            time: 0.25,
            name: "footstep".into(),
            payload: Some("left".into()),
        },
        Event {
            time: 0.75,
            name: "footstep".into(),
            payload: Some("right".into()),
        },
        Event {
            time: 1.0,
            name: "walk".into(),
            payload: None,
        },
    ];
    Model {
        skeleton: Skeleton {
            bones: vec![Bone {
                name: "b".into(),
                path: "b".into(),
                parent: -1,
                bind_local: gom::IDENTITY,
            }],
        },
        clips: vec![walk, clip("idle")],
        ..Default::default()
    }
}

#[test]
fn float_tracks_and_events_round_trip_through_gomb_and_gomt_byte_for_byte() {
    let m = model();
    let bytes = gomb::write(&m).unwrap();
    let back = gomb::read(&bytes).unwrap().model;
    assert_eq!(back.clips, m.clips);
    let text = gom::gomt::write(&back).unwrap();
    assert!(text.contains("floatTracks = [") && text.contains("payload = \"left\""));
    let from_text = gom::gomt::read(&text).unwrap();
    assert_eq!(from_text.clips, m.clips);
    assert_eq!(gomb::write(&from_text).unwrap(), bytes);
}

#[test]
fn a_v1_reader_reads_the_clips_of_a_file_with_events() {
    let bytes = gomb::write(&model()).unwrap();
    let clips = v1_reader::v1_read_clips(&bytes).expect("EVNT is optional: skipped");
    assert_eq!(clips.len(), 2);
    assert!(clips.iter().all(|c| c.flags == 0));
}

fn evnt_at(bytes: &[u8]) -> usize {
    bytes.windows(4).position(|w| w == b"EVNT").unwrap() + 16
}

fn put(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn hostile_evnt_fields_are_refused_at_their_offsets() {
    let bytes = gomb::write(&model()).unwrap();
    let at = evnt_at(&bytes);
    // Track 0 at 16: nameId, components, interpolation, keyCount, 3 times, 3 values
    // (40 bytes); track 1 at 56: 4 words, 1 time, 3 values (32 bytes); events at 88.
    let cases: [(usize, u32, &str); 9] = [
        (0, u32::MAX, "floatTrackCount"),
        (4, 1 << 30, "eventCount"),
        (8, 1, "reserved"),
        (16, 9999, "nameId"),
        (20, 5, "components"),
        (24, 2, "interpolation"),
        (32 + 4, 0.0f32.to_bits(), "times"),
        (44, f32::NAN.to_bits(), "values"),
        (88 + 16, 0.1f32.to_bits(), "time"),
    ];
    for (off, value, field) in cases {
        let mut b = bytes.clone();
        put(&mut b, at + off, value);
        let e = gomb::read(&b).expect_err(field);
        assert_eq!(e.place, Place::Chunk(FourCc::EVNT), "{field}: {e}");
        assert_eq!(e.field, field, "{e}");
        assert_eq!(e.offset, (at + off) as u64, "{field}: {e}");
    }
    // A count the bytes cannot hold is refused before anything is allocated.
    let mut b = bytes.clone();
    put(&mut b, at, 4000);
    let e = gomb::read(&b).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::Truncated { .. }), "{e}");
    // Twice after one clip.
    let mut b = bytes.clone();
    let second = bytes.windows(4).rposition(|w| w == b"CLP0").unwrap();
    b[second..second + 4].copy_from_slice(b"EVNT");
    assert!(gomb::read(&b).is_err());
}

#[test]
fn the_writers_refuse_what_the_reader_would() {
    let mut m = model();
    m.clips[0].extras.events.swap(0, 1);
    assert_eq!(gomb::write(&m).unwrap_err().field(), "events");
    let mut m = model();
    m.clips[0].extras.float_tracks[1].values.pop();
    assert_eq!(gomb::write(&m).unwrap_err().field(), "floatTracks");
    let mut m = model();
    m.clips[0].extras.float_tracks[0].times[2] = 1.5;
    assert!(gom::gomt::write(&m).is_err());
}

/// Every byte of the extension chunks changed three ways: the reader never panics,
/// and what it accepts the writer writes again, stably (the GOMB fuzz target's
/// invariants, on the new chunks).
#[test]
fn every_byte_of_the_extension_chunks_corrupted_is_refused_or_rewritten_stably() {
    let mut m = model();
    let pose = gom::additive::reference_pose(&m, &gom::additive::Reference::BindPose).unwrap();
    let mut lean = gom::additive::make_additive(
        &m,
        &m.clips[1],
        gom::additive::Reference::ClipFrame {
            clip: "walk".into(),
            time: 0.5,
        },
        &pose,
    )
    .unwrap();
    lean.name = "lean".into();
    m.clips.push(lean);
    let bytes = gomb::write(&m).unwrap();
    let start = bytes.windows(4).position(|w| w == b"EVNT").unwrap();
    let end = bytes.windows(4).position(|w| w == b"CLPA").unwrap() + 32;
    let mut accepted = 0;
    for at in start..end {
        for f in [|b: u8| b ^ 0xFF, |_| 0, |b: u8| b.wrapping_add(1)] {
            let mut b = bytes.clone();
            b[at] = f(b[at]);
            let Ok(read) = gomb::read(&b) else {
                continue;
            };
            accepted += 1;
            let again = gomb::write(&read.model).expect("the writer takes what the reader took");
            let back = gomb::read(&again).expect("the rewritten file reads");
            assert_eq!(gomb::write(&back.model).unwrap(), again, "byte {at}");
        }
    }
    assert!(accepted > 0, "some changes (values, times) are valid files");
}
