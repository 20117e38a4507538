//! The `SKNX` extension (docs/extensions.md §3): skinning methods and up to eight
//! influences. Round trips through GOMB and GOMT, what an independent v1 reader does,
//! and every hostile change of the chunk refused with the field and offset named.

mod gomb_support;

use gom::error::{FourCc, Place, ReadError, ReadErrorKind, WriteError};
use gom::gomb;
use gom::validate::Check;
use gom::{Model, SkinWeights, SkinningMethod, IDENTITY};
use gomb_support::*;

const BONES: usize = 10;
/// Eight distinct weights, descending, summing to 1.
const W8: [f32; 8] = [0.28, 0.2, 0.15, 0.12, 0.1, 0.08, 0.04, 0.03];

/// A model with one skinned mesh of `method`, eight influences when `eight`.
fn model(method: SkinningMethod, eight: bool) -> Model {
    let mut m = rich_model(7);
    let mut rng = Rng::new(3);
    m.skeleton = skeleton(BONES, &mut rng);
    let inverse_bind: Vec<_> = gom::math::bind_world(&m.skeleton.bones)
        .iter()
        .map(|w| gom::math::inverse_affine(w).unwrap_or(IDENTITY))
        .collect();
    m.clips.clear();
    m.meshes.truncate(1);
    let mesh = &mut m.meshes[0];
    mesh.inverse_bind = inverse_bind;
    let n = mesh.vertices.len();
    // Vertex v: bones (v + 3k) % 10, k = 0..8 (distinct), weights W8; with four
    // influences, the first four renormalised... kept simple: 0.4, 0.3, 0.2, 0.1.
    let bones = |v: usize, k: usize| ((v + 3 * k) % BONES) as u16;
    let slots = |v: usize, from: usize, w: [f32; 4]| SkinWeights {
        bones: std::array::from_fn(|k| bones(v, from + k)),
        weights: w,
    };
    let first = if eight {
        [W8[0], W8[1], W8[2], W8[3]]
    } else {
        [0.4, 0.3, 0.2, 0.1]
    };
    mesh.vertices.skin = Some((0..n).map(|v| slots(v, 0, first)).collect());
    mesh.vertices.skin_extra = eight.then(|| {
        (0..n)
            .map(|v| slots(v, 4, [W8[4], W8[5], W8[6], W8[7]]))
            .collect()
    });
    mesh.vertices.dq_weights =
        (method == SkinningMethod::Blended).then(|| (0..n).map(|v| (v % 5) as f32 / 4.0).collect());
    mesh.skinning = method;
    m
}

fn cases() -> Vec<(SkinningMethod, bool)> {
    vec![
        (SkinningMethod::Linear, true),
        (SkinningMethod::DualQuaternion, false),
        (SkinningMethod::DualQuaternion, true),
        (SkinningMethod::Blended, false),
        (SkinningMethod::Blended, true),
    ]
}

/// `m` as a reader gives it back: bounds as written.
fn as_read(m: &Model) -> Model {
    gomb::read(&gomb::write(m).unwrap()).unwrap().model
}

#[test]
fn every_method_and_eight_influences_round_trip_through_gomb_and_gomt() {
    for (method, eight) in cases() {
        let m = model(method, eight);
        let bytes = gomb::write(&m).unwrap();
        assert_eq!(bytes, gomb::write(&m).unwrap(), "deterministic");
        let read = gomb::read(&bytes).unwrap();
        let back = read.model;
        assert_eq!(back.meshes[0].skinning, method);
        assert_eq!(back.meshes[0].vertices, m.meshes[0].vertices);
        // The weights rule holds over the eight slots: the flag is earned.
        assert!(read.findings.is_empty(), "{:?}", read.findings);
        assert_eq!(back.header.validation_flags.bits(), 0b111);
        // GOMT carries it: text → model is the same, text → GOMB the same bytes.
        let text = gom::gomt::write(&back).unwrap();
        let from_text = gom::gomt::read(&text).unwrap();
        assert_eq!(from_text.meshes, back.meshes, "{method:?} {eight}");
        assert_eq!(gomb::write(&from_text).unwrap(), bytes);
        // The MSH0 flag and the chunk are there.
        let msh0 = offset_of(&bytes, b"MSH0");
        assert_eq!(rd(&bytes, msh0 + 16 + 20) & 4, 4);
        child_offset(&bytes, msh0, 32, b"SKNX");
    }
}

#[test]
fn a_linear_mesh_of_four_influences_has_no_extension() {
    let m = model(SkinningMethod::Linear, false);
    let bytes = gomb::write(&m).unwrap();
    assert!(!bytes.windows(4).any(|w| w == b"SKNX"));
    assert_eq!(as_read(&m).meshes[0].skinning, SkinningMethod::Linear);
}

#[test]
fn negative_zero_is_written_as_positive_zero() {
    let mut m = model(SkinningMethod::Blended, true);
    m.meshes[0].vertices.dq_weights.as_mut().unwrap()[0] = -0.0;
    let mut z = m.clone();
    z.meshes[0].vertices.dq_weights.as_mut().unwrap()[0] = 0.0;
    assert_eq!(gomb::write(&m).unwrap(), gomb::write(&z).unwrap());
}

/// What an independent GOM v1 reader (written from D4, D7 and D13 alone, sharing no
/// code with `gom`) says of a file: the number of meshes, or the refusal at MSH0's
/// flags (bits 2..31 reserved).
fn v1_meshes(b: &[u8]) -> Result<usize, String> {
    let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let end = u32_at(64) as usize;
    let (mut pos, mut meshes) = (512, 0);
    while pos < end {
        let size = u32_at(pos + 4) as usize;
        if &b[pos..pos + 4] == b"MSH0" {
            let flags_at = pos + 16 + 20;
            if u32_at(flags_at) & !3 != 0 {
                return Err(format!(
                    "MSH0 field flags at offset {flags_at}: reserved bits"
                ));
            }
            meshes += 1;
        }
        pos += 16 + size.div_ceil(16) * 16;
    }
    Ok(meshes)
}

#[test]
fn a_v1_reader_refuses_an_extended_mesh_at_its_flags_and_reads_a_plain_one() {
    let plain = gomb::write(&model(SkinningMethod::Linear, false)).unwrap();
    assert_eq!(v1_meshes(&plain), Ok(1));
    for (method, eight) in cases() {
        let bytes = gomb::write(&model(method, eight)).unwrap();
        let flags_at = offset_of(&bytes, b"MSH0") + 36;
        assert_eq!(
            v1_meshes(&bytes),
            Err(format!(
                "MSH0 field flags at offset {flags_at}: reserved bits"
            ))
        );
    }
}

/// The file of `model(method, eight)` with its SKNX payload changed by `f`.
fn with_sknx(method: SkinningMethod, eight: bool, f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let bytes = gomb::write(&model(method, eight)).unwrap();
    let (header, mut chunks) = split(&bytes);
    edit_mesh(&mut chunks, |_, kids| {
        let k = kids.iter_mut().find(|k| &k.fourcc == b"SKNX").unwrap();
        f(&mut k.payload);
    });
    assemble(&header, &chunks, true)
}

/// The SKNX payload offset in `bytes`.
fn sknx_at(bytes: &[u8]) -> usize {
    child_offset(bytes, offset_of(bytes, b"MSH0"), 32, b"SKNX") + 16
}

fn err(bytes: &[u8]) -> ReadError {
    gomb::read(bytes).expect_err("must be refused")
}

fn sknx_err(e: &ReadError, field: &str, offset: usize) {
    assert_eq!(e.place, Place::Chunk(FourCc::SKNX), "{e}");
    assert_eq!(e.field, field, "{e}");
    assert_eq!(e.offset, offset as u64, "{e}");
}

#[test]
fn sknx_fields_out_of_range_are_refused_at_their_offsets() {
    use SkinningMethod::*;
    let at = |b: &[u8]| sknx_at(b);
    let put = |p: &mut Vec<u8>, at: usize, v: u32| p[at..at + 4].copy_from_slice(&v.to_le_bytes());

    let b = with_sknx(DualQuaternion, true, |p| put(p, 0, 3));
    let e = err(&b);
    sknx_err(&e, "method", at(&b));
    assert!(matches!(e.kind, ReadErrorKind::UnknownEnum { value: 3 }));

    let b = with_sknx(DualQuaternion, true, |p| put(p, 4, 5));
    sknx_err(&err(&b), "influenceCount", at(&b) + 4);

    // Linear with four influences says nothing v1 cannot: refused.
    let b = with_sknx(Linear, true, |p| {
        put(p, 4, 4);
        p.truncate(16);
    });
    sknx_err(&err(&b), "influenceCount", at(&b) + 4);

    // A huge vertex count is compared, never allocated.
    let b = with_sknx(DualQuaternion, true, |p| put(p, 8, u32::MAX));
    let e = err(&b);
    sknx_err(&e, "vertexCount", at(&b) + 8);
    assert!(matches!(
        e.kind,
        ReadErrorKind::Value {
            value: 0xFFFF_FFFF,
            ..
        }
    ));

    let b = with_sknx(DualQuaternion, true, |p| put(p, 12, 1));
    let e = err(&b);
    sknx_err(&e, "reserved", at(&b) + 12);
    assert!(matches!(e.kind, ReadErrorKind::Reserved));
}

#[test]
fn sknx_values_nan_negative_or_past_the_skeleton_are_refused_at_their_offsets() {
    use SkinningMethod::*;
    let putf = |p: &mut Vec<u8>, at: usize, v: f32| p[at..at + 4].copy_from_slice(&v.to_le_bytes());
    // Vertex 2's first extra weight (slot 4) NaN.
    let w = 16 + 2 * 24 + 8;
    let b = with_sknx(Linear, true, |p| putf(p, w, f32::NAN));
    let e = err(&b);
    sknx_err(&e, "influences", sknx_at(&b) + w);
    assert!(matches!(e.kind, ReadErrorKind::NotFinite));
    // Negative.
    let b = with_sknx(Linear, true, |p| putf(p, w, -0.5));
    let e = err(&b);
    sknx_err(&e, "influences", sknx_at(&b) + 16 + 2 * 24);
    assert!(matches!(e.kind, ReadErrorKind::Rule { .. }), "{e}");
    // A weighted slot naming bone 10 of a 10-bone skeleton (slot 5 of vertex 2).
    let b = with_sknx(Linear, true, |p| {
        p[16 + 2 * 24 + 2..16 + 2 * 24 + 4].copy_from_slice(&10u16.to_le_bytes())
    });
    let e = err(&b);
    sknx_err(&e, "influences", sknx_at(&b) + 16 + 2 * 24 + 2);
    assert!(e.to_string().contains("vertex 2, slot 5"), "{e}");
    // Dual-quaternion shares: NaN, and 1.5, of vertex 3.
    let n = model(Blended, true).meshes[0].vertices.len();
    let d = 16 + 24 * n + 4 * 3;
    let b = with_sknx(Blended, true, |p| putf(p, d, f32::NAN));
    let e = err(&b);
    sknx_err(&e, "dqWeights", sknx_at(&b) + d);
    assert!(matches!(e.kind, ReadErrorKind::NotFinite));
    let b = with_sknx(Blended, true, |p| putf(p, d, 1.5));
    let e = err(&b);
    sknx_err(&e, "dqWeights", sknx_at(&b) + d);
    assert!(e.to_string().contains("vertex 3"), "{e}");
}

#[test]
fn a_truncated_or_lengthened_sknx_is_refused_at_every_length() {
    use SkinningMethod::*;
    for (method, eight) in [(Blended, true), (DualQuaternion, true), (Blended, false)] {
        let full = with_sknx(method, eight, |_| {}).len();
        let payload = gomb::write(&model(method, eight)).unwrap();
        let size = rd(&payload, sknx_at(&payload) - 12) as usize;
        for cut in (0..size).chain([size + 4]) {
            let b = with_sknx(method, eight, |p| p.resize(cut, 0));
            let e = err(&b);
            assert_eq!(e.place, Place::Chunk(FourCc::SKNX), "cut {cut}: {e}");
            assert!(
                matches!(
                    e.kind,
                    ReadErrorKind::Truncated { .. }
                        | ReadErrorKind::Overrun { .. }
                        | ReadErrorKind::Trailing { .. }
                ),
                "cut {cut}: {e}"
            );
        }
        // And the whole file cut anywhere: an error, never a panic.
        let bytes = with_sknx(method, eight, |_| {});
        assert_eq!(bytes.len(), full);
        for cut in (0..bytes.len()).step_by(7) {
            assert!(gomb::read(&bytes[..cut]).is_err());
        }
    }
}

#[test]
fn the_flag_and_the_chunk_go_together_and_the_chunk_belongs_in_msh0() {
    let bytes = gomb::write(&model(SkinningMethod::DualQuaternion, false)).unwrap();
    let (header, chunks) = split(&bytes);
    // Flag without the chunk.
    let mut c = chunks.clone();
    edit_mesh(&mut c, |_, kids| kids.retain(|k| &k.fourcc != b"SKNX"));
    let e = err(&assemble(&header, &c, true));
    assert_eq!((e.place, e.field), (Place::Chunk(FourCc::MSH0), "flags"));
    // Chunk without the flag.
    let mut c = chunks.clone();
    edit_mesh(&mut c, |fixed, _| {
        let f = rd(fixed, 20);
        wr(fixed, 20, f & !4)
    });
    let e = err(&assemble(&header, &c, true));
    assert_eq!((e.place, e.field), (Place::Chunk(FourCc::MSH0), "flags"));
    // Another version.
    let mut c = chunks.clone();
    edit_mesh(&mut c, |_, kids| {
        kids.iter_mut()
            .find(|k| &k.fourcc == b"SKNX")
            .unwrap()
            .version = 2
    });
    let e = err(&assemble(&header, &c, true));
    assert_eq!((e.place, e.field), (Place::Chunk(FourCc::SKNX), "version"));
    // At top level.
    let mut c = chunks.clone();
    let mut sknx = None;
    edit_mesh(&mut c, |fixed, kids| {
        let f = rd(fixed, 20);
        wr(fixed, 20, f & !4);
        let k = kids.iter().position(|k| &k.fourcc == b"SKNX").unwrap();
        sknx = Some(kids.remove(k));
    });
    c.push(sknx.unwrap());
    let e = err(&assemble(&header, &c, true));
    assert!(matches!(e.kind, ReadErrorKind::Misplaced { .. }), "{e}");
}

#[test]
fn the_weight_rules_hold_over_all_eight_slots() {
    // A vertex whose eight weights sum to 1 but whose four VB0 slots do not passes;
    // one whose slot 4 outweighs slot 3, or whose sum is off, is a finding.
    let good = model(SkinningMethod::Linear, true);
    assert!(gom::validate::validate(&good).is_empty());
    let mut bad = good.clone();
    let extra = bad.meshes[0].vertices.skin_extra.as_mut().unwrap();
    extra[1].weights[0] = 0.13; // > slot 3 (0.12), and the sum is 1.03
    extra[4].bones[3] = extra[4].bones[2]; // a bone used twice
    let f = gom::validate::validate(&bad);
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].check, f[0].items.clone()),
        (Check::Weights, vec![1, 4])
    );
    // The reader reports the same finding and the writer clears the flag.
    let read = gomb::read(&gomb::write(&bad).unwrap()).unwrap();
    assert_eq!(read.findings, f);
    assert_eq!(read.model.header.validation_flags.bits(), 0b101);
}

#[test]
fn the_writer_refuses_an_inconsistent_extension() {
    use SkinningMethod::*;
    let refuse = |m: Model, field: &str| match gomb::write(&m) {
        Err(WriteError::Invalid { field: f, .. }) => assert_eq!(f, field),
        other => panic!("{other:?}"),
    };
    let mut m = model(DualQuaternion, false);
    m.meshes[0].vertices.dq_weights = Some(vec![0.5; m.meshes[0].vertices.len()]);
    refuse(m, "dqWeights");
    let mut m = model(Blended, false);
    m.meshes[0].vertices.dq_weights = None;
    refuse(m, "dqWeights");
    let mut m = model(Blended, false);
    m.meshes[0].vertices.dq_weights.as_mut().unwrap()[1] = -0.25;
    refuse(m, "dqWeights");
    let mut m = model(Linear, true);
    m.meshes[0].vertices.skin_extra.as_mut().unwrap().pop();
    refuse(m, "skinExtra");
    let mut m = model(Linear, true);
    m.meshes[0].vertices.skin_extra.as_mut().unwrap()[0].weights[1] = f32::INFINITY;
    refuse(m, "skinExtra");
    let mut m = model(DualQuaternion, false);
    m.meshes[0].vertices.skin = None;
    m.meshes[0].inverse_bind.clear();
    refuse(m, "skinning");
}

#[test]
fn gomt_refuses_unknown_methods_and_lone_extra_keys() {
    let m = as_read(&model(SkinningMethod::Blended, true));
    let text = gom::gomt::write(&m).unwrap();
    let bad = text.replace("\"blended\"", "\"spline\"");
    let e = gom::gomt::read(&bad).unwrap_err().to_string();
    assert!(e.contains("unknown skinning method \"spline\""), "{e}");
    let bad = text.replace(", bi2 = ", ", bq = ");
    assert!(gom::gomt::read(&bad).is_err());
}
