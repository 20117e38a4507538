//! The blend-shape extension (`MRPH`, `MWGT`, docs/extensions.md §4): round trips
//! through GOMB and GOMT, what an independent v1 reader does, and hostile chunks
//! refused at their offsets.

mod gomb_support;

use gom::error::{FourCc, Place, ReadError, ReadErrorKind};
use gom::gomb;
use gom::morph::{MorphTarget, WeightInterpolation, WeightKey, WeightTrack};
use gom::Model;
use gomb_support::*;

/// The minimal model with normals and tangents, two targets (the second with a
/// non-zero default weight when `defaults`) and, when `tracks`, weight tracks on its
/// clip.
fn model(defaults: bool, tracks: bool) -> Model {
    let mut m = minimal_model();
    let mesh = &mut m.meshes[0];
    mesh.vertices.normals = Some(vec![[0.0, 0.0, 1.0]; 3]);
    mesh.vertices.tangents = Some(vec![[1.0, 0.0, 0.0, 1.0]; 3]);
    mesh.morph_targets = vec![
        MorphTarget {
            name: "smile".into(),
            default_weight: 0.0,
            indices: vec![0, 2],
            positions: vec![[0.1, 0.0, 0.0], [0.0, -0.25, 0.5]],
            normals: Some(vec![[0.0, 0.1, 0.0], [0.2, 0.0, 0.0]]),
            tangents: Some(vec![[0.0, 0.0, 0.3], [0.0, 0.1, 0.0]]),
        },
        MorphTarget {
            name: "blink".into(),
            default_weight: if defaults { 0.25 } else { 0.0 },
            indices: vec![1],
            positions: vec![[1e-7, 3.5, -2.0]],
            normals: Some(vec![[0.0; 3]]),
            tangents: Some(vec![[0.0; 3]]),
        },
    ];
    if tracks {
        m.clips[0].weight_tracks = vec![
            WeightTrack {
                mesh: 0,
                target: 0,
                interpolation: WeightInterpolation::Linear,
                keys: vec![
                    WeightKey {
                        time: 0.0,
                        weight: 0.0,
                    },
                    WeightKey {
                        time: 0.5,
                        weight: 1.0,
                    },
                    WeightKey {
                        time: 1.0,
                        weight: -0.5,
                    },
                ],
            },
            WeightTrack {
                mesh: 0,
                target: 1,
                interpolation: WeightInterpolation::Step,
                keys: vec![WeightKey {
                    time: 0.25,
                    weight: 1.0,
                }],
            },
        ];
    }
    m
}

fn cases() -> [(bool, bool); 4] {
    [(false, false), (true, false), (false, true), (true, true)]
}

/// `m` as a reader gives it back: with the bounds the writer computed.
fn as_read(m: &Model) -> Model {
    gomb::read(&gomb::write(m).unwrap()).unwrap().model
}

#[test]
fn targets_and_weight_tracks_round_trip_through_gomb_and_gomt() {
    for (defaults, tracks) in cases() {
        let m = model(defaults, tracks);
        let bytes = gomb::write(&m).unwrap();
        let back = gomb::read(&bytes).unwrap();
        assert!(back.unknown_chunks.is_empty());
        assert_eq!(
            back.model.meshes[0].morph_targets,
            m.meshes[0].morph_targets
        );
        assert_eq!(back.model.clips[0].weight_tracks, m.clips[0].weight_tracks);
        assert_eq!(
            back.model.clips[0].flags, m.clips[0].flags,
            "no extension bit"
        );
        assert_eq!(gomb::write(&back.model).unwrap(), bytes, "deterministic");
        let text = gom::gomt::write(&m).unwrap();
        let from_text = gom::gomt::read(&text).unwrap();
        assert_eq!(from_text, as_read(&m));
        assert_eq!(gom::gomt::write(&from_text).unwrap(), text);
        assert_eq!(
            gomb::write(&from_text).unwrap(),
            bytes,
            "GOMT → GOMB: same bytes"
        );
    }
}

#[test]
fn targets_that_move_no_vertex_keep_their_delta_lists_through_gomt() {
    // No delta shows which lists such a target has; the text says it (`carries`).
    for (normals, tangents) in [(false, false), (true, false), (false, true), (true, true)] {
        let mut m = model(false, false);
        for t in &mut m.meshes[0].morph_targets {
            t.indices.clear();
            t.positions.clear();
            t.normals = normals.then(Vec::new);
            t.tangents = tangents.then(Vec::new);
        }
        let bytes = gomb::write(&m).unwrap();
        let text = gom::gomt::write(&m).unwrap();
        let from_text = gom::gomt::read(&text).unwrap();
        assert_eq!(from_text.meshes[0].morph_targets, m.meshes[0].morph_targets);
        assert_eq!(
            gomb::write(&from_text).unwrap(),
            bytes,
            "GOMT → GOMB: same bytes"
        );
    }
    // Only for a target without deltas, and only "n" and "t", once each.
    let text = gom::gomt::write(&model(false, false)).unwrap();
    let mut empty = model(false, false);
    for t in &mut empty.meshes[0].morph_targets {
        t.indices.clear();
        t.positions.clear();
        t.normals = Some(Vec::new());
        t.tangents = None;
    }
    let empty = gom::gomt::write(&empty).unwrap();
    assert!(empty.contains("carries = [\"n\"]"), "{empty}");
    for bad in [
        text.replacen(
            "deltas = [\n",
            "carries = [\"n\"],\n        deltas = [\n",
            1,
        ),
        empty.replacen("carries = [\"n\"]", "carries = [\"x\"]", 1),
        empty.replacen("carries = [\"n\"]", "carries = [\"n\", \"n\"]", 1),
    ] {
        assert!(gom::gomt::read(&bad).is_err(), "{bad}");
    }
}

#[test]
fn a_mesh_without_targets_and_a_clip_without_weights_stay_v1_bytes() {
    let mut m = model(false, false);
    m.meshes[0].morph_targets.clear();
    let bytes = gomb::write(&m).unwrap();
    assert!(!bytes.windows(4).any(|w| w == b"MRPH" || w == b"MWGT"));
}

/// What an independent GOM v1 reader (written from D4, D7, D9 and D13 alone, sharing
/// no code with `gom`) says of a file: per mesh its vertex count, per clip its track
/// count, skipping unknown chunks by their size (§8.5); or its refusal at a reserved
/// flag bit of MSH0 (bits 2..31) or CLP0 (bits 1..31).
fn v1_read(b: &[u8]) -> Result<(Vec<u32>, Vec<u32>), String> {
    let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let end = u32_at(64) as usize;
    let (mut pos, mut meshes, mut clips) = (512, Vec::new(), Vec::new());
    while pos < end {
        let size = u32_at(pos + 4) as usize;
        let payload = pos + 16;
        match &b[pos..pos + 4] {
            b"MSH0" => {
                let flags_at = payload + 20;
                if u32_at(flags_at) & !3 != 0 {
                    return Err(format!("MSH0 flags at {flags_at}: reserved bits"));
                }
                meshes.push(u32_at(payload + 8));
            }
            b"ANIM" => {
                let mut at = payload + 16;
                while at < payload + size {
                    let csize = u32_at(at + 4) as usize;
                    if &b[at..at + 4] == b"CLP0" {
                        let flags_at = at + 16 + 16;
                        if u32_at(flags_at) & !1 != 0 {
                            return Err(format!("CLP0 flags at {flags_at}: reserved bits"));
                        }
                        clips.push(u32_at(at + 16 + 20));
                    }
                    at += 16 + csize.div_ceil(16) * 16;
                }
            }
            _ => {}
        }
        pos = payload + size.div_ceil(16) * 16;
    }
    Ok((meshes, clips))
}

#[test]
fn a_v1_reader_reads_unposed_targets_as_gom_does_and_refuses_what_changes_the_pose() {
    // Targets at weight 0, no weight tracks: optional, the v1 reader reads the rest.
    let bytes = gomb::write(&model(false, false)).unwrap();
    assert_eq!(v1_read(&bytes), Ok((vec![3], vec![1])));
    // A default weight: MSH0 flags bit 3.
    let bytes = gomb::write(&model(true, false)).unwrap();
    let flags_at = offset_of(&bytes, b"MSH0") + 36;
    assert_eq!(
        v1_read(&bytes),
        Err(format!("MSH0 flags at {flags_at}: reserved bits"))
    );
    // Weight tracks: CLP0 flags bit 3.
    let bytes = gomb::write(&model(false, true)).unwrap();
    let anim = offset_of(&bytes, b"ANIM");
    let flags_at = child_offset(&bytes, anim, 4, b"CLP0") + 32;
    assert_eq!(
        v1_read(&bytes),
        Err(format!("CLP0 flags at {flags_at}: reserved bits"))
    );
    // A clip that animates only weights is refused too (it does not play as the bind
    // pose).
    let mut only = model(false, true);
    only.clips[0].tracks.clear();
    let bytes = gomb::write(&only).unwrap();
    assert!(v1_read(&bytes).is_err());
    assert_eq!(
        gomb::read(&bytes).unwrap().model.clips[0]
            .weight_tracks
            .len(),
        2
    );
}

fn err(bytes: &[u8]) -> ReadError {
    gomb::read(bytes).expect_err("must be refused")
}

/// The file of `model(true, true)` with its MRPH payload changed by `f`.
fn with_mrph(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let bytes = gomb::write(&model(true, true)).unwrap();
    let (header, mut chunks) = split(&bytes);
    edit_mesh(&mut chunks, |_, kids| {
        let k = kids.iter_mut().find(|k| &k.fourcc == b"MRPH").unwrap();
        f(&mut k.payload);
    });
    assemble(&header, &chunks, true)
}

/// The file of `model(true, true)` with its MWGT payload changed by `f`.
fn with_mwgt(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let bytes = gomb::write(&model(true, true)).unwrap();
    let (header, mut chunks) = split(&bytes);
    edit_anim(&mut chunks, |_, kids| {
        let k = kids.iter_mut().find(|k| &k.fourcc == b"MWGT").unwrap();
        f(&mut k.payload);
    });
    assemble(&header, &chunks, true)
}

fn mrph_at(bytes: &[u8]) -> usize {
    child_offset(bytes, offset_of(bytes, b"MSH0"), 32, b"MRPH") + 16
}

fn mwgt_at(bytes: &[u8]) -> usize {
    child_offset(bytes, offset_of(bytes, b"ANIM"), 4, b"MWGT") + 16
}

fn at(e: &ReadError, place: FourCc, field: &str, offset: usize) {
    assert_eq!(e.place, Place::Chunk(place), "{e}");
    assert_eq!(e.field, field, "{e}");
    assert_eq!(e.offset, offset as u64, "{e}");
}

/// MRPH of `model(true, true)`: 16 fixed bytes, two 8-byte records, names
/// "smile\0blink\0" padded to 12 bytes, then target 0 (2 deltas: indices 8 bytes,
/// positions, normals, tangents 24 bytes each) and target 1.
const RECORDS: usize = 16;
const DATA0: usize = 16 + 16 + 12;

#[test]
fn mrph_counts_indices_and_deltas_are_refused_at_their_offsets() {
    let f = with_mrph(|p| wr(p, 0, 5000));
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Limit { .. }), "{e}");
    at(&e, FourCc::MRPH, "targetCount", mrph_at(&f));

    let f = with_mrph(|p| wr(p, 0, 0));
    at(&err(&f), FourCc::MRPH, "targetCount", mrph_at(&f));

    let f = with_mrph(|p| wr(p, 4, 4));
    at(&err(&f), FourCc::MRPH, "vertexCount", mrph_at(&f) + 4);

    let f = with_mrph(|p| wr(p, 8, 4));
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Reserved), "{e}");
    at(&e, FourCc::MRPH, "attributes", mrph_at(&f) + 8);

    // A huge delta count: refused by the bytes present, before any allocation.
    let f = with_mrph(|p| wr(p, RECORDS, 15_000_000));
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Truncated { .. }), "{e}");
    let f = with_mrph(|p| wr(p, RECORDS, u32::MAX));
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Limit { .. }), "{e}");
    at(&e, FourCc::MRPH, "deltaCount", mrph_at(&f) + RECORDS);

    // Index out of range, and not ascending.
    let f = with_mrph(|p| wr(p, DATA0 + 4, 3));
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Rule { .. }), "{e}");
    at(&e, FourCc::MRPH, "indices", mrph_at(&f) + DATA0 + 4);
    let f = with_mrph(|p| wr(p, DATA0 + 4, 0));
    at(&err(&f), FourCc::MRPH, "indices", mrph_at(&f) + DATA0 + 4);

    // NaN and infinite deltas, a huge one, a NaN default weight.
    for (off, field) in [
        (8, "positions"),
        (8 + 24 + 4, "normals"),
        (8 + 48, "tangents"),
    ] {
        for bits in [
            f32::NAN.to_bits(),
            f32::INFINITY.to_bits(),
            2e6f32.to_bits(),
        ] {
            let f = with_mrph(|p| wr(p, DATA0 + off, bits));
            at(&err(&f), FourCc::MRPH, field, mrph_at(&f) + DATA0 + off);
        }
    }
    let f = with_mrph(|p| wr(p, RECORDS + 12, f32::NAN.to_bits()));
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::NotFinite), "{e}");
    at(
        &e,
        FourCc::MRPH,
        "defaultWeight",
        mrph_at(&f) + RECORDS + 12,
    );
}

#[test]
fn mrph_names_must_be_terminated_utf8_and_unique() {
    let names = RECORDS + 16;
    // "smilexblink\0": one name short; the second starts in the padding.
    let f = with_mrph(|p| p[names + 5] = b'x');
    at(&err(&f), FourCc::MRPH, "names", mrph_at(&f) + names + 12);
    let f = with_mrph(|p| p[names + 6..names + 11].copy_from_slice(b"smile"));
    at(&err(&f), FourCc::MRPH, "names", mrph_at(&f) + names + 6);
    let f = with_mrph(|p| p[names] = 0xFF);
    at(&err(&f), FourCc::MRPH, "names", mrph_at(&f) + names);
}

/// Every length of a chunk's payload but its own, from 0 to 8 bytes more, given by
/// `edit` (which resizes it in the file): refused, naming the chunk.
fn every_other_length(fourcc: FourCc, n: usize, edit: fn(usize) -> Vec<u8>) {
    for len in (0..n + 8).filter(|&l| l != n) {
        let e = err(&edit(len));
        assert_eq!(e.place, Place::Chunk(fourcc), "length {len}: {e}");
    }
}

#[test]
fn a_truncated_or_lengthened_mrph_or_mwgt_is_refused_without_panic() {
    let full = gomb::write(&model(true, true)).unwrap();
    let size = |container: usize, fixed, fourcc| {
        rd(&full, child_offset(&full, container, fixed, fourcc) + 4)
    };
    let mrph = size(offset_of(&full, b"MSH0"), 32, b"MRPH") as usize;
    every_other_length(FourCc::MRPH, mrph, |len| with_mrph(|p| p.resize(len, 0)));
    let mwgt = size(offset_of(&full, b"ANIM"), 4, b"MWGT") as usize;
    every_other_length(FourCc::MWGT, mwgt, |len| with_mwgt(|p| p.resize(len, 0)));
}

#[test]
fn mwgt_indices_keys_and_counts_are_refused_at_their_offsets() {
    // Track 0 at 8: mesh, target, interpolation, keyCount, then 3 keys.
    let f = with_mwgt(|p| wr(p, 8, 1));
    let e = err(&f);
    at(&e, FourCc::MWGT, "meshIndex", mwgt_at(&f) + 8);
    let f = with_mwgt(|p| wr(p, 12, 2));
    at(&err(&f), FourCc::MWGT, "targetIndex", mwgt_at(&f) + 12);
    let f = with_mwgt(|p| wr(p, 16, 2));
    let e = err(&f);
    assert!(
        matches!(e.kind, ReadErrorKind::UnknownEnum { value: 2 }),
        "{e}"
    );
    at(&e, FourCc::MWGT, "interpolation", mwgt_at(&f) + 16);
    let f = with_mwgt(|p| wr(p, 20, u32::MAX));
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Limit { .. }), "{e}");
    let f = with_mwgt(|p| wr(p, 20, 0));
    at(&err(&f), FourCc::MWGT, "keyCount", mwgt_at(&f) + 20);
    let f = with_mwgt(|p| wr(p, 0, 9000));
    at(&err(&f), FourCc::MWGT, "trackCount", mwgt_at(&f));
    // NaN weight, time beyond the duration, times not ascending.
    let f = with_mwgt(|p| wr(p, 24 + 4, f32::NAN.to_bits()));
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::NotFinite), "{e}");
    at(&e, FourCc::MWGT, "weight", mwgt_at(&f) + 28);
    let f = with_mwgt(|p| wr(p, 24 + 16, 2f32.to_bits()));
    at(&err(&f), FourCc::MWGT, "time", mwgt_at(&f) + 40);
    let f = with_mwgt(|p| wr(p, 24 + 8, 0f32.to_bits()));
    at(&err(&f), FourCc::MWGT, "time", mwgt_at(&f) + 32);
    // Tracks out of (mesh, target) order.
    let f = with_mwgt(|p| wr(p, 24 + 24 + 4, 0));
    at(&err(&f), FourCc::MWGT, "targetIndex", mwgt_at(&f) + 52);
}

#[test]
fn the_flags_and_the_chunks_go_together() {
    // MSH0 bit 3 without a non-zero default weight, and a default weight without it.
    let bytes = gomb::write(&model(false, false)).unwrap();
    let flags_at = offset_of(&bytes, b"MSH0") + 36;
    let mut f = bytes.clone();
    let v = rd(&f, flags_at) | 8;
    wr(&mut f, flags_at, v);
    at(&err(&f), FourCc::MSH0, "flags", flags_at);
    let bytes = gomb::write(&model(true, false)).unwrap();
    let mut f = bytes.clone();
    let v = rd(&f, flags_at) & !8;
    wr(&mut f, flags_at, v);
    at(&err(&f), FourCc::MSH0, "flags", flags_at);
    // CLP0 bit 3 without its MWGT: renamed, it is an unknown chunk.
    let bytes = gomb::write(&model(false, true)).unwrap();
    let mut f = bytes.clone();
    let w = mwgt_at(&f) - 16;
    f[w..w + 4].copy_from_slice(b"XXXX");
    let e = err(&f);
    assert_eq!(
        (e.place, e.field),
        (Place::Chunk(FourCc::CLP0), "MWGT"),
        "{e}"
    );
    // An MWGT after a clip without the bit.
    let mut f = bytes.clone();
    let clp0 = child_offset(&f, offset_of(&f, b"ANIM"), 4, b"CLP0");
    wr(&mut f, clp0 + 32, 0);
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Misplaced { .. }), "{e}");
    // Another version.
    let mut f = bytes;
    wr(&mut f, w + 8, 2);
    let e = err(&f);
    at(&e, FourCc::MWGT, "version", w + 8);
}

#[test]
fn the_writer_and_gomt_refuse_broken_targets_and_tracks() {
    let broken: [fn(&mut Model); 7] = [
        |m| m.meshes[0].morph_targets[1].name = "smile".into(),
        |m| m.meshes[0].morph_targets[0].indices = vec![2, 0],
        |m| m.meshes[0].morph_targets[0].indices[1] = 3,
        |m| m.meshes[0].morph_targets[0].positions[0][1] = f32::NAN,
        |m| m.meshes[0].morph_targets[1].normals = None,
        |m| m.clips[0].weight_tracks[1].target = 2,
        |m| m.clips[0].weight_tracks[0].keys[1].weight = f32::INFINITY,
    ];
    for (k, f) in broken.iter().enumerate() {
        let mut m = model(true, true);
        f(&mut m);
        assert!(gomb::write(&m).is_err(), "case {k}");
        assert!(gom::gomt::write(&m).is_err(), "case {k}");
    }
    // The text reader applies the same rules, at the key concerned.
    let text = gom::gomt::write(&model(true, true)).unwrap();
    let bad = text.replacen("target = 1", "target = 7", 1);
    let e = gom::gomt::read(&bad).unwrap_err();
    assert!(e.to_string().contains("weight track 1"), "{e}");
    let line = text
        .lines()
        .position(|l| l.contains("weightTracks"))
        .unwrap()
        + 1;
    assert_eq!(e.line as usize, line, "{e}");
}

#[test]
fn the_demo_with_blend_shapes_round_trips_and_validates() {
    let m = gom_demo::with_morphs(gom_demo::build());
    assert_eq!(m.meshes[0].morph_targets.len(), 2);
    let bytes = gomb::write(&m).unwrap();
    let back = gomb::read(&bytes).unwrap();
    assert!(back.findings.is_empty());
    assert_eq!(
        back.model.meshes[0].morph_targets,
        m.meshes[0].morph_targets
    );
    assert_eq!(back.model.clips[1].weight_tracks, m.clips[1].weight_tracks);
    let text = gom::gomt::write(&m).unwrap();
    assert_eq!(
        gomb::write(&gom::gomt::read(&text).unwrap()).unwrap(),
        bytes
    );
}
