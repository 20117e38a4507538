//! Where D3–D13 leave a choice open, the reader's choice (stated in docs/format.md,
//! "Interpretations"), pinned by one test each on the golden minimal file.

mod gomb_support;

use gom::error::{FourCc, Place, ReadError, ReadErrorKind};
use gom::gomb;
use gomb_support::*;

/// The first vertex of the golden file (docs/format.md §6): position, uv0, bones,
/// weights.
const VDATA: usize = 800 + 32;

fn golden() -> Vec<u8> {
    gomb::write(&minimal_model()).unwrap()
}

#[test]
fn the_endianness_word_is_read_little_endian() {
    // A big-endian writer's 2 (bytes 00 00 00 02) reads as 0x02000000: an unknown
    // enum, refused like every unknown enum value; only the word 2 names big-endian.
    let mut f = golden();
    f[72..76].copy_from_slice(&[0, 0, 0, 2]);
    assert!(matches!(
        gomb::read(&f),
        Err(ReadError {
            field: "endianness",
            kind: ReadErrorKind::UnknownEnum {
                value: 0x0200_0000,
                ..
            },
            ..
        })
    ));
}

#[test]
fn either_index_size_is_read_whatever_the_vertex_count() {
    // The 65536 rule binds the writer: a reader takes 4-byte indices for 3 vertices.
    let (h, mut chunks) = split(&golden());
    edit_mesh(&mut chunks, |fixed, kids| {
        wr(fixed, 20, 0); // flags: indices16 clear
        let ib = &mut kids[1];
        assert_eq!(&ib.fourcc, b"IB0 ");
        let mut p = ib.payload[..16].to_vec();
        wr(&mut p, 4, 4);
        for i in [0u32, 1, 2] {
            p.extend_from_slice(&i.to_le_bytes());
        }
        ib.payload = p;
    });
    let r = gomb::read(&assemble(&h, &chunks, true)).unwrap();
    assert_eq!(r.model.meshes[0].indices, [0, 1, 2]);
    // …and the canonical writer turns it back into the golden file.
    let mut m = r.model;
    m.header.validation_flags = Default::default();
    assert_eq!(gomb::write(&m).unwrap(), golden());
}

#[test]
fn unknown_chunks_have_any_version_and_flags_but_zero_padding() {
    let (h, mut chunks) = split(&golden());
    let mut x = Raw::new(b"XTRA", vec![7; 5]);
    x.version = 9;
    x.flags = 0xFFFF_FFFF;
    chunks.insert(2, x);
    let f = assemble(&h, &chunks, true);
    assert_eq!(gomb::read(&f).unwrap().unknown_chunks.len(), 1);
    let mut g = f.clone();
    g[704 + 16 + 5] = 1; // first padding byte after the 5 payload bytes
    let e = gomb::read(&g).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::Padding), "{e}");
    assert_eq!(e.place, Place::Chunk(FourCc(*b"XTRA")));
}

#[test]
fn negative_zero_is_read_and_counts_as_zero() {
    // The writer writes +0.0; a reader accepts -0.0 anywhere, and a -0.0 weight is an
    // unused slot, not a negative weight.
    let mut f = golden();
    wr(&mut f, VDATA, 0x8000_0000); // position x of vertex 0
    wr(&mut f, VDATA + 32, 0x8000_0000); // weight slot 1 of vertex 0
    let r = gomb::read(&f).unwrap();
    assert!(r.findings.is_empty());
    let p = r.model.meshes[0].vertices.positions[0][0];
    assert_eq!(p.to_bits(), 0x8000_0000);
    // Written again, it is the golden file.
    let mut m = r.model;
    m.header.validation_flags = Default::default();
    m.meshes[0].bounds = None;
    assert_eq!(gomb::write(&m).unwrap(), golden());
}

#[test]
fn strings_may_be_unreferenced_but_are_still_checked() {
    let (h, mut chunks) = split(&golden());
    let s = find(&mut chunks, b"STR0");
    // Append a seventh string "zz" that nothing names.
    let mut p = Vec::new();
    let n = rd(&s.payload, 0) as usize;
    p.extend_from_slice(&(n as u32 + 1).to_le_bytes());
    p.extend_from_slice(&s.payload[4..4 + 4 * n]);
    let data_size = rd(&s.payload, 4 + 4 * n);
    p.extend_from_slice(&data_size.to_le_bytes());
    p.extend_from_slice(&(data_size + 3).to_le_bytes());
    p.extend_from_slice(&s.payload[8 + 4 * n..]);
    p.extend_from_slice(b"zz\0");
    s.payload = p.clone();
    assert!(gomb::read(&assemble(&h, &chunks, true)).is_ok());
    // The same unreferenced string without its NUL is an error.
    let last = p.len() - 1;
    find(&mut chunks, b"STR0").payload[last] = b'z';
    assert!(matches!(
        gomb::read(&assemble(&h, &chunks, true)),
        Err(ReadError {
            kind: ReadErrorKind::BadString { index: 6, .. },
            ..
        })
    ));
}

#[test]
fn a_clear_flag_whose_check_passes_is_accepted_and_kept() {
    let mut f = golden();
    wr(&mut f, 60, 0);
    let r = gomb::read(&f).unwrap();
    assert!(r.findings.is_empty());
    assert_eq!(r.model.header.validation_flags.bits(), 0);
}

#[test]
fn a_table_offset_of_zero_needs_a_count_of_zero() {
    let (h, chunks) = split(&golden());
    let mut f = assemble(&h, &chunks, false);
    assert!(gomb::read(&f).is_ok());
    wr(&mut f, 68, 1);
    assert!(matches!(
        gomb::read(&f),
        Err(ReadError {
            field: "chunkTableCount",
            offset: 68,
            kind: ReadErrorKind::Value { .. },
            ..
        })
    ));
}
