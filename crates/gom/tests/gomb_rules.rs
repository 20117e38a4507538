//! One file per rule of D3–D13: each test breaks exactly one rule of a valid file and
//! asserts the error (variant, offset, field) the reader must give, or, for what D13
//! calls a finding, the finding. Offsets are those of the golden file (docs/format.md).

mod gomb_support;

use gom::error::{FourCc, Item, Place, ReadError, ReadErrorKind, WriteError};
use gom::gomb;
use gom::validate::Check;
use gomb_support::*;

// The golden file's layout (docs/format.md).
const STR0: usize = 512;
const SKEL: usize = 608;
const MATL: usize = 704;
const MSH0: usize = 752;
const VB0: usize = 800;
const VDATA: usize = 832; // first vertex: position, uv0, bones, weights (44 bytes)
const IB0: usize = 976;
const SUB0: usize = 1024;
const IBND: usize = 1056;
const BND0: usize = 1152;
const ANIM: usize = 1216;
const CLP0: usize = 1248;
const TRACK: usize = CLP0 + 16 + 24;
const KEY0: usize = TRACK + 8;
const KEY1: usize = KEY0 + 44;
const TABLE: usize = 1392;

fn golden() -> Vec<u8> {
    let f = gomb::write(&minimal_model()).unwrap();
    assert_eq!(f.len(), TABLE + 80);
    f
}

fn patched(at: usize, v: u32) -> Vec<u8> {
    let mut f = golden();
    wr(&mut f, at, v);
    f
}

fn patched_f32(at: usize, v: f32) -> Vec<u8> {
    patched(at, v.to_bits())
}

fn err(f: &[u8]) -> ReadError {
    match gomb::read(f) {
        Ok(_) => panic!("the file was accepted"),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            e
        }
    }
}

/// Asserts the error's place, field and offset.
fn at(e: &ReadError, place: Place, field: &str, offset: usize) {
    assert_eq!(
        (e.place, e.field, e.offset),
        (place, field, offset as u64),
        "{e}"
    );
}

const H: Place = Place::Header;
fn c(f: &FourCc) -> Place {
    Place::Chunk(*f)
}

// ----------------------------------------------------------------------------- D3

#[test]
fn d3_magic() {
    let mut f = golden();
    f[7] = b'2';
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Magic { .. }));
    at(&e, H, "magic", 0);
    assert!(matches!(
        err(b"GOMT0001\n"),
        ReadError {
            field: "magic",
            kind: ReadErrorKind::Magic { .. },
            ..
        }
    ));
}

#[test]
fn d3_a_bad_magic_shows_the_bytes_found_as_text_and_hex() {
    let mut f = golden();
    f[..8].copy_from_slice(b"GOMX0001");
    assert_eq!(
        err(&f).to_string(),
        "field `magic` of the header at offset 0 is \"GOMX0001\" \
         (47 4F 4D 58 30 30 30 31), expected the bytes `GOMB0001`"
    );
    // Bytes that are not printable ASCII are escaped in the text part.
    f[..8].copy_from_slice(&[0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n']);
    assert_eq!(
        err(&f).to_string(),
        "field `magic` of the header at offset 0 is \"\\x89PNG\\r\\n\\x1a\\n\" \
         (89 50 4E 47 0D 0A 1A 0A), expected the bytes `GOMB0001`"
    );
}

#[test]
fn d3_header_size_and_format_version() {
    let e = err(&patched(8, 513));
    assert!(matches!(e.kind, ReadErrorKind::Value { value: 513, .. }));
    at(&e, H, "headerSize", 8);
    let e = err(&patched(12, 2));
    assert!(matches!(e.kind, ReadErrorKind::Value { value: 2, .. }));
    at(&e, H, "formatVersion", 12);
}

#[test]
fn d3_unknown_enums() {
    let e = err(&patched(16, 2));
    assert!(matches!(
        e.kind,
        ReadErrorKind::UnknownEnum { value: 2, .. }
    ));
    at(&e, H, "coordinateSystem", 16);
    let e = err(&patched(20, 0));
    assert!(matches!(
        e.kind,
        ReadErrorKind::UnknownEnum { value: 0, .. }
    ));
    at(&e, H, "matrixConvention", 20);
}

#[test]
fn d3_endianness() {
    // 0 is read as little-endian (a file written to the bare field list).
    let r = gomb::read(&patched(72, 0)).unwrap();
    assert_eq!(r.model.meshes.len(), 1);
    let e = err(&patched(72, 2));
    assert!(matches!(e.kind, ReadErrorKind::BigEndian));
    at(&e, H, "endianness", 72);
    assert!(e.to_string().contains("big-endian is not supported in v1"));
    let e = err(&patched(72, 3));
    assert!(matches!(
        e.kind,
        ReadErrorKind::UnknownEnum { value: 3, .. }
    ));
    at(&e, H, "endianness", 72);
}

#[test]
fn d3_validation_bits_3_to_31_and_reserved_bytes() {
    let e = err(&patched(60, 0b1111));
    assert!(matches!(e.kind, ReadErrorKind::Reserved));
    at(&e, H, "validationFlags", 60);
    let mut f = golden();
    f[500] = 1;
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Reserved));
    at(&e, H, "reserved", 500);
}

#[test]
fn d3_converter_version_names_a_string() {
    let e = err(&patched(56, 6));
    assert!(matches!(e.kind, ReadErrorKind::Value { value: 6, .. }));
    at(&e, H, "converterVersionStr", 56);
}

// ----------------------------------------------------------------------------- D4

#[test]
fn d4_known_chunk_version_and_flags() {
    let e = err(&patched(SKEL + 8, 2));
    assert!(matches!(e.kind, ReadErrorKind::Value { value: 2, .. }));
    at(&e, c(&FourCc::SKEL), "version", SKEL + 8);
    let e = err(&patched(VB0 + 12, 1));
    assert!(matches!(e.kind, ReadErrorKind::Reserved));
    at(&e, c(&FourCc::VB0), "flags", VB0 + 12);
}

#[test]
fn d4_padding_must_be_zero() {
    let mut f = golden();
    f[STR0 + 16 + 67 + 3] = 0x20; // STR0 payload ends at 595, padded to 608
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Padding));
    at(&e, c(&FourCc::STR0), "chunk padding", STR0 + 16 + 67 + 3);
    // Padding of a container's fixed fields (ANIM's clipCount is padded to 16).
    let e = err(&patched(ANIM + 16 + 8, 1));
    assert!(matches!(e.kind, ReadErrorKind::Padding));
    at(&e, c(&FourCc::ANIM), "fixed-field padding", ANIM + 16 + 8);
}

#[test]
fn d4_size_past_the_end_of_the_file_or_its_container() {
    // Without a chunk table the last chunk may not run past the end of the file.
    let (h, chunks) = split(&golden());
    let mut f = assemble(&h, &chunks, false);
    wr(&mut f, ANIM + 4, 4096);
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Overrun { size: 4096, .. }));
    at(&e, c(&FourCc::ANIM), "size", ANIM + 4);
    // A child may not run past its container.
    let e = err(&patched(BND0 + 4, 64));
    assert!(matches!(e.kind, ReadErrorKind::Overrun { size: 64, .. }));
    at(&e, c(&FourCc::BND0), "size", BND0 + 4);
}

#[test]
fn d4_container_size_is_a_multiple_of_16() {
    let (h, mut chunks) = split(&golden());
    find(&mut chunks, b"MSH0").payload.push(0);
    let e = err(&assemble(&h, &chunks, true));
    assert!(matches!(e.kind, ReadErrorKind::Value { value: 449, .. }));
    at(&e, c(&FourCc::MSH0), "size", MSH0 + 4);
}

#[test]
fn d4_unknown_chunks_are_skipped_and_recorded() {
    let (h, mut chunks) = split(&golden());
    chunks.insert(2, Raw::new(b"XTRA", vec![1, 2, 3]));
    edit_mesh(&mut chunks, |_, kids| {
        kids.insert(1, Raw::new(b"MYID", vec![9; 20]))
    });
    edit_anim(&mut chunks, |_, kids| kids.push(Raw::new(b"NOTE", vec![])));
    let f = assemble(&h, &chunks, true);
    let r = gomb::read(&f).unwrap();
    let mut want = gomb::read(&golden()).unwrap().model;
    want.header.validation_flags = r.model.header.validation_flags;
    assert_eq!(r.model, want);
    let u = &r.unknown_chunks;
    assert_eq!(u.len(), 3);
    assert_eq!(
        (u[0].fourcc, u[0].offset, u[0].size, u[0].parent),
        (*b"XTRA", 704, 3, None)
    );
    assert_eq!(
        (u[1].fourcc, u[1].size, u[1].parent),
        (*b"MYID", 20, Some(*b"MSH0"))
    );
    assert_eq!(&f[u[1].offset as usize..u[1].offset as usize + 4], b"MYID");
    assert_eq!(
        (u[2].fourcc, u[2].size, u[2].parent),
        (*b"NOTE", 0, Some(*b"ANIM"))
    );
}

#[test]
fn d4_top_level_chunks_in_any_order_and_children_in_any_order() {
    let (h, mut chunks) = split(&golden());
    chunks.reverse();
    edit_mesh(&mut chunks, |_, kids| kids.reverse());
    let r = gomb::read(&assemble(&h, &chunks, true)).unwrap();
    assert_eq!(r.model, gomb::read(&golden()).unwrap().model);
}

#[test]
fn d4_exactly_one_str0_and_skel_at_most_one_matl_and_anim() {
    for name in [b"STR0", b"SKEL", b"MATL", b"ANIM"] {
        let (h, mut chunks) = split(&golden());
        let dup = find(&mut chunks, name).clone();
        chunks.push(dup);
        let e = err(&assemble(&h, &chunks, true));
        assert!(matches!(e.kind, ReadErrorKind::Duplicate), "{e}");
        assert_eq!(e.place, Place::Chunk(FourCc(*name)));
        assert_eq!(e.offset, 1392, "{e}");
    }
    for name in [b"STR0", b"SKEL"] {
        let (h, mut chunks) = split(&golden());
        chunks.retain(|c| &c.fourcc != name);
        let e = err(&assemble(&h, &chunks, true));
        assert!(matches!(e.kind, ReadErrorKind::Missing));
        at(&e, Place::File, core::str::from_utf8(name).unwrap(), 512);
    }
}

#[test]
fn d4_known_chunks_in_the_wrong_place() {
    // An MSH0 child at top level.
    let (h, mut chunks) = split(&golden());
    chunks.push(Raw::new(b"BND0", vec![0; 40]));
    let e = err(&assemble(&h, &chunks, true));
    assert!(matches!(e.kind, ReadErrorKind::Misplaced { .. }));
    at(&e, c(&FourCc::BND0), "fourcc", TABLE);
    // CLP0 outside ANIM.
    let (h, mut chunks) = split(&golden());
    let clip = split_container(&find(&mut chunks, b"ANIM").payload, 4)
        .1
        .remove(0);
    chunks.push(clip);
    let e = err(&assemble(&h, &chunks, true));
    assert!(matches!(e.kind, ReadErrorKind::Misplaced { .. }));
    at(&e, c(&FourCc::CLP0), "fourcc", TABLE);
    // SKEL inside MSH0, MSH0 inside ANIM.
    let (h, mut chunks) = split(&golden());
    edit_mesh(&mut chunks, |_, kids| {
        kids.push(Raw::new(b"SKEL", vec![0; 4]))
    });
    assert!(matches!(
        err(&assemble(&h, &chunks, true)),
        ReadError {
            kind: ReadErrorKind::Misplaced {
                where_: "inside MSH0",
                ..
            },
            ..
        }
    ));
    let (h, mut chunks) = split(&golden());
    let mesh = find(&mut chunks, b"MSH0").clone();
    edit_anim(&mut chunks, |_, kids| kids.push(mesh));
    assert!(matches!(
        err(&assemble(&h, &chunks, true)),
        ReadError {
            kind: ReadErrorKind::Misplaced {
                where_: "inside ANIM",
                ..
            },
            ..
        }
    ));
}

#[test]
fn d4_mesh_children_at_most_once_and_required_present() {
    let (h, mut chunks) = split(&golden());
    edit_mesh(&mut chunks, |_, kids| {
        let s = kids[2].clone();
        kids.push(s)
    });
    let e = err(&assemble(&h, &chunks, true));
    assert_eq!(e.field, "MSH0", "{e}");
    assert!(matches!(e.kind, ReadErrorKind::Duplicate), "{e}");
    assert_eq!(e.place, c(&FourCc::SUB0));
    for (k, name) in [
        (0, "VB0 "),
        (1, "IB0 "),
        (2, "SUB0"),
        (3, "IBND"),
        (4, "BND0"),
    ] {
        let (h, mut chunks) = split(&golden());
        edit_mesh(&mut chunks, |_, kids| {
            kids.remove(k);
        });
        let e = err(&assemble(&h, &chunks, true));
        assert!(matches!(e.kind, ReadErrorKind::Missing));
        at(&e, c(&FourCc::MSH0), name, MSH0);
    }
}

// ----------------------------------------------------------------------------- D5

#[test]
fn d5_chunk_table_entries_are_checked() {
    let e = err(&patched(TABLE + 16 + 4, 609));
    assert!(matches!(
        e.kind,
        ReadErrorKind::TableMismatch { index: 1, .. }
    ));
    at(&e, Place::ChunkTable, "offset", TABLE + 16 + 4);
    let e = err(&patched(TABLE + 32 + 8, 29));
    assert!(matches!(
        e.kind,
        ReadErrorKind::TableMismatch { index: 2, .. }
    ));
    at(&e, Place::ChunkTable, "size", TABLE + 32 + 8);
    let mut f = golden();
    f[TABLE + 48] = b'X';
    let e = err(&f);
    assert!(matches!(
        e.kind,
        ReadErrorKind::TableMismatch { index: 3, .. }
    ));
    at(&e, Place::ChunkTable, "fourcc", TABLE + 48);
    let e = err(&patched(TABLE + 64 + 12, 1));
    assert!(matches!(e.kind, ReadErrorKind::Reserved));
    at(&e, Place::ChunkTable, "reserved", TABLE + 64 + 12);
}

#[test]
fn d5_nothing_after_the_chunk_table() {
    let mut f = golden();
    f.extend_from_slice(&[0; 16]);
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Trailing { count: 16, .. }));
    at(&e, Place::ChunkTable, "the last entry", TABLE + 80);
}

#[test]
fn d5_table_placement_and_count() {
    let e = err(&patched(64, TABLE as u32 + 8));
    at(&e, H, "chunkTableOffset", 64);
    // A count that leaves entries unlisted makes bytes follow the table.
    let e = err(&patched(68, 4));
    assert!(matches!(e.kind, ReadErrorKind::Trailing { .. }));
    // No table at all is fine (offset 0, count 0)…
    let (h, chunks) = split(&golden());
    let f = assemble(&h, &chunks, false);
    assert_eq!(
        gomb::read(&f).unwrap().model,
        gomb::read(&golden()).unwrap().model
    );
    // …but a count without a table is not.
    let mut g = f.clone();
    wr(&mut g, 68, 5);
    at(&err(&g), H, "chunkTableCount", 68);
}

// ----------------------------------------------------------------------------- D6

#[test]
fn d6_strings_end_with_a_nul_inside_the_data_and_are_utf8() {
    // The last string "idle\0" ends the data: remove its NUL.
    let last_nul = STR0 + 16 + 4 + 24 + 4 + 34;
    let mut f = golden();
    f[last_nul] = b'!';
    let e = err(&f);
    assert!(matches!(
        e.kind,
        ReadErrorKind::BadString {
            index: 5,
            reason: "has no terminating NUL inside the data",
            ..
        }
    ));
    at(&e, c(&FourCc::STR0), "data", STR0 + 16 + 32 + 30);
    let mut f = golden();
    f[STR0 + 16 + 32 + 9] = 0xFF; // first byte of "root"
    let e = err(&f);
    assert!(matches!(
        e.kind,
        ReadErrorKind::BadString {
            index: 1,
            reason: "is not valid UTF-8",
            ..
        }
    ));
    at(&e, c(&FourCc::STR0), "data", STR0 + 16 + 32 + 9);
    // An offset outside the data.
    let e = err(&patched(STR0 + 16 + 4 + 4, 35));
    assert!(matches!(e.kind, ReadErrorKind::BadString { index: 1, .. }));
    at(&e, c(&FourCc::STR0), "offsets", STR0 + 16 + 8);
}

#[test]
fn d6_shared_suffixes_are_fine_but_not_mid_character() {
    // Point the mesh name (string 4, "tri") at the "ri" inside it: still valid.
    let f = patched(STR0 + 16 + 4 + 16, 27);
    assert_eq!(gomb::read(&f).unwrap().model.meshes[0].name, "ri");
    // A two-byte character cut in half is not.
    let (h, mut chunks) = split(&golden());
    let s = find(&mut chunks, b"STR0");
    let mut p = s.payload.clone();
    p[4 + 24 + 4 + 30..4 + 24 + 4 + 34].copy_from_slice("é!!".as_bytes()[..4].try_into().unwrap());
    wr(&mut p, 4 + 20, 31); // string 5 starts inside "é"
    s.payload = p;
    let e = err(&assemble(&h, &chunks, true));
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::BadString {
                index: 5,
                reason: "is not valid UTF-8",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn d6_no_bytes_beyond_the_fields() {
    let (h, mut chunks) = split(&golden());
    find(&mut chunks, b"STR0").payload.push(0);
    let e = err(&assemble(&h, &chunks, true));
    assert!(matches!(e.kind, ReadErrorKind::Trailing { count: 1, .. }));
    at(&e, c(&FourCc::STR0), "data", STR0 + 16 + 67);
}

#[test]
fn d6_every_string_index_names_a_string() {
    let e = err(&patched(SKEL + 16 + 8, 6));
    assert!(matches!(e.kind, ReadErrorKind::Value { value: 6, .. }));
    at(&e, c(&FourCc::SKEL), "nameId", SKEL + 24);
    let e = err(&patched(MATL + 20, 99));
    at(&e, c(&FourCc::MATL), "nameId", MATL + 20);
    let e = err(&patched(MATL + 24, 6));
    at(&e, c(&FourCc::MATL), "baseColorTextureId", MATL + 24);
    // 0xFFFFFFFF is "no texture".
    let r = gomb::read(&patched(MATL + 24, u32::MAX));
    assert_eq!(r.unwrap().model.materials[0].base_color_texture, None);
}

// ----------------------------------------------------------------------------- SKEL

#[test]
fn skel_parent_is_minus_one_or_an_earlier_bone() {
    let e = err(&patched(SKEL + 20, 0));
    assert!(matches!(e.kind, ReadErrorKind::Rule { .. }));
    at(&e, c(&FourCc::SKEL), "parent", SKEL + 20);
}

#[test]
fn nan_and_infinity_are_refused_everywhere() {
    for (off, place, field) in [
        (SKEL + 32 + 20, FourCc::SKEL, "bindLocal"),
        (MATL + 28, FourCc::MATL, "baseColorFactor"),
        (VDATA + 4, FourCc::VB0, "position"),
        (VDATA + 12, FourCc::VB0, "uv0"),
        (VDATA + 28, FourCc::VB0, "skin weights"),
        (IBND + 20 + 8, FourCc::IBND, "inverseBind"),
        (BND0 + 16 + 36, FourCc::BND0, "bounds"),
        (CLP0 + 20, FourCc::CLP0, "duration"),
        (CLP0 + 24, FourCc::CLP0, "sampleRate"),
        (KEY1 + 4, FourCc::CLP0, "translation"),
        (KEY1 + 40, FourCc::CLP0, "scale"),
    ] {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let e = err(&patched_f32(off, bad));
            assert!(matches!(e.kind, ReadErrorKind::NotFinite), "{e}");
            at(&e, c(&place), field, off);
        }
    }
}

// ----------------------------------------------------------------------------- D7

#[test]
fn d7_vertex_format_bits() {
    let e = err(&patched(MSH0 + 20, 0b1100_1001));
    assert!(matches!(e.kind, ReadErrorKind::Value { .. }));
    at(&e, c(&FourCc::MSH0), "vertexFormat", MSH0 + 20);
    let e = err(&patched(MSH0 + 20, 0b100_1000));
    at(&e, c(&FourCc::MSH0), "vertexFormat", MSH0 + 20);
}

#[test]
fn d7_vb0_agrees_with_msh0() {
    let e = err(&patched(VB0 + 16, 2));
    at(&e, c(&FourCc::VB0), "vertexCount", VB0 + 16);
    let e = err(&patched(VB0 + 20, 48));
    assert!(matches!(e.kind, ReadErrorKind::Value { value: 48, .. }));
    at(&e, c(&FourCc::VB0), "stride", VB0 + 20);
    let e = err(&patched(VB0 + 24, 0b100_0001));
    at(&e, c(&FourCc::VB0), "vertexFormat", VB0 + 24);
}

#[test]
fn d7_reserved_fields_of_msh0_vb0_ib0() {
    for (off, place) in [
        (MSH0 + 44, FourCc::MSH0),
        (VB0 + 28, FourCc::VB0),
        (IB0 + 28, FourCc::IB0),
    ] {
        let e = err(&patched(off, 1));
        assert!(matches!(e.kind, ReadErrorKind::Reserved));
        at(&e, c(&place), "reserved", off);
    }
    let e = err(&patched(MSH0 + 36, 1 | 16));
    assert!(matches!(e.kind, ReadErrorKind::Reserved));
    at(&e, c(&FourCc::MSH0), "flags", MSH0 + 36);
    // Bit 3 is the MRPH extension's (docs/extensions.md §4): without its chunk, the
    // flag does not match the children.
    let e = err(&patched(MSH0 + 36, 1 | 8));
    assert!(
        matches!(e.kind, ReadErrorKind::Value { value: 9, .. }),
        "{e}"
    );
    at(&e, c(&FourCc::MSH0), "flags", MSH0 + 36);
    // Bit 2 is the SKNX extension's (docs/extensions.md §3): without its chunk, the
    // flag does not match the children.
    let e = err(&patched(MSH0 + 36, 1 | 4));
    assert!(
        matches!(e.kind, ReadErrorKind::Value { value: 5, .. }),
        "{e}"
    );
    at(&e, c(&FourCc::MSH0), "flags", MSH0 + 36);
}

#[test]
fn d7_msh0_flags_match_the_children() {
    let e = err(&patched(MSH0 + 36, 0));
    assert!(e.to_string().contains("indices16"), "{e}");
    at(&e, c(&FourCc::MSH0), "flags", MSH0 + 36);
    let e = err(&patched(MSH0 + 36, 3));
    assert!(e.to_string().contains("hasGBTM"), "{e}");
    at(&e, c(&FourCc::MSH0), "flags", MSH0 + 36);
}

#[test]
fn d7_bone_count_is_the_skeletons_for_a_skinned_mesh() {
    let e = err(&patched(MSH0 + 32, 0));
    at(&e, c(&FourCc::MSH0), "boneCount", MSH0 + 32);
    let e = err(&patched(IBND + 16, 2));
    at(&e, c(&FourCc::IBND), "boneCount", IBND + 16);
}

#[test]
fn d7_index_buffer() {
    let e = err(&patched(IB0 + 20, 3));
    assert!(matches!(e.kind, ReadErrorKind::Value { value: 3, .. }));
    at(&e, c(&FourCc::IB0), "indexSizeBytes", IB0 + 20);
    let e = err(&patched(IB0 + 16, 6));
    at(&e, c(&FourCc::IB0), "indexCount", IB0 + 16);
    let e = err(&patched(MSH0 + 28, 4));
    at(&e, c(&FourCc::MSH0), "indexCount", MSH0 + 28);
    let mut f = golden();
    f[IB0 + 32 + 4] = 3; // third index = 3, vertexCount 3
    let e = err(&f);
    assert!(matches!(e.kind, ReadErrorKind::Rule { .. }));
    at(&e, c(&FourCc::IB0), "data", IB0 + 32 + 4);
}

#[test]
fn d7_submesh_structure() {
    let e = err(&patched(SUB0 + 24, 1));
    at(&e, c(&FourCc::SUB0), "indexStart", SUB0 + 24);
    let e = err(&patched(SUB0 + 28, 2));
    at(&e, c(&FourCc::SUB0), "indexCount", SUB0 + 28);
    let e = err(&patched(SUB0 + 28, 6));
    assert!(e.to_string().contains("outside"), "{e}");
    at(&e, c(&FourCc::SUB0), "indexCount", SUB0 + 28);
}

#[test]
fn d7_no_bytes_beyond_a_childs_fields() {
    // BND0 claims 44 bytes: its 40 bytes of fields and 4 (zero) bytes more.
    let e = err(&patched(BND0 + 4, 44));
    assert!(matches!(e.kind, ReadErrorKind::Trailing { count: 4, .. }));
    at(&e, c(&FourCc::BND0), "sphereRadius", BND0 + 16 + 40);
}

#[test]
fn d7_gbtm_flag_matches_the_gbtm_child() {
    let f = gomb::write(&rich_model(5)).unwrap();
    let (h, mut chunks) = split(&f);
    // The second mesh ("prop") has a GBTM child and flags bit 1 set.
    let prop = chunks
        .iter_mut()
        .filter(|c| &c.fourcc == b"MSH0")
        .nth(1)
        .unwrap();
    assert_eq!(rd(&prop.payload, 20), 0b11);
    wr(&mut prop.payload, 20, 0b01);
    let g = assemble(&h, &chunks, true);
    let e = err(&g);
    assert!(e.to_string().contains("hasGBTM"), "{e}");
    assert_eq!((e.place, e.field), (c(&FourCc::MSH0), "flags"));
    let r = gomb::read(&f).unwrap();
    assert!(r.model.meshes[1].mesh_bind_geo_to_model.is_some());
}

#[test]
fn d7_bounds_contain_every_vertex_and_a_looser_box_is_fine() {
    let e = err(&patched_f32(BND0 + 16 + 12, 0.5)); // aabbMax.x below vertex 1
    assert!(matches!(e.kind, ReadErrorKind::Rule { .. }));
    at(&e, c(&FourCc::BND0), "aabbMin", BND0 + 16);
    let e = err(&patched_f32(BND0 + 16 + 36, 0.7)); // radius below sqrt(0.5)
    at(&e, c(&FourCc::BND0), "sphereRadius", BND0 + 16 + 36);
    // Within the relative tolerance of 1e-5: 1 - 5e-6 still contains x = 1.
    assert!(gomb::read(&patched_f32(BND0 + 16 + 12, 1.0 - 5e-6)).is_ok());
    assert!(gomb::read(&patched_f32(BND0 + 16 + 12, 1.0 - 2e-5)).is_err());
    let r = gomb::read(&patched_f32(BND0 + 16 + 12, 10.0)).unwrap();
    assert_eq!(r.model.meshes[0].bounds.unwrap().aabb_max, [10.0, 1.0, 0.0]);
}

#[test]
fn d7_skin_structure() {
    let e = err(&patched_f32(VDATA + 28, -0.5));
    assert!(e.to_string().contains("negative"), "{e}");
    at(&e, c(&FourCc::VB0), "skin", VDATA + 20);
    // Bone 1 does not exist: with weight > 0 that is an error…
    let mut f = golden();
    f[VDATA + 20] = 1;
    let e = err(&f);
    at(&e, c(&FourCc::VB0), "skin", VDATA + 20);
    // …in an unused slot (weight 0) only a weight-rule finding.
    let mut f = golden();
    f[VDATA + 22] = 1;
    wr(&mut f, 60, 0b101);
    let r = gomb::read(&f).unwrap();
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].check, Check::Weights);
}

#[test]
fn d7_tangent_w_is_plus_or_minus_one() {
    let mut m = rich_model(5);
    let f = gomb::write(&m).unwrap();
    let msh = offset_of(&f, b"MSH0");
    let vb0 = child_offset(&f, msh, 32, b"VB0 ");
    let tw = vb0 + 32 + 12 + 12 + 12; // vertex 0: position, normal, tangent xyz
    let mut g = f.clone();
    wr(&mut g, tw, 0.5f32.to_bits());
    let e = err(&g);
    at(&e, c(&FourCc::VB0), "tangent", tw);
    // The writer refuses it too, naming the mesh and the field.
    m.meshes[0].vertices.tangents.as_mut().unwrap()[0][3] = 0.5;
    let w = gomb::write(&m).unwrap_err();
    assert_eq!((w.item(), w.field()), (Item::Mesh(0), "tangents"));
}

// ----------------------------------------------------------------------------- D9

#[test]
fn d9_clip_count_is_the_number_of_clp0_children() {
    let e = err(&patched(ANIM + 16, 2));
    assert!(matches!(e.kind, ReadErrorKind::Value { value: 2, .. }));
    at(&e, c(&FourCc::ANIM), "clipCount", ANIM + 16);
    let e = err(&patched(ANIM + 16, 0));
    at(&e, c(&FourCc::ANIM), "clipCount", ANIM + 16);
}

#[test]
fn d9_clip_fields() {
    let e = err(&patched_f32(CLP0 + 20, -1.0));
    at(&e, c(&FourCc::CLP0), "duration", CLP0 + 20);
    let e = err(&patched_f32(CLP0 + 24, -30.0));
    at(&e, c(&FourCc::CLP0), "sampleRate", CLP0 + 24);
    let e = err(&patched(CLP0 + 28, 1));
    at(&e, c(&FourCc::CLP0), "rootBoneIndex", CLP0 + 28);
    let e = err(&patched(CLP0 + 28, (-2i32) as u32));
    at(&e, c(&FourCc::CLP0), "rootBoneIndex", CLP0 + 28);
    let e = err(&patched(CLP0 + 32, 1));
    assert!(e.to_string().contains("HasRootMotion"), "{e}");
    at(&e, c(&FourCc::CLP0), "flags", CLP0 + 32);
    let e = err(&patched(CLP0 + 32, 2));
    at(&e, c(&FourCc::CLP0), "flags", CLP0 + 32);
    // HasRootMotion with a root bone is fine.
    let mut f = patched(CLP0 + 32, 1);
    wr(&mut f, CLP0 + 28, 0);
    assert!(gomb::read(&f).unwrap().model.clips[0]
        .flags
        .has_root_motion());
}

#[test]
fn d9_tracks() {
    let e = err(&patched(TRACK, 1));
    at(&e, c(&FourCc::CLP0), "boneIndex", TRACK);
    let e = err(&patched(TRACK, u32::MAX));
    at(&e, c(&FourCc::CLP0), "boneIndex", TRACK);
    // Two tracks of the same bone.
    let mut m = minimal_model();
    m.skeleton.bones.push(gom::Bone {
        name: "b".into(),
        path: "root/b".into(),
        parent: 0,
        bind_local: gom::IDENTITY,
    });
    m.meshes.clear();
    let t = m.clips[0].tracks[0].clone();
    m.clips[0].tracks.push(gom::Track { bone: 1, ..t });
    let f = gomb::write(&m).unwrap();
    let second = offset_of(&f, b"ANIM") + 32 + 24 + 8 + 88 + 16;
    let e = err(&{
        let mut g = f.clone();
        wr(&mut g, second, 0);
        g
    });
    assert!(e.to_string().contains("strictly ascending"), "{e}");
    at(&e, c(&FourCc::CLP0), "boneIndex", second);
    // A track without keys.
    let (h, mut chunks) = split(&golden());
    edit_anim(&mut chunks, |_, kids| {
        let p = &mut kids[0].payload;
        wr(p, 24 + 4, 0);
        p.truncate(24 + 8);
    });
    let e = err(&assemble(&h, &chunks, true));
    at(&e, c(&FourCc::CLP0), "keyCount", TRACK + 4);
}

#[test]
fn d9_keys() {
    let e = err(&patched_f32(KEY1, 0.0));
    assert!(e.to_string().contains("strictly ascending"), "{e}");
    at(&e, c(&FourCc::CLP0), "time", KEY1);
    let e = err(&patched_f32(KEY1, 1.5));
    at(&e, c(&FourCc::CLP0), "time", KEY1);
    let e = err(&patched_f32(KEY0, -0.25));
    at(&e, c(&FourCc::CLP0), "time", KEY0);
    let e = err(&patched_f32(KEY0 + 28, 1.01)); // w of the identity rotation
    at(&e, c(&FourCc::CLP0), "rotation", KEY0 + 16);
    assert!(gomb::read(&patched_f32(KEY0 + 28, 1.0009)).is_ok());
}

#[test]
fn d9_no_bytes_beyond_the_tracks() {
    let (h, mut chunks) = split(&golden());
    edit_anim(&mut chunks, |_, kids| {
        kids[0].payload.extend_from_slice(&[0; 4])
    });
    let e = err(&assemble(&h, &chunks, true));
    assert!(matches!(e.kind, ReadErrorKind::Trailing { count: 4, .. }));
    at(&e, c(&FourCc::CLP0), "tracks", CLP0 + 16 + 120);
}

// ----------------------------------------------------------------------------- D12

#[test]
fn d12_limits() {
    let e = err(&patched(ANIM + 16, 1025));
    assert!(matches!(
        e.kind,
        ReadErrorKind::Limit {
            value: 1025,
            limit: 1024,
            ..
        }
    ));
    at(&e, c(&FourCc::ANIM), "clipCount", ANIM + 16);
    let e = err(&patched(CLP0 + 36, 8193));
    assert!(matches!(
        e.kind,
        ReadErrorKind::Limit {
            value: 8193,
            limit: 8192,
            ..
        }
    ));
    at(&e, c(&FourCc::CLP0), "trackCount", CLP0 + 36);
    let e = err(&patched(TRACK + 4, 1_000_001));
    assert!(matches!(
        e.kind,
        ReadErrorKind::Limit {
            value: 1_000_001,
            limit: 1_000_000,
            ..
        }
    ));
    at(&e, c(&FourCc::CLP0), "keyCount", TRACK + 4);
    // Counts below the limits are checked against the bytes present.
    let e = err(&patched(TRACK + 4, 1_000_000));
    assert_eq!(e.field, "keys", "{e}");
    assert!(matches!(e.kind, ReadErrorKind::Truncated { .. }), "{e}");
    let e = err(&patched(CLP0 + 36, 8192));
    assert_eq!(e.field, "boneIndex", "{e}");
    assert!(matches!(e.kind, ReadErrorKind::Truncated { .. }), "{e}");
}

#[test]
fn d12_shared_strings_cannot_blow_up_the_model() {
    // 4096 bones all named by one 2000-byte string: 16 MB of names in a model from a
    // file of about 320 kB. The writer refuses the model…
    let mut m = gom::Model::default();
    for i in 0..4096 {
        m.skeleton.bones.push(gom::Bone {
            name: "x".into(),
            path: "x".into(),
            parent: i - 1,
            bind_local: gom::IDENTITY,
        });
    }
    let mut big = m.clone();
    for b in &mut big.skeleton.bones {
        b.name = "x".repeat(2000);
    }
    assert!(matches!(
        gomb::write(&big),
        Err(WriteError::Limit {
            item: Item::File,
            field: "strings",
            ..
        })
    ));
    // …and the reader refuses the file, built by lengthening the one shared string.
    let (h, mut chunks) = split(&gomb::write(&m).unwrap());
    let s = find(&mut chunks, b"STR0");
    assert_eq!(rd(&s.payload, 0), 2); // "", "x"
    let mut p = Vec::new();
    for v in [2u32, 0, 1, 2002] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    p.push(0);
    p.extend(std::iter::repeat_n(b'x', 2000));
    p.push(0);
    s.payload = p;
    let f = assemble(&h, &chunks, true);
    let e = err(&f);
    assert_eq!(e.field, "data", "{e}");
    assert!(matches!(e.kind, ReadErrorKind::Limit { .. }), "{e}");
    assert_eq!(e.place, c(&FourCc::STR0));
    // The same file with the string used once is fine.
    let mut m2 = m.clone();
    m2.skeleton.bones[0].name = "x".repeat(2000);
    assert!(gomb::read(&gomb::write(&m2).unwrap()).is_ok());
}

// ----------------------------------------------------------------------------- D13

#[test]
fn d13_findings_with_flag_clear_errors_with_flag_set() {
    type Case = (usize, u32, Check, &'static str);
    let cases: [Case; 4] = [
        // The weights of vertex 0 sum to 0.9.
        (
            VDATA + 20 + 8,
            0.9f32.to_bits(),
            Check::Weights,
            "weightsPass",
        ),
        // Weights (0.3, 0.7): not descending (the sum stays 1).
        (
            VDATA + 20 + 8,
            0.3f32.to_bits(),
            Check::Weights,
            "weightsPass",
        ),
        // IBND translation y = -2 does not undo the bind translation (0, 1, 0).
        (
            IBND + 20 + 52,
            (-2.0f32).to_bits(),
            Check::BindPose,
            "bindPosePass",
        ),
        // Material 1 does not exist.
        (
            SUB0 + 20,
            1,
            Check::SubmeshMaterials,
            "submeshMaterialsPass",
        ),
    ];
    for (k, (off, v, check, flag)) in cases.into_iter().enumerate() {
        let mut f = patched(off, v);
        if k == 1 {
            wr(&mut f, off + 4, 0.7f32.to_bits());
            f[VDATA + 22] = 0; // slot 1 names bone 0 (already)
        }
        // Flag set: the file claims what it is not.
        let e = err(&f);
        assert!(
            matches!(e.kind, ReadErrorKind::FlagClaim { flag: fl, .. } if fl == flag),
            "{e}"
        );
        at(&e, H, "validationFlags", 60);
        // Flag clear: readable, with the finding.
        wr(&mut f, 60, 7 & !check_bit(check));
        let r = gomb::read(&f).unwrap();
        assert_eq!(r.findings.len(), 1, "{:?}", r.findings);
        assert_eq!((r.findings[0].check, r.findings[0].mesh), (check, Some(0)));
        // The model path finds the same, and the writer clears exactly that flag.
        assert_eq!(gom::validate::validate(&r.model), r.findings);
        assert_eq!(
            gom::validate::flags_for(&r.model).bits(),
            7 & !check_bit(check)
        );
        let again = gomb::write(&r.model).unwrap();
        assert_eq!(rd(&again, 60), 7 & !check_bit(check));
    }
}

fn check_bit(c: Check) -> u32 {
    c.flag().bits()
}

#[test]
fn d13_submesh_coverage_findings() {
    let mut m = minimal_model();
    m.meshes[0].indices.extend_from_slice(&[0, 2, 1]);
    // [0, 3) covered, [3, 6) not.
    let f = gomb::write(&m).unwrap();
    assert_eq!(rd(&f, 60), 0b011);
    let r = gomb::read(&f).unwrap();
    assert_eq!(r.findings.len(), 1);
    assert!(
        r.findings[0].message.contains("cover"),
        "{}",
        r.findings[0].message
    );
    // An empty submesh.
    m.meshes[0].submeshes.push(gom::Submesh {
        material_index: 0,
        index_start: 3,
        index_count: 0,
    });
    m.meshes[0].submeshes.push(gom::Submesh {
        material_index: 0,
        index_start: 3,
        index_count: 3,
    });
    let f = gomb::write(&m).unwrap();
    let r = gomb::read(&f).unwrap();
    assert!(
        r.findings[0].message.contains("empty"),
        "{}",
        r.findings[0].message
    );
    // Material −1 is always fine, also without MATL.
    let mut m = minimal_model();
    m.materials.clear();
    m.meshes[0].submeshes[0].material_index = -1;
    let f = gomb::write(&m).unwrap();
    assert_eq!(rd(&f, 60), 0b111);
    assert!(split(&f).1.iter().all(|c| &c.fourcc != b"MATL"));
}

// ----------------------------------------------------------------------------- writer

#[test]
fn writer_refuses_what_a_reader_would_reject() {
    type Breaker = Box<dyn Fn(&mut gom::Model)>;
    let cases: Vec<(Breaker, Item, &str)> = vec![
        (
            Box::new(|m| m.meshes[0].indices[2] = 3),
            Item::Mesh(0),
            "indices",
        ),
        (
            Box::new(|m| m.meshes[0].indices.push(0)),
            Item::Mesh(0),
            "indices",
        ),
        (
            Box::new(|m| m.meshes[0].vertices.positions[1][0] = f32::NAN),
            Item::Mesh(0),
            "positions",
        ),
        (
            Box::new(|m| {
                m.meshes[0]
                    .vertices
                    .uv0
                    .as_mut()
                    .unwrap()
                    .pop()
                    .map(|_| ())
                    .unwrap()
            }),
            Item::Mesh(0),
            "uv0",
        ),
        (
            Box::new(|m| m.meshes[0].inverse_bind.clear()),
            Item::Mesh(0),
            "inverseBind",
        ),
        (
            Box::new(|m| m.meshes[0].submeshes[0].index_count = 6),
            Item::Mesh(0),
            "indexCount",
        ),
        (
            Box::new(|m| m.meshes[0].vertices.skin.as_mut().unwrap()[0].bones[0] = 1),
            Item::Mesh(0),
            "skin",
        ),
        (
            Box::new(|m| m.skeleton.bones[0].parent = 0),
            Item::Bone(0),
            "parent",
        ),
        (
            Box::new(|m| m.skeleton.bones[0].name.push('\0')),
            Item::Bone(0),
            "name",
        ),
        (
            Box::new(|m| m.clips[0].tracks[0].keys[1].time = 2.0),
            Item::Clip(0),
            "time",
        ),
        (
            Box::new(|m| m.clips[0].tracks[0].keys[1].rotation = [0.0; 4]),
            Item::Clip(0),
            "rotation",
        ),
        (
            Box::new(|m| m.clips[0].tracks[0].bone = 1),
            Item::Clip(0),
            "boneIndex",
        ),
        (
            Box::new(|m| m.clips[0].tracks[0].keys.clear()),
            Item::Clip(0),
            "keyCount",
        ),
        (
            Box::new(|m| m.clips[0].flags = gom::ClipFlags::HAS_ROOT_MOTION),
            Item::Clip(0),
            "flags",
        ),
        (
            Box::new(|m| m.clips[0].duration = -1.0),
            Item::Clip(0),
            "duration",
        ),
        (
            Box::new(|m| m.materials[0].base_color_factor[0] = f32::INFINITY),
            Item::Material(0),
            "baseColorFactor",
        ),
    ];
    for (k, (break_it, item, field)) in cases.into_iter().enumerate() {
        let mut m = minimal_model();
        break_it(&mut m);
        match gomb::write(&m) {
            Err(e @ WriteError::Invalid { .. }) => {
                assert_eq!((e.item(), e.field()), (item, field), "case {k}: {e}");
                assert!(!e.to_string().is_empty());
            }
            other => panic!("case {k}: {other:?}"),
        }
    }
    let mut m = gom::Model::default();
    m.skeleton.bones = vec![
        gom::Bone {
            name: String::new(),
            path: String::new(),
            parent: -1,
            bind_local: gom::IDENTITY
        };
        4097
    ];
    assert!(matches!(
        gomb::write(&m),
        Err(WriteError::Limit {
            field: "boneCount",
            value: 4097,
            ..
        })
    ));
}

#[test]
fn d6_offsets_in_any_order() {
    // Swap the offsets of strings 1 ("root") and 2 ("mat"): the bone is now named
    // "mat" and the material "root"; the table is walked in offset order.
    let mut f = patched(STR0 + 16 + 8, 14);
    wr(&mut f, STR0 + 16 + 12, 9);
    let m = gomb::read(&f).unwrap().model;
    assert_eq!(
        (
            m.skeleton.bones[0].name.as_str(),
            m.materials[0].name.as_str()
        ),
        ("mat", "root")
    );
    // Unsorted, and one of them starts inside a character of another string.
    let (h, mut chunks) = split(&golden());
    let s = find(&mut chunks, b"STR0");
    s.payload[4 + 24 + 4 + 26..4 + 24 + 4 + 29].copy_from_slice("é\0".as_bytes());
    wr(&mut s.payload, 4 + 4, 27); // string 1 → the second byte of "é"
    let e = err(&assemble(&h, &chunks, true));
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::BadString {
                index: 1,
                reason: "is not valid UTF-8",
                ..
            }
        ),
        "{e}"
    );
}
